/* plugin.c: registers the cudareduce plugin. Nothing here touches CUDA, so
 * the plugin registers on machines without a driver. */
#include "gstcudareduce.h"

static gboolean
plugin_init (GstPlugin *plugin)
{
  return GST_ELEMENT_REGISTER (cudareduce, plugin);
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, cudareduce,
    "Reduces raw numeric buffers on an NVIDIA GPU with monoids compiled at "
    "run time by NVRTC",
    plugin_init, VERSION, "LGPL", GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
