/* test-gpu-async.c: buffers in flight, the pinned allocator and pool, the
 * registration of recycled memory, EOS, flushing and latency. Every result
 * is checked against a CPU reference on fresh random data. */
#include "cr-test-main.h"

#include <gst/video/video.h>
#include <string.h>

static GRand *rand_;

/* int32 sums are exact in the int64 accumulator of the sum monoid. */
static gint64
fill_and_sum (GstBuffer *buf)
{
  GstMapInfo map;
  gint64 sum = 0;
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  gsize n = map.size / 4;
  cr_test_fill_random (rand_, CR_TYPE_INT32, map.data, n);
  for (gsize i = 0; i < n; i++)
    sum += cr_test_get_int64 (CR_TYPE_INT32, map.data, i);
  gst_buffer_unmap (buf, &map);
  return sum;
}

static GstBuffer *
system_buffer (gsize n_int32)
{
  return gst_buffer_new_allocate (NULL, n_int32 * 4, NULL);
}

/* Pops one result and checks it is buffer @k (by timestamp) with @sum. */
static void
expect_sum (GstHarness *h, guint k, gint64 sum, guint64 count)
{
  GstStructure *s = cr_test_pop_result (h);
  guint64 ts = 0, got_count = 0;
  gint64 got = 0;
  fail_unless (gst_structure_get_uint64 (s, "timestamp", &ts));
  fail_unless_equals_uint64 (ts, k * GST_MSECOND);
  fail_unless (gst_structure_get_int64 (s, "sum", &got));
  fail_unless (got == sum,
      "buffer %u: sum %" G_GINT64_FORMAT ", wanted %" G_GINT64_FORMAT, k, got,
      sum);
  fail_unless (gst_structure_get_uint64 (s, "count", &got_count));
  fail_unless_equals_uint64 (got_count, count);
  gst_structure_free (s);
}

static void
push_stamped (GstHarness *h, GstBuffer *buf, guint k)
{
  GST_BUFFER_PTS (buf) = k * GST_MSECOND;
  GST_BUFFER_DURATION (buf) = GST_MSECOND;
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
}

/* Many buffers pushed before any result is read: all come back, in order,
 * right, at every depth. */
GST_START_TEST (test_in_order_at_every_depth)
{
  static const guint depths[] = { 1, 2, 8, 64 };
  enum { N = 150 };

  for (guint d = 0; d < G_N_ELEMENTS (depths); d++) {
    gchar depth[16];
    g_snprintf (depth, sizeof depth, "%u", depths[d]);
    GstHarness *h = cr_test_harness (cr_test_tensor_caps (CR_TYPE_INT32, 1),
        "monoid", "sum", "async-depth", depth, NULL);
    gint64 sums[N];
    gsize sizes[N];
    for (guint k = 0; k < N; k++) {
      /* Mostly small, some across several staging chunks. */
      sizes[k] = k % 25 == 7 ? 3000000 + g_rand_int_range (rand_, 0, 99999)
                             : 1 + g_rand_int_range (rand_, 0, 70000);
      GstBuffer *buf = system_buffer (sizes[k]);
      sums[k] = fill_and_sum (buf);
      push_stamped (h, buf, k);
    }
    for (guint k = 0; k < N; k++) {
      expect_sum (h, k, sums[k], sizes[k]);
      GstBuffer *out = gst_harness_pull (h);
      fail_unless_equals_uint64 (GST_BUFFER_PTS (out), k * GST_MSECOND);
      gst_buffer_unref (out);
    }
    fail_if (gst_bus_have_pending (GST_ELEMENT_BUS (h->element)));
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

static GstQuery *
query_allocation (GstHarness *h, GstCaps *caps)
{
  GstQuery *query = gst_query_new_allocation (caps, TRUE);
  fail_unless (gst_pad_peer_query (h->srcpad, query));
  return query;
}

static gboolean
is_pinned (GstAllocator *allocator)
{
  return allocator
      && g_strcmp0 (allocator->mem_type, "CudaReduceHostMemory") == 0;
}

/* Tensors have a size fixed by caps: the element proposes a pool of pinned
 * memory first, and buffers from it reduce correctly. */
GST_START_TEST (test_pool_from_allocation_query)
{
  enum { N = 200, ELEMS = 300000 };
  GstCaps *caps = cr_test_tensor_caps (CR_TYPE_INT32, ELEMS);
  GstHarness *h = cr_test_harness (gst_caps_ref (caps), "monoid", "sum", NULL);
  GstQuery *query = query_allocation (h, caps);
  GstBufferPool *pool = NULL;
  guint size = 0, min = 0, max = 0;

  fail_unless (gst_query_get_n_allocation_pools (query) > 0);
  gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
  fail_unless (pool != NULL);
  fail_unless_equals_int (size, ELEMS * 4);
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstAllocator *allocator = NULL;
  fail_unless (gst_buffer_pool_config_get_allocator (config, &allocator, NULL));
  fail_unless (is_pinned (allocator));
  gst_structure_free (config);
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));

  gint64 sums[N];
  for (guint k = 0; k < N; k++) {
    GstBuffer *buf = NULL;
    fail_unless_equals_int (
        gst_buffer_pool_acquire_buffer (pool, &buf, NULL), GST_FLOW_OK);
    fail_unless (is_pinned (gst_buffer_peek_memory (buf, 0)->allocator));
    sums[k] = fill_and_sum (buf);
    push_stamped (h, buf, k);
    /* Buffers go back to the pool as downstream lets go of them. */
    gst_buffer_unref (gst_harness_pull (h));
  }
  for (guint k = 0; k < N; k++)
    expect_sum (h, k, sums[k], ELEMS);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_query_unref (query);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Audio buffers have no size fixed by caps: only the allocator is offered,
 * and its memory, allocated and freed again and again, is reused. */
GST_START_TEST (test_allocator_for_audio)
{
  GstCaps *caps = gst_caps_from_string (
      "audio/x-raw,format=S32LE,layout=interleaved,rate=48000,channels=1");
  GstHarness *h = cr_test_harness (gst_caps_ref (caps), "monoid", "sum", NULL);
  GstQuery *query = query_allocation (h, caps);
  GstAllocator *allocator = NULL;
  GstAllocationParams params;

  fail_unless_equals_int (gst_query_get_n_allocation_pools (query), 0);
  fail_unless (gst_query_get_n_allocation_params (query) > 0);
  gst_query_parse_nth_allocation_param (query, 0, &allocator, &params);
  fail_unless (is_pinned (allocator));
  for (guint k = 0; k < 100; k++) {
    gsize n = 1 + g_rand_int_range (rand_, 0, 50000);
    GstBuffer *buf = gst_buffer_new_allocate (allocator, n * 4, &params);
    fail_unless (buf != NULL);
    gint64 sum = fill_and_sum (buf);
    push_stamped (h, buf, k);
    expect_sum (h, k, sum, n);
    gst_buffer_unref (gst_harness_pull (h));
  }
  gst_object_unref (allocator);
  gst_query_unref (query);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Video frames from the pool keep their row padding out of the result. */
GST_START_TEST (test_pool_for_padded_video)
{
  GstCaps *caps = gst_caps_from_string (
      "video/x-raw,format=GRAY8,width=333,height=101,framerate=30/1");
  GstHarness *h = cr_test_harness (gst_caps_ref (caps), "monoid", "sum", NULL);
  GstQuery *query = query_allocation (h, caps);
  GstBufferPool *pool = NULL;
  GstVideoInfo info;

  fail_unless (gst_video_info_from_caps (&info, caps));
  fail_unless (GST_VIDEO_INFO_PLANE_STRIDE (&info, 0) > 333);
  fail_unless (gst_query_get_n_allocation_pools (query) > 0);
  gst_query_parse_nth_allocation_pool (query, 0, &pool, NULL, NULL, NULL);
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  for (guint k = 0; k < 20; k++) {
    GstBuffer *buf = NULL;
    GstVideoFrame frame;
    guint64 sum = 0;
    fail_unless_equals_int (
        gst_buffer_pool_acquire_buffer (pool, &buf, NULL), GST_FLOW_OK);
    fail_unless (gst_video_frame_map (&frame, &info, buf, GST_MAP_WRITE));
    guint8 *pixels = GST_VIDEO_FRAME_PLANE_DATA (&frame, 0);
    gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
    for (gint y = 0; y < 101; y++) {
      cr_test_fill_random (rand_, CR_TYPE_UINT8, pixels + y * stride, stride);
      for (gint x = 0; x < 333; x++)
        sum += pixels[y * stride + x];
    }
    gst_video_frame_unmap (&frame);
    GST_BUFFER_PTS (buf) = k * GST_MSECOND;
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
    GstStructure *s = cr_test_pop_result (h);
    guint64 got = 0;
    fail_unless (gst_structure_get_uint64 (s, "sum", &got));
    fail_unless_equals_uint64 (got, sum);
    gst_structure_free (s);
    gst_buffer_unref (gst_harness_pull (h));
  }
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_query_unref (query);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The memory module logs "registered N bytes at P" once per registration. */
static gint registrations;

static void
count_registrations (GstDebugCategory *category, GstDebugLevel level,
    const gchar *file, const gchar *function, gint line, GObject *object,
    GstDebugMessage *message, gpointer user_data)
{
  if (strcmp (gst_debug_category_get_name (category), "cudareducememory") == 0
      && g_str_has_prefix (gst_debug_message_get (message), "registered "))
    g_atomic_int_inc (&registrations);
}

/* Ordinary memory that comes back (as pooled memory does) is registered
 * once, on its second visit, and read in place afterwards; its contents
 * change between visits and every result follows them. */
GST_START_TEST (test_recycled_memory_is_registered_once)
{
  enum { ELEMS = 1 << 20, VISITS = 6 };
  gst_debug_add_log_function (count_registrations, NULL, NULL);
  g_atomic_int_set (&registrations, 0);

  GstHarness *h = cr_test_harness (
      cr_test_tensor_caps (CR_TYPE_INT32, ELEMS), "monoid", "sum", NULL);
  GstBuffer *buf = system_buffer (ELEMS);
  for (guint k = 0; k < VISITS; k++) {
    /* Written only once the element has let go of it. */
    gint64 sum = fill_and_sum (buf);
    push_stamped (h, buf, k);
    expect_sum (h, k, sum, ELEMS);
    buf = gst_harness_pull (h);
    fail_unless (gst_buffer_is_writable (buf));
  }
  gst_buffer_unref (buf);
  fail_unless_equals_int (g_atomic_int_get (&registrations), 1);

  /* Memory seen once is copied, never registered. */
  for (guint k = 0; k < 4; k++) {
    GstBuffer *fresh = system_buffer (ELEMS);
    gint64 sum = fill_and_sum (fresh);
    push_stamped (h, fresh, VISITS + k);
    expect_sum (h, VISITS + k, sum, ELEMS);
    gst_buffer_unref (gst_harness_pull (h));
  }
  fail_unless_equals_int (g_atomic_int_get (&registrations), 1);
  gst_harness_teardown (h);
  gst_debug_remove_log_function (count_registrations);
}

GST_END_TEST;

/* EOS leaves only after every buffer before it. */
GST_START_TEST (test_eos_drains)
{
  enum { N = 40 };
  GstHarness *h = cr_test_harness (
      cr_test_tensor_caps (CR_TYPE_INT32, 1), "monoid", "sum", NULL);
  gint64 sums[N];
  gsize sizes[N];

  for (guint k = 0; k < N; k++) {
    sizes[k] = 1 + g_rand_int_range (rand_, 0, 2000000);
    GstBuffer *buf = system_buffer (sizes[k]);
    sums[k] = fill_and_sum (buf);
    push_stamped (h, buf, k);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  /* The element forwarded EOS after draining: every buffer is already out. */
  fail_unless_equals_int (gst_harness_buffers_received (h), N);
  for (guint k = 0; k < N; k++)
    expect_sum (h, k, sums[k], sizes[k]);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A flush drops what is in flight without a crash, a hang or a wrong
 * result, and the stream goes on afterwards. */
GST_START_TEST (test_flush_drops_cleanly)
{
  enum { BEFORE = 30, AFTER = 20 };
  GstHarness *h = cr_test_harness (cr_test_tensor_caps (CR_TYPE_INT32, 1),
      "monoid", "sum", "async-depth", "16", NULL);
  gint64 sums[BEFORE + AFTER];
  gsize sizes[BEFORE + AFTER];

  for (guint k = 0; k < BEFORE + AFTER; k++) {
    sizes[k] = 1 + g_rand_int_range (rand_, 0, 3000000);
    GstBuffer *buf = system_buffer (sizes[k]);
    sums[k] = fill_and_sum (buf);
    if (k == BEFORE) {
      fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
      fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
      GstSegment segment;
      gst_segment_init (&segment, GST_FORMAT_TIME);
      fail_unless (
          gst_harness_push_event (h, gst_event_new_segment (&segment)));
    }
    push_stamped (h, buf, k);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));

  /* Some results from before the flush, in order; then all from after. */
  guint next = 0;
  GstBus *bus = GST_ELEMENT_BUS (h->element);
  GstMessage *msg;
  while ((msg = gst_bus_pop_filtered (
              bus, GST_MESSAGE_ELEMENT | GST_MESSAGE_ERROR))
      != NULL) {
    const GstStructure *s = gst_message_get_structure (msg);
    fail_unless (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT);
    guint64 ts = 0;
    gint64 got = 0;
    fail_unless (gst_structure_get_uint64 (s, "timestamp", &ts));
    guint k = ts / GST_MSECOND;
    /* Those before the flush are a prefix; the first after it follows
     * whatever prefix came out. */
    guint expected = next < BEFORE && k >= BEFORE ? BEFORE : next;
    fail_unless (k == expected, "result %u where %u was due", k, expected);
    fail_unless (gst_structure_get_int64 (s, "sum", &got));
    fail_unless (got == sums[k], "buffer %u: wrong sum", k);
    next = k + 1;
    gst_message_unref (msg);
  }
  fail_unless_equals_int (next, BEFORE + AFTER);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Latency: nothing added to the minimum; the maximum grows by what can
 * wait in flight: async-depth launches of up to 64 small buffers each
 * (CR_BATCH_MAX). */
GST_START_TEST (test_latency_query)
{
  GstHarness *h = cr_test_harness (cr_test_tensor_caps (CR_TYPE_INT32, 1),
      "monoid", "sum", "async-depth", "4", NULL);
  gst_harness_set_upstream_latency (h, 10 * GST_MSECOND);

  GstBuffer *buf = system_buffer (1000);
  gint64 sum = fill_and_sum (buf);
  GST_BUFFER_PTS (buf) = 0;
  GST_BUFFER_DURATION (buf) = 20 * GST_MSECOND;
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  expect_sum (h, 0, sum, 1000);

  GstQuery *query = gst_query_new_latency ();
  fail_unless (gst_pad_peer_query (h->sinkpad, query));
  gboolean live;
  GstClockTime min, max;
  gst_query_parse_latency (query, &live, &min, &max);
  fail_unless (live);
  fail_unless_equals_uint64 (min, 10 * GST_MSECOND);
  if (GST_CLOCK_TIME_IS_VALID (max))
    fail_unless (max >= min + 4 * 64 * 20 * GST_MSECOND,
        "max %" GST_TIME_FORMAT, GST_TIME_ARGS (max));
  gst_query_unref (query);
  gst_harness_teardown (h);
}

GST_END_TEST;

static const CrTestCase cases[] = {
  CR_TEST_CASE (test_in_order_at_every_depth),
  CR_TEST_CASE (test_pool_from_allocation_query),
  CR_TEST_CASE (test_allocator_for_audio),
  CR_TEST_CASE (test_pool_for_padded_video),
  CR_TEST_CASE (test_recycled_memory_is_registered_once),
  CR_TEST_CASE (test_eos_drains),
  CR_TEST_CASE (test_flush_drops_cleanly),
  CR_TEST_CASE (test_latency_query),
  { NULL },
};

static int
setup (void)
{
  gst_debug_set_active (TRUE);
  gst_debug_set_threshold_for_name ("cudareducememory", GST_LEVEL_DEBUG);
  return 0;
}

static const CrGpuTest gpu_async = {
  .name = "gpu-async",
  .rand = &rand_,
  .setup = setup,
  .cases = cases,
};

CR_TEST_GPU_MAIN (gpu_async);
