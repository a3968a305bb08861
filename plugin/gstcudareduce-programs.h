/* gstcudareduce-programs.h: the monoids an element has compiled, and the
 * context packed for the one in use.
 *
 * A program is compiled and loaded once per monoid and input type, and
 * kept while the element runs, so that switching back to a monoid or a
 * format costs no compile. */
#pragma once

#include "cr-reducer.h"

#include <gst/gst.h>

G_BEGIN_DECLS

/* A program loaded on the element's device. */
typedef struct {
  CrProgram *program;
  CrReducer *reducer;
  GQuark *field_quarks; /* of the result fields, for messages */
} GstCudaReduceLoaded;

typedef struct {
  CrDevice *device;
  GHashTable *loaded; /* source -> GstCudaReduceLoaded */
  GstCudaReduceLoaded *active;
  CrMonoid *active_monoid;
  /* The context of the active program, as its kernels read it. */
  struct {
    guint8 *bytes;
    const CrProgram *program; /* packed for; NULL to pack again */
    guint serial; /* of the context properties packed */
  } context;
} GstCudaReducePrograms;

/* Holds a reference to @device until cleared. */
void gst_cuda_reduce_programs_init (
    GstCudaReducePrograms *programs, CrDevice *device);
void gst_cuda_reduce_programs_clear (GstCudaReducePrograms *programs);

/* Makes @monoid on @type the active program, compiling it unless it was
 * before, with one result per reduction (@channels 0) or one per channel.
 * Posts the error on @element on failure. */
gboolean gst_cuda_reduce_programs_use (GstCudaReducePrograms *programs,
    GstElement *element, CrMonoid *monoid, CrType type, guint channels);

/* The context of the active program from @threshold and @values (NULL, or
 * a structure of field values), packed again only when @serial or the
 * program changed: a new threshold costs a few bytes, never a compile.
 * Returns the bytes, or NULL with @error set. */
const guint8 *gst_cuda_reduce_programs_context (GstCudaReducePrograms *programs,
    guint serial, gdouble threshold, const GstStructure *values,
    GError **error);

G_END_DECLS
