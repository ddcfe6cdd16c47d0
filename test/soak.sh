#!/bin/sh
# soak.sh SECONDS [BUSY_PER_CPU]: test/testdata/soak/soak.c (4 PEs over
# shared memory through the C ABI: point-to-point, collectives and RMA,
# every value and count checked) under gshmem run for SECONDS, beside
# BUSY_PER_CPU busy loops per CPU (default 3; bounded by timeout, ended by
# PID), with the default GSHMEM_PEER_TIMEOUT. It prints the load average
# every 30 s and the job's result: a PE falsely declared lost ends the job
# with the lost class naming it. GSHMEM_SOAK_PREFIX reuses an installed
# prefix (gshmem abi install --prefix DIR).
set -eu
secs=${1:-180}
busy=${2:-3}
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
prefix=${GSHMEM_SOAK_PREFIX:-$tmp/prefix}
if [ ! -x "$prefix/bin/mpicc" ]; then
	go run ./cmd/gshmem abi install --prefix "$prefix" >/dev/null
fi
"$prefix/bin/mpicc" -O2 -o "$tmp/soak" test/testdata/soak/soak.c
export GSHMEM_TCP_ADDR=127.0.0.1
unset GSHMEM_PEER_TIMEOUT
pids=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
n=$(($(nproc) * busy))
for _ in $(seq "$n"); do
	timeout $((secs + 120)) sh -c 'while :; do :; done' &
	pids="$pids $!"
done
(while sleep 30; do echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"; done) &
pids="$pids $!"
echo "soak: 4 PEs for ${secs}s beside $n busy loops on $(nproc) CPUs; load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
t0=$(date +%s)
rc=0
"$prefix/bin/gshmem" run -n 4 "$tmp/soak" "$secs" || rc=$?
echo "soak: job exit $rc after $(($(date +%s) - t0))s; load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
exit "$rc"
