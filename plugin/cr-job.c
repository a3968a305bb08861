/* cr-job.c: waiting for a reduction the GPU runs, and reading its
 * results. */
#include "cr-job.h"

#include "cr-reducer-private.h"

#include <string.h>

gboolean
cr_job_wait (CrJob *job, GError **error)
{
  CrDevice *d = job->reducer->device;

  /* The buffers of a batch share its job: one wait serves them all. */
  if (g_atomic_int_get (&job->finished))
    return TRUE;
  if (!cr_device_push (d, error))
    return FALSE;
  CUresult res = d->cu->EventSynchronize (job->done);
  cr_device_pop (d);
  if (res != CUDA_SUCCESS)
    return cr_cuda_fail (error, res,
        "The reduction on the GPU (after a fault in the monoid's code, CUDA "
        "stays unusable in this process until it restarts)");
  g_atomic_int_set (&job->finished, 1);
  return TRUE;
}

gboolean
cr_job_is_finished (CrJob *job)
{
  CrDevice *d = job->reducer->device;

  if (g_atomic_int_get (&job->finished))
    return TRUE;
  if (d->cu->CtxPushCurrent (d->context) != CUDA_SUCCESS)
    return FALSE;
  /* NOT_READY while it runs; an error is for cr_job_wait to report. */
  CUresult res = d->cu->EventQuery (job->done);
  d->cu->CtxPopCurrent (NULL);
  return res != CUDA_ERROR_NOT_READY;
}

guint
cr_job_n_results (const CrJob *job)
{
  return job->n_results;
}

void
cr_job_read (const CrJob *job, guint k, guint8 *out, guint64 *count)
{
  const gsize size = job->reducer->program->out.size * job->channels;

  g_return_if_fail (k < job->n_results);
  if (job->slot) {
    cr_program_unpack (
        job->reducer->program, job->channels, job->slot->host, out);
  } else if (job->arena->regions) {
    cr_program_unpack_region (job->reducer->program, job->channels,
        job->n_results, k, job->arena->host + job->arena->input_bytes, out);
  } else {
    const CrArena *a = job->arena;
    memcpy (out, a->host + a->input_bytes + k * a->result_bytes, size);
  }
  if (count)
    *count = job->counts ? job->counts[k] : job->count;
}

gboolean
cr_job_finish (CrJob *job, guint8 *out, guint64 *count, GError **error)
{
  if (!cr_job_wait (job, error))
    return FALSE;
  cr_job_read (job, 0, out, count);
  return TRUE;
}

CrJob *
cr_job_ref (CrJob *job)
{
  g_atomic_int_inc (&job->refcount);
  return job;
}

void
cr_job_unref (CrJob *job)
{
  if (job != NULL && g_atomic_int_dec_and_test (&job->refcount))
    cr_reducer_recycle_job (job->reducer, job);
}
