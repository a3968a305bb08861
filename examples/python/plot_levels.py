#!/usr/bin/env python3
"""Per-channel levels of an audio file every 100 ms, computed on the GPU by
cudareduce, drawn over time as a PNG.

    GST_PLUGIN_PATH=build/plugin examples/python/plot_levels.py AUDIO_FILE OUT.png
    examples/python/plot_levels.py --csv AUDIO_FILE OUT.csv   # levels only
    examples/python/plot_levels.py --plot IN.csv OUT.png      # draw a CSV

The levels are RMS in dB, as the level element reports them: cudareduce
monoid=sumsq per-channel=true interval=100000000 gives each channel's sum
of squares per 100 ms, and 10 log10 (sumsq / samples) is its RMS level.
Computing needs python3-gi and gir1.2-gstreamer-1.0; drawing needs
matplotlib, which --plot lets another Python provide.
"""
import argparse
import csv
import math
import os
import sys
import warnings

INTERVAL_NS = 100_000_000


def level_db(sumsq, samples):
    """RMS level in dB of a channel's sum of squares over @samples."""
    if samples == 0 or sumsq <= 0:
        return -math.inf
    return 10.0 * math.log10(sumsq / samples)


def levels_of(result):
    """(time in s, [dB per channel]) from a cudareduce sumsq result."""
    return (result["timestamp"] / 1e9,
            [level_db(s, n) for s, n in zip(result["sumsq"], result["counts"])])


def compute(path):
    """[(time, [dB per channel])] for the audio file at @path."""
    try:
        import gi
        gi.require_version("Gst", "1.0")
        from gi.repository import Gst
    except (ImportError, ValueError) as e:
        raise RuntimeError(f"{e}: install python3-gi and gir1.2-gstreamer-1.0")

    def field_value(structure, name):
        ok, array = structure.get_array(name)
        if ok:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                return [array.get_nth(i) for i in range(array.n_values)]
        return structure.get_value(name)

    Gst.init(None)
    if Gst.ElementFactory.find("cudareduce") is None:
        raise RuntimeError("no element \"cudareduce\"; set GST_PLUGIN_PATH to the "
                           "build directory's plugin/ folder")
    pipeline = Gst.parse_launch(
        "filesrc name=src ! decodebin ! audioconvert ! audio/x-raw,format=F32LE ! "
        f"cudareduce monoid=sumsq per-channel=true interval={INTERVAL_NS} ! "
        "fakesink sync=false")
    pipeline.get_by_name("src").set_property("location", path)
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
                rows.append(levels_of({name: field_value(s, name)
                                       for name in ("timestamp", "sumsq", "counts")}))
    finally:
        pipeline.set_state(Gst.State.NULL)


def write_csv(rows, path):
    with open(path, "w", newline="") as f:
        out = csv.writer(f)
        channels = len(rows[0][1]) if rows else 0
        out.writerow(["time_s"] + [f"ch{c}_db" for c in range(channels)])
        for t, levels in rows:
            out.writerow([f"{t:.3f}"] + [f"{v:.2f}" for v in levels])


def read_csv(path):
    """What write_csv wrote; ValueError for any other file."""
    with open(path, newline="") as f:
        reader = csv.reader(f)
        if next(reader, [""])[0] != "time_s":
            raise ValueError(f"{path} is not a CSV of levels: its first line is not "
                             "time_s,ch0_db,...")
        try:
            return [(float(r[0]), [float(v) for v in r[1:]]) for r in reader]
        except (ValueError, IndexError):
            raise ValueError(f"{path}: line {reader.line_num} is not a time and levels")


def draw(rows, path, title="Per-channel RMS level, every 100 ms (cudareduce)"):
    """A PNG of each channel's level over time."""
    try:
        import matplotlib
    except ImportError as e:
        raise RuntimeError(f"{e}: drawing needs python3-matplotlib (or --csv)")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 3.5), dpi=100)
    times = [t for t, _ in rows]
    for c in range(len(rows[0][1]) if rows else 0):
        ax.plot(times, [max(levels[c], -100.0) for _, levels in rows],
                label=f"channel {c}", linewidth=1)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("RMS level (dB)")
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower right", fontsize="small")
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
    parser = argparse.ArgumentParser(prog="plot_levels", description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--csv", action="store_true", help="write the levels as CSV, no plot")
    mode.add_argument("--plot", action="store_true", help="draw a CSV that --csv wrote")
    parser.add_argument("source", type=readable, metavar="IN",
                        help="an audio file (with --plot, a CSV of levels)")
    parser.add_argument("out", metavar="OUT", help="the PNG (with --csv, the CSV) to write")
    args = parser.parse_args(argv[1:])
    try:
        rows = read_csv(args.source) if args.plot else compute(args.source)
        if args.csv:
            write_csv(rows, args.out)
        else:
            draw(rows, args.out)
    except OSError as e:
        print(f"plot_levels: {e.filename}: {e.strerror}", file=sys.stderr)
        return 1
    except (RuntimeError, ValueError) as e:
        print(f"plot_levels: {e}", file=sys.stderr)
        return 1
    print(f"plot_levels: {len(rows)} levels of {len(rows[0][1]) if rows else 0} "
          f"channels to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
