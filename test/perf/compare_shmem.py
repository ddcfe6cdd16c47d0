#!/usr/bin/env python3
"""The OpenSHMEM table of compare.sh (issue 40).

    compare_shmem.py RAW_DIR

RAW_DIR holds compare.sh's shmem runs: osu.<who>.<glibc>.oshm_<bench>.<mode>.<rep>.txt,
OSU 7.4's c/openshmem tests built with gshmem's oshcc (who gshm, run under
gshmem run) and with Debian's Open MPI oshcc (who oshmem, under its oshrun),
mode heap or global. Every figure is the best over the repetitions (and, for
Open MPI, over both glibc settings); all are latencies in us. Two ratios per
row: gshmem / Open MPI against issue 40's target, and for a global row
gshmem's global / heap (at most 1.25 x).
"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402  (compare.py beside this file)

ATOMIC_LINE = re.compile(r"^(shmem_\w+)\s+([0-9.]+)\s+([0-9.]+)\s*$")  # op, Mops/s, latency
MIB = 1 << 20

# row, bench, what (a size, or an atomic's operation), target of gshmem / Open MPI (None: shown only)
ROWS = []
for bench in ("put", "get"):
    ROWS += [("osu_oshm_%s 8 B" % bench, bench, 8, 0.5), ("osu_oshm_%s 1 MiB" % bench, bench, MIB, 1.0)]
for bench in ("put_nb", "get_nb"):
    ROWS += [("osu_oshm_%s 8 B" % bench, bench, 8, None), ("osu_oshm_%s 1 MiB" % bench, bench, MIB, None)]
for t in ("int", "longlong"):
    for op in ("fadd", "finc", "add", "inc", "swap", "cswap", "fetch", "set"):
        ROWS.append(("osu_oshm_atomics %s_%s" % (t, op), "atomics", "shmem_%s_%s" % (t, op), 0.5))
ROWS += [
    ("osu_oshm_barrier", "barrier", 0, 0.5),
    ("osu_oshm_broadcast 8 B", "broadcast", 8, None),
    ("osu_oshm_broadcast 1 MiB", "broadcast", MIB, None),
    ("osu_oshm_fcollect 8 B", "fcollect", 8, None),
    ("osu_oshm_fcollect 1 MiB", "fcollect", MIB, None),
    ("osu_oshm_reduce 8 B", "reduce", 8, None),
    ("osu_oshm_reduce 1 MiB", "reduce", MIB, None),
]
POINT = {"put", "get", "put_nb", "get_nb", "atomics"}  # the tests with heap and global modes
GLOBAL_TARGET = 1.25


def figures(raw):
    """{(who, bench, mode, what): [latency]}: what is the size, or the
    atomic operation's name."""
    res = {}
    # A run that failed (kept as .txt.failed) counts for the atomic
    # operations it printed before it ended: each line is a whole
    # measurement (Open MPI 4.1's OpenSHMEM ends osu_oshm_atomics with a
    # stack smash in liboshmem after the int rows here).
    for path in glob.glob(os.path.join(raw, "osu.*.txt")) + glob.glob(os.path.join(raw, "osu.*.txt.failed")):
        _, who, _glibc, bench, mode, _rep = os.path.basename(path).split(".")[:6]
        if not bench.startswith("oshm_"):
            continue
        bench = bench[len("oshm_"):]
        if path.endswith(".failed") and bench != "atomics":
            continue
        with open(path) as f:
            for line in f:
                if bench == "atomics":
                    m = ATOMIC_LINE.match(line)
                    if m:
                        res.setdefault((who, bench, mode, m.group(1)), []).append(float(m.group(3)))
                    continue
                m = compare.OSU_LINE.match(line)
                if m:
                    res.setdefault((who, bench, mode, int(m.group(1))), []).append(float(m.group(2)))
                elif bench == "barrier" and compare.OSU_NOSIZE.match(line):
                    res.setdefault((who, bench, mode, 0), []).append(float(compare.OSU_NOSIZE.match(line).group(1)))
    return res


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    fig = figures(sys.argv[1])
    best = lambda who, bench, mode, what: min(fig.get((who, bench, mode, what), []), default=None)  # noqa: E731
    header = ["row", "mode", "gshmem", "Open MPI", "gshmem/OMPI", "target", "verdict",
              "global/heap", "target", "verdict"]
    table = [header]
    for title, bench, what, target in ROWS:
        for mode in ("heap", "global") if bench in POINT else ("heap",):
            gv, ov = best("gshm", bench, mode, what), best("oshmem", bench, mode, what)
            r = gv / ov if gv is not None and ov else None
            if target is None:
                tcol, vcol = "(info)", ""
            elif ov is None and gv is not None:
                tcol, vcol = "<= %.1f" % target, "(no anchor)"
            else:
                tcol, vcol = "<= %.1f" % target, "MISS" if r is None else compare.verdict(r <= target)
            gh = ["", "", ""]
            if mode == "global":
                hv = best("gshm", bench, "heap", what)
                rg = gv / hv if gv is not None and hv else None
                gh = ["-" if rg is None else "%.2f" % rg, "<= %.2f" % GLOBAL_TARGET,
                      "MISS" if rg is None else compare.verdict(rg <= GLOBAL_TARGET)]
            table.append([title, mode, compare.fmt(gv, "lat"), compare.fmt(ov, "lat"),
                          "-" if r is None else "%.2f" % r, tcol, vcol] + gh)
    widths = [max(len(str(row[i])) for row in table) for i in range(len(header))]
    for row in table:
        print("  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip())


if __name__ == "__main__":
    main()
