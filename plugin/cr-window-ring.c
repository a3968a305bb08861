/* cr-window-ring.c: the states of a sliding window's hops on the device. */
#include "cr-window-ring.h"

gboolean
cr_window_ring_load (CrWindowRing *ring, const CrDriver *cu, CUmodule module,
    const CrProgram *program, GError **error)
{
  if (!(program->kernels & CR_KERNELS_WINDOW))
    return TRUE;
  CR_CHECK (cu->ModuleGetFunction (&ring->combine, module, "cr_window"),
      "Finding the window's kernel");
  if (program->bins)
    CR_CHECK (
        cu->ModuleGetFunction (&ring->combine_bins, module, "cr_window_bins"),
        "Finding the window's kernel");
  return TRUE;
}

void
cr_window_ring_free (
    CrWindowRing *ring, const CrDriver *cu, gboolean in_context)
{
  CUdeviceptr *buffers[] = { &ring->states, &ring->counts, &ring->sums };
  for (guint k = 0; k < G_N_ELEMENTS (buffers); k++) {
    if (*buffers[k] && in_context)
      cu->MemFree (*buffers[k]);
    *buffers[k] = 0;
  }
  g_clear_pointer (&ring->rows, g_free);
  ring->hops = 0;
}

gboolean
cr_window_ring_allocate (CrWindowRing *ring, const CrDriver *cu,
    const CrProgram *program, guint hops, guint channels, GError **error)
{
  const gsize counts = (gsize)channels * CR_BIN_SLOTS (program->bins);

  cr_window_ring_free (ring, cu, TRUE);
  if (hops < 2)
    return TRUE;
  g_return_val_if_fail (ring->combine != NULL, FALSE);
  ring->hops = hops;
  ring->channels = channels;
  ring->rows = g_new0 (guint64, hops);
  if (cr_monoid_has_accumulator (program->monoid))
    CR_CHECK (cu->MemAlloc (
                  &ring->states, (gsize)hops * channels * program->acc.size),
        "Allocating the window's states");
  if (program->bins) {
    CR_CHECK (cu->MemAlloc (&ring->counts, hops * counts * sizeof (guint64)),
        "Allocating the window's counts");
    CR_CHECK (cu->MemAlloc (&ring->sums, counts * sizeof (guint64)),
        "Allocating the window's counts");
  }
  return TRUE;
}

guint64
cr_window_ring_note_rows (
    CrWindowRing *ring, const CrHopEnd *end, guint *slot, guint *span)
{
  const guint size = ring->hops;
  guint64 rows = 0;

  *slot = (guint)(end->hop % size);
  *span = CLAMP (end->window_hops, 1, size);
  ring->rows[*slot] = end->rows;
  for (guint back = 0; back < *span; back++)
    rows += ring->rows[(*slot + size - back) % size];
  return rows;
}

gboolean
cr_window_ring_end_hop (CrWindowRing *ring, const CrDriver *cu, CUstream stream,
    const CrProgram *program, const CrHopEnd *end, const guint8 *ctx,
    guint64 *rows, GError **error)
{
  guint size = ring->hops, channels = ring->channels;
  guint last, hops;
  const gsize states = (gsize)channels * program->acc.size;
  const gsize counts =
      (gsize)channels * CR_BIN_SLOTS (program->bins) * sizeof (guint64);

  *rows = cr_window_ring_note_rows (ring, end, &last, &hops);
  if (ring->states)
    CR_CHECK (cu->MemcpyDtoDAsync (
                  ring->states + last * states, end->state, states, stream),
        "Keeping the hop's state for the window");
  if (ring->counts)
    CR_CHECK (cu->MemcpyDtoDAsync (
                  ring->counts + last * counts, end->bin_state, counts, stream),
        "Keeping the hop's counts for the window");
  /* A window of one hop so far is that hop's result, already written. */
  if (hops == 1)
    return TRUE;
  CUdeviceptr result = end->result;
  guint64 spanned = *rows;
  if (ring->states) {
    void *params[] = { &ring->states, &size, &last, &hops, &channels, &result,
      &spanned, (void *)ctx };
    CR_CHECK (cu->LaunchKernel (ring->combine, 1, 1, 1, CR_BLOCK_THREADS, 1, 1,
                  0, stream, params, NULL),
        "Launching the window's combine");
  }
  if (ring->counts) {
    CUdeviceptr counted =
        result + CR_BINS_RESULT_OFFSET (channels, program->out_device.size);
    void *params[] = { &ring->counts, &size, &last, &hops, &channels,
      &ring->sums, &counted, (void *)ctx };
    CR_CHECK (cu->LaunchKernel (ring->combine_bins, 1, 1, 1, CR_BLOCK_THREADS,
                  1, 1, 0, stream, params, NULL),
        "Launching the window's counts");
  }
  return TRUE;
}
