#!/usr/bin/env python3
"""Turns bench-pipeline's CSV into the Markdown tables of docs/performance.md:
GB/s of each memory source through appsrc ! cudareduce ! fakesink against
the host-to-device copy ceilings, buffers/s at the smallest size, cudareduce
against level, and the small-buffer stream (buffers/s of each configuration,
the ratios the targets name, the targets met or missed) with the live case's
latency. Standard library only.

    report-pipeline.py bench-pipeline.csv [--output table.md]

The CSV's columns are kind,source,bytes,gbps,buffers_per_s,ceiling_gbps,ratio,
median_us,p99_us (see the header comment of bench-pipeline.c; tables written
before the last two existed are read too); an empty field is not applicable.
A source the run did not measure (the element proposed no pool, level is not
installed, a run with --stream-only) shows as a dash, and a part with no rows
at all is left out.
"""
import argparse
import csv
import math
import sys

DASH = "–"
FIELDS = ("gbps", "buffers_per_s", "ceiling_gbps", "ratio", "median_us",
          "p99_us")

# The stream configurations (kind=stream), in bench-stream.c's order.
STREAM_CONFIGS = [
    ("identity", "identity"),
    ("level-buffer", "level, a message per buffer"),
    ("level-100ms", "level interval=100ms"),
    ("cudareduce-messages", "cudareduce, a message per buffer"),
    ("cudareduce-no-messages", "cudareduce post-messages=false"),
    ("cudareduce-tensor", "cudareduce output=tensor"),
    ("cudareduce-channels-100ms", "cudareduce per-channel, interval=100ms"),
]

# The ratios of buffers/s that the targets name: (numerator, denominator).
STREAM_RATIOS = [
    ("cudareduce-messages", "level-buffer"),
    ("cudareduce-channels-100ms", "level-100ms"),
    ("cudareduce-no-messages", "identity"),
    ("cudareduce-no-messages", "level-buffer"),
    ("cudareduce-no-messages", "level-100ms"),
]

# (bytes, numerator, denominator, at least)
STREAM_TARGETS = [
    (4 << 10, "cudareduce-messages", "level-buffer", 2.0),
    (4 << 10, "cudareduce-channels-100ms", "level-100ms", 1.5),
    (4 << 10, "cudareduce-no-messages", "identity", 0.5),
    (64 << 10, "cudareduce-no-messages", "identity", 0.7),
    (64 << 10, "cudareduce-no-messages", "level-buffer", 2.0),
    (64 << 10, "cudareduce-no-messages", "level-100ms", 2.0),
]

# (field, label, below this many microseconds)
LIVE_TARGETS = [("median_us", "median", 1000.0), ("p99_us", "99th percentile",
                                                   5000.0)]


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
            rows[key] = {k: number(r.get(k)) for k in FIELDS}
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


def stream_table(rows):
    sizes = sorted({b for (kind, _, b) in rows if kind == "stream"})
    if not sizes:
        return [], sizes
    out = ["| configuration | " + " | ".join(
               "%s buffers/s" % size_label(s) for s in sizes) + " |",
           "|---|" + "---:|" * len(sizes)]
    for source, label in STREAM_CONFIGS:
        out.append("| %s | %s |" % (label, " | ".join(
            fmt(get(rows, "stream", source, s, "buffers_per_s"), 0)
            for s in sizes)))
    return out, sizes


def stream_ratio(rows, size, numerator, denominator):
    return ratio(get(rows, "stream", numerator, size, "buffers_per_s"),
                 get(rows, "stream", denominator, size, "buffers_per_s"))


def stream_ratio_table(rows, sizes):
    out = ["| ratio of buffers/s | " + " | ".join(
               size_label(s) for s in sizes) + " |",
           "|---|" + "---:|" * len(sizes)]
    for num, den in STREAM_RATIOS:
        out.append("| %s / %s | %s |" % (num, den, " | ".join(
            fmt(stream_ratio(rows, s, num, den)) for s in sizes)))
    return out


def verdict(value, met):
    if math.isnan(value):
        return "not measured"
    return "met" if met else "**missed**"


def targets_table(rows):
    out = ["| size | target | measured | result |", "|---|---|---:|---|"]
    for size, num, den, least in STREAM_TARGETS:
        v = stream_ratio(rows, size, num, den)
        out.append("| %s | %s / %s at least %g | %s | %s |" % (
            size_label(size), num, den, least, fmt(v),
            verdict(v, v >= least)))
    for (_, source, size), r in sorted(
            (k, v) for k, v in rows.items() if k[0] == "live"):
        for field, label, below in LIVE_TARGETS:
            v = r[field]
            out.append("| live, %s | %s: %s from arrival to result under "
                       "%g us | %s us | %s |" % (
                           live_buffer(size), source, label, below,
                           fmt(v, 1), verdict(v, v < below)))
    return out


def live_buffer(size):
    """F32 stereo at 48 kHz: eight bytes a frame, 48 frames a millisecond."""
    return "%g ms" % (size / 8 / 48)


def live_table(rows):
    live = sorted((k, v) for k, v in rows.items() if k[0] == "live")
    if not live:
        return []
    out = ["| configuration | buffer | median, us | 99th percentile, us |",
           "|---|---|---:|---:|"]
    for (_, source, size), r in live:
        out.append("| %s | %s (%d bytes) | %s | %s |" % (
            source, live_buffer(size), size, fmt(r["median_us"], 1),
            fmt(r["p99_us"], 1)))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("csv")
    p.add_argument("--output", help="write here instead of stdout")
    a = p.parse_args()
    rows = read(a.csv)

    lines = []
    table, sizes = pipeline_table(rows)
    if sizes:
        lines += ["### appsrc ! cudareduce monoid=sum ! fakesink, U8 mono",
                  ""]
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
    stream, stream_sizes = stream_table(rows)
    if stream:
        lines += ["", "### Small buffers: audiotestsrc ! F32LE stereo ! "
                  "ELEMENT ! fakesink", ""]
        lines += stream
        lines += ["", "### Ratios of buffers per second", ""]
        lines += stream_ratio_table(rows, stream_sizes)
    live = live_table(rows)
    if live:
        lines += ["", "### Live: from a buffer's arrival at the element to "
                  "its message", ""]
        lines += live
    if stream or live:
        lines += ["", "### Against the targets", ""]
        lines += targets_table(rows)
    while lines and lines[0] == "":
        lines.pop(0)

    text = "\n".join(lines) + "\n"
    if a.output:
        with open(a.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
