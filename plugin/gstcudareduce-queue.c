/* gstcudareduce-queue.c: the in-flight queue, its results thread and the
 * source pad's task. */
#include "gstcudareduce-queue.h"

#include "gstcudareduce-error.h"

#include <string.h>

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_reduce_debug);
#define GST_CAT_DEFAULT gst_cuda_reduce_debug

typedef struct {
  gpointer item;
  guint cost;
  GstFlowReturn completed; /* what completing it returned */
} Entry;

/* The most entries the results thread takes at once: a batch's worth. */
#define RUN_MAX 64

static void give_up (GstClockTime waited, gpointer data);

static void
update_accepting (GstCudaReduceQueue *q)
{
  g_atomic_int_set (&q->accepting, !q->flushing && q->flow == GST_FLOW_OK);
}

void
gst_cuda_reduce_queue_init (GstCudaReduceQueue *q, GstPad *pad,
    const GstCudaReduceQueueFuncs *funcs, gpointer user_data)
{
  memset (q, 0, sizeof *q);
  q->pad = pad;
  q->funcs = *funcs;
  q->user_data = user_data;
  g_mutex_init (&q->inbound_lock);
  g_queue_init (&q->inbound);
  g_mutex_init (&q->lock);
  g_cond_init (&q->work);
  g_cond_init (&q->ready);
  g_cond_init (&q->room);
  g_queue_init (&q->completed);
  q->depth = 1;
  q->flushing = TRUE;
  q->flow = GST_FLOW_OK;
  update_accepting (q);
  q->last_duration = q->pushed_duration = GST_CLOCK_TIME_NONE;
  q->watch.expired = give_up;
  q->watch.user_data = q;
}

void
gst_cuda_reduce_queue_clear (GstCudaReduceQueue *q)
{
  gst_cuda_reduce_queue_stop (q);
  gst_clear_event (&q->eos);
  g_mutex_clear (&q->inbound_lock);
  g_mutex_clear (&q->lock);
  g_cond_clear (&q->work);
  g_cond_clear (&q->ready);
  g_cond_clear (&q->room);
}

#define WAIT(q, cond) \
  G_STMT_START \
  { \
    q->waiting_##cond++; \
    q->waits_##cond++; \
    g_cond_wait (&q->cond, &q->lock); \
    q->waiting_##cond--; \
  } \
  G_STMT_END

#define WAKE(q, cond) \
  G_STMT_START \
  { \
    if (q->waiting_##cond > 0) \
      g_cond_broadcast (&q->cond); \
  } \
  G_STMT_END

/* After a change everyone must see: flushing, failing, quitting. */
static void
wake_all (GstCudaReduceQueue *q)
{
  update_accepting (q);
  g_cond_broadcast (&q->work);
  g_cond_broadcast (&q->ready);
  g_cond_broadcast (&q->room);
}

/* The watchdog's thread: complete waited for the GPU longer than the
 * timeout. */
static void
give_up (GstClockTime waited, gpointer data)
{
  GstCudaReduceQueue *q = data;

  g_mutex_lock (&q->lock);
  const gboolean first = !q->abandoned;
  q->abandoned = TRUE;
  g_mutex_unlock (&q->lock);
  if (!first)
    return;
  /* Said before anyone is refused, so that the element's error is the
   * first on the bus; a stop meanwhile waits for it (or is made from it),
   * and returns at once since the queue is abandoned. */
  if (q->funcs.stuck)
    q->funcs.stuck (waited, q->user_data);
  g_mutex_lock (&q->lock);
  if (q->flow == GST_FLOW_OK)
    q->flow = GST_FLOW_ERROR;
  wake_all (q);
  g_mutex_unlock (&q->lock);
}

/* Refuses further items, then posts @error (taken) as the pad's
 * element's: nobody sees the error before the streaming thread is
 * refused. With no lock held, for a bus sync handler that stops the
 * pipeline. */
static void
fail_with (GstCudaReduceQueue *q, GError *error)
{
  gst_cuda_reduce_queue_fail (q);
  GstElement *element = gst_pad_get_parent_element (q->pad);
  if (element) {
    gst_cuda_reduce_post_error (element, error, NULL);
    gst_object_unref (element);
  } else {
    GST_ERROR_OBJECT (q->pad, "%s", error->message);
  }
  g_error_free (error);
}

/* An entry that will not be pushed on: out of the accounting. */
static void
forget (GstCudaReduceQueue *q, Entry *e)
{
  q->funcs.free (e->item);
  g_atomic_int_add (&q->in_flight, -(gint)e->cost);
  g_atomic_int_add (&q->unfinished, -1);
  g_free (e);
}

/* Hands @n completed entries of a run to the task, in order. Under lock.
 * Whether the run may go on. */
static gboolean
publish_locked (GstCudaReduceQueue *q, Entry **run, guint n)
{
  for (guint k = 0; k < n; k++) {
    g_queue_push_tail (&q->completed, run[k]);
    if (run[k]->completed != GST_FLOW_OK && q->flow == GST_FLOW_OK) {
      q->flow = run[k]->completed;
      wake_all (q);
    }
  }
  if (n > 0)
    WAKE (q, ready);
  return !q->quit && !q->flushing && q->flow == GST_FLOW_OK;
}

static gboolean
has_work_locked (GstCudaReduceQueue *q)
{
  if (q->flushing || q->flow != GST_FLOW_OK)
    return FALSE;
  g_mutex_lock (&q->inbound_lock);
  gboolean any = !g_queue_is_empty (&q->inbound);
  g_mutex_unlock (&q->inbound_lock);
  return any;
}

/* The results thread: completes entries in order, in runs of what has
 * been pushed so far; what completes without waiting for the GPU is
 * handed to the task together. */
static gpointer
results_loop (gpointer data)
{
  GstCudaReduceQueue *q = data;
  Entry *run[RUN_MAX];

  g_mutex_lock (&q->lock);
  while (!q->quit) {
    if (!has_work_locked (q)) {
      /* Said before looking again: a push that this look misses takes
       * inbound_lock after it, and so sees this and wakes us. */
      g_atomic_int_set (&q->results_idle, 1);
      if (!q->quit && !has_work_locked (q))
        WAIT (q, work);
      g_atomic_int_set (&q->results_idle, 0);
      continue;
    }
    guint n = 0;
    Entry *e;
    g_mutex_lock (&q->inbound_lock);
    while (n < RUN_MAX && (e = g_queue_pop_head (&q->inbound)) != NULL)
      run[n++] = e;
    g_mutex_unlock (&q->inbound_lock);
    q->completing = TRUE;
    g_mutex_unlock (&q->lock);

    /* The run is ours until published: a drop waits for completing to
     * end. */
    guint done = 0, k = 0;
    gboolean go_on = TRUE;
    while (go_on && k < n) {
      e = run[k];
      GError *error = NULL;
      e->completed =
          q->funcs.complete (e->item, k == done, q->user_data, &error);
      if (error)
        fail_with (q, error);
      if (e->completed == GST_CUDA_REDUCE_QUEUE_WOULD_WAIT) {
        g_mutex_lock (&q->lock);
        go_on = publish_locked (q, run + done, k - done);
        g_mutex_unlock (&q->lock);
        done = k;
        continue;
      }
      k++;
      /* A flush or a failure elsewhere ends the run. */
      go_on = e->completed == GST_FLOW_OK && g_atomic_int_get (&q->accepting);
    }
    g_mutex_lock (&q->lock);
    publish_locked (q, run + done, k - done);
    /* What the run did not reach goes back, oldest first, for a drop to
     * free: only then has the element forgotten any batch that reads it. */
    g_mutex_lock (&q->inbound_lock);
    for (guint j = n; j > k; j--)
      g_queue_push_head (&q->inbound, run[j - 1]);
    g_mutex_unlock (&q->inbound_lock);
    q->completing = FALSE;
    WAKE (q, room); /* a drop or drain may wait for this */
  }
  q->results_done = TRUE;
  g_cond_broadcast (&q->room); /* a stop waits for this */
  g_mutex_unlock (&q->lock);
  return NULL;
}

void
gst_cuda_reduce_queue_start (
    GstCudaReduceQueue *q, guint depth, GstClockTime timeout)
{
  const gint ticks = gst_cuda_reduce_watchdog_ticks (timeout);
  g_mutex_lock (&q->lock);
  q->depth = depth;
  q->last_duration = q->pushed_duration = GST_CLOCK_TIME_NONE;
  q->quit = FALSE;
  g_mutex_unlock (&q->lock);
  /* Thread names are 15 bytes at most on Linux; a longer one is not set. */
  if (q->results_thread == NULL) {
    q->results_done = FALSE;
    q->results_thread = g_thread_new ("cudareduce-res", results_loop, q);
  }
  q->watch.ticks = ticks;
  if (ticks > 0)
    gst_cuda_reduce_watchdog_add (&q->watch);
}

void
gst_cuda_reduce_queue_stop (GstCudaReduceQueue *q)
{
  g_mutex_lock (&q->lock);
  q->quit = TRUE;
  wake_all (q);
  /* Until the results thread ends, or the watchdog gives up on it. */
  while (q->results_thread && !q->results_done && !q->abandoned)
    WAIT (q, room);
  const gboolean abandoned = q->abandoned;
  g_mutex_unlock (&q->lock);
  gst_cuda_reduce_watchdog_remove (&q->watch);
  if (q->results_thread && abandoned) {
    /* Inside the driver, maybe for good: let it go. */
    GST_WARNING ("leaving a results thread that waits for the GPU");
    g_thread_unref (q->results_thread);
  } else if (q->results_thread) {
    g_thread_join (q->results_thread);
    /* Not on the pad: the last stop comes from the element's finalize,
     * after its pads are gone. */
    GST_DEBUG ("waits: %" G_GUINT64_FORMAT " for work, %" G_GUINT64_FORMAT
               " for completed entries, %" G_GUINT64_FORMAT " for room",
        q->waits_work, q->waits_ready, q->waits_room);
  }
  q->results_thread = NULL;
  q->waits_work = q->waits_ready = q->waits_room = 0;
  gst_cuda_reduce_queue_drop (q);
}

guint
gst_cuda_reduce_queue_get_depth (GstCudaReduceQueue *q)
{
  g_mutex_lock (&q->lock);
  guint depth = q->depth;
  g_mutex_unlock (&q->lock);
  return depth;
}

/* Only the streaming thread adds to in_flight, so what it reads is never
 * too low. */
gboolean
gst_cuda_reduce_queue_has_room (GstCudaReduceQueue *q)
{
  return g_atomic_int_get (&q->accepting)
      && g_atomic_int_get (&q->in_flight) < (gint)q->depth;
}

GstFlowReturn
gst_cuda_reduce_queue_wait_for_room (GstCudaReduceQueue *q, gboolean joins)
{
  /* Without the lock while there is room, which is nearly always. */
  if (joins ? g_atomic_int_get (&q->accepting)
            : gst_cuda_reduce_queue_has_room (q))
    return GST_FLOW_OK;
  g_mutex_lock (&q->lock);
  while (!q->flushing && q->flow == GST_FLOW_OK && !joins
      && g_atomic_int_get (&q->in_flight) >= (gint)q->depth)
    WAIT (q, room);
  GstFlowReturn ret = q->flushing ? GST_FLOW_FLUSHING : q->flow;
  g_mutex_unlock (&q->lock);
  return ret;
}

/* The source pad's task: pushes the completed entries, taken together. */
static void
push_loop (gpointer data)
{
  GstCudaReduceQueue *q = data;
  GQueue run = G_QUEUE_INIT;
  Entry *e;

  g_mutex_lock (&q->lock);
  while (!q->flushing && g_queue_is_empty (&q->completed) && q->eos == NULL)
    WAIT (q, ready);
  if (q->flushing) {
    g_atomic_int_set (&q->task_started, 0);
    g_mutex_unlock (&q->lock);
    gst_pad_pause_task (q->pad);
    return;
  }
  if (g_queue_is_empty (&q->completed)) {
    /* After the items completed before it; nothing comes after it. */
    GstEvent *eos = g_steal_pointer (&q->eos);
    g_atomic_int_set (&q->task_started, 0);
    g_mutex_unlock (&q->lock);
    gst_pad_push_event (q->pad, eos);
    gst_pad_pause_task (q->pad);
    return;
  }
  run = q->completed;
  g_queue_init (&q->completed);
  g_mutex_unlock (&q->lock);

  GstFlowReturn ret = GST_FLOW_OK;
  guint cost = 0, n = 0;
  while ((e = g_queue_pop_head (&run)) != NULL) {
    /* After a failure the rest are freed, not pushed. */
    GstFlowReturn pushed = q->funcs.push (
        e->item, ret == GST_FLOW_OK ? e->completed : ret, q->user_data);
    if (ret == GST_FLOW_OK)
      ret = pushed;
    cost += e->cost;
    n++;
    g_free (e);
  }

  g_atomic_int_add (&q->in_flight, -(gint)cost);
  g_atomic_int_add (&q->unfinished, -(gint)n);
  g_mutex_lock (&q->lock);
  if (ret != GST_FLOW_OK && q->flow == GST_FLOW_OK) {
    q->flow = ret;
    wake_all (q);
  }
  if (ret != GST_FLOW_OK)
    g_atomic_int_set (&q->task_started, 0);
  WAKE (q, room);
  g_mutex_unlock (&q->lock);
  if (ret != GST_FLOW_OK) {
    GST_DEBUG_OBJECT (q->pad, "pausing: %s", gst_flow_get_name (ret));
    gst_pad_pause_task (q->pad);
  }
}

GstFlowReturn
gst_cuda_reduce_queue_push (
    GstCudaReduceQueue *q, gpointer item, guint cost, GstClockTime duration)
{
  /* While flushing (or after a failure) an item is taken all the same and
   * freed by the drop that ends the flush (or the stream), not here: the
   * results thread may be handing it the job of a batch it launches. */
  GstFlowReturn ret = GST_FLOW_OK;
  if (!g_atomic_int_get (&q->accepting)) {
    g_mutex_lock (&q->lock);
    if (q->flushing)
      ret = GST_FLOW_FLUSHING;
    g_mutex_unlock (&q->lock);
  }
  Entry *e = g_new0 (Entry, 1);
  e->item = item;
  e->cost = cost;
  g_atomic_int_add (&q->unfinished, 1);
  g_atomic_int_add (&q->in_flight, cost);
  g_mutex_lock (&q->inbound_lock);
  g_queue_push_tail (&q->inbound, e);
  g_mutex_unlock (&q->inbound_lock);
  if (GST_CLOCK_TIME_IS_VALID (duration) && duration != q->pushed_duration) {
    q->pushed_duration = duration;
    g_mutex_lock (&q->lock);
    q->last_duration = duration;
    g_mutex_unlock (&q->lock);
  }
  if (g_atomic_int_get (&q->results_idle)) {
    g_mutex_lock (&q->lock);
    WAKE (q, work);
    g_mutex_unlock (&q->lock);
  }
  /* Started on the first item and again after a flush or an error paused
   * it (a task pauses itself only when items are refused anyway). */
  if (ret == GST_FLOW_OK && !g_atomic_int_get (&q->task_started)) {
    g_atomic_int_set (&q->task_started, 1);
    gst_pad_start_task (q->pad, push_loop, q, NULL);
  }
  return ret;
}

void
gst_cuda_reduce_queue_drain (GstCudaReduceQueue *q)
{
  g_mutex_lock (&q->lock);
  while (!q->flushing && q->flow == GST_FLOW_OK
      && g_atomic_int_get (&q->unfinished) > 0)
    WAIT (q, room);
  g_mutex_unlock (&q->lock);
}

void
gst_cuda_reduce_queue_drop (GstCudaReduceQueue *q)
{
  Entry *e;
  g_mutex_lock (&q->lock);
  /* The results thread may hold a run: it is ours to free only once it is
   * done with it. */
  while (q->completing && !q->abandoned)
    WAIT (q, room);
  if (q->abandoned) {
    /* Freeing an item waits for the GPU to be done with its memory, which
     * it may never be: the items are left, and never read again. */
    g_mutex_lock (&q->inbound_lock);
    while ((e = g_queue_pop_head (&q->inbound)) != NULL)
      g_free (e);
    g_mutex_unlock (&q->inbound_lock);
    while ((e = g_queue_pop_head (&q->completed)) != NULL)
      g_free (e);
    gst_clear_event (&q->eos);
    wake_all (q);
    g_mutex_unlock (&q->lock);
    return;
  }
  g_mutex_lock (&q->inbound_lock);
  GQueue inbound = q->inbound;
  g_queue_init (&q->inbound);
  g_mutex_unlock (&q->inbound_lock);
  while ((e = g_queue_pop_head (&inbound)) != NULL)
    forget (q, e);
  while ((e = g_queue_pop_head (&q->completed)) != NULL)
    forget (q, e);
  wake_all (q);
  g_mutex_unlock (&q->lock);
}

void
gst_cuda_reduce_queue_fail (GstCudaReduceQueue *q)
{
  g_mutex_lock (&q->lock);
  if (q->flow == GST_FLOW_OK)
    q->flow = GST_FLOW_ERROR;
  wake_all (q);
  g_mutex_unlock (&q->lock);
}

void
gst_cuda_reduce_queue_flush_start (GstCudaReduceQueue *q)
{
  g_mutex_lock (&q->lock);
  q->flushing = TRUE;
  /* The element pauses the task. */
  g_atomic_int_set (&q->task_started, 0);
  wake_all (q);
  g_mutex_unlock (&q->lock);
}

void
gst_cuda_reduce_queue_flush_stop (GstCudaReduceQueue *q)
{
  gst_cuda_reduce_queue_drop (q);
  g_mutex_lock (&q->lock);
  q->flushing = FALSE;
  q->flow = q->abandoned ? GST_FLOW_ERROR : GST_FLOW_OK;
  update_accepting (q);
  g_mutex_unlock (&q->lock);
}

void
gst_cuda_reduce_queue_activate (GstCudaReduceQueue *q, gboolean active)
{
  g_mutex_lock (&q->lock);
  q->flushing = !active;
  q->flow = q->abandoned ? GST_FLOW_ERROR : GST_FLOW_OK;
  if (!active)
    g_atomic_int_set (&q->task_started, 0);
  wake_all (q);
  g_mutex_unlock (&q->lock);
  if (!active) {
    gst_pad_stop_task (q->pad);
    g_mutex_lock (&q->lock);
    gst_clear_event (&q->eos);
    g_mutex_unlock (&q->lock);
  }
}

GstClockTime
gst_cuda_reduce_queue_held (GstCudaReduceQueue *q, guint per_launch)
{
  g_mutex_lock (&q->lock);
  const GstClockTime duration = q->last_duration;
  const guint64 buffers = (guint64)q->depth * per_launch;
  g_mutex_unlock (&q->lock);
  if (!GST_CLOCK_TIME_IS_VALID (duration))
    return 0;
  /* A stream's durations come from upstream: anything at all. */
  if (buffers > 0 && duration > (GST_CLOCK_TIME_NONE - 1) / buffers)
    return GST_CLOCK_TIME_NONE;
  return duration * buffers;
}

gboolean
gst_cuda_reduce_queue_abandoned (GstCudaReduceQueue *q)
{
  g_mutex_lock (&q->lock);
  gboolean abandoned = q->abandoned;
  g_mutex_unlock (&q->lock);
  return abandoned;
}

gboolean
gst_cuda_reduce_queue_hand_off_eos (GstCudaReduceQueue *q, GstEvent *eos)
{
  g_mutex_lock (&q->lock);
  if (!q->abandoned) {
    g_mutex_unlock (&q->lock);
    return FALSE;
  }
  if (q->flushing || q->eos != NULL) {
    /* Flushed away, or a second EOS (a source sends one after its error,
     * and another when the application asks). */
    gst_event_unref (eos);
    g_mutex_unlock (&q->lock);
    return TRUE;
  }
  q->eos = eos;
  WAKE (q, ready);
  const gboolean start = !g_atomic_int_get (&q->task_started);
  g_atomic_int_set (&q->task_started, 1);
  g_mutex_unlock (&q->lock);
  if (start)
    gst_pad_start_task (q->pad, push_loop, q, NULL);
  return TRUE;
}
