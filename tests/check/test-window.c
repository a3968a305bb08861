/* test-window.c: the element's interval window on its own, without a GPU:
 * where intervals cut buffers, and what a restart forgets. */
#include "cr-test-leaks.h"
#include "cr-test-util.h"
#include "gstcudareduce-window.h"

#include <string.h>

GST_DEBUG_CATEGORY (gst_cuda_reduce_debug);

static GArray *
cut (GstCudaReduceWindow *w, const GstCudaReduceInput *in)
{
  GArray *slices = g_array_new (FALSE, TRUE, sizeof (GstCudaReduceSlice));
  gst_cuda_reduce_window_cut (w, in, slices);
  return slices;
}

#define SLICE(a, k) (&g_array_index ((a), GstCudaReduceSlice, (k)))

/* Stereo float32 at 48 kHz, one result per row of the reducer (not per
 * channel): a frame is 8 bytes and 2 rows. */
static GstCudaReduceInput
audio_input (guint64 frames, GstClockTime pts)
{
  GstCudaReduceInput in = {
    .bytes = frames * 8,
    .row_bytes = 4,
    .frame_bytes = 8,
    .rate = 48000,
    .pts = pts,
    .duration = GST_CLOCK_TIME_NONE,
    .owner = GUINT_TO_POINTER (1),
  };
  return in;
}

GST_START_TEST (test_window_without_interval)
{
  GstCudaReduceWindow w;
  gst_cuda_reduce_window_init (&w, 0, 1);
  GstCudaReduceInput in = audio_input (1000, 5 * GST_SECOND);
  in.duration = 123;
  GArray *s = cut (&w, &in);
  fail_unless_equals_int (s->len, 1);
  fail_unless (SLICE (s, 0)->whole && SLICE (s, 0)->emit);
  fail_if (SLICE (s, 0)->options.carry || SLICE (s, 0)->options.discard_result);
  fail_unless_equals_uint64 (SLICE (s, 0)->timestamp, 5 * GST_SECOND);
  fail_unless_equals_uint64 (SLICE (s, 0)->duration, 123);
  g_array_unref (s);
}

GST_END_TEST;

/* 5 ms is 240 frames: a buffer of 384 frames ends one interval and starts
 * the next, whose rest the following buffer ends. */
GST_START_TEST (test_window_cuts_audio_where_intervals_end)
{
  GstCudaReduceWindow w;
  gst_cuda_reduce_window_init (&w, 5 * GST_MSECOND, 1);
  GstCudaReduceInput in = audio_input (384, 0);
  GArray *s = cut (&w, &in);

  fail_unless_equals_int (s->len, 2);
  fail_if (SLICE (s, 0)->whole);
  fail_unless_equals_uint64 (SLICE (s, 0)->offset, 0);
  fail_unless_equals_uint64 (SLICE (s, 0)->size, 240 * 8);
  fail_unless (SLICE (s, 0)->emit);
  fail_if (SLICE (s, 0)->options.carry);
  fail_unless_equals_uint64 (SLICE (s, 0)->timestamp, 0);
  fail_unless_equals_uint64 (SLICE (s, 0)->duration, 5 * GST_MSECOND);
  fail_unless_equals_uint64 (SLICE (s, 1)->offset, 240 * 8);
  fail_unless_equals_uint64 (SLICE (s, 1)->size, 144 * 8);
  fail_if (SLICE (s, 1)->emit);
  fail_unless (SLICE (s, 1)->options.discard_result);
  fail_if (SLICE (s, 1)->options.carry);
  g_array_unref (s);

  in = audio_input (384, 8 * GST_MSECOND);
  s = cut (&w, &in);
  fail_unless_equals_int (s->len, 3);
  /* 96 frames finish the second interval, carrying its first 144. */
  fail_unless_equals_uint64 (SLICE (s, 0)->size, 96 * 8);
  fail_unless (SLICE (s, 0)->options.carry && SLICE (s, 0)->emit);
  fail_unless_equals_uint64 (SLICE (s, 0)->options.rows_before, 144 * 2);
  fail_unless_equals_uint64 (SLICE (s, 0)->timestamp, 5 * GST_MSECOND);
  /* 240 make the third, from its first sample's time... */
  fail_unless_equals_uint64 (SLICE (s, 1)->offset, 96 * 8);
  fail_unless_equals_uint64 (SLICE (s, 1)->size, 240 * 8);
  fail_unless (SLICE (s, 1)->emit);
  fail_if (SLICE (s, 1)->options.carry);
  fail_unless_equals_uint64 (SLICE (s, 1)->timestamp, 10 * GST_MSECOND);
  /* ...and the last 48 open the fourth. */
  fail_unless_equals_uint64 (SLICE (s, 2)->offset, 336 * 8);
  fail_if (SLICE (s, 2)->emit);
  fail_unless_equals_uint64 (w.start, 15 * GST_MSECOND);
  g_array_unref (s);

  /* The rest, at EOS: a result of the 48 frames it has. */
  GstCudaReduceSlice rest;
  fail_unless (
      gst_cuda_reduce_window_close (&w, GUINT_TO_POINTER (1), 48000, &rest));
  fail_unless (rest.emit && rest.options.carry);
  fail_unless_equals_uint64 (rest.options.rows_before, 48 * 2);
  fail_unless_equals_uint64 (rest.timestamp, 15 * GST_MSECOND);
  fail_unless_equals_uint64 (rest.duration, GST_MSECOND);
  fail_if (
      gst_cuda_reduce_window_close (&w, GUINT_TO_POINTER (1), 48000, &rest));
}

GST_END_TEST;

/* A buffer spanning several intervals gives a slice per interval. */
GST_START_TEST (test_window_many_intervals_in_one_buffer)
{
  GstCudaReduceWindow w;
  gst_cuda_reduce_window_init (&w, GST_MSECOND, 1);
  GstCudaReduceInput in = audio_input (48 * 10 + 7, 0);
  GArray *s = cut (&w, &in);

  fail_unless_equals_int (s->len, 11);
  for (guint k = 0; k < 10; k++) {
    fail_unless (SLICE (s, k)->emit);
    fail_unless_equals_uint64 (SLICE (s, k)->timestamp, k * GST_MSECOND);
    fail_unless_equals_uint64 (SLICE (s, k)->size, 48 * 8);
  }
  fail_unless_equals_uint64 (SLICE (s, 10)->size, 7 * 8);
  fail_if (SLICE (s, 10)->emit);
  g_array_unref (s);
}

GST_END_TEST;

/* Video frames count whole: three frames at 30/1 (33333333 ns each) make a
 * 100 ms interval, thanks to half a frame of slack. */
GST_START_TEST (test_window_whole_buffers_by_duration)
{
  GstCudaReduceWindow w;
  gst_cuda_reduce_window_init (&w, 100 * GST_MSECOND, 1);
  GstCudaReduceInput in = {
    .bytes = 1000,
    .row_bytes = 1,
    .duration = 33333333,
    .owner = GUINT_TO_POINTER (1),
  };

  for (guint k = 0; k < 6; k++) {
    in.pts = k * 33333333;
    GArray *s = cut (&w, &in);
    fail_unless_equals_int (s->len, 1);
    fail_unless (SLICE (s, 0)->whole);
    fail_unless_equals_int (SLICE (s, 0)->emit, k % 3 == 2);
    fail_unless_equals_int (SLICE (s, 0)->options.carry, k % 3 != 0);
    fail_unless_equals_uint64 (
        SLICE (s, 0)->options.rows_before, (k % 3) * 1000);
    if (k % 3 == 2) {
      fail_unless_equals_uint64 (SLICE (s, 0)->timestamp, (k - 2) * 33333333);
      fail_unless_equals_uint64 (SLICE (s, 0)->duration, 99999999);
    }
    g_array_unref (s);
  }
  /* Without a duration, every buffer closes its interval. */
  in.duration = GST_CLOCK_TIME_NONE;
  GArray *s = cut (&w, &in);
  fail_unless (SLICE (s, 0)->emit);
  fail_unless_equals_uint64 (SLICE (s, 0)->duration, GST_CLOCK_TIME_NONE);
  g_array_unref (s);
}

GST_END_TEST;

/* DISCONT, another program and a reset each start a new interval. */
GST_START_TEST (test_window_restarts)
{
  GstCudaReduceWindow w;
  gst_cuda_reduce_window_init (&w, 5 * GST_MSECOND, 1);
  GstCudaReduceInput in = audio_input (100, 0);
  GArray *s;

  g_array_unref (cut (&w, &in));
  in.discont = TRUE;
  s = cut (&w, &in);
  fail_if (SLICE (s, 0)->options.carry);
  g_array_unref (s);
  in.discont = FALSE;
  in.owner = GUINT_TO_POINTER (2);
  s = cut (&w, &in);
  fail_if (SLICE (s, 0)->options.carry);
  g_array_unref (s);
  GstCudaReduceSlice rest;
  fail_if (
      gst_cuda_reduce_window_close (&w, GUINT_TO_POINTER (1), 48000, &rest));
  gst_cuda_reduce_window_reset (&w);
  fail_if (
      gst_cuda_reduce_window_close (&w, GUINT_TO_POINTER (2), 48000, &rest));
}

GST_END_TEST;

/* The hops of a window: whole numbers of intervals only, each refusal
 * saying what to set. */
GST_START_TEST (test_window_hops)
{
  guint hops = 0;
  fail_unless (gst_cuda_reduce_window_hops (0, 0, &hops, NULL) && hops == 1);
  fail_unless (
      gst_cuda_reduce_window_hops (0, GST_MSECOND, &hops, NULL) && hops == 1);
  fail_unless (gst_cuda_reduce_window_hops (
                   100 * GST_MSECOND, 100 * GST_MSECOND, &hops, NULL)
      && hops == 1);
  fail_unless (gst_cuda_reduce_window_hops (
                   3 * GST_SECOND, 100 * GST_MSECOND, &hops, NULL)
      && hops == 30);
  static const struct {
    GstClockTime window, interval;
    const gchar *says;
  } refused[] = {
    { 400 * GST_MSECOND, 0, "interval, which is not set" },
    { 450 * GST_MSECOND, 100 * GST_MSECOND,
        "not a whole number of intervals (100000000 ns): results are "
        "combined from whole intervals, so set window to a multiple of "
        "interval, e.g. 400000000 or 500000000" },
    { 50 * GST_MSECOND, 100 * GST_MSECOND, "e.g. 100000000 or 200000000" },
    { 20 * GST_SECOND, 10 * GST_MSECOND,
        "spans 2000 intervals, more than the 1024" },
  };
  for (guint k = 0; k < G_N_ELEMENTS (refused); k++) {
    g_autoptr (GError) error = NULL;
    fail_if (gst_cuda_reduce_window_hops (
        refused[k].window, refused[k].interval, &hops, &error));
    fail_unless (strstr (error->message, refused[k].says) != NULL,
        "\"%s\" lacks \"%s\"", error->message, refused[k].says);
  }
}

GST_END_TEST;

/* 4 hops of 5 ms (240 frames) over buffers of 384 frames: a result at the
 * end of every hop, over the hops so far until there are 4, then over the
 * last 4, from the first one's start; a discontinuity starts afresh. */
GST_START_TEST (test_window_slides_over_audio)
{
  GstCudaReduceWindow w;
  gst_cuda_reduce_window_init (&w, 5 * GST_MSECOND, 4);
  guint64 frames = 0, emitted = 0;
  for (guint b = 0; b < 10; b++) {
    GstCudaReduceInput in = audio_input (384, frames * GST_SECOND / 48000);
    GArray *s = cut (&w, &in);
    for (guint k = 0; k < s->len; k++) {
      const GstCudaReduceSlice *slice = SLICE (s, k);
      if (!slice->emit)
        continue;
      const guint64 hops = MIN (emitted + 1, 4);
      fail_unless_equals_uint64 (slice->options.hop, emitted);
      fail_unless_equals_int (slice->options.window_hops, hops);
      fail_unless_equals_uint64 (
          slice->timestamp, (emitted + 1 - hops) * 5 * GST_MSECOND);
      fail_unless_equals_uint64 (slice->duration, hops * 5 * GST_MSECOND);
      /* Each hop still accumulates on its own: the reducer combines. */
      fail_unless (slice->options.carry
          == (slice->offset == 0 && b > 0 && frames % 240 != 0));
      emitted++;
    }
    frames += 384;
    g_array_unref (s);
  }
  fail_unless_equals_uint64 (emitted, 16); /* 3840 frames */

  GstCudaReduceInput in = audio_input (240, 100 * GST_SECOND);
  in.discont = TRUE;
  GArray *s = cut (&w, &in);
  fail_unless (SLICE (s, 0)->emit);
  fail_unless_equals_int (SLICE (s, 0)->options.window_hops, 1);
  fail_unless_equals_uint64 (SLICE (s, 0)->options.hop, 0);
  fail_unless_equals_uint64 (SLICE (s, 0)->timestamp, 100 * GST_SECOND);
  g_array_unref (s);

  /* A reset (flush, caps) does too; EOS ends the hop accumulating, whose
   * result spans the hops before it as well. */
  gst_cuda_reduce_window_reset (&w);
  for (guint b = 0; b < 3; b++) {
    GstCudaReduceInput more = audio_input (240, b * 5 * GST_MSECOND);
    g_array_unref (cut (&w, &more));
  }
  GstCudaReduceInput part = audio_input (48, 15 * GST_MSECOND);
  g_array_unref (cut (&w, &part));
  GstCudaReduceSlice rest;
  fail_unless (
      gst_cuda_reduce_window_close (&w, GUINT_TO_POINTER (1), 48000, &rest));
  fail_unless_equals_int (rest.options.window_hops, 4);
  fail_unless_equals_uint64 (rest.options.hop, 3);
  fail_unless_equals_uint64 (rest.timestamp, 0);
  fail_unless_equals_uint64 (rest.duration, 16 * GST_MSECOND);
}

GST_END_TEST;

/* Frames by duration, 3 hops of 100 ms at 30 frames/s (3 frames a hop);
 * without durations a window's duration is unknown. */
GST_START_TEST (test_window_slides_over_frames)
{
  GstCudaReduceWindow w;
  gst_cuda_reduce_window_init (&w, 100 * GST_MSECOND, 3);
  const GstClockTime frame = gst_util_uint64_scale_int (GST_SECOND, 1, 30);
  guint emitted = 0;
  for (guint f = 0; f < 15; f++) {
    GstCudaReduceInput in = {
      .bytes = 64,
      .row_bytes = 1,
      .pts = f * frame,
      .duration = frame,
      .owner = GUINT_TO_POINTER (1),
    };
    GArray *s = cut (&w, &in);
    fail_unless_equals_int (s->len, 1);
    if (SLICE (s, 0)->emit) {
      fail_unless_equals_int (f % 3, 2);
      fail_unless_equals_int (
          SLICE (s, 0)->options.window_hops, MIN (emitted + 1, 3));
      fail_unless_equals_uint64 (
          SLICE (s, 0)->timestamp, (f + 1 - 3 * MIN (emitted + 1, 3)) * frame);
      fail_unless_equals_uint64 (
          SLICE (s, 0)->duration, 3 * MIN (emitted + 1, 3) * frame);
      emitted++;
    }
    g_array_unref (s);
  }
  fail_unless_equals_int (emitted, 5);

  GstCudaReduceInput none = { .bytes = 64,
    .row_bytes = 1,
    .pts = GST_CLOCK_TIME_NONE,
    .duration = GST_CLOCK_TIME_NONE,
    .owner = GUINT_TO_POINTER (1) };
  GArray *s = cut (&w, &none);
  fail_unless (SLICE (s, 0)->emit);
  fail_unless_equals_int (SLICE (s, 0)->options.window_hops, 3);
  fail_unless_equals_uint64 (SLICE (s, 0)->duration, GST_CLOCK_TIME_NONE);
  g_array_unref (s);
}

GST_END_TEST;

/* Without a window, every result is one hop: window_hops 1, hop counting
 * up, as before windows slid. */
GST_START_TEST (test_window_of_one_hop)
{
  GstCudaReduceWindow w;
  gst_cuda_reduce_window_init (&w, 5 * GST_MSECOND, 1);
  GstCudaReduceInput in = audio_input (480, 0);
  GArray *s = cut (&w, &in);
  fail_unless_equals_int (s->len, 2);
  for (guint k = 0; k < 2; k++) {
    fail_unless_equals_int (SLICE (s, k)->options.window_hops, 1);
    fail_unless_equals_uint64 (SLICE (s, k)->options.hop, k);
    fail_unless_equals_uint64 (SLICE (s, k)->timestamp, k * 5 * GST_MSECOND);
    fail_unless_equals_uint64 (SLICE (s, k)->duration, 5 * GST_MSECOND);
  }
  g_array_unref (s);
  gst_cuda_reduce_window_init (&w, 0, 1);
  s = cut (&w, &in);
  fail_unless_equals_int (SLICE (s, 0)->options.window_hops, 1);
  g_array_unref (s);
}

GST_END_TEST;

static Suite *
window_suite (void)
{
  Suite *s = suite_create ("window");
  TCase *tc = tcase_create ("window");
  cr_test_check_objects (tc);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_window_without_interval);
  tcase_add_test (tc, test_window_cuts_audio_where_intervals_end);
  tcase_add_test (tc, test_window_many_intervals_in_one_buffer);
  tcase_add_test (tc, test_window_whole_buffers_by_duration);
  tcase_add_test (tc, test_window_restarts);
  tcase_add_test (tc, test_window_hops);
  tcase_add_test (tc, test_window_slides_over_audio);
  tcase_add_test (tc, test_window_slides_over_frames);
  tcase_add_test (tc, test_window_of_one_hop);
  return s;
}

GST_CHECK_MAIN (window);
