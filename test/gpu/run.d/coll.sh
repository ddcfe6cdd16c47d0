# Sourced by test/gpu/run.sh for its subcommand "coll" (the variables and
# helpers it uses are defined there).
#
#   test/gpu/run.sh coll [DIR]    on the GPU machine: the team collectives as
#                                 kernels (issue 21): the suite in-process (2
#                                 and 4 PEs), the collective measurements with
#                                 their floors in-process (2 and 4 PEs), then
#                                 under MPS the suite as processes and the
#                                 measurements as processes, and NCCL's
#                                 all-reduce through torch.distributed (on one
#                                 GPU NCCL refuses two ranks: its log says so).

ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
step suite-inproc 150 env GSHMEM_GPU_NPES=2,4 ./gpu.test -test.run 'TestGPUSuiteInProcess|TestGPUComplexReduce' -test.v -test.timeout 145s
step coll-inproc 150 env GSHMEM_GPU_COLL=1 GSHMEM_GPU_NPES=2,4 ./gpu.test -test.run 'TestGPUCollBenchInProcess' -test.v -test.timeout 145s
mps_start
step suite-procs-mps 130 env GSHMEM_GPU_NPES=2,4 ./gpu.test -test.run 'TestGPUSuiteProcesses' -test.v -test.timeout 125s
step coll-procs-mps 100 env GSHMEM_GPU_COLL=1 GSHMEM_GPU_MPS=1 GSHMEM_GPU_NPES=2,4 ./gpu.test -test.run 'TestGPUCollBenchProcesses' -test.v -test.timeout 95s
mps_stop
step nccl-allreduce 40 torchrun --standalone --nproc_per_node="$((ngpu > 1 ? ngpu : 2))" nccl_allreduce.py
figures "$out"/coll-*.log "$out"/nccl-*.log
exit
