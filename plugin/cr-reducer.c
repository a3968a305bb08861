/* cr-reducer.c: contexts, modules, buffers and launches. */
#include "cr-reducer.h"

#include "cr-error.h"
#include "cr-staging.h"

#include <string.h>

/* Must match CR_BLOCK_THREADS in kernels/reduce.cu. */
#define BLOCK_THREADS 256
#define DEFAULT_CHUNK_BYTES (64u << 20)
/* Pinned memory that pageable input is copied through, per device. */
#define STAGING_RING_BYTES (32u << 20)
/* Result slots are allocated this many at a time. */
#define SLOTS_PER_SLAB 16
/* At least the kernel's CrAccWords: the accumulator rounded up to whole,
 * aligned words. */
#define PARTIAL_SLOT(acc) ((acc)->size + 16)

struct _CrDevice {
  gint refcount;
  const CrDriver *cu;
  gint ordinal;
  gint arch;
  gint sm_count;
  gchar name[256];
  CUcontext context;
  CUstream stream;
  CrStaging *staging; /* created on first use */
};

/* Where one job's result lands: pinned host memory the kernel writes. */
typedef struct {
  guint8 *host;
  CUdeviceptr device;
} Slot;

struct _CrReducer {
  CrDevice *device;
  const CrProgram *program;
  CrCompiled *compiled;
  CUmodule module;
  CUfunction function;
  guint grid_max;
  CUdeviceptr partials; /* grid_max slots, PARTIAL_SLOT bytes each */
  CUdeviceptr ticket; /* one zeroed unsigned int */
  CUdeviceptr state; /* one Acc: carried between chunks */
  CUdeviceptr result; /* one Out, for cr_reducer_reduce_device */
  CUdeviceptr staging; /* padded rows are packed here */
  gsize staging_size;
  guint8 *host_result; /* pinned, one Out */

  /* Jobs are submitted from one thread and finished from another. */
  GMutex lock;
  GPtrArray *slabs; /* pinned blocks of SLOTS_PER_SLAB slots */
  GPtrArray *free_slots; /* Slot */
  GPtrArray *all_slots;
  GPtrArray *free_events;
  GPtrArray *all_events;
};

struct _CrJob {
  CrReducer *reducer;
  Slot *slot;
  CUevent done;
  guint64 count;
};

#define CHECK(call, what) \
  G_STMT_START \
  { \
    CUresult res_ = (call); \
    if (res_ != CUDA_SUCCESS) \
      return cr_cuda_fail (error, res_, what); \
  } \
  G_STMT_END

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
  int major = 0, minor = 0;
  d->refcount = 1;
  d->cu = cu;
  d->ordinal = ordinal < 0 ? 0 : ordinal;
  if ((res = cu->DeviceGet (&dev, d->ordinal)) != CUDA_SUCCESS
      || (res = cu->DeviceGetName (d->name, sizeof d->name - 1, dev))
      || (res = cu->DeviceGetAttribute (
              &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev))
      || (res = cu->DeviceGetAttribute (
              &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev))
      || (res = cu->DeviceGetAttribute (
              &d->sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev))) {
    cr_cuda_fail (error, res, "Querying the GPU");
    return NULL;
  }
  d->arch = major * 10 + minor;
  /* A context of our own rather than the primary one, so that nothing
   * another library does to the primary context (a reset) reaches us. A
   * fault in a user's monoid is another matter: the driver keeps it for
   * the whole process, and every later call reports it. */
  if ((res = cu->CtxCreate (&d->context, CU_CTX_SCHED_BLOCKING_SYNC, dev))) {
    cr_cuda_fail (error, res, "Creating a CUDA context");
    return NULL;
  }
  res = cu->StreamCreate (&d->stream, CU_STREAM_NON_BLOCKING);
  cu->CtxPopCurrent (NULL);
  if (res != CUDA_SUCCESS) {
    cr_cuda_fail (error, res, "Creating a CUDA stream");
    return NULL;
  }
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
    d->cu->CtxPopCurrent (NULL);
    /* Destroying the context frees everything made in it, stream included. */
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

gboolean
cr_device_push (CrDevice *d, GError **error)
{
  CHECK (d->cu->CtxPushCurrent (d->context), "Making the CUDA context current");
  return TRUE;
}

void
cr_device_pop (CrDevice *d)
{
  d->cu->CtxPopCurrent (NULL);
}

gsize
cr_reducer_chunk_bytes (void)
{
  const gchar *env = g_getenv ("GST_CUDAREDUCE_CHUNK_BYTES");
  guint64 bytes = env ? g_ascii_strtoull (env, NULL, 10) : DEFAULT_CHUNK_BYTES;
  /* Chunks start on a 16-byte boundary so that every chunk's vector loads
   * are aligned, and hold whole elements of every type. */
  bytes = bytes / 16 * 16;
  return bytes ? bytes : DEFAULT_CHUNK_BYTES;
}

static gboolean
load_module (CrReducer *r, gchar **log, GError **error)
{
  const CrDriver *cu = r->device->cu;
  CUresult res = CUDA_ERROR_NOT_READY;

  for (gint attempt = 0; attempt < 2; attempt++) {
    g_clear_pointer (&r->compiled, cr_compiled_free);
    /* A cached image the driver refuses is replaced, not trusted again. */
    r->compiled = cr_compile (r->program->source, r->device->arch,
        attempt ? CR_COMPILE_REFRESH : CR_COMPILE_DEFAULT, log, error);
    if (r->compiled == NULL)
      return FALSE;
    res = cu->ModuleLoadData (
        &r->module, g_bytes_get_data (r->compiled->image, NULL));
    if (res == CUDA_SUCCESS || !r->compiled->from_cache)
      break;
  }
  CHECK (res, "Loading the compiled monoid");
  CHECK (cu->ModuleGetFunction (&r->function, r->module, "cr_reduce"),
      "Finding the reduction kernel");
  return TRUE;
}

static gboolean
reducer_setup (CrReducer *r, gchar **log, GError **error)
{
  const CrDriver *cu = r->device->cu;
  const CrProgram *p = r->program;
  int per_sm = 0;

  if (!load_module (r, log, error))
    return FALSE;
  CHECK (cu->OccupancyMaxActiveBlocksPerMultiprocessor (
             &per_sm, r->function, BLOCK_THREADS, 0),
      "Querying the kernel's occupancy");
  r->grid_max = MAX (1, per_sm) * r->device->sm_count;
  CHECK (cu->MemAlloc (&r->partials, r->grid_max * PARTIAL_SLOT (&p->acc)),
      "Allocating partials");
  CHECK (cu->MemAlloc (&r->ticket, 16), "Allocating the ticket");
  CHECK (cu->MemsetD8Async (r->ticket, 0, 16, r->device->stream),
      "Clearing the ticket");
  CHECK (cu->MemAlloc (&r->state, p->acc.size), "Allocating the state");
  CHECK (cu->MemAlloc (&r->result, p->out.size), "Allocating the result");
  CHECK (cu->MemAllocHost ((void **)&r->host_result, p->out.size),
      "Allocating pinned memory");
  return TRUE;
}

CrReducer *
cr_reducer_new (
    CrDevice *device, const CrProgram *program, gchar **log, GError **error)
{
  g_autoptr (CrReducer) r = g_new0 (CrReducer, 1);
  r->device = cr_device_ref (device);
  r->program = program;
  g_mutex_init (&r->lock);
  r->slabs = g_ptr_array_new ();
  r->free_slots = g_ptr_array_new ();
  r->all_slots = g_ptr_array_new_with_free_func (g_free);
  r->free_events = g_ptr_array_new ();
  r->all_events = g_ptr_array_new ();

  if (!cr_device_push (device, error))
    return NULL;
  gboolean ok = reducer_setup (r, log, error);
  cr_device_pop (device);
  return ok ? g_steal_pointer (&r) : NULL;
}

void
cr_reducer_free (CrReducer *r)
{
  if (r == NULL)
    return;
  const CrDriver *cu = r->device->cu;
  if (cu->CtxPushCurrent (r->device->context) == CUDA_SUCCESS) {
    CUdeviceptr *buffers[] = { &r->partials, &r->ticket, &r->state, &r->result,
      &r->staging };
    for (guint k = 0; k < G_N_ELEMENTS (buffers); k++)
      if (*buffers[k])
        cu->MemFree (*buffers[k]);
    if (r->host_result)
      cu->MemFreeHost (r->host_result);
    for (guint k = 0; k < r->slabs->len; k++)
      cu->MemFreeHost (g_ptr_array_index (r->slabs, k));
    for (guint k = 0; k < r->all_events->len; k++)
      cu->EventDestroy (g_ptr_array_index (r->all_events, k));
    if (r->module)
      cu->ModuleUnload (r->module);
    cu->CtxPopCurrent (NULL);
  }
  g_ptr_array_unref (r->slabs);
  g_ptr_array_unref (r->free_slots);
  g_ptr_array_unref (r->all_slots);
  g_ptr_array_unref (r->free_events);
  g_ptr_array_unref (r->all_events);
  g_mutex_clear (&r->lock);
  cr_compiled_free (r->compiled);
  cr_device_unref (r->device);
  g_free (r);
}

gchar *
cr_reducer_describe (const CrReducer *r)
{
  int regs = -1, local = -1;
  r->device->cu->FuncGetAttribute (
      &regs, CU_FUNC_ATTRIBUTE_NUM_REGS, r->function);
  r->device->cu->FuncGetAttribute (
      &local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, r->function);
  return g_strdup_printf ("%d registers, %d bytes of local memory, grid of "
                          "up to %u blocks of %d threads",
      regs, local, r->grid_max, BLOCK_THREADS);
}

const CrProgram *
cr_reducer_program (const CrReducer *r)
{
  return r->program;
}

const CrCompiled *
cr_reducer_compiled (const CrReducer *r)
{
  return r->compiled;
}

/* One launch over @n elements at @data, which are elements index_base... of
 * the whole input; @carry folds in the state of the launches before. */
static gboolean
launch (CrReducer *r, CUdeviceptr data, guint64 n, guint64 index_base,
    gboolean carry, const guint8 *ctx, CUdeviceptr result, GError **error)
{
  const gsize elem = cr_type_size (r->program->in);
  /* At least one 16-byte load per thread: small inputs spread over as many
   * multiprocessors as they can fill, large ones over a grid that keeps
   * every multiprocessor full (grid_max, from occupancy). */
  const guint64 per_block = (guint64)BLOCK_THREADS * (16 / elem);
  guint grid = (guint)MIN (
      (guint64)r->grid_max, MAX ((guint64)1, (n + per_block - 1) / per_block));
  CUdeviceptr carry_ptr = carry ? r->state : 0;
  guint64 count = index_base + n;
  void *params[] = { &data, &n, &index_base, &r->partials, &r->ticket,
    &carry_ptr, &r->state, &result, &count, (void *)ctx };
  CHECK (r->device->cu->LaunchKernel (r->function, grid, 1, 1, BLOCK_THREADS, 1,
             1, 0, r->device->stream, params, NULL),
      "Launching the reduction");
  return TRUE;
}

static gboolean
ensure_staging (CrReducer *r, gsize size, GError **error)
{
  if (r->staging_size >= size)
    return TRUE;
  if (r->staging) {
    /* The old buffer may still be read by a queued launch. */
    CHECK (r->device->cu->StreamSynchronize (r->device->stream),
        "Waiting for the GPU");
    r->device->cu->MemFree (r->staging);
    r->staging = 0;
    r->staging_size = 0;
  }
  CHECK (r->device->cu->MemAlloc (&r->staging, size),
      "Allocating device memory for the input");
  r->staging_size = size;
  return TRUE;
}

/* Pageable host data: copied through the device's pinned ring, which the
 * kernel reads in place. Copying the next chunk overlaps the GPU's reading
 * of this one. */
static gboolean
reduce_staged (CrReducer *r, const guint8 *data, gsize bytes, const guint8 *ctx,
    CUdeviceptr result, GError **error)
{
  CrDevice *d = r->device;
  const gsize elem = cr_type_size (r->program->in);

  if (d->staging == NULL
      && (d->staging = cr_staging_new (d->cu, STAGING_RING_BYTES, error))
          == NULL)
    return FALSE;
  const gsize chunk =
      MIN (cr_staging_max_chunk (d->staging), cr_reducer_chunk_bytes ());
  for (gsize offset = 0; offset < bytes; offset += chunk) {
    gsize len = MIN (chunk, bytes - offset);
    guint8 *host;
    CUdeviceptr device;
    if (!cr_staging_claim (d->staging, len, &host, &device, error))
      return FALSE;
    cr_parallel_memcpy (host, data + offset, len);
    if (!launch (r, device, len / elem, offset / elem, offset > 0, ctx, result,
            error)
        || !cr_staging_release (d->staging, d->stream, error))
      return FALSE;
  }
  return TRUE;
}

/* Memory the GPU reads in place: one launch, however large. */
static gboolean
reduce_mapped (CrReducer *r, CUdeviceptr data, gsize bytes, const guint8 *ctx,
    CUdeviceptr result, GError **error)
{
  const gsize elem = cr_type_size (r->program->in);
  return launch (r, data, bytes / elem, 0, FALSE, ctx, result, error);
}

/* Rows with padding between them: each copy packs whole rows, so the
 * padding never reaches the device. */
static gboolean
reduce_rows (CrReducer *r, const CrHostRegion *region, const guint8 *ctx,
    CUdeviceptr result, GError **error)
{
  const gsize elem = cr_type_size (r->program->in);
  const gsize row_elems = region->row_bytes / elem;
  const gsize rows_per_chunk = MIN (
      region->n_rows, MAX (1, cr_reducer_chunk_bytes () / region->row_bytes));

  if (!ensure_staging (r, rows_per_chunk * region->row_bytes, error))
    return FALSE;
  for (gsize row = 0; row < region->n_rows; row += rows_per_chunk) {
    gsize rows = MIN (rows_per_chunk, region->n_rows - row);
    CrMemcpy2D copy = { 0 };
    copy.srcMemoryType = CU_MEMORYTYPE_HOST;
    copy.srcHost = region->data + row * region->stride;
    copy.srcPitch = region->stride;
    copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    copy.dstDevice = r->staging;
    copy.dstPitch = region->row_bytes;
    copy.WidthInBytes = region->row_bytes;
    copy.Height = rows;
    CHECK (r->device->cu->Memcpy2DAsync (&copy, r->device->stream),
        "Copying the input rows to the GPU");
    if (!launch (r, r->staging, rows * row_elems, row * row_elems, row > 0, ctx,
            result, error))
      return FALSE;
  }
  return TRUE;
}

/* Jobs */

static gboolean
take_slot_and_event (CrReducer *r, CrJob *job, GError **error)
{
  const CrDriver *cu = r->device->cu;
  /* Slots hold a whole number of 64-byte lines, so two jobs' results never
   * share one. */
  const gsize stride = (MAX (r->program->out.size, 1) + 63) / 64 * 64;

  g_mutex_lock (&r->lock);
  if (r->free_slots->len == 0) {
    guint8 *slab = NULL;
    CUdeviceptr base = 0;
    CUresult res = cu->MemHostAlloc (
        (void **)&slab, stride * SLOTS_PER_SLAB, CU_MEMHOSTALLOC_DEVICEMAP);
    if (res == CUDA_SUCCESS)
      res = cu->MemHostGetDevicePointer (&base, slab, 0);
    if (res != CUDA_SUCCESS) {
      g_mutex_unlock (&r->lock);
      if (slab)
        cu->MemFreeHost (slab);
      return cr_cuda_fail (error, res, "Allocating pinned result memory");
    }
    g_ptr_array_add (r->slabs, slab);
    for (guint k = 0; k < SLOTS_PER_SLAB; k++) {
      Slot *slot = g_new (Slot, 1);
      slot->host = slab + k * stride;
      slot->device = base + k * stride;
      g_ptr_array_add (r->all_slots, slot);
      g_ptr_array_add (r->free_slots, slot);
    }
  }
  job->slot =
      g_ptr_array_steal_index_fast (r->free_slots, r->free_slots->len - 1);
  if (r->free_events->len > 0)
    job->done =
        g_ptr_array_steal_index_fast (r->free_events, r->free_events->len - 1);
  g_mutex_unlock (&r->lock);

  if (job->done == NULL) {
    CHECK (cu->EventCreate (&job->done, CU_EVENT_DISABLE_TIMING),
        "Creating a CUDA event");
    g_mutex_lock (&r->lock);
    g_ptr_array_add (r->all_events, job->done);
    g_mutex_unlock (&r->lock);
  }
  return TRUE;
}

static gboolean
submit (CrReducer *r, const CrHostRegion *region, const guint8 *ctx, CrJob *job,
    GError **error)
{
  const gsize bytes = region->row_bytes * region->n_rows;
  CUdeviceptr result = job->slot->device;

  if (bytes == 0) {
    if (!launch (r, 0, 0, 0, FALSE, ctx, result, error))
      return FALSE;
  } else if (region->n_rows > 1 && region->stride != region->row_bytes) {
    if (!reduce_rows (r, region, ctx, result, error))
      return FALSE;
  } else if (region->device) {
    if (!reduce_mapped (r, region->device, bytes, ctx, result, error))
      return FALSE;
  } else if (!reduce_staged (r, region->data, bytes, ctx, result, error)) {
    return FALSE;
  }
  CHECK (r->device->cu->EventRecord (job->done, r->device->stream),
      "Recording a CUDA event");
  return TRUE;
}

CrJob *
cr_reducer_submit (
    CrReducer *r, const CrHostRegion *region, const guint8 *ctx, GError **error)
{
  const gsize elem = cr_type_size (r->program->in);

  if (region->row_bytes % elem != 0) {
    g_set_error (error, CR_ERROR, CR_ERROR_INPUT,
        "The input is %" G_GSIZE_FORMAT " bytes, not a whole number of %s "
        "elements (%" G_GSIZE_FORMAT " bytes each)",
        region->row_bytes, cr_type_name (r->program->in), elem);
    return NULL;
  }
  if (!cr_device_push (r->device, error))
    return NULL;
  CrJob *job = g_new0 (CrJob, 1);
  job->reducer = r;
  job->count = region->row_bytes / elem * region->n_rows;
  gboolean ok = take_slot_and_event (r, job, error)
      && submit (r, region, ctx, job, error);
  cr_device_pop (r->device);
  if (!ok) {
    cr_job_free (job);
    return NULL;
  }
  return job;
}

gboolean
cr_job_is_done (CrJob *job)
{
  /* A failed job counts as done: cr_job_finish reports its error. */
  return job->reducer->device->cu->EventQuery (job->done)
      != CUDA_ERROR_NOT_READY;
}

gboolean
cr_job_finish (CrJob *job, guint8 *out, guint64 *count, GError **error)
{
  CrDevice *d = job->reducer->device;

  if (!cr_device_push (d, error))
    return FALSE;
  CUresult res = d->cu->EventSynchronize (job->done);
  cr_device_pop (d);
  if (res != CUDA_SUCCESS)
    return cr_cuda_fail (error, res,
        "The reduction on the GPU (after a fault in the monoid's code, CUDA "
        "stays unusable in this process until it restarts)");
  memcpy (out, job->slot->host, job->reducer->program->out.size);
  if (count)
    *count = job->count;
  return TRUE;
}

void
cr_job_free (CrJob *job)
{
  if (job == NULL)
    return;
  CrReducer *r = job->reducer;
  g_mutex_lock (&r->lock);
  if (job->slot)
    g_ptr_array_add (r->free_slots, job->slot);
  if (job->done)
    g_ptr_array_add (r->free_events, job->done);
  g_mutex_unlock (&r->lock);
  g_free (job);
}

gboolean
cr_reducer_reduce_host (CrReducer *r, const CrHostRegion *region,
    const guint8 *ctx, guint8 *out, guint64 *count, GError **error)
{
  CrJob *job = cr_reducer_submit (r, region, ctx, error);
  if (job == NULL)
    return FALSE;
  gboolean ok = cr_job_finish (job, out, count, error);
  cr_job_free (job);
  return ok;
}

static gboolean
fetch_result (CrReducer *r, guint8 *out, GError **error)
{
  const CrDriver *cu = r->device->cu;
  CHECK (cu->MemcpyDtoHAsync (r->host_result, r->result, r->program->out.size,
             r->device->stream),
      "Copying the result to the host");
  CHECK (cu->StreamSynchronize (r->device->stream),
      "The reduction on the GPU (after a fault in the monoid's code, CUDA "
      "stays unusable in this process until it restarts)");
  memcpy (out, r->host_result, r->program->out.size);
  return TRUE;
}

gboolean
cr_reducer_reduce_device (CrReducer *r, CUdeviceptr data, guint64 n,
    const guint8 *ctx, guint8 *out, GError **error)
{
  if (!cr_device_push (r->device, error))
    return FALSE;
  gboolean ok = launch (r, data, n, 0, FALSE, ctx, r->result, error);
  if (ok && out)
    ok = fetch_result (r, out, error);
  cr_device_pop (r->device);
  return ok;
}
