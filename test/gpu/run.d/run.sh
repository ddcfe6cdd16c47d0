# Sourced by test/gpu/run.sh for its subcommand "run" (the variables and
# helpers it uses are defined there).
#
#   test/gpu/run.sh run [DIR]     on the GPU machine (no Go needed): runs, in one
#                                 sitting, logging to $OUT (or DIR/logs):
#                                   1. the correctness suite, PEs in one process
#                                      sharing a context (2 and 4 PEs), no MPS
#                                   2. the measurements, in-process, no MPS
#                                   3. putblock-gpu, in-process
#                                   4. under MPS: the suite as processes (CUDA IPC,
#                                      2 and 4 PEs), putblock-gpu as processes, and
#                                      the measurements as processes
#                                   5. the NVSHMEM reference (shared/reference/gpu/run.sh)
#                                 and prints the figures side by side.

# 1-3: no MPS.
step suite-inproc 100 env GSHMEM_GPU_NPES=2,4 ./gpu.test -test.run 'TestGPUSuiteInProcess' -test.v -test.timeout 95s
step bench-inproc 100 env GSHMEM_GPU_BENCH=1 ./gpu.test -test.run 'TestGPUBenchInProcess' -test.v -test.timeout 95s
step putblock-inproc 40 ./putblock-gpu -inproc 2

# 4: MPS.
mps_start
step suite-procs-mps 100 env GSHMEM_GPU_NPES=2,4 ./gpu.test -test.run 'TestGPUSuiteProcesses' -test.v -test.timeout 95s
if [ -x ./gshmem ]; then
	step putblock-procs-mps 40 ./gshmem run -n 2 ./putblock-gpu
fi
step bench-procs-mps 100 env GSHMEM_GPU_BENCH=1 GSHMEM_GPU_MPS=1 ./gpu.test -test.run 'TestGPUBenchProcesses' -test.v -test.timeout 95s
mps_stop

# 5: the NVSHMEM reference program, same machine, same sitting.
if [ -f ref/run.sh ]; then
	step nvshmem-ref 180 bash ref/run.sh
else
	anchor_absent nvshmem-ref "no ref/run.sh: the build found no NVSHMEM reference"
fi

echo
figures
