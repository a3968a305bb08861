/* bench-regions.c: results per region of a 1080p NV12 frame in GPU memory
 * against one whole-frame reduction of the same frame, in the same run.
 *
 * Each frame is reduced as the element reduces it (mean_var over every
 * sample): whole, the luma plane then the chroma plane, the chroma's
 * launch carrying the luma's state; or over N regions of S x S pixels
 * tiled from the top left corner, a launch a plane, or both planes in one
 * launch (as the element reads them without per-channel). A frame's time is from the
 * first submission to the end of the wait for its last job, on the host
 * (what a frame costs the element), and the GPU's time between events
 * around the two launches, as the host feeds them (the GPU waits while the
 * host prepares each launch) and queued (the stream held by a gate kernel
 * until every launch of the frame is queued, so that the time is the
 * GPU's work alone); medians over the frames, the kinds interleaved so
 * that clocks and neighbours weigh on all alike. Every regions result is
 * checked against the host's count of its samples.
 *
 *   bench-regions [--csv FILE] [--frames N] */
#include "cr-compiler.h"
#include "cr-job.h"
#include "cr-monoid-names.h"
#include "cr-reducer-regions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH 1920
#define HEIGHT 1080

static void
die (const gchar *what, const GError *error)
{
  g_printerr ("bench-regions: %s: %s\n", what, error ? error->message : "");
  exit (1);
}

static gint
compare_doubles (gconstpointer a, gconstpointer b)
{
  const gdouble x = *(const gdouble *)a, y = *(const gdouble *)b;
  return x < y ? -1 : x > y;
}

static gdouble
median (GArray *values)
{
  g_array_sort (values, compare_doubles);
  return g_array_index (values, gdouble, values->len / 2);
}

typedef struct {
  CrDevice *device;
  CrReducer *reducer;
  CUevent start, end;
  guint8 ctx[16];
  CrRegion luma, chroma;
  /* The gate: a kernel spinning until the host sets the flag (pinned,
   * mapped). */
  CUmodule gate_module;
  CUfunction gate;
  volatile guint32 *flag;
  CUdeviceptr flag_device;
} Frame;

/* It gives up after about 0.1 s, saying so in the flag (2), should a
 * submission ever wait for the stream (a synchronizing call) while the
 * gate holds it. */
static const gchar gate_source[] =
    "extern \"C\" __global__ void gate (volatile unsigned int *flag)\n"
    "{\n"
    "  const long long t0 = clock64 ();\n"
    "  while (*flag == 0)\n"
    "    if (clock64 () - t0 > 200000000ll) {\n"
    "      *flag = 2;\n"
    "      return;\n"
    "    }\n"
    "}\n";

static void
gate_open (Frame *f)
{
  g_autoptr (GError) error = NULL;
  const CrDriver *cu = f->device->cu;
  g_autoptr (CrCompiled) image = cr_compile (gate_source,
      cr_device_arch (f->device), CR_COMPILE_NO_CACHE, NULL, &error);
  if (image == NULL)
    die ("compiling the gate", error);
  void *flag = NULL;
  cr_device_push (f->device, NULL);
  if (cu->ModuleLoadData (
          &f->gate_module, g_bytes_get_data (image->image, NULL))
          != CUDA_SUCCESS
      || cu->ModuleGetFunction (&f->gate, f->gate_module, "gate")
          != CUDA_SUCCESS
      || cu->MemHostAlloc (&flag, 64, CU_MEMHOSTALLOC_DEVICEMAP) != CUDA_SUCCESS
      || cu->MemHostGetDevicePointer (&f->flag_device, flag, 0) != CUDA_SUCCESS)
    die ("loading the gate", NULL);
  cr_device_pop (f->device);
  f->flag = flag;
}

/* Holds the stream until gate_release. */
static void
gate_hold (Frame *f)
{
  *f->flag = 0;
  void *params[] = { &f->flag_device };
  if (f->device->cu->LaunchKernel (f->gate, 1, 1, 1, 1, 1, 1, 0,
          cr_device_stream (f->device), params, NULL)
      != CUDA_SUCCESS)
    die ("launching the gate", NULL);
}

/* FALSE where the gate gave up before the release: the frame's GPU time
 * is then not its work alone. */
static gboolean
gate_release (Frame *f)
{
  guint32 held = 0;
  return __atomic_compare_exchange_n (
      f->flag, &held, 1, FALSE, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

/* How a frame is reduced: whole; over regions, a launch a plane (as the
 * element did before 2026-12-06, and still does per channel or with
 * bins); over regions, both planes in one launch (as it does now). */
typedef enum { WHOLE, A_LAUNCH_A_PLANE, ONE_LAUNCH, N_KINDS } Kind;
static const gchar *const kind_names[] = { "whole", "a launch a plane",
  "one launch" };

/* One frame, of @kind: over @n regions of luma @rects (chroma's are
 * @chroma_rects), @queued behind the gate. Returns the host's
 * microseconds, and the GPU's in @gpu_us. */
static gdouble
reduce_frame (Frame *f, Kind kind, const CrRect *rects,
    const CrRect *chroma_rects, guint n, gboolean queued, gdouble *gpu_us)
{
  g_autoptr (GError) error = NULL;
  const CrDriver *cu = f->device->cu;
  const CUstream stream = cr_device_stream (f->device);
  CrJob *jobs[2];

  const gint64 t0 = g_get_monotonic_time ();
  cr_device_push (f->device, NULL);
  if (queued)
    gate_hold (f);
  cu->EventRecord (f->start, stream);
  cr_device_pop (f->device);
  if (kind == ONE_LAUNCH) {
    /* Both planes in one launch, as the element reads them. */
    const CrRectsOptions both = { .emit = TRUE };
    const CrRegion planes[] = { f->luma, f->chroma };
    jobs[0] = NULL;
    jobs[1] = cr_reducer_submit_rects_planes (
        f->reducer, planes, 2, rects, n, &both, f->ctx, &error);
  } else if (kind == A_LAUNCH_A_PLANE) {
    const CrRectsOptions luma = { 0 };
    const CrRectsOptions chroma = { .carry = TRUE, .emit = TRUE };
    jobs[0] = cr_reducer_submit_rects (
        f->reducer, &f->luma, rects, n, &luma, f->ctx, &error);
    jobs[1] = jobs[0] ? cr_reducer_submit_rects (f->reducer, &f->chroma,
                  chroma_rects, n, &chroma, f->ctx, &error)
                      : NULL;
  } else {
    const CrSubmitOptions luma = { .discard_result = TRUE };
    const CrSubmitOptions chroma = {
      .carry = TRUE,
      .rows_before = (guint64)WIDTH * HEIGHT,
    };
    jobs[0] = cr_reducer_submit (f->reducer, &f->luma, f->ctx, &luma, &error);
    jobs[1] = jobs[0]
        ? cr_reducer_submit (f->reducer, &f->chroma, f->ctx, &chroma, &error)
        : NULL;
  }
  if (jobs[1] == NULL)
    die ("submitting", error);
  cr_device_push (f->device, NULL);
  cu->EventRecord (f->end, stream);
  cr_device_pop (f->device);
  if (queued && !gate_release (f))
    die ("the gate gave up: a submission waited for the stream it held", NULL);
  if (!cr_job_wait (jobs[1], &error))
    die ("waiting", error);
  const gint64 t1 = g_get_monotonic_time ();
  float ms = 0;
  cr_device_push (f->device, NULL);
  cu->EventSynchronize (f->end);
  cu->EventElapsedTime (&ms, f->start, f->end);
  cr_device_pop (f->device);
  *gpu_us = ms * 1000.0;
  if (kind != WHOLE) {
    /* Each region's count: its luma and chroma samples. */
    for (guint k = 0; k < n; k++) {
      guint64 count = 0;
      guint8 out[64];
      cr_job_read (jobs[1], k, out, &count);
      const guint64 want = rects[k].width * rects[k].lines
          + chroma_rects[k].width * chroma_rects[k].lines;
      if (count != want) {
        g_printerr ("bench-regions: region %u counts %" G_GUINT64_FORMAT
                    ", not %" G_GUINT64_FORMAT "\n",
            k, count, want);
        exit (1);
      }
    }
  }
  if (jobs[0])
    cr_job_unref (jobs[0]);
  cr_job_unref (jobs[1]);
  return (gdouble)(t1 - t0);
}

int
main (int argc, char **argv)
{
  /* Kernels as a pipeline runs them for good: no fast compile first
   * (GST_CUDAREDUCE_FAST_START, docs/element.md), unless asked for. */
  g_setenv ("GST_CUDAREDUCE_FAST_START", "0", FALSE);
  g_autoptr (GError) error = NULL;
  const gchar *csv_path = NULL;
  guint frames = 200;

  for (int k = 1; k < argc; k++) {
    if (strcmp (argv[k], "--csv") == 0 && k + 1 < argc)
      csv_path = argv[++k];
    else if (strcmp (argv[k], "--frames") == 0 && k + 1 < argc)
      frames = (guint)atoi (argv[++k]);
  }
  Frame f = { 0 };
  f.device = cr_device_open (-1, &error);
  if (f.device == NULL)
    die ("opening the GPU", error);
  g_autoptr (CrMonoid) monoid = cr_monoid_load ("mean_var", &error);
  g_autoptr (CrProgram) program = cr_program_new_with (
      monoid, CR_TYPE_UINT8, CR_KERNELS_PITCHED | CR_KERNELS_REGIONS);
  f.reducer = cr_reducer_new (f.device, program, NULL, &error);
  if (f.reducer == NULL)
    die ("compiling", error);

  /* The frame in GPU memory, lines padded as GStreamer's CUDA memory pads
   * them, of random bytes. */
  const CrDriver *cu = f.device->cu;
  const gsize stride = 2048, bytes = stride * HEIGHT * 3 / 2;
  CUdeviceptr frame;
  g_autofree guint8 *host = g_malloc (bytes);
  GRand *rand = g_rand_new_with_seed (1);
  for (gsize k = 0; k < bytes; k++)
    host[k] = (guint8)g_rand_int (rand);
  g_rand_free (rand);
  cr_device_push (f.device, NULL);
  if (cu->MemAlloc (&frame, bytes) != CUDA_SUCCESS
      || cu->MemcpyHtoDAsync (frame, host, bytes, cr_device_stream (f.device))
          != CUDA_SUCCESS
      || cu->EventCreate (&f.start, 0) != CUDA_SUCCESS
      || cu->EventCreate (&f.end, 0) != CUDA_SUCCESS) {
    g_printerr ("bench-regions: allocating the frame failed\n");
    return 1;
  }
  cu->StreamSynchronize (cr_device_stream (f.device));
  cr_device_pop (f.device);
  gate_open (&f);
  f.luma = (CrRegion){
    .row_bytes = WIDTH, .n_rows = HEIGHT, .stride = stride, .device = frame
  };
  f.chroma = (CrRegion){ .row_bytes = WIDTH,
    .n_rows = HEIGHT / 2,
    .stride = stride,
    .device = frame + stride * HEIGHT };

  static const struct {
    guint n, size;
  } cases[] = { { 256, 64 }, { 1024, 16 }, { 1, 1024 }, { 4096, 16 } };
  FILE *csv = csv_path ? fopen (csv_path, "w") : NULL;
  if (csv)
    fprintf (csv,
        "regions,size,frames,kind,host_us,host_ratio,gpu_us,"
        "gpu_ratio,queued_us,queued_ratio\n");
  g_print ("Medians of %u frames, us, and ratios to the whole frame's\n"
           "%8s %6s %-18s %8s %6s %8s %6s %8s %6s\n",
      frames, "regions", "size", "kind", "host", "ratio", "GPU", "ratio",
      "queued", "ratio");
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++) {
    const guint n = cases[c].n, size = cases[c].size;
    const guint per_line = WIDTH / size;
    /* The luma plane's rects, then the chroma plane's. */
    CrRect *rects = g_new0 (CrRect, 2 * n);
    CrRect *chroma = rects + n;
    for (guint k = 0; k < n; k++) {
      /* Tiles from the top left, wrapping within the frame. */
      const guint x = (k % per_line) * size;
      const guint y = (k / per_line) * size % (HEIGHT - size + 1);
      rects[k] = (CrRect){ x, y, size, size, 0, (guint64)size * size };
      /* NV12's chroma: half the lines, pixels of U and V as two rows. */
      chroma[k] = (CrRect){ x, y / 2, size, size / 2, (guint64)size * size,
        (guint64)size * size * 3 / 2 };
    }
    /* By kind: host, GPU as fed, GPU queued. */
    GArray *times[N_KINDS][3];
    for (guint i = 0; i < N_KINDS * 3; i++)
      times[i / 3][i % 3] = g_array_new (FALSE, FALSE, sizeof (gdouble));
    for (guint k = 0; k < frames + 10; k++) {
      /* The first frames make the reducer's buffers: unmeasured, and never
       * behind the gate, which a synchronizing allocation would wait on. */
      for (guint queued = 0; queued < (k >= 10 ? 2u : 1u); queued++)
        for (Kind kind = 0; kind < N_KINDS; kind++) {
          gdouble gpu,
              h = reduce_frame (&f, kind, rects, chroma, n, queued, &gpu);
          if (k < 10)
            continue;
          if (!queued)
            g_array_append_val (times[kind][0], h);
          g_array_append_val (times[kind][queued ? 2 : 1], gpu);
        }
    }
    gdouble m[N_KINDS][3];
    for (guint i = 0; i < N_KINDS * 3; i++) {
      m[i / 3][i % 3] = median (times[i / 3][i % 3]);
      g_array_unref (times[i / 3][i % 3]);
    }
    for (Kind kind = 0; kind < N_KINDS; kind++) {
      g_print ("%8u %6u %-18s %8.1f %6.2f %8.1f %6.2f %8.1f %6.2f\n", n, size,
          kind_names[kind], m[kind][0], m[kind][0] / m[WHOLE][0], m[kind][1],
          m[kind][1] / m[WHOLE][1], m[kind][2], m[kind][2] / m[WHOLE][2]);
      if (csv)
        fprintf (csv, "%u,%u,%u,%s,%.2f,%.3f,%.2f,%.3f,%.2f,%.3f\n", n, size,
            frames, kind_names[kind], m[kind][0], m[kind][0] / m[WHOLE][0],
            m[kind][1], m[kind][1] / m[WHOLE][1], m[kind][2],
            m[kind][2] / m[WHOLE][2]);
    }
    g_free (rects);
  }
  if (csv)
    fclose (csv);
  cr_reducer_free (f.reducer);
  cr_device_push (f.device, NULL);
  cu->MemFree (frame);
  cu->EventDestroy (f.start);
  cu->EventDestroy (f.end);
  cu->ModuleUnload (f.gate_module);
  cu->MemFreeHost ((void *)f.flag);
  cr_device_pop (f.device);
  cr_device_unref (f.device);
  return 0;
}
