/* gstcudareduce-window.c: interval accounting. */
#include "gstcudareduce-window.h"

#include <string.h>

void
gst_cuda_reduce_window_init (GstCudaReduceWindow *w, GstClockTime length)
{
  memset (w, 0, sizeof *w);
  w->length = length;
}

void
gst_cuda_reduce_window_reset (GstCudaReduceWindow *w)
{
  w->open = FALSE;
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
  w->rows = w->frames = 0;
  w->elapsed = 0;
  w->start = start;
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
    slice.options.rows_before = w->rows;
    slice.options.discard_result = !slice.emit;
    if (slice.emit) {
      slice.timestamp = w->start;
      slice.duration = frames_to_time (per_interval, in->rate);
    }
    g_array_append_val (slices, slice);
    w->frames += take;
    w->rows += slice.size / in->row_bytes;
    done += take;
    if (slice.emit)
      w->open = FALSE;
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
  slice.options.rows_before = w->rows;
  slice.options.discard_result = !slice.emit;
  if (slice.emit) {
    slice.timestamp = w->start;
    slice.duration =
        GST_CLOCK_TIME_IS_VALID (duration) ? w->elapsed : GST_CLOCK_TIME_NONE;
  }
  g_array_append_val (slices, slice);
  w->rows += in->bytes / in->row_bytes;
  if (slice.emit)
    w->open = FALSE;
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
    };
    g_array_append_val (slices, slice);
    return;
  }
  /* A new stream, or another monoid, starts a new interval. */
  if (in->discont || w->owner != in->owner)
    w->open = FALSE;
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
  w->open = FALSE;
  memset (slice, 0, sizeof *slice);
  slice->whole = TRUE;
  slice->emit = TRUE;
  slice->options.carry = w->rows > 0;
  slice->options.rows_before = w->rows;
  slice->timestamp = w->start;
  /* Audio counts frames; everything else durations. */
  slice->duration =
      rate > 0 && w->frames > 0 ? frames_to_time (w->frames, rate) : w->elapsed;
  return TRUE;
}
