/* gstcudareduce-props.h: the element's properties: their specs, defaults
 * and values, and the monoid they describe.
 *
 * The values live in the element, under its object lock; these functions
 * take no lock except gst_cuda_reduce_props_monoid(), which is called from
 * any thread and takes the owner's. */
#pragma once

#include "cr-monoid.h"

#include <gst/gst.h>

G_BEGIN_DECLS

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
  PROP_BIN,
  PROP_THRESHOLD,
  PROP_CONTEXT,
  PROP_CUDA_DEVICE_ID,
  PROP_OUTPUT,
  PROP_POST_MESSAGES,
  PROP_ATTACH_META,
  PROP_ASYNC_DEPTH,
  PROP_PER_CHANNEL,
  PROP_COMPONENT,
  PROP_INTERVAL,
  PROP_GPU_TIMEOUT,
  PROP_BINS,
  PROP_PERCENTILES,
  PROP_PAIR,
  PROP_WINDOW,
  PROP_REGIONS,
  PROP_ROI_TYPES,
};

/* What the source pad carries (the output property). */
typedef enum {
  GST_CUDA_REDUCE_OUTPUT_MESSAGE,
  GST_CUDA_REDUCE_OUTPUT_TENSOR,
} GstCudaReduceOutput;

#define GST_TYPE_CUDA_REDUCE_OUTPUT (gst_cuda_reduce_output_get_type ())
GType gst_cuda_reduce_output_get_type (void);

/* The inline monoid's texts, indexed by PROP_ACCUMULATOR... PROP_BIN. */
#define GST_CUDA_REDUCE_N_INLINE (PROP_BIN - PROP_ACCUMULATOR + 1)

typedef struct {
  /* A change of the monoid's properties bumps monoid_serial; of its
   * context values, context_serial. */
  gchar *monoid_name;
  gboolean monoid_name_set; /* else an inline monoid is unnamed */
  gchar *inline_text[GST_CUDA_REDUCE_N_INLINE];
  gdouble threshold;
  GstStructure *context;
  gint device_id;
  GstCudaReduceOutput output;
  gboolean post_messages;
  gboolean attach_meta;
  guint async_depth;
  gboolean per_channel;
  gint component;
  guint64 interval;
  guint64 window; /* 0: tumbling intervals */
  guint64 gpu_timeout;
  guint bins; /* 0: the monoid's own */
  GArray *percentiles; /* gdouble; empty: none */
  gchar *pair; /* NULL: the monoid's own */
  GValue regions; /* GstValueArray of <x, y, width, height>, as set */
  gchar *roi_types; /* NULL: no ROI meta; "*": all */
  guint monoid_serial;
  guint context_serial;

  /* The monoid the properties describe, parsed once per change. */
  struct {
    CrMonoid *monoid;
    guint serial;
  } parsed;
} GstCudaReduceProps;

/* What a property's new value asks of the element, beyond storing it. */
typedef enum {
  GST_CUDA_REDUCE_PROPS_STORED = 0,
  /* the output mode changed: passthrough follows it */
  GST_CUDA_REDUCE_PROPS_SET_MODE = 1 << 0,
  /* the tensor caps may change: renegotiate the source pad */
  GST_CUDA_REDUCE_PROPS_RENEGOTIATE = 1 << 1,
} GstCudaReducePropsChange;

void gst_cuda_reduce_props_init (GstCudaReduceProps *props);
void gst_cuda_reduce_props_clear (GstCudaReduceProps *props);

/* Installs every property on the element's class. */
void gst_cuda_reduce_props_install (GObjectClass *klass);

/* Stores @value of @prop_id (FALSE for an id that is not a property),
 * setting *@change. Under the object lock. */
gboolean gst_cuda_reduce_props_set (GstCudaReduceProps *props, guint prop_id,
    const GValue *value, GstCudaReducePropsChange *change);
/* Under the object lock; FALSE for an id that is not a property. */
gboolean gst_cuda_reduce_props_get (
    const GstCudaReduceProps *props, guint prop_id, GValue *value);

/* The monoid the properties describe now (a new reference), or NULL with
 * @error; parses only after a change of the monoid's properties. Takes
 * @owner's object lock, which guards @props; not held while parsing. */
CrMonoid *gst_cuda_reduce_props_monoid (
    GstObject *owner, GstCudaReduceProps *props, GError **error);

/* At most this many tensors in an output buffer: a GstBuffer holds 16
 * memories (it merges more into one), and NNStreamer's static tensors are
 * as many. */
#define GST_CUDA_REDUCE_MAX_TENSORS 16

/* Whether output=tensor (@tensors) can carry @m's results: checked where a
 * monoid starts to be used, not for every buffer. */
gboolean gst_cuda_reduce_props_output_fits (
    gboolean tensors, const CrMonoid *m, GError **error);

/* The name of the GstCustomMeta that attach-meta puts on buffers: each
 * result's fields, as in its message. */
#define GST_CUDA_REDUCE_META_NAME "GstCudaReduceResultMeta"

/* How results leave: fixed from READY, so read once per buffer and carried
 * with it to the results thread, which then reads no property. */
typedef struct {
  gboolean tensors; /* push tensors rather than the input buffer */
  gboolean post_messages;
  gboolean attach_meta; /* results on the buffers, in message mode */
} GstCudaReduceDelivery;

/* What one buffer is reduced with, read under one lock per buffer. The
 * reader keeps it from one buffer to the next: the context values are
 * copied only when they change. */
typedef struct {
  CrMonoid *monoid;
  gdouble threshold;
  GstStructure *context; /* the context property, or NULL */
  guint context_serial;
  gboolean context_read; /* context and context_serial are set */
  GstCudaReduceDelivery delivery;
} GstCudaReduceSettings;

/* Updates @settings from @props, under @owner's object lock (released
 * while a changed monoid is parsed); FALSE with @error for a monoid that
 * does not parse. */
gboolean gst_cuda_reduce_props_read (GstObject *owner,
    GstCudaReduceProps *props, GstCudaReduceSettings *settings, GError **error);
void gst_cuda_reduce_settings_clear (GstCudaReduceSettings *settings);

/* The monoid's name as results and errors give it: the monoid property, or
 * CR_MONOID_INLINE_NAME for an inline monoid it does not name. Under the object lock. */
gchar *gst_cuda_reduce_props_monoid_name (const GstCudaReduceProps *props);
/* Whether the inline texts (GST_CUDA_REDUCE_N_INLINE) select the inline
 * monoid: load or bin is set. */
gboolean gst_cuda_reduce_props_inline (gchar *const *inline_text);

G_END_DECLS
