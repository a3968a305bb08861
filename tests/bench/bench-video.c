/* bench-video.c: YUV frames through cudareduce, against copy ceilings
 * measured in the same run.
 *
 *   bench-video [--csv FILE] [--seconds S] [--monoid "M [PROPS]"]
 *               [--cuda-only]
 *
 * Host frames: an application thread feeds
 *
 *   appsrc ! cudareduce monoid=sum [component=0] ! fakesink sync=false
 *
 * with I420 and NV12 frames of 1920x1080 and 3840x2160 from the pool that
 * cudareduce proposes (pinned memory the GPU reads in place), as
 * bench-pipeline's pool source does (bench-appsrc.c checks each result's
 * timestamp and count as it is posted). The whole frame reads every byte;
 * component=0 (luma) reads only the Y plane. Each is compared with
 * cuMemcpyHtoDAsync from pinned memory of the bytes it reads: GB/s of
 * bytes read, and frames per second. Median of 3 runs.
 *
 * Frames in GPU memory: 8 NV12 frames of each size, made by
 *
 *   videotestsrc pattern=snow ! cudaupload ! appsink
 *
 * and kept, are pushed again and again (new timestamps, the same GPU
 * memory) by an application thread through
 *
 *   appsrc ! cudareduce monoid=sum [component=0] ! fakesink sync=false
 *   appsrc ! cudadownload ! cudareduce monoid=sum [component=0] ! fakesink
 *
 * in the CUDA context that made them (the one the pipeline shares), for
 * --seconds, with up to 4 frames queued in appsrc; timed from the first
 * push to the last result. The first is compared with cuMemcpyDtoDAsync of
 * the same bytes within the GPU's memory (GB/s of bytes read), the second
 * is the path a user without CUDA memory input has. Skipped where
 * cudareduce or nvcodec have no CUDA memory.
 *
 * --monoid replaces "sum" in both (e.g. "histogram per-channel=true",
 * whose luma case is component=0's histogram); --cuda-only measures the
 * frames in GPU memory alone.
 *
 * CSV (--csv), bench-pipeline's columns: kind=video, source
 * FORMAT-WxH-whole or FORMAT-WxH-luma (host frames), cuda-... (frames in
 * GPU memory) or download-... (through cudadownload), bytes read per
 * frame, gbps of bytes read, buffers_per_s frames per second, ceiling_gbps
 * the pinned copy (host) or the device copy (CUDA) of that many bytes
 * (none for download), ratio = gbps / ceiling_gbps. Exits 77 without a GPU,
 * unless CUDAREDUCE_REQUIRE_GPU=1. */
#include "bench-appsrc.h"
#include "bench-ceilings.h"
#include "bench-frames.h"
#include "bench-sources.h"
#include "cr-reducer.h"

#include <gst/app/gstappsrc.h>
#include <math.h>
#include <string.h>

static const struct {
  gint width, height;
} sizes[] = { { 1920, 1080 }, { 3840, 2160 } };
static const gchar *const formats[] = { "I420", "NV12" };
/* The monoid and properties measured (--monoid). */
static const gchar *monoid = "sum";

static void
measure_frames (const gchar *format, gint w, gint h, gboolean luma,
    gdouble ceiling, const Region *region, gdouble seconds)
{
  const gsize frame = FRAME_BYTES (w, h);
  const gsize read = luma ? LUMA_BYTES (w, h) : frame;
  g_autofree gchar *caps = g_strdup_printf (
      "video/x-raw,format=%s,width=%d,height=%d,framerate=30/1", format, w, h);
  g_autofree gchar *label =
      g_strdup_printf ("%s-%dx%d-%s", format, w, h, luma ? "luma" : "whole");
  g_autofree gchar *element = g_strdup_printf (
      "cudareduce name=r monoid=%s%s", monoid, luma ? " component=0" : "");
  RunSpec spec = {
    .element = element,
    .caps = caps,
    .bytes = frame,
    .elements = read,
    .frames = RATE / 30, /* a 30/1 frame's duration, in bench-appsrc's units */
    .depth = -1,
    .result_name = "cudareduce",
    .check = TRUE,
    .queue_buffers = 4,
    .pool_buffers = 8 + 4 + 3,
  };
  Measure runs[REPEATS] = { 0 };

  for (guint rep = 0; rep < REPEATS; rep++) {
    g_autofree gchar *why = NULL;
    if (!run_pipeline (&spec, NULL, region, seconds, &runs[rep], &why))
      fail ("%s: no pool from cudareduce: %s", label, why);
  }
  Measure m = median_measure (runs);
  /* Measured over the buffer's bytes; reported over those read. */
  const gdouble gbps = m.gbps * read / frame;
  g_print ("  %-24s %8.1f frames/s  %7.2f GB/s read  pinned copy %6.2f GB/s"
           "  ratio %.2f\n",
      label, m.buffers_per_s, gbps, ceiling, gbps / ceiling);
  csv_row (
      "video", label, read, gbps, m.buffers_per_s, ceiling, gbps / ceiling);
}

typedef struct {
  GMutex lock;
  guint64 results;
  gint64 last;
  gchar *error;
} CudaRun;

static GstBusSyncReply
count_result (GstBus *bus, GstMessage *msg, gpointer data)
{
  CudaRun *run = data;
  g_mutex_lock (&run->lock);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT
      && gst_structure_has_name (
          gst_message_get_structure (msg), "cudareduce")) {
    run->results++;
    run->last = g_get_monotonic_time ();
  } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR && !run->error) {
    GError *e = NULL;
    gst_message_parse_error (msg, &e, NULL);
    run->error = g_strdup (e->message);
    g_error_free (e);
  }
  g_mutex_unlock (&run->lock);
  return GST_BUS_PASS;
}

/* Frames per second of @element (after appsrc) on @cf's frames. */
static gdouble
cuda_run (const CudaFrames *cf, const gchar *element, gdouble seconds)
{
  g_autofree gchar *desc = g_strdup_printf (
      "appsrc name=src ! %s ! fakesink sync=false enable-last-sample=false",
      element);
  GstElement *pipeline = pipeline_launch (desc);
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstCaps *caps = gst_caps_from_string (cf->caps);
  GstBus *bus = gst_element_get_bus (pipeline);
  CudaRun run = { 0 };
  const GstClockTime frame = GST_SECOND / 30;
  guint64 pushed = 0;

  g_mutex_init (&run.lock);
  gst_element_set_context (pipeline, cf->context);
  g_object_set (src, "caps", caps, "format", GST_FORMAT_TIME, "block", TRUE,
      "max-buffers", (guint64)4, NULL);
  gst_caps_unref (caps);
  gst_bus_set_sync_handler (bus, count_result, &run, NULL);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  const gint64 t0 = g_get_monotonic_time ();
  while (g_get_monotonic_time () - t0 < seconds * G_USEC_PER_SEC) {
    GstBuffer *buf = gst_buffer_copy (
        g_ptr_array_index (cf->frames, pushed % cf->frames->len));
    GST_BUFFER_PTS (buf) = pushed * frame;
    GST_BUFFER_DURATION (buf) = frame;
    if (gst_app_src_push_buffer (GST_APP_SRC (src), buf) != GST_FLOW_OK)
      break;
    pushed++;
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  GstMessage *msg = gst_bus_timed_pop_filtered (
      bus, 120 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (msg)
    gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  if (run.error || run.results != pushed)
    fail ("%s: %" G_GUINT64_FORMAT " results for %" G_GUINT64_FORMAT
          " frames%s%s",
        element, run.results, pushed, run.error ? ": " : "",
        run.error ? run.error : "");
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (pipeline);
  return pushed / ((run.last - t0) / 1e6);
}

static void
measure_cuda (gdouble seconds)
{
  gsize bytes[2 * G_N_ELEMENTS (sizes)];
  gdouble copy[G_N_ELEMENTS (bytes)];
  g_autoptr (GError) error = NULL;

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++) {
    bytes[2 * s] = LUMA_BYTES (sizes[s].width, sizes[s].height);
    bytes[2 * s + 1] = FRAME_BYTES (sizes[s].width, sizes[s].height);
  }
  if (!measure_concurrent_copies (
          COPY_DEVICE_TO_DEVICE, 1, bytes, G_N_ELEMENTS (bytes), copy, &error))
    fail ("device copy ceiling: %s", error->message);
  g_print ("\nFrames in GPU memory (NV12 from cudaupload), monoid=%s, "
           "median of %d runs:\n",
      monoid, REPEATS);
  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++) {
    const gint w = sizes[s].width, h = sizes[s].height;
    CudaFrames cf;
    if (!cuda_frames_make (&cf, w, h, -1)) {
      g_print ("  no frames in CUDA memory from cudaupload: skipped\n");
      cuda_frames_clear (&cf);
      return;
    }
    for (guint luma = 0; luma < 2; luma++) {
      const gsize read = bytes[2 * s + !luma];
      const gchar *sel = luma ? " component=0" : "";
      g_autofree gchar *direct =
          g_strdup_printf ("cudareduce monoid=%s%s", monoid, sel);
      g_autofree gchar *download = g_strdup_printf (
          "cudadownload ! video/x-raw ! cudareduce monoid=%s%s", monoid, sel);
      gdouble fps[2][REPEATS];
      for (guint rep = 0; rep < REPEATS; rep++) {
        fps[0][rep] = cuda_run (&cf, direct, seconds);
        fps[1][rep] = cuda_run (&cf, download, seconds);
      }
      const gdouble d = median (fps[0], REPEATS), dl = median (fps[1], REPEATS);
      const gdouble gbps = d * read / 1e9, ceiling = copy[2 * s + !luma];
      g_autofree gchar *label =
          g_strdup_printf ("NV12-%dx%d-%s", w, h, luma ? "luma" : "whole");
      g_print ("  cuda-%-24s %9.1f frames/s  %8.1f GB/s read  device copy "
               "%7.1f GB/s  ratio %.2f;  through cudadownload %7.1f frames/s "
               "(cuda/download %.1f)\n",
          label, d, gbps, ceiling, gbps / ceiling, dl, d / dl);
      g_autofree gchar *cuda_label = g_strdup_printf ("cuda-%s", label);
      g_autofree gchar *dl_label = g_strdup_printf ("download-%s", label);
      csv_row ("video", cuda_label, read, gbps, d, ceiling, gbps / ceiling);
      csv_row ("video", dl_label, read, dl * read / 1e9, dl, NAN, NAN);
    }
    cuda_frames_clear (&cf);
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
  gboolean cuda_only = FALSE;
  g_autoptr (GError) error = NULL;

  gst_init (&argc, &argv);
  for (int k = 1; k < argc; k++) {
    if (strcmp (argv[k], "--csv") == 0 && k + 1 < argc)
      csv_path = argv[++k];
    else if (strcmp (argv[k], "--seconds") == 0 && k + 1 < argc)
      seconds = g_ascii_strtod (argv[++k], NULL);
    else if (strcmp (argv[k], "--monoid") == 0 && k + 1 < argc)
      monoid = argv[++k];
    else if (strcmp (argv[k], "--cuda-only") == 0)
      cuda_only = TRUE;
    else {
      g_printerr ("usage: %s [--csv FILE] [--seconds S] [--monoid \"M "
                  "[PROPS]\"] [--cuda-only]\n",
          argv[0]);
      return 2;
    }
  }
  if (cr_cuda_driver (&error) == NULL)
    skip_or_fail ("CUDAREDUCE_REQUIRE_GPU", "no GPU", error);
  {
    g_autoptr (CrDevice) device = cr_device_open (-1, &error);
    if (device == NULL)
      skip_or_fail ("CUDAREDUCE_REQUIRE_GPU", "no GPU", error);
    g_print ("GPU: %s (sm_%d); %.2f s per run, median of %d runs\n",
        cr_device_name (device), cr_device_arch (device), seconds, REPEATS);
  }
  if (cr_cuda_nvrtc (&error) == NULL)
    skip_or_fail ("CUDAREDUCE_REQUIRE_NVRTC", "no NVRTC", error);
  GstElement *probe = gst_element_factory_make ("cudareduce", NULL);
  if (probe == NULL)
    fail ("there is no cudareduce element; run through Meson (meson test "
          "--benchmark) or point GST_PLUGIN_PATH at build/plugin");
  gst_object_unref (probe);

  /* The pool's frames are filled from this, once. */
  Region region;
  region_init (
      &region, 16 * FRAME_BYTES (3840, 2160), FALSE, 0x2545F4914F6CDD1Dull);
  gsize copy_sizes[2 * G_N_ELEMENTS (sizes)];
  gdouble pinned[G_N_ELEMENTS (copy_sizes)],
      pageable[G_N_ELEMENTS (copy_sizes)];
  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++) {
    /* Ascending, as measure_ceilings wants them. */
    copy_sizes[2 * s] = LUMA_BYTES (sizes[s].width, sizes[s].height);
    copy_sizes[2 * s + 1] = FRAME_BYTES (sizes[s].width, sizes[s].height);
  }
  if (!measure_ceilings (&region, copy_sizes, G_N_ELEMENTS (copy_sizes), pinned,
          pageable, &error))
    fail ("copy ceilings: %s", error->message);

  if (csv_path)
    csv_open (csv_path);
  appsrc_runs_init ();
  if (!cuda_only)
    g_print ("\nHost frames from cudareduce's pool, monoid=%s:\n", monoid);
  for (guint s = 0; s < G_N_ELEMENTS (sizes) && !cuda_only; s++)
    for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
      for (guint luma = 0; luma < 2; luma++)
        measure_frames (formats[f], sizes[s].width, sizes[s].height, luma,
            pinned[2 * s + !luma], &region, seconds);
  appsrc_runs_clear ();
  measure_cuda (seconds);
  csv_close ();
  region_clear (&region);
  if (csv_path)
    g_print ("Table: %s\n", csv_path);
  return 0;
}
