/* cr-monoid-body.h: what a monoid's body may not do to the source it is
 * pasted into. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* FALSE, with an error that names @origin, @key and the body's line, when
 * @body includes a file (#include, #include_next, #import, #embed) or
 * defines, undefines, pushes or pops as a macro a name the generated code
 * keeps (cr-reserved.h). */
gboolean cr_monoid_body_check (
    const gchar *body, const gchar *key, const gchar *origin, GError **error);

G_END_DECLS
