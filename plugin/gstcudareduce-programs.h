/* gstcudareduce-programs.h: the monoids an element has compiled, and the
 * context packed for the one in use.
 *
 * A program is compiled and loaded once per monoid and input type, and
 * kept while the element runs, so that switching back to a monoid or a
 * format costs no compile. */
#pragma once

#include "cr-reducer.h"
#include "gstcudareduce-plan.h"

#include <gst/gst.h>

G_BEGIN_DECLS

/* A program loaded on the element's device, with a reducer for each state
 * a plan's parts carry (one per plane of per-channel YUV). */
typedef struct {
  CrProgram *program;
  GPtrArray *reducers; /* CrReducer, at least one */
  GQuark *field_quarks; /* of the result fields, for messages */
} GstCudaReduceProgram;

typedef struct {
  CrDevice *device;
  GHashTable *by_source; /* source -> GstCudaReduceProgram */
  GstCudaReduceProgram *active;
  CrMonoid *active_monoid;
  /* The context of the active program, as its kernels read it. */
  struct {
    guint8 *bytes;
    const CrProgram *program; /* packed for; NULL to pack again */
    guint serial; /* of the context properties packed */
  } monoid_context;
} GstCudaReducePrograms;

/* Holds a reference to @device until cleared. */
void gst_cuda_reduce_programs_init (
    GstCudaReducePrograms *programs, CrDevice *device);
void gst_cuda_reduce_programs_clear (GstCudaReducePrograms *programs);

/* Makes @monoid on @type the active program for @plan's reducers, each
 * keeping a sliding window of @window_hops intervals (1: none), compiling
 * it unless it was before. Posts the error on @element on failure. */
gboolean gst_cuda_reduce_programs_use (GstCudaReducePrograms *programs,
    GstElement *element, CrMonoid *monoid, CrType type,
    const GstCudaReducePlan *plan, guint window_hops);

/* The active program's reducers, one per state the plan keeps. */
CrReducer *const *gst_cuda_reduce_programs_reducers (
    const GstCudaReducePrograms *programs);

/* Reducer @k of the active program. */
#define gst_cuda_reduce_programs_reducer(programs, k) \
  ((CrReducer *)g_ptr_array_index ((programs)->active->reducers, (k)))

/* The context of the active program from @threshold and @values (NULL, or
 * a structure of field values), packed again only when @serial or the
 * program changed: a new threshold costs a few bytes, never a compile.
 * Returns the bytes, or NULL with @error set. */
const guint8 *gst_cuda_reduce_programs_monoid_context (
    GstCudaReducePrograms *programs, guint serial, gdouble threshold,
    const GstStructure *values, GError **error);

G_END_DECLS
