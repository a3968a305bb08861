/* test-gpu-channels.c: the per-channel and interval properties on a GPU.
 *
 * per-channel: one result per interleaved audio channel, per byte of a packed
 * RGB pixel (the x of RGBx and BGRx left out) and per innermost index of a
 * tensor; 1 to 1024 channels, buffers of one row to several staging chunks,
 * results as message arrays and as tensors; incomplete rows are errors.
 *
 * interval: results accumulated across buffers, audio buffers split where
 * an interval ends, video frames and tensors counted whole; the partial
 * interval at EOS; DISCONT and flushes starting over; and the level element
 * on the same stream, interval for interval.
 *
 * Every result is checked against a reference computed here on the CPU from
 * fresh random data. */
#include "cr-test-util.h"

#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include <math.h>
#include <string.h>

static GRand *rand_;

/* Element types */

static gboolean
is_float (CrType t)
{
  return t == CR_TYPE_FLOAT32 || t == CR_TYPE_FLOAT64;
}

static gboolean
is_signed (CrType t)
{
  return t == CR_TYPE_INT8 || t == CR_TYPE_INT16 || t == CR_TYPE_INT32
      || t == CR_TYPE_INT64;
}

/* The monoids under test: their result fields, as the built-in files in
 * monoids/ declare them. */

typedef enum { SUM, SUMSQ, MINMAX, ARGMAX, MEAN_VAR } MonoidId;
typedef enum { KIND_IN, KIND_WIDE, KIND_UINT64, KIND_FLOAT64 } FieldKind;

typedef struct {
  const gchar *name;
  FieldKind kind;
} FieldSpec;

typedef struct {
  MonoidId id;
  const gchar *name;
  guint n_fields;
  FieldSpec fields[2];
} MonoidSpec;

static const MonoidSpec sum_m = { SUM, "sum", 1, { { "sum", KIND_WIDE } } };
static const MonoidSpec sumsq_m = { SUMSQ, "sumsq", 2,
  { { "sum", KIND_WIDE }, { "sumsq", KIND_WIDE } } };
static const MonoidSpec minmax_m = { MINMAX, "minmax", 2,
  { { "min", KIND_IN }, { "max", KIND_IN } } };
static const MonoidSpec argmax_m = { ARGMAX, "argmax", 2,
  { { "value", KIND_IN }, { "index", KIND_UINT64 } } };
static const MonoidSpec mean_var_m = { MEAN_VAR, "mean_var", 2,
  { { "mean", KIND_FLOAT64 }, { "variance", KIND_FLOAT64 } } };

static const MonoidSpec *const all_monoids[] = { &sum_m, &minmax_m, &argmax_m,
  &mean_var_m };

static CrType
field_type (const FieldSpec *f, CrType in)
{
  switch (f->kind) {
    case KIND_IN:
      return in;
    case KIND_WIDE:
      return is_float (in) ? CR_TYPE_FLOAT64
          : is_signed (in) ? CR_TYPE_INT64
                           : CR_TYPE_UINT64;
    case KIND_UINT64:
      return CR_TYPE_UINT64;
    case KIND_FLOAT64:
    default:
      return CR_TYPE_FLOAT64;
  }
}

/* Numbers: every value of every type is exact as a long double (64-bit
 * mantissa); integers also keep their bits, for sums that wrap. */

typedef struct {
  long double v;
  guint64 bits;
} Num;

static Num
num_from_bytes (CrType t, gconstpointer data, gsize k)
{
  Num n = { 0, 0 };
  if (is_float (t)) {
    n.v = cr_test_get_double (t, data, k);
  } else if (is_signed (t)) {
    gint64 x = cr_test_get_int64 (t, data, k);
    n.v = x;
    n.bits = (guint64)x;
  } else {
    guint64 x = cr_test_get_uint64 (t, data, k);
    n.v = x;
    n.bits = x;
  }
  return n;
}

static Num
num_from_value (
    const GValue *v, GType want, const gchar *what, const gchar *field, guint c)
{
  Num n = { 0, 0 };
  const GType t = G_VALUE_TYPE (v);

  fail_unless (t == want, "%s: %s[%u] is a %s, expected a %s", what, field, c,
      g_type_name (t), g_type_name (want));
  if (t == G_TYPE_INT) {
    gint x = g_value_get_int (v);
    n.v = x;
    n.bits = (guint64)(gint64)x;
  } else if (t == G_TYPE_UINT) {
    guint x = g_value_get_uint (v);
    n.v = x;
    n.bits = x;
  } else if (t == G_TYPE_INT64) {
    gint64 x = g_value_get_int64 (v);
    n.v = x;
    n.bits = (guint64)x;
  } else if (t == G_TYPE_UINT64) {
    guint64 x = g_value_get_uint64 (v);
    n.v = x;
    n.bits = x;
  } else if (t == G_TYPE_FLOAT) {
    n.v = g_value_get_float (v);
  } else {
    n.v = g_value_get_double (v);
  }
  return n;
}

/* References
 *
 * A Span is rows of interleaved channels: audio frames, pixels, tensor rows
 * (or single elements, for a result over everything). Video rows come in
 * lines of per_line rows, stride bytes apart; per_line 0 is one line. */
typedef struct {
  const guint8 *data;
  guint channels; /* elements per row */
  guint64 rows;
  guint64 per_line;
  gsize stride;
} Span;

/* One channel of a reference. */
typedef struct {
  guint64 n;
  guint64 sum_bits, sumsq_bits; /* integers, wrapping like int64/uint64 */
  long double sum, abs_sum, sumsq, min, max, max_abs;
  guint64 argmax; /* the first row holding max */
} Chan;

/* What a result over some spans, one after another, should be, for the
 * first @components channels of each row. */
typedef struct {
  CrType type;
  guint components;
  guint64 rows;
  GArray *spans;
  Chan *ch;
} Ref;

static Num
span_at (const Span *s, CrType t, guint64 row, guint c)
{
  const guint8 *line = s->data;
  guint64 col = row;
  if (s->per_line > 0) {
    line += (row / s->per_line) * s->stride;
    col = row % s->per_line;
  }
  return num_from_bytes (t, line, col * s->channels + c);
}

static Ref *
ref_new (CrType type, guint components)
{
  Ref *r = g_new0 (Ref, 1);
  r->type = type;
  r->components = components;
  r->spans = g_array_new (FALSE, FALSE, sizeof (Span));
  r->ch = g_new0 (Chan, components);
  return r;
}

static void
ref_free (Ref *r)
{
  g_array_unref (r->spans);
  g_free (r->ch);
  g_free (r);
}

/* Appends @s's rows; @s's data must outlive @r. */
static void
ref_add (Ref *r, const Span *s)
{
  for (guint64 row = 0; row < s->rows; row++) {
    for (guint c = 0; c < r->components; c++) {
      Num x = span_at (s, r->type, row, c);
      Chan *ch = &r->ch[c];
      if (ch->n == 0 || x.v > ch->max) {
        ch->max = x.v;
        ch->argmax = r->rows + row;
      }
      if (ch->n == 0 || x.v < ch->min)
        ch->min = x.v;
      ch->max_abs = MAX (ch->max_abs, fabsl (x.v));
      ch->sum += x.v;
      ch->abs_sum += fabsl (x.v);
      ch->sumsq += x.v * x.v;
      ch->sum_bits += x.bits;
      ch->sumsq_bits += x.bits * x.bits;
      ch->n++;
    }
  }
  r->rows += s->rows;
  g_array_append_val (r->spans, *s);
}

/* Element @c of row @row of everything added. */
static Num
ref_at (const Ref *r, guint64 row, guint c)
{
  for (guint k = 0; k < r->spans->len; k++) {
    const Span *s = &g_array_index (r->spans, Span, k);
    if (row < s->rows)
      return span_at (s, r->type, row, c);
    row -= s->rows;
  }
  g_assert_not_reached ();
  return (Num){ 0, 0 };
}

static Ref *
ref_of_span (CrType type, guint components, const Span *s)
{
  Ref *r = ref_new (type, components);
  ref_add (r, s);
  return r;
}

/* Checking results
 *
 * Every accumulator is float64 for float input (sum and sumsq are `wide`,
 * mean_var works in float64), so float results may differ from the exact
 * value only by the order of float64 additions: at most about n * 1.1e-16
 * of the sum of magnitudes. 1e-9 of it is safe for every size here and still
 * sees one element too many or too few. */
#define FLOAT_TOL 1e-9L

/* The result's values, field after field, @n per field. */
static Num *
nums_from_message (const GstStructure *s, const MonoidSpec *m, CrType in,
    gboolean per_channel, guint n, const gchar *what)
{
  Num *nums = g_new0 (Num, m->n_fields * n);

  for (guint f = 0; f < m->n_fields; f++) {
    const gchar *name = m->fields[f].name;
    const GValue *v = gst_structure_get_value (s, name);
    const GType want = cr_test_posted_gtype (field_type (&m->fields[f], in));
    fail_unless (v != NULL, "%s: no field %s", what, name);
    if (!per_channel) {
      nums[f * n] = num_from_value (v, want, what, name, 0);
      continue;
    }
    fail_unless (GST_VALUE_HOLDS_ARRAY (v), "%s: %s is a %s, not a %s", what,
        name, G_VALUE_TYPE_NAME (v), g_type_name (GST_TYPE_ARRAY));
    fail_unless (gst_value_array_get_size (v) == n,
        "%s: %s has %u values, expected %u", what, name,
        gst_value_array_get_size (v), n);
    for (guint c = 0; c < n; c++)
      nums[f * n + c] = num_from_value (
          gst_value_array_get_value (v, c), want, what, name, c);
  }
  return nums;
}

/* The same from a tensor buffer: one memory per field, @n values each. */
static Num *
nums_from_tensors (
    GstBuffer *buf, const MonoidSpec *m, CrType in, guint n, const gchar *what)
{
  Num *nums = g_new0 (Num, m->n_fields * n);

  fail_unless (gst_buffer_n_memory (buf) == m->n_fields,
      "%s: %u memories in the tensor buffer, expected %u", what,
      gst_buffer_n_memory (buf), m->n_fields);
  for (guint f = 0; f < m->n_fields; f++) {
    const CrType t = field_type (&m->fields[f], in);
    GstMemory *mem = gst_buffer_peek_memory (buf, f);
    GstMapInfo map;
    fail_unless (gst_memory_map (mem, &map, GST_MAP_READ),
        "%s: cannot map tensor %u", what, f);
    fail_unless (map.size == n * cr_type_size (t),
        "%s: tensor %u (%s) is %" G_GSIZE_FORMAT " bytes, expected %u %s", what,
        f, m->fields[f].name, map.size, n, cr_type_name (t));
    for (guint c = 0; c < n; c++)
      nums[f * n + c] = num_from_bytes (t, map.data, c);
    gst_memory_unmap (mem, &map);
  }
  return nums;
}

static void
check_float_sum (long double got, long double want, long double scale,
    const gchar *what, const gchar *field, guint c)
{
  fail_unless (fabsl (got - want) <= FLOAT_TOL * scale,
      "%s, channel %u: %s %.17Lg, reference %.17Lg", what, c, field, got, want);
}

static void
check_int_sum (
    guint64 got, guint64 want, const gchar *what, const gchar *field, guint c)
{
  fail_unless (got == want,
      "%s, channel %u: %s %" G_GUINT64_FORMAT " (as signed %" G_GINT64_FORMAT
      "), reference %" G_GUINT64_FORMAT " (%" G_GINT64_FORMAT ")",
      what, c, field, got, (gint64)got, want, (gint64)want);
}

/* @got: from nums_from_message or nums_from_tensors. */
static void
check_nums (
    const Num *got, const MonoidSpec *m, const Ref *ref, const gchar *what)
{
  const guint n = ref->components;
  const gboolean flt = is_float (ref->type);

  for (guint c = 0; c < n; c++) {
    const Chan *ch = &ref->ch[c];
    const Num *a = &got[c], *b = &got[n + c];

    /* Only sums are defined over nothing (the identity, 0). */
    fail_unless (ch->n > 0 || m->id == SUM || m->id == SUMSQ,
        "%s: test error, an empty reference", what);
    switch (m->id) {
      case SUM:
      case SUMSQ:
        if (flt)
          check_float_sum (a->v, ch->sum, ch->abs_sum, what, "sum", c);
        else
          check_int_sum (a->bits, ch->sum_bits, what, "sum", c);
        if (m->id == SUMSQ && flt)
          check_float_sum (b->v, ch->sumsq, ch->sumsq, what, "sumsq", c);
        else if (m->id == SUMSQ)
          check_int_sum (b->bits, ch->sumsq_bits, what, "sumsq", c);
        break;
      case MINMAX:
        fail_unless (a->v == ch->min,
            "%s, channel %u: min %.17Lg, expected %.17Lg", what, c, a->v,
            ch->min);
        fail_unless (b->v == ch->max,
            "%s, channel %u: max %.17Lg, expected %.17Lg", what, c, b->v,
            ch->max);
        break;
      case ARGMAX: {
        fail_unless (a->v == ch->max,
            "%s, channel %u: value %.17Lg, expected %.17Lg", what, c, a->v,
            ch->max);
        /* Any row holding the maximum will do. */
        fail_unless (b->bits < ref->rows,
            "%s, channel %u: index %" G_GUINT64_FORMAT
            " is past the %" G_GUINT64_FORMAT " rows",
            what, c, b->bits, ref->rows);
        long double there = ref_at (ref, b->bits, c).v;
        fail_unless (there == ch->max,
            "%s, channel %u: index %" G_GUINT64_FORMAT " holds %.17Lg, not "
            "the maximum %.17Lg (first at row %" G_GUINT64_FORMAT ")",
            what, c, b->bits, there, ch->max, ch->argmax);
        break;
      }
      case MEAN_VAR: {
        long double mean = ch->sum / ch->n;
        long double var = ch->sumsq / ch->n - mean * mean;
        var = MAX (var, 0);
        fail_unless (fabsl (a->v - mean) <= FLOAT_TOL * ch->max_abs,
            "%s, channel %u: mean %.17Lg, reference %.17Lg", what, c, a->v,
            mean);
        fail_unless (fabsl (b->v - var)
                <= FLOAT_TOL * var + 1e-12L * ch->max_abs * ch->max_abs,
            "%s, channel %u: variance %.17Lg, reference %.17Lg", what, c, b->v,
            var);
        break;
      }
    }
  }
}

static void
check_time (const GstStructure *s, const gchar *field, GstClockTime want,
    const gchar *what)
{
  guint64 got = 0;
  fail_unless (gst_structure_get_uint64 (s, field, &got), "%s: no guint64 %s",
      what, field);
  fail_unless (got == want,
      "%s: %s %" GST_TIME_FORMAT " (%" G_GUINT64_FORMAT
      "), expected %" GST_TIME_FORMAT " (%" G_GUINT64_FORMAT ")",
      what, field, GST_TIME_ARGS (got), got, GST_TIME_ARGS (want), want);
}

/* A result message of @m against @ref: name, count, channels and values.
 * @count: elements reduced; per channel, over the reported channels. */
static void
check_message (const GstStructure *s, const MonoidSpec *m, const Ref *ref,
    gboolean per_channel, guint64 count, const gchar *what)
{
  g_autofree gchar *text = gst_structure_to_string (s);
  guint64 got_count = 0;

  fail_unless (g_strcmp0 (gst_structure_get_string (s, "monoid"), m->name) == 0,
      "%s: not a result of %s: %s", what, m->name, text);
  fail_unless (gst_structure_get_uint64 (s, "count", &got_count),
      "%s: no guint64 count in %s", what, text);
  fail_unless (got_count == count,
      "%s: count %" G_GUINT64_FORMAT ", expected %" G_GUINT64_FORMAT, what,
      got_count, count);
  if (per_channel) {
    guint channels = 0;
    fail_unless (gst_structure_get_uint (s, "channels", &channels),
        "%s: no guint channels in %s", what, text);
    fail_unless (channels == ref->components, "%s: channels %u, expected %u",
        what, channels, ref->components);
  } else {
    fail_if (gst_structure_has_field (s, "channels"),
        "%s: a channels field without per-channel: %s", what, text);
  }
  Num *got =
      nums_from_message (s, m, ref->type, per_channel, ref->components, what);
  check_nums (got, m, ref, what);
  g_free (got);
}

/* Tensor output: the caps on the source pad... */
static void
check_tensor_caps (GstHarness *h, const MonoidSpec *m, CrType in, guint n,
    gint fps_n, gint fps_d, const gchar *what)
{
  g_autoptr (GstCaps) caps = gst_pad_get_current_caps (h->sinkpad);
  g_autoptr (GString) types = g_string_new (NULL);
  g_autoptr (GString) dims = g_string_new (NULL);
  gint num_tensors = -1, rate_n = -1, rate_d = -1;

  fail_unless (caps != NULL, "%s: no caps on the source pad", what);
  for (guint f = 0; f < m->n_fields; f++) {
    g_string_append_printf (types, "%s%s", f ? "," : "",
        cr_type_name (field_type (&m->fields[f], in)));
    g_string_append_printf (dims, "%s%u", f ? "," : "", n);
  }
  g_autofree gchar *text = gst_caps_to_string (caps);
  const GstStructure *s = gst_caps_get_structure (caps, 0);
  fail_unless (gst_caps_is_fixed (caps)
          && gst_structure_has_name (s, "other/tensors")
          && g_strcmp0 (gst_structure_get_string (s, "format"), "static") == 0
          && gst_structure_get_int (s, "num_tensors", &num_tensors)
          && num_tensors == (gint)m->n_fields
          && g_strcmp0 (gst_structure_get_string (s, "types"), types->str) == 0
          && g_strcmp0 (gst_structure_get_string (s, "dimensions"), dims->str)
              == 0
          && gst_structure_get_fraction (s, "framerate", &rate_n, &rate_d)
          && rate_n == fps_n && rate_d == fps_d,
      "%s: output caps %s, expected other/tensors, format=static, "
      "num_tensors=%u, types=%s, dimensions=%s, framerate=%d/%d",
      what, text, m->n_fields, types->str, dims->str, fps_n, fps_d);
}

/* ...and one output buffer. @duration NONE: not checked. */
static void
check_tensor_buffer (GstBuffer *buf, const MonoidSpec *m, const Ref *ref,
    GstClockTime pts, GstClockTime duration, const gchar *what)
{
  fail_unless (buf != NULL, "%s: no tensor buffer", what);
  fail_unless (GST_BUFFER_PTS (buf) == pts,
      "%s: tensor buffer PTS %" GST_TIME_FORMAT ", expected %" GST_TIME_FORMAT,
      what, GST_TIME_ARGS (GST_BUFFER_PTS (buf)), GST_TIME_ARGS (pts));
  if (GST_CLOCK_TIME_IS_VALID (duration))
    fail_unless (GST_BUFFER_DURATION (buf) == duration,
        "%s: tensor buffer duration %" GST_TIME_FORMAT
        ", expected %" GST_TIME_FORMAT,
        what, GST_TIME_ARGS (GST_BUFFER_DURATION (buf)),
        GST_TIME_ARGS (duration));
  Num *got = nums_from_tensors (buf, m, ref->type, ref->components, what);
  check_nums (got, m, ref, what);
  g_free (got);
}

/* Pushing and reading back */

static void
push_ok (GstHarness *h, GstBuffer *buf, const gchar *what)
{
  GstFlowReturn ret = gst_harness_push (h, buf);
  fail_unless (ret == GST_FLOW_OK, "%s: push returned %s", what,
      gst_flow_get_name (ret));
}

/* Pushes @buf stamped @pts and waits for its result. */
static GstStructure *
push_for_result (
    GstHarness *h, GstBuffer *buf, GstClockTime pts, const gchar *what)
{
  GST_BUFFER_PTS (buf) = pts;
  push_ok (h, buf, what);
  GstStructure *s = cr_test_pop_result (h);
  check_time (s, "timestamp", pts, what);
  return s;
}

/* Message mode: the buffer leaves as it came. */
static void
expect_passthrough (
    GstHarness *h, const guint8 *data, gsize size, const gchar *what)
{
  GstBuffer *out = gst_harness_pull (h);
  GstMapInfo map;

  fail_unless (out != NULL, "%s: the buffer was not passed on", what);
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ),
      "%s: cannot map the buffer passed on", what);
  fail_unless (
      map.size == size && (size == 0 || memcmp (map.data, data, size) == 0),
      "%s: the buffer passed on differs from the input", what);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
}

/* EOS, which the element forwards only after posting everything before it;
 * then every result still on the bus, in order. */
static GPtrArray *
results_after_eos (GstHarness *h, const gchar *what)
{
  GstBus *bus = GST_ELEMENT_BUS (h->element);
  GPtrArray *results =
      g_ptr_array_new_with_free_func ((GDestroyNotify)gst_structure_free);
  GstMessage *msg;

  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()),
      "%s: EOS was refused", what);
  while ((msg = gst_bus_pop_filtered (
              bus, GST_MESSAGE_ELEMENT | GST_MESSAGE_ERROR))
      != NULL) {
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      g_autoptr (GError) error = NULL;
      g_autofree gchar *debug = NULL;
      gst_message_parse_error (msg, &error, &debug);
      fail ("%s: error from cudareduce: %s\n%s", what, error->message,
          debug ? debug : "");
    }
    const GstStructure *s = gst_message_get_structure (msg);
    if (gst_structure_has_name (s, "cudareduce"))
      g_ptr_array_add (results, gst_structure_copy (s));
    gst_message_unref (msg);
  }
  return results;
}

static GstHarness *
channels_harness (GstCaps *caps, const MonoidSpec *m, gboolean per_channel,
    GstClockTime interval, gboolean tensor)
{
  g_autofree gchar *ns = g_strdup_printf ("%" G_GUINT64_FORMAT, interval);
  return cr_test_harness (caps, "monoid", m->name, "per-channel",
      per_channel ? "true" : "false", "interval", ns, "output",
      tensor ? "tensor" : "message", NULL);
}

/* Caps */

static GstCaps *
audio_caps (const gchar *format, gint rate, guint channels)
{
  return gst_caps_new_simple ("audio/x-raw", "format", G_TYPE_STRING, format,
      "layout", G_TYPE_STRING, "interleaved", "rate", G_TYPE_INT, rate,
      "channels", G_TYPE_INT, (gint)channels, NULL);
}

/* NNStreamer's dimensions are innermost first: "C:N" is N rows of C
 * elements. One row is given as the 1-D tensor "C". */
static GstCaps *
tensor_caps (CrType type, guint channels, guint64 rows)
{
  g_autofree gchar *dims = rows == 1
      ? g_strdup_printf ("%u", channels)
      : g_strdup_printf ("%u:%" G_GUINT64_FORMAT, channels, rows);
  return gst_caps_new_simple ("other/tensors", "format", G_TYPE_STRING,
      "static", "num_tensors", G_TYPE_INT, 1, "types", G_TYPE_STRING,
      cr_type_name (type), "dimensions", G_TYPE_STRING, dims, "framerate",
      GST_TYPE_FRACTION, 0, 1, NULL);
}

static GstCaps *
video_caps (const gchar *format, gint width, gint height, gint fps_n)
{
  return gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING, format,
      "width", G_TYPE_INT, width, "height", G_TYPE_INT, height, "framerate",
      GST_TYPE_FRACTION, fps_n, 1, NULL);
}

/* Random data, as a buffer the test owns */

static guint8 *
random_elements (CrType type, gsize n)
{
  guint8 *data = g_malloc (MAX (n * cr_type_size (type), 1));
  cr_test_fill_random (rand_, type, data, n);
  return data;
}

/* Rows of buffers to test: one, a few hundred, a few thousand (none of
 * them round), and an odd number that is more than 8 MiB, the largest
 * staging chunk. */
static void
buffer_rows (gsize row_bytes, guint64 rows[4])
{
  rows[0] = 1;
  rows[1] = 333;
  rows[2] = 4801;
  rows[3] = (((guint64)11 << 20) / row_bytes) | 1;
}

static const struct {
  const gchar *format;
  CrType type;
} audio_formats[] = {
  { "S8", CR_TYPE_INT8 },
  { "U8", CR_TYPE_UINT8 },
  { "S16LE", CR_TYPE_INT16 },
  { "U16LE", CR_TYPE_UINT16 },
  { "S32LE", CR_TYPE_INT32 },
  { "U32LE", CR_TYPE_UINT32 },
  { "F32LE", CR_TYPE_FLOAT32 },
  { "F64LE", CR_TYPE_FLOAT64 },
};

static const guint channel_counts[] = { 1, 2, 6, 7, 1024 };

/* 1. per-channel, one result per buffer */

/* Audio of @channels in buffers of each of @frames, every monoid on each
 * buffer (the monoid changes while PLAYING). @empty: also a buffer of no
 * frames, whose sums are the identity, 0, with count 0. */
static void
per_channel_audio (const gchar *format, CrType type, guint channels,
    const guint64 *frames, guint n_sizes, gboolean empty)
{
  const gsize frame_bytes = cr_type_size (type) * channels;
  GstHarness *h = cr_test_harness (
      audio_caps (format, 48000, channels), "per-channel", "true", NULL);
  GstClockTime pts = 0;

  for (guint s = 0; s < n_sizes; s++) {
    const gsize bytes = frames[s] * frame_bytes;
    guint8 *data = random_elements (type, frames[s] * channels);
    Span span = { data, channels, frames[s], 0, 0 };
    Ref *ref = ref_of_span (type, channels, &span);

    for (guint k = 0; k < G_N_ELEMENTS (all_monoids); k++) {
      const MonoidSpec *m = all_monoids[k];
      g_autofree gchar *what = g_strdup_printf (
          "audio %s, %u channels, %" G_GUINT64_FORMAT " frames, monoid %s",
          format, channels, frames[s], m->name);
      g_object_set (h->element, "monoid", m->name, NULL);
      GstStructure *res =
          push_for_result (h, gst_buffer_new_memdup (data, bytes), pts, what);
      check_message (res, m, ref, TRUE, frames[s] * channels, what);
      gst_structure_free (res);
      expect_passthrough (h, data, bytes, what);
      pts += GST_SECOND;
    }
    ref_free (ref);
    g_free (data);
  }

  if (empty) {
    g_autofree gchar *what = g_strdup_printf (
        "audio %s, %u channels, an empty buffer, monoid sum", format, channels);
    Ref *ref = ref_new (type, channels);
    g_object_set (h->element, "monoid", "sum", NULL);
    GstStructure *res = push_for_result (h, gst_buffer_new (), pts, what);
    check_message (res, &sum_m, ref, TRUE, 0, what);
    gst_structure_free (res);
    ref_free (ref);
  }
  gst_harness_teardown (h);
}

/* Every format, every channel count, a fresh element for each. */
GST_START_TEST (test_per_channel_audio)
{
  for (guint f = 0; f < G_N_ELEMENTS (audio_formats); f++) {
    for (guint c = 0; c < G_N_ELEMENTS (channel_counts); c++) {
      const guint channels = channel_counts[c];
      guint64 frames[4];
      buffer_rows (cr_type_size (audio_formats[f].type) * channels, frames);
      per_channel_audio (audio_formats[f].format, audio_formats[f].type,
          channels, frames, G_N_ELEMENTS (frames), c == 2);
    }
  }
}

GST_END_TEST;

/* Tensors of @type with each of @counts innermost channels: one element for
 * all of them, the channel count and the rows changing with the caps (so the
 * same programs are reconfigured for another number of channels). */
static void
per_channel_tensors (
    CrType type, const guint *counts, guint n_counts, const guint64 *only_rows)
{
  GstHarness *h = NULL;
  GstClockTime pts = 0;

  for (guint c = 0; c < n_counts; c++) {
    const guint channels = counts[c];
    guint64 rows[4];
    guint n_sizes = 4;
    if (only_rows) {
      rows[0] = *only_rows;
      n_sizes = 1;
    } else {
      buffer_rows (cr_type_size (type) * channels, rows);
    }
    for (guint s = 0; s < n_sizes; s++) {
      const gsize bytes = rows[s] * channels * cr_type_size (type);
      guint8 *data = random_elements (type, rows[s] * channels);
      Span span = { data, channels, rows[s], 0, 0 };
      Ref *ref = ref_of_span (type, channels, &span);
      GstCaps *caps = tensor_caps (type, channels, rows[s]);

      if (h == NULL)
        h = cr_test_harness (caps, "per-channel", "true", NULL);
      else
        gst_harness_set_src_caps (h, caps);
      for (guint k = 0; k < G_N_ELEMENTS (all_monoids); k++) {
        const MonoidSpec *m = all_monoids[k];
        g_autofree gchar *what = g_strdup_printf (
            "tensors of %s, %u:%" G_GUINT64_FORMAT ", monoid %s",
            cr_type_name (type), channels, rows[s], m->name);
        g_object_set (h->element, "monoid", m->name, NULL);
        GstStructure *res =
            push_for_result (h, gst_buffer_new_memdup (data, bytes), pts, what);
        check_message (res, m, ref, TRUE, rows[s] * channels, what);
        gst_structure_free (res);
        expect_passthrough (h, data, bytes, what);
        pts += GST_SECOND;
      }
      ref_free (ref);
      g_free (data);
    }
  }
  gst_harness_teardown (h);
}

GST_START_TEST (test_per_channel_tensors)
{
  static const CrType types[] = { CR_TYPE_INT8, CR_TYPE_UINT8, CR_TYPE_INT16,
    CR_TYPE_UINT16, CR_TYPE_INT32, CR_TYPE_UINT32, CR_TYPE_INT64,
    CR_TYPE_UINT64, CR_TYPE_FLOAT32, CR_TYPE_FLOAT64 };

  for (guint t = 0; t < G_N_ELEMENTS (types); t++)
    per_channel_tensors (
        types[t], channel_counts, G_N_ELEMENTS (channel_counts), NULL);
}

GST_END_TEST;

/* Video */

typedef struct {
  const gchar *format;
  CrType type;
  guint channels; /* elements per pixel */
  guint components; /* reported: not the x of RGBx and BGRx */
} VideoFormat;

static const VideoFormat video_formats[] = {
  { "RGBA", CR_TYPE_UINT8, 4, 4 },
  { "BGRA", CR_TYPE_UINT8, 4, 4 },
  { "RGBx", CR_TYPE_UINT8, 4, 3 },
  { "BGRx", CR_TYPE_UINT8, 4, 3 },
  { "RGB", CR_TYPE_UINT8, 3, 3 },
  { "BGR", CR_TYPE_UINT8, 3, 3 },
  { "GRAY8", CR_TYPE_UINT8, 1, 1 },
  { "GRAY16_LE", CR_TYPE_UINT16, 1, 1 },
};

/* One buffer of a stream: its bytes (kept for the reference), how the
 * reference reads them, and its timing. */
typedef struct {
  guint8 *data;
  gsize size;
  Span span;
  GstCaps *caps; /* video: its caps */
  GstVideoFormat vformat;
  gint width, height;
  gboolean meta; /* video: the stride is in a GstVideoMeta */
  GstClockTime pts;
  GstClockTime duration; /* on the buffer; NONE: none */
  GstClockTime counted; /* the duration the element counts for it */
  gboolean discont;
} Item;

static void
item_clear (Item *it)
{
  g_free (it->data);
  gst_clear_caps (&it->caps);
}

/* A random frame of @f; its rows @extra bytes further apart than
 * GStreamer's default stride (in a GstVideoMeta) when @extra > 0. Every
 * byte of the buffer is random, row padding included, so that reading it
 * would change the results. */
static void
video_item (Item *it, const VideoFormat *f, gint width, gint height,
    gsize extra, gint fps_n)
{
  GstVideoInfo info;

  memset (it, 0, sizeof *it);
  it->caps = video_caps (f->format, width, height, fps_n);
  fail_unless (gst_video_info_from_caps (&info, it->caps),
      "video %s %dx%d: no video info", f->format, width, height);
  /* Rows of GRAY16 start on whole pixels. */
  const gsize elem = cr_type_size (f->type);
  extra = (extra + elem - 1) / elem * elem;
  const gsize stride = GST_VIDEO_INFO_PLANE_STRIDE (&info, 0) + extra;
  it->vformat = GST_VIDEO_INFO_FORMAT (&info);
  it->width = width;
  it->height = height;
  it->meta = extra > 0;
  it->size = it->meta ? stride * height : GST_VIDEO_INFO_SIZE (&info);
  it->data = random_elements (CR_TYPE_UINT8, it->size);
  it->span.data =
      it->data + (it->meta ? 0 : GST_VIDEO_INFO_PLANE_OFFSET (&info, 0));
  it->span.channels = f->channels;
  it->span.rows = (guint64)width * height;
  it->span.per_line = width;
  it->span.stride = stride;
  it->pts = GST_CLOCK_TIME_NONE;
  it->duration = GST_CLOCK_TIME_NONE;
}

static GstBuffer *
item_buffer (const Item *it)
{
  GstBuffer *buf = gst_buffer_new_memdup (it->data, it->size);
  if (it->meta) {
    gsize offset[GST_VIDEO_MAX_PLANES] = { 0 };
    gint stride[GST_VIDEO_MAX_PLANES] = { (gint)it->span.stride };
    gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE, it->vformat,
        it->width, it->height, 1, offset, stride);
  }
  GST_BUFFER_PTS (buf) = it->pts;
  GST_BUFFER_DURATION (buf) = it->duration;
  if (it->discont)
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
  return buf;
}

static gchar *
video_item_name (const VideoFormat *f, const Item *it)
{
  return g_strdup_printf ("video %s %dx%d, stride %" G_GSIZE_FORMAT "%s",
      f->format, it->width, it->height, it->span.stride,
      it->meta ? " (in a video meta)" : "");
}

/* Frames of @f of each size {width, height, extra stride}, every monoid. */
static void
per_channel_video (const VideoFormat *f, const gint (*sizes)[3], guint n)
{
  GstHarness *h = NULL;
  GstClockTime pts = 0;

  for (guint s = 0; s < n; s++) {
    Item it;
    video_item (&it, f, sizes[s][0], sizes[s][1], sizes[s][2], 30);
    Ref *ref = ref_of_span (f->type, f->components, &it.span);
    g_autofree gchar *name = video_item_name (f, &it);

    if (h == NULL)
      h = cr_test_harness (gst_caps_ref (it.caps), "per-channel", "true", NULL);
    else
      gst_harness_set_src_caps (h, gst_caps_ref (it.caps));
    for (guint k = 0; k < G_N_ELEMENTS (all_monoids); k++) {
      const MonoidSpec *m = all_monoids[k];
      g_autofree gchar *what = g_strdup_printf ("%s, monoid %s", name, m->name);
      g_object_set (h->element, "monoid", m->name, NULL);
      GstStructure *res = push_for_result (h, item_buffer (&it), pts, what);
      /* The count is over the reported channels: not RGBx's x. */
      check_message (res, m, ref, TRUE, it.span.rows * f->components, what);
      gst_structure_free (res);
      expect_passthrough (h, it.data, it.size, what);
      pts += GST_SECOND;
    }
    ref_free (ref);
    item_clear (&it);
  }
  gst_harness_teardown (h);
}

/* Odd widths: RGB and BGR rows are rounded up to 4 bytes; the video meta
 * adds 37 bytes of padding to every format. The largest frame is over 8
 * MiB for the 4-byte formats, which have no padding by default. */
static const gint video_sizes[][3] = {
  { 333, 101, 0 },
  { 1, 1, 0 },
  { 333, 1, 0 },
  { 1921, 1093, 0 },
  { 333, 101, 37 },
  { 7, 5, 37 },
};

GST_START_TEST (test_per_channel_video)
{
  for (guint f = 0; f < G_N_ELEMENTS (video_formats); f++)
    per_channel_video (
        &video_formats[f], video_sizes, G_N_ELEMENTS (video_sizes));
}

GST_END_TEST;

/* 2. per-channel with output=tensor: C values per result tensor */

static void
per_channel_tensor_output (GstCaps *caps, const MonoidSpec *m, CrType type,
    guint components, gint fps_n, const Item *items, guint n_items,
    guint row_channels, const gchar *name)
{
  GstHarness *h = channels_harness (caps, m, TRUE, 0, TRUE);

  for (guint k = 0; k < n_items; k++) {
    const Item *it = &items[k];
    g_autofree gchar *what = g_strdup_printf ("%s, %" G_GUINT64_FORMAT
                                              " rows, monoid %s, output=tensor",
        name, it->span.rows, m->name);
    Ref *ref = ref_of_span (type, components, &it->span);
    GstBuffer *buf = item_buffer (it);
    GST_BUFFER_PTS (buf) = k * GST_SECOND;
    GST_BUFFER_DURATION (buf) = GST_SECOND / 2;
    push_ok (h, buf, what);

    GstBuffer *out = gst_harness_pull (h);
    check_tensor_caps (h, m, type, components, fps_n, 1, what);
    check_tensor_buffer (out, m, ref, k * GST_SECOND, GST_SECOND / 2, what);
    gst_buffer_unref (out);
    /* Messages are posted in tensor mode too. */
    GstStructure *res = cr_test_pop_result (h);
    /* Over the reported channels (not RGBx's x). */
    check_message (res, m, ref, TRUE, it->span.rows * components, what);
    gst_structure_free (res);
    ref_free (ref);
  }
  gst_harness_teardown (h);
}

static void
raw_item (Item *it, CrType type, guint channels, guint64 rows)
{
  memset (it, 0, sizeof *it);
  it->size = rows * channels * cr_type_size (type);
  it->data = random_elements (type, rows * channels);
  it->span = (Span){ it->data, channels, rows, 0, 0 };
  it->pts = GST_CLOCK_TIME_NONE;
  it->duration = GST_CLOCK_TIME_NONE;
}

GST_START_TEST (test_per_channel_tensor_output)
{
  Item items[3];

  /* Audio, 6 channels. */
  raw_item (&items[0], CR_TYPE_INT16, 6, 4801);
  raw_item (&items[1], CR_TYPE_INT16, 6, 1);
  per_channel_tensor_output (audio_caps ("S16LE", 44100, 6), &minmax_m,
      CR_TYPE_INT16, 6, 0, items, 2, 6, "audio S16LE, 6 channels");
  per_channel_tensor_output (audio_caps ("S16LE", 44100, 6), &sum_m,
      CR_TYPE_INT16, 6, 0, items, 2, 6, "audio S16LE, 6 channels");
  item_clear (&items[0]);
  item_clear (&items[1]);

  /* Audio, 7 channels of U8: the index is a uint64 tensor. */
  raw_item (&items[0], CR_TYPE_UINT8, 7, 100003);
  per_channel_tensor_output (audio_caps ("U8", 8000, 7), &argmax_m,
      CR_TYPE_UINT8, 7, 0, items, 1, 7, "audio U8, 7 channels");
  item_clear (&items[0]);

  /* Tensors, 1024 channels. */
  raw_item (&items[0], CR_TYPE_FLOAT64, 1024, 300);
  per_channel_tensor_output (tensor_caps (CR_TYPE_FLOAT64, 1024, 300),
      &mean_var_m, CR_TYPE_FLOAT64, 1024, 0, items, 1, 1024,
      "tensors of float64, 1024:300");
  item_clear (&items[0]);

  /* RGBx: three tensors' worth of channels, the x left out; BGR with row
   * padding. */
  video_item (&items[0], &video_formats[2], 333, 101, 0, 25);
  per_channel_tensor_output (gst_caps_ref (items[0].caps), &sum_m,
      CR_TYPE_UINT8, 3, 25, items, 1, 4, "video RGBx 333x101");
  item_clear (&items[0]);
  video_item (&items[0], &video_formats[5], 333, 101, 0, 25);
  per_channel_tensor_output (gst_caps_ref (items[0].caps), &argmax_m,
      CR_TYPE_UINT8, 3, 25, items, 1, 3, "video BGR 333x101");
  item_clear (&items[0]);
}

GST_END_TEST;

/* 3. per-channel: a buffer that is not a whole number of rows is refused */

static void
expect_refused (GstHarness *h, GstBuffer *buf, const gchar *what)
{
  GstBus *bus = GST_ELEMENT_BUS (h->element);
  GstFlowReturn ret = gst_harness_push (h, buf);
  GstMessage *error = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);

  /* An error found after the push returned would arrive on the bus. */
  if (ret == GST_FLOW_OK && error == NULL)
    error = cr_test_pop_error (h);
  fail_unless (
      ret != GST_FLOW_OK || error != NULL, "%s: accepted, with no error", what);
  if (error) {
    g_autoptr (GError) err = NULL;
    gst_message_parse_error (error, &err, NULL);
    fail_unless (
        err->domain == GST_STREAM_ERROR && err->code == GST_STREAM_ERROR_FORMAT,
        "%s: error %s %d (%s), expected a stream format error", what,
        g_quark_to_string (err->domain), err->code, err->message);
    gst_message_unref (error);
  }
  /* Whatever was in flight has been posted once EOS is through. */
  gst_harness_push_event (h, gst_event_new_eos ());
  GstMessage *result = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT);
  if (result) {
    gchar *text = gst_structure_to_string (gst_message_get_structure (result));
    fail ("%s: a result was posted: %s", what, text);
  }
}

static GstBuffer *
random_bytes_buffer (gsize bytes)
{
  guint8 *data = random_elements (CR_TYPE_UINT8, bytes);
  GstBuffer *buf = gst_buffer_new_wrapped (data, bytes);
  return buf;
}

GST_START_TEST (test_per_channel_partial_row_is_error)
{
  static const struct {
    gboolean tensor;
    CrType type;
    const gchar *format;
    guint channels;
    gsize bytes;
    GstClockTime interval;
  } cases[] = {
    /* 10 frames and 2 samples of the next, or 1 byte. */
    { FALSE, CR_TYPE_INT16, "S16LE", 6, 10 * 12 + 4, 0 },
    { FALSE, CR_TYPE_INT16, "S16LE", 6, 10 * 12 + 1, 0 },
    { FALSE, CR_TYPE_INT16, "S16LE", 6, 10 * 12 + 4, 5 * GST_MSECOND },
    { FALSE, CR_TYPE_FLOAT32, "F32LE", 1024, 3 * 4096 + 1020 * 4, 0 },
    { FALSE, CR_TYPE_FLOAT32, "F32LE", 2, 4801 * 8 + 4, 10 * GST_MSECOND },
    /* Tensors: 10 rows of 7 and 3 elements; 2 rows of 1024 less one. */
    { TRUE, CR_TYPE_FLOAT32, NULL, 7, 73 * 4, 0 },
    { TRUE, CR_TYPE_UINT8, NULL, 1024, 2047, 0 },
    { TRUE, CR_TYPE_UINT8, NULL, 1024, 2047, 10 * GST_MSECOND },
  };

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++) {
    GstCaps *caps = cases[k].tensor
        ? tensor_caps (cases[k].type, cases[k].channels, 10)
        : audio_caps (cases[k].format, 48000, cases[k].channels);
    g_autofree gchar *what =
        g_strdup_printf ("%s %s, %u channels, a buffer of %" G_GSIZE_FORMAT
                         " bytes, interval %" G_GUINT64_FORMAT,
            cases[k].tensor ? "tensors of" : "audio",
            cases[k].tensor ? cr_type_name (cases[k].type) : cases[k].format,
            cases[k].channels, cases[k].bytes, cases[k].interval);
    GstHarness *h =
        channels_harness (caps, &sum_m, TRUE, cases[k].interval, FALSE);
    GstBuffer *buf = random_bytes_buffer (cases[k].bytes);
    GST_BUFFER_PTS (buf) = 0;
    expect_refused (h, buf, what);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* 4. per-channel through the other memory paths: the element's pinned
 * memory (read in place, one launch), ordinary memory that comes back
 * (registered on its second visit), and chunks much smaller than rows. */

GST_START_TEST (test_per_channel_pinned_and_registered)
{
  const guint channels = 7;
  const gsize frame_bytes = channels * 4;
  GstCaps *caps = audio_caps ("F32LE", 48000, channels);
  GstHarness *h =
      channels_harness (gst_caps_ref (caps), &minmax_m, TRUE, 0, FALSE);
  GstQuery *query = gst_query_new_allocation (caps, TRUE);
  GstAllocator *allocator = NULL;
  GstAllocationParams params;
  guint64 frames[4];
  GstClockTime pts = 0;

  fail_unless (gst_pad_peer_query (h->srcpad, query),
      "audio F32LE, %u channels: the ALLOCATION query failed", channels);
  fail_unless (gst_query_get_n_allocation_params (query) > 0,
      "audio F32LE, %u channels: no allocator proposed", channels);
  gst_query_parse_nth_allocation_param (query, 0, &allocator, &params);
  fail_unless (
      allocator != NULL, "audio F32LE, %u channels: no allocator", channels);

  buffer_rows (frame_bytes, frames);
  for (guint s = 0; s < G_N_ELEMENTS (frames); s++) {
    const gsize bytes = frames[s] * frame_bytes;
    g_autofree gchar *what =
        g_strdup_printf ("audio F32LE, %u channels, %" G_GUINT64_FORMAT
                         " frames in the element's pinned memory",
            channels, frames[s]);
    guint8 *data = random_elements (CR_TYPE_FLOAT32, frames[s] * channels);
    GstBuffer *buf = gst_buffer_new_allocate (allocator, bytes, &params);
    fail_unless (buf != NULL, "%s: cannot allocate", what);
    gst_buffer_fill (buf, 0, data, bytes);
    Span span = { data, channels, frames[s], 0, 0 };
    Ref *ref = ref_of_span (CR_TYPE_FLOAT32, channels, &span);
    GstStructure *res = push_for_result (h, buf, pts, what);
    check_message (res, &minmax_m, ref, TRUE, frames[s] * channels, what);
    gst_structure_free (res);
    expect_passthrough (h, data, bytes, what);
    ref_free (ref);
    g_free (data);
    pts += GST_SECOND;
  }

  /* Ordinary memory, new contents on every visit. */
  const guint64 n = 20011;
  GstBuffer *buf = gst_buffer_new_allocate (NULL, n * frame_bytes, NULL);
  for (guint visit = 0; visit < 4; visit++) {
    g_autofree gchar *what =
        g_strdup_printf ("audio F32LE, %u channels, %" G_GUINT64_FORMAT
                         " frames in ordinary memory, visit %u",
            channels, n, visit + 1);
    GstMapInfo map;
    fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE),
        "%s: cannot map the buffer", what);
    cr_test_fill_random (rand_, CR_TYPE_FLOAT32, map.data, n * channels);
    guint8 *data = g_memdup2 (map.data, map.size);
    gst_buffer_unmap (buf, &map);
    Span span = { data, channels, n, 0, 0 };
    Ref *ref = ref_of_span (CR_TYPE_FLOAT32, channels, &span);
    GstStructure *res = push_for_result (h, buf, pts, what);
    check_message (res, &minmax_m, ref, TRUE, n * channels, what);
    gst_structure_free (res);
    buf = gst_harness_pull (h);
    fail_unless (buf != NULL && gst_buffer_is_writable (buf),
        "%s: the buffer did not come back for reuse", what);
    ref_free (ref);
    g_free (data);
    pts += GST_SECOND;
  }
  gst_buffer_unref (buf);
  gst_object_unref (allocator);
  gst_query_unref (query);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* GST_CUDAREDUCE_CHUNK_BYTES: @bytes, or as it was before the test. */
#define CHUNK_BYTES_ENV "GST_CUDAREDUCE_CHUNK_BYTES"
static gchar *original_chunk_bytes;

static void
set_chunk_bytes (const gchar *bytes)
{
  if (bytes)
    g_setenv (CHUNK_BYTES_ENV, bytes, TRUE);
  else if (original_chunk_bytes)
    g_setenv (CHUNK_BYTES_ENV, original_chunk_bytes, TRUE);
  else
    g_unsetenv (CHUNK_BYTES_ENV);
}

/* Chunks of 4 KiB: rows of 7 float32 channels do not divide them, rows of
 * 1024 float64 channels (8 KiB) are larger than them, and padded video is
 * copied a few lines at a time; every launch carries the state of the one
 * before, and argmax's row index must count across them. */
GST_START_TEST (test_per_channel_small_chunks)
{
  static const guint seven = 7, wide = 1024;
  static const guint64 f32_frames[] = { 5003, 1 };
  static const guint64 f64_frames[] = { 300 };
  static const guint64 s16_frames[] = { 7777 };
  static const guint64 tensor_rows = 5003;
  static const gint rgb_sizes[][3] = { { 333, 101, 0 } };
  static const gint rgbx_sizes[][3] = { { 333, 101, 37 } };

  set_chunk_bytes ("4096");
  per_channel_audio ("F32LE", CR_TYPE_FLOAT32, 7, f32_frames, 2, FALSE);
  per_channel_audio ("F64LE", CR_TYPE_FLOAT64, 1024, f64_frames, 1, FALSE);
  per_channel_audio ("S16LE", CR_TYPE_INT16, 6, s16_frames, 1, FALSE);
  per_channel_tensors (CR_TYPE_UINT16, &seven, 1, &tensor_rows);
  per_channel_tensors (CR_TYPE_INT32, &wide, 1, &tensor_rows);
  per_channel_video (&video_formats[4], rgb_sizes, 1);
  per_channel_video (&video_formats[2], rgbx_sizes, 1);
  set_chunk_bytes (NULL);
}

GST_END_TEST;

/* 5. interval, audio: split where an interval ends */

/* Audio buffers over one array of frames, with PTS and durations from their
 * first frame's position. */
typedef struct {
  const gchar *format;
  CrType type;
  gint rate;
  guint channels;
  GstClockTime base; /* PTS of the first frame */
  guint8 *data;
  guint64 frames;
  GArray *starts; /* guint64: each buffer's first frame, then the end */
} AudioStream;

static gsize
stream_frame_bytes (const AudioStream *st)
{
  return cr_type_size (st->type) * st->channels;
}

static AudioStream *
audio_stream_new (const gchar *format, CrType type, gint rate, guint channels,
    GstClockTime base, const guint64 *sizes, guint n_buffers)
{
  AudioStream *st = g_new0 (AudioStream, 1);
  guint64 total = 0;

  st->format = format;
  st->type = type;
  st->rate = rate;
  st->channels = channels;
  st->base = base;
  st->starts = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_array_append_val (st->starts, total);
  for (guint k = 0; k < n_buffers; k++) {
    g_assert (sizes[k] > 0);
    total += sizes[k];
    g_array_append_val (st->starts, total);
  }
  st->frames = total;
  st->data = random_elements (type, total * channels);
  return st;
}

static void
audio_stream_free (AudioStream *st)
{
  g_array_unref (st->starts);
  g_free (st->data);
  g_free (st);
}

static guint
stream_n_buffers (const AudioStream *st)
{
  return st->starts->len - 1;
}

static guint64
stream_start (const AudioStream *st, guint k)
{
  return g_array_index (st->starts, guint64, k);
}

static GstClockTime
stream_pts (const AudioStream *st, guint64 frame)
{
  return st->base + gst_util_uint64_scale_int (frame, GST_SECOND, st->rate);
}

/* Buffer @k, in memory of @allocator (NULL: ordinary memory). */
static GstBuffer *
stream_buffer (const AudioStream *st, guint k, GstAllocator *allocator,
    GstAllocationParams *params)
{
  const gsize fb = stream_frame_bytes (st);
  const guint64 start = stream_start (st, k), end = stream_start (st, k + 1);
  const gsize bytes = (end - start) * fb;
  GstBuffer *buf;

  if (allocator) {
    buf = gst_buffer_new_allocate (allocator, bytes, params);
    fail_unless (buf != NULL,
        "audio %s, %u channels, buffer %u: cannot "
        "allocate %" G_GSIZE_FORMAT " bytes",
        st->format, st->channels, k, bytes);
    gst_buffer_fill (buf, 0, st->data + start * fb, bytes);
  } else {
    buf = gst_buffer_new_memdup (st->data + start * fb, bytes);
  }
  GST_BUFFER_PTS (buf) = stream_pts (st, start);
  GST_BUFFER_DURATION (buf) = stream_pts (st, end) - stream_pts (st, start);
  return buf;
}

/* The time of frame @g as the element stamps it: the PTS of its buffer
 * plus the frames before it in that buffer. */
static GstClockTime
stream_frame_time (const AudioStream *st, guint64 g)
{
  for (guint k = 0; k < stream_n_buffers (st); k++) {
    const guint64 start = stream_start (st, k);
    if (g >= start && g < stream_start (st, k + 1))
      return stream_pts (st, start)
          + gst_util_uint64_scale_int (g - start, GST_SECOND, st->rate);
  }
  g_assert_not_reached ();
  return GST_CLOCK_TIME_NONE;
}

/* The frames of an interval: level's rounding, which the element follows. */
static guint64
interval_frames (GstClockTime interval, gint rate)
{
  return MAX (1, gst_util_uint64_scale_round (interval, rate, GST_SECOND));
}

/* One expected result. */
typedef struct {
  GstClockTime ts, duration;
  guint64 count;
  Ref *ref;
  gchar *what;
} Expected;

static void
expected_free (gpointer data)
{
  Expected *e = data;
  ref_free (e->ref);
  g_free (e->what);
  g_free (e);
}

static GPtrArray *
expected_new (void)
{
  return g_ptr_array_new_with_free_func (expected_free);
}

/* Appends the intervals of @per frames of @st, and the rest at the end
 * when @partial. */
static void
audio_intervals (GPtrArray *expected, const AudioStream *st, guint64 per,
    gboolean partial, gboolean per_channel, const gchar *what)
{
  const gsize fb = stream_frame_bytes (st);
  guint k = 0;

  for (guint64 first = 0; first < st->frames; first += per, k++) {
    const guint64 len = MIN (per, st->frames - first);
    if (len < per && !partial)
      break;
    Expected *e = g_new0 (Expected, 1);
    e->ts = stream_frame_time (st, first);
    e->duration = gst_util_uint64_scale_int (len, GST_SECOND, st->rate);
    e->count = len * st->channels;
    /* Without per-channel a row is one sample. */
    Span span = { st->data + first * fb, per_channel ? st->channels : 1,
      per_channel ? len : len * st->channels, 0, 0 };
    e->ref = ref_of_span (st->type, per_channel ? st->channels : 1, &span);
    e->what = g_strdup_printf ("%s, interval %u (frames %" G_GUINT64_FORMAT
                               " to %" G_GUINT64_FORMAT "%s)",
        what, k, first, first + len,
        len < per ? ", the partial one at EOS" : "");
    g_ptr_array_add (expected, e);
  }
}

/* @results, in order, are @expected. */
static void
check_results (GPtrArray *results, GPtrArray *expected, const MonoidSpec *m,
    gboolean per_channel, const gchar *what)
{
  for (guint k = 0; k < MIN (results->len, expected->len); k++) {
    const GstStructure *s = g_ptr_array_index (results, k);
    const Expected *e = g_ptr_array_index (expected, k);
    check_time (s, "timestamp", e->ts, e->what);
    check_time (s, "duration", e->duration, e->what);
    check_message (s, m, e->ref, per_channel, e->count, e->what);
  }
  fail_unless (results->len == expected->len, "%s: %u results, expected %u",
      what, results->len, expected->len);
}

/* Tensor mode: one buffer per interval, stamped as the interval. */
static void
check_tensor_results (
    GstHarness *h, GPtrArray *expected, const MonoidSpec *m, const gchar *what)
{
  for (guint k = 0; k < expected->len; k++) {
    const Expected *e = g_ptr_array_index (expected, k);
    GstBuffer *out = gst_harness_try_pull (h);
    fail_unless (out != NULL, "%s: no tensor buffer", e->what);
    check_tensor_buffer (out, m, e->ref, e->ts, e->duration, e->what);
    gst_buffer_unref (out);
  }
  GstBuffer *extra = gst_harness_try_pull (h);
  fail_unless (extra == NULL, "%s: more tensor buffers than intervals (%u)",
      what, expected->len);
}

typedef struct {
  const gchar *format;
  CrType type;
  gint rate;
  guint channels;
  GstClockTime interval;
  const MonoidSpec *m;
  gboolean per_channel;
  gboolean tensor;
} AudioCase;

static gchar *
audio_case_name (const AudioCase *c)
{
  return g_strdup_printf (
      "audio %s, %u channels at %d Hz, interval %" G_GUINT64_FORMAT
      " ns, monoid %s%s%s",
      c->format, c->channels, c->rate, c->interval, c->m->name,
      c->per_channel ? ", per-channel" : "",
      c->tensor ? ", output=tensor" : "");
}

/* Pushes buffers of @sizes frames, then EOS, and checks every result and
 * every output buffer. */
static void
run_audio_case (const AudioCase *c, const guint64 *sizes, guint n)
{
  g_autofree gchar *what = audio_case_name (c);
  AudioStream *st =
      audio_stream_new (c->format, c->type, c->rate, c->channels, 0, sizes, n);
  const guint64 per = interval_frames (c->interval, c->rate);
  GstHarness *h =
      channels_harness (audio_caps (c->format, c->rate, c->channels), c->m,
          c->per_channel, c->interval, c->tensor);

  for (guint k = 0; k < n; k++)
    push_ok (h, stream_buffer (st, k, NULL, NULL), what);
  GPtrArray *results = results_after_eos (h, what);
  GPtrArray *expected = expected_new ();
  audio_intervals (expected, st, per, TRUE, c->per_channel, what);
  check_results (results, expected, c->m, c->per_channel, what);
  if (c->tensor) {
    check_tensor_caps (
        h, c->m, c->type, c->per_channel ? c->channels : 1, 0, 1, what);
    check_tensor_results (h, expected, c->m, what);
  } else {
    for (guint k = 0; k < n; k++) {
      const gsize fb = stream_frame_bytes (st);
      const guint64 start = stream_start (st, k);
      g_autofree gchar *w = g_strdup_printf ("%s, buffer %u", what, k);
      expect_passthrough (
          h, st->data + start * fb, (stream_start (st, k + 1) - start) * fb, w);
    }
  }
  g_ptr_array_unref (expected);
  g_ptr_array_unref (results);
  gst_harness_teardown (h);
  audio_stream_free (st);
}

/* @n random sizes from @lo to @hi frames. */
static guint64 *
random_sizes (guint n, guint64 lo, guint64 hi)
{
  guint64 *sizes = g_new (guint64, n);
  for (guint k = 0; k < n; k++)
    sizes[k] = lo + (guint64)g_rand_int_range (rand_, 0, (gint32)(hi - lo + 1));
  return sizes;
}

GST_START_TEST (test_interval_splits_audio_buffers)
{
  /* 48 kHz stereo in buffers of 1000 frames, 5 ms intervals of 240
   * frames: 83 whole intervals, then 80 frames at EOS. */
  const AudioCase f32 = { "F32LE", CR_TYPE_FLOAT32, 48000, 2, 5 * GST_MSECOND,
    &sumsq_m, FALSE, FALSE };
  guint64 thousands[20];
  for (guint k = 0; k < G_N_ELEMENTS (thousands); k++)
    thousands[k] = 1000;
  fail_unless_equals_uint64 (interval_frames (f32.interval, 48000), 240);
  run_audio_case (&f32, thousands, G_N_ELEMENTS (thousands));

  /* 7 ms at 44.1 kHz is 308.7 frames, rounded to 309: buffers from one
   * frame to several intervals, timestamps that are not whole. */
  const AudioCase s16 = { "S16LE", CR_TYPE_INT16, 44100, 3, 7 * GST_MSECOND,
    &sum_m, FALSE, FALSE };
  g_autofree guint64 *sizes = random_sizes (60, 1, 1500);
  sizes[3] = 1;
  sizes[7] = 309;
  run_audio_case (&s16, sizes, 60);

  /* Many intervals in every buffer: 8 frames of U8 at 8 kHz. */
  const AudioCase u8 = { "U8", CR_TYPE_UINT8, 8000, 1, GST_MSECOND, &minmax_m,
    FALSE, FALSE };
  g_autofree guint64 *small = random_sizes (50, 1, 100);
  run_audio_case (&u8, small, 50);

  /* The same in tensor mode: one buffer per interval. */
  const AudioCase f64 = { "F64LE", CR_TYPE_FLOAT64, 48000, 2, 5 * GST_MSECOND,
    &mean_var_m, FALSE, TRUE };
  run_audio_case (&f64, thousands, 7);
}

GST_END_TEST;

GST_START_TEST (test_interval_longer_than_buffers)
{
  /* 10 ms buffers, 100 ms intervals: 3 intervals and 7 buffers at EOS. */
  guint64 tens[37];
  for (guint k = 0; k < G_N_ELEMENTS (tens); k++)
    tens[k] = 480;
  const AudioCase cases[] = {
    { "S32LE", CR_TYPE_INT32, 48000, 1, 100 * GST_MSECOND, &sum_m, FALSE,
        FALSE },
    /* The index counts from the interval's first sample. */
    { "S32LE", CR_TYPE_INT32, 48000, 1, 100 * GST_MSECOND, &argmax_m, FALSE,
        FALSE },
    { "F64LE", CR_TYPE_FLOAT64, 48000, 2, 100 * GST_MSECOND, &mean_var_m, FALSE,
        FALSE },
    { "U16LE", CR_TYPE_UINT16, 48000, 2, 100 * GST_MSECOND, &argmax_m, FALSE,
        TRUE },
  };
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    run_audio_case (&cases[k], tens, G_N_ELEMENTS (tens));
}

GST_END_TEST;

GST_START_TEST (test_interval_eos)
{
  /* A whole number of intervals: nothing more at EOS. */
  static const guint64 whole[] = { 320, 320, 320, 320, 320, 320 };
  const AudioCase exact = { "F32LE", CR_TYPE_FLOAT32, 48000, 2,
    10 * GST_MSECOND, &mean_var_m, FALSE, FALSE };
  run_audio_case (&exact, whole, G_N_ELEMENTS (whole));

  /* Less than one interval: only the partial one, at EOS. */
  static const guint64 short_[] = { 100, 100, 100 };
  const AudioCase brief = { "S16LE", CR_TYPE_INT16, 48000, 5, 10 * GST_MSECOND,
    &argmax_m, TRUE, FALSE };
  run_audio_case (&brief, short_, G_N_ELEMENTS (short_));

  /* Three intervals and 90 frames. */
  static const guint64 over[] = { 700, 700, 130 };
  const AudioCase tail = { "U16LE", CR_TYPE_UINT16, 48000, 5, 10 * GST_MSECOND,
    &sum_m, TRUE, FALSE };
  run_audio_case (&tail, over, G_N_ELEMENTS (over));

  /* The partial interval in tensor mode is a tensor buffer too. */
  const AudioCase tensor = { "S16LE", CR_TYPE_INT16, 48000, 5, 10 * GST_MSECOND,
    &minmax_m, TRUE, TRUE };
  run_audio_case (&tensor, over, G_N_ELEMENTS (over));
}

GST_END_TEST;

/* per-channel and interval together, in both output modes. */
GST_START_TEST (test_interval_per_channel_audio)
{
  g_autofree guint64 *sizes = random_sizes (80, 1, 3000);
  const AudioCase cases[] = {
    { "S32LE", CR_TYPE_INT32, 44100, 6, 20 * GST_MSECOND, &sum_m, TRUE, FALSE },
    { "S32LE", CR_TYPE_INT32, 44100, 6, 20 * GST_MSECOND, &argmax_m, TRUE,
        FALSE },
    { "F32LE", CR_TYPE_FLOAT32, 44100, 7, 20 * GST_MSECOND, &mean_var_m, TRUE,
        FALSE },
    { "S8", CR_TYPE_INT8, 44100, 6, 20 * GST_MSECOND, &minmax_m, TRUE, TRUE },
    { "F64LE", CR_TYPE_FLOAT64, 44100, 2, 20 * GST_MSECOND, &argmax_m, TRUE,
        TRUE },
  };
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    run_audio_case (&cases[k], sizes, 80);

  /* 1024 channels, intervals of 3 ms = 144 frames. */
  static const guint64 wide[] = { 100, 1000, 1, 333, 77 };
  const AudioCase many = { "F32LE", CR_TYPE_FLOAT32, 48000, 1024,
    3 * GST_MSECOND, &sumsq_m, TRUE, FALSE };
  run_audio_case (&many, wide, G_N_ELEMENTS (wide));
}

GST_END_TEST;

/* Pinned buffers, read in place, split at intervals; and small chunks,
 * so that an interval's frames are spread over many launches. */
GST_START_TEST (test_interval_memory_paths)
{
  static const guint64 sizes[] = { 1000, 77, 1500, 3, 2400, 1001 };
  const AudioCase c = { "F32LE", CR_TYPE_FLOAT32, 48000, 2, 5 * GST_MSECOND,
    &argmax_m, TRUE, FALSE };
  g_autofree gchar *name = audio_case_name (&c);
  g_autofree gchar *what = g_strdup_printf ("%s, pinned memory", name);
  AudioStream *st = audio_stream_new (
      c.format, c.type, c.rate, c.channels, 0, sizes, G_N_ELEMENTS (sizes));
  GstCaps *caps = audio_caps (c.format, c.rate, c.channels);
  GstHarness *h = channels_harness (
      gst_caps_ref (caps), c.m, c.per_channel, c.interval, FALSE);
  GstQuery *query = gst_query_new_allocation (caps, TRUE);
  GstAllocator *allocator = NULL;
  GstAllocationParams params;

  fail_unless (gst_pad_peer_query (h->srcpad, query),
      "%s: the ALLOCATION query failed", what);
  fail_unless (gst_query_get_n_allocation_params (query) > 0,
      "%s: no allocator proposed", what);
  gst_query_parse_nth_allocation_param (query, 0, &allocator, &params);
  for (guint k = 0; k < G_N_ELEMENTS (sizes); k++)
    push_ok (h, stream_buffer (st, k, allocator, &params), what);
  GPtrArray *results = results_after_eos (h, what);
  GPtrArray *expected = expected_new ();
  audio_intervals (expected, st, 240, TRUE, TRUE, what);
  check_results (results, expected, c.m, TRUE, what);
  g_ptr_array_unref (expected);
  g_ptr_array_unref (results);
  gst_object_unref (allocator);
  gst_query_unref (query);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
  audio_stream_free (st);

  /* 4 KiB chunks: 146 frames of 7 float32 channels, 512 of stereo
   * float32, 2048 of mono S16. */
  set_chunk_bytes ("4096");
  static const guint64 thousands[] = { 1000, 1000, 1000, 1000, 1000, 1000,
    1000 };
  const AudioCase chunked[] = {
    { "F32LE", CR_TYPE_FLOAT32, 48000, 2, 5 * GST_MSECOND, &argmax_m, TRUE,
        FALSE },
    { "F32LE", CR_TYPE_FLOAT32, 48000, 7, 50 * GST_MSECOND, &mean_var_m, TRUE,
        FALSE },
    { "S16LE", CR_TYPE_INT16, 48000, 1, 50 * GST_MSECOND, &argmax_m, FALSE,
        FALSE },
  };
  for (guint k = 0; k < G_N_ELEMENTS (chunked); k++)
    run_audio_case (&chunked[k], thousands, G_N_ELEMENTS (thousands));
  set_chunk_bytes (NULL);
}

GST_END_TEST;

/* 6. interval: DISCONT and flushes start over */

/* Pushes every buffer of @st, the first flagged DISCONT when @discont. */
static void
push_stream (
    GstHarness *h, const AudioStream *st, gboolean discont, const gchar *what)
{
  for (guint k = 0; k < stream_n_buffers (st); k++) {
    GstBuffer *buf = stream_buffer (st, k, NULL, NULL);
    if (k == 0 && discont)
      GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
    push_ok (h, buf, what);
  }
}

GST_START_TEST (test_interval_discont_restarts)
{
  /* 10 ms = 480 frames; each part is 1500 frames: 3 intervals and 60
   * frames, which the DISCONT drops in the first part. */
  static const guint64 sizes[] = { 300, 300, 300, 300, 300 };
  const gboolean per_channel[] = { FALSE, TRUE };

  for (guint p = 0; p < G_N_ELEMENTS (per_channel); p++) {
    g_autofree gchar *what =
        g_strdup_printf ("audio F32LE, 2 channels, "
                         "interval 10 ms, a DISCONT after 1500 frames%s",
            per_channel[p] ? ", per-channel" : "");
    AudioStream *a = audio_stream_new (
        "F32LE", CR_TYPE_FLOAT32, 48000, 2, 0, sizes, G_N_ELEMENTS (sizes));
    AudioStream *b = audio_stream_new ("F32LE", CR_TYPE_FLOAT32, 48000, 2,
        10 * GST_SECOND, sizes, G_N_ELEMENTS (sizes));
    GstHarness *h = channels_harness (audio_caps ("F32LE", 48000, 2), &sumsq_m,
        per_channel[p], 10 * GST_MSECOND, FALSE);

    push_stream (h, a, FALSE, what);
    push_stream (h, b, TRUE, what);
    GPtrArray *results = results_after_eos (h, what);
    GPtrArray *expected = expected_new ();
    g_autofree gchar *before = g_strdup_printf ("%s, before it", what);
    g_autofree gchar *after = g_strdup_printf ("%s, after it", what);
    audio_intervals (expected, a, 480, FALSE, per_channel[p], before);
    audio_intervals (expected, b, 480, TRUE, per_channel[p], after);
    check_results (results, expected, &sumsq_m, per_channel[p], what);
    g_ptr_array_unref (expected);
    g_ptr_array_unref (results);
    gst_harness_teardown (h);
    audio_stream_free (a);
    audio_stream_free (b);
  }
}

GST_END_TEST;

GST_START_TEST (test_interval_flush_restarts)
{
  /* 10 ms = 480 frames. Before the flush 720 frames: one interval, whose
   * result is awaited, and 240 that the flush drops. After it, 1000 frames
   * from PTS 0 again: two intervals and 40 frames at EOS. */
  static const guint64 before_sizes[] = { 240, 240, 240 };
  static const guint64 after_sizes[] = { 200, 200, 200, 200, 200 };
  const gchar *what = "audio F32LE, 2 channels, interval 10 ms, per-channel, "
                      "a flush after 720 frames";
  AudioStream *a = audio_stream_new ("F32LE", CR_TYPE_FLOAT32, 48000, 2, 0,
      before_sizes, G_N_ELEMENTS (before_sizes));
  AudioStream *b = audio_stream_new ("F32LE", CR_TYPE_FLOAT32, 48000, 2, 0,
      after_sizes, G_N_ELEMENTS (after_sizes));
  GstHarness *h = channels_harness (
      audio_caps ("F32LE", 48000, 2), &sumsq_m, TRUE, 10 * GST_MSECOND, FALSE);
  GstSegment segment;

  push_stream (h, a, FALSE, what);
  GPtrArray *expected = expected_new ();
  g_autofree gchar *before = g_strdup_printf ("%s, before it", what);
  audio_intervals (expected, a, 480, FALSE, TRUE, before);
  fail_unless_equals_int (expected->len, 1);
  GstStructure *first = cr_test_pop_result (h);
  const Expected *e = g_ptr_array_index (expected, 0);
  check_time (first, "timestamp", e->ts, e->what);
  check_message (first, &sumsq_m, e->ref, TRUE, e->count, e->what);
  gst_structure_free (first);
  g_ptr_array_set_size (expected, 0);

  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()),
      "%s: flush-start refused", what);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)),
      "%s: flush-stop refused", what);
  gst_segment_init (&segment, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)),
      "%s: segment refused", what);
  push_stream (h, b, FALSE, what);
  GPtrArray *results = results_after_eos (h, what);
  g_autofree gchar *after = g_strdup_printf ("%s, after it", what);
  audio_intervals (expected, b, 480, TRUE, TRUE, after);
  check_results (results, expected, &sumsq_m, TRUE, what);
  g_ptr_array_unref (expected);
  g_ptr_array_unref (results);
  gst_harness_teardown (h);
  audio_stream_free (a);
  audio_stream_free (b);
}

GST_END_TEST;

/* 7. interval, video and tensors: whole buffers */

/* Appends the intervals of @items as the element forms them: buffers until
 * their counted durations reach @interval; a DISCONT drops the interval
 * under way; the rest at EOS. @components: reported channels per row. */
static void
whole_intervals (GPtrArray *expected, const Item *items, guint n,
    GstClockTime interval, CrType type, guint components, gboolean per_channel,
    const gchar *what)
{
  Expected *e = NULL;
  guint first = 0, k = 0;

  for (guint i = 0; i < n; i++) {
    if (items[i].discont && e) {
      expected_free (e);
      e = NULL;
    }
    if (e == NULL) {
      e = g_new0 (Expected, 1);
      e->ts = items[i].pts;
      e->ref = ref_new (type, components);
      first = i;
    }
    ref_add (e->ref, &items[i].span);
    /* Per channel, over the reported channels; else every element. */
    e->count += items[i].span.rows
        * (per_channel ? components : items[i].span.channels);
    e->duration += items[i].counted;
    /* Half a buffer of slack: three 33333333 ns frames make 100 ms. */
    if (e->duration + items[i].counted / 2 >= interval || i + 1 == n) {
      e->what = g_strdup_printf ("%s, interval %u (buffers %u to %u%s)", what,
          k++, first, i,
          e->duration < interval ? ", the partial one at EOS" : "");
      g_ptr_array_add (expected, e);
      e = NULL;
    }
  }
}

/* Pushes @items to a new element, then EOS, and checks the results (and
 * the tensors, or that buffers pass unchanged). */
static void
run_whole_case (GstCaps *caps, const Item *items, guint n,
    GstClockTime interval, const MonoidSpec *m, CrType type, guint components,
    gboolean per_channel, gboolean tensor, gint fps_n, const gchar *name)
{
  g_autofree gchar *what =
      g_strdup_printf ("%s, interval %" GST_TIME_FORMAT ", monoid %s%s%s", name,
          GST_TIME_ARGS (interval), m->name, per_channel ? ", per-channel" : "",
          tensor ? ", output=tensor" : "");
  GstHarness *h = channels_harness (caps, m, per_channel, interval, tensor);

  for (guint k = 0; k < n; k++)
    push_ok (h, item_buffer (&items[k]), what);
  GPtrArray *results = results_after_eos (h, what);
  GPtrArray *expected = expected_new ();
  whole_intervals (
      expected, items, n, interval, type, components, per_channel, what);
  check_results (results, expected, m, per_channel, what);
  if (tensor) {
    check_tensor_caps (h, m, type, components, fps_n, 1, what);
    check_tensor_results (h, expected, m, what);
  } else {
    for (guint k = 0; k < n; k++) {
      g_autofree gchar *w = g_strdup_printf ("%s, buffer %u", what, k);
      expect_passthrough (h, items[k].data, items[k].size, w);
    }
  }
  g_ptr_array_unref (expected);
  g_ptr_array_unref (results);
  gst_harness_teardown (h);
}

GST_START_TEST (test_interval_video)
{
  Item items[10];

  /* GRAY16 at 25 fps without buffer durations: 40 ms each from the
   * framerate, so 100 ms takes 3 frames (120 ms); 10 frames are 3
   * intervals and one frame at EOS. */
  for (guint k = 0; k < 10; k++) {
    video_item (&items[k], &video_formats[7], 333, 41, 0, 25);
    /* Sums over all pixels: a row is one element. */
    items[k].span.channels = 1;
    items[k].pts = k * 40 * GST_MSECOND;
    items[k].counted = 40 * GST_MSECOND;
  }
  run_whole_case (gst_caps_ref (items[0].caps), items, 10, 100 * GST_MSECOND,
      &sum_m, CR_TYPE_UINT16, 1, FALSE, FALSE, 25, "video GRAY16_LE 333x41");
  for (guint k = 0; k < 10; k++)
    item_clear (&items[k]);

  /* RGBx at 50 fps, buffer durations of 20 ms, 70 ms intervals of 4
   * frames (80 ms); 9 frames are 2 intervals and one at EOS. Per channel,
   * the index counts pixels from the interval's first frame. */
  for (guint k = 0; k < 9; k++) {
    video_item (&items[k], &video_formats[2], 101, 37, 0, 50);
    items[k].pts = k * 20 * GST_MSECOND;
    items[k].duration = items[k].counted = 20 * GST_MSECOND;
  }
  run_whole_case (gst_caps_ref (items[0].caps), items, 9, 70 * GST_MSECOND,
      &argmax_m, CR_TYPE_UINT8, 3, TRUE, FALSE, 50, "video RGBx 101x37");
  run_whole_case (gst_caps_ref (items[0].caps), items, 9, 70 * GST_MSECOND,
      &mean_var_m, CR_TYPE_UINT8, 3, TRUE, TRUE, 50, "video RGBx 101x37");
  for (guint k = 0; k < 9; k++)
    item_clear (&items[k]);

  /* BGR with padded rows, 50 ms intervals of 2 frames, in tensors. */
  for (guint k = 0; k < 5; k++) {
    video_item (&items[k], &video_formats[5], 333, 20, 0, 30);
    items[k].pts = gst_util_uint64_scale_int (k, GST_SECOND, 30);
    items[k].counted = gst_util_uint64_scale_int (1, GST_SECOND, 30);
  }
  run_whole_case (gst_caps_ref (items[0].caps), items, 5, 50 * GST_MSECOND,
      &minmax_m, CR_TYPE_UINT8, 3, TRUE, TRUE, 30, "video BGR 333x20");
  for (guint k = 0; k < 5; k++)
    item_clear (&items[k]);
}

GST_END_TEST;

GST_START_TEST (test_interval_tensors)
{
  Item items[11];

  /* 7 channels of float64, 10 ms buffers, 35 ms intervals of 4 buffers; 11
   * buffers are 2 intervals and 3 buffers at EOS. */
  for (guint k = 0; k < 11; k++) {
    raw_item (&items[k], CR_TYPE_FLOAT64, 7, 1000);
    items[k].pts = k * 10 * GST_MSECOND;
    items[k].duration = items[k].counted = 10 * GST_MSECOND;
  }
  run_whole_case (tensor_caps (CR_TYPE_FLOAT64, 7, 1000), items, 11,
      35 * GST_MSECOND, &mean_var_m, CR_TYPE_FLOAT64, 7, TRUE, TRUE, 0,
      "tensors of float64, 7:1000");
  run_whole_case (tensor_caps (CR_TYPE_FLOAT64, 7, 1000), items, 11,
      35 * GST_MSECOND, &argmax_m, CR_TYPE_FLOAT64, 7, TRUE, FALSE, 0,
      "tensors of float64, 7:1000");
  for (guint k = 0; k < 11; k++)
    item_clear (&items[k]);

  /* One result over all elements: rows are single elements. */
  for (guint k = 0; k < 5; k++) {
    raw_item (&items[k], CR_TYPE_INT32, 1, 60000);
    items[k].pts = k * 10 * GST_MSECOND;
    items[k].duration = items[k].counted = 10 * GST_MSECOND;
  }
  run_whole_case (tensor_caps (CR_TYPE_INT32, 60000, 1), items, 5,
      20 * GST_MSECOND, &sum_m, CR_TYPE_INT32, 1, FALSE, FALSE, 0,
      "tensors of int32, 60000");
  for (guint k = 0; k < 5; k++)
    item_clear (&items[k]);

  /* A DISCONT drops the interval under way: [0 1 2] [3 dropped]
   * [4 5 6] [7 at EOS]. */
  for (guint k = 0; k < 8; k++) {
    raw_item (&items[k], CR_TYPE_FLOAT32, 4, 100);
    items[k].pts = (k < 4 ? k : 100 + k) * 10 * GST_MSECOND;
    items[k].duration = items[k].counted = 10 * GST_MSECOND;
    items[k].discont = k == 4;
  }
  run_whole_case (tensor_caps (CR_TYPE_FLOAT32, 4, 100), items, 8,
      30 * GST_MSECOND, &sumsq_m, CR_TYPE_FLOAT32, 4, TRUE, FALSE, 0,
      "tensors of float32, 4:100, a DISCONT at buffer 4");
  for (guint k = 0; k < 8; k++)
    item_clear (&items[k]);
}

GST_END_TEST;

/* 8. The level element on the same stream */

/* A value of level's per-channel arrays: GValueArray in GStreamer up to
 * now, GST_TYPE_ARRAY should it change. */
static gdouble
level_value (
    const GstStructure *s, const gchar *field, guint c, const gchar *what)
{
  const GValue *v = gst_structure_get_value (s, field);
  const GValue *item = NULL;

  fail_unless (v != NULL, "%s: level posted no %s", what, field);
  if (GST_VALUE_HOLDS_ARRAY (v)) {
    if (c < gst_value_array_get_size (v))
      item = gst_value_array_get_value (v, c);
  } else {
    /* level still builds GValueArray, deprecated since GLib 2.32. */
    G_GNUC_BEGIN_IGNORE_DEPRECATIONS
    fail_unless (G_VALUE_HOLDS (v, g_value_array_get_type ()),
        "%s: level's %s is a %s", what, field, G_VALUE_TYPE_NAME (v));
    GValueArray *array = g_value_get_boxed (v);
    if (array && c < array->n_values)
      item = &array->values[c];
    G_GNUC_END_IGNORE_DEPRECATIONS
  }
  fail_unless (item != NULL && G_VALUE_HOLDS_DOUBLE (item),
      "%s: level's %s has no double for channel %u", what, field, c);
  return g_value_get_double (item);
}

static GstClockTime
abs_diff (GstClockTime a, GstClockTime b)
{
  return a > b ? a - b : b - a;
}

/* level interval=I and cudareduce monoid=sumsq per-channel=true interval=I
 * on the two branches of a tee: for every interval both post, level's RMS
 * in dB is 10 log10 (sumsq / frames) of cudareduce's. */
static void
compare_with_level (guint channels)
{
  const gint rate = 48000;
  const GstClockTime interval = 20 * GST_MSECOND;
  const guint64 per = interval_frames (interval, rate); /* 960 */
  const guint64 total = 100 * per + 437;
  g_autofree gchar *what = g_strdup_printf (
      "level against cudareduce, F32LE, %u channels, interval 20 ms", channels);

  /* Buffer sizes that are not multiples of the interval. */
  GArray *sizes = g_array_new (FALSE, FALSE, sizeof (guint64));
  for (guint64 sum = 0; sum < total;) {
    /* Drawn once: MIN evaluates its arguments twice. */
    guint64 draw = (guint64)g_rand_int_range (rand_, 300, 2500);
    guint64 n = MIN (draw, total - sum);
    g_array_append_val (sizes, n);
    sum += n;
  }
  AudioStream *st = audio_stream_new ("F32LE", CR_TYPE_FLOAT32, rate, channels,
      0, (const guint64 *)sizes->data, sizes->len);
  /* Samples as level expects them, in [-1, 1). */
  for (guint64 k = 0; k < total * channels; k++) {
    gfloat x = (gfloat)g_rand_double_range (rand_, -1, 1);
    memcpy (st->data + 4 * k, &x, 4);
  }

  g_autofree gchar *desc = g_strdup_printf (
      "appsrc name=src format=time caps=\"audio/x-raw,format=F32LE,"
      "layout=interleaved,rate=%d,channels=%u,channel-mask=(bitmask)"
      "0x%" G_GINT64_MODIFIER "x\" ! tee name=t "
      "t. ! queue ! level name=level interval=%" G_GUINT64_FORMAT
      " post-messages=true ! fakesink sync=false "
      "t. ! queue ! cudareduce name=cr monoid=sumsq per-channel=true "
      "interval=%" G_GUINT64_FORMAT " ! fakesink sync=false",
      rate, channels, (((guint64)1 << channels) - 1), interval, interval);
  g_autoptr (GError) error = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &error);
  fail_unless (pipeline != NULL && error == NULL, "%s: %s", what,
      error ? error->message : "no pipeline");
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstBus *bus = gst_element_get_bus (pipeline);

  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING)
          != GST_STATE_CHANGE_FAILURE,
      "%s: the pipeline does not start", what);
  for (guint k = 0; k < stream_n_buffers (st); k++)
    fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (src),
                                stream_buffer (st, k, NULL, NULL)),
        GST_FLOW_OK);
  gst_app_src_end_of_stream (GST_APP_SRC (src));

  GPtrArray *levels =
      g_ptr_array_new_with_free_func ((GDestroyNotify)gst_structure_free);
  GPtrArray *results =
      g_ptr_array_new_with_free_func ((GDestroyNotify)gst_structure_free);
  for (;;) {
    GstMessage *msg = gst_bus_timed_pop_filtered (bus, CR_TEST_WAIT,
        GST_MESSAGE_ELEMENT | GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
    fail_unless (msg != NULL, "%s: no EOS within %" GST_TIME_FORMAT, what,
        GST_TIME_ARGS (CR_TEST_WAIT));
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS) {
      gst_message_unref (msg);
      break;
    }
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      g_autoptr (GError) err = NULL;
      g_autofree gchar *debug = NULL;
      gst_message_parse_error (msg, &err, &debug);
      fail ("%s: error from %s: %s\n%s", what, GST_OBJECT_NAME (msg->src),
          err->message, debug ? debug : "");
    }
    const GstStructure *s = gst_message_get_structure (msg);
    if (gst_structure_has_name (s, "level"))
      g_ptr_array_add (levels, gst_structure_copy (s));
    else if (gst_structure_has_name (s, "cudareduce"))
      g_ptr_array_add (results, gst_structure_copy (s));
    gst_message_unref (msg);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);

  /* cudareduce against the CPU first: 100 intervals and 437 frames. */
  GPtrArray *expected = expected_new ();
  audio_intervals (expected, st, per, TRUE, TRUE, what);
  fail_unless (expected->len == (total + per - 1) / per,
      "%s: %u intervals expected of %" G_GUINT64_FORMAT
      " frames (stream of %" G_GUINT64_FORMAT ") by %" G_GUINT64_FORMAT,
      what, expected->len, total, st->frames, per);
  check_results (results, expected, &sumsq_m, TRUE, what);

  /* Then level, matched by timestamp: both count from the first buffer,
   * but level adds up rounded durations and cudareduce adds frames to each
   * buffer's PTS, so they may differ by a nanosecond or so. */
  guint matched_full = 0, level_full = 0;
  for (guint k = 0; k < levels->len; k++) {
    const GstStructure *l = g_ptr_array_index (levels, k);
    guint64 d = 0;
    fail_unless (gst_structure_get_uint64 (l, "duration", &d),
        "%s: level message %u has no duration", what, k);
    level_full += gst_util_uint64_scale_round (d, rate, GST_SECOND) == per;
  }
  for (guint k = 0; k < results->len; k++) {
    const GstStructure *r = g_ptr_array_index (results, k);
    const GstStructure *l = NULL;
    guint64 ts = 0, count = 0, lts = 0, ldur = 0;
    fail_unless (gst_structure_get_uint64 (r, "timestamp", &ts)
            && gst_structure_get_uint64 (r, "count", &count),
        "%s: result %u has no timestamp or count", what, k);
    const guint64 frames = count / channels;
    const gboolean full = frames == per;
    g_autofree gchar *w =
        g_strdup_printf ("%s, interval %u at %" GST_TIME_FORMAT
                         " (%" G_GUINT64_FORMAT " frames)",
            what, k, GST_TIME_ARGS (ts), frames);

    for (guint j = 0; j < levels->len && l == NULL; j++) {
      const GstStructure *cand = g_ptr_array_index (levels, j);
      fail_unless (gst_structure_get_uint64 (cand, "timestamp", &lts),
          "%s: level message %u has no timestamp", what, j);
      if (abs_diff (lts, ts) < (GstClockTime)(GST_SECOND / rate / 2))
        l = cand;
    }
    if (l == NULL) {
      fail_if (full, "%s: level posted nothing for it", w);
      continue;
    }
    fail_unless (gst_structure_get_uint64 (l, "duration", &ldur),
        "%s: level has no duration", w);
    if (gst_util_uint64_scale_round (ldur, rate, GST_SECOND) != frames) {
      /* Only the partial interval at EOS may be cut differently. */
      fail_if (full, "%s: level's interval there is %" GST_TIME_FORMAT, w,
          GST_TIME_ARGS (ldur));
      continue;
    }
    const GValue *sumsq = gst_structure_get_value (r, "sumsq");
    for (guint c = 0; c < channels; c++) {
      gdouble ms = g_value_get_double (gst_value_array_get_value (sumsq, c))
          / (gdouble)frames;
      gdouble db = 10 * log10 (ms);
      gdouble rms = level_value (l, "rms", c, w);
      fail_unless (fabs (db - rms) <= 1e-3,
          "%s, channel %u: cudareduce gives %.6f dB, level %.6f dB", w, c, db,
          rms);
    }
    matched_full += full;
  }
  /* Every whole interval of cudareduce has its counterpart in level. */
  fail_unless (matched_full == total / per && matched_full >= 10,
      "%s: %u whole intervals agree with level, expected %" G_GUINT64_FORMAT,
      what, matched_full, total / per);
  fail_unless (level_full == total / per,
      "%s: level posted %u whole intervals, expected %" G_GUINT64_FORMAT, what,
      level_full, total / per);
  g_ptr_array_unref (expected);
  g_ptr_array_unref (levels);
  g_ptr_array_unref (results);
  g_array_unref (sizes);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (pipeline);
  audio_stream_free (st);
}

/* level is in gst-plugins-good. Without it the test fails, unless
 * CUDAREDUCE_SKIP_LEVEL=1 (for machines that lack it on purpose), when it
 * checks nothing. */
GST_START_TEST (test_level_agrees)
{
  GstElementFactory *factory = gst_element_factory_find ("level");

  if (factory == NULL) {
    fail_unless (g_strcmp0 (g_getenv ("CUDAREDUCE_SKIP_LEVEL"), "1") == 0,
        "the level element (gst-plugins-good) is not installed; set "
        "CUDAREDUCE_SKIP_LEVEL=1 to skip this comparison");
    g_print ("SKIP: no level element, CUDAREDUCE_SKIP_LEVEL=1\n");
    return;
  }
  gst_object_unref (factory);
  compare_with_level (2);
  compare_with_level (6);
}

GST_END_TEST;

static Suite *
gpu_channels_suite (void)
{
  Suite *s = suite_create ("gpu-channels");
  TCase *tc = tcase_create ("gpu");
  tcase_set_timeout (tc, 600);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_per_channel_audio);
  tcase_add_test (tc, test_per_channel_tensors);
  tcase_add_test (tc, test_per_channel_video);
  tcase_add_test (tc, test_per_channel_tensor_output);
  tcase_add_test (tc, test_per_channel_partial_row_is_error);
  tcase_add_test (tc, test_per_channel_pinned_and_registered);
  tcase_add_test (tc, test_per_channel_small_chunks);
  tcase_add_test (tc, test_interval_splits_audio_buffers);
  tcase_add_test (tc, test_interval_longer_than_buffers);
  tcase_add_test (tc, test_interval_eos);
  tcase_add_test (tc, test_interval_per_channel_audio);
  tcase_add_test (tc, test_interval_memory_paths);
  tcase_add_test (tc, test_interval_discont_restarts);
  tcase_add_test (tc, test_interval_flush_restarts);
  tcase_add_test (tc, test_interval_video);
  tcase_add_test (tc, test_interval_tensors);
  tcase_add_test (tc, test_level_agrees);
  return s;
}

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  cr_test_require_gpu ();
  rand_ = cr_test_rand ();
  original_chunk_bytes = g_strdup (g_getenv (CHUNK_BYTES_ENV));
  return gst_check_run_suite (gpu_channels_suite (), "gpu-channels", __FILE__);
}
