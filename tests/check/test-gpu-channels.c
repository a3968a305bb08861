/* test-gpu-channels.c: the per-channel property on a GPU, one result per
 * buffer.
 *
 * One result per interleaved audio channel, per byte of a packed RGB pixel
 * (the x of RGBx and BGRx left out) and per innermost index of a tensor; 1
 * to 1024 channels, buffers of one row to several staging chunks, results
 * as message arrays and as tensors; incomplete rows are errors.
 *
 * Every result is checked against the reference of cr-test-ref, computed on
 * the CPU from fresh random data. Intervals are in test-gpu-intervals.c. */
#include "cr-test-main.h"
#include "cr-test-input.h"

static GRand *rand_;

/* Bytes of the largest buffer: more than a staging chunk (8 MiB by
 * default). Under compute-sanitizer, main makes chunks and buffers 8 times
 * smaller, as racecheck took over 5 minutes on these sizes. */
static guint64 largest_bytes = (guint64)11 << 20;

/* Rows of buffers to test: one, a few hundred, a few thousand (none of
 * them round), and an odd number that is more than a staging chunk. */
static void
buffer_rows (gsize row_bytes, guint64 rows[4])
{
  rows[0] = 1;
  rows[1] = 333;
  rows[2] = 4801;
  rows[3] = (largest_bytes / row_bytes) | 1;
}

static const struct {
  const gchar *format;
  CrType type;
} audio_formats[] = {
  { "S8", CR_TYPE_INT8 },
  { "U8", CR_TYPE_UINT8 },
  { "S16LE", CR_TYPE_INT16 },
  { "U16LE", CR_TYPE_UINT16 },
  { "S32LE", CR_TYPE_INT32 },
  { "U32LE", CR_TYPE_UINT32 },
  { "F32LE", CR_TYPE_FLOAT32 },
  { "F64LE", CR_TYPE_FLOAT64 },
};

static const guint channel_counts[] = { 1, 2, 6, 7, 1024 };

/* 1. One result per buffer */

/* Audio of @channels in buffers of each of @frames, every monoid on each
 * buffer (the monoid changes while PLAYING). @then_empty: then a buffer of
 * no frames, whose sums are the identity, 0, with count 0. */
static void
per_channel_audio (const gchar *format, CrType type, guint channels,
    const guint64 *frames, guint n_sizes, gboolean then_empty)
{
  const gsize frame_bytes = cr_type_size (type) * channels;
  GstHarness *h = cr_test_harness (cr_test_audio_caps (format, 48000, channels),
      "per-channel", "true", NULL);
  GstClockTime pts = 0;

  for (guint s = 0; s < n_sizes; s++) {
    const gsize bytes = frames[s] * frame_bytes;
    guint8 *data = cr_test_random_elements (rand_, type, frames[s] * channels);
    CrTestSpan span = { .data = data, .channels = channels, .rows = frames[s] };
    CrTestRef *ref = cr_test_ref_of_span (type, channels, &span);

    for (guint k = 0; k < G_N_ELEMENTS (cr_test_swept_monoids); k++) {
      const CrTestMonoid *m = cr_test_swept_monoids[k];
      g_autofree gchar *what = g_strdup_printf (
          "audio %s, %u channels, %" G_GUINT64_FORMAT " frames, monoid %s",
          format, channels, frames[s], m->name);
      g_object_set (h->element, "monoid", m->name, NULL);
      GstStructure *res = cr_test_push_for_result (
          h, gst_buffer_new_memdup (data, bytes), pts, what);
      cr_test_check_message (res, m, ref, TRUE, frames[s] * channels, what);
      gst_structure_free (res);
      cr_test_expect_passthrough (h, data, bytes, what);
      pts += GST_SECOND;
    }
    cr_test_ref_free (ref);
    g_free (data);
  }

  if (then_empty) {
    g_autofree gchar *what = g_strdup_printf (
        "audio %s, %u channels, an empty buffer, monoid sum", format, channels);
    CrTestRef *ref = cr_test_ref_new (type, channels);
    g_object_set (h->element, "monoid", "sum", NULL);
    GstStructure *res =
        cr_test_push_for_result (h, gst_buffer_new (), pts, what);
    cr_test_check_message (res, &cr_test_monoid_sum, ref, TRUE, 0, what);
    gst_structure_free (res);
    cr_test_ref_free (ref);
  }
  gst_harness_teardown (h);
}

/* Every format, every channel count, a fresh element for each; an empty
 * buffer last at 6 channels. */
GST_START_TEST (test_per_channel_audio)
{
  for (guint f = 0; f < G_N_ELEMENTS (audio_formats); f++) {
    for (guint c = 0; c < G_N_ELEMENTS (channel_counts); c++) {
      const guint channels = channel_counts[c];
      guint64 frames[4];
      buffer_rows (cr_type_size (audio_formats[f].type) * channels, frames);
      per_channel_audio (audio_formats[f].format, audio_formats[f].type,
          channels, frames, G_N_ELEMENTS (frames), channels == 6);
    }
  }
}

GST_END_TEST;

/* Three channels (RGB) and five, counts that divide neither a block nor a
 * 16-byte load (6 and 7 are in test_per_channel_audio): a few formats,
 * every monoid. */
GST_START_TEST (test_per_channel_audio_3_5)
{
  static const struct {
    const gchar *format;
    CrType type;
    guint channels;
  } cases[] = {
    { "F32LE", CR_TYPE_FLOAT32, 3 },
    { "U8", CR_TYPE_UINT8, 3 },
    { "S16LE", CR_TYPE_INT16, 5 },
    { "F64LE", CR_TYPE_FLOAT64, 5 },
  };
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++) {
    guint64 frames[4];
    buffer_rows (cr_type_size (cases[k].type) * cases[k].channels, frames);
    per_channel_audio (cases[k].format, cases[k].type, cases[k].channels,
        frames, G_N_ELEMENTS (frames), FALSE);
  }
}

GST_END_TEST;

/* Tensors of @type with each of @counts innermost channels: one element for
 * all of them, the channel count and the rows changing with the caps (so the
 * same programs are reconfigured for another number of channels).
 * @only_rows: buffers of that many rows; NULL: of buffer_rows. */
static void
per_channel_tensors (
    CrType type, const guint *counts, guint n_counts, const guint64 *only_rows)
{
  GstHarness *h = NULL;
  GstClockTime pts = 0;

  for (guint c = 0; c < n_counts; c++) {
    const guint channels = counts[c];
    guint64 rows[4];
    guint n_sizes = 4;
    if (only_rows) {
      rows[0] = *only_rows;
      n_sizes = 1;
    } else {
      buffer_rows (cr_type_size (type) * channels, rows);
    }
    for (guint s = 0; s < n_sizes; s++) {
      const gsize bytes = rows[s] * channels * cr_type_size (type);
      guint8 *data = cr_test_random_elements (rand_, type, rows[s] * channels);
      CrTestSpan span = { .data = data, .channels = channels, .rows = rows[s] };
      CrTestRef *ref = cr_test_ref_of_span (type, channels, &span);
      GstCaps *caps = cr_test_tensor_rows_caps (type, channels, rows[s]);

      if (h == NULL)
        h = cr_test_harness (caps, "per-channel", "true", NULL);
      else
        gst_harness_set_src_caps (h, caps);
      for (guint k = 0; k < G_N_ELEMENTS (cr_test_swept_monoids); k++) {
        const CrTestMonoid *m = cr_test_swept_monoids[k];
        g_autofree gchar *what = g_strdup_printf (
            "tensors of %s, %u:%" G_GUINT64_FORMAT ", monoid %s",
            cr_type_name (type), channels, rows[s], m->name);
        g_object_set (h->element, "monoid", m->name, NULL);
        GstStructure *res = cr_test_push_for_result (
            h, gst_buffer_new_memdup (data, bytes), pts, what);
        cr_test_check_message (res, m, ref, TRUE, rows[s] * channels, what);
        gst_structure_free (res);
        cr_test_expect_passthrough (h, data, bytes, what);
        pts += GST_SECOND;
      }
      cr_test_ref_free (ref);
      g_free (data);
    }
  }
  gst_harness_teardown (h);
}

GST_START_TEST (test_per_channel_tensors)
{
  static const CrType types[] = { CR_TYPE_INT8, CR_TYPE_UINT8, CR_TYPE_INT16,
    CR_TYPE_UINT16, CR_TYPE_INT32, CR_TYPE_UINT32, CR_TYPE_INT64,
    CR_TYPE_UINT64, CR_TYPE_FLOAT32, CR_TYPE_FLOAT64 };

  for (guint t = 0; t < G_N_ELEMENTS (types); t++)
    per_channel_tensors (
        types[t], channel_counts, G_N_ELEMENTS (channel_counts), NULL);
}

GST_END_TEST;

/* Frames of @f of each size {width, height, extra stride}, every monoid. */
static void
per_channel_video (const CrTestVideoFormat *f, const gint (*sizes)[3], guint n)
{
  GstHarness *h = NULL;
  GstClockTime pts = 0;

  for (guint s = 0; s < n; s++) {
    CrTestInput in;
    cr_test_input_video (
        &in, rand_, f, sizes[s][0], sizes[s][1], sizes[s][2], 30);
    CrTestRef *ref = cr_test_ref_of_span (f->type, f->components, &in.span);
    g_autofree gchar *name = cr_test_input_video_name (f, &in);

    if (h == NULL)
      h = cr_test_harness (gst_caps_ref (in.caps), "per-channel", "true", NULL);
    else
      gst_harness_set_src_caps (h, gst_caps_ref (in.caps));
    for (guint k = 0; k < G_N_ELEMENTS (cr_test_swept_monoids); k++) {
      const CrTestMonoid *m = cr_test_swept_monoids[k];
      g_autofree gchar *what = g_strdup_printf ("%s, monoid %s", name, m->name);
      g_object_set (h->element, "monoid", m->name, NULL);
      GstStructure *res =
          cr_test_push_for_result (h, cr_test_input_buffer (&in), pts, what);
      /* The count is over the reported channels: not RGBx's x. */
      cr_test_check_message (
          res, m, ref, TRUE, in.span.rows * f->components, what);
      gst_structure_free (res);
      cr_test_expect_passthrough (h, in.data, in.size, what);
      pts += GST_SECOND;
    }
    cr_test_ref_free (ref);
    cr_test_input_clear (&in);
  }
  gst_harness_teardown (h);
}

/* Odd widths: RGB and BGR rows are rounded up to 4 bytes; the video meta
 * adds 37 bytes of padding to every format. The largest frame is over 8
 * MiB for the 4-byte formats, which have no padding by default (over 1 MiB
 * under compute-sanitizer, where main makes it smaller). */
#define LARGEST_FRAME 3
static gint video_sizes[][3] = {
  { 333, 101, 0 },
  { 1, 1, 0 },
  { 333, 1, 0 },
  { 1921, 1093, 0 },
  { 333, 101, 37 },
  { 7, 5, 37 },
};

GST_START_TEST (test_per_channel_video)
{
  for (guint f = 0; f < G_N_ELEMENTS (cr_test_video_formats); f++)
    per_channel_video (
        &cr_test_video_formats[f], video_sizes, G_N_ELEMENTS (video_sizes));
}

GST_END_TEST;

/* 2. output=tensor: C values per result tensor */

/* @inputs, each stamped k seconds with a duration of half a second, to an
 * element that reduces @type per channel with @m; @components values per
 * field. */
static void
per_channel_tensor_output (GstCaps *caps, const CrTestMonoid *m, CrType type,
    guint components, gint fps_n, const CrTestInput *inputs, guint n_inputs,
    const gchar *name)
{
  const CrTestReduce reduce = {
    .monoid = m, .per_channel = TRUE, .tensor = TRUE
  };
  GstHarness *h = cr_test_reduce_harness (caps, &reduce);

  for (guint k = 0; k < n_inputs; k++) {
    const CrTestInput *in = &inputs[k];
    g_autofree gchar *what = g_strdup_printf ("%s, %" G_GUINT64_FORMAT
                                              " rows, monoid %s, output=tensor",
        name, in->span.rows, m->name);
    CrTestRef *ref = cr_test_ref_of_span (type, components, &in->span);
    GstBuffer *buf = cr_test_input_buffer (in);
    GST_BUFFER_PTS (buf) = k * GST_SECOND;
    GST_BUFFER_DURATION (buf) = GST_SECOND / 2;
    cr_test_push_ok (h, buf, what);

    GstBuffer *out = gst_harness_pull (h);
    cr_test_check_tensor_caps (h, m, type, components, fps_n, 1, what);
    cr_test_check_tensor_buffer (
        out, m, ref, k * GST_SECOND, GST_SECOND / 2, what);
    gst_buffer_unref (out);
    /* Messages are posted in tensor mode too. */
    GstStructure *res = cr_test_pop_result (h);
    /* Over the reported channels (not RGBx's x). */
    cr_test_check_message (res, m, ref, TRUE, in->span.rows * components, what);
    gst_structure_free (res);
    cr_test_ref_free (ref);
  }
  gst_harness_teardown (h);
}

/* Audio, 6 channels: a long buffer and a buffer of one frame. */
GST_START_TEST (test_per_channel_tensor_output_audio)
{
  CrTestInput inputs[2];

  cr_test_input_raw (&inputs[0], rand_, CR_TYPE_INT16, 6, 4801);
  cr_test_input_raw (&inputs[1], rand_, CR_TYPE_INT16, 6, 1);
  per_channel_tensor_output (cr_test_audio_caps ("S16LE", 44100, 6),
      &cr_test_monoid_minmax, CR_TYPE_INT16, 6, 0, inputs, 2,
      "audio S16LE, 6 channels");
  per_channel_tensor_output (cr_test_audio_caps ("S16LE", 44100, 6),
      &cr_test_monoid_sum, CR_TYPE_INT16, 6, 0, inputs, 2,
      "audio S16LE, 6 channels");
  cr_test_input_clear (&inputs[0]);
  cr_test_input_clear (&inputs[1]);
}

GST_END_TEST;

/* Audio, 7 channels of U8: the index is a uint64 tensor. */
GST_START_TEST (test_per_channel_tensor_output_index)
{
  CrTestInput in;

  cr_test_input_raw (&in, rand_, CR_TYPE_UINT8, 7, 100003);
  per_channel_tensor_output (cr_test_audio_caps ("U8", 8000, 7),
      &cr_test_monoid_argmax, CR_TYPE_UINT8, 7, 0, &in, 1,
      "audio U8, 7 channels");
  cr_test_input_clear (&in);
}

GST_END_TEST;

GST_START_TEST (test_per_channel_tensor_output_1024_channels)
{
  CrTestInput in;

  cr_test_input_raw (&in, rand_, CR_TYPE_FLOAT64, 1024, 300);
  per_channel_tensor_output (
      cr_test_tensor_rows_caps (CR_TYPE_FLOAT64, 1024, 300),
      &cr_test_monoid_mean_var, CR_TYPE_FLOAT64, 1024, 0, &in, 1,
      "tensors of float64, 1024:300");
  cr_test_input_clear (&in);
}

GST_END_TEST;

/* RGBx: three tensors' worth of channels, the x left out; BGR with row
 * padding. */
GST_START_TEST (test_per_channel_tensor_output_video)
{
  CrTestInput in;

  cr_test_input_video (
      &in, rand_, cr_test_video_format ("RGBx"), 333, 101, 0, 25);
  per_channel_tensor_output (gst_caps_ref (in.caps), &cr_test_monoid_sum,
      CR_TYPE_UINT8, 3, 25, &in, 1, "video RGBx 333x101");
  cr_test_input_clear (&in);
  cr_test_input_video (
      &in, rand_, cr_test_video_format ("BGR"), 333, 101, 0, 25);
  per_channel_tensor_output (gst_caps_ref (in.caps), &cr_test_monoid_argmax,
      CR_TYPE_UINT8, 3, 25, &in, 1, "video BGR 333x101");
  cr_test_input_clear (&in);
}

GST_END_TEST;

/* 3. A buffer that is not a whole number of rows is refused */

GST_START_TEST (test_per_channel_partial_row_is_error)
{
  static const struct {
    const gchar *format; /* audio; NULL: tensors */
    CrType type;
    guint channels;
    gsize bytes;
    GstClockTime interval;
  } cases[] = {
    /* 10 frames and 2 samples of the next, or 1 byte. */
    { "S16LE", CR_TYPE_INT16, 6, 10 * 12 + 4, 0 },
    { "S16LE", CR_TYPE_INT16, 6, 10 * 12 + 1, 0 },
    { "S16LE", CR_TYPE_INT16, 6, 10 * 12 + 4, 5 * GST_MSECOND },
    { "F32LE", CR_TYPE_FLOAT32, 1024, 3 * 4096 + 1020 * 4, 0 },
    { "F32LE", CR_TYPE_FLOAT32, 2, 4801 * 8 + 4, 10 * GST_MSECOND },
    /* Tensors: 10 rows of 7 and 3 elements; 2 rows of 1024 less one. */
    { NULL, CR_TYPE_FLOAT32, 7, 73 * 4, 0 },
    { NULL, CR_TYPE_UINT8, 1024, 2047, 0 },
    { NULL, CR_TYPE_UINT8, 1024, 2047, 10 * GST_MSECOND },
  };

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++) {
    const gboolean tensor = cases[k].format == NULL;
    GstCaps *caps = tensor
        ? cr_test_tensor_rows_caps (cases[k].type, cases[k].channels, 10)
        : cr_test_audio_caps (cases[k].format, 48000, cases[k].channels);
    g_autofree gchar *what =
        g_strdup_printf ("%s %s, %u channels, a buffer of %" G_GSIZE_FORMAT
                         " bytes, interval %" G_GUINT64_FORMAT,
            tensor ? "tensors of" : "audio",
            tensor ? cr_type_name (cases[k].type) : cases[k].format,
            cases[k].channels, cases[k].bytes, cases[k].interval);
    const CrTestReduce reduce = { .monoid = &cr_test_monoid_sum,
      .per_channel = TRUE,
      .interval = cases[k].interval };
    GstHarness *h = cr_test_reduce_harness (caps, &reduce);
    GstBuffer *buf = gst_buffer_new_wrapped (
        cr_test_random_elements (rand_, CR_TYPE_UINT8, cases[k].bytes),
        cases[k].bytes);
    GST_BUFFER_PTS (buf) = 0;
    cr_test_expect_refused (h, buf, what);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* 4. The other memory paths: the element's pinned memory (read in place,
 * one launch), ordinary memory that comes back (registered on its second
 * visit), and chunks much smaller than rows. */

static const CrTestReduce minmax_per_channel = {
  .monoid = &cr_test_monoid_minmax,
  .per_channel = TRUE,
};

GST_START_TEST (test_per_channel_pinned_memory)
{
  const guint channels = 7;
  const gsize frame_bytes = channels * 4;
  GstCaps *caps = cr_test_audio_caps ("F32LE", 48000, channels);
  GstHarness *h =
      cr_test_reduce_harness (gst_caps_ref (caps), &minmax_per_channel);
  GstQuery *query = gst_query_new_allocation (caps, TRUE);
  GstAllocator *allocator = NULL;
  GstAllocationParams params;
  guint64 frames[4];
  GstClockTime pts = 0;

  fail_unless (gst_pad_peer_query (h->srcpad, query),
      "audio F32LE, %u channels: the ALLOCATION query failed", channels);
  fail_unless (gst_query_get_n_allocation_params (query) > 0,
      "audio F32LE, %u channels: no allocator proposed", channels);
  gst_query_parse_nth_allocation_param (query, 0, &allocator, &params);
  fail_unless (
      allocator != NULL, "audio F32LE, %u channels: no allocator", channels);

  buffer_rows (frame_bytes, frames);
  for (guint s = 0; s < G_N_ELEMENTS (frames); s++) {
    const gsize bytes = frames[s] * frame_bytes;
    g_autofree gchar *what =
        g_strdup_printf ("audio F32LE, %u channels, %" G_GUINT64_FORMAT
                         " frames in the element's pinned memory",
            channels, frames[s]);
    guint8 *data =
        cr_test_random_elements (rand_, CR_TYPE_FLOAT32, frames[s] * channels);
    GstBuffer *buf = gst_buffer_new_allocate (allocator, bytes, &params);
    fail_unless (buf != NULL, "%s: cannot allocate", what);
    gst_buffer_fill (buf, 0, data, bytes);
    CrTestSpan span = { .data = data, .channels = channels, .rows = frames[s] };
    CrTestRef *ref = cr_test_ref_of_span (CR_TYPE_FLOAT32, channels, &span);
    GstStructure *res = cr_test_push_for_result (h, buf, pts, what);
    cr_test_check_message (
        res, &cr_test_monoid_minmax, ref, TRUE, frames[s] * channels, what);
    gst_structure_free (res);
    cr_test_expect_passthrough (h, data, bytes, what);
    cr_test_ref_free (ref);
    g_free (data);
    pts += GST_SECOND;
  }
  gst_object_unref (allocator);
  gst_query_unref (query);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Ordinary memory, new contents on every visit. */
GST_START_TEST (test_per_channel_registered_memory)
{
  const guint channels = 7;
  const gsize frame_bytes = channels * 4;
  const guint64 n = 20011;
  GstHarness *h = cr_test_reduce_harness (
      cr_test_audio_caps ("F32LE", 48000, channels), &minmax_per_channel);
  GstBuffer *buf = gst_buffer_new_allocate (NULL, n * frame_bytes, NULL);
  GstClockTime pts = 0;

  for (guint visit = 0; visit < 4; visit++) {
    g_autofree gchar *what =
        g_strdup_printf ("audio F32LE, %u channels, %" G_GUINT64_FORMAT
                         " frames in ordinary memory, visit %u",
            channels, n, visit + 1);
    GstMapInfo map;
    fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE),
        "%s: cannot map the buffer", what);
    cr_test_fill_random (rand_, CR_TYPE_FLOAT32, map.data, n * channels);
    guint8 *data = g_memdup2 (map.data, map.size);
    gst_buffer_unmap (buf, &map);
    CrTestSpan span = { .data = data, .channels = channels, .rows = n };
    CrTestRef *ref = cr_test_ref_of_span (CR_TYPE_FLOAT32, channels, &span);
    GstStructure *res = cr_test_push_for_result (h, buf, pts, what);
    cr_test_check_message (
        res, &cr_test_monoid_minmax, ref, TRUE, n * channels, what);
    gst_structure_free (res);
    buf = gst_harness_pull (h);
    fail_unless (buf != NULL && gst_buffer_is_writable (buf),
        "%s: the buffer did not come back for reuse", what);
    cr_test_ref_free (ref);
    g_free (data);
    pts += GST_SECOND;
  }
  gst_buffer_unref (buf);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Chunks of 4 KiB: rows of 7 float32 channels do not divide them, rows of
 * 1024 float64 channels (8 KiB) are larger than them, and padded video is
 * copied a few lines at a time; every launch carries the state of the one
 * before, and argmax's row index must count across them. */
GST_START_TEST (test_per_channel_small_chunks)
{
  static const guint seven = 7, wide = 1024;
  static const guint64 f32_frames[] = { 5003, 1 };
  static const guint64 f64_frames[] = { 300 };
  static const guint64 s16_frames[] = { 7777 };
  static const guint64 tensor_rows = 5003;
  static const gint rgb_sizes[][3] = { { 333, 101, 0 } };
  static const gint rgbx_sizes[][3] = { { 333, 101, 37 } };

  cr_test_set_chunk_bytes ("4096");
  per_channel_audio ("F32LE", CR_TYPE_FLOAT32, 7, f32_frames, 2, FALSE);
  per_channel_audio ("F64LE", CR_TYPE_FLOAT64, 1024, f64_frames, 1, FALSE);
  per_channel_audio ("S16LE", CR_TYPE_INT16, 6, s16_frames, 1, FALSE);
  per_channel_tensors (CR_TYPE_UINT16, &seven, 1, &tensor_rows);
  per_channel_tensors (CR_TYPE_INT32, &wide, 1, &tensor_rows);
  per_channel_video (cr_test_video_format ("RGB"), rgb_sizes, 1);
  per_channel_video (cr_test_video_format ("RGBx"), rgbx_sizes, 1);
  cr_test_set_chunk_bytes (NULL);
}

GST_END_TEST;

static const CrTestCase cases[] = {
  CR_TEST_CASE (test_per_channel_audio),
  CR_TEST_CASE (test_per_channel_audio_3_5),
  CR_TEST_CASE (test_per_channel_tensors),
  CR_TEST_CASE (test_per_channel_video),
  CR_TEST_CASE (test_per_channel_tensor_output_audio),
  CR_TEST_CASE (test_per_channel_tensor_output_index),
  CR_TEST_CASE (test_per_channel_tensor_output_1024_channels),
  CR_TEST_CASE (test_per_channel_tensor_output_video),
  CR_TEST_CASE (test_per_channel_partial_row_is_error),
  CR_TEST_CASE (test_per_channel_pinned_memory),
  CR_TEST_CASE (test_per_channel_registered_memory),
  CR_TEST_CASE (test_per_channel_small_chunks),
  { NULL },
};

static int
setup (void)
{
  /* Staging chunks are 1 MiB there (meson.build): still several. */
  if (g_getenv ("CUDAREDUCE_UNDER_SANITIZER")) {
    largest_bytes >>= 3;
    video_sizes[LARGEST_FRAME][0] = 641;
    video_sizes[LARGEST_FRAME][1] = 437;
  }
  return 0;
}

static const CrGpuTest gpu_channels = {
  .name = "gpu-channels",
  .timeout = 600,
  .rand = &rand_,
  .setup = setup,
  .cases = cases,
};

CR_TEST_GPU_MAIN (gpu_channels);
