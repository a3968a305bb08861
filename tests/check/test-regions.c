/* test-regions.c: the regions of a frame on their own, without a GPU: the
 * property's rectangles parsed and refused, ROI metas (and, where built in,
 * analytics object detections) read by type, clipping,
 * and where a region lies in each plane of every video format the element
 * takes, against pixels mapped one by one. */
#include "cr-test-leaks.h"
#include "cr-test-util.h"
#include "cr-test-video.h"
#include "gstcudareduce-caps.h"
#include "gstcudareduce-regions.h"

#ifdef CR_HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>
#endif

#include <string.h>

GST_DEBUG_CATEGORY (gst_cuda_reduce_debug);

#define RECT(a, k) (&g_array_index ((a), GstCudaReduceRect, (k)))
#define REGION(a, k) (&g_array_index ((a), GstCudaReduceRegion, (k)))

/* @text deserialized as the property's value; the error of parsing it, or
 * NULL, and the rectangles in @rects. */
static GError *
parse (const gchar *text, GArray *rects)
{
  GValue value = G_VALUE_INIT;
  GError *error = NULL;
  g_value_init (&value, GST_TYPE_ARRAY);
  fail_unless (gst_value_deserialize (&value, text), "%s", text);
  gst_cuda_reduce_regions_parse (&value, rects, &error);
  g_value_unset (&value);
  return error;
}

static void
assert_refused (const gchar *text, const gchar *says)
{
  g_autoptr (GArray) rects =
      g_array_new (FALSE, FALSE, sizeof (GstCudaReduceRect));
  g_autoptr (GError) error = parse (text, rects);
  fail_unless (error != NULL, "%s was taken", text);
  fail_unless (strstr (error->message, says) != NULL, "%s: \"%s\" lacks \"%s\"",
      text, error->message, says);
  fail_unless (
      strstr (error->message, "regions") != NULL, "%s", error->message);
}

/* <<0, 0, V, 4>> with all four of @type (the elements of a GstValueArray
 * are of one type). */
static GValue *
rect_of (GType type, gdouble v)
{
  GValue *value = g_new0 (GValue, 1);
  GValue rect = G_VALUE_INIT;
  const gdouble values[] = { 0, 0, v, 4 };
  g_value_init (value, GST_TYPE_ARRAY);
  g_value_init (&rect, GST_TYPE_ARRAY);
  for (guint k = 0; k < 4; k++) {
    GValue e = G_VALUE_INIT;
    g_value_init (&e, type);
    if (type == G_TYPE_DOUBLE)
      g_value_set_double (&e, values[k]);
    else
      g_value_set_uint (&e, (guint)values[k]);
    gst_value_array_append_and_take_value (&rect, &e);
  }
  gst_value_array_append_and_take_value (value, &rect);
  return value;
}

static void
assert_refused_value (GValue *value, const gchar *says)
{
  g_autoptr (GArray) rects =
      g_array_new (FALSE, FALSE, sizeof (GstCudaReduceRect));
  g_autoptr (GError) error = NULL;
  fail_if (gst_cuda_reduce_regions_parse (value, rects, &error));
  fail_unless (strstr (error->message, says) != NULL, "\"%s\" lacks \"%s\"",
      error->message, says);
  g_value_unset (value);
  g_free (value);
}

GST_START_TEST (test_regions_parse)
{
  g_autoptr (GArray) rects =
      g_array_new (FALSE, FALSE, sizeof (GstCudaReduceRect));
  g_autoptr (GError) error = parse ("<<0,0,64,64>,<-8,10,20,5>>", rects);
  fail_unless (error == NULL);
  fail_unless_equals_int (rects->len, 2);
  fail_unless (RECT (rects, 0)->x == 0 && RECT (rects, 0)->y == 0
      && RECT (rects, 0)->width == 64 && RECT (rects, 0)->height == 64);
  fail_unless (RECT (rects, 1)->x == -8 && RECT (rects, 1)->y == 10
      && RECT (rects, 1)->width == 20 && RECT (rects, 1)->height == 5);

  g_array_set_size (rects, 0);
  GError *none = parse ("<>", rects);
  fail_unless (none == NULL && rects->len == 0);

  assert_refused ("<<0,0,64>>", "rectangle 0 is <0, 0, 64>: not four integers");
  assert_refused ("<<0,0,1,1>,<0,0,64,64,1>>", "rectangle 1");
  /* Made by hand: GStreamer 1.22's gst_value_deserialize crashes on a
   * typed value inside untyped nested arrays. */
  assert_refused_value (
      rect_of (G_TYPE_DOUBLE, 1.5), "<0, 0, 1.5, 4>: not four integers");
  assert_refused_value (rect_of (G_TYPE_UINT, 7), "not four integers");
  assert_refused ("<<0,0,0,4>>", "width and height must be 1 or more");
  assert_refused ("<<0,0,4,-2>>", "width and height must be 1 or more");
  assert_refused ("<1,2,3,4>", "not four integers");

  GValue many = G_VALUE_INIT;
  g_value_init (&many, GST_TYPE_ARRAY);
  for (guint k = 0; k <= GST_CUDA_REDUCE_REGIONS_MAX; k++) {
    GValue rect = G_VALUE_INIT;
    fail_unless (g_value_init (&rect, GST_TYPE_ARRAY)
        && gst_value_deserialize (&rect, "<0,0,1,1>"));
    gst_value_array_append_and_take_value (&many, &rect);
  }
  g_autoptr (GError) too_many = NULL;
  fail_if (gst_cuda_reduce_regions_parse (&many, rects, &too_many));
  fail_unless (strstr (too_many->message, "4097 rectangles") != NULL, "%s",
      too_many->message);
  g_value_unset (&many);

  GValue text = G_VALUE_INIT;
  g_value_init (&text, G_TYPE_STRING);
  g_autoptr (GError) not_array = NULL;
  fail_if (gst_cuda_reduce_regions_parse (&text, rects, &not_array));
  fail_unless (strstr (not_array->message, "an array of rectangles") != NULL);
  g_value_unset (&text);
}

GST_END_TEST;

/* A property of the type the element's `regions` will have (an array of
 * arrays of integers): what gst-launch-1.0 sets from its text, through
 * gst_util_set_object_arg, is what regions_parse reads. */
typedef struct {
  GObject parent;
  GValue regions;
} CrTestRegionsObject;
typedef struct {
  GObjectClass parent;
} CrTestRegionsObjectClass;
G_DEFINE_TYPE (CrTestRegionsObject, cr_test_regions_object, G_TYPE_OBJECT)

static void
regions_object_set (
    GObject *object, guint id, const GValue *value, GParamSpec *pspec)
{
  CrTestRegionsObject *self = (CrTestRegionsObject *)object;
  g_value_unset (&self->regions);
  g_value_init (&self->regions, G_VALUE_TYPE (value));
  g_value_copy (value, &self->regions);
}

static void
regions_object_get (GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
  g_value_copy (&((CrTestRegionsObject *)object)->regions, value);
}

static void
regions_object_finalize (GObject *object)
{
  g_value_unset (&((CrTestRegionsObject *)object)->regions);
  G_OBJECT_CLASS (cr_test_regions_object_parent_class)->finalize (object);
}

static void
cr_test_regions_object_class_init (CrTestRegionsObjectClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  object_class->set_property = regions_object_set;
  object_class->get_property = regions_object_get;
  object_class->finalize = regions_object_finalize;
  g_object_class_install_property (object_class, 1,
      gst_param_spec_array ("regions", "Regions", "Rectangles",
          gst_param_spec_array ("region", "Region", "x, y, width, height",
              g_param_spec_int ("value", "Value", "A coordinate", G_MININT,
                  G_MAXINT, 0, G_PARAM_READWRITE),
              G_PARAM_READWRITE),
          G_PARAM_READWRITE));
}

static void
cr_test_regions_object_init (CrTestRegionsObject *self)
{
  g_value_init (&self->regions, GST_TYPE_ARRAY);
}

GST_START_TEST (test_regions_from_launch_text)
{
  g_autoptr (GObject) object =
      g_object_new (cr_test_regions_object_get_type (), NULL);
  CrTestRegionsObject *self = (CrTestRegionsObject *)object;
  gst_util_set_object_arg (object, "regions", "<<0, 0, 64,64>,<64,-8,32,16>>");
  g_autoptr (GArray) rects =
      g_array_new (FALSE, FALSE, sizeof (GstCudaReduceRect));
  fail_unless (gst_cuda_reduce_regions_parse (&self->regions, rects, NULL));
  fail_unless_equals_int (rects->len, 2);
  fail_unless (RECT (rects, 1)->x == 64 && RECT (rects, 1)->y == -8
      && RECT (rects, 1)->width == 32 && RECT (rects, 1)->height == 16);
  /* Three values: set, and refused by regions_parse. */
  gst_util_set_object_arg (object, "regions", "<<0,0,64>>");
  g_autoptr (GError) error = NULL;
  fail_if (gst_cuda_reduce_regions_parse (&self->regions, rects, &error));
  fail_unless (strstr (error->message, "<0, 0, 64>: not four integers"));
}

GST_END_TEST;

GST_START_TEST (test_regions_types)
{
  fail_unless (gst_cuda_reduce_regions_parse_types (NULL) == NULL);
  fail_unless (gst_cuda_reduce_regions_parse_types ("") == NULL);
  g_autoptr (GArray) two =
      gst_cuda_reduce_regions_parse_types (" face, person ,");
  fail_unless_equals_int (two->len, 2);
  fail_unless_equals_string (
      g_quark_to_string (g_array_index (two, GQuark, 0)), "face");
  fail_unless_equals_string (
      g_quark_to_string (g_array_index (two, GQuark, 1)), "person");
  g_autoptr (GArray) all = gst_cuda_reduce_regions_parse_types ("*");
  fail_unless (all != NULL && all->len == 0);
  g_autoptr (GArray) also_all = gst_cuda_reduce_regions_parse_types ("face,*");
  fail_unless (also_all != NULL && also_all->len == 0);
}

GST_END_TEST;

/* A 100 x 50 frame with two fixed rectangles (one half off the frame, one
 * wholly off it) and three ROI metas, read by type. */
GST_START_TEST (test_regions_collect)
{
  g_autoptr (GstBuffer) buf = gst_buffer_new ();
  GstVideoRegionOfInterestMeta *m[3];
  m[0] =
      gst_buffer_add_video_region_of_interest_meta (buf, "face", 10, 5, 20, 10);
  m[1] = gst_buffer_add_video_region_of_interest_meta (
      buf, "person", 90, 40, 30, 30);
  m[2] =
      gst_buffer_add_video_region_of_interest_meta (buf, "face", 200, 0, 8, 8);
  m[0]->id = 7, m[1]->id = 8, m[2]->id = 9;
  g_autoptr (GArray) rects =
      g_array_new (FALSE, FALSE, sizeof (GstCudaReduceRect));
  const GstCudaReduceRect fixed[] = { { -10, -10, 30, 20 }, { 100, 0, 4, 4 } };
  g_array_append_vals (rects, fixed, 2);

  g_autoptr (GArray) regions =
      g_array_new (FALSE, FALSE, sizeof (GstCudaReduceRegion));
  fail_unless (gst_cuda_reduce_regions_collect (
      buf, rects, NULL, 100, 50, regions, NULL));
  fail_unless_equals_int (regions->len, 2);
  const GstCudaReduceRegion *r = REGION (regions, 0);
  fail_unless (r->id == 0 && r->type == 0
      && r->source == GST_CUDA_REDUCE_REGION_PROPERTY);
  fail_unless (r->given.x == -10 && r->given.width == 30);
  fail_unless (r->clipped.x == 0 && r->clipped.y == 0 && r->clipped.width == 20
      && r->clipped.height == 10);
  r = REGION (regions, 1);
  fail_unless (r->id == 1 && r->clipped.width == 0 && r->clipped.height == 0);

  g_autoptr (GArray) faces = gst_cuda_reduce_regions_parse_types ("face");
  g_array_set_size (regions, 0);
  fail_unless (gst_cuda_reduce_regions_collect (
      buf, rects, faces, 100, 50, regions, NULL));
  fail_unless_equals_int (regions->len, 4);
  r = REGION (regions, 2);
  fail_unless (r->id == 7 && r->source == GST_CUDA_REDUCE_REGION_ROI_META
      && r->type == g_quark_from_string ("face"));
  fail_unless (r->clipped.x == 10 && r->clipped.y == 5 && r->clipped.width == 20
      && r->clipped.height == 10);
  r = REGION (regions, 3);
  fail_unless (r->id == 9 && r->clipped.width == 0);

  g_autoptr (GArray) all = gst_cuda_reduce_regions_parse_types ("*");
  g_array_set_size (regions, 0);
  fail_unless (
      gst_cuda_reduce_regions_collect (buf, NULL, all, 100, 50, regions, NULL));
  fail_unless_equals_int (regions->len, 3);
  r = REGION (regions, 1);
  fail_unless (r->id == 8 && r->type == g_quark_from_string ("person"));
  fail_unless (r->clipped.x == 90 && r->clipped.y == 40
      && r->clipped.width == 10 && r->clipped.height == 10);
}

GST_END_TEST;

#ifdef CR_HAVE_GST_ANALYTICS
/* Object detections of an analytics relation meta, after the ROI metas:
 * read by type, with their ids, clipped, and counted against the limit. */
GST_START_TEST (test_regions_analytics)
{
  g_autoptr (GstBuffer) buf = gst_buffer_new ();
  GstVideoRegionOfInterestMeta *roi =
      gst_buffer_add_video_region_of_interest_meta (buf, "car", 1, 2, 3, 4);
  roi->id = 40;
  GstAnalyticsRelationMeta *meta = gst_buffer_add_analytics_relation_meta (buf);
  const struct {
    const gchar *type;
    gint x, y, w, h;
  } boxes[] = {
    { "car", 10, 20, 30, 10 },
    { "dog", 0, 0, 5, 5 },
    { "car", -4, 45, 10, 10 },
  };
  guint ids[G_N_ELEMENTS (boxes)];
  for (guint k = 0; k < G_N_ELEMENTS (boxes); k++) {
    GstAnalyticsODMtd od;
    fail_unless (gst_analytics_relation_meta_add_od_mtd (meta,
        g_quark_from_string (boxes[k].type), boxes[k].x, boxes[k].y, boxes[k].w,
        boxes[k].h, 0.5f, &od));
    ids[k] = od.id;
  }
  /* A record of another kind is not a region. */
  GstAnalyticsClsMtd cls;
  gfloat confidence = 0.9f;
  GQuark label = g_quark_from_string ("car");
  fail_unless (gst_analytics_relation_meta_add_cls_mtd (
      meta, 1, &confidence, &label, &cls));

  g_autoptr (GArray) cars = gst_cuda_reduce_regions_parse_types ("car");
  g_autoptr (GArray) regions =
      g_array_new (FALSE, FALSE, sizeof (GstCudaReduceRegion));
  fail_unless (gst_cuda_reduce_regions_collect (
      buf, NULL, cars, 100, 50, regions, NULL));
  fail_unless_equals_int (regions->len, 3);
  const GstCudaReduceRegion *r = REGION (regions, 0);
  fail_unless (r->id == 40 && r->source == GST_CUDA_REDUCE_REGION_ROI_META);
  r = REGION (regions, 1);
  fail_unless (r->source == GST_CUDA_REDUCE_REGION_ANALYTICS);
  fail_unless_equals_int (r->id, ids[0]);
  fail_unless (r->type == g_quark_from_string ("car"));
  fail_unless (r->clipped.x == 10 && r->clipped.y == 20
      && r->clipped.width == 30 && r->clipped.height == 10);
  r = REGION (regions, 2);
  fail_unless_equals_int (r->id, ids[2]);
  fail_unless (r->given.x == -4 && r->given.y == 45);
  fail_unless (r->clipped.x == 0 && r->clipped.y == 45 && r->clipped.width == 6
      && r->clipped.height == 5);
  fail_unless_equals_string (
      gst_cuda_reduce_region_source_name (r->source), "analytics");

  /* Not read without roi-types; a detection gets no ROI parameters. */
  g_array_set_size (regions, 0);
  fail_unless (gst_cuda_reduce_regions_collect (
      buf, NULL, NULL, 100, 50, regions, NULL));
  fail_unless_equals_int (regions->len, 0);
  g_autoptr (GArray) all = gst_cuda_reduce_regions_parse_types ("*");
  fail_unless (
      gst_cuda_reduce_regions_collect (buf, NULL, all, 100, 50, regions, NULL));
  fail_unless_equals_int (regions->len, 4);
  fail_unless (REGION (regions, 2)->type == g_quark_from_string ("dog"));
  fail_if (gst_cuda_reduce_regions_annotate (buf, REGION (regions, 2),
      "cudareduce0", gst_structure_new_empty ("results")));

  /* Detections count against the limit as ROI metas do. */
  for (guint k = 0; k < GST_CUDA_REDUCE_REGIONS_MAX; k++) {
    GstAnalyticsODMtd od;
    fail_unless (gst_analytics_relation_meta_add_od_mtd (
        meta, g_quark_from_string ("dog"), k % 64, 0, 1, 1, 0.5f, &od));
  }
  g_array_set_size (regions, 0);
  g_autoptr (GError) error = NULL;
  fail_if (gst_cuda_reduce_regions_collect (
      buf, NULL, all, 64, 64, regions, &error));
  fail_unless (error && strstr (error->message, "4097 regions") != NULL);
}

GST_END_TEST;
#endif

/* More metas than a frame may have: an error that says so. */
GST_START_TEST (test_regions_too_many)
{
  g_autoptr (GstBuffer) buf = gst_buffer_new ();
  for (guint k = 0; k <= GST_CUDA_REDUCE_REGIONS_MAX; k++)
    gst_buffer_add_video_region_of_interest_meta (buf, "box", k % 64, 0, 1, 1);
  g_autoptr (GArray) all = gst_cuda_reduce_regions_parse_types ("*");
  g_autoptr (GArray) regions =
      g_array_new (FALSE, FALSE, sizeof (GstCudaReduceRegion));
  g_autoptr (GError) error = NULL;
  fail_if (gst_cuda_reduce_regions_collect (
      buf, NULL, all, 64, 64, regions, &error));
  fail_unless (
      strstr (error->message, "4097 regions") != NULL, "%s", error->message);
}

GST_END_TEST;

/* Random rectangles, in and out of a random frame: the clipped rectangle
 * holds exactly the pixels of the given one that are in the frame. */
GST_START_TEST (test_regions_clip)
{
  GRand *rand = cr_test_rand ();
  for (guint round = 0; round < 2000; round++) {
    const gint w = g_rand_int_range (rand, 1, 40);
    const gint h = g_rand_int_range (rand, 1, 40);
    const GstCudaReduceRect given = { g_rand_int_range (rand, -50, 50),
      g_rand_int_range (rand, -50, 50), g_rand_int_range (rand, 1, 60),
      g_rand_int_range (rand, 1, 60) };
    g_autoptr (GArray) rects =
        g_array_new (FALSE, FALSE, sizeof (GstCudaReduceRect));
    g_array_append_val (rects, given);
    g_autoptr (GArray) regions =
        g_array_new (FALSE, FALSE, sizeof (GstCudaReduceRegion));
    fail_unless (gst_cuda_reduce_regions_collect (
        NULL, rects, NULL, w, h, regions, NULL));
    const GstCudaReduceRect *c = &REGION (regions, 0)->clipped;
    for (gint y = given.y; y < given.y + given.height; y++)
      for (gint x = given.x; x < given.x + given.width; x++) {
        const gboolean in_frame = x >= 0 && y >= 0 && x < w && y < h;
        const gboolean in_clip = x >= c->x && y >= c->y && x < c->x + c->width
            && y < c->y + c->height;
        fail_unless (in_frame == in_clip,
            "frame %dx%d, rectangle %d,%d %dx%d: pixel %d,%d", w, h, given.x,
            given.y, given.width, given.height, x, y);
      }
    fail_unless (c->width >= 0 && c->height >= 0);
    fail_unless ((c->width == 0) == (c->height == 0));
  }
  g_rand_free (rand);
}

GST_END_TEST;

/* Every format the element takes, random frames and rectangles: a region's
 * samples in each plane are those its pixels map to, (x >> w_sub, y >>
 * h_sub), and its bytes start and span where those samples do. */
GST_START_TEST (test_regions_in_planes)
{
  GRand *rand = cr_test_rand ();
  g_auto (GStrv) names = cr_test_video_format_names ();
  guint formats = 0;
  for (guint f = 0; names[f]; f++) {
    const GstVideoFormat format = gst_video_format_from_string (names[f]);
    fail_if (format == GST_VIDEO_FORMAT_UNKNOWN, "%s", names[f]);
    formats++;
    for (guint round = 0; round < 200; round++) {
      GstVideoInfo info;
      const gint w = g_rand_int_range (rand, 1, 33);
      const gint h = g_rand_int_range (rand, 1, 33);
      fail_unless (gst_video_info_set_format (&info, format, w, h));
      GstCudaReduceRect r;
      r.x = g_rand_int_range (rand, 0, w);
      r.y = g_rand_int_range (rand, 0, h);
      r.width = g_rand_int_range (rand, 1, w - r.x + 1);
      r.height = g_rand_int_range (rand, 1, h - r.y + 1);
      for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
        guint c = 0;
        while (GST_VIDEO_INFO_COMP_PLANE (&info, c) != p)
          c++;
        const guint ws = GST_VIDEO_FORMAT_INFO_W_SUB (info.finfo, c);
        const guint hs = GST_VIDEO_FORMAT_INFO_H_SUB (info.finfo, c);
        gint x0 = G_MAXINT, y0 = G_MAXINT, x1 = -1, y1 = -1;
        for (gint y = r.y; y < r.y + r.height; y++)
          for (gint x = r.x; x < r.x + r.width; x++) {
            x0 = MIN (x0, x >> ws), x1 = MAX (x1, x >> ws);
            y0 = MIN (y0, y >> hs), y1 = MAX (y1, y >> hs);
          }
        const GstCudaReduceRect s =
            gst_cuda_reduce_region_in_plane (&info, p, &r);
        fail_unless (s.x == x0 && s.y == y0 && s.width == x1 - x0 + 1
                && s.height == y1 - y0 + 1,
            "%s %dx%d plane %u, rectangle %d,%d %dx%d: %d,%d %dx%d", names[f],
            w, h, p, r.x, r.y, r.width, r.height, s.x, s.y, s.width, s.height);
        fail_unless (s.x + s.width <= GST_VIDEO_INFO_COMP_WIDTH (&info, c)
            && s.y + s.height <= GST_VIDEO_INFO_COMP_HEIGHT (&info, c));
        const gsize stride = (gsize)GST_VIDEO_INFO_PLANE_STRIDE (&info, p);
        const gsize pstride = (gsize)GST_VIDEO_INFO_COMP_PSTRIDE (&info, c);
        const GstCudaReducePlaneRect b =
            gst_cuda_reduce_region_bytes (&info, p, stride, &r);
        fail_unless (b.offset == y0 * stride + x0 * pstride
            && b.row_bytes == (gsize)(x1 - x0 + 1) * pstride
            && b.rows == (guint)(y1 - y0 + 1));
        fail_unless (b.offset + (b.rows - 1) * stride + b.row_bytes
            <= (gsize)GST_VIDEO_INFO_COMP_HEIGHT (&info, c) * stride);
      }
    }
    /* An empty region is empty in every plane. */
    GstVideoInfo info;
    gst_video_info_set_format (&info, format, 16, 16);
    const GstCudaReduceRect empty = { 16, 3, 0, 0 };
    const GstCudaReducePlaneRect b = gst_cuda_reduce_region_bytes (
        &info, 0, (gsize)GST_VIDEO_INFO_PLANE_STRIDE (&info, 0), &empty);
    fail_unless (b.row_bytes == 0 && b.rows == 0);
  }
  fail_unless (formats >= 20, "%u formats", formats);
  g_rand_free (rand);
}

GST_END_TEST;

/* The cases the header names: I420 and NV12 chroma, Y41B's quarter
 * columns, RGBA's bytes. */
GST_START_TEST (test_regions_examples)
{
  GstVideoInfo info;
  const GstCudaReduceRect a = { 1, 1, 2, 3 };
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 64, 32);
  GstCudaReduceRect s = gst_cuda_reduce_region_in_plane (&info, 1, &a);
  fail_unless (s.x == 0 && s.y == 0 && s.width == 2 && s.height == 2);

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 64, 32);
  const GstCudaReduceRect b = { 3, 2, 4, 2 };
  const GstCudaReducePlaneRect nv12 =
      gst_cuda_reduce_region_bytes (&info, 1, 128, &b);
  fail_unless (nv12.offset == 130 && nv12.row_bytes == 6 && nv12.rows == 1);

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_Y41B, 64, 32);
  const GstCudaReduceRect c = { 5, 0, 6, 1 };
  s = gst_cuda_reduce_region_in_plane (&info, 2, &c);
  fail_unless (s.x == 1 && s.width == 2);

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 64, 32);
  const GstCudaReduceRect d = { 2, 1, 3, 1 };
  const GstCudaReducePlaneRect rgba =
      gst_cuda_reduce_region_bytes (&info, 0, 256, &d);
  fail_unless (rgba.offset == 264 && rgba.row_bytes == 12 && rgba.rows == 1);
}

GST_END_TEST;

/* Results on ROI metas: readable by the parameter's name, one per element
 * (a second annotation of an element replaces its first), none for a
 * region of the property or one whose meta is gone. */
GST_START_TEST (test_regions_annotate)
{
  g_autoptr (GstBuffer) buf = gst_buffer_new ();
  GstVideoRegionOfInterestMeta *face =
      gst_buffer_add_video_region_of_interest_meta (buf, "face", 0, 0, 8, 8);
  face->id = 4;
  g_autoptr (GArray) all = gst_cuda_reduce_regions_parse_types ("*");
  g_autoptr (GArray) rects =
      g_array_new (FALSE, FALSE, sizeof (GstCudaReduceRect));
  const GstCudaReduceRect fixed = { 0, 0, 2, 2 };
  g_array_append_val (rects, fixed);
  g_autoptr (GArray) regions =
      g_array_new (FALSE, FALSE, sizeof (GstCudaReduceRegion));
  fail_unless (
      gst_cuda_reduce_regions_collect (buf, rects, all, 16, 16, regions, NULL));
  fail_unless_equals_int (regions->len, 2);

  fail_unless (gst_cuda_reduce_regions_annotate (buf, REGION (regions, 1),
      "stats", gst_structure_new ("result", "mean", G_TYPE_DOUBLE, 0.5, NULL)));
  fail_unless (gst_cuda_reduce_regions_annotate (buf, REGION (regions, 1),
      "other", gst_structure_new ("result", "mean", G_TYPE_DOUBLE, 1.0, NULL)));
  fail_unless (
      gst_cuda_reduce_regions_annotate (buf, REGION (regions, 1), "stats",
          gst_structure_new ("result", "mean", G_TYPE_DOUBLE, 0.25, NULL)));
  fail_unless_equals_int (g_list_length (face->params), 2);
  guint stats = 0;
  for (GList *l = face->params; l; l = l->next) {
    const GstStructure *p = l->data;
    fail_unless (gst_structure_has_name (p, GST_CUDA_REDUCE_REGION_PARAM));
    gdouble mean = 0;
    fail_unless (gst_structure_get_double (p, "mean", &mean));
    if (g_strcmp0 (gst_structure_get_string (p, "element"), "stats") == 0) {
      fail_unless (mean == 0.25, "%g", mean);
      stats++;
    }
  }
  fail_unless_equals_int (stats, 1);
  fail_unless (gst_video_region_of_interest_meta_get_param (
                   face, GST_CUDA_REDUCE_REGION_PARAM)
      != NULL);

  /* The property's region has no meta to go on; nor has a region whose
   * meta was removed. */
  fail_if (gst_cuda_reduce_regions_annotate (
      buf, REGION (regions, 0), "stats", gst_structure_new_empty ("result")));
  GstCudaReduceRegion gone = *REGION (regions, 1);
  gone.id = 99;
  fail_if (gst_cuda_reduce_regions_annotate (
      buf, &gone, "stats", gst_structure_new_empty ("result")));
  fail_unless_equals_int (g_list_length (face->params), 2);
}

GST_END_TEST;

static Suite *
regions_suite (void)
{
  Suite *s = suite_create ("cudareduce-regions");
  TCase *tc = tcase_create ("general");
  cr_test_check_objects (tc);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_regions_parse);
  tcase_add_test (tc, test_regions_from_launch_text);
  tcase_add_test (tc, test_regions_types);
  tcase_add_test (tc, test_regions_collect);
  tcase_add_test (tc, test_regions_too_many);
#ifdef CR_HAVE_GST_ANALYTICS
  tcase_add_test (tc, test_regions_analytics);
#endif
  tcase_add_test (tc, test_regions_clip);
  tcase_add_test (tc, test_regions_in_planes);
  tcase_add_test (tc, test_regions_examples);
  tcase_add_test (tc, test_regions_annotate);
  return s;
}

GST_CHECK_MAIN (regions);
