/* test-compile.c: every built-in monoid compiles with the real NVRTC for
 * every input type, for sm_90 and an older architecture; a body that does
 * not compile gives CR_ERROR_COMPILE with NVRTC's log; the disk cache
 * returns what was compiled and recompiles a corrupt entry. No GPU needed. */
#include "cr-test-util.h"

#include "cr-compiler.h"
#include "cr-error.h"
#include "cr-program.h"

#include <glib/gstdio.h>
#include <string.h>

/* sm_90 (Hopper, the H200) and sm_75 (Turing, the oldest CUDA 13 targets). */
static const gint archs[] = { 90, 75 };

static gchar *cache_dir;

/* The line of @source where the kernel template starts. */
static guint
template_line (const gchar *source)
{
  const gchar *start = strstr (source, "/* kernels/reduce.cu:");
  fail_unless (start != NULL);
  guint line = 1;
  for (const gchar *p = source; p < start; p++)
    line += *p == '\n';
  return line;
}

/* The last line NVRTC's @log warns about ("cudareduce.cu(N): warning"),
 * or 0. */
static guint
last_warning_line (const gchar *log)
{
  guint largest = 0;
  for (const gchar *p = log; p && (p = strstr (p, "cudareduce.cu(")); p++) {
    guint line = 0;
    gchar kind[8] = "";
    if (sscanf (p, "cudareduce.cu(%u): %7s", &line, kind) == 2
        && strcmp (kind, "warning") == 0)
      largest = MAX (largest, line);
  }
  return largest;
}

/* One build of test_builtins_compile, run on a pool thread: NVRTC takes a
 * second or more per program, and programs compile independently. */
typedef struct {
  CrProgram *program;
  gint arch; /* 0: the newest, with the per-channel kernels */
  gboolean ok;
  gsize image_size;
  gboolean from_cache;
  gchar *log; /* NVRTC's, of a failed build or of a built one's warnings */
  gchar *message;
} Build;

/* Builds done and to do, for the progress lines. */
static gint builds_done;
static guint builds_total;

/* A line every tenth of the builds, for `meson test`, which shows this
 * test's output as it runs. */
static void
note_progress (void)
{
  const guint done = (guint)g_atomic_int_add (&builds_done, 1) + 1;
  if (done % MAX (1, builds_total / 10) == 0 || done == builds_total) {
    g_print ("compile: %u of %u programs built\n", done, builds_total);
    fflush (stdout); /* a pipe to meson: shown as it happens */
  }
}

static void
build_one (gpointer data, gpointer user_data)
{
  Build *b = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (CrCompiled) c = cr_compile (b->program->source,
      b->arch ? b->arch : archs[0], CR_COMPILE_NO_CACHE, &b->log, &error);
  b->ok = c != NULL;
  if (c == NULL) {
    b->message = g_strdup (error->message);
    note_progress ();
    return;
  }
  b->image_size = g_bytes_get_size (c->image);
  b->from_cache = c->from_cache;
  b->log = g_strdup (c->log);
  note_progress ();
}

/* Whether the sweep builds monoid @m of @n_names on type @t: everything
 * with @all (CUDAREDUCE_COMPILE_ALL=1, as CI sets), otherwise every monoid
 * on float32 and every type with one monoid, taken in turn: each template
 * and type path is built, in a fifth of the time. */
static gboolean
in_sweep (gboolean all, guint m, guint n_names, gint t)
{
  return all || t == CR_TYPE_FLOAT32 || (guint)t % n_names == m;
}

GST_START_TEST (test_builtins_compile)
{
  g_auto (GStrv) names = cr_monoid_builtin_names ();
  const guint n_names = g_strv_length (names);
  /* Per monoid and type: each architecture, then the per-channel program. */
  const guint per_type = G_N_ELEMENTS (archs) + 1;
  const guint n_builds = n_names * CR_N_TYPES * per_type;
  g_autofree Build *builds = g_new0 (Build, n_builds);
  const gboolean all =
      g_strcmp0 (g_getenv ("CUDAREDUCE_COMPILE_ALL"), "1") == 0;
  guint n_swept = 0;

  fail_unless (n_names >= 9);
  for (guint m = 0; m < n_names; m++) {
    g_autoptr (GError) error = NULL;
    g_autoptr (CrMonoid) monoid = cr_monoid_load (names[m], &error);
    fail_unless (
        monoid != NULL, "%s: %s", names[m], error ? error->message : "");
    for (gint t = 0; t < CR_N_TYPES; t++) {
      if (!in_sweep (all, m, n_names, t))
        continue;
      Build *b = &builds[(m * CR_N_TYPES + t) * per_type];
      n_swept += per_type;
      /* The newest with the pitched kernel (video), the older without
       * (audio and tensors), so that both sets are built. */
      for (guint a = 0; a < G_N_ELEMENTS (archs); a++) {
        b[a].program = a == 0 ? cr_program_new (monoid, t)
                              : cr_program_new_with (monoid, t, 0);
        b[a].arch = archs[a];
      }
      /* With the per-channel kernels, for the newest architecture. */
      b[G_N_ELEMENTS (archs)].program = cr_program_new_per_channel (monoid, t);
    }
  }

  builds_total = n_swept;
  g_atomic_int_set (&builds_done, 0);
  GThreadPool *pool = g_thread_pool_new (
      build_one, NULL, MAX (1, (gint)g_get_num_processors ()), TRUE, NULL);
  for (guint k = 0; k < n_builds; k++)
    if (builds[k].program)
      g_thread_pool_push (pool, &builds[k], NULL);
  g_thread_pool_free (pool, FALSE, TRUE);

  for (guint k = 0; k < n_builds; k++) {
    Build *b = &builds[k];
    if (b->program == NULL)
      continue;
    const gchar *name = names[k / per_type / CR_N_TYPES];
    const gchar *type = cr_type_name (b->program->in);
    if (!b->ok) {
      /* The source and log are too long for check's message. */
      g_autofree gchar *numbered = cr_source_number_lines (b->program->source);
      g_printerr ("%s\n%s\n", b->log ? b->log : "", numbered);
      if (b->arch)
        fail ("%s on %s for sm_%d: %s", name, type, b->arch, b->message);
      fail ("%s per channel on %s: %s", name, type, b->message);
    }
    fail_unless (b->image_size > 0, "%s on %s: an empty image", name, type);
    fail_if (b->from_cache, "%s on %s: from the cache", name, type);
    /* The element logs NVRTC's warnings at DEBUG level, for users' code:
     * the kernels give none of their own. */
    const guint line = last_warning_line (b->log);
    fail_if (line >= template_line (b->program->source), "%s on %s: %s", name,
        type, b->log);
  }
  for (guint k = 0; k < n_builds; k++) {
    cr_program_free (builds[k].program);
    g_free (builds[k].log);
    g_free (builds[k].message);
  }
  g_print ("%u builds of %u built-in monoids on %u threads%s\n", n_swept,
      n_names, MAX (1, g_get_num_processors ()),
      n_swept < n_builds ? " (CUDAREDUCE_COMPILE_ALL=1 builds every type)"
                         : "");
}

GST_END_TEST;

/* The program of the monoid @text for @in input. */
static CrProgram *
program_of (const CrMonoidText *text, CrType in)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CrMonoid) monoid = cr_monoid_new (text, "test", &error);
  fail_unless (monoid != NULL, "%s", error ? error->message : "");
  return cr_program_new (monoid, in);
}

static CrProgram *
inline_program (const gchar *load, CrType in)
{
  CrMonoidText text = {
    .name = "t",
    .accumulator = "s:wide",
    .load = load,
    .combine = "Acc r; r.s = a.s + b.s; return r;",
    .identity = "Acc r; r.s = 0; return r;",
  };
  return program_of (&text, in);
}

GST_START_TEST (test_compile_error_has_log)
{
  g_autoptr (CrProgram) program = inline_program (
      "Acc r; r.s = x + undefined_name; return r;", CR_TYPE_INT32);
  g_autoptr (GError) error = NULL;
  g_autofree gchar *log = NULL;
  g_autoptr (CrCompiled) c =
      cr_compile (program->source, 90, CR_COMPILE_NO_CACHE, &log, &error);

  fail_unless (c == NULL);
  fail_unless (g_error_matches (error, CR_ERROR, CR_ERROR_COMPILE));
  fail_unless (
      strstr (error->message, "undefined_name") != NULL, "%s", error->message);
  fail_unless (log != NULL && strstr (log, "undefined_name") != NULL);
  /* The log cites a line of the generated source, which holds the body. */
  g_auto (GStrv) lines = g_strsplit (program->source, "\n", -1);
  const gchar *paren = strstr (log, "cudareduce.cu(");
  fail_unless (paren != NULL, "%s", log);
  guint line =
      (guint)g_ascii_strtoull (paren + strlen ("cudareduce.cu("), NULL, 10);
  fail_unless (line >= 1 && line <= g_strv_length (lines));
  fail_unless (strstr (lines[line - 1], "undefined_name") != NULL,
      "line %u is \"%s\"", line, lines[line - 1]);
}

GST_END_TEST;

static GPtrArray *
cache_entries (void)
{
  GPtrArray *entries = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GDir) dir = g_dir_open (cache_dir, 0, NULL);
  const gchar *name;
  while (dir && (name = g_dir_read_name (dir)))
    if (g_str_has_suffix (name, ".bin"))
      g_ptr_array_add (entries, g_build_filename (cache_dir, name, NULL));
  return entries;
}

GST_START_TEST (test_cache_roundtrip_and_corruption)
{
  /* A source no other test compiles, so the cache starts without it. */
  g_autofree gchar *load =
      g_strdup_printf ("Acc r; r.s = x + %" G_GINT64_FORMAT "; return r;",
          g_get_real_time () % 1000003);
  g_autoptr (CrProgram) program = inline_program (load, CR_TYPE_FLOAT32);
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) before = cache_entries ();

  g_autoptr (CrCompiled) cold =
      cr_compile (program->source, 90, CR_COMPILE_DEFAULT, NULL, &error);
  fail_unless (cold != NULL && !cold->from_cache);
  g_autoptr (GPtrArray) after = cache_entries ();
  fail_unless_equals_int (after->len, before->len + 1);

  g_autoptr (CrCompiled) warm =
      cr_compile (program->source, 90, CR_COMPILE_DEFAULT, NULL, &error);
  fail_unless (warm != NULL && warm->from_cache);
  fail_unless (g_bytes_equal (cold->image, warm->image));

  /* Another architecture is another entry. */
  g_autoptr (CrCompiled) other =
      cr_compile (program->source, 80, CR_COMPILE_DEFAULT, NULL, &error);
  fail_unless (other != NULL && !other->from_cache);

  /* Find our entry: the one whose payload is the cold image. */
  const gchar *entry = NULL;
  for (guint k = 0; k < after->len && !entry; k++) {
    if (g_ptr_array_find_with_equal_func (
            before, after->pdata[k], g_str_equal, NULL))
      continue;
    entry = after->pdata[k];
  }
  fail_unless (entry != NULL);

  /* Truncated: recompiled, and rewritten whole. */
  g_autofree gchar *contents = NULL;
  gsize length = 0;
  fail_unless (g_file_get_contents (entry, &contents, &length, NULL));
  fail_unless (g_file_set_contents (entry, contents, length / 2, NULL));
  g_autoptr (CrCompiled) truncated =
      cr_compile (program->source, 90, CR_COMPILE_DEFAULT, NULL, &error);
  fail_unless (truncated != NULL && !truncated->from_cache);
  fail_unless (g_bytes_equal (cold->image, truncated->image));

  /* One flipped byte in the payload: recompiled too. */
  contents[length - 7] ^= 0x5a;
  fail_unless (g_file_set_contents (entry, contents, length, NULL));
  g_autoptr (CrCompiled) flipped =
      cr_compile (program->source, 90, CR_COMPILE_DEFAULT, NULL, &error);
  fail_unless (flipped != NULL && !flipped->from_cache);
  fail_unless (g_bytes_equal (cold->image, flipped->image));

  /* And the rewritten entry is good again. */
  g_autoptr (CrCompiled) again =
      cr_compile (program->source, 90, CR_COMPILE_DEFAULT, NULL, &error);
  fail_unless (again != NULL && again->from_cache);
}

GST_END_TEST;

GST_START_TEST (test_generated_source_has_no_include)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CrMonoid) monoid = cr_monoid_load ("mean_var", &error);
  g_autoptr (CrProgram) program = cr_program_new (monoid, CR_TYPE_INT16);
  fail_if (strstr (program->source, "#include") != NULL);
  fail_unless (strstr (program->source, "typedef int16 In;") != NULL);
  fail_unless (strstr (program->source, "struct Out {") != NULL);
}

GST_END_TEST;

/* A name that closes the source's first comment and defines a macro, and a
 * valid monoid in a directory whose name closes it too: neither may change
 * or break the code (the name and the path are escaped in the comment). */
GST_START_TEST (test_names_and_paths_are_not_code)
{
  static const gchar *file =
      "[Monoid]\n"
      "Name=sum */ #define double float /*\n"
      "Accumulator=s:float64\n"
      "Load=static_assert (sizeof (double) == 8, \"double is a float\"); "
      "Acc r; r.s = x; return r;\n"
      "Combine=Acc r; r.s = a.s + b.s; return r;\n"
      "Identity=Acc r; r.s = 0; return r;\n";
  g_autoptr (GError) error = NULL;
  g_autofree gchar *dir = g_dir_make_tmp ("cr-compile-XXXXXX", NULL);
  g_autofree gchar *star = g_build_filename (dir, "dir*", NULL);
  g_autofree gchar *path = g_build_filename (star, "x.monoid", NULL);
  fail_unless (g_mkdir (star, 0700) == 0);
  fail_unless (g_file_set_contents (path, file, -1, NULL));
  g_autoptr (CrMonoid) monoid = cr_monoid_load (path, &error);
  fail_unless (monoid != NULL, "%s", error ? error->message : "");
  g_unlink (path);
  g_rmdir (star);
  g_rmdir (dir);

  g_autoptr (CrProgram) program = cr_program_new (monoid, CR_TYPE_INT32);
  g_autofree gchar *log = NULL;
  g_autoptr (CrCompiled) c =
      cr_compile (program->source, 90, CR_COMPILE_NO_CACHE, &log, &error);
  if (c == NULL) {
    /* The source is too long for check's message. */
    g_autofree gchar *numbered = cr_source_number_lines (program->source);
    g_printerr ("%s", numbered);
    fail ("%s\n%s", error->message, log ? log : "");
  }
}

GST_END_TEST;

/* Bodies that end in a backslash, as a // comment may: the line splice
 * must not take the function's closing brace. */
GST_START_TEST (test_body_ending_in_a_backslash)
{
  const CrMonoidText text = {
    .name = "backslash",
    .accumulator = "s:wide",
    .load = "Acc r; r.s = x; return r; // a load \\",
    .combine = "Acc r; r.s = a.s + b.s; return r; // \\",
    .identity = "Acc r; r.s = 0; return r; // \\",
  };
  g_autoptr (GError) error = NULL;
  g_autoptr (CrProgram) program = program_of (&text, CR_TYPE_INT32);
  g_autofree gchar *log = NULL;
  g_autoptr (CrCompiled) c =
      cr_compile (program->source, 90, CR_COMPILE_NO_CACHE, &log, &error);
  if (c == NULL) {
    /* The log is too long for check's message. */
    g_printerr ("%s\n", log ? log : "");
    fail ("%s", error->message);
  }
}

GST_END_TEST;

static CrCompiled *
compile_or_print (const CrProgram *program, gint arch, GError **error)
{
  g_autofree gchar *log = NULL;
  CrCompiled *c =
      cr_compile (program->source, arch, CR_COMPILE_NO_CACHE, &log, error);
  if (c == NULL) {
    /* The source and log are too long for check's message. */
    g_autofree gchar *numbered = cr_source_number_lines (program->source);
    g_printerr ("%s\n%s\n", log ? log : "", numbered);
  }
  return c;
}

/* Fused monoids: three built-ins for every input type, and per channel
 * for two; four with finalizers and context, the same monoid twice
 * labelled apart, for the narrowest and widest types. */
GST_START_TEST (test_fused_compile)
{
  static const struct {
    const gchar *list;
    CrType type;
    gboolean per_channel;
  } builds[] = {
    { "sumsq+minmax+count_gt", CR_TYPE_INT16, TRUE },
    { "sumsq+minmax+count_gt", CR_TYPE_FLOAT32, TRUE },
    { "mean_var+argmax+lo=count_gt+hi=count_gt", CR_TYPE_INT8, FALSE },
    { "mean_var+argmax+lo=count_gt+hi=count_gt", CR_TYPE_FLOAT64, FALSE },
  };
  guint compiled = 0;
  g_autoptr (GError) error = NULL;

  g_autoptr (CrMonoid) three = cr_monoid_load (builds[0].list, &error);
  fail_unless (three != NULL, "%s", error ? error->message : "");
  for (gint t = 0; t < CR_N_TYPES; t++) {
    g_autoptr (CrProgram) program = cr_program_new (three, t);
    g_autoptr (CrCompiled) c = compile_or_print (program, archs[0], &error);
    fail_unless (c != NULL, "%s on %s: %s", builds[0].list, cr_type_name (t),
        error ? error->message : "");
    compiled++;
  }
  for (guint k = 0; k < G_N_ELEMENTS (builds); k++) {
    g_autoptr (CrMonoid) monoid = cr_monoid_load (builds[k].list, &error);
    fail_unless (monoid != NULL, "%s", error ? error->message : "");
    g_autoptr (CrProgram) program = builds[k].per_channel
        ? cr_program_new_per_channel (monoid, builds[k].type)
        : cr_program_new (monoid, builds[k].type);
    g_autoptr (CrCompiled) c = compile_or_print (program, archs[0], &error);
    fail_unless (c != NULL, "%s on %s: %s", builds[k].list,
        cr_type_name (builds[k].type), error ? error->message : "");
    compiled++;
  }
  g_print ("%u builds of fused monoids\n", compiled);
}

GST_END_TEST;

static gboolean
image_has (const CrCompiled *c, const gchar *name)
{
  gsize size = 0;
  const guint8 *image = g_bytes_get_data (c->image, &size);
  const gsize len = strlen (name) + 1; /* a whole symbol, NUL included */
  for (gsize k = 0; k + len <= size; k++)
    if (memcmp (image + k, name, len) == 0)
      return TRUE;
  return FALSE;
}

/* A program has the kernels it was asked for and no others: their names
 * are in the compiled image's symbols or not. */
GST_START_TEST (test_kernel_sets)
{
  static const struct {
    CrKernels kernels;
    const gchar *has, *lacks;
  } sets[] = {
    { 0, "cr_reduce_batch", "cr_reduce_pitched" },
    { 0, "cr_reduce", "cr_reduce_channels" },
    { 0, "cr_reduce", "cr_window" },
    { CR_KERNELS_WINDOW, "cr_window", "cr_reduce_pitched" },
    { CR_KERNELS_REGIONS, "cr_reduce_regions4", "cr_window" },
    { CR_KERNELS_PITCHED, "cr_reduce_pitched", "cr_reduce_channels" },
    { CR_KERNELS_CHANNELS | CR_KERNELS_VEC2, "cr_reduce_channels_vec2",
        "cr_reduce_channels_vec4" },
    { CR_KERNELS_VEC4, "cr_reduce_channels", "cr_reduce_pitched" },
    { CR_KERNELS_ALL, "cr_reduce_channels_vec4", "cr_reduce_channels_vec8" },
  };
  g_autoptr (GError) error = NULL;
  g_autoptr (CrMonoid) monoid = cr_monoid_load ("minmax", &error);

  for (guint k = 0; k < G_N_ELEMENTS (sets); k++) {
    /* float32: four to a load, so never eight. */
    g_autoptr (CrProgram) p =
        cr_program_new_with (monoid, CR_TYPE_FLOAT32, sets[k].kernels);
    g_autoptr (CrCompiled) c = compile_or_print (p, archs[0], &error);
    fail_unless (c != NULL, "%s", error ? error->message : "");
    fail_if (c->is_ptx);
    fail_unless (image_has (c, sets[k].has), "kernels 0x%x: no %s",
        sets[k].kernels, sets[k].has);
    fail_if (image_has (c, sets[k].lacks), "kernels 0x%x: %s is there",
        sets[k].kernels, sets[k].lacks);
    fail_unless_equals_int (
        p->per_channel, (sets[k].kernels & CR_KERNELS_PER_CHANNEL) != 0);
  }
}

GST_END_TEST;

/* The window's kernels compile beside every kind of monoid: one with an
 * accumulator, fused, one with bins and percentiles, one that only counts
 * bins, and a 2-D histogram; those with bins get the kernel that adds
 * counts up. */
GST_START_TEST (test_window_kernels_compile)
{
  static const struct {
    const gchar *monoid;
    CrType in;
    gboolean bins;
  } cases[] = {
    { "mean_var", CR_TYPE_FLOAT32, FALSE },
    { "argmax+sumsq", CR_TYPE_INT16, FALSE },
    { "signalstats", CR_TYPE_UINT8, TRUE },
    { "histogram", CR_TYPE_UINT16, TRUE },
    { "vectorscope", CR_TYPE_UINT8, TRUE },
  };
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++) {
    g_autoptr (GError) error = NULL;
    g_autoptr (CrMonoid) monoid = cr_monoid_load (cases[k].monoid, &error);
    fail_unless (monoid != NULL, "%s", error ? error->message : "");
    g_autoptr (CrProgram) p =
        cr_program_new_with (monoid, cases[k].in, CR_KERNELS_WINDOW);
    g_autoptr (CrCompiled) c = compile_or_print (p, archs[0], &error);
    fail_unless (
        c != NULL, "%s: %s", cases[k].monoid, error ? error->message : "");
    fail_unless (image_has (c, "cr_window"), "%s", cases[k].monoid);
    fail_unless_equals_int (image_has (c, "cr_window_bins"), cases[k].bins);
  }
}

GST_END_TEST;

/* The regions' kernel compiles beside a monoid with a finalize and a
 * fused one, on video's sample types. */
GST_START_TEST (test_regions_kernel_compiles)
{
  static const struct {
    const gchar *monoid;
    CrType in;
  } cases[] = {
    { "mean_var", CR_TYPE_UINT8 },
    { "argmax+sumsq", CR_TYPE_UINT16 },
  };
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++) {
    g_autoptr (GError) error = NULL;
    g_autoptr (CrMonoid) monoid = cr_monoid_load (cases[k].monoid, &error);
    fail_unless (monoid != NULL, "%s", error ? error->message : "");
    g_autoptr (CrProgram) p = cr_program_new_with (
        monoid, cases[k].in, CR_KERNELS_REGIONS | CR_KERNELS_PITCHED);
    g_autoptr (CrCompiled) c = compile_or_print (p, archs[0], &error);
    fail_unless (
        c != NULL, "%s: %s", cases[k].monoid, error ? error->message : "");
    fail_unless (image_has (c, "cr_reduce_regions1"), "%s", cases[k].monoid);
    fail_unless (image_has (c, "cr_window_regions"), "%s", cases[k].monoid);
  }
}

GST_END_TEST;

/* A monoid of @n float64 accumulator fields, on float32 input. */
static CrProgram *
wide_program (guint n)
{
  g_autoptr (GString) fields = g_string_new (NULL);
  g_autoptr (GString) load = g_string_new ("Acc r; ");
  g_autoptr (GString) combine = g_string_new ("Acc r; ");
  g_autoptr (GString) identity = g_string_new ("Acc r; ");
  for (guint f = 0; f < n; f++) {
    g_string_append_printf (fields, "f%u:float64;", f);
    g_string_append_printf (load, "r.f%u = x * %u; ", f, f);
    g_string_append_printf (combine, "r.f%u = a.f%u + b.f%u; ", f, f, f);
    g_string_append_printf (identity, "r.f%u = 0; ", f);
  }
  g_string_append (load, "return r;");
  g_string_append (combine, "return r;");
  g_string_append (identity, "return r;");
  CrMonoidText text = { .name = "wide_acc",
    .accumulator = fields->str,
    .load = load->str,
    .combine = combine->str,
    .identity = identity->str };
  return program_of (&text, CR_TYPE_FLOAT32);
}

/* CR_ACC_MAX_BYTES is what the kernels really hold: an accumulator of
 * that size compiles, and a larger one is refused before NVRTC. */
GST_START_TEST (test_largest_accumulator_compiles)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CrProgram) largest = wide_program (CR_ACC_MAX_BYTES / 8);
  g_autoptr (CrProgram) larger = wide_program (CR_ACC_MAX_BYTES / 8 + 1);

  fail_unless_equals_int (largest->acc.size, CR_ACC_MAX_BYTES);
  fail_unless (cr_program_check_limits (largest, &error));
  g_autoptr (CrCompiled) c = compile_or_print (largest, archs[0], &error);
  fail_unless (c != NULL, "%s", error ? error->message : "");
  fail_if (cr_program_check_limits (larger, &error));
  fail_unless (g_error_matches (error, CR_ERROR, CR_ERROR_FIELDS));
  fail_unless (
      strstr (error->message, "192 bytes") != NULL, "%s", error->message);
}

GST_END_TEST;

/* A monoid whose context is @n float64 fields, on float32 input. */
static CrProgram *
wide_context_program (guint n)
{
  g_autoptr (GString) context = g_string_new (NULL);
  for (guint f = 0; f < n; f++)
    g_string_append_printf (context, "c%u:float64;", f);
  CrMonoidText text = { .name = "wide_ctx",
    .accumulator = "s:wide",
    .load = "Acc r; r.s = x + ctx.c0; return r;",
    .combine = "Acc r; r.s = a.s + b.s; return r;",
    .identity = "Acc r; r.s = 0; return r;",
    .context = context->str };
  return program_of (&text, CR_TYPE_FLOAT32);
}

/* CR_CTX_MAX_BYTES of context compiles; a larger context is refused before
 * NVRTC, which would say only "Formal parameter space overflowed", with
 * its size and the limit. */
GST_START_TEST (test_largest_context_compiles)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CrProgram) largest = wide_context_program (CR_CTX_MAX_BYTES / 8);
  g_autoptr (CrProgram) larger =
      wide_context_program (CR_CTX_MAX_BYTES / 8 + 1);

  fail_unless_equals_int (largest->ctx.size, CR_CTX_MAX_BYTES);
  fail_unless (cr_program_check_limits (largest, &error));
  g_autoptr (CrCompiled) c = compile_or_print (largest, archs[0], &error);
  fail_unless (c != NULL, "%s", error ? error->message : "");
  fail_if (cr_program_check_limits (larger, &error));
  fail_unless (g_error_matches (error, CR_ERROR, CR_ERROR_FIELDS));
  fail_unless (strstr (error->message, "takes 2008 bytes") != NULL
          && strstr (error->message, "at most 2000 bytes") != NULL,
      "%s", error->message);
}

GST_END_TEST;

/* What the host and the kernels share is checked where it crosses: a
 * source whose side drifted from the host's does not compile, and says
 * what drifted. Each edit stands for a change made on one side only: the
 * generated structs against the offsets the host computed, the batch's
 * segment against the literal layout the host packs, the kernels' load
 * against the width the host sizes grids by. */
GST_START_TEST (test_abi_drift_fails_to_compile)
{
  static const struct {
    const gchar *from, *to, *says;
  } drifts[] = {
    /* A segment field moved. */
    { "  cr_u32 flags; /* CR_SEGMENT_* */\n  cr_u32 result;\n",
        "  cr_u32 result;\n  cr_u32 flags; /* CR_SEGMENT_* */\n",
        "CrSegment offsets" },
    /* A frame's blocks swapped with where they start. */
    { "  cr_u32 first_block; /* it is read by blocks first_block... */\n"
      "  cr_u32 blocks; /* ...this many */\n",
        "  cr_u32 blocks; /* ...this many */\n"
        "  cr_u32 first_block; /* it is read by blocks first_block... */\n",
        "CrFrame offsets" },
    /* Accumulator fields reordered: the same size, other offsets. */
    { "  int32 min;\n  int32 max;\n", "  int32 max;\n  int32 min;\n",
        "Acc.min offset" },
    /* Loads of another width than the host sizes its grids by. */
    { "#define CR_LOAD_BYTES 16\n", "#define CR_LOAD_BYTES 32\n",
        "a load is a uint4" },
  };
  g_autoptr (GError) error = NULL;
  g_autoptr (CrMonoid) monoid = cr_monoid_load ("minmax", &error);
  fail_unless (monoid != NULL, "%s", error ? error->message : "");
  g_autoptr (CrProgram) program = cr_program_new (monoid, CR_TYPE_INT32);

  for (guint k = 0; k < G_N_ELEMENTS (drifts); k++) {
    const gchar *at = strstr (program->source, drifts[k].from);
    fail_unless (at != NULL, "no \"%s\" in the source", drifts[k].from);
    g_autofree gchar *source =
        g_strdup_printf ("%.*s%s%s", (int)(at - program->source),
            program->source, drifts[k].to, at + strlen (drifts[k].from));
    g_autofree gchar *log = NULL;
    g_clear_error (&error);
    g_autoptr (CrCompiled) c =
        cr_compile (source, 90, CR_COMPILE_NO_CACHE, &log, &error);
    fail_unless (c == NULL, "drift %u compiled", k);
    fail_unless (g_error_matches (error, CR_ERROR, CR_ERROR_COMPILE));
    fail_unless (log != NULL && strstr (log, drifts[k].says) != NULL,
        "drift %u: no \"%s\" in %s", k, drifts[k].says, log);
  }
  /* Unedited, it compiles. */
  g_autoptr (CrCompiled) c = compile_or_print (program, 90, &error);
  fail_unless (c != NULL, "%s", error ? error->message : "");
}

GST_END_TEST;

static Suite *
compile_suite (void)
{
  Suite *s = suite_create ("compile");
  TCase *tc = tcase_create ("nvrtc");
  tcase_set_timeout (tc, 600);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_generated_source_has_no_include);
  tcase_add_test (tc, test_compile_error_has_log);
  tcase_add_test (tc, test_names_and_paths_are_not_code);
  tcase_add_test (tc, test_body_ending_in_a_backslash);
  tcase_add_test (tc, test_cache_roundtrip_and_corruption);
  tcase_add_test (tc, test_builtins_compile);
  tcase_add_test (tc, test_fused_compile);
  tcase_add_test (tc, test_largest_accumulator_compiles);
  tcase_add_test (tc, test_largest_context_compiles);
  tcase_add_test (tc, test_kernel_sets);
  tcase_add_test (tc, test_window_kernels_compile);
  tcase_add_test (tc, test_regions_kernel_compiles);
  tcase_add_test (tc, test_abi_drift_fails_to_compile);
  return s;
}

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  cr_test_require_nvrtc ();
  g_autofree gchar *dir = cr_cache_dir ();
  cache_dir = g_steal_pointer (&dir);
  return gst_check_run_suite (compile_suite (), "compile", __FILE__);
}
