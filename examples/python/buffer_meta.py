#!/usr/bin/env python3
"""Each buffer with its result, in Python: cudareduce attach-meta=true.

With attach-meta=true the element puts each result on the buffer it
describes, as a GstCustomMeta named GstCudaReduceResultMeta whose structure
has the result message's fields. An appsink (or a pad probe) then has the
buffer and its result together, with no matching by timestamp.

    GST_PLUGIN_PATH=build/plugin examples/python/buffer_meta.py [MONOID [CHANNELS]]

Needs python3-gi and gir1.2-gstreamer-1.0 (GStreamer 1.20 or later).
"""
import argparse
import sys
import warnings

try:
    import gi

    gi.require_version("Gst", "1.0")
    from gi.repository import Gst
except (ImportError, ValueError) as e:
    sys.exit(f"buffer_meta: {e}: install python3-gi and gir1.2-gstreamer-1.0")

META_NAME = "GstCudaReduceResultMeta"


def field_value(structure, name):
    """A field as Python: a list for an array field (per-channel values,
    which get_value cannot read without gst-python), else the value."""
    ok, array = structure.get_array(name)
    if ok:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            return [array.get_nth(i) for i in range(array.n_values)]
    return structure.get_value(name)


def result_of(buffer):
    """The result on @buffer as a dict, or None when it carries none (with
    interval, only the buffer that closes an interval has one)."""
    meta = buffer.get_custom_meta(META_NAME)
    if meta is None:
        return None
    structure = meta.get_structure()
    return {structure.nth_field_name(i): field_value(structure, structure.nth_field_name(i))
            for i in range(structure.n_fields())}


def channel_count(text):
    """A command line's channel count: 1 to 64 (what audio/x-raw takes)."""
    if not text.isdigit() or not 1 <= int(text) <= 64:
        raise argparse.ArgumentTypeError(f"'{text}' is not a channel count from 1 to 64")
    return int(text)


def main(argv):
    parser = argparse.ArgumentParser(prog="buffer_meta", description=__doc__.split("\n")[0])
    parser.add_argument("monoid", nargs="?", default="sumsq",
                        help="a built-in monoid, a .monoid file, or several joined by '+' "
                        "(default sumsq)")
    parser.add_argument("channels", nargs="?", default=2, type=channel_count,
                        help="channels of the test sound (default 2)")
    args = parser.parse_args(argv[1:])
    monoid, channels = args.monoid, args.channels
    Gst.init(None)
    if Gst.ElementFactory.find("cudareduce") is None:
        print("buffer_meta: no element \"cudareduce\"; set GST_PLUGIN_PATH to the "
              "build directory's plugin/ folder", file=sys.stderr)
        return 1
    pipeline = Gst.parse_launch(
        "audiotestsrc num-buffers=5 wave=white-noise ! "
        f"audio/x-raw,format=F32LE,channels={channels},rate=48000 ! "
        "cudareduce name=reduce per-channel=true attach-meta=true "
        "post-messages=false ! appsink name=sink sync=false")
    # Set here, not in the launch line, so that any name reaches the element
    # as it was typed, and the element says what is wrong with it.
    pipeline.get_by_name("reduce").set_property("monoid", monoid)
    sink = pipeline.get_by_name("sink")
    bus = pipeline.get_bus()
    pipeline.set_state(Gst.State.PLAYING)
    status = 0
    while not sink.get_property("eos"):
        # pull-sample would wait for ever after an error: poll the bus too.
        message = bus.pop_filtered(Gst.MessageType.ERROR)
        if message is not None:
            error, _ = message.parse_error()
            print(f"buffer_meta: {error.message}", file=sys.stderr)
            status = 1
            break
        sample = sink.emit("try-pull-sample", Gst.SECOND // 10)
        if sample is None:
            continue
        buffer = sample.get_buffer()
        print(f"{buffer.pts / Gst.SECOND:.3f} s, {buffer.get_size()} bytes:",
              result_of(buffer))
    pipeline.set_state(Gst.State.NULL)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
