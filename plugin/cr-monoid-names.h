/* cr-monoid-names.h: what the monoid property's value names. The one owner
 * of names: built-ins, .monoid files and fused lists ("a+b") are resolved
 * here, and cr-fuse.c is asked only to combine the monoids loaded. */
#pragma once

#include "cr-monoid.h"

G_BEGIN_DECLS

/* A built-in name ("sum") or a path to a .monoid file ("./my.monoid").
 * A name without '/' and not ending in ".monoid" is a built-in. A list
 * joined by '+', or a labelled member ("lo=count_gt"), that is not the
 * path of a file is a fused monoid: members joined by '+', each a built-in
 * or a file, optionally labelled "label=member" (the label is the member's
 * name otherwise): "sumsq+minmax", "lo=count_gt+hi=count_gt". */
CrMonoid *cr_monoid_load (const gchar *name_or_path, GError **error);
/* Whether cr_monoid_load takes @name_or_path for a fused monoid. */
gboolean cr_monoid_names_a_list (const gchar *name_or_path);
/* The '=' that ends the label of a member ("lo=count_gt"), or NULL. */
const gchar *cr_member_label_end (const gchar *item);

/* Names of the built-in monoids, sorted; free with g_strfreev. */
gchar **cr_monoid_builtin_names (void);

G_END_DECLS
