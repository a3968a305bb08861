/* fake-cuda.c: a CUDA driver without a GPU, opened with
 * GST_CUDAREDUCE_DRIVER_LIBRARY, so that the element's whole host side
 * (caps, plans, mapping, batches, the queue, messages, tensors, errors,
 * the watchdog) runs in the CPU suite, under the sanitizers and valgrind.
 *
 * "Device" memory is host memory, so copies, memsets and reads in place
 * work as on a GPU; kernels are not run: a launch only records that it
 * happened. Results are therefore whatever the result memory held (zeros
 * at first): a test of this fake checks the shape of what the element
 * does (how many messages, which fields, timestamps, counts, errors),
 * never a value a kernel computes. The GPU suite checks those.
 *
 * Work on a stream finishes CR_FAKE_CUDA_LATENCY_US microseconds after its
 * event is recorded (default 0), so that the element meets a busy GPU:
 * cuEventQuery says NOT_READY until then, cuEventSynchronize sleeps.
 *
 * The image decides what a launch does (tests/check/fake-nvrtc.c makes
 * such images from the source's markers): one containing "never ends"
 * hangs its stream, whose events then never complete, as a kernel that
 * loops forever; one containing "faults" breaks the context, as a kernel
 * that reads out of bounds: the launch succeeds, and once the work before
 * an event recorded after it has finished, waiting for that event and
 * every call after fail with CUDA_ERROR_ILLEGAL_ADDRESS.
 *
 * More environment:
 *   CR_FAKE_CUDA_DEVICES  how many GPUs there are (default 1);
 *   CR_FAKE_CUDA_FAIL     NAME or NAME:N: entry point cuNAME (without
 *                         "cu" and "_v2": "MemAlloc", "LaunchKernel")
 *                         fails, every time, or only its Nth call;
 *   CR_FAKE_CUDA_ERROR    the code it fails with (default 2,
 *                         CUDA_ERROR_OUT_OF_MEMORY).
 *
 * Only libc (and cr-cuda.h's types), so that it loads into any test;
 * thread-safe with one lock. */
#include "cr-cuda.h" /* the driver's types, as the element declares them */

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum {
  SUCCESS = 0,
  INVALID_VALUE = 1,
  OUT_OF_MEMORY = 2,
  NO_DEVICE = 100,
  INVALID_CONTEXT = 201,
  INVALID_DEVICE = 101,
  NOT_READY = 600,
  ILLEGAL_ADDRESS = 700,
};

static const struct {
  CUresult code;
  const char *name, *text;
} errors[] = {
  { 0, "CUDA_SUCCESS", "no error" },
  { 1, "CUDA_ERROR_INVALID_VALUE", "invalid argument" },
  { 2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory" },
  { 3, "CUDA_ERROR_NOT_INITIALIZED", "initialization error" },
  { 100, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected" },
  { 101, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal" },
  { 200, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid" },
  { 201, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context" },
  { 600, "CUDA_ERROR_NOT_READY", "device not ready" },
  { 700, "CUDA_ERROR_ILLEGAL_ADDRESS",
      "an illegal memory access was encountered" },
  { 701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
      "too many resources requested for launch" },
  { 719, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure" },
  { 999, "CUDA_ERROR_UNKNOWN", "unknown error" },
};

typedef struct {
  int hangs, faults;
} Module;

typedef struct {
  int hung, faulted;
} Stream;

typedef struct {
  int recorded;
  int hung, faults;
  int64_t ready_us; /* monotonic */
} Event;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* Set by a faulting launch: every later call fails with it. */
static CUresult broken;
/* The contexts pushed on this thread, the current one last. */
#define STACK_DEPTH 16
static __thread void *stack[STACK_DEPTH];
static __thread int depth;
#define current (depth > 0 ? stack[depth - 1] : NULL)

/* Everything made in a context, which destroying it frees, as the driver
 * does: the element leaves streams, events and memory to its context's
 * end. Kept here, what the element leaves is also still reachable, so
 * LeakSanitizer does not report a context the element gives up on on
 * purpose (a kernel that never ends); cr_fake_cuda_contexts counts those. */
typedef struct {
  void *ptr, *ctx;
} Resource;

static Resource *resources;
static size_t n_resources, n_allocated;
static int n_contexts;

/* Under lock. */
static void
track_locked (void *ptr, void *ctx)
{
  if (n_resources == n_allocated) {
    n_allocated = n_allocated ? 2 * n_allocated : 64;
    resources = realloc (resources, n_allocated * sizeof (Resource));
    if (resources == NULL)
      abort ();
  }
  resources[n_resources].ptr = ptr;
  resources[n_resources].ctx = ctx;
  n_resources++;
}

/* @ptr, made in the current context, or NULL (made nothing). */
static void *
track (void *ptr)
{
  if (ptr) {
    pthread_mutex_lock (&lock);
    track_locked (ptr, current);
    pthread_mutex_unlock (&lock);
  }
  return ptr;
}

/* Frees @ptr, made by track (): INVALID_VALUE, freeing nothing, for what
 * was freed already, or with its context. */
static int
untrack (void *ptr)
{
  int found = 0;
  pthread_mutex_lock (&lock);
  for (size_t k = 0; k < n_resources; k++)
    if (resources[k].ptr == ptr) {
      resources[k] = resources[--n_resources];
      found = 1;
      break;
    }
  pthread_mutex_unlock (&lock);
  if (found)
    free (ptr);
  return found ? 0 : 1; /* SUCCESS, INVALID_VALUE */
}

/* The contexts made and not destroyed: for tests that check that an
 * element destroys its own. */
int cr_fake_cuda_contexts (void);

int
cr_fake_cuda_contexts (void)
{
  pthread_mutex_lock (&lock);
  const int n = n_contexts;
  pthread_mutex_unlock (&lock);
  return n;
}

static int64_t
now_us (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

static long
env_long (const char *name, long fallback)
{
  const char *v = getenv (name);
  return v && *v ? strtol (v, NULL, 10) : fallback;
}

/* Whether this call of @name is to fail (CR_FAKE_CUDA_FAIL), counting the
 * calls of that name. */
static CUresult
injected (const char *name)
{
  static char counted[64];
  static long calls;
  const char *spec = getenv ("CR_FAKE_CUDA_FAIL");
  if (spec == NULL)
    return SUCCESS;
  const size_t n = strcspn (spec, ":");
  if (strlen (name) != n || strncmp (spec, name, n) != 0)
    return SUCCESS;
  const long which = spec[n] == ':' ? strtol (spec + n + 1, NULL, 10) : 0;
  pthread_mutex_lock (&lock);
  if (strcmp (counted, name) != 0) {
    strncpy (counted, name, sizeof counted - 1);
    calls = 0;
  }
  const long call = ++calls;
  pthread_mutex_unlock (&lock);
  if (which != 0 && call != which)
    return SUCCESS;
  return (CUresult)env_long ("CR_FAKE_CUDA_ERROR", OUT_OF_MEMORY);
}

/* What every entry point that touches the device answers first. */
static CUresult
check (const char *name)
{
  pthread_mutex_lock (&lock);
  const CUresult b = broken;
  pthread_mutex_unlock (&lock);
  return b ? b : injected (name);
}

#define CHECK(name) \
  do { \
    CUresult res_ = check (name); \
    if (res_ != SUCCESS) \
      return res_; \
  } while (0)

/* Work on the device needs a current context, as the driver's does. */
#define CHECK_CTX(name) \
  do { \
    CHECK (name); \
    if (current == NULL) \
      return INVALID_CONTEXT; \
  } while (0)

static void *
alloc (size_t size)
{
  void *p = NULL;
  if (posix_memalign (&p, 256, size ? size : 1) != 0)
    return NULL;
  memset (p, 0, size);
  return p;
}

CUresult
cuInit (unsigned int flags)
{
  return injected ("Init");
}

CUresult
cuDriverGetVersion (int *version)
{
  *version = 13000;
  return SUCCESS;
}

CUresult
cuGetErrorName (CUresult error, const char **name)
{
  for (size_t k = 0; k < sizeof errors / sizeof errors[0]; k++)
    if (errors[k].code == error) {
      *name = errors[k].name;
      return SUCCESS;
    }
  return INVALID_VALUE;
}

CUresult
cuGetErrorString (CUresult error, const char **text)
{
  for (size_t k = 0; k < sizeof errors / sizeof errors[0]; k++)
    if (errors[k].code == error) {
      *text = errors[k].text;
      return SUCCESS;
    }
  return INVALID_VALUE;
}

CUresult
cuDeviceGetCount (int *count)
{
  CHECK ("DeviceGetCount");
  *count = (int)env_long ("CR_FAKE_CUDA_DEVICES", 1);
  return SUCCESS;
}

CUresult
cuDeviceGet (int *device, int ordinal)
{
  CHECK ("DeviceGet");
  if (ordinal < 0 || ordinal >= env_long ("CR_FAKE_CUDA_DEVICES", 1))
    return INVALID_DEVICE;
  *device = ordinal;
  return SUCCESS;
}

CUresult
cuDeviceGetName (char *name, int len, int device)
{
  CHECK ("DeviceGetName");
  strncpy (name, "Fake GPU (tests/check/fake-cuda.c)", len);
  name[len - 1] = '\0';
  return SUCCESS;
}

CUresult
cuDeviceGetAttribute (int *value, int attrib, int device)
{
  CHECK ("DeviceGetAttribute");
  switch (attrib) {
    case 16: /* multiprocessors */
      *value = 4;
      break;
    case 75: /* compute capability */
      *value = 9;
      break;
    case 76:
      *value = 0;
      break;
    default:
      *value = 0;
  }
  return SUCCESS;
}

CUresult
cuCtxCreate_v2 (void **ctx, unsigned int flags, int device)
{
  CHECK ("CtxCreate");
  void *c = malloc (1);
  if (c == NULL)
    return OUT_OF_MEMORY;
  pthread_mutex_lock (&lock);
  n_contexts++;
  pthread_mutex_unlock (&lock);
  if (depth == STACK_DEPTH)
    abort ();
  *ctx = stack[depth++] = c;
  return SUCCESS;
}

CUresult
cuCtxDestroy_v2 (void *ctx)
{
  pthread_mutex_lock (&lock);
  for (size_t k = 0; k < n_resources;)
    if (resources[k].ctx == ctx) {
      free (resources[k].ptr);
      resources[k] = resources[--n_resources];
    } else {
      k++;
    }
  n_contexts--;
  pthread_mutex_unlock (&lock);
  for (int k = 0; k < depth; k++)
    if (stack[k] == ctx)
      stack[k] = NULL;
  free (ctx);
  return SUCCESS;
}

CUresult
cuCtxPushCurrent_v2 (void *ctx)
{
  CHECK ("CtxPushCurrent");
  if (depth == STACK_DEPTH)
    abort ();
  stack[depth++] = ctx;
  return SUCCESS;
}

CUresult
cuCtxPopCurrent_v2 (void **ctx)
{
  if (depth == 0)
    return INVALID_CONTEXT;
  if (ctx)
    *ctx = stack[depth - 1];
  depth--;
  return SUCCESS;
}

CUresult
cuCtxGetDevice (int *device)
{
  CHECK_CTX ("CtxGetDevice");
  *device = 0;
  return SUCCESS;
}

CUresult
cuStreamCreate (void **stream, unsigned int flags)
{
  CHECK_CTX ("StreamCreate");
  *stream = track (calloc (1, sizeof (Stream)));
  return *stream ? SUCCESS : OUT_OF_MEMORY;
}

CUresult
cuStreamDestroy_v2 (void *stream)
{
  return untrack (stream);
}

/* A hung stream never finishes: as the real driver, this waits forever. */
static CUresult
wait_until (int hung, int64_t ready_us)
{
  for (;;) {
    CHECK ("Wait");
    if (!hung && now_us () >= ready_us)
      return SUCCESS;
    usleep (hung ? 10000 : 50);
  }
}

CUresult
cuStreamSynchronize (void *stream)
{
  CHECK_CTX ("StreamSynchronize");
  const Stream *s = stream;
  return wait_until (
      s && s->hung, now_us () + env_long ("CR_FAKE_CUDA_LATENCY_US", 0));
}

CUresult
cuMemAlloc_v2 (CUdeviceptr *ptr, size_t size)
{
  CHECK_CTX ("MemAlloc");
  void *p = track (alloc (size));
  *ptr = (CUdeviceptr)(uintptr_t)p;
  return p ? SUCCESS : OUT_OF_MEMORY;
}

CUresult
cuMemFree_v2 (CUdeviceptr ptr)
{
  return untrack ((void *)(uintptr_t)ptr);
}

CUresult
cuMemAllocHost_v2 (void **ptr, size_t size)
{
  CHECK_CTX ("MemAllocHost");
  *ptr = track (alloc (size));
  return *ptr ? SUCCESS : OUT_OF_MEMORY;
}

CUresult
cuMemFreeHost (void *ptr)
{
  return untrack (ptr);
}

CUresult
cuMemHostAlloc (void **ptr, size_t size, unsigned int flags)
{
  CHECK_CTX ("MemHostAlloc");
  *ptr = track (alloc (size));
  return *ptr ? SUCCESS : OUT_OF_MEMORY;
}

CUresult
cuMemHostGetDevicePointer_v2 (CUdeviceptr *dptr, void *ptr, unsigned int flags)
{
  CHECK_CTX ("MemHostGetDevicePointer");
  *dptr = (CUdeviceptr)(uintptr_t)ptr;
  return SUCCESS;
}

CUresult
cuMemHostRegister_v2 (void *ptr, size_t size, unsigned int flags)
{
  CHECK_CTX ("MemHostRegister");
  return SUCCESS;
}

CUresult
cuMemHostUnregister (void *ptr)
{
  return SUCCESS;
}

CUresult
cuMemcpyHtoDAsync_v2 (CUdeviceptr dst, const void *src, size_t size, void *s)
{
  CHECK_CTX ("MemcpyHtoDAsync");
  memcpy ((void *)(uintptr_t)dst, src, size);
  return SUCCESS;
}

CUresult
cuMemcpyDtoHAsync_v2 (void *dst, CUdeviceptr src, size_t size, void *s)
{
  CHECK_CTX ("MemcpyDtoHAsync");
  memcpy (dst, (const void *)(uintptr_t)src, size);
  return SUCCESS;
}

CUresult
cuMemcpyDtoDAsync_v2 (CUdeviceptr dst, CUdeviceptr src, size_t size, void *s)
{
  CHECK_CTX ("MemcpyDtoDAsync");
  memmove ((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, size);
  return SUCCESS;
}

CUresult
cuMemcpy2DAsync_v2 (const CrMemcpy2D *c, void *s)
{
  CHECK_CTX ("Memcpy2DAsync");
  const char *src = c->srcMemoryType == CU_MEMORYTYPE_HOST
      ? c->srcHost
      : (const char *)(uintptr_t)c->srcDevice;
  char *dst = c->dstMemoryType == CU_MEMORYTYPE_HOST
      ? c->dstHost
      : (char *)(uintptr_t)c->dstDevice;
  if (c->WidthInBytes > c->srcPitch || c->WidthInBytes > c->dstPitch)
    return INVALID_VALUE;
  src += c->srcY * c->srcPitch + c->srcXInBytes;
  dst += c->dstY * c->dstPitch + c->dstXInBytes;
  for (size_t r = 0; r < c->Height; r++)
    memcpy (dst + r * c->dstPitch, src + r * c->srcPitch, c->WidthInBytes);
  return SUCCESS;
}

CUresult
cuMemsetD8Async (CUdeviceptr dst, unsigned char value, size_t n, void *s)
{
  CHECK_CTX ("MemsetD8Async");
  memset ((void *)(uintptr_t)dst, value, n);
  return SUCCESS;
}

CUresult
cuModuleLoadData (void **module, const void *image)
{
  CHECK_CTX ("ModuleLoadData");
  Module *m = track (calloc (1, sizeof (Module)));
  if (m == NULL)
    return OUT_OF_MEMORY;
  /* Images are NUL-terminated text (fake-nvrtc.c's), or at least start
   * with something that is not one of the markers. */
  m->hangs = strstr (image, "never ends") != NULL;
  m->faults = strstr (image, "faults") != NULL;
  *module = m;
  return SUCCESS;
}

CUresult
cuModuleUnload (void *module)
{
  return untrack (module);
}

CUresult
cuModuleGetFunction (void **fn, void *module, const char *name)
{
  CHECK_CTX ("ModuleGetFunction");
  /* A module's functions behave alike: the module stands for each. */
  *fn = module;
  return SUCCESS;
}

CUresult
cuOccupancyMaxActiveBlocksPerMultiprocessor (
    int *blocks, void *fn, int block_size, size_t dynamic_smem)
{
  CHECK ("OccupancyMaxActiveBlocksPerMultiprocessor");
  *blocks = 2048 / (block_size > 0 ? block_size : 256);
  return SUCCESS;
}

CUresult
cuFuncGetAttribute (int *value, int attrib, void *fn)
{
  CHECK ("FuncGetAttribute");
  *value = attrib == 4 ? 32 : 0; /* registers; no local memory */
  return SUCCESS;
}

CUresult
cuLaunchKernel (void *fn, unsigned int gx, unsigned int gy, unsigned int gz,
    unsigned int bx, unsigned int by, unsigned int bz, unsigned int smem,
    void *stream, void **params, void **extra)
{
  CHECK_CTX ("LaunchKernel");
  const Module *m = fn;
  if (gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0
      || (size_t)bx * by * bz > 1024)
    return INVALID_VALUE;
  if (m->hangs && stream)
    ((Stream *)stream)->hung = 1;
  if (m->faults && stream)
    ((Stream *)stream)->faulted = 1;
  return SUCCESS;
}

CUresult
cuEventCreate (void **event, unsigned int flags)
{
  CHECK_CTX ("EventCreate");
  *event = track (calloc (1, sizeof (Event)));
  return *event ? SUCCESS : OUT_OF_MEMORY;
}

CUresult
cuEventDestroy_v2 (void *event)
{
  return untrack (event);
}

CUresult
cuEventRecord (void *event, void *stream)
{
  CHECK_CTX ("EventRecord");
  Event *e = event;
  const Stream *s = stream;
  e->recorded = 1;
  e->hung = s && s->hung;
  e->faults = s && s->faulted;
  e->ready_us = now_us () + env_long ("CR_FAKE_CUDA_LATENCY_US", 0);
  return SUCCESS;
}

/* The work before @e has finished: a fault in it breaks the context. */
static CUresult
finished (const Event *e)
{
  if (!e->faults)
    return SUCCESS;
  pthread_mutex_lock (&lock);
  broken = ILLEGAL_ADDRESS;
  pthread_mutex_unlock (&lock);
  return ILLEGAL_ADDRESS;
}

CUresult
cuEventQuery (void *event)
{
  CHECK ("EventQuery");
  const Event *e = event;
  return e->hung || now_us () < e->ready_us ? NOT_READY : finished (e);
}

CUresult
cuEventSynchronize (void *event)
{
  CHECK ("EventSynchronize");
  const Event *e = event;
  const CUresult res = wait_until (e->hung, e->ready_us);
  return res ? res : finished (e);
}

CUresult
cuEventElapsedTime_v2 (float *ms, void *start, void *end)
{
  CHECK ("EventElapsedTime");
  const Event *a = start, *b = end;
  *ms = (float)(b->ready_us - a->ready_us) / 1000.0f;
  return SUCCESS;
}
