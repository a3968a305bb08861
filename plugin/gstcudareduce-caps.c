/* gstcudareduce-caps.c: mapping between caps and element types. */
#include "gstcudareduce-caps.h"

#include "cr-error.h"
#include "gstcudareduce-cuda.h"
#include "gstcudareduce-plan.h"

#include <gst/audio/audio.h>
#include <string.h>

static const struct {
  const gchar *audio;
  CrType type;
} audio_formats[] = {
  { "S8", CR_TYPE_INT8 },
  { "U8", CR_TYPE_UINT8 },
  { "S16LE", CR_TYPE_INT16 },
  { "U16LE", CR_TYPE_UINT16 },
  { "S32LE", CR_TYPE_INT32 },
  { "U32LE", CR_TYPE_UINT32 },
  { "F32LE", CR_TYPE_FLOAT32 },
  { "F64LE", CR_TYPE_FLOAT64 },
};

/* Whether @format is one of CR_VIDEO_FORMATS, the list the caps give. */
static gboolean
video_format_listed (const gchar *format)
{
  static GStrv listed;
  if (g_once_init_enter (&listed)) {
    g_autofree gchar *names =
        g_strdelimit (g_strdup (CR_VIDEO_FORMATS), "{},", ' ');
    g_once_init_leave (&listed, g_strsplit (names, " ", -1));
  }
  for (guint k = 0; listed[k]; k++)
    if (listed[k][0] && strcmp (listed[k], format) == 0)
      return TRUE;
  return FALSE;
}

static CrType
type_for_format (const gchar *media, const gchar *format)
{
  if (format == NULL)
    return CR_TYPE_INVALID;
  if (strcmp (media, "audio/x-raw") == 0) {
    for (guint k = 0; k < G_N_ELEMENTS (audio_formats); k++)
      if (strcmp (audio_formats[k].audio, format) == 0)
        return audio_formats[k].type;
  } else if (strcmp (media, "video/x-raw") == 0) {
    /* Only formats of whole, little-endian samples: 8 bits, or 10 to 16
     * in 16 (CR_VIDEO_FORMATS). */
    const GstVideoFormatInfo *info =
        gst_video_format_get_info (gst_video_format_from_string (format));
    if (info == NULL || !video_format_listed (format))
      return CR_TYPE_INVALID;
    return GST_VIDEO_FORMAT_INFO_DEPTH (info, 0) > 8 ? CR_TYPE_UINT16
                                                     : CR_TYPE_UINT8;
  } else if (strcmp (media, "other/tensors") == 0) {
    return cr_type_from_name (format);
  }
  return CR_TYPE_INVALID;
}

GList *
cr_caps_structure_types (const GstStructure *s)
{
  const gchar *media = gst_structure_get_name (s);
  const gchar *field =
      strcmp (media, "other/tensors") == 0 ? "types" : "format";
  const GValue *v = gst_structure_get_value (s, field);
  GList *types = NULL;

  if (v == NULL)
    return NULL;
  if (G_VALUE_HOLDS_STRING (v)) {
    CrType t = type_for_format (media, g_value_get_string (v));
    if (t != CR_TYPE_INVALID)
      types = g_list_append (types, GINT_TO_POINTER (t));
  } else if (GST_VALUE_HOLDS_LIST (v)) {
    for (guint k = 0; k < gst_value_list_get_size (v); k++) {
      const GValue *item = gst_value_list_get_value (v, k);
      if (!G_VALUE_HOLDS_STRING (item))
        continue;
      CrType t = type_for_format (media, g_value_get_string (item));
      if (t != CR_TYPE_INVALID && !g_list_find (types, GINT_TO_POINTER (t)))
        types = g_list_append (types, GINT_TO_POINTER (t));
    }
  }
  return types;
}

/* Written unquoted in a caps string, "dimensions=4:2" is read as a
 * flagset (4 and 2 in hexadecimal, the flags masked, so not even the
 * numbers survive) and "dimensions=4" as an int. The int is the one
 * dimension it says; anything else but a string is refused with how to
 * write it, before it reads as caps that are not fixed or as no
 * dimensions at all. */
static gboolean
dimensions_are_text (const GstStructure *s, GError **error)
{
  const GValue *v = gst_structure_get_value (s, "dimensions");
  if (v == NULL || G_VALUE_HOLDS_STRING (v) || G_VALUE_HOLDS_INT (v))
    return TRUE;
  g_autofree gchar *shown = gst_value_serialize (v);
  g_set_error (error, CR_ERROR, CR_ERROR_INPUT,
      "tensor dimensions were read as a %s (%s), not as text: GStreamer "
      "reads two numbers joined by ':' as a flagset; write them as a "
      "string, as in dimensions=(string)4:2",
      G_VALUE_TYPE_NAME (v), shown ? shown : "?");
  return FALSE;
}

/* A tensor's frame size and innermost dimension from NNStreamer's
 * "d1:d2:..." dimensions (innermost first), each of 1 to G_MAXUINT32.
 * Without dimensions, or with an empty string, neither is fixed.
 * An int (dimensions=6, unquoted) is the one dimension it says. */
static gboolean
parse_dimensions (
    const GstStructure *s, CrType type, CrInputFormat *fmt, GError **error)
{
  const gchar *dims = gst_structure_get_string (s, "dimensions");
  g_autofree gchar *one = NULL;
  gint extent = 0;
  if (dims == NULL && gst_structure_get_int (s, "dimensions", &extent))
    dims = one = g_strdup_printf ("%d", extent);
  /* Bytes, not only elements, must fit: gsize, with room to round up. */
  const guint64 max_elements = G_MAXSIZE / 16;
  guint64 elements = 1;

  if (dims == NULL || *dims == '\0')
    return TRUE;
  g_auto (GStrv) parts = g_strsplit (dims, ":", -1);
  for (guint k = 0; parts[k]; k++) {
    guint64 d = 0;
    if (!g_ascii_string_to_unsigned (parts[k], 10, 1, G_MAXUINT32, &d, NULL)) {
      g_set_error (error, CR_ERROR, CR_ERROR_INPUT,
          "tensor dimensions \"%s\": \"%s\" is not an extent; give each "
          "dimension as a number from 1 to %u, innermost first, separated "
          "by ':'",
          dims, parts[k], G_MAXUINT32);
      return FALSE;
    }
    if (d > max_elements / elements) {
      g_set_error (error, CR_ERROR, CR_ERROR_INPUT,
          "tensor dimensions \"%s\" make more than %" G_GUINT64_FORMAT
          " elements, which no buffer holds; give smaller dimensions",
          dims, max_elements);
      return FALSE;
    }
    if (k == 0)
      fmt->channels = (guint)d;
    elements *= d;
  }
  fmt->frame_bytes = elements * cr_type_size (type);
  return TRUE;
}

gboolean
cr_input_format_parse (const GstCaps *caps, CrInputFormat *fmt, GError **error)
{
  memset (fmt, 0, sizeof *fmt);
  if (gst_caps_get_size (caps) > 0
      && !dimensions_are_text (gst_caps_get_structure (caps, 0), error))
    return FALSE;
  if (!gst_caps_is_fixed (caps)) {
    g_set_error (error, CR_ERROR, CR_ERROR_INPUT,
        "caps %" GST_PTR_FORMAT " are not fixed: the element reduces one "
        "format at a time",
        caps);
    return FALSE;
  }
  const GstStructure *s = gst_caps_get_structure (caps, 0);
  const gchar *media = gst_structure_get_name (s);
  g_autoptr (GList) types = cr_caps_structure_types (s);

  if (types == NULL) {
    g_set_error (error, CR_ERROR, CR_ERROR_INPUT,
        "%" GST_PTR_FORMAT " has no element type the element reduces", caps);
    return FALSE;
  }
  fmt->type = GPOINTER_TO_INT (types->data);
  if (strcmp (media, "audio/x-raw") == 0) {
    gint channels = 0;
    fmt->family = CR_INPUT_AUDIO;
    if (!gst_structure_get_int (s, "rate", &fmt->rate)
        || !gst_structure_get_int (s, "channels", &channels) || channels < 1) {
      g_set_error (error, CR_ERROR, CR_ERROR_INPUT,
          "audio caps %" GST_PTR_FORMAT " need a rate and at least one "
          "channel",
          caps);
      return FALSE;
    }
    fmt->channels = fmt->components = (guint)channels;
    return TRUE;
  }
  if (strcmp (media, "video/x-raw") == 0) {
    fmt->family = CR_INPUT_VIDEO;
    if (!gst_video_info_from_caps (&fmt->video, caps)) {
      g_set_error (error, CR_ERROR, CR_ERROR_INPUT,
          "video caps %" GST_PTR_FORMAT " describe no frame GStreamer knows",
          caps);
      return FALSE;
    }
    GstCapsFeatures *features = gst_caps_get_features (caps, 0);
    fmt->cuda_memory = features
        && gst_caps_features_contains (features, CR_CUDA_MEMORY_FEATURE);
    fmt->frame_bytes = GST_VIDEO_INFO_SIZE (&fmt->video);
    /* The first plane's samples per pixel (4 for RGBx), and the
     * components in all planes (3 for RGBx and for YUV). */
    fmt->channels =
        GST_VIDEO_INFO_COMP_PSTRIDE (&fmt->video, 0) / cr_type_size (fmt->type);
    fmt->components = GST_VIDEO_INFO_N_COMPONENTS (&fmt->video);
    return TRUE;
  }
  fmt->family = CR_INPUT_TENSOR;
  if (!parse_dimensions (s, fmt->type, fmt, error))
    return FALSE;
  /* Without dimensions there is no innermost index: one channel. */
  fmt->channels = fmt->components = MAX (fmt->channels, 1);
  return TRUE;
}

gboolean
cr_input_format_from_caps (const GstCaps *caps, CrInputFormat *fmt)
{
  return cr_input_format_parse (caps, fmt, NULL);
}

/* Whether a frame of @format can be reduced with these settings: the
 * plan of a small one is made. */
static gboolean
video_format_readable (
    const gchar *format, gboolean per_channel, gint component, gchar **pair)
{
  g_autoptr (GstCaps) caps = gst_caps_new_simple ("video/x-raw", "format",
      G_TYPE_STRING, format, "width", G_TYPE_INT, 64, "height", G_TYPE_INT, 64,
      "framerate", GST_TYPE_FRACTION, 0, 1, NULL);
  CrInputFormat f;
  if (!cr_input_format_from_caps (caps, &f))
    return FALSE;
  g_autoptr (GstCudaReducePlan) plan =
      gst_cuda_reduce_plan_new (&f, per_channel, component, pair, NULL);
  return plan != NULL;
}

/* @s with only the formats that video_format_readable takes (of the
 * element's list where @s names none); NULL for none. */
static GstStructure *
readable_video (
    const GstStructure *s, gboolean per_channel, gint component, gchar **pair)
{
  g_autoptr (GstStructure) template = NULL;
  const GValue *formats = gst_structure_get_value (s, "format");
  if (formats == NULL) {
    template = gst_structure_from_string (
        "video/x-raw, format=(string)" CR_VIDEO_FORMATS, NULL);
    formats = gst_structure_get_value (template, "format");
  }
  GValue kept = G_VALUE_INIT;
  g_value_init (&kept, GST_TYPE_LIST);
  const guint n =
      GST_VALUE_HOLDS_LIST (formats) ? gst_value_list_get_size (formats) : 1;
  for (guint k = 0; k < n; k++) {
    const GValue *v = GST_VALUE_HOLDS_LIST (formats)
        ? gst_value_list_get_value (formats, k)
        : formats;
    if (G_VALUE_HOLDS_STRING (v)
        && video_format_readable (
            g_value_get_string (v), per_channel, component, pair))
      gst_value_list_append_value (&kept, v);
  }
  GstStructure *out = NULL;
  if (gst_value_list_get_size (&kept) == 1) {
    out = gst_structure_copy (s);
    gst_structure_set_value (
        out, "format", gst_value_list_get_value (&kept, 0));
  } else if (gst_value_list_get_size (&kept) > 1) {
    out = gst_structure_copy (s);
    gst_structure_set_value (out, "format", &kept);
  }
  g_value_unset (&kept);
  return out;
}

GstCaps *
cr_caps_readable (const GstCaps *caps, gboolean video_only,
    gboolean per_channel, gint component, gchar **pair)
{
  GstCaps *out = gst_caps_new_empty ();
  guint lo = 1, hi = G_MAXINT;
  const gboolean channels_fit = gst_cuda_reduce_plan_channel_range (
      per_channel, component, pair, &lo, &hi);

  if (gst_caps_is_any (caps))
    return out;
  for (guint k = 0; k < gst_caps_get_size (caps); k++) {
    const GstStructure *s = gst_caps_get_structure (caps, k);
    const gchar *media = gst_structure_get_name (s);
    GstStructure *kept = NULL;
    if (strcmp (media, "video/x-raw") == 0) {
      kept = readable_video (s, per_channel, component, pair);
    } else if (video_only || !channels_fit) {
      kept = NULL;
    } else if (strcmp (media, "audio/x-raw") == 0) {
      /* Bounded by intersecting with the range. */
      g_autoptr (GstCaps) one =
          gst_caps_new_full (gst_structure_copy (s), NULL);
      g_autoptr (GstCaps) range = gst_caps_new_simple ("audio/x-raw",
          "channels", GST_TYPE_INT_RANGE, (gint)lo, (gint)hi, NULL);
      if (lo == hi)
        gst_caps_set_simple (range, "channels", G_TYPE_INT, (gint)lo, NULL);
      g_autoptr (GstCaps) both = gst_caps_intersect (one, range);
      if (!gst_caps_is_empty (both))
        kept = gst_structure_copy (gst_caps_get_structure (both, 0));
    } else {
      kept = gst_structure_copy (s);
    }
    GstCapsFeatures *features = gst_caps_get_features (caps, k);
    if (kept)
      gst_caps_append_structure_full (
          out, kept, features ? gst_caps_features_copy (features) : NULL);
  }
  return out;
}

/* The values per result field for input @s, or 0 when @s does not fix
 * them. */
static guint
values_of (const GstStructure *s, gboolean per_channel, gint component)
{
  GstCaps *caps = gst_caps_new_full (gst_structure_copy (s), NULL);
  CrInputFormat fmt;
  guint values = 0;
  if (!per_channel)
    values = 1;
  else if (gst_caps_is_fixed (caps) && cr_input_format_from_caps (caps, &fmt))
    values = gst_cuda_reduce_plan_n_values (&fmt, per_channel, component);
  else if (component >= 0)
    values = 1;
  gst_caps_unref (caps);
  return values;
}

static GstStructure *
tensor_structure (const GstStructure *input, const CrMonoid *monoid, CrType in,
    gboolean per_channel, gint component, guint regions)
{
  const guint channels = values_of (input, per_channel, component);
  GArray *fields = cr_monoid_result_fields (monoid);
  g_autoptr (GString) types = g_string_new (NULL);
  g_autoptr (GString) dims = g_string_new (NULL);

  guint n = 0;
  for (guint f = 0; f < fields->len; f++, n++) {
    CrType t = cr_field_resolve (&g_array_index (fields, CrField, f), in);
    g_string_append_printf (types, "%s%s", n ? "," : "", cr_type_name (t));
    g_string_append_printf (dims, "%s%u", n ? "," : "", channels);
    /* Outermost, one result per region. */
    if (regions > 0)
      g_string_append_printf (dims, ":%u", regions);
  }
  /* The counts of the bins: the histogram is bins by values (innermost
   * first; a pair's, bins of the second by bins of the first by values),
   * the others one a value; then the percentiles, a list of them points
   * by values. */
  for (guint k = 0; monoid->bins && cr_bins_field_names[k]; k++, n++) {
    g_string_append_printf (types, "%suint64", n ? "," : "");
    if (k == 0 && monoid->pair)
      g_string_append_printf (dims, "%s%u:%u:%u", n ? "," : "", monoid->bins,
          monoid->bins, channels);
    else if (k == 0)
      g_string_append_printf (
          dims, "%s%u:%u", n ? "," : "", monoid->bins, channels);
    else
      g_string_append_printf (dims, "%s%u", n ? "," : "", channels);
  }
  for (guint k = 0; k < monoid->percentiles->len; k++, n++) {
    const CrPercentiles *p =
        &g_array_index (monoid->percentiles, CrPercentiles, k);
    g_string_append_printf (types, "%sfloat64", n ? "," : "");
    if (p->array)
      g_string_append_printf (
          dims, "%s%u:%u", n ? "," : "", p->points->len, channels);
    else
      g_string_append_printf (dims, "%s%u", n ? "," : "", channels);
  }
  GstStructure *out = gst_structure_new ("other/tensors", "format",
      G_TYPE_STRING, "static", "num_tensors", G_TYPE_INT, (gint)n, "types",
      G_TYPE_STRING, types->str, NULL);
  if (channels > 0)
    gst_structure_set (out, "dimensions", G_TYPE_STRING, dims->str, NULL);
  const GValue *rate = gst_structure_get_value (input, "framerate");
  if (rate)
    gst_structure_set_value (out, "framerate", rate);
  else
    gst_structure_set (out, "framerate", GST_TYPE_FRACTION, 0, 1, NULL);
  return out;
}

GstCaps *
cr_tensor_caps_for_input (const GstStructure *s, const CrMonoid *monoid,
    gboolean per_channel, gint component, guint regions)
{
  GstCaps *caps = gst_caps_new_empty ();
  g_autoptr (GList) types = cr_caps_structure_types (s);
  for (GList *l = types; l; l = l->next)
    caps = gst_caps_merge_structure (caps,
        tensor_structure (s, monoid, GPOINTER_TO_INT (l->data), per_channel,
            component, regions));
  return caps;
}
