/* gstcudareduce-pages.h: which pages of the process are registered with
 * the CUDA driver.
 *
 * The driver registers whole pages, and plain host memory from the heap
 * shares pages with its neighbours: two buffers a few bytes apart, read by
 * two elements, would ask it to register the same page twice, from two
 * contexts, while a third thread unregisters the neighbour on the other
 * side. The driver should refuse the second; on the H200 (driver
 * 580.159.04) the process died inside cuMemHostRegister instead (SIGSEGV
 * at 0x48), in a registration that shared a page with one being
 * unregistered. So the element never asks: a range is registered only
 * when none of its pages is, and the set that says so is the one place
 * that knows. Not locked: its user holds one lock around it and the
 * driver's calls. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _GstCudaReducePages GstCudaReducePages;

/* An empty set of pages of @page_size bytes (a power of two). */
GstCudaReducePages *gst_cuda_reduce_pages_new (gsize page_size);
void gst_cuda_reduce_pages_free (GstCudaReducePages *pages);

/* Adds the pages that @size bytes at @start touch and returns TRUE, or
 * returns FALSE and adds nothing when one of them is in the set already.
 * @size 0 touches no page and is refused. */
gboolean gst_cuda_reduce_pages_claim (
    GstCudaReducePages *pages, gconstpointer start, gsize size);

/* Takes out what a claim of the same @start and @size added. */
void gst_cuda_reduce_pages_release (
    GstCudaReducePages *pages, gconstpointer start, gsize size);

/* How many claims the set holds. */
guint gst_cuda_reduce_pages_count (const GstCudaReducePages *pages);

G_END_DECLS
