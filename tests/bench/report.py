#!/usr/bin/env python3
"""Turns bench-reduce's CSVs into docs: plots drawn with matplotlib (as
examples/python/plot_levels.py draws levels) and Markdown tables.

    report.py bench-reduce.csv --plot plot.png --markdown table.md
    report.py bench-channels.csv --plot plot.png --markdown table.md

bench-reduce.csv (--csv): GB/s against input size of cudareduce's cases,
CUB DeviceReduce::Sum and a device-to-device copy, and a table of ratios to
CUB. bench-channels.csv (--channels-csv): per-channel throughput as a
fraction of the single result's on the same bytes, one line per monoid and
channel count, with the 0.85 target, and the same as a table. The kind is
read from the CSV's header. The tables need the standard library only;
the plots need matplotlib, and the file name's extension picks the format.
"""
import argparse
import csv
import math
from collections import OrderedDict

CHANNEL_TARGET = 0.85


def read(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        r["bytes"] = int(r["bytes"])
        for k in ("gbps", "cub_sum_gbps", "ratio_cub_sum", "single_gbps", "ratio",
                  "cub_equivalent_gbps", "ratio_cub_equivalent", "copy_gbps"):
            try:
                r[k] = float(r[k])
            except (KeyError, ValueError):
                r[k] = float("nan")
    return rows


def is_channels(rows):
    return bool(rows) and "channels" in rows[0]


def size_label(n):
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            return "%d %s" % (n >> shift, unit)
    return "%d B" % n


def axes(title, ylabel, sizes):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9.8, 5.2), dpi=100)
    ax.set_xscale("log", base=2)
    ax.set_xticks(sizes)
    ax.set_xticklabels([size_label(b) for b in sizes], rotation=30)
    ax.minorticks_off()
    ax.set_xlabel("input size")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    return plt, fig, ax


def finish(plt, fig, ax, path):
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize="small")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def valid(points):
    return [(b, v) for b, v in points if v > 0 and not math.isnan(v)]


def plot_single(rows, path):
    """GB/s against size: each case, CUB's Sum and the copy."""
    series = OrderedDict()
    for r in rows:
        series.setdefault("%s %s" % (r["case"], r["input"]), []).append(
            (r["bytes"], r["gbps"]))
    cub = OrderedDict((r["bytes"], r["cub_sum_gbps"]) for r in rows)
    copy = OrderedDict((r["bytes"], r["copy_gbps"]) for r in rows)
    plt, fig, ax = axes("cudareduce on an H200: median GB/s of input read",
                        "GB/s (input bytes / median time)",
                        sorted({r["bytes"] for r in rows}))
    ax.set_yscale("log")
    for name, points in series.items():
        p = valid(points)
        ax.plot([b for b, _ in p], [v for _, v in p], linewidth=1.5,
                label="cudareduce " + name)
    for points, style, colour, label in ((cub, "--", "black", "CUB Sum int32"),
                                         (copy, ":", "#888", "copy (read + write)")):
        p = valid(points.items())
        ax.plot([b for b, _ in p], [v for _, v in p], style, color=colour,
                linewidth=2, label=label)
    finish(plt, fig, ax, path)


def plot_channels(rows, path):
    """Per-channel throughput over the single result's, against size."""
    series = OrderedDict()
    for r in sorted(rows, key=lambda r: (r["monoid"], r["input"], int(r["channels"]))):
        series.setdefault((r["monoid"], r["input"], int(r["channels"])),
                          []).append((r["bytes"], r["ratio"]))
    plt, fig, ax = axes("Per-channel results as a fraction of the single result",
                        "per-channel GB/s / single-result GB/s",
                        sorted({r["bytes"] for r in rows}))
    # a colour per channel count, a line style per monoid
    counts = sorted({k[2] for k in series})
    monoids = list(OrderedDict((k[:2], None) for k in series))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for (monoid, inp, channels), points in series.items():
        p = valid(sorted(points))
        ax.plot([b for b, _ in p], [v for _, v in p],
                ["-", "--", "-.", ":"][monoids.index((monoid, inp)) % 4],
                color=colours[counts.index(channels) % len(colours)], marker="o",
                markersize=3, linewidth=1.2,
                label="%s %s, %d ch" % (monoid, inp, channels))
    ax.axhline(CHANNEL_TARGET, color="black", linewidth=1, linestyle=":",
               label="target (%.2f)" % CHANNEL_TARGET)
    finish(plt, fig, ax, path)


def markdown_channels(rows, path):
    sizes = sorted({r["bytes"] for r in rows})
    keys = sorted({(r["monoid"], r["input"], int(r["channels"])) for r in rows})
    by = {(r["monoid"], r["input"], int(r["channels"]), r["bytes"]): r for r in rows}
    lines = ["| monoid, input | channels | " + " | ".join(size_label(s) for s in sizes)
             + " |", "|---|---:|" + "---:|" * len(sizes)]
    for monoid, inp, channels in keys:
        cells = []
        for s in sizes:
            r = by.get((monoid, inp, channels, s))
            cells.append("%.2f" % r["ratio"] if r else "")
        lines.append("| %s, %s | %d | %s |" % (monoid, inp, channels, " | ".join(cells)))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def markdown(rows, path):
    sizes = sorted({r["bytes"] for r in rows})
    cases = list(OrderedDict(((r["case"], r["input"]), None) for r in rows))
    by = {(r["case"], r["input"], r["bytes"]): r for r in rows}
    lines = ["| case | input | " + " | ".join(size_label(s) for s in sizes)
             + " |", "|---|---|" + "---:|" * len(sizes)]
    for case, inp in cases:
        cells = []
        for s in sizes:
            r = by.get((case, inp, s))
            cells.append("%.2f" % r["ratio_cub_sum"] if r else "")
        lines.append("| %s | %s | %s |" % (case, inp, " | ".join(cells)))
    cub = {r["bytes"]: r["cub_sum_gbps"] for r in rows}
    copy = {r["bytes"]: r["copy_gbps"] for r in rows}
    lines.append("| *CUB Sum, GB/s* | int32 | %s |"
                 % " | ".join("%.0f" % cub[s] for s in sizes))
    lines.append("| *copy, GB/s* | | %s |"
                 % " | ".join("%.0f" % copy[s] for s in sizes))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("csv")
    p.add_argument("--plot", help="a PNG or SVG to draw (needs matplotlib)")
    p.add_argument("--markdown")
    a = p.parse_args()
    rows = read(a.csv)
    channels = is_channels(rows)
    if a.plot:
        (plot_channels if channels else plot_single)(rows, a.plot)
    if a.markdown:
        (markdown_channels if channels else markdown)(rows, a.markdown)


if __name__ == "__main__":
    main()
