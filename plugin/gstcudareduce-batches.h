/* gstcudareduce-batches.h: submitting each buffer's reductions, and the
 * batch that small ones gather into.
 *
 * The streaming thread gathers a small buffer's reductions rather than
 * launching them (a launch costs it more than the whole rest of the
 * buffer's work), and the results thread launches them when it reaches
 * the oldest of them: everything before has completed, so the GPU is
 * idle. A lone buffer on an idle GPU is therefore launched as soon as the
 * results thread wakes, and buffers that arrive while the GPU is busy
 * share the next launch, which grows with the rate they arrive at. The
 * streaming thread launches only a batch that is full, or before a
 * reduction that cannot join it.
 *
 * lock guards the open batch and every submission, which both threads
 * make. Launches, which take microseconds, also hold launch_lock, taken
 * under lock: the results thread lets go of lock while it launches, so
 * that the streaming thread gathers meanwhile, and the launches keep
 * their order. */
#pragma once

#include "gstcudareduce-pending.h"
#include "gstcudareduce-queue.h"
#include "gstcudareduce-window.h"

G_BEGIN_DECLS

typedef struct {
  GstElement *element; /* whose errors are posted */
  GMutex lock;
  GMutex launch_lock;
  CrReducer *reducer; /* whose batch is open, or NULL */
  GPtrArray *pendings; /* GstCudaReducePending with reductions in it */
} GstCudaReduceBatches;

void gst_cuda_reduce_batches_init (
    GstCudaReduceBatches *batches, GstElement *element);
void gst_cuda_reduce_batches_clear (GstCudaReduceBatches *batches);

/* The streaming thread: submits, or gathers into the open batch, the
 * reductions of each of @slices (GstCudaReduceSlice) for @p: one per part
 * of p->plan, of @regions[part] on @reducers[part->reducer], with
 * context @ctx. @regions NULL: no data, only the end of an interval.
 * @segment gives the results' stream and running times. Sets *@cost to
 * the launches it started (0 or 1). On failure sets @error and forgets
 * the open batch if @p is in it; the buffers of a batch that failed to
 * launch complete with GST_FLOW_ERROR. */
gboolean gst_cuda_reduce_batches_submit (GstCudaReduceBatches *batches,
    CrReducer *const *reducers, GstCudaReducePending *p,
    const CrRegion *regions, GArray *slices, const guint8 *ctx,
    const GstSegment *segment, guint *cost, GError **error);

/* Whether a buffer of @size bytes for @reducer would join the open batch,
 * costing no launch of its own. */
gboolean gst_cuda_reduce_batches_would_join (
    GstCudaReduceBatches *batches, const CrReducer *reducer, gsize size);

/* Launches the open batch, if any (before a change of monoid). */
gboolean gst_cuda_reduce_batches_launch (
    GstCudaReduceBatches *batches, GError **error);

/* The results thread: @p's results (the queue's funcs.complete),
 * launching the batch it waits for first, unless someone has, if
 * @may_wait. */
GstFlowReturn gst_cuda_reduce_batches_complete (GstCudaReduceBatches *batches,
    GstCudaReducePending *p, gboolean may_wait,
    const GstCudaReduceOutputs *outputs, GError **error);

/* Forgets the open batch (a flush, stopping): its buffers are dropped
 * with the queue, or complete with an error. */
void gst_cuda_reduce_batches_drop (GstCudaReduceBatches *batches);

G_END_DECLS
