# Sourced by test/gpu/run.sh for its subcommand "build-p2pab" (the variables and
# helpers it uses are defined there).
#
#   test/gpu/run.sh build-p2pab DIR   on a machine with Go: the A/B of device
#                                 point-to-point (issue 22): this tree's
#                                 cuda-tagged library in DIR/after, the one of
#                                 BASE (a commit, default main) built from
#                                 git archive in DIR/before, cudap2p.c and
#                                 cudap2p_bench.c against each, the GPU test
#                                 binary, and with OSU=<OSU source tree> a
#                                 copy of it (never committed) for the GPU
#                                 machine's own Open MPI.

set -e
cd "$root"
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
ex=$(git rev-parse --git-path info/exclude)
git check-ignore -q "$dir" 2>/dev/null || case $dir in "$root"/*) echo "/${dir#"$root"/}/" >>"$ex" ;; esac
rm -rf "$dir/before" "$dir/after"
GOFLAGS=-tags=cuda go run ./cmd/gshmem abi install --prefix "$dir/after/abi" >/dev/null
src=$(mktemp -d)
git archive "${BASE:-main}" | tar -x -C "$src"
(cd "$src" && GOFLAGS=-tags=cuda go run ./cmd/gshmem abi install --prefix "$dir/before/abi" >/dev/null)
rm -rf "$src" "$dir/before/abi/bin" # after's launcher runs both
for ab in before after; do
	strip --strip-unneeded "$dir/$ab/abi/lib/libmpi_abi.so.1"
	for c in compat/abi/testdata/cudap2p.c compat/abi/testdata/cudacoll.c test/gpu/testdata/cudap2p_bench.c; do
		cc -Wall -Wextra -I "$dir/$ab/abi/include" -I compat/abi/testdata -o "$dir/$ab/$(basename "$c" .c)" "$c" \
			-L "$dir/$ab/abi/lib" -lmpi_abi -lcuda -Wl,-rpath,'$ORIGIN/abi/lib'
	done
done
go test -c -tags cuda -ldflags="-s -w" -o "$dir/gpu.test" ./test/gpu
cp test/gpu/mpi4py_cupy_pingpong.py "$dir/"
if [ -n "${OSU:-}" ]; then
	rm -rf "$dir/osu" && mkdir -p "$dir/osu" && (cd "$OSU" && tar --exclude=autom4te.cache -cf - .) | tar -x -C "$dir/osu"
fi
cp "$0" "$dir/run.sh" && cp -r "$here/run.d" "$dir/"
du -sh "$dir"
exit 0
