/* bench-ceilings.h: host-to-device copy ceilings for bench-pipeline. */
#pragma once

#include "bench-common.h"

/* cuMemcpyHtoDAsync of each size from pinned memory and from @pageable, in
 * a CUDA context of the benchmark's own that is closed on return; GB/s,
 * median of the batches. */
gboolean measure_ceilings (const Region *pageable, const gsize *sizes,
    guint n_sizes, gdouble *pinned_gbps, gdouble *pageable_gbps,
    GError **error);

/* cuMemcpyDtoDAsync of each size (ascending) within one GPU's memory, in
 * GB/s of bytes read (each also written), median of the batches. */
gboolean measure_device_copy (
    const gsize *sizes, guint n_sizes, gdouble *gbps, GError **error);
