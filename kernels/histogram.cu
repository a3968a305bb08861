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
 * Even bins (CR_BIN_BODY 0) are over [lo, hi] (ctx.lo, ctx.hi, which the
 * host checked and filled in): value v is in bin
 * floor((v - lo) * bins / (hi - lo)), the last bin also holding hi, as
 * numpy's histogram does. Integers find their bin exactly in integer
 * arithmetic; floats in double precision. Otherwise the monoid's Bin body
 * (cr_bin) gives each value's bin from the value, its row and the
 * context; a bin below 0 counts as below, one past the last as above. */

#ifndef CR_BINS
#error "the generated prelude defines CR_BINS for a monoid with bins"
#endif

#define CR_BIN_BELOW CR_BINS
#define CR_BIN_ABOVE (CR_BINS + 1)
#define CR_BIN_NAN (CR_BINS + 2)

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
#endif
};

static __device__ __forceinline__ CrBinning
cr_binning (const Ctx &ctx)
{
  CrBinning b;
#if CR_BIN_BODY
  b.unused = 0;
#elif IN_IS_FLOAT
  b.lo = ctx.lo;
  b.hi = ctx.hi;
  b.scale = CR_BINS / (ctx.hi - ctx.lo);
#else
  /* The host checked that lo and hi are whole values of the type (hi
   * up to its largest plus one), and hi > lo. */
  b.lo = (In) (wide) ctx.lo;
  b.range = (unsigned long long) (ctx.hi - ctx.lo);
  b.width = b.range % CR_BINS == 0 ? b.range / CR_BINS : 0;
  b.shift = b.width ? __ffsll ((long long) b.width) - 1 : 0;
  b.pow2 = b.width != 0 && (b.width & (b.width - 1)) == 0;
  b.narrow = b.range < 4294967296ull;
#endif
  return b;
}

/* The slot of @x, in row @i: its bin, or CR_BIN_BELOW, CR_BIN_ABOVE,
 * CR_BIN_NAN. */
static __device__ __forceinline__ unsigned int
cr_bin_of (const In x, unsigned long long i, const CrBinning &b, const Ctx &ctx)
{
#if CR_BIN_BODY
  const long long k = cr_bin (x, i, ctx);
  return k < 0 ? CR_BIN_BELOW : k >= CR_BINS ? CR_BIN_ABOVE : (unsigned int) k;
#elif IN_IS_FLOAT
  const double v = (double) x;
  if (v != v)
    return CR_BIN_NAN;
  if (v < b.lo)
    return CR_BIN_BELOW;
  if (v > b.hi)
    return CR_BIN_ABOVE;
  /* v >= lo, so truncation is floor; rounding may reach the top edge. */
  const double k = (v - b.lo) * b.scale;
  return k >= (double) (CR_BINS - 1) ? CR_BINS - 1 : (unsigned int) k;
#else
  if (x < b.lo)
    return CR_BIN_BELOW;
  /* Modulo 2^64, so exact for x >= lo whatever the signedness. */
  const unsigned long long d =
      (unsigned long long) x - (unsigned long long) b.lo;
  if (d >= b.range)
    return d == b.range ? CR_BINS - 1 : CR_BIN_ABOVE;
  if (b.pow2)
    return (unsigned int) (d >> b.shift);
  if (b.narrow)
    return b.width ? (unsigned int) d / (unsigned int) b.width
                   : (unsigned int) (d * CR_BINS / b.range);
  /* Ranges of 2^32 or more: 32-bit input's whole range (d < 2^32, so
   * d * bins fits), or 64-bit input, whose range the bins divide (the
   * host checks). */
  return b.width ? (unsigned int) (d / b.width)
                 : (unsigned int) (d * CR_BINS / b.range);
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
  return table[(unsigned char) x];
#else
  return cr_bin_of (x, i, b, ctx);
#endif
}

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
  return ctx.lo + (ctx.hi - ctx.lo) * k / CR_BINS;
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

/* Counts the values of @lines lines of @line_bytes, @pitch bytes apart
 * (contiguous data is one line), rows of @channels interleaved values;
 * the first row is row @row_base of the whole input (cr_bin's i counts
 * rows as if the lines were packed, as cr_load's does).
 *
 * copies:  shared copies of every channel's counters (0: count in
 *          @scratch); the launch gives copies * channels * CR_BIN_SLOTS
 *          32-bit counters of dynamic shared memory
 * scratch: channels * CR_BIN_SLOTS, zero before and after every launch
 * ticket:  zero before the first launch, and left zero by every launch
 * carry:   NULL, or the counts of the launches before (may equal state)
 * state, result: receive carry plus these counts; after them in @result,
 *          each channel's CR_PERCENTILES percentiles, as doubles */
extern "C" __global__ void __launch_bounds__ (CR_BLOCK_THREADS)
cr_histogram (const unsigned char *data, unsigned long long line_bytes,
    unsigned long long pitch, unsigned long long lines, unsigned int channels,
    unsigned long long row_base, unsigned int copies,
    unsigned long long *scratch, unsigned int *ticket,
    const unsigned long long *carry, unsigned long long *state,
    unsigned long long *result, const Ctx ctx)
{
  extern __shared__ unsigned int cr_bin_counts[];
  const unsigned int slots = channels * CR_BIN_SLOTS (CR_BINS);
  const unsigned int warp = threadIdx.x / CR_WARP_THREADS;
  const CrBinning b = cr_binning (ctx);

  for (unsigned int w = threadIdx.x; w < copies * slots; w += CR_BLOCK_THREADS)
    cr_bin_counts[w] = 0;
#if CR_BIN_TABLE
  __shared__ unsigned int table[256];
  for (unsigned int u = threadIdx.x; u < 256; u += CR_BLOCK_THREADS)
    table[u] = cr_bin_of ((In) (unsigned char) u, 0, b, ctx);
#else
  const unsigned int *table = nullptr;
#endif
  __syncthreads ();
  unsigned int *mine =
      copies ? cr_bin_counts + (warp % copies) * slots : nullptr;

  const unsigned long long tid =
      (unsigned long long) blockIdx.x * CR_BLOCK_THREADS + threadIdx.x;
  const unsigned long long nthreads =
      (unsigned long long) gridDim.x * CR_BLOCK_THREADS;
  const unsigned int per_vec = CR_LOAD_BYTES / sizeof (In);
  const unsigned long long per_line = line_bytes / sizeof (In);
  const bool aligned =
      reinterpret_cast<unsigned long long> (data) % CR_LOAD_BYTES == 0
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
    for (; v + (CR_UNROLL - 1) * nthreads < n_vec; v += CR_UNROLL * nthreads) {
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
        cr_count (r.e[k], CR_ROW_OF (e0 + k), c, b, table, mine, scratch, ctx);
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
      cr_count (row[e], CR_ROW_OF (t), (unsigned int) (e % channels), b, table,
          mine, scratch, ctx);
    }
  }
#undef CR_ROW_OF

  /* Every thread's counts are in before any is read: the shared copies
   * below, and @scratch when a block alone is the last (it takes no
   * ticket, so nothing else waits for its threads). */
  __syncthreads ();
  if (copies) {
    for (unsigned int w = threadIdx.x; w < slots; w += CR_BLOCK_THREADS) {
      unsigned int n = 0;
      for (unsigned int k = 0; k < copies; k++)
        n += cr_bin_counts[k * slots + w];
      if (n)
        atomicAdd (scratch + w, (unsigned long long) n);
    }
  }
  if (!cr_block_is_last (ticket))
    return;
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
  cr_release_ticket (ticket, gridDim.x);
}
