/* cr-compiler.c: NVRTC and the on-disk kernel cache. */
#include "cr-compiler.h"

#include "cr-cuda.h"
#include "cr-error.h"

#include <glib/gstdio.h>
#include <string.h>

/* Bumped whenever the entry format or what the key covers changes. */
#define CACHE_MAGIC "CRKCACHE"
#define CACHE_FORMAT 1

typedef struct {
  gchar magic[8];
  guint32 format;
  guint32 is_ptx;
  guint64 length;
  guint8 sha256[32];
} CacheHeader;

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
cr_cache_dir (void)
{
  const gchar *dir = g_getenv ("GST_CUDAREDUCE_CACHE_DIR");
  if (dir && *dir)
    return g_strdup (dir);
  return g_build_filename (g_get_user_cache_dir (), "gstcudareduce", NULL);
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
cache_key (const gchar *source, const gchar *const *options, gint n_options,
    const gchar *nvrtc_version)
{
  g_autoptr (GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  g_checksum_update (sum, (const guchar *)source, strlen (source) + 1);
  for (gint k = 0; k < n_options; k++)
    g_checksum_update (
        sum, (const guchar *)options[k], strlen (options[k]) + 1);
  g_checksum_update (
      sum, (const guchar *)nvrtc_version, strlen (nvrtc_version) + 1);
  return g_strdup (g_checksum_get_string (sum));
}

static void
payload_digest (gconstpointer data, gsize length, guint8 digest[32])
{
  g_autoptr (GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  gsize digest_len = 32;
  g_checksum_update (sum, data, length);
  g_checksum_get_digest (sum, digest, &digest_len);
}

/* NULL unless the entry is whole and its payload matches its checksum. */
static GBytes *
cache_read (const gchar *path, gboolean *is_ptx)
{
  g_autofree gchar *contents = NULL;
  gsize length = 0;
  CacheHeader header;
  guint8 digest[32];

  if (!g_file_get_contents (path, &contents, &length, NULL)
      || length < sizeof header)
    return NULL;
  memcpy (&header, contents, sizeof header);
  if (memcmp (header.magic, CACHE_MAGIC, 8) != 0
      || header.format != CACHE_FORMAT
      || header.length != length - sizeof header)
    return NULL;
  payload_digest (contents + sizeof header, header.length, digest);
  if (memcmp (digest, header.sha256, 32) != 0)
    return NULL;
  *is_ptx = header.is_ptx != 0;
  return g_bytes_new (contents + sizeof header, header.length);
}

/* Written to a temporary file and renamed over the entry, so a reader in
 * another process sees the old entry, the new one or none, never a part. */
static void
cache_write (
    const gchar *dir, const gchar *path, GBytes *image, gboolean is_ptx)
{
  CacheHeader header = { CACHE_MAGIC, CACHE_FORMAT, is_ptx, 0, { 0 } };
  gsize length = 0;
  const guint8 *data = g_bytes_get_data (image, &length);
  g_autoptr (GError) error = NULL;

  header.length = length;
  payload_digest (data, length, header.sha256);
  g_autofree guint8 *entry = g_malloc (sizeof header + length);
  memcpy (entry, &header, sizeof header);
  memcpy (entry + sizeof header, data, length);
  if (g_mkdir_with_parents (dir, 0700) != 0
      || !g_file_set_contents_full (path, (const gchar *)entry,
          sizeof header + length, G_FILE_SET_CONTENTS_CONSISTENT, 0600, &error))
    g_debug ("cudareduce: cannot write kernel cache entry %s: %s", path,
        error ? error->message : g_strerror (errno));
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

  g_autofree gchar *version = cr_nvrtc_version (NULL);
  g_autofree gchar *key = cache_key (source, options, n_options, version);
  g_autofree gchar *dir = cr_cache_dir ();
  g_autofree gchar *file = g_strconcat (key, ".bin", NULL);
  g_autofree gchar *path = g_build_filename (dir, file, NULL);

  if (!(flags & (CR_COMPILE_NO_CACHE | CR_COMPILE_REFRESH))) {
    gboolean is_ptx = FALSE;
    c->image = cache_read (path, &is_ptx);
    if (c->image && is_ptx == want_ptx) {
      c->from_cache = TRUE;
      c->seconds = g_timer_elapsed (timer, NULL);
      return g_steal_pointer (&c);
    }
    g_clear_pointer (&c->image, g_bytes_unref);
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
  if (!(flags & CR_COMPILE_NO_CACHE))
    cache_write (dir, path, c->image, want_ptx);
  c->seconds = g_timer_elapsed (timer, NULL);
  return g_steal_pointer (&c);
}
