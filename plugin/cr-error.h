/* cr-error.h: the engine's error domain. The element maps each code onto a
 * GStreamer error domain; tests assert on the codes. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define CR_ERROR (cr_error_quark ())
GQuark cr_error_quark (void);

typedef enum {
  CR_ERROR_UNKNOWN_MONOID, /* no built-in of that name and no such file */
  CR_ERROR_MONOID_FILE, /* unreadable or not a key file */
  CR_ERROR_MONOID_INVALID, /* a key missing, empty or not allowed */
  CR_ERROR_FIELDS, /* a bad field list, name or type */
  CR_ERROR_CONTEXT, /* a context value that does not fit */
  CR_ERROR_COMPILE, /* NVRTC rejected the generated source */
  CR_ERROR_NO_DRIVER, /* libcuda could not be opened or initialised */
  CR_ERROR_NO_NVRTC, /* libnvrtc could not be opened */
  CR_ERROR_NO_DEVICE, /* the driver sees no GPU */
  CR_ERROR_DEVICE_ID, /* cuda-device-id out of range */
  CR_ERROR_CUDA, /* a driver call, launch or kernel failed */
  CR_ERROR_INPUT, /* data that does not fit the negotiated format */
  CR_ERROR_GPU_TIMEOUT, /* GPU work did not finish in the time allowed */
} CrError;

G_END_DECLS
