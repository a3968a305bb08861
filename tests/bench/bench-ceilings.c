/* bench-ceilings.c: what a plain host-to-device copy achieves, the ceiling
 * bench-pipeline sets the element's GB/s against. Per size, in a CUDA
 * context of the benchmark's own before the pipelines run:
 * cuMemcpyHtoDAsync of B bytes into device memory, back to back in batches
 * closed by cuStreamSynchronize, from cuMemAllocHost memory (pinned) and
 * from the prefaulted malloc'd region (pageable), the source moving through
 * the region; wall-clock GB/s, median of 7 batches. */
#include "bench-ceilings.h"

#include "cr-cuda.h"
#include "cr-reducer.h"

#include <string.h>

#define CEILING_BATCHES 7

static gboolean
time_copies (const CrDriver *cu, CUstream stream, CUdeviceptr dst,
    const guint8 *src, gsize src_bytes, gsize bytes, gdouble *gbps,
    GError **error)
{
  const guint per_batch = CLAMP ((512 * MIB) / bytes, 2, 2000);
  const gsize slots = src_bytes / bytes;
  gdouble rates[CEILING_BATCHES];
  gsize next = 0;
  CUresult res;

  /* Batch -1 is warm-up. */
  for (gint b = -1; b < CEILING_BATCHES; b++) {
    gint64 t0 = g_get_monotonic_time ();
    for (guint k = 0; k < per_batch; k++) {
      res = cu->MemcpyHtoDAsync (
          dst, src + (next++ % slots) * bytes, bytes, stream);
      if (res != CUDA_SUCCESS)
        return cr_cuda_fail (error, res, "cuMemcpyHtoDAsync");
    }
    if ((res = cu->StreamSynchronize (stream)) != CUDA_SUCCESS)
      return cr_cuda_fail (error, res, "cuStreamSynchronize");
    gint64 t1 = g_get_monotonic_time ();
    if (b >= 0)
      rates[b] = (gdouble)per_batch * bytes / (MAX (t1 - t0, 1) * 1e3);
  }
  for (guint i = 1; i < CEILING_BATCHES; i++)
    for (guint j = i; j > 0 && rates[j] < rates[j - 1]; j--) {
      gdouble t = rates[j];
      rates[j] = rates[j - 1];
      rates[j - 1] = t;
    }
  *gbps = rates[CEILING_BATCHES / 2];
  return TRUE;
}

/* In a context of the benchmark's own, closed before the pipelines run. */
gboolean
measure_ceilings (const Region *pageable, const gsize *sizes, guint n_sizes,
    gdouble *pinned_gbps, gdouble *pageable_gbps, GError **error)
{
  g_autoptr (CrDevice) device = cr_device_open (-1, error);
  const CrDriver *cu = cr_cuda_driver (error);
  const gsize max = sizes[n_sizes - 1];
  const gsize pinned_bytes = MIN (MAX (max, 64 * MIB), pageable->bytes);
  CUdeviceptr dst = 0;
  void *pinned = NULL;
  gboolean ok = FALSE;
  CUresult res;

  if (device == NULL || cu == NULL || !cr_device_push (device, error))
    return FALSE;
  if ((res = cu->MemAlloc (&dst, max)) != CUDA_SUCCESS) {
    cr_cuda_fail (error, res, "cuMemAlloc");
    goto out;
  }
  if ((res = cu->MemAllocHost (&pinned, pinned_bytes)) != CUDA_SUCCESS) {
    cr_cuda_fail (error, res, "cuMemAllocHost");
    goto out;
  }
  memcpy (pinned, pageable->data, pinned_bytes);
  for (guint i = 0; i < n_sizes; i++) {
    if (!time_copies (cu, cr_device_stream (device), dst, pinned, pinned_bytes,
            sizes[i], &pinned_gbps[i], error)
        || !time_copies (cu, cr_device_stream (device), dst, pageable->data,
            pageable->bytes, sizes[i], &pageable_gbps[i], error))
      goto out;
  }
  ok = TRUE;
out:
  if (pinned)
    cu->MemFreeHost (pinned);
  if (dst)
    cu->MemFree (dst);
  cr_device_pop (device);
  return ok;
}
gboolean
measure_device_copy (
    const gsize *sizes, guint n_sizes, gdouble *gbps, GError **error)
{
  g_autoptr (CrDevice) device = cr_device_open (-1, error);
  const CrDriver *cu = cr_cuda_driver (error);
  const gsize max = sizes[n_sizes - 1];
  CUdeviceptr src = 0, dst = 0;
  gboolean ok = FALSE;
  CUresult res;

  if (device == NULL || cu == NULL || !cr_device_push (device, error))
    return FALSE;
  if ((res = cu->MemAlloc (&src, max)) != CUDA_SUCCESS
      || (res = cu->MemAlloc (&dst, max)) != CUDA_SUCCESS) {
    cr_cuda_fail (error, res, "cuMemAlloc");
    goto out;
  }
  if ((res = cu->MemsetD8Async (src, 7, max, cr_device_stream (device)))) {
    cr_cuda_fail (error, res, "cuMemsetD8Async");
    goto out;
  }
  for (guint i = 0; i < n_sizes; i++) {
    const guint per_batch = CLAMP ((4096 * MIB) / sizes[i], 2, 20000);
    gdouble rates[CEILING_BATCHES];
    for (gint b = -1; b < CEILING_BATCHES; b++) {
      gint64 t0 = g_get_monotonic_time ();
      for (guint k = 0; k < per_batch; k++)
        if ((res = cu->MemcpyDtoDAsync (
                 dst, src, sizes[i], cr_device_stream (device)))) {
          cr_cuda_fail (error, res, "cuMemcpyDtoDAsync");
          goto out;
        }
      if ((res = cu->StreamSynchronize (cr_device_stream (device)))) {
        cr_cuda_fail (error, res, "cuStreamSynchronize");
        goto out;
      }
      gint64 t1 = g_get_monotonic_time ();
      if (b >= 0)
        rates[b] = (gdouble)per_batch * sizes[i] / (MAX (t1 - t0, 1) * 1e3);
    }
    gbps[i] = median (rates, CEILING_BATCHES);
  }
  ok = TRUE;
out:
  if (src)
    cu->MemFree (src);
  if (dst)
    cu->MemFree (dst);
  cr_device_pop (device);
  return ok;
}
