/* bench-queue.c: what the element's in-flight queue costs a buffer, with
 * nothing else: items that take no time to complete or push go from this
 * thread through the results thread and the source pad's task, as buffers
 * do, at async-depth 8, each item its own launch or sharing one with 3, 15
 * or 63 others. Needs no GPU.
 *
 *   bench-queue [--items N]
 *
 * Prints microseconds and items per second for each sharing, the median of
 * 5 runs. */
#include "gstcudareduce-queue.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

GST_DEBUG_CATEGORY (gst_cuda_reduce_debug);

static GstFlowReturn
complete (gpointer item, gboolean may_wait, gpointer data, GError **error)
{
  return GST_FLOW_OK;
}

static GstFlowReturn
push (gpointer item, GstFlowReturn completed, gpointer data)
{
  return completed;
}

static void
free_item (gpointer item)
{
}

static int
by_value (const void *a, const void *b)
{
  const gdouble x = *(const gdouble *)a, y = *(const gdouble *)b;
  return (x > y) - (x < y);
}

/* Microseconds an item, @n items, @shared to a launch. */
static gdouble
run (GstCudaReduceQueue *q, guint n, guint shared)
{
  gint64 start = g_get_monotonic_time ();
  for (guint k = 0; k < n; k++) {
    const guint cost = k % shared == 0;
    gst_cuda_reduce_queue_wait_for_room (q, cost == 0);
    gst_cuda_reduce_queue_push (q, GUINT_TO_POINTER (k + 1), cost, 10);
  }
  gst_cuda_reduce_queue_drain (q);
  return (g_get_monotonic_time () - start) / (gdouble)n;
}

int
main (int argc, char **argv)
{
  static const guint sharing[] = { 1, 4, 16, 64 };
  const GstCudaReduceQueueFuncs funcs = { complete, push, free_item };
  guint n = 200000;

  gst_init (&argc, &argv);
  for (int k = 1; k < argc; k++)
    if (strcmp (argv[k], "--items") == 0 && k + 1 < argc)
      n = (guint)atoi (argv[++k]);

  GstPad *pad = gst_pad_new ("src", GST_PAD_SRC);
  GstCudaReduceQueue q;
  gst_cuda_reduce_queue_init (&q, pad, &funcs, NULL);
  gst_cuda_reduce_queue_start (&q, 8, 0);
  gst_cuda_reduce_queue_activate (&q, TRUE);
  printf ("queue of depth 8, %u items a run, %u CPUs, median of 5 runs\n", n,
      g_get_num_processors ());
  for (guint s = 0; s < G_N_ELEMENTS (sharing); s++) {
    gdouble us[5];
    for (guint r = 0; r < G_N_ELEMENTS (us); r++)
      us[r] = run (&q, n, sharing[s]);
    qsort (us, G_N_ELEMENTS (us), sizeof us[0], by_value);
    printf ("  %2u items a launch: %6.2f us an item, %8.0f items/s\n",
        sharing[s], us[2], 1e6 / us[2]);
  }
  gst_cuda_reduce_queue_activate (&q, FALSE);
  gst_cuda_reduce_queue_clear (&q);
  gst_object_unref (pad);
  return 0;
}
