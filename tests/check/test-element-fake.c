/* test-element-fake.c: the element's host side, run on the CPU against a
 * fake driver and a fake NVRTC (fake-cuda.c, fake-nvrtc.c; meson sets
 * GST_CUDAREDUCE_DRIVER_LIBRARY and GST_CUDAREDUCE_NVRTC_LIBRARY): how
 * many results, their timestamps, durations, counts and fields, tensor
 * buffers, the memory paths, batches, flushes and restarts. No kernel
 * runs, so no value a kernel computes is checked here; the GPU suite
 * checks those. test-element-fake-errors.c has the failures.
 *
 * Each case runs in a child process of its own (gst-check forks), so a
 * case may set the fake's environment (CR_FAKE_CUDA_*) for itself. */
#include "cr-test-fake.h"
#include "cr-test-leaks.h"

#include <gst/video/video.h>
#include <string.h>

/* One message a buffer, with the buffer's times, count and fields, and
 * each buffer passed on as it came. */
GST_START_TEST (test_message_per_buffer)
{
  GstHarness *h =
      cr_test_harness (cr_test_audio_caps ("F32LE", CR_FAKE_RATE, 2), "monoid",
          "mean_var", NULL);
  gst_harness_play (h);
  for (guint k = 0; k < 20; k++) {
    const GstClockTime pts = k * 10 * MS;
    GstBuffer *buf = cr_fake_audio_buffer (480, pts);
    g_autoptr (GstBuffer) in = gst_buffer_ref (buf);
    GstStructure *s = cr_test_push_for_result (h, buf, pts, "buffer");
    cr_test_check_time (s, "duration", 10 * MS, "buffer");
    cr_test_check_time (s, "stream-time", pts, "buffer");
    cr_test_check_time (s, "running-time", pts, "buffer");
    fail_unless_equals_uint64 (cr_fake_get_uint64 (s, "count"), 960);
    fail_unless_equals_string (
        gst_structure_get_string (s, "monoid"), "mean_var");
    fail_unless (gst_structure_has_field_typed (s, "mean", G_TYPE_DOUBLE)
        && gst_structure_has_field_typed (s, "variance", G_TYPE_DOUBLE));
    fail_if (gst_structure_has_field (s, "channels"));
    gst_structure_free (s);
    GstMapInfo map;
    fail_unless (gst_buffer_map (in, &map, GST_MAP_READ));
    cr_test_expect_passthrough (h, map.data, map.size, "buffer");
    gst_buffer_unmap (in, &map);
  }
  g_autoptr (GPtrArray) rest = cr_test_results_after_eos (h, "EOS");
  fail_unless_equals_int (rest->len, 0);
  cr_fake_teardown (h);
}

GST_END_TEST;

/* per-channel=true: arrays of one value a channel, and the counts. */
GST_START_TEST (test_per_channel_fields)
{
  GstHarness *h =
      cr_test_harness (cr_test_audio_caps ("S16LE", CR_FAKE_RATE, 3), "monoid",
          "minmax", "per-channel", "true", NULL);
  gst_harness_play (h);
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 100 * 3 * 2, NULL);
  GstStructure *s = cr_test_push_for_result (h, buf, 0, "per channel");
  guint channels = 0;
  fail_unless (gst_structure_get_uint (s, "channels", &channels));
  fail_unless_equals_int (channels, 3);
  fail_unless_equals_uint64 (cr_fake_get_uint64 (s, "count"), 300);
  const GValue *counts = gst_structure_get_value (s, "counts");
  fail_unless (counts && GST_VALUE_HOLDS_ARRAY (counts));
  fail_unless_equals_int (gst_value_array_get_size (counts), 3);
  for (guint c = 0; c < 3; c++)
    fail_unless_equals_uint64 (
        g_value_get_uint64 (gst_value_array_get_value (counts, c)), 100);
  for (guint f = 0; f < 2; f++) {
    const GValue *v = gst_structure_get_value (s, f ? "max" : "min");
    fail_unless (v && GST_VALUE_HOLDS_ARRAY (v), "%" GST_PTR_FORMAT, s);
    fail_unless_equals_int (gst_value_array_get_size (v), 3);
    fail_unless (G_VALUE_HOLDS_INT (gst_value_array_get_value (v, 0)));
  }
  gst_structure_free (s);
  cr_fake_teardown (h);
}

GST_END_TEST;

/* interval: results of whole intervals from buffers that do not line up
 * with them (7 ms each), timestamps and durations of the frames each
 * covers, and the part under way posted at EOS. */
GST_START_TEST (test_interval_accounting)
{
  GstHarness *h =
      cr_test_harness (cr_test_audio_caps ("F32LE", CR_FAKE_RATE, 2), "monoid",
          "sumsq", "interval", "100000000", NULL);
  gst_harness_play (h);
  const guint frames = 336; /* 7 ms */
  const guint n = 50; /* 350 ms */
  for (guint k = 0; k < n; k++)
    cr_test_push_ok (h,
        cr_fake_audio_buffer (frames,
            gst_util_uint64_scale_int (k * frames, GST_SECOND, CR_FAKE_RATE)),
        "interval");
  g_autoptr (GPtrArray) results = cr_test_results_after_eos (h, "interval");
  fail_unless_equals_int (results->len, 4);
  guint64 total = 0;
  for (guint k = 0; k < results->len; k++) {
    const GstStructure *s = g_ptr_array_index (results, k);
    const guint64 want = k < 3 ? 4800 * 2 : (n * frames - 3 * 4800) * 2;
    fail_unless_equals_uint64 (cr_fake_get_uint64 (s, "count"), want);
    cr_test_check_time (s, "timestamp", k * 100 * MS, "interval");
    cr_test_check_time (s, "duration",
        gst_util_uint64_scale_int (want / 2, GST_SECOND, CR_FAKE_RATE),
        "interval");
    total += cr_fake_get_uint64 (s, "count");
  }
  fail_unless_equals_uint64 (total, (guint64)n * frames * 2);
  cr_fake_teardown (h);
}

GST_END_TEST;

/* A DISCONT buffer starts a new interval; the part before is dropped. */
GST_START_TEST (test_interval_discont)
{
  GstHarness *h =
      cr_test_harness (cr_test_audio_caps ("F32LE", CR_FAKE_RATE, 2), "monoid",
          "sum", "interval", "100000000", NULL);
  gst_harness_play (h);
  for (guint k = 0; k < 5; k++)
    cr_test_push_ok (h, cr_fake_audio_buffer (480, k * 10 * MS), "before");
  GstBuffer *jump = cr_fake_audio_buffer (480, GST_SECOND);
  GST_BUFFER_FLAG_SET (jump, GST_BUFFER_FLAG_DISCONT);
  cr_test_push_ok (h, jump, "discont");
  for (guint k = 1; k < 10; k++)
    cr_test_push_ok (
        h, cr_fake_audio_buffer (480, GST_SECOND + k * 10 * MS), "after");
  g_autoptr (GPtrArray) results = cr_test_results_after_eos (h, "discont");
  fail_unless_equals_int (results->len, 1);
  const GstStructure *s = g_ptr_array_index (results, 0);
  cr_test_check_time (s, "timestamp", GST_SECOND, "discont");
  fail_unless_equals_uint64 (cr_fake_get_uint64 (s, "count"), 4800 * 2);
  cr_fake_teardown (h);
}

GST_END_TEST;

/* output=tensor: a buffer of one memory a result field per input buffer,
 * with its times, and the caps that say so. */
GST_START_TEST (test_tensor_output)
{
  GstHarness *h =
      cr_test_harness (cr_test_audio_caps ("F32LE", CR_FAKE_RATE, 2), "monoid",
          "sumsq+minmax", "output", "tensor", "per-channel", "true",
          "post-messages", "false", NULL);
  gst_harness_play (h);
  for (guint k = 0; k < 5; k++) {
    cr_test_push_ok (h, cr_fake_audio_buffer (480, k * 10 * MS), "tensor");
    g_autoptr (GstBuffer) out = gst_harness_pull (h);
    fail_unless (out != NULL);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), k * 10 * MS);
    fail_unless_equals_uint64 (GST_BUFFER_DURATION (out), 10 * MS);
    /* sumsq's sum and sumsq, minmax's min and max: two channels each. */
    fail_unless_equals_int (gst_buffer_n_memory (out), 4);
    for (guint m = 0; m < 4; m++)
      fail_unless_equals_int (
          gst_memory_get_sizes (gst_buffer_peek_memory (out, m), NULL, NULL),
          m < 2 ? 2 * 8 : 2 * 4);
  }
  g_autoptr (GstCaps) caps = gst_pad_get_current_caps (h->sinkpad);
  const GstStructure *s = gst_caps_get_structure (caps, 0);
  fail_unless (gst_structure_has_name (s, "other/tensors"));
  fail_unless_equals_string (
      gst_structure_get_string (s, "types"), "float64,float64,float32,float32");
  fail_unless_equals_string (
      gst_structure_get_string (s, "dimensions"), "2,2,2,2");
  cr_fake_teardown (h);
}

GST_END_TEST;

/* Video with padded rows, and NV12 per plane: one result a frame, counts
 * of the visible samples only. */
GST_START_TEST (test_video_counts)
{
  GstHarness *h = cr_test_harness (cr_test_video_caps ("NV12", 64, 48, 30),
      "monoid", "histogram", "per-channel", "true", NULL);
  gst_harness_play (h);
  GstVideoInfo info;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 64, 48);
  for (guint k = 0; k < 3; k++) {
    GstBuffer *buf = gst_buffer_new_allocate (NULL, info.size, NULL);
    GstStructure *s =
        cr_test_push_for_result (h, buf, k * GST_SECOND / 30, "NV12");
    const GValue *counts = gst_structure_get_value (s, "counts");
    fail_unless (counts && gst_value_array_get_size (counts) == 3,
        "%" GST_PTR_FORMAT, s);
    fail_unless_equals_uint64 (
        g_value_get_uint64 (gst_value_array_get_value (counts, 0)), 64 * 48);
    fail_unless_equals_uint64 (
        g_value_get_uint64 (gst_value_array_get_value (counts, 1)), 32 * 24);
    fail_unless_equals_uint64 (
        g_value_get_uint64 (gst_value_array_get_value (counts, 2)), 32 * 24);
    const GValue *hist = gst_structure_get_value (s, "histogram");
    fail_unless (hist && gst_value_array_get_size (hist) == 3);
    fail_unless_equals_int (
        gst_value_array_get_size (gst_value_array_get_value (hist, 0)), 256);
    gst_structure_free (s);
  }
  cr_fake_teardown (h);

  /* GRAY8 rows of 50 pixels, 64 bytes apart. */
  h = cr_test_harness (
      cr_test_video_caps ("GRAY8", 50, 10, 30), "monoid", "sum", NULL);
  gst_harness_play (h);
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 64 * 10, NULL);
  gsize offsets[GST_VIDEO_MAX_PLANES] = { 0 };
  gint strides[GST_VIDEO_MAX_PLANES] = { 64 };
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_FORMAT_GRAY8, 50, 10, 1, offsets, strides);
  GstStructure *s = cr_test_push_for_result (h, buf, 0, "GRAY8");
  fail_unless_equals_uint64 (cr_fake_get_uint64 (s, "count"), 500);
  fail_unless (gst_structure_has_field_typed (s, "sum", G_TYPE_UINT64));
  gst_structure_free (s);
  cr_fake_teardown (h);
}

GST_END_TEST;

/* A busy GPU (each job finishes 3 ms after it is queued): small buffers
 * pushed faster than that are gathered into batches, and every result
 * still comes, once, in order. */
GST_START_TEST (test_busy_gpu_keeps_order)
{
  g_setenv ("CR_FAKE_CUDA_LATENCY_US", "3000", TRUE);
  GstHarness *h = cr_test_harness (
      cr_test_audio_caps ("F32LE", CR_FAKE_RATE, 2), "monoid", "sum", NULL);
  gst_harness_play (h);
  const guint n = 300;
  for (guint k = 0; k < n; k++)
    cr_test_push_ok (h, cr_fake_audio_buffer (48 + k % 7, k * MS), "busy");
  g_autoptr (GPtrArray) results = cr_test_results_after_eos (h, "busy");
  fail_unless_equals_int (results->len, n);
  for (guint k = 0; k < n; k++) {
    const GstStructure *s = g_ptr_array_index (results, k);
    cr_test_check_time (s, "timestamp", k * MS, "busy");
    fail_unless_equals_uint64 (
        cr_fake_get_uint64 (s, "count"), (48 + k % 7) * 2);
  }
  fail_unless_equals_int (gst_harness_buffers_received (h), n);
  cr_fake_teardown (h);
}

GST_END_TEST;

/* A flush drops what is in flight and the interval under way; the stream
 * goes on after it. */
GST_START_TEST (test_flush)
{
  g_setenv ("CR_FAKE_CUDA_LATENCY_US", "2000", TRUE);
  GstHarness *h =
      cr_test_harness (cr_test_audio_caps ("F32LE", CR_FAKE_RATE, 2), "monoid",
          "sum", "interval", "20000000", NULL);
  gst_harness_play (h);
  for (guint k = 0; k < 15; k++)
    cr_test_push_ok (h, cr_fake_audio_buffer (48, k * MS), "before");
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  GstSegment segment;
  gst_segment_init (&segment, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  /* Whatever the flush let through came before it. */
  GstMessage *msg;
  while ((msg = gst_bus_pop_filtered (
              GST_ELEMENT_BUS (h->element), GST_MESSAGE_ELEMENT)))
    gst_message_unref (msg);
  for (guint k = 0; k < 50; k++)
    cr_test_push_ok (h, cr_fake_audio_buffer (48, k * MS), "after");
  g_autoptr (GPtrArray) results = cr_test_results_after_eos (h, "after");
  fail_unless_equals_int (results->len, 3);
  for (guint k = 0; k < 3; k++) {
    const GstStructure *s = g_ptr_array_index (results, k);
    cr_test_check_time (s, "timestamp", k * 20 * MS, "after");
    fail_unless_equals_uint64 (
        cr_fake_get_uint64 (s, "count"), k < 2 ? 960 * 2 : 480 * 2);
  }
  cr_fake_teardown (h);
}

GST_END_TEST;

/* An empty buffer: the identity's result, count 0. */
GST_START_TEST (test_empty_buffer)
{
  GstHarness *h = cr_test_harness (
      cr_test_audio_caps ("F32LE", CR_FAKE_RATE, 2), "monoid", "sum", NULL);
  gst_harness_play (h);
  GstStructure *s =
      cr_test_push_for_result (h, gst_buffer_new (), 5 * MS, "empty");
  fail_unless_equals_uint64 (cr_fake_get_uint64 (s, "count"), 0);
  gst_structure_free (s);
  cr_fake_teardown (h);
}

GST_END_TEST;

/* A change of monoid while playing: the next buffer's result has the new
 * monoid's fields. */
GST_START_TEST (test_monoid_change)
{
  GstHarness *h = cr_test_harness (
      cr_test_audio_caps ("F32LE", CR_FAKE_RATE, 2), "monoid", "sum", NULL);
  gst_harness_play (h);
  GstStructure *s =
      cr_test_push_for_result (h, cr_fake_audio_buffer (480, 0), 0, "sum");
  fail_unless (gst_structure_has_field (s, "sum"));
  gst_structure_free (s);
  g_object_set (h->element, "monoid", "minmax", NULL);
  s = cr_test_push_for_result (
      h, cr_fake_audio_buffer (480, 10 * MS), 10 * MS, "minmax");
  fail_unless_equals_string (gst_structure_get_string (s, "monoid"), "minmax");
  fail_unless (gst_structure_has_field_typed (s, "min", G_TYPE_FLOAT)
      && !gst_structure_has_field (s, "sum"));
  gst_structure_free (s);
  cr_fake_teardown (h);
}

GST_END_TEST;

/* A buffer that is not a whole number of elements is refused. */
GST_START_TEST (test_partial_element)
{
  GstHarness *h = cr_test_harness (
      cr_test_audio_caps ("F32LE", CR_FAKE_RATE, 2), "monoid", "sum", NULL);
  gst_harness_play (h);
  cr_test_expect_refused (h, gst_buffer_new_allocate (NULL, 10, NULL), "odd");
  cr_fake_teardown (h);
}

GST_END_TEST;

/* A vectorscope: one 2-D histogram of U against V a frame. */
GST_START_TEST (test_vectorscope_shape)
{
  GstHarness *h = cr_test_harness (cr_test_video_caps ("NV12", 64, 48, 30),
      "monoid", "vectorscope", "bins", "16", NULL);
  gst_harness_play (h);
  GstVideoInfo info;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 64, 48);
  GstStructure *s = cr_test_push_for_result (
      h, gst_buffer_new_allocate (NULL, info.size, NULL), 0, "vectorscope");
  fail_unless_equals_uint64 (cr_fake_get_uint64 (s, "count"), 32 * 24);
  const GValue *hist = gst_structure_get_value (s, "histogram");
  fail_unless (hist && GST_VALUE_HOLDS_ARRAY (hist), "%" GST_PTR_FORMAT, s);
  fail_unless_equals_int (gst_value_array_get_size (hist), 16);
  for (guint i = 0; i < 16; i++)
    fail_unless_equals_int (
        gst_value_array_get_size (gst_value_array_get_value (hist, i)), 16);
  gst_structure_free (s);
  cr_fake_teardown (h);
}

GST_END_TEST;

/* Large buffers of pageable memory go through the pinned ring in chunks
 * (of 64 KiB here), which a busy GPU keeps in use: every result comes,
 * with every sample counted. */
GST_START_TEST (test_large_buffers_in_chunks)
{
  g_setenv ("CR_FAKE_CUDA_LATENCY_US", "500", TRUE);
  cr_test_set_chunk_bytes ("65536");
  GstHarness *h =
      cr_test_harness (cr_test_audio_caps ("F32LE", CR_FAKE_RATE, 2), "monoid",
          "mean_var", NULL);
  gst_harness_play (h);
  const guint frames = 3 * CR_FAKE_RATE; /* 1.1 MiB */
  for (guint k = 0; k < 6; k++)
    cr_test_push_ok (
        h, cr_fake_audio_buffer (frames, k * 3 * GST_SECOND), "large");
  g_autoptr (GPtrArray) results = cr_test_results_after_eos (h, "large");
  fail_unless_equals_int (results->len, 6);
  for (guint k = 0; k < 6; k++)
    fail_unless_equals_uint64 (
        cr_fake_get_uint64 (g_ptr_array_index (results, k), "count"),
        frames * 2);
  cr_fake_teardown (h);
}

GST_END_TEST;

/* The ALLOCATION query's answer for @caps: its first allocator, and its
 * pool (NULL when there is none). */
static GstAllocator *
proposed_memory (GstHarness *h, GstCaps *caps, GstBufferPool **pool)
{
  g_autoptr (GstQuery) query = gst_query_new_allocation (caps, TRUE);
  fail_unless (gst_pad_peer_query (h->srcpad, query));
  *pool = NULL;
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_parse_nth_allocation_pool (query, 0, pool, NULL, NULL, NULL);
  GstAllocator *allocator = NULL;
  fail_unless (gst_query_get_n_allocation_params (query) > 0);
  gst_query_parse_nth_allocation_param (query, 0, &allocator, NULL);
  fail_unless (allocator != NULL);
  return allocator;
}

/* Buffers of the memory the element proposes (which the GPU reads in
 * place), as upstream elements use it: its allocator for audio, its pool
 * for video frames. */
GST_START_TEST (test_proposed_memory)
{
  GstHarness *h = cr_test_harness (
      cr_test_audio_caps ("F32LE", CR_FAKE_RATE, 2), "monoid", "sum", NULL);
  gst_harness_play (h);
  g_autoptr (GstCaps) audio = cr_test_audio_caps ("F32LE", CR_FAKE_RATE, 2);
  GstBufferPool *pool = NULL;
  GstAllocator *allocator = proposed_memory (h, audio, &pool);
  fail_unless_equals_string (allocator->mem_type, "CudaReduceHostMemory");
  fail_unless (pool == NULL, "a pool for audio, whose sizes vary");
  for (guint k = 0; k < 20; k++) {
    GstBuffer *buf = gst_buffer_new ();
    gst_buffer_append_memory (
        buf, gst_allocator_alloc (allocator, (100 + k) * 8, NULL));
    GstStructure *s =
        cr_test_push_for_result (h, buf, k * 10 * MS, "allocator");
    fail_unless_equals_uint64 (cr_fake_get_uint64 (s, "count"), (100 + k) * 2);
    gst_structure_free (s);
    gst_buffer_unref (gst_harness_pull (h));
  }
  /* The allocator keeps the element's context, for its memory. */
  gst_object_unref (allocator);
  cr_fake_teardown (h);

  h = cr_test_harness (
      cr_test_video_caps ("GRAY8", 64, 48, 30), "monoid", "sum", NULL);
  gst_harness_play (h);
  g_autoptr (GstCaps) video = cr_test_video_caps ("GRAY8", 64, 48, 30);
  gst_object_unref (proposed_memory (h, video, &pool));
  fail_unless (pool != NULL, "no pool for video frames");
  GstStructure *config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, video, 64 * 48, 2, 0);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  for (guint k = 0; k < 10; k++) {
    GstBuffer *buf = NULL;
    fail_unless_equals_int (
        gst_buffer_pool_acquire_buffer (pool, &buf, NULL), GST_FLOW_OK);
    GstStructure *s =
        cr_test_push_for_result (h, buf, k * GST_SECOND / 30, "pool");
    fail_unless_equals_uint64 (cr_fake_get_uint64 (s, "count"), 64 * 48);
    gst_structure_free (s);
    gst_buffer_unref (gst_harness_pull (h));
  }
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  cr_fake_teardown (h);
}

GST_END_TEST;

/* Ordinary memory that comes back (an upstream pool's) is registered with
 * the driver when seen again, and read in place from then on. */
GST_START_TEST (test_recycled_memory)
{
  GstHarness *h = cr_test_harness (
      cr_test_audio_caps ("F32LE", CR_FAKE_RATE, 2), "monoid", "sum", NULL);
  gst_harness_play (h);
  const gsize bytes = 512 << 10;
  GstBuffer *held = gst_buffer_new_allocate (NULL, bytes, NULL);
  for (guint k = 0; k < 6; k++) {
    GstBuffer *buf = gst_buffer_new ();
    gst_buffer_append_memory (
        buf, gst_memory_ref (gst_buffer_peek_memory (held, 0)));
    GstStructure *s = cr_test_push_for_result (h, buf, k * GST_SECOND, "again");
    fail_unless_equals_uint64 (cr_fake_get_uint64 (s, "count"), bytes / 4);
    gst_structure_free (s);
    gst_buffer_unref (gst_harness_pull (h));
  }
  /* The registration keeps the context until the memory goes. */
  gst_buffer_unref (held);
  cr_fake_teardown (h);
}

GST_END_TEST;

/* attach-meta=true: each buffer passed on carries its result. */
GST_START_TEST (test_result_meta)
{
  GstHarness *h =
      cr_test_harness (cr_test_audio_caps ("F32LE", CR_FAKE_RATE, 2), "monoid",
          "minmax", "attach-meta", "true", NULL);
  gst_harness_play (h);
  for (guint k = 0; k < 3; k++) {
    GstStructure *s = cr_test_push_for_result (
        h, cr_fake_audio_buffer (480, k * 10 * MS), k * 10 * MS, "meta");
    gst_structure_free (s);
    g_autoptr (GstBuffer) out = gst_harness_pull (h);
    GstCustomMeta *meta =
        gst_buffer_get_custom_meta (out, "GstCudaReduceResultMeta");
    fail_unless (meta != NULL, "buffer %u has no result", k);
    const GstStructure *r = gst_custom_meta_get_structure (meta);
    fail_unless_equals_uint64 (cr_fake_get_uint64 (r, "count"), 960);
    cr_test_check_time (r, "timestamp", k * 10 * MS, "meta");
    fail_unless (gst_structure_has_field (r, "min"));
  }
  cr_fake_teardown (h);
}

GST_END_TEST;

/* Tensors in: the element count of the tensor, per innermost index with
 * per-channel=true; one component alone with component. */
GST_START_TEST (test_tensor_input)
{
  GstHarness *h =
      cr_test_harness (cr_test_tensor_rows_caps (CR_TYPE_INT16, 4, 25),
          "monoid", "sumsq", "per-channel", "true", NULL);
  gst_harness_play (h);
  GstStructure *s = cr_test_push_for_result (
      h, gst_buffer_new_allocate (NULL, 4 * 25 * 2, NULL), 0, "tensor in");
  guint channels = 0;
  fail_unless (gst_structure_get_uint (s, "channels", &channels));
  fail_unless_equals_int (channels, 4);
  fail_unless_equals_uint64 (cr_fake_get_uint64 (s, "count"), 100);
  const GValue *v = gst_structure_get_value (s, "sumsq");
  fail_unless (v && gst_value_array_get_size (v) == 4);
  fail_unless (G_VALUE_HOLDS_INT64 (gst_value_array_get_value (v, 0)));
  gst_structure_free (s);
  cr_fake_teardown (h);

  h = cr_test_harness (cr_test_tensor_rows_caps (CR_TYPE_INT16, 4, 25),
      "monoid", "sum", "component", "2", NULL);
  gst_harness_play (h);
  s = cr_test_push_for_result (
      h, gst_buffer_new_allocate (NULL, 4 * 25 * 2, NULL), 0, "component");
  fail_unless_equals_uint64 (cr_fake_get_uint64 (s, "count"), 25);
  fail_unless (gst_structure_has_field_typed (s, "sum", G_TYPE_INT64));
  gst_structure_free (s);
  cr_fake_teardown (h);
}

GST_END_TEST;

/* percentiles: an array of as many values as points, with the counts. */
GST_START_TEST (test_percentiles_shape)
{
  GstHarness *h = cr_test_harness (cr_test_video_caps ("GRAY8", 32, 8, 30),
      "monoid", "histogram", "percentiles", "<0.1,0.5,0.9>", NULL);
  gst_harness_play (h);
  GstStructure *s = cr_test_push_for_result (
      h, gst_buffer_new_allocate (NULL, 32 * 8, NULL), 0, "percentiles");
  const GValue *p = gst_structure_get_value (s, "percentiles");
  fail_unless (p && GST_VALUE_HOLDS_ARRAY (p), "%" GST_PTR_FORMAT, s);
  fail_unless_equals_int (gst_value_array_get_size (p), 3);
  fail_unless (G_VALUE_HOLDS_DOUBLE (gst_value_array_get_value (p, 0)));
  fail_unless (gst_structure_has_field_typed (s, "below", G_TYPE_UINT64));
  gst_structure_free (s);
  cr_fake_teardown (h);
}

GST_END_TEST;

/* New caps mid-stream (stereo, then mono): results follow the new
 * layout, and an interval under way is not carried across. */
GST_START_TEST (test_caps_change)
{
  GstHarness *h =
      cr_test_harness (cr_test_audio_caps ("F32LE", CR_FAKE_RATE, 2), "monoid",
          "sumsq", "per-channel", "true", NULL);
  gst_harness_play (h);
  GstStructure *s =
      cr_test_push_for_result (h, cr_fake_audio_buffer (480, 0), 0, "stereo");
  fail_unless_equals_int (
      gst_value_array_get_size (gst_structure_get_value (s, "sumsq")), 2);
  gst_structure_free (s);
  gst_harness_set_src_caps (h, cr_test_audio_caps ("F32LE", CR_FAKE_RATE, 1));
  GstBuffer *mono = gst_buffer_new_allocate (NULL, 480 * 4, NULL);
  s = cr_test_push_for_result (h, mono, 10 * MS, "mono");
  fail_unless_equals_int (
      gst_value_array_get_size (gst_structure_get_value (s, "sumsq")), 1);
  fail_unless_equals_uint64 (cr_fake_get_uint64 (s, "count"), 480);
  gst_structure_free (s);
  cr_fake_teardown (h);
}

GST_END_TEST;

/* The context changed while playing, buffer after buffer: each next
 * buffer is reduced with no error. */
GST_START_TEST (test_threshold_change)
{
  GstHarness *h =
      cr_test_harness (cr_test_audio_caps ("F32LE", CR_FAKE_RATE, 2), "monoid",
          "count_gt", "threshold", "0.5", NULL);
  gst_harness_play (h);
  gst_structure_free (
      cr_test_push_for_result (h, cr_fake_audio_buffer (480, 0), 0, "first"));
  for (guint k = 1; k < 10; k++) {
    g_object_set (h->element, "threshold", 0.1 * k, NULL);
    GstStructure *s = cr_test_push_for_result (
        h, cr_fake_audio_buffer (480, k * 10 * MS), k * 10 * MS, "threshold");
    fail_unless (gst_structure_has_field_typed (s, "greater", G_TYPE_UINT64));
    gst_structure_free (s);
  }
  cr_fake_teardown (h);
}

GST_END_TEST;

/* Downstream of the element takes crop metas (as a video sink may): a
 * sink pad that says so in its answer to the allocation query. */
static GstPadProbeReturn
take_crop_metas (GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  GstQuery *query = GST_PAD_PROBE_INFO_QUERY (info);
  if (GST_QUERY_TYPE (query) != GST_QUERY_ALLOCATION)
    return GST_PAD_PROBE_OK;
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  gst_query_add_allocation_meta (query, GST_VIDEO_CROP_META_API_TYPE, NULL);
  return GST_PAD_PROBE_OK;
}

/* Buffers that reach the sink with a crop meta. */
static GstPadProbeReturn
count_crop_metas (GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  if (gst_buffer_get_video_crop_meta (GST_PAD_PROBE_INFO_BUFFER (info)))
    g_atomic_int_inc ((gint *)data);
  return GST_PAD_PROBE_OK;
}

/* videocrop crops by meta alone when downstream takes the meta; through
 * the element it must not, or the element would reduce the whole frame:
 * the counts are the cropped frame's. */
GST_START_TEST (test_crop_upstream)
{
  g_autoptr (GError) error = NULL;
  GstElement *p = gst_parse_launch (
      "videotestsrc num-buffers=3 ! "
      "video/x-raw,format=GRAY8,width=64,height=48 ! "
      "videocrop left=4 right=8 top=2 bottom=6 ! cudareduce monoid=sum ! "
      "fakesink name=sink",
      &error);
  fail_unless (p != NULL, "%s", error ? error->message : "");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  gint cropped_by_meta = 0;
  gst_pad_add_probe (
      pad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM, take_crop_metas, NULL, NULL);
  gst_pad_add_probe (
      pad, GST_PAD_PROBE_TYPE_BUFFER, count_crop_metas, &cropped_by_meta, NULL);
  gst_object_unref (pad);
  gst_object_unref (sink);
  g_autoptr (GPtrArray) results = cr_fake_play_to_eos (p, "videocrop");
  fail_unless_equals_int (results->len, 3);
  for (guint k = 0; k < results->len; k++)
    fail_unless_equals_uint64 (
        cr_fake_get_uint64 (g_ptr_array_index (results, k), "count"),
        (64 - 12) * (48 - 8));
  fail_unless_equals_int (g_atomic_int_get (&cropped_by_meta), 0);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

/* A crop meta sent regardless: the whole frame is reduced, and the user
 * is told so once, in a warning that says what to do. */
GST_START_TEST (test_crop_meta_warned)
{
  GstHarness *h = cr_test_harness (
      cr_test_video_caps ("GRAY8", 16, 8, 1), "monoid", "sum", NULL);
  gst_harness_play (h);
  for (guint k = 0; k < 2; k++) {
    GstBuffer *buf = gst_buffer_new_allocate (NULL, 16 * 8, NULL);
    gst_buffer_memset (buf, 0, 1, 16 * 8);
    GstVideoCropMeta *crop = gst_buffer_add_video_crop_meta (buf);
    crop->x = 2, crop->y = 1, crop->width = 4, crop->height = 4;
    GST_BUFFER_PTS (buf) = k * GST_SECOND;
    cr_test_push_ok (h, buf, "cropped");
  }
  /* The results and warnings in the order posted (results_after_eos
   * would drop the warnings). */
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  GstBus *bus = GST_ELEMENT_BUS (h->element);
  GstMessage *msg;
  guint results = 0, warnings = 0;
  while ((msg = gst_bus_pop_filtered (bus,
              GST_MESSAGE_ELEMENT | GST_MESSAGE_WARNING | GST_MESSAGE_ERROR))
      != NULL) {
    fail_if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR, "an error");
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_WARNING) {
      g_autoptr (GError) why = NULL;
      gst_message_parse_warning (msg, &why, NULL);
      fail_unless (strstr (why->message, "does not apply") != NULL
              && strstr (why->message, "16x8") != NULL,
          "%s", why->message);
      warnings++;
    } else if (gst_structure_has_name (
                   gst_message_get_structure (msg), "cudareduce")) {
      fail_unless_equals_uint64 (
          cr_fake_get_uint64 (gst_message_get_structure (msg), "count"),
          16 * 8);
      results++;
    }
    gst_message_unref (msg);
  }
  fail_unless_equals_int (results, 2);
  fail_unless_equals_int (warnings, 1);
  cr_fake_teardown (h);
}

GST_END_TEST;

/* Two elements after a tee read the same recycled memory, each once
 * copied and then in place: both post every result, in order. */
GST_START_TEST (test_tee_of_two)
{
  g_setenv ("CR_FAKE_CUDA_LATENCY_US", "100", TRUE);
  g_autoptr (GError) error = NULL;
  GstElement *p = gst_parse_launch (
      "audiotestsrc num-buffers=60 samplesperbuffer=65536 ! "
      "audio/x-raw,format=F32LE,rate=48000,channels=2 ! tee name=t "
      "t. ! queue ! cudareduce name=a monoid=sum ! fakesink "
      "t. ! queue ! cudareduce name=b monoid=minmax async-depth=1 ! fakesink",
      &error);
  fail_unless (p != NULL, "%s", error ? error->message : "");
  g_autoptr (GPtrArray) results = cr_fake_play_to_eos (p, "tee");
  guint n[2] = { 0, 0 };
  GstClockTime last[2] = { 0, 0 };
  for (guint k = 0; k < results->len; k++) {
    const GstStructure *s = g_ptr_array_index (results, k);
    const guint from =
        g_str_equal (gst_structure_get_string (s, "element"), "b");
    guint64 ts = 0;
    fail_unless (gst_structure_get_uint64 (s, "timestamp", &ts));
    fail_unless_equals_uint64 (cr_fake_get_uint64 (s, "count"), 65536 * 2);
    fail_unless (n[from] == 0 || ts > last[from], "results out of order");
    last[from] = ts;
    n[from]++;
  }
  fail_unless_equals_int (n[0], 60);
  fail_unless_equals_int (n[1], 60);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  fail_unless_equals_int (cr_fake_live_contexts (), 0);
}

GST_END_TEST;

/* The same pipeline started and stopped again and again, from a real
 * source, each run with every result. */
GST_START_TEST (test_pipeline_restarts)
{
  g_setenv ("CR_FAKE_CUDA_LATENCY_US", "200", TRUE);
  g_autoptr (GError) error = NULL;
  GstElement *p = gst_parse_launch (
      "audiotestsrc num-buffers=40 samplesperbuffer=480 ! "
      "audio/x-raw,format=F32LE,rate=48000,channels=2 ! "
      "cudareduce monoid=sumsq+minmax per-channel=true ! fakesink",
      &error);
  fail_unless (p != NULL, "%s", error ? error->message : "");
  for (guint run = 0; run < 3; run++) {
    g_autoptr (GPtrArray) results = cr_fake_play_to_eos (p, "restarts");
    fail_unless_equals_int (results->len, 40);
    fail_if (
        gst_element_set_state (p, GST_STATE_NULL) == GST_STATE_CHANGE_FAILURE);
  }
  gst_object_unref (p);
  fail_unless_equals_int (cr_fake_live_contexts (), 0);
}

GST_END_TEST;

/* The caps the element reads: @launch (a pipeline with a cudareduce
 * named r) plays to its end with @buffers results, and its input caps
 * then. */
static GstCaps *
negotiated_input (const gchar *launch, guint buffers)
{
  g_autoptr (GError) error = NULL;
  GstElement *p = gst_parse_launch (launch, &error);
  fail_unless (p != NULL, "%s", error ? error->message : "");
  g_autoptr (GPtrArray) results = cr_fake_play_to_eos (p, launch);
  fail_unless_equals_int (results->len, buffers);
  GstElement *r = gst_bin_get_by_name (GST_BIN (p), "r");
  GstPad *sink = gst_element_get_static_pad (r, "sink");
  GstCaps *caps = gst_pad_get_current_caps (sink);
  fail_unless (caps != NULL);
  gst_object_unref (sink);
  gst_object_unref (r);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  return caps;
}

/* Sources and converters upstream are asked for what the settings can
 * read: YUV for a vectorscope of U and V (videotestsrc and videoconvert
 * prefer RGB), RGB for one of R and G, two channels for component=1. */
GST_START_TEST (test_upstream_converts_for_settings)
{
  static const struct {
    const gchar *launch;
    const gchar *want;
  } cases[] = {
    { "videotestsrc num-buffers=3 ! video/x-raw,format=BGRA,width=64,"
      "height=48 ! videoconvert ! cudareduce name=r monoid=vectorscope ! "
      "fakesink",
        "video/x-raw, format={ I420, YV12, Y41B, Y42B, Y444, NV12, NV21, "
        "NV16, NV24, I420_10LE, I422_10LE, Y444_10LE, P010_10LE, "
        "P016_LE }" },
    { "videotestsrc num-buffers=3 ! cudareduce name=r monoid=vectorscope ! "
      "fakesink",
        "video/x-raw, format={ I420, YV12, Y41B, Y42B, Y444, NV12, NV21, "
        "NV16, NV24, I420_10LE, I422_10LE, Y444_10LE, P010_10LE, "
        "P016_LE }" },
    { "videotestsrc num-buffers=3 ! video/x-raw,format=I420,width=64,"
      "height=48 ! videoconvert ! cudareduce name=r monoid=vectorscope "
      "pair=R,G ! fakesink",
        "video/x-raw, format={ RGBA, BGRA, RGBx, BGRx, RGB, BGR }" },
    { "audiotestsrc num-buffers=3 ! cudareduce name=r component=1 ! fakesink",
        "audio/x-raw, channels=[ 2, MAX ]" },
    { "audiotestsrc num-buffers=3 ! audio/x-raw,channels=1 ! audioconvert ! "
      "cudareduce name=r monoid=vectorscope pair=0,2 "
      "context=\"ctx,lo=(double)-1,hi=(double)1\" ! fakesink",
        "audio/x-raw, channels=[ 3, MAX ]" },
  };
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++) {
    g_autoptr (GstCaps) got = negotiated_input (cases[k].launch, 3);
    g_autoptr (GstCaps) want = gst_caps_from_string (cases[k].want);
    g_autofree gchar *str = gst_caps_to_string (got);
    fail_unless (
        gst_caps_is_subset (got, want), "%s: %s", cases[k].launch, str);
  }
}

GST_END_TEST;

static Suite *
element_fake_suite (void)
{
  Suite *s = suite_create ("element-fake");
  TCase *tc = tcase_create ("fake-gpu");
  cr_test_check_objects (tc);
  tcase_add_checked_fixture (tc, cr_fake_reset, NULL);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_message_per_buffer);
  tcase_add_test (tc, test_per_channel_fields);
  tcase_add_test (tc, test_interval_accounting);
  tcase_add_test (tc, test_interval_discont);
  tcase_add_test (tc, test_tensor_output);
  tcase_add_test (tc, test_video_counts);
  tcase_add_test (tc, test_busy_gpu_keeps_order);
  tcase_add_test (tc, test_flush);
  tcase_add_test (tc, test_empty_buffer);
  tcase_add_test (tc, test_monoid_change);
  tcase_add_test (tc, test_partial_element);
  tcase_add_test (tc, test_vectorscope_shape);
  tcase_add_test (tc, test_large_buffers_in_chunks);
  tcase_add_test (tc, test_proposed_memory);
  tcase_add_test (tc, test_recycled_memory);
  tcase_add_test (tc, test_result_meta);
  tcase_add_test (tc, test_tensor_input);
  tcase_add_test (tc, test_percentiles_shape);
  tcase_add_test (tc, test_caps_change);
  tcase_add_test (tc, test_threshold_change);
  tcase_add_test (tc, test_tee_of_two);
  tcase_add_test (tc, test_crop_upstream);
  tcase_add_test (tc, test_crop_meta_warned);
  tcase_add_test (tc, test_pipeline_restarts);
  tcase_add_test (tc, test_upstream_converts_for_settings);
  return s;
}

GST_CHECK_MAIN (element_fake);
