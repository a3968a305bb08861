/* cr-types.h: the ten element types that inputs, accumulator fields and
 * outputs can have, under their tensor names (NNStreamer's spelling). */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

typedef enum {
  CR_TYPE_INT8,
  CR_TYPE_UINT8,
  CR_TYPE_INT16,
  CR_TYPE_UINT16,
  CR_TYPE_INT32,
  CR_TYPE_UINT32,
  CR_TYPE_INT64,
  CR_TYPE_UINT64,
  CR_TYPE_FLOAT32,
  CR_TYPE_FLOAT64,
  CR_N_TYPES,
  CR_TYPE_INVALID = -1,
} CrType;

/* "int8" ... "float64" */
const gchar *cr_type_name (CrType type);
CrType cr_type_from_name (const gchar *name);
/* Size in bytes; also the type's alignment on host and device. */
gsize cr_type_size (CrType type);
/* The CUDA C++ spelling: "signed char", "unsigned long long", "double", ... */
const gchar *cr_type_cuda (CrType type);
gboolean cr_type_is_float (CrType type);
gboolean cr_type_is_signed (CrType type);
/* An integer type's lowest and largest value, as doubles (rounded for the
 * 64-bit types). */
gdouble cr_type_lowest (CrType type);
gdouble cr_type_largest (CrType type);
/* int64 for signed input, uint64 for unsigned, float64 for floating point. */
CrType cr_type_wide (CrType type);

/* The GType a value of @type is posted as: gint for int8..int32, guint for
 * uint8..uint32, gint64, guint64, gfloat, gdouble. */
GType cr_type_gtype (CrType type);
/* Reads one value of @type at @data into @value (initialised here). */
void cr_type_to_gvalue (CrType type, gconstpointer data, GValue *value);
/* Stores @number into @data as @type; FALSE when it does not fit. */
gboolean cr_type_store_double (CrType type, gdouble number, gpointer data);
gboolean cr_type_store_int64 (CrType type, gint64 number, gpointer data);
gboolean cr_type_store_uint64 (CrType type, guint64 number, gpointer data);

G_END_DECLS
