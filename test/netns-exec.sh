#!/usr/bin/env bash
# netns-exec.sh HOST [--] CMD [ARGS...] — run CMD "on" fake host HOST (a
# namespace made by netns.sh, or its address): in its network namespace,
# with its own UTS namespace (hostname HOST) and a mount namespace whose
# /etc/hosts names every fake host. /dev/shm and /tmp stay shared, as the
# runtime must not be fooled by them.
#
# With "--", argv passes through untouched. Without it, it behaves like ssh
# (leading -options skipped, the words run by sh -c), so launchers can use
# it as their remote shell:
#   mpiexec.hydra -launcher rsh -launcher-exec netns-exec.sh -hosts h1,h2 ...
set -euo pipefail
P=${GSHMEM_NETNS_PREFIX:-gsh}
NET=${GSHMEM_NETNS_SUBNET:-10.79.0}
DIR=${GSHMEM_NETNS_DIR:-/tmp/gshmem-netns-$P}
export PATH=$PATH:/usr/sbin:/sbin
while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do
	case "$1" in -l | -p | -o | -i | -F) shift 2 ;; *) shift ;; esac
done
HOST=${1:?usage: netns-exec.sh HOST [--] CMD...}
shift
case "$HOST" in
"$NET".*) NS="$P${HOST##*.}" ;;
*) NS="${HOST%%.*}" ;;
esac
[ -e "/run/netns/$NS" ] || { echo "netns-exec.sh: no namespace $NS (host $HOST)" >&2; exit 255; }
# GSHMEM_NETNS_CPUS=K: host i runs on CPUs (i-1)*K .. i*K-1 of the machine
# (modulo its CPU count), as real hosts do not share their CPUs: without
# it two fake hosts' processes, each sized for every CPU, crowd the same
# ones (a gshmem PE sets a P per CPU it may use; ucx_perftest is one thread).
PIN=()
if [ -n "${GSHMEM_NETNS_CPUS:-}" ] && [ "${NS#"$P"}" -gt 0 ] 2>/dev/null; then
	k=$GSHMEM_NETNS_CPUS n=$(nproc --all) i=$((${NS#"$P"} - 1)) cpus=
	for j in $(seq 0 $((k - 1))); do cpus=$cpus${cpus:+,}$(((i * k + j) % n)); done
	PIN=(taskset -c "$cpus")
fi
if [ "${1:-}" = "--" ]; then shift; MODE=argv; else MODE=sh; fi
# GSHMEM_NETNS_SYSFS=1 (for slurmd): a fresh /sys showing this namespace's
# interfaces, with the cgroup mounts carried over onto it, because slurmd
# 22.05 refuses to start without /sys/fs/cgroup.
mkdir -p "$DIR/cg"
exec "${PIN[@]}" nsenter --net="/run/netns/$NS" -- unshare --uts --mount --propagation private \
	/bin/sh -c 'hostname "$1"; mount --bind "$2" /etc/hosts
		if [ "${GSHMEM_NETNS_SYSFS:-0}" = 1 ]; then
			mount --rbind /sys/fs/cgroup "$4" && umount -l /sys && mount -t sysfs sysfs /sys && mount --move "$4" /sys/fs/cgroup
		fi
		mode=$3; shift 4
		if [ "$mode" = argv ]; then exec "$@"; else exec /bin/sh -c "$*"; fi' \
	netns-exec "$NS" "$DIR/hosts" "$MODE" "$DIR/cg" "$@"
