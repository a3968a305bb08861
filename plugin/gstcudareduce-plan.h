/* gstcudareduce-plan.h: which reductions a buffer takes, and which of
 * their results a message reports.
 *
 * A buffer is reduced in parts: audio and tensors in one, video in one
 * per plane (I420 has three, NV12 two, RGB one). Each part runs on one of
 * the program's reducers, whose state it continues: the parts of a whole
 * YUV frame share one reducer and carry from plane to plane, so that the
 * frame gives one result; with per-channel results every plane has a
 * reducer of its own, whose result has one value per interleaved channel
 * (NV12's second plane gives U and V). The values a result reports are
 * then picked from those: every component in order (Y, U, V; packed RGB
 * in memory order), or the one component the `component` property
 * selects.
 *
 * A monoid that counts pairs (a 2-D histogram) has one part, the plane of
 * the pair's first component, and reads the second's plane beside it
 * (the same one for NV12's U and V): one result, one histogram. */
#pragma once

#include "cr-program.h"
#include "gstcudareduce-format.h"

#include <gst/gst.h>

G_BEGIN_DECLS

typedef struct {
  guint plane; /* of a video frame; 0 otherwise */
  guint channels; /* interleaved in a row element: its reducer's channels */
  guint reducer; /* whose state it continues, in the order of the parts */
  gboolean keeps; /* the last part of its reducer: its result is read */
  guint64 rows; /* video: rows (of @channels samples) in one frame */
} GstCudaReducePart;

/* Where a reported value comes from. */
typedef struct {
  guint part; /* a part that keeps its result */
  guint channel; /* of that part */
} GstCudaReduceValue;

typedef struct {
  gint ref;
  GstCudaReducePart parts[GST_VIDEO_MAX_PLANES];
  guint n_parts;
  guint reducer_channels[GST_VIDEO_MAX_PLANES]; /* by reducer */
  guint n_reducers;
  /* The kernels the program needs besides the two every program has: the
   * pitched one for video, and for reducers of several channels the
   * per-channel ones for their counts. */
  CrKernels kernels;
  /* Video: a window counts frames (parts know their rows per frame);
   * otherwise rows of the one part. */
  gboolean counts_frames;
  /* Values are arrays (per-channel results), else one value each. */
  gboolean per_channel;
  /* With a monoid that counts pairs: where its components lie. The first
   * is channel x_channel of part 0's pixels; the second, channel
   * y_channel of y_channels in plane y_plane (video; audio and tensors
   * have one region). */
  struct {
    gchar **names; /* the monoid's pair; NULL: not a pair */
    guint x_channel;
    guint y_plane, y_channel, y_channels;
  } pair;
  GstCudaReduceValue *values;
  guint n_values;
} GstCudaReducePlan;

/* The plan for @format with per-channel results or not, and @component
 * (-1: every component; else the index of the value that per-channel
 * results give), for a monoid that counts @pair (NULL: single values).
 * Fails, with a message that says what to fix, for a component the
 * format does not have. */
GstCudaReducePlan *gst_cuda_reduce_plan_new (const CrInputFormat *format,
    gboolean per_channel, gint component, gchar **pair, GError **error);
/* The channels of audio, or innermost extents of a tensor, that
 * gst_cuda_reduce_plan_new takes with these settings: from *@lo to *@hi.
 * FALSE when it takes none: a pair of named components (U and V), or a
 * pair with per-channel results or a component. */
gboolean gst_cuda_reduce_plan_channel_range (
    gboolean per_channel, gint component, gchar **pair, guint *lo, guint *hi);
/* The regions a buffer maps to for @plan: one per part, and for a pair
 * the second component's after them. */
guint gst_cuda_reduce_plan_n_regions (const GstCudaReducePlan *plan);
/* The video plane of region @k. */
guint gst_cuda_reduce_plan_region_plane (
    const GstCudaReducePlan *plan, guint k);
/* Whether @plan is one for a monoid that counts @pair (or NULL). */
gboolean gst_cuda_reduce_plan_has_pair (
    const GstCudaReducePlan *plan, gchar **pair);
GstCudaReducePlan *gst_cuda_reduce_plan_ref (GstCudaReducePlan *plan);
void gst_cuda_reduce_plan_unref (GstCudaReducePlan *plan);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GstCudaReducePlan, gst_cuda_reduce_plan_unref)

/* Values per field that results of @format have with @per_channel and
 * @component, without making the plan: 0 when they cannot be had. */
guint gst_cuda_reduce_plan_n_values (
    const CrInputFormat *format, gboolean per_channel, gint component);

G_END_DECLS
