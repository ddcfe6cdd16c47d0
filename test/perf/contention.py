#!/usr/bin/env python3
"""Print contention.sh's tables from its raw results.

    contention.py RAW_DIR

RAW_DIR/results holds one line per run: load row runtime rep iters
per_iter latency_us (or "fail"); RAW_DIR/loads one line per load:
load|loadavg before|loadavg after. For every load and row: the median and
the worst (highest) latency of the runs of gshmem, Open MPI and MPICH,
the better MPI's median and worst (each the lower of the two MPIs'), and
gshmem / better MPI for each; then the same for the abi group's runs
(runtime "abi": OSU through libmpi_abi.so.1), as a row of its own marked
[abi]. A failed run counts as infinitely slow.
"""
import statistics
import sys

NAMES = {
    "barrier2": "barrier, 2 PEs",
    "barrier4": "barrier, 4 PEs",
    "allreduce2": "allreduce 8 B (compat), 2 PEs",
    "reduce2": "allreduce 8 B (shmem Reduce), 2 PEs",
    "allreduce4": "allreduce 8 B (compat), 4 PEs",
    "reduce4": "allreduce 8 B (shmem Reduce), 4 PEs",
    "pt2pt": "Send/Recv 8 B",
    "win_flush": "win put 8 B, flush",
    "win_fence": "win put 8 B, fence",
    "put": "put+quiet 8 B",
}
# The MPI figures a gshmem row is compared with.
MPI_ROW = {"reduce2": "allreduce2", "reduce4": "allreduce4"}
INF = float("inf")


def fmt(v):
    if v == INF:
        return "fail"
    return "%.3g" % v if v < 100 else "%.0f" % v


def ratio(a, b):
    if a == INF or b in (0, INF):
        return "-"
    return "%.2f" % (a / b)


def main(raw):
    runs = {}  # (load, row, rt) -> [latency]
    spans = {}  # (load, row, rt) -> shortest timed loop (s)
    order = []
    with open(raw + "/results") as f:
        for line in f:
            load, row, rt, _rep, iters, per, lat = line.split()
            v = INF if lat == "fail" else float(lat)
            runs.setdefault((load, row, rt), []).append(v)
            s = int(iters) * int(per) * v / 1e6
            spans[(load, row, rt)] = min(spans.get((load, row, rt), INF), s)
            if (load, row) not in order:
                order.append((load, row))
    loads = {}
    try:
        with open(raw + "/loads") as f:
            for line in f:
                load, before, after = line.rstrip("\n").split("|")
                loads[load] = (before, after)
    except FileNotFoundError:
        pass
    ok = True
    for load in dict.fromkeys(l for l, _ in order):
        before, after = loads.get(load, ("?", "?"))
        who = "quiet (no busy process)" if load == "0" else "%s busy process(es) per CPU" % load
        print("## load: %s; /proc/loadavg before: %s; after: %s" % (who, before, after))
        print("%-38s %5s | %8s %8s | %8s %8s | %8s %8s | %-9s %8s %8s | %6s %6s | %s" % (
            "row (latency us, runs)", "n", "gshmem", "worst", "OpenMPI", "worst", "MPICH", "worst",
            "better", "median", "worst", "med x", "wst x", "span s (g/o/m)"))
        for l, row, ours in ((l, r, rt) for l, r in order for rt in ("gshmem", "abi")):
            if l != load:
                continue
            g = runs.get((load, row, ours), [])
            mrow = MPI_ROW.get(row, row)
            o = runs.get((load, mrow, "openmpi"), [])
            m = runs.get((load, mrow, "mpich"), [])
            if not g:
                continue
            med = {k: statistics.median(v) if v else INF for k, v in (("g", g), ("o", o), ("m", m))}
            wst = {k: max(v) if v else INF for k, v in (("g", g), ("o", o), ("m", m))}
            bmed, bwst = min(med["o"], med["m"]), min(wst["o"], wst["m"])
            who = "Open MPI" if med["o"] <= med["m"] else "MPICH"
            rm, rw = ratio(med["g"], bmed), ratio(wst["g"], bwst)
            if rm == "-" or rw == "-" or float(rm) > 1.0 or float(rw) > 1.0:
                ok = False
            sp = "/".join("%.1f" % spans.get((load, r, rt), 0) for r, rt in ((row, ours), (mrow, "openmpi"), (mrow, "mpich")))
            name = NAMES.get(row, row) + (" [abi]" if ours == "abi" else "")
            print("%-38s %5d | %8s %8s | %8s %8s | %8s %8s | %-9s %8s %8s | %6s %6s | %s" % (
                name, len(g), fmt(med["g"]), fmt(wst["g"]), fmt(med["o"]), fmt(wst["o"]),
                fmt(med["m"]), fmt(wst["m"]), who, fmt(bmed), fmt(bwst), rm, rw, sp))
        print()
    print("every row at most 1.0 x the better MPI (median and worst):", "yes" if ok else "no")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
