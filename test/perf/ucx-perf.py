#!/usr/bin/env python3
"""Join ucx-perf.sh's raw outputs into one table.

    ucx-perf.py RAW_DIR ROUNDS

RAW_DIR holds {tcp,ucx}.<figure>.<round>.json (gshmem perf --json),
ucxb.<figure>.<round>.json when a second gshmem ran (GSHMEM_B: the
"ucx B" column, an A/B in one sitting) and pt.<figure>[.<size>].<round>.csv
(ucx_perftest -f -v). Each cell is the median over the rounds; the ratios
compare the medians, and "paired" is the median of each round's own ratio
with its range: the runs of one round follow each other within seconds,
so it cancels much of a shared machine's drift between rounds.
"""
import json
import os
import statistics
import sys

# figure, label, kind, size, perftest file stem, factor on perftest's latency
FIGURES = [
    ("put_lat", "put 8 B + quiet", "lat", 8, "put_lat", 2.0),
    # ucx_perftest's ucp_get is no floor for one get (see PERFTEST_GET):
    # a get and a fetch-add are the same exchange over an emulated lane.
    ("get_lat", "get 8 B", "lat", 8, "fadd_lat", 1.0),
    ("fadd_lat", "fetch-add 8 B", "lat", 8, "fadd_lat", 1.0),
    ("put_bw", "put bw 64 KiB", "bw", 65536, "put_bw.65536", None),
    ("put_bw", "put bw 1 MiB", "bw", 1 << 20, "put_bw.1048576", None),
    ("get_bw", "get bw 64 KiB", "bw", 65536, "get_bw.65536", None),
    ("get_bw", "get bw 1 MiB", "bw", 1 << 20, "get_bw.1048576", None),
]
LAT_TARGET, BW_TARGET = 1.25, 0.8


def gshmem(raw, tr, fig, kind, size, rnd, typical=False):
    with open(os.path.join(raw, f"{tr}.{fig}.{rnd}.json")) as f:
        rows = json.load(f)
    for r in rows:
        if r["size"] == size:
            if kind == "bw":
                return r["bandwidth_gbps"]
            return r.get("median_latency_us", r["latency_us"]) if typical else r["latency_us"]
    raise SystemExit(f"ucx-perf.py: no {size}-byte row in {tr}.{fig}.{rnd}.json")


def perftest(raw, stem, kind, rnd, typical=False):
    path = os.path.join(raw, f"pt.{stem}.{rnd}.csv")
    with open(path) as f:
        lines = [l.strip() for l in f if l.strip()]
    # iterations,50.0_percentile_lat,avg_lat,overall_lat,avg_bw,overall_bw,avg_mr,overall_mr
    for l in reversed(lines):
        cols = l.split(",")
        if len(cols) >= 8 and cols[0].strip().isdigit():
            if kind == "lat":
                # overall mean, or the 50th percentile, microseconds
                return float(cols[1]) if typical else float(cols[3])
            return float(cols[5]) * (1 << 20) / 1e9  # MiB/s -> 1e9 B/s
    raise SystemExit(f"ucx-perf.py: no result line in {path}")


def med(v):
    return statistics.median(v)


def table(raw, rnds, typical, b):
    if b:
        print("%-17s %9s %9s %9s %11s  %9s %9s %8s  %-16s  %s" % (
            "figure", "tcp", "ucx", "ucx B", "ucx_perftest", "ucx/perf", "B/perf", "ucx/tcp", "paired B/perf", "target (ucx B)"))
    else:
        print("%-17s %9s %9s %11s  %9s %8s  %-16s  %s" % (
            "figure", "tcp", "ucx", "ucx_perftest", "ucx/perf", "ucx/tcp", "paired", "target"))
    ok = True
    for fig, label, kind, size, stem, factor in FIGURES:
        if typical and kind != "lat":
            continue
        t = med([gshmem(raw, "tcp", fig, kind, size, r, typical) for r in rnds])
        ua = med([gshmem(raw, "ucx", fig, kind, size, r, typical) for r in rnds])
        # us: the column the target is judged on (ucx B in an A/B)
        us = [gshmem(raw, "ucxb" if b else "ucx", fig, kind, size, r, typical) for r in rnds]
        ps = [perftest(raw, stem, kind, r, typical) * (factor or 1) for r in rnds]
        pair = sorted(x / y for x, y in zip(us, ps))
        paired = "%.2f (%.2f-%.2f)" % (med(pair), pair[0], pair[-1])
        u, p = med(us), med(ps)
        ratio = u / p
        if kind == "lat":
            met = ratio <= LAT_TARGET
            target = "<= %.2f x %s" % (LAT_TARGET, "met" if met else "NOT met")
            unit = "us"
        else:
            met = ratio >= BW_TARGET
            target = ">= %.2f x %s" % (BW_TARGET, "met" if met else "NOT met")
            unit = "GB/s"
        ok = ok and met
        if b:
            print("%-17s %9.3f %9.3f %9.3f %11.3f  %9.2f %9.2f %8.2f  %-16s  %s   (%s)" % (
                label, t, ua, u, p, ua / p, ratio, u / t, paired, target, unit))
        else:
            print("%-17s %9.3f %9.3f %11.3f  %9.2f %8.2f  %-16s  %s   (%s)" % (
                label, t, u, p, ratio, u / t, paired, target, unit))
    return ok


def main():
    raw, rounds = sys.argv[1], int(sys.argv[2])
    rnds = range(1, rounds + 1)
    b = os.path.exists(os.path.join(raw, "ucxb.put_lat.1.json"))
    print()
    print("Means (latency: mean microseconds per operation; bandwidth: 1e9 bytes/s), median of %d rounds:" % rounds)
    ok = table(raw, rnds, False, b)
    print()
    print("Typical latency (ucx_perftest: its 50th percentile; gshmem: the median of 16 batch means), median of %d rounds:" % rounds)
    ok_typ = table(raw, rnds, True, b)
    print()
    print("put 8 B + quiet's ucx_perftest figure is 2 x ucp_put_lat (a ping-pong's half round trip; a put")
    print("completed by a flush takes the whole round trip). get 8 B's is ucp_fadd's: " + PERFTEST_GET)
    print("Targets: %s within 1.25 x of ucx_perftest's latency, at least 0.8 x its bandwidth: %s (means), %s (typical latency)." % (
        "ucx B" if b else "ucx", "all met" if ok else "not all met", "all met" if ok_typ else "not all met"))


PERFTEST_GET = """over an emulated lane (UCX_TLS=tcp)
a get and a fetch-add are the same exchange (a request message that the target's progress answers
with one reply), and ucx_perftest 1.13's ucp_get does not time one: its responder progresses once per
iteration of its own loop, runs out of iterations early, and then serves the remaining gets once per
millisecond from the poll of its out-of-band barrier (about 1100 us per 8-byte get)."""


main()
