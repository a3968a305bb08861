/* test-gpu-video.c: YUV, gray and RGB frames in host memory, against a CPU
 * reference computed from the same random bytes: whole frames, one value
 * per component, one component alone, intervals, tensors, and frames
 * from videotestsrc in a pipeline. */
#include "cr-test-main.h"
#include "cr-test-video.h"
static const gchar *const formats[] = { "I420", "YV12", "Y41B", "Y42B", "Y444",
  "NV12", "NV21", "NV16", "NV24", "I420_10LE", "I422_10LE", "Y444_10LE",
  "P010_10LE", "P016_LE", "GRAY8", "GRAY16_LE", "RGBA", "BGRx", "RGB" };

static GstHarness *
stats_harness (const gchar *format, gint w, gint h, gboolean per_channel,
    gint component, const gchar *threshold, const gchar *interval)
{
  g_autofree gchar *comp = g_strdup_printf ("%d", component);
  return cr_test_harness (cr_test_video_caps (format, w, h, 30), "monoid",
      "stats", "accumulator", STATS_ACC, "load", STATS_LOAD, "combine",
      STATS_COMBINE, "identity", STATS_IDENTITY, "context-fields",
      "threshold:float64", "threshold", threshold, "per-channel",
      per_channel ? "true" : "false", "component", comp, "interval", interval,
      NULL);
}

static void
check_frames (GRand *rand, const gchar *format, gint w, gint h, guint pad,
    gboolean per_channel, gint component)
{
  const gdouble t = cr_test_threshold_of (format);
  g_autofree gchar *tstr = g_strdup_printf ("%.1f", t);
  g_autofree gchar *what = g_strdup_printf ("%s %dx%d pad %u, per-channel %d, "
                                            "component %d",
      format, w, h, pad, per_channel, component);
  GstHarness *h_ =
      stats_harness (format, w, h, per_channel, component, tstr, "0");

  for (guint n = 0; n < 2; n++) {
    CrTestFrame f = cr_test_frame_new (rand, format, w, h, pad);
    CrTestExpected e;
    cr_test_expected_init (&e, per_channel, component);
    cr_test_expect_frame (&e, &f, 0, t);
    g_autoptr (GstStructure) s =
        cr_test_push_for_result (h_, cr_test_frame_buffer (&f, n),
            gst_util_uint64_scale (n, GST_SECOND, 30), what);
    cr_test_check_result (s, &e, what);
    g_free (f.data);
  }
  gst_harness_teardown (h_);
}

GST_START_TEST (test_video_every_format_and_selection)
{
  g_autoptr (GRand) rand = cr_test_rand ();

  for (guint k = 0; k < G_N_ELEMENTS (formats); k++) {
    GstVideoInfo info;
    gst_video_info_set_format (
        &info, gst_video_format_from_string (formats[k]), 16, 16);
    const gint n = GST_VIDEO_INFO_N_COMPONENTS (&info);
    /* Odd sizes round chroma up; padded strides must not be read. */
    check_frames (rand, formats[k], 37, 23, 0, FALSE, -1);
    check_frames (rand, formats[k], 64, 48, 40, FALSE, -1);
    check_frames (rand, formats[k], 37, 23, 24, TRUE, -1);
    for (gint c = 0; c < n; c++)
      check_frames (rand, formats[k], 37, 23, 8, FALSE, c);
    check_frames (rand, formats[k], 64, 48, 0, TRUE, n - 1);
  }
}

GST_END_TEST;

/* Six frames at 30/s in 100 ms intervals: two results of three frames,
 * with indices and counts that continue from frame to frame. */
static void
check_interval (GRand *rand, const gchar *format, gboolean per_channel)
{
  const gdouble t = cr_test_threshold_of (format);
  g_autofree gchar *tstr = g_strdup_printf ("%.1f", t);
  g_autofree gchar *what =
      g_strdup_printf ("%s interval, per-channel %d", format, per_channel);
  GstHarness *h =
      stats_harness (format, 40, 30, per_channel, -1, tstr, "100000000");
  CrTestExpected e[2];

  for (guint n = 0; n < 6; n++) {
    CrTestFrame f = cr_test_frame_new (rand, format, 40, 30, 16);
    if (n % 3 == 0)
      cr_test_expected_init (&e[n / 3], per_channel, -1);
    cr_test_expect_frame (&e[n / 3], &f, n % 3, t);
    cr_test_push_ok (h, cr_test_frame_buffer (&f, n), what);
    g_free (f.data);
  }
  g_autoptr (GPtrArray) results = cr_test_results_after_eos (h, what);
  fail_unless_equals_int (results->len, 2);
  for (guint k = 0; k < 2; k++)
    cr_test_check_result (g_ptr_array_index (results, k), &e[k], what);
  gst_harness_teardown (h);
}

GST_START_TEST (test_video_intervals)
{
  g_autoptr (GRand) rand = cr_test_rand ();
  const gchar *const some[] = { "I420", "NV21", "P010_10LE", "BGRx" };

  for (guint k = 0; k < G_N_ELEMENTS (some); k++) {
    check_interval (rand, some[k], FALSE);
    check_interval (rand, some[k], TRUE);
  }
}

GST_END_TEST;

GST_START_TEST (test_video_tensor_per_component)
{
  g_autoptr (GRand) rand = cr_test_rand ();
  GstHarness *h = cr_test_harness (cr_test_video_caps ("NV12", 32, 18, 30),
      "monoid", "sum", "per-channel", "true", "output", "tensor", NULL);
  CrTestFrame f = cr_test_frame_new (rand, "NV12", 32, 18, 0);
  CrTestExpected e;

  cr_test_expected_init (&e, TRUE, -1);
  cr_test_expect_frame (&e, &f, 0, 0);
  cr_test_push_ok (h, cr_test_frame_buffer (&f, 0), "NV12 tensor");
  g_autoptr (GstBuffer) out = gst_harness_pull (h);
  fail_unless_equals_int (gst_buffer_n_memory (out), 1);
  guint64 sums[3];
  fail_unless_equals_int (gst_buffer_extract (out, 0, sums, sizeof sums), 24);
  for (guint v = 0; v < 3; v++)
    fail_unless (sums[v] == e.values[v].sum,
        "component %u: %" G_GUINT64_FORMAT ", expected %" G_GUINT64_FORMAT, v,
        sums[v], e.values[v].sum);
  g_autoptr (GstCaps) caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless_equals_string (
      gst_structure_get_string (gst_caps_get_structure (caps, 0), "dimensions"),
      "3");
  g_free (f.data);
  gst_harness_teardown (h);
}

GST_END_TEST;

static void
expect_component_refused (const gchar *format, const gchar *component)
{
  GstHarness *h = cr_test_harness (cr_test_video_caps (format, 16, 16, 30),
      "monoid", "sum", "component", component, NULL);
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 16 * 16 * 4, NULL);
  gst_buffer_memset (buf, 0, 1, 16 * 16 * 4);
  gst_harness_push (h, buf);
  g_autoptr (GstMessage) msg = cr_test_pop_error (h);
  fail_unless (msg != NULL, "%s component %s: no error", format, component);
  g_autoptr (GError) error = NULL;
  gst_message_parse_error (msg, &error, NULL);
  fail_unless (
      strstr (error->message, "component=") != NULL, "%s", error->message);
  gst_harness_teardown (h);
}

GST_START_TEST (test_video_component_out_of_range)
{
  expect_component_refused ("I420", "3");
  expect_component_refused ("GRAY8", "1");
  expect_component_refused ("BGRx", "3");
}

GST_END_TEST;

/* videotestsrc's frames, with whatever layout it and the caps choose,
 * copied at cudareduce's sink pad for the reference. */
static void
check_pipeline (const gchar *format, const gchar *props, gboolean per_channel,
    gint component)
{
  g_autofree gchar *stats = cr_test_stats_props (format);
  g_autofree gchar *desc = g_strdup_printf (
      "videotestsrc num-buffers=4 pattern=snow ! "
      "video/x-raw,format=%s,width=70,height=42 ! identity name=frames ! "
      "cudareduce name=r %s %s ! fakesink",
      format, stats, props);
  cr_test_check_pipeline (desc, format, 4, per_channel, component, NULL);
}

GST_START_TEST (test_video_from_videotestsrc)
{
  check_pipeline ("I420", "per-channel=true", TRUE, -1);
  check_pipeline ("NV12", "", FALSE, -1);
  check_pipeline ("P010_10LE", "component=2", FALSE, 2);
  check_pipeline ("Y444", "per-channel=true component=0", TRUE, 0);
}

GST_END_TEST;

/* YUV per component: a reducer for each plane (NV12's Y, and U and V
 * together; I420's three), each with a window of its own. 50 fps, 40 ms
 * hops of 2 frames, windows of 3 hops; 13 frames are 6 hops and one frame
 * at EOS. cr-test-video's monoid checks every statistic and the index,
 * which counts frames since the stream started. */
GST_START_TEST (test_window_yuv_planes)
{
  static const gchar *const yuv[] = { "NV12", "I420" };
  g_autoptr (GRand) rand = cr_test_rand ();
  enum { FRAMES = 13, HOP = 2, HOPS = 3 };
  for (guint f = 0; f < G_N_ELEMENTS (yuv); f++) {
    g_autofree gchar *props = cr_test_stats_props (yuv[f]);
    g_autofree gchar *desc = g_strdup_printf ("cudareduce %s per-channel=true "
                                              "interval=40000000 "
                                              "window=120000000",
        props);
    GstHarness *h = gst_harness_new_parse (desc);
    GstBus *bus = gst_bus_new ();
    gst_element_set_bus (h->element, bus);
    gst_object_unref (bus);
    gst_harness_set_src_caps (h,
        gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING, yuv[f],
            "width", G_TYPE_INT, 162, "height", G_TYPE_INT, 91, "framerate",
            GST_TYPE_FRACTION, 50, 1, NULL));
    CrTestFrame frames[FRAMES];
    for (guint k = 0; k < FRAMES; k++) {
      frames[k] = cr_test_frame_new (rand, yuv[f], 162, 91, k % 3 * 8);
      GstBuffer *buf = cr_test_frame_buffer (&frames[k], k);
      GST_BUFFER_PTS (buf) = k * 20 * GST_MSECOND;
      GST_BUFFER_DURATION (buf) = 20 * GST_MSECOND;
      cr_test_push_ok (h, buf, yuv[f]);
    }
    g_autoptr (GPtrArray) results = cr_test_results_after_eos (h, yuv[f]);
    const guint n_hops = (FRAMES + HOP - 1) / HOP;
    fail_unless_equals_int (results->len, n_hops);
    for (guint k = 0; k < n_hops; k++) {
      const guint from = (k + 1 >= HOPS ? k + 1 - HOPS : 0) * HOP;
      const guint to = MIN ((k + 1) * HOP, FRAMES);
      CrTestExpected e;
      cr_test_expected_init (&e, TRUE, -1);
      for (guint j = from; j < to; j++)
        cr_test_expect_frame (&e, &frames[j], j, cr_test_threshold_of (yuv[f]));
      g_autofree gchar *what = g_strdup_printf (
          "%s, hop %u (frames %u to %u)", yuv[f], k, from, to - 1);
      cr_test_check_result (g_ptr_array_index (results, k), &e, what);
    }
    for (guint k = 0; k < FRAMES; k++)
      g_free (frames[k].data);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

static const CrTestCase cases[] = {
  CR_TEST_CASE (test_window_yuv_planes),
  CR_TEST_CASE (test_video_every_format_and_selection),
  CR_TEST_CASE (test_video_intervals),
  CR_TEST_CASE (test_video_tensor_per_component),
  CR_TEST_CASE (test_video_component_out_of_range),
  CR_TEST_CASE (test_video_from_videotestsrc),
  { NULL },
};

static const CrGpuTest gpu_video = {
  .name = "gpu-video",
  .timeout = 600,
  .needs = CR_TEST_NEEDS_NVRTC,
  .cases = cases,
};

CR_TEST_GPU_MAIN (gpu_video);
