/* gstcudareduce-cuda.h: frames in GPU memory (memory:CUDAMemory), through
 * GStreamer's CUDA library where the plugin was built with it.
 *
 * With it, an element whose caps bring frames in GPU memory works in the
 * CUDA context the pipeline shares (gst.cuda.context), as GStreamer's own
 * CUDA elements do: it asks its peers and the application for one, makes
 * one and announces it when nobody has one, and answers its peers'
 * queries. Frames in GstCudaMemory of that context are then read where
 * they are. Host memory keeps the element in a context of its own. Without
 * the library every function here does nothing. */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

#define CR_CUDA_MEMORY_FEATURE "memory:CUDAMemory"

typedef struct {
  GstObject *context; /* GstCudaContext, while the element runs */
} GstCudaReduceCuda;

/* Whether the plugin reads CUDA memory. */
gboolean gst_cuda_reduce_cuda_available (void);

/* The pipeline's CUDA context for @device_id (-1: whichever the pipeline
 * has), kept in cuda->context; returns its CUcontext, or NULL when there
 * is none to be had (no library, no driver). */
gpointer gst_cuda_reduce_cuda_open (
    GstCudaReduceCuda *cuda, GstElement *element, gint device_id);
void gst_cuda_reduce_cuda_close (GstCudaReduceCuda *cuda);

/* The CUcontext that holds @buf's CUDA memory, and in *@owner (a new
 * reference) its GstCudaContext; NULL where @buf's first memory is not
 * CUDA memory. */
gpointer gst_cuda_reduce_cuda_memory_context (
    GstBuffer *buf, GstObject **owner);

/* GstElement::set_context and the CONTEXT query. */
void gst_cuda_reduce_cuda_set_context (GstCudaReduceCuda *cuda,
    GstElement *element, GstContext *context, gint device_id);
gboolean gst_cuda_reduce_cuda_handle_query (
    GstCudaReduceCuda *cuda, GstElement *element, GstQuery *query);

/* Maps @buf's frame for reading on the GPU, with GPU addresses in
 * frame->data; FALSE with @error when its memory is not CUDA memory of
 * @context (the CUcontext of the element's GPU @ordinal). Unmap with
 * gst_video_frame_unmap(). */
gboolean gst_cuda_reduce_cuda_map_frame (GstVideoFrame *frame,
    const GstVideoInfo *info, GstBuffer *buf, gpointer context, gint ordinal,
    GError **error);

G_END_DECLS
