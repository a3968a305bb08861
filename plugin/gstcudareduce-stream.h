/* gstcudareduce-stream.h: what the element runs with between start and
 * stop, and the streaming thread's part of a buffer's way: following the
 * caps, the monoid and the frames' CUDA context, mapping the buffer and
 * handing its reductions to the batches.
 *
 * Touched only by the streaming thread, and by start and stop. */
#pragma once

#include "gstcudareduce-batches.h"
#include "gstcudareduce-cuda.h"
#include "gstcudareduce-programs.h"
#include "gstcudareduce-props.h"

G_BEGIN_DECLS

/* The properties an element starts with: fixed until it stops. */
typedef struct {
  gint device_id;
  gboolean per_channel;
  gint component;
  GstClockTime interval;
  guint window_hops; /* intervals a result spans: 1 without a window */
  GstClockTime gpu_timeout;
  /* Results per region: the regions property's rectangles
   * (GstCudaReduceRect) and the ROI types read (GQuark; NULL: none, empty:
   * all), owned by the stream once started. */
  gboolean regions;
  GArray *rects;
  GArray *roi_types;
} GstCudaReduceSetup;

typedef struct {
  GstElement *element; /* whose errors are posted */
  GstCudaReduceProps *props; /* under the element's object lock */
  GstCudaReduceCuda *cuda; /* the pipeline's CUDA context */
  GstCudaReduceBatches *batches;
  GstCudaReduceQueue *queue;

  GstCudaReduceSetup setup;
  CrDevice *device;
  GstAllocator *allocator; /* pinned memory proposed upstream */
  GstCudaReducePrograms programs;
  struct {
    CrInputFormat format;
    GstCudaReducePlan *plan; /* of format, per channel and component */
    gboolean known;
    guint tensors; /* output tensors negotiated */
    gboolean crop_warned; /* a frame came with a crop meta */
    GstCaps *refused; /* the last caps refused, with an error posted */
  } caps;
  GstCudaReduceWindow window;
  GArray *slices; /* GstCudaReduceSlice, reused for each buffer */
  GstCudaReducePendingPool pendings;
  GstCudaReduceSettings settings; /* of the last buffer */
} GstCudaReduceStream;

void gst_cuda_reduce_stream_init (GstCudaReduceStream *stream,
    GstElement *element, GstCudaReduceProps *props, GstCudaReduceCuda *cuda,
    GstCudaReduceBatches *batches, GstCudaReduceQueue *queue);
void gst_cuda_reduce_stream_clear (GstCudaReduceStream *stream);

/* Opens the GPU of @setup's device_id in a context of the element's own.
 * Posts the error on failure. */
gboolean gst_cuda_reduce_stream_start (
    GstCudaReduceStream *stream, const GstCudaReduceSetup *setup);
/* After the queue stopped. With @abandoned (the GPU never finished),
 * everything of the context is left as it is, since freeing it would
 * wait for the GPU. */
void gst_cuda_reduce_stream_stop (
    GstCudaReduceStream *stream, gboolean abandoned);

/* New input caps: the format, the plan, and the program compiled now
 * rather than for the first buffer. Posts the error on failure. */
gboolean gst_cuda_reduce_stream_set_caps (
    GstCudaReduceStream *stream, GstCaps *incaps);

/* Whether a buffer of @size bytes would join the open batch: then it
 * needs no room in the queue. */
gboolean gst_cuda_reduce_stream_would_join (
    GstCudaReduceStream *stream, gsize size);

/* Reads the properties once, follows the frames' CUDA context and the
 * monoid, maps @buf and submits its reductions, taking @buf. Sets
 * *@pending, or returns why not (the error posted). */
GstFlowReturn gst_cuda_reduce_stream_submit (GstCudaReduceStream *stream,
    GstBuffer *buf, GstCudaReducePending **pending, guint *cost);

/* The interval under way, as a result of what it has (at EOS), or NULL. */
GstCudaReducePending *gst_cuda_reduce_stream_submit_rest (
    GstCudaReduceStream *stream, guint *cost);

/* A flush or new caps: the next buffer starts a new result. */
void gst_cuda_reduce_stream_reset (GstCudaReduceStream *stream);

G_END_DECLS
