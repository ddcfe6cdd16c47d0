# Sourced by test/gpu/run.sh for its subcommand "p2pcheck" (the variables and
# helpers it uses are defined there).
#
#   test/gpu/run.sh p2pcheck DIR  on the GPU machine, after build-p2pab: the Go
#                                 suites in-process (point-to-point, compat's
#                                 collectives, shmem; 2 and 4 PEs) and the
#                                 cost of each step of a device message,
#                                 without and under MPS; cudacoll.c against
#                                 this tree's library under MPS; what the
#                                 machine's Open MPI and UCX say about CUDA,
#                                 and osu_latency -d cuda D D tried under it
#                                 whatever they say (its outcome is the log).

step suites-inproc 200 env GSHMEM_GPU_NPES=2,4 ./gpu.test -test.run 'TestGPUP2PInProcess|TestGPUCompatInProcess|TestGPUSuiteInProcess' -test.v -test.timeout 195s
step copycost-inproc 60 env GSHMEM_GPU_P2P_BENCH=1 ./gpu.test -test.run TestGPUCopyCosts -test.v -test.timeout 55s
mps_start
step copycost-mps 60 env GSHMEM_GPU_P2P_BENCH=1 GSHMEM_GPU_MPS=1 ./gpu.test -test.run TestGPUCopyCosts -test.v -test.timeout 55s
[ -x ./after/cudacoll ] && step cudacoll-after-4-mps 60 env GSHMEM_HEAP=device GSHMEM_SYMMETRIC_SIZE=256m ./after/abi/bin/gshmem run -n 4 ./after/cudacoll
{
	command -v mpirun ompi_info ucx_info nvcc
	ompi_info --version 2>&1 | head -2
	ompi_info --parsable --all 2>&1 | grep -iE "cuda|accelerator" | head -20
	ompi_info 2>&1 | grep -iE "MCA (pml|btl|accelerator)" | head -20
	ucx_info -v 2>&1 | head -3
	ucx_info -d 2>&1 | grep -iE "transport|cuda" | head -20
	python3 -c "import mpi4py; print('mpi4py', mpi4py.__version__)" 2>&1 | tail -1
	python3 -c "import cupy; print('cupy', cupy.__version__)" 2>&1 | tail -1
} >"$out/anchor-env.log" 2>&1
if [ -d osu ] && command -v mpicc >/dev/null; then
	cu=$(dirname "$(dirname "$(command -v nvcc)")")
	step osu-build 120 bash -c "rm -rf /tmp/osub && mkdir -p /tmp/osub && cd /tmp/osub && $PWD/osu/configure CC=mpicc CXX=mpicxx --enable-cuda --with-cuda-include=$cu/include --with-cuda-libpath=$cu/lib64 >/dev/null && make -j16 -C c/mpi/pt2pt/standard osu_latency >/dev/null"
	o=/tmp/osub/c/mpi/pt2pt/standard/osu_latency
	for bufs in "D D" "H H"; do
		[ -x $o ] && step "osu-latency-${bufs// /}-mps" 40 mpirun --allow-run-as-root --oversubscribe -np 2 -x CUDA_MPS_PIPE_DIRECTORY -x CUDA_MPS_LOG_DIRECTORY \
			$o -d cuda -m 8:1048576 -i 2000 $bufs
	done
fi
mps_stop
grep -h "^--- \|^ok\|^FAIL" "$out"/suites-inproc.log | grep -v "^    ---" | head -40
grep -h "BENCH copycost" "$out"/copycost-*.log | sed 's/^ *\[pe [0-9]*\] //'
grep -h "cudacoll:" "$out"/cudacoll-*.log 2>/dev/null
echo "---- anchor-env.log"; cat "$out/anchor-env.log"
for f in "$out"/osu-*.log; do [ -f "$f" ] && { echo "---- $(basename "$f")"; tail -25 "$f"; }; done
summary
exit
