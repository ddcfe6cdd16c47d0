#!/usr/bin/env bash
# contention.sh OSU_SRC_DIR: gshmem's small-message latencies beside Open
# MPI's and MPICH's while busy processes share the CPUs (issue 19).
#
#   test/perf/contention.sh ~/src/osu-micro-benchmarks-7.4
#
# For every load (LOADS: busy processes per CPU; 0 is the quiet machine) it
# starts that many busy loops per CPU, each a `timeout`-bounded shell loop
# started by this script and killed by its PID afterwards (and checked
# gone), then runs every row REPS times, interleaved: in each repetition
# every row runs gshmem, Open MPI and MPICH one after the other. Rows:
#
#   barrier, 2 and 4 PEs          gshmem perf barrier        osu_barrier
#   allreduce 8 B, 2 and 4 PEs    gshmem perf mpi_allreduce  osu_allreduce -T mpi_float -m 8:8
#   (reduce2, reduce4: not run unless named in ROWS: the core's Reduce,
#   float64 sum, beside the MPIs' allreduce figures)
#   Send/Recv 8 B                 gshmem perf pt2pt_latency  osu_latency -m 8:8
#   win put 8 B, flush / fence    win_put_latency --sync ... osu_put_latency -w allocate -s ...
#   put+quiet 8 B                 gshmem perf put_latency    osu_put_latency -s flush
#
# The abi group (ABI=1, the default) runs the same OSU binaries, unmodified,
# built with gshmem's mpicc against libmpi_abi.so.1 (gshmem abi install into
# WORK/abi) and started by its mpiexec (gshmem run, pinned as gshmem perf
# is): one more line per row, "[abi]", compared with the same MPI figures.
#
# Each run does enough iterations to span SECS seconds (default 1): before
# the repetitions, a short calibration run of every row and runtime under
# that load sets its iteration count from the latency it measured. The
# table shows, for every row, the median and the worst (highest) latency
# of the REPS runs, the better MPI's (the better median of the two MPIs,
# and the better worst), and the ratios gshmem / better MPI; "span" is the
# shortest timed loop of the row (iterations x latency) in seconds.
#
# 2 PEs are pinned a CPU each on every side (as compare.sh does: mpirun
# --bind-to core, mpiexec -bind-to core, GSHMEM_BIND=auto); 4 PEs on 2 CPUs
# run unpinned for the MPIs and with gshmem's default. The busy loops are
# not pinned: the scheduler places them.
#
# Environment:
#   WORK=DIR        scratch dir (default a new /tmp/gshmem-contention.XXXXXX);
#                   the OSU builds there are reused by a later run
#   LOADS="1 2 3"   busy processes per CPU, one table each (0: none)
#   REPS=5          runs of every row and runtime under each load
#   SECS=1          seconds each timed loop should span at least
#   ROWS="..."      the rows to run (default all): barrier2 barrier4
#                   allreduce2 allreduce4 pt2pt win_flush win_fence put
#   GSHMEM=BIN      run this gshmem binary instead of building the tree's
#                   (a before/after comparison in one sitting)
#   ABI=0           leave out the abi group (OSU through libmpi_abi.so.1)
#   BUILD_ONLY=1    build OSU and gshmem in WORK, run nothing
#   RUN_TIMEOUT=S   seconds before one run is stopped and counted as failed
#                   (default 120)
#   MAXLOAD=L       before each load's runs, wait (up to WAIT_MAX seconds,
#                   default 600) for the
#                   1-minute load average, less our own busy loops, to fall
#                   below L (default 3), so that others' jobs do not skew
#                   the table; the load average is printed with each table
#
# Every run sets GSHMEM_TCP_ADDR=127.0.0.1. It installs nothing: it needs
# Debian's Open MPI and MPICH (mpicc.openmpi, mpicc.mpich), go and python3.
set -euo pipefail

usage() { awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"; exit 2; }
[ $# -eq 1 ] || usage
OSU_SRC=$(cd "$1" && pwd) || { echo "contention.sh: no OSU source at $1" >&2; exit 2; }
[ -f "$OSU_SRC/c/mpi/one-sided/osu_put_latency.c" ] ||
	{ echo "contention.sh: $OSU_SRC is not an OSU micro-benchmarks 7.x source tree" >&2; exit 2; }

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
WORK=${WORK:-$(mktemp -d /tmp/gshmem-contention.XXXXXX)}
LOADS=${LOADS:-1 2 3}
REPS=${REPS:-5}
SECS=${SECS:-1}
ROWS=${ROWS:-barrier2 barrier4 allreduce2 allreduce4 pt2pt win_flush win_fence put}
ABI=${ABI:-1}
RUN_TIMEOUT=${RUN_TIMEOUT:-120}
MAXLOAD=${MAXLOAD:-3}
NCPU=$(nproc)
export GSHMEM_TCP_ADDR=127.0.0.1
log() { echo "contention.sh: $*" >&2; }
mkdir -p "$WORK"

for tool in mpicc.openmpi mpirun.openmpi mpicc.mpich mpiexec.mpich go python3 make timeout; do
	command -v "$tool" >/dev/null || { echo "contention.sh: $tool is needed (apt-get install -y openmpi-bin libopenmpi-dev mpich libmpich-dev)" >&2; exit 1; }
done

# --- builds (as compare.sh: OSU configured against each MPI in WORK) ---------
OSU_BINS="one-sided/osu_put_latency collective/blocking/osu_barrier collective/blocking/osu_allreduce pt2pt/standard/osu_latency"
build_osu() { # mpi
	local mpi=$1 dir="$WORK/osu-$1" b
	if [ ! -f "$dir/c/mpi/one-sided/Makefile" ]; then
		log "configuring OSU against $mpi in $dir"
		rm -rf "$dir" && mkdir -p "$dir"
		cp -a "$OSU_SRC/." "$dir/"
		local cc="mpicc.$mpi" cxx="mpicxx.$mpi"
		[ "$mpi" = abi ] && cc="$WORK/abi/bin/mpicc" cxx="$WORK/abi/bin/mpicxx"
		(cd "$dir" && ./configure CC="$cc" CXX="$cxx" >configure.log 2>&1) ||
			{ echo "contention.sh: configuring OSU against $mpi failed; see $dir/configure.log" >&2; exit 1; }
	fi
	for b in $OSU_BINS; do
		[ -x "$dir/c/mpi/$b" ] && continue
		log "building osu $b against $mpi"
		make -C "$dir/c/mpi/$(dirname "$b")" -j"$NCPU" "$(basename "$b")" >>"$dir/make.log" 2>&1 ||
			{ echo "contention.sh: building OSU $b against $mpi failed; see $dir/make.log" >&2; exit 1; }
	done
}
build_osu openmpi
build_osu mpich
if [ -n "${GSHMEM:-}" ]; then
	cp "$GSHMEM" "$WORK/gshmem"
else
	log "building gshmem"
	(cd "$ROOT" && go build -o "$WORK/gshmem" ./cmd/gshmem)
fi
if [ "$ABI" = 1 ]; then
	# A fresh library each sitting (the tree may have changed); OSU's
	# binaries load it at run time, so they need no rebuild.
	log "installing the C ABI in $WORK/abi"
	"$WORK/gshmem" abi install --prefix "$WORK/abi" --src "$ROOT" >"$WORK/abi-install.log" 2>&1 ||
		{ echo "contention.sh: gshmem abi install failed; see $WORK/abi-install.log" >&2; exit 1; }
	build_osu abi
fi
[ "${BUILD_ONLY:-}" = 1 ] && exit 0

# --- busy processes -----------------------------------------------------------
BUSY_PIDS=()
start_busy() { # per-CPU count: bounded busy loops, PIDs kept
	local n=$(($1 * NCPU)) i
	for ((i = 0; i < n; i++)); do
		# The bound outlives any sitting of this script, yet ends a loop
		# this script failed to kill.
		timeout 7200 bash -c 'while :; do :; done' &
		BUSY_PIDS+=($!)
	done
}
stop_busy() {
	local p
	[ ${#BUSY_PIDS[@]} -eq 0 ] && return 0
	for p in "${BUSY_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${BUSY_PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	for p in "${BUSY_PIDS[@]}"; do
		if kill -0 "$p" 2>/dev/null; then
			echo "contention.sh: busy process $p did not end" >&2
			exit 1
		fi
	done
	BUSY_PIDS=()
}
trap stop_busy EXIT

wait_quiet() { # own busy count: wait until others' load is below MAXLOAD
	local own=$1 t
	for t in $(seq 1 $((${WAIT_MAX:-600} / 10 + 1))); do
		if python3 -c "import sys; l=float(open('/proc/loadavg').read().split()[0]); sys.exit(0 if l - $own < $MAXLOAD else 1)"; then
			return 0
		fi
		[ "$t" = 1 ] && log "waiting for the load average ($(cut -d' ' -f1 /proc/loadavg), $own of it ours) to fall below $MAXLOAD + $own"
		sleep 10
	done
	log "the load average stayed above $MAXLOAD + $own; measuring anyway (see the table's header)"
}

# --- runs ----------------------------------------------------------------------
mpi_launch() { # mpi np
	local np=$2
	case $1 in
	openmpi)
		local root=() bind=(--bind-to core)
		[ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
		[ "$np" -gt "$NCPU" ] && bind=(--bind-to none)
		echo mpirun.openmpi "${root[@]}" --oversubscribe -np "$np" "${bind[@]}"
		;;
	mpich)
		if [ "$np" -gt "$NCPU" ]; then echo mpiexec.mpich -n "$np"; else echo mpiexec.mpich -n "$np" -bind-to core; fi
		;;
	abi) # gshmem run; pinned through GSHMEM_BIND (run_one)
		echo "$WORK/abi/bin/mpiexec" -n "$np"
		;;
	esac
}

# row_np row -> PEs; row_osu row -> OSU binary and arguments; row_gshmem row
# -> gshmem perf arguments (the reduction rows run twice: compat's MPI
# Allreduce and the core's Reduce, as rows of their own).
row_np() { case $1 in *4) echo 4 ;; *) echo 2 ;; esac; }
row_osu() {
	case $1 in
	barrier*) echo "collective/blocking/osu_barrier" ;;
	allreduce* | reduce*) echo "collective/blocking/osu_allreduce -T mpi_float -m 8:8" ;;
	pt2pt) echo "pt2pt/standard/osu_latency -m 8:8" ;;
	win_flush | put) echo "one-sided/osu_put_latency -w allocate -s flush -m 8:8" ;;
	win_fence) echo "one-sided/osu_put_latency -w allocate -s fence -m 8:8" ;;
	esac
}
row_gshmem() {
	# Every OSU test here but osu_latency reads MPI_Wtime around each
	# operation; --timing op makes gshmem perf read its clock the same way
	# (see compare.sh's Timing), so both sides pay for the same reads.
	local op="--timing op"
	case $1 in
	barrier*) echo "barrier $op" ;;
	allreduce*) echo "mpi_allreduce --min_size 8 --max_size 8 $op" ;;
	reduce*) echo "reduction --datatype float64 --op sum --min_size 8 --max_size 8 $op" ;;
	pt2pt) echo "pt2pt_latency --min_size 8 --max_size 8" ;;
	win_flush) echo "win_put_latency --win_flavor allocate --sync flush --min_size 8 --max_size 8 $op" ;;
	win_fence) echo "win_put_latency --win_flavor allocate --sync fence --min_size 8 --max_size 8 $op" ;;
	put) echo "put_latency --min_size 8 --max_size 8 $op" ;;
	esac
}
# runtimes row -> who runs it: the core's Reduce rows are gshmem's only
# (compared with the MPIs' allreduce rows).
runtimes() {
	case $1 in
	reduce*) echo gshmem ;;
	*) if [ "$ABI" = 1 ]; then echo gshmem openmpi mpich abi; else echo gshmem openmpi mpich; fi ;;
	esac
}
# The timed loop of one iteration spans this many reported latencies (a
# ping-pong reports half its round trip).
row_per_iter() { case $1 in pt2pt) echo 2 ;; *) echo 1 ;; esac; }

# run_one rt row iters out: one run; its latency (us) on stdout, or nothing
run_one() {
	local rt=$1 row=$2 iters=$3 out=$4 np warm
	np=$(row_np "$row")
	warm=$((iters / 10 + 10))
	case $rt in
	gshmem)
		local bind=auto
		[ "$np" -gt "$NCPU" ] && bind=oversubscribed
		# shellcheck disable=SC2046
		if GSHMEM_BIND=${GSHMEM_BIND:-$bind} timeout "$RUN_TIMEOUT" "$WORK/gshmem" perf $(row_gshmem "$row") -n "$np" \
			--iters "$iters" --warmup_iters "$warm" --json "$out.json" >"$out" 2>&1; then
			python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[0]['latency_us'])" "$out.json"
		fi
		;;
	openmpi | mpich | abi)
		local osu bind=auto
		osu=$(row_osu "$row")
		[ "$np" -gt "$NCPU" ] && bind=oversubscribed
		# shellcheck disable=SC2046,SC2086
		if GSHMEM_BIND=${GSHMEM_BIND:-$bind} timeout "$RUN_TIMEOUT" $(mpi_launch "$rt" "$np") "$WORK/osu-$rt/c/mpi/"$osu -i "$iters" -x "$warm" >"$out" 2>&1; then
			awk '/^#/ || NF == 0 { next } { v = $NF } END { if (v != "") print v }' "$out"
		fi
		;;
	esac
}

# calibrate rt row -> iterations for a timed loop of SECS seconds
calibrate() {
	local rt=$1 row=$2 lat n per
	per=$(row_per_iter "$row")
	n=2000
	[ "$row" = win_fence ] && n=500
	lat=$(run_one "$rt" "$row" "$n" "$RAW/cal.$rt.$row.$LOAD")
	python3 -c "import sys, math
lat = float(sys.argv[1] or 0) or 1000.0
print(max(1000, min(20000000, math.ceil(1.3 * $SECS * 1e6 / (lat * $per)))))" "${lat:-}"
}

LOAD_HEADER=()
RAW="$WORK/raw"
rm -rf "$RAW" && mkdir -p "$RAW"
STARTED=$SECONDS
for LOAD in $LOADS; do
	own=$((LOAD * NCPU))
	wait_quiet 0
	before=$(cat /proc/loadavg)
	start_busy "$LOAD"
	sleep 1
	log "load $LOAD busy per CPU ($own processes: ${BUSY_PIDS[*]:-none}); calibrating"
	declare -A ITERS=()
	for row in $ROWS; do
		for rt in $(runtimes "$row"); do
			ITERS[$rt.$row]=$(calibrate "$rt" "$row")
		done
	done
	for rep in $(seq 1 "$REPS"); do
		log "load $LOAD: repetition $rep of $REPS ($(cut -d' ' -f1-3 /proc/loadavg))"
		for row in $ROWS; do
			for rt in $(runtimes "$row"); do
				lat=$(run_one "$rt" "$row" "${ITERS[$rt.$row]}" "$RAW/run.$LOAD.$row.$rt.$rep.txt")
				echo "$LOAD $row $rt $rep ${ITERS[$rt.$row]} $(row_per_iter "$row") ${lat:-fail}" >>"$RAW/results"
			done
		done
	done
	after=$(cat /proc/loadavg)
	stop_busy
	echo "$LOAD|$before|$after" >>"$RAW/loads"
	unset ITERS
done

python3 "$HERE/contention.py" "$RAW" | tee "$WORK/table.txt"
echo
echo "raw outputs: $RAW; machine: $NCPU CPUs, $(uname -r); $(go version | cut -d' ' -f3); gshmem ${GSHMEM:-$(cd "$ROOT" && git rev-parse --short HEAD)$(cd "$ROOT" && git diff --quiet HEAD || echo +changes)}"
echo "MPIs: $(mpirun.openmpi --version 2>/dev/null | head -1); MPICH $(mpichversion 2>/dev/null | sed -n 's/^MPICH Version:[[:space:]]*//p')"
echo "took $(((SECONDS - STARTED) / 60)) min"
