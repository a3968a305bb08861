/* gstcudareduce-error.c: one GStreamer error per engine error code, always
 * with the engine's text, which says what to fix. */
#include "gstcudareduce-error.h"

#include "cr-error.h"

void
gst_cuda_reduce_post_error_full (GstElement *element, const GError *error,
    const gchar *debug, const gchar *file, const gchar *function, gint line)
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
    case CR_ERROR_GPU_TIMEOUT:
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
  gst_element_message_full (element, GST_MESSAGE_ERROR, domain, code,
      g_strdup (error->message), g_strdup (debug), file, function, line);
}
