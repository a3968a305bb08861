/* bench-live.c: how long a live stream's buffer waits for its result.
 *
 * audiotestsrc is-live=true samplesperbuffer=480 (10 ms buffers)
 * through cudareduce monoid=sumsq to fakesink sync=true, 200 * --seconds
 * buffers (at least 50). A pad probe on cudareduce's sink pad records each
 * buffer's arrival, keyed by its PTS; the bus sync handler records when the
 * message with that PTS as its `timestamp` is posted. The first 10 buffers
 * are warm-up; over the others it reports the median and the 99th
 * percentile (nearest rank) of the difference, in microseconds. There must
 * be exactly one message per buffer.
 *
 * With --cpu-only the element is `level post-messages=true
 * interval=10000000` instead, whose messages carry the same `timestamp`;
 * its count is not held to one per buffer (it also posts at EOS).
 *
 * Timed with gst_util_get_timestamp (monotonic, ns). */
#include "bench-live.h"

#include <math.h>
#include <stdlib.h>

#define LIVE_FRAMES 480
#define LIVE_BUFFER_NS (10 * GST_MSECOND)
#define LIVE_WARMUP 10
#define LIVE_MIN 50

typedef struct {
  const gchar *counted;
  guint buffers;
  GstClockTime *arrival, *posted; /* by buffer, GST_CLOCK_TIME_NONE unset */
  gint results; /* atomic */
  gint strays; /* atomic: messages of no buffer, or a second one */
  gchar *first_stray; /* the first of them, for the failure's line */
} LiveRun;

static gint64
live_index (GstClockTime pts, guint buffers)
{
  if (!GST_CLOCK_TIME_IS_VALID (pts))
    return -1;
  const guint64 k = (pts + LIVE_BUFFER_NS / 2) / LIVE_BUFFER_NS;
  return k < buffers ? (gint64)k : -1;
}

static GstPadProbeReturn
on_live_arrival (GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  LiveRun *run = data;
  const GstClockTime now = gst_util_get_timestamp ();
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  const gint64 k = live_index (GST_BUFFER_PTS (buf), run->buffers);

  if (k >= 0)
    run->arrival[k] = now;
  return GST_PAD_PROBE_OK;
}

static GstBusSyncReply
on_live_message (GstBus *bus, GstMessage *msg, gpointer data)
{
  LiveRun *run = data;

  if (GST_MESSAGE_TYPE (msg) != GST_MESSAGE_ELEMENT)
    return GST_BUS_PASS;
  const GstStructure *s = gst_message_get_structure (msg);
  if (s == NULL || !gst_structure_has_name (s, run->counted))
    return GST_BUS_PASS;
  const GstClockTime now = gst_util_get_timestamp ();
  guint64 ts = GST_CLOCK_TIME_NONE;
  gst_structure_get_uint64 (s, "timestamp", &ts);
  const gint64 k = live_index (ts, run->buffers);
  g_atomic_int_inc (&run->results);
  if (k >= 0 && run->posted[k] == GST_CLOCK_TIME_NONE)
    run->posted[k] = now;
  else if (g_atomic_int_add (&run->strays, 1) == 0)
    run->first_stray = gst_structure_to_string (s);
  gst_message_unref (msg);
  return GST_BUS_DROP;
}

static int
by_time (const void *a, const void *b)
{
  const GstClockTime *x = a, *y = b;
  return (*x > *y) - (*x < *y);
}

void
live_latency_run (gdouble seconds, gboolean cpu_only, LiveLatency *out)
{
  const gchar *element = cpu_only ? "level post-messages=true interval=10000000"
                                  : "cudareduce monoid=sumsq";
  LiveRun run = {
    .counted = cpu_only ? "level" : "cudareduce",
    .buffers = MAX (LIVE_MIN, (guint)(200 * seconds)),
  };
  g_autofree gchar *desc = g_strdup_printf (
      "audiotestsrc is-live=true wave=silence samplesperbuffer=%d "
      "num-buffers=%u ! " F32_STEREO_CAPS " ! %s name=r ! fakesink sync=true",
      LIVE_FRAMES, run.buffers, element);

  run.arrival = g_new (GstClockTime, run.buffers);
  run.posted = g_new (GstClockTime, run.buffers);
  for (guint k = 0; k < run.buffers; k++)
    run.arrival[k] = run.posted[k] = GST_CLOCK_TIME_NONE;

  GstElement *pipeline = pipeline_launch (desc);
  GstElement *r = gst_bin_get_by_name (GST_BIN (pipeline), "r");
  GstPad *pad = gst_element_get_static_pad (r, "sink");
  GstBus *bus = gst_element_get_bus (pipeline);
  gst_pad_add_probe (
      pad, GST_PAD_PROBE_TYPE_BUFFER, on_live_arrival, &run, NULL);
  gst_bus_set_sync_handler (bus, on_live_message, &run, NULL);
  g_print ("\nLive: %s\n", desc);
  pipeline_play_to_eos (pipeline, desc, 60 + run.buffers * 0.01 * 10);
  gst_object_unref (bus);
  gst_object_unref (pad);
  gst_object_unref (r);
  gst_object_unref (pipeline);

  const guint results = g_atomic_int_get (&run.results);
  const guint strays = g_atomic_int_get (&run.strays);
  /* level also posts at EOS; cudareduce must give exactly one per buffer. */
  if (!cpu_only && (results != run.buffers || strays != 0))
    fail ("live: %u cudareduce messages for %u buffers (%u not matching a "
          "buffer's PTS once; the first: %s)",
        results, run.buffers, strays, run.first_stray);
  g_free (run.first_stray);

  GstClockTime *latency = g_new (GstClockTime, run.buffers);
  guint n = 0;
  for (guint k = LIVE_WARMUP; k < run.buffers; k++) {
    if (run.arrival[k] == GST_CLOCK_TIME_NONE
        || run.posted[k] == GST_CLOCK_TIME_NONE) {
      if (!cpu_only)
        fail ("live: buffer %u (PTS %" GST_TIME_FORMAT ") %s", k,
            GST_TIME_ARGS (k * LIVE_BUFFER_NS),
            run.arrival[k] == GST_CLOCK_TIME_NONE ? "never reached the element"
                                                  : "has no result");
      continue;
    }
    if (run.posted[k] < run.arrival[k])
      fail ("live: buffer %u's result was posted before it arrived", k);
    latency[n++] = run.posted[k] - run.arrival[k];
  }
  if (n == 0)
    fail ("live: no buffer with both an arrival and a result");
  qsort (latency, n, sizeof latency[0], by_time);
  out->name = cpu_only ? "level-buffer" : "cudareduce-messages";
  out->median_us = latency[n / 2] * 1e-3;
  out->p99_us = latency[(guint)ceil (0.99 * n) - 1] * 1e-3;
  g_print ("  arrival at the element to its message, over %u buffers (the "
           "first %d left out): median %.1f us, p99 %.1f us, min %.1f us, "
           "max %.1f us\n",
      n, LIVE_WARMUP, out->median_us, out->p99_us, latency[0] * 1e-3,
      latency[n - 1] * 1e-3);
  csv_latency_row ("live", out->name, LIVE_FRAMES * F32_STEREO_FRAME,
      out->median_us, out->p99_us);
  g_free (latency);
  g_free (run.arrival);
  g_free (run.posted);
}
