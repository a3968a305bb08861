/* test-cache-compile.c: cr_compile through the disk cache, where NVRTC
 * is installed (skipped where it is not): it compiles instead of reading
 * an entry it cannot trust, and says why in the debug log; with fast
 * starts, images compiled for time have keys of their own; images of a
 * system cache are found there. */
#include "cr-test-util.h"

#include "cr-compiler.h"
#include "cr-cuda.h"
#include "cr-program.h"

#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

/* The debug lines of the engine, while a test runs. */
static const GString *debug_log;

/* A cache directory of the test's own, which cr_compile uses, or NULL
 * where NVRTC cannot be opened (the test then has nothing to check). */
static gchar *
compile_setup (void)
{
  g_autoptr (GError) error = NULL;
  if (cr_cuda_nvrtc (&error) == NULL) {
    g_print ("cr_compile not tested: %s\n", error->message);
    return NULL;
  }
  gchar *dir = cr_test_make_dir ("cr-cache");
  g_setenv ("GST_CUDAREDUCE_CACHE_DIR", dir, TRUE);
  debug_log = cr_test_keep_engine_debug ();
  return dir;
}

static GPtrArray *
entry_paths (const gchar *dir)
{
  return cr_test_files_ending (dir, ".bin");
}

static CrCompiled *
compile_with (const gchar *monoid_name, CrType in, CrCompileFlags flags)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CrMonoid) monoid = cr_monoid_load (monoid_name, &error);
  fail_unless (monoid != NULL, "%s", error ? error->message : "");
  g_autoptr (CrProgram) program = cr_program_new (monoid, in);
  CrCompiled *c = cr_compile (program->source, 90, flags, NULL, &error);
  fail_unless (c != NULL, "%s", error ? error->message : "");
  return c;
}

static CrCompiled *
compile (const gchar *monoid_name, CrType in)
{
  return compile_with (monoid_name, in, CR_COMPILE_DEFAULT);
}

GST_START_TEST (test_compile_in_unsafe_dir)
{
  g_autofree gchar *dir = compile_setup ();
  if (dir == NULL)
    return;
  fail_unless (g_chmod (dir, 01777) == 0);

  g_autoptr (CrCompiled) first = compile ("sum", CR_TYPE_FLOAT32);
  g_autoptr (CrCompiled) second = compile ("sum", CR_TYPE_FLOAT32);
  fail_if (first->from_cache);
  fail_if (second->from_cache);
  fail_unless (g_bytes_equal (first->image, second->image));
  g_autoptr (GPtrArray) written = cr_test_files_ending (dir, "");
  fail_unless_equals_int (written->len, 0);
  fail_unless (strstr (debug_log->str, "kernel cache not used") != NULL
          && strstr (debug_log->str, "writable by its group or others"),
      "debug log: %s", debug_log->str);
  cr_test_remove_dir (dir);
}

GST_END_TEST;

GST_START_TEST (test_compile_after_entry_of_another_key)
{
  g_autofree gchar *dir = compile_setup ();
  if (dir == NULL)
    return;
  g_autoptr (CrCompiled) sum = compile ("sum", CR_TYPE_FLOAT32);
  g_autoptr (GPtrArray) sum_only = entry_paths (dir);
  fail_unless_equals_int (sum_only->len, 1);
  const gchar *sum_path = sum_only->pdata[0];
  g_autoptr (CrCompiled) max = compile ("max", CR_TYPE_FLOAT32);
  fail_if (max->from_cache);
  g_autoptr (GPtrArray) both = entry_paths (dir);
  fail_unless_equals_int (both->len, 2);
  const gchar *max_path = both->pdata[g_str_equal (both->pdata[0], sum_path)];

  /* max's entry over sum's name. */
  gsize length = 0;
  g_autofree gchar *contents = NULL;
  fail_unless (g_file_get_contents (max_path, &contents, &length, NULL));
  fail_unless (g_file_set_contents (sum_path, contents, length, NULL));

  g_autoptr (CrCompiled) again = compile ("sum", CR_TYPE_FLOAT32);
  fail_if (again->from_cache, "another key's entry was loaded");
  fail_unless (g_bytes_equal (again->image, sum->image));
  fail_unless (strstr (debug_log->str, "kernel cache miss") != NULL
          && strstr (debug_log->str, "holds the entry of key"),
      "debug log: %s", debug_log->str);
  /* And rewritten. */
  g_autoptr (CrCompiled) cached = compile ("sum", CR_TYPE_FLOAT32);
  fail_unless (cached->from_cache);
  fail_unless (g_bytes_equal (cached->image, sum->image));
  cr_test_remove_dir (dir);
}

GST_END_TEST;

/* A compile for time (CR_COMPILE_FAST): only with fast starts on, kept
 * under a key of its own, and passed over for the optimized image once the
 * cache has that. Off, it is the optimized compile, one entry. */
GST_START_TEST (test_compile_fast_start)
{
  g_autofree gchar *dir = compile_setup ();
  if (dir == NULL)
    return;
  g_autofree gchar *version = cr_nvrtc_version (NULL);
  guint major = 0, minor = 0;
  if (version == NULL || sscanf (version, "%u.%u", &major, &minor) != 2
      || major * 100 + minor < 1208) {
    g_print ("fast compiles not tested: NVRTC %s has no %s\n", version,
        CR_FAST_COMPILE_OPTION);
    cr_test_remove_dir (dir);
    return;
  }
  g_setenv (CR_FAST_START_ENV, "0", TRUE);
  g_autoptr (CrCompiled) off =
      compile_with ("sum", CR_TYPE_INT16, CR_COMPILE_FAST);
  fail_if (off->fast || off->from_cache);
  g_autoptr (GPtrArray) one = entry_paths (dir);
  fail_unless_equals_int (one->len, 1);
  g_autoptr (CrCompiled) optimized = compile ("sum", CR_TYPE_INT16);
  fail_unless (optimized->from_cache);
  fail_unless (g_bytes_equal (optimized->image, off->image));

  /* On by default. */
  g_unsetenv (CR_FAST_START_ENV);
  g_autoptr (CrCompiled) fast =
      compile_with ("max", CR_TYPE_INT16, CR_COMPILE_FAST);
  fail_unless (fast->fast);
  fail_if (fast->from_cache);
  g_autoptr (GPtrArray) two = entry_paths (dir);
  fail_unless_equals_int (two->len, 2);
  /* Kept under the key of the fast options, the compile on every core
   * among them. */
  g_autoptr (CrMonoid) max = cr_monoid_load ("max", NULL);
  g_autoptr (CrProgram) max_program = cr_program_new (max, CR_TYPE_INT16);
  g_autofree gchar *arch =
      g_strdup_printf ("--gpu-architecture=%s", fast->target);
  const gchar *fast_options[] = { arch, "--std=c++17", CR_FAST_COMPILE_OPTION,
    CR_FAST_SPLIT_OPTION };
  g_autofree gchar *fast_key = cr_cache_key (
      max_program->source, fast_options, G_N_ELEMENTS (fast_options), version);
  g_autofree gchar *fast_name = g_strconcat (fast_key, ".bin", NULL);
  fail_unless (g_str_has_suffix (two->pdata[0], fast_name)
          || g_str_has_suffix (two->pdata[1], fast_name),
      "no entry %s", fast_name);
  /* The fast image again, from the cache, while there is no other. */
  g_autoptr (CrCompiled) again =
      compile_with ("max", CR_TYPE_INT16, CR_COMPILE_FAST);
  fail_unless (again->fast && again->from_cache);
  fail_unless (g_bytes_equal (again->image, fast->image));
  g_autoptr (CrCompiled) full = compile ("max", CR_TYPE_INT16);
  fail_if (full->fast || full->from_cache);
  fail_if (g_bytes_equal (full->image, fast->image));
  g_autoptr (CrCompiled) after =
      compile_with ("max", CR_TYPE_INT16, CR_COMPILE_FAST);
  fail_if (after->fast);
  fail_unless (after->from_cache);
  fail_unless (g_bytes_equal (after->image, full->image));
  /* The optimized sum is in the cache already: that, not a fast one. */
  g_autoptr (CrCompiled) sum =
      compile_with ("sum", CR_TYPE_INT16, CR_COMPILE_FAST);
  fail_if (sum->fast);
  fail_unless (sum->from_cache);
  g_unsetenv (CR_FAST_START_ENV);
  cr_test_remove_dir (dir);
}

GST_END_TEST;

/* Images made ahead of time in a system cache (cudareduce-monoid
 * --fill-cache into it, at install): a fresh user's cache empty, the
 * image comes from there and is not copied; a refresh compiles. */
GST_START_TEST (test_compile_from_system_cache)
{
  g_autofree gchar *system = compile_setup ();
  if (system == NULL)
    return;
  g_autoptr (CrCompiled) made = compile ("sum", CR_TYPE_FLOAT32);
  fail_if (made->from_cache);
  g_autoptr (GPtrArray) installed = entry_paths (system);
  fail_unless_equals_int (installed->len, 1);
  /* Installed as packages install: readable by everyone. */
  fail_unless (g_chmod (system, 0755) == 0);
  fail_unless (g_chmod (installed->pdata[0], 0644) == 0);

  g_autofree gchar *user = cr_test_make_dir ("cr-cache");
  g_setenv ("GST_CUDAREDUCE_CACHE_DIR", user, TRUE);
  g_autofree gchar *dirs = g_strjoin (
      G_SEARCHPATH_SEPARATOR_S, "/nonexistent/cudareduce", system, NULL);
  g_setenv ("GST_CUDAREDUCE_SYSTEM_CACHE_DIRS", dirs, TRUE);
  g_autoptr (CrCompiled) found = compile ("sum", CR_TYPE_FLOAT32);
  fail_unless (found->from_cache, "compiled, not found in %s", system);
  fail_unless (g_bytes_equal (found->image, made->image));
  g_autoptr (GPtrArray) copied = entry_paths (user);
  fail_unless_equals_int (copied->len, 0);

  g_autoptr (CrCompiled) refreshed =
      compile_with ("sum", CR_TYPE_FLOAT32, CR_COMPILE_REFRESH);
  fail_if (refreshed->from_cache);

  /* None listed: compiled. */
  g_autofree gchar *other = cr_test_make_dir ("cr-cache");
  g_setenv ("GST_CUDAREDUCE_CACHE_DIR", other, TRUE);
  g_setenv ("GST_CUDAREDUCE_SYSTEM_CACHE_DIRS", "", TRUE);
  g_autoptr (CrCompiled) alone = compile ("sum", CR_TYPE_FLOAT32);
  fail_if (alone->from_cache);
  cr_test_remove_dir (system);
  cr_test_remove_dir (user);
  cr_test_remove_dir (other);
}

GST_END_TEST;

static Suite *
cache_compile_suite (void)
{
  Suite *s = suite_create ("cache-compile");
  TCase *compiles = tcase_create ("compile");
  suite_add_tcase (s, compiles);
  tcase_add_test (compiles, test_compile_in_unsafe_dir);
  tcase_add_test (compiles, test_compile_after_entry_of_another_key);
  tcase_add_test (compiles, test_compile_fast_start);
  tcase_add_test (compiles, test_compile_from_system_cache);
  return s;
}

GST_CHECK_MAIN (cache_compile);
