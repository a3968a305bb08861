/* test-cache-system.c: the system caches (cr_cache_open_system), the
 * images made ahead of time for every user: found where they are listed,
 * only read, and trusted as the user's own cache is, root's entries
 * besides. */
#include "cr-test-util.h"

#include "cr-cache.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static gchar *
key_of (const gchar *text)
{
  return g_compute_checksum_for_string (G_CHECKSUM_SHA256, text, -1);
}

/* A directory holding one entry of @key, written as a user's cache
 * writes it, as cudareduce-monoid --fill-cache fills a system cache. */
static gchar *
filled_dir (const gchar *key, const gchar *text)
{
  gchar *dir = cr_test_make_dir ("cr-system-cache");
  g_autoptr (GError) error = NULL;
  g_autoptr (CrCache) cache = cr_cache_open (dir, &error);
  fail_unless (cache != NULL, "%s", error ? error->message : "");
  g_autoptr (GBytes) image = g_bytes_new (text, strlen (text) + 1);
  fail_unless (cr_cache_store (cache, key, image, FALSE, &error), "%s",
      error ? error->message : "");
  /* Installed as packages install: readable by everyone. */
  fail_unless (g_chmod (dir, 0755) == 0);
  g_autofree gchar *path = cr_cache_entry_path (cache, key);
  fail_unless (g_chmod (path, 0644) == 0);
  return dir;
}

static CrCache *
open_system (const gchar *dir)
{
  g_autoptr (GError) error = NULL;
  CrCache *cache = cr_cache_open_system (dir, &error);
  fail_unless (cache != NULL, "%s", error ? error->message : "");
  return cache;
}

static void
assert_refused (const gchar *dir, CrCacheError code)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CrCache) cache = cr_cache_open_system (dir, &error);
  fail_unless (cache == NULL, "%s was opened", dir);
  fail_unless (g_error_matches (error, CR_CACHE_ERROR, code),
      "refused for another reason than %d: %s", code,
      error ? error->message : "");
}

static void
assert_unsafe_entry (CrCache *cache, const gchar *key)
{
  g_autoptr (GError) error = NULL;
  gboolean is_ptx = FALSE;
  g_autoptr (GBytes) image = cr_cache_lookup (cache, key, &is_ptx, &error);
  fail_unless (image == NULL, "an unsafe entry was read");
  fail_unless (g_error_matches (error, CR_CACHE_ERROR, CR_CACHE_ERROR_UNSAFE),
      "%s", error ? error->message : "");
}

/* Readable by everyone, as installed: a hit, as in the user's cache. */
GST_START_TEST (test_system_cache_hit)
{
  g_autofree gchar *key = key_of ("installed");
  g_autofree gchar *dir = filled_dir (key, "an image");
  g_autoptr (CrCache) cache = open_system (dir);
  g_autoptr (GError) error = NULL;
  gboolean is_ptx = TRUE;
  g_autoptr (GBytes) image = cr_cache_lookup (cache, key, &is_ptx, &error);
  fail_unless (image != NULL, "%s", error ? error->message : "");
  fail_unless_equals_string (g_bytes_get_data (image, NULL), "an image");
  fail_if (is_ptx);
  cr_test_remove_dir (dir);
}

GST_END_TEST;

/* Never written to: no entry stored, no time of use set, nothing swept;
 * and a directory that does not exist is not created. */
GST_START_TEST (test_system_cache_only_read)
{
  g_autofree gchar *key = key_of ("installed");
  g_autofree gchar *dir = filled_dir (key, "an image");
  g_autoptr (CrCache) cache_for_path = open_system (dir);
  g_autofree gchar *path = cr_cache_entry_path (cache_for_path, key);
  /* An hour ago, so that a lookup's touch would show. */
  struct timespec times[2] = { { .tv_sec = time (NULL) - 3600 },
    { .tv_sec = time (NULL) - 3600 } };
  fail_unless (utimensat (AT_FDCWD, path, times, 0) == 0);

  g_autoptr (CrCache) cache = open_system (dir);
  g_autoptr (GError) error = NULL;
  gboolean is_ptx = FALSE;
  g_autoptr (GBytes) image = cr_cache_lookup (cache, key, &is_ptx, &error);
  fail_unless (image != NULL, "%s", error ? error->message : "");
  struct stat st;
  fail_unless (g_stat (path, &st) == 0);
  fail_unless (st.st_mtime <= times[1].tv_sec + 1, "the lookup touched it");

  g_autofree gchar *other = key_of ("another");
  fail_if (cr_cache_store (cache, other, image, FALSE, &error));
  fail_unless (error != NULL && strstr (error->message, "only reads"), "%s",
      error ? error->message : "stored");
  g_autoptr (GPtrArray) files = cr_test_files_ending (dir, "");
  fail_unless_equals_int (files->len, 1);

  g_autofree gchar *missing = g_build_filename (dir, "missing", NULL);
  assert_refused (missing, CR_CACHE_ERROR_ABSENT);
  fail_if (g_file_test (missing, G_FILE_TEST_EXISTS));
  cr_test_remove_dir (dir);
}

GST_END_TEST;

/* Trusted as a user's cache is: one another user owns, or that its group
 * or others could write to, is refused, and so are such entries. */
GST_START_TEST (test_system_cache_trust)
{
  g_autofree gchar *key = key_of ("installed");
  g_autofree gchar *dir = filled_dir (key, "an image");
  g_autoptr (CrCache) cache = open_system (dir);
  g_autofree gchar *path = cr_cache_entry_path (cache, key);

  fail_unless (g_chmod (path, 0664) == 0);
  assert_unsafe_entry (cache, key);
  fail_unless (g_chmod (path, 0644) == 0);

  fail_unless (g_chmod (dir, 0775) == 0);
  assert_refused (dir, CR_CACHE_ERROR_UNSAFE);
  fail_unless (g_chmod (dir, 0755) == 0);

  if (chown (path, 65534, 65534) != 0 || chown (dir, 65534, 65534) != 0) {
    g_print ("system cache of another user: not tested, chown: %s\n",
        g_strerror (errno));
  } else {
    assert_unsafe_entry (cache, key);
    assert_refused (dir, CR_CACHE_ERROR_UNSAFE);
  }
  cr_test_remove_dir (dir);
}

GST_END_TEST;

/* GST_CUDAREDUCE_SYSTEM_CACHE_DIRS lists them as PATH does; empty, none;
 * unset, the one the build installs to. */
GST_START_TEST (test_system_cache_dirs)
{
  g_autofree gchar *list =
      g_strjoin (G_SEARCHPATH_SEPARATOR_S, "/a", "/b c", "", "/d", NULL);
  g_setenv ("GST_CUDAREDUCE_SYSTEM_CACHE_DIRS", list, TRUE);
  g_auto (GStrv) dirs = cr_cache_system_dirs ();
  const gchar *const expected[] = { "/a", "/b c", "/d", NULL };
  fail_unless (g_strv_equal ((const gchar *const *)dirs, expected));

  g_setenv ("GST_CUDAREDUCE_SYSTEM_CACHE_DIRS", "", TRUE);
  g_auto (GStrv) none = cr_cache_system_dirs ();
  fail_unless_equals_int (g_strv_length (none), 0);

  g_unsetenv ("GST_CUDAREDUCE_SYSTEM_CACHE_DIRS");
  g_auto (GStrv) installed = cr_cache_system_dirs ();
  fail_unless_equals_int (g_strv_length (installed), 1);
  fail_unless (g_path_is_absolute (installed[0]), "%s", installed[0]);
  fail_unless (g_str_has_suffix (installed[0], "gstcudareduce/kernels"), "%s",
      installed[0]);
}

GST_END_TEST;

static Suite *
cache_system_suite (void)
{
  Suite *s = suite_create ("cache-system");
  TCase *t = tcase_create ("system");
  suite_add_tcase (s, t);
  tcase_add_test (t, test_system_cache_hit);
  tcase_add_test (t, test_system_cache_only_read);
  tcase_add_test (t, test_system_cache_trust);
  tcase_add_test (t, test_system_cache_dirs);
  return s;
}

GST_CHECK_MAIN (cache_system);
