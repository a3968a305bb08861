/* cr-reducer-pairs.c: 2-D histograms, which count pairs of two components
 * of the same pixels (kernels/histogram.cu's cr_histogram_pairs). */
#include "cr-reducer-pairs.h"

#include "cr-error.h"
#include "cr-reducer-private.h"

/* Pairs a thread counts at least: each block zeroes and flushes its
 * shared counters once. */
#define PAIRS_PER_THREAD 16

/* Where one launch reads: first values at @x, lines @x_pitch bytes
 * apart, one every @x_step values; second ones likewise at @y. */
typedef struct {
  CUdeviceptr x, y;
  guint64 x_pitch, y_pitch;
  guint x_step, y_step;
} Planes;

/* One launch over @cols pixels of each of @lines lines of @at. */
static gboolean
launch_pairs (CrReducer *r, Planes at, guint64 cols, guint64 lines,
    gboolean carry, const guint8 *ctx, CUdeviceptr result, GError **error)
{
  const guint64 slots = CR_BIN_SLOTS (r->program->bins);
  /* A 2-D histogram is mostly empty, so a block's flush costs little
   * beside its reads: the number of pairs alone sets the grid. */
  const guint blocks = cr_reducer_bin_blocks (cols * lines, 0,
      (guint64)CR_BLOCK_THREADS * PAIRS_PER_THREAD, r->bin_blocks);
  CrBinArgs bins = cr_reducer_bin_args (r, carry, result);
  void *params[] = { &at.x, &at.x_pitch, &at.x_step, &at.y, &at.y_pitch,
    &at.y_step, &cols, &lines, &r->tickets, &bins, (void *)ctx };
  const guint shared = (guint)(bins.copies * slots * sizeof (guint32));

  CR_CHECK (
      r->device->cu->LaunchKernel (r->histogram_function, blocks, 1, 1,
          CR_BLOCK_THREADS, 1, 1, shared, r->device->stream, params, NULL),
      "Launching the 2-D histogram");
  return TRUE;
}

/* Copies @lines lines of @width bytes of @region, from byte @at of line
 * @line on, packed to @to. */
static gboolean
copy_lines (CrReducer *r, const CrRegion *region, gsize line, gsize at,
    gsize width, gsize lines, CUdeviceptr to, GError **error)
{
  CrMemcpy2D copy = { 0 };
  const gsize offset = line * region->stride + at;
  if (region->device) {
    copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    copy.srcDevice = region->device + offset;
  } else {
    copy.srcMemoryType = CU_MEMORYTYPE_HOST;
    copy.srcHost = region->data + offset;
  }
  copy.srcPitch = region->stride;
  copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.dstDevice = to;
  copy.dstPitch = width;
  copy.WidthInBytes = width;
  copy.Height = lines;
  CR_CHECK (r->device->cu->Memcpy2DAsync (&copy, r->device->stream),
      "Copying the input rows to the GPU");
  return TRUE;
}

/* Host memory: copied to the device in pieces of whole lines (or, for one
 * line longer than a piece, as audio is, of pixels of it), each counted
 * in a launch that carries the counts of the ones before. */
static gboolean
count_copied (CrReducer *r, const CrPairs *pairs, const guint8 *ctx,
    gboolean carry, CUdeviceptr result, GError **error)
{
  const gsize elem = cr_type_size (r->program->in);
  const gsize x_pixel = elem * pairs->x_channels;
  const gsize y_pixel = elem * pairs->y_channels;
  const CrRegion *x = &pairs->x, *y = &pairs->y;
  /* Interleaved components (NV12's U and V, R and G) are copied once. */
  const gboolean two = x->data != y->data || x->device != y->device;
  const gsize pixel = x_pixel + (two ? y_pixel : 0);
  const gsize cols = x->row_bytes / x_pixel, lines = x->n_rows;
  const gsize budget = cr_reducer_chunk_bytes ();
  const gsize piece_cols =
      cols * pixel <= budget ? cols : MAX (1, budget / pixel);
  const gsize piece_lines =
      cols * pixel <= budget ? MIN (lines, budget / (cols * pixel)) : 1;

  if (!cr_reducer_ensure_staging (r, piece_cols * piece_lines * pixel, error))
    return FALSE;
  Planes at = {
    .x = r->staging + pairs->x_channel * elem,
    .x_step = pairs->x_channels,
    .y_step = pairs->y_channels,
  };
  for (gsize line = 0; line < lines; line += piece_lines)
    for (gsize col = 0; col < cols; col += piece_cols) {
      const gsize n_lines = MIN (piece_lines, lines - line);
      const gsize n_cols = MIN (piece_cols, cols - col);
      const CUdeviceptr y_copy = r->staging + n_cols * x_pixel * n_lines;
      at.x_pitch = n_cols * x_pixel;
      at.y = (two ? y_copy : r->staging) + pairs->y_channel * elem;
      at.y_pitch = two ? n_cols * y_pixel : at.x_pitch;
      if (!copy_lines (r, x, line, col * x_pixel, n_cols * x_pixel, n_lines,
              r->staging, error)
          || (two
              && !copy_lines (r, y, line, col * y_pixel, n_cols * y_pixel,
                  n_lines, y_copy, error))
          || !launch_pairs (r, at, n_cols, n_lines,
              carry || line > 0 || col > 0, ctx, result, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
submit_pairs (CrReducer *r, const CrPairs *pairs, const guint8 *ctx,
    const CrSubmitOptions *options, CrJob *job, GError **error)
{
  const gsize elem = cr_type_size (r->program->in);
  const CrRegion *x = &pairs->x, *y = &pairs->y;
  const guint64 cols = x->row_bytes / (elem * pairs->x_channels);
  const gboolean carry = options && options->carry;
  const CUdeviceptr result =
      options && options->discard_result ? r->result : job->slot->device;
  gboolean ok;

  if (cols * x->n_rows == 0) {
    /* No pairs: the counts carried, or zero. */
    const Planes none = { .x_step = 1, .y_step = 1 };
    ok = launch_pairs (r, none, 0, 0, carry, ctx, result, error);
  } else if (x->device && y->device) {
    /* In GPU memory, or memory it maps: read where it lies. */
    const Planes at = {
      .x = x->device + pairs->x_channel * elem,
      .y = y->device + pairs->y_channel * elem,
      .x_pitch = x->stride,
      .y_pitch = y->stride,
      .x_step = pairs->x_channels,
      .y_step = pairs->y_channels,
    };
    ok = launch_pairs (r, at, cols, x->n_rows, carry, ctx, result, error);
  } else {
    ok = count_copied (r, pairs, ctx, carry, result, error);
  }
  if (!ok || !cr_reducer_end_window (r, options, ctx, result, job, error))
    return FALSE;
  CR_CHECK (r->device->cu->EventRecord (job->done, r->device->stream),
      "Recording a CUDA event");
  return TRUE;
}

CrJob *
cr_reducer_submit_pairs (CrReducer *r, const CrPairs *pairs, const guint8 *ctx,
    const CrSubmitOptions *options, GError **error)
{
  g_return_val_if_fail (r->program->pair_bins > 0, NULL);
  g_return_val_if_fail (pairs->x_channel < pairs->x_channels, NULL);
  g_return_val_if_fail (pairs->y_channel < pairs->y_channels, NULL);
  const gsize elem = cr_type_size (r->program->in);
  const gsize x_pixel = elem * pairs->x_channels;
  const gsize y_pixel = elem * pairs->y_channels;
  const CrRegion *x = &pairs->x, *y = &pairs->y;

  if (x->row_bytes % x_pixel != 0 || y->row_bytes % y_pixel != 0) {
    g_set_error (error, CR_ERROR, CR_ERROR_INPUT,
        "The input is %" G_GSIZE_FORMAT " bytes, not a whole number of "
        "pixels of %u %s values (%" G_GSIZE_FORMAT " bytes each)",
        x->row_bytes, pairs->x_channels, cr_type_name (r->program->in),
        x_pixel);
    return NULL;
  }
  if (x->row_bytes / x_pixel != y->row_bytes / y_pixel
      || x->n_rows != y->n_rows) {
    g_set_error (error, CR_ERROR, CR_ERROR_INPUT,
        "The two components of a pair come in rows of different shapes "
        "(%" G_GSIZE_FORMAT " rows of %" G_GSIZE_FORMAT " pixels, and "
        "%" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT ")",
        x->n_rows, x->row_bytes / x_pixel, y->n_rows, y->row_bytes / y_pixel);
    return NULL;
  }
  if (!cr_device_push (r->device, error))
    return NULL;
  if (!cr_reducer_upgrade (r, error)) {
    cr_device_pop (r->device);
    return NULL;
  }
  CrJob *job = cr_reducer_new_job (r,
      (options ? options->rows_before : 0) + x->row_bytes / x_pixel * x->n_rows,
      error);
  if (job && !submit_pairs (r, pairs, ctx, options, job, error)) {
    cr_reducer_recycle_job (r, job);
    job = NULL;
  }
  cr_device_pop (r->device);
  return job;
}
