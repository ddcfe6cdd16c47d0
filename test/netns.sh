#!/usr/bin/env bash
# netns.sh up N | down — fake hosts for the multi-node tests.
#
# up N: network namespaces ${P}1..${P}N, each with an eth0 veth on a bridge
# that lives in its own namespace ${P}sw, addresses $NET.1..$NET.N/24 inside
# the namespaces only, and a hosts file ($DIR/hosts) naming them. Before
# anything else, the root namespace gets an `unreachable $NET.0/24` route,
# so that no test packet for these addresses can ever leave the machine.
# down: deletes the namespaces (which takes the veths and the bridge), the
# route and $DIR. It never kills anything: it lists processes still inside.
#
# Knobs: GSHMEM_NETNS_PREFIX (P, default gsh), GSHMEM_NETNS_SUBNET (NET,
# default 10.79.0), GSHMEM_NETNS_DIR (default /tmp/gshmem-netns-$P),
# GSHMEM_NETNS_TCP_CC (the hosts' TCP congestion control, e.g. reno; default:
# what a new namespace gets from the machine; a namespace may choose only
# from net.ipv4.tcp_allowed_congestion_control). The congestion control
# changes bandwidth figures: BBR paces each socket with kernel timers, and a
# stream that idles between windows (a put or get window, then quiet) is
# paced at every restart, at the cost of a timer interrupt per burst.
# Run commands "on" a host with netns-exec.sh.
set -euo pipefail
P=${GSHMEM_NETNS_PREFIX:-gsh}
NET=${GSHMEM_NETNS_SUBNET:-10.79.0}
DIR=${GSHMEM_NETNS_DIR:-/tmp/gshmem-netns-$P}
SW="${P}sw"
export PATH=$PATH:/usr/sbin:/sbin

case "${1:-}" in
up)
	N=${2:?usage: netns.sh up N}
	[ "$N" -ge 1 ] && [ "$N" -le 250 ] || { echo "netns.sh: N must be 1..250" >&2; exit 2; }
	if ip netns list | grep -qw "^$SW"; then echo "netns.sh: $SW exists (run netns.sh down)" >&2; exit 1; fi
	if [ -n "${GSHMEM_NETNS_TCP_CC:-}" ]; then
		allowed=$(sysctl -n net.ipv4.tcp_allowed_congestion_control)
		case " $allowed " in
		*" $GSHMEM_NETNS_TCP_CC "*) ;;
		*) echo "netns.sh: congestion control $GSHMEM_NETNS_TCP_CC is not allowed in a namespace here (allowed: $allowed)" >&2; exit 1 ;;
		esac
	fi
	ip route replace unreachable "$NET.0/24" # first: test addresses never route out
	ip netns add "$SW"
	ip -n "$SW" link set lo up
	ip -n "$SW" link add br0 type bridge
	ip -n "$SW" link set br0 up
	mkdir -p "$DIR"
	printf '127.0.0.1 localhost\n::1 localhost ip6-localhost ip6-loopback\n' >"$DIR/hosts"
	for i in $(seq 1 "$N"); do
		h="$P$i"
		ip netns add "$h"
		ip -n "$h" link set lo up
		ip link add eth0 netns "$h" type veth peer name "$h" netns "$SW"
		ip -n "$SW" link set "$h" master br0
		ip -n "$SW" link set "$h" up
		ip -n "$h" addr add "$NET.$i/24" dev eth0
		ip -n "$h" link set eth0 up
		if [ -n "${GSHMEM_NETNS_TCP_CC:-}" ]; then
			ip netns exec "$h" sysctl -qw "net.ipv4.tcp_congestion_control=$GSHMEM_NETNS_TCP_CC"
		fi
		echo "$NET.$i $h" >>"$DIR/hosts"
	done
	echo "$N" >"$DIR/count"
	# Wait until the last host reaches the first (a refused connect is a reply).
	if [ "$N" -ge 2 ]; then
		for _ in $(seq 100); do
			out=$(ip netns exec "$P$N" timeout 1 bash -c "exec 3<>/dev/tcp/$NET.1/9" 2>&1 || true)
			case "$out" in *refused*) break ;; esac
			sleep 0.05
		done
	fi
	echo "netns.sh: ${P}1..${P}$N up on $NET.0/24"
	;;
down)
	for ns in $(ip netns list | awk '{print $1}' | grep -E "^${P}([0-9]+|sw)$" || true); do
		pids=$(ip netns pids "$ns" 2>/dev/null | tr '\n' ' ')
		[ -n "$pids" ] && echo "netns.sh: warning: $ns still has processes: $pids" >&2
		ip netns del "$ns"
	done
	ip route del unreachable "$NET.0/24" 2>/dev/null || true
	rm -rf "$DIR"
	;;
*)
	echo "usage: netns.sh up N | down" >&2
	exit 2
	;;
esac
