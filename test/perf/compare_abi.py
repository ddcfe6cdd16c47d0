#!/usr/bin/env python3
"""The C ABI's table of compare.sh (issue 17).

    compare_abi.py RAW_DIR

RAW_DIR holds compare.sh's abi runs: osu.gabi.default.<bench>.<tag>.<rep>.txt
(OSU built with gshmem's mpicc, run under gshmem run),
osu.<mpi>.<glibc>.<bench>.<tag>.<rep>.txt (the same OSU under Open MPI and
MPICH) and gshmem.abi_<name>.<rep>.json (the same test through the Go API,
gshmem perf). Every figure is the best over the repetitions (lowest latency,
highest bandwidth); the best MPI is the best of both MPIs and both glibc
settings, in the same OSU mode. Two ratios per row: ABI / best MPI against
issue 17's target for the row, and ABI / Go API, the ABI's own cost, within
1.25 x (latency at most 1.25 x the Go API's, bandwidth at least 1 / 1.25 of
it).
"""
import glob
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402  (compare.py beside this file)

# row, OSU bench, OSU tag (abi-MODE for the one-sided tests), size, kind,
# target of ABI / best MPI, the Go API run (gshmem.abi_NAME).
ROWS = [
    ("osu_put_latency 8 B, flush", "put_latency", "abi-flush", 8, "lat", 0.5, "put_latency_flush"),
    ("osu_put_latency 8 B, lock_all", "put_latency", "abi-lock_all", 8, "lat", 0.5, "put_latency_lock_all"),
    ("osu_get_latency 8 B, flush", "get_latency", "abi-flush", 8, "lat", 0.5, "get_latency_flush"),
    ("osu_get_latency 8 B, lock_all", "get_latency", "abi-lock_all", 8, "lat", 0.5, "get_latency_lock_all"),
    ("osu_acc_latency 8 B (int), flush", "acc_latency", "abi-flush", 8, "lat", 0.5, "acc_latency_flush"),
    ("osu_fop_latency 4 B (int), flush", "fop_latency", "abi-flush", 4, "lat", 0.5, "fop_latency_flush"),
    ("osu_cas_latency 4 B (int), flush", "cas_latency", "abi-flush", 4, "lat", 0.5, "cas_latency_flush"),
    ("osu_latency 8 B", "latency", "abi", 8, "lat", 1.0, "latency"),
    ("osu_bw 1 MiB", "bw", "abi", 1 << 20, "bw", 1.0, "bw"),
    ("osu_put_bw 1 MiB, flush", "put_bw", "abi-flush", 1 << 20, "bw", 1.0, "put_bw_flush"),
    ("osu_barrier", "barrier", "abi", 0, "lat", 1.0, "barrier"),
    ("osu_allreduce 8 B (float)", "allreduce", "abi", 8, "lat", 1.0, "allreduce"),
]
GO_API_TARGET = 1.25  # the ABI's figure within 1.25 x the Go API's


def meets(ratio, kind, target):
    """The verdict of ratio (ABI / other) against a latency target (at most
    target) or a bandwidth one (at least target)."""
    if ratio is None:
        return "MISS"
    return compare.verdict(ratio <= target if kind == "lat" else ratio >= target)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    raw = sys.argv[1]
    abi, mpi = {}, {}  # (bench, tag, size) -> figures; -> [(value, label)]
    for who, glibc, bench, tag, size, v in compare.osu_figures(raw):
        if not tag.startswith("abi"):
            continue
        if who == "gabi":
            abi.setdefault((bench, tag, size), []).append(v)
        else:
            label = compare.MPI_NAMES.get(who, who) + (", rep movsb off" if glibc == "norepmovsb" else "")
            mpi.setdefault((bench, tag, size), []).append((v, label))
    g = compare.gshmem_results(raw)

    header = ["row", "ABI", "best MPI", "best MPI is", "ABI/MPI", "target", "verdict",
              "Go API", "ABI/Go", "target", "verdict"]
    table = [header]
    for title, bench, tag, size, kind, target, name in ROWS:
        best = min if kind == "lat" else max
        av = best(abi.get((bench, tag, size), []), default=None)
        cands = mpi.get((bench, tag, size), [])
        mv, who = best(cands) if cands else (None, "-")
        gv = compare.best_gshmem(g, "abi_" + name, size, kind)
        r_mpi = av / mv if av is not None and mv else None
        r_go = av / gv if av is not None and gv else None
        go_target = GO_API_TARGET if kind == "lat" else 1 / GO_API_TARGET
        cmp_ = "<=" if kind == "lat" else ">="
        table.append([title, compare.fmt(av, kind), compare.fmt(mv, kind), who,
                      "-" if r_mpi is None else "%.2f" % r_mpi, "%s %.1f" % (cmp_, target), meets(r_mpi, kind, target),
                      compare.fmt(gv, kind), "-" if r_go is None else "%.2f" % r_go,
                      "%s %.2f" % (cmp_, go_target), meets(r_go, kind, go_target)])

    print("the C ABI (issue 17): OSU built with gshmem's mpicc, run unmodified under gshmem run -n 2")
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    for k, r in enumerate(table):
        print("  ".join(c.ljust(widths[i]) for i, c in enumerate(r)).rstrip())
        if k == 0:
            print("  ".join("-" * w for w in widths).rstrip())
    reps = len({os.path.basename(p).split(".")[2] for p in glob.glob(os.path.join(raw, "gshmem.abi_*.json"))})
    print("best of %d repetitions per figure; ABI and MPI figures are OSU's (latency: mean per operation, "
          "osu_latency one-way); Go API: gshmem perf win_*_latency/win_put_bw --win_flavor allocate in the same "
          "--sync mode, pt2pt_latency, pt2pt_bw, mpi_barrier, mpi_allreduce (8 B: one float64); the rows whose OSU "
          "test reads MPI_Wtime around every operation (all but osu_latency and osu_bw) ran gshmem perf with "
          "--timing op, the same two clock reads per operation" % reps)


if __name__ == "__main__":
    main()
