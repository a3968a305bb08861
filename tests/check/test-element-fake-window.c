/* test-element-fake-window.c: the window property's results on the CPU,
 * against the fake driver (test-element-fake.c says what that checks):
 * how many results, the hops each spans (timestamps, durations, counts),
 * window-complete, a discontinuity starting afresh, and the settings
 * refused. The values the window's kernels combine are checked in the GPU
 * suite (test-gpu-window.c). */
#include "cr-test-fake.h"
#include "cr-test-leaks.h"

static gboolean
window_complete (const GstStructure *s)
{
  gboolean complete = FALSE;
  fail_unless (gst_structure_get_boolean (s, "window-complete", &complete),
      "no window-complete in %" GST_PTR_FORMAT, s);
  return complete;
}

/* 7 ms buffers, 100 ms hops, a 300 ms window: each result spans the last
 * three hops, the first two fewer, and the part under way at EOS ends a
 * last hop of 50 ms. */
GST_START_TEST (test_window_spans_hops)
{
  GstHarness *h =
      cr_test_harness (cr_test_audio_caps ("F32LE", CR_FAKE_RATE, 2), "monoid",
          "sumsq", "interval", "100000000", "window", "300000000", NULL);
  gst_harness_play (h);
  const guint frames = 336; /* 7 ms */
  const guint n = 50; /* 350 ms */
  for (guint k = 0; k < n; k++)
    cr_test_push_ok (h,
        cr_fake_audio_buffer (frames,
            gst_util_uint64_scale_int (k * frames, GST_SECOND, CR_FAKE_RATE)),
        "window");
  g_autoptr (GPtrArray) results = cr_test_results_after_eos (h, "window");
  fail_unless_equals_int (results->len, 4);
  /* Each hop's frames: three whole, then 2400 at EOS. */
  const guint64 hop_frames[] = { 4800, 4800, 4800, 2400 };
  for (guint k = 0; k < results->len; k++) {
    const GstStructure *s = g_ptr_array_index (results, k);
    const guint first = k >= 2 ? k - 2 : 0;
    guint64 frames_spanned = 0;
    for (guint j = first; j <= k; j++)
      frames_spanned += hop_frames[j];
    fail_unless_equals_uint64 (
        cr_fake_get_uint64 (s, "count"), frames_spanned * 2);
    cr_test_check_time (s, "timestamp", first * 100 * MS, "window");
    cr_test_check_time (s, "duration",
        gst_util_uint64_scale_int (frames_spanned, GST_SECOND, CR_FAKE_RATE),
        "window");
    fail_unless_equals_int (window_complete (s), k >= 2);
  }
  cr_fake_teardown (h);
}

GST_END_TEST;

/* A busy GPU (each job done 2 ms after it is queued): buffers that end
 * hops join batches with the others, and each result still spans its
 * window's rows. 1 ms buffers of 48 frames, 5 ms hops, 15 ms windows, 200
 * buffers: one in five ends a hop, so more than four in five gathered
 * means some that end hops were. */
GST_START_TEST (test_window_busy_gpu)
{
  enum { N = 200, FRAMES = 48, HOP = 240 };
  g_setenv ("CR_FAKE_CUDA_LATENCY_US", "2000", TRUE);
  guint gathered = 0;
  cr_test_count_batches_start ();
  GstHarness *h =
      cr_test_harness (cr_test_audio_caps ("F32LE", CR_FAKE_RATE, 2), "monoid",
          "sumsq", "interval", "5000000", "window", "15000000", NULL);
  gst_harness_play (h);
  for (guint k = 0; k < N; k++)
    cr_test_push_ok (h, cr_fake_audio_buffer (FRAMES, k * MS), "busy");
  g_autoptr (GPtrArray) results = cr_test_results_after_eos (h, "busy");
  cr_test_count_batches_stop (NULL, &gathered);
  fail_unless_equals_int (results->len, N * FRAMES / HOP);
  for (guint k = 0; k < results->len; k++) {
    const GstStructure *s = g_ptr_array_index (results, k);
    const guint spans = MIN (k + 1, 3);
    fail_unless_equals_uint64 (
        cr_fake_get_uint64 (s, "count"), (guint64)spans * HOP * 2);
    cr_test_check_time (s, "timestamp", (k + 1 - spans) * 5 * MS, "busy");
    fail_unless_equals_int (window_complete (s), k >= 2);
  }
  fail_unless (gathered > N - N * FRAMES / HOP,
      "%u of %u buffers gathered: those that end hops launch alone", gathered,
      N);
  cr_fake_teardown (h);
}

GST_END_TEST;

/* A DISCONT starts the window afresh: the results after it span only the
 * hops since, and say so. */
GST_START_TEST (test_window_discont)
{
  GstHarness *h =
      cr_test_harness (cr_test_audio_caps ("F32LE", CR_FAKE_RATE, 2), "monoid",
          "mean_var", "interval", "10000000", "window", "20000000", NULL);
  gst_harness_play (h);
  for (guint k = 0; k < 3; k++)
    cr_test_push_ok (h, cr_fake_audio_buffer (480, k * 10 * MS), "before");
  GstBuffer *jump = cr_fake_audio_buffer (480, GST_SECOND);
  GST_BUFFER_FLAG_SET (jump, GST_BUFFER_FLAG_DISCONT);
  cr_test_push_ok (h, jump, "discont");
  cr_test_push_ok (
      h, cr_fake_audio_buffer (480, GST_SECOND + 10 * MS), "after");
  g_autoptr (GPtrArray) results = cr_test_results_after_eos (h, "discont");
  const gboolean complete[] = { FALSE, TRUE, TRUE, FALSE, TRUE };
  const guint64 counts[] = { 960, 1920, 1920, 960, 1920 };
  const GstClockTime starts[] = { 0, 0, 10 * MS, GST_SECOND, GST_SECOND };
  fail_unless_equals_int (results->len, G_N_ELEMENTS (complete));
  for (guint k = 0; k < results->len; k++) {
    const GstStructure *s = g_ptr_array_index (results, k);
    fail_unless_equals_int (window_complete (s), complete[k]);
    fail_unless_equals_uint64 (cr_fake_get_uint64 (s, "count"), counts[k]);
    cr_test_check_time (s, "timestamp", starts[k], "discont");
  }
  cr_fake_teardown (h);
}

GST_END_TEST;

/* A window of one interval is tumbling intervals: no window-complete. */
GST_START_TEST (test_window_of_one_interval)
{
  GstHarness *h =
      cr_test_harness (cr_test_audio_caps ("F32LE", CR_FAKE_RATE, 2), "monoid",
          "sum", "interval", "10000000", "window", "10000000", NULL);
  gst_harness_play (h);
  GstStructure *s =
      cr_test_push_for_result (h, cr_fake_audio_buffer (480, 0), 0, "one");
  fail_if (gst_structure_has_field (s, "window-complete"));
  fail_unless_equals_uint64 (cr_fake_get_uint64 (s, "count"), 960);
  gst_structure_free (s);
  cr_fake_teardown (h);
}

GST_END_TEST;

/* Per channel and with bins: each result's counts span the window. */
GST_START_TEST (test_window_per_channel_histogram)
{
  GstHarness *h =
      cr_test_harness (cr_test_audio_caps ("S16LE", CR_FAKE_RATE, 3), "monoid",
          "histogram", "bins", "64", "per-channel", "true", "interval",
          "10000000", "window", "40000000", NULL);
  gst_harness_play (h);
  for (guint k = 0; k < 6; k++) {
    GstBuffer *buf = gst_buffer_new_allocate (NULL, 480 * 3 * 2, NULL);
    GST_BUFFER_PTS (buf) = k * 10 * MS;
    GST_BUFFER_DURATION (buf) = 10 * MS;
    cr_test_push_ok (h, buf, "histogram");
  }
  g_autoptr (GPtrArray) results = cr_test_results_after_eos (h, "histogram");
  fail_unless_equals_int (results->len, 6);
  for (guint k = 0; k < results->len; k++) {
    const GstStructure *s = g_ptr_array_index (results, k);
    const GValue *counts = gst_structure_get_value (s, "counts");
    fail_unless (counts && gst_value_array_get_size (counts) == 3);
    for (guint c = 0; c < 3; c++)
      fail_unless_equals_uint64 (
          g_value_get_uint64 (gst_value_array_get_value (counts, c)),
          480 * MIN (k + 1, 4));
    fail_unless (gst_structure_has_field (s, "histogram"));
    fail_unless_equals_int (window_complete (s), k >= 3);
  }
  cr_fake_teardown (h);
}

GST_END_TEST;

/* Settings refused at start, each with what to set. */
static void
expect_refused (const gchar *interval, const gchar *window, const gchar *says)
{
  GstElement *e = gst_element_factory_make ("cudareduce", NULL);
  gst_util_set_object_arg (G_OBJECT (e), "interval", interval);
  gst_util_set_object_arg (G_OBJECT (e), "window", window);
  cr_fake_expect_start_error (
      e, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS, "window", says);
}

GST_START_TEST (test_window_refused)
{
  expect_refused ("0", "400000000", "not set");
  expect_refused ("100000000", "250000000", "200000000 or 300000000");
  expect_refused ("100000000", "50000000", "multiple of interval");
  expect_refused ("1000000", "2000000000", "more than the 1024");
}

GST_END_TEST;

static Suite *
element_fake_window_suite (void)
{
  Suite *s = suite_create ("element-fake-window");
  TCase *tc = tcase_create ("fake-gpu");
  cr_test_check_objects (tc);
  tcase_add_checked_fixture (tc, cr_fake_reset, NULL);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_window_spans_hops);
  tcase_add_test (tc, test_window_busy_gpu);
  tcase_add_test (tc, test_window_discont);
  tcase_add_test (tc, test_window_of_one_interval);
  tcase_add_test (tc, test_window_per_channel_histogram);
  tcase_add_test (tc, test_window_refused);
  return s;
}

GST_CHECK_MAIN (element_fake_window);
