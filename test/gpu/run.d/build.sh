# Sourced by test/gpu/run.sh for its subcommand "build" (the variables and
# helpers it uses are defined there).
#
#   test/gpu/run.sh build [DIR]   on a machine with Go and the CUDA build deps
#                                 (scripts/install-cuda-deps.sh): builds the GPU
#                                 test binary, putblock-gpu and gshmem into DIR
#                                 (default gpu-bin, git-ignored) and copies the
#                                 NVSHMEM reference program next to them.

set -e
cd "$root"
mkdir -p "$dir/ref"
ex=$(git rev-parse --git-path info/exclude)
case $dir in /*) ;; *) git check-ignore -q "$dir" || { mkdir -p "$(dirname "$ex")" && echo "/$dir/" >>"$ex"; } ;; esac
go test -c -tags cuda -o "$dir/gpu.test" ./test/gpu
go build -tags cuda -o "$dir/putblock-gpu" ./examples/putblock-gpu
go build -o "$dir/gshmem" ./cmd/gshmem || echo "warning: cmd/gshmem did not build; putblock-gpu as processes is skipped"
ref="$root/../shared/reference/gpu"
[ -d "$root/shared/reference/gpu" ] && ref="$root/shared/reference/gpu"
# Without the NVSHMEM reference the build goes on (everything else runs),
# and every run's summary says that its anchor was not run.
cp "$ref"/putbw.cu "$ref"/run.sh "$dir/ref/" 2>/dev/null ||
	echo "warning: no NVSHMEM reference at $ref: the run's NVSHMEM anchor will not run, and its summary will say so"
cp "$0" "$dir/run.sh" && cp -r "$here/run.d" "$dir/"
cp "$root/test/gpu/nccl_allreduce.py" "$root/test/gpu/nvshmem_stream.cu" "$dir/"
if GOFLAGS=-tags=cuda go run ./cmd/gshmem abi install --prefix "$dir/abi" >/dev/null; then
	for c in compat/abi/testdata/cudacoll.c compat/abi/testdata/cudanbc.c compat/abi/testdata/cudap2p.c test/gpu/testdata/cudap2p_bench.c; do
		b=$(basename "$c" .c)
		cc -Wall -Wextra -Werror -I "$dir/abi/include" -I compat/abi/testdata -o "$dir/abi/$b" "$c" \
			-L "$dir/abi/lib" -lmpi_abi -lcuda -Wl,-rpath,'$ORIGIN/lib' || echo "warning: $b did not build"
	done
else
	echo "warning: the cuda-tagged C ABI did not build; 'run.sh abi' will fail"
fi
# gshmem.h on the device heap and its on-stream calls, and the C Jacobi
# of stage 3 with the Go one to compare it with (run.sh cabi).
if [ -f "$dir/abi/lib/libmpi_abi.so.1" ]; then
	"$dir/abi/bin/mpicc" -Wall -Wextra -Werror -o "$dir/abi/gshmem_stream" compat/abi/testdata/gshmem_stream.c \
		-lcuda -Wl,-rpath,'$ORIGIN/lib' || echo "warning: gshmem_stream did not build"
	nvcc -O2 -fmad=false -arch=sm_90 -I "$dir/abi/include" -o "$dir/abi/stage3_stream" examples/c/jacobi-gpu/stage3_stream.cu \
		-L "$dir/abi/lib" -lmpi_abi -Xlinker -rpath -Xlinker '$ORIGIN/lib' || echo "warning: stage3_stream did not build"
	go build -o "$dir/jacobi" ./examples/jacobi
	# The C ladder's sources for the GPU machine's nvcc (run.sh cjacobi),
	# and the programs built here as a fallback.
	mkdir -p "$dir/jacobi-gpu/prebuilt"
	cp examples/c/jacobi-gpu/*.cu examples/c/jacobi-gpu/*.cuh "$dir/jacobi-gpu/"
	for s in stage1_mpi stage2_win stage3_stream; do
		nvcc -O2 -fmad=false -arch=sm_90 -I "$dir/abi/include" -o "$dir/jacobi-gpu/prebuilt/$s" examples/c/jacobi-gpu/$s.cu \
			-L "$dir/abi/lib" -lmpi_abi -Xlinker -rpath -Xlinker '$ORIGIN/lib' || echo "warning: $s did not build"
	done
fi
ls -la "$dir" "$dir/ref"
exit 0
