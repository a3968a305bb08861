/* kernels/histogram.cu: counts of values in CR_BINS bins, per channel,
 * and percentiles of the counts, for monoids with Bins (cr-monoid.h).
 * Appended after reduce.cu, whose ticket election it uses.
 *
 * Shape: each block counts its grid-stride share of 16-byte loads in
 * 32-bit counters in shared memory (8-bit values find their slot in a
 * table of all 256), one copy of every channel's counters
 * per warp where several fit (fewer warps then meet on one counter), and
 * adds its nonzero counters to @scratch with 64-bit atomics. The last block
 * to finish (the same ticket as the monoid's kernels) adds @carry, the
 * counts of the launches before, keeps the sum in @state, writes it to
 * @result, reads the percentiles off it, and leaves @scratch zero for the
 * next launch. When the counters do not fit in shared memory (many
 * channels, many bins) every value goes to @scratch directly: slower,
 * never wrong.
 *
 * A channel's slots (CR_BIN_SLOTS): the bins, then below, above and NaN.
 * Even bins (CR_BIN_BODY 0) are over [lo, hi] (the context fields lo and
 * hi, of the monoid's Ctx or in a fused monoid of the member's, which
 * CR_BIN_CTX picks; the host checked and filled them in): value v is in
 * bin
 * floor((v - lo) * bins / (hi - lo)), the last bin also holding hi, as
 * numpy's histogram does. Integers find their bin exactly in integer
 * arithmetic; floats in double precision. Otherwise the monoid's Bin body
 * (cr_bin) gives each value's bin from the value, its row and the
 * context; a bin below 0 counts as below, one past the last as above.
 *
 * A monoid with a pair (CR_PAIR_BINS) counts two components of each pixel
 * instead, each in CR_PAIR_BINS even bins along its axis, in CR_BINS =
 * CR_PAIR_BINS^2 bins: a 2-D histogram (cr_histogram_pairs, at the end). */

#ifndef CR_BINS
#error "the generated prelude defines CR_BINS for a monoid with bins"
#endif

#define CR_BIN_BELOW CR_BINS
#define CR_BIN_ABOVE (CR_BINS + 1)
#define CR_BIN_NAN (CR_BINS + 2)

/* A value's slot along one axis: of all CR_BINS for single values, of
 * CR_PAIR_BINS for each value of a pair (whose CR_BINS are their
 * product). */
#ifdef CR_PAIR_BINS
#define CR_AXIS_BINS CR_PAIR_BINS
#else
#define CR_AXIS_BINS CR_BINS
#endif
#define CR_AXIS_BELOW CR_AXIS_BINS
#define CR_AXIS_ABOVE (CR_AXIS_BINS + 1)
#define CR_AXIS_NAN (CR_AXIS_BINS + 2)

/* The range as each value is binned: worked out once per thread. */
struct CrBinning {
#if CR_BIN_BODY
  /* cr_bin needs nothing but the value, its row and the context. */
  unsigned int unused;
#elif IN_IS_FLOAT
  double lo, hi, scale;
#else
  In lo;
  unsigned long long range; /* hi - lo, a value of the last bin */
  unsigned long long width; /* range / bins when that is whole, else 0 */
  unsigned int shift; /* log2 (width) when width is a power of two */
  bool pow2, narrow; /* narrow: range < 2^32, so 32-bit arithmetic */
  /* An 8-bit type's whole range in bins of a power of two: a value's bin
   * is its offset from the lowest (its bits, the sign bit flipped for
   * int8) shifted right. */
  bool whole_byte;
  unsigned int flip;
#endif
};

static __device__ __forceinline__ CrBinning
cr_binning (const Ctx &ctx)
{
  CrBinning b;
#if CR_BIN_BODY
  b.unused = 0;
#elif IN_IS_FLOAT
  b.lo = CR_BIN_CTX (ctx).lo;
  b.hi = CR_BIN_CTX (ctx).hi;
  b.scale = CR_AXIS_BINS / (b.hi - b.lo);
#else
  /* The host checked that lo and hi are whole values of the type (hi
   * up to its largest plus one), and hi > lo. */
  const double lo = CR_BIN_CTX (ctx).lo, hi = CR_BIN_CTX (ctx).hi;
  b.lo = (In) (wide) lo;
  b.range = (unsigned long long) (hi - lo);
  b.width = b.range % CR_AXIS_BINS == 0 ? b.range / CR_AXIS_BINS : 0;
  b.shift = b.width ? __ffsll ((long long) b.width) - 1 : 0;
  b.pow2 = b.width != 0 && (b.width & (b.width - 1)) == 0;
  b.narrow = b.range < 4294967296ull;
  b.whole_byte = CR_IN_BYTES == 1 && b.pow2 && b.range == 256;
  b.flip = IN_IS_SIGNED ? 0x80 : 0;
#endif
  return b;
}

/* The slot of @x, in row @i: its bin, or CR_AXIS_BELOW, CR_AXIS_ABOVE,
 * CR_AXIS_NAN. */
static __device__ __forceinline__ unsigned int
cr_bin_of (const In x, unsigned long long i, const CrBinning &b, const Ctx &ctx)
{
#if CR_BIN_BODY
  const long long k = cr_bin (x, i, ctx);
  return k < 0 ? CR_BIN_BELOW : k >= CR_BINS ? CR_BIN_ABOVE : (unsigned int) k;
#elif IN_IS_FLOAT
  const double v = (double) x;
  if (v != v)
    return CR_AXIS_NAN;
  if (v < b.lo)
    return CR_AXIS_BELOW;
  if (v > b.hi)
    return CR_AXIS_ABOVE;
  /* v >= lo, so truncation is floor; rounding may reach the top edge. */
  const double k = (v - b.lo) * b.scale;
  return k >= (double) (CR_AXIS_BINS - 1) ? CR_AXIS_BINS - 1
                                          : (unsigned int) k;
#else
  if (x < b.lo)
    return CR_AXIS_BELOW;
  /* Modulo 2^64, so exact for x >= lo whatever the signedness. */
  const unsigned long long d =
      (unsigned long long) x - (unsigned long long) b.lo;
  if (d >= b.range)
    return d == b.range ? CR_AXIS_BINS - 1 : CR_AXIS_ABOVE;
  if (b.pow2)
    return (unsigned int) (d >> b.shift);
  if (b.narrow)
    return b.width ? (unsigned int) d / (unsigned int) b.width
                   : (unsigned int) (d * CR_AXIS_BINS / b.range);
  /* Ranges of 2^32 or more: 32-bit input's whole range (d < 2^32, so
   * d * bins fits), or 64-bit input, whose range the bins divide (the
   * host checks). */
  return b.width ? (unsigned int) (d / b.width)
                 : (unsigned int) (d * CR_AXIS_BINS / b.range);
#endif
}

/* 8-bit input in even bins looks its slot up in a table of every value's,
 * made once a block: one shared load instead of the arithmetic. */
#define CR_BIN_TABLE (CR_IN_BYTES == 1 && !CR_BIN_BODY)

/* The slot of @x in row @i; the row is worked out only for a Bin body,
 * which alone reads it. */
static __device__ __forceinline__ unsigned int
cr_slot (const In x, unsigned long long i, const CrBinning &b,
    const unsigned int *table, const Ctx &ctx)
{
#if CR_BIN_TABLE
  /* Arithmetic where it is a shift: shared memory is left to the
   * atomics, its bottleneck (docs/performance.md). */
  if (b.whole_byte)
    return ((unsigned int) (unsigned char) x ^ b.flip) >> b.shift;
  return table[(unsigned char) x];
#else
  return cr_bin_of (x, i, b, ctx);
#endif
}

#ifndef CR_PAIR_BINS
/* Channel @c's counters (a shared copy, or NULL for @scratch). */
static __device__ __forceinline__ void
cr_count (const In x, unsigned long long i, unsigned int c, const CrBinning &b,
    const unsigned int *table, unsigned int *mine, unsigned long long *scratch,
    const Ctx &ctx)
{
  const unsigned int slot =
      c * CR_BIN_SLOTS (CR_BINS) + cr_slot (x, i, b, table, ctx);
  if (mine != nullptr)
    atomicAdd (mine + slot, 1u);
  else
    atomicAdd (scratch + slot, 1ull);
}

union CrBinVec {
  uint4 raw;
  In e[CR_LOAD_BYTES / sizeof (In)];
};

/* The whole loads of one line (contiguous data) of one channel into a
 * shared copy: the common case, with nothing per value but its slot and
 * the atomic. Value e is in row @row_base + e. */
static __device__ __forceinline__ void
cr_count_one_channel (const unsigned char *data, unsigned long long n_vec,
    unsigned long long row_base, unsigned long long tid,
    unsigned long long nthreads, const CrBinning &b, const unsigned int *table,
    unsigned int *mine, const Ctx &ctx)
{
  const unsigned int per_vec = CR_LOAD_BYTES / sizeof (In);
  const uint4 *vec = reinterpret_cast<const uint4 *> (data);
  unsigned long long v = tid;
  for (; v + (CR_UNROLL - 1) * nthreads < n_vec; v += CR_UNROLL * nthreads) {
    CrBinVec r[CR_UNROLL];
#pragma unroll
    for (int u = 0; u < CR_UNROLL; u++)
      r[u].raw = __ldg (&vec[v + u * nthreads]);
#pragma unroll
    for (int u = 0; u < CR_UNROLL; u++)
#pragma unroll
      for (unsigned int k = 0; k < per_vec; k++)
        atomicAdd (mine
                + cr_slot (r[u].e[k],
                    row_base + (v + u * nthreads) * per_vec + k, b, table, ctx),
            1u);
  }
  for (; v < n_vec; v += nthreads) {
    CrBinVec r;
    r.raw = __ldg (&vec[v]);
#pragma unroll
    for (unsigned int k = 0; k < per_vec; k++)
      atomicAdd (
          mine + cr_slot (r.e[k], row_base + v * per_vec + k, b, table, ctx),
          1u);
  }
}

#endif /* !CR_PAIR_BINS */

#ifdef CR_PERCENTILES
/* The value a percentile reports for bin @k: the lowest value the bin
 * holds (docs/element.md says why). Even bins: lo + ceil (k * range /
 * bins) on integer input, exactly, and lo + (hi - lo) * k / bins in double
 * precision on floats; bins of a Bin body: k itself. */
static __device__ __forceinline__ double
cr_bin_value (unsigned int k, const CrBinning &b, const Ctx &ctx)
{
#if CR_BIN_BODY
  return (double) k;
#elif IN_IS_FLOAT
  return b.lo + (b.hi - b.lo) * k / CR_BINS;
#else
  /* k * range < 2^16 * 2^32 below 64-bit input, whose bins are whole. */
  const unsigned long long offset =
      b.width ? k * b.width : (k * b.range + CR_BINS - 1) / CR_BINS;
  return (double) (wide) ((unsigned long long) b.lo + offset);
#endif
}

/* The rank of percentile @p among @n values: max (1, round (p * n)), with
 * p * n rounded to a double first and halves to even, as FFmpeg's
 * signalstats rounds its 10th and 90th percentiles' ranks (lrint). */
static __device__ __forceinline__ unsigned long long
cr_rank (double p, unsigned long long n)
{
  unsigned long long r = __double2ull_rn (p * (double) n);
  return r < 1 ? 1 : r > n ? n : r;
}

/* Reads the percentiles of each of @channels channels off its final
 * @counts into @points (CR_PERCENTILES a channel): the value of the bin
 * in which the count from the lowest slot up (below first) reaches the
 * rank; -inf when that is below the range, +inf above it, NaN without
 * values (NaN are not counted). Every thread of the last block calls it
 * once the counts are written. Each thread sums a run of bins; a scan of
 * the runs tells the one thread whose run holds a rank to find its bin. */
static __device__ void
cr_percentiles (const unsigned long long *counts, unsigned int channels,
    const CrBinning &b, double *points, const Ctx &ctx)
{
  __shared__ unsigned long long runs[CR_BLOCK_THREADS];
  const unsigned int per = (CR_BINS + CR_BLOCK_THREADS - 1) / CR_BLOCK_THREADS;
  const unsigned int first = threadIdx.x * per;
  const unsigned int end = first + per < CR_BINS ? first + per : CR_BINS;

  for (unsigned int c = 0; c < channels; c++) {
    const unsigned long long *h = counts + c * CR_BIN_SLOTS (CR_BINS);
    unsigned long long run = 0;
    for (unsigned int k = first; k < end; k++)
      run += h[k];
    /* runs may still be read for the channel before. */
    __syncthreads ();
    runs[threadIdx.x] = run;
    /* An inclusive scan of the runs, halving the distance: log2 steps. */
    for (unsigned int d = 1; d < CR_BLOCK_THREADS; d <<= 1) {
      __syncthreads ();
      const unsigned long long add =
          threadIdx.x >= d ? runs[threadIdx.x - d] : 0;
      __syncthreads ();
      runs[threadIdx.x] += add;
    }
    __syncthreads ();
    const unsigned long long below = h[CR_BIN_BELOW];
    const unsigned long long in_bins = runs[CR_BLOCK_THREADS - 1];
    const unsigned long long n = below + in_bins + h[CR_BIN_ABOVE];
    const unsigned long long before = below + runs[threadIdx.x] - run;
    for (unsigned int j = 0; j < CR_PERCENTILES; j++) {
      double *point = points + c * CR_PERCENTILES + j;
      const unsigned long long rank = cr_rank (cr_percentile_points[j], n);
      if (threadIdx.x == 0 && n == 0)
        *point = __longlong_as_double (0x7ff8000000000000ll);
      else if (threadIdx.x == 0 && rank <= below)
        *point = __longlong_as_double (0xfff0000000000000ll);
      else if (threadIdx.x == 0 && rank > below + in_bins)
        *point = __longlong_as_double (0x7ff0000000000000ll);
      if (n == 0 || rank <= before || rank > before + run)
        continue;
      unsigned long long seen = before;
      for (unsigned int k = first; k < end; k++) {
        seen += h[k];
        if (seen >= rank) {
          *point = cr_bin_value (k, b, ctx);
          break;
        }
      }
    }
  }
}
#endif

/* The block's copies of the counters of @slots slots in dynamic shared
 * memory, zeroed, and this warp's copy (NULL without copies: count in
 * the device's scratch). Every thread calls it, then waits at a barrier
 * before counting. */
static __device__ __forceinline__ unsigned int *
cr_bins_begin (unsigned int slots, unsigned int copies)
{
  extern __shared__ unsigned int cr_bin_counts[];
  for (unsigned int w = threadIdx.x; w < copies * slots; w += CR_BLOCK_THREADS)
    cr_bin_counts[w] = 0;
  return copies
      ? cr_bin_counts + (threadIdx.x / CR_WARP_THREADS % copies) * slots
      : nullptr;
}

#if CR_BIN_TABLE
/* 8-bit input's slots, one for each value, filled by the block; read
 * after the barrier that follows cr_bins_begin. */
static __device__ __forceinline__ const unsigned int *
cr_bin_table (const CrBinning &b, const Ctx &ctx)
{
  __shared__ unsigned int table[256];
  for (unsigned int u = threadIdx.x; u < 256; u += CR_BLOCK_THREADS)
    table[u] = cr_bin_of ((In) (unsigned char) u, 0, b, ctx);
  return table;
}
#else
static __device__ __forceinline__ const unsigned int *
cr_bin_table (const CrBinning &, const Ctx &)
{
  return nullptr;
}
#endif

/* Adds the block's shared counts to @scratch, once every thread has
 * counted its values: every thread calls it. After it, all the block's
 * counts are in @scratch (a block alone is then the last, and takes no
 * ticket to wait for its threads). */
static __device__ __forceinline__ void
cr_bins_flush (
    unsigned int slots, unsigned int copies, unsigned long long *scratch)
{
  extern __shared__ unsigned int cr_bin_counts[];
  __syncthreads ();
  for (unsigned int w = threadIdx.x; copies && w < slots;
       w += CR_BLOCK_THREADS) {
    unsigned int n = 0;
    for (unsigned int k = 0; k < copies; k++)
      n += cr_bin_counts[k * slots + w];
    if (n)
      atomicAdd (scratch + w, (unsigned long long) n);
  }
  __syncthreads ();
}

/* In the block that finishes a launch, after every block's flush: the
 * counts of @channels channels plus the carried ones, kept in the state
 * and written to the result with the percentiles; the scratch left zero
 * for the next launch. Every thread of that block calls it. */
static __device__ void
cr_bins_finish (unsigned int channels, const CrBinArgs &args,
    const CrBinning &b, const Ctx &ctx)
{
  const unsigned int slots = channels * CR_BIN_SLOTS (CR_BINS);
  unsigned long long *scratch =
      reinterpret_cast<unsigned long long *> (args.scratch);
  const unsigned long long *carry =
      reinterpret_cast<const unsigned long long *> (args.carry);
  unsigned long long *state =
      reinterpret_cast<unsigned long long *> (args.state);
  unsigned long long *result =
      reinterpret_cast<unsigned long long *> (args.result);
  for (unsigned int w = threadIdx.x; w < slots; w += CR_BLOCK_THREADS) {
    unsigned long long n = __ldcg (scratch + w);
    if (carry != nullptr)
      n += carry[w];
    state[w] = n;
    result[w] = n;
    scratch[w] = 0;
  }
#ifdef CR_PERCENTILES
  /* The counts in state, written by this block's threads: device memory,
   * where result may be the host's. */
  __syncthreads ();
  cr_percentiles (
      state, channels, b, reinterpret_cast<double *> (result + slots), ctx);
#endif
}

#ifndef CR_PAIR_BINS
/* Counts the values of @lines lines of @line_bytes, @pitch bytes apart
 * (contiguous data is one line), rows of @channels interleaved values;
 * the first row is row @row_base of the whole input (cr_bin's i counts
 * rows as if the lines were packed, as cr_load's does). The launch gives
 * bins.copies * channels * CR_BIN_SLOTS 32-bit counters of dynamic shared
 * memory; @ticket is zero before the first launch, and left zero by every
 * launch. */
extern "C" __global__ void __launch_bounds__ (CR_BLOCK_THREADS)
cr_histogram (const unsigned char *data, unsigned long long line_bytes,
    unsigned long long pitch, unsigned long long lines, unsigned int channels,
    unsigned long long row_base, unsigned int *ticket, const CrBinArgs bins,
    const Ctx ctx)
{
  const unsigned int slots = channels * CR_BIN_SLOTS (CR_BINS);
  const CrBinning b = cr_binning (ctx);
  unsigned int *mine = cr_bins_begin (slots, bins.copies);
  const unsigned int *table = cr_bin_table (b, ctx);
  unsigned long long *scratch =
      reinterpret_cast<unsigned long long *> (bins.scratch);
  __syncthreads ();

  const unsigned long long tid =
      (unsigned long long) blockIdx.x * CR_BLOCK_THREADS + threadIdx.x;
  const unsigned long long nthreads =
      (unsigned long long) gridDim.x * CR_BLOCK_THREADS;
  const unsigned int per_vec = CR_LOAD_BYTES / sizeof (In);
  const unsigned long long per_line = line_bytes / sizeof (In);
  const bool aligned = reinterpret_cast<unsigned long long> (data)
              % CR_LOAD_BYTES == 0
      && (lines == 1 || pitch % CR_LOAD_BYTES == 0);
  /* The row of value e of the packed lines: dead code but for a Bin
   * body. */
#define CR_ROW_OF(e) (row_base + (e) / channels)

  if (aligned) {
    /* Whole loads of each line, CR_UNROLL in flight; a line's values
     * past its last whole load below. */
    const unsigned long long line_vecs = line_bytes / CR_LOAD_BYTES;
    const unsigned long long n_vec = line_vecs * lines;
    unsigned long long v = tid;
    if (lines == 1 && channels == 1 && mine != nullptr) {
      cr_count_one_channel (
          data, n_vec, row_base, tid, nthreads, b, table, mine, ctx);
      v = n_vec;
    }
    for (; v + (CR_UNROLL - 1) * nthreads < n_vec;
         v += CR_UNROLL * nthreads) {
      CrBinVec r[CR_UNROLL];
      unsigned int c0[CR_UNROLL];
      unsigned long long e0[CR_UNROLL];
#pragma unroll
      for (int u = 0; u < CR_UNROLL; u++) {
        const unsigned long long w = v + u * nthreads;
        const unsigned long long line = lines == 1 ? 0 : w / line_vecs;
        const unsigned long long col = w - line * line_vecs;
        r[u].raw = __ldg (reinterpret_cast<const uint4 *> (
            data + line * pitch + col * CR_LOAD_BYTES));
        c0[u] = per_vec % channels == 0
            ? 0
            : (unsigned int) (col * per_vec % channels);
        e0[u] = line * per_line + col * per_vec;
      }
#pragma unroll
      for (int u = 0; u < CR_UNROLL; u++) {
        unsigned int c = c0[u];
#pragma unroll
        for (unsigned int k = 0; k < per_vec; k++) {
          cr_count (r[u].e[k], CR_ROW_OF (e0[u] + k), c, b, table, mine,
              scratch, ctx);
          c = c + 1 == channels ? 0 : c + 1;
        }
      }
    }
    for (; v < n_vec; v += nthreads) {
      const unsigned long long line = lines == 1 ? 0 : v / line_vecs;
      const unsigned long long col = v - line * line_vecs;
      CrBinVec r;
      r.raw = __ldg (reinterpret_cast<const uint4 *> (
          data + line * pitch + col * CR_LOAD_BYTES));
      unsigned int c = per_vec % channels == 0
          ? 0
          : (unsigned int) (col * per_vec % channels);
      const unsigned long long e0 = line * per_line + col * per_vec;
#pragma unroll
      for (unsigned int k = 0; k < per_vec; k++) {
        cr_count (
            r.e[k], CR_ROW_OF (e0 + k), c, b, table, mine, scratch, ctx);
        c = c + 1 == channels ? 0 : c + 1;
      }
    }
    const unsigned long long tail = line_bytes % CR_LOAD_BYTES / sizeof (In);
    for (unsigned long long t = tid; t < tail * lines; t += nthreads) {
      const unsigned long long line = t / tail;
      const unsigned long long e = line_vecs * per_vec + t % tail;
      const In *row = reinterpret_cast<const In *> (data + line * pitch);
      cr_count (row[e], CR_ROW_OF (line * per_line + e),
          (unsigned int) (e % channels), b, table, mine, scratch, ctx);
    }
  } else {
    /* Data not on a load's boundary (memory mapped where it lies): one
     * value at a time. */
    for (unsigned long long t = tid; t < per_line * lines; t += nthreads) {
      const unsigned long long line = t / per_line;
      const unsigned long long e = t % per_line;
      const In *row = reinterpret_cast<const In *> (data + line * pitch);
      cr_count (row[e], CR_ROW_OF (t), (unsigned int) (e % channels), b,
          table, mine, scratch, ctx);
    }
  }
#undef CR_ROW_OF

  cr_bins_flush (slots, bins.copies, scratch);
  if (!cr_block_is_last (ticket))
    return;
  cr_bins_finish (channels, bins, b, ctx);
  cr_release_ticket (ticket, gridDim.x);
}
#endif /* !CR_PAIR_BINS */

#if CR_WITH_BINNED
/* The kernels of a monoid that folds an accumulator and counts bins: one
 * pass, in which the reduction's fold (reduce.cu) also counts each value
 * it reads (CrCountVisit), and the block that finishes the reduction
 * finishes the counts too. They take the same parameters as the plain
 * kernels they extend, then the counts' (CrBinArgs). */

/* Counts each element a fold reads in channel @c's counters. */
struct CrCountVisit {
  const CrBinning *b;
  const unsigned int *table;
  unsigned int *mine;
  unsigned long long *scratch;
  const Ctx *ctx;

  __device__ __forceinline__ void
  operator() (const In x, unsigned long long row, unsigned int c) const
  {
    cr_count (x, row, c, *b, table, mine, scratch, *ctx);
  }
};

/* Rows of C channels packed in loads, as cr_reduce_packed<C>. */
template <int C>
static __device__ __forceinline__ void
cr_reduce_binned_packed (const In *data, unsigned long long rows,
    unsigned long long row_base, CrAccWords *partials, unsigned int *ticket,
    const Acc *carry, Acc *state, Out *result, unsigned long long count,
    const CrBinArgs &bins, const Ctx &ctx)
{
  const unsigned int slots = C * CR_BIN_SLOTS (CR_BINS);
  const CrBinning b = cr_binning (ctx);
  unsigned long long *scratch =
      reinterpret_cast<unsigned long long *> (bins.scratch);
  const CrCountVisit visit = { &b, cr_bin_table (b, ctx),
    cr_bins_begin (slots, bins.copies), scratch, &ctx };
  __syncthreads ();
  Acc acc[C];
  cr_fold_packed<C> (data, rows, row_base,
      (unsigned long long) blockIdx.x * CR_BLOCK_THREADS + threadIdx.x,
      (unsigned long long) gridDim.x * CR_BLOCK_THREADS, acc, ctx, visit);
  cr_bins_flush (slots, bins.copies, scratch);
  if (cr_finish_packed<C> (acc, partials, ticket, carry, state, result, count,
          ctx))
    cr_bins_finish (C, bins, b, ctx);
}

extern "C" __global__ void __launch_bounds__ (CR_BLOCK_THREADS)
cr_reduce_binned (const In *data, unsigned long long n,
    unsigned long long index_base, CrAccWords *partials, unsigned int *ticket,
    const Acc *carry, Acc *state, Out *result, unsigned long long count,
    const CrBinArgs bins, const Ctx ctx)
{
  cr_reduce_binned_packed<1> (data, n, index_base, partials, ticket, carry,
      state, result, count, bins, ctx);
}

/* 2, 4 or 8 channels, as reduce-channels.cu's cr_reduce_channels_vec<C>,
 * under the same conditions. */
#define CR_BINNED_VEC_KERNEL(C) \
  extern "C" __global__ void __launch_bounds__ (CR_BLOCK_THREADS) \
  cr_reduce_binned_vec##C (const In *data, unsigned long long rows, \
      unsigned long long row_base, CrAccWords *partials, \
      unsigned int *ticket, const Acc *carry, Acc *state, Out *result, \
      unsigned long long count, const CrBinArgs bins, const Ctx ctx) \
  { \
    cr_reduce_binned_packed<C> (data, rows, row_base, partials, ticket, \
        carry, state, result, count, bins, ctx); \
  }

#if CR_WITH_VEC2
CR_BINNED_VEC_KERNEL (2)
#endif
#if CR_WITH_VEC4 && CR_LOAD_BYTES / CR_IN_BYTES % 4 == 0
CR_BINNED_VEC_KERNEL (4)
#endif
#if CR_WITH_VEC8 && CR_LOAD_BYTES / CR_IN_BYTES % 8 == 0
CR_BINNED_VEC_KERNEL (8)
#endif

#if CR_WITH_PITCHED
/* Lines with padding between them, read in place, as cr_reduce_pitched. */
extern "C" __global__ void __launch_bounds__ (CR_BLOCK_THREADS)
cr_reduce_binned_pitched (const In *data, unsigned int line_vecs,
    unsigned long long pitch, unsigned int n_vec, unsigned long long index_base,
    CrAccWords *partials, unsigned int *ticket, const Acc *carry, Acc *state,
    Out *result, unsigned long long count, const CrBinArgs bins,
    const Ctx ctx)
{
  const unsigned int slots = CR_BIN_SLOTS (CR_BINS);
  const CrBinning b = cr_binning (ctx);
  unsigned long long *scratch =
      reinterpret_cast<unsigned long long *> (bins.scratch);
  const CrCountVisit visit = { &b, cr_bin_table (b, ctx),
    cr_bins_begin (slots, bins.copies), scratch, &ctx };
  __syncthreads ();
  Acc acc[1];
  cr_fold_pitched (data, line_vecs, pitch, n_vec, index_base, blockIdx.x,
      gridDim.x, acc, ctx, visit);
  cr_bins_flush (slots, bins.copies, scratch);
  if (cr_finish_packed<1> (acc, partials, ticket, carry, state, result, count,
          ctx))
    cr_bins_finish (1, bins, b, ctx);
}
#endif
#endif /* CR_WITH_BINNED */

#ifdef CR_PAIR_BINS
/* Pairs of two components of the same pixels, in a 2-D histogram. */

/* The slot of a pair whose values have the axis slots @sx and @sy: bin
 * sx * CR_PAIR_BINS + sy; NaN when either is NaN, else below when either
 * is below the range, else above. */
static __device__ __forceinline__ unsigned int
cr_pair_slot (unsigned int sx, unsigned int sy)
{
  if (sx < CR_PAIR_BINS && sy < CR_PAIR_BINS)
    return sx * CR_PAIR_BINS + sy;
  if (sx == CR_AXIS_NAN || sy == CR_AXIS_NAN)
    return CR_BIN_NAN;
  return sx == CR_AXIS_BELOW || sy == CR_AXIS_BELOW ? CR_BIN_BELOW
                                                    : CR_BIN_ABOVE;
}

/* Adds the lanes that are @valid to their @slot of the device's counters,
 * one atomic for each group of lanes with the same slot: large areas of
 * one colour would otherwise queue one by one on one counter in L2.
 * Every lane of the warp calls it. */
static __device__ __forceinline__ void
cr_count_warp (unsigned long long *scratch, unsigned int slot, bool valid)
{
#if __CUDA_ARCH__ >= 700
  const unsigned int peers =
      __match_any_sync (0xffffffffu, valid ? slot : 0xffffffffu);
  if (valid && threadIdx.x % CR_WARP_THREADS == __ffs (peers) - 1)
    atomicAdd (scratch + slot, (unsigned long long) __popc (peers));
#else
  if (valid)
    atomicAdd (scratch + slot, 1ull);
#endif
}

/* Counts the pairs of @cols pixels in each of @lines lines: the first
 * value of pixel j of line l is the In at @x + l * @x_pitch bytes + j *
 * @x_step values, the second likewise from @y (the same plane one value
 * on for NV12's U and V, another plane for I420's). The launch gives
 * bins.copies * CR_BIN_SLOTS (CR_BINS) 32-bit counters of dynamic shared
 * memory, or none: then the device's counters, a warp at a time. @ticket
 * as cr_histogram's. */
extern "C" __global__ void __launch_bounds__ (CR_BLOCK_THREADS)
cr_histogram_pairs (const unsigned char *x, unsigned long long x_pitch,
    unsigned int x_step, const unsigned char *y, unsigned long long y_pitch,
    unsigned int y_step, unsigned long long cols, unsigned long long lines,
    unsigned int *ticket, const CrBinArgs bins, const Ctx ctx)
{
  const unsigned int slots = CR_BIN_SLOTS (CR_BINS);
  const CrBinning b = cr_binning (ctx);
  unsigned int *mine = cr_bins_begin (slots, bins.copies);
  const unsigned int *table = cr_bin_table (b, ctx);
  unsigned long long *scratch =
      reinterpret_cast<unsigned long long *> (bins.scratch);
  __syncthreads ();

  const unsigned long long n = cols * lines;
  const bool narrow = n < 4294967296ull;
  const unsigned int lane = threadIdx.x % CR_WARP_THREADS;
  const unsigned long long nthreads =
      (unsigned long long) gridDim.x * CR_BLOCK_THREADS;
  /* Whole warps go round together, as cr_count_warp needs. */
  for (unsigned long long t0 =
           (unsigned long long) blockIdx.x * CR_BLOCK_THREADS + threadIdx.x
           - lane;
       t0 < n; t0 += nthreads) {
    const unsigned long long t = t0 + lane;
    const bool valid = t < n;
    unsigned int slot = 0;
    if (valid) {
      const unsigned long long line = lines == 1 ? 0
          : narrow ? (unsigned int) t / (unsigned int) cols
                   : t / cols;
      const unsigned long long col = t - line * cols;
      const In vx = *reinterpret_cast<const In *> (
          x + line * x_pitch + col * x_step * sizeof (In));
      const In vy = *reinterpret_cast<const In *> (
          y + line * y_pitch + col * y_step * sizeof (In));
      slot = cr_pair_slot (
          cr_slot (vx, 0, b, table, ctx), cr_slot (vy, 0, b, table, ctx));
    }
    if (mine == nullptr)
      cr_count_warp (scratch, slot, valid);
    else if (valid)
      atomicAdd (mine + slot, 1u);
  }

  cr_bins_flush (slots, bins.copies, scratch);
  if (!cr_block_is_last (ticket))
    return;
  cr_bins_finish (1, bins, b, ctx);
  cr_release_ticket (ticket, gridDim.x);
}
#endif /* CR_PAIR_BINS */
