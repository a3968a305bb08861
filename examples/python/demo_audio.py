#!/usr/bin/env python3
"""Writes a synthetic stereo WAV for trying plot_levels.py where no audio
file is at hand: the README's level plot was drawn from it.

    examples/python/demo_audio.py OUT.wav [SECONDS]

Left: notes of a few harmonics, each struck and decaying, louder in the
middle of the file. Right: noise that swells and fades, with a drum-like
thump every half second and a near-silent pause. 48 kHz, 16 bits, numpy
only; loud, and not clipped at the default length.
"""
import argparse
import math
import sys
import wave

try:
    import numpy as np
except ImportError as e:
    sys.exit(f"demo_audio: {e}: install python3-numpy")

RATE = 48000


def left_channel(t, rng):
    out = np.zeros_like(t)
    note = 0.4  # seconds from one note to the next
    seconds = t[-1] + 1.0 / RATE
    for k, start in enumerate(np.arange(0.0, seconds, note)):
        pitch = 220.0 * 2 ** (rng.integers(0, 12) / 12)
        since = t - start
        on = since >= 0
        envelope = np.where(on, np.exp(-np.where(on, since, 0) * 4.0), 0.0)
        # harmonics 1, 1/2 and 1/3, scaled to a peak of at most 1
        tone = sum(np.sin(2 * np.pi * pitch * h * t) / h for h in (1, 2, 3)) / 1.84
        # a slow crescendo to the middle of the file and back
        loudness = 0.15 + 0.75 * np.sin(np.pi * start / seconds)
        out += loudness * envelope * tone
    return out


def right_channel(t, rng):
    seconds = t[-1] + 1.0 / RATE
    swell = 0.03 + 0.14 * (0.5 - 0.5 * np.cos(2 * np.pi * t / seconds))
    out = swell * rng.standard_normal(t.size)
    since_beat = t % 0.5
    out += 0.4 * np.exp(-since_beat * 25.0) * np.sin(2 * np.pi * 60.0 * since_beat)
    pause = (t > 0.6 * seconds) & (t < 0.7 * seconds)
    out[pause] = 0.001 * rng.standard_normal(np.count_nonzero(pause))  # -60 dB
    return out


def seconds_of(text):
    """A command line's length: more than 0 and at most 600 s."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not 0 < seconds <= 600:
        raise argparse.ArgumentTypeError(f"'{text}' is not a length from 0 to 600 seconds")
    return seconds


def main(argv):
    parser = argparse.ArgumentParser(prog="demo_audio", description=__doc__.split("\n")[0])
    parser.add_argument("out", metavar="OUT.wav", help="the WAV file to write")
    parser.add_argument("seconds", nargs="?", default=12.0, type=seconds_of,
                        help="its length (default 12)")
    args = parser.parse_args(argv[1:])
    seconds = args.seconds
    rng = np.random.default_rng(2026)
    t = np.arange(int(seconds * RATE)) / RATE
    stereo = np.stack([left_channel(t, rng), right_channel(t, rng)], axis=1)
    samples = (np.clip(stereo, -1.0, 1.0) * 32767).astype("<i2")
    # Opened here, not by wave.open: a wave.Wave_write that failed to open
    # prints a traceback when it is collected (Python 3.11).
    try:
        out = open(args.out, "wb")
    except OSError as e:
        print(f"demo_audio: cannot write {args.out}: {e.strerror}", file=sys.stderr)
        return 1
    with out, wave.open(out, "wb") as w:
        w.setnchannels(2)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(samples.tobytes())
    print(f"demo_audio: {seconds:g} s of stereo to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
