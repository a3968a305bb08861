/* cr-cache.h: the disk cache of compiled kernels. One place knows where it
 * lives, what its key covers, the format of an entry and what is trusted.
 *
 * The cache is a directory of this user's, that no one else can write to;
 * it is opened and checked once, and entries are then opened relative to
 * that open directory. An entry is a regular file named after its key (an
 * image's ends in .bin, a note's in .note), whose header repeats the key and a SHA-256 of the header and the payload: an
 * entry copied over another's name, cut short or changed is a miss, as is a
 * symbolic link, a FIFO, a device, a file too large to be one of ours, and a
 * file that someone else could have written: another user's, one writable
 * by its group or others, or one of more than one hard link. All this is
 * checked on the descriptor opened, not by name.
 * A miss is never an error for the caller: it compiles instead. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Why the cache was not used: the reasons a lookup misses or a directory
 * is refused. */
#define CR_CACHE_ERROR (cr_cache_error_quark ())
GQuark cr_cache_error_quark (void);

typedef enum {
  CR_CACHE_ERROR_ABSENT, /* no entry of that key */
  CR_CACHE_ERROR_NOT_REGULAR, /* a symlink (not followed), FIFO, device... */
  CR_CACHE_ERROR_TOO_LARGE, /* over CR_CACHE_MAX_ENTRY, not read */
  CR_CACHE_ERROR_FORMAT, /* written by another version of the cache */
  CR_CACHE_ERROR_CORRUPT, /* truncated, or fails its checksum */
  CR_CACHE_ERROR_OTHER_KEY, /* a whole entry, but of another key */
  /* owned by another user, writable by its group or others, or of more
   * than one hard link */
  CR_CACHE_ERROR_UNSAFE,
  CR_CACHE_ERROR_IO, /* a system call failed */
} CrCacheError;

/* The largest entry read or written, header included. A kernel image is
 * tens of kilobytes; the bound is there so that a planted file cannot make
 * a reader allocate without limit. */
#define CR_CACHE_MAX_ENTRY (64 * 1024 * 1024)

/* GST_CUDAREDUCE_CACHE_DIR, or gstcudareduce/ in the user cache directory. */
gchar *cr_cache_dir (void);

/* The key of a compile: the SHA-256, as 64 lowercase hexadecimal digits, of
 * the source, the options and the NVRTC version, each with its NUL. */
gchar *cr_cache_key (const gchar *source, const gchar *const *options,
    gint n_options, const gchar *nvrtc_version);

typedef struct _CrCache CrCache;

/* Opens @dir, creating it (mode 0700) when it does not exist. NULL, with
 * CR_CACHE_ERROR_UNSAFE, when the directory is not owned by this user or is
 * writable by its group or others: another user could plant entries there.
 * A symbolic link to the directory is followed; what is checked is the
 * directory opened. */
CrCache *cr_cache_open (const gchar *dir, GError **error);
void cr_cache_close (CrCache *cache);

/* A system cache: a directory of images made ahead of time for every user
 * (when the plugin was installed: cudareduce-monoid --fill-cache into it),
 * looked in after the user's own. It is only read, never created, written
 * to or swept; it and its entries may be root's as well as this user's, and
 * as the user's own, writable by no one else. CR_CACHE_ERROR_ABSENT where
 * it does not exist. */
CrCache *cr_cache_open_system (const gchar *dir, GError **error);

/* The system caches, in the order they are looked in:
 * GST_CUDAREDUCE_SYSTEM_CACHE_DIRS (directories separated as in PATH; empty
 * for none) or, where it is unset, the one the build installs to
 * (CR_SYSTEM_CACHE_DIR, datadir/gstcudareduce/kernels). */
GStrv cr_cache_system_dirs (void);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CrCache, cr_cache_close)

/* The image stored under @key (from cr_cache_key), or NULL with the reason
 * of the miss. Returns promptly whatever the entry is. */
GBytes *cr_cache_lookup (
    CrCache *cache, const gchar *key, gboolean *is_ptx, GError **error);

/* Writes @image under @key, replacing any entry atomically: a reader sees the
 * old entry, the new one or none, never a part. */
gboolean cr_cache_store (CrCache *cache, const gchar *key, GBytes *image,
    gboolean is_ptx, GError **error);

/* Notes: small texts that the compiler keeps beside the images, each under
 * a key of its own (a SHA-256 as cr_cache_key makes), in entries of their
 * own kind, checked as images are. A note is never returned as an image,
 * nor an image as a note. */
gchar *cr_cache_lookup_note (CrCache *cache, const gchar *key, GError **error);
gboolean cr_cache_store_note (
    CrCache *cache, const gchar *key, const gchar *text, GError **error);

/* The file of @key's entry, for tests and messages. */
gchar *cr_cache_entry_path (CrCache *cache, const gchar *key);

G_END_DECLS
