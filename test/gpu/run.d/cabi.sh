# Sourced by test/gpu/run.sh for its subcommand "cabi" (the variables and
# helpers it uses are defined there).
#
#   test/gpu/run.sh cabi [DIR]    on the GPU machine: gshmem.h on the device heap
#                                 and its *_on_stream calls (issue 22), built
#                                 with -tags cuda (compat/abi/testdata/
#                                 gshmem_stream.c): the checks with 2 and 4
#                                 processes under MPS, then the figures (on-
#                                 stream put 8 B, putmem_signal_on_stream
#                                 ping-pong) beside the Go API's (the same
#                                 shapes with streams.CUDAStream), 2 processes
#                                 under MPS, and NVSHMEM's in the same shapes
#                                 (test/gpu/nvshmem_stream.cu, from the GPU
#                                 machine's NVSHMEM wheel), and the C Jacobi
#                                 of stage 3 (examples/c/jacobi-gpu) against
#                                 the Go one's residual and checksum.

# gshmem_init alone puts the heap on the GPU in the cuda build.
export GSHMEM_SYMMETRIC_SIZE=256m LD_LIBRARY_PATH="$PWD/abi/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
mps_start
for n in 2 4; do
	step "cabi-stream-$n-mps" 60 ./abi/bin/gshmem run -n $n ./abi/gshmem_stream
done
step cabi-perf-mps 45 ./abi/bin/gshmem run -n 2 ./abi/gshmem_stream perf
# The same with each process held to half the GPU's threads, the
# condition under which NVSHMEM allows its on-stream signal calls on
# processes that share a GPU (below).
step cabi-perf-mps50 45 env CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50 ./abi/bin/gshmem run -n 2 ./abi/gshmem_stream perf
# The C Jacobi of stage 3 (examples/c/jacobi-gpu/stage3_stream.cu) prints
# the Go program's line for the same grid.
if [ -x ./abi/stage3_stream ] && [ -x ./jacobi ]; then
	for g in "-n 256 -iters 100" "-n 512 -iters 200"; do
		name="cabi-jacobi3-$(echo "$g" | tr -d ' -')"
		step "$name" 60 ./abi/bin/gshmem run -n 2 ./abi/stage3_stream $g
		step "$name-go" 60 ./abi/bin/gshmem run -n 2 ./jacobi -stage 3 $g
		c=$(grep -o 'residual=.*' "$out/$name.log") g2=$(grep -o 'residual=.*' "$out/$name-go.log")
		echo "jacobi $g: C stage3_stream: $c; Go examples/jacobi: $g2" | tee -a "$out/steps.log"
		[ -n "$c" ] && [ "$c" = "$g2" ] || fails+=("$name (differs from Go)")
	done
fi
[ -x ./gpu.test ] && step cabi-goperf-mps 45 env GSHMEM_GPU_CABI=1 ./gpu.test -test.run TestGPUStreamFiguresProcesses -test.v -test.timeout 40s
# NVSHMEM's figures in the same shapes (test/gpu/nvshmem_stream.cu),
# from the machine's pip wheel, under Open MPI.
if [ -f nvshmem_stream.cu ] && NV=$(python3 -c "import nvidia.nvshmem as m; print(list(m.__path__)[0])" 2>/dev/null); then
	ln -sf "$NV/lib/libnvshmem_host.so.3" "$NV/lib/libnvshmem_host.so" 2>/dev/null
	step cabi-nvshmem-build 60 nvcc -O3 -rdc=true -arch=sm_90 -I"$NV/include" nvshmem_stream.cu -o /tmp/nvshmem_stream \
		-L"$NV/lib" -lnvshmem_host -lnvshmem_device -lcuda
	step cabi-nvshmem-mps 45 env LD_LIBRARY_PATH="$NV/lib:$LD_LIBRARY_PATH" mpirun --allow-run-as-root --oversubscribe -np 2 \
		-x LD_LIBRARY_PATH -x CUDA_MPS_PIPE_DIRECTORY -x CUDA_MPS_LOG_DIRECTORY -x NVSHMEM_DISABLE_NVLS=1 -x CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50 \
		-x NVSHMEM_BOOTSTRAP=MPI -x NVSHMEM_SYMMETRIC_SIZE=256M -x NVSHMEM_REMOTE_TRANSPORT=none /tmp/nvshmem_stream
else
	anchor_absent cabi-nvshmem "no nvshmem_stream.cu or no NVSHMEM wheel (python3 -c 'import nvidia.nvshmem')"
fi
mps_stop
grep -h "^jacobi .*: C stage3_stream" "$out/steps.log"
grep -h "gshmem_stream ok" "$out"/cabi-stream-*.log | sed 's/^ *\[pe [0-9]*\] //' | sort | uniq -c
grep "BENCH" "$out"/cabi-*.log | sed "s|^$out/||; s/\.log:/: /; s/\[pe [0-9]*\] //"
summary
exit
