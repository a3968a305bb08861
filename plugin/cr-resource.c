/* cr-resource.c: the plugin's compiled-in files. */
#include "cr-resource.h"

#include "cr-resources.h"

GResource *
cr_resource (void)
{
  /* GLib registers a compiled-in resource on its first use, and one
   * thread that asks while another is registering it is handed NULL
   * (GLib 2.74's g_static_resource_get_resource sees the list of
   * resources to register already taken and returns before the pointer
   * is set). Two elements that start together then crashed in their
   * first lookup. A global lookup waits on the lock the registering
   * thread holds, after which the pointer is set. */
  GResource *resource = cr_resources_get_resource ();
  if (G_UNLIKELY (resource == NULL)) {
    g_resources_get_info (
        CR_RESOURCE_KERNELS, G_RESOURCE_LOOKUP_FLAGS_NONE, NULL, NULL, NULL);
    resource = cr_resources_get_resource ();
  }
  g_assert (resource != NULL); /* compiled into the plugin */
  return resource;
}
