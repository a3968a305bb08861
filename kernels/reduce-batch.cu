/* kernels/reduce-batch.cu: many small reductions in one launch.
 *
 * Appended to reduce.cu (whose types and block helpers it uses). Small
 * buffers cost more to launch for than to reduce, so the host gathers the
 * reductions that wait while the GPU is busy and launches them together:
 * one block per reduction (a segment), each block reading its segment, of
 * at most a few tens of kilobytes, where it lies in pinned host memory.
 *
 * The segments arrive by value, as the kernel's parameter (constant
 * memory, read by every thread at no cost), so nothing is copied to the
 * device before the launch.
 *
 * A segment that starts a result and ends it (one per buffer) is finalized
 * by its own block. Where segments carry state into one another (a result
 * over an interval of several buffers, or one left open for the next
 * launch), each block leaves its partial, and the last block to finish
 * folds the partials in segment order, finalizes where a segment ends a
 * result, and keeps the state for the next launch. */

/* CrSegment, CrBatch and the CR_SEGMENT_* flags are the host's too
 * (kernels/cr-abi.h defines them, and checks their layout, for both). */

/* One segment's rows of all channels: one channel, packed loads; several,
 * one channel per thread as in cr_reduce_channels (W = channels,
 * R = CR_BLOCK_THREADS / W rows per pass). Leaves channel c's total in
 * sh[c]. */
static __device__ void
cr_fold_segment (const CrSegment &seg, unsigned int channels, CrAccWords *sh,
    const Ctx &ctx)
{
  const unsigned int t = threadIdx.x;
  const In *data = reinterpret_cast<const In *> (seg.data);
  if (channels == 1) {
    Acc acc[1];
    cr_fold_packed<1> (data, seg.rows, seg.row_base, t, CR_BLOCK_THREADS,
        acc, ctx);
    acc[0] = cr_block_reduce (acc[0], ctx);
    if (t == 0)
      sh[0].acc = acc[0];
    __syncthreads ();
    return;
  }
  const unsigned int per_pass = CR_BLOCK_THREADS / channels;
  const unsigned int c = t % channels;
  sh[t].acc = t < per_pass * channels
      ? cr_fold_strided (data, seg.rows, channels, c, t / channels, per_pass,
            seg.row_base, ctx)
      : cr_identity (ctx);
  cr_fold_rows (sh, per_pass, channels, ctx);
}

#if CR_WITH_WINDOW
/* kernels/window.cu: keeps a hop's state in the ring and combines the
 * window's. */
static __device__ Acc cr_ring_end_hop (Acc *ring, unsigned int ring_hops,
    unsigned int last, unsigned int hops, unsigned int channels,
    unsigned int c, const Acc &hop, const Ctx &ctx);
#endif

/* What segment @s, which emits and is folded (it carries, or ends a
 * hop), finalizes for channel @c from @running, the state it ends. */
static __device__ Out
cr_segment_result (const CrSegment &g, unsigned int s, unsigned int c,
    unsigned int channels, const Acc &running, const Out *results,
    const Ctx &ctx)
{
#if CR_WITH_WINDOW
  if (g.flags & CR_SEGMENT_HOP) {
    /* The host put the window after the batch's results. */
    const CrBatchWindow *window = reinterpret_cast<const CrBatchWindow *> (
        reinterpret_cast<const char *> (results)
        + CR_BATCH_WINDOW_OFFSET (channels * sizeof (Out)));
    const Acc acc = cr_ring_end_hop (reinterpret_cast<Acc *> (window->ring),
        window->ring_hops, CR_SEGMENT_SLOT (g.flags),
        CR_SEGMENT_SPAN (g.flags), channels, c, running, ctx);
    return cr_finalize (acc, window->rows[s], ctx);
  }
#endif
  return cr_finalize (running, g.row_base + g.rows, ctx);
}

/* partials: CR_BATCH_MAX * channels slots; ticket: zero before the first
 * launch, and left zero by every launch
 * state:    channels accumulators: the state before the batch, for a first
 *           segment that carries; receives the state after it
 * results:  channels Out per result, then (for a program with a window's
 *           kernels) the batch's CrBatchWindow */
extern "C" __global__ void __launch_bounds__ (CR_BLOCK_THREADS)
cr_reduce_batch (const CrBatch batch, CrAccWords *partials,
    unsigned int *ticket, Acc *state, Out *results, const Ctx ctx)
{
  __shared__ CrAccWords sh[CR_BLOCK_THREADS];
  const unsigned int t = threadIdx.x;
  const unsigned int channels = batch.channels;
  const CrSegment &seg = batch.segments[blockIdx.x];

  cr_fold_segment (seg, channels, sh, ctx);
  const unsigned long long count = seg.row_base + seg.rows;
  if (seg.flags == CR_SEGMENT_EMIT && t < channels)
    results[(unsigned long long) seg.result * channels + t] =
        cr_finalize (sh[t].acc, count, ctx);
  if (!batch.fold)
    return;

  if (t < channels)
    partials[(unsigned long long) blockIdx.x * channels + t].acc = sh[t].acc;
  if (!cr_block_is_last (ticket))
    return;
  /* In segment order, per channel. The loads do not depend on the running
   * value, so unrolling keeps several in flight. */
  for (unsigned int c = t; c < channels; c += CR_BLOCK_THREADS) {
    Acc running = state[c];
#pragma unroll 4
    for (unsigned int s = 0; s < batch.n; s++) {
      const CrSegment &g = batch.segments[s];
      const Acc part = cr_load_partial (
          partials + (unsigned long long) s * channels + c);
      running = (g.flags & CR_SEGMENT_CARRY) ? cr_combine (running, part, ctx)
                                             : part;
      /* Those that only emit, their own blocks finalized. */
      if ((g.flags & CR_SEGMENT_EMIT) && g.flags != CR_SEGMENT_EMIT)
        results[(unsigned long long) g.result * channels + c] =
            cr_segment_result (g, s, c, channels, running, results, ctx);
    }
    state[c] = running;
  }
  cr_release_ticket (ticket, gridDim.x);
}

#if CR_WITH_PITCHED
/* Frames in GPU memory, gathered as small buffers are (CrFrameBatch): each
 * frame is too large for one block, so each has blocks of its own, which
 * read it in place as cr_reduce_pitched does and leave a partial each. The
 * last block to finish folds each frame's partials, then the frames in
 * order as the batch kernel folds its segments.
 *
 * partials: batch.blocks slots; ticket, state, results: as cr_reduce_batch
 * (one channel). */
extern "C" __global__ void __launch_bounds__ (CR_BLOCK_THREADS)
cr_reduce_frames (const CrFrameBatch batch, CrAccWords *partials,
    unsigned int *ticket, Acc *state, Out *results, const Ctx ctx)
{
  const unsigned int t = threadIdx.x;
  unsigned int f = 0;
  while (f + 1 < batch.n && blockIdx.x >= batch.frames[f + 1].first_block)
    f++;
  const CrFrame &frame = batch.frames[f];

  Acc acc[1];
  cr_fold_pitched (reinterpret_cast<const In *> (frame.data), frame.line_vecs,
      frame.pitch, frame.n_vec, frame.row_base,
      blockIdx.x - frame.first_block, frame.blocks, acc, ctx);
  acc[0] = cr_block_reduce (acc[0], ctx);
  if (t == 0)
    partials[blockIdx.x].acc = acc[0];
  if (!cr_block_is_last (ticket))
    return;
  /* A grid of one block elects itself without a barrier. */
  __syncthreads ();

  Acc running = state[0];
  for (unsigned int k = 0; k < batch.n; k++) {
    const CrFrame &g = batch.frames[k];
    Acc total = cr_identity (ctx);
    for (unsigned int b = t; b < g.blocks; b += CR_BLOCK_THREADS)
      total = cr_combine (
          total, cr_load_partial (partials + g.first_block + b), ctx);
    total = cr_block_reduce (total, ctx);
    if (t != 0)
      continue;
    running = (g.flags & CR_SEGMENT_CARRY) ? cr_combine (running, total, ctx)
                                           : total;
    if (g.flags & CR_SEGMENT_EMIT) {
      const CrSegment segment = { g.data,
        (unsigned long long) g.n_vec * CR_VEC, g.row_base, g.flags,
        g.result };
      results[g.result] =
          cr_segment_result (segment, k, 0, 1, running, results, ctx);
    }
  }
  if (t == 0)
    state[0] = running;
  cr_release_ticket (ticket, gridDim.x);
}
#endif
