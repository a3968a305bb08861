/* cr-monoid.h: what a monoid is, and the one place that knows the .monoid
 * file format. A monoid is parsed and validated here, before any code is
 * generated, so that every mistake a user can make in a key is reported by
 * key name rather than as a compiler error. */
#pragma once

#include "cr-fields.h"

#include <glib.h>

G_BEGIN_DECLS

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
  const gchar *bin; /* body: the bin of a value, instead of even bins */
  const gchar *percentiles; /* "low:0.1;high:0.9" */
  const gchar *pair; /* "U,V": the bins count pairs of two components */
} CrMonoidText;

/* The most bins a monoid counts in: a 16-bit sample's every value. */
#define CR_BINS_MAX 65536

/* The most bins along each axis of a 2-D histogram (Pair): CR_BINS_MAX
 * in all. */
#define CR_PAIR_BINS_MAX 256

/* The results a monoid with bins has beside its own, in this order (all
 * uint64): the bins' counts (an array), then the values below the range,
 * above it, and NaN. NULL-terminated. */
extern const gchar *const cr_bins_field_names[5];

/* Percentiles of the counts, a result field of float64 each: one value
 * (Percentiles=low:0.1 in a file), or an array (several points, or the
 * element's percentiles property, whose field is "percentiles"). */
typedef struct {
  gchar *name;
  GArray *points; /* gdouble, each from 0 to 1 */
  gboolean array;
} CrPercentiles;

/* An empty list of CrPercentiles that frees them. */
GArray *cr_percentiles_new (void);

/* The result field of the element's percentiles property. */
#define CR_PERCENTILES_FIELD "percentiles"
/* The most points a monoid's percentiles have together: each is a constant
 * of the generated source and a value of every result. */
#define CR_PERCENTILES_MAX 256

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
  /* The body of cr_bin, which gives a value's bin (a number below 0 counts
   * as below, one past the last bin as above) instead of even bins over
   * lo..hi; NULL for even bins. */
  gchar *bin;
  /* Two components of one pixel (or row of channels): names ("U", "R")
   * or per-channel indices ("1"), which the element resolves for its
   * input. With a pair the monoid only counts, in bins x bins bins: a
   * 2-D histogram of the first against the second. NULL: one value at a
   * time. */
  gchar **pair;
  /* Reported from the counts, after them (empty without bins). */
  GArray *percentiles; /* CrPercentiles */
  /* A fused monoid (cr_monoid_fuse) has members and no bodies of its own:
   * its fields are the members' under the names "label.field", and its
   * output is every member's result fields, member by member. */
  GPtrArray *members; /* CrMonoid; NULL for a single monoid */
  gchar **labels; /* one per member */
  /* The label of the member that counts the bins (at most one does),
   * whose bins, Bin and percentiles are the fused monoid's; NULL for a
   * single monoid or when none does. */
  gchar *bins_label;
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
/* @monoid counting pairs of the components @pair ("R,G") instead of its
 * own pair or single values (the element's pair property); fails for a
 * monoid that cannot count pairs. */
CrMonoid *cr_monoid_with_pair (
    CrMonoid *monoid, const gchar *pair, GError **error);
/* The bins a monoid counts in: bins, or bins x bins with a pair. */
guint cr_monoid_total_bins (const CrMonoid *monoid);
/* @monoid reporting the percentiles @points (gdouble, 0 to 1) too, as the
 * array CR_PERCENTILES_FIELD (the element's percentiles property); fails
 * for a monoid that counts no bins, and for points out of range. */
CrMonoid *cr_monoid_with_percentiles (
    CrMonoid *monoid, const GArray *points, GError **error);
/* Every percentile point of @monoid, in the order of its fields. */
GArray *cr_monoid_percentile_points (const CrMonoid *monoid);

/* Whether @monoid folds an accumulator (a monoid with bins may only
 * count). */
gboolean cr_monoid_has_accumulator (const CrMonoid *monoid);

/* The fields results have: Output when there is a Finalize, else Accumulator. */
GArray *cr_monoid_result_fields (const CrMonoid *monoid);

G_END_DECLS
