/* test-gpu-builtins.c: every built-in monoid on every input type, against
 * references computed here on the CPU with plain loops. Buffers from empty
 * to 2^26 elements go one after another through one element per monoid and
 * input type; then data that does not start on a 16-byte boundary, video
 * frames whose row padding must never reach a result, and tensor output.
 * Needs a GPU: exits 77 (skip) without one. */
#include "cr-test-main.h"

#include <gst/video/video.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The input types as this test knows them, independently of cr-types.c. */
typedef enum {
  KIND_SIGNED,
  KIND_UNSIGNED,
  KIND_FLOAT,
} Kind;

static const struct {
  const gchar *name;
  gsize size;
  Kind kind;
} type_info[CR_N_TYPES] = {
  [CR_TYPE_INT8] = { "int8", 1, KIND_SIGNED },
  [CR_TYPE_UINT8] = { "uint8", 1, KIND_UNSIGNED },
  [CR_TYPE_INT16] = { "int16", 2, KIND_SIGNED },
  [CR_TYPE_UINT16] = { "uint16", 2, KIND_UNSIGNED },
  [CR_TYPE_INT32] = { "int32", 4, KIND_SIGNED },
  [CR_TYPE_UINT32] = { "uint32", 4, KIND_UNSIGNED },
  [CR_TYPE_INT64] = { "int64", 8, KIND_SIGNED },
  [CR_TYPE_UINT64] = { "uint64", 8, KIND_UNSIGNED },
  [CR_TYPE_FLOAT32] = { "float32", 4, KIND_FLOAT },
  [CR_TYPE_FLOAT64] = { "float64", 8, KIND_FLOAT },
};

/* A value of any of the ten types: integers as the 64 bits of their
 * (sign-extended) value, floating point as a double. */
typedef union {
  guint64 u;
  gdouble d;
} Num;

static gchar *
num_string (CrType type, Num v)
{
  switch (type_info[type].kind) {
    case KIND_SIGNED:
      return g_strdup_printf ("%" G_GINT64_FORMAT, (gint64)v.u);
    case KIND_UNSIGNED:
      return g_strdup_printf ("%" G_GUINT64_FORMAT, v.u);
    default:
      return g_strdup_printf ("%.17g", v.d);
  }
}

static Num
num_from_gvalue (CrType type, const GValue *value)
{
  Num n = { 0 };

  switch (type) {
    case CR_TYPE_INT8:
    case CR_TYPE_INT16:
    case CR_TYPE_INT32:
      n.u = (guint64)(gint64)g_value_get_int (value);
      break;
    case CR_TYPE_UINT8:
    case CR_TYPE_UINT16:
    case CR_TYPE_UINT32:
      n.u = g_value_get_uint (value);
      break;
    case CR_TYPE_INT64:
      n.u = (guint64)g_value_get_int64 (value);
      break;
    case CR_TYPE_UINT64:
      n.u = g_value_get_uint64 (value);
      break;
    case CR_TYPE_FLOAT32:
      n.d = g_value_get_float (value);
      break;
    case CR_TYPE_FLOAT64:
      n.d = g_value_get_double (value);
      break;
    default:
      g_assert_not_reached ();
  }
  return n;
}

static Num
num_from_bytes (CrType type, const guint8 *data)
{
  Num n = { 0 };

  switch (type_info[type].kind) {
    case KIND_SIGNED:
      n.u = (guint64)cr_test_get_int64 (type, data, 0);
      break;
    case KIND_UNSIGNED:
      n.u = cr_test_get_uint64 (type, data, 0);
      break;
    case KIND_FLOAT:
      n.d = cr_test_get_double (type, data, 0);
      break;
  }
  return n;
}

/* What every built-in should give for some data, computed on the CPU. */
typedef struct {
  guint64 n;
  /* In the wide type: integer sums wrap modulo 2^64; float sums are rounded
   * from long double, sum_scale is the sum of |x|. */
  Num sum, sumsq;
  gdouble sum_scale;
  Num min, max; /* in the input type */
  Num absmax; /* in the wide type */
  Num value; /* argmax: the largest element... */
  guint64 index; /* ...and the index of its first occurrence */
  guint64 greater; /* count_gt: elements with (double) x > threshold */
  gdouble mean, variance; /* population variance */
  gdouble maxabs; /* the largest |(double) x|, to scale tolerances */
} Ref;

/* The parts of a reference that depend on the kind of input type. */
#define REF_SIGNED_DECLS \
  guint64 isum = 0, isumsq = 0; \
  gint64 iabsmax = 0
/* |x| as int64, wrapping for INT64_MIN as the GPU's int64 negation does. */
#define REF_SIGNED_STEP(x, d) \
  G_STMT_START \
  { \
    const gint64 w_ = (x); \
    const gint64 a_ = w_ < 0 ? (gint64)(0 - (guint64)w_) : w_; \
    isum += (guint64)w_; \
    isumsq += (guint64)w_ * (guint64)w_; \
    if (a_ > iabsmax) \
      iabsmax = a_; \
  } \
  G_STMT_END
#define REF_SIGNED_NUM(num, v) ((num).u = (guint64)(gint64)(v))
#define REF_SIGNED_STORE(r) \
  G_STMT_START \
  { \
    (r)->sum.u = isum; \
    (r)->sumsq.u = isumsq; \
    (r)->absmax.u = (guint64)iabsmax; \
  } \
  G_STMT_END

#define REF_UNSIGNED_DECLS guint64 isum = 0, isumsq = 0, uabsmax = 0
#define REF_UNSIGNED_STEP(x, d) \
  G_STMT_START \
  { \
    const guint64 w_ = (x); \
    isum += w_; \
    isumsq += w_ * w_; \
    if (w_ > uabsmax) \
      uabsmax = w_; \
  } \
  G_STMT_END
#define REF_UNSIGNED_NUM(num, v) ((num).u = (guint64)(v))
#define REF_UNSIGNED_STORE(r) \
  G_STMT_START \
  { \
    (r)->sum.u = isum; \
    (r)->sumsq.u = isumsq; \
    (r)->absmax.u = uabsmax; \
  } \
  G_STMT_END

/* Squares are rounded to double as the GPU's (wide) x * x is; the sums are
 * kept in long double. */
#define REF_FLOAT_DECLS \
  long double fsum = 0, fsumsq = 0, fabssum = 0; \
  gdouble fabsmax = 0
#define REF_FLOAT_STEP(x, d) \
  G_STMT_START \
  { \
    const gdouble sq_ = (d) * (d); \
    fsum += (d); \
    fsumsq += sq_; \
    fabssum += fabs (d); \
    if (fabs (d) > fabsmax) \
      fabsmax = fabs (d); \
  } \
  G_STMT_END
#define REF_FLOAT_NUM(num, v) ((num).d = (gdouble)(v))
#define REF_FLOAT_STORE(r) \
  G_STMT_START \
  { \
    (r)->sum.d = (gdouble)fsum; \
    (r)->sumsq.d = (gdouble)fsumsq; \
    (r)->sum_scale = (gdouble)fabssum; \
    (r)->absmax.d = fabsmax; \
  } \
  G_STMT_END

/* One pass for everything but the variance, which takes a second one around
 * the long double mean. */
#define DEFINE_REFERENCE(fn, ctype, lowest, highest, KIND) \
  static void fn (gconstpointer data, gsize n, gdouble threshold, Ref *r) \
  { \
    const guint8 *bytes = data; \
    ctype lo = (highest), hi = (lowest), best = (lowest); \
    guint64 best_index = G_MAXUINT64, greater = 0; \
    long double total = 0, m2 = 0; \
    gdouble maxabs = 0; \
    KIND##_DECLS; \
\
    for (gsize k = 0; k < n; k++) { \
      ctype x; \
      memcpy (&x, bytes + k * sizeof x, sizeof x); \
      const gdouble d = (gdouble)x; \
      if (x < lo) \
        lo = x; \
      if (x > hi) \
        hi = x; \
      if (k == 0 || x > best) { \
        best = x; \
        best_index = k; \
      } \
      greater += d > threshold; \
      total += d; \
      if (fabs (d) > maxabs) \
        maxabs = fabs (d); \
      KIND##_STEP (x, d); \
    } \
    const long double mean = n ? total / n : 0; \
    for (gsize k = 0; k < n; k++) { \
      ctype x; \
      memcpy (&x, bytes + k * sizeof x, sizeof x); \
      const long double dev = (gdouble)x - mean; \
      m2 += dev * dev; \
    } \
    memset (r, 0, sizeof *r); \
    r->n = n; \
    KIND##_NUM (r->min, lo); \
    KIND##_NUM (r->max, hi); \
    KIND##_NUM (r->value, best); \
    r->index = best_index; \
    r->greater = greater; \
    r->mean = (gdouble)mean; \
    r->variance = n ? (gdouble)(m2 / n) : 0; \
    r->maxabs = maxabs; \
    KIND##_STORE (r); \
  }

DEFINE_REFERENCE (reference_int8, gint8, G_MININT8, G_MAXINT8, REF_SIGNED)
DEFINE_REFERENCE (reference_uint8, guint8, 0, G_MAXUINT8, REF_UNSIGNED)
DEFINE_REFERENCE (reference_int16, gint16, G_MININT16, G_MAXINT16, REF_SIGNED)
DEFINE_REFERENCE (reference_uint16, guint16, 0, G_MAXUINT16, REF_UNSIGNED)
DEFINE_REFERENCE (reference_int32, gint32, G_MININT32, G_MAXINT32, REF_SIGNED)
DEFINE_REFERENCE (reference_uint32, guint32, 0, G_MAXUINT32, REF_UNSIGNED)
DEFINE_REFERENCE (reference_int64, gint64, G_MININT64, G_MAXINT64, REF_SIGNED)
DEFINE_REFERENCE (reference_uint64, guint64, 0, G_MAXUINT64, REF_UNSIGNED)
DEFINE_REFERENCE (reference_float32, gfloat, -INFINITY, INFINITY, REF_FLOAT)
DEFINE_REFERENCE (reference_float64, gdouble, -INFINITY, INFINITY, REF_FLOAT)

typedef void (*ReferenceFunc) (
    gconstpointer data, gsize n, gdouble threshold, Ref *r);

static const ReferenceFunc reference_funcs[CR_N_TYPES] = {
  [CR_TYPE_INT8] = reference_int8,
  [CR_TYPE_UINT8] = reference_uint8,
  [CR_TYPE_INT16] = reference_int16,
  [CR_TYPE_UINT16] = reference_uint16,
  [CR_TYPE_INT32] = reference_int32,
  [CR_TYPE_UINT32] = reference_uint32,
  [CR_TYPE_INT64] = reference_int64,
  [CR_TYPE_UINT64] = reference_uint64,
  [CR_TYPE_FLOAT32] = reference_float32,
  [CR_TYPE_FLOAT64] = reference_float64,
};

static void
reference (CrType type, gconstpointer data, gsize n, gdouble threshold, Ref *r)
{
  reference_funcs[type](data, n, threshold, r);
}

/* count_gt's threshold: near the middle of what cr_test_fill_random gives,
 * so that it counts neither none nor all. */
static gdouble
threshold_for (CrType type)
{
  switch (type) {
    case CR_TYPE_UINT8:
      return 127.5;
    case CR_TYPE_UINT16:
      return 32767.5;
    case CR_TYPE_UINT32:
      return 2147483647.5;
    case CR_TYPE_UINT64:
      return 9223372036854775808.0; /* 2^63 */
    default:
      return 0.5; /* signed and float data lie around 0 */
  }
}

/* The built-ins' result fields, as the .monoid files declare them. */
typedef enum {
  FIELD_IN,
  FIELD_WIDE,
  FIELD_UINT64,
  FIELD_FLOAT64,
} FieldKind;

typedef enum {
  Q_SUM,
  Q_SUMSQ,
  Q_MIN,
  Q_MAX,
  Q_ABSMAX,
  Q_MEAN,
  Q_VARIANCE,
  Q_GREATER,
  Q_VALUE,
  Q_INDEX,
} Quantity;

typedef struct {
  const gchar *name;
  FieldKind kind;
  Quantity quantity;
} FieldSpec;

typedef struct {
  const gchar *name;
  guint n_fields;
  FieldSpec fields[2];
} MonoidSpec;

static const MonoidSpec monoid_specs[] = {
  { "absmax", 1, { { "absmax", FIELD_WIDE, Q_ABSMAX } } },
  { "argmax", 2,
      { { "value", FIELD_IN, Q_VALUE }, { "index", FIELD_UINT64, Q_INDEX } } },
  { "count_gt", 1, { { "greater", FIELD_UINT64, Q_GREATER } } },
  { "max", 1, { { "max", FIELD_IN, Q_MAX } } },
  { "mean_var", 2,
      { { "mean", FIELD_FLOAT64, Q_MEAN },
          { "variance", FIELD_FLOAT64, Q_VARIANCE } } },
  { "min", 1, { { "min", FIELD_IN, Q_MIN } } },
  { "minmax", 2, { { "min", FIELD_IN, Q_MIN }, { "max", FIELD_IN, Q_MAX } } },
  { "sum", 1, { { "sum", FIELD_WIDE, Q_SUM } } },
  { "sumsq", 2,
      { { "sum", FIELD_WIDE, Q_SUM }, { "sumsq", FIELD_WIDE, Q_SUMSQ } } },
};

static const MonoidSpec *
find_spec (const gchar *name)
{
  for (guint k = 0; k < G_N_ELEMENTS (monoid_specs); k++)
    if (strcmp (monoid_specs[k].name, name) == 0)
      return &monoid_specs[k];
  return NULL;
}

/* The specs of the built-ins, in cr_monoid_builtin_names() order; fails
 * when a built-in has no reference here, or a reference no built-in. */
static GPtrArray *
builtin_specs (void)
{
  g_auto (GStrv) names = cr_monoid_builtin_names ();
  GPtrArray *specs = g_ptr_array_new ();

  for (guint m = 0; names[m]; m++) {
    const MonoidSpec *spec = find_spec (names[m]);
    fail_unless (spec != NULL,
        "built-in monoid %s has no CPU reference in test-gpu-builtins.c",
        names[m]);
    g_ptr_array_add (specs, (gpointer)spec);
  }
  fail_unless (specs->len == G_N_ELEMENTS (monoid_specs),
      "%u built-in monoids, %u expected", specs->len,
      (guint)G_N_ELEMENTS (monoid_specs));
  return specs;
}

static CrType
field_type (FieldKind kind, CrType in)
{
  switch (kind) {
    case FIELD_IN:
      return in;
    case FIELD_WIDE:
      switch (type_info[in].kind) {
        case KIND_SIGNED:
          return CR_TYPE_INT64;
        case KIND_UNSIGNED:
          return CR_TYPE_UINT64;
        default:
          return CR_TYPE_FLOAT64;
      }
    case FIELD_UINT64:
      return CR_TYPE_UINT64;
    default:
      return CR_TYPE_FLOAT64;
  }
}

/* Floating-point sums are added in float64 on the GPU in another order than
 * here: their error stays far below this share of sum |x| (about 1e-14 for
 * the element's grid-stride-then-tree order, and under 1e-10 even for one
 * sequential pass over 2^26 terms). */
#define SUM_TOLERANCE 1e-10

typedef struct {
  const gchar *name;
  CrType type;
  Num value;
  gdouble tolerance; /* float fields: largest |got - value|; 0: exact */
} Expect;

static void
expect_field (const FieldSpec *f, CrType in, const Ref *r, Expect *e)
{
  const gboolean float_in = type_info[in].kind == KIND_FLOAT;

  e->name = f->name;
  e->type = field_type (f->kind, in);
  e->tolerance = 0;
  switch (f->quantity) {
    case Q_SUM:
      e->value = r->sum;
      if (float_in)
        e->tolerance = SUM_TOLERANCE * r->sum_scale;
      break;
    case Q_SUMSQ:
      e->value = r->sumsq;
      if (float_in)
        e->tolerance = SUM_TOLERANCE * r->sumsq.d;
      break;
    case Q_MIN:
      e->value = r->min;
      break;
    case Q_MAX:
      e->value = r->max;
      break;
    case Q_ABSMAX:
      e->value = r->absmax;
      break;
    case Q_VALUE:
      e->value = r->value;
      break;
    case Q_INDEX:
      e->value.u = r->index;
      break;
    case Q_GREATER:
      e->value.u = r->greater;
      break;
    case Q_MEAN:
      /* Chan's combine in float64: errors of a few ulps of the data's
       * magnitude, far below this. */
      e->value.d = r->mean;
      e->tolerance = 1e-9 * fabs (r->mean) + 1e-11 * r->maxabs;
      break;
    case Q_VARIANCE:
      e->value.d = r->variance;
      e->tolerance = 1e-8 * r->variance + 1e-14 * r->maxabs * r->maxabs;
      break;
  }
}

static void
check_value (const MonoidSpec *spec, CrType in, const gchar *what,
    const Expect *e, Num got)
{
  gboolean ok;

  if (type_info[e->type].kind == KIND_FLOAT)
    ok = e->tolerance > 0 ? fabs (got.d - e->value.d) <= e->tolerance
                          : got.d == e->value.d;
  else
    ok = got.u == e->value.u;
  if (!ok) {
    g_autofree gchar *expected = num_string (e->type, e->value);
    g_autofree gchar *actual = num_string (e->type, got);
    fail ("monoid %s, %s input, %s: field %s (%s): expected %s, got %s "
          "(tolerance %g)",
        spec->name, type_info[in].name, what, e->name, type_info[e->type].name,
        expected, actual, e->tolerance);
  }
}

/* A result message: monoid, count and every result field. */
static void
check_message (const GstStructure *s, const MonoidSpec *spec, CrType in,
    const Ref *ref, const gchar *what)
{
  g_autofree gchar *text = gst_structure_to_string (s);
  const gchar *monoid = gst_structure_get_string (s, "monoid");
  guint64 count = G_MAXUINT64;

  fail_unless (gst_structure_has_name (s, "cudareduce"),
      "monoid %s, %s input, %s: message %s", spec->name, type_info[in].name,
      what, text);
  fail_unless (g_strcmp0 (monoid, spec->name) == 0,
      "monoid %s, %s input, %s: field monoid: expected \"%s\", got \"%s\" "
      "in %s",
      spec->name, type_info[in].name, what, spec->name,
      monoid ? monoid : "(none)", text);
  fail_unless (gst_structure_get_uint64 (s, "count", &count),
      "monoid %s, %s input, %s: no guint64 field count in %s", spec->name,
      type_info[in].name, what, text);
  fail_unless (count == ref->n,
      "monoid %s, %s input, %s: field count: "
      "expected %" G_GUINT64_FORMAT ", got %" G_GUINT64_FORMAT,
      spec->name, type_info[in].name, what, ref->n, count);

  for (guint f = 0; f < spec->n_fields; f++) {
    Expect e;
    expect_field (&spec->fields[f], in, ref, &e);
    const GValue *value = gst_structure_get_value (s, e.name);
    fail_unless (value != NULL, "monoid %s, %s input, %s: no field %s in %s",
        spec->name, type_info[in].name, what, e.name, text);
    fail_unless (G_VALUE_TYPE (value) == cr_test_posted_gtype (e.type),
        "monoid %s, %s input, %s: field %s is a %s, expected a %s (%s)",
        spec->name, type_info[in].name, what, e.name, G_VALUE_TYPE_NAME (value),
        g_type_name (cr_test_posted_gtype (e.type)), type_info[e.type].name);
    check_value (spec, in, what, &e, num_from_gvalue (e.type, value));
  }
}

static GstHarness *
start_harness (
    const MonoidSpec *spec, GstCaps *caps, gboolean tensor, gdouble threshold)
{
  GstHarness *h = tensor
      ? cr_test_harness (caps, "monoid", spec->name, "output", "tensor", NULL)
      : cr_test_harness (caps, "monoid", spec->name, NULL);
  g_object_set (h->element, "threshold", threshold, NULL);
  return h;
}

/* A buffer over @size bytes at @data, without copying them. */
static GstBuffer *
wrap (gconstpointer data, gsize size)
{
  return gst_buffer_new_wrapped_full (
      GST_MEMORY_FLAG_READONLY, (gpointer)data, size, 0, size, NULL, NULL);
}

/* Pushes @buf, fails with the element's error when it gives one, and
 * returns the result posted for it. */
static GstStructure *
push_for_result (GstHarness *h, const MonoidSpec *spec, CrType in,
    GstBuffer *buf, const gchar *what)
{
  GstFlowReturn ret = gst_harness_push (h, buf);
  GstStructure *result;

  if (ret != GST_FLOW_OK) {
    /* Fails with the error message, when there is one. */
    result = cr_test_pop_result (h);
    if (result)
      gst_structure_free (result);
    fail ("monoid %s, %s input, %s: pushing returned %s", spec->name,
        type_info[in].name, what, gst_flow_get_name (ret));
  }
  result = cr_test_pop_result (h);
  fail_unless (result != NULL, "monoid %s, %s input, %s: no result posted",
      spec->name, type_info[in].name, what);
  return result;
}

/* In message mode: pushes @buf, checks the message against @ref and that
 * the buffer came out unchanged. */
static void
push_and_check (GstHarness *h, const MonoidSpec *spec, CrType in,
    GstBuffer *buf, const Ref *ref, const gchar *what)
{
  GstMapInfo map;
  const guint8 *bytes = NULL;
  gsize size = 0;

  /* The memory is ours (wrapped), so its address stays valid. */
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  bytes = map.data;
  size = map.size;
  gst_buffer_unmap (buf, &map);

  GstStructure *result = push_for_result (h, spec, in, buf, what);
  check_message (result, spec, in, ref, what);
  gst_structure_free (result);

  GstBuffer *out = gst_harness_pull (h);
  fail_unless (out != NULL,
      "monoid %s, %s input, %s: the buffer was not passed on", spec->name,
      type_info[in].name, what);
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless (map.size == size
          && (size == 0 || map.data == bytes
              || memcmp (map.data, bytes, size) == 0),
      "monoid %s, %s input, %s: the buffer passed on differs from the input",
      spec->name, type_info[in].name, what);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
}

/* 1. Every built-in on every type, sizes one after another. */

/* The largest is 1 << 26, or 4 Mi + 5 under compute-sanitizer, where main
 * also makes staging chunks 1 MiB, so that it is still several chunks and
 * grid strides for every type: racecheck took over 8 minutes on 64 Mi
 * elements of each type. */
static gsize sizes[] = { 0, 1, 31, 32, 33, 1000, (1 << 20) + 3, 1 << 26 };

#define LARGEST (sizes[G_N_ELEMENTS (sizes) - 1])

static void
check_builtins_on (GRand *rand, CrType type)
{
  const gsize elem = type_info[type].size;
  const gdouble threshold = threshold_for (type);
  const gint64 start = g_get_monotonic_time ();
  g_autoptr (GPtrArray) specs = builtin_specs ();
  guint8 *data = g_malloc (LARGEST * elem);
  Ref refs[G_N_ELEMENTS (sizes)];

  cr_test_fill_random (rand, type, data, LARGEST);
  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    reference (type, data, sizes[s], threshold, &refs[s]);
  /* The data must make count_gt count some elements, not all. */
  fail_unless (refs[G_N_ELEMENTS (sizes) - 1].greater > 0
      && refs[G_N_ELEMENTS (sizes) - 1].greater < LARGEST);

  for (guint m = 0; m < specs->len; m++) {
    const MonoidSpec *spec = g_ptr_array_index (specs, m);
    GstHarness *h = start_harness (
        spec, cr_test_tensor_caps (type, 1000), FALSE, threshold);

    for (guint s = 0; s < G_N_ELEMENTS (sizes); s++) {
      g_autofree gchar *what =
          g_strdup_printf ("%" G_GSIZE_FORMAT " elements", sizes[s]);
      push_and_check (
          h, spec, type, wrap (data, sizes[s] * elem), &refs[s], what);
    }
    /* Empty without any memory at all. */
    push_and_check (h, spec, type, gst_buffer_new (), &refs[0],
        "0 elements (a buffer without memory)");
    gst_harness_teardown (h);
  }
  g_free (data);
  g_print ("%s: %u monoids, %u buffers each, in %.1f s\n", type_info[type].name,
      specs->len, (guint)G_N_ELEMENTS (sizes) + 1,
      (g_get_monotonic_time () - start) / 1e6);
}

GST_START_TEST (test_builtins_8_16_bit)
{
  g_autoptr (GRand) rand = cr_test_rand ();
  const CrType types[] = { CR_TYPE_INT8, CR_TYPE_UINT8, CR_TYPE_INT16,
    CR_TYPE_UINT16 };
  for (guint t = 0; t < G_N_ELEMENTS (types); t++)
    check_builtins_on (rand, types[t]);
}

GST_END_TEST;

GST_START_TEST (test_builtins_32_64_bit)
{
  g_autoptr (GRand) rand = cr_test_rand ();
  const CrType types[] = { CR_TYPE_INT32, CR_TYPE_UINT32, CR_TYPE_INT64,
    CR_TYPE_UINT64 };
  for (guint t = 0; t < G_N_ELEMENTS (types); t++)
    check_builtins_on (rand, types[t]);
}

GST_END_TEST;

GST_START_TEST (test_builtins_float)
{
  g_autoptr (GRand) rand = cr_test_rand ();
  const CrType types[] = { CR_TYPE_FLOAT32, CR_TYPE_FLOAT64 };
  for (guint t = 0; t < G_N_ELEMENTS (types); t++)
    check_builtins_on (rand, types[t]);
}

GST_END_TEST;

/* 2. Data that does not start on a 16-byte boundary (but on one of its
 * element size), whole and in small chunks. */

static const gsize unaligned_sizes[] = { 33, 1000, (1 << 20) + 3 };

/* In elements; those under 16 bytes are used. */
static const gsize unaligned_offsets[] = { 1, 3, 7, 15 };

static const gchar *const unaligned_monoids[] = { "sum", "argmax", "minmax" };

typedef struct {
  const guint8 *data;
  gsize n;
  Ref ref;
  gchar *what;
} UnalignedCase;

static void
check_unaligned_on (GRand *rand, CrType type)
{
  const gsize elem = type_info[type].size;
  const gsize n_max = unaligned_sizes[G_N_ELEMENTS (unaligned_sizes) - 1]
      + G_N_ELEMENTS (unaligned_offsets) * 16;
  guint8 *raw = g_malloc (n_max * elem + 16);
  guint8 *base = raw + (16 - GPOINTER_TO_SIZE (raw) % 16) % 16;
  UnalignedCase
      cases[G_N_ELEMENTS (unaligned_offsets) * G_N_ELEMENTS (unaligned_sizes)];
  guint n_cases = 0;

  cr_test_fill_random (rand, type, base, n_max);
  for (guint o = 0; o < G_N_ELEMENTS (unaligned_offsets); o++) {
    const gsize offset = unaligned_offsets[o] * elem;
    if (offset >= 16)
      continue;
    for (guint s = 0; s < G_N_ELEMENTS (unaligned_sizes); s++) {
      UnalignedCase *c = &cases[n_cases++];
      c->data = base + offset;
      c->n = unaligned_sizes[s];
      fail_unless (GPOINTER_TO_SIZE (c->data) % 16 == offset);
      reference (type, c->data, c->n, 0, &c->ref);
      c->what = g_strdup_printf ("%" G_GSIZE_FORMAT
                                 " elements starting %" G_GSIZE_FORMAT
                                 " bytes past a 16-byte boundary",
          c->n, offset);
    }
  }
  fail_unless (n_cases > 0);

  for (guint m = 0; m < G_N_ELEMENTS (unaligned_monoids); m++) {
    const MonoidSpec *spec = find_spec (unaligned_monoids[m]);
    GstHarness *h;

    fail_unless (spec != NULL);
    h = start_harness (spec, cr_test_tensor_caps (type, 1000), FALSE, 0);
    for (guint chunked = 0; chunked < 2; chunked++) {
      /* Small chunks: many launches, each carrying the state of those
       * before it. */
      cr_test_set_chunk_bytes (chunked ? "4096" : NULL);
      for (guint c = 0; c < n_cases; c++) {
        g_autofree gchar *what = g_strdup_printf (
            "%s%s", cases[c].what, chunked ? ", in chunks of 4096 bytes" : "");
        push_and_check (h, spec, type, wrap (cases[c].data, cases[c].n * elem),
            &cases[c].ref, what);
      }
    }
    cr_test_set_chunk_bytes (NULL);
    gst_harness_teardown (h);
  }
  for (guint c = 0; c < n_cases; c++)
    g_free (cases[c].what);
  g_free (raw);
}

GST_START_TEST (test_unaligned)
{
  g_autoptr (GRand) rand = cr_test_rand ();
  const CrType types[] = { CR_TYPE_INT8, CR_TYPE_UINT8, CR_TYPE_INT16,
    CR_TYPE_UINT32, CR_TYPE_FLOAT32, CR_TYPE_INT64, CR_TYPE_FLOAT64 };
  for (guint t = 0; t < G_N_ELEMENTS (types); t++)
    check_unaligned_on (rand, types[t]);
}

GST_END_TEST;

/* 3. Video frames with row padding that would change every result if it
 * were read: visible pixels lie in [1, largest - 1], and the padding holds 0
 * in some frames, the largest value in others. */

static const gchar *const video_monoids[] = { "sum", "min", "max", "minmax",
  "argmax" };

typedef struct {
  guint8 *bytes;
  gsize size;
  gboolean meta;
  gsize offset; /* of the first row, given by the video meta */
  gint stride;
  Ref ref;
  gchar *what;
} Frame;

static void
make_frame (Frame *f, GRand *rand, const gchar *format, CrType type, gint width,
    gint height, gboolean meta, gsize offset, gint stride, guint8 pad)
{
  const gsize bpp = type_info[type].size;
  const guint32 largest = bpp == 1 ? G_MAXUINT8 : G_MAXUINT16;
  g_autofree guint8 *visible = g_malloc ((gsize)width * height * bpp);

  f->meta = meta;
  f->offset = offset;
  f->stride = stride;
  f->size = offset + (gsize)stride * height;
  f->bytes = g_malloc (f->size);
  memset (f->bytes, pad, f->size);
  for (gint row = 0; row < height; row++) {
    for (gint col = 0; col < width; col++) {
      const guint32 v = (guint32)g_rand_int_range (rand, 1, largest);
      const gsize k = (gsize)row * width + col;
      guint8 *dst = f->bytes + offset + (gsize)row * stride + col * bpp;
      if (bpp == 1) {
        visible[k] = (guint8)v;
        *dst = (guint8)v;
      } else {
        const guint16 native = (guint16)v, le = GUINT16_TO_LE (native);
        memcpy (visible + 2 * k, &native, 2);
        memcpy (dst, &le, 2);
      }
    }
  }
  /* Indices count visible pixels only, row-major. */
  reference (type, visible, (gsize)width * height, 0, &f->ref);
  g_autofree gchar *layout = meta
      ? g_strdup_printf (
          " and offset %" G_GSIZE_FORMAT " from a video meta", offset)
      : g_strdup (" (the default)");
  f->what =
      g_strdup_printf ("%s %dx%d frame, stride %d%s, padding bytes 0x%02x",
          format, width, height, stride, layout, pad);
}

static void
check_video (
    GRand *rand, const gchar *format, CrType type, gint width, gint height)
{
  const gsize bpp = type_info[type].size;
  const gint row = width * bpp;
  GstCaps *caps = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
      format, "width", G_TYPE_INT, width, "height", G_TYPE_INT, height,
      "framerate", GST_TYPE_FRACTION, 30, 1, NULL);
  GstVideoInfo info;

  fail_unless (gst_video_info_from_caps (&info, caps));
  const gint default_stride = GST_VIDEO_INFO_PLANE_STRIDE (&info, 0);
  fail_unless (default_stride > row,
      "test setup: %s frames %d wide have no row padding", format, width);
  fail_unless (GST_VIDEO_INFO_SIZE (&info) == (gsize)default_stride * height);

  const struct {
    gboolean meta;
    gsize offset;
    gint stride;
  } layouts[] = {
    { FALSE, 0, default_stride },
    { TRUE, 0, row + 64 },
    /* A stride that is no multiple of 4, rows that start anywhere. */
    { TRUE, 7 * bpp, row + 3 * bpp },
  };
  const guint8 pads[] = { 0xff, 0x00 };
  Frame frames[G_N_ELEMENTS (layouts) * G_N_ELEMENTS (pads)];
  guint n_frames = 0;

  for (guint l = 0; l < G_N_ELEMENTS (layouts); l++)
    for (guint p = 0; p < G_N_ELEMENTS (pads); p++)
      make_frame (&frames[n_frames++], rand, format, type, width, height,
          layouts[l].meta, layouts[l].offset, layouts[l].stride, pads[p]);

  for (guint m = 0; m < G_N_ELEMENTS (video_monoids); m++) {
    const MonoidSpec *spec = find_spec (video_monoids[m]);
    GstHarness *h;

    fail_unless (spec != NULL);
    h = start_harness (spec, gst_caps_ref (caps), FALSE, 0);
    for (guint chunked = 0; chunked < 2; chunked++) {
      /* Small chunks: a few rows, or a single one, per launch. */
      cr_test_set_chunk_bytes (chunked ? "256" : NULL);
      for (guint f = 0; f < n_frames; f++) {
        const Frame *frame = &frames[f];
        GstBuffer *buf = wrap (frame->bytes, frame->size);
        g_autofree gchar *what = g_strdup_printf (
            "%s%s", frame->what, chunked ? ", in chunks of 256 bytes" : "");
        if (frame->meta) {
          gsize offsets[GST_VIDEO_MAX_PLANES] = { frame->offset };
          gint strides[GST_VIDEO_MAX_PLANES] = { frame->stride };
          fail_unless (
              gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
                  GST_VIDEO_INFO_FORMAT (&info), width, height, 1, offsets,
                  strides)
              != NULL);
        }
        push_and_check (h, spec, type, buf, &frame->ref, what);
      }
    }
    cr_test_set_chunk_bytes (NULL);
    gst_harness_teardown (h);
  }
  for (guint f = 0; f < n_frames; f++) {
    g_free (frames[f].bytes);
    g_free (frames[f].what);
  }
  gst_caps_unref (caps);
}

GST_START_TEST (test_video_padding)
{
  g_autoptr (GRand) rand = cr_test_rand ();

  /* Odd widths: the default stride rounds each row up to 4 bytes. */
  check_video (rand, "GRAY8", CR_TYPE_UINT8, 33, 17);
  check_video (rand, "GRAY8", CR_TYPE_UINT8, 641, 480);
  check_video (rand, "GRAY16_LE", CR_TYPE_UINT16, 33, 17);
  check_video (rand, "GRAY16_LE", CR_TYPE_UINT16, 641, 480);
}

GST_END_TEST;

/* 4. Tensor output: one memory per result field, of that field's type,
 * with the input's timestamps, under caps that list the fields' types. */

static const gsize tensor_sizes[] = { 0, 1000, (1 << 20) + 3 };

static void
check_tensor_caps (GstHarness *h, const MonoidSpec *spec, CrType in)
{
  GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
  g_autoptr (GString) types = g_string_new (NULL);
  g_autoptr (GString) dims = g_string_new (NULL);

  fail_unless (caps != NULL, "monoid %s, %s input: no caps on the source pad",
      spec->name, type_info[in].name);
  for (guint f = 0; f < spec->n_fields; f++) {
    g_string_append_printf (types, "%s%s", f ? "," : "",
        type_info[field_type (spec->fields[f].kind, in)].name);
    g_string_append_printf (dims, "%s1", f ? "," : "");
  }

  g_autofree gchar *text = gst_caps_to_string (caps);
  const GstStructure *s = gst_caps_get_structure (caps, 0);
  gint num_tensors = -1, rate_n = -1, rate_d = -1;
  fail_unless (gst_caps_is_fixed (caps)
          && gst_structure_has_name (s, "other/tensors")
          && g_strcmp0 (gst_structure_get_string (s, "format"), "static") == 0
          && gst_structure_get_int (s, "num_tensors", &num_tensors)
          && num_tensors == (gint)spec->n_fields
          && g_strcmp0 (gst_structure_get_string (s, "types"), types->str) == 0
          && g_strcmp0 (gst_structure_get_string (s, "dimensions"), dims->str)
              == 0,
      "monoid %s, %s input: output caps %s, expected other/tensors, "
      "format=static, num_tensors=%u, types=%s, dimensions=%s",
      spec->name, type_info[in].name, text, spec->n_fields, types->str,
      dims->str);
  /* The input's framerate: cr_test_tensor_caps gives 0/1. */
  fail_unless (gst_structure_get_fraction (s, "framerate", &rate_n, &rate_d)
          && rate_n == 0 && rate_d == 1,
      "monoid %s, %s input: output caps %s, expected framerate=0/1", spec->name,
      type_info[in].name, text);
  gst_caps_unref (caps);
}

static void
push_and_check_tensor (GstHarness *h, const MonoidSpec *spec, CrType in,
    GstBuffer *buf, const Ref *ref, const gchar *what)
{
  const GstClockTime pts = GST_BUFFER_PTS (buf);
  const GstClockTime duration = GST_BUFFER_DURATION (buf);
  g_autofree gchar *tensor_what = g_strdup_printf ("%s, output=tensor", what);

  GstStructure *result = push_for_result (h, spec, in, buf, tensor_what);
  check_message (result, spec, in, ref, tensor_what);
  gst_structure_free (result);

  GstBuffer *out = gst_harness_pull (h);
  fail_unless (out != NULL, "monoid %s, %s input, %s: no tensor buffer",
      spec->name, type_info[in].name, tensor_what);
  fail_unless (
      GST_BUFFER_PTS (out) == pts && GST_BUFFER_DURATION (out) == duration,
      "monoid %s, %s input, %s: tensor timestamps %" GST_TIME_FORMAT
      " + %" GST_TIME_FORMAT ", expected %" GST_TIME_FORMAT
      " + %" GST_TIME_FORMAT,
      spec->name, type_info[in].name, tensor_what,
      GST_TIME_ARGS (GST_BUFFER_PTS (out)),
      GST_TIME_ARGS (GST_BUFFER_DURATION (out)), GST_TIME_ARGS (pts),
      GST_TIME_ARGS (duration));
  fail_unless (gst_buffer_n_memory (out) == spec->n_fields,
      "monoid %s, %s input, %s: %u memories, expected one per result field "
      "(%u)",
      spec->name, type_info[in].name, tensor_what, gst_buffer_n_memory (out),
      spec->n_fields);
  for (guint f = 0; f < spec->n_fields; f++) {
    GstMemory *mem = gst_buffer_peek_memory (out, f);
    GstMapInfo map;
    Expect e;

    expect_field (&spec->fields[f], in, ref, &e);
    fail_unless (gst_memory_map (mem, &map, GST_MAP_READ));
    fail_unless (map.size == type_info[e.type].size,
        "monoid %s, %s input, %s: tensor %u (%s) has %" G_GSIZE_FORMAT
        " bytes, expected one %s (%" G_GSIZE_FORMAT ")",
        spec->name, type_info[in].name, tensor_what, f, e.name, map.size,
        type_info[e.type].name, type_info[e.type].size);
    Num got = num_from_bytes (e.type, map.data);
    gst_memory_unmap (mem, &map);
    check_value (spec, in, tensor_what, &e, got);
  }
  gst_buffer_unref (out);
  check_tensor_caps (h, spec, in);
}

static void
check_tensor_output_on (GRand *rand, CrType type)
{
  const gsize elem = type_info[type].size;
  const gsize n_max = tensor_sizes[G_N_ELEMENTS (tensor_sizes) - 1];
  const gdouble threshold = threshold_for (type);
  g_autoptr (GPtrArray) specs = builtin_specs ();
  guint8 *data = g_malloc (n_max * elem);
  Ref refs[G_N_ELEMENTS (tensor_sizes)];

  cr_test_fill_random (rand, type, data, n_max);
  for (guint s = 0; s < G_N_ELEMENTS (tensor_sizes); s++)
    reference (type, data, tensor_sizes[s], threshold, &refs[s]);

  for (guint m = 0; m < specs->len; m++) {
    const MonoidSpec *spec = g_ptr_array_index (specs, m);
    GstHarness *h =
        start_harness (spec, cr_test_tensor_caps (type, 1000), TRUE, threshold);

    for (guint s = 0; s < G_N_ELEMENTS (tensor_sizes); s++) {
      g_autofree gchar *what =
          g_strdup_printf ("%" G_GSIZE_FORMAT " elements", tensor_sizes[s]);
      GstBuffer *buf = wrap (data, tensor_sizes[s] * elem);
      GST_BUFFER_PTS (buf) = s * GST_SECOND;
      GST_BUFFER_DURATION (buf) = GST_SECOND;
      push_and_check_tensor (h, spec, type, buf, &refs[s], what);
    }
    gst_harness_teardown (h);
  }
  g_free (data);
}

GST_START_TEST (test_tensor_output)
{
  g_autoptr (GRand) rand = cr_test_rand ();

  check_tensor_output_on (rand, CR_TYPE_FLOAT32);
  check_tensor_output_on (rand, CR_TYPE_INT16);
}

GST_END_TEST;

static const CrTestCase cases[] = {
  CR_TEST_CASE (test_builtins_8_16_bit),
  CR_TEST_CASE (test_builtins_32_64_bit),
  CR_TEST_CASE (test_builtins_float),
  CR_TEST_CASE (test_unaligned),
  CR_TEST_CASE (test_video_padding),
  CR_TEST_CASE (test_tensor_output),
  { NULL },
};

static int
setup (void)
{
  /* Staging chunks are 1 MiB there (meson.build): still several. */
  if (g_getenv ("CUDAREDUCE_UNDER_SANITIZER"))
    sizes[G_N_ELEMENTS (sizes) - 1] = (4 << 20) + 5;
  return 0;
}

static const CrGpuTest gpu_builtins = {
  .name = "gpu-builtins",
  .timeout = 900,
  .setup = setup,
  .cases = cases,
};

CR_TEST_GPU_MAIN (gpu_builtins);
