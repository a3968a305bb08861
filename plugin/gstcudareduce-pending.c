/* gstcudareduce-pending.c: mapping a buffer for the GPU, and its results
 * as element messages and as tensors. */
#include "gstcudareduce-pending.h"

#include "cr-job.h"
#include "gstcudareduce-cuda.h"
#include "gstcudareduce-error.h"
#include "gstcudareduce-memory.h"
#include "gstcudareduce-regions.h"

#include <string.h>

/* Enough for every buffer in flight in a stream of small ones (each
 * launch gathers up to 64, async-depth of them), not for a burst of
 * EOS-time partial intervals. */
#define POOL_KEPT_MAX 512

void
gst_cuda_reduce_pending_pool_init (GstCudaReducePendingPool *pool)
{
  g_mutex_init (&pool->lock);
  pool->kept = g_ptr_array_new ();
}

static void
pending_release (GstCudaReducePending *p)
{
  g_array_unref (p->reductions);
  g_free (p);
}

void
gst_cuda_reduce_pending_pool_clear (GstCudaReducePendingPool *pool)
{
  for (guint k = 0; k < pool->kept->len; k++)
    pending_release (g_ptr_array_index (pool->kept, k));
  g_ptr_array_unref (pool->kept);
  g_mutex_clear (&pool->lock);
}

GstCudaReducePending *
gst_cuda_reduce_pending_new (GstCudaReducePendingPool *pool, GstBuffer *buffer,
    const CrProgram *program, const GQuark *field_quarks, CrMonoid *monoid,
    GstCudaReducePlan *plan, gboolean spans_buffers,
    const GstCudaReduceDelivery *delivery)
{
  GstCudaReducePending *p = NULL;

  g_mutex_lock (&pool->lock);
  if (pool->kept->len > 0)
    p = g_ptr_array_steal_index_fast (pool->kept, pool->kept->len - 1);
  g_mutex_unlock (&pool->lock);
  if (p == NULL) {
    p = g_new0 (GstCudaReducePending, 1);
    p->reductions = g_array_new (FALSE, TRUE, sizeof (GstCudaReduceReduction));
  }
  p->pool = pool;
  p->buffer = buffer;
  p->program = program;
  p->field_quarks = field_quarks;
  p->monoid = cr_monoid_ref (monoid);
  p->plan = gst_cuda_reduce_plan_ref (plan);
  p->spans_buffers = spans_buffers;
  p->delivery = *delivery;
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
  g_clear_pointer (&p->tensors, g_ptr_array_unref);
  g_clear_pointer (&p->metas, g_ptr_array_unref);
  g_clear_pointer (&p->regions, g_array_unref);
  g_clear_pointer (&p->roi_params, g_ptr_array_unref);
  if (p->is_frame)
    gst_video_frame_unmap (&p->frame);
  else if (p->map.memory)
    gst_buffer_unmap (p->buffer, &p->map);
  gst_clear_buffer (&p->buffer);
  g_clear_pointer (&p->monoid, cr_monoid_unref);
  g_clear_pointer (&p->plan, gst_cuda_reduce_plan_unref);

  /* Cleared for the next: everything but its array, emptied. */
  GstCudaReducePendingPool *pool = p->pool;
  GArray *reductions = p->reductions;
  g_array_set_size (reductions, 0);
  memset (p, 0, sizeof *p);
  p->reductions = reductions;
  g_mutex_lock (&pool->lock);
  const gboolean keep = pool->kept->len < POOL_KEPT_MAX;
  if (keep)
    g_ptr_array_add (pool->kept, p);
  g_mutex_unlock (&pool->lock);
  if (!keep)
    pending_release (p);
}

/* Sets region->device where @device reads @region, within the memory
 * that @map_data maps, in place. */
static void
find_device_address (
    GstBuffer *buf, const guint8 *map_data, CrDevice *device, CrRegion *region)
{
  /* A buffer of several memories maps as a merged copy, which is copied
   * again; one memory may be read in place. */
  if (gst_buffer_n_memory (buf) != 1
      || (region->n_rows > 1 && region->stride != region->row_bytes))
    return;
  region->device =
      gst_cuda_reduce_memory_device_address (gst_buffer_peek_memory (buf, 0),
          map_data, region->data, region->row_bytes * region->n_rows, device);
}

/* The plane @plane of a mapped frame, as a region. */
static void
plane_region (const GstVideoFrame *frame, guint plane, CrRegion *region)
{
  gint comp[GST_VIDEO_MAX_COMPONENTS];
  gst_video_format_info_component (frame->info.finfo, plane, comp);
  region->data = GST_VIDEO_FRAME_PLANE_DATA (frame, plane);
  region->row_bytes = GST_VIDEO_FRAME_COMP_WIDTH (frame, comp[0])
      * GST_VIDEO_FRAME_COMP_PSTRIDE (frame, comp[0]);
  region->n_rows = GST_VIDEO_FRAME_COMP_HEIGHT (frame, comp[0]);
  region->stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, plane);
}

/* A frame in GPU memory: every plane read where it is (rows with padding
 * packed on the GPU first). */
static gboolean
map_cuda_frame (GstCudaReducePending *p, GstElement *element,
    const CrInputFormat *format, CrDevice *device, CrRegion *regions)
{
  g_autoptr (GError) error = NULL;

  if (!gst_cuda_reduce_cuda_map_frame (&p->frame, &format->video, p->buffer,
          cr_device_context (device), cr_device_ordinal (device), &error)) {
    gst_cuda_reduce_post_error (element, error, NULL);
    return FALSE;
  }
  p->is_frame = TRUE;
  for (guint k = 0; k < gst_cuda_reduce_plan_n_regions (p->plan); k++) {
    plane_region (
        &p->frame, gst_cuda_reduce_plan_region_plane (p->plan, k), &regions[k]);
    regions[k].device = (CUdeviceptr)(guintptr)regions[k].data;
    regions[k].data = NULL;
  }
  return TRUE;
}

gboolean
gst_cuda_reduce_pending_map (GstCudaReducePending *p, GstElement *element,
    const CrInputFormat *format, CrDevice *device, CrRegion *regions)
{
  GstBuffer *buf = p->buffer;
  const GstCudaReducePlan *plan = p->plan;

  memset (regions, 0, gst_cuda_reduce_plan_n_regions (plan) * sizeof *regions);
  if (format->family != CR_INPUT_VIDEO) {
    if (!gst_buffer_map (buf, &p->map, GST_MAP_READ)) {
      GST_ELEMENT_ERROR (
          element, STREAM, FAILED, ("Cannot map the input buffer"), (NULL));
      return FALSE;
    }
    regions[0].data = p->map.data;
    regions[0].row_bytes = p->map.size;
    regions[0].n_rows = 1;
    regions[0].stride = p->map.size;
    find_device_address (buf, p->map.data, device, &regions[0]);
    /* A pair's second component is in the same rows. */
    if (plan->pair.names)
      regions[1] = regions[0];
    return TRUE;
  }
  if (format->cuda_memory)
    return map_cuda_frame (p, element, format, device, regions);
  if (!gst_video_frame_map (&p->frame, &format->video, buf, GST_MAP_READ)) {
    GST_ELEMENT_ERROR (element, STREAM, FORMAT, ("Cannot map a video frame"),
        ("the buffer of %" G_GSIZE_FORMAT
         " bytes is too small for %" GST_PTR_FORMAT,
            gst_buffer_get_size (buf), buf));
    return FALSE;
  }
  p->is_frame = TRUE;
  for (guint k = 0; k < gst_cuda_reduce_plan_n_regions (plan); k++) {
    plane_region (
        &p->frame, gst_cuda_reduce_plan_region_plane (plan, k), &regions[k]);
    find_device_address (buf, p->frame.map[0].data, device, &regions[k]);
  }
  return TRUE;
}

/* A result's reported values: program->out.size bytes each, and the
 * elements each covers. */
typedef struct {
  guint8 *bytes;
  guint64 *counts;
} Values;

/* @n values of @type from @bytes on, as an array. */
static void
array_value (CrType type, const guint8 *bytes, guint n, GValue *value)
{
  const gsize size = cr_type_size (type);
  g_value_init (value, GST_TYPE_ARRAY);
  for (guint k = 0; k < n; k++) {
    GValue item = G_VALUE_INIT;
    cr_type_to_gvalue (type, bytes + k * size, &item);
    gst_value_array_append_and_take_value (value, &item);
  }
}

void
gst_cuda_reduce_pending_field_value (
    const CrProgram *program, guint f, const guint8 *bytes, GValue *value)
{
  const CrLayout *out = &program->out;
  const guint8 *at = bytes + out->offsets[f];
  if (!out->arrays[f]) {
    cr_type_to_gvalue (out->types[f], at, value);
    return;
  }
  if ((gint)f != program->bins_field || program->pair_bins == 0) {
    array_value (out->types[f], at, out->lengths[f], value);
    return;
  }
  const guint n = program->pair_bins;
  g_value_init (value, GST_TYPE_ARRAY);
  for (guint row = 0; row < n; row++) {
    GValue item = G_VALUE_INIT;
    array_value (out->types[f], at + row * n * sizeof (guint64), n, &item);
    gst_value_array_append_and_take_value (value, &item);
  }
}

static void
set_field (GstStructure *s, const GstCudaReducePending *p, guint f,
    const Values *values)
{
  const CrLayout *out = &p->program->out;
  GValue value = G_VALUE_INIT;

  if (!p->plan->per_channel) {
    gst_cuda_reduce_pending_field_value (p->program, f, values->bytes, &value);
    gst_structure_id_take_value (s, p->field_quarks[f], &value);
    return;
  }
  g_value_init (&value, GST_TYPE_ARRAY);
  for (guint v = 0; v < p->plan->n_values; v++) {
    GValue item = G_VALUE_INIT;
    gst_cuda_reduce_pending_field_value (
        p->program, f, values->bytes + v * out->size, &item);
    gst_value_array_append_and_take_value (&value, &item);
  }
  gst_structure_id_take_value (s, p->field_quarks[f], &value);
}

/* The message's own fields, as quarks: looking names up takes a global
 * lock, once per field of every message. */
static struct {
  GQuark name, timestamp, stream_time, running_time, duration, monoid, count,
      channels, counts, window_complete;
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
    q.counts = g_quark_from_static_string ("counts");
    q.window_complete = g_quark_from_static_string ("window-complete");
    g_once_init_leave (&done, 1);
  }
}

/* A result as its message's structure (see docs/element.md). */
static GstStructure *
result_structure (const GstCudaReducePending *p,
    const GstCudaReduceReduction *r, const Values *values)
{
  const CrLayout *out = &p->program->out;
  const GstCudaReducePlan *plan = p->plan;
  guint64 count = 0;

  for (guint v = 0; v < plan->n_values; v++)
    count += values->counts[v];
  init_quarks ();
  GstStructure *s = gst_structure_new_id (q.name, q.timestamp, G_TYPE_UINT64,
      r->timestamp, q.stream_time, G_TYPE_UINT64, r->stream_time,
      q.running_time, G_TYPE_UINT64, r->running_time, q.duration, G_TYPE_UINT64,
      r->duration, q.monoid, G_TYPE_STRING, p->monoid->name, q.count,
      G_TYPE_UINT64, count, NULL);
  if (r->window_size > 1)
    gst_structure_id_set (s, q.window_complete, G_TYPE_BOOLEAN,
        r->window_hops == r->window_size, NULL);
  if (plan->per_channel) {
    GValue counts = G_VALUE_INIT;
    g_value_init (&counts, GST_TYPE_ARRAY);
    for (guint v = 0; v < plan->n_values; v++) {
      GValue item = G_VALUE_INIT;
      g_value_init (&item, G_TYPE_UINT64);
      g_value_set_uint64 (&item, values->counts[v]);
      gst_value_array_append_and_take_value (&counts, &item);
    }
    gst_structure_id_set (s, q.channels, G_TYPE_UINT, plan->n_values, NULL);
    gst_structure_id_take_value (s, q.counts, &counts);
  }
  for (guint f = 0; f < out->n_fields; f++)
    set_field (s, p, f, values);
  return s;
}

void
gst_cuda_reduce_meta_register (void)
{
  static gsize done = 0;
  if (g_once_init_enter (&done)) {
    static const gchar *tags[] = { NULL };
    /* No transform function: a copy of the buffer copies the structure. */
    gst_meta_register_custom (
        GST_CUDA_REDUCE_META_NAME, tags, NULL, NULL, NULL);
    g_once_init_leave (&done, 1);
  }
}

static gboolean
copy_field (GQuark field, const GValue *value, gpointer to)
{
  gst_structure_id_set_value (to, field, value);
  return TRUE;
}

/* One meta per result on @buf, in order. */
static void
attach_metas (GstBuffer *buf, GPtrArray *metas)
{
  for (guint k = 0; k < metas->len; k++) {
    GstCustomMeta *meta =
        gst_buffer_add_custom_meta (buf, GST_CUDA_REDUCE_META_NAME);
    if (meta == NULL)
      continue;
    gst_structure_foreach (g_ptr_array_index (metas, k), copy_field,
        gst_custom_meta_get_structure (meta));
  }
}

GstBuffer *
gst_cuda_reduce_pending_tensor_buffer (const GstCudaReducePending *p,
    const GstCudaReduceReduction *r, const guint8 *values, guint n)
{
  const CrLayout *out = &p->program->out;
  GstBuffer *buf = gst_buffer_new ();

  for (guint f = 0; f < out->n_fields; f++) {
    gsize size = cr_type_size (out->types[f]) * out->lengths[f];
    GstMemory *mem = gst_allocator_alloc (NULL, size * n, NULL);
    GstMapInfo map;
    gst_memory_map (mem, &map, GST_MAP_WRITE);
    for (guint v = 0; v < n; v++)
      memcpy (
          map.data + v * size, values + v * out->size + out->offsets[f], size);
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

/* Takes the values that @r's result gives. @channels: room for the
 * widest part's. */
static void
read_values (const GstCudaReducePending *p, const GstCudaReduceReduction *r,
    guint8 *channels, Values *values)
{
  const GstCudaReducePlan *plan = p->plan;
  const gsize size = p->program->out.size;
  guint64 count = 0;

  cr_job_read (r->job, r->result, channels, &count);
  for (guint v = 0; v < plan->n_values; v++) {
    const GstCudaReduceValue *from = &plan->values[v];
    if (from->part != r->part)
      continue;
    memcpy (values->bytes + v * size, channels + from->channel * size, size);
    /* The job counts every channel of its part, or pairs. */
    values->counts[v] =
        plan->pair.names ? count : count / plan->parts[r->part].channels;
  }
}

gsize
gst_cuda_reduce_pending_part_bytes (const GstCudaReducePending *p)
{
  const GstCudaReducePlan *plan = p->plan;
  guint widest = 1;

  for (guint k = 0; k < plan->n_parts; k++)
    widest = MAX (widest, plan->parts[k].channels);
  return MAX (p->program->out.size, 1) * widest;
}

GstFlowReturn
gst_cuda_reduce_pending_wait (const GstCudaReduceReduction *r,
    const GstCudaReduceOutputs *outputs, GError **error)
{
  /* A batch that failed to launch has posted its error already. */
  if (r->job == NULL)
    return GST_FLOW_ERROR;
  gst_cuda_reduce_watchdog_mark (outputs->watch, TRUE);
  const gboolean done = cr_job_wait (r->job, error);
  gst_cuda_reduce_watchdog_mark (outputs->watch, FALSE);
  return done ? GST_FLOW_OK : GST_FLOW_ERROR;
}

GstFlowReturn
gst_cuda_reduce_pending_complete (GstCudaReducePending *p,
    const GstCudaReduceOutputs *outputs, GError **error)
{
  const GstCudaReducePlan *plan = p->plan;
  const gsize size = MAX (p->program->out.size, 1);
  g_autofree guint8 *channels =
      g_malloc0 (gst_cuda_reduce_pending_part_bytes (p));
  g_autofree guint8 *bytes = g_malloc0 (size * plan->n_values);
  g_autofree guint64 *counts = g_new0 (guint64, plan->n_values);
  Values values = { bytes, counts };

  for (guint k = 0; k < p->reductions->len; k++) {
    GstCudaReduceReduction *r =
        &g_array_index (p->reductions, GstCudaReduceReduction, k);
    if (gst_cuda_reduce_pending_wait (r, outputs, error) != GST_FLOW_OK)
      return GST_FLOW_ERROR;
    if (r->keeps)
      read_values (p, r, channels, &values);
    if (!r->emit)
      continue;
    if (gst_cuda_reduce_pending_wants_structure (p))
      gst_cuda_reduce_pending_deliver_structure (
          p, outputs, result_structure (p, r, &values));
    if (p->delivery.tensors)
      gst_cuda_reduce_pending_deliver_tensor (p,
          gst_cuda_reduce_pending_tensor_buffer (
              p, r, values.bytes, plan->n_values));
  }
  return GST_FLOW_OK;
}

gboolean
gst_cuda_reduce_pending_wants_structure (const GstCudaReducePending *p)
{
  return p->delivery.post_messages
      || (p->delivery.attach_meta && !p->delivery.tensors);
}

void
gst_cuda_reduce_pending_deliver_structure (GstCudaReducePending *p,
    const GstCudaReduceOutputs *outputs, GstStructure *s)
{
  if (p->delivery.attach_meta && !p->delivery.tensors) {
    if (p->metas == NULL)
      p->metas =
          g_ptr_array_new_with_free_func ((GDestroyNotify)gst_structure_free);
    g_ptr_array_add (
        p->metas, p->delivery.post_messages ? gst_structure_copy (s) : s);
  } else if (!p->delivery.post_messages) {
    gst_structure_free (s);
    return;
  }
  if (p->delivery.post_messages)
    gst_element_post_message (outputs->element,
        gst_message_new_element (GST_OBJECT (outputs->element), s));
}

void
gst_cuda_reduce_pending_deliver_tensor (
    GstCudaReducePending *p, GstBuffer *tensor)
{
  if (p->tensors == NULL)
    p->tensors =
        g_ptr_array_new_with_free_func ((GDestroyNotify)gst_buffer_unref);
  g_ptr_array_add (p->tensors, tensor);
}

GstFlowReturn
gst_cuda_reduce_pending_push (GstCudaReducePending *p, GstFlowReturn completed,
    const GstCudaReduceOutputs *outputs)
{
  GstFlowReturn ret = completed;

  if (p->delivery.tensors) {
    while (p->tensors && p->tensors->len > 0 && ret == GST_FLOW_OK)
      ret = gst_pad_push (
          outputs->srcpad, g_ptr_array_steal_index (p->tensors, 0));
    gst_cuda_reduce_pending_free (p);
    return ret;
  }
  GstBuffer *out =
      p->buffer && ret == GST_FLOW_OK ? gst_buffer_ref (p->buffer) : NULL;
  GPtrArray *metas = g_steal_pointer (&p->metas);
  GPtrArray *roi_params = g_steal_pointer (&p->roi_params);
  GArray *regions = g_steal_pointer (&p->regions);
  gst_cuda_reduce_pending_free (p);
  if (out && (metas || roi_params)) {
    /* Unmapped and ours alone by now, unless upstream keeps it too (a
     * tee): then a copy, which shares the memory (and copies the ROI
     * metas). */
    out = gst_buffer_make_writable (out);
    if (metas)
      attach_metas (out, metas);
    for (guint k = 0; roi_params && k < roi_params->len; k++) {
      GstStructure *params = g_ptr_array_index (roi_params, k);
      roi_params->pdata[k] = NULL;
      if (params)
        gst_cuda_reduce_regions_annotate (out,
            &g_array_index (regions, GstCudaReduceRegion, k),
            GST_OBJECT_NAME (outputs->element), params);
    }
  }
  g_clear_pointer (&metas, g_ptr_array_unref);
  g_clear_pointer (&roi_params, g_ptr_array_unref);
  g_clear_pointer (&regions, g_array_unref);
  if (out)
    ret = gst_pad_push (outputs->srcpad, out);
  return ret;
}
