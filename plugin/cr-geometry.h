/* cr-geometry.h: how many blocks each kernel launches with, and what the
 * buffers their blocks write must hold. Plain arithmetic on the limits
 * the GPU's occupancy gives, so that tests check it without a GPU. */
#pragma once

#include "cr-abi.h"

#include <glib.h>

G_BEGIN_DECLS

/* The most blocks of each kernel that the whole GPU keeps resident (its
 * occupancy per multiprocessor times the multiprocessors): a larger grid
 * only waits. 0 for a kernel the program does not have. */
typedef struct {
  guint single; /* cr_reduce and cr_reduce_pitched */
  guint channels; /* cr_reduce_channels */
  guint vec[3]; /* cr_reduce_channels_vec2, 4 and 8 */
} CrGridLimits;

typedef struct {
  guint x, y;
} CrGrid;

/* The per-channel kernel's tiles: W = tile_width channels to a block (at
 * most CR_TILE_WIDTH_MAX), one tile to each row of the grid. */
guint cr_geometry_tile_width (guint channels);
guint cr_geometry_tiles (guint channels);
/* Which of the packed kernels (CrGridLimits.vec) reads @channels
 * channels, or -1: 2, 4 or 8 channels, where the program has it. */
gint cr_geometry_vec_kernel (const CrGridLimits *limits, guint channels);

/* One result over @rows elements of @elem bytes: at least one load per
 * thread, at most limits->single blocks. */
CrGrid cr_geometry_single (
    const CrGridLimits *limits, gsize elem, guint64 rows);
/* The pitched kernel over @n_loads loads: one per thread at least. */
CrGrid cr_geometry_pitched (const CrGridLimits *limits, guint64 n_loads);
/* The packed kernel @vec over @rows rows of @channels: at least
 * CR_UNROLL loads a thread. */
CrGrid cr_geometry_packed (const CrGridLimits *limits, gint vec, gsize elem,
    guint64 rows, guint channels);
/* The per-channel kernel over @rows rows of @channels: every tile a row
 * of blocks, each thread CR_CH_UNROLL rows where there are enough. */
CrGrid cr_geometry_channels (
    const CrGridLimits *limits, guint64 rows, guint channels);

/* What the kernels' partials and tickets buffers must hold so that every
 * launch above (and a batch of CR_BATCH_MAX) fits, for @channels. */
typedef struct {
  gsize partial_slots; /* of CR_PARTIAL_SLOT_BYTES each */
  gsize ticket_bytes;
} CrGridBuffers;

CrGridBuffers cr_geometry_buffers (const CrGridLimits *limits, guint channels);

G_END_DECLS
