/* gstcudareduce-queue.c: the in-flight queue, its results thread and the
 * source pad's task. */
#include "gstcudareduce-queue.h"

#include <string.h>

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_reduce_debug);
#define GST_CAT_DEFAULT gst_cuda_reduce_debug

typedef struct {
  gpointer item;
  guint cost;
  gboolean completed;
  GstFlowReturn result; /* of completing it */
} Entry;

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
  g_mutex_init (&q->lock);
  g_cond_init (&q->work);
  g_cond_init (&q->ready);
  g_cond_init (&q->room);
  g_queue_init (&q->entries);
  q->depth = 1;
  q->flushing = TRUE;
  q->flow = GST_FLOW_OK;
  update_accepting (q);
  q->last_duration = GST_CLOCK_TIME_NONE;
}

void
gst_cuda_reduce_queue_clear (GstCudaReduceQueue *q)
{
  gst_cuda_reduce_queue_stop (q);
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

/* The most entries the results thread takes at once: a batch's worth. */
#define RUN_MAX 64

/* Marks @n entries of a run completed (their results set) and wakes the
 * task. Under lock. Whether the run may go on. */
static gboolean
publish_locked (GstCudaReduceQueue *q, Entry **run, guint n)
{
  for (guint k = 0; k < n; k++) {
    run[k]->completed = TRUE;
    q->next_to_complete = q->next_to_complete->next;
    if (run[k]->result != GST_FLOW_OK && q->flow == GST_FLOW_OK) {
      q->flow = run[k]->result;
      wake_all (q);
    }
  }
  if (n > 0)
    WAKE (q, ready);
  return !q->quit && !q->flushing && q->flow == GST_FLOW_OK;
}

/* The results thread: completes entries in order, whoever pushes them.
 * Each run is the entries pushed so far; what completes without waiting
 * for the GPU is handed to the task together. */
static gpointer
results_loop (gpointer data)
{
  GstCudaReduceQueue *q = data;
  Entry *run[RUN_MAX];

  g_mutex_lock (&q->lock);
  while (!q->quit) {
    if (q->flushing || q->flow != GST_FLOW_OK || q->next_to_complete == NULL) {
      WAIT (q, work);
      continue;
    }
    guint n = 0;
    for (GList *l = q->next_to_complete; l && n < RUN_MAX; l = l->next)
      run[n++] = l->data;
    q->completing = TRUE;
    g_mutex_unlock (&q->lock);

    /* The entries of the run are ours until published: the task pushes
     * only completed ones, and a drop waits for completing to end. */
    guint done = 0, k = 0;
    gboolean go_on = TRUE;
    while (go_on && k < n) {
      Entry *e = run[k];
      e->result = q->funcs.complete (e->item, k == done, q->user_data);
      if (e->result == GST_CUDA_REDUCE_QUEUE_WOULD_WAIT) {
        g_mutex_lock (&q->lock);
        go_on = publish_locked (q, run + done, k - done);
        g_mutex_unlock (&q->lock);
        done = k;
        continue;
      }
      k++;
      /* A flush or a failure elsewhere ends the run: the rest is dropped
       * uncompleted, as the queue's other entries are. */
      go_on = e->result == GST_FLOW_OK && g_atomic_int_get (&q->accepting);
    }

    g_mutex_lock (&q->lock);
    publish_locked (q, run + done, k - done);
    q->completing = FALSE;
    WAKE (q, room); /* a drop waits for completing to end */
  }
  g_mutex_unlock (&q->lock);
  return NULL;
}

void
gst_cuda_reduce_queue_start (GstCudaReduceQueue *q, guint depth)
{
  g_mutex_lock (&q->lock);
  q->depth = depth;
  q->last_duration = GST_CLOCK_TIME_NONE;
  q->quit = FALSE;
  g_mutex_unlock (&q->lock);
  if (q->results_thread == NULL)
    q->results_thread = g_thread_new ("cudareduce-results", results_loop, q);
}

void
gst_cuda_reduce_queue_stop (GstCudaReduceQueue *q)
{
  g_mutex_lock (&q->lock);
  q->quit = TRUE;
  wake_all (q);
  g_mutex_unlock (&q->lock);
  if (q->results_thread) {
    g_thread_join (q->results_thread);
    /* Not on the pad: the last stop comes from the element's finalize,
     * after its pads are gone. */
    GST_DEBUG ("waits: %" G_GUINT64_FORMAT " for work, %" G_GUINT64_FORMAT
               " for a completed head, %" G_GUINT64_FORMAT " for room",
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
  if (g_atomic_int_get (&q->accepting)
      && (joins || g_atomic_int_get (&q->in_flight) < (gint)q->depth))
    return GST_FLOW_OK;
  g_mutex_lock (&q->lock);
  while (!q->flushing && q->flow == GST_FLOW_OK && !joins
      && q->in_flight >= (gint)q->depth)
    WAIT (q, room);
  GstFlowReturn ret = q->flushing ? GST_FLOW_FLUSHING : q->flow;
  g_mutex_unlock (&q->lock);
  return ret;
}

/* The source pad's task: pushes the completed entries at the head, taken
 * together. */
static void
push_loop (gpointer data)
{
  GstCudaReduceQueue *q = data;
  GQueue run = G_QUEUE_INIT;
  Entry *e;

  g_mutex_lock (&q->lock);
  while (!q->flushing
      && ((e = g_queue_peek_head (&q->entries)) == NULL || !e->completed))
    WAIT (q, ready);
  if (q->flushing) {
    q->task_started = FALSE;
    g_mutex_unlock (&q->lock);
    gst_pad_pause_task (q->pad);
    return;
  }
  while ((e = g_queue_peek_head (&q->entries)) != NULL && e->completed)
    g_queue_push_tail (&run, g_queue_pop_head (&q->entries));
  g_mutex_unlock (&q->lock);

  GstFlowReturn ret = GST_FLOW_OK;
  guint cost = 0, n = 0;
  while ((e = g_queue_pop_head (&run)) != NULL) {
    /* After a failure the rest are freed, not pushed. */
    GstFlowReturn pushed = q->funcs.push (
        e->item, ret == GST_FLOW_OK ? e->result : ret, q->user_data);
    if (ret == GST_FLOW_OK)
      ret = pushed;
    cost += e->cost;
    n++;
    g_free (e);
  }

  g_mutex_lock (&q->lock);
  g_atomic_int_add (&q->in_flight, -(gint)cost);
  q->unfinished -= n;
  if (ret != GST_FLOW_OK && q->flow == GST_FLOW_OK) {
    q->flow = ret;
    wake_all (q);
  }
  if (ret != GST_FLOW_OK)
    q->task_started = FALSE;
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
  g_mutex_lock (&q->lock);
  if (q->flushing) {
    g_mutex_unlock (&q->lock);
    q->funcs.free (item);
    return GST_FLOW_FLUSHING;
  }
  Entry *e = g_new0 (Entry, 1);
  e->item = item;
  e->cost = cost;
  g_queue_push_tail (&q->entries, e);
  q->unfinished++;
  if (q->next_to_complete == NULL)
    q->next_to_complete = q->entries.tail;
  g_atomic_int_add (&q->in_flight, cost);
  if (GST_CLOCK_TIME_IS_VALID (duration))
    q->last_duration = duration;
  WAKE (q, work);
  /* Started on the first item and again after a flush or an error paused
   * it (a task pauses itself only when items are refused anyway). */
  gboolean start = !q->task_started;
  q->task_started = TRUE;
  g_mutex_unlock (&q->lock);
  if (start)
    gst_pad_start_task (q->pad, push_loop, q, NULL);
  return GST_FLOW_OK;
}

void
gst_cuda_reduce_queue_drain (GstCudaReduceQueue *q)
{
  g_mutex_lock (&q->lock);
  while (!q->flushing && q->flow == GST_FLOW_OK && q->unfinished > 0)
    WAIT (q, room);
  g_mutex_unlock (&q->lock);
}

void
gst_cuda_reduce_queue_drop (GstCudaReduceQueue *q)
{
  Entry *e;
  g_mutex_lock (&q->lock);
  /* The results thread may be completing the next entry: it is ours to
   * free only once it is done with it. */
  while (q->completing)
    WAIT (q, room);
  while ((e = g_queue_pop_head (&q->entries)) != NULL) {
    q->funcs.free (e->item);
    g_atomic_int_add (&q->in_flight, -(gint)e->cost);
    q->unfinished--;
    g_free (e);
  }
  q->next_to_complete = NULL;
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
  q->task_started = FALSE;
  wake_all (q);
  g_mutex_unlock (&q->lock);
}

void
gst_cuda_reduce_queue_flush_stop (GstCudaReduceQueue *q)
{
  gst_cuda_reduce_queue_drop (q);
  g_mutex_lock (&q->lock);
  q->flushing = FALSE;
  q->flow = GST_FLOW_OK;
  update_accepting (q);
  g_mutex_unlock (&q->lock);
}

void
gst_cuda_reduce_queue_activate (GstCudaReduceQueue *q, gboolean active)
{
  g_mutex_lock (&q->lock);
  q->flushing = !active;
  q->flow = GST_FLOW_OK;
  if (!active)
    q->task_started = FALSE;
  wake_all (q);
  g_mutex_unlock (&q->lock);
  if (!active)
    gst_pad_stop_task (q->pad);
}

GstClockTime
gst_cuda_reduce_queue_held (GstCudaReduceQueue *q)
{
  g_mutex_lock (&q->lock);
  GstClockTime held = GST_CLOCK_TIME_IS_VALID (q->last_duration)
      ? q->last_duration * q->depth
      : 0;
  g_mutex_unlock (&q->lock);
  return held;
}
