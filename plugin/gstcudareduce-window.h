/* gstcudareduce-window.h: which results a buffer ends, with `interval`.
 *
 * Without an interval each buffer is one slice that ends its own result.
 * With one, results accumulate across buffers in the reducer's state (the
 * window): audio buffers are cut where an interval ends, as the level
 * element does; video frames and tensors count whole, by duration. The
 * window only does the accounting; the element submits the slices.
 *
 * A sliding window spans several intervals (hops): each result, at the end
 * of a hop, is over the last `hops` hops, combined from each hop's partial
 * result. Until as many hops have passed since the window started afresh
 * (the stream's start, a flush, a discontinuity, new caps) a result spans
 * those there are, and says how many. One hop is tumbling intervals. */
#pragma once

#include "cr-reducer.h"

#include <gst/gst.h>

G_BEGIN_DECLS

/* A part of one buffer that one job reduces, and the result it ends. */
typedef struct {
  gboolean whole; /* the whole buffer, else the bytes below */
  gsize offset, size;
  CrSubmitOptions options;
  gboolean emit; /* ends a result */
  GstClockTime timestamp, duration; /* of the result */
  /* Ending a result: options.window_hops, the hops it combines, the last
   * ending here (fewer than the window's while it first fills; 1 for
   * tumbling intervals), and options.hop, the index of this hop since the
   * window started afresh (so the slot of its state in the reducer's ring
   * of the window's hops); and the hops of a whole window. */
  guint window_size;
} GstCudaReduceSlice;

/* What the window needs to know of one buffer. */
typedef struct {
  gsize bytes; /* reduced: visible bytes of every row */
  gsize row_bytes; /* of one row of the reducer (element x channels) */
  gsize frame_bytes; /* audio: one frame; 0 for whole buffers */
  gint rate; /* audio */
  GstClockTime pts, duration; /* duration may be NONE */
  gboolean discont;
  gconstpointer owner; /* the reducer whose state accumulates */
} GstCudaReduceInput;

/* The most hops a window spans (a 10 s window of 10 ms hops). */
#define GST_CUDA_REDUCE_WINDOW_MAX_HOPS 1024

typedef struct {
  GstClockTime length; /* the interval; 0 for a result per buffer */
  guint hops; /* a window's: 1 for tumbling intervals */
  guint filled; /* hops ended since the window started afresh, up to hops */
  guint64 hop; /* the index of the hop accumulating */
  /* The window's hops' starts and lengths (NONE: unknown), by hop % hops */
  GstClockTime starts[GST_CUDA_REDUCE_WINDOW_MAX_HOPS];
  GstClockTime lengths[GST_CUDA_REDUCE_WINDOW_MAX_HOPS];
  gboolean open; /* a result is accumulating */
  gconstpointer owner;
  guint64 rows; /* of the reducer, so far in this hop */
  guint64 base; /* of the hops ended since the window started afresh */
  guint64 frames; /* audio frames, so far */
  GstClockTime start; /* of its first sample */
  GstClockTime elapsed; /* whole buffers: their durations so far */
} GstCudaReduceWindow;

/* @length is the interval (0: none); @hops (1 or more) the hops of a
 * sliding window (gst_cuda_reduce_window_hops). */
void gst_cuda_reduce_window_init (
    GstCudaReduceWindow *window, GstClockTime length, guint hops);
/* The hops of a window of @window ns sliding by @interval ns: 1 without a
 * window (0). Fails, saying what to fix, for a window without an interval,
 * one that is not a whole number of intervals, or one of more than
 * GST_CUDA_REDUCE_WINDOW_MAX_HOPS. */
gboolean gst_cuda_reduce_window_hops (
    GstClockTime window, GstClockTime interval, guint *hops, GError **error);
/* The next buffer starts a new result, and the window afresh (flush, new
 * caps). */
void gst_cuda_reduce_window_reset (GstCudaReduceWindow *window);

/* Appends to @slices (of GstCudaReduceSlice) the slices of @input, in
 * order, and advances the window past them. Audio input must be whole
 * frames. */
void gst_cuda_reduce_window_cut (GstCudaReduceWindow *window,
    const GstCudaReduceInput *input, GArray *slices);

/* The result accumulating for @owner, as an empty slice that ends it (at
 * EOS); FALSE when there is none. Closes the window. */
gboolean gst_cuda_reduce_window_close (GstCudaReduceWindow *window,
    gconstpointer owner, gint rate, GstCudaReduceSlice *slice);

G_END_DECLS
