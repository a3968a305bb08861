/* gstcudareduce-pages.c: the process's registered pages, as a sorted
 * array of page ranges that never overlap. */
#include "gstcudareduce-pages.h"

typedef struct {
  guintptr first, end; /* page numbers, end excluded */
} PageRange;

struct _GstCudaReducePages {
  gsize page_size;
  GArray *ranges; /* PageRange, by first */
};

GstCudaReducePages *
gst_cuda_reduce_pages_new (gsize page_size)
{
  g_return_val_if_fail (
      page_size > 0 && (page_size & (page_size - 1)) == 0, NULL);
  GstCudaReducePages *pages = g_new0 (GstCudaReducePages, 1);
  pages->page_size = page_size;
  pages->ranges = g_array_new (FALSE, FALSE, sizeof (PageRange));
  return pages;
}

void
gst_cuda_reduce_pages_free (GstCudaReducePages *pages)
{
  if (pages == NULL)
    return;
  g_array_unref (pages->ranges);
  g_free (pages);
}

/* The pages @size bytes at @start touch; FALSE for none, or for a range
 * that runs past the end of the address space. */
static gboolean
page_range (const GstCudaReducePages *pages, gconstpointer start, gsize size,
    PageRange *out)
{
  const guintptr first = (guintptr)start;
  if (size == 0 || first + size - 1 < first)
    return FALSE;
  out->first = first / pages->page_size;
  out->end = (first + size - 1) / pages->page_size + 1;
  return TRUE;
}

/* The index of the first range that ends after @page: where a range
 * holding @page, or the first after it, is. */
static guint
first_ending_after (const GstCudaReducePages *pages, guintptr page)
{
  guint lo = 0, hi = pages->ranges->len;
  while (lo < hi) {
    const guint mid = lo + (hi - lo) / 2;
    if (g_array_index (pages->ranges, PageRange, mid).end <= page)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

gboolean
gst_cuda_reduce_pages_claim (
    GstCudaReducePages *pages, gconstpointer start, gsize size)
{
  PageRange r;
  if (!page_range (pages, start, size, &r))
    return FALSE;
  const guint at = first_ending_after (pages, r.first);
  if (at < pages->ranges->len
      && g_array_index (pages->ranges, PageRange, at).first < r.end)
    return FALSE;
  g_array_insert_val (pages->ranges, at, r);
  return TRUE;
}

void
gst_cuda_reduce_pages_release (
    GstCudaReducePages *pages, gconstpointer start, gsize size)
{
  PageRange r;
  if (!page_range (pages, start, size, &r))
    return;
  const guint at = first_ending_after (pages, r.first);
  if (at < pages->ranges->len) {
    const PageRange *have = &g_array_index (pages->ranges, PageRange, at);
    if (have->first == r.first && have->end == r.end) {
      g_array_remove_index (pages->ranges, at);
      return;
    }
  }
  g_critical (
      "pages %p + %" G_GSIZE_FORMAT " released, never claimed", start, size);
}

guint
gst_cuda_reduce_pages_count (const GstCudaReducePages *pages)
{
  return pages->ranges->len;
}
