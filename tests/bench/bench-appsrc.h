/* bench-appsrc.h: one run of appsrc ! ELEMENT ! fakesink for
 * bench-pipeline, pushed by an application thread. */
#pragma once

#include "bench-sources.h"

typedef struct {
  const gchar *element; /* in gst_parse_launch syntax, named "r" */
  const gchar *caps;
  gsize bytes;
  guint64 elements; /* per buffer, all channels */
  guint64 frames;
  gint depth; /* async-depth to set, or -1 for the default */
  const gchar *result_name; /* "cudareduce" or "level" */
  gboolean check; /* timestamps and counts of cudareduce results */
  gboolean check_sum; /* and the U8 sum */
  guint queue_buffers; /* appsrc's max-bytes, in buffers */
  guint pool_buffers; /* for the pool source */
} RunSpec;

typedef struct {
  gdouble gbps;
  gdouble buffers_per_s;
  guint64 buffers; /* timed */
  guint64 results; /* messages, warm-up included */
  guint64 pushed;
} Measure;

/* What the runs share: the expected sums and the result arrival times. */
void appsrc_runs_init (void);
void appsrc_runs_clear (void);

/* Runs one pipeline. @src is NULL for the pool source, which comes from the
 * element; returns FALSE with *@why if it has none. Fails the benchmark on
 * anything wrong. */
gboolean run_pipeline (const RunSpec *spec, Source *src, const Region *region,
    gdouble seconds, Measure *m, gchar **why);

/* The run of median GB/s among REPEATS. */
Measure median_measure (const Measure *runs);
