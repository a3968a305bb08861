/* cr-reducer-private.h: what cr-reducer.c, cr-reducer-setup.c and
 * cr-batch.c (above them) share. */
#pragma once

#include "cr-geometry.h"
#include "cr-reducer.h"
#include "cr-region-kernel.h"
#include "cr-staging.h"
#include "cr-upgrade.h"
#include "cr-window-ring.h"

G_BEGIN_DECLS

#define DEFAULT_CHUNK_BYTES (64u << 20)
/* Pinned memory that pageable input is copied through, per device. */
#define STAGING_RING_BYTES (32u << 20)
/* Result slots are allocated this many at a time. */
#define SLOTS_PER_SLAB 16

/* Where one job's result lands: pinned host memory the kernel writes. */
typedef struct {
  guint8 *host;
  CUdeviceptr device;
  gsize bytes;
} Slot;

/* The batch kernel's parameter and its segments, laid out as the kernel
 * reads them (kernels/cr-abi.h, which checks the layout on both sides). */
typedef struct CrSegment CrSegment;
typedef struct CrBatch CrBatch;
typedef struct CrBatchWindow CrBatchWindow;
typedef struct CrFrame CrFrame;
typedef struct CrFrameBatch CrFrameBatch;
/* Where the kernels that count bins keep the counts (kernels/cr-abi.h). */
typedef struct CrBinArgs CrBinArgs;

/* Pinned, mapped memory of one batch: small input copied in, then the
 * results. A launched batch's job holds it until freed. */
typedef struct {
  guint8 *host;
  CUdeviceptr device;
  gsize input_bytes; /* where the results start */
  gsize result_bytes; /* of one result: channels Out, as the kernel packs
                         them (so also the channels it was made for) */
  guint capacity; /* results: CR_BATCH_MAX, or a launch over regions' */
  gboolean regions; /* a launch over regions' (cr-reducer-regions.c) */
} CrArena;

struct _CrReducer {
  CrDevice *device;
  const CrProgram *program;
  CrCompiled *compiled;
  /* The optimized image on its way, while the module is a fast one's. */
  CrUpgrade *upgrade;
  CUmodule module;
  CUfunction function;
  CUfunction batch_function;
  /* One channel in lines with padding between them, read in place. */
  CUfunction pitched_function;
  /* Frames of that kind gathered into one launch (cr-batch.c). */
  CUfunction frames_function;
  CUfunction channels_function;
  /* For 2, 4 and 8 channels whose rows pack into vector loads. */
  CUfunction vec_functions[3];
  /* For a monoid with bins (kernels/histogram.cu): the counts alone, and
   * for one with an accumulator too, the kernels above that also count
   * (one channel, packed channels, pitched lines). */
  CUfunction histogram_function;
  CUfunction binned_function;
  CUfunction binned_vec_functions[3];
  CUfunction binned_pitched_function;
  CrGridLimits limits; /* of the kernels above */
  guint channels; /* results per reduction */
  gsize slot_bytes; /* one job's results: channels Out, in whole lines */
  CrGridBuffers grid; /* what partials and tickets hold */
  CUdeviceptr partials; /* CR_PARTIAL_SLOT_BYTES each */
  CUdeviceptr tickets; /* zeroed unsigned ints: one, or one per tile */
  CUdeviceptr state; /* channels Acc: carried between launches */
  CUdeviceptr result; /* channels Out, for results nobody reads */
  CUdeviceptr staging; /* padded rows the pitched kernel cannot read are
                          packed here */
  gsize staging_size;
  guint8 *host_result; /* pinned, one Out */
  /* The histogram's counters: zero between launches, and carried. */
  CUdeviceptr bin_scratch;
  CUdeviceptr bin_state;
  guint bin_copies; /* shared copies of the counters per block */
  guint bin_blocks; /* resident blocks with those */
  guint binned_blocks; /* the same for the binned kernels */
  /* A sliding window's hops (cr_reducer_set_window). */
  CrWindowRing window;
  guint window_hops; /* asked for: 0, or 2 and more */
  /* Results per region (cr-reducer-regions.c). */
  CrRegionKernel regions;

  /* Reductions gathered for the next batch (cr-batch.c); used by one
   * thread at a time, like submission. */
  struct {
    CrBatch params;
    CrFrameBatch frames; /* or frames in GPU memory, never both */
    CrArena *arena;
    gsize used; /* input bytes copied into the arena */
    guint n_results;
    guint64 counts[CR_BATCH_MAX];
    guint8 *ctx; /* the context they launch with */
  } gather;

  /* Jobs are submitted from one thread and finished from another. */
  GMutex lock;
  GPtrArray *slabs; /* pinned blocks of SLOTS_PER_SLAB slots */
  GPtrArray *free_slots; /* Slot */
  GPtrArray *all_slots;
  GPtrArray *free_events;
  GPtrArray *all_events;
  GPtrArray *free_arenas; /* CrArena of batches */
  GPtrArray *free_region_arenas; /* CrArena of launches over regions */
  GPtrArray *stale_arenas; /* of another channel count: freed at the end */
};

struct _CrJob {
  gint refcount;
  gint finished; /* waited for successfully: later waits return at once */
  CrReducer *reducer;
  CUevent done;
  guint channels;
  /* One result in a slot, or a batch's results in its arena. */
  Slot *slot;
  guint64 count;
  CrArena *arena;
  guint n_results;
  guint64 *counts;
  /* A sealed batch's kernel parameter (of segments or of frames) and
   * context, until launched. */
  CrBatch *params;
  CrFrameBatch *frames;
  guint8 *ctx;
};

/* A job of one result that covers @count elements, with a slot and an
 * event; NULL on failure. The context is current. */
CrJob *cr_reducer_new_job (CrReducer *r, guint64 count, GError **error);
/* Where a launch counts bins (kernels/cr-abi.h): into the result the
 * monoid's kernels write, carrying the counts before where @carry. */
CrBinArgs cr_reducer_bin_args (
    const CrReducer *r, gboolean carry, CUdeviceptr result);
/* Blocks for a launch that counts @values values in @slots counters,
 * @per_block a block at least, at most @most. */
guint cr_reducer_bin_blocks (
    guint64 values, guint64 slots, guint64 per_block, guint most);
/* Swaps the optimized kernels in for the fast ones (cr-upgrade.h) once
 * they are compiled, after the launches queued; every launch asks first.
 * The context is current. */
gboolean cr_reducer_upgrade (CrReducer *r, GError **error);
/* Device memory of at least @size bytes in r->staging, after any launch
 * that reads the old. The context is current. */
gboolean cr_reducer_ensure_staging (CrReducer *r, gsize size, GError **error);
/* Takes an event for @job from the reducer's pool. */
gboolean cr_reducer_take_event (CrReducer *r, CrJob *job, GError **error);
/* Gives @job's slot, arena and event back to the reducer's pools and
 * frees it (the last reference went, cr-job.c). */
void cr_reducer_recycle_job (CrReducer *r, CrJob *job);
/* Whether a submission with @options ends a hop of a sliding window: its
 * state is kept in the ring, after its own launch (cr_reducer_end_window)
 * or in its batch's (cr-batch.c). */
gboolean cr_reducer_ends_window (
    const CrReducer *reducer, const CrSubmitOptions *options);
/* After the launches of a submission with @options that ends a hop of a
 * window: keeps the hop's state in the ring and, where the result spans
 * more than this hop, combines the ring's into @result; @job's count
 * becomes the window's. Nothing for other submissions. */
gboolean cr_reducer_end_window (CrReducer *r, const CrSubmitOptions *options,
    const guint8 *ctx, CUdeviceptr result, CrJob *job, GError **error);
/* Forgets what is gathered for the next batch (cr_reducer_drop_gathered),
 * keeping its arena for the next. */
void cr_reducer_forget_gathered (CrReducer *r);

G_END_DECLS
