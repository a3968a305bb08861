/* gstcudareduce-batches.c: submitting reductions, and batches of small
 * ones. */
#include "gstcudareduce-batches.h"

#include "cr-batch.h"
#include "cr-reducer-pairs.h"
#include "gstcudareduce-region-results.h"
#include "gstcudareduce-regions.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_reduce_debug);
#define GST_CAT_DEFAULT gst_cuda_reduce_debug

void
gst_cuda_reduce_batches_init (GstCudaReduceBatches *b, GstElement *element)
{
  b->element = element;
  g_mutex_init (&b->lock);
  g_mutex_init (&b->launch_lock);
  b->reducer = NULL;
  b->pendings = g_ptr_array_new ();
}

void
gst_cuda_reduce_batches_clear (GstCudaReduceBatches *b)
{
  g_ptr_array_unref (b->pendings);
  g_mutex_clear (&b->lock);
  g_mutex_clear (&b->launch_lock);
}

/* Hands @job, launched (or NULL: not, for @launch_error, taken), to the
 * reductions of @pendings waiting for it. Errors are posted by those who
 * called the batches, once no lock of the element's is held: a bus sync
 * handler may stop the pipeline from the posting thread. */
static gboolean
hand_out_job (GstCudaReduceBatches *b, GPtrArray *pendings, CrJob *job,
    GError *launch_error, GError **error)
{
  for (guint k = 0; k < pendings->len; k++) {
    GstCudaReducePending *p = g_ptr_array_index (pendings, k);
    for (guint j = 0; j < p->reductions->len; j++) {
      GstCudaReduceReduction *r =
          &g_array_index (p->reductions, GstCudaReduceReduction, j);
      if (r->job == NULL && job)
        r->job = cr_job_ref (job);
    }
    /* After the jobs: the results thread reads them once this is clear. */
    g_atomic_int_set (&p->gathered, FALSE);
  }
  if (job == NULL) {
    g_propagate_error (error, launch_error);
    return FALSE;
  }
  return TRUE;
}

/* Seals the open batch, under lock, and launches it, which lets go of
 * lock during the launch when @unlock (the lock is not held on return
 * then). */
static gboolean
launch_full (GstCudaReduceBatches *b, gboolean unlock, GError **error)
{
  GError *launch_error = NULL;
  CrReducer *reducer = g_steal_pointer (&b->reducer);

  if (reducer == NULL) {
    if (unlock)
      g_mutex_unlock (&b->lock);
    return TRUE;
  }
  GST_LOG_OBJECT (b->element, "launching a batch of %u reductions",
      cr_reducer_n_gathered (reducer));
  CrJob *job = cr_reducer_seal_gathered (reducer);
  g_autoptr (GPtrArray) pendings = g_steal_pointer (&b->pendings);
  b->pendings = g_ptr_array_new ();
  g_mutex_lock (&b->launch_lock);
  if (unlock)
    g_mutex_unlock (&b->lock);
  if (!cr_job_launch (job, &launch_error))
    g_clear_pointer (&job, cr_job_unref);
  g_mutex_unlock (&b->launch_lock);
  gboolean ok = hand_out_job (b, pendings, job, launch_error, error);
  if (job)
    cr_job_unref (job);
  return ok;
}

/* Under lock. */
static void
drop_locked (GstCudaReduceBatches *b)
{
  if (b->reducer)
    cr_reducer_drop_gathered (b->reducer);
  b->reducer = NULL;
  for (guint k = 0; k < b->pendings->len; k++)
    g_atomic_int_set (
        &((GstCudaReducePending *)g_ptr_array_index (b->pendings, k))->gathered,
        FALSE);
  g_ptr_array_set_size (b->pendings, 0);
}

/* What reducing part @k of @slice of a buffer continues. Video windows
 * count frames: a frame's parts on one reducer continue each other, and
 * each reducer's rows before are its own. */
static CrSubmitOptions
part_options (const GstCudaReducePlan *plan, guint k,
    const GstCudaReduceSlice *slice, gboolean has_data)
{
  const GstCudaReducePart *part = &plan->parts[k];
  CrSubmitOptions options = slice->options;

  if (!plan->counts_frames)
    return options;
  options.rows_before = options.window_base = 0;
  for (guint j = 0; j < plan->n_parts; j++)
    if (plan->parts[j].reducer == part->reducer) {
      options.rows_before += slice->options.rows_before * plan->parts[j].rows;
      options.window_base += slice->options.window_base * plan->parts[j].rows;
    }
  for (guint j = 0; has_data && j < k; j++)
    if (plan->parts[j].reducer == part->reducer) {
      options.rows_before += plan->parts[j].rows;
      options.carry = TRUE;
    }
  options.discard_result |= !part->keeps;
  return options;
}

/* Submits one reduction (of @pairs where not NULL, else of @region), or
 * gathers it for a batch. Under lock. Sets *@launches when it started a
 * launch (or a batch). */
static gboolean
submit_one (GstCudaReduceBatches *b, CrReducer *reducer,
    GstCudaReducePending *p, const CrRegion *region, const CrPairs *pairs,
    const guint8 *ctx, const CrSubmitOptions *options,
    GstCudaReduceReduction *r, gboolean *launches, GError **error)
{
  const gboolean gather =
      pairs == NULL && cr_reducer_can_gather (reducer, region);

  /* One batch open at a time, launched before anything that cannot join
   * it, so that launches keep the order of the stream (the state an
   * interval carries passes through them in that order). */
  if (b->reducer && (!gather || b->reducer != reducer)
      && !launch_full (b, FALSE, error))
    return FALSE;
  if (!gather) {
    g_mutex_lock (&b->launch_lock);
    r->job = pairs
        ? cr_reducer_submit_pairs (reducer, pairs, ctx, options, error)
        : cr_reducer_submit (reducer, region, ctx, options, error);
    g_mutex_unlock (&b->launch_lock);
    if (r->job == NULL)
      return FALSE;
    *launches = TRUE;
  } else {
    GError *gather_error = NULL;
    gboolean gathered = cr_reducer_gather (
        reducer, region, ctx, options, &r->result, &gather_error);
    /* Full, or of another context: launch it and start the next. */
    if (!gathered && gather_error == NULL) {
      if (!launch_full (b, FALSE, error))
        return FALSE;
      gathered = cr_reducer_gather (
          reducer, region, ctx, options, &r->result, &gather_error);
    }
    if (gather_error) {
      g_propagate_error (error, gather_error);
      return FALSE;
    }
    if (gathered) {
      if (b->reducer == NULL)
        *launches = TRUE;
      b->reducer = reducer;
      if (!p->gathered) {
        g_atomic_int_set (&p->gathered, TRUE);
        g_ptr_array_add (b->pendings, p);
      }
    }
  }
  g_array_append_val (p->reductions, *r);
  return TRUE;
}

/* Whether part @k + 1 of a whole frame continues part @k in memory: the
 * same reducer and rows, and its plane starts where part k's ends (NV12's
 * chroma after its luma, I420's V after its U, where the allocator put
 * them so). The two are then one reduction, one launch. */
static gboolean
continues_in_memory (
    const GstCudaReducePlan *plan, const CrRegion *regions, guint k)
{
  const GstCudaReducePart *a = &plan->parts[k], *b = &plan->parts[k + 1];
  const CrRegion *ra = &regions[k], *rb = &regions[k + 1];
  const gsize span = ra->stride * ra->n_rows;

  if (a->reducer != b->reducer || a->channels != b->channels
      || ra->stride != rb->stride || ra->row_bytes != rb->row_bytes
      || (ra->device == 0) != (rb->device == 0))
    return FALSE;
  return ra->device ? ra->device + span == rb->device
                    : ra->data + span == rb->data;
}

/* @region (part 0's, of @slice) and the pair's second component's in
 * @regions, as @plan reads their pairs. */
static CrPairs
pairs_of (const GstCudaReducePlan *plan, const CrRegion *region,
    const CrRegion *regions, const GstCudaReduceSlice *slice)
{
  CrPairs pairs = {
    .x = *region,
    .y = *region,
    .x_channels = plan->parts[0].channels,
    .x_channel = plan->pair.x_channel,
    .y_channels = plan->pair.y_channels,
    .y_channel = plan->pair.y_channel,
  };
  /* Video: another plane, maybe. Audio and tensors are sliced in one
   * region, which holds both. */
  if (regions && slice->whole)
    pairs.y = regions[plan->n_parts];
  return pairs;
}

/* @p's frame over its regions (@planes NULL: no frame, only the end of an
 * interval): a launch a part (or for a reducer's consecutive parts), over
 * all the regions, each region's state carried from plane to plane of a
 * reducer and from frame to frame of an interval. The launches' reduction
 * is @with. Under lock. */
static gboolean
submit_regions (GstCudaReduceBatches *b, CrReducer *const *reducers,
    GstCudaReducePending *p, const CrRegion *planes,
    const GstCudaReduceSlice *slice, const GstCudaReduceReduction *with,
    const guint8 *ctx, gboolean *launches, GError **error)
{
  const GstCudaReducePlan *plan = p->plan;
  const CrSubmitOptions *o = &slice->options;
  const guint n = p->regions->len;
  const gsize stride = MAX (n, 1);
  g_autofree CrRect *rects = g_new0 (CrRect, stride * plan->n_parts);
  /* Each region's rows in a frame, by reducer; each part's rectangles get
   * the rows of the reducer's parts before in the frame. */
  g_autofree guint64 *frame_rows = g_new0 (guint64, stride * plan->n_reducers);
  gboolean started[GST_VIDEO_MAX_PLANES] = { FALSE };
  const CrRegion none = { 0 };

  for (guint k = 0; k < plan->n_parts; k++) {
    const GstCudaReducePart *part = &plan->parts[k];
    const CrProgram *program = cr_reducer_program (reducers[part->reducer]);
    gst_cuda_reduce_regions_rects (p->regions, &p->region_info, part->plane,
        cr_type_size (program->in) * part->channels,
        frame_rows + part->reducer * stride, rects + k * stride);
  }
  /* Launches keep the stream's order. */
  if (b->reducer && !launch_full (b, FALSE, error))
    return FALSE;
  for (guint k = 0; k < plan->n_parts;) {
    const GstCudaReducePart *part = &plan->parts[k];
    const guint64 *rows = frame_rows + part->reducer * stride;
    CrRect *part_rects = rects + k * stride;
    /* The frames of the hop (or window) before this one, and this one. */
    const guint64 hop_frames = o->rows_before - o->window_base + !!planes;
    /* The parts that follow of the same reducer, up to the one that keeps
     * its results, are read in the same launch (a frame's planes without
     * per-channel), where the monoid only folds: counts in bins are
     * launched a plane at a time. */
    guint group = 1;
    if (planes && !plan->pair.names
        && cr_reducer_program (reducers[part->reducer])->bins == 0)
      while (k + group < plan->n_parts && group < CR_REGION_PLANES_MAX
          && !plan->parts[k + group - 1].keeps
          && plan->parts[k + group].reducer == part->reducer)
        group++;
    const guint last = k + group - 1;

    if (planes == NULL && !part->keeps) {
      k++;
      continue;
    }
    for (guint g = 0; g < group; g++)
      for (guint j = 0; j < n; j++) {
        CrRect *rect = &part_rects[g * stride + j];
        if (planes == NULL)
          *rect = (CrRect){ 0 };
        rect->rows_before += o->rows_before * rows[j];
        rect->count = hop_frames * rows[j];
      }
    const CrRectsOptions options = {
      .carry = o->carry || started[part->reducer],
      .emit = !o->discard_result && plan->parts[last].keeps,
      .ring_hops = slice->window_size > 1 ? slice->window_size : 0,
      .hop = o->hop,
      .window_hops = o->window_hops,
    };
    GstCudaReduceReduction r = *with;
    r.part = last;
    r.keeps = options.emit;
    r.emit = slice->emit && last == plan->n_parts - 1;
    r.result = 0;
    g_mutex_lock (&b->launch_lock);
    if (plan->pair.names) {
      const CrPairs pairs =
          pairs_of (plan, planes ? &planes[k] : &none, planes, slice);
      r.job = cr_reducer_submit_pair_rects (
          reducers[part->reducer], &pairs, part_rects, n, &options, ctx, error);
    } else {
      r.job = cr_reducer_submit_rects_planes (reducers[part->reducer],
          planes ? &planes[k] : &none, group, part_rects, n, &options, ctx,
          error);
    }
    g_mutex_unlock (&b->launch_lock);
    if (r.job == NULL)
      return FALSE;
    started[part->reducer] = planes != NULL;
    *launches = TRUE;
    g_array_append_val (p->reductions, r);
    k += group;
  }
  return TRUE;
}

/* Submits each part of @slice. Under lock. */
static gboolean
submit_slice (GstCudaReduceBatches *b, CrReducer *const *reducers,
    GstCudaReducePending *p, const CrRegion *regions,
    const GstCudaReduceSlice *slice, const guint8 *ctx,
    const GstSegment *segment, gboolean *launches, GError **error)
{
  const GstCudaReducePlan *plan = p->plan;
  GstCudaReduceReduction r = {
    .timestamp = slice->timestamp,
    .duration = slice->duration,
    .window_hops = slice->options.window_hops,
    .window_size = slice->window_size,
  };
  if (slice->emit) {
    r.stream_time =
        gst_segment_to_stream_time (segment, GST_FORMAT_TIME, slice->timestamp);
    r.running_time = gst_segment_to_running_time (
        segment, GST_FORMAT_TIME, slice->timestamp);
  }
  if (p->regions)
    return submit_regions (
        b, reducers, p, regions, slice, &r, ctx, launches, error);
  for (guint k = 0; k < plan->n_parts; k++) {
    const GstCudaReducePart *part = &plan->parts[k];
    CrRegion region = { .n_rows = 1 };
    /* Without data (an interval's end) only the states are read. */
    if (regions == NULL && !part->keeps)
      continue;
    if (regions)
      region = regions[k];
    if (regions && !slice->whole) {
      region.data += slice->offset;
      region.row_bytes = region.stride = slice->size;
      if (region.device)
        region.device += slice->offset;
    }
    CrSubmitOptions options = part_options (plan, k, slice, regions != NULL);
    /* Planes one after another: one region of all their rows, which
     * starts where the first does and ends a result where the last does. */
    guint last = k;
    while (regions && slice->whole && last + 1 < plan->n_parts
        && continues_in_memory (plan, regions, last)) {
      last++;
      region.n_rows += regions[last].n_rows;
    }
    if (last != k)
      options.discard_result =
          part_options (plan, last, slice, TRUE).discard_result;
    k = last;
    r.part = k;
    r.keeps = !options.discard_result;
    r.emit = slice->emit && k == plan->n_parts - 1;
    r.job = NULL;
    r.result = 0;
    /* Only a pair reads a second region: regions[n_parts] is past the
     * planes of a format with four. */
    CrPairs pairs;
    const CrPairs *pair_regions = NULL;
    if (plan->pair.names) {
      pairs = pairs_of (plan, &region, regions, slice);
      pair_regions = &pairs;
    }
    if (!submit_one (b, reducers[part->reducer], p, &region, pair_regions, ctx,
            &options, &r, launches, error))
      return FALSE;
  }
  return TRUE;
}

gboolean
gst_cuda_reduce_batches_submit (GstCudaReduceBatches *b,
    CrReducer *const *reducers, GstCudaReducePending *p,
    const CrRegion *regions, GArray *slices, const guint8 *ctx,
    const GstSegment *segment, guint *cost, GError **error)
{
  gboolean ok = TRUE, launches = FALSE;

  g_mutex_lock (&b->lock);
  for (guint k = 0; ok && k < slices->len; k++)
    ok = submit_slice (b, reducers, p, regions,
        &g_array_index (slices, GstCudaReduceSlice, k), ctx, segment, &launches,
        error);
  /* Its gathered reductions read its memory: never launch them. */
  if (!ok && p->gathered)
    drop_locked (b);
  g_mutex_unlock (&b->lock);
  *cost = launches ? 1 : 0;
  return ok;
}

gboolean
gst_cuda_reduce_batches_would_join (
    GstCudaReduceBatches *b, const CrReducer *reducer, gsize size)
{
  g_mutex_lock (&b->lock);
  gboolean joins = b->reducer && b->reducer == reducer
      && cr_reducer_n_gathered (b->reducer) < CR_BATCH_MAX
      && size <= CR_GATHER_MAX_BYTES;
  g_mutex_unlock (&b->lock);
  return joins;
}

gboolean
gst_cuda_reduce_batches_launch (GstCudaReduceBatches *b, GError **error)
{
  g_mutex_lock (&b->lock);
  gboolean ok = launch_full (b, FALSE, error);
  g_mutex_unlock (&b->lock);
  return ok;
}

/* The results thread reaches a batch not launched yet only once everything
 * before it has completed: the GPU is idle, and the batch holds what
 * arrived meanwhile. Launching it any earlier would make small batches,
 * and their launches cost the CPU more than the GPU saves. */
GstFlowReturn
gst_cuda_reduce_batches_complete (GstCudaReduceBatches *b,
    GstCudaReducePending *p, gboolean may_wait,
    const GstCudaReduceOutputs *outputs, GError **error)
{
  if (g_atomic_int_get (&p->gathered)) {
    if (!may_wait)
      return GST_CUDA_REDUCE_QUEUE_WOULD_WAIT;
    /* Launched while the streaming thread gathers the next batch. */
    g_mutex_lock (&b->lock);
    if (!p->gathered)
      g_mutex_unlock (&b->lock);
    else if (!launch_full (b, TRUE, error))
      return GST_FLOW_ERROR;
  }
  for (guint k = 0; !may_wait && k < p->reductions->len; k++) {
    CrJob *job = g_array_index (p->reductions, GstCudaReduceReduction, k).job;
    if (job && !cr_job_is_finished (job))
      return GST_CUDA_REDUCE_QUEUE_WOULD_WAIT;
  }
  return p->regions
      ? gst_cuda_reduce_region_results_complete (p, outputs, error)
      : gst_cuda_reduce_pending_complete (p, outputs, error);
}

void
gst_cuda_reduce_batches_drop (GstCudaReduceBatches *b)
{
  g_mutex_lock (&b->lock);
  drop_locked (b);
  g_mutex_unlock (&b->lock);
}
