/* test-element.c: the element without a GPU: registration, properties,
 * caps in both output modes, and the errors a user sees when the monoid is
 * wrong or the machine has no CUDA driver. The driver is hidden from this
 * process (GST_CUDAREDUCE_DRIVER_LIBRARY), so these results do not depend
 * on the machine. */
#include "cr-cuda.h"
#include "cr-test-leaks.h"
#include "cr-test-util.h"

#include <gst/base/gstbasetransform.h>
#include <string.h>

static GstElement *
new_element (void)
{
  GstElement *e = gst_element_factory_make ("cudareduce", NULL);
  fail_unless (e != NULL, "cudareduce is not registered");
  return e;
}

GST_START_TEST (test_registers_without_driver)
{
  g_autoptr (GstElementFactory) f = gst_element_factory_find ("cudareduce");
  fail_unless (f != NULL);
  fail_unless_equals_string (
      gst_element_factory_get_metadata (f, GST_ELEMENT_METADATA_KLASS),
      "Filter/Analyzer/Audio/Video/Hardware");
  fail_unless_equals_int (
      gst_plugin_feature_get_rank (GST_PLUGIN_FEATURE (f)), GST_RANK_NONE);
  GstElement *e = new_element ();
  fail_unless (GST_IS_BASE_TRANSFORM (e));
  gst_object_unref (e);
}

GST_END_TEST;

GST_START_TEST (test_properties_documented)
{
  GstElement *e = new_element ();
  guint n = 0;
  g_autofree GParamSpec **specs =
      g_object_class_list_properties (G_OBJECT_GET_CLASS (e), &n);
  static const gchar *const ours[] = { "monoid", "accumulator", "load",
    "combine", "identity", "context-fields", "output-fields", "finalize",
    "threshold", "context", "cuda-device-id", "output", "post-messages",
    "async-depth", "per-channel", "component", "interval", "gpu-timeout",
    "attach-meta", "bins", "bin", "percentiles", "pair", NULL };
  guint found = 0;
  for (guint k = 0; k < n; k++) {
    if (!g_strv_contains (ours, specs[k]->name))
      continue;
    found++;
    const gchar *blurb = g_param_spec_get_blurb (specs[k]);
    fail_unless (
        blurb && strlen (blurb) > 30, "%s is not explained", specs[k]->name);
  }
  fail_unless_equals_int (found, g_strv_length ((gchar **)ours));
  /* A new element's gpu-timeout may come from the environment: documents
   * show the default instead. */
  GParamSpec *timeout =
      g_object_class_find_property (G_OBJECT_GET_CLASS (e), "gpu-timeout");
  fail_unless (timeout->flags & GST_PARAM_DOC_SHOW_DEFAULT);
  gst_object_unref (e);
}

GST_END_TEST;

GST_START_TEST (test_property_roundtrip)
{
  GstElement *e = new_element ();
  g_autofree gchar *monoid = NULL, *load = NULL, *fields = NULL;
  gdouble threshold;
  gint device, output;
  gboolean post;
  GstStructure *context = NULL;

  g_object_get (e, "monoid", &monoid, "threshold", &threshold, "cuda-device-id",
      &device, "output", &output, "post-messages", &post, "load", &load,
      "context", &context, NULL);
  fail_unless_equals_string (monoid, "sum");
  fail_unless_equals_float (threshold, 0.0);
  fail_unless_equals_int (device, -1);
  fail_unless_equals_int (output, 0);
  fail_unless (post);
  fail_unless (load == NULL);
  fail_unless (context == NULL);
  g_clear_pointer (&monoid, g_free);

  gst_util_set_object_arg (G_OBJECT (e), "output", "tensor");
  gst_util_set_object_arg (
      G_OBJECT (e), "context", "ctx, lo=(double)-1, hi=(double)1");
  g_object_set (e, "monoid", "count_gt", "threshold", 12.5, "cuda-device-id", 3,
      "post-messages", FALSE, "load", "Acc r; r.s = x; return r;",
      "context-fields", "lo:float64;hi:float64", NULL);
  g_object_get (e, "monoid", &monoid, "threshold", &threshold, "cuda-device-id",
      &device, "output", &output, "post-messages", &post, "load", &load,
      "context-fields", &fields, "context", &context, NULL);
  fail_unless_equals_string (monoid, "count_gt");
  fail_unless_equals_float (threshold, 12.5);
  fail_unless_equals_int (device, 3);
  fail_unless_equals_int (output, 1);
  fail_if (post);
  fail_unless_equals_string (load, "Acc r; r.s = x; return r;");
  fail_unless_equals_string (fields, "lo:float64;hi:float64");
  gdouble lo = 0;
  fail_unless (context && gst_structure_get_double (context, "lo", &lo));
  fail_unless_equals_float (lo, -1.0);
  gst_structure_free (context);

  /* Buffers in flight: 8 by default, 1 to 64. */
  guint depth = 0;
  g_object_get (e, "async-depth", &depth, NULL);
  fail_unless_equals_int (depth, 8);
  g_object_set (e, "async-depth", 1, NULL);
  g_object_get (e, "async-depth", &depth, NULL);
  fail_unless_equals_int (depth, 1);
  GParamSpecUInt *spec = G_PARAM_SPEC_UINT (
      g_object_class_find_property (G_OBJECT_GET_CLASS (e), "async-depth"));
  fail_unless_equals_int (spec->minimum, 1);
  fail_unless_equals_int (spec->maximum, 64);
  gst_object_unref (e);
}

GST_END_TEST;

static GstCaps *
transform_caps (GstElement *e, GstPadDirection direction, const gchar *caps)
{
  GstBaseTransformClass *klass = GST_BASE_TRANSFORM_GET_CLASS (e);
  g_autoptr (GstCaps) in = gst_caps_from_string (caps);
  return klass->transform_caps (GST_BASE_TRANSFORM (e), direction, in, NULL);
}

static void
assert_caps (GstCaps *got, const gchar *expected)
{
  g_autoptr (GstCaps) want = gst_caps_from_string (expected);
  g_autofree gchar *got_str = gst_caps_to_string (got);
  fail_unless (
      gst_caps_is_equal (got, want), "got %s, wanted %s", got_str, expected);
  gst_caps_unref (got);
}

GST_START_TEST (test_message_mode_caps_pass_through)
{
  GstElement *e = new_element ();
  const gchar *audio = "audio/x-raw, format=S16LE, layout=interleaved, "
                       "rate=48000, channels=2";
  assert_caps (transform_caps (e, GST_PAD_SINK, audio), audio);
  assert_caps (transform_caps (e, GST_PAD_SRC, audio), audio);
  g_autoptr (GstCaps) accept = gst_caps_from_string (audio);
  GstPad *sink = gst_element_get_static_pad (e, "sink");
  fail_unless (gst_pad_query_accept_caps (sink, accept));
  gst_object_unref (sink);
  gst_object_unref (e);
}

GST_END_TEST;

static GstCaps *
query_sink_caps (GstElement *e, const gchar *filter)
{
  GstPad *sink = gst_element_get_static_pad (e, "sink");
  g_autoptr (GstCaps) f = gst_caps_from_string (filter);
  GstCaps *caps = gst_pad_query_caps (sink, f);
  gst_object_unref (sink);
  return caps;
}

/* A caps query that says what upstream can give is answered with what the
 * settings can read, so that a converter converts to it (vectorscope on
 * RGB from videotestsrc, component=1 of mono audio); caps it cannot read
 * are still accepted, so that set_caps says what to change. */
GST_START_TEST (test_caps_narrowed_to_settings)
{
  GstElement *e = new_element ();
  GstPad *sink = gst_element_get_static_pad (e, "sink");
  const gchar *offered = "video/x-raw, format={ BGRA, I420, GRAY8, NV12 }, "
                         "width=64, height=48, framerate=30/1";

  g_object_set (e, "monoid", "vectorscope", NULL);
  assert_caps (query_sink_caps (e, offered),
      "video/x-raw, format={ I420, NV12 }, width=64, height=48, "
      "framerate=30/1");
  g_object_set (e, "pair", "R,G", NULL);
  assert_caps (query_sink_caps (e, offered),
      "video/x-raw, format=BGRA, width=64, height=48, framerate=30/1");
  /* Nothing it can read: what is offered, and accepted. */
  g_object_set (e, "pair", "U,V", NULL);
  const gchar *bgra =
      "video/x-raw, format=BGRA, width=64, height=48, framerate=30/1";
  assert_caps (query_sink_caps (e, bgra), bgra);
  g_autoptr (GstCaps) fixed = gst_caps_from_string (bgra);
  fail_unless (gst_pad_query_accept_caps (sink, fixed));
  /* Without a filter, as when pads are linked: everything. */
  GstCaps *unfiltered = gst_pad_query_caps (sink, NULL);
  fail_unless (gst_caps_can_intersect (unfiltered, fixed));
  gst_caps_unref (unfiltered);

  g_object_set (e, "monoid", "sum", "pair", NULL, "component", 1, NULL);
  const gchar *audio = "audio/x-raw, format=S16LE, layout=interleaved, "
                       "rate=48000, channels=[ 1, 8 ]";
  assert_caps (query_sink_caps (e, audio),
      "audio/x-raw, format=S16LE, layout=interleaved, rate=48000, "
      "channels=[ 2, 8 ]");
  assert_caps (query_sink_caps (e, offered),
      "video/x-raw, format={ BGRA, I420, NV12 }, width=64, height=48, "
      "framerate=30/1");

  /* Regions: video only, when there is video to have. */
  g_object_set (e, "component", -1, NULL);
  gst_util_set_object_arg (G_OBJECT (e), "regions", "<<0,0,8,8>>");
  g_autofree gchar *both = g_strconcat (audio, "; ", bgra, NULL);
  assert_caps (query_sink_caps (e, both), bgra);
  assert_caps (query_sink_caps (e, audio), audio);
  gst_object_unref (sink);
  gst_object_unref (e);
}

GST_END_TEST;

GST_START_TEST (test_video_caps)
{
  GstElement *e = new_element ();
  GstPad *sink = gst_element_get_static_pad (e, "sink");
  static const gchar *const taken[] = { "I420", "YV12", "NV12", "NV21", "Y42B",
    "Y444", "P010_10LE", "P016_LE", "I420_10LE", "GRAY8", "BGRx" };
  static const gchar *const refused[] = { "YUY2", "UYVY", "I420_12LE", "v210" };

  for (guint k = 0; k < G_N_ELEMENTS (taken) + G_N_ELEMENTS (refused); k++) {
    const gboolean take = k < G_N_ELEMENTS (taken);
    const gchar *format = take ? taken[k] : refused[k - G_N_ELEMENTS (taken)];
    g_autofree gchar *str = g_strdup_printf (
        "video/x-raw, format=%s, width=64, height=48, framerate=30/1", format);
    g_autoptr (GstCaps) caps = gst_caps_from_string (str);
    fail_unless (gst_pad_query_accept_caps (sink, caps) == take, "%s %s",
        format, take ? "refused" : "accepted");
  }
  /* Frames in GPU memory only where the plugin has GStreamer's CUDA
   * library. */
  g_autoptr (GstCaps) cuda = gst_caps_from_string (
      "video/x-raw(memory:CUDAMemory), format=NV12, width=64, height=48, "
      "framerate=30/1");
#ifdef CR_HAVE_GST_CUDA
  fail_unless (gst_pad_query_accept_caps (sink, cuda));
#else
  fail_if (gst_pad_query_accept_caps (sink, cuda));
#endif
  gst_object_unref (sink);
  gst_object_unref (e);
}

GST_END_TEST;

GST_START_TEST (test_tensor_caps_of_components)
{
  GstElement *e = new_element ();
  const gchar *nv12 = "video/x-raw, format=NV12, width=32, height=18, "
                      "framerate=30/1";
  gst_util_set_object_arg (G_OBJECT (e), "output", "tensor");
  g_object_set (e, "monoid", "minmax", "per-channel", TRUE, NULL);
  /* Y, U and V. */
  assert_caps (transform_caps (e, GST_PAD_SINK, nv12),
      "other/tensors, format=static, num_tensors=2, types=\"uint8,uint8\", "
      "dimensions=\"3,3\", framerate=30/1");
  /* One component: one value. */
  g_object_set (e, "component", 2, NULL);
  assert_caps (transform_caps (e, GST_PAD_SINK, nv12),
      "other/tensors, format=static, num_tensors=2, types=\"uint8,uint8\", "
      "dimensions=\"1,1\", framerate=30/1");
  gst_object_unref (e);
}

GST_END_TEST;

GST_START_TEST (test_tensor_caps_from_monoid)
{
  GstElement *e = new_element ();
  gst_util_set_object_arg (G_OBJECT (e), "output", "tensor");

  g_object_set (e, "monoid", "mean_var", NULL);
  assert_caps (transform_caps (e, GST_PAD_SINK,
                   "video/x-raw, format=GRAY8, "
                   "width=33, height=7, framerate=25/1"),
      "other/tensors, format=static, num_tensors=2, types=\"float64,float64\", "
      "dimensions=\"1,1\", framerate=25/1");

  /* Field types follow the input: in and wide resolve per type. */
  g_object_set (e, "monoid", "argmax", NULL);
  assert_caps (transform_caps (e, GST_PAD_SINK,
                   "other/tensors, "
                   "format=static, num_tensors=1, types=int16, dimensions=4:5"),
      "other/tensors, format=static, num_tensors=2, types=\"int16,uint64\", "
      "dimensions=\"1,1\", framerate=0/1");
  g_object_set (e, "monoid", "sumsq", NULL);
  assert_caps (transform_caps (e, GST_PAD_SINK,
                   "audio/x-raw, format=U8, "
                   "layout=interleaved, rate=8000, channels=1"),
      "other/tensors, format=static, num_tensors=2, types=\"uint64,uint64\", "
      "dimensions=\"1,1\", framerate=0/1");

  /* Unfixed input: one structure per possible type. */
  g_autoptr (GstCaps) both = transform_caps (e, GST_PAD_SINK,
      "audio/x-raw, "
      "format={S8,F32LE}, layout=interleaved, rate=8000, channels=1");
  fail_unless_equals_int (gst_caps_get_size (both), 2);

  /* An inline monoid's own output fields. */
  g_object_set (e, "monoid", "inline", "accumulator", "s:wide;q:int32", "load",
      "Acc r; r.s = x; r.q = 1; return r;", "combine",
      "Acc r; r.s = a.s + b.s; r.q = a.q + b.q; return r;", "identity",
      "Acc r; r.s = 0; r.q = 0; return r;", "output-fields", "mean:float32",
      "finalize", "Out o; o.mean = n ? (float32) a.s / n : 0; return o;", NULL);
  assert_caps (transform_caps (e, GST_PAD_SINK,
                   "audio/x-raw, format=S32LE, "
                   "layout=interleaved, rate=8000, channels=1"),
      "other/tensors, format=static, num_tensors=1, types=float32, "
      "dimensions=(string)1, framerate=0/1");

  /* Upstream of tensors, anything the element reduces. */
  GstCaps *up = transform_caps (e, GST_PAD_SRC,
      "other/tensors, "
      "format=static");
  g_autoptr (GstPad) sink = gst_element_get_static_pad (e, "sink");
  g_autoptr (GstCaps) tmpl = gst_pad_get_pad_template_caps (sink);
  fail_unless (gst_caps_is_equal (up, tmpl));
  gst_caps_unref (up);

  /* A broken monoid gives no caps rather than wrong ones. */
  g_object_set (e, "monoid", "no_such_monoid", "load", NULL, NULL);
  GstCaps *none = transform_caps (e, GST_PAD_SINK,
      "audio/x-raw, "
      "format=S32LE, layout=interleaved, rate=8000, channels=1");
  fail_unless (gst_caps_is_empty (none));
  gst_caps_unref (none);
  gst_object_unref (e);
}

GST_END_TEST;

/* Linking a stream of more channels than per-channel results hold: the
 * tensor's dimensions are left open (set_caps refuses the input and says
 * why) rather than 8 bytes allocated per channel, 16 GiB for these. */
static gchar *
link_huge_channel_counts (gconstpointer data)
{
  static const gchar *const inputs[] = {
    "audio/x-raw, format=F32LE, layout=interleaved, rate=48000, "
    "channels=2147483647",
    "other/tensors, format=static, num_tensors=1, types=float32, "
    "dimensions=(string)2000000000",
  };
  GstElement *e = new_element ();
  gst_util_set_object_arg (G_OBJECT (e), "output", "tensor");
  g_object_set (e, "monoid", "sum", "per-channel", TRUE, NULL);
  gchar *why = NULL;
  for (guint k = 0; k < G_N_ELEMENTS (inputs) && why == NULL; k++) {
    g_autoptr (GstCaps) out = transform_caps (e, GST_PAD_SINK, inputs[k]);
    if (gst_caps_get_size (out) != 1
        || gst_structure_has_field (
            gst_caps_get_structure (out, 0), "dimensions"))
      why = g_strdup_printf ("%s gives %" GST_PTR_FORMAT, inputs[k], out);
  }
  gst_object_unref (e);
  return why;
}

GST_START_TEST (test_tensor_caps_of_huge_channel_counts)
{
  g_autofree gchar *why =
      cr_test_run_bounded (link_huge_channel_counts, NULL, 1u << 30);
  fail_unless (why == NULL, "%s", why);
}

GST_END_TEST;

/* A fused monoid: one tensor per member's result field, member by member,
 * each of its member's type. */
GST_START_TEST (test_tensor_caps_of_fused_monoid)
{
  GstElement *e = new_element ();
  gst_util_set_object_arg (G_OBJECT (e), "output", "tensor");
  g_object_set (e, "monoid", "mean_var+minmax+lo=count_gt", NULL);
  assert_caps (transform_caps (e, GST_PAD_SINK,
                   "audio/x-raw, format=S16LE, "
                   "layout=interleaved, rate=8000, channels=1"),
      "other/tensors, format=static, num_tensors=5, "
      "types=\"float64,float64,int16,int16,uint64\", "
      "dimensions=\"1,1,1,1,1\", framerate=0/1");
  gst_object_unref (e);
}

GST_END_TEST;

/* A histogram's counts and percentiles as tensors: bins by values, and a
 * list of percentiles points by values. */
GST_START_TEST (test_tensor_caps_of_percentiles)
{
  GstElement *e = new_element ();
  gst_util_set_object_arg (G_OBJECT (e), "output", "tensor");
  gst_util_set_object_arg (G_OBJECT (e), "percentiles", "<0.25, 0.5, 0.75>");
  g_object_set (
      e, "monoid", "signalstats", "per-channel", TRUE, "bins", 64, NULL);
  assert_caps (transform_caps (e, GST_PAD_SINK,
                   "video/x-raw, format=NV12, "
                   "width=64, height=48, framerate=30/1"),
      "other/tensors, format=static, num_tensors=10, "
      "types=\"uint8,uint8,float64,uint64,uint64,uint64,uint64,float64,"
      "float64,float64\", dimensions=\"3,3,3,64:3,3,3,3,3,3,3:3\", "
      "framerate=30/1");
  gst_object_unref (e);
}

GST_END_TEST;

/* A 2-D histogram as tensors: bins by bins counts, one result; pair from
 * a launch line, read back. */
GST_START_TEST (test_tensor_caps_of_pairs)
{
  g_autoptr (GError) error = NULL;
  GstElement *e = gst_parse_launch (
      "cudareduce monoid=vectorscope pair=R,G bins=32 output=tensor", &error);
  fail_unless (e != NULL && error == NULL, "%s", error ? error->message : "");
  g_autofree gchar *pair = NULL;
  g_object_get (e, "pair", &pair, NULL);
  fail_unless_equals_string (pair, "R,G");
  assert_caps (transform_caps (e, GST_PAD_SINK,
                   "video/x-raw, format=RGBA, "
                   "width=64, height=48, framerate=30/1"),
      "other/tensors, format=static, num_tensors=4, "
      "types=\"uint64,uint64,uint64,uint64\", dimensions=\"32:32:1,1,1,1\", "
      "framerate=30/1");
  g_object_set (e, "pair", NULL, NULL);
  g_clear_pointer (&pair, g_free);
  g_object_get (e, "pair", &pair, NULL);
  fail_unless (pair == NULL);
  gst_object_unref (e);
}

GST_END_TEST;

/* percentiles from a launch line, as gst-launch-1.0 sets it: an array of
 * doubles, whole numbers included, read back as given. */
GST_START_TEST (test_percentiles_from_launch_line)
{
  g_autoptr (GError) error = NULL;
  GstElement *e = gst_parse_launch (
      "cudareduce monoid=histogram percentiles=\"<0.1, 0.5, 1>\"", &error);
  fail_unless (e != NULL, "%s", error ? error->message : "");
  fail_unless (error == NULL, "%s", error->message);
  GValue points = G_VALUE_INIT;
  g_value_init (&points, GST_TYPE_ARRAY);
  g_object_get_property (G_OBJECT (e), "percentiles", &points);
  const gdouble want[] = { 0.1, 0.5, 1.0 };
  fail_unless_equals_int (
      gst_value_array_get_size (&points), G_N_ELEMENTS (want));
  for (guint k = 0; k < G_N_ELEMENTS (want); k++) {
    const GValue *p = gst_value_array_get_value (&points, k);
    fail_unless (G_VALUE_HOLDS_DOUBLE (p) && g_value_get_double (p) == want[k]);
  }
  g_value_unset (&points);
  gst_object_unref (e);
}

GST_END_TEST;

/* Starts a fresh element configured by @props and returns the error it
 * posted; the start must fail. */
static GstMessage *
start_error (const gchar *first_prop, ...)
{
  GstElement *e = new_element ();
  GstBus *bus = gst_bus_new ();
  va_list args;

  va_start (args, first_prop);
  for (const gchar *p = first_prop; p; p = va_arg (args, const gchar *))
    gst_util_set_object_arg (G_OBJECT (e), p, va_arg (args, const gchar *));
  va_end (args);
  gst_element_set_bus (e, bus);
  fail_unless_equals_int (
      gst_element_set_state (e, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error message");
  /* Every message left on the bus, and any the state change posts, holds
   * the element, which holds the bus: flushing drops them, or neither is
   * ever freed. */
  gst_bus_set_flushing (bus, TRUE);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
  return msg;
}

static void
assert_error (GstMessage *msg, GQuark domain, gint code, const gchar *mention)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *debug = NULL;
  gst_message_parse_error (msg, &error, &debug);
  fail_unless (error->domain == domain && error->code == code, "%s %d: %s",
      g_quark_to_string (error->domain), error->code, error->message);
  fail_unless (strstr (error->message, mention) != NULL,
      "\"%s\" does not mention \"%s\"", error->message, mention);
  gst_message_unref (msg);
}

GST_START_TEST (test_start_without_driver)
{
  assert_error (start_error (NULL), GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT,
      "CUDA driver");
}

GST_END_TEST;

/* Where the CUDA toolkit keeps its stub libcuda.so, which programs link
 * against at build time but which drives no GPU. */
static gchar *
toolkit_stub (void)
{
  const gchar *toolkit = g_getenv ("CUDA_PATH");
  if (toolkit == NULL || *toolkit == '\0')
    toolkit = g_getenv ("CUDA_HOME");
  return g_build_filename (toolkit && *toolkit ? toolkit : "/usr/local/cuda",
      "lib64", "stubs", "libcuda.so", NULL);
}

/* The CUDA toolkit's stub libcuda.so found first (its lib64/stubs on the
 * library path): the error names the stub and what to change, not an
 * "unknown error" of cuInit. This test runs in a child of its own
 * (gst-check forks), which has not opened a driver yet. */
GST_START_TEST (test_start_with_driver_stub)
{
  g_autofree gchar *stub = toolkit_stub ();
  if (!g_file_test (stub, G_FILE_TEST_EXISTS)) {
    g_print (
        "test_start_with_driver_stub: no CUDA toolkit (%s), not run\n", stub);
    return;
  }
  g_setenv ("GST_CUDAREDUCE_DRIVER_LIBRARY", stub, TRUE);
  GstMessage *msg = start_error (NULL);
  g_autoptr (GError) error = NULL;
  gst_message_parse_error (msg, &error, NULL);
  fail_unless (strstr (error->message, "stub") != NULL
          && strstr (error->message, "LD_LIBRARY_PATH") != NULL,
      "%s", error->message);
  assert_error (msg, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT, stub);
}

GST_END_TEST;

/* What plugin_init checks for its status warning (GStreamer 1.24 and
 * later): whether the driver library opens, without initialising it. The
 * toolkit's stub opens and has every entry point, though cuInit would
 * fail on it. */
GST_START_TEST (test_driver_library_present)
{
  g_autofree gchar *failure = NULL;
  fail_if (cr_cuda_driver_library_present (&failure));
  fail_unless (failure != NULL
          && strstr (failure, "could not be opened") != NULL
          && strstr (failure, "/nonexistent/libcuda.so.1") != NULL,
      "%s", failure);

  g_autofree gchar *stub = toolkit_stub ();
  if (!g_file_test (stub, G_FILE_TEST_EXISTS))
    return;
  g_setenv ("GST_CUDAREDUCE_DRIVER_LIBRARY", stub, TRUE);
  g_autofree gchar *none = NULL;
  fail_unless (cr_cuda_driver_library_present (&none), "%s", none);
}

GST_END_TEST;

GST_START_TEST (test_start_with_bad_monoid)
{
  /* Monoid errors come first: they are what the user can fix here. */
  assert_error (start_error ("monoid", "summ", NULL), GST_LIBRARY_ERROR,
      GST_LIBRARY_ERROR_SETTINGS, "argmax");
  assert_error (start_error ("monoid", "/nonexistent/my.monoid", NULL),
      GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS, "my.monoid");
  assert_error (
      start_error ("accumulator", "s:wide", "load", "Acc r; r.s = x; return r;",
          "identity", "Acc r; r.s = 0; return r;", NULL),
      GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS, "Combine");
  assert_error (start_error ("accumulator", "s:float16", "load", "return 0;",
                    "combine", "return a;", "identity", "return 0;", NULL),
      GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS, "float16");
  assert_error (start_error ("monoid", "sum+nope", NULL), GST_LIBRARY_ERROR,
      GST_LIBRARY_ERROR_SETTINGS, "member 2");
  /* 18 result fields: more than an output buffer's 16 tensors. */
  assert_error (start_error ("monoid",
                    "a=sumsq+b=sumsq+c=sumsq+d=sumsq+e=sumsq+f=sumsq+"
                    "g=sumsq+h=sumsq+i=sumsq",
                    "output", "tensor", NULL),
      GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS, "at most 16 tensors");
}

GST_END_TEST;

/* gpu-timeout: 5 s unless GST_CUDAREDUCE_GPU_TIMEOUT (seconds) says
 * otherwise, for elements made after it is set. */
GST_START_TEST (test_gpu_timeout_default)
{
  guint64 timeout = 0;
  GstElement *e = new_element ();
  g_object_get (e, "gpu-timeout", &timeout, NULL);
  fail_unless_equals_uint64 (timeout, 5 * GST_SECOND);
  gst_object_unref (e);

  g_setenv ("GST_CUDAREDUCE_GPU_TIMEOUT", "2.5", TRUE);
  e = new_element ();
  g_object_get (e, "gpu-timeout", &timeout, NULL);
  fail_unless_equals_uint64 (timeout, 2500 * GST_MSECOND);
  gst_object_unref (e);
  g_setenv ("GST_CUDAREDUCE_GPU_TIMEOUT", "0", TRUE);
  e = new_element ();
  g_object_get (e, "gpu-timeout", &timeout, NULL);
  fail_unless_equals_uint64 (timeout, 0);
  gst_object_unref (e);
  g_unsetenv ("GST_CUDAREDUCE_GPU_TIMEOUT");
}

GST_END_TEST;

/* The engine's GLib log (domain "cudareduce": the kernel cache's reasons)
 * reaches GStreamer's debug log under the element's category. */
static gboolean engine_line_seen;

static void
look_for_engine_line (GstDebugCategory *category, GstDebugLevel level,
    const gchar *file, const gchar *function, gint line, GObject *object,
    GstDebugMessage *message, gpointer user_data)
{
  if (level == GST_LEVEL_DEBUG
      && strcmp (gst_debug_category_get_name (category), "cudareduce") == 0
      && strcmp (gst_debug_message_get (message), "engine line 42") == 0)
    engine_line_seen = TRUE;
}

GST_START_TEST (test_engine_log_in_debug_log)
{
  GstElement *e = new_element (); /* loads the plugin */
  gst_debug_set_active (TRUE);
  gst_debug_set_threshold_for_name ("cudareduce", GST_LEVEL_DEBUG);
  gst_debug_add_log_function (look_for_engine_line, NULL, NULL);
  g_log ("cudareduce", G_LOG_LEVEL_DEBUG, "engine line %d", 42);
  gst_debug_remove_log_function (look_for_engine_line);
  gst_debug_set_threshold_for_name ("cudareduce", GST_LEVEL_NONE);
  fail_unless (engine_line_seen);
  gst_object_unref (e);
}

GST_END_TEST;

static Suite *
element_suite (void)
{
  Suite *s = suite_create ("element");
  TCase *tc = tcase_create ("no-gpu");
  cr_test_check_objects (tc);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_registers_without_driver);
  tcase_add_test (tc, test_properties_documented);
  tcase_add_test (tc, test_property_roundtrip);
  tcase_add_test (tc, test_message_mode_caps_pass_through);
  tcase_add_test (tc, test_video_caps);
  tcase_add_test (tc, test_caps_narrowed_to_settings);
  tcase_add_test (tc, test_tensor_caps_of_components);
  tcase_add_test (tc, test_tensor_caps_from_monoid);
  tcase_add_test (tc, test_tensor_caps_of_fused_monoid);
  tcase_add_test (tc, test_tensor_caps_of_huge_channel_counts);
  tcase_add_test (tc, test_tensor_caps_of_percentiles);
  tcase_add_test (tc, test_percentiles_from_launch_line);
  tcase_add_test (tc, test_tensor_caps_of_pairs);
  tcase_add_test (tc, test_start_without_driver);
  tcase_add_test (tc, test_start_with_driver_stub);
  tcase_add_test (tc, test_driver_library_present);
  tcase_add_test (tc, test_start_with_bad_monoid);
  tcase_add_test (tc, test_engine_log_in_debug_log);
  tcase_add_test (tc, test_gpu_timeout_default);
  return s;
}

int
main (int argc, char **argv)
{
  /* Before anything opens the driver: this process sees none. */
  g_setenv ("GST_CUDAREDUCE_DRIVER_LIBRARY", "/nonexistent/libcuda.so.1", TRUE);
  gst_check_init (&argc, &argv);
  return gst_check_run_suite (element_suite (), "element", __FILE__);
}
