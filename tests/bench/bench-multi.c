/* bench-multi.c: N cudareduce elements on N GPUs of one host, each on a
 * stream of data of its own, as aggregate GB/s.
 *
 *   bench-multi [--csv FILE] [--seconds S] [--max-gpus N]
 *
 * For N = 1 to the number of GPUs (at most --max-gpus), N pipelines run at
 * once, the k-th on GPU k:
 *
 *   appsrc ! cudareduce monoid=sum cuda-device-id=k ! fakesink sync=false
 *
 * N pipelines rather than one with N branches: that is what an application
 * with a pipeline per camera or file has, each with its own bus, state and
 * clock; an error or a stall names its GPU, and no stream waits on
 * another's preroll or shares a bus's lock with N streaming threads.
 *
 * Host memory: GRAY8 frames of 2048x2048 (4 MiB) and 8192x8192 (64 MiB)
 * from the pool each element proposes (pinned host memory the GPU reads in
 * place), filled once from pseudo-random bytes (bench-sources.c). GPU
 * memory: 8 NV12 frames of 1920x1080 and 3840x2160 made on each GPU by
 * videotestsrc pattern=snow ! cudaupload cuda-device-id=k ! appsink and
 * pushed again and again (new timestamps, the same GPU memory) into
 * pipeline k, in the CUDA context that made them (bench-frames.c); skipped,
 * saying why, without CUDA memory in cudareduce or without cudaupload.
 *
 * Timing. Each pipeline has an application thread. The pipelines are
 * started one after another, each negotiated (its kernel built) before any
 * buffer; each thread pushes its warm-up (16 buffers, or two rounds of its
 * pool or frames if more) and waits for their results; then all start
 * together (StartGate, bench-ceilings.h), push for --seconds and send EOS.
 * Aggregate GB/s: the bytes of all timed buffers over the time from that
 * common start to the last result of any pipeline (1 GB = 10^9 bytes).
 * Scaling: aggregate(N) / aggregate(1). Median of 3 runs. Each result is
 * checked as it is posted: timestamp (none lost, duplicated or reordered),
 * count and sum (host frames: from the bytes filled; GPU frames: each read
 * back once, where it maps); one per buffer. Anything wrong fails.
 *
 * Ceilings, measured first in contexts of the benchmark's own, closed
 * before any pipeline runs: cuMemcpyHtoDAsync from pinned memory of each
 * host frame's bytes on N GPUs at once (where the host's bus or memory
 * limits), and cuMemcpyDtoDAsync of each GPU frame's bytes within each of N
 * GPUs at once; aggregate GB/s.
 *
 * CSV (--csv), bench-pipeline's columns: kind=multi (host frames) or
 * multi-cuda (GPU frames), source FORMAT-WxH-gpusN, bytes a frame, gbps and
 * buffers_per_s aggregate, ceiling_gbps the copies on N GPUs (pinned to
 * device, or device to device), ratio = gbps / ceiling_gbps; kind=
 * multi-ceiling, source pinned-gpusN or device-gpusN, bytes a copy, gbps
 * aggregate, buffers_per_s copies per second. Exits 77 without a GPU,
 * unless CUDAREDUCE_REQUIRE_GPU=1. */
#include "bench-ceilings.h"
#include "bench-frames.h"
#include "bench-sources.h"
#include "cr-reducer.h"

#include <gst/app/gstappsrc.h>
#include <math.h>
#include <string.h>

#define QUEUE_BUFFERS 4 /* appsrc's max-bytes, in buffers */
#define POOL_BUFFERS (8 + 4 + 3) /* as bench-video's */
#define WARMUP_MIN 16
#define TIMED_MIN 8
#define FRAME_DURATION (GST_SECOND / 30)
/* A part scales while N GPUs give at least this much of N times one's. */
#define SCALING_FLOOR 0.9
#define TARGET_TWO_GPUS 1.9 /* from GPU memory */

typedef struct {
  const gchar *format; /* GRAY8 in host memory, NV12 in GPU memory */
  gint width, height;
  gsize bytes; /* a frame's, and its count: one byte a sample */
} FrameCase;

static const FrameCase host_cases[] = {
  { "GRAY8", 2048, 2048, (gsize)2048 * 2048 },
  { "GRAY8", 8192, 8192, (gsize)8192 * 8192 },
};
static const FrameCase cuda_cases[] = {
  { "NV12", 1920, 1080, FRAME_BYTES (1920, 1080) },
  { "NV12", 3840, 2160, FRAME_BYTES (3840, 2160) },
};
#define N_CASES 2

/* One pipeline on one GPU, its push thread, and what its results must
 * be. */
typedef struct {
  guint gpu;
  gsize bytes;
  Source *pool; /* host frames: the element's pool */
  const CudaFrames *frames; /* or frames in the GPU's memory */
  const guint64 *frame_sums; /* their sums, or NULL: not checked */
  StartGate *gate;
  gdouble seconds;
  GstElement *pipeline;
  GstElement *appsrc;
  GstBus *bus;
  GThread *thread;
  guint64 warmup;
  guint64 pushed; /* the push thread's; read after it ends */

  /* Between the push thread and the bus handler */
  GMutex lock;
  GCond result_came;
  GArray *sums; /* of each buffer pushed; G_MAXUINT64 is not checked */
  guint64 results;
  gint64 last; /* monotonic microseconds of the latest result */
} Stream;

static GstBusSyncReply
on_message (GstBus *bus, GstMessage *msg, gpointer data)
{
  Stream *st = data;
  const GstStructure *s = gst_message_get_structure (msg);
  guint64 ts = 0, count = 0, sum = 0;

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *e = NULL;
    gchar *dbg = NULL;
    gst_message_parse_error (msg, &e, &dbg);
    fail ("GPU %u: ERROR from %s: %s (%s)", st->gpu, GST_MESSAGE_SRC_NAME (msg),
        e->message, dbg ? dbg : "");
  }
  if (GST_MESSAGE_TYPE (msg) != GST_MESSAGE_ELEMENT || s == NULL
      || !gst_structure_has_name (s, "cudareduce"))
    return GST_BUS_PASS;
  const gint64 now = g_get_monotonic_time ();
  g_mutex_lock (&st->lock);
  const guint64 k = st->results++;
  const guint64 want =
      k < st->sums->len ? g_array_index (st->sums, guint64, k) : G_MAXUINT64;
  st->last = now;
  g_cond_broadcast (&st->result_came);
  g_mutex_unlock (&st->lock);
  if (!gst_structure_get_uint64 (s, "timestamp", &ts)
      || ts != k * FRAME_DURATION)
    fail ("GPU %u: result %" G_GUINT64_FORMAT
          " has timestamp %" G_GUINT64_FORMAT ", not %" G_GUINT64_FORMAT
          " (a result lost, duplicated or out of "
          "order)",
        st->gpu, k, ts, k * FRAME_DURATION);
  if (!gst_structure_get_uint64 (s, "count", &count) || count != st->bytes)
    fail ("GPU %u: result %" G_GUINT64_FORMAT " has count %" G_GUINT64_FORMAT
          ", not %" G_GSIZE_FORMAT,
        st->gpu, k, count, st->bytes);
  if (want != G_MAXUINT64
      && (!gst_structure_get_uint64 (s, "sum", &sum) || sum != want))
    fail ("GPU %u: result %" G_GUINT64_FORMAT " has sum %" G_GUINT64_FORMAT
          ", not %" G_GUINT64_FORMAT,
        st->gpu, k, sum, want);
  gst_message_unref (msg);
  return GST_BUS_DROP;
}

static void
push_one (Stream *st, guint64 seq)
{
  guint64 sum = G_MAXUINT64;
  GstBuffer *buf;

  if (st->pool) {
    if ((buf = source_next (st->pool, &sum)) == NULL)
      fail ("GPU %u: the pool gave no buffer", st->gpu);
  } else {
    const guint k = seq % st->frames->frames->len;
    buf = gst_buffer_copy (g_ptr_array_index (st->frames->frames, k));
    if (st->frame_sums)
      sum = st->frame_sums[k];
  }
  GST_BUFFER_PTS (buf) = seq * FRAME_DURATION;
  GST_BUFFER_DTS (buf) = GST_CLOCK_TIME_NONE;
  GST_BUFFER_DURATION (buf) = FRAME_DURATION;
  g_mutex_lock (&st->lock);
  g_array_append_val (st->sums, sum);
  g_mutex_unlock (&st->lock);
  GstFlowReturn flow = gst_app_src_push_buffer (GST_APP_SRC (st->appsrc), buf);
  if (flow != GST_FLOW_OK)
    fail ("GPU %u: pushing returned %s", st->gpu, gst_flow_get_name (flow));
}

static gpointer
push_thread (gpointer data)
{
  Stream *st = data;
  guint64 seq = 0;

  for (; seq < st->warmup; seq++)
    push_one (st, seq);
  /* Every pipeline empty at the common start. */
  const gint64 limit = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
  g_mutex_lock (&st->lock);
  while (st->results < st->warmup)
    if (!g_cond_wait_until (&st->result_came, &st->lock, limit)
        && st->results < st->warmup)
      fail ("GPU %u: %" G_GUINT64_FORMAT " results of %" G_GUINT64_FORMAT
            " warm-up buffers after 60 s",
          st->gpu, st->results, st->warmup);
  g_mutex_unlock (&st->lock);
  if (st->pool)
    st->pool->in_run = TRUE;
  const gint64 until =
      start_gate_wait (st->gate) + (gint64)(st->seconds * G_USEC_PER_SEC);
  while (seq - st->warmup < TIMED_MIN || g_get_monotonic_time () < until)
    push_one (st, seq++);
  st->pushed = seq;
  gst_app_src_end_of_stream (GST_APP_SRC (st->appsrc));
  return NULL;
}

/* Builds and starts the pipeline on GPU @gpu, for frames of
 * @caps_string: @frames in GPU memory, or with @frames NULL host frames
 * from the element's pool, filled from @region. */
static void
stream_start (Stream *st, guint gpu, const gchar *caps_string, gsize bytes,
    const CudaFrames *frames, const guint64 *frame_sums, const Region *region)
{
  g_autofree gchar *desc = g_strdup_printf (
      "appsrc name=src ! cudareduce name=r monoid=sum cuda-device-id=%u ! "
      "fakesink sync=false enable-last-sample=false",
      gpu);
  GstCaps *caps = gst_caps_from_string (caps_string);

  st->gpu = gpu;
  st->bytes = bytes;
  st->frames = frames;
  st->frame_sums = frame_sums;
  st->sums = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_mutex_init (&st->lock);
  g_cond_init (&st->result_came);
  st->pipeline = pipeline_launch (desc);
  st->appsrc = gst_bin_get_by_name (GST_BIN (st->pipeline), "src");
  g_object_set (st->appsrc, "caps", caps, "format", GST_FORMAT_TIME, "block",
      TRUE, "max-bytes", (guint64)QUEUE_BUFFERS * bytes, NULL);
  gst_caps_unref (caps);
  if (frames)
    gst_element_set_context (st->pipeline, frames->context);
  st->bus = gst_element_get_bus (st->pipeline);
  /* An ERROR fails the benchmark there, with its message. */
  gst_bus_set_sync_handler (st->bus, on_message, st, NULL);
  if (gst_element_set_state (st->pipeline, GST_STATE_PLAYING)
      == GST_STATE_CHANGE_FAILURE)
    fail ("GPU %u: cannot start \"%s\"", gpu, desc);

  /* Negotiated (and the kernel built) before the first buffer: caps flow
   * from appsrc as it starts. An appsrc user asks for a pool only then. */
  GstElement *r = gst_bin_get_by_name (GST_BIN (st->pipeline), "r");
  GstPad *sink = gst_element_get_static_pad (r, "sink");
  const gint64 limit = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
  while (!gst_pad_has_current_caps (sink)) {
    if (g_get_monotonic_time () > limit)
      fail ("GPU %u: no caps reached cudareduce in 60 s", gpu);
    g_usleep (1000);
  }
  gst_object_unref (sink);
  gst_object_unref (r);
  if (frames == NULL) {
    g_autofree gchar *why = NULL;
    st->pool = source_from_query (
        st->appsrc, caps_string, bytes, POOL_BUFFERS, region, &why);
    if (st->pool == NULL)
      fail ("GPU %u: no pool from cudareduce: %s", gpu, why);
  }
  st->warmup = MAX (WARMUP_MIN,
      2 * (guint64)(frames ? frames->frames->len : st->pool->filled));
}

/* Waits for EOS and checks that every buffer had its result. */
static void
stream_finish (Stream *st, gint64 limit)
{
  GstMessage *msg = gst_bus_timed_pop_filtered (st->bus,
      MAX (limit - g_get_monotonic_time (), 0) * GST_USECOND, GST_MESSAGE_EOS);
  if (msg == NULL) {
    g_mutex_lock (&st->lock);
    fail ("GPU %u: stalled, no EOS (%" G_GUINT64_FORMAT " results)", st->gpu,
        st->results);
  }
  gst_message_unref (msg);
  g_thread_join (st->thread);
  if (st->results != st->pushed)
    fail ("GPU %u: %" G_GUINT64_FORMAT " results for %" G_GUINT64_FORMAT
          " buffers",
        st->gpu, st->results, st->pushed);
  if (st->pool && st->pool->grown)
    g_print ("  (note: GPU %u's pool grew by %u buffers during the run)\n",
        st->gpu, st->pool->grown);
}

static void
stream_clear (Stream *st)
{
  gst_element_set_state (st->pipeline, GST_STATE_NULL);
  gst_bus_set_sync_handler (st->bus, NULL, NULL, NULL);
  if (st->pool)
    source_free (st->pool);
  gst_object_unref (st->bus);
  gst_object_unref (st->appsrc);
  gst_object_unref (st->pipeline);
  g_array_unref (st->sums);
  g_mutex_clear (&st->lock);
  g_cond_clear (&st->result_came);
}

/* Aggregate GB/s of @n pipelines at once, the k-th on GPU k; @frames and
 * @frame_sums indexed by GPU, or NULL for host frames. Buffers/s are
 * GB/s * 10^9 / c->bytes. */
static gdouble
run_streams (const FrameCase *c, guint n, const CudaFrames *frames,
    guint64 *const *frame_sums, const Region *region, gdouble seconds)
{
  g_autofree gchar *host_caps = g_strdup_printf (
      "video/x-raw,format=%s,width=%d,height=%d,framerate=30/1", c->format,
      c->width, c->height);
  Stream *streams = g_new0 (Stream, n);
  StartGate gate;
  guint64 timed = 0;

  start_gate_init (&gate, n);
  for (guint k = 0; k < n; k++) {
    streams[k].gate = &gate;
    streams[k].seconds = seconds;
    stream_start (&streams[k], k, frames ? frames[k].caps : host_caps, c->bytes,
        frames ? &frames[k] : NULL, frames ? frame_sums[k] : NULL, region);
  }
  for (guint k = 0; k < n; k++)
    streams[k].thread = g_thread_new ("push", push_thread, &streams[k]);
  /* Beyond any plausible warm-up or run: a stall. */
  const gint64 stall = (gint64)((60 + 10 * (seconds + 1)) * G_USEC_PER_SEC);
  const gint64 start = start_gate_open (&gate, g_get_monotonic_time () + stall);
  if (start == 0)
    fail ("%s %dx%d on %u GPUs: the warm-ups did not end in %.0f s (a "
          "pipeline stalled)",
        c->format, c->width, c->height, n, stall / 1e6);
  gint64 end = start;
  for (guint k = 0; k < n; k++) {
    stream_finish (&streams[k], start + stall);
    timed += streams[k].pushed - streams[k].warmup;
    end = MAX (end, streams[k].last);
  }
  /* Only then, so that no pipeline's teardown slows another's end. */
  for (guint k = 0; k < n; k++)
    stream_clear (&streams[k]);
  start_gate_clear (&gate);
  g_free (streams);
  return (gdouble)timed * c->bytes / (MAX (end - start, 1) * 1e3);
}

/* Where host frames stop scaling, and whether the host is why: the first N
 * at which the concurrent pinned copies, and the element, give less than
 * SCALING_FLOOR of N times one GPU's. */
static void
print_host_limit (guint n_max, const gdouble *gbps, const gdouble *ceiling)
{
  guint copies = 0, element = 0;

  for (guint n = n_max; n >= 2; n--) {
    if (ceiling[n - 1] < SCALING_FLOOR * n * ceiling[0])
      copies = n;
    if (gbps[n - 1] < SCALING_FLOOR * n * gbps[0])
      element = n;
  }
  if (copies)
    g_print ("    host limit: from %u GPUs, pinned copies at once reach "
             "%.1f GB/s, %.2fx one GPU's: the host's bus or memory bandwidth "
             "limits there (the element: %.1f GB/s, %.2fx)\n",
        copies, ceiling[copies - 1], ceiling[copies - 1] / ceiling[0],
        gbps[copies - 1], gbps[copies - 1] / gbps[0]);
  if (element && (copies == 0 || element < copies))
    g_print ("    the element stops scaling from %u GPUs (%.2fx), before the "
             "copies do: not the host's limit\n",
        element, gbps[element - 1] / gbps[0]);
  if (copies == 0 && element == 0 && n_max >= 2)
    g_print ("    host limit: not reached with %u GPUs (copies %.2fx, the "
             "element %.2fx one GPU's)\n",
        n_max, ceiling[n_max - 1] / ceiling[0], gbps[n_max - 1] / gbps[0]);
}

/* N = 1 to @n_max of one case; @ceiling[N - 1] the concurrent copy. */
static void
measure_case (const FrameCase *c, guint n_max, const gdouble *ceiling,
    const CudaFrames *frames, guint64 *const *frame_sums, const Region *region,
    gdouble seconds)
{
  gdouble *gbps = g_new (gdouble, n_max);

  g_print ("  %s %dx%d (%" G_GSIZE_FORMAT " bytes a frame):\n", c->format,
      c->width, c->height, c->bytes);
  for (guint n = 1; n <= n_max; n++) {
    gdouble runs[REPEATS];
    for (guint rep = 0; rep < REPEATS; rep++)
      runs[rep] = run_streams (c, n, frames, frame_sums, region, seconds);
    const gdouble m = median (runs, REPEATS), copy = ceiling[n - 1];
    g_autofree gchar *label =
        g_strdup_printf ("%s-%dx%d-gpus%u", c->format, c->width, c->height, n);
    gbps[n - 1] = m;
    g_print ("    %u GPU%s %10.1f frames/s %8.2f GB/s  scaling %5.2f  %s "
             "copy %8.2f GB/s (%5.2fx)  ratio %.2f\n",
        n, n == 1 ? " " : "s", m * 1e9 / c->bytes, m, m / gbps[0],
        frames ? "device" : "pinned", copy, copy / ceiling[0], m / copy);
    csv_row (frames ? "multi-cuda" : "multi", label, c->bytes, m,
        m * 1e9 / c->bytes, copy, m / copy);
  }
  if (frames && n_max >= 2)
    g_print ("    target: 2 GPUs at least %.1fx one: %.2fx, %s\n",
        TARGET_TWO_GPUS, gbps[1] / gbps[0],
        gbps[1] >= TARGET_TWO_GPUS * gbps[0] ? "met" : "MISSED");
  if (frames == NULL)
    print_host_limit (n_max, gbps, ceiling);
  g_free (gbps);
}

/* Copies of every case's bytes on N = 1 to @n_max GPUs at once, into
 * @gbps[case * n_max + N - 1]. */
static void
measure_ceilings_multi (
    CopyKind kind, const FrameCase *cases, guint n_max, gdouble *gbps)
{
  const gchar *name = kind == COPY_PINNED_TO_DEVICE ? "pinned" : "device";
  gsize sizes[N_CASES];
  gdouble got[N_CASES];
  g_autoptr (GError) error = NULL;

  for (guint i = 0; i < N_CASES; i++)
    sizes[i] = cases[i].bytes;
  for (guint n = 1; n <= n_max; n++) {
    if (!measure_concurrent_copies (kind, n, sizes, N_CASES, got, &error))
      fail ("%s copies on %u GPUs: %s", name, n, error->message);
    for (guint i = 0; i < N_CASES; i++) {
      g_autofree gchar *source = g_strdup_printf ("%s-gpus%u", name, n);
      gbps[i * n_max + n - 1] = got[i];
      csv_row ("multi-ceiling", source, sizes[i], got[i],
          got[i] * 1e9 / sizes[i], NAN, NAN);
    }
  }
  for (guint i = 0; i < N_CASES; i++) {
    g_print ("  %s, %s %dx%d:", name, cases[i].format, cases[i].width,
        cases[i].height);
    for (guint n = 1; n <= n_max; n++)
      g_print ("  %u: %.1f", n, gbps[i * n_max + n - 1]);
    g_print ("\n");
  }
}

/* Frames in GPU memory, unless @why; @ceiling[case * n_max + N - 1] the
 * concurrent device copies. */
static void
measure_cuda (
    guint n_max, const gchar *why, const gdouble *ceiling, gdouble seconds)
{
  g_print ("\nFrames in GPU memory (NV12 from cudaupload on each GPU), "
           "monoid=sum, aggregate over N GPUs:\n");
  if (why) {
    g_print ("  skipped: %s\n", why);
    return;
  }
  for (guint i = 0; i < N_CASES; i++) {
    const FrameCase *c = &cuda_cases[i];
    CudaFrames *frames = g_new0 (CudaFrames, n_max);
    guint64 **sums = g_new0 (guint64 *, n_max);
    for (guint k = 0; k < n_max; k++) {
      if (!cuda_frames_make (&frames[k], c->width, c->height, (gint)k))
        fail ("no frames in CUDA memory from cudaupload cuda-device-id=%u", k);
      const gint gpu = cuda_frames_gpu (&frames[k]);
      if (gpu >= 0 && gpu != (gint)k)
        fail ("cudaupload cuda-device-id=%u made its frames on GPU %d", k, gpu);
      if ((sums[k] = cuda_frames_sums (&frames[k])) == NULL)
        g_print ("  (GPU %u's frames do not map; sums not checked)\n", k);
    }
    measure_case (c, n_max, &ceiling[i * n_max], frames, sums, NULL, seconds);
    for (guint k = 0; k < n_max; k++) {
      cuda_frames_clear (&frames[k]);
      g_free (sums[k]);
    }
    g_free (sums);
    g_free (frames);
  }
}

int
main (int argc, char **argv)
{
  /* Kernels as a pipeline runs them for good: no fast compile first
   * (GST_CUDAREDUCE_FAST_START, docs/element.md), unless asked for. */
  g_setenv ("GST_CUDAREDUCE_FAST_START", "0", FALSE);
  const gchar *csv_path = NULL;
  gdouble seconds = 1.0;
  guint max_gpus = G_MAXUINT;
  int count = 0;
  g_autoptr (GError) error = NULL;

  gst_init (&argc, &argv);
  for (int k = 1; k < argc; k++) {
    if (strcmp (argv[k], "--csv") == 0 && k + 1 < argc)
      csv_path = argv[++k];
    else if (strcmp (argv[k], "--seconds") == 0 && k + 1 < argc)
      seconds = g_ascii_strtod (argv[++k], NULL);
    else if (strcmp (argv[k], "--max-gpus") == 0 && k + 1 < argc) {
      max_gpus = (guint)g_ascii_strtoull (argv[++k], NULL, 10);
      max_gpus = MAX (max_gpus, 1);
    } else {
      g_printerr (
          "usage: %s [--csv FILE] [--seconds S] [--max-gpus N]\n", argv[0]);
      return 2;
    }
  }
  const CrDriver *cu = cr_cuda_driver (&error);
  if (cu == NULL)
    skip_or_fail ("CUDAREDUCE_REQUIRE_GPU", "no GPU", error);
  cu->DeviceGetCount (&count);
  const guint n_max = MIN ((guint)MAX (count, 1), max_gpus);
  g_autoptr (GString) names = g_string_new (NULL);
  for (guint k = 0; k < n_max; k++) {
    g_autoptr (CrDevice) device = cr_device_open ((gint)k, &error);
    if (device == NULL && k == 0) /* it says why there is none */
      skip_or_fail ("CUDAREDUCE_REQUIRE_GPU", "no GPU", error);
    if (device == NULL)
      fail ("GPU %u: %s", k, error->message);
    g_string_append_printf (names, " %u %s (sm_%d);", k,
        cr_device_name (device), cr_device_arch (device));
  }
  g_print ("GPUs: %u of %d:%s %.2f s per run, median of %d runs\n", n_max,
      count, names->str, seconds, REPEATS);
  if (cr_cuda_nvrtc (&error) == NULL)
    skip_or_fail ("CUDAREDUCE_REQUIRE_NVRTC", "no NVRTC", error);
  GstElement *probe = gst_element_factory_make ("cudareduce", NULL);
  if (probe == NULL)
    fail ("there is no cudareduce element; run through Meson (meson test "
          "--benchmark) or point GST_PLUGIN_PATH at build/plugin");
  gst_object_unref (probe);
  if (csv_path)
    csv_open (csv_path);

  /* The ceilings first, in contexts of their own, closed before any
   * pipeline runs. */
  const gchar *cuda_why = cuda_frames_unavailable ();
  gdouble *pinned = g_new (gdouble, N_CASES * n_max);
  gdouble *device = g_new (gdouble, N_CASES * n_max);
  g_print ("\nCopies on N GPUs at once, aggregate GB/s (N: GB/s):\n");
  measure_ceilings_multi (COPY_PINNED_TO_DEVICE, host_cases, n_max, pinned);
  if (cuda_why == NULL)
    measure_ceilings_multi (COPY_DEVICE_TO_DEVICE, cuda_cases, n_max, device);

  /* The pools' frames are filled from this, once: four of the largest. */
  Region region;
  region_init (
      &region, 4 * host_cases[N_CASES - 1].bytes, FALSE, 0x2545F4914F6CDD1Dull);
  g_print ("\nHost frames from each cudareduce's pool, monoid=sum, "
           "aggregate over N GPUs:\n");
  for (guint i = 0; i < N_CASES; i++)
    measure_case (&host_cases[i], n_max, &pinned[i * n_max], NULL, NULL,
        &region, seconds);
  region_clear (&region);

  measure_cuda (n_max, cuda_why, device, seconds);
  g_free (pinned);
  g_free (device);
  csv_close ();
  if (csv_path)
    g_print ("Table: %s\n", csv_path);
  return 0;
}
