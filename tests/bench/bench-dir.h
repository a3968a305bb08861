/* bench-dir.h: the benchmarks' scratch kernel caches. */
#pragma once

#include <glib.h>

/* Removes @dir and what is in it: a kernel cache, whose entries lie side by
 * side, or the driver's cache (CUDA_CACHE_PATH), a tree. */
void bench_remove_cache_dir (const gchar *dir);
