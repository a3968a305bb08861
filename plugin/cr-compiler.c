/* cr-compiler.c: NVRTC, through the disk cache of cr-cache.c. */
#define G_LOG_DOMAIN "cudareduce"

#include "cr-compiler.h"

#include "cr-cache.h"
#include "cr-cuda.h"
#include "cr-error.h"
#include "cr-nvrtc-facts.h"

#include <stdio.h>
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
  if (rtc == NULL)
    return NULL;
  g_autoptr (CrNvrtcFacts) facts = cr_nvrtc_facts_of (rtc);
  return g_steal_pointer (&facts->version);
}

/* The newest architecture NVRTC can target that is not newer than @arch,
 * and whether it is @arch itself (then a CUBIN can be made). */
static gint
choose_target (const CrNvrtcFacts *facts, gint arch, GError **error)
{
  if (facts->archs->len == 0)
    return arch; /* an old NVRTC: ask for arch and see */
  const gint *archs = (const gint *)facts->archs->data;
  gint best = -1;
  for (guint k = 0; k < facts->archs->len; k++)
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
  /* What a failed call left in the buffer is not the log. */
  if (rtc->GetProgramLog (prog, log) != 0) {
    g_free (log);
    return NULL;
  }
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

/* The image NVRTC made of @prog, or NULL: a failed or empty answer is an
 * error, never an image, so that nothing partial is loaded or cached. */
static GBytes *
take_image (
    const CrNvrtc *rtc, nvrtcProgram prog, gboolean want_ptx, GError **error)
{
  const gchar *kind = want_ptx ? "PTX" : "CUBIN";
  size_t size = 0;
  int res = want_ptx ? rtc->GetPTXSize (prog, &size)
                     : rtc->GetCUBINSize (prog, &size);
  if (res != 0) {
    g_set_error (error, CR_ERROR, CR_ERROR_COMPILE,
        "The monoid compiled, but nvrtcGet%sSize failed: %s; nothing was "
        "cached. Check the CUDA installation (or free memory) and try again",
        kind, rtc->GetErrorString (res));
    return NULL;
  }
  /* PTX is text with its NUL: one byte is none. */
  if (size <= (want_ptx ? 1 : 0)) {
    g_set_error (error, CR_ERROR, CR_ERROR_COMPILE,
        "The monoid compiled, but NVRTC returned an empty %s; nothing was "
        "cached. Check the CUDA installation and try again",
        kind);
    return NULL;
  }
  g_autofree gchar *image = g_malloc (size);
  res = want_ptx ? rtc->GetPTX (prog, image) : rtc->GetCUBIN (prog, image);
  if (res != 0) {
    g_set_error (error, CR_ERROR, CR_ERROR_COMPILE,
        "The monoid compiled, but nvrtcGet%s failed: %s; nothing was cached. "
        "Check the CUDA installation (or free memory) and try again",
        kind, rtc->GetErrorString (res));
    return NULL;
  }
  if (want_ptx)
    image[size - 1] = '\0'; /* the driver reads it as a C string */
  return g_bytes_new_take (g_steal_pointer (&image), size);
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
  if (res == NVRTC_ERROR_INVALID_OPTION) {
    /* Only the user's can be: the others are the element's own. */
    g_autoptr (GString) given = g_string_new (NULL);
    for (gint k = 2; k < n_options; k++)
      g_string_append_printf (given, "%s%s", k > 2 ? " " : "", options[k]);
    g_autofree gchar *first = first_error (*log);
    g_set_error (error, CR_ERROR, CR_ERROR_COMPILE,
        "NVRTC refused an option of %s (%s): %s; remove it, or unset %s",
        CR_NVRTC_OPTIONS_ENV, given->str, first, CR_NVRTC_OPTIONS_ENV);
    rtc->DestroyProgram (&prog);
    return NULL;
  }
  if (res != 0 && res != NVRTC_ERROR_COMPILATION) {
    /* NVRTC itself failed (out of memory, say): not the monoid's fault. */
    g_set_error (error, CR_ERROR, CR_ERROR_COMPILE,
        "nvrtcCompileProgram failed: %s; check the CUDA installation (or "
        "free memory) and try again",
        rtc->GetErrorString (res));
    rtc->DestroyProgram (&prog);
    return NULL;
  }
  if (res != 0) {
    g_autofree gchar *first = first_error (*log);
    g_set_error (error, CR_ERROR, CR_ERROR_COMPILE,
        "The monoid does not compile: %s", first);
    rtc->DestroyProgram (&prog);
    return NULL;
  }

  GBytes *image = take_image (rtc, prog, want_ptx, error);
  rtc->DestroyProgram (&prog);
  return image;
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

/* The image of @key in the first system cache that holds it (cr-cache.h:
 * images made ahead of time for every user), or NULL. */
static GBytes *
system_lookup (const gchar *key, gboolean want_ptx)
{
  g_auto (GStrv) dirs = cr_cache_system_dirs ();
  for (guint k = 0; dirs[k]; k++) {
    g_autoptr (GError) why = NULL;
    g_autoptr (CrCache) cache = cr_cache_open_system (dirs[k], &why);
    if (cache == NULL) {
      if (!g_error_matches (why, CR_CACHE_ERROR, CR_CACHE_ERROR_ABSENT))
        g_debug ("system kernel cache not used: %s", why->message);
      continue;
    }
    GBytes *image = cache_lookup (cache, key, want_ptx);
    if (image)
      return image;
  }
  return NULL;
}

/* A failure to write is not an error: the next run compiles again. */
static void
cache_store (CrCache *cache, const gchar *key, GBytes *image, gboolean is_ptx)
{
  g_autoptr (GError) why = NULL;
  if (!cr_cache_store (cache, key, image, is_ptx, &why))
    g_debug ("kernel cache entry not written: %s", why->message);
}

/* What a compile is made of, once NVRTC's facts are known: the target, the
 * options and the key. */
typedef struct {
  gchar *target; /* "sm_90" or "compute_90" */
  gboolean want_ptx;
  gchar *arch_option;
  /* The target, --std=c++17, CR_FAST_COMPILE_OPTION and
   * CR_FAST_SPLIT_OPTION for a fast compile,
   * then the user's (CR_NVRTC_OPTIONS_ENV) */
  GPtrArray *options;
  gchar *key; /* NULL without the cache */
  gboolean fast; /* CR_FAST_COMPILE_OPTION among the options */
} CompileSetup;

static void
setup_clear (CompileSetup *setup)
{
  g_free (setup->target);
  g_free (setup->arch_option);
  g_clear_pointer (&setup->options, g_ptr_array_unref);
  g_free (setup->key);
  memset (setup, 0, sizeof *setup);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (CompileSetup, setup_clear)

/* The options CR_NVRTC_OPTIONS_ENV adds, split as a shell would (NULL when
 * unset or empty); FALSE, saying what to fix, when it cannot be split. */
static gboolean
user_options (GStrv *options, GError **error)
{
  const gchar *text = g_getenv (CR_NVRTC_OPTIONS_ENV);
  g_autofree gchar *stripped = g_strstrip (g_strdup (text ? text : ""));
  g_autoptr (GError) why = NULL;
  *options = NULL;
  if (*stripped == '\0')
    return TRUE;
  if (g_shell_parse_argv (text, NULL, options, &why))
    return TRUE;
  g_set_error (error, CR_ERROR, CR_ERROR_COMPILE,
      "%s=\"%s\" cannot be read as NVRTC options (%s); separate them with "
      "spaces, quoting any that hold one",
      CR_NVRTC_OPTIONS_ENV, text, why->message);
  return FALSE;
}

/* On unless CR_FAST_START_ENV is "0". */
static gboolean
fast_start_on (void)
{
  return g_strcmp0 (g_getenv (CR_FAST_START_ENV), "0") != 0;
}

/* Whether a compile for time (CR_COMPILE_FAST) is to be had from this
 * NVRTC with these @user options. */
static gboolean
fast_possible (const CrNvrtcFacts *facts, const GStrv user)
{
  guint major = 0, minor = 0;
  if (!fast_start_on () || (user && user[0])
      || sscanf (facts->version, "%u.%u", &major, &minor) != 2)
    return FALSE;
  return major > 12 || (major == 12 && minor >= 8);
}

static gboolean
setup_from (CompileSetup *setup, const CrNvrtcFacts *facts, const gchar *source,
    gint arch, gboolean keyed, gboolean fast, GError **error)
{
  setup_clear (setup);
  gint target = choose_target (facts, arch, error);
  if (target < 0)
    return FALSE;
  setup->want_ptx = target != arch || !facts->cubin;
  setup->target =
      g_strdup_printf (setup->want_ptx ? "compute_%d" : "sm_%d", target);
  setup->arch_option = g_strdup_printf ("--gpu-architecture=%s", setup->target);
  g_auto (GStrv) user = NULL;
  if (!user_options (&user, error))
    return FALSE;
  setup->options = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (setup->options, g_strdup (setup->arch_option));
  g_ptr_array_add (setup->options, g_strdup ("--std=c++17"));
  setup->fast = fast && fast_possible (facts, user);
  if (setup->fast) {
    g_ptr_array_add (setup->options, g_strdup (CR_FAST_COMPILE_OPTION));
    g_ptr_array_add (setup->options, g_strdup (CR_FAST_SPLIT_OPTION));
  }
  for (guint k = 0; user && user[k]; k++)
    g_ptr_array_add (setup->options, g_strdup (user[k]));
  /* Options are part of the key: an image of other options is another
   * entry. */
  if (keyed)
    setup->key =
        cr_cache_key (source, (const gchar *const *)setup->options->pdata,
            (gint)setup->options->len, facts->version);
  return TRUE;
}

/* NVRTC's facts: asked of NVRTC when it is open already, else read from
 * the note in @cache, else asked of NVRTC, opened here, and noted in @cache.
 * *@rtc is NVRTC when it is open. */
static CrNvrtcFacts *
nvrtc_facts (CrCache *cache, const CrNvrtc **rtc, GError **error)
{
  if ((*rtc = cr_cuda_nvrtc_if_open ()) != NULL)
    return cr_nvrtc_facts_of (*rtc);
  if (cache) {
    g_autoptr (GError) why = NULL;
    CrNvrtcFacts *noted = cr_nvrtc_facts_recall (cache, &why);
    if (noted)
      return noted;
    g_debug (
        "NVRTC opened: its facts are not noted in the cache: %s", why->message);
  }
  if ((*rtc = cr_cuda_nvrtc (error)) == NULL)
    return NULL;
  CrNvrtcFacts *facts = cr_nvrtc_facts_of (*rtc);
  g_autoptr (GError) why = NULL;
  if (cache && !cr_nvrtc_facts_note (cache, facts, &why))
    g_debug ("NVRTC's facts not noted in the cache: %s", why->message);
  return facts;
}

/* @setup's image from the user's cache (@cache, where it could be
 * opened), else from the system caches, whose images were made for every
 * user by the same NVRTC where the key matches; or NULL. */
static GBytes *
lookup_all (CrCache *cache, const CompileSetup *setup)
{
  GBytes *image =
      cache ? cache_lookup (cache, setup->key, setup->want_ptx) : NULL;
  return image ? image : system_lookup (setup->key, setup->want_ptx);
}

/* cr_compile(), for time where @fast, or only from the cache where
 * @lookup_only (NULL without an error on a miss). */
static CrCompiled *
compile (const gchar *source, gint arch, CrCompileFlags flags, gboolean fast,
    gboolean lookup_only, gchar **log_out, GError **error)
{
  g_autoptr (GTimer) timer = g_timer_new ();
  g_autoptr (CrCache) cache =
      (flags & CR_COMPILE_NO_CACHE) ? NULL : cache_open ();
  const CrNvrtc *rtc = NULL;
  g_autoptr (CrNvrtcFacts) facts = nvrtc_facts (cache, &rtc, error);
  if (facts == NULL)
    return NULL;
  g_auto (CompileSetup) setup = { 0 };
  /* With facts from a note, no target that fits may mean a wrong note:
   * that is decided below, once NVRTC is open. */
  g_autoptr (GError) no_target = NULL;
  const gboolean keyed = !(flags & CR_COMPILE_NO_CACHE);
  const gboolean set = setup_from (
      &setup, facts, source, arch, keyed, fast, rtc ? error : &no_target);
  if (!set && rtc)
    return NULL;

  g_autoptr (CrCompiled) c = g_new0 (CrCompiled, 1);
  const gboolean lookup = keyed && !(flags & CR_COMPILE_REFRESH);
  if (set && lookup)
    c->image = lookup_all (cache, &setup);
  if (c->image == NULL && rtc == NULL) {
    /* The facts came from a note, and NVRTC is opened to compile: if the
     * note was wrong, so were the target and the key. A wrong note costs
     * this one miss, and is rewritten. */
    if ((rtc = cr_cuda_nvrtc (error)) == NULL)
      return NULL;
    g_autoptr (CrNvrtcFacts) actual = cr_nvrtc_facts_of (rtc);
    if (!cr_nvrtc_facts_equal (actual, facts)) {
      g_debug ("NVRTC %s is not as noted in the cache (%s%s): noted again",
          actual->version, facts->version,
          set ? "" : ", without a target for this GPU");
      g_autoptr (GError) why = NULL;
      if (!cr_nvrtc_facts_note (cache, actual, &why))
        g_debug ("NVRTC's facts not noted in the cache: %s", why->message);
      if (!setup_from (&setup, actual, source, arch, TRUE, fast, error))
        return NULL;
      if (lookup)
        c->image = lookup_all (cache, &setup);
    } else if (!set) {
      g_propagate_error (error, g_steal_pointer (&no_target));
      return NULL;
    }
  }
  c->is_ptx = setup.want_ptx;
  c->target = g_strdup (setup.target);
  c->fast = setup.fast;
  if (c->image) {
    c->from_cache = TRUE;
    c->seconds = g_timer_elapsed (timer, NULL);
    return g_steal_pointer (&c);
  }
  if (lookup_only)
    return NULL;

  g_autofree gchar *log = NULL;
  c->image =
      nvrtc_build (rtc, source, (const gchar *const *)setup.options->pdata,
          (gint)setup.options->len, setup.want_ptx, &log, error);
  if (c->image == NULL) {
    if (log_out)
      *log_out = g_steal_pointer (&log);
    return NULL;
  }
  c->log = g_steal_pointer (&log);
  if (cache)
    cache_store (cache, setup.key, c->image, setup.want_ptx);
  c->seconds = g_timer_elapsed (timer, NULL);
  return g_steal_pointer (&c);
}

CrCompiled *
cr_compile (const gchar *source, gint arch, CrCompileFlags flags, gchar **log,
    GError **error)
{
  /* Without fast starts, as if never asked: one look in the cache. */
  if (!(flags & CR_COMPILE_FAST) || !fast_start_on ()
      || (flags & (CR_COMPILE_NO_CACHE | CR_COMPILE_REFRESH)))
    return compile (source, arch, flags, FALSE, FALSE, log, error);
  /* The optimized image where an earlier run left it. */
  GError *miss = NULL;
  CrCompiled *c = compile (source, arch, flags, FALSE, TRUE, log, &miss);
  if (miss) {
    g_propagate_error (error, miss);
    return NULL;
  }
  if (c)
    return c;
  return compile (source, arch, flags, TRUE, FALSE, log, error);
}
