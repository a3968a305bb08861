/* bench-compile.c: what NVRTC costs per program, on any machine with NVRTC
 * (no GPU needed): every built-in and fused programs of 2 to 4 members,
 * with the kernels the element asks for on float32 audio (mono, and
 * stereo per channel) and with every kernel, compiled cold to a CUBIN.
 *
 *   bench-compile [--arch N] [--runs N]
 *
 * Times are the median of --runs compiles (default 3) in this process,
 * after one compile that opens NVRTC; the GPU machine's bench-reduce also
 * measures a fresh process with an empty cache. */
#include "cr-compiler.h"
#include "cr-error.h"
#include "cr-program.h"

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

int
main (int argc, char **argv)
{
  gint arch = 90;
  guint runs = 3;
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
  return 0;
}
