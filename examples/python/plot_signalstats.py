#!/usr/bin/env python3
"""What FFmpeg's signalstats reports of each frame of a video, computed on
the GPU by cudareduce, drawn over time as a PNG with the luma histogram.

    GST_PLUGIN_PATH=build/plugin examples/python/plot_signalstats.py VIDEO OUT.png
    examples/python/plot_signalstats.py --pattern ball OUT.png   # videotestsrc
    examples/python/plot_signalstats.py --csv VIDEO OUT.csv      # values only
    examples/python/plot_signalstats.py --plot IN.csv OUT.png    # draw a CSV

cudareduce monoid=signalstats per-channel=true gives, for each plane of an
NV12 frame (Y, U, V), the lowest value, the 10th percentile (low), the mean
(avg), the 90th percentile (high) and the highest value, with the 256
counts that low and high are read from, in one pass over the frame.
Computing needs python3-gi and gir1.2-gstreamer-1.0; drawing needs
matplotlib, which --plot lets another Python provide.
"""
import argparse
import csv
import os
import re
import sys
import warnings

PLANES = ("Y", "U", "V")
STATS = ("min", "low", "avg", "high", "max")
BINS = 256


def nested_array(text, name):
    """Field @name of a structure's text form, an array of arrays (the
    per-plane histogram), as lists: PyGObject reads only flat arrays."""
    at = re.search(r"(?:^|[ ,])" + re.escape(name) + r"=(\([A-Za-z0-9_]+\))?", text)
    if at is None:
        raise ValueError(f"no field {name} in {text[:80]}...")
    stack, tokens = [[]], re.finditer(r"<|>|\([A-Za-z0-9_]+\)|[-+.\deE]+|[,\s]+",
                                      text[at.end():])
    for token in (t.group() for t in tokens):
        if token == "<":
            stack.append([])
        elif token == ">":
            done = stack.pop()
            stack[-1].append(done)
            if len(stack) == 1:
                return stack[0][0]
        elif token[0] not in "(, \t\n":
            stack[-1].append(float(token))
    raise ValueError(f"field {name} is not an array of arrays")


def stats_of(result):
    """(time in s, {plane: {stat: value}}, luma counts) from a signalstats
    result with per-channel=true."""
    planes = {p: {s: float(result[s][k]) for s in STATS} for k, p in enumerate(PLANES)}
    return result["timestamp"] / 1e9, planes, [int(n) for n in result["histogram"][0]]


def compute(source, pattern=None, frames=150):
    """[(time, planes, luma counts)] of each frame of the video file @source,
    or of @frames frames of videotestsrc's @pattern."""
    try:
        import gi
        gi.require_version("Gst", "1.0")
        from gi.repository import Gst
    except (ImportError, ValueError) as e:
        raise RuntimeError(f"{e}: install python3-gi and gir1.2-gstreamer-1.0")

    def field_value(structure, name):
        if name == "histogram":
            return nested_array(structure.to_string(), name)
        ok, array = structure.get_array(name)
        if not ok:
            return structure.get_value(name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            return [array.get_nth(i) for i in range(array.n_values)]

    Gst.init(None)
    if Gst.ElementFactory.find("cudareduce") is None:
        raise RuntimeError("no element \"cudareduce\"; set GST_PLUGIN_PATH to the "
                           "build directory's plugin/ folder")
    head = (f"videotestsrc pattern={pattern} num-buffers={frames} ! "
            "video/x-raw,format=NV12,width=640,height=360,framerate=30/1"
            if pattern else
            "filesrc name=src ! decodebin ! videoconvert ! video/x-raw,format=NV12")
    pipeline = Gst.parse_launch(
        f"{head} ! cudareduce monoid=signalstats per-channel=true ! fakesink sync=false")
    if not pattern:
        pipeline.get_by_name("src").set_property("location", source)
    bus = pipeline.get_bus()
    pipeline.set_state(Gst.State.PLAYING)
    rows = []
    try:
        while True:
            message = bus.timed_pop_filtered(
                Gst.CLOCK_TIME_NONE,
                Gst.MessageType.ELEMENT | Gst.MessageType.ERROR | Gst.MessageType.EOS)
            if message.type == Gst.MessageType.ERROR:
                raise RuntimeError(message.parse_error()[0].message)
            if message.type == Gst.MessageType.EOS:
                return rows
            s = message.get_structure()
            if s is not None and s.get_name() == "cudareduce":
                rows.append(stats_of({name: field_value(s, name)
                                      for name in ("timestamp", "histogram") + STATS}))
    finally:
        pipeline.set_state(Gst.State.NULL)


def write_csv(rows, path):
    with open(path, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["time_s"] + [f"{p}_{s}" for p in PLANES for s in STATS]
                     + [f"Y_count{k}" for k in range(BINS)])
        for t, planes, counts in rows:
            out.writerow([f"{t:.6f}"] + [f"{planes[p][s]:.6g}" for p in PLANES for s in STATS]
                         + counts)


def read_csv(path):
    """What write_csv wrote; ValueError for any other file."""
    n = len(PLANES) * len(STATS)
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader, [""])
        if header[0] != "time_s" or len(header) != 1 + n + BINS:
            raise ValueError(f"{path} is not a CSV of signalstats: its first line is not "
                             "time_s,Y_min,...")
        rows = []
        try:
            for r in reader:
                values = [float(v) for v in r[1:1 + n]]
                planes = {p: dict(zip(STATS, values[k * len(STATS):(k + 1) * len(STATS)]))
                          for k, p in enumerate(PLANES)}
                rows.append((float(r[0]), planes, [int(v) for v in r[1 + n:1 + n + BINS]]))
        except (ValueError, IndexError):
            raise ValueError(f"{path}: line {reader.line_num} is not a time and signalstats")
        return rows


def draw(rows, path, title="signalstats of each frame (cudareduce, on the GPU)"):
    """A PNG: each plane's low..high band and mean over time, and the luma
    histogram of the middle frame with its low and high."""
    try:
        import matplotlib
    except ImportError as e:
        raise RuntimeError(f"{e}: drawing needs python3-matplotlib (or --csv)")
    if not rows:
        raise ValueError("no frames to draw")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, hist) = plt.subplots(1, 2, figsize=(10, 3.6), dpi=100,
                                   gridspec_kw={"width_ratios": [3, 2]})
    times = [t for t, _, _ in rows]
    for p, color in zip(PLANES, ("black", "tab:blue", "tab:red")):
        ax.fill_between(times, [r[1][p]["low"] for r in rows],
                        [r[1][p]["high"] for r in rows], color=color, alpha=0.15, linewidth=0)
        ax.plot(times, [r[1][p]["avg"] for r in rows], color=color, linewidth=1,
                label=f"{p} mean, 10th to 90th percentile")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("value (8-bit)")
    ax.set_ylim(0, 255)
    ax.set_title(title, fontsize="medium")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper right", fontsize="x-small")

    t, planes, counts = rows[len(rows) // 2]
    hist.bar(range(BINS), counts, width=1.0, color="gray")
    for s in ("low", "high"):
        hist.axvline(planes["Y"][s], color="black", linestyle="--", linewidth=1)
    hist.set_yscale("log")
    hist.set_xlim(0, BINS)
    hist.set_xlabel("luma value")
    hist.set_ylabel("pixels")
    hist.set_title(f"luma at {t:.2f} s: YLOW {planes['Y']['low']:.0f}, "
                   f"YHIGH {planes['Y']['high']:.0f}", fontsize="medium")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def readable(path):
    """A command line's input file: one that exists and can be read, checked
    before anything is built, so that a wrong path is what is reported."""
    if not os.path.exists(path):
        raise argparse.ArgumentTypeError(f"cannot read {path}: no such file")
    if not os.path.isfile(path) or not os.access(path, os.R_OK):
        raise argparse.ArgumentTypeError(f"cannot read {path}: not a readable file")
    return path


def main(argv):
    parser = argparse.ArgumentParser(
        prog="plot_signalstats", description=__doc__.split("\n\n")[0],
        usage="%(prog)s [--csv | --plot] [--pattern NAME] [--frames N] [IN] OUT")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--csv", action="store_true", help="write the values as CSV, no plot")
    mode.add_argument("--plot", action="store_true", help="draw a CSV that --csv wrote")
    parser.add_argument("--pattern", metavar="NAME",
                        help="frames of videotestsrc's pattern NAME (ball, smpte, ...) "
                             "instead of a file")
    parser.add_argument("--frames", type=int, default=150, metavar="N",
                        help="how many frames of --pattern (150)")
    parser.add_argument("paths", nargs="+", metavar="[IN] OUT",
                        help="a video file (with --plot, a CSV), unless --pattern; then "
                             "the PNG (with --csv, the CSV) to write")
    args = parser.parse_args(argv[1:])
    wanted = 1 if args.pattern and not args.plot else 2
    if len(args.paths) != wanted:
        parser.error(f"give {'OUT' if wanted == 1 else 'IN and OUT'}")
    if args.pattern and args.plot:
        parser.error("--pattern and --plot do not go together")
    if wanted == 2:
        try:
            readable(args.paths[0])
        except argparse.ArgumentTypeError as e:
            parser.error(str(e))
    out = args.paths[-1]
    try:
        if args.plot:
            rows = read_csv(args.paths[0])
        else:
            rows = compute(None if args.pattern else args.paths[0], args.pattern, args.frames)
        if args.csv:
            write_csv(rows, out)
        else:
            draw(rows, out)
    except OSError as e:
        print(f"plot_signalstats: {e.filename}: {e.strerror}", file=sys.stderr)
        return 1
    except (RuntimeError, ValueError) as e:
        print(f"plot_signalstats: {e}", file=sys.stderr)
        return 1
    print(f"plot_signalstats: {len(rows)} frames to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
