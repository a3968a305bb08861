/* cr-test-main.h: the main of a GPU test program, written once. */
#pragma once

#include "cr-test-util.h"

G_BEGIN_DECLS

/* A case of a suite: its function and its name, which GST_CHECKS and
 * GST_CHECKS_IGNORE match. */
typedef struct {
  TFun fn;
  const gchar *name;
} CrTestCase;

#define CR_TEST_CASE(fn) \
  { \
    fn, #fn \
  }

/* What a test needs besides a GPU, which they all need. */
typedef enum {
  CR_TEST_NEEDS_NVRTC = 1 << 0,
  /* Skipped under compute-sanitizer (CUDAREDUCE_UNDER_SANITIZER): a
   * kernel that never ends cannot be sanitized to its end. */
  CR_TEST_NOT_UNDER_SANITIZER = 1 << 1,
} CrTestNeeds;

typedef struct {
  /* The suite's name: the test's in tests/check/meson.build. */
  const gchar *name;
  /* Seconds each case may take; 0 leaves check's default
   * (CK_DEFAULT_TIMEOUT). */
  guint timeout;
  CrTestNeeds needs;
  /* Where not NULL, set to a new cr_test_rand () before the cases run. */
  GRand **rand;
  /* Where not NULL, called then: what the test sets up for all its
   * cases. Returns 0 to go on, or the status to exit with. */
  int (*setup) (void);
  /* Ends with { NULL }. */
  const CrTestCase *cases;
  /* Where not NULL, called after @cases are added to @tc: the cases the
   * test runs only on some machines. */
  void (*add_cases) (TCase *tc);
} CrGpuTest;

/* gst-check's init; then, without a GPU (or NVRTC, or under
 * compute-sanitizer, as @t->needs says), a skip: CR_TEST_SKIP, or a
 * failure where CUDAREDUCE_REQUIRE_GPU or _NVRTC is 1; then @t's suite,
 * run. Returns the status to exit with. @file: the test's source
 * (__FILE__), for gst-check's report. */
int cr_test_gpu_main (
    int *argc, char ***argv, const CrGpuTest *t, const gchar *file);

/* A program's main that runs @test, a CrGpuTest. */
#define CR_TEST_GPU_MAIN(test) \
  int main (int argc, char **argv) \
  { \
    return cr_test_gpu_main (&argc, &argv, &(test), __FILE__); \
  }

G_END_DECLS
