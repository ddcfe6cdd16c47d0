# calls-lib.sh: what abi-calls.sh and shmem-calls.sh share (sourced).
#
# calls_run WORK REPEAT "ROWS" LIB...: REPEAT interleaved rounds, in each
# every row runs as one job of every library in turn (${run[LIB]} ROW,
# from the caller's associative array run; a library without one is
# skipped), so that a library that fails a row loses only that row; output
# goes to WORK/LIB.out, failures to WORK/notes.
calls_run() {
	local work=$1 repeat=$2 rows=$3 row lib
	shift 3
	for _ in $(seq "$repeat"); do
		for row in $rows; do
			for lib in "$@"; do
				[ -n "${run[$lib]:-}" ] || continue
				timeout 300 ${run[$lib]} "$row" >>"$work/$lib.out" 2>>"$work/$lib.err" ||
					echo "$lib: $row failed (exit $?)" >>"$work/notes"
			done
		done
	done
}

# calls_notes WORK: the failures calls_run recorded, once each.
calls_notes() {
	if [ -s "$1/notes" ]; then
		sort -u "$1/notes"
	fi
}
