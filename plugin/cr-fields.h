/* cr-fields.h: the fields of a monoid's structs (accumulator, context,
 * output): their declared names and types, "name:type;name:type" as
 * monoids write them, and how host and device lay them out. */
#pragma once

#include "cr-types.h"

#include <glib.h>

G_BEGIN_DECLS

/* A field's declared type: one of the ten, or resolved per input type. */
typedef enum {
  CR_FIELD_FIXED,
  CR_FIELD_IN, /* "in": the input element type */
  CR_FIELD_WIDE, /* "wide": int64, uint64 or float64 */
} CrFieldKind;

typedef struct {
  gchar *name;
  CrFieldKind kind;
  CrType type; /* for CR_FIELD_FIXED */
} CrField;

/* Letters, digits and '_', not starting with a digit: a field name, or a
 * fused member's label. */
gboolean cr_is_identifier (const gchar *s);

/* An empty list of CrField that frees their names. */
GArray *cr_fields_new (void);
/* Parses "name:type;name:type" for key @key; exposed for tests. */
GArray *cr_fields_parse (
    const gchar *list, const gchar *key, gboolean allow_empty, GError **error);
/* The concrete type of @field for input type @in. */
CrType cr_field_resolve (const CrField *field, CrType in);

/* A struct of fields as both host and device lay it out: each field at the
 * next multiple of its size, the whole padded to its largest field. */
typedef struct {
  guint n_fields;
  const gchar **names; /* borrowed from the monoid */
  CrType *types;
  gsize *offsets;
  /* Values of the field's type: 1, or a histogram's bins (only in the
   * results the host reads, cr-program.h). */
  guint *lengths;
  /* Whether a field is reported as an array, even of one value (the
   * histogram, percentiles given as a list). */
  gboolean *arrays;
  gsize size;
  gsize align;
} CrLayout;

void cr_layout_init (CrLayout *layout, GArray *fields, CrType in);
void cr_layout_clear (CrLayout *layout);
gint cr_layout_find (const CrLayout *layout, const gchar *name);

G_END_DECLS
