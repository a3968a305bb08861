/* bench-ceilings.c: what a plain host-to-device copy achieves, the ceiling
 * bench-pipeline sets the element's GB/s against. Per size, in a CUDA
 * context of the benchmark's own before the pipelines run:
 * cuMemcpyHtoDAsync of B bytes into device memory, back to back in batches
 * closed by cuStreamSynchronize, from cuMemAllocHost memory (pinned) and
 * from the prefaulted malloc'd region (pageable), the source moving through
 * the region; wall-clock GB/s, median of 7 batches. And pinned copies or
 * copies within a GPU's memory (cuMemcpyDtoDAsync) on one GPU or several
 * at once, a thread per GPU, for bench-video and bench-multi. */
#include "bench-ceilings.h"

#include "cr-cuda.h"
#include "cr-reducer.h"

#include <string.h>

#define CEILING_BATCHES 7

/* Copies in a batch: about 512 MiB from the host, 4 GiB within a GPU. */
static guint
host_copies_per_batch (gsize bytes)
{
  return CLAMP ((512 * MIB) / bytes, 2, 2000);
}

static guint
device_copies_per_batch (gsize bytes)
{
  return CLAMP ((4096 * MIB) / bytes, 2, 20000);
}

static gboolean
time_copies (const CrDriver *cu, CUstream stream, CUdeviceptr dst,
    const guint8 *src, gsize src_bytes, gsize bytes, gdouble *gbps,
    GError **error)
{
  const guint per_batch = host_copies_per_batch (bytes);
  const gsize slots = src_bytes / bytes;
  gdouble rates[CEILING_BATCHES];
  gsize next = 0;
  CUresult res;

  /* Batch -1 is warm-up. */
  for (gint b = -1; b < CEILING_BATCHES; b++) {
    gint64 t0 = g_get_monotonic_time ();
    for (guint k = 0; k < per_batch; k++) {
      res = cu->MemcpyHtoDAsync (
          dst, src + (next++ % slots) * bytes, bytes, stream);
      if (res != CUDA_SUCCESS)
        return cr_cuda_fail (error, res, "cuMemcpyHtoDAsync");
    }
    if ((res = cu->StreamSynchronize (stream)) != CUDA_SUCCESS)
      return cr_cuda_fail (error, res, "cuStreamSynchronize");
    gint64 t1 = g_get_monotonic_time ();
    if (b >= 0)
      rates[b] = (gdouble)per_batch * bytes / (MAX (t1 - t0, 1) * 1e3);
  }
  for (guint i = 1; i < CEILING_BATCHES; i++)
    for (guint j = i; j > 0 && rates[j] < rates[j - 1]; j--) {
      gdouble t = rates[j];
      rates[j] = rates[j - 1];
      rates[j - 1] = t;
    }
  *gbps = rates[CEILING_BATCHES / 2];
  return TRUE;
}

/* In a context of the benchmark's own, closed before the pipelines run. */
gboolean
measure_ceilings (const Region *pageable, const gsize *sizes, guint n_sizes,
    gdouble *pinned_gbps, gdouble *pageable_gbps, GError **error)
{
  g_autoptr (CrDevice) device = cr_device_open (-1, error);
  const CrDriver *cu = cr_cuda_driver (error);
  const gsize max = sizes[n_sizes - 1];
  const gsize pinned_bytes = MIN (MAX (max, 64 * MIB), pageable->bytes);
  CUdeviceptr dst = 0;
  void *pinned = NULL;
  gboolean ok = FALSE;
  CUresult res;

  if (device == NULL || cu == NULL || !cr_device_push (device, error))
    return FALSE;
  if ((res = cu->MemAlloc (&dst, max)) != CUDA_SUCCESS) {
    cr_cuda_fail (error, res, "cuMemAlloc");
    goto out;
  }
  if ((res = cu->MemAllocHost (&pinned, pinned_bytes)) != CUDA_SUCCESS) {
    cr_cuda_fail (error, res, "cuMemAllocHost");
    goto out;
  }
  memcpy (pinned, pageable->data, pinned_bytes);
  for (guint i = 0; i < n_sizes; i++) {
    if (!time_copies (cu, cr_device_stream (device), dst, pinned, pinned_bytes,
            sizes[i], &pinned_gbps[i], error)
        || !time_copies (cu, cr_device_stream (device), dst, pageable->data,
            pageable->bytes, sizes[i], &pageable_gbps[i], error))
      goto out;
  }
  ok = TRUE;
out:
  if (pinned)
    cu->MemFreeHost (pinned);
  if (dst)
    cu->MemFree (dst);
  cr_device_pop (device);
  return ok;
}

/* The start gate */

void
start_gate_init (StartGate *gate, guint workers)
{
  memset (gate, 0, sizeof *gate);
  g_mutex_init (&gate->lock);
  g_cond_init (&gate->cond);
  gate->workers = workers;
}

void
start_gate_clear (StartGate *gate)
{
  g_mutex_clear (&gate->lock);
  g_cond_clear (&gate->cond);
}

gint64
start_gate_wait (StartGate *gate)
{
  g_mutex_lock (&gate->lock);
  const guint opening = gate->openings;
  gate->waiting++;
  g_cond_broadcast (&gate->cond);
  while (gate->openings == opening)
    g_cond_wait (&gate->cond, &gate->lock);
  /* The next opening waits for this worker, so this one still stands. */
  const gint64 opened = gate->opened;
  g_mutex_unlock (&gate->lock);
  return opened;
}

gint64
start_gate_open (StartGate *gate, gint64 limit)
{
  g_mutex_lock (&gate->lock);
  while (gate->waiting < gate->workers) {
    if (limit == 0)
      g_cond_wait (&gate->cond, &gate->lock);
    else if (!g_cond_wait_until (&gate->cond, &gate->lock, limit)
        && gate->waiting < gate->workers) {
      g_mutex_unlock (&gate->lock);
      return 0;
    }
  }
  gate->waiting = 0;
  const gint64 opened = gate->opened = g_get_monotonic_time ();
  gate->openings++;
  g_cond_broadcast (&gate->cond);
  g_mutex_unlock (&gate->lock);
  return opened;
}

/* Copies on several GPUs at once */

#define ROUNDS_PER_SIZE (1 + CEILING_BATCHES) /* a warm-up batch first */

static guint
copies_per_batch (CopyKind kind, gsize bytes)
{
  return kind == COPY_PINNED_TO_DEVICE ? host_copies_per_batch (bytes)
                                       : device_copies_per_batch (bytes);
}

/* One GPU's part: its context, memory and thread. */
typedef struct {
  CopyKind kind;
  const CrDriver *cu;
  CrDevice *device;
  CUdeviceptr dst;
  CUdeviceptr src; /* within the GPU */
  guint8 *pinned; /* from the host, the source moving through it */
  gsize pinned_bytes;
  const gsize *sizes;
  guint n_sizes;
  StartGate *gate;
  gint64 *ends; /* when each round's copies were done */
  GError *error;
} CopyWorker;

/* In the main thread, so that every GPU's memory is there before any
 * copy. */
static gboolean
copy_worker_init (
    CopyWorker *w, guint ordinal, gsize max, guint rounds, GError **error)
{
  void *pinned = NULL;
  CUresult res;

  w->ends = g_new0 (gint64, rounds);
  if ((w->cu = cr_cuda_driver (error)) == NULL
      || (w->device = cr_device_open ((gint)ordinal, error)) == NULL
      || !cr_device_push (w->device, error))
    return FALSE;
  res = w->cu->MemAlloc (&w->dst, max);
  if (res == CUDA_SUCCESS && w->kind == COPY_DEVICE_TO_DEVICE) {
    const CUstream stream = cr_device_stream (w->device);
    res = w->cu->MemAlloc (&w->src, max);
    if (res == CUDA_SUCCESS)
      res = w->cu->MemsetD8Async (w->src, 7, max, stream);
    if (res == CUDA_SUCCESS)
      res = w->cu->StreamSynchronize (stream);
  } else if (res == CUDA_SUCCESS) {
    /* Larger than a CPU's last-level cache. */
    w->pinned_bytes = MAX (4 * max, 256 * MIB);
    res = w->cu->MemAllocHost (&pinned, w->pinned_bytes);
    w->pinned = pinned;
  }
  cr_device_pop (w->device);
  if (res != CUDA_SUCCESS)
    return cr_cuda_fail (error, res, "Allocating the copies' memory");
  return TRUE;
}

static void
copy_worker_clear (CopyWorker *w)
{
  if (w->device && cr_device_push (w->device, NULL)) {
    if (w->pinned)
      w->cu->MemFreeHost (w->pinned);
    if (w->src)
      w->cu->MemFree (w->src);
    if (w->dst)
      w->cu->MemFree (w->dst);
    cr_device_pop (w->device);
  }
  g_clear_pointer (&w->device, cr_device_unref);
  g_clear_pointer (&w->ends, g_free);
  g_clear_error (&w->error);
}

static gboolean
copy_batch (CopyWorker *w, gsize bytes, gsize *next)
{
  const CUstream stream = cr_device_stream (w->device);
  const guint count = copies_per_batch (w->kind, bytes);
  GError **error = &w->error;

  for (guint k = 0; k < count; k++) {
    if (w->kind == COPY_PINNED_TO_DEVICE) {
      const guint8 *src =
          w->pinned + ((*next)++ % (w->pinned_bytes / bytes)) * bytes;
      CR_CHECK (w->cu->MemcpyHtoDAsync (w->dst, src, bytes, stream),
          "cuMemcpyHtoDAsync");
    } else {
      CR_CHECK (w->cu->MemcpyDtoDAsync (w->dst, w->src, bytes, stream),
          "cuMemcpyDtoDAsync");
    }
  }
  CR_CHECK (w->cu->StreamSynchronize (stream), "cuStreamSynchronize");
  return TRUE;
}

/* Every round, failed or not, so that the gate opens for the others. */
static gpointer
copy_thread (gpointer data)
{
  CopyWorker *w = data;
  const gboolean pushed = cr_device_push (w->device, &w->error);
  gsize next = 0;

  for (guint s = 0; s < w->n_sizes; s++)
    for (guint b = 0; b < ROUNDS_PER_SIZE; b++) {
      start_gate_wait (w->gate);
      if (w->error == NULL)
        copy_batch (w, w->sizes[s], &next);
      w->ends[s * ROUNDS_PER_SIZE + b] = g_get_monotonic_time ();
    }
  if (pushed)
    cr_device_pop (w->device);
  return NULL;
}

gboolean
measure_concurrent_copies (CopyKind kind, guint n_gpus, const gsize *sizes,
    guint n_sizes, gdouble *gbps, GError **error)
{
  const guint rounds = n_sizes * ROUNDS_PER_SIZE;
  CopyWorker *workers = g_new0 (CopyWorker, n_gpus);
  GThread **threads = g_new0 (GThread *, n_gpus);
  gint64 *starts = g_new0 (gint64, rounds);
  gboolean ok = TRUE;
  StartGate gate;

  start_gate_init (&gate, n_gpus);
  for (guint k = 0; k < n_gpus && ok; k++) {
    workers[k] = (CopyWorker){
      .kind = kind, .sizes = sizes, .n_sizes = n_sizes, .gate = &gate
    };
    ok = copy_worker_init (&workers[k], k, sizes[n_sizes - 1], rounds, error);
  }
  if (ok) {
    for (guint k = 0; k < n_gpus; k++)
      threads[k] = g_thread_new ("copy", copy_thread, &workers[k]);
    for (guint r = 0; r < rounds; r++)
      starts[r] = start_gate_open (&gate, 0);
    for (guint k = 0; k < n_gpus; k++) {
      g_thread_join (threads[k]);
      if (ok && workers[k].error) {
        g_propagate_error (error, g_steal_pointer (&workers[k].error));
        ok = FALSE;
      }
    }
  }
  for (guint s = 0; ok && s < n_sizes; s++) {
    const gdouble bytes =
        (gdouble)n_gpus * copies_per_batch (kind, sizes[s]) * sizes[s];
    gdouble rates[CEILING_BATCHES];
    for (guint b = 0; b < CEILING_BATCHES; b++) {
      const guint r = s * ROUNDS_PER_SIZE + 1 + b;
      gint64 end = starts[r];
      for (guint k = 0; k < n_gpus; k++)
        end = MAX (end, workers[k].ends[r]);
      rates[b] = bytes / (MAX (end - starts[r], 1) * 1e3);
    }
    gbps[s] = median (rates, CEILING_BATCHES);
  }
  for (guint k = 0; k < n_gpus; k++)
    copy_worker_clear (&workers[k]);
  start_gate_clear (&gate);
  g_free (starts);
  g_free (threads);
  g_free (workers);
  return ok;
}
