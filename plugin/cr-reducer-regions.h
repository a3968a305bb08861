/* cr-reducer-regions.h: a result for each of many regions of a plane, in
 * one launch (kernels/regions.cu), on a reducer (cr-reducer.h) whose
 * program has CR_KERNELS_REGIONS. */
#pragma once

#include "cr-reducer.h"

G_BEGIN_DECLS

/* A rectangle of a plane: @lines lines from line @y, in each @width rows
 * (pixels of the reducer's channels) from row @x. */
typedef struct {
  guint64 x, y;
  guint64 width, lines;
  /* The region's rows in the planes before, for a launch that carries:
   * the index its first pixel has, and part of the count. */
  guint64 rows_before;
} CrRect;

/* Queues the reductions of @n rectangles (at most CR_REGIONS_MAX) of
 * @plane, a region of whole lines (cr-reducer.h) read where it lies or
 * copied to the GPU first. Each rectangle's state continues the one the
 * previous launch over rectangles left for the same index where @carry;
 * with @emit the job has @n results (channels Out each, counts of
 * rows_before plus the rectangle's rows, times the channels), and
 * without, the states are kept for the next launch and the job has none.
 * The reducer has at most CR_REGION_CHANNELS_MAX channels. Fails, saying
 * why, for a rectangle outside the plane. */
CrJob *cr_reducer_submit_rects (CrReducer *reducer, const CrRegion *plane,
    const CrRect *rects, guint n, gboolean carry, gboolean emit,
    const guint8 *ctx, GError **error);

G_END_DECLS
