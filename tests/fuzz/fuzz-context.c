/* fuzz-context.c: the element's context property (a GstStructure string)
 * and threshold, packed into a monoid's context fields the way the element
 * packs them before each launch (gst_cuda_reduce_programs_monoid_context, built
 * into this target from gstcudareduce-programs.c).
 *
 * The input is four texts separated by NUL bytes: the context-fields
 * property ("lo:float64;hi:int8"), the context property ("ctx, lo=1.5"),
 * the threshold ("12.5") and the input type ("int16", else float32).
 * Seeds: tests/fuzz/corpus/context/. */
#include "fuzz-common.h"

#include "cr-error.h"
#include "gstcudareduce-programs.h"

#include <gst/gst.h>
#include <string.h>

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* gstcudareduce-programs.c logs to the element's category. */
GST_DEBUG_CATEGORY (gst_cuda_reduce_debug);

enum { CONTEXT_FIELDS, CONTEXT, THRESHOLD, TYPE, N_FIELDS };

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  gst_init (NULL, NULL);
  GST_DEBUG_CATEGORY_INIT (gst_cuda_reduce_debug, "cudareduce", 0, "fuzz");
  cr_fuzz_init ();
  return 0;
}

static void
pack (CrProgram *program, const gchar *context, gdouble threshold)
{
  /* GStreamer 1.22's parser leaks when a list (<...>, {...}, or a field
   * typed list or array: "x=(list)") or a nested structure or caps ([...])
   * does not parse: not ours, and no list, range or structure fits a
   * context field anyway. */
  g_autofree gchar *lower = context ? g_ascii_strdown (context, -1) : NULL;
  if (lower
      && (strpbrk (lower, "<{[") || strstr (lower, "list")
          || strstr (lower, "array")))
    return;
  /* Text after the structure is refused, not ignored (GStreamer warns
   * when it is not asked where the structure ended). */
  gchar *end = NULL;
  cr_fuzz_gstreamer_parsing (TRUE);
  g_autoptr (GstStructure) values =
      context ? gst_structure_from_string (context, &end) : NULL;
  cr_fuzz_gstreamer_parsing (FALSE);
  if (values && *end != '\0')
    return;
  GstCudaReduceProgram loaded = { .program = program };
  GstCudaReducePrograms programs = { .active = &loaded };
  g_autoptr (GError) error = NULL;

  const guint8 *bytes = gst_cuda_reduce_programs_monoid_context (
      &programs, 1, threshold, values, &error);
  if ((bytes == NULL) == (error == NULL))
    cr_fuzz_fail ("context %s and an error %s", bytes ? "packed" : "not packed",
        error ? error->message : "not set");
  if (error && (error->domain != CR_ERROR || error->code != CR_ERROR_CONTEXT))
    cr_fuzz_fail (
        "a context error outside CR_ERROR_CONTEXT: %s", error->message);
  /* Packed once, the same bytes come back until the serial changes. */
  if (bytes
      && gst_cuda_reduce_programs_monoid_context (
             &programs, 1, threshold, values, NULL)
          != bytes)
    cr_fuzz_fail ("the context was packed again for the same serial");
  g_free (programs.monoid_context.bytes);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  gchar *fields[N_FIELDS];
  cr_fuzz_split (data, size, fields, N_FIELDS);

  const CrMonoidText text = {
    .name = "context",
    .accumulator = "s:wide",
    .context = fields[CONTEXT_FIELDS],
    .load = "Acc r; r.s = x; return r;",
    .combine = "Acc r; r.s = a.s + b.s; return r;",
    .identity = "Acc r; r.s = 0; return r;",
  };
  g_autoptr (GError) error = NULL;
  g_autoptr (CrMonoid) monoid =
      cr_monoid_new (&text, "the inline monoid properties", &error);
  cr_fuzz_check_result (monoid, error);
  if (monoid) {
    CrType type =
        fields[TYPE] ? cr_type_from_name (fields[TYPE]) : CR_TYPE_INVALID;
    g_autoptr (CrProgram) program = cr_program_new (
        monoid, type == CR_TYPE_INVALID ? CR_TYPE_FLOAT32 : type);
    gdouble threshold =
        fields[THRESHOLD] ? g_ascii_strtod (fields[THRESHOLD], NULL) : 0.0;
    pack (program, fields[CONTEXT], threshold);
  }

  for (guint k = 0; k < N_FIELDS; k++)
    g_free (fields[k]);
  return 0;
}
