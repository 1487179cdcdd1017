#!/usr/bin/python3
"""Prints bench/sim/results.csv as Markdown tables (doc/performance.md, "Simulated clusters"): per
platform, ranks and kind of run, the simulated median of every method per case (ms) and the ratio of
`redist` to the hand-written one-pass Alltoallv and to the darray Alltoallw where both ran.

    python3 bench/sim/table.py [bench/sim/results.csv]
"""
import csv
import sys
from collections import OrderedDict


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "bench/sim/results.csv"
    groups = OrderedDict()
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            # One table per platform, ranks and kind: b = a against the hand-written exchanges, or
            # the schedules (redist:NAME) against each other.
            groups.setdefault((r["platform"], int(r["np"]), r["method"].startswith("redist:")), []).append(r)
    for (platform, np, schedules), rows in groups.items():
        methods = list(OrderedDict.fromkeys(r["method"] for r in rows))
        cases = OrderedDict()
        for r in rows:
            cases.setdefault((r["case"], int(r["elements"])), {})[r["method"]] = r
        ratios = [m for m in ("alltoallv_onepass", "alltoallw_darray") if m in methods and "redist" in methods]
        kind = "schedules" if schedules else "b = a and the hand-written exchanges"
        print(f"\n{platform}, {np} ranks, {kind} (simulated ms, median)\n")
        head = ["case", "elements"] + methods + [f"redist/{m}" for m in ratios]
        print("| " + " | ".join(head) + " |")
        print("|---|" + "---:|" * (len(head) - 1))
        for (case, elements), by in cases.items():
            cells = [case, str(elements)]
            for m in methods:
                r = by.get(m)
                cells.append("n/a" if r is None else f"{float(r['median_ms']):.3f}" + ("" if r["check"] == "ok" else " FAIL"))
            for m in ratios:
                a, b = by.get("redist"), by.get(m)
                cells.append("n/a" if a is None or b is None or float(b["median_ms"]) == 0
                             else f"{float(a['median_ms']) / float(b['median_ms']):.2f}")
            print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
