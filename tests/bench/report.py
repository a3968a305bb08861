#!/usr/bin/env python3
"""Turns bench-reduce's CSV into docs: an SVG plot of GB/s against size
(cudareduce's cases, CUB DeviceReduce::Sum and a device-to-device copy) and
a Markdown table of ratios to CUB. Standard library only.

    report.py bench-reduce.csv --svg plot.svg --markdown table.md
"""
import argparse
import csv
import math
from collections import OrderedDict

COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
           "#e377c2", "#17becf", "#bcbd22"]


def read(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        r["bytes"] = int(r["bytes"])
        for k in ("gbps", "cub_sum_gbps", "ratio_cub_sum",
                  "cub_equivalent_gbps", "ratio_cub_equivalent", "copy_gbps"):
            try:
                r[k] = float(r[k])
            except (KeyError, ValueError):
                r[k] = float("nan")
    return rows


def size_label(n):
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            return "%d %s" % (n >> shift, unit)
    return "%d B" % n


def svg(rows, path):
    series = OrderedDict()
    for r in rows:
        series.setdefault("%s %s" % (r["case"], r["input"]), []).append(
            (r["bytes"], r["gbps"]))
    sizes = sorted({r["bytes"] for r in rows})
    cub = OrderedDict()
    copy = OrderedDict()
    for r in rows:
        cub.setdefault(r["bytes"], r["cub_sum_gbps"])
        copy.setdefault(r["bytes"], r["copy_gbps"])

    width, height, left, right, top, bottom = 980, 560, 70, 290, 30, 60
    x0, x1 = math.log2(sizes[0]), math.log2(sizes[-1])
    values = [v for s in series.values() for _, v in s] + list(copy.values())
    values = [v for v in values if v > 0 and not math.isnan(v)]
    y0 = math.floor(math.log10(min(values)))
    y1 = math.ceil(math.log10(max(values)))

    def px(b):
        return left + (math.log2(b) - x0) / (x1 - x0) * (width - left - right)

    def py(v):
        return top + (y1 - math.log10(v)) / (y1 - y0) * (height - top - bottom)

    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="12">' % (width, height),
           '<rect width="100%" height="100%" fill="white"/>']
    for e in range(y0, y1 + 1):
        y = py(10 ** e)
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>'
                   % (left, y, width - right, y))
        out.append('<text x="%d" y="%.1f" text-anchor="end">%g</text>'
                   % (left - 6, y + 4, 10 ** e))
    for b in sizes:
        x = px(b)
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#eee"/>'
                   % (x, top, x, height - bottom))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>'
                   % (x, height - bottom + 18, size_label(b)))
    out.append('<text x="%d" y="%d" text-anchor="middle">input size</text>'
               % ((left + width - right) / 2, height - 15))
    out.append('<text x="18" y="%d" transform="rotate(-90 18 %d)" '
               'text-anchor="middle">GB/s (input bytes / median time)</text>'
               % ((top + height - bottom) / 2, (top + height - bottom) / 2))

    def line(points, colour, dash, label, index):
        pts = " ".join("%.1f,%.1f" % (px(b), py(v)) for b, v in points
                       if v > 0 and not math.isnan(v))
        if not pts:
            return
        out.append('<polyline points="%s" fill="none" stroke="%s" '
                   'stroke-width="2" stroke-dasharray="%s"/>'
                   % (pts, colour, dash))
        ly = top + 10 + 18 * index
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" '
                   'stroke-width="2" stroke-dasharray="%s"/>'
                   % (width - right + 15, ly, width - right + 45, ly, colour,
                      dash))
        out.append('<text x="%d" y="%d">%s</text>'
                   % (width - right + 52, ly + 4, label))

    index = 0
    for (name, points), colour in zip(series.items(), COLOURS * 2):
        line(points, colour, "none", "cudareduce " + name, index)
        index += 1
    line(list(cub.items()), "black", "6,4", "CUB Sum int32", index)
    line(list(copy.items()), "#888", "2,3", "copy (read + write)", index + 1)
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


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
    p.add_argument("--svg")
    p.add_argument("--markdown")
    a = p.parse_args()
    rows = read(a.csv)
    if a.svg:
        svg(rows, a.svg)
    if a.markdown:
        markdown(rows, a.markdown)


if __name__ == "__main__":
    main()
