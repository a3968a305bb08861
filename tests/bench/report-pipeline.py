#!/usr/bin/env python3
"""Turns bench-pipeline's CSV into the Markdown tables of docs/performance.md:
GB/s of each memory source through appsrc ! cudareduce ! fakesink against
the host-to-device copy ceilings, buffers/s at the smallest size, and
cudareduce against level. Standard library only.

    report-pipeline.py bench-pipeline.csv [--output table.md]

The CSV's columns are kind,source,bytes,gbps,buffers_per_s,ceiling_gbps,ratio
(see the header comment of bench-pipeline.c); an empty field is not
applicable. A source the run did not measure (the element proposed no pool,
level is not installed) shows as a dash.
"""
import argparse
import csv
import math
import sys

DASH = "–"


def number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return math.nan


def read(path):
    rows = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            key = (r["kind"], r["source"], int(r["bytes"]))
            rows[key] = {k: number(r[k]) for k in
                         ("gbps", "buffers_per_s", "ceiling_gbps", "ratio")}
    return rows


def size_label(n):
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            return "%d %s" % (n >> shift, unit)
    return "%d B" % n


def fmt(value, digits=2):
    """Whole numbers from 100 up, @digits decimals from 1, and three
    significant digits below 1 (small ratios keep their resolution)."""
    if value is None or math.isnan(value):
        return DASH
    if abs(value) >= 100 or digits == 0:
        return "%.0f" % value
    if abs(value) >= 1 or value == 0:
        return "%.*f" % (digits, value)
    return "%#.3g" % value


def get(rows, kind, source, size, field):
    r = rows.get((kind, source, size))
    return r[field] if r else math.nan


def ratio(a, b):
    if math.isnan(a) or math.isnan(b) or b == 0:
        return math.nan
    return a / b


def pipeline_table(rows):
    sizes = sorted({b for (kind, _, b) in rows if kind == "pipeline"})
    out = [
        "| size | pool GB/s | pinned copy GB/s | pool / pinned "
        "| recycled GB/s | fresh GB/s | pageable copy GB/s "
        "| recycled / pageable | fresh / pageable |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for s in sizes:
        pool = get(rows, "pipeline", "pool", s, "gbps")
        recycled = get(rows, "pipeline", "system-recycled", s, "gbps")
        fresh = get(rows, "pipeline", "system-fresh", s, "gbps")
        pinned = get(rows, "ceiling", "pinned", s, "gbps")
        pageable = get(rows, "ceiling", "pageable", s, "gbps")
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            size_label(s), fmt(pool), fmt(pinned), fmt(ratio(pool, pinned)),
            fmt(recycled), fmt(fresh), fmt(pageable),
            fmt(ratio(recycled, pageable)), fmt(ratio(fresh, pageable))))
    return out, sizes


def buffers_table(rows, sizes):
    if not sizes:
        return []
    s = sizes[0]
    sources = [("pool", "pool"), ("pool-depth1", "pool, async-depth=1"),
               ("system-recycled", "system-recycled"),
               ("system-fresh", "system-fresh")]
    out = ["| source | buffers/s at %s | GB/s |" % size_label(s),
           "|---|---:|---:|"]
    for source, label in sources:
        if ("pipeline", source, s) not in rows:
            continue
        out.append("| %s | %s | %s |" % (
            label, fmt(get(rows, "pipeline", source, s, "buffers_per_s"), 0),
            fmt(get(rows, "pipeline", source, s, "gbps"), 3)))
    return out


def level_table(rows):
    sizes = sorted({b for (kind, _, b) in rows if kind == "level"})
    if not sizes:
        return []
    out = ["| size | level GB/s | level Msamples/s | cudareduce sumsq GB/s "
           "| cudareduce Msamples/s | cudareduce / level |",
           "|---|---:|---:|---:|---:|---:|"]
    for s in sizes:
        lv = get(rows, "level", "level", s, "gbps")
        cr = get(rows, "level", "cudareduce-sumsq", s, "gbps")
        # F32: four bytes per sample; GB/s is 10^9 bytes per second.
        out.append("| %s | %s | %s | %s | %s | %s |" % (
            size_label(s), fmt(lv), fmt(lv * 1e3 / 4, 0), fmt(cr),
            fmt(cr * 1e3 / 4, 0), fmt(ratio(cr, lv))))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("csv")
    p.add_argument("--output", help="write here instead of stdout")
    a = p.parse_args()
    rows = read(a.csv)

    lines = ["### appsrc ! cudareduce monoid=sum ! fakesink, U8 mono", ""]
    table, sizes = pipeline_table(rows)
    lines += table
    if sizes and not any(k[:2] == ("pipeline", "pool") for k in rows):
        lines += ["", "The element proposed no buffer pool in this run, so "
                  "the pool columns are empty."]
    buffers = buffers_table(rows, sizes)
    if buffers:
        lines += ["", "### Buffers per second at the smallest size", ""]
        lines += buffers
    level = level_table(rows)
    if level:
        lines += ["", "### level against cudareduce monoid=sumsq, "
                  "F32LE stereo", ""]
        lines += level

    text = "\n".join(lines) + "\n"
    if a.output:
        with open(a.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
