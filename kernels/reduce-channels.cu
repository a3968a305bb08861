/* kernels/reduce-channels.cu: one result per channel, in one launch.
 *
 * Appended to reduce.cu (whose types and block helpers it uses). The input
 * is rows of `channels` interleaved elements: audio frames, pixels, or the
 * innermost dimension of a tensor. Each thread owns one channel and reads
 * every so many rows, so consecutive threads read consecutive elements and
 * every load is coalesced, whatever the channel count:
 *
 *   - W channels per block (a tile): all of them up to 32, else 32, a
 *     warp's worth, so that a warp still reads 32 neighbours; the grid's y
 *     dimension covers the tiles of wide rows (thousands of tensor
 *     channels), each block reducing one tile over a slice of the rows;
 *   - a block's T = (CR_BLOCK_THREADS / W) * W threads cover R = T / W rows
 *     per pass (128 rows of a stereo signal, 8 of a wide tensor), so that
 *     the last block folds each channel's partials with R threads.
 *
 * A block folds its threads' accumulators channel by channel in shared
 * memory, writes one partial per channel, and the last block of each tile
 * (elected by that tile's ticket) combines the tile's partials, folds in the
 * carried state, and finalizes. The element index i given to cr_load is the
 * row, the element's index within its channel. */

/* Folds @n blocks' partials of a tile, W = @width to a block from @first,
 * into sh[k] for k < width: R = CR_BLOCK_THREADS / W threads per channel,
 * each reading every R-th block's. Every thread of the block calls it. */
static __device__ void
cr_fold_partials (CrAccWords *sh, const CrAccWords *first, unsigned int n,
    unsigned int width, const Ctx &ctx)
{
  const unsigned int per_pass = CR_BLOCK_THREADS / width;
  const unsigned int t = threadIdx.x;
  const CrAccWords *mine = first + t % width;
  Acc total = cr_identity (ctx);
  /* Two asked for at a time, so that their waits for L2 overlap (four:
   * more registers, no faster). */
  if (t < per_pass * width)
    for (unsigned int b = t / width; b < n; b += 2 * per_pass) {
      Acc p[2];
#pragma unroll
      for (int u = 0; u < 2; u++)
        p[u] = b + u * per_pass < n
            ? cr_load_partial (
                  mine + (unsigned long long) (b + u * per_pass) * width)
            : cr_identity (ctx);
#pragma unroll
      for (int u = 0; u < 2; u++)
        total = cr_combine (total, p[u], ctx);
    }
  __syncthreads (); /* every thread is done reading sh */
  sh[t].acc = total;
  cr_fold_rows (sh, per_pass, width, ctx);
}

/* Ends a per-channel launch once sh[k] holds this block's total of
 * channel blockIdx.y * width + k, for every k < width (the arguments are
 * cr_reduce_channels's). Each block writes its partials; the last block of
 * the tile to finish folds them, combines @carry, and writes @state and
 * @result. That one fold reads a pair of partials per thread at a time,
 * with R = CR_BLOCK_THREADS / width threads per channel; over many blocks
 * it would be long (6 channels over 1,056 blocks: 13 pairs a thread, one
 * after another). So past 2R blocks, the last block of each group of 2R
 * folds its group's into a group partial, with one pair a thread, and the
 * last of those folds the groups' (the host sizes both buffers the same).
 *
 * partials:  gridDim.y * gridDim.x * width slots, then gridDim.y * G * width
 *            for the groups' (G = gridDim.x / 2R, rounded up)
 * tickets:   gridDim.y counters for the tiles, then gridDim.y * G for the
 *            groups; each is left zero by the block its count elects */
static __device__ __forceinline__ void
cr_finish_channels (CrAccWords *sh, unsigned int channels, unsigned int width,
    CrAccWords *partials, unsigned int *tickets, const Acc *carry, Acc *state,
    Out *result, unsigned long long count, const Ctx &ctx)
{
  const unsigned int t = threadIdx.x;
  const unsigned int tile = blockIdx.y;
  const unsigned int c = tile * width + t;
  const unsigned int blocks = gridDim.x;
  const unsigned int group_blocks = CR_GROUP_BLOCKS (width);
  CrAccWords *tile_partials =
      partials + (unsigned long long) tile * blocks * width;

  if (blocks > 1 && t < width)
    tile_partials[(unsigned long long) blockIdx.x * width + t].acc =
        sh[t].acc;
  const unsigned int groups = CR_GROUPS (blocks, width);
  /* Grouped where the one fold would read more than four pairs a thread:
   * below, the second election costs more than the pairs it saves. On the
   * H200, as a fraction of the single result: grouping past one pair a
   * thread dropped 3 channels of sum at 4 MiB 0.76 -> 0.66; past two, 1024
   * channels at 16 MiB 0.98 -> 0.82; past four (here) 0.73 and 0.92, and
   * 3 channels of sum at 16 MiB 0.87 -> 0.78, while 3 and 6 channels of
   * sumsq gained 0.10 to 0.27 at most sizes (docs/performance.md).
   * CR_GROUPED_PAIRS varies it for benchmarks. */
#ifndef CR_GROUPED_PAIRS
#define CR_GROUPED_PAIRS 4
#endif
  if (blocks > CR_GROUPED_PAIRS * group_blocks) {
    const unsigned int g = blockIdx.x / group_blocks;
    const unsigned int first = g * group_blocks;
    const unsigned int in_group =
        blocks - first < group_blocks ? blocks - first : group_blocks;
    unsigned int *group_ticket = tickets + gridDim.y + tile * groups + g;
    if (!cr_block_is_last_of (group_ticket, in_group))
      return;
    cr_fold_partials (sh, tile_partials + (unsigned long long) first * width,
        in_group, width, ctx);
    CrAccWords *group_partials = partials
        + (unsigned long long) gridDim.y * blocks * width
        + (unsigned long long) tile * groups * width;
    if (t < width)
      group_partials[g * width + t].acc = sh[t].acc;
    cr_release_ticket (group_ticket, in_group);
    if (!cr_block_is_last_of (&tickets[tile], groups))
      return;
    cr_fold_partials (sh, group_partials, groups, width, ctx);
  } else {
    if (!cr_block_is_last_of (&tickets[tile], blocks))
      return;
    if (blocks > 1)
      cr_fold_partials (sh, tile_partials, blocks, width, ctx);
  }
  if (t < width && c < channels)
    cr_end_channel (sh[t].acc, c, carry, state, result, count, ctx);
  cr_release_ticket (&tickets[tile], blocks);
}

/* data:      rows * channels elements, aligned to their size
 * width:     W, channels per tile (at most CR_BLOCK_THREADS)
 * row_base:  the index of data's first row in the whole input (for i)
 * partials:  as cr_finish_channels says; tickets: likewise, zero before
 *            the first launch and left zero by every launch
 * carry:     NULL, or `channels` accumulators of the rows before (may equal
 *            state)
 * state:     receives carry combined with these rows, per channel
 * result:    receives cr_finalize (state, count) per channel */
extern "C" __global__ void __launch_bounds__ (CR_BLOCK_THREADS)
cr_reduce_channels (const In *data, unsigned long long rows,
    unsigned int channels, unsigned int width, unsigned long long row_base,
    CrAccWords *partials,
    unsigned int *tickets, const Acc *carry, Acc *state, Out *result,
    unsigned long long count, const Ctx ctx)
{
  __shared__ CrAccWords sh[CR_BLOCK_THREADS];
  const unsigned int per_pass = CR_BLOCK_THREADS / width;
  const unsigned int used = per_pass * width;
  const unsigned int t = threadIdx.x;
  const unsigned int lane_channel = t % width;
  const unsigned int c = blockIdx.y * width + lane_channel;
  const bool active = t < used && c < channels;
  const unsigned long long first =
      (unsigned long long) blockIdx.x * per_pass + t / width;
  const unsigned long long step = (unsigned long long) gridDim.x * per_pass;
  sh[t].acc = active
      ? cr_fold_strided (data, rows, channels, c, first, step, row_base, ctx)
      : cr_identity (ctx);
  cr_fold_rows (sh, per_pass, width, ctx);
  cr_finish_channels (sh, channels, width, partials, tickets, carry, state,
      result, count, ctx);
}

/* A few channels whose rows pack whole into 16 bytes (2 or 4 of float32, up
 * to 8 of bytes): the single-result kernel's loads and ending
 * (cr_reduce_packed in reduce.cu), with one accumulator per channel. */
#define CR_CHANNELS_VEC_KERNEL(C) \
  extern "C" __global__ void __launch_bounds__ (CR_BLOCK_THREADS) \
  cr_reduce_channels_vec##C (const In *data, unsigned long long rows, \
      unsigned long long row_base, CrAccWords *partials, \
      unsigned int *ticket, const Acc *carry, Acc *state, Out *result, \
      unsigned long long count, const Ctx ctx) \
  { \
    cr_reduce_packed<C> (data, rows, row_base, partials, ticket, carry, \
        state, result, count, ctx); \
  }

/* Only where C rows fill a load exactly, and where the program was asked
 * for them (the host looks them up by name, as cr_kernels_vec says). */
#if CR_WITH_VEC2
CR_CHANNELS_VEC_KERNEL (2)
#endif
#if CR_WITH_VEC4 && CR_LOAD_BYTES / CR_IN_BYTES % 4 == 0
CR_CHANNELS_VEC_KERNEL (4)
#endif
#if CR_WITH_VEC8 && CR_LOAD_BYTES / CR_IN_BYTES % 8 == 0
CR_CHANNELS_VEC_KERNEL (8)
#endif
