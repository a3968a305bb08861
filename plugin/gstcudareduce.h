/* gstcudareduce.h: the cudareduce element. */
#pragma once

#include <gst/base/gstbasetransform.h>
#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_CUDA_REDUCE (gst_cuda_reduce_get_type ())
G_DECLARE_FINAL_TYPE (
    GstCudaReduce, gst_cuda_reduce, GST, CUDA_REDUCE, GstBaseTransform)

/**
 * GstCudaReduceOutput:
 * @GST_CUDA_REDUCE_OUTPUT_MESSAGE: buffers pass through unchanged; results
 *   are posted on the bus
 * @GST_CUDA_REDUCE_OUTPUT_TENSOR: the source pad carries the results as
 *   other/tensors buffers
 */
GST_ELEMENT_REGISTER_DECLARE (cudareduce);

G_END_DECLS
