/* test-gpu-region-bins.c: histograms per region of a frame.
 *
 * Monoids that count values in bins, with regions and roi-types: each
 * region's counts (and signalstats' min, max, mean and percentiles)
 * against counts made on the CPU (cr-test-bins) from fresh random frames,
 * for rectangles of the regions property (clipped, overlapping, empty)
 * and ROI metas, whose parameter structures are read back downstream; one
 * result over every sample or one per component, subsampled chroma, 8-
 * and 16-bit samples, sliding windows, frames in host and CUDA memory. */
#include "cr-test-bins.h"
#include "cr-test-main.h"
#include "cr-test-regions.h"

#include <math.h>
#include <string.h>

static GRand *rand_;

/* What a region of a frame gives one value: its counts, and the samples'
 * least, greatest and sum. */
typedef struct {
  guint64 *slots;
  guint64 min, max, sum, n;
} Want;

static void
want_add (Want *w, const CrTestBinning *b, const guint8 *at, guint64 x)
{
  w->slots[cr_test_slot_of (b, at, 0)]++;
  w->min = MIN (w->min, x);
  w->max = MAX (w->max, x);
  w->sum += x;
  w->n++;
}

/* Region @box (clipped) of @f: one Want per component, or with
 * @per_channel FALSE one over every sample. Returns the values. */
static guint
region_want (const CrTestFrame *f, const CrTestBinning *b, CrTestBox box,
    gboolean per_channel, Want *want)
{
  const GstVideoInfo *info = &f->info;
  const guint n_comps = GST_VIDEO_INFO_N_COMPONENTS (info);
  const guint n = per_channel ? n_comps : 1;

  for (guint v = 0; v < n; v++) {
    g_free (want[v].slots);
    memset (&want[v], 0, sizeof want[v]);
    want[v].slots = g_new0 (guint64, CR_TEST_SLOTS (b));
    want[v].min = G_MAXUINT64;
  }
  for (guint c = 0; c < n_comps; c++) {
    const guint plane = GST_VIDEO_INFO_COMP_PLANE (info, c);
    const gsize pstride = GST_VIDEO_INFO_COMP_PSTRIDE (info, c);
    const gsize poffset = GST_VIDEO_INFO_COMP_POFFSET (info, c);
    Want *w = &want[per_channel ? c : 0];
    gint x0, x1, y0, y1;
    cr_test_box_span (info, c, box, &x0, &x1, &y0, &y1);
    for (gint y = y0; y < y1; y++)
      for (gint x = x0; x < x1; x++) {
        const gsize byte = x * pstride + poffset;
        want_add (w, b, cr_test_sample_at (f, plane, y, byte),
            cr_test_sample (f, plane, y, byte));
      }
  }
  return n;
}

static void
want_clear (Want *want, guint n)
{
  for (guint v = 0; v < n; v++)
    g_clear_pointer (&want[v].slots, g_free);
}

/* Region @k's result of the message @s: every field that is an array over
 * the @n regions, but the regions' own, as item @k: the shape of an ROI
 * meta's parameters. */
static GstStructure *
region_result (const GstStructure *s, guint k, guint n)
{
  GstStructure *r = gst_structure_new_empty ("cudareduce");
  for (gint f = 0; f < gst_structure_n_fields (s); f++) {
    const gchar *name = gst_structure_nth_field_name (s, f);
    const GValue *value = gst_structure_get_value (s, name);
    if (g_str_has_prefix (name, "region-") || !GST_VALUE_HOLDS_ARRAY (value)
        || gst_value_array_get_size (value) != n)
      continue;
    gst_structure_set_value (r, name, gst_value_array_get_value (value, k));
  }
  return r;
}

static guint64
u64_of (const GValue *v)
{
  fail_unless (G_VALUE_HOLDS_UINT64 (v), "a %s", G_VALUE_TYPE_NAME (v));
  return g_value_get_uint64 (v);
}

static gdouble
double_of (const GValue *v)
{
  if (G_VALUE_HOLDS_DOUBLE (v))
    return g_value_get_double (v);
  if (G_VALUE_HOLDS_UINT64 (v))
    return (gdouble)g_value_get_uint64 (v);
  if (G_VALUE_HOLDS_UINT (v))
    return g_value_get_uint (v);
  if (G_VALUE_HOLDS_INT (v))
    return g_value_get_int (v);
  fail ("a %s", G_VALUE_TYPE_NAME (v));
  return 0;
}

/* A harness of @desc fed @caps, its messages on a bus of its own. */
static GstHarness *
harness_of (const gchar *desc, GstCaps *caps)
{
  GstHarness *h = gst_harness_new_parse (desc);
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  gst_object_unref (bus);
  gst_harness_set_src_caps (h, gst_caps_ref (caps));
  return h;
}

/* @n ROI metas of type "car" at random places of frame @frame's @buf
 * (@width x @height), ids 100 * @frame + m, their boxes in @boxes. */
static void
add_car_metas (GstBuffer *buf, guint frame, guint n, gint width, gint height,
    CrTestBox *boxes)
{
  for (guint m = 0; m < n; m++) {
    boxes[m] = cr_test_box_random (rand_, width, height);
    boxes[m].x = MAX (boxes[m].x, 0);
    boxes[m].y = MAX (boxes[m].y, 0);
    GstVideoRegionOfInterestMeta *roi =
        gst_buffer_add_video_region_of_interest_meta (
            buf, "car", boxes[m].x, boxes[m].y, boxes[m].w, boxes[m].h);
    roi->id = 100 * frame + m;
  }
}

/* The parameters the element put on @out's ROI meta @id. */
static const GstStructure *
meta_params (GstBuffer *out, gint id, const gchar *where)
{
  GstVideoRegionOfInterestMeta *roi =
      gst_buffer_get_video_region_of_interest_meta_id (out, id);
  fail_unless (roi != NULL, "%s: the meta is gone", where);
  const GstStructure *params =
      gst_video_region_of_interest_meta_get_param (roi, "cudareduce");
  fail_unless (params != NULL, "%s: no parameters on the meta", where);
  return params;
}

/* Fails unless @r, one region's result (or an ROI meta's parameters),
 * gives what @want says of its @n values (per channel where @per_channel),
 * with signalstats' fields where @stats. */
static void
check_region (const GstStructure *r, const CrTestBinning *b,
    gboolean per_channel, gboolean stats, const Want *want, guint n,
    const gchar *what)
{
  const guint nn = per_channel ? n : 0;
  for (guint v = 0; v < n; v++) {
    g_autofree gchar *where = g_strdup_printf ("%s, value %u", what, v);
    cr_test_check_slots (r, b, nn, v, want[v].slots, where);
    /* One value: a message's region has counts, an ROI meta count. */
    const gchar *count = per_channel || !gst_structure_has_field (r, "count")
        ? "counts"
        : "count";
    fail_unless_equals_uint64 (
        u64_of (cr_test_value_of (r, count, nn, v)), want[v].n);
    if (!stats || want[v].n == 0)
      continue;
    fail_unless_equals_uint64 (
        (guint64)double_of (cr_test_value_of (r, "min", nn, v)), want[v].min);
    fail_unless_equals_uint64 (
        (guint64)double_of (cr_test_value_of (r, "max", nn, v)), want[v].max);
    const gdouble avg = double_of (cr_test_value_of (r, "avg", nn, v));
    fail_unless (fabs (avg - (gdouble)want[v].sum / want[v].n) < 1e-9 * avg,
        "%s: avg %g, expected %g", where, avg,
        (gdouble)want[v].sum / want[v].n);
    const gdouble low = double_of (cr_test_value_of (r, "low", nn, v));
    const gdouble high = double_of (cr_test_value_of (r, "high", nn, v));
    fail_unless_equals_float (
        low, cr_test_percentile (b, want[v].slots, 0.1, cr_test_bin_value));
    fail_unless_equals_float (
        high, cr_test_percentile (b, want[v].slots, 0.9, cr_test_bin_value));
  }
}

typedef struct {
  const gchar *format;
  gint width, height;
  const gchar *monoid; /* histogram or signalstats */
  guint bins; /* 0: the monoid's */
  gboolean per_channel;
  guint n_rects; /* in the regions property */
  guint n_metas; /* ROI metas of type "car" on each frame, read */
} BinsCase;

/* Three frames of @c through a harness: every region of every result,
 * and the parameters on the ROI metas of the frames pushed on. */
static void
bins_case (const BinsCase *c)
{
  enum { FRAMES = 3 };
  g_autofree gchar *what = g_strdup_printf ("%s %s %dx%d%s, %u bins, %u "
                                            "rectangles, %u metas",
      c->monoid, c->format, c->width, c->height,
      c->per_channel ? " per channel" : "", c->bins, c->n_rects, c->n_metas);
  CrTestBox *boxes = g_new (CrTestBox, c->n_rects + 1);
  for (guint k = 0; k < c->n_rects; k++)
    boxes[k] = cr_test_box_random (rand_, c->width, c->height);
  g_autofree gchar *rects = cr_test_boxes_text (boxes, c->n_rects);
  g_autoptr (GstCaps) caps = gst_caps_new_simple ("video/x-raw", "format",
      G_TYPE_STRING, c->format, "width", G_TYPE_INT, c->width, "height",
      G_TYPE_INT, c->height, "framerate", GST_TYPE_FRACTION, 30, 1, NULL);
  g_autofree gchar *bins =
      c->bins ? g_strdup_printf ("bins=%u", c->bins) : g_strdup ("");
  g_autofree gchar *desc = g_strdup_printf ("cudareduce name=reduce monoid=%s "
                                            "%s per-channel=%d regions=\"%s\" "
                                            "roi-types=car",
      c->monoid, bins, c->per_channel, rects);
  GstHarness *h = harness_of (desc, caps);
  GstVideoInfo info;
  fail_unless (gst_video_info_from_caps (&info, caps));
  const CrType type =
      cr_test_sample_bytes (&info) == 2 ? CR_TYPE_UINT16 : CR_TYPE_UINT8;
  const CrTestBinning b = cr_test_binning (type, c->bins ? c->bins : 256, 0, 0);
  const gboolean stats = strcmp (c->monoid, "signalstats") == 0;

  CrTestFrame frames[FRAMES];
  CrTestBox metas[FRAMES][8];
  for (guint n = 0; n < FRAMES; n++) {
    frames[n] = cr_test_frame_new (
        rand_, c->format, c->width, c->height, n % 2 ? 0 : 4 * (n + 1));
    GstBuffer *buf = cr_test_frame_buffer (&frames[n], n);
    add_car_metas (buf, n, c->n_metas, c->width, c->height, metas[n]);
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  }
  g_autoptr (GPtrArray) results = cr_test_results_after_eos (h, what);
  fail_unless_equals_int (results->len, FRAMES);
  Want want[GST_VIDEO_MAX_COMPONENTS] = { { 0 } };
  for (guint n = 0; n < FRAMES; n++) {
    const GstStructure *s = g_ptr_array_index (results, n);
    g_autoptr (GstBuffer) out = gst_harness_pull (h);
    guint n_regions = 0;
    fail_unless (gst_structure_get_uint (s, "regions", &n_regions));
    fail_unless_equals_int (n_regions, c->n_rects + c->n_metas);
    for (guint k = 0; k < n_regions; k++) {
      const gboolean meta = k >= c->n_rects;
      const CrTestBox box = meta ? metas[n][k - c->n_rects] : boxes[k];
      const guint nv = region_want (&frames[n], &b,
          cr_test_box_clip (box, c->width, c->height), c->per_channel, want);
      g_autofree gchar *where = g_strdup_printf ("%s, frame %u, %s %u", what, n,
          meta ? "meta" : "rectangle", meta ? k - c->n_rects : k);
      g_autoptr (GstStructure) r = region_result (s, k, n_regions);
      check_region (r, &b, c->per_channel, stats, want, nv, where);
      if (!meta)
        continue;
      const GstStructure *params =
          meta_params (out, 100 * n + k - c->n_rects, where);
      check_region (params, &b, c->per_channel, stats, want, nv, where);
    }
    g_free (frames[n].data);
  }
  want_clear (want, G_N_ELEMENTS (want));
  gst_harness_teardown (h);
  g_free (boxes);
}

GST_START_TEST (test_region_histograms)
{
  const BinsCase cases[] = {
    { "GRAY8", 640, 360, "histogram", 0, FALSE, 24, 0 },
    { "NV12", 322, 180, "histogram", 64, TRUE, 12, 4 },
    { "I420", 321, 179, "histogram", 0, FALSE, 8, 3 },
    { "RGBA", 200, 120, "histogram", 16, TRUE, 9, 2 },
    { "GRAY16_LE", 160, 90, "histogram", 100, FALSE, 7, 1 },
  };
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    bins_case (&cases[k]);
}

GST_END_TEST;

/* An accumulator and counts per region: signalstats' min, max and mean
 * with the percentiles read off each region's counts. */
GST_START_TEST (test_region_signalstats)
{
  const BinsCase cases[] = {
    { "I420", 320, 240, "signalstats", 0, TRUE, 10, 3 },
    { "NV12", 256, 144, "signalstats", 0, FALSE, 6, 2 },
    { "GRAY16_LE", 100, 60, "signalstats", 0, TRUE, 5, 0 },
  };
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    bins_case (&cases[k]);
}

GST_END_TEST;

/* Want @from added to @into (counts, least, greatest, sums). */
static void
want_merge (Want *into, const Want *from, const CrTestBinning *b)
{
  for (guint w = 0; w < CR_TEST_SLOTS (b); w++)
    into->slots[w] += from->slots[w];
  into->min = MIN (into->min, from->min);
  into->max = MAX (into->max, from->max);
  into->sum += from->sum;
  into->n += from->n;
}

/* Rectangles over a sliding window: frames at 50 fps, 40 ms hops of two
 * frames, windows of three hops; 9 frames are 4 hops and a frame at EOS.
 * Each result's counts (and signalstats' fields) are over the frames of
 * the hops it spans. */
static void
window_case (const gchar *format, const gchar *monoid, gboolean per_channel)
{
  enum { FRAMES = 9, W = 160, H = 90, N_BOXES = 5 };
  g_autofree gchar *what = g_strdup_printf ("%s %s%s, window of 3 hops of 2 "
                                            "frames",
      monoid, format, per_channel ? " per channel" : "");
  CrTestBox boxes[N_BOXES];
  for (guint k = 0; k < N_BOXES; k++)
    boxes[k] = cr_test_box_random (rand_, W, H);
  g_autofree gchar *rects = cr_test_boxes_text (boxes, N_BOXES);
  g_autoptr (GstCaps) caps = gst_caps_new_simple ("video/x-raw", "format",
      G_TYPE_STRING, format, "width", G_TYPE_INT, W, "height", G_TYPE_INT, H,
      "framerate", GST_TYPE_FRACTION, 50, 1, NULL);
  g_autofree gchar *desc = g_strdup_printf ("cudareduce monoid=%s "
                                            "per-channel=%d regions=\"%s\" "
                                            "interval=40000000 "
                                            "window=120000000",
      monoid, per_channel, rects);
  GstHarness *h = harness_of (desc, caps);
  const CrTestBinning b = cr_test_binning (CR_TYPE_UINT8, 256, 0, 0);
  const gboolean stats = strcmp (monoid, "signalstats") == 0;

  CrTestFrame frames[FRAMES];
  for (guint n = 0; n < FRAMES; n++) {
    frames[n] = cr_test_frame_new (rand_, format, W, H, 0);
    GstBuffer *buf = cr_test_frame_buffer (&frames[n], n);
    GST_BUFFER_PTS (buf) = n * 20 * GST_MSECOND;
    GST_BUFFER_DURATION (buf) = 20 * GST_MSECOND;
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  }
  g_autoptr (GPtrArray) results = cr_test_results_after_eos (h, what);
  fail_unless_equals_int (results->len, 5);
  Want want[GST_VIDEO_MAX_COMPONENTS] = { { 0 } };
  Want frame[GST_VIDEO_MAX_COMPONENTS] = { { 0 } };
  for (guint hop = 0; hop < results->len; hop++) {
    const GstStructure *s = g_ptr_array_index (results, hop);
    /* The window's frames: from the first of the hop two before. */
    const guint first = hop >= 2 ? 2 * (hop - 2) : 0;
    const guint end = MIN (2 * hop + 2, FRAMES);
    for (guint k = 0; k < N_BOXES; k++) {
      const CrTestBox box = cr_test_box_clip (boxes[k], W, H);
      guint nv = region_want (&frames[first], &b, box, per_channel, want);
      for (guint f = first + 1; f < end; f++) {
        region_want (&frames[f], &b, box, per_channel, frame);
        for (guint v = 0; v < nv; v++)
          want_merge (&want[v], &frame[v], &b);
      }
      g_autofree gchar *where =
          g_strdup_printf ("%s, hop %u (frames %u to %u), rectangle %u", what,
              hop, first, end - 1, k);
      g_autoptr (GstStructure) r = region_result (s, k, N_BOXES);
      check_region (r, &b, per_channel, stats, want, nv, where);
    }
  }
  for (guint n = 0; n < FRAMES; n++)
    g_free (frames[n].data);
  want_clear (want, G_N_ELEMENTS (want));
  want_clear (frame, G_N_ELEMENTS (frame));
  gst_harness_teardown (h);
}

GST_START_TEST (test_region_histograms_window)
{
  window_case ("GRAY8", "histogram", FALSE);
  window_case ("NV12", "signalstats", TRUE);
  window_case ("I420", "histogram", FALSE);
}

GST_END_TEST;

/* A thousand random regions of one frame, each with counts of its own. */
GST_START_TEST (test_region_histograms_many)
{
  const BinsCase c = { "GRAY8", 640, 360, "histogram", 32, FALSE, 1000, 0 };
  bins_case (&c);
}

GST_END_TEST;

/* Frames in CUDA memory (cudaupload) against the host frames the same
 * pipeline made before uploading them. */
GST_START_TEST (test_region_histograms_cuda_memory)
{
  const gchar *missing = cr_test_cuda_memory_missing ();
  if (missing) {
    g_print ("skipped: %s\n", missing);
    return;
  }
  g_autoptr (GPtrArray) frames =
      g_ptr_array_new_with_free_func ((GDestroyNotify)gst_buffer_unref);
  GstVideoInfo info;
  g_autoptr (GPtrArray) results = cr_test_regions_in_cuda_memory (
      "NV12", "monoid=signalstats per-channel=true", frames, &info);
  const CrTestBinning b = cr_test_binning (CR_TYPE_UINT8, 256, 0, 0);
  Want want[GST_VIDEO_MAX_COMPONENTS] = { { 0 } };
  for (guint n = 0; n < results->len; n++) {
    CrTestFrame f =
        cr_test_frame_of_buffer (g_ptr_array_index (frames, n), &info);
    const GstStructure *s = g_ptr_array_index (results, n);
    for (guint k = 0; k < CR_TEST_CUDA_BOXES; k++) {
      const guint nv = region_want (&f, &b,
          cr_test_box_clip (cr_test_cuda_boxes[k], 256, 144), TRUE, want);
      g_autofree gchar *where =
          g_strdup_printf ("NV12 in CUDA memory, frame %u, region %u", n, k);
      g_autoptr (GstStructure) r = region_result (s, k, CR_TEST_CUDA_BOXES);
      check_region (r, &b, TRUE, TRUE, want, nv, where);
    }
    g_free (f.data);
  }
  want_clear (want, G_N_ELEMENTS (want));
}

GST_END_TEST;

/* 2-D histograms per region (vectorscope): pairs of components @cx and
 * @cy of the frames, @bins along each axis; with @window, 9 frames at 50
 * fps in hops of two frames and windows of three hops, else three frames
 * at 30 fps with @n_metas ROI metas each besides the @n_rects rectangles
 * of the property. */
typedef struct {
  const gchar *format;
  gint width, height;
  const gchar *pair; /* the pair property; NULL: the monoid's U,V */
  guint cx, cy;
  guint bins, n_rects, n_metas;
  gboolean window;
} PairsCase;

/* Adds the pairs of @box (clipped) of @f to @slots. */
static void
pairs_add (const CrTestFrame *f, const CrTestBinning *b, const PairsCase *c,
    CrTestBox box, guint64 *slots)
{
  const GstVideoInfo *info = &f->info;
  gint x0, x1, y0, y1;
  cr_test_box_span (info, c->cx, box, &x0, &x1, &y0, &y1);
  for (gint y = y0; y < y1; y++)
    for (gint x = x0; x < x1; x++) {
      const guint8 *vx =
          cr_test_sample_at (f, GST_VIDEO_INFO_COMP_PLANE (info, c->cx), y,
              x * GST_VIDEO_INFO_COMP_PSTRIDE (info, c->cx)
                  + GST_VIDEO_INFO_COMP_POFFSET (info, c->cx));
      const guint8 *vy =
          cr_test_sample_at (f, GST_VIDEO_INFO_COMP_PLANE (info, c->cy), y,
              x * GST_VIDEO_INFO_COMP_PSTRIDE (info, c->cy)
                  + GST_VIDEO_INFO_COMP_POFFSET (info, c->cy));
      slots[cr_test_pair_slot (
          b, cr_test_slot_of (b, vx, 0), cr_test_slot_of (b, vy, 0))]++;
    }
}

static void
pairs_case (const PairsCase *c)
{
  enum { MAX_FRAMES = 9, MAX_METAS = 4 };
  const guint n_frames = c->window ? 9 : 3;
  const guint fps = c->window ? 50 : 30;
  const guint n_metas = c->window ? 0 : c->n_metas;
  g_autofree gchar *what = g_strdup_printf ("vectorscope %s %dx%d, pair %s, "
                                            "%u bins, %u rectangles, %u "
                                            "metas%s",
      c->format, c->width, c->height, c->pair ? c->pair : "U,V", c->bins,
      c->n_rects, n_metas, c->window ? ", window of 3 hops of 2 frames" : "");
  g_assert (n_metas <= MAX_METAS);
  CrTestBox *boxes = g_new (CrTestBox, c->n_rects);
  for (guint k = 0; k < c->n_rects; k++)
    boxes[k] = cr_test_box_random (rand_, c->width, c->height);
  g_autofree gchar *rects = cr_test_boxes_text (boxes, c->n_rects);
  g_autoptr (GstCaps) caps = gst_caps_new_simple ("video/x-raw", "format",
      G_TYPE_STRING, c->format, "width", G_TYPE_INT, c->width, "height",
      G_TYPE_INT, c->height, "framerate", GST_TYPE_FRACTION, fps, 1, NULL);
  g_autofree gchar *pair =
      c->pair ? g_strdup_printf ("pair=%s", c->pair) : g_strdup ("");
  /* ROI metas come and go: a window takes only the property's. */
  g_autofree gchar *desc = g_strdup_printf ("cudareduce monoid=vectorscope "
                                            "bins=%u %s regions=\"%s\" %s",
      c->bins, pair, rects,
      c->window ? "interval=40000000 window=120000000" : "roi-types=car");
  GstHarness *h = harness_of (desc, caps);
  const CrTestBinning b = cr_test_binning (CR_TYPE_UINT8, c->bins, 0, 0);

  CrTestFrame frames[MAX_FRAMES];
  CrTestBox metas[MAX_FRAMES][MAX_METAS];
  for (guint n = 0; n < n_frames; n++) {
    frames[n] = cr_test_frame_new (
        rand_, c->format, c->width, c->height, n % 2 ? 0 : 4 * (n + 1));
    GstBuffer *buf = cr_test_frame_buffer (&frames[n], n);
    GST_BUFFER_PTS (buf) = gst_util_uint64_scale (n, GST_SECOND, fps);
    GST_BUFFER_DURATION (buf) = gst_util_uint64_scale (1, GST_SECOND, fps);
    add_car_metas (buf, n, n_metas, c->width, c->height, metas[n]);
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  }
  g_autoptr (GPtrArray) results = cr_test_results_after_eos (h, what);
  /* With the window: 4 hops and a frame at EOS. */
  fail_unless_equals_int (results->len, c->window ? 5 : n_frames);
  guint64 *want = g_new (guint64, CR_TEST_PAIR_SLOTS (&b));
  for (guint n = 0; n < results->len; n++) {
    const GstStructure *s = g_ptr_array_index (results, n);
    g_autoptr (GstBuffer) out = c->window ? NULL : gst_harness_pull (h);
    /* The frames the result spans: with the window, from the first of
     * the hop two before. */
    const guint first = !c->window ? n : n >= 2 ? 2 * (n - 2) : 0;
    const guint end = !c->window ? n + 1 : MIN (2 * n + 2, n_frames);
    guint n_regions = 0;
    fail_unless (gst_structure_get_uint (s, "regions", &n_regions));
    fail_unless_equals_int (n_regions, c->n_rects + n_metas);
    for (guint k = 0; k < n_regions; k++) {
      const gboolean meta = k >= c->n_rects;
      const CrTestBox box = cr_test_box_clip (
          meta ? metas[n][k - c->n_rects] : boxes[k], c->width, c->height);
      memset (want, 0, CR_TEST_PAIR_SLOTS (&b) * sizeof (guint64));
      for (guint f = first; f < end; f++)
        pairs_add (&frames[f], &b, c, box, want);
      g_autofree gchar *where =
          g_strdup_printf ("%s, result %u (frames %u to %u), %s %u", what, n,
              first, end - 1, meta ? "meta" : "rectangle", k);
      /* The message's arrays over regions, item k; its count per region
       * as the parameters' count. */
      g_autoptr (GstStructure) r = region_result (s, k, n_regions);
      gst_structure_set (r, "count", G_TYPE_UINT64,
          u64_of (gst_structure_get_value (r, "counts")), NULL);
      cr_test_check_pairs (r, &b, want, where);
      if (!meta)
        continue;
      const GstStructure *params =
          meta_params (out, 100 * n + k - c->n_rects, where);
      cr_test_check_pairs (params, &b, want, where);
    }
  }
  for (guint n = 0; n < n_frames; n++)
    g_free (frames[n].data);
  g_free (want);
  gst_harness_teardown (h);
  g_free (boxes);
}

/* U against V of NV12 (one plane) and I420 (two, with padded lines), R
 * against G of RGBA; a thousand small regions; sliding windows. */
GST_START_TEST (test_region_vectorscope)
{
  const PairsCase cases[] = {
    { "NV12", 322, 180, NULL, 1, 2, 16, 12, 3, FALSE },
    { "I420", 321, 179, NULL, 1, 2, 64, 8, 2, FALSE },
    { "RGBA", 200, 120, "R,G", 0, 1, 8, 9, 2, FALSE },
    { "NV12", 640, 360, NULL, 1, 2, 4, 1000, 0, FALSE },
    { "NV12", 160, 90, NULL, 1, 2, 16, 5, 0, TRUE },
    { "I420", 160, 90, NULL, 1, 2, 8, 5, 0, TRUE },
  };
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    pairs_case (&cases[k]);
}

GST_END_TEST;

static const CrTestCase cases[] = {
  CR_TEST_CASE (test_region_histograms),
  CR_TEST_CASE (test_region_signalstats),
  CR_TEST_CASE (test_region_histograms_many),
  CR_TEST_CASE (test_region_histograms_window),
  CR_TEST_CASE (test_region_histograms_cuda_memory),
  CR_TEST_CASE (test_region_vectorscope),
  { NULL },
};

static const CrGpuTest gpu_region_bins = {
  .name = "gpu-region-bins",
  .timeout = 300,
  .needs = CR_TEST_NEEDS_NVRTC,
  .rand = &rand_,
  .cases = cases,
};

CR_TEST_GPU_MAIN (gpu_region_bins);
