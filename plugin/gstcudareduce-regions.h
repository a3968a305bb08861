/* gstcudareduce-regions.h: the rectangles of a frame that get results of
 * their own, and where each lies in each plane.
 *
 * Regions come from the `regions` property (fixed rectangles, in the
 * frame's pixels), from the frame's GstVideoRegionOfInterestMeta and, where
 * the element is built with GStreamer's analytics library (1.24 and
 * newer), from the object-detection records of its GstAnalyticsRelationMeta
 * (those of the chosen types, or all). Each is clipped to the frame; one wholly
 * outside it stays, empty, so that results keep one entry per region. A
 * rectangle is given in luma pixels; in a subsampled plane it covers
 * every sample that one of its pixels maps to (an I420 region from x = 1
 * to 2 covers chroma columns 0 and 1). The element's formats subsample a
 * plane's components alike, so one rectangle a plane says it all.
 *
 * This file knows rectangles only: which reducer reads them and how is the
 * plan's and the batches' business. */
#pragma once

#include "cr-monoid.h"
#include "cr-reducer-regions.h"

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

/* The most regions a frame has: the property's and the metas' together.
 * A frame with more is an error that says so, never a silent cut. */
#define GST_CUDA_REDUCE_REGIONS_MAX 4096

/* A rectangle of pixels (or a plane's samples); empty when width or height
 * is 0. */
typedef struct {
  gint x, y;
  gint width, height;
} GstCudaReduceRect;

/* Where a region comes from. */
typedef enum {
  GST_CUDA_REDUCE_REGION_PROPERTY, /* the `regions` property */
  GST_CUDA_REDUCE_REGION_ROI_META, /* a GstVideoRegionOfInterestMeta */
  GST_CUDA_REDUCE_REGION_ANALYTICS, /* an analytics object detection */
} GstCudaReduceRegionSource;

typedef struct {
  /* The ROI meta's or the detection's id, or the rectangle's index in the
   * property. */
  gint id;
  /* The ROI meta's or the detection's type; 0 for the property's. */
  GQuark type;
  GstCudaReduceRegionSource source;
  GstCudaReduceRect given; /* as the property or the meta gave it */
  GstCudaReduceRect clipped; /* its part inside the frame */
} GstCudaReduceRegion;

/* Where a region lies in one plane: @rows rows of @row_bytes, the first
 * at @offset bytes from the plane's start, the plane's stride apart. */
typedef struct {
  gsize offset;
  gsize row_bytes;
  guint rows;
} GstCudaReducePlaneRect;

/* The rectangles of the `regions` property's value, a GstValueArray of
 * GstValueArrays of four integers (x, y, width, height), as
 * `regions="<<0,0,64,64>,<64,0,64,64>>"` gives from gst-launch-1.0:
 * appended to @rects (of GstCudaReduceRect). An empty array is no
 * rectangle. Fails, saying what to fix, for anything else: a rectangle of
 * other than four integers, a width or height below 1, more than
 * GST_CUDA_REDUCE_REGIONS_MAX of them. */
gboolean gst_cuda_reduce_regions_parse (
    const GValue *value, GArray *rects, GError **error);

/* The ROI types a comma-separated list names ("face,person"), as quarks;
 * NULL or "" reads no meta, "*" every meta (an empty array). */
GArray *gst_cuda_reduce_regions_parse_types (const gchar *list);

/* The regions of @buffer, a frame of @width x @height pixels: @rects (the
 * property's, may be NULL) in order, then the buffer's ROI metas of the
 * @types (NULL: none; empty: all) in the order they are on the buffer,
 * then (where built in) its analytics object detections of the @types in
 * their meta's order. Appended to @regions (of GstCudaReduceRegion). Fails,
 * saying so, when they are more than GST_CUDA_REDUCE_REGIONS_MAX. */
gboolean gst_cuda_reduce_regions_collect (GstBuffer *buffer,
    const GArray *rects, const GArray *types, gint width, gint height,
    GArray *regions, GError **error);

/* @rect (clipped to the frame, in its pixels) in plane @plane of @info:
 * the samples it covers there. */
GstCudaReduceRect gst_cuda_reduce_region_in_plane (
    const GstVideoInfo *info, guint plane, const GstCudaReduceRect *rect);

/* The bytes of @rect (clipped, in the frame's pixels) in plane @plane of
 * @info, whose rows are @stride bytes apart. */
GstCudaReducePlaneRect gst_cuda_reduce_region_bytes (const GstVideoInfo *info,
    guint plane, gsize stride, const GstCudaReduceRect *rect);

/* Whether results per region go with the other settings the element
 * starts with: the ROI metas (@roi_types not NULL) come and go from frame
 * to frame, so neither accumulate over an @interval or a @window, nor fit
 * tensors (@tensors) of a fixed shape. Fails saying what to set. */
gboolean gst_cuda_reduce_regions_check_setup (GstClockTime interval,
    GstClockTime window, gboolean tensors, const GArray *roi_types,
    GError **error);
/* Whether the input gives results per region: @video frames (FALSE: other
 * input). */
gboolean gst_cuda_reduce_regions_check_input (gboolean video, GError **error);

/* @regions (GstCudaReduceRegion, clipped) as rectangles of plane @plane of
 * @info read in rows of @row_bytes (a reducer's channels; a pixel of the
 * plane is one or more rows), into @rects (regions->len of them). Each
 * starts at rows_before[k] rows, which grows by its rows. */
void gst_cuda_reduce_regions_rects (const GArray *regions,
    const GstVideoInfo *info, guint plane, gsize row_bytes,
    guint64 *rows_before, CrRect *rects);

/* The name a region's source has in messages ("property", "roi",
 * "analytics"). */
const gchar *gst_cuda_reduce_region_source_name (
    GstCudaReduceRegionSource source);

/* The name of the parameter structure a region's results go in on its
 * ROI meta (gst_video_region_of_interest_meta_get_param (meta, this)). */
#define GST_CUDA_REDUCE_REGION_PARAM "cudareduce"

/* Gives @region's ROI meta on @buffer (writable) the results in @params
 * (taken), renamed GST_CUDA_REDUCE_REGION_PARAM and with the field
 * "element" set to @element: replacing the one that element gave before,
 * so each element's results are there once. FALSE (and @params freed)
 * for a region that is not an ROI meta's, or whose meta is no longer on
 * the buffer. */
gboolean gst_cuda_reduce_regions_annotate (GstBuffer *buffer,
    const GstCudaReduceRegion *region, const gchar *element,
    GstStructure *params);

G_END_DECLS
