/* cr-test-video.c: video frames of random bytes, and the CPU reference of
 * the statistics the video tests compute on them. */
#include "cr-test-video.h"

#include "gstcudareduce-caps.h"

void
cr_test_stats_init (CrTestStats *s)
{
  memset (s, 0, sizeof *s);
  s->min = G_MAXUINT64;
}

void
cr_test_stats_add (CrTestStats *s, guint64 x, guint64 i, gdouble threshold)
{
  s->sum += x;
  s->min = MIN (s->min, x);
  s->max = MAX (s->max, x);
  s->above += (gdouble)x > threshold;
  s->indexed += x * (i % 7 + 1);
  s->count++;
}

CrTestFrame
cr_test_frame_new (GRand *rand, const gchar *format, gint w, gint h, guint pad)
{
  CrTestFrame f = { .meta = pad > 0 };
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

GstBuffer *
cr_test_frame_buffer (const CrTestFrame *f, guint n)
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
sample (const CrTestFrame *f, guint plane, gsize byte)
{
  const guint8 *at = f->data + f->info.offset[plane] + byte;
  return GST_VIDEO_INFO_COMP_DEPTH (&f->info, 0) > 8 ? GST_READ_UINT16_LE (at)
                                                     : at[0];
}

static guint
elem_size (const CrTestFrame *f)
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
add_component (
    CrTestStats *s, const CrTestFrame *f, guint c, guint64 first, gdouble t)
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
      cr_test_stats_add (s,
          sample (f, plane,
              (gsize)y * info->stride[plane] + poffset
                  + (gsize)x * GST_VIDEO_INFO_COMP_PSTRIDE (info, c)),
          first + (guint64)y * w + x, t);
}

/* Every sample of the visible pixels of every plane, plane after plane
 * (Y's first), indices from @first. */
static void
add_whole (CrTestStats *s, const CrTestFrame *f, guint64 first, gdouble t)
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
        cr_test_stats_add (
            s, sample (f, plane, (gsize)y * info->stride[plane] + b), i++, t);
  }
}

/* Adds @f, the @frames_before'th frame of its result, to @e. */
void
cr_test_expect_frame (CrTestExpected *e, const CrTestFrame *f,
    guint64 frames_before, gdouble threshold)
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

void
cr_test_expected_init (CrTestExpected *e, gboolean per_channel, gint component)
{
  memset (e, 0, sizeof *e);
  e->per_channel = per_channel;
  e->component = component;
  for (guint v = 0; v < GST_VIDEO_MAX_COMPONENTS; v++)
    cr_test_stats_init (&e->values[v]);
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

void
cr_test_check_result (
    const GstStructure *s, const CrTestExpected *e, const gchar *what)
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
    const CrTestStats *x = &e->values[v];
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

gdouble
cr_test_threshold_of (const gchar *format)
{
  GstVideoInfo info;
  gst_video_info_set_format (
      &info, gst_video_format_from_string (format), 16, 16);
  return GST_VIDEO_INFO_COMP_DEPTH (&info, 0) > 8 ? 40000.5 : 200.5;
}

/* Two frames, a result each, in one configuration. */
GstPadProbeReturn
cr_test_keep_frame (GstPad *pad, GstPadProbeInfo *info, gpointer frames)
{
  g_ptr_array_add (frames, gst_buffer_ref (GST_PAD_PROBE_INFO_BUFFER (info)));
  return GST_PAD_PROBE_OK;
}

CrTestFrame
cr_test_frame_of_buffer (GstBuffer *buf, const GstVideoInfo *caps_info)
{
  GstVideoFrame vf;
  CrTestFrame f = { 0 };
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

gchar *
cr_test_stats_props (const gchar *format)
{
  return g_strdup_printf ("monoid=stats accumulator=\"%s\" load=\"%s\" "
                          "combine=\"%s\" identity=\"%s\" "
                          "context-fields=threshold:float64 threshold=%.1f",
      STATS_ACC, STATS_LOAD, STATS_COMBINE, STATS_IDENTITY,
      cr_test_threshold_of (format));
}

/* Plays @pipeline to EOS; returns the results posted on the way. */
static GPtrArray *
play_to_eos (GstElement *pipeline, const gchar *desc)
{
  GPtrArray *results =
      g_ptr_array_new_with_free_func ((GDestroyNotify)gst_structure_free);
  GstBus *bus = gst_element_get_bus (pipeline);

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
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
  gst_object_unref (bus);
  return results;
}

GPtrArray *
cr_test_play_keeping_frames (const gchar *desc, GPtrArray *frames,
    GstCaps **caps, void (*at_eos) (GstElement *))
{
  g_autoptr (GError) error = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &error);
  fail_unless (pipeline != NULL, "%s", error ? error->message : desc);
  GstElement *frames_element =
      gst_bin_get_by_name (GST_BIN (pipeline), "frames");
  GstPad *sink = NULL;
  if (frames_element) {
    sink = gst_element_get_static_pad (frames_element, "sink");
    gst_pad_add_probe (
        sink, GST_PAD_PROBE_TYPE_BUFFER, cr_test_keep_frame, frames, NULL);
  }
  GPtrArray *results = play_to_eos (pipeline, desc);
  if (at_eos)
    at_eos (pipeline);
  if (sink) {
    *caps = gst_pad_get_current_caps (sink);
    gst_object_unref (sink);
    gst_object_unref (frames_element);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  /* Messages left on the bus hold their sources. */
  GstBus *bus = gst_element_get_bus (pipeline);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  return results;
}

void
cr_test_check_pipelines (const gchar *desc, const gchar *frames_desc,
    const gchar *format, guint n, gboolean per_channel, gint component,
    void (*at_eos) (GstElement *))
{
  g_autoptr (GPtrArray) frames =
      g_ptr_array_new_with_free_func ((GDestroyNotify)gst_buffer_unref);
  g_autoptr (GstCaps) caps = NULL;
  g_autoptr (GPtrArray) results =
      cr_test_play_keeping_frames (desc, frames, &caps, at_eos);
  if (frames_desc)
    g_ptr_array_unref (
        cr_test_play_keeping_frames (frames_desc, frames, &caps, NULL));
  fail_unless (caps != NULL, "%s: no element named frames", desc);
  GstVideoInfo info;
  fail_unless (gst_video_info_from_caps (&info, caps));
  fail_unless (
      results->len == n, "%s: %u results, expected %u", desc, results->len, n);
  fail_unless (
      frames->len == n, "%s: %u frames, expected %u", desc, frames->len, n);
  for (guint k = 0; k < n; k++) {
    CrTestFrame f =
        cr_test_frame_of_buffer (g_ptr_array_index (frames, k), &info);
    CrTestExpected e;
    cr_test_expected_init (&e, per_channel, component);
    cr_test_expect_frame (&e, &f, 0, cr_test_threshold_of (format));
    cr_test_check_result (g_ptr_array_index (results, k), &e, desc);
    g_free (f.data);
  }
}

void
cr_test_check_pipeline (const gchar *desc, const gchar *format, guint n,
    gboolean per_channel, gint component, void (*at_eos) (GstElement *))
{
  cr_test_check_pipelines (
      desc, NULL, format, n, per_channel, component, at_eos);
}

GStrv
cr_test_video_format_names (void)
{
  g_autofree gchar *list =
      g_strdelimit (g_strdup (CR_VIDEO_FORMATS), "{},", ' ');
  g_auto (GStrv) words = g_strsplit_set (g_strstrip (list), " ", -1);
  GStrvBuilder *names = g_strv_builder_new ();
  for (guint k = 0; words[k]; k++)
    if (*words[k] != '\0')
      g_strv_builder_add (names, words[k]);
  GStrv out = g_strv_builder_end (names);
  g_strv_builder_unref (names);
  return out;
}
