/* cr-test-monoid.h: a valid monoid file, edits of it, and the checks the
 * CPU tests of monoids make of what parses and what is refused. */
#pragma once

#include "cr-monoid.h"

G_BEGIN_DECLS

/* "range": how many elements lie in [lo, hi], one key a line. */
extern const gchar *const cr_test_good_monoid;

/* cr_test_good_monoid with the line of @key replaced by @line (or dropped
 * when @line is NULL). */
gchar *cr_test_edit_monoid (const gchar *key, const gchar *line);

/* Fails unless @data is refused with error @code, mentioning @mention. */
void cr_test_assert_rejected (
    const gchar *data, gint code, const gchar *mention);

/* Fails unless @data parses, and returns it. */
CrMonoid *cr_test_parse_monoid (const gchar *data);

G_END_DECLS
