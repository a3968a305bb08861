/* test-element-fake-start.c: how the element starts on a program its
 * kernel cache lacks, against the fake driver and NVRTC (which says it is
 * 12.8, so it takes --Ofast-compile): by default on kernels compiled for
 * time, with the optimized ones following, as its INFO line says; from the
 * optimized image, which that start cached, the next time; and with
 * GST_CUDAREDUCE_FAST_START=0 on the optimized kernels at once. No kernel
 * runs here: gpu-upgrade checks the results across the swap. */
#include "cr-test-fake.h"

#include <string.h>

/* The element's INFO lines about its programs ("monoid NAME on TYPE
 * input: compiled ..." or "... cached image ..."), as logged. */
static GMutex lines_lock;
static GPtrArray *lines;

static void
keep_program_lines (GstDebugCategory *category, GstDebugLevel level,
    const gchar *file, const gchar *function, gint line, GObject *object,
    GstDebugMessage *message, gpointer user_data)
{
  const gchar *text = gst_debug_message_get (message);
  if (level != GST_LEVEL_INFO
      || strcmp (gst_debug_category_get_name (category), "cudareduce") != 0
      || !g_str_has_prefix (text, "monoid ") || !strstr (text, " input: "))
    return;
  g_mutex_lock (&lines_lock);
  g_ptr_array_add (lines, g_strdup (text));
  g_mutex_unlock (&lines_lock);
}

/* A kernel cache of the case's own, and the element's lines kept. */
static gchar *
start_setup (void)
{
  gchar *dir = cr_test_make_dir ("cr-start");
  g_setenv ("GST_CUDAREDUCE_CACHE_DIR", dir, TRUE);
  lines = g_ptr_array_new_with_free_func (g_free);
  gst_debug_set_active (TRUE);
  gst_debug_set_threshold_for_name ("cudareduce", GST_LEVEL_INFO);
  gst_debug_add_log_function (keep_program_lines, NULL, NULL);
  return dir;
}

static void
start_teardown (gchar *dir)
{
  gst_debug_remove_log_function (keep_program_lines);
  g_clear_pointer (&lines, g_ptr_array_unref);
  cr_test_remove_dir (dir);
  g_free (dir);
}

/* One pipeline of per-channel sumsq on stereo F32 played to its end: its
 * line about the program (there is one). */
static gchar *
play_once (void)
{
  g_autoptr (GError) error = NULL;
  GstElement *p =
      gst_parse_launch ("audiotestsrc num-buffers=3 samplesperbuffer=480 ! "
                        "audio/x-raw,format=F32LE,rate=48000,channels=2 ! "
                        "cudareduce monoid=sumsq per-channel=true ! fakesink",
          &error);
  fail_unless (p != NULL, "%s", error ? error->message : "");
  g_mutex_lock (&lines_lock);
  g_ptr_array_set_size (lines, 0);
  g_mutex_unlock (&lines_lock);
  g_autoptr (GPtrArray) results = cr_fake_play_to_eos (p, "start");
  fail_unless_equals_int (results->len, 3);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  g_mutex_lock (&lines_lock);
  fail_unless_equals_int (lines->len, 1);
  gchar *line = g_strdup (lines->pdata[0]);
  g_mutex_unlock (&lines_lock);
  return line;
}

/* How many images @dir holds once it holds @n, or after 10 s. */
static guint
entries_within (const gchar *dir, guint n)
{
  const gint64 until = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  guint len;
  do {
    g_autoptr (GPtrArray) entries = cr_test_files_ending (dir, ".bin");
    len = entries->len;
    if (len >= n)
      break;
    g_usleep (10000);
  } while (g_get_monotonic_time () < until);
  return len;
}

/* The default: compiled for time first; the optimized image, compiled on
 * its own thread and cached, is what the next start loads. */
GST_START_TEST (test_fast_start_by_default)
{
  g_unsetenv ("GST_CUDAREDUCE_FAST_START");
  gchar *dir = start_setup ();
  g_autofree gchar *first = play_once ();
  fail_unless (strstr (first, ": compiled for ")
          && strstr (first, "compiled for time: the optimized kernels follow"),
      "first start: %s", first);
  /* Both images reach the cache: the fast one, and the optimized one
   * from its thread, which a stop does not wait for. */
  fail_unless_equals_int (entries_within (dir, 2), 2);
  g_autofree gchar *second = play_once ();
  fail_unless (strstr (second, "cached image") && !strstr (second, "for time"),
      "second start: %s", second);
  start_teardown (dir);
}

GST_END_TEST;

/* Turned off: the optimized kernels at once, one image cached. */
GST_START_TEST (test_fast_start_off)
{
  g_setenv ("GST_CUDAREDUCE_FAST_START", "0", TRUE);
  gchar *dir = start_setup ();
  g_autofree gchar *first = play_once ();
  fail_unless (strstr (first, ": compiled for ") && !strstr (first, "for time"),
      "first start: %s", first);
  g_autoptr (GPtrArray) entries = cr_test_files_ending (dir, ".bin");
  fail_unless_equals_int (entries->len, 1);
  g_autofree gchar *second = play_once ();
  fail_unless (strstr (second, "cached image") && !strstr (second, "for time"),
      "second start: %s", second);
  start_teardown (dir);
  g_unsetenv ("GST_CUDAREDUCE_FAST_START");
}

GST_END_TEST;

static Suite *
element_fake_start_suite (void)
{
  Suite *s = suite_create ("element-fake-start");
  TCase *tc = tcase_create ("start");
  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, cr_fake_reset, NULL);
  tcase_add_test (tc, test_fast_start_by_default);
  tcase_add_test (tc, test_fast_start_off);
  return s;
}

GST_CHECK_MAIN (element_fake_start);
