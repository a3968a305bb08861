/* cr-reducer-regions.h: a result for each of many regions of a plane, in
 * one launch (kernels/regions.cu), on a reducer (cr-reducer.h) whose
 * program has CR_KERNELS_REGIONS. */
#pragma once

#include "cr-reducer-pairs.h"
#include "cr-reducer.h"

G_BEGIN_DECLS

/* A rectangle of a plane: @lines lines from line @y, in each @width rows
 * (pixels of the reducer's channels) from row @x. */
typedef struct {
  guint64 x, y;
  guint64 width, lines;
  /* Its rows before in the result (earlier planes, earlier frames of an
   * interval): the index its first pixel has. */
  guint64 rows_before;
  /* The rows its result covers, as finalize's count (and the job's, times
   * the channels): usually rows_before plus its own. */
  guint64 count;
} CrRect;

/* What a launch over rectangles continues and ends. */
typedef struct {
  /* Each rectangle continues the state the previous launch over
   * rectangles left for the same index. */
  gboolean carry;
  /* The job has a result per rectangle; otherwise none, and the states
   * are only kept for the next launch. */
  gboolean emit;
  /* A sliding window (with @emit): the states at the end of the launch,
   * and the rectangles' counts, are hop @hop's, kept in a ring of
   * @ring_hops hops (2 or more; 0: no window), and each result spans the
   * last @window_hops of them (this one's included), finalized over their
   * counts together. */
  guint ring_hops;
  guint64 hop;
  guint window_hops;
} CrRectsOptions;

/* Queues the reductions of @n rectangles (at most CR_REGIONS_MAX) of
 * @plane, a region of whole lines (cr-reducer.h) read where it lies or
 * copied to the GPU first, as @options says: with emit, the job has @n
 * results of channels Out each. The reducer has at most
 * CR_REGION_CHANNELS_MAX channels. Fails, saying why, for a rectangle
 * outside the plane. */
CrJob *cr_reducer_submit_rects (CrReducer *reducer, const CrRegion *plane,
    const CrRect *rects, guint n, const CrRectsOptions *options,
    const guint8 *ctx, GError **error);

/* The same over @n_planes planes of a frame (at most
 * CR_REGION_PLANES_MAX), each of the @n regions read in each plane in
 * turn into one state, in one launch: as submitting each plane's
 * rectangles (@rects, region k of plane p at p * @n + k) with carry after
 * the first, and @options' emit and window with the last, but the GPU
 * waits for one launch instead of one a plane. The last plane's counts
 * are the results'. Not for a monoid with bins, whose counts are launched
 * a plane at a time (cr_reducer_submit_rects). */
CrJob *cr_reducer_submit_rects_planes (CrReducer *reducer,
    const CrRegion *planes, guint n_planes, const CrRect *rects, guint n,
    const CrRectsOptions *options, const guint8 *ctx, GError **error);

/* The same for a monoid that counts pairs (cr-reducer-pairs.h): each
 * rectangle in pixels of @pairs' first plane (of x_channels values), its
 * second plane of the same pixels; results of one 2-D histogram each. */
CrJob *cr_reducer_submit_pair_rects (CrReducer *reducer, const CrPairs *pairs,
    const CrRect *rects, guint n, const CrRectsOptions *options,
    const guint8 *ctx, GError **error);

G_END_DECLS
