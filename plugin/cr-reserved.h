/* cr-reserved.h: the names a monoid may not give its fields or its bodies'
 * macros, because the generated code, C++ or CUDA keeps them. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Why @name is kept ("is a C++ keyword", "starts with CR_, which ..."), or
 * NULL when a field or a body's macro may take it. */
const gchar *cr_reserved_name_why (const gchar *name);

G_END_DECLS
