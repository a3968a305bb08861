/* cudareduce-monoid: checks a monoid the way the element would build it,
 * with NVRTC and no GPU, and lists the built-ins.
 *
 *   cudareduce-monoid [--type=TYPE|all] [--arch=SM] [--single] [--source]
 *                     [--bins=N] [--percentiles=P,...] [--pair=X,Y] MONOID
 *   cudareduce-monoid [...] --load=BODY --accumulator=FIELDS ... [NAME]
 *   cudareduce-monoid --fill-cache [--type=TYPE|all] [--arch=SM]
 *                     [--window] [--regions] [...] MONOID
 *   cudareduce-monoid [--fill-cache] [--type=...] [--arch=SM] --all
 *   cudareduce-monoid --list
 *
 * MONOID is what the element's `monoid` property takes: a built-in name, a
 * .monoid file, or several joined by '+'. The inline options are the
 * element's inline properties. Every kernel the element could build is
 * compiled for each input type (--single: those of one result only), the
 * types in parallel, for the GPU's architecture, or without a GPU the
 * oldest NVRTC targets (--arch: one NVRTC lists). NVRTC's warnings of
 * undefined results are errors. Exit status 0 when everything compiles, 1
 * when anything fails (with the element's messages), 2 for a wrong command
 * line.
 *
 * --fill-cache compiles instead every program the element may build of the
 * monoid (cr_kernels_variants: with or without the pitched kernel, one
 * result or per channel with each packed kernel) into the element's kernel
 * cache, for the GPU at hand or --arch's, so that a pipeline's first start
 * loads them rather than waiting for NVRTC. --all does it for every
 * built-in in turn (a packager's or an administrator's one command).
 * --window and --regions add the kernels of an element with a window of
 * several intervals, and with regions or roi-types, to every program (in
 * a check as in a fill): those programs are other programs, which a fill
 * without them leaves out. */
#include "cr-compiler.h"
#include "cr-cuda.h"
#include "cr-error.h"
#include "cr-monoid-names.h"
#include "cr-nvrtc-facts.h"
#include "cr-program.h"
#include "cr-reducer.h"

#include <locale.h>
#include <stdlib.h>
#include <string.h>

static gchar *type_option;
static gint arch_option = G_MININT; /* G_MININT: not given */
static gboolean single_option;
static gboolean source_option;
static gboolean list_option;
static gboolean fill_option;
static gboolean all_option;
static gboolean window_option;
static gboolean regions_option;
static gint bins_option;
static gchar *percentiles_option;
static gchar *pair_option;
static gchar *inline_text[8];

static const GOptionEntry entries[] = {
  { "type", 't', 0, G_OPTION_ARG_STRING, &type_option,
      "Input type: int8 ... uint64, float32, float64, or all (the default)",
      "TYPE" },
  { "arch", 'a', 0, G_OPTION_ARG_INT, &arch_option,
      "Compute capability as major * 10 + minor (90), one NVRTC compiles "
      "for; default: the GPU's, or without one the oldest NVRTC compiles "
      "for",
      "SM" },
  { "single", 0, 0, G_OPTION_ARG_NONE, &single_option,
      "Only the kernels of one result (no per-channel ones): faster", NULL },
  { "fill-cache", 0, 0, G_OPTION_ARG_NONE, &fill_option,
      "Compile every program the element may build of MONOID (each input "
      "type, one result and per channel, frames and contiguous data) into "
      "its kernel cache, for the GPU at hand or --arch's: a pipeline's first "
      "start then loads them (--single: those of one result only)",
      NULL },
  { "all", 0, 0, G_OPTION_ARG_NONE, &all_option,
      "Every built-in monoid in turn, instead of MONOID (with --fill-cache: "
      "the cache for all of them, in one command)",
      NULL },
  { "window", 0, 0, G_OPTION_ARG_NONE, &window_option,
      "The programs of an element with a window of several intervals (its "
      "window property), which have the window's kernels too",
      NULL },
  { "regions", 0, 0, G_OPTION_ARG_NONE, &regions_option,
      "The programs of an element with regions or roi-types, which have the "
      "regions' kernels too",
      NULL },
  { "source", 's', 0, G_OPTION_ARG_NONE, &source_option,
      "Print the generated CUDA source of each program", NULL },
  { "list", 'l', 0, G_OPTION_ARG_NONE, &list_option,
      "List the built-in monoids and their result fields for each input "
      "type",
      NULL },
  { "bins", 0, 0, G_OPTION_ARG_INT, &bins_option,
      "Bins of a monoid that counts values in bins, as the element's bins "
      "property sets them (0: the monoid's own)",
      "N" },
  { "pair", 0, 0, G_OPTION_ARG_STRING, &pair_option,
      "Two components whose pairs a monoid with bins counts in a 2-D "
      "histogram, as the element's pair property sets them, e.g. R,G",
      "X,Y" },
  { "percentiles", 0, 0, G_OPTION_ARG_STRING, &percentiles_option,
      "Percentiles of a monoid with bins, as the element's percentiles "
      "property sets them, e.g. 0.1,0.5,0.9",
      "P,P,..." },
  { "accumulator", 0, 0, G_OPTION_ARG_STRING, &inline_text[0],
      "Inline monoid: the accumulator's fields", "FIELDS" },
  { "load", 0, 0, G_OPTION_ARG_STRING, &inline_text[1],
      "Inline monoid: body of load; selects the inline monoid", "BODY" },
  { "combine", 0, 0, G_OPTION_ARG_STRING, &inline_text[2],
      "Inline monoid: body of combine", "BODY" },
  { "identity", 0, 0, G_OPTION_ARG_STRING, &inline_text[3],
      "Inline monoid: body of identity", "BODY" },
  { "context-fields", 0, 0, G_OPTION_ARG_STRING, &inline_text[4],
      "Inline monoid: context fields", "FIELDS" },
  { "output-fields", 0, 0, G_OPTION_ARG_STRING, &inline_text[5],
      "Inline monoid: result fields", "FIELDS" },
  { "finalize", 0, 0, G_OPTION_ARG_STRING, &inline_text[6],
      "Inline monoid: body of finalize", "BODY" },
  { "bin", 0, 0, G_OPTION_ARG_STRING, &inline_text[7],
      "Inline monoid: body of bin, with --bins; selects the inline monoid",
      "BODY" },
  { NULL },
};

/* @s as it is safe to print: a monoid file's strings (its name, its path,
 * bodies quoted in NVRTC's log or the source) could otherwise put escape
 * sequences on the user's terminal. Control characters, other unprintable
 * characters and bytes that are not UTF-8 are written as \xNN or \uNNNN;
 * newlines and tabs are kept when @lines (a message, a log, a source). */
static gchar *
shown (const gchar *s, gboolean lines)
{
  GString *out = g_string_new (NULL);
  const gchar *end = s + strlen (s);
  for (const gchar *p = s; *p;) {
    const gunichar c = g_utf8_get_char_validated (p, end - p);
    if (c == (gunichar)-1 || c == (gunichar)-2) {
      g_string_append_printf (out, "\\x%02x", (guint)(guchar)*p++);
      continue;
    }
    const gchar *next = g_utf8_next_char (p);
    if (lines && (c == '\n' || c == '\t'))
      g_string_append_c (out, (gchar)c);
    else if (c < 0x80 && !g_ascii_isprint (c))
      g_string_append_printf (out, "\\x%02x", c);
    else if (c >= 0x80 && !g_unichar_isprint (c))
      g_string_append_printf (out, "\\u%04x", c);
    else
      g_string_append_len (out, p, next - p);
    p = next;
  }
  return g_string_free (out, FALSE);
}

/* "mean:float64, variance:float64", and a histogram's
 * "histogram:uint64[256]" (an array field's length): the results of @monoid on @type input as the
 * element gives them. */
static gchar *
describe_results (CrMonoid *monoid, CrType type)
{
  g_autoptr (CrProgram) program = cr_program_new (monoid, type);
  const CrLayout *layout = &program->out;
  GString *s = g_string_new (NULL);
  for (guint k = 0; k < layout->n_fields; k++) {
    g_string_append_printf (s, "%s%s:%s", k ? ", " : "", layout->names[k],
        cr_type_name (layout->types[k]));
    if (layout->arrays[k])
      g_string_append_printf (s, "[%u]", layout->lengths[k]);
  }
  return g_string_free (s, FALSE);
}

static int
list_builtins (void)
{
  g_auto (GStrv) names = cr_monoid_builtin_names ();
  for (guint m = 0; names[m]; m++) {
    g_autoptr (GError) error = NULL;
    g_autoptr (CrMonoid) monoid = cr_monoid_load (names[m], &error);
    if (monoid == NULL) {
      g_autofree gchar *message = shown (error->message, TRUE);
      g_printerr ("%s: %s\n", names[m], message);
      return 1;
    }
    g_autofree gchar *name = shown (monoid->name, FALSE);
    g_autofree gchar *description = shown (monoid->description, FALSE);
    g_print ("%s\n  %s\n", name, description);
    if (monoid->context->len > 0) {
      g_print ("  context:");
      for (guint k = 0; k < monoid->context->len; k++)
        g_print ("%s %s", k ? "," : "",
            g_array_index (monoid->context, CrField, k).name);
      g_print ("\n");
    }
    for (gint t = 0; t < CR_N_TYPES; t++) {
      g_autofree gchar *fields = describe_results (monoid, t);
      g_print ("  %-8s %s\n", cr_type_name (t), fields);
    }
  }
  return 0;
}

/* The oldest of @facts' targets, or 0 where NVRTC cannot say. */
static gint
oldest_arch (const CrNvrtcFacts *facts)
{
  gint oldest = 0;
  for (guint k = 0; k < facts->archs->len; k++) {
    const gint a = g_array_index (facts->archs, gint, k);
    if (oldest == 0 || a < oldest)
      oldest = a;
  }
  return oldest;
}

/* The GPU's architecture, or the oldest target of NVRTC without a GPU;
 * 0, with @error set, without NVRTC. */
static gint
default_arch (const gchar **where, GError **error)
{
  g_autoptr (GError) no_gpu = NULL;
  g_autoptr (CrDevice) device = cr_device_open (-1, &no_gpu);
  if (device) {
    *where = "the GPU's";
    return cr_device_arch (device);
  }
  const CrNvrtc *rtc = cr_cuda_nvrtc (error);
  if (rtc == NULL)
    return 0;
  g_autoptr (CrNvrtcFacts) facts = cr_nvrtc_facts_of (rtc);
  const gint oldest = oldest_arch (facts);
  *where = "no GPU: the oldest NVRTC targets";
  return oldest ? oldest : 75;
}

/* Whether NVRTC compiles for @arch; without NVRTC, or with one too old to
 * list its targets, the compile says. */
static gboolean
check_arch (gint arch)
{
  g_autoptr (GError) no_nvrtc = NULL;
  const CrNvrtc *rtc = cr_cuda_nvrtc (&no_nvrtc);
  if (rtc == NULL)
    return TRUE;
  g_autoptr (CrNvrtcFacts) facts = cr_nvrtc_facts_of (rtc);
  g_autoptr (GString) archs = g_string_new (NULL);
  for (guint k = 0; k < facts->archs->len; k++) {
    const gint a = g_array_index (facts->archs, gint, k);
    if (a == arch)
      return TRUE;
    g_string_append_printf (archs, "%s%d", k ? ", " : "", a);
  }
  if (facts->archs->len == 0)
    return TRUE;
  g_printerr ("cudareduce-monoid: --arch %d is not a target of NVRTC %s, "
              "which compiles for %s (compute capability as major * 10 + "
              "minor)\n",
      arch, facts->version, archs->str);
  return FALSE;
}

/* Whether the inline options select the inline monoid: --load or --bin. */
static gboolean
is_inline (void)
{
  return inline_text[1] != NULL || inline_text[7] != NULL;
}

/* @name as the monoid property takes it, or with --load or --bin the
 * inline options, named @name (cr_monoid_new names it "custom" without). */
static CrMonoid *
load_named (const gchar *name, GError **error)
{
  if (!is_inline ())
    return cr_monoid_load (name, error);
  g_autofree gchar *bins =
      bins_option > 0 ? g_strdup_printf ("%d", bins_option) : NULL;
  const CrMonoidText text = {
    .name = name,
    .accumulator = inline_text[0],
    .load = inline_text[1],
    .combine = inline_text[2],
    .identity = inline_text[3],
    .context = inline_text[4],
    .output = inline_text[5],
    .finalize = inline_text[6],
    .bins = bins,
    .bin = inline_text[7],
  };
  return cr_monoid_new (&text, CR_MONOID_INLINE_ORIGIN, error);
}

/* --percentiles=0.1,0.9 as the percentiles property's points. */
static GArray *
parse_points (const gchar *list, GError **error)
{
  g_autoptr (GArray) points = g_array_new (FALSE, FALSE, sizeof (gdouble));
  g_auto (GStrv) items = g_strsplit (list, ",", -1);
  for (guint k = 0; items[k]; k++) {
    gchar *end = NULL;
    const gdouble p = g_ascii_strtod (g_strstrip (items[k]), &end);
    if (items[k][0] == '\0' || *end != '\0') {
      g_set_error (error, CR_ERROR, CR_ERROR_FIELDS,
          "--percentiles: \"%s\" is not a number; give them as 0.1,0.9",
          items[k]);
      return NULL;
    }
    g_array_append_val (points, p);
  }
  return g_steal_pointer (&points);
}

/* The same with --bins, --pair and --percentiles applied. */
static CrMonoid *
load_monoid (const gchar *name, GError **error)
{
  g_autoptr (CrMonoid) m = load_named (name, error);
  if (m != NULL && bins_option < 0) {
    g_set_error (error, CR_ERROR, CR_ERROR_FIELDS,
        "--bins=%d: give a number of bins, or 0", bins_option);
    return NULL;
  }
  if (m != NULL && bins_option > 0) {
    CrMonoid *with = cr_monoid_with_bins (m, (guint)bins_option, error);
    cr_monoid_unref (m);
    m = with;
  }
  if (m != NULL && pair_option != NULL) {
    CrMonoid *with = cr_monoid_with_pair (m, pair_option, error);
    cr_monoid_unref (m);
    m = with;
  }
  if (m != NULL && percentiles_option != NULL) {
    g_autoptr (GArray) points = parse_points (percentiles_option, error);
    if (points == NULL)
      return NULL;
    CrMonoid *with = cr_monoid_with_percentiles (m, points, error);
    cr_monoid_unref (m);
    m = with;
  }
  return g_steal_pointer (&m);
}

/* NVRTC's warnings of code whose results are undefined, taken as errors:
 * the kernels would reduce garbage. */
static const struct {
  const gchar *code, *why;
} undefined_warnings[] = {
  { "#940-D", "a body can end without returning its struct" },
  { "#549-D", "a variable is read before it is set" },
};

/* @log without NVRTC's remark on -diag-suppress, an option of NVRTC's that
 * the element does not let a monoid pass. */
static gchar *
without_remark (const gchar *log)
{
  g_auto (GStrv) lines = g_strsplit (log, "\n", -1);
  GString *out = g_string_new (NULL);
  for (guint k = 0; lines[k]; k++) {
    if (g_str_has_prefix (lines[k], "Remark: The warnings can be suppressed")) {
      if (lines[k + 1] && lines[k + 1][0] == '\0')
        k++;
      continue;
    }
    g_string_append_printf (out, "%s%s", out->len ? "\n" : "", lines[k]);
  }
  return g_string_free (out, FALSE);
}

/* The first of undefined_warnings in @log, or -1. */
static gint
undefined_warning (const gchar *log)
{
  for (guint k = 0; log && k < G_N_ELEMENTS (undefined_warnings); k++)
    if (strstr (log, undefined_warnings[k].code))
      return k;
  return -1;
}

/* Writes to @out why @name did not compile for @type, with NVRTC's @log
 * (may be NULL); FALSE. */
static gboolean
compile_failed (const gchar *name, CrType type, const GError *error,
    const gchar *log, GString *out)
{
  g_autofree gchar *message = shown (error->message, TRUE);
  g_string_append_printf (
      out, "%s on %s: %s\n", name, cr_type_name (type), message);
  if (log) {
    g_autofree gchar *kept = without_remark (log);
    g_autofree gchar *shown_log = shown (kept, TRUE);
    g_string_append_printf (out, "NVRTC log:\n%s\n", shown_log);
  }
  return FALSE;
}

/* The kernels --window and --regions add to every program. */
static CrKernels
extra_kernels (void)
{
  return (window_option ? CR_KERNELS_WINDOW : 0)
      | (regions_option ? CR_KERNELS_REGIONS : 0);
}

/* --fill-cache: every program the element may build of @monoid for @type,
 * compiled through the kernel cache (those already there are only read);
 * writes the outcome to @out. */
static gboolean
fill_type (CrMonoid *monoid, CrType type, gint arch, GString *out)
{
  g_autofree gchar *name = shown (monoid->name, FALSE);
  CrKernels sets[CR_KERNELS_MAX_VARIANTS];
  const guint n = cr_kernels_variants (type, single_option, sets);
  guint compiled = 0;
  gdouble seconds = 0;
  for (guint k = 0; k < n; k++) {
    g_autoptr (GError) error = NULL;
    g_autofree gchar *log = NULL;
    g_autoptr (CrProgram) program =
        cr_program_new_with (monoid, type, sets[k] | extra_kernels ());
    if (!cr_program_check_limits (program, &error))
      return compile_failed (name, type, error, NULL, out);
    g_autoptr (CrCompiled) c =
        cr_compile (program->source, arch, CR_COMPILE_DEFAULT, &log, &error);
    if (c == NULL)
      return compile_failed (name, type, error, log, out);
    if (!c->from_cache) {
      compiled++;
      seconds += c->seconds;
    }
  }
  g_string_append_printf (out,
      "%s on %s: %u programs in the cache (%u compiled, in %.1f s of "
      "NVRTC; %u there already)\n",
      name, cr_type_name (type), n, compiled, seconds, n - compiled);
  return TRUE;
}

/* Builds @monoid for @type as the element would; writes the outcome to
 * @out. */
static gboolean
check_type (CrMonoid *monoid, CrType type, gint arch, GString *out)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *name = shown (monoid->name, FALSE);
  g_autoptr (CrProgram) program = cr_program_new_with (monoid, type,
      (single_option ? CR_KERNELS_PITCHED : CR_KERNELS_ALL) | extra_kernels ());
  if (source_option) {
    g_autofree gchar *numbered = cr_source_number_lines (program->source);
    g_autofree gchar *source = shown (numbered, TRUE);
    g_string_append_printf (out, "%s\n", source);
  }
  if (!cr_program_check_limits (program, &error)) {
    g_autofree gchar *message = shown (error->message, TRUE);
    g_string_append_printf (
        out, "%s on %s: %s\n", name, cr_type_name (type), message);
    return FALSE;
  }
  g_autofree gchar *log = NULL;
  g_autoptr (CrCompiled) compiled =
      cr_compile (program->source, arch, CR_COMPILE_NO_CACHE, &log, &error);
  if (compiled == NULL)
    return compile_failed (name, type, error, log, out);
  g_autofree gchar *warnings =
      compiled->log && strstr (compiled->log, "warning")
      ? without_remark (compiled->log)
      : NULL;
  g_autofree gchar *shown_warnings = warnings ? shown (warnings, TRUE) : NULL;
  const gint undefined = undefined_warning (warnings);
  if (undefined >= 0) {
    g_string_append_printf (out,
        "%s on %s: NVRTC's warning %s, taken as an error: %s, so the "
        "results would be undefined (--source numbers the lines "
        "cited)\nNVRTC log:\n%s\n",
        name, cr_type_name (type), undefined_warnings[undefined].code,
        undefined_warnings[undefined].why, shown_warnings);
    return FALSE;
  }
  g_autofree gchar *fields = describe_results (monoid, type);
  g_string_append_printf (out, "%s on %s: ok (%s, %.0f ms): %s\n", name,
      cr_type_name (type), compiled->target, compiled->seconds * 1e3, fields);
  /* Other warnings do not stop the element, which logs them at DEBUG
   * level. */
  if (shown_warnings)
    g_string_append_printf (out, "NVRTC warnings:\n%s\n", shown_warnings);
  return TRUE;
}

/* One input type's check, run in a pool thread; main prints its output
 * once it and those of the types before it are done, so the output is in
 * the order of the types whatever order the checks end in. */
typedef struct {
  CrMonoid *monoid;
  CrType type;
  gint arch;
  GString *out;
  gboolean ok;
  gboolean done; /* guarded by lock */
} TypeCheck;

static GMutex lock;
static GCond finished;

static void
run_check (gpointer data, gpointer user_data)
{
  TypeCheck *check = data;
  GString *out = g_string_new (NULL);
  const gboolean ok = fill_option
      ? fill_type (check->monoid, check->type, check->arch, out)
      : check_type (check->monoid, check->type, check->arch, out);
  g_mutex_lock (&lock);
  check->out = out;
  check->ok = ok;
  check->done = TRUE;
  g_cond_signal (&finished);
  g_mutex_unlock (&lock);
}

/* Checks the types from @first to @last, as many at a time as there are
 * processors (NVRTC takes seconds over each, on one thread); with more
 * than one, a progress line on stderr as each ends. */
static gboolean
check_types (CrMonoid *monoid, CrType first, CrType last, gint arch)
{
  const guint n = last - first + 1;
  g_autofree TypeCheck *checks = g_new0 (TypeCheck, n);
  GThreadPool *pool = g_thread_pool_new (
      run_check, NULL, MIN (n, g_get_num_processors ()), TRUE, NULL);
  for (guint k = 0; k < n; k++) {
    checks[k] = (TypeCheck){ monoid, first + k, arch };
    g_thread_pool_push (pool, &checks[k], NULL);
  }
  gboolean ok = TRUE;
  guint printed = 0, done = 0;
  g_mutex_lock (&lock);
  while (printed < n) {
    guint now = 0;
    for (guint k = 0; k < n; k++)
      now += checks[k].done;
    if (now == done) {
      g_cond_wait (&finished, &lock);
      continue;
    }
    done = now;
    for (; printed < n && checks[printed].done; printed++) {
      g_print ("%s", checks[printed].out->str);
      ok &= checks[printed].ok;
      g_string_free (checks[printed].out, TRUE);
    }
    if (n > 1)
      g_printerr ("cudareduce-monoid: %u of %u types checked\n", done, n);
  }
  g_mutex_unlock (&lock);
  g_thread_pool_free (pool, FALSE, TRUE);
  return ok;
}

int
main (int argc, char **argv)
{
  /* GLib's messages quote with the locale's characters, which it can only
   * print in the user's locale (without, '?' stands for each). */
  setlocale (LC_ALL, "");
  g_autoptr (GError) error = NULL;
  g_autoptr (GOptionContext) context = g_option_context_new (
      "[MONOID] - check that a cudareduce monoid compiles, without a GPU");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || argc > 2) {
    g_autofree gchar *message =
        shown (error ? error->message : "one monoid at a time", TRUE);
    g_printerr ("cudareduce-monoid: %s\n", message);
    return 2;
  }
  if (list_option)
    return list_builtins ();

  gint first = 0, last = CR_N_TYPES - 1;
  if (type_option && strcmp (type_option, "all") != 0) {
    first = last = cr_type_from_name (type_option);
    if (first < 0) {
      g_autoptr (GString) types = g_string_new (NULL);
      for (gint t = 0; t < CR_N_TYPES; t++)
        g_string_append_printf (types, "%s, ", cr_type_name (t));
      g_autofree gchar *type = shown (type_option, FALSE);
      g_printerr ("cudareduce-monoid: no input type '%s' (%sor all)\n", type,
          types->str);
      return 2;
    }
  }
  if (all_option
      && (argc > 1 || is_inline () || bins_option || percentiles_option
          || pair_option)) {
    g_printerr ("cudareduce-monoid: --all checks the built-ins as they are: "
                "give no MONOID, inline monoid, --bins, --percentiles or "
                "--pair with it\n");
    return 2;
  }
  if (argc < 2 && !is_inline () && !all_option) {
    g_autofree gchar *help = g_option_context_get_help (context, TRUE, NULL);
    g_printerr ("%s", help);
    return 2;
  }
  if (arch_option != G_MININT && !check_arch (arch_option))
    return 2;
  g_auto (GStrv) names =
      all_option ? cr_monoid_builtin_names () : g_new0 (gchar *, 2);
  if (!all_option)
    names[0] = g_strdup (argc > 1 ? argv[1] : NULL);
  /* Loaded first: a bad monoid is said before anything is compiled. */
  g_autoptr (GPtrArray) monoids =
      g_ptr_array_new_with_free_func ((GDestroyNotify)cr_monoid_unref);
  for (guint k = 0; k == 0 || names[k]; k++) {
    CrMonoid *monoid = load_monoid (names[k], &error);
    if (monoid == NULL) {
      g_autofree gchar *message = shown (error->message, TRUE);
      g_print ("%s\n", message);
      return 1;
    }
    g_ptr_array_add (monoids, monoid);
    if (names[k] == NULL)
      break;
  }
  const gchar *where = "--arch";
  gint arch = arch_option;
  g_autofree gchar *cache_dir = cr_cache_dir ();
  if (fill_option) {
    /* Images are for one architecture: without a GPU, say whose. */
    g_autoptr (GError) no_gpu = NULL;
    g_autoptr (CrDevice) device =
        arch == G_MININT ? cr_device_open (-1, &no_gpu) : NULL;
    if (arch == G_MININT && device == NULL) {
      g_autofree gchar *message = shown (no_gpu->message, TRUE);
      g_printerr ("cudareduce-monoid: --fill-cache without a GPU: name the "
                  "GPU the cache is for with --arch, its compute capability "
                  "as major * 10 + minor (--arch=90 for an H100 or H200). "
                  "No GPU here: %s\n",
          message);
      return 2;
    }
    /* A cache the element would not use (another user's, one others can
     * write to) is refused here, not filled in vain. */
    g_autoptr (CrCache) cache = cr_cache_open (cache_dir, &error);
    if (cache == NULL) {
      g_autofree gchar *message = shown (error->message, TRUE);
      g_printerr ("cudareduce-monoid: the kernel cache: %s\n", message);
      return 1;
    }
  }
  if (arch == G_MININT && (arch = default_arch (&where, &error)) == 0) {
    g_autofree gchar *message = shown (error->message, TRUE);
    g_print ("%s\n", message);
    return 1;
  }
  if (fill_option) {
    g_autofree gchar *dir = shown (cache_dir, FALSE);
    g_print ("filling the kernel cache in %s\n", dir);
  }
  gboolean ok = TRUE;
  for (guint k = 0; k < monoids->len; k++) {
    CrMonoid *monoid = g_ptr_array_index (monoids, k);
    g_autofree gchar *name = shown (monoid->name, FALSE);
    g_autofree gchar *origin = shown (monoid->origin, FALSE);
    g_print ("monoid %s (%s), for sm_%d (%s)\n", name, origin, arch, where);
    ok &= check_types (monoid, first, last, arch);
  }
  if (monoids->len > 1)
    g_print ("%u monoids: %s\n", monoids->len,
        ok ? "every one compiles" : "NOT every one compiles (above)");
  return ok ? 0 : 1;
}
