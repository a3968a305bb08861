/* gstcudareduce-pending.h: a buffer whose reductions are in flight: how it
 * is mapped for the GPU, and what becomes of its results: element
 * messages, tensor buffers, and the input buffer pushed on. */
#pragma once

#include "cr-reducer.h"
#include "gstcudareduce-caps.h"
#include "gstcudareduce-plan.h"
#include "gstcudareduce-props.h"
#include "gstcudareduce-watchdog.h"

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

/* One reduction of (a part of) the buffer, and the result it ends, if
 * any. */
typedef struct {
  CrJob *job; /* NULL while gathered for a batch not launched yet */
  guint result; /* its index among the job's results */
  guint part; /* of the plan */
  gboolean keeps; /* has a result, which gives values of the next emit */
  gboolean emit; /* posts (and in tensor mode pushes) a result */
  GstClockTime timestamp, duration, stream_time, running_time;
  /* With a sliding window (window_size hops), the hops the result spans:
   * fewer while the window first fills. */
  guint window_hops, window_size;
} GstCudaReduceReduction;

/* Pending buffers are made on the streaming thread and freed on the
 * others, where each malloc would take the lock of the allocator arena
 * that the other threads' frees go back to: 1.2 to 1.7 us a buffer on a
 * GPU machine's host, of the streaming thread's 5 to 6. The element
 * keeps the freed ones for reuse instead, up to a cap. */
typedef struct {
  GMutex lock;
  GPtrArray *kept; /* GstCudaReducePending, cleared */
} GstCudaReducePendingPool;

void gst_cuda_reduce_pending_pool_init (GstCudaReducePendingPool *pool);
/* After the last pending from @pool is freed. */
void gst_cuda_reduce_pending_pool_clear (GstCudaReducePendingPool *pool);

typedef struct {
  GstCudaReducePendingPool *pool; /* where it goes back to */
  GstBuffer *buffer; /* mapped until the GPU is done with it; NULL for the
                        partial interval at EOS */
  gboolean is_frame;
  GstVideoFrame frame;
  GstMapInfo map;
  GArray *reductions; /* GstCudaReduceReduction, in submission order */
  const CrProgram *program; /* owned by the element's programs */
  const GQuark *field_quarks; /* likewise: of program->out's fields */
  CrMonoid *monoid;
  GstCudaReducePlan *plan; /* its parts, and the values reported */
  gboolean spans_buffers; /* results of an interval */
  GstCudaReduceDelivery delivery; /* as the properties were at submission */
  /* Some reductions wait for a batch's launch. Set under the element's
   * gather lock, read without it (atomically) by the results thread:
   * cleared only after every job is set. */
  gint gathered;
  GPtrArray *tensors; /* result buffers, once completed in tensor mode */
  GPtrArray *metas; /* GstStructure: results for the buffer's meta */
  /* With results per region: the frame's regions (GstCudaReduceRegion),
   * one result each in every reduction that keeps one; and once
   * completed, each region's results for its ROI meta (GstStructure, NULL
   * for the property's rectangles). */
  GArray *regions;
  GstVideoInfo region_info; /* the caps': where the regions lie */
  GPtrArray *roi_params;
} GstCudaReducePending;

/* Takes @buffer (may be NULL); from @pool, where it goes back once
 * freed. */
GstCudaReducePending *gst_cuda_reduce_pending_new (
    GstCudaReducePendingPool *pool, GstBuffer *buffer, const CrProgram *program,
    const GQuark *field_quarks, CrMonoid *monoid, GstCudaReducePlan *plan,
    gboolean spans_buffers, const GstCudaReduceDelivery *delivery);
/* Waits for the GPU (a job's memory may still be read), releases
 * everything and goes back to its pool (which holds no more than were in
 * flight at once). */
void gst_cuda_reduce_pending_free (GstCudaReducePending *pending);

/* Maps @pending's buffer for reading, as rows of @format, and sets
 * @regions[k] to part k of its plan: video honours GstVideoMeta strides
 * and offsets, and only each row's visible pixels reach the GPU. Sets a
 * region's device address where @device reads the memory in place. Posts
 * the error on @element on failure. */
gboolean gst_cuda_reduce_pending_map (GstCudaReducePending *pending,
    GstElement *element, const CrInputFormat *format, CrDevice *device,
    CrRegion *regions);

/* Where results go. */
typedef struct {
  GstElement *element; /* posts messages and errors */
  GstPad *srcpad;
  GstCudaReduceWatch *watch; /* told of the waits for the GPU */
} GstCudaReduceOutputs;

/* Registers GST_CUDA_REDUCE_META_NAME's meta, once, before use. */
void gst_cuda_reduce_meta_register (void);

/* Waits for @pending's reductions (every one launched by now) and posts
 * their results, and in tensor mode makes their buffers. GST_FLOW_ERROR
 * with @error when the GPU failed; without, when a launch failed (its
 * error is posted). */
GstFlowReturn gst_cuda_reduce_pending_complete (GstCudaReducePending *pending,
    const GstCudaReduceOutputs *outputs, GError **error);
/* @pending's result @r as a tensor buffer, as NNStreamer expects of
 * other/tensors: one memory per result field, holding that field of each
 * of the @n results at @values (program->out.size bytes each, in order). */
GstBuffer *gst_cuda_reduce_pending_tensor_buffer (
    const GstCudaReducePending *pending, const GstCudaReduceReduction *r,
    const guint8 *values, guint n);
/* Field @f of @program's value at @bytes (program->out.size bytes) into
 * @value: a number, or for an array field (a histogram's bins, a list of
 * percentiles) an array of them; a 2-D histogram is an array of rows, one
 * for each bin of the pair's first component. */
void gst_cuda_reduce_pending_field_value (
    const CrProgram *program, guint f, const guint8 *bytes, GValue *value);
/* Bytes that hold one part's values of @pending's plan, every channel of
 * its widest part: what a job's results are read into. */
gsize gst_cuda_reduce_pending_part_bytes (const GstCudaReducePending *pending);
/* Waits for @r's job, the watchdog told of the wait. GST_FLOW_ERROR with
 * @error when the GPU failed; without, when the launch failed (its error
 * is posted). */
GstFlowReturn gst_cuda_reduce_pending_wait (const GstCudaReduceReduction *r,
    const GstCudaReduceOutputs *outputs, GError **error);
/* Whether @pending's results go out as structures: bus messages, or
 * result metas on its buffer. */
gboolean gst_cuda_reduce_pending_wants_structure (
    const GstCudaReducePending *pending);
/* Hands on one result's structure @s (taken), as the settings ask: posted
 * as a message, kept for a result meta on the buffer, or both. */
void gst_cuda_reduce_pending_deliver_structure (GstCudaReducePending *pending,
    const GstCudaReduceOutputs *outputs, GstStructure *s);
/* Keeps one result's tensor buffer @tensor (taken) for the output. */
void gst_cuda_reduce_pending_deliver_tensor (
    GstCudaReducePending *pending, GstBuffer *tensor);
/* Pushes the completed @pending's buffer, or its tensors, downstream, and
 * frees it. @completed: what completing it returned. */
GstFlowReturn gst_cuda_reduce_pending_push (GstCudaReducePending *pending,
    GstFlowReturn completed, const GstCudaReduceOutputs *outputs);

G_END_DECLS
