/* cr-monoid.h: what a monoid is, and the one place that knows the .monoid
 * file format. A monoid is parsed and validated here, before any code is
 * generated, so that every mistake a user can make in a key is reported by
 * key name rather than as a compiler error. */
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

/* The texts a monoid is made of: the keys of a .monoid file, or the
 * element's inline properties. NULL means absent. */
typedef struct {
  const gchar *name;
  const gchar *description;
  const gchar *accumulator;
  const gchar *context;
  const gchar *output;
  const gchar *load;
  const gchar *combine;
  const gchar *identity;
  const gchar *finalize;
  const gchar *bins; /* "256": the monoid also counts values in bins */
} CrMonoidText;

/* The most bins a monoid counts in: a 16-bit sample's every value. */
#define CR_BINS_MAX 65536

/* The results a monoid with bins has beside its own, in this order (all
 * uint64): the bins' counts (an array), then the values below the range,
 * above it, and NaN. NULL-terminated. */
extern const gchar *const cr_bins_field_names[5];

typedef struct {
  gchar *name;
  gchar *description;
  gchar *origin; /* "built-in", a file path, or "properties" */
  GArray *accumulator; /* CrField */
  GArray *context; /* CrField; may be empty */
  GArray *output; /* CrField; empty when there is no Finalize */
  gchar *load;
  gchar *combine;
  gchar *identity;
  gchar *finalize; /* NULL when absent */
  /* Bins of a histogram counted besides the accumulator (0: none). Even
   * bins over the context fields lo..hi (cr-program.h says how a value
   * finds its bin). A monoid with bins may go without an accumulator:
   * then it has no fields and no bodies, and only counts. */
  guint bins;
  /* A fused monoid (cr_monoid_fuse) has members and no bodies of its own:
   * its fields are the members' under the names "label.field", and its
   * output is every member's result fields, member by member. */
  GPtrArray *members; /* CrMonoid; NULL for a single monoid */
  gchar **labels; /* one per member */
} CrMonoid;

/* The origin of a monoid made of the element's inline properties (or the
 * checker's options of the same names), as error messages name it. */
#define CR_MONOID_INLINE_ORIGIN "the inline monoid properties"

/* The name of an inline monoid given none. */
#define CR_MONOID_INLINE_NAME "custom"

/* Validates @text (a blank name is CR_MONOID_INLINE_NAME); @origin names
 * where it came from in error messages. */
CrMonoid *cr_monoid_new (
    const CrMonoidText *text, const gchar *origin, GError **error);
/* Parses the contents of a .monoid file. */
CrMonoid *cr_monoid_new_from_data (
    const gchar *data, gsize length, const gchar *origin, GError **error);
CrMonoid *cr_monoid_ref (CrMonoid *monoid);
void cr_monoid_unref (CrMonoid *monoid);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CrMonoid, cr_monoid_unref)

/* @monoid with @bins bins instead of its own (the element's bins
 * property); fails for a monoid that counts none. */
CrMonoid *cr_monoid_with_bins (CrMonoid *monoid, guint bins, GError **error);

/* Whether @monoid folds an accumulator (a monoid with bins may only
 * count). */
gboolean cr_monoid_has_accumulator (const CrMonoid *monoid);

/* The fields results have: Output when there is a Finalize, else Accumulator. */
GArray *cr_monoid_result_fields (const CrMonoid *monoid);

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
  gsize size;
  gsize align;
} CrLayout;

void cr_layout_init (CrLayout *layout, GArray *fields, CrType in);
void cr_layout_clear (CrLayout *layout);
gint cr_layout_find (const CrLayout *layout, const gchar *name);

G_END_DECLS
