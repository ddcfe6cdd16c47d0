#!/usr/bin/env bash
# startup.sh [N...]: how long a job of N processes takes to start and end,
# gshmem run -n N of a program that only calls shmem.Init and Finalize
# (test/perf/initfini) beside Open MPI's mpirun --oversubscribe -np N of a
# program that only calls MPI_Init and MPI_Finalize (mpi_initfini.c, built
# here with mpicc.openmpi), in the same run. Default N: 16 64 256.
#
#   test/perf/startup.sh            # prints a table; commit it as startup-DATE.txt
#
# It installs nothing: it needs go and, for the MPI column, Debian's Open MPI
# (mpicc.openmpi, mpirun.openmpi); without them the column says "-". Each
# figure is the best of REPEAT runs (default 3) of wall-clock seconds.
# gshmem run gets --oversubscribe as mpirun does: these jobs are larger than
# the node on purpose.
set -euo pipefail
cd "$(dirname "$0")/../.."
ns=("$@")
[ ${#ns[@]} -gt 0 ] || ns=(16 64 256)
repeat=${REPEAT:-3}
work=$(mktemp -d /tmp/gshmem-startup.XXXXXX)
trap 'rm -rf "$work"' EXIT
export GSHMEM_TCP_ADDR=${GSHMEM_TCP_ADDR:-127.0.0.1}

go build -o "$work/gshmem" ./cmd/gshmem
go build -o "$work/initfini" ./test/perf/initfini
mpi=""
asroot=()
[ "$(id -u)" != 0 ] || asroot=(--allow-run-as-root) # containers and CI VMs
if command -v mpicc.openmpi >/dev/null && command -v mpirun.openmpi >/dev/null; then
	mpicc.openmpi -O2 -o "$work/mpi_initfini" test/perf/mpi_initfini.c && mpi=mpirun.openmpi
fi

# best CMD...: the fastest of $repeat runs, in seconds; "fail" if one fails.
best() {
	local b="" t s e
	for _ in $(seq "$repeat"); do
		s=$(date +%s.%N)
		"$@" >/dev/null 2>"$work/err" || {
			echo fail
			{ echo "$* failed:"; head -5 "$work/err"; } >>"$work/notes"
			return
		}
		e=$(date +%s.%N)
		t=$(echo "$e - $s" | bc)
		if [ -z "$b" ] || [ "$(echo "$t < $b" | bc)" = 1 ]; then b=$t; fi
	done
	printf '%.2f' "$b"
}

echo "# start-up and shutdown of N processes, best of $repeat, seconds ($(nproc) CPUs, $(date -u +%Y-%m-%d))"
printf '%-6s %-12s %-12s %s\n' N gshmem "Open MPI" "gshmem/MPI"
for n in "${ns[@]}"; do
	g=$(best "$work/gshmem" run --oversubscribe -n "$n" "$work/initfini")
	m=-
	ratio=-
	if [ -n "$mpi" ]; then
		m=$(best "$mpi" "${asroot[@]}" --oversubscribe --bind-to none -np "$n" "$work/mpi_initfini")
		if [ "$m" != fail ] && [ "$g" != fail ]; then ratio=$(echo "scale=2; $g / $m" | bc); fi
	fi
	printf '%-6s %-12s %-12s %s\n' "$n" "$g" "$m" "$ratio"
done
if [ -s "$work/notes" ]; then
	echo
	cat "$work/notes"
fi
