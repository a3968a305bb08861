/* bench-dir.h: the benchmarks' scratch kernel caches. */
#pragma once

#include <glib.h>

/* Removes @dir and the files in it: a kernel cache, whose entries lie
 * side by side, with no directories below. */
void bench_remove_cache_dir (const gchar *dir);
