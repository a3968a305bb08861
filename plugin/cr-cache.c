/* cr-cache.c: the disk cache of compiled kernels, its directory and the
 * format of its entries. */
#include "cr-cache.h"

#include "cr-cache-sweep.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

G_DEFINE_QUARK (cr - cache - error - quark, cr_cache_error)

/* An entry, integers little-endian:
 *
 *   0   8  "CRKCACHE"
 *   8   4  ENTRY_FORMAT
 *  12   4  kind: 0 a CUBIN, 1 PTX, 2 a note (text)
 *  16   8  payload length
 *  24  64  the key, as in the file's name
 *  88  32  SHA-256 of bytes 0 to 87 and the payload
 * 120      payload
 *
 * ENTRY_FORMAT is bumped whenever this layout or what the key covers
 * changes, so that entries of an older version are misses. Format 1 had no
 * key and checksummed the payload alone. */
#define ENTRY_MAGIC "CRKCACHE"
#define ENTRY_FORMAT 2
#define KEY_CHARS 64

enum {
  OFF_MAGIC = 0,
  OFF_FORMAT = 8,
  OFF_KIND = 12,
  OFF_LENGTH = 16,
  OFF_KEY = 24,
  OFF_DIGEST = OFF_KEY + KEY_CHARS,
  HEADER_SIZE = OFF_DIGEST + 32,
};

struct _CrCache {
  gchar *path;
  int fd; /* the directory checked, that entries are opened in */
  guint64 max_bytes; /* the bound on its size; 0 for none */
  /* A system cache (cr_cache_open_system): read, never written, and its
   * entries may be root's as well as this user's. */
  gboolean system;
};

/* Whether @uid may have written what @cache holds. */
static gboolean
trusted_owner (const CrCache *cache, uid_t uid)
{
  return uid == geteuid () || (cache->system && uid == 0);
}

gchar *
cr_cache_dir (void)
{
  const gchar *dir = g_getenv ("GST_CUDAREDUCE_CACHE_DIR");
  if (dir && *dir)
    return g_strdup (dir);
  return g_build_filename (g_get_user_cache_dir (), "gstcudareduce", NULL);
}

gchar *
cr_cache_key (const gchar *source, const gchar *const *options, gint n_options,
    const gchar *nvrtc_version)
{
  g_autoptr (GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  g_checksum_update (sum, (const guchar *)source, strlen (source) + 1);
  for (gint k = 0; k < n_options; k++)
    g_checksum_update (
        sum, (const guchar *)options[k], strlen (options[k]) + 1);
  g_checksum_update (
      sum, (const guchar *)nvrtc_version, strlen (nvrtc_version) + 1);
  return g_strdup (g_checksum_get_string (sum));
}

/* Keys become file names: only what cr_cache_key makes is taken, so that
 * no key names a file outside the directory. */
static gboolean
key_is_valid (const gchar *key)
{
  gsize n = 0;
  for (; key[n]; n++)
    if (!g_ascii_isxdigit (key[n]) || g_ascii_isupper (key[n]))
      return FALSE;
  return n == KEY_CHARS;
}

enum { KIND_CUBIN = 0, KIND_PTX = 1, KIND_NOTE = 2 };

/* Images end in .bin, notes in .note. */
static gchar *
entry_name (const gchar *key, guint32 kind)
{
  return g_strconcat (key, kind == KIND_NOTE ? ".note" : ".bin", NULL);
}

static void
set_errno_error (
    GError **error, int saved_errno, const gchar *what, const gchar *path)
{
  g_set_error (error, CR_CACHE_ERROR, CR_CACHE_ERROR_IO, "cannot %s %s: %s",
      what, path, g_strerror (saved_errno));
}

/* @dir opened (a user's cache created first where it does not exist) and
 * checked: owned by a trusted owner, writable by no one else. */
static CrCache *
open_dir (const gchar *dir, gboolean system, GError **error)
{
  /* Opened first and checked through the descriptor, never by name: what
   * is checked is what entries are then read from and written to, even if
   * the path is made to point elsewhere in between. */
  int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT && system) {
    g_set_error (
        error, CR_CACHE_ERROR, CR_CACHE_ERROR_ABSENT, "%s does not exist", dir);
    return NULL;
  }
  if (fd < 0 && errno == ENOENT) {
    if (g_mkdir_with_parents (dir, 0700) != 0) {
      set_errno_error (error, errno, "create", dir);
      return NULL;
    }
    fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  }
  if (fd < 0) {
    set_errno_error (error, errno, "open", dir);
    return NULL;
  }

  CrCache *cache = g_new0 (CrCache, 1);
  cache->path = g_strdup (dir);
  cache->fd = fd;
  cache->system = system;
  struct stat st;
  if (fstat (fd, &st) != 0) {
    set_errno_error (error, errno, "stat", dir);
  } else if (!trusted_owner (cache, st.st_uid)) {
    g_set_error (error, CR_CACHE_ERROR, CR_CACHE_ERROR_UNSAFE,
        "%s is owned by uid %u, not by this user (uid %u)%s", dir,
        (guint)st.st_uid, (guint)geteuid (), system ? " or root" : "");
  } else if (st.st_mode & (S_IWGRP | S_IWOTH)) {
    g_set_error (error, CR_CACHE_ERROR, CR_CACHE_ERROR_UNSAFE,
        "%s is writable by its group or others (mode %04o); make it %s", dir,
        (guint)(st.st_mode & 07777), system ? "0755" : "0700");
  } else {
    cache->max_bytes = system ? 0 : cr_cache_max_bytes ();
    return cache;
  }
  cr_cache_close (cache);
  return NULL;
}

CrCache *
cr_cache_open (const gchar *dir, GError **error)
{
  return open_dir (dir, FALSE, error);
}

CrCache *
cr_cache_open_system (const gchar *dir, GError **error)
{
  return open_dir (dir, TRUE, error);
}

GStrv
cr_cache_system_dirs (void)
{
  const gchar *dirs = g_getenv ("GST_CUDAREDUCE_SYSTEM_CACHE_DIRS");
  if (dirs == NULL)
    dirs = CR_SYSTEM_CACHE_DIR;
  g_auto (GStrv) all = g_strsplit (dirs, G_SEARCHPATH_SEPARATOR_S, -1);
  g_autoptr (GStrvBuilder) named = g_strv_builder_new ();
  for (guint k = 0; all[k]; k++)
    if (*all[k])
      g_strv_builder_add (named, all[k]);
  return g_strv_builder_end (named);
}

void
cr_cache_close (CrCache *cache)
{
  if (cache == NULL)
    return;
  close (cache->fd);
  g_free (cache->path);
  g_free (cache);
}

gchar *
cr_cache_entry_path (CrCache *cache, const gchar *key)
{
  g_autofree gchar *name = entry_name (key, KIND_CUBIN);
  return g_build_filename (cache->path, name, NULL);
}

/* SHA-256 of the header up to the digest, and the payload. */
static void
entry_digest (const guint8 *header, const guint8 *payload, gsize length,
    guint8 digest[32])
{
  g_autoptr (GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  gsize digest_len = 32;
  g_checksum_update (sum, header, OFF_DIGEST);
  g_checksum_update (sum, payload, length);
  g_checksum_get_digest (sum, digest, &digest_len);
}

static guint32
get_u32 (const guint8 *p)
{
  guint32 v;
  memcpy (&v, p, sizeof v);
  return GUINT32_FROM_LE (v);
}

static guint64
get_u64 (const guint8 *p)
{
  guint64 v;
  memcpy (&v, p, sizeof v);
  return GUINT64_FROM_LE (v);
}

static void
put_u32 (guint8 *p, guint32 v)
{
  v = GUINT32_TO_LE (v);
  memcpy (p, &v, sizeof v);
}

static void
put_u64 (guint8 *p, guint64 v)
{
  v = GUINT64_TO_LE (v);
  memcpy (p, &v, sizeof v);
}

/* Exactly @size bytes: the size fstat gave, which was bounded before any
 * memory was allocated for it. */
static gboolean
read_exactly (
    int fd, guint8 *buf, gsize size, const gchar *path, GError **error)
{
  gsize done = 0;
  while (done < size) {
    gssize n = read (fd, buf + done, size - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      set_errno_error (error, errno, "read", path);
      return FALSE;
    }
    if (n == 0) {
      g_set_error (error, CR_CACHE_ERROR, CR_CACHE_ERROR_CORRUPT,
          "%s ended after %" G_GSIZE_FORMAT " of its %" G_GSIZE_FORMAT " bytes",
          path, done, size);
      return FALSE;
    }
    done += n;
  }
  return TRUE;
}

static GBytes *
parse_entry (const guint8 *entry, gsize size, const gchar *key,
    guint32 *kind_out, const gchar *path, GError **error)
{
  if (memcmp (entry + OFF_MAGIC, ENTRY_MAGIC, 8) != 0) {
    g_set_error (error, CR_CACHE_ERROR, CR_CACHE_ERROR_CORRUPT,
        "%s is not a cache entry", path);
    return NULL;
  }
  guint32 format = get_u32 (entry + OFF_FORMAT);
  if (format != ENTRY_FORMAT) {
    g_set_error (error, CR_CACHE_ERROR, CR_CACHE_ERROR_FORMAT,
        "%s is of format %u, not %u", path, format, ENTRY_FORMAT);
    return NULL;
  }
  guint32 kind = get_u32 (entry + OFF_KIND);
  guint64 length = get_u64 (entry + OFF_LENGTH);
  if (kind > KIND_NOTE || length != size - HEADER_SIZE) {
    g_set_error (error, CR_CACHE_ERROR, CR_CACHE_ERROR_CORRUPT,
        "%s has a bad header (truncated?)", path);
    return NULL;
  }
  guint8 digest[32];
  entry_digest (entry, entry + HEADER_SIZE, length, digest);
  if (memcmp (digest, entry + OFF_DIGEST, 32) != 0) {
    g_set_error (error, CR_CACHE_ERROR, CR_CACHE_ERROR_CORRUPT,
        "%s fails its checksum", path);
    return NULL;
  }
  /* After the checksum, so that this reason means a whole entry written for
   * another program: copied or linked over this name. */
  if (memcmp (entry + OFF_KEY, key, KEY_CHARS) != 0) {
    g_set_error (error, CR_CACHE_ERROR, CR_CACHE_ERROR_OTHER_KEY,
        "%s holds the entry of key %.*s", path, KEY_CHARS,
        (const gchar *)entry + OFF_KEY);
    return NULL;
  }
  *kind_out = kind;
  return g_bytes_new (entry + HEADER_SIZE, length);
}

/* *@kind: on entry, KIND_NOTE to open a note's file, else an image's; on
 * return, the kind the entry says it is. */
static GBytes *
lookup_entry (CrCache *cache, const gchar *key, guint32 *kind, GError **error)
{
  g_autofree gchar *name = entry_name (key, *kind);
  g_autofree gchar *path = g_build_filename (cache->path, name, NULL);
  /* O_NOFOLLOW: a link is refused, not followed. O_NONBLOCK: opening a
   * FIFO returns at once instead of waiting for a writer. The type is then
   * checked on the descriptor, so nothing can be swapped in after it. */
  int fd =
      openat (cache->fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    int saved = errno;
    if (saved == ENOENT)
      g_set_error (error, CR_CACHE_ERROR, CR_CACHE_ERROR_ABSENT,
          "%s does not exist", path);
    else if (saved == ELOOP || saved == EMLINK) /* EMLINK: the BSDs */
      g_set_error (error, CR_CACHE_ERROR, CR_CACHE_ERROR_NOT_REGULAR,
          "%s is a symbolic link, not followed", path);
    else
      set_errno_error (error, saved, "open", path);
    return NULL;
  }

  GBytes *image = NULL;
  struct stat st;
  if (fstat (fd, &st) != 0) {
    set_errno_error (error, errno, "stat", path);
  } else if (!S_ISREG (st.st_mode)) {
    g_set_error (error, CR_CACHE_ERROR, CR_CACHE_ERROR_NOT_REGULAR,
        "%s is not a regular file", path);
  } else if (!trusted_owner (cache, st.st_uid)) {
    g_set_error (error, CR_CACHE_ERROR, CR_CACHE_ERROR_UNSAFE,
        "%s is owned by uid %u, not by this user%s", path, (guint)st.st_uid,
        cache->system ? " or root" : "");
  } else if (st.st_mode & (S_IWGRP | S_IWOTH)) {
    /* The checksum is no secret: whoever may write the file may write a
     * valid entry. Storing the compiled image replaces it (mode 0600). */
    g_set_error (error, CR_CACHE_ERROR, CR_CACHE_ERROR_UNSAFE,
        "%s is writable by its group or others (mode %04o): not loaded, "
        "compiled again and replaced",
        path, (guint)(st.st_mode & 07777));
  } else if (st.st_nlink > 1) {
    /* Another name of the same file may be in a directory others can
     * write to; the store renames a new file over this name alone. */
    g_set_error (error, CR_CACHE_ERROR, CR_CACHE_ERROR_UNSAFE,
        "%s has %u hard links, so another name could change it: not "
        "loaded, compiled again and replaced",
        path, (guint)st.st_nlink);
  } else if (st.st_size > CR_CACHE_MAX_ENTRY) {
    g_set_error (error, CR_CACHE_ERROR, CR_CACHE_ERROR_TOO_LARGE,
        "%s is %" G_GINT64_FORMAT " bytes, over the %d allowed", path,
        (gint64)st.st_size, CR_CACHE_MAX_ENTRY);
  } else if (st.st_size < HEADER_SIZE) {
    g_set_error (error, CR_CACHE_ERROR, CR_CACHE_ERROR_CORRUPT,
        "%s is shorter than an entry's header", path);
  } else {
    gsize size = st.st_size;
    g_autofree guint8 *entry = g_malloc (size);
    if (read_exactly (fd, entry, size, path, error))
      image = parse_entry (entry, size, key, kind, path, error);
    /* A hit is a use: the size bound removes the entries used longest
     * ago. Where the time cannot be set, the entry's age is its write's. */
    if (image && !cache->system)
      futimens (fd, NULL);
  }
  close (fd);
  return image;
}

GBytes *
cr_cache_lookup (
    CrCache *cache, const gchar *key, gboolean *is_ptx, GError **error)
{
  g_return_val_if_fail (cache != NULL, NULL);
  g_return_val_if_fail (key != NULL && key_is_valid (key), NULL);

  guint32 kind = KIND_CUBIN;
  GBytes *image = lookup_entry (cache, key, &kind, error);
  if (image && kind == KIND_NOTE) {
    g_set_error (error, CR_CACHE_ERROR, CR_CACHE_ERROR_OTHER_KEY,
        "the entry of %s is a note, not an image", key);
    g_clear_pointer (&image, g_bytes_unref);
  }
  *is_ptx = kind == KIND_PTX;
  return image;
}

gchar *
cr_cache_lookup_note (CrCache *cache, const gchar *key, GError **error)
{
  g_return_val_if_fail (cache != NULL, NULL);
  g_return_val_if_fail (key != NULL && key_is_valid (key), NULL);

  guint32 kind = KIND_NOTE;
  g_autoptr (GBytes) note = lookup_entry (cache, key, &kind, error);
  if (note == NULL)
    return NULL;
  gsize size = 0;
  const gchar *text = g_bytes_get_data (note, &size);
  if (kind != KIND_NOTE || memchr (text, '\0', size) != NULL
      || !g_utf8_validate (text, size, NULL)) {
    g_set_error (error, CR_CACHE_ERROR, CR_CACHE_ERROR_OTHER_KEY,
        "the entry of %s is not a note", key);
    return NULL;
  }
  return g_strndup (text, size);
}

static gboolean
write_all (
    int fd, const guint8 *buf, gsize size, const gchar *path, GError **error)
{
  gsize done = 0;
  while (done < size) {
    gssize n = write (fd, buf + done, size - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      set_errno_error (error, errno, "write", path);
      return FALSE;
    }
    done += n;
  }
  return TRUE;
}

static gboolean
store_entry (CrCache *cache, const gchar *key, const guint8 *data, gsize length,
    guint32 kind, GError **error)
{
  if (cache->system) {
    g_set_error (error, CR_CACHE_ERROR, CR_CACHE_ERROR_IO,
        "%s is a system cache, which the element only reads", cache->path);
    return FALSE;
  }
  /* Never write what a lookup would refuse to read. */
  if (length > CR_CACHE_MAX_ENTRY - HEADER_SIZE) {
    g_set_error (error, CR_CACHE_ERROR, CR_CACHE_ERROR_TOO_LARGE,
        "an image of %" G_GSIZE_FORMAT " bytes is over the %d allowed", length,
        CR_CACHE_MAX_ENTRY - HEADER_SIZE);
    return FALSE;
  }
  g_autofree guint8 *entry = g_malloc (HEADER_SIZE + length);
  memcpy (entry + OFF_MAGIC, ENTRY_MAGIC, 8);
  put_u32 (entry + OFF_FORMAT, ENTRY_FORMAT);
  put_u32 (entry + OFF_KIND, kind);
  put_u64 (entry + OFF_LENGTH, length);
  memcpy (entry + OFF_KEY, key, KEY_CHARS);
  memcpy (entry + HEADER_SIZE, data, length);
  entry_digest (entry, data, length, entry + OFF_DIGEST);

  /* A temporary file renamed over the entry, so that a reader in another
   * process sees the old entry, the new one or none, never a part. No
   * fsync: after a crash, an entry cut short fails its checksum and is
   * compiled again, which is all durability would buy. */
  g_autofree gchar *name = entry_name (key, kind);
  g_autofree gchar *path = g_build_filename (cache->path, name, NULL);
  g_autofree gchar *tmp = NULL;
  int fd = -1;
  for (gint attempt = 0; attempt < 16 && fd < 0; attempt++) {
    g_free (tmp);
    tmp = g_strdup_printf ("%s.%08x.tmp", name, g_random_int ());
    fd = openat (cache->fd, tmp,
        O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 && errno != EEXIST)
      break;
  }
  if (fd < 0) {
    set_errno_error (error, errno, "create a temporary file in", cache->path);
    return FALSE;
  }
  gboolean ok = write_all (fd, entry, HEADER_SIZE + length, path, error);
  if (close (fd) != 0 && ok) {
    set_errno_error (error, errno, "write", path);
    ok = FALSE;
  }
  if (ok && renameat (cache->fd, tmp, cache->fd, name) != 0) {
    set_errno_error (error, errno, "rename a temporary file to", path);
    ok = FALSE;
  }
  if (!ok)
    unlinkat (cache->fd, tmp, 0);
  cr_cache_sweep (cache->fd, cache->path, cache->max_bytes, name);
  return ok;
}

gboolean
cr_cache_store (CrCache *cache, const gchar *key, GBytes *image,
    gboolean is_ptx, GError **error)
{
  g_return_val_if_fail (cache != NULL, FALSE);
  g_return_val_if_fail (key != NULL && key_is_valid (key), FALSE);

  gsize length = 0;
  const guint8 *data = g_bytes_get_data (image, &length);
  return store_entry (
      cache, key, data, length, is_ptx ? KIND_PTX : KIND_CUBIN, error);
}

gboolean
cr_cache_store_note (
    CrCache *cache, const gchar *key, const gchar *text, GError **error)
{
  g_return_val_if_fail (cache != NULL, FALSE);
  g_return_val_if_fail (key != NULL && key_is_valid (key), FALSE);

  return store_entry (
      cache, key, (const guint8 *)text, strlen (text), KIND_NOTE, error);
}
