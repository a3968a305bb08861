/* cub-reduce.h: CUB's device-wide reductions, the benchmark's ceiling.
 * Built only where Meson finds a CUDA compiler (CR_HAVE_CUB). */
#pragma once

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  CR_CUB_SUM_INT32, /* DeviceReduce::Sum, int32 in and out: the ceiling */
  CR_CUB_SUM_WIDE_INT32, /* TransformReduce to int64 (cudareduce's sum) */
  CR_CUB_SUM_FLOAT32, /* TransformReduce to float64 */
  CR_CUB_SUMSQ_INT32, /* TransformReduce to {int64 sum, int64 sumsq} */
  CR_CUB_MINMAX_FLOAT32, /* TransformReduce to {min, max} */
  CR_CUB_MEAN_VAR_FLOAT32, /* TransformReduce to shifted sums, as mean_var */
  CR_CUB_COUNT_GT_FLOAT32, /* TransformReduce to a uint64 count */
  CR_CUB_ARGMAX_FLOAT32, /* DeviceReduce::ArgMax */
  CR_CUB_N_OPS
} CrCubOp;

/* Runs @op over @n elements at device address @in on @stream (a CUstream)
 * in the current CUDA context, writing at most 32 bytes to device address
 * @out. With @temp NULL, only sets *@temp_bytes. Returns 0 on success, else
 * a cudaError_t. */
int cr_cub_reduce (CrCubOp op, const void *in, unsigned long long n, void *out,
    void *temp, size_t *temp_bytes, void *stream, double threshold);

/* CUB's DeviceHistogram (cub-histogram.cu): even bins over a type's
 * whole range. */
typedef enum {
  CR_CUB_HISTOGRAM_U8, /* HistogramEven, uint8, one channel */
  CR_CUB_HISTOGRAM_U16, /* HistogramEven, uint16, one channel */
  CR_CUB_HISTOGRAM_RGBA, /* MultiHistogramEven<4, 3>, uint8 */
} CrCubHistogram;

/* Counts @n samples (all channels) at device address @in into @bins
 * 32-bit counters per counted channel at device address @counts; as
 * cr_cub_reduce with @temp NULL. */
int cr_cub_histogram (CrCubHistogram kind, const void *in, unsigned long long n,
    int bins, unsigned int *counts, void *temp, size_t *temp_bytes,
    void *stream);

/* "Sum", "TransformReduce", ... for reports. */
const char *cr_cub_describe (CrCubOp op);

#ifdef __cplusplus
}
#endif
