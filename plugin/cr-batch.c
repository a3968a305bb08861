/* cr-batch.c: gathering small reductions and launching them together. */
#include "cr-batch.h"

#include "cr-reducer-private.h"

#include "cr-error.h"

#include <string.h>

/* Pinned memory that one batch's pageable input is copied into. */
#define ARENA_INPUT_BYTES (1u << 20)

/* Whether @region is a small one the batch kernel reads a block each. */
static gboolean
gathers_small (const CrReducer *r, const CrRegion *region)
{
  const gsize bytes = region->row_bytes * region->n_rows;
  return bytes <= CR_GATHER_MAX_BYTES
      && (region->n_rows <= 1 || region->stride == region->row_bytes)
      && r->channels <= CR_BLOCK_THREADS;
}

/* Whether @region is a frame in GPU memory that cr_reduce_frames reads in
 * place: one channel, in lines of whole loads (or packed, as one line)
 * that start on a load's boundary, fewer than CR_PITCHED_LOADS_LIMIT
 * loads. Pinned host memory, which the GPU also reads in place, keeps its
 * launch of its own: read across the bus, its large buffers gain nothing
 * from sharing one. */
static gboolean
gathers_frame (const CrReducer *r, const CrRegion *region)
{
  const gboolean packed =
      region->n_rows <= 1 || region->stride == region->row_bytes;
  const gsize bytes = region->row_bytes * region->n_rows;
  return r->frames_function != NULL && r->channels == 1 && region->data == NULL
      && region->device != 0 && region->device % CR_LOAD_BYTES == 0 && bytes > 0
      && (packed ? bytes % CR_LOAD_BYTES == 0
                 : region->stride % CR_LOAD_BYTES == 0
                  && region->row_bytes % CR_LOAD_BYTES == 0)
      && bytes / CR_LOAD_BYTES < CR_PITCHED_LOADS_LIMIT;
}

gboolean
cr_reducer_can_gather (const CrReducer *r, const CrRegion *region)
{
  /* The histogram kernel counts one reduction a launch. Without bins, a
   * window's ring has states (cr_monoid_has_accumulator), which the batch
   * kernels keep. */
  return r->batch_function != NULL && r->program->bins == 0
      && (gathers_small (r, region) || gathers_frame (r, region));
}

guint
cr_reducer_n_gathered (const CrReducer *r)
{
  return r->gather.params.n + r->gather.frames.n;
}

/* The reducer's context is current. */
static CrArena *
take_arena (CrReducer *r, GError **error)
{
  const CrDriver *cu = r->device->cu;
  CrArena *a = NULL;

  g_mutex_lock (&r->lock);
  if (r->free_arenas->len > 0)
    a = g_ptr_array_steal_index_fast (r->free_arenas, r->free_arenas->len - 1);
  g_mutex_unlock (&r->lock);
  if (a)
    return a;

  a = g_new0 (CrArena, 1);
  a->input_bytes = ARENA_INPUT_BYTES;
  a->result_bytes = r->program->out.size * r->channels;
  a->capacity = CR_BATCH_MAX;
  /* Input, results, and the window of the segments that end hops. */
  CUresult res = cu->MemHostAlloc ((void **)&a->host,
      a->input_bytes + CR_BATCH_WINDOW_OFFSET (a->result_bytes)
          + sizeof (CrBatchWindow),
      CU_MEMHOSTALLOC_DEVICEMAP);
  if (res == CUDA_SUCCESS)
    res = cu->MemHostGetDevicePointer (&a->device, a->host, 0);
  if (res != CUDA_SUCCESS) {
    if (a->host)
      cu->MemFreeHost (a->host);
    g_free (a);
    cr_cuda_fail (error, res, "Allocating pinned memory for a batch");
    return NULL;
  }
  return a;
}

void
cr_reducer_drop_gathered (CrReducer *r)
{
  cr_reducer_forget_gathered (r);
}

/* Reduction @index of the batch, whose rows end at @rows_end, ends a hop
 * of the reducer's sliding window: the kernel keeps its state in the ring
 * and combines the window's into its result, over the rows returned (per
 * channel) and written where the kernel reads them. Adds the hop's flags
 * to *@flags. */
static guint64
gather_hop_end (CrReducer *r, const CrSubmitOptions *options, guint index,
    guint64 rows_end, cr_u32 *flags)
{
  CrArena *a = r->gather.arena;
  CrBatchWindow *window = (CrBatchWindow *)(a->host + a->input_bytes
      + CR_BATCH_WINDOW_OFFSET (a->result_bytes));
  const CrHopEnd end = {
    .hop = options->hop,
    .window_hops = options->window_hops,
    .rows = rows_end - options->window_base,
  };
  guint slot, span;

  window->ring = r->window.states;
  window->ring_hops = r->window.hops;
  window->rows[index] =
      cr_window_ring_note_rows (&r->window, &end, &slot, &span);
  *flags |= CR_SEGMENT_HOP_FLAGS (slot, span);
  return window->rows[index];
}

/* The flags and result of reduction @index of the batch, whose rows end
 * at @rows_end (counting options->rows_before), with its count of
 * elements noted where it keeps a result. */
static void
gather_result (CrReducer *r, const CrSubmitOptions *options, guint index,
    guint64 rows_end, cr_u32 *flags, cr_u32 *seg_result, guint *result)
{
  *flags = 0;
  if (options && options->carry)
    *flags |= CR_SEGMENT_CARRY;
  if (options && options->discard_result) {
    *seg_result = 0;
    *result = G_MAXUINT;
    return;
  }
  *flags |= CR_SEGMENT_EMIT;
  *seg_result = r->gather.n_results;
  guint64 rows = rows_end;
  if (cr_reducer_ends_window (r, options))
    rows = gather_hop_end (r, options, index, rows_end, flags);
  r->gather.counts[r->gather.n_results] = rows * r->channels;
  *result = r->gather.n_results++;
}

/* Takes an arena and notes the context for a batch's first reduction. */
static gboolean
open_batch (CrReducer *r, const guint8 *ctx, GError **error)
{
  if (r->gather.arena == NULL) {
    if (!cr_device_push (r->device, error))
      return FALSE;
    r->gather.arena = take_arena (r, error);
    cr_device_pop (r->device);
    if (r->gather.arena == NULL)
      return FALSE;
  }
  if (cr_reducer_n_gathered (r) == 0) {
    g_free (r->gather.ctx);
    r->gather.ctx = g_memdup2 (ctx, MAX (r->program->ctx.size, 1));
  }
  return TRUE;
}

/* A frame in GPU memory for the next batch of frames (gathers_frame). */
static gboolean
gather_frame (CrReducer *r, const CrRegion *region, const guint8 *ctx,
    const CrSubmitOptions *options, guint *result, GError **error)
{
  CrFrameBatch *frames = &r->gather.frames;
  const gboolean packed =
      region->n_rows <= 1 || region->stride == region->row_bytes;
  const gsize bytes = region->row_bytes * region->n_rows;

  /* A batch of small segments, a full one, or one of another context
   * launches first. Each frame gets a block at least, and at most half
   * the resident blocks are spent so. */
  if (r->gather.params.n > 0 || frames->n == CR_FRAMES_MAX
      || (frames->n > 0 && frames->n + 1 > r->limits.single / 2))
    return FALSE;
  if (frames->n > 0 && memcmp (r->gather.ctx, ctx, r->program->ctx.size) != 0)
    return FALSE;
  if (!open_batch (r, ctx, error))
    return FALSE;

  CrFrame *f = &frames->frames[frames->n];
  f->data = region->device;
  f->n_vec = (cr_u32)(bytes / CR_LOAD_BYTES);
  f->line_vecs =
      packed ? f->n_vec : (cr_u32)(region->row_bytes / CR_LOAD_BYTES);
  f->pitch = packed ? bytes : region->stride;
  f->row_base = options ? options->rows_before : 0;
  f->first_block = f->blocks = 0;
  gather_result (r, options, frames->n,
      f->row_base + bytes / cr_type_size (r->program->in), &f->flags,
      &f->result, result);
  frames->n++;
  return TRUE;
}

/* Shares the resident blocks among the gathered frames by their loads, a
 * block each at least: at most limits.single in all, the partials the
 * reducer has room for. */
static void
place_frames (const CrReducer *r, CrFrameBatch *frames)
{
  guint64 loads = 0;
  for (guint k = 0; k < frames->n; k++)
    loads += frames->frames[k].n_vec;
  const guint spare =
      r->limits.single > frames->n ? r->limits.single - frames->n : 0;
  guint first = 0;
  for (guint k = 0; k < frames->n; k++) {
    CrFrame *f = &frames->frames[k];
    const guint own = cr_geometry_pitched (&r->limits, f->n_vec).x;
    const guint share = (guint)((guint64)spare * f->n_vec / loads);
    f->first_block = first;
    f->blocks = MAX (1, MIN (own, share));
    first += f->blocks;
  }
  frames->blocks = first;
}

gboolean
cr_reducer_gather (CrReducer *r, const CrRegion *region, const guint8 *ctx,
    const CrSubmitOptions *options, guint *result, GError **error)
{
  const gsize bytes = region->row_bytes * region->n_rows;
  const gsize row = cr_type_size (r->program->in) * r->channels;
  const gsize ctx_size = r->program->ctx.size;
  CrBatch *params = &r->gather.params;

  g_return_val_if_fail (cr_reducer_can_gather (r, region), FALSE);
  if (!gathers_small (r, region))
    return gather_frame (r, region, ctx, options, result, error);
  if (bytes % row != 0) {
    g_set_error (error, CR_ERROR, CR_ERROR_INPUT,
        "The input is %" G_GSIZE_FORMAT " bytes, not a whole number of "
        "rows of %u %s channels (%" G_GSIZE_FORMAT " bytes each)",
        bytes, r->channels, cr_type_name (r->program->in), row);
    return FALSE;
  }
  if (params->n == CR_BATCH_MAX || r->gather.frames.n > 0)
    return FALSE;
  if (params->n > 0 && memcmp (r->gather.ctx, ctx, ctx_size) != 0)
    return FALSE;
  /* Copies start on a load's boundary, so that whole vectors load. */
  const gsize offset =
      (r->gather.used + CR_LOAD_BYTES - 1) / CR_LOAD_BYTES * CR_LOAD_BYTES;
  if (!region->device && bytes > 0 && offset + bytes > ARENA_INPUT_BYTES)
    return FALSE;

  if (!open_batch (r, ctx, error))
    return FALSE;

  CrSegment *seg = &params->segments[params->n];
  if (region->device || bytes == 0) {
    seg->data = region->device;
  } else {
    memcpy (r->gather.arena->host + offset, region->data, bytes);
    seg->data = r->gather.arena->device + offset;
    r->gather.used = offset + bytes;
  }
  seg->rows = bytes / row;
  seg->row_base = options ? options->rows_before : 0;
  gather_result (r, options, params->n, seg->row_base + seg->rows, &seg->flags,
      &seg->result, result);
  /* Only chains of segments, or a result left open, need the ordered fold
   * of partials at the end of the launch. */
  if (seg->flags != CR_SEGMENT_EMIT)
    params->fold = 1;
  params->n++;
  return TRUE;
}

CrJob *
cr_reducer_seal_gathered (CrReducer *r)
{
  CrBatch *params = &r->gather.params;
  g_return_val_if_fail (cr_reducer_n_gathered (r) > 0, NULL);

  CrJob *job = g_new0 (CrJob, 1);
  job->refcount = 1;
  job->reducer = r;
  job->channels = r->channels;
  job->n_results = r->gather.n_results;
  job->counts =
      g_memdup2 (r->gather.counts, sizeof (guint64) * MAX (job->n_results, 1));
  job->arena = r->gather.arena;
  if (r->gather.frames.n > 0) {
    place_frames (r, &r->gather.frames);
    job->frames = g_memdup2 (&r->gather.frames, sizeof (CrFrameBatch));
  } else {
    params->channels = r->channels;
    job->params = g_memdup2 (params, sizeof *params);
  }
  job->ctx = g_steal_pointer (&r->gather.ctx);
  /* The arena is the job's now, launched or not. */
  r->gather.arena = NULL;
  cr_reducer_drop_gathered (r);
  return job;
}

gboolean
cr_job_launch (CrJob *job, GError **error)
{
  CrReducer *r = job->reducer;
  g_return_val_if_fail (job->params != NULL || job->frames != NULL, FALSE);

  CUdeviceptr results = job->arena->device + job->arena->input_bytes;
  const guint blocks = job->frames ? job->frames->blocks : job->params->n;
  gboolean ok = cr_device_push (r->device, error);
  if (ok && !cr_reducer_upgrade (r, error)) {
    cr_device_pop (r->device);
    ok = FALSE;
  }
  void *args[] = { job->frames ? (void *)job->frames : (void *)job->params,
    &r->partials, &r->tickets, &r->state, &results, job->ctx };
  if (ok) {
    /* The upgrade may have changed the module. */
    CUfunction function = job->frames ? r->frames_function : r->batch_function;
    CUresult res = r->device->cu->LaunchKernel (function, blocks, 1, 1,
        CR_BLOCK_THREADS, 1, 1, 0, r->device->stream, args, NULL);
    ok = res == CUDA_SUCCESS
        ? cr_reducer_take_event (r, job, error)
        : cr_cuda_fail (error, res, "Launching a batch of reductions");
    if (ok) {
      res = r->device->cu->EventRecord (job->done, r->device->stream);
      ok = res == CUDA_SUCCESS
          || cr_cuda_fail (error, res, "Recording a CUDA event");
    }
    cr_device_pop (r->device);
  }
  /* The launch copied them. */
  g_clear_pointer (&job->params, g_free);
  g_clear_pointer (&job->frames, g_free);
  g_clear_pointer (&job->ctx, g_free);
  /* Nothing reads the arena if the launch failed; a failed record leaves
   * the kernel queued, which the next synchronization reports. */
  return ok;
}

CrJob *
cr_reducer_launch_gathered (CrReducer *r, GError **error)
{
  CrJob *job = cr_reducer_seal_gathered (r);
  if (job && !cr_job_launch (job, error))
    g_clear_pointer (&job, cr_job_unref);
  return job;
}
