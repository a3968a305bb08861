/* gstcudareduce-pending.c: mapping a buffer for the GPU, and its results
 * as element messages and as tensors. */
#include "gstcudareduce-pending.h"

#include "gstcudareduce-error.h"
#include "gstcudareduce-memory.h"

#include <string.h>

GstCudaReducePending *
gst_cuda_reduce_pending_new (GstBuffer *buffer, const CrProgram *program,
    const GQuark *field_quarks, CrMonoid *monoid, guint channels,
    guint components, gboolean per_channel, gboolean spans_buffers)
{
  GstCudaReducePending *p = g_new0 (GstCudaReducePending, 1);
  p->buffer = buffer;
  p->reductions = g_array_new (FALSE, TRUE, sizeof (GstCudaReduceReduction));
  p->program = program;
  p->field_quarks = field_quarks;
  p->monoid = cr_monoid_ref (monoid);
  p->channels = channels;
  p->components = components;
  p->per_channel = per_channel;
  p->spans_buffers = spans_buffers;
  return p;
}

void
gst_cuda_reduce_pending_free (GstCudaReducePending *p)
{
  for (guint k = 0; k < p->reductions->len; k++) {
    CrJob *job = g_array_index (p->reductions, GstCudaReduceReduction, k).job;
    if (job == NULL)
      continue;
    /* The GPU may still read the buffer's memory. */
    cr_job_wait (job, NULL);
    cr_job_unref (job);
  }
  g_array_unref (p->reductions);
  g_clear_pointer (&p->tensors, g_ptr_array_unref);
  if (p->is_frame)
    gst_video_frame_unmap (&p->frame);
  else if (p->map.memory)
    gst_buffer_unmap (p->buffer, &p->map);
  gst_clear_buffer (&p->buffer);
  g_clear_pointer (&p->monoid, cr_monoid_unref);
  g_free (p);
}

gboolean
gst_cuda_reduce_pending_map (GstCudaReducePending *p, GstElement *element,
    const CrInputFormat *format, CrDevice *device, CrHostRegion *region)
{
  GstBuffer *buf = p->buffer;
  const guint8 *map_data;
  GstMemory *mem = NULL;

  memset (region, 0, sizeof *region);
  if (format->family == CR_INPUT_VIDEO) {
    if (!gst_video_frame_map (&p->frame, &format->video, buf, GST_MAP_READ)) {
      GST_ELEMENT_ERROR (element, STREAM, FORMAT, ("Cannot map a video frame"),
          ("the buffer of %" G_GSIZE_FORMAT
           " bytes is too small for %" GST_PTR_FORMAT,
              gst_buffer_get_size (buf), buf));
      return FALSE;
    }
    p->is_frame = TRUE;
    region->data = GST_VIDEO_FRAME_PLANE_DATA (&p->frame, 0);
    region->row_bytes = GST_VIDEO_FRAME_WIDTH (&p->frame)
        * GST_VIDEO_FRAME_COMP_PSTRIDE (&p->frame, 0);
    region->n_rows = GST_VIDEO_FRAME_HEIGHT (&p->frame);
    region->stride = GST_VIDEO_FRAME_PLANE_STRIDE (&p->frame, 0);
    map_data = p->frame.map[0].data;
  } else {
    if (!gst_buffer_map (buf, &p->map, GST_MAP_READ)) {
      GST_ELEMENT_ERROR (
          element, STREAM, FAILED, ("Cannot map the input buffer"), (NULL));
      return FALSE;
    }
    region->data = p->map.data;
    region->row_bytes = p->map.size;
    region->n_rows = 1;
    region->stride = p->map.size;
    map_data = p->map.data;
  }
  /* A buffer of several memories maps as a merged copy, which is copied
   * again; one memory may be read in place. */
  if (gst_buffer_n_memory (buf) == 1)
    mem = gst_buffer_peek_memory (buf, 0);
  if (mem && (region->n_rows <= 1 || region->stride == region->row_bytes))
    region->device = gst_cuda_reduce_memory_device_address (mem, map_data,
        region->data, region->row_bytes * region->n_rows, device);
  return TRUE;
}

/* @result: one value per channel of the reduction. */
static void
set_field (GstStructure *s, const GstCudaReducePending *p, guint f,
    const guint8 *result)
{
  const CrLayout *out = &p->program->out;
  GValue value = G_VALUE_INIT;

  if (!p->per_channel) {
    cr_type_to_gvalue (out->types[f], result + out->offsets[f], &value);
    gst_structure_id_take_value (s, p->field_quarks[f], &value);
    return;
  }
  g_value_init (&value, GST_TYPE_ARRAY);
  for (guint c = 0; c < p->components; c++) {
    GValue item = G_VALUE_INIT;
    cr_type_to_gvalue (
        out->types[f], result + c * out->size + out->offsets[f], &item);
    gst_value_array_append_and_take_value (&value, &item);
  }
  gst_structure_id_take_value (s, p->field_quarks[f], &value);
}

/* The message's own fields, as quarks: looking names up takes a global
 * lock, once per field of every message. */
static struct {
  GQuark name, timestamp, stream_time, running_time, duration, monoid, count,
      channels;
} q;

static void
init_quarks (void)
{
  static gsize done = 0;
  if (g_once_init_enter (&done)) {
    q.name = g_quark_from_static_string ("cudareduce");
    q.timestamp = g_quark_from_static_string ("timestamp");
    q.stream_time = g_quark_from_static_string ("stream-time");
    q.running_time = g_quark_from_static_string ("running-time");
    q.duration = g_quark_from_static_string ("duration");
    q.monoid = g_quark_from_static_string ("monoid");
    q.count = g_quark_from_static_string ("count");
    q.channels = g_quark_from_static_string ("channels");
    g_once_init_leave (&done, 1);
  }
}

static void
post_result (GstElement *element, const GstCudaReducePending *p,
    const GstCudaReduceReduction *r, const guint8 *result, guint64 count)
{
  const CrLayout *out = &p->program->out;

  init_quarks ();
  GstStructure *s = gst_structure_new_id (q.name, q.timestamp, G_TYPE_UINT64,
      r->timestamp, q.stream_time, G_TYPE_UINT64, r->stream_time,
      q.running_time, G_TYPE_UINT64, r->running_time, q.duration, G_TYPE_UINT64,
      r->duration, q.monoid, G_TYPE_STRING, p->monoid->name, q.count,
      G_TYPE_UINT64, count, NULL);
  if (p->per_channel)
    gst_structure_id_set (s, q.channels, G_TYPE_UINT, p->components, NULL);
  for (guint f = 0; f < out->n_fields; f++)
    set_field (s, p, f, result);
  gst_element_post_message (
      element, gst_message_new_element (GST_OBJECT (element), s));
}

/* One memory per tensor, as NNStreamer expects of other/tensors: field f's
 * value for each reported channel. */
static GstBuffer *
tensor_buffer (const GstCudaReducePending *p, const GstCudaReduceReduction *r,
    const guint8 *result)
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
  if (p->buffer && !p->spans_buffers)
    gst_buffer_copy_into (buf, p->buffer,
        GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS, 0, -1);
  GST_BUFFER_PTS (buf) = r->timestamp;
  GST_BUFFER_DURATION (buf) = r->duration;
  return buf;
}

GstFlowReturn
gst_cuda_reduce_pending_complete (
    GstCudaReducePending *p, const GstCudaReduceOutputs *outputs)
{
  g_autofree guint8 *result =
      g_malloc0 (MAX (p->program->out.size * p->channels, 1));

  for (guint k = 0; k < p->reductions->len; k++) {
    GstCudaReduceReduction *r =
        &g_array_index (p->reductions, GstCudaReduceReduction, k);
    g_autoptr (GError) error = NULL;
    guint64 count = 0;
    /* A batch that failed to launch has posted its error already. */
    if (r->job == NULL)
      return GST_FLOW_ERROR;
    if (!cr_job_wait (r->job, &error)) {
      /* Refuse further buffers before anyone can see the error. */
      gst_cuda_reduce_queue_fail (outputs->queue);
      gst_cuda_reduce_post_error (outputs->element, error, NULL);
      return GST_FLOW_ERROR;
    }
    if (!r->emit)
      continue;
    cr_job_read (r->job, r->result, result, &count);
    /* Per channel, the count is over the reported channels (RGBx's x is
     * reduced, not reported). */
    if (p->per_channel)
      count = count / p->channels * p->components;
    if (outputs->post_messages)
      post_result (outputs->element, p, r, result, count);
    if (outputs->tensors) {
      if (p->tensors == NULL)
        p->tensors =
            g_ptr_array_new_with_free_func ((GDestroyNotify)gst_buffer_unref);
      g_ptr_array_add (p->tensors, tensor_buffer (p, r, result));
    }
  }
  return GST_FLOW_OK;
}

GstFlowReturn
gst_cuda_reduce_pending_push (GstCudaReducePending *p, GstFlowReturn completed,
    const GstCudaReduceOutputs *outputs)
{
  GstFlowReturn ret = completed;

  if (outputs->tensors) {
    while (p->tensors && p->tensors->len > 0 && ret == GST_FLOW_OK)
      ret = gst_pad_push (
          outputs->srcpad, g_ptr_array_steal_index (p->tensors, 0));
    gst_cuda_reduce_pending_free (p);
    return ret;
  }
  GstBuffer *out =
      p->buffer && ret == GST_FLOW_OK ? gst_buffer_ref (p->buffer) : NULL;
  gst_cuda_reduce_pending_free (p);
  if (out)
    ret = gst_pad_push (outputs->srcpad, out);
  return ret;
}
