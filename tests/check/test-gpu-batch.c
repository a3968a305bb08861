/* test-gpu-batch.c: small reductions gathered and launched together.
 *
 * The engine's batches, against sums computed on the CPU from fresh random
 * data: every size from empty to the largest gathered, unaligned starts,
 * pageable data (copied) and pinned data (read in place), 1 to 256
 * channels, chains that carry state from one reduction to the next and
 * across launches of either kind, hops of sliding windows whose states
 * the batch kernel keeps, batches that fill up; frames in GPU memory of
 * up to megabytes, pitched or packed, gathered into batches of their own
 * among the others; and the element gathering buffers that arrive while
 * the GPU is busy. */
#include "cr-batch.h"
#include "cr-test-main.h"

#include <string.h>

static GRand *rand_;

typedef struct {
  CrDevice *device;
  CrProgram *program;
  CrReducer *reducer;
  guint8 ctx[16];
} Engine;

/* The sum monoid on int32: an int64 accumulator, exact. With @hops of 2 or
 * more, a sliding window of that many hops. */
static void
engine_init_window (Engine *e, guint channels, guint hops)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CrMonoid) monoid = cr_monoid_load ("sum", &error);
  fail_unless (monoid != NULL, "%s", error ? error->message : "");
  e->device = cr_device_open (-1, &error);
  fail_unless (e->device != NULL, "%s", error ? error->message : "");
  e->program = cr_program_new_with (monoid, CR_TYPE_INT32,
      (channels > 1 ? CR_KERNELS_ALL : CR_KERNELS_PITCHED)
          | (hops > 1 ? CR_KERNELS_WINDOW : 0));
  e->reducer = cr_reducer_new (e->device, e->program, NULL, &error);
  fail_unless (e->reducer != NULL, "%s", error ? error->message : "");
  fail_unless (cr_reducer_set_channels (e->reducer, channels, &error));
  fail_unless (cr_reducer_set_window (e->reducer, hops, &error), "%s",
      error ? error->message : "");
  memset (e->ctx, 0, sizeof e->ctx);
}

static void
engine_init (Engine *e, guint channels)
{
  engine_init_window (e, channels, 0);
}

static void
engine_clear (Engine *e)
{
  cr_reducer_free (e->reducer);
  cr_program_free (e->program);
  cr_device_unref (e->device);
}

/* One reduction's input and what it should give. */
typedef struct {
  guint8 *block; /* g_malloc'd, or pinned */
  gboolean pinned;
  CUdeviceptr device;
  /* A frame in GPU memory (device, allocated): lines of rows / lines
   * elements, pitch bytes apart; block holds the host's copy. 0: none. */
  gsize lines, pitch;
  gsize offset; /* of the data in the block, in bytes */
  gsize rows;
  CrSubmitOptions options;
  gint64 want[256]; /* per channel, carried state included */
  guint64 want_count;
  guint result;
} Item;

static void
item_fill (Engine *e, Item *it, guint channels, gsize rows, gboolean pinned,
    const gint64 *carried, guint64 rows_before)
{
  const gsize bytes = rows * channels * 4;
  g_autoptr (GError) error = NULL;

  it->rows = rows;
  it->pinned = pinned;
  /* Any 4-byte boundary: the kernel reads up to its first 16 bytes one by
   * one. */
  it->offset = 4 * g_rand_int_range (rand_, 0, 4);
  if (pinned) {
    it->block = cr_device_host_alloc (
        e->device, bytes + it->offset, &it->device, &error);
    fail_unless (it->block != NULL, "%s", error ? error->message : "");
  } else {
    it->block = g_malloc (bytes + it->offset + 1);
  }
  gint32 *data = (gint32 *)(it->block + it->offset);
  cr_test_fill_random (rand_, CR_TYPE_INT32, data, rows * channels);
  for (guint c = 0; c < channels; c++)
    it->want[c] = carried ? carried[c] : 0;
  for (gsize r = 0; r < rows; r++)
    for (guint c = 0; c < channels; c++)
      it->want[c] += data[r * channels + c];
  it->want_count = (rows_before + rows) * channels;
}

/* @it as a frame in GPU memory: @lines lines of @width int32 elements,
 * @pad bytes of random padding after each, which no sum counts. */
static void
frame_fill (Engine *e, Item *it, gsize width, gsize lines, gsize pad,
    const gint64 *carried, guint64 rows_before)
{
  const CrDriver *cu = e->device->cu;
  g_autoptr (GError) error = NULL;

  it->rows = width * lines;
  it->lines = lines;
  it->pitch = width * 4 + pad;
  it->block = g_malloc (it->pitch * lines);
  cr_test_fill_random (rand_, CR_TYPE_INT32, it->block, it->pitch * lines / 4);
  it->want[0] = carried ? carried[0] : 0;
  for (gsize l = 0; l < lines; l++)
    for (gsize x = 0; x < width; x++)
      it->want[0] += ((const gint32 *)(it->block + l * it->pitch))[x];
  it->want_count = rows_before + it->rows;
  fail_unless (cr_device_push (e->device, &error), "%s", error->message);
  fail_unless_equals_int (cu->MemAlloc (&it->device, it->pitch * lines), 0);
  fail_unless_equals_int (cu->MemcpyHtoDAsync (it->device, it->block,
                              it->pitch * lines, e->device->stream),
      0);
  fail_unless (cr_device_sync (e->device, &error), "%s", error->message);
  cr_device_pop (e->device);
}

static void
item_clear (Engine *e, Item *it)
{
  if (it->lines) {
    g_autoptr (GError) error = NULL;
    fail_unless (cr_device_push (e->device, &error), "%s", error->message);
    e->device->cu->MemFree (it->device);
    cr_device_pop (e->device);
    g_free (it->block);
  } else if (it->pinned)
    cr_device_host_free (e->device, it->block);
  else
    g_free (it->block);
}

static CrRegion
item_region (const Item *it, guint channels)
{
  if (it->lines) {
    const CrRegion frame = {
      .row_bytes = it->rows / it->lines * 4,
      .n_rows = it->lines,
      .stride = it->pitch,
      .device = it->device,
    };
    return frame;
  }
  CrRegion region = {
    .data = it->block + it->offset,
    .row_bytes = it->rows * channels * 4,
    .n_rows = 1,
  };
  region.stride = region.row_bytes;
  if (it->pinned)
    region.device = it->device + it->offset;
  return region;
}

static void
check_result (const Item *it, const guint8 *out, guint64 count, guint channels,
    const gchar *what, guint k)
{
  fail_unless_equals_uint64 (count, it->want_count);
  for (guint c = 0; c < channels; c++) {
    gint64 got;
    memcpy (&got, out + c * 8, 8);
    fail_unless (got == it->want[c],
        "%s, reduction %u, channel %u: sum %" G_GINT64_FORMAT
        ", reference %" G_GINT64_FORMAT,
        what, k, c, got, it->want[c]);
  }
}

/* Random independent reductions, gathered until the batch refuses one,
 * then launched; every result checked. */
static void
independent_batches (guint channels, gboolean pinned)
{
  g_autofree gchar *what = g_strdup_printf (
      "%u channels, %s memory", channels, pinned ? "pinned" : "pageable");
  enum { N = 300 };
  const gsize max_rows = CR_GATHER_MAX_BYTES / (4 * channels);
  Engine e;
  Item *items = g_new0 (Item, N);
  guint8 out[256 * 8];

  engine_init (&e, channels);
  guint k = 0;
  while (k < N) {
    guint start = k;
    for (; k < N; k++) {
      /* Empty, tiny, and up to the largest gathered. */
      gsize rows = k % 17 == 0 ? 0
          : k % 5 == 0         ? max_rows
                       : (gsize)g_rand_int_range (rand_, 1, max_rows + 1);
      item_fill (&e, &items[k], channels, rows, pinned, NULL, 0);
      CrRegion region = item_region (&items[k], channels);
      g_autoptr (GError) error = NULL;
      fail_unless (cr_reducer_can_gather (e.reducer, &region), "%s", what);
      if (!cr_reducer_gather (
              e.reducer, &region, e.ctx, NULL, &items[k].result, &error)) {
        fail_unless (error == NULL, "%s: %s", what, error->message);
        item_clear (&e, &items[k]);
        break;
      }
    }
    fail_unless (k > start, "%s: an empty batch refused a reduction", what);
    fail_unless (k - start <= CR_BATCH_MAX);
    g_autoptr (GError) error = NULL;
    g_autoptr (CrJob) job = cr_reducer_launch_gathered (e.reducer, &error);
    fail_unless (job != NULL, "%s: %s", what, error ? error->message : "");
    fail_unless (
        cr_job_wait (job, &error), "%s: %s", what, error ? error->message : "");
    fail_unless_equals_int (cr_job_n_results (job), k - start);
    for (guint j = start; j < k; j++) {
      guint64 count = 0;
      fail_unless_equals_int (items[j].result, j - start);
      cr_job_read (job, items[j].result, out, &count);
      check_result (&items[j], out, count, channels, what, j);
      item_clear (&e, &items[j]);
    }
  }
  g_free (items);
  engine_clear (&e);
}

GST_START_TEST (test_batch_one_channel)
{
  independent_batches (1, FALSE);
}

GST_END_TEST;

GST_START_TEST (test_batch_channels)
{
  static const guint counts[] = { 2, 3, 6, 7, 64, 256 };
  for (guint k = 0; k < G_N_ELEMENTS (counts); k++)
    independent_batches (counts[k], FALSE);
}

GST_END_TEST;

GST_START_TEST (test_batch_pinned_in_place)
{
  independent_batches (1, TRUE);
  independent_batches (3, TRUE);
}

GST_END_TEST;

/* A sliding window's hops so far: each one's totals and rows. */
typedef struct {
  guint hops; /* the window's; 0: none */
  guint64 n; /* hops ended */
  guint64 base; /* rows of the hops ended */
  gint64 (*sums)[256];
  guint64 *rows;
} Hops;

/* @it ends hop h->n: its result is the window's, the last hops' sums. */
static void
end_hop (Hops *h, Item *it, guint channels)
{
  const guint64 rows = it->options.rows_before + it->rows - h->base;
  const guint span = (guint)MIN (h->n + 1, h->hops);

  memcpy (h->sums[h->n], it->want, sizeof h->sums[h->n]);
  h->rows[h->n] = rows;
  it->options.hop = h->n;
  it->options.window_hops = span;
  it->want_count = 0;
  for (guint c = 0; c < channels; c++)
    it->want[c] = 0;
  for (guint64 j = h->n + 1 - span; j <= h->n; j++) {
    for (guint c = 0; c < channels; c++)
      it->want[c] += h->sums[j][c];
    it->want_count += h->rows[j] * channels;
  }
  h->base += rows;
  h->n++;
}

/* Results that span reductions, as intervals give them: chains of random
 * length, some reductions keeping no result, with the state passing within
 * a batch, from a batch to a launch of its own and back. With @hops, each
 * result ends a hop of a sliding window of that many, and spans the last
 * hops: kept in the ring and combined in a batch, or by a launch of its
 * own, in any order. With @frames (one channel), three in four are frames
 * in GPU memory of up to 2.5 MB, pitched or packed, whose batches are
 * another kernel's: the state passes between the two kinds too. */
static void
chained_window_frames (guint channels, guint hops, gboolean frames)
{
  g_autofree gchar *what =
      g_strdup_printf ("chains, %u channels, window of %u hops%s", channels,
          hops, frames ? ", frames in GPU memory" : "");
  enum { N = 400 };
  /* Frames of up to 2.5 MB; under compute-sanitizer, which checks every
   * load, of up to 320 KB (still several blocks a frame). */
  const gint max_lines = g_getenv ("CUDAREDUCE_UNDER_SANITIZER") ? 40 : 300;
  Engine e;
  Item *items = g_new0 (Item, N);
  CrJob **jobs = g_new0 (CrJob *, N);
  guint8 out[256 * 8];
  gint64 carried[256];
  guint64 rows_before = 0;
  gboolean open = FALSE;
  GPtrArray *batch = g_ptr_array_new ();
  Hops h = { .hops = hops,
    .sums = g_malloc0 (N * sizeof *h.sums),
    .rows = g_new0 (guint64, N) };

  engine_init_window (&e, channels, hops);
  for (guint k = 0; k < N; k++) {
    Item *it = &items[k];
    g_autoptr (GError) error = NULL;
    gsize rows = g_rand_int_range (rand_, 0, 2000 / channels + 2);
    gboolean ends = g_rand_int_range (rand_, 0, 4) == 0;
    it->options.carry = open;
    /* In a window, rows count from its start afresh. */
    it->options.window_base = hops ? h.base : 0;
    it->options.rows_before = open ? rows_before : it->options.window_base;
    it->options.discard_result = !ends;
    if (frames && k % 4 != 1) {
      /* Lines of whole 16-byte loads, up to 2048 elements; a fifth are
       * packed, the rest padded by up to 48 bytes. */
      const gsize width = 4 * g_rand_int_range (rand_, 1, 513);
      const gsize pad =
          k % 5 == 0 ? 0 : 16 * (gsize)g_rand_int_range (rand_, 1, 4);
      frame_fill (&e, it, width, g_rand_int_range (rand_, 1, max_lines + 1),
          pad, open ? carried : NULL, it->options.rows_before);
      rows = it->rows;
    } else {
      item_fill (&e, it, channels, rows, k % 3 == 0, open ? carried : NULL,
          it->options.rows_before);
    }
    memcpy (carried, it->want, sizeof carried);
    if (ends && hops)
      end_hop (&h, it, channels);
    CrRegion region = item_region (it, channels);
    fail_unless (!it->lines || cr_reducer_can_gather (e.reducer, &region),
        "%s: a frame of %" G_GSIZE_FORMAT " lines of %" G_GSIZE_FORMAT
        " bytes, %" G_GSIZE_FORMAT " apart, cannot be gathered",
        what, region.n_rows, region.row_bytes, region.stride);
    /* One in eight launches alone, the rest gather. */
    if (k % 8 == 5) {
      if (cr_reducer_n_gathered (e.reducer) > 0) {
        CrJob *job = cr_reducer_launch_gathered (e.reducer, &error);
        fail_unless (job != NULL);
        for (guint j = 0; j < batch->len; j++)
          jobs[GPOINTER_TO_UINT (g_ptr_array_index (batch, j))] =
              cr_job_ref (job);
        g_ptr_array_set_size (batch, 0);
        cr_job_unref (job);
      }
      jobs[k] =
          cr_reducer_submit (e.reducer, &region, e.ctx, &it->options, &error);
      fail_unless (
          jobs[k] != NULL, "%s: %s", what, error ? error->message : "");
      it->result = 0;
    } else {
      gboolean ok = cr_reducer_gather (
          e.reducer, &region, e.ctx, &it->options, &it->result, &error);
      if (!ok) {
        fail_unless (error == NULL);
        CrJob *job = cr_reducer_launch_gathered (e.reducer, &error);
        fail_unless (job != NULL);
        for (guint j = 0; j < batch->len; j++)
          jobs[GPOINTER_TO_UINT (g_ptr_array_index (batch, j))] =
              cr_job_ref (job);
        g_ptr_array_set_size (batch, 0);
        cr_job_unref (job);
        fail_unless (cr_reducer_gather (
            e.reducer, &region, e.ctx, &it->options, &it->result, &error));
      }
      g_ptr_array_add (batch, GUINT_TO_POINTER (k));
      if (!ends)
        fail_unless_equals_int (it->result, G_MAXUINT);
    }
    rows_before = it->options.rows_before + rows;
    open = !ends;
  }
  if (cr_reducer_n_gathered (e.reducer) > 0) {
    g_autoptr (GError) error = NULL;
    CrJob *job = cr_reducer_launch_gathered (e.reducer, &error);
    fail_unless (job != NULL);
    for (guint j = 0; j < batch->len; j++)
      jobs[GPOINTER_TO_UINT (g_ptr_array_index (batch, j))] = cr_job_ref (job);
    cr_job_unref (job);
  }
  for (guint k = 0; k < N; k++) {
    g_autoptr (GError) error = NULL;
    fail_unless (jobs[k] != NULL);
    fail_unless (cr_job_wait (jobs[k], &error), "%s: %s", what,
        error ? error->message : "");
    if (!items[k].options.discard_result) {
      guint64 count = 0;
      cr_job_read (jobs[k], items[k].result, out, &count);
      check_result (&items[k], out, count, channels, what, k);
    }
  }
  for (guint k = 0; k < N; k++) {
    cr_job_unref (jobs[k]);
    item_clear (&e, &items[k]);
  }
  g_ptr_array_unref (batch);
  g_free (h.sums);
  g_free (h.rows);
  g_free (jobs);
  g_free (items);
  engine_clear (&e);
}

static void
chained_window (guint channels, guint hops)
{
  chained_window_frames (channels, hops, FALSE);
}

GST_START_TEST (test_batch_chains)
{
  chained_window (1, 0);
  chained_window (2, 0);
  chained_window (5, 0);
}

GST_END_TEST;

/* Hops of sliding windows ending in batches, in launches of their own, and
 * both in turn; more hops than a batch holds, and windows longer than
 * the chains. */
GST_START_TEST (test_batch_window_hops)
{
  chained_window (1, 3);
  chained_window (2, 2);
  chained_window (6, 5);
  chained_window (3, 70);
}

GST_END_TEST;

/* Frames in GPU memory gathered into batches, mixed with small segments
 * and launches of their own: independent results, chains, and hops of
 * sliding windows. */
GST_START_TEST (test_batch_frames_in_gpu_memory)
{
  chained_window_frames (1, 0, TRUE);
  chained_window_frames (1, 3, TRUE);
  chained_window_frames (1, 40, TRUE);
}

GST_END_TEST;

/* The element: buffers pushed faster than launches complete are gathered;
 * every result is still the buffer's own, in order. */
GST_START_TEST (test_element_gathers_small_buffers)
{
  enum { N = 2000 };
  GstHarness *h = cr_test_harness (cr_test_tensor_caps (CR_TYPE_INT32, 1),
      "monoid", "sum", "async-depth", "64", NULL);
  gint64 *sums = g_new0 (gint64, N);
  guint *sizes = g_new0 (guint, N);

  guint batches = 0;
  cr_test_count_batches_start ();
  for (guint k = 0; k < N; k++) {
    sizes[k] = g_rand_int_range (rand_, 1, 4096);
    GstBuffer *buf = gst_buffer_new_allocate (NULL, sizes[k] * 4, NULL);
    GstMapInfo map;
    fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
    cr_test_fill_random (rand_, CR_TYPE_INT32, map.data, sizes[k]);
    for (guint i = 0; i < sizes[k]; i++)
      sums[k] += cr_test_get_int64 (CR_TYPE_INT32, map.data, i);
    gst_buffer_unmap (buf, &map);
    GST_BUFFER_PTS (buf) = k * GST_MSECOND;
    cr_test_push_ok (h, buf, "small buffers");
  }
  for (guint k = 0; k < N; k++) {
    GstStructure *s = cr_test_pop_result (h);
    guint64 ts = 0, count = 0;
    gint64 sum = 0;
    fail_unless (gst_structure_get_uint64 (s, "timestamp", &ts));
    fail_unless_equals_uint64 (ts, k * GST_MSECOND);
    fail_unless (gst_structure_get_int64 (s, "sum", &sum));
    fail_unless (gst_structure_get_uint64 (s, "count", &count));
    fail_unless_equals_uint64 (count, sizes[k]);
    fail_unless (sum == sums[k],
        "buffer %u: sum %" G_GINT64_FORMAT ", reference %" G_GINT64_FORMAT, k,
        sum, sums[k]);
    gst_structure_free (s);
    GstBuffer *out = gst_harness_pull (h);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), k * GST_MSECOND);
    gst_buffer_unref (out);
  }
  cr_test_count_batches_stop (&batches, NULL);
  /* The harness pushes from this thread far faster than one launch a
   * buffer; if nothing was ever gathered, batching does not work. */
  fail_unless (batches > 0, "no launch gathered more than one buffer");
  g_free (sums);
  g_free (sizes);
  gst_harness_teardown (h);
}

GST_END_TEST;

static const CrTestCase cases[] = {
  CR_TEST_CASE (test_batch_one_channel),
  CR_TEST_CASE (test_batch_channels),
  CR_TEST_CASE (test_batch_pinned_in_place),
  CR_TEST_CASE (test_batch_chains),
  CR_TEST_CASE (test_batch_window_hops),
  CR_TEST_CASE (test_batch_frames_in_gpu_memory),
  CR_TEST_CASE (test_element_gathers_small_buffers),
  { NULL },
};

static const CrGpuTest gpu_batch = {
  .name = "gpu-batch",
  .timeout = 300,
  .rand = &rand_,
  .cases = cases,
};

CR_TEST_GPU_MAIN (gpu_batch);
