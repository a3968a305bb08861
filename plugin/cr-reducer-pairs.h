/* cr-reducer-pairs.h: 2-D histograms on a reducer (cr-reducer.h) whose
 * monoid counts pairs of two components of the same pixels. */
#pragma once

#include "cr-reducer.h"

G_BEGIN_DECLS

/* Two components of the same pixels, for a program whose monoid counts
 * pairs (program->pair_bins): the first value of each pair in @x, the
 * second in @y, with as many rows and pixels a row (the same region for
 * NV12's U and V, two planes for I420's). A pixel of @x is @x_channels
 * interleaved values, of which the pair's is @x_channel; likewise @y's. */
typedef struct {
  CrRegion x, y;
  guint x_channels, x_channel;
  guint y_channels, y_channel;
} CrPairs;

/* cr_reducer_submit() for pairs: the job's count is the pairs'. */
CrJob *cr_reducer_submit_pairs (CrReducer *reducer, const CrPairs *pairs,
    const guint8 *ctx, const CrSubmitOptions *options, GError **error);

G_END_DECLS
