/* test-bins.c: monoids with bins, on the CPU: Bins, Bin, Percentiles and
 * Pair parsed and refused, the bins and percentiles properties, the ranges
 * packed, the results' layout and the generated source. No GPU and no
 * NVRTC needed. */
#include "cr-test-monoid.h"
#include "cr-test-util.h"

#include "cr-error.h"
#include "cr-program.h"

#include <math.h>
#include <string.h>

#define COUNTS_ONLY "[Monoid]\nName=h\nBins=%s\nContext=lo:float64;hi:float64\n"

/* Bins: a number from 1 to CR_BINS_MAX; a monoid may only count, or
 * count besides its accumulator; the range comes from lo and hi. */
GST_START_TEST (test_bins)
{
  g_autofree gchar *ok = g_strdup_printf (COUNTS_ONLY, " 64 ");
  g_autoptr (CrMonoid) m = cr_test_parse_monoid (ok);
  fail_unless_equals_int (m->bins, 64);
  fail_if (cr_monoid_has_accumulator (m));
  fail_unless (m->load == NULL && m->combine == NULL && m->identity == NULL);

  g_autofree gchar *both = g_strconcat (cr_test_good_monoid, "Bins=8\n", NULL);
  g_autoptr (CrMonoid) with = cr_test_parse_monoid (both);
  fail_unless_equals_int (with->bins, 8);
  fail_unless (cr_monoid_has_accumulator (with));

  static const gchar *const bad[] = { "0", "65537", "-1", "abc", "1.5",
    "99999999999999999999" };
  for (guint k = 0; k < G_N_ELEMENTS (bad); k++) {
    g_autofree gchar *data = g_strdup_printf (COUNTS_ONLY, bad[k]);
    cr_test_assert_rejected (
        data, CR_ERROR_MONOID_INVALID, "whole number from 1 to");
  }
  /* No range to be even over. */
  cr_test_assert_rejected ("[Monoid]\nBins=4\n", CR_ERROR_FIELDS, "lo and hi");
  cr_test_assert_rejected ("[Monoid]\nBins=4\nContext=lo:float64;hi:int32\n",
      CR_ERROR_FIELDS, "as float64");
  /* Counting only, or a whole monoid: not half of one. */
  g_autofree gchar *half =
      g_strdup_printf (COUNTS_ONLY "Load=return {};\n", "4");
  cr_test_assert_rejected (half, CR_ERROR_MONOID_INVALID, "Accumulator");
  g_autofree gchar *partial = cr_test_edit_monoid ("Combine", NULL);
  g_autofree gchar *partial_bins = g_strconcat (partial, "Bins=4\n", NULL);
  cr_test_assert_rejected (partial_bins, CR_ERROR_MONOID_INVALID, "Combine");
  /* The counts' names are taken. */
  g_autofree gchar *taken = g_strdup_printf (COUNTS_ONLY
      "Accumulator=below:uint64\nLoad=Acc r; r.below = 0; return r;\n"
      "Combine=return a;\nIdentity=Acc r; r.below = 0; return r;\n",
      "4");
  cr_test_assert_rejected (taken, CR_ERROR_FIELDS, "taken by the counts");

  /* The bins property: another number, never on a monoid without bins. */
  g_autoptr (GError) error = NULL;
  g_autoptr (CrMonoid) more = cr_monoid_with_bins (m, 4096, &error);
  fail_unless (more != NULL && more->bins == 4096 && m->bins == 64);
  g_autoptr (CrMonoid) sum = cr_monoid_load ("sum", &error);
  fail_if (cr_monoid_with_bins (sum, 8, &error));
  fail_unless (strstr (error->message, "counts no bins") != NULL);
  g_clear_error (&error);
  fail_if (cr_monoid_with_bins (m, CR_BINS_MAX + 1, &error));
  g_clear_error (&error);

  /* Fused: one member counts, and its counts keep their names; two
   * histograms are refused. */
  g_autoptr (CrMonoid) fused = cr_monoid_load ("sum+histogram", &error);
  fail_unless (fused != NULL, "%s", error ? error->message : "");
  fail_unless_equals_int (fused->bins, 256);
  fail_unless_equals_string (fused->bins_label, "histogram");
  g_autoptr (CrProgram) fp = cr_program_new (fused, CR_TYPE_INT16);
  fail_unless_equals_string (fp->out.names[1], "histogram");
  fail_unless (strstr (fp->source, "#define CR_WITH_BINNED 1\n") != NULL);
  fail_unless (
      strstr (fp->source, "#define CR_BIN_CTX(ctx) cr_m1_ctx (ctx)\n") != NULL);
  fail_if (cr_monoid_load ("histogram+h2=histogram", &error));
  fail_unless (
      strstr (error->message, "both count bins") != NULL, "%s", error->message);
}

GST_END_TEST;

/* A monoid with bins: its results as the host reads them, after the
 * monoid's own, and the kernels' layout turned into them. */
GST_START_TEST (test_bins_layout)
{
  g_autofree gchar *both = g_strconcat (cr_test_good_monoid, "Bins=5\n", NULL);
  g_autoptr (CrMonoid) m = cr_test_parse_monoid (both);
  g_autoptr (CrProgram) p = cr_program_new (m, CR_TYPE_UINT8);
  const CrLayout *out = &p->out;
  fail_unless_equals_int (out->n_fields, 5);
  fail_unless_equals_int (p->bins_field, 1);
  static const gchar *const names[] = { "inside", "histogram", "below", "above",
    "nan" };
  static const gsize offsets[] = { 0, 8, 48, 56, 64 };
  for (guint f = 0; f < 5; f++) {
    fail_unless_equals_string (out->names[f], names[f]);
    fail_unless_equals_int (out->offsets[f], offsets[f]);
    fail_unless_equals_int (out->lengths[f], f == 1 ? 5 : 1);
    fail_unless_equals_int (out->arrays[f], f == 1);
  }
  fail_unless_equals_int (out->size, 72);
  fail_unless (strstr (p->source, "#define CR_BINS 5\n") != NULL);

  /* Three channels as the kernels leave them: every Out (8 bytes), then
   * every channel's 8 counters. */
  const guint channels = 3, slots = 8;
  guint8 device[3 * 8 + 3 * 8 * 8];
  for (guint c = 0; c < channels; c++) {
    const guint64 inside = 100 + c;
    memcpy (device + c * 8, &inside, 8);
    for (guint k = 0; k < slots; k++) {
      const guint64 n = c * 1000 + k;
      memcpy (device + 24 + (c * slots + k) * 8, &n, 8);
    }
  }
  guint8 values[3 * 72];
  cr_program_unpack (p, channels, device, values);
  for (guint c = 0; c < channels; c++) {
    guint64 got;
    memcpy (&got, values + c * 72, 8);
    fail_unless_equals_uint64 (got, 100 + c);
    for (guint k = 0; k < slots; k++) {
      memcpy (&got, values + c * 72 + 8 + k * 8, 8);
      fail_unless_equals_uint64 (got, c * 1000 + k);
    }
  }
}

GST_END_TEST;

/* lo and hi: an integer type's whole range by default; what each input
 * type accepts. */
GST_START_TEST (test_bins_range)
{
  g_autofree gchar *text = g_strdup_printf (COUNTS_ONLY, "256");
  g_autoptr (CrMonoid) m = cr_test_parse_monoid (text);
  const struct {
    CrType type;
    gdouble lo, hi;
    gdouble want_lo, want_hi; /* NAN: refused */
    const gchar *says;
  } cases[] = {
    { CR_TYPE_UINT8, 0, 0, 0, 256, NULL },
    { CR_TYPE_INT8, 0, 0, -128, 128, NULL },
    { CR_TYPE_INT16, 0, 0, -32768, 32768, NULL },
    { CR_TYPE_UINT32, 0, 0, 0, 4294967296.0, NULL },
    { CR_TYPE_INT32, -10, 10, -10, 10, NULL },
    { CR_TYPE_UINT8, 10, 10, NAN, NAN, "whole numbers" },
    { CR_TYPE_UINT8, 0, 257, NAN, NAN, "whole numbers" },
    { CR_TYPE_UINT8, -1, 10, NAN, NAN, "whole numbers" },
    { CR_TYPE_INT16, 0.5, 10, NAN, NAN, "whole numbers" },
    { CR_TYPE_INT64, 0, 0, NAN, NAN, "need a range" },
    { CR_TYPE_INT64, -512, 512, -512, 512, NULL },
    { CR_TYPE_UINT64, 0, 1000, NAN, NAN, "divide" },
    { CR_TYPE_INT64, 0, 1e17, NAN, NAN, "whole numbers" },
    { CR_TYPE_FLOAT32, 0, 0, NAN, NAN, "need a range" },
    { CR_TYPE_FLOAT64, 1, -1, NAN, NAN, "need a range" },
    { CR_TYPE_FLOAT64, -INFINITY, 1, NAN, NAN, "need a range" },
    { CR_TYPE_FLOAT32, -1, 1, -1, 1, NULL },
  };
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++) {
    g_autoptr (CrProgram) p = cr_program_new (m, cases[k].type);
    g_autoptr (GHashTable) values = g_hash_table_new_full (
        g_str_hash, g_str_equal, NULL, (GDestroyNotify)g_free);
    GValue *lo = g_new0 (GValue, 1), *hi = g_new0 (GValue, 1);
    g_value_set_double (g_value_init (lo, G_TYPE_DOUBLE), cases[k].lo);
    g_value_set_double (g_value_init (hi, G_TYPE_DOUBLE), cases[k].hi);
    g_hash_table_insert (values, "lo", lo);
    g_hash_table_insert (values, "hi", hi);
    guint8 ctx[16];
    g_autoptr (GError) error = NULL;
    const gboolean ok = cr_program_pack_context (p, 0, values, ctx, &error);
    if (isnan (cases[k].want_lo)) {
      fail_if (ok, "case %u accepted", k);
      fail_unless (strstr (error->message, cases[k].says) != NULL,
          "case %u: %s", k, error->message);
      continue;
    }
    fail_unless (ok, "case %u: %s", k, error ? error->message : "");
    gdouble got_lo, got_hi;
    memcpy (&got_lo, ctx + p->ctx.offsets[cr_layout_find (&p->ctx, "lo")], 8);
    memcpy (&got_hi, ctx + p->ctx.offsets[cr_layout_find (&p->ctx, "hi")], 8);
    fail_unless (got_lo == cases[k].want_lo && got_hi == cases[k].want_hi,
        "case %u: %g..%g", k, got_lo, got_hi);
  }
}

GST_END_TEST;

/* The points of percentile field @k of @m. */
static const GArray *
points_of (const CrMonoid *m, guint k)
{
  return g_array_index (m->percentiles, CrPercentiles, k).points;
}

/* Percentiles=name:p;name:p,p,...: a field each, of one value or (several
 * points) an array; the points are exact. */
GST_START_TEST (test_percentiles_parsed)
{
  g_autofree gchar *text = g_strdup_printf (COUNTS_ONLY
      "Percentiles= low:0.1 ; high : 0.9;deciles:0.1,0.2, 0.3;all:0,1\n",
      "256");
  g_autoptr (CrMonoid) m = cr_test_parse_monoid (text);
  fail_unless_equals_int (m->percentiles->len, 4);
  static const gchar *const names[] = { "low", "high", "deciles", "all" };
  static const guint lengths[] = { 1, 1, 3, 2 };
  for (guint k = 0; k < 4; k++) {
    const CrPercentiles *p = &g_array_index (m->percentiles, CrPercentiles, k);
    fail_unless_equals_string (p->name, names[k]);
    fail_unless_equals_int (p->points->len, lengths[k]);
    fail_unless_equals_int (p->array, lengths[k] > 1);
  }
  fail_unless (g_array_index (points_of (m, 0), gdouble, 0) == 0.1);
  fail_unless (g_array_index (points_of (m, 2), gdouble, 2) == 0.3);
  fail_unless (g_array_index (points_of (m, 3), gdouble, 1) == 1.0);
  g_autoptr (GArray) all = cr_monoid_percentile_points (m);
  fail_unless_equals_int (all->len, 7);
  fail_unless (g_array_index (all, gdouble, 4) == 0.3);

  /* The built-in signalstats: FFmpeg's low and high. */
  g_autoptr (GError) error = NULL;
  g_autoptr (CrMonoid) stats = cr_monoid_load ("signalstats", &error);
  fail_unless (stats != NULL, "%s", error ? error->message : "");
  fail_unless_equals_int (stats->bins, 256);
  fail_unless_equals_int (stats->percentiles->len, 2);
  fail_unless (g_array_index (points_of (stats, 0), gdouble, 0) == 0.1);
  fail_unless (g_array_index (points_of (stats, 1), gdouble, 0) == 0.9);
}

GST_END_TEST;

/* What Percentiles refuses, and why. */
GST_START_TEST (test_percentiles_refused)
{
  const struct {
    const gchar *line;
    gint code;
    const gchar *says;
  } cases[] = {
    { "Percentiles=low", CR_ERROR_MONOID_INVALID, "has no points" },
    { "Percentiles=low:", CR_ERROR_MONOID_INVALID, "has no points" },
    { "Percentiles=low:0.1,", CR_ERROR_MONOID_INVALID, "is not a number" },
    { "Percentiles=low:ten", CR_ERROR_MONOID_INVALID, "is not a number" },
    { "Percentiles=low:0.1x", CR_ERROR_MONOID_INVALID, "is not a number" },
    { "Percentiles=low:10", CR_ERROR_MONOID_INVALID, "not from 0 to 1" },
    { "Percentiles=low:-0.1", CR_ERROR_MONOID_INVALID, "not from 0 to 1" },
    { "Percentiles=low:nan", CR_ERROR_MONOID_INVALID, "not from 0 to 1" },
    { "Percentiles=low:0.1;low:0.2", CR_ERROR_FIELDS, "another percentile" },
    { "Percentiles=histogram:0.5", CR_ERROR_FIELDS, "counts of the bins" },
    { "Percentiles=inside:0.5", CR_ERROR_FIELDS, "result field" },
    { "Percentiles=count:0.5", CR_ERROR_FIELDS, "bus message" },
    { "Percentiles=2low:0.5", CR_ERROR_FIELDS, "not a usable field name" },
    { "Percentiles=cr_low:0.5", CR_ERROR_FIELDS, "starts with cr_" },
  };
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++) {
    g_autofree gchar *text =
        g_strdup_printf ("%sBins=16\n%s\n", cr_test_good_monoid, cases[k].line);
    cr_test_assert_rejected (text, cases[k].code, cases[k].says);
  }
  /* No bins to read them from. */
  g_autofree gchar *no_bins =
      g_strconcat (cr_test_good_monoid, "Percentiles=low:0.1\n", NULL);
  cr_test_assert_rejected (no_bins, CR_ERROR_MONOID_INVALID, "set Bins");
  /* More points than a monoid reports. */
  GString *many = g_string_new ("Percentiles=many:0");
  for (guint k = 0; k < CR_PERCENTILES_MAX; k++)
    g_string_append (many, ",0.5");
  g_autofree gchar *too_many =
      g_strdup_printf (COUNTS_ONLY "%s\n", "8", many->str);
  g_string_free (many, TRUE);
  cr_test_assert_rejected (too_many, CR_ERROR_MONOID_INVALID, "at most");
}

GST_END_TEST;

/* The percentiles property: an array field after the monoid's own, only
 * on a monoid with bins, points from 0 to 1. */
GST_START_TEST (test_percentiles_property)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CrMonoid) stats = cr_monoid_load ("signalstats", &error);
  g_autoptr (GArray) points = g_array_new (FALSE, FALSE, sizeof (gdouble));
  const gdouble some[] = { 0.5, 0.99, 0.01 };
  g_array_append_vals (points, some, G_N_ELEMENTS (some));
  g_autoptr (CrMonoid) with =
      cr_monoid_with_percentiles (stats, points, &error);
  fail_unless (with != NULL, "%s", error ? error->message : "");
  fail_unless_equals_int (with->percentiles->len, 3);
  fail_unless_equals_int (stats->percentiles->len, 2);
  const CrPercentiles *added =
      &g_array_index (with->percentiles, CrPercentiles, 2);
  fail_unless_equals_string (added->name, CR_PERCENTILES_FIELD);
  fail_unless (added->array && added->points->len == 3);
  g_autoptr (GArray) all = cr_monoid_percentile_points (with);
  const gdouble want[] = { 0.1, 0.9, 0.5, 0.99, 0.01 };
  fail_unless_equals_int (all->len, G_N_ELEMENTS (want));
  for (guint k = 0; k < G_N_ELEMENTS (want); k++)
    fail_unless (g_array_index (all, gdouble, k) == want[k]);
  /* One point is still an array. */
  g_array_set_size (points, 1);
  g_autoptr (CrMonoid) one = cr_monoid_with_percentiles (stats, points, &error);
  fail_unless (g_array_index (one->percentiles, CrPercentiles, 2).array);

  g_autoptr (CrMonoid) sum = cr_monoid_load ("sum", &error);
  fail_if (cr_monoid_with_percentiles (sum, points, &error));
  fail_unless (strstr (error->message, "counts no bins") != NULL);
  g_clear_error (&error);
  g_array_index (points, gdouble, 0) = 1.5;
  fail_if (cr_monoid_with_percentiles (stats, points, &error));
  fail_unless (strstr (error->message, "not from 0 to 1") != NULL);
  g_clear_error (&error);
  /* A monoid whose own field is named like the property's. */
  g_autofree gchar *text =
      g_strdup_printf (COUNTS_ONLY "Percentiles=percentiles:0.5\n", "8");
  g_autoptr (CrMonoid) named = cr_test_parse_monoid (text);
  g_array_index (points, gdouble, 0) = 0.5;
  fail_if (cr_monoid_with_percentiles (named, points, &error));
  fail_unless (
      strstr (error->message, "already") != NULL, "%s", error->message);
}

GST_END_TEST;

/* Bin: each value's bin from a body, with Bins and without lo and hi; the
 * source has it as cr_bin, and no range is packed for it. */
GST_START_TEST (test_bin_body)
{
  const gchar *text = "[Monoid]\nName=parity\nBins=2\n"
                      "Bin=return x % 2;\nPercentiles=median:0.5\n";
  g_autoptr (CrMonoid) m = cr_test_parse_monoid (text);
  fail_unless_equals_string (m->bin, "return x % 2;");
  fail_if (cr_monoid_has_accumulator (m));
  g_autoptr (CrProgram) p = cr_program_new (m, CR_TYPE_INT32);
  fail_unless (strstr (p->source, "#define CR_BIN_BODY 1\n") != NULL);
  fail_unless (strstr (p->source,
                   "long long cr_bin (const In x, const unsigned long long "
                   "i, const Ctx &ctx)\n{\n/* Bin: */\nreturn x % 2;\n")
      != NULL);
  guint8 ctx[8];
  g_autoptr (GError) error = NULL;
  fail_unless (cr_program_pack_context (p, 0, NULL, ctx, &error), "%s",
      error ? error->message : "");

  /* Even bins have no body. */
  g_autofree gchar *even = g_strdup_printf (COUNTS_ONLY, "4");
  g_autoptr (CrMonoid) e = cr_test_parse_monoid (even);
  g_autoptr (CrProgram) q = cr_program_new (e, CR_TYPE_INT32);
  fail_unless (strstr (q->source, "#define CR_BIN_BODY 0\n") != NULL);
  fail_unless (strstr (q->source, "long long cr_bin (") == NULL);

  g_autofree gchar *no_bins =
      g_strconcat (cr_test_good_monoid, "Bin=return 0;\n", NULL);
  cr_test_assert_rejected (no_bins, CR_ERROR_MONOID_INVALID, "set Bins");
  cr_test_assert_rejected (
      "[Monoid]\nBins=2\nBin=#include <x.h>\n", CR_ERROR_MONOID_INVALID, "Bin");
  /* An inline monoid: bin and bins, the bodies as the properties give
   * them. */
  const CrMonoidText inline_text = { .bins = "3", .bin = "return x;" };
  g_autoptr (CrMonoid) in = cr_monoid_new (&inline_text, "props", &error);
  fail_unless (in != NULL && in->bins == 3, "%s", error ? error->message : "");
}

GST_END_TEST;

/* signalstats' results as the host reads them: its own fields, the counts,
 * then low and high; the kernels' layout (every Out, every channel's
 * counts, every channel's percentiles) turned into them; the points in the
 * source exactly. */
GST_START_TEST (test_percentiles_layout)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CrMonoid) m = cr_monoid_load ("signalstats", &error);
  g_autoptr (CrProgram) p = cr_program_new (m, CR_TYPE_UINT8);
  const CrLayout *out = &p->out;
  static const gchar *const names[] = { "min", "max", "avg", "histogram",
    "below", "above", "nan", "low", "high" };
  /* min, max: uint8; avg from 8; the counts from 16. */
  static const gsize offsets[] = { 0, 1, 8, 16, 16 + 256 * 8, 16 + 257 * 8,
    16 + 258 * 8, 16 + 259 * 8, 16 + 260 * 8 };
  fail_unless_equals_int (out->n_fields, G_N_ELEMENTS (names));
  for (guint f = 0; f < G_N_ELEMENTS (names); f++) {
    fail_unless_equals_string (out->names[f], names[f]);
    fail_unless_equals_int (out->offsets[f], offsets[f]);
    fail_unless_equals_int (out->arrays[f], f == 3);
    fail_unless_equals_int (out->lengths[f], f == 3 ? 256 : 1);
  }
  fail_unless_equals_int (out->types[7], CR_TYPE_FLOAT64);
  fail_unless_equals_int (out->size, 16 + 261 * 8);
  fail_unless_equals_int (p->n_points, 2);
  fail_unless (strstr (p->source,
                   "#define CR_PERCENTILES 2\nstatic __device__ const double "
                   "cr_percentile_points[] = { 0.10000000000000001, "
                   "0.90000000000000002 };\n")
      != NULL);

  /* Two channels as the kernels leave them. */
  const guint channels = 2, slots = 259;
  const gsize out_bytes = p->out_device.size; /* 16 */
  const gsize device_bytes =
      channels * out_bytes + channels * slots * 8 + channels * 2 * 8;
  g_autofree guint8 *device = g_malloc0 (device_bytes);
  for (guint c = 0; c < channels; c++) {
    device[c * out_bytes] = (guint8)(10 + c);
    for (guint k = 0; k < slots; k++) {
      const guint64 n = c * 1000 + k;
      memcpy (device + channels * out_bytes + (c * slots + k) * 8, &n, 8);
    }
    for (guint j = 0; j < 2; j++) {
      const gdouble v = c * 100 + j + 0.5;
      memcpy (device + channels * out_bytes + channels * slots * 8
              + (c * 2 + j) * 8,
          &v, 8);
    }
  }
  g_autofree guint8 *values = g_malloc0 (channels * out->size);
  cr_program_unpack (p, channels, device, values);
  for (guint c = 0; c < channels; c++) {
    const guint8 *v = values + c * out->size;
    fail_unless_equals_int (v[0], 10 + c);
    guint64 n;
    memcpy (&n, v + offsets[3] + 100 * 8, 8);
    fail_unless_equals_uint64 (n, c * 1000 + 100);
    memcpy (&n, v + offsets[6], 8);
    fail_unless_equals_uint64 (n, c * 1000 + 258);
    gdouble low, high;
    memcpy (&low, v + offsets[7], 8);
    memcpy (&high, v + offsets[8], 8);
    fail_unless (low == c * 100 + 0.5 && high == c * 100 + 1.5,
        "channel %u: %g, %g", c, low, high);
  }
}

GST_END_TEST;

/* Pair: two component names or indices, on a monoid that only counts in
 * at most 256 bins a side; what cannot be read off pairs is refused; the
 * pair property; the layout and source of bins x bins counters. */
GST_START_TEST (test_pairs)
{
  g_autofree gchar *text = g_strdup_printf (COUNTS_ONLY "Pair= u , v\n", "16");
  g_autoptr (CrMonoid) m = cr_test_parse_monoid (text);
  fail_unless (m->pair != NULL && g_strv_length (m->pair) == 2);
  fail_unless_equals_string (m->pair[0], "U");
  fail_unless_equals_string (m->pair[1], "V");
  fail_unless_equals_int (cr_monoid_total_bins (m), 256);
  g_autofree gchar *numbers = g_strdup_printf (COUNTS_ONLY "Pair=2,0\n", "8");
  g_autoptr (CrMonoid) n = cr_test_parse_monoid (numbers);
  fail_unless_equals_string (n->pair[0], "2");
  fail_unless_equals_string (n->pair[1], "0");

  static const gchar *const bad[] = { "U", "U,V,Y", "U,", "X,Y", "-1,2",
    "1.5,2", "" };
  for (guint k = 0; k < G_N_ELEMENTS (bad) - 1; k++) {
    g_autofree gchar *data =
        g_strdup_printf (COUNTS_ONLY "Pair=%s\n", "16", bad[k]);
    cr_test_assert_rejected (
        data, CR_ERROR_MONOID_INVALID, "is not a pair of components");
  }
  /* An empty Pair is none. */
  g_autofree gchar *empty = g_strdup_printf (COUNTS_ONLY "Pair=\n", "16");
  g_autoptr (CrMonoid) single = cr_test_parse_monoid (empty);
  fail_unless (single->pair == NULL);

  g_autofree gchar *wide = g_strdup_printf (COUNTS_ONLY "Pair=R,G\n", "257");
  cr_test_assert_rejected (wide, CR_ERROR_MONOID_INVALID, "at most 256 bins");
  cr_test_assert_rejected (
      "[Monoid]\nPair=R,G\n", CR_ERROR_MONOID_INVALID, "set Bins");
  cr_test_assert_rejected ("[Monoid]\nBins=4\nPair=R,G\nBin=return 0;\n",
      CR_ERROR_MONOID_INVALID, "leave Bin out");
  g_autofree gchar *points =
      g_strdup_printf (COUNTS_ONLY "Pair=R,G\nPercentiles=m:0.5\n", "4");
  cr_test_assert_rejected (points, CR_ERROR_MONOID_INVALID, "Percentiles");
  g_autofree gchar *folds =
      g_strconcat (cr_test_good_monoid, "Bins=4\nPair=R,G\n", NULL);
  cr_test_assert_rejected (folds, CR_ERROR_MONOID_INVALID, "only counts");

  /* The built-in, and the pair, bins and percentiles properties. */
  g_autoptr (GError) error = NULL;
  g_autoptr (CrMonoid) scope = cr_monoid_load ("vectorscope", &error);
  fail_unless (scope != NULL, "%s", error ? error->message : "");
  fail_unless_equals_int (scope->bins, 64);
  fail_unless_equals_string (scope->pair[0], "U");
  g_autoptr (CrMonoid) rg = cr_monoid_with_pair (scope, "R,G", &error);
  fail_unless (rg != NULL && strcmp (rg->pair[0], "R") == 0
      && strcmp (scope->pair[0], "U") == 0);
  g_autoptr (CrMonoid) h = cr_monoid_load ("histogram", &error);
  g_autoptr (CrMonoid) h2 = cr_monoid_with_pair (h, "0,1", &error);
  fail_unless (h2 != NULL && cr_monoid_total_bins (h2) == 65536);
  fail_if (cr_monoid_with_bins (scope, 257, &error));
  fail_unless (strstr (error->message, "2-D") != NULL, "%s", error->message);
  g_clear_error (&error);
  g_autoptr (CrMonoid) big = cr_monoid_with_bins (scope, 256, &error);
  fail_unless (big != NULL && cr_monoid_total_bins (big) == 65536);
  GArray *half = g_array_new (FALSE, FALSE, sizeof (gdouble));
  const gdouble p = 0.5;
  g_array_append_val (half, p);
  fail_if (cr_monoid_with_percentiles (scope, half, &error));
  fail_unless (strstr (error->message, "no percentiles") != NULL);
  g_clear_error (&error);
  g_array_unref (half);
  g_autoptr (CrMonoid) stats = cr_monoid_load ("signalstats", &error);
  fail_if (cr_monoid_with_pair (stats, "U,V", &error));
  g_clear_error (&error);
  g_autoptr (CrMonoid) sum = cr_monoid_load ("sum", &error);
  fail_if (cr_monoid_with_pair (sum, "U,V", &error));
  fail_unless (strstr (error->message, "set Bins") != NULL);
  g_clear_error (&error);
  fail_if (cr_monoid_with_pair (scope, "U;V", &error));
  g_clear_error (&error);

  /* No fusing. */
  fail_if (cr_monoid_load ("minmax+vectorscope", &error));
  fail_unless (
      strstr (error->message, "does not fuse") != NULL, "%s", error->message);
  g_clear_error (&error);
  g_autoptr (CrMonoid) fused = cr_monoid_load ("minmax+histogram", &error);
  fail_if (cr_monoid_with_pair (fused, "U,V", &error));
  g_clear_error (&error);

  /* bins x bins counts after none of its own; the pair kernel alone. */
  g_autoptr (CrProgram) prog = cr_program_new_with (scope, CR_TYPE_UINT8, 0);
  fail_unless_equals_int (prog->bins, 64 * 64);
  fail_unless_equals_int (prog->pair_bins, 64);
  fail_unless_equals_int (prog->bins_field, 0);
  fail_unless_equals_int (prog->out.lengths[0], 64 * 64);
  fail_unless (strstr (prog->source, "#define CR_BINS 4096\n") != NULL);
  fail_unless (strstr (prog->source, "#define CR_PAIR_BINS 64\n") != NULL);
  fail_unless (strstr (prog->source, "cr_histogram_pairs") != NULL);
  /* 64-bit input: each axis's bins divide the range. */
  guint8 ctx[16];
  const gdouble lo = 0, hi = 640;
  g_autoptr (GHashTable) values = g_hash_table_new (g_str_hash, g_str_equal);
  GValue lo_value = G_VALUE_INIT, hi_value = G_VALUE_INIT;
  g_value_init (&lo_value, G_TYPE_DOUBLE);
  g_value_init (&hi_value, G_TYPE_DOUBLE);
  g_value_set_double (&lo_value, lo);
  g_value_set_double (&hi_value, hi);
  g_hash_table_insert (values, (gpointer) "lo", &lo_value);
  g_hash_table_insert (values, (gpointer) "hi", &hi_value);
  g_autoptr (CrProgram) wide64 = cr_program_new (scope, CR_TYPE_INT64);
  fail_unless (cr_program_pack_context (wide64, 0, values, ctx, &error), "%s",
      error ? error->message : "");
  g_value_set_double (&hi_value, 650);
  fail_if (cr_program_pack_context (wide64, 0, values, ctx, &error));
  fail_unless (strstr (error->message, "64 bins do not divide") != NULL, "%s",
      error->message);
}

GST_END_TEST;

static Suite *
bins_suite (void)
{
  Suite *s = suite_create ("bins");
  TCase *tc = tcase_create ("bins");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_bins);
  tcase_add_test (tc, test_bins_layout);
  tcase_add_test (tc, test_bins_range);
  tcase_add_test (tc, test_percentiles_parsed);
  tcase_add_test (tc, test_percentiles_refused);
  tcase_add_test (tc, test_percentiles_property);
  tcase_add_test (tc, test_bin_body);
  tcase_add_test (tc, test_percentiles_layout);
  tcase_add_test (tc, test_pairs);
  return s;
}

GST_CHECK_MAIN (bins);
