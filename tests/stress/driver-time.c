/* driver-time.c: what the CUDA driver's calls cost the element, thread by
 * thread. Built as a library that the element opens as its driver
 * (GST_CUDAREDUCE_DRIVER_LIBRARY): each entry point the element resolves
 * (plugin/cr-cuda.c's table) forwards to the real driver
 * (CR_DRIVER_TIME_REAL, default libcuda.so.1) and counts the call and its
 * wall time against the calling thread's name. At exit it prints, to
 * stderr, one line a thread and entry point:
 *
 *   driver-time THREAD ENTRY CALLS NANOSECONDS
 *
 * tests/stress/driver-time.sh turns them into a table per buffer. Wall
 * time, not CPU time: a call that waits (cuEventSynchronize) counts its
 * wait; the others do not wait, and the clock (CLOCK_MONOTONIC, read in
 * user space) costs tens of nanoseconds a call.
 *
 * The driver's entry points take integers and pointers only, at most 11
 * (cuLaunchKernel), so one forwarder of 12 integer arguments serves all:
 * on x86-64 and AArch64 the extra ones are registers or stack slots that
 * the real function never reads. Only for measuring; never shipped. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

typedef uintptr_t A;
typedef int (*Entry) (A, A, A, A, A, A, A, A, A, A, A, A);

#define ENTRIES(X) \
  X (cuInit) \
  X (cuDriverGetVersion) \
  X (cuGetErrorName) \
  X (cuGetErrorString) \
  X (cuDeviceGetCount) \
  X (cuDeviceGet) \
  X (cuDeviceGetName) \
  X (cuDeviceGetAttribute) \
  X (cuCtxCreate_v2) \
  X (cuCtxDestroy_v2) \
  X (cuCtxPushCurrent_v2) \
  X (cuCtxPopCurrent_v2) \
  X (cuCtxGetDevice) \
  X (cuStreamCreate) \
  X (cuStreamDestroy_v2) \
  X (cuStreamSynchronize) \
  X (cuMemAlloc_v2) \
  X (cuMemFree_v2) \
  X (cuMemAllocHost_v2) \
  X (cuMemFreeHost) \
  X (cuMemcpyHtoDAsync_v2) \
  X (cuMemcpyDtoHAsync_v2) \
  X (cuMemcpy2DAsync_v2) \
  X (cuMemsetD8Async) \
  X (cuModuleLoadData) \
  X (cuModuleUnload) \
  X (cuModuleGetFunction) \
  X (cuOccupancyMaxActiveBlocksPerMultiprocessor) \
  X (cuLaunchKernel) \
  X (cuFuncGetAttribute) \
  X (cuMemHostAlloc) \
  X (cuMemHostGetDevicePointer_v2) \
  X (cuMemHostRegister_v2) \
  X (cuMemHostUnregister) \
  X (cuMemcpyDtoDAsync_v2) \
  X (cuEventCreate) \
  X (cuEventDestroy_v2) \
  X (cuEventRecord) \
  X (cuEventSynchronize) \
  X (cuEventQuery) \
  X (cuEventElapsedTime_v2)

#define ID(name) ID_##name,
enum { ENTRIES (ID) N_ENTRIES };
#undef ID

#define NAME(name) #name,
static const char *const names[] = { ENTRIES (NAME) };
#undef NAME

static Entry real[N_ENTRIES];
static pthread_once_t resolved = PTHREAD_ONCE_INIT;

static void
resolve (void)
{
  const char *path = getenv ("CR_DRIVER_TIME_REAL");
  void *lib = dlopen (path ? path : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    fprintf (stderr, "driver-time: %s\n", dlerror ());
    return;
  }
  for (int k = 0; k < N_ENTRIES; k++)
    real[k] = (Entry)dlsym (lib, names[k]);
}

/* One thread's tallies: allocated once, never freed, so that exit can
 * read those of threads that are gone. */
typedef struct Tally {
  char thread[16];
  long calls[N_ENTRIES];
  long long ns[N_ENTRIES];
  struct Tally *next;
} Tally;

static Tally *tallies;
static pthread_mutex_t tallies_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread Tally *mine;

static Tally *
my_tally (void)
{
  if (mine == NULL) {
    mine = calloc (1, sizeof *mine);
    prctl (PR_GET_NAME, mine->thread);
    pthread_mutex_lock (&tallies_lock);
    mine->next = tallies;
    tallies = mine;
    pthread_mutex_unlock (&tallies_lock);
  }
  return mine;
}

static long long
now_ns (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int
forward (int id, A a0, A a1, A a2, A a3, A a4, A a5, A a6, A a7, A a8, A a9,
    A a10, A a11)
{
  pthread_once (&resolved, resolve);
  if (real[id] == NULL)
    return 3; /* CUDA_ERROR_NOT_INITIALIZED */
  Tally *t = my_tally ();
  const long long t0 = now_ns ();
  const int res = real[id](a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11);
  t->ns[id] += now_ns () - t0;
  t->calls[id]++;
  return res;
}

#define DEFINE(name) \
  int name (A a0, A a1, A a2, A a3, A a4, A a5, A a6, A a7, A a8, A a9, A a10, \
      A a11) \
  { \
    return forward ( \
        ID_##name, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11); \
  }
ENTRIES (DEFINE)
#undef DEFINE

__attribute__ ((destructor)) static void
report (void)
{
  pthread_mutex_lock (&tallies_lock);
  for (const Tally *t = tallies; t; t = t->next)
    for (int k = 0; k < N_ENTRIES; k++)
      if (t->calls[k] > 0)
        fprintf (stderr, "driver-time %s %s %ld %lld\n",
            t->thread[0] ? t->thread : "?", names[k], t->calls[k], t->ns[k]);
  pthread_mutex_unlock (&tallies_lock);
}
