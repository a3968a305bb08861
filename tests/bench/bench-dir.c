/* bench-dir.c: the benchmarks' scratch kernel caches. */
#include "bench-dir.h"

#include <glib/gstdio.h>

void
bench_remove_cache_dir (const gchar *dir)
{
  g_autoptr (GDir) entries = g_dir_open (dir, 0, NULL);
  const gchar *entry;
  while (entries && (entry = g_dir_read_name (entries)) != NULL) {
    g_autofree gchar *path = g_build_filename (dir, entry, NULL);
    /* The driver's cache (CUDA_CACHE_PATH) is a tree. */
    if (g_file_test (path, G_FILE_TEST_IS_DIR)
        && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
      bench_remove_cache_dir (path);
    else
      g_unlink (path);
  }
  g_rmdir (dir);
}
