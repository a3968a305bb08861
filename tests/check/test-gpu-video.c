/* test-gpu-video.c: YUV, gray and RGB frames in host memory, against a CPU
 * reference computed from the same random bytes: whole frames, one value
 * per component, one component alone, intervals, tensors, and frames
 * from videotestsrc in a pipeline. */
#include "cr-test-util.h"

#include <gst/video/video.h>

/* Every statistic the tests check, in one pass: the index term catches a
 * plane reduced out of order or a wrong row count before it. */
#define STATS_ACC "sum:uint64;min:in;max:in;above:uint64;indexed:uint64"
#define STATS_LOAD \
  "Acc r; r.sum = x; r.min = x; r.max = x; r.above = (float64) x > " \
  "ctx.threshold; r.indexed = (uint64) x * (i % 7 + 1); return r;"
#define STATS_COMBINE \
  "Acc r; r.sum = a.sum + b.sum; r.min = a.min < b.min ? a.min : b.min; " \
  "r.max = a.max > b.max ? a.max : b.max; r.above = a.above + b.above; " \
  "r.indexed = a.indexed + b.indexed; return r;"
#define STATS_IDENTITY \
  "Acc r; r.sum = 0; r.min = IN_MAX; r.max = IN_LOWEST; r.above = 0; " \
  "r.indexed = 0; return r;"

static const gchar *const formats[] = { "I420", "YV12", "Y41B", "Y42B", "Y444",
  "NV12", "NV21", "NV16", "NV24", "I420_10LE", "I422_10LE", "Y444_10LE",
  "P010_10LE", "P016_LE", "GRAY8", "GRAY16_LE", "RGBA", "BGRx", "RGB" };

typedef struct {
  guint64 sum, min, max, above, indexed, count;
} Stats;

static void
stats_init (Stats *s)
{
  memset (s, 0, sizeof *s);
  s->min = G_MAXUINT64;
}

static void
stats_add (Stats *s, guint64 x, guint64 i, gdouble threshold)
{
  s->sum += x;
  s->min = MIN (s->min, x);
  s->max = MAX (s->max, x);
  s->above += (gdouble)x > threshold;
  s->indexed += x * (i % 7 + 1);
  s->count++;
}

/* A frame of random bytes, padding included, with its own layout: each
 * plane's stride padded by @pad bytes. */
typedef struct {
  GstVideoInfo info; /* strides and offsets as in the buffer */
  guint8 *data;
  gsize size;
  gboolean meta;
} Frame;

static Frame
frame_new (GRand *rand, const gchar *format, gint w, gint h, guint pad)
{
  Frame f = { .meta = pad > 0 };
  gst_video_info_set_format (
      &f.info, gst_video_format_from_string (format), w, h);
  gsize offset = 0;
  /* Without padding, the layout the caps alone imply (no meta). */
  for (guint p = 0; pad > 0 && p < GST_VIDEO_INFO_N_PLANES (&f.info); p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gst_video_format_info_component (f.info.finfo, p, comp);
    f.info.stride[p] += pad;
    f.info.offset[p] = offset;
    offset +=
        (gsize)f.info.stride[p] * GST_VIDEO_INFO_COMP_HEIGHT (&f.info, comp[0]);
  }
  if (pad > 0)
    f.info.size = offset;
  f.size = f.info.size;
  f.data = cr_test_random_elements (rand, CR_TYPE_UINT8, f.size);
  return f;
}

static GstBuffer *
frame_buffer (const Frame *f, guint n)
{
  GstBuffer *buf = gst_buffer_new_memdup (f->data, f->size);
  if (f->meta)
    gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_INFO_FORMAT (&f->info), GST_VIDEO_INFO_WIDTH (&f->info),
        GST_VIDEO_INFO_HEIGHT (&f->info), GST_VIDEO_INFO_N_PLANES (&f->info),
        (gsize *)f->info.offset, (gint *)f->info.stride);
  GST_BUFFER_PTS (buf) = gst_util_uint64_scale (n, GST_SECOND, 30);
  GST_BUFFER_DURATION (buf) = gst_util_uint64_scale (1, GST_SECOND, 30);
  return buf;
}

static guint64
sample (const Frame *f, guint plane, gsize byte)
{
  const guint8 *at = f->data + f->info.offset[plane] + byte;
  return GST_VIDEO_INFO_COMP_DEPTH (&f->info, 0) > 8 ? GST_READ_UINT16_LE (at)
                                                     : at[0];
}

static guint
elem_size (const Frame *f)
{
  return GST_VIDEO_INFO_COMP_DEPTH (&f->info, 0) > 8 ? 2 : 1;
}

static gint
by_poffset (gconstpointer a, gconstpointer b, gpointer info)
{
  return (gint)GST_VIDEO_INFO_COMP_POFFSET ((GstVideoInfo *)info, *(guint *)a)
      - (gint)GST_VIDEO_INFO_COMP_POFFSET ((GstVideoInfo *)info, *(guint *)b);
}

/* The components in the order results give them: Y, U, V; packed RGB in
 * memory order. */
static guint
value_components (const GstVideoInfo *info, guint *order)
{
  const guint n = GST_VIDEO_INFO_N_COMPONENTS (info);
  for (guint c = 0; c < n; c++)
    order[c] = c;
  if (GST_VIDEO_INFO_IS_RGB (info))
    g_qsort_with_data (order, n, sizeof (guint), by_poffset, (gpointer)info);
  return n;
}

/* The samples of component @c, pixel by pixel, indices from @first. */
static void
add_component (Stats *s, const Frame *f, guint c, guint64 first, gdouble t)
{
  const GstVideoInfo *info = &f->info;
  const guint plane = GST_VIDEO_INFO_COMP_PLANE (info, c);
  const gint w = GST_VIDEO_INFO_COMP_WIDTH (info, c);
  const gint h = GST_VIDEO_INFO_COMP_HEIGHT (info, c);
  /* P010 and P016 store V as the second 16-bit sample of a pixel, where
   * GStreamer 1.22's format table says 1 byte. */
  const guint e = elem_size (f);
  const gsize poffset = (GST_VIDEO_INFO_COMP_POFFSET (info, c) + e - 1) / e * e;
  for (gint y = 0; y < h; y++)
    for (gint x = 0; x < w; x++)
      stats_add (s,
          sample (f, plane,
              (gsize)y * info->stride[plane] + poffset
                  + (gsize)x * GST_VIDEO_INFO_COMP_PSTRIDE (info, c)),
          first + (guint64)y * w + x, t);
}

/* Every sample of the visible pixels of every plane, plane after plane
 * (Y's first), indices from @first. */
static void
add_whole (Stats *s, const Frame *f, guint64 first, gdouble t)
{
  const GstVideoInfo *info = &f->info;
  guint order[GST_VIDEO_MAX_COMPONENTS];
  gboolean done[GST_VIDEO_MAX_PLANES] = { FALSE };
  guint64 i = first;

  value_components (info, order);
  for (guint k = 0; k < GST_VIDEO_INFO_N_COMPONENTS (info); k++) {
    const guint c = order[k], plane = GST_VIDEO_INFO_COMP_PLANE (info, c);
    if (done[plane])
      continue;
    done[plane] = TRUE;
    const gsize row = (gsize)GST_VIDEO_INFO_COMP_WIDTH (info, c)
        * GST_VIDEO_INFO_COMP_PSTRIDE (info, c);
    for (gint y = 0; y < GST_VIDEO_INFO_COMP_HEIGHT (info, c); y++)
      for (gsize b = 0; b < row; b += elem_size (f))
        stats_add (
            s, sample (f, plane, (gsize)y * info->stride[plane] + b), i++, t);
  }
}

/* What a configuration expects of one result. */
typedef struct {
  gboolean per_channel;
  gint component; /* -1: all */
  guint n; /* values */
  Stats values[GST_VIDEO_MAX_COMPONENTS];
} Expected;

/* Adds @f, the @frames_before'th frame of its result, to @e. */
static void
expect_frame (
    Expected *e, const Frame *f, guint64 frames_before, gdouble threshold)
{
  guint order[GST_VIDEO_MAX_COMPONENTS];
  const guint n = value_components (&f->info, order);

  if (!e->per_channel && e->component < 0) {
    e->n = 1;
    /* Indices continue over every sample of the frames before. */
    add_whole (&e->values[0], f, e->values[0].count, threshold);
    return;
  }
  e->n = e->component >= 0 ? 1 : n;
  for (guint v = 0; v < e->n; v++) {
    const guint c = order[e->component >= 0 ? (guint)e->component : v];
    const guint64 pixels = (guint64)GST_VIDEO_INFO_COMP_WIDTH (&f->info, c)
        * GST_VIDEO_INFO_COMP_HEIGHT (&f->info, c);
    add_component (&e->values[v], f, c, frames_before * pixels, threshold);
  }
}

static void
expected_init (Expected *e, gboolean per_channel, gint component)
{
  memset (e, 0, sizeof *e);
  e->per_channel = per_channel;
  e->component = component;
  for (guint v = 0; v < GST_VIDEO_MAX_COMPONENTS; v++)
    stats_init (&e->values[v]);
}

static guint64
field_u64 (const GstStructure *s, const gchar *name, gboolean array, guint v)
{
  const GValue *value = gst_structure_get_value (s, name);
  fail_unless (value != NULL, "no field %s in %" GST_PTR_FORMAT, name, s);
  if (array) {
    fail_unless (GST_VALUE_HOLDS_ARRAY (value), "%s is not an array", name);
    value = gst_value_array_get_value (value, v);
  }
  if (G_VALUE_HOLDS_UINT64 (value))
    return g_value_get_uint64 (value);
  fail_unless (
      G_VALUE_HOLDS_UINT (value), "%s: %s", name, G_VALUE_TYPE_NAME (value));
  return g_value_get_uint (value);
}

static void
check_result (const GstStructure *s, const Expected *e, const gchar *what)
{
  const gboolean array = e->per_channel;
  guint64 total = 0;

  if (array) {
    guint channels = 0;
    fail_unless (gst_structure_get_uint (s, "channels", &channels));
    fail_unless (
        channels == e->n, "%s: %u channels, expected %u", what, channels, e->n);
  }
  for (guint v = 0; v < e->n; v++) {
    const Stats *x = &e->values[v];
    const struct {
      const gchar *name;
      guint64 want;
    } fields[] = { { "sum", x->sum }, { "min", x->min }, { "max", x->max },
      { "above", x->above }, { "indexed", x->indexed } };
    for (guint k = 0; k < G_N_ELEMENTS (fields); k++) {
      guint64 got = field_u64 (s, fields[k].name, array, v);
      fail_unless (got == fields[k].want,
          "%s: value %u: %s is %" G_GUINT64_FORMAT
          ", expected %" G_GUINT64_FORMAT,
          what, v, fields[k].name, got, fields[k].want);
    }
    if (array)
      fail_unless (field_u64 (s, "counts", TRUE, v) == x->count,
          "%s: value %u: count %" G_GUINT64_FORMAT
          ", expected %" G_GUINT64_FORMAT,
          what, v, field_u64 (s, "counts", TRUE, v), x->count);
    total += x->count;
  }
  fail_unless (field_u64 (s, "count", FALSE, 0) == total,
      "%s: count %" G_GUINT64_FORMAT ", expected %" G_GUINT64_FORMAT, what,
      field_u64 (s, "count", FALSE, 0), total);
}

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

static gdouble
threshold_of (const gchar *format)
{
  GstVideoInfo info;
  gst_video_info_set_format (
      &info, gst_video_format_from_string (format), 16, 16);
  return GST_VIDEO_INFO_COMP_DEPTH (&info, 0) > 8 ? 40000.5 : 200.5;
}

/* Two frames, a result each, in one configuration. */
static void
check_frames (GRand *rand, const gchar *format, gint w, gint h, guint pad,
    gboolean per_channel, gint component)
{
  const gdouble t = threshold_of (format);
  g_autofree gchar *tstr = g_strdup_printf ("%.1f", t);
  g_autofree gchar *what = g_strdup_printf ("%s %dx%d pad %u, per-channel %d, "
                                            "component %d",
      format, w, h, pad, per_channel, component);
  GstHarness *h_ =
      stats_harness (format, w, h, per_channel, component, tstr, "0");

  for (guint n = 0; n < 2; n++) {
    Frame f = frame_new (rand, format, w, h, pad);
    Expected e;
    expected_init (&e, per_channel, component);
    expect_frame (&e, &f, 0, t);
    g_autoptr (GstStructure) s = cr_test_push_for_result (h_,
        frame_buffer (&f, n), gst_util_uint64_scale (n, GST_SECOND, 30), what);
    check_result (s, &e, what);
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
  const gdouble t = threshold_of (format);
  g_autofree gchar *tstr = g_strdup_printf ("%.1f", t);
  g_autofree gchar *what =
      g_strdup_printf ("%s interval, per-channel %d", format, per_channel);
  GstHarness *h =
      stats_harness (format, 40, 30, per_channel, -1, tstr, "100000000");
  Expected e[2];

  for (guint n = 0; n < 6; n++) {
    Frame f = frame_new (rand, format, 40, 30, 16);
    if (n % 3 == 0)
      expected_init (&e[n / 3], per_channel, -1);
    expect_frame (&e[n / 3], &f, n % 3, t);
    cr_test_push_ok (h, frame_buffer (&f, n), what);
    g_free (f.data);
  }
  g_autoptr (GPtrArray) results = cr_test_results_after_eos (h, what);
  fail_unless_equals_int (results->len, 2);
  for (guint k = 0; k < 2; k++)
    check_result (g_ptr_array_index (results, k), &e[k], what);
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
  Frame f = frame_new (rand, "NV12", 32, 18, 0);
  Expected e;

  expected_init (&e, TRUE, -1);
  expect_frame (&e, &f, 0, 0);
  cr_test_push_ok (h, frame_buffer (&f, 0), "NV12 tensor");
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
static GstPadProbeReturn
keep_frame (GstPad *pad, GstPadProbeInfo *info, gpointer frames)
{
  g_ptr_array_add (frames, gst_buffer_ref (GST_PAD_PROBE_INFO_BUFFER (info)));
  return GST_PAD_PROBE_OK;
}

static Frame
frame_of_buffer (GstBuffer *buf, const GstVideoInfo *caps_info)
{
  GstVideoFrame vf;
  Frame f = { 0 };
  fail_unless (gst_video_frame_map (&vf, caps_info, buf, GST_MAP_READ));
  f.info = vf.info;
  f.size = gst_buffer_get_size (buf);
  f.data = g_malloc (f.size);
  gst_buffer_extract (buf, 0, f.data, f.size);
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&vf); p++)
    f.info.offset[p] = (guint8 *)vf.data[p] - (guint8 *)vf.map[0].data;
  gst_video_frame_unmap (&vf);
  return f;
}

static void
check_pipeline (const gchar *format, const gchar *props, gboolean per_channel,
    gint component)
{
  g_autofree gchar *desc = g_strdup_printf (
      "videotestsrc num-buffers=4 pattern=snow ! "
      "video/x-raw,format=%s,width=70,height=42 ! cudareduce name=r "
      "monoid=stats accumulator=\"%s\" load=\"%s\" combine=\"%s\" "
      "identity=\"%s\" context-fields=threshold:float64 threshold=%.1f %s ! "
      "fakesink",
      format, STATS_ACC, STATS_LOAD, STATS_COMBINE, STATS_IDENTITY,
      threshold_of (format), props);
  g_autoptr (GError) error = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &error);
  fail_unless (pipeline != NULL, "%s", error ? error->message : desc);
  GstElement *r = gst_bin_get_by_name (GST_BIN (pipeline), "r");
  GstPad *sink = gst_element_get_static_pad (r, "sink");
  g_autoptr (GPtrArray) frames =
      g_ptr_array_new_with_free_func ((GDestroyNotify)gst_buffer_unref);
  gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_BUFFER, keep_frame, frames, NULL);
  g_autoptr (GPtrArray) results =
      g_ptr_array_new_with_free_func ((GDestroyNotify)gst_structure_free);

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  GstBus *bus = gst_element_get_bus (pipeline);
  for (;;) {
    GstMessage *msg = gst_bus_timed_pop_filtered (bus, CR_TEST_WAIT,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_ELEMENT);
    fail_unless (msg != NULL, "%s: no EOS", desc);
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      g_autoptr (GError) err = NULL;
      g_autofree gchar *debug = NULL;
      gst_message_parse_error (msg, &err, &debug);
      fail ("%s: %s\n%s", desc, err->message, debug ? debug : "");
    }
    gboolean eos = GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;
    const GstStructure *s = gst_message_get_structure (msg);
    if (s && gst_structure_has_name (s, "cudareduce"))
      g_ptr_array_add (results, gst_structure_copy (s));
    gst_message_unref (msg);
    if (eos)
      break;
  }
  g_autoptr (GstCaps) caps = gst_pad_get_current_caps (sink);
  GstVideoInfo info;
  fail_unless (gst_video_info_from_caps (&info, caps));
  fail_unless_equals_int (results->len, 4);
  fail_unless_equals_int (frames->len, 4);
  for (guint k = 0; k < 4; k++) {
    Frame f = frame_of_buffer (g_ptr_array_index (frames, k), &info);
    Expected e;
    expected_init (&e, per_channel, component);
    expect_frame (&e, &f, 0, threshold_of (format));
    check_result (g_ptr_array_index (results, k), &e, desc);
    g_free (f.data);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (sink);
  gst_object_unref (r);
  gst_object_unref (pipeline);
}

GST_START_TEST (test_video_from_videotestsrc)
{
  check_pipeline ("I420", "per-channel=true", TRUE, -1);
  check_pipeline ("NV12", "", FALSE, -1);
  check_pipeline ("P010_10LE", "component=2", FALSE, 2);
  check_pipeline ("Y444", "per-channel=true component=0", TRUE, 0);
}

GST_END_TEST;

static Suite *
video_suite (void)
{
  Suite *s = suite_create ("gpu-video");
  TCase *tc = tcase_create ("video");
  tcase_set_timeout (tc, 600);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_video_every_format_and_selection);
  tcase_add_test (tc, test_video_intervals);
  tcase_add_test (tc, test_video_tensor_per_component);
  tcase_add_test (tc, test_video_component_out_of_range);
  tcase_add_test (tc, test_video_from_videotestsrc);
  return s;
}

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  cr_test_require_gpu ();
  cr_test_require_nvrtc ();
  return gst_check_run_suite (video_suite (), "gpu-video", __FILE__);
}
