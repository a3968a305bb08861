/* test-nvrtc-facts.c: a start from the kernel cache does not open NVRTC.
 * The facts the cache key needs (NVRTC's version and targets) come from a
 * note in the cache, which is believed only while the NVRTC it names is the
 * same file; a wrong note costs a miss and is written again, never a wrong
 * image. Needs NVRTC, not a GPU.
 *
 * Each test starts in a process where NVRTC is not open (gst-check forks
 * one per test, and main opens NVRTC only in a child of its own): what a
 * new gst-launch-1.0 would find. What must open NVRTC runs in a child. */
#include "cr-test-util.h"

#include "cr-compiler.h"
#include "cr-cuda.h"
#include "cr-error.h"
#include "cr-nvrtc-facts.h"
#include "cr-program.h"

#include <glib/gstdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NVRTC_OVERRIDE "GST_CUDAREDUCE_NVRTC_LIBRARY"

/* The debug lines of the engine, while a test runs. */
static const GString *debug_log;

/* A test's start: the kernel cache in a new directory, the debug log kept,
 * and NVRTC not open in this process. */
static gchar *
setup (void)
{
  gchar *dir = cr_test_make_dir ("cr-facts");
  g_setenv ("GST_CUDAREDUCE_CACHE_DIR", dir, TRUE);
  debug_log = cr_test_keep_engine_debug ();
  fail_if (cr_cuda_nvrtc_if_open () != NULL,
      "NVRTC is open before the test: run the tests forked (CK_FORK=yes)");
  return dir;
}

static CrCompiled *
compile_sum (CrCompileFlags flags, GError **error)
{
  g_autoptr (CrMonoid) monoid = cr_monoid_load ("sum", error);
  if (monoid == NULL)
    return NULL;
  g_autoptr (CrProgram) program = cr_program_new (monoid, CR_TYPE_FLOAT32);
  return cr_compile (program->source, 90, flags, NULL, error);
}

/* Runs @body in a child process and returns its exit status, or -1 when
 * it could not run or did not exit. The child reports through its status,
 * not with fail_unless. */
static gint
in_child (gint (*body) (gpointer), gpointer data)
{
  pid_t pid = fork ();
  if (pid == 0)
    _exit (body (data));
  gint status = 0;
  if (pid < 0 || waitpid (pid, &status, 0) != pid || !WIFEXITED (status))
    return -1;
  return WEXITSTATUS (status);
}

/* A first start: NVRTC compiles, and its image and its facts go into the
 * cache. */
static gint
cold_start (gpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CrCompiled) c = compile_sum (CR_COMPILE_DEFAULT, &error);
  if (c == NULL) {
    g_printerr ("cold start: %s\n", error->message);
    return 2;
  }
  return c->from_cache ? 3 : 0;
}

GST_START_TEST (test_start_from_cache_opens_no_nvrtc)
{
  g_autofree gchar *dir = setup ();
  fail_unless_equals_int (in_child (cold_start, NULL), 0);
  g_autoptr (GPtrArray) images = cr_test_files_ending (dir, ".bin");
  g_autoptr (GPtrArray) notes = cr_test_files_ending (dir, ".note");
  fail_unless_equals_int (images->len, 1);
  fail_unless_equals_int (notes->len, 1);

  g_autoptr (GError) error = NULL;
  g_autoptr (CrCompiled) warm = compile_sum (CR_COMPILE_DEFAULT, &error);
  fail_unless (warm != NULL, "%s", error ? error->message : "");
  fail_unless (warm->from_cache);
  fail_unless_equals_string (warm->target, "sm_90");
  fail_if (cr_cuda_nvrtc_if_open () != NULL,
      "NVRTC was opened for a start from the cache: %s", debug_log->str);

  /* The image is the one NVRTC makes now. */
  g_autoptr (CrCompiled) fresh = compile_sum (CR_COMPILE_NO_CACHE, &error);
  fail_unless (fresh != NULL, "%s", error ? error->message : "");
  fail_unless (cr_cuda_nvrtc_if_open () != NULL);
  fail_unless (g_bytes_equal (warm->image, fresh->image));
  cr_test_remove_dir (dir);
}

GST_END_TEST;

/* A cold start, then a note that says NVRTC is version 0.0: the file it
 * names is the right one, so it is believed. */
static gint
cold_start_then_wrong_note (gpointer data)
{
  gint status = cold_start (NULL);
  if (status != 0)
    return status;
  g_autoptr (CrCache) cache = cr_cache_open (data, NULL);
  g_autoptr (CrNvrtcFacts) wrong = cr_nvrtc_facts_of (cr_cuda_nvrtc (NULL));
  g_free (wrong->version);
  wrong->version = g_strdup ("0.0");
  return cache && cr_nvrtc_facts_note (cache, wrong, NULL) ? 0 : 4;
}

GST_START_TEST (test_wrong_note_costs_a_miss)
{
  g_autofree gchar *dir = setup ();
  fail_unless_equals_int (in_child (cold_start_then_wrong_note, dir), 0);
  g_autoptr (CrCache) cache = cr_cache_open (dir, NULL);
  fail_unless (cache != NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (CrNvrtcFacts) noted = cr_nvrtc_facts_recall (cache, &error);
  fail_unless (noted != NULL, "%s", error ? error->message : "");
  fail_unless_equals_string (noted->version, "0.0");

  /* Looked up under the wrong version's key: a miss. NVRTC, opened, tells
   * the right version: looked up again, and found. */
  g_autoptr (CrCompiled) warm = compile_sum (CR_COMPILE_DEFAULT, &error);
  fail_unless (warm != NULL, "%s", error ? error->message : "");
  fail_unless (warm->from_cache);
  fail_unless (strstr (debug_log->str, "is not as noted") != NULL,
      "debug log: %s", debug_log->str);
  g_autoptr (CrCompiled) fresh = compile_sum (CR_COMPILE_NO_CACHE, &error);
  fail_unless (fresh != NULL, "%s", error ? error->message : "");
  fail_unless (g_bytes_equal (warm->image, fresh->image));

  /* And noted again, right. */
  g_autoptr (CrNvrtcFacts) actual = cr_nvrtc_facts_of (cr_cuda_nvrtc (NULL));
  g_autoptr (CrNvrtcFacts) renoted = cr_nvrtc_facts_recall (cache, &error);
  fail_unless (renoted != NULL, "%s", error ? error->message : "");
  fail_unless (cr_nvrtc_facts_equal (renoted, actual));
  fail_if (g_str_equal (actual->version, "0.0"));
  cr_test_remove_dir (dir);
}

GST_END_TEST;

/* A cold start, then a note whose only target is newer than any GPU: with
 * it, no target fits sm_90. */
static gint
cold_start_then_note_without_target (gpointer data)
{
  gint status = cold_start (NULL);
  if (status != 0)
    return status;
  g_autoptr (CrCache) cache = cr_cache_open (data, NULL);
  g_autoptr (CrNvrtcFacts) wrong = cr_nvrtc_facts_of (cr_cuda_nvrtc (NULL));
  const gint future = 1000;
  g_array_set_size (wrong->archs, 0);
  g_array_append_val (wrong->archs, future);
  return cache && cr_nvrtc_facts_note (cache, wrong, NULL) ? 0 : 4;
}

/* A note that lacks the target the GPU needs costs one miss, not a failed
 * compile: NVRTC is opened, has the target, and the note is rewritten. */
GST_START_TEST (test_note_without_the_target_costs_a_miss)
{
  g_autofree gchar *dir = setup ();
  fail_unless_equals_int (
      in_child (cold_start_then_note_without_target, dir), 0);
  g_autoptr (CrCache) cache = cr_cache_open (dir, NULL);
  fail_unless (cache != NULL);

  g_autoptr (GError) error = NULL;
  g_autoptr (CrCompiled) warm = compile_sum (CR_COMPILE_DEFAULT, &error);
  fail_unless (warm != NULL, "%s", error ? error->message : "");
  fail_unless (warm->from_cache);
  fail_unless_equals_string (warm->target, "sm_90");
  fail_unless (strstr (debug_log->str, "is not as noted") != NULL,
      "debug log: %s", debug_log->str);

  g_autoptr (CrNvrtcFacts) actual = cr_nvrtc_facts_of (cr_cuda_nvrtc (NULL));
  g_autoptr (CrNvrtcFacts) renoted = cr_nvrtc_facts_recall (cache, &error);
  fail_unless (renoted != NULL, "%s", error ? error->message : "");
  fail_unless (cr_nvrtc_facts_equal (renoted, actual), "not noted again");
  cr_test_remove_dir (dir);
}

GST_END_TEST;

/* The file NVRTC is opened from, written to @data's file. */
static gint
write_nvrtc_file (gpointer data)
{
  if (cr_cuda_nvrtc (NULL) == NULL)
    return 2;
  g_autofree gchar *file = cr_cuda_nvrtc_file ();
  return file && g_file_set_contents (data, file, -1, NULL) ? 0 : 3;
}

GST_START_TEST (test_changed_nvrtc_is_opened)
{
  g_autofree gchar *dir = setup ();
  g_autofree gchar *libs = cr_test_make_dir ("cr-facts-libs");
  g_autofree gchar *where = g_build_filename (libs, "where", NULL);
  fail_unless_equals_int (in_child (write_nvrtc_file, where), 0);
  g_autofree gchar *real = NULL;
  fail_unless (g_file_get_contents (where, &real, NULL, NULL));
  fail_unless (g_path_is_absolute (real), "%s", real);

  /* NVRTC opened through a link, as an upgrade would swap one. */
  g_autofree gchar *link = g_build_filename (libs, "libnvrtc.so", NULL);
  fail_unless (symlink (real, link) == 0);
  g_setenv (NVRTC_OVERRIDE, link, TRUE);
  fail_unless_equals_int (in_child (cold_start, NULL), 0);
  g_autoptr (CrCache) cache = cr_cache_open (dir, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (CrNvrtcFacts) noted = cr_nvrtc_facts_recall (cache, &error);
  fail_unless (noted != NULL, "%s", error ? error->message : "");

  /* Another search (here, no override) has no note. */
  g_unsetenv (NVRTC_OVERRIDE);
  g_autoptr (CrNvrtcFacts) elsewhere = cr_nvrtc_facts_recall (cache, &error);
  fail_unless (elsewhere == NULL);
  g_clear_error (&error);

  /* The link now names another file: the note is not believed, and NVRTC
   * is opened, which fails here, as it must, though the image is cached. */
  g_setenv (NVRTC_OVERRIDE, link, TRUE);
  fail_unless (g_unlink (link) == 0);
  fail_unless (symlink (where, link) == 0);
  g_autoptr (CrNvrtcFacts) stale = cr_nvrtc_facts_recall (cache, &error);
  fail_unless (stale == NULL);
  fail_unless (strstr (error->message, "NVRTC has changed") != NULL, "%s",
      error->message);
  g_clear_error (&error);
  g_autoptr (CrCompiled) c = compile_sum (CR_COMPILE_DEFAULT, &error);
  fail_unless (c == NULL);
  fail_unless (g_error_matches (error, CR_ERROR, CR_ERROR_NO_NVRTC), "%s",
      error->message);
  g_unsetenv (NVRTC_OVERRIDE);
  cr_test_remove_dir (libs);
  cr_test_remove_dir (dir);
}

GST_END_TEST;

static gint
nvrtc_opens (gpointer data)
{
  return cr_cuda_nvrtc (NULL) ? 0 : 1;
}

/* GST_CUDAREDUCE_NVRTC_OPTIONS: its options reach NVRTC and the key (an
 * entry of its own, found again under the same options, the element's own
 * found again without them); an option NVRTC refuses and a value that
 * cannot be split are errors that name the variable. */
GST_START_TEST (test_compile_with_user_options)
{
  g_autofree gchar *dir = setup ();
  g_autoptr (GError) error = NULL;
  g_autoptr (CrCompiled) plain = compile_sum (CR_COMPILE_DEFAULT, &error);
  fail_unless (plain != NULL, "%s", error ? error->message : "");
  g_setenv (
      CR_NVRTC_OPTIONS_ENV, " -DCR_TEST_OPTION=1  '-DCR_TEST_TEXT=a b' ", TRUE);
  g_autoptr (CrCompiled) with = compile_sum (CR_COMPILE_DEFAULT, &error);
  fail_unless (with != NULL, "%s", error ? error->message : "");
  fail_if (with->from_cache, "an image of other options was loaded");
  g_autoptr (CrCompiled) again = compile_sum (CR_COMPILE_DEFAULT, &error);
  fail_unless (again != NULL && again->from_cache);
  g_autoptr (GPtrArray) images = cr_test_files_ending (dir, ".bin");
  fail_unless_equals_int (images->len, 2);

  g_setenv (CR_NVRTC_OPTIONS_ENV, "-DCR_TEST_OPTION=1 --no-such-option", TRUE);
  g_autoptr (CrCompiled) refused = compile_sum (CR_COMPILE_DEFAULT, &error);
  fail_unless (refused == NULL);
  fail_unless (strstr (error->message,
                   "NVRTC refused an option of "
                   "GST_CUDAREDUCE_NVRTC_OPTIONS "
                   "(-DCR_TEST_OPTION=1 --no-such-option)")
          && strstr (error->message, "unset GST_CUDAREDUCE_NVRTC_OPTIONS"),
      "%s", error->message);
  g_clear_error (&error);
  g_setenv (CR_NVRTC_OPTIONS_ENV, "'-DX=1", TRUE);
  g_autoptr (CrCompiled) unsplit = compile_sum (CR_COMPILE_DEFAULT, &error);
  fail_unless (unsplit == NULL
          && strstr (error->message, "cannot be read as NVRTC options"),
      "%s", error ? error->message : "compiled");
  g_clear_error (&error);

  g_setenv (CR_NVRTC_OPTIONS_ENV, "  ", TRUE);
  g_autoptr (CrCompiled) blank = compile_sum (CR_COMPILE_DEFAULT, &error);
  fail_unless (blank != NULL && blank->from_cache
      && g_bytes_equal (blank->image, plain->image));
  g_unsetenv (CR_NVRTC_OPTIONS_ENV);
  cr_test_remove_dir (dir);
}

GST_END_TEST;

/* cudareduce-monoid --fill-cache @args..., in the test's cache. */
static void
fill_cache (const gchar *const *args)
{
  const gchar *tool = g_getenv ("CR_MONOID_TOOL");
  fail_unless (tool != NULL, "CR_MONOID_TOOL is not set (meson sets it)");
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (gpointer)tool);
  g_ptr_array_add (argv, "--fill-cache");
  for (guint k = 0; args[k]; k++)
    g_ptr_array_add (argv, (gpointer)args[k]);
  g_ptr_array_add (argv, NULL);
  g_autofree gchar *out = NULL, *err = NULL;
  gint status = 0;
  g_autoptr (GError) error = NULL;
  fail_unless (g_spawn_sync (NULL, (gchar **)argv->pdata, NULL, G_SPAWN_DEFAULT,
                   NULL, NULL, &out, &err, &status, &error),
      "%s", error ? error->message : "");
  fail_unless (g_spawn_check_wait_status (status, &error),
      "cudareduce-monoid: %s\n%s%s", error->message, out, err);
  fail_unless (strstr (out, "filling the kernel cache in") != NULL, "%s", out);
}

/* The program of @monoid on @type with @kernels, as the element builds it,
 * from the cache for sm_90. */
static void
assert_cached (CrMonoid *monoid, CrType type, CrKernels kernels)
{
  g_autoptr (CrProgram) program = cr_program_new_with (monoid, type, kernels);
  g_autoptr (GError) error = NULL;
  g_autoptr (CrCompiled) c =
      cr_compile (program->source, 90, CR_COMPILE_DEFAULT, NULL, &error);
  fail_unless (c != NULL, "%s", error ? error->message : "");
  fail_unless (c->from_cache, "%s on %s, kernels 0x%x: not in the cache",
      monoid->name, cr_type_name (type), kernels);
}

/* A cache filled ahead of time: the programs an element builds of the
 * same monoids (stereo and mono audio, and video frames, of float32;
 * 8-bit frames with 64 bins set as the bins property sets them) are all
 * there. (NVRTC's facts are noted per program, whose run path decides
 * which NVRTC it opens: the element's process opens NVRTC once to read
 * its version, and compiles nothing.) */
GST_START_TEST (test_filled_cache_starts_without_nvrtc)
{
  g_autofree gchar *dir = setup ();
  const gchar *mean_var[] = { "--arch=90", "--type=float32", "mean_var", NULL };
  const gchar *histogram[] = { "--arch=90", "--type=uint8", "--single",
    "--bins=64", "histogram", NULL };
  fill_cache (mean_var);
  fill_cache (histogram);

  g_autoptr (GError) error = NULL;
  g_autoptr (CrMonoid) m = cr_monoid_load ("mean_var", &error);
  fail_unless (m != NULL);
  assert_cached (m, CR_TYPE_FLOAT32, 0);
  assert_cached (m, CR_TYPE_FLOAT32, CR_KERNELS_CHANNELS | CR_KERNELS_VEC2);
  assert_cached (m, CR_TYPE_FLOAT32, CR_KERNELS_CHANNELS);
  assert_cached (m, CR_TYPE_FLOAT32, CR_KERNELS_PITCHED);
  g_autoptr (CrMonoid) h = cr_monoid_load ("histogram", &error);
  g_autoptr (CrMonoid) h64 = h ? cr_monoid_with_bins (h, 64, &error) : NULL;
  fail_unless (h64 != NULL, "%s", error ? error->message : "");
  assert_cached (h64, CR_TYPE_UINT8, CR_KERNELS_PITCHED);

  /* Not 64 bins: not filled, so compiled (and NVRTC opened). */
  g_autoptr (CrProgram) other = cr_program_new_with (h, CR_TYPE_UINT8, 0);
  g_autoptr (CrCompiled) c =
      cr_compile (other->source, 90, CR_COMPILE_DEFAULT, NULL, &error);
  fail_unless (c != NULL && !c->from_cache);
  cr_test_remove_dir (dir);
}

GST_END_TEST;

static Suite *
nvrtc_facts_suite (void)
{
  Suite *s = suite_create ("nvrtc-facts");
  TCase *tc = tcase_create ("facts");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_start_from_cache_opens_no_nvrtc);
  tcase_add_test (tc, test_wrong_note_costs_a_miss);
  tcase_add_test (tc, test_note_without_the_target_costs_a_miss);
  tcase_add_test (tc, test_changed_nvrtc_is_opened);
  tcase_add_test (tc, test_filled_cache_starts_without_nvrtc);
  tcase_add_test (tc, test_compile_with_user_options);
  return s;
}

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  /* In a child: this process must not open NVRTC before the tests do. */
  if (in_child (nvrtc_opens, NULL) != 0) {
    if (g_strcmp0 (g_getenv ("CUDAREDUCE_REQUIRE_NVRTC"), "1") == 0) {
      g_printerr ("CUDAREDUCE_REQUIRE_NVRTC=1 but NVRTC cannot be opened\n");
      return 1;
    }
    g_print ("SKIP: NVRTC cannot be opened\n");
    return CR_TEST_SKIP;
  }
  return gst_check_run_suite (nvrtc_facts_suite (), "nvrtc-facts", __FILE__);
}
