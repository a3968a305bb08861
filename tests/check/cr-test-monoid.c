/* cr-test-monoid.c: monoid files for the CPU tests. */
#include "cr-test-monoid.h"

#include "cr-error.h"

#include <gst/check/gstcheck.h>
#include <string.h>

const gchar *const cr_test_good_monoid =
    "[Monoid]\n"
    "Name=range\n"
    "Description=How many elements lie in [lo, hi]\n"
    "Context=lo:float64;hi:float64\n"
    "Accumulator=inside:uint64\n"
    "Load=Acc r; r.inside = x >= ctx.lo && x <= ctx.hi; return r;\n"
    "Combine=Acc r; r.inside = a.inside + b.inside; return r;\n"
    "Identity=Acc r; r.inside = 0; return r;\n";

gchar *
cr_test_edit_monoid (const gchar *key, const gchar *line)
{
  g_auto (GStrv) lines = g_strsplit (cr_test_good_monoid, "\n", -1);
  GString *s = g_string_new (NULL);
  for (guint k = 0; lines[k]; k++) {
    if (g_str_has_prefix (lines[k], key) && lines[k][strlen (key)] == '=') {
      if (line)
        g_string_append_printf (s, "%s\n", line);
    } else if (lines[k][0]) {
      g_string_append_printf (s, "%s\n", lines[k]);
    }
  }
  return g_string_free (s, FALSE);
}

void
cr_test_assert_rejected (const gchar *data, gint code, const gchar *mention)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CrMonoid) m =
      cr_monoid_new_from_data (data, strlen (data), "test.monoid", &error);
  fail_unless (m == NULL, "accepted:\n%s", data);
  fail_unless (g_error_matches (error, CR_ERROR, code),
      "code %d, wanted %d: %s", error->code, code, error->message);
  fail_unless (strstr (error->message, mention) != NULL,
      "\"%s\" does not mention \"%s\"", error->message, mention);
}

CrMonoid *
cr_test_parse_monoid (const gchar *data)
{
  g_autoptr (GError) error = NULL;
  CrMonoid *m =
      cr_monoid_new_from_data (data, strlen (data), "test.monoid", &error);
  fail_unless (m != NULL, "%s:\n%s", error ? error->message : "", data);
  return m;
}
