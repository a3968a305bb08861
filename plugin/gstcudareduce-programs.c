/* gstcudareduce-programs.c: compiling, loading and choosing programs. */
#include "gstcudareduce-programs.h"

#include "gstcudareduce-error.h"

#include <string.h>

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_reduce_debug);
#define GST_CAT_DEFAULT gst_cuda_reduce_debug

static void
program_free (gpointer data)
{
  GstCudaReduceProgram *entry = data;
  g_ptr_array_unref (entry->reducers);
  cr_program_free (entry->program);
  g_free (entry->field_quarks);
  g_free (entry);
}

void
gst_cuda_reduce_programs_init (
    GstCudaReducePrograms *programs, CrDevice *device)
{
  memset (programs, 0, sizeof *programs);
  programs->device = cr_device_ref (device);
  programs->by_source =
      g_hash_table_new_full (g_str_hash, g_str_equal, NULL, program_free);
}

void
gst_cuda_reduce_programs_clear (GstCudaReducePrograms *programs)
{
  g_clear_pointer (&programs->active_monoid, cr_monoid_unref);
  g_clear_pointer (&programs->by_source, g_hash_table_unref);
  g_clear_pointer (&programs->device, cr_device_unref);
  g_clear_pointer (&programs->monoid_context.bytes, g_free);
  memset (programs, 0, sizeof *programs);
}

static void
log_source (GstElement *element, const CrProgram *program)
{
  if (gst_debug_category_get_threshold (GST_CAT_DEFAULT) < GST_LEVEL_DEBUG)
    return;
  g_autofree gchar *numbered = cr_source_number_lines (program->source);
  GST_DEBUG_OBJECT (element, "generated source for monoid %s on %s input:\n%s",
      program->monoid->name, cr_type_name (program->in), numbered);
}

/* Compiles (or reads from the cache) and loads @program, which it takes. */
static GstCudaReduceProgram *
load (GstCudaReducePrograms *programs, GstElement *element, CrProgram *program)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *log = NULL;
  const CrMonoid *monoid = program->monoid;

  log_source (element, program);
  CrReducer *reducer = cr_reducer_new (programs->device, program, &log, &error);
  if (reducer == NULL) {
    g_autofree gchar *numbered = cr_source_number_lines (program->source);
    g_autofree gchar *debug = log
        ? g_strdup_printf ("Monoid %s (%s) on %s "
                           "input.\nNVRTC log:\n%s\n\nGenerated source:\n%s",
            monoid->name, monoid->origin, cr_type_name (program->in), log,
            numbered)
        : NULL;
    gst_cuda_reduce_post_error (element, error, debug);
    cr_program_free (program);
    return NULL;
  }
  const CrCompiled *compiled = cr_reducer_compiled (reducer);
  g_autofree gchar *shape = cr_reducer_describe (reducer);
  GST_INFO_OBJECT (element, "monoid %s on %s input: %s for %s in %.1f ms%s; %s",
      monoid->name, cr_type_name (program->in),
      compiled->from_cache ? "cached image" : "compiled", compiled->target,
      compiled->seconds * 1e3,
      compiled->fast ? " (compiled for time: the optimized kernels follow)"
                     : "",
      shape);
  if (compiled->log)
    GST_DEBUG_OBJECT (element, "NVRTC log:\n%s", compiled->log);
  GstCudaReduceProgram *entry = g_new0 (GstCudaReduceProgram, 1);
  entry->program = program;
  entry->reducers =
      g_ptr_array_new_with_free_func ((GDestroyNotify)cr_reducer_free);
  g_ptr_array_add (entry->reducers, reducer);
  /* Quarks once, not a global lock per field of every message. */
  entry->field_quarks = g_new (GQuark, MAX (program->out.n_fields, 1));
  for (guint f = 0; f < program->out.n_fields; f++)
    entry->field_quarks[f] = g_quark_from_string (program->out.names[f]);
  g_hash_table_insert (programs->by_source, program->source, entry);
  return entry;
}

gboolean
gst_cuda_reduce_programs_use (GstCudaReducePrograms *programs,
    GstElement *element, CrMonoid *monoid, CrType type,
    const GstCudaReducePlan *plan, guint window_hops)
{
  g_autoptr (CrProgram) program = cr_program_new_with (
      monoid, type, plan->kernels | (window_hops > 1 ? CR_KERNELS_WINDOW : 0));
  GstCudaReduceProgram *entry =
      g_hash_table_lookup (programs->by_source, program->source);
  g_autoptr (GError) error = NULL;

  if (entry == NULL
      && (entry = load (programs, element, g_steal_pointer (&program))) == NULL)
    return FALSE;
  /* More states: the same program loaded again (from the cache). */
  while (entry->reducers->len < plan->n_reducers) {
    CrReducer *reducer =
        cr_reducer_new (programs->device, entry->program, NULL, &error);
    if (reducer == NULL) {
      gst_cuda_reduce_post_error (element, error, NULL);
      return FALSE;
    }
    g_ptr_array_add (entry->reducers, reducer);
  }
  for (guint k = 0; k < plan->n_reducers; k++)
    if (!cr_reducer_set_channels (g_ptr_array_index (entry->reducers, k),
            plan->reducer_channels[k], &error)
        || !cr_reducer_set_window (
            g_ptr_array_index (entry->reducers, k), window_hops, &error)) {
      gst_cuda_reduce_post_error (element, error, NULL);
      return FALSE;
    }
  programs->active = entry;
  g_clear_pointer (&programs->active_monoid, cr_monoid_unref);
  programs->active_monoid = cr_monoid_ref (monoid);
  return TRUE;
}

static gboolean
add_context_value (GQuark field, const GValue *value, gpointer table)
{
  g_hash_table_insert (
      table, (gpointer)g_quark_to_string (field), (gpointer)value);
  return TRUE;
}

const guint8 *
gst_cuda_reduce_programs_monoid_context (GstCudaReducePrograms *programs,
    guint serial, gdouble threshold, const GstStructure *values, GError **error)
{
  const CrProgram *program = programs->active->program;

  if (programs->monoid_context.program == program
      && programs->monoid_context.serial == serial)
    return programs->monoid_context.bytes;
  g_autoptr (GHashTable) table = g_hash_table_new (g_str_hash, g_str_equal);
  if (values)
    gst_structure_foreach (values, add_context_value, table);
  g_free (programs->monoid_context.bytes);
  programs->monoid_context.bytes = g_malloc0 (program->ctx.size);
  programs->monoid_context.serial = serial;
  programs->monoid_context.program = NULL;
  if (!cr_program_pack_context (
          program, threshold, table, programs->monoid_context.bytes, error))
    return NULL;
  programs->monoid_context.program = program;
  return programs->monoid_context.bytes;
}

CrReducer *const *
gst_cuda_reduce_programs_reducers (const GstCudaReducePrograms *programs)
{
  return (CrReducer *const *)programs->active->reducers->pdata;
}
