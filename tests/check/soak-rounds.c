/* soak-rounds.c: gpu-soak's rounds, their expected results, and the
 * checks of one result (see soak-rounds.h). */
#include "soak-rounds.h"

#include <string.h>

GRand *soak_rand;

/* 1. Monoids */

const gchar *const monoid_names[N_MONOIDS] = { "sum", "minmax", "mean_var",
  "count_gt", "soak_peak" };

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
void
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

const gchar *const kind_names[N_KINDS] = { "audio", "video", "tensors" };

const gchar *const end_names[4] = { "goes on", "flushing seek", "state change",
  "EOS" };

Round *
round_ref (Round *r)
{
  r->ref++;
  return r;
}

void
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

GstClockTime
buffer_pts (const Round *r, guint k)
{
  if (r->rate > 0)
    return r->base
        + gst_util_uint64_scale_int (r->starts[k], GST_SECOND, r->rate);
  return r->base + k * r->buf_duration;
}

GstClockTime
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
      return g_rand_int_range (soak_rand, 0, 256);
    case CR_TYPE_INT16:
      return g_rand_int_range (soak_rand, -32768, 32768);
    case CR_TYPE_INT32:
      return g_rand_double_range (soak_rand, -2147483648.0, 2147483647.0);
    default:
      return g_rand_double_range (soak_rand, -1000, 1000);
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
      guint a = g_rand_int_range (soak_rand, 0, G_N_ELEMENTS (audio));
      r->type = audio[a].type;
      r->channels = audio[a].channels;
      r->rate = 48000;
      r->caps = cr_test_audio_caps (audio[a].format, 48000, r->channels);
      *rows_per_buffer = 0; /* random per buffer */
      break;
    }
    case KIND_VIDEO: {
      guint v = g_rand_int_range (soak_rand, 0, G_N_ELEMENTS (video));
      r->type = CR_TYPE_UINT8;
      r->channels = 1;
      r->buf_duration = gst_util_uint64_scale_int (1, GST_SECOND, 30);
      r->caps = cr_test_video_caps ("GRAY8", video[v][0], video[v][1], 30);
      *rows_per_buffer = (guint64)video[v][0] * video[v][1];
      break;
    }
    default: {
      r->type = tensor_types[g_rand_int_range (soak_rand, 0, 3)];
      r->channels = tensor_channels[g_rand_int_range (soak_rand, 0, 3)];
      *rows_per_buffer = tensor_rows[g_rand_int_range (soak_rand, 0, 3)];
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
  gint p = g_rand_int_range (soak_rand, 0, 100);
  return p < 35 ? END_CONTINUE
      : p < 60  ? END_FLUSH
      : p < 75  ? END_RESTART
                : END_EOS;
}

/* A new round of lane kind @kind in @mode; @last: it must end with EOS. */
Round *
round_new (LaneKind kind, guint index, const Mode *mode, gboolean last)
{
  Round *r = g_new0 (Round, 1);
  guint64 rows;

  r->ref = 1;
  r->index = index;
  r->base = (index + 1) * ROUND_SPAN;
  r->mode = *mode;
  round_pick_input (r, kind, &rows);
  r->n_buffers = g_rand_int_range (soak_rand, 6, 41);
  r->starts = g_new0 (guint64, r->n_buffers + 1);
  for (guint k = 0; k < r->n_buffers; k++)
    r->starts[k + 1] = r->starts[k]
        + (rows ? rows : (guint64)g_rand_int_range (soak_rand, 1, 4001));
  r->data = cr_test_random_elements (
      soak_rand, r->type, r->starts[r->n_buffers] * r->channels);
  r->monoid = g_rand_int_range (soak_rand, 0, N_MONOIDS);
  r->threshold[0] = random_threshold (r->type);
  r->threshold[1] = random_threshold (r->type);
  /* Within an interval a threshold change would mix two thresholds. */
  r->threshold_at = r->monoid == M_COUNT_GT && mode->interval == 0
      ? (guint)g_rand_int_range (soak_rand, 1, r->n_buffers)
      : r->n_buffers;
  r->end = last ? END_EOS : random_end ();
  r->cut_at = r->end == END_FLUSH || r->end == END_RESTART
      ? (guint)g_rand_int_range (soak_rand, 1, r->n_buffers)
      : r->n_buffers;
  r->pause_at = !last && g_rand_int_range (soak_rand, 0, 100) < 15
      ? g_rand_int_range (soak_rand, 0, r->cut_at)
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

GstBuffer *
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

void
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

void
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

/* CR_SOAK_SHAPE_ONLY=1: results are checked for everything but the
 * values a kernel computes, for runs against the fake driver
 * (tests/check/fake-cuda.c), which runs no kernel. */
static gboolean
shape_only (void)
{
  static gint only = -1;
  if (only < 0)
    only = g_strcmp0 (g_getenv ("CR_SOAK_SHAPE_ONLY"), "1") == 0;
  return only;
}

/* A result message: timestamps, name, count, channels and values. */
void
check_message (const Expect *e, const GstStructure *s, const gchar *what)
{
  const Round *r = e->round;
  const guint64 count = e->rows * r->channels;
  guint components;
  CrTestSpan span = expect_span (e, &components);

  cr_test_check_time (s, "timestamp", e->ts, what);
  cr_test_check_time (s, "duration", e->duration, what);
  if (builtin (r->monoid) && !shape_only ()) {
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
  if (!shape_only ())
    check_custom (e, s, NULL, what);
}

/* A tensor buffer (output=tensor) or a buffer passed through. */
void
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
  if (shape_only ()) {
    fail_unless (GST_BUFFER_PTS (buf) == e->ts
            && (!GST_CLOCK_TIME_IS_VALID (e->duration)
                || GST_BUFFER_DURATION (buf) == e->duration),
        "%s: tensor buffer at %" GST_TIME_FORMAT " for %" GST_TIME_FORMAT
        ", expected %" GST_TIME_FORMAT " for %" GST_TIME_FORMAT,
        what, GST_TIME_ARGS (GST_BUFFER_PTS (buf)),
        GST_TIME_ARGS (GST_BUFFER_DURATION (buf)), GST_TIME_ARGS (e->ts),
        GST_TIME_ARGS (e->duration));
    fail_unless (gst_buffer_n_memory (buf) > 0, "%s: no tensor", what);
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
