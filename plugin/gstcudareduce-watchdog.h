/* gstcudareduce-watchdog.h: one thread for the process that gives up on
 * waits for the GPU lasting longer than their timeout.
 *
 * A wait is marked with the tick it began in, not a clock reading, so
 * that the thread that waits pays an atomic store for it. */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

typedef struct {
  /* Set before gst_cuda_reduce_watchdog_add(), then constant. Called once,
   * from the watchdog's thread with none of its locks held, when a marked
   * wait lasted @ticks ticks or more (@waited, at least that). */
  void (*expired) (GstClockTime waited, gpointer user_data);
  gpointer user_data;
  gint ticks; /* the timeout, in ticks; at least 1 */

  /* The watchdog's. */
  gint waiting_since; /* atomic: the tick a wait began in, plus one; or 0 */
  gboolean fired;
} GstCudaReduceWatch;

/* The timeout @timeout in ticks (0 for none: not watched). */
gint gst_cuda_reduce_watchdog_ticks (GstClockTime timeout);

/* Watches @watch until removed. */
void gst_cuda_reduce_watchdog_add (GstCudaReduceWatch *watch);
/* Stops watching @watch: once this returns, its expired callback neither
 * runs nor will, except where it is called from that callback (a stop
 * from a bus sync handler), which may go on. */
void gst_cuda_reduce_watchdog_remove (GstCudaReduceWatch *watch);

/* Around a wait for the GPU, on the waiting thread. */
void gst_cuda_reduce_watchdog_mark (GstCudaReduceWatch *watch, gboolean waits);

G_END_DECLS
