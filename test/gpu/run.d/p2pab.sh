# Sourced by test/gpu/run.sh for its subcommand "p2pab" (the variables and
# helpers it uses are defined there).
#
#   test/gpu/run.sh p2pab DIR     on the GPU machine, under MPS: cudap2p (2
#                                 and 4 processes) and the Go API's p2p suite
#                                 as processes with this tree's library, the
#                                 memkind figures (cuPointerGetAttributes
#                                 cost), then cudap2p_bench before and after
#                                 interleaved twice (device buffers, and
#                                 host buffers in the device job), host
#                                 buffers in a host job, and an anchor: OSU's
#                                 osu_latency -d cuda D D under the machine's
#                                 Open MPI when ompi_info says it is
#                                 CUDA-aware, else mpi4py and CuPy under it
#                                 (mpi4py_cupy_pingpong.py: staged through
#                                 host memory, and direct).

export GSHMEM_HEAP=device GSHMEM_SYMMETRIC_SIZE=256m
L=./after/abi/bin/gshmem
{ command -v ompi_info && ompi_info --version && ompi_info --parsable --all | grep -i cuda; } >"$out/ompi-cuda.log" 2>&1
cat "$out/ompi-cuda.log"
mps_start
for n in 2 4; do step "cudap2p-after-$n-mps" 120 $L run -n $n ./after/cudap2p; done
step memkind-inproc 60 ./gpu.test -test.run TestGPUMemKind -test.v -test.timeout 55s
step p2p-go-procs-mps 150 env GSHMEM_GPU_NPES=2,4 ./gpu.test -test.run TestGPUP2PProcesses -test.v -test.timeout 145s
for round in 1 2; do
	for ab in before after; do
		step "bench-$ab-$round" 60 $L run -n 2 ./$ab/cudap2p_bench
		step "bench-hostbuf-$ab-$round" 60 $L run -n 2 ./$ab/cudap2p_bench host
	done
done
for ab in before after; do step "bench-hostjob-$ab" 60 env GSHMEM_HEAP=host $L run -n 2 ./$ab/cudap2p_bench host; done
# The anchor: another library's figure in the same sitting.
if grep -q "mpi_built_with_cuda_support:value:true" "$out/ompi-cuda.log" && [ -d osu ]; then
	cu=$(dirname "$(dirname "$(command -v nvcc)")")
	step osu-build 150 bash -c "rm -rf /tmp/osub && mkdir -p /tmp/osub && cd /tmp/osub && $PWD/osu/configure CC=mpicc CXX=mpicxx --enable-cuda --with-cuda-include=$cu/include --with-cuda-libpath=$cu/lib64 && make -j16 -C c/mpi/pt2pt/standard osu_latency"
	o=/tmp/osub/c/mpi/pt2pt/standard/osu_latency
	for bufs in "D D" "H H"; do
		step "osu-latency-${bufs// /}-mps" 60 mpirun --allow-run-as-root --oversubscribe -np 2 -x CUDA_MPS_PIPE_DIRECTORY -x CUDA_MPS_LOG_DIRECTORY \
			$o -d cuda -m 8:1048576 $bufs
	done
else
	echo "anchor: the machine's Open MPI is not CUDA-aware (ompi-cuda.log), or no OSU copy; mpi4py and CuPy instead" | tee -a "$out/steps.log"
	if python3 -c "import mpi4py, cupy" >>"$out/steps.log" 2>&1 && [ -f mpi4py_cupy_pingpong.py ]; then
		for m in staged direct; do
			step "anchor-mpi4py-$m-mps" 90 mpirun --allow-run-as-root --oversubscribe -np 2 -x CUDA_MPS_PIPE_DIRECTORY -x CUDA_MPS_LOG_DIRECTORY \
				python3 mpi4py_cupy_pingpong.py $m
		done
	else
		echo "no mpi4py/cupy" | tee -a "$out/steps.log"
	fi
fi
mps_stop
for f in "$out"/bench-*.log "$out"/anchor-*.log; do [ -f "$f" ] && grep -h BENCH "$f" | sed "s|^|$(basename "$f" .log): |"; done
grep -h "memkind\|cudap2p:" "$out"/memkind-*.log "$out"/cudap2p-*.log | sed 's/^ *\[pe [0-9]*\] //' | sort -u
grep -hE "^# |^[0-9]+ " "$out"/osu-latency-*.log 2>/dev/null
summary
exit
