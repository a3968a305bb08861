/* cr-reducer.c: launches and jobs (a reducer's life, its module and
 * buffers, are in cr-reducer-setup.c). */
#include "cr-reducer-private.h"

#include "cr-error.h"
#include "cr-staging.h"

#include <string.h>

gsize
cr_reducer_chunk_bytes (void)
{
  const gchar *env = g_getenv ("GST_CUDAREDUCE_CHUNK_BYTES");
  guint64 bytes = env ? g_ascii_strtoull (env, NULL, 10) : DEFAULT_CHUNK_BYTES;
  /* Chunks start on a load's boundary so that every chunk's vector loads
   * are aligned, and hold whole elements of every type. */
  bytes = bytes / CR_LOAD_BYTES * CR_LOAD_BYTES;
  return bytes ? bytes : DEFAULT_CHUNK_BYTES;
}

/* Where a launch counts bins (kernels/cr-abi.h): into the result the
 * monoid's kernels write (CR_BINS_RESULT_OFFSET), carrying the counts
 * before where @carry. */
CrBinArgs
cr_reducer_bin_args (const CrReducer *r, gboolean carry, CUdeviceptr result)
{
  const CrBinArgs bins = {
    .scratch = r->bin_scratch,
    .carry = carry ? r->bin_state : 0,
    .state = r->bin_state,
    .result = result
        + CR_BINS_RESULT_OFFSET (r->channels, r->program->out_device.size),
    .copies = r->bin_copies,
  };
  return bins;
}

/* Blocks for a launch that counts @values values in @slots counters:
 * enough values a block that adding its counters to the device's stays a
 * small part of its work, and at most @most (those that stay resident). */
guint
cr_reducer_bin_blocks (
    guint64 values, guint64 slots, guint64 per_block, guint most)
{
  const guint64 blocks =
      MIN ((values + per_block - 1) / per_block, values / MAX (1, 4 * slots));
  return (guint)MAX (1, MIN (blocks, most));
}

/* The histogram of @lines lines of @line_bytes, @pitch bytes apart, whose
 * first row is row @row_base of the input, in one launch after the
 * monoid's, on the same stream: it counts into the result the monoid's
 * kernels write (CR_BINS_RESULT_OFFSET). */
static gboolean
launch_bins (CrReducer *r, CUdeviceptr data, guint64 line_bytes, guint64 pitch,
    guint64 lines, guint64 row_base, gboolean carry, const guint8 *ctx,
    CUdeviceptr result, GError **error)
{
  const CrProgram *p = r->program;
  const guint64 slots = (guint64)r->channels * CR_BIN_SLOTS (p->bins);
  const guint64 values = line_bytes / cr_type_size (p->in) * lines;
  const guint blocks = cr_reducer_bin_blocks (values, slots,
      (guint64)CR_BLOCK_THREADS * CR_UNROLL
          * (CR_LOAD_BYTES / cr_type_size (p->in)),
      r->bin_blocks);
  guint channels = r->channels;
  CrBinArgs bins = cr_reducer_bin_args (r, carry, result);
  void *params[] = { &data, &line_bytes, &pitch, &lines, &channels, &row_base,
    &r->tickets, &bins, (void *)ctx };
  const guint shared = (guint)(bins.copies * slots * sizeof (guint32));

  CR_CHECK (
      r->device->cu->LaunchKernel (r->histogram_function, blocks, 1, 1,
          CR_BLOCK_THREADS, 1, 1, shared, r->device->stream, params, NULL),
      "Launching the histogram");
  return TRUE;
}

/* The binned kernel @function over @values values, with @params (the
 * plain kernel's, then the CrBinArgs, then the Ctx) on the grid the plain
 * kernel would have, or fewer blocks where counters are many (bin_blocks):
 * the reduction and the counts in one pass. */
static gboolean
launch_binned (CrReducer *r, CUfunction function, CrGrid grid, guint64 values,
    void **params, GError **error)
{
  const guint64 slots = (guint64)r->channels * CR_BIN_SLOTS (r->program->bins);
  const guint blocks = MIN (grid.x,
      cr_reducer_bin_blocks (
          values, slots, CR_BLOCK_THREADS, r->binned_blocks));
  const guint shared = (guint)(r->bin_copies * slots * sizeof (guint32));
  CR_CHECK (
      r->device->cu->LaunchKernel (function, blocks, 1, 1, CR_BLOCK_THREADS, 1,
          1, shared, r->device->stream, params, NULL),
      "Launching the reduction");
  return TRUE;
}

/* The kernel that reduces and counts bins in one pass over @r's channels
 * at @data, or NULL where there is none (no bins or no accumulator, or
 * channels that no packed kernel reads). */
static CUfunction
binned_function (const CrReducer *r, CUdeviceptr data)
{
  if (r->channels == 1)
    return r->binned_function;
  const gint vec = cr_geometry_vec_kernel (&r->limits, r->channels);
  return vec >= 0 && data % CR_LOAD_BYTES == 0 ? r->binned_vec_functions[vec]
                                               : NULL;
}

static gboolean launch_monoid (CrReducer *r, CUdeviceptr data, guint64 rows,
    guint64 row_base, gboolean carry, const guint8 *ctx, CUdeviceptr result,
    GError **error);

/* One launch over @rows rows of the reducer's channels at @data, which are
 * rows row_base... of the whole input; @carry folds in the state of the
 * launches before. With one channel a row is one element. A monoid with
 * bins counts them in the same launch where a binned kernel reads these
 * channels (one, or 2, 4 or 8 packed), else in a second; one that only
 * counts has no first. */
static gboolean
launch (CrReducer *r, CUdeviceptr data, guint64 rows, guint64 row_base,
    gboolean carry, const guint8 *ctx, CUdeviceptr result, GError **error)
{
  const gsize row = cr_type_size (r->program->in) * r->channels;
  if (cr_monoid_has_accumulator (r->program->monoid)
      && !launch_monoid (r, data, rows, row_base, carry, ctx, result, error))
    return FALSE;
  if (r->program->bins == 0 || binned_function (r, data) != NULL)
    return TRUE;
  return launch_bins (
      r, data, rows * row, rows * row, 1, row_base, carry, ctx, result, error);
}

static gboolean
launch_monoid (CrReducer *r, CUdeviceptr data, guint64 rows, guint64 row_base,
    gboolean carry, const guint8 *ctx, CUdeviceptr result, GError **error)
{
  const gsize elem = cr_type_size (r->program->in);
  CUdeviceptr carry_ptr = carry ? r->state : 0;
  guint64 count = row_base + rows;

  CrBinArgs bins = r->program->bins ? cr_reducer_bin_args (r, carry, result)
                                    : (CrBinArgs){ 0 };
  void *params[] = { &data, &rows, &row_base, &r->partials, &r->tickets,
    &carry_ptr, &r->state, &result, &count, (void *)ctx };
  void *binned_params[] = { &data, &rows, &row_base, &r->partials, &r->tickets,
    &carry_ptr, &r->state, &result, &count, &bins, (void *)ctx };
  CUfunction function = r->function;
  CrGrid grid;
  const gint vec = cr_geometry_vec_kernel (&r->limits, r->channels);
  CUfunction binned = binned_function (r, data);

  if (binned != NULL) {
    grid = r->channels == 1
        ? cr_geometry_single (&r->limits, elem, rows)
        : cr_geometry_packed (&r->limits, vec, elem, rows, r->channels);
    return launch_binned (
        r, binned, grid, rows * r->channels, binned_params, error);
  }
  if (r->channels == 1) {
    grid = cr_geometry_single (&r->limits, elem, rows);
  } else if (vec >= 0 && data % CR_LOAD_BYTES == 0) {
    /* A few channels packed in each load: as one result, with one
     * accumulator a channel. */
    function = r->vec_functions[vec];
    grid = cr_geometry_packed (&r->limits, vec, elem, rows, r->channels);
  } else {
    /* Per channel: tiles of W channels on the grid's y dimension. */
    guint channels = r->channels;
    guint width = cr_geometry_tile_width (channels);
    void *channel_params[] = { &data, &rows, &channels, &width, &row_base,
      &r->partials, &r->tickets, &carry_ptr, &r->state, &result, &count,
      (void *)ctx };
    grid = cr_geometry_channels (&r->limits, rows, channels);
    CR_CHECK (
        r->device->cu->LaunchKernel (r->channels_function, grid.x, grid.y, 1,
            CR_BLOCK_THREADS, 1, 1, 0, r->device->stream, channel_params, NULL),
        "Launching the per-channel reduction");
    return TRUE;
  }
  CR_CHECK (r->device->cu->LaunchKernel (function, grid.x, grid.y, 1,
                CR_BLOCK_THREADS, 1, 1, 0, r->device->stream, params, NULL),
      "Launching the reduction");
  return TRUE;
}

gboolean
cr_reducer_ensure_staging (CrReducer *r, gsize size, GError **error)
{
  if (r->staging_size >= size)
    return TRUE;
  if (r->staging) {
    /* The old buffer may still be read by a queued launch. */
    if (!cr_device_sync (r->device, error))
      return FALSE;
    r->device->cu->MemFree (r->staging);
    r->staging = 0;
    r->staging_size = 0;
  }
  CR_CHECK (r->device->cu->MemAlloc (&r->staging, size),
      "Allocating device memory for the input");
  r->staging_size = size;
  return TRUE;
}

/* Where a reduction starts: after @rows_before rows already in the state
 * (carry), and where its result goes. */
typedef struct {
  gboolean carry;
  guint64 rows_before;
  CUdeviceptr result;
} Start;

/* Bytes of whole rows of channels in at most @limit bytes (at least one
 * row), so that every launch starts on channel 0. */
static gsize
whole_rows (CrReducer *r, gsize limit)
{
  const gsize row = cr_type_size (r->program->in) * r->channels;
  return MAX (row, limit / row * row);
}

/* Pageable host data: copied through the device's pinned ring, which the
 * kernel reads in place. Copying the next chunk overlaps the GPU's reading
 * of this one. Rows wider than a ring chunk go through device memory. */
static gboolean
reduce_staged (CrReducer *r, const guint8 *data, gsize bytes, const guint8 *ctx,
    const Start *start, GError **error)
{
  CrDevice *d = r->device;
  const gsize row = cr_type_size (r->program->in) * r->channels;

  if (d->staging == NULL
      && (d->staging = cr_staging_new (d->cu, STAGING_RING_BYTES, error))
          == NULL)
    return FALSE;
  const gsize chunk = whole_rows (
      r, MIN (cr_staging_max_chunk (d->staging), cr_reducer_chunk_bytes ()));
  const gboolean in_ring = chunk <= cr_staging_max_chunk (d->staging);
  if (!in_ring && !cr_reducer_ensure_staging (r, chunk, error))
    return FALSE;
  for (gsize offset = 0; offset < bytes; offset += chunk) {
    gsize len = MIN (chunk, bytes - offset);
    guint8 *host;
    CUdeviceptr device = r->staging;
    if (in_ring) {
      if (!cr_staging_claim (
              d->staging, len, d->wait_timeout_us, &host, &device, error))
        return FALSE;
      cr_parallel_memcpy (host, data + offset, len);
    } else {
      CR_CHECK (d->cu->MemcpyHtoDAsync (device, data + offset, len, d->stream),
          "Copying the input to the GPU");
    }
    if (!launch (r, device, len / row, start->rows_before + offset / row,
            start->carry || offset > 0, ctx, start->result, error))
      return FALSE;
    if (in_ring && !cr_staging_release (d->staging, d->stream, error))
      return FALSE;
  }
  return TRUE;
}

/* Memory the GPU reads in place: one launch, however large. */
static gboolean
reduce_mapped (CrReducer *r, CUdeviceptr data, gsize bytes, const guint8 *ctx,
    const Start *start, GError **error)
{
  const gsize row = cr_type_size (r->program->in) * r->channels;
  return launch (r, data, bytes / row, start->rows_before, start->carry, ctx,
      start->result, error);
}

/* Whether the pitched kernel reads @region where it lies: the program has
 * it, one channel in device memory, lines of whole vector loads that
 * start on a load's boundary, and fewer than CR_PITCHED_LOADS_LIMIT loads
 * (kernels/reduce.cu). */
static gboolean
reads_pitched (const CrReducer *r, const CrRegion *region)
{
  return r->pitched_function != NULL && region->device != 0 && r->channels == 1
      && region->device % CR_LOAD_BYTES == 0
      && region->stride % CR_LOAD_BYTES == 0
      && region->row_bytes % CR_LOAD_BYTES == 0
      && region->row_bytes / CR_LOAD_BYTES * region->n_rows
      < CR_PITCHED_LOADS_LIMIT;
}

/* Lines with padding between them, read in place in one launch. */
static gboolean
reduce_pitched (CrReducer *r, const CrRegion *region, const guint8 *ctx,
    const Start *start, GError **error)
{
  const gsize elem = cr_type_size (r->program->in);
  CUdeviceptr data = region->device;
  guint line_vecs = (guint)(region->row_bytes / CR_LOAD_BYTES);
  guint64 pitch = region->stride;
  guint n_vec = line_vecs * (guint)region->n_rows;
  guint64 index_base = start->rows_before;
  CUdeviceptr carry_ptr = start->carry ? r->state : 0;
  CUdeviceptr result = start->result;
  guint64 count = index_base + (guint64)n_vec * (CR_LOAD_BYTES / elem);
  const CrGrid grid = cr_geometry_pitched (&r->limits, n_vec);
  void *params[] = { &data, &line_vecs, &pitch, &n_vec, &index_base,
    &r->partials, &r->tickets, &carry_ptr, &r->state, &result, &count,
    (void *)ctx };
  if (r->binned_pitched_function != NULL) {
    CrBinArgs bins = cr_reducer_bin_args (r, start->carry, result);
    void *binned_params[] = { &data, &line_vecs, &pitch, &n_vec, &index_base,
      &r->partials, &r->tickets, &carry_ptr, &r->state, &result, &count, &bins,
      (void *)ctx };
    return launch_binned (r, r->binned_pitched_function, grid,
        (guint64)n_vec * (CR_LOAD_BYTES / elem), binned_params, error);
  }
  if (cr_monoid_has_accumulator (r->program->monoid))
    CR_CHECK (r->device->cu->LaunchKernel (r->pitched_function, grid.x, 1, 1,
                  CR_BLOCK_THREADS, 1, 1, 0, r->device->stream, params, NULL),
        "Launching the reduction");
  return r->program->bins == 0
      || launch_bins (r, data, region->row_bytes, region->stride,
          region->n_rows, start->rows_before, start->carry, ctx, result, error);
}

/* Rows with padding between them: each copy packs whole rows, so the
 * padding never reaches the device. A padded row holds whole rows of
 * channels (pixels of whole components). */
static gboolean
reduce_rows (CrReducer *r, const CrRegion *region, const guint8 *ctx,
    const Start *start, GError **error)
{
  const gsize row = cr_type_size (r->program->in) * r->channels;
  const gsize rows_per_line = region->row_bytes / row;
  /* Host rows in chunks, so that copies overlap the kernels; rows already
   * on the GPU in one copy and one launch. */
  const gsize lines_per_chunk = region->device
      ? region->n_rows
      : MIN (region->n_rows,
          MAX (1, cr_reducer_chunk_bytes () / region->row_bytes));

  if (!cr_reducer_ensure_staging (
          r, lines_per_chunk * region->row_bytes, error))
    return FALSE;
  for (gsize line = 0; line < region->n_rows; line += lines_per_chunk) {
    gsize lines = MIN (lines_per_chunk, region->n_rows - line);
    CrMemcpy2D copy = { 0 };
    if (region->device) {
      copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
      copy.srcDevice = region->device + line * region->stride;
    } else {
      copy.srcMemoryType = CU_MEMORYTYPE_HOST;
      copy.srcHost = region->data + line * region->stride;
    }
    copy.srcPitch = region->stride;
    copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    copy.dstDevice = r->staging;
    copy.dstPitch = region->row_bytes;
    copy.WidthInBytes = region->row_bytes;
    copy.Height = lines;
    CR_CHECK (r->device->cu->Memcpy2DAsync (&copy, r->device->stream),
        "Copying the input rows to the GPU");
    if (!launch (r, r->staging, lines * rows_per_line,
            start->rows_before + line * rows_per_line, start->carry || line > 0,
            ctx, start->result, error))
      return FALSE;
  }
  return TRUE;
}

/* Jobs */

static gboolean
take_slot (CrReducer *r, CrJob *job, GError **error)
{
  const CrDriver *cu = r->device->cu;
  const gsize stride = r->slot_bytes;

  g_mutex_lock (&r->lock);
  if (r->free_slots->len == 0) {
    guint8 *slab = NULL;
    CUdeviceptr base = 0;
    CUresult res = cu->MemHostAlloc (
        (void **)&slab, stride * SLOTS_PER_SLAB, CU_MEMHOSTALLOC_DEVICEMAP);
    if (res == CUDA_SUCCESS)
      res = cu->MemHostGetDevicePointer (&base, slab, 0);
    if (res != CUDA_SUCCESS) {
      g_mutex_unlock (&r->lock);
      if (slab)
        cu->MemFreeHost (slab);
      return cr_cuda_fail (error, res, "Allocating pinned result memory");
    }
    g_ptr_array_add (r->slabs, slab);
    for (guint k = 0; k < SLOTS_PER_SLAB; k++) {
      Slot *slot = g_new (Slot, 1);
      slot->host = slab + k * stride;
      slot->device = base + k * stride;
      slot->bytes = stride;
      g_ptr_array_add (r->all_slots, slot);
      g_ptr_array_add (r->free_slots, slot);
    }
  }
  job->slot =
      g_ptr_array_steal_index_fast (r->free_slots, r->free_slots->len - 1);
  g_mutex_unlock (&r->lock);
  return TRUE;
}

CrJob *
cr_reducer_new_job (CrReducer *r, guint64 count, GError **error)
{
  CrJob *job = g_new0 (CrJob, 1);
  job->refcount = 1;
  job->reducer = r;
  job->n_results = 1;
  job->channels = r->channels;
  job->count = count;
  if (!take_slot (r, job, error) || !cr_reducer_take_event (r, job, error)) {
    cr_reducer_recycle_job (r, job);
    return NULL;
  }
  return job;
}

gboolean
cr_reducer_take_event (CrReducer *r, CrJob *job, GError **error)
{
  g_mutex_lock (&r->lock);
  if (r->free_events->len > 0)
    job->done =
        g_ptr_array_steal_index_fast (r->free_events, r->free_events->len - 1);
  g_mutex_unlock (&r->lock);

  if (job->done == NULL) {
    /* Blocking: waiting never spins a core, even in a shared context that
     * GStreamer made with the driver's default (spinning) schedule. */
    CR_CHECK (r->device->cu->EventCreate (
                  &job->done, CU_EVENT_DISABLE_TIMING | CU_EVENT_BLOCKING_SYNC),
        "Creating a CUDA event");
    g_mutex_lock (&r->lock);
    g_ptr_array_add (r->all_events, job->done);
    g_mutex_unlock (&r->lock);
  }
  return TRUE;
}

static gboolean
submit (CrReducer *r, const CrRegion *region, const guint8 *ctx,
    const CrSubmitOptions *options, CrJob *job, GError **error)
{
  const gsize bytes = region->row_bytes * region->n_rows;
  Start start = {
    .carry = options && options->carry,
    .rows_before = options ? options->rows_before : 0,
    .result =
        options && options->discard_result ? r->result : job->slot->device,
  };

  if (bytes == 0) {
    if (!launch (
            r, 0, 0, start.rows_before, start.carry, ctx, start.result, error))
      return FALSE;
  } else if (region->n_rows > 1 && region->stride != region->row_bytes
      && reads_pitched (r, region)) {
    if (!reduce_pitched (r, region, ctx, &start, error))
      return FALSE;
  } else if (region->n_rows > 1 && region->stride != region->row_bytes) {
    if (!reduce_rows (r, region, ctx, &start, error))
      return FALSE;
  } else if (region->device) {
    if (!reduce_mapped (r, region->device, bytes, ctx, &start, error))
      return FALSE;
  } else if (!reduce_staged (r, region->data, bytes, ctx, &start, error)) {
    return FALSE;
  }
  if (!cr_reducer_end_window (r, options, ctx, start.result, job, error))
    return FALSE;
  CR_CHECK (r->device->cu->EventRecord (job->done, r->device->stream),
      "Recording a CUDA event");
  return TRUE;
}

CrJob *
cr_reducer_submit (CrReducer *r, const CrRegion *region, const guint8 *ctx,
    const CrSubmitOptions *options, GError **error)
{
  const gsize elem = cr_type_size (r->program->in);
  const gsize row = elem * r->channels;

  if (region->row_bytes % row != 0) {
    if (r->channels == 1)
      g_set_error (error, CR_ERROR, CR_ERROR_INPUT,
          "The input is %" G_GSIZE_FORMAT " bytes, not a whole number of %s "
          "elements (%" G_GSIZE_FORMAT " bytes each)",
          region->row_bytes, cr_type_name (r->program->in), elem);
    else
      g_set_error (error, CR_ERROR, CR_ERROR_INPUT,
          "The input is %" G_GSIZE_FORMAT " bytes, not a whole number of "
          "rows of %u %s channels (%" G_GSIZE_FORMAT " bytes each)",
          region->row_bytes, r->channels, cr_type_name (r->program->in), row);
    return NULL;
  }
  g_return_val_if_fail (r->program->pair_bins == 0, NULL);
  if (!cr_device_push (r->device, error))
    return NULL;
  if (!cr_reducer_upgrade (r, error)) {
    cr_device_pop (r->device);
    return NULL;
  }
  CrJob *job = cr_reducer_new_job (r,
      ((options ? options->rows_before : 0)
          + region->row_bytes / row * region->n_rows)
          * r->channels,
      error);
  if (job && !submit (r, region, ctx, options, job, error)) {
    cr_reducer_recycle_job (r, job);
    job = NULL;
  }
  cr_device_pop (r->device);
  return job;
}

gboolean
cr_reducer_set_window (CrReducer *r, guint hops, GError **error)
{
  hops = hops < 2 ? 0 : hops;
  if (hops == r->window_hops)
    return TRUE;
  if (hops > CR_SEGMENT_MAX_HOPS) {
    g_set_error (error, CR_ERROR, CR_ERROR_INPUT,
        "A window of %u hops is more than the %u a batch can name", hops,
        CR_SEGMENT_MAX_HOPS);
    return FALSE;
  }
  if (hops && !(r->program->kernels & CR_KERNELS_WINDOW)) {
    g_set_error (error, CR_ERROR, CR_ERROR_INPUT,
        "The program of monoid %s was built without a window's kernels",
        r->program->monoid->name);
    return FALSE;
  }
  if (!cr_device_push (r->device, error))
    return FALSE;
  /* Queued launches may still use the old ring. */
  gboolean ok = cr_device_sync (r->device, error);
  if (ok) {
    r->window_hops = hops;
    ok = cr_window_ring_allocate (
        &r->window, r->device->cu, r->program, hops, r->channels, error);
  }
  cr_device_pop (r->device);
  return ok;
}

gboolean
cr_reducer_ends_window (const CrReducer *r, const CrSubmitOptions *options)
{
  return r->window_hops >= 2 && options != NULL && !options->discard_result;
}

gboolean
cr_reducer_end_window (CrReducer *r, const CrSubmitOptions *options,
    const guint8 *ctx, CUdeviceptr result, CrJob *job, GError **error)
{
  if (!cr_reducer_ends_window (r, options))
    return TRUE;
  const CrHopEnd end = {
    .state = r->state,
    .bin_state = r->bin_state,
    .result = result,
    .hop = options->hop,
    .window_hops = options->window_hops,
    .rows = job->count / r->channels - options->window_base,
  };
  guint64 rows = 0;
  if (!cr_window_ring_end_hop (&r->window, r->device->cu, r->device->stream,
          r->program, &end, ctx, &rows, error))
    return FALSE;
  job->count = rows * r->channels;
  return TRUE;
}

void
cr_reducer_recycle_job (CrReducer *r, CrJob *job)
{
  g_mutex_lock (&r->lock);
  /* A slot or arena of a size from before a change of channels is not
   * reused. */
  if (job->slot && job->slot->bytes == r->slot_bytes)
    g_ptr_array_add (r->free_slots, job->slot);
  if (job->arena) {
    if (job->arena->result_bytes == r->program->out.size * r->channels)
      g_ptr_array_add (
          job->arena->regions ? r->free_region_arenas : r->free_arenas,
          job->arena);
    else
      g_ptr_array_add (r->stale_arenas, job->arena);
  }
  if (job->done)
    g_ptr_array_add (r->free_events, job->done);
  g_mutex_unlock (&r->lock);
  g_free (job->counts);
  g_free (job->params);
  g_free (job->frames);
  g_free (job->ctx);
  g_free (job);
}

static gboolean
fetch_result (CrReducer *r, guint8 *out, GError **error)
{
  const CrDriver *cu = r->device->cu;
  CR_CHECK (cu->MemcpyDtoHAsync (r->host_result, r->result,
                r->program->out.size * r->channels, r->device->stream),
      "Copying the result to the host");
  CR_CHECK (cu->StreamSynchronize (r->device->stream),
      "The reduction on the GPU (after a fault in the monoid's code, CUDA "
      "stays unusable in this process until it restarts)");
  cr_program_unpack (r->program, r->channels, r->host_result, out);
  return TRUE;
}

gboolean
cr_reducer_reduce_device (CrReducer *r, CUdeviceptr data, guint64 n,
    const guint8 *ctx, guint8 *out, GError **error)
{
  g_return_val_if_fail (r->program->pair_bins == 0, FALSE);
  if (!cr_device_push (r->device, error))
    return FALSE;
  const guint64 rows = n / r->channels;
  gboolean ok = cr_reducer_upgrade (r, error)
      && launch (r, data, rows, 0, FALSE, ctx, r->result, error);
  if (ok && out)
    ok = fetch_result (r, out, error);
  cr_device_pop (r->device);
  return ok;
}
