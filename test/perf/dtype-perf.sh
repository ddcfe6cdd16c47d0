#!/usr/bin/env bash
# dtype-perf.sh: derived-datatype ping-pong and MPI_Pack bandwidth through
# gshmem's C ABI beside Open MPI (and MPICH when installed), in one run:
# dtype_pingpong.c built unchanged with each library's mpicc, 2 processes;
# then pack_bench.c (MPI_Pack/Unpack of 1 MiB stride-2 vectors of ints,
# doubles and complex doubles against memcpy), 1 process, pinned to a core.
#
#   test/perf/dtype-perf.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d /tmp/gshmem-dtype.XXXXXX)
trap 'rm -rf "$work"' EXIT
export GSHMEM_TCP_ADDR=${GSHMEM_TCP_ADDR:-127.0.0.1}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
go build -o "$work/gshmem" ./cmd/gshmem
"$work/gshmem" abi install --prefix "$work/abi" >/dev/null
"$work/abi/bin/mpicc" -O2 -o "$work/g" test/perf/dtype_pingpong.c
"$work/abi/bin/mpicc" -O2 -o "$work/gp" test/perf/pack_bench.c
echo "== gshmem"
"$work/abi/bin/mpiexec" -np 2 "$work/g" </dev/null
taskset -c 0 "$work/abi/bin/mpiexec" -np 1 "$work/gp" </dev/null
if command -v mpicc.openmpi >/dev/null; then
	mpicc.openmpi -O2 -o "$work/o" test/perf/dtype_pingpong.c
	mpicc.openmpi -O2 -o "$work/op" test/perf/pack_bench.c
	echo "== Open MPI"
	mpirun.openmpi -np 2 --bind-to core "$work/o" </dev/null
	taskset -c 0 mpirun.openmpi -np 1 "$work/op" </dev/null
fi
if command -v mpicc.mpich >/dev/null; then
	mpicc.mpich -O2 -o "$work/m" test/perf/dtype_pingpong.c
	mpicc.mpich -O2 -o "$work/mp" test/perf/pack_bench.c
	echo "== MPICH"
	mpiexec.mpich -np 2 "$work/m" </dev/null
	taskset -c 0 mpiexec.mpich -np 1 "$work/mp" </dev/null
fi
