/* test-gpu-soak.c: many elements for minutes, everything changing.
 *
 * 18 pipelines "appsrc ! cudareduce ! appsink", each a lane fed by this
 * thread with fresh random audio (F32LE and S16LE, 2 and 6 channels), GRAY8
 * video or tensors, in rounds of 6 to 40 buffers. Each round picks its caps
 * (a caps change mid-stream when the round before did not stop the
 * stream), its monoid (sum, minmax, mean_var, count_gt with a threshold
 * that may change mid-round, an inline monoid) and how it ends: it goes on
 * into the next round, is cut by a flushing seek or by a state change to
 * READY or NULL while its buffers are in flight, or ends with EOS; some
 * rounds pause (PLAYING to PAUSED and back) in the middle. A state change
 * may also change what only READY allows: output=message or tensor,
 * per-channel, interval, async-depth.
 *
 * Every result (bus message, tensor buffer) and, in message mode, every
 * buffer passed through is matched against what the round expects, in
 * order, and checked against a CPU reference (cr-test-ref, and here for
 * count_gt and the inline monoid). What is expected around a flush:
 *
 * - A round that ends with EOS, goes on into the next round or pauses
 *   loses nothing: each of its results comes exactly once, in order.
 * - A round cut by a flushing seek or a state change gives a prefix of its
 *   results (possibly none, possibly all), in order, and nothing of it
 *   after the first result of a later round. With an interval only whole
 *   intervals are expected: the one under way is dropped.
 * - Rounds have disjoint timestamps (round r starts at (r + 1) x 100 s), so
 *   a result names its round: a result of an earlier round after a later
 *   one, a repeated timestamp or a gap inside a round fails.
 *
 * Host RSS and the process's GPU memory (nvidia-smi) are measured with
 * every lane drained, after a warm-up (a fifth of the run) and at the end;
 * growth over 2% fails in runs of a minute or more.
 *
 * CUDAREDUCE_SOAK_SECONDS sets the duration (default 180; 10 for a quick
 * check). */
#include "cr-test-input.h"

#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define N_LANES 18
#define ROUND_SPAN (100 * GST_SECOND)
#define MAX_CHANNELS 8
/* Bytes queued in an appsrc before this thread feeds other lanes first. */
#define MAX_QUEUED (16 << 20)
#define WAIT_USEC (60 * G_USEC_PER_SEC)

static GRand *rand_;

/* 1. Monoids */

typedef enum {
  M_SUM,
  M_MINMAX,
  M_MEAN_VAR,
  M_COUNT_GT,
  M_INLINE,
  N_MONOIDS
} SoakMonoid;

static const gchar *const monoid_names[N_MONOIDS] = { "sum", "minmax",
  "mean_var", "count_gt", "soak_peak" };

/* The largest magnitude, and how many elements have an odd index i: a check
 * of i as well as of x. */
#define PEAK_ACC "peak:float64;odd:uint64"
#define PEAK_LOAD \
  "Acc r; float64 v = (float64) x; r.peak = v < 0 ? -v : v; " \
  "r.odd = i & 1; return r;"
#define PEAK_COMBINE \
  "Acc r; r.peak = a.peak > b.peak ? a.peak : b.peak; " \
  "r.odd = a.odd + b.odd; return r;"
#define PEAK_IDENTITY "Acc r; r.peak = 0; r.odd = 0; return r;"

static const CrTestMonoid *
builtin (SoakMonoid m)
{
  switch (m) {
    case M_SUM:
      return &cr_test_monoid_sum;
    case M_MINMAX:
      return &cr_test_monoid_minmax;
    case M_MEAN_VAR:
      return &cr_test_monoid_mean_var;
    default:
      return NULL;
  }
}

/* Called in the streaming thread just before the buffer it applies to, so
 * the element sees the whole change from that buffer on. */
static void
apply_monoid (GstElement *reduce, SoakMonoid m)
{
  if (m == M_INLINE)
    g_object_set (reduce, "accumulator", PEAK_ACC, "combine", PEAK_COMBINE,
        "identity", PEAK_IDENTITY, "monoid", monoid_names[m], "load", PEAK_LOAD,
        NULL);
  else
    g_object_set (reduce, "load", NULL, "monoid", monoid_names[m], NULL);
}

/* 2. Rounds: the input */

typedef enum { KIND_AUDIO, KIND_VIDEO, KIND_TENSOR, N_KINDS } LaneKind;

static const gchar *const kind_names[N_KINDS] = { "audio", "video", "tensors" };

typedef enum { END_CONTINUE, END_FLUSH, END_RESTART, END_EOS } RoundEnd;

static const gchar *const end_names[] = { "goes on", "flushing seek",
  "state change", "EOS" };

/* What only READY allows changing. */
typedef struct {
  gboolean per_channel, tensor;
  GstClockTime interval;
  guint depth;
} Mode;

/* A round's rows (audio frames, pixels, tensor rows) of channels elements
 * lie one after another in data; buffer k holds rows starts[k] to
 * starts[k + 1]. */
typedef struct {
  gint ref;
  guint index;
  GstClockTime base;
  CrType type;
  guint channels;
  gint rate; /* audio; 0 otherwise */
  GstClockTime buf_duration; /* video and tensors */
  GstCaps *caps;
  guint8 *data;
  guint n_buffers;
  guint64 *starts;
  SoakMonoid monoid;
  gdouble threshold[2];
  guint threshold_at; /* buffers from here on: threshold[1] */
  RoundEnd end;
  guint cut_at; /* buffers pushed */
  gint pause_at; /* pause after this buffer; -1: never */
  Mode mode;
  gchar *name;
} Round;

static Round *
round_ref (Round *r)
{
  r->ref++;
  return r;
}

static void
round_unref (Round *r)
{
  if (--r->ref > 0)
    return;
  gst_caps_unref (r->caps);
  g_free (r->data);
  g_free (r->starts);
  g_free (r->name);
  g_free (r);
}

static GstClockTime
buffer_pts (const Round *r, guint k)
{
  if (r->rate > 0)
    return r->base
        + gst_util_uint64_scale_int (r->starts[k], GST_SECOND, r->rate);
  return r->base + k * r->buf_duration;
}

static GstClockTime
buffer_duration (const Round *r, guint k)
{
  return buffer_pts (r, k + 1) - buffer_pts (r, k);
}

/* Audio: the time of frame @g as the element stamps it, from the PTS of
 * its buffer. */
static GstClockTime
frame_time (const Round *r, guint64 g)
{
  guint k = 0;
  while (r->starts[k + 1] <= g)
    k++;
  return buffer_pts (r, k)
      + gst_util_uint64_scale_int (g - r->starts[k], GST_SECOND, r->rate);
}

static gdouble
random_threshold (CrType type)
{
  switch (type) {
    case CR_TYPE_UINT8:
      return g_rand_int_range (rand_, 0, 256);
    case CR_TYPE_INT16:
      return g_rand_int_range (rand_, -32768, 32768);
    case CR_TYPE_INT32:
      return g_rand_double_range (rand_, -2147483648.0, 2147483647.0);
    default:
      return g_rand_double_range (rand_, -1000, 1000);
  }
}

/* Caps and rows per buffer for @kind, picked at random. */
static void
round_pick_input (Round *r, LaneKind kind, guint64 *rows_per_buffer)
{
  static const struct {
    const gchar *format;
    CrType type;
    guint channels;
  } audio[] = { { "F32LE", CR_TYPE_FLOAT32, 2 },
    { "F32LE", CR_TYPE_FLOAT32, 6 }, { "S16LE", CR_TYPE_INT16, 2 },
    { "S16LE", CR_TYPE_INT16, 6 } };
  /* Widths that are multiples of 4: GRAY8 rows then have no padding. */
  static const gint video[][2] = { { 64, 48 }, { 128, 96 }, { 320, 240 },
    { 640, 360 } };
  static const CrType tensor_types[] = { CR_TYPE_FLOAT32, CR_TYPE_INT32,
    CR_TYPE_UINT8 };
  static const guint tensor_channels[] = { 1, 4, 7 };
  static const guint64 tensor_rows[] = { 1, 300, 5000 };

  switch (kind) {
    case KIND_AUDIO: {
      guint a = g_rand_int_range (rand_, 0, G_N_ELEMENTS (audio));
      r->type = audio[a].type;
      r->channels = audio[a].channels;
      r->rate = 48000;
      r->caps = cr_test_audio_caps (audio[a].format, 48000, r->channels);
      *rows_per_buffer = 0; /* random per buffer */
      break;
    }
    case KIND_VIDEO: {
      guint v = g_rand_int_range (rand_, 0, G_N_ELEMENTS (video));
      r->type = CR_TYPE_UINT8;
      r->channels = 1;
      r->buf_duration = gst_util_uint64_scale_int (1, GST_SECOND, 30);
      r->caps = cr_test_video_caps ("GRAY8", video[v][0], video[v][1], 30);
      *rows_per_buffer = (guint64)video[v][0] * video[v][1];
      break;
    }
    default: {
      r->type = tensor_types[g_rand_int_range (rand_, 0, 3)];
      r->channels = tensor_channels[g_rand_int_range (rand_, 0, 3)];
      *rows_per_buffer = tensor_rows[g_rand_int_range (rand_, 0, 3)];
      r->buf_duration = 10 * GST_MSECOND;
      r->caps =
          cr_test_tensor_rows_caps (r->type, r->channels, *rows_per_buffer);
      break;
    }
  }
}

static RoundEnd
random_end (void)
{
  gint p = g_rand_int_range (rand_, 0, 100);
  return p < 35 ? END_CONTINUE
      : p < 60  ? END_FLUSH
      : p < 75  ? END_RESTART
                : END_EOS;
}

/* A new round of lane kind @kind in @mode; @last: it must end with EOS. */
static Round *
round_new (LaneKind kind, guint index, const Mode *mode, gboolean last)
{
  Round *r = g_new0 (Round, 1);
  guint64 rows;

  r->ref = 1;
  r->index = index;
  r->base = (index + 1) * ROUND_SPAN;
  r->mode = *mode;
  round_pick_input (r, kind, &rows);
  r->n_buffers = g_rand_int_range (rand_, 6, 41);
  r->starts = g_new0 (guint64, r->n_buffers + 1);
  for (guint k = 0; k < r->n_buffers; k++)
    r->starts[k + 1] = r->starts[k]
        + (rows ? rows : (guint64)g_rand_int_range (rand_, 1, 4001));
  r->data = cr_test_random_elements (
      rand_, r->type, r->starts[r->n_buffers] * r->channels);
  r->monoid = g_rand_int_range (rand_, 0, N_MONOIDS);
  r->threshold[0] = random_threshold (r->type);
  r->threshold[1] = random_threshold (r->type);
  /* Within an interval a threshold change would mix two thresholds. */
  r->threshold_at = r->monoid == M_COUNT_GT && mode->interval == 0
      ? (guint)g_rand_int_range (rand_, 1, r->n_buffers)
      : r->n_buffers;
  r->end = last ? END_EOS : random_end ();
  r->cut_at = r->end == END_FLUSH || r->end == END_RESTART
      ? (guint)g_rand_int_range (rand_, 1, r->n_buffers)
      : r->n_buffers;
  r->pause_at = !last && g_rand_int_range (rand_, 0, 100) < 15
      ? g_rand_int_range (rand_, 0, r->cut_at)
      : -1;
  g_autofree gchar *caps = gst_caps_to_string (r->caps);
  r->name =
      g_strdup_printf ("round %u (%s; monoid %s%s, interval %" G_GUINT64_FORMAT
                       " ns, output=%s, async-depth %u; %u of %u "
                       "buffers, then %s)",
          index, caps, monoid_names[r->monoid],
          mode->per_channel ? ", per-channel" : "", mode->interval,
          mode->tensor ? "tensor" : "message", mode->depth, r->cut_at,
          r->n_buffers, end_names[r->end]);
  return r;
}

static GstBuffer *
round_buffer (const Round *r, guint k)
{
  const gsize row = cr_type_size (r->type) * r->channels;
  GstBuffer *buf = gst_buffer_new_memdup (
      r->data + r->starts[k] * row, (r->starts[k + 1] - r->starts[k]) * row);
  GST_BUFFER_PTS (buf) = buffer_pts (r, k);
  GST_BUFFER_DURATION (buf) = buffer_duration (r, k);
  /* Intervals do not span rounds. */
  if (k == 0)
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
  return buf;
}

/* 3. Expected results */

typedef enum { STREAM_MESSAGES, STREAM_OUT, N_STREAMS } Stream;

typedef struct {
  Round *round;
  gboolean passthrough; /* a buffer passed on, not a result */
  GstClockTime ts, duration;
  guint64 first_row, rows;
  gdouble threshold;
} Expect;

static void
expect_free (Expect *e)
{
  round_unref (e->round);
  g_free (e);
}

static void
expect_add (GQueue *q, Round *r, gboolean passthrough, GstClockTime ts,
    GstClockTime duration, guint64 first_row, guint64 rows, gdouble threshold)
{
  Expect *e = g_new0 (Expect, 1);
  *e = (Expect){ round_ref (r), passthrough, ts, duration, first_row, rows,
    threshold };
  g_queue_push_tail (q, e);
}

/* The results of the round's whole intervals of buffers, and the one under
 * way when the round ends with EOS. */
static void
expect_whole_intervals (GQueue *q, Round *r)
{
  guint first = 0;
  GstClockTime sum = 0;

  for (guint k = 0; k < r->cut_at; k++) {
    sum += buffer_duration (r, k);
    /* Half a buffer of slack, as the element counts. */
    gboolean whole = sum + buffer_duration (r, k) / 2 >= r->mode.interval;
    if (whole || (k + 1 == r->cut_at && r->end == END_EOS)) {
      expect_add (q, r, FALSE, buffer_pts (r, first), sum, r->starts[first],
          r->starts[k + 1] - r->starts[first], r->threshold[0]);
      first = k + 1;
      sum = 0;
    }
  }
}

/* Audio intervals are cut by frames, within buffers. */
static void
expect_audio_intervals (GQueue *q, Round *r)
{
  const guint64 per = cr_test_interval_frames (r->mode.interval, r->rate);
  const guint64 total = r->starts[r->cut_at];

  for (guint64 first = 0; first < total; first += per) {
    const guint64 len = MIN (per, total - first);
    if (len < per && r->end != END_EOS)
      break;
    expect_add (q, r, FALSE, frame_time (r, first),
        gst_util_uint64_scale_int (len, GST_SECOND, r->rate), first, len,
        r->threshold[0]);
  }
}

static void
expect_round (GQueue *streams, Round *r)
{
  for (guint s = 0; s < N_STREAMS; s++) {
    GQueue *q = &streams[s];
    if (s == STREAM_OUT && !r->mode.tensor) {
      for (guint k = 0; k < r->cut_at; k++)
        expect_add (q, r, TRUE, buffer_pts (r, k), buffer_duration (r, k),
            r->starts[k], r->starts[k + 1] - r->starts[k], 0);
    } else if (r->mode.interval == 0) {
      for (guint k = 0; k < r->cut_at; k++)
        expect_add (q, r, FALSE, buffer_pts (r, k), buffer_duration (r, k),
            r->starts[k], r->starts[k + 1] - r->starts[k],
            r->threshold[k >= r->threshold_at]);
    } else if (r->rate > 0) {
      expect_audio_intervals (q, r);
    } else {
      expect_whole_intervals (q, r);
    }
  }
}

/* 4. Checking a result */

/* The reference reads a result's rows as channels, or every element as a
 * row of one. */
static CrTestSpan
expect_span (const Expect *e, guint *components)
{
  const Round *r = e->round;
  const gsize row = cr_type_size (r->type) * r->channels;
  *components = r->mode.per_channel ? r->channels : 1;
  return (CrTestSpan){ .data = r->data + e->first_row * row,
    .channels = *components,
    .rows = r->mode.per_channel ? e->rows : e->rows * r->channels };
}

/* count_gt's greater, or the inline monoid's peak and odd, per channel. */
typedef struct {
  guint64 greater[MAX_CHANNELS], odd[MAX_CHANNELS];
  gdouble peak[MAX_CHANNELS];
} CustomRef;

static void
custom_ref (const Expect *e, CustomRef *ref, guint *n)
{
  CrTestSpan s = expect_span (e, n);
  memset (ref, 0, sizeof *ref);
  for (guint64 row = 0; row < s.rows; row++) {
    for (guint c = 0; c < *n; c++) {
      gdouble x = cr_test_get_double (e->round->type, s.data, row * *n + c);
      ref->greater[c] += x > e->threshold;
      ref->peak[c] = MAX (ref->peak[c], x < 0 ? -x : x);
      ref->odd[c] += row & 1;
    }
  }
}

/* Field @f's @n values, from a message (arrays with per-channel) or from
 * tensor @f of a buffer; all of the custom fields are 8 bytes. */
static void
get_values (const GstStructure *s, GstBuffer *buf, const gchar *field, guint f,
    GType type, gboolean per_channel, guint n, gpointer out, const gchar *what)
{
  if (buf) {
    GstMapInfo map;
    fail_unless (f < gst_buffer_n_memory (buf), "%s: no tensor %u", what, f);
    GstMemory *mem = gst_buffer_peek_memory (buf, f);
    fail_unless (gst_memory_map (mem, &map, GST_MAP_READ));
    fail_unless (map.size == n * 8,
        "%s: tensor %s is %" G_GSIZE_FORMAT " bytes, expected %u", what, field,
        map.size, n * 8);
    memcpy (out, map.data, n * 8);
    gst_memory_unmap (mem, &map);
    return;
  }
  const GValue *v = gst_structure_get_value (s, field);
  fail_unless (v != NULL, "%s: no field %s", what, field);
  for (guint c = 0; c < n; c++) {
    const GValue *x = v;
    if (per_channel) {
      fail_unless (
          GST_VALUE_HOLDS_ARRAY (v) && gst_value_array_get_size (v) == n,
          "%s: %s is not an array of %u", what, field, n);
      x = gst_value_array_get_value (v, c);
    }
    fail_unless (G_VALUE_TYPE (x) == type, "%s: %s[%u] is a %s, not a %s", what,
        field, c, G_VALUE_TYPE_NAME (x), g_type_name (type));
    if (type == G_TYPE_UINT64)
      ((guint64 *)out)[c] = g_value_get_uint64 (x);
    else
      ((gdouble *)out)[c] = g_value_get_double (x);
  }
}

static void
check_custom (
    const Expect *e, const GstStructure *s, GstBuffer *buf, const gchar *what)
{
  const gboolean pc = e->round->mode.per_channel;
  CustomRef ref;
  guint64 u[MAX_CHANNELS];
  gdouble d[MAX_CHANNELS];
  guint n;

  custom_ref (e, &ref, &n);
  if (e->round->monoid == M_COUNT_GT) {
    get_values (s, buf, "greater", 0, G_TYPE_UINT64, pc, n, u, what);
    for (guint c = 0; c < n; c++)
      fail_unless (u[c] == ref.greater[c],
          "%s, channel %u: greater %" G_GUINT64_FORMAT
          ", expected %" G_GUINT64_FORMAT " above %g",
          what, c, u[c], ref.greater[c], e->threshold);
    return;
  }
  get_values (s, buf, "peak", 0, G_TYPE_DOUBLE, pc, n, d, what);
  get_values (s, buf, "odd", 1, G_TYPE_UINT64, pc, n, u, what);
  for (guint c = 0; c < n; c++) {
    fail_unless (d[c] == ref.peak[c],
        "%s, channel %u: peak %.17g, "
        "expected %.17g",
        what, c, d[c], ref.peak[c]);
    fail_unless (u[c] == ref.odd[c],
        "%s, channel %u: odd %" G_GUINT64_FORMAT
        ", expected %" G_GUINT64_FORMAT,
        what, c, u[c], ref.odd[c]);
  }
}

/* A result message: timestamps, name, count, channels and values. */
static void
check_message (const Expect *e, const GstStructure *s, const gchar *what)
{
  const Round *r = e->round;
  const guint64 count = e->rows * r->channels;
  guint components;
  CrTestSpan span = expect_span (e, &components);

  cr_test_check_time (s, "timestamp", e->ts, what);
  cr_test_check_time (s, "duration", e->duration, what);
  if (builtin (r->monoid)) {
    CrTestRef *ref = cr_test_ref_of_span (r->type, components, &span);
    cr_test_check_message (
        s, builtin (r->monoid), ref, r->mode.per_channel, count, what);
    cr_test_ref_free (ref);
    return;
  }
  guint64 got = 0;
  guint channels = 0;
  fail_unless (g_strcmp0 (gst_structure_get_string (s, "monoid"),
                   monoid_names[r->monoid])
          == 0,
      "%s: not a result of %s", what, monoid_names[r->monoid]);
  fail_unless (gst_structure_get_uint64 (s, "count", &got) && got == count,
      "%s: count %" G_GUINT64_FORMAT ", expected %" G_GUINT64_FORMAT, what, got,
      count);
  if (r->mode.per_channel)
    fail_unless (gst_structure_get_uint (s, "channels", &channels)
            && channels == components,
        "%s: channels %u, expected %u", what, channels, components);
  check_custom (e, s, NULL, what);
}

/* A tensor buffer (output=tensor) or a buffer passed through. */
static void
check_buffer (const Expect *e, GstBuffer *buf, const gchar *what)
{
  const Round *r = e->round;

  if (e->passthrough) {
    const gsize row = cr_type_size (r->type) * r->channels;
    GstMapInfo map;
    fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
    fail_unless (map.size == e->rows * row
            && memcmp (map.data, r->data + e->first_row * row, map.size) == 0,
        "%s: the buffer passed on differs from the input", what);
    gst_buffer_unmap (buf, &map);
    return;
  }
  if (builtin (r->monoid)) {
    guint components;
    CrTestSpan span = expect_span (e, &components);
    CrTestRef *ref = cr_test_ref_of_span (r->type, components, &span);
    cr_test_check_tensor_buffer (
        buf, builtin (r->monoid), ref, e->ts, e->duration, what);
    cr_test_ref_free (ref);
    return;
  }
  fail_unless (GST_BUFFER_DURATION (buf) == e->duration,
      "%s: duration %" GST_TIME_FORMAT ", expected %" GST_TIME_FORMAT, what,
      GST_TIME_ARGS (GST_BUFFER_DURATION (buf)), GST_TIME_ARGS (e->duration));
  fail_unless_equals_int (
      gst_buffer_n_memory (buf), r->monoid == M_COUNT_GT ? 1 : 2);
  check_custom (e, NULL, buf, what);
}

/* 5. Lanes */

/* A monoid or threshold to set before the buffer of that PTS. */
typedef struct {
  gboolean set_monoid;
  SoakMonoid monoid;
  gdouble threshold;
} Change;

/* A result as it arrived: a message's structure or a buffer. */
typedef struct {
  GstStructure *s;
  GstBuffer *buf;
} Record;

typedef struct {
  guint pushed, checked[N_STREAMS], discarded[N_STREAMS];
  guint seeks, restarts, pauses, rounds, eos;
} Stats;

typedef struct {
  guint id;
  LaneKind kind;
  GstElement *pipeline, *src, *reduce, *sink;
  Mode mode;
  Round *round; /* the one being pushed; NULL between rounds */
  RoundEnd last_end;
  guint next_round, next_buffer, resume_at;
  gboolean paused, awaiting_eos, last_round, idle;
  gint64 eos_deadline;
  GQueue expect[N_STREAMS]; /* of Expect, this thread's alone */
  /* Shared with the streaming threads: */
  GMutex lock;
  GQueue records[N_STREAMS];
  GHashTable *changes; /* PTS -> Change */
  gboolean eos;
  gchar *error;
} Lane;

static Stats stats;

static gboolean
on_seek_data (GstAppSrc *src, guint64 offset, gpointer data)
{
  return TRUE;
}

static void
record (Lane *l, Stream s, GstStructure *st, GstBuffer *buf)
{
  Record *rec = g_new0 (Record, 1);
  rec->s = st;
  rec->buf = buf;
  g_mutex_lock (&l->lock);
  g_queue_push_tail (&l->records[s], rec);
  g_mutex_unlock (&l->lock);
}

static GstFlowReturn
on_new_sample (GstAppSink *sink, gpointer data)
{
  GstSample *sample = gst_app_sink_pull_sample (sink);
  if (sample) {
    record (data, STREAM_OUT, NULL,
        gst_buffer_ref (gst_sample_get_buffer (sample)));
    gst_sample_unref (sample);
  }
  return GST_FLOW_OK;
}

/* Everything the lane's bus carries is handled here, in the thread that
 * posts it, and dropped: nothing piles up over minutes. */
static GstBusSyncReply
on_bus (GstBus *bus, GstMessage *msg, gpointer data)
{
  Lane *l = data;
  const GstStructure *s = gst_message_get_structure (msg);

  switch (GST_MESSAGE_TYPE (msg)) {
    case GST_MESSAGE_ELEMENT:
      if (GST_MESSAGE_SRC (msg) == GST_OBJECT (l->reduce)
          && gst_structure_has_name (s, "cudareduce"))
        record (l, STREAM_MESSAGES, gst_structure_copy (s), NULL);
      break;
    case GST_MESSAGE_EOS:
      g_mutex_lock (&l->lock);
      l->eos = TRUE;
      g_mutex_unlock (&l->lock);
      break;
    case GST_MESSAGE_ERROR:
    case GST_MESSAGE_WARNING: {
      g_autoptr (GError) error = NULL;
      g_autofree gchar *debug = NULL;
      if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR)
        gst_message_parse_error (msg, &error, &debug);
      else
        gst_message_parse_warning (msg, &error, &debug);
      g_mutex_lock (&l->lock);
      if (l->error == NULL)
        l->error =
            g_strdup_printf ("%s from %s: %s\n%s", GST_MESSAGE_TYPE_NAME (msg),
                GST_MESSAGE_SRC_NAME (msg), error->message, debug ? debug : "");
      g_mutex_unlock (&l->lock);
      break;
    }
    default:
      break;
  }
  return GST_BUS_DROP;
}

static GstPadProbeReturn
on_buffer (GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  Lane *l = data;
  gint64 pts = (gint64)GST_BUFFER_PTS (GST_PAD_PROBE_INFO_BUFFER (info));
  Change *c;

  g_mutex_lock (&l->lock);
  if (!g_hash_table_steal_extended (l->changes, &pts, NULL, (gpointer *)&c))
    c = NULL;
  g_mutex_unlock (&l->lock);
  if (c) {
    if (c->set_monoid)
      apply_monoid (l->reduce, c->monoid);
    g_object_set (l->reduce, "threshold", c->threshold, NULL);
    g_free (c);
  }
  return GST_PAD_PROBE_OK;
}

static void
add_change (Lane *l, GstClockTime pts, gboolean set_monoid, SoakMonoid m,
    gdouble threshold)
{
  gint64 *key = g_new (gint64, 1);
  Change *c = g_new0 (Change, 1);
  *key = (gint64)pts;
  *c = (Change){ set_monoid, m, threshold };
  g_mutex_lock (&l->lock);
  g_hash_table_replace (l->changes, key, c);
  g_mutex_unlock (&l->lock);
}

static void
random_mode (Lane *l)
{
  static const GstClockTime intervals[N_KINDS][2] = {
    { 5 * GST_MSECOND, 20 * GST_MSECOND },
    { 100 * GST_MSECOND, 100 * GST_MSECOND },
    { 30 * GST_MSECOND, 50 * GST_MSECOND },
  };
  static const guint depths[] = { 1, 4, 8, 16 };
  l->mode.per_channel = g_rand_boolean (rand_);
  l->mode.tensor = g_rand_boolean (rand_);
  l->mode.interval = g_rand_boolean (rand_)
      ? intervals[l->kind][g_rand_int_range (rand_, 0, 2)]
      : 0;
  l->mode.depth = depths[g_rand_int_range (rand_, 0, G_N_ELEMENTS (depths))];
  g_object_set (l->reduce, "per-channel", l->mode.per_channel, "interval",
      (guint64)l->mode.interval, "async-depth", l->mode.depth, NULL);
  gst_util_set_object_arg (
      G_OBJECT (l->reduce), "output", l->mode.tensor ? "tensor" : "message");
}

static void
lane_play (Lane *l)
{
  fail_if (gst_element_set_state (l->pipeline, GST_STATE_PLAYING)
          == GST_STATE_CHANGE_FAILURE,
      "lane %u: cannot play", l->id);
}

static void
lane_init (Lane *l, guint id)
{
  GstAppSrcCallbacks src_callbacks = { .seek_data = on_seek_data };
  GstAppSinkCallbacks sink_callbacks = { .new_sample = on_new_sample };
  g_autofree gchar *name = g_strdup_printf ("lane%u", id);

  memset (l, 0, sizeof *l);
  l->id = id;
  l->kind = id % N_KINDS;
  g_mutex_init (&l->lock);
  l->changes =
      g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  l->pipeline = gst_pipeline_new (name);
  l->src = gst_element_factory_make ("appsrc", NULL);
  l->reduce = gst_element_factory_make ("cudareduce", NULL);
  l->sink = gst_element_factory_make ("appsink", NULL);
  fail_unless (l->src && l->reduce && l->sink, "missing elements");
  /* Seekable, so that a flushing seek reaches it and restarts the stream. */
  g_object_set (l->src, "format", GST_FORMAT_TIME, "stream-type",
      GST_APP_STREAM_TYPE_SEEKABLE, "emit-signals", FALSE, NULL);
  gst_app_src_set_callbacks (GST_APP_SRC (l->src), &src_callbacks, l, NULL);
  g_object_set (l->sink, "sync", FALSE, "emit-signals", FALSE,
      "enable-last-sample", FALSE, NULL);
  gst_app_sink_set_callbacks (GST_APP_SINK (l->sink), &sink_callbacks, l, NULL);
  gst_bin_add_many (GST_BIN (l->pipeline), l->src, l->reduce, l->sink, NULL);
  fail_unless (gst_element_link_many (l->src, l->reduce, l->sink, NULL));
  GstPad *pad = gst_element_get_static_pad (l->reduce, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, on_buffer, l, NULL);
  gst_object_unref (pad);
  GstBus *bus = gst_element_get_bus (l->pipeline);
  gst_bus_set_sync_handler (bus, on_bus, l, NULL);
  gst_object_unref (bus);
  random_mode (l);
  l->last_end = END_CONTINUE;
  lane_play (l);
}

static void
lane_clear (Lane *l)
{
  gst_element_set_state (l->pipeline, GST_STATE_NULL);
  GstBus *bus = gst_element_get_bus (l->pipeline);
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  gst_object_unref (bus);
  gst_object_unref (l->pipeline);
  g_clear_pointer (&l->round, round_unref);
  for (guint s = 0; s < N_STREAMS; s++)
    g_queue_clear_full (&l->expect[s], (GDestroyNotify)expect_free);
  g_hash_table_unref (l->changes);
  g_free (l->error);
  g_mutex_clear (&l->lock);
}

/* 6. Matching results to what was expected */

static gchar *
describe (const Lane *l, const Expect *e, Stream s)
{
  return g_strdup_printf ("lane %u (%s), %s, %s at %" GST_TIME_FORMAT, l->id,
      kind_names[l->kind], e->round->name,
      s == STREAM_MESSAGES ? "message"
          : e->passthrough ? "buffer passed on"
                           : "tensor buffer",
      GST_TIME_ARGS (e->ts));
}

/* Whether a round may lose the tail of its results. */
static gboolean
is_cut (const Round *r)
{
  return r->end == END_FLUSH || r->end == END_RESTART;
}

/* The expected entry that a result stamped @ts answers; entries of cut
 * rounds that it passes over were discarded by the cut. */
static Expect *
match (Lane *l, Stream s, GstClockTime ts)
{
  const gchar *sn = s == STREAM_MESSAGES ? "message" : "output buffer";

  fail_unless (GST_CLOCK_TIME_IS_VALID (ts) && ts >= ROUND_SPAN,
      "lane %u: a %s stamped %" GST_TIME_FORMAT ", from no round", l->id, sn,
      GST_TIME_ARGS (ts));
  const guint round = ts / ROUND_SPAN - 1;
  for (;;) {
    Expect *e = g_queue_peek_head (&l->expect[s]);
    fail_unless (e != NULL,
        "lane %u: an extra %s at %" GST_TIME_FORMAT " (round %u), after "
        "every expected one: duplicated or invented",
        l->id, sn, GST_TIME_ARGS (ts), round);
    if (e->round->index == round && e->ts == ts)
      return g_queue_pop_head (&l->expect[s]);
    g_autofree gchar *what = describe (l, e, s);
    fail_unless (e->round->index < round,
        "%s was due, but one at %" GST_TIME_FORMAT
        " (round %u) came: lost, repeated or out of order",
        what, GST_TIME_ARGS (ts), round);
    fail_unless (is_cut (e->round),
        "%s never came, and its round was not cut: lost", what);
    stats.discarded[s]++;
    expect_free (g_queue_pop_head (&l->expect[s]));
  }
}

/* Checks every result that has arrived. */
static void
lane_drain (Lane *l)
{
  g_mutex_lock (&l->lock);
  gchar *error = g_steal_pointer (&l->error);
  g_mutex_unlock (&l->lock);
  fail_unless (error == NULL, "lane %u: %s", l->id, error);

  for (guint s = 0; s < N_STREAMS; s++) {
    for (;;) {
      g_mutex_lock (&l->lock);
      Record *rec = g_queue_pop_head (&l->records[s]);
      g_mutex_unlock (&l->lock);
      if (rec == NULL)
        break;
      guint64 ts = GST_CLOCK_TIME_NONE;
      if (rec->s)
        gst_structure_get_uint64 (rec->s, "timestamp", &ts);
      else
        ts = GST_BUFFER_PTS (rec->buf);
      Expect *e = match (l, s, ts);
      g_autofree gchar *what = describe (l, e, s);
      if (rec->s)
        check_message (e, rec->s, what);
      else
        check_buffer (e, rec->buf, what);
      stats.checked[s]++;
      expect_free (e);
      if (rec->s)
        gst_structure_free (rec->s);
      gst_clear_buffer (&rec->buf);
      g_free (rec);
    }
  }
}

/* At EOS everything has arrived: what is still expected must belong to
 * cut rounds. */
static void
lane_settle (Lane *l)
{
  lane_drain (l);
  for (guint s = 0; s < N_STREAMS; s++) {
    Expect *e;
    while ((e = g_queue_pop_head (&l->expect[s])) != NULL) {
      g_autofree gchar *what = describe (l, e, s);
      fail_unless (is_cut (e->round), "%s never came before EOS: lost", what);
      stats.discarded[s]++;
      expect_free (e);
    }
  }
}

/* 7. Driving a lane */

static void
lane_set_state (Lane *l, GstState state)
{
  fail_if (
      gst_element_set_state (l->pipeline, state) == GST_STATE_CHANGE_FAILURE,
      "lane %u: the change to %s failed", l->id,
      gst_element_state_get_name (state));
}

/* Starts the next round: restarts a stream that ended (EOS) or was cut,
 * changing what only READY allows after a state change. */
static void
lane_begin_round (Lane *l, gboolean last)
{
  const gboolean restart = l->last_end == END_RESTART
      || (l->last_end == END_EOS && g_rand_boolean (rand_));

  /* After a cut or EOS nothing of the round before will pass the probe. */
  if (l->last_end != END_CONTINUE) {
    g_mutex_lock (&l->lock);
    g_hash_table_remove_all (l->changes);
    g_mutex_unlock (&l->lock);
  }
  if (restart) {
    /* A cut round stopped the stream already; one that ended with EOS is
     * stopped now. Then a new mode. */
    if (l->last_end == END_EOS) {
      stats.restarts++;
      lane_set_state (
          l, g_rand_boolean (rand_) ? GST_STATE_READY : GST_STATE_NULL);
    }
    random_mode (l);
    /* appsrc sends its caps again when it starts. */
    GstPad *pad = gst_element_get_static_pad (l->src, "src");
    gst_pad_mark_reconfigure (pad);
    gst_object_unref (pad);
  }
  Round *r = round_new (l->kind, l->next_round++, &l->mode, last);
  if (restart) {
    lane_play (l);
  } else if (l->last_end == END_EOS) {
    stats.seeks++;
    fail_unless (gst_element_seek (l->pipeline, 1.0, GST_FORMAT_TIME,
                     GST_SEEK_FLAG_FLUSH, GST_SEEK_TYPE_SET, r->base,
                     GST_SEEK_TYPE_NONE, -1),
        "lane %u: the flushing seek after EOS failed", l->id);
  }
  /* In band: the caps go downstream before the round's first buffer. */
  gst_app_src_set_caps (GST_APP_SRC (l->src), r->caps);
  add_change (l, buffer_pts (r, 0), TRUE, r->monoid, r->threshold[0]);
  if (r->threshold_at < r->n_buffers)
    add_change (
        l, buffer_pts (r, r->threshold_at), FALSE, r->monoid, r->threshold[1]);
  expect_round (l->expect, r);
  l->round = r;
  l->next_buffer = 0;
  l->last_round = last;
  stats.rounds++;
}

/* Ends the round as it says, with its buffers possibly still in flight. */
static void
lane_end_round (Lane *l)
{
  Round *r = l->round;

  switch (r->end) {
    case END_CONTINUE:
      break;
    case END_FLUSH:
      /* The next round starts where the seek goes. */
      stats.seeks++;
      fail_unless (gst_element_seek (l->pipeline, 1.0, GST_FORMAT_TIME,
                       GST_SEEK_FLAG_FLUSH, GST_SEEK_TYPE_SET,
                       (r->index + 2) * ROUND_SPAN, GST_SEEK_TYPE_NONE, -1),
          "lane %u: the flushing seek failed", l->id);
      break;
    case END_RESTART:
      stats.restarts++;
      lane_set_state (
          l, g_rand_int_range (rand_, 0, 4) ? GST_STATE_READY : GST_STATE_NULL);
      /* What was posted before the stop is all there will be. */
      lane_drain (l);
      break;
    case END_EOS:
      fail_unless_equals_int (
          gst_app_src_end_of_stream (GST_APP_SRC (l->src)), GST_FLOW_OK);
      l->awaiting_eos = TRUE;
      l->eos_deadline = g_get_monotonic_time () + WAIT_USEC;
      break;
  }
  l->last_end = r->end;
  g_clear_pointer (&l->round, round_unref);
}

/* Pushes the next buffer, pausing and resuming where the round says. */
static void
lane_push (Lane *l)
{
  Round *r = l->round;
  const guint k = l->next_buffer++;

  fail_unless_equals_int (
      gst_app_src_push_buffer (GST_APP_SRC (l->src), round_buffer (r, k)),
      GST_FLOW_OK);
  stats.pushed++;
  if ((gint)k == r->pause_at) {
    /* Pausing a pipeline still on its way to PLAYING (after a start or a
     * flushing seek) can cost appsink its preroll buffer, which would show
     * here as a lost buffer: let it get there first. */
    fail_unless (
        gst_element_get_state (l->pipeline, NULL, NULL, WAIT_USEC * GST_USECOND)
            == GST_STATE_CHANGE_SUCCESS,
        "lane %u: not PLAYING within %d s", l->id,
        (gint)(WAIT_USEC / G_USEC_PER_SEC));
    lane_set_state (l, GST_STATE_PAUSED);
    l->paused = TRUE;
    l->resume_at = k + 3;
    stats.pauses++;
  }
  if (l->paused && (k >= l->resume_at || l->next_buffer == r->cut_at)) {
    lane_play (l);
    l->paused = FALSE;
  }
}

/* One step of a lane; FALSE when it has nothing to do now. @wind_down:
 * the next round is the last before a measurement. */
static gboolean
lane_step (Lane *l, gboolean wind_down)
{
  lane_drain (l);
  if (l->awaiting_eos) {
    g_mutex_lock (&l->lock);
    gboolean eos = l->eos;
    l->eos = FALSE;
    g_mutex_unlock (&l->lock);
    if (!eos) {
      fail_unless (g_get_monotonic_time () < l->eos_deadline,
          "lane %u: no EOS within %d s", l->id, WAIT_USEC / G_USEC_PER_SEC);
      return FALSE;
    }
    l->awaiting_eos = FALSE;
    lane_settle (l);
    stats.eos++;
    l->idle = l->last_round;
    return TRUE;
  }
  if (l->idle)
    return FALSE;
  if (l->round == NULL) {
    lane_begin_round (l, wind_down);
    return TRUE;
  }
  if (l->next_buffer < l->round->cut_at) {
    if (!l->paused
        && gst_app_src_get_current_level_bytes (GST_APP_SRC (l->src))
            > MAX_QUEUED)
      return FALSE;
    lane_push (l);
    return TRUE;
  }
  lane_end_round (l);
  return TRUE;
}

/* 8. Memory */

static guint64
rss_bytes (void)
{
  g_autofree gchar *text = NULL;
  guint64 pages = 0;
  if (g_file_get_contents ("/proc/self/statm", &text, NULL, NULL))
    sscanf (text, "%*u %" G_GUINT64_FORMAT, &pages);
  return pages * (guint64)sysconf (_SC_PAGESIZE);
}

/* The GPU memory of this process in MiB, from nvidia-smi (the driver table
 * has no cuMemGetInfo, which would count other processes too); -1 with
 * @why when it cannot be known. */
static gint64
gpu_mib (gchar **why)
{
  const gchar *argv[] = { "nvidia-smi", "--query-compute-apps=pid,used_memory",
    "--format=csv,noheader,nounits", NULL };
  g_autofree gchar *out = NULL;
  g_autoptr (GError) error = NULL;
  gint status = 0;
  gint64 total = -1;

  if (!g_spawn_sync (NULL, (gchar **)argv, NULL,
          G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out,
          NULL, &status, &error)
      || !g_spawn_check_wait_status (status, NULL)) {
    *why = g_strdup_printf (
        "nvidia-smi did not run (%s)", error ? error->message : "it failed");
    return -1;
  }
  g_auto (GStrv) lines = g_strsplit (out, "\n", -1);
  for (guint k = 0; lines[k]; k++) {
    guint64 pid = 0, mib = 0;
    if (sscanf (
            lines[k], "%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT, &pid, &mib)
            == 2
        && pid == (guint64)getpid ())
      total = MAX (total, 0) + (gint64)mib;
  }
  if (total < 0)
    *why = g_strdup ("nvidia-smi does not list this process (another PID "
                     "namespace?)");
  return total;
}

typedef struct {
  guint64 rss;
  gint64 gpu;
  gchar *why;
} Memory;

static void
measure (Memory *m, const gchar *when)
{
  m->rss = rss_bytes ();
  m->gpu = gpu_mib (&m->why);
  g_print ("memory %s: RSS %.1f MiB, GPU %" G_GINT64_FORMAT " MiB%s%s\n", when,
      m->rss / 1048576.0, m->gpu, m->why ? ": " : "", m->why ? m->why : "");
}

/* 9. The soak */

static guint
soak_seconds (void)
{
  const gchar *env = g_getenv ("CUDAREDUCE_SOAK_SECONDS");
  guint64 s = env ? g_ascii_strtoull (env, NULL, 10) : 0;
  return s > 0 ? (guint)s : 180;
}

/* Steps every lane until @until (monotonic time), then lets each finish
 * with a round that ends in EOS, until all are idle. */
static void
run (Lane *lanes, gint64 until)
{
  gboolean all_idle = FALSE;

  for (guint k = 0; k < N_LANES; k++)
    lanes[k].idle = FALSE;
  while (!all_idle) {
    const gboolean wind_down = g_get_monotonic_time () >= until;
    gboolean busy = FALSE;
    all_idle = TRUE;
    for (guint k = 0; k < N_LANES; k++) {
      busy |= lane_step (&lanes[k], wind_down);
      all_idle &= lanes[k].idle;
    }
    if (!busy)
      g_usleep (500);
  }
}

static void
check_growth (const gchar *what, gdouble before, gdouble after, gboolean check)
{
  const gdouble growth = before > 0 ? (after - before) / before : 0;
  g_print ("%s: %.1f -> %.1f MiB (%+.2f%%)%s\n", what, before, after,
      100 * growth, check ? "" : ", not checked: the run is under a minute");
  if (check)
    fail_unless (growth <= 0.02, "%s grew by %.2f%% (%.1f -> %.1f MiB)", what,
        100 * growth, before, after);
}

GST_START_TEST (test_soak)
{
  const guint seconds = soak_seconds ();
  const gint64 start = g_get_monotonic_time ();
  Lane *lanes = g_new0 (Lane, N_LANES);
  Memory warm = { 0 }, end = { 0 };

  g_print ("soak: %u elements for %u s\n", N_LANES, seconds);
  memset (&stats, 0, sizeof stats);
  for (guint k = 0; k < N_LANES; k++)
    lane_init (&lanes[k], k);
  run (lanes, start + seconds * G_USEC_PER_SEC / 5);
  measure (&warm, "after the warm-up");
  run (lanes, start + seconds * G_USEC_PER_SEC);
  measure (&end, "at the end");

  for (guint k = 0; k < N_LANES; k++) {
    lane_drain (&lanes[k]);
    lane_clear (&lanes[k]);
  }
  g_free (lanes);
  g_print ("soak summary: %u elements, %u rounds, %u buffers pushed; "
           "checked %u messages, %u output buffers; discarded by a cut "
           "round %u messages, %u output buffers; %u seeks, %u state "
           "changes to READY or NULL, %u pauses, %u EOS\n",
      N_LANES, stats.rounds, stats.pushed, stats.checked[STREAM_MESSAGES],
      stats.checked[STREAM_OUT], stats.discarded[STREAM_MESSAGES],
      stats.discarded[STREAM_OUT], stats.seeks, stats.restarts, stats.pauses,
      stats.eos);
  const gboolean long_run = seconds >= 60;
  check_growth ("RSS", warm.rss / 1048576.0, end.rss / 1048576.0, long_run);
  if (warm.gpu >= 0 && end.gpu >= 0)
    check_growth ("GPU memory", warm.gpu, end.gpu, long_run);
  else
    g_print ("GPU memory: not checked: %s\n", end.why ? end.why : warm.why);
  g_free (warm.why);
  g_free (end.why);
  fail_unless (stats.checked[STREAM_MESSAGES] > 0, "no result was checked");
}

GST_END_TEST;

static Suite *
gpu_soak_suite (void)
{
  Suite *s = suite_create ("gpu-soak");
  TCase *tc = tcase_create ("gpu");
  /* Setting up and winding down take well under the run itself. */
  tcase_set_timeout (tc, soak_seconds () * 2 + 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_soak);
  return s;
}

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  cr_test_require_gpu ();
  rand_ = cr_test_rand ();
  return gst_check_run_suite (gpu_soak_suite (), "gpu-soak", __FILE__);
}
