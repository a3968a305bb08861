/* test-nvrtc-results.c: what the compiler does with NVRTC's answers, with
 * a fake NVRTC (fake-nvrtc.c) that fails the call asked of it: a failed
 * or empty answer fails the compile with the call's name, and nothing is
 * cached. No NVRTC or GPU needed. */
#include "cr-test-util.h"

#include "cr-compiler.h"
#include "cr-error.h"

#include <string.h>

/* A new cache directory, and the call of the fake to fail (NULL: none). */
static gchar *
setup (const gchar *fail)
{
  gchar *dir = cr_test_make_dir ("cr-nvrtc-results");
  g_setenv ("GST_CUDAREDUCE_CACHE_DIR", dir, TRUE);
  if (fail)
    g_setenv ("CR_FAKE_NVRTC_FAIL", fail, TRUE);
  else
    g_unsetenv ("CR_FAKE_NVRTC_FAIL");
  return dir;
}

/* sm_90 is a target of the fake: a CUBIN. sm_100 is not: PTX for sm_90. */
static void
assert_fails (const gchar *fail, gint arch, const gchar *mention)
{
  g_autofree gchar *dir = setup (fail);
  g_autoptr (GError) error = NULL;
  g_autoptr (CrCompiled) c =
      cr_compile ("fake source", arch, CR_COMPILE_DEFAULT, NULL, &error);
  fail_unless (c == NULL, "%s: compiled, %" G_GSIZE_FORMAT " bytes", fail,
      g_bytes_get_size (c->image));
  fail_unless (g_error_matches (error, CR_ERROR, CR_ERROR_COMPILE), "%s: %s",
      fail, error->message);
  fail_unless (strstr (error->message, mention) != NULL,
      "%s: \"%s\" does not mention %s", fail, error->message, mention);
  g_autoptr (GPtrArray) images = cr_test_files_ending (dir, ".bin");
  fail_unless_equals_int (images->len, 0);
  cr_test_remove_dir (dir);
}

GST_START_TEST (test_fake_compiles)
{
  g_autofree gchar *dir = setup (NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (CrCompiled) c =
      cr_compile ("fake source", 90, CR_COMPILE_DEFAULT, NULL, &error);
  fail_unless (c != NULL, "%s", error ? error->message : "");
  fail_unless_equals_string (c->target, "sm_90");
  fail_unless_equals_string (g_bytes_get_data (c->image, NULL), "a fake CUBIN");
  g_autoptr (CrCompiled) ptx =
      cr_compile ("fake source", 100, CR_COMPILE_DEFAULT, NULL, &error);
  fail_unless (ptx != NULL, "%s", error ? error->message : "");
  fail_unless (ptx->is_ptx);
  g_autoptr (CrCompiled) cached =
      cr_compile ("fake source", 90, CR_COMPILE_DEFAULT, NULL, &error);
  fail_unless (cached != NULL && cached->from_cache);
  cr_test_remove_dir (dir);
}

GST_END_TEST;

GST_START_TEST (test_cubin_size_fails)
{
  assert_fails ("GetCUBINSize", 90, "nvrtcGetCUBINSize");
}

GST_END_TEST;

GST_START_TEST (test_cubin_fails)
{
  assert_fails ("GetCUBIN", 90, "nvrtcGetCUBIN");
}

GST_END_TEST;

GST_START_TEST (test_ptx_size_fails)
{
  assert_fails ("GetPTXSize", 100, "nvrtcGetPTXSize");
}

GST_END_TEST;

GST_START_TEST (test_ptx_fails)
{
  assert_fails ("GetPTX", 100, "nvrtcGetPTX");
}

GST_END_TEST;

GST_START_TEST (test_empty_images)
{
  assert_fails ("empty", 90, "empty");
  assert_fails ("empty", 100, "empty");
}

GST_END_TEST;

/* A compile that fails says why: the log's first error line for source
 * that does not compile, NVRTC's own error where NVRTC failed, and, where
 * the log cannot be read, that it could not (never the bytes the failed
 * call left, which read as an error line). */
GST_START_TEST (test_compile_failures_say_why)
{
  assert_fails ("Compile", 90,
      "does not compile: cudareduce.cu(3): error: the fake refuses");
  assert_fails (
      "CompileInternal", 90, "nvrtcCompileProgram failed: NVRTC_ERROR_BUILTIN");
  assert_fails ("GetProgramLog", 90, "does not compile: see the NVRTC log");
}

GST_END_TEST;

static Suite *
nvrtc_results_suite (void)
{
  Suite *s = suite_create ("nvrtc-results");
  TCase *tc = tcase_create ("results");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_fake_compiles);
  tcase_add_test (tc, test_cubin_size_fails);
  tcase_add_test (tc, test_cubin_fails);
  tcase_add_test (tc, test_ptx_size_fails);
  tcase_add_test (tc, test_compile_failures_say_why);
  tcase_add_test (tc, test_ptx_fails);
  tcase_add_test (tc, test_empty_images);
  return s;
}

GST_CHECK_MAIN (nvrtc_results);
