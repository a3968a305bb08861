/* test-memory.c: the element's answer to an ALLOCATION query, without a
 * GPU (the pool's configuration), and the reuse of its pinned memory, on
 * the fake driver (GST_CUDAREDUCE_DRIVER_LIBRARY). */
#include "cr-test-leaks.h"
#include "cr-test-util.h"
#include "gstcudareduce-memory.h"

#include "cr-device.h"

#include <string.h>

/* Answers a query for a pool of @frame_bytes buffers with the system
 * allocator standing in for the pinned one. */
static GstQuery *
proposed (gsize frame_bytes)
{
  g_autoptr (GstCaps) caps = cr_test_tensor_caps (CR_TYPE_UINT8, 16);
  GstQuery *query = gst_query_new_allocation (caps, TRUE);
  GstAllocator *allocator = gst_allocator_find (NULL);
  gst_cuda_reduce_memory_propose (query, allocator, FALSE, frame_bytes, 9);
  gst_object_unref (allocator);
  return query;
}

GST_START_TEST (test_memory_pool_of_frame_size)
{
  g_autoptr (GstQuery) query = proposed (1 << 20);
  GstBufferPool *pool = NULL;
  guint size = 0, min = 0, max = 0;

  fail_unless_equals_int (gst_query_get_n_allocation_params (query), 1);
  fail_unless_equals_int (gst_query_get_n_allocation_pools (query), 1);
  gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
  fail_unless_equals_int (size, 1 << 20);
  fail_unless_equals_int (min, 9);
  gst_object_unref (pool);
}

GST_END_TEST;

/* A pool's configuration holds a guint size: frames of 4 GiB and more get
 * no pool (upstream allocates them from the allocator) rather than one of
 * the size's low 32 bits (16 bytes here). */
GST_START_TEST (test_memory_no_pool_over_guint)
{
  static const gsize sizes[] = { (gsize)G_MAXUINT + 17, (gsize)G_MAXUINT + 1,
    (gsize)1 << 40 };
  for (guint k = 0; k < G_N_ELEMENTS (sizes); k++) {
    g_autoptr (GstQuery) query = proposed (sizes[k]);
    fail_unless_equals_int (gst_query_get_n_allocation_params (query), 1);
    for (guint p = 0; p < gst_query_get_n_allocation_pools (query); p++) {
      guint size = 0;
      gst_query_parse_nth_allocation_pool (query, p, NULL, &size, NULL, NULL);
      fail_unless (size == sizes[k],
          "a pool of %u-byte buffers for %" G_GSIZE_FORMAT "-byte frames", size,
          sizes[k]);
    }
  }
  /* The largest a pool holds still gets one. */
  g_autoptr (GstQuery) largest = proposed (G_MAXUINT);
  fail_unless_equals_int (gst_query_get_n_allocation_pools (largest), 1);
}

GST_END_TEST;

/* Freed pinned blocks are reused, however many were out at once: a burst
 * of hundreds of small buffers in flight, freed together, is pinned once,
 * not again for every burst. Mixed sizes find their own. */
GST_START_TEST (test_memory_reuse_after_bursts)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CrDevice) device = cr_device_open (-1, &error);
  fail_unless (device != NULL, "%s", error ? error->message : "");
  GstAllocator *allocator = gst_cuda_reduce_host_allocator_new (device);
  enum { BURST = 700 };
  static const gsize sizes[] = { 4096, 65536, 4096 + 17 };
  GstMemory *out[BURST];

  for (guint round = 0; round < 3; round++) {
    for (guint k = 0; k < BURST; k++) {
      out[k] = gst_allocator_alloc (
          allocator, sizes[k % G_N_ELEMENTS (sizes)], NULL);
      fail_unless (out[k] != NULL);
    }
    for (guint k = 0; k < BURST; k++)
      gst_memory_unref (out[k]);
    fail_unless_equals_uint64 (
        gst_cuda_reduce_host_allocator_pinned (allocator), BURST);
  }
  /* Sizes a little apart share blocks: 12,305 and 12,788 bytes both take
   * four pages, 70,000 and 80,000 both 80 KiB. */
  static const gsize near[][2] = { { 3 * 4096 + 17, 3 * 4096 + 500 },
    { 70000, 80000 } };
  for (guint n = 0; n < G_N_ELEMENTS (near); n++) {
    const guint64 before = gst_cuda_reduce_host_allocator_pinned (allocator);
    for (guint round = 0; round < 2; round++) {
      for (guint k = 0; k < 50; k++)
        out[k] = gst_allocator_alloc (allocator, near[n][round], NULL);
      for (guint k = 0; k < 50; k++) {
        GstMapInfo map;
        fail_unless (gst_memory_map (out[k], &map, GST_MAP_WRITE));
        fail_unless_equals_uint64 (map.size, near[n][round]);
        memset (map.data, 0xa5, map.size);
        gst_memory_unmap (out[k], &map);
        gst_memory_unref (out[k]);
      }
    }
    fail_unless_equals_uint64 (
        gst_cuda_reduce_host_allocator_pinned (allocator), before + 50);
  }
  gst_object_unref (allocator);
}

GST_END_TEST;

static Suite *
memory_suite (void)
{
  Suite *s = suite_create ("memory");
  TCase *tc = tcase_create ("memory");
  cr_test_check_objects (tc);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_memory_pool_of_frame_size);
  tcase_add_test (tc, test_memory_no_pool_over_guint);
  tcase_add_test (tc, test_memory_reuse_after_bursts);
  return s;
}

GST_CHECK_MAIN (memory);
