/* cr-device.h: one GPU with a CUDA context and stream of its own, and its
 * pinned host memory. Used from one thread at a time, but for the host
 * memory calls. */
#pragma once

#include "cr-cuda.h"
#include "cr-staging.h"

G_BEGIN_DECLS

typedef struct _CrDevice CrDevice;

/* @ordinal -1 means the first GPU. Reducers, jobs and host memory hold a
 * reference, so the context lives until the last of them is gone. */
CrDevice *cr_device_open (gint ordinal, GError **error);
/* A device on @context, a context someone else made (GStreamer's CUDA
 * context, whose memory only its own context may read): the device makes
 * its stream there, never destroys the context, and calls @release
 * (@owner) when it goes (or at once, on failure). */
CrDevice *cr_device_open_shared (
    CUcontext context, GDestroyNotify release, gpointer owner, GError **error);
CrDevice *cr_device_ref (CrDevice *device);
void cr_device_unref (CrDevice *device);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CrDevice, cr_device_unref)

gint cr_device_ordinal (const CrDevice *device);
/* How long the thread that submits waits for earlier GPU work (a full
 * staging ring, a change of buffers), in microseconds, before it fails
 * with CR_ERROR_GPU_TIMEOUT; 0 (the default) waits for ever. */
void cr_device_set_wait_timeout (CrDevice *device, gint64 timeout_us);
/* Compute capability as major * 10 + minor. */
gint cr_device_arch (const CrDevice *device);
const gchar *cr_device_name (const CrDevice *device);
/* Makes the device's context current on this thread until pop. */
gboolean cr_device_push (CrDevice *device, GError **error);
void cr_device_pop (CrDevice *device);
CUstream cr_device_stream (const CrDevice *device);
CUcontext cr_device_context (const CrDevice *device);

/* Pinned host memory mapped for the GPU, which kernels read in place at
 * *@device_ptr. Callers hold a device reference until they free it. */
gpointer cr_device_host_alloc (
    CrDevice *device, gsize size, CUdeviceptr *device_ptr, GError **error);
void cr_device_host_free (CrDevice *device, gpointer ptr);
/* Pins and maps ordinary host memory until unregistered. Costly (about
 * 20 GB/s of pinning), so worth it only for memory that is used again. */
gboolean cr_device_host_register (CrDevice *device, gpointer ptr, gsize size,
    CUdeviceptr *device_ptr, GError **error);
void cr_device_host_unregister (CrDevice *device, gpointer ptr);

struct _CrDevice {
  gint refcount;
  const CrDriver *cu;
  gint ordinal;
  gint arch;
  gint sm_count;
  gchar name[256];
  CUcontext context;
  /* A context someone else made (GStreamer's, to read its memory): not
   * destroyed with the device; released through this when it goes. */
  GDestroyNotify release_context;
  gpointer context_owner;
  CUstream stream;
  CrStaging *staging; /* created on first use */
  /* How long the submitting thread waits for earlier GPU work (0: for
   * ever), as cr_device_set_wait_timeout says. */
  gint64 wait_timeout_us;
};

/* For the modules above: waits for everything queued on the device's stream, for at most its wait
 * timeout. The context is current. */
gboolean cr_device_sync (CrDevice *device, GError **error);

G_END_DECLS
