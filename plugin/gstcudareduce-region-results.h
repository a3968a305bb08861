/* gstcudareduce-region-results.h: a frame's results per region, as an
 * element message, a meta on the buffer, parameters on the regions' ROI
 * metas, and tensors of [regions][values]. */
#pragma once

#include "gstcudareduce-pending.h"

G_BEGIN_DECLS

/* gst_cuda_reduce_pending_complete() for a pending frame with regions
 * (p->regions): waits for its reductions and delivers their results. */
GstFlowReturn gst_cuda_reduce_region_results_complete (
    GstCudaReducePending *pending, const GstCudaReduceOutputs *outputs,
    GError **error);

G_END_DECLS
