/* cr-test-main.c: the main of a GPU test program. */
#include "cr-test-main.h"

int
cr_test_gpu_main (
    int *argc, char ***argv, const CrGpuTest *t, const gchar *file)
{
  gst_check_init (argc, argv);
  if ((t->needs & CR_TEST_NOT_UNDER_SANITIZER)
      && g_getenv ("CUDAREDUCE_UNDER_SANITIZER")) {
    g_print ("SKIP: under compute-sanitizer\n");
    return CR_TEST_SKIP;
  }
  cr_test_require_gpu ();
  if (t->needs & CR_TEST_NEEDS_NVRTC)
    cr_test_require_nvrtc ();
  if (t->rand)
    *t->rand = cr_test_rand ();
  if (t->setup) {
    int status = t->setup ();
    if (status != 0)
      return status;
  }

  Suite *s = suite_create (t->name);
  TCase *tc = tcase_create ("gpu");
  if (t->timeout > 0)
    tcase_set_timeout (tc, t->timeout);
  suite_add_tcase (s, tc);
  /* As tcase_add_test does, with the name given instead of spelled from
   * the function's: gst-check's filter (GST_CHECKS) sees the same. */
  for (const CrTestCase *c = t->cases; c->fn; c++)
    _tcase_add_test (tc, c->fn, c->name, 0, 0, 0, 1);
  if (t->add_cases)
    t->add_cases (tc);
  return gst_check_run_suite (s, t->name, file);
}
