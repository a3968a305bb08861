/* cr-job.h: a reduction submitted on a device's stream (cr_reducer_submit,
 * cr-batch.h), waited for and read here. */
#pragma once

#include "cr-reducer.h"

G_BEGIN_DECLS

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

G_END_DECLS
