/* bench-appsrc.c: one timed run of
 *
 *   appsrc ! ELEMENT ! fakesink sync=false enable-last-sample=false
 *
 * for bench-pipeline, an application thread pushing buffers from a Source.
 *
 * A bus sync handler checks each `cudareduce` message as it is posted: its
 * timestamp must be the next buffer's (nothing lost, duplicated or
 * reordered), its count the buffer's elements and, for U8, its sum the
 * buffer's; at EOS there must be one result per buffer pushed. A mismatch,
 * an ERROR message or a stall fails the benchmark (exit 1). For level it
 * only counts the messages.
 *
 * Timing. Each measurement is a new pipeline. The first buffers are warm-up:
 * 16, or two rounds of a pool's buffers if that is more (the element
 * registers recycled memory on its second visit), but fewer if pushing them
 * takes more than a second (or --seconds). The application then keeps
 * pushing for --seconds (at least 8 buffers) and sends EOS. The time is from
 * the arrival of the last warm-up buffer's result to the EOS message, a
 * window in which exactly the buffers pushed after the warm-up are
 * completed, with the pipeline already full at its start; GB/s is their
 * bytes over that time (1 GB = 10^9 bytes), buffers/s their number over
 * it. */
#include "bench-appsrc.h"

#include <gst/app/gstappsrc.h>

#include <stdlib.h>
#include <string.h>

#define WARMUP_MAX 16
#define TIMED_MIN 8
#define CAPACITY ((guint64)1 << 22) /* most buffers one pipeline run pushes */

/* Shared by every run: what each pushed buffer should sum to, and when each
 * result arrived (monotonic microseconds). */
static guint64 *expected;
static gint64 *arrival;

void
appsrc_runs_init (void)
{
  expected = g_new (guint64, CAPACITY);
  arrival = g_new (gint64, CAPACITY);
}

void
appsrc_runs_clear (void)
{
  g_clear_pointer (&expected, g_free);
  g_clear_pointer (&arrival, g_free);
}

typedef struct {
  const RunSpec *spec;
  GstClockTime duration;
  GMutex lock;
  guint64 results;
  gint64 eos_time;
  gchar *failure;
} Run;

static void
run_fail (Run *run, gchar *text)
{
  if (run->failure == NULL)
    run->failure = text;
  else
    g_free (text);
}

static void
check_result (Run *run, const GstStructure *s, guint64 k)
{
  const RunSpec *spec = run->spec;
  guint64 ts = 0, count = 0, sum = 0;

  if (!gst_structure_get_uint64 (s, "timestamp", &ts)
      || ts != k * run->duration) {
    run_fail (run,
        g_strdup_printf ("result %" G_GUINT64_FORMAT
                         " has timestamp %" G_GUINT64_FORMAT
                         ", not %" G_GUINT64_FORMAT
                         " (a result lost, duplicated or out of order): %s",
            k, ts, k * run->duration, gst_structure_to_string (s)));
    return;
  }
  if (!gst_structure_get_uint64 (s, "count", &count)
      || count != spec->elements) {
    run_fail (run,
        g_strdup_printf ("result %" G_GUINT64_FORMAT
                         " has count %" G_GUINT64_FORMAT
                         ", not %" G_GUINT64_FORMAT,
            k, count, spec->elements));
    return;
  }
  if (spec->check_sum) {
    if (!gst_structure_get_uint64 (s, "sum", &sum))
      run_fail (run,
          g_strdup_printf ("result %" G_GUINT64_FORMAT
                           " has no guint64 field sum: %s",
              k, gst_structure_to_string (s)));
    else if (sum != expected[k])
      run_fail (run,
          g_strdup_printf ("result %" G_GUINT64_FORMAT " (%" G_GSIZE_FORMAT
                           " bytes) has sum %" G_GUINT64_FORMAT
                           ", not %" G_GUINT64_FORMAT,
              k, spec->bytes, sum, expected[k]));
  }
}

static GstBusSyncReply
on_message (GstBus *bus, GstMessage *msg, gpointer data)
{
  Run *run = data;

  switch (GST_MESSAGE_TYPE (msg)) {
    case GST_MESSAGE_ELEMENT: {
      const GstStructure *s = gst_message_get_structure (msg);
      if (s == NULL || !gst_structure_has_name (s, run->spec->result_name))
        break;
      gint64 now = g_get_monotonic_time ();
      g_mutex_lock (&run->lock);
      guint64 k = run->results++;
      if (k < CAPACITY) {
        arrival[k] = now;
        if (run->spec->check && run->failure == NULL)
          check_result (run, s, k);
      }
      g_mutex_unlock (&run->lock);
      gst_message_unref (msg);
      return GST_BUS_DROP;
    }
    case GST_MESSAGE_EOS:
      g_mutex_lock (&run->lock);
      run->eos_time = g_get_monotonic_time ();
      g_mutex_unlock (&run->lock);
      break;
    default:
      break;
  }
  return GST_BUS_PASS;
}

typedef struct {
  Run *run;
  Source *src;
  GstAppSrc *appsrc;
  gdouble seconds;
  guint64 pushed;
  guint64 warmup; /* 0 while warming up */
  gint64 timed_start;
  guint64 warmup_target;
  GstFlowReturn flow;
  gboolean no_buffer;
} Pusher;

static gpointer
push_thread (gpointer data)
{
  Pusher *p = data;
  const gint64 start = g_get_monotonic_time ();
  const gint64 warmup_limit = (gint64)(MIN (1.0, p->seconds) * 1e6);
  const gint64 timed_limit = (gint64)(p->seconds * 1e6);
  const GstClockTime duration = p->run->duration;

  p->flow = GST_FLOW_OK;
  for (guint64 seq = 0; seq < CAPACITY; seq++) {
    gint64 now = g_get_monotonic_time ();
    if (p->warmup == 0
        && (seq >= p->warmup_target
            || (seq >= 2 && now - start >= warmup_limit))) {
      p->warmup = seq;
      p->timed_start = now;
    }
    if (p->warmup && seq - p->warmup >= TIMED_MIN
        && now - p->timed_start >= timed_limit)
      break;
    guint64 sum = 0;
    GstBuffer *buf = source_next (p->src, &sum);
    if (buf == NULL) {
      p->no_buffer = TRUE;
      break;
    }
    GST_BUFFER_PTS (buf) = seq * duration;
    GST_BUFFER_DTS (buf) = GST_CLOCK_TIME_NONE;
    GST_BUFFER_DURATION (buf) = duration;
    GST_BUFFER_OFFSET (buf) = seq;
    GST_BUFFER_OFFSET_END (buf) = seq + 1;
    expected[seq] = sum;
    p->flow = gst_app_src_push_buffer (p->appsrc, buf);
    if (p->flow != GST_FLOW_OK)
      break;
    p->pushed = seq + 1;
  }
  if (p->flow == GST_FLOW_OK && !p->no_buffer)
    p->flow = gst_app_src_end_of_stream (p->appsrc);
  return NULL;
}

gboolean
run_pipeline (const RunSpec *spec, Source *src, const Region *region,
    gdouble seconds, Measure *m, gchar **why)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *desc = g_strdup_printf (
      "appsrc name=src ! %s ! fakesink sync=false enable-last-sample=false",
      spec->element);
  GstElement *pipeline = gst_parse_launch (desc, &error);
  Run run = { .spec = spec };
  Pusher pusher = { 0 };
  Source *own = NULL;
  gboolean have_pool = TRUE;

  if (pipeline == NULL)
    fail ("cannot build \"%s\": %s", desc, error->message);
  GstElement *appsrc = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstElement *r = gst_bin_get_by_name (GST_BIN (pipeline), "r");
  GstBus *bus = gst_element_get_bus (pipeline);
  GstCaps *caps = gst_caps_from_string (spec->caps);

  run.duration = gst_util_uint64_scale (spec->frames, GST_SECOND, RATE);
  g_mutex_init (&run.lock);
  g_object_set (appsrc, "caps", caps, "format", GST_FORMAT_TIME, "is-live",
      FALSE, "block", TRUE, "max-bytes",
      (guint64)spec->queue_buffers * spec->bytes, "stream-type",
      GST_APP_STREAM_TYPE_STREAM, NULL);
  if (spec->depth >= 0 && has_property (r, "async-depth"))
    g_object_set (r, "async-depth", (guint)spec->depth, NULL);
  gst_bus_set_sync_handler (bus, on_message, &run, NULL);

  /* Beyond any plausible run: a stall. */
  const gdouble limit_s = 60 + 10 * (seconds + 1);
  const gint64 deadline =
      g_get_monotonic_time () + (gint64)(limit_s * G_USEC_PER_SEC);
  if (gst_element_set_state (pipeline, GST_STATE_PLAYING)
      == GST_STATE_CHANGE_FAILURE) {
    GstMessage *msg = gst_bus_timed_pop_filtered (bus, 0, GST_MESSAGE_ERROR);
    GError *e = NULL;
    if (msg)
      gst_message_parse_error (msg, &e, NULL);
    fail ("%s: cannot start \"%s\"%s%s", spec->element, desc, e ? ": " : "",
        e ? e->message : "");
  }

  /* Negotiated (and the kernel built) before the first buffer: caps flow
   * from appsrc as it starts. An appsrc user asks for a pool only then. */
  GstPad *sink = gst_element_get_static_pad (r, "sink");
  while (!gst_pad_has_current_caps (sink)) {
    GstMessage *msg =
        gst_bus_timed_pop_filtered (bus, GST_MSECOND, GST_MESSAGE_ERROR);
    if (msg) {
      GError *e = NULL;
      gchar *dbg = NULL;
      gst_message_parse_error (msg, &e, &dbg);
      fail ("%s: %s (%s)", spec->element, e->message, dbg ? dbg : "");
    }
    if (g_get_monotonic_time () > deadline)
      fail ("%s: no caps reached the element", spec->element);
  }
  gst_object_unref (sink);

  if (src == NULL) {
    src = own = source_from_query (
        appsrc, spec->caps, spec->bytes, spec->pool_buffers, region, why);
    have_pool = src != NULL;
  }

  if (have_pool) {
    pusher.run = &run;
    pusher.src = src;
    pusher.appsrc = GST_APP_SRC (appsrc);
    pusher.seconds = seconds;
    /* Two rounds of a pool: the element registers recycled memory on its
     * second visit, which belongs to the warm-up. */
    pusher.warmup_target = WARMUP_MAX;
    if (src->pool)
      pusher.warmup_target = MAX (WARMUP_MAX, 2 * (guint64)src->filled);
    src->in_run = TRUE;
    GThread *thread = g_thread_new ("push", push_thread, &pusher);
    GstMessage *msg = gst_bus_timed_pop_filtered (bus,
        MAX (deadline - g_get_monotonic_time (), 0) * GST_USECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    if (msg == NULL) {
      g_mutex_lock (&run.lock);
      fail ("%s, %" G_GSIZE_FORMAT " bytes per buffer: stalled, no EOS "
            "after %.0f s (%" G_GUINT64_FORMAT " results, %" G_GUINT64_FORMAT
            " buffers pushed)%s%s",
          spec->element, spec->bytes, limit_s, run.results, pusher.pushed,
          run.failure ? "; before that: " : "", run.failure ? run.failure : "");
    } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      GError *e = NULL;
      gchar *dbg = NULL;
      gst_message_parse_error (msg, &e, &dbg);
      g_mutex_lock (&run.lock);
      run_fail (&run,
          g_strdup_printf ("ERROR from %s: %s (%s)", GST_MESSAGE_SRC_NAME (msg),
              e->message, dbg ? dbg : ""));
      g_mutex_unlock (&run.lock);
      g_error_free (e);
      g_free (dbg);
    }
    if (msg)
      gst_message_unref (msg);
    /* Stopping unblocks a push that waits on a stalled pipeline. */
    gst_element_set_state (pipeline, GST_STATE_NULL);
    g_thread_join (thread);
    src->in_run = FALSE;
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);

  if (run.failure == NULL && have_pool) {
    if (pusher.no_buffer)
      run.failure = g_strdup ("the source gave no buffer");
    else if (pusher.flow != GST_FLOW_OK)
      run.failure = g_strdup_printf (
          "pushing returned %s", gst_flow_get_name (pusher.flow));
    else if (spec->check && run.results != pusher.pushed)
      run.failure = g_strdup_printf (
          "%" G_GUINT64_FORMAT " results for %" G_GUINT64_FORMAT " buffers",
          run.results, pusher.pushed);
  }
  if (run.failure)
    fail ("%s, %" G_GSIZE_FORMAT " bytes per buffer: %s", spec->element,
        spec->bytes, run.failure);

  if (have_pool) {
    /* From the last warm-up result to EOS; were the messages not one per
     * buffer (level), from the first timed push. */
    gint64 t0 = pusher.timed_start;
    if (pusher.warmup > 0 && run.results >= pusher.warmup
        && run.results <= pusher.pushed + 1)
      t0 = arrival[pusher.warmup - 1];
    gdouble secs = MAX (run.eos_time - t0, 1) * 1e-6;
    m->buffers = pusher.pushed - pusher.warmup;
    m->pushed = pusher.pushed;
    m->results = run.results;
    m->gbps = m->buffers * spec->bytes / secs * 1e-9;
    m->buffers_per_s = m->buffers / secs;
    if (src->grown)
      g_print ("  (note: %u buffers were allocated and filled during the "
               "run; the pool grew)\n",
          src->grown);
    src->grown = 0;
  }
  if (own)
    source_free (own);
  g_mutex_clear (&run.lock);
  gst_caps_unref (caps);
  gst_object_unref (bus);
  gst_object_unref (r);
  gst_object_unref (appsrc);
  gst_object_unref (pipeline);
  return have_pool;
}

static int
by_gbps (const void *a, const void *b)
{
  const Measure *x = a, *y = b;
  return (x->gbps > y->gbps) - (x->gbps < y->gbps);
}

Measure
median_measure (const Measure *runs)
{
  Measure sorted[REPEATS];
  memcpy (sorted, runs, sizeof sorted);
  qsort (sorted, REPEATS, sizeof sorted[0], by_gbps);
  return sorted[REPEATS / 2];
}
