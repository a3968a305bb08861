/* gstcudareduce-queue.c: the in-flight queue and the task that empties
 * it. */
#include "gstcudareduce-queue.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_reduce_debug);
#define GST_CAT_DEFAULT gst_cuda_reduce_debug

void
gst_cuda_reduce_queue_init (GstCudaReduceQueue *q, GstPad *pad,
    GstCudaReduceFinishFunc finish, GDestroyNotify free, gpointer user_data)
{
  q->pad = pad;
  q->finish = finish;
  q->free = free;
  q->user_data = user_data;
  g_mutex_init (&q->lock);
  g_cond_init (&q->changed);
  g_queue_init (&q->items);
  q->in_flight = 0;
  q->depth = 1;
  q->flushing = TRUE;
  q->flow = GST_FLOW_OK;
  q->last_duration = GST_CLOCK_TIME_NONE;
}

void
gst_cuda_reduce_queue_clear (GstCudaReduceQueue *q)
{
  gst_cuda_reduce_queue_drop (q);
  g_mutex_clear (&q->lock);
  g_cond_clear (&q->changed);
}

void
gst_cuda_reduce_queue_set_depth (GstCudaReduceQueue *q, guint depth)
{
  g_mutex_lock (&q->lock);
  q->depth = depth;
  q->last_duration = GST_CLOCK_TIME_NONE;
  g_mutex_unlock (&q->lock);
}

guint
gst_cuda_reduce_queue_get_depth (GstCudaReduceQueue *q)
{
  g_mutex_lock (&q->lock);
  guint depth = q->depth;
  g_mutex_unlock (&q->lock);
  return depth;
}

GstFlowReturn
gst_cuda_reduce_queue_wait_for_room (GstCudaReduceQueue *q)
{
  g_mutex_lock (&q->lock);
  while (!q->flushing && q->flow == GST_FLOW_OK && q->in_flight >= q->depth)
    g_cond_wait (&q->changed, &q->lock);
  GstFlowReturn ret = q->flushing ? GST_FLOW_FLUSHING : q->flow;
  g_mutex_unlock (&q->lock);
  return ret;
}

static void
loop (gpointer data)
{
  GstCudaReduceQueue *q = data;

  g_mutex_lock (&q->lock);
  while (!q->flushing && g_queue_is_empty (&q->items))
    g_cond_wait (&q->changed, &q->lock);
  if (q->flushing) {
    g_mutex_unlock (&q->lock);
    gst_pad_pause_task (q->pad);
    return;
  }
  gpointer item = g_queue_pop_head (&q->items);
  g_mutex_unlock (&q->lock);

  GstFlowReturn ret = q->finish (item, q->user_data);

  g_mutex_lock (&q->lock);
  q->in_flight--;
  if (ret != GST_FLOW_OK && q->flow == GST_FLOW_OK)
    q->flow = ret;
  g_cond_broadcast (&q->changed);
  g_mutex_unlock (&q->lock);
  if (ret != GST_FLOW_OK) {
    GST_DEBUG_OBJECT (q->pad, "pausing: %s", gst_flow_get_name (ret));
    gst_pad_pause_task (q->pad);
  }
}

GstFlowReturn
gst_cuda_reduce_queue_push (
    GstCudaReduceQueue *q, gpointer item, GstClockTime duration)
{
  g_mutex_lock (&q->lock);
  if (q->flushing) {
    g_mutex_unlock (&q->lock);
    q->free (item);
    return GST_FLOW_FLUSHING;
  }
  g_queue_push_tail (&q->items, item);
  q->in_flight++;
  if (GST_CLOCK_TIME_IS_VALID (duration))
    q->last_duration = duration;
  g_cond_broadcast (&q->changed);
  g_mutex_unlock (&q->lock);
  /* Started on the first item and again after a flush or an error paused
   * it; starting a started task does nothing. */
  gst_pad_start_task (q->pad, loop, q, NULL);
  return GST_FLOW_OK;
}

void
gst_cuda_reduce_queue_drain (GstCudaReduceQueue *q)
{
  g_mutex_lock (&q->lock);
  while (!q->flushing && q->flow == GST_FLOW_OK && q->in_flight > 0)
    g_cond_wait (&q->changed, &q->lock);
  g_mutex_unlock (&q->lock);
}

void
gst_cuda_reduce_queue_drop (GstCudaReduceQueue *q)
{
  gpointer item;
  g_mutex_lock (&q->lock);
  while ((item = g_queue_pop_head (&q->items)) != NULL) {
    q->free (item);
    q->in_flight--;
  }
  g_cond_broadcast (&q->changed);
  g_mutex_unlock (&q->lock);
}

void
gst_cuda_reduce_queue_fail (GstCudaReduceQueue *q)
{
  g_mutex_lock (&q->lock);
  q->flow = GST_FLOW_ERROR;
  g_cond_broadcast (&q->changed);
  g_mutex_unlock (&q->lock);
}

void
gst_cuda_reduce_queue_flush_start (GstCudaReduceQueue *q)
{
  g_mutex_lock (&q->lock);
  q->flushing = TRUE;
  g_cond_broadcast (&q->changed);
  g_mutex_unlock (&q->lock);
}

void
gst_cuda_reduce_queue_flush_stop (GstCudaReduceQueue *q)
{
  gst_cuda_reduce_queue_drop (q);
  g_mutex_lock (&q->lock);
  q->flushing = FALSE;
  q->flow = GST_FLOW_OK;
  g_mutex_unlock (&q->lock);
}

void
gst_cuda_reduce_queue_activate (GstCudaReduceQueue *q, gboolean active)
{
  g_mutex_lock (&q->lock);
  q->flushing = !active;
  q->flow = GST_FLOW_OK;
  g_cond_broadcast (&q->changed);
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
