/* cr-cache-sweep.h: the upkeep of the cache directory, after each store
 * (cr-cache.c): temporary files that killed writers left are removed, and
 * the cache is held to its size bound. Private to cr-cache.c. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The bound on the cache's bytes when GST_CUDAREDUCE_CACHE_MAX_BYTES does
 * not set one. */
#define CR_CACHE_DEFAULT_MAX_BYTES (256 * 1024 * 1024)

/* A temporary file older than this is a writer's that was killed. */
#define CR_CACHE_TEMP_MAX_AGE_S (60 * 60)

/* GST_CUDAREDUCE_CACHE_MAX_BYTES (0: no bound), or the default. */
guint64 cr_cache_max_bytes (void);

/* Removes the stale temporary files in the directory @dir_fd (@dir names
 * it in the log), then, while its entries and temporary files take more
 * than @max_bytes (0: no bound), the image entries used longest ago, never
 * the one named @keep. Failures are logged, never errors. */
void cr_cache_sweep (
    int dir_fd, const gchar *dir, guint64 max_bytes, const gchar *keep);

G_END_DECLS
