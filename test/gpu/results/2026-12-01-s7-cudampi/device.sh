#!/usr/bin/env bash
# The s7-cudampi device sitting (issue 22 part A), one call, from the repo root:
#   gpu-bin-cudampi/device.sh
# CUDA-aware MPI: the C ABI (cudap2p.c, cudap2p_bench.c, cudacoll.c) as 2
# processes under MPS, and compat/windows' Go API as processes under MPS and
# as 2 and 4 in-process PEs. Logs to $OUT.
set -uo pipefail
cd "$(dirname "$0")"
out=${OUT:-$PWD/logs}
mkdir -p "$out"
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 GSHMEM_BOOTSTRAP_TIMEOUT=60s
fails=()
step() { # name timeout command...
	local name=$1 t=$2
	shift 2
	echo "=== $name: $*" | tee -a "$out/steps.log"
	local s=$SECONDS
	timeout -k 5 "$t" "$@" >"$out/$name.log" 2>&1
	local rc=$?
	echo "=== $name: rc=$rc in $((SECONDS - s)) s" | tee -a "$out/steps.log"
	[ $rc = 0 ] || { fails+=("$name"); tail -30 "$out/$name.log"; }
}
{ nvidia-smi --query-gpu=name,driver_version,memory.total,compute_mode --format=csv; uname -r; } >"$out/machine.log" 2>&1
cat "$out/machine.log"
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog
nvidia-cuda-mps-control -d && echo "MPS started" | tee -a "$out/steps.log"
(
	export GSHMEM_HEAP=device GSHMEM_SYMMETRIC_SIZE=256m
	step abi-cudap2p-2-mps 45 ./abi/bin/gshmem run -n 2 ./abi/cudap2p
	step abi-bench-2-mps 40 ./abi/bin/gshmem run -n 2 ./abi/cudap2p_bench
	step abi-cudacoll-2-mps 25 ./abi/bin/gshmem run -n 2 ./abi/cudacoll
	echo "${fails[*]:-}" >"$out/.fails-abi"
)
step go-p2p-procs-2-mps 50 env GSHMEM_GPU_NPES=2 ./gpu.test -test.run 'TestGPUP2PProcesses' -test.v -test.timeout 48s
step go-p2pbench-procs-mps 35 env GSHMEM_GPU_P2P_BENCH=1 GSHMEM_GPU_MPS=1 ./gpu.test -test.run TestGPUP2PBenchProcesses -test.v -test.timeout 33s
echo quit | nvidia-cuda-mps-control; sleep 1
step go-p2p-inproc-2-4 50 env GSHMEM_GPU_NPES=2,4 ./gpu.test -test.run 'TestGPUP2PInProcess' -test.v -test.timeout 48s
step go-p2pbench-inproc 30 env GSHMEM_GPU_P2P_BENCH=1 ./gpu.test -test.run TestGPUP2PBenchInProcess -test.v -test.timeout 28s
echo "================ figures ================"
grep -h "BENCH" "$out"/*.log | sed 's/^ *\[pe [0-9]\] //' | sort -u
echo "================ correctness ================"
grep -h "cudap2p:\|cudacoll:\|compat p2p on device\|^--- \|^ok\|^FAIL\|^PASS" "$out"/*.log | sed 's/^ *\[pe [0-9]\] //' | sort | uniq -c
echo "failed steps: ${fails[*]:-} $(cat "$out/.fails-abi" 2>/dev/null)"
rm -f "$out/.fails-abi"
