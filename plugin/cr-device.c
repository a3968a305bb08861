/* cr-device.c: a GPU's context and stream, and its pinned host memory. */
#include "cr-device.h"

#include "cr-error.h"

/* Fills in what @d's device is, and makes its stream in d->context. */
static gboolean
describe_and_stream (CrDevice *d, CUdevice dev, GError **error)
{
  const CrDriver *cu = d->cu;
  int major = 0, minor = 0;
  CUresult res;

  if ((res = cu->DeviceGetName (d->name, sizeof d->name - 1, dev))
      || (res = cu->DeviceGetAttribute (
              &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev))
      || (res = cu->DeviceGetAttribute (
              &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev))
      || (res = cu->DeviceGetAttribute (
              &d->sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev)))
    return cr_cuda_fail (error, res, "Querying the GPU");
  d->arch = major * 10 + minor;
  if ((res = cu->CtxPushCurrent (d->context)) != CUDA_SUCCESS)
    return cr_cuda_fail (error, res, "Making the CUDA context current");
  res = cu->StreamCreate (&d->stream, CU_STREAM_NON_BLOCKING);
  cu->CtxPopCurrent (NULL);
  if (res != CUDA_SUCCESS)
    return cr_cuda_fail (error, res, "Creating a CUDA stream");
  return TRUE;
}

CrDevice *
cr_device_open_shared (
    CUcontext context, GDestroyNotify release, gpointer owner, GError **error)
{
  const CrDriver *cu = cr_cuda_driver (error);
  CUdevice dev;
  CUresult res;

  if (cu == NULL) {
    release (owner);
    return NULL;
  }
  g_autoptr (CrDevice) d = g_new0 (CrDevice, 1);
  d->refcount = 1;
  d->cu = cu;
  d->context = context;
  d->release_context = release;
  d->context_owner = owner;
  if ((res = cu->CtxPushCurrent (context)) != CUDA_SUCCESS) {
    cr_cuda_fail (error, res, "Making the shared CUDA context current");
    return NULL;
  }
  res = cu->CtxGetDevice (&dev);
  cu->CtxPopCurrent (NULL);
  if (res != CUDA_SUCCESS) {
    cr_cuda_fail (error, res, "Asking the shared CUDA context for its GPU");
    return NULL;
  }
  /* The ordinal is the device handle, as the driver numbers them. */
  d->ordinal = (gint)dev;
  if (!describe_and_stream (d, dev, error))
    return NULL;
  return g_steal_pointer (&d);
}

CrDevice *
cr_device_open (gint ordinal, GError **error)
{
  const CrDriver *cu = cr_cuda_driver (error);
  int count = 0;
  CUdevice dev;
  CUresult res;

  if (cu == NULL)
    return NULL;
  res = cu->DeviceGetCount (&count);
  if (res != CUDA_SUCCESS) {
    cr_cuda_fail (error, res, "Counting GPUs");
    return NULL;
  }
  if (count == 0) {
    g_set_error_literal (error, CR_ERROR, CR_ERROR_NO_DEVICE,
        "The CUDA driver reports no GPU; check that an NVIDIA GPU is present "
        "and visible (CUDA_VISIBLE_DEVICES)");
    return NULL;
  }
  if (ordinal < -1 || ordinal >= count) {
    g_set_error (error, CR_ERROR, CR_ERROR_DEVICE_ID,
        "cuda-device-id=%d is out of range: this machine has %d GPU%s "
        "(ids 0 to %d, or -1 for the first)",
        ordinal, count, count == 1 ? "" : "s", count - 1);
    return NULL;
  }

  g_autoptr (CrDevice) d = g_new0 (CrDevice, 1);
  d->refcount = 1;
  d->cu = cu;
  d->ordinal = ordinal < 0 ? 0 : ordinal;
  if ((res = cu->DeviceGet (&dev, d->ordinal)) != CUDA_SUCCESS) {
    cr_cuda_fail (error, res, "Querying the GPU");
    return NULL;
  }
  /* A context of our own rather than the primary one, so that nothing
   * another library does to the primary context (a reset) reaches us. A
   * fault in a user's monoid is another matter: the driver keeps it for
   * the whole process, and every later call reports it. */
  if ((res = cu->CtxCreate (&d->context, CU_CTX_SCHED_BLOCKING_SYNC, dev))) {
    cr_cuda_fail (error, res, "Creating a CUDA context");
    return NULL;
  }
  cu->CtxPopCurrent (NULL);
  if (!describe_and_stream (d, dev, error))
    return NULL;
  return g_steal_pointer (&d);
}

CrDevice *
cr_device_ref (CrDevice *d)
{
  g_atomic_int_inc (&d->refcount);
  return d;
}

void
cr_device_unref (CrDevice *d)
{
  if (d == NULL || !g_atomic_int_dec_and_test (&d->refcount))
    return;
  if (d->context) {
    d->cu->CtxPushCurrent (d->context);
    cr_staging_free (d->staging);
    if (d->release_context && d->stream)
      d->cu->StreamDestroy (d->stream);
    d->cu->CtxPopCurrent (NULL);
    /* Destroying our own context frees everything made in it, stream
     * included; a shared one lives on with its owner. */
    if (d->release_context)
      d->release_context (d->context_owner);
    else
      d->cu->CtxDestroy (d->context);
  }
  g_free (d);
}

gpointer
cr_device_host_alloc (
    CrDevice *d, gsize size, CUdeviceptr *device_ptr, GError **error)
{
  void *ptr = NULL;
  CUresult res;

  if (!cr_device_push (d, error))
    return NULL;
  /* Portable: pinned for every context, so that another element's GPU
   * work can read it too. */
  res = d->cu->MemHostAlloc (&ptr, MAX (size, 1),
      CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
  if (res == CUDA_SUCCESS)
    res = d->cu->MemHostGetDevicePointer (device_ptr, ptr, 0);
  if (res != CUDA_SUCCESS) {
    if (ptr)
      d->cu->MemFreeHost (ptr);
    ptr = NULL;
    cr_cuda_fail (error, res, "Allocating pinned host memory");
  }
  cr_device_pop (d);
  return ptr;
}

void
cr_device_host_free (CrDevice *d, gpointer ptr)
{
  if (d->cu->CtxPushCurrent (d->context) != CUDA_SUCCESS)
    return;
  d->cu->MemFreeHost (ptr);
  d->cu->CtxPopCurrent (NULL);
}

gboolean
cr_device_host_register (CrDevice *d, gpointer ptr, gsize size,
    CUdeviceptr *device_ptr, GError **error)
{
  CUresult res;

  if (!cr_device_push (d, error))
    return FALSE;
  res = d->cu->MemHostRegister (
      ptr, size, CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP);
  if (res == CUDA_SUCCESS) {
    res = d->cu->MemHostGetDevicePointer (device_ptr, ptr, 0);
    if (res != CUDA_SUCCESS)
      d->cu->MemHostUnregister (ptr);
  }
  cr_device_pop (d);
  if (res != CUDA_SUCCESS)
    return cr_cuda_fail (error, res, "Registering host memory with CUDA");
  return TRUE;
}

void
cr_device_host_unregister (CrDevice *d, gpointer ptr)
{
  if (d->cu->CtxPushCurrent (d->context) != CUDA_SUCCESS)
    return;
  d->cu->MemHostUnregister (ptr);
  d->cu->CtxPopCurrent (NULL);
}

gint
cr_device_ordinal (const CrDevice *d)
{
  return d->ordinal;
}

gint
cr_device_arch (const CrDevice *d)
{
  return d->arch;
}

const gchar *
cr_device_name (const CrDevice *d)
{
  return d->name;
}

CUstream
cr_device_stream (const CrDevice *d)
{
  return d->stream;
}

CUcontext
cr_device_context (const CrDevice *d)
{
  return d->context;
}

gboolean
cr_device_push (CrDevice *d, GError **error)
{
  CR_CHECK (
      d->cu->CtxPushCurrent (d->context), "Making the CUDA context current");
  return TRUE;
}

void
cr_device_pop (CrDevice *d)
{
  d->cu->CtxPopCurrent (NULL);
}

void
cr_device_set_wait_timeout (CrDevice *d, gint64 timeout_us)
{
  d->wait_timeout_us = MAX (0, timeout_us);
}

gboolean
cr_device_sync (CrDevice *d, GError **error)
{
  if (d->wait_timeout_us == 0) {
    CR_CHECK (d->cu->StreamSynchronize (d->stream), "Waiting for the GPU");
    return TRUE;
  }
  CUevent done = NULL;
  CR_CHECK (d->cu->EventCreate (
                &done, CU_EVENT_DISABLE_TIMING | CU_EVENT_BLOCKING_SYNC),
      "Creating a CUDA event");
  CUresult res = d->cu->EventRecord (done, d->stream);
  gboolean ok = res == CUDA_SUCCESS
      ? cr_cuda_wait_event (d->cu, done, d->wait_timeout_us, error)
      : cr_cuda_fail (error, res, "Recording a CUDA event");
  d->cu->EventDestroy (done);
  return ok;
}
