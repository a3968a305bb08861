"""bs1770.py: loudness as ITU-R BS.1770-4 and EBU R128 define it, in numpy,
as the reference the loudness example is checked against.

Momentary loudness is over the last 400 ms, short-term over the last 3 s,
each refreshed every 100 ms (EBU Tech 3341): per channel, the mean square
of the K-weighted samples over the window, then

    L = -0.691 + 10 log10 (sum over channels of G_c * z_c)   (LUFS)

with G = 1.0 for left, right and centre and 1.41 for the surround channels
(the LFE channel is left out). The K-weighting is two biquads, a high
shelf (the head's effect) and a high-pass (the "revised low-frequency
B-weighting"), whose coefficients BS.1770 tabulates for 48 kHz;
k_weighting() derives them for any rate from the analog prototypes that
reproduce the table.

Everything here is plain numpy and loops over samples, written for
clarity, not speed: it is a reference, not the implementation."""
import math

import numpy as np

# The analog prototypes' parameters: centre frequency (Hz), gain (dB) and Q
# of the shelf, and centre frequency and Q of the high-pass. With them the
# bilinear transform gives BS.1770's 48 kHz table to 14 digits.
SHELF_HZ, SHELF_DB, SHELF_Q = 1681.974450955533, 3.999843853973347, 0.7071752369554196
SHELF_VB_EXPONENT = 0.4996667741545416
HIGHPASS_HZ, HIGHPASS_Q = 38.13547087602444, 0.5003270373238773

# BS.1770-4's tables 1 and 2, at 48 kHz: (b0, b1, b2), (1, a1, a2).
TABLE_48K = (
    ((1.53512485958697, -2.69169618940638, 1.19839281085285),
     (1.0, -1.69065929318241, 0.73248077421585)),
    ((1.0, -2.0, 1.0), (1.0, -1.99004745483398, 0.99007225036621)),
)

# Channel weights by position (BS.1770-4 table 3): surrounds weigh 1.41.
SURROUND_WEIGHT = 1.41


def k_weighting(rate):
    """The two stages at @rate Hz, each ((b0, b1, b2), (1, a1, a2)): the
    shelf, then the high-pass."""
    k = math.tan(math.pi * SHELF_HZ / rate)
    vh = 10.0 ** (SHELF_DB / 20.0)
    vb = vh ** SHELF_VB_EXPONENT
    a0 = 1.0 + k / SHELF_Q + k * k
    shelf = ((
        (vh + vb * k / SHELF_Q + k * k) / a0,
        2.0 * (k * k - vh) / a0,
        (vh - vb * k / SHELF_Q + k * k) / a0,
    ), (1.0, 2.0 * (k * k - 1.0) / a0, (1.0 - k / SHELF_Q + k * k) / a0))
    k = math.tan(math.pi * HIGHPASS_HZ / rate)
    a0 = 1.0 + k / HIGHPASS_Q + k * k
    highpass = ((1.0, -2.0, 1.0),
                (1.0, 2.0 * (k * k - 1.0) / a0, (1.0 - k / HIGHPASS_Q + k * k) / a0))
    return shelf, highpass


def biquad(x, stage):
    """@x (samples, channels) through one stage, from rest, in double
    precision: direct form I, a channel at a time."""
    (b0, b1, b2), (_, a1, a2) = stage
    y = np.empty(x.shape, dtype=np.float64)
    for c in range(x.shape[1]):
        x1 = x2 = y1 = y2 = 0.0
        column = y[:, c]
        for n, xn in enumerate(x[:, c].tolist()):
            yn = b0 * xn + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
            column[n] = yn
            x2, x1, y2, y1 = x1, xn, y1, yn
    return y


def k_weight(x, rate):
    """@x (samples, channels) K-weighted."""
    for stage in k_weighting(rate):
        x = biquad(x, stage)
    return x


def loudness(mean_squares, weights):
    """LUFS of the per-channel mean squares (the last axis) with @weights;
    -inf for silence."""
    power = np.sum(np.asarray(mean_squares) * np.asarray(weights), axis=-1)
    with np.errstate(divide="ignore"):
        return -0.691 + 10.0 * np.log10(power)


def windowed(x, rate, window_s, hop_s, weights=None):
    """The loudness over the last @window_s seconds at the end of each hop
    of @hop_s seconds, of @x (samples, channels), once a whole window has
    passed: a list of (end sample, LUFS). The hops start at the first
    sample; a window ends where a hop does."""
    weights = np.ones(x.shape[1]) if weights is None else weights
    y = k_weight(x, rate)
    hop = round(hop_s * rate)
    window = round(window_s * rate)
    out = []
    for end in range(hop, y.shape[0] + 1, hop):
        if end < window:
            continue
        block = y[end - window:end]
        out.append((end, float(loudness(np.mean(block * block, axis=0), weights))))
    return out


def momentary(x, rate, weights=None):
    return windowed(x, rate, 0.4, 0.1, weights)


def short_term(x, rate, weights=None):
    return windowed(x, rate, 3.0, 0.1, weights)
