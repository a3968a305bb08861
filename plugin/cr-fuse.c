/* cr-fuse.c: several monoids as one, read in one pass.
 *
 * The product of monoids is a monoid: its accumulator holds every member's,
 * its load, combine and identity apply each member's to its own part, and
 * its finalize makes every member's result. Here members already loaded
 * (cr-monoid-names.c resolves the names) have their fields listed under
 * qualified names ("minmax.min"), which the host side (layouts, messages,
 * tensors, context) uses like any other field list; cr-program.c generates
 * the code that maps the qualified fields onto each member's own structs.
 * One member may count bins: the fused monoid counts them, and its counts
 * and percentiles keep their own names (histogram, low, ...). */
#include "cr-fuse.h"

#include "cr-error.h"

#include <string.h>

/* Appends @label's copy of each of @fields to @fused. */
static void
add_qualified (GArray *fused, GArray *fields, const gchar *label)
{
  for (guint f = 0; f < fields->len; f++) {
    CrField field = g_array_index (fields, CrField, f);
    field.name = g_strconcat (label, ".", field.name, NULL);
    g_array_append_val (fused, field);
  }
}

/* "lo=count_gt+hi=count_gt+sum": a member's label is written only where it
 * is not the member's name. */
static gchar *
fused_name (GPtrArray *members, const gchar *const *labels)
{
  GString *name = g_string_new (NULL);
  for (guint k = 0; k < members->len; k++) {
    const CrMonoid *m = g_ptr_array_index (members, k);
    if (strcmp (labels[k], m->name) == 0)
      g_string_append_printf (name, "%s%s", k ? "+" : "", labels[k]);
    else
      g_string_append_printf (
          name, "%s%s=%s", k ? "+" : "", labels[k], m->name);
  }
  return g_string_free (name, FALSE);
}

CrMonoid *
cr_monoid_fuse (GPtrArray *members, const gchar *const *labels, GError **error)
{
  g_return_val_if_fail (members != NULL && members->len > 0, NULL);
  g_return_val_if_fail (labels != NULL, NULL);
  g_return_val_if_fail (g_strv_length ((gchar **)labels) == members->len, NULL);

  g_autofree gchar *name = fused_name (members, labels);
  for (guint k = 0; k < members->len; k++) {
    g_return_val_if_fail (cr_is_identifier (labels[k]), NULL);
    for (guint j = 0; j < k; j++)
      if (strcmp (labels[j], labels[k]) == 0) {
        g_set_error (error, CR_ERROR, CR_ERROR_FIELDS,
            "In the fused monoid \"%s\", two members are labelled \"%s\", so "
            "their result fields would have the same names; label them "
            "apart, e.g. lo=%s+hi=%s",
            name, labels[k], labels[k], labels[k]);
        return NULL;
      }
  }

  /* The counts are the fused monoid's, under their own names: one member
   * may count bins. */
  const CrMonoid *binned = NULL;
  const gchar *binned_label = NULL;
  for (guint k = 0; k < members->len; k++) {
    const CrMonoid *m = g_ptr_array_index (members, k);
    if (m->bins == 0)
      continue;
    if (m->pair != NULL) {
      g_set_error (error, CR_ERROR, CR_ERROR_FIELDS,
          "In the fused monoid \"%s\", %s counts pairs of %s and %s, and a "
          "2-D histogram does not fuse (it reads two components of a "
          "pixel, the other members one value at a time); use a second "
          "cudareduce element for it",
          name, labels[k], m->pair[0], m->pair[1]);
      return NULL;
    }
    if (binned != NULL) {
      g_set_error (error, CR_ERROR, CR_ERROR_FIELDS,
          "In the fused monoid \"%s\", %s and %s both count bins, and a "
          "fused monoid has one histogram; use a second cudareduce element "
          "for the other",
          name, binned_label, labels[k]);
      return NULL;
    }
    binned = m;
    binned_label = labels[k];
  }

  g_autoptr (CrMonoid) fused = g_atomic_rc_box_new0 (CrMonoid);
  GString *origin = g_string_new ("fused from ");
  GString *description = g_string_new ("Fused:");
  fused->labels = g_strdupv ((gchar **)labels);
  fused->accumulator = cr_fields_new ();
  fused->context = cr_fields_new ();
  fused->output = cr_fields_new ();
  if (binned) {
    fused->bins = binned->bins;
    fused->bin = g_strdup (binned->bin);
    fused->percentiles = g_array_ref (binned->percentiles);
    fused->bins_label = g_strdup (binned_label);
  } else {
    fused->percentiles = cr_percentiles_new ();
  }
  fused->members =
      g_ptr_array_new_with_free_func ((GDestroyNotify)cr_monoid_unref);
  for (guint k = 0; k < members->len; k++) {
    CrMonoid *m = g_ptr_array_index (members, k);
    const gchar *label = labels[k];
    g_string_append_printf (origin, "%s%s", k ? ", " : "", m->origin);
    g_string_append_printf (description, "%s %s (%s)", k ? ";" : "", label,
        m->description[0] ? m->description : m->name);
    add_qualified (fused->accumulator, m->accumulator, label);
    add_qualified (fused->context, m->context, label);
    add_qualified (fused->output, cr_monoid_result_fields (m), label);
    g_ptr_array_add (fused->members, cr_monoid_ref (m));
  }
  fused->name = g_steal_pointer (&name);
  fused->origin = g_string_free (origin, FALSE);
  fused->description = g_string_free (description, FALSE);
  return g_steal_pointer (&fused);
}

const gchar *
cr_field_base_name (const gchar *name)
{
  const gchar *dot = strchr (name, '.');
  return dot ? dot + 1 : name;
}
