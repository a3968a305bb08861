/* test-gpu-percentiles.c: what monoids with bins read off their counts,
 * against the CPU: percentiles (the percentiles property and a monoid's
 * named ones) on every input type, at the edges of their definition, over
 * chunks and intervals and as tensors; the built-in signalstats against
 * FFmpeg's signalstats computed on the CPU, on host and GPU frames; and
 * bins that a monoid's Bin body gives. */
#include "cr-abi.h"
#include "cr-test-bins.h"
#include "cr-test-main.h"

#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static GRand *rand_;

#define POINTS "<0, 0.001, 0.1, 0.25, 0.333, 0.5, 0.9, 0.999, 1>"
static const gdouble points[] = { 0, 0.001, 0.1, 0.25, 0.333, 0.5, 0.9, 0.999,
  1 };

/* Equal as doubles, NaN to NaN. */
static gboolean
same (gdouble a, gdouble b)
{
  return (isnan (a) && isnan (b)) || a == b;
}

static gdouble
double_of (const GValue *v, const gchar *what)
{
  fail_unless (
      G_VALUE_HOLDS_DOUBLE (v), "%s is a %s", what, G_VALUE_TYPE_NAME (v));
  return g_value_get_double (v);
}

/* Fails unless the array field "percentiles" of value @v of @s (of @n, 0:
 * not per channel) holds the points of @slots. */
static void
check_percentiles (const GstStructure *s, const CrTestBinning *b, guint n,
    guint v, const guint64 *slots,
    gdouble (*bin_value) (const CrTestBinning *b, guint k), const gchar *what)
{
  const GValue *got = cr_test_value_of (s, "percentiles", n, v);
  fail_unless (GST_VALUE_HOLDS_ARRAY (got)
          && gst_value_array_get_size (got) == G_N_ELEMENTS (points),
      "%s: percentiles is not an array of %u", what,
      (guint)G_N_ELEMENTS (points));
  for (guint j = 0; j < G_N_ELEMENTS (points); j++) {
    const gdouble want = cr_test_percentile (b, slots, points[j], bin_value);
    const gdouble p = double_of (gst_value_array_get_value (got, j), what);
    fail_unless (same (p, want),
        "%s (value %u): percentile %g is %.17g, "
        "expected %.17g",
        what, v, points[j], p, want);
  }
}

static int
compare_doubles (gconstpointer a, gconstpointer b)
{
  const gdouble x = *(const gdouble *)a, y = *(const gdouble *)b;
  return x < y ? -1 : x > y;
}

/* One tensor of @n values of @type in @b's bins, with the percentiles:
 * against the counts, and where each bin is one value (@exact), against
 * the sorted values themselves. */
static void
check_tensor (CrType type, gsize n, const CrTestBinning *b, gboolean set_range,
    gboolean exact)
{
  g_autofree guint8 *data = cr_test_random_binned (rand_, type, n);
  g_autofree gchar *bins = g_strdup_printf ("%u", b->bins);
  g_autofree gchar *ctx = set_range
      ? g_strdup_printf (
          "ctx, lo=(double)%.17g, hi=(double)%.17g", b->lo, b->hi)
      : g_strdup ("ctx");
  g_autofree gchar *what =
      g_strdup_printf ("%s, %" G_GSIZE_FORMAT " values, %u bins, %.17g..%.17g",
          cr_test_type_name (type), n, b->bins, b->lo, b->hi);
  GstHarness *h = cr_test_harness (cr_test_tensor_caps (type, n), "monoid",
      "histogram", "bins", bins, "context", ctx, "percentiles", POINTS, NULL);
  GstStructure *s = cr_test_push_for_result (
      h, gst_buffer_new_memdup (data, n * cr_test_type_size (type)), 0, what);
  g_autofree guint64 *slots = g_new0 (guint64, CR_TEST_SLOTS (b));
  cr_test_count_span (
      b, &(CrTestSpan){ .data = data, .channels = 1, .rows = n }, -1, slots);
  cr_test_check_slots (s, b, 0, 0, slots, what);
  check_percentiles (s, b, 0, 0, slots, cr_test_bin_value, what);

  if (exact) {
    /* Every bin one value: the percentile is the value of its rank. */
    g_autofree gdouble *sorted = g_new (gdouble, n);
    for (gsize k = 0; k < n; k++)
      sorted[k] = cr_test_get_double (type, data, k);
    qsort (sorted, n, sizeof (gdouble), compare_doubles);
    const GValue *got = gst_structure_get_value (s, "percentiles");
    for (guint j = 0; j < G_N_ELEMENTS (points); j++) {
      guint64 rank = (guint64)nearbyint (points[j] * n);
      rank = CLAMP (rank, 1, n);
      const gdouble p = double_of (gst_value_array_get_value (got, j), what);
      fail_unless (p == sorted[rank - 1],
          "%s: percentile %g is %.17g, the "
          "value of rank %" G_GUINT64_FORMAT " is %.17g",
          what, points[j], p, rank, sorted[rank - 1]);
    }
  }
  gst_structure_free (s);
  gst_harness_teardown (h);
}

/* Every type, in its whole range and a chosen one with values outside
 * it; 8- and 16-bit in bins of one value each, checked against sorting. */
GST_START_TEST (test_percentiles_of_every_type)
{
  for (CrType t = 0; t < CR_N_TYPES; t++) {
    const gboolean flt = t == CR_TYPE_FLOAT32 || t == CR_TYPE_FLOAT64;
    const gsize size = cr_test_type_size (t);
    if (!flt && size <= 2) {
      const CrTestBinning unit = cr_test_binning (t, 1u << (8 * size), 0, 0);
      check_tensor (t, 100003, &unit, FALSE, TRUE);
    }
    /* Shared counters of the most bytes a launch gives them (and of the
     * 46 KiB that was too many beside the percentiles' runs), in 8
     * copies. */
    const guint full_bins[] = {
      CR_BINS_SHARED_MAX_BYTES / 8 / 4 - CR_BINS_EXTRA,
      46 * 1024 / 8 / 4 - CR_BINS_EXTRA,
    };
    for (guint k = 0; !flt && size <= 2 && k < G_N_ELEMENTS (full_bins); k++) {
      const CrTestBinning full = cr_test_binning (t, full_bins[k], 0, 0);
      check_tensor (t, 100003, &full, FALSE, FALSE);
    }
    if (!flt && size < 8) {
      const CrTestBinning whole = cr_test_binning (t, 200, 0, 0);
      check_tensor (t, 1001, &whole, FALSE, FALSE);
    }
    const gdouble span = flt ? 1000
        : size == 8          ? ldexp (1, 52)
                             : ldexp (1, (gint)(8 * size) - 2);
    const gboolean is_unsigned = t == CR_TYPE_UINT8 || t == CR_TYPE_UINT16
        || t == CR_TYPE_UINT32 || t == CR_TYPE_UINT64;
    const gdouble lo = is_unsigned ? span / 2 : -span / 2;
    const CrTestBinning chosen = cr_test_binning (t, 128, lo, lo + span);
    check_tensor (t, (1 << 20) + 3, &chosen, TRUE, FALSE);
  }
}

GST_END_TEST;

/* The percentile of @values (uint8, @n of them) at @p, from a histogram
 * of 256 bins. */
static gdouble
percentile_of (const guint8 *values, gsize n, const gchar *p)
{
  GstHarness *h = cr_test_harness (cr_test_tensor_caps (CR_TYPE_UINT8, n),
      "monoid", "histogram", "percentiles", p, NULL);
  GstStructure *s = cr_test_push_for_result (
      h, gst_buffer_new_memdup (values, n), 0, "percentile");
  const GValue *got = gst_structure_get_value (s, "percentiles");
  const gdouble v = double_of (gst_value_array_get_value (got, 0), p);
  gst_structure_free (s);
  gst_harness_teardown (h);
  return v;
}

/* The rank's rounding, as signalstats rounds (half to even, then at least
 * the first), worked out by hand on distinct values 0..n-1; values below
 * and above the range; no values. */
GST_START_TEST (test_percentiles_at_the_edges)
{
  guint8 values[64];
  for (guint k = 0; k < G_N_ELEMENTS (values); k++)
    values[k] = (guint8)k;
  /* p * n = 0.5, 1.5, 2.5, 3.5 and 0.1: ranks 1 (0 raised), 2, 2, 4, 1. */
  fail_unless_equals_int (percentile_of (values, 5, "<0.1>"), 0);
  fail_unless_equals_int (percentile_of (values, 15, "<0.1>"), 1);
  fail_unless_equals_int (percentile_of (values, 25, "<0.1>"), 1);
  fail_unless_equals_int (percentile_of (values, 35, "<0.1>"), 3);
  fail_unless_equals_int (percentile_of (values, 1, "<0.1>"), 0);
  fail_unless_equals_int (percentile_of (values, 64, "<0>"), 0);
  fail_unless_equals_int (percentile_of (values, 64, "<1>"), 63);
  fail_unless_equals_int (percentile_of (values, 64, "<0.5>"), 31);

  /* Floats in [10, 20): below, inside, above, and NaN. */
  const gfloat floats[] = { 1, 2, 3, 15, 30, NAN, NAN, 40 };
  GstHarness *h = cr_test_harness (cr_test_tensor_caps (CR_TYPE_FLOAT32, 8),
      "monoid", "histogram", "bins", "10", "context",
      "ctx, lo=(double)10, hi=(double)20", "percentiles",
      "<0.1, 0.5, 0.6, 0.9>", NULL);
  GstStructure *s = cr_test_push_for_result (
      h, gst_buffer_new_memdup (floats, sizeof floats), 0, "floats");
  /* 6 values not NaN: ranks 1, 3, 4 (3.6), 5 (5.4). */
  const gdouble want[] = { -INFINITY, -INFINITY, 15, INFINITY };
  const GValue *got = gst_structure_get_value (s, "percentiles");
  for (guint j = 0; j < G_N_ELEMENTS (want); j++) {
    const gdouble p = double_of (gst_value_array_get_value (got, j), "floats");
    fail_unless (p == want[j], "point %u: %g, expected %g", j, p, want[j]);
  }
  gst_structure_free (s);
  /* Only NaN, then nothing: no percentile. */
  const gfloat nans[] = { NAN, NAN };
  s = cr_test_push_for_result (
      h, gst_buffer_new_memdup (nans, sizeof nans), 0, "NaN");
  got = gst_structure_get_value (s, "percentiles");
  fail_unless (isnan (double_of (gst_value_array_get_value (got, 0), "NaN")));
  gst_structure_free (s);
  s = cr_test_push_for_result (h, gst_buffer_new (), 0, "empty");
  got = gst_structure_get_value (s, "percentiles");
  fail_unless (isnan (double_of (gst_value_array_get_value (got, 3), "empty")));
  gst_structure_free (s);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Chunks (each a launch that carries the counts on) and intervals across
 * buffers, per channel: the percentiles of the whole counts. */
GST_START_TEST (test_percentiles_over_chunks_and_intervals)
{
  const guint channels = 3;
  const guint64 rows = 300000;
  g_autofree guint8 *data =
      cr_test_random_binned (rand_, CR_TYPE_INT16, rows * channels);
  const CrTestBinning b = cr_test_binning (CR_TYPE_INT16, 4096, 0, 0);
  const CrTestSpan span = { .data = data, .channels = channels, .rows = rows };
  cr_test_set_chunk_bytes ("65536");
  GstHarness *h = cr_test_harness (
      cr_test_audio_caps ("S16LE", 48000, channels), "monoid", "histogram",
      "bins", "4096", "per-channel", "true", "percentiles", POINTS, NULL);
  GstStructure *s = cr_test_push_for_result (
      h, gst_buffer_new_memdup (data, rows * channels * 2), 0, "chunks");
  cr_test_set_chunk_bytes (NULL);
  for (guint c = 0; c < channels; c++) {
    g_autofree guint64 *slots = g_new0 (guint64, CR_TEST_SLOTS (&b));
    cr_test_count_span (&b, &span, (gint)c, slots);
    cr_test_check_slots (s, &b, channels, c, slots, "chunks");
    check_percentiles (s, &b, channels, c, slots, cr_test_bin_value, "chunks");
  }
  gst_structure_free (s);
  gst_harness_teardown (h);

  /* 100 frames an interval, buffers of 230. */
  const gint rate = 1000;
  const guint per_buffer = 230, buffers = 7;
  h = cr_test_harness (cr_test_audio_caps ("S16LE", rate, channels), "monoid",
      "histogram", "bins", "64", "per-channel", "true", "interval", "100000000",
      "percentiles", POINTS, NULL);
  for (guint k = 0; k < buffers; k++) {
    GstBuffer *buf = gst_buffer_new_memdup (
        data + k * per_buffer * channels * 2, per_buffer * channels * 2);
    GST_BUFFER_PTS (buf) =
        gst_util_uint64_scale (k * per_buffer, GST_SECOND, rate);
    GST_BUFFER_DURATION (buf) =
        gst_util_uint64_scale (per_buffer, GST_SECOND, rate);
    cr_test_push_ok (h, buf, "interval buffer");
  }
  g_autoptr (GPtrArray) results = cr_test_results_after_eos (h, "intervals");
  const CrTestBinning b64 = cr_test_binning (CR_TYPE_INT16, 64, 0, 0);
  const guint64 frames = (guint64)buffers * per_buffer;
  fail_unless_equals_int (results->len, (frames + 99) / 100);
  for (guint k = 0; k < results->len; k++) {
    const CrTestSpan part = { .data = data + k * 100 * channels * 2,
      .channels = channels,
      .rows = MIN (100, frames - k * 100) };
    for (guint c = 0; c < channels; c++) {
      g_autofree guint64 *slots = g_new0 (guint64, CR_TEST_SLOTS (&b64));
      cr_test_count_span (&b64, &part, (gint)c, slots);
      check_percentiles (g_ptr_array_index (results, k), &b64, channels, c,
          slots, cr_test_bin_value, "interval");
    }
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* FFmpeg's signalstats of one plane's samples (8-bit): min, low, avg,
 * high, max, as libavfilter/vf_signalstats.c computes them from a
 * histogram of every value. */
typedef struct {
  guint64 min, max;
  gdouble low, avg, high;
} Signalstats;

static Signalstats
signalstats_of (const guint64 *hist, guint values)
{
  guint64 fs = 0, total = 0;
  for (guint v = 0; v < values; v++) {
    fs += hist[v];
    total += hist[v] * v;
  }
  const guint64 lowp = (guint64)lrint (fs * 10 / 100.);
  const guint64 highp = (guint64)lrint (fs * 90 / 100.);
  Signalstats st = { G_MAXUINT64, 0, -1, (gdouble)total / fs, -1 };
  guint64 acc = 0;
  for (guint v = 0; v < values; v++) {
    if (hist[v] && st.min == G_MAXUINT64)
      st.min = v;
    if (hist[v])
      st.max = v;
    acc += hist[v];
    if (st.low < 0 && acc >= lowp)
      st.low = v;
    if (st.high < 0 && acc >= highp)
      st.high = v;
  }
  return st;
}

static void
check_signalstats (const GstStructure *s, guint n, guint v,
    const guint64 *slots, const gchar *what)
{
  const Signalstats want = signalstats_of (slots, 256);
  guint min = 0, max = 0;
  const GValue *got = cr_test_value_of (s, "min", n, v);
  fail_unless (G_VALUE_HOLDS_UINT (got), "%s: min is a %s", what,
      G_VALUE_TYPE_NAME (got));
  min = g_value_get_uint (got);
  max = g_value_get_uint (cr_test_value_of (s, "max", n, v));
  const gdouble low = double_of (cr_test_value_of (s, "low", n, v), what);
  const gdouble high = double_of (cr_test_value_of (s, "high", n, v), what);
  const gdouble avg = double_of (cr_test_value_of (s, "avg", n, v), what);
  fail_unless (min == want.min && max == want.max && low == want.low
          && high == want.high && avg == want.avg,
      "%s (value %u): min %u low %g avg %.17g high %g max %u; signalstats: "
      "min %" G_GUINT64_FORMAT
      " low %g avg %.17g high %g max %" G_GUINT64_FORMAT,
      what, v, min, low, avg, high, max, want.min, want.low, want.avg,
      want.high, want.max);
}

/* Every result of @results against its frame: per component, or every
 * sample in one. */
static void
check_signalstats_frames (GPtrArray *results, GPtrArray *frames,
    const GstVideoInfo *caps, gboolean per_channel, const gchar *what)
{
  fail_unless (results->len == frames->len && results->len > 0,
      "%s: %u results of %u frames", what, results->len, frames->len);
  const CrTestBinning b = cr_test_binning (CR_TYPE_UINT8, 256, 0, 0);
  const guint n = GST_VIDEO_INFO_N_COMPONENTS (caps);
  for (guint k = 0; k < frames->len; k++) {
    CrTestFrame f =
        cr_test_frame_of_buffer (g_ptr_array_index (frames, k), caps);
    for (guint c = 0; c < (per_channel ? n : 1); c++) {
      g_autofree guint64 *slots = g_new0 (guint64, CR_TEST_SLOTS (&b));
      cr_test_count_frame (&b, &f, per_channel ? (gint)c : -1, slots);
      check_signalstats (
          g_ptr_array_index (results, k), per_channel ? n : 0, c, slots, what);
    }
    g_free (f.data);
  }
}

/* signalstats per plane and over the whole frame, on random frames with
 * padded rows in host memory. */
GST_START_TEST (test_signalstats_frames)
{
  static const gchar *const formats[] = { "GRAY8", "NV12", "I420", "Y444",
    "NV21" };
  for (guint k = 0; k < G_N_ELEMENTS (formats); k++) {
    for (gint per = 0; per < 2; per++) {
      CrTestFrame f = cr_test_frame_new (rand_, formats[k], 333, 97, 24);
      GstHarness *h = cr_test_harness (
          cr_test_video_caps (formats[k], 333, 97, 30), "monoid", "signalstats",
          "per-channel", per ? "true" : "false", NULL);
      g_autoptr (GPtrArray) results =
          g_ptr_array_new_with_free_func ((GDestroyNotify)gst_structure_free);
      g_autoptr (GPtrArray) frames =
          g_ptr_array_new_with_free_func ((GDestroyNotify)gst_buffer_unref);
      g_ptr_array_add (results,
          cr_test_push_for_result (
              h, cr_test_frame_buffer (&f, 0), 0, formats[k]));
      g_ptr_array_add (frames, cr_test_frame_buffer (&f, 0));
      check_signalstats_frames (results, frames, &f.info, per, formats[k]);
      gst_harness_teardown (h);
      g_free (f.data);
    }
  }
}

GST_END_TEST;

/* signalstats of frames in GPU memory, from cudaupload, and of a real
 * picture (the test source's SMPTE bars and a moving ball). */
GST_START_TEST (test_signalstats_in_cuda_memory)
{
  const gchar *missing = cr_test_cuda_memory_missing ();
  static const gchar *const patterns[] = { "snow", "smpte", "ball" };
  for (guint k = 0; k < G_N_ELEMENTS (patterns); k++) {
    for (gint cuda = 0; cuda < 2; cuda++) {
      if (cuda && missing) {
        g_print ("frames in CUDA memory not tested: %s\n", missing);
        continue;
      }
      g_autofree gchar *desc = g_strdup_printf (
          "videotestsrc num-buffers=3 pattern=%s ! "
          "video/x-raw,format=NV12,width=1920,height=1080 ! %s "
          "cudareduce monoid=signalstats per-channel=true ! fakesink",
          patterns[k],
          cuda ? "cudaupload name=frames ! video/x-raw(memory:CUDAMemory) !"
               : "identity name=frames !");
      g_autoptr (GPtrArray) frames =
          g_ptr_array_new_with_free_func ((GDestroyNotify)gst_buffer_unref);
      g_autoptr (GstCaps) caps = NULL;
      g_autoptr (GPtrArray) results =
          cr_test_play_keeping_frames (desc, frames, &caps, NULL);
      g_ptr_array_set_free_func (results, (GDestroyNotify)gst_structure_free);
      GstVideoInfo info;
      fail_unless (caps != NULL && gst_video_info_from_caps (&info, caps));
      check_signalstats_frames (results, frames, &info, TRUE, desc);
    }
  }
}

GST_END_TEST;

/* The bin the test's Bin body gives: below for values under -16384, else
 * a band of @width values and the row's parity. */
static guint
band_slot (gint64 x, guint64 i, gint64 width, guint bins)
{
  if (x < -16384)
    return bins;
  const gint64 k = (x + 16384) / width * 2 + (gint64)(i % 2);
  return k >= bins ? bins + 1 : (guint)k;
}

/* A .monoid file's Bin, reading the value, its row and the context, per
 * channel; and the inline bin property on a tensor. */
GST_START_TEST (test_bin_body)
{
  g_autofree gchar *dir = cr_test_make_dir ("cr-bins");
  g_autofree gchar *path = g_build_filename (dir, "bands.monoid", NULL);
  fail_unless (g_file_set_contents (path,
      "[Monoid]\nName=bands\nBins=12\nContext=width:int32\n"
      "Bin=if (x < -16384) return -1; return (long long) ((x + 16384) / "
      "ctx.width) * 2 + (long long) (i % 2);\n"
      "Percentiles=median:0.5;some:0.1,0.9\n",
      -1, NULL));
  const guint channels = 2;
  const guint64 rows = 50001;
  g_autofree guint8 *data =
      cr_test_random_binned (rand_, CR_TYPE_INT16, rows * channels);
  GstHarness *h =
      cr_test_harness (cr_test_audio_caps ("S16LE", 48000, channels), "monoid",
          path, "per-channel", "true", "context", "ctx, width=(int)5000", NULL);
  GstStructure *s = cr_test_push_for_result (
      h, gst_buffer_new_memdup (data, rows * channels * 2), 0, "bands");
  const CrTestBinning b = { CR_TYPE_INT16, 12, 0, 0 };
  for (guint c = 0; c < channels; c++) {
    g_autofree guint64 *slots = g_new0 (guint64, CR_TEST_SLOTS (&b));
    for (guint64 r = 0; r < rows; r++)
      slots[band_slot (((gint16 *)data)[r * channels + c], r, 5000, 12)]++;
    cr_test_check_slots (s, &b, channels, c, slots, "bands");
    /* The median in a bin; 0.1 below them all, 0.9 above. */
    const gdouble median =
        cr_test_percentile (&b, slots, 0.5, cr_test_bin_index);
    fail_unless (median >= 0 && median < 12, "median %g", median);
    fail_unless (
        same (double_of (cr_test_value_of (s, "median", channels, c), "median"),
            median));
    const GValue *some = cr_test_value_of (s, "some", channels, c);
    for (guint j = 0; j < 2; j++)
      fail_unless (same (
          double_of (gst_value_array_get_value (some, j), "some"),
          cr_test_percentile (&b, slots, j ? 0.9 : 0.1, cr_test_bin_index)));
  }
  gst_structure_free (s);
  gst_harness_teardown (h);
  g_unlink (path);
  cr_test_remove_dir (dir);

  /* Inline: the element index of a tensor. */
  const gsize n = 70000;
  g_autofree guint8 *bytes = cr_test_random_elements (rand_, CR_TYPE_UINT8, n);
  h = cr_test_harness (cr_test_tensor_caps (CR_TYPE_UINT8, n), "bins", "8",
      "bin", "return (long long) ((x & 7) ^ (i & 1));", "percentiles", POINTS,
      NULL);
  s = cr_test_push_for_result (
      h, gst_buffer_new_memdup (bytes, n), 0, "inline");
  const CrTestBinning b8 = { CR_TYPE_UINT8, 8, 0, 0 };
  guint64 slots[11] = { 0 };
  for (gsize k = 0; k < n; k++)
    slots[(bytes[k] & 7) ^ (k & 1)]++;
  cr_test_check_slots (s, &b8, 0, 0, slots, "inline");
  check_percentiles (s, &b8, 0, 0, slots, cr_test_bin_index, "inline");
  gst_structure_free (s);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* output=tensor: low and high one a channel, the percentiles property's
 * points by channels. */
GST_START_TEST (test_percentiles_as_tensors)
{
  const guint channels = 4;
  const guint64 rows = 5000;
  g_autofree guint8 *data =
      cr_test_random_elements (rand_, CR_TYPE_UINT8, rows * channels);
  GstHarness *h =
      cr_test_harness (cr_test_tensor_rows_caps (CR_TYPE_UINT8, channels, rows),
          "monoid", "signalstats", "per-channel", "true", "output", "tensor",
          "percentiles", POINTS, NULL);
  gst_harness_push (h, gst_buffer_new_memdup (data, rows * channels));
  GstBuffer *out = gst_harness_pull (h);
  /* min, max, avg, histogram, below, above, nan, low, high, percentiles */
  fail_unless_equals_int (gst_buffer_n_memory (out), 10);
  const CrTestBinning b = cr_test_binning (CR_TYPE_UINT8, 256, 0, 0);
  const guint n_points = G_N_ELEMENTS (points);
  GstMapInfo low, high, list;
  fail_unless (
      gst_memory_map (gst_buffer_peek_memory (out, 7), &low, GST_MAP_READ));
  fail_unless (
      gst_memory_map (gst_buffer_peek_memory (out, 8), &high, GST_MAP_READ));
  fail_unless (
      gst_memory_map (gst_buffer_peek_memory (out, 9), &list, GST_MAP_READ));
  fail_unless_equals_int (low.size, channels * sizeof (gdouble));
  fail_unless_equals_int (list.size, channels * n_points * sizeof (gdouble));
  for (guint c = 0; c < channels; c++) {
    g_autofree guint64 *slots = g_new0 (guint64, CR_TEST_SLOTS (&b));
    cr_test_count_span (&b,
        &(CrTestSpan){ .data = data, .channels = channels, .rows = rows },
        (gint)c, slots);
    fail_unless (same (((gdouble *)low.data)[c],
        cr_test_percentile (&b, slots, 0.1, cr_test_bin_value)));
    fail_unless (same (((gdouble *)high.data)[c],
        cr_test_percentile (&b, slots, 0.9, cr_test_bin_value)));
    for (guint j = 0; j < n_points; j++)
      fail_unless (same (((gdouble *)list.data)[c * n_points + j],
          cr_test_percentile (&b, slots, points[j], cr_test_bin_value)));
  }
  gst_memory_unmap (gst_buffer_peek_memory (out, 7), &low);
  gst_memory_unmap (gst_buffer_peek_memory (out, 8), &high);
  gst_memory_unmap (gst_buffer_peek_memory (out, 9), &list);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

static const CrTestCase cases[] = {
  CR_TEST_CASE (test_percentiles_of_every_type),
  CR_TEST_CASE (test_percentiles_at_the_edges),
  CR_TEST_CASE (test_percentiles_over_chunks_and_intervals),
  CR_TEST_CASE (test_signalstats_frames),
  CR_TEST_CASE (test_signalstats_in_cuda_memory),
  CR_TEST_CASE (test_bin_body),
  CR_TEST_CASE (test_percentiles_as_tensors),
  { NULL },
};

static const CrGpuTest gpu_percentiles = {
  .name = "gpu-percentiles",
  .timeout = 300,
  .needs = CR_TEST_NEEDS_NVRTC,
  .rand = &rand_,
  .cases = cases,
};

CR_TEST_GPU_MAIN (gpu_percentiles);
