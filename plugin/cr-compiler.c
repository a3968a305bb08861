/* cr-compiler.c: NVRTC, through the disk cache of cr-cache.c. */
#define G_LOG_DOMAIN "cudareduce"

#include "cr-compiler.h"

#include "cr-cache.h"
#include "cr-cuda.h"
#include "cr-error.h"

#include <string.h>

void
cr_compiled_free (CrCompiled *compiled)
{
  if (compiled == NULL)
    return;
  g_clear_pointer (&compiled->image, g_bytes_unref);
  g_free (compiled->target);
  g_free (compiled->log);
  g_free (compiled);
}

gchar *
cr_nvrtc_version (GError **error)
{
  const CrNvrtc *rtc = cr_cuda_nvrtc (error);
  int major = 0, minor = 0;
  if (rtc == NULL)
    return NULL;
  rtc->Version (&major, &minor);
  return g_strdup_printf ("%d.%d", major, minor);
}

/* The newest architecture NVRTC can target that is not newer than @arch,
 * and whether it is @arch itself (then a CUBIN can be made). */
static gint
choose_target (const CrNvrtc *rtc, gint arch, GError **error)
{
  int n = 0;
  if (rtc->GetNumSupportedArchs == NULL || rtc->GetSupportedArchs == NULL
      || rtc->GetNumSupportedArchs (&n) != 0 || n <= 0)
    return arch; /* an old NVRTC: ask for arch and see */
  g_autofree int *archs = g_new0 (int, n);
  rtc->GetSupportedArchs (archs);
  gint best = -1;
  for (int k = 0; k < n; k++)
    if (archs[k] <= arch && archs[k] > best)
      best = archs[k];
  if (best < 0) {
    g_set_error (error, CR_ERROR, CR_ERROR_COMPILE,
        "This NVRTC cannot compile for compute capability %d.%d: its oldest "
        "target is sm_%d; use an older CUDA toolkit's NVRTC for this GPU",
        arch / 10, arch % 10, archs[0]);
  }
  return best;
}

static gchar *
program_log (const CrNvrtc *rtc, nvrtcProgram prog)
{
  size_t size = 0;
  if (rtc->GetProgramLogSize (prog, &size) != 0 || size <= 1)
    return NULL;
  gchar *log = g_malloc0 (size + 1);
  rtc->GetProgramLog (prog, log);
  g_strchomp (log);
  return log;
}

/* The first line of the log that reports an error, for the short message. */
static gchar *
first_error (const gchar *log)
{
  g_auto (GStrv) lines = g_strsplit (log ? log : "", "\n", -1);
  for (guint k = 0; lines[k]; k++)
    if (strstr (lines[k], "error"))
      return g_strdup (g_strstrip (lines[k]));
  return g_strdup ("see the NVRTC log");
}

static GBytes *
nvrtc_build (const CrNvrtc *rtc, const gchar *source,
    const gchar *const *options, gint n_options, gboolean want_ptx, gchar **log,
    GError **error)
{
  nvrtcProgram prog = NULL;
  int res = rtc->CreateProgram (&prog, source, "cudareduce.cu", 0, NULL, NULL);
  if (res != 0) {
    g_set_error (error, CR_ERROR, CR_ERROR_COMPILE,
        "nvrtcCreateProgram failed: %s", rtc->GetErrorString (res));
    return NULL;
  }
  res = rtc->CompileProgram (prog, n_options, options);
  *log = program_log (rtc, prog);
  if (res != 0) {
    g_autofree gchar *first = first_error (*log);
    g_set_error (error, CR_ERROR, CR_ERROR_COMPILE,
        "The monoid does not compile: %s", first);
    rtc->DestroyProgram (&prog);
    return NULL;
  }

  size_t size = 0;
  gchar *image = NULL;
  if (want_ptx) {
    rtc->GetPTXSize (prog, &size);
    image = g_malloc (size);
    rtc->GetPTX (prog, image);
  } else {
    rtc->GetCUBINSize (prog, &size);
    image = g_malloc (size);
    rtc->GetCUBIN (prog, image);
  }
  rtc->DestroyProgram (&prog);
  return g_bytes_new_take (image, size);
}

/* The cache directory, or NULL (and the element compiles) when it cannot
 * be created or is not safe to read: the reason goes to the debug log. */
static CrCache *
cache_open (void)
{
  g_autofree gchar *dir = cr_cache_dir ();
  g_autoptr (GError) why = NULL;
  CrCache *cache = cr_cache_open (dir, &why);
  if (cache == NULL)
    g_debug ("kernel cache not used: %s", why->message);
  return cache;
}

/* The cached image of @key, or NULL after saying why in the debug log. */
static GBytes *
cache_lookup (CrCache *cache, const gchar *key, gboolean want_ptx)
{
  g_autoptr (GError) why = NULL;
  gboolean is_ptx = FALSE;
  GBytes *image = cr_cache_lookup (cache, key, &is_ptx, &why);
  if (image == NULL) {
    g_debug ("kernel cache miss: %s", why->message);
  } else if (is_ptx != want_ptx) {
    g_debug ("kernel cache miss: the entry of %s holds %s, not %s", key,
        is_ptx ? "PTX" : "a CUBIN", want_ptx ? "PTX" : "a CUBIN");
    g_clear_pointer (&image, g_bytes_unref);
  }
  return image;
}

/* A failure to write is not an error: the next run compiles again. */
static void
cache_store (CrCache *cache, const gchar *key, GBytes *image, gboolean is_ptx)
{
  g_autoptr (GError) why = NULL;
  if (!cr_cache_store (cache, key, image, is_ptx, &why))
    g_debug ("kernel cache entry not written: %s", why->message);
}

CrCompiled *
cr_compile (const gchar *source, gint arch, CrCompileFlags flags,
    gchar **log_out, GError **error)
{
  const CrNvrtc *rtc = cr_cuda_nvrtc (error);
  if (rtc == NULL)
    return NULL;
  gint target = choose_target (rtc, arch, error);
  if (target < 0)
    return NULL;

  g_autoptr (CrCompiled) c = g_new0 (CrCompiled, 1);
  g_autoptr (GTimer) timer = g_timer_new ();
  gboolean want_ptx = target != arch || rtc->GetCUBIN == NULL;
  c->is_ptx = want_ptx;
  c->target = g_strdup_printf (want_ptx ? "compute_%d" : "sm_%d", target);
  g_autofree gchar *arch_option =
      g_strdup_printf ("--gpu-architecture=%s", c->target);
  const gchar *options[] = { arch_option, "--std=c++17" };
  gint n_options = G_N_ELEMENTS (options);

  g_autoptr (CrCache) cache = NULL;
  g_autofree gchar *key = NULL;
  if (!(flags & CR_COMPILE_NO_CACHE)) {
    g_autofree gchar *version = cr_nvrtc_version (NULL);
    key = cr_cache_key (source, options, n_options, version);
    cache = cache_open ();
  }
  if (cache && !(flags & CR_COMPILE_REFRESH)) {
    c->image = cache_lookup (cache, key, want_ptx);
    if (c->image) {
      c->from_cache = TRUE;
      c->seconds = g_timer_elapsed (timer, NULL);
      return g_steal_pointer (&c);
    }
  }

  g_autofree gchar *log = NULL;
  c->image =
      nvrtc_build (rtc, source, options, n_options, want_ptx, &log, error);
  if (c->image == NULL) {
    if (log_out)
      *log_out = g_steal_pointer (&log);
    return NULL;
  }
  c->log = g_steal_pointer (&log);
  if (cache)
    cache_store (cache, key, c->image, want_ptx);
  c->seconds = g_timer_elapsed (timer, NULL);
  return g_steal_pointer (&c);
}
