/* bench-ceilings.h: copy ceilings for bench-pipeline, bench-video and
 * bench-multi, and the common start of work on several GPUs at once. */
#pragma once

#include "bench-common.h"

/* cuMemcpyHtoDAsync of each size from pinned memory and from @pageable, in
 * a CUDA context of the benchmark's own that is closed on return; GB/s,
 * median of the batches. */
gboolean measure_ceilings (const Region *pageable, const gsize *sizes,
    guint n_sizes, gdouble *pinned_gbps, gdouble *pageable_gbps,
    GError **error);

/* A common start for worker threads, round after round: each worker waits
 * at the gate, and the main thread opens it once all of them are there. */
typedef struct {
  GMutex lock; /* guards the rest */
  GCond cond;
  guint workers;
  guint waiting; /* workers at the gate for the next opening */
  guint openings;
  gint64 opened; /* monotonic microseconds of the latest opening */
} StartGate;

void start_gate_init (StartGate *gate, guint workers);
void start_gate_clear (StartGate *gate);
/* In a worker: waits for the next opening; returns its time. */
gint64 start_gate_wait (StartGate *gate);
/* In the main thread: waits until every worker waits, then opens the gate;
 * returns the time it opened. With @limit (monotonic microseconds; 0 for
 * none), returns 0 and leaves the gate shut if they are not all there by
 * then. */
gint64 start_gate_open (StartGate *gate, gint64 limit);

typedef enum {
  COPY_PINNED_TO_DEVICE, /* cuMemcpyHtoDAsync from cuMemAllocHost memory */
  COPY_DEVICE_TO_DEVICE, /* cuMemcpyDtoDAsync within each GPU's memory */
} CopyKind;

/* Copies of each size (ascending) on GPUs 0 to @n_gpus - 1 at once, a
 * thread and a context of the benchmark's own per GPU, closed on return;
 * each batch starts on every GPU together. Aggregate GB/s: the bytes
 * copied on all GPUs over the time from the common start to the last
 * GPU's end, median of the batches. */
gboolean measure_concurrent_copies (CopyKind kind, guint n_gpus,
    const gsize *sizes, guint n_sizes, gdouble *gbps, GError **error);
