/* cr-test-bins.c: the CPU reference of monoids with bins. */
#include "cr-test-bins.h"

#include <math.h>

CrTestBinning
cr_test_binning (CrType type, guint bins, gdouble lo, gdouble hi)
{
  CrTestBinning b = { type, bins, lo, hi };
  if (lo == 0 && hi == 0) {
    const gsize bits = 8 * cr_test_type_size (type);
    const gboolean is_signed =
        type == CR_TYPE_INT8 || type == CR_TYPE_INT16 || type == CR_TYPE_INT32;
    b.lo = is_signed ? -ldexp (1, bits - 1) : 0;
    b.hi = b.lo + ldexp (1, bits);
  }
  return b;
}

/* The slot of element @k at @data: its bin, or bins (below), bins + 1
 * (above), bins + 2 (NaN). Integers exactly, in long double (64-bit
 * mantissa: every value and every product here is exact, and the
 * quotient's rounding never reaches the next whole number); floats in
 * double, as the definition says. */
guint
cr_test_slot_of (const CrTestBinning *b, gconstpointer data, gsize k)
{
  if (b->type == CR_TYPE_FLOAT32 || b->type == CR_TYPE_FLOAT64) {
    const gdouble v = cr_test_get_double (b->type, data, k);
    if (isnan (v))
      return b->bins + 2;
    if (v < b->lo)
      return b->bins;
    if (v > b->hi)
      return b->bins + 1;
    const gdouble q = (v - b->lo) * ((gdouble)b->bins / (b->hi - b->lo));
    return q >= b->bins - 1 ? b->bins - 1 : (guint)q;
  }
  const gboolean is_signed = b->type == CR_TYPE_INT8 || b->type == CR_TYPE_INT16
      || b->type == CR_TYPE_INT32 || b->type == CR_TYPE_INT64;
  const long double x = is_signed
      ? (long double)cr_test_get_int64 (b->type, data, k)
      : (long double)cr_test_get_uint64 (b->type, data, k);
  if (x < b->lo)
    return b->bins;
  if (x > b->hi)
    return b->bins + 1;
  if (x == b->hi)
    return b->bins - 1;
  return (guint)floorl ((x - b->lo) * b->bins / ((long double)b->hi - b->lo));
}

void
cr_test_count_span (
    const CrTestBinning *b, const CrTestSpan *s, gint c, guint64 *slots)
{
  for (guint64 row = 0; row < s->rows; row++) {
    const guint8 *line = s->data;
    guint64 col = row;
    if (s->per_line > 0) {
      line += (row / s->per_line) * s->stride;
      col = row % s->per_line;
    }
    for (guint ch = 0; ch < s->channels; ch++)
      if (c < 0 || (guint)c == ch)
        slots[cr_test_slot_of (b, line, col * s->channels + ch)]++;
  }
}

/* The line of @s that row @row is in, and in *@col its place there. */
static const guint8 *
span_line (const CrTestSpan *s, guint64 row, guint64 *col)
{
  *col = row;
  if (s->per_line == 0)
    return s->data;
  *col = row % s->per_line;
  return s->data + (row / s->per_line) * s->stride;
}

void
cr_test_count_pairs (const CrTestBinning *b, const CrTestSpan *x, guint cx,
    const CrTestSpan *y, guint cy, guint64 *slots)
{
  for (guint64 row = 0; row < x->rows; row++) {
    guint64 xcol, ycol;
    const guint8 *xl = span_line (x, row, &xcol);
    const guint8 *yl = span_line (y, row, &ycol);
    slots[cr_test_pair_slot (b,
        cr_test_slot_of (b, xl, xcol * x->channels + cx),
        cr_test_slot_of (b, yl, ycol * y->channels + cy))]++;
  }
}

guint
cr_test_pair_slot (const CrTestBinning *b, guint sx, guint sy)
{
  const guint n = b->bins;
  if (sx < n && sy < n)
    return sx * n + sy;
  if (sx == n + 2 || sy == n + 2)
    return n * n + 2;
  return sx == n || sy == n ? n * n : n * n + 1;
}

void
cr_test_check_pairs (const GstStructure *s, const CrTestBinning *b,
    const guint64 *want, const gchar *what)
{
  static const gchar *const extra[] = { "below", "above", "nan" };
  const guint n = b->bins;
  const GValue *hist = gst_structure_get_value (s, "histogram");
  fail_unless (hist != NULL && GST_VALUE_HOLDS_ARRAY (hist)
          && gst_value_array_get_size (hist) == n,
      "%s: no histogram of %u rows in %" GST_PTR_FORMAT, what, n, s);
  guint wrong = 0, first = 0;
  guint64 got_first = 0, total = 0;
  for (guint i = 0; i < n; i++) {
    const GValue *row = gst_value_array_get_value (hist, i);
    fail_unless (
        GST_VALUE_HOLDS_ARRAY (row) && gst_value_array_get_size (row) == n,
        "%s: histogram row %u is not an array of %u", what, i, n);
    for (guint j = 0; j < n; j++) {
      const GValue *item = gst_value_array_get_value (row, j);
      fail_unless (G_VALUE_HOLDS_UINT64 (item), "%s: bin %u,%u is a %s", what,
          i, j, G_VALUE_TYPE_NAME (item));
      const guint64 got = g_value_get_uint64 (item);
      total += got;
      if (got != want[i * n + j] && wrong++ == 0) {
        first = i * n + j;
        got_first = got;
      }
    }
  }
  for (guint k = 0; k < G_N_ELEMENTS (extra); k++) {
    guint64 got = 0;
    fail_unless (gst_structure_get_uint64 (s, extra[k], &got),
        "%s: no guint64 %s", what, extra[k]);
    total += got;
    if (got != want[n * n + k] && wrong++ == 0) {
      first = n * n + k;
      got_first = got;
    }
  }
  fail_unless (wrong == 0,
      "%s: %u of %u counts differ; first slot %u (bin %u,%u): "
      "%" G_GUINT64_FORMAT ", expected %" G_GUINT64_FORMAT
      " (slots from %u: below, above, nan)",
      what, wrong, n * n + 3, first, first / n, first % n, got_first,
      want[first], n * n);
  guint64 count = 0;
  fail_unless (gst_structure_get_uint64 (s, "count", &count) && count == total,
      "%s: count %" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT " pairs counted",
      what, count, total);
}

CrTestSpan
cr_test_frame_span (const CrTestFrame *f, guint c, CrType type)
{
  const GstVideoInfo *info = &f->info;
  const guint plane = GST_VIDEO_INFO_COMP_PLANE (info, c);
  const gint pstride = GST_VIDEO_INFO_COMP_PSTRIDE (info, c);
  const gsize elem = cr_test_type_size (type);
  /* Rounded up: GStreamer 1.22 puts P010's V 1 byte into a pixel, though
   * it is the second 16-bit sample. */
  const gsize poffset =
      (GST_VIDEO_INFO_COMP_POFFSET (info, c) + elem - 1) / elem * elem;
  const CrTestSpan span = {
    .data = f->data + info->offset[plane] + poffset,
    .channels = (guint)(pstride / elem),
    .rows = (guint64)GST_VIDEO_INFO_COMP_WIDTH (info, c)
        * GST_VIDEO_INFO_COMP_HEIGHT (info, c),
    .per_line = (guint64)GST_VIDEO_INFO_COMP_WIDTH (info, c),
    .stride = (gsize)info->stride[plane],
  };
  return span;
}

void
cr_test_count_frame (
    const CrTestBinning *b, const CrTestFrame *f, gint comp, guint64 *slots)
{
  for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&f->info); c++) {
    if (comp >= 0 && (guint)comp != c)
      continue;
    const CrTestSpan span = cr_test_frame_span (f, c, b->type);
    cr_test_count_span (b, &span, 0, slots);
  }
}

const GValue *
cr_test_value_of (const GstStructure *s, const gchar *name, guint n, guint v)
{
  const GValue *value = gst_structure_get_value (s, name);
  fail_unless (value != NULL, "no %s in %" GST_PTR_FORMAT, name, s);
  if (n == 0)
    return value;
  fail_unless (
      GST_VALUE_HOLDS_ARRAY (value) && gst_value_array_get_size (value) == n,
      "%s is not an array of %u in %" GST_PTR_FORMAT, name, n, s);
  return gst_value_array_get_value (value, v);
}

/* The counts in result @s, for value @v of @n (n 0: not per channel). */
static void
read_slots (const GstStructure *s, const CrTestBinning *b, guint n, guint v,
    guint64 *slots, const gchar *what)
{
  static const gchar *const extra[] = { "below", "above", "nan" };
  const GValue *hist = gst_structure_get_value (s, "histogram");
  fail_unless (hist != NULL && GST_VALUE_HOLDS_ARRAY (hist),
      "%s: no histogram array in %" GST_PTR_FORMAT, what, s);
  if (n > 0) {
    fail_unless_equals_int (gst_value_array_get_size (hist), n);
    hist = gst_value_array_get_value (hist, v);
    fail_unless (GST_VALUE_HOLDS_ARRAY (hist));
  }
  fail_unless (gst_value_array_get_size (hist) == b->bins,
      "%s: %u bins, expected %u", what, gst_value_array_get_size (hist),
      b->bins);
  for (guint k = 0; k < b->bins; k++) {
    const GValue *item = gst_value_array_get_value (hist, k);
    fail_unless (G_VALUE_HOLDS_UINT64 (item), "%s: bin %u is a %s", what, k,
        G_VALUE_TYPE_NAME (item));
    slots[k] = g_value_get_uint64 (item);
  }
  for (guint k = 0; k < G_N_ELEMENTS (extra); k++) {
    const GValue *value = gst_structure_get_value (s, extra[k]);
    fail_unless (value != NULL, "%s: no %s", what, extra[k]);
    if (n > 0)
      value = gst_value_array_get_value (value, v);
    fail_unless (G_VALUE_HOLDS_UINT64 (value), "%s: %s is a %s", what, extra[k],
        G_VALUE_TYPE_NAME (value));
    slots[b->bins + k] = g_value_get_uint64 (value);
  }
}

void
cr_test_check_slots (const GstStructure *s, const CrTestBinning *b, guint n,
    guint v, const guint64 *want, const gchar *what)
{
  g_autofree guint64 *got = g_new0 (guint64, CR_TEST_SLOTS (b));
  read_slots (s, b, n, v, got, what);
  guint wrong = 0, first = 0;
  for (guint k = 0; k < CR_TEST_SLOTS (b); k++)
    if (got[k] != want[k] && wrong++ == 0)
      first = k;
  fail_unless (wrong == 0,
      "%s (value %u): %u of %u counts differ; first slot %u: %" G_GUINT64_FORMAT
      ", expected %" G_GUINT64_FORMAT " (slots past %u: below, above, nan)",
      what, v, wrong, CR_TEST_SLOTS (b), first, got[first], want[first],
      b->bins - 1);
}

gdouble
cr_test_bin_value (const CrTestBinning *b, guint k)
{
  if (b->type == CR_TYPE_FLOAT32 || b->type == CR_TYPE_FLOAT64)
    return b->lo + (b->hi - b->lo) * k / b->bins;
  /* Exact: a bin k is the values from lo + ceil (k * range / bins); 64-bit
   * input's range the bins divide. */
  const long double range = (long double)b->hi - b->lo;
  const long double offset = fmodl (range, b->bins) == 0
      ? k * (range / b->bins)
      : ceill (k * range / b->bins);
  return (gdouble)(b->lo + offset);
}

gdouble
cr_test_bin_index (const CrTestBinning *b, guint k)
{
  return k;
}

gdouble
cr_test_percentile (const CrTestBinning *b, const guint64 *slots, gdouble p,
    gdouble (*bin_value) (const CrTestBinning *b, guint k))
{
  const guint64 below = slots[b->bins], above = slots[b->bins + 1];
  guint64 in_bins = 0;
  for (guint k = 0; k < b->bins; k++)
    in_bins += slots[k];
  const guint64 n = below + in_bins + above;
  if (n == 0)
    return NAN;
  /* nearbyint rounds halves to even, as the definition does. */
  guint64 rank = (guint64)nearbyint (p * (gdouble)n);
  rank = CLAMP (rank, 1, n);
  if (rank <= below)
    return -INFINITY;
  guint64 seen = below;
  for (guint k = 0; k < b->bins; k++) {
    seen += slots[k];
    if (seen >= rank)
      return bin_value (b, k);
  }
  return INFINITY;
}

guint8 *
cr_test_random_binned (GRand *rand, CrType type, gsize n)
{
  guint8 *data = cr_test_random_elements (rand, type, n);
  for (gsize k = 0; k < n; k++) {
    if (type == CR_TYPE_INT64)
      ((gint64 *)data)[k] >>= 10;
    else if (type == CR_TYPE_UINT64)
      ((guint64 *)data)[k] >>= 10;
    else if (type == CR_TYPE_FLOAT32 && k % 97 == 5)
      ((gfloat *)data)[k] = NAN;
    else if (type == CR_TYPE_FLOAT64 && k % 97 == 5)
      ((gdouble *)data)[k] = NAN;
  }
  return data;
}
