/* gstcudareduce-error.h: engine errors posted as element errors. */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

/* Posts @error (an engine GError, or any other) as an ERROR message of
 * @element, in the GStreamer domain its code maps to, with @debug (may be
 * NULL). The macro records the caller's file, function and line, as
 * GST_ELEMENT_ERROR does. */
#define gst_cuda_reduce_post_error(element, error, debug) \
  gst_cuda_reduce_post_error_full (GST_ELEMENT (element), (error), (debug), \
      __FILE__, GST_FUNCTION, __LINE__)

void gst_cuda_reduce_post_error_full (GstElement *element, const GError *error,
    const gchar *debug, const gchar *file, const gchar *function, gint line);

G_END_DECLS
