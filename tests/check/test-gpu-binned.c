/* test-gpu-binned.c: monoids that fold an accumulator and count bins in
 * one pass (signalstats, a monoid file with both, fused monoids with a
 * histogram), against the CPU: one channel and 2, 4 and 8 packed (the
 * binned kernels), 3 (a second pass), chunks and intervals that carry both
 * the accumulator and the counts, and a Bin body with context in a fused
 * monoid. */
#include "cr-test-bins.h"
#include "cr-test-main.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

static GRand *rand_;

/* The statistics of int16 channel @c of @rows rows. */
typedef struct {
  gint64 min, max, sum;
  guint64 n;
} Stats;

static Stats
stats_of (
    const gint16 *data, guint channels, guint c, guint64 first, guint64 rows)
{
  Stats st = { G_MAXINT64, G_MININT64, 0, rows };
  for (guint64 r = first; r < first + rows; r++) {
    const gint64 x = data[r * channels + c];
    st.min = MIN (st.min, x);
    st.max = MAX (st.max, x);
    st.sum += x;
  }
  return st;
}

static gint
int_of (const GstStructure *s, const gchar *name, guint n, guint v)
{
  const GValue *value = cr_test_value_of (s, name, n, v);
  fail_unless (
      G_VALUE_HOLDS_INT (value), "%s is a %s", name, G_VALUE_TYPE_NAME (value));
  return g_value_get_int (value);
}

static gdouble
double_of (const GstStructure *s, const gchar *name, guint n, guint v)
{
  const GValue *value = cr_test_value_of (s, name, n, v);
  fail_unless (G_VALUE_HOLDS_DOUBLE (value), "%s is a %s", name,
      G_VALUE_TYPE_NAME (value));
  return g_value_get_double (value);
}

/* signalstats of channel @c of rows first..first + rows of @data in result
 * @s: its own fields exactly, the counts, low and high. */
static void
check_signalstats (const GstStructure *s, const gint16 *data, guint channels,
    guint c, guint64 first, guint64 rows, const gchar *what)
{
  const CrTestBinning b = cr_test_binning (CR_TYPE_INT16, 256, 0, 0);
  const Stats st = stats_of (data, channels, c, first, rows);
  g_autofree guint64 *slots = g_new0 (guint64, CR_TEST_SLOTS (&b));
  const CrTestSpan span = { .data = (const guint8 *)(data + first * channels),
    .channels = channels,
    .rows = rows };
  cr_test_count_span (&b, &span, (gint)c, slots);
  cr_test_check_slots (s, &b, channels, c, slots, what);
  fail_unless (int_of (s, "min", channels, c) == st.min
          && int_of (s, "max", channels, c) == st.max,
      "%s (channel %u): min %d max %d, expected %" G_GINT64_FORMAT
      " %" G_GINT64_FORMAT,
      what, c, int_of (s, "min", channels, c), int_of (s, "max", channels, c),
      st.min, st.max);
  const gdouble avg = double_of (s, "avg", channels, c);
  fail_unless (avg == (gdouble)st.sum / (gdouble)st.n,
      "%s (channel %u): avg %.17g, expected %.17g", what, c, avg,
      (gdouble)st.sum / (gdouble)st.n);
  fail_unless (double_of (s, "low", channels, c)
          == cr_test_percentile (&b, slots, 0.1, cr_test_bin_value),
      "%s (channel %u): low", what, c);
  fail_unless (double_of (s, "high", channels, c)
          == cr_test_percentile (&b, slots, 0.9, cr_test_bin_value),
      "%s (channel %u): high", what, c);
}

/* Audio of 1 to 8 channels per channel, whole and in chunks of 64 KiB
 * (each a launch that carries both the accumulator and the counts). */
GST_START_TEST (test_signalstats_of_channels)
{
  static const guint counts[] = { 1, 2, 3, 4, 8 };
  const guint64 rows = 70001;
  for (guint k = 0; k < G_N_ELEMENTS (counts); k++) {
    const guint n = counts[k];
    g_autofree gint16 *data =
        (gint16 *)cr_test_random_elements (rand_, CR_TYPE_INT16, rows * n);
    for (gint chunked = 0; chunked < 2; chunked++) {
      g_autofree gchar *what =
          g_strdup_printf ("%u channels%s", n, chunked ? ", chunked" : "");
      cr_test_set_chunk_bytes (chunked ? "65536" : NULL);
      GstHarness *h = cr_test_harness (cr_test_audio_caps ("S16LE", 48000, n),
          "monoid", "signalstats", "per-channel", "true", NULL);
      GstStructure *s = cr_test_push_for_result (
          h, gst_buffer_new_memdup (data, rows * n * 2), 0, what);
      cr_test_set_chunk_bytes (NULL);
      for (guint c = 0; c < n; c++)
        check_signalstats (s, data, n, c, 0, rows, what);
      gst_structure_free (s);
      gst_harness_teardown (h);
    }
  }
}

GST_END_TEST;

/* Intervals across buffers that do not line up with them. */
GST_START_TEST (test_signalstats_over_intervals)
{
  const gint rate = 1000;
  const guint channels = 2, buffers = 9, per_buffer = 170;
  const guint64 frames = (guint64)buffers * per_buffer;
  g_autofree gint16 *data = (gint16 *)cr_test_random_elements (
      rand_, CR_TYPE_INT16, frames * channels);
  GstHarness *h =
      cr_test_harness (cr_test_audio_caps ("S16LE", rate, channels), "monoid",
          "signalstats", "per-channel", "true", "interval", "100000000", NULL);
  for (guint k = 0; k < buffers; k++) {
    GstBuffer *buf = gst_buffer_new_memdup (
        data + k * per_buffer * channels, per_buffer * channels * 2);
    GST_BUFFER_PTS (buf) =
        gst_util_uint64_scale (k * per_buffer, GST_SECOND, rate);
    GST_BUFFER_DURATION (buf) =
        gst_util_uint64_scale (per_buffer, GST_SECOND, rate);
    cr_test_push_ok (h, buf, "interval buffer");
  }
  g_autoptr (GPtrArray) results = cr_test_results_after_eos (h, "intervals");
  fail_unless_equals_int (results->len, (frames + 99) / 100);
  for (guint k = 0; k < results->len; k++)
    for (guint c = 0; c < channels; c++)
      check_signalstats (g_ptr_array_index (results, k), data, channels, c,
          k * 100, MIN (100, frames - k * 100), "interval");
  gst_harness_teardown (h);
}

GST_END_TEST;

/* minmax fused with the histogram, on every channel count: minmax's
 * fields under its label, the counts under their own names. */
GST_START_TEST (test_minmax_with_histogram)
{
  static const guint counts[] = { 1, 3, 4 };
  const guint64 rows = 50000;
  for (guint k = 0; k < G_N_ELEMENTS (counts); k++) {
    const guint n = counts[k];
    g_autofree gint16 *data =
        (gint16 *)cr_test_random_elements (rand_, CR_TYPE_INT16, rows * n);
    GstHarness *h =
        cr_test_harness (cr_test_audio_caps ("S16LE", 48000, n), "monoid",
            "minmax+histogram", "bins", "1000", "per-channel", "true", NULL);
    GstStructure *s = cr_test_push_for_result (
        h, gst_buffer_new_memdup (data, rows * n * 2), 0, "minmax+histogram");
    const CrTestBinning b = cr_test_binning (CR_TYPE_INT16, 1000, 0, 0);
    for (guint c = 0; c < n; c++) {
      const Stats st = stats_of (data, n, c, 0, rows);
      fail_unless (int_of (s, "minmax.min", n, c) == st.min
          && int_of (s, "minmax.max", n, c) == st.max);
      g_autofree guint64 *slots = g_new0 (guint64, CR_TEST_SLOTS (&b));
      const CrTestSpan span = {
        .data = (const guint8 *)data, .channels = n, .rows = rows
      };
      cr_test_count_span (&b, &span, (gint)c, slots);
      cr_test_check_slots (s, &b, n, c, slots, "minmax+histogram");
    }
    gst_structure_free (s);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* A monoid file with an accumulator and a Bin body that reads the
 * context, fused with minmax under a label: the fused context's
 * unqualified name sets the member's field. */
GST_START_TEST (test_bin_body_fused)
{
  g_autofree gchar *dir = cr_test_make_dir ("cr-binned");
  g_autofree gchar *path = g_build_filename (dir, "bands.monoid", NULL);
  fail_unless (g_file_set_contents (path,
      "[Monoid]\nName=bands\nAccumulator=sum:wide\nContext=width:int32\n"
      "Load=Acc r; r.sum = x; return r;\n"
      "Combine=Acc r; r.sum = a.sum + b.sum; return r;\n"
      "Identity=Acc r; r.sum = 0; return r;\nBins=16\n"
      "Bin=return x < 0 ? -1 : (long long) (x / ctx.width);\n"
      "Percentiles=median:0.5\n",
      -1, NULL));
  g_autofree gchar *monoid = g_strdup_printf ("minmax+b=%s", path);
  const gsize n = 300007;
  g_autofree gint16 *data =
      (gint16 *)cr_test_random_elements (rand_, CR_TYPE_INT16, n);
  GstHarness *h = cr_test_harness (cr_test_tensor_caps (CR_TYPE_INT16, n),
      "monoid", monoid, "context", "ctx, width=(int)3000", NULL);
  GstStructure *s = cr_test_push_for_result (
      h, gst_buffer_new_memdup (data, n * 2), 0, monoid);
  const Stats st = stats_of (data, 1, 0, 0, n);
  fail_unless (int_of (s, "minmax.min", 0, 0) == st.min
      && int_of (s, "minmax.max", 0, 0) == st.max);
  const GValue *sum = gst_structure_get_value (s, "b.sum");
  fail_unless (
      sum && G_VALUE_HOLDS_INT64 (sum) && g_value_get_int64 (sum) == st.sum,
      "b.sum in %" GST_PTR_FORMAT, s);
  const CrTestBinning b = { CR_TYPE_INT16, 16, 0, 0 };
  guint64 slots[19] = { 0 };
  for (gsize k = 0; k < n; k++)
    slots[data[k] < 0 ? 16 : data[k] / 3000 >= 16 ? 17 : data[k] / 3000]++;
  cr_test_check_slots (s, &b, 0, 0, slots, "bands");
  fail_unless (double_of (s, "median", 0, 0)
      == cr_test_percentile (&b, slots, 0.5, cr_test_bin_index));
  gst_structure_free (s);
  gst_harness_teardown (h);
  g_unlink (path);
  cr_test_remove_dir (dir);
}

GST_END_TEST;

static const CrTestCase cases[] = {
  CR_TEST_CASE (test_signalstats_of_channels),
  CR_TEST_CASE (test_signalstats_over_intervals),
  CR_TEST_CASE (test_minmax_with_histogram),
  CR_TEST_CASE (test_bin_body_fused),
  { NULL },
};

static const CrGpuTest gpu_binned = {
  .name = "gpu-binned",
  .timeout = 300,
  .needs = CR_TEST_NEEDS_NVRTC,
  .rand = &rand_,
  .cases = cases,
};

CR_TEST_GPU_MAIN (gpu_binned);
