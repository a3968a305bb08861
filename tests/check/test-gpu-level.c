/* test-gpu-level.c: cudareduce against GStreamer's level element.
 *
 * level interval=I and cudareduce monoid=sumsq per-channel=true interval=I
 * on the two branches of a tee: every result of cudareduce against the CPU
 * reference of cr-test-ref, and, for every interval both post, level's RMS
 * in dB against 10 log10 (sumsq / frames) of cudareduce's. */
#include "cr-test-main.h"
#include "cr-test-input.h"

#include <gst/app/gstappsrc.h>
#include <math.h>
#include <string.h>

static GRand *rand_;

/* A value of level's per-channel arrays: GValueArray in GStreamer up to
 * now, GST_TYPE_ARRAY should it change. */
static gdouble
level_value (
    const GstStructure *s, const gchar *field, guint c, const gchar *what)
{
  const GValue *v = gst_structure_get_value (s, field);
  const GValue *item = NULL;

  fail_unless (v != NULL, "%s: level posted no %s", what, field);
  if (GST_VALUE_HOLDS_ARRAY (v)) {
    if (c < gst_value_array_get_size (v))
      item = gst_value_array_get_value (v, c);
  } else {
    /* level still builds GValueArray, deprecated since GLib 2.32. */
    G_GNUC_BEGIN_IGNORE_DEPRECATIONS
    fail_unless (G_VALUE_HOLDS (v, g_value_array_get_type ()),
        "%s: level's %s is a %s", what, field, G_VALUE_TYPE_NAME (v));
    GValueArray *array = g_value_get_boxed (v);
    if (array && c < array->n_values)
      item = &array->values[c];
    G_GNUC_END_IGNORE_DEPRECATIONS
  }
  fail_unless (item != NULL && G_VALUE_HOLDS_DOUBLE (item),
      "%s: level's %s has no double for channel %u", what, field, c);
  return g_value_get_double (item);
}

static GstClockTime
abs_diff (GstClockTime a, GstClockTime b)
{
  return a > b ? a - b : b - a;
}

/* level interval=I and cudareduce monoid=sumsq per-channel=true interval=I
 * on the two branches of a tee: for every interval both post, level's RMS
 * in dB is 10 log10 (sumsq / frames) of cudareduce's. */
static void
compare_with_level (guint channels)
{
  const gint rate = 48000;
  const GstClockTime interval = 20 * GST_MSECOND;
  const guint64 per = cr_test_interval_frames (interval, rate); /* 960 */
  const guint64 total = 100 * per + 437;
  g_autofree gchar *what = g_strdup_printf (
      "level against cudareduce, F32LE, %u channels, interval 20 ms", channels);

  /* Buffer sizes that are not multiples of the interval. */
  GArray *sizes = g_array_new (FALSE, FALSE, sizeof (guint64));
  for (guint64 sum = 0; sum < total;) {
    /* Drawn once: MIN evaluates its arguments twice. */
    guint64 draw = (guint64)g_rand_int_range (rand_, 300, 2500);
    guint64 n = MIN (draw, total - sum);
    g_array_append_val (sizes, n);
    sum += n;
  }
  CrTestAudio *st = cr_test_audio_new (rand_, "F32LE", CR_TYPE_FLOAT32, rate,
      channels, 0, (const guint64 *)sizes->data, sizes->len);
  /* Samples as level expects them, in [-1, 1). */
  for (guint64 k = 0; k < total * channels; k++) {
    gfloat x = (gfloat)g_rand_double_range (rand_, -1, 1);
    memcpy (st->data + 4 * k, &x, 4);
  }

  g_autofree gchar *desc = g_strdup_printf (
      "appsrc name=src format=time caps=\"audio/x-raw,format=F32LE,"
      "layout=interleaved,rate=%d,channels=%u,channel-mask=(bitmask)"
      "0x%" G_GINT64_MODIFIER "x\" ! tee name=t "
      "t. ! queue ! level name=level interval=%" G_GUINT64_FORMAT
      " post-messages=true ! fakesink sync=false "
      "t. ! queue ! cudareduce name=cr monoid=sumsq per-channel=true "
      "interval=%" G_GUINT64_FORMAT " ! fakesink sync=false",
      rate, channels, (((guint64)1 << channels) - 1), interval, interval);
  g_autoptr (GError) error = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &error);
  fail_unless (pipeline != NULL && error == NULL, "%s: %s", what,
      error ? error->message : "no pipeline");
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstBus *bus = gst_element_get_bus (pipeline);

  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING)
          != GST_STATE_CHANGE_FAILURE,
      "%s: the pipeline does not start", what);
  for (guint k = 0; k < cr_test_audio_n_buffers (st); k++)
    fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (src),
                                cr_test_audio_buffer (st, k, NULL, NULL)),
        GST_FLOW_OK);
  gst_app_src_end_of_stream (GST_APP_SRC (src));

  GPtrArray *levels =
      g_ptr_array_new_with_free_func ((GDestroyNotify)gst_structure_free);
  GPtrArray *results =
      g_ptr_array_new_with_free_func ((GDestroyNotify)gst_structure_free);
  for (;;) {
    GstMessage *msg = gst_bus_timed_pop_filtered (bus, CR_TEST_WAIT,
        GST_MESSAGE_ELEMENT | GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
    fail_unless (msg != NULL, "%s: no EOS within %" GST_TIME_FORMAT, what,
        GST_TIME_ARGS (CR_TEST_WAIT));
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS) {
      gst_message_unref (msg);
      break;
    }
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      g_autoptr (GError) err = NULL;
      g_autofree gchar *debug = NULL;
      gst_message_parse_error (msg, &err, &debug);
      fail ("%s: error from %s: %s\n%s", what, GST_OBJECT_NAME (msg->src),
          err->message, debug ? debug : "");
    }
    const GstStructure *s = gst_message_get_structure (msg);
    if (gst_structure_has_name (s, "level"))
      g_ptr_array_add (levels, gst_structure_copy (s));
    else if (gst_structure_has_name (s, "cudareduce"))
      g_ptr_array_add (results, gst_structure_copy (s));
    gst_message_unref (msg);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);

  /* cudareduce against the CPU first: 100 intervals and 437 frames. */
  GPtrArray *expected = cr_test_expected_new ();
  const CrTestAudioCut cut = {
    .frames = per, .per_channel = TRUE, .partial_at_eos = TRUE
  };
  cr_test_audio_intervals (expected, st, &cut, what);
  fail_unless (expected->len == (total + per - 1) / per,
      "%s: %u intervals expected of %" G_GUINT64_FORMAT
      " frames (stream of %" G_GUINT64_FORMAT ") by %" G_GUINT64_FORMAT,
      what, expected->len, total, st->frames, per);
  cr_test_check_results (results, expected, &cr_test_monoid_sumsq, TRUE, what);

  /* Then level, matched by timestamp: both count from the first buffer,
   * but level adds up rounded durations and cudareduce adds frames to each
   * buffer's PTS, so they may differ by a nanosecond or so. */
  guint matched_full = 0, level_full = 0;
  for (guint k = 0; k < levels->len; k++) {
    const GstStructure *l = g_ptr_array_index (levels, k);
    guint64 d = 0;
    fail_unless (gst_structure_get_uint64 (l, "duration", &d),
        "%s: level message %u has no duration", what, k);
    level_full += gst_util_uint64_scale_round (d, rate, GST_SECOND) == per;
  }
  for (guint k = 0; k < results->len; k++) {
    const GstStructure *r = g_ptr_array_index (results, k);
    const GstStructure *l = NULL;
    guint64 ts = 0, count = 0, lts = 0, ldur = 0;
    fail_unless (gst_structure_get_uint64 (r, "timestamp", &ts)
            && gst_structure_get_uint64 (r, "count", &count),
        "%s: result %u has no timestamp or count", what, k);
    const guint64 frames = count / channels;
    const gboolean full = frames == per;
    g_autofree gchar *w =
        g_strdup_printf ("%s, interval %u at %" GST_TIME_FORMAT
                         " (%" G_GUINT64_FORMAT " frames)",
            what, k, GST_TIME_ARGS (ts), frames);

    for (guint j = 0; j < levels->len && l == NULL; j++) {
      const GstStructure *cand = g_ptr_array_index (levels, j);
      fail_unless (gst_structure_get_uint64 (cand, "timestamp", &lts),
          "%s: level message %u has no timestamp", what, j);
      if (abs_diff (lts, ts) < (GstClockTime)(GST_SECOND / rate / 2))
        l = cand;
    }
    if (l == NULL) {
      fail_if (full, "%s: level posted nothing for it", w);
      continue;
    }
    fail_unless (gst_structure_get_uint64 (l, "duration", &ldur),
        "%s: level has no duration", w);
    if (gst_util_uint64_scale_round (ldur, rate, GST_SECOND) != frames) {
      /* Only the partial interval at EOS may be cut differently. */
      fail_if (full, "%s: level's interval there is %" GST_TIME_FORMAT, w,
          GST_TIME_ARGS (ldur));
      continue;
    }
    const GValue *sumsq = gst_structure_get_value (r, "sumsq");
    for (guint c = 0; c < channels; c++) {
      gdouble ms = g_value_get_double (gst_value_array_get_value (sumsq, c))
          / (gdouble)frames;
      gdouble db = 10 * log10 (ms);
      gdouble rms = level_value (l, "rms", c, w);
      fail_unless (fabs (db - rms) <= 1e-3,
          "%s, channel %u: cudareduce gives %.6f dB, level %.6f dB", w, c, db,
          rms);
    }
    matched_full += full;
  }
  /* Every whole interval of cudareduce has its counterpart in level. */
  fail_unless (matched_full == total / per && matched_full >= 10,
      "%s: %u whole intervals agree with level, expected %" G_GUINT64_FORMAT,
      what, matched_full, total / per);
  fail_unless (level_full == total / per,
      "%s: level posted %u whole intervals, expected %" G_GUINT64_FORMAT, what,
      level_full, total / per);
  g_ptr_array_unref (expected);
  g_ptr_array_unref (levels);
  g_ptr_array_unref (results);
  g_array_unref (sizes);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (pipeline);
  cr_test_audio_free (st);
}

/* level is in gst-plugins-good. Without it the tests fail, unless
 * CUDAREDUCE_SKIP_LEVEL=1 (for machines that lack it on purpose), when they
 * check nothing. */
static gboolean
have_level (void)
{
  GstElementFactory *factory = gst_element_factory_find ("level");

  if (factory == NULL) {
    fail_unless (g_strcmp0 (g_getenv ("CUDAREDUCE_SKIP_LEVEL"), "1") == 0,
        "the level element (gst-plugins-good) is not installed; set "
        "CUDAREDUCE_SKIP_LEVEL=1 to skip this comparison");
    g_print ("SKIP: no level element, CUDAREDUCE_SKIP_LEVEL=1\n");
    return FALSE;
  }
  gst_object_unref (factory);
  return TRUE;
}

GST_START_TEST (test_level_agrees_stereo)
{
  if (have_level ())
    compare_with_level (2);
}

GST_END_TEST;

GST_START_TEST (test_level_agrees_6_channels)
{
  if (have_level ())
    compare_with_level (6);
}

GST_END_TEST;

static const CrTestCase cases[] = {
  CR_TEST_CASE (test_level_agrees_stereo),
  CR_TEST_CASE (test_level_agrees_6_channels),
  { NULL },
};

static const CrGpuTest gpu_level = {
  .name = "gpu-level",
  .timeout = 600,
  .rand = &rand_,
  .cases = cases,
};

CR_TEST_GPU_MAIN (gpu_level);
