#!/usr/bin/env bash
# abi-calls.sh: what each MPI one-sided call costs through gshmem's C ABI
# (libmpi_abi.so.1) beside Open MPI and MPICH, in one run: rma_calls.c
# built unchanged with each library's mpicc, 2 processes, the clock read
# only around each loop (see rma_calls.c for why not OSU's per-iteration
# timing), best of REPEAT runs (default 3), and the ratio gshmem / better
# MPI. Beside them, the same calls through the Go API (gshmem perf's window
# tests, also timed around the loop, 2 processes), and the ratio ABI / Go:
# what the C ABI adds to the engine, measured like for like. The rows
# ending in /osu read the clock around every call as OSU does (the Go API's
# with gshmem perf --timing op): OSU's figure, to the nanosecond.
#
#   test/perf/abi-calls.sh [ITERS]     # default 1000000 calls per row
#
# It installs nothing: it needs go, gcc and, for the MPI columns, Debian's
# Open MPI (mpicc.openmpi, mpirun.openmpi) and MPICH (mpicc.mpich,
# mpiexec.mpich); a missing one's column says "-".
set -euo pipefail
cd "$(dirname "$0")/../.."
. test/perf/calls-lib.sh
iters=${1:-1000000}
repeat=${REPEAT:-3}
work=$(mktemp -d /tmp/gshmem-abicalls.XXXXXX)
trap 'rm -rf "$work"' EXIT
export GSHMEM_TCP_ADDR=${GSHMEM_TCP_ADDR:-127.0.0.1}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

go build -o "$work/gshmem" ./cmd/gshmem
"$work/gshmem" abi install --prefix "$work/abi" >/dev/null
declare -A run
"$work/abi/bin/mpicc" -O2 -o "$work/gshmem_calls" test/perf/rma_calls.c
run[gshmem]="$work/abi/bin/mpiexec -np 2 $work/gshmem_calls $iters"
if command -v mpicc.openmpi >/dev/null && command -v mpirun.openmpi >/dev/null; then
	mpicc.openmpi -O2 -o "$work/ompi_calls" test/perf/rma_calls.c
	run[ompi]="mpirun.openmpi -np 2 --bind-to core $work/ompi_calls $iters"
fi
if command -v mpicc.mpich >/dev/null && command -v mpiexec.mpich >/dev/null; then
	mpicc.mpich -O2 -o "$work/mpich_calls" test/perf/rma_calls.c
	run[mpich]="mpiexec.mpich -np 2 $work/mpich_calls $iters"
fi

# The Go API's side of each row: gshmem perf's window test of the same
# call, epoch shape, element type (MPI_LONG: int64) and size, printed as
# rma_calls prints ("ROW NS ns"); a script, since calls_run runs each job
# under timeout.
cat >"$work/goapi_row.sh" <<EOF
t=win_put_latency sync=flush dt=() timing=loop
case \$1 in
*/osu) timing=op ;;&
put+flush*) ;;
get+flush*) t=win_get_latency ;;
acc+flush*) t=win_acc_latency dt=(--datatype int64) ;;
fop+flush) t=win_fop_latency dt=(--datatype int64) ;;
cas+flush) t=win_cas_latency dt=(--datatype int64) ;;
lock_all+put+unlock_all) sync=lock_all ;;
lock+put+unlock) sync=lock ;;
*) exit 0 ;; # no Go counterpart (wtime)
esac
GSHMEM_BIND=auto "$work/gshmem" perf "\$t" -n 2 --win_flavor allocate --sync "\$sync" "\${dt[@]}" --timing "\$timing" \\
	--min_size 8 --max_size 8 --iters $iters --json "$work/goapi.json" >/dev/null &&
	python3 -c 'import json,sys; print(sys.argv[1], json.load(open(sys.argv[2]))[0]["latency_us"] * 1e3, "ns")' "\$1" "$work/goapi.json"
EOF
run[goapi]="bash $work/goapi_row.sh"

# Interleaved runs, one job per row (a library that fails a row, as Open
# MPI 4.1's compare-and-swap did here, loses only that row); each row
# keeps its best figure per library.
rows="put+flush get+flush acc+flush fop+flush cas+flush lock_all+put+unlock_all lock+put+unlock wtime put+flush/osu get+flush/osu acc+flush/osu"
calls_run "$work" "$repeat" "$rows" gshmem ompi mpich goapi
python3 -B - "$work" "test/perf" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
import calls_best
rows, best = calls_best.best(sys.argv[1], ("gshmem", "ompi", "mpich", "goapi"))
print("%-24s %10s %10s %10s %14s %10s %10s" % ("row (ns per iteration)", "gshmem", "Open MPI", "MPICH", "gshmem/better", "Go API", "ABI/Go"))
for r in rows:
    b = best[r]
    mpis = [b[l] for l in ("ompi", "mpich") if l in b]
    ratio = "%.3g" % (b["gshmem"] / min(mpis)) if mpis and "gshmem" in b else "-"
    gr = "%.3g" % (b["gshmem"] / b["goapi"]) if "goapi" in b and "gshmem" in b else "-"
    cell = lambda l: "%.1f" % b[l] if l in b else "-"
    print("%-24s %10s %10s %10s %14s %10s %10s" % (r, cell("gshmem"), cell("ompi"), cell("mpich"), ratio, cell("goapi"), gr))
PY
calls_notes "$work"
