/* fuzz-monoid-file.c: the contents of a .monoid file, as monoid=PATH reads
 * them (cr_monoid_new_from_data), then the CUDA source for every input
 * type. Seeds: tests/fuzz/corpus/monoid-file/. */
#include "fuzz-common.h"

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  cr_fuzz_init ();
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (GError) error = NULL;
  /* A copy of exactly @size bytes, so that a read past the end is caught. */
  g_autofree gchar *copy = g_memdup2 (data, size);
  g_autoptr (CrMonoid) monoid =
      cr_monoid_new_from_data (copy, size, "fuzz.monoid", &error);
  cr_fuzz_check_result (monoid, error);
  return 0;
}
