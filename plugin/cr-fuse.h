/* cr-fuse.h: several loaded monoids as one, read in one pass. */
#pragma once

#include "cr-monoid.h"

G_BEGIN_DECLS

/* The monoids @members (CrMonoid) as one, each member's fields under its
 * label in @labels (one per member, identifiers, NULL-terminated): its
 * fields are "label.field". Labels must differ. Names are resolved by
 * cr-monoid-names.h, which calls this. */
CrMonoid *cr_monoid_fuse (
    GPtrArray *members, const gchar *const *labels, GError **error);

/* The field name without a fused member's "label.": "threshold" for
 * "lo.threshold". */
const gchar *cr_field_base_name (const gchar *name);

G_END_DECLS
