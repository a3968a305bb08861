/* gstcudareduce-memory.h: host memory the GPU reads where it lies.
 *
 * The element answers ALLOCATION queries with an allocator (and, where the
 * caps fix the buffer size, a pool) of pinned, device-mapped memory: what
 * upstream writes there the kernel reads over the bus with no copy. Other
 * host memory that comes back to the same element (upstream pools recycle
 * their memory) is registered with the driver once, on its second visit,
 * and stays registered for as long as the memory lives, unless it shares a
 * page with memory registered already (gstcudareduce-pages.h): that is
 * copied. */
#pragma once

#include "cr-reducer.h"

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_CUDA_REDUCE_HOST_MEMORY_TYPE "CudaReduceHostMemory"

#define GST_TYPE_CUDA_REDUCE_HOST_ALLOCATOR \
  (gst_cuda_reduce_host_allocator_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaReduceHostAllocator,
    gst_cuda_reduce_host_allocator, GST, CUDA_REDUCE_HOST_ALLOCATOR,
    GstAllocator)

/* Pinned memory of @device's context (the allocator holds a reference, so
 * memory may outlive the element). Freed blocks are kept for reuse, up to
 * 512 MiB, because pinning is slow. */
GstAllocator *gst_cuda_reduce_host_allocator_new (CrDevice *device);

/* How many blocks @allocator has pinned so far (reuses not counted). */
guint64 gst_cuda_reduce_host_allocator_pinned (GstAllocator *allocator);

/* Where @device's kernels can read @size bytes at @data without a copy, or
 * 0 when they must be copied. @mem is mapped at @map_data and holds the
 * bytes. May register @mem with the driver (see above). */
CUdeviceptr gst_cuda_reduce_memory_device_address (GstMemory *mem,
    const guint8 *map_data, const guint8 *data, gsize size, CrDevice *device);

/* Answers an ALLOCATION @query from upstream with @allocator first and,
 * where the caps fix the buffer size (@frame_bytes > 0, and at most
 * G_MAXUINT, the most a pool's configuration holds) and upstream wants a
 * pool, a pool of its memory holding at least @min_buffers; asks for
 * video metas (@is_video) so that padded frames are described. */
void gst_cuda_reduce_memory_propose (GstQuery *query, GstAllocator *allocator,
    gboolean is_video, gsize frame_bytes, guint min_buffers);

G_END_DECLS
