/* cr-batch.h: gathering small reductions and launching them together. */
#pragma once

#include "cr-job.h"

G_BEGIN_DECLS

/* Batches. A launch costs the host several microseconds and the GPU a few
 * more, which is more than a small buffer takes to reduce, so reductions
 * of small buffers (and of frames in GPU memory, which the GPU reads in
 * about as long as the host takes to launch) that wait while the GPU is
 * busy are gathered and launched together: one kernel, a result per reduction that keeps one,
 * in one job. The state a reduction carries (CrSubmitOptions) passes from
 * one to the next within a batch and across launches of either kind, so
 * gathered and submitted reductions mix in any order. */

/* Larger reductions launch alone: one block reads a segment, and over a
 * few tens of kilobytes a launch of many blocks is the faster. */
#define CR_GATHER_MAX_BYTES (64u << 10)

/* Whether @region may be gathered: small (CR_GATHER_MAX_BYTES at most),
 * contiguous, and of at most CR_BLOCK_THREADS channels; or of any size in
 * GPU memory (data NULL), of one channel in lines of whole 16-byte loads,
 * for a program with the pitched kernels (a frame: a batch of up to
 * CR_FRAMES_MAX frames is one launch, but never mixes with small ones). */
gboolean cr_reducer_can_gather (
    const CrReducer *reducer, const CrRegion *region);
/* Gathers the reduction of @region with @options (may be NULL) and context
 * @ctx for the next batch. Pageable data is copied now; data the GPU reads
 * in place (region->device) must stay valid until the batch's job is
 * finished. *@result receives the index of its result in the batch, or
 * G_MAXUINT when options->discard_result. Returns FALSE without an error
 * when the batch cannot take it (full, or another context): launch the
 * batch, then gather again. */
gboolean cr_reducer_gather (CrReducer *reducer, const CrRegion *region,
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

G_END_DECLS
