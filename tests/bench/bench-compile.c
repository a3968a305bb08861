/* bench-compile.c: what NVRTC costs per program, on any machine with NVRTC
 * (no GPU needed): every built-in and fused programs of 2 to 4 members,
 * with the kernels the element asks for on float32 audio (mono, and
 * stereo per channel) and with every kernel, compiled cold to a CUBIN.
 *
 *   bench-compile [--arch N] [--runs N]
 *
 * Times are the median of --runs compiles (default 3) in this process,
 * after one compile that opens NVRTC; the GPU machine's bench-reduce also
 * measures a fresh process with an empty cache.
 *
 * Then the host's part of a start from the disk cache, each in a new
 * process (median of --runs): from the monoid's name to the image read
 * from the cache, as the element does it, and the same with NVRTC opened
 * first, as a start from the cache did before the cache kept NVRTC's facts
 * (the difference is the time to open NVRTC). Loading the image on a GPU
 * comes on top (bench-reduce measures the whole start there).
 *
 *   bench-compile --phases [--device] [--arch N] [--runs N] [--csv FILE]
 *
 * instead times the programs the element builds for common inputs (plain,
 * per channel, video frames, NV12 per plane, fused, binned) phase by phase,
 * as NVRTC's own --time report gives them (C++ front end, NVVM optimizer,
 * ptxas), with the element's options alone and with NVRTC options that trade
 * optimization or threads for time (--split-compile=0, --Ofast-compile=mid
 * and max: "n/a" where this NVRTC does not take one). --device opens the
 * GPU first, as the element does before it compiles (compiles were seen
 * to be much faster with the driver initialized), and compiles for its
 * architecture. */
#include "bench-dir.h"
#include "cr-compiler.h"
#include "cr-cuda.h"
#include "cr-device.h"
#include "cr-monoid-names.h"
#include "cr-error.h"
#include "cr-program.h"

#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const gchar *const fused[] = { "sumsq+minmax", "sumsq+minmax+count_gt",
  "sumsq+minmax+count_gt+mean_var" };

static const struct {
  const gchar *name;
  CrKernels kernels;
} shapes[] = {
  { "mono", 0 },
  { "stereo-per-channel", CR_KERNELS_CHANNELS | CR_KERNELS_VEC2 },
  { "every-kernel", CR_KERNELS_ALL },
};

static int
compare_doubles (const void *a, const void *b)
{
  const gdouble x = *(const gdouble *)a, y = *(const gdouble *)b;
  return x < y ? -1 : x > y;
}

/* Median milliseconds of @runs cold compiles of @name with @kernels. */
static gdouble
compile_ms (const gchar *name, CrKernels kernels, gint arch, guint runs)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CrMonoid) monoid = cr_monoid_load (name, &error);
  if (monoid == NULL) {
    g_printerr ("bench-compile: %s\n", error->message);
    exit (1);
  }
  g_autoptr (CrProgram) program =
      cr_program_new_with (monoid, CR_TYPE_FLOAT32, kernels);
  g_autofree gdouble *ms = g_new (gdouble, runs);
  for (guint k = 0; k < runs; k++) {
    g_autoptr (CrCompiled) c =
        cr_compile (program->source, arch, CR_COMPILE_NO_CACHE, NULL, &error);
    if (c == NULL) {
      g_printerr ("bench-compile: %s: %s\n", name, error->message);
      exit (1);
    }
    ms[k] = c->seconds * 1e3;
  }
  qsort (ms, runs, sizeof *ms, compare_doubles);
  return ms[runs / 2];
}

static void
row (const gchar *name, gint arch, guint runs)
{
  g_print ("%-32s", name);
  for (guint s = 0; s < G_N_ELEMENTS (shapes); s++)
    g_print (" %19.0f", compile_ms (name, shapes[s].kernels, arch, runs));
  g_print ("\n");
}

/* In a child process: the start of @name from the cache, printed for the
 * parent: milliseconds, whether the image came from the cache, and whether
 * NVRTC was open at the end. */
static int
child_start (const gchar *name, gint arch, gboolean open_nvrtc_first)
{
  g_autoptr (GError) error = NULL;
  gint64 t0 = g_get_monotonic_time ();
  if (open_nvrtc_first && cr_cuda_nvrtc (&error) == NULL)
    return 1;
  g_autoptr (CrMonoid) monoid = cr_monoid_load (name, &error);
  g_autoptr (CrProgram) program =
      monoid ? cr_program_new_with (monoid, CR_TYPE_FLOAT32, 0) : NULL;
  g_autoptr (CrCompiled) c = program
      ? cr_compile (program->source, arch, CR_COMPILE_DEFAULT, NULL, &error)
      : NULL;
  gint64 t1 = g_get_monotonic_time ();
  if (c == NULL) {
    g_printerr ("bench-compile: %s: %s\n", name, error->message);
    return 1;
  }
  printf ("start %.3f %d %d\n", (t1 - t0) * 1e-3, c->from_cache,
      cr_cuda_nvrtc_if_open () != NULL);
  return 0;
}

/* Median milliseconds of @runs starts of @name in new processes, with the
 * kernel cache in @env; *@nvrtc_opened says whether any opened NVRTC. */
static gdouble
start_ms (const gchar *self, const gchar *name, gint arch, guint runs,
    gboolean open_nvrtc_first, gchar **env, gboolean *nvrtc_opened)
{
  g_autofree gchar *arch_text = g_strdup_printf ("%d", arch);
  const gchar *argv[] = { self, "--start", name, arch_text,
    open_nvrtc_first ? "open-nvrtc-first" : "as-the-element", NULL };
  g_autofree gdouble *ms = g_new (gdouble, runs);
  *nvrtc_opened = FALSE;
  for (guint k = 0; k < runs; k++) {
    g_autofree gchar *out = NULL;
    g_autoptr (GError) error = NULL;
    gint status = 0, cached = 0, opened = 0;
    if (!g_spawn_sync (NULL, (gchar **)argv, env, G_SPAWN_DEFAULT, NULL, NULL,
            &out, NULL, &status, &error)
        || sscanf (out, "start %lf %d %d", &ms[k], &cached, &opened) != 3
        || !cached) {
      g_printerr ("bench-compile: start of %s: %s\n", name,
          error ? error->message : out);
      exit (1);
    }
    *nvrtc_opened |= opened;
  }
  qsort (ms, runs, sizeof *ms, compare_doubles);
  return ms[runs / 2];
}

static void
starts (const gchar *self, gint arch, guint runs)
{
  g_autofree gchar *dir = g_dir_make_tmp ("cr-bench-compile-XXXXXX", NULL);
  g_auto (GStrv) env = g_environ_setenv (
      g_get_environ (), "GST_CUDAREDUCE_CACHE_DIR", dir, TRUE);
  g_print ("\nStart from the disk cache in a new process, host only (mono), "
           "median of %u, ms\n%-32s %14s %14s %18s\n",
      runs, "monoid", "as the element", "NVRTC opened", "NVRTC opened first");
  g_auto (GStrv) names = cr_monoid_builtin_names ();
  guint n_names = g_strv_length (names);
  for (guint k = 0; k < n_names + G_N_ELEMENTS (fused); k++) {
    const gchar *name = k < n_names ? names[k] : fused[k - n_names];
    gboolean opened = FALSE, opened_first = FALSE;
    /* The cold start that fills the cache, then the measured ones. */
    g_autofree gchar *arch_text = g_strdup_printf ("%d", arch);
    const gchar *fill[] = { self, "--start", name, arch_text, "fill", NULL };
    gint status = 0;
    g_spawn_sync (NULL, (gchar **)fill, env, G_SPAWN_STDOUT_TO_DEV_NULL, NULL,
        NULL, NULL, NULL, &status, NULL);
    const gdouble element =
        start_ms (self, name, arch, runs, FALSE, env, &opened);
    const gdouble first =
        start_ms (self, name, arch, runs, TRUE, env, &opened_first);
    g_print ("%-32s %14.2f %14s %18.2f\n", name, element, opened ? "yes" : "no",
        first);
  }
  bench_remove_cache_dir (dir);
}

static const struct {
  const gchar *monoid;
  CrType type;
  CrKernels kernels;
  const gchar *input;
} phase_programs[] = {
  { "sum", CR_TYPE_FLOAT32, 0, "mono" },
  { "sum", CR_TYPE_FLOAT32, CR_KERNELS_CHANNELS | CR_KERNELS_VEC2,
      "stereo per channel" },
  { "sum", CR_TYPE_UINT8, CR_KERNELS_PITCHED, "video frame" },
  { "minmax", CR_TYPE_FLOAT32, CR_KERNELS_CHANNELS | CR_KERNELS_VEC2,
      "stereo per channel" },
  { "mean_var", CR_TYPE_FLOAT32, 0, "mono" },
  { "mean_var", CR_TYPE_FLOAT32, CR_KERNELS_CHANNELS | CR_KERNELS_VEC2,
      "stereo per channel" },
  { "sumsq+minmax+count_gt+mean_var", CR_TYPE_FLOAT32, 0, "mono" },
  { "sumsq+minmax+count_gt+mean_var", CR_TYPE_FLOAT32,
      CR_KERNELS_CHANNELS | CR_KERNELS_VEC2, "stereo per channel" },
  { "histogram", CR_TYPE_UINT8, CR_KERNELS_PITCHED, "video frame" },
  { "histogram", CR_TYPE_UINT8,
      CR_KERNELS_PITCHED | CR_KERNELS_CHANNELS | CR_KERNELS_VEC2,
      "NV12 per plane" },
  { "signalstats", CR_TYPE_UINT8, CR_KERNELS_PITCHED, "video frame" },
  { "signalstats", CR_TYPE_UINT8,
      CR_KERNELS_PITCHED | CR_KERNELS_CHANNELS | CR_KERNELS_VEC2,
      "NV12 per plane" },
  { "vectorscope", CR_TYPE_UINT8, 0, "NV12 pairs" },
};

static const gchar *const phase_options[] = { NULL, "--split-compile=0",
  "--Ofast-compile=mid", "--Ofast-compile=max" };

/* NVRTC's phases, in its --time report's names. */
static const gchar *const phase_names[] = { "CUDA C++ Frontend",
  "NVVM Optimizer", "PTX Translation" };

/* One compile of @source with the element's options and @extra (may be
 * NULL): FALSE where NVRTC refuses the option. @ms: the wall time, then
 * each of phase_names' from the report NVRTC writes to @report. */
static gboolean
timed_compile (const CrNvrtc *rtc, const gchar *source, gint arch,
    const gchar *extra, const gchar *report, gdouble ms[4])
{
  g_autofree gchar *target = g_strdup_printf ("--gpu-architecture=sm_%d", arch);
  g_autofree gchar *time = g_strdup_printf ("--time=%s", report);
  const gchar *options[] = { target, "--std=c++17", time, extra };
  nvrtcProgram prog = NULL;
  g_unlink (report);
  if (rtc->CreateProgram (&prog, source, "bench.cu", 0, NULL, NULL) != 0)
    return FALSE;
  const gint64 t0 = g_get_monotonic_time ();
  const int result = rtc->CompileProgram (prog, extra ? 4 : 3, options);
  ms[0] = (g_get_monotonic_time () - t0) * 1e-3;
  rtc->DestroyProgram (&prog);
  g_autofree gchar *text = NULL;
  if (result != 0 || !g_file_get_contents (report, &text, NULL, NULL))
    return FALSE;
  /* Lines of "file, phase, milliseconds, ms". */
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (guint p = 0; p < G_N_ELEMENTS (phase_names); p++) {
    ms[p + 1] = 0;
    for (guint k = 0; lines[k]; k++) {
      g_auto (GStrv) f = g_strsplit (lines[k], ",", -1);
      if (g_strv_length (f) >= 3
          && strcmp (g_strstrip (f[1]), phase_names[p]) == 0)
        ms[p + 1] += g_ascii_strtod (f[2], NULL);
    }
  }
  return TRUE;
}

static int
compare_totals (const void *a, const void *b)
{
  return compare_doubles (a, b);
}

/* The programs of phase_programs with each of phase_options: the median
 * run's wall time and phases, on stdout and in @csv (may be NULL). */
static int
phases (gint arch, guint runs, FILE *csv)
{
  g_autoptr (GError) error = NULL;
  const CrNvrtc *rtc = cr_cuda_nvrtc (&error);
  if (rtc == NULL) {
    g_print ("SKIP: %s\n", error->message);
    return 77;
  }
  g_autofree gchar *dir = g_dir_make_tmp ("cr-bench-phases-XXXXXX", NULL);
  g_autofree gchar *report = g_build_filename (dir, "time.csv", NULL);
  g_autofree gchar *version = cr_nvrtc_version (NULL);
  g_print ("NVRTC %s, sm_%d, median of %u compiles, ms (%u CPUs): wall "
           "time, then front end / optimizer / ptxas\n%-44s",
      version, arch, runs, g_get_num_processors (), "program");
  for (guint o = 0; o < G_N_ELEMENTS (phase_options); o++)
    g_print (" %24s", phase_options[o] ? phase_options[o] : "(element's)");
  g_print ("\n");
  if (csv)
    fprintf (csv,
        "monoid,type,kernels,program,options,total_ms,frontend_ms,"
        "optimizer_ms,ptx_translation_ms\n");
  for (guint k = 0; k < G_N_ELEMENTS (phase_programs); k++) {
    g_autoptr (CrMonoid) monoid =
        cr_monoid_load (phase_programs[k].monoid, &error);
    if (monoid == NULL) {
      g_printerr ("bench-compile: %s\n", error->message);
      return 1;
    }
    g_autoptr (CrProgram) program = cr_program_new_with (
        monoid, phase_programs[k].type, phase_programs[k].kernels);
    g_autofree gchar *label =
        g_strdup_printf ("%s %s %s", phase_programs[k].monoid,
            cr_type_name (phase_programs[k].type), phase_programs[k].input);
    g_print ("%-44s", label);
    for (guint o = 0; o < G_N_ELEMENTS (phase_options); o++) {
      g_autofree gdouble *ms = g_new0 (gdouble, 4 * runs);
      gboolean ok = TRUE;
      for (guint r = 0; ok && r < runs; r++)
        ok = timed_compile (
            rtc, program->source, arch, phase_options[o], report, ms + 4 * r);
      if (!ok) {
        g_print (" %24s", "n/a");
        continue;
      }
      /* The run of the median wall time, whole. */
      qsort (ms, runs, 4 * sizeof *ms, compare_totals);
      const gdouble *m = ms + 4 * (runs / 2);
      g_autofree gchar *cell =
          g_strdup_printf ("%.0f (%.0f/%.0f/%.0f)", m[0], m[1], m[2], m[3]);
      g_print (" %24s", cell);
      if (csv)
        fprintf (csv, "%s,%s,0x%x,%s,%s,%.0f,%.0f,%.0f,%.0f\n",
            phase_programs[k].monoid, cr_type_name (phase_programs[k].type),
            phase_programs[k].kernels, phase_programs[k].input,
            phase_options[o] ? phase_options[o] + 2 : "default", m[0], m[1],
            m[2], m[3]);
    }
    g_print ("\n");
  }
  g_unlink (report);
  g_rmdir (dir);
  return 0;
}

int
main (int argc, char **argv)
{
  gint arch = 90;
  guint runs = 3;
  gboolean phases_mode = FALSE, device_first = FALSE;
  const gchar *csv_path = NULL;
  if (argc == 5 && strcmp (argv[1], "--start") == 0)
    return child_start (
        argv[2], atoi (argv[3]), strcmp (argv[4], "open-nvrtc-first") == 0);
  for (int k = 1; k < argc; k++) {
    if (strcmp (argv[k], "--arch") == 0 && k + 1 < argc)
      arch = atoi (argv[++k]);
    else if (strcmp (argv[k], "--runs") == 0 && k + 1 < argc)
      runs = (guint)atoi (argv[++k]);
    else if (strcmp (argv[k], "--phases") == 0)
      phases_mode = TRUE;
    else if (strcmp (argv[k], "--device") == 0)
      device_first = TRUE;
    else if (strcmp (argv[k], "--csv") == 0 && k + 1 < argc)
      csv_path = argv[++k];
    else {
      g_printerr ("usage: %s [--arch N] [--runs N] [--phases [--device] [--csv "
                  "FILE]]\n",
          argv[0]);
      return 2;
    }
  }
  runs = MAX (runs, 1);
  if (phases_mode) {
    g_autoptr (GError) no_gpu = NULL;
    g_autoptr (CrDevice) device =
        device_first ? cr_device_open (-1, &no_gpu) : NULL;
    if (device_first && device == NULL) {
      g_printerr ("bench-compile: --device: %s\n", no_gpu->message);
      return 1;
    }
    if (device)
      arch = cr_device_arch (device);
    FILE *csv = csv_path ? fopen (csv_path, "w") : NULL;
    if (csv_path && csv == NULL) {
      g_printerr ("bench-compile: cannot write %s\n", csv_path);
      return 1;
    }
    const int status = phases (arch, runs, csv);
    if (csv)
      fclose (csv);
    return status;
  }
  g_autoptr (GError) error = NULL;
  g_autofree gchar *version = cr_nvrtc_version (&error);
  if (version == NULL) {
    g_print ("SKIP: %s\n", error->message);
    return 77;
  }
  /* NVRTC opened, and its first compile, outside the timing. */
  compile_ms ("sum", 0, arch, 1);

  g_print ("NVRTC %s, sm_%d, float32 input, cold compile to a CUBIN, median "
           "of %u, ms (%u CPUs)\n%-32s",
      version, arch, runs, g_get_num_processors (), "monoid");
  for (guint s = 0; s < G_N_ELEMENTS (shapes); s++)
    g_print (" %19s", shapes[s].name);
  g_print ("\n");
  g_auto (GStrv) names = cr_monoid_builtin_names ();
  for (guint k = 0; names[k]; k++)
    row (names[k], arch, runs);
  for (guint k = 0; k < G_N_ELEMENTS (fused); k++)
    row (fused[k], arch, runs);
  starts (argv[0], arch, MAX (runs, 5));
  return 0;
}
