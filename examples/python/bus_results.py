#!/usr/bin/env python3
"""cudareduce's results from the bus, in Python (PyGObject).

Reduces a test sound per channel and prints each result as a dict; the
per-channel fields are lists, one value per channel.

    GST_PLUGIN_PATH=build/plugin examples/python/bus_results.py [MONOID [CHANNELS]]

Needs python3-gi and gir1.2-gstreamer-1.0. A result message is an element
message named "cudareduce"; its per-channel fields are GstValueArrays, which
Gst.Structure.get_value() cannot read without gst-python's overrides
("unknown type GstValueArray"): cudareduce_result() reads them with
get_array(), which works with plain PyGObject.
"""
import argparse
import sys
import warnings

try:
    import gi

    gi.require_version("Gst", "1.0")
    from gi.repository import Gst
except (ImportError, ValueError) as e:
    sys.exit(f"bus_results: {e}: install python3-gi and gir1.2-gstreamer-1.0")


def field_value(structure, name):
    """A field as Python: a list for an array field, else the value."""
    ok, array = structure.get_array(name)
    if ok:
        # GValueArray is deprecated in GLib, but it is what get_array gives.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            return [array.get_nth(i) for i in range(array.n_values)]
    return structure.get_value(name)


def cudareduce_result(message):
    """The fields of a cudareduce result message as a dict, or None for any
    other message."""
    structure = message.get_structure()
    if structure is None or structure.get_name() != "cudareduce":
        return None
    return {
        structure.nth_field_name(i): field_value(structure, structure.nth_field_name(i))
        for i in range(structure.n_fields())
    }


def channel_count(text):
    """A command line's channel count: 1 to 64 (what audio/x-raw takes)."""
    if not text.isdigit() or not 1 <= int(text) <= 64:
        raise argparse.ArgumentTypeError(f"'{text}' is not a channel count from 1 to 64")
    return int(text)


def main(argv):
    parser = argparse.ArgumentParser(prog="bus_results", description=__doc__.split("\n")[0])
    parser.add_argument("monoid", nargs="?", default="sumsq",
                        help="a built-in monoid, a .monoid file, or several joined by '+' "
                        "(default sumsq)")
    parser.add_argument("channels", nargs="?", default=2, type=channel_count,
                        help="channels of the test sound (default 2)")
    args = parser.parse_args(argv[1:])
    Gst.init(None)
    if Gst.ElementFactory.find("cudareduce") is None:
        print("bus_results: no element \"cudareduce\"; set GST_PLUGIN_PATH to the "
              "build directory's plugin/ folder", file=sys.stderr)
        return 1
    pipeline = Gst.parse_launch(
        "audiotestsrc num-buffers=5 wave=white-noise ! "
        f"audio/x-raw,format=F32LE,channels={args.channels},rate=48000 ! "
        "cudareduce name=reduce per-channel=true ! fakesink")
    # Set here, not in the launch line, so that any name reaches the element
    # as it was typed, and the element says what is wrong with it.
    pipeline.get_by_name("reduce").set_property("monoid", args.monoid)
    bus = pipeline.get_bus()
    pipeline.set_state(Gst.State.PLAYING)
    status = 0
    while True:
        message = bus.timed_pop_filtered(
            Gst.CLOCK_TIME_NONE,
            Gst.MessageType.ELEMENT | Gst.MessageType.ERROR | Gst.MessageType.EOS)
        if message.type == Gst.MessageType.ERROR:
            error, debug = message.parse_error()
            print(f"bus_results: {error.message}", file=sys.stderr)
            status = 1
            break
        if message.type == Gst.MessageType.EOS:
            break
        result = cudareduce_result(message)
        if result is not None:
            print(result)
    pipeline.set_state(Gst.State.NULL)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
