# Sourced by test/gpu/run.sh for its subcommand "ckern" (the variables and
# helpers it uses are defined there).
#
#   test/gpu/run.sh ckern [DIR]   on the GPU machine: stage 4 in C (issue 22): the
#                                 programs of compat/abi/testdata/kern_* compiled
#                                 there by the machine's own nvcc through gshmem
#                                 nvcc (a runtime-API program, the same over two
#                                 -rdc files, a driver-API module, and kern_nvstyle:
#                                 NVSHMEM's shape, gshmem.h and gshmemx.h only,
#                                 -rdc with libgshmem_device.a), run as 2 and 4
#                                 processes under MPS; then kernel put bandwidth
#                                 and the device ping-pong, and the same source
#                                 built against NVSHMEM (renamed) for its figures.
#                                 Build with 'run.sh build-ckern DIR' first.

nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
export GSHMEM_NVCC=$nvcc LD_LIBRARY_PATH="$PWD/abi/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
"$nvcc" --version 2>&1 | tail -2 | tee -a "$out/steps.log"
# The user's own nvcc (this machine's), in parallel: the three builds.
g="./abi/bin/gshmem nvcc --prefix abi -arch=sm_90 -O3"
b=ckern/built && mkdir -p $b
$g -o $b/kern_rt ckern/kern_rt.cu >"$out/ckern-build-rt.log" 2>&1 &
$g -rdc=true -o $b/kern_rdc ckern/kern_rdc_main.cu ckern/kern_rdc_dev.cu >"$out/ckern-build-rdc.log" 2>&1 &
$g -cubin -o $b/kern_mod.cubin ckern/kern_mod.cu >"$out/ckern-build-mod.log" 2>&1 &
# NVSHMEM's shape: gshmem.h and gshmemx.h only, -rdc, the state from
# libgshmem_device.a (built here by this nvcc).
{ ./abi/bin/gshmem nvcc --prefix abi --device-lib -arch=sm_90 &&
	$g -rdc=true -o $b/kern_nvstyle ckern/kern_nvstyle.cu -Labi/lib -lgshmem_device; } >"$out/ckern-build-nvstyle.log" 2>&1 &
wait
for f in kern_rt kern_rdc kern_mod.cubin kern_nvstyle; do
	[ -s $b/$f ] || { echo "=== $f did not build with $nvcc (log: ckern-build-*.log): the prebuilt one runs" | tee -a "$out/steps.log"
		fails+=("ckern-build-$f"); cp ckern/prebuilt/$f $b/ 2>/dev/null; }
done
export GSHMEM_HEAP=device GSHMEM_SYMMETRIC_SIZE=256m
mps_start
for n in 2 4; do
	step "ckern-rt-$n-mps" 60 ./abi/bin/gshmem run -n $n $b/kern_rt
done
step ckern-rdc-2-mps 60 ./abi/bin/gshmem run -n 2 $b/kern_rdc
for n in 2 4; do
	step "ckern-nvstyle-$n-mps" 60 ./abi/bin/gshmem run -n $n $b/kern_nvstyle
done
step ckern-drv-2-mps 60 ./abi/bin/gshmem run -n 2 ./ckern/kern_drv $b/kern_mod.cubin
step ckern-bench-mps 90 env GSHMEM_SYMMETRIC_SIZE=3g ./abi/bin/gshmem run -n 2 $b/kern_rt bench
# The same source against NVSHMEM (the machine's pip wheel), renamed.
if NV=$(python3 -c "import nvidia.nvshmem as m; print(list(m.__path__)[0])" 2>/dev/null); then
	ln -sf "$NV/lib/libnvshmem_host.so.3" "$NV/lib/libnvshmem_host.so" 2>/dev/null
	mkdir -p /tmp/kern_nv && cp ckern/kern_nv.h /tmp/kern_nv/
	for f in kern_rt.cu kern_ops.cuh kern_main.h shmcheck.h; do
		sed 's|<gshmem.cuh>|"kern_nv.h"|; s/gshmem/nvshmem/g; s/GSHMEM/NVSHMEM/g' ckern/$f >/tmp/kern_nv/$f
	done
	diff -r ckern /tmp/kern_nv >"$out/ckern-nvshmem-rename.diff" 2>&1
	step ckern-nvshmem-build 120 "$nvcc" -O3 -rdc=true -arch=sm_90 -I"$NV/include" /tmp/kern_nv/kern_rt.cu -o /tmp/kern_nv/kern_rt \
		-L"$NV/lib" -lnvshmem_host -lnvshmem_device -lcuda
	step ckern-nvshmem-ops-mps 60 env LD_LIBRARY_PATH="$NV/lib:$LD_LIBRARY_PATH" mpirun --allow-run-as-root --oversubscribe -np 2 \
		-x LD_LIBRARY_PATH -x CUDA_MPS_PIPE_DIRECTORY -x CUDA_MPS_LOG_DIRECTORY -x NVSHMEM_DISABLE_NVLS=1 \
		-x NVSHMEM_BOOTSTRAP=MPI -x NVSHMEM_SYMMETRIC_SIZE=256M -x NVSHMEM_REMOTE_TRANSPORT=none /tmp/kern_nv/kern_rt
	step ckern-nvshmem-bench-mps 90 env LD_LIBRARY_PATH="$NV/lib:$LD_LIBRARY_PATH" mpirun --allow-run-as-root --oversubscribe -np 2 \
		-x LD_LIBRARY_PATH -x CUDA_MPS_PIPE_DIRECTORY -x CUDA_MPS_LOG_DIRECTORY -x NVSHMEM_DISABLE_NVLS=1 \
		-x NVSHMEM_BOOTSTRAP=MPI -x NVSHMEM_SYMMETRIC_SIZE=3G -x NVSHMEM_REMOTE_TRANSPORT=none /tmp/kern_nv/kern_rt bench
else
	anchor_absent ckern-nvshmem "no NVSHMEM wheel (python3 -c 'import nvidia.nvshmem')"
fi
mps_stop
grep -H "kern ok\|kern_drv ok\|kern nvstyle ok" "$out"/ckern-*.log | sed 's|^[^:]*/||; s/\.log:.*\] /: /; s/\.log:/: /' | sort | uniq -c
echo "gshmem:"
grep -h "BENCH\|kern putbw grid" "$out"/ckern-bench-mps.log | sed 's/^ *\[pe [0-9]*\] //'
echo "NVSHMEM (same source, renamed):"
grep -h "BENCH\|kern putbw grid" "$out"/ckern-nvshmem-bench-mps.log 2>/dev/null | sed 's/^ *\[pe [0-9]*\] //'
summary
exit
