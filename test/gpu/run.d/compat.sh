# Sourced by test/gpu/run.sh for its subcommand "compat" (the variables and
# helpers it uses are defined there).
#
#   test/gpu/run.sh compat [DIR]  on the GPU machine: compat's collectives on
#                                 device buffers (issues 21, 22: the rooted and
#                                 v-collectives too): the suite in-process
#                                 (2, 3 and 4 PEs), the compat.Allreduce measurements
#                                 beside shmem.Reduce's in-process, then under
#                                 MPS both as processes.

step compat-inproc 150 env GSHMEM_GPU_NPES=2,3,4 ./gpu.test -test.run 'TestGPUCompatInProcess' -test.v -test.timeout 145s
step compatbench-inproc 100 env GSHMEM_GPU_COMPAT_BENCH=1 ./gpu.test -test.run TestGPUCompatBenchInProcess -test.v -test.timeout 95s
mps_start
step compat-procs-mps 100 env GSHMEM_GPU_NPES=2,3,4 ./gpu.test -test.run TestGPUCompatProcesses -test.v -test.timeout 95s
step compatbench-procs-mps 100 env GSHMEM_GPU_COMPAT_BENCH=1 GSHMEM_GPU_MPS=1 ./gpu.test -test.run TestGPUCompatBenchProcesses -test.v -test.timeout 95s
mps_stop
grep -h "BENCH compat" "$out"/compatbench-*.log | sed 's/^ *\[pe [0-9]\] //' | sort -u
grep -h "compat on device buffers" "$out"/compat-*.log | sed 's/^ *\[pe [0-9]\] //' | sort -u
summary
exit
