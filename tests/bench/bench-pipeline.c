/* bench-pipeline.c: the host-to-GPU path through real GStreamer pipelines,
 * against host-to-device copy ceilings measured in the same run, and small
 * buffers from a real source against the pipeline's own cost and level.
 *
 *   bench-pipeline [--csv FILE] [--max-bytes N] [--seconds S]
 *                  [--stream-only] [--cpu-only]
 *
 * An application thread feeds
 *
 *   appsrc ! cudareduce monoid=sum ! fakesink sync=false
 *
 * with audio/x-raw,format=U8,channels=1,rate=48000 (a buffer of B bytes is B
 * samples, and their sum is exact in a guint64), B from 4 KiB to 256 MiB
 * (--max-bytes, default 256 MiB), taking the buffers from three memory
 * sources (bench-sources.c):
 *
 *   pool             memory from cudareduce's answer to an ALLOCATION query
 *                    on appsrc's source pad, used as an appsrc user would;
 *                    absent when the answer has neither a pool nor an
 *                    allocator;
 *   system-recycled  a plain GstBufferPool of ordinary pageable memory,
 *                    recycled as upstream pools recycle;
 *   system-fresh     a new GstMemory for every buffer, wrapping the next
 *                    slice of a large prefaulted region;
 *   pool-depth1      the pool at async-depth=1, at 4 KiB only, when the
 *                    element has the async-depth property.
 *
 * Every memory is filled once, before the timed loop, with pseudo-random
 * bytes whose sum is known, and every result is checked as it is posted
 * (bench-appsrc.c, which also says how a run is timed: from the last
 * warm-up buffer's result to EOS, pushing for --seconds). The figure
 * reported is the median of 3 runs (pipelines), taken in turn across the
 * sources. A mismatch, an ERROR message or a stall fails the benchmark
 * (exit 1). Without a usable GPU or NVRTC it prints why and exits 77
 * (skipped), unless CUDAREDUCE_REQUIRE_GPU=1 or CUDAREDUCE_REQUIRE_NVRTC=1
 * makes that a failure.
 *
 * Ceilings (bench-ceilings.c), per size, before the pipelines run:
 * cuMemcpyHtoDAsync from pinned and from pageable memory.
 *
 * The level peer: F32LE stereo at 48 kHz, sizes 4 KiB to 16 MiB, through
 * `level post-messages=true interval=<buffer duration>` (one message per
 * buffer) and through `cudareduce monoid=sumsq`, from a system-recycled pool
 * of random floats in [-1, 1), timed in the same way. The sync handler
 * counts the messages; cudareduce's must number one per buffer (their
 * timestamps and counts are checked too).
 *
 * The stream (bench-stream.c): audiotestsrc ! F32LE stereo ! ELEMENT !
 * fakesink at 1, 4, 16 and 64 KiB a buffer, ELEMENT identity, level (a
 * message per buffer, and every 100 ms) and cudareduce monoid=sumsq (with
 * messages, without, with tensor output, per channel every 100 ms), in
 * buffers per second, median of 3 runs of about --seconds / 2; and a live
 * source's 10 ms buffers through cudareduce (bench-live.c), from each
 * buffer's arrival at the element to its message, median and 99th
 * percentile. --stream-only runs just this part.
 * --cpu-only runs just its identity and level configurations, and the
 * live case through level, without a GPU: a check of the benchmark itself
 * on any machine.
 *
 * CSV (--csv), one row per measurement, empty fields where not applicable:
 *
 *   kind,source,bytes,gbps,buffers_per_s,ceiling_gbps,ratio,median_us,p99_us
 *
 *   kind=ceiling   source pinned or pageable; gbps the copy rate,
 *                  buffers_per_s copies per second.
 *   kind=pipeline  source pool, pool-depth1, system-recycled or
 *                  system-fresh; gbps and buffers_per_s the median run's;
 *                  ceiling_gbps the pinned ceiling of the same size for the
 *                  pool sources, the pageable one for the system sources;
 *                  ratio = gbps / ceiling_gbps.
 *   kind=level     source level or cudareduce-sumsq (F32LE stereo); gbps
 *                  input bytes per second (samples/s = gbps * 1e9 / 4);
 *                  ratio, on the cudareduce-sumsq row only, its gbps over
 *                  level's at the same size.
 *   kind=stream    source the configuration (identity, level-buffer,
 *                  level-100ms, cudareduce-messages, cudareduce-no-messages,
 *                  cudareduce-tensor, cudareduce-channels-100ms), bytes per
 *                  buffer; buffers_per_s the median run's, gbps the input
 *                  bytes that makes; ratio = buffers_per_s over identity's
 *                  at the same size.
 *   kind=cpu       source "configuration/role" (role: streaming, results,
 *                  src-task or other: bench-threads.h), bytes per buffer;
 *                  median_us the CPU time a buffer took on that role's
 *                  threads, in the timed windows of all runs.
 *   kind=live      source cudareduce-messages (level-buffer with
 *                  --cpu-only), bytes 3840 (10 ms); median_us and p99_us
 *                  the median and 99th percentile of the time from a
 *                  buffer's arrival at the element to its message, in
 *                  microseconds. Only this kind fills those two columns.
 *
 * report-pipeline.py turns that CSV into the Markdown tables of
 * docs/performance.md. */
#include "bench-appsrc.h"
#include "bench-ceilings.h"
#include "bench-stream.h"

#include "cr-cuda.h"
#include "cr-reducer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const gsize u8_sizes[] = { 4 * KIB, 64 * KIB, 1 * MIB, 4 * MIB, 16 * MIB,
  64 * MIB, 256 * MIB };
static const gsize level_sizes[] = { 4 * KIB, 64 * KIB, 1 * MIB, 4 * MIB,
  16 * MIB };
#define N_U8 G_N_ELEMENTS (u8_sizes)
#define N_LEVEL G_N_ELEMENTS (level_sizes)

static const gchar *const u8_caps = "audio/x-raw,format=U8,layout=interleaved,"
                                    "channels=1,rate=48000";
static const gchar *const f32_caps = "audio/x-raw,format=F32LE,"
                                     "layout=interleaved,channels=2,rate=48000";

/* What the summary table shows per size and source. */
typedef struct {
  gboolean have;
  Measure m;
} Cell;

enum { COL_POOL, COL_RECYCLED, COL_FRESH, N_COLS };
static const gchar *const col_names[N_COLS] = { "pool", "system-recycled",
  "system-fresh" };

/* What the appsrc part measured, for the summary. */
typedef struct {
  guint n_sizes, n_level;
  gdouble pinned[N_U8], pageable[N_U8];
  Cell cells[N_U8][N_COLS];
  Cell depth1;
  gchar *no_pool;
  gboolean have_level;
  Cell level_cells[N_LEVEL][2];
} AppsrcResults;

static void
print_measure (const gchar *size, const gchar *source, const Measure *runs,
    const Measure *median, gdouble ceiling, const gchar *ceiling_name)
{
  g_print ("%8s  %-16s %9.3f GB/s %10.0f buf/s  [", size, source, median->gbps,
      median->buffers_per_s);
  for (guint k = 0; k < REPEATS; k++)
    g_print ("%s%.3f", k ? " " : "", runs[k].gbps);
  g_print ("; %" G_GUINT64_FORMAT " timed buffers]", median->buffers);
  if (ceiling_name)
    g_print ("  %.2f of %s", median->gbps / ceiling, ceiling_name);
  g_print ("\n");
}

/* cudareduce monoid=sum on U8 mono from the three sources. */
static void
measure_u8 (AppsrcResults *res, const Region *bytes_region, guint depth,
    gdouble seconds)
{
  g_print ("\ncudareduce monoid=sum on U8 mono: median GB/s and buffers/s "
           "[the %d runs' GB/s; timed buffers] and ratio to the ceiling\n",
      REPEATS);
  GstCaps *caps = gst_caps_from_string (u8_caps);
  for (guint i = 0; i < res->n_sizes; i++) {
    const gsize bytes = u8_sizes[i];
    g_autofree gchar *label = size_label (bytes);
    const guint queue = CLAMP (MIB / bytes, 2, 16);
    RunSpec spec = {
      .element = "cudareduce name=r monoid=sum",
      .caps = u8_caps,
      .bytes = bytes,
      .elements = bytes,
      .frames = bytes,
      .depth = -1,
      .result_name = "cudareduce",
      .check = TRUE,
      .check_sum = TRUE,
      .queue_buffers = queue,
      .pool_buffers = MAX (depth, 1) + queue + 3,
    };
    Source *recycled =
        source_new_recycled (bytes_region, caps, bytes, spec.pool_buffers);
    Source *fresh = source_new_fresh (bytes_region, bytes);
    Measure runs[N_COLS][REPEATS] = { 0 };
    gboolean have_pool = TRUE;

    for (guint rep = 0; rep < REPEATS; rep++) {
      if (have_pool) {
        gchar *why = NULL;
        have_pool = run_pipeline (
            &spec, NULL, bytes_region, seconds, &runs[COL_POOL][rep], &why);
        if (!have_pool && res->no_pool == NULL) {
          res->no_pool = why;
          g_print ("  (no pool source: %s)\n", why);
        } else {
          g_free (why);
        }
      }
      run_pipeline (&spec, recycled, bytes_region, seconds,
          &runs[COL_RECYCLED][rep], NULL);
      run_pipeline (
          &spec, fresh, bytes_region, seconds, &runs[COL_FRESH][rep], NULL);
    }
    for (guint c = 0; c < N_COLS; c++) {
      if (c == COL_POOL && !have_pool)
        continue;
      Cell *cell = &res->cells[i][c];
      cell->have = TRUE;
      cell->m = median_measure (runs[c]);
      gdouble ceiling = c == COL_POOL ? res->pinned[i] : res->pageable[i];
      print_measure (label, col_names[c], runs[c], &cell->m, ceiling,
          c == COL_POOL ? "pinned" : "pageable");
      csv_row ("pipeline", col_names[c], bytes, cell->m.gbps,
          cell->m.buffers_per_s, ceiling, cell->m.gbps / ceiling);
    }
    source_free (recycled);
    source_free (fresh);
  }
  gst_caps_unref (caps);
}

/* The same 4 KiB pool run, one buffer in flight. */
static void
measure_depth1 (AppsrcResults *res, const Region *bytes_region, gdouble seconds)
{
  const guint queue = CLAMP (MIB / u8_sizes[0], 2, 16);
  RunSpec spec = {
    .element = "cudareduce name=r monoid=sum",
    .caps = u8_caps,
    .bytes = u8_sizes[0],
    .elements = u8_sizes[0],
    .frames = u8_sizes[0],
    .depth = 1,
    .result_name = "cudareduce",
    .check = TRUE,
    .check_sum = TRUE,
    .queue_buffers = queue,
    .pool_buffers = 1 + queue + 3,
  };
  Measure runs[REPEATS] = { 0 };
  for (guint rep = 0; rep < REPEATS; rep++) {
    gchar *why = NULL;
    if (!run_pipeline (&spec, NULL, bytes_region, seconds, &runs[rep], &why))
      fail ("the pool went away at async-depth=1: %s", why);
  }
  res->depth1.have = TRUE;
  res->depth1.m = median_measure (runs);
  print_measure (
      "4 KiB", "pool-depth1", runs, &res->depth1.m, res->pinned[0], "pinned");
  csv_row ("pipeline", "pool-depth1", u8_sizes[0], res->depth1.m.gbps,
      res->depth1.m.buffers_per_s, res->pinned[0],
      res->depth1.m.gbps / res->pinned[0]);
}

/* level against cudareduce monoid=sumsq on F32LE stereo. */
static void
measure_level_peer (AppsrcResults *res, guint depth, gdouble seconds)
{
  Region float_region;
  region_init (&float_region, MAX (4 * level_sizes[res->n_level - 1], 64 * MIB),
      TRUE, 0xD1B54A32D192ED03ull);
  GstCaps *caps = gst_caps_from_string (f32_caps);
  g_print ("\nlevel against cudareduce monoid=sumsq on F32LE stereo, from "
           "a system-recycled pool:\n");
  for (guint i = 0; i < res->n_level; i++) {
    const gsize bytes = level_sizes[i];
    g_autofree gchar *label = size_label (bytes);
    const guint queue = CLAMP (MIB / bytes, 2, 16);
    const guint64 frames = bytes / 8;
    g_autofree gchar *level_desc = g_strdup_printf (
        "level name=r post-messages=true interval=%" G_GUINT64_FORMAT,
        gst_util_uint64_scale_ceil (frames, GST_SECOND, RATE));
    RunSpec specs[2] = {
      {
          .element = level_desc,
          .caps = f32_caps,
          .bytes = bytes,
          .elements = bytes / 4,
          .frames = frames,
          .depth = -1,
          .result_name = "level",
          .queue_buffers = queue,
      },
      {
          .element = "cudareduce name=r monoid=sumsq",
          .caps = f32_caps,
          .bytes = bytes,
          .elements = bytes / 4,
          .frames = frames,
          .depth = -1,
          .result_name = "cudareduce",
          .check = TRUE,
          .queue_buffers = queue,
      },
    };
    const guint count = MAX (depth, 1) + queue + 3;
    Source *recycled = source_new_recycled (&float_region, caps, bytes, count);
    Measure runs[2][REPEATS] = { 0 };
    for (guint rep = 0; rep < REPEATS; rep++)
      for (guint c = 0; c < 2; c++)
        run_pipeline (
            &specs[c], recycled, &float_region, seconds, &runs[c][rep], NULL);
    source_free (recycled);
    for (guint c = 0; c < 2; c++) {
      res->level_cells[i][c].have = TRUE;
      res->level_cells[i][c].m = median_measure (runs[c]);
    }
    const Measure *lm = &res->level_cells[i][0].m;
    const Measure *cm = &res->level_cells[i][1].m;
    print_measure (label, "level", runs[0], lm, NAN, NULL);
    /* One message per buffer, and one more at EOS. */
    if (lm->results != lm->pushed && lm->results != lm->pushed + 1)
      g_print ("          (level posted %" G_GUINT64_FORMAT
               " messages for %" G_GUINT64_FORMAT " buffers)\n",
          lm->results, lm->pushed);
    print_measure (label, "cudareduce-sumsq", runs[1], cm, NAN, NULL);
    g_print ("          cudareduce/level: %.2f\n", cm->gbps / lm->gbps);
    csv_row ("level", "level", bytes, lm->gbps, lm->buffers_per_s, NAN, NAN);
    csv_row ("level", "cudareduce-sumsq", bytes, cm->gbps, cm->buffers_per_s,
        NAN, cm->gbps / lm->gbps);
  }
  gst_caps_unref (caps);
  region_clear (&float_region);
}

/* Ceilings, then the appsrc runs. */
static void
measure_appsrc (
    AppsrcResults *res, gboolean have_depth, guint depth, gdouble seconds)
{
  g_autoptr (GError) error = NULL;

  /* Pseudo-random bytes for every U8 buffer: slices of the fresh source,
   * the contents of pool buffers. */
  Region bytes_region;
  region_init (&bytes_region, MAX (4 * u8_sizes[res->n_sizes - 1], 256 * MIB),
      FALSE, 0x9E3779B97F4A7C15ull);
  appsrc_runs_init ();

  if (!measure_ceilings (&bytes_region, u8_sizes, res->n_sizes, res->pinned,
          res->pageable, &error))
    fail ("copy ceilings: %s", error->message);

  g_print ("\nHost-to-device copies (cuMemcpyHtoDAsync), GB/s:\n%8s %9s %9s\n",
      "size", "pinned", "pageable");
  for (guint i = 0; i < res->n_sizes; i++) {
    g_autofree gchar *label = size_label (u8_sizes[i]);
    g_print ("%8s %9.3f %9.3f\n", label, res->pinned[i], res->pageable[i]);
    csv_row ("ceiling", "pinned", u8_sizes[i], res->pinned[i],
        res->pinned[i] * 1e9 / u8_sizes[i], NAN, NAN);
    csv_row ("ceiling", "pageable", u8_sizes[i], res->pageable[i],
        res->pageable[i] * 1e9 / u8_sizes[i], NAN, NAN);
  }

  measure_u8 (res, &bytes_region, depth, seconds);
  if (have_depth && res->cells[0][COL_POOL].have)
    measure_depth1 (res, &bytes_region, seconds);
  if (!res->have_level)
    g_print ("\nlevel: no such element (gst-plugins-good is not installed); "
             "the level comparison is left out\n");
  else
    measure_level_peer (res, depth, seconds);

  region_clear (&bytes_region);
  appsrc_runs_clear ();
}

static void
print_appsrc_summary (const AppsrcResults *res)
{
  g_print ("\nSummary (GB/s; ratios to the pinned / pageable copy ceilings)\n"
           "%8s | %8s %8s %6s | %8s %8s %8s %6s %6s\n",
      "size", "pool", "pinned", "ratio", "recycled", "fresh", "pageable",
      "ratio", "ratio");
  for (guint i = 0; i < res->n_sizes; i++) {
    const Cell *cells = res->cells[i];
    g_autofree gchar *label = size_label (u8_sizes[i]);
    gchar pool[16] = "-", ratio[16] = "-";
    if (cells[COL_POOL].have) {
      g_snprintf (pool, sizeof pool, "%.3f", cells[COL_POOL].m.gbps);
      g_snprintf (
          ratio, sizeof ratio, "%.2f", cells[COL_POOL].m.gbps / res->pinned[i]);
    }
    g_print ("%8s | %8s %8.3f %6s | %8.3f %8.3f %8.3f %6.2f %6.2f\n", label,
        pool, res->pinned[i], ratio, cells[COL_RECYCLED].m.gbps,
        cells[COL_FRESH].m.gbps, res->pageable[i],
        cells[COL_RECYCLED].m.gbps / res->pageable[i],
        cells[COL_FRESH].m.gbps / res->pageable[i]);
  }
  g_print ("Buffers/s at 4 KiB:");
  if (res->cells[0][COL_POOL].have)
    g_print (" pool %.0f,", res->cells[0][COL_POOL].m.buffers_per_s);
  if (res->depth1.have)
    g_print (" pool-depth1 %.0f,", res->depth1.m.buffers_per_s);
  g_print (" system-recycled %.0f, system-fresh %.0f\n",
      res->cells[0][COL_RECYCLED].m.buffers_per_s,
      res->cells[0][COL_FRESH].m.buffers_per_s);
  if (res->no_pool)
    g_print ("No pool column: %s\n", res->no_pool);
  if (res->have_level) {
    g_print ("cudareduce sumsq / level (F32LE stereo):");
    for (guint i = 0; i < res->n_level; i++) {
      g_autofree gchar *label = size_label (level_sizes[i]);
      g_print ("%s %s %.2f", i ? "," : "", label,
          res->level_cells[i][1].m.gbps / res->level_cells[i][0].m.gbps);
    }
    g_print ("\n");
  }
}

int
main (int argc, char **argv)
{
  /* Kernels as a pipeline runs them for good: no fast compile first
   * (GST_CUDAREDUCE_FAST_START, docs/element.md), unless asked for. */
  g_setenv ("GST_CUDAREDUCE_FAST_START", "0", FALSE);
  const gchar *csv_path = NULL;
  gsize max_bytes = 256 * MIB;
  gdouble seconds = 1.0;
  gboolean stream_only = FALSE, cpu_only = FALSE;
  g_autoptr (GError) error = NULL;

  gst_init (&argc, &argv);
  for (int k = 1; k < argc; k++) {
    if (strcmp (argv[k], "--csv") == 0 && k + 1 < argc)
      csv_path = argv[++k];
    else if (strcmp (argv[k], "--max-bytes") == 0 && k + 1 < argc)
      max_bytes = g_ascii_strtoull (argv[++k], NULL, 10);
    else if (strcmp (argv[k], "--seconds") == 0 && k + 1 < argc)
      seconds = g_ascii_strtod (argv[++k], NULL);
    else if (strcmp (argv[k], "--stream-only") == 0)
      stream_only = TRUE;
    else if (strcmp (argv[k], "--cpu-only") == 0)
      cpu_only = TRUE;
    else {
      g_printerr ("usage: %s [--csv FILE] [--max-bytes N] [--seconds S] "
                  "[--stream-only] [--cpu-only]\n",
          argv[0]);
      return 2;
    }
  }
  if (!(seconds > 0) || max_bytes < u8_sizes[0]) {
    g_printerr ("bench-pipeline: --seconds must be positive and --max-bytes "
                "at least %" G_GSIZE_FORMAT "\n",
        u8_sizes[0]);
    return 2;
  }

  /* A GPU, NVRTC and the plugin, or nothing to measure. */
  g_autofree gchar *gpu = NULL;
  gboolean have_depth = FALSE;
  guint depth = 1;
  if (!cpu_only) {
    if (cr_cuda_driver (&error) == NULL)
      skip_or_fail ("CUDAREDUCE_REQUIRE_GPU", "no GPU", error);
    {
      g_autoptr (CrDevice) device = cr_device_open (-1, &error);
      if (device == NULL)
        skip_or_fail ("CUDAREDUCE_REQUIRE_GPU", "no GPU", error);
      gpu = g_strdup_printf (
          "%s (sm_%d)", cr_device_name (device), cr_device_arch (device));
    }
    if (cr_cuda_nvrtc (&error) == NULL)
      skip_or_fail ("CUDAREDUCE_REQUIRE_NVRTC", "no NVRTC", error);
    GstElement *probe = gst_element_factory_make ("cudareduce", NULL);
    if (probe == NULL)
      fail ("there is no cudareduce element; run through Meson (meson test "
            "--benchmark) or point GST_PLUGIN_PATH at build/plugin");
    have_depth = has_property (probe, "async-depth");
    if (have_depth)
      g_object_get (probe, "async-depth", &depth, NULL);
    gst_object_unref (probe);
  }
  GstElementFactory *level = gst_element_factory_find ("level");
  AppsrcResults res = { .have_level = level != NULL };
  if (level)
    gst_object_unref (level);

  while (res.n_sizes < N_U8 && u8_sizes[res.n_sizes] <= max_bytes)
    res.n_sizes++;
  while (res.n_level < N_LEVEL && level_sizes[res.n_level] <= max_bytes)
    res.n_level++;

  if (cpu_only)
    g_print ("No GPU needed (--cpu-only): identity and level only\n");
  else
    g_print ("GPU: %s; cudareduce async-depth: %s%u; %.2f s per run, "
             "median of %d runs\n",
        gpu, have_depth ? "" : "no such property, synchronous, taken as ",
        MAX (depth, 1), seconds, REPEATS);

  if (csv_path)
    csv_open (csv_path);
  if (!stream_only && !cpu_only)
    measure_appsrc (&res, have_depth, depth, seconds);
  StreamBench *stream = stream_bench_run (seconds, cpu_only);

  if (!stream_only && !cpu_only)
    print_appsrc_summary (&res);
  stream_bench_print_targets (stream);
  if (csv_path)
    g_print ("Table: %s\n", csv_path);

  csv_close ();
  stream_bench_free (stream);
  g_free (res.no_pool);
  return 0;
}
