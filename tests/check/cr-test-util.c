/* cr-test-util.c: helpers shared by the tests. */
#include "cr-test-util.h"

#include "cr-compiler.h"
#include "cr-cuda.h"
#include "cr-error.h"
#include "cr-reducer.h"

#include <string.h>
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
