/* cr-reducer.h: running a compiled program on a GPU.
 *
 * A CrDevice is one GPU with a CUDA context and stream of its own. A
 * CrReducer is a
 * program loaded into that context with the buffers its launches need. Both
 * are used from one thread at a time. */
#pragma once

#include "cr-compiler.h"
#include "cr-cuda.h"
#include "cr-program.h"

G_BEGIN_DECLS

typedef struct _CrDevice CrDevice;
typedef struct _CrReducer CrReducer;

/* @ordinal -1 means the first GPU. Reducers, jobs and host memory hold a
 * reference, so the context lives until the last of them is gone. */
CrDevice *cr_device_open (gint ordinal, GError **error);
CrDevice *cr_device_ref (CrDevice *device);
void cr_device_unref (CrDevice *device);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CrDevice, cr_device_unref)

gint cr_device_ordinal (const CrDevice *device);
/* Compute capability as major * 10 + minor. */
gint cr_device_arch (const CrDevice *device);
const gchar *cr_device_name (const CrDevice *device);
/* Makes the device's context current on this thread until pop. */
gboolean cr_device_push (CrDevice *device, GError **error);
void cr_device_pop (CrDevice *device);
CUstream cr_device_stream (const CrDevice *device);

/* Pinned host memory mapped for the GPU, which kernels read in place at
 * *@device_ptr. Callers hold a device reference until they free it. */
gpointer cr_device_host_alloc (
    CrDevice *device, gsize size, CUdeviceptr *device_ptr, GError **error);
void cr_device_host_free (CrDevice *device, gpointer ptr);
/* Pins and maps ordinary host memory until unregistered. Costly (about
 * 20 GB/s of pinning), so worth it only for memory that is used again. */
gboolean cr_device_host_register (CrDevice *device, gpointer ptr, gsize size,
    CUdeviceptr *device_ptr, GError **error);
void cr_device_host_unregister (CrDevice *device, gpointer ptr);

/* Compiles @program for the device (through the disk cache) and loads it.
 * On a compile error, *@log receives NVRTC's log. The program must outlive
 * the reducer. */
CrReducer *cr_reducer_new (
    CrDevice *device, const CrProgram *program, gchar **log, GError **error);
void cr_reducer_free (CrReducer *reducer);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CrReducer, cr_reducer_free)

const CrProgram *cr_reducer_program (const CrReducer *reducer);
const CrCompiled *cr_reducer_compiled (const CrReducer *reducer);
/* "32 registers, 0 bytes spilled, 1056 blocks": what the compiler and the
 * occupancy calculator made of the kernel. */
gchar *cr_reducer_describe (const CrReducer *reducer);

/* Host data as rows: @n_rows rows of @row_bytes, @stride bytes apart (only
 * the row_bytes of each are reduced). Contiguous data is one row. */
typedef struct {
  const guint8 *data;
  gsize row_bytes;
  gsize n_rows;
  gsize stride;
  /* Where the GPU reads data in place (pinned, mapped memory), or 0 for
   * memory that must be copied. */
  CUdeviceptr device;
} CrHostRegion;

/* Results per reduction: 1 (the default) reduces all elements to one
 * result; C > 1 reads the input as rows of C interleaved channels and gives
 * C results (program->out.size bytes each, channel after channel). The
 * element index a monoid sees is then the row. Only between jobs. */
gboolean cr_reducer_set_channels (
    CrReducer *reducer, guint channels, GError **error);
guint cr_reducer_channels (const CrReducer *reducer);

/* A reduction submitted on the device's stream whose result comes later. */
typedef struct _CrJob CrJob;

/* A reduction that continues another (an interval across buffers). */
typedef struct {
  /* Combine with the state the previous submission left... */
  gboolean carry;
  /* ...which covered this many rows (elements per channel): the index of
   * this region's first row, and part of the count. */
  guint64 rows_before;
  /* Only advance the state; the job's result is not produced. */
  gboolean discard_result;
} CrSubmitOptions;

/* Queues the reduction of @region with context @ctx and returns without
 * waiting for the GPU. The host data must stay valid and unchanged until
 * the job is finished. Pageable data is copied before this returns.
 * @options NULL: one reduction of the region alone. */
CrJob *cr_reducer_submit (CrReducer *reducer, const CrHostRegion *region,
    const guint8 *ctx, const CrSubmitOptions *options, GError **error);
/* Waits for the job and writes its result (program->out.size bytes per
 * channel) to @out and its count of elements (all channels, rows before
 * included) to @count. */
gboolean cr_job_finish (
    CrJob *job, guint8 *out, guint64 *count, GError **error);
/* Before the reducer is freed, and only after finishing (or when the stream
 * is known to be idle). */
void cr_job_free (CrJob *job);

/* Submits and finishes one job: blocks until the result is on the host. */
gboolean cr_reducer_reduce_host (CrReducer *reducer, const CrHostRegion *region,
    const guint8 *ctx, guint8 *out, guint64 *count, GError **error);

/* The same for @n elements (all channels) already in device memory
 * (aligned to their size);
 * asynchronous on the device's stream when @out is NULL (for benchmarks: the
 * result stays on the device). */
gboolean cr_reducer_reduce_device (CrReducer *reducer, CUdeviceptr data,
    guint64 n, const guint8 *ctx, guint8 *out, GError **error);

/* Bytes of input staged on the device per launch; the default, or
 * GST_CUDAREDUCE_CHUNK_BYTES for tests that need chunk boundaries. */
gsize cr_reducer_chunk_bytes (void);

G_END_DECLS
