/* gstcudareduce-stream.c: the streaming thread's part of a buffer's way,
 * and what the element runs with between start and stop. */
#include "gstcudareduce-stream.h"

#include "gstcudareduce-error.h"
#include "gstcudareduce-memory.h"
#include "gstcudareduce-regions.h"

#include <gst/base/gstbasetransform.h>

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_reduce_debug);
#define GST_CAT_DEFAULT gst_cuda_reduce_debug

static void
setup_clear (GstCudaReduceSetup *setup)
{
  g_clear_pointer (&setup->rects, g_array_unref);
  g_clear_pointer (&setup->roi_types, g_array_unref);
  setup->regions = FALSE;
}

void
gst_cuda_reduce_stream_init (GstCudaReduceStream *s, GstElement *element,
    GstCudaReduceProps *props, GstCudaReduceCuda *cuda,
    GstCudaReduceBatches *batches, GstCudaReduceQueue *queue)
{
  s->element = element;
  s->props = props;
  s->cuda = cuda;
  s->batches = batches;
  s->queue = queue;
  s->slices = g_array_new (FALSE, TRUE, sizeof (GstCudaReduceSlice));
  gst_cuda_reduce_pending_pool_init (&s->pendings);
}

void
gst_cuda_reduce_stream_clear (GstCudaReduceStream *s)
{
  setup_clear (&s->setup);
  gst_clear_caps (&s->caps.refused);
  g_array_unref (s->slices);
  gst_cuda_reduce_pending_pool_clear (&s->pendings);
  gst_cuda_reduce_settings_clear (&s->settings);
}

gboolean
gst_cuda_reduce_stream_start (
    GstCudaReduceStream *s, const GstCudaReduceSetup *setup)
{
  g_autoptr (GError) error = NULL;

  setup_clear (&s->setup);
  s->setup = *setup;
  gst_cuda_reduce_window_init (&s->window, setup->interval, setup->window_hops);
  /* A context of our own; frames in CUDA memory move the element to the
   * pipeline's when their caps come (use_pipeline_cuda_context). */
  s->device = cr_device_open (setup->device_id, &error);
  if (s->device == NULL) {
    gst_cuda_reduce_post_error (s->element, error, NULL);
    return FALSE;
  }
  cr_device_set_wait_timeout (
      s->device, GST_TIME_AS_USECONDS (setup->gpu_timeout));
  GST_INFO_OBJECT (s->element, "using GPU %d: %s (sm_%d)",
      cr_device_ordinal (s->device), cr_device_name (s->device),
      cr_device_arch (s->device));
  gst_cuda_reduce_programs_init (&s->programs, s->device);
  s->allocator = gst_cuda_reduce_host_allocator_new (s->device);
  return TRUE;
}

void
gst_cuda_reduce_stream_stop (GstCudaReduceStream *s, gboolean abandoned)
{
  s->caps.known = FALSE;
  gst_clear_caps (&s->caps.refused);
  setup_clear (&s->setup);
  if (abandoned)
    return;
  gst_cuda_reduce_window_reset (&s->window);
  g_clear_pointer (&s->caps.plan, gst_cuda_reduce_plan_unref);
  gst_cuda_reduce_programs_clear (&s->programs);
  g_clear_pointer (&s->device, cr_device_unref);
  gst_cuda_reduce_cuda_close (s->cuda);
  /* Memory upstream still holds keeps the allocator, and so the context,
   * alive. */
  gst_clear_object (&s->allocator);
  gst_cuda_reduce_settings_clear (&s->settings);
}

void
gst_cuda_reduce_stream_reset (GstCudaReduceStream *s)
{
  gst_cuda_reduce_window_reset (&s->window);
}

/* The batches failed: further buffers are refused before anyone sees
 * why. */
static void
batches_failed (GstCudaReduceStream *s, const GError *error)
{
  gst_cuda_reduce_queue_fail (s->queue);
  gst_cuda_reduce_post_error (s->element, error, NULL);
}

/* The CUDA context: frames in CUDA memory can be read only in the context
 * that holds them. */

/* Moves the element to the CUDA context @shared (a CUcontext) that
 * @owner (a GstCudaContext, taken) keeps: what runs on the old device
 * finishes there first, and the programs load again (from the cache) when
 * the next buffer follows the monoid. */
static gboolean
move_to_cuda_context (GstCudaReduceStream *s, gpointer shared, GstObject *owner)
{
  g_autoptr (GError) error = NULL;

  if (shared == cr_device_context (s->device)) {
    gst_object_unref (owner);
    return TRUE;
  }
  CrDevice *device = cr_device_open_shared (
      shared, gst_object_unref, gst_object_ref (owner), &error);
  if (device == NULL) {
    gst_object_unref (owner);
    gst_cuda_reduce_post_error (s->element, error, NULL);
    return FALSE;
  }
  if (!gst_cuda_reduce_batches_launch (s->batches, &error))
    batches_failed (s, error);
  gst_cuda_reduce_queue_drain (s->queue);
  if (gst_cuda_reduce_queue_abandoned (s->queue)) {
    /* The old context's GPU work never finished (the error is posted):
     * freeing what it holds would wait for it. */
    cr_device_unref (device);
    gst_object_unref (owner);
    return FALSE;
  }
  gst_cuda_reduce_window_reset (&s->window);
  gst_cuda_reduce_programs_clear (&s->programs);
  cr_device_unref (s->device);
  s->device = device;
  cr_device_set_wait_timeout (
      s->device, GST_TIME_AS_USECONDS (s->setup.gpu_timeout));
  gst_cuda_reduce_programs_init (&s->programs, s->device);
  gst_object_replace (&s->cuda->context, owner);
  gst_object_unref (owner);
  GST_INFO_OBJECT (s->element,
      "now in CUDA context %" GST_PTR_FORMAT " on GPU %d", s->cuda->context,
      cr_device_ordinal (s->device));
  if (s->setup.device_id >= 0
      && s->setup.device_id != cr_device_ordinal (s->device))
    GST_WARNING_OBJECT (s->element,
        "cuda-device-id=%d, but the frames are on GPU %d: reducing there",
        s->setup.device_id, cr_device_ordinal (s->device));
  return TRUE;
}

/* The context the pipeline shares, which upstream made or took by the
 * time its caps reach us: the element moves there from its own. */
static gboolean
use_pipeline_cuda_context (GstCudaReduceStream *s)
{
  gpointer shared =
      gst_cuda_reduce_cuda_open (s->cuda, s->element, s->setup.device_id);

  if (shared == NULL) {
    GST_ELEMENT_ERROR (s->element, RESOURCE, NOT_FOUND,
        ("No CUDA context for frames in CUDA memory"),
        ("GStreamer's CUDA library found none and could make none"));
    return FALSE;
  }
  return move_to_cuda_context (s, shared, gst_object_ref (s->cuda->context));
}

/* And where a frame's memory is in another context all the same (an
 * upstream element that made its own), the element follows the frames. */
static gboolean
follow_frames_cuda_context (GstCudaReduceStream *s, GstBuffer *buf)
{
  GstObject *owner = NULL;
  gpointer shared = gst_cuda_reduce_cuda_memory_context (buf, &owner);

  /* Not CUDA memory: mapping it says so. */
  if (shared == NULL)
    return TRUE;
  return move_to_cuda_context (s, shared, owner);
}

/* Caps */

/* The plan for the caps' format and @monoid; with regions, its programs
 * also have the regions' kernel. */
static GstCudaReducePlan *
new_plan (GstCudaReduceStream *s, const CrMonoid *monoid, GError **error)
{
  if (s->setup.regions
      && !gst_cuda_reduce_regions_check_input (
          s->caps.format.family == CR_INPUT_VIDEO, error))
    return NULL;
  GstCudaReducePlan *plan = gst_cuda_reduce_plan_new (&s->caps.format,
      s->setup.per_channel, s->setup.component, monoid->pair, error);
  if (plan && s->setup.regions)
    plan->kernels |= CR_KERNELS_REGIONS;
  return plan;
}

static gboolean
set_caps (GstCudaReduceStream *s, GstCaps *incaps)
{
  g_autoptr (GError) error = NULL;

  s->caps.known = FALSE;
  s->caps.crop_warned = FALSE;
  if (!cr_input_format_parse (incaps, &s->caps.format, &error)) {
    gst_cuda_reduce_post_error (s->element, error, NULL);
    return FALSE;
  }
  if (s->caps.format.cuda_memory && !use_pipeline_cuda_context (s))
    return FALSE;
  /* An interval does not span a change of format. */
  gst_cuda_reduce_window_reset (&s->window);
  if (!gst_cuda_reduce_props_read (
          GST_OBJECT (s->element), s->props, &s->settings, &error)) {
    gst_cuda_reduce_post_error (s->element, error, NULL);
    return FALSE;
  }
  g_clear_pointer (&s->caps.plan, gst_cuda_reduce_plan_unref);
  s->caps.plan = new_plan (s, s->settings.monoid, &error);
  if (s->caps.plan == NULL) {
    gst_cuda_reduce_post_error (s->element, error, NULL);
    return FALSE;
  }
  s->caps.known = TRUE;
  /* Compile now, never per buffer. */
  if (!gst_cuda_reduce_programs_use (&s->programs, s->element,
          s->settings.monoid, s->caps.format.type, s->caps.plan,
          s->setup.window_hops))
    return FALSE;
  s->caps.tensors = s->programs.active->program->out.n_fields;
  return TRUE;
}

gboolean
gst_cuda_reduce_stream_set_caps (GstCudaReduceStream *s, GstCaps *incaps)
{
  /* The base class offers refused caps again with the next buffer: the
   * error they got once is enough. */
  if (s->caps.refused && gst_caps_is_equal (incaps, s->caps.refused)) {
    GST_DEBUG_OBJECT (
        s->element, "caps refused before: %" GST_PTR_FORMAT, incaps);
    return FALSE;
  }
  const gboolean ok = set_caps (s, incaps);
  gst_caps_replace (&s->caps.refused, ok ? NULL : incaps);
  return ok;
}

/* Buffers */

gboolean
gst_cuda_reduce_stream_would_join (GstCudaReduceStream *s, gsize size)
{
  return s->programs.active
      && gst_cuda_reduce_batches_would_join (
          s->batches, gst_cuda_reduce_programs_reducer (&s->programs, 0), size);
}

/* Before each buffer: follow a change of the monoid's properties. */
static gboolean
follow_monoid (GstCudaReduceStream *s)
{
  g_autoptr (GError) error = NULL;
  CrMonoid *monoid = s->settings.monoid;

  if (monoid == s->programs.active_monoid)
    return TRUE;
  if (!gst_cuda_reduce_props_output_fits (
          s->settings.delivery.tensors, monoid, &error)) {
    gst_cuda_reduce_post_error (s->element, error, NULL);
    return FALSE;
  }
  if (!gst_cuda_reduce_batches_launch (s->batches, &error)) {
    batches_failed (s, error);
    return FALSE;
  }
  /* Counting pairs, or other pairs, reads other planes. */
  if (!gst_cuda_reduce_plan_has_pair (s->caps.plan, monoid->pair)) {
    GstCudaReducePlan *plan = new_plan (s, monoid, &error);
    if (plan == NULL) {
      gst_cuda_reduce_post_error (s->element, error, NULL);
      return FALSE;
    }
    gst_cuda_reduce_plan_unref (s->caps.plan);
    s->caps.plan = plan;
  }
  return gst_cuda_reduce_programs_use (&s->programs, s->element, monoid,
      s->caps.format.type, s->caps.plan, s->setup.window_hops);
}

/* The context for the next launch, packed again only after a change. */
static const guint8 *
monoid_context_bytes (GstCudaReduceStream *s)
{
  g_autoptr (GError) error = NULL;
  const guint8 *bytes = gst_cuda_reduce_programs_monoid_context (&s->programs,
      s->settings.context_serial, s->settings.threshold, s->settings.context,
      &error);

  if (bytes == NULL)
    gst_cuda_reduce_post_error (s->element, error, NULL);
  return bytes;
}

static GstClockTime
buffer_duration (const CrInputFormat *f, GstBuffer *buf, gsize bytes)
{
  if (GST_BUFFER_DURATION_IS_VALID (buf))
    return GST_BUFFER_DURATION (buf);
  if (f->family == CR_INPUT_AUDIO && f->rate > 0)
    return gst_util_uint64_scale_int (
        bytes / cr_type_size (f->type) / f->channels, GST_SECOND, f->rate);
  if (f->family == CR_INPUT_VIDEO && GST_VIDEO_INFO_FPS_N (&f->video) > 0)
    return gst_util_uint64_scale_int (GST_SECOND,
        GST_VIDEO_INFO_FPS_D (&f->video), GST_VIDEO_INFO_FPS_N (&f->video));
  return GST_CLOCK_TIME_NONE;
}

/* A pending buffer for the active program. Takes @buf (may be NULL). */
static GstCudaReducePending *
pending_new (GstCudaReduceStream *s, GstBuffer *buf)
{
  const GstCudaReduceProgram *active = s->programs.active;
  return gst_cuda_reduce_pending_new (&s->pendings, buf, active->program,
      active->field_quarks, s->programs.active_monoid, s->caps.plan,
      s->window.length > 0, &s->settings.delivery);
}

static const GstSegment *
segment_of (GstCudaReduceStream *s)
{
  return &GST_BASE_TRANSFORM (s->element)->segment;
}

/* The buffer's slices (one, or where intervals end), submitted. Takes
 * @p. */
static GstCudaReducePending *
submit_mapped (GstCudaReduceStream *s, GstCudaReducePending *p, GstBuffer *buf,
    const CrRegion *regions, const guint8 *ctx, guint *cost)
{
  g_autoptr (GError) error = NULL;
  const CrInputFormat *f = &s->caps.format;
  const gsize elem = cr_type_size (f->type);
  /* Video windows count frames; the plan knows each part's rows. */
  const gboolean frames = s->caps.plan->counts_frames;
  GstCudaReduceInput input = {
    .bytes = frames ? 1 : regions[0].row_bytes * regions[0].n_rows,
    .row_bytes = frames ? 1 : elem * s->caps.plan->parts[0].channels,
    .frame_bytes = f->family == CR_INPUT_AUDIO ? elem * f->channels : 0,
    .rate = f->rate,
    .pts = GST_BUFFER_PTS (buf),
    .discont = GST_BUFFER_IS_DISCONT (buf),
    .owner = s->programs.active,
  };
  input.duration = buffer_duration (f, buf, input.bytes);
  if (s->window.length > 0 && input.frame_bytes > 0
      && input.bytes % input.frame_bytes != 0) {
    GST_ELEMENT_ERROR (s->element, STREAM, FORMAT,
        ("The buffer is %" G_GSIZE_FORMAT " bytes, not a whole number of "
         "audio frames (%" G_GSIZE_FORMAT " bytes each)",
            input.bytes, input.frame_bytes),
        (NULL));
    gst_cuda_reduce_window_reset (&s->window);
    gst_cuda_reduce_pending_free (p);
    return NULL;
  }
  g_array_set_size (s->slices, 0);
  gst_cuda_reduce_window_cut (&s->window, &input, s->slices);
  if (!gst_cuda_reduce_batches_submit (s->batches,
          gst_cuda_reduce_programs_reducers (&s->programs), p, regions,
          s->slices, ctx, segment_of (s), cost, &error)) {
    batches_failed (s, error);
    gst_cuda_reduce_window_reset (&s->window);
    gst_cuda_reduce_pending_free (p);
    return NULL;
  }
  return p;
}

/* The regions of @p's frame (none: of the interval under way at EOS):
 * the property's and its ROI metas'. */
static gboolean
collect_regions (GstCudaReduceStream *s, GstCudaReducePending *p)
{
  g_autoptr (GError) error = NULL;
  const GstVideoInfo *info = &s->caps.format.video;

  p->regions = g_array_new (FALSE, FALSE, sizeof (GstCudaReduceRegion));
  p->region_info = *info;
  if (gst_cuda_reduce_regions_collect (p->buffer, s->setup.rects,
          p->buffer ? s->setup.roi_types : NULL, GST_VIDEO_INFO_WIDTH (info),
          GST_VIDEO_INFO_HEIGHT (info), p->regions, &error))
    return TRUE;
  gst_cuda_reduce_post_error (s->element, error, NULL);
  return FALSE;
}

/* The element tells upstream that it takes no GstVideoCropMeta, so that
 * upstream crops the frames itself; one that sends the meta regardless
 * gets its whole frames reduced, and the user is told once a stream. */
static void
warn_of_crop (GstCudaReduceStream *s, GstBuffer *buf)
{
  const GstVideoCropMeta *crop = gst_buffer_get_video_crop_meta (buf);
  if (crop == NULL || s->caps.crop_warned)
    return;
  s->caps.crop_warned = TRUE;
  GST_ELEMENT_WARNING (s->element, STREAM, FORMAT,
      ("Frames carry a crop (GstVideoCropMeta), which cudareduce does not "
       "apply: its results are over the whole %dx%d frame",
          GST_VIDEO_INFO_WIDTH (&s->caps.format.video),
          GST_VIDEO_INFO_HEIGHT (&s->caps.format.video)),
      ("the crop is %ux%u at %u,%u; crop the frames upstream (videocrop "
       "does when downstream does not take the meta), or reduce the "
       "cropped part with the regions property",
          crop->width, crop->height, crop->x, crop->y));
}

GstFlowReturn
gst_cuda_reduce_stream_submit (GstCudaReduceStream *s, GstBuffer *buf,
    GstCudaReducePending **pending, guint *cost)
{
  g_autoptr (GError) error = NULL;
  const guint8 *ctx;
  CrRegion regions[GST_VIDEO_MAX_PLANES];

  *pending = NULL;
  if (!gst_cuda_reduce_props_read (
          GST_OBJECT (s->element), s->props, &s->settings, &error)) {
    gst_cuda_reduce_post_error (s->element, error, NULL);
    gst_buffer_unref (buf);
    return GST_FLOW_ERROR;
  }
  if (s->programs.active && s->settings.delivery.tensors
      && s->programs.active->program->out.n_fields != s->caps.tensors) {
    GST_ELEMENT_ERROR (s->element, CORE, NEGOTIATION,
        ("The monoid's output fields changed; the stream must renegotiate"),
        ("%u tensors negotiated, %u now", s->caps.tensors,
            s->programs.active->program->out.n_fields));
    gst_buffer_unref (buf);
    return GST_FLOW_NOT_NEGOTIATED;
  }
  if (!s->caps.known
      || (s->caps.format.cuda_memory && !follow_frames_cuda_context (s, buf))
      || !follow_monoid (s) || (ctx = monoid_context_bytes (s)) == NULL) {
    gst_buffer_unref (buf);
    return GST_FLOW_ERROR;
  }
  if (s->caps.format.family == CR_INPUT_VIDEO)
    warn_of_crop (s, buf);
  GstCudaReducePending *p = pending_new (s, buf);
  if (!gst_cuda_reduce_pending_map (
          p, s->element, &s->caps.format, s->device, regions)
      || (s->setup.regions && !collect_regions (s, p))) {
    gst_cuda_reduce_pending_free (p);
    return GST_FLOW_ERROR;
  }
  *pending = submit_mapped (s, p, buf, regions, ctx, cost);
  return *pending ? GST_FLOW_OK : GST_FLOW_ERROR;
}

GstCudaReducePending *
gst_cuda_reduce_stream_submit_rest (GstCudaReduceStream *s, guint *cost)
{
  g_autoptr (GError) error = NULL;
  const CrInputFormat *f = &s->caps.format;
  GstCudaReduceSlice slice;

  if (s->programs.active == NULL
      || !gst_cuda_reduce_window_close (&s->window, s->programs.active,
          f->family == CR_INPUT_AUDIO ? f->rate : 0, &slice))
    return NULL;
  GstCudaReducePending *p = pending_new (s, NULL);
  if (s->setup.regions && !collect_regions (s, p)) {
    gst_cuda_reduce_pending_free (p);
    return NULL;
  }
  g_array_set_size (s->slices, 0);
  g_array_append_val (s->slices, slice);
  if (!gst_cuda_reduce_batches_submit (s->batches,
          gst_cuda_reduce_programs_reducers (&s->programs), p, NULL, s->slices,
          s->programs.monoid_context.bytes, segment_of (s), cost, &error)) {
    batches_failed (s, error);
    gst_cuda_reduce_pending_free (p);
    return NULL;
  }
  return p;
}
