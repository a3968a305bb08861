/* bench-ceilings.h: host-to-device copy ceilings for bench-pipeline. */
#pragma once

#include "bench-common.h"

/* cuMemcpyHtoDAsync of each size from pinned memory and from @pageable, in
 * a CUDA context of the benchmark's own that is closed on return; GB/s,
 * median of the batches. */
gboolean measure_ceilings (const Region *pageable, const gsize *sizes,
    guint n_sizes, gdouble *pinned_gbps, gdouble *pageable_gbps,
    GError **error);
