/* gstcudareduce-window.h: which results a buffer ends, with `interval`.
 *
 * Without an interval each buffer is one slice that ends its own result.
 * With one, results accumulate across buffers in the reducer's state (the
 * window): audio buffers are cut where an interval ends, as the level
 * element does; video frames and tensors count whole, by duration. The
 * window only does the accounting; the element submits the slices. */
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

typedef struct {
  GstClockTime length; /* the interval; 0 for a result per buffer */
  gboolean open; /* a result is accumulating */
  gconstpointer owner;
  guint64 rows; /* of the reducer, so far */
  guint64 frames; /* audio frames, so far */
  GstClockTime start; /* of its first sample */
  GstClockTime elapsed; /* whole buffers: their durations so far */
} GstCudaReduceWindow;

void gst_cuda_reduce_window_init (
    GstCudaReduceWindow *window, GstClockTime length);
/* The next buffer starts a new result (flush, new caps). */
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
