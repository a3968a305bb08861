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
 * inline properties. Several joined by `+` are computed in one pass.
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
 * as the level element does. #GstCudaReduce:window makes the interval a
 * hop: each result then spans the last window of several intervals,
 * combined on the GPU from each interval's state.
 *
 * #GstCudaReduce:regions and #GstCudaReduce:roi-types give each video
 * frame one result per region: fixed rectangles, and the frame's
 * GstVideoRegionOfInterestMeta (and, with GStreamer 1.24's analytics
 * library, object detections) of the chosen types, all reduced in one
 * launch a plane. Message fields become arrays over the regions, and a
 * region from an ROI meta also gets its results on the meta, as a
 * parameter structure named `cudareduce`.
 *
 * Reductions are asynchronous: up to #GstCudaReduce:async-depth launches
 * are in flight on the GPU, small buffers that arrive while it is busy
 * sharing one launch. Results are posted in order by a thread of the
 * element's as the GPU finishes them, and buffers leave in order from a
 * task on the source pad. Serialized events such as EOS wait for every
 * buffer before them. The element offers upstream pinned host
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
 * |[
 * gst-launch-1.0 -m audiotestsrc num-buffers=100 ! \
 *     audio/x-raw,format=F32LE,channels=2 ! cudareduce monoid=sumsq \
 *     per-channel=true interval=100000000 window=400000000 ! fakesink
 * ]| posts, every 100 ms, per-channel sums of squares over the last 400 ms.
 * |[
 * gst-launch-1.0 -m audiotestsrc num-buffers=10 ! audio/x-raw,format=S16LE ! \
 *     cudareduce monoid=sumsq+minmax+count_gt threshold=1000 ! fakesink
 * ]| computes three monoids in one pass over each buffer, posting their
 * results as sumsq.sum, sumsq.sumsq, minmax.min, minmax.max and
 * count_gt.greater.
 * |[
 * gst-launch-1.0 -m videotestsrc num-buffers=5 ! video/x-raw,format=NV12 ! \
 *     cudareduce monoid=signalstats per-channel=true \
 *     percentiles="<0.5, 0.99>" ! fakesink
 * ]| posts what FFmpeg's signalstats gives of Y, U and V (min, low, avg,
 * high, max), their 256-bin histograms, and each plane's median and 99th
 * percentile, read in one pass over each frame.
 * |[
 * gst-launch-1.0 -m videotestsrc num-buffers=5 ! video/x-raw,format=RGBA ! \
 *     cudareduce monoid=vectorscope pair=R,G bins=256 ! fakesink
 * ]| counts R against G of each pixel in a 2-D histogram of 256 x 256
 * bins; without pair, on YUV video, U against V in 64 x 64 (a
 * vectorscope).
 * |[
 * gst-launch-1.0 -m videotestsrc num-buffers=5 ! \
 *     video/x-raw,format=NV12,width=640,height=480 ! cudareduce \
 *     monoid=mean_var per-channel=true \
 *     regions="<<0,0,320,240>,<320,240,320,240>>" ! fakesink
 * ]| posts the mean and variance of Y, U and V in two quarters of each
 * frame.
 */

#include "gstcudareduce.h"

#include "cr-error.h"
#include "gstcudareduce-caps.h"
#include "gstcudareduce-error.h"
#include "gstcudareduce-memory.h"
#include "gstcudareduce-regions.h"
#include "gstcudareduce-stream.h"

#include <gst/audio/audio.h>
#include <gst/video/video.h>

GST_DEBUG_CATEGORY (gst_cuda_reduce_debug);
#define GST_CAT_DEFAULT gst_cuda_reduce_debug

struct _GstCudaReduce {
  GstBaseTransform parent;

  /* Properties, under the object lock. */
  GstCudaReduceProps props;

  /* The pipeline's CUDA context: found or made when caps bring frames in
   * CUDA memory, replaced by set_context, as GStreamer's CUDA elements keep
   * theirs. */
  GstCudaReduceCuda cuda;

  /* While running: the streaming thread's (gstcudareduce-stream.c). */
  GstCudaReduceStream stream;

  /* Submissions, and small buffers gathered for the next batch. */
  GstCudaReduceBatches batches;

  /* Buffers in flight, finished by the source pad's task. */
  GstCudaReduceQueue queue;
  GstPadActivateModeFunction base_src_activate_mode;
  GstPadEventFunction base_sink_pad_event;

  /* The streaming thread while the base class renegotiates the output, and
   * the warnings it posts meanwhile (only that thread touches the list). */
  GThread *renegotiating;
  GSList *held_warnings;
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

/* Properties: stored by gstcudareduce-props.c, followed here. */

static void
gst_cuda_reduce_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  GstCudaReduce *self = GST_CUDA_REDUCE (object);
  GstCudaReducePropsChange change;

  GST_OBJECT_LOCK (self);
  gboolean known =
      gst_cuda_reduce_props_set (&self->props, prop_id, value, &change);
  GstCudaReduceOutput output = self->props.output;
  GST_OBJECT_UNLOCK (self);
  if (!known) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    return;
  }
  /* Both take the object lock themselves. */
  if (change & GST_CUDA_REDUCE_PROPS_SET_MODE)
    gst_base_transform_set_passthrough (
        GST_BASE_TRANSFORM (self), output == GST_CUDA_REDUCE_OUTPUT_MESSAGE);
  if (change & GST_CUDA_REDUCE_PROPS_RENEGOTIATE)
    gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (self));
}

static void
gst_cuda_reduce_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstCudaReduce *self = GST_CUDA_REDUCE (object);

  GST_OBJECT_LOCK (self);
  gboolean known = gst_cuda_reduce_props_get (&self->props, prop_id, value);
  GST_OBJECT_UNLOCK (self);
  if (!known)
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

/* The monoid the properties describe now, from any thread. */
static CrMonoid *
current_monoid (GstCudaReduce *self, GError **error)
{
  return gst_cuda_reduce_props_monoid (GST_OBJECT (self), &self->props, error);
}

static gboolean
tensor_output (GstCudaReduce *self)
{
  GST_OBJECT_LOCK (self);
  gboolean tensor = self->props.output == GST_CUDA_REDUCE_OUTPUT_TENSOR;
  GST_OBJECT_UNLOCK (self);
  return tensor;
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
  if (monoid == NULL
      || !gst_cuda_reduce_props_output_fits (
          tensor_output (self), monoid, &error)) {
    gst_cuda_reduce_post_error (self, error, NULL);
    return FALSE;
  }
  if (gst_cuda_reduce_queue_abandoned (&self->queue)) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("This cudareduce gave up on GPU work that never finished, and "
         "cannot start again"),
        ("Make a new element, or restart the process to get the GPU back"));
    return FALSE;
  }
  GST_OBJECT_LOCK (self);
  GstCudaReduceSetup setup = {
    .device_id = self->props.device_id,
    .per_channel = self->props.per_channel,
    .component = self->props.component,
    .interval = self->props.interval,
    .gpu_timeout = self->props.gpu_timeout,
  };
  const guint64 window = self->props.window;
  guint depth = self->props.async_depth;
  GValue regions = G_VALUE_INIT;
  g_value_init (&regions, GST_TYPE_ARRAY);
  g_value_copy (&self->props.regions, &regions);
  setup.roi_types = gst_cuda_reduce_regions_parse_types (self->props.roi_types);
  GST_OBJECT_UNLOCK (self);
  setup.rects = g_array_new (FALSE, FALSE, sizeof (GstCudaReduceRect));
  gboolean ok = gst_cuda_reduce_regions_parse (&regions, setup.rects, &error);
  g_value_unset (&regions);
  setup.regions = setup.rects->len > 0 || setup.roi_types != NULL;
  if (ok && setup.regions)
    ok = gst_cuda_reduce_regions_check_setup (
        setup.interval, window, tensor_output (self), setup.roi_types, &error);
  if (ok)
    ok = gst_cuda_reduce_window_hops (
        window, setup.interval, &setup.window_hops, &error);
  if (!ok) {
    g_clear_pointer (&setup.rects, g_array_unref);
    g_clear_pointer (&setup.roi_types, g_array_unref);
    gst_cuda_reduce_post_error (self, error, NULL);
    return FALSE;
  }
  if (!gst_cuda_reduce_stream_start (&self->stream, &setup))
    return FALSE;
  gst_cuda_reduce_queue_start (&self->queue, depth, setup.gpu_timeout);
  return TRUE;
}

static gboolean
gst_cuda_reduce_stop (GstBaseTransform *trans)
{
  GstCudaReduce *self = GST_CUDA_REDUCE (trans);

  /* The source pad's task stopped when the pad was deactivated. */
  if (!gst_cuda_reduce_queue_abandoned (&self->queue))
    gst_cuda_reduce_batches_drop (&self->batches);
  /* Waits for the results thread, or for the watchdog to give up on it. */
  gst_cuda_reduce_queue_stop (&self->queue);
  gst_cuda_reduce_stream_stop (
      &self->stream, gst_cuda_reduce_queue_abandoned (&self->queue));
  return TRUE;
}

/* Caps */

/* The part of @caps that the settings can read (a pair of U and V needs
 * YUV, component=1 two channels, regions video), in a caps query whose
 * @filter says what the asker can give, so that a converter or a source
 * upstream picks a format the element reduces. All of @caps when that
 * part leaves nothing of @filter, and without a filter (a check that two
 * pads can link): caps the element cannot read then still reach set_caps,
 * whose error says what to change, rather than failing to link or to
 * negotiate without a word. */
static GstCaps *
readable_part (
    GstCudaReduce *self, const CrMonoid *monoid, GstCaps *caps, GstCaps *filter)
{
  if (filter == NULL)
    return gst_caps_ref (caps);
  GST_OBJECT_LOCK (self);
  const gboolean per_channel = self->props.per_channel;
  const gint component = self->props.component;
  const gboolean regions = gst_value_array_get_size (&self->props.regions) > 0
      || (self->props.roi_types && self->props.roi_types[0]);
  GST_OBJECT_UNLOCK (self);
  GstCaps *readable = cr_caps_readable (
      caps, regions, per_channel, component, monoid ? monoid->pair : NULL);
  if (gst_caps_can_intersect (readable, filter))
    return readable;
  gst_caps_unref (readable);
  return gst_caps_ref (caps);
}

static GstCaps *
gst_cuda_reduce_transform_caps (GstBaseTransform *trans,
    GstPadDirection direction, GstCaps *caps, GstCaps *filter)
{
  GstCudaReduce *self = GST_CUDA_REDUCE (trans);
  g_autoptr (GError) error = NULL;
  /* Without a monoid the start fails anyway: the caps are not narrowed. */
  g_autoptr (CrMonoid) monoid = current_monoid (self, &error);
  GstCaps *result;

  if (!tensor_output (self)) {
    result = readable_part (self, monoid, caps, filter);
  } else if (direction == GST_PAD_SRC) {
    /* Any input gives tensors; which ones is decided going downstream. */
    g_autoptr (GstCaps) any = gst_static_pad_template_get_caps (&sink_template);
    result = readable_part (self, monoid, any, filter);
  } else {
    GST_OBJECT_LOCK (self);
    gboolean per_channel = self->props.per_channel;
    gint component = self->props.component;
    /* Rectangles the start refuses give no result whatever their count. */
    const guint regions = gst_value_array_get_size (&self->props.regions);
    GST_OBJECT_UNLOCK (self);
    result = gst_caps_new_empty ();
    if (monoid && !gst_cuda_reduce_props_output_fits (TRUE, monoid, &error))
      g_clear_pointer (&monoid, cr_monoid_unref);
    if (monoid == NULL)
      GST_WARNING_OBJECT (self, "no tensor caps: %s", error->message);
    for (guint k = 0; monoid && k < gst_caps_get_size (caps); k++)
      result = gst_caps_merge (result,
          cr_tensor_caps_for_input (gst_caps_get_structure (caps, k), monoid,
              per_channel, component, regions));
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

  return gst_cuda_reduce_stream_set_caps (&self->stream, incaps);
}

/* Buffers
 *
 * The streaming thread submits each buffer's reductions
 * (gstcudareduce-stream.c, gstcudareduce-batches.c) and queues it; the
 * results thread completes them in order and the source pad's task pushes
 * them (gstcudareduce-queue.c). */

static void
get_outputs (GstCudaReduce *self, GstCudaReduceOutputs *outputs)
{
  outputs->element = GST_ELEMENT (self);
  outputs->srcpad = GST_BASE_TRANSFORM_SRC_PAD (self);
  outputs->watch = &self->queue.watch;
}

/* The results thread: one pending buffer's results. */
static GstFlowReturn
complete_pending (
    gpointer item, gboolean may_wait, gpointer data, GError **error)
{
  GstCudaReduce *self = data;
  GstCudaReduceOutputs outputs;

  get_outputs (self, &outputs);
  return gst_cuda_reduce_batches_complete (
      &self->batches, item, may_wait, &outputs, error);
}

/* The source pad's task: one completed pending buffer, pushed. */
static GstFlowReturn
push_pending (gpointer item, GstFlowReturn completed, gpointer data)
{
  GstCudaReduce *self = data;
  GstCudaReduceOutputs outputs;

  get_outputs (self, &outputs);
  return gst_cuda_reduce_pending_push (item, completed, &outputs);
}

/* The watchdog's thread: the results thread waited longer than
 * gpu-timeout for the GPU. */
static void
gpu_stuck (GstClockTime waited, gpointer data)
{
  GstCudaReduce *self = data;

  /* The results thread reads the element if the GPU ever answers: keep it
   * for good. */
  gst_object_ref (self);
  GST_OBJECT_LOCK (self);
  g_autofree gchar *name = gst_cuda_reduce_props_monoid_name (&self->props);
  GstClockTime timeout = self->props.gpu_timeout;
  GST_OBJECT_UNLOCK (self);
  GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
      ("The GPU did not finish reducing a buffer with monoid '%s' in %.1f s "
       "(gpu-timeout): its code may never end",
          name, (gdouble)waited / GST_SECOND),
      ("Waited %" GST_TIME_FORMAT " with gpu-timeout %" GST_TIME_FORMAT
       ". The element gives up: its CUDA context, the memory and the buffers "
       "in flight stay as they are until the process exits. Check the "
       "monoid's loops, or raise gpu-timeout if it is only slow",
          GST_TIME_ARGS (waited), GST_TIME_ARGS (timeout)));
}

static const GstCudaReduceQueueFuncs queue_funcs = {
  .complete = complete_pending,
  .push = push_pending,
  .free = (GDestroyNotify)gst_cuda_reduce_pending_free,
  .stuck = gpu_stuck,
};

/* A flush or state change may still reach the source pad after
 * submit_input_buffer found it unflushed and before the base class sends
 * the new caps: the base class's warning is held while it renegotiates,
 * and dropped if the pad flushed meanwhile. */
static gboolean
gst_cuda_reduce_post_message (GstElement *element, GstMessage *message)
{
  GstCudaReduce *self = GST_CUDA_REDUCE (element);

  if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_WARNING
      && g_atomic_pointer_get (&self->renegotiating) == g_thread_self ()) {
    self->held_warnings = g_slist_append (self->held_warnings, message);
    return TRUE;
  }
  return GST_ELEMENT_CLASS (parent_class)->post_message (element, message);
}

static void
post_held_warnings (GstCudaReduce *self, GstFlowReturn *ret)
{
  g_atomic_pointer_set (&self->renegotiating, NULL);
  GSList *held = g_steal_pointer (&self->held_warnings);
  const gboolean flushed = *ret != GST_FLOW_OK
      && GST_PAD_IS_FLUSHING (GST_BASE_TRANSFORM_SRC_PAD (self));
  for (GSList *l = held; l != NULL; l = l->next) {
    if (flushed) {
      GST_DEBUG_OBJECT (self,
          "flushed while renegotiating: dropping %" GST_PTR_FORMAT, l->data);
      gst_message_unref (l->data);
    } else {
      gst_element_post_message (GST_ELEMENT (self), l->data);
    }
  }
  g_slist_free (held);
  if (flushed)
    *ret = GST_FLOW_FLUSHING;
}

static GstFlowReturn
gst_cuda_reduce_submit_input_buffer (
    GstBaseTransform *trans, gboolean is_discont, GstBuffer *buf)
{
  GstCudaReduce *self = GST_CUDA_REDUCE (trans);
  GstFlowReturn ret;

  /* The base class sends new caps downstream from here when the output
   * must renegotiate: everything before them goes first. */
  GstPad *srcpad = GST_BASE_TRANSFORM_SRC_PAD (trans);
  const gboolean renegotiate = gst_pad_needs_reconfigure (srcpad);
  if (renegotiate) {
    gst_cuda_reduce_queue_drain (&self->queue);
    /* A flushing source pad refuses the caps, and the base class would
     * post a "not negotiated" warning for a buffer a flush drops anyway (a
     * monoid changed in tensor mode just before a flushing seek or a state
     * change; the drain ends early when either comes). */
    if (GST_PAD_IS_FLUSHING (srcpad)) {
      gst_buffer_unref (buf);
      return GST_FLOW_FLUSHING;
    }
    g_atomic_pointer_set (&self->renegotiating, g_thread_self ());
  }
  ret = GST_BASE_TRANSFORM_CLASS (parent_class)
            ->submit_input_buffer (trans, is_discont, buf);
  if (renegotiate)
    post_held_warnings (self, &ret);
  buf = g_steal_pointer (&trans->queued_buf);
  if (ret != GST_FLOW_OK || buf == NULL) {
    gst_clear_buffer (&buf);
    return ret;
  }

  if (!gst_cuda_reduce_queue_has_room (&self->queue)) {
    ret = gst_cuda_reduce_queue_wait_for_room (&self->queue,
        gst_cuda_reduce_stream_would_join (
            &self->stream, gst_buffer_get_size (buf)));
    if (ret != GST_FLOW_OK) {
      gst_buffer_unref (buf);
      return ret;
    }
  }
  GstClockTime duration = GST_BUFFER_DURATION (buf);
  guint cost = 1;
  GstCudaReducePending *p;
  ret = gst_cuda_reduce_stream_submit (&self->stream, buf, &p, &cost);
  if (ret != GST_FLOW_OK)
    return ret;
  return gst_cuda_reduce_queue_push (&self->queue, p, cost, duration);
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
  gboolean ret;

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_FLUSH_START:
      gst_cuda_reduce_queue_flush_start (&self->queue);
      /* Downstream now refuses the task's pushes, so it stops soon. */
      ret = GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
      gst_pad_pause_task (GST_BASE_TRANSFORM_SRC_PAD (trans));
      return ret;
    case GST_EVENT_FLUSH_STOP:
      gst_cuda_reduce_batches_drop (&self->batches);
      gst_cuda_reduce_queue_flush_stop (&self->queue);
      gst_cuda_reduce_stream_reset (&self->stream);
      break;
    case GST_EVENT_EOS: {
      /* The interval under way ends with the stream. */
      guint cost = 1;
      GstCudaReducePending *p =
          gst_cuda_reduce_stream_submit_rest (&self->stream, &cost);
      if (p)
        gst_cuda_reduce_queue_push (&self->queue, p, cost, GST_CLOCK_TIME_NONE);
      gst_cuda_reduce_queue_drain (&self->queue);
      /* After gpu-timeout gave up: pushed from the source pad's task. */
      if (gst_cuda_reduce_queue_hand_off_eos (&self->queue, event))
        return TRUE;
      break;
    }
    default:
      /* Segments, caps, tags, gaps: after the buffers before them. */
      if (GST_EVENT_IS_SERIALIZED (event))
        gst_cuda_reduce_queue_drain (&self->queue);
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

  gst_cuda_reduce_queue_activate (&self->queue, active);
  return self->base_src_activate_mode (pad, parent, mode, active);
}

/* A state change to READY or NULL deactivates the source pad before the
 * sink pad. An event that comes between (upstream's new caps or segment)
 * cannot be stored on the flushing source pad, and the base class fails
 * it, which upstream would take for not-negotiated or an error and post;
 * refused as FLUSHING, as buffers then are, it ends upstream quietly. The
 * CPU suite's soak against the fake driver met this in about one run in
 * four. */
static GstFlowReturn
sink_pad_event (GstPad *pad, GstObject *parent, GstEvent *event)
{
  GstCudaReduce *self = GST_CUDA_REDUCE (parent);
  const GstEventType type = GST_EVENT_TYPE (event);

  if (self->base_sink_pad_event (pad, parent, event))
    return GST_FLOW_OK;
  if (GST_PAD_IS_FLUSHING (GST_BASE_TRANSFORM_SRC_PAD (self))
      || GST_PAD_IS_FLUSHING (pad))
    return GST_FLOW_FLUSHING;
  return type == GST_EVENT_CAPS ? GST_FLOW_NOT_NEGOTIATED : GST_FLOW_ERROR;
}

/* Either may be GST_CLOCK_TIME_NONE (no bound), which the sum is then. */
static GstClockTime
saturating_add (GstClockTime a, GstClockTime b)
{
  if (!GST_CLOCK_TIME_IS_VALID (a) || !GST_CLOCK_TIME_IS_VALID (b)
      || a > GST_CLOCK_TIME_NONE - 1 - b)
    return GST_CLOCK_TIME_NONE;
  return a + b;
}

static gboolean
gst_cuda_reduce_query (
    GstBaseTransform *trans, GstPadDirection direction, GstQuery *query)
{
  GstCudaReduce *self = GST_CUDA_REDUCE (trans);

  /* Peers share the CUDA context through this query. */
  if (gst_cuda_reduce_cuda_handle_query (
          &self->cuda, GST_ELEMENT (self), query))
    return TRUE;
  if (direction != GST_PAD_SRC || GST_QUERY_TYPE (query) != GST_QUERY_LATENCY)
    return GST_BASE_TRANSFORM_CLASS (parent_class)
        ->query (trans, direction, query);

  if (!gst_pad_peer_query (GST_BASE_TRANSFORM_SINK_PAD (trans), query))
    return FALSE;
  gboolean live;
  GstClockTime min, max;
  gst_query_parse_latency (query, &live, &min, &max);
  /* A buffer leaves as soon as the GPU has reduced it (micro- to
   * milliseconds), so the minimum is unchanged. Up to async-depth launches
   * can wait here when downstream is slow, each a batch of up to
   * CR_BATCH_MAX small buffers: that much more can be held. */
  GstClockTime held = gst_cuda_reduce_queue_held (&self->queue, CR_BATCH_MAX);
  /* Result tensors of an interval leave when it ends, stamped with its
   * start: that much later than their timestamps. */
  GST_OBJECT_LOCK (self);
  GstClockTime interval = self->props.output == GST_CUDA_REDUCE_OUTPUT_TENSOR
      ? self->props.interval
      : 0;
  GST_OBJECT_UNLOCK (self);
  /* The minimum must stay a time. */
  min = MIN (saturating_add (min, interval), GST_CLOCK_TIME_NONE - 1);
  if (GST_CLOCK_TIME_IS_VALID (max))
    max = saturating_add (max, saturating_add (held, interval));
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
  GstCaps *caps;
  CrInputFormat format;

  /* In passthrough this asks downstream first, for its metas and pools. */
  GST_BASE_TRANSFORM_CLASS (parent_class)
      ->propose_allocation (trans, decide_query, query);
  /* The element reduces whole frames, so a downstream that takes crop
   * metas must not lead upstream to crop by meta alone (videocrop would):
   * upstream then crops the frames themselves. */
  guint crop;
  while (gst_query_find_allocation_meta (
      query, GST_VIDEO_CROP_META_API_TYPE, &crop))
    gst_query_remove_nth_allocation_meta (query, crop);
  if (self->stream.allocator == NULL)
    return TRUE;
  gst_query_parse_allocation (query, &caps, NULL);
  /* Frames in CUDA memory come from upstream's own pool. */
  if (caps == NULL || !cr_input_format_from_caps (caps, &format)
      || format.cuda_memory)
    return TRUE;
  gst_cuda_reduce_memory_propose (query, self->stream.allocator,
      format.family == CR_INPUT_VIDEO, format.frame_bytes,
      gst_cuda_reduce_queue_get_depth (&self->queue) + 1);
  return TRUE;
}

static void
gst_cuda_reduce_set_context (GstElement *element, GstContext *gst_context)
{
  GstCudaReduce *self = GST_CUDA_REDUCE (element);

  GST_OBJECT_LOCK (self);
  gint device_id = self->props.device_id;
  GST_OBJECT_UNLOCK (self);
  gst_cuda_reduce_cuda_set_context (
      &self->cuda, element, gst_context, device_id);
  GST_ELEMENT_CLASS (parent_class)->set_context (element, gst_context);
}

/* Type */

static void
gst_cuda_reduce_finalize (GObject *object)
{
  GstCudaReduce *self = GST_CUDA_REDUCE (object);

  gst_cuda_reduce_props_clear (&self->props);
  gst_cuda_reduce_queue_clear (&self->queue);
  gst_cuda_reduce_stream_clear (&self->stream);
  gst_cuda_reduce_batches_clear (&self->batches);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_cuda_reduce_init (GstCudaReduce *self)
{
  GstPad *srcpad = GST_BASE_TRANSFORM_SRC_PAD (self);

  gst_cuda_reduce_props_init (&self->props);
  gst_cuda_reduce_batches_init (&self->batches, GST_ELEMENT (self));
  gst_cuda_reduce_stream_init (&self->stream, GST_ELEMENT (self), &self->props,
      &self->cuda, &self->batches, &self->queue);
  gst_cuda_reduce_queue_init (&self->queue, srcpad, &queue_funcs, self);
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), TRUE);

  self->base_src_activate_mode = GST_PAD_ACTIVATEMODEFUNC (srcpad);
  gst_pad_set_activatemode_function (srcpad, src_activate_mode);
  GstPad *sinkpad = GST_BASE_TRANSFORM_SINK_PAD (self);
  self->base_sink_pad_event = GST_PAD_EVENTFUNC (sinkpad);
  gst_pad_set_event_full_function (sinkpad, sink_pad_event);
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

  gst_cuda_reduce_props_install (gobject_class);
  gst_cuda_reduce_meta_register ();

  /* Hardware, as GStreamer's CUDA filters say: it needs an NVIDIA GPU. */
  gst_element_class_set_static_metadata (element_class, "CUDA reduce",
      "Filter/Analyzer/Audio/Video/Hardware",
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
  element_class->set_context = GST_DEBUG_FUNCPTR (gst_cuda_reduce_set_context);
  element_class->post_message =
      GST_DEBUG_FUNCPTR (gst_cuda_reduce_post_message);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_cuda_reduce_propose_allocation);
  trans_class->passthrough_on_same_caps = FALSE;
}
