/* cr-geometry.c: launch grids and the buffers they need. */
#include "cr-geometry.h"

guint
cr_geometry_tile_width (guint channels)
{
  return MAX (1, MIN (channels, CR_TILE_WIDTH_MAX));
}

guint
cr_geometry_tiles (guint channels)
{
  const guint width = cr_geometry_tile_width (channels);
  return (channels + width - 1) / width;
}

gint
cr_geometry_vec_kernel (const CrGridLimits *limits, guint channels)
{
  for (guint k = 0; k < G_N_ELEMENTS (limits->vec); k++)
    if (channels == 2u << k)
      return limits->vec[k] ? (gint)k : -1;
  return -1;
}

/* @work split into blocks of @per_block, at least one, at most @limit. */
static guint
blocks_for (guint64 work, guint64 per_block, guint limit)
{
  const guint64 want = (work + per_block - 1) / per_block;
  return (guint)MIN ((guint64)MAX (1, limit), MAX ((guint64)1, want));
}

/* Small inputs spread over as many multiprocessors as they can fill,
 * large ones over a grid that keeps every one full. */
CrGrid
cr_geometry_single (const CrGridLimits *limits, gsize elem, guint64 rows)
{
  const guint64 per_block = (guint64)CR_BLOCK_THREADS * (CR_LOAD_BYTES / elem);
  return (CrGrid){ blocks_for (rows, per_block, limits->single), 1 };
}

CrGrid
cr_geometry_pitched (const CrGridLimits *limits, guint64 n_loads)
{
  return (CrGrid){ blocks_for (n_loads, CR_BLOCK_THREADS, limits->single), 1 };
}

/* Shaped as the single result, but each block's ending folds C channels,
 * so fewer blocks cost less (2 channels at 4 MiB: 0.68-0.84 of the single
 * result with one load a thread, 0.93-0.98 with four, on the H200). */
CrGrid
cr_geometry_packed (const CrGridLimits *limits, gint vec, gsize elem,
    guint64 rows, guint channels)
{
  g_return_val_if_fail (vec >= 0 && vec < 3, ((CrGrid){ 1, 1 }));
  const guint64 per_block =
      (guint64)CR_BLOCK_THREADS * (CR_LOAD_BYTES / elem) * CR_UNROLL;
  return (
      CrGrid){ blocks_for (rows * channels, per_block, limits->vec[vec]), 1 };
}

/* The most blocks on the x dimension when @tiles share the kernel's
 * resident blocks: one per tile at least. */
static guint
channels_max_x (const CrGridLimits *limits, guint tiles)
{
  return MAX (1, limits->channels / tiles);
}

/* Fewer rows a thread than CR_CH_UNROLL would leave memory idle (the
 * kernel issues that many loads before it waits), and more blocks only
 * lengthen the last block's fold of their partials. */
CrGrid
cr_geometry_channels (const CrGridLimits *limits, guint64 rows, guint channels)
{
  const guint tiles = cr_geometry_tiles (channels);
  const guint64 rows_per_pass =
      CR_BLOCK_THREADS / cr_geometry_tile_width (channels);
  return (CrGrid){ blocks_for (rows, rows_per_pass * CR_CH_UNROLL,
                       channels_max_x (limits, tiles)),
    tiles };
}

/* The single-result kernels write a slot per block; the packed ones C per
 * block; the per-channel one a slot per channel of each block and of each
 * group of blocks (CR_GROUPS), with a ticket per tile and per group
 * (cr_finish_channels); a batch a slot per channel of each segment. */
CrGridBuffers
cr_geometry_buffers (const CrGridLimits *limits, guint channels)
{
  const guint64 tiles = cr_geometry_tiles (channels);
  const guint64 width = cr_geometry_tile_width (channels);
  const guint64 max_x = channels_max_x (limits, (guint)tiles);
  const guint64 groups = CR_GROUPS (max_x, width);
  guint64 slots =
      MAX ((guint64)limits->single, tiles * (max_x + groups) * width);
  const gint vec = cr_geometry_vec_kernel (limits, channels);
  if (vec >= 0)
    slots = MAX (slots, (guint64)limits->vec[vec] * channels);
  slots = MAX (slots, (guint64)CR_BATCH_MAX * channels);
  return (CrGridBuffers){ .partial_slots = (gsize)slots,
    .ticket_bytes = (gsize)MAX (16, tiles * (1 + groups) * CR_TICKET_BYTES) };
}
