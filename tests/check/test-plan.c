/* test-plan.c: which parts of a buffer are reduced and which values a
 * result reports, for each kind of input; no GPU needed. */
#include "cr-error.h"
#include "cr-reducer.h"
#include "cr-test-leaks.h"
#include "cr-test-util.h"
#include "cr-test-video.h"
#include "gstcudareduce-caps.h"
#include "gstcudareduce-plan.h"

#include <string.h>

GST_DEBUG_CATEGORY (gst_cuda_reduce_debug);

static CrInputFormat
video_format (const gchar *format, gint width, gint height)
{
  g_autoptr (GstCaps) caps = cr_test_video_caps (format, width, height, 30);
  CrInputFormat f;
  fail_unless (cr_input_format_from_caps (caps, &f), "%s refused", format);
  return f;
}

static GstCudaReducePlan *
plan_of (const CrInputFormat *f, gboolean per_channel, gint component)
{
  g_autoptr (GError) error = NULL;
  GstCudaReducePlan *l =
      gst_cuda_reduce_plan_new (f, per_channel, component, NULL, &error);
  fail_unless (l != NULL, "no plan: %s", error ? error->message : "");
  return l;
}

/* Value @v comes from part @part, channel @channel. */
static void
assert_value (const GstCudaReducePlan *l, guint v, guint part, guint channel)
{
  fail_unless (v < l->n_values, "value %u of %u", v, l->n_values);
  fail_unless_equals_int (l->values[v].part, part);
  fail_unless_equals_int (l->values[v].channel, channel);
  fail_unless (l->parts[part].keeps, "value %u from a part that keeps none", v);
}

GST_START_TEST (test_layout_types_of_video_formats)
{
  fail_unless_equals_int (video_format ("I420", 8, 8).type, CR_TYPE_UINT8);
  fail_unless_equals_int (video_format ("NV21", 8, 8).type, CR_TYPE_UINT8);
  fail_unless_equals_int (
      video_format ("P010_10LE", 8, 8).type, CR_TYPE_UINT16);
  fail_unless_equals_int (
      video_format ("I420_10LE", 8, 8).type, CR_TYPE_UINT16);
  fail_unless_equals_int (video_format ("BGRx", 8, 8).components, 3);
  fail_unless_equals_int (video_format ("Y444", 8, 8).components, 3);

  /* Not listed in the caps: refused even though GStreamer knows them. */
  g_autoptr (GstCaps) yuy2 = cr_test_video_caps ("YUY2", 8, 8, 30);
  g_autoptr (GstCaps) i420_12 = cr_test_video_caps ("I420_12LE", 8, 8, 30);
  CrInputFormat f;
  fail_if (cr_input_format_from_caps (yuy2, &f));
  fail_if (cr_input_format_from_caps (i420_12, &f));
}

GST_END_TEST;

GST_START_TEST (test_layout_i420_per_component)
{
  CrInputFormat f = video_format ("I420", 37, 23);
  g_autoptr (GstCudaReducePlan) l = plan_of (&f, TRUE, -1);

  fail_unless_equals_int (l->n_parts, 3);
  fail_unless_equals_int (l->n_reducers, 3);
  /* One channel a plane: no per-channel kernel; video: the pitched one. */
  fail_unless_equals_int (l->kernels, CR_KERNELS_PITCHED);
  for (guint k = 0; k < 3; k++) {
    fail_unless_equals_int (l->parts[k].plane, k);
    fail_unless_equals_int (l->parts[k].reducer, k);
    fail_unless_equals_int (l->parts[k].channels, 1);
    assert_value (l, k, k, 0);
  }
  /* Chroma rounds up: 19 x 12. */
  fail_unless_equals_int (l->parts[0].rows, 37 * 23);
  fail_unless_equals_int (l->parts[1].rows, 19 * 12);
  fail_unless_equals_int (l->parts[2].rows, 19 * 12);
}

GST_END_TEST;

GST_START_TEST (test_layout_semi_planar_order)
{
  CrInputFormat nv12 = video_format ("NV12", 16, 8);
  CrInputFormat nv21 = video_format ("NV21", 16, 8);
  g_autoptr (GstCudaReducePlan) a = plan_of (&nv12, TRUE, -1);
  g_autoptr (GstCudaReducePlan) b = plan_of (&nv21, TRUE, -1);

  fail_unless_equals_int (a->n_parts, 2);
  fail_unless_equals_int (a->reducer_channels[1], 2);
  fail_unless_equals_int (
      a->kernels, CR_KERNELS_PITCHED | CR_KERNELS_CHANNELS | CR_KERNELS_VEC2);
  fail_unless_equals_int (a->parts[1].rows, 8 * 4);
  /* Y, U, V whatever the memory order. */
  assert_value (a, 0, 0, 0);
  assert_value (a, 1, 1, 0);
  assert_value (a, 2, 1, 1);
  assert_value (b, 1, 1, 1);
  assert_value (b, 2, 1, 0);

  /* P010's V is the second 16-bit sample of a chroma pixel. */
  CrInputFormat p010 = video_format ("P010_10LE", 16, 8);
  g_autoptr (GstCudaReducePlan) c = plan_of (&p010, TRUE, -1);
  assert_value (c, 1, 1, 0);
  assert_value (c, 2, 1, 1);
}

GST_END_TEST;

GST_START_TEST (test_layout_whole_frame_on_one_reducer)
{
  CrInputFormat f = video_format ("YV12", 16, 8);
  g_autoptr (GstCudaReducePlan) l = plan_of (&f, FALSE, -1);

  fail_unless_equals_int (l->n_parts, 3);
  fail_unless_equals_int (l->n_reducers, 1);
  fail_unless_equals_int (l->kernels, CR_KERNELS_PITCHED);
  fail_unless (l->counts_frames);
  /* YV12 stores V (plane 1) before U (plane 2); Y, U, V is the order. */
  fail_unless_equals_int (l->parts[1].plane, 2);
  fail_unless_equals_int (l->parts[2].plane, 1);
  fail_if (l->parts[0].keeps);
  fail_if (l->parts[1].keeps);
  fail_unless_equals_int (l->n_values, 1);
  assert_value (l, 0, 2, 0);

  /* Semi-planar chroma counts both samples of a pixel. */
  CrInputFormat p010 = video_format ("P010_10LE", 16, 8);
  g_autoptr (GstCudaReducePlan) p = plan_of (&p010, FALSE, -1);
  fail_unless_equals_int (p->parts[1].channels, 1);
  fail_unless_equals_int (p->parts[1].rows, 8 * 4 * 2);
}

GST_END_TEST;

GST_START_TEST (test_layout_rgb_in_memory_order)
{
  CrInputFormat f = video_format ("BGRx", 5, 3);
  g_autoptr (GstCudaReducePlan) l = plan_of (&f, TRUE, -1);
  g_autoptr (GstCudaReducePlan) whole = plan_of (&f, FALSE, -1);

  fail_unless_equals_int (l->n_parts, 1);
  fail_unless_equals_int (l->reducer_channels[0], 4);
  fail_unless_equals_int (
      l->kernels, CR_KERNELS_PITCHED | CR_KERNELS_CHANNELS | CR_KERNELS_VEC4);
  fail_unless_equals_int (l->n_values, 3);
  for (guint v = 0; v < 3; v++)
    assert_value (l, v, 0, v);
  /* Every byte, the padding one too, as before. */
  fail_unless_equals_int (whole->parts[0].channels, 1);
  fail_unless_equals_int (whole->parts[0].rows, 5 * 3 * 4);
}

GST_END_TEST;

GST_START_TEST (test_layout_one_component)
{
  CrInputFormat nv21 = video_format ("NV21", 16, 8);
  CrInputFormat i420 = video_format ("I420", 16, 8);
  g_autoptr (GstCudaReducePlan) v = plan_of (&nv21, FALSE, 2);
  g_autoptr (GstCudaReducePlan) y = plan_of (&i420, TRUE, 0);

  /* V of NV21: the chroma plane alone, its first sample. */
  fail_unless_equals_int (v->n_parts, 1);
  fail_unless_equals_int (v->parts[0].plane, 1);
  fail_unless_equals_int (v->reducer_channels[0], 2);
  fail_unless (v->kernels & CR_KERNELS_CHANNELS);
  fail_if (v->per_channel);
  assert_value (v, 0, 0, 0);
  fail_unless_equals_int (v->n_values, 1);
  /* Y with per-channel results: an array of one. */
  fail_unless_equals_int (y->n_parts, 1);
  fail_unless_equals_int (y->parts[0].plane, 0);
  fail_unless (y->per_channel);
  fail_unless_equals_int (y->n_values, 1);

  /* An audio channel is a component too. */
  g_autoptr (GstCaps) caps = cr_test_audio_caps ("F32LE", 48000, 6);
  CrInputFormat audio;
  fail_unless (cr_input_format_from_caps (caps, &audio));
  g_autoptr (GstCudaReducePlan) a = plan_of (&audio, FALSE, 4);
  fail_unless_equals_int (a->reducer_channels[0], 6);
  assert_value (a, 0, 0, 4);
  /* Six float32 channels fill no load: the general kernel only, and audio
   * has no padded lines. */
  fail_unless_equals_int (a->kernels, CR_KERNELS_CHANNELS);
}

GST_END_TEST;

/* The kernels a program gets: the per-channel ones only for reducers of
 * several channels, packed ones only where those rows fill a 16-byte
 * load, the pitched one only for video. */
GST_START_TEST (test_layout_kernels_by_input)
{
  static const struct {
    const gchar *format;
    guint channels;
    gboolean per_channel;
    CrKernels want;
  } audio[] = {
    { "S16LE", 2, FALSE, 0 },
    { "S16LE", 1, TRUE, 0 },
    { "S16LE", 2, TRUE, CR_KERNELS_CHANNELS | CR_KERNELS_VEC2 },
    { "F32LE", 4, TRUE, CR_KERNELS_CHANNELS | CR_KERNELS_VEC4 },
    { "F32LE", 8, TRUE, CR_KERNELS_CHANNELS },
    { "U8", 8, TRUE, CR_KERNELS_CHANNELS | CR_KERNELS_VEC8 },
    { "F64LE", 2, TRUE, CR_KERNELS_CHANNELS | CR_KERNELS_VEC2 },
    { "F64LE", 4, TRUE, CR_KERNELS_CHANNELS },
  };
  for (guint k = 0; k < G_N_ELEMENTS (audio); k++) {
    g_autoptr (GstCaps) caps =
        cr_test_audio_caps (audio[k].format, 48000, audio[k].channels);
    CrInputFormat f;
    fail_unless (cr_input_format_from_caps (caps, &f));
    g_autoptr (GstCudaReducePlan) l = plan_of (&f, audio[k].per_channel, -1);
    fail_unless (l->kernels == audio[k].want,
        "%s, %u channels%s: kernels 0x%x, not 0x%x", audio[k].format,
        audio[k].channels, audio[k].per_channel ? " per channel" : "",
        l->kernels, audio[k].want);
  }

  g_autoptr (GstCaps) rows = cr_test_tensor_rows_caps (CR_TYPE_INT32, 4, 10);
  CrInputFormat t;
  fail_unless (cr_input_format_from_caps (rows, &t));
  g_autoptr (GstCudaReducePlan) whole = plan_of (&t, FALSE, -1);
  g_autoptr (GstCudaReducePlan) per = plan_of (&t, TRUE, -1);
  fail_unless_equals_int (whole->kernels, 0);
  fail_unless_equals_int (per->kernels, CR_KERNELS_CHANNELS | CR_KERNELS_VEC4);
}

GST_END_TEST;

static GstCudaReducePlan *pair_plan_of (
    const CrInputFormat *f, const gchar *pair);

/* @l's kernels are one of the sets a cache is filled with ahead of time
 * (cr_kernels_variants, cudareduce-monoid --fill-cache). */
static void
assert_prebuilt (const GstCudaReducePlan *l, CrType type, const gchar *what)
{
  CrKernels sets[CR_KERNELS_MAX_VARIANTS];
  const guint n = cr_kernels_variants (type, FALSE, sets);
  for (guint k = 0; k < n; k++)
    if (sets[k] == l->kernels)
      return;
  fail ("%s: kernels 0x%x are not among the %u a cache is filled with", what,
      l->kernels, n);
}

/* Every format the caps list, audio of every sample format and 1 to 9
 * channels, and tensors of every type and 1 to 9 values a row, with one
 * result, per channel and for one component: each plan's program is one
 * --fill-cache builds. */
GST_START_TEST (test_layout_kernels_are_prebuilt)
{
  g_auto (GStrv) names = cr_test_video_format_names ();
  guint plans = 0;
  for (guint k = 0; names[k]; k++) {
    const CrInputFormat f = video_format (names[k], 16, 8);
    for (gint per_channel = 0; per_channel < 2; per_channel++)
      for (gint component = -1; component < (gint)f.components; component++) {
        g_autoptr (GstCudaReducePlan) l = plan_of (&f, per_channel, component);
        assert_prebuilt (l, f.type, names[k]);
        plans++;
      }
  }
  static const gchar *audio[] = { "S8", "U8", "S16LE", "U16LE", "S32LE",
    "U32LE", "F32LE", "F64LE" };
  for (guint k = 0; k < G_N_ELEMENTS (audio); k++)
    for (guint channels = 1; channels <= 9; channels++) {
      g_autoptr (GstCaps) caps = cr_test_audio_caps (audio[k], 48000, channels);
      CrInputFormat f;
      fail_unless (cr_input_format_from_caps (caps, &f), "%s", audio[k]);
      for (gint per_channel = 0; per_channel < 2; per_channel++) {
        g_autoptr (GstCudaReducePlan) l = plan_of (&f, per_channel, -1);
        assert_prebuilt (l, f.type, audio[k]);
        plans++;
      }
    }
  for (gint type = 0; type < CR_N_TYPES; type++)
    for (guint values = 1; values <= 9; values++) {
      g_autoptr (GstCaps) caps = cr_test_tensor_rows_caps (type, values, 10);
      CrInputFormat f;
      fail_unless (cr_input_format_from_caps (caps, &f));
      for (gint per_channel = 0; per_channel < 2; per_channel++) {
        g_autoptr (GstCudaReducePlan) l = plan_of (&f, per_channel, -1);
        assert_prebuilt (l, f.type, cr_type_name (type));
        plans++;
      }
    }
  static const struct {
    const gchar *format, *pair;
  } pairs[] = { { "NV12", "U,V" }, { "I420", "U,V" }, { "RGBA", "R,G" },
    { "P010_10LE", "U,V" }, { "Y444", "Y,U" } };
  for (guint k = 0; k < G_N_ELEMENTS (pairs); k++) {
    const CrInputFormat f = video_format (pairs[k].format, 16, 8);
    g_autoptr (GstCudaReducePlan) l = pair_plan_of (&f, pairs[k].pair);
    assert_prebuilt (l, f.type, pairs[k].pair);
    plans++;
  }
  fail_unless (plans > 300, "%u plans", plans);

  /* One result alone: the first two, without and with the pitched kernel. */
  CrKernels sets[CR_KERNELS_MAX_VARIANTS];
  fail_unless_equals_int (cr_kernels_variants (CR_TYPE_UINT8, TRUE, sets), 2);
  fail_unless (sets[0] == 0 && sets[1] == CR_KERNELS_PITCHED);
  fail_unless_equals_int (cr_kernels_variants (CR_TYPE_UINT8, FALSE, sets),
      CR_KERNELS_MAX_VARIANTS);
  fail_unless_equals_int (
      cr_kernels_variants (CR_TYPE_FLOAT64, FALSE, sets), 6);
}

GST_END_TEST;

GST_START_TEST (test_layout_component_out_of_range)
{
  CrInputFormat f = video_format ("I420", 16, 8);
  g_autoptr (GError) error = NULL;

  fail_unless (gst_cuda_reduce_plan_new (&f, FALSE, 3, NULL, &error) == NULL);
  fail_unless (error != NULL);
  fail_unless (
      strstr (error->message, "component=3") != NULL, "%s", error->message);
  fail_unless (
      strstr (error->message, "3 components") != NULL, "%s", error->message);
  fail_unless_equals_int (gst_cuda_reduce_plan_n_values (&f, TRUE, 3), 0);
  fail_unless_equals_int (gst_cuda_reduce_plan_n_values (&f, TRUE, -1), 3);
  fail_unless_equals_int (gst_cuda_reduce_plan_n_values (&f, TRUE, 1), 1);
}

GST_END_TEST;

/* A tensor of one float32 type with dimensions @dims. */
static GstCaps *
tensor_caps (const gchar *dims)
{
  return gst_caps_new_simple ("other/tensors", "format", G_TYPE_STRING,
      "static", "num_tensors", G_TYPE_INT, 1, "types", G_TYPE_STRING, "float32",
      "dimensions", G_TYPE_STRING, dims, "framerate", GST_TYPE_FRACTION, 0, 1,
      NULL);
}

/* Input of more channels than per-channel results hold: refused with
 * per-channel results or one component (with the bound in the message),
 * reduced whole otherwise, and never a value or part per channel allocated
 * to find that out (2^31 of them were 16 GiB). Returns why not. */
static gchar *
huge_channel_counts (gconstpointer data)
{
  g_autofree gchar *bound = g_strdup_printf ("at most %u", CR_CHANNELS_MAX);
  GstCaps *inputs[] = {
    cr_test_audio_caps ("F32LE", 48000, G_MAXINT),
    tensor_caps ("2000000000"),
    tensor_caps ("3000000000:2"),
  };
  g_autoptr (CrMonoid) sum = cr_monoid_load ("sum", NULL);
  g_autoptr (GString) why = g_string_new (NULL);

  for (guint k = 0; k < G_N_ELEMENTS (inputs); k++) {
    g_autoptr (GstCaps) caps = inputs[k];
    g_autofree gchar *name = gst_caps_to_string (caps);
    CrInputFormat f;
    if (!cr_input_format_from_caps (caps, &f)) {
      g_string_append_printf (why, "%s: refused; ", name);
      continue;
    }
    g_autoptr (GstCudaReducePlan) whole =
        gst_cuda_reduce_plan_new (&f, FALSE, -1, NULL, NULL);
    if (whole == NULL || whole->n_values != 1)
      g_string_append_printf (why, "%s: no whole reduction; ", name);
    for (gint component = -1; component <= 7; component += 8) {
      for (gint per_channel = 1; per_channel >= (component < 0);
           per_channel--) {
        g_autoptr (GError) error = NULL;
        g_autoptr (GstCudaReducePlan) l =
            gst_cuda_reduce_plan_new (&f, per_channel, component, NULL, &error);
        if (l != NULL)
          g_string_append_printf (
              why, "%s, component %d: a plan; ", name, component);
        else if (strstr (error->message, bound) == NULL
            || strstr (error->message, "selects nothing") != NULL)
          g_string_append_printf (why, "%s, component %d: \"%s\"; ", name,
              component, error->message);
      }
    }
    if (gst_cuda_reduce_plan_n_values (&f, TRUE, -1) != 0)
      g_string_append_printf (why, "%s: per-channel values; ", name);
    /* What linking asks: the output's dimensions are left open. */
    g_autoptr (GstCaps) out = cr_tensor_caps_for_input (
        gst_caps_get_structure (caps, 0), sum, TRUE, -1, 0);
    if (gst_caps_is_empty (out)
        || gst_structure_has_field (
            gst_caps_get_structure (out, 0), "dimensions"))
      g_string_append_printf (
          why, "%s: output %" GST_PTR_FORMAT "; ", name, out);
  }
  return why->len ? g_strdup (why->str) : NULL;
}

GST_START_TEST (test_layout_huge_channel_counts)
{
  g_autofree gchar *why =
      cr_test_run_bounded (huge_channel_counts, NULL, 1u << 30);
  fail_unless (why == NULL, "%s", why);
}

GST_END_TEST;

/* An innermost dimension over G_MAXINT: component=7 is one of its indices
 * (it was compared as a negative int and "selected nothing"), refused
 * for the channel bound instead. */
GST_START_TEST (test_layout_component_of_wide_tensor)
{
  g_autoptr (GstCaps) caps = tensor_caps ("3000000000");
  g_autoptr (GError) error = NULL;
  CrInputFormat f;

  fail_unless (cr_input_format_from_caps (caps, &f));
  fail_unless (gst_cuda_reduce_plan_new (&f, FALSE, 7, NULL, &error) == NULL);
  fail_if (strstr (error->message, "selects nothing"), "%s", error->message);
  g_autofree gchar *bound = g_strdup_printf ("at most %u", CR_CHANNELS_MAX);
  fail_unless (strstr (error->message, bound), "%s", error->message);
  fail_unless (g_error_matches (error, CR_ERROR, CR_ERROR_INPUT));
}

GST_END_TEST;

/* Dimensions that give no frame size are refused, not read as far as they
 * go ("2:0" was two channels of unknown size). */
GST_START_TEST (test_layout_malformed_dimensions)
{
  static const gchar *const bad[] = { "2:0", "0", "2:x", "2::3", "-2",
    "2:", "4294967296", "65536:65536:65536:65536:65536" };
  for (guint k = 0; k < G_N_ELEMENTS (bad); k++) {
    g_autoptr (GstCaps) caps = tensor_caps (bad[k]);
    CrInputFormat f;
    g_autoptr (GError) error = NULL;
    fail_if (cr_input_format_parse (caps, &f, &error),
        "dimensions %s taken: %u channels, %" G_GSIZE_FORMAT " bytes", bad[k],
        f.channels, f.frame_bytes);
    fail_unless (g_error_matches (error, CR_ERROR, CR_ERROR_INPUT));
    fail_unless (strstr (error->message, bad[k]) != NULL, "%s: %s", bad[k],
        error->message);
    GST_INFO ("%s", error->message);
  }
  g_autoptr (GstCaps) good = tensor_caps ("3:4:5:6");
  CrInputFormat f;
  fail_unless (cr_input_format_from_caps (good, &f));
  fail_unless_equals_int (f.channels, 3);
  fail_unless_equals_int (f.frame_bytes, 3 * 4 * 5 * 6 * 4);
}

GST_END_TEST;

/* Dimensions as users write them in a caps string: unquoted, one number
 * is an int (taken as the one dimension) and two joined by ':' a flagset,
 * fixed or not, which is refused with how to write them, where it read as
 * caps that are not fixed (or, fixed, as no dimensions: one channel). */
GST_START_TEST (test_layout_dimensions_as_written)
{
  const gchar *tensors =
      "other/tensors,format=static,num_tensors=1,types=float32,"
      "framerate=0/1,dimensions=";
  g_autofree gchar *as_int = g_strconcat (tensors, "6", NULL);
  g_autoptr (GstCaps) int_caps = gst_caps_from_string (as_int);
  CrInputFormat f;
  fail_unless (cr_input_format_from_caps (int_caps, &f));
  fail_unless_equals_int (f.channels, 6);
  fail_unless_equals_int (f.frame_bytes, 6 * 4);

  g_autofree gchar *as_pair = g_strconcat (tensors, "4:2", NULL);
  g_autoptr (GstCaps) pair = gst_caps_from_string (as_pair);
  g_autoptr (GstCaps) fixed = gst_caps_fixate (gst_caps_ref (pair));
  fail_unless (gst_caps_is_fixed (fixed));
  GstCaps *both[] = { pair, fixed };
  for (guint k = 0; k < G_N_ELEMENTS (both); k++) {
    g_autoptr (GError) error = NULL;
    fail_if (cr_input_format_parse (both[k], &f, &error),
        "%" GST_PTR_FORMAT " taken: %u channels", both[k], f.channels);
    fail_unless (g_error_matches (error, CR_ERROR, CR_ERROR_INPUT));
    fail_unless (strstr (error->message, "dimensions=(string)") != NULL
            && strstr (error->message, "flagset") != NULL,
        "%s", error->message);
  }
}

GST_END_TEST;

/* The plan of a monoid counting @pair on @f, which must be made. */
static GstCudaReducePlan *
pair_plan_of (const CrInputFormat *f, const gchar *pair)
{
  g_auto (GStrv) names = g_strsplit (pair, ",", -1);
  g_autoptr (GError) error = NULL;
  GstCudaReducePlan *l = gst_cuda_reduce_plan_new (f, FALSE, -1, names, &error);
  fail_unless (l != NULL, "%s: %s", pair, error ? error->message : "");
  return l;
}

/* Fails unless counting @pair on @f is refused, mentioning @mention. */
static void
assert_pair_refused (const CrInputFormat *f, const gchar *pair,
    gboolean per_channel, gint component, const gchar *mention)
{
  g_auto (GStrv) names = g_strsplit (pair, ",", -1);
  g_autoptr (GError) error = NULL;
  fail_if (gst_cuda_reduce_plan_new (f, per_channel, component, names, &error));
  fail_unless (error && strstr (error->message, mention), "%s: %s", pair,
      error ? error->message : "no error");
}

/* Pairs: one part, the first component's plane, and the second's plane
 * and place beside it; one value; no kernels but the pairs'. */
GST_START_TEST (test_layout_pairs)
{
  const struct {
    const gchar *format, *pair;
    guint x_plane, x_channels, x_channel, y_plane, y_channels, y_channel;
    guint64 rows;
  } cases[] = {
    { "NV12", "U,V", 1, 2, 0, 1, 2, 1, 32 * 12 },
    { "NV21", "U,V", 1, 2, 1, 1, 2, 0, 32 * 12 },
    { "I420", "U,V", 1, 1, 0, 2, 1, 0, 32 * 12 },
    { "YV12", "U,V", 2, 1, 0, 1, 1, 0, 32 * 12 },
    { "Y444", "Y,V", 0, 1, 0, 2, 1, 0, 64 * 24 },
    { "NV24", "0,1", 0, 1, 0, 1, 2, 0, 64 * 24 },
    { "P010_10LE", "U,V", 1, 2, 0, 1, 2, 1, 32 * 12 },
    { "RGBA", "R,G", 0, 4, 0, 0, 4, 1, 64 * 24 },
    { "BGRx", "R,G", 0, 4, 2, 0, 4, 1, 64 * 24 },
    { "BGR", "2,0", 0, 3, 2, 0, 3, 0, 64 * 24 },
    { "GRAY8", "Y,Y", 0, 1, 0, 0, 1, 0, 64 * 24 },
  };
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++) {
    const CrInputFormat f = video_format (cases[k].format, 64, 24);
    g_autoptr (GstCudaReducePlan) l = pair_plan_of (&f, cases[k].pair);
    g_autofree gchar *what =
        g_strdup_printf ("%s %s", cases[k].format, cases[k].pair);
    fail_unless (l->n_parts == 1 && l->n_values == 1 && l->n_reducers == 1
            && l->reducer_channels[0] == 1 && l->kernels == 0,
        "%s", what);
    fail_unless (l->parts[0].plane == cases[k].x_plane
            && l->parts[0].channels == cases[k].x_channels
            && l->pair.x_channel == cases[k].x_channel
            && l->pair.y_plane == cases[k].y_plane
            && l->pair.y_channels == cases[k].y_channels
            && l->pair.y_channel == cases[k].y_channel,
        "%s: plane %u (%u of %u), then %u (%u of %u)", what, l->parts[0].plane,
        l->pair.x_channel, l->parts[0].channels, l->pair.y_plane,
        l->pair.y_channel, l->pair.y_channels);
    fail_unless_equals_uint64 (l->parts[0].rows, cases[k].rows);
    fail_unless_equals_int (gst_cuda_reduce_plan_n_regions (l), 2);
    fail_unless_equals_int (
        gst_cuda_reduce_plan_region_plane (l, 1), cases[k].y_plane);
    g_auto (GStrv) names = g_strsplit (cases[k].pair, ",", -1);
    fail_unless (gst_cuda_reduce_plan_has_pair (l, names));
    fail_if (gst_cuda_reduce_plan_has_pair (l, NULL));
  }

  g_autoptr (GstCaps) caps = cr_test_audio_caps ("S16LE", 48000, 3);
  CrInputFormat audio;
  fail_unless (cr_input_format_from_caps (caps, &audio));
  g_autoptr (GstCudaReducePlan) l = pair_plan_of (&audio, "2,0");
  fail_unless (l->parts[0].channels == 3 && l->pair.x_channel == 2
      && l->pair.y_channels == 3 && l->pair.y_channel == 0);
  g_autoptr (GstCudaReducePlan) whole = plan_of (&audio, FALSE, -1);
  fail_unless (gst_cuda_reduce_plan_has_pair (whole, NULL));
  fail_unless_equals_int (gst_cuda_reduce_plan_n_regions (whole), 1);

  /* What cannot be paired. */
  const CrInputFormat i420 = video_format ("I420", 64, 24);
  const CrInputFormat rgba = video_format ("RGBA", 64, 24);
  const CrInputFormat gray = video_format ("GRAY8", 64, 24);
  assert_pair_refused (&i420, "Y,U", FALSE, -1, "of the same size");
  assert_pair_refused (&rgba, "U,V", FALSE, -1, "it has R, G, B, A");
  assert_pair_refused (&gray, "Y,U", FALSE, -1, "it has Y (or 0 to 0");
  assert_pair_refused (&i420, "1,3", FALSE, -1, "not one of I420's");
  assert_pair_refused (&audio, "U,V", FALSE, -1, "indices from 0 to 2");
  assert_pair_refused (&audio, "0,3", FALSE, -1, "indices from 0 to 2");
  assert_pair_refused (&i420, "U,V", TRUE, -1, "per-channel=false");
  assert_pair_refused (&i420, "U,V", FALSE, 1, "component=-1");
}

GST_END_TEST;

/* Whether the element plans @fixed with these settings, failing unless
 * cr_caps_readable kept it in @readable exactly then. */
static gboolean
planned_as_kept (GstCaps *fixed, GstCaps *readable, gboolean per_channel,
    gint component, gchar **pair, const gchar *what)
{
  CrInputFormat in;
  fail_unless (cr_input_format_from_caps (fixed, &in));
  g_autoptr (GstCudaReducePlan) plan =
      gst_cuda_reduce_plan_new (&in, per_channel, component, pair, NULL);
  g_autofree gchar *str = gst_caps_to_string (fixed);
  fail_unless (gst_caps_can_intersect (fixed, readable) == (plan != NULL),
      "%s: %s %s", what, str, plan ? "left out" : "kept");
  return plan != NULL;
}

/* The caps the element narrows its caps queries to (cr_caps_readable)
 * are those its plans take: every listed video format, and audio at the
 * edges of the channel range, for settings of each kind. */
GST_START_TEST (test_readable_caps_are_planned)
{
  static const struct {
    gboolean per_channel;
    gint component;
    const gchar *pair;
  } settings[] = { { FALSE, -1, NULL }, { TRUE, -1, NULL }, { FALSE, 1, NULL },
    { TRUE, 3, NULL }, { FALSE, -1, "U,V" }, { FALSE, -1, "Y,U" },
    { FALSE, -1, "R,G" }, { FALSE, -1, "A,B" }, { FALSE, -1, "0,2" },
    { TRUE, -1, "0,1" }, { FALSE, 0, "U,V" } };
  const guint channels[] = { 1, 2, 3, 4, 5, CR_CHANNELS_MAX,
    CR_CHANNELS_MAX + 1 };
  g_autoptr (GstCaps) all = gst_caps_from_string (CR_SINK_CAPS);
  g_auto (GStrv) formats = g_strsplit_set (CR_VIDEO_FORMATS, "{}, ", -1);

  for (guint k = 0; k < G_N_ELEMENTS (settings); k++) {
    const gboolean per_channel = settings[k].per_channel;
    const gint component = settings[k].component;
    g_auto (GStrv) pair =
        settings[k].pair ? g_strsplit (settings[k].pair, ",", -1) : NULL;
    g_autoptr (GstCaps) readable =
        cr_caps_readable (all, FALSE, per_channel, component, pair);
    g_autoptr (GstCaps) video_only =
        cr_caps_readable (all, TRUE, per_channel, component, pair);
    g_autofree gchar *what = g_strdup_printf ("per-channel=%d component=%d "
                                              "pair=%s",
        per_channel, component, settings[k].pair);
    guint n_video = 0, n_audio = 0;

    for (guint f = 0; formats[f]; f++) {
      if (!formats[f][0])
        continue;
      g_autoptr (GstCaps) fixed = cr_test_video_caps (formats[f], 64, 48, 30);
      const gboolean planned =
          planned_as_kept (fixed, readable, per_channel, component, pair, what);
      fail_unless (planned
          == planned_as_kept (
              fixed, video_only, per_channel, component, pair, what));
      n_video += planned;
    }
    for (guint c = 0; c < G_N_ELEMENTS (channels); c++) {
      g_autoptr (GstCaps) fixed =
          cr_test_audio_caps ("S16LE", 48000, channels[c]);
      n_audio +=
          planned_as_kept (fixed, readable, per_channel, component, pair, what);
      fail_if (gst_caps_can_intersect (fixed, video_only), "%s: regions", what);
    }
    /* A pair with single components' results is refused whatever the
     * input; the others narrow the input without refusing it all. */
    if (pair && (per_channel || component >= 0))
      fail_unless (n_video + n_audio == 0, "%s: %u formats, %u channel counts",
          what, n_video, n_audio);
    else if (component == 1 || pair)
      fail_unless (n_video + n_audio > 0
              && (n_video < 22 || n_audio < G_N_ELEMENTS (channels)),
          "%s: %u formats, %u channel counts", what, n_video, n_audio);
  }
}

GST_END_TEST;

static Suite *
plan_suite (void)
{
  Suite *s = suite_create ("plan");
  TCase *tc = tcase_create ("plan");
  cr_test_check_objects (tc);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_layout_types_of_video_formats);
  tcase_add_test (tc, test_layout_i420_per_component);
  tcase_add_test (tc, test_layout_semi_planar_order);
  tcase_add_test (tc, test_layout_whole_frame_on_one_reducer);
  tcase_add_test (tc, test_layout_rgb_in_memory_order);
  tcase_add_test (tc, test_layout_one_component);
  tcase_add_test (tc, test_layout_component_out_of_range);
  tcase_add_test (tc, test_layout_kernels_by_input);
  tcase_add_test (tc, test_layout_kernels_are_prebuilt);
  tcase_add_test (tc, test_layout_huge_channel_counts);
  tcase_add_test (tc, test_layout_malformed_dimensions);
  tcase_add_test (tc, test_layout_dimensions_as_written);
  tcase_add_test (tc, test_layout_component_of_wide_tensor);
  tcase_add_test (tc, test_layout_pairs);
  tcase_add_test (tc, test_readable_caps_are_planned);
  return s;
}

GST_CHECK_MAIN (plan);
