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
 * comes on top (bench-reduce measures the whole start there). */
#include "cr-compiler.h"
#include "cr-cuda.h"
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
  g_autoptr (GDir) entries = g_dir_open (dir, 0, NULL);
  const gchar *entry;
  while (entries && (entry = g_dir_read_name (entries)) != NULL) {
    g_autofree gchar *path = g_build_filename (dir, entry, NULL);
    g_unlink (path);
  }
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  gint arch = 90;
  guint runs = 3;
  if (argc == 5 && strcmp (argv[1], "--start") == 0)
    return child_start (
        argv[2], atoi (argv[3]), strcmp (argv[4], "open-nvrtc-first") == 0);
  for (int k = 1; k < argc; k++) {
    if (strcmp (argv[k], "--arch") == 0 && k + 1 < argc)
      arch = atoi (argv[++k]);
    else if (strcmp (argv[k], "--runs") == 0 && k + 1 < argc)
      runs = (guint)atoi (argv[++k]);
    else {
      g_printerr ("usage: %s [--arch N] [--runs N]\n", argv[0]);
      return 2;
    }
  }
  runs = MAX (runs, 1);
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
