/* gstcudareduce-queue.h: buffers in flight, from the streaming thread to
 * the GPU and on downstream.
 *
 * The streaming thread submits each buffer's reductions and pushes it
 * here. Two threads take them out, in order:
 *
 *   - the results thread completes each: waits for the GPU and posts its
 *     results, as soon as the GPU is done, whatever downstream is doing;
 *   - the source pad's task pushes completed items downstream, where a
 *     sink that syncs on the clock may keep it waiting.
 *
 * Both threads take items in runs, with one lock and one wake-up a run
 * rather than an item: at hundreds of thousands of buffers a second,
 * handing items over one by one costs more than the rest of their work.
 *
 * At most `depth` launches are in flight: an item costs one, or nothing
 * when it joined another's launch (a batch); the streaming thread waits
 * for room. Serialized events drain the queue first, so nothing overtakes
 * a buffer. The queue does not know what an item is: it is given a
 * function that completes one, one that pushes one, and one that frees
 * one unfinished. */
#pragma once

#include "gstcudareduce-watchdog.h"

#include <gst/gst.h>

G_BEGIN_DECLS

/* What complete returns, without side effects, when it would have to wait
 * for the GPU and may not. */
#define GST_CUDA_REDUCE_QUEUE_WOULD_WAIT GST_FLOW_CUSTOM_SUCCESS

typedef struct {
  /* Waits for @item's GPU work (if @may_wait; else returns WOULD_WAIT
   * rather than wait) and posts its results. The items completed before
   * one that would wait are handed on first, so that none waits for a
   * later item's GPU work. */
  GstFlowReturn (*complete) (
      gpointer item, gboolean may_wait, gpointer user_data, GError **error);
  /* Pushes a completed @item downstream, given what complete returned,
   * and frees it. */
  GstFlowReturn (*push) (
      gpointer item, GstFlowReturn completed, gpointer user_data);
  GDestroyNotify free;
  /* Once, from the watchdog's thread, when complete has waited for the
   * GPU longer than the queue's timeout (@waited, at least that). The
   * queue has given up by then: it refuses items with GST_FLOW_ERROR,
   * wakes everyone who waits, and will neither join the results thread
   * nor free what it holds, since both may be inside the driver for good.
   * user_data must outlive the results thread: never freeing it is the
   * safe answer. May be NULL. */
  void (*stuck) (GstClockTime waited, gpointer user_data);
} GstCudaReduceQueueFuncs;

typedef struct {
  GstPad *pad; /* whose task pushes */
  GstCudaReduceQueueFuncs funcs;
  gpointer user_data;

  /* Items go from the streaming thread to the results thread under a
   * lock of their own, which the results thread takes once a run, and
   * from the results thread to the task, in runs, under lock: the
   * streaming thread, the busiest, rarely waits for another thread's
   * lock, and takes lock only to wake one that sleeps. inbound_lock is
   * taken after lock where both are held. */
  GMutex inbound_lock;
  GQueue inbound; /* pushed, not taken by the results thread */

  /* Under lock. Each thread waits on a condition of its own, signalled
   * only while it waits: a wake-up costs microseconds, which at hundreds
   * of thousands of buffers a second is the budget. */
  GMutex lock;
  GCond work; /* the results thread: an entry to complete */
  GCond ready; /* the source pad's task: entries completed */
  GCond room; /* the streaming thread: room, drained, or dropped */
  guint waiting_work, waiting_ready, waiting_room;
  guint64 waits_work, waits_ready, waits_room; /* for the debug log */
  GQueue completed; /* for the task, oldest first */
  gboolean completing; /* the results thread holds a run of entries */
  GThread *results_thread;
  gboolean results_done; /* the results thread has left its loop */
  gboolean quit;
  guint depth;
  gboolean flushing;
  GstFlowReturn flow; /* the first failure, once there is one */
  GstClockTime last_duration; /* of the last buffer pushed in */
  /* The results thread never came back from the GPU: see funcs.stuck.
   * Once set, never cleared. */
  gboolean abandoned;
  /* An EOS for the task to push, once abandoned (see hand_off_eos). */
  GstEvent *eos;
  /* Marks complete's waits for the GPU, which the watchdog measures
   * against the timeout (watched only where there is one). */
  GstCudaReduceWatch watch;

  /* Atomic. */
  gint in_flight; /* launches, counted until their first item is pushed */
  gint unfinished; /* pushed in and not yet pushed on or freed */
  /* A copy of !flushing && flow == OK, which the streaming thread reads
   * without the lock. */
  gint accepting;
  gint results_idle; /* the results thread waits, or is about to */
  gint task_started; /* by us, and not paused since */

  /* The streaming thread's own. */
  GstClockTime pushed_duration;
} GstCudaReduceQueue;

void gst_cuda_reduce_queue_init (GstCudaReduceQueue *queue, GstPad *pad,
    const GstCudaReduceQueueFuncs *funcs, gpointer user_data);
void gst_cuda_reduce_queue_clear (GstCudaReduceQueue *queue);

/* When the element starts and stops: the results thread lives between.
 * @timeout: how long completing one item may wait for the GPU before the
 * queue gives up on it (funcs.stuck), or 0 for ever. */
void gst_cuda_reduce_queue_start (
    GstCudaReduceQueue *queue, guint depth, GstClockTime timeout);
void gst_cuda_reduce_queue_stop (GstCudaReduceQueue *queue);
guint gst_cuda_reduce_queue_get_depth (GstCudaReduceQueue *queue);

/* Whether an item of cost 1 may be pushed now (nearly always): a check
 * without the lock, for the streaming thread. */
gboolean gst_cuda_reduce_queue_has_room (GstCudaReduceQueue *queue);

/* Waits until an item of cost 1 may be pushed, or at once for one that
 * joins a launch (@joins): OK, FLUSHING, or the flow that stopped the
 * queue. */
GstFlowReturn gst_cuda_reduce_queue_wait_for_room (
    GstCudaReduceQueue *queue, gboolean joins);

/* Hands @item on (starting the source pad's task if needed). While
 * flushing it returns FLUSHING, and the drop that ends the flush frees
 * @item. @cost: the launches it adds, 0 or 1. @duration: of the buffer it
 * holds, for latency; may be NONE. */
GstFlowReturn gst_cuda_reduce_queue_push (GstCudaReduceQueue *queue,
    gpointer item, guint cost, GstClockTime duration);

/* Until everything pushed has left, or cannot. */
void gst_cuda_reduce_queue_drain (GstCudaReduceQueue *queue);

/* Frees what has not left (unless the queue gave up on the GPU: then it
 * is left alone, as the GPU may still read it). */
void gst_cuda_reduce_queue_drop (GstCudaReduceQueue *queue);

/* Whether the queue gave up on a GPU that did not finish (funcs.stuck). */
gboolean gst_cuda_reduce_queue_abandoned (GstCudaReduceQueue *queue);

/* Once the queue gave up on the GPU, takes @eos (returns TRUE) and has the
 * source pad's task push it, so that the streaming thread returns at once.
 * A sink that has not prerolled yet keeps whoever pushes EOS until the
 * pipeline plays or stops; upstream's streaming thread must not be that
 * one, as an application that sends EOS to the pipeline (gst-launch-1.0 -e
 * on SIGINT) waits for it, and only that application would stop the
 * pipeline. Returns FALSE, taking nothing, while the queue has not given
 * up. */
gboolean gst_cuda_reduce_queue_hand_off_eos (
    GstCudaReduceQueue *queue, GstEvent *eos);

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

/* How long buffers can be held here: depth launches of @per_launch
 * buffers of the last duration, or 0 while that is unknown;
 * GST_CLOCK_TIME_NONE (no bound) where the product overflows. */
GstClockTime gst_cuda_reduce_queue_held (
    GstCudaReduceQueue *queue, guint per_launch);

G_END_DECLS
