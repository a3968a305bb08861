/* cr-resource.h: the files compiled into the plugin (the kernel sources
 * and the built-in monoids), so that an installed plugin needs no data
 * files. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define CR_RESOURCE_KERNELS "/org/freedesktop/gstreamer/cudareduce/kernels/"
#define CR_RESOURCE_MONOIDS "/org/freedesktop/gstreamer/cudareduce/monoids/"

/* The plugin's resource, registered; never NULL. Safe to call from any
 * thread, the first time included. */
GResource *cr_resource (void);

G_END_DECLS
