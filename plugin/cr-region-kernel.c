/* cr-region-kernel.c: the regions kernel of a reducer, and its memory. */
#include "cr-region-kernel.h"

gboolean
cr_region_kernel_load (CrRegionKernel *kernel, const CrDriver *cu,
    CUmodule module, const CrProgram *program, GError **error)
{
  if (!(program->kernels & CR_KERNELS_REGIONS))
    return TRUE;
  for (guint c = 0; c < CR_REGION_CHANNELS_MAX; c++) {
    gchar name[32];
    g_snprintf (name, sizeof name, "cr_reduce_regions%u", c + 1);
    CR_CHECK (cu->ModuleGetFunction (&kernel->functions[c], module, name),
        "Finding the regions' kernel");
  }
  CR_CHECK (
      cu->ModuleGetFunction (&kernel->window, module, "cr_window_regions"),
      "Finding the regions' window kernel");
  if (program->bins) {
    CR_CHECK (cu->ModuleGetFunction (&kernel->histogram, module,
                  program->pair_bins ? "cr_histogram_pair_regions"
                                     : "cr_histogram_regions"),
        "Finding the regions' histogram kernel");
    CR_CHECK (cu->ModuleGetFunction (
                  &kernel->window_bins, module, "cr_window_region_bins"),
        "Finding the regions' histogram kernel");
  }
  return TRUE;
}

void
cr_region_kernel_free (
    CrRegionKernel *kernel, const CrDriver *cu, gboolean in_context)
{
  CUdeviceptr *buffers[] = { &kernel->partials, &kernel->tickets,
    &kernel->states, &kernel->table, &kernel->counts, &kernel->ring,
    &kernel->bin_scratch, &kernel->bin_state, &kernel->ring_bins,
    &kernel->window_sums };
  for (guint k = 0; k < G_N_ELEMENTS (buffers); k++) {
    if (*buffers[k] && in_context)
      cu->MemFree (*buffers[k]);
    *buffers[k] = 0;
  }
  kernel->ring_hops = kernel->ring_values = 0;
  kernel->bin_counters = 0;
  g_clear_pointer (&kernel->ring_counts, g_free);
}

gboolean
cr_region_kernel_allocate (CrRegionKernel *kernel, const CrDriver *cu,
    CUstream stream, const CrProgram *program, GError **error)
{
  const gsize channels = CR_REGION_CHANNELS_MAX;
  const gsize ticket_bytes = CR_REGIONS_MAX * CR_TICKET_BYTES;

  if (kernel->partials)
    return TRUE;
  g_return_val_if_fail (kernel->functions[0] != NULL, FALSE);
  /* Freed together on failure, so that the next call starts over. */
  CUresult res = cu->MemAlloc (&kernel->partials,
      CR_REGION_BLOCKS_MAX * channels
          * CR_PARTIAL_SLOT_BYTES (program->acc.size));
  if (res == CUDA_SUCCESS)
    res = cu->MemAlloc (&kernel->tickets, ticket_bytes);
  if (res == CUDA_SUCCESS)
    res = cu->MemsetD8Async (kernel->tickets, 0, ticket_bytes, stream);
  if (res == CUDA_SUCCESS)
    res = cu->MemAlloc (&kernel->states,
        CR_REGIONS_MAX * channels * MAX (program->acc.size, 1));
  if (res == CUDA_SUCCESS)
    res = cu->MemAlloc (&kernel->table,
        CR_REGIONS_MAX * CR_REGION_PLANES_MAX * sizeof (struct CrRegionRect)
            + CR_LOAD_BYTES + CR_REGION_BLOCKS_MAX * sizeof (guint32));
  if (res == CUDA_SUCCESS)
    res = cu->MemAlloc (&kernel->counts, CR_REGIONS_MAX * sizeof (guint64));
  if (res != CUDA_SUCCESS) {
    cr_region_kernel_free (kernel, cu, TRUE);
    return cr_cuda_fail (error, res, "Allocating memory for regions");
  }
  return TRUE;
}

gboolean
cr_region_kernel_allocate_ring (CrRegionKernel *kernel, const CrDriver *cu,
    const CrProgram *program, guint hops, guint values, guint channels,
    GError **error)
{
  if (kernel->ring && kernel->ring_hops == hops
      && kernel->ring_values == values)
    return TRUE;
  CUdeviceptr *rings[] = { &kernel->ring, &kernel->ring_bins,
    &kernel->window_sums };
  for (guint k = 0; k < G_N_ELEMENTS (rings); k++) {
    if (*rings[k])
      cu->MemFree (*rings[k]);
    *rings[k] = 0;
  }
  kernel->ring_hops = kernel->ring_values = 0;
  g_free (kernel->ring_counts);
  kernel->ring_counts = g_new0 (guint64, (gsize)hops * (values / channels));
  CR_CHECK (cu->MemAlloc (&kernel->ring,
                MAX ((gsize)hops * values * program->acc.size, 1)),
      "Allocating the regions' window");
  if (program->bins) {
    const gsize counters = (gsize)values * CR_BIN_SLOTS (program->bins);
    CR_CHECK (
        cu->MemAlloc (&kernel->ring_bins, hops * counters * sizeof (guint64)),
        "Allocating the regions' window");
    CR_CHECK (cu->MemAlloc (&kernel->window_sums, counters * sizeof (guint64)),
        "Allocating the regions' window");
  }
  kernel->ring_hops = hops;
  kernel->ring_values = values;
  return TRUE;
}

gboolean
cr_region_kernel_allocate_bins (CrRegionKernel *kernel, const CrDriver *cu,
    CUstream stream, gsize counters, GError **error)
{
  const gsize bytes = counters * sizeof (guint64);
  const gsize kept = kernel->bin_counters * sizeof (guint64);
  CUdeviceptr scratch = 0, state = 0;

  if (counters <= kernel->bin_counters)
    return TRUE;
  CUresult res = cu->MemAlloc (&scratch, bytes);
  if (res == CUDA_SUCCESS)
    res = cu->MemsetD8Async (scratch, 0, bytes, stream);
  if (res == CUDA_SUCCESS)
    res = cu->MemAlloc (&state, bytes);
  /* Launches queued on the stream still use the old counters: the copy
   * follows them, and the old memory is freed once they are done. */
  if (res == CUDA_SUCCESS && kept > 0)
    res = cu->MemcpyDtoDAsync (state, kernel->bin_state, kept, stream);
  if (res == CUDA_SUCCESS)
    res = cu->StreamSynchronize (stream);
  if (res != CUDA_SUCCESS) {
    if (scratch)
      cu->MemFree (scratch);
    if (state)
      cu->MemFree (state);
    return cr_cuda_fail (error, res, "Allocating the regions' counters");
  }
  if (kernel->bin_scratch)
    cu->MemFree (kernel->bin_scratch);
  if (kernel->bin_state)
    cu->MemFree (kernel->bin_state);
  kernel->bin_scratch = scratch;
  kernel->bin_state = state;
  kernel->bin_counters = counters;
  return TRUE;
}
