/* test-gpu-regions-element.c: the element's results per region, against
 * references computed on the CPU from fresh random frames: rectangles from
 * the regions property and from ROI metas, clipped, on subsampled planes,
 * per component and not, in host and CUDA memory, as messages, as
 * parameters on the ROI metas and as tensors, over intervals and sliding
 * windows. test-gpu-regions.c checks the engine's launches beneath. */
#include "cr-test-main.h"
#include "cr-test-regions.h"

#include <string.h>

static GRand *rand_;

static guint
region_add (const CrTestFrame *f, CrTestBox b, gboolean per_channel,
    gdouble threshold, guint64 frame, CrTestStats *values)
{
  const GstVideoInfo *info = &f->info;
  const guint n_comps = GST_VIDEO_INFO_N_COMPONENTS (info);
  const guint e = cr_test_sample_bytes (info);
  gint x0, x1, y0, y1;

  if (per_channel) {
    for (guint c = 0; c < n_comps; c++) {
      const guint plane = GST_VIDEO_INFO_COMP_PLANE (info, c);
      const gsize pstride = GST_VIDEO_INFO_COMP_PSTRIDE (info, c);
      const gsize poffset = GST_VIDEO_INFO_COMP_POFFSET (info, c);
      cr_test_box_span (info, c, b, &x0, &x1, &y0, &y1);
      const guint64 first = frame * (guint64)(x1 - x0) * (y1 - y0);
      for (gint y = y0; y < y1; y++)
        for (gint x = x0; x < x1; x++)
          cr_test_stats_add (&values[c],
              cr_test_sample (f, plane, y, x * pstride + poffset),
              first + (guint64)(y - y0) * (x1 - x0) + (x - x0), threshold);
    }
    return n_comps;
  }
  guint64 samples = 0;
  for (guint pass = 0; pass < 2; pass++) {
    /* The first pass counts a frame's samples, where the index starts. */
    guint64 i = frame * samples;
    for (guint plane = 0; plane < GST_VIDEO_INFO_N_PLANES (info); plane++) {
      guint c = 0;
      while (GST_VIDEO_INFO_COMP_PLANE (info, c) != plane)
        c++;
      const gsize pstride = GST_VIDEO_INFO_COMP_PSTRIDE (info, c);
      cr_test_box_span (info, c, b, &x0, &x1, &y0, &y1);
      for (gint y = y0; y < y1; y++)
        for (gsize byte = x0 * pstride; byte < x1 * pstride; byte += e) {
          if (pass == 0)
            samples++;
          else
            cr_test_stats_add (
                &values[0], cr_test_sample (f, plane, y, byte), i++, threshold);
        }
    }
  }
  return 1;
}

/* What region @b (clipped) of @f gives: per component (the formats here
 * order their values by component), or over every sample of its pixels,
 * plane after plane in memory order, indices continuing. */
static guint
region_reference (const CrTestFrame *f, CrTestBox b, gboolean per_channel,
    gdouble threshold, CrTestStats *values)
{
  for (guint c = 0; c < GST_VIDEO_MAX_COMPONENTS; c++)
    cr_test_stats_init (&values[c]);
  return region_add (f, b, per_channel, threshold, 0, values);
}

static guint64
get_u64 (const GValue *v)
{
  if (G_VALUE_HOLDS_UINT64 (v))
    return g_value_get_uint64 (v);
  if (G_VALUE_HOLDS_INT64 (v))
    return (guint64)g_value_get_int64 (v);
  if (G_VALUE_HOLDS_UINT (v))
    return g_value_get_uint (v);
  if (G_VALUE_HOLDS_INT (v))
    return (guint64)g_value_get_int (v);
  fail ("a %s where a number was expected", G_VALUE_TYPE_NAME (v));
  return 0;
}

/* A region's field @name in @s, results per region: value @v. */
static guint64
region_field (const GstStructure *s, const gchar *name, guint k,
    gboolean per_channel, guint v)
{
  const GValue *array = gst_structure_get_value (s, name);
  fail_unless (array && GST_VALUE_HOLDS_ARRAY (array), "no array %s", name);
  const GValue *item = gst_value_array_get_value (array, k);
  if (per_channel)
    item = gst_value_array_get_value (item, v);
  return get_u64 (item);
}

static void
check_stats (const CrTestStats *want, guint64 sum, guint64 min, guint64 max,
    guint64 above, guint64 indexed, guint64 count, const gchar *what)
{
  fail_unless (count == want->count,
      "%s: count %" G_GUINT64_FORMAT ", reference %" G_GUINT64_FORMAT, what,
      count, want->count);
  fail_unless (
      sum == want->sum && above == want->above && indexed == want->indexed,
      "%s: sum %" G_GUINT64_FORMAT " above %" G_GUINT64_FORMAT
      " indexed %" G_GUINT64_FORMAT ", reference %" G_GUINT64_FORMAT
      " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT,
      what, sum, above, indexed, want->sum, want->above, want->indexed);
  if (want->count > 0)
    fail_unless (min == want->min && max == want->max,
        "%s: min %" G_GUINT64_FORMAT " max %" G_GUINT64_FORMAT
        ", reference %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT,
        what, min, max, want->min, want->max);
}

/* Region @k of the message @s against @want (@n values). */
static void
check_region (const GstStructure *s, guint k, gboolean per_channel,
    const CrTestStats *want, guint n, const gchar *what)
{
  for (guint v = 0; v < n; v++) {
    g_autofree gchar *where =
        g_strdup_printf ("%s, region %u, value %u", what, k, v);
    check_stats (&want[v], region_field (s, "sum", k, per_channel, v),
        region_field (s, "min", k, per_channel, v),
        region_field (s, "max", k, per_channel, v),
        region_field (s, "above", k, per_channel, v),
        region_field (s, "indexed", k, per_channel, v),
        region_field (s, "counts", k, per_channel, v), where);
  }
}

/* The same of the parameters on an ROI meta: one region's, as a message
 * without regions gives them. */
static void
check_params (const GstStructure *params, gboolean per_channel,
    const CrTestStats *want, guint n, const gchar *what)
{
  static const gchar *names[] = { "sum", "min", "max", "above", "indexed",
    "counts" };
  fail_unless (params != NULL, "%s: no parameters on the ROI meta", what);
  fail_unless_equals_string (
      gst_structure_get_string (params, "element"), "reduce");
  for (guint v = 0; v < n; v++) {
    guint64 got[G_N_ELEMENTS (names)];
    for (guint j = 0; j < G_N_ELEMENTS (names); j++) {
      const GValue *value = gst_structure_get_value (params, names[j]);
      if (value == NULL && j == 5) { /* one value: count */
        value = gst_structure_get_value (params, "count");
        fail_unless (value != NULL);
        got[j] = get_u64 (value);
        continue;
      }
      fail_unless (value != NULL, "%s: no %s", what, names[j]);
      got[j] =
          get_u64 (per_channel ? gst_value_array_get_value (value, v) : value);
    }
    g_autofree gchar *where = g_strdup_printf ("%s, value %u", what, v);
    check_stats (
        &want[v], got[0], got[1], got[2], got[3], got[4], got[5], where);
  }
}

typedef struct {
  const gchar *format;
  gint width, height;
  gboolean per_channel;
  guint n_rects; /* in the regions property */
  guint n_metas; /* ROI metas on each frame, of types face, car, person */
  const gchar *roi_types; /* NULL: none */
} RegionsCase;

/* Frames of @c through a harness: every result checked, and the
 * parameters on the ROI metas of the frames pushed on. */
static void
regions_element_case (const RegionsCase *c)
{
  static const gchar *types[] = { "face", "car", "person" };
  enum { FRAMES = 3 };
  g_autofree gchar *what = g_strdup_printf ("%s %dx%d%s, %u rectangles, %u "
                                            "metas of types %s",
      c->format, c->width, c->height, c->per_channel ? " per channel" : "",
      c->n_rects, c->n_metas, c->roi_types ? c->roi_types : "none");
  CrTestBox *boxes = g_new (CrTestBox, c->n_rects + 1);
  for (guint k = 0; k < c->n_rects; k++)
    boxes[k] = cr_test_box_random (rand_, c->width, c->height);
  g_autofree gchar *rects = cr_test_boxes_text (boxes, c->n_rects);
  g_autofree gchar *props = cr_test_stats_props (c->format);
  const gdouble threshold = cr_test_threshold_of (c->format);
  g_autoptr (GstCaps) caps = gst_caps_new_simple ("video/x-raw", "format",
      G_TYPE_STRING, c->format, "width", G_TYPE_INT, c->width, "height",
      G_TYPE_INT, c->height, "framerate", GST_TYPE_FRACTION, 30, 1, NULL);
  g_autofree gchar *desc = g_strdup_printf ("cudareduce name=reduce %s "
                                            "per-channel=%d regions=\"%s\" "
                                            "roi-types=\"%s\"",
      props, c->per_channel, rects, c->roi_types ? c->roi_types : "");
  GstHarness *h = gst_harness_new_parse (desc);
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  gst_object_unref (bus);
  gst_harness_set_src_caps (h, gst_caps_ref (caps));

  CrTestFrame frames[FRAMES];
  CrTestBox metas[FRAMES][8];
  for (guint n = 0; n < FRAMES; n++) {
    frames[n] = cr_test_frame_new (
        rand_, c->format, c->width, c->height, n % 2 ? 0 : 4 * (n + 1));
    GstBuffer *buf = cr_test_frame_buffer (&frames[n], n);
    for (guint m = 0; m < c->n_metas; m++) {
      metas[n][m] = cr_test_box_random (rand_, c->width, c->height);
      /* The meta's coordinates are unsigned: off the frame to the left
       * is far to the right. */
      metas[n][m].x = MAX (metas[n][m].x, 0);
      metas[n][m].y = MAX (metas[n][m].y, 0);
      GstVideoRegionOfInterestMeta *roi =
          gst_buffer_add_video_region_of_interest_meta (buf, types[m % 3],
              metas[n][m].x, metas[n][m].y, metas[n][m].w, metas[n][m].h);
      roi->id = 100 * n + m;
    }
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  }
  g_autoptr (GPtrArray) results = cr_test_results_after_eos (h, what);
  fail_unless_equals_int (results->len, FRAMES);
  for (guint n = 0; n < FRAMES; n++) {
    const GstStructure *s = g_ptr_array_index (results, n);
    g_autoptr (GstBuffer) out = gst_harness_pull (h);
    guint n_regions = 0;
    fail_unless (gst_structure_get_uint (s, "regions", &n_regions));
    guint expect = c->n_rects;
    for (guint m = 0; m < c->n_metas; m++)
      expect += cr_test_type_read (c->roi_types, types[m % 3]);
    fail_unless_equals_int (n_regions, expect);
    CrTestStats want[GST_VIDEO_MAX_COMPONENTS];
    guint k = 0;
    for (guint j = 0; j < c->n_rects; j++, k++) {
      const guint nv = region_reference (&frames[n],
          cr_test_box_clip (boxes[j], c->width, c->height), c->per_channel,
          threshold, want);
      g_autofree gchar *where =
          g_strdup_printf ("%s, frame %u, rectangle %u", what, n, j);
      check_region (s, k, c->per_channel, want, nv, where);
      fail_unless_equals_int (region_field (s, "region-ids", k, FALSE, 0), j);
    }
    for (guint m = 0; m < c->n_metas; m++) {
      if (!cr_test_type_read (c->roi_types, types[m % 3]))
        continue;
      const guint nv = region_reference (&frames[n],
          cr_test_box_clip (metas[n][m], c->width, c->height), c->per_channel,
          threshold, want);
      g_autofree gchar *where =
          g_strdup_printf ("%s, frame %u, meta %u", what, n, m);
      check_region (s, k, c->per_channel, want, nv, where);
      fail_unless_equals_int (
          region_field (s, "region-ids", k, FALSE, 0), 100 * n + m);
      const GValue *t = gst_value_array_get_value (
          gst_structure_get_value (s, "region-types"), k);
      fail_unless_equals_string (g_value_get_string (t), types[m % 3]);
      GstVideoRegionOfInterestMeta *roi =
          gst_buffer_get_video_region_of_interest_meta_id (out, 100 * n + m);
      fail_unless (roi != NULL, "%s: the meta is gone", where);
      check_params (
          gst_video_region_of_interest_meta_get_param (roi, "cudareduce"),
          c->per_channel, want, nv, where);
      k++;
    }
    g_free (frames[n].data);
  }
  gst_harness_teardown (h);
  g_free (boxes);
}

GST_START_TEST (test_element_regions_property)
{
  const RegionsCase cases[] = {
    { "GRAY8", 640, 360, FALSE, 24, 0, NULL },
    { "NV12", 322, 180, TRUE, 16, 0, NULL },
    /* Without per-channel, a frame's planes are read in one launch. */
    { "NV12", 322, 180, FALSE, 16, 0, NULL },
    { "I420", 321, 179, FALSE, 16, 0, NULL },
    { "RGBA", 200, 120, TRUE, 9, 0, NULL },
    { "I420_10LE", 160, 90, TRUE, 7, 0, NULL },
    { "I420_10LE", 160, 90, FALSE, 7, 0, NULL },
  };
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    regions_element_case (&cases[k]);
}

GST_END_TEST;

GST_START_TEST (test_element_regions_roi_metas)
{
  const RegionsCase cases[] = {
    { "NV12", 640, 360, TRUE, 2, 6, "face,car" },
    { "I420", 319, 181, FALSE, 0, 5, "*" },
    { "GRAY8", 320, 240, FALSE, 3, 0, "person" },
    { "RGBx", 96, 64, FALSE, 1, 4, "car" },
  };
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    regions_element_case (&cases[k]);
}

GST_END_TEST;

/* output=tensor: one tensor per field, [regions][values]. */
GST_START_TEST (test_element_regions_tensors)
{
  const CrTestBox boxes[] = { { 0, 0, 64, 64 }, { 100, 50, 33, 17 },
    { -10, -10, 20, 20 }, { 400, 400, 5, 5 } };
  g_autofree gchar *rects = cr_test_boxes_text (boxes, G_N_ELEMENTS (boxes));
  g_autoptr (GstCaps) caps = gst_caps_from_string (
      "video/x-raw,format=NV12,width=320,height=240,framerate=30/1");
  GstHarness *h = cr_test_harness (gst_caps_ref (caps), "monoid", "sum",
      "per-channel", "true", "output", "tensor", "regions", rects, NULL);
  CrTestFrame f = cr_test_frame_new (rand_, "NV12", 320, 240, 8);
  fail_unless_equals_int (
      gst_harness_push (h, cr_test_frame_buffer (&f, 0)), GST_FLOW_OK);
  g_autoptr (GstBuffer) out = gst_harness_pull (h);
  g_autoptr (GstCaps) out_caps = gst_pad_get_current_caps (h->sinkpad);
  const GstStructure *st = gst_caps_get_structure (out_caps, 0);
  fail_unless_equals_string (
      gst_structure_get_string (st, "dimensions"), "3:4");
  fail_unless_equals_int (gst_buffer_n_memory (out), 1);
  GstMapInfo map;
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless_equals_int (map.size, 4 * 3 * 8);
  for (guint k = 0; k < G_N_ELEMENTS (boxes); k++) {
    CrTestStats want[GST_VIDEO_MAX_COMPONENTS];
    region_reference (
        &f, cr_test_box_clip (boxes[k], 320, 240), TRUE, 255, want);
    for (guint v = 0; v < 3; v++) {
      guint64 got;
      memcpy (&got, map.data + (k * 3 + v) * 8, 8);
      fail_unless (got == want[v].sum,
          "region %u, value %u: %" G_GUINT64_FORMAT
          ", reference %" G_GUINT64_FORMAT,
          k, v, got, want[v].sum);
    }
  }
  gst_buffer_unmap (out, &map);
  g_free (f.data);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Fixed regions over intervals and a sliding window: 50 fps, 40 ms hops
 * of two frames, windows of three hops; 9 frames are 4 hops and a frame
 * at EOS. Each result is the regions' over the frames it spans, the index
 * counting frames since the stream started. */
static void
regions_window_case (const gchar *format, gboolean per_channel)
{
  enum { FRAMES = 9, HOP = 2, HOPS = 3, W = 150, H = 86 };
  const CrTestBox boxes[] = { { 0, 0, 32, 16 }, { 33, 7, 50, 41 },
    { 140, 80, 30, 30 }, { -4, 60, 9, 9 }, { 200, 0, 4, 4 } };
  g_autofree gchar *rects = cr_test_boxes_text (boxes, G_N_ELEMENTS (boxes));
  g_autofree gchar *props = cr_test_stats_props (format);
  g_autofree gchar *desc = g_strdup_printf ("cudareduce %s per-channel=%d "
                                            "regions=\"%s\" "
                                            "interval=40000000 "
                                            "window=120000000",
      props, per_channel, rects);
  const gdouble threshold = cr_test_threshold_of (format);
  GstHarness *h = gst_harness_new_parse (desc);
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  gst_object_unref (bus);
  gst_harness_set_src_caps (h,
      gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING, format,
          "width", G_TYPE_INT, W, "height", G_TYPE_INT, H, "framerate",
          GST_TYPE_FRACTION, 50, 1, NULL));
  CrTestFrame frames[FRAMES];
  for (guint k = 0; k < FRAMES; k++) {
    frames[k] = cr_test_frame_new (rand_, format, W, H, k % 2 * 8);
    GstBuffer *buf = cr_test_frame_buffer (&frames[k], k);
    GST_BUFFER_PTS (buf) = k * 20 * GST_MSECOND;
    GST_BUFFER_DURATION (buf) = 20 * GST_MSECOND;
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  }
  g_autoptr (GPtrArray) results = cr_test_results_after_eos (h, format);
  const guint n_hops = (FRAMES + HOP - 1) / HOP;
  fail_unless_equals_int (results->len, n_hops);
  for (guint k = 0; k < n_hops; k++) {
    const guint from = (k + 1 >= HOPS ? k + 1 - HOPS : 0) * HOP;
    const guint to = MIN ((k + 1) * HOP, FRAMES);
    const GstStructure *s = g_ptr_array_index (results, k);
    for (guint j = 0; j < G_N_ELEMENTS (boxes); j++) {
      CrTestStats want[GST_VIDEO_MAX_COMPONENTS];
      guint nv = 0;
      for (guint c = 0; c < GST_VIDEO_MAX_COMPONENTS; c++)
        cr_test_stats_init (&want[c]);
      for (guint f = from; f < to; f++)
        nv = region_add (&frames[f], cr_test_box_clip (boxes[j], W, H),
            per_channel, threshold, f, want);
      g_autofree gchar *what = g_strdup_printf (
          "%s window, hop %u (frames %u to %u)", format, k, from, to - 1);
      check_region (s, j, per_channel, want, nv, what);
    }
  }
  for (guint k = 0; k < FRAMES; k++)
    g_free (frames[k].data);
  gst_harness_teardown (h);
}

GST_START_TEST (test_element_regions_window)
{
  regions_window_case ("NV12", TRUE);
  regions_window_case ("I420", FALSE);
  regions_window_case ("GRAY8", FALSE);
}

GST_END_TEST;

/* Frames in CUDA memory (cudaupload) against the host frames the same
 * pipeline made before uploading them. */
static void
cuda_memory_case (const gchar *format, gboolean per_channel)
{
  g_autofree gchar *stats = cr_test_stats_props (format);
  g_autofree gchar *props =
      g_strdup_printf ("%s per-channel=%d", stats, per_channel);
  g_autoptr (GPtrArray) frames =
      g_ptr_array_new_with_free_func ((GDestroyNotify)gst_buffer_unref);
  GstVideoInfo info;
  g_autoptr (GPtrArray) results =
      cr_test_regions_in_cuda_memory (format, props, frames, &info);
  for (guint n = 0; n < results->len; n++) {
    CrTestFrame f =
        cr_test_frame_of_buffer (g_ptr_array_index (frames, n), &info);
    const GstStructure *s = g_ptr_array_index (results, n);
    for (guint k = 0; k < CR_TEST_CUDA_BOXES; k++) {
      CrTestStats want[GST_VIDEO_MAX_COMPONENTS];
      const guint nv = region_reference (&f,
          cr_test_box_clip (cr_test_cuda_boxes[k], 256, 144), per_channel,
          cr_test_threshold_of (format), want);
      g_autofree gchar *where = g_strdup_printf (
          "%s in CUDA memory, frame %u, region %u", format, n, k);
      check_region (s, k, per_channel, want, nv, where);
    }
    g_free (f.data);
  }
}

GST_START_TEST (test_element_regions_cuda_memory)
{
  const gchar *missing = cr_test_cuda_memory_missing ();
  if (missing) {
    g_print ("skipped: %s\n", missing);
    return;
  }
  cuda_memory_case ("NV12", TRUE);
  cuda_memory_case ("I420", FALSE);
  cuda_memory_case ("RGBA", TRUE);
}

GST_END_TEST;

static const CrTestCase cases[] = {
  CR_TEST_CASE (test_element_regions_property),
  CR_TEST_CASE (test_element_regions_roi_metas),
  CR_TEST_CASE (test_element_regions_tensors),
  CR_TEST_CASE (test_element_regions_window),
  CR_TEST_CASE (test_element_regions_cuda_memory),
  { NULL },
};

static const CrGpuTest gpu_regions_element = {
  .name = "gpu-regions-element",
  .timeout = 300,
  .needs = CR_TEST_NEEDS_NVRTC,
  .rand = &rand_,
  .cases = cases,
};

CR_TEST_GPU_MAIN (gpu_regions_element);
