#!/usr/bin/env bash
# win-create.sh: what MPI_Win_create and MPI_Win_free cost on a large
# buffer through gshmem's C ABI beside Open MPI, in one run (issue 37):
# win_create_time.c built unchanged with each library's mpicc, 2
# processes, a buffer whose every page holds data ("touched", the usual
# case) and one malloc left untouched ("fresh"), best of REPEAT runs
# (default 3), and the ratio gshmem / Open MPI.
#
#   test/perf/win-create.sh [MIB]     # default 1024 MiB per rank
#
# It needs go, gcc and Debian's Open MPI (mpicc.openmpi, mpirun.openmpi);
# without them the Open MPI column says "-".
set -euo pipefail
cd "$(dirname "$0")/../.."
mib=${1:-1024}
repeat=${REPEAT:-3}
work=$(mktemp -d /tmp/gshmem-wincreate.XXXXXX)
trap 'rm -rf "$work"' EXIT
export GSHMEM_TCP_ADDR=${GSHMEM_TCP_ADDR:-127.0.0.1}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

go build -o "$work/gshmem" ./cmd/gshmem
"$work/gshmem" abi install --prefix "$work/abi" >/dev/null
"$work/abi/bin/mpicc" -O2 -o "$work/gshmem_wc" test/perf/win_create_time.c
have_ompi=
if command -v mpicc.openmpi >/dev/null && command -v mpirun.openmpi >/dev/null; then
	mpicc.openmpi -O2 -o "$work/ompi_wc" test/perf/win_create_time.c
	have_ompi=1
fi
for rep in $(seq 1 "$repeat"); do
	for mode in touched fresh; do
		"$work/abi/bin/mpiexec" -np 2 "$work/gshmem_wc" "$mib" "$mode" | sed 's/^/gshmem /'
		[ -z "$have_ompi" ] || mpirun.openmpi -np 2 --oversubscribe "$work/ompi_wc" "$mib" "$mode" | sed 's/^/ompi /'
	done
done >"$work/raw.txt"
python3 - "$work/raw.txt" "$mib" <<'PY'
import sys
best = {}
for line in open(sys.argv[1]):
    who, what, mode, _mib, secs = line.split()
    k = (who, what, mode)
    best[k] = min(best.get(k, float("inf")), float(secs))
print("MPI_Win_create / MPI_Win_free of %s MiB per rank, 2 processes, best of the runs (seconds)" % sys.argv[2])
print("%-8s %-8s %10s %10s %8s" % ("call", "buffer", "gshmem", "Open MPI", "ratio"))
for what in ("create", "free"):
    for mode in ("touched", "fresh"):
        g, o = best.get(("gshmem", what, mode)), best.get(("ompi", what, mode))
        r = "%.1f" % (g / o) if g is not None and o else "-"
        print("%-8s %-8s %10s %10s %8s" % (what, mode, "%.4f" % g if g is not None else "-", "%.4f" % o if o is not None else "-", r))
PY
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
