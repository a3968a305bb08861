/* test-monoid-body.c: what a monoid's bodies may not do to the source they
 * are pasted into: include files, or define, undefine, push or pop the
 * names the generated code keeps. What they may do is left alone. No GPU
 * and no NVRTC needed. */
#include "cr-test-util.h"

#include "cr-error.h"

#include <string.h>

/* An inline monoid whose Combine is @combine. */
static CrMonoid *
with_combine (const gchar *combine, GError **error)
{
  const CrMonoidText text = { .name = "t",
    .accumulator = "s:wide",
    .load = "Acc r; r.s = x; return r;",
    .combine = combine,
    .identity = "Acc r; r.s = 0; return r;" };
  return cr_monoid_new (&text, CR_MONOID_INLINE_ORIGIN, error);
}

static void
assert_refused (const gchar *combine, const gchar *line, const gchar *mention)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CrMonoid) m = with_combine (combine, &error);
  fail_unless (m == NULL, "accepted: %s", combine);
  fail_unless (g_error_matches (error, CR_ERROR, CR_ERROR_MONOID_INVALID),
      "%s: %s", combine, error->message);
  fail_unless (strstr (error->message, "Combine") != NULL, "%s: %s", combine,
      error->message);
  fail_unless (strstr (error->message, line) != NULL,
      "%s: \"%s\" does not say \"%s\"", combine, error->message, line);
  fail_unless (strstr (error->message, mention) != NULL,
      "%s: \"%s\" does not mention \"%s\"", combine, error->message, mention);
}

static void
assert_accepted (const gchar *combine)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CrMonoid) m = with_combine (combine, &error);
  fail_unless (m != NULL, "%s: %s", combine, error ? error->message : "");
}

#define BODY "Acc r; r.s = a.s + b.s; return r;"

/* NVRTC would read any file the process can, and quote it in its log. */
GST_START_TEST (test_include_refused)
{
  assert_refused ("#include \"/etc/passwd\"\n" BODY, "line 1", "#include");
  assert_refused (BODY "\n  #  include <x>", "line 2", "#include");
  assert_refused ("/* c */ # /* c */ include <x>\n" BODY, "line 1", "include");
  assert_refused ("%:include <x>\n" BODY, "line 1", "include");
  assert_refused ("#inc\\\nlude <x>\n" BODY, "line 1", "include");
  assert_refused ("/* a\ncomment */ #include <x>\n" BODY, "line 2", "include");
  assert_refused ("#include_next <x>\n" BODY, "line 1", "include_next");
  assert_refused ("#import <x>\n" BODY, "line 1", "import");
  assert_refused ("#embed \"/etc/passwd\"\n" BODY, "line 1", "embed");
  /* A string that ends at the line's end hides nothing after it. */
  assert_refused ("auto s = \"a;\n#include <x>\n" BODY, "line 2", "include");
}

GST_END_TEST;

/* The generated code's macros and types, its reserved prefixes, and C++'s
 * keywords stay what the layout checks saw. */
GST_START_TEST (test_reserved_macros_refused)
{
  assert_refused (
      "#define CR_BLOCK_THREADS 1\n" BODY, "line 1", "\"CR_BLOCK_THREADS\"");
  assert_refused (BODY "\n#undef IN_MAX", "line 2", "\"IN_MAX\"");
  assert_refused ("# define float double\n" BODY, "line 1", "\"float\"");
  assert_refused ("#define Acc int\n" BODY, "line 1", "\"Acc\"");
  assert_refused ("#define NULL 0\n" BODY, "line 1", "\"NULL\"");
  assert_refused ("#define cr_m0 x\n" BODY, "line 1", "\"cr_m0\"");
  assert_refused (
      "#define __forceinline__\n" BODY, "line 1", "__forceinline__");
  assert_refused ("#define /* c */ int32 long\n" BODY, "line 1", "\"int32\"");
  assert_refused ("#pragma push_macro(\"CR_IN_BYTES\")\n" BODY, "line 1",
      "\"CR_IN_BYTES\"");
  assert_refused (
      "#pragma pop_macro ( \"IN_LOWEST\" )\n" BODY, "line 1", "\"IN_LOWEST\"");
  assert_refused ("_Pragma (\"push_macro(\\\"CR_BATCH_MAX\\\")\") " BODY,
      "line 1", "\"CR_BATCH_MAX\"");
}

GST_END_TEST;

GST_START_TEST (test_other_directives_accepted)
{
  assert_accepted ("#define MY_SCALE 2\nAcc r; r.s = (a.s + b.s) * MY_SCALE "
                   "/ 2; return r;\n#undef MY_SCALE");
  assert_accepted ("Acc r;\n#pragma unroll\nfor (int k = 0; k < 1; k++) r.s = "
                   "a.s + b.s;\nreturn r;");
  assert_accepted ("#if 1\n" BODY "\n#endif");
  assert_accepted ("const char *s = \"#include <x>\"; " BODY);
  assert_accepted ("// #include <x>\n" BODY);
  assert_accepted ("/*\n#include <x>\n#define CR_IN_BYTES 1\n*/\n" BODY);
  assert_accepted ("char c = '#'; long n = 1'000; " BODY);
  assert_accepted ("auto s = R\"x(\n#include <x>\n)\" )x\"; " BODY);
  assert_accepted ("_Pragma (\"unroll\") " BODY);
  /* A string that ends in a backslash is NVRTC's to refuse. */
  assert_accepted (BODY " _Pragma (\"x\\");
  assert_accepted ("#pragma push_macro(\"MY_NAME\")\n" BODY
                   "\n#pragma pop_macro(\"MY_NAME\")");
  /* Names that only look like the reserved ones. */
  assert_accepted ("#define Cr_x 1\n#define IN 2\n" BODY);
}

GST_END_TEST;

/* Every body is checked: Load, Identity and Finalize as Combine. */
GST_START_TEST (test_every_body_checked)
{
  static const gchar *const bad = "#include <x>\nAcc r; return r;";
  const CrMonoidText texts[] = {
    { .accumulator = "s:wide",
        .load = bad,
        .combine = BODY,
        .identity = "Acc r; r.s = 0; return r;" },
    { .accumulator = "s:wide",
        .load = "Acc r; r.s = x; return r;",
        .combine = BODY,
        .identity = bad },
    { .accumulator = "s:wide",
        .load = "Acc r; r.s = x; return r;",
        .combine = BODY,
        .identity = "Acc r; r.s = 0; return r;",
        .output = "m:float64",
        .finalize = "#include <x>\nOut o; return o;" },
  };
  const gchar *const keys[] = { "Load", "Identity", "Finalize" };
  for (guint k = 0; k < G_N_ELEMENTS (texts); k++) {
    g_autoptr (GError) error = NULL;
    g_autoptr (CrMonoid) m =
        cr_monoid_new (&texts[k], CR_MONOID_INLINE_ORIGIN, &error);
    fail_unless (m == NULL, "%s accepted", keys[k]);
    fail_unless (
        strstr (error->message, keys[k]) != NULL, "%s", error->message);
  }
}

GST_END_TEST;

static Suite *
monoid_body_suite (void)
{
  Suite *s = suite_create ("monoid-body");
  TCase *tc = tcase_create ("body");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_include_refused);
  tcase_add_test (tc, test_reserved_macros_refused);
  tcase_add_test (tc, test_other_directives_accepted);
  tcase_add_test (tc, test_every_body_checked);
  return s;
}

GST_CHECK_MAIN (monoid_body);
