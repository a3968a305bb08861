/* test-gpu-element.c: the element on a GPU, beyond the built-ins: the two
 * runtime monoids of the original design defined inline through properties,
 * context changes while PLAYING without recompiling, tensor output (and a
 * flush while it renegotiates), many buffers, two elements in one pipeline,
 * and the errors only a GPU can produce (device id out of range, a fault in
 * a user's monoid, a compile error reported through the element). References
 * are computed here on the CPU from fresh random data. */
#include "cr-test-main.h"

#include <gst/app/gstappsrc.h>
#include <math.h>
#include <string.h>

static GRand *rand_;

static GstBuffer *
random_buffer (CrType type, gsize n)
{
  GstBuffer *buf =
      gst_buffer_new_allocate (NULL, n * cr_type_size (type), NULL);
  GstMapInfo map;
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  cr_test_fill_random (rand_, type, map.data, n);
  gst_buffer_unmap (buf, &map);
  return buf;
}

static guint64
get_u64 (const GstStructure *s, const gchar *field)
{
  guint64 v = 0;
  fail_unless (gst_structure_get_uint64 (s, field, &v), "no guint64 %s in %s",
      field, gst_structure_to_string (s));
  return v;
}

static gint64
get_i64 (const GstStructure *s, const gchar *field)
{
  gint64 v = 0;
  fail_unless (gst_structure_get_int64 (s, field, &v), "no gint64 %s", field);
  return v;
}

/* Counts the element's compiles and cache loads: each logs one INFO line
 * "monoid NAME on TYPE input: compiled|cached image ...". */
static gint builds;

static void
count_builds (GstDebugCategory *category, GstDebugLevel level,
    const gchar *file, const gchar *function, gint line, GObject *object,
    GstDebugMessage *message, gpointer user_data)
{
  const gchar *text = gst_debug_message_get (message);
  if (level == GST_LEVEL_INFO
      && strcmp (gst_debug_category_get_name (category), "cudareduce") == 0
      && g_str_has_prefix (text, "monoid ") && strstr (text, " input: "))
    g_atomic_int_inc (&builds);
}

static const gchar *sumsq_props[] = {
  "monoid",
  "sumsq_int32",
  "accumulator",
  "sum:int64;sumsq:int64",
  "load",
  "Acc r; r.sum = x; r.sumsq = (int64) x * x; return r;",
  "combine",
  ("Acc r; r.sum = a.sum + b.sum; r.sumsq = a.sumsq + b.sumsq; "
   "return r;"),
  "identity",
  "Acc r; r.sum = 0; r.sumsq = 0; return r;",
};

static GstHarness *
sumsq_harness (GstCaps *caps, const gchar *output)
{
  GstHarness *h = cr_test_harness (caps, sumsq_props[0], sumsq_props[1],
      sumsq_props[2], sumsq_props[3], sumsq_props[4], sumsq_props[5],
      sumsq_props[6], sumsq_props[7], sumsq_props[8], sumsq_props[9], "output",
      output, NULL);
  return h;
}

static void
sumsq_reference (GstBuffer *buf, guint64 *sum, guint64 *sumsq, gsize *n)
{
  GstMapInfo map;
  gst_buffer_map (buf, &map, GST_MAP_READ);
  *n = map.size / 4;
  *sum = *sumsq = 0;
  for (gsize k = 0; k < *n; k++) {
    gint64 x = cr_test_get_int64 (CR_TYPE_INT32, map.data, k);
    /* Wrapping, as int64 accumulators on the GPU wrap. */
    *sum += (guint64)x;
    *sumsq += (guint64)(x * x);
  }
  gst_buffer_unmap (buf, &map);
}

GST_START_TEST (test_inline_sumsq_audio)
{
  GstCaps *caps =
      gst_caps_from_string ("audio/x-raw, format=S32LE, "
                            "layout=interleaved, rate=48000, channels=2");
  GstHarness *h = sumsq_harness (caps, "message");
  static const gsize frames[] = { 480, 1, 48000, 0, 96001 };

  for (guint k = 0; k < G_N_ELEMENTS (frames); k++) {
    GstBuffer *buf = random_buffer (CR_TYPE_INT32, frames[k] * 2);
    guint64 sum, sumsq;
    gsize n;
    sumsq_reference (buf, &sum, &sumsq, &n);
    GST_BUFFER_PTS (buf) = k * GST_SECOND;
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
    GstStructure *s = cr_test_pop_result (h);
    fail_unless (s != NULL);
    fail_unless_equals_string (
        gst_structure_get_string (s, "monoid"), "sumsq_int32");
    fail_unless_equals_uint64 (get_u64 (s, "count"), n);
    fail_unless_equals_uint64 ((guint64)get_i64 (s, "sum"), sum);
    fail_unless_equals_uint64 ((guint64)get_i64 (s, "sumsq"), sumsq);
    fail_unless_equals_uint64 (get_u64 (s, "timestamp"), k * GST_SECOND);
    /* No buffer duration: it comes from the samples and the rate. */
    fail_unless_equals_uint64 (get_u64 (s, "duration"),
        gst_util_uint64_scale (frames[k], GST_SECOND, 48000));
    gst_structure_free (s);
    /* Message mode passes the buffer through untouched. */
    GstBuffer *out = gst_harness_pull (h);
    fail_unless_equals_int (gst_buffer_get_size (out), frames[k] * 8);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_inline_sumsq_tensor_output)
{
  GstHarness *h =
      sumsq_harness (cr_test_tensor_caps (CR_TYPE_INT32, 100000), "tensor");
  GstBuffer *buf = random_buffer (CR_TYPE_INT32, 100000);
  guint64 sum, sumsq, got;
  gsize n;

  sumsq_reference (buf, &sum, &sumsq, &n);
  GST_BUFFER_PTS (buf) = 5 * GST_SECOND;
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  GstBuffer *out = gst_harness_pull (h);
  fail_unless_equals_int (gst_buffer_n_memory (out), 2);
  fail_unless_equals_int (gst_buffer_get_size (out), 16);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), 5 * GST_SECOND);
  fail_unless_equals_uint64 (GST_BUFFER_DURATION (out), GST_SECOND / 30);
  gst_buffer_extract (out, 0, &got, 8);
  fail_unless_equals_uint64 (got, sum);
  gst_buffer_extract (out, 8, &got, 8);
  fail_unless_equals_uint64 (got, sumsq);
  gst_buffer_unref (out);

  g_autoptr (GstCaps) caps = gst_pad_get_current_caps (h->sinkpad);
  g_autoptr (GstCaps) want = gst_caps_from_string (
      "other/tensors, "
      "format=static, num_tensors=2, types=\"int64,int64\", "
      "dimensions=\"1,1\", framerate=0/1");
  fail_unless (gst_caps_is_equal (caps, want));
  /* Messages are posted in tensor mode too, unless turned off. */
  GstStructure *s = cr_test_pop_result (h);
  fail_unless (s != NULL);
  gst_structure_free (s);
  gst_harness_teardown (h);
}

GST_END_TEST;

static guint64
count_above (GstBuffer *buf, gdouble threshold)
{
  GstMapInfo map;
  guint64 count = 0;
  gst_buffer_map (buf, &map, GST_MAP_READ);
  for (gsize k = 0; k < map.size / 4; k++)
    count += cr_test_get_double (CR_TYPE_FLOAT32, map.data, k) > threshold;
  gst_buffer_unmap (buf, &map);
  return count;
}

GST_START_TEST (test_threshold_changes_without_recompiling)
{
  g_atomic_int_set (&builds, 0);
  GstHarness *h = cr_test_harness (cr_test_tensor_caps (CR_TYPE_FLOAT32, 1),
      "monoid", "above", "context-fields", "threshold:float64", "accumulator",
      "above:uint64", "load", "Acc r; r.above = x > ctx.threshold; return r;",
      "combine", "Acc r; r.above = a.above + b.above; return r;", "identity",
      "Acc r; r.above = 0; return r;", NULL);
  static const gdouble thresholds[] = { 0, -500, 250.5, 999.9, -1000, 17 };

  /* Caps were set: the monoid is built once, before any buffer. */
  fail_unless_equals_int (g_atomic_int_get (&builds), 1);
  for (guint k = 0; k < G_N_ELEMENTS (thresholds); k++) {
    g_object_set (h->element, "threshold", thresholds[k], NULL);
    GstBuffer *buf = random_buffer (CR_TYPE_FLOAT32, 200000 + k);
    guint64 want = count_above (buf, thresholds[k]);
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
    GstStructure *s = cr_test_pop_result (h);
    fail_unless_equals_uint64 (get_u64 (s, "above"), want);
    gst_structure_free (s);
  }
  fail_unless_equals_int (g_atomic_int_get (&builds), 1);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_context_structure)
{
  GstHarness *h = cr_test_harness (cr_test_tensor_caps (CR_TYPE_INT16, 1),
      "monoid", "in_range", "context-fields", "lo:int32;hi:int32",
      "accumulator", "inside:uint64", "load",
      "Acc r; r.inside = x >= ctx.lo && x <= ctx.hi; return r;", "combine",
      "Acc r; r.inside = a.inside + b.inside; return r;", "identity",
      "Acc r; r.inside = 0; return r;", "context",
      "ctx, lo=(int)-100, hi=(int)2000", NULL);
  static const gint ranges[][2] = { { -100, 2000 }, { 0, 32767 }, { -5, -5 } };

  for (guint k = 0; k < G_N_ELEMENTS (ranges); k++) {
    g_autofree gchar *ctx = g_strdup_printf (
        "ctx, lo=(int)%d, hi=(int)%d", ranges[k][0], ranges[k][1]);
    gst_util_set_object_arg (G_OBJECT (h->element), "context", ctx);
    GstBuffer *buf = random_buffer (CR_TYPE_INT16, 300000);
    GstMapInfo map;
    guint64 want = 0;
    gst_buffer_map (buf, &map, GST_MAP_READ);
    for (gsize i = 0; i < 300000; i++) {
      gint64 x = cr_test_get_int64 (CR_TYPE_INT16, map.data, i);
      want += x >= ranges[k][0] && x <= ranges[k][1];
    }
    gst_buffer_unmap (buf, &map);
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
    GstStructure *s = cr_test_pop_result (h);
    fail_unless_equals_uint64 (get_u64 (s, "inside"), want);
    gst_structure_free (s);
  }

  /* A context field the monoid does not declare is an error, not ignored. */
  gst_util_set_object_arg (G_OBJECT (h->element), "context", "ctx, low=(int)1");
  fail_unless_equals_int (
      gst_harness_push (h, random_buffer (CR_TYPE_INT16, 10)), GST_FLOW_ERROR);
  GstMessage *msg = cr_test_pop_error (h);
  fail_unless (msg != NULL);
  g_autoptr (GError) error = NULL;
  gst_message_parse_error (msg, &error, NULL);
  fail_unless (strstr (error->message, "low") != NULL, "%s", error->message);
  gst_message_unref (msg);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_monoid_change_while_playing)
{
  GstHarness *h = cr_test_harness (
      cr_test_tensor_caps (CR_TYPE_UINT8, 1), "monoid", "sum", NULL);
  GstBuffer *buf = random_buffer (CR_TYPE_UINT8, 5000);
  GstMapInfo map;
  guint64 sum = 0;
  guint max = 0;

  gst_buffer_map (buf, &map, GST_MAP_READ);
  for (gsize k = 0; k < map.size; k++) {
    sum += map.data[k];
    max = MAX (max, map.data[k]);
  }
  gst_buffer_unmap (buf, &map);
  fail_unless_equals_int (
      gst_harness_push (h, gst_buffer_ref (buf)), GST_FLOW_OK);
  GstStructure *s = cr_test_pop_result (h);
  fail_unless_equals_uint64 (get_u64 (s, "sum"), sum);
  gst_structure_free (s);

  g_object_set (h->element, "monoid", "max", NULL);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  s = cr_test_pop_result (h);
  guint got = 0;
  fail_unless (gst_structure_get_uint (s, "max", &got));
  fail_unless_equals_int (got, max);
  fail_if (gst_structure_has_field (s, "sum"));
  gst_structure_free (s);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A flushing seek whose flush-start reaches the element while it
 * renegotiates its output: the buffer is dropped as any flush drops one,
 * with no "not negotiated" warning (the base class posts one when its caps
 * meet a flushing pad), and after the flush the new monoid's results go out
 * with new caps. The probe sends flush-start from inside the first query the
 * base class sends downstream while it renegotiates (caps or accept-caps),
 * shortly before it sends the caps. */
static GstPadProbeReturn
flush_during_caps_query (GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  const GstQueryType type = GST_QUERY_TYPE (GST_PAD_PROBE_INFO_QUERY (info));
  if (type != GST_QUERY_CAPS && type != GST_QUERY_ACCEPT_CAPS)
    return GST_PAD_PROBE_OK;
  GstPad *sinkpad = gst_element_get_static_pad (GST_ELEMENT (data), "sink");
  fail_unless (gst_pad_send_event (sinkpad, gst_event_new_flush_start ()));
  gst_object_unref (sinkpad);
  return GST_PAD_PROBE_REMOVE;
}

static void
fail_if_warned (GstBus *bus)
{
  GstMessage *msg =
      gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING | GST_MESSAGE_ERROR);
  if (msg == NULL)
    return;
  g_autoptr (GError) error = NULL;
  const gboolean warning = GST_MESSAGE_TYPE (msg) == GST_MESSAGE_WARNING;
  if (warning)
    gst_message_parse_warning (msg, &error, NULL);
  else
    gst_message_parse_error (msg, &error, NULL);
  gst_message_unref (msg);
  fail (
      "%s from cudareduce: %s", warning ? "warning" : "error", error->message);
}

GST_START_TEST (test_flush_while_renegotiating)
{
  GstHarness *h = cr_test_harness (cr_test_tensor_caps (CR_TYPE_UINT8, 1),
      "monoid", "sum", "output", "tensor", "post-messages", "false", NULL);
  GstBus *bus = GST_ELEMENT_BUS (h->element);
  GstBuffer *buf = random_buffer (CR_TYPE_UINT8, 5000);
  GstMapInfo map;
  guint64 sum = 0, got_sum = 0;
  guint8 max = 0, got_max = 0;

  gst_buffer_map (buf, &map, GST_MAP_READ);
  for (gsize k = 0; k < map.size; k++) {
    sum += map.data[k];
    max = MAX (max, map.data[k]);
  }
  gst_buffer_unmap (buf, &map);
  fail_unless_equals_int (
      gst_harness_push (h, gst_buffer_ref (buf)), GST_FLOW_OK);
  GstBuffer *out = gst_harness_pull (h);
  fail_unless_equals_int (gst_buffer_get_size (out), 8);
  gst_buffer_extract (out, 0, &got_sum, 8);
  fail_unless_equals_uint64 (got_sum, sum);
  gst_buffer_unref (out);

  g_object_set (h->element, "monoid", "max", NULL);
  /* The base class queries the peer pad itself, not through our pad. */
  gst_pad_add_probe (h->sinkpad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM,
      flush_during_caps_query, h->element, NULL);
  fail_unless_equals_int (
      gst_harness_push (h, gst_buffer_ref (buf)), GST_FLOW_FLUSHING);
  fail_if_warned (bus);

  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  GstSegment segment;
  gst_segment_init (&segment, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless_equals_int (gst_buffer_get_size (out), 1);
  gst_buffer_extract (out, 0, &got_max, 1);
  fail_unless_equals_int (got_max, max);
  gst_buffer_unref (out);
  g_autoptr (GstCaps) caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless_equals_string (
      gst_structure_get_string (gst_caps_get_structure (caps, 0), "types"),
      "uint8");
  fail_if_warned (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Data far from zero: a sum-of-squares variance would lose every digit
 * (1e18 squares against a variance of 1/3); mean_var must not. */
/* Fails unless @meta's structure has exactly @want's fields and values. */
static void
check_meta_fields (
    GstCustomMeta *meta, const GstStructure *want, const gchar *what)
{
  fail_unless (meta != NULL, "%s: no meta on the buffer", what);
  const GstStructure *got = gst_custom_meta_get_structure (meta);
  fail_unless_equals_int (
      gst_structure_n_fields (got), gst_structure_n_fields (want));
  for (gint k = 0; k < gst_structure_n_fields (want); k++) {
    const gchar *name = gst_structure_nth_field_name (want, k);
    const GValue *v = gst_structure_get_value (got, name);
    fail_unless (v != NULL, "%s: the meta has no %s", what, name);
    fail_unless (gst_value_compare (v, gst_structure_get_value (want, name))
            == GST_VALUE_EQUAL,
        "%s: %s differs from the message's", what, name);
  }
}

/* attach-meta: each result on the buffer it describes, as a GstCustomMeta
 * with its message's fields; none without the property; with an interval,
 * on the buffer that closes it, and none on the others. */
GST_START_TEST (test_attach_meta)
{
  for (gint on = 0; on < 2; on++) {
    GstHarness *h = cr_test_harness (cr_test_audio_caps ("F32LE", 48000, 2),
        "monoid", "sumsq", "per-channel", "true", "attach-meta",
        on ? "true" : "false", NULL);
    GstStructure *s = cr_test_push_for_result (
        h, random_buffer (CR_TYPE_FLOAT32, 480 * 2), 0, "attach-meta");
    GstBuffer *out = gst_harness_pull (h);
    GstCustomMeta *meta =
        gst_buffer_get_custom_meta (out, "GstCudaReduceResultMeta");
    if (on)
      check_meta_fields (meta, s, "attach-meta=true");
    else
      fail_if (meta != NULL, "a meta without attach-meta");
    gst_buffer_unref (out);
    gst_structure_free (s);
    gst_harness_teardown (h);
  }

  /* 20 ms intervals over buffers of 10 ms: the second closes the first. */
  GstHarness *h =
      cr_test_harness (cr_test_audio_caps ("F32LE", 48000, 1), "monoid",
          "mean_var", "attach-meta", "true", "interval", "20000000", NULL);
  for (guint k = 0; k < 3; k++) {
    GstBuffer *buf = random_buffer (CR_TYPE_FLOAT32, 480);
    GST_BUFFER_PTS (buf) = k * 10 * GST_MSECOND;
    GST_BUFFER_DURATION (buf) = 10 * GST_MSECOND;
    cr_test_push_ok (h, buf, "interval");
    GstBuffer *out = gst_harness_pull (h);
    GstCustomMeta *meta =
        gst_buffer_get_custom_meta (out, "GstCudaReduceResultMeta");
    if (k == 1) {
      GstStructure *s = cr_test_pop_result (h);
      cr_test_check_time (s, "timestamp", 0, "the first interval");
      check_meta_fields (meta, s, "the buffer closing the interval");
      gst_structure_free (s);
    } else {
      fail_if (
          meta != NULL, "a meta on buffer %u, which closes no interval", k);
    }
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_mean_var_large_offset)
{
  static const struct {
    CrType type;
    gdouble offset;
  } cases[] = { { CR_TYPE_FLOAT64, 1e9 }, { CR_TYPE_FLOAT32, 1e4 } };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++) {
    const gsize n = 3000001;
    GstHarness *h = cr_test_harness (
        cr_test_tensor_caps (cases[c].type, n), "monoid", "mean_var", NULL);
    GstBuffer *buf =
        gst_buffer_new_allocate (NULL, n * cr_type_size (cases[c].type), NULL);
    GstMapInfo map;
    long double sum = 0, m2 = 0;

    gst_buffer_map (buf, &map, GST_MAP_WRITE);
    for (gsize k = 0; k < n; k++) {
      gdouble x = cases[c].offset + g_rand_double_range (rand_, -1, 1);
      if (cases[c].type == CR_TYPE_FLOAT32) {
        gfloat f = (gfloat)x;
        memcpy (map.data + 4 * k, &f, 4);
      } else {
        memcpy (map.data + 8 * k, &x, 8);
      }
    }
    for (gsize k = 0; k < n; k++)
      sum += cr_test_get_double (cases[c].type, map.data, k);
    long double mean = sum / n;
    for (gsize k = 0; k < n; k++) {
      long double d = cr_test_get_double (cases[c].type, map.data, k) - mean;
      m2 += d * d;
    }
    gst_buffer_unmap (buf, &map);
    gdouble want_var = (gdouble)(m2 / n), got_mean = 0, got_var = 0;

    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
    GstStructure *s = cr_test_pop_result (h);
    fail_unless (gst_structure_get_double (s, "mean", &got_mean));
    fail_unless (gst_structure_get_double (s, "variance", &got_var));
    fail_unless (fabs (got_mean - (gdouble)mean) <= 1e-12 * cases[c].offset,
        "%s: mean %.17g, reference %.17g", cr_type_name (cases[c].type),
        got_mean, (gdouble)mean);
    fail_unless (fabs (got_var - want_var) <= 1e-9 * want_var,
        "%s: variance %.17g, reference %.17g", cr_type_name (cases[c].type),
        got_var, want_var);
    gst_structure_free (s);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

GST_START_TEST (test_many_buffers)
{
  GstHarness *h = cr_test_harness (
      cr_test_tensor_caps (CR_TYPE_FLOAT64, 1), "monoid", "minmax", NULL);

  for (guint k = 0; k < 500; k++) {
    gsize n = 1 + g_rand_int_range (rand_, 0, 70000);
    GstBuffer *buf = random_buffer (CR_TYPE_FLOAT64, n);
    GstMapInfo map;
    gdouble lo = G_MAXDOUBLE, hi = -G_MAXDOUBLE, got;
    gst_buffer_map (buf, &map, GST_MAP_READ);
    for (gsize i = 0; i < n; i++) {
      gdouble x = cr_test_get_double (CR_TYPE_FLOAT64, map.data, i);
      lo = MIN (lo, x);
      hi = MAX (hi, x);
    }
    gst_buffer_unmap (buf, &map);
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
    GstStructure *s = cr_test_pop_result (h);
    fail_unless (gst_structure_get_double (s, "min", &got));
    fail_unless (got == lo, "buffer %u: min %g, wanted %g", k, got, lo);
    fail_unless (gst_structure_get_double (s, "max", &got));
    fail_unless (got == hi, "buffer %u: max %g, wanted %g", k, got, hi);
    gst_structure_free (s);
    gst_buffer_unref (gst_harness_pull (h));
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_two_elements_in_a_pipeline)
{
  g_autoptr (GError) error = NULL;
  GstElement *pipeline = gst_parse_launch (
      "appsrc name=src format=time "
      "caps=\"other/tensors,format=static,num_tensors=1,types=int32,"
      "dimensions=1,framerate=0/1\" ! cudareduce name=a monoid=sum ! "
      "cudareduce name=b monoid=argmax ! fakesink sync=false",
      &error);
  fail_unless (pipeline != NULL, "%s", error ? error->message : "");
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstBus *bus = gst_element_get_bus (pipeline);
  enum { N = 40 };
  gint64 sums[N];
  gint32 maxima[N];
  guint64 argmaxes[N];

  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING)
      != GST_STATE_CHANGE_FAILURE);
  for (guint k = 0; k < N; k++) {
    gsize n = 1000 + g_rand_int_range (rand_, 0, 100000);
    GstBuffer *buf = random_buffer (CR_TYPE_INT32, n);
    GstMapInfo map;
    gst_buffer_map (buf, &map, GST_MAP_READ);
    sums[k] = 0;
    maxima[k] = G_MININT32;
    for (gsize i = 0; i < n; i++) {
      gint32 x = (gint32)cr_test_get_int64 (CR_TYPE_INT32, map.data, i);
      sums[k] += x;
      if (x > maxima[k]) {
        maxima[k] = x;
        argmaxes[k] = i;
      }
    }
    gst_buffer_unmap (buf, &map);
    GST_BUFFER_PTS (buf) = k * GST_MSECOND;
    fail_unless_equals_int (
        gst_app_src_push_buffer (GST_APP_SRC (src), buf), GST_FLOW_OK);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));

  guint seen_a = 0, seen_b = 0;
  for (;;) {
    GstMessage *msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
        GST_MESSAGE_ELEMENT | GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
    fail_unless (msg != NULL, "timed out");
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS) {
      gst_message_unref (msg);
      break;
    }
    fail_unless (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT);
    const GstStructure *s = gst_message_get_structure (msg);
    const gchar *from = GST_OBJECT_NAME (GST_MESSAGE_SRC (msg));
    guint64 ts = get_u64 (s, "timestamp");
    guint k = ts / GST_MSECOND;
    if (strcmp (from, "a") == 0) {
      fail_unless_equals_int (k, seen_a++); /* in order, none lost */
      fail_unless_equals_int64 (get_i64 (s, "sum"), sums[k]);
    } else {
      fail_unless_equals_int (k, seen_b++);
      gint value = 0;
      fail_unless (gst_structure_get_int (s, "value", &value));
      fail_unless_equals_int (value, maxima[k]);
      fail_unless_equals_uint64 (get_u64 (s, "index"), argmaxes[k]);
    }
    gst_message_unref (msg);
  }
  fail_unless_equals_int (seen_a, N);
  fail_unless_equals_int (seen_b, N);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (pipeline);
}

GST_END_TEST;

static void
assert_error_message (GstMessage *msg, GQuark domain, gint code,
    const gchar *in_message, const gchar *in_debug)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *debug = NULL;
  fail_unless (msg != NULL, "no error was posted");
  gst_message_parse_error (msg, &error, &debug);
  fail_unless (error->domain == domain && error->code == code, "%s %d: %s",
      g_quark_to_string (error->domain), error->code, error->message);
  fail_unless (strstr (error->message, in_message) != NULL,
      "\"%s\" does not mention \"%s\"", error->message, in_message);
  if (in_debug)
    fail_unless (debug && strstr (debug, in_debug) != NULL,
        "debug text does not mention \"%s\"", in_debug);
  gst_message_unref (msg);
}

GST_START_TEST (test_fault_in_user_monoid)
{
  GstHarness *h = cr_test_harness (cr_test_tensor_caps (CR_TYPE_INT32, 1),
      "monoid", "faulty", "accumulator", "s:wide", "load",
      "Acc r; r.s = x + *(volatile int *) (0x10 + i * 4096); "
      "return r;",
      "combine", "Acc r; r.s = a.s + b.s; return r;", "identity",
      "Acc r; r.s = 0; return r;", NULL);

  /* The launch is asynchronous: the push may return before the fault is
   * known, but the error follows, and the element accepts nothing after. */
  GstFlowReturn first =
      gst_harness_push (h, random_buffer (CR_TYPE_INT32, 100000));
  fail_unless (first == GST_FLOW_OK || first == GST_FLOW_ERROR);
  assert_error_message (cr_test_pop_error (h), GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_FAILED, "CUDA_ERROR_ILLEGAL_ADDRESS", NULL);
  fail_unless_equals_int (
      gst_harness_push (h, random_buffer (CR_TYPE_INT32, 100)), GST_FLOW_ERROR);
  /* Nothing was posted or pushed as a result. */
  fail_if (gst_bus_have_pending (GST_ELEMENT_BUS (h->element)));
  fail_unless_equals_int (gst_harness_buffers_received (h), 0);
  gst_harness_teardown (h);

  /* The driver keeps the fault for the whole process (even contexts made
   * afterwards fail), so a new element must say so, naming it, rather
   * than crash or hang. */
  GstElement *e = gst_element_factory_make ("cudareduce", NULL);
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (e, bus);
  GstStateChangeReturn ret = gst_element_set_state (e, GST_STATE_PAUSED);
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  if (ret == GST_STATE_CHANGE_FAILURE)
    assert_error_message (msg, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
        "CUDA_ERROR_ILLEGAL_ADDRESS", NULL);
  else
    fail_unless (msg == NULL);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
}

GST_END_TEST;

GST_START_TEST (test_compile_error_through_element)
{
  GstHarness *h = cr_test_harness (cr_test_tensor_caps (CR_TYPE_FLOAT32, 1),
      "monoid", "broken", "accumulator", "s:wide", "load",
      "Acc r; r.s = x + no_such_variable; return r;", "combine",
      "Acc r; r.s = a.s + b.s; return r;", "identity",
      "Acc r; r.s = 0; return r;", NULL);

  fail_unless (
      gst_harness_push (h, random_buffer (CR_TYPE_FLOAT32, 10)) != GST_FLOW_OK);
  /* The NVRTC log and the generated source, numbered, are in the debug. */
  assert_error_message (cr_test_pop_error (h), GST_LIBRARY_ERROR,
      GST_LIBRARY_ERROR_SETTINGS, "no_such_variable", "   1 | ");
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_device_id_out_of_range)
{
  GstElement *e = gst_element_factory_make ("cudareduce", NULL);
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (e, bus);
  g_object_set (e, "cuda-device-id", 4096, NULL);
  fail_unless_equals_int (
      gst_element_set_state (e, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
  assert_error_message (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR),
      GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND, "out of range", NULL);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
}

GST_END_TEST;

GST_START_TEST (test_partial_element_is_an_error)
{
  GstHarness *h = cr_test_harness (
      cr_test_tensor_caps (CR_TYPE_INT32, 1), "monoid", "sum", NULL);
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 4 * 100 + 3, NULL);
  gst_buffer_memset (buf, 0, 1, 403);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_ERROR);
  assert_error_message (cr_test_pop_error (h), GST_STREAM_ERROR,
      GST_STREAM_ERROR_FORMAT, "whole number", NULL);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Caps the element cannot reduce are refused at set_caps with an error
 * that says why and what to fix, never an abort (2^31 channels once
 * allocated 16 GiB). */
GST_START_TEST (test_refused_caps_say_why)
{
  const struct {
    const gchar *caps;
    gboolean per_channel;
    const gchar *says;
  } cases[] = {
    { "other/tensors,format=static,num_tensors=1,types=float32,"
      "dimensions=(string)2:0,framerate=0/1",
        FALSE, "\"0\" is not an extent" },
    { "audio/x-raw,format=F32LE,layout=interleaved,rate=48000,"
      "channels=2147483647",
        TRUE, "2097120" },
  };

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++) {
    GstHarness *h =
        cr_test_harness (gst_caps_from_string (cases[k].caps), "monoid", "sum",
            "per-channel", cases[k].per_channel ? "true" : "false", NULL);
    fail_unless (gst_harness_push (h, random_buffer (CR_TYPE_FLOAT32, 64))
        != GST_FLOW_OK);
    assert_error_message (cr_test_pop_error (h), GST_STREAM_ERROR,
        GST_STREAM_ERROR_FORMAT, cases[k].says, NULL);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

static const CrTestCase cases[] = {
  CR_TEST_CASE (test_inline_sumsq_audio),
  CR_TEST_CASE (test_inline_sumsq_tensor_output),
  CR_TEST_CASE (test_threshold_changes_without_recompiling),
  CR_TEST_CASE (test_context_structure),
  CR_TEST_CASE (test_monoid_change_while_playing),
  CR_TEST_CASE (test_flush_while_renegotiating),
  CR_TEST_CASE (test_mean_var_large_offset),
  CR_TEST_CASE (test_attach_meta),
  CR_TEST_CASE (test_many_buffers),
  CR_TEST_CASE (test_two_elements_in_a_pipeline),
  CR_TEST_CASE (test_fault_in_user_monoid),
  CR_TEST_CASE (test_compile_error_through_element),
  CR_TEST_CASE (test_device_id_out_of_range),
  CR_TEST_CASE (test_partial_element_is_an_error),
  CR_TEST_CASE (test_refused_caps_say_why),
  { NULL },
};

static int
setup (void)
{
  gst_debug_set_active (TRUE);
  gst_debug_set_threshold_for_name ("cudareduce", GST_LEVEL_INFO);
  gst_debug_add_log_function (count_builds, NULL, NULL);
  return 0;
}

static const CrGpuTest gpu_element = {
  .name = "gpu-element",
  .timeout = 600,
  .rand = &rand_,
  .setup = setup,
  .cases = cases,
};

CR_TEST_GPU_MAIN (gpu_element);
