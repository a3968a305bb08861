/* test-gpu-cuda.c: frames in GPU memory (memory:CUDAMemory), from
 * GStreamer's own CUDA elements, against the CPU reference of the same
 * frames on the host: cudaupload for every format cudareduce reads there,
 * an H.264 clip through nvh264dec, and the CUDA context the elements
 * share. Skipped where cudareduce was built without GStreamer's CUDA
 * library or nvcodec's elements are missing. */
#include "cr-test-main.h"
#include "cr-test-video.h"

static const gchar *const formats[] = { "I420", "YV12", "NV12", "NV21", "Y42B",
  "Y444", "I420_10LE", "I422_10LE", "P010_10LE", "P016_LE", "RGBA", "BGRA",
  "RGBx", "BGRx", "RGB", "BGR" };

/* Frames on the host at cudaupload's sink pad, reduced from GPU memory. */
static gchar *
upload_pipeline (const gchar *format, gint w, gint h, const gchar *props)
{
  g_autofree gchar *stats = cr_test_stats_props (format);
  return g_strdup_printf (
      "videotestsrc num-buffers=3 pattern=snow ! "
      "video/x-raw,format=%s,width=%d,height=%d ! cudaupload name=frames ! "
      "video/x-raw(memory:CUDAMemory) ! cudareduce name=r %s %s ! fakesink",
      format, w, h, stats, props);
}

/* The caps cudareduce negotiated are CUDA memory: nothing downloaded the
 * frames on the way. */
static void
assert_cuda_caps (GstElement *pipeline)
{
  GstElement *r = gst_bin_get_by_name (GST_BIN (pipeline), "r");
  GstPad *sink = gst_element_get_static_pad (r, "sink");
  g_autoptr (GstCaps) caps = gst_pad_get_current_caps (sink);
  fail_unless (caps != NULL);
  fail_unless (gst_caps_features_contains (
                   gst_caps_get_features (caps, 0), "memory:CUDAMemory"),
      "cudareduce negotiated %" GST_PTR_FORMAT, caps);
  gst_object_unref (sink);
  gst_object_unref (r);
}

GST_START_TEST (test_cuda_upload_every_format)
{
  for (guint k = 0; k < G_N_ELEMENTS (formats); k++) {
    GstVideoInfo info;
    gst_video_info_set_format (
        &info, gst_video_format_from_string (formats[k]), 16, 16);
    const gint n = GST_VIDEO_INFO_N_COMPONENTS (&info);
    /* Pitched rows (70 wide) packed before the reduction, and rows the GPU
     * reads in place: without padding (512 wide), and with padding, but
     * lines of whole 16-byte loads (160 wide) for the pitched kernel. */
    g_autofree gchar *whole = upload_pipeline (formats[k], 70, 42, "");
    g_autofree gchar *pitched = upload_pipeline (formats[k], 160, 90, "");
    g_autofree gchar *per =
        upload_pipeline (formats[k], 512, 64, "per-channel=true");
    g_autofree gchar *last = g_strdup_printf ("component=%d", n - 1);
    g_autofree gchar *one = upload_pipeline (formats[k], 70, 42, last);
    cr_test_check_pipeline (whole, formats[k], 3, FALSE, -1, assert_cuda_caps);
    cr_test_check_pipeline (
        pitched, formats[k], 3, FALSE, -1, assert_cuda_caps);
    cr_test_check_pipeline (per, formats[k], 3, TRUE, -1, assert_cuda_caps);
    cr_test_check_pipeline (one, formats[k], 3, FALSE, n - 1, assert_cuda_caps);
  }
  /* Large frames: many blocks, and rows packed in chunks. */
  g_autofree gchar *large = upload_pipeline ("NV12", 1920, 1080, "");
  g_autofree gchar *luma =
      upload_pipeline ("P010_10LE", 1920, 1080, "component=0");
  cr_test_check_pipeline (large, "NV12", 3, FALSE, -1, assert_cuda_caps);
  cr_test_check_pipeline (luma, "P010_10LE", 3, FALSE, 0, assert_cuda_caps);
}

GST_END_TEST;

/* Frames in GPU memory gathered into batches (cr_reduce_frames) in 100
 * ms intervals: 24 frames at 30/s, each result of three, with indices and
 * counts that continue from frame to frame and batch to batch; many
 * frames one result each. Against the CPU reference of the frames on the
 * host. */
static void
check_cuda_intervals (gint w, gint h, gint component, guint n_frames,
    guint per_result, const gchar *interval)
{
  g_autofree gchar *stats = cr_test_stats_props ("NV12");
  g_autofree gchar *comp =
      component >= 0 ? g_strdup_printf ("component=%d", component) : NULL;
  g_autofree gchar *desc = g_strdup_printf (
      "videotestsrc num-buffers=%u pattern=snow ! "
      "video/x-raw,format=NV12,width=%d,height=%d,framerate=30/1 ! "
      "cudaupload name=frames ! video/x-raw(memory:CUDAMemory) ! "
      "cudareduce name=r %s interval=%s %s ! fakesink",
      n_frames, w, h, stats, interval, comp ? comp : "");
  g_autoptr (GPtrArray) frames =
      g_ptr_array_new_with_free_func ((GDestroyNotify)gst_buffer_unref);
  g_autoptr (GstCaps) caps = NULL;
  guint gathered = 0;

  cr_test_count_batches_start ();
  g_autoptr (GPtrArray) results =
      cr_test_play_keeping_frames (desc, frames, &caps, assert_cuda_caps);
  cr_test_count_batches_stop (NULL, &gathered);
  GstVideoInfo info;
  fail_unless (caps != NULL && gst_video_info_from_caps (&info, caps));
  fail_unless_equals_int (frames->len, n_frames);
  fail_unless (results->len == n_frames / per_result,
      "%s: %u results, expected %u", desc, results->len, n_frames / per_result);
  /* Every frame went through a batch's kernel (a whole frame may be two
   * reductions, and an interval may end without a frame). */
  fail_unless (gathered >= n_frames, "%s: %u reductions gathered for %u frames",
      desc, gathered, n_frames);
  for (guint k = 0; k < results->len; k++) {
    CrTestExpected e;
    cr_test_expected_init (&e, FALSE, component);
    for (guint j = 0; j < per_result; j++) {
      CrTestFrame f = cr_test_frame_of_buffer (
          g_ptr_array_index (frames, k * per_result + j), &info);
      cr_test_expect_frame (&e, &f, j, cr_test_threshold_of ("NV12"));
      g_free (f.data);
    }
    cr_test_check_result (g_ptr_array_index (results, k), &e, desc);
  }
}

GST_START_TEST (test_cuda_frames_gathered)
{
  /* Lines whose pitch is wider (cudaupload's), and 1280 bytes, which may
   * be packed: a frame of one line. */
  check_cuda_intervals (320, 180, -1, 24, 3, "100000000");
  check_cuda_intervals (1280, 720, 0, 24, 3, "100000000");
  check_cuda_intervals (1280, 720, -1, 60, 1, "0");
  check_cuda_intervals (1920, 1080, 0, 60, 1, "0");
}

GST_END_TEST;

/* Both elements answer the context query with one and the same context:
 * cudareduce made it at start (it starts first, downstream) and
 * cudaupload took it, or the other way round. */
static void
assert_one_context (GstElement *pipeline)
{
  g_autoptr (GObject) ours = cr_test_cuda_context_of (pipeline, "r");
  g_autoptr (GObject) upstream = cr_test_cuda_context_of (pipeline, "frames");
  fail_unless (ours == upstream,
      "cudareduce's CUDA context %p, cudaupload's %p", ours, upstream);
  assert_cuda_caps (pipeline);
}

GST_START_TEST (test_cuda_context_is_shared)
{
  g_autofree gchar *desc = upload_pipeline ("NV12", 64, 32, "cuda-device-id=0");
  cr_test_check_pipeline (desc, "NV12", 3, FALSE, -1, assert_one_context);
  g_autofree gchar *any = upload_pipeline ("I420", 64, 32, "");
  cr_test_check_pipeline (any, "I420", 3, FALSE, -1, assert_one_context);
}

GST_END_TEST;

/* Where the last reference to cudaupload's context was, while it lives. */
static gpointer upstream_context;

static void
watch_upstream_context (GstElement *pipeline)
{
  g_autoptr (GObject) upstream = cr_test_cuda_context_of (pipeline, "frames");
  upstream_context = upstream;
  g_object_add_weak_pointer (upstream, &upstream_context);
  assert_one_context (pipeline);
}

/* Each CUDA context holds hundreds of MiB of GPU memory: one that outlives
 * its pipeline is a leak an application making pipelines runs out of GPU
 * memory with (cudareduce kept cudaupload's, about 0.5 GiB a pipeline). */
GST_START_TEST (test_cuda_context_is_released)
{
  g_autofree gchar *desc = upload_pipeline ("NV12", 64, 32, "");
  cr_test_check_pipeline (desc, "NV12", 3, FALSE, -1, watch_upstream_context);
  fail_unless (upstream_context == NULL,
      "cudaupload's CUDA context outlived its pipeline");
}

GST_END_TEST;

/* An H.264 clip (tests/data, 30 frames of 320x240 made by x264enc)
 * decoded on the GPU: cudareduce reads the decoder's frames where they
 * are, and the reference reads the frames of a second decode,
 * downloaded. */
GST_START_TEST (test_cuda_h264_clip)
{
  GstElementFactory *dec = gst_element_factory_find ("nvh264dec");
  GstElementFactory *parse = gst_element_factory_find ("h264parse");
  if (dec == NULL || parse == NULL) {
    g_print ("no nvh264dec or h264parse: the clip is not decoded\n");
    if (g_strcmp0 (g_getenv ("CUDAREDUCE_REQUIRE_GPU"), "1") == 0)
      fail ("CUDAREDUCE_REQUIRE_GPU=1 and no nvh264dec or h264parse");
    gst_clear_object (&dec);
    gst_clear_object (&parse);
    return;
  }
  gst_object_unref (dec);
  gst_object_unref (parse);
  g_autofree gchar *clip =
      g_build_filename (g_getenv ("CR_TEST_DATA"), "ball-320x240.h264", NULL);
  g_autofree gchar *stats = cr_test_stats_props ("NV12");
  g_autofree gchar *desc =
      g_strdup_printf ("filesrc location=%s ! h264parse ! nvh264dec ! "
                       "video/x-raw(memory:CUDAMemory),format=NV12 ! "
                       "cudareduce name=r per-channel=true %s ! fakesink",
          clip, stats);
  /* The decoder is exact: decoding again gives the same frames. */
  g_autofree gchar *frames = g_strdup_printf (
      "filesrc location=%s ! h264parse ! nvh264dec ! cudadownload ! "
      "video/x-raw,format=NV12 ! identity name=frames ! fakesink",
      clip);
  cr_test_check_pipelines (
      desc, frames, "NV12", 30, TRUE, -1, assert_cuda_caps);
}

GST_END_TEST;

static const CrTestCase cases[] = {
  CR_TEST_CASE (test_cuda_upload_every_format),
  CR_TEST_CASE (test_cuda_frames_gathered),
  CR_TEST_CASE (test_cuda_context_is_shared),
  CR_TEST_CASE (test_cuda_context_is_released),
  CR_TEST_CASE (test_cuda_h264_clip),
  { NULL },
};

static int
setup (void)
{
  /* Outside a test: check's assertions cannot report here. */
  GstElementFactory *f = gst_element_factory_find ("cudareduce");
  if (f == NULL) {
    g_printerr ("cudareduce is not registered\n");
    return 1;
  }
  gst_object_unref (f);
  const gchar *missing = cr_test_cuda_memory_missing ();
  if (missing) {
    g_print ("%s: skipped\n", missing);
    return CR_TEST_SKIP;
  }
  return 0;
}

static const CrGpuTest gpu_cuda = {
  .name = "gpu-cuda",
  .timeout = 600,
  .needs = CR_TEST_NEEDS_NVRTC,
  .setup = setup,
  .cases = cases,
};

CR_TEST_GPU_MAIN (gpu_cuda);
