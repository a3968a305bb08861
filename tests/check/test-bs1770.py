"""test-bs1770.py: the loudness reference (bs1770.py) against what the
standards state, and GStreamer's audioiirfilter, with the coefficients
bs1770.k_weighting gives, against the reference's own filter.

Checked: the K-weighting coefficients at 48 kHz are BS.1770-4's tables;
stereo 1 kHz sines at -23 and -33 dBFS read -23.0 and -33.0 LUFS, momentary
and short-term, at 48 and 44.1 kHz (EBU Tech 3341's first cases, within its
0.1 LU), and a full-scale 997 Hz sine in one channel -3.01 LKFS (BS.1770-4,
annex 1); the time-domain filter equals the filters' exact frequency
response applied to fresh pink noise; windows of a tone burst end where
hops end and read the burst's level inside it; and audioiirfilter (two in
a row, a and b set from Python) gives the reference filter's samples, so
that the example's pipeline filters as BS.1770 does.

Skipped (77) without numpy; the audioiirfilter case is skipped without
PyGObject or gst-plugins-good's audiofx, unless CUDAREDUCE_REQUIRE_PYTHON=1."""
import math
import os
import random
import sys

try:
    import numpy as np
except ImportError as e:
    if os.environ.get("CUDAREDUCE_REQUIRE_PYTHON") == "1":
        print("FAIL: numpy missing:", e)
        sys.exit(1)
    print("SKIP: numpy missing:", e)
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bs1770  # noqa: E402

failures = []
seed = int(os.environ.get("CUDAREDUCE_TEST_SEED", random.randrange(1 << 31)))
print("seed", seed, "(CUDAREDUCE_TEST_SEED repeats a run)")
rng = np.random.default_rng(seed)


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL:", what)


def sine(rate, seconds, hz, dbfs, channels=2):
    t = np.arange(round(seconds * rate)) / rate
    wave = 10.0 ** (dbfs / 20.0) * np.sin(2.0 * math.pi * hz * t + rng.uniform(0, 2 * math.pi))
    return np.stack([wave] * channels, axis=1)


def pink(rate, seconds, channels=2, dbfs=-23.0):
    """Noise whose power falls as 1/f, @dbfs RMS, fresh each call."""
    n = round(seconds * rate)
    spectrum = np.fft.rfft(rng.standard_normal((n, channels)), axis=0)
    f = np.fft.rfftfreq(n, 1.0 / rate)
    spectrum[1:] /= np.sqrt(f[1:])[:, None]
    spectrum[0] = 0
    x = np.fft.irfft(spectrum, n, axis=0)
    return x * (10.0 ** (dbfs / 20.0) / np.sqrt(np.mean(x * x)))


def test_table():
    for rate_stage, table_stage, name in zip(bs1770.k_weighting(48000), bs1770.TABLE_48K,
                                             ("shelf", "high-pass")):
        for got, want in zip(rate_stage[0] + rate_stage[1], table_stage[0] + table_stage[1]):
            check(abs(got - want) < 1e-13, f"{name} at 48 kHz: {got!r}, BS.1770 has {want!r}")


def test_sines():
    for rate in (48000, 44100):
        for level in (-23.0, -33.0):
            x = sine(rate, 3.5, 1000.0, level)
            m, s = bs1770.momentary(x, rate), bs1770.short_term(x, rate)
            check(len(m) == 32 and len(s) == 6, f"{rate} Hz: {len(m)} momentary, {len(s)} short-term")
            for what, values in (("momentary", m), ("short-term", s)):
                worst = max(abs(v - level) for _, v in values)
                check(worst <= 0.1, f"{rate} Hz, {level} dBFS: {what} off by {worst:.3f} LU")
        x = sine(rate, 1.0, 997.0, 0.0)
        x[:, 1] = 0
        v = bs1770.momentary(x, rate)[-1][1]
        check(abs(v - -3.01) < 0.01, f"{rate} Hz: full-scale 997 Hz in one channel {v:.3f} LKFS")


def response(stage, f, rate):
    """The stage's gain at @f Hz: b(z) / a(z), z = e^(j 2 pi f / rate)."""
    z1 = np.exp(-2j * math.pi * f / rate)
    (b0, b1, b2), (a0, a1, a2) = stage
    return (b0 + b1 * z1 + b2 * z1 * z1) / (a0 + a1 * z1 + a2 * z1 * z1)


def test_frequency_response():
    rate = 48000
    x = pink(rate, 2.0)
    y = bs1770.k_weight(x, rate)
    f = np.fft.rfftfreq(x.shape[0], 1.0 / rate)
    h = np.ones_like(f, dtype=complex)
    for stage in bs1770.k_weighting(rate):
        h *= response(stage, f, rate)
    # Circular, so its first samples hold the end's wrapped tail: compare
    # after the filters' memory (a pole at radius 0.995) has gone.
    z = np.fft.irfft(np.fft.rfft(x, axis=0) * h[:, None], x.shape[0], axis=0)
    block = round(0.4 * rate)
    for start in range(rate // 2, x.shape[0] - block + 1, block):
        a = np.mean(y[start:start + block] ** 2, axis=0)
        b = np.mean(z[start:start + block] ** 2, axis=0)
        worst = float(np.max(np.abs(10 * np.log10(a / b))))
        check(worst < 1e-6, f"pink noise from sample {start}: time and frequency domains differ by {worst:g} dB")


def test_burst():
    """1 s of 1 kHz at -20 dBFS after 1 s of silence, then 1.55 s of it:
    hops end every 4,800 samples; windows wholly in the tone read -20.0,
    those wholly in silence -inf."""
    rate = 48000
    x = np.zeros((round(3.55 * rate), 2))
    x[rate:2 * rate] = sine(rate, 1.0, 1000.0, -20.0)
    m = bs1770.momentary(x, rate)
    check([end for end, _ in m] == list(range(19200, x.shape[0] + 1, 4800)), "momentary windows' ends")
    for end, v in m:
        if end - 19200 >= rate + 4800 and end <= 2 * rate:
            check(abs(v - -20.0) < 0.1, f"momentary ending at {end}: {v:.3f} LUFS in the burst")
        if end <= rate:
            check(v == -math.inf, f"momentary ending at {end}: {v} LUFS in silence")
    s = bs1770.short_term(x, rate)
    loudest = max(v for _, v in s)
    # A third of 3 s holds the tone: 10 log10 (1/3) below it, to 0.1 LU.
    check(abs(loudest - (-20.0 + 10 * math.log10(1 / 3))) < 0.1, f"short-term at most {loudest:.3f} LUFS")


def test_audioiirfilter():
    try:
        import gi

        gi.require_version("Gst", "1.0")
        from gi.repository import Gst
    except (ImportError, ValueError) as e:
        return skip(f"PyGObject missing: {e}")
    Gst.init(None)
    if Gst.ElementFactory.find("audioiirfilter") is None:
        return skip("audioiirfilter (gst-plugins-good's audiofx) missing")
    for rate in (48000, 44100):
        x = pink(rate, 0.5)
        want = bs1770.k_weight(x, rate)
        for fmt, dtype, tolerance in (("F64LE", np.float64, 1e-12), ("F32LE", np.float32, 1e-6)):
            got = run_filters(Gst, x.astype(dtype), fmt, rate)
            worst = float(np.max(np.abs(got - want))) if got.shape == want.shape else math.inf
            check(worst < tolerance, f"audioiirfilter, {fmt} at {rate} Hz: {got.shape} samples, off by {worst:g}")


def run_filters(Gst, x, fmt, rate):
    pipeline = Gst.parse_launch(
        f"appsrc name=src format=time caps=audio/x-raw,format={fmt},layout=interleaved,"
        f"rate={rate},channels={x.shape[1]} ! audioiirfilter name=shelf ! "
        "audioiirfilter name=highpass ! appsink name=sink sync=false")
    for name, (b, a) in zip(("shelf", "highpass"), bs1770.k_weighting(rate)):
        stage = pipeline.get_by_name(name)
        stage.set_property("b", list(b))
        stage.set_property("a", list(a))
    src, sink = pipeline.get_by_name("src"), pipeline.get_by_name("sink")
    pipeline.set_state(Gst.State.PLAYING)
    src.emit("push-buffer", Gst.Buffer.new_wrapped(x.tobytes()))
    src.emit("end-of-stream")
    chunks = []
    while True:
        sample = sink.emit("try-pull-sample", 10 * Gst.SECOND)
        if sample is None:
            break
        buf = sample.get_buffer()
        chunks.append(np.frombuffer(buf.extract_dup(0, buf.get_size()), dtype=x.dtype))
    pipeline.set_state(Gst.State.NULL)
    data = np.concatenate(chunks) if chunks else np.zeros(0, dtype=x.dtype)
    return data.reshape(-1, x.shape[1]).astype(np.float64)


skipped = []


def skip(why):
    if os.environ.get("CUDAREDUCE_REQUIRE_PYTHON") == "1":
        check(False, why)
    else:
        print("skipped:", why)
        skipped.append(why)


for test in (test_table, test_sines, test_frequency_response, test_burst, test_audioiirfilter):
    before = len(failures)
    test()
    print(("ok  " if len(failures) == before else "FAIL"), test.__name__)
sys.exit(1 if failures else 0)
