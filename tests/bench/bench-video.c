/* bench-video.c: YUV frames through cudareduce, against copy ceilings
 * measured in the same run.
 *
 *   bench-video [--csv FILE] [--seconds S]
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
 * CSV (--csv), bench-pipeline's columns: kind=video, source
 * FORMAT-WxH-whole or FORMAT-WxH-luma, bytes read per frame, gbps of bytes
 * read, buffers_per_s frames per second, ceiling_gbps the pinned copy of
 * that many bytes, ratio = gbps / ceiling_gbps. Exits 77 without a GPU,
 * unless CUDAREDUCE_REQUIRE_GPU=1. */
#include "bench-appsrc.h"
#include "bench-ceilings.h"
#include "bench-sources.h"
#include "cr-reducer.h"

#include <string.h>

static const struct {
  gint width, height;
} sizes[] = { { 1920, 1080 }, { 3840, 2160 } };
static const gchar *const formats[] = { "I420", "NV12" };

/* Bytes a frame of 4:2:0 8-bit video has, and its luma's. */
#define FRAME_BYTES(w, h) ((gsize)(w) * (h)*3 / 2)
#define LUMA_BYTES(w, h) ((gsize)(w) * (h))

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
  RunSpec spec = {
    .element = luma ? "cudareduce name=r monoid=sum component=0"
                    : "cudareduce name=r monoid=sum",
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

int
main (int argc, char **argv)
{
  const gchar *csv_path = NULL;
  gdouble seconds = 1.0;
  g_autoptr (GError) error = NULL;

  gst_init (&argc, &argv);
  for (int k = 1; k < argc; k++) {
    if (strcmp (argv[k], "--csv") == 0 && k + 1 < argc)
      csv_path = argv[++k];
    else if (strcmp (argv[k], "--seconds") == 0 && k + 1 < argc)
      seconds = g_ascii_strtod (argv[++k], NULL);
    else {
      g_printerr ("usage: %s [--csv FILE] [--seconds S]\n", argv[0]);
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
  g_print ("\nHost frames from cudareduce's pool, monoid=sum:\n");
  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
      for (guint luma = 0; luma < 2; luma++)
        measure_frames (formats[f], sizes[s].width, sizes[s].height, luma,
            pinned[2 * s + !luma], &region, seconds);
  appsrc_runs_clear ();
  csv_close ();
  region_clear (&region);
  if (csv_path)
    g_print ("Table: %s\n", csv_path);
  return 0;
}
