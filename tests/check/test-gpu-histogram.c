/* test-gpu-histogram.c: the histogram monoid (Bins) against a CPU count of
 * the same values: every input type, its default and chosen ranges, bins
 * that do and do not divide the range, values outside it and NaN, per
 * channel and per plane with padded rows, frames in GPU memory, intervals
 * and tensor output. Every count must be exact. */
#include "cr-test-bins.h"
#include "cr-test-main.h"

#include <math.h>
#include <string.h>

static GRand *rand_;

static gchar *
context_of (const CrTestBinning *b, gboolean set)
{
  return set ? g_strdup_printf (
             "ctx, lo=(double)%.17g, hi=(double)%.17g", b->lo, b->hi)
             : g_strdup ("ctx");
}

static GstHarness *
histogram_harness (GstCaps *caps, const CrTestBinning *b, gboolean set_range,
    const gchar *per_channel)
{
  g_autofree gchar *bins = g_strdup_printf ("%u", b->bins);
  g_autofree gchar *ctx = context_of (b, set_range);
  return cr_test_harness (caps, "monoid", "histogram", "bins", bins, "context",
      ctx, "per-channel", per_channel, NULL);
}

/* One tensor of @n values of @type through a histogram of @b, whose range
 * the context gives (@set_range) or the type does. */
static void
check_tensor (CrType type, gsize n, const CrTestBinning *b, gboolean set_range)
{
  g_autofree guint8 *data = cr_test_random_binned (rand_, type, n);
  const gsize bytes = n * cr_test_type_size (type);
  g_autofree gchar *what =
      g_strdup_printf ("%s, %" G_GSIZE_FORMAT " values, %u bins, %.17g..%.17g",
          cr_test_type_name (type), n, b->bins, b->lo, b->hi);
  GstHarness *h =
      histogram_harness (cr_test_tensor_caps (type, n), b, set_range, "false");
  g_autofree guint64 *want = g_new0 (guint64, CR_TEST_SLOTS (b));
  cr_test_count_span (
      b, &(CrTestSpan){ .data = data, .channels = 1, .rows = n }, -1, want);
  GstStructure *s =
      cr_test_push_for_result (h, gst_buffer_new_memdup (data, bytes), 0, what);
  guint64 count = 0;
  fail_unless (gst_structure_get_uint64 (s, "count", &count) && count == n);
  cr_test_check_slots (s, b, 0, 0, want, what);
  gst_structure_free (s);
  gst_harness_teardown (h);
}

/* Every type, with its whole range (integers up to 32 bits) and a chosen
 * one with values on both sides, in sizes from one value to many blocks'
 * worth, in lengths that are not whole loads. */
GST_START_TEST (test_every_type)
{
  static const gsize sizes[] = { 1, 1001, (1 << 20) + 3 };
  for (CrType t = 0; t < CR_N_TYPES; t++) {
    const gboolean flt = t == CR_TYPE_FLOAT32 || t == CR_TYPE_FLOAT64;
    const gboolean wide = cr_test_type_size (t) == 8;
    for (guint k = 0; k < G_N_ELEMENTS (sizes); k++) {
      if (!flt && !wide) {
        const CrTestBinning whole = cr_test_binning (t, 256, 0, 0);
        check_tensor (t, sizes[k], &whole, FALSE);
      }
      /* Within the random values' range: some below it, some above. */
      const gdouble span = flt ? 1000
          : wide               ? ldexp (1, 52)
                 : ldexp (1, (gint)(8 * cr_test_type_size (t)) - 2);
      const gboolean is_unsigned = t == CR_TYPE_UINT8 || t == CR_TYPE_UINT16
          || t == CR_TYPE_UINT32 || t == CR_TYPE_UINT64;
      const gdouble lo = is_unsigned ? span / 2 : -span / 2;
      const CrTestBinning chosen = cr_test_binning (t, 128, lo, lo + span);
      check_tensor (t, sizes[k], &chosen, TRUE);
    }
  }
}

GST_END_TEST;

/* Bins that are powers of two wide, whole but not powers of two, and
 * bins the range does not divide; one bin; many bins. */
GST_START_TEST (test_bins_and_ranges)
{
  const struct {
    CrType type;
    guint bins;
    gdouble lo, hi;
  } cases[] = {
    { CR_TYPE_UINT16, 1024, 0, 0 },
    { CR_TYPE_UINT16, 4096, 0, 0 },
    { CR_TYPE_UINT16, 65536, 0, 0 },
    { CR_TYPE_UINT8, 100, 0, 0 },
    { CR_TYPE_UINT8, 1, 0, 0 },
    { CR_TYPE_INT16, 7, -1000, 1000 },
    { CR_TYPE_INT32, 100, -1e9, 1e9 },
    { CR_TYPE_UINT32, 3, 0, 0 },
    { CR_TYPE_INT64, 64, -1024, 1024 },
    { CR_TYPE_FLOAT32, 4096, -1, 1 },
    { CR_TYPE_FLOAT64, 5, -1000, 1000 },
  };
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++) {
    const CrTestBinning b = cr_test_binning (
        cases[k].type, cases[k].bins, cases[k].lo, cases[k].hi);
    const gboolean set = cases[k].lo != 0 || cases[k].hi != 0;
    check_tensor (cases[k].type, 3 << 18, &b, set);
  }
}

GST_END_TEST;

/* Ranges the bins cannot have are refused with what to set. */
GST_START_TEST (test_refused_ranges)
{
  const struct {
    CrType type;
    const gchar *context;
    const gchar *says;
  } cases[] = {
    { CR_TYPE_FLOAT32, "ctx", "need a range" },
    { CR_TYPE_FLOAT64, "ctx, lo=(double)1, hi=(double)1", "need a range" },
    { CR_TYPE_INT64, "ctx", "need a range" },
    { CR_TYPE_UINT8, "ctx, lo=(double)0.5, hi=(double)10", "whole numbers" },
    { CR_TYPE_UINT8, "ctx, lo=(double)-1, hi=(double)10", "whole numbers" },
    { CR_TYPE_INT64, "ctx, lo=(double)0, hi=(double)1000", "divide" },
  };
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++) {
    GstHarness *h = cr_test_harness (cr_test_tensor_caps (cases[k].type, 64),
        "monoid", "histogram", "context", cases[k].context, NULL);
    g_autofree guint8 *data = cr_test_random_binned (rand_, cases[k].type, 64);
    gst_harness_push (h,
        gst_buffer_new_memdup (data, 64 * cr_test_type_size (cases[k].type)));
    GstMessage *error = cr_test_pop_error (h);
    fail_unless (error != NULL, "%s %s: no error",
        cr_test_type_name (cases[k].type), cases[k].context);
    g_autoptr (GError) e = NULL;
    gst_message_parse_error (error, &e, NULL);
    fail_unless (strstr (e->message, cases[k].says) != NULL, "%s %s: %s",
        cr_test_type_name (cases[k].type), cases[k].context, e->message);
    gst_message_unref (error);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* Interleaved audio, one histogram per channel; and all channels in
 * one. */
GST_START_TEST (test_per_channel_audio)
{
  const struct {
    const gchar *format;
    CrType type;
    guint channels;
    gdouble lo, hi;
  } cases[] = {
    { "S16LE", CR_TYPE_INT16, 3, 0, 0 },
    { "U8", CR_TYPE_UINT8, 4, 0, 0 },
    { "F32LE", CR_TYPE_FLOAT32, 2, -500, 500 },
  };
  const guint64 frames = 48000;
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++) {
    const guint n = cases[k].channels;
    const CrTestBinning b =
        cr_test_binning (cases[k].type, 256, cases[k].lo, cases[k].hi);
    const gboolean set = cases[k].lo != 0 || cases[k].hi != 0;
    g_autofree guint8 *data =
        cr_test_random_binned (rand_, cases[k].type, frames * n);
    const CrTestSpan span = { .data = data, .channels = n, .rows = frames };
    const gsize bytes = frames * n * cr_test_type_size (cases[k].type);
    for (gint per = 0; per < 2; per++) {
      GstHarness *h =
          histogram_harness (cr_test_audio_caps (cases[k].format, 48000, n), &b,
              set, per ? "true" : "false");
      GstStructure *s = cr_test_push_for_result (
          h, gst_buffer_new_memdup (data, bytes), 0, cases[k].format);
      for (guint c = 0; c < (per ? n : 1); c++) {
        g_autofree guint64 *want = g_new0 (guint64, CR_TEST_SLOTS (&b));
        cr_test_count_span (&b, &span, per ? (gint)c : -1, want);
        cr_test_check_slots (s, &b, per ? n : 0, c, want, cases[k].format);
      }
      gst_structure_free (s);
      gst_harness_teardown (h);
    }
  }
}

GST_END_TEST;

/* Every result of @results against the frames, per component or all in
 * one. */
static void
check_frames (GPtrArray *results, GPtrArray *frames, const GstVideoInfo *caps,
    const CrTestBinning *b, gboolean per_channel, const gchar *what)
{
  fail_unless (results->len == frames->len && results->len > 0,
      "%s: %u results of %u frames", what, results->len, frames->len);
  const guint n = GST_VIDEO_INFO_N_COMPONENTS (caps);
  for (guint k = 0; k < frames->len; k++) {
    CrTestFrame f =
        cr_test_frame_of_buffer (g_ptr_array_index (frames, k), caps);
    for (guint c = 0; c < (per_channel ? n : 1); c++) {
      g_autofree guint64 *want = g_new0 (guint64, CR_TEST_SLOTS (b));
      cr_test_count_frame (b, &f, per_channel ? (gint)c : -1, want);
      cr_test_check_slots (g_ptr_array_index (results, k), b,
          per_channel ? n : 0, c, want, what);
    }
    g_free (f.data);
  }
}

/* Planar and packed frames with padded rows, on the host. */
GST_START_TEST (test_frames_with_padding)
{
  static const gchar *const formats[] = { "GRAY8", "NV12", "I420", "RGBA",
    "GRAY16_LE", "P010_10LE" };
  for (guint k = 0; k < G_N_ELEMENTS (formats); k++) {
    const gboolean deep =
        strstr (formats[k], "16") || strstr (formats[k], "10");
    /* P010's 10 bits lie in the high bits: 1024 bins of the whole 16-bit
     * range are its 1024 codes. */
    const CrTestBinning b = cr_test_binning (
        deep ? CR_TYPE_UINT16 : CR_TYPE_UINT8, deep ? 1024 : 256, 0, 0);
    for (gint per = 0; per < 2; per++) {
      CrTestFrame f = cr_test_frame_new (rand_, formats[k], 333, 97, 24);
      GstHarness *h =
          histogram_harness (cr_test_video_caps (formats[k], 333, 97, 30), &b,
              FALSE, per ? "true" : "false");
      GstStructure *s = cr_test_push_for_result (
          h, cr_test_frame_buffer (&f, 0), 0, formats[k]);
      g_autoptr (GPtrArray) results = g_ptr_array_new ();
      g_autoptr (GPtrArray) frames =
          g_ptr_array_new_with_free_func ((GDestroyNotify)gst_buffer_unref);
      g_ptr_array_add (results, s);
      g_ptr_array_add (frames, cr_test_frame_buffer (&f, 0));
      check_frames (results, frames, &f.info, &b, per, formats[k]);
      gst_structure_free (s);
      gst_harness_teardown (h);
      g_free (f.data);
    }
  }
}

GST_END_TEST;

/* Frames in GPU memory from cudaupload: pitched planes read where they
 * are, and rows packed first. */
GST_START_TEST (test_frames_in_cuda_memory)
{
  const gchar *missing = cr_test_cuda_memory_missing ();
  if (missing) {
    g_print ("frames in CUDA memory not tested: %s\n", missing);
    return;
  }
  const struct {
    const gchar *format;
    gint w, h;
  } cases[] = { { "NV12", 1920, 1080 }, { "I420", 70, 42 },
    { "P010_10LE", 160, 90 } };
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++) {
    const gboolean deep = strstr (cases[k].format, "10") != NULL;
    const CrTestBinning b = cr_test_binning (
        deep ? CR_TYPE_UINT16 : CR_TYPE_UINT8, deep ? 1024 : 256, 0, 0);
    for (gint per = 0; per < 2; per++) {
      g_autofree gchar *desc = g_strdup_printf (
          "videotestsrc num-buffers=3 pattern=snow ! "
          "video/x-raw,format=%s,width=%d,height=%d ! cudaupload name=frames "
          "! video/x-raw(memory:CUDAMemory) ! cudareduce monoid=histogram "
          "bins=%u per-channel=%s ! fakesink",
          cases[k].format, cases[k].w, cases[k].h, b.bins,
          per ? "true" : "false");
      g_autoptr (GPtrArray) frames =
          g_ptr_array_new_with_free_func ((GDestroyNotify)gst_buffer_unref);
      g_autoptr (GstCaps) caps = NULL;
      g_autoptr (GPtrArray) results =
          cr_test_play_keeping_frames (desc, frames, &caps, NULL);
      g_ptr_array_set_free_func (results, (GDestroyNotify)gst_structure_free);
      GstVideoInfo info;
      fail_unless (caps != NULL && gst_video_info_from_caps (&info, caps));
      check_frames (results, frames, &info, &b, per, desc);
    }
  }
}

GST_END_TEST;

/* Intervals across buffers that do not line up with them: the counts of
 * each interval's frames add up. */
GST_START_TEST (test_intervals)
{
  const gint rate = 1000;
  const guint channels = 2, buffers = 7, per_buffer = 230;
  const guint64 frames = (guint64)buffers * per_buffer;
  g_autofree guint8 *data =
      cr_test_random_binned (rand_, CR_TYPE_INT16, frames * channels);
  const CrTestBinning b = cr_test_binning (CR_TYPE_INT16, 64, 0, 0);
  GstHarness *h = cr_test_harness (cr_test_audio_caps ("S16LE", rate, channels),
      "monoid", "histogram", "bins", "64", "per-channel", "true", "interval",
      "100000000", NULL);
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
  /* 100 frames an interval, the last one partial. */
  const guint64 per_interval = 100;
  const guint n = (guint)((frames + per_interval - 1) / per_interval);
  fail_unless (results->len == n, "%u results, expected %u", results->len, n);
  for (guint k = 0; k < n; k++) {
    const guint64 first = k * per_interval;
    const CrTestSpan span = { .data = data + first * channels * 2,
      .channels = channels,
      .rows = MIN (per_interval, frames - first) };
    for (guint c = 0; c < channels; c++) {
      g_autofree guint64 *want = g_new0 (guint64, CR_TEST_SLOTS (&b));
      cr_test_count_span (&b, &span, (gint)c, want);
      cr_test_check_slots (
          g_ptr_array_index (results, k), &b, channels, c, want, "interval");
    }
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* output=tensor: the histogram as a bins x channels tensor, then below,
 * above and nan, one a channel. */
GST_START_TEST (test_tensor_output)
{
  const guint channels = 4, bins = 32;
  const guint64 rows = 5000;
  g_autofree guint8 *data =
      cr_test_random_binned (rand_, CR_TYPE_UINT8, rows * channels);
  const CrTestBinning b = cr_test_binning (CR_TYPE_UINT8, bins, 0, 0);
  GstHarness *h =
      cr_test_harness (cr_test_tensor_rows_caps (CR_TYPE_UINT8, channels, rows),
          "monoid", "histogram", "bins", "32", "per-channel", "true", "output",
          "tensor", NULL);
  gst_harness_push (h, gst_buffer_new_memdup (data, rows * channels));
  GstBuffer *out = gst_harness_pull (h);
  g_autoptr (GstCaps) caps = gst_pad_get_current_caps (h->sinkpad);
  const GstStructure *s = gst_caps_get_structure (caps, 0);
  fail_unless_equals_string (
      gst_structure_get_string (s, "types"), "uint64,uint64,uint64,uint64");
  fail_unless_equals_string (
      gst_structure_get_string (s, "dimensions"), "32:4,4,4,4");
  fail_unless_equals_int (gst_buffer_n_memory (out), 4);
  for (guint c = 0; c < channels; c++) {
    g_autofree guint64 *want = g_new0 (guint64, CR_TEST_SLOTS (&b));
    cr_test_count_span (&b,
        &(CrTestSpan){ .data = data, .channels = channels, .rows = rows },
        (gint)c, want);
    for (guint m = 0; m < 4; m++) {
      GstMapInfo map;
      GstMemory *mem = gst_buffer_peek_memory (out, m);
      fail_unless (gst_memory_map (mem, &map, GST_MAP_READ));
      const guint per = m == 0 ? bins : 1;
      fail_unless_equals_int (map.size, channels * per * sizeof (guint64));
      const guint64 *got = (const guint64 *)map.data + c * per;
      for (guint k = 0; k < per; k++)
        fail_unless (got[k] == want[(m == 0 ? 0 : bins + m - 1) + k],
            "channel %u tensor %u count %u: %" G_GUINT64_FORMAT
            ", expected %" G_GUINT64_FORMAT,
            c, m, k, got[k], want[(m == 0 ? 0 : bins + m - 1) + k]);
      gst_memory_unmap (mem, &map);
    }
  }
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

static const CrTestCase cases[] = {
  CR_TEST_CASE (test_every_type),
  CR_TEST_CASE (test_bins_and_ranges),
  CR_TEST_CASE (test_refused_ranges),
  CR_TEST_CASE (test_per_channel_audio),
  CR_TEST_CASE (test_frames_with_padding),
  CR_TEST_CASE (test_frames_in_cuda_memory),
  CR_TEST_CASE (test_intervals),
  CR_TEST_CASE (test_tensor_output),
  { NULL },
};

static const CrGpuTest gpu_histogram = {
  .name = "gpu-histogram",
  .timeout = 300,
  .needs = CR_TEST_NEEDS_NVRTC,
  .rand = &rand_,
  .cases = cases,
};

CR_TEST_GPU_MAIN (gpu_histogram);
