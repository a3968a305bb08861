/* cr-fuse.c: several monoids as one, read in one pass.
 *
 * The product of monoids is a monoid: its accumulator holds every member's,
 * its load, combine and identity apply each member's to its own part, and
 * its finalize makes every member's result. Here the members are loaded and
 * their fields listed under qualified names ("minmax.min"), which the host
 * side (layouts, messages, tensors, context) uses like any other field
 * list; cr-program.c generates the code that maps the qualified fields onto
 * each member's own structs. */
#include "cr-monoid.h"

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

/* One item of the list: "name-or-path" or "label=name-or-path". The label
 * is the member's name when it is not given. */
static CrMonoid *
load_member (const gchar *item, guint index, const gchar *list, gchar **label,
    GError **error)
{
  g_autofree gchar *text = g_strstrip (g_strdup (item));
  const gchar *equals = cr_member_label_end (text);
  gboolean labelled = equals != NULL;
  g_autofree gchar *given =
      labelled ? g_strstrip (g_strndup (text, equals - text)) : NULL;
  const gchar *what = labelled ? equals + 1 : text;

  while (labelled && g_ascii_isspace (*what))
    what++;
  if (*what == '\0') {
    g_set_error (error, CR_ERROR, CR_ERROR_UNKNOWN_MONOID,
        "The fused monoid \"%s\" has an empty member %u; write members as "
        "name+name (built-ins or .monoid files), each optionally labelled "
        "label=name",
        list, index + 1);
    return NULL;
  }
  /* "lo=hi=count_gt": refused before it is loaded, as the list it would
   * be, so that a value of many labels does not recurse once per label. */
  if (labelled && cr_monoid_names_a_list (what)) {
    g_set_error (error, CR_ERROR, CR_ERROR_UNKNOWN_MONOID,
        "In the fused monoid \"%s\", member %u (\"%s\") has more than one "
        "label; label a member once, as label=name",
        list, index + 1, text);
    return NULL;
  }
  CrMonoid *m = cr_monoid_load (what, error);
  if (m == NULL) {
    g_prefix_error (
        error, "In the fused monoid \"%s\", member %u: ", list, index + 1);
    return NULL;
  }
  const gchar *name = given ? given : m->name;
  /* A label, like a field name, is an identifier: "label.field" is then a
   * field name that GstStructure's text form reads back. */
  if (!cr_is_identifier (name)) {
    if (given)
      g_set_error (error, CR_ERROR, CR_ERROR_FIELDS,
          "In the fused monoid \"%s\", the label \"%s\" of member %u is not "
          "usable; use letters, digits and underscores, not starting with a "
          "digit",
          list, given, index + 1);
    else
      g_set_error (error, CR_ERROR, CR_ERROR_FIELDS,
          "In the fused monoid \"%s\", member %u is named \"%s\", which "
          "cannot label its result fields; label it label=%s, with letters, "
          "digits and underscores",
          list, index + 1, name, what);
    cr_monoid_unref (m);
    return NULL;
  }
  *label = g_strdup (name);
  return m;
}

CrMonoid *
cr_monoid_fuse (const gchar *list, GError **error)
{
  g_auto (GStrv) items = g_strsplit (list, "+", -1);
  g_autoptr (GPtrArray) members =
      g_ptr_array_new_with_free_func ((GDestroyNotify)cr_monoid_unref);
  g_autoptr (GStrvBuilder) labels = g_strv_builder_new ();
  g_autoptr (GHashTable) seen =
      g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint k = 0; items[k]; k++) {
    gchar *label = NULL;
    CrMonoid *m = load_member (items[k], k, list, &label, error);
    if (m == NULL)
      return NULL;
    g_ptr_array_add (members, m);
    if (!g_hash_table_add (seen, label)) {
      g_set_error (error, CR_ERROR, CR_ERROR_FIELDS,
          "In the fused monoid \"%s\", two members are labelled \"%s\", so "
          "their result fields would have the same names; label them apart, "
          "e.g. lo=%s+hi=%s",
          list, label, label, label);
      return NULL;
    }
    g_strv_builder_add (labels, label);
  }

  g_autoptr (CrMonoid) fused = g_atomic_rc_box_new0 (CrMonoid);
  GString *name = g_string_new (NULL);
  GString *origin = g_string_new ("fused from ");
  GString *description = g_string_new ("Fused:");
  fused->labels = g_strv_builder_end (labels);
  fused->accumulator = cr_fields_new ();
  fused->context = cr_fields_new ();
  fused->output = cr_fields_new ();
  for (guint k = 0; k < members->len; k++) {
    CrMonoid *m = g_ptr_array_index (members, k);
    const gchar *label = fused->labels[k];
    if (strcmp (label, m->name) == 0)
      g_string_append_printf (name, "%s%s", k ? "+" : "", label);
    else
      g_string_append_printf (name, "%s%s=%s", k ? "+" : "", label, m->name);
    g_string_append_printf (origin, "%s%s", k ? ", " : "", m->origin);
    g_string_append_printf (description, "%s %s (%s)", k ? ";" : "", label,
        m->description[0] ? m->description : m->name);
    add_qualified (fused->accumulator, m->accumulator, label);
    add_qualified (fused->context, m->context, label);
    add_qualified (fused->output, cr_monoid_result_fields (m), label);
  }
  fused->name = g_string_free (name, FALSE);
  fused->origin = g_string_free (origin, FALSE);
  fused->description = g_string_free (description, FALSE);
  fused->members = g_steal_pointer (&members);
  return g_steal_pointer (&fused);
}

const gchar *
cr_member_label_end (const gchar *item)
{
  /* A '=' after a '/' belongs to a path. */
  const gchar *equals = strchr (item, '=');
  const gchar *slash = strchr (item, '/');
  return equals && (slash == NULL || equals < slash) ? equals : NULL;
}

const gchar *
cr_field_base_name (const gchar *name)
{
  const gchar *dot = strchr (name, '.');
  return dot ? dot + 1 : name;
}
