/* cr-monoid.c: parsing and validating monoids. */
#include "cr-monoid.h"

#include "cr-error.h"
#include "cr-monoid-body.h"
#include "cr-reserved.h"

#include <string.h>

#define MONOID_GROUP "Monoid"

static const gchar *const known_keys[] = { "Name", "Description", "Accumulator",
  "Context", "Output", "Load", "Combine", "Identity", "Finalize", "Bins",
  NULL };

const gchar *const cr_bins_field_names[5] = { "histogram", "below", "above",
  "nan", NULL };

gboolean
cr_is_identifier (const gchar *s)
{
  if (!(g_ascii_isalpha (*s) || *s == '_'))
    return FALSE;
  for (s++; *s; s++)
    if (!(g_ascii_isalnum (*s) || *s == '_'))
      return FALSE;
  return TRUE;
}

static void
field_clear (gpointer data)
{
  g_free (((CrField *)data)->name);
}

GArray *
cr_fields_new (void)
{
  GArray *fields = g_array_new (FALSE, TRUE, sizeof (CrField));
  g_array_set_clear_func (fields, field_clear);
  return fields;
}

GArray *
cr_fields_parse (
    const gchar *list, const gchar *key, gboolean allow_empty, GError **error)
{
  g_autoptr (GArray) fields = cr_fields_new ();
  g_auto (GStrv) items = g_strsplit (list ? list : "", ";", -1);
  /* The names so far, borrowed from @fields: lists may be long. */
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint k = 0; items[k]; k++) {
    g_strstrip (items[k]);
    if (items[k][0] == '\0')
      continue; /* "a:int32;" and "a:int32; ;b:int32" */
    const gchar *colon = strchr (items[k], ':');
    if (colon == NULL) {
      g_set_error (error, CR_ERROR, CR_ERROR_FIELDS,
          "%s: field \"%s\" has no type; write name:type, e.g. sum:wide", key,
          items[k]);
      return NULL;
    }
    g_autofree gchar *name =
        g_strstrip (g_strndup (items[k], colon - items[k]));
    g_autofree gchar *type = g_strstrip (g_strdup (colon + 1));
    if (!cr_is_identifier (name)) {
      g_set_error (error, CR_ERROR, CR_ERROR_FIELDS,
          "%s: \"%s\" is not a usable field name; use letters, digits and "
          "underscores, not starting with a digit",
          key, name);
      return NULL;
    }
    const gchar *why = cr_reserved_name_why (name);
    if (why) {
      g_set_error (error, CR_ERROR, CR_ERROR_FIELDS,
          "%s: the field name \"%s\" %s; choose another name", key, name, why);
      return NULL;
    }
    if (g_hash_table_contains (seen, name)) {
      g_set_error (error, CR_ERROR, CR_ERROR_FIELDS,
          "%s: field \"%s\" is declared twice", key, name);
      return NULL;
    }
    CrField field = { NULL, CR_FIELD_FIXED, cr_type_from_name (type) };
    if (strcmp (type, "in") == 0)
      field.kind = CR_FIELD_IN;
    else if (strcmp (type, "wide") == 0)
      field.kind = CR_FIELD_WIDE;
    else if (field.type == CR_TYPE_INVALID) {
      g_set_error (error, CR_ERROR, CR_ERROR_FIELDS,
          "%s: field \"%s\" has unknown type \"%s\"; use in, wide, int8, "
          "uint8, int16, uint16, int32, uint32, int64, uint64, float32 or "
          "float64",
          key, name, type);
      return NULL;
    }
    field.name = g_steal_pointer (&name);
    g_array_append_val (fields, field);
    g_hash_table_add (seen, field.name);
  }
  if (fields->len == 0 && !allow_empty) {
    g_set_error (error, CR_ERROR, CR_ERROR_FIELDS,
        "%s declares no fields; write name:type;name:type", key);
    return NULL;
  }
  return g_steal_pointer (&fields);
}

CrType
cr_field_resolve (const CrField *field, CrType in)
{
  switch (field->kind) {
    case CR_FIELD_IN:
      return in;
    case CR_FIELD_WIDE:
      return cr_type_wide (in);
    default:
      return field->type;
  }
}

static void
monoid_clear (gpointer data)
{
  CrMonoid *m = data;
  g_free (m->name);
  g_free (m->description);
  g_free (m->origin);
  g_clear_pointer (&m->accumulator, g_array_unref);
  g_clear_pointer (&m->context, g_array_unref);
  g_clear_pointer (&m->output, g_array_unref);
  g_free (m->load);
  g_free (m->combine);
  g_free (m->identity);
  g_free (m->finalize);
  g_clear_pointer (&m->members, g_ptr_array_unref);
  g_strfreev (m->labels);
}

CrMonoid *
cr_monoid_ref (CrMonoid *monoid)
{
  return g_atomic_rc_box_acquire (monoid);
}

void
cr_monoid_unref (CrMonoid *monoid)
{
  g_atomic_rc_box_release_full (monoid, monoid_clear);
}

static gboolean
is_blank (const gchar *s)
{
  if (s == NULL)
    return TRUE;
  for (; *s; s++)
    if (!g_ascii_isspace (*s))
      return FALSE;
  return TRUE;
}

/* "Bins=256": a whole number from 1 to CR_BINS_MAX, or absent (0). */
static gboolean
parse_bins (const gchar *text, const gchar *origin, guint *bins, GError **error)
{
  *bins = 0;
  if (is_blank (text))
    return TRUE;
  g_autofree gchar *stripped = g_strstrip (g_strdup (text));
  guint64 value = 0;
  if (!g_ascii_string_to_unsigned (
          stripped, 10, 1, CR_BINS_MAX, &value, NULL)) {
    g_set_error (error, CR_ERROR, CR_ERROR_MONOID_INVALID,
        "%s: Bins=%s is not a number of bins; give a whole number from 1 "
        "to %d",
        origin, stripped, CR_BINS_MAX);
    return FALSE;
  }
  *bins = (guint)value;
  return TRUE;
}

/* Even bins read their range from the context fields lo and hi, and the
 * counts are results beside the monoid's own. */
static gboolean
check_bins_fields (
    const CrMonoid *m, GArray *results, const gchar *origin, GError **error)
{
  static const gchar *const range[] = { "lo", "hi" };
  for (guint k = 0; k < G_N_ELEMENTS (range); k++) {
    gboolean found = FALSE;
    for (guint f = 0; f < m->context->len; f++) {
      const CrField *field = &g_array_index (m->context, CrField, f);
      if (strcmp (field->name, range[k]) != 0)
        continue;
      found = field->kind == CR_FIELD_FIXED && field->type == CR_TYPE_FLOAT64;
    }
    if (!found) {
      g_set_error (error, CR_ERROR, CR_ERROR_FIELDS,
          "%s: Bins: the bins are even over the context fields lo and hi, "
          "which the monoid must declare as float64: "
          "Context=lo:float64;hi:float64",
          origin);
      return FALSE;
    }
  }
  for (guint f = 0; f < results->len; f++) {
    const gchar *name = g_array_index (results, CrField, f).name;
    if (g_strv_contains (cr_bins_field_names, name)) {
      g_set_error (error, CR_ERROR, CR_ERROR_FIELDS,
          "%s: the field name \"%s\" is taken by the counts of the bins "
          "(histogram, below, above, nan); rename it",
          origin, name);
      return FALSE;
    }
  }
  return TRUE;
}

static gboolean
require_body (
    const gchar *body, const gchar *key, const gchar *origin, GError **error)
{
  if (!is_blank (body))
    return TRUE;
  g_set_error (error, CR_ERROR, CR_ERROR_MONOID_INVALID,
      "%s: the key %s is missing or empty; it must hold the body of a "
      "function that returns an Acc",
      origin, key);
  return FALSE;
}

CrMonoid *
cr_monoid_new (const CrMonoidText *text, const gchar *origin, GError **error)
{
  g_autoptr (CrMonoid) m = g_atomic_rc_box_new0 (CrMonoid);
  g_autoptr (GError) field_error = NULL;

  m->origin = g_strdup (origin);
  m->name =
      g_strdup (is_blank (text->name) ? CR_MONOID_INLINE_NAME : text->name);
  m->description = g_strdup (text->description ? text->description : "");

  if (!parse_bins (text->bins, origin, &m->bins, error))
    return NULL;
  /* A histogram alone: no accumulator, no bodies. */
  const gboolean counts_only = m->bins > 0 && is_blank (text->accumulator)
      && is_blank (text->load) && is_blank (text->combine)
      && is_blank (text->identity) && is_blank (text->finalize)
      && is_blank (text->output);
  if (is_blank (text->accumulator) && !counts_only) {
    g_set_error (error, CR_ERROR, CR_ERROR_MONOID_INVALID,
        "%s: the key Accumulator is missing or empty; declare the "
        "accumulator's fields as name:type;name:type%s",
        origin,
        m->bins ? " (or leave out Load, Combine and Identity too, to "
                  "count bins only)"
                : "");
    return NULL;
  }
  if (!counts_only
      && (!require_body (text->load, "Load", origin, error)
          || !require_body (text->combine, "Combine", origin, error)
          || !require_body (text->identity, "Identity", origin, error)))
    return NULL;
  const struct {
    const gchar *key, *body;
  } bodies[] = { { "Load", text->load }, { "Combine", text->combine },
    { "Identity", text->identity }, { "Finalize", text->finalize } };
  for (guint k = 0; k < G_N_ELEMENTS (bodies); k++)
    if (bodies[k].body
        && !cr_monoid_body_check (bodies[k].body, bodies[k].key, origin, error))
      return NULL;
  if (is_blank (text->output) != is_blank (text->finalize)) {
    g_set_error (error, CR_ERROR, CR_ERROR_MONOID_INVALID,
        "%s: Output and Finalize go together; %s is set but %s is not", origin,
        is_blank (text->output) ? "Finalize" : "Output",
        is_blank (text->output) ? "Output" : "Finalize");
    return NULL;
  }

  m->accumulator = cr_fields_parse (
      text->accumulator, "Accumulator", counts_only, &field_error);
  if (m->accumulator)
    m->context = cr_fields_parse (text->context, "Context", TRUE, &field_error);
  if (m->context)
    /* Empty only without a Finalize, which would have no result to make:
     * "Output=;" is not blank, and lists nothing. */
    m->output = cr_fields_parse (
        text->output, "Output", is_blank (text->finalize), &field_error);
  if (m->output == NULL) {
    g_set_error (error, CR_ERROR, CR_ERROR_FIELDS, "%s: %s", origin,
        field_error->message);
    return NULL;
  }

  /* Results become fields of the bus message beside these. */
  static const gchar *const message_fields[] = { "timestamp", "duration",
    "monoid", "count", "channels", "counts", NULL };
  GArray *results =
      text->finalize && !is_blank (text->finalize) ? m->output : m->accumulator;
  for (guint f = 0; f < results->len; f++) {
    const gchar *name = g_array_index (results, CrField, f).name;
    if (g_strv_contains (message_fields, name)) {
      g_set_error (error, CR_ERROR, CR_ERROR_FIELDS,
          "%s: %s: the field name \"%s\" is taken by the bus message's own "
          "field of that name; rename it",
          origin, results == m->output ? "Output" : "Accumulator", name);
      return NULL;
    }
  }

  if (m->bins > 0 && !check_bins_fields (m, results, origin, error))
    return NULL;

  m->load = g_strdup (text->load);
  m->combine = g_strdup (text->combine);
  m->identity = g_strdup (text->identity);
  m->finalize = is_blank (text->finalize) ? NULL : g_strdup (text->finalize);
  return g_steal_pointer (&m);
}

/* GLib unescapes string values itself, but on a bad escape followed by a
 * trailing backslash (Name=\q\) it sets its GError twice and warns, which
 * aborts a process running with fatal warnings. So the escapes of the keys
 * read as strings are checked here first, by the key file format's rules:
 * a backslash comes before s, n, t, r or another backslash, nothing else. */
static gboolean
check_escapes (
    GKeyFile *kf, const gchar *key, const gchar *origin, GError **error)
{
  g_autofree gchar *value = g_key_file_get_value (kf, MONOID_GROUP, key, NULL);
  for (const gchar *p = value; p && *p; p++) {
    if (*p != '\\')
      continue;
    p++;
    if (*p == '\0') {
      g_set_error (error, CR_ERROR, CR_ERROR_MONOID_INVALID,
          "%s: the key %s ends in a lone backslash; write \\\\ for a "
          "backslash",
          origin, key);
      return FALSE;
    }
    if (strchr ("sntr\\", *p) == NULL) {
      g_set_error (error, CR_ERROR, CR_ERROR_MONOID_INVALID,
          "%s: the key %s has the invalid escape \"\\%c\"; a value may use "
          "\\s, \\n, \\t, \\r and \\\\ only",
          origin, key, g_ascii_isgraph (*p) ? *p : '?');
      return FALSE;
    }
  }
  return TRUE;
}

/* @key read as a string (unescaped), NULL when absent. */
static gboolean
get_string (GKeyFile *kf, const gchar *key, gboolean localized,
    const gchar *origin, gchar **value, GError **error)
{
  g_autoptr (GError) kf_error = NULL;
  *value = localized
      ? g_key_file_get_locale_string (kf, MONOID_GROUP, key, NULL, &kf_error)
      : g_key_file_get_string (kf, MONOID_GROUP, key, &kf_error);
  if (kf_error == NULL
      || g_error_matches (
          kf_error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_KEY_NOT_FOUND))
    return TRUE;
  g_clear_pointer (value, g_free);
  g_set_error (error, CR_ERROR, CR_ERROR_MONOID_INVALID,
      "%s: the key %s cannot be read: %s", origin, key, kf_error->message);
  return FALSE;
}

CrMonoid *
cr_monoid_new_from_data (
    const gchar *data, gsize length, const gchar *origin, GError **error)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autoptr (GError) kf_error = NULL;

  /* Translations kept, so that a file is checked the same in every locale
   * (GLib drops the ones for other languages when it loads). */
  if (!g_key_file_load_from_data (
          kf, data, length, G_KEY_FILE_KEEP_TRANSLATIONS, &kf_error)) {
    g_set_error (error, CR_ERROR, CR_ERROR_MONOID_FILE,
        "%s is not a valid monoid file: %s", origin, kf_error->message);
    return NULL;
  }
  if (!g_key_file_has_group (kf, MONOID_GROUP)) {
    g_set_error (error, CR_ERROR, CR_ERROR_MONOID_INVALID,
        "%s has no [" MONOID_GROUP "] group", origin);
    return NULL;
  }
  g_auto (GStrv) keys = g_key_file_get_keys (kf, MONOID_GROUP, NULL, NULL);
  for (guint k = 0; keys && keys[k]; k++) {
    if (!g_strv_contains (known_keys, keys[k]) && !strchr (keys[k], '[')) {
      g_set_error (error, CR_ERROR, CR_ERROR_MONOID_INVALID,
          "%s: unknown key %s; the keys are Name, Description, Accumulator, "
          "Context, Output, Load, Combine, Identity, Finalize and Bins",
          origin, keys[k]);
      return NULL;
    }
    if ((strcmp (keys[k], "Name") == 0
            || g_str_has_prefix (keys[k], "Description"))
        && !check_escapes (kf, keys[k], origin, error))
      return NULL;
  }

  /* Bodies are raw strings: get_value keeps backslashes as written, so
   * C escapes such as '\n' reach the compiler untouched. */
#define GET(key) g_key_file_get_value (kf, MONOID_GROUP, key, NULL)
  g_autofree gchar *name = NULL;
  g_autofree gchar *description = NULL;
  if (!get_string (kf, "Name", FALSE, origin, &name, error)
      || !get_string (kf, "Description", TRUE, origin, &description, error))
    return NULL;
  g_autofree gchar *accumulator = GET ("Accumulator");
  g_autofree gchar *context = GET ("Context");
  g_autofree gchar *output = GET ("Output");
  g_autofree gchar *load = GET ("Load");
  g_autofree gchar *combine = GET ("Combine");
  g_autofree gchar *identity = GET ("Identity");
  g_autofree gchar *finalize = GET ("Finalize");
  g_autofree gchar *bins = GET ("Bins");
#undef GET

  if (name == NULL) {
    g_autofree gchar *base = g_path_get_basename (origin);
    if (g_str_has_suffix (base, ".monoid"))
      base[strlen (base) - strlen (".monoid")] = '\0';
    name = g_steal_pointer (&base);
  }
  CrMonoidText text = { name, description, accumulator, context, output, load,
    combine, identity, finalize, bins };
  return cr_monoid_new (&text, origin, error);
}

gboolean
cr_monoid_has_accumulator (const CrMonoid *monoid)
{
  return monoid->accumulator->len > 0;
}

CrMonoid *
cr_monoid_with_bins (CrMonoid *m, guint bins, GError **error)
{
  if (m->bins == 0) {
    g_set_error (error, CR_ERROR, CR_ERROR_FIELDS,
        "bins=%u is set, but monoid %s counts no bins; use a monoid with "
        "bins (histogram) or leave bins at 0",
        bins, m->name);
    return NULL;
  }
  if (bins == 0 || bins > CR_BINS_MAX) {
    g_set_error (error, CR_ERROR, CR_ERROR_FIELDS,
        "bins=%u: a histogram has 1 to %d bins", bins, CR_BINS_MAX);
    return NULL;
  }
  if (bins == m->bins)
    return cr_monoid_ref (m);
  CrMonoid *copy = g_atomic_rc_box_new0 (CrMonoid);
  copy->name = g_strdup (m->name);
  copy->description = g_strdup (m->description);
  copy->origin = g_strdup (m->origin);
  copy->accumulator = g_array_ref (m->accumulator);
  copy->context = g_array_ref (m->context);
  copy->output = g_array_ref (m->output);
  copy->load = g_strdup (m->load);
  copy->combine = g_strdup (m->combine);
  copy->identity = g_strdup (m->identity);
  copy->finalize = g_strdup (m->finalize);
  copy->bins = bins;
  if (m->members)
    copy->members = g_ptr_array_ref (m->members);
  copy->labels = g_strdupv (m->labels);
  return copy;
}

GArray *
cr_monoid_result_fields (const CrMonoid *monoid)
{
  return monoid->finalize || monoid->members ? monoid->output
                                             : monoid->accumulator;
}

void
cr_layout_init (CrLayout *layout, GArray *fields, CrType in)
{
  layout->n_fields = fields->len;
  layout->names = g_new0 (const gchar *, fields->len + 1);
  layout->types = g_new0 (CrType, fields->len + 1);
  layout->offsets = g_new0 (gsize, fields->len + 1);
  layout->lengths = g_new0 (guint, fields->len + 1);
  layout->size = 0;
  layout->align = 1;
  for (guint f = 0; f < fields->len; f++) {
    const CrField *field = &g_array_index (fields, CrField, f);
    CrType type = cr_field_resolve (field, in);
    gsize size = cr_type_size (type);
    layout->names[f] = field->name;
    layout->types[f] = type;
    layout->lengths[f] = 1;
    layout->offsets[f] = (layout->size + size - 1) / size * size;
    layout->size = layout->offsets[f] + size;
    layout->align = MAX (layout->align, size);
  }
  /* A struct with no fields still exists on the device (the codegen gives
   * it one placeholder word) so that every kernel has the same shape. */
  if (fields->len == 0) {
    layout->size = 4;
    layout->align = 4;
  }
  layout->size =
      (layout->size + layout->align - 1) / layout->align * layout->align;
}

void
cr_layout_clear (CrLayout *layout)
{
  g_clear_pointer (&layout->names, g_free);
  g_clear_pointer (&layout->types, g_free);
  g_clear_pointer (&layout->offsets, g_free);
  g_clear_pointer (&layout->lengths, g_free);
}

gint
cr_layout_find (const CrLayout *layout, const gchar *name)
{
  for (guint f = 0; f < layout->n_fields; f++)
    if (strcmp (layout->names[f], name) == 0)
      return (gint)f;
  return -1;
}
