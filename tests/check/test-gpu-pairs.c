/* test-gpu-pairs.c: 2-D histograms (monoids with a pair), against the CPU:
 * the built-in vectorscope on every YUV format in host memory with padded
 * rows, in shared and device counters; R against G and other pairs of RGB,
 * from the pair property and a monoid file; frames in GPU memory; audio
 * and tensors over chunks and intervals, with values outside the range
 * and NaN; and tensor output. */
#include "cr-test-bins.h"
#include "cr-test-main.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

static GRand *rand_;

/* The pairs of GStreamer components @cx and @cy of @f, in @b's bins. */
static guint64 *
frame_pairs (const CrTestBinning *b, const CrTestFrame *f, guint cx, guint cy)
{
  guint64 *slots = g_new0 (guint64, CR_TEST_PAIR_SLOTS (b));
  const CrTestSpan x = cr_test_frame_span (f, cx, b->type);
  const CrTestSpan y = cr_test_frame_span (f, cy, b->type);
  cr_test_count_pairs (b, &x, 0, &y, 0, slots);
  return slots;
}

/* One random frame of @format with padded rows through the vectorscope
 * in @bins x @bins bins, counting @pair (NULL: its own, U and V), against
 * its GStreamer components @cx and @cy counted on the CPU. */
static void
check_frame (const gchar *format, CrType type, guint bins, const gchar *pair,
    guint cx, guint cy)
{
  CrTestFrame f = cr_test_frame_new (rand_, format, 333, 97, 24);
  g_autofree gchar *bins_text = g_strdup_printf ("%u", bins);
  /* Without a pair, the list ends before it. */
  GstHarness *h =
      cr_test_harness (cr_test_video_caps (format, 333, 97, 30), "monoid",
          "vectorscope", "bins", bins_text, pair ? "pair" : NULL, pair, NULL);
  g_autofree gchar *what = g_strdup_printf (
      "%s, %u x %u bins, pair %s", format, bins, bins, pair ? pair : "U,V");
  GstStructure *s =
      cr_test_push_for_result (h, cr_test_frame_buffer (&f, 0), 0, what);
  const CrTestBinning b = cr_test_binning (type, bins, 0, 0);
  g_autofree guint64 *want = frame_pairs (&b, &f, cx, cy);
  cr_test_check_pairs (s, &b, want, what);
  gst_structure_free (s);
  gst_harness_teardown (h);
  g_free (f.data);
}

/* The vectorscope (U against V) of every YUV format: planar, semi-planar
 * (NV21's V first), subsampled or not, 8 and 16 bits; in shared counters
 * (64 and 100 bins a side) and the device's (256). */
GST_START_TEST (test_vectorscope_formats)
{
  static const gchar *const formats[] = { "NV12", "NV21", "I420", "YV12",
    "Y41B", "Y42B", "Y444", "NV16", "NV24" };
  for (guint k = 0; k < G_N_ELEMENTS (formats); k++) {
    check_frame (formats[k], CR_TYPE_UINT8, 64, NULL, GST_VIDEO_COMP_U,
        GST_VIDEO_COMP_V);
    check_frame (formats[k], CR_TYPE_UINT8, 256, NULL, GST_VIDEO_COMP_U,
        GST_VIDEO_COMP_V);
  }
  static const gchar *const deep[] = { "I420_10LE", "I422_10LE", "P010_10LE",
    "P016_LE" };
  for (guint k = 0; k < G_N_ELEMENTS (deep); k++)
    check_frame (
        deep[k], CR_TYPE_UINT16, 100, NULL, GST_VIDEO_COMP_U, GST_VIDEO_COMP_V);
}

GST_END_TEST;

/* Other pairs: of RGB by name and by place in memory, Y against U where
 * they have the same size, V against U (transposed), one component with
 * itself (the diagonal), and a range narrower than the type's. */
GST_START_TEST (test_other_pairs)
{
  check_frame (
      "RGBA", CR_TYPE_UINT8, 64, "R,G", GST_VIDEO_COMP_R, GST_VIDEO_COMP_G);
  check_frame (
      "BGRx", CR_TYPE_UINT8, 32, "r, g", GST_VIDEO_COMP_R, GST_VIDEO_COMP_G);
  check_frame (
      "RGB", CR_TYPE_UINT8, 64, "G,B", GST_VIDEO_COMP_G, GST_VIDEO_COMP_B);
  /* BGR in memory order: 2 is R, 0 is B. */
  check_frame (
      "BGR", CR_TYPE_UINT8, 64, "2,0", GST_VIDEO_COMP_R, GST_VIDEO_COMP_B);
  check_frame (
      "Y444", CR_TYPE_UINT8, 64, "Y,U", GST_VIDEO_COMP_Y, GST_VIDEO_COMP_U);
  check_frame (
      "NV24", CR_TYPE_UINT8, 64, "0,2", GST_VIDEO_COMP_Y, GST_VIDEO_COMP_V);
  check_frame (
      "NV12", CR_TYPE_UINT8, 64, "V,U", GST_VIDEO_COMP_V, GST_VIDEO_COMP_U);
  check_frame (
      "I420", CR_TYPE_UINT8, 16, "U,U", GST_VIDEO_COMP_U, GST_VIDEO_COMP_U);

  /* A monoid file, with a range that leaves values below and above. */
  g_autofree gchar *dir = cr_test_make_dir ("cr-pairs");
  g_autofree gchar *path = g_build_filename (dir, "rg.monoid", NULL);
  fail_unless (g_file_set_contents (path,
      "[Monoid]\nName=rg\nBins=24\nPair=R,G\n"
      "Context=lo:float64;hi:float64\n",
      -1, NULL));
  CrTestFrame f = cr_test_frame_new (rand_, "RGBx", 200, 51, 8);
  GstHarness *h = cr_test_harness (cr_test_video_caps ("RGBx", 200, 51, 30),
      "monoid", path, "context", "ctx, lo=(double)40, hi=(double)200", NULL);
  GstStructure *s =
      cr_test_push_for_result (h, cr_test_frame_buffer (&f, 0), 0, "rg");
  const CrTestBinning b = cr_test_binning (CR_TYPE_UINT8, 24, 40, 200);
  g_autofree guint64 *want =
      frame_pairs (&b, &f, GST_VIDEO_COMP_R, GST_VIDEO_COMP_G);
  fail_unless (want[24 * 24] > 0 && want[24 * 24 + 1] > 0);
  cr_test_check_pairs (s, &b, want, "rg.monoid on RGBx");
  fail_unless_equals_string (gst_structure_get_string (s, "monoid"), "rg");
  gst_structure_free (s);
  gst_harness_teardown (h);
  g_free (f.data);
  g_unlink (path);
  cr_test_remove_dir (dir);
}

GST_END_TEST;

/* Every result of @results against its frame's U and V. */
static void
check_frames (GPtrArray *results, GPtrArray *frames, const GstVideoInfo *caps,
    const gchar *what)
{
  fail_unless (results->len == frames->len && results->len > 0,
      "%s: %u results of %u frames", what, results->len, frames->len);
  const CrTestBinning b = cr_test_binning (CR_TYPE_UINT8, 64, 0, 0);
  for (guint k = 0; k < frames->len; k++) {
    CrTestFrame f =
        cr_test_frame_of_buffer (g_ptr_array_index (frames, k), caps);
    g_autofree guint64 *want =
        frame_pairs (&b, &f, GST_VIDEO_COMP_U, GST_VIDEO_COMP_V);
    cr_test_check_pairs (g_ptr_array_index (results, k), &b, want, what);
    g_free (f.data);
  }
}

/* Frames in GPU memory, read where they are, and the same from host
 * memory: the test source's noise, bars and moving ball. */
GST_START_TEST (test_pairs_in_cuda_memory)
{
  const gchar *missing = cr_test_cuda_memory_missing ();
  static const gchar *const patterns[] = { "snow", "smpte", "ball" };
  static const gchar *const formats[] = { "NV12", "I420" };
  for (guint k = 0; k < G_N_ELEMENTS (patterns); k++) {
    for (gint cuda = 0; cuda < 2; cuda++) {
      if (cuda && missing) {
        g_print ("frames in CUDA memory not tested: %s\n", missing);
        continue;
      }
      g_autofree gchar *desc =
          g_strdup_printf ("videotestsrc num-buffers=3 pattern=%s ! "
                           "video/x-raw,format=%s,width=1920,height=1080 ! %s "
                           "cudareduce monoid=vectorscope ! fakesink",
              patterns[k], formats[k % 2],
              cuda ? "cudaupload name=frames ! video/x-raw(memory:CUDAMemory) !"
                   : "identity name=frames !");
      g_autoptr (GPtrArray) frames =
          g_ptr_array_new_with_free_func ((GDestroyNotify)gst_buffer_unref);
      g_autoptr (GstCaps) caps = NULL;
      g_autoptr (GPtrArray) results =
          cr_test_play_keeping_frames (desc, frames, &caps, NULL);
      g_ptr_array_set_free_func (results, (GDestroyNotify)gst_structure_free);
      GstVideoInfo info;
      fail_unless (caps != NULL && gst_video_info_from_caps (&info, caps));
      check_frames (results, frames, &info, desc);
    }
  }
}

GST_END_TEST;

/* Float audio of 3 channels, channels 2 and 0 in 40 bins from -0.5 to
 * 0.5: values outside and NaN (which wins over outside), in chunks of 4
 * KiB and in intervals of 1,000 frames over buffers of 700, where the
 * counts add up. */
GST_START_TEST (test_pairs_audio_intervals)
{
  const guint channels = 3, frames = 700, buffers = 11;
  g_autofree gfloat *data = g_new (gfloat, channels * frames * buffers);
  for (guint k = 0; k < channels * frames * buffers; k++)
    data[k] =
        k % 53 == 7 ? NAN : (gfloat)g_rand_double_range (rand_, -0.7, 0.7);
  cr_test_set_chunk_bytes ("4096");
  GstHarness *h = cr_test_harness (cr_test_audio_caps ("F32LE", 1000, channels),
      "monoid", "histogram", "pair", "2,0", "bins", "40", "context",
      "ctx, lo=(double)-0.5, hi=(double)0.5", "interval", "1000000000", NULL);
  for (guint k = 0; k < buffers; k++) {
    GstBuffer *buf = gst_buffer_new_memdup (
        data + k * channels * frames, channels * frames * sizeof (gfloat));
    GST_BUFFER_PTS (buf) = gst_util_uint64_scale (k * frames, GST_SECOND, 1000);
    GST_BUFFER_DURATION (buf) =
        gst_util_uint64_scale (frames, GST_SECOND, 1000);
    cr_test_push_ok (h, buf, "audio pairs");
  }
  g_autoptr (GPtrArray) results = cr_test_results_after_eos (h, "audio pairs");
  cr_test_set_chunk_bytes (NULL);
  /* Seven whole seconds, then the partial one at EOS. */
  fail_unless_equals_int (results->len, 8);
  const CrTestBinning b = cr_test_binning (CR_TYPE_FLOAT32, 40, -0.5, 0.5);
  for (guint k = 0; k < results->len; k++) {
    g_autofree guint64 *want = g_new0 (guint64, CR_TEST_PAIR_SLOTS (&b));
    const CrTestSpan span = { .data =
                                  (const guint8 *)(data + k * 1000 * channels),
      .channels = channels,
      .rows = MIN (1000, frames * buffers - k * 1000) };
    cr_test_count_pairs (&b, &span, 2, &span, 0, want);
    fail_unless (
        want[40 * 40] > 0 && want[40 * 40 + 1] > 0 && want[40 * 40 + 2] > 0);
    g_autofree gchar *what = g_strdup_printf ("interval %u", k);
    cr_test_check_pairs (g_ptr_array_index (results, k), &b, want, what);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* int16 tensors of 2 channels as rows, with output=tensor: the histogram
 * a tensor of bins x bins counts, below, above and nan one each. */
GST_START_TEST (test_pairs_as_tensors)
{
  const guint64 rows = 100003;
  g_autofree guint8 *data =
      cr_test_random_elements (rand_, CR_TYPE_INT16, rows * 2);
  GstHarness *h = cr_test_harness (
      cr_test_tensor_rows_caps (CR_TYPE_INT16, 2, rows), "monoid",
      "vectorscope", "pair", "0,1", "bins", "128", "output", "tensor",
      "context", "ctx, lo=(double)-20000, hi=(double)20000", NULL);
  cr_test_push_ok (h, gst_buffer_new_memdup (data, rows * 4), "tensor pairs");
  GstBuffer *out = gst_harness_pull (h);
  fail_unless (out != NULL);
  fail_unless_equals_int (gst_buffer_n_memory (out), 4);
  g_autoptr (GstCaps) caps = gst_pad_get_current_caps (h->sinkpad);
  const gchar *dims =
      gst_structure_get_string (gst_caps_get_structure (caps, 0), "dimensions");
  fail_unless_equals_string (dims, "128:128:1,1,1,1");
  const CrTestBinning b = cr_test_binning (CR_TYPE_INT16, 128, -20000, 20000);
  g_autofree guint64 *want = g_new0 (guint64, CR_TEST_PAIR_SLOTS (&b));
  const CrTestSpan span = { .data = data, .channels = 2, .rows = rows };
  cr_test_count_pairs (&b, &span, 0, &span, 1, want);
  GstMapInfo map;
  for (guint k = 0; k < 4; k++) {
    fail_unless (
        gst_memory_map (gst_buffer_peek_memory (out, k), &map, GST_MAP_READ));
    const guint n = k == 0 ? 128 * 128 : 1;
    fail_unless_equals_int (map.size, n * sizeof (guint64));
    const guint64 *got = (const guint64 *)map.data;
    for (guint j = 0; j < n; j++)
      fail_unless (got[j] == want[k == 0 ? j : 128 * 128 + k - 1],
          "tensor %u, count %u: %" G_GUINT64_FORMAT ", expected "
          "%" G_GUINT64_FORMAT,
          k, j, got[j], want[k == 0 ? j : 128 * 128 + k - 1]);
    gst_memory_unmap (gst_buffer_peek_memory (out, k), &map);
  }
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

static const CrTestCase cases[] = {
  CR_TEST_CASE (test_vectorscope_formats),
  CR_TEST_CASE (test_other_pairs),
  CR_TEST_CASE (test_pairs_in_cuda_memory),
  CR_TEST_CASE (test_pairs_audio_intervals),
  CR_TEST_CASE (test_pairs_as_tensors),
  { NULL },
};

static const CrGpuTest gpu_pairs = {
  .name = "gpu-pairs",
  .timeout = 300,
  .needs = CR_TEST_NEEDS_NVRTC,
  .rand = &rand_,
  .cases = cases,
};

CR_TEST_GPU_MAIN (gpu_pairs);
