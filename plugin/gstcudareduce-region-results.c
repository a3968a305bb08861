/* gstcudareduce-region-results.c: a frame's results per region. */
#include "gstcudareduce-region-results.h"

#include "cr-job.h"
#include "gstcudareduce-regions.h"

#include <string.h>

/* Every region's values: program->out.size bytes each, n_values a region,
 * and the samples each covers. */
typedef struct {
  guint n_regions, n_values;
  gsize size;
  guint8 *bytes;
  guint64 *counts;
} Table;

static const guint8 *
value_at (const Table *t, guint region, guint v)
{
  return t->bytes + ((gsize)region * t->n_values + v) * t->size;
}

/* Reads the values that @r's job gives every region. @channels: room for
 * one region's of the widest part. */
static void
read_values (const GstCudaReducePending *p, const GstCudaReduceReduction *r,
    guint8 *channels, Table *t)
{
  const GstCudaReducePlan *plan = p->plan;

  for (guint k = 0; k < t->n_regions; k++) {
    guint64 count = 0;
    cr_job_read (r->job, k, channels, &count);
    for (guint v = 0; v < plan->n_values; v++) {
      const GstCudaReduceValue *from = &plan->values[v];
      if (from->part != r->part)
        continue;
      memcpy ((guint8 *)value_at (t, k, v), channels + from->channel * t->size,
          t->size);
      /* A reducer counts a part's samples; a pair's, its pixels. */
      t->counts[(gsize)k * t->n_values + v] =
          plan->pair.names ? count : count / plan->parts[r->part].channels;
    }
  }
}

static void
take_array_item (GValue *array, GValue *item)
{
  gst_value_array_append_and_take_value (array, item);
}

/* Field @f of region @k: its value, or with per-channel results an array
 * of its values. */
static void
field_value (const GstCudaReducePending *p, const Table *t, guint k, guint f,
    GValue *value)
{
  if (!p->plan->per_channel) {
    gst_cuda_reduce_pending_field_value (
        p->program, f, value_at (t, k, 0), value);
    return;
  }
  g_value_init (value, GST_TYPE_ARRAY);
  for (guint v = 0; v < t->n_values; v++) {
    GValue item = G_VALUE_INIT;
    gst_cuda_reduce_pending_field_value (
        p->program, f, value_at (t, k, v), &item);
    take_array_item (value, &item);
  }
}

/* Region @k's count: its samples of every value, or per value. */
static void
count_value (
    const GstCudaReducePending *p, const Table *t, guint k, GValue *value)
{
  const guint64 *counts = t->counts + (gsize)k * t->n_values;

  if (!p->plan->per_channel) {
    g_value_init (value, G_TYPE_UINT64);
    g_value_set_uint64 (value, counts[0]);
    return;
  }
  g_value_init (value, GST_TYPE_ARRAY);
  for (guint v = 0; v < t->n_values; v++) {
    GValue item = G_VALUE_INIT;
    g_value_init (&item, G_TYPE_UINT64);
    g_value_set_uint64 (&item, counts[v]);
    take_array_item (value, &item);
  }
}

static guint64
region_total (const Table *t, guint k)
{
  guint64 total = 0;
  for (guint v = 0; v < t->n_values; v++)
    total += t->counts[(gsize)k * t->n_values + v];
  return total;
}

/* An array over the regions of what @one gives each. */
static void
regions_array (const GstCudaReducePending *p, const Table *t, guint f,
    void (*one) (
        const GstCudaReducePending *, const Table *, guint, guint, GValue *),
    GValue *value)
{
  g_value_init (value, GST_TYPE_ARRAY);
  for (guint k = 0; k < t->n_regions; k++) {
    GValue item = G_VALUE_INIT;
    one (p, t, k, f, &item);
    take_array_item (value, &item);
  }
}

static void
count_of (const GstCudaReducePending *p, const Table *t, guint k, guint f,
    GValue *value)
{
  count_value (p, t, k, value);
}

static void
id_of (const GstCudaReducePending *p, const Table *t, guint k, guint f,
    GValue *value)
{
  g_value_init (value, G_TYPE_INT);
  g_value_set_int (
      value, g_array_index (p->regions, GstCudaReduceRegion, k).id);
}

static void
type_of (const GstCudaReducePending *p, const Table *t, guint k, guint f,
    GValue *value)
{
  const GQuark type = g_array_index (p->regions, GstCudaReduceRegion, k).type;
  g_value_init (value, G_TYPE_STRING);
  g_value_set_string (value, type ? g_quark_to_string (type) : "");
}

static void
source_of (const GstCudaReducePending *p, const Table *t, guint k, guint f,
    GValue *value)
{
  g_value_init (value, G_TYPE_STRING);
  g_value_set_static_string (value,
      gst_cuda_reduce_region_source_name (
          g_array_index (p->regions, GstCudaReduceRegion, k).source));
}

static void
rect_of (const GstCudaReducePending *p, const Table *t, guint k, guint f,
    GValue *value)
{
  const GstCudaReduceRect *c =
      &g_array_index (p->regions, GstCudaReduceRegion, k).clipped;
  const gint numbers[] = { c->x, c->y, c->width, c->height };
  g_value_init (value, GST_TYPE_ARRAY);
  for (guint j = 0; j < G_N_ELEMENTS (numbers); j++) {
    GValue item = G_VALUE_INIT;
    g_value_init (&item, G_TYPE_INT);
    g_value_set_int (&item, numbers[j]);
    take_array_item (value, &item);
  }
}

static void
set_array (GstStructure *s, const gchar *name, const GstCudaReducePending *p,
    const Table *t, guint f,
    void (*one) (
        const GstCudaReducePending *, const Table *, guint, guint, GValue *))
{
  GValue value = G_VALUE_INIT;
  regions_array (p, t, f, one, &value);
  gst_structure_take_value (s, name, &value);
}

/* The frame's message (see docs/element.md "Regions"). */
static GstStructure *
message_structure (const GstCudaReducePending *p,
    const GstCudaReduceReduction *r, const Table *t)
{
  const CrLayout *out = &p->program->out;
  guint64 count = 0;

  for (guint k = 0; k < t->n_regions; k++)
    count += region_total (t, k);
  GstStructure *s = gst_structure_new ("cudareduce", "timestamp", G_TYPE_UINT64,
      r->timestamp, "stream-time", G_TYPE_UINT64, r->stream_time,
      "running-time", G_TYPE_UINT64, r->running_time, "duration", G_TYPE_UINT64,
      r->duration, "monoid", G_TYPE_STRING, p->monoid->name, "count",
      G_TYPE_UINT64, count, "regions", G_TYPE_UINT, t->n_regions, NULL);
  if (r->window_size > 1)
    gst_structure_set (s, "window-complete", G_TYPE_BOOLEAN,
        r->window_hops == r->window_size, NULL);
  if (p->plan->per_channel)
    gst_structure_set (s, "channels", G_TYPE_UINT, t->n_values, NULL);
  set_array (s, "region-ids", p, t, 0, id_of);
  set_array (s, "region-types", p, t, 0, type_of);
  set_array (s, "region-sources", p, t, 0, source_of);
  set_array (s, "region-rects", p, t, 0, rect_of);
  set_array (s, "counts", p, t, 0, count_of);
  for (guint f = 0; f < out->n_fields; f++)
    set_array (s, g_quark_to_string (p->field_quarks[f]), p, t, f, field_value);
  return s;
}

/* Region @k's results for its ROI meta: as a message without regions. */
static GstStructure *
roi_structure (const GstCudaReducePending *p, const Table *t, guint k)
{
  const CrLayout *out = &p->program->out;
  GValue value = G_VALUE_INIT;

  GstStructure *s = gst_structure_new ("cudareduce", "monoid", G_TYPE_STRING,
      p->monoid->name, "count", G_TYPE_UINT64, region_total (t, k), NULL);
  if (p->plan->per_channel) {
    gst_structure_set (s, "channels", G_TYPE_UINT, t->n_values, NULL);
    count_value (p, t, k, &value);
    gst_structure_take_value (s, "counts", &value);
  }
  for (guint f = 0; f < out->n_fields; f++) {
    field_value (p, t, k, f, &value);
    gst_structure_id_take_value (s, p->field_quarks[f], &value);
  }
  return s;
}

static void
free_params (gpointer params)
{
  if (params)
    gst_structure_free (params);
}

static void
deliver (GstCudaReducePending *p, const GstCudaReduceReduction *r,
    const Table *t, const GstCudaReduceOutputs *outputs)
{
  if (gst_cuda_reduce_pending_wants_structure (p))
    gst_cuda_reduce_pending_deliver_structure (
        p, outputs, message_structure (p, r, t));
  if (p->delivery.tensors) {
    /* [regions][values]: the table's own order. */
    gst_cuda_reduce_pending_deliver_tensor (p,
        gst_cuda_reduce_pending_tensor_buffer (
            p, r, t->bytes, t->n_regions * t->n_values));
    return;
  }
  for (guint k = 0; k < t->n_regions; k++) {
    if (g_array_index (p->regions, GstCudaReduceRegion, k).source
        != GST_CUDA_REDUCE_REGION_ROI_META)
      continue;
    if (p->roi_params == NULL)
      p->roi_params = g_ptr_array_new_full (t->n_regions, free_params);
    g_ptr_array_set_size (p->roi_params, t->n_regions);
    p->roi_params->pdata[k] = roi_structure (p, t, k);
  }
}

GstFlowReturn
gst_cuda_reduce_region_results_complete (GstCudaReducePending *p,
    const GstCudaReduceOutputs *outputs, GError **error)
{
  const GstCudaReducePlan *plan = p->plan;
  const gsize size = MAX (p->program->out.size, 1);
  Table t = {
    .n_regions = p->regions->len,
    .n_values = plan->n_values,
    .size = size,
  };
  g_autofree guint8 *channels =
      g_malloc0 (gst_cuda_reduce_pending_part_bytes (p));
  g_autofree guint8 *bytes =
      g_malloc0 (size * t.n_values * MAX (t.n_regions, 1));
  g_autofree guint64 *counts =
      g_new0 (guint64, (gsize)t.n_values * MAX (t.n_regions, 1));
  t.bytes = bytes;
  t.counts = counts;

  for (guint k = 0; k < p->reductions->len; k++) {
    GstCudaReduceReduction *r =
        &g_array_index (p->reductions, GstCudaReduceReduction, k);
    if (gst_cuda_reduce_pending_wait (r, outputs, error) != GST_FLOW_OK)
      return GST_FLOW_ERROR;
    if (r->keeps)
      read_values (p, r, channels, &t);
    if (r->emit)
      deliver (p, r, &t, outputs);
  }
  return GST_FLOW_OK;
}
