/* cr-reducer-regions.c: results per region of a plane, in one launch. */
#include "cr-reducer-regions.h"

#include "cr-error.h"
#include "cr-reducer-private.h"

/* Values a block reads at least, 16 a thread (a power of two: blocks are
 * counted with shifts); more where the regions would need more than
 * CR_REGION_BLOCKS_MAX blocks. */
#define VALUES_PER_BLOCK_LOG2 12u
#define VALUES_PER_BLOCK (1u << VALUES_PER_BLOCK_LOG2)
G_STATIC_ASSERT (VALUES_PER_BLOCK == CR_BLOCK_THREADS * 16u);
/* The pinned table of an arena for @capacity regions: the rects of each
 * plane, each block's region, a window's counts. */
#define RECTS_BYTES(capacity) \
  ((capacity)*CR_REGION_PLANES_MAX * sizeof (struct CrRegionRect))
#define BLOCKS_BYTES (CR_REGION_BLOCKS_MAX * sizeof (guint32))
#define TABLE_BYTES(capacity) \
  (RECTS_BYTES (capacity) + BLOCKS_BYTES + (capacity)*8)

/* Pinned memory for one launch of @n regions: its table, then its
 * results, for a power of two of regions from 64 (a histogram's results
 * take kilobytes a region). The reducer's context is current. */
static CrArena *
take_arena (CrReducer *r, guint n, GError **error)
{
  const CrDriver *cu = r->device->cu;
  CrArena *a = NULL;

  g_mutex_lock (&r->lock);
  for (guint k = 0; a == NULL && k < r->free_region_arenas->len; k++)
    if (((CrArena *)g_ptr_array_index (r->free_region_arenas, k))->capacity
        >= n)
      a = g_ptr_array_steal_index_fast (r->free_region_arenas, k);
  g_mutex_unlock (&r->lock);
  if (a)
    return a;
  a = g_new0 (CrArena, 1);
  a->regions = TRUE;
  a->result_bytes = r->program->out.size * r->channels;
  a->capacity =
      MIN (CR_REGIONS_MAX, MAX (64, 1u << g_bit_storage (MAX (n, 1) - 1)));
  a->input_bytes = TABLE_BYTES (a->capacity);
  CUresult res = cu->MemHostAlloc ((void **)&a->host,
      a->input_bytes + a->capacity * a->result_bytes,
      CU_MEMHOSTALLOC_DEVICEMAP);
  if (res == CUDA_SUCCESS)
    res = cu->MemHostGetDevicePointer (&a->device, a->host, 0);
  if (res != CUDA_SUCCESS) {
    if (a->host)
      cu->MemFreeHost (a->host);
    g_free (a);
    cr_cuda_fail (error, res, "Allocating pinned memory for regions");
    return NULL;
  }
  return a;
}

/* Values a warp reads at most where it reads a region alone: what a
 * thread of a block reads at least (VALUES_PER_BLOCK), 16 a lane. */
#define WARP_VALUES_MAX (CR_WARP_THREADS * 16u)
#define GROUP_MAX (CR_BLOCK_THREADS / CR_WARP_THREADS)

/* The blocks that read @values values, 2^@shift a block: at least one. */
static inline guint64
region_blocks (guint64 values, guint shift)
{
  return values == 0
      ? 1
      : (values + (G_GUINT64_CONSTANT (1) << shift) - 1) >> shift;
}

/* The values of region @k in all @planes of @rects (@n a plane). */
static inline guint64
region_values (
    const CrRect *rects, guint n, guint planes, guint k, guint channels)
{
  guint64 pixels = 0;
  for (guint p = 0; p < planes; p++)
    pixels += rects[p * n + k].width * rects[p * n + k].lines;
  return pixels * channels;
}

/* Fills @out (plane 0's entries) and @block_region with the blocks of the
 * @n regions of @rects, each in @planes planes: each region as many as
 * its values need, at least one. With @groups, runs of small regions (up
 * to WARP_VALUES_MAX values) share blocks instead, a warp each: a block
 * of 256 threads would spend most of a 16 x 16 region's time in its
 * block-wide total. Returns the grid's blocks. A frame of a thousand
 * regions calls it for each launch, and the GPU waits for it (the kernel
 * is launched after it), so it counts with shifts, not divisions. */
static guint
assign_blocks (const CrRect *rects, guint n, guint planes, guint channels,
    gboolean groups, struct CrRegionRect *out, guint32 *block_region)
{
  guint shift = VALUES_PER_BLOCK_LOG2;
  /* Counted without groups, which only take fewer. */
  for (;; shift++) {
    guint64 total = 0;
    for (guint k = 0; k < n; k++)
      total +=
          region_blocks (region_values (rects, n, planes, k, channels), shift);
    if (total <= CR_REGION_BLOCKS_MAX)
      break;
  }
  guint first = 0;
  for (guint k = 0; k < n;) {
    guint size = 0;
    while (groups && k + size < n && size < GROUP_MAX
        && region_values (rects, n, planes, k + size, channels)
            <= WARP_VALUES_MAX)
      size++;
    if (size > 0) {
      for (guint j = k; j < k + size; j++) {
        out[j].first_block = first;
        out[j].blocks = 1;
      }
      block_region[first++] = CR_REGION_GROUP (k, size);
      k += size;
      continue;
    }
    const guint blocks = (guint)region_blocks (
        region_values (rects, n, planes, k, channels), shift);
    out[k].first_block = first;
    out[k].blocks = blocks;
    for (guint b = 0; b < blocks; b++)
      block_region[first + b] = k;
    first += blocks;
    k++;
  }
  return first;
}

/* @plane's rectangles in pixels of @channels values; a pair's second
 * plane (@pairs) of the same pixels. */
static gboolean
check_rects (const CrReducer *r, const CrRegion *plane, guint channels,
    const CrPairs *pairs, const CrRect *rects, guint n, GError **error)
{
  const gsize elem = cr_type_size (r->program->in);
  const gsize pixel = elem * channels;
  const guint64 cols = plane->row_bytes / pixel;

  if (n > CR_REGIONS_MAX || r->channels > CR_REGION_CHANNELS_MAX) {
    g_set_error (error, CR_ERROR, CR_ERROR_INPUT,
        "%u regions of %u channels: results per region take at most %u "
        "regions of %u channels",
        n, r->channels, CR_REGIONS_MAX, CR_REGION_CHANNELS_MAX);
    return FALSE;
  }
  if (plane->row_bytes % pixel != 0) {
    g_set_error (error, CR_ERROR, CR_ERROR_INPUT,
        "A line of %" G_GSIZE_FORMAT " bytes is not a whole number of "
        "pixels of %u %s values",
        plane->row_bytes, channels, cr_type_name (r->program->in));
    return FALSE;
  }
  if (pairs
      && (pairs->y.row_bytes != cols * elem * pairs->y_channels
          || pairs->y.n_rows != plane->n_rows)) {
    g_set_error (error, CR_ERROR, CR_ERROR_INPUT,
        "The two components of a pair come in planes of different shapes "
        "(%" G_GSIZE_FORMAT " lines of %" G_GSIZE_FORMAT " bytes, and "
        "%" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT ")",
        plane->n_rows, plane->row_bytes, pairs->y.n_rows, pairs->y.row_bytes);
    return FALSE;
  }
  for (guint k = 0; k < n; k++) {
    const CrRect *c = &rects[k];
    if (c->x + c->width > cols || c->y + c->lines > plane->n_rows
        || c->width * c->lines > G_MAXINT32) {
      g_set_error (error, CR_ERROR, CR_ERROR_INPUT,
          "Region %u (%" G_GUINT64_FORMAT " x %" G_GUINT64_FORMAT
          " at %" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
          ") is not inside the plane of %" G_GUINT64_FORMAT
          " x %" G_GSIZE_FORMAT " pixels",
          k, c->width, c->lines, c->x, c->y, cols, plane->n_rows);
      return FALSE;
    }
  }
  return TRUE;
}

static gsize
staged_bytes (const CrRegion *plane)
{
  return plane->device ? 0 : plane->row_bytes * plane->n_rows;
}

/* Where the kernel reads @plane: in place, or a packed copy at @staged
 * bytes into the staging buffer, which holds it. */
static gboolean
plane_on_device (CrReducer *r, const CrRegion *plane, gsize staged,
    CUdeviceptr *at, guint64 *pitch, GError **error)
{
  if (plane->device) {
    *at = plane->device;
    *pitch = plane->n_rows > 1 ? plane->stride : plane->row_bytes;
    return TRUE;
  }
  CrMemcpy2D copy = { 0 };
  copy.srcMemoryType = CU_MEMORYTYPE_HOST;
  copy.srcHost = plane->data;
  copy.srcPitch = plane->n_rows > 1 ? plane->stride : plane->row_bytes;
  copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.dstDevice = r->staging + staged;
  copy.dstPitch = plane->row_bytes;
  copy.WidthInBytes = plane->row_bytes;
  copy.Height = plane->n_rows;
  if (staged_bytes (plane) > 0)
    CR_CHECK (r->device->cu->Memcpy2DAsync (&copy, r->device->stream),
        "Copying the plane to the GPU");
  *at = r->staging + staged;
  *pitch = plane->row_bytes;
  return TRUE;
}

/* Where a launch reads: its planes, and a pair's second one. */
typedef struct {
  CUdeviceptr at[CR_REGION_PLANES_MAX], y_at;
  guint64 pitch[CR_REGION_PLANES_MAX], y_pitch;
} Planes;

/* The @n_planes @planes, and @pairs' second plane where it is another, on
 * the device. */
static gboolean
planes_on_device (CrReducer *r, const CrRegion *planes, guint n_planes,
    const CrPairs *pairs, Planes *out, GError **error)
{
  const gboolean second = pairs
      && (pairs->y.data != planes[0].data
          || pairs->y.device != planes[0].device);
  gsize bytes = second ? staged_bytes (&pairs->y) : 0;
  for (guint p = 0; p < n_planes; p++)
    bytes += staged_bytes (&planes[p]);

  if (bytes > 0 && !cr_reducer_ensure_staging (r, bytes, error))
    return FALSE;
  gsize staged = 0;
  for (guint p = 0; p < n_planes; p++) {
    if (!plane_on_device (
            r, &planes[p], staged, &out->at[p], &out->pitch[p], error))
      return FALSE;
    staged += staged_bytes (&planes[p]);
  }
  out->y_at = out->at[0];
  out->y_pitch = out->pitch[0];
  return !second
      || plane_on_device (
          r, &pairs->y, staged, &out->y_at, &out->y_pitch, error);
}

/* After a launch that ends a window's hop: the states and counts into the
 * ring, and the results combined from the hops the window spans. */
static gboolean
end_hop (CrReducer *r, const CrRect *rects, guint n,
    const CrRectsOptions *options, const guint8 *ctx, CrJob *job,
    GError **error)
{
  const CrDriver *cu = r->device->cu;
  CrRegionKernel *k = &r->regions;
  const guint values = n * r->channels;
  const gsize acc = r->program->acc.size;
  const guint size = options->ring_hops;

  if (k->ring_hops != size || k->ring_values != values) {
    /* Queued launches may read the old ring. */
    if (!cr_device_sync (r->device, error)
        || !cr_region_kernel_allocate_ring (
            k, cu, r->program, size, values, r->channels, error))
      return FALSE;
  }
  const gboolean folds = cr_monoid_has_accumulator (r->program->monoid);
  const gsize counters = (gsize)values * CR_BIN_SLOTS (r->program->bins);
  guint last = (guint)(options->hop % size);
  if (folds)
    CR_CHECK (cu->MemcpyDtoDAsync (k->ring + (gsize)last * values * acc,
                  k->states, (gsize)values * acc, r->device->stream),
        "Keeping the hop's states for the window");
  if (r->program->bins)
    CR_CHECK (
        cu->MemcpyDtoDAsync (k->ring_bins + last * counters * sizeof (guint64),
            k->bin_state, counters * sizeof (guint64), r->device->stream),
        "Keeping the hop's counts for the window");
  for (guint j = 0; j < n; j++)
    k->ring_counts[(gsize)last * n + j] = rects[j].count;
  guint hops = CLAMP (options->window_hops, 1, size);
  if (hops < 2)
    return TRUE;
  guint64 *counts = (guint64 *)(job->arena->host
      + RECTS_BYTES (job->arena->capacity) + BLOCKS_BYTES);
  for (guint j = 0; j < n; j++) {
    counts[j] = 0;
    for (guint back = 0; back < hops; back++)
      counts[j] += k->ring_counts[(gsize)((last + size - back) % size) * n + j];
    job->counts[j] = counts[j] * r->channels;
  }
  CR_CHECK (cu->MemcpyHtoDAsync (
                k->counts, counts, n * sizeof (guint64), r->device->stream),
      "Copying the window's counts to the GPU");
  const CUdeviceptr results = job->arena->device + job->arena->input_bytes;
  guint channels = r->channels, n_values = values, regions = n;
  void *params[] = { &k->ring, &k->ring_hops, &last, &hops, &n_values,
    &channels, &k->counts, (void *)&results, (void *)ctx };
  if (folds)
    CR_CHECK (cu->LaunchKernel (k->window,
                  (values + CR_BLOCK_THREADS - 1) / CR_BLOCK_THREADS, 1, 1,
                  CR_BLOCK_THREADS, 1, 1, 0, r->device->stream, params, NULL),
        "Launching the regions' window");
  if (!r->program->bins)
    return TRUE;
  CUdeviceptr bins_at = results
      + CR_BINS_RESULT_OFFSET ((gsize)values, r->program->out_device.size);
  guint64 stride = cr_program_bins_bytes (r->program, r->channels);
  void *bin_params[] = { &k->ring_bins, &k->ring_hops, &last, &hops, &regions,
    &channels, &k->window_sums, &bins_at, &stride, (void *)ctx };
  CR_CHECK (cu->LaunchKernel (k->window_bins, n, 1, 1, CR_BLOCK_THREADS, 1, 1,
                0, r->device->stream, bin_params, NULL),
      "Launching the regions' window of counts");
  return TRUE;
}

/* The counters of @n regions of a monoid with bins, checked and made, in
 * @bins for results at @results. */
static gboolean
region_bin_args (
    CrReducer *r, guint n, CUdeviceptr results, CrBinArgs *bins, GError **error)
{
  const CrProgram *p = r->program;
  CrRegionKernel *k = &r->regions;
  const gsize slots = (gsize)r->channels * CR_BIN_SLOTS (p->bins);
  const gsize shared = slots * sizeof (guint32);

  if ((guint64)n * slots > CR_BIN_COUNTERS_MAX) {
    g_set_error (error, CR_ERROR, CR_ERROR_INPUT,
        "%u regions of %u channels in %u bins are more counters than the "
        "%u the GPU keeps: use fewer regions or bins",
        n, r->channels, p->bins, CR_BIN_COUNTERS_MAX);
    return FALSE;
  }
  if (!cr_region_kernel_allocate_bins (
          k, r->device->cu, r->device->stream, n * slots, error))
    return FALSE;
  /* A copy of the counters a warp, where they fit, as a whole frame's; a
   * 2-D histogram's warps add to the device's counters (regions.cu). */
  *bins = (CrBinArgs){
    .scratch = k->bin_scratch,
    .state = k->bin_state,
    .result = results
        + CR_BINS_RESULT_OFFSET ((gsize)n * r->channels, p->out_device.size),
    .copies = shared <= CR_BINS_SHARED_MAX_BYTES && !p->pair_bins
        ? (guint)MIN (CR_BLOCK_THREADS / CR_WARP_THREADS,
            CR_BINS_SHARED_MAX_BYTES / shared)
        : 0,
  };
  return TRUE;
}

/* The counts of a monoid with bins, per region, after (or without) its
 * accumulator's launch: over the table that launch copied, with the same
 * @flags, into the results after every region's Out. */
static gboolean
launch_bins (CrReducer *r, const Planes *at, CUdeviceptr block_map, guint n,
    guint flags, guint blocks, CUdeviceptr results, const guint8 *ctx,
    GError **error)
{
  CrRegionKernel *k = &r->regions;
  CrBinArgs bins;
  if (!region_bin_args (r, n, results, &bins, error))
    return FALSE;
  const gsize shared =
      bins.copies * r->channels * CR_BIN_SLOTS (r->program->bins);
  guint64 stride = cr_program_bins_bytes (r->program, r->channels);
  guint channels = r->channels;
  void *params[] = { (void *)&at->at[0], (void *)&at->pitch[0], &k->table,
    &block_map, &channels, &flags, &k->tickets, (void *)&bins, &stride,
    (void *)ctx };
  CR_CHECK (r->device->cu->LaunchKernel (k->histogram, blocks, 1, 1,
                CR_BLOCK_THREADS, 1, 1, (guint)(shared * sizeof (guint32)),
                r->device->stream, params, NULL),
      "Launching the counts of regions");
  return TRUE;
}

/* A 2-D histogram per region: @pairs' components at @at. */
static gboolean
launch_pair_bins (CrReducer *r, const Planes *at, const CrPairs *pairs,
    CUdeviceptr block_map, guint n, guint flags, guint blocks,
    CUdeviceptr results, const guint8 *ctx, GError **error)
{
  CrRegionKernel *k = &r->regions;
  const gsize elem = cr_type_size (r->program->in);
  CrBinArgs bins;
  if (!region_bin_args (r, n, results, &bins, error))
    return FALSE;
  CUdeviceptr x = at->at[0] + pairs->x_channel * elem;
  CUdeviceptr y = at->y_at + pairs->y_channel * elem;
  guint x_step = pairs->x_channels, y_step = pairs->y_channels;
  guint64 stride = cr_program_bins_bytes (r->program, 1);
  void *params[] = { &x, &y, (void *)&at->pitch[0], (void *)&at->y_pitch,
    &x_step, &y_step, &k->table, &block_map, &flags, &k->tickets, (void *)&bins,
    &stride, (void *)ctx };
  CR_CHECK (r->device->cu->LaunchKernel (k->histogram, blocks, 1, 1,
                CR_BLOCK_THREADS, 1, 1, 0, r->device->stream, params, NULL),
      "Launching the 2-D histograms of regions");
  return TRUE;
}

/* Launches @rects (@n regions in each of @n_planes @planes, region k of
 * plane p at p * @n + k), or @pairs' rects, on the reducer's stream. */
static gboolean
launch_rects (CrReducer *r, const CrRegion *planes, guint n_planes,
    const CrPairs *pairs, const CrRect *rects, guint n,
    const CrRectsOptions *options, const guint8 *ctx, CrJob *job,
    GError **error)
{
  const CrDriver *cu = r->device->cu;
  const gsize elem = cr_type_size (r->program->in);
  const gsize pixel = elem * (pairs ? pairs->x_channels : r->channels);
  CrArena *a = job->arena;
  /* The rects, then each block's region: one copy to the GPU. */
  struct CrRegionRect *table = (struct CrRegionRect *)a->host;
  const gsize block_at =
      ((gsize)n_planes * n * sizeof (struct CrRegionRect) + CR_LOAD_BYTES - 1)
      / CR_LOAD_BYTES * CR_LOAD_BYTES;
  guint32 *block_region = (guint32 *)(a->host + block_at);
  const gboolean carry = options->carry, emit = options->emit;
  const CrRect *last = rects + (gsize)(n_planes - 1) * n;
  Planes at;

  if (!cr_region_kernel_allocate (
          &r->regions, cu, r->device->stream, r->program, error)
      || !planes_on_device (r, planes, n_planes, pairs, &at, error))
    return FALSE;
  /* A pair's bins read no row index: its second plane's offset instead. */
  const guint64 y_pixel = pairs ? elem * pairs->y_channels : 0;
  for (guint p = 0; p < n_planes; p++) {
    /* From the first plane, modulo 2^64 (regions.cu, cr_region_at). */
    const guint64 plane_at = at.at[p] - at.at[0], pitch = at.pitch[p];
    for (guint k = 0; k < n; k++) {
      const CrRect *c = &rects[(gsize)p * n + k];
      struct CrRegionRect *t = &table[(gsize)p * n + k];
      t->offset = plane_at + c->y * pitch + c->x * pixel;
      t->row_base = pairs ? c->y * at.y_pitch + c->x * y_pixel : c->rows_before;
      t->count = c->count;
      t->pitch = pitch;
      t->width = (guint32)c->width;
      t->lines = (guint32)c->lines;
    }
  }
  for (guint k = 0; k < n; k++)
    job->counts[k] = last[k].count * r->channels;
  /* The counts' kernels read the same map, a block a region. */
  const guint blocks = assign_blocks (rects, n, n_planes,
      pairs ? 1 : r->channels, r->program->bins == 0, table, block_region);
  CR_CHECK (cu->MemcpyHtoDAsync (r->regions.table, table,
                block_at + blocks * sizeof (guint32), r->device->stream),
      "Copying the regions to the GPU");
  const CUdeviceptr results = a->device + a->input_bytes;
  CUdeviceptr block_map = r->regions.table + block_at;
  guint flags = (carry ? CR_REGIONS_CARRY : 0) | (emit ? CR_REGIONS_EMIT : 0);
  void *params[] = { &at.at[0], &r->regions.table, &block_map, &n, &n_planes,
    &flags, &r->regions.partials, &r->regions.tickets, &r->regions.states,
    (void *)&results, (void *)ctx };
  if (cr_monoid_has_accumulator (r->program->monoid))
    CR_CHECK (
        cu->LaunchKernel (r->regions.functions[r->channels - 1], blocks, 1, 1,
            CR_BLOCK_THREADS, 1, 1, 0, r->device->stream, params, NULL),
        "Launching the reduction of regions");
  if (pairs ? !launch_pair_bins (
          r, &at, pairs, block_map, n, flags, blocks, results, ctx, error)
            : r->program->bins
              && !launch_bins (
                  r, &at, block_map, n, flags, blocks, results, ctx, error))
    return FALSE;
  return !emit || options->ring_hops < 2
      || end_hop (r, last, n, options, ctx, job, error);
}

static CrJob *
submit_rects (CrReducer *r, const CrRegion *planes, guint n_planes,
    const CrPairs *pairs, const CrRect *rects, guint n,
    const CrRectsOptions *options, const guint8 *ctx, GError **error)
{
  if (r->regions.functions[0] == NULL) {
    g_set_error (error, CR_ERROR, CR_ERROR_INPUT,
        "The program of monoid %s was built without the regions' kernel",
        r->program->monoid->name);
    return NULL;
  }
  for (guint p = 0; p < n_planes; p++)
    if (!check_rects (r, &planes[p], pairs ? pairs->x_channels : r->channels,
            pairs, rects + (gsize)p * n, n, error))
      return NULL;
  if (!cr_device_push (r->device, error))
    return NULL;
  if (!cr_reducer_upgrade (r, error)) {
    cr_device_pop (r->device);
    return NULL;
  }
  CrJob *job = g_new0 (CrJob, 1);
  job->refcount = 1;
  job->reducer = r;
  job->channels = r->channels;
  job->counts = g_new0 (guint64, MAX (n, 1));
  job->arena = take_arena (r, n, error);
  gboolean ok = job->arena != NULL
      && (n == 0
          || launch_rects (
              r, planes, n_planes, pairs, rects, n, options, ctx, job, error))
      && cr_reducer_take_event (r, job, error);
  if (ok) {
    const CUresult res =
        r->device->cu->EventRecord (job->done, r->device->stream);
    ok = res == CUDA_SUCCESS
        || cr_cuda_fail (error, res, "Recording a CUDA event");
  }
  cr_device_pop (r->device);
  if (!ok) {
    cr_reducer_recycle_job (r, job);
    return NULL;
  }
  job->n_results = options->emit ? n : 0;
  return job;
}

CrJob *
cr_reducer_submit_rects (CrReducer *r, const CrRegion *plane,
    const CrRect *rects, guint n, const CrRectsOptions *options,
    const guint8 *ctx, GError **error)
{
  return cr_reducer_submit_rects_planes (
      r, plane, 1, rects, n, options, ctx, error);
}

CrJob *
cr_reducer_submit_rects_planes (CrReducer *r, const CrRegion *planes,
    guint n_planes, const CrRect *rects, guint n, const CrRectsOptions *options,
    const guint8 *ctx, GError **error)
{
  g_return_val_if_fail (
      n_planes >= 1 && n_planes <= CR_REGION_PLANES_MAX, NULL);
  g_return_val_if_fail (n_planes == 1 || r->program->bins == 0, NULL);
  if (r->program->pair_bins) {
    g_set_error (error, CR_ERROR, CR_ERROR_INPUT,
        "Monoid %s counts pairs of components: give them "
        "(cr_reducer_submit_pair_rects)",
        r->program->monoid->name);
    return NULL;
  }
  return submit_rects (
      r, planes, n_planes, NULL, rects, n, options, ctx, error);
}

CrJob *
cr_reducer_submit_pair_rects (CrReducer *r, const CrPairs *pairs,
    const CrRect *rects, guint n, const CrRectsOptions *options,
    const guint8 *ctx, GError **error)
{
  g_return_val_if_fail (r->program->pair_bins > 0, NULL);
  g_return_val_if_fail (pairs->x_channel < pairs->x_channels, NULL);
  g_return_val_if_fail (pairs->y_channel < pairs->y_channels, NULL);
  return submit_rects (r, &pairs->x, 1, pairs, rects, n, options, ctx, error);
}
