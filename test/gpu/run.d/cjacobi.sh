# Sourced by test/gpu/run.sh for its subcommand "cjacobi" (the variables and
# helpers it uses are defined there).
#
#   test/gpu/run.sh cjacobi [DIR] on the GPU machine: the C Jacobi ladder
#                                 (examples/c/jacobi-gpu, issue 22) built there
#                                 by its own nvcc (stage1_mpi, stage2_win,
#                                 stage3_stream, stage4_kernel.cu when present),
#                                 each run with 2 processes under MPS beside
#                                 examples/jacobi's same stage (Go), the last
#                                 lines compared, on two grids (one with
#                                 uneven row blocks), and stages 1-2 with 3.

# The C ladder, built here by the user's own nvcc (this machine's), in
# parallel; a program that does not build runs from the prebuilt copy
# and the build counts as failed. Binaries go to abi/ so that their
# rpath $ORIGIN/lib finds the library.
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
"$nvcc" --version 2>&1 | tail -2 | tee -a "$out/steps.log"
export GSHMEM_SYMMETRIC_SIZE=256m LD_LIBRARY_PATH="$PWD/abi/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
stages=(1:stage1_mpi 2:stage2_win 3:stage3_stream)
[ -f jacobi-gpu/stage4_kernel.cu ] && stages+=(4:stage4_kernel)
for st in "${stages[@]}"; do
	s=${st#*:}
	rm -f abi/$s
	if [ "$s" = stage4_kernel ]; then # device code: gshmem nvcc adds gshmem.cuh's flags
		./abi/bin/gshmem nvcc --prefix abi -O2 -fmad=false -arch=sm_90 -o abi/$s jacobi-gpu/$s.cu \
			-Xlinker -rpath -Xlinker '$ORIGIN/lib' >"$out/cjacobi-build-$s.log" 2>&1 &
	else
		"$nvcc" -O2 -fmad=false -arch=sm_90 -I abi/include -o abi/$s jacobi-gpu/$s.cu -L abi/lib -lmpi_abi \
			-Xlinker -rpath -Xlinker '$ORIGIN/lib' >"$out/cjacobi-build-$s.log" 2>&1 &
	fi
done
wait
for st in "${stages[@]}"; do
	s=${st#*:}
	[ -x abi/$s ] && continue
	echo "=== $s did not build with $nvcc (cjacobi-build-$s.log): the prebuilt one runs" | tee -a "$out/steps.log"
	fails+=("cjacobi-build-$s")
	cp jacobi-gpu/prebuilt/$s abi/ 2>/dev/null
done
mps_start
# C on a device heap (where the library is CUDA-aware and windows are
# GPU memory); Go on a host heap (its blocks are Go slices).
for np in 2 3; do
	for g in "-n 256 -iters 100" "-n 511 -iters 200"; do
		[ $np = 3 ] && [ "$g" != "-n 511 -iters 200" ] && continue
		for st in "${stages[@]}"; do
			k=${st%%:*} s=${st#*:}
			[ $np = 3 ] && [ $k -gt 2 ] && continue
			[ -x abi/$s ] || { fails+=("$s (no binary)"); continue; }
			name="cjacobi-$k-$np-$(echo "$g" | tr -d ' -')"
			step "$name" 30 env GSHMEM_HEAP=device ./abi/bin/gshmem run -n $np ./abi/$s $g
			step "$name-go" 30 ./abi/bin/gshmem run -n $np ./jacobi -stage $k $g
			c=$(grep -o 'stage=.*' "$out/$name.log") g2=$(grep -o 'stage=.*' "$out/$name-go.log")
			echo "jacobi $np PEs $g: C $s: $c; Go examples/jacobi: $g2" | tee -a "$out/steps.log"
			[ -n "$c" ] && [ "$c" = "$g2" ] || fails+=("$name (differs from Go)")
		done
	done
done
mps_stop
grep -h "^jacobi .* PEs" "$out/steps.log"
summary
exit
