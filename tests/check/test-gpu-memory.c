/* test-gpu-memory.c: plain host memory that comes back, which the element
 * registers with the driver and then reads where it lies: three elements
 * after a tee over an upstream pool's memory, and over memory laid out as
 * glibc's heap lays it out, neighbours sharing pages. Every result is
 * checked against the CPU's, in order, none lost. */
#include "cr-test-main.h"

#include <gst/app/gstappsrc.h>
#include <string.h>

static GRand *rand_;

#define TEE_OF_THREE \
  "tee name=t " \
  "t. ! queue ! cudareduce name=a monoid=sum ! fakesink sync=false " \
  "t. ! queue ! cudareduce name=b monoid=minmax ! fakesink sync=false " \
  "t. ! queue ! cudareduce name=c monoid=count_gt threshold=1000 ! " \
  "fakesink sync=false"

/* What the three elements should say of a buffer of int32. */
typedef struct {
  gint64 sum, min, max;
  guint64 greater;
} Expected;

/* Fills @n int32 at @data with fresh random values, and says what the
 * elements should find. */
static void
fill (guint8 *data, gsize n, Expected *e)
{
  gint32 *x = (gint32 *)data;
  e->sum = 0;
  e->greater = 0;
  e->min = G_MAXINT64;
  e->max = G_MININT64;
  for (gsize i = 0; i < n; i++) {
    x[i] = g_rand_int_range (rand_, -5000, 5000);
    e->sum += x[i];
    e->min = MIN (e->min, x[i]);
    e->max = MAX (e->max, x[i]);
    e->greater += x[i] > 1000;
  }
}

static guint64
get_u64 (const GstStructure *s, const gchar *field)
{
  guint64 v = 0;
  fail_unless (gst_structure_get_uint64 (s, field, &v), "no guint64 %s in %s",
      field, gst_structure_to_string (s));
  return v;
}

/* A pipeline of appsrc (int32 tensors of @elements) into the tee of three,
 * PLAYING; @src is its appsrc. */
static GstElement *
tee_pipeline (gsize elements, GstElement **src)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *desc = g_strdup_printf (
      "appsrc name=src format=time caps=\"other/tensors,format=static,"
      "num_tensors=1,types=int32,dimensions=%" G_GSIZE_FORMAT
      ",framerate=0/1\" ! " TEE_OF_THREE,
      elements);
  GstElement *pipeline = gst_parse_launch (desc, &error);
  fail_unless (pipeline != NULL, "%s", error ? error->message : "");
  *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING)
      != GST_STATE_CHANGE_FAILURE);
  return pipeline;
}

/* Reads the messages of @n buffers, whose timestamps are their index in
 * milliseconds, up to EOS, and checks each against expected[index]; then
 * stops and frees @pipeline. */
static void
check_tee_results (
    GstElement *pipeline, GstElement *src, guint n, const Expected *expected)
{
  const gchar *names[] = { "a", "b", "c" };
  GstBus *bus = gst_element_get_bus (pipeline);
  guint seen[3] = { 0, 0, 0 };

  for (;;) {
    GstMessage *msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
        GST_MESSAGE_ELEMENT | GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
    fail_unless (msg != NULL, "timed out after %u, %u and %u results", seen[0],
        seen[1], seen[2]);
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS) {
      gst_message_unref (msg);
      break;
    }
    fail_unless (
        GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT, "%" GST_PTR_FORMAT, msg);
    const GstStructure *st = gst_message_get_structure (msg);
    const gchar *from = GST_OBJECT_NAME (GST_MESSAGE_SRC (msg));
    guint e = 0;
    while (e < 3 && strcmp (from, names[e]) != 0)
      e++;
    fail_unless (e < 3, "a message from %s", from);
    const guint k = get_u64 (st, "timestamp") / GST_MSECOND;
    fail_unless_equals_int (k, seen[e]++); /* in order, none lost */
    gint64 sum = 0;
    gint v = 0;
    if (e == 0) {
      fail_unless (gst_structure_get_int64 (st, "sum", &sum));
      fail_unless_equals_int64 (sum, expected[k].sum);
    } else if (e == 1) {
      fail_unless (gst_structure_get_int (st, "min", &v));
      fail_unless_equals_int64 (v, expected[k].min);
      fail_unless (gst_structure_get_int (st, "max", &v));
      fail_unless_equals_int64 (v, expected[k].max);
    } else {
      fail_unless_equals_uint64 (get_u64 (st, "greater"), expected[k].greater);
    }
    gst_message_unref (msg);
  }
  for (guint e = 0; e < 3; e++)
    fail_unless_equals_int (seen[e], n);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (pipeline);
}

static void
push (GstElement *src, GstBuffer *buf, guint k)
{
  GST_BUFFER_PTS (buf) = k * GST_MSECOND;
  fail_unless_equals_int (
      gst_app_src_push_buffer (GST_APP_SRC (src), buf), GST_FLOW_OK);
}

/* Three elements after a tee read the same recycled memory: each buffer's
 * memory is seen three times, so it is registered with the driver on its
 * first buffer, by whichever element comes second, while the others copy
 * it or read it. A fresh pipeline and pool each run, so registrations
 * start over. */
GST_START_TEST (test_tee_of_three_over_recycled_memory)
{
  enum { RUNS = 8, N = 48, ELEMENTS = 262144 /* 1 MiB of int32 */ };

  for (guint run = 0; run < RUNS; run++) {
    GstElement *src;
    GstElement *pipeline = tee_pipeline (ELEMENTS, &src);
    GstBufferPool *pool = gst_buffer_pool_new ();
    GstStructure *config = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_set_params (config, NULL, ELEMENTS * 4, 4, 4);
    fail_unless (gst_buffer_pool_set_config (pool, config));
    fail_unless (gst_buffer_pool_set_active (pool, TRUE));
    Expected expected[N];

    for (guint k = 0; k < N; k++) {
      GstBuffer *buf = NULL;
      fail_unless_equals_int (
          gst_buffer_pool_acquire_buffer (pool, &buf, NULL), GST_FLOW_OK);
      GstMapInfo map;
      fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
      fill (map.data, ELEMENTS, &expected[k]);
      gst_buffer_unmap (buf, &map);
      push (src, buf, k);
    }
    gst_app_src_end_of_stream (GST_APP_SRC (src));
    check_tee_results (pipeline, src, N, expected);
    gst_buffer_pool_set_active (pool, FALSE);
    gst_object_unref (pool);
  }
}

GST_END_TEST;

/* How many memories of a generation are alive, and a wait for none. */
typedef struct {
  GMutex lock;
  GCond freed;
  guint alive[2]; /* by generation, even and odd */
} Generations;

typedef struct {
  Generations *gens;
  guint parity;
} MemoryOwner;

static void
memory_freed (gpointer data)
{
  MemoryOwner *owner = data;
  g_mutex_lock (&owner->gens->lock);
  owner->gens->alive[owner->parity]--;
  g_cond_broadcast (&owner->gens->freed);
  g_mutex_unlock (&owner->gens->lock);
  g_free (owner);
}

/* Plain memories laid out as glibc's heap serves large buffers once
 * buffers of their size have been freed (as in any process that has run
 * a pipeline before): one after another, a few bytes apart, so that each
 * shares its first and last page with its neighbours. They come in
 * generations, even ones in the even slots and odd ones in the odd slots,
 * and a generation's slots are taken again only once the memories of the
 * one before are freed, as the heap hands out bytes again only once they
 * are freed. Each memory goes twice through the tee of three, so that the
 * element that saw it first registers it when it comes back; it is freed,
 * and unregistered, while its neighbours of the next generation are read
 * and registered. The driver registers whole pages: at most one of two
 * neighbours can be registered, the other is copied, and the results are
 * right either way. Before the element kept a set of the pages it had
 * registered, under one lock with the driver's calls, bench-pipeline died
 * inside cuMemHostRegister on such memory (its 4 MiB tee step, fresh
 * memory for each buffer from the heap) while a neighbour was being
 * unregistered. */
GST_START_TEST (test_tee_of_three_over_neighbours_sharing_pages)
{
  enum {
    GENERATIONS = 100,
    SLOTS = 8, /* four a generation */
    ELEMENTS = 1048576, /* 4 MiB of int32 */
    BYTES = ELEMENTS * 4,
    GAP = 48, /* glibc's chunk header and alignment, about */
    N = GENERATIONS * SLOTS,
  };
  /* Starting at a different offset into a page each time. */
  const gsize start = 16 + 16 * g_rand_int_range (rand_, 0, 256);
  guint8 *heap = g_malloc (start + SLOTS * (BYTES + GAP));
  Expected of_slot[SLOTS], *expected = g_new (Expected, N);
  Generations gens = { 0 };

  g_mutex_init (&gens.lock);
  g_cond_init (&gens.freed);
  for (guint m = 0; m < SLOTS; m++)
    fill (heap + start + m * (BYTES + GAP), ELEMENTS, &of_slot[m]);
  GstElement *src;
  GstElement *pipeline = tee_pipeline (ELEMENTS, &src);
  guint k = 0;
  for (guint g = 0; g < GENERATIONS; g++) {
    const guint parity = g % 2;
    const gint64 until = g_get_monotonic_time () + 30 * G_TIME_SPAN_SECOND;
    g_mutex_lock (&gens.lock);
    while (gens.alive[parity] > 0)
      fail_unless (g_cond_wait_until (&gens.freed, &gens.lock, until),
          "generation %u: the memories of generation %u are not freed", g,
          g - 2);
    gens.alive[parity] = SLOTS / 2;
    g_mutex_unlock (&gens.lock);
    GstMemory *mems[SLOTS / 2];
    guint slot[SLOTS / 2];
    for (guint m = 0; m < SLOTS / 2; m++) {
      MemoryOwner *owner = g_new (MemoryOwner, 1);
      owner->gens = &gens;
      owner->parity = parity;
      slot[m] = 2 * m + parity;
      mems[m] = gst_memory_new_wrapped (GST_MEMORY_FLAG_READONLY,
          heap + start + slot[m] * (BYTES + GAP), BYTES, 0, BYTES, owner,
          memory_freed);
    }
    /* Each memory twice, in a different order each time, as a pool hands
     * back what downstream released first. */
    for (guint visit = 0; visit < 2; visit++) {
      guint order[SLOTS / 2];
      for (guint m = 0; m < SLOTS / 2; m++)
        order[m] = m;
      for (guint m = SLOTS / 2 - 1; m > 0; m--) {
        const guint j = g_rand_int_range (rand_, 0, m + 1);
        const guint t = order[m];
        order[m] = order[j];
        order[j] = t;
      }
      for (guint m = 0; m < SLOTS / 2; m++, k++) {
        GstBuffer *buf = gst_buffer_new ();
        gst_buffer_append_memory (buf, gst_memory_ref (mems[order[m]]));
        expected[k] = of_slot[slot[order[m]]];
        push (src, buf, k);
      }
    }
    /* Freed, and unregistered, when the last element is done with them. */
    for (guint m = 0; m < SLOTS / 2; m++)
      gst_memory_unref (mems[m]);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  check_tee_results (pipeline, src, N, expected);
  g_mutex_lock (&gens.lock);
  fail_unless (gens.alive[0] == 0 && gens.alive[1] == 0);
  g_mutex_unlock (&gens.lock);
  g_mutex_clear (&gens.lock);
  g_cond_clear (&gens.freed);
  g_free (expected);
  g_free (heap);
}

GST_END_TEST;

static const CrTestCase cases[] = {
  CR_TEST_CASE (test_tee_of_three_over_recycled_memory),
  CR_TEST_CASE (test_tee_of_three_over_neighbours_sharing_pages),
  { NULL },
};

static const CrGpuTest gpu_memory = {
  .name = "gpu-memory",
  .timeout = 300,
  .rand = &rand_,
  .cases = cases,
};

CR_TEST_GPU_MAIN (gpu_memory);
