/* live-levels.c: live per-channel levels from a test source, on the GPU.
 *
 * Runs, in real time,
 *
 *   audiotestsrc is-live=true wave=pink-noise ! audio/x-raw,format=F32LE,
 *       channels=C,rate=48000 ! cudareduce monoid=sumsq per-channel=true
 *       interval=100000000 ! fakesink
 *
 * and prints, ten times a second, the RMS level of every channel in dB
 * (full scale 0 dB), computed from the per-channel sums of squares the way
 * the level element computes its "rms" field: 10 log10 (sum of x^2 / n).
 * The noise is drawn sample by sample, so the channels differ a little.
 *
 * Usage: live-levels [CHANNELS [SECONDS]]   (defaults: 2, 5)
 *
 * The plugin must be where GStreamer looks: from a build directory, set
 * GST_PLUGIN_PATH=BUILD_DIR/plugin. */
#include <gst/gst.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

static gboolean
print_levels (const GstStructure *s)
{
  const GValue *sumsq = gst_structure_get_value (s, "sumsq");
  guint64 ts = 0, count = 0;
  guint channels = 0;

  if (sumsq == NULL || !GST_VALUE_HOLDS_ARRAY (sumsq)
      || !gst_structure_get_uint64 (s, "timestamp", &ts)
      || !gst_structure_get_uint64 (s, "count", &count)
      || !gst_structure_get_uint (s, "channels", &channels) || channels == 0)
    return FALSE;
  /* count covers every channel; each channel had count / channels samples. */
  gdouble frames = (gdouble)count / channels;
  g_print ("%" GST_TIME_FORMAT, GST_TIME_ARGS (ts));
  for (guint c = 0; c < gst_value_array_get_size (sumsq); c++) {
    gdouble energy = g_value_get_double (gst_value_array_get_value (sumsq, c));
    gdouble db = energy > 0 ? 10.0 * log10 (energy / frames) : -INFINITY;
    g_print ("  ch%u %7.2f dB", c, db);
  }
  g_print ("\n");
  return TRUE;
}

int
main (int argc, char **argv)
{
  gint channels = argc > 1 ? atoi (argv[1]) : 2;
  gint seconds = argc > 2 ? atoi (argv[2]) : 5;
  GError *error = NULL;

  gst_init (&argc, &argv);
  if (channels < 1 || seconds < 1) {
    g_printerr ("usage: live-levels [CHANNELS [SECONDS]]\n");
    return 2;
  }
  gchar *description = g_strdup_printf (
      "audiotestsrc is-live=true wave=pink-noise samplesperbuffer=480 "
      "num-buffers=%d ! "
      "audio/x-raw,format=F32LE,layout=interleaved,channels=%d,rate=48000 ! "
      "cudareduce monoid=sumsq per-channel=true interval=100000000 ! "
      "fakesink",
      seconds * 100, channels);
  /* Fatal errors: without them a missing element leaves a pipeline that
   * fails later with "not-linked", which says nothing about the cause. */
  GstElement *pipeline = gst_parse_launch_full (
      description, NULL, GST_PARSE_FLAG_FATAL_ERRORS, &error);
  g_free (description);
  if (pipeline == NULL) {
    const gboolean missing = g_error_matches (
        error, GST_PARSE_ERROR, GST_PARSE_ERROR_NO_SUCH_ELEMENT);
    g_printerr ("live-levels: %s%s\n", error->message,
        missing && strstr (error->message, "cudareduce")
            ? "; set GST_PLUGIN_PATH to the build directory's plugin/ folder"
            : missing ? "; is gst-plugins-base installed?"
                      : "");
    g_error_free (error);
    return 1;
  }

  int status = 0;
  GstBus *bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  for (gboolean done = FALSE; !done;) {
    GstMessage *msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
        GST_MESSAGE_ELEMENT | GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
    switch (GST_MESSAGE_TYPE (msg)) {
      case GST_MESSAGE_ELEMENT: {
        const GstStructure *s = gst_message_get_structure (msg);
        if (gst_structure_has_name (s, "cudareduce"))
          print_levels (s);
        break;
      }
      case GST_MESSAGE_ERROR: {
        gchar *debug = NULL;
        gst_message_parse_error (msg, &error, &debug);
        g_printerr (
            "live-levels: %s\n%s\n", error->message, debug ? debug : "");
        g_clear_error (&error);
        g_free (debug);
        status = 1;
        done = TRUE;
        break;
      }
      default:
        done = TRUE;
        break;
    }
    gst_message_unref (msg);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  return status;
}
