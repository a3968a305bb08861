/* cr-monoid.c: parsing and validating monoids. */
#include "cr-monoid.h"

#include "cr-error.h"
#include "cr-monoid-body.h"
#include "cr-reserved.h"

#include <string.h>

#define MONOID_GROUP "Monoid"

static const gchar *const known_keys[] = { "Name", "Description", "Accumulator",
  "Context", "Output", "Load", "Combine", "Identity", "Finalize", "Bins", "Bin",
  "Percentiles", "Pair", NULL };

const gchar *const cr_bins_field_names[5] = { "histogram", "below", "above",
  "nan", NULL };

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
  g_free (m->bin);
  g_strfreev (m->pair);
  g_clear_pointer (&m->percentiles, g_array_unref);
  g_clear_pointer (&m->members, g_ptr_array_unref);
  g_strfreev (m->labels);
  g_free (m->bins_label);
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

/* The component names a pair may give, besides per-channel indices. */
static const gchar *const component_names[] = { "Y", "U", "V", "R", "G", "B",
  "A", NULL };

/* "U,V": two component names or indices (the key or property @what). */
static gboolean
parse_pair (const gchar *text, const gchar *what, const gchar *origin,
    gchar ***pair, GError **error)
{
  g_auto (GStrv) parts = g_strsplit (text, ",", -1);
  gboolean ok = g_strv_length (parts) == 2;
  for (guint k = 0; ok && parts[k]; k++) {
    g_strstrip (parts[k]);
    g_autofree gchar *upper = g_ascii_strup (parts[k], -1);
    if (g_strv_contains (component_names, upper)) {
      g_free (parts[k]);
      parts[k] = g_steal_pointer (&upper);
    } else {
      ok = g_ascii_string_to_unsigned (parts[k], 10, 0, G_MAXINT, NULL, NULL);
    }
  }
  if (!ok) {
    g_set_error (error, CR_ERROR, CR_ERROR_MONOID_INVALID,
        "%s: %s=%s is not a pair of components; give two, separated by a "
        "comma, each one of Y, U, V, R, G, B, A or the index per-channel "
        "results give it (an audio channel, say): U,V for a vectorscope",
        origin, what, text);
    return FALSE;
  }
  *pair = g_steal_pointer (&parts);
  return TRUE;
}

/* What a monoid that counts pairs may not have: pairs have 2-D bins of
 * their own, and nothing else is read off them. */
static gboolean
check_pair (const CrMonoid *m, const gchar *origin, GError **error)
{
  const gchar *why = NULL;
  if (m->bins == 0)
    why = "the monoid counts no bins; set Bins (the bins along each axis) "
          "too";
  else if (m->bins > CR_PAIR_BINS_MAX)
    why = "a 2-D histogram has at most " G_STRINGIFY (
        CR_PAIR_BINS_MAX) " bins along each axis (Bins or the bins property)";
  else if (m->bin != NULL)
    why = "a Bin body gives one value its bin, and pairs have even bins "
          "over lo to hi along both axes; leave Bin out";
  else if (m->percentiles->len > 0)
    why = "percentiles are read off the counts of single values, not of "
          "pairs; leave Percentiles (and the percentiles property) out";
  else if (cr_monoid_has_accumulator (m))
    why = "a monoid that counts pairs only counts; leave out Accumulator "
          "and the bodies, or count single values";
  if (why == NULL)
    return TRUE;
  g_set_error (error, CR_ERROR, CR_ERROR_MONOID_INVALID,
      "%s: monoid %s counts pairs of %s and %s, but %s", origin, m->name,
      m->pair[0], m->pair[1], why);
  return FALSE;
}

static void
percentiles_clear (gpointer data)
{
  CrPercentiles *p = data;
  g_free (p->name);
  g_clear_pointer (&p->points, g_array_unref);
}

GArray *
cr_percentiles_new (void)
{
  GArray *list = g_array_new (FALSE, TRUE, sizeof (CrPercentiles));
  g_array_set_clear_func (list, percentiles_clear);
  return list;
}

static guint
count_points (const GArray *list)
{
  guint n = 0;
  for (guint k = 0; k < list->len; k++)
    n += g_array_index (list, CrPercentiles, k).points->len;
  return n;
}

/* A percentile's point: a number from 0 to 1. */
static gboolean
check_point (gdouble p, const gchar *what, GError **error)
{
  if (p >= 0 && p <= 1)
    return TRUE;
  g_set_error (error, CR_ERROR, CR_ERROR_MONOID_INVALID,
      "%s: the percentile %g is not from 0 to 1; write the 10th percentile "
      "as 0.1",
      what, p);
  return FALSE;
}

/* "Percentiles=low:0.1;high:0.9;deciles:0.1,0.2": a field per name, of
 * one point or (several) an array. Names are checked with the others. */
static gboolean
parse_percentiles (
    const gchar *text, const gchar *origin, GArray **list, GError **error)
{
  g_autoptr (GArray) parsed = cr_percentiles_new ();
  g_auto (GStrv) items = g_strsplit (text ? text : "", ";", -1);
  g_autofree gchar *what = g_strdup_printf ("%s: Percentiles", origin);

  for (guint k = 0; items[k]; k++) {
    g_strstrip (items[k]);
    if (items[k][0] == '\0')
      continue;
    const gchar *colon = strchr (items[k], ':');
    if (colon == NULL) {
      g_set_error (error, CR_ERROR, CR_ERROR_MONOID_INVALID,
          "%s: \"%s\" has no points; write name:point, e.g. low:0.1, or "
          "name:point,point for an array",
          what, items[k]);
      return FALSE;
    }
    CrPercentiles field = { g_strstrip (g_strndup (items[k], colon - items[k])),
      g_array_new (FALSE, FALSE, sizeof (gdouble)), FALSE };
    g_array_append_val (parsed, field);
    /* "low:" is one empty point, not none. */
    g_auto (GStrv) points = g_strsplit (colon + 1, ",", 0);
    if (points[0] == NULL) {
      g_set_error (error, CR_ERROR, CR_ERROR_MONOID_INVALID,
          "%s: %s has no points; write name:point, e.g. low:0.1", what,
          field.name);
      return FALSE;
    }
    for (guint j = 0; points[j]; j++) {
      g_strstrip (points[j]);
      gchar *end = NULL;
      const gdouble p = g_ascii_strtod (points[j], &end);
      if (points[j][0] == '\0' || *end != '\0') {
        g_set_error (error, CR_ERROR, CR_ERROR_MONOID_INVALID,
            "%s: \"%s\" of %s is not a number; write the 10th percentile "
            "as 0.1",
            what, points[j], field.name);
        return FALSE;
      }
      if (!check_point (p, what, error))
        return FALSE;
      g_array_append_val (field.points, p);
    }
    g_array_index (parsed, CrPercentiles, parsed->len - 1).array =
        field.points->len > 1;
  }
  if (count_points (parsed) > CR_PERCENTILES_MAX) {
    g_set_error (error, CR_ERROR, CR_ERROR_MONOID_INVALID,
        "%s: %u points, and a monoid reports at most %d", what,
        count_points (parsed), CR_PERCENTILES_MAX);
    return FALSE;
  }
  *list = g_steal_pointer (&parsed);
  return TRUE;
}

/* Whether @name is a result field of @m's already: its own, the counts,
 * or another percentile field before @before. */
static const gchar *
result_name_taken (
    const CrMonoid *m, GArray *results, const gchar *name, guint before)
{
  for (guint f = 0; f < results->len; f++)
    if (strcmp (g_array_index (results, CrField, f).name, name) == 0)
      return "a result field of the monoid";
  if (g_strv_contains (cr_bins_field_names, name))
    return "the counts of the bins (histogram, below, above, nan)";
  for (guint k = 0; k < before; k++)
    if (strcmp (g_array_index (m->percentiles, CrPercentiles, k).name, name)
        == 0)
      return "another percentile";
  return NULL;
}

/* The results the bus message has besides the monoid's (docs/element.md). */
static const gchar *const message_fields[] = { "timestamp", "stream-time",
  "running-time", "duration", "monoid", "count", "channels", "counts", NULL };

/* A percentile's name: a field name that no other result has. */
static gboolean
check_percentile_name (const CrMonoid *m, GArray *results, guint k,
    const gchar *origin, GError **error)
{
  const gchar *name = g_array_index (m->percentiles, CrPercentiles, k).name;
  const gchar *why;
  if (!cr_is_identifier (name))
    why = "is not a usable field name; use letters, digits and underscores, "
          "not starting with a digit";
  else if (g_strv_contains (message_fields, name))
    why = "is taken by the bus message's own field of that name";
  else
    why = cr_reserved_name_why (name);
  if (why == NULL) {
    const gchar *taken = result_name_taken (m, results, name, k);
    if (taken == NULL)
      return TRUE;
    g_set_error (error, CR_ERROR, CR_ERROR_FIELDS,
        "%s: Percentiles: the name \"%s\" is taken by %s; rename it", origin,
        name, taken);
    return FALSE;
  }
  g_set_error (error, CR_ERROR, CR_ERROR_FIELDS,
      "%s: Percentiles: the name \"%s\" %s; choose another name", origin, name,
      why);
  return FALSE;
}

/* Even bins read their range from the context fields lo and hi (a Bin
 * body needs none), the counts are results beside the monoid's own, and
 * so are the percentiles. */
static gboolean
check_bins_fields (
    const CrMonoid *m, GArray *results, const gchar *origin, GError **error)
{
  static const gchar *const range[] = { "lo", "hi" };
  for (guint k = 0; m->bin == NULL && k < G_N_ELEMENTS (range); k++) {
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
          "Context=lo:float64;hi:float64 (or give each value its bin with "
          "a Bin body)",
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
  for (guint k = 0; k < m->percentiles->len; k++)
    if (!check_percentile_name (m, results, k, origin, error))
      return FALSE;
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
  if (is_blank (text->percentiles))
    m->percentiles = cr_percentiles_new ();
  else if (!parse_percentiles (
               text->percentiles, origin, &m->percentiles, error))
    return NULL;
  if (!is_blank (text->pair)
      && !parse_pair (text->pair, "Pair", origin, &m->pair, error))
    return NULL;
  if (m->bins == 0
      && (!is_blank (text->bin) || m->percentiles->len > 0 || m->pair)) {
    g_set_error (error, CR_ERROR, CR_ERROR_MONOID_INVALID,
        "%s: %s is set, but the monoid counts no bins; set Bins (the number "
        "of bins%s) too",
        origin,
        m->pair                    ? "Pair"
            : is_blank (text->bin) ? "Percentiles"
                                   : "Bin",
        m->pair ? " along each axis" : "");
    return NULL;
  }
  if (!is_blank (text->bin)) {
    if (!cr_monoid_body_check (text->bin, "Bin", origin, error))
      return NULL;
    m->bin = g_strdup (text->bin);
  }
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

  /* Results become fields of the bus message beside its own. */
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
  if (m->pair && !check_pair (m, origin, error))
    return NULL;

  /* Blank is absent: a monoid that only counts may give its bodies as
   * empty keys, and gets none (the long fuzz run found "Identity=" kept
   * as an empty body, whose function then returned nothing). */
  m->load = is_blank (text->load) ? NULL : g_strdup (text->load);
  m->combine = is_blank (text->combine) ? NULL : g_strdup (text->combine);
  m->identity = is_blank (text->identity) ? NULL : g_strdup (text->identity);
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
          "Context, Output, Load, Combine, Identity, Finalize, Bins, Bin, "
          "Percentiles and Pair",
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
  g_autofree gchar *bin = GET ("Bin");
  g_autofree gchar *percentiles = GET ("Percentiles");
  g_autofree gchar *pair = GET ("Pair");
#undef GET

  if (name == NULL) {
    g_autofree gchar *base = g_path_get_basename (origin);
    if (g_str_has_suffix (base, ".monoid"))
      base[strlen (base) - strlen (".monoid")] = '\0';
    name = g_steal_pointer (&base);
  }
  CrMonoidText text = { name, description, accumulator, context, output, load,
    combine, identity, finalize, bins, bin, percentiles, pair };
  return cr_monoid_new (&text, origin, error);
}

gboolean
cr_monoid_has_accumulator (const CrMonoid *monoid)
{
  return monoid->accumulator->len > 0;
}

/* A copy of @m that shares its fields and bodies. */
static CrMonoid *
monoid_copy (const CrMonoid *m)
{
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
  copy->bins = m->bins;
  copy->bin = g_strdup (m->bin);
  copy->pair = g_strdupv (m->pair);
  copy->percentiles = g_array_ref (m->percentiles);
  if (m->members)
    copy->members = g_ptr_array_ref (m->members);
  copy->labels = g_strdupv (m->labels);
  copy->bins_label = g_strdup (m->bins_label);
  return copy;
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
  if (m->pair && bins > CR_PAIR_BINS_MAX) {
    g_set_error (error, CR_ERROR, CR_ERROR_FIELDS,
        "bins=%u: monoid %s counts pairs in bins x bins bins, and a 2-D "
        "histogram has 1 to %d bins along each axis",
        bins, m->name, CR_PAIR_BINS_MAX);
    return NULL;
  }
  if (bins == m->bins)
    return cr_monoid_ref (m);
  CrMonoid *copy = monoid_copy (m);
  copy->bins = bins;
  return copy;
}

CrMonoid *
cr_monoid_with_pair (CrMonoid *m, const gchar *pair, GError **error)
{
  g_auto (GStrv) parsed = NULL;
  if (!parse_pair (pair, "pair", "The pair property", &parsed, error))
    return NULL;
  if (m->members != NULL) {
    g_set_error (error, CR_ERROR, CR_ERROR_FIELDS,
        "pair=%s is set on the fused monoid %s; a 2-D histogram counts "
        "alone: use it without fusing (histogram, vectorscope)",
        pair, m->name);
    return NULL;
  }
  CrMonoid *copy = monoid_copy (m);
  g_strfreev (copy->pair);
  copy->pair = g_steal_pointer (&parsed);
  if (!check_pair (copy, "The pair property", error)) {
    cr_monoid_unref (copy);
    return NULL;
  }
  return copy;
}

guint
cr_monoid_total_bins (const CrMonoid *m)
{
  return m->pair ? m->bins * m->bins : m->bins;
}

CrMonoid *
cr_monoid_with_percentiles (CrMonoid *m, const GArray *points, GError **error)
{
  if (m->bins == 0) {
    g_set_error (error, CR_ERROR, CR_ERROR_FIELDS,
        "percentiles are set, but monoid %s counts no bins to take them "
        "from; use a monoid with bins (histogram, signalstats)",
        m->name);
    return NULL;
  }
  if (m->pair) {
    g_set_error (error, CR_ERROR, CR_ERROR_FIELDS,
        "percentiles are set, but monoid %s counts pairs of %s and %s, "
        "whose 2-D counts have no percentiles; leave percentiles empty",
        m->name, m->pair[0], m->pair[1]);
    return NULL;
  }
  for (guint k = 0; k < points->len; k++)
    if (!check_point (g_array_index (points, gdouble, k), "percentiles", error))
      return NULL;
  for (guint k = 0; k < m->percentiles->len; k++) {
    if (strcmp (g_array_index (m->percentiles, CrPercentiles, k).name,
            CR_PERCENTILES_FIELD)
        == 0) {
      g_set_error (error, CR_ERROR, CR_ERROR_FIELDS,
          "percentiles are set, but monoid %s has a result field named "
          "\"" CR_PERCENTILES_FIELD "\" already; rename it in the monoid",
          m->name);
      return NULL;
    }
  }
  if (count_points (m->percentiles) + points->len > CR_PERCENTILES_MAX) {
    g_set_error (error, CR_ERROR, CR_ERROR_FIELDS,
        "percentiles: %u points, and a monoid reports at most %d",
        count_points (m->percentiles) + points->len, CR_PERCENTILES_MAX);
    return NULL;
  }
  CrMonoid *copy = monoid_copy (m);
  g_array_unref (copy->percentiles);
  copy->percentiles = cr_percentiles_new ();
  for (guint k = 0; k < m->percentiles->len; k++) {
    const CrPercentiles *p = &g_array_index (m->percentiles, CrPercentiles, k);
    CrPercentiles same = { g_strdup (p->name), g_array_ref (p->points),
      p->array };
    g_array_append_val (copy->percentiles, same);
  }
  GArray *list =
      g_array_sized_new (FALSE, FALSE, sizeof (gdouble), points->len);
  g_array_append_vals (list, points->data, points->len);
  CrPercentiles added = { g_strdup (CR_PERCENTILES_FIELD), list, TRUE };
  g_array_append_val (copy->percentiles, added);
  return copy;
}

GArray *
cr_monoid_percentile_points (const CrMonoid *m)
{
  GArray *all = g_array_new (FALSE, FALSE, sizeof (gdouble));
  for (guint k = 0; m->percentiles && k < m->percentiles->len; k++) {
    const GArray *points =
        g_array_index (m->percentiles, CrPercentiles, k).points;
    g_array_append_vals (all, points->data, points->len);
  }
  return all;
}

GArray *
cr_monoid_result_fields (const CrMonoid *monoid)
{
  return monoid->finalize || monoid->members ? monoid->output
                                             : monoid->accumulator;
}
