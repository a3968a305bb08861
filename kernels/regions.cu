/* kernels/regions.cu: a result for each of many regions of a frame's
 * plane, in one launch.
 *
 * Appended to the kernel template (whose block helpers it uses), and only
 * to programs asked for it (CR_KERNELS_REGIONS). The host lists the
 * regions (CrRegionRect, kernels/cr-abi.h) and gives each as many blocks
 * as its size needs; a table maps every block of the grid to its region,
 * so that a block finds its work with one load, and a frame of a thousand
 * small regions and one of a single large one both fill the GPU. A region
 * too small to keep a block's threads busy gets a warp instead, with up to
 * CR_WARPS regions a block (a group, CR_REGION_GROUP): its total needs
 * shuffles only, where a block's waits twice for all its warps.
 *
 * Each thread folds pixels of its region a grid-stride apart (the pixel's
 * line and column from its index in the region), all of a pixel's
 * channels at once: a video plane has at most CR_REGION_CHANNELS_MAX. A
 * region read by several blocks ends in the last of them to finish, which
 * its own ticket elects, as a whole reduction ends in cr_finish_packed.
 * A frame's planes are launches of their own: a region's state passes
 * from one to the next (CR_REGIONS_CARRY), and on from frame to frame of
 * an interval, and the last writes the results (CR_REGIONS_EMIT). A
 * sliding window keeps each hop's states in a ring, which
 * cr_window_regions combines. */

/* Loads a thread issues before it uses any. */
#define CR_REGION_UNROLL 4

/* The address of byte @offset from @base, modulo 2^64: a later plane of a
 * launch may lie before its first. */
static __device__ __forceinline__ const unsigned char *
cr_region_at (const unsigned char *base, unsigned long long offset)
{
  return reinterpret_cast<const unsigned char *> (
      reinterpret_cast<unsigned long long> (base) + offset);
}

/* Folds into acc[c] the pixels of @rect from pixel @p on, @step apart,
 * every channel; returns the pixel after its last, less its pixels: where
 * the fold goes on in the region's next plane. The region's index counts
 * its pixels, line by line, after the rows of the planes before. */
template <int C>
static __device__ __forceinline__ unsigned int
cr_fold_region_part (const unsigned char *base, const CrRegionRect &rect,
    unsigned int p, unsigned int step, Acc (&acc)[C], const Ctx &ctx)
{
  /* The host keeps a region below 2^31 pixels. */
  const unsigned int width = rect.width;
  const unsigned int n = width * rect.lines;
  const unsigned char *first = cr_region_at (base, rect.offset);
  const unsigned long long pitch = rect.pitch;

  for (; p + (CR_REGION_UNROLL - 1) * step < n;
       p += CR_REGION_UNROLL * step) {
    In x[CR_REGION_UNROLL][C];
#pragma unroll
    for (int u = 0; u < CR_REGION_UNROLL; u++) {
      const unsigned int q = p + u * step;
      const In *px = reinterpret_cast<const In *> (
                         first + (unsigned long long) (q / width) * pitch)
          + (q % width) * C;
#pragma unroll
      for (int c = 0; c < C; c++)
        x[u][c] = __ldg (px + c);
    }
#pragma unroll
    for (int u = 0; u < CR_REGION_UNROLL; u++)
#pragma unroll
      for (int c = 0; c < C; c++)
        acc[c] = cr_combine (acc[c],
            cr_load (x[u][c], rect.row_base + p + u * step, ctx), ctx);
  }
  for (; p < n; p += step) {
    const In *px = reinterpret_cast<const In *> (
                       first + (unsigned long long) (p / width) * pitch)
        + (p % width) * C;
#pragma unroll
    for (int c = 0; c < C; c++)
      acc[c] = cr_combine (acc[c], cr_load (__ldg (px + c), rect.row_base + p,
          ctx), ctx);
  }
  return p - n;
}

/* Folds region @k in each of the launch's @planes, from pixel @p of its
 * first on, @step apart, as if its planes' pixels were one run. */
template <int C>
static __device__ __forceinline__ void
cr_fold_region (const unsigned char *base, const CrRegionRect *rects,
    unsigned int k, unsigned int regions, unsigned int planes, unsigned int p,
    unsigned int step, Acc (&acc)[C], const Ctx &ctx)
{
#pragma unroll
  for (int c = 0; c < C; c++)
    acc[c] = cr_identity (ctx);
  for (unsigned int s = 0; s < planes; s++)
    p = cr_fold_region_part<C> (
        base, rects[s * regions + k], p, step, acc, ctx);
}

/* Ends region @k with its @total (in the one thread that holds it): after
 * the state carried, kept as the region's state, and with
 * CR_REGIONS_EMIT finalized into its results. */
template <int C>
static __device__ __forceinline__ void
cr_end_region (unsigned int k, unsigned long long count,
    const Acc (&total)[C], unsigned int flags, Acc *states, Out *results,
    const Ctx &ctx)
{
#pragma unroll
  for (int c = 0; c < C; c++) {
    const unsigned long long slot = (unsigned long long) k * C + c;
    Acc acc = total[c];
    if (flags & CR_REGIONS_CARRY)
      acc = cr_combine (states[slot], acc, ctx);
    states[slot] = acc;
    if (flags & CR_REGIONS_EMIT)
      results[slot] = cr_finalize (acc, count, ctx);
  }
}

/* A block of a group: warp w reads the group's region w, alone. A
 * group's branch is its whole block's, and no warp of it waits for
 * another, so those without a region may leave at once. */
template <int C>
static __device__ __forceinline__ void
cr_reduce_region_group (const unsigned char *base, const CrRegionRect *rects,
    unsigned int regions, unsigned int planes, unsigned int group,
    unsigned int flags, Acc *states, Out *results, const Ctx &ctx)
{
  const unsigned int warp = threadIdx.x / CR_WARP_THREADS;
  const unsigned int lane = threadIdx.x % CR_WARP_THREADS;
  if (warp >= CR_REGION_GROUP_SIZE (group))
    return;
  const unsigned int k = CR_REGION_GROUP_FIRST (group) + warp;
  Acc acc[C];

  cr_fold_region<C> (
      base, rects, k, regions, planes, lane, CR_WARP_THREADS, acc, ctx);
#pragma unroll
  for (int c = 0; c < C; c++)
    acc[c] = cr_warp_reduce (acc[c], ctx);
  if (lane == 0)
    cr_end_region<C> (k, rects[(planes - 1) * regions + k].count, acc, flags,
        states, results, ctx);
}

template <int C>
static __device__ __forceinline__ void
cr_reduce_region (const unsigned char *base, const CrRegionRect *rects,
    const unsigned int *block_region, unsigned int regions,
    unsigned int planes, unsigned int flags, CrAccWords *partials,
    unsigned int *tickets, Acc *states, Out *results, const Ctx &ctx)
{
  const unsigned int k = block_region[blockIdx.x];
  if (k & CR_REGION_GROUP_BIT) {
    cr_reduce_region_group<C> (
        base, rects, regions, planes, k, flags, states, results, ctx);
    return;
  }
  const CrRegionRect rect = rects[k];
  Acc acc[C];

  cr_fold_region<C> (base, rects, k, regions, planes,
      (blockIdx.x - rect.first_block) * CR_BLOCK_THREADS + threadIdx.x,
      rect.blocks * CR_BLOCK_THREADS, acc, ctx);
#pragma unroll
  for (int c = 0; c < C; c++)
    acc[c] = cr_block_reduce (acc[c], ctx);
  if (rect.blocks > 1) {
    if (threadIdx.x == 0) {
#pragma unroll
      for (int c = 0; c < C; c++)
        partials[(unsigned long long) blockIdx.x * C + c].acc = acc[c];
    }
    if (!cr_block_is_last_of (&tickets[k], rect.blocks))
      return;
#pragma unroll
    for (int c = 0; c < C; c++) {
      Acc total = cr_identity (ctx);
      for (unsigned int i = threadIdx.x; i < rect.blocks;
           i += CR_BLOCK_THREADS)
        total = cr_combine (total,
            cr_load_partial (
                partials + (unsigned long long) (rect.first_block + i) * C + c),
            ctx);
      acc[c] = cr_block_reduce (total, ctx);
    }
  }
  if (threadIdx.x == 0)
    cr_end_region<C> (k, rects[(planes - 1) * regions + k].count, acc, flags,
        states, results, ctx);
  cr_release_ticket (&tickets[k], rect.blocks);
}

/* base:         the first plane's first line (device memory, or memory
 *               the device maps); every rect's offset is from it
 * rects:        the @regions regions of each of the @planes planes (read
 *               one after another into each region's state);
 *               block_region: each block's region, or group of regions
 *               (CR_REGION_GROUP_BIT)
 * partials:     CR_REGION_BLOCKS_MAX * C slots
 * tickets:      one per region, zero before the first launch and left zero
 * states:       C Acc per region, carried from launch to launch
 * results:      C Out per region (with CR_REGIONS_EMIT)
 * A kernel per channel count, so that each keeps the registers its own
 * accumulators need: in one kernel, RGBA's four would cost the others
 * blocks per multiprocessor, and a frame of many small regions its
 * wave. */
#define CR_REGIONS_KERNEL(C) \
  extern "C" __global__ void __launch_bounds__ (CR_BLOCK_THREADS) \
      cr_reduce_regions##C (const unsigned char *base, \
          const CrRegionRect *rects, const unsigned int *block_region, \
          unsigned int regions, unsigned int planes, unsigned int flags, \
          CrAccWords *partials, unsigned int *tickets, Acc *states, \
          Out *results, const Ctx ctx) \
  { \
    cr_reduce_region<C> (base, rects, block_region, regions, planes, flags, \
        partials, tickets, states, results, ctx); \
  }
CR_REGIONS_KERNEL (1)
CR_REGIONS_KERNEL (2)
CR_REGIONS_KERNEL (3)
CR_REGIONS_KERNEL (4)
static_assert (CR_REGION_CHANNELS_MAX == 4, "a kernel per channel count");

/* A sliding window's results per region, from the states its hops left
 * (copied into a ring of @ring_hops slots of @values Acc each, @values the
 * regions times the channels), oldest first, as cr_window combines a
 * whole result's: value v is region v / channels's, finalized over that
 * region's @counts. Writes over the results the hop's own launch wrote. */
extern "C" __global__ void __launch_bounds__ (CR_BLOCK_THREADS)
cr_window_regions (const Acc *ring, unsigned int ring_hops, unsigned int last,
    unsigned int hops, unsigned int values, unsigned int channels,
    const unsigned long long *counts, Out *results, const Ctx ctx)
{
  const unsigned int v = blockIdx.x * CR_BLOCK_THREADS + threadIdx.x;
  if (v >= values)
    return;
  const unsigned int first = (last + ring_hops - (hops - 1)) % ring_hops;
  Acc acc = ring[(unsigned long long) first * values + v];
  for (unsigned int back = hops - 1; back-- > 0;)
    acc = cr_combine (acc,
        ring[(unsigned long long) ((last + ring_hops - back) % ring_hops)
                * values
            + v],
        ctx);
  results[v] = cr_finalize (acc, counts[v / channels], ctx);
}

#ifdef CR_BINS
/* Ends region @k's counts of @channels channels, in the last of its
 * blocks, after every block's flush, as cr_bins_finish ends a whole
 * reduction's: the counts after the state carried (CR_REGIONS_CARRY) are
 * kept as the region's state, and with CR_REGIONS_EMIT written with the
 * percentiles read off them to the region's place in the results, @stride
 * bytes a region; the region's scratch is left zero. Every thread of the
 * block calls it. */
static __device__ void
cr_end_region_bins (unsigned int k, unsigned int channels, unsigned int flags,
    const CrBinArgs &bins, unsigned long long stride, const CrBinning &b,
    const Ctx &ctx)
{
  const unsigned int slots = channels * CR_BIN_SLOTS (CR_BINS);
  unsigned long long *scratch =
      reinterpret_cast<unsigned long long *> (bins.scratch)
      + (unsigned long long) k * slots;
  unsigned long long *state =
      reinterpret_cast<unsigned long long *> (bins.state)
      + (unsigned long long) k * slots;
  unsigned long long *result = reinterpret_cast<unsigned long long *> (
      bins.result + (unsigned long long) k * stride);
  for (unsigned int w = threadIdx.x; w < slots; w += CR_BLOCK_THREADS) {
    unsigned long long count = __ldcg (scratch + w);
    if (flags & CR_REGIONS_CARRY)
      count += state[w];
    state[w] = count;
    if (flags & CR_REGIONS_EMIT)
      result[w] = count;
    scratch[w] = 0;
  }
#ifdef CR_PERCENTILES
  /* From the state, which this block's threads wrote. */
  __syncthreads ();
  if (flags & CR_REGIONS_EMIT)
    cr_percentiles (state, channels, b,
        reinterpret_cast<double *> (result + slots), ctx);
#endif
}

#ifndef CR_PAIR_BINS
/* Counts per region, for a monoid with bins (histogram.cu): the same
 * table of regions and blocks as cr_reduce_regions (launched before it
 * over the same plane where the monoid also folds an accumulator), each
 * region with counters of its own. A block counts its share of its
 * region's pixels in shared counters (bins.copies copies, or none: the
 * region's scratch directly), adds them to the region's scratch, and the
 * last of the region's blocks ends it as cr_bins_finish ends a whole
 * reduction: the counts after the state carried (CR_REGIONS_CARRY) are
 * kept as the region's state, and with CR_REGIONS_EMIT written with the
 * percentiles read off them to the region's place in @results.
 *
 * bins:    scratch and state: @slots counters per region (channels times
 *          CR_BIN_SLOTS), scratch zero before and after every launch;
 *          result: region 0's counts, then its percentiles (doubles),
 *          each region @stride bytes after the one before; carry unused
 * tickets: one per region, zero before the launch and left zero */
extern "C" __global__ void __launch_bounds__ (CR_BLOCK_THREADS)
cr_histogram_regions (const unsigned char *plane, unsigned long long pitch,
    const CrRegionRect *rects, const unsigned int *block_region,
    unsigned int channels, unsigned int flags, unsigned int *tickets,
    const CrBinArgs bins, unsigned long long stride, const Ctx ctx)
{
  /* A block a region: the host makes no groups for monoids with bins. */
  const unsigned int k = block_region[blockIdx.x];
  const CrRegionRect rect = rects[k];
  const unsigned int slots = channels * CR_BIN_SLOTS (CR_BINS);
  const CrBinning b = cr_binning (ctx);
  unsigned int *mine = cr_bins_begin (slots, bins.copies);
  const unsigned int *table = cr_bin_table (b, ctx);
  unsigned long long *scratch =
      reinterpret_cast<unsigned long long *> (bins.scratch)
      + (unsigned long long) k * slots;
  __syncthreads ();

  /* Pixel p of the region, line by line, as cr_fold_region reads it. */
  const unsigned int width = rect.width;
  const unsigned int n = width * rect.lines;
  const unsigned int step = rect.blocks * CR_BLOCK_THREADS;
  const unsigned char *base = plane + rect.offset;
  for (unsigned int p = (blockIdx.x - rect.first_block) * CR_BLOCK_THREADS
           + threadIdx.x;
       p < n; p += step) {
    const In *px = reinterpret_cast<const In *> (
                       base + (unsigned long long) (p / width) * pitch)
        + (p % width) * channels;
    for (unsigned int c = 0; c < channels; c++)
      cr_count (__ldg (px + c), rect.row_base + p, c, b, table, mine, scratch,
          ctx);
  }
  cr_bins_flush (slots, bins.copies, scratch);
  if (!cr_block_is_last_of (&tickets[k], rect.blocks))
    return;
  cr_end_region_bins (k, channels, flags, bins, stride, b, ctx);
  cr_release_ticket (&tickets[k], rect.blocks);
}
#else
/* 2-D histograms per region: pairs of two components of each region's
 * pixels, as cr_histogram_pairs counts a whole plane's, over the table of
 * cr_histogram_regions. A region's first values are at @x + its offset,
 * its second at @y + its row_base (a pair's bins read no row index, so
 * the rect carries the second plane's offset there): pixel j of line l
 * is @x_step (@y_step) values after pixel j - 1, @x_pitch (@y_pitch)
 * bytes after line l - 1. A 2-D histogram's counters are too many to
 * zero and flush a block (a region may be 16 x 16 pixels), so warps add
 * to the region's scratch directly, one atomic for equal pairs. */
extern "C" __global__ void __launch_bounds__ (CR_BLOCK_THREADS)
cr_histogram_pair_regions (const unsigned char *x, const unsigned char *y,
    unsigned long long x_pitch, unsigned long long y_pitch,
    unsigned int x_step, unsigned int y_step,
    const CrRegionRect *rects, const unsigned int *block_region,
    unsigned int flags, unsigned int *tickets, const CrBinArgs bins,
    unsigned long long stride, const Ctx ctx)
{
  const unsigned int k = block_region[blockIdx.x];
  const CrRegionRect rect = rects[k];
  const unsigned int slots = CR_BIN_SLOTS (CR_BINS);
  const CrBinning b = cr_binning (ctx);
  const unsigned int *table = cr_bin_table (b, ctx);
  unsigned long long *scratch =
      reinterpret_cast<unsigned long long *> (bins.scratch)
      + (unsigned long long) k * slots;
  __syncthreads ();

  const unsigned int width = rect.width;
  const unsigned int n = width * rect.lines;
  const unsigned int step = rect.blocks * CR_BLOCK_THREADS;
  const unsigned int lane = threadIdx.x % CR_WARP_THREADS;
  const unsigned char *xs = x + rect.offset, *ys = y + rect.row_base;
  /* Whole warps go round together, as cr_count_warp needs: step is a
   * whole number of warps. */
  for (unsigned int t0 = (blockIdx.x - rect.first_block) * CR_BLOCK_THREADS
           + threadIdx.x - lane;
       t0 < n; t0 += step) {
    const unsigned int t = t0 + lane;
    const bool valid = t < n;
    unsigned int slot = 0;
    if (valid) {
      const unsigned long long line = t / width, col = t % width;
      const In vx = __ldg (reinterpret_cast<const In *> (xs + line * x_pitch)
          + col * x_step);
      const In vy = __ldg (reinterpret_cast<const In *> (ys + line * y_pitch)
          + col * y_step);
      slot = cr_pair_slot (
          cr_slot (vx, 0, b, table, ctx), cr_slot (vy, 0, b, table, ctx));
    }
    cr_count_warp (scratch, slot, valid);
  }
  cr_bins_flush (slots, 0, scratch);
  if (!cr_block_is_last_of (&tickets[k], rect.blocks))
    return;
  cr_end_region_bins (k, 1, flags, bins, stride, b, ctx);
  cr_release_ticket (&tickets[k], rect.blocks);
}
#endif

/* A sliding window's counts per region, from the counts its hops left
 * (copied into a ring of @ring_hops slots, each every region's @slots
 * counters), summed over the last @hops, as cr_window_bins sums a whole
 * result's: one block a region. The sums go to @sums (device memory,
 * which the percentiles read back) and to the region's place in
 * @results, @stride bytes a region, with the percentiles; written over
 * what the hop's own launch wrote. */
extern "C" __global__ void __launch_bounds__ (CR_BLOCK_THREADS)
cr_window_region_bins (const unsigned long long *ring, unsigned int ring_hops,
    unsigned int last, unsigned int hops, unsigned int regions,
    unsigned int channels, unsigned long long *sums, unsigned char *results,
    unsigned long long stride, const Ctx ctx)
{
  const unsigned int k = blockIdx.x;
  const unsigned int slots = channels * CR_BIN_SLOTS (CR_BINS);
  unsigned long long *sum = sums + (unsigned long long) k * slots;
  unsigned long long *result =
      reinterpret_cast<unsigned long long *> (results + k * stride);
  for (unsigned int w = threadIdx.x; w < slots; w += CR_BLOCK_THREADS) {
    unsigned long long n = 0;
    for (unsigned int back = 0; back < hops; back++)
      n += ring[((unsigned long long) ((last + ring_hops - back) % ring_hops)
                        * regions
                    + k)
              * slots
          + w];
    sum[w] = n;
    result[w] = n;
  }
#ifdef CR_PERCENTILES
  __syncthreads ();
  cr_percentiles (sum, channels, cr_binning (ctx),
      reinterpret_cast<double *> (result + slots), ctx);
#endif
}
#endif
