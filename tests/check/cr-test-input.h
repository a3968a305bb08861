/* cr-test-input.h: buffers of random data for the per-channel and interval
 * tests, each with the span the reference reads and its timing. */
#pragma once

#include "cr-test-ref.h"

#include <gst/video/video.h>

G_BEGIN_DECLS

/* A packed video format as per-channel sees it. */
typedef struct {
  const gchar *format;
  CrType type;
  guint channels; /* elements per pixel */
  guint components; /* reported: not the x of RGBx and BGRx */
} CrTestVideoFormat;

/* RGBA, BGRA, RGBx, BGRx, RGB, BGR, GRAY8 and GRAY16_LE. */
extern const CrTestVideoFormat cr_test_video_formats[8];

/* The entry of cr_test_video_formats named @format. */
const CrTestVideoFormat *cr_test_video_format (const gchar *format);

/* One buffer of a stream: its bytes (kept for the reference), how the
 * reference reads them, and its timing. */
typedef struct {
  guint8 *data;
  gsize size;
  CrTestSpan span;
  GstCaps *caps; /* video: its caps */
  GstVideoFormat vformat;
  gint width, height;
  gboolean meta; /* video: the stride is in a GstVideoMeta */
  GstClockTime pts;
  GstClockTime duration; /* on the buffer; NONE: none */
  GstClockTime counted; /* the duration the element counts for it */
  gboolean discont;
} CrTestInput;

/* A random frame of @f at @fps_n frames a second; its rows @extra bytes
 * further apart than GStreamer's default stride (in a GstVideoMeta) when
 * @extra > 0. Every byte of the buffer is random, row padding included, so
 * that reading it would change the results. No PTS or duration. */
void cr_test_input_video (CrTestInput *in, GRand *rand,
    const CrTestVideoFormat *f, gint width, gint height, gsize extra,
    gint fps_n);

/* @rows random rows of @channels elements of @type; no PTS or duration. */
void cr_test_input_raw (
    CrTestInput *in, GRand *rand, CrType type, guint channels, guint64 rows);

/* A new buffer of @in's bytes, stamped and flagged as @in says. */
GstBuffer *cr_test_input_buffer (const CrTestInput *in);

/* "video FORMAT WxH, stride S", for messages. */
gchar *cr_test_input_video_name (
    const CrTestVideoFormat *f, const CrTestInput *in);

void cr_test_input_clear (CrTestInput *in);

/* Audio buffers over one array of random frames, with PTS and durations
 * from their first frame's position. */
typedef struct {
  const gchar *format;
  CrType type;
  gint rate;
  guint channels;
  GstClockTime base; /* PTS of the first frame */
  guint8 *data;
  guint64 frames;
  GArray *starts; /* guint64: each buffer's first frame, then the end */
} CrTestAudio;

/* @n_buffers buffers of @sizes frames (none of them 0). */
CrTestAudio *cr_test_audio_new (GRand *rand, const gchar *format, CrType type,
    gint rate, guint channels, GstClockTime base, const guint64 *sizes,
    guint n_buffers);
void cr_test_audio_free (CrTestAudio *st);

gsize cr_test_audio_frame_bytes (const CrTestAudio *st);
guint cr_test_audio_n_buffers (const CrTestAudio *st);
/* The first frame of buffer @k; of @k = n_buffers, the end. */
guint64 cr_test_audio_start (const CrTestAudio *st, guint k);
/* The PTS of @frame, from the stream's base and rate. */
GstClockTime cr_test_audio_pts (const CrTestAudio *st, guint64 frame);
/* The time of frame @g as the element stamps it: the PTS of its buffer
 * plus the frames before it in that buffer. */
GstClockTime cr_test_audio_frame_time (const CrTestAudio *st, guint64 g);

/* Buffer @k, in memory of @allocator (NULL: ordinary memory). */
GstBuffer *cr_test_audio_buffer (const CrTestAudio *st, guint k,
    GstAllocator *allocator, GstAllocationParams *params);

/* Pushes every buffer of @st, the first flagged DISCONT when @discont. */
void cr_test_audio_push (
    GstHarness *h, const CrTestAudio *st, gboolean discont, const gchar *what);

/* @n random buffer sizes from @lo to @hi frames (g_free them). */
guint64 *cr_test_random_sizes (GRand *rand, guint n, guint64 lo, guint64 hi);

/* The frames of an interval: level's rounding, which the element follows. */
guint64 cr_test_interval_frames (GstClockTime interval, gint rate);

/* How an audio stream is cut into results. */
typedef struct {
  guint64 frames; /* per interval */
  gboolean per_channel; /* otherwise a row is one sample */
  gboolean partial_at_eos; /* the rest after the last whole interval too */
  guint hops; /* a sliding window's intervals; 0 or 1: tumbling */
} CrTestAudioCut;

/* Appends to @expected (of CrTestExpected) the results of @st cut as @cut
 * says. */
void cr_test_audio_intervals (GPtrArray *expected, const CrTestAudio *st,
    const CrTestAudioCut *cut, const gchar *what);

G_END_DECLS
