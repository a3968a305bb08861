/* cr-region-kernel.h: the regions kernel (kernels/regions.cu) of a
 * reducer, and the device memory its launches share.
 *
 * Allocated on the first launch over regions, for CR_REGION_CHANNELS_MAX
 * channels whatever the reducer's, so that a change of channels never
 * waits for the GPU to free it. */
#pragma once

#include "cr-cuda.h"
#include "cr-program.h"

G_BEGIN_DECLS

typedef struct {
  /* cr_reduce_regions1 to 4, by channels; NULL: the program has none */
  CUfunction functions[CR_REGION_CHANNELS_MAX];
  CUfunction window; /* cr_window_regions */
  CUfunction histogram; /* cr_histogram_regions, for a monoid with bins */
  CUfunction window_bins; /* cr_window_region_bins */
  CUdeviceptr partials; /* CR_REGION_BLOCKS_MAX x channels slots */
  CUdeviceptr tickets; /* one per region, zero between launches */
  CUdeviceptr states; /* channels Acc per region, carried between planes */
  /* A launch's CrRegionRects, then its blocks' regions (at most
   * CR_REGIONS_MAX and CR_REGION_BLOCKS_MAX), copied before it. */
  CUdeviceptr table;
  CUdeviceptr counts; /* CR_REGIONS_MAX guint64: a window's, per region */
  /* A sliding window's ring: ring_hops slots of ring_values Acc (regions
   * times channels); allocated for the window asked for. */
  CUdeviceptr ring;
  guint ring_hops, ring_values;
  guint64 *ring_counts; /* ring_hops slots of each region's count */
  /* With bins: ring_hops slots of every region's counters, and the
   * window's sums of them. */
  CUdeviceptr ring_bins, window_sums;
  /* A monoid with bins: each region's counters (channels x bin slots),
   * zero between launches, and their state carried between launches;
   * room for bin_counters of each. */
  CUdeviceptr bin_scratch, bin_state;
  gsize bin_counters;
} CrRegionKernel;

/* Finds the kernel in @module, which has it where @program has
 * CR_KERNELS_REGIONS. */
gboolean cr_region_kernel_load (CrRegionKernel *kernel, const CrDriver *cu,
    CUmodule module, const CrProgram *program, GError **error);
/* The device memory, allocated (and the tickets cleared on @stream) unless
 * it is already. The context is current. */
gboolean cr_region_kernel_allocate (CrRegionKernel *kernel, const CrDriver *cu,
    CUstream stream, const CrProgram *program, GError **error);
/* A ring of @hops slots of @values Acc each (and of @values / @channels
 * counts), unless the kernel has one of that shape. The context is current, and no queued launch uses the old
 * ring. */
gboolean cr_region_kernel_allocate_ring (CrRegionKernel *kernel,
    const CrDriver *cu, const CrProgram *program, guint hops, guint values,
    guint channels, GError **error);
/* Room for @counters counters of each region's counts (scratch cleared
 * on @stream), unless there is: the state kept so far moves along. The
 * context is current. */
gboolean cr_region_kernel_allocate_bins (CrRegionKernel *kernel,
    const CrDriver *cu, CUstream stream, gsize counters, GError **error);
/* Frees the memory; with @in_context FALSE (the context is gone or
 * broken) forgets it. */
void cr_region_kernel_free (
    CrRegionKernel *kernel, const CrDriver *cu, gboolean in_context);

G_END_DECLS
