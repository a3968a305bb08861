/* cr-reducer.h: running a compiled program on a GPU.
 *
 * A CrReducer is a program loaded into a CrDevice's context (cr-device.h)
 * with the buffers its launches need; it is used from one thread at a
 * time. Gathering small reductions into batches is cr-batch.h. */
#pragma once

#include "cr-compiler.h"
#include "cr-device.h"
#include "cr-program.h"

G_BEGIN_DECLS

typedef struct _CrReducer CrReducer;

/* Compiles @program for the device (through the disk cache) and loads it.
 * On a compile error, *@log receives NVRTC's log. The program must outlive
 * the reducer. */
CrReducer *cr_reducer_new (
    CrDevice *device, const CrProgram *program, gchar **log, GError **error);
void cr_reducer_free (CrReducer *reducer);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CrReducer, cr_reducer_free)

const CrProgram *cr_reducer_program (const CrReducer *reducer);
const CrCompiled *cr_reducer_compiled (const CrReducer *reducer);
/* A reducer whose first image was compiled for time (CrCompiled's fast)
 * swaps the optimized kernels in at its first launch after they are
 * compiled, on a thread of their own. This blocks until they are (at once
 * where none are coming): for tests and benchmarks. */
void cr_reducer_await_upgrade (CrReducer *reducer);
/* "32 registers, 0 bytes spilled, 1056 blocks": what the compiler and the
 * occupancy calculator made of the kernel. */
gchar *cr_reducer_describe (const CrReducer *reducer);

/* The data one reduction reads, on the host or the device, as rows:
 * @n_rows rows of @row_bytes, @stride bytes apart (only the row_bytes of
 * each are reduced). Contiguous data is one row. */
typedef struct {
  const guint8 *data; /* on the host; NULL for device memory */
  gsize row_bytes;
  gsize n_rows;
  gsize stride;
  /* Where the GPU reads data in place (pinned, mapped memory, or device
   * memory of the device's context), or 0 for memory that must be copied.
   * Rows with padding between them are packed on the device first. */
  CUdeviceptr device;
} CrRegion;

/* CR_CHANNELS_MAX (kernels/cr-abi.h) is the most channels a reduction has
 * results for: the per-channel kernel puts tiles of channels on its grid's
 * y dimension. Each channel costs a result slot per block and per batched
 * reduction on the GPU and a value in every result on the host, so the
 * element refuses input of more channels before it allocates any of
 * that. */

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
  /* With a sliding window (cr_reducer_set_window), a result ends hop
   * @hop, counted from the window's start afresh, and spans the last
   * @window_hops hops, this one's included (fewer than the window's while
   * it first fills). */
  guint window_hops;
  guint64 hop;
  /* Of rows_before, the rows of the window's earlier hops: a monoid's
   * index counts from the window's start afresh, so that a result
   * combined from several hops gives each row one index. */
  guint64 window_base;
} CrSubmitOptions;

/* Keeps the states of the last @hops hops on the device, so that a result
 * spans them (CrSubmitOptions): a sliding window of @hops intervals. 0 or
 * 1: none, each result its own hop's. The program needs
 * CR_KERNELS_WINDOW. Only between jobs; with a change of channels the
 * window starts afresh. */
gboolean cr_reducer_set_window (CrReducer *reducer, guint hops, GError **error);

/* Queues the reduction of @region with context @ctx and returns without
 * waiting for the GPU (cr-job.h waits for it and reads the result). The host data must stay valid and unchanged until
 * the job is finished. Pageable data is copied before this returns.
 * @options NULL: one reduction of the region alone. */
CrJob *cr_reducer_submit (CrReducer *reducer, const CrRegion *region,
    const guint8 *ctx, const CrSubmitOptions *options, GError **error);

/* cr_reducer_submit() for @n elements (all channels) already in device memory
 * (aligned to their size);
 * asynchronous on the device's stream when @out is NULL (for benchmarks: the
 * result stays on the device). */
gboolean cr_reducer_reduce_device (CrReducer *reducer, CUdeviceptr data,
    guint64 n, const guint8 *ctx, guint8 *out, GError **error);

/* Bytes of input staged on the device per launch; the default, or
 * GST_CUDAREDUCE_CHUNK_BYTES for tests that need chunk boundaries. */
gsize cr_reducer_chunk_bytes (void);

G_END_DECLS
