# Sourced by test/gpu/run.sh for its subcommand "nvshjacobi" (the variables and
# helpers it uses are defined there).
#
#   test/gpu/run.sh nvshjacobi DIR MGPM   on the GPU machine: NVIDIA's
#                                 nvshmem Jacobi (MGPM/nvshmem, copied by hand,
#                                 never committed) with nvshmem renamed to
#                                 gshmem by sed, built by their Makefile with
#                                 only its libraries changed (-lgshmem_device
#                                 -lmpi_abi; libgshmem_device.a built there by
#                                 gshmem nvcc --device-lib), run under gshmem
#                                 run -n 2 (MPS, GSHMEM_HEAP=device) with their
#                                 options; their check must pass.

# NVIDIA's nvshmem Jacobi with nvshmem renamed to gshmem (the sed below,
# nothing else in their code), built by their Makefile with only its
# libraries named for gshmem (-lnvshmem: libgshmem_device.a, built here
# by this machine's nvcc, and libmpi_abi) and NVSHMEM_HOME the gshmem
# installation; their -ccbin=mpic++ is gshmem mpicxx.
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
cuda_home=$(dirname "$(dirname "$(readlink -f "$nvcc")")")
[ -f "$cuda_home/include/cuda_runtime.h" ] || cuda_home=/usr/local/cuda
"$nvcc" --version 2>&1 | tail -2 | tee -a "$out/steps.log"
mkdir -p abi/ccbin
printf '#!/bin/sh\nexec "%s/abi/bin/gshmem" mpicxx --prefix "%s/abi" "$@"\n' "$PWD" "$PWD" >abi/ccbin/mpic++
chmod +x abi/ccbin/mpic++
export PATH="$PWD/abi/ccbin:$PATH"
command -v c++ >/dev/null || export GSHMEM_CXX=g++
step nvshjacobi-devlib 120 env GSHMEM_NVCC="$nvcc" ./abi/bin/gshmem nvcc --prefix abi --device-lib -arch=sm_90
b=/tmp/mgpm-nvsh
rm -rf $b && mkdir -p $b && cp "$mgpm"/nvshmem/jacobi.cu "$mgpm"/nvshmem/Makefile $b/
rename='sed -e s/nvshmem/gshmem/g -e s/NVSHMEM/GSHMEM/g'
echo "=== renaming: $rename jacobi.cu" | tee -a "$out/steps.log"
$rename "$mgpm"/nvshmem/jacobi.cu >$b/jacobi.cu
# The renamed identifiers (the diff's lines, reduced to the names).
diff "$mgpm"/nvshmem/jacobi.cu $b/jacobi.cu | grep -o 'gshmem[a-z0-9_]*\|GSHMEM[A-Z0-9_]*' | sort | uniq -c >"$out/nvshjacobi-renamed.txt"
sed -i 's/-lnvshmem /-lgshmem_device -lmpi_abi /' $b/Makefile
diff "$mgpm"/nvshmem/Makefile $b/Makefile >"$out/nvshjacobi-makefile.diff"
cat "$out/nvshjacobi-makefile.diff"
# Their Makefile first; then, only where the link fails, the libraries'
# paths: libnvidia-ml may be only the driver's .so.1 (CUDA's stubs
# have the .so), and nothing of gshmem uses it.
ld="-ccbin=mpic++ -L$PWD/abi/lib -lgshmem_device -lmpi_abi -L$cuda_home/lib64 -lcuda -lcudart -ldl"
tries=("" "NVCC_LDFLAGS=$ld -L$cuda_home/lib64/stubs -lnvidia-ml" "NVCC_LDFLAGS=$ld")
: >"$out/nvshjacobi-build.log"
for t in "${tries[@]}"; do
	over=()
	[ -n "$t" ] && over=("$t")
	echo "=== make ${over[*]:-(their Makefile)}" >>"$out/nvshjacobi-build.log"
	make -C $b clean >/dev/null 2>&1
	if make -C $b NVCC="$nvcc" NVSHMEM_HOME="$PWD/abi" CUDA_HOME="$cuda_home" BUILD_SM_ARCH=90 "${over[@]}" jacobi \
		>>"$out/nvshjacobi-build.log" 2>&1; then
		echo "=== nvshjacobi-build: built with make ${over[*]:-(their Makefile)}" | tee -a "$out/steps.log"
		break
	fi
done
if ! [ -x $b/jacobi ]; then
	fails+=("nvshjacobi-build")
	grep -i -m12 "error\|not found\|undefined" "$out/nvshjacobi-build.log"
fi
export GSHMEM_HEAP=device LD_LIBRARY_PATH="$PWD/abi/lib:$cuda_home/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
unset GSHMEM_SYMMETRIC_SIZE
mps_start
# Their options: the default kernel (gshmem_float_p), the block puts
# (gshmemx_float_put_nbi_block), the neighbourhood sync (gshmemx_signal_op,
# gshmem_uint64_wait_until_all) with the norm overlapped; they set
# GSHMEM_SYMMETRIC_SIZE themselves after MPI_Init. The last run is their
# default grid, with the size given in the job's environment.
runs=("default:-niter 200 -nx 1024 -ny 1024" "block:-niter 200 -nx 1024 -ny 1024 -use_block_comm"
	"nbsync:-niter 200 -nx 1024 -ny 1024 -neighborhood_sync -norm_overlap"
	"all:-niter 500 -nx 2048 -ny 2048 -use_block_comm -neighborhood_sync -norm_overlap")
for r in "${runs[@]}" "full:"; do
	name="nvshjacobi-${r%%:*}-2-mps"
	[ -x $b/jacobi ] || break
	if [ "${r%%:*}" = full ]; then
		step "$name" 90 env GSHMEM_SYMMETRIC_SIZE=2500000000 ./abi/bin/gshmem run -n 2 $b/jacobi
	else
		# shellcheck disable=SC2086
		step "$name" 60 ./abi/bin/gshmem run -n 2 $b/jacobi ${r#*:}
	fi
	if grep -q "^Num GPUs: 2\." "$out/$name.log" && ! grep -q "ERROR" "$out/$name.log"; then
		echo "nvshjacobi ${r%%:*} (${r#*:}): their correctness check passed: $(grep -A1 '^Num GPUs' "$out/$name.log" | tail -1)" | tee -a "$out/steps.log"
	else
		echo "nvshjacobi ${r%%:*}: their correctness check did not pass" | tee -a "$out/steps.log"
		fails+=("$name (check)")
	fi
done
mps_stop
summary
exit
