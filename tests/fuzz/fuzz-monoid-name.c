/* fuzz-monoid-name.c: the monoid property's value as cr_monoid_load reads
 * it: a built-in's name, or members joined by '+' and labelled with '='
 * (a fused monoid), then the CUDA source for every input type.
 *
 * A member may be a file: each '@' of the input stands for the path of
 * scaled.monoid, which LLVMFuzzerInitialize writes to a directory of its
 * own. Inputs that name any other file (a '/' or ".monoid" of their own)
 * are skipped, so that runs do not depend on the files around them; what a
 * file holds is fuzz-monoid-file's to try. The input ends at its first NUL,
 * as a property's string does. Seeds: tests/fuzz/corpus/monoid-name/. */
#include "fuzz-common.h"

#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static const gchar scaled_monoid[] =
    "[Monoid]\n"
    "Name=scaled\n"
    "Context=scale:float64\n"
    "Accumulator=total:float64\n"
    "Load=Acc r; r.total = ctx.scale * x; return r;\n"
    "Combine=Acc r; r.total = a.total + b.total; return r;\n"
    "Identity=Acc r; r.total = 0; return r;\n";

static gchar *scaled_dir, *scaled_path;

/* libFuzzer ends with exit(): the directory goes with the process. */
static void
remove_scaled (void)
{
  g_remove (scaled_path);
  g_rmdir (scaled_dir);
}

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  cr_fuzz_init ();
  scaled_dir = g_dir_make_tmp ("cr-fuzz-name-XXXXXX", NULL);
  if (scaled_dir == NULL)
    cr_fuzz_fail ("cannot make a directory for scaled.monoid");
  scaled_path = g_build_filename (scaled_dir, "scaled.monoid", NULL);
  atexit (remove_scaled);
  if (!g_file_set_contents (scaled_path, scaled_monoid, -1, NULL))
    cr_fuzz_fail ("cannot write %s", scaled_path);
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree gchar *input = g_strndup ((const gchar *)data, size);
  if (strchr (input, '/') != NULL || strstr (input, ".monoid") != NULL)
    return 0;
  g_auto (GStrv) parts = g_strsplit (input, "@", -1);
  g_autofree gchar *name = g_strjoinv (scaled_path, parts);
  g_autoptr (GError) error = NULL;
  g_autoptr (CrMonoid) monoid = cr_monoid_load (name, &error);
  cr_fuzz_check_result (monoid, error);
  return 0;
}
