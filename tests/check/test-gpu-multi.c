/* test-gpu-multi.c: cudareduce on a host with several GPUs. Frames in host
 * memory are reduced on the GPU that cuda-device-id names; one element on
 * each GPU, in one pipeline, all at once; frames in CUDA memory are
 * reduced on the GPU they are on, whatever cuda-device-id says; frames in
 * another CUDA context than the element's move the element there; and a
 * buffer spread over two contexts is refused, never copied across.
 * Every result is checked against the CPU reference of the same frames.
 *
 * On a machine with one GPU the cases run on it (two elements share it,
 * two contexts of the one GPU stand for two GPUs), and what needs two GPUs
 * is said and passed over, unless CUDAREDUCE_REQUIRE_GPUS asks for more
 * GPUs than the machine has: then it fails. */
#include "cr-cuda.h"
#include "cr-test-main.h"
#include "cr-test-video.h"

#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef CR_HAVE_GST_CUDA
/* From gstcudacontext.h and gstcudautils.h (public since 1.22), declared
 * here as the plugin does, so that the test needs no CUDA toolkit headers. */
typedef struct _GstCudaContext GstCudaContext;
gboolean gst_cuda_load_library (void);
GstCudaContext *gst_cuda_context_new (guint device_id);
GstContext *gst_context_new_cuda_context (GstCudaContext *cuda_ctx);
#endif

#define MAX_BRANCHES 8

static guint n_gpus;

/* The element's debug lines, "NAME: message", from its category. */
static GMutex log_lock;
static GString *log_lines;

static void
keep_log (GstDebugCategory *category, GstDebugLevel level, const gchar *file,
    const gchar *function, gint line, GObject *object, GstDebugMessage *message,
    gpointer data)
{
  if (level > GST_LEVEL_INFO
      || g_strcmp0 (gst_debug_category_get_name (category), "cudareduce") != 0)
    return;
  g_mutex_lock (&log_lock);
  g_string_append_printf (log_lines, "%s: %s\n",
      object && GST_IS_OBJECT (object) ? GST_OBJECT_NAME (object) : "",
      gst_debug_message_get (message));
  g_mutex_unlock (&log_lock);
}

static void
log_clear (void)
{
  g_mutex_lock (&log_lock);
  g_string_truncate (log_lines, 0);
  g_mutex_unlock (&log_lock);
}

/* Fails unless @line is in the log @times times or more. */
static void
assert_logged_times (const gchar *line, guint times)
{
  guint found = 0;
  g_mutex_lock (&log_lock);
  for (const gchar *p = log_lines->str; (p = strstr (p, line)); p++)
    found++;
  g_autofree gchar *lines = g_strdup (log_lines->str);
  g_mutex_unlock (&log_lock);
  fail_unless (found >= times,
      "\"%s\" %u time(s) in the element's log, not %u:\n%s", line, found, times,
      lines);
}

static void
assert_logged (const gchar *line)
{
  assert_logged_times (line, 1);
}

/* Counted in a child: CUDA initialised before check forks its tests would
 * not work in them. */
static guint
count_gpus (void)
{
  pid_t pid = fork ();
  int status = 0;

  if (pid == 0) {
    g_autoptr (GError) error = NULL;
    const CrDriver *cu = cr_cuda_driver (&error);
    int count = 0;
    if (cu == NULL || cu->DeviceGetCount (&count) != CUDA_SUCCESS)
      _exit (0);
    _exit (MIN (count, 100));
  }
  if (pid > 0 && waitpid (pid, &status, 0) == pid && WIFEXITED (status))
    return WEXITSTATUS (status);
  return 0;
}

/* TRUE where the machine has @want GPUs. Otherwise says that @what was
 * not tested, or fails where CUDAREDUCE_REQUIRE_GPUS asks for them. */
static gboolean
have_gpus (guint want, const gchar *what)
{
  if (n_gpus >= want)
    return TRUE;
  const gchar *required = g_getenv ("CUDAREDUCE_REQUIRE_GPUS");
  guint64 asked = required ? g_ascii_strtoull (required, NULL, 10) : 0;
  fail_if (asked >= want,
      "CUDAREDUCE_REQUIRE_GPUS=%s, but this machine has %u GPU(s): %s needs %u",
      required, n_gpus, what, want);
  g_print (
      "NOTE: %u GPU(s): %s needs %u and was not tested\n", n_gpus, what, want);
  return FALSE;
}

/* What one branch of a pipeline saw: the frames at the sink pad of its
 * element "fK", and the results of "rK". */
typedef struct {
  GPtrArray *frames;
  GPtrArray *results;
  GstCaps *caps;
} Branch;

static void
branches_init (Branch *b, guint n)
{
  for (guint k = 0; k < n; k++) {
    b[k].frames =
        g_ptr_array_new_with_free_func ((GDestroyNotify)gst_buffer_unref);
    b[k].results =
        g_ptr_array_new_with_free_func ((GDestroyNotify)gst_structure_free);
    b[k].caps = NULL;
  }
}

static void
branches_clear (Branch *b, guint n)
{
  for (guint k = 0; k < n; k++) {
    g_ptr_array_unref (b[k].frames);
    g_ptr_array_unref (b[k].results);
    gst_clear_caps (&b[k].caps);
  }
}

static GstElement *
element (GstElement *pipeline, const gchar *prefix, guint k)
{
  g_autofree gchar *name = g_strdup_printf ("%s%u", prefix, k);
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);
  fail_unless (e != NULL, "no element named %s", name);
  return e;
}

/* Plays @pipeline, of @n branches, to EOS, collecting each branch's frames
 * and results; then runs @at_eos (may be NULL) and stops it. */
static void
play_branches (
    GstElement *pipeline, Branch *b, guint n, void (*at_eos) (GstElement *))
{
  GstPad *pads[MAX_BRANCHES];
  for (guint k = 0; k < n; k++) {
    g_autoptr (GstElement) f = element (pipeline, "f", k);
    pads[k] = gst_element_get_static_pad (f, "sink");
    gst_pad_add_probe (pads[k], GST_PAD_PROBE_TYPE_BUFFER, cr_test_keep_frame,
        b[k].frames, NULL);
  }
  GstBus *bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  for (;;) {
    GstMessage *msg = gst_bus_timed_pop_filtered (bus, CR_TEST_WAIT,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_ELEMENT);
    fail_unless (msg != NULL, "no EOS");
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      g_autoptr (GError) err = NULL;
      g_autofree gchar *debug = NULL;
      gst_message_parse_error (msg, &err, &debug);
      fail ("%s: %s\n%s", GST_MESSAGE_SRC_NAME (msg), err->message,
          debug ? debug : "");
    }
    gboolean eos = GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;
    const GstStructure *s = gst_message_get_structure (msg);
    guint k = 0;
    if (s && gst_structure_has_name (s, "cudareduce")) {
      const gchar *src = GST_MESSAGE_SRC_NAME (msg);
      fail_unless (src[0] == 'r' && sscanf (src + 1, "%u", &k) == 1 && k < n,
          "a result from %s", src);
      g_ptr_array_add (b[k].results, gst_structure_copy (s));
    }
    gst_message_unref (msg);
    if (eos)
      break;
  }
  if (at_eos)
    at_eos (pipeline);
  for (guint k = 0; k < n; k++) {
    b[k].caps = gst_pad_get_current_caps (pads[k]);
    gst_object_unref (pads[k]);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  /* Messages left on the bus hold their sources. */
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
}

/* Fails unless @b has @n results, each the reference of its frame. */
static void
check_branch (const Branch *b, guint k, const gchar *format, guint n)
{
  g_autofree gchar *what = g_strdup_printf ("r%u (%s)", k, format);
  GstVideoInfo info;
  fail_unless (b->caps != NULL && gst_video_info_from_caps (&info, b->caps),
      "%s: no caps", what);
  fail_unless (b->results->len == n, "%s: %u results, expected %u", what,
      b->results->len, n);
  fail_unless (b->frames->len == n, "%s: %u frames, expected %u", what,
      b->frames->len, n);
  for (guint j = 0; j < n; j++) {
    CrTestFrame f =
        cr_test_frame_of_buffer (g_ptr_array_index (b->frames, j), &info);
    CrTestExpected e;
    cr_test_expected_init (&e, FALSE, -1);
    cr_test_expect_frame (&e, &f, 0, cr_test_threshold_of (format));
    cr_test_check_result (g_ptr_array_index (b->results, j), &e, what);
    g_free (f.data);
  }
}

/* One branch of host frames into cudareduce "rK" on GPU @gpu. Branches
 * differ in size, so that results that went to the wrong branch differ. */
static gchar *
host_branch (guint k, gint gpu, guint frames)
{
  g_autofree gchar *stats = cr_test_stats_props ("I420");
  return g_strdup_printf (
      "videotestsrc num-buffers=%u pattern=snow ! "
      "video/x-raw,format=I420,width=%u,height=%u ! identity name=f%u ! "
      "cudareduce name=r%u cuda-device-id=%d %s ! fakesink ",
      frames, 1920 - 64 * k, 1080 - 32 * k, k, k, gpu, stats);
}

static GstElement *
launch (const gchar *desc)
{
  g_autoptr (GError) error = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &error);
  fail_unless (
      pipeline != NULL, "%s: %s", desc, error ? error->message : "no pipeline");
  return pipeline;
}

GST_START_TEST (test_host_memory_on_each_gpu)
{
  for (guint gpu = 0; gpu < n_gpus; gpu++) {
    g_autofree gchar *desc = host_branch (0, gpu, 3);
    g_autoptr (GstElement) pipeline = launch (desc);
    Branch b[1];
    branches_init (b, 1);
    log_clear ();
    play_branches (pipeline, b, 1, NULL);
    check_branch (&b[0], 0, "I420", 3);
    g_autofree gchar *used = g_strdup_printf ("r0: using GPU %u:", gpu);
    assert_logged (used);
    branches_clear (b, 1);
  }
}

GST_END_TEST;

/* The GPU after the last is refused when the element starts, with the
 * range there is. */
GST_START_TEST (test_gpu_out_of_range)
{
  g_autofree gchar *desc = host_branch (0, n_gpus, 1);
  g_autoptr (GstElement) pipeline = launch (desc);
  GstBus *bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  GstMessage *msg = gst_bus_timed_pop_filtered (
      bus, CR_TEST_WAIT, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR,
      "cuda-device-id=%u was accepted on a machine of %u GPU(s)", n_gpus,
      n_gpus);
  g_autoptr (GError) err = NULL;
  gst_message_parse_error (msg, &err, NULL);
  g_autofree gchar *range = g_strdup_printf (
      "this machine has %u GPU%s", n_gpus, n_gpus == 1 ? "" : "s");
  fail_unless (strstr (err->message, range) != NULL, "%s", err->message);
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
}

GST_END_TEST;

/* One element on each GPU (at least two elements), in one pipeline, at
 * the same time: each on its GPU, each result its own branch's. */
GST_START_TEST (test_every_gpu_at_once)
{
  const guint n = CLAMP (n_gpus, 2, MAX_BRANCHES);
  have_gpus (2, "an element on each of two GPUs at once");
  g_autoptr (GString) desc = g_string_new (NULL);
  for (guint k = 0; k < n; k++) {
    g_autofree gchar *branch = host_branch (k, k % n_gpus, 20);
    g_string_append (desc, branch);
  }
  g_autoptr (GstElement) pipeline = launch (desc->str);
  Branch b[MAX_BRANCHES];
  branches_init (b, n);
  log_clear ();
  play_branches (pipeline, b, n, NULL);
  for (guint k = 0; k < n; k++) {
    check_branch (&b[k], k, "I420", 20);
    g_autofree gchar *used =
        g_strdup_printf ("r%u: using GPU %u:", k, k % n_gpus);
    assert_logged (used);
  }
  branches_clear (b, n);
}

GST_END_TEST;

#ifdef CR_HAVE_GST_CUDA

/* A new CUDA context on @gpu, as an application makes one. */
static GstCudaContext *
new_context (guint gpu)
{
  /* GStreamer's CUDA library opens the driver on its first use by an
   * element; a context made before that needs it opened. */
  fail_unless (gst_cuda_load_library (), "GStreamer cannot load CUDA");
  GstCudaContext *context = gst_cuda_context_new (gpu);
  fail_unless (context != NULL, "gst_cuda_context_new (%u) failed", gpu);
  return context;
}

/* The GPU the frames were uploaded to, for at_eos. */
static guint upload_gpu;

/* cudareduce ends in cudaupload's context, on its GPU. */
static void
assert_upstream_context (GstElement *pipeline)
{
  g_autoptr (GObject) ours = cr_test_cuda_context_of (pipeline, "r0");
  g_autoptr (GObject) upstream = cr_test_cuda_context_of (pipeline, "up");
  guint gpu = G_MAXUINT;
  fail_unless (ours == upstream, "cudareduce's CUDA context %p, upstream's %p",
      ours, upstream);
  g_object_get (ours, "cuda-device-id", &gpu, NULL);
  fail_unless (gpu == upload_gpu, "the shared context is on GPU %u, not %u",
      gpu, upload_gpu);
}

/* NV12 frames uploaded to GPU @gpu, into cudareduce with @props. */
static gchar *
upload_branch (guint gpu, const gchar *props)
{
  g_autofree gchar *stats = cr_test_stats_props ("NV12");
  return g_strdup_printf (
      "videotestsrc num-buffers=5 pattern=snow ! "
      "video/x-raw,format=NV12,width=1920,height=1080 ! identity name=f0 ! "
      "cudaupload name=up cuda-device-id=%u ! "
      "video/x-raw(memory:CUDAMemory) ! cudareduce name=r0 %s %s ! fakesink",
      gpu, stats, props);
}

static void
check_upload (guint gpu, const gchar *props, void (*prepare) (GstElement *))
{
  g_autofree gchar *desc = upload_branch (gpu, props);
  g_autoptr (GstElement) pipeline = launch (desc);
  Branch b[1];
  if (prepare)
    prepare (pipeline);
  branches_init (b, 1);
  upload_gpu = gpu;
  log_clear ();
  play_branches (pipeline, b, 1, assert_upstream_context);
  check_branch (&b[0], 0, "NV12", 5);
  branches_clear (b, 1);
}

/* With cuda-device-id=-1, frames on any GPU are reduced where they are. */
GST_START_TEST (test_cuda_memory_on_each_gpu)
{
  for (guint gpu = 0; gpu < n_gpus; gpu++)
    check_upload (gpu, "", NULL);
}

GST_END_TEST;

/* cuda-device-id names another GPU than the frames': the element reduces
 * on the frames' GPU (no copy between GPUs) and says so in a warning. */
GST_START_TEST (test_cuda_memory_on_another_gpu_than_asked)
{
  if (!have_gpus (2, "CUDA memory on GPU 1 with cuda-device-id=0"))
    return;
  check_upload (1, "cuda-device-id=0", NULL);
  assert_logged ("r0: cuda-device-id=0, but the frames are on GPU 1");
}

GST_END_TEST;

/* The application gives cudaupload a context on the last GPU and
 * cudareduce another (on GPU 0; a second context of the same GPU where
 * there is one): the element starts in its own, and follows the first
 * frame to the frames' context. */
static void
set_two_contexts (GstElement *pipeline)
{
  GstCudaContext *frames = new_context (n_gpus - 1);
  GstCudaContext *ours = new_context (0);
  GstContext *frames_context = gst_context_new_cuda_context (frames);
  GstContext *our_context = gst_context_new_cuda_context (ours);
  g_autoptr (GstElement) up = gst_bin_get_by_name (GST_BIN (pipeline), "up");
  g_autoptr (GstElement) r = element (pipeline, "r", 0);
  gst_element_set_context (up, frames_context);
  gst_element_set_context (r, our_context);
  gst_context_unref (frames_context);
  gst_context_unref (our_context);
  gst_object_unref (frames);
  gst_object_unref (ours);
}

GST_START_TEST (test_frames_in_another_context)
{
  have_gpus (2, "frames in a context on another GPU than the element's");
  check_upload (n_gpus - 1, "", set_two_contexts);
  /* Into its own context when the caps came, then into the frames'. */
  assert_logged_times ("r0: now in CUDA context", 2);
}

GST_END_TEST;

/* One 320x240 NV12 frame that cudaupload puts in GPU memory of @context;
 * its caps in *@caps. */
static GstBuffer *
upload_one (GstCudaContext *context, GstCaps **caps)
{
  GstElement *pipeline = launch (
      "videotestsrc num-buffers=1 pattern=snow ! "
      "video/x-raw,format=NV12,width=320,height=240 ! cudaupload name=up ! "
      "video/x-raw(memory:CUDAMemory) ! appsink name=sink");
  g_autoptr (GstElement) up = gst_bin_get_by_name (GST_BIN (pipeline), "up");
  g_autoptr (GstElement) sink =
      gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GstContext *c = gst_context_new_cuda_context (context);
  gst_element_set_context (up, c);
  gst_context_unref (c);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  GstSample *sample =
      gst_app_sink_try_pull_sample (GST_APP_SINK (sink), CR_TEST_WAIT);
  fail_unless (sample != NULL, "cudaupload gave no frame");
  GstBuffer *buf = gst_buffer_ref (gst_sample_get_buffer (sample));
  *caps = gst_caps_ref (gst_sample_get_caps (sample));
  gst_sample_unref (sample);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  return buf;
}

/* A buffer whose memories are in two contexts (on two GPUs where there
 * are two) is refused with an error that says so: the element reads a
 * buffer in one context and copies nothing between them. */
GST_START_TEST (test_buffer_in_two_contexts)
{
  have_gpus (2, "a buffer spread over two GPUs");
  GstCudaContext *first = new_context (n_gpus - 1);
  GstCudaContext *second = new_context (0);
  g_autoptr (GstCaps) caps = NULL;
  g_autoptr (GstCaps) second_caps = NULL;
  g_autoptr (GstBuffer) a = upload_one (first, &caps);
  g_autoptr (GstBuffer) b = upload_one (second, &second_caps);
  GstBuffer *mixed = gst_buffer_new ();
  gst_buffer_append_memory (mixed, gst_buffer_get_memory (a, 0));
  gst_buffer_append_memory (mixed, gst_buffer_get_memory (b, 0));
  GST_BUFFER_PTS (mixed) = 0;
  GST_BUFFER_DURATION (mixed) = GST_SECOND / 30;

  g_autofree gchar *stats = cr_test_stats_props ("NV12");
  g_autofree gchar *desc = g_strdup_printf (
      "appsrc name=src format=time ! cudareduce name=r0 %s ! fakesink", stats);
  g_autoptr (GstElement) pipeline = launch (desc);
  g_autoptr (GstElement) src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  g_object_set (src, "caps", caps, NULL);
  GstBus *bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  gst_app_src_push_buffer (GST_APP_SRC (src), mixed);
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  GstMessage *msg = gst_bus_timed_pop_filtered (
      bus, CR_TEST_WAIT, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR,
      "a buffer in two CUDA contexts was not refused");
  g_autoptr (GError) err = NULL;
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (g_error_matches (err, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT)
          && strstr (err->message,
                 "Memory 1 of a buffer is in another CUDA "
                 "context")
              != NULL,
      "%s", err->message);
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
  gst_object_unref (first);
  gst_object_unref (second);
}

GST_END_TEST;

#endif /* CR_HAVE_GST_CUDA */

static const CrTestCase cases[] = {
  CR_TEST_CASE (test_host_memory_on_each_gpu),
  CR_TEST_CASE (test_gpu_out_of_range),
  CR_TEST_CASE (test_every_gpu_at_once),
  { NULL },
};

static int
setup (void)
{
  n_gpus = count_gpus ();
  g_print ("%u GPU(s)\n", n_gpus);
  log_lines = g_string_new (NULL);
  gst_debug_set_threshold_for_name ("cudareduce", GST_LEVEL_INFO);
  gst_debug_add_log_function (keep_log, NULL, NULL);
  if (g_getenv ("GST_DEBUG") == NULL)
    gst_debug_remove_log_function (gst_debug_log_default);
  return 0;
}

/* The cases of CUDA memory, where the plugin reads it. */
static void
add_cases (TCase *tc)
{
  const gchar *missing = cr_test_cuda_memory_missing ();
#ifdef CR_HAVE_GST_CUDA
  if (missing == NULL) {
    tcase_add_test (tc, test_cuda_memory_on_each_gpu);
    tcase_add_test (tc, test_cuda_memory_on_another_gpu_than_asked);
    tcase_add_test (tc, test_frames_in_another_context);
    tcase_add_test (tc, test_buffer_in_two_contexts);
  } else
#endif
    g_print ("NOTE: %s: the cases of CUDA memory were not run\n",
        missing ? missing
                : "this test was built without GStreamer's CUDA library");
}

static const CrGpuTest gpu_multi = {
  .name = "gpu-multi",
  .timeout = 600,
  .needs = CR_TEST_NEEDS_NVRTC,
  .setup = setup,
  .cases = cases,
  .add_cases = add_cases,
};

CR_TEST_GPU_MAIN (gpu_multi);
