#!/usr/bin/env python3
"""The window creation modes' table of compare.sh (issue 37).

    compare_winmode.py RAW_DIR

RAW_DIR holds compare.sh's winmode runs: osu.<who>.default.<bench>.winmode-<w>.<rep>.txt
for who = gabi (OSU built with gshmem's mpicc, run under gshmem run -n 2),
openmpi and mpich, and w = create, allocate, dynamic (OSU's -w). Every
figure is the best over the repetitions (lowest latency, highest
bandwidth). Per row: the ABI's figure, the better MPI's in the same mode,
ABI / MPI against issue 37's target (latency <= 0.5, osu_put_bw >= 1.0),
and ABI / the ABI's own -w allocate figure (latency <= 1.5): what reaching
the user's memory costs beside the heap's.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402  (compare.py beside this file)

# row, OSU bench, window mode, size, kind, target of ABI / best MPI
ROWS = [(f"osu_{b} {'8 B (int)' if b == 'acc_latency' else '8 B'}, -w {w}", b, w, 8, "lat", 0.5)
        for b in ("put_latency", "get_latency", "acc_latency") for w in ("create", "allocate", "dynamic")]
ROWS.append(("osu_put_bw 1 MiB, -w create", "put_bw", "create", 1 << 20, "bw", 1.0))
OWN_TARGET = 1.5  # a mode's latency at most 1.5 x the ABI's -w allocate


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    abi, mpi = {}, {}
    for who, glibc, bench, tag, size, v in compare.osu_figures(sys.argv[1]):
        if not tag.startswith("winmode-") or glibc != "default":
            continue
        key = (bench, tag[len("winmode-"):], size)
        if who == "gabi":
            abi.setdefault(key, []).append(v)
        else:
            mpi.setdefault(key, []).append((v, compare.MPI_NAMES.get(who, who)))
    header = ["row", "ABI", "best MPI", "best MPI is", "ABI/MPI", "target", "verdict", "ABI/allocate", "target", "verdict"]
    table = [header]
    for title, bench, w, size, kind, target in ROWS:
        best = min if kind == "lat" else max
        av = best(abi.get((bench, w, size), []), default=None)
        cands = mpi.get((bench, w, size), [])
        mv, who = best(cands) if cands else (None, "-")
        r_mpi = av / mv if av is not None and mv else None
        cmp_ = "<=" if kind == "lat" else ">="
        ok = None if r_mpi is None else (r_mpi <= target if kind == "lat" else r_mpi >= target)
        row = [title, compare.fmt(av, kind), compare.fmt(mv, kind), who, "-" if r_mpi is None else "%.2f" % r_mpi,
               "%s %.1f" % (cmp_, target), "MISS" if ok is None else compare.verdict(ok)]
        al = min(abi.get((bench, "allocate", size), []), default=None)
        if kind == "lat" and w != "allocate" and av is not None and al:
            r = av / al
            row += ["%.2f" % r, "<= %.1f" % OWN_TARGET, compare.verdict(r <= OWN_TARGET)]
        else:
            row += ["-", "", ""]
        table.append(row)
    print("window creation modes (issue 37): OSU -s flush through the C ABI (gshmem run -n 2) beside Open MPI and MPICH")
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    for k, r in enumerate(table):
        print("  ".join(c.ljust(widths[i]) for i, c in enumerate(r)).rstrip())
        if k == 0:
            print("  ".join("-" * wd for wd in widths).rstrip())
    print("best over the repetitions; figures are OSU's (latency: mean per operation), bandwidth in GB/s")


if __name__ == "__main__":
    main()
