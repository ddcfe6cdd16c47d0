# Sourced by test/gpu/run.sh for its subcommand "nvjacobi" (the variables and
# helpers it uses are defined there).
#
#   test/gpu/run.sh nvjacobi DIR MGPM   on the GPU machine: NVIDIA's
#                                 multi-gpu-programming-models Jacobi, its
#                                 mpi and mpi_overlap folders copied by hand to
#                                 MGPM (never committed), built unmodified by
#                                 their Makefiles with gshmem's mpicxx and the
#                                 machine's nvcc, each run under gshmem run -n 2
#                                 (MPS, GSHMEM_HEAP=device); their own check
#                                 against a single-GPU run must pass.

# NVIDIA's mpi and mpi_overlap Jacobi, unmodified, built by their own
# Makefiles in a scratch copy: NVCC is this machine's, MPICXX a wrapper
# around gshmem mpicxx naming this installation (abi/bin/mpicxx holds
# the build machine's absolute path).
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
cuda_home=$(dirname "$(dirname "$(readlink -f "$nvcc")")")
[ -f "$cuda_home/include/cuda_runtime.h" ] || cuda_home=/usr/local/cuda
"$nvcc" --version 2>&1 | tail -2 | tee -a "$out/steps.log"
echo "CUDA_HOME=$cuda_home; nvtx3: $(ls -d "$cuda_home"/include/nvtx3 2>&1)" | tee -a "$out/steps.log"
w=$PWD/abi/mpicxx-here
printf '#!/bin/sh\nexec "%s/abi/bin/gshmem" mpicxx --prefix "%s/abi" "$@"\n' "$PWD" "$PWD" >"$w"
chmod +x "$w"
command -v c++ >/dev/null || export GSHMEM_CXX=g++
b=/tmp/mgpm-build
rm -rf $b && mkdir -p $b && cp -r "$mgpm"/mpi "$mgpm"/mpi_overlap $b/
# Their Makefile as it is first; then, only where that fails, make's
# command-line overrides of their flag variables (never their code):
# CUDA 13's CUB wants C++17 where they say -std=c++14, and NVTX's
# header is not in every CUDA. The log names the one that built.
gen="-gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90"
tries=("" "NVCC_FLAGS=-DHAVE_CUB -lineinfo $gen -std=c++17"
	"NVCC_FLAGS=-DHAVE_CUB -lineinfo $gen -std=c++17|MPICXX_FLAGS=-DUSE_NVTX -I$cuda_home/include -std=c++17"
	"NVCC_FLAGS=-DHAVE_CUB -lineinfo $gen -std=c++17|MPICXX_FLAGS=-I$cuda_home/include -std=c++17")
nvbuild() { # variant
	local v=$1 t
	for t in "${tries[@]}"; do
		local -a over=()
		[ -n "$t" ] && IFS='|' read -r -a over <<<"$t"
		echo "=== make ${over[*]:-(their flags)}" >>"$out/nvjacobi-build-$v.log"
		make -C $b/$v clean >/dev/null 2>&1
		if make -C $b/$v NVCC="$nvcc" MPICXX="$w" CUDA_HOME="$cuda_home" BUILD_SM_ARCH=90 "${over[@]}" jacobi \
			>>"$out/nvjacobi-build-$v.log" 2>&1; then
			echo "=== nvjacobi-build-$v: built with make ${over[*]:-(their flags)}" >>"$out/steps.log"
			return 0
		fi
	done
	return 1
}
for v in mpi mpi_overlap; do
	: >"$out/nvjacobi-build-$v.log"
	nvbuild $v &
done
wait
for v in mpi mpi_overlap; do
	grep "=== nvjacobi-build-$v:" "$out/steps.log"
	[ -x $b/$v/jacobi ] && continue
	fails+=("nvjacobi-build-$v")
	echo "=== nvjacobi-build-$v failed:"
	grep -i -m8 "error\|not found" "$out/nvjacobi-build-$v.log"
done
export GSHMEM_HEAP=device GSHMEM_SYMMETRIC_SIZE=256m LD_LIBRARY_PATH="$cuda_home/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
mps_start
for v in mpi mpi_overlap; do
	[ -x $b/$v/jacobi ] || continue
	step "nvjacobi-$v-2-mps" 60 ./abi/bin/gshmem run -n 2 $b/$v/jacobi -niter 200 -nx 1024 -ny 1024
	# Their check: every rank compares its rows with a single-GPU run
	# (tolerance 1e-8); rank 0 prints "Num GPUs: 2." and the speedup
	# only when all match, and the exit status is 1 when one does not.
	if grep -q "^Num GPUs: 2\." "$out/nvjacobi-$v-2-mps.log" && ! grep -q "^ERROR" "$out/nvjacobi-$v-2-mps.log"; then
		echo "nvjacobi $v: their correctness check passed: $(grep -A1 '^Num GPUs' "$out/nvjacobi-$v-2-mps.log" | tail -1)" | tee -a "$out/steps.log"
	else
		echo "nvjacobi $v: their correctness check did not pass" | tee -a "$out/steps.log"
		fails+=("nvjacobi-$v (check)")
	fi
done
mps_stop
summary
exit
