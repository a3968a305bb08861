/* test-gpu-intervals.c: the interval property on a GPU.
 *
 * Results accumulated across buffers, audio buffers split where an interval
 * ends, video frames and tensors counted whole; the partial interval at
 * EOS; DISCONT and flushes starting over; and the level element on the same
 * stream, interval for interval.
 *
 * Every result is checked against the reference of cr-test-ref, computed on
 * the CPU from fresh random data; how the stream is cut into intervals is
 * worked out here. One result per buffer is in test-gpu-channels.c. */
#include "cr-test-main.h"
#include "cr-test-input.h"

static GRand *rand_;

/* 1. Audio: split where an interval ends */

typedef struct {
  const gchar *format;
  CrType type;
  gint rate;
  guint channels;
  CrTestReduce reduce;
} AudioCase;

static gchar *
audio_case_name (const AudioCase *c)
{
  return g_strdup_printf (
      "audio %s, %u channels at %d Hz, interval %" G_GUINT64_FORMAT
      " ns, monoid %s%s%s",
      c->format, c->channels, c->rate, c->reduce.interval,
      c->reduce.monoid->name, c->reduce.per_channel ? ", per-channel" : "",
      c->reduce.tensor ? ", output=tensor" : "");
}

/* Pushes buffers of @sizes frames, then EOS, and checks every result and
 * every output buffer. */
static void
run_audio_case (const AudioCase *c, const guint64 *sizes, guint n)
{
  const CrTestReduce *r = &c->reduce;
  g_autofree gchar *what = audio_case_name (c);
  CrTestAudio *st = cr_test_audio_new (
      rand_, c->format, c->type, c->rate, c->channels, 0, sizes, n);
  const CrTestAudioCut cut = { .frames = cr_test_interval_frames (
                                   r->interval, c->rate),
    .per_channel = r->per_channel,
    .partial_at_eos = TRUE };
  GstHarness *h = cr_test_reduce_harness (
      cr_test_audio_caps (c->format, c->rate, c->channels), r);

  for (guint k = 0; k < n; k++)
    cr_test_push_ok (h, cr_test_audio_buffer (st, k, NULL, NULL), what);
  GPtrArray *results = cr_test_results_after_eos (h, what);
  GPtrArray *expected = cr_test_expected_new ();
  cr_test_audio_intervals (expected, st, &cut, what);
  cr_test_check_results (results, expected, r->monoid, r->per_channel, what);
  if (r->tensor) {
    cr_test_check_tensor_caps (
        h, r->monoid, c->type, r->per_channel ? c->channels : 1, 0, 1, what);
    cr_test_check_tensor_results (h, expected, r->monoid, what);
  } else {
    for (guint k = 0; k < n; k++) {
      const gsize fb = cr_test_audio_frame_bytes (st);
      const guint64 start = cr_test_audio_start (st, k);
      const guint64 end = cr_test_audio_start (st, k + 1);
      g_autofree gchar *w = g_strdup_printf ("%s, buffer %u", what, k);
      cr_test_expect_passthrough (
          h, st->data + start * fb, (end - start) * fb, w);
    }
  }
  g_ptr_array_unref (expected);
  g_ptr_array_unref (results);
  gst_harness_teardown (h);
  cr_test_audio_free (st);
}

/* Buffers of 1000 frames. */
static const guint64 thousands[20] = { 1000, 1000, 1000, 1000, 1000, 1000, 1000,
  1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000,
  1000 };

/* 48 kHz stereo in buffers of 1000 frames, 5 ms intervals of 240 frames: 83
 * whole intervals, then 80 frames at EOS. */
GST_START_TEST (test_interval_splits_audio_buffers)
{
  const AudioCase f32 = { "F32LE", CR_TYPE_FLOAT32, 48000, 2,
    { .monoid = &cr_test_monoid_sumsq, .interval = 5 * GST_MSECOND } };
  fail_unless_equals_uint64 (
      cr_test_interval_frames (f32.reduce.interval, 48000), 240);
  run_audio_case (&f32, thousands, G_N_ELEMENTS (thousands));
}

GST_END_TEST;

/* 7 ms at 44.1 kHz is 308.7 frames, rounded to 309: buffers from one frame
 * to several intervals, timestamps that are not whole. */
GST_START_TEST (test_interval_of_fractional_frames)
{
  const AudioCase s16 = { "S16LE", CR_TYPE_INT16, 44100, 3,
    { .monoid = &cr_test_monoid_sum, .interval = 7 * GST_MSECOND } };
  g_autofree guint64 *sizes = cr_test_random_sizes (rand_, 60, 1, 1500);
  sizes[3] = 1;
  sizes[7] = 309;
  run_audio_case (&s16, sizes, 60);
}

GST_END_TEST;

/* Many intervals in every buffer: 8 frames of U8 at 8 kHz. */
GST_START_TEST (test_interval_many_per_buffer)
{
  const AudioCase u8 = { "U8", CR_TYPE_UINT8, 8000, 1,
    { .monoid = &cr_test_monoid_minmax, .interval = GST_MSECOND } };
  g_autofree guint64 *small = cr_test_random_sizes (rand_, 50, 1, 100);
  run_audio_case (&u8, small, 50);
}

GST_END_TEST;

/* Split in tensor mode: one buffer per interval. */
GST_START_TEST (test_interval_splits_audio_tensor_output)
{
  const AudioCase f64 = { "F64LE", CR_TYPE_FLOAT64, 48000, 2,
    { .monoid = &cr_test_monoid_mean_var,
        .interval = 5 * GST_MSECOND,
        .tensor = TRUE } };
  run_audio_case (&f64, thousands, 7);
}

GST_END_TEST;

/* 10 ms buffers, 100 ms intervals: 3 intervals and 7 buffers at EOS. */
GST_START_TEST (test_interval_longer_than_buffers)
{
  const GstClockTime i = 100 * GST_MSECOND;
  guint64 tens[37];
  for (guint k = 0; k < G_N_ELEMENTS (tens); k++)
    tens[k] = 480;
  const AudioCase cases[] = {
    { "S32LE", CR_TYPE_INT32, 48000, 1,
        { .monoid = &cr_test_monoid_sum, .interval = i } },
    /* The index counts from the interval's first sample. */
    { "S32LE", CR_TYPE_INT32, 48000, 1,
        { .monoid = &cr_test_monoid_argmax, .interval = i } },
    { "F64LE", CR_TYPE_FLOAT64, 48000, 2,
        { .monoid = &cr_test_monoid_mean_var, .interval = i } },
    { "U16LE", CR_TYPE_UINT16, 48000, 2,
        { .monoid = &cr_test_monoid_argmax, .interval = i, .tensor = TRUE } },
  };
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    run_audio_case (&cases[k], tens, G_N_ELEMENTS (tens));
}

GST_END_TEST;

/* 2. Audio: the interval under way at EOS */

/* A whole number of intervals: nothing more at EOS. */
GST_START_TEST (test_interval_eos_after_whole_intervals)
{
  static const guint64 whole[] = { 320, 320, 320, 320, 320, 320 };
  const AudioCase exact = { "F32LE", CR_TYPE_FLOAT32, 48000, 2,
    { .monoid = &cr_test_monoid_mean_var, .interval = 10 * GST_MSECOND } };
  run_audio_case (&exact, whole, G_N_ELEMENTS (whole));
}

GST_END_TEST;

/* Less than one interval: only the partial one, at EOS. */
GST_START_TEST (test_interval_eos_before_one_interval)
{
  static const guint64 short_[] = { 100, 100, 100 };
  const AudioCase brief = { "S16LE", CR_TYPE_INT16, 48000, 5,
    { .monoid = &cr_test_monoid_argmax,
        .per_channel = TRUE,
        .interval = 10 * GST_MSECOND } };
  run_audio_case (&brief, short_, G_N_ELEMENTS (short_));
}

GST_END_TEST;

/* Three intervals and 90 frames. */
static const guint64 three_and_90[] = { 700, 700, 130 };

GST_START_TEST (test_interval_eos_partial)
{
  const AudioCase tail = { "U16LE", CR_TYPE_UINT16, 48000, 5,
    { .monoid = &cr_test_monoid_sum,
        .per_channel = TRUE,
        .interval = 10 * GST_MSECOND } };
  run_audio_case (&tail, three_and_90, G_N_ELEMENTS (three_and_90));
}

GST_END_TEST;

/* The partial interval in tensor mode is a tensor buffer too. */
GST_START_TEST (test_interval_eos_partial_tensor_output)
{
  const AudioCase tensor = { "S16LE", CR_TYPE_INT16, 48000, 5,
    { .monoid = &cr_test_monoid_minmax,
        .per_channel = TRUE,
        .interval = 10 * GST_MSECOND,
        .tensor = TRUE } };
  run_audio_case (&tensor, three_and_90, G_N_ELEMENTS (three_and_90));
}

GST_END_TEST;

/* 3. Audio: per-channel and interval together, in both output modes */

GST_START_TEST (test_interval_per_channel_audio)
{
  const GstClockTime i = 20 * GST_MSECOND;
  g_autofree guint64 *sizes = cr_test_random_sizes (rand_, 80, 1, 3000);
  const AudioCase cases[] = {
    { "S32LE", CR_TYPE_INT32, 44100, 6,
        { .monoid = &cr_test_monoid_sum, .per_channel = TRUE, .interval = i } },
    { "S32LE", CR_TYPE_INT32, 44100, 6,
        { .monoid = &cr_test_monoid_argmax,
            .per_channel = TRUE,
            .interval = i } },
    { "F32LE", CR_TYPE_FLOAT32, 44100, 7,
        { .monoid = &cr_test_monoid_mean_var,
            .per_channel = TRUE,
            .interval = i } },
    { "S8", CR_TYPE_INT8, 44100, 6,
        { .monoid = &cr_test_monoid_minmax,
            .per_channel = TRUE,
            .interval = i,
            .tensor = TRUE } },
    { "F64LE", CR_TYPE_FLOAT64, 44100, 2,
        { .monoid = &cr_test_monoid_argmax,
            .per_channel = TRUE,
            .interval = i,
            .tensor = TRUE } },
  };
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    run_audio_case (&cases[k], sizes, 80);
}

GST_END_TEST;

/* 1024 channels, intervals of 3 ms = 144 frames. */
GST_START_TEST (test_interval_per_channel_1024_channels)
{
  static const guint64 wide[] = { 100, 1000, 1, 333, 77 };
  const AudioCase many = { "F32LE", CR_TYPE_FLOAT32, 48000, 1024,
    { .monoid = &cr_test_monoid_sumsq,
        .per_channel = TRUE,
        .interval = 3 * GST_MSECOND } };
  run_audio_case (&many, wide, G_N_ELEMENTS (wide));
}

GST_END_TEST;

/* 4. Audio: the other memory paths */

/* Pinned buffers, read in place, split at intervals. */
GST_START_TEST (test_interval_pinned_memory)
{
  static const guint64 sizes[] = { 1000, 77, 1500, 3, 2400, 1001 };
  const AudioCase c = { "F32LE", CR_TYPE_FLOAT32, 48000, 2,
    { .monoid = &cr_test_monoid_argmax,
        .per_channel = TRUE,
        .interval = 5 * GST_MSECOND } };
  g_autofree gchar *name = audio_case_name (&c);
  g_autofree gchar *what = g_strdup_printf ("%s, pinned memory", name);
  CrTestAudio *st = cr_test_audio_new (rand_, c.format, c.type, c.rate,
      c.channels, 0, sizes, G_N_ELEMENTS (sizes));
  GstCaps *caps = cr_test_audio_caps (c.format, c.rate, c.channels);
  GstHarness *h = cr_test_reduce_harness (gst_caps_ref (caps), &c.reduce);
  GstQuery *query = gst_query_new_allocation (caps, TRUE);
  GstAllocator *allocator = NULL;
  GstAllocationParams params;

  fail_unless (gst_pad_peer_query (h->srcpad, query),
      "%s: the ALLOCATION query failed", what);
  fail_unless (gst_query_get_n_allocation_params (query) > 0,
      "%s: no allocator proposed", what);
  gst_query_parse_nth_allocation_param (query, 0, &allocator, &params);
  for (guint k = 0; k < G_N_ELEMENTS (sizes); k++)
    cr_test_push_ok (h, cr_test_audio_buffer (st, k, allocator, &params), what);
  GPtrArray *results = cr_test_results_after_eos (h, what);
  GPtrArray *expected = cr_test_expected_new ();
  const CrTestAudioCut cut = {
    .frames = 240, .per_channel = TRUE, .partial_at_eos = TRUE
  };
  cr_test_audio_intervals (expected, st, &cut, what);
  cr_test_check_results (results, expected, c.reduce.monoid, TRUE, what);
  g_ptr_array_unref (expected);
  g_ptr_array_unref (results);
  gst_object_unref (allocator);
  gst_query_unref (query);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
  cr_test_audio_free (st);
}

GST_END_TEST;

/* Chunks of 4 KiB, so that an interval's frames are spread over many
 * launches: 146 frames of 7 float32 channels, 512 of stereo float32, 2048
 * of mono S16. */
GST_START_TEST (test_interval_small_chunks)
{
  const AudioCase chunked[] = {
    { "F32LE", CR_TYPE_FLOAT32, 48000, 2,
        { .monoid = &cr_test_monoid_argmax,
            .per_channel = TRUE,
            .interval = 5 * GST_MSECOND } },
    { "F32LE", CR_TYPE_FLOAT32, 48000, 7,
        { .monoid = &cr_test_monoid_mean_var,
            .per_channel = TRUE,
            .interval = 50 * GST_MSECOND } },
    { "S16LE", CR_TYPE_INT16, 48000, 1,
        { .monoid = &cr_test_monoid_argmax, .interval = 50 * GST_MSECOND } },
  };

  cr_test_set_chunk_bytes ("4096");
  for (guint k = 0; k < G_N_ELEMENTS (chunked); k++)
    run_audio_case (&chunked[k], thousands, 7);
  cr_test_set_chunk_bytes (NULL);
}

GST_END_TEST;

/* 5. Audio: DISCONT and flushes start over */

/* 10 ms = 480 frames; each part is 1500 frames: 3 intervals and 60 frames,
 * which the DISCONT drops in the first part. */
static void
discont_restarts (gboolean per_channel)
{
  static const guint64 sizes[] = { 300, 300, 300, 300, 300 };
  const CrTestReduce reduce = { .monoid = &cr_test_monoid_sumsq,
    .per_channel = per_channel,
    .interval = 10 * GST_MSECOND };
  g_autofree gchar *what =
      g_strdup_printf ("audio F32LE, 2 channels, "
                       "interval 10 ms, a DISCONT after 1500 frames%s",
          per_channel ? ", per-channel" : "");
  CrTestAudio *a = cr_test_audio_new (rand_, "F32LE", CR_TYPE_FLOAT32, 48000, 2,
      0, sizes, G_N_ELEMENTS (sizes));
  CrTestAudio *b = cr_test_audio_new (rand_, "F32LE", CR_TYPE_FLOAT32, 48000, 2,
      10 * GST_SECOND, sizes, G_N_ELEMENTS (sizes));
  GstHarness *h =
      cr_test_reduce_harness (cr_test_audio_caps ("F32LE", 48000, 2), &reduce);

  cr_test_audio_push (h, a, FALSE, what);
  cr_test_audio_push (h, b, TRUE, what);
  GPtrArray *results = cr_test_results_after_eos (h, what);
  GPtrArray *expected = cr_test_expected_new ();
  g_autofree gchar *before = g_strdup_printf ("%s, before it", what);
  g_autofree gchar *after = g_strdup_printf ("%s, after it", what);
  CrTestAudioCut cut = { .frames = 480, .per_channel = per_channel };
  cr_test_audio_intervals (expected, a, &cut, before);
  cut.partial_at_eos = TRUE;
  cr_test_audio_intervals (expected, b, &cut, after);
  cr_test_check_results (
      results, expected, &cr_test_monoid_sumsq, per_channel, what);
  g_ptr_array_unref (expected);
  g_ptr_array_unref (results);
  gst_harness_teardown (h);
  cr_test_audio_free (a);
  cr_test_audio_free (b);
}

GST_START_TEST (test_interval_discont_restarts)
{
  discont_restarts (FALSE);
  discont_restarts (TRUE);
}

GST_END_TEST;

/* 10 ms = 480 frames. Before the flush 720 frames: one interval, whose
 * result is awaited, and 240 that the flush drops. After it, 1000 frames
 * from PTS 0 again: two intervals and 40 frames at EOS. */
GST_START_TEST (test_interval_flush_restarts)
{
  static const guint64 before_sizes[] = { 240, 240, 240 };
  static const guint64 after_sizes[] = { 200, 200, 200, 200, 200 };
  const gchar *what = "audio F32LE, 2 channels, interval 10 ms, per-channel, "
                      "a flush after 720 frames";
  const CrTestReduce reduce = { .monoid = &cr_test_monoid_sumsq,
    .per_channel = TRUE,
    .interval = 10 * GST_MSECOND };
  CrTestAudio *a = cr_test_audio_new (rand_, "F32LE", CR_TYPE_FLOAT32, 48000, 2,
      0, before_sizes, G_N_ELEMENTS (before_sizes));
  CrTestAudio *b = cr_test_audio_new (rand_, "F32LE", CR_TYPE_FLOAT32, 48000, 2,
      0, after_sizes, G_N_ELEMENTS (after_sizes));
  GstHarness *h =
      cr_test_reduce_harness (cr_test_audio_caps ("F32LE", 48000, 2), &reduce);
  CrTestAudioCut cut = { .frames = 480, .per_channel = TRUE };
  GstSegment segment;

  cr_test_audio_push (h, a, FALSE, what);
  GPtrArray *expected = cr_test_expected_new ();
  g_autofree gchar *before = g_strdup_printf ("%s, before it", what);
  cr_test_audio_intervals (expected, a, &cut, before);
  fail_unless_equals_int (expected->len, 1);
  GstStructure *first = cr_test_pop_result (h);
  const CrTestExpected *e = g_ptr_array_index (expected, 0);
  cr_test_check_time (first, "timestamp", e->ts, e->what);
  cr_test_check_message (
      first, &cr_test_monoid_sumsq, e->ref, TRUE, e->count, e->what);
  gst_structure_free (first);
  g_ptr_array_set_size (expected, 0);

  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()),
      "%s: flush-start refused", what);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)),
      "%s: flush-stop refused", what);
  gst_segment_init (&segment, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)),
      "%s: segment refused", what);
  cr_test_audio_push (h, b, FALSE, what);
  GPtrArray *results = cr_test_results_after_eos (h, what);
  g_autofree gchar *after = g_strdup_printf ("%s, after it", what);
  cut.partial_at_eos = TRUE;
  cr_test_audio_intervals (expected, b, &cut, after);
  cr_test_check_results (results, expected, &cr_test_monoid_sumsq, TRUE, what);
  g_ptr_array_unref (expected);
  g_ptr_array_unref (results);
  gst_harness_teardown (h);
  cr_test_audio_free (a);
  cr_test_audio_free (b);
}

GST_END_TEST;

/* 6. Video and tensors: whole buffers */

/* A stream of whole buffers and how the element is set up for it. */
typedef struct {
  const gchar *name;
  CrType type;
  guint components; /* reported channels per row */
  gint fps_n; /* of the output tensors' framerate */
  CrTestReduce reduce;
} WholeCase;

/* Appends the intervals of @inputs as the element forms them: buffers until
 * their counted durations reach the interval; a DISCONT drops the interval
 * under way; the rest at EOS. */
static void
whole_intervals (GPtrArray *expected, const CrTestInput *inputs, guint n,
    const WholeCase *c, const gchar *what)
{
  const GstClockTime interval = c->reduce.interval;
  CrTestExpected *e = NULL;
  guint first = 0, k = 0;

  for (guint i = 0; i < n; i++) {
    if (inputs[i].discont && e) {
      cr_test_expected_free (e);
      e = NULL;
    }
    if (e == NULL) {
      e = g_new0 (CrTestExpected, 1);
      e->ts = inputs[i].pts;
      e->ref = cr_test_ref_new (c->type, c->components);
      first = i;
    }
    cr_test_ref_add (e->ref, &inputs[i].span);
    /* Per channel, over the reported channels; else every element. */
    e->count += inputs[i].span.rows
        * (c->reduce.per_channel ? c->components : inputs[i].span.channels);
    e->duration += inputs[i].counted;
    /* Half a buffer of slack: three 33333333 ns frames make 100 ms. */
    if (e->duration + inputs[i].counted / 2 >= interval || i + 1 == n) {
      e->what = g_strdup_printf ("%s, interval %u (buffers %u to %u%s)", what,
          k++, first, i,
          e->duration < interval ? ", the partial one at EOS" : "");
      g_ptr_array_add (expected, e);
      e = NULL;
    }
  }
}

/* Pushes @inputs to a new element, then EOS, and checks the results (and
 * the tensors, or that buffers pass unchanged). */
static void
run_whole_case (
    GstCaps *caps, const CrTestInput *inputs, guint n, const WholeCase *c)
{
  const CrTestReduce *r = &c->reduce;
  g_autofree gchar *what =
      g_strdup_printf ("%s, interval %" GST_TIME_FORMAT ", monoid %s%s%s",
          c->name, GST_TIME_ARGS (r->interval), r->monoid->name,
          r->per_channel ? ", per-channel" : "",
          r->tensor ? ", output=tensor" : "");
  GstHarness *h = cr_test_reduce_harness (caps, r);

  for (guint k = 0; k < n; k++)
    cr_test_push_ok (h, cr_test_input_buffer (&inputs[k]), what);
  GPtrArray *results = cr_test_results_after_eos (h, what);
  GPtrArray *expected = cr_test_expected_new ();
  whole_intervals (expected, inputs, n, c, what);
  cr_test_check_results (results, expected, r->monoid, r->per_channel, what);
  if (r->tensor) {
    cr_test_check_tensor_caps (
        h, r->monoid, c->type, c->components, c->fps_n, 1, what);
    cr_test_check_tensor_results (h, expected, r->monoid, what);
  } else {
    for (guint k = 0; k < n; k++) {
      g_autofree gchar *w = g_strdup_printf ("%s, buffer %u", what, k);
      cr_test_expect_passthrough (h, inputs[k].data, inputs[k].size, w);
    }
  }
  g_ptr_array_unref (expected);
  g_ptr_array_unref (results);
  gst_harness_teardown (h);
}

static void
clear_inputs (CrTestInput *inputs, guint n)
{
  for (guint k = 0; k < n; k++)
    cr_test_input_clear (&inputs[k]);
}

/* GRAY16 at 25 fps without buffer durations: 40 ms each from the
 * framerate, so 100 ms takes 3 frames (120 ms); 10 frames are 3 intervals
 * and one frame at EOS. */
GST_START_TEST (test_interval_video_durations_from_framerate)
{
  const WholeCase c = { "video GRAY16_LE 333x41", CR_TYPE_UINT16, 1, 25,
    { .monoid = &cr_test_monoid_sum, .interval = 100 * GST_MSECOND } };
  CrTestInput inputs[10];

  for (guint k = 0; k < 10; k++) {
    cr_test_input_video (
        &inputs[k], rand_, cr_test_video_format ("GRAY16_LE"), 333, 41, 0, 25);
    /* Sums over all pixels: a row is one element. */
    inputs[k].span.channels = 1;
    inputs[k].pts = k * 40 * GST_MSECOND;
    inputs[k].counted = 40 * GST_MSECOND;
  }
  run_whole_case (gst_caps_ref (inputs[0].caps), inputs, 10, &c);
  clear_inputs (inputs, 10);
}

GST_END_TEST;

/* RGBx at 50 fps, buffer durations of 20 ms, 70 ms intervals of 4 frames
 * (80 ms); 9 frames are 2 intervals and one at EOS. Per channel, the index
 * counts pixels from the interval's first frame. */
GST_START_TEST (test_interval_video_per_channel)
{
  const WholeCase cases[] = {
    { "video RGBx 101x37", CR_TYPE_UINT8, 3, 50,
        { .monoid = &cr_test_monoid_argmax,
            .per_channel = TRUE,
            .interval = 70 * GST_MSECOND } },
    { "video RGBx 101x37", CR_TYPE_UINT8, 3, 50,
        { .monoid = &cr_test_monoid_mean_var,
            .per_channel = TRUE,
            .interval = 70 * GST_MSECOND,
            .tensor = TRUE } },
  };
  CrTestInput inputs[9];

  for (guint k = 0; k < 9; k++) {
    cr_test_input_video (
        &inputs[k], rand_, cr_test_video_format ("RGBx"), 101, 37, 0, 50);
    inputs[k].pts = k * 20 * GST_MSECOND;
    inputs[k].duration = inputs[k].counted = 20 * GST_MSECOND;
  }
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    run_whole_case (gst_caps_ref (inputs[0].caps), inputs, 9, &cases[k]);
  clear_inputs (inputs, 9);
}

GST_END_TEST;

/* BGR with padded rows, 50 ms intervals of 2 frames, in tensors. */
GST_START_TEST (test_interval_video_padded_rows)
{
  const WholeCase c = { "video BGR 333x20", CR_TYPE_UINT8, 3, 30,
    { .monoid = &cr_test_monoid_minmax,
        .per_channel = TRUE,
        .interval = 50 * GST_MSECOND,
        .tensor = TRUE } };
  CrTestInput inputs[5];

  for (guint k = 0; k < 5; k++) {
    cr_test_input_video (
        &inputs[k], rand_, cr_test_video_format ("BGR"), 333, 20, 0, 30);
    inputs[k].pts = gst_util_uint64_scale_int (k, GST_SECOND, 30);
    inputs[k].counted = gst_util_uint64_scale_int (1, GST_SECOND, 30);
  }
  run_whole_case (gst_caps_ref (inputs[0].caps), inputs, 5, &c);
  clear_inputs (inputs, 5);
}

GST_END_TEST;

/* @n buffers of @rows rows of @channels elements of @type, 10 ms each, PTS
 * from 0. */
static void
tensor_inputs (
    CrTestInput *inputs, guint n, CrType type, guint channels, guint64 rows)
{
  for (guint k = 0; k < n; k++) {
    cr_test_input_raw (&inputs[k], rand_, type, channels, rows);
    inputs[k].pts = k * 10 * GST_MSECOND;
    inputs[k].duration = inputs[k].counted = 10 * GST_MSECOND;
  }
}

/* 7 channels of float64, 10 ms buffers, 35 ms intervals of 4 buffers; 11
 * buffers are 2 intervals and 3 buffers at EOS. */
GST_START_TEST (test_interval_tensors_per_channel)
{
  const WholeCase cases[] = {
    { "tensors of float64, 7:1000", CR_TYPE_FLOAT64, 7, 0,
        { .monoid = &cr_test_monoid_mean_var,
            .per_channel = TRUE,
            .interval = 35 * GST_MSECOND,
            .tensor = TRUE } },
    { "tensors of float64, 7:1000", CR_TYPE_FLOAT64, 7, 0,
        { .monoid = &cr_test_monoid_argmax,
            .per_channel = TRUE,
            .interval = 35 * GST_MSECOND } },
  };
  CrTestInput inputs[11];

  tensor_inputs (inputs, 11, CR_TYPE_FLOAT64, 7, 1000);
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    run_whole_case (cr_test_tensor_rows_caps (CR_TYPE_FLOAT64, 7, 1000), inputs,
        11, &cases[k]);
  clear_inputs (inputs, 11);
}

GST_END_TEST;

/* One result over all elements: rows are single elements. */
GST_START_TEST (test_interval_tensors_all_elements)
{
  const WholeCase c = { "tensors of int32, 60000", CR_TYPE_INT32, 1, 0,
    { .monoid = &cr_test_monoid_sum, .interval = 20 * GST_MSECOND } };
  CrTestInput inputs[5];

  tensor_inputs (inputs, 5, CR_TYPE_INT32, 1, 60000);
  run_whole_case (
      cr_test_tensor_rows_caps (CR_TYPE_INT32, 60000, 1), inputs, 5, &c);
  clear_inputs (inputs, 5);
}

GST_END_TEST;

/* A DISCONT drops the interval under way: [0 1 2] [3 dropped] [4 5 6] [7 at
 * EOS]. */
GST_START_TEST (test_interval_tensors_discont)
{
  const WholeCase c = { "tensors of float32, 4:100, a DISCONT at buffer 4",
    CR_TYPE_FLOAT32, 4, 0,
    { .monoid = &cr_test_monoid_sumsq,
        .per_channel = TRUE,
        .interval = 30 * GST_MSECOND } };
  CrTestInput inputs[8];

  tensor_inputs (inputs, 8, CR_TYPE_FLOAT32, 4, 100);
  for (guint k = 0; k < 8; k++) {
    inputs[k].pts = (k < 4 ? k : 100 + k) * 10 * GST_MSECOND;
    inputs[k].discont = k == 4;
  }
  run_whole_case (
      cr_test_tensor_rows_caps (CR_TYPE_FLOAT32, 4, 100), inputs, 8, &c);
  clear_inputs (inputs, 8);
}

GST_END_TEST;

static const CrTestCase cases[] = {
  CR_TEST_CASE (test_interval_splits_audio_buffers),
  CR_TEST_CASE (test_interval_of_fractional_frames),
  CR_TEST_CASE (test_interval_many_per_buffer),
  CR_TEST_CASE (test_interval_splits_audio_tensor_output),
  CR_TEST_CASE (test_interval_longer_than_buffers),
  CR_TEST_CASE (test_interval_eos_after_whole_intervals),
  CR_TEST_CASE (test_interval_eos_before_one_interval),
  CR_TEST_CASE (test_interval_eos_partial),
  CR_TEST_CASE (test_interval_eos_partial_tensor_output),
  CR_TEST_CASE (test_interval_per_channel_audio),
  CR_TEST_CASE (test_interval_per_channel_1024_channels),
  CR_TEST_CASE (test_interval_pinned_memory),
  CR_TEST_CASE (test_interval_small_chunks),
  CR_TEST_CASE (test_interval_discont_restarts),
  CR_TEST_CASE (test_interval_flush_restarts),
  CR_TEST_CASE (test_interval_video_durations_from_framerate),
  CR_TEST_CASE (test_interval_video_per_channel),
  CR_TEST_CASE (test_interval_video_padded_rows),
  CR_TEST_CASE (test_interval_tensors_per_channel),
  CR_TEST_CASE (test_interval_tensors_all_elements),
  CR_TEST_CASE (test_interval_tensors_discont),
  { NULL },
};

static const CrGpuTest gpu_intervals = {
  .name = "gpu-intervals",
  .timeout = 600,
  .rand = &rand_,
  .cases = cases,
};

CR_TEST_GPU_MAIN (gpu_intervals);
