/* cr-test-fake.c: see cr-test-fake.h. */
#include "cr-test-fake.h"

#include <gmodule.h>
#include <string.h>

/* A buffer of @frames stereo F32 frames stamped @pts, its duration set. */
GstBuffer *
cr_fake_audio_buffer (guint frames, GstClockTime pts)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, frames * 2 * 4, NULL);
  gst_buffer_memset (buf, 0, 0x3c, frames * 2 * 4);
  GST_BUFFER_PTS (buf) = pts;
  GST_BUFFER_DURATION (buf) =
      gst_util_uint64_scale_int (frames, GST_SECOND, CR_FAKE_RATE);
  return buf;
}

guint64
cr_fake_get_uint64 (const GstStructure *s, const gchar *field)
{
  guint64 v = 0;
  fail_unless (gst_structure_get_uint64 (s, field, &v),
      "no guint64 %s in %" GST_PTR_FORMAT, field, s);
  return v;
}

/* The error the element posted, which must mention each of @mentions
 * (NULL-terminated) and be of @domain and @code. */
void
cr_fake_expect_error (
    GstHarness *h, GQuark domain, gint code, const gchar *first, ...)
{
  g_autoptr (GstMessage) msg = cr_test_pop_error (h);
  fail_unless (msg != NULL, "no error posted");
  g_autoptr (GError) error = NULL;
  g_autofree gchar *debug = NULL;
  gst_message_parse_error (msg, &error, &debug);
  fail_unless (error->domain == domain && error->code == code,
      "error %s %d: %s", g_quark_to_string (error->domain), error->code,
      error->message);
  va_list args;
  va_start (args, first);
  for (const gchar *m = first; m; m = va_arg (args, const gchar *))
    fail_unless (strstr (error->message, m) != NULL,
        "\"%s\" does not mention \"%s\"", error->message, m);
  va_end (args);
}

void
cr_fake_expect_start_error (
    GstElement *e, GQuark domain, gint code, const gchar *m1, const gchar *m2)
{
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (e, bus);
  gst_object_unref (bus);
  fail_unless_equals_int (
      gst_element_set_state (e, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
  fail_unless_equals_int (cr_fake_live_contexts (), 0);
  g_autoptr (GstMessage) msg =
      gst_bus_pop_filtered (GST_ELEMENT_BUS (e), GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  g_autoptr (GError) error = NULL;
  gst_message_parse_error (msg, &error, NULL);
  fail_unless (error->domain == domain && error->code == code, "%s %d: %s",
      g_quark_to_string (error->domain), error->code, error->message);
  fail_unless (
      strstr (error->message, m1) && (!m2 || strstr (error->message, m2)), "%s",
      error->message);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_bus_set_flushing (GST_ELEMENT_BUS (e), TRUE);
  gst_object_unref (e);
}

/* No result message left on the bus. */
void
cr_fake_expect_no_result (GstHarness *h)
{
  g_autoptr (GstMessage) msg =
      gst_bus_pop_filtered (GST_ELEMENT_BUS (h->element), GST_MESSAGE_ELEMENT);
  fail_unless (msg == NULL, "a result was posted: %" GST_PTR_FORMAT,
      gst_message_get_structure (msg));
}

/* Each case starts with the fake as the environment leaves it: one GPU
 * that answers at once and fails nothing. (Forked, a case's settings go
 * with its child; cr_fake_unforked, CK_FORK=no as the valgrind setup runs them,
 * they would stay.) */
void
cr_fake_reset (void)
{
  g_unsetenv ("CR_FAKE_CUDA_DEVICES");
  g_unsetenv ("CR_FAKE_CUDA_FAIL");
  g_unsetenv ("CR_FAKE_CUDA_ERROR");
  g_unsetenv ("CR_FAKE_CUDA_LATENCY_US");
  g_unsetenv ("CR_FAKE_NVRTC_FAIL");
  cr_test_set_chunk_bytes (NULL);
}

/* A fault or a kernel that never ends stays with the process, as with
 * the driver: such a case runs only forked. */
gboolean
cr_fake_unforked (const gchar *test)
{
  if (g_strcmp0 (g_getenv ("CK_FORK"), "no") != 0)
    return FALSE;
  g_print ("%s: not run with CK_FORK=no: what it breaks stays with the "
           "process\n",
      test);
  return TRUE;
}

/* The CUDA contexts the fake driver has made and not destroyed. */
gint
cr_fake_live_contexts (void)
{
  static gint (*contexts) (void);
  if (contexts == NULL) {
    GModule *fake =
        g_module_open (g_getenv ("GST_CUDAREDUCE_DRIVER_LIBRARY"), 0);
    fail_unless (fake
            && g_module_symbol (
                fake, "cr_fake_cuda_contexts", (gpointer *)&contexts),
        "the fake driver is not GST_CUDAREDUCE_DRIVER_LIBRARY");
  }
  return contexts ();
}

/* Stopped, an element leaves no CUDA context behind. */
void
cr_fake_teardown (GstHarness *h)
{
  /* Messages left on the bus hold the element, which holds the bus. */
  gst_bus_set_flushing (GST_ELEMENT_BUS (h->element), TRUE);
  gst_harness_teardown (h);
  fail_unless_equals_int (cr_fake_live_contexts (), 0);
}

/* Plays @p until EOS, failing on an error, and returns its cudareduce
 * results in order (copies), each with the posting element's name added
 * as "element". Leaves @p PLAYING. */
GPtrArray *
cr_fake_play_to_eos (GstElement *p, const gchar *what)
{
  GPtrArray *results =
      g_ptr_array_new_with_free_func ((GDestroyNotify)gst_structure_free);
  g_autoptr (GstBus) bus = gst_element_get_bus (p);
  fail_if (
      gst_element_set_state (p, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE,
      "%s: cannot play", what);
  for (;;) {
    g_autoptr (GstMessage) msg = gst_bus_timed_pop_filtered (bus, CR_TEST_WAIT,
        GST_MESSAGE_ELEMENT | GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    fail_unless (msg != NULL, "%s: no EOS", what);
    fail_if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR, "%s: an error", what);
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS)
      return results;
    const GstStructure *s = gst_message_get_structure (msg);
    if (!gst_structure_has_name (s, "cudareduce"))
      continue;
    GstStructure *copy = gst_structure_copy (s);
    gst_structure_set (
        copy, "element", G_TYPE_STRING, GST_OBJECT_NAME (msg->src), NULL);
    g_ptr_array_add (results, copy);
  }
}
