/* cr-compiler.h: CUDA source to a loadable image with NVRTC, through a disk
 * cache.
 *
 * The image is a CUBIN for the device's own architecture, or PTX for the
 * newest architecture this NVRTC knows that the device can run, when NVRTC
 * is older than the device. Images are kept in the disk cache of cr-cache.h,
 * keyed by the source, the compile options (the target among them) and the
 * NVRTC version; an entry that is not exactly the one of its key is a miss,
 * recompiled and rewritten, never loaded. NVRTC is opened only to compile:
 * a hit takes NVRTC's version and targets from a note in the cache
 * (cr-nvrtc-facts.h). */
#pragma once

#include "cr-cache.h" /* cr_cache_dir () */

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  GBytes *image; /* CUBIN, or NUL-terminated PTX */
  gboolean is_ptx;
  gchar *target; /* "sm_90" or "compute_90" */
  gboolean from_cache;
  gchar *log; /* NVRTC's warnings, or NULL */
  gdouble seconds; /* spent in NVRTC or reading the cache */
  /* Compiled for time rather than speed (CR_COMPILE_FAST): the optimized
   * image is still to come. */
  gboolean fast;
} CrCompiled;

void cr_compiled_free (CrCompiled *compiled);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CrCompiled, cr_compiled_free)

/* Extra NVRTC options, as a shell would split them (e.g.
 * "--Ofast-compile=max"), after the element's own: part of every cache
 * key, so images of other options are other entries. */
#define CR_NVRTC_OPTIONS_ENV "GST_CUDAREDUCE_NVRTC_OPTIONS"

typedef enum {
  CR_COMPILE_DEFAULT = 0,
  CR_COMPILE_NO_CACHE = 1 << 0, /* neither read nor write the disk cache */
  CR_COMPILE_REFRESH = 1 << 1, /* ignore a cached entry, overwrite it */
  /* The optimized image where the cache has it; else, unless
   * CR_FAST_START_ENV is "0", one NVRTC compiles in a fraction of the time
   * (CR_FAST_COMPILE_OPTION), kept under a key of its own, whose kernels
   * are slower. Without it, where NVRTC has no such option (before 12.8),
   * or where the user gives options of their own (CR_NVRTC_OPTIONS_ENV),
   * the optimized one as without the flag. */
  CR_COMPILE_FAST = 1 << 2,
} CrCompileFlags;

/* What CR_COMPILE_FAST adds to the options (NVRTC 12.8 and later): less
 * optimization, and what is left of it and of ptxas on every core (the
 * image is a stopgap, so registers chosen otherwise cost nothing that
 * lasts). */
#define CR_FAST_COMPILE_OPTION "--Ofast-compile=max"
#define CR_FAST_SPLIT_OPTION "--split-compile=0"
/* "0": no fast starts (CR_COMPILE_FAST), every start waits for the
 * optimized image. They are on otherwise: a first start waits a fraction
 * of the time, on kernels that reduce many times slower until the swap
 * (docs/performance.md). */
#define CR_FAST_START_ENV "GST_CUDAREDUCE_FAST_START"

/* @arch is the compute capability as major * 10 + minor (90 for sm_90).
 * On a compile error, *@log (when not NULL) receives NVRTC's log. */
CrCompiled *cr_compile (const gchar *source, gint arch, CrCompileFlags flags,
    gchar **log, GError **error);

/* "13.0" */
gchar *cr_nvrtc_version (GError **error);

G_END_DECLS
