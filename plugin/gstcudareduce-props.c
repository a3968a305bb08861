/* gstcudareduce-props.c: the element's properties. */
#include "gstcudareduce-props.h"

#include "cr-error.h"

#include "cr-monoid-names.h"

#define DEFAULT_MONOID "sum"
#define DEFAULT_THRESHOLD 0.0
#define DEFAULT_DEVICE_ID -1
#define DEFAULT_OUTPUT GST_CUDA_REDUCE_OUTPUT_MESSAGE
#define DEFAULT_POST_MESSAGES TRUE
#define DEFAULT_ATTACH_META FALSE
#define DEFAULT_ASYNC_DEPTH 8
#define DEFAULT_PER_CHANNEL FALSE
#define DEFAULT_COMPONENT -1
#define DEFAULT_INTERVAL 0
#define DEFAULT_WINDOW 0
#define DEFAULT_GPU_TIMEOUT (5 * GST_SECOND)
#define DEFAULT_BINS 0
#define MAX_ASYNC_DEPTH 64

#define MONOID_FLAGS \
  (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING)
#define SETUP_FLAGS \
  (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)

GType
gst_cuda_reduce_output_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    { GST_CUDA_REDUCE_OUTPUT_MESSAGE,
        "Pass buffers through, post results as bus messages", "message" },
    { GST_CUDA_REDUCE_OUTPUT_TENSOR,
        "Push results downstream as other/tensors buffers", "tensor" },
    { 0, NULL, NULL },
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (
        &type, g_enum_register_static ("GstCudaReduceOutput", values));
  return type;
}

static void
install_inline_property (
    GObjectClass *klass, guint id, const gchar *name, const gchar *blurb)
{
  g_object_class_install_property (
      klass, id, g_param_spec_string (name, name, blurb, NULL, MONOID_FLAGS));
}

void
gst_cuda_reduce_props_install (GObjectClass *klass)
{
  /* The built-ins listed from the plugin's own, so that gst-inspect-1.0
   * names each; an interned string lives for good, as the class does. */
  g_auto (GStrv) builtins = cr_monoid_builtin_names ();
  g_autofree gchar *names = g_strjoinv (", ", builtins);
  g_autofree gchar *monoid_blurb = g_strdup_printf (
      "A built-in monoid (%s) or the path of a .monoid file (containing '/' "
      "or ending in .monoid); several joined by '+' are computed in one "
      "pass (sumsq+minmax), with results named label.field, the label being "
      "the member's name or given as label=member (lo=count_gt+hi=count_gt). "
      "When the load or bin property is set, the inline properties define "
      "the monoid and this only names it",
      names);
  g_object_class_install_property (klass, PROP_MONOID,
      g_param_spec_string ("monoid", "Monoid", g_intern_string (monoid_blurb),
          DEFAULT_MONOID, MONOID_FLAGS));
  install_inline_property (klass, PROP_ACCUMULATOR, "accumulator",
      "Inline monoid: the accumulator's fields as name:type;name:type, types "
      "being int8..uint64, float32, float64, in (the input type) or wide "
      "(int64, uint64 or float64 by the input). Required with load");
  install_inline_property (klass, PROP_LOAD, "load",
      "Inline monoid: body of Acc load(In x, unsigned long long i), e.g. "
      "\"Acc r; r.sum = x; return r;\". Setting it selects the inline monoid");
  install_inline_property (klass, PROP_COMBINE, "combine",
      "Inline monoid: body of Acc combine(Acc a, Acc b); must be associative "
      "and commutative. Required with load");
  install_inline_property (klass, PROP_IDENTITY, "identity",
      "Inline monoid: body of Acc identity(), the value combine leaves "
      "unchanged. Required with load");
  install_inline_property (klass, PROP_CONTEXT_FIELDS, "context-fields",
      "Inline monoid: context fields (name:type;...) that "
      "bodies read as ctx.name, filled from the threshold and context "
      "properties");
  install_inline_property (klass, PROP_OUTPUT_FIELDS, "output-fields",
      "Inline monoid: result fields (name:type;...) that finalize returns as "
      "an Out. Requires finalize");
  install_inline_property (klass, PROP_FINALIZE, "finalize",
      "Inline monoid: body of Out finalize(Acc a, unsigned long long n), run "
      "once per result on the GPU. Requires output-fields");
  install_inline_property (klass, PROP_BIN, "bin",
      "Inline monoid: body of long long bin(In x, unsigned long long i), "
      "the bin of each value among the bins property's (below 0: counted "
      "as below, from bins on: above), e.g. \"return x < 16 ? 0 : 1;\". "
      "Setting it (or load) selects the inline monoid, which then counts "
      "bins; requires bins");
  g_object_class_install_property (klass, PROP_THRESHOLD,
      g_param_spec_double ("threshold", "Threshold",
          "Value of the context field 'threshold' when the monoid declares "
          "one (as count_gt does); of every member's, in a fused monoid. "
          "Takes effect from the next buffer, without recompiling",
          -G_MAXDOUBLE, G_MAXDOUBLE, DEFAULT_THRESHOLD, MONOID_FLAGS));
  g_object_class_install_property (klass, PROP_CONTEXT,
      g_param_spec_boxed ("context", "Context",
          "Values of the monoid's context fields by name, e.g. "
          "\"ctx, lo=(double)-1, hi=(double)1\"; in a fused monoid a name "
          "sets every member's field of that name, and label.name one "
          "member's. Takes effect from the next buffer, without recompiling",
          GST_TYPE_STRUCTURE, MONOID_FLAGS));
  g_object_class_install_property (klass, PROP_CUDA_DEVICE_ID,
      g_param_spec_int ("cuda-device-id", "CUDA device id",
          "The GPU to reduce on, by CUDA ordinal; -1 for the first", -1,
          G_MAXINT, DEFAULT_DEVICE_ID, SETUP_FLAGS));
  g_object_class_install_property (klass, PROP_OUTPUT,
      g_param_spec_enum ("output", "Output",
          "Where results go: 'message' passes buffers through and posts "
          "results on the bus; 'tensor' pushes them downstream as "
          "other/tensors, one tensor per result field",
          GST_TYPE_CUDA_REDUCE_OUTPUT, DEFAULT_OUTPUT, SETUP_FLAGS));
  g_object_class_install_property (klass, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages",
          "Post an element message named 'cudareduce' with each result, in "
          "either output mode",
          DEFAULT_POST_MESSAGES, MONOID_FLAGS));
  g_object_class_install_property (klass, PROP_ATTACH_META,
      g_param_spec_boolean ("attach-meta", "Attach meta",
          "In message mode, put each result on the buffer it describes, as a "
          "GstCustomMeta named " GST_CUDA_REDUCE_META_NAME " whose structure "
          "has the result message's fields (with interval, on the buffer "
          "that closes the interval)",
          DEFAULT_ATTACH_META, MONOID_FLAGS));

  g_object_class_install_property (klass, PROP_ASYNC_DEPTH,
      g_param_spec_uint ("async-depth", "Async depth",
          "How many launches may be in flight on the GPU at once; small "
          "buffers that arrive while the GPU is busy share one launch. Buffers "
          "leave in order as their reductions complete; the streaming thread "
          "waits when this many launches are in flight",
          1, MAX_ASYNC_DEPTH, DEFAULT_ASYNC_DEPTH, SETUP_FLAGS));

  g_object_class_install_property (klass, PROP_PER_CHANNEL,
      g_param_spec_boolean ("per-channel", "Per channel",
          "One result per channel: per interleaved audio channel, per "
          "video component (Y, U, V for YUV, each over its own samples; "
          "packed RGB in memory order, padding left out), per innermost "
          "index of a tensor. Message fields become arrays, with a 'counts' "
          "array, and result tensors have the channel count as dimension",
          DEFAULT_PER_CHANNEL, SETUP_FLAGS));
  g_object_class_install_property (klass, PROP_COMPONENT,
      g_param_spec_int ("component", "Component",
          "Reduce only this component: the index that per-channel results "
          "give it (YUV: 0 Y, 1 U, 2 V; packed RGB in memory order; an "
          "audio channel; a tensor's innermost index). Only its plane is "
          "read. -1 reduces every component",
          -1, G_MAXINT, DEFAULT_COMPONENT, SETUP_FLAGS));
  g_object_class_install_property (klass, PROP_INTERVAL,
      g_param_spec_uint64 ("interval", "Interval",
          "Stream time per result, in nanoseconds, accumulated across "
          "buffers (audio buffers are split where an interval ends, as the "
          "level element does; video frames and tensors count whole). 0 "
          "gives one result per buffer",
          0, G_MAXUINT64, DEFAULT_INTERVAL, SETUP_FLAGS));
  g_object_class_install_property (klass, PROP_WINDOW,
      g_param_spec_uint64 ("window", "Window",
          "Stream time each result spans, in nanoseconds: a sliding window "
          "that moves by interval, which must be set, and of which it must "
          "be a whole number (at most 1024). Every interval gives one result "
          "over the last window, combined on the GPU from each interval's "
          "partial result. Until a whole window has passed since the start "
          "(or a flush, a discontinuity, new caps) a result spans what there "
          "is, and its message says window-complete=false. 0 gives one "
          "result per interval",
          0, G_MAXUINT64, DEFAULT_WINDOW, SETUP_FLAGS));
  g_object_class_install_property (klass, PROP_REGIONS,
      gst_param_spec_array ("regions", "Regions",
          "Rectangles of the frame that each get a result of their own, "
          "<x, y, width, height> in the frame's pixels, e.g. "
          "\"<<0,0,64,64>,<64,0,64,64>>\". Each is clipped to the frame; a "
          "rectangle in luma pixels covers the chroma samples its pixels "
          "map to. Results become arrays over the regions, these first, then "
          "the ROI metas and detections that roi-types selects. Video only; "
          "empty: none",
          gst_param_spec_array ("region", "Region",
              "x, y, width, height in pixels",
              g_param_spec_int ("value", "Value", "A coordinate", G_MININT,
                  G_MAXINT, 0, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS),
              G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS),
          SETUP_FLAGS));
  g_object_class_install_property (klass, PROP_ROI_TYPES,
      g_param_spec_string ("roi-types", "ROI types",
          "Which GstVideoRegionOfInterestMeta of each frame get results of "
          "their own: a comma-separated list of ROI types "
          "(\"face,person\"), or \"*\" for all; where the element is built "
          "with GStreamer's analytics library (1.24 and newer), also the "
          "object detections (GstAnalyticsODMtd) of those types. Each ROI "
          "meta's result is also put on the meta, as the parameter structure "
          "\"cudareduce\". Not with interval or window, since the metas "
          "come and go from frame to frame. NULL or empty: no meta is read",
          NULL, SETUP_FLAGS));
  g_object_class_install_property (klass, PROP_GPU_TIMEOUT,
      g_param_spec_uint64 ("gpu-timeout", "GPU timeout",
          "How long the GPU may take with one buffer's reductions, in "
          "nanoseconds, before the element gives up on it with an error (a "
          "monoid whose code never ends, say). The GPU's context and what it "
          "reads are then left as they are until the process exits, and the "
          "element cannot start again in this process. 0 waits for ever",
          0, G_MAXUINT64, DEFAULT_GPU_TIMEOUT,
          /* A new element's value may come from the environment
           * (GST_CUDAREDUCE_GPU_TIMEOUT): documentation shows this one. */
          SETUP_FLAGS | GST_PARAM_DOC_SHOW_DEFAULT));
  g_object_class_install_property (klass, PROP_BINS,
      g_param_spec_uint ("bins", "Bins",
          "Bins of a monoid that counts values in bins (histogram: even "
          "bins from the context fields lo to hi, an integer type's whole "
          "range when both are 0); 0 keeps the monoid's own (histogram: "
          "256). Results gain the array 'histogram' and the counts 'below', "
          "'above' and 'nan'. With an inline monoid, makes it count bins. "
          "A change recompiles before the next buffer",
          0, CR_BINS_MAX, DEFAULT_BINS, MONOID_FLAGS));
  g_object_class_install_property (klass, PROP_PERCENTILES,
      gst_param_spec_array ("percentiles", "Percentiles",
          "Percentiles to read off a monoid's bins, each from 0 to 1, e.g. "
          "\"<0.1, 0.5, 0.9>\": results gain the array 'percentiles', each "
          "the lowest value of the bin where the count from below reaches "
          "round (p x count) (-inf/inf: below/above the range, NaN: no "
          "values). Empty: none. A change recompiles before the next buffer",
          g_param_spec_double ("percentile", "Percentile",
              "A percentile, from 0 to 1", 0, 1, 0.5,
              G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS),
          MONOID_FLAGS));
  g_object_class_install_property (klass, PROP_PAIR,
      g_param_spec_string ("pair", "Pair",
          "Two components of each pixel whose pairs a monoid with bins "
          "counts in a 2-D histogram of bins x bins bins, e.g. \"R,G\": "
          "Y, U, V, R, G, B, A or the indices per-channel results give "
          "them (\"0,1\" for two audio channels). The array 'histogram' "
          "then has one array of counts for each bin of the first. NULL "
          "keeps the monoid's own (vectorscope: U,V). A change recompiles "
          "before the next buffer",
          NULL, MONOID_FLAGS));
}

/* GST_CUDAREDUCE_GPU_TIMEOUT, in seconds, replaces the default: tools that
 * slow kernels down a hundredfold (compute-sanitizer) need more, or 0. */
static guint64
default_gpu_timeout (void)
{
  const gchar *env = g_getenv ("GST_CUDAREDUCE_GPU_TIMEOUT");
  if (env == NULL || *env == '\0')
    return DEFAULT_GPU_TIMEOUT;
  const gdouble seconds = g_ascii_strtod (env, NULL);
  return seconds > 0 ? (guint64)(seconds * GST_SECOND) : 0;
}

void
gst_cuda_reduce_props_init (GstCudaReduceProps *props)
{
  props->monoid_name = g_strdup (DEFAULT_MONOID);
  props->threshold = DEFAULT_THRESHOLD;
  props->device_id = DEFAULT_DEVICE_ID;
  props->output = DEFAULT_OUTPUT;
  props->post_messages = DEFAULT_POST_MESSAGES;
  props->attach_meta = DEFAULT_ATTACH_META;
  props->async_depth = DEFAULT_ASYNC_DEPTH;
  props->per_channel = DEFAULT_PER_CHANNEL;
  props->component = DEFAULT_COMPONENT;
  props->interval = DEFAULT_INTERVAL;
  props->window = DEFAULT_WINDOW;
  props->gpu_timeout = default_gpu_timeout ();
  props->bins = DEFAULT_BINS;
  props->percentiles = g_array_new (FALSE, FALSE, sizeof (gdouble));
  g_value_init (&props->regions, GST_TYPE_ARRAY);
}

void
gst_cuda_reduce_props_clear (GstCudaReduceProps *props)
{
  g_clear_pointer (&props->monoid_name, g_free);
  for (guint k = 0; k < GST_CUDA_REDUCE_N_INLINE; k++)
    g_clear_pointer (&props->inline_text[k], g_free);
  g_clear_pointer (&props->context, gst_structure_free);
  g_clear_pointer (&props->parsed.monoid, cr_monoid_unref);
  g_clear_pointer (&props->percentiles, g_array_unref);
  g_clear_pointer (&props->pair, g_free);
  g_value_unset (&props->regions);
  g_clear_pointer (&props->roi_types, g_free);
}

static gboolean
is_monoid_property (guint prop_id)
{
  return (prop_id >= PROP_MONOID && prop_id <= PROP_BIN) || prop_id == PROP_BINS
      || prop_id == PROP_PERCENTILES || prop_id == PROP_PAIR;
}

gboolean
gst_cuda_reduce_props_set (GstCudaReduceProps *props, guint prop_id,
    const GValue *value, GstCudaReducePropsChange *change)
{
  *change = GST_CUDA_REDUCE_PROPS_STORED;
  if (is_monoid_property (prop_id)) {
    props->monoid_serial++;
    /* Output fields decide the tensor caps. */
    if (props->output == GST_CUDA_REDUCE_OUTPUT_TENSOR)
      *change |= GST_CUDA_REDUCE_PROPS_RENEGOTIATE;
  }
  switch (prop_id) {
    case PROP_MONOID:
      g_free (props->monoid_name);
      props->monoid_name = g_value_dup_string (value);
      props->monoid_name_set = TRUE;
      break;
    case PROP_ACCUMULATOR ... PROP_BIN:
      g_free (props->inline_text[prop_id - PROP_ACCUMULATOR]);
      props->inline_text[prop_id - PROP_ACCUMULATOR] =
          g_value_dup_string (value);
      break;
    case PROP_THRESHOLD:
      props->threshold = g_value_get_double (value);
      props->context_serial++;
      break;
    case PROP_CONTEXT:
      g_clear_pointer (&props->context, gst_structure_free);
      props->context = g_value_dup_boxed (value);
      props->context_serial++;
      break;
    case PROP_CUDA_DEVICE_ID:
      props->device_id = g_value_get_int (value);
      break;
    case PROP_OUTPUT:
      props->output = g_value_get_enum (value);
      *change |= GST_CUDA_REDUCE_PROPS_SET_MODE;
      break;
    case PROP_POST_MESSAGES:
      props->post_messages = g_value_get_boolean (value);
      break;
    case PROP_ATTACH_META:
      props->attach_meta = g_value_get_boolean (value);
      break;
    case PROP_ASYNC_DEPTH:
      props->async_depth = g_value_get_uint (value);
      break;
    case PROP_PER_CHANNEL:
      props->per_channel = g_value_get_boolean (value);
      break;
    case PROP_COMPONENT:
      props->component = g_value_get_int (value);
      /* The result tensors' dimensions follow. */
      if (props->output == GST_CUDA_REDUCE_OUTPUT_TENSOR)
        *change |= GST_CUDA_REDUCE_PROPS_RENEGOTIATE;
      break;
    case PROP_INTERVAL:
      props->interval = g_value_get_uint64 (value);
      break;
    case PROP_WINDOW:
      props->window = g_value_get_uint64 (value);
      break;
    case PROP_REGIONS:
      g_value_unset (&props->regions);
      g_value_init (&props->regions, GST_TYPE_ARRAY);
      g_value_copy (value, &props->regions);
      break;
    case PROP_ROI_TYPES:
      g_free (props->roi_types);
      props->roi_types = g_value_dup_string (value);
      break;
    case PROP_GPU_TIMEOUT:
      props->gpu_timeout = g_value_get_uint64 (value);
      break;
    case PROP_BINS:
      props->bins = g_value_get_uint (value);
      break;
    case PROP_PERCENTILES:
      g_array_set_size (props->percentiles, 0);
      for (guint k = 0; k < gst_value_array_get_size (value); k++) {
        const gdouble p =
            g_value_get_double (gst_value_array_get_value (value, k));
        g_array_append_val (props->percentiles, p);
      }
      break;
    case PROP_PAIR:
      g_free (props->pair);
      props->pair = g_value_dup_string (value);
      break;
    default:
      return FALSE;
  }
  return TRUE;
}

gboolean
gst_cuda_reduce_props_get (
    const GstCudaReduceProps *props, guint prop_id, GValue *value)
{
  switch (prop_id) {
    case PROP_MONOID:
      g_value_set_string (value, props->monoid_name);
      break;
    case PROP_ACCUMULATOR ... PROP_BIN:
      g_value_set_string (
          value, props->inline_text[prop_id - PROP_ACCUMULATOR]);
      break;
    case PROP_THRESHOLD:
      g_value_set_double (value, props->threshold);
      break;
    case PROP_CONTEXT:
      g_value_set_boxed (value, props->context);
      break;
    case PROP_CUDA_DEVICE_ID:
      g_value_set_int (value, props->device_id);
      break;
    case PROP_OUTPUT:
      g_value_set_enum (value, props->output);
      break;
    case PROP_POST_MESSAGES:
      g_value_set_boolean (value, props->post_messages);
      break;
    case PROP_ATTACH_META:
      g_value_set_boolean (value, props->attach_meta);
      break;
    case PROP_ASYNC_DEPTH:
      g_value_set_uint (value, props->async_depth);
      break;
    case PROP_PER_CHANNEL:
      g_value_set_boolean (value, props->per_channel);
      break;
    case PROP_COMPONENT:
      g_value_set_int (value, props->component);
      break;
    case PROP_INTERVAL:
      g_value_set_uint64 (value, props->interval);
      break;
    case PROP_WINDOW:
      g_value_set_uint64 (value, props->window);
      break;
    case PROP_REGIONS:
      g_value_copy (&props->regions, value);
      break;
    case PROP_ROI_TYPES:
      g_value_set_string (value, props->roi_types);
      break;
    case PROP_GPU_TIMEOUT:
      g_value_set_uint64 (value, props->gpu_timeout);
      break;
    case PROP_BINS:
      g_value_set_uint (value, props->bins);
      break;
    case PROP_PERCENTILES:
      for (guint k = 0; k < props->percentiles->len; k++) {
        GValue item = G_VALUE_INIT;
        g_value_init (&item, G_TYPE_DOUBLE);
        g_value_set_double (
            &item, g_array_index (props->percentiles, gdouble, k));
        gst_value_array_append_and_take_value (value, &item);
      }
      break;
    case PROP_PAIR:
      g_value_set_string (value, props->pair);
      break;
    default:
      return FALSE;
  }
  return TRUE;
}

CrMonoid *
gst_cuda_reduce_props_monoid (
    GstObject *owner, GstCudaReduceProps *props, GError **error)
{
  GST_OBJECT_LOCK (owner);
  if (props->parsed.monoid && props->parsed.serial == props->monoid_serial) {
    CrMonoid *m = cr_monoid_ref (props->parsed.monoid);
    GST_OBJECT_UNLOCK (owner);
    return m;
  }
  guint serial = props->monoid_serial;
  g_autofree gchar *name = g_strdup (props->monoid_name);
  gboolean name_set = props->monoid_name_set;
  const guint bins = props->bins;
  g_autoptr (GArray) percentiles = g_array_copy (props->percentiles);
  g_autofree gchar *pair = g_strdup (props->pair);
  gchar *text[GST_CUDA_REDUCE_N_INLINE];
  for (guint k = 0; k < GST_CUDA_REDUCE_N_INLINE; k++)
    text[k] = g_strdup (props->inline_text[k]);
  GST_OBJECT_UNLOCK (owner);

  CrMonoid *m;
  if (gst_cuda_reduce_props_inline (text)) {
    g_autofree gchar *bins_text = bins ? g_strdup_printf ("%u", bins) : NULL;
    CrMonoidText inline_monoid = {
      .name = name_set ? name : NULL,
      .accumulator = text[PROP_ACCUMULATOR - PROP_ACCUMULATOR],
      .load = text[PROP_LOAD - PROP_ACCUMULATOR],
      .combine = text[PROP_COMBINE - PROP_ACCUMULATOR],
      .identity = text[PROP_IDENTITY - PROP_ACCUMULATOR],
      .context = text[PROP_CONTEXT_FIELDS - PROP_ACCUMULATOR],
      .output = text[PROP_OUTPUT_FIELDS - PROP_ACCUMULATOR],
      .finalize = text[PROP_FINALIZE - PROP_ACCUMULATOR],
      .bins = bins_text,
      .bin = text[PROP_BIN - PROP_ACCUMULATOR],
    };
    m = cr_monoid_new (&inline_monoid, CR_MONOID_INLINE_ORIGIN, error);
  } else {
    m = cr_monoid_load (name, error);
  }
  for (guint k = 0; k < GST_CUDA_REDUCE_N_INLINE; k++)
    g_free (text[k]);
  if (m && bins) {
    CrMonoid *with = cr_monoid_with_bins (m, bins, error);
    cr_monoid_unref (m);
    m = with;
  }
  if (m && pair && *pair) {
    CrMonoid *with = cr_monoid_with_pair (m, pair, error);
    cr_monoid_unref (m);
    m = with;
  }
  if (m && percentiles->len > 0) {
    CrMonoid *with = cr_monoid_with_percentiles (m, percentiles, error);
    cr_monoid_unref (m);
    m = with;
  }

  if (m) {
    GST_OBJECT_LOCK (owner);
    if (serial == props->monoid_serial) {
      g_clear_pointer (&props->parsed.monoid, cr_monoid_unref);
      props->parsed.monoid = cr_monoid_ref (m);
      props->parsed.serial = serial;
    }
    GST_OBJECT_UNLOCK (owner);
  }
  return m;
}

gboolean
gst_cuda_reduce_props_inline (gchar *const *inline_text)
{
  return inline_text[PROP_LOAD - PROP_ACCUMULATOR] != NULL
      || inline_text[PROP_BIN - PROP_ACCUMULATOR] != NULL;
}

gchar *
gst_cuda_reduce_props_monoid_name (const GstCudaReduceProps *props)
{
  gboolean is_inline = gst_cuda_reduce_props_inline (props->inline_text);
  return g_strdup (is_inline && !props->monoid_name_set ? CR_MONOID_INLINE_NAME
                                                        : props->monoid_name);
}

gboolean
gst_cuda_reduce_props_output_fits (
    gboolean tensors, const CrMonoid *m, GError **error)
{
  guint n = cr_monoid_result_fields (m)->len
      + (m->bins ? G_N_ELEMENTS (cr_bins_field_names) - 1 : 0)
      + m->percentiles->len;
  if (!tensors || n <= GST_CUDA_REDUCE_MAX_TENSORS)
    return TRUE;
  g_set_error (error, CR_ERROR, CR_ERROR_FIELDS,
      "output=tensor carries at most %d tensors, one per result field, "
      "and monoid %s has %u result fields; fuse fewer members, or use "
      "output=message",
      GST_CUDA_REDUCE_MAX_TENSORS, m->name, n);
  return FALSE;
}

gboolean
gst_cuda_reduce_props_read (GstObject *owner, GstCudaReduceProps *props,
    GstCudaReduceSettings *settings, GError **error)
{
  GST_OBJECT_LOCK (owner);
  CrMonoid *monoid = NULL;
  if (props->parsed.monoid && props->parsed.serial == props->monoid_serial)
    monoid = cr_monoid_ref (props->parsed.monoid);
  settings->threshold = props->threshold;
  if (!settings->context_read
      || settings->context_serial != props->context_serial) {
    g_clear_pointer (&settings->context, gst_structure_free);
    if (props->context)
      settings->context = gst_structure_copy (props->context);
    settings->context_serial = props->context_serial;
    settings->context_read = TRUE;
  }
  settings->delivery.tensors = props->output == GST_CUDA_REDUCE_OUTPUT_TENSOR;
  settings->delivery.post_messages = props->post_messages;
  settings->delivery.attach_meta = props->attach_meta;
  GST_OBJECT_UNLOCK (owner);

  /* After a change of the monoid's properties only: parsed unlocked. */
  if (monoid == NULL
      && (monoid = gst_cuda_reduce_props_monoid (owner, props, error)) == NULL)
    return FALSE;
  g_clear_pointer (&settings->monoid, cr_monoid_unref);
  settings->monoid = monoid;
  return TRUE;
}

void
gst_cuda_reduce_settings_clear (GstCudaReduceSettings *settings)
{
  g_clear_pointer (&settings->monoid, cr_monoid_unref);
  g_clear_pointer (&settings->context, gst_structure_free);
  settings->context_read = FALSE;
}
