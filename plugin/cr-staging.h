/* cr-staging.h: pinned, device-mapped host memory that ordinary host data is
 * copied through on its way to the GPU.
 *
 * The driver copies pageable memory at a fraction of the bus's speed (about
 * 7 GB/s where pinned memory moves at 55 GB/s on an H200). Copying into
 * pinned memory ourselves, with several threads, and letting the kernel
 * read it in place beats that, and the copy of one chunk overlaps the GPU's
 * reading of the chunk before. The ring is used from one thread at a time. */
#pragma once

#include "cr-cuda.h"

G_BEGIN_DECLS

typedef struct _CrStaging CrStaging;

/* With the context that will use it current. */
CrStaging *cr_staging_new (
    const CrDriver *cu, gsize ring_bytes, GError **error);
/* With the context current; waits for the GPU to finish with every chunk. */
void cr_staging_free (CrStaging *staging);

/* The largest chunk one claim may take. */
gsize cr_staging_max_chunk (const CrStaging *staging);

/* Claims @len bytes (at most the max chunk), waiting for the GPU to finish
 * with older chunks when the ring is full, for at most @timeout_us (0: for
 * ever). @host is where to write, @device where a kernel reads the same
 * bytes. */
gboolean cr_staging_claim (CrStaging *staging, gsize len, gint64 timeout_us,
    guint8 **host, CUdeviceptr *device, GError **error);

/* Ends the last claim: the chunk is free again once the work queued on
 * @stream so far has finished. */
gboolean cr_staging_release (
    CrStaging *staging, CUstream stream, GError **error);

/* memcpy, spread over a few threads for large copies (one thread cannot
 * saturate the memory system). */
void cr_parallel_memcpy (void *dst, const void *src, gsize n);

G_END_DECLS
