#!/usr/bin/env python3
"""cudareduce's tensor output into numpy arrays, from an appsink.

With output=tensor, each result is a buffer of one GstMemory per result
field (other/tensors, format=static): C values of the field's type with
per-channel=true, one otherwise. tensors_of() turns such a buffer into a
dict of numpy arrays named after the fields, using the caps' "types".

    GST_PLUGIN_PATH=build/plugin examples/python/tensors_to_numpy.py [MONOID [CHANNELS]]

Needs python3-gi, gir1.2-gstreamer-1.0 and python3-numpy.
"""
import argparse
import sys

try:
    import gi
    import numpy as np

    gi.require_version("Gst", "1.0")
    from gi.repository import Gst
except (ImportError, ValueError) as e:
    sys.exit(f"tensors_to_numpy: {e}: install python3-gi, gir1.2-gstreamer-1.0 "
             "and python3-numpy")

# Tensor type names (NNStreamer's, as the caps give them) as numpy dtypes,
# in the machine's byte order, as the element writes them.
DTYPES = {
    "int8": np.int8, "uint8": np.uint8, "int16": np.int16, "uint16": np.uint16,
    "int32": np.int32, "uint32": np.uint32, "int64": np.int64,
    "uint64": np.uint64, "float32": np.float32, "float64": np.float64,
}


def tensor_types(caps):
    """The dtypes of the tensors that caps describe, in order."""
    structure = caps.get_structure(0)
    types = structure.get_string("types")
    return [DTYPES[t] for t in types.split(",")]


def tensors_of(buffer, caps, names):
    """A result buffer as {name: numpy array}, one array per GstMemory."""
    dtypes = tensor_types(caps)
    if buffer.n_memory() != len(dtypes):
        raise ValueError(f"{buffer.n_memory()} memories for {len(dtypes)} tensors")
    arrays = {}
    for k, dtype in enumerate(dtypes):
        memory = buffer.peek_memory(k)
        ok, info = memory.map(Gst.MapFlags.READ)
        if not ok:
            raise RuntimeError(f"could not map tensor {k}")
        try:
            # A copy: the memory goes back to the pipeline once unmapped.
            arrays[names[k] if k < len(names) else str(k)] = np.frombuffer(
                info.data, dtype=dtype).copy()
        finally:
            memory.unmap(info)
    return arrays


def channel_count(text):
    """A command line's channel count: 1 to 64 (what audio/x-raw takes)."""
    if not text.isdigit() or not 1 <= int(text) <= 64:
        raise argparse.ArgumentTypeError(f"'{text}' is not a channel count from 1 to 64")
    return int(text)


def main(argv):
    parser = argparse.ArgumentParser(prog="tensors_to_numpy", description=__doc__.split("\n")[0])
    parser.add_argument("monoid", nargs="?", default="mean_var",
                        help="a built-in monoid, a .monoid file, or several joined by '+' "
                        "(default mean_var)")
    parser.add_argument("channels", nargs="?", default=2, type=channel_count,
                        help="channels of the test sound (default 2)")
    args = parser.parse_args(argv[1:])
    monoid, channels = args.monoid, args.channels
    # The field names, for labels: the monoid's result fields, in order.
    names = {"mean_var": ["mean", "variance"], "minmax": ["min", "max"],
             "sumsq": ["sum", "sumsq"], "argmax": ["value", "index"]}.get(monoid, [])
    Gst.init(None)
    if Gst.ElementFactory.find("cudareduce") is None:
        print("tensors_to_numpy: no element \"cudareduce\"; set GST_PLUGIN_PATH "
              "to the build directory's plugin/ folder", file=sys.stderr)
        return 1
    pipeline = Gst.parse_launch(
        "audiotestsrc num-buffers=5 wave=white-noise ! "
        f"audio/x-raw,format=F32LE,channels={channels},rate=48000 ! "
        "cudareduce name=reduce per-channel=true output=tensor ! "
        "appsink name=sink sync=false")
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
            print(f"tensors_to_numpy: {error.message}", file=sys.stderr)
            status = 1
            break
        sample = sink.emit("try-pull-sample", Gst.SECOND // 10)
        if sample is None:
            continue
        arrays = tensors_of(sample.get_buffer(), sample.get_caps(), names)
        pts = sample.get_buffer().pts
        print(f"{pts / Gst.SECOND:.3f} s:",
              {name: array.tolist() for name, array in arrays.items()})
    pipeline.set_state(Gst.State.NULL)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
