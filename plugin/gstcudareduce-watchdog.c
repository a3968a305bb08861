/* gstcudareduce-watchdog.c: the process's watchdog thread. */
#include "gstcudareduce-watchdog.h"

#define TICK_US (100 * G_TIME_SPAN_MILLISECOND)

static GMutex lock;
static GCond cond; /* a watch added, or a callback returned */
static GList *watched; /* GstCudaReduceWatch */
static gint ticks; /* atomic */
static GThread *thread;
/* The watch whose callback runs, unlocked, on the watchdog's thread. */
static GstCudaReduceWatch *calling;

gint
gst_cuda_reduce_watchdog_ticks (GstClockTime timeout)
{
  if (timeout == 0)
    return 0;
  const guint64 n = (GST_TIME_AS_USECONDS (timeout) + TICK_US - 1) / TICK_US;
  return (gint)CLAMP (n, 1, G_MAXINT / 2);
}

/* The first watch whose wait is too long, marked fired; under lock. */
static GstCudaReduceWatch *
take_expired (gint now)
{
  for (GList *l = watched; l != NULL; l = l->next) {
    GstCudaReduceWatch *w = l->data;
    const gint since = g_atomic_int_get (&w->waiting_since);
    if (!w->fired && since != 0 && now - since >= w->ticks) {
      w->fired = TRUE;
      return w;
    }
  }
  return NULL;
}

static gpointer
watch_loop (gpointer data)
{
  gint64 next = g_get_monotonic_time () + TICK_US;

  g_mutex_lock (&lock);
  for (;;) {
    if (watched == NULL) {
      g_cond_wait (&cond, &lock);
      next = g_get_monotonic_time () + TICK_US;
      continue;
    }
    if (g_cond_wait_until (&cond, &lock, next))
      continue; /* woken, not a tick yet */
    next = g_get_monotonic_time () + TICK_US;
    const gint now = g_atomic_int_add (&ticks, 1) + 1;
    GstCudaReduceWatch *w;
    /* Called with the lock released: the callback posts an error, and a
     * bus sync handler may stop that element, or any other, right here. */
    while ((w = take_expired (now)) != NULL) {
      const GstClockTime waited =
          (GstClockTime)(now + 1 - g_atomic_int_get (&w->waiting_since))
          * TICK_US * GST_USECOND;
      calling = w;
      g_mutex_unlock (&lock);
      w->expired (waited, w->user_data);
      g_mutex_lock (&lock);
      calling = NULL;
      g_cond_broadcast (&cond);
    }
  }
  return NULL;
}

void
gst_cuda_reduce_watchdog_add (GstCudaReduceWatch *w)
{
  g_mutex_lock (&lock);
  if (g_list_find (watched, w) == NULL) {
    w->fired = FALSE;
    g_atomic_int_set (&w->waiting_since, 0);
    watched = g_list_prepend (watched, w);
    /* Never joined: it lives as long as the process. */
    if (thread == NULL)
      thread = g_thread_new ("cudareduce-wd", watch_loop, NULL);
    g_cond_broadcast (&cond);
  }
  g_mutex_unlock (&lock);
}

void
gst_cuda_reduce_watchdog_remove (GstCudaReduceWatch *w)
{
  g_mutex_lock (&lock);
  watched = g_list_remove (watched, w);
  /* A stop from the callback itself must not wait for it. */
  while (calling == w && g_thread_self () != thread)
    g_cond_wait (&cond, &lock);
  g_mutex_unlock (&lock);
}

void
gst_cuda_reduce_watchdog_mark (GstCudaReduceWatch *w, gboolean waits)
{
  g_atomic_int_set (
      &w->waiting_since, waits ? g_atomic_int_get (&ticks) + 1 : 0);
}
