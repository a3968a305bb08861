/* test-pages.c: the set of registered pages (gstcudareduce-pages.c), which
 * keeps the element from asking the driver to register a page twice. Its
 * ranges are addresses only: nothing here is read or written. */
#include "gstcudareduce-pages.h"

#include <gst/check/gstcheck.h>
#include <stdint.h>

#define PAGE 4096

static gconstpointer
at (guintptr address)
{
  return (gconstpointer)address;
}

/* Buffers as glibc's heap hands them out: each a few bytes after the last,
 * so that neighbours share their first and last pages. */
GST_START_TEST (test_pages_shared_with_a_neighbour_are_refused)
{
  GstCudaReducePages *pages = gst_cuda_reduce_pages_new (PAGE);
  const gsize size = 4 * 1024 * 1024 + 16;
  const guintptr base = 0x7f0000000000 + 64;

  /* Every other buffer: none of them shares a page with another. */
  for (guint k = 0; k < 6; k += 2)
    fail_unless (
        gst_cuda_reduce_pages_claim (pages, at (base + k * (size + 32)), size),
        "buffer %u", k);
  /* Those between share a page with both neighbours. */
  for (guint k = 1; k < 6; k += 2)
    fail_if (
        gst_cuda_reduce_pages_claim (pages, at (base + k * (size + 32)), size),
        "buffer %u", k);
  fail_unless_equals_int (gst_cuda_reduce_pages_count (pages), 3);
  /* The same range twice, one inside another, one around all of them. */
  fail_if (gst_cuda_reduce_pages_claim (pages, at (base), size));
  fail_if (gst_cuda_reduce_pages_claim (pages, at (base + PAGE * 3), 1));
  fail_if (gst_cuda_reduce_pages_claim (pages, at (base - 64), size * 8));
  fail_unless_equals_int (gst_cuda_reduce_pages_count (pages), 3);

  /* Once its neighbours are released, a buffer's pages are free. */
  gst_cuda_reduce_pages_release (pages, at (base), size);
  gst_cuda_reduce_pages_release (pages, at (base + 2 * (size + 32)), size);
  fail_unless (
      gst_cuda_reduce_pages_claim (pages, at (base + size + 32), size));
  fail_unless_equals_int (gst_cuda_reduce_pages_count (pages), 2);
  gst_cuda_reduce_pages_free (pages);
}

GST_END_TEST;

/* Ranges that meet at a page boundary share no page; one byte more does. */
GST_START_TEST (test_pages_edges)
{
  GstCudaReducePages *pages = gst_cuda_reduce_pages_new (PAGE);
  const guintptr p = 0x10000000;

  fail_unless (gst_cuda_reduce_pages_claim (pages, at (p), 2 * PAGE));
  fail_unless (gst_cuda_reduce_pages_claim (pages, at (p + 2 * PAGE), PAGE));
  fail_unless (gst_cuda_reduce_pages_claim (pages, at (p - PAGE), PAGE));
  fail_if (gst_cuda_reduce_pages_claim (pages, at (p + 3 * PAGE - 1), 2));
  fail_if (gst_cuda_reduce_pages_claim (pages, at (p - 1), 1));
  fail_unless (gst_cuda_reduce_pages_claim (pages, at (p + 3 * PAGE), 1));
  /* Nothing, and what runs past the end of the address space. */
  fail_if (gst_cuda_reduce_pages_claim (pages, at (p + 9 * PAGE), 0));
  fail_if (
      gst_cuda_reduce_pages_claim (pages, at (UINTPTR_MAX - PAGE), 2 * PAGE));
  fail_unless_equals_int (gst_cuda_reduce_pages_count (pages), 4);

  /* Claimed in any order, released in any order. */
  gst_cuda_reduce_pages_release (pages, at (p + 2 * PAGE), PAGE);
  gst_cuda_reduce_pages_release (pages, at (p - PAGE), PAGE);
  fail_unless (gst_cuda_reduce_pages_claim (pages, at (p + 2 * PAGE), 1));
  gst_cuda_reduce_pages_release (pages, at (p), 2 * PAGE);
  gst_cuda_reduce_pages_release (pages, at (p + 3 * PAGE), 1);
  gst_cuda_reduce_pages_release (pages, at (p + 2 * PAGE), 1);
  fail_unless_equals_int (gst_cuda_reduce_pages_count (pages), 0);
  gst_cuda_reduce_pages_free (pages);
}

GST_END_TEST;

/* Many claims in random order, against a page map kept here. */
GST_START_TEST (test_pages_against_a_map)
{
  enum { N_PAGES = 512, ROUNDS = 4000 };
  GstCudaReducePages *pages = gst_cuda_reduce_pages_new (PAGE);
  GRand *rand = g_rand_new_with_seed (g_random_int ());
  guint8 owner[N_PAGES] = { 0 }; /* 1 + the claim's index, or 0 */
  struct {
    guintptr start;
    gsize size;
    gboolean held;
  } claims[64] = { { 0 } };

  for (guint r = 0; r < ROUNDS; r++) {
    const guint c = g_rand_int_range (rand, 0, G_N_ELEMENTS (claims));
    if (claims[c].held) {
      gst_cuda_reduce_pages_release (
          pages, at (claims[c].start), claims[c].size);
      for (guint p = 0; p < N_PAGES; p++)
        if (owner[p] == c + 1)
          owner[p] = 0;
      claims[c].held = FALSE;
      continue;
    }
    const guintptr start = PAGE + g_rand_int_range (rand, 0, PAGE * 500);
    const gsize size = g_rand_int_range (rand, 1, PAGE * 8);
    gboolean free_ = TRUE;
    for (guintptr p = start / PAGE; p <= (start + size - 1) / PAGE; p++)
      free_ = free_ && owner[p] == 0;
    fail_unless_equals_int (
        gst_cuda_reduce_pages_claim (pages, at (start), size), free_);
    if (free_) {
      for (guintptr p = start / PAGE; p <= (start + size - 1) / PAGE; p++)
        owner[p] = c + 1;
      claims[c].start = start;
      claims[c].size = size;
      claims[c].held = TRUE;
    }
  }
  guint held = 0;
  for (guint c = 0; c < G_N_ELEMENTS (claims); c++)
    held += claims[c].held;
  fail_unless_equals_int (gst_cuda_reduce_pages_count (pages), held);
  g_rand_free (rand);
  gst_cuda_reduce_pages_free (pages);
}

GST_END_TEST;

static Suite *
pages_suite (void)
{
  Suite *s = suite_create ("pages");
  TCase *tc = tcase_create ("pages");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_pages_shared_with_a_neighbour_are_refused);
  tcase_add_test (tc, test_pages_edges);
  tcase_add_test (tc, test_pages_against_a_map);
  return s;
}

GST_CHECK_MAIN (pages);
