/* bench-frames.c: NV12 frames in GPU memory, made once by cudaupload, for
 * bench-video and bench-multi to push again and again (new timestamps, the
 * same GPU memory), with their sums and the GPU they are on. */
#include "bench-frames.h"

#include <gst/app/gstappsink.h>
#include <gst/video/video.h>
#include <string.h>

gboolean
cuda_frames_make (CudaFrames *cf, gint w, gint h, gint device)
{
  g_autofree gchar *upload = device < 0
      ? g_strdup ("cudaupload")
      : g_strdup_printf ("cudaupload cuda-device-id=%d", device);
  g_autofree gchar *desc = g_strdup_printf (
      "videotestsrc num-buffers=8 pattern=snow ! "
      "video/x-raw,format=NV12,width=%d,height=%d,framerate=30/1 ! "
      "%s ! video/x-raw(memory:CUDAMemory) ! "
      "appsink name=sink sync=false",
      w, h, upload);
  g_autoptr (GError) error = NULL;
  memset (cf, 0, sizeof *cf);
  cf->maker = gst_parse_launch (desc, &error);
  if (cf->maker == NULL)
    return FALSE;
  GstElement *sink = gst_bin_get_by_name (GST_BIN (cf->maker), "sink");
  gst_element_set_state (cf->maker, GST_STATE_PLAYING);
  cf->frames =
      g_ptr_array_new_with_free_func ((GDestroyNotify)gst_buffer_unref);
  GstSample *sample;
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    g_ptr_array_add (
        cf->frames, gst_buffer_ref (gst_sample_get_buffer (sample)));
    if (cf->caps == NULL)
      cf->caps = gst_caps_to_string (gst_sample_get_caps (sample));
    gst_sample_unref (sample);
  }
  gst_object_unref (sink);
  cf->context = gst_element_get_context (cf->maker, "gst.cuda.context");
  gst_element_set_state (cf->maker, GST_STATE_PAUSED);
  return cf->frames->len == 8 && cf->context != NULL;
}

void
cuda_frames_clear (CudaFrames *cf)
{
  g_clear_pointer (&cf->frames, g_ptr_array_unref);
  if (cf->context)
    gst_context_unref (cf->context);
  if (cf->maker) {
    gst_element_set_state (cf->maker, GST_STATE_NULL);
    gst_object_unref (cf->maker);
  }
  g_free (cf->caps);
  memset (cf, 0, sizeof *cf);
}

/* The sum of an NV12 frame's samples, read back from GPU memory once;
 * FALSE where it cannot be mapped, or has no video meta to give the GPU
 * memory's row pitch. */
static gboolean
nv12_sum (const gchar *caps_string, GstBuffer *buf, guint64 *sum)
{
  GstCaps *caps = gst_caps_from_string (caps_string);
  GstVideoInfo info;
  GstVideoFrame frame;
  gboolean ok = caps && gst_video_info_from_caps (&info, caps)
      && GST_VIDEO_INFO_FORMAT (&info) == GST_VIDEO_FORMAT_NV12
      && gst_buffer_get_video_meta (buf)
      && gst_video_frame_map (&frame, &info, buf, GST_MAP_READ);

  if (caps)
    gst_caps_unref (caps);
  if (!ok)
    return FALSE;
  *sum = 0;
  /* Y: height rows of width bytes; UV: half as many rows, as wide. */
  for (guint p = 0; p < 2; p++) {
    const guint8 *d = GST_VIDEO_FRAME_PLANE_DATA (&frame, p);
    const gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p);
    const gint rows = p == 0 ? info.height : (info.height + 1) / 2;
    const gint row = p == 0 ? info.width : (info.width + 1) / 2 * 2;
    for (gint y = 0; y < rows; y++)
      for (gint x = 0; x < row; x++)
        *sum += d[(gsize)y * stride + x];
  }
  gst_video_frame_unmap (&frame);
  return TRUE;
}

gint
cuda_frames_gpu (const CudaFrames *cf)
{
  const GValue *v = gst_structure_get_value (
      gst_context_get_structure (cf->context), "gst.cuda.context");
  GObject *context =
      v && G_VALUE_HOLDS_OBJECT (v) ? g_value_get_object (v) : NULL;
  guint id = 0;

  if (context == NULL
      || !g_object_class_find_property (
          G_OBJECT_GET_CLASS (context), "cuda-device-id"))
    return -1;
  g_object_get (context, "cuda-device-id", &id, NULL);
  return (gint)id;
}

const gchar *
cuda_frames_unavailable (void)
{
  GstElementFactory *f = gst_element_factory_find ("cudareduce");
  GstCaps *caps =
      gst_caps_from_string ("video/x-raw(memory:CUDAMemory),format=NV12");
  const gboolean takes = gst_element_factory_can_sink_any_caps (f, caps);
  GstElement *upload = gst_element_factory_make ("cudaupload", NULL);
  const gchar *why = NULL;

  if (!takes)
    why = "cudareduce takes no video/x-raw(memory:CUDAMemory) (built "
          "without GStreamer's CUDA library)";
  else if (upload == NULL)
    why = "there is no cudaupload (GStreamer's nvcodec plugin)";
  else if (!has_property (upload, "cuda-device-id"))
    why = "cudaupload has no cuda-device-id property";
  if (upload)
    gst_object_unref (upload);
  gst_caps_unref (caps);
  gst_object_unref (f);
  return why;
}

guint64 *
cuda_frames_sums (const CudaFrames *cf)
{
  guint64 *sums = g_new (guint64, cf->frames->len);

  for (guint f = 0; f < cf->frames->len; f++)
    if (!nv12_sum (cf->caps, g_ptr_array_index (cf->frames, f), &sums[f])) {
      g_free (sums);
      return NULL;
    }
  return sums;
}
