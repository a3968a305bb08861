/* bench-live.h: a live source's buffers through the element, from each
 * buffer's arrival to its result, for bench-pipeline. */
#pragma once

#include "bench-common.h"

typedef struct {
  const gchar *name; /* the CSV source */
  gdouble median_us, p99_us;
} LiveLatency;

/* Runs 200 * @seconds buffers of 10 ms (at least 50) through cudareduce
 * monoid=sumsq, or with @cpu_only through level, printing the result and
 * writing a kind=live CSV row. Fails the benchmark on a lost, extra or
 * unmatched cudareduce result. */
void live_latency_run (gdouble seconds, gboolean cpu_only, LiveLatency *out);
