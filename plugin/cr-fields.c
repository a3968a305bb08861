/* cr-fields.c: see cr-fields.h. */
#include "cr-fields.h"

#include "cr-error.h"
#include "cr-reserved.h"

#include <string.h>

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

void
cr_layout_init (CrLayout *layout, GArray *fields, CrType in)
{
  layout->n_fields = fields->len;
  layout->names = g_new0 (const gchar *, fields->len + 1);
  layout->types = g_new0 (CrType, fields->len + 1);
  layout->offsets = g_new0 (gsize, fields->len + 1);
  layout->lengths = g_new0 (guint, fields->len + 1);
  layout->arrays = g_new0 (gboolean, fields->len + 1);
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
  g_clear_pointer (&layout->arrays, g_free);
}

gint
cr_layout_find (const CrLayout *layout, const gchar *name)
{
  for (guint f = 0; f < layout->n_fields; f++)
    if (strcmp (layout->names[f], name) == 0)
      return (gint)f;
  return -1;
}
