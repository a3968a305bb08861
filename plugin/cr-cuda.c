/* cr-cuda.c: opens the CUDA driver and NVRTC at run time.
 *
 * Modelled on how GStreamer's CUDA library does it: look for the library by
 * its usual sonames, resolve every symbol up front so a missing one is found
 * once and reported clearly, and remember the outcome for the process. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif
#include "cr-cuda.h"

#include "cr-error.h"

#include <dlfcn.h>
#include <gmodule.h>
#include <sys/stat.h>

GQuark
cr_error_quark (void)
{
  return g_quark_from_static_string ("cr-error-quark");
}

typedef struct {
  const gchar *symbol;
  gsize offset;
  gboolean optional;
  const gchar *fallback; /* an older name for the same entry point */
} CrSymbol;

/* clang-format off */
#define DRV(field, sym) { sym, G_STRUCT_OFFSET (CrDriver, field), FALSE, NULL }
#define DRV_OR(field, sym, old) \
  { sym, G_STRUCT_OFFSET (CrDriver, field), FALSE, old }
#define RTC(field, sym, opt) { sym, G_STRUCT_OFFSET (CrNvrtc, field), opt, NULL }
/* clang-format on */
static const CrSymbol driver_symbols[] = {
  DRV (Init, "cuInit"),
  DRV (DriverGetVersion, "cuDriverGetVersion"),
  DRV (GetErrorName, "cuGetErrorName"),
  DRV (GetErrorString, "cuGetErrorString"),
  DRV (DeviceGetCount, "cuDeviceGetCount"),
  DRV (DeviceGet, "cuDeviceGet"),
  DRV (DeviceGetName, "cuDeviceGetName"),
  DRV (DeviceGetAttribute, "cuDeviceGetAttribute"),
  DRV (CtxCreate, "cuCtxCreate_v2"),
  DRV (CtxDestroy, "cuCtxDestroy_v2"),
  DRV (CtxPushCurrent, "cuCtxPushCurrent_v2"),
  DRV (CtxPopCurrent, "cuCtxPopCurrent_v2"),
  DRV (CtxGetDevice, "cuCtxGetDevice"),
  DRV (StreamCreate, "cuStreamCreate"),
  DRV (StreamDestroy, "cuStreamDestroy_v2"),
  DRV (StreamSynchronize, "cuStreamSynchronize"),
  DRV (MemAlloc, "cuMemAlloc_v2"),
  DRV (MemFree, "cuMemFree_v2"),
  DRV (MemAllocHost, "cuMemAllocHost_v2"),
  DRV (MemFreeHost, "cuMemFreeHost"),
  DRV (MemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2"),
  DRV (MemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2"),
  DRV (Memcpy2DAsync, "cuMemcpy2DAsync_v2"),
  DRV (MemsetD8Async, "cuMemsetD8Async"),
  DRV (ModuleLoadData, "cuModuleLoadData"),
  DRV (ModuleUnload, "cuModuleUnload"),
  DRV (ModuleGetFunction, "cuModuleGetFunction"),
  DRV (OccupancyMaxActiveBlocksPerMultiprocessor,
      "cuOccupancyMaxActiveBlocksPerMultiprocessor"),
  DRV (LaunchKernel, "cuLaunchKernel"),
  DRV (FuncGetAttribute, "cuFuncGetAttribute"),
  DRV (MemHostAlloc, "cuMemHostAlloc"),
  DRV (MemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2"),
  DRV_OR (MemHostRegister, "cuMemHostRegister_v2", "cuMemHostRegister"),
  DRV (MemHostUnregister, "cuMemHostUnregister"),
  DRV (MemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2"),
  DRV (EventCreate, "cuEventCreate"),
  DRV (EventDestroy, "cuEventDestroy_v2"),
  DRV (EventRecord, "cuEventRecord"),
  DRV (EventSynchronize, "cuEventSynchronize"),
  DRV (EventQuery, "cuEventQuery"),
  /* CUDA 13 renamed it; drivers before 12.8 have only the old name. */
  DRV_OR (EventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime"),
};
#undef DRV

static const CrSymbol nvrtc_symbols[] = {
  RTC (GetErrorString, "nvrtcGetErrorString", FALSE),
  RTC (Version, "nvrtcVersion", FALSE),
  RTC (GetNumSupportedArchs, "nvrtcGetNumSupportedArchs", TRUE),
  RTC (GetSupportedArchs, "nvrtcGetSupportedArchs", TRUE),
  RTC (CreateProgram, "nvrtcCreateProgram", FALSE),
  RTC (DestroyProgram, "nvrtcDestroyProgram", FALSE),
  RTC (CompileProgram, "nvrtcCompileProgram", FALSE),
  RTC (GetProgramLogSize, "nvrtcGetProgramLogSize", FALSE),
  RTC (GetProgramLog, "nvrtcGetProgramLog", FALSE),
  RTC (GetPTXSize, "nvrtcGetPTXSize", FALSE),
  RTC (GetPTX, "nvrtcGetPTX", FALSE),
  RTC (GetCUBINSize, "nvrtcGetCUBINSize", TRUE),
  RTC (GetCUBIN, "nvrtcGetCUBIN", TRUE),
};
#undef RTC

/* Opens the first of @candidates that loads and resolves every required
 * symbol into @table. */
static gboolean
open_library (GPtrArray *candidates, const CrSymbol *symbols, gsize n_symbols,
    gpointer table, GString *tried)
{
  for (guint c = 0; c < candidates->len; c++) {
    const gchar *name = g_ptr_array_index (candidates, c);
    GModule *module = g_module_open (name, G_MODULE_BIND_LAZY);
    if (module == NULL) {
      g_string_append_printf (tried, "\n  %s: %s", name, g_module_error ());
      continue;
    }
    gboolean complete = TRUE;
    for (gsize s = 0; s < n_symbols; s++) {
      gpointer *slot = G_STRUCT_MEMBER_P (table, symbols[s].offset);
      *slot = NULL;
      if (!g_module_symbol (module, symbols[s].symbol, slot)
          && !(symbols[s].fallback
              && g_module_symbol (module, symbols[s].fallback, slot))
          && !symbols[s].optional) {
        g_string_append_printf (
            tried, "\n  %s: lacks %s", name, symbols[s].symbol);
        complete = FALSE;
        break;
      }
    }
    if (complete) {
      g_module_make_resident (module);
      return TRUE;
    }
    g_module_close (module);
  }
  return FALSE;
}

#define CUDA_ERROR_NO_DEVICE 100
/* cuInit's answer from the CUDA toolkit's stub libcuda.so (lib64/stubs),
 * which programs link against at build time but which drives no GPU. */
#define CUDA_ERROR_STUB_LIBRARY 34

/* Opens the driver library into @driver, without initialising it. */
static gboolean
open_driver (CrDriver *driver, gchar **failure)
{
  g_autoptr (GPtrArray) candidates = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GString) tried = g_string_new (NULL);
  /* A debugging aid, and how tests simulate a machine without a driver. */
  const gchar *override = g_getenv ("GST_CUDAREDUCE_DRIVER_LIBRARY");

  g_ptr_array_add (candidates, g_strdup (override ? override : "libcuda.so.1"));
  if (!override)
    g_ptr_array_add (candidates, g_strdup ("libcuda.so"));
  if (!open_library (candidates, driver_symbols, G_N_ELEMENTS (driver_symbols),
          driver, tried)) {
    *failure = g_strdup_printf ("The CUDA driver library could not be opened; "
                                "install the NVIDIA driver. Tried:%s",
        tried->str);
    return FALSE;
  }
  return TRUE;
}

gboolean
cr_cuda_driver_library_present (gchar **failure)
{
  CrDriver scratch;
  return open_driver (&scratch, failure);
}

static const CrDriver *
load_driver (gchar **failure, CrError *code)
{
  static CrDriver driver;

  if (!open_driver (&driver, failure))
    return NULL;
  CUresult res = driver.Init (0);
  if (res == CUDA_ERROR_NO_DEVICE) {
    *code = CR_ERROR_NO_DEVICE;
    *failure =
        g_strdup ("The CUDA driver reports no GPU; check that an "
                  "NVIDIA GPU is present and visible (CUDA_VISIBLE_DEVICES)");
    return NULL;
  }
  if (res == CUDA_ERROR_STUB_LIBRARY) {
    Dl_info info = { 0 };
    const gchar *path = dladdr ((gpointer)driver.Init, &info) && info.dli_fname
        ? info.dli_fname
        : "libcuda.so";
    *failure = g_strdup_printf (
        "The CUDA driver library found first, %s, is the CUDA toolkit's stub, "
        "which drives no GPU; take the toolkit's stubs directory out of "
        "LD_LIBRARY_PATH so that the NVIDIA driver's libcuda.so.1 is found "
        "(or install the driver)",
        path);
    return NULL;
  }
  if (res != CUDA_SUCCESS) {
    const char *name = NULL;
    if (driver.GetErrorName (res, &name) != CUDA_SUCCESS)
      name = "unknown error";
    *failure = g_strdup_printf (
        "The CUDA driver failed to initialise (%s); "
        "check that an NVIDIA GPU and a matching driver are installed",
        name);
    return NULL;
  }
  return &driver;
}

static void
add_nvrtc_dir_candidates (
    GPtrArray *candidates, const gchar *dir, const gchar *const *sonames)
{
  if (dir == NULL || *dir == '\0')
    return;
  for (const gchar *const *sub = (const gchar *[]){ "lib64", "lib", NULL };
       *sub; sub++)
    for (const gchar *const *so = sonames; *so; so++)
      g_ptr_array_add (candidates, g_build_filename (dir, *sub, *so, NULL));
}

static const CrNvrtc *
load_nvrtc (gchar **failure)
{
  static CrNvrtc nvrtc;
  static const gchar *const sonames[] = { "libnvrtc.so", "libnvrtc.so.13",
    "libnvrtc.so.12", "libnvrtc.so.11.2", NULL };
  g_autoptr (GPtrArray) candidates = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GString) tried = g_string_new (NULL);
  const gchar *override = g_getenv ("GST_CUDAREDUCE_NVRTC_LIBRARY");

  if (override) {
    g_ptr_array_add (candidates, g_strdup (override));
  } else {
    for (const gchar *const *so = sonames; *so; so++)
      g_ptr_array_add (candidates, g_strdup (*so));
    add_nvrtc_dir_candidates (candidates, g_getenv ("CUDA_PATH"), sonames);
    add_nvrtc_dir_candidates (candidates, g_getenv ("CUDA_HOME"), sonames);
    add_nvrtc_dir_candidates (candidates, "/usr/local/cuda", sonames);
  }
  if (!open_library (candidates, nvrtc_symbols, G_N_ELEMENTS (nvrtc_symbols),
          &nvrtc, tried)) {
    *failure = g_strdup_printf (
        "NVRTC (libnvrtc.so) could not be opened; "
        "install the CUDA runtime compiler or set CUDA_PATH. Tried:%s",
        tried->str);
    return NULL;
  }
  return &nvrtc;
}

/* The outcome of the first attempt is kept: a library that was missing does
 * not appear while the process runs, and retrying costs a directory scan. */
typedef struct {
  gconstpointer table;
  gchar *failure;
  CrError code;
} CrLoaded;

static gboolean
take_loaded (const CrLoaded *loaded, GError **error)
{
  if (loaded->table)
    return TRUE;
  g_set_error_literal (error, CR_ERROR, loaded->code, loaded->failure);
  return FALSE;
}

const CrDriver *
cr_cuda_driver (GError **error)
{
  static CrLoaded loaded;
  static gsize once = 0;
  if (g_once_init_enter (&once)) {
    loaded.code = CR_ERROR_NO_DRIVER;
    loaded.table = load_driver (&loaded.failure, &loaded.code);
    g_once_init_leave (&once, 1);
  }
  return take_loaded (&loaded, error) ? loaded.table : NULL;
}

static CrLoaded nvrtc_loaded;
static gint nvrtc_is_open; /* atomic: set once nvrtc_loaded has its table */

const CrNvrtc *
cr_cuda_nvrtc (GError **error)
{
  static gsize once = 0;
  if (g_once_init_enter (&once)) {
    nvrtc_loaded.code = CR_ERROR_NO_NVRTC;
    nvrtc_loaded.table = load_nvrtc (&nvrtc_loaded.failure);
    g_atomic_int_set (&nvrtc_is_open, nvrtc_loaded.table != NULL);
    g_once_init_leave (&once, 1);
  }
  return take_loaded (&nvrtc_loaded, error) ? nvrtc_loaded.table : NULL;
}

const CrNvrtc *
cr_cuda_nvrtc_if_open (void)
{
  return g_atomic_int_get (&nvrtc_is_open) ? nvrtc_loaded.table : NULL;
}

gchar *
cr_cuda_nvrtc_file (void)
{
  const CrNvrtc *rtc = cr_cuda_nvrtc_if_open ();
  Dl_info info;
  if (rtc == NULL || dladdr ((void *)rtc->Version, &info) == 0
      || info.dli_fname == NULL || !g_path_is_absolute (info.dli_fname))
    return NULL;
  return g_strdup (info.dli_fname);
}

gchar *
cr_cuda_file_identity (const gchar *path)
{
  struct stat st;
  if (stat (path, &st) != 0)
    return g_strdup_printf ("%s: absent", path);
  return g_strdup_printf ("%s: device %" G_GUINT64_FORMAT
                          " inode %" G_GUINT64_FORMAT " size %" G_GINT64_FORMAT
                          " modified %" G_GINT64_FORMAT ".%09ld",
      path, (guint64)st.st_dev, (guint64)st.st_ino, (gint64)st.st_size,
      (gint64)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec);
}

gchar *
cr_cuda_nvrtc_search (void)
{
  /* What load_nvrtc reads, and what the dynamic loader reads to find a
   * bare soname: LD_LIBRARY_PATH, the program's own run path, and its
   * cache, which ldconfig rewrites whenever a library is installed. */
  static const gchar *const variables[] = { "GST_CUDAREDUCE_NVRTC_LIBRARY",
    "LD_LIBRARY_PATH", "CUDA_PATH", "CUDA_HOME", NULL };
  GString *search = g_string_new (NULL);
  for (const gchar *const *v = variables; *v; v++) {
    const gchar *value = g_getenv (*v);
    g_string_append_printf (
        search, "%s%s%s\n", *v, value ? "=" : " unset", value ? value : "");
  }
  g_autofree gchar *program = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree gchar *program_id =
      cr_cuda_file_identity (program ? program : "/proc/self/exe");
  g_autofree gchar *loader_id = cr_cuda_file_identity ("/etc/ld.so.cache");
  g_string_append_printf (search, "%s\n%s\n", program_id, loader_id);
  return g_string_free (search, FALSE);
}

gchar *
cr_cuda_describe (CUresult result)
{
  const CrDriver *cu = cr_cuda_driver (NULL);
  const char *name = NULL, *text = NULL;
  if (cu == NULL || cu->GetErrorName (result, &name) != CUDA_SUCCESS)
    return g_strdup_printf ("CUDA error %d", result);
  if (cu->GetErrorString (result, &text) != CUDA_SUCCESS || text == NULL)
    return g_strdup (name);
  return g_strdup_printf ("%s (%s)", name, text);
}

gboolean
cr_cuda_fail (GError **error, CUresult result, const gchar *what)
{
  g_autofree gchar *desc = cr_cuda_describe (result);
  g_set_error (error, CR_ERROR, CR_ERROR_CUDA, "%s failed: %s", what, desc);
  return FALSE;
}

gboolean
cr_cuda_wait_event (
    const CrDriver *cu, CUevent event, gint64 timeout_us, GError **error)
{
  if (timeout_us <= 0) {
    CR_CHECK (cu->EventSynchronize (event), "Waiting for the GPU");
    return TRUE;
  }
  /* The driver has no timed wait: poll, sleeping longer each time, up to
   * a millisecond, so that a short wait costs little and a long one
   * little CPU. */
  const gint64 start = g_get_monotonic_time ();
  gulong nap_us = 10;
  for (;;) {
    CUresult res = cu->EventQuery (event);
    if (res == CUDA_SUCCESS)
      return TRUE;
    if (res != CUDA_ERROR_NOT_READY)
      return cr_cuda_fail (error, res, "Waiting for the GPU");
    const gint64 waited = g_get_monotonic_time () - start;
    if (waited >= timeout_us) {
      g_set_error (error, CR_ERROR, CR_ERROR_GPU_TIMEOUT,
          "The GPU did not finish earlier work in %.1f s: a monoid's code "
          "may never end",
          waited / 1e6);
      return FALSE;
    }
    g_usleep (nap_us);
    nap_us = MIN (nap_us * 2, 1000);
  }
}
