# Sourced by test/gpu/run.sh for its subcommand "multi" (the variables and
# helpers it uses are defined there).
#
#   test/gpu/run.sh multi [DIR]   on a machine of several GPUs: the multi-GPU
#                                 sitting (issue 10), most telling first: the
#                                 measurements with one PE per GPU (processes,
#                                 no MPS, the ping-pong included; a 1 GiB
#                                 float32 allreduce too), NCCL's all-reduce through
#                                 torch.distributed, the suite with one PE per
#                                 GPU and (under MPS) two per GPU, then the
#                                 NVSHMEM reference.

ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
{ nvidia-smi -L; nvidia-smi topo -p2p n 2>/dev/null; } >>"$out/machine.log" 2>&1
echo "GPUs: $ngpu" | tee -a "$out/steps.log"
step bench-procs-multi 100 env GSHMEM_GPU_BENCH=1 GSHMEM_GPU_PINGPONG=1 GSHMEM_GPU_ALLREDUCE=1 ./gpu.test -test.run 'TestGPUBenchProcesses' -test.v -test.timeout 95s
step nccl-allreduce 90 torchrun --standalone --nproc_per_node="$ngpu" nccl_allreduce.py
step suite-procs-multi 60 env GSHMEM_GPU_NPES="$ngpu" ./gpu.test -test.run 'TestGPUSuiteProcesses' -test.v -test.timeout 55s
mps_start
step suite-procs-multi-mps 60 env GSHMEM_GPU_NPES="$((2 * ngpu))" ./gpu.test -test.run 'TestGPUSuiteProcesses' -test.v -test.timeout 55s
mps_stop
if [ -f ref/run.sh ]; then
	step nvshmem-ref 60 bash ref/run.sh
else
	anchor_absent nvshmem-ref "no ref/run.sh: the build found no NVSHMEM reference"
fi
figures "$out"/nccl-*.log
exit
