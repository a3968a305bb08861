/* gstcudareduce.c: the cudareduce element.
 *
 * A thin GstBaseTransform over the engine: properties become a CrMonoid,
 * caps pick the input type, and each buffer becomes one call of
 * cr_reducer_reduce_host(). Everything CUDA-specific lives below. */

/**
 * SECTION:element-cudareduce
 * @title: cudareduce
 *
 * Reduces every input buffer on an NVIDIA GPU with a *monoid*: an
 * accumulator, a load step, an associative combine and its identity, and an
 * optional finalize step, compiled at run time by NVRTC. Built-in monoids
 * are `sum`, `sumsq`, `min`, `max`, `minmax`, `absmax`, `mean_var`,
 * `count_gt` and `argmax`; others come from a `.monoid` file or from the
 * inline properties.
 *
 * With `output=message` (the default) buffers pass through unchanged and
 * each result is posted as an element message named `cudareduce` carrying
 * `timestamp`, `stream-time`, `running-time`, `duration`, `monoid`, `count`
 * and one field per result field. With `output=tensor` the source pad
 * carries the results as `other/tensors`, one tensor per result field.
 *
 * The CUDA driver is opened when the element starts and NVRTC when caps
 * are set (the first compile); without them it fails with an error saying
 * what is missing.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 -m audiotestsrc num-buffers=10 ! \
 *     audio/x-raw,format=F32LE ! cudareduce monoid=mean_var ! fakesink
 * ]| posts the mean and variance of every audio buffer.
 * |[
 * gst-launch-1.0 -m videotestsrc num-buffers=5 ! video/x-raw,format=GRAY8 ! \
 *     cudareduce monoid=count_gt threshold=200 ! fakesink
 * ]| counts the pixels brighter than 200 in every frame.
 */

#include "gstcudareduce.h"

#include "cr-error.h"
#include "cr-reducer.h"
#include "gstcudareduce-caps.h"

#include <gst/audio/audio.h>
#include <gst/video/video.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_reduce_debug);
#define GST_CAT_DEFAULT gst_cuda_reduce_debug

#define DEFAULT_MONOID "sum"
#define DEFAULT_THRESHOLD 0.0
#define DEFAULT_DEVICE_ID -1
#define DEFAULT_OUTPUT GST_CUDA_REDUCE_OUTPUT_MESSAGE
#define DEFAULT_POST_MESSAGES TRUE

enum {
  PROP_0,
  PROP_MONOID,
  PROP_ACCUMULATOR,
  PROP_LOAD,
  PROP_COMBINE,
  PROP_IDENTITY,
  PROP_CONTEXT_FIELDS,
  PROP_OUTPUT_FIELDS,
  PROP_FINALIZE,
  PROP_THRESHOLD,
  PROP_CONTEXT,
  PROP_CUDA_DEVICE_ID,
  PROP_OUTPUT,
  PROP_POST_MESSAGES,
};

/* The inline monoid's texts, indexed by PROP_ACCUMULATOR... PROP_FINALIZE. */
#define N_INLINE (PROP_FINALIZE - PROP_ACCUMULATOR + 1)

/* A program compiled and loaded on this element's device, kept for the life
 * of the element's running state so that switching back to a monoid or an
 * input type does not compile again. */
typedef struct {
  CrProgram *program;
  CrReducer *reducer;
} CompiledEntry;

struct _GstCudaReduce {
  GstBaseTransform parent;

  /* Properties, under the object lock. A change of the monoid's properties
   * bumps monoid_serial; of its context values, context_serial. */
  gchar *monoid_name;
  gboolean monoid_name_set; /* else an inline monoid is "custom" */
  gchar *inline_text[N_INLINE];
  gdouble threshold;
  GstStructure *context;
  gint device_id;
  GstCudaReduceOutput output;
  gboolean post_messages;
  guint monoid_serial;
  guint context_serial;

  /* The monoid the properties describe, parsed; under the object lock. */
  CrMonoid *parsed;
  guint parsed_serial;

  /* Streaming state, touched only by the streaming thread (and start/stop). */
  CrDevice *device;
  GHashTable *compiled; /* source -> CompiledEntry */
  CrInputFormat format;
  gboolean have_format;
  CompiledEntry *active;
  CrMonoid *active_monoid;
  guint8 *context_bytes;
  guint packed_serial;
  CrProgram *packed_program;
  guint8 *result_bytes;
};

#define gst_cuda_reduce_parent_class parent_class
G_DEFINE_TYPE (GstCudaReduce, gst_cuda_reduce, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (cudareduce, "cudareduce", GST_RANK_NONE,
    GST_TYPE_CUDA_REDUCE,
    GST_DEBUG_CATEGORY_INIT (gst_cuda_reduce_debug, "cudareduce", 0,
        "GPU reduction with runtime-compiled monoids"));

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE (
    "sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (CR_SINK_CAPS));

static GstStaticPadTemplate src_template =
    GST_STATIC_PAD_TEMPLATE ("src", GST_PAD_SRC, GST_PAD_ALWAYS,
        GST_STATIC_CAPS (CR_SINK_CAPS "; " CR_TENSOR_OUTPUT_CAPS));

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

/* Errors: one GstElement error per engine error code, always with text
 * that says what to fix. */
static void
post_error (GstCudaReduce *self, const GError *error, const gchar *debug)
{
  GQuark domain = GST_LIBRARY_ERROR;
  gint code = GST_LIBRARY_ERROR_SETTINGS;

  switch (error->domain == CR_ERROR ? error->code : -1) {
    case CR_ERROR_NO_DRIVER:
    case CR_ERROR_NO_NVRTC:
      code = GST_LIBRARY_ERROR_INIT;
      break;
    case CR_ERROR_NO_DEVICE:
    case CR_ERROR_DEVICE_ID:
      domain = GST_RESOURCE_ERROR;
      code = GST_RESOURCE_ERROR_NOT_FOUND;
      break;
    case CR_ERROR_CUDA:
      domain = GST_RESOURCE_ERROR;
      code = GST_RESOURCE_ERROR_FAILED;
      break;
    case CR_ERROR_INPUT:
      domain = GST_STREAM_ERROR;
      code = GST_STREAM_ERROR_FORMAT;
      break;
    default:
      break;
  }
  gst_element_message_full (GST_ELEMENT (self), GST_MESSAGE_ERROR, domain, code,
      g_strdup (error->message), g_strdup (debug), __FILE__, GST_FUNCTION,
      __LINE__);
}

/* Properties */

static gboolean
is_monoid_property (guint prop_id)
{
  return prop_id >= PROP_MONOID && prop_id <= PROP_FINALIZE;
}

static void
gst_cuda_reduce_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  GstCudaReduce *self = GST_CUDA_REDUCE (object);
  gboolean renegotiate = FALSE, set_mode = FALSE;

  GST_OBJECT_LOCK (self);
  if (is_monoid_property (prop_id)) {
    self->monoid_serial++;
    /* Output fields decide the tensor caps. */
    renegotiate = self->output == GST_CUDA_REDUCE_OUTPUT_TENSOR;
  }
  switch (prop_id) {
    case PROP_MONOID:
      g_free (self->monoid_name);
      self->monoid_name = g_value_dup_string (value);
      self->monoid_name_set = TRUE;
      break;
    case PROP_ACCUMULATOR ... PROP_FINALIZE:
      g_free (self->inline_text[prop_id - PROP_ACCUMULATOR]);
      self->inline_text[prop_id - PROP_ACCUMULATOR] =
          g_value_dup_string (value);
      break;
    case PROP_THRESHOLD:
      self->threshold = g_value_get_double (value);
      self->context_serial++;
      break;
    case PROP_CONTEXT:
      g_clear_pointer (&self->context, gst_structure_free);
      self->context = g_value_dup_boxed (value);
      self->context_serial++;
      break;
    case PROP_CUDA_DEVICE_ID:
      self->device_id = g_value_get_int (value);
      break;
    case PROP_OUTPUT:
      self->output = g_value_get_enum (value);
      set_mode = TRUE;
      break;
    case PROP_POST_MESSAGES:
      self->post_messages = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GstCudaReduceOutput output = self->output;
  GST_OBJECT_UNLOCK (self);
  /* Both take the object lock themselves. */
  if (set_mode)
    gst_base_transform_set_passthrough (
        GST_BASE_TRANSFORM (self), output == GST_CUDA_REDUCE_OUTPUT_MESSAGE);
  if (renegotiate)
    gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (self));
}

static void
gst_cuda_reduce_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstCudaReduce *self = GST_CUDA_REDUCE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MONOID:
      g_value_set_string (value, self->monoid_name);
      break;
    case PROP_ACCUMULATOR ... PROP_FINALIZE:
      g_value_set_string (value, self->inline_text[prop_id - PROP_ACCUMULATOR]);
      break;
    case PROP_THRESHOLD:
      g_value_set_double (value, self->threshold);
      break;
    case PROP_CONTEXT:
      g_value_set_boxed (value, self->context);
      break;
    case PROP_CUDA_DEVICE_ID:
      g_value_set_int (value, self->device_id);
      break;
    case PROP_OUTPUT:
      g_value_set_enum (value, self->output);
      break;
    case PROP_POST_MESSAGES:
      g_value_set_boolean (value, self->post_messages);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* The monoid the properties describe now: parsed once per change of the
 * monoid's properties, from any thread. */
static CrMonoid *
current_monoid (GstCudaReduce *self, GError **error)
{
  GST_OBJECT_LOCK (self);
  if (self->parsed && self->parsed_serial == self->monoid_serial) {
    CrMonoid *m = cr_monoid_ref (self->parsed);
    GST_OBJECT_UNLOCK (self);
    return m;
  }
  guint serial = self->monoid_serial;
  g_autofree gchar *name = g_strdup (self->monoid_name);
  gboolean name_set = self->monoid_name_set;
  gchar *text[N_INLINE];
  for (guint k = 0; k < N_INLINE; k++)
    text[k] = g_strdup (self->inline_text[k]);
  GST_OBJECT_UNLOCK (self);

  CrMonoid *m;
  if (text[PROP_LOAD - PROP_ACCUMULATOR] != NULL) {
    CrMonoidText inline_monoid = {
      .name = name_set ? name : "custom",
      .accumulator = text[PROP_ACCUMULATOR - PROP_ACCUMULATOR],
      .load = text[PROP_LOAD - PROP_ACCUMULATOR],
      .combine = text[PROP_COMBINE - PROP_ACCUMULATOR],
      .identity = text[PROP_IDENTITY - PROP_ACCUMULATOR],
      .context = text[PROP_CONTEXT_FIELDS - PROP_ACCUMULATOR],
      .output = text[PROP_OUTPUT_FIELDS - PROP_ACCUMULATOR],
      .finalize = text[PROP_FINALIZE - PROP_ACCUMULATOR],
    };
    m = cr_monoid_new (&inline_monoid, "the inline monoid properties", error);
  } else {
    m = cr_monoid_load (name, error);
  }
  for (guint k = 0; k < N_INLINE; k++)
    g_free (text[k]);

  if (m) {
    GST_OBJECT_LOCK (self);
    if (serial == self->monoid_serial) {
      g_clear_pointer (&self->parsed, cr_monoid_unref);
      self->parsed = cr_monoid_ref (m);
      self->parsed_serial = serial;
    }
    GST_OBJECT_UNLOCK (self);
  }
  return m;
}

/* Compiling and choosing the program */

static void
compiled_entry_free (gpointer data)
{
  CompiledEntry *entry = data;
  cr_reducer_free (entry->reducer);
  cr_program_free (entry->program);
  g_free (entry);
}

static void
log_source (GstCudaReduce *self, const CrProgram *program)
{
  if (gst_debug_category_get_threshold (GST_CAT_DEFAULT) < GST_LEVEL_DEBUG)
    return;
  g_autofree gchar *numbered = cr_source_number_lines (program->source);
  GST_DEBUG_OBJECT (self, "generated source for monoid %s on %s input:\n%s",
      program->monoid->name, cr_type_name (program->in), numbered);
}

/* Makes @monoid on the negotiated input type the active program, compiling
 * it unless this element already has. Posts the error on failure. */
static gboolean
activate (GstCudaReduce *self, CrMonoid *monoid)
{
  g_autoptr (CrProgram) program = cr_program_new (monoid, self->format.type);
  CompiledEntry *entry = g_hash_table_lookup (self->compiled, program->source);

  if (entry == NULL) {
    g_autoptr (GError) error = NULL;
    g_autofree gchar *log = NULL;
    log_source (self, program);
    CrReducer *reducer = cr_reducer_new (self->device, program, &log, &error);
    if (reducer == NULL) {
      g_autofree gchar *numbered = cr_source_number_lines (program->source);
      g_autofree gchar *debug = log
          ? g_strdup_printf ("Monoid %s (%s) on %s "
                             "input.\nNVRTC log:\n%s\n\nGenerated source:\n%s",
              monoid->name, monoid->origin, cr_type_name (program->in), log,
              numbered)
          : NULL;
      post_error (self, error, debug);
      return FALSE;
    }
    const CrCompiled *compiled = cr_reducer_compiled (reducer);
    g_autofree gchar *shape = cr_reducer_describe (reducer);
    GST_INFO_OBJECT (self, "monoid %s on %s input: %s for %s in %.1f ms; %s",
        monoid->name, cr_type_name (program->in),
        compiled->from_cache ? "cached image" : "compiled", compiled->target,
        compiled->seconds * 1e3, shape);
    if (compiled->log)
      GST_DEBUG_OBJECT (self, "NVRTC log:\n%s", compiled->log);
    entry = g_new0 (CompiledEntry, 1);
    entry->program = g_steal_pointer (&program);
    entry->reducer = reducer;
    g_hash_table_insert (self->compiled, entry->program->source, entry);
  }

  self->active = entry;
  g_clear_pointer (&self->active_monoid, cr_monoid_unref);
  self->active_monoid = cr_monoid_ref (monoid);
  g_free (self->result_bytes);
  self->result_bytes = g_malloc0 (entry->program->out.size);
  return TRUE;
}

/* Before each buffer: follow a change of the monoid's properties. */
static gboolean
follow_monoid (GstCudaReduce *self)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CrMonoid) monoid = current_monoid (self, &error);

  if (monoid == NULL) {
    post_error (self, error, NULL);
    return FALSE;
  }
  if (monoid == self->active_monoid)
    return TRUE;
  return activate (self, monoid);
}

static gboolean
add_context_value (GQuark field, const GValue *value, gpointer table)
{
  g_hash_table_insert (
      table, (gpointer)g_quark_to_string (field), (gpointer)value);
  return TRUE;
}

/* The context for the next launch: packed again only when a context
 * property or the program changed, so changing threshold while PLAYING
 * costs a few bytes, never a compile. */
static gboolean
pack_context (GstCudaReduce *self)
{
  const CrProgram *program = self->active->program;
  g_autoptr (GError) error = NULL;
  gboolean ok;

  GST_OBJECT_LOCK (self);
  if (self->packed_program == program
      && self->packed_serial == self->context_serial) {
    GST_OBJECT_UNLOCK (self);
    return TRUE;
  }
  g_autoptr (GHashTable) values = g_hash_table_new (g_str_hash, g_str_equal);
  if (self->context)
    gst_structure_foreach (self->context, add_context_value, values);
  g_free (self->context_bytes);
  self->context_bytes = g_malloc0 (program->ctx.size);
  ok = cr_program_pack_context (
      program, self->threshold, values, self->context_bytes, &error);
  self->packed_serial = self->context_serial;
  self->packed_program = ok ? (CrProgram *)program : NULL;
  GST_OBJECT_UNLOCK (self);

  if (!ok)
    post_error (self, error, NULL);
  return ok;
}

/* Life cycle */

static gboolean
gst_cuda_reduce_start (GstBaseTransform *trans)
{
  GstCudaReduce *self = GST_CUDA_REDUCE (trans);
  g_autoptr (GError) error = NULL;
  g_autoptr (CrMonoid) monoid = current_monoid (self, &error);

  /* A bad monoid is reported before anything touches the GPU: it is the
   * more useful message on a machine that has neither. */
  if (monoid == NULL) {
    post_error (self, error, NULL);
    return FALSE;
  }
  GST_OBJECT_LOCK (self);
  gint device_id = self->device_id;
  GST_OBJECT_UNLOCK (self);
  self->device = cr_device_open (device_id, &error);
  if (self->device == NULL) {
    post_error (self, error, NULL);
    return FALSE;
  }
  GST_INFO_OBJECT (self, "using GPU %d: %s (sm_%d)",
      cr_device_ordinal (self->device), cr_device_name (self->device),
      cr_device_arch (self->device));
  self->compiled = g_hash_table_new_full (
      g_str_hash, g_str_equal, NULL, compiled_entry_free);
  return TRUE;
}

static gboolean
gst_cuda_reduce_stop (GstBaseTransform *trans)
{
  GstCudaReduce *self = GST_CUDA_REDUCE (trans);

  self->active = NULL;
  self->packed_program = NULL;
  self->have_format = FALSE;
  g_clear_pointer (&self->active_monoid, cr_monoid_unref);
  g_clear_pointer (&self->compiled, g_hash_table_unref);
  g_clear_pointer (&self->device, cr_device_close);
  g_clear_pointer (&self->context_bytes, g_free);
  g_clear_pointer (&self->result_bytes, g_free);
  return TRUE;
}

/* Caps */

static gboolean
tensor_output (GstCudaReduce *self)
{
  GST_OBJECT_LOCK (self);
  gboolean tensor = self->output == GST_CUDA_REDUCE_OUTPUT_TENSOR;
  GST_OBJECT_UNLOCK (self);
  return tensor;
}

static GstCaps *
gst_cuda_reduce_transform_caps (GstBaseTransform *trans,
    GstPadDirection direction, GstCaps *caps, GstCaps *filter)
{
  GstCudaReduce *self = GST_CUDA_REDUCE (trans);
  GstCaps *result;

  if (!tensor_output (self)) {
    result = gst_caps_ref (caps);
  } else if (direction == GST_PAD_SRC) {
    /* Any input gives tensors; which ones is decided going downstream. */
    result = gst_static_pad_template_get_caps (&sink_template);
  } else {
    g_autoptr (GError) error = NULL;
    g_autoptr (CrMonoid) monoid = current_monoid (self, &error);
    result = gst_caps_new_empty ();
    if (monoid == NULL)
      GST_WARNING_OBJECT (self, "no tensor caps: %s", error->message);
    for (guint k = 0; monoid && k < gst_caps_get_size (caps); k++)
      result = gst_caps_merge (result,
          cr_tensor_caps_for_input (gst_caps_get_structure (caps, k), monoid));
  }
  if (filter) {
    GstCaps *filtered =
        gst_caps_intersect_full (filter, result, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (result);
    result = filtered;
  }
  GST_DEBUG_OBJECT (self, "%s caps %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, result);
  return result;
}

static gboolean
gst_cuda_reduce_set_caps (
    GstBaseTransform *trans, GstCaps *incaps, GstCaps *outcaps)
{
  GstCudaReduce *self = GST_CUDA_REDUCE (trans);
  g_autoptr (GError) error = NULL;

  if (!cr_input_format_from_caps (incaps, &self->format)) {
    GST_ERROR_OBJECT (self, "cannot reduce %" GST_PTR_FORMAT, incaps);
    return FALSE;
  }
  self->have_format = TRUE;
  g_autoptr (CrMonoid) monoid = current_monoid (self, &error);
  if (monoid == NULL) {
    post_error (self, error, NULL);
    return FALSE;
  }
  /* Compile now, never per buffer. */
  return activate (self, monoid);
}

/* Results */

static GstClockTime
buffer_duration (GstCudaReduce *self, GstBuffer *buf, guint64 count)
{
  if (GST_BUFFER_DURATION_IS_VALID (buf))
    return GST_BUFFER_DURATION (buf);
  if (self->format.family == CR_INPUT_AUDIO && self->format.rate > 0)
    return gst_util_uint64_scale_int (
        count / self->format.channels, GST_SECOND, self->format.rate);
  if (self->format.family == CR_INPUT_VIDEO
      && GST_VIDEO_INFO_FPS_N (&self->format.video) > 0)
    return gst_util_uint64_scale_int (GST_SECOND,
        GST_VIDEO_INFO_FPS_D (&self->format.video),
        GST_VIDEO_INFO_FPS_N (&self->format.video));
  return GST_CLOCK_TIME_NONE;
}

static void
post_result (GstCudaReduce *self, GstBuffer *buf, guint64 count)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  const CrLayout *out = &self->active->program->out;
  GstClockTime ts = GST_BUFFER_PTS (buf);
  GstStructure *s = gst_structure_new ("cudareduce", "timestamp", G_TYPE_UINT64,
      ts, "stream-time", G_TYPE_UINT64,
      gst_segment_to_stream_time (&trans->segment, GST_FORMAT_TIME, ts),
      "running-time", G_TYPE_UINT64,
      gst_segment_to_running_time (&trans->segment, GST_FORMAT_TIME, ts),
      "duration", G_TYPE_UINT64, buffer_duration (self, buf, count), "monoid",
      G_TYPE_STRING, self->active_monoid->name, "count", G_TYPE_UINT64, count,
      NULL);

  for (guint f = 0; f < out->n_fields; f++) {
    GValue value = G_VALUE_INIT;
    cr_type_to_gvalue (
        out->types[f], self->result_bytes + out->offsets[f], &value);
    gst_structure_take_value (s, out->names[f], &value);
  }
  gst_element_post_message (
      GST_ELEMENT (self), gst_message_new_element (GST_OBJECT (self), s));
}

/* Reduces @buf into self->result_bytes; posts the error on failure. */
static gboolean
reduce_buffer (GstCudaReduce *self, GstBuffer *buf, guint64 *count)
{
  g_autoptr (GError) error = NULL;
  CrHostRegion region = { 0 };
  GstVideoFrame frame;
  GstMapInfo map;
  gboolean ok;

  if (!self->have_format || !follow_monoid (self) || !pack_context (self))
    return FALSE;

  if (self->format.family == CR_INPUT_VIDEO) {
    /* Honours GstVideoMeta strides; only each row's visible pixels are
     * copied to the GPU. */
    if (!gst_video_frame_map (&frame, &self->format.video, buf, GST_MAP_READ)) {
      GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("Cannot map a video frame"),
          ("the buffer of %" G_GSIZE_FORMAT
           " bytes is too small for %" GST_PTR_FORMAT,
              gst_buffer_get_size (buf), buf));
      return FALSE;
    }
    region.data = GST_VIDEO_FRAME_PLANE_DATA (&frame, 0);
    region.row_bytes = GST_VIDEO_FRAME_WIDTH (&frame)
        * GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, 0);
    region.n_rows = GST_VIDEO_FRAME_HEIGHT (&frame);
    region.stride = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
    ok = cr_reducer_reduce_host (self->active->reducer, &region,
        self->context_bytes, self->result_bytes, count, &error);
    gst_video_frame_unmap (&frame);
  } else {
    if (!gst_buffer_map (buf, &map, GST_MAP_READ)) {
      GST_ELEMENT_ERROR (
          self, STREAM, FAILED, ("Cannot map the input buffer"), (NULL));
      return FALSE;
    }
    region.data = map.data;
    region.row_bytes = map.size;
    region.n_rows = 1;
    region.stride = map.size;
    ok = cr_reducer_reduce_host (self->active->reducer, &region,
        self->context_bytes, self->result_bytes, count, &error);
    gst_buffer_unmap (buf, &map);
  }
  if (!ok)
    post_error (self, error, NULL);
  return ok;
}

static gboolean
should_post (GstCudaReduce *self)
{
  GST_OBJECT_LOCK (self);
  gboolean post = self->post_messages;
  GST_OBJECT_UNLOCK (self);
  return post;
}

static GstFlowReturn
gst_cuda_reduce_transform_ip (GstBaseTransform *trans, GstBuffer *buf)
{
  GstCudaReduce *self = GST_CUDA_REDUCE (trans);
  guint64 count = 0;

  if (!reduce_buffer (self, buf, &count))
    return GST_FLOW_ERROR;
  if (should_post (self))
    post_result (self, buf, count);
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_cuda_reduce_prepare_output_buffer (
    GstBaseTransform *trans, GstBuffer *inbuf, GstBuffer **outbuf)
{
  GstCudaReduce *self = GST_CUDA_REDUCE (trans);

  if (gst_base_transform_is_passthrough (trans))
    return GST_BASE_TRANSFORM_CLASS (parent_class)
        ->prepare_output_buffer (trans, inbuf, outbuf);
  if (self->active == NULL) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("no caps were set before the first buffer"));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  /* One memory per tensor, as NNStreamer expects of other/tensors. */
  const CrLayout *out = &self->active->program->out;
  *outbuf = gst_buffer_new ();
  for (guint f = 0; f < out->n_fields; f++)
    gst_buffer_append_memory (*outbuf,
        gst_allocator_alloc (NULL, cr_type_size (out->types[f]), NULL));
  gst_buffer_copy_into (*outbuf, inbuf,
      GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS, 0, -1);
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_cuda_reduce_transform (
    GstBaseTransform *trans, GstBuffer *inbuf, GstBuffer *outbuf)
{
  GstCudaReduce *self = GST_CUDA_REDUCE (trans);
  guint64 count = 0;

  if (!reduce_buffer (self, inbuf, &count))
    return GST_FLOW_ERROR;
  const CrLayout *out = &self->active->program->out;
  if (gst_buffer_n_memory (outbuf) != out->n_fields) {
    /* The monoid changed its output fields since caps were negotiated. */
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("The monoid's output fields changed; the stream must renegotiate"),
        ("%u tensors negotiated, %u now", gst_buffer_n_memory (outbuf),
            out->n_fields));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  gsize offset = 0;
  for (guint f = 0; f < out->n_fields; f++) {
    gsize size = cr_type_size (out->types[f]);
    gst_buffer_fill (
        outbuf, offset, self->result_bytes + out->offsets[f], size);
    offset += size;
  }
  if (should_post (self))
    post_result (self, inbuf, count);
  return GST_FLOW_OK;
}

/* Type */

static void
gst_cuda_reduce_finalize (GObject *object)
{
  GstCudaReduce *self = GST_CUDA_REDUCE (object);

  g_free (self->monoid_name);
  for (guint k = 0; k < N_INLINE; k++)
    g_free (self->inline_text[k]);
  g_clear_pointer (&self->context, gst_structure_free);
  g_clear_pointer (&self->parsed, cr_monoid_unref);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_cuda_reduce_init (GstCudaReduce *self)
{
  self->monoid_name = g_strdup (DEFAULT_MONOID);
  self->threshold = DEFAULT_THRESHOLD;
  self->device_id = DEFAULT_DEVICE_ID;
  self->output = DEFAULT_OUTPUT;
  self->post_messages = DEFAULT_POST_MESSAGES;
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), TRUE);
}

#define MONOID_FLAGS \
  (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING)
#define SETUP_FLAGS \
  (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)

static void
install_inline_property (
    GObjectClass *klass, guint id, const gchar *name, const gchar *blurb)
{
  g_object_class_install_property (
      klass, id, g_param_spec_string (name, name, blurb, NULL, MONOID_FLAGS));
}

static void
gst_cuda_reduce_class_init (GstCudaReduceClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->set_property = gst_cuda_reduce_set_property;
  gobject_class->get_property = gst_cuda_reduce_get_property;
  gobject_class->finalize = gst_cuda_reduce_finalize;

  g_object_class_install_property (gobject_class, PROP_MONOID,
      g_param_spec_string ("monoid", "Monoid",
          "A built-in monoid (sum, sumsq, min, max, minmax, absmax, mean_var, "
          "count_gt, argmax) or the path of a .monoid file (containing '/' or "
          "ending in .monoid). When the load property is set, the inline "
          "properties define the monoid and this only names it",
          DEFAULT_MONOID, MONOID_FLAGS));
  install_inline_property (gobject_class, PROP_ACCUMULATOR, "accumulator",
      "Inline monoid: the accumulator's fields as name:type;name:type, types "
      "being int8..uint64, float32, float64, in (the input type) or wide "
      "(int64, uint64 or float64 by the input). Required with load");
  install_inline_property (gobject_class, PROP_LOAD, "load",
      "Inline monoid: body of Acc load(In x, unsigned long long i), e.g. "
      "\"Acc r; r.sum = x; return r;\". Setting it selects the inline monoid");
  install_inline_property (gobject_class, PROP_COMBINE, "combine",
      "Inline monoid: body of Acc combine(Acc a, Acc b); must be associative "
      "and commutative. Required with load");
  install_inline_property (gobject_class, PROP_IDENTITY, "identity",
      "Inline monoid: body of Acc identity(), the value combine leaves "
      "unchanged. Required with load");
  install_inline_property (gobject_class, PROP_CONTEXT_FIELDS, "context-fields",
      "Inline monoid: context fields (name:type;...) that "
      "bodies read as ctx.name, filled from the threshold and context "
      "properties");
  install_inline_property (gobject_class, PROP_OUTPUT_FIELDS, "output-fields",
      "Inline monoid: result fields (name:type;...) that finalize returns as "
      "an Out. Requires finalize");
  install_inline_property (gobject_class, PROP_FINALIZE, "finalize",
      "Inline monoid: body of Out finalize(Acc a, unsigned long long n), run "
      "once per result on the GPU. Requires output-fields");
  g_object_class_install_property (gobject_class, PROP_THRESHOLD,
      g_param_spec_double ("threshold", "Threshold",
          "Value of the context field 'threshold' when the monoid declares "
          "one (as count_gt does). Takes effect from the next buffer, without "
          "recompiling",
          -G_MAXDOUBLE, G_MAXDOUBLE, DEFAULT_THRESHOLD, MONOID_FLAGS));
  g_object_class_install_property (gobject_class, PROP_CONTEXT,
      g_param_spec_boxed ("context", "Context",
          "Values of the monoid's context fields by name, e.g. "
          "\"ctx, lo=(double)-1, hi=(double)1\". Takes effect from the next "
          "buffer, without recompiling",
          GST_TYPE_STRUCTURE, MONOID_FLAGS));
  g_object_class_install_property (gobject_class, PROP_CUDA_DEVICE_ID,
      g_param_spec_int ("cuda-device-id", "CUDA device id",
          "The GPU to reduce on, by CUDA ordinal; -1 for the first", -1,
          G_MAXINT, DEFAULT_DEVICE_ID, SETUP_FLAGS));
  g_object_class_install_property (gobject_class, PROP_OUTPUT,
      g_param_spec_enum ("output", "Output",
          "Where results go: 'message' passes buffers through and posts "
          "results on the bus; 'tensor' pushes them downstream as "
          "other/tensors, one tensor per result field",
          GST_TYPE_CUDA_REDUCE_OUTPUT, DEFAULT_OUTPUT, SETUP_FLAGS));
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages",
          "Post an element message named 'cudareduce' with each result, in "
          "either output mode",
          DEFAULT_POST_MESSAGES, MONOID_FLAGS));

  gst_element_class_set_static_metadata (element_class, "CUDA reduce",
      "Filter/Analyzer",
      "Reduces raw numeric buffers on an NVIDIA GPU with a monoid compiled at "
      "run time by NVRTC, posting results as messages or pushing tensors",
      "cudareduce developers");
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_REDUCE_OUTPUT, 0);

  trans_class->start = GST_DEBUG_FUNCPTR (gst_cuda_reduce_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cuda_reduce_stop);
  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_reduce_transform_caps);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_cuda_reduce_set_caps);
  trans_class->prepare_output_buffer =
      GST_DEBUG_FUNCPTR (gst_cuda_reduce_prepare_output_buffer);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_cuda_reduce_transform);
  trans_class->transform_ip = GST_DEBUG_FUNCPTR (gst_cuda_reduce_transform_ip);
  trans_class->passthrough_on_same_caps = FALSE;
}
