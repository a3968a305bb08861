/* cr-window-ring.h: the states of a sliding window's hops on the device.
 *
 * Each hop accumulates in a reducer's state as an interval does. Where a
 * result ends a hop, the hop's state (and counts) is copied into a ring
 * of the window's hops, slot hop % hops, and the program's window kernels
 * (kernels/window.cu) combine the slots of the hops the result spans,
 * oldest first, into the result the hop's own launch wrote: the values
 * are read once, whatever the window's length. The rows of each slot's hop
 * are kept on the host, which knows them when it submits. A hop that ends
 * in a batch (cr-batch.c) is kept, and its window combined, by the batch
 * kernel itself. */
#pragma once

#include "cr-cuda.h"
#include "cr-program.h"

G_BEGIN_DECLS

typedef struct {
  CUfunction combine; /* cr_window: states into the monoid's results */
  CUfunction combine_bins; /* cr_window_bins: counts and percentiles */
  guint hops; /* slots; 0: no window */
  guint channels;
  CUdeviceptr states; /* hops slots of channels Acc */
  CUdeviceptr counts; /* hops slots of channels x bin slots */
  CUdeviceptr sums; /* the window's counts, which percentiles read back */
  guint64 *rows; /* of each slot's hop */
} CrWindowRing;

/* Finds the window's kernels in @module, which has them where @program
 * has CR_KERNELS_WINDOW. */
gboolean cr_window_ring_load (CrWindowRing *ring, const CrDriver *cu,
    CUmodule module, const CrProgram *program, GError **error);
/* Device memory for @hops hops of @channels channels (none when @hops is
 * below 2), after freeing the ring's. The context is current, and no
 * queued launch uses the old ring. */
gboolean cr_window_ring_allocate (CrWindowRing *ring, const CrDriver *cu,
    const CrProgram *program, guint hops, guint channels, GError **error);
/* Frees the ring's memory; with @in_context FALSE (the context is gone or
 * broken) only the host's. */
void cr_window_ring_free (
    CrWindowRing *ring, const CrDriver *cu, gboolean in_context);

/* Where a hop that ends a result left its state. */
typedef struct {
  CUdeviceptr state; /* channels Acc (none without an accumulator) */
  CUdeviceptr bin_state; /* channels x bin slots counts (none without bins) */
  CUdeviceptr result; /* the result the hop's launch wrote */
  guint64 hop; /* counted since the window started afresh */
  guint window_hops; /* the hops the result spans, this one's included */
  guint64 rows; /* this hop's, per channel */
} CrHopEnd;

/* Notes the rows of the hop @end ends (only those fields are read) in its
 * slot, *@slot, and returns the rows of the *@span hops the result spans,
 * per channel. For a hop whose state is kept by its own kernel (a batch's,
 * CR_SEGMENT_HOP); cr_window_ring_end_hop notes its own. */
guint64 cr_window_ring_note_rows (
    CrWindowRing *ring, const CrHopEnd *end, guint *slot, guint *span);

/* Queues on @stream the copy of @end's state into its slot and, where the
 * result spans more than this hop, the combining of the spanned slots
 * into the result. Sets *@rows to the rows the result spans, per
 * channel. */
gboolean cr_window_ring_end_hop (CrWindowRing *ring, const CrDriver *cu,
    CUstream stream, const CrProgram *program, const CrHopEnd *end,
    const guint8 *ctx, guint64 *rows, GError **error);

G_END_DECLS
