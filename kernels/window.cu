/* kernels/window.cu: a sliding window's result, combined from the states
 * its hops left, without reading their values again.
 *
 * Appended last (after histogram.cu where the monoid counts bins), and
 * only to programs asked for it (CR_KERNELS_WINDOW). The host keeps each
 * hop's final state in a ring on the device: slot s holds channels Acc
 * (and, for a monoid with bins, channels x CR_BIN_SLOTS counts), the hop
 * ending now in slot @last. One launch of one block combines the @hops
 * states that end there, oldest first (a monoid's combine need not
 * commute), finalizes them over the window's @count rows, and writes the
 * result over the one the hop's own launch wrote, so the host reads it as
 * any other. A hop that ends in a batch of small reductions needs no
 * launch of its own: the batch kernel's fold keeps its state in the ring
 * and combines the window (cr_ring_end_hop). */

/* The slot @back hops before @last in a ring of @ring_hops. */
static __device__ __forceinline__ unsigned long long
cr_ring_slot (unsigned int last, unsigned int back, unsigned int ring_hops)
{
  return (last + ring_hops - back) % ring_hops;
}

/* Channel @c of a hop's state @hop into slot @last, and the window of the
 * @hops slots that end there combined, oldest first. Each thread reads
 * only the channel it wrote. The batch kernel's fold calls it for the
 * segments that end hops. */
static __device__ Acc
cr_ring_end_hop (Acc *ring, unsigned int ring_hops, unsigned int last,
    unsigned int hops, unsigned int channels, unsigned int c, const Acc &hop,
    const Ctx &ctx)
{
  ring[(unsigned long long) last * channels + c] = hop;
  Acc acc = ring[cr_ring_slot (last, hops - 1, ring_hops) * channels + c];
  for (unsigned int back = hops - 1; back-- > 0;)
    acc = cr_combine (
        acc, ring[cr_ring_slot (last, back, ring_hops) * channels + c], ctx);
  return acc;
}

/* ring:   ring_hops slots of channels Acc
 * result: receives channels Out */
extern "C" __global__ void __launch_bounds__ (CR_BLOCK_THREADS)
cr_window (const Acc *ring, unsigned int ring_hops, unsigned int last,
    unsigned int hops, unsigned int channels, Out *result,
    unsigned long long count, const Ctx ctx)
{
  for (unsigned int c = threadIdx.x; c < channels; c += CR_BLOCK_THREADS) {
    Acc acc = ring[cr_ring_slot (last, hops - 1, ring_hops) * channels + c];
    for (unsigned int back = hops - 1; back-- > 0;)
      acc = cr_combine (
          acc, ring[cr_ring_slot (last, back, ring_hops) * channels + c], ctx);
    result[c] = cr_finalize (acc, count, ctx);
  }
}

#ifdef CR_BINS
/* ring:   ring_hops slots of channels x CR_BIN_SLOTS counts
 * sums:   receives the window's counts (device memory, which the
 *         percentiles read back)
 * result: receives them too, then the percentiles, as cr_bins_finish
 *         writes a launch's */
extern "C" __global__ void __launch_bounds__ (CR_BLOCK_THREADS)
cr_window_bins (const unsigned long long *ring, unsigned int ring_hops,
    unsigned int last, unsigned int hops, unsigned int channels,
    unsigned long long *sums, unsigned long long *result, const Ctx ctx)
{
  const unsigned int slots = channels * CR_BIN_SLOTS (CR_BINS);
  for (unsigned int w = threadIdx.x; w < slots; w += CR_BLOCK_THREADS) {
    unsigned long long n = 0;
    for (unsigned int back = 0; back < hops; back++)
      n += ring[cr_ring_slot (last, back, ring_hops) * slots + w];
    sums[w] = n;
    result[w] = n;
  }
#ifdef CR_PERCENTILES
  __syncthreads ();
  cr_percentiles (sums, channels, cr_binning (ctx),
      reinterpret_cast<double *> (result + slots), ctx);
#endif
}
#endif
