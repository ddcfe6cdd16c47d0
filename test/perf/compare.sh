#!/usr/bin/env bash
# compare.sh OSU_SRC_DIR: gshmem's one-sided figures beside Open MPI's and
# MPICH's, measured side by side on this machine with 2 processes, as issue 4
# asks.
#
#   test/perf/compare.sh ~/src/osu-micro-benchmarks-7.4
#
# It installs nothing. It needs Debian's Open MPI and MPICH (mpicc.openmpi,
# mpicc.mpich), go and python3; it builds the OSU micro-benchmarks 7.x one-sided
# tests against each MPI in a scratch dir, runs osu_put_latency,
# osu_get_latency, osu_put_bw, osu_get_bw, osu_acc_latency, osu_fop_latency and
# osu_cas_latency with MPI_Win_allocate and every sync mode (flush, lock,
# fence, pscw), each both with glibc's defaults and with its rep movsb path off
# (GLIBC_TUNABLES=glibc.cpu.x86_rep_movsb_threshold=1073741824), runs the
# matching `gshmem perf` tests plus the memcpy_bw and shm_pingpong anchors,
# and prints one table: gshmem, the best MPI (which, mode, glibc), the ratio
# gshmem / best MPI and the ratio to the anchor.
#
# Environment:
#   WORK=DIR     scratch dir (default: a new /tmp/gshmem-compare.XXXXXX); the
#                OSU builds there are reused by a later run with the same WORK
#   REPEAT=N     runs of every measurement, best kept (default 3): the VM's
#                vCPUs move, and a run can land on a bad placement
#   MODES="..."  OSU sync modes (default "flush lock fence pscw")
#   OSU_TIMEOUT=S  seconds before one OSU run is stopped and left out
#                (default 300; MPICH's get_bw with fence or PSCW can take
#                minutes on a loaded machine)
#   QUICK=1      fewer OSU iterations (a smoke test of the script); otherwise
#                OSU's defaults, except 1000 iterations for fence and pscw
#                latency runs (an epoch per operation: never the best figure)
set -euo pipefail

usage() { awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"; exit 2; }
[ $# -eq 1 ] || usage
OSU_SRC=$(cd "$1" && pwd) || { echo "compare.sh: no OSU source at $1" >&2; exit 2; }
[ -f "$OSU_SRC/c/mpi/one-sided/osu_put_latency.c" ] ||
	{ echo "compare.sh: $OSU_SRC is not an OSU micro-benchmarks 7.x source tree (no c/mpi/one-sided/osu_put_latency.c)" >&2; exit 2; }

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
WORK=${WORK:-$(mktemp -d /tmp/gshmem-compare.XXXXXX)}
REPEAT=${REPEAT:-3}
MODES=${MODES:-flush lock fence pscw}
NOREPMOVSB="glibc.cpu.x86_rep_movsb_threshold=1073741824"
RAW="$WORK/raw"
rm -rf "$RAW" && mkdir -p "$RAW"
log() { echo "compare.sh: $*" >&2; }

# --- what must be installed -------------------------------------------------
missing=()
for tool in mpicc.openmpi mpirun.openmpi mpicc.mpich mpiexec.mpich; do
	command -v "$tool" >/dev/null || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "compare.sh: missing ${missing[*]}. Install Debian's Open MPI and MPICH:" >&2
	echo "    apt-get install -y openmpi-bin libopenmpi-dev mpich libmpich-dev" >&2
	exit 1
fi
for tool in go python3 make; do
	command -v "$tool" >/dev/null || { echo "compare.sh: $tool is needed" >&2; exit 1; }
done

# --- builds -----------------------------------------------------------------
build_osu() { # mpi
	local mpi=$1 dir="$WORK/osu-$1"
	if [ -x "$dir/c/mpi/one-sided/osu_cas_latency" ]; then
		return
	fi
	log "building OSU one-sided tests against $mpi in $dir"
	rm -rf "$dir" && mkdir -p "$dir"
	cp -a "$OSU_SRC/." "$dir/"
	(cd "$dir" && ./configure CC="mpicc.$mpi" CXX="mpicxx.$mpi" >configure.log 2>&1 &&
		make -C c/mpi/one-sided -j"$(nproc)" >make.log 2>&1) ||
		{ echo "compare.sh: building OSU against $mpi failed; see $dir/configure.log and $dir/make.log" >&2; exit 1; }
}
build_osu openmpi
build_osu mpich
log "building gshmem"
(cd "$ROOT" && go build -o "$WORK/gshmem" ./cmd/gshmem)

# --- runs -------------------------------------------------------------------
mpirun_for() { # mpi glibc -> the launcher command line, 2 ranks on 2 cores
	local extra=()
	if [ "$2" = norepmovsb ]; then extra=(-x GLIBC_TUNABLES); fi
	case $1 in
	openmpi)
		local root=()
		[ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
		echo mpirun.openmpi "${root[@]}" --oversubscribe -np 2 --bind-to core "${extra[@]}"
		;;
	mpich) echo mpiexec.mpich -n 2 -bind-to core ;;
	esac
}

osu_args() { # bench -> the size range and datatype
	case $1 in
	put_latency | get_latency) echo "-m 8:8" ;;
	put_bw | get_bw) echo "-m 65536:4194304" ;;
	acc_latency) echo "-m 4:4 -T mpi_int" ;;
	fop_latency | cas_latency) echo "-T mpi_int" ;;
	esac
}

iter_args() { # bench mode -> iteration counts where OSU's defaults are not kept
	if [ "${QUICK:-}" = 1 ]; then
		case $1 in
		*_bw) echo "-i 10 -x 2" ;;
		*) echo "-i 1000 -x 10" ;;
		esac
		return
	fi
	# A fence or PSCW latency run opens and closes an epoch per operation,
	# a handshake of both ranks that costs microseconds (tens of seconds for
	# OSU's 10000 iterations on a loaded 2-CPU VM); it is never the best
	# latency, so 1000 iterations tell enough.
	case $1/$2 in
	*_latency/fence | *_latency/pscw) echo "-i 1000 -x 10" ;;
	esac
}

run_osu() { # mpi glibc bench mode rep
	local mpi=$1 glibc=$2 bench=$3 mode=$4 rep=$5
	local out="$RAW/osu.$mpi.$glibc.$bench.$mode.$rep.txt"
	local bin="$WORK/osu-$mpi/c/mpi/one-sided/osu_$bench"
	local env=()
	[ "$glibc" = norepmovsb ] && env=(GLIBC_TUNABLES="$NOREPMOVSB")
	# shellcheck disable=SC2046
	if ! env "${env[@]}" timeout "${OSU_TIMEOUT:-300}" $(mpirun_for "$mpi" "$glibc") "$bin" -w allocate -s "$mode" \
		$(osu_args "$bench") $(iter_args "$bench" "$mode") >"$out" 2>&1; then
		log "osu_$bench ($mpi, $mode, $glibc) failed; kept its output in $out"
		mv "$out" "$out.failed"
	fi
}

run_gshmem() { # name rep args...
	local name=$1 rep=$2
	shift 2
	"$WORK/gshmem" perf "$@" -n 2 --json "$RAW/gshmem.$name.$rep.json" >"$RAW/gshmem.$name.$rep.txt" 2>&1 ||
		{ log "gshmem perf $* failed:"; cat "$RAW/gshmem.$name.$rep.txt" >&2; exit 1; }
}

# Interleave the runs (all of one repetition, then the next) so that a
# noisy stretch of the machine touches every contender alike.
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
BENCHES="put_latency get_latency put_bw get_bw acc_latency fop_latency cas_latency"
for rep in $(seq 1 "$REPEAT"); do
	log "repetition $rep of $REPEAT: gshmem"
	run_gshmem shm_pingpong "$rep" shm_pingpong
	run_gshmem put_latency "$rep" put_latency --min_size 8 --max_size 8
	run_gshmem get_latency "$rep" get_latency --min_size 8 --max_size 8
	run_gshmem put_bw "$rep" put_bw --min_size 64k --max_size 4m
	run_gshmem get_bw "$rep" get_bw --min_size 64k --max_size 4m
	run_gshmem memcpy_bw "$rep" memcpy_bw --min_size 64k --max_size 4m
	run_gshmem fetch_add "$rep" atomic_latency --op fetch_add --datatype int32
	run_gshmem compare_swap "$rep" atomic_latency --op compare_swap --datatype int32
	run_gshmem add "$rep" atomic_latency --op add --datatype int32
	for op in fetch_add compare_swap add; do
		GSHMEM_SPIN=1000000000 run_gshmem "spin_$op" "$rep" atomic_latency --op $op --datatype int32
	done
	for mpi in openmpi mpich; do
		for glibc in default norepmovsb; do
			log "repetition $rep of $REPEAT: $mpi, glibc $glibc"
			for bench in $BENCHES; do
				for mode in $MODES; do
					run_osu "$mpi" "$glibc" "$bench" "$mode" "$rep"
				done
			done
		done
	done
done

# --- the table --------------------------------------------------------------
python3 "$HERE/compare.py" "$RAW" | tee "$WORK/table.txt"
echo
echo "raw outputs: $RAW; machine: $(nproc) CPUs, $(uname -r); $(go version | cut -d' ' -f3)"
echo "MPIs: $(mpirun.openmpi --version 2>/dev/null | head -1); MPICH $(mpichversion 2>/dev/null | sed -n 's/^MPICH Version:[[:space:]]*//p')"
echo "took $((SECONDS / 60)) min; load average (1, 5, 15 min) before: $LOAD_BEFORE, after: $(cut -d' ' -f1-3 /proc/loadavg): figures from a loaded machine are noisy"
