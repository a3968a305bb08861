/* test-gpu-stuck.c: a monoid whose code never ends. The element gives up
 * on the GPU after gpu-timeout with an error that names the monoid, the
 * pipeline stops although the kernel still runs (its context is left for
 * the process's exit to end), and the element refuses to start again.
 * test-gpu-stuck-launch.sh drives gst-launch-1.0 the same way. */
#include "cr-test-main.h"

#include <string.h>

/* clock64 is volatile: the loop is not optimized away. */
#define SPIN_PROPS \
  "monoid=spin accumulator=s:wide " \
  "load=\"Acc r; while (clock64 () > 0) {} r.s = x; return r;\" " \
  "combine=\"Acc r; r.s = a.s + b.s; return r;\" " \
  "identity=\"Acc r; r.s = 0; return r;\""

static GstElement *
spin_pipeline (const gchar *timeout)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *desc = g_strdup_printf (
      "audiotestsrc num-buffers=50 samplesperbuffer=4800 ! "
      "audio/x-raw,format=F32LE,rate=48000,channels=1 ! "
      "cudareduce name=r " SPIN_PROPS " gpu-timeout=%s ! fakesink",
      timeout);
  GstElement *pipeline = gst_parse_launch (desc, &error);
  fail_unless (pipeline != NULL, "%s", error ? error->message : "");
  return pipeline;
}

static void
assert_gave_up (GstMessage *msg)
{
  g_autoptr (GError) err = NULL;
  g_autofree gchar *debug = NULL;

  fail_unless (msg != NULL, "no error within a minute");
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_ERROR);
  gst_message_parse_error (msg, &err, &debug);
  fail_unless (
      g_error_matches (err, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED),
      "%s", err->message);
  fail_unless (strstr (err->message, "'spin'") != NULL
          && strstr (err->message, "gpu-timeout") != NULL,
      "the error names neither the monoid nor the property: %s", err->message);
  gst_message_unref (msg);
}

GST_START_TEST (test_stuck_monoid_gives_up)
{
  GstElement *pipeline = spin_pipeline ("1000000000");
  GstBus *bus = gst_element_get_bus (pipeline);

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  const gint64 t0 = g_get_monotonic_time ();
  assert_gave_up (gst_bus_timed_pop_filtered (
      bus, 60 * GST_SECOND, GST_MESSAGE_ERROR | GST_MESSAGE_EOS));
  g_print ("error after %.2f s (gpu-timeout 1 s)\n",
      (g_get_monotonic_time () - t0) / 1e6);

  /* Returns although the kernel runs on: a hang is the test's timeout. */
  fail_unless (gst_element_set_state (pipeline, GST_STATE_NULL)
      == GST_STATE_CHANGE_SUCCESS);
  gst_bus_set_flushing (bus, TRUE);
  gst_bus_set_flushing (bus, FALSE);

  /* It cannot start again, and says so. */
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PAUSED)
      == GST_STATE_CHANGE_FAILURE);
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  g_autoptr (GError) err = NULL;
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (strstr (err->message, "gave up") != NULL, "%s", err->message);
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
}

GST_END_TEST;

static const CrTestCase cases[] = {
  CR_TEST_CASE (test_stuck_monoid_gives_up),
  { NULL },
};

static const CrGpuTest gpu_stuck = {
  .name = "gpu-stuck",
  .timeout = 120,
  .needs = CR_TEST_NEEDS_NVRTC | CR_TEST_NOT_UNDER_SANITIZER,
  .cases = cases,
};

CR_TEST_GPU_MAIN (gpu_stuck);
