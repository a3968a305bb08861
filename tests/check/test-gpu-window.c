/* test-gpu-window.c: the window property on a GPU.
 *
 * Every interval a result over the last window, combined on the GPU from
 * each interval's state: checked against the reference of cr-test-ref,
 * computed on the CPU over the frames each window spans, from fresh random
 * data, with buffers that do not line up with the intervals. The first
 * results span what there is; a DISCONT, a flush and new caps start the
 * window afresh; a window of one interval is tumbling intervals. YUV
 * frames per component, with a window on each plane's reducer, are in
 * test-gpu-video.c. The accounting alone is in
 * test-element-fake-window.c. */
#include "cr-test-main.h"
#include "cr-test-input.h"

static GRand *rand_;

typedef struct {
  const gchar *format;
  CrType type;
  gint rate;
  guint channels;
  CrTestReduce reduce;
} WindowCase;

static guint
hops_of (const CrTestReduce *r)
{
  return r->window ? (guint)(r->window / r->interval) : 1;
}

static gchar *
case_name (const WindowCase *c)
{
  return g_strdup_printf (
      "audio %s, %u channels at %d Hz, interval %" G_GUINT64_FORMAT
      " ns, window %" G_GUINT64_FORMAT " ns, monoid %s%s%s",
      c->format, c->channels, c->rate, c->reduce.interval, c->reduce.window,
      c->reduce.monoid->name, c->reduce.per_channel ? ", per-channel" : "",
      c->reduce.tensor ? ", output=tensor" : "");
}

/* Each result's window-complete: false for the first hops - 1 results of
 * each stream of @firsts results (the streams' lengths in results, in
 * order). */
static void
check_complete (GPtrArray *results, guint hops, const guint *lengths,
    guint n_streams, const gchar *what)
{
  guint k = 0;
  for (guint s = 0; s < n_streams; s++)
    for (guint j = 0; j < lengths[s] && k < results->len; j++, k++) {
      gboolean complete = FALSE;
      const GstStructure *st = g_ptr_array_index (results, k);
      fail_unless (gst_structure_get_boolean (st, "window-complete", &complete),
          "%s: result %u has no window-complete", what, k);
      fail_unless_equals_int (complete, j + 1 >= hops);
    }
}

/* @sizes frames a buffer, then EOS: every result, and in message mode
 * every buffer passed on. */
static void
run_case (const WindowCase *c, const guint64 *sizes, guint n)
{
  const CrTestReduce *r = &c->reduce;
  g_autofree gchar *what = case_name (c);
  CrTestAudio *st = cr_test_audio_new (
      rand_, c->format, c->type, c->rate, c->channels, 0, sizes, n);
  const CrTestAudioCut cut = {
    .frames = cr_test_interval_frames (r->interval, c->rate),
    .per_channel = r->per_channel,
    .partial_at_eos = TRUE,
    .hops = hops_of (r),
  };
  GstHarness *h = cr_test_reduce_harness (
      cr_test_audio_caps (c->format, c->rate, c->channels), r);

  for (guint k = 0; k < n; k++)
    cr_test_push_ok (h, cr_test_audio_buffer (st, k, NULL, NULL), what);
  GPtrArray *results = cr_test_results_after_eos (h, what);
  GPtrArray *expected = cr_test_expected_new ();
  cr_test_audio_intervals (expected, st, &cut, what);
  cr_test_check_results (results, expected, r->monoid, r->per_channel, what);
  if (r->tensor)
    cr_test_check_tensor_results (h, expected, r->monoid, what);
  else if (cut.hops > 1)
    check_complete (results, cut.hops, &expected->len, 1, what);
  g_ptr_array_unref (expected);
  g_ptr_array_unref (results);
  gst_harness_teardown (h);
  cr_test_audio_free (st);
}

/* 40 ms windows of 10 ms hops, per channel, from buffers of 1 to 1500
 * frames. */
GST_START_TEST (test_window_per_channel)
{
  const WindowCase c = { "F32LE", CR_TYPE_FLOAT32, 48000, 2,
    { .monoid = &cr_test_monoid_sumsq,
        .per_channel = TRUE,
        .interval = 10 * GST_MSECOND,
        .window = 40 * GST_MSECOND } };
  g_autofree guint64 *sizes = cr_test_random_sizes (rand_, 60, 1, 1500);
  run_case (&c, sizes, 60);
}

GST_END_TEST;

/* The monoids whose combine is not a sum, one result over all samples:
 * 7 ms hops at 44.1 kHz (309 frames), windows of 3. */
GST_START_TEST (test_window_monoids)
{
  const CrTestMonoid *monoids[] = { &cr_test_monoid_mean_var,
    &cr_test_monoid_minmax, &cr_test_monoid_sum };
  for (guint k = 0; k < G_N_ELEMENTS (monoids); k++) {
    const WindowCase c = { "S16LE", CR_TYPE_INT16, 44100, 3,
      { .monoid = monoids[k],
          .interval = 7 * GST_MSECOND,
          .window = 21 * GST_MSECOND } };
    g_autofree guint64 *sizes = cr_test_random_sizes (rand_, 40, 1, 900);
    run_case (&c, sizes, 40);
  }
}

GST_END_TEST;

/* Tensor output: one buffer a hop, stamped with the window it spans. */
GST_START_TEST (test_window_tensor_output)
{
  const WindowCase c = { "F64LE", CR_TYPE_FLOAT64, 48000, 2,
    { .monoid = &cr_test_monoid_mean_var,
        .per_channel = TRUE,
        .interval = 5 * GST_MSECOND,
        .window = 50 * GST_MSECOND,
        .tensor = TRUE } };
  g_autofree guint64 *sizes = cr_test_random_sizes (rand_, 30, 100, 2000);
  run_case (&c, sizes, 30);
}

GST_END_TEST;

/* window == interval: tumbling intervals, exactly. */
GST_START_TEST (test_window_of_one_interval)
{
  const WindowCase c = { "F32LE", CR_TYPE_FLOAT32, 48000, 2,
    { .monoid = &cr_test_monoid_sumsq,
        .per_channel = TRUE,
        .interval = 10 * GST_MSECOND,
        .window = 10 * GST_MSECOND } };
  g_autofree guint64 *sizes = cr_test_random_sizes (rand_, 30, 1, 1500);
  run_case (&c, sizes, 30);
}

GST_END_TEST;

/* A DISCONT, a flush or new caps between two streams of 1500 frames
 * (3 hops and 60 frames, which the restart drops, then 3 and 60 at EOS):
 * the window starts afresh. */
typedef enum { RESTART_DISCONT, RESTART_FLUSH, RESTART_CAPS } Restart;

static void
restart_case (Restart how)
{
  static const guint64 sizes[] = { 300, 300, 300, 300, 300 };
  static const gchar *const names[] = { "a DISCONT", "a flush", "new caps" };
  const CrTestReduce reduce = { .monoid = &cr_test_monoid_sumsq,
    .per_channel = TRUE,
    .interval = 10 * GST_MSECOND,
    .window = 20 * GST_MSECOND };
  g_autofree gchar *what = g_strdup_printf (
      "audio F32LE, 2 channels, interval 10 ms, window 20 ms, per-channel, %s "
      "after 1500 frames",
      names[how]);
  CrTestAudio *a = cr_test_audio_new (rand_, "F32LE", CR_TYPE_FLOAT32, 48000, 2,
      0, sizes, G_N_ELEMENTS (sizes));
  /* New caps: 44.1 kHz, 441 frames a hop. */
  const gint rate_b = how == RESTART_CAPS ? 44100 : 48000;
  CrTestAudio *b = cr_test_audio_new (rand_, "F32LE", CR_TYPE_FLOAT32, rate_b,
      2, how == RESTART_DISCONT ? 10 * GST_SECOND : 0, sizes,
      G_N_ELEMENTS (sizes));
  GstHarness *h =
      cr_test_reduce_harness (cr_test_audio_caps ("F32LE", 48000, 2), &reduce);

  cr_test_audio_push (h, a, FALSE, what);
  if (how == RESTART_FLUSH) {
    /* The results before the flush are awaited: a flush drops what is in
     * flight. */
    for (guint k = 0; k < 3; k++)
      gst_structure_free (cr_test_pop_result (h));
    fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
    fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
    GstSegment segment;
    gst_segment_init (&segment, GST_FORMAT_TIME);
    fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  } else if (how == RESTART_CAPS) {
    gst_harness_set_src_caps (h, cr_test_audio_caps ("F32LE", rate_b, 2));
  }
  cr_test_audio_push (h, b, how == RESTART_DISCONT, what);
  GPtrArray *results = cr_test_results_after_eos (h, what);
  GPtrArray *expected = cr_test_expected_new ();
  g_autofree gchar *before = g_strdup_printf ("%s, before it", what);
  g_autofree gchar *after = g_strdup_printf ("%s, after it", what);
  CrTestAudioCut cut = { .frames = 480, .per_channel = TRUE, .hops = 2 };
  if (how != RESTART_FLUSH)
    cr_test_audio_intervals (expected, a, &cut, before);
  const guint before_n = expected->len;
  cut.partial_at_eos = TRUE;
  cut.frames = cr_test_interval_frames (10 * GST_MSECOND, rate_b);
  cr_test_audio_intervals (expected, b, &cut, after);
  cr_test_check_results (results, expected, &cr_test_monoid_sumsq, TRUE, what);
  const guint lengths[] = { before_n, expected->len - before_n };
  check_complete (
      results, 2, lengths + (before_n ? 0 : 1), before_n ? 2 : 1, what);
  g_ptr_array_unref (expected);
  g_ptr_array_unref (results);
  gst_harness_teardown (h);
  cr_test_audio_free (a);
  cr_test_audio_free (b);
}

GST_START_TEST (test_window_restarts)
{
  restart_case (RESTART_DISCONT);
  restart_case (RESTART_FLUSH);
  restart_case (RESTART_CAPS);
}

GST_END_TEST;

/* Whole buffers (video frames, tensors): each hop is the buffers whose
 * durations reach the interval, and each result spans the last @hops of
 * them, ending at the hop's last buffer; the hop under way at EOS too. */
static void
run_whole_case (GstCaps *caps, const CrTestInput *inputs, guint n, CrType type,
    guint components, const CrTestReduce *r, const gchar *name)
{
  const guint hops = hops_of (r);
  g_autofree gchar *what =
      g_strdup_printf ("%s, interval %" GST_TIME_FORMAT
                       ", window %" GST_TIME_FORMAT ", monoid %s%s%s",
          name, GST_TIME_ARGS (r->interval), GST_TIME_ARGS (r->window),
          r->monoid->name, r->per_channel ? ", per-channel" : "",
          r->tensor ? ", output=tensor" : "");
  GstHarness *h = cr_test_reduce_harness (caps, r);
  for (guint k = 0; k < n; k++)
    cr_test_push_ok (h, cr_test_input_buffer (&inputs[k]), what);
  GPtrArray *results = cr_test_results_after_eos (h, what);

  /* The hops: the index of each one's first buffer, and one past its last. */
  g_autoptr (GArray) firsts = g_array_new (FALSE, FALSE, sizeof (guint));
  GstClockTime elapsed = 0;
  for (guint i = 0; i < n; i++) {
    if (elapsed == 0)
      g_array_append_val (firsts, i);
    elapsed += inputs[i].counted;
    /* Half a buffer of slack, as the element allows. */
    if (elapsed + inputs[i].counted / 2 >= r->interval)
      elapsed = 0;
  }
  const guint n_hops = firsts->len;
  g_array_append_val (firsts, n);
  GPtrArray *expected = cr_test_expected_new ();
  for (guint k = 0; k < n_hops; k++) {
    const guint from =
        g_array_index (firsts, guint, k + 1 >= hops ? k + 1 - hops : 0);
    const guint to = g_array_index (firsts, guint, k + 1);
    CrTestExpected *e = g_new0 (CrTestExpected, 1);
    e->ts = inputs[from].pts;
    e->ref = cr_test_ref_new (type, components);
    for (guint i = from; i < to; i++) {
      cr_test_ref_add (e->ref, &inputs[i].span);
      e->count += inputs[i].span.rows
          * (r->per_channel ? components : inputs[i].span.channels);
      e->duration += inputs[i].counted;
    }
    e->what = g_strdup_printf (
        "%s, hop %u (buffers %u to %u)", what, k, from, to - 1);
    g_ptr_array_add (expected, e);
  }
  cr_test_check_results (results, expected, r->monoid, r->per_channel, what);
  if (r->tensor)
    cr_test_check_tensor_results (h, expected, r->monoid, what);
  else if (hops > 1)
    check_complete (results, hops, &expected->len, 1, what);
  g_ptr_array_unref (expected);
  g_ptr_array_unref (results);
  gst_harness_teardown (h);
}

/* Frames of packed formats, per channel (RGBx in tensors, BGR) and all
 * together (GRAY8), at 50 fps: 40 ms hops of 2 frames, windows of 3 hops;
 * 13 frames are 6 hops and one frame at EOS. */
GST_START_TEST (test_window_video)
{
  static const gchar *const formats[] = { "RGBx", "BGR", "GRAY8" };
  const guint components[] = { 3, 3, 1 };
  const CrTestMonoid *monoids[] = { &cr_test_monoid_mean_var,
    &cr_test_monoid_minmax, &cr_test_monoid_sum };
  for (guint f = 0; f < G_N_ELEMENTS (formats); f++) {
    CrTestInput inputs[13];
    for (guint k = 0; k < 13; k++) {
      cr_test_input_video (
          &inputs[k], rand_, cr_test_video_format (formats[f]), 101, 38, 0, 50);
      inputs[k].pts = k * 20 * GST_MSECOND;
      inputs[k].duration = inputs[k].counted = 20 * GST_MSECOND;
      if (components[f] == 1)
        inputs[k].span.channels = 1;
    }
    const CrTestReduce r = { .monoid = monoids[f],
      .per_channel = components[f] > 1,
      .interval = 40 * GST_MSECOND,
      .window = 120 * GST_MSECOND,
      .tensor = f == 0 };
    run_whole_case (gst_caps_ref (inputs[0].caps), inputs, 13, CR_TYPE_UINT8,
        components[f], &r, formats[f]);
    for (guint k = 0; k < 13; k++)
      cr_test_input_clear (&inputs[k]);
  }
}

GST_END_TEST;

/* Tensors of 7 channels of float64 per channel, 10 ms buffers, 20 ms hops,
 * windows of 5 hops. */
GST_START_TEST (test_window_tensors)
{
  CrTestInput inputs[23];
  for (guint k = 0; k < 23; k++) {
    cr_test_input_raw (&inputs[k], rand_, CR_TYPE_FLOAT64, 7, 500);
    inputs[k].pts = k * 10 * GST_MSECOND;
    inputs[k].duration = inputs[k].counted = 10 * GST_MSECOND;
  }
  const CrTestReduce r = { .monoid = &cr_test_monoid_mean_var,
    .per_channel = TRUE,
    .interval = 20 * GST_MSECOND,
    .window = 100 * GST_MSECOND };
  run_whole_case (cr_test_tensor_rows_caps (CR_TYPE_FLOAT64, 7, 500), inputs,
      23, CR_TYPE_FLOAT64, 7, &r, "tensors of float64, 7:500");
  for (guint k = 0; k < 23; k++)
    cr_test_input_clear (&inputs[k]);
}

GST_END_TEST;

static const CrTestCase cases[] = {
  CR_TEST_CASE (test_window_per_channel),
  CR_TEST_CASE (test_window_monoids),
  CR_TEST_CASE (test_window_tensor_output),
  CR_TEST_CASE (test_window_of_one_interval),
  CR_TEST_CASE (test_window_restarts),
  CR_TEST_CASE (test_window_video),
  CR_TEST_CASE (test_window_tensors),
  { NULL },
};

static const CrGpuTest gpu_window = {
  .name = "gpu-window",
  .timeout = 300,
  .rand = &rand_,
  .cases = cases,
};

CR_TEST_GPU_MAIN (gpu_window);
