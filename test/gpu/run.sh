#!/usr/bin/env bash
# GPU tests and measurements of the CUDA backend.
#
# Usage: test/gpu/run.sh SUBCOMMAND [DIR] [...]; each subcommand is a file
# in test/gpu/run.d/ that says what it builds or runs (the build ones run
# here with Go, the others on the GPU machine, logging to $OUT or DIR/logs):
#
#   build         the GPU test binary, putblock-gpu, gshmem and the C ABI into DIR (gpu-bin)
#   build-p2pab   the A/B of device point-to-point (issue 22)
#   build-ckern   the stage-4 C programs for ckern
#   run           the suite, the measurements and the NVSHMEM reference (the default)
#   coll          the team collectives as kernels (issue 21)
#   compat        compat's collectives on device buffers
#   abi           the C ABI with -tags cuda on device buffers
#   p2pab         device point-to-point before and after
#   p2pcheck      the Go suites and the cost of each step of a device message
#   p2p           compat's point-to-point and windows on device buffers
#   cabi          gshmem.h on the device heap, on-stream calls
#   ckern         stage 4 in C (kern_* programs)
#   cjacobi       the C Jacobi ladder beside the Go one
#   nvjacobi      NVIDIA's MPI Jacobi, built unmodified (DIR MGPM)
#   nvshjacobi    NVIDIA's NVSHMEM Jacobi, renamed (DIR MGPM)
#   multi         the multi-GPU sitting (issue 10)
#
# With the device tool: build here, then
#   run(command="test/gpu/run.sh run", carry=["gpu-bin"], timeout_s=600)
set -uo pipefail
cmd=${1:-run}
dir=${2:-gpu-bin}
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$(cd "$(dirname "$0")" && pwd)

sub="$here/run.d/$cmd.sh"
[ -f "$sub" ] || { echo "$0: no subcommand $cmd (see $here/run.d)" >&2; exit 2; }
# The build subcommands run here, before the GPU machine's set-up below.
case $cmd in build*)
	source "$sub"
	exit
	;;
esac

mgpm=
case $cmd in nvjacobi | nvshjacobi)
	mgpm=$([ -n "${3:-}" ] && cd "$3" && pwd) || { echo "usage: $0 $cmd DIR MGPM (MGPM: a copy of multi-gpu-programming-models' mpi and mpi_overlap, or nvshmem)"; exit 2; } ;;
esac
cd "$root/$dir" 2>/dev/null || cd "$dir" || { echo "no $dir: run '$0 build' first"; exit 1; }
out=${OUT:-$PWD/logs}
mkdir -p "$out"
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
export GSHMEM_BOOTSTRAP_TIMEOUT=120s
fails=()
unrun=() # anchors not run, each with why: the summary names them
step() { # name timeout command...
	local name=$1 t=$2
	shift 2
	echo "=== $name: $*" | tee -a "$out/steps.log"
	local s=$SECONDS
	timeout -k 10 "$t" "$@" >"$out/$name.log" 2>&1
	local rc=$?
	echo "=== $name: rc=$rc in $((SECONDS - s)) s" | tee -a "$out/steps.log"
	[ $rc = 0 ] || { fails+=("$name"); tail -40 "$out/$name.log"; }
	return 0
}

mps_start() {
	export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
	mkdir -p /tmp/mps /tmp/mpslog
	nvidia-cuda-mps-control -d && echo "MPS started" | tee -a "$out/steps.log"
}
mps_stop() { echo quit | nvidia-cuda-mps-control; sleep 1; }
# anchor_absent records an anchor (a reference measurement of the same
# sitting) that could not run; summary names it.
anchor_absent() { # name why
	unrun+=("$1 ($2)")
	echo "=== anchor not run: $1: $2" | tee -a "$out/steps.log"
}
# summary ends a subcommand: its failed steps and the anchors it did not
# run, whose figures are then missing; the exit status is the steps'.
summary() {
	echo "failed steps: ${fails[*]:-none}"
	[ ${#unrun[@]} = 0 ] || echo "anchors NOT run (no reference figures beside these): ${unrun[*]}"
	[ ${#fails[@]} = 0 ]
}
figures() { # extra logs to take BENCH lines from...
	echo "================ figures (gshmem) ================"
	grep -h "BENCH" "$out"/bench-*.log "$@" 2>/dev/null | sed 's/^\[pe [0-9]\] //' | sort -u
	echo "================ figures (NVSHMEM 3.4 reference) ================"
	grep -hE "GB/s|us" "$out/nvshmem-ref.log" 2>/dev/null | grep -v "^===" | head -20
	echo "================ correctness ================"
	grep -hE "^(--- |ok|FAIL|PASS)|verified" "$out"/suite-*.log "$out"/putblock-*.log 2>/dev/null
	summary
}

{
	nvidia-smi --query-gpu=name,driver_version,memory.total,compute_mode --format=csv
	nvidia-smi topo -m 2>/dev/null | head -5
	uname -r
} >"$out/machine.log" 2>&1
cat "$out/machine.log"


source "$sub"
