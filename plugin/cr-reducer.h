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
/* A device on @context, a context someone else made (GStreamer's CUDA
 * context, whose memory only its own context may read): the device makes
 * its stream there, never destroys the context, and calls @release
 * (@owner) when it goes (or at once, on failure). */
CrDevice *cr_device_open_shared (
    CUcontext context, GDestroyNotify release, gpointer owner, GError **error);
CrDevice *cr_device_ref (CrDevice *device);
void cr_device_unref (CrDevice *device);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CrDevice, cr_device_unref)

gint cr_device_ordinal (const CrDevice *device);
/* How long the thread that submits waits for earlier GPU work (a full
 * staging ring, a change of buffers), in microseconds, before it fails
 * with CR_ERROR_GPU_TIMEOUT; 0 (the default) waits for ever. */
void cr_device_set_wait_timeout (CrDevice *device, gint64 timeout_us);
/* Compute capability as major * 10 + minor. */
gint cr_device_arch (const CrDevice *device);
const gchar *cr_device_name (const CrDevice *device);
/* Makes the device's context current on this thread until pop. */
gboolean cr_device_push (CrDevice *device, GError **error);
void cr_device_pop (CrDevice *device);
CUstream cr_device_stream (const CrDevice *device);
CUcontext cr_device_context (const CrDevice *device);

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

/* Data as rows: @n_rows rows of @row_bytes, @stride bytes apart (only
 * the row_bytes of each are reduced). Contiguous data is one row. */
typedef struct {
  const guint8 *data; /* on the host; NULL for device memory */
  gsize row_bytes;
  gsize n_rows;
  gsize stride;
  /* Where the GPU reads data in place (pinned, mapped memory, or device
   * memory of the device's context), or 0 for memory that must be copied.
   * Rows with padding between them are packed on the device first. */
  CUdeviceptr device;
} CrHostRegion;

/* The most channels a reduction has results for: the per-channel kernel
 * puts tiles of up to 32 channels on its grid's y dimension, which CUDA
 * bounds at 65535 (cr-reducer.c asserts that this is their product). Each
 * channel costs a result slot per block and per batched reduction on the
 * GPU and a value in every result on the host, so the element refuses
 * input of more channels before it allocates any of that. */
#define CR_CHANNELS_MAX (65535u * 32u)

/* Results per reduction: 1 (the default) reduces all elements to one
 * result; C > 1 reads the input as rows of C interleaved channels and gives
 * C results (program->out.size bytes each, channel after channel). The
 * element index a monoid sees is then the row. At most CR_CHANNELS_MAX.
 * Only between jobs. */
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
/* Waits for the job and writes its (first) result (program->out.size
 * bytes per channel) to @out and its count of elements (all channels, rows
 * before included) to @count. */
gboolean cr_job_finish (
    CrJob *job, guint8 *out, guint64 *count, GError **error);
/* Waits for the job; may be called again (it returns at once). */
gboolean cr_job_wait (CrJob *job, GError **error);
/* Whether waiting for the job would return at once. */
gboolean cr_job_is_finished (CrJob *job);
/* Results: 1 for a job from cr_reducer_submit(); a batch's in the order
 * of the reductions gathered that keep theirs. */
guint cr_job_n_results (const CrJob *job);
/* Result @k of a job waited for, as cr_job_finish() writes it. */
void cr_job_read (const CrJob *job, guint k, guint8 *out, guint64 *count);
/* Jobs are shared by the buffers of a batch. The last reference goes
 * before the reducer is freed, and only after waiting (or when the stream
 * is known to be idle). */
CrJob *cr_job_ref (CrJob *job);
void cr_job_unref (CrJob *job);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CrJob, cr_job_unref)

/* Batches. A launch costs the host several microseconds and the GPU a few
 * more, which is more than a small buffer takes to reduce, so reductions
 * of small buffers that wait while the GPU is busy are gathered and
 * launched together: one kernel, a result per reduction that keeps one,
 * in one job. The state a reduction carries (CrSubmitOptions) passes from
 * one to the next within a batch and across launches of either kind, so
 * gathered and submitted reductions mix in any order. */

/* Larger reductions launch alone: one block reads a segment, and over a
 * few tens of kilobytes a launch of many blocks is the faster. */
#define CR_GATHER_MAX_BYTES (64u << 10)

/* Whether @region may be gathered: small (CR_GATHER_MAX_BYTES at most),
 * contiguous, and of at most CR_BLOCK_THREADS channels. */
gboolean cr_reducer_can_gather (
    const CrReducer *reducer, const CrHostRegion *region);
/* Gathers the reduction of @region with @options (may be NULL) and context
 * @ctx for the next batch. Pageable data is copied now; data the GPU reads
 * in place (region->device) must stay valid until the batch's job is
 * finished. *@result receives the index of its result in the batch, or
 * G_MAXUINT when options->discard_result. Returns FALSE without an error
 * when the batch cannot take it (full, or another context): launch the
 * batch, then gather again. */
gboolean cr_reducer_gather (CrReducer *reducer, const CrHostRegion *region,
    const guint8 *ctx, const CrSubmitOptions *options, guint *result,
    GError **error);
/* Reductions gathered and not launched yet. */
guint cr_reducer_n_gathered (const CrReducer *reducer);
/* Launches what is gathered (at least one reduction) as one job. */
CrJob *cr_reducer_launch_gathered (CrReducer *reducer, GError **error);
/* The same in two steps, so that the next batch can gather while this one
 * launches (a launch takes microseconds): takes what is gathered as a job
 * not launched yet, then launches it. Launches keep the order of their
 * seals and submissions only as the caller orders them, and nobody may
 * wait for a job before its launch. A job that failed to launch is only
 * to be unreffed. */
CrJob *cr_reducer_seal_gathered (CrReducer *reducer);
gboolean cr_job_launch (CrJob *job, GError **error);
/* Forgets what is gathered (a flush). */
void cr_reducer_drop_gathered (CrReducer *reducer);

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
