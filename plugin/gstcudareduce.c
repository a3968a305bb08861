/* gstcudareduce.c: the cudareduce element.
 *
 * A thin GstBaseTransform over the engine: properties become a CrMonoid,
 * caps pick the input type, and each buffer becomes one job submitted with
 * cr_reducer_submit() and finished, in order, by the source pad's task.
 * Everything CUDA-specific lives below. */

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
 * With #GstCudaReduce:per-channel each result has one value per channel
 * (audio channel, RGB component, innermost tensor index), and with
 * #GstCudaReduce:interval results accumulate across buffers, one per
 * interval of stream time, audio buffers being split where an interval ends
 * as the level element does.
 *
 * Reductions are asynchronous: up to #GstCudaReduce:async-depth buffers
 * are in flight on the GPU, and results leave in order, from a task on the
 * source pad, as the GPU finishes them. Serialized events such as EOS wait
 * for every buffer before them. The element offers upstream pinned host
 * memory that the GPU reads in place (an allocator, and a pool when the caps
 * fix the buffer size); other memory that upstream recycles is registered
 * with the driver once, and the rest is copied through pinned memory.
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
 * |[
 * gst-launch-1.0 -m audiotestsrc num-buffers=100 ! \
 *     audio/x-raw,format=F32LE,channels=2 ! cudareduce monoid=sumsq \
 *     per-channel=true interval=100000000 ! fakesink
 * ]| posts per-channel sums of squares every 100 ms.
 */

#include "gstcudareduce.h"

#include "cr-error.h"
#include "cr-reducer.h"
#include "gstcudareduce-caps.h"
#include "gstcudareduce-memory.h"

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
#define DEFAULT_ASYNC_DEPTH 8
#define DEFAULT_PER_CHANNEL FALSE
#define DEFAULT_INTERVAL 0
#define MAX_ASYNC_DEPTH 64

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
  PROP_ASYNC_DEPTH,
  PROP_PER_CHANNEL,
  PROP_INTERVAL,
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
  guint async_depth;
  gboolean per_channel;
  guint64 interval;
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
  guint tensor_fields; /* negotiated output tensors */
  gboolean run_per_channel; /* per-channel and interval while running */
  guint64 run_interval;

  /* The interval being accumulated in the active reducer's state. */
  gboolean in_interval;
  guint64 interval_rows; /* rows of the reducer reduced so far */
  guint64 interval_frames; /* audio frames so far */
  GstClockTime interval_ts; /* of its first sample */
  GstClockTime interval_time; /* non-audio: durations of its buffers */
  CompiledEntry *interval_entry;
  GstAllocator *allocator; /* pinned memory proposed upstream */

  /* Buffers in flight, between the streaming thread and the source pad's
   * task; under queue_lock. */
  GMutex queue_lock;
  GCond queue_cond;
  GQueue queue; /* Pending, oldest first */
  guint in_flight; /* queued, or being finished by the task */
  guint depth; /* async-depth while running */
  gboolean flushing;
  GstFlowReturn flow; /* the task's last push, once not OK */
  GstClockTime last_duration;
  GstPadActivateModeFunction base_src_activate_mode;
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
    case PROP_ASYNC_DEPTH:
      self->async_depth = g_value_get_uint (value);
      break;
    case PROP_PER_CHANNEL:
      self->per_channel = g_value_get_boolean (value);
      /* The result tensors' dimensions follow. */
      renegotiate = self->output == GST_CUDA_REDUCE_OUTPUT_TENSOR;
      break;
    case PROP_INTERVAL:
      self->interval = g_value_get_uint64 (value);
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
    case PROP_ASYNC_DEPTH:
      g_value_set_uint (value, self->async_depth);
      break;
    case PROP_PER_CHANNEL:
      g_value_set_boolean (value, self->per_channel);
      break;
    case PROP_INTERVAL:
      g_value_set_uint64 (value, self->interval);
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
  g_autoptr (CrProgram) program = self->run_per_channel
      ? cr_program_new_per_channel (monoid, self->format.type)
      : cr_program_new (monoid, self->format.type);
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

  g_autoptr (GError) error = NULL;
  guint channels = self->run_per_channel ? self->format.channels : 1;
  if (!cr_reducer_set_channels (entry->reducer, channels, &error)) {
    post_error (self, error, NULL);
    return FALSE;
  }
  self->active = entry;
  g_clear_pointer (&self->active_monoid, cr_monoid_unref);
  self->active_monoid = cr_monoid_ref (monoid);
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

static void drop_pending (GstCudaReduce *self);

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
  guint depth = self->async_depth;
  self->run_per_channel = self->per_channel;
  self->run_interval = self->interval;
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
  self->allocator = gst_cuda_reduce_host_allocator_new (self->device);
  g_mutex_lock (&self->queue_lock);
  self->depth = depth;
  self->last_duration = GST_CLOCK_TIME_NONE;
  g_mutex_unlock (&self->queue_lock);
  return TRUE;
}

static gboolean
gst_cuda_reduce_stop (GstBaseTransform *trans)
{
  GstCudaReduce *self = GST_CUDA_REDUCE (trans);

  /* The source pad's task stopped when the pad was deactivated. */
  drop_pending (self);
  self->active = NULL;
  self->in_interval = FALSE;
  self->packed_program = NULL;
  self->have_format = FALSE;
  g_clear_pointer (&self->active_monoid, cr_monoid_unref);
  g_clear_pointer (&self->compiled, g_hash_table_unref);
  g_clear_pointer (&self->device, cr_device_unref);
  g_clear_pointer (&self->context_bytes, g_free);
  /* Memory upstream still holds keeps the allocator, and so the context,
   * alive. */
  gst_clear_object (&self->allocator);
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
    GST_OBJECT_LOCK (self);
    gboolean per_channel = self->per_channel;
    GST_OBJECT_UNLOCK (self);
    result = gst_caps_new_empty ();
    if (monoid == NULL)
      GST_WARNING_OBJECT (self, "no tensor caps: %s", error->message);
    for (guint k = 0; monoid && k < gst_caps_get_size (caps); k++)
      result = gst_caps_merge (result,
          cr_tensor_caps_for_input (
              gst_caps_get_structure (caps, k), monoid, per_channel));
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
  /* An interval does not span a change of format. */
  self->in_interval = FALSE;
  g_autoptr (CrMonoid) monoid = current_monoid (self, &error);
  if (monoid == NULL) {
    post_error (self, error, NULL);
    return FALSE;
  }
  /* Compile now, never per buffer. */
  if (!activate (self, monoid))
    return FALSE;
  self->tensor_fields = self->active->program->out.n_fields;
  return TRUE;
}

/* Results
 *
 * Buffers are reduced asynchronously: the streaming thread submits each one
 * on the device's stream and queues it as a Pending; a task on the source
 * pad finishes them in order, as the GPU completes them, posting results
 * and pushing buffers. At most async-depth buffers are in flight; the
 * streaming thread waits for room. Serialized events wait until everything
 * before them has been pushed, so nothing overtakes a buffer. */

/* One reduction of (part of) a buffer, and the result it ends, if any. */
typedef struct {
  CrJob *job;
  gboolean emit; /* posts (and in tensor mode pushes) a result */
  GstClockTime timestamp, duration, stream_time, running_time;
} Piece;

typedef struct {
  GstBuffer *buffer; /* the input, mapped until the GPU is done with it; NULL
                        for the partial interval at EOS */
  gboolean is_frame;
  GstVideoFrame frame;
  GstMapInfo map;
  GArray *pieces; /* Piece, in submission order */
  const CrProgram *program; /* owned by the element's compiled table */
  CrMonoid *monoid;
  guint channels; /* results per field the reducer gives */
  guint components; /* of which are reported (RGBx's x is not) */
  gboolean per_channel;
  gboolean interval; /* results span buffers */
} Pending;

static GstClockTime
frames_to_time (GstCudaReduce *self, guint64 frames)
{
  return gst_util_uint64_scale_int (frames, GST_SECOND, self->format.rate);
}

static GstClockTime
buffer_duration (GstCudaReduce *self, GstBuffer *buf, guint64 bytes)
{
  if (GST_BUFFER_DURATION_IS_VALID (buf))
    return GST_BUFFER_DURATION (buf);
  if (self->format.family == CR_INPUT_AUDIO && self->format.rate > 0)
    return frames_to_time (
        self, bytes / cr_type_size (self->format.type) / self->format.channels);
  if (self->format.family == CR_INPUT_VIDEO
      && GST_VIDEO_INFO_FPS_N (&self->format.video) > 0)
    return gst_util_uint64_scale_int (GST_SECOND,
        GST_VIDEO_INFO_FPS_D (&self->format.video),
        GST_VIDEO_INFO_FPS_N (&self->format.video));
  return GST_CLOCK_TIME_NONE;
}

/* Waits for the GPU (a job's memory may still be read) and releases
 * everything the pending buffer holds. */
static void
pending_free (Pending *p)
{
  for (guint k = 0; k < p->pieces->len; k++) {
    CrJob *job = g_array_index (p->pieces, Piece, k).job;
    if (job == NULL)
      continue;
    g_autofree guint8 *out = g_malloc (p->program->out.size * p->channels + 1);
    cr_job_finish (job, out, NULL, NULL);
    cr_job_free (job);
  }
  g_array_unref (p->pieces);
  if (p->is_frame)
    gst_video_frame_unmap (&p->frame);
  else if (p->map.memory)
    gst_buffer_unmap (p->buffer, &p->map);
  gst_clear_buffer (&p->buffer);
  g_clear_pointer (&p->monoid, cr_monoid_unref);
  g_free (p);
}

static Pending *
pending_new (GstCudaReduce *self, GstBuffer *buf)
{
  Pending *p = g_new0 (Pending, 1);
  p->buffer = buf;
  p->pieces = g_array_new (FALSE, TRUE, sizeof (Piece));
  p->program = self->active->program;
  p->monoid = cr_monoid_ref (self->active_monoid);
  p->per_channel = self->run_per_channel;
  p->channels = cr_reducer_channels (self->active->reducer);
  p->components = p->per_channel ? self->format.components : 1;
  p->interval = self->run_interval > 0;
  return p;
}

/* Submits @region (or @bytes of it from @offset, for a split) as one piece;
 * posts the error on failure. */
static gboolean
submit_piece (GstCudaReduce *self, Pending *p, const CrHostRegion *region,
    const CrSubmitOptions *options, Piece *piece)
{
  g_autoptr (GError) error = NULL;
  piece->job = cr_reducer_submit (
      self->active->reducer, region, self->context_bytes, options, &error);
  if (piece->job == NULL) {
    post_error (self, error, NULL);
    return FALSE;
  }
  g_array_append_val (p->pieces, *piece);
  return TRUE;
}

static void
stamp (GstCudaReduce *self, Piece *piece, GstClockTime ts, GstClockTime dur)
{
  GstSegment *segment = &GST_BASE_TRANSFORM (self)->segment;
  piece->timestamp = ts;
  piece->duration = dur;
  piece->stream_time =
      gst_segment_to_stream_time (segment, GST_FORMAT_TIME, ts);
  piece->running_time =
      gst_segment_to_running_time (segment, GST_FORMAT_TIME, ts);
}

/* Rows of the reducer in @bytes. */
static guint64
rows_in (GstCudaReduce *self, gsize bytes)
{
  return bytes / cr_type_size (self->format.type)
      / cr_reducer_channels (self->active->reducer);
}

/* Audio with an interval: split where intervals end, as level does. */
static gboolean
submit_audio_interval (
    GstCudaReduce *self, Pending *p, const CrHostRegion *whole, GstBuffer *buf)
{
  const gsize frame_bytes =
      cr_type_size (self->format.type) * self->format.channels;
  const guint64 per_interval = MAX (1,
      gst_util_uint64_scale_round (
          self->run_interval, self->format.rate, GST_SECOND));
  const guint64 frames = whole->row_bytes / frame_bytes;
  const GstClockTime ts = GST_BUFFER_PTS (buf);
  guint64 done = 0;

  if (whole->row_bytes % frame_bytes != 0) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("The buffer is %" G_GSIZE_FORMAT " bytes, not a whole number of "
         "audio frames (%" G_GSIZE_FORMAT " bytes each)",
            whole->row_bytes, frame_bytes),
        (NULL));
    return FALSE;
  }
  do {
    if (!self->in_interval) {
      self->in_interval = TRUE;
      self->interval_rows = self->interval_frames = 0;
      self->interval_ts = GST_CLOCK_TIME_IS_VALID (ts)
          ? ts + frames_to_time (self, done)
          : GST_CLOCK_TIME_NONE;
    }
    guint64 take = MIN (frames - done, per_interval - self->interval_frames);
    CrHostRegion region = *whole;
    region.data = whole->data + done * frame_bytes;
    region.row_bytes = take * frame_bytes;
    region.stride = region.row_bytes;
    if (whole->device)
      region.device = whole->device + done * frame_bytes;
    Piece piece = { 0 };
    piece.emit = self->interval_frames + take == per_interval;
    CrSubmitOptions options = {
      .carry = self->interval_frames > 0,
      .rows_before = self->interval_rows,
      .discard_result = !piece.emit,
    };
    if (piece.emit)
      stamp (
          self, &piece, self->interval_ts, frames_to_time (self, per_interval));
    if (!submit_piece (self, p, &region, &options, &piece))
      return FALSE;
    self->interval_frames += take;
    self->interval_rows += rows_in (self, region.row_bytes);
    done += take;
    if (piece.emit)
      self->in_interval = FALSE;
  } while (done < frames);
  return TRUE;
}

/* Anything else with an interval: whole buffers, until their durations
 * reach the interval. */
static gboolean
submit_whole_interval (
    GstCudaReduce *self, Pending *p, const CrHostRegion *region, GstBuffer *buf)
{
  const gsize bytes = region->row_bytes * region->n_rows;
  GstClockTime duration = buffer_duration (self, buf, bytes);

  if (!self->in_interval) {
    self->in_interval = TRUE;
    self->interval_rows = 0;
    self->interval_time = 0;
    self->interval_ts = GST_BUFFER_PTS (buf);
  }
  if (GST_CLOCK_TIME_IS_VALID (duration))
    self->interval_time += duration;
  Piece piece = { 0 };
  /* Without durations every buffer closes its interval. Half a buffer of
   * slack, because durations are truncated: three frames at 30/1 are
   * 99999999 ns, and should make a 100 ms interval. */
  piece.emit = !GST_CLOCK_TIME_IS_VALID (duration)
      || self->interval_time + duration / 2 >= self->run_interval;
  CrSubmitOptions options = {
    .carry = self->interval_rows > 0,
    .rows_before = self->interval_rows,
    .discard_result = !piece.emit,
  };
  if (piece.emit)
    stamp (self, &piece, self->interval_ts,
        GST_CLOCK_TIME_IS_VALID (duration) ? self->interval_time
                                           : GST_CLOCK_TIME_NONE);
  if (!submit_piece (self, p, region, &options, &piece))
    return FALSE;
  self->interval_rows += rows_in (self, bytes);
  if (piece.emit)
    self->in_interval = FALSE;
  return TRUE;
}

/* The interval under way, as a result of what it has (at EOS). */
static Pending *
submit_partial_interval (GstCudaReduce *self)
{
  if (!self->in_interval || self->active == NULL
      || self->interval_entry != self->active)
    return NULL;
  self->in_interval = FALSE;
  Pending *p = pending_new (self, NULL);
  CrHostRegion empty = { .n_rows = 1 };
  CrSubmitOptions options = {
    .carry = self->interval_rows > 0,
    .rows_before = self->interval_rows,
  };
  Piece piece = { .emit = TRUE };
  GstClockTime duration = self->format.family == CR_INPUT_AUDIO
      ? frames_to_time (self, self->interval_frames)
      : self->interval_time;
  stamp (self, &piece, self->interval_ts, duration);
  if (!submit_piece (self, p, &empty, &options, &piece)) {
    pending_free (p);
    return NULL;
  }
  return p;
}

/* Maps @buf and submits its reduction; posts the error on failure. Takes
 * @buf. */
static Pending *
submit_buffer (GstCudaReduce *self, GstBuffer *buf)
{
  CrHostRegion region = { 0 };
  GstMemory *mem = NULL;
  const guint8 *map_data;

  if (!self->have_format || !follow_monoid (self) || !pack_context (self)) {
    gst_buffer_unref (buf);
    return NULL;
  }
  Pending *p = pending_new (self, buf);

  if (self->format.family == CR_INPUT_VIDEO) {
    /* Honours GstVideoMeta strides; only each row's visible pixels reach
     * the GPU. */
    if (!gst_video_frame_map (
            &p->frame, &self->format.video, buf, GST_MAP_READ)) {
      GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("Cannot map a video frame"),
          ("the buffer of %" G_GSIZE_FORMAT
           " bytes is too small for %" GST_PTR_FORMAT,
              gst_buffer_get_size (buf), buf));
      pending_free (p);
      return NULL;
    }
    p->is_frame = TRUE;
    region.data = GST_VIDEO_FRAME_PLANE_DATA (&p->frame, 0);
    region.row_bytes = GST_VIDEO_FRAME_WIDTH (&p->frame)
        * GST_VIDEO_FRAME_COMP_PSTRIDE (&p->frame, 0);
    region.n_rows = GST_VIDEO_FRAME_HEIGHT (&p->frame);
    region.stride = GST_VIDEO_FRAME_PLANE_STRIDE (&p->frame, 0);
    map_data = p->frame.map[0].data;
  } else {
    if (!gst_buffer_map (buf, &p->map, GST_MAP_READ)) {
      GST_ELEMENT_ERROR (
          self, STREAM, FAILED, ("Cannot map the input buffer"), (NULL));
      pending_free (p);
      return NULL;
    }
    region.data = p->map.data;
    region.row_bytes = p->map.size;
    region.n_rows = 1;
    region.stride = p->map.size;
    map_data = p->map.data;
  }
  /* A buffer of several memories maps as a merged copy, which is copied
   * again; one memory may be read in place. */
  if (gst_buffer_n_memory (buf) == 1)
    mem = gst_buffer_peek_memory (buf, 0);
  if (mem && (region.n_rows <= 1 || region.stride == region.row_bytes))
    region.device = gst_cuda_reduce_memory_device_address (mem, map_data,
        region.data, region.row_bytes * region.n_rows, self->device);

  gboolean ok;
  if (self->run_interval == 0) {
    Piece piece = { .emit = TRUE };
    stamp (self, &piece, GST_BUFFER_PTS (buf),
        buffer_duration (self, buf, region.row_bytes * region.n_rows));
    ok = submit_piece (self, p, &region, NULL, &piece);
  } else {
    /* A new stream, or another monoid, starts a new interval. */
    if (GST_BUFFER_IS_DISCONT (buf) || self->interval_entry != self->active)
      self->in_interval = FALSE;
    self->interval_entry = self->active;
    if (self->format.family == CR_INPUT_AUDIO)
      ok = submit_audio_interval (self, p, &region, buf);
    else
      ok = submit_whole_interval (self, p, &region, buf);
  }
  if (!ok) {
    self->in_interval = FALSE;
    pending_free (p);
    return NULL;
  }
  return p;
}

/* @values: one value per channel of the piece's result. */
static void
set_field (GstStructure *s, const Pending *p, guint f, const guint8 *result)
{
  const CrLayout *out = &p->program->out;
  GValue value = G_VALUE_INIT;

  if (!p->per_channel) {
    cr_type_to_gvalue (out->types[f], result + out->offsets[f], &value);
    gst_structure_take_value (s, out->names[f], &value);
    return;
  }
  g_value_init (&value, GST_TYPE_ARRAY);
  for (guint c = 0; c < p->components; c++) {
    GValue item = G_VALUE_INIT;
    cr_type_to_gvalue (
        out->types[f], result + c * out->size + out->offsets[f], &item);
    gst_value_array_append_and_take_value (&value, &item);
  }
  gst_structure_take_value (s, out->names[f], &value);
}

static void
post_result (GstCudaReduce *self, const Pending *p, const Piece *piece,
    const guint8 *result, guint64 count)
{
  const CrLayout *out = &p->program->out;
  GstStructure *s = gst_structure_new ("cudareduce", "timestamp", G_TYPE_UINT64,
      piece->timestamp, "stream-time", G_TYPE_UINT64, piece->stream_time,
      "running-time", G_TYPE_UINT64, piece->running_time, "duration",
      G_TYPE_UINT64, piece->duration, "monoid", G_TYPE_STRING, p->monoid->name,
      "count", G_TYPE_UINT64, count, NULL);

  if (p->per_channel)
    gst_structure_set (s, "channels", G_TYPE_UINT, p->components, NULL);
  for (guint f = 0; f < out->n_fields; f++)
    set_field (s, p, f, result);
  gst_element_post_message (
      GST_ELEMENT (self), gst_message_new_element (GST_OBJECT (self), s));
}

/* One memory per tensor, as NNStreamer expects of other/tensors: field f's
 * value for each reported channel. */
static GstBuffer *
tensor_buffer (const Pending *p, const Piece *piece, const guint8 *result)
{
  const CrLayout *out = &p->program->out;
  GstBuffer *buf = gst_buffer_new ();

  for (guint f = 0; f < out->n_fields; f++) {
    gsize size = cr_type_size (out->types[f]);
    GstMemory *mem = gst_allocator_alloc (NULL, size * p->components, NULL);
    GstMapInfo map;
    gst_memory_map (mem, &map, GST_MAP_WRITE);
    for (guint c = 0; c < p->components; c++)
      memcpy (
          map.data + c * size, result + c * out->size + out->offsets[f], size);
    gst_memory_unmap (mem, &map);
    gst_buffer_append_memory (buf, mem);
  }
  /* One result per buffer keeps the buffer's flags and DTS; an interval's
   * result spans buffers and has only its own timestamp and duration. */
  if (p->buffer && !p->interval)
    gst_buffer_copy_into (buf, p->buffer,
        GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS, 0, -1);
  GST_BUFFER_PTS (buf) = piece->timestamp;
  GST_BUFFER_DURATION (buf) = piece->duration;
  return buf;
}

static gboolean
should_post (GstCudaReduce *self)
{
  GST_OBJECT_LOCK (self);
  gboolean post = self->post_messages;
  GST_OBJECT_UNLOCK (self);
  return post;
}

/* Waits for @p's results, posts them and pushes the buffer (or the
 * tensors) downstream. Takes @p. */
static GstFlowReturn
finish_pending (GstCudaReduce *self, Pending *p)
{
  const gboolean tensors = self->output == GST_CUDA_REDUCE_OUTPUT_TENSOR;
  g_autofree guint8 *result =
      g_malloc0 (MAX (p->program->out.size * p->channels, 1));
  GstFlowReturn ret = GST_FLOW_OK;

  for (guint k = 0; k < p->pieces->len && ret == GST_FLOW_OK; k++) {
    Piece *piece = &g_array_index (p->pieces, Piece, k);
    g_autoptr (GError) error = NULL;
    guint64 count = 0;
    gboolean ok = cr_job_finish (piece->job, result, &count, &error);
    cr_job_free (g_steal_pointer (&piece->job));
    if (!ok) {
      /* Refuse further buffers before anyone can see the error. */
      g_mutex_lock (&self->queue_lock);
      self->flow = GST_FLOW_ERROR;
      g_mutex_unlock (&self->queue_lock);
      post_error (self, error, NULL);
      ret = GST_FLOW_ERROR;
      break;
    }
    if (!piece->emit)
      continue;
    /* Per channel, the count is over the reported channels (RGBx's x is
     * reduced, not reported). */
    if (p->per_channel)
      count = count / p->channels * p->components;
    if (should_post (self))
      post_result (self, p, piece, result, count);
    if (tensors)
      ret = gst_pad_push (
          GST_BASE_TRANSFORM_SRC_PAD (self), tensor_buffer (p, piece, result));
  }
  GstBuffer *out = !tensors && p->buffer && ret == GST_FLOW_OK
      ? gst_buffer_ref (p->buffer)
      : NULL;
  pending_free (p);
  if (out)
    ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), out);
  return ret;
}

static void
drop_pending (GstCudaReduce *self)
{
  Pending *p;
  g_mutex_lock (&self->queue_lock);
  while ((p = g_queue_pop_head (&self->queue)) != NULL) {
    pending_free (p);
    self->in_flight--;
  }
  g_cond_broadcast (&self->queue_cond);
  g_mutex_unlock (&self->queue_lock);
}

static void
src_loop (gpointer data)
{
  GstCudaReduce *self = data;
  GstPad *srcpad = GST_BASE_TRANSFORM_SRC_PAD (self);

  g_mutex_lock (&self->queue_lock);
  while (!self->flushing && g_queue_is_empty (&self->queue))
    g_cond_wait (&self->queue_cond, &self->queue_lock);
  if (self->flushing) {
    g_mutex_unlock (&self->queue_lock);
    gst_pad_pause_task (srcpad);
    return;
  }
  Pending *p = g_queue_pop_head (&self->queue);
  g_mutex_unlock (&self->queue_lock);

  GstFlowReturn ret = finish_pending (self, p);

  g_mutex_lock (&self->queue_lock);
  self->in_flight--;
  if (ret != GST_FLOW_OK && self->flow == GST_FLOW_OK)
    self->flow = ret;
  g_cond_broadcast (&self->queue_cond);
  g_mutex_unlock (&self->queue_lock);
  if (ret != GST_FLOW_OK) {
    GST_DEBUG_OBJECT (self, "pausing: %s", gst_flow_get_name (ret));
    gst_pad_pause_task (srcpad);
  }
}

/* Until everything submitted has been pushed, or cannot be. */
static void
drain (GstCudaReduce *self)
{
  g_mutex_lock (&self->queue_lock);
  while (!self->flushing && self->flow == GST_FLOW_OK && self->in_flight > 0)
    g_cond_wait (&self->queue_cond, &self->queue_lock);
  g_mutex_unlock (&self->queue_lock);
}

/* Hands @p to the source pad's task. Takes @p. */
static GstFlowReturn
enqueue (GstCudaReduce *self, Pending *p)
{
  GstPad *srcpad = GST_BASE_TRANSFORM_SRC_PAD (self);

  g_mutex_lock (&self->queue_lock);
  if (self->flushing) {
    g_mutex_unlock (&self->queue_lock);
    pending_free (p);
    return GST_FLOW_FLUSHING;
  }
  g_queue_push_tail (&self->queue, p);
  self->in_flight++;
  if (p->buffer && GST_BUFFER_DURATION_IS_VALID (p->buffer))
    self->last_duration = GST_BUFFER_DURATION (p->buffer);
  g_cond_broadcast (&self->queue_cond);
  g_mutex_unlock (&self->queue_lock);
  /* Started on the first buffer and again after a flush or an error
   * paused it; starting a started task does nothing. */
  gst_pad_start_task (srcpad, src_loop, self, NULL);
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_cuda_reduce_submit_input_buffer (
    GstBaseTransform *trans, gboolean is_discont, GstBuffer *buf)
{
  GstCudaReduce *self = GST_CUDA_REDUCE (trans);
  GstFlowReturn ret;

  /* The base class sends new caps downstream from here when the output
   * must renegotiate: everything before them goes first. */
  if (gst_pad_needs_reconfigure (GST_BASE_TRANSFORM_SRC_PAD (trans)))
    drain (self);
  ret = GST_BASE_TRANSFORM_CLASS (parent_class)
            ->submit_input_buffer (trans, is_discont, buf);
  buf = g_steal_pointer (&trans->queued_buf);
  if (ret != GST_FLOW_OK || buf == NULL) {
    gst_clear_buffer (&buf);
    return ret;
  }

  g_mutex_lock (&self->queue_lock);
  while (!self->flushing && self->flow == GST_FLOW_OK
      && self->in_flight >= self->depth)
    g_cond_wait (&self->queue_cond, &self->queue_lock);
  ret = self->flushing ? GST_FLOW_FLUSHING : self->flow;
  g_mutex_unlock (&self->queue_lock);
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref (buf);
    return ret;
  }

  if (self->output == GST_CUDA_REDUCE_OUTPUT_TENSOR && self->active
      && self->active->program->out.n_fields != self->tensor_fields) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("The monoid's output fields changed; the stream must renegotiate"),
        ("%u tensors negotiated, %u now", self->tensor_fields,
            self->active->program->out.n_fields));
    gst_buffer_unref (buf);
    return GST_FLOW_NOT_NEGOTIATED;
  }
  Pending *p = submit_buffer (self, buf);
  if (p == NULL)
    return GST_FLOW_ERROR;
  return enqueue (self, p);
}

/* Buffers leave from the source pad's task, never from here. */
static GstFlowReturn
gst_cuda_reduce_generate_output (GstBaseTransform *trans, GstBuffer **outbuf)
{
  *outbuf = NULL;
  return GST_FLOW_OK;
}

static gboolean
gst_cuda_reduce_sink_event (GstBaseTransform *trans, GstEvent *event)
{
  GstCudaReduce *self = GST_CUDA_REDUCE (trans);
  GstPad *srcpad = GST_BASE_TRANSFORM_SRC_PAD (trans);
  gboolean ret;

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_FLUSH_START:
      g_mutex_lock (&self->queue_lock);
      self->flushing = TRUE;
      g_cond_broadcast (&self->queue_cond);
      g_mutex_unlock (&self->queue_lock);
      /* Downstream now refuses the task's pushes, so it stops soon. */
      ret = GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
      gst_pad_pause_task (srcpad);
      return ret;
    case GST_EVENT_FLUSH_STOP:
      drop_pending (self);
      self->in_interval = FALSE;
      g_mutex_lock (&self->queue_lock);
      self->flushing = FALSE;
      self->flow = GST_FLOW_OK;
      g_mutex_unlock (&self->queue_lock);
      break;
    case GST_EVENT_EOS: {
      /* The interval under way ends with the stream. */
      Pending *p = submit_partial_interval (self);
      if (p)
        enqueue (self, p);
      drain (self);
      break;
    }
    default:
      /* Segments, caps, tags, gaps: after the buffers before them. */
      if (GST_EVENT_IS_SERIALIZED (event))
        drain (self);
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

/* Deactivating the source pad must wake and stop the task before the base
 * class waits for the pad's streaming to end. */
static gboolean
src_activate_mode (
    GstPad *pad, GstObject *parent, GstPadMode mode, gboolean active)
{
  GstCudaReduce *self = GST_CUDA_REDUCE (parent);

  g_mutex_lock (&self->queue_lock);
  self->flushing = !active;
  self->flow = GST_FLOW_OK;
  g_cond_broadcast (&self->queue_cond);
  g_mutex_unlock (&self->queue_lock);
  if (!active)
    gst_pad_stop_task (pad);
  return self->base_src_activate_mode (pad, parent, mode, active);
}

static gboolean
gst_cuda_reduce_query (
    GstBaseTransform *trans, GstPadDirection direction, GstQuery *query)
{
  GstCudaReduce *self = GST_CUDA_REDUCE (trans);

  if (direction != GST_PAD_SRC || GST_QUERY_TYPE (query) != GST_QUERY_LATENCY)
    return GST_BASE_TRANSFORM_CLASS (parent_class)
        ->query (trans, direction, query);

  if (!gst_pad_peer_query (GST_BASE_TRANSFORM_SINK_PAD (trans), query))
    return FALSE;
  gboolean live;
  GstClockTime min, max;
  gst_query_parse_latency (query, &live, &min, &max);
  /* A buffer leaves as soon as the GPU has reduced it (micro- to
   * milliseconds), so the minimum is unchanged. Up to async-depth buffers
   * can wait here when downstream is slow: that much more can be held. */
  g_mutex_lock (&self->queue_lock);
  GstClockTime held = GST_CLOCK_TIME_IS_VALID (self->last_duration)
      ? self->last_duration * self->depth
      : 0;
  g_mutex_unlock (&self->queue_lock);
  /* Result tensors of an interval leave when it ends, stamped with its
   * start: that much later than their timestamps. */
  GST_OBJECT_LOCK (self);
  GstClockTime interval =
      self->output == GST_CUDA_REDUCE_OUTPUT_TENSOR ? self->interval : 0;
  GST_OBJECT_UNLOCK (self);
  min += interval;
  if (GST_CLOCK_TIME_IS_VALID (max))
    max += held + interval;
  GST_DEBUG_OBJECT (self,
      "latency: live %d, min %" GST_TIME_FORMAT ", max %" GST_TIME_FORMAT, live,
      GST_TIME_ARGS (min), GST_TIME_ARGS (max));
  gst_query_set_latency (query, live, min, max);
  return TRUE;
}

/* Upstream gets pinned, device-mapped memory to write into: an allocator
 * always, and a pool where the caps fix the buffer size. */
static gboolean
gst_cuda_reduce_propose_allocation (
    GstBaseTransform *trans, GstQuery *decide_query, GstQuery *query)
{
  GstCudaReduce *self = GST_CUDA_REDUCE (trans);
  GstAllocationParams params;
  GstCaps *caps;
  gboolean need_pool;
  CrInputFormat format;

  /* In passthrough this asks downstream first, for its metas and pools. */
  GST_BASE_TRANSFORM_CLASS (parent_class)
      ->propose_allocation (trans, decide_query, query);
  if (self->allocator == NULL)
    return TRUE;
  gst_query_parse_allocation (query, &caps, &need_pool);
  if (caps == NULL || !cr_input_format_from_caps (caps, &format))
    return TRUE;

  /* Ours first: upstream takes the first that suits it. */
  gst_allocation_params_init (&params);
  params.align = 255;
  if (gst_query_get_n_allocation_params (query) > 0) {
    GstAllocator *other = NULL;
    GstAllocationParams other_params;
    gst_query_parse_nth_allocation_param (query, 0, &other, &other_params);
    gst_query_set_nth_allocation_param (query, 0, self->allocator, &params);
    gst_query_add_allocation_param (query, other, &other_params);
    gst_clear_object (&other);
  } else {
    gst_query_add_allocation_param (query, self->allocator, &params);
  }
  if (format.family == CR_INPUT_VIDEO)
    gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);

  if (need_pool && format.frame_bytes > 0) {
    GstBufferPool *pool = gst_buffer_pool_new ();
    GstStructure *config = gst_buffer_pool_get_config (pool);
    guint min = self->depth + 1;
    gst_buffer_pool_config_set_params (
        config, caps, format.frame_bytes, min, 0);
    gst_buffer_pool_config_set_allocator (config, self->allocator, &params);
    if (!gst_buffer_pool_set_config (pool, config)) {
      GST_WARNING_OBJECT (self, "the pinned pool refused its configuration");
      gst_object_unref (pool);
      return TRUE;
    }
    if (gst_query_get_n_allocation_pools (query) > 0) {
      GstBufferPool *other = NULL;
      guint size, other_min, other_max;
      gst_query_parse_nth_allocation_pool (
          query, 0, &other, &size, &other_min, &other_max);
      gst_query_set_nth_allocation_pool (
          query, 0, pool, format.frame_bytes, min, 0);
      gst_query_add_allocation_pool (query, other, size, other_min, other_max);
      gst_clear_object (&other);
    } else {
      gst_query_add_allocation_pool (query, pool, format.frame_bytes, min, 0);
    }
    gst_object_unref (pool);
  }
  return TRUE;
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
  g_mutex_clear (&self->queue_lock);
  g_cond_clear (&self->queue_cond);
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
  self->async_depth = DEFAULT_ASYNC_DEPTH;
  self->per_channel = DEFAULT_PER_CHANNEL;
  self->interval = DEFAULT_INTERVAL;
  g_mutex_init (&self->queue_lock);
  g_cond_init (&self->queue_cond);
  g_queue_init (&self->queue);
  self->flushing = TRUE;
  self->last_duration = GST_CLOCK_TIME_NONE;
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), TRUE);

  GstPad *srcpad = GST_BASE_TRANSFORM_SRC_PAD (self);
  self->base_src_activate_mode = GST_PAD_ACTIVATEMODEFUNC (srcpad);
  gst_pad_set_activatemode_function (srcpad, src_activate_mode);
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

  g_object_class_install_property (gobject_class, PROP_ASYNC_DEPTH,
      g_param_spec_uint ("async-depth", "Async depth",
          "How many buffers may be in flight on the GPU at once. Buffers "
          "leave in order as their reductions complete; the streaming thread "
          "waits when this many are in flight. 1 reduces one buffer at a time",
          1, MAX_ASYNC_DEPTH, DEFAULT_ASYNC_DEPTH, SETUP_FLAGS));

  g_object_class_install_property (gobject_class, PROP_PER_CHANNEL,
      g_param_spec_boolean ("per-channel", "Per channel",
          "One result per channel: per interleaved audio channel, per "
          "component of packed RGB video (in memory order, padding left "
          "out), per innermost index of a tensor. Message fields become "
          "arrays and result tensors have the channel count as dimension",
          DEFAULT_PER_CHANNEL, SETUP_FLAGS));
  g_object_class_install_property (gobject_class, PROP_INTERVAL,
      g_param_spec_uint64 ("interval", "Interval",
          "Stream time per result, in nanoseconds, accumulated across "
          "buffers (audio buffers are split where an interval ends, as the "
          "level element does; video frames and tensors count whole). 0 "
          "gives one result per buffer",
          0, G_MAXUINT64, DEFAULT_INTERVAL, SETUP_FLAGS));

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
  trans_class->submit_input_buffer =
      GST_DEBUG_FUNCPTR (gst_cuda_reduce_submit_input_buffer);
  trans_class->generate_output =
      GST_DEBUG_FUNCPTR (gst_cuda_reduce_generate_output);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_cuda_reduce_sink_event);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_cuda_reduce_query);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_cuda_reduce_propose_allocation);
  trans_class->passthrough_on_same_caps = FALSE;
}
