/* plugin.c: registers the cudareduce plugin. Nothing here initialises
 * CUDA, so the plugin registers on machines without a driver. */
#include "gstcudareduce.h"

#include "cr-cuda.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_reduce_debug);

/* The engine below the element knows only GLib, and logs in the GLib log
 * domain "cudareduce" (why the kernel cache missed, say): into GStreamer's
 * debug log, where users look (GST_DEBUG=cudareduce:5). */
static void
engine_log (const gchar *domain, GLogLevelFlags level, const gchar *message,
    gpointer data)
{
  GST_CAT_LEVEL_LOG (gst_cuda_reduce_debug,
      (level & G_LOG_LEVEL_DEBUG) ? GST_LEVEL_DEBUG : GST_LEVEL_INFO, NULL,
      "%s", message);
}

static gboolean
plugin_init (GstPlugin *plugin)
{
  if (!GST_ELEMENT_REGISTER (cudareduce, plugin))
    return FALSE;
  g_log_set_handler ("cudareduce",
      G_LOG_LEVEL_DEBUG | G_LOG_LEVEL_INFO | G_LOG_LEVEL_MESSAGE, engine_log,
      NULL);
#if GST_CHECK_VERSION(1, 24, 0)
  /* gst-inspect-1.0 shows it with the plugin's details; the element still
   * registers, and says the same when it starts.
   * Only whether the library opens: cuInit here would run in every process
   * that loads the plugin, and a process that forks after cuInit cannot
   * use CUDA in the child (gst-check forks each test). */
  g_autofree gchar *no_driver = NULL;
  if (!cr_cuda_driver_library_present (&no_driver))
    gst_plugin_add_status_warning (plugin, no_driver);
#endif
  return TRUE;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, cudareduce,
    "Reduces raw numeric buffers on an NVIDIA GPU with monoids compiled at "
    "run time by NVRTC",
    plugin_init, VERSION, "LGPL", GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
