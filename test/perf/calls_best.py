"""calls_best: the best (lowest) figure of each row and library from the
outputs of calls-lib.sh's calls_run: lines "ROW NS ns" in WORK/LIB.out."""
import collections
import os


def best(work, libs):
    """Returns the rows in first-seen order and {row: {lib: ns}}."""
    out = collections.defaultdict(dict)
    rows = []
    for lib in libs:
        p = os.path.join(work, lib + ".out")
        if not os.path.exists(p):
            continue
        for line in open(p):
            f = line.split()
            if len(f) != 3 or f[2] != "ns":
                continue
            if f[0] not in rows:
                rows.append(f[0])
            out[f[0]][lib] = min(float(f[1]), out[f[0]].get(lib, float("inf")))
    return rows, out
