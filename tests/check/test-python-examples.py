"""test-python-examples.py SOURCE_DIR PLUGIN_DIR [--gpu]: the PyGObject
examples in examples/python.

Without --gpu (CPU suite): their helpers on messages and buffers made here,
as the element makes them, and each program run without the plugin and
without a CUDA driver: status 1, the element's message, no traceback.
With --gpu (GPU suite): each program reduces a test stream and prints
results whose values fit the input. Skipped (77) where python3-gi or numpy
is missing, unless CUDAREDUCE_REQUIRE_PYTHON=1."""
import importlib.util
import os
import subprocess
import sys
import tempfile

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL:", what)


try:
    import gi
    import numpy as np

    gi.require_version("Gst", "1.0")
    from gi.repository import Gst
except (ImportError, ValueError) as e:
    if os.environ.get("CUDAREDUCE_REQUIRE_PYTHON") == "1":
        print("FAIL: python3-gi, gir1.2-gstreamer-1.0 or numpy missing:", e)
        sys.exit(1)
    print("SKIP: python3-gi, gir1.2-gstreamer-1.0 or numpy missing:", e)
    sys.exit(77)

source, plugin_dir = sys.argv[1], sys.argv[2]
gpu = "--gpu" in sys.argv[3:]
examples = os.path.join(source, "examples", "python")


def load(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(examples, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


bus_results = load("bus_results")
tensors_to_numpy = load("tensors_to_numpy")
buffer_meta = load("buffer_meta")
Gst.init(None)


def run(program, env_extra, *args):
    env = dict(os.environ, **env_extra)
    return subprocess.run([sys.executable, os.path.join(examples, program), *args],
                          env=env, capture_output=True, text=True, timeout=120)


if not gpu:
    # A per-channel message as the element posts it: arrays of values.
    s = Gst.Structure.from_string(
        "cudareduce, monoid=(string)sumsq, count=(guint64)96000, "
        "counts=(guint64)< 48000, 48000 >, sum=(double)< 1.5, -2.5 >, "
        "sumsq=(double)< 10.25, 20.5 >, timestamp=(guint64)0")[0]
    message = Gst.Message.new_element(None, s)
    result = bus_results.cudareduce_result(message)
    check(result == {"monoid": "sumsq", "count": 96000, "counts": [48000, 48000],
                     "sum": [1.5, -2.5], "sumsq": [10.25, 20.5], "timestamp": 0},
          f"cudareduce_result: {result}")
    other = Gst.Message.new_element(None, Gst.Structure.new_empty("level"))
    check(bus_results.cudareduce_result(other) is None, "a level message is not a result")

    # A tensor buffer as the element pushes it: one memory per field.
    mean = np.array([0.25, -0.5], dtype=np.float64)
    index = np.array([7, 12345678901], dtype=np.uint64)
    buffer = Gst.Buffer.new()
    # Kept alive here: the memories wrap them without a copy.
    data = [array.tobytes() for array in (mean, index)]
    for d in data:
        buffer.append_memory(Gst.Memory.new_wrapped(0, d, len(d), 0, None, None))
    caps = Gst.Caps.from_string('other/tensors, format=static, num_tensors=2, '
                                'types="float64,uint64", dimensions="2,2"')
    arrays = tensors_to_numpy.tensors_of(buffer, caps, ["mean", "index"])
    check(list(arrays) == ["mean", "index"], f"tensors_of names: {list(arrays)}")
    check(arrays["mean"].dtype == np.float64 and np.array_equal(arrays["mean"], mean),
          f"tensors_of mean: {arrays['mean']}")
    check(arrays["index"].dtype == np.uint64 and np.array_equal(arrays["index"], index),
          f"tensors_of index: {arrays['index']}")

    # A buffer with a result meta as the element attaches it (the plugin is
    # not loaded in this process, so the name is registered here).
    Gst.Meta.register_custom(buffer_meta.META_NAME, [], None, None)
    with_meta = Gst.Buffer.new()
    check(buffer_meta.result_of(with_meta) is None, "result_of a buffer without a meta")
    # An empty one: PyGObject's get_structure() gives a copy, so Python
    # cannot fill a meta as the element does; the GPU run below reads full
    # ones.
    check(with_meta.add_custom_meta(buffer_meta.META_NAME) is not None, "add_custom_meta")
    check(buffer_meta.result_of(with_meta) == {}, "result_of a buffer with an empty meta")

    with tempfile.TemporaryDirectory() as empty:
        no_plugin = {"GST_PLUGIN_PATH_1_0": empty, "GST_PLUGIN_PATH": empty,
                     "GST_REGISTRY_1_0": os.path.join(empty, "registry.bin")}
        no_driver = {"GST_PLUGIN_PATH_1_0": plugin_dir,
                     "GST_REGISTRY_1_0": os.path.join(empty, "registry-plugin.bin"),
                     "GST_CUDAREDUCE_DRIVER_LIBRARY": "/nonexistent/libcuda.so.1"}
        for program in ("bus_results.py", "tensors_to_numpy.py", "buffer_meta.py"):
            for env, says in ((no_plugin, "GST_PLUGIN_PATH"), (no_driver, "CUDA driver")):
                p = run(program, env)
                check(p.returncode == 1 and says in p.stderr and "Traceback" not in p.stderr,
                      f"{program} ({says}): status {p.returncode}, {p.stderr!r}")
else:
    env = {"GST_PLUGIN_PATH_1_0": plugin_dir}
    p = run("bus_results.py", env, "sumsq", "3")
    # No GPU here: skipped, as the other GPU tests are, unless one is
    # required (CUDAREDUCE_REQUIRE_GPU=1, as on the GPU machine).
    no_gpu = ("CUDA driver library could not be opened", "reports no GPU",
              "failed to initialise", "toolkit's stub")
    if p.returncode == 1 and any(s in p.stderr for s in no_gpu):
        if os.environ.get("CUDAREDUCE_REQUIRE_GPU") != "1":
            print("SKIP: no GPU:", p.stderr.strip())
            sys.exit(77)
    lines = [eval(line) for line in p.stdout.splitlines() if line.startswith("{")]
    check(p.returncode == 0 and len(lines) == 5, f"bus_results: {p.returncode} {p.stderr} {p.stdout}")
    for r in lines:
        check(len(r["sumsq"]) == 3 and all(v > 0 for v in r["sumsq"])
              and r["counts"] == [r["count"] // 3] * 3,
              f"bus_results result: {r}")
    p = run("buffer_meta.py", env, "sumsq", "2")
    lines = [line for line in p.stdout.splitlines() if " bytes: " in line]
    check(p.returncode == 0 and len(lines) == 5, f"buffer_meta: {p.returncode} {p.stderr} {p.stdout}")
    for line in lines:
        r = eval(line.split(" bytes: ", 1)[1])
        check(r is not None and len(r["sumsq"]) == 2 and all(v > 0 for v in r["sumsq"]),
              f"buffer_meta result: {line}")
    p = run("tensors_to_numpy.py", env, "mean_var", "2")
    lines = [line for line in p.stdout.splitlines() if " s: " in line]
    check(p.returncode == 0 and len(lines) == 5, f"tensors_to_numpy: {p.returncode} {p.stderr} {p.stdout}")
    for line in lines:
        values = eval(line.split(" s: ", 1)[1])
        # audiotestsrc's white noise: uniform in [-0.8, 0.8] (its default
        # volume), so means near 0 and variances near 0.8^2 / 3 = 0.213;
        # over a buffer's 1024 samples, within a few percent.
        check(all(abs(m) < 0.1 for m in values["mean"])
              and all(0.17 < v < 0.26 for v in values["variance"]),
              f"tensors_to_numpy values: {line}")

print("python examples:", "FAILED" if failures else "ok")
sys.exit(1 if failures else 0)
