/* gstcudareduce-regions.c: the rectangles of a frame that get results of
 * their own. */
#include "gstcudareduce-regions.h"

#ifdef CR_HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>
#endif

#include <string.h>

static gboolean
too_many (guint n, GError **error)
{
  if (n <= GST_CUDA_REDUCE_REGIONS_MAX)
    return FALSE;
  g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
      "A frame has %u regions, more than the %u that cudareduce reduces in "
      "one frame: list fewer rectangles in regions, or read fewer ROI types "
      "(roi-types)",
      n, GST_CUDA_REDUCE_REGIONS_MAX);
  return TRUE;
}

/* A value of the property as a user wrote it: <0, 0, 64> rather than
 * GStreamer's typed < (int)0, (int)0, (int)64 >. */
static gchar *
shown (const GValue *v)
{
  if (G_VALUE_HOLDS_INT (v))
    return g_strdup_printf ("%d", g_value_get_int (v));
  if (!GST_VALUE_HOLDS_ARRAY (v)) {
    gchar *s = gst_value_serialize (v);
    return s ? s : g_strdup (G_VALUE_TYPE_NAME (v));
  }
  GString *out = g_string_new ("<");
  for (guint k = 0; k < gst_value_array_get_size (v); k++) {
    g_autofree gchar *e = shown (gst_value_array_get_value (v, k));
    g_string_append_printf (out, "%s%s", k ? ", " : "", e);
  }
  g_string_append_c (out, '>');
  return g_string_free (out, FALSE);
}

/* Rectangle @k of the property, for a message: what was given. */
static gboolean
bad_rect (const GValue *rect, guint k, const gchar *why, GError **error)
{
  g_autofree gchar *given = shown (rect);
  g_set_error (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
      "regions: rectangle %u is %s: %s. Give each as <x, y, width, height> "
      "in the frame's pixels, e.g. regions=\"<<0,0,64,64>,<64,0,64,64>>\"",
      k, given, why);
  return FALSE;
}

gboolean
gst_cuda_reduce_regions_parse (
    const GValue *value, GArray *rects, GError **error)
{
  if (!GST_VALUE_HOLDS_ARRAY (value)) {
    g_set_error (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
        "regions: expected an array of rectangles, got a %s",
        G_VALUE_TYPE_NAME (value));
    return FALSE;
  }
  const guint n = gst_value_array_get_size (value);
  if (n > GST_CUDA_REDUCE_REGIONS_MAX) {
    g_set_error (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
        "regions: %u rectangles, more than the %u that cudareduce reduces "
        "in one frame",
        n, GST_CUDA_REDUCE_REGIONS_MAX);
    return FALSE;
  }
  for (guint k = 0; k < n; k++) {
    const GValue *rect = gst_value_array_get_value (value, k);
    gint v[4];
    if (!GST_VALUE_HOLDS_ARRAY (rect) || gst_value_array_get_size (rect) != 4)
      return bad_rect (rect, k, "not four integers", error);
    for (guint j = 0; j < 4; j++) {
      const GValue *e = gst_value_array_get_value (rect, j);
      if (!G_VALUE_HOLDS_INT (e))
        return bad_rect (rect, k, "not four integers", error);
      v[j] = g_value_get_int (e);
    }
    if (v[2] < 1 || v[3] < 1)
      return bad_rect (
          rect, k, "its width and height must be 1 or more", error);
    const GstCudaReduceRect r = { v[0], v[1], v[2], v[3] };
    g_array_append_val (rects, r);
  }
  return TRUE;
}

GArray *
gst_cuda_reduce_regions_parse_types (const gchar *list)
{
  if (list == NULL || *list == '\0')
    return NULL;
  GArray *types = g_array_new (FALSE, FALSE, sizeof (GQuark));
  g_auto (GStrv) names = g_strsplit (list, ",", -1);
  for (guint k = 0; names[k]; k++) {
    const gchar *name = g_strstrip (names[k]);
    if (strcmp (name, "*") == 0) {
      g_array_set_size (types, 0);
      return types;
    }
    if (*name != '\0') {
      const GQuark q = g_quark_from_string (name);
      g_array_append_val (types, q);
    }
  }
  return types;
}

/* [start, start + length) within [0, size): the part inside. */
static void
clip_span (
    gint start, gint length, gint size, gint *out_start, gint *out_length)
{
  const gint64 end = CLAMP ((gint64)start + length, 0, size);
  const gint64 first = CLAMP ((gint64)start, 0, size);
  *out_start = (gint)first;
  *out_length = (gint)MAX (0, end - first);
}

static GstCudaReduceRegion
region_of (const GstCudaReduceRect *given, gint width, gint height)
{
  GstCudaReduceRegion r = { .given = *given };
  clip_span (given->x, given->width, width, &r.clipped.x, &r.clipped.width);
  clip_span (given->y, given->height, height, &r.clipped.y, &r.clipped.height);
  if (r.clipped.width == 0 || r.clipped.height == 0)
    r.clipped.width = r.clipped.height = 0;
  return r;
}

static gboolean
wanted (const GArray *types, GQuark type)
{
  if (types->len == 0)
    return TRUE;
  for (guint k = 0; k < types->len; k++)
    if (g_array_index (types, GQuark, k) == type)
      return TRUE;
  return FALSE;
}

/* Appends the region @given of a @width x @height frame, clipped. */
static gboolean
append_region (GArray *regions, guint first, const GstCudaReduceRect *given,
    gint width, gint height, gint id, GQuark type,
    GstCudaReduceRegionSource source, GError **error)
{
  GstCudaReduceRegion r = region_of (given, width, height);
  r.id = id;
  r.type = type;
  r.source = source;
  g_array_append_val (regions, r);
  return !too_many (regions->len - first, error);
}

/* The meta's fields are unsigned: a value past G_MAXINT is off the frame
 * whatever it is. */
static gint
roi_number (guint v)
{
  return (gint)MIN (v, (guint)G_MAXINT);
}

static gboolean
collect_roi_metas (GstBuffer *buffer, const GArray *types, gint width,
    gint height, GArray *regions, guint first, GError **error)
{
  gpointer state = NULL;
  GstMeta *meta;
  while ((meta = gst_buffer_iterate_meta_filtered (
              buffer, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    const GstVideoRegionOfInterestMeta *roi =
        (const GstVideoRegionOfInterestMeta *)meta;
    if (!wanted (types, roi->roi_type))
      continue;
    const GstCudaReduceRect given = { roi_number (roi->x), roi_number (roi->y),
      roi_number (roi->w), roi_number (roi->h) };
    if (!append_region (regions, first, &given, width, height, roi->id,
            roi->roi_type, GST_CUDA_REDUCE_REGION_ROI_META, error))
      return FALSE;
  }
  return TRUE;
}

#ifdef CR_HAVE_GST_ANALYTICS
/* The object detections of the buffer's analytics relation meta, as the
 * detector put them there (GStreamer 1.24 and newer). */
static gboolean
collect_detections (GstBuffer *buffer, const GArray *types, gint width,
    gint height, GArray *regions, guint first, GError **error)
{
  GstAnalyticsRelationMeta *meta =
      gst_buffer_get_analytics_relation_meta (buffer);
  if (meta == NULL)
    return TRUE;
  gpointer state = NULL;
  GstAnalyticsODMtd od;
  while (gst_analytics_relation_meta_iterate (
      meta, &state, gst_analytics_od_mtd_get_mtd_type (), &od)) {
    const GQuark type = gst_analytics_od_mtd_get_obj_type (&od);
    GstCudaReduceRect given;
    gfloat confidence;
    if (!wanted (types, type)
        || !gst_analytics_od_mtd_get_location (
            &od, &given.x, &given.y, &given.width, &given.height, &confidence))
      continue;
    if (!append_region (regions, first, &given, width, height,
            (gint)MIN (od.id, (guint)G_MAXINT), type,
            GST_CUDA_REDUCE_REGION_ANALYTICS, error))
      return FALSE;
  }
  return TRUE;
}
#endif

gboolean
gst_cuda_reduce_regions_collect (GstBuffer *buffer, const GArray *rects,
    const GArray *types, gint width, gint height, GArray *regions,
    GError **error)
{
  const guint first = regions->len;
  for (guint k = 0; rects && k < rects->len; k++)
    if (!append_region (regions, first,
            &g_array_index (rects, GstCudaReduceRect, k), width, height,
            (gint)k, 0, GST_CUDA_REDUCE_REGION_PROPERTY, error))
      return FALSE;
  if (types == NULL)
    return TRUE;
  if (!collect_roi_metas (buffer, types, width, height, regions, first, error))
    return FALSE;
#ifdef CR_HAVE_GST_ANALYTICS
  if (!collect_detections (buffer, types, width, height, regions, first, error))
    return FALSE;
#endif
  return TRUE;
}

const gchar *
gst_cuda_reduce_region_source_name (GstCudaReduceRegionSource source)
{
  switch (source) {
    case GST_CUDA_REDUCE_REGION_ROI_META:
      return "roi";
    case GST_CUDA_REDUCE_REGION_ANALYTICS:
      return "analytics";
    case GST_CUDA_REDUCE_REGION_PROPERTY:
    default:
      return "property";
  }
}

/* The first component in @plane: all of a plane's are subsampled alike in
 * the element's formats. */
static guint
component_in (const GstVideoFormatInfo *finfo, guint plane)
{
  for (guint c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo); c++)
    if (GST_VIDEO_FORMAT_INFO_PLANE (finfo, c) == plane)
      return c;
  return 0;
}

GstCudaReduceRect
gst_cuda_reduce_region_in_plane (
    const GstVideoInfo *info, guint plane, const GstCudaReduceRect *rect)
{
  const GstVideoFormatInfo *finfo = info->finfo;
  const guint c = component_in (finfo, plane);
  const guint ws = GST_VIDEO_FORMAT_INFO_W_SUB (finfo, c);
  const guint hs = GST_VIDEO_FORMAT_INFO_H_SUB (finfo, c);
  GstCudaReduceRect out = { 0, 0, 0, 0 };
  if (rect->width <= 0 || rect->height <= 0)
    return out;
  /* The first sample floors, the end ceils: every sample a pixel of the
   * rectangle maps to. Clipped rectangles are not negative. */
  const guint64 x_end =
      ((guint64)rect->x + (guint64)rect->width + (1u << ws) - 1) >> ws;
  const guint64 y_end =
      ((guint64)rect->y + (guint64)rect->height + (1u << hs) - 1) >> hs;
  out.x = rect->x >> ws;
  out.y = rect->y >> hs;
  out.width = (gint)(x_end - (guint64)out.x);
  out.height = (gint)(y_end - (guint64)out.y);
  return out;
}

GstCudaReducePlaneRect
gst_cuda_reduce_region_bytes (const GstVideoInfo *info, guint plane,
    gsize stride, const GstCudaReduceRect *rect)
{
  const GstCudaReduceRect s =
      gst_cuda_reduce_region_in_plane (info, plane, rect);
  const gsize pstride = (gsize)GST_VIDEO_FORMAT_INFO_PSTRIDE (
      info->finfo, component_in (info->finfo, plane));
  const GstCudaReducePlaneRect out = {
    .offset = (gsize)s.y * stride + (gsize)s.x * pstride,
    .row_bytes = (gsize)s.width * pstride,
    .rows = (guint)s.height,
  };
  return out;
}

gboolean
gst_cuda_reduce_regions_annotate (GstBuffer *buffer,
    const GstCudaReduceRegion *region, const gchar *element,
    GstStructure *params)
{
  GstVideoRegionOfInterestMeta *meta =
      region->source == GST_CUDA_REDUCE_REGION_ROI_META
      ? gst_buffer_get_video_region_of_interest_meta_id (buffer, region->id)
      : NULL;
  if (meta == NULL) {
    gst_structure_free (params);
    return FALSE;
  }
  gst_structure_set_name (params, GST_CUDA_REDUCE_REGION_PARAM);
  gst_structure_set (params, "element", G_TYPE_STRING, element, NULL);
  /* The meta keeps its parameters in a public list, with no call to take
   * one out. */
  for (GList *l = meta->params; l; l = l->next) {
    GstStructure *old = l->data;
    if (gst_structure_has_name (old, GST_CUDA_REDUCE_REGION_PARAM)
        && g_strcmp0 (gst_structure_get_string (old, "element"), element)
            == 0) {
      gst_structure_free (old);
      meta->params = g_list_delete_link (meta->params, l);
      break;
    }
  }
  gst_video_region_of_interest_meta_add_param (meta, params);
  return TRUE;
}

gboolean
gst_cuda_reduce_regions_check_setup (GstClockTime interval, GstClockTime window,
    gboolean tensors, const GArray *roi_types, GError **error)
{
  if (roi_types != NULL && (interval != 0 || window != 0)) {
    g_set_error (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
        "The ROI metas and detections that roi-types reads come and go "
        "from frame to frame, so their results cannot accumulate over an "
        "interval or a "
        "window: list fixed rectangles in regions instead, or leave "
        "interval and window at 0");
    return FALSE;
  }
  if (tensors && roi_types != NULL) {
    g_set_error (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
        "output=tensor gives tensors of a fixed shape, but the ROI metas "
        "and detections that roi-types reads come and go from frame to "
        "frame: list fixed "
        "rectangles in regions instead, or use output=message");
    return FALSE;
  }
  return TRUE;
}

gboolean
gst_cuda_reduce_regions_check_input (gboolean video, GError **error)
{
  if (!video) {
    g_set_error (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
        "regions and roi-types are rectangles of video frames, and the "
        "input is not video: unset them");
    return FALSE;
  }
  return TRUE;
}

void
gst_cuda_reduce_regions_rects (const GArray *regions, const GstVideoInfo *info,
    guint plane, gsize row_bytes, guint64 *rows_before, CrRect *rects)
{
  const gsize pstride = (gsize)GST_VIDEO_FORMAT_INFO_PSTRIDE (
      info->finfo, component_in (info->finfo, plane));
  const guint64 rows_per_pixel = MAX (1, pstride / row_bytes);

  for (guint k = 0; k < regions->len; k++) {
    const GstCudaReduceRegion *r =
        &g_array_index (regions, GstCudaReduceRegion, k);
    const GstCudaReduceRect s =
        gst_cuda_reduce_region_in_plane (info, plane, &r->clipped);
    rects[k] = (CrRect){
      .x = (guint64)s.x * rows_per_pixel,
      .y = (guint64)s.y,
      .width = (guint64)s.width * rows_per_pixel,
      .lines = (guint64)s.height,
      .rows_before = rows_before[k],
    };
    rows_before[k] += rects[k].width * rects[k].lines;
  }
}
