/* test-gpu-fused.c: a fused monoid gives exactly its members' results.
 *
 * The same random buffers go through one element with the fused monoid
 * and through one element per member; every member's result fields must
 * equal the fused result's label.field: exactly, except float64 sums,
 * which may differ in their last bits because a fused kernel, using more
 * registers, can run on fewer blocks and so add in another order
 * (test-fuse.c shows the fused code bit for bit equal on the CPU, where the
 * order is the same). On every input family (audio, video
 * with padded rows, tensors), with small buffers (gathered in batches) and
 * large ones (several blocks and staging chunks), per channel, over
 * intervals, and as tensors. Each member alone is checked against the CPU
 * by the other GPU tests. */
#include "cr-test-input.h"
#include "cr-test-main.h"

#include <math.h>
#include <string.h>

static GRand *rand_;

/* Two thresholds apart, through the context structure in the fused
 * element and the threshold property in the members'. */
#define LO_THRESHOLD "0"
#define HI_THRESHOLD "100"

typedef struct {
  const gchar *label;
  const gchar *monoid;
  const gchar *threshold;
} Member;

static const Member members[] = {
  { "sq", "sumsq", "0" },
  { "mm", "minmax", "0" },
  { "lo", "count_gt", LO_THRESHOLD },
  { "hi", "count_gt", HI_THRESHOLD },
  { "mv", "mean_var", "0" },
  { "am", "argmax", "0" },
};

#define FUSED "sq=sumsq+mm=minmax+lo=count_gt+hi=count_gt+mv=mean_var+am=argmax"
#define FUSED_CONTEXT \
  "ctx, lo.threshold=(double)" LO_THRESHOLD \
  ", hi.threshold=(double)" HI_THRESHOLD

/* How the elements run. */
typedef struct {
  gboolean per_channel;
  const gchar *interval; /* ns, "0": one result per buffer */
  gboolean tensor;
} Mode;

/* What one element gave: its messages and, with tensor output, its
 * buffers. */
typedef struct {
  GPtrArray *results; /* GstStructure */
  GPtrArray *buffers; /* GstBuffer */
} Run;

static void
run_clear (Run *run)
{
  g_ptr_array_unref (run->results);
  g_ptr_array_unref (run->buffers);
}

static Run
run_element (GstCaps *caps, CrTestInput *inputs, guint n, const Mode *mode,
    const gchar *monoid, const gchar *threshold, const gchar *context,
    const gchar *what)
{
  GstHarness *h = cr_test_harness (gst_caps_ref (caps), "monoid", monoid,
      "per-channel", mode->per_channel ? "true" : "false", "interval",
      mode->interval, "output", mode->tensor ? "tensor" : "message",
      "threshold", threshold, "context", context, NULL);
  Run run = { NULL,
    g_ptr_array_new_with_free_func ((GDestroyNotify)gst_buffer_unref) };

  for (guint k = 0; k < n; k++)
    cr_test_push_ok (h, cr_test_input_buffer (&inputs[k]), what);
  run.results = cr_test_results_after_eos (h, what);
  GstBuffer *buf;
  while ((buf = gst_harness_try_pull (h)) != NULL)
    if (mode->tensor)
      g_ptr_array_add (run.buffers, buf);
    else
      gst_buffer_unref (buf);
  gst_harness_teardown (h);
  return run;
}

/* Within what another order of additions gives: relative, with a floor
 * for a mean that happens to be near zero. */
#define CLOSE(x, y) (1e-9 * MAX (fabs (x), fabs (y)) + 1e-9)

/* Equal, or for doubles within what another order of additions gives. */
static gboolean
same_value (const GValue *a, const GValue *b)
{
  if (G_VALUE_TYPE (a) != G_VALUE_TYPE (b))
    return FALSE;
  if (GST_VALUE_HOLDS_ARRAY (a)) {
    if (gst_value_array_get_size (a) != gst_value_array_get_size (b))
      return FALSE;
    for (guint k = 0; k < gst_value_array_get_size (a); k++)
      if (!same_value (gst_value_array_get_value (a, k),
              gst_value_array_get_value (b, k)))
        return FALSE;
    return TRUE;
  }
  if (G_VALUE_HOLDS_DOUBLE (a)) {
    const gdouble x = g_value_get_double (a), y = g_value_get_double (b);
    return fabs (x - y) <= CLOSE (x, y);
  }
  return gst_value_compare (a, b) == GST_VALUE_EQUAL;
}

static void
assert_same_value (const GstStructure *fused, const gchar *fused_field,
    const GstStructure *single, const gchar *field, const gchar *what, guint k)
{
  const GValue *a = gst_structure_get_value (fused, fused_field);
  const GValue *b = gst_structure_get_value (single, field);
  fail_unless (a != NULL, "%s, result %u: no field %s in %" GST_PTR_FORMAT,
      what, k, fused_field, fused);
  fail_unless (b != NULL, "%s, result %u: no field %s", what, k, field);
  g_autofree gchar *sa = gst_value_serialize (a);
  g_autofree gchar *sb = gst_value_serialize (b);
  fail_unless (same_value (a, b),
      "%s, result %u: %s is %s, and %s alone gives %s", what, k, fused_field,
      sa, field, sb);
}

/* The member's result fields, as its message lists them after the
 * message's own. */
static GPtrArray *
result_fields (const GstStructure *s)
{
  static const gchar *const own[] = { "timestamp", "stream-time",
    "running-time", "duration", "monoid", "count", "channels", "counts", NULL };
  GPtrArray *names = g_ptr_array_new ();
  for (gint f = 0; f < gst_structure_n_fields (s); f++) {
    const gchar *name = gst_structure_nth_field_name (s, f);
    if (!g_strv_contains (own, name))
      g_ptr_array_add (names, (gpointer)name);
  }
  return names;
}

/* Whether @field of @s is a double, or an array of them. */
static gboolean
holds_doubles (const GstStructure *s, const gchar *field)
{
  const GValue *v = gst_structure_get_value (s, field);
  if (v && GST_VALUE_HOLDS_ARRAY (v) && gst_value_array_get_size (v) > 0)
    v = gst_value_array_get_value (v, 0);
  return v && G_VALUE_HOLDS_DOUBLE (v);
}

/* Tensor @fused_index of @fused against tensor @index of @single: bytes,
 * or with @doubles float64 values as same_value compares them. */
static void
assert_same_memory (GstBuffer *fused, guint fused_index, GstBuffer *single,
    guint index, gboolean doubles, const gchar *what, guint k)
{
  GstMapInfo a, b;
  fail_unless (fused_index < gst_buffer_n_memory (fused));
  fail_unless (index < gst_buffer_n_memory (single));
  GstMemory *ma = gst_buffer_peek_memory (fused, fused_index);
  GstMemory *mb = gst_buffer_peek_memory (single, index);
  fail_unless (gst_memory_map (ma, &a, GST_MAP_READ));
  fail_unless (gst_memory_map (mb, &b, GST_MAP_READ));
  gboolean same = a.size == b.size;
  if (same && doubles) {
    for (gsize e = 0; e < a.size / 8; e++) {
      gdouble x, y;
      memcpy (&x, a.data + 8 * e, 8);
      memcpy (&y, b.data + 8 * e, 8);
      same &= fabs (x - y) <= CLOSE (x, y);
    }
  } else if (same) {
    same = memcmp (a.data, b.data, a.size) == 0;
  }
  fail_unless (same,
      "%s, buffer %u: tensor %u differs from the member's tensor %u", what, k,
      fused_index, index);
  gst_memory_unmap (ma, &a);
  gst_memory_unmap (mb, &b);
}

/* Runs the fused monoid and each member over @inputs and compares. */
static void
check_fused (GstCaps *caps, CrTestInput *inputs, guint n, const Mode *mode,
    const gchar *what)
{
  Run fused =
      run_element (caps, inputs, n, mode, FUSED, "0", FUSED_CONTEXT, what);
  fail_unless (fused.results->len > 0, "%s: no results", what);
  guint tensor = 0;
  guint64 lo_above = 0, hi_above = 0;

  for (guint m = 0; m < G_N_ELEMENTS (members); m++) {
    g_autofree gchar *alone =
        g_strdup_printf ("%s, %s alone", what, members[m].monoid);
    Run single = run_element (caps, inputs, n, mode, members[m].monoid,
        members[m].threshold, "ctx", alone);
    fail_unless_equals_int (single.results->len, fused.results->len);
    g_autoptr (GPtrArray) fields =
        result_fields (g_ptr_array_index (single.results, 0));
    for (guint k = 0; k < fused.results->len; k++) {
      const GstStructure *f = g_ptr_array_index (fused.results, k);
      const GstStructure *s = g_ptr_array_index (single.results, k);
      assert_same_value (f, "count", s, "count", what, k);
      assert_same_value (f, "timestamp", s, "timestamp", what, k);
      assert_same_value (f, "duration", s, "duration", what, k);
      for (guint j = 0; j < fields->len; j++) {
        const gchar *field = g_ptr_array_index (fields, j);
        g_autofree gchar *qualified =
            g_strdup_printf ("%s.%s", members[m].label, field);
        assert_same_value (f, qualified, s, field, what, k);
      }
    }
    if (mode->tensor) {
      fail_unless_equals_int (single.buffers->len, fused.buffers->len);
      for (guint k = 0; k < fused.buffers->len; k++)
        for (guint j = 0; j < fields->len; j++)
          assert_same_memory (g_ptr_array_index (fused.buffers, k), tensor + j,
              g_ptr_array_index (single.buffers, k), j,
              holds_doubles (g_ptr_array_index (single.results, 0),
                  g_ptr_array_index (fields, j)),
              what, k);
    }
    tensor += fields->len;
    run_clear (&single);
  }
  if (mode->tensor)
    fail_unless_equals_int (
        gst_buffer_n_memory (g_ptr_array_index (fused.buffers, 0)), tensor);

  /* The two thresholds reached their own members. */
  for (guint k = 0; k < fused.results->len && !mode->per_channel; k++) {
    guint64 lo = 0, hi = 0;
    const GstStructure *f = g_ptr_array_index (fused.results, k);
    fail_unless (gst_structure_get_uint64 (f, "lo.greater", &lo));
    fail_unless (gst_structure_get_uint64 (f, "hi.greater", &hi));
    lo_above += lo;
    hi_above += hi;
  }
  fail_unless (mode->per_channel || lo_above > hi_above,
      "%s: %" G_GUINT64_FORMAT " elements above " LO_THRESHOLD
      " and %" G_GUINT64_FORMAT " above " HI_THRESHOLD,
      what, lo_above, hi_above);
  run_clear (&fused);
}

static const Mode per_buffer = { FALSE, "0", FALSE };
static const Mode per_channel = { TRUE, "0", FALSE };

/* Stereo S16LE: one frame, a small buffer, and one of several MiB. */
GST_START_TEST (test_fused_audio)
{
  static const guint64 frames[] = { 1, 1000, 700001 };
  g_autoptr (GstCaps) caps = cr_test_audio_caps ("S16LE", 48000, 2);
  CrTestInput inputs[G_N_ELEMENTS (frames)];

  for (guint k = 0; k < G_N_ELEMENTS (frames); k++)
    cr_test_input_raw (&inputs[k], rand_, CR_TYPE_INT16, 2, frames[k]);
  check_fused (caps, inputs, G_N_ELEMENTS (inputs), &per_buffer, "S16LE");
  check_fused (
      caps, inputs, G_N_ELEMENTS (inputs), &per_channel, "S16LE per channel");
  for (guint k = 0; k < G_N_ELEMENTS (frames); k++)
    cr_test_input_clear (&inputs[k]);
}

GST_END_TEST;

/* F32LE mono in 10 ms buffers, one result per 25 ms: intervals that end
 * inside buffers. */
GST_START_TEST (test_fused_intervals)
{
  g_autoptr (GstCaps) caps = cr_test_audio_caps ("F32LE", 48000, 1);
  const Mode mode = { FALSE, "25000000", FALSE };
  CrTestInput inputs[8];

  for (guint k = 0; k < G_N_ELEMENTS (inputs); k++) {
    cr_test_input_raw (&inputs[k], rand_, CR_TYPE_FLOAT32, 1, 480);
    inputs[k].pts = k * 10 * GST_MSECOND;
    inputs[k].duration = 10 * GST_MSECOND;
  }
  check_fused (caps, inputs, G_N_ELEMENTS (inputs), &mode, "F32LE intervals");
  for (guint k = 0; k < G_N_ELEMENTS (inputs); k++)
    cr_test_input_clear (&inputs[k]);
}

GST_END_TEST;

/* Frames with rows further apart than their pixels: all of RGBx per
 * channel, GRAY8 whole. */
GST_START_TEST (test_fused_video)
{
  static const gchar *const formats[] = { "RGBx", "GRAY8" };

  for (guint v = 0; v < G_N_ELEMENTS (formats); v++) {
    const CrTestVideoFormat *f = cr_test_video_format (formats[v]);
    CrTestInput inputs[2];
    for (guint k = 0; k < G_N_ELEMENTS (inputs); k++)
      cr_test_input_video (&inputs[k], rand_, f, 641, 437, 24, 30);
    g_autofree gchar *what = g_strdup_printf ("video %s", formats[v]);
    check_fused (inputs[0].caps, inputs, G_N_ELEMENTS (inputs),
        v == 0 ? &per_channel : &per_buffer, what);
    for (guint k = 0; k < G_N_ELEMENTS (inputs); k++)
      cr_test_input_clear (&inputs[k]);
  }
}

GST_END_TEST;

/* Tensors of 6 int32 channels per row, and of uint8; results as tensors
 * too, one per member's field in order. */
GST_START_TEST (test_fused_tensors)
{
  const Mode tensor = { FALSE, "0", TRUE };
  const Mode tensor_per_channel = { TRUE, "0", TRUE };
  CrTestInput rows[2], bytes[2];

  for (guint k = 0; k < 2; k++) {
    cr_test_input_raw (&rows[k], rand_, CR_TYPE_INT32, 6, 100003);
    cr_test_input_raw (&bytes[k], rand_, CR_TYPE_UINT8, 1, 3000017);
  }
  g_autoptr (GstCaps) rows_caps =
      cr_test_tensor_rows_caps (CR_TYPE_INT32, 6, 100003);
  g_autoptr (GstCaps) bytes_caps = cr_test_tensor_caps (CR_TYPE_UINT8, 3000017);
  check_fused (rows_caps, rows, 2, &per_channel, "int32 tensors per channel");
  check_fused (rows_caps, rows, 2, &tensor_per_channel,
      "int32 tensors per channel, tensor output");
  check_fused (bytes_caps, bytes, 2, &tensor, "uint8 tensor, tensor output");
  for (guint k = 0; k < 2; k++) {
    cr_test_input_clear (&rows[k]);
    cr_test_input_clear (&bytes[k]);
  }
}

GST_END_TEST;

static const CrTestCase cases[] = {
  CR_TEST_CASE (test_fused_audio),
  CR_TEST_CASE (test_fused_intervals),
  CR_TEST_CASE (test_fused_video),
  CR_TEST_CASE (test_fused_tensors),
  { NULL },
};

static const CrGpuTest gpu_fused = {
  .name = "gpu-fused",
  .timeout = 300,
  .rand = &rand_,
  .cases = cases,
};

CR_TEST_GPU_MAIN (gpu_fused);
