/* cr-cuda.h: the one place that knows the CUDA driver API and NVRTC.
 *
 * Both libraries are opened at run time with GModule, so the plugin builds
 * without a CUDA toolkit and registers on machines without a driver. Only the
 * handful of types and entry points the engine uses are declared here; their
 * layouts are part of the stable driver ABI. */
#pragma once

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

G_BEGIN_DECLS

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;

#define CUDA_SUCCESS 0
#define CUDA_ERROR_NOT_READY 600
#define CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT 16
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76
#define CU_CTX_SCHED_BLOCKING_SYNC 0x04
#define CU_STREAM_NON_BLOCKING 0x1
#define CU_MEMORYTYPE_HOST 0x01
#define CU_MEMORYTYPE_DEVICE 0x02
#define CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES 3
#define CU_FUNC_ATTRIBUTE_NUM_REGS 4
#define CU_EVENT_BLOCKING_SYNC 0x1
#define CU_EVENT_DISABLE_TIMING 0x2
#define CU_MEMHOSTALLOC_PORTABLE 0x01
#define CU_MEMHOSTALLOC_DEVICEMAP 0x02
#define CU_MEMHOSTREGISTER_PORTABLE 0x01
#define CU_MEMHOSTREGISTER_DEVICEMAP 0x02

typedef struct {
  size_t srcXInBytes, srcY;
  int srcMemoryType;
  const void *srcHost;
  CUdeviceptr srcDevice;
  void *srcArray;
  size_t srcPitch;
  size_t dstXInBytes, dstY;
  int dstMemoryType;
  void *dstHost;
  CUdeviceptr dstDevice;
  void *dstArray;
  size_t dstPitch;
  size_t WidthInBytes, Height;
} CrMemcpy2D;

/* Driver entry points, resolved by their ABI-stable (_v2) symbol names. */
typedef struct {
  CUresult (*Init) (unsigned int flags);
  CUresult (*DriverGetVersion) (int *version);
  CUresult (*GetErrorName) (CUresult error, const char **name);
  CUresult (*GetErrorString) (CUresult error, const char **str);
  CUresult (*DeviceGetCount) (int *count);
  CUresult (*DeviceGet) (CUdevice *device, int ordinal);
  CUresult (*DeviceGetName) (char *name, int len, CUdevice dev);
  CUresult (*DeviceGetAttribute) (int *value, int attrib, CUdevice dev);
  CUresult (*CtxCreate) (CUcontext *ctx, unsigned int flags, CUdevice dev);
  CUresult (*CtxDestroy) (CUcontext ctx);
  CUresult (*CtxPushCurrent) (CUcontext ctx);
  CUresult (*CtxPopCurrent) (CUcontext *ctx);
  CUresult (*CtxGetDevice) (CUdevice *device);
  CUresult (*StreamCreate) (CUstream *stream, unsigned int flags);
  CUresult (*StreamDestroy) (CUstream stream);
  CUresult (*StreamSynchronize) (CUstream stream);
  CUresult (*MemAlloc) (CUdeviceptr *ptr, size_t size);
  CUresult (*MemFree) (CUdeviceptr ptr);
  CUresult (*MemAllocHost) (void **ptr, size_t size);
  CUresult (*MemFreeHost) (void *ptr);
  CUresult (*MemcpyHtoDAsync) (
      CUdeviceptr dst, const void *src, size_t size, CUstream stream);
  CUresult (*MemcpyDtoHAsync) (
      void *dst, CUdeviceptr src, size_t size, CUstream stream);
  CUresult (*Memcpy2DAsync) (const CrMemcpy2D *copy, CUstream stream);
  CUresult (*MemsetD8Async) (
      CUdeviceptr dst, unsigned char value, size_t n, CUstream stream);
  CUresult (*ModuleLoadData) (CUmodule *module, const void *image);
  CUresult (*ModuleUnload) (CUmodule module);
  CUresult (*ModuleGetFunction) (
      CUfunction *fn, CUmodule module, const char *name);
  CUresult (*OccupancyMaxActiveBlocksPerMultiprocessor) (
      int *blocks, CUfunction fn, int block_size, size_t dynamic_smem);
  CUresult (*LaunchKernel) (CUfunction fn, unsigned int gx, unsigned int gy,
      unsigned int gz, unsigned int bx, unsigned int by, unsigned int bz,
      unsigned int smem, CUstream stream, void **params, void **extra);
  CUresult (*FuncGetAttribute) (int *value, int attrib, CUfunction fn);
  /* Host memory the GPU reads in place: allocated pinned and mapped, or
   * ordinary memory registered with the driver. */
  CUresult (*MemHostAlloc) (void **ptr, size_t size, unsigned int flags);
  CUresult (*MemHostGetDevicePointer) (
      CUdeviceptr *dptr, void *ptr, unsigned int flags);
  CUresult (*MemHostRegister) (void *ptr, size_t size, unsigned int flags);
  CUresult (*MemHostUnregister) (void *ptr);
  /* For timing, in benchmarks. */
  CUresult (*MemcpyDtoDAsync) (
      CUdeviceptr dst, CUdeviceptr src, size_t size, CUstream stream);
  CUresult (*EventCreate) (CUevent *event, unsigned int flags);
  CUresult (*EventDestroy) (CUevent event);
  CUresult (*EventRecord) (CUevent event, CUstream stream);
  CUresult (*EventSynchronize) (CUevent event);
  CUresult (*EventQuery) (CUevent event);
  CUresult (*EventElapsedTime) (float *ms, CUevent start, CUevent end);
} CrDriver;

typedef int nvrtcResult;
/* nvrtcCompileProgram's answer to source that does not compile. */
#define NVRTC_ERROR_INVALID_OPTION 5
#define NVRTC_ERROR_COMPILATION 6
typedef struct _nvrtcProgram *nvrtcProgram;

typedef struct {
  const char *(*GetErrorString) (nvrtcResult result);
  nvrtcResult (*Version) (int *major, int *minor);
  nvrtcResult (*GetNumSupportedArchs) (int *count);
  nvrtcResult (*GetSupportedArchs) (int *archs);
  nvrtcResult (*CreateProgram) (nvrtcProgram *prog, const char *src,
      const char *name, int n_headers, const char *const *headers,
      const char *const *include_names);
  nvrtcResult (*DestroyProgram) (nvrtcProgram *prog);
  nvrtcResult (*CompileProgram) (
      nvrtcProgram prog, int n_options, const char *const *options);
  nvrtcResult (*GetProgramLogSize) (nvrtcProgram prog, size_t *size);
  nvrtcResult (*GetProgramLog) (nvrtcProgram prog, char *log);
  nvrtcResult (*GetPTXSize) (nvrtcProgram prog, size_t *size);
  nvrtcResult (*GetPTX) (nvrtcProgram prog, char *ptx);
  /* Absent from NVRTC before 11.1; then only PTX can be produced. */
  nvrtcResult (*GetCUBINSize) (nvrtcProgram prog, size_t *size);
  nvrtcResult (*GetCUBIN) (nvrtcProgram prog, char *cubin);
} CrNvrtc;

/* Each returns the process-wide table, opening the library on first use, or
 * NULL with an error that says what was looked for and where. Thread-safe. */
const CrDriver *cr_cuda_driver (GError **error);
const CrNvrtc *cr_cuda_nvrtc (GError **error);

/* Whether the driver library opens and has every entry point, without
 * initialising it (no cuInit, so a process may still fork and use CUDA in
 * the child); else FALSE and *@failure says what was tried. For
 * registration, where a GPU need not be present. */
gboolean cr_cuda_driver_library_present (gchar **failure);

/* NVRTC's table when this process has opened it already, else NULL: never
 * opens it (opening NVRTC, a library of 100 MB, takes milliseconds). */
const CrNvrtc *cr_cuda_nvrtc_if_open (void);

/* The file the open NVRTC was loaded from, or NULL when it is not open. */
gchar *cr_cuda_nvrtc_file (void);

/* What decides which file cr_cuda_nvrtc opens, as text: the variables its
 * search reads, and the program and the dynamic loader's cache, which
 * decide where a bare soname is found. Where the text is the same and the
 * file opened before is unchanged, that file is the one that would be
 * opened again, unless a library was copied into a directory searched
 * earlier without running ldconfig. */
gchar *cr_cuda_nvrtc_search (void);

/* @path with what tells it from a replacement: device, inode, size and
 * modification time ("absent" when it cannot be read). */
gchar *cr_cuda_file_identity (const gchar *path);

/* "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)" */
gchar *cr_cuda_describe (CUresult result);

/* Sets @error from a failed driver call; returns FALSE so callers can
 * `return cr_cuda_fail (...)`. */
gboolean cr_cuda_fail (GError **error, CUresult result, const gchar *what);

/* Waits for @event as cuEventSynchronize does, but for at most @timeout_us
 * (0 or less: for ever), then fails with CR_ERROR_GPU_TIMEOUT. The context
 * is current. */
gboolean cr_cuda_wait_event (
    const CrDriver *cu, CUevent event, gint64 timeout_us, GError **error);

/* Returns FALSE from the calling function, with @error set (a GError ** of
 * that name must be in scope), when the driver call @call fails. */
#define CR_CHECK(call, what) \
  G_STMT_START \
  { \
    CUresult res_ = (call); \
    if (res_ != CUDA_SUCCESS) \
      return cr_cuda_fail (error, res_, what); \
  } \
  G_STMT_END

G_END_DECLS
