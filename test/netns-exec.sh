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
if [ "${1:-}" = "--" ]; then shift; MODE=argv; else MODE=sh; fi
# GSHMEM_NETNS_SYSFS=1 (for slurmd): a fresh /sys showing this namespace's
# interfaces, with the cgroup mounts carried over onto it, because slurmd
# 22.05 refuses to start without /sys/fs/cgroup.
mkdir -p "$DIR/cg"
exec nsenter --net="/run/netns/$NS" -- unshare --uts --mount --propagation private \
	/bin/sh -c 'hostname "$1"; mount --bind "$2" /etc/hosts
		if [ "${GSHMEM_NETNS_SYSFS:-0}" = 1 ]; then
			mount --rbind /sys/fs/cgroup "$4" && umount -l /sys && mount -t sysfs sysfs /sys && mount --move "$4" /sys/fs/cgroup
		fi
		mode=$3; shift 4
		if [ "$mode" = argv ]; then exec "$@"; else exec /bin/sh -c "$*"; fi' \
	netns-exec "$NS" "$DIR/hosts" "$MODE" "$DIR/cg" "$@"
