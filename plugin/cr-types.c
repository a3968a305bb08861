/* cr-types.c: facts about the ten element types, in one table. */
#include "cr-types.h"

#include <glib-object.h>
#include <math.h>
#include <string.h>

typedef struct {
  const gchar *name;
  const gchar *cuda;
  gsize size;
  gboolean is_float;
  gboolean is_signed;
} CrTypeInfo;

static const CrTypeInfo types[CR_N_TYPES] = {
  [CR_TYPE_INT8] = { "int8", "signed char", 1, FALSE, TRUE },
  [CR_TYPE_UINT8] = { "uint8", "unsigned char", 1, FALSE, FALSE },
  [CR_TYPE_INT16] = { "int16", "short", 2, FALSE, TRUE },
  [CR_TYPE_UINT16] = { "uint16", "unsigned short", 2, FALSE, FALSE },
  [CR_TYPE_INT32] = { "int32", "int", 4, FALSE, TRUE },
  [CR_TYPE_UINT32] = { "uint32", "unsigned int", 4, FALSE, FALSE },
  [CR_TYPE_INT64] = { "int64", "long long", 8, FALSE, TRUE },
  [CR_TYPE_UINT64] = { "uint64", "unsigned long long", 8, FALSE, FALSE },
  [CR_TYPE_FLOAT32] = { "float32", "float", 4, TRUE, TRUE },
  [CR_TYPE_FLOAT64] = { "float64", "double", 8, TRUE, TRUE },
};

const gchar *
cr_type_name (CrType type)
{
  g_return_val_if_fail (type >= 0 && type < CR_N_TYPES, NULL);
  return types[type].name;
}

CrType
cr_type_from_name (const gchar *name)
{
  for (gint t = 0; t < CR_N_TYPES && name; t++)
    if (strcmp (types[t].name, name) == 0)
      return (CrType)t;
  return CR_TYPE_INVALID;
}

gsize
cr_type_size (CrType type)
{
  g_return_val_if_fail (type >= 0 && type < CR_N_TYPES, 0);
  return types[type].size;
}

const gchar *
cr_type_cuda (CrType type)
{
  g_return_val_if_fail (type >= 0 && type < CR_N_TYPES, NULL);
  return types[type].cuda;
}

gboolean
cr_type_is_float (CrType type)
{
  return types[type].is_float;
}

gboolean
cr_type_is_signed (CrType type)
{
  return types[type].is_signed;
}

gdouble
cr_type_lowest (CrType type)
{
  g_return_val_if_fail (!types[type].is_float, 0);
  if (!types[type].is_signed)
    return 0;
  return -ldexp (1.0, (gint)(8 * cr_type_size (type)) - 1);
}

gdouble
cr_type_largest (CrType type)
{
  g_return_val_if_fail (!types[type].is_float, 0);
  const gint bits = (gint)(8 * cr_type_size (type)) - !!types[type].is_signed;
  return ldexp (1.0, bits) - 1.0;
}

CrType
cr_type_wide (CrType type)
{
  if (types[type].is_float)
    return CR_TYPE_FLOAT64;
  return types[type].is_signed ? CR_TYPE_INT64 : CR_TYPE_UINT64;
}

GType
cr_type_gtype (CrType type)
{
  switch (type) {
    case CR_TYPE_INT8:
    case CR_TYPE_INT16:
    case CR_TYPE_INT32:
      return G_TYPE_INT;
    case CR_TYPE_UINT8:
    case CR_TYPE_UINT16:
    case CR_TYPE_UINT32:
      return G_TYPE_UINT;
    case CR_TYPE_INT64:
      return G_TYPE_INT64;
    case CR_TYPE_UINT64:
      return G_TYPE_UINT64;
    case CR_TYPE_FLOAT32:
      return G_TYPE_FLOAT;
    case CR_TYPE_FLOAT64:
      return G_TYPE_DOUBLE;
    default:
      g_return_val_if_reached (G_TYPE_INVALID);
  }
}

/* Results are naturally aligned inside their struct, but callers may hand
 * us any byte offset, so every access goes through memcpy. */
#define SET(ctype, setter) \
  do { \
    ctype v_; \
    memcpy (&v_, data, sizeof v_); \
    setter (value, v_); \
  } while (0)

void
cr_type_to_gvalue (CrType type, gconstpointer data, GValue *value)
{
  g_value_init (value, cr_type_gtype (type));
  switch (type) {
    case CR_TYPE_INT8:
      SET (gint8, g_value_set_int);
      break;
    case CR_TYPE_UINT8:
      SET (guint8, g_value_set_uint);
      break;
    case CR_TYPE_INT16:
      SET (gint16, g_value_set_int);
      break;
    case CR_TYPE_UINT16:
      SET (guint16, g_value_set_uint);
      break;
    case CR_TYPE_INT32:
      SET (gint32, g_value_set_int);
      break;
    case CR_TYPE_UINT32:
      SET (guint32, g_value_set_uint);
      break;
    case CR_TYPE_INT64:
      SET (gint64, g_value_set_int64);
      break;
    case CR_TYPE_UINT64:
      SET (guint64, g_value_set_uint64);
      break;
    case CR_TYPE_FLOAT32:
      SET (gfloat, g_value_set_float);
      break;
    case CR_TYPE_FLOAT64:
      SET (gdouble, g_value_set_double);
      break;
    default:
      g_return_if_reached ();
  }
}

#undef SET

#define STORE(ctype, v) \
  do { \
    ctype v_ = (ctype)(v); \
    memcpy (data, &v_, sizeof v_); \
  } while (0)

static gboolean
store_in_range (
    CrType type, gdouble lo, gdouble hi, gdouble number, gpointer data)
{
  if (!(number >= lo && number <= hi) || number != floor (number))
    return FALSE;
  switch (type) {
    case CR_TYPE_INT8:
      STORE (gint8, number);
      break;
    case CR_TYPE_UINT8:
      STORE (guint8, number);
      break;
    case CR_TYPE_INT16:
      STORE (gint16, number);
      break;
    case CR_TYPE_UINT16:
      STORE (guint16, number);
      break;
    case CR_TYPE_INT32:
      STORE (gint32, number);
      break;
    case CR_TYPE_UINT32:
      STORE (guint32, number);
      break;
    default:
      g_return_val_if_reached (FALSE);
  }
  return TRUE;
}

gboolean
cr_type_store_double (CrType type, gdouble number, gpointer data)
{
  switch (type) {
    case CR_TYPE_FLOAT32:
      STORE (gfloat, number);
      return TRUE;
    case CR_TYPE_FLOAT64:
      STORE (gdouble, number);
      return TRUE;
    case CR_TYPE_INT64:
      /* 2^63 is exactly representable; anything below it fits. */
      if (!(number >= -9223372036854775808.0 && number < 9223372036854775808.0)
          || number != floor (number))
        return FALSE;
      STORE (gint64, number);
      return TRUE;
    case CR_TYPE_UINT64:
      if (!(number >= 0 && number < 18446744073709551616.0)
          || number != floor (number))
        return FALSE;
      STORE (guint64, number);
      return TRUE;
    case CR_TYPE_INT8:
      return store_in_range (type, G_MININT8, G_MAXINT8, number, data);
    case CR_TYPE_UINT8:
      return store_in_range (type, 0, G_MAXUINT8, number, data);
    case CR_TYPE_INT16:
      return store_in_range (type, G_MININT16, G_MAXINT16, number, data);
    case CR_TYPE_UINT16:
      return store_in_range (type, 0, G_MAXUINT16, number, data);
    case CR_TYPE_INT32:
      return store_in_range (type, G_MININT32, G_MAXINT32, number, data);
    case CR_TYPE_UINT32:
      return store_in_range (type, 0, G_MAXUINT32, number, data);
    default:
      g_return_val_if_reached (FALSE);
  }
}

gboolean
cr_type_store_int64 (CrType type, gint64 number, gpointer data)
{
  if (type == CR_TYPE_INT64) {
    STORE (gint64, number);
    return TRUE;
  }
  if (type == CR_TYPE_UINT64) {
    if (number < 0)
      return FALSE;
    STORE (guint64, number);
    return TRUE;
  }
  return cr_type_store_double (type, (gdouble)number, data);
}

gboolean
cr_type_store_uint64 (CrType type, guint64 number, gpointer data)
{
  if (type == CR_TYPE_UINT64) {
    STORE (guint64, number);
    return TRUE;
  }
  if (type == CR_TYPE_INT64) {
    if (number > G_MAXINT64)
      return FALSE;
    STORE (gint64, number);
    return TRUE;
  }
  return cr_type_store_double (type, (gdouble)number, data);
}

#undef STORE
