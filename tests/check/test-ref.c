/* test-ref.c: the GPU tests' CPU reference (cr-test-ref.c) against a
 * plain computation written here, on random data of every type, so that a
 * broken reference fails without a GPU. Each case builds the result
 * message and tensor buffer the element should give from that computation
 * and has cr-test-ref check them; then it changes one value of each field
 * and the reference must see it. */
#include "cr-test-ref.h"

#include <math.h>
#include <string.h>

static GRand *rand_;

/* An element of any type, read with its own C type. */
typedef struct {
  gint64 s; /* signed input */
  guint64 u; /* unsigned input */
  gdouble d; /* floating point, and any input as (float64) x */
} Elem;

static gboolean
type_is_float (CrType t)
{
  return t == CR_TYPE_FLOAT32 || t == CR_TYPE_FLOAT64;
}

static gboolean
type_is_signed (CrType t)
{
  return t == CR_TYPE_INT8 || t == CR_TYPE_INT16 || t == CR_TYPE_INT32
      || t == CR_TYPE_INT64;
}

#define READ(ctype, field) \
  G_STMT_START \
  { \
    ctype v_; \
    memcpy (&v_, p, sizeof v_); \
    e.field = v_; \
    e.d = (gdouble)v_; \
  } \
  G_STMT_END

static Elem
read_elem (CrType t, const guint8 *p)
{
  Elem e = { 0, 0, 0 };
  switch (t) {
    case CR_TYPE_INT8:
      READ (gint8, s);
      break;
    case CR_TYPE_UINT8:
      READ (guint8, u);
      break;
    case CR_TYPE_INT16:
      READ (gint16, s);
      break;
    case CR_TYPE_UINT16:
      READ (guint16, u);
      break;
    case CR_TYPE_INT32:
      READ (gint32, s);
      break;
    case CR_TYPE_UINT32:
      READ (guint32, u);
      break;
    case CR_TYPE_INT64:
      READ (gint64, s);
      break;
    case CR_TYPE_UINT64:
      READ (guint64, u);
      break;
    case CR_TYPE_FLOAT32: {
      gfloat v;
      memcpy (&v, p, sizeof v);
      e.d = v;
      break;
    }
    case CR_TYPE_FLOAT64:
      memcpy (&e.d, p, sizeof e.d);
      break;
    default:
      g_assert_not_reached ();
  }
  return e;
}

/* a < b in @t's order. */
static gboolean
less (CrType t, const Elem *a, const Elem *b)
{
  if (type_is_float (t))
    return a->d < b->d;
  if (type_is_signed (t))
    return a->s < b->s;
  return a->u < b->u;
}

/* What each monoid gives for one channel, computed in the plainest way:
 * one loop per quantity over the channel's elements. */
typedef struct {
  guint64 n;
  guint64 sum_bits, sumsq_bits; /* integers, wrapping */
  gdouble sum, sumsq; /* floating point */
  Elem min, max, value;
  guint64 index;
  Elem absmax;
  guint64 greater;
  gdouble mean, variance;
  gdouble absmax_d; /* the largest |(float64) x|, for tolerances */
} Want;

/* The elements of one channel, gathered from the data. */
typedef struct {
  CrType type;
  guint n;
  Elem *x;
} Column;

static Want
want_of (CrType t, const Column *col, gdouble threshold)
{
  Want w = { .n = col->n, .index = G_MAXUINT64 };
  const guint n = col->n;

  /* The identities of min and max: the type's highest and lowest. */
  if (type_is_float (t)) {
    w.min.d = INFINITY;
    w.max.d = -INFINITY;
  } else {
    const gsize bits = 8 * cr_test_type_size (t);
    if (type_is_signed (t)) {
      w.max.s = bits == 64 ? G_MININT64 : -((gint64)1 << (bits - 1));
      w.min.s = bits == 64 ? G_MAXINT64 : ((gint64)1 << (bits - 1)) - 1;
    } else {
      w.max.u = 0;
      w.min.u = bits == 64 ? G_MAXUINT64 : ((guint64)1 << bits) - 1;
    }
    w.min.d = type_is_signed (t) ? (gdouble)w.min.s : (gdouble)w.min.u;
    w.max.d = type_is_signed (t) ? (gdouble)w.max.s : (gdouble)w.max.u;
  }
  w.value = w.max;
  for (guint k = 0; k < n; k++)
    if (less (t, &col->x[k], &w.min))
      w.min = col->x[k];
  for (guint k = 0; k < n; k++)
    if (less (t, &w.max, &col->x[k]))
      w.max = col->x[k];
  for (guint k = 0; k < n; k++)
    if (k == 0 || less (t, &w.value, &col->x[k])) {
      w.value = col->x[k];
      w.index = k;
    }
  for (guint k = 0; k < n; k++) {
    const Elem *x = &col->x[k];
    if (type_is_float (t)) {
      w.sum += x->d;
      w.sumsq += x->d * x->d;
      w.absmax.d = MAX (w.absmax.d, fabs (x->d));
    } else if (type_is_signed (t)) {
      w.sum_bits += (guint64)x->s;
      w.sumsq_bits += (guint64)x->s * (guint64)x->s;
      /* The monoid takes -x in int64, which leaves INT64_MIN negative. */
      const gint64 a = x->s < 0 ? (gint64)(0 - (guint64)x->s) : x->s;
      w.absmax.s = MAX (w.absmax.s, a);
    } else {
      w.sum_bits += x->u;
      w.sumsq_bits += x->u * x->u;
      w.absmax.u = MAX (w.absmax.u, x->u);
    }
    w.greater += x->d > threshold;
    w.absmax_d = MAX (w.absmax_d, fabs (x->d));
  }
  /* Two passes, in long double. */
  long double total = 0, m2 = 0;
  for (guint k = 0; k < n; k++)
    total += col->x[k].d;
  const long double mean = n ? total / n : 0;
  for (guint k = 0; k < n; k++)
    m2 += (col->x[k].d - mean) * (col->x[k].d - mean);
  w.mean = (gdouble)mean;
  w.variance = n ? (gdouble)(m2 / n) : 0;
  return w;
}

static CrType
field_type (CrTestFieldKind kind, CrType in)
{
  switch (kind) {
    case CR_TEST_FIELD_IN:
      return in;
    case CR_TEST_FIELD_WIDE:
      return type_is_float (in) ? CR_TYPE_FLOAT64
          : type_is_signed (in) ? CR_TYPE_INT64
                                : CR_TYPE_UINT64;
    case CR_TEST_FIELD_UINT64:
      return CR_TYPE_UINT64;
    default:
      return CR_TYPE_FLOAT64;
  }
}

/* Field @f of @m in @w, as an Elem of the field's type. */
static Elem
want_field (const CrTestMonoid *m, guint f, CrType in, const Want *w)
{
  const gboolean flt = type_is_float (in);
  Elem e = { 0, 0, 0 };
  switch (m->id) {
    case CR_TEST_SUM:
    case CR_TEST_SUMSQ:
      if (f == 0 && flt)
        e.d = w->sum;
      else if (f == 0)
        e.s = (gint64)(e.u = w->sum_bits);
      else if (flt)
        e.d = w->sumsq;
      else
        e.s = (gint64)(e.u = w->sumsq_bits);
      break;
    case CR_TEST_MIN:
      e = w->min;
      break;
    case CR_TEST_MAX:
      e = w->max;
      break;
    case CR_TEST_MINMAX:
      e = f == 0 ? w->min : w->max;
      break;
    case CR_TEST_ABSMAX:
      e = w->absmax;
      break;
    case CR_TEST_ARGMAX:
      if (f == 0)
        e = w->value;
      else
        e.u = w->index;
      break;
    case CR_TEST_COUNT_GT:
      e.u = w->greater;
      break;
    case CR_TEST_MEAN_VAR:
      e.d = f == 0 ? w->mean : w->variance;
      break;
  }
  return e;
}

static void
set_value (GValue *v, CrType t, const Elem *e)
{
  g_value_init (v, cr_test_posted_gtype (t));
  switch (t) {
    case CR_TYPE_INT8:
    case CR_TYPE_INT16:
    case CR_TYPE_INT32:
      g_value_set_int (v, (gint)e->s);
      break;
    case CR_TYPE_UINT8:
    case CR_TYPE_UINT16:
    case CR_TYPE_UINT32:
      g_value_set_uint (v, (guint)e->u);
      break;
    case CR_TYPE_INT64:
      g_value_set_int64 (v, e->s);
      break;
    case CR_TYPE_UINT64:
      g_value_set_uint64 (v, e->u);
      break;
    case CR_TYPE_FLOAT32:
      g_value_set_float (v, (gfloat)e->d);
      break;
    default:
      g_value_set_double (v, e->d);
  }
}

static void
write_value (guint8 *p, CrType t, const Elem *e)
{
  switch (t) {
    case CR_TYPE_INT64: {
      gint64 v = e->s;
      memcpy (p, &v, 8);
      break;
    }
    case CR_TYPE_UINT64: {
      guint64 v = e->u;
      memcpy (p, &v, 8);
      break;
    }
    case CR_TYPE_FLOAT64:
      memcpy (p, &e->d, 8);
      break;
    default: {
      /* A field in the input type: the input type's bytes. */
      const gsize size = cr_test_type_size (t);
      if (type_is_float (t)) {
        gfloat v = (gfloat)e->d;
        memcpy (p, &v, 4);
      } else if (type_is_signed (t)) {
        gint64 v = e->s;
        memcpy (p, &v, size); /* little-endian: the low bytes */
      } else {
        guint64 v = e->u;
        memcpy (p, &v, size);
      }
    }
  }
}

/* The message the element should post for @wants (one per channel). */
static GstStructure *
message_of (const CrTestMonoid *m, CrType in, const Want *wants, guint channels,
    gboolean per_channel)
{
  guint64 count = 0;
  for (guint c = 0; c < channels; c++)
    count += wants[c].n;
  GstStructure *s = gst_structure_new ("cudareduce", "monoid", G_TYPE_STRING,
      m->name, "count", G_TYPE_UINT64, count, NULL);
  if (per_channel)
    gst_structure_set (s, "channels", G_TYPE_UINT, channels, NULL);
  for (guint f = 0; f < m->n_fields; f++) {
    const CrType t = field_type (m->fields[f].kind, in);
    GValue v = G_VALUE_INIT;
    if (!per_channel) {
      Elem e = want_field (m, f, in, &wants[0]);
      set_value (&v, t, &e);
    } else {
      g_value_init (&v, GST_TYPE_ARRAY);
      for (guint c = 0; c < channels; c++) {
        GValue one = G_VALUE_INIT;
        Elem e = want_field (m, f, in, &wants[c]);
        set_value (&one, t, &e);
        gst_value_array_append_and_take_value (&v, &one);
      }
    }
    gst_structure_take_value (s, m->fields[f].name, &v);
  }
  return s;
}

/* The tensor buffer the element should push: a memory per field. */
static GstBuffer *
tensors_of (const CrTestMonoid *m, CrType in, const Want *wants, guint channels)
{
  GstBuffer *buf = gst_buffer_new ();
  for (guint f = 0; f < m->n_fields; f++) {
    const CrType t = field_type (m->fields[f].kind, in);
    const gsize size = cr_test_type_size (t);
    guint8 *bytes = g_malloc0 (size * channels);
    for (guint c = 0; c < channels; c++) {
      Elem e = want_field (m, f, in, &wants[c]);
      write_value (bytes + c * size, t, &e);
    }
    gst_buffer_append_memory (buf,
        gst_memory_new_wrapped (
            0, bytes, size * channels, 0, size * channels, bytes, g_free));
  }
  GST_BUFFER_PTS (buf) = 0;
  GST_BUFFER_DURATION (buf) = GST_SECOND;
  return buf;
}

/* @w with field @f of @m in channel 0 moved off what it should be (past
 * any tolerance); FALSE where no other value is possible. */
static gboolean
perturb (const CrTestMonoid *m, guint f, CrType in, const Column *col, Want *w)
{
  const gboolean flt = type_is_float (in);
  switch (m->id) {
    case CR_TEST_SUM:
    case CR_TEST_SUMSQ:
      if (f == 0 && flt)
        w->sum += 1e-6 * fabs (w->sum) + 1;
      else if (f == 0)
        w->sum_bits++;
      else if (flt)
        w->sumsq = w->sumsq * (1 + 1e-6) + 1;
      else
        w->sumsq_bits++;
      return TRUE;
    case CR_TEST_MIN:
    case CR_TEST_MAX:
    case CR_TEST_MINMAX: {
      Elem *e = (m->id == CR_TEST_MAX || (m->id == CR_TEST_MINMAX && f == 1))
          ? &w->max
          : &w->min;
      if (col->n == 0)
        return FALSE;
      /* Another element, if there is one that differs. */
      for (guint k = 0; k < col->n; k++)
        if (less (in, &col->x[k], e) || less (in, e, &col->x[k])) {
          *e = col->x[k];
          return TRUE;
        }
      return FALSE;
    }
    case CR_TEST_ABSMAX:
      if (flt)
        w->absmax.d += 1;
      else if (type_is_signed (in))
        w->absmax.s++;
      else
        w->absmax.u++;
      return TRUE;
    case CR_TEST_ARGMAX:
      if (col->n == 0)
        return FALSE;
      if (f == 0) {
        for (guint k = 0; k < col->n; k++)
          if (less (in, &col->x[k], &w->value)) {
            w->value = col->x[k];
            return TRUE;
          }
        return FALSE;
      }
      /* A later row holding the maximum too, where there is one: only the
       * first is right. */
      for (guint k = w->index + 1; k < col->n; k++)
        if (!less (in, &col->x[k], &w->value)) {
          w->index = k;
          return TRUE;
        }
      w->index = (w->index + 1) % col->n;
      return col->n > 1;
    case CR_TEST_COUNT_GT:
      w->greater++;
      return TRUE;
    case CR_TEST_MEAN_VAR:
      /* Past the tolerances, which allow for the largest |x| too. */
      if (f == 0)
        w->mean += 1e-8 * fabs (w->mean) + 1e-10 * w->absmax_d + 1e-6;
      else
        w->variance +=
            1e-7 * w->variance + 1e-12 * w->absmax_d * w->absmax_d + 1e-6;
      return TRUE;
  }
  return FALSE;
}

/* count_gt's threshold near the middle of what cr_test_fill_random gives. */
static gdouble
threshold_for (CrType type)
{
  return type_is_signed (type) || type_is_float (type)
      ? 0.5
      : ldexp (1, 8 * cr_test_type_size (type) - 1) - 0.5;
}

/* Checks every built-in's reference for @ref (over @cols, one per
 * channel) against the plain computation, then that it sees each field
 * changed. */
static void
check_case (const CrTestRef *ref, CrType in, const Column *cols, guint channels,
    gboolean per_channel, gdouble threshold, const gchar *what)
{
  g_autoptr (GPtrArray) monoids = cr_test_builtin_monoids ();
  Want *wants = g_new (Want, channels);

  for (guint c = 0; c < channels; c++)
    wants[c] = want_of (in, &cols[c], threshold);
  guint64 count = 0;
  for (guint c = 0; c < channels; c++)
    count += wants[c].n;
  for (guint k = 0; k < monoids->len; k++) {
    const CrTestMonoid *m = g_ptr_array_index (monoids, k);
    g_autofree gchar *mwhat = g_strdup_printf (
        "%s, %s input, %s", m->name, cr_test_type_name (in), what);

    GstStructure *s = message_of (m, in, wants, channels, per_channel);
    cr_test_check_message (s, m, ref, per_channel, count, mwhat);
    gst_structure_free (s);
    GstBuffer *buf = tensors_of (m, in, wants, channels);
    cr_test_check_tensor_buffer (buf, m, ref, 0, GST_SECOND, mwhat);
    gst_buffer_unref (buf);

    for (guint f = 0; f < m->n_fields; f++) {
      Want *off = g_memdup2 (wants, channels * sizeof *wants);
      if (perturb (m, f, in, &cols[0], &off[0])) {
        GstStructure *bad = message_of (m, in, off, channels, per_channel);
        g_autofree gchar *wrong =
            cr_test_result_mismatch (bad, m, ref, per_channel);
        fail_unless (wrong != NULL, "%s: field %s changed, and not seen", mwhat,
            m->fields[f].name);
        gst_structure_free (bad);
      }
      g_free (off);
    }
  }
  g_free (wants);
}

/* @rows rows of @channels elements of @type at @data, one column each. */
static Column *
columns_of (CrType type, const guint8 *data, guint channels, guint rows,
    guint per_line, gsize stride)
{
  const gsize size = cr_test_type_size (type);
  Column *cols = g_new (Column, channels);
  for (guint c = 0; c < channels; c++) {
    cols[c].type = type;
    cols[c].n = rows;
    cols[c].x = g_new (Elem, MAX (rows, 1));
    for (guint r = 0; r < rows; r++) {
      const guint8 *line = per_line ? data + (r / per_line) * stride : data;
      const guint col = per_line ? r % per_line : r;
      cols[c].x[r] = read_elem (type, line + (col * channels + c) * size);
    }
  }
  return cols;
}

static void
columns_free (Column *cols, guint channels)
{
  for (guint c = 0; c < channels; c++)
    g_free (cols[c].x);
  g_free (cols);
}

GST_START_TEST (test_ref_one_channel)
{
  static const guint sizes[] = { 0, 1, 2, 1000, 100003 };
  for (CrType t = 0; t < CR_N_TYPES; t++) {
    const gdouble threshold = threshold_for (t);
    guint8 *data =
        cr_test_random_elements (rand_, t, sizes[G_N_ELEMENTS (sizes) - 1]);
    for (guint s = 0; s < G_N_ELEMENTS (sizes); s++) {
      g_autofree gchar *what = g_strdup_printf ("%u elements", sizes[s]);
      CrTestRef *ref = cr_test_ref_new (t, 1);
      cr_test_ref_set_threshold (ref, threshold);
      cr_test_ref_add (
          ref, &(CrTestSpan){ .data = data, .channels = 1, .rows = sizes[s] });
      Column *cols = columns_of (t, data, 1, sizes[s], 0, 0);
      check_case (ref, t, cols, 1, FALSE, threshold, what);
      columns_free (cols, 1);
      cr_test_ref_free (ref);
    }
    g_free (data);
  }
}

GST_END_TEST;

/* Three channels in two spans one after another, and lines of rows with
 * random padding between them that no result may read. */
GST_START_TEST (test_ref_channels_and_lines)
{
  const guint channels = 3, rows_a = 777, width = 33, height = 41;
  for (CrType t = 0; t < CR_N_TYPES; t++) {
    const gsize size = cr_test_type_size (t);
    const gdouble threshold = threshold_for (t);
    const gsize stride = width * channels * size + 5 * size;
    guint8 *a = cr_test_random_elements (rand_, t, rows_a * channels);
    guint8 *b = cr_test_random_elements (rand_, t, stride / size * height);

    CrTestRef *ref = cr_test_ref_new (t, channels);
    cr_test_ref_set_threshold (ref, threshold);
    cr_test_ref_add (
        ref, &(CrTestSpan){ .data = a, .channels = channels, .rows = rows_a });
    cr_test_ref_add (ref,
        &(CrTestSpan){ .data = b,
            .channels = channels,
            .rows = (guint64)width * height,
            .per_line = width,
            .stride = stride });
    Column *ca = columns_of (t, a, channels, rows_a, 0, 0);
    Column *cb = columns_of (t, b, channels, width * height, width, stride);
    /* One column per channel over both spans. */
    Column *cols = g_new (Column, channels);
    for (guint c = 0; c < channels; c++) {
      cols[c].type = t;
      cols[c].n = ca[c].n + cb[c].n;
      cols[c].x = g_new (Elem, cols[c].n);
      memcpy (cols[c].x, ca[c].x, ca[c].n * sizeof (Elem));
      memcpy (cols[c].x + ca[c].n, cb[c].x, cb[c].n * sizeof (Elem));
    }
    check_case (ref, t, cols, channels, TRUE, threshold, "3 channels, 2 spans");
    columns_free (cols, channels);
    columns_free (ca, channels);
    columns_free (cb, channels);
    cr_test_ref_free (ref);
    g_free (a);
    g_free (b);
  }
}

GST_END_TEST;

/* Data chosen for the cases random data rarely has: ties for the maximum,
 * INT64_MIN (whose |x| wraps in the monoid), integers that float64
 * rounds across count_gt's threshold, a large offset under a small spread,
 * and nothing at all per channel. */
GST_START_TEST (test_ref_chosen_data)
{
  /* The maximum 9 at rows 1, 3 and 4: argmax is row 1. */
  static const gint16 ties[] = { 2, 9, -4, 9, 9, 0 };
  static const gint64 int64_min[] = { G_MININT64, 5, -7, G_MININT64 };
  static const gint64 only_min[] = { G_MININT64, G_MININT64 };
  /* Above 2^63, count_gt's threshold here, only where not rounded to
   * float64: (float64) x > threshold for the last alone. */
  static const guint64 near_2_63[] = { ((guint64)1 << 63) + 1,
    ((guint64)1 << 63) + 1024, ((guint64)1 << 63) + 4096 };
  gdouble offset[1000];
  for (guint k = 0; k < G_N_ELEMENTS (offset); k++)
    offset[k] = 1e9 + g_rand_double_range (rand_, -1, 1);
  const struct {
    CrType type;
    gconstpointer data;
    guint n;
    gdouble threshold;
    const gchar *what;
  } cases[] = {
    { CR_TYPE_INT16, ties, G_N_ELEMENTS (ties), 0, "ties for the maximum" },
    { CR_TYPE_INT64, int64_min, G_N_ELEMENTS (int64_min), 0, "INT64_MIN" },
    { CR_TYPE_INT64, only_min, G_N_ELEMENTS (only_min), 0, "only INT64_MIN" },
    { CR_TYPE_UINT64, near_2_63, G_N_ELEMENTS (near_2_63), 0x1p63,
        "just above 2^63" },
    { CR_TYPE_FLOAT64, offset, G_N_ELEMENTS (offset), 0, "1e9 +- 1" },
  };
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++) {
    CrTestRef *ref = cr_test_ref_new (cases[k].type, 1);
    cr_test_ref_set_threshold (ref, cases[k].threshold);
    cr_test_ref_add (ref,
        &(CrTestSpan){
            .data = cases[k].data, .channels = 1, .rows = cases[k].n });
    Column *cols =
        columns_of (cases[k].type, cases[k].data, 1, cases[k].n, 0, 0);
    check_case (
        ref, cases[k].type, cols, 1, FALSE, cases[k].threshold, cases[k].what);
    columns_free (cols, 1);
    cr_test_ref_free (ref);
  }
  /* The first of the ties, and the absmax the monoid gives. */
  CrTestRef *ref = cr_test_ref_of_span (CR_TYPE_INT16, 1,
      &(CrTestSpan){ .data = (const guint8 *)ties, .channels = 1, .rows = 6 });
  GstStructure *s = gst_structure_new ("cudareduce", "monoid", G_TYPE_STRING,
      "argmax", "count", G_TYPE_UINT64, (guint64)6, "value", G_TYPE_INT, 9,
      "index", G_TYPE_UINT64, (guint64)1, NULL);
  cr_test_check_message (s, &cr_test_monoid_argmax, ref, FALSE, 6, "ties");
  gst_structure_set (s, "index", G_TYPE_UINT64, (guint64)3, NULL);
  g_autofree gchar *wrong =
      cr_test_result_mismatch (s, &cr_test_monoid_argmax, ref, FALSE);
  fail_unless (wrong != NULL, "argmax at the second of the ties was taken");
  gst_structure_free (s);
  cr_test_ref_free (ref);
  ref = cr_test_ref_of_span (CR_TYPE_INT64, 1,
      &(CrTestSpan){
          .data = (const guint8 *)int64_min, .channels = 1, .rows = 4 });
  s = gst_structure_new ("cudareduce", "monoid", G_TYPE_STRING, "absmax",
      "count", G_TYPE_UINT64, (guint64)4, "absmax", G_TYPE_INT64, (gint64)7,
      NULL);
  cr_test_check_message (s, &cr_test_monoid_absmax, ref, FALSE, 4, "INT64_MIN");
  gst_structure_free (s);
  cr_test_ref_free (ref);

  /* Per channel, a channel with no rows: identities. */
  const gfloat none = 0;
  ref = cr_test_ref_new (CR_TYPE_FLOAT32, 2);
  cr_test_ref_add (ref,
      &(CrTestSpan){ .data = (const guint8 *)&none, .channels = 2, .rows = 0 });
  Column empty[2] = { { CR_TYPE_FLOAT32, 0, NULL },
    { CR_TYPE_FLOAT32, 0, NULL } };
  check_case (ref, CR_TYPE_FLOAT32, empty, 2, TRUE, 0, "no rows");
  cr_test_ref_free (ref);
}

GST_END_TEST;

/* Every built-in has a reference, and each name finds its own. */
GST_START_TEST (test_ref_knows_every_builtin)
{
  g_autoptr (GPtrArray) monoids = cr_test_builtin_monoids ();
  g_auto (GStrv) all = cr_monoid_builtin_names ();
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  for (guint k = 0; all[k]; k++)
    if (!g_strv_contains (cr_test_binned_monoids, all[k]))
      g_ptr_array_add (names, all[k]);
  fail_unless_equals_int (monoids->len, names->len);
  fail_unless_equals_int (g_strv_length (all),
      names->len + g_strv_length ((gchar **)cr_test_binned_monoids));
  for (guint k = 0; k < monoids->len; k++) {
    const CrTestMonoid *m = g_ptr_array_index (monoids, k);
    fail_unless_equals_string (m->name, g_ptr_array_index (names, k));
    fail_unless (cr_test_monoid_named (m->name) == m);
  }
  fail_unless (cr_test_monoid_named ("nosuch") == NULL);
}

GST_END_TEST;

/* What the GPU tests spend on references: gpu-builtins adds 2^26 elements
 * of each type. Printed, not checked. */
GST_START_TEST (test_ref_speed)
{
  const gsize n = 1 << 22;
  guint8 *data = cr_test_random_elements (rand_, CR_TYPE_FLOAT64, n);
  const gint64 start = g_get_monotonic_time ();
  CrTestRef *ref = cr_test_ref_of_span (CR_TYPE_FLOAT64, 1,
      &(CrTestSpan){ .data = data, .channels = 1, .rows = n });
  const gdouble s = (g_get_monotonic_time () - start) / 1e6;
  g_print ("reference: %.1f M elements/s\n", n / s / 1e6);
  cr_test_ref_free (ref);
  g_free (data);
}

GST_END_TEST;

static Suite *
ref_suite (void)
{
  Suite *s = suite_create ("ref");
  TCase *tc = tcase_create ("ref");
  rand_ = cr_test_rand ();
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_ref_one_channel);
  tcase_add_test (tc, test_ref_channels_and_lines);
  tcase_add_test (tc, test_ref_chosen_data);
  tcase_add_test (tc, test_ref_knows_every_builtin);
  tcase_add_test (tc, test_ref_speed);
  return s;
}

GST_CHECK_MAIN (ref);
