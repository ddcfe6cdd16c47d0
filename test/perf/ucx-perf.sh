#!/usr/bin/env bash
# ucx-perf.sh: issue 23's "must show" figures between two network-namespace
# hosts, in one run: gshmem over its own tcp transport, gshmem over the ucx
# transport, and ucx_perftest (Debian's ucx-utils) as UCX's raw floor, all
# with the same UCX_TLS and UCX_NET_DEVICES.
#
#   sudo test/perf/ucx-perf.sh            (root: it creates namespaces)
#
# Figures (PE 0 on host 1, PE 1 on host 2, one PE per host, mpiexec.hydra
# through netns-exec.sh as through ssh):
#
#   put 8 B + quiet   gshmem perf put_latency      ucx_perftest ucp_put_lat (x2, see below)
#   get 8 B           gshmem perf get_latency      ucx_perftest ucp_fadd (see below)
#   fetch-add 8 B     gshmem perf atomic_latency   ucx_perftest ucp_fadd
#   put bw 64K, 1M    gshmem perf put_bw           ucx_perftest ucp_put_bw -O WINDOW
#   get bw 64K, 1M    gshmem perf get_bw           ucx_perftest ucp_get -O WINDOW
#
# ucp_put_lat is a ping-pong (each side puts, the other polls memory) and
# reports half its round trip; a put completed by a flush (put + quiet)
# needs the whole round trip, so its floor is twice that figure. Both are
# printed. Over an emulated lane (UCX_TLS=tcp) a get and a fetch-add are the
# same exchange, a request the target's progress answers with one reply, so
# ucp_fadd is get's floor too: ucx_perftest 1.13's ucp_get times no single
# get there (its responder progresses once per iteration of its own loop,
# runs out of iterations early and then serves the remaining gets once per
# millisecond, from the poll of its out-of-band barrier: ~1100 us per 8-byte
# get, the floor of the tables before session 8). ucx_perftest gets the UCX
# settings the transport changes unless the user set them (64 KiB segments for UCX's tcp transport: see
# ucxDefaults in shmem/internal/transport/ucx_cgo.go), so that both ucx
# columns run the same UCX. Every figure runs ROUNDS times: in a round each
# group of figures (latencies, put bandwidth, get bandwidth) runs on every
# runtime back to back, in an order that turns each round, and the table
# shows the median of the rounds (the raw outputs stay in WORK). Ratios:
# ucx / ucx_perftest (targets: latency at most 1.25 x, bandwidth at least
# 0.8 x), ucx / tcp, and the paired ratio (ucx-perf.py).
#
# Environment:
#   ROUNDS=3            rounds
#   UCX_TLS=tcp         UCX transports for both ucx columns
#   UCX_NET_DEVICES=eth0
#   WINDOW=64           messages in flight in the bandwidth tests
#   LAT_ITERS=10000     timed iterations of a latency figure
#   BW_ITERS=100        timed windows of a bandwidth figure (per size)
#   WORK=DIR            scratch and raw outputs (default a new /tmp dir)
#   GSHMEM=BIN          a gshmem built with -tags ucx (default: built here)
#   GSHMEM_B=BIN        a second one (an A/B in one sitting: its ucx figures
#                       run in every round too, and the table gets a
#                       "ucx B" column)
#   MAXLOAD=4           before each round, wait (up to WAIT_MAX seconds,
#                       default 300) for the 1-minute load average to fall
#                       below MAXLOAD, so that others' jobs skew less; the
#                       load is printed with every round
#   GSHMEM_NETNS_PREFIX, GSHMEM_NETNS_SUBNET   the hosts' names and subnet
#                       (default uxp, 10.88.0): test/netns.sh's knobs
#   GSHMEM_NETNS_CPUS=K each host's processes run on K CPUs of their own
#                       (test/netns-exec.sh; default half the machine's),
#                       as on two real hosts; set it empty for hosts that
#                       share every CPU (then the two PEs' runtimes, each
#                       sized for all of them, and the network crowd the
#                       same CPUs: figures swing more, ucx_perftest, one
#                       thread a side, less)
#   GSHMEM_NETNS_TCP_CC the hosts' TCP congestion control (test/netns.sh;
#                       default the machine's, printed in the header). BBR
#                       paces every restart of a stream with kernel timers:
#                       gshmem perf's bandwidth tests (a window, then quiet,
#                       as OSU's) restart after every window, ucx_perftest's
#                       (-O WINDOW requests in flight throughout) once
#
# The namespaces are created by test/netns.sh (which first gives their
# subnet an `unreachable` route in the root namespace, so no test packet
# leaves the machine) and removed on exit, with every process this script
# started. Figures are not asserted: the machine may be shared.
set -euo pipefail

usage() { awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"; exit 2; }
[ $# -eq 0 ] || usage
HERE=$(cd "$(dirname "$0")" && pwd)
TEST=$(cd "$HERE/.." && pwd)
ROOT=$(cd "$TEST/.." && pwd)
ROUNDS=${ROUNDS:-3}
WINDOW=${WINDOW:-64}
LAT_ITERS=${LAT_ITERS:-10000}
BW_ITERS=${BW_ITERS:-100}
export UCX_TLS=${UCX_TLS:-tcp} UCX_NET_DEVICES=${UCX_NET_DEVICES:-eth0}
export UCX_TCP_TX_SEG_SIZE=${UCX_TCP_TX_SEG_SIZE:-64k} UCX_TCP_RX_SEG_SIZE=${UCX_TCP_RX_SEG_SIZE:-64k}
export GSHMEM_NETNS_PREFIX=${GSHMEM_NETNS_PREFIX:-uxp} GSHMEM_NETNS_SUBNET=${GSHMEM_NETNS_SUBNET:-10.88.0}
export GSHMEM_NETNS_DIR=${GSHMEM_NETNS_DIR:-/tmp/gshmem-netns-$GSHMEM_NETNS_PREFIX}
export GSHMEM_NETNS_CPUS=${GSHMEM_NETNS_CPUS-$((($(nproc --all) + 1) / 2))}
P=$GSHMEM_NETNS_PREFIX
for c in mpiexec.hydra ucx_perftest python3 ip; do
	command -v "$c" >/dev/null || { echo "ucx-perf.sh: needs $c (mpich, ucx-utils, python3, iproute2)" >&2; exit 2; }
done
[ "$(id -u)" = 0 ] || { echo "ucx-perf.sh: run as root (network namespaces)" >&2; exit 2; }
WORK=${WORK:-$(mktemp -d /tmp/gshmem-ucx-perf.XXXXXX)}
mkdir -p "$WORK/raw"
if [ -z "${GSHMEM:-}" ]; then
	GSHMEM=$WORK/gshmem
	(cd "$ROOT" && go build -tags ucx -o "$GSHMEM" ./cmd/gshmem)
	BUILT="gshmem $(cd "$ROOT" && git rev-parse --short HEAD 2>/dev/null || echo '?')$(cd "$ROOT" && git diff --quiet 2>/dev/null || echo '+dirty')"
else
	BUILT="gshmem $GSHMEM (GSHMEM, not built here)"
fi
if [ -n "${GSHMEM_B:-}" ]; then
	BUILT="$BUILT; ucx B: $GSHMEM_B (GSHMEM_B)"
fi

pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	"$TEST/netns.sh" down
}
trap cleanup EXIT
"$TEST/netns.sh" up 2 >/dev/null
EXEC=$TEST/netns-exec.sh
CC=$(ip netns exec "${P}1" sysctl -n net.ipv4.tcp_congestion_control)
HOST2=$GSHMEM_NETNS_SUBNET.2

# gshmem BIN TRANSPORT NAME TEST ARGS...: one gshmem perf job across the hosts.
gshmem() {
	local bin=$1 tr=$2 name=$3 test=$4
	shift 4
	timeout 300 "$EXEC" "${P}1" -- mpiexec.hydra -launcher rsh -launcher-exec "$EXEC" -hosts "${P}1:1,${P}2:1" -n 2 \
		-genv GSHMEM_REMOTE_TRANSPORT "$tr" -genv UCX_TLS "$UCX_TLS" -genv UCX_NET_DEVICES "$UCX_NET_DEVICES" \
		-genv UCX_TCP_TX_SEG_SIZE "$UCX_TCP_TX_SEG_SIZE" -genv UCX_TCP_RX_SEG_SIZE "$UCX_TCP_RX_SEG_SIZE" \
		"$bin" perf "$test" --json "$WORK/raw/$name.json" "$@" >"$WORK/raw/$name.txt" 2>&1 ||
		{ echo "ucx-perf.sh: gshmem perf $test over $tr failed:" >&2; cat "$WORK/raw/$name.txt" >&2; exit 1; }
}

port=$((13000 + RANDOM % 2000))
# perftest NAME ARGS...: ucx_perftest's server on host 2, its client on host 1.
perftest() {
	local name=$1
	shift
	port=$((port + 1))
	"$EXEC" "${P}2" -- ucx_perftest -p "$port" >"$WORK/raw/$name.server.txt" 2>&1 &
	local srv=$!
	pids+=("$srv")
	local up=0
	for _ in $(seq 200); do
		if ip netns exec "${P}2" ss -Hltn "sport = :$port" | grep -q .; then up=1; break; fi
		sleep 0.05
	done
	[ $up = 1 ] || { echo "ucx-perf.sh: ucx_perftest's server on ${P}2 did not listen on $port" >&2; exit 1; }
	timeout 300 "$EXEC" "${P}1" -- ucx_perftest "$HOST2" -p "$port" -f -v "$@" >"$WORK/raw/$name.csv" 2>&1 ||
		{ echo "ucx-perf.sh: ucx_perftest $* failed:" >&2; cat "$WORK/raw/$name.csv" >&2; exit 1; }
	wait "$srv" 2>/dev/null || true
}

lat=(--min_size 8 --max_size 8 --iters "$LAT_ITERS")
bw=(--min_size 64k --max_size 1m --step 16 --iters "$BW_ITERS" --window "$WINDOW")
MAXLOAD=${MAXLOAD:-4}
WAIT_MAX=${WAIT_MAX:-300}
settle() {
	local waited=0
	while awk -v m="$MAXLOAD" '{ exit !($1 >= m) }' /proc/loadavg && [ $waited -lt "$WAIT_MAX" ]; do
		sleep 5
		waited=$((waited + 5))
	done
}
# group RUNTIME GROUP R: one runtime's runs of one group of figures.
group() {
	local rt=$1 g=$2 r=$3 bin=$GSHMEM tr=ucx s n
	case $rt in
	tcp) tr=tcp ;;
	ucxb) bin=$GSHMEM_B ;;
	esac
	case $rt.$g in
	pt.lat)
		perftest "pt.put_lat.$r" -t ucp_put_lat -s 8 -n "$LAT_ITERS" -w 300
		perftest "pt.fadd_lat.$r" -t ucp_fadd -s 8 -n "$LAT_ITERS" -w 300
		;;
	pt.put | pt.get)
		for s in 65536 1048576; do
			n=$((BW_ITERS * WINDOW))
			if [ "$g" = put ]; then
				perftest "pt.put_bw.$s.$r" -t ucp_put_bw -s "$s" -n "$n" -w $((n / 10)) -O "$WINDOW"
			else
				perftest "pt.get_bw.$s.$r" -t ucp_get -s "$s" -n "$n" -w $((n / 10)) -O "$WINDOW"
			fi
		done
		;;
	*.lat)
		gshmem "$bin" "$tr" "$rt.put_lat.$r" put_latency "${lat[@]}"
		gshmem "$bin" "$tr" "$rt.get_lat.$r" get_latency "${lat[@]}"
		gshmem "$bin" "$tr" "$rt.fadd_lat.$r" atomic_latency --op fetch_add --datatype int64 --iters "$LAT_ITERS"
		;;
	*) gshmem "$bin" "$tr" "$rt.${g}_bw.$r" "${g}_bw" "${bw[@]}" ;;
	esac
}
# Each group of figures runs on every runtime back to back, the runtimes'
# order turning by one each round: a runtime's figure and its anchor are
# seconds apart (the paired ratio compares them), and none always runs
# after the others' memory and CPU churn.
runtimes=(tcp ucx)
[ -z "${GSHMEM_B:-}" ] || runtimes+=(ucxb)
runtimes+=(pt)
for r in $(seq "$ROUNDS"); do
	settle
	echo "round $r of $ROUNDS (load $(cut -d' ' -f1-3 /proc/loadavg))" | tee -a "$WORK/loads" >&2
	k=${#runtimes[@]}
	for g in lat put get; do
		for i in $(seq 0 $((k - 1))); do
			group "${runtimes[$(((i + r) % k))]}" "$g" "$r"
		done
	done
done

{
	echo "# test/perf/ucx-perf.sh (ROUNDS=$ROUNDS UCX_TLS=$UCX_TLS UCX_NET_DEVICES=$UCX_NET_DEVICES WINDOW=$WINDOW LAT_ITERS=$LAT_ITERS BW_ITERS=$BW_ITERS)"
	echo "# UCX_TCP_TX_SEG_SIZE=$UCX_TCP_TX_SEG_SIZE UCX_TCP_RX_SEG_SIZE=$UCX_TCP_RX_SEG_SIZE for both ucx columns"
	echo "# GSHMEM_NETNS_CPUS=$GSHMEM_NETNS_CPUS ($([ -n "$GSHMEM_NETNS_CPUS" ] && echo "CPUs of its own per host" || echo "the hosts share every CPU"))"
	echo "# TCP congestion control on the hosts: $CC${GSHMEM_NETNS_TCP_CC:+ (GSHMEM_NETNS_TCP_CC)}"
	echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg) at the end; $(ucx_info -v | head -1 | sed 's/^# *//')"
	sed 's/^/# /' "$WORK/loads"
	echo "# $BUILT; raw outputs in $WORK/raw"
	python3 "$HERE/ucx-perf.py" "$WORK/raw" "$ROUNDS"
} | tee "$WORK/table.txt"
