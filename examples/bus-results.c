/* bus-results.c: reads cudareduce's results from the bus.
 *
 * Runs
 *
 *   audiotestsrc num-buffers=N ! audio/x-raw,format=F32LE,channels=1,rate=48000
 *       ! cudareduce monoid=MONOID ! fakesink
 *
 * and prints one line per result: the buffer's timestamp, then every other
 * field of the message (monoid, count and the monoid's own result fields),
 * whatever the monoid is. An error message ends the program with status 1.
 *
 * Usage: bus-results [MONOID [N]]   (defaults: mean_var, 10)
 *
 * MONOID is a built-in name or the path of a .monoid file. The plugin must be
 * where GStreamer looks: from a build directory, set
 * GST_PLUGIN_PATH=BUILD_DIR/plugin. */
#include <gst/gst.h>

#include <stdlib.h>
#include <string.h>

/* Prints one field of a result message; skips the time fields. */
static gboolean
print_field (GQuark field, const GValue *value, gpointer user_data)
{
  static const gchar *const skipped[] = { "timestamp", "stream-time",
    "running-time", "duration", NULL };
  const gchar *name = g_quark_to_string (field);

  if (g_strv_contains (skipped, name))
    return TRUE;
  gchar *text = gst_value_serialize (value);
  g_print (" %s=%s", name, text ? text : "?");
  g_free (text);
  return TRUE;
}

static void
print_result (const GstStructure *s)
{
  guint64 ts = GST_CLOCK_TIME_NONE;

  gst_structure_get_uint64 (s, "timestamp", &ts);
  g_print ("%" GST_TIME_FORMAT ":", GST_TIME_ARGS (ts));
  gst_structure_foreach (s, print_field, NULL);
  g_print ("\n");
}

static void
print_error (GstMessage *msg)
{
  GError *error = NULL;
  gchar *debug = NULL;

  gst_message_parse_error (msg, &error, &debug);
  g_printerr ("Error from %s: %s\n", GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)),
      error->message);
  if (debug)
    g_printerr ("Debug details:\n%s\n", debug);
  g_clear_error (&error);
  g_free (debug);
}

/* A new element, added to @bin; NULL (and a hint) when it does not exist. */
static GstElement *
make (GstElement *bin, const gchar *factory, const gchar *name)
{
  GstElement *e = gst_element_factory_make (factory, name);
  if (e == NULL) {
    g_printerr ("No element \"%s\"%s\n", factory,
        strcmp (factory, "cudareduce") == 0
            ? "; set GST_PLUGIN_PATH to the build directory's plugin/ folder"
            : "; is gst-plugins-base installed?");
    return NULL;
  }
  gst_bin_add (GST_BIN (bin), e);
  return e;
}

int
main (int argc, char **argv)
{
  int status = 1;

  gst_init (&argc, &argv);
  const gchar *monoid = argc > 1 ? argv[1] : "mean_var";
  gint num_buffers = argc > 2 ? atoi (argv[2]) : 10;
  if (argc > 3 || num_buffers <= 0) {
    g_printerr ("Usage: %s [MONOID [NUM_BUFFERS]]\n", argv[0]);
    return 2;
  }

  GstElement *pipeline = gst_pipeline_new ("bus-results");
  GstElement *src = make (pipeline, "audiotestsrc", "src");
  GstElement *filter = make (pipeline, "capsfilter", "filter");
  GstElement *reduce = make (pipeline, "cudareduce", "reduce");
  GstElement *sink = make (pipeline, "fakesink", "sink");
  if (!src || !filter || !reduce || !sink) {
    gst_object_unref (pipeline);
    return 1;
  }

  GstCaps *caps = gst_caps_from_string ("audio/x-raw, format=F32LE, "
                                        "channels=1, rate=48000");
  g_object_set (src, "num-buffers", num_buffers, NULL);
  g_object_set (filter, "caps", caps, NULL);
  gst_caps_unref (caps);
  g_object_set (reduce, "monoid", monoid, NULL);
  if (!gst_element_link_many (src, filter, reduce, sink, NULL)) {
    g_printerr ("Cannot link the pipeline\n");
    gst_object_unref (pipeline);
    return 1;
  }

  GstBus *bus = gst_element_get_bus (pipeline);
  if (gst_element_set_state (pipeline, GST_STATE_PLAYING)
      == GST_STATE_CHANGE_FAILURE) {
    /* cudareduce fails its start (no driver, no GPU, a bad monoid) with an
     * error message on the bus: show it. */
    GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    if (msg) {
      print_error (msg);
      gst_message_unref (msg);
    } else {
      g_printerr ("The pipeline could not start\n");
    }
    goto done;
  }

  for (;;) {
    GstMessage *msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
        GST_MESSAGE_ELEMENT | GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
    gboolean finished = TRUE;

    switch (GST_MESSAGE_TYPE (msg)) {
      case GST_MESSAGE_ELEMENT: {
        const GstStructure *s = gst_message_get_structure (msg);
        if (gst_structure_has_name (s, "cudareduce"))
          print_result (s);
        finished = FALSE;
        break;
      }
      case GST_MESSAGE_ERROR:
        print_error (msg);
        break;
      case GST_MESSAGE_EOS:
        g_print ("End of stream\n");
        status = 0;
        break;
      default:
        finished = FALSE;
        break;
    }
    gst_message_unref (msg);
    if (finished)
      break;
  }

done:
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  return status;
}
