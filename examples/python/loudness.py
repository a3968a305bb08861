#!/usr/bin/env python3
"""EBU R128 momentary and short-term loudness of an audio file or a test
signal, every 100 ms: GStreamer's audioiirfilter K-weights the samples and
two cudareduce elements sum their squares per channel over sliding windows
on the GPU.

    GST_PLUGIN_PATH=build/plugin examples/python/loudness.py AUDIO_FILE [OUT.csv]
    examples/python/loudness.py --test sine|pink [--seconds S] [--level DBFS] [OUT.csv]

The pipeline resamples to 48 kHz float, K-weights in two audioiirfilter
elements (ITU-R BS.1770-4's high shelf, then its high-pass; their
coefficients are set from here, as gst-launch-1.0 cannot set audioiirfilter's
a and b), and reduces every 100 ms with

    cudareduce monoid=sumsq per-channel=true interval=100000000 window=400000000 !
    cudareduce monoid=sumsq per-channel=true interval=100000000 window=3000000000

Each result gives each channel's sum of squares and sample count over the
last 400 ms (momentary) or 3 s (short-term), combined on the GPU from each
100 ms hop's: per channel the mean square z over the window, then

    L = -0.691 + 10 log10 (sum of G_c z_c)   LUFS

with G = 1 for the front channels, 1.41 for the surrounds and 0 for LFE.
Results start once a whole momentary window has passed (its message says
window-complete=true); short-term values once a whole 3 s. Without OUT.csv they are
printed. Needs python3-gi and gir1.2-gstreamer-1.0.
"""
import argparse
import csv
import math
import os
import sys
import warnings

HOP_NS = 100_000_000
MOMENTARY_NS = 400_000_000
SHORT_TERM_NS = 3_000_000_000
RATE = 48000

# BS.1770-4's K-weighting as analog prototypes whose bilinear transform
# gives its 48 kHz tables: the shelf's centre (Hz), gain (dB) and Q, then
# the high-pass's centre and Q.
SHELF = (1681.974450955533, 3.999843853973347, 0.7071752369554196)
HIGH_PASS = (38.13547087602444, 0.5003270373238773)


def k_weighting(rate):
    """The shelf's and the high-pass's ((b0, b1, b2), (1, a1, a2)) at @rate Hz,
    as audioiirfilter's b and a."""
    f0, gain_db, q = SHELF
    k = math.tan(math.pi * f0 / rate)
    vh = 10.0 ** (gain_db / 20.0)
    vb = vh ** 0.4996667741545416
    a0 = 1.0 + k / q + k * k
    shelf = (((vh + vb * k / q + k * k) / a0, 2.0 * (k * k - vh) / a0,
              (vh - vb * k / q + k * k) / a0),
             (1.0, 2.0 * (k * k - 1.0) / a0, (1.0 - k / q + k * k) / a0))
    f0, q = HIGH_PASS
    k = math.tan(math.pi * f0 / rate)
    a0 = 1.0 + k / q + k * k
    high_pass = ((1.0, -2.0, 1.0),
                 (1.0, 2.0 * (k * k - 1.0) / a0, (1.0 - k / q + k * k) / a0))
    return shelf, high_pass


def channel_weight(position):
    """BS.1770's weight of a channel at @position (GstAudioChannelPosition's
    nick): 0 for LFE, 1.41 for the surrounds, 1 otherwise."""
    if position.startswith("lfe"):
        return 0.0
    if position in ("rear-left", "rear-right", "side-left", "side-right",
                    "surround-left", "surround-right"):
        return 1.41
    return 1.0


def loudness(mean_squares, weights):
    """LUFS of per-channel mean squares; -inf for silence."""
    power = sum(w * z for w, z in zip(weights, mean_squares))
    return -0.691 + 10.0 * math.log10(power) if power > 0 else -math.inf


def window_loudness(sumsq, counts, weights):
    """LUFS of one window's per-channel sums of squares and sample counts,
    as a cudareduce sumsq result gives them."""
    return loudness([q / n if n else 0.0 for q, n in zip(sumsq, counts)], weights)


def source_of(args):
    """The pipeline's source, up to 48 kHz float samples."""
    convert = f"audioconvert ! audioresample ! audio/x-raw,format=F32LE,rate={RATE}"
    if args.test is None:
        return f"filesrc name=src ! decodebin ! {convert}"
    wave = {"sine": "sine freq=1000", "pink": "pink-noise"}[args.test]
    # audiotestsrc's volume is the peak amplitude: a sine's dBFS. Pink
    # noise at that volume has a lower RMS; its loudness is what it is.
    buffers = max(1, round(args.seconds * 100))
    return (f"audiotestsrc wave={wave} volume={10.0 ** (args.level / 20.0):.9f} "
            f"samplesperbuffer={RATE // 100} num-buffers={buffers} ! "
            f"audio/x-raw,channels=2 ! {convert}")


def compute(args):
    """[(end of the hop in s, momentary, short-term)] of the source."""
    try:
        import gi
        gi.require_version("Gst", "1.0")
        gi.require_version("GstAudio", "1.0")
        from gi.repository import Gst, GstAudio
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
    for name in ("cudareduce", "audioiirfilter"):
        if Gst.ElementFactory.find(name) is None:
            raise RuntimeError(
                f"no element \"{name}\"; " +
                ("set GST_PLUGIN_PATH to the build directory's plugin/ folder"
                 if name == "cudareduce" else "install gstreamer1.0-plugins-good"))
    pipeline = Gst.parse_launch(
        f"{source_of(args)} ! audioiirfilter name=shelf ! audioiirfilter name=highpass ! "
        f"cudareduce name=momentary monoid=sumsq per-channel=true interval={HOP_NS} "
        f"window={MOMENTARY_NS} ! "
        f"cudareduce name=short-term monoid=sumsq per-channel=true interval={HOP_NS} "
        f"window={SHORT_TERM_NS} ! fakesink sync=false")
    if args.test is None:
        pipeline.get_by_name("src").set_property("location", args.source)
    for name, (b, a) in zip(("shelf", "highpass"), k_weighting(RATE)):
        stage = pipeline.get_by_name(name)
        stage.set_property("b", list(b))
        stage.set_property("a", list(a))
    bus = pipeline.get_bus()
    pipeline.set_state(Gst.State.PLAYING)
    # Each window's loudness by the end of its last hop, in ns; the rows
    # follow the complete momentary windows.
    momentary, short_term, weights = {}, {}, None
    try:
        while True:
            message = bus.timed_pop_filtered(
                Gst.CLOCK_TIME_NONE,
                Gst.MessageType.ELEMENT | Gst.MessageType.ERROR | Gst.MessageType.EOS)
            if message.type == Gst.MessageType.ERROR:
                raise RuntimeError(message.parse_error()[0].message)
            if message.type == Gst.MessageType.EOS:
                break
            s = message.get_structure()
            if s is None or s.get_name() != "cudareduce" or not s.get_value("window-complete"):
                continue
            if weights is None:
                caps = pipeline.get_by_name("momentary").get_static_pad("sink").get_current_caps()
                info = GstAudio.AudioInfo.new_from_caps(caps)
                weights = [channel_weight(GstAudio.AudioChannelPosition(p).value_nick)
                           for p in info.position[:info.channels]]
            end = field_value(s, "timestamp") + field_value(s, "duration")
            which = momentary if message.src.get_name() == "momentary" else short_term
            which[end] = window_loudness(field_value(s, "sumsq"), field_value(s, "counts"), weights)
    finally:
        pipeline.set_state(Gst.State.NULL)
    return [(end / 1e9, m, short_term.get(end)) for end, m in sorted(momentary.items())]


def write_csv(rows, path):
    with open(path, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["time_s", "momentary_lufs", "short_term_lufs"])
        for t, m, s in rows:
            out.writerow([f"{t:.3f}", f"{m:.3f}", "" if s is None else f"{s:.3f}"])


def shown(v):
    return "    --" if v is None else f"{v:6.1f}"


def readable(path):
    if not os.path.exists(path):
        raise argparse.ArgumentTypeError(f"cannot read {path}: no such file")
    if not os.path.isfile(path) or not os.access(path, os.R_OK):
        raise argparse.ArgumentTypeError(f"cannot read {path}: not a readable file")
    return path


def number(accept, what):
    """An argparse type: a finite number that @accept takes, else "'TEXT' is
    not @what"."""
    def parse(text):
        try:
            v = float(text)
        except ValueError:
            v = math.nan
        if not (math.isfinite(v) and accept(v)):
            raise argparse.ArgumentTypeError(f"'{text}' is not {what}")
        return v
    return parse


def main(argv):
    parser = argparse.ArgumentParser(
        prog="loudness", description=__doc__.split("\n\n")[0],
        usage="%(prog)s [--test sine|pink] [--seconds S] [--level DBFS] [AUDIO_FILE] [OUT.csv]")
    parser.add_argument("--test", choices=("sine", "pink"),
                        help="a stereo test signal instead of a file: a 1 kHz sine or pink noise")
    parser.add_argument("--seconds", type=number(lambda v: v > 0, "a length in seconds"),
                        default=5.0,
                        help="the test signal's length (default 5)")
    parser.add_argument("--level", type=number(lambda v: v <= 0, "a level in dBFS (0 or below)"),
                        default=-23.0,
                        help="the test signal's peak in dBFS (default -23)")
    parser.add_argument("paths", nargs="*", metavar="[AUDIO_FILE] [OUT.csv]")
    args = parser.parse_args(argv[1:])
    wanted = 1 if args.test else 2
    if len(args.paths) > wanted or (args.test is None and not args.paths):
        parser.error("give AUDIO_FILE [OUT.csv], or --test SIGNAL [OUT.csv]")
    args.source = None if args.test else args.paths[0]
    out = args.paths[-1] if len(args.paths) == wanted else None
    if args.source is not None:
        try:
            readable(args.source)
        except argparse.ArgumentTypeError as e:
            parser.error(str(e))
    try:
        rows = compute(args)
        if out:
            write_csv(rows, out)
    except OSError as e:
        print(f"loudness: {e.filename}: {e.strerror}", file=sys.stderr)
        return 1
    except RuntimeError as e:
        print(f"loudness: {e}", file=sys.stderr)
        return 1
    if out:
        print(f"loudness: {len(rows)} results to {out}")
    else:
        print("  time s  momentary  short-term (LUFS)")
        for t, m, s in rows:
            print(f"{t:8.1f}  {shown(m)}     {shown(s)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
