# Sourced by test/gpu/run.sh for its subcommand "build-ckern" (the variables and
# helpers it uses are defined there).
#
#   test/gpu/run.sh build-ckern DIR   on a machine with Go: the programs
#                                 of compat/abi/testdata/kern_* and the
#                                 cuda-tagged install that `run.sh ckern`
#                                 compiles and runs on the GPU machine.

# On a machine with Go: the cuda-tagged library and gshmem (for gshmem
# nvcc), the stage-4 sources for the GPU machine's nvcc, kern_drv (C)
# and, as a fallback, the programs built by this machine's nvcc.
set -e
cd "$root"
ex=$(git rev-parse --git-path info/exclude)
git check-ignore -q "$dir" || { mkdir -p "$(dirname "$ex")" && echo "/$dir/" >>"$ex"; }
mkdir -p "$dir/ckern/prebuilt"
GOFLAGS=-tags=cuda go run ./cmd/gshmem abi install --prefix "$dir/abi" >/dev/null
t=compat/abi/testdata
cp $t/kern_*.cu $t/kern_ops.cuh $t/kern_main.h $t/kern_nv.h $t/shmcheck.h "$dir/ckern/"
"$dir/abi/bin/mpicc" -Wall -Wextra -Werror -o "$dir/ckern/kern_drv" $t/kern_drv.c -lcuda -Wl,-rpath,'$ORIGIN/../abi/lib'
if command -v nvcc >/dev/null; then
	g="$dir/abi/bin/gshmem nvcc --prefix $dir/abi -arch=sm_90 -O3"
	$g -o "$dir/ckern/prebuilt/kern_rt" $t/kern_rt.cu -Xlinker -rpath,'$ORIGIN/../../abi/lib'
	$g -rdc=true -o "$dir/ckern/prebuilt/kern_rdc" $t/kern_rdc_main.cu $t/kern_rdc_dev.cu -Xlinker -rpath,'$ORIGIN/../../abi/lib'
	$g -cubin -o "$dir/ckern/prebuilt/kern_mod.cubin" $t/kern_mod.cu
	$g -rdc=true -o "$dir/ckern/prebuilt/kern_nvstyle" $t/kern_nvstyle.cu -L"$dir/abi/lib" -lgshmem_device -Xlinker -rpath,'$ORIGIN/../../abi/lib'
fi
cp "$0" "$dir/run.sh" && cp -r "$here/run.d" "$dir/"
ls -la "$dir" "$dir/ckern"
exit 0
