/* fuzz-inline.c: the element's inline monoid properties (cr_monoid_new as
 * gstcudareduce.c calls it), then the CUDA source for every input type.
 *
 * The input is the properties' values separated by NUL bytes, in the order
 * of the enum below. An empty value, or one the input does not reach, is
 * an unset property (NULL); blank ones are " ". The last, the monoid
 * property, names the monoid ("custom" when unset, as in the element).
 * Seeds: tests/fuzz/corpus/inline/, made from the .monoid files. */
#include "fuzz-common.h"

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

enum {
  ACCUMULATOR,
  LOAD,
  COMBINE,
  IDENTITY,
  CONTEXT_FIELDS,
  OUTPUT_FIELDS,
  FINALIZE,
  MONOID,
  N_FIELDS
};

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  cr_fuzz_init ();
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  gchar *fields[N_FIELDS];
  cr_fuzz_split (data, size, fields, N_FIELDS);
  for (guint k = 0; k < N_FIELDS; k++)
    if (fields[k] && fields[k][0] == '\0')
      g_clear_pointer (&fields[k], g_free);

  const CrMonoidText text = {
    .name = fields[MONOID] ? fields[MONOID] : "custom",
    .accumulator = fields[ACCUMULATOR],
    .load = fields[LOAD],
    .combine = fields[COMBINE],
    .identity = fields[IDENTITY],
    .context = fields[CONTEXT_FIELDS],
    .output = fields[OUTPUT_FIELDS],
    .finalize = fields[FINALIZE],
  };
  g_autoptr (GError) error = NULL;
  g_autoptr (CrMonoid) monoid =
      cr_monoid_new (&text, "the inline monoid properties", &error);
  cr_fuzz_check_result (monoid, error);

  for (guint k = 0; k < N_FIELDS; k++)
    g_free (fields[k]);
  return 0;
}
