#!/usr/bin/env bash
# test/perf/mpiio/run.sh [N] [ROUNDS]: MPI-IO bandwidth beside Open MPI's and
# MPICH's (ROMIO/OMPIO) in one sitting, on this machine's local file system:
# a 4-rank write and read of an N x N float array (default 16384: 1 GiB)
# distributed in 2 x 2 blocks through a subarray view, collectively
# (write_at_all/read_at_all) and independently (write_at/read_at), and the
# anchor: one process writing the same bytes with pwrite in 16 MiB pieces.
# Runtimes take turns within each round; the page cache is dropped before
# every run when this runs as root (the script says when it cannot).
#
# Needs mpicc.openmpi, mpicc.mpich (Debian libopenmpi-dev, libmpich-dev) and go. Scratch files go to $WORK
# (default a temporary directory on the file system of /tmp).
set -euo pipefail
N=${1:-16384}
ROUNDS=${2:-3}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
WORK=${WORK:-$(mktemp -d)}
export GSHMEM_TCP_ADDR=${GSHMEM_TCP_ADDR:-127.0.0.1}
(cd "$root" && go build -o "$WORK/gshmem" ./cmd/gshmem)
"$WORK/gshmem" abi install --prefix "$WORK/g" --src "$root" >/dev/null
"$WORK/g/bin/mpicc" -O2 -o "$WORK/bench-gshmem" "$here/mpiio_bench.c"
mpicc.openmpi -O2 -o "$WORK/bench-ompi" "$here/mpiio_bench.c"
mpicc.mpich -O2 -o "$WORK/bench-mpich" "$here/mpiio_bench.c"
drop() {
	sync
	if ! echo 3 >/proc/sys/vm/drop_caches 2>/dev/null; then
		echo "# the page cache was not dropped (not root)"
	fi
}
run() { # runtime mode
	rm -f "$WORK/data"
	drop
	case $1 in
	gshmem) "$WORK/g/bin/mpiexec" -n 4 "$WORK/bench-gshmem" "$WORK/data" "$N" "$2" ;;
	ompi) mpirun.openmpi --allow-run-as-root --oversubscribe --bind-to none -np 4 "$WORK/bench-ompi" "$WORK/data" "$N" "$2" ;;
	mpich) mpiexec.mpich -n 4 "$WORK/bench-mpich" "$WORK/data" "$N" "$2" ;;
	pwrite) "$WORK/bench-gshmem" "$WORK/data" "$N" pwrite ;;
	esac | sed "s/^/$1 /"
}
echo "# N=$N ($((N * N * 4 / 1048576)) MiB), 4 ranks, $(nproc) CPUs, $(date -u +%F)"
echo "# runtime mode phase MiB/s seconds"
for r in $(seq "$ROUNDS"); do
	for rt in gshmem ompi mpich; do
		for m in coll indep; do run "$rt" "$m"; done
	done
	run pwrite x
done
rm -rf "$WORK/data"
