/* gstcudareduce-queue.h: buffers in flight, between the streaming thread
 * and the source pad's task.
 *
 * The streaming thread submits each buffer's reduction on the GPU and
 * pushes it here; a task on the source pad takes them out in order and
 * finishes them (waits for the GPU, posts results, pushes downstream). At
 * most `depth` are in flight: the streaming thread waits for room.
 * Serialized events drain the queue first, so nothing overtakes a buffer.
 * The queue does not know what an item is: it is given a function that
 * finishes one and one that frees one unfinished. */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

typedef GstFlowReturn (*GstCudaReduceFinishFunc) (
    gpointer item, gpointer user_data);

typedef struct {
  GstPad *pad; /* whose task finishes items */
  GstCudaReduceFinishFunc finish; /* takes the item */
  GDestroyNotify free;
  gpointer user_data;

  /* Everything below under lock. */
  GMutex lock;
  GCond changed;
  GQueue items; /* oldest first */
  guint in_flight; /* queued, or being finished by the task */
  guint depth;
  gboolean flushing;
  GstFlowReturn flow; /* the task's last push, once not OK */
  GstClockTime last_duration; /* of the last buffer pushed in */
} GstCudaReduceQueue;

void gst_cuda_reduce_queue_init (GstCudaReduceQueue *queue, GstPad *pad,
    GstCudaReduceFinishFunc finish, GDestroyNotify free, gpointer user_data);
void gst_cuda_reduce_queue_clear (GstCudaReduceQueue *queue);

/* When the element starts. */
void gst_cuda_reduce_queue_set_depth (GstCudaReduceQueue *queue, guint depth);
guint gst_cuda_reduce_queue_get_depth (GstCudaReduceQueue *queue);

/* Waits until another item may be pushed: OK, FLUSHING, or the flow that
 * stopped the task. */
GstFlowReturn gst_cuda_reduce_queue_wait_for_room (GstCudaReduceQueue *queue);

/* Hands @item to the task (starting it if needed), or frees it when
 * flushing. @duration: of the buffer it holds, for latency; may be NONE. */
GstFlowReturn gst_cuda_reduce_queue_push (
    GstCudaReduceQueue *queue, gpointer item, GstClockTime duration);

/* Until everything pushed has been finished, or cannot be. */
void gst_cuda_reduce_queue_drain (GstCudaReduceQueue *queue);

/* Frees what has not been finished. */
void gst_cuda_reduce_queue_drop (GstCudaReduceQueue *queue);

/* Refuses further items with GST_FLOW_ERROR (before an error is posted, so
 * that nothing is accepted after it). */
void gst_cuda_reduce_queue_fail (GstCudaReduceQueue *queue);

/* FLUSH_START: wakes and refuses everyone. FLUSH_STOP: drops what is left
 * and accepts items again. */
void gst_cuda_reduce_queue_flush_start (GstCudaReduceQueue *queue);
void gst_cuda_reduce_queue_flush_stop (GstCudaReduceQueue *queue);

/* Pad activation: accepts items while active; deactivating stops the task
 * before the pad's streaming lock is taken. */
void gst_cuda_reduce_queue_activate (
    GstCudaReduceQueue *queue, gboolean active);

/* How long buffers can be held here: depth times the last duration, or 0
 * while that is unknown. */
GstClockTime gst_cuda_reduce_queue_held (GstCudaReduceQueue *queue);

G_END_DECLS
