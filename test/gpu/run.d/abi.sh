# Sourced by test/gpu/run.sh for its subcommand "abi" (the variables and
# helpers it uses are defined there).
#
#   test/gpu/run.sh abi [DIR]     on the GPU machine: the C ABI built with -tags
#                                 cuda (CUDA-aware MPI, issues 21-22):
#                                 collectives on cuMemAlloc buffers
#                                 (compat/abi/testdata/cudacoll.c; 2, 3 and 4
#                                 processes, and 4 with a 16 KiB scratch), the
#                                 calls that run on host copies of them
#                                 (cudanbc.c: nonblocking, persistent and
#                                 neighborhood collectives, Scan, Exscan,
#                                 Alltoallw, user ops, Pack/Unpack,
#                                 Reduce_local; 2, 3 and 4 processes) and
#                                 point-to-point and RMA on device buffers
#                                 and windows (cudap2p.c), 2 and 4 processes
#                                 under MPS and 2 without; then the timings
#                                 (test/gpu/testdata/cudap2p_bench.c: device
#                                 ping-pong 8 B to 1 MiB, MPI_Put 8 B on a
#                                 device window), 2 processes under MPS.

export GSHMEM_HEAP=device GSHMEM_SYMMETRIC_SIZE=256m
mps_start
for n in 2 4; do
	step "abi-cudacoll-$n-mps" 60 ./abi/bin/gshmem run -n $n ./abi/cudacoll
	step "abi-cudap2p-$n-mps" 120 ./abi/bin/gshmem run -n $n ./abi/cudap2p
done
# 3 members, and a 16 KiB scratch: the device collectives in many pieces.
step abi-cudacoll-3-mps 60 ./abi/bin/gshmem run -n 3 ./abi/cudacoll
step abi-cudacoll-4-mps-scratch16k 60 env GSHMEM_MPI_SCRATCH=16k ./abi/bin/gshmem run -n 4 ./abi/cudacoll
for n in 2 3 4; do
	step "abi-cudanbc-$n-mps" 60 ./abi/bin/gshmem run -n $n ./abi/cudanbc
done
step abi-bench-mps 90 ./abi/bin/gshmem run -n 2 ./abi/cudap2p_bench
mps_stop
step abi-cudacoll-2 60 ./abi/bin/gshmem run -n 2 ./abi/cudacoll
step abi-cudanbc-2 60 ./abi/bin/gshmem run -n 2 ./abi/cudanbc
step abi-cudap2p-2 120 ./abi/bin/gshmem run -n 2 ./abi/cudap2p
grep -h "cudacoll:\|cudanbc:\|cudap2p:\|BENCH" "$out"/abi-*.log
summary
exit
