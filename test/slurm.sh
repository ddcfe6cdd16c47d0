#!/usr/bin/env bash
# slurm.sh up [--netns N] | down — a throw-away Slurm cluster for the
# launcher tests, as root, without systemd, cgroups or accounting.
#
#   up            one node: this host, daemons in the root network namespace
#   up --netns N  N nodes ${P}1..${P}N made by netns.sh (one slurmd in each,
#                 slurmctld in ${P}1); run clients with netns-exec.sh ${P}1 --
#   down          cancels the cluster's jobs, then stops slurmd(s), slurmctld
#                 and munged by their pid files (checking /proc/PID/exe)
#
# Everything (config, munge key and socket, state, logs, pid files) lives in
# $GSHMEM_SLURM_DIR (default /tmp/gshmem-slurm). Ports: GSHMEM_SLURM_PORT
# (slurmctld, default 16817) and +1 (slurmd). GSHMEM_SLURM_CPUS advertises
# that many CPUs per node (default 8) so that srun -n 8 fits on 2 cores.
# Afterwards: export SLURM_CONF=$GSHMEM_SLURM_DIR/etc/slurm.conf
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BASE=${GSHMEM_SLURM_DIR:-/tmp/gshmem-slurm}
PORT=${GSHMEM_SLURM_PORT:-16817}
CPUS=${GSHMEM_SLURM_CPUS:-8}
P=${GSHMEM_NETNS_PREFIX:-gsh}
NET=${GSHMEM_NETNS_SUBNET:-10.79.0}
export PATH=$PATH:/usr/sbin:/sbin
export SLURM_CONF="$BASE/etc/slurm.conf"

on() { # on NODE CMD...: run on a node (a namespace, or here)
	local h=$1; shift
	if [ "$(cat "$BASE/nnodes" 2>/dev/null || echo 0)" -gt 0 ]; then
		GSHMEM_NETNS_SYSFS=1 "$HERE/netns-exec.sh" "$h" -- "$@"
	else "$@"; fi
}

STOPPED=()
stop_pid() { # stop_pid PIDFILE PROGRAM: TERM it if it is that program
	local f=$1 want pid exe
	want=$(readlink -f "$(command -v "$2")")
	[ -f "$f" ] || return 0
	pid=$(cat "$f")
	if kill -0 "$pid" 2>/dev/null; then
		exe=$(readlink -f "/proc/$pid/exe" 2>/dev/null || true)
		if [ "$exe" != "$want" ]; then echo "slurm.sh: pid $pid is $exe, not $want: left alone" >&2; return 0; fi
		kill -TERM "$pid" && STOPPED+=("$pid")
	fi
	rm -f "$f"
}
reap() { # wait up to 5 s for the TERMed daemons, then KILL what is left
	for _ in $(seq 100); do
		local alive=0
		for p in "${STOPPED[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
		[ "$alive" = 0 ] && return 0
		sleep 0.05
	done
	for p in "${STOPPED[@]}"; do kill -0 "$p" 2>/dev/null && kill -KILL "$p"; done
	return 0
}

case "${1:-}" in
up)
	NN=0
	[ "${2:-}" = "--netns" ] && NN=${3:?--netns N}
	for b in slurmctld slurmd srun sinfo munged; do
		command -v "$b" >/dev/null || { echo "slurm.sh: $b is not installed (run .ci/packages-launchers)" >&2; exit 3; }
	done
	if [ -f "$BASE/run/slurmctld.pid" ] && kill -0 "$(cat "$BASE/run/slurmctld.pid")" 2>/dev/null; then
		echo "slurm.sh: a cluster already runs under $BASE" >&2; exit 1
	fi
	rm -rf "$BASE"
	mkdir -p "$BASE"/{etc,run,log,state,spool,munge}
	chmod 755 "$BASE/munge"
	echo "$NN" >"$BASE/nnodes"
	head -c 1024 /dev/urandom >"$BASE/munge/munge.key"
	chmod 400 "$BASE/munge/munge.key"
	MSOCK="$BASE/munge/munge.socket" # a path: reachable from every namespace
	MEM=$(slurmd -C | head -1 | sed -n 's/.*\(RealMemory=[0-9]*\).*/\1/p')
	HW="CPUs=$CPUS Boards=1 SocketsPerBoard=1 CoresPerSocket=$CPUS ThreadsPerCore=1 $MEM"
	if [ "$NN" -gt 0 ]; then CTL="${P}1($NET.1)"; else
		CTL=$(hostname -s)
		getent hosts "$CTL" >/dev/null || { echo "slurm.sh: host name $CTL does not resolve; add it to /etc/hosts" >&2; exit 1; }
	fi
	cat >"$SLURM_CONF" <<CONF
ClusterName=gshmemtest
SlurmctldHost=$CTL
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MSOCK
StateSaveLocation=$BASE/state
SlurmdSpoolDir=$BASE/spool/%n
SlurmctldPidFile=$BASE/run/slurmctld.pid
SlurmdPidFile=$BASE/run/slurmd-%n.pid
SlurmctldLogFile=$BASE/log/slurmctld.log
SlurmdLogFile=$BASE/log/slurmd-%n.log
MailProg=/bin/true
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
KillWait=2
MinJobAge=10
Waittime=0
CONF
	if [ "$NN" -gt 0 ]; then
		for i in $(seq 1 "$NN"); do echo "NodeName=$P$i NodeAddr=$NET.$i NodeHostname=$P$i $HW State=UNKNOWN" >>"$SLURM_CONF"; done
		NODES="${P}[1-$NN]"
	else
		echo "NodeName=$CTL $HW State=UNKNOWN" >>"$SLURM_CONF"
		NODES=$CTL
	fi
	echo "PartitionName=test Nodes=$NODES Default=YES MaxTime=INFINITE State=UP" >>"$SLURM_CONF"
	# munged refuses root without --force
	munged --force --key-file="$BASE/munge/munge.key" --socket="$MSOCK" --pid-file="$BASE/munge/munged.pid" \
		--log-file="$BASE/munge/munged.log" --seed-file="$BASE/munge/munged.seed"
	for _ in $(seq 100); do [ -S "$MSOCK" ] && break; sleep 0.05; done
	if [ "$NN" -gt 0 ]; then
		on "${P}1" slurmctld -f "$SLURM_CONF"
		for i in $(seq 1 "$NN"); do
			mkdir -p "$BASE/spool/$P$i"
			on "$P$i" slurmd -f "$SLURM_CONF" -N "$P$i" || { tail "$BASE/log/slurmd-$P$i.log" >&2; exit 1; }
		done
		WANT=$NN
	else
		slurmctld -f "$SLURM_CONF"
		mkdir -p "$BASE/spool/$CTL"
		slurmd -f "$SLURM_CONF" -N "$CTL" || { tail "$BASE/log/slurmd-$CTL.log" >&2; exit 1; }
		WANT=1
	fi
	for _ in $(seq 200); do
		n=$(on "${P}1" sinfo -h -N -t idle -o '%N' 2>/dev/null | sort -u | grep -c . || true)
		[ "$n" -ge "$WANT" ] && { echo "slurm.sh: $WANT node(s) idle"; exit 0; }
		sleep 0.1
	done
	echo "slurm.sh: nodes not idle after 20 s; logs in $BASE/log" >&2
	tail -n 20 "$BASE"/log/*.log >&2 || true
	exit 1
	;;
down)
	[ -d "$BASE" ] || exit 0
	if [ -f "$BASE/run/slurmctld.pid" ] && kill -0 "$(cat "$BASE/run/slurmctld.pid")" 2>/dev/null; then
		on "${P}1" scancel --quiet --user=root 2>/dev/null || true
	fi
	for f in "$BASE"/run/slurmd-*.pid; do [ -e "$f" ] && stop_pid "$f" slurmd; done
	stop_pid "$BASE/run/slurmctld.pid" slurmctld
	reap
	STOPPED=()
	stop_pid "$BASE/munge/munged.pid" munged
	reap
	# a slurmstepd of this cluster (it carries our SLURM_CONF), by PID
	for p in $(pgrep -x slurmstepd 2>/dev/null || true); do
		if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "SLURM_CONF=$SLURM_CONF"; then kill -TERM "$p" 2>/dev/null || true; fi
	done
	rm -rf "$BASE"
	;;
*)
	echo "usage: slurm.sh up [--netns N] | down" >&2
	exit 2
	;;
esac
