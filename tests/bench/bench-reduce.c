/* bench-reduce.c: throughput of the engine's kernels on data already in
 * device memory, against ceilings measured in the same run: CUB's
 * DeviceReduce::Sum over the same bytes, CUB's own equivalent of each
 * monoid where one exists, and a device-to-device copy. Also the cost of
 * getting a kernel: a cold compile and a warm start from the disk cache in a
 * new process. Every result is checked against a CPU reference; a wrong one
 * fails the run.
 *
 *   bench-reduce [--max-bytes N] [--csv FILE] [--compile-csv FILE]
 *                [--channels-csv FILE] [--fused-csv FILE] [--channels-only]
 *
 * Per-channel results (2, 3, 6 and 1024 channels) are timed against the
 * single result on the same bytes in the same run, and checked per channel.
 * Fused monoids are timed against their members (bench-fused.c). Cold
 * compiles cover every built-in, single and per channel, and fused
 * programs.
 *
 * GB/s is input bytes over the median time of one reduction (CUDA events
 * around batches of back-to-back launches, after warm-up), rotating over a
 * region of several times the L2 cache so that the cache is not measured. */
#include "bench-dir.h"
#include "bench-reduce.h"
#include "cr-compiler.h"
#include "cr-error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN_BYTES BENCH_MIN_BYTES
#define REGION_MIN (512u << 20) /* several times the H200's 60 MB L2 */
#define BATCHES 15
#define WARMUP 3

typedef struct {
  const gchar *label;
  const gchar *monoid; /* a built-in, or NULL for the inline one */
  CrType type;
  gdouble threshold;
  gint cub_op; /* CrCubOp, or -1 */
} Case;

/* A user's monoid as the element's inline properties would give it. */
static const CrMonoidText inline_abs_sum = {
  .name = "abs_sum",
  .accumulator = "l1:wide",
  .load = "Acc r; r.l1 = x < 0 ? -(wide) x : (wide) x; return r;",
  .combine = "Acc r; r.l1 = a.l1 + b.l1; return r;",
  .identity = "Acc r; r.l1 = 0; return r;",
};

#ifndef CR_HAVE_CUB
enum {
  CR_CUB_SUM_INT32,
  CR_CUB_SUM_WIDE_INT32,
  CR_CUB_SUM_FLOAT32,
  CR_CUB_SUMSQ_INT32,
  CR_CUB_MINMAX_FLOAT32,
  CR_CUB_MEAN_VAR_FLOAT32,
  CR_CUB_COUNT_GT_FLOAT32,
  CR_CUB_ARGMAX_FLOAT32,
};
#endif

static const Case cases[] = {
  { "sum", "sum", CR_TYPE_INT32, 0, CR_CUB_SUM_WIDE_INT32 },
  { "sum", "sum", CR_TYPE_FLOAT32, 0, CR_CUB_SUM_FLOAT32 },
  { "sumsq", "sumsq", CR_TYPE_INT32, 0, CR_CUB_SUMSQ_INT32 },
  { "minmax", "minmax", CR_TYPE_FLOAT32, 0, CR_CUB_MINMAX_FLOAT32 },
  { "mean_var", "mean_var", CR_TYPE_FLOAT32, 0, CR_CUB_MEAN_VAR_FLOAT32 },
  { "count_gt", "count_gt", CR_TYPE_FLOAT32, 100.5, CR_CUB_COUNT_GT_FLOAT32 },
  { "argmax", "argmax", CR_TYPE_FLOAT32, 0, CR_CUB_ARGMAX_FLOAT32 },
  { "inline abs_sum", NULL, CR_TYPE_FLOAT32, 0, -1 },
};

void
die (const gchar *what, GError *error)
{
  g_printerr ("bench-reduce: %s: %s\n", what, error ? error->message : "");
  exit (1);
}

void
check_cu (CUresult res, const gchar *what)
{
  if (res != CUDA_SUCCESS) {
    g_autofree gchar *desc = cr_cuda_describe (res);
    g_printerr ("bench-reduce: %s: %s\n", what, desc);
    exit (1);
  }
}

gint
region_of (CrType type)
{
  return type == CR_TYPE_INT32 ? 0 : 1;
}

/* Random data: int32 in [-2^15, 2^15) so that sums of squares of a GiB
 * stay inside int64; float32 in [-1000, 1000). */
static void
fill (guint8 *data, gsize bytes, gint which, guint64 seed)
{
  guint64 s = seed | 1;
  for (gsize k = 0; k < bytes / 4; k++) {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    guint64 r = s * 0x2545F4914F6CDD1Dull;
    if (which == 0) {
      gint32 v = (gint32)(r >> 48) - 32768;
      memcpy (data + 4 * k, &v, 4);
    } else {
      gfloat v = (gfloat)((r >> 11) * (2000.0 / 9007199254740992.0) - 1000.0);
      memcpy (data + 4 * k, &v, 4);
    }
  }
}

gdouble
time_launches (
    Bench *b, LaunchFn launch, gpointer data, gint which, gsize bytes)
{
  const gsize n = bytes / 4;
  const guint buffers = MAX (2, b->region_bytes / bytes);
  const guint per_batch = CLAMP ((64u << 20) / bytes, 1, 200);
  gdouble times[BATCHES];
  guint next = 0;

  for (guint w = 0; w < WARMUP; w++)
    launch (b, data, b->region[which] + (next++ % buffers) * bytes, n);
  for (guint t = 0; t < BATCHES; t++) {
    gfloat ms = 0;
    check_cu (b->cu->EventRecord (b->start, b->stream), "event");
    for (guint l = 0; l < per_batch; l++)
      launch (b, data, b->region[which] + (next++ % buffers) * bytes, n);
    check_cu (b->cu->EventRecord (b->end, b->stream), "event");
    check_cu (b->cu->EventSynchronize (b->end), "synchronize");
    check_cu (b->cu->EventElapsedTime (&ms, b->start, b->end), "elapsed");
    times[t] = ms * 1e-3 / per_batch;
  }
  for (guint i = 1; i < BATCHES; i++)
    for (guint j = i; j > 0 && times[j] < times[j - 1]; j--) {
      gdouble tmp = times[j];
      times[j] = times[j - 1];
      times[j - 1] = tmp;
    }
  return times[BATCHES / 2];
}

void
launch_ours (Bench *b, gpointer data, CUdeviceptr in, gsize n)
{
  OurLaunch *our = data;
  g_autoptr (GError) error = NULL;
  if (!cr_reducer_reduce_device (our->reducer, in, n, our->ctx, NULL, &error))
    die ("reduction", error);
}

void
launch_copy (Bench *b, gpointer data, CUdeviceptr in, gsize n)
{
  check_cu (b->cu->MemcpyDtoDAsync (b->copy_dst, in, n * 4, b->stream), "copy");
}

#ifdef CR_HAVE_CUB
typedef struct {
  CrCubOp op;
  gdouble threshold;
} CubLaunch;

static void
launch_cub (Bench *b, gpointer data, CUdeviceptr in, gsize n)
{
  CubLaunch *cub = data;
  gsize bytes = b->temp_bytes;
  int res = cr_cub_reduce (cub->op, (const void *)in, n, (void *)b->scratch,
      (void *)b->temp, &bytes, b->stream, cub->threshold);
  if (res != 0) {
    g_printerr (
        "bench-reduce: CUB %s failed: %d\n", cr_cub_describe (cub->op), res);
    exit (1);
  }
}

gdouble
time_cub (Bench *b, CrCubOp op, gdouble threshold, gint which, gsize bytes)
{
  CubLaunch cub = { op, threshold };
  gsize need = 0;
  if (cr_cub_reduce (
          op, NULL, bytes / 4, NULL, NULL, &need, b->stream, threshold)
      != 0)
    die ("CUB temp storage query", NULL);
  if (need > b->temp_bytes) {
    if (b->temp)
      b->cu->MemFree (b->temp);
    check_cu (b->cu->MemAlloc (&b->temp, need), "CUB temp storage");
    b->temp_bytes = need;
  }
  return time_launches (b, launch_cub, &cub, which, bytes);
}
#endif

/* The reference for @c over @n elements at @data, laid out as the program's
 * Out, compared with @got; prints and returns FALSE on a mismatch. */
static gboolean
check_result (const Case *c, const CrProgram *p, const guint8 *data, gsize n,
    const guint8 *got)
{
  const gfloat *f = (const gfloat *)data;
  const gint32 *i = (const gint32 *)data;
  gdouble want[2] = { 0, 0 }, tolerance[2] = { 0, 0 };
  gdouble got_v[2];
  gdouble abs_sum = 0;

  for (guint k = 0; k < p->out.n_fields && k < 2; k++) {
    GValue v = G_VALUE_INIT, d = G_VALUE_INIT;
    cr_type_to_gvalue (p->out.types[k], got + p->out.offsets[k], &v);
    g_value_init (&d, G_TYPE_DOUBLE);
    g_value_transform (&v, &d);
    got_v[k] = g_value_get_double (&d);
  }
  if (c->type == CR_TYPE_INT32) {
    gint64 s = 0, q = 0;
    for (gsize k = 0; k < n; k++) {
      s += i[k];
      q += (gint64)i[k] * i[k];
    }
    want[0] = (gdouble)s;
    want[1] = (gdouble)q;
  } else if (strcmp (c->label, "sum") == 0
      || strcmp (c->label, "inline abs_sum") == 0) {
    gboolean absolute = c->monoid == NULL;
    long double s = 0;
    for (gsize k = 0; k < n; k++) {
      s += absolute ? fabsf (f[k]) : f[k];
      abs_sum += fabsf (f[k]);
    }
    want[0] = (gdouble)s;
    tolerance[0] = 1e-10 * abs_sum + 1e-300;
  } else if (strcmp (c->label, "minmax") == 0) {
    want[0] = INFINITY;
    want[1] = -INFINITY;
    for (gsize k = 0; k < n; k++) {
      want[0] = MIN (want[0], f[k]);
      want[1] = MAX (want[1], f[k]);
    }
  } else if (strcmp (c->label, "mean_var") == 0) {
    long double s = 0, m, q = 0;
    for (gsize k = 0; k < n; k++)
      s += f[k];
    m = n ? s / n : 0;
    for (gsize k = 0; k < n; k++)
      q += (f[k] - m) * (f[k] - m);
    want[0] = (gdouble)m;
    want[1] = n ? (gdouble)(q / n) : 0;
    tolerance[0] = 1e-9 * 1000;
    tolerance[1] = 1e-9 * want[1] + 1e-9;
  } else if (strcmp (c->label, "count_gt") == 0) {
    for (gsize k = 0; k < n; k++)
      want[0] += f[k] > c->threshold;
  } else if (strcmp (c->label, "argmax") == 0) {
    want[0] = -INFINITY;
    for (gsize k = 0; k < n; k++)
      if (f[k] > want[0]) {
        want[0] = f[k];
        want[1] = (gdouble)k;
      }
  }
  gboolean ok = TRUE;
  for (guint k = 0; k < p->out.n_fields && k < 2; k++) {
    if (fabs (got_v[k] - want[k]) > tolerance[k]) {
      g_printerr ("WRONG: %s on %s, %" G_GSIZE_FORMAT " elements: %s = %.17g, "
                  "reference %.17g\n",
          c->label, cr_type_name (c->type), n, p->out.names[k], got_v[k],
          want[k]);
      ok = FALSE;
    }
  }
  return ok;
}

static CrMonoid *
case_monoid (const Case *c)
{
  g_autoptr (GError) error = NULL;
  CrMonoid *m = c->monoid ? cr_monoid_load (c->monoid, &error)
                          : cr_monoid_new (&inline_abs_sum, "bench", &error);
  if (m == NULL)
    die (c->label, error);
  return m;
}

static void
run_case (Bench *b, const Case *c, gsize max_bytes, FILE *csv,
    const gdouble *cub_sum, const gdouble *copy)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CrMonoid) monoid = case_monoid (c);
  g_autoptr (CrProgram) program = cr_program_new (monoid, c->type);
  g_autoptr (CrReducer) reducer =
      cr_reducer_new (b->device, program, NULL, &error);
  g_autofree guint8 *ctx = g_malloc0 (program->ctx.size);
  g_autofree guint8 *out = g_malloc0 (program->out.size);
  const gint which = region_of (c->type);

  if (reducer == NULL)
    die (c->label, error);
  g_autofree gchar *shape = cr_reducer_describe (reducer);
  g_print ("# %s on %s: %s\n", c->label, cr_type_name (c->type), shape);
  if (!cr_program_pack_context (program, c->threshold, NULL, ctx, &error))
    die (c->label, error);
  OurLaunch our = { reducer, ctx };

  guint row = 0;
  for (gsize bytes = MIN_BYTES; bytes <= max_bytes; bytes *= 4, row++) {
    gdouble t = time_launches (b, launch_ours, &our, which, bytes);
    gdouble gbs = bytes / t * 1e-9;
    gdouble equiv = NAN;
#ifdef CR_HAVE_CUB
    if (c->cub_op >= 0) {
      if (!cr_device_push (b->device, &error))
        die ("context", error);
      equiv =
          bytes / time_cub (b, c->cub_op, c->threshold, which, bytes) * 1e-9;
      cr_device_pop (b->device);
    }
#endif
    /* Checked on the first buffer of the region, against the host copy. */
    if (!cr_reducer_reduce_device (
            reducer, b->region[which], bytes / 4, ctx, out, &error))
      die (c->label, error);
    gboolean ok = check_result (c, program, b->host[which], bytes / 4, out);
    b->failed |= !ok;

    gdouble ratio = gbs / cub_sum[row];
    g_print ("%-15s %-8s %10" G_GSIZE_FORMAT " %9.1f %9.1f %6.2f %9.1f %6.2f "
             "%9.1f  %s\n",
        c->label, cr_type_name (c->type), bytes, gbs, cub_sum[row], ratio,
        equiv, gbs / equiv, copy[row], ok ? "ok" : "WRONG");
    fprintf (csv,
        "%s,%s,%" G_GSIZE_FORMAT ",%.2f,%.2f,%.4f,%s,%.2f,%.4f,"
        "%.2f,%s\n",
        c->label, cr_type_name (c->type), bytes, gbs, cub_sum[row], ratio,
        c->cub_op >= 0 && !isnan (equiv) ? "yes" : "no", equiv, gbs / equiv,
        copy[row], ok ? "ok" : "wrong");
  }
}

/* Per-channel results against the single result on the same bytes: the
 * per-channel kernel at @channels channels, and the single-result kernel,
 * one after the other in the same run. Checked against the CPU per
 * channel. */
static gboolean
check_channels (const gchar *monoid, const CrProgram *p, const guint8 *data,
    gsize n, guint channels, const guint8 *got)
{
  const gboolean is_int = p->in == CR_TYPE_INT32;
  gboolean ok = TRUE;

  for (guint c = 0; c < channels && ok; c++) {
    long double want = 0, abs_sum = 0;
    for (gsize k = c; k < n; k += channels) {
      long double x;
      if (is_int) {
        gint32 v;
        memcpy (&v, data + 4 * k, 4);
        x = v;
      } else {
        gfloat v;
        memcpy (&v, data + 4 * k, 4);
        x = v;
      }
      want += strcmp (monoid, "sumsq") == 0 ? x * x : x;
      abs_sum += fabsl (x);
    }
    /* The first output field: sum for sum, sum for sumsq. sumsq's sum of
     * squares is checked through its second field. */
    GValue v = G_VALUE_INIT, d = G_VALUE_INIT;
    guint field = strcmp (monoid, "sumsq") == 0 ? 1 : 0;
    cr_type_to_gvalue (
        p->out.types[field], got + c * p->out.size + p->out.offsets[field], &v);
    g_value_init (&d, G_TYPE_DOUBLE);
    g_value_transform (&v, &d);
    gdouble value = g_value_get_double (&d);
    gdouble tolerance = is_int ? 0 : 1e-10 * (gdouble)abs_sum + 1e-300;
    if (fabs (value - (gdouble)want) > tolerance) {
      g_printerr ("WRONG: %s per channel (%u), channel %u of %" G_GSIZE_FORMAT
                  " elements: %.17g, reference %.17Lg\n",
          monoid, channels, c, n, value, want);
      ok = FALSE;
    }
  }
  return ok;
}

static void
run_channels (Bench *b, gsize max_bytes, FILE *csv)
{
  static const struct {
    const gchar *monoid;
    CrType type;
  } channel_cases[] = {
    { "sum", CR_TYPE_FLOAT32 },
    { "sumsq", CR_TYPE_INT32 },
  };
  static const guint counts[] = { 2, 3, 6, 1024 };

  g_print ("\n%-8s %-8s %8s %10s %9s %9s %6s  %s\n", "monoid", "input",
      "channels", "bytes", "GB/s", "single", "ratio", "check");
  fprintf (csv, "monoid,input,channels,bytes,gbps,single_gbps,ratio,check\n");
  for (guint k = 0; k < G_N_ELEMENTS (channel_cases); k++) {
    g_autoptr (GError) error = NULL;
    g_autoptr (CrMonoid) monoid =
        cr_monoid_load (channel_cases[k].monoid, &error);
    g_autoptr (CrProgram) program =
        cr_program_new_per_channel (monoid, channel_cases[k].type);
    g_autoptr (CrReducer) reducer =
        cr_reducer_new (b->device, program, NULL, &error);
    if (reducer == NULL)
      die (channel_cases[k].monoid, error);
    g_autofree guint8 *ctx = g_malloc0 (program->ctx.size + 1);
    const gint which = region_of (channel_cases[k].type);
    OurLaunch our = { reducer, ctx };

    for (guint c = 0; c < G_N_ELEMENTS (counts); c++) {
      const guint channels = counts[c];
      g_autofree guint8 *out = g_malloc0 (program->out.size * channels);
      for (gsize bytes = 64u << 10; bytes <= max_bytes; bytes *= 4) {
        /* Both on the same bytes, back to back. */
        if (!cr_reducer_set_channels (reducer, 1, &error))
          die ("channels", error);
        gdouble single =
            bytes / time_launches (b, launch_ours, &our, which, bytes) * 1e-9;
        if (!cr_reducer_set_channels (reducer, channels, &error))
          die ("channels", error);
        gdouble per =
            bytes / time_launches (b, launch_ours, &our, which, bytes) * 1e-9;
        /* Whole rows: the per-channel path reduces n / channels rows. */
        const gsize n = bytes / 4 / channels * channels;
        if (!cr_reducer_reduce_device (
                reducer, b->region[which], n, ctx, out, &error))
          die ("per-channel reduction", error);
        gboolean ok = check_channels (
            channel_cases[k].monoid, program, b->host[which], n, channels, out);
        b->failed |= !ok;
        g_print ("%-8s %-8s %8u %10" G_GSIZE_FORMAT " %9.1f %9.1f %6.2f  %s\n",
            channel_cases[k].monoid, cr_type_name (channel_cases[k].type),
            channels, bytes, per, single, per / single, ok ? "ok" : "WRONG");
        fprintf (csv, "%s,%s,%u,%" G_GSIZE_FORMAT ",%.2f,%.2f,%.4f,%s\n",
            channel_cases[k].monoid, cr_type_name (channel_cases[k].type),
            channels, bytes, per, single, per / single, ok ? "ok" : "wrong");
      }
    }
  }
}

/* The kernels the element compiles for float32 audio: mono, or stereo
 * with per-channel results. */
static CrKernels
element_kernels (gboolean per_channel)
{
  return per_channel ? CR_KERNELS_CHANNELS | cr_kernels_vec (CR_TYPE_FLOAT32, 2)
                     : 0;
}

/* In a child process: the time from nothing in memory to a loaded kernel,
 * from the monoid's name (NVRTC opened and the program compiled, or its
 * image read from the cache); the device's context is made before.
 * Printed for the parent to read. */
static int
child_start (const gchar *name, gboolean per_channel)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CrDevice) device = cr_device_open (-1, &error);
  if (device == NULL)
    die ("device", error);
  gint64 t0 = g_get_monotonic_time ();
  g_autoptr (CrMonoid) monoid = cr_monoid_load (name, &error);
  g_autoptr (CrProgram) program = cr_program_new_with (
      monoid, CR_TYPE_FLOAT32, element_kernels (per_channel));
  g_autoptr (CrReducer) reducer =
      cr_reducer_new (device, program, NULL, &error);
  gint64 t1 = g_get_monotonic_time ();
  if (reducer == NULL)
    die (name, error);
  printf ("start %.3f %d\n", (t1 - t0) * 1e-3,
      cr_reducer_compiled (reducer)->from_cache);
  return 0;
}

/* A child_start with the kernel cache in @cache_dir: milliseconds, or NAN
 * (said on stderr) when it fails or the cache does not do as @from_cache
 * says it should. */
static gdouble
time_child_start (const gchar *self, const gchar *name, gboolean per_channel,
    const gchar *cache_dir, gboolean from_cache)
{
  g_autoptr (GError) error = NULL;
  const gchar *argv[] = { self, "--start", name,
    per_channel ? "per-channel" : "single", NULL };
  g_auto (GStrv) env = g_environ_setenv (
      g_get_environ (), "GST_CUDAREDUCE_CACHE_DIR", cache_dir, TRUE);
  /* The driver's cache of its own too: the parent's holds the program. */
  g_autofree gchar *driver_dir = g_dir_make_tmp ("cr-bench-nv-XXXXXX", NULL);
  env = g_environ_setenv (env, "CUDA_CACHE_PATH", driver_dir, TRUE);
  g_autofree gchar *out = NULL;
  gint status = 0, cached = -1;
  gdouble ms = NAN;
  if (!g_spawn_sync (NULL, (gchar **)argv, env, G_SPAWN_DEFAULT, NULL, NULL,
          &out, NULL, &status, &error)
      || sscanf (out, "start %lf %d", &ms, &cached) != 2
      || cached != from_cache) {
    g_printerr ("bench-reduce: %s start of %s: %s\n",
        from_cache ? "warm" : "cold", name, error ? error->message : out);
    ms = NAN;
  }
  bench_remove_cache_dir (driver_dir);
  return ms;
}

/* One program's cost: its cold compile in this process (NVRTC already
 * open), its cold start in a new process with an empty cache (what the
 * first buffer of a fresh gst-launch-1.0 waits for, less the context),
 * and its warm start in another (from the image the cold one wrote). */
static void
compile_cost (Bench *b, const gchar *self, FILE *csv, const gchar *name,
    gboolean per_channel)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CrMonoid) monoid = cr_monoid_load (name, &error);
  if (monoid == NULL)
    die (name, error);
  g_autoptr (CrProgram) program = cr_program_new_with (
      monoid, CR_TYPE_FLOAT32, element_kernels (per_channel));
  /* Compiled afresh and written to the (empty) cache. */
  g_autoptr (CrCompiled) cold = cr_compile (program->source,
      cr_device_arch (b->device), CR_COMPILE_REFRESH, NULL, &error);
  if (cold == NULL)
    die (name, error);

  g_autofree gchar *dir = g_dir_make_tmp ("cr-bench-start-XXXXXX", NULL);
  const gdouble fresh_ms = time_child_start (self, name, per_channel, dir, 0);
  const gdouble warm_ms = time_child_start (self, name, per_channel, dir, 1);
  bench_remove_cache_dir (dir);

  const gchar *shape = per_channel ? "stereo-per-channel" : "mono";
  g_print ("%-32s %-18s %-8s %10.1f %10.1f %10.2f\n", name, shape, "float32",
      cold->seconds * 1e3, fresh_ms, warm_ms);
  fprintf (csv, "%s,%s,float32,%.2f,%.2f,%.3f\n", name, shape,
      cold->seconds * 1e3, fresh_ms, warm_ms);
}

/* Every built-in, single and per channel, and fused programs of 2 to 4
 * members, each with the kernels the element asks for on float32 audio
 * (mono; stereo per channel). */
static void
compile_costs (Bench *b, const gchar *self, FILE *csv)
{
  static const gchar *const fused[] = { "sumsq+minmax", "sumsq+minmax+count_gt",
    "sumsq+minmax+count_gt+mean_var" };
  g_auto (GStrv) names = cr_monoid_builtin_names ();
  g_print ("\n%-32s %-18s %-8s %10s %10s %10s\n", "monoid", "program", "input",
      "cold ms", "fresh ms", "warm ms");
  fprintf (csv, "monoid,program,input,cold_ms,fresh_start_ms,warm_start_ms\n");
  for (gint per_channel = 0; per_channel < 2; per_channel++) {
    for (guint k = 0; names[k]; k++)
      compile_cost (b, self, csv, names[k], per_channel);
    for (guint k = 0; k < G_N_ELEMENTS (fused); k++)
      compile_cost (b, self, csv, fused[k], per_channel);
  }
}

static const gchar *const parts[] = { "single", "channels", "fused", "compile",
  "histogram", NULL };

/* Whether --only (NULL: everything) asks for @part. */
static gboolean
wants (GStrv only, const gchar *part)
{
  return only == NULL || g_strv_contains ((const gchar *const *)only, part);
}

static FILE *
open_table (const gchar *path)
{
  FILE *f = fopen (path, "w");
  if (f == NULL)
    die (path, NULL);
  g_print ("\n(table: %s)\n", path);
  return f;
}

int
main (int argc, char **argv)
{
  /* Kernels as a pipeline runs them for good: no fast compile first
   * (GST_CUDAREDUCE_FAST_START, docs/element.md), unless asked for. */
  g_setenv ("GST_CUDAREDUCE_FAST_START", "0", FALSE);
  gsize max_bytes = 1u << 30;
  const gchar *csv_path = "bench-reduce.csv";
  const gchar *compile_csv_path = "bench-compile.csv";
  const gchar *channels_csv_path = "bench-channels.csv";
  const gchar *fused_csv_path = "bench-fused.csv";
  const gchar *histogram_csv_path = "bench-histogram.csv";
  /* The parts to run: single, channels, fused, compile. */
  g_auto (GStrv) only = NULL;
  g_autoptr (GError) error = NULL;
  Bench b = { 0 };

  for (int k = 1; k < argc; k++) {
    if (strcmp (argv[k], "--start") == 0 && k + 2 < argc)
      return child_start (
          argv[k + 1], strcmp (argv[k + 2], "per-channel") == 0);
    else if (strcmp (argv[k], "--max-bytes") == 0 && k + 1 < argc)
      max_bytes = g_ascii_strtoull (argv[++k], NULL, 10);
    else if (strcmp (argv[k], "--csv") == 0 && k + 1 < argc)
      csv_path = argv[++k];
    else if (strcmp (argv[k], "--compile-csv") == 0 && k + 1 < argc)
      compile_csv_path = argv[++k];
    else if (strcmp (argv[k], "--channels-csv") == 0 && k + 1 < argc)
      channels_csv_path = argv[++k];
    else if (strcmp (argv[k], "--fused-csv") == 0 && k + 1 < argc)
      fused_csv_path = argv[++k];
    else if (strcmp (argv[k], "--histogram-csv") == 0 && k + 1 < argc)
      histogram_csv_path = argv[++k];
    else if (strcmp (argv[k], "--only") == 0 && k + 1 < argc && !only)
      only = g_strsplit (argv[++k], ",", -1);
    else if (strcmp (argv[k], "--channels-only") == 0 && !only)
      only = g_strsplit ("channels", ",", -1);
    else {
      g_printerr ("usage: %s [--max-bytes N] [--csv FILE] "
                  "[--compile-csv FILE] [--channels-csv FILE] "
                  "[--fused-csv FILE] [--histogram-csv FILE] "
                  "[--only single,channels,fused,compile,histogram]\n",
          argv[0]);
      return 2;
    }
  }
  for (guint k = 0; only && only[k]; k++)
    if (!g_strv_contains (parts, only[k])) {
      g_printerr ("bench-reduce: --only: no part called '%s' (the parts: "
                  "single, channels, fused, compile, histogram)\n",
          only[k]);
      return 2;
    }
  /* A private, empty kernel cache: cold compiles are cold. So is the
   * driver's cache, where NVRTC 12.9 and later keep what they compile for
   * any process on the machine. */
  g_autofree gchar *cache = g_dir_make_tmp ("cr-bench-cache-XXXXXX", NULL);
  g_autofree gchar *driver_cache = g_dir_make_tmp ("cr-bench-nv-XXXXXX", NULL);
  g_setenv ("GST_CUDAREDUCE_CACHE_DIR", cache, TRUE);
  g_setenv ("CUDA_CACHE_PATH", driver_cache, TRUE);
  g_unsetenv ("CUDA_CACHE_DISABLE");

  b.device = cr_device_open (-1, &error);
  if (b.device == NULL) {
    g_print ("SKIP: %s\n", error->message);
    return 77;
  }
  b.cu = cr_cuda_driver (NULL);
  b.stream = cr_device_stream (b.device);
  b.region_bytes = MAX (2 * max_bytes, REGION_MIN);
  g_autofree gchar *nvrtc = cr_nvrtc_version (NULL);
  g_print ("GPU: %s (sm_%d), NVRTC %s, region %" G_GSIZE_FORMAT " MiB, "
           "CUB %s\n",
      cr_device_name (b.device), cr_device_arch (b.device), nvrtc,
      b.region_bytes >> 20,
#ifdef CR_HAVE_CUB
      "measured"
#else
      "absent (no CUDA compiler at build time)"
#endif
  );

  if (!cr_device_push (b.device, &error))
    die ("context", error);
  for (gint w = 0; w < 2; w++) {
    b.host[w] = g_malloc (b.region_bytes);
    fill (b.host[w], b.region_bytes, w, 0x9E3779B97F4A7C15ull + w);
    check_cu (b.cu->MemAlloc (&b.region[w], b.region_bytes), "region");
    check_cu (b.cu->MemcpyHtoDAsync (
                  b.region[w], b.host[w], b.region_bytes, b.stream),
        "upload");
  }
  check_cu (b.cu->MemAlloc (&b.copy_dst, max_bytes), "copy target");
  check_cu (b.cu->MemAlloc (&b.scratch, 64), "scratch");
  check_cu (b.cu->EventCreate (&b.start, 0), "event");
  check_cu (b.cu->EventCreate (&b.end, 0), "event");
  check_cu (b.cu->StreamSynchronize (b.stream), "upload");

  /* Ceilings per size, on the int32 region. */
  guint n_sizes = 0;
  for (gsize bytes = MIN_BYTES; bytes <= max_bytes; bytes *= 4)
    n_sizes++;
  g_autofree gdouble *cub_sum = g_new0 (gdouble, n_sizes);
  g_autofree gdouble *copy = g_new0 (gdouble, n_sizes);
  guint row = 0;
  for (gsize bytes = MIN_BYTES; bytes <= max_bytes; bytes *= 4, row++) {
    copy[row] =
        2.0 * bytes / time_launches (&b, launch_copy, NULL, 0, bytes) * 1e-9;
#ifdef CR_HAVE_CUB
    cub_sum[row] = bytes / time_cub (&b, CR_CUB_SUM_INT32, 0, 0, bytes) * 1e-9;
#else
    cub_sum[row] = NAN;
#endif
  }
  cr_device_pop (b.device);

  if (wants (only, "single")) {
    FILE *csv = open_table (csv_path);
    fprintf (csv,
        "case,input,bytes,gbps,cub_sum_gbps,ratio_cub_sum,"
        "cub_equivalent,cub_equivalent_gbps,ratio_cub_equivalent,copy_gbps,"
        "check\n");
    g_print ("%-15s %-8s %10s %9s %9s %6s %9s %6s %9s  %s\n", "case", "input",
        "bytes", "GB/s", "CUB Sum", "ratio", "CUB eq.", "ratio", "copy",
        "check");
    for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
      run_case (&b, &cases[k], max_bytes, csv, cub_sum, copy);
    fclose (csv);
  }
  if (wants (only, "channels")) {
    FILE *csv = open_table (channels_csv_path);
    run_channels (&b, max_bytes, csv);
    fclose (csv);
  }
  if (wants (only, "fused")) {
    FILE *csv = open_table (fused_csv_path);
    run_fused (&b, max_bytes, csv, cub_sum);
    fclose (csv);
  }
  if (wants (only, "histogram")) {
    FILE *csv = open_table (histogram_csv_path);
    run_histograms (&b, max_bytes, csv);
    fclose (csv);
  }
  if (wants (only, "compile")) {
    FILE *csv = open_table (compile_csv_path);
    compile_costs (&b, argv[0], csv);
    fclose (csv);
  }
  g_print ("\nCUB eq.: CUB's own reduction of the same monoid; copy: "
           "device-to-device, bytes read + written.\n");
  bench_remove_cache_dir (cache);
  bench_remove_cache_dir (driver_cache);
  return b.failed ? 1 : 0;
}
