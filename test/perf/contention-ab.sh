#!/usr/bin/env bash
# contention-ab.sh GSHMEM_A GSHMEM_B: two gshmem binaries (before and after a
# change) on contention.sh's gshmem rows, interleaved run by run, under LOAD
# busy processes per CPU (default 0: none), started and ended as
# contention.sh does. Prints the median and worst of REPS runs of each and
# the ratios B / A. It needs no MPI, so it fits a short sitting.
#
#   test/perf/contention-ab.sh /tmp/gshmem-main /tmp/gshmem-branch
#
# Environment: LOAD (0), REPS (5), ITERS (200000; 2000 for the 4-PE rows,
# 20000 for fence), ROWS (barrier2 barrier4 allreduce2 allreduce4 pt2pt
# win_flush win_fence put), RUN_TIMEOUT (60 s; a run past it counts as failed).
set -euo pipefail
[ $# -eq 2 ] || { awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"; exit 2; }
A=$1 B=$2 LOAD=${LOAD:-0} REPS=${REPS:-5} ITERS=${ITERS:-200000}
ROWS=${ROWS:-barrier2 barrier4 allreduce2 allreduce4 pt2pt win_flush win_fence put}
export GSHMEM_TCP_ADDR=127.0.0.1
OUT=$(mktemp -d /tmp/gshmem-ab.XXXXXX)
NCPU=$(nproc)
args() {
	case $1 in
	barrier*) echo barrier ;;
	allreduce*) echo "mpi_allreduce --min_size 8 --max_size 8" ;;
	pt2pt) echo "pt2pt_latency --min_size 8 --max_size 8" ;;
	win_flush) echo "win_put_latency --win_flavor allocate --sync flush --min_size 8 --max_size 8" ;;
	win_fence) echo "win_put_latency --win_flavor allocate --sync fence --min_size 8 --max_size 8" ;;
	put) echo "put_latency --min_size 8 --max_size 8" ;;
	esac
}
PIDS=()
stop() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	for p in "${PIDS[@]}"; do kill -0 "$p" 2>/dev/null && { echo "contention-ab.sh: busy process $p did not end" >&2; exit 1; }; done
	PIDS=()
}
trap stop EXIT
BEFORE=$(cat /proc/loadavg)
for ((i = 0; i < LOAD * NCPU; i++)); do
	timeout 7200 bash -c 'while :; do :; done' &
	PIDS+=($!)
done
for rep in $(seq 1 "$REPS"); do
	for row in $ROWS; do
		np=2 bind=auto it=$ITERS
		case $row in *4) np=4 bind=oversubscribed it=$((ITERS / 100)) ;; win_fence) it=$((ITERS / 10)) ;; esac
		for side in A B; do
			bin=$A
			[ $side = B ] && bin=$B
			f="$OUT/$row.$side.$rep.json"
			# shellcheck disable=SC2046
			if GSHMEM_BIND=$bind timeout "${RUN_TIMEOUT:-60}" "$bin" perf $(args "$row") -n $np --iters $it --warmup_iters $((it / 10 + 10)) --json "$f" >/dev/null 2>&1; then
				echo "$row $side $(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[0]['latency_us'])" "$f")" >>"$OUT/results"
			else
				echo "$row $side fail" >>"$OUT/results"
			fi
		done
	done
done
AFTER=$(cat /proc/loadavg)
stop
echo "## $LOAD busy process(es) per CPU; A: $A; B: $B; /proc/loadavg before: $BEFORE; after: $AFTER"
python3 - "$OUT/results" "$ROWS" <<'PY'
import statistics, sys
r = {}
for l in open(sys.argv[1]):
    row, side, v = l.split()
    r.setdefault((row, side), []).append(float("inf") if v == "fail" else float(v))
print("%-12s %3s | %9s %9s | %9s %9s | %6s %6s" % ("row (us)", "n", "A median", "A worst", "B median", "B worst", "med B/A", "wst B/A"))
for row in sys.argv[2].split():
    a, b = r.get((row, "A"), [float("inf")]), r.get((row, "B"), [float("inf")])
    ma, wa, mb, wb = statistics.median(a), max(a), statistics.median(b), max(b)
    print("%-12s %3d | %9.4g %9.4g | %9.4g %9.4g | %6.2f %6.2f" % (row, len(a), ma, wa, mb, wb, mb / ma, wb / wa))
PY
echo "raw: $OUT"
