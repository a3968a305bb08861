/* test-cache.c: the disk cache of compiled kernels on its own, without NVRTC
 * or a GPU: what it stores it returns; what it did not store for that key,
 * in a directory of this user's that no one else can write to, it refuses,
 * promptly, whatever the file is. test-cache-compile.c has cr_compile
 * through it. */
#include "cr-test-util.h"

#include "cr-cache.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

/* How long a lookup may take before a test calls it hung. */
#define PROMPTLY_US (2 * G_USEC_PER_SEC)

/* Keys as cr_cache_key makes them: 64 hexadecimal digits. */
static gchar *
key_of (const gchar *text)
{
  return g_compute_checksum_for_string (G_CHECKSUM_SHA256, text, -1);
}

static GBytes *
image_of (const gchar *text)
{
  return g_bytes_new (text, strlen (text) + 1);
}

static CrCache *
open_cache (const gchar *dir)
{
  g_autoptr (GError) error = NULL;
  CrCache *cache = cr_cache_open (dir, &error);
  fail_unless (cache != NULL, "%s", error ? error->message : "");
  return cache;
}

static void
store (CrCache *cache, const gchar *key, const gchar *text)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) image = image_of (text);
  fail_unless (cr_cache_store (cache, key, image, FALSE, &error), "%s",
      error ? error->message : "");
}

/* The lookup runs in a thread, so that one that hangs (a FIFO waiting for a
 * writer, /dev/zero read to the end) fails the test instead of hanging it. */
typedef struct {
  CrCache *cache;
  const gchar *key;
  GBytes *image;
  gboolean is_ptx;
  GError *error;
  gboolean done;
  GMutex lock;
  GCond cond;
} Lookup;

static gpointer
lookup_thread (gpointer data)
{
  Lookup *l = data;
  GError *error = NULL;
  gboolean is_ptx = FALSE;
  GBytes *image = cr_cache_lookup (l->cache, l->key, &is_ptx, &error);
  g_mutex_lock (&l->lock);
  l->image = image;
  l->is_ptx = is_ptx;
  l->error = error;
  l->done = TRUE;
  g_cond_signal (&l->cond);
  g_mutex_unlock (&l->lock);
  return NULL;
}

/* The image, or NULL with *@error set; fails the test when the lookup does
 * not return within PROMPTLY_US. */
static GBytes *
lookup_promptly (
    CrCache *cache, const gchar *key, gboolean *is_ptx, GError **error)
{
  /* Never freed when the lookup hangs: the test fails, and its forked
   * process ends with the thread in it. */
  Lookup *l = g_new0 (Lookup, 1);
  l->cache = cache;
  l->key = key;
  g_mutex_init (&l->lock);
  g_cond_init (&l->cond);
  GThread *thread = g_thread_new ("lookup", lookup_thread, l);
  gint64 deadline = g_get_monotonic_time () + PROMPTLY_US;
  g_mutex_lock (&l->lock);
  while (!l->done && g_cond_wait_until (&l->cond, &l->lock, deadline))
    ;
  gboolean done = l->done;
  g_mutex_unlock (&l->lock);
  fail_unless (done, "the lookup did not return within %d s",
      (gint)(PROMPTLY_US / G_USEC_PER_SEC));
  g_thread_join (thread);
  GBytes *image = l->image;
  if (is_ptx)
    *is_ptx = l->is_ptx;
  if (l->error)
    g_propagate_error (error, l->error);
  g_mutex_clear (&l->lock);
  g_cond_clear (&l->cond);
  g_free (l);
  return image;
}

/* A miss, for the reason @code. */
static void
assert_miss (CrCache *cache, const gchar *key, CrCacheError code)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) image = lookup_promptly (cache, key, NULL, &error);
  fail_unless (image == NULL, "a hit, expected a miss (%d)", code);
  fail_unless (error != NULL);
  fail_unless (g_error_matches (error, CR_CACHE_ERROR, code),
      "missed for another reason than %d: %s", code, error->message);
}

static void
assert_hit (CrCache *cache, const gchar *key, const gchar *text)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) image = lookup_promptly (cache, key, NULL, &error);
  fail_unless (image != NULL, "%s", error ? error->message : "");
  g_autoptr (GBytes) expected = image_of (text);
  fail_unless (g_bytes_equal (image, expected));
}

static gchar *
read_file (const gchar *path, gsize *length)
{
  gchar *contents = NULL;
  fail_unless (g_file_get_contents (path, &contents, length, NULL), "%s", path);
  return contents;
}

static void
write_file (const gchar *path, const gchar *contents, gsize length)
{
  fail_unless (g_file_set_contents (path, contents, length, NULL), "%s", path);
}

/* Entries */

GST_START_TEST (test_store_then_lookup)
{
  g_autofree gchar *dir = cr_test_make_dir ("cr-cache");
  g_autoptr (CrCache) cache = open_cache (dir);
  g_autofree gchar *cubin_key = key_of ("cubin");
  g_autofree gchar *ptx_key = key_of ("ptx");
  g_autoptr (GBytes) cubin = image_of ("a CUBIN");
  g_autoptr (GBytes) ptx = image_of (".version 8.0");
  g_autoptr (GError) error = NULL;

  assert_miss (cache, cubin_key, CR_CACHE_ERROR_ABSENT);
  fail_unless (cr_cache_store (cache, cubin_key, cubin, FALSE, &error));
  fail_unless (cr_cache_store (cache, ptx_key, ptx, TRUE, &error));

  gboolean is_ptx = TRUE;
  g_autoptr (GBytes) got = lookup_promptly (cache, cubin_key, &is_ptx, &error);
  fail_unless (got != NULL && g_bytes_equal (got, cubin));
  fail_if (is_ptx);
  g_autoptr (GBytes) got_ptx =
      lookup_promptly (cache, ptx_key, &is_ptx, &error);
  fail_unless (got_ptx != NULL && g_bytes_equal (got_ptx, ptx));
  fail_unless (is_ptx);

  /* Stored again, replaced. */
  store (cache, cubin_key, "another CUBIN");
  assert_hit (cache, cubin_key, "another CUBIN");
  cr_test_remove_dir (dir);
}

GST_END_TEST;

/* An entry another process wrote is read: a regular file of this user's,
 * mode 0600, named after its key, with no temporary file left beside it. */
GST_START_TEST (test_good_entry_is_hit)
{
  g_autofree gchar *dir = cr_test_make_dir ("cr-cache");
  g_autofree gchar *key = key_of ("good");
  {
    g_autoptr (CrCache) writer = open_cache (dir);
    store (writer, key, "a good image");
  }

  g_autofree gchar *name = g_strconcat (key, ".bin", NULL);
  g_autofree gchar *path = g_build_filename (dir, name, NULL);
  GStatBuf st;
  fail_unless (g_lstat (path, &st) == 0, "no entry %s", path);
  fail_unless (S_ISREG (st.st_mode));
  fail_unless_equals_int (st.st_mode & 0777, 0600);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  fail_unless_equals_string (g_dir_read_name (d), name);
  fail_unless (g_dir_read_name (d) == NULL, "a file left beside the entry");

  g_autoptr (CrCache) reader = open_cache (dir);
  g_autofree gchar *entry_path = cr_cache_entry_path (reader, key);
  fail_unless_equals_string (entry_path, path);
  assert_hit (reader, key, "a good image");
  cr_test_remove_dir (dir);
}

GST_END_TEST;

/* Notes (the compiler's facts about NVRTC) are kept in .note files: one
 * stored is read back, and neither kind is ever taken for the other, even
 * copied over the other's file. */
GST_START_TEST (test_notes_apart_from_images)
{
  g_autofree gchar *dir = cr_test_make_dir ("cr-cache");
  g_autoptr (CrCache) cache = open_cache (dir);
  g_autofree gchar *key = key_of ("note");
  g_autoptr (GError) error = NULL;
  fail_unless (
      cr_cache_store_note (cache, key, "[nvrtc]\nversion=13.0\n", &error));
  g_autofree gchar *text = cr_cache_lookup_note (cache, key, &error);
  fail_unless_equals_string (text, "[nvrtc]\nversion=13.0\n");
  assert_miss (cache, key, CR_CACHE_ERROR_ABSENT);

  g_autofree gchar *note_name = g_strconcat (key, ".note", NULL);
  g_autofree gchar *note_path = g_build_filename (dir, note_name, NULL);
  g_autofree gchar *image_path = cr_cache_entry_path (cache, key);
  gsize length = 0;
  g_autofree gchar *note = read_file (note_path, &length);
  write_file (image_path, note, length);
  assert_miss (cache, key, CR_CACHE_ERROR_OTHER_KEY);

  store (cache, key, "an image");
  g_autofree gchar *image = read_file (image_path, &length);
  write_file (note_path, image, length);
  g_autofree gchar *not_a_note = cr_cache_lookup_note (cache, key, &error);
  fail_unless (not_a_note == NULL);
  fail_unless (
      g_error_matches (error, CR_CACHE_ERROR, CR_CACHE_ERROR_OTHER_KEY), "%s",
      error->message);
  cr_test_remove_dir (dir);
}

GST_END_TEST;

/* Another monoid's entry, whole and valid, copied over this key's name. */
GST_START_TEST (test_entry_of_another_key)
{
  g_autofree gchar *dir = cr_test_make_dir ("cr-cache");
  g_autoptr (CrCache) cache = open_cache (dir);
  g_autofree gchar *mine = key_of ("mine");
  g_autofree gchar *theirs = key_of ("theirs");
  store (cache, mine, "my image");
  store (cache, theirs, "their image");

  g_autofree gchar *my_path = cr_cache_entry_path (cache, mine);
  g_autofree gchar *their_path = cr_cache_entry_path (cache, theirs);
  gsize length = 0;
  g_autofree gchar *contents = read_file (their_path, &length);
  write_file (my_path, contents, length);

  assert_miss (cache, mine, CR_CACHE_ERROR_OTHER_KEY);
  assert_hit (cache, theirs, "their image");
  /* Rewritten, it is a hit again. */
  store (cache, mine, "my image");
  assert_hit (cache, mine, "my image");
  cr_test_remove_dir (dir);
}

GST_END_TEST;

/* Even a link to the very entry the key should have is refused: a link
 * could as well lead anywhere. */
GST_START_TEST (test_symlink_to_right_entry)
{
  g_autofree gchar *dir = cr_test_make_dir ("cr-cache");
  g_autoptr (CrCache) cache = open_cache (dir);
  g_autofree gchar *key = key_of ("linked");
  store (cache, key, "the right image");
  g_autofree gchar *path = cr_cache_entry_path (cache, key);
  g_autofree gchar *moved = g_build_filename (dir, "elsewhere", NULL);
  fail_unless (g_rename (path, moved) == 0);
  fail_unless (symlink (moved, path) == 0, "%s", g_strerror (errno));

  assert_miss (cache, key, CR_CACHE_ERROR_NOT_REGULAR);
  cr_test_remove_dir (dir);
}

GST_END_TEST;

GST_START_TEST (test_symlink_to_dev_zero)
{
  g_autofree gchar *dir = cr_test_make_dir ("cr-cache");
  g_autoptr (CrCache) cache = open_cache (dir);
  g_autofree gchar *key = key_of ("zero");
  g_autofree gchar *path = cr_cache_entry_path (cache, key);
  fail_unless (symlink ("/dev/zero", path) == 0, "%s", g_strerror (errno));

  assert_miss (cache, key, CR_CACHE_ERROR_NOT_REGULAR);
  cr_test_remove_dir (dir);
}

GST_END_TEST;

/* Opening a FIFO for reading waits for a writer, which never comes. */
GST_START_TEST (test_fifo_entry)
{
  g_autofree gchar *dir = cr_test_make_dir ("cr-cache");
  g_autoptr (CrCache) cache = open_cache (dir);
  g_autofree gchar *key = key_of ("fifo");
  g_autofree gchar *path = cr_cache_entry_path (cache, key);
  fail_unless (mkfifo (path, 0600) == 0, "%s", g_strerror (errno));

  assert_miss (cache, key, CR_CACHE_ERROR_NOT_REGULAR);
  cr_test_remove_dir (dir);
}

GST_END_TEST;

/* Refused on its size, before anything is read: the file here is sparse, and
 * a planted one could be far larger. */
GST_START_TEST (test_oversized_entry)
{
  g_autofree gchar *dir = cr_test_make_dir ("cr-cache");
  g_autoptr (CrCache) cache = open_cache (dir);
  g_autofree gchar *key = key_of ("large");
  store (cache, key, "an image");
  g_autofree gchar *path = cr_cache_entry_path (cache, key);
  fail_unless (truncate (path, CR_CACHE_MAX_ENTRY + 1) == 0);

  assert_miss (cache, key, CR_CACHE_ERROR_TOO_LARGE);

  /* Nor is an entry stored that a lookup would refuse. */
  g_autofree gchar *other = key_of ("too large to store");
  g_autoptr (GBytes) huge =
      g_bytes_new_take (g_malloc0 (CR_CACHE_MAX_ENTRY), CR_CACHE_MAX_ENTRY);
  g_autoptr (GError) error = NULL;
  fail_if (cr_cache_store (cache, other, huge, FALSE, &error));
  fail_unless (
      g_error_matches (error, CR_CACHE_ERROR, CR_CACHE_ERROR_TOO_LARGE));
  assert_miss (cache, other, CR_CACHE_ERROR_ABSENT);
  cr_test_remove_dir (dir);
}

GST_END_TEST;

GST_START_TEST (test_truncated_entry)
{
  g_autofree gchar *dir = cr_test_make_dir ("cr-cache");
  g_autoptr (CrCache) cache = open_cache (dir);
  g_autofree gchar *key = key_of ("truncated");
  store (cache, key, "an image long enough to cut in places");
  g_autofree gchar *path = cr_cache_entry_path (cache, key);
  gsize length = 0;
  g_autofree gchar *contents = read_file (path, &length);

  /* Cut in the payload, in the header, and empty. */
  const gsize cuts[] = { length - 1, length / 2, 10, 0 };
  for (guint k = 0; k < G_N_ELEMENTS (cuts); k++) {
    write_file (path, contents, cuts[k]);
    assert_miss (cache, key, CR_CACHE_ERROR_CORRUPT);
  }
  cr_test_remove_dir (dir);
}

GST_END_TEST;

/* Whichever byte of the entry changes, header or payload, it is a miss:
 * the checksum covers the key and the kind of image too. */
GST_START_TEST (test_corrupt_entry)
{
  g_autofree gchar *dir = cr_test_make_dir ("cr-cache");
  g_autoptr (CrCache) cache = open_cache (dir);
  g_autofree gchar *key = key_of ("corrupt");
  store (cache, key, "an image");
  g_autofree gchar *path = cr_cache_entry_path (cache, key);
  gsize length = 0;
  g_autofree gchar *contents = read_file (path, &length);

  for (gsize at = 0; at < length; at++) {
    contents[at] ^= 0x01;
    write_file (path, contents, length);
    g_autoptr (GError) error = NULL;
    g_autoptr (GBytes) image = lookup_promptly (cache, key, NULL, &error);
    fail_unless (
        image == NULL, "byte %" G_GSIZE_FORMAT " changed, still a hit", at);
    fail_unless (g_error_matches (error, CR_CACHE_ERROR, CR_CACHE_ERROR_CORRUPT)
            || g_error_matches (error, CR_CACHE_ERROR, CR_CACHE_ERROR_FORMAT),
        "byte %" G_GSIZE_FORMAT ": %s", at, error->message);
    contents[at] ^= 0x01;
  }
  write_file (path, contents, length);
  assert_hit (cache, key, "an image");
  cr_test_remove_dir (dir);
}

GST_END_TEST;

/* An entry as the first format wrote it: a header of magic, format, kind,
 * length and the payload's SHA-256, and no key. */
GST_START_TEST (test_format_1_entry)
{
  g_autofree gchar *dir = cr_test_make_dir ("cr-cache");
  g_autoptr (CrCache) cache = open_cache (dir);
  g_autofree gchar *key = key_of ("old");
  const gchar payload[] = "an image from before entries had keys, long "
                          "enough to be as long as a header of today";
  guint8 entry[56 + sizeof payload];
  guint32 format = GUINT32_TO_LE (1), kind = 0;
  guint64 length = GUINT64_TO_LE (sizeof payload);
  gsize digest_len = 32;
  g_autoptr (GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  memcpy (entry, "CRKCACHE", 8);
  memcpy (entry + 8, &format, 4);
  memcpy (entry + 12, &kind, 4);
  memcpy (entry + 16, &length, 8);
  g_checksum_update (sum, (const guchar *)payload, sizeof payload);
  g_checksum_get_digest (sum, entry + 24, &digest_len);
  memcpy (entry + 56, payload, sizeof payload);
  g_autofree gchar *path = cr_cache_entry_path (cache, key);
  write_file (path, (const gchar *)entry, sizeof entry);

  assert_miss (cache, key, CR_CACHE_ERROR_FORMAT);
  cr_test_remove_dir (dir);
}

GST_END_TEST;

/* An entry of another user's, in a directory of ours (root made it). */
GST_START_TEST (test_entry_of_another_user)
{
  g_autofree gchar *dir = cr_test_make_dir ("cr-cache");
  g_autoptr (CrCache) cache = open_cache (dir);
  g_autofree gchar *key = key_of ("owned");
  store (cache, key, "an image");
  g_autofree gchar *path = cr_cache_entry_path (cache, key);
  if (chown (path, 65534, 65534) != 0) {
    g_print (
        "entry of another user: not tested, chown: %s\n", g_strerror (errno));
    cr_test_remove_dir (dir);
    return;
  }
  assert_miss (cache, key, CR_CACHE_ERROR_UNSAFE);
  cr_test_remove_dir (dir);
}

GST_END_TEST;

/* An entry others may write to could be rewritten, checksum and all (the
 * checksum is no secret): it is a miss, and storing replaces it with one of
 * mode 0600. */
GST_START_TEST (test_entry_writable_by_others)
{
  g_autofree gchar *dir = cr_test_make_dir ("cr-cache");
  g_autoptr (CrCache) cache = open_cache (dir);
  g_autofree gchar *key = key_of ("writable");
  g_autofree gchar *path = cr_cache_entry_path (cache, key);
  const guint modes[] = { 0620, 0602, 0666 };
  for (guint k = 0; k < G_N_ELEMENTS (modes); k++) {
    store (cache, key, "an image");
    fail_unless (g_chmod (path, modes[k]) == 0);
    assert_miss (cache, key, CR_CACHE_ERROR_UNSAFE);
    store (cache, key, "an image");
    GStatBuf st;
    fail_unless (g_stat (path, &st) == 0);
    fail_unless_equals_int (st.st_mode & 0777, 0600);
    assert_hit (cache, key, "an image");
  }
  /* Readable by others is fine. */
  fail_unless (g_chmod (path, 0644) == 0);
  assert_hit (cache, key, "an image");
  cr_test_remove_dir (dir);
}

GST_END_TEST;

/* A hard link is another name for the entry, which may be in a directory
 * others can write to: an entry of more than one link is a miss, and
 * storing replaces this name alone. */
GST_START_TEST (test_hard_linked_entry)
{
  g_autofree gchar *dir = cr_test_make_dir ("cr-cache");
  g_autoptr (CrCache) cache = open_cache (dir);
  g_autofree gchar *key = key_of ("linked");
  store (cache, key, "an image");
  g_autofree gchar *path = cr_cache_entry_path (cache, key);
  g_autofree gchar *other = g_build_filename (dir, "other name", NULL);
  fail_unless (link (path, other) == 0, "%s", g_strerror (errno));

  assert_miss (cache, key, CR_CACHE_ERROR_UNSAFE);
  store (cache, key, "another image");
  assert_hit (cache, key, "another image");
  GStatBuf st;
  fail_unless (g_stat (other, &st) == 0);
  fail_unless_equals_int (st.st_nlink, 1);
  cr_test_remove_dir (dir);
}

GST_END_TEST;

/* Sets @path's modification time @seconds in the past. */
static void
age (const gchar *path, gint seconds)
{
  struct utimbuf when;
  when.actime = when.modtime = time (NULL) - seconds;
  fail_unless (g_utime (path, &when) == 0, "%s: %s", path, g_strerror (errno));
}

/* A writer killed between creating its temporary file and renaming it
 * leaves the file behind: the next store removes those over an hour old,
 * and leaves a younger one (a writer still at work) and files not of the
 * cache's making alone. */
GST_START_TEST (test_stale_temporary_files_swept)
{
  g_autofree gchar *dir = cr_test_make_dir ("cr-cache");
  g_autoptr (CrCache) cache = open_cache (dir);
  g_autofree gchar *key = key_of ("killed");
  g_autofree gchar *stale =
      g_strdup_printf ("%s/%s.bin.0badf00d.tmp", dir, key);
  g_autofree gchar *note =
      g_strdup_printf ("%s/%s.note.0badf00d.tmp", dir, key);
  g_autofree gchar *young =
      g_strdup_printf ("%s/%s.bin.0000cafe.tmp", dir, key);
  g_autofree gchar *other = g_build_filename (dir, "old.tmp", NULL);
  const gchar *const made[] = { stale, note, young, other };
  for (guint k = 0; k < G_N_ELEMENTS (made); k++) {
    write_file (made[k], "part of an entry", 16);
    age (made[k], k == 2 ? 60 : 2 * 3600);
  }

  g_autofree gchar *another = key_of ("another");
  store (cache, another, "an image");
  fail_if (g_file_test (stale, G_FILE_TEST_EXISTS), "%s left", stale);
  fail_if (g_file_test (note, G_FILE_TEST_EXISTS), "%s left", note);
  fail_unless (g_file_test (young, G_FILE_TEST_EXISTS));
  fail_unless (g_file_test (other, G_FILE_TEST_EXISTS));
  cr_test_remove_dir (dir);
}

GST_END_TEST;

/* Entries of 1,120 bytes (a 1,000-byte image and the header). */
static gchar *
store_sized (CrCache *cache, const gchar *name, gint seconds_old)
{
  gchar *key = key_of (name);
  g_autoptr (GBytes) image = g_bytes_new_take (g_malloc0 (1000), 1000);
  g_autoptr (GError) error = NULL;
  fail_unless (cr_cache_store (cache, key, image, FALSE, &error), "%s",
      error ? error->message : "");
  g_autofree gchar *path = cr_cache_entry_path (cache, key);
  age (path, seconds_old);
  return key;
}

static gboolean
is_hit (CrCache *cache, const gchar *key)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) image = lookup_promptly (cache, key, NULL, &error);
  return image != NULL;
}

/* Over GST_CUDAREDUCE_CACHE_MAX_BYTES, a store removes the entries used
 * longest ago (a hit counts as a use) until the cache fits, never the one
 * it wrote. */
GST_START_TEST (test_cache_size_bound)
{
  g_autofree gchar *dir = cr_test_make_dir ("cr-cache");
  g_setenv ("GST_CUDAREDUCE_CACHE_MAX_BYTES", "3500", TRUE);
  g_autoptr (CrCache) cache = open_cache (dir);
  g_autofree gchar *k0 = store_sized (cache, "k0", 300);
  g_autofree gchar *k1 = store_sized (cache, "k1", 200);
  g_autofree gchar *k2 = store_sized (cache, "k2", 100);
  fail_unless (is_hit (cache, k0));
  g_autofree gchar *path = cr_cache_entry_path (cache, k0);
  age (path, 300);

  g_autofree gchar *k3 = store_sized (cache, "k3", 0);
  fail_if (is_hit (cache, k0), "the oldest entry was kept");
  fail_unless (is_hit (cache, k1) && is_hit (cache, k2) && is_hit (cache, k3));

  /* k1 and k3 just used: k2 goes. */
  g_autofree gchar *k2_path = cr_cache_entry_path (cache, k2);
  age (k2_path, 100);
  g_autofree gchar *k4 = store_sized (cache, "k4", 0);
  fail_if (is_hit (cache, k2), "the entry used longest ago was kept");
  fail_unless (is_hit (cache, k1) && is_hit (cache, k3) && is_hit (cache, k4));

  /* An entry larger than the bound is kept; the others go. */
  g_setenv ("GST_CUDAREDUCE_CACHE_MAX_BYTES", "100", TRUE);
  g_autoptr (CrCache) small = open_cache (dir);
  g_autofree gchar *k5 = store_sized (small, "k5", 0);
  g_autoptr (GPtrArray) left = cr_test_files_ending (dir, ".bin");
  fail_unless_equals_int (left->len, 1);
  fail_unless (is_hit (small, k5));

  /* 0: no bound. */
  g_setenv ("GST_CUDAREDUCE_CACHE_MAX_BYTES", "0", TRUE);
  g_autoptr (CrCache) unbounded = open_cache (dir);
  for (guint k = 0; k < 8; k++) {
    g_autofree gchar *name = g_strdup_printf ("many %u", k);
    g_free (store_sized (unbounded, name, 0));
  }
  g_autoptr (GPtrArray) all = cr_test_files_ending (dir, ".bin");
  fail_unless_equals_int (all->len, 9);
  g_unsetenv ("GST_CUDAREDUCE_CACHE_MAX_BYTES");
  cr_test_remove_dir (dir);
}

GST_END_TEST;

/* Keys become file names: anything but a digest is a programming error. */
GST_START_TEST (test_key_must_be_a_digest)
{
  g_autofree gchar *dir = cr_test_make_dir ("cr-cache");
  g_autoptr (CrCache) cache = open_cache (dir);
  g_autoptr (GBytes) image = image_of ("an image");
  gboolean is_ptx = FALSE;

  ASSERT_CRITICAL (cr_cache_lookup (cache, "../../etc/passwd", &is_ptx, NULL));
  ASSERT_CRITICAL (cr_cache_store (cache, "../escape", image, FALSE, NULL));
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  fail_unless (g_dir_read_name (d) == NULL);
  cr_test_remove_dir (dir);
}

GST_END_TEST;

/* Directory */

/* A directory others can write to is refused, with no file made in it. */
static void
assert_dir_refused (const gchar *dir)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CrCache) cache = cr_cache_open (dir, &error);
  fail_unless (cache == NULL, "%s was used", dir);
  fail_unless (g_error_matches (error, CR_CACHE_ERROR, CR_CACHE_ERROR_UNSAFE),
      "%s", error ? error->message : "");
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  fail_unless (d != NULL);
}

GST_START_TEST (test_dir_writable_by_others)
{
  g_autofree gchar *dir = cr_test_make_dir ("cr-cache");
  const guint modes[] = { 01777, 0777, 0770, 0702 };
  for (guint k = 0; k < G_N_ELEMENTS (modes); k++) {
    fail_unless (g_chmod (dir, modes[k]) == 0);
    assert_dir_refused (dir);
  }
  /* Readable by others is fine: only writing plants entries. */
  fail_unless (g_chmod (dir, 0755) == 0);
  g_autoptr (CrCache) cache = open_cache (dir);
  fail_unless (cache != NULL);
  cr_test_remove_dir (dir);
}

GST_END_TEST;

/* Run as root, the test can give the directory away. */
GST_START_TEST (test_dir_of_another_user)
{
  g_autofree gchar *dir = cr_test_make_dir ("cr-cache");
  if (chown (dir, 65534, 65534) != 0) {
    g_print ("directory of another user: not tested, chown: %s\n",
        g_strerror (errno));
    cr_test_remove_dir (dir);
    return;
  }
  assert_dir_refused (dir);
  cr_test_remove_dir (dir);
}

GST_END_TEST;

/* What is checked is the directory a link leads to. */
GST_START_TEST (test_dir_through_symlink)
{
  g_autofree gchar *base = cr_test_make_dir ("cr-cache");
  g_autofree gchar *target = g_build_filename (base, "target", NULL);
  g_autofree gchar *link = g_build_filename (base, "link", NULL);
  fail_unless (g_mkdir (target, 0777) == 0);
  fail_unless (g_chmod (target, 0777) == 0);
  fail_unless (symlink (target, link) == 0);
  assert_dir_refused (link);

  fail_unless (g_chmod (target, 0700) == 0);
  g_autofree gchar *key = key_of ("through a link");
  g_autoptr (CrCache) cache = open_cache (link);
  store (cache, key, "an image");
  assert_hit (cache, key, "an image");
  cr_test_remove_dir (base);
}

GST_END_TEST;

GST_START_TEST (test_missing_dir_created_0700)
{
  g_autofree gchar *base = cr_test_make_dir ("cr-cache");
  g_autofree gchar *dir = g_build_filename (base, "a", "cache", NULL);
  g_autoptr (CrCache) cache = open_cache (dir);
  fail_unless (cache != NULL);
  GStatBuf st;
  fail_unless (g_stat (dir, &st) == 0);
  fail_unless (S_ISDIR (st.st_mode));
  fail_unless_equals_int (st.st_mode & 07777, 0700);
  cr_test_remove_dir (base);
}

GST_END_TEST;

/* Keys */

GST_START_TEST (test_key_covers_everything)
{
  const gchar *options[] = { "--gpu-architecture=sm_90", "--std=c++17" };
  const gchar *older[] = { "--gpu-architecture=sm_80", "--std=c++17" };
  g_autofree gchar *key = cr_cache_key ("source", options, 2, "13.0");
  g_autofree gchar *same = cr_cache_key ("source", options, 2, "13.0");
  g_autofree gchar *source = cr_cache_key ("source2", options, 2, "13.0");
  g_autofree gchar *target = cr_cache_key ("source", older, 2, "13.0");
  g_autofree gchar *fewer = cr_cache_key ("source", options, 1, "13.0");
  g_autofree gchar *nvrtc = cr_cache_key ("source", options, 2, "12.8");

  fail_unless_equals_int (strlen (key), 64);
  fail_unless_equals_string (key, same);
  fail_if (g_str_equal (key, source));
  fail_if (g_str_equal (key, target));
  fail_if (g_str_equal (key, fewer));
  fail_if (g_str_equal (key, nvrtc));
}

GST_END_TEST;

static Suite *
cache_suite (void)
{
  Suite *s = suite_create ("cache");
  TCase *entries = tcase_create ("entries");
  suite_add_tcase (s, entries);
  tcase_add_test (entries, test_store_then_lookup);
  tcase_add_test (entries, test_good_entry_is_hit);
  tcase_add_test (entries, test_notes_apart_from_images);
  tcase_add_test (entries, test_entry_of_another_key);
  tcase_add_test (entries, test_symlink_to_right_entry);
  tcase_add_test (entries, test_symlink_to_dev_zero);
  tcase_add_test (entries, test_fifo_entry);
  tcase_add_test (entries, test_oversized_entry);
  tcase_add_test (entries, test_truncated_entry);
  tcase_add_test (entries, test_corrupt_entry);
  tcase_add_test (entries, test_format_1_entry);
  tcase_add_test (entries, test_entry_of_another_user);
  tcase_add_test (entries, test_entry_writable_by_others);
  tcase_add_test (entries, test_hard_linked_entry);
  tcase_add_test (entries, test_stale_temporary_files_swept);
  tcase_add_test (entries, test_cache_size_bound);
  tcase_add_test (entries, test_key_must_be_a_digest);
  TCase *dirs = tcase_create ("directory");
  suite_add_tcase (s, dirs);
  tcase_add_test (dirs, test_dir_writable_by_others);
  tcase_add_test (dirs, test_dir_of_another_user);
  tcase_add_test (dirs, test_dir_through_symlink);
  tcase_add_test (dirs, test_missing_dir_created_0700);
  TCase *keys = tcase_create ("keys");
  suite_add_tcase (s, keys);
  tcase_add_test (keys, test_key_covers_everything);
  return s;
}

GST_CHECK_MAIN (cache);
