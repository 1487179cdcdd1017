#!/usr/bin/env python3
"""Plots bench/gen_block_study.csv (written by gen_block_study) as doc/img/gen_block_study.png.

Usage: bench/gen_block_plot.py [CSV] [PNG]   (needs Debian's python3-matplotlib)
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else "bench/gen_block_study.csv"
    out = sys.argv[2] if len(sys.argv) > 2 else "doc/img/gen_block_study.png"
    rows = list(csv.DictReader(open(src)))
    kinds = ["even", "uneven"]
    fig, axes = plt.subplots(3, 2, figsize=(12, 12.5))

    def stacked(ax, prefix, title):
        width = 1.6
        for i, kind in enumerate(kinds):
            sel = [r for r in rows if r["kind"] == kind]
            ps = [int(r["P"]) + (i - 0.5) * width for r in sel]
            n = [int(r["cases"]) for r in sel]
            better = [100 * int(r[prefix + "_better"]) / c for r, c in zip(sel, n)]
            equal = [100 * int(r[prefix + "_equal"]) / c for r, c in zip(sel, n)]
            worse = [100 * int(r[prefix + "_worse"]) / c for r, c in zip(sel, n)]
            hatch = "" if kind == "even" else "//"
            ax.bar(ps, better, width, color="tab:green", hatch=hatch, edgecolor="white",
                   label=f"cheaper ({kind})")
            ax.bar(ps, equal, width, bottom=better, color="tab:gray", hatch=hatch, edgecolor="white",
                   label=f"equal ({kind})")
            ax.bar(ps, worse, width, bottom=[b + e for b, e in zip(better, equal)], color="tab:red",
                   hatch=hatch, edgecolor="white", label=f"dearer ({kind})")
        ax.set_title(title)
        ax.set_xlabel("P (left bar: even ±30 %, right bar: uneven ±100 %)")
        ax.set_ylabel("% of cases")
        ax.set_xticks(sorted({int(r["P"]) for r in rows}))
        ax.set_ylim(0, 100)
        ax.legend(fontsize=7, ncol=2, loc="lower left", framealpha=0.9)

    has_dc = "tpdr_vs_dc_better" in rows[0]
    if has_dc:
        stacked(axes[0][0], "tpdr_vs_dc", "TPDR against divide-and-conquer (reconstructed)\n(seed 002 Figs. 7, 10)")
        stacked(axes[0][1], "etpdr_vs_dc", "E-TPDR against divide-and-conquer (reconstructed)\n(seed 002 Figs. 9, 11)")
    stacked(axes[1][0], "etpdr_vs_list", "E-TPDR against list scheduling")
    stacked(axes[1][1], "etpdr_vs_tpdr", "E-TPDR against TPDR")

    ax = axes[2][0]
    curves = [("TPDR", "ratio_tpdr", "tab:blue"), ("E-TPDR", "ratio_etpdr", "tab:green"),
              ("list", "ratio_list", "tab:orange")]
    if has_dc:
        curves.append(("DC", "ratio_dc", "tab:purple"))
    for name, key, color in curves:
        for kind, style in [("even", "-"), ("uneven", "--")]:
            sel = [r for r in rows if r["kind"] == kind]
            ax.plot([int(r["P"]) for r in sel], [float(r[key + "_mean"]) for r in sel], style, marker="o",
                    color=color, label=f"{name}, {kind}")
    ax.set_title("Schedule cost / lower bound (mean)")
    ax.set_xlabel("P (solid: even, dashed: uneven)")
    ax.set_xticks(sorted({int(r["P"]) for r in rows}))
    ax.set_ylabel("cost / max over parts of (sent, received)")
    ax.legend(fontsize=7, ncol=2)
    ax.grid(alpha=0.3)

    lmr = rows[0]["lmr"]
    stacked(axes[2][1], "lmr_etpdr_vs_etpdr", f"LMR (ratio {lmr}): E-TPDR scheduled by LMR cost\n"
                                              "against E-TPDR scheduled by size, both priced by LMR")
    fig.suptitle(f"GEN_BLOCK schedules on {rows[0]['cases']} random cases per bar, n = {rows[0]['n']}")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print("wrote", out)


if __name__ == "__main__":
    main()
