#!/usr/bin/env bash
# shmem-calls.sh: what one symmetric-heap call costs from C through
# gshmem.h (libmpi_abi.so.1), PE 0 to PE 1: with both PEs on one node (the
# C paths: a copy or an atomic instruction into the mapped peer), with
# each PE on its own node (GSHMEM_NODE_ID=%r: every call through Go and
# tcp), and beside an OpenSHMEM library when oshcc and oshrun are on PATH
# (shmem_calls.c built unchanged with -DUSE_OPENSHMEM). Best of REPEAT
# runs (default 3); a library that fails a row shows "-".
#
#   test/perf/shmem-calls.sh [ITERS]     # default 200000 calls per row (2000 over tcp)
set -euo pipefail
cd "$(dirname "$0")/../.."
. test/perf/calls-lib.sh
iters=${1:-200000}
repeat=${REPEAT:-3}
work=$(mktemp -d /tmp/gshmem-shmemcalls.XXXXXX)
trap 'rm -rf "$work"' EXIT
export GSHMEM_TCP_ADDR=${GSHMEM_TCP_ADDR:-127.0.0.1}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

go build -o "$work/gshmem" ./cmd/gshmem
"$work/gshmem" abi install --prefix "$work/abi" >/dev/null
"$work/abi/bin/mpicc" -O2 -o "$work/calls" test/perf/shmem_calls.c
declare -A run
run[node]="$work/abi/bin/mpiexec -np 2 $work/calls $iters"
run[tcp]="env GSHMEM_NODE_ID=%r $work/abi/bin/mpiexec -np 2 $work/calls $((iters / 100 + 1))"
if command -v oshcc >/dev/null && command -v oshrun >/dev/null; then
	oshcc -O2 -DUSE_OPENSHMEM -o "$work/osh_calls" test/perf/shmem_calls.c
	run[osh]="oshrun -np 2 $work/osh_calls $iters"
fi
rows="p g put8+quiet get8 fadd cswap put_signal8 put64k+quiet pingpong"
calls_run "$work" "$repeat" "$rows" node tcp osh
python3 -B - "$work" "test/perf" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
import calls_best
rows, best = calls_best.best(sys.argv[1], ("node", "tcp", "osh"))
print("%-16s %14s %16s %12s" % ("row (ns/call)", "gshmem, 1 node", "gshmem, tcp", "OpenSHMEM"))
for r in rows:
    cell = lambda l: "%.1f" % best[r][l] if l in best[r] else "-"
    print("%-16s %14s %16s %12s" % (r, cell("node"), cell("tcp"), cell("osh")))
PY
calls_notes "$work"
