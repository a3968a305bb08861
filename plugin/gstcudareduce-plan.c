/* gstcudareduce-plan.c: parts and values of a buffer's results. */
#include "gstcudareduce-plan.h"

#include "cr-error.h"
#include "cr-reducer.h"

#include <string.h>

/* A video component: its plane, and where it lies among the samples of
 * that plane's pixels. */
typedef struct {
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

GstCudaReducePlan *
gst_cuda_reduce_plan_new (const CrInputFormat *f, gboolean per_channel,
    gint component, GError **error)
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
  GstCudaReducePlan *l = g_new0 (GstCudaReducePlan, 1);
  l->ref = 1;
  l->per_channel = per_channel;
  /* One value, or one per component with per-channel results. */
  l->values = g_new0 (
      GstCudaReduceValue, per_channel && component < 0 ? MAX (n_comps, 1) : 1);
  l->counts_frames = f->family == CR_INPUT_VIDEO;
  if (f->family == CR_INPUT_VIDEO) {
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
  l->kernels = f->family == CR_INPUT_VIDEO ? CR_KERNELS_PITCHED : 0;
  for (guint r = 0; r < l->n_reducers; r++)
    if (l->reducer_channels[r] > 1)
      l->kernels |= CR_KERNELS_CHANNELS
          | cr_kernels_vec (f->type, l->reducer_channels[r]);
  return l;
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
  g_free (l);
}

guint
gst_cuda_reduce_plan_n_values (
    const CrInputFormat *format, gboolean per_channel, gint component)
{
  g_autoptr (GstCudaReducePlan) l =
      gst_cuda_reduce_plan_new (format, per_channel, component, NULL);
  return l ? l->n_values : 0;
}
