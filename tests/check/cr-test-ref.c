/* cr-test-ref.c: the CPU reference for per-channel and interval results,
 * and the checks against it. */
#include "cr-test-ref.h"

#include <math.h>
#include <string.h>

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

/* Monoids */

const CrTestMonoid cr_test_monoid_sum = { CR_TEST_SUM, "sum", 1,
  { { "sum", CR_TEST_FIELD_WIDE } } };
const CrTestMonoid cr_test_monoid_sumsq = { CR_TEST_SUMSQ, "sumsq", 2,
  { { "sum", CR_TEST_FIELD_WIDE }, { "sumsq", CR_TEST_FIELD_WIDE } } };
const CrTestMonoid cr_test_monoid_min = { CR_TEST_MIN, "min", 1,
  { { "min", CR_TEST_FIELD_IN } } };
const CrTestMonoid cr_test_monoid_max = { CR_TEST_MAX, "max", 1,
  { { "max", CR_TEST_FIELD_IN } } };
const CrTestMonoid cr_test_monoid_minmax = { CR_TEST_MINMAX, "minmax", 2,
  { { "min", CR_TEST_FIELD_IN }, { "max", CR_TEST_FIELD_IN } } };
const CrTestMonoid cr_test_monoid_absmax = { CR_TEST_ABSMAX, "absmax", 1,
  { { "absmax", CR_TEST_FIELD_WIDE } } };
const CrTestMonoid cr_test_monoid_argmax = { CR_TEST_ARGMAX, "argmax", 2,
  { { "value", CR_TEST_FIELD_IN }, { "index", CR_TEST_FIELD_UINT64 } } };
const CrTestMonoid cr_test_monoid_count_gt = { CR_TEST_COUNT_GT, "count_gt", 1,
  { { "greater", CR_TEST_FIELD_UINT64 } } };
const CrTestMonoid cr_test_monoid_mean_var = { CR_TEST_MEAN_VAR, "mean_var", 2,
  { { "mean", CR_TEST_FIELD_FLOAT64 },
      { "variance", CR_TEST_FIELD_FLOAT64 } } };

const CrTestMonoid *const cr_test_swept_monoids[4] = { &cr_test_monoid_sum,
  &cr_test_monoid_minmax, &cr_test_monoid_argmax, &cr_test_monoid_mean_var };

static const CrTestMonoid *const all_monoids[] = { &cr_test_monoid_sum,
  &cr_test_monoid_sumsq, &cr_test_monoid_min, &cr_test_monoid_max,
  &cr_test_monoid_minmax, &cr_test_monoid_absmax, &cr_test_monoid_argmax,
  &cr_test_monoid_count_gt, &cr_test_monoid_mean_var };

const CrTestMonoid *
cr_test_monoid_named (const gchar *name)
{
  for (guint k = 0; k < G_N_ELEMENTS (all_monoids); k++)
    if (strcmp (all_monoids[k]->name, name) == 0)
      return all_monoids[k];
  return NULL;
}

const gchar *const cr_test_binned_monoids[4] = { "histogram", "signalstats",
  "vectorscope", NULL };

GPtrArray *
cr_test_builtin_monoids (void)
{
  g_auto (GStrv) names = cr_monoid_builtin_names ();
  GPtrArray *monoids = g_ptr_array_new ();

  for (guint k = 0; names[k]; k++) {
    if (g_strv_contains (cr_test_binned_monoids, names[k]))
      continue;
    const CrTestMonoid *m = cr_test_monoid_named (names[k]);
    fail_unless (m != NULL,
        "built-in monoid %s has no CPU reference in cr-test-ref.c", names[k]);
    g_ptr_array_add (monoids, (gpointer)m);
  }
  fail_unless (monoids->len == G_N_ELEMENTS (all_monoids),
      "%u built-in monoids, %u have a CPU reference", monoids->len,
      (guint)G_N_ELEMENTS (all_monoids));
  return monoids;
}

static CrType
field_type (const CrTestField *f, CrType in)
{
  switch (f->kind) {
    case CR_TEST_FIELD_IN:
      return in;
    case CR_TEST_FIELD_WIDE:
      return is_float (in) ? CR_TYPE_FLOAT64
          : is_signed (in) ? CR_TYPE_INT64
                           : CR_TYPE_UINT64;
    case CR_TEST_FIELD_UINT64:
      return CR_TYPE_UINT64;
    case CR_TEST_FIELD_FLOAT64:
    default:
      return CR_TYPE_FLOAT64;
  }
}

GstHarness *
cr_test_reduce_harness (GstCaps *caps, const CrTestReduce *reduce)
{
  g_autofree gchar *ns =
      g_strdup_printf ("%" G_GUINT64_FORMAT, reduce->interval);
  g_autofree gchar *window =
      g_strdup_printf ("%" G_GUINT64_FORMAT, reduce->window);
  return cr_test_harness (caps, "monoid", reduce->monoid->name, "per-channel",
      reduce->per_channel ? "true" : "false", "interval", ns, "window", window,
      "output", reduce->tensor ? "tensor" : "message", NULL);
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

/* References */

/* One channel of a reference. */
typedef struct {
  guint64 n;
  guint64 sum_bits, sumsq_bits; /* integers, wrapping like int64/uint64 */
  long double sum, abs_sum, sumsq, min, max, max_abs;
  guint64 argmax; /* the first row holding max */
  /* absmax of signed input, as the monoid's int64 -x gives it: wrapping, so
   * that INT64_MIN never counts; of other input it is max_abs. */
  gint64 absmax_signed;
  guint64 greater; /* count_gt: rows with (float64) x > threshold */
  /* mean_var, of (float64) x as the monoid loads it: sums of deviations
   * from the first row's value (shift), so that no large offset cancels. */
  long double shift, s1, s2;
} Chan;

struct _CrTestRef {
  CrType type;
  guint components;
  gdouble threshold;
  guint64 rows;
  GArray *spans;
  Chan *ch;
};

static Num
span_at (const CrTestSpan *s, CrType t, guint64 row, guint c)
{
  const guint8 *line = s->data;
  guint64 col = row;
  if (s->per_line > 0) {
    line += (row / s->per_line) * s->stride;
    col = row % s->per_line;
  }
  return num_from_bytes (t, line, col * s->channels + c);
}

/* The lowest and highest value of @t: the identities of max and min
 * (IN_LOWEST and IN_HIGHEST, infinite for floating point). */
static void
type_range (CrType t, long double *lowest, long double *highest)
{
  static const struct {
    long double lowest, highest;
  } ranges[CR_N_TYPES] = {
    [CR_TYPE_INT8] = { G_MININT8, G_MAXINT8 },
    [CR_TYPE_UINT8] = { 0, G_MAXUINT8 },
    [CR_TYPE_INT16] = { G_MININT16, G_MAXINT16 },
    [CR_TYPE_UINT16] = { 0, G_MAXUINT16 },
    [CR_TYPE_INT32] = { G_MININT32, G_MAXINT32 },
    [CR_TYPE_UINT32] = { 0, G_MAXUINT32 },
    [CR_TYPE_INT64] = { G_MININT64, G_MAXINT64 },
    [CR_TYPE_UINT64] = { 0, G_MAXUINT64 },
    [CR_TYPE_FLOAT32] = { -INFINITY, INFINITY },
    [CR_TYPE_FLOAT64] = { -INFINITY, INFINITY },
  };
  *lowest = ranges[t].lowest;
  *highest = ranges[t].highest;
}

CrTestRef *
cr_test_ref_new (CrType type, guint components)
{
  CrTestRef *r = g_new0 (CrTestRef, 1);
  long double lowest, highest;

  r->type = type;
  r->components = components;
  r->spans = g_array_new (FALSE, FALSE, sizeof (CrTestSpan));
  r->ch = g_new0 (Chan, components);
  type_range (type, &lowest, &highest);
  for (guint c = 0; c < components; c++) {
    r->ch[c].min = highest;
    r->ch[c].max = lowest;
    r->ch[c].argmax = G_MAXUINT64;
  }
  return r;
}

void
cr_test_ref_free (CrTestRef *r)
{
  g_array_unref (r->spans);
  g_free (r->ch);
  g_free (r);
}

void
cr_test_ref_set_threshold (CrTestRef *r, gdouble threshold)
{
  g_assert (r->rows == 0);
  r->threshold = threshold;
}

/* |x| of signed @x as int64 negation gives it: INT64_MIN stays itself. */
static gint64
wrapped_abs (gint64 x)
{
  return x < 0 ? (gint64)(0 - (guint64)x) : x;
}

void
cr_test_ref_add (CrTestRef *r, const CrTestSpan *s)
{
  const gboolean is_signed_in = is_signed (r->type);

  for (guint64 row = 0; row < s->rows; row++) {
    for (guint c = 0; c < r->components; c++) {
      Num x = span_at (s, r->type, row, c);
      Chan *ch = &r->ch[c];
      const gdouble d = (gdouble)x.v;
      if (ch->n == 0 || x.v > ch->max) {
        ch->max = x.v;
        ch->argmax = r->rows + row;
      }
      if (ch->n == 0 || x.v < ch->min)
        ch->min = x.v;
      ch->max_abs = MAX (ch->max_abs, fabsl (x.v));
      if (is_signed_in)
        ch->absmax_signed =
            MAX (ch->absmax_signed, wrapped_abs ((gint64)x.bits));
      ch->sum += x.v;
      ch->abs_sum += fabsl (x.v);
      ch->sumsq += x.v * x.v;
      ch->sum_bits += x.bits;
      ch->sumsq_bits += x.bits * x.bits;
      ch->greater += d > r->threshold;
      if (ch->n == 0)
        ch->shift = d;
      ch->s1 += d - ch->shift;
      ch->s2 += (d - ch->shift) * (d - ch->shift);
      ch->n++;
    }
  }
  r->rows += s->rows;
  g_array_append_val (r->spans, *s);
}

/* Element @c of row @row of everything added. */
static Num
ref_at (const CrTestRef *r, guint64 row, guint c)
{
  for (guint k = 0; k < r->spans->len; k++) {
    const CrTestSpan *s = &g_array_index (r->spans, CrTestSpan, k);
    if (row < s->rows)
      return span_at (s, r->type, row, c);
    row -= s->rows;
  }
  g_assert_not_reached ();
  return (Num){ 0, 0 };
}

CrTestRef *
cr_test_ref_of_span (CrType type, guint components, const CrTestSpan *s)
{
  CrTestRef *r = cr_test_ref_new (type, components);
  cr_test_ref_add (r, s);
  return r;
}

/* Checking results
 *
 * Every accumulator is float64 for float input (sum and sumsq are `wide`,
 * mean_var works in float64), so float results may differ from the exact
 * value only by the order and rounding of float64 operations. For sums the
 * error stays far below 1e-10 of the sum of |x| (about 1e-14 for the
 * kernels' grid-stride-then-tree order; under 1e-10 even for one
 * sequential pass over 2^26 terms). mean_var adds deviations from a loaded
 * value (monoids/mean_var.monoid): its mean is off by a few ulps of the
 * largest |x|, its variance by a few ulps of itself and of the largest
 * x^2. */
#define SUM_TOL 1e-10L
#define MEAN_TOL 1e-10L
#define MEAN_ABS_TOL 1e-11L
#define VAR_TOL 1e-9L
#define VAR_ABS_TOL 1e-14L

/* The result's values, field after field, @n per field. */
static Num *
nums_from_message (const GstStructure *s, const CrTestMonoid *m, CrType in,
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
nums_from_tensors (GstBuffer *buf, const CrTestMonoid *m, CrType in, guint n,
    const gchar *what)
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
    fail_unless (map.size == n * cr_test_type_size (t),
        "%s: tensor %u (%s) is %" G_GSIZE_FORMAT " bytes, expected %u %s", what,
        f, m->fields[f].name, map.size, n, cr_test_type_name (t));
    for (guint c = 0; c < n; c++)
      nums[f * n + c] = num_from_bytes (t, map.data, c);
    gst_memory_unmap (mem, &map);
  }
  return nums;
}

/* Appends to @out what disagrees in channel @c. */
static void
float_within (GString *out, guint c, const gchar *field, long double got,
    long double want, long double tolerance)
{
  if (!(fabsl (got - want) <= tolerance))
    g_string_append_printf (out,
        "%schannel %u: %s %.17Lg, reference %.17Lg (tolerance %.3Lg)",
        out->len ? "; " : "", c, field, got, want, tolerance);
}

static void
float_equal (GString *out, guint c, const gchar *field, long double got,
    long double want)
{
  if (got != want)
    g_string_append_printf (out, "%schannel %u: %s %.17Lg, expected %.17Lg",
        out->len ? "; " : "", c, field, got, want);
}

static void
int_equal (GString *out, guint c, const gchar *field, guint64 got, guint64 want)
{
  if (got != want)
    g_string_append_printf (out,
        "%schannel %u: %s %" G_GUINT64_FORMAT " (as signed %" G_GINT64_FORMAT
        "), expected %" G_GUINT64_FORMAT " (%" G_GINT64_FORMAT ")",
        out->len ? "; " : "", c, field, got, (gint64)got, want, (gint64)want);
}

/* The mean and population variance of a channel, from its shifted sums. */
static void
mean_var_of (const Chan *ch, long double *mean, long double *var)
{
  *mean = 0;
  *var = 0;
  if (ch->n == 0)
    return;
  const long double m = ch->s1 / ch->n;
  *mean = ch->shift + m;
  *var = MAX (ch->s2 / ch->n - m * m, 0);
}

/* @got: from nums_from_message or nums_from_tensors. NULL when every value
 * agrees with @ref; otherwise what does not. */
static gchar *
mismatch (const Num *got, const CrTestMonoid *m, const CrTestRef *ref)
{
  const guint n = ref->components;
  const gboolean flt = is_float (ref->type);
  GString *out = g_string_new (NULL);

  for (guint c = 0; c < n; c++) {
    const Chan *ch = &ref->ch[c];
    const Num *a = &got[c], *b = &got[n + c];

    switch (m->id) {
      case CR_TEST_SUM:
      case CR_TEST_SUMSQ:
        if (flt)
          float_within (out, c, "sum", a->v, ch->sum, SUM_TOL * ch->abs_sum);
        else
          int_equal (out, c, "sum", a->bits, ch->sum_bits);
        if (m->id == CR_TEST_SUMSQ && flt)
          float_within (out, c, "sumsq", b->v, ch->sumsq, SUM_TOL * ch->sumsq);
        else if (m->id == CR_TEST_SUMSQ)
          int_equal (out, c, "sumsq", b->bits, ch->sumsq_bits);
        break;
      case CR_TEST_MIN:
        float_equal (out, c, "min", a->v, ch->min);
        break;
      case CR_TEST_MAX:
        float_equal (out, c, "max", a->v, ch->max);
        break;
      case CR_TEST_MINMAX:
        float_equal (out, c, "min", a->v, ch->min);
        float_equal (out, c, "max", b->v, ch->max);
        break;
      case CR_TEST_ABSMAX:
        if (is_signed (ref->type))
          int_equal (out, c, "absmax", a->bits, (guint64)ch->absmax_signed);
        else
          float_equal (out, c, "absmax", a->v, ch->max_abs);
        break;
      case CR_TEST_ARGMAX:
        float_equal (out, c, "value", a->v, ch->max);
        /* The first row holding the maximum: argmax.monoid's combine keeps
         * the smaller index of equal values, whatever the order. */
        if (b->bits != ch->argmax) {
          g_string_append_printf (out,
              "%schannel %u: index %" G_GUINT64_FORMAT
              ", expected %" G_GUINT64_FORMAT,
              out->len ? "; " : "", c, b->bits, ch->argmax);
          if (b->bits < ref->rows)
            g_string_append_printf (out,
                " (it holds %.17Lg, the maximum %.17Lg)",
                ref_at (ref, b->bits, c).v, ch->max);
        }
        break;
      case CR_TEST_COUNT_GT:
        int_equal (out, c, "greater", a->bits, ch->greater);
        break;
      case CR_TEST_MEAN_VAR: {
        long double mean, var;
        mean_var_of (ch, &mean, &var);
        float_within (out, c, "mean", a->v, mean,
            MEAN_TOL * fabsl (mean) + MEAN_ABS_TOL * ch->max_abs);
        float_within (out, c, "variance", b->v, var,
            VAR_TOL * var + VAR_ABS_TOL * ch->max_abs * ch->max_abs);
        break;
      }
    }
  }
  if (out->len == 0) {
    g_string_free (out, TRUE);
    return NULL;
  }
  return g_string_free (out, FALSE);
}

static void
check_nums (const Num *got, const CrTestMonoid *m, const CrTestRef *ref,
    const gchar *what)
{
  g_autofree gchar *wrong = mismatch (got, m, ref);
  fail_unless (wrong == NULL, "%s: %s", what, wrong);
}

gchar *
cr_test_result_mismatch (const GstStructure *s, const CrTestMonoid *m,
    const CrTestRef *ref, gboolean per_channel)
{
  Num *got = nums_from_message (
      s, m, ref->type, per_channel, ref->components, m->name);
  gchar *wrong = mismatch (got, m, ref);
  g_free (got);
  return wrong;
}

void
cr_test_check_message (const GstStructure *s, const CrTestMonoid *m,
    const CrTestRef *ref, gboolean per_channel, guint64 count,
    const gchar *what)
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

void
cr_test_check_tensor_caps (GstHarness *h, const CrTestMonoid *m, CrType in,
    guint n, gint fps_n, gint fps_d, const gchar *what)
{
  g_autoptr (GstCaps) caps = gst_pad_get_current_caps (h->sinkpad);
  g_autoptr (GString) types = g_string_new (NULL);
  g_autoptr (GString) dims = g_string_new (NULL);
  gint num_tensors = -1, rate_n = -1, rate_d = -1;

  fail_unless (caps != NULL, "%s: no caps on the source pad", what);
  for (guint f = 0; f < m->n_fields; f++) {
    g_string_append_printf (types, "%s%s", f ? "," : "",
        cr_test_type_name (field_type (&m->fields[f], in)));
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

void
cr_test_check_tensor_buffer (GstBuffer *buf, const CrTestMonoid *m,
    const CrTestRef *ref, GstClockTime pts, GstClockTime duration,
    const gchar *what)
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

/* Expected results of a stream */

void
cr_test_expected_free (CrTestExpected *e)
{
  cr_test_ref_free (e->ref);
  g_free (e->what);
  g_free (e);
}

GPtrArray *
cr_test_expected_new (void)
{
  return g_ptr_array_new_with_free_func ((GDestroyNotify)cr_test_expected_free);
}

void
cr_test_check_results (GPtrArray *results, GPtrArray *expected,
    const CrTestMonoid *m, gboolean per_channel, const gchar *what)
{
  for (guint k = 0; k < MIN (results->len, expected->len); k++) {
    const GstStructure *s = g_ptr_array_index (results, k);
    const CrTestExpected *e = g_ptr_array_index (expected, k);
    cr_test_check_time (s, "timestamp", e->ts, e->what);
    cr_test_check_time (s, "duration", e->duration, e->what);
    cr_test_check_message (s, m, e->ref, per_channel, e->count, e->what);
  }
  fail_unless (results->len == expected->len, "%s: %u results, expected %u",
      what, results->len, expected->len);
}

void
cr_test_check_tensor_results (GstHarness *h, GPtrArray *expected,
    const CrTestMonoid *m, const gchar *what)
{
  for (guint k = 0; k < expected->len; k++) {
    const CrTestExpected *e = g_ptr_array_index (expected, k);
    GstBuffer *out = gst_harness_try_pull (h);
    fail_unless (out != NULL, "%s: no tensor buffer", e->what);
    cr_test_check_tensor_buffer (out, m, e->ref, e->ts, e->duration, e->what);
    gst_buffer_unref (out);
  }
  GstBuffer *extra = gst_harness_try_pull (h);
  fail_unless (extra == NULL, "%s: more tensor buffers than intervals (%u)",
      what, expected->len);
}
