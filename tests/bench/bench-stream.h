/* bench-stream.h: small buffers from a real source through cudareduce,
 * level and identity, and the live case's latency, for bench-pipeline. */
#pragma once

#include "bench-common.h"

typedef struct StreamBench StreamBench;

/* Runs every configuration at every size, then the live case
 * (live_latency_run), printing as it goes and writing kind=stream CSV rows.
 * Each timed run lasts about @seconds / 2. With @cpu_only, only what needs
 * no GPU: identity and level, and the live case through level. */
StreamBench *stream_bench_run (gdouble seconds, gboolean cpu_only);
/* The targets against what was measured. */
void stream_bench_print_targets (const StreamBench *b);
void stream_bench_free (StreamBench *b);
