/* cr-cache-sweep.c: the cache directory kept tidy and bounded. Only files
 * of the names the cache makes are touched, and only regular files. */
#define G_LOG_DOMAIN "cudareduce"

#include "cr-cache-sweep.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define KEY_CHARS 64

guint64
cr_cache_max_bytes (void)
{
  const gchar *text = g_getenv ("GST_CUDAREDUCE_CACHE_MAX_BYTES");
  guint64 bytes = 0;
  if (text == NULL || *text == '\0')
    return CR_CACHE_DEFAULT_MAX_BYTES;
  if (!g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT64, &bytes, NULL)) {
    g_debug ("GST_CUDAREDUCE_CACHE_MAX_BYTES=%s is not a number of bytes; "
             "the cache is bounded to the default %d",
        text, CR_CACHE_DEFAULT_MAX_BYTES);
    return CR_CACHE_DEFAULT_MAX_BYTES;
  }
  return bytes;
}

/* The text after a key (64 lowercase hexadecimal digits), or NULL. */
static const gchar *
after_key (const gchar *name)
{
  for (gint k = 0; k < KEY_CHARS; k++)
    if (!g_ascii_isxdigit (name[k]) || g_ascii_isupper (name[k]))
      return NULL;
  return name + KEY_CHARS;
}

static gboolean
is_hex8 (const gchar *s)
{
  for (gint k = 0; k < 8; k++)
    if (!g_ascii_isxdigit (s[k]))
      return FALSE;
  return TRUE;
}

/* "<key>.bin.XXXXXXXX.tmp" or "<key>.note.XXXXXXXX.tmp", as store writes. */
static gboolean
is_temporary (const gchar *name)
{
  const gchar *rest = after_key (name);
  if (rest == NULL)
    return FALSE;
  if (g_str_has_prefix (rest, ".bin."))
    rest += strlen (".bin.");
  else if (g_str_has_prefix (rest, ".note."))
    rest += strlen (".note.");
  else
    return FALSE;
  return is_hex8 (rest) && strcmp (rest + 8, ".tmp") == 0;
}

typedef struct {
  gchar *name;
  guint64 size;
  struct timespec used; /* the modification time, which a hit refreshes */
} Entry;

static void
entry_clear (gpointer data)
{
  g_free (((Entry *)data)->name);
}

static gint
compare_used (gconstpointer a, gconstpointer b)
{
  const Entry *x = a, *y = b;
  if (x->used.tv_sec != y->used.tv_sec)
    return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
  if (x->used.tv_nsec != y->used.tv_nsec)
    return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
  return strcmp (x->name, y->name);
}

void
cr_cache_sweep (
    int dir_fd, const gchar *dir, guint64 max_bytes, const gchar *keep)
{
  /* A descriptor of its own: closedir closes it, and readdir moves it. */
  int fd = openat (dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *d = fd < 0 ? NULL : fdopendir (fd);
  if (d == NULL) {
    g_debug ("kernel cache %s not swept: %s", dir, g_strerror (errno));
    if (fd >= 0)
      close (fd);
    return;
  }
  g_autoptr (GArray) images = g_array_new (FALSE, FALSE, sizeof (Entry));
  g_array_set_clear_func (images, entry_clear);
  const time_t stale = time (NULL) - CR_CACHE_TEMP_MAX_AGE_S;
  guint64 total = 0;
  struct dirent *de;
  while ((de = readdir (d)) != NULL) {
    const gchar *name = de->d_name;
    const gchar *rest = after_key (name);
    struct stat st;
    if (rest == NULL || fstatat (dirfd (d), name, &st, AT_SYMLINK_NOFOLLOW) != 0
        || !S_ISREG (st.st_mode))
      continue;
    if (is_temporary (name)) {
      if (st.st_mtime < stale && unlinkat (dirfd (d), name, 0) == 0) {
        g_debug ("kernel cache: removed %s/%s, a temporary file over an hour "
                 "old (its writer was killed)",
            dir, name);
        continue;
      }
    } else if (strcmp (rest, ".bin") == 0 && strcmp (name, keep) != 0) {
      Entry e = { g_strdup (name), st.st_size, st.st_mtim };
      g_array_append_val (images, e);
    } else if (strcmp (rest, ".bin") != 0 && strcmp (rest, ".note") != 0) {
      continue;
    }
    total += st.st_size;
  }
  if (max_bytes > 0 && total > max_bytes) {
    g_array_sort (images, compare_used);
    for (guint k = 0; k < images->len && total > max_bytes; k++) {
      const Entry *e = &g_array_index (images, Entry, k);
      if (unlinkat (dirfd (d), e->name, 0) != 0)
        continue;
      total -= MIN (total, e->size);
      g_debug ("kernel cache: removed %s/%s, the entry used longest ago, to "
               "keep the cache within %" G_GUINT64_FORMAT " bytes "
               "(GST_CUDAREDUCE_CACHE_MAX_BYTES)",
          dir, e->name, max_bytes);
    }
  }
  closedir (d);
}
