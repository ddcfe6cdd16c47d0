#!/usr/bin/env bash
# NVIDIA's NVSHMEM examples and device perftests, built unmodified against
# gshmem's nvshmem.h and libraries and run on the GPU (issue 41).
#
#   test/gpu/nvshmem.sh build DIR NVSRC   on a machine with Go and the CUDA
#                         build deps: the cuda-tagged install in DIR/abi
#                         (or a copy of ABI=<an install> when set), NVSRC's
#                         examples/ and perftest/ (a checkout of
#                         github.com/NVIDIA/nvshmem, never committed) in
#                         DIR/nv, and the one-GPU header.
#   test/gpu/nvshmem.sh run DIR           on the GPU machine, in one sitting,
#                         logging to $OUT (or DIR/logs): libgshmem_device.a
#                         rebuilt by that machine's nvcc; every example and
#                         device perftest built by it (in parallel) with
#                         -include nvshmem_onegpu.h (cudaSetDevice modulo
#                         the GPU count, so 2 PEs share one GPU), and
#                         testdata/nvshmem_coll_check.cu (the collectives
#                         of every scope, run with 2 and 4 PEs); the
#                         examples run with 2 PEs under MPS (gshmem run,
#                         GSHMEM_HEAP=device); the chosen perftests run
#                         with 2 PEs; and, where the machine has NVSHMEM's
#                         pip wheel, the same perftests built against it
#                         and run under its mpirun for the figures beside.
#
# With the device tool: build here, then
#   run(command="test/gpu/nvshmem.sh run gpu-nv", carry=["gpu-nv"], timeout_s=600)
set -uo pipefail
cmd=${1:-run}
dir=${2:-gpu-nv}
root=$(cd "$(dirname "$0")/../.." && pwd)

if [ "$cmd" = build ]; then
	set -e
	src=${3:?usage: $0 build DIR NVSRC}
	cd "$root"
	ex=$(git rev-parse --git-path info/exclude)
	case $dir in /*) ;; *) git check-ignore -q "$dir" || echo "/$dir/" >>"$ex" ;; esac
	mkdir -p "$dir/nv"
	if [ -n "${ABI:-}" ]; then
		rm -rf "$dir/abi" && cp -a "$ABI" "$dir/abi"
	else
		GOFLAGS=-tags=cuda go run ./cmd/gshmem abi install --prefix "$dir/abi" >/dev/null
	fi
	rm -rf "$dir/nv/examples" "$dir/nv/perftest"
	cp -a "$src/examples" "$src/perftest" "$dir/nv/"
	rm -rf "$dir/nv/examples/gemm_allreduce" "$dir/nv/perftest/device/tile" # Blackwell-only, and NVSHMEM 3.5's tile API
	cp test/gpu/testdata/nvshmem_onegpu.h test/gpu/testdata/nvshmem_coll_check.cu "$0" "$dir/"
	du -sh "$dir"
	exit 0
fi

cd "$root/$dir" 2>/dev/null || cd "$dir" || { echo "no $dir: run '$0 build' first"; exit 1; }
# Every log is kept in /tmp/nvlogs and appended to all.log in $OUT (the
# device tool brings back only a few files), steps.log beside it.
res=${OUT:-$PWD/logs}
out=/tmp/nvlogs
mkdir -p "$out" "$res" bin nvbin
deadline=${DEADLINE:-500} # seconds: later steps are skipped (and named) rather than cut off
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
export GSHMEM_TCP_ADDR=127.0.0.1 GSHMEM_BOOTSTRAP_TIMEOUT=60s GSHMEM_HEAP=device GSHMEM_SYMMETRIC_SIZE=${GSHMEM_SYMMETRIC_SIZE:-3g}
export LD_LIBRARY_PATH="$PWD/abi/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; "$nvcc" --version | tail -2; uname -r; } 2>&1 | tee "$res/steps.log"
fails=()
step() { # name timeout command...
	local name=$1 t=$2
	shift 2
	if [ $SECONDS -gt "$deadline" ]; then
		echo "=== $name: SKIPPED (past the ${deadline}s deadline)" | tee -a "$res/steps.log"
		fails+=("$name(skipped)")
		return 0
	fi
	echo "=== $name: $*" >>"$res/steps.log"
	local s=$SECONDS
	timeout -k 5 "$t" "$@" >"$out/$name.log" 2>&1
	local rc=$?
	echo "=== $name: rc=$rc in $((SECONDS - s)) s" | tee -a "$res/steps.log"
	{ echo "=================== $name: $* (rc=$rc)"; cat "$out/$name.log"; } >>"$res/all.log"
	[ $rc = 0 ] || { fails+=("$name"); tail -8 "$out/$name.log"; }
	return 0
}

# 1. Build, in parallel: the device library by this nvcc, then every
# example and perftest against it; the perftests' utils.cu once.
A="-arch=sm_90 -O2 -std=c++17 -rdc=true -include $PWD/nvshmem_onegpu.h"
inc="-I$PWD/abi/include"
lib="-L$PWD/abi/lib -lnvshmem_host -lnvshmem_device -lcuda -Xlinker -rpath,$PWD/abi/lib"
t0=$SECONDS
./abi/bin/gshmem nvcc --prefix abi --device-lib -arch=sm_90 >"$out/build-devlib.log" 2>&1 || fails+=(build-devlib)
build() { # name src [extra flags]
	local n=$1 s=$2
	shift 2
	"$nvcc" $A $inc "$@" "$s" -o "bin/$n" $lib >"$out/build-$n.log" 2>&1 && echo "built $n" || echo "NOT BUILT $n"
}
expids=()
build nvshmem_coll_check nvshmem_coll_check.cu &
expids+=($!)
for s in nv/examples/*.cu nv/examples/*.cpp; do
	n=$(basename "${s%.*}")
	build "$n" "$s" -x cu &
	expids+=($!)
done
# The perftests build while the examples run; NVSHMEM's own (the wheel)
# too, for the figures beside ours.
NV=$(python3 -c "import nvidia.nvshmem as m; print(list(m.__path__)[0])" 2>/dev/null) || NV=
nvperf="shmem_put_bw shmem_p_latency shmem_p_ping_pong_latency shmem_put_latency"
(
	"$nvcc" $A $inc -Inv/perftest/common -c nv/perftest/common/utils.cu -o bin/utils.o >"$out/build-utils.log" 2>&1
	for s in nv/perftest/device/pt-to-pt/*.cu nv/perftest/device/coll/*_latency.cu; do
		case $s in */redmaxloc_latency.cu) continue ;; esac # not in NVSHMEM's CMake list, and does not build against it
		n=$(basename "${s%.cu}")
		build "$n" "$s" -Inv/perftest/common -Inv/perftest/device/coll bin/utils.o &
	done
	if [ -n "$NV" ]; then
		ln -sf "$NV/lib/libnvshmem_host.so.3" "$NV/lib/libnvshmem_host.so" 2>/dev/null
		B="-arch=sm_90 -O2 -std=c++17 -rdc=true -I$NV/include -Inv/perftest/common"
		"$nvcc" $B -c nv/perftest/common/utils.cu -o nvbin/utils.o >"$out/nvbuild-utils.log" 2>&1
		for n in $nvperf; do
			"$nvcc" $B nv/perftest/device/pt-to-pt/$n.cu nvbin/utils.o -o nvbin/$n -L"$NV/lib" -lnvshmem_host -lnvshmem_device -lcuda \
				>"$out/nvbuild-$n.log" 2>&1 &
		done
	fi
	wait
) &
perfbuild=$!
wait "${expids[@]}"
echo "=== examples built in $((SECONDS - t0)) s" | tee -a "$res/steps.log"

# 2. The examples, 2 PEs on the one GPU under MPS.
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog
nvidia-cuda-mps-control -d && echo "MPS started"
run2() { ./abi/bin/gshmem run -n 2 "$@"; }
# Ours first: the collectives of every scope, 2 and 4 PEs.
step coll-check-2 20 run2 bin/nvshmem_coll_check
step coll-check-4 20 ./abi/bin/gshmem run -n 4 bin/nvshmem_coll_check
for s in nv/examples/*.cu nv/examples/*.cpp; do
	n=$(basename "${s%.*}")
	[ -x "bin/$n" ] || { fails+=("build-$n"); continue; }
	step "ex-$n" 20 run2 "bin/$n"
done

# 3. The device perftests, 2 PEs, and NVSHMEM's beside.
wait $perfbuild
echo "=== builds done in $((SECONDS - t0)) s" | tee -a "$res/steps.log"
for f in "$out"/build-*.log "$out"/nvbuild-*.log; do
	[ -s "$f" ] && { echo "=================== $(basename "$f")"; head -c 3000 "$f"; } >>"$res/all.log"
done
ls bin nvbin | tr '\n' ' ' | tee -a "$res/steps.log"
echo
perf() { # name args...
	local n=$1
	shift
	[ -x "bin/$n" ] || { fails+=("build-$n"); return; }
	step "perf-$n" 30 run2 "bin/$n" "$@"
	if [ -x "nvbin/$n" ]; then
		step "nvperf-$n" 30 mpirun --allow-run-as-root --oversubscribe -np 2 -x LD_LIBRARY_PATH="$NV/lib:$LD_LIBRARY_PATH" \
			-x CUDA_MPS_PIPE_DIRECTORY -x CUDA_MPS_LOG_DIRECTORY -x NVSHMEM_DISABLE_NVLS=1 -x NVSHMEM_BOOTSTRAP=MPI \
			-x NVSHMEM_SYMMETRIC_SIZE=3G -x NVSHMEM_REMOTE_TRANSPORT=none "nvbin/$n" "$@"
	fi
}
perf shmem_put_bw -s block -n 20 -w 5 -c 32 -t 1024 -b 1M -e 1G -f 4
perf shmem_p_latency -n 200 -w 20 -e 4K
perf shmem_p_ping_pong_latency -n 500 -w 50 -e 64
perf shmem_put_latency -n 200 -w 20 -e 64K
for n in shmem_get_bw shmem_atomic_latency shmem_put_signal_ping_pong_latency shmem_g_latency shmem_signal_ping_pong_latency shmem_st_bw; do
	perf "$n" -n 50 -w 5 -e 64K
done
for n in reduction_latency reducescatter_latency fcollect_latency barrier_latency bcast_latency alltoall_latency sync_latency; do
	perf "$n" -n 10 -w 2 -e 1K
done
echo quit | nvidia-cuda-mps-control

echo "================ examples ================"
grep -h "rc=" "$res/steps.log" | grep "ex-" | sed 's/ in .*//'
echo "================ builds that failed ================"
grep -l "" "$out"/build-*.log | while read -r f; do n=$(basename "$f" .log); n=${n#build-}; [ -x "bin/$n" ] || [ "$n" = devlib ] || [ "$n" = utils ] || echo "$n: $(grep -m1 -i 'error' "$f")"; done
echo "failed steps: ${fails[*]:-none}" | tee -a "$res/steps.log"
tar -C /tmp -czf "$res/nvlogs.tgz" nvlogs 2>/dev/null
[ ${#fails[@]} = 0 ]
