/* gstcudareduce-window.c: interval accounting. */
#include "gstcudareduce-window.h"

#include <string.h>

void
gst_cuda_reduce_window_init (
    GstCudaReduceWindow *w, GstClockTime length, guint hops)
{
  memset (w, 0, sizeof *w);
  w->length = length;
  w->hops = CLAMP (hops, 1, GST_CUDA_REDUCE_WINDOW_MAX_HOPS);
}

gboolean
gst_cuda_reduce_window_hops (
    GstClockTime window, GstClockTime interval, guint *hops, GError **error)
{
  *hops = 1;
  if (window == 0)
    return TRUE;
  if (interval == 0) {
    g_set_error (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
        "window (%" G_GUINT64_FORMAT " ns) slides by interval, which is "
        "not set: set interval to the time between results, e.g. "
        "interval=100000000 window=400000000 for 400 ms every 100 ms",
        window);
    return FALSE;
  }
  if (window % interval != 0 || window < interval) {
    const guint64 below = MAX (1, window / interval);
    g_set_error (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
        "window (%" G_GUINT64_FORMAT " ns) is not a whole number of "
        "intervals (%" G_GUINT64_FORMAT " ns): results are combined from "
        "whole intervals, so set window to a multiple of interval, e.g. "
        "%" G_GUINT64_FORMAT " or %" G_GUINT64_FORMAT,
        window, interval, below * interval, (below + 1) * interval);
    return FALSE;
  }
  if (window / interval > GST_CUDA_REDUCE_WINDOW_MAX_HOPS) {
    g_set_error (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
        "window (%" G_GUINT64_FORMAT " ns) spans %" G_GUINT64_FORMAT
        " intervals, more than the %u a window may: make interval longer "
        "or window shorter",
        window, window / interval, GST_CUDA_REDUCE_WINDOW_MAX_HOPS);
    return FALSE;
  }
  *hops = (guint)(window / interval);
  return TRUE;
}

void
gst_cuda_reduce_window_reset (GstCudaReduceWindow *w)
{
  /* No hop of the past counts. */
  w->open = FALSE;
  w->filled = 0;
  w->hop = 0;
  w->rows = w->base = 0;
}

static GstClockTime
frames_to_time (guint64 frames, gint rate)
{
  return gst_util_uint64_scale_int (frames, GST_SECOND, rate);
}

static void
open_window (GstCudaReduceWindow *w, GstClockTime start)
{
  w->open = TRUE;
  w->base += w->rows;
  w->rows = w->frames = 0;
  w->elapsed = 0;
  w->start = start;
  w->starts[w->hop % w->hops] = start;
}

/* Where @options start: after the rows of the hop so far, and with a
 * sliding window after those of the window's earlier hops too, so that
 * rows combined into one result have one index each. */
static void
place (const GstCudaReduceWindow *w, CrSubmitOptions *options)
{
  options->window_base = w->hops > 1 ? w->base : 0;
  options->rows_before = options->window_base + w->rows;
}

/* @slice ends the hop accumulating, @length long (NONE: unknown): the
 * result spans it and the hops before it in the window, from the first
 * one's start, for their lengths together. */
static void
end_hop (GstCudaReduceWindow *w, GstCudaReduceSlice *slice, GstClockTime length)
{
  w->lengths[w->hop % w->hops] = length;
  w->filled = MIN (w->filled + 1, w->hops);
  slice->options.window_hops = w->filled;
  slice->options.hop = w->hop;
  slice->window_size = w->hops;
  const guint64 first = w->hop + 1 - w->filled;
  slice->timestamp = w->starts[first % w->hops];
  slice->duration = 0;
  for (guint64 h = first; h <= w->hop; h++) {
    const GstClockTime l = w->lengths[h % w->hops];
    slice->duration =
        GST_CLOCK_TIME_IS_VALID (l) && GST_CLOCK_TIME_IS_VALID (slice->duration)
        ? slice->duration + l
        : GST_CLOCK_TIME_NONE;
  }
  w->hop++;
  w->open = FALSE;
}

/* Audio: cut where intervals end, as level does. */
static void
cut_audio (GstCudaReduceWindow *w, const GstCudaReduceInput *in, GArray *slices)
{
  const guint64 per_interval =
      MAX (1, gst_util_uint64_scale_round (w->length, in->rate, GST_SECOND));
  const guint64 frames = in->bytes / in->frame_bytes;
  guint64 done = 0;

  do {
    if (!w->open)
      open_window (w,
          GST_CLOCK_TIME_IS_VALID (in->pts)
              ? in->pts + frames_to_time (done, in->rate)
              : GST_CLOCK_TIME_NONE);
    const guint64 take = MIN (frames - done, per_interval - w->frames);
    GstCudaReduceSlice slice = {
      .offset = done * in->frame_bytes,
      .size = take * in->frame_bytes,
      .emit = w->frames + take == per_interval,
    };
    slice.options.carry = w->frames > 0;
    place (w, &slice.options);
    slice.options.discard_result = !slice.emit;
    if (slice.emit)
      end_hop (w, &slice, frames_to_time (per_interval, in->rate));
    g_array_append_val (slices, slice);
    w->frames += take;
    w->rows += slice.size / in->row_bytes;
    done += take;
  } while (done < frames);
}

/* Anything else: whole buffers, until their durations reach the
 * interval. */
static void
cut_whole (GstCudaReduceWindow *w, const GstCudaReduceInput *in, GArray *slices)
{
  const GstClockTime duration = in->duration;

  if (!w->open)
    open_window (w, in->pts);
  if (GST_CLOCK_TIME_IS_VALID (duration))
    w->elapsed += duration;
  GstCudaReduceSlice slice = { .whole = TRUE };
  /* Without durations every buffer closes its interval. Half a buffer of
   * slack, because durations are truncated: three frames at 30/1 are
   * 99999999 ns, and should make a 100 ms interval. */
  slice.emit = !GST_CLOCK_TIME_IS_VALID (duration)
      || w->elapsed + duration / 2 >= w->length;
  slice.options.carry = w->rows > 0;
  place (w, &slice.options);
  slice.options.discard_result = !slice.emit;
  if (slice.emit)
    end_hop (w, &slice,
        GST_CLOCK_TIME_IS_VALID (duration) ? w->elapsed : GST_CLOCK_TIME_NONE);
  g_array_append_val (slices, slice);
  w->rows += in->bytes / in->row_bytes;
}

void
gst_cuda_reduce_window_cut (
    GstCudaReduceWindow *w, const GstCudaReduceInput *in, GArray *slices)
{
  if (w->length == 0) {
    GstCudaReduceSlice slice = {
      .whole = TRUE,
      .emit = TRUE,
      .timestamp = in->pts,
      .duration = in->duration,
      .options.window_hops = 1,
      .window_size = 1,
    };
    g_array_append_val (slices, slice);
    return;
  }
  /* A new stream, or another monoid, starts a new interval and the window
   * afresh. */
  if (in->discont || w->owner != in->owner)
    gst_cuda_reduce_window_reset (w);
  w->owner = in->owner;
  if (in->frame_bytes > 0)
    cut_audio (w, in, slices);
  else
    cut_whole (w, in, slices);
}

gboolean
gst_cuda_reduce_window_close (GstCudaReduceWindow *w, gconstpointer owner,
    gint rate, GstCudaReduceSlice *slice)
{
  if (!w->open || owner == NULL || w->owner != owner)
    return FALSE;
  memset (slice, 0, sizeof *slice);
  slice->whole = TRUE;
  slice->emit = TRUE;
  slice->options.carry = w->rows > 0;
  place (w, &slice->options);
  /* Audio counts frames; everything else durations. */
  const GstClockTime length =
      rate > 0 && w->frames > 0 ? frames_to_time (w->frames, rate) : w->elapsed;
  end_hop (w, slice, length);
  return TRUE;
}
