/* test-resource-race.c: the plugin's compiled-in files used first from
 * several threads at once. GLib registers them on first use, and while one
 * thread registered them another could be handed no resource: two elements
 * that started together then crashed generating their kernels (found on the
 * GPU machine, in gpu-multi's test_every_gpu_at_once, once in 7 runs). The
 * race is at a process's first use, so each round is a fresh process: the
 * test runs itself RUNS times with --child, and each child releases THREADS
 * threads at once into the three ways in: the kernel template, a built-in
 * monoid by name and the list of built-ins. */
#include "cr-monoid-names.h"
#include "cr-program.h"

#include <string.h>

enum { RUNS = 400, THREADS = 8 };

/* The built-in sum, parsed from text, so that reaching the kernels is the
 * thread's first use of the resources. */
static const gchar sum_text[] =
    "[Monoid]\nName=sum\nAccumulator=sum:wide\n"
    "Load=Acc r; r.sum = x; return r;\n"
    "Combine=Acc r; r.sum = a.sum + b.sum; return r;\n"
    "Identity=Acc r; r.sum = 0; return r;\n";

static gint go; /* atomic: the threads start when set */

static gpointer
first_use (gpointer data)
{
  guint kind = GPOINTER_TO_UINT (data) % 3;
  g_autoptr (GError) error = NULL;

  while (!g_atomic_int_get (&go))
    ;
  if (kind == 0) {
    g_autoptr (CrMonoid) m =
        cr_monoid_new_from_data (sum_text, sizeof sum_text - 1, "test", &error);
    if (m == NULL)
      return g_strdup (error->message);
    g_autoptr (CrProgram) p = cr_program_new (m, CR_TYPE_FLOAT32);
    return strstr (p->source, "cr_reduce")
        ? NULL
        : g_strdup ("no kernel in the source");
  }
  if (kind == 1) {
    g_autoptr (CrMonoid) m = cr_monoid_load ("sum", &error);
    return m ? NULL : g_strdup (error->message);
  }
  g_auto (GStrv) names = cr_monoid_builtin_names ();
  return g_strv_contains ((const gchar *const *)names, "sum")
      ? NULL
      : g_strdup ("sum is not among the built-ins");
}

static int
child (void)
{
  GThread *threads[THREADS];
  int failed = 0;

  for (guint k = 0; k < THREADS; k++)
    threads[k] = g_thread_new ("first-use", first_use, GUINT_TO_POINTER (k));
  g_atomic_int_set (&go, 1);
  for (guint k = 0; k < THREADS; k++) {
    g_autofree gchar *why = g_thread_join (threads[k]);
    if (why) {
      g_printerr ("thread %u: %s\n", k, why);
      failed = 1;
    }
  }
  return failed;
}

int
main (int argc, char **argv)
{
  if (argc > 1 && strcmp (argv[1], "--child") == 0)
    return child ();

  guint failures = 0;
  for (guint run = 0; run < RUNS; run++) {
    const gchar *child_argv[] = { argv[0], "--child", NULL };
    g_autoptr (GError) error = NULL;
    g_autofree gchar *err = NULL;
    gint status = 0;
    if (!g_spawn_sync (NULL, (gchar **)child_argv, NULL, G_SPAWN_DEFAULT, NULL,
            NULL, NULL, &err, &status, &error)) {
      g_printerr ("cannot run %s: %s\n", argv[0], error->message);
      return 1;
    }
    if (!g_spawn_check_wait_status (status, &error)) {
      if (failures++ < 5)
        g_printerr ("run %u: %s\n%s", run, error->message, err);
    }
  }
  g_print ("%u of %u fresh processes of %u threads failed\n", failures, RUNS,
      THREADS);
  return failures ? 1 : 0;
}
