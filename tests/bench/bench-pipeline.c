/* bench-pipeline.c: the host-to-GPU path through real GStreamer pipelines,
 * against host-to-device copy ceilings measured in the same run.
 *
 *   bench-pipeline [--csv FILE] [--max-bytes N] [--seconds S]
 *
 * An application thread feeds
 *
 *   appsrc ! cudareduce monoid=sum ! fakesink sync=false
 *
 * with audio/x-raw,format=U8,channels=1,rate=48000 (a buffer of B bytes is B
 * samples, and their sum is exact in a guint64), B from 4 KiB to 256 MiB
 * (--max-bytes, default 256 MiB), taking the buffers from three memory
 * sources:
 *
 *   pool             memory from cudareduce's answer to an ALLOCATION query
 *                    on appsrc's source pad, used as an appsrc user would:
 *                    the first pool proposed or, where there is none (the
 *                    element proposes a pool only where the caps fix the
 *                    buffer size, so not for raw audio), a plain
 *                    GstBufferPool of the first allocator proposed; either
 *                    way with the caps, B, and the answer's allocator and
 *                    parameters. Absent when the answer has neither;
 *   system-recycled  a plain GstBufferPool of ordinary pageable memory,
 *                    recycled as upstream pools recycle;
 *   system-fresh     a new GstMemory for every buffer, wrapping the next
 *                    slice of a large region filled (and so prefaulted)
 *                    before any pipeline runs;
 *   pool-depth1      the pool at async-depth=1, at 4 KiB only, when the
 *                    element has the async-depth property.
 *
 * Every memory is filled once, before the timed loop, with pseudo-random
 * bytes whose sum is known. A bus sync handler checks each `cudareduce`
 * message as it is posted: its timestamp must be the next buffer's (nothing
 * lost, duplicated or reordered), its count B and its sum the buffer's; at
 * EOS there must be one result per buffer pushed. A mismatch, an ERROR
 * message or a stall fails the benchmark (exit 1). Without a usable GPU or
 * NVRTC it prints why and exits 77 (skipped), unless CUDAREDUCE_REQUIRE_GPU=1
 * or CUDAREDUCE_REQUIRE_NVRTC=1 makes that a failure.
 *
 * Timing. Each measurement is a new pipeline. The first buffers are warm-up:
 * 16, or two rounds of a pool's buffers if that is more (the element
 * registers recycled memory on its second visit), but fewer if pushing them
 * takes more than a second (or --seconds). The application then keeps
 * pushing for --seconds (at least 8 buffers) and sends EOS. The time is from the arrival of the last warm-up buffer's
 * result to the EOS message, a window in which exactly the buffers pushed
 * after the warm-up are completed, with the pipeline already full at its
 * start; GB/s is their bytes over that time (1 GB = 10^9 bytes), buffers/s
 * their number over it. The figure reported is the median of 3 runs
 * (pipelines), taken in turn across the sources.
 *
 * Ceilings, per size, in a CUDA context of the benchmark's own before the
 * pipelines run: cuMemcpyHtoDAsync of B bytes into device memory, back to
 * back in batches closed by cuStreamSynchronize, from cuMemAllocHost memory
 * (pinned) and from the prefaulted malloc'd region (pageable), the source
 * moving through the region; wall-clock GB/s, median of 7 batches.
 *
 * The level peer: F32LE stereo at 48 kHz, sizes 4 KiB to 16 MiB, through
 * `level post-messages=true interval=<buffer duration>` (one message per
 * buffer) and through `cudareduce monoid=sumsq`, from a system-recycled pool
 * of random floats in [-1, 1), timed in the same way. The sync handler
 * counts the messages; cudareduce's must number one per buffer (their
 * timestamps and counts are checked too).
 *
 * CSV (--csv), one row per measurement, empty fields where not applicable:
 *
 *   kind,source,bytes,gbps,buffers_per_s,ceiling_gbps,ratio
 *
 *   kind=ceiling   source pinned or pageable; gbps the copy rate,
 *                  buffers_per_s copies per second; ceiling_gbps and ratio
 *                  empty.
 *   kind=pipeline  source pool, pool-depth1, system-recycled or
 *                  system-fresh; gbps and buffers_per_s the median run's;
 *                  ceiling_gbps the pinned ceiling of the same size for the
 *                  pool sources, the pageable one for the system sources;
 *                  ratio = gbps / ceiling_gbps.
 *   kind=level     source level or cudareduce-sumsq (F32LE stereo); gbps
 *                  input bytes per second (samples/s = gbps * 1e9 / 4);
 *                  ceiling_gbps empty; ratio, on the cudareduce-sumsq row
 *                  only, its gbps over level's at the same size.
 *
 * report-pipeline.py turns that CSV into the Markdown tables of
 * docs/performance.md. */
#include "cr-cuda.h"
#include "cr-reducer.h"

#include <gst/app/gstappsrc.h>
#include <gst/audio/audio.h>
#include <gst/gst.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SKIP 77
#define KIB ((gsize)1 << 10)
#define MIB ((gsize)1 << 20)
#define BLOCK (4 * KIB) /* every size is a multiple of this */
#define RATE 48000
#define REPEATS 3
#define WARMUP_MAX 16
#define TIMED_MIN 8
#define CAPACITY ((guint64)1 << 22) /* most buffers one pipeline run pushes */
#define CEILING_BATCHES 7

static const gsize u8_sizes[] = { 4 * KIB, 64 * KIB, 1 * MIB, 4 * MIB, 16 * MIB,
  64 * MIB, 256 * MIB };
static const gsize level_sizes[] = { 4 * KIB, 64 * KIB, 1 * MIB, 4 * MIB,
  16 * MIB };

static const gchar *const u8_caps = "audio/x-raw,format=U8,layout=interleaved,"
                                    "channels=1,rate=48000";
static const gchar *const f32_caps = "audio/x-raw,format=F32LE,"
                                     "layout=interleaved,channels=2,rate=48000";

/* Shared by every run: what each pushed buffer should sum to, and when each
 * result arrived (monotonic microseconds). */
static guint64 *expected;
static gint64 *arrival;
static FILE *csv;

static G_GNUC_NORETURN void fail (const gchar *format, ...)
    G_GNUC_PRINTF (1, 2);

static void
fail (const gchar *format, ...)
{
  va_list args;
  va_start (args, format);
  g_autofree gchar *text = g_strdup_vprintf (format, args);
  va_end (args);
  fflush (stdout);
  g_printerr ("bench-pipeline: FAILED: %s\n", text);
  if (csv)
    fclose (csv);
  /* Without tearing anything down: after a stall a streaming thread may
   * still be inside the element, and stopping the pipeline would wait on
   * it. */
  _exit (1);
}

static G_GNUC_NORETURN void
skip_or_fail (const gchar *variable, const gchar *what, const GError *error)
{
  if (g_strcmp0 (g_getenv (variable), "1") == 0)
    fail ("%s=1 but %s: %s", variable, what, error->message);
  g_print ("SKIP: %s (%s)\n", what, error->message);
  exit (SKIP);
}

static gchar *
size_label (gsize bytes)
{
  if (bytes >= MIB)
    return g_strdup_printf ("%" G_GSIZE_FORMAT " MiB", bytes / MIB);
  return g_strdup_printf ("%" G_GSIZE_FORMAT " KiB", bytes / KIB);
}

static inline guint64
next_random (guint64 *s)
{
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 0x2545F4914F6CDD1Dull;
}

/* Pseudo-random data, page-aligned, filled (and so prefaulted) once. For
 * bytes, prefix[k] is the sum of the bytes before block k, so any
 * block-aligned slice's sum is a subtraction. */
typedef struct {
  guint8 *data;
  gsize bytes;
  guint64 *prefix; /* NULL for floats */
} Region;

static void
region_init (Region *r, gsize bytes, gboolean floats, guint64 seed)
{
  void *p = NULL;
  guint64 s = seed | 1;

  if (posix_memalign (&p, 4096, bytes) != 0)
    fail ("cannot allocate a region of %" G_GSIZE_FORMAT " bytes", bytes);
  r->data = p;
  r->bytes = bytes;
  r->prefix = NULL;
  if (floats) {
    gfloat *f = p;
    for (gsize k = 0; k < bytes / 4; k++)
      f[k] = (gfloat)((next_random (&s) >> 40) * (2.0 / 16777216.0) - 1.0);
    return;
  }
  guint64 *w = p;
  for (gsize k = 0; k < bytes / 8; k++)
    w[k] = next_random (&s);
  r->prefix = g_new (guint64, bytes / BLOCK + 1);
  r->prefix[0] = 0;
  for (gsize b = 0; b < bytes / BLOCK; b++) {
    const guint8 *d = r->data + b * BLOCK;
    guint32 sum = 0;
    for (gsize k = 0; k < BLOCK; k++)
      sum += d[k];
    r->prefix[b + 1] = r->prefix[b] + sum;
  }
}

static guint64
region_sum (const Region *r, gsize offset, gsize bytes)
{
  return r->prefix
      ? r->prefix[(offset + bytes) / BLOCK] - r->prefix[offset / BLOCK]
      : 0;
}

/* Host-to-device copy ceilings */

static gboolean
time_copies (const CrDriver *cu, CUstream stream, CUdeviceptr dst,
    const guint8 *src, gsize src_bytes, gsize bytes, gdouble *gbps,
    GError **error)
{
  const guint per_batch = CLAMP ((512 * MIB) / bytes, 2, 2000);
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
static gboolean
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

/* Memory sources */

typedef enum {
  SOURCE_POOL,
  SOURCE_RECYCLED,
  SOURCE_FRESH,
} SourceKind;

typedef struct {
  SourceKind kind;
  GstBufferPool *pool; /* pool and recycled */
  const Region *region;
  gsize bytes;
  guint64 next_slot; /* the next slice of the region to use */
  guint filled; /* distinct memories filled */
  gboolean in_run; /* filling now means the pool grew during a run */
  guint grown;
} Source;

static GQuark sum_quark;

/* The sum of @buf's data, filling it from the region the first time its
 * memory is seen. The sum lives on the memory itself, so memory the pool
 * replaced (even at the same address) is filled again. */
static guint64
pool_buffer_sum (Source *src, GstBuffer *buf)
{
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);
  guint64 *sum = gst_mini_object_get_qdata (GST_MINI_OBJECT (mem), sum_quark);

  if (sum)
    return *sum;
  const gsize slots = src->region->bytes / src->bytes;
  const gsize offset = (src->next_slot++ % slots) * src->bytes;
  if (gst_buffer_fill (buf, 0, src->region->data + offset, src->bytes)
      != src->bytes)
    fail ("cannot fill a pool buffer of %" G_GSIZE_FORMAT " bytes",
        gst_buffer_get_size (buf));
  sum = g_new (guint64, 1);
  *sum = region_sum (src->region, offset, src->bytes);
  gst_mini_object_set_qdata (GST_MINI_OBJECT (mem), sum_quark, sum, g_free);
  src->filled++;
  src->grown += src->in_run;
  return *sum;
}

/* Acquires every buffer the pool has (or @count) and fills it, so that no
 * buffer is filled in the timed loop; returns how many it got. */
static guint
source_prefill (Source *src, guint count)
{
  GstBufferPoolAcquireParams params = {
    .flags = GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT,
  };
  GstBuffer **held = g_new0 (GstBuffer *, count);
  guint got = 0;

  while (got < count
      && gst_buffer_pool_acquire_buffer (src->pool, &held[got], &params)
          == GST_FLOW_OK) {
    if (gst_buffer_get_size (held[got]) != src->bytes)
      fail ("the pool gave a buffer of %" G_GSIZE_FORMAT
            " bytes, not %" G_GSIZE_FORMAT,
          gst_buffer_get_size (held[got]), src->bytes);
    pool_buffer_sum (src, held[got]);
    got++;
  }
  for (guint k = 0; k < got; k++)
    gst_buffer_unref (held[k]);
  g_free (held);
  return got;
}

/* @count buffers preallocated, more allocated only if ever needed. */
static gboolean
configure_pool (GstBufferPool *pool, GstCaps *caps, gsize bytes, guint count,
    guint query_max, GstAllocator *allocator, const GstAllocationParams *params)
{
  GstStructure *config = gst_buffer_pool_get_config (pool);
  guint max = query_max ? MAX (query_max, count) : 0;

  gst_buffer_pool_config_set_params (config, caps, bytes, count, max);
  if (params) {
    GstAllocator *own = NULL;
    if (allocator == NULL)
      gst_buffer_pool_config_get_allocator (config, &own, NULL);
    gst_buffer_pool_config_set_allocator (
        config, allocator ? allocator : own, params);
  }
  if (gst_buffer_pool_set_config (pool, config))
    return TRUE;
  /* The pool may have amended the configuration; take it if the size
   * stands. */
  config = gst_buffer_pool_get_config (pool);
  GstCaps *c = NULL;
  guint size = 0, min = 0;
  if (!gst_buffer_pool_config_get_params (config, &c, &size, &min, &max)
      || size != bytes) {
    gst_structure_free (config);
    return FALSE;
  }
  g_print (
      "  (the pool amended its configuration: min %u, max %u)\n", min, max);
  return gst_buffer_pool_set_config (pool, config);
}

static Source *
source_new_recycled (
    const Region *region, GstCaps *caps, gsize bytes, guint count)
{
  Source *src = g_new0 (Source, 1);
  src->kind = SOURCE_RECYCLED;
  src->region = region;
  src->bytes = bytes;
  src->pool = gst_buffer_pool_new ();
  if (!configure_pool (src->pool, caps, bytes, count, 0, NULL, NULL)
      || !gst_buffer_pool_set_active (src->pool, TRUE))
    fail ("cannot set up a system buffer pool of %u x %" G_GSIZE_FORMAT
          " bytes",
        count, bytes);
  source_prefill (src, count);
  return src;
}

static Source *
source_new_fresh (const Region *region, gsize bytes)
{
  Source *src = g_new0 (Source, 1);
  src->kind = SOURCE_FRESH;
  src->region = region;
  src->bytes = bytes;
  return src;
}

static void
source_free (Source *src)
{
  if (src->pool) {
    gst_buffer_pool_set_active (src->pool, FALSE);
    gst_object_unref (src->pool);
  }
  g_free (src);
}

/* The next buffer to push and the sum of its data. */
static GstBuffer *
source_next (Source *src, guint64 *sum)
{
  GstBuffer *buf = NULL;

  if (src->kind == SOURCE_FRESH) {
    const gsize slots = src->region->bytes / src->bytes;
    const gsize offset = (src->next_slot++ % slots) * src->bytes;
    buf = gst_buffer_new ();
    gst_buffer_append_memory (buf,
        gst_memory_new_wrapped (GST_MEMORY_FLAG_READONLY,
            src->region->data + offset, src->bytes, 0, src->bytes, NULL, NULL));
    *sum = region_sum (src->region, offset, src->bytes);
    return buf;
  }
  if (gst_buffer_pool_acquire_buffer (src->pool, &buf, NULL) != GST_FLOW_OK)
    return NULL;
  *sum = pool_buffer_sum (src, buf);
  return buf;
}

/* One pipeline run */

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
  const RunSpec *spec;
  GstClockTime duration;
  GMutex lock;
  guint64 results;
  gint64 eos_time;
  gchar *failure;
} Run;

typedef struct {
  gdouble gbps;
  gdouble buffers_per_s;
  guint64 buffers; /* timed */
  guint64 results; /* messages, warm-up included */
  guint64 pushed;
} Measure;

static void
run_fail (Run *run, gchar *text)
{
  if (run->failure == NULL)
    run->failure = text;
  else
    g_free (text);
}

static void
check_result (Run *run, const GstStructure *s, guint64 k)
{
  const RunSpec *spec = run->spec;
  guint64 ts = 0, count = 0, sum = 0;

  if (!gst_structure_get_uint64 (s, "timestamp", &ts)
      || ts != k * run->duration) {
    run_fail (run,
        g_strdup_printf ("result %" G_GUINT64_FORMAT
                         " has timestamp %" G_GUINT64_FORMAT
                         ", not %" G_GUINT64_FORMAT
                         " (a result lost, duplicated or out of order): %s",
            k, ts, k * run->duration, gst_structure_to_string (s)));
    return;
  }
  if (!gst_structure_get_uint64 (s, "count", &count)
      || count != spec->elements) {
    run_fail (run,
        g_strdup_printf ("result %" G_GUINT64_FORMAT
                         " has count %" G_GUINT64_FORMAT
                         ", not %" G_GUINT64_FORMAT,
            k, count, spec->elements));
    return;
  }
  if (spec->check_sum) {
    if (!gst_structure_get_uint64 (s, "sum", &sum))
      run_fail (run,
          g_strdup_printf ("result %" G_GUINT64_FORMAT
                           " has no guint64 field sum: %s",
              k, gst_structure_to_string (s)));
    else if (sum != expected[k])
      run_fail (run,
          g_strdup_printf ("result %" G_GUINT64_FORMAT " (%" G_GSIZE_FORMAT
                           " bytes) has sum %" G_GUINT64_FORMAT
                           ", not %" G_GUINT64_FORMAT,
              k, spec->bytes, sum, expected[k]));
  }
}

static GstBusSyncReply
on_message (GstBus *bus, GstMessage *msg, gpointer data)
{
  Run *run = data;

  switch (GST_MESSAGE_TYPE (msg)) {
    case GST_MESSAGE_ELEMENT: {
      const GstStructure *s = gst_message_get_structure (msg);
      if (s == NULL || !gst_structure_has_name (s, run->spec->result_name))
        break;
      gint64 now = g_get_monotonic_time ();
      g_mutex_lock (&run->lock);
      guint64 k = run->results++;
      if (k < CAPACITY) {
        arrival[k] = now;
        if (run->spec->check && run->failure == NULL)
          check_result (run, s, k);
      }
      g_mutex_unlock (&run->lock);
      return GST_BUS_DROP;
    }
    case GST_MESSAGE_EOS:
      g_mutex_lock (&run->lock);
      run->eos_time = g_get_monotonic_time ();
      g_mutex_unlock (&run->lock);
      break;
    default:
      break;
  }
  return GST_BUS_PASS;
}

typedef struct {
  Run *run;
  Source *src;
  GstAppSrc *appsrc;
  gdouble seconds;
  guint64 pushed;
  guint64 warmup; /* 0 while warming up */
  gint64 timed_start;
  guint64 warmup_target;
  GstFlowReturn flow;
  gboolean no_buffer;
} Pusher;

static gpointer
push_thread (gpointer data)
{
  Pusher *p = data;
  const gint64 start = g_get_monotonic_time ();
  const gint64 warmup_limit = (gint64)(MIN (1.0, p->seconds) * 1e6);
  const gint64 timed_limit = (gint64)(p->seconds * 1e6);
  const GstClockTime duration = p->run->duration;

  p->flow = GST_FLOW_OK;
  for (guint64 seq = 0; seq < CAPACITY; seq++) {
    gint64 now = g_get_monotonic_time ();
    if (p->warmup == 0
        && (seq >= p->warmup_target
            || (seq >= 2 && now - start >= warmup_limit))) {
      p->warmup = seq;
      p->timed_start = now;
    }
    if (p->warmup && seq - p->warmup >= TIMED_MIN
        && now - p->timed_start >= timed_limit)
      break;
    guint64 sum = 0;
    GstBuffer *buf = source_next (p->src, &sum);
    if (buf == NULL) {
      p->no_buffer = TRUE;
      break;
    }
    GST_BUFFER_PTS (buf) = seq * duration;
    GST_BUFFER_DTS (buf) = GST_CLOCK_TIME_NONE;
    GST_BUFFER_DURATION (buf) = duration;
    GST_BUFFER_OFFSET (buf) = seq;
    GST_BUFFER_OFFSET_END (buf) = seq + 1;
    expected[seq] = sum;
    p->flow = gst_app_src_push_buffer (p->appsrc, buf);
    if (p->flow != GST_FLOW_OK)
      break;
    p->pushed = seq + 1;
  }
  if (p->flow == GST_FLOW_OK && !p->no_buffer)
    p->flow = gst_app_src_end_of_stream (p->appsrc);
  return NULL;
}

static gboolean
has_property (GstElement *e, const gchar *name)
{
  return g_object_class_find_property (G_OBJECT_GET_CLASS (e), name) != NULL;
}

static void
print_pool (GstBufferPool *pool, gboolean proposed, guint count)
{
  static gboolean printed;
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstAllocator *allocator = NULL;
  guint size = 0, min = 0, max = 0;

  if (printed)
    goto out;
  printed = TRUE;
  gst_buffer_pool_config_get_params (config, NULL, &size, &min, &max);
  gst_buffer_pool_config_get_allocator (config, &allocator, NULL);
  g_print ("  (pool source: %s %s, memory %s; %u buffers prefilled; min %u, "
           "max %u)\n",
      proposed ? "the element's proposed" : "the element's allocator in a",
      G_OBJECT_TYPE_NAME (pool),
      allocator ? allocator->mem_type : "of the default allocator", count, min,
      max);
out:
  gst_structure_free (config);
}

/* The pool the element proposes to appsrc, or a pool of the allocator it
 * proposes, configured and filled; NULL with *@why when there is neither. */
static Source *
source_from_query (
    GstElement *appsrc, const RunSpec *spec, const Region *region, gchar **why)
{
  GstPad *pad = gst_element_get_static_pad (appsrc, "src");
  GstCaps *caps = gst_caps_from_string (spec->caps);
  GstQuery *query = gst_query_new_allocation (caps, TRUE);
  GstBufferPool *pool = NULL;
  GstAllocator *allocator = NULL;
  GstAllocationParams params;
  gboolean have_params = FALSE;
  guint size = 0, min = 0, max = 0;
  Source *src = NULL;

  gst_allocation_params_init (&params);
  if (!gst_pad_peer_query (pad, query)) {
    *why = g_strdup ("the ALLOCATION query was not answered");
    goto out;
  }
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
  if (gst_query_get_n_allocation_params (query) > 0) {
    gst_query_parse_nth_allocation_param (query, 0, &allocator, &params);
    have_params = TRUE;
  }
  if (pool == NULL && allocator == NULL) {
    *why = g_strdup ("the ALLOCATION answer has neither a pool nor an "
                     "allocator");
    goto out;
  }
  /* Where the caps do not fix the size (raw audio), the element proposes
   * only its allocator; a pool of it is what a source would make. */
  const gboolean proposed = pool != NULL;
  if (pool == NULL)
    pool = gst_buffer_pool_new ();
  guint count = MAX (min, spec->pool_buffers);
  if (!configure_pool (pool, caps, spec->bytes, count, max, allocator,
          have_params ? &params : NULL)) {
    *why = g_strdup_printf ("the %s %s refused size %" G_GSIZE_FORMAT
                            " with %u buffers",
        proposed ? "proposed" : "allocator's", G_OBJECT_TYPE_NAME (pool),
        spec->bytes, count);
    goto out;
  }
  if (!gst_buffer_pool_set_active (pool, TRUE)) {
    *why = g_strdup_printf ("the %s %s could not be activated",
        proposed ? "proposed" : "allocator's", G_OBJECT_TYPE_NAME (pool));
    goto out;
  }
  src = g_new0 (Source, 1);
  src->kind = SOURCE_POOL;
  src->pool = g_steal_pointer (&pool);
  src->region = region;
  src->bytes = spec->bytes;
  print_pool (src->pool, proposed, source_prefill (src, count));
out:
  if (pool)
    gst_object_unref (pool);
  if (allocator)
    gst_object_unref (allocator);
  gst_query_unref (query);
  gst_caps_unref (caps);
  gst_object_unref (pad);
  return src;
}

/* Runs one pipeline. @src is NULL for the pool source, which comes from the
 * element; returns FALSE with *@why if it has none. Fails the benchmark on
 * anything wrong. */
static gboolean
run_pipeline (const RunSpec *spec, Source *src, const Region *region,
    gdouble seconds, Measure *m, gchar **why)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *desc = g_strdup_printf (
      "appsrc name=src ! %s ! fakesink sync=false enable-last-sample=false",
      spec->element);
  GstElement *pipeline = gst_parse_launch (desc, &error);
  Run run = { .spec = spec };
  Pusher pusher = { 0 };
  Source *own = NULL;
  gboolean have_pool = TRUE;

  if (pipeline == NULL)
    fail ("cannot build \"%s\": %s", desc, error->message);
  GstElement *appsrc = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstElement *r = gst_bin_get_by_name (GST_BIN (pipeline), "r");
  GstBus *bus = gst_element_get_bus (pipeline);
  GstCaps *caps = gst_caps_from_string (spec->caps);

  run.duration = gst_util_uint64_scale (spec->frames, GST_SECOND, RATE);
  g_mutex_init (&run.lock);
  g_object_set (appsrc, "caps", caps, "format", GST_FORMAT_TIME, "is-live",
      FALSE, "block", TRUE, "max-bytes",
      (guint64)spec->queue_buffers * spec->bytes, "stream-type",
      GST_APP_STREAM_TYPE_STREAM, NULL);
  if (spec->depth >= 0 && has_property (r, "async-depth"))
    g_object_set (r, "async-depth", (guint)spec->depth, NULL);
  gst_bus_set_sync_handler (bus, on_message, &run, NULL);

  /* Beyond any plausible run: a stall. */
  const gdouble limit_s = 60 + 10 * (seconds + 1);
  const gint64 deadline =
      g_get_monotonic_time () + (gint64)(limit_s * G_USEC_PER_SEC);
  if (gst_element_set_state (pipeline, GST_STATE_PLAYING)
      == GST_STATE_CHANGE_FAILURE) {
    GstMessage *msg = gst_bus_timed_pop_filtered (bus, 0, GST_MESSAGE_ERROR);
    GError *e = NULL;
    if (msg)
      gst_message_parse_error (msg, &e, NULL);
    fail ("%s: cannot start \"%s\"%s%s", spec->element, desc, e ? ": " : "",
        e ? e->message : "");
  }

  /* Negotiated (and the kernel built) before the first buffer: caps flow
   * from appsrc as it starts. An appsrc user asks for a pool only then. */
  GstPad *sink = gst_element_get_static_pad (r, "sink");
  while (!gst_pad_has_current_caps (sink)) {
    GstMessage *msg =
        gst_bus_timed_pop_filtered (bus, GST_MSECOND, GST_MESSAGE_ERROR);
    if (msg) {
      GError *e = NULL;
      gchar *dbg = NULL;
      gst_message_parse_error (msg, &e, &dbg);
      fail ("%s: %s (%s)", spec->element, e->message, dbg ? dbg : "");
    }
    if (g_get_monotonic_time () > deadline)
      fail ("%s: no caps reached the element", spec->element);
  }
  gst_object_unref (sink);

  if (src == NULL) {
    src = own = source_from_query (appsrc, spec, region, why);
    have_pool = src != NULL;
  }

  if (have_pool) {
    pusher.run = &run;
    pusher.src = src;
    pusher.appsrc = GST_APP_SRC (appsrc);
    pusher.seconds = seconds;
    /* Two rounds of a pool: the element registers recycled memory on its
     * second visit, which belongs to the warm-up. */
    pusher.warmup_target = WARMUP_MAX;
    if (src->pool)
      pusher.warmup_target = MAX (WARMUP_MAX, 2 * (guint64)src->filled);
    src->in_run = TRUE;
    GThread *thread = g_thread_new ("push", push_thread, &pusher);
    GstMessage *msg = gst_bus_timed_pop_filtered (bus,
        MAX (deadline - g_get_monotonic_time (), 0) * GST_USECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    if (msg == NULL) {
      g_mutex_lock (&run.lock);
      fail ("%s, %" G_GSIZE_FORMAT " bytes per buffer: stalled, no EOS "
            "after %.0f s (%" G_GUINT64_FORMAT " results, %" G_GUINT64_FORMAT
            " buffers pushed)%s%s",
          spec->element, spec->bytes, limit_s, run.results, pusher.pushed,
          run.failure ? "; before that: " : "", run.failure ? run.failure : "");
    } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      GError *e = NULL;
      gchar *dbg = NULL;
      gst_message_parse_error (msg, &e, &dbg);
      g_mutex_lock (&run.lock);
      run_fail (&run,
          g_strdup_printf ("ERROR from %s: %s (%s)", GST_MESSAGE_SRC_NAME (msg),
              e->message, dbg ? dbg : ""));
      g_mutex_unlock (&run.lock);
      g_error_free (e);
      g_free (dbg);
    }
    if (msg)
      gst_message_unref (msg);
    /* Stopping unblocks a push that waits on a stalled pipeline. */
    gst_element_set_state (pipeline, GST_STATE_NULL);
    g_thread_join (thread);
    src->in_run = FALSE;
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);

  if (run.failure == NULL && have_pool) {
    if (pusher.no_buffer)
      run.failure = g_strdup ("the source gave no buffer");
    else if (pusher.flow != GST_FLOW_OK)
      run.failure = g_strdup_printf (
          "pushing returned %s", gst_flow_get_name (pusher.flow));
    else if (spec->check && run.results != pusher.pushed)
      run.failure = g_strdup_printf (
          "%" G_GUINT64_FORMAT " results for %" G_GUINT64_FORMAT " buffers",
          run.results, pusher.pushed);
  }
  if (run.failure)
    fail ("%s, %" G_GSIZE_FORMAT " bytes per buffer: %s", spec->element,
        spec->bytes, run.failure);

  if (have_pool) {
    /* From the last warm-up result to EOS; were the messages not one per
     * buffer (level), from the first timed push. */
    gint64 t0 = pusher.timed_start;
    if (pusher.warmup > 0 && run.results >= pusher.warmup
        && run.results <= pusher.pushed + 1)
      t0 = arrival[pusher.warmup - 1];
    gdouble secs = MAX (run.eos_time - t0, 1) * 1e-6;
    m->buffers = pusher.pushed - pusher.warmup;
    m->pushed = pusher.pushed;
    m->results = run.results;
    m->gbps = m->buffers * spec->bytes / secs * 1e-9;
    m->buffers_per_s = m->buffers / secs;
    if (src->grown)
      g_print ("  (note: %u buffers were allocated and filled during the "
               "run; the pool grew)\n",
          src->grown);
    src->grown = 0;
  }
  if (own)
    source_free (own);
  g_mutex_clear (&run.lock);
  gst_caps_unref (caps);
  gst_object_unref (bus);
  gst_object_unref (r);
  gst_object_unref (appsrc);
  gst_object_unref (pipeline);
  return have_pool;
}

static int
by_gbps (const void *a, const void *b)
{
  const Measure *x = a, *y = b;
  return (x->gbps > y->gbps) - (x->gbps < y->gbps);
}

static void
csv_row (const gchar *kind, const gchar *source, gsize bytes, gdouble gbps,
    gdouble buffers_per_s, gdouble ceiling, gdouble ratio)
{
  gchar c[32] = "", r[32] = "";
  if (csv == NULL)
    return;
  if (!isnan (ceiling))
    g_snprintf (c, sizeof c, "%.3f", ceiling);
  if (!isnan (ratio))
    g_snprintf (r, sizeof r, "%.4f", ratio);
  fprintf (csv, "%s,%s,%" G_GSIZE_FORMAT ",%.4f,%.1f,%s,%s\n", kind, source,
      bytes, gbps, buffers_per_s, c, r);
  fflush (csv);
}

/* What the summary table shows per size and source. */
typedef struct {
  gboolean have;
  Measure m;
} Cell;

enum { COL_POOL, COL_RECYCLED, COL_FRESH, N_COLS };
static const gchar *const col_names[N_COLS] = { "pool", "system-recycled",
  "system-fresh" };

static void
print_measure (const gchar *size, const gchar *source, const Measure *runs,
    const Measure *median, gdouble ceiling, const gchar *ceiling_name)
{
  g_print ("%8s  %-16s %9.3f GB/s %10.0f buf/s  [", size, source, median->gbps,
      median->buffers_per_s);
  for (guint k = 0; k < REPEATS; k++)
    g_print ("%s%.3f", k ? " " : "", runs[k].gbps);
  g_print ("; %" G_GUINT64_FORMAT " timed buffers]", median->buffers);
  if (ceiling_name)
    g_print ("  %.2f of %s", median->gbps / ceiling, ceiling_name);
  g_print ("\n");
}

int
main (int argc, char **argv)
{
  const gchar *csv_path = NULL;
  gsize max_bytes = 256 * MIB;
  gdouble seconds = 1.0;
  g_autoptr (GError) error = NULL;

  gst_init (&argc, &argv);
  for (int k = 1; k < argc; k++) {
    if (strcmp (argv[k], "--csv") == 0 && k + 1 < argc)
      csv_path = argv[++k];
    else if (strcmp (argv[k], "--max-bytes") == 0 && k + 1 < argc)
      max_bytes = g_ascii_strtoull (argv[++k], NULL, 10);
    else if (strcmp (argv[k], "--seconds") == 0 && k + 1 < argc)
      seconds = g_ascii_strtod (argv[++k], NULL);
    else {
      g_printerr (
          "usage: %s [--csv FILE] [--max-bytes N] [--seconds S]\n", argv[0]);
      return 2;
    }
  }
  if (!(seconds > 0) || max_bytes < u8_sizes[0]) {
    g_printerr ("bench-pipeline: --seconds must be positive and --max-bytes "
                "at least %" G_GSIZE_FORMAT "\n",
        u8_sizes[0]);
    return 2;
  }
  sum_quark = g_quark_from_static_string ("bench-pipeline-sum");

  /* A GPU, NVRTC and the plugin, or nothing to measure. */
  g_autofree gchar *gpu = NULL;
  if (cr_cuda_driver (&error) == NULL)
    skip_or_fail ("CUDAREDUCE_REQUIRE_GPU", "no GPU", error);
  {
    g_autoptr (CrDevice) device = cr_device_open (-1, &error);
    if (device == NULL)
      skip_or_fail ("CUDAREDUCE_REQUIRE_GPU", "no GPU", error);
    gpu = g_strdup_printf (
        "%s (sm_%d)", cr_device_name (device), cr_device_arch (device));
  }
  if (cr_cuda_nvrtc (&error) == NULL)
    skip_or_fail ("CUDAREDUCE_REQUIRE_NVRTC", "no NVRTC", error);
  GstElement *probe = gst_element_factory_make ("cudareduce", NULL);
  if (probe == NULL)
    fail ("there is no cudareduce element; run through Meson (meson test "
          "--benchmark) or point GST_PLUGIN_PATH at build/plugin");
  gboolean have_depth = has_property (probe, "async-depth");
  guint depth = 1;
  if (have_depth)
    g_object_get (probe, "async-depth", &depth, NULL);
  gst_object_unref (probe);
  GstElementFactory *level = gst_element_factory_find ("level");
  const gboolean have_level = level != NULL;

  guint n_sizes = 0, n_level = 0;
  while (n_sizes < G_N_ELEMENTS (u8_sizes) && u8_sizes[n_sizes] <= max_bytes)
    n_sizes++;
  while (
      n_level < G_N_ELEMENTS (level_sizes) && level_sizes[n_level] <= max_bytes)
    n_level++;

  g_print ("GPU: %s; cudareduce async-depth: %s%u; %.2f s per run, "
           "median of %d runs\n",
      gpu, have_depth ? "" : "no such property, synchronous, taken as ",
      MAX (depth, 1), seconds, REPEATS);

  if (csv_path) {
    csv = fopen (csv_path, "w");
    if (csv == NULL)
      fail ("cannot write %s", csv_path);
    fprintf (csv, "kind,source,bytes,gbps,buffers_per_s,ceiling_gbps,ratio\n");
  }

  /* Pseudo-random bytes for every U8 buffer: slices of the fresh source,
   * the contents of pool buffers. */
  Region bytes_region;
  region_init (&bytes_region, MAX (4 * u8_sizes[n_sizes - 1], 256 * MIB), FALSE,
      0x9E3779B97F4A7C15ull);
  expected = g_new (guint64, CAPACITY);
  arrival = g_new (gint64, CAPACITY);

  gdouble pinned[G_N_ELEMENTS (u8_sizes)], pageable[G_N_ELEMENTS (u8_sizes)];
  if (!measure_ceilings (
          &bytes_region, u8_sizes, n_sizes, pinned, pageable, &error))
    fail ("copy ceilings: %s", error->message);

  g_print ("\nHost-to-device copies (cuMemcpyHtoDAsync), GB/s:\n%8s %9s %9s\n",
      "size", "pinned", "pageable");
  for (guint i = 0; i < n_sizes; i++) {
    g_autofree gchar *label = size_label (u8_sizes[i]);
    g_print ("%8s %9.3f %9.3f\n", label, pinned[i], pageable[i]);
    csv_row ("ceiling", "pinned", u8_sizes[i], pinned[i],
        pinned[i] * 1e9 / u8_sizes[i], NAN, NAN);
    csv_row ("ceiling", "pageable", u8_sizes[i], pageable[i],
        pageable[i] * 1e9 / u8_sizes[i], NAN, NAN);
  }

  g_print ("\ncudareduce monoid=sum on U8 mono: median GB/s and buffers/s "
           "[the %d runs' GB/s; timed buffers] and ratio to the ceiling\n",
      REPEATS);
  Cell cells[G_N_ELEMENTS (u8_sizes)][N_COLS] = { 0 };
  gchar *no_pool = NULL;
  GstCaps *caps = gst_caps_from_string (u8_caps);
  for (guint i = 0; i < n_sizes; i++) {
    const gsize bytes = u8_sizes[i];
    g_autofree gchar *label = size_label (bytes);
    const guint queue = CLAMP (MIB / bytes, 2, 16);
    RunSpec spec = {
      .element = "cudareduce name=r monoid=sum",
      .caps = u8_caps,
      .bytes = bytes,
      .elements = bytes,
      .frames = bytes,
      .depth = -1,
      .result_name = "cudareduce",
      .check = TRUE,
      .check_sum = TRUE,
      .queue_buffers = queue,
      .pool_buffers = MAX (depth, 1) + queue + 3,
    };
    Source *recycled =
        source_new_recycled (&bytes_region, caps, bytes, spec.pool_buffers);
    Source *fresh = source_new_fresh (&bytes_region, bytes);
    Measure runs[N_COLS][REPEATS] = { 0 };
    gboolean have_pool = TRUE;

    for (guint rep = 0; rep < REPEATS; rep++) {
      if (have_pool) {
        gchar *why = NULL;
        have_pool = run_pipeline (
            &spec, NULL, &bytes_region, seconds, &runs[COL_POOL][rep], &why);
        if (!have_pool && no_pool == NULL) {
          no_pool = why;
          g_print ("  (no pool source: %s)\n", why);
        } else {
          g_free (why);
        }
      }
      run_pipeline (&spec, recycled, &bytes_region, seconds,
          &runs[COL_RECYCLED][rep], NULL);
      run_pipeline (
          &spec, fresh, &bytes_region, seconds, &runs[COL_FRESH][rep], NULL);
    }
    for (guint c = 0; c < N_COLS; c++) {
      if (c == COL_POOL && !have_pool)
        continue;
      Measure sorted[REPEATS];
      memcpy (sorted, runs[c], sizeof sorted);
      qsort (sorted, REPEATS, sizeof sorted[0], by_gbps);
      cells[i][c].have = TRUE;
      cells[i][c].m = sorted[REPEATS / 2];
      gdouble ceiling = c == COL_POOL ? pinned[i] : pageable[i];
      print_measure (label, col_names[c], runs[c], &cells[i][c].m, ceiling,
          c == COL_POOL ? "pinned" : "pageable");
      csv_row ("pipeline", col_names[c], bytes, cells[i][c].m.gbps,
          cells[i][c].m.buffers_per_s, ceiling, cells[i][c].m.gbps / ceiling);
    }
    source_free (recycled);
    source_free (fresh);
  }

  /* The same 4 KiB pool run, one buffer in flight. */
  Cell depth1 = { 0 };
  if (have_depth && cells[0][COL_POOL].have) {
    const guint queue = CLAMP (MIB / u8_sizes[0], 2, 16);
    RunSpec spec = {
      .element = "cudareduce name=r monoid=sum",
      .caps = u8_caps,
      .bytes = u8_sizes[0],
      .elements = u8_sizes[0],
      .frames = u8_sizes[0],
      .depth = 1,
      .result_name = "cudareduce",
      .check = TRUE,
      .check_sum = TRUE,
      .queue_buffers = queue,
      .pool_buffers = 1 + queue + 3,
    };
    Measure runs[REPEATS] = { 0 };
    for (guint rep = 0; rep < REPEATS; rep++) {
      gchar *why = NULL;
      if (!run_pipeline (&spec, NULL, &bytes_region, seconds, &runs[rep], &why))
        fail ("the pool went away at async-depth=1: %s", why);
    }
    Measure sorted[REPEATS];
    memcpy (sorted, runs, sizeof sorted);
    qsort (sorted, REPEATS, sizeof sorted[0], by_gbps);
    depth1.have = TRUE;
    depth1.m = sorted[REPEATS / 2];
    print_measure (
        "4 KiB", "pool-depth1", runs, &depth1.m, pinned[0], "pinned");
    csv_row ("pipeline", "pool-depth1", u8_sizes[0], depth1.m.gbps,
        depth1.m.buffers_per_s, pinned[0], depth1.m.gbps / pinned[0]);
  }
  gst_caps_unref (caps);

  /* level against cudareduce monoid=sumsq on F32LE stereo. */
  Cell level_cells[G_N_ELEMENTS (level_sizes)][2] = { 0 };
  if (level == NULL) {
    g_print ("\nlevel: no such element (gst-plugins-good is not installed); "
             "the level comparison is left out\n");
  } else {
    Region float_region;
    region_init (&float_region, MAX (4 * level_sizes[n_level - 1], 64 * MIB),
        TRUE, 0xD1B54A32D192ED03ull);
    caps = gst_caps_from_string (f32_caps);
    g_print ("\nlevel against cudareduce monoid=sumsq on F32LE stereo, from "
             "a system-recycled pool:\n");
    for (guint i = 0; i < n_level; i++) {
      const gsize bytes = level_sizes[i];
      g_autofree gchar *label = size_label (bytes);
      const guint queue = CLAMP (MIB / bytes, 2, 16);
      const guint64 frames = bytes / 8;
      g_autofree gchar *level_desc = g_strdup_printf (
          "level name=r post-messages=true interval=%" G_GUINT64_FORMAT,
          gst_util_uint64_scale_ceil (frames, GST_SECOND, RATE));
      RunSpec specs[2] = {
        {
            .element = level_desc,
            .caps = f32_caps,
            .bytes = bytes,
            .elements = bytes / 4,
            .frames = frames,
            .depth = -1,
            .result_name = "level",
            .queue_buffers = queue,
        },
        {
            .element = "cudareduce name=r monoid=sumsq",
            .caps = f32_caps,
            .bytes = bytes,
            .elements = bytes / 4,
            .frames = frames,
            .depth = -1,
            .result_name = "cudareduce",
            .check = TRUE,
            .queue_buffers = queue,
        },
      };
      const guint count = MAX (depth, 1) + queue + 3;
      Source *recycled =
          source_new_recycled (&float_region, caps, bytes, count);
      Measure runs[2][REPEATS] = { 0 };
      for (guint rep = 0; rep < REPEATS; rep++)
        for (guint c = 0; c < 2; c++)
          run_pipeline (
              &specs[c], recycled, &float_region, seconds, &runs[c][rep], NULL);
      source_free (recycled);
      for (guint c = 0; c < 2; c++) {
        Measure sorted[REPEATS];
        memcpy (sorted, runs[c], sizeof sorted);
        qsort (sorted, REPEATS, sizeof sorted[0], by_gbps);
        level_cells[i][c].have = TRUE;
        level_cells[i][c].m = sorted[REPEATS / 2];
      }
      const Measure *lm = &level_cells[i][0].m, *cm = &level_cells[i][1].m;
      print_measure (label, "level", runs[0], lm, NAN, NULL);
      /* One message per buffer, and one more at EOS. */
      if (lm->results != lm->pushed && lm->results != lm->pushed + 1)
        g_print ("          (level posted %" G_GUINT64_FORMAT
                 " messages for %" G_GUINT64_FORMAT " buffers)\n",
            lm->results, lm->pushed);
      print_measure (label, "cudareduce-sumsq", runs[1], cm, NAN, NULL);
      g_print ("          cudareduce/level: %.2f\n", cm->gbps / lm->gbps);
      csv_row ("level", "level", bytes, lm->gbps, lm->buffers_per_s, NAN, NAN);
      csv_row ("level", "cudareduce-sumsq", bytes, cm->gbps, cm->buffers_per_s,
          NAN, cm->gbps / lm->gbps);
    }
    gst_caps_unref (caps);
    free (float_region.data);
    gst_object_unref (level);
  }

  /* The summary. */
  g_print ("\nSummary (GB/s; ratios to the pinned / pageable copy ceilings)\n"
           "%8s | %8s %8s %6s | %8s %8s %8s %6s %6s\n",
      "size", "pool", "pinned", "ratio", "recycled", "fresh", "pageable",
      "ratio", "ratio");
  for (guint i = 0; i < n_sizes; i++) {
    g_autofree gchar *label = size_label (u8_sizes[i]);
    gchar pool[16] = "-", ratio[16] = "-";
    if (cells[i][COL_POOL].have) {
      g_snprintf (pool, sizeof pool, "%.3f", cells[i][COL_POOL].m.gbps);
      g_snprintf (
          ratio, sizeof ratio, "%.2f", cells[i][COL_POOL].m.gbps / pinned[i]);
    }
    g_print ("%8s | %8s %8.3f %6s | %8.3f %8.3f %8.3f %6.2f %6.2f\n", label,
        pool, pinned[i], ratio, cells[i][COL_RECYCLED].m.gbps,
        cells[i][COL_FRESH].m.gbps, pageable[i],
        cells[i][COL_RECYCLED].m.gbps / pageable[i],
        cells[i][COL_FRESH].m.gbps / pageable[i]);
  }
  g_print ("Buffers/s at 4 KiB:");
  if (cells[0][COL_POOL].have)
    g_print (" pool %.0f,", cells[0][COL_POOL].m.buffers_per_s);
  if (depth1.have)
    g_print (" pool-depth1 %.0f,", depth1.m.buffers_per_s);
  g_print (" system-recycled %.0f, system-fresh %.0f\n",
      cells[0][COL_RECYCLED].m.buffers_per_s,
      cells[0][COL_FRESH].m.buffers_per_s);
  if (no_pool)
    g_print ("No pool column: %s\n", no_pool);
  if (have_level) {
    g_print ("cudareduce sumsq / level (F32LE stereo):");
    for (guint i = 0; i < n_level; i++) {
      g_autofree gchar *label = size_label (level_sizes[i]);
      g_print ("%s %s %.2f", i ? "," : "", label,
          level_cells[i][1].m.gbps / level_cells[i][0].m.gbps);
    }
    g_print ("\n");
  }
  if (csv_path)
    g_print ("Table: %s\n", csv_path);

  if (csv)
    fclose (csv);
  g_free (no_pool);
  g_free (bytes_region.prefix);
  free (bytes_region.data);
  g_free (expected);
  g_free (arrival);
  return 0;
}
