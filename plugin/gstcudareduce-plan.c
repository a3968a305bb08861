/* gstcudareduce-plan.c: parts and values of a buffer's results. */
#include "gstcudareduce-plan.h"

#include "cr-error.h"
#include "cr-reducer.h"

#include <string.h>

/* A video component: its plane, and where it lies among the samples of
 * that plane's pixels. */
typedef struct {
  guint comp; /* GStreamer's index (GST_VIDEO_COMP_U, ...) */
  guint plane;
  guint channel; /* sample offset within a pixel of its plane */
  guint channels; /* samples per pixel of its plane */
} Component;

/* The components of @info in the order results report them, which
 * component order gives for YUV (Y, U, V); packed RGB keeps the memory
 * order it always had (B, G, R, A for BGRA). Returns how many. */
static guint
video_components (const GstVideoInfo *info, gsize elem, Component *out)
{
  const guint n = GST_VIDEO_INFO_N_COMPONENTS (info);
  for (guint c = 0; c < n; c++) {
    out[c].comp = c;
    out[c].plane = GST_VIDEO_INFO_COMP_PLANE (info, c);
    /* Rounded up: GStreamer 1.22 gives the V of P010_10LE and P016_LE an
     * offset of 1 byte, though V is the second 16-bit sample. */
    out[c].channel = (GST_VIDEO_INFO_COMP_POFFSET (info, c) + elem - 1) / elem;
    out[c].channels = GST_VIDEO_INFO_COMP_PSTRIDE (info, c) / elem;
  }
  if (GST_VIDEO_INFO_IS_RGB (info))
    for (guint a = 1; a < n; a++)
      for (guint b = a; b > 0 && out[b - 1].channel > out[b].channel; b--) {
        Component t = out[b];
        out[b] = out[b - 1];
        out[b - 1] = t;
      }
  return n;
}

/* Bytes in one frame of @plane's visible pixels. */
static guint64
plane_bytes (const GstVideoInfo *info, guint plane)
{
  for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++)
    if (GST_VIDEO_INFO_COMP_PLANE (info, c) == plane)
      return (guint64)GST_VIDEO_INFO_COMP_WIDTH (info, c)
          * GST_VIDEO_INFO_COMP_PSTRIDE (info, c)
          * GST_VIDEO_INFO_COMP_HEIGHT (info, c);
  return 0;
}

static GstCudaReducePart *
add_part (GstCudaReducePlan *l, guint plane, guint channels, guint reducer)
{
  GstCudaReducePart *part = &l->parts[l->n_parts++];
  part->plane = plane;
  part->channels = channels;
  part->reducer = reducer;
  l->reducer_channels[reducer] = channels;
  l->n_reducers = MAX (l->n_reducers, reducer + 1);
  return part;
}

static void
add_value (GstCudaReducePlan *l, guint part, guint channel)
{
  l->values[l->n_values].part = part;
  l->values[l->n_values].channel = channel;
  l->n_values++;
}

/* Video: one part per plane for a whole frame or per-channel values, or
 * the one plane of the selected component. */
static void
plan_video (GstCudaReducePlan *l, const CrInputFormat *f,
    const Component *comps, guint n_comps, gint component)
{
  const GstVideoInfo *info = &f->video;
  gint part_of_plane[GST_VIDEO_MAX_PLANES] = { -1, -1, -1, -1 };

  if (component >= 0) {
    const Component *c = &comps[component];
    add_part (l, c->plane, c->channels, 0);
    add_value (l, 0, c->channel);
  } else {
    /* Planes in the order their first component is reported: Y first. */
    for (guint k = 0; k < n_comps; k++) {
      const Component *c = &comps[k];
      if (part_of_plane[c->plane] < 0) {
        part_of_plane[c->plane] = l->n_parts;
        /* A whole frame is every sample of every plane on one reducer. */
        add_part (l, c->plane, l->per_channel ? c->channels : 1,
            l->per_channel ? l->n_parts : 0);
      }
      if (l->per_channel)
        add_value (l, part_of_plane[c->plane], c->channel);
    }
    if (!l->per_channel)
      add_value (l, l->n_parts - 1, 0);
  }
  for (guint k = 0; k < l->n_parts; k++) {
    GstCudaReducePart *part = &l->parts[k];
    part->rows = plane_bytes (info, part->plane) / cr_type_size (f->type)
        / part->channels;
  }
}

static const gchar *
components_word (const CrInputFormat *f)
{
  return f->family == CR_INPUT_VIDEO ? "components"
      : f->family == CR_INPUT_AUDIO  ? "channels"
                                     : "innermost indices";
}

/* The GStreamer component of @info that @name ("U", "R") names, or -1. */
static gint
named_component (const GstVideoInfo *info, const gchar *name)
{
  static const struct {
    const gchar *name;
    gboolean rgb;
    gint comp;
  } names[] = {
    { "Y", FALSE, GST_VIDEO_COMP_Y },
    { "U", FALSE, GST_VIDEO_COMP_U },
    { "V", FALSE, GST_VIDEO_COMP_V },
    { "R", TRUE, GST_VIDEO_COMP_R },
    { "G", TRUE, GST_VIDEO_COMP_G },
    { "B", TRUE, GST_VIDEO_COMP_B },
    { "A", TRUE, GST_VIDEO_COMP_A },
  };
  const gboolean rgb = GST_VIDEO_INFO_IS_RGB (info);
  for (guint k = 0; k < G_N_ELEMENTS (names); k++)
    if (strcmp (names[k].name, name) == 0 && names[k].rgb == rgb
        && names[k].comp < (gint)GST_VIDEO_INFO_N_COMPONENTS (info)
        /* Gray has Y alone. */
        && (rgb || !GST_VIDEO_INFO_IS_GRAY (info)
            || names[k].comp == GST_VIDEO_COMP_Y))
      return names[k].comp;
  return -1;
}

/* The component that @name of a pair gives in video @info: a name, or an
 * index in the order of per-channel results (@comps). */
static gboolean
pair_component (const GstVideoInfo *info, const Component *comps, guint n_comps,
    const gchar *name, Component *out, GError **error)
{
  guint64 index = G_MAXUINT64;
  if (!g_ascii_string_to_unsigned (name, 10, 0, G_MAXINT, &index, NULL)) {
    const gint comp = named_component (info, name);
    for (guint c = 0; comp >= 0 && c < n_comps; c++)
      if (comps[c].comp == (guint)comp)
        index = c;
  }
  if (index < n_comps) {
    *out = comps[index];
    return TRUE;
  }
  g_autoptr (GString) names = g_string_new (NULL);
  const gchar *const all[] = { "Y", "U", "V", "R", "G", "B", "A" };
  for (guint k = 0; k < G_N_ELEMENTS (all); k++)
    if (named_component (info, all[k]) >= 0)
      g_string_append_printf (names, "%s%s", names->len ? ", " : "", all[k]);
  g_set_error (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
      "The pair's component %s is not one of %s's: it has %s (or 0 to %u, "
      "in the order per-channel results give them). Set pair to two of "
      "those",
      name, GST_VIDEO_INFO_NAME (info), names->str, n_comps - 1);
  return FALSE;
}

/* The channel of audio or a tensor that @name of a pair gives. */
static gboolean
pair_channel (
    const CrInputFormat *f, const gchar *name, Component *out, GError **error)
{
  guint64 index = 0;
  if (!g_ascii_string_to_unsigned (
          name, 10, 0, f->channels - 1, &index, NULL)) {
    g_set_error (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
        "The pair's component %s is not one of the input's %u %s: give "
        "two indices from 0 to %u, e.g. pair=0,1",
        name, f->channels, components_word (f), f->channels - 1);
    return FALSE;
  }
  out->comp = out->plane = 0;
  out->channel = (guint)index;
  out->channels = f->channels;
  return TRUE;
}

/* A monoid that counts pairs: one part, the first component's plane, and
 * one value. */
static gboolean
plan_pairs (GstCudaReducePlan *l, const CrInputFormat *f,
    const Component *comps, guint n_comps, gchar **pair, GError **error)
{
  const GstVideoInfo *info = &f->video;
  Component x, y;

  if (f->family != CR_INPUT_VIDEO) {
    if (!pair_channel (f, pair[0], &x, error)
        || !pair_channel (f, pair[1], &y, error))
      return FALSE;
  } else if (!pair_component (info, comps, n_comps, pair[0], &x, error)
      || !pair_component (info, comps, n_comps, pair[1], &y, error)) {
    return FALSE;
  } else if (GST_VIDEO_INFO_COMP_WIDTH (info, x.comp)
          != GST_VIDEO_INFO_COMP_WIDTH (info, y.comp)
      || GST_VIDEO_INFO_COMP_HEIGHT (info, x.comp)
          != GST_VIDEO_INFO_COMP_HEIGHT (info, y.comp)) {
    g_set_error (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
        "pair=%s,%s on %s: %s has %dx%d samples and %s %dx%d; a pair is two "
        "components of the same pixels, so of the same size (U,V, say)",
        pair[0], pair[1], GST_VIDEO_INFO_NAME (info), pair[0],
        GST_VIDEO_INFO_COMP_WIDTH (info, x.comp),
        GST_VIDEO_INFO_COMP_HEIGHT (info, x.comp), pair[1],
        GST_VIDEO_INFO_COMP_WIDTH (info, y.comp),
        GST_VIDEO_INFO_COMP_HEIGHT (info, y.comp));
    return FALSE;
  }
  GstCudaReducePart *part = add_part (l, x.plane, x.channels, 0);
  /* The pairs' reducer gives one result, whatever its rows hold. */
  l->reducer_channels[0] = 1;
  add_value (l, 0, 0);
  l->pair.names = g_strdupv (pair);
  l->pair.x_channel = x.channel;
  l->pair.y_plane = y.plane;
  l->pair.y_channel = y.channel;
  l->pair.y_channels = y.channels;
  if (f->family == CR_INPUT_VIDEO)
    part->rows =
        plane_bytes (info, x.plane) / cr_type_size (f->type) / x.channels;
  return TRUE;
}

/* What gst_cuda_reduce_plan_new below and pair_channel above refuse,
 * for inputs whose components are channels. */
gboolean
gst_cuda_reduce_plan_channel_range (
    gboolean per_channel, gint component, gchar **pair, guint *lo, guint *hi)
{
  guint64 need = component >= 0 ? (guint64)component + 1 : 1;

  if (pair && (per_channel || component >= 0))
    return FALSE;
  for (guint k = 0; pair && pair[k]; k++) {
    guint64 index = 0;
    if (!g_ascii_string_to_unsigned (
            pair[k], 10, 0, G_MAXINT - 1, &index, NULL))
      return FALSE;
    need = MAX (need, index + 1);
  }
  *lo = (guint)need;
  *hi = per_channel || component >= 0 ? CR_CHANNELS_MAX : G_MAXINT;
  return *lo <= *hi;
}

GstCudaReducePlan *
gst_cuda_reduce_plan_new (const CrInputFormat *f, gboolean per_channel,
    gint component, gchar **pair, GError **error)
{
  Component comps[GST_VIDEO_MAX_COMPONENTS];
  const guint n_comps = f->family == CR_INPUT_VIDEO
      ? video_components (&f->video, cr_type_size (f->type), comps)
      : f->components;

  /* Unsigned: a tensor may have more than G_MAXINT innermost indices. */
  if (component >= 0 && (guint)component >= n_comps) {
    g_set_error (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
        "component=%d selects nothing: the input has %u %s (0 to %u). "
        "Set component to -1 (all) or to one of those",
        component, n_comps, components_word (f), n_comps - 1);
    return NULL;
  }
  /* Per-channel results and a selected component read every channel of a
   * row on a reducer of that many channels; a whole reduction reads them
   * as one. Video has at most 4. */
  if ((per_channel || component >= 0) && f->channels > CR_CHANNELS_MAX) {
    g_autofree gchar *setting = per_channel && component < 0
        ? g_strdup ("per-channel=true")
        : g_strdup_printf ("component=%d", component);
    g_set_error (error, CR_ERROR, CR_ERROR_INPUT,
        "%s reduces the input's %u %s side by side, more than the %u "
        "channels a reduction has results for; give the input at most %u, "
        "or set per-channel=false and component=-1 to reduce them all to "
        "one result",
        setting, f->channels, components_word (f), CR_CHANNELS_MAX,
        CR_CHANNELS_MAX);
    return NULL;
  }
  if (pair && (per_channel || component >= 0)) {
    g_set_error (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
        "%s asks for results of single components, and the monoid counts "
        "pairs of %s and %s in one 2-D histogram; set per-channel=false "
        "and component=-1",
        per_channel ? "per-channel=true" : "component", pair[0], pair[1]);
    return NULL;
  }
  g_autoptr (GstCudaReducePlan) l = g_new0 (GstCudaReducePlan, 1);
  l->ref = 1;
  l->per_channel = per_channel;
  /* One value, or one per component with per-channel results. */
  l->values = g_new0 (
      GstCudaReduceValue, per_channel && component < 0 ? MAX (n_comps, 1) : 1);
  l->counts_frames = f->family == CR_INPUT_VIDEO;
  if (pair) {
    if (!plan_pairs (l, f, comps, n_comps, pair, error))
      return NULL;
  } else if (f->family == CR_INPUT_VIDEO) {
    plan_video (l, f, comps, n_comps, component);
  } else if (component >= 0) {
    add_part (l, 0, f->channels, 0);
    add_value (l, 0, component);
  } else {
    add_part (l, 0, per_channel ? f->channels : 1, 0);
    for (guint c = 0; c < (per_channel ? f->components : 1); c++)
      add_value (l, 0, c);
  }
  for (guint k = 0; k < l->n_parts; k++) {
    l->parts[k].keeps = TRUE;
    for (guint j = k + 1; j < l->n_parts; j++)
      if (l->parts[j].reducer == l->parts[k].reducer)
        l->parts[k].keeps = FALSE;
  }
  /* Pairs have a kernel of their own (kernels/histogram.cu). */
  l->kernels = f->family == CR_INPUT_VIDEO && !pair ? CR_KERNELS_PITCHED : 0;
  for (guint r = 0; r < l->n_reducers; r++)
    if (l->reducer_channels[r] > 1)
      l->kernels |= CR_KERNELS_CHANNELS
          | cr_kernels_vec (f->type, l->reducer_channels[r]);
  return g_steal_pointer (&l);
}

guint
gst_cuda_reduce_plan_n_regions (const GstCudaReducePlan *l)
{
  return l->n_parts + (l->pair.names ? 1 : 0);
}

guint
gst_cuda_reduce_plan_region_plane (const GstCudaReducePlan *l, guint k)
{
  return k < l->n_parts ? l->parts[k].plane : l->pair.y_plane;
}

gboolean
gst_cuda_reduce_plan_has_pair (const GstCudaReducePlan *l, gchar **pair)
{
  if (l->pair.names == NULL || pair == NULL)
    return l->pair.names == pair;
  return g_strv_equal (
      (const gchar *const *)l->pair.names, (const gchar *const *)pair);
}

GstCudaReducePlan *
gst_cuda_reduce_plan_ref (GstCudaReducePlan *l)
{
  g_atomic_int_inc (&l->ref);
  return l;
}

void
gst_cuda_reduce_plan_unref (GstCudaReducePlan *l)
{
  if (!g_atomic_int_dec_and_test (&l->ref))
    return;
  g_free (l->values);
  g_strfreev (l->pair.names);
  g_free (l);
}

guint
gst_cuda_reduce_plan_n_values (
    const CrInputFormat *format, gboolean per_channel, gint component)
{
  g_autoptr (GstCudaReducePlan) l =
      gst_cuda_reduce_plan_new (format, per_channel, component, NULL, NULL);
  return l ? l->n_values : 0;
}
