/* cr-test-util.c: helpers shared by the tests. */
#include "cr-test-util.h"

#include <stdio.h>

#include "cr-compiler.h"
#include "cr-cuda.h"
#include "cr-error.h"
#include "cr-reducer.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static gboolean
required (const gchar *variable)
{
  return g_strcmp0 (g_getenv (variable), "1") == 0;
}

/* The probe runs in a child process: CUDA does not survive fork(), and
 * gst-check forks for every test, so the test process itself must not have
 * initialised the driver. */
void
cr_test_require_gpu (void)
{
  pid_t pid = fork ();
  int status = 0;

  if (pid == 0) {
    g_autoptr (GError) error = NULL;
    CrDevice *device = cr_device_open (-1, &error);
    if (device == NULL) {
      g_print ("%s\n", error->message);
      _exit (1);
    }
    g_print (
        "GPU: %s (sm_%d)\n", cr_device_name (device), cr_device_arch (device));
    cr_device_unref (device);
    _exit (0);
  }
  if (pid > 0 && waitpid (pid, &status, 0) == pid && WIFEXITED (status)
      && WEXITSTATUS (status) == 0)
    return;
  if (required ("CUDAREDUCE_REQUIRE_GPU")) {
    g_printerr ("CUDAREDUCE_REQUIRE_GPU=1 but no GPU can be used\n");
    exit (1);
  }
  g_print ("SKIP: no GPU can be used\n");
  exit (CR_TEST_SKIP);
}

void
cr_test_require_nvrtc (void)
{
  g_autoptr (GError) error = NULL;
  if (cr_cuda_nvrtc (&error))
    return;
  if (required ("CUDAREDUCE_REQUIRE_NVRTC")) {
    g_printerr ("CUDAREDUCE_REQUIRE_NVRTC=1 but NVRTC cannot be opened: %s\n",
        error->message);
    exit (1);
  }
  g_print ("SKIP: no NVRTC (%s)\n", error->message);
  exit (CR_TEST_SKIP);
}

const gchar *
cr_test_cuda_memory_missing (void)
{
  g_autoptr (GstElementFactory) f = gst_element_factory_find ("cudareduce");
  g_autoptr (GstElementFactory) up = gst_element_factory_find ("cudaupload");
  if (f == NULL)
    return "cudareduce is not registered";
  for (const GList *l = gst_element_factory_get_static_pad_templates (f); l;
       l = l->next) {
    GstStaticPadTemplate *t = l->data;
    if (t->direction == GST_PAD_SINK
        && strstr (t->static_caps.string, "memory:CUDAMemory"))
      return up ? NULL : "no cudaupload (nvcodec)";
  }
  return "cudareduce was built without GStreamer's CUDA library";
}

GObject *
cr_test_cuda_context_of (GstElement *pipeline, const gchar *name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);
  GstQuery *query = gst_query_new_context ("gst.cuda.context");
  GstContext *context = NULL;
  GObject *object = NULL;

  fail_unless (gst_element_query (e, query), "%s has no CUDA context", name);
  gst_query_parse_context (query, &context);
  fail_unless (context != NULL);
  const GstStructure *s = gst_context_get_structure (context);
  const GValue *value = gst_structure_get_value (s, "gst.cuda.context");
  fail_unless (
      value && G_VALUE_HOLDS_OBJECT (value), "%s: %" GST_PTR_FORMAT, name, s);
  object = g_value_dup_object (value);
  gst_query_unref (query);
  gst_object_unref (e);
  return object;
}

GRand *
cr_test_rand (void)
{
  const gchar *env = g_getenv ("CUDAREDUCE_TEST_SEED");
  guint32 seed = env ? (guint32)g_ascii_strtoull (env, NULL, 10)
                     : (guint32)g_get_real_time ();
  g_print ("random seed: CUDAREDUCE_TEST_SEED=%u\n", seed);
  return g_rand_new_with_seed (seed);
}

#define SET(ctype, value) \
  do { \
    ctype v_ = (ctype)(value); \
    memcpy ((guint8 *)data + k * sizeof v_, &v_, sizeof v_); \
  } while (0)

void
cr_test_fill_random (GRand *rand, CrType type, gpointer data, gsize n)
{
  for (gsize k = 0; k < n; k++) {
    guint64 bits = ((guint64)g_rand_int (rand) << 32) | g_rand_int (rand);
    switch (type) {
      case CR_TYPE_INT8:
        SET (gint8, bits);
        break;
      case CR_TYPE_UINT8:
        SET (guint8, bits);
        break;
      case CR_TYPE_INT16:
        SET (gint16, bits);
        break;
      case CR_TYPE_UINT16:
        SET (guint16, bits);
        break;
      case CR_TYPE_INT32:
        SET (gint32, bits);
        break;
      case CR_TYPE_UINT32:
        SET (guint32, bits);
        break;
      case CR_TYPE_INT64:
        SET (gint64, bits);
        break;
      case CR_TYPE_UINT64:
        SET (guint64, bits);
        break;
      case CR_TYPE_FLOAT32:
        SET (gfloat, g_rand_double_range (rand, -1000, 1000));
        break;
      case CR_TYPE_FLOAT64:
        SET (gdouble, g_rand_double_range (rand, -1000, 1000));
        break;
      default:
        g_assert_not_reached ();
    }
  }
}

#undef SET

#define GET(ctype) \
  do { \
    ctype v_; \
    memcpy (&v_, (const guint8 *)data + k * sizeof v_, sizeof v_); \
    return v_; \
  } while (0)

#define GETTER(name, rtype) \
  rtype name (CrType type, gconstpointer data, gsize k) \
  { \
    switch (type) { \
      case CR_TYPE_INT8: \
        GET (gint8); \
      case CR_TYPE_UINT8: \
        GET (guint8); \
      case CR_TYPE_INT16: \
        GET (gint16); \
      case CR_TYPE_UINT16: \
        GET (guint16); \
      case CR_TYPE_INT32: \
        GET (gint32); \
      case CR_TYPE_UINT32: \
        GET (guint32); \
      case CR_TYPE_INT64: \
        GET (gint64); \
      case CR_TYPE_UINT64: \
        GET (guint64); \
      case CR_TYPE_FLOAT32: \
        GET (gfloat); \
      case CR_TYPE_FLOAT64: \
        GET (gdouble); \
      default: \
        g_assert_not_reached (); \
    } \
  }

GETTER (cr_test_get_double, gdouble)
GETTER (cr_test_get_int64, gint64)
GETTER (cr_test_get_uint64, guint64)

#undef GETTER
#undef GET

GstCaps *
cr_test_tensor_caps (CrType type, gsize n)
{
  g_autofree gchar *dims = g_strdup_printf ("%" G_GSIZE_FORMAT, MAX (n, 1));
  return gst_caps_new_simple ("other/tensors", "format", G_TYPE_STRING,
      "static", "num_tensors", G_TYPE_INT, 1, "types", G_TYPE_STRING,
      cr_type_name (type), "dimensions", G_TYPE_STRING, dims, "framerate",
      GST_TYPE_FRACTION, 0, 1, NULL);
}

/* A message holds its source, the bus its messages and the element its
 * bus: a message nobody pops keeps the element alive after the test, and
 * with it the CUDA context it keeps in its contexts. Only what the tests
 * read is kept. */
static GstBusSyncReply
drop_unread_messages (GstBus *bus, GstMessage *msg, gpointer data)
{
  switch (GST_MESSAGE_TYPE (msg)) {
    case GST_MESSAGE_ELEMENT:
    case GST_MESSAGE_ERROR:
    case GST_MESSAGE_WARNING:
    case GST_MESSAGE_EOS:
      return GST_BUS_PASS;
    default:
      /* A handler that drops a message unrefs it. */
      gst_message_unref (msg);
      return GST_BUS_DROP;
  }
}

GstHarness *
cr_test_harness (GstCaps *caps, const gchar *first_prop, ...)
{
  GstElement *element = gst_element_factory_make ("cudareduce", NULL);
  va_list args;

  fail_unless (element != NULL, "cudareduce is not registered");
  va_start (args, first_prop);
  for (const gchar *prop = first_prop; prop;
       prop = va_arg (args, const gchar *)) {
    const gchar *value = va_arg (args, const gchar *);
    gst_util_set_object_arg (G_OBJECT (element), prop, value);
  }
  va_end (args);
  /* Properties first, then the bus, then start: errors from start and
   * set_caps must reach the bus the test reads. */
  GstBus *bus = gst_bus_new ();
  gst_bus_set_sync_handler (bus, drop_unread_messages, NULL, NULL);
  gst_element_set_bus (element, bus);
  gst_object_unref (bus);
  GstHarness *h = gst_harness_new_with_element (element, "sink", "src");
  gst_object_unref (element);
  gst_harness_set_src_caps (h, caps);
  return h;
}

GstStructure *
cr_test_pop_result (GstHarness *h)
{
  GstBus *bus = GST_ELEMENT_BUS (h->element);
  for (;;) {
    /* Results are posted from the element's own thread as the GPU finishes,
     * after the push that submitted them has returned. */
    GstMessage *msg = gst_bus_timed_pop_filtered (
        bus, CR_TEST_WAIT, GST_MESSAGE_ELEMENT | GST_MESSAGE_ERROR);
    fail_unless (msg != NULL, "no result within %" GST_TIME_FORMAT,
        GST_TIME_ARGS (CR_TEST_WAIT));
    if (msg == NULL)
      return NULL;
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      g_autoptr (GError) error = NULL;
      g_autofree gchar *debug = NULL;
      gst_message_parse_error (msg, &error, &debug);
      gst_message_unref (msg);
      fail (
          "error from cudareduce: %s\n%s", error->message, debug ? debug : "");
      return NULL;
    }
    const GstStructure *s = gst_message_get_structure (msg);
    if (gst_structure_has_name (s, "cudareduce")) {
      GstStructure *copy = gst_structure_copy (s);
      gst_message_unref (msg);
      return copy;
    }
    gst_message_unref (msg);
  }
}

GstMessage *
cr_test_pop_error (GstHarness *h)
{
  return gst_bus_timed_pop_filtered (
      GST_ELEMENT_BUS (h->element), CR_TEST_WAIT, GST_MESSAGE_ERROR);
}

GType
cr_test_posted_gtype (CrType type)
{
  switch (type) {
    case CR_TYPE_INT8:
    case CR_TYPE_INT16:
    case CR_TYPE_INT32:
      return G_TYPE_INT;
    case CR_TYPE_UINT8:
    case CR_TYPE_UINT16:
    case CR_TYPE_UINT32:
      return G_TYPE_UINT;
    case CR_TYPE_INT64:
      return G_TYPE_INT64;
    case CR_TYPE_UINT64:
      return G_TYPE_UINT64;
    case CR_TYPE_FLOAT32:
      return G_TYPE_FLOAT;
    case CR_TYPE_FLOAT64:
      return G_TYPE_DOUBLE;
    default:
      g_assert_not_reached ();
  }
}

static const struct {
  const gchar *name;
  gsize size;
} type_facts[CR_N_TYPES] = {
  [CR_TYPE_INT8] = { "int8", 1 },
  [CR_TYPE_UINT8] = { "uint8", 1 },
  [CR_TYPE_INT16] = { "int16", 2 },
  [CR_TYPE_UINT16] = { "uint16", 2 },
  [CR_TYPE_INT32] = { "int32", 4 },
  [CR_TYPE_UINT32] = { "uint32", 4 },
  [CR_TYPE_INT64] = { "int64", 8 },
  [CR_TYPE_UINT64] = { "uint64", 8 },
  [CR_TYPE_FLOAT32] = { "float32", 4 },
  [CR_TYPE_FLOAT64] = { "float64", 8 },
};

const gchar *
cr_test_type_name (CrType type)
{
  g_assert ((guint)type < CR_N_TYPES);
  return type_facts[type].name;
}

gsize
cr_test_type_size (CrType type)
{
  g_assert ((guint)type < CR_N_TYPES);
  return type_facts[type].size;
}

guint8 *
cr_test_random_elements (GRand *rand, CrType type, gsize n)
{
  guint8 *data = g_malloc (MAX (n * cr_type_size (type), 1));
  cr_test_fill_random (rand, type, data, n);
  return data;
}

GstCaps *
cr_test_audio_caps (const gchar *format, gint rate, guint channels)
{
  return gst_caps_new_simple ("audio/x-raw", "format", G_TYPE_STRING, format,
      "layout", G_TYPE_STRING, "interleaved", "rate", G_TYPE_INT, rate,
      "channels", G_TYPE_INT, (gint)channels, NULL);
}

GstCaps *
cr_test_video_caps (const gchar *format, gint width, gint height, gint fps_n)
{
  return gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING, format,
      "width", G_TYPE_INT, width, "height", G_TYPE_INT, height, "framerate",
      GST_TYPE_FRACTION, fps_n, 1, NULL);
}

/* NNStreamer's dimensions are innermost first: "C:N" is N rows of C
 * elements. */
GstCaps *
cr_test_tensor_rows_caps (CrType type, guint channels, guint64 rows)
{
  g_autofree gchar *dims = rows == 1
      ? g_strdup_printf ("%u", channels)
      : g_strdup_printf ("%u:%" G_GUINT64_FORMAT, channels, rows);
  return gst_caps_new_simple ("other/tensors", "format", G_TYPE_STRING,
      "static", "num_tensors", G_TYPE_INT, 1, "types", G_TYPE_STRING,
      cr_type_name (type), "dimensions", G_TYPE_STRING, dims, "framerate",
      GST_TYPE_FRACTION, 0, 1, NULL);
}

void
cr_test_check_time (const GstStructure *s, const gchar *field,
    GstClockTime want, const gchar *what)
{
  guint64 got = 0;
  fail_unless (gst_structure_get_uint64 (s, field, &got), "%s: no guint64 %s",
      what, field);
  fail_unless (got == want,
      "%s: %s %" GST_TIME_FORMAT " (%" G_GUINT64_FORMAT
      "), expected %" GST_TIME_FORMAT " (%" G_GUINT64_FORMAT ")",
      what, field, GST_TIME_ARGS (got), got, GST_TIME_ARGS (want), want);
}

GstBuffer *
cr_test_wrap (gconstpointer data, gsize size)
{
  return gst_buffer_new_wrapped_full (
      GST_MEMORY_FLAG_READONLY, (gpointer)data, size, 0, size, NULL, NULL);
}

void
cr_test_push_ok (GstHarness *h, GstBuffer *buf, const gchar *what)
{
  GstFlowReturn ret = gst_harness_push (h, buf);
  if (ret == GST_FLOW_OK)
    return;
  /* An error from the results thread may be posted just after the push
   * that it failed has returned. */
  g_autoptr (GstMessage) msg = gst_bus_timed_pop_filtered (
      GST_ELEMENT_BUS (h->element), GST_SECOND, GST_MESSAGE_ERROR);
  g_autoptr (GError) error = NULL;
  g_autofree gchar *debug = NULL;
  if (msg)
    gst_message_parse_error (msg, &error, &debug);
  fail ("%s: push returned %s%s%s%s%s", what, gst_flow_get_name (ret),
      error ? ", error from cudareduce: " : "", error ? error->message : "",
      debug ? "\n" : "", debug ? debug : "");
}

GstStructure *
cr_test_push_for_result (
    GstHarness *h, GstBuffer *buf, GstClockTime pts, const gchar *what)
{
  GST_BUFFER_PTS (buf) = pts;
  cr_test_push_ok (h, buf, what);
  GstStructure *s = cr_test_pop_result (h);
  cr_test_check_time (s, "timestamp", pts, what);
  return s;
}

void
cr_test_expect_passthrough (
    GstHarness *h, const guint8 *data, gsize size, const gchar *what)
{
  GstBuffer *out = gst_harness_pull (h);
  GstMapInfo map;

  fail_unless (out != NULL, "%s: the buffer was not passed on", what);
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ),
      "%s: cannot map the buffer passed on", what);
  fail_unless (
      map.size == size && (size == 0 || memcmp (map.data, data, size) == 0),
      "%s: the buffer passed on differs from the input", what);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
}

/* The element forwards EOS only after posting everything before it, so
 * every result is on the bus once the push returns. */
GPtrArray *
cr_test_results_after_eos (GstHarness *h, const gchar *what)
{
  GstBus *bus = GST_ELEMENT_BUS (h->element);
  GPtrArray *results =
      g_ptr_array_new_with_free_func ((GDestroyNotify)gst_structure_free);
  GstMessage *msg;

  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()),
      "%s: EOS was refused", what);
  while ((msg = gst_bus_pop_filtered (
              bus, GST_MESSAGE_ELEMENT | GST_MESSAGE_ERROR))
      != NULL) {
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      g_autoptr (GError) error = NULL;
      g_autofree gchar *debug = NULL;
      gst_message_parse_error (msg, &error, &debug);
      fail ("%s: error from cudareduce: %s\n%s", what, error->message,
          debug ? debug : "");
    }
    const GstStructure *s = gst_message_get_structure (msg);
    if (gst_structure_has_name (s, "cudareduce"))
      g_ptr_array_add (results, gst_structure_copy (s));
    gst_message_unref (msg);
  }
  return results;
}

void
cr_test_expect_refused (GstHarness *h, GstBuffer *buf, const gchar *what)
{
  GstBus *bus = GST_ELEMENT_BUS (h->element);
  GstFlowReturn ret = gst_harness_push (h, buf);
  GstMessage *error = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);

  /* An error found after the push returned would arrive on the bus. */
  if (ret == GST_FLOW_OK && error == NULL)
    error = cr_test_pop_error (h);
  fail_unless (
      ret != GST_FLOW_OK || error != NULL, "%s: accepted, with no error", what);
  if (error) {
    g_autoptr (GError) err = NULL;
    gst_message_parse_error (error, &err, NULL);
    fail_unless (
        err->domain == GST_STREAM_ERROR && err->code == GST_STREAM_ERROR_FORMAT,
        "%s: error %s %d (%s), expected a stream format error", what,
        g_quark_to_string (err->domain), err->code, err->message);
    gst_message_unref (error);
  }
  /* Whatever was in flight has been posted once EOS is through. */
  gst_harness_push_event (h, gst_event_new_eos ());
  GstMessage *result = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT);
  if (result) {
    gchar *text = gst_structure_to_string (gst_message_get_structure (result));
    fail ("%s: a result was posted: %s", what, text);
  }
}

#define CHUNK_BYTES_ENV "GST_CUDAREDUCE_CHUNK_BYTES"

/* The value is saved on the first call, before any test has changed it:
 * gst-check runs each test in a child of the process that started, and
 * the tests put it back when they are done. */
void
cr_test_set_chunk_bytes (const gchar *bytes)
{
  static gboolean saved;
  static gchar *original;

  if (!saved) {
    original = g_strdup (g_getenv (CHUNK_BYTES_ENV));
    saved = TRUE;
  }
  if (bytes)
    g_setenv (CHUNK_BYTES_ENV, bytes, TRUE);
  else if (original)
    g_setenv (CHUNK_BYTES_ENV, original, TRUE);
  else
    g_unsetenv (CHUNK_BYTES_ENV);
}

gchar *
cr_test_make_dir (const gchar *prefix)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *template = g_strconcat (prefix, "-XXXXXX", NULL);
  gchar *dir = g_dir_make_tmp (template, &error);
  fail_unless (dir != NULL, "%s", error ? error->message : "");
  return dir;
}

void
cr_test_remove_dir (const gchar *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const gchar *name;
  while (d && (name = g_dir_read_name (d))) {
    g_autofree gchar *path = g_build_filename (dir, name, NULL);
    if (g_file_test (path, G_FILE_TEST_IS_DIR)
        && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
      cr_test_remove_dir (path);
    else
      g_unlink (path);
  }
  g_rmdir (dir);
}

GPtrArray *
cr_test_files_ending (const gchar *dir, const gchar *suffix)
{
  GPtrArray *paths = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const gchar *name;
  while (d && (name = g_dir_read_name (d)))
    if (g_str_has_suffix (name, suffix))
      g_ptr_array_add (paths, g_build_filename (dir, name, NULL));
  return paths;
}

static GString *engine_debug;

static void
keep_engine_debug (const gchar *domain, GLogLevelFlags level,
    const gchar *message, gpointer data)
{
  g_string_append_printf (engine_debug, "%s\n", message);
}

const GString *
cr_test_keep_engine_debug (void)
{
  if (engine_debug == NULL) {
    engine_debug = g_string_new (NULL);
    g_log_set_handler (
        "cudareduce", G_LOG_LEVEL_DEBUG, keep_engine_debug, NULL);
  }
  g_string_truncate (engine_debug, 0);
  return engine_debug;
}

/* The process's address space now, in bytes (VmSize), or 0. */
static gsize
address_space_bytes (void)
{
  g_autofree gchar *status = NULL;
  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL))
    return 0;
  const gchar *line = strstr (status, "\nVmSize:");
  return line ? (gsize)g_ascii_strtoull (line + 8, NULL, 10) << 10 : 0;
}

gchar *
cr_test_run_bounded (CrTestBody body, gconstpointer data, gsize bytes)
{
  int fds[2];
  int status = 0;

  if (pipe (fds) != 0)
    return g_strdup_printf ("pipe: %s", g_strerror (errno));
  pid_t pid = fork ();
  if (pid < 0)
    return g_strdup_printf ("fork: %s", g_strerror (errno));
  if (pid == 0) {
    close (fds[0]);
    /* Relative to what the process holds already: under AddressSanitizer
     * that is terabytes of shadow. */
    const struct rlimit limit = { address_space_bytes () + bytes,
      address_space_bytes () + bytes };
    g_autofree gchar *why = setrlimit (RLIMIT_AS, &limit) == 0
        ? body (data)
        : g_strdup_printf ("setrlimit: %s", g_strerror (errno));
    if (why && write (fds[1], why, strlen (why)) < 0)
      _exit (2);
    /* _exit: neither the leaks tracer nor LeakSanitizer reports on the
     * child's copy of the parent. */
    _exit (why ? 1 : 0);
  }
  close (fds[1]);
  GString *why = g_string_new (NULL);
  gchar chunk[256];
  gssize n;
  while ((n = read (fds[0], chunk, sizeof chunk)) > 0)
    g_string_append_len (why, chunk, n);
  close (fds[0]);
  if (waitpid (pid, &status, 0) != pid)
    g_string_append_printf (why, "waitpid: %s", g_strerror (errno));
  else if (WIFSIGNALED (status))
    g_string_append_printf (why, "%skilled by signal %d (%s)",
        why->len ? "; " : "", WTERMSIG (status),
        g_strsignal (WTERMSIG (status)));
  else if (WEXITSTATUS (status) != 0 && why->len == 0)
    g_string_append_printf (why, "exit status %d", WEXITSTATUS (status));
  return g_string_free (why, why->len == 0);
}

static guint counted_batches, counted_gathered;

static void
count_batch (GstDebugCategory *category, GstDebugLevel level, const gchar *file,
    const gchar *function, gint line, GObject *object, GstDebugMessage *message,
    gpointer data)
{
  guint n = 0;
  if (sscanf (gst_debug_message_get (message),
          "launching a batch of %u reductions", &n)
      != 1)
    return;
  g_atomic_int_add (&counted_gathered, n);
  if (n > 1)
    g_atomic_int_inc (&counted_batches);
}

void
cr_test_count_batches_start (void)
{
  g_atomic_int_set (&counted_batches, 0);
  g_atomic_int_set (&counted_gathered, 0);
  gst_debug_set_active (TRUE);
  gst_debug_set_threshold_for_name ("cudareduce", GST_LEVEL_LOG);
  gst_debug_remove_log_function (gst_debug_log_default);
  gst_debug_add_log_function (count_batch, NULL, NULL);
}

void
cr_test_count_batches_stop (guint *batches, guint *gathered)
{
  gst_debug_remove_log_function (count_batch);
  gst_debug_add_log_function (gst_debug_log_default, NULL, NULL);
  gst_debug_set_threshold_for_name ("cudareduce", GST_LEVEL_NONE);
  if (batches)
    *batches = g_atomic_int_get (&counted_batches);
  if (gathered)
    *gathered = g_atomic_int_get (&counted_gathered);
}
