#!/usr/bin/env python3
"""Join the raw outputs of compare.sh into one table.

    compare.py RAW_DIR [GROUP...]

RAW_DIR holds osu.<mpi>.<glibc>.<bench>.<mode>.<rep>.txt (OSU output) and
gshmem.<name>.<rep>.json (gshmem perf --json). For every row the best figure
over the repetitions is kept (lowest latency, highest bandwidth); the best MPI
is the best over both MPIs, every sync mode and both glibc settings (for
the window rows: the best of the same sync mode; for the collective rows:
the best with the same number of processes). GROUPs (rma, coll, win, pt2pt,
stream) pick the rows printed; default all.
"""
import glob
import json
import os
import re
import sys

# row name, gshmem run name, OSU bench, size (bytes), kind, target vs MPI, anchor
ROWS = [
    ("put latency 8 B", "put_latency", "put_latency", 8, "lat", 0.5, "pingpong"),
    ("get latency 8 B", "get_latency", "get_latency", 8, "lat", 0.5, "pingpong"),
    ("put bw 64 KiB", "put_bw", "put_bw", 65536, "bw", 1.0, "memcpy"),
    ("put bw 1 MiB", "put_bw", "put_bw", 1 << 20, "bw", 1.0, "memcpy"),
    ("put bw 4 MiB", "put_bw", "put_bw", 4 << 20, "bw", 1.0, "memcpy"),
    ("get bw 64 KiB", "get_bw", "get_bw", 65536, "bw", 1.0, "memcpy"),
    ("get bw 1 MiB", "get_bw", "get_bw", 1 << 20, "bw", 1.0, "memcpy"),
    ("get bw 4 MiB", "get_bw", "get_bw", 4 << 20, "bw", 1.0, "memcpy"),
    ("fetch-and-add 4 B (fop)", "fetch_add", "fop_latency", 4, "lat", 0.5, None),
    ("compare-and-swap 4 B (cas)", "compare_swap", "cas_latency", 4, "lat", 0.5, None),
    ("atomic add 4 B (acc)", "add", "acc_latency", 4, "lat", None, None),
    # The same atomics while the target PE polls instead of sleeping in its
    # barrier (GSHMEM_SPIN=1e9): what the runtime costs without the wake-up.
    ("fetch-and-add, peer polling", "spin_fetch_add", "fop_latency", 4, "lat", None, None),
    ("compare-and-swap, peer polling", "spin_compare_swap", "cas_latency", 4, "lat", None, None),
    ("atomic add, peer polling", "spin_add", "acc_latency", 4, "lat", None, None),
]
# The rows of the other layers: (group, row name, gshmem run name, OSU bench,
# OSU mode/tag the figures must come from, size, kind, target vs the best MPI).
MORE_ROWS = [("rma", t[0], t[1], t[2], None, t[3], t[4], t[5], t[6]) for t in ROWS]
for np_ in (2, 4):
    MORE_ROWS += [
        ("coll", "barrier, %d PEs" % np_, "barrier_np%d" % np_, "barrier", "np%d" % np_, 0, "lat", 0.5, None),
        ("coll", "allreduce 8 B, %d PEs" % np_, "reduction_np%d" % np_, "allreduce", "np%d" % np_, 8, "lat", 0.5, None),
        ("coll", "MPI Allreduce 8 B (compat), %d PEs" % np_, "mpi_allreduce_np%d" % np_, "allreduce", "np%d" % np_, 8, "lat", None, None),
        ("coll", "allreduce 1 MiB, %d PEs" % np_, "reduction1m_np%d" % np_, "allreduce", "np%dl" % np_, 1 << 20, "lat", 1.0, None),
        ("coll", "bcast 1 MiB, %d PEs" % np_, "broadcast_np%d" % np_, "bcast", "np%d" % np_, 1 << 20, "lat", 1.0, None),
        ("coll", "alltoall 1 MiB, %d PEs" % np_, "alltoall_np%d" % np_, "alltoall", "np%d" % np_, 1 << 20, "lat", 1.0, None),
        ("coll", "allgather/fcollect 1 MiB, %d PEs" % np_, "fcollect_np%d" % np_, "allgather", "np%d" % np_, 1 << 20, "lat", None, None),
    ]
for mode, target in (("flush", 1.0), ("lock", 0.5), ("lock_all", 0.5), ("fence", 0.5), ("pscw", 0.5)):
    MORE_ROWS.append(("win", "win put latency 8 B, %s" % mode, "win_put_latency_" + mode, "put_latency", mode, 8, "lat", target, None))
MORE_ROWS += [
    ("win", "win get latency 8 B, flush", "win_get_latency_flush", "get_latency", "flush", 8, "lat", 1.0, None),
    ("win", "win accumulate 4 B, flush", "win_acc_latency_flush", "acc_latency", "flush", 4, "lat", None, None),
    ("win", "win fetch-and-op 4 B, flush", "win_fop_latency_flush", "fop_latency", "flush", 4, "lat", None, None),
    ("win", "win compare-and-swap 4 B, flush", "win_cas_latency_flush", "cas_latency", "flush", 4, "lat", None, None),
    ("pt2pt", "Send/Recv latency 8 B", "pt2pt_latency", "latency", "pt2pt", 8, "lat", 1.0, None),
    ("pt2pt", "Isend/Irecv bw 1 MiB", "pt2pt_bw", "bw", "pt2pt", 1 << 20, "bw", 1.0, None),
]
STREAM_OVERHEAD_8B_US = 1.0  # issue 8: a stream adds at most 1 us per op at 8 B
STREAM_OVERHEAD_1MIB = 1.10  # and at most 10 % at 1 MiB
PINGPONG_TARGET = 3.0  # latency within 3 x one-way ping-pong
MEMCPY_TARGET = 0.8  # bandwidth at least 80 % of memcpy

OSU_LINE = re.compile(r"^\s*(\d+)\s+([0-9.]+)(\s|$)")
OSU_NOSIZE = re.compile(r"^\s*([0-9.]+)\s*$")  # osu_barrier: latency only
MPI_NAMES = {"openmpi": "Open MPI", "mpich": "MPICH"}


def better(kind, a, b):
    """The better of two figures (None loses)."""
    if a is None:
        return b
    if b is None:
        return a
    return min(a, b) if kind == "lat" else max(a, b)


def osu_figures(raw):
    """Every OSU figure of RAW_DIR: (mpi, glibc, bench, mode, size, value),
    bandwidth in GB/s, latency in us."""
    for path in glob.glob(os.path.join(raw, "osu.*.txt")):
        _, mpi, glibc, bench, mode, _rep, _ = os.path.basename(path).split(".")
        with open(path) as f:
            for line in f:
                m = OSU_LINE.match(line)
                if m:
                    size, v = int(m.group(1)), float(m.group(2))
                elif bench == "barrier" and OSU_NOSIZE.match(line):
                    size, v = 0, float(OSU_NOSIZE.match(line).group(1))
                else:
                    continue
                if bench.endswith("_bw") or bench == "bw":
                    v /= 1000.0  # MB/s -> GB/s
                yield mpi, glibc, bench, mode, size, v


def osu_results(raw):
    """{(bench, size): [(value, label, mode)]} of the MPIs, but the abi and
    winmode groups' runs (compare_abi.py's and compare_winmode.py's: the
    ABI's own, and the MPIs' with tags abi-* and winmode-*)."""
    res = {}
    for mpi, glibc, bench, mode, size, v in osu_figures(raw):
        if mpi == "gabi" or mode.startswith("abi") or mode.startswith("winmode"):
            continue
        label = "%s %s%s" % (MPI_NAMES.get(mpi, mpi), mode, ", rep movsb off" if glibc == "norepmovsb" else "")
        res.setdefault((bench, size), []).append((v, label, mode))
    return res


def gshmem_results(raw):
    """{(name, size): [row dicts]}."""
    res = {}
    for path in glob.glob(os.path.join(raw, "gshmem.*.json")):
        name = os.path.basename(path).split(".")[1]
        with open(path) as f:
            for row in json.load(f):
                res.setdefault((name, row["size"]), []).append(row)
    return res


def best_gshmem(g, name, size, kind):
    rows = g.get((name, size), [])
    if not rows:
        return None
    key = "latency_us" if kind == "lat" else "bandwidth_gbps"
    vals = [r[key] for r in rows]
    return min(vals) if kind == "lat" else max(vals)


def best_mpi(o, bench, size, kind, mode=None):
    cands = [(v, label) for v, label, m in o.get((bench, size), []) if mode is None or m == mode]
    if not cands:
        return None, "-"
    pick = min(cands) if kind == "lat" else max(cands)
    return pick


def fmt(v, kind):
    if v is None:
        return "-"
    return ("%.3f us" % v) if kind == "lat" else ("%.2f GB/s" % v)


def verdict(ok):
    return "ok" if ok else "MISS"


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    raw = sys.argv[1]
    groups = set(sys.argv[2:]) or {"rma", "coll", "win", "pt2pt", "stream"}
    o, g = osu_results(raw), gshmem_results(raw)
    # The ping-pong anchor is the median of its 16 batches (best run): a
    # two-process spin loop is the one test a descheduled vCPU stalls for a
    # whole time slice, which the mean would carry.
    pp_rows = g.get(("shm_pingpong", 8), [])
    pp = min((r.get("median_latency_us", r["latency_us"]) for r in pp_rows), default=None)
    pp_mean = min((r["latency_us"] for r in pp_rows), default=None)
    pp_min = min((r.get("min_latency_us", r["latency_us"]) for r in pp_rows), default=None)

    header = ["row", "gshmem", "best MPI", "best MPI is", "gshmem/MPI", "target", "verdict",
              "vs anchor", "target", "verdict"]
    table = [header]
    for group, title, name, bench, mode, size, kind, target, anchor in MORE_ROWS:
        if group not in groups:
            continue
        gv = best_gshmem(g, name, size, kind)
        mv, who = best_mpi(o, bench, size, kind, mode)
        ratio = gv / mv if gv is not None and mv else None
        if target is None:
            tcol, vcol = "(info)", ""
        elif kind == "lat":
            tcol, vcol = "<= %.1f" % target, verdict(ratio is not None and ratio <= target)
        else:
            tcol, vcol = ">= %.1f" % target, verdict(ratio is not None and ratio >= target)
        acol = atcol = avcol = ""
        if anchor == "pingpong" and gv is not None and pp:
            a = gv / pp
            acol, atcol, avcol = "%.2f x one-way" % a, "<= %.0f" % PINGPONG_TARGET, verdict(a <= PINGPONG_TARGET)
        elif anchor == "memcpy" and gv is not None:
            mc = best_gshmem(g, "memcpy_bw", size, "bw")
            if mc:
                a = gv / mc
                acol, atcol, avcol = "%.0f %% of memcpy" % (100 * a), ">= %.0f %%" % (100 * MEMCPY_TARGET), verdict(a >= MEMCPY_TARGET)
        table.append([title, fmt(gv, kind), fmt(mv, kind), who,
                      "-" if ratio is None else "%.2f" % ratio, tcol, vcol, acol, atcol, avcol])

    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    for k, r in enumerate(table):
        print("  ".join(c.ljust(widths[i]) for i, c in enumerate(r)).rstrip())
        if k == 0:
            print("  ".join("-" * w for w in widths).rstrip())
    if "stream" in groups:
        print()
        print("streams and kernels (gshmem perf, the host form in the same run; best of the repetitions):")
        for size in (8, 1 << 20):
            rows = g.get(("put_on_stream_latency", size), [])
            if not rows:
                continue
            r = min(rows, key=lambda r: r["stream_overhead_us"])
            if size == 8:
                ok = r["stream_overhead_us"] <= STREAM_OVERHEAD_8B_US
                goal = "adds <= %.1f us" % STREAM_OVERHEAD_8B_US
            else:
                ok = r["stream_overhead_ratio"] <= STREAM_OVERHEAD_1MIB
                goal = "adds <= %.0f %%" % (100 * (STREAM_OVERHEAD_1MIB - 1))
            print("  put_on_stream %7d B: stream %.3f us, host %.3f us: adds %.3f us (%+.1f %%); target %s: %s"
                  % (size, r["latency_us"], r["host_latency_us"], r["stream_overhead_us"],
                     100 * (r["stream_overhead_ratio"] - 1), goal, verdict(ok)))
        for r in g.get(("kernel_put_bw", 1 << 20), [])[:1]:
            rows = g.get(("kernel_put_bw", 1 << 20), [])
            r = max(rows, key=lambda r: r["bandwidth_gbps"])
            print("  kernel_put_bw 1 MiB (one %d-thread block, window %d): kernel %.2f GB/s, host %.2f GB/s: %.0f %% of host (info)"
                  % (r.get("threads", 32), r.get("window", 64), r["bandwidth_gbps"], r["host_bandwidth_gbps"], 100 * r["kernel_vs_host"]))
    if "rma" not in groups:
        return
    print()
    print("anchors (gshmem perf, same run):")
    if pp:
        print("  shm_pingpong one-way: %.3f us median batch (the anchor), %.3f us fastest batch, %.3f us mean (best runs)"
              % (pp, pp_min, pp_mean))
    for size in (65536, 1 << 20, 4 << 20):
        mc = best_gshmem(g, "memcpy_bw", size, "bw")
        if mc:
            print("  memcpy_bw %7d B x 64 (working set %d MiB): %.2f GB/s" % (size, size * 64 >> 20, mc))
    reps = len({os.path.basename(p).split(".")[2] for p in glob.glob(os.path.join(raw, "gshmem.*.json"))})
    print("best of %d repetitions per figure; latency is the mean per operation (OSU's convention);"
          " gshmem's latency rows: PE 0 op (+Quiet) in a loop, bw rows: windows of 64 nbi ops + Quiet" % reps)


if __name__ == "__main__":
    main()
