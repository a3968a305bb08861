/* cr-test-video.h: what the video tests share: frames of random bytes in
 * a layout of their own, the one inline monoid that computes every
 * statistic they check, and its CPU reference. */
#pragma once

#include "cr-test-util.h"

#include <gst/video/video.h>

G_BEGIN_DECLS

/* Every statistic the tests check, in one pass: the index term catches a
 * plane reduced out of order or a wrong row count before it. */
#define STATS_ACC "sum:uint64;min:in;max:in;above:uint64;indexed:uint64"
#define STATS_LOAD \
  "Acc r; r.sum = x; r.min = x; r.max = x; r.above = (float64) x > " \
  "ctx.threshold; r.indexed = (uint64) x * (i % 7 + 1); return r;"
#define STATS_COMBINE \
  "Acc r; r.sum = a.sum + b.sum; r.min = a.min < b.min ? a.min : b.min; " \
  "r.max = a.max > b.max ? a.max : b.max; r.above = a.above + b.above; " \
  "r.indexed = a.indexed + b.indexed; return r;"
#define STATS_IDENTITY \
  "Acc r; r.sum = 0; r.min = IN_MAX; r.max = IN_LOWEST; r.above = 0; " \
  "r.indexed = 0; return r;"

typedef struct {
  guint64 sum, min, max, above, indexed, count;
} CrTestStats;

/* @s with nothing added (min at its top), and @x, the sample of index @i,
 * added to it as cr-test-video's monoid adds it with @threshold. */
void cr_test_stats_init (CrTestStats *s);
void cr_test_stats_add (
    CrTestStats *s, guint64 x, guint64 i, gdouble threshold);

/* A frame of random bytes, padding included, with its own layout: each
 * plane's stride padded by @pad bytes. */
typedef struct {
  GstVideoInfo info; /* strides and offsets as in the buffer */
  guint8 *data;
  gsize size;
  gboolean meta;
} CrTestFrame;

/* What a configuration expects of one result. */
typedef struct {
  gboolean per_channel;
  gint component; /* -1: all */
  guint n; /* values */
  CrTestStats values[GST_VIDEO_MAX_COMPONENTS];
} CrTestExpected;

/* A frame of @format, @w x @h, of random bytes, padding included; each
 * plane's stride padded by @pad bytes (then described by a video meta),
 * or with @pad 0 the layout the caps alone imply. Free data with g_free. */
CrTestFrame cr_test_frame_new (
    GRand *rand, const gchar *format, gint w, gint h, guint pad);
/* A buffer of @f's bytes, frame @n of a 30/1 stream. */
GstBuffer *cr_test_frame_buffer (const CrTestFrame *f, guint n);
/* A copy of @buf's frame, in the layout @buf has (its video meta, else
 * @caps_info's). */
CrTestFrame cr_test_frame_of_buffer (
    GstBuffer *buf, const GstVideoInfo *caps_info);
/* Plays @desc to EOS with a probe on its "frames" element's sink pad,
 * keeping its buffers in @frames and their caps in *@caps; returns the
 * results (GstStructures). @at_eos, where not NULL, sees the pipeline at
 * EOS. */
GPtrArray *cr_test_play_keeping_frames (const gchar *desc, GPtrArray *frames,
    GstCaps **caps, void (*at_eos) (GstElement *));
/* A pad probe that keeps a reference to every buffer in the GPtrArray. */
GstPadProbeReturn cr_test_keep_frame (
    GstPad *pad, GstPadProbeInfo *info, gpointer frames);

void cr_test_expected_init (
    CrTestExpected *e, gboolean per_channel, gint component);
/* Adds @f, the frame @frames_before of its result, to @e. */
void cr_test_expect_frame (CrTestExpected *e, const CrTestFrame *f,
    guint64 frames_before, gdouble threshold);
/* Fails unless the message structure @s gives what @e expects. */
void cr_test_check_result (
    const GstStructure *s, const CrTestExpected *e, const gchar *what);
/* A threshold near the top of @format's sample range. */
gdouble cr_test_threshold_of (const gchar *format);

/* The inline monoid above as gst-launch properties of cudareduce, with
 * @format's threshold. */
gchar *cr_test_stats_props (const gchar *format);
/* Plays @desc, a pipeline whose cudareduce has cr_test_stats_props(), to
 * EOS. Its element named "frames" sees at its sink pad, in order, the host
 * frames that cudareduce reduces (in host or GPU memory). Fails unless
 * there are @n results, each what the CPU reference makes of its frame
 * with @per_channel and @component. @at_eos (may be NULL) runs at EOS,
 * before the pipeline stops. */
void cr_test_check_pipeline (const gchar *desc, const gchar *format, guint n,
    gboolean per_channel, gint component, void (*at_eos) (GstElement *));

/* The same where the frames come from another pipeline, @frames_desc,
 * played after @desc: the same decode of a clip, downloaded. */
void cr_test_check_pipelines (const gchar *desc, const gchar *frames_desc,
    const gchar *format, guint n, gboolean per_channel, gint component,
    void (*at_eos) (GstElement *));

/* The names of the formats the element's caps list (CR_VIDEO_FORMATS), in
 * its order. */
GStrv cr_test_video_format_names (void);

G_END_DECLS
