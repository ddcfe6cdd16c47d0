#!/usr/bin/env bash
# compare.sh OSU_SRC_DIR: gshmem's figures beside Open MPI's and MPICH's,
# measured side by side on this machine: one-sided RMA (issue 4, 2
# processes), collectives (issue 3, 2 and 4 processes), MPI windows in every
# sync mode (issue 5, 2 processes), MPI point-to-point (issue 6, 2
# processes) and the C ABI (issue 17, 2 processes).
#
#   test/perf/compare.sh ~/src/osu-micro-benchmarks-7.4
#
# It installs nothing outside WORK. It needs Debian's Open MPI and MPICH
# (mpicc.openmpi, mpicc.mpich), go and python3; it builds the OSU
# micro-benchmarks 7.x one-sided tests against each MPI in a scratch dir, runs
# osu_put_latency, osu_get_latency, osu_put_bw, osu_get_bw, osu_acc_latency,
# osu_fop_latency and osu_cas_latency with MPI_Win_allocate and every sync
# mode (flush, lock, fence, pscw), each both with glibc's defaults and with
# its rep movsb path off
# (GLIBC_TUNABLES=glibc.cpu.x86_rep_movsb_threshold=1073741824), runs the
# matching `gshmem perf` tests plus the memcpy_bw and shm_pingpong anchors,
# and prints one table: gshmem, the best MPI (which, mode, glibc), the ratio
# gshmem / best MPI and the ratio to the anchor.
#
# The collective rows run osu_barrier, osu_allreduce (-T mpi_float, 8 B and
# 1 MiB), osu_bcast, osu_alltoall and osu_allgather (1 MiB) against gshmem
# perf barrier, reduction (--datatype float32), broadcast, alltoall and
# fcollect, with 2 PEs and with 4 PEs; compat's MPI Allreduce of 8 B
# (mpi_allreduce, one float64) stands beside osu_allreduce's 8 B too. 4 processes on a 2-CPU machine are
# oversubscribed (mpirun --oversubscribe --bind-to none, mpiexec without
# binding): those figures measure how each runtime copes with sharing CPUs.
# The window rows pair osu_put_latency -s MODE with gshmem perf
# win_put_latency --sync MODE (same mode on both sides; the best MPI is the
# best of that mode), osu_get_latency -s flush with win_get_latency, and
# osu_acc/fop/cas_latency -s flush with win_acc/fop/cas_latency. The
# point-to-point rows pair osu_latency 8 B and osu_bw 1 MiB with gshmem perf
# pt2pt_latency and pt2pt_bw. The stream rows (gshmem only) show
# put_on_stream_latency and kernel_put_bw beside the host put of the same run.
#
# The abi rows (issue 17) install the C ABI once into WORK/gabi (gshmem abi
# install, built from this checkout), build the same OSU with its mpicc and
# mpicxx, and run it unmodified under `gshmem run -n 2` beside the same OSU
# under Open MPI and MPICH and beside the same test through the Go API
# (gshmem perf): osu_put_latency and osu_get_latency 8 B (MPI_Win_allocate,
# -s flush and -s lock_all; win_put/get_latency), osu_acc_latency 8 B
# (mpi_int; win_acc_latency int32), osu_fop_latency and osu_cas_latency
# (mpi_int, 4 B: OSU 7.4's widest type; win_fop/cas_latency int32), all
# -s flush; osu_put_bw 1 MiB -s flush (win_put_bw), osu_latency 8 B
# (pt2pt_latency), osu_bw 1 MiB (pt2pt_bw), osu_barrier (mpi_barrier) and
# osu_allreduce 8 B (mpi_float; mpi_allreduce, one float64). Its table
# (compare_abi.py) holds the ABI's figure, the best MPI of the same test and
# mode, their ratio against issue 17's target, the Go API's figure and the
# ratio ABI / Go API (latency <= 1.25, bandwidth >= 1 / 1.25).
#
# The winmode rows (issue 37) run OSU's osu_put_latency, osu_get_latency
# and osu_acc_latency (-T mpi_int) at 8 B, -s flush, with each window
# creation mode (-w create, -w allocate, -w dynamic), and osu_put_bw 1 MiB
# -w create, through the C ABI (gshmem run -n 2) beside Open MPI and MPICH
# with glibc's defaults. Their table (compare_winmode.py) gives, per row,
# the ABI's figure, the best MPI's in the same mode and their ratio
# (latency target <= 0.5, put_bw >= 1.0), and the ratio to the ABI's own
# -w allocate figure (<= 1.5): what reaching the user's memory costs
# beside the heap's.
#
# Timing. osu_latency and osu_bw read MPI_Wtime around their whole loop, as
# gshmem perf does by default; osu_put/get/acc/fop/cas_latency, osu_put_bw,
# osu_barrier and osu_allreduce also read it before and after every
# operation (their per-iteration latencies), so each of their figures holds
# two clock reads per operation: 2 x 24-32 ns against an 8-byte put+flush
# of 9-45 ns. The gshmem perf rows paired with those (the win and abi
# groups, and barrier and the 8-byte reductions of the coll groups) run with
# --timing op, which reads the runtime's monotonic clock (the vDSO
# clock_gettime that Open MPI's and MPICH's MPI_Wtime read) the same way,
# so that both sides of a ratio pay for the same clock reads. For the
# per-call cost with no clock in the loop, see abi-calls.sh.
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
#   COMPARE_ONLY="rma coll win pt2pt stream abi winmode"  the groups of rows
#                to run (default all; commas or spaces): rma is the issue 4
#                table, coll the collectives, win the window rows, pt2pt the
#                MPI point-to-point rows, stream the stream/kernel rows, abi
#                the C ABI's table, winmode the C ABI's window creation modes
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
ONLY=" $(echo "${COMPARE_ONLY:-rma coll win pt2pt stream abi winmode}" | tr ',' ' ') "
for g in $ONLY; do
	case $g in rma | coll | win | pt2pt | stream | abi | winmode) ;; *) echo "compare.sh: COMPARE_ONLY: unknown group $g (want rma, coll, win, pt2pt, stream, abi, winmode)" >&2; exit 2 ;; esac
done
want() { [[ $ONLY == *" $1 "* ]]; }
RAW="$WORK/raw"
rm -rf "$RAW" && mkdir -p "$RAW"
log() { echo "compare.sh: $*" >&2; }
# gshmem's jobs (perf and the ABI's) bootstrap over loopback only.
export GSHMEM_TCP_ADDR=${GSHMEM_TCP_ADDR:-127.0.0.1}

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
OSU_BINS="one-sided/osu_put_latency one-sided/osu_get_latency one-sided/osu_put_bw one-sided/osu_get_bw
one-sided/osu_acc_latency one-sided/osu_fop_latency one-sided/osu_cas_latency
collective/blocking/osu_barrier collective/blocking/osu_allreduce collective/blocking/osu_bcast
collective/blocking/osu_alltoall collective/blocking/osu_allgather pt2pt/standard/osu_latency pt2pt/standard/osu_bw"
# The tests the abi rows run, the ones built against the ABI.
ABI_BINS="one-sided/osu_put_latency one-sided/osu_get_latency one-sided/osu_acc_latency one-sided/osu_fop_latency
one-sided/osu_cas_latency one-sided/osu_put_bw pt2pt/standard/osu_latency pt2pt/standard/osu_bw
collective/blocking/osu_barrier collective/blocking/osu_allreduce"
build_osu() { # mpi [cc cxx bins]: OSU_BINS with mpicc.MPI by default
	local mpi=$1 cc=${2:-mpicc.$1} cxx=${3:-mpicxx.$1} bins=${4:-$OSU_BINS} dir="$WORK/osu-$1" b
	if [ ! -f "$dir/c/mpi/one-sided/Makefile" ]; then
		log "configuring OSU against $mpi in $dir"
		rm -rf "$dir" && mkdir -p "$dir"
		cp -a "$OSU_SRC/." "$dir/"
		(cd "$dir" && ./configure CC="$cc" CXX="$cxx" >configure.log 2>&1) ||
			{ echo "compare.sh: configuring OSU against $mpi failed; see $dir/configure.log" >&2; exit 1; }
	fi
	for b in $bins; do
		[ -x "$dir/c/mpi/$b" ] && continue
		log "building osu $b against $mpi"
		make -C "$dir/c/mpi/$(dirname "$b")" -j"$(nproc)" "$(basename "$b")" >>"$dir/make.log" 2>&1 ||
			{ echo "compare.sh: building OSU $b against $mpi failed; see $dir/make.log" >&2; exit 1; }
	done
}
build_osu openmpi
build_osu mpich
log "building gshmem"
(cd "$ROOT" && go build -o "$WORK/gshmem" ./cmd/gshmem)
if want abi || want winmode; then
	# Installed afresh every run (OSU links libmpi_abi.so.1 by its runpath,
	# so a reused WORK's OSU build runs this checkout's library).
	log "installing the C ABI into $WORK/gabi"
	"$WORK/gshmem" abi install --prefix "$WORK/gabi" --src "$ROOT" >"$WORK/abi-install.log" 2>&1 ||
		{ echo "compare.sh: gshmem abi install failed; see $WORK/abi-install.log" >&2; exit 1; }
	build_osu gabi "$WORK/gabi/bin/mpicc" "$WORK/gabi/bin/mpicxx" "$ABI_BINS"
fi

# --- runs -------------------------------------------------------------------
mpirun_for() { # mpi glibc [np] -> the launcher command line: 2 ranks bound to the 2 cores; more oversubscribed, unbound
	local extra=() np=${3:-2}
	if [ "$2" = norepmovsb ]; then extra=(-x GLIBC_TUNABLES); fi
	case $1 in
	openmpi)
		local root=() bind=(--bind-to core)
		[ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
		[ "$np" -gt "$(nproc)" ] && bind=(--bind-to none)
		echo mpirun.openmpi "${root[@]}" --oversubscribe -np "$np" "${bind[@]}" "${extra[@]}"
		;;
	mpich)
		if [ "$np" -gt "$(nproc)" ]; then echo mpiexec.mpich -n "$np"; else echo mpiexec.mpich -n "$np" -bind-to core; fi
		;;
	gabi) # the C ABI: placed by GSHMEM_BIND (run_osu_other sets it as run_gshmem does)
		echo "$WORK/gshmem" run -n "$np"
		;;
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

# run_osu_other mpi glibc np bench tag rep args...: a collective or
# point-to-point OSU test; tag stands in the mode's place of the raw name.
run_osu_other() {
	local mpi=$1 glibc=$2 np=$3 bench=$4 tag=$5 rep=$6
	shift 6
	local out="$RAW/osu.$mpi.$glibc.$bench.$tag.$rep.txt" bin
	case $bench in
	latency | bw) bin="$WORK/osu-$mpi/c/mpi/pt2pt/standard/osu_$bench" ;;
	*_latency | *_bw) bin="$WORK/osu-$mpi/c/mpi/one-sided/osu_$bench" ;;
	*) bin="$WORK/osu-$mpi/c/mpi/collective/blocking/osu_$bench" ;;
	esac
	local env=()
	[ "$glibc" = norepmovsb ] && env=(GLIBC_TUNABLES="$NOREPMOVSB")
	[ "$mpi" = gabi ] && env+=(GSHMEM_BIND="${GSHMEM_BIND:-$(gshmem_bind "$np")}")
	# shellcheck disable=SC2046
	if ! env "${env[@]}" timeout "${OSU_TIMEOUT:-300}" $(mpirun_for "$mpi" "$glibc" "$np") "$bin" "$@" >"$out" 2>&1; then
		log "osu_$bench ($mpi, $tag, $glibc) failed; kept its output in $out"
		mv "$out" "$out.failed"
	fi
}

coll_iters() { # size class -> OSU iteration flags under QUICK
	if [ "${QUICK:-}" = 1 ]; then
		case $1 in small) echo "-i 1000 -x 100" ;; *) echo "-i 50 -x 5" ;; esac
	fi
}

gshmem_iters() { # size class -> gshmem perf iteration flags under QUICK
	if [ "${QUICK:-}" = 1 ]; then
		case $1 in small) echo "--iters 1000 --warmup_iters 100" ;; *) echo "--iters 50 --warmup_iters 5" ;; esac
	fi
}

# OSU_TIMING: the gshmem perf flags of a row whose OSU test reads the
# clock around every operation (see Timing above).
OSU_TIMING=(--timing op)

gshmem_bind() { # np -> GSHMEM_BIND's value for gshmem's PEs: see run_gshmem
	if [ "$1" -gt "$(nproc)" ]; then echo oversubscribed; else echo auto; fi
}

run_gshmem() { # name rep args...
	local name=$1 rep=$2
	shift 2
	# Pinned to a core each, as mpirun_for places the MPIs' ranks; when they
	# outnumber the cores, each side keeps its own default: the MPIs run
	# unpinned (Open MPI's barrier with --bind-to core:overload-allowed
	# took the same 3.8 us), gshmem pins round-robin (GSHMEM_BIND's
	# default, oversubscribed).
	GSHMEM_BIND=${GSHMEM_BIND:-$(gshmem_bind "${NP:-2}")} "$WORK/gshmem" perf "$@" -n "${NP:-2}" --json "$RAW/gshmem.$name.$rep.json" >"$RAW/gshmem.$name.$rep.txt" 2>&1 ||
		{ log "gshmem perf $* failed:"; cat "$RAW/gshmem.$name.$rep.txt" >&2; exit 1; }
}

# The runs interleave finely: within a repetition, each group of rows runs
# gshmem and then every MPI before the next group starts, so that the
# contenders of a row run minutes apart at most. The machine's vCPUs move
# between placements whose cache-line latency differs by up to 4 times
# (watch shm_pingpong), and a stretch of one placement lasts minutes.
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
BENCHES="put_latency get_latency put_bw get_bw acc_latency fop_latency cas_latency"
WIN_MODES=${WIN_MODES:-flush lock lock_all fence pscw}

gshmem_runs() { # group rep
	local rep=$2
	case $1 in
	rma)
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
		;;
	win)
		for mode in $WIN_MODES; do
			run_gshmem "win_put_latency_$mode" "$rep" win_put_latency --win_flavor allocate --sync "$mode" --min_size 8 --max_size 8 "${OSU_TIMING[@]}"
		done
		run_gshmem win_get_latency_flush "$rep" win_get_latency --win_flavor allocate --sync flush --min_size 8 --max_size 8 "${OSU_TIMING[@]}"
		run_gshmem win_acc_latency_flush "$rep" win_acc_latency --sync flush --datatype int32 --min_size 4 --max_size 4 "${OSU_TIMING[@]}"
		run_gshmem win_fop_latency_flush "$rep" win_fop_latency --sync flush --datatype int32 "${OSU_TIMING[@]}"
		run_gshmem win_cas_latency_flush "$rep" win_cas_latency --sync flush --datatype int32 "${OSU_TIMING[@]}"
		;;
	coll2 | coll4)
		local np=${1#coll}
		# shellcheck disable=SC2046
		{
			NP=$np run_gshmem "barrier_np$np" "$rep" barrier $(gshmem_iters small) "${OSU_TIMING[@]}"
			NP=$np run_gshmem "reduction_np$np" "$rep" reduction --datatype float32 --op sum --min_size 8 --max_size 8 $(gshmem_iters small) "${OSU_TIMING[@]}"
			NP=$np run_gshmem "mpi_allreduce_np$np" "$rep" mpi_allreduce --min_size 8 --max_size 8 $(gshmem_iters small) "${OSU_TIMING[@]}"
			NP=$np run_gshmem "reduction1m_np$np" "$rep" reduction --datatype float32 --op sum --min_size 1m --max_size 1m $(gshmem_iters large)
			NP=$np run_gshmem "broadcast_np$np" "$rep" broadcast --min_size 1m --max_size 1m $(gshmem_iters large)
			NP=$np run_gshmem "alltoall_np$np" "$rep" alltoall --min_size 1m --max_size 1m $(gshmem_iters large)
			NP=$np run_gshmem "fcollect_np$np" "$rep" fcollect --min_size 1m --max_size 1m $(gshmem_iters large)
		}
		;;
	pt2pt)
		run_gshmem pt2pt_latency "$rep" pt2pt_latency --min_size 8 --max_size 8
		run_gshmem pt2pt_bw "$rep" pt2pt_bw --min_size 1m --max_size 1m
		;;
	stream)
		run_gshmem put_on_stream_latency "$rep" put_on_stream_latency --min_size 8 --max_size 1m --step 131072
		run_gshmem kernel_put_bw "$rep" kernel_put_bw --min_size 1m --max_size 1m
		;;
	abi) # the Go API's side of each abi row (names abi_*: compare_abi.py's)
		local mode
		for mode in flush lock_all; do
			run_gshmem "abi_put_latency_$mode" "$rep" win_put_latency --win_flavor allocate --sync "$mode" --min_size 8 --max_size 8 "${OSU_TIMING[@]}"
			run_gshmem "abi_get_latency_$mode" "$rep" win_get_latency --win_flavor allocate --sync "$mode" --min_size 8 --max_size 8 "${OSU_TIMING[@]}"
		done
		run_gshmem abi_acc_latency_flush "$rep" win_acc_latency --sync flush --datatype int32 --min_size 8 --max_size 8 "${OSU_TIMING[@]}"
		run_gshmem abi_fop_latency_flush "$rep" win_fop_latency --sync flush --datatype int32 "${OSU_TIMING[@]}"
		run_gshmem abi_cas_latency_flush "$rep" win_cas_latency --sync flush --datatype int32 "${OSU_TIMING[@]}"
		# shellcheck disable=SC2046
		{
			run_gshmem abi_put_bw_flush "$rep" win_put_bw --win_flavor allocate --sync flush --min_size 1m --max_size 1m $(gshmem_iters large) "${OSU_TIMING[@]}"
			run_gshmem abi_latency "$rep" pt2pt_latency --min_size 8 --max_size 8 $(gshmem_iters small)
			run_gshmem abi_bw "$rep" pt2pt_bw --min_size 1m --max_size 1m $(gshmem_iters large)
			run_gshmem abi_barrier "$rep" mpi_barrier $(gshmem_iters small) "${OSU_TIMING[@]}"
			run_gshmem abi_allreduce "$rep" mpi_allreduce --min_size 8 --max_size 8 $(gshmem_iters small) "${OSU_TIMING[@]}"
		}
		;;
	esac
}

# osu_once: run_osu, skipping a one-sided run this repetition already has
# (the rma and win groups share some).
declare -A osu_ran
osu_once() { # mpi glibc bench mode rep
	local key="$1.$2.$3.$4.$5"
	[ -n "${osu_ran[$key]:-}" ] && return 0
	osu_ran[$key]=1
	run_osu "$@"
}

osu_runs() { # group mpi glibc rep
	local mpi=$2 glibc=$3 rep=$4 bench mode
	case $1 in
	rma)
		for bench in $BENCHES; do
			for mode in $MODES; do
				osu_once "$mpi" "$glibc" "$bench" "$mode" "$rep"
			done
		done
		;;
	win)
		for mode in $WIN_MODES; do
			osu_once "$mpi" "$glibc" put_latency "$mode" "$rep"
		done
		for bench in get_latency acc_latency fop_latency cas_latency; do
			osu_once "$mpi" "$glibc" "$bench" flush "$rep"
		done
		;;
	coll2 | coll4)
		local np=${1#coll}
		# shellcheck disable=SC2046
		{
			run_osu_other "$mpi" "$glibc" "$np" barrier "np$np" "$rep" $(coll_iters small)
			run_osu_other "$mpi" "$glibc" "$np" allreduce "np$np" "$rep" -T mpi_float -m 8:8 $(coll_iters small)
			run_osu_other "$mpi" "$glibc" "$np" allreduce "np${np}l" "$rep" -T mpi_float -m 1048576:1048576 $(coll_iters large)
			run_osu_other "$mpi" "$glibc" "$np" bcast "np$np" "$rep" -m 1048576:1048576 $(coll_iters large)
			run_osu_other "$mpi" "$glibc" "$np" alltoall "np$np" "$rep" -m 1048576:1048576 $(coll_iters large)
			run_osu_other "$mpi" "$glibc" "$np" allgather "np$np" "$rep" -m 1048576:1048576 $(coll_iters large)
		}
		;;
	pt2pt)
		# shellcheck disable=SC2046
		run_osu_other "$mpi" "$glibc" 2 latency pt2pt "$rep" -m 8:8 $(coll_iters small)
		# shellcheck disable=SC2046
		run_osu_other "$mpi" "$glibc" 2 bw pt2pt "$rep" -m 1048576:1048576 $(coll_iters large)
		;;
	abi) # tags abi-*: compare.py's other rows leave these runs out
		# shellcheck disable=SC2046
		{
			for mode in flush lock_all; do
				for bench in put_latency get_latency; do
					run_osu_other "$mpi" "$glibc" 2 "$bench" "abi-$mode" "$rep" -w allocate -s "$mode" -m 8:8 $(iter_args "$bench" "$mode")
				done
			done
			run_osu_other "$mpi" "$glibc" 2 acc_latency abi-flush "$rep" -w allocate -s flush -m 8:8 -T mpi_int $(iter_args acc_latency flush)
			for bench in fop_latency cas_latency; do
				run_osu_other "$mpi" "$glibc" 2 "$bench" abi-flush "$rep" -w allocate -s flush -T mpi_int $(iter_args "$bench" flush)
			done
			run_osu_other "$mpi" "$glibc" 2 put_bw abi-flush "$rep" -w allocate -s flush -m 1048576:1048576 $(iter_args put_bw flush)
			run_osu_other "$mpi" "$glibc" 2 latency abi "$rep" -m 8:8 $(coll_iters small)
			run_osu_other "$mpi" "$glibc" 2 bw abi "$rep" -m 1048576:1048576 $(coll_iters large)
			run_osu_other "$mpi" "$glibc" 2 barrier abi "$rep" $(coll_iters small)
			run_osu_other "$mpi" "$glibc" 2 allreduce abi "$rep" -T mpi_float -m 8:8 $(coll_iters small)
		}
		;;
	winmode) # tags winmode-*: the window creation modes, issue 37
		local w
		# shellcheck disable=SC2046
		for w in create allocate dynamic; do
			run_osu_other "$mpi" "$glibc" 2 put_latency "winmode-$w" "$rep" -w "$w" -s flush -m 8:8 $(iter_args put_latency flush)
			run_osu_other "$mpi" "$glibc" 2 get_latency "winmode-$w" "$rep" -w "$w" -s flush -m 8:8 $(iter_args get_latency flush)
			run_osu_other "$mpi" "$glibc" 2 acc_latency "winmode-$w" "$rep" -w "$w" -s flush -m 8:8 -T mpi_int $(iter_args acc_latency flush)
		done
		# shellcheck disable=SC2046
		run_osu_other "$mpi" "$glibc" 2 put_bw winmode-create "$rep" -w create -s flush -m 1048576:1048576 $(iter_args put_bw flush)
		;;
	esac
}

for rep in $(seq 1 "$REPEAT"); do
	for group in rma win coll2 coll4 pt2pt stream abi winmode; do
		want "${group%[24]}" || continue
		log "repetition $rep of $REPEAT: $group: gshmem"
		gshmem_runs "$group" "$rep"
		[ "$group" = stream ] && continue # gshmem only
		mpis="openmpi mpich"
		[ "$group" = abi ] || [ "$group" = winmode ] && mpis="gabi $mpis" # the ABI right after the Go API's runs
		for mpi in $mpis; do
			for glibc in default norepmovsb; do
				[ "$mpi/$glibc" = gabi/norepmovsb ] && continue # the ABI runs with glibc's defaults only
				[ "$group/$glibc" = winmode/norepmovsb ] && continue # brief: glibc's defaults only
				log "repetition $rep of $REPEAT: $group: $mpi, glibc $glibc"
				osu_runs "$group" "$mpi" "$glibc" "$rep"
			done
		done
	done
done

# --- the table --------------------------------------------------------------
OTHERS=$(for g in $ONLY; do [ "$g" = abi ] || [ "$g" = winmode ] || echo "$g"; done)
# shellcheck disable=SC2086
{
	[ -z "$OTHERS" ] || python3 "$HERE/compare.py" "$RAW" $OTHERS
	if want abi; then
		[ -z "$OTHERS" ] || echo
		python3 "$HERE/compare_abi.py" "$RAW"
	fi
	if want winmode; then
		echo
		python3 "$HERE/compare_winmode.py" "$RAW"
	fi
} | tee "$WORK/table.txt"
echo
echo "raw outputs: $RAW; machine: $(nproc) CPUs, $(uname -r); $(go version | cut -d' ' -f3)"
echo "MPIs: $(mpirun.openmpi --version 2>/dev/null | head -1); MPICH $(mpichversion 2>/dev/null | sed -n 's/^MPICH Version:[[:space:]]*//p')"
echo "took $((SECONDS / 60)) min; load average (1, 5, 15 min) before: $LOAD_BEFORE, after: $(cut -d' ' -f1-3 /proc/loadavg): figures from a loaded machine are noisy"
