"""test-python-examples.py SOURCE_DIR PLUGIN_DIR [--gpu]: the PyGObject
examples in examples/python.

Without --gpu (CPU suite): their helpers on messages and buffers made here,
as the element makes them, and each program run without the plugin and
without a CUDA driver: status 1, the element's message, no traceback.
With --gpu (GPU suite): each program reduces a test stream and prints
results whose values fit the input. Skipped (77) where python3-gi or numpy
is missing, unless CUDAREDUCE_REQUIRE_PYTHON=1.

Meson runs it with the system's plugins that the examples use and no others
(GST_PLUGIN_SYSTEM_PATH_1_0, tests/check/meson.build); the programs run here
inherit that."""
import csv
import importlib.util
import math
import os
import subprocess
import sys
import tempfile
import wave

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
plot_levels = load("plot_levels")
plot_signalstats = load("plot_signalstats")
loudness = load("loudness")
# The loudness reference (tests/check/bs1770.py), beside this file.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bs1770  # noqa: E402

Gst.init(None)


def write_wav(path, samples):
    """A 48 kHz stereo WAV of @samples, 16-bit bytes."""
    with wave.open(path, "wb") as w:
        w.setnchannels(2)
        w.setsampwidth(2)
        w.setframerate(48000)
        w.writeframes(samples)


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
    # Levels as the level element reports them: 10 log10 (sumsq / samples).
    t, levels = plot_levels.levels_of({"timestamp": 300_000_000, "sumsq": [4800.0, 0.0],
                                       "counts": [4800, 4800]})
    check(abs(t - 0.3) < 1e-12 and abs(levels[0]) < 1e-12 and levels[1] == -math.inf,
          f"levels_of: {t} {levels}")
    check(abs(plot_levels.level_db(48.0, 4800) + 20.0) < 1e-9, "level_db of -20 dB")
    with tempfile.TemporaryDirectory() as d:
        rows = [(0.1 * k, [-20.0 - k, -30.5 + k]) for k in range(20)]
        plot_levels.write_csv(rows, os.path.join(d, "l.csv"))
        back = plot_levels.read_csv(os.path.join(d, "l.csv"))
        check(len(back) == 20 and all(abs(a[0] - b[0]) < 1e-9 and a[1] == b[1]
                                      for a, b in zip(rows, back)), f"CSV round trip: {back[:2]}")
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            print("plot_levels.draw not tested: no matplotlib")
        else:
            png = os.path.join(d, "l.png")
            plot_levels.draw(back, png)
            with open(png, "rb") as f:
                head = f.read(8)
            check(head == b"\x89PNG\r\n\x1a\n" and os.path.getsize(png) > 10000,
                  f"draw: {head!r}, {os.path.getsize(png)} bytes")
        # signalstats: the per-plane histogram read from a message's text
        # (PyGObject reads flat arrays only), a CSV round trip, a picture.
        text = ("cudareduce, timestamp=(guint64)0, histogram=(GstValueArray)< < "
                "(guint64)1, (guint64)2 >, < (guint64)3, (guint64)4 > >, below=(guint64)< 0, 0 >;")
        check(plot_signalstats.nested_array(text, "histogram") == [[1, 2], [3, 4]],
              f"nested_array: {plot_signalstats.nested_array(text, 'histogram')}")
        result = {"timestamp": 500_000_000, "histogram": [list(range(256))] * 3}
        for k, stat in enumerate(plot_signalstats.STATS):
            result[stat] = [16 + k, 128 - k, 128 + k]
        t, planes, counts = plot_signalstats.stats_of(result)
        check(t == 0.5 and planes["Y"]["avg"] == 18 and planes["V"]["max"] == 132
              and counts == list(range(256)), f"stats_of: {t} {planes} {counts[:3]}")
        stats_rows = [(0.5 + k / 30, planes, counts) for k in range(40)]
        plot_signalstats.write_csv(stats_rows, os.path.join(d, "s.csv"))
        back = plot_signalstats.read_csv(os.path.join(d, "s.csv"))
        check(len(back) == 40 and back[3][1] == planes and back[3][2] == counts
              and abs(back[3][0] - stats_rows[3][0]) < 1e-6, f"signalstats CSV: {back[:1]}")
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            print("plot_signalstats.draw not tested: no matplotlib")
        else:
            png = os.path.join(d, "s.png")
            plot_signalstats.draw(back, png)
            check(os.path.getsize(png) > 10000, f"signalstats draw: {os.path.getsize(png)}")
        # demo_audio.py: 1.5 s of 48 kHz stereo, 16 bits, neither silent
        # nor clipped on either channel.
        p = run("demo_audio.py", {}, os.path.join(d, "demo.wav"), "1.5")
        check(p.returncode == 0, f"demo_audio: {p.returncode} {p.stderr}")
        with wave.open(os.path.join(d, "demo.wav"), "rb") as w:
            shape = (w.getnchannels(), w.getsampwidth(), w.getframerate(), w.getnframes())
            x = np.frombuffer(w.readframes(w.getnframes()), "<i2").reshape(-1, 2)
        peaks = np.abs(x.astype(np.int32)).max(axis=0)
        check(shape == (2, 2, 48000, 72000) and all(1000 < v < 32767 for v in peaks),
              f"demo_audio: {shape}, peaks {peaks}")

    # loudness: BS.1770's 48 kHz coefficients, its channel weights, and the
    # loudness of windows against the reference on fresh random stereo
    # noise, fed as the element reports them: each window's sums of squares
    # and counts of the K-weighted samples, every 100 ms.
    for got, want in zip(loudness.k_weighting(48000), bs1770.TABLE_48K):
        check(all(abs(a - b) < 1e-13 for a, b in zip(got[0] + got[1], want[0] + want[1])),
              f"loudness.k_weighting (48000): {got}")
    check([loudness.channel_weight(p) for p in ("front-left", "front-right", "front-center",
                                                "lfe1", "rear-left", "side-right")]
          == [1.0, 1.0, 1.0, 0.0, 1.41, 1.41], "loudness.channel_weight")
    rng = np.random.default_rng()
    x = rng.standard_normal((48000 * 4 + 2400, 2)) * rng.uniform(0.01, 0.3, size=2)
    y = bs1770.k_weight(x, 48000)
    got_m, got_s = [], []
    for end in range(4800, y.shape[0] + 1, 4800):
        for got, span in ((got_m, 4 * 4800), (got_s, 30 * 4800)):
            if end >= span:
                window = y[end - span:end]
                got.append((end, loudness.window_loudness(
                    list((window * window).sum(axis=0)), [span, span], [1.0, 1.0])))
    for what, got, want in (("momentary", got_m, bs1770.momentary(x, 48000)),
                            ("short-term", got_s, bs1770.short_term(x, 48000))):
        check(len(got) == len(want) and all(
            g[0] == w[0] and abs(g[1] - w[1]) < 1e-9 for g, w in zip(got, want)),
            f"loudness.window_loudness {what}: {got[:2]} against {want[:2]}")

    with tempfile.TemporaryDirectory() as empty:
        no_plugin = {"GST_PLUGIN_PATH_1_0": empty, "GST_PLUGIN_PATH": empty,
                     "GST_REGISTRY_1_0": os.path.join(empty, "registry.bin")}
        no_driver = {"GST_PLUGIN_PATH_1_0": plugin_dir,
                     "GST_REGISTRY_1_0": os.path.join(empty, "registry-plugin.bin"),
                     "GST_CUDAREDUCE_DRIVER_LIBRARY": "/nonexistent/libcuda.so.1"}
        wav = os.path.join(empty, "short.wav")
        write_wav(wav, bytes(4 * 4800))
        programs = (("bus_results.py", []), ("tensors_to_numpy.py", []), ("buffer_meta.py", []),
                    ("plot_levels.py", [wav, os.path.join(empty, "l.png")]),
                    ("plot_signalstats.py", ["--pattern", "smpte", os.path.join(empty, "s.png")]),
                    ("loudness.py", ["--test", "sine", "--seconds", "1"]))
        for program, args in programs:
            for env, says in ((no_plugin, "GST_PLUGIN_PATH"), (no_driver, "CUDA driver")):
                # The examples' plugins have no video source to start it with.
                if program == "plot_signalstats.py" and env is no_driver:
                    continue
                p = run(program, env, *args)
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
    # plot_levels on a WAV of fresh random noise, against levels computed
    # here from the same samples: 100 ms of 48 kHz is 4800 frames.
    rng = np.random.default_rng()
    frames = 48000 * 2 + 1234
    amplitudes = rng.uniform(0.05, 0.9, size=2)
    samples = (rng.uniform(-1, 1, size=(frames, 2)) * amplitudes * 32767).astype(np.int16)
    with tempfile.TemporaryDirectory() as d:
        write_wav(os.path.join(d, "noise.wav"), samples.tobytes())
        p = run("plot_levels.py", env, "--csv", os.path.join(d, "noise.wav"), os.path.join(d, "l.csv"))
        check(p.returncode == 0, f"plot_levels --csv: {p.returncode} {p.stderr}")
        if p.returncode == 0:
            got = plot_levels.read_csv(os.path.join(d, "l.csv"))
            x = samples.astype(np.float64) / 32768.0
            want = []
            for start in range(0, frames, 4800):
                chunk = x[start:start + 4800]
                want.append([10 * math.log10((chunk[:, c] ** 2).sum() / len(chunk)) for c in range(2)])
            check(len(got) == len(want), f"plot_levels: {len(got)} levels, not {len(want)}")
            for k, ((t, levels), ref) in enumerate(zip(got, want)):
                check(abs(t - 0.1 * k) < 1e-6 and all(abs(a - b) < 0.011 for a, b in zip(levels, ref)),
                      f"plot_levels at {t} s: {levels}, not {ref}")
    # loudness: within 0.1 LU of the numpy reference (tests/check/bs1770.py),
    # momentary and short-term, on a -23 dBFS stereo sine from audiotestsrc
    # (-23.0 LUFS, EBU Tech 3341's first case), and on WAVs of fresh pink
    # noise and of a tone burst, from their own 16-bit samples.
    with tempfile.TemporaryDirectory() as d:
        def loudness_rows(*args):
            out = os.path.join(d, "loudness.csv")
            p = run("loudness.py", env, *args, out)
            check(p.returncode == 0, f"loudness {args}: {p.returncode} {p.stderr}")
            if p.returncode != 0:
                return []
            with open(out, newline="") as f:
                return [(float(r["time_s"]), float(r["momentary_lufs"]),
                         float(r["short_term_lufs"]) if r["short_term_lufs"] else None)
                        for r in csv.DictReader(f)]

        def close(got, want):
            # Below EBU R128's absolute gate (-70 LUFS) only the filters'
            # decaying tails are left, in float32 here and float64 there:
            # both must be below it.
            if want <= -70:
                return got is not None and got <= -70
            return got is not None and abs(got - want) <= 0.1

        def against(rows, x, what):
            want_m = {end: v for end, v in bs1770.momentary(x, 48000)}
            want_s = {end: v for end, v in bs1770.short_term(x, 48000)}
            compared = 0
            for t, m, st in rows:
                end = round(t * 48000)
                if end in want_m:
                    compared += 1
                    check(close(m, want_m[end]), f"loudness {what} at {t} s: momentary "
                          f"{m:.3f}, numpy {want_m[end]:.3f}")
                if end in want_s:
                    check(close(st, want_s[end]),
                          f"loudness {what} at {t} s: short-term {st}, numpy {want_s[end]:.3f}")
            check(compared >= len(want_m) - 1, f"loudness {what}: {compared} of {len(want_m)} compared")

        rows = loudness_rows("--test", "sine", "--seconds", "4")
        check(len(rows) >= 36 and all(abs(m + 23.0) <= 0.1 for _, m, _ in rows)
              and all(abs(st + 23.0) <= 0.1 for _, _, st in rows if st is not None),
              f"loudness of a -23 dBFS sine: {rows[:3]} ... {rows[-3:]}")
        frames = 48000 * 4
        spectrum = np.fft.rfft(rng.standard_normal((frames, 2)), axis=0)
        spectrum[1:] /= np.sqrt(np.fft.rfftfreq(frames, 1 / 48000)[1:])[:, None]
        spectrum[0] = 0
        pink = np.fft.irfft(spectrum, frames, axis=0)
        pink *= 0.1 / np.sqrt(np.mean(pink * pink))
        t = np.arange(frames) / 48000
        burst = np.where((t >= 1.0) & (t < 2.5), 0.3 * np.sin(2 * np.pi * 1000 * t), 0.0)
        for what, signal in (("pink noise", pink), ("tone burst", np.stack([burst, burst * 0.5], axis=1))):
            samples = np.clip(np.round(signal * 32767), -32768, 32767).astype(np.int16)
            write_wav(os.path.join(d, "in.wav"), samples.tobytes())
            against(loudness_rows(os.path.join(d, "in.wav")), samples / 32768.0, what)

    # plot_signalstats on SMPTE bars: per plane, min <= low <= avg <= high
    # <= max, bars of more than one luma, and a count for every pixel.
    with tempfile.TemporaryDirectory() as d:
        p = run("plot_signalstats.py", env, "--csv", "--pattern", "smpte", "--frames", "4",
                os.path.join(d, "s.csv"))
        check(p.returncode == 0, f"plot_signalstats --csv: {p.returncode} {p.stderr}")
        if p.returncode == 0:
            got = plot_signalstats.read_csv(os.path.join(d, "s.csv"))
            check(len(got) == 4, f"plot_signalstats: {len(got)} frames")
            for t, planes, counts in got:
                check(all(v["min"] <= v["low"] <= v["avg"] <= v["high"] <= v["max"]
                          for v in planes.values())
                      and planes["Y"]["low"] < planes["Y"]["high"]
                      and sum(counts) == 640 * 360, f"plot_signalstats at {t} s: {planes}")
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
