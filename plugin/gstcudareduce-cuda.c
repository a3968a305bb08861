/* gstcudareduce-cuda.c: the pipeline's CUDA context and its memory. */
#include "gstcudareduce-cuda.h"

#include "cr-error.h"

#ifdef CR_HAVE_GST_CUDA
/* GStreamer's CUDA headers include the CUDA toolkit's cuda.h and cudaGL.h,
 * and through them OpenGL's gl.h, none of which this plugin needs to
 * build: it declares the few entry points it calls, as gstcudautils.h,
 * gstcudacontext.h, gstcudaloader.h and gstcudamemory.h declare them
 * (public and unchanged since 1.22), and links libgstcuda-1.0. */
typedef struct _GstCudaContext GstCudaContext;
gboolean gst_cuda_load_library (void);
gboolean gst_cuda_ensure_element_context (
    GstElement *element, gint device_id, GstCudaContext **cuda_ctx);
gboolean gst_cuda_handle_set_context (GstElement *element, GstContext *context,
    gint device_id, GstCudaContext **cuda_ctx);
gboolean gst_cuda_handle_context_query (
    GstElement *element, GstQuery *query, GstCudaContext *cuda_ctx);
gpointer gst_cuda_context_get_handle (GstCudaContext *ctx);
gboolean gst_is_cuda_memory (GstMemory *mem);
/* The public head of GstCudaMemory. */
typedef struct {
  GstMemory mem;
  GstCudaContext *context;
} GstCudaMemoryHead;
/* GST_MAP_CUDA: map for the GPU, data is a CUdeviceptr. */
#define CR_MAP_CUDA (GST_MAP_FLAG_LAST << 1)
#ifdef CR_GST_CUDA_MEMORY_SYNC
typedef struct _GstCudaMemory GstCudaMemory;
void gst_cuda_memory_sync (GstCudaMemory *mem);
#endif
#endif

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_reduce_debug);
#define GST_CAT_DEFAULT gst_cuda_reduce_debug

#ifdef CR_HAVE_GST_CUDA

gboolean
gst_cuda_reduce_cuda_available (void)
{
  return TRUE;
}

gpointer
gst_cuda_reduce_cuda_open (
    GstCudaReduceCuda *cuda, GstElement *element, gint device_id)
{
  /* The field itself, not a copy: the context that the search finds
   * upstream arrives through set_context, into this field, and the search
   * stops there. With a copy it went on to make a second context, and the
   * first one's reference was overwritten and never released. */
  GstCudaContext **field = (GstCudaContext **)&cuda->context;

  /* GStreamer opens the driver itself; without one our own error says
   * more. */
  if (!gst_cuda_load_library ())
    return NULL;
  if (!gst_cuda_ensure_element_context (element, device_id, field)) {
    GST_WARNING_OBJECT (element, "no CUDA context from the pipeline");
    return NULL;
  }
  GstCudaContext *context = *field;
  guint id = 0;
  g_object_get (context, "cuda-device-id", &id, NULL);
  GST_INFO_OBJECT (element,
      "in the pipeline's CUDA context %" GST_PTR_FORMAT " on GPU %u", context,
      id);
  return gst_cuda_context_get_handle (context);
}

void
gst_cuda_reduce_cuda_close (GstCudaReduceCuda *cuda)
{
  gst_clear_object (&cuda->context);
}

gpointer
gst_cuda_reduce_cuda_memory_context (GstBuffer *buf, GstObject **owner)
{
  GstMemory *mem =
      gst_buffer_n_memory (buf) > 0 ? gst_buffer_peek_memory (buf, 0) : NULL;
  if (mem == NULL || !gst_is_cuda_memory (mem))
    return NULL;
  GstCudaContext *context = ((GstCudaMemoryHead *)mem)->context;
  *owner = gst_object_ref (GST_OBJECT (context));
  return gst_cuda_context_get_handle (context);
}

void
gst_cuda_reduce_cuda_set_context (GstCudaReduceCuda *cuda, GstElement *element,
    GstContext *context, gint device_id)
{
  gst_cuda_handle_set_context (
      element, context, device_id, (GstCudaContext **)&cuda->context);
}

gboolean
gst_cuda_reduce_cuda_handle_query (
    GstCudaReduceCuda *cuda, GstElement *element, GstQuery *query)
{
  return GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT
      && gst_cuda_handle_context_query (
          element, query, (GstCudaContext *)cuda->context);
}

gboolean
gst_cuda_reduce_cuda_map_frame (GstVideoFrame *frame, const GstVideoInfo *info,
    GstBuffer *buf, gpointer context, gint ordinal, GError **error)
{
  for (guint k = 0; k < gst_buffer_n_memory (buf); k++) {
    GstMemory *mem = gst_buffer_peek_memory (buf, k);
    if (!gst_is_cuda_memory (mem)) {
      g_set_error (error, CR_ERROR, CR_ERROR_INPUT,
          "A buffer of memory:CUDAMemory caps holds %s memory, not CUDA "
          "memory",
          mem->allocator ? mem->allocator->mem_type : "unknown");
      return FALSE;
    }
    GstCudaContext *owner = ((GstCudaMemoryHead *)mem)->context;
    /* The element moved to the context of the buffer's first memory
     * (follow_frames_context): another memory in another context is one
     * buffer spread over two, which is never copied across. */
    if (gst_cuda_context_get_handle (owner) != context) {
      guint id = 0;
      g_object_get (owner, "cuda-device-id", &id, NULL);
      g_set_error (error, CR_ERROR, CR_ERROR_INPUT,
          "Memory %u of a buffer is in another CUDA context (on GPU %u) than "
          "its first memory (on GPU %d): the element reads a buffer in one "
          "context and does not copy between contexts or GPUs. Give it "
          "buffers whose memory is all in one context",
          k, id, ordinal);
      return FALSE;
    }
#ifdef CR_GST_CUDA_MEMORY_SYNC
    /* GStreamer 1.24 orders memory on streams: upstream's work on it is
     * done before the GPU reads. */
    gst_cuda_memory_sync ((GstCudaMemory *)mem);
#endif
  }
  /* GStreamer 1.22's CUDA elements finish their work on the memory before
   * they push it. */
  if (!gst_video_frame_map (
          frame, info, buf, (GstMapFlags)(GST_MAP_READ | CR_MAP_CUDA))) {
    g_set_error (error, CR_ERROR, CR_ERROR_INPUT,
        "Cannot map a frame of CUDA memory (%" G_GSIZE_FORMAT " bytes) for "
        "the GPU",
        gst_buffer_get_size (buf));
    return FALSE;
  }
  return TRUE;
}

#else /* without GStreamer's CUDA library */

gboolean
gst_cuda_reduce_cuda_available (void)
{
  return FALSE;
}

gpointer
gst_cuda_reduce_cuda_open (
    GstCudaReduceCuda *cuda, GstElement *element, gint device_id)
{
  return NULL;
}

void
gst_cuda_reduce_cuda_close (GstCudaReduceCuda *cuda)
{
}

gpointer
gst_cuda_reduce_cuda_memory_context (GstBuffer *buf, GstObject **owner)
{
  return NULL;
}

void
gst_cuda_reduce_cuda_set_context (GstCudaReduceCuda *cuda, GstElement *element,
    GstContext *context, gint device_id)
{
}

gboolean
gst_cuda_reduce_cuda_handle_query (
    GstCudaReduceCuda *cuda, GstElement *element, GstQuery *query)
{
  return FALSE;
}

gboolean
gst_cuda_reduce_cuda_map_frame (GstVideoFrame *frame, const GstVideoInfo *info,
    GstBuffer *buf, gpointer context, gint ordinal, GError **error)
{
  g_set_error_literal (error, CR_ERROR, CR_ERROR_INPUT,
      "This cudareduce was built without GStreamer's CUDA library and "
      "cannot read CUDA memory");
  return FALSE;
}

#endif
