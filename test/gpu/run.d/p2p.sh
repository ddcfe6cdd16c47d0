# Sourced by test/gpu/run.sh for its subcommand "p2p" (the variables and
# helpers it uses are defined there).
#
#   test/gpu/run.sh p2p [DIR]     on the GPU machine: compat's point-to-point
#                                 and windows on device buffers through the Go
#                                 API (issue 22): the suite in-process (2 and
#                                 4 PEs) and the timings in-process, then under
#                                 MPS the suite as processes (2 and 4) and the
#                                 timings as processes.

step p2p-inproc 150 env GSHMEM_GPU_NPES=2,4 ./gpu.test -test.run 'TestGPUP2PInProcess' -test.v -test.timeout 145s
step p2pbench-inproc 90 env GSHMEM_GPU_P2P_BENCH=1 ./gpu.test -test.run TestGPUP2PBenchInProcess -test.v -test.timeout 85s
mps_start
step p2p-procs-mps 150 env GSHMEM_GPU_NPES=2,4 ./gpu.test -test.run TestGPUP2PProcesses -test.v -test.timeout 145s
step p2pbench-procs-mps 90 env GSHMEM_GPU_P2P_BENCH=1 GSHMEM_GPU_MPS=1 ./gpu.test -test.run TestGPUP2PBenchProcesses -test.v -test.timeout 85s
mps_stop
grep -h "BENCH" "$out"/p2pbench-*.log | sed 's/^ *\[pe [0-9]\] //' | sort -u
grep -h "compat p2p on device buffers" "$out"/p2p-*.log | sed 's/^ *\[pe [0-9]\] //' | sort -u
summary
exit
