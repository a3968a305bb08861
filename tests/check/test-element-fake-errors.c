/* test-element-fake-errors.c: what the element does when the GPU fails
 * it, against the fake driver (test-element-fake.c says how): CUDA calls
 * that fail, a monoid that faults or never ends, a compile error, and
 * starting without a GPU or with one out of range. Each error must say
 * what failed, and no result may follow it. A fault or a kernel that
 * never ends stays with the process, as with the driver: those cases run
 * only forked. */
#include "cr-test-fake.h"
#include "cr-test-leaks.h"

#include <string.h>

/* A monoid that does not compile (the fake NVRTC's log has an error
 * line): the error names it, the debug text has the log and the numbered
 * source, and no result is posted. */
GST_START_TEST (test_compile_error)
{
  g_setenv ("CR_FAKE_NVRTC_FAIL", "Compile", TRUE);
  /* A source of its own, which no earlier run left in the cache. */
  g_autofree gchar *load =
      g_strdup_printf ("Acc r; r.s = x; /* %08x%08x */ return r;",
          g_random_int (), g_random_int ());
  GstHarness *h =
      cr_test_harness (cr_test_audio_caps ("F32LE", CR_FAKE_RATE, 2), "monoid",
          "mine", "accumulator", "s:wide", "load", load, "combine",
          "Acc r; r.s = a.s + b.s; return r;", "identity",
          "Acc r; r.s = 0; return r;", NULL);
  gst_harness_play (h);
  fail_if (gst_harness_push (h, cr_fake_audio_buffer (480, 0)) == GST_FLOW_OK);
  g_autoptr (GstMessage) msg = cr_test_pop_error (h);
  fail_unless (msg != NULL);
  g_autoptr (GError) error = NULL;
  g_autofree gchar *debug = NULL;
  gst_message_parse_error (msg, &error, &debug);
  fail_unless (
      g_error_matches (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS),
      "%s", error->message);
  fail_unless (strstr (error->message, "does not compile")
          && strstr (error->message, "the fake refuses this monoid"),
      "%s", error->message);
  fail_unless (debug && strstr (debug, "NVRTC log")
          && strstr (debug, "a fake warning")
          && strstr (debug, "Generated source"),
      "%s", debug);
  cr_fake_expect_no_result (h);
  g_unsetenv ("CR_FAKE_NVRTC_FAIL");
  cr_fake_teardown (h);
}

GST_END_TEST;

/* Starting: no GPU, an id out of range, a context that cannot be made. */
static void
expect_start_error (const gchar *device_id, GQuark domain, gint code,
    const gchar *m1, const gchar *m2)
{
  GstElement *e = gst_element_factory_make ("cudareduce", NULL);
  if (device_id)
    gst_util_set_object_arg (G_OBJECT (e), "cuda-device-id", device_id);
  cr_fake_expect_start_error (e, domain, code, m1, m2);
}

GST_START_TEST (test_start_errors)
{
  g_setenv ("CR_FAKE_CUDA_DEVICES", "2", TRUE);
  expect_start_error ("2", GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
      "cuda-device-id=2 is out of range", "2 GPUs");
  g_setenv ("CR_FAKE_CUDA_DEVICES", "0", TRUE);
  expect_start_error (NULL, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
      "reports no GPU", NULL);
  g_setenv ("CR_FAKE_CUDA_DEVICES", "1", TRUE);
  g_setenv ("CR_FAKE_CUDA_FAIL", "CtxCreate", TRUE);
  expect_start_error (NULL, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
      "CUDA context", "CUDA_ERROR_OUT_OF_MEMORY");
}

GST_END_TEST;

/* CUDA calls that fail on the way to a result: each is an element error
 * that names the call and the CUDA error, and no result is posted. */
static void
expect_buffer_error (const gchar *call, const gchar *code, const gchar *name)
{
  g_setenv ("CR_FAKE_CUDA_FAIL", call, TRUE);
  g_setenv ("CR_FAKE_CUDA_ERROR", code, TRUE);
  GstHarness *h = cr_test_harness (
      cr_test_audio_caps ("F32LE", CR_FAKE_RATE, 2), "monoid", "sum", NULL);
  gst_harness_play (h);
  /* A launch fails on this thread; a wait on the results thread, after
   * the push returned. Either way the error is posted, and the next push
   * fails. */
  gst_harness_push (h, cr_fake_audio_buffer (4800, 0));
  cr_fake_expect_error (
      h, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED, name, NULL);
  const GstFlowReturn ret =
      gst_harness_push (h, cr_fake_audio_buffer (4800, 100 * MS));
  fail_unless (
      ret != GST_FLOW_OK, "%s: push after the error returned ok", call);
  cr_fake_expect_no_result (h);
  cr_fake_teardown (h);
}

GST_START_TEST (test_launch_fails)
{
  expect_buffer_error (
      "LaunchKernel", "701", "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES");
}

GST_END_TEST;

GST_START_TEST (test_wait_fails)
{
  expect_buffer_error ("EventSynchronize", "719", "CUDA_ERROR_LAUNCH_FAILED");
}

GST_END_TEST;

/* Memory for the program's buffers, allocated with the first caps. */
GST_START_TEST (test_alloc_fails)
{
  expect_buffer_error ("MemAlloc", "2", "CUDA_ERROR_OUT_OF_MEMORY");
}

GST_END_TEST;

/* A monoid whose kernels fault (fake-nvrtc.c marks its image): the
 * element says the monoid's code faulted, and nothing is posted. */
GST_START_TEST (test_monoid_faults)
{
  if (cr_fake_unforked ("test_monoid_faults"))
    return;
  GstHarness *h =
      cr_test_harness (cr_test_audio_caps ("F32LE", CR_FAKE_RATE, 1), "monoid",
          "bad", "accumulator", "s:wide", "load",
          "Acc r; r.s = x; /* CR_FAKE_FAULTS */ return r;", "combine",
          "Acc r; r.s = a.s + b.s; return r;", "identity",
          "Acc r; r.s = 0; return r;", NULL);
  gst_harness_play (h);
  gst_harness_push (h, cr_fake_audio_buffer (4800, 0));
  cr_fake_expect_error (h, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
      "after a fault in the monoid's code", "CUDA_ERROR_ILLEGAL_ADDRESS", NULL);
  cr_fake_expect_no_result (h);
  cr_fake_teardown (h);
}

GST_END_TEST;

/* A monoid whose kernels never end: gpu-timeout gives up on it with an
 * error, refuses further buffers, and stopping returns at once. */
GST_START_TEST (test_monoid_never_ends)
{
  if (cr_fake_unforked ("test_monoid_never_ends"))
    return;
  GstHarness *h =
      cr_test_harness (cr_test_audio_caps ("F32LE", CR_FAKE_RATE, 1), "monoid",
          "spin", "accumulator", "s:wide", "load",
          "Acc r; r.s = x; /* CR_FAKE_NEVER_ENDS */ return r;", "combine",
          "Acc r; r.s = a.s + b.s; return r;", "identity",
          "Acc r; r.s = 0; return r;", "gpu-timeout", "500000000", NULL);
  gst_harness_play (h);
  const gint64 t0 = g_get_monotonic_time ();
  gst_harness_push (h, cr_fake_audio_buffer (4800, 0));
  cr_fake_expect_error (h, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
      "did not finish", "spin", "gpu-timeout", NULL);
  const gint64 waited = g_get_monotonic_time () - t0;
  fail_unless (
      waited < 30 * G_USEC_PER_SEC, "the error took %.1f s", waited / 1e6);
  /* The error is posted before the queue refuses (so that it is the
   * first on the bus): a push may slip in between, not after. */
  GstFlowReturn ret = GST_FLOW_OK;
  for (guint k = 1; k <= 100 && ret == GST_FLOW_OK; k++) {
    ret = gst_harness_push (h, cr_fake_audio_buffer (4800, k * 100 * MS));
    if (ret == GST_FLOW_OK)
      g_usleep (10000);
  }
  fail_unless_equals_int (ret, GST_FLOW_ERROR);
  cr_fake_expect_no_result (h);
  const gint64 t1 = g_get_monotonic_time ();
  gst_bus_set_flushing (GST_ELEMENT_BUS (h->element), TRUE);
  gst_harness_teardown (h);
  fail_unless (g_get_monotonic_time () - t1 < 10 * G_USEC_PER_SEC,
      "stopping waited for the kernel");
  /* Its context is left to the kernel on purpose (docs/element.md,
   * "Errors"): destroying it would wait for the kernel. */
  fail_unless_equals_int (cr_fake_live_contexts (), 1);
}

GST_END_TEST;

/* Caps the settings cannot read get one error that says what to change,
 * however often the base class offers them again (with each buffer). */
GST_START_TEST (test_refused_caps_posted_once)
{
  GstHarness *h = cr_test_harness (
      cr_test_audio_caps ("F32LE", CR_FAKE_RATE, 1), "component", "1", NULL);
  gst_harness_play (h);
  for (guint k = 0; k < 3; k++)
    fail_if (
        gst_harness_push (h, cr_fake_audio_buffer (480, 0)) == GST_FLOW_OK);
  g_autoptr (GstMessage) msg = cr_test_pop_error (h);
  fail_unless (msg != NULL);
  g_autoptr (GError) error = NULL;
  gst_message_parse_error (msg, &error, NULL);
  fail_unless (strstr (error->message, "component=1 selects nothing"), "%s",
      error->message);
  g_autoptr (GstMessage) again =
      gst_bus_pop_filtered (GST_ELEMENT_BUS (h->element), GST_MESSAGE_ERROR);
  fail_if (again != NULL, "a second error");
  cr_fake_teardown (h);
}

GST_END_TEST;

static Suite *
element_fake_errors_suite (void)
{
  Suite *s = suite_create ("element-fake-errors");
  TCase *tc = tcase_create ("fake-gpu");
  cr_test_check_objects (tc);
  tcase_add_checked_fixture (tc, cr_fake_reset, NULL);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_compile_error);
  tcase_add_test (tc, test_start_errors);
  tcase_add_test (tc, test_launch_fails);
  tcase_add_test (tc, test_wait_fails);
  tcase_add_test (tc, test_alloc_fails);
  tcase_add_test (tc, test_monoid_faults);
  tcase_add_test (tc, test_monoid_never_ends);
  tcase_add_test (tc, test_refused_caps_posted_once);
  return s;
}

GST_CHECK_MAIN (element_fake_errors);
