/* kernels/reduce.cu: one monoid reduction over a contiguous array, in one
 * launch.
 *
 * The code generator puts a prelude in front of this file that defines the
 * types In, Acc, Ctx and Out and the device functions
 *
 *   Acc cr_identity (const Ctx &ctx);
 *   Acc cr_load (const In x, unsigned long long i, const Ctx &ctx);
 *   Acc cr_combine (const Acc &a, const Acc &b, const Ctx &ctx);
 *   Out cr_finalize (const Acc &a, unsigned long long n, const Ctx &ctx);
 *
 * from the user's monoid. Nothing here is specific to one monoid, and no
 * header is included: NVRTC provides the builtins (uint4, __shfl_down_sync,
 * atomicAdd, __threadfence) without a toolkit on the machine. What the host
 * must agree with (threads per block, the unroll, the load size, the
 * batch's structs) comes from kernels/cr-abi.h, at the start of the
 * generated source.
 *
 * Shape: each block reduces a grid-stride slice with 16-byte loads, several
 * in flight per thread, combines its threads through warp shuffles and shared
 * memory, and writes one partial. The last block to finish (elected by an
 * atomic ticket) combines all partials, folds in the carried state of
 * earlier chunks, finalizes, and resets the ticket for the next launch. The
 * accumulator is an arbitrary struct, so it is never touched by an atomic:
 * the ticket is the only one.
 *
 * The single result is the one-channel case of cr_reduce_packed<C>, which
 * kernels/reduce-channels.cu also instantiates for 2, 4 and 8 channels
 * packed in each load. */

#ifndef CR_ABI_H
#error "the generated source starts with kernels/cr-abi.h"
#endif
/* CR_WITH_PITCHED, CR_WITH_VEC2, ...: 1 for the kernels the program was
 * asked for (CrKernels, cr-program.h), 0 for those it goes without. */
#if !defined(CR_WITH_PITCHED) || !defined(CR_WITH_VEC2)
#error "the generated prelude defines CR_WITH_PITCHED and CR_WITH_VEC2 ..."
#endif
#define CR_WARPS (CR_BLOCK_THREADS / CR_WARP_THREADS)
#define CR_VEC (CR_LOAD_BYTES / sizeof (In))
#define CR_ACC_WORDS ((sizeof (Acc) + 3) / 4)

/* The accumulator seen as 32-bit words, the unit a shuffle moves; also the
 * slot of one partial in global memory, so that every partial is word
 * aligned whatever the accumulator's own size (an int8 min is one byte). */
union CrAccWords {
  Acc acc;
  unsigned int w[CR_ACC_WORDS];
};
/* The host sizes partials, tickets and refused accumulators by these. */
static_assert (sizeof (CrAccWords) <= CR_PARTIAL_SLOT_BYTES (sizeof (Acc)),
    "a partial fits the slot the host allocates for it");
static_assert (sizeof (Acc) <= CR_ACC_MAX_BYTES,
    "the host refuses accumulators over CR_ACC_MAX_BYTES");
static_assert (sizeof (unsigned int) == CR_TICKET_BYTES, "a ticket's size");
static_assert (CR_WARP_THREADS == 32, "the shuffles' full mask and lanes");

/* One load of input. */
union CrVec {
  uint4 raw;
  In e[CR_VEC];
};
static_assert (sizeof (uint4) == CR_LOAD_BYTES
        && sizeof (CrVec) == CR_LOAD_BYTES,
    "a load is a uint4");

static __device__ __forceinline__ Acc
cr_shfl_down (const Acc &value, int delta)
{
  CrAccWords in, out;
  in.acc = value;
#pragma unroll
  for (int k = 0; k < (int) CR_ACC_WORDS; k++)
    out.w[k] = __shfl_down_sync (0xffffffffu, in.w[k], delta);
  return out.acc;
}

/* Lane 0 ends with the warp's total. */
static __device__ __forceinline__ Acc
cr_warp_reduce (Acc value, const Ctx &ctx)
{
#pragma unroll
  for (int delta = CR_WARP_THREADS / 2; delta > 0; delta >>= 1)
    value = cr_combine (value, cr_shfl_down (value, delta), ctx);
  return value;
}

/* Thread 0 ends with the block's total. Every thread of the block calls it. */
static __device__ Acc
cr_block_reduce (Acc value, const Ctx &ctx)
{
  __shared__ CrAccWords warp_totals[CR_WARPS];
  const int lane = threadIdx.x % CR_WARP_THREADS;
  const int warp = threadIdx.x / CR_WARP_THREADS;

  value = cr_warp_reduce (value, ctx);
  /* warp_totals may still be read from a previous call. */
  __syncthreads ();
  if (lane == 0)
    warp_totals[warp].acc = value;
  __syncthreads ();
  if (warp == 0) {
    value = lane < CR_WARPS ? warp_totals[lane].acc : cr_identity (ctx);
    value = cr_warp_reduce (value, ctx);
  }
  return value;
}

/* Folds sh[r * W + c] over r < rows into sh[c], for every c < W, with a
 * halving tree that needs no power of two. Every thread of the block calls
 * it; threads t < rows * W own sh[t]. */
static __device__ void
cr_fold_rows (CrAccWords *sh, unsigned int rows, unsigned int width,
    const Ctx &ctx)
{
  const unsigned int t = threadIdx.x;
  for (unsigned int n = rows; n > 1;) {
    const unsigned int half = (n + 1) / 2;
    __syncthreads ();
    if (t < (n - half) * width)
      sh[t].acc = cr_combine (sh[t].acc, sh[t + half * width].acc, ctx);
    n = half;
  }
  __syncthreads ();
}

/* Partials are written by other multiprocessors: read them from L2, never
 * from this one's L1. */
static __device__ __forceinline__ Acc
cr_load_partial (const CrAccWords *partial)
{
  CrAccWords words;
#pragma unroll
  for (int k = 0; k < (int) CR_ACC_WORDS; k++)
    words.w[k] = __ldcg (&partial->w[k]);
  return words.acc;
}

/* Elects the block that finishes a reduction of @blocks blocks' partials:
 * the last of them to take a ticket. Every thread of the block calls it,
 * after the threads that wrote this block's partials have written them.
 * Returns the same answer in every thread. */
static __device__ bool
cr_block_is_last_of (unsigned int *ticket, unsigned int blocks)
{
  __shared__ bool is_last;
  if (blocks == 1)
    return true;
  /* Release: this thread's partials are visible device-wide before the
   * ticket counts them. */
  __threadfence ();
  __syncthreads ();
  if (threadIdx.x == 0) {
    const unsigned int taken = atomicAdd (ticket, 1u);
    is_last = taken == blocks - 1;
    /* Acquire: nothing the last block reads below is read before every
     * other block's ticket (and so its partials) was seen. */
    if (is_last)
      __threadfence ();
  }
  __syncthreads ();
  return is_last;
}

/* The same over every block of the grid. */
static __device__ bool
cr_block_is_last (unsigned int *ticket)
{
  return cr_block_is_last_of (ticket, gridDim.x);
}

/* Leaves @ticket zero for the next launch, in the block it elected among
 * @blocks (one block alone never took it). Every thread of that block
 * calls it. */
static __device__ __forceinline__ void
cr_release_ticket (unsigned int *ticket, unsigned int blocks)
{
  if (threadIdx.x == 0 && blocks > 1)
    *ticket = 0;
}

/* Ends channel @c in the block that finishes it: @total of these rows,
 * after @carry[c], the state of the rows before (no carry: NULL), is kept
 * in @state[c] for the next launch and finalized into @result[c]. */
static __device__ __forceinline__ void
cr_end_channel (Acc total, unsigned int c, const Acc *carry, Acc *state,
    Out *result, unsigned long long count, const Ctx &ctx)
{
  if (carry != nullptr)
    total = cr_combine (carry[c], total, ctx);
  state[c] = total;
  result[c] = cr_finalize (total, count, ctx);
}

/* What a fold does with each element besides combining it: nothing here;
 * histogram.cu's folds also count it in a bin. Called with the element,
 * its row (cr_load's i) and its channel; inlined, so that nothing is left
 * of it in the plain kernels. */
struct CrNoVisit {
  __device__ __forceinline__ void
  operator() (const In, unsigned long long, unsigned int) const
  {
  }
};

/* Folds rows of C channels packed in loads into acc[C]: thread @tid of
 * @nthreads takes every nthreads-th load. C = 1 takes data of any
 * alignment (the elements before the first load boundary one per thread);
 * C > 1 needs data aligned to CR_LOAD_BYTES, so that loads start on a
 * row. @visit sees every element it folds. */
template <int C, typename Visit = CrNoVisit>
static __device__ __forceinline__ void
cr_fold_packed (const In *data, unsigned long long rows,
    unsigned long long row_base, unsigned long long tid,
    unsigned long long nthreads, Acc (&acc)[C], const Ctx &ctx,
    const Visit &visit = Visit ())
{
#pragma unroll
  for (int c = 0; c < C; c++)
    acc[c] = cr_identity (ctx);

  /* Rows before the first load boundary, one per thread. */
  unsigned long long head = 0;
  if (C == 1) {
    const unsigned long long past =
        reinterpret_cast<unsigned long long> (data) % CR_LOAD_BYTES;
    head = (CR_LOAD_BYTES - past) % CR_LOAD_BYTES / sizeof (In);
    if (head > rows)
      head = rows;
    if (tid < head) {
      acc[0] = cr_combine (acc[0], cr_load (data[tid], row_base + tid, ctx),
          ctx);
      visit (data[tid], row_base + tid, 0);
    }
  }

  const CrVec *vec = reinterpret_cast<const CrVec *> (data + head * C);
  const unsigned long long n_vec = (rows - head) * C / CR_VEC;
  const unsigned long long vec_row = row_base + head;
  unsigned long long v = tid;
  for (; v + (CR_UNROLL - 1) * nthreads < n_vec; v += CR_UNROLL * nthreads) {
    CrVec r[CR_UNROLL];
#pragma unroll
    for (int u = 0; u < CR_UNROLL; u++)
      r[u].raw = __ldg (&vec[v + u * nthreads].raw);
#pragma unroll
    for (int u = 0; u < CR_UNROLL; u++) {
      const unsigned long long row =
          vec_row + (v + u * nthreads) * (CR_VEC / C);
#pragma unroll
      for (int k = 0; k < (int) CR_VEC; k++) {
        acc[k % C] = cr_combine (acc[k % C],
            cr_load (r[u].e[k], row + k / C, ctx), ctx);
        visit (r[u].e[k], row + k / C, k % C);
      }
    }
  }
  for (; v < n_vec; v += nthreads) {
    CrVec r;
    r.raw = __ldg (&vec[v].raw);
    const unsigned long long row = vec_row + v * (CR_VEC / C);
#pragma unroll
    for (int k = 0; k < (int) CR_VEC; k++) {
      acc[k % C] = cr_combine (acc[k % C],
          cr_load (r.e[k], row + k / C, ctx), ctx);
      visit (r.e[k], row + k / C, k % C);
    }
  }
  /* Rows after the last whole vector, one per thread. */
  const unsigned long long tail = head + n_vec * (CR_VEC / C) + tid;
  if (tail < rows) {
#pragma unroll
    for (int c = 0; c < C; c++) {
      acc[c] = cr_combine (acc[c],
          cr_load (data[tail * C + c], row_base + tail, ctx), ctx);
      visit (data[tail * C + c], row_base + tail, c);
    }
  }
}

/* Folds channel @c of rows @first, @first + @step, ... below @rows of
 * @channels interleaved elements, for one thread: the per-channel
 * kernel's loads and the batch's of several channels. Rows @step apart in
 * consecutive threads' hands are neighbours, so every load is coalesced;
 * CR_CH_UNROLL loads are issued before any is used, and so are those of
 * the rows left, so that a thread waits for memory once a pass. */
static __device__ __forceinline__ Acc
cr_fold_strided (const In *data, unsigned long long rows,
    unsigned int channels, unsigned int c, unsigned long long first,
    unsigned long long step, unsigned long long row_base, const Ctx &ctx)
{
  Acc acc = cr_identity (ctx);
  unsigned long long r = first;
  for (; r + (CR_CH_UNROLL - 1) * step < rows; r += CR_CH_UNROLL * step) {
    In x[CR_CH_UNROLL];
#pragma unroll
    for (int u = 0; u < CR_CH_UNROLL; u++)
      x[u] = __ldg (data + (r + u * step) * channels + c);
#pragma unroll
    for (int u = 0; u < CR_CH_UNROLL; u++)
      acc = cr_combine (acc, cr_load (x[u], row_base + r + u * step, ctx),
          ctx);
  }
  In x[CR_CH_UNROLL - 1];
#pragma unroll
  for (int u = 0; u < CR_CH_UNROLL - 1; u++)
    if (r + u * step < rows)
      x[u] = __ldg (data + (r + u * step) * channels + c);
#pragma unroll
  for (int u = 0; u < CR_CH_UNROLL - 1; u++)
    if (r + u * step < rows)
      acc = cr_combine (acc, cr_load (x[u], row_base + r + u * step, ctx),
          ctx);
  return acc;
}

/* Ends a reduction after each thread folded its share into acc[C]: the
 * block's partials, and in the last block to finish, the total over all
 * blocks combined with @carry, kept in @state and finalized into @result.
 * Every thread of the block calls it.
 *
 * partials:  C per block; ticket: zero before the first launch, and left
 *            zero by every launch
 * carry:     NULL, or the C states of the rows before (may equal state)
 * state:     receives carry combined with these rows, per channel
 * result:    receives cr_finalize (state, count), per channel
 * Returns true in the block that finished the reduction, false in the
 * others. */
template <int C>
static __device__ __forceinline__ bool
cr_finish_packed (Acc (&acc)[C], CrAccWords *partials, unsigned int *ticket,
    const Acc *carry, Acc *state, Out *result, unsigned long long count,
    const Ctx &ctx)
{
#pragma unroll
  for (int c = 0; c < C; c++)
    acc[c] = cr_block_reduce (acc[c], ctx);
  if (threadIdx.x == 0 && gridDim.x > 1) {
#pragma unroll
    for (int c = 0; c < C; c++)
      partials[blockIdx.x * C + c].acc = acc[c];
  }
  if (!cr_block_is_last (ticket))
    return false;

  if (gridDim.x > 1) {
#pragma unroll
    for (int c = 0; c < C; c++) {
      Acc total = cr_identity (ctx);
      for (unsigned int b = threadIdx.x; b < gridDim.x; b += CR_BLOCK_THREADS)
        total = cr_combine (total, cr_load_partial (partials + b * C + c), ctx);
      acc[c] = cr_block_reduce (total, ctx);
    }
  }
  if (threadIdx.x == 0) {
#pragma unroll
    for (int c = 0; c < C; c++)
      cr_end_channel (acc[c], c, carry, state, result, count, ctx);
  }
  cr_release_ticket (ticket, gridDim.x);
  return true;
}

/* C channels whose rows pack whole into 16-byte loads: C = 1 (any type),
 * or 2, 4 or 8 where C rows fill a load exactly. Each thread keeps one
 * accumulator per channel; element k of a load belongs to channel k % C,
 * known when compiling, because loads start on a row.
 *
 * data:      rows * C elements, aligned to their size; with C > 1 also to
 *            16 bytes (the host checks), with C = 1 the elements before
 *            the first 16-byte boundary are read one per thread
 * row_base:  the index of data's first row in the whole input, for
 *            cr_load's i
 * the rest:  as cr_finish_packed */
template <int C>
static __device__ __forceinline__ void
cr_reduce_packed (const In *data, unsigned long long rows,
    unsigned long long row_base, CrAccWords *partials, unsigned int *ticket,
    const Acc *carry, Acc *state, Out *result, unsigned long long count,
    const Ctx &ctx)
{
  Acc acc[C];
  cr_fold_packed<C> (data, rows, row_base,
      (unsigned long long) blockIdx.x * CR_BLOCK_THREADS + threadIdx.x,
      (unsigned long long) gridDim.x * CR_BLOCK_THREADS, acc, ctx);
  cr_finish_packed<C> (acc, partials, ticket, carry, state, result, count,
      ctx);
}

/* The whole input to one result. */
extern "C" __global__ void __launch_bounds__ (CR_BLOCK_THREADS)
cr_reduce (const In *data, unsigned long long n, unsigned long long index_base,
    CrAccWords *partials, unsigned int *ticket, const Acc *carry, Acc *state,
    Out *result, unsigned long long count, const Ctx ctx)
{
  cr_reduce_packed<1> (data, n, index_base, partials, ticket, carry, state,
      result, count, ctx);
}

#if CR_WITH_PITCHED
/* Only the pitched kernels fold a whole load into one accumulator; left
 * out otherwise, as NVRTC warns about an unused function. */
template <typename Visit>
static __device__ __forceinline__ Acc
cr_fold_vec (Acc acc, const CrVec &v, unsigned long long i, const Ctx &ctx,
    const Visit &visit)
{
#pragma unroll
  for (int k = 0; k < (int) CR_VEC; k++) {
    acc = cr_combine (acc, cr_load (v.e[k], i + k, ctx), ctx);
    visit (v.e[k], i + k, 0);
  }
  return acc;
}

/* Folds lines with padding between them, read in place (a plane of a
 * frame in GPU memory, whose pitch is wider than its rows), into acc[0]:
 * @n_vec loads, @line_vecs to a line, lines @pitch bytes apart, shared by
 * @blocks blocks of which this is @block. The host checks that data and
 * pitch are aligned to CR_LOAD_BYTES, that a line is whole loads, and that
 * the loads number fewer than CR_PITCHED_LOADS_LIMIT, so that the line of
 * a load is one 32-bit division. cr_load's i counts as if the lines were
 * packed, so the results equal those of the packed rows. @visit sees every
 * element. */
template <typename Visit = CrNoVisit>
static __device__ __forceinline__ void
cr_fold_pitched (const In *data, unsigned int line_vecs,
    unsigned long long pitch, unsigned int n_vec, unsigned long long index_base,
    unsigned int block, unsigned int blocks, Acc (&acc)[1], const Ctx &ctx,
    const Visit &visit = Visit ())
{
  const unsigned char *base = reinterpret_cast<const unsigned char *> (data);
  const unsigned int nthreads = blocks * CR_BLOCK_THREADS;
  unsigned int v = block * CR_BLOCK_THREADS + threadIdx.x;
  acc[0] = cr_identity (ctx);

  for (; v + (CR_UNROLL - 1) * nthreads < n_vec; v += CR_UNROLL * nthreads) {
    CrVec r[CR_UNROLL];
#pragma unroll
    for (int u = 0; u < CR_UNROLL; u++) {
      const unsigned int w = v + u * nthreads;
      const unsigned int line = w / line_vecs;
      r[u].raw = __ldg (reinterpret_cast<const uint4 *> (base + line * pitch
          + (unsigned long long) (w - line * line_vecs) * CR_LOAD_BYTES));
    }
#pragma unroll
    for (int u = 0; u < CR_UNROLL; u++)
      acc[0] = cr_fold_vec (acc[0], r[u],
          index_base + (unsigned long long) (v + u * nthreads) * CR_VEC, ctx,
          visit);
  }
  for (; v < n_vec; v += nthreads) {
    const unsigned int line = v / line_vecs;
    CrVec r;
    r.raw = __ldg (reinterpret_cast<const uint4 *> (base + line * pitch
        + (unsigned long long) (v - line * line_vecs) * CR_LOAD_BYTES));
    acc[0] = cr_fold_vec (
        acc[0], r, index_base + (unsigned long long) v * CR_VEC, ctx, visit);
  }
}

/* Lines with padding between them, read in place (cr_fold_pitched). */
extern "C" __global__ void __launch_bounds__ (CR_BLOCK_THREADS)
cr_reduce_pitched (const In *data, unsigned int line_vecs,
    unsigned long long pitch, unsigned int n_vec, unsigned long long index_base,
    CrAccWords *partials, unsigned int *ticket, const Acc *carry, Acc *state,
    Out *result, unsigned long long count, const Ctx ctx)
{
  Acc acc[1];
  cr_fold_pitched (data, line_vecs, pitch, n_vec, index_base, blockIdx.x,
      gridDim.x, acc, ctx);
  cr_finish_packed<1> (acc, partials, ticket, carry, state, result, count,
      ctx);
}
#endif
