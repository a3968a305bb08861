/* test-monoid.c: parsing and validating monoids, struct layouts and context
 * packing. No GPU and no NVRTC needed. */
#include "cr-test-monoid.h"
#include "cr-test-util.h"

#include "cr-error.h"
#include "cr-program.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

GST_START_TEST (test_good_file)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CrMonoid) m =
      cr_monoid_new_from_data (cr_test_good_monoid, -1, "x.monoid", &error);
  fail_unless (m != NULL, "%s", error ? error->message : "");
  fail_unless_equals_string (m->name, "range");
  fail_unless_equals_int (m->accumulator->len, 1);
  fail_unless_equals_int (m->context->len, 2);
  fail_unless_equals_int (m->output->len, 0);
  fail_unless (m->finalize == NULL);
  fail_unless (cr_monoid_result_fields (m) == m->accumulator);
}

GST_END_TEST;

GST_START_TEST (test_missing_keys)
{
  const gchar *required[] = { "Accumulator", "Load", "Combine", "Identity" };
  for (guint k = 0; k < G_N_ELEMENTS (required); k++) {
    g_autofree gchar *missing = cr_test_edit_monoid (required[k], NULL);
    cr_test_assert_rejected (missing, CR_ERROR_MONOID_INVALID, required[k]);
    g_autofree gchar *empty_line = g_strdup_printf ("%s=  ", required[k]);
    g_autofree gchar *empty = cr_test_edit_monoid (required[k], empty_line);
    cr_test_assert_rejected (empty, CR_ERROR_MONOID_INVALID, required[k]);
  }
}

GST_END_TEST;

GST_START_TEST (test_bad_fields)
{
  static const struct {
    const gchar *line;
    const gchar *mention;
  } cases[] = {
    { "Accumulator=inside:int128", "int128" },
    { "Accumulator=inside", "no type" },
    { "Accumulator=1inside:uint64", "1inside" },
    { "Accumulator=inside:uint64;inside:int32", "twice" },
    { "Accumulator=int:uint64", "\"int\"" },
    { "Accumulator=cr_x:uint64", "cr_x" },
    { "Accumulator= ; ;", "no fields" },
    { "Accumulator=count:uint64", "count" },
    { "Accumulator=counts:uint64", "counts" },
    { "Accumulator=channels:uint64", "channels" },
  };
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++) {
    g_autofree gchar *data = cr_test_edit_monoid ("Accumulator", cases[k].line);
    cr_test_assert_rejected (data, CR_ERROR_FIELDS, cases[k].mention);
  }
  g_autofree gchar *context =
      cr_test_edit_monoid ("Context", "Context=lo:double");
  cr_test_assert_rejected (context, CR_ERROR_FIELDS, "Context");
}

GST_END_TEST;

GST_START_TEST (test_output_and_finalize_go_together)
{
  g_autofree gchar *out_only =
      g_strconcat (cr_test_good_monoid, "Output=m:float64\n", NULL);
  cr_test_assert_rejected (out_only, CR_ERROR_MONOID_INVALID, "Finalize");
  g_autofree gchar *fin_only =
      g_strconcat (cr_test_good_monoid, "Finalize=Out o; return o;\n", NULL);
  cr_test_assert_rejected (fin_only, CR_ERROR_MONOID_INVALID, "Output");
  /* Not blank, but no field (found by fuzzing). */
  g_autofree gchar *no_fields = g_strconcat (
      cr_test_good_monoid, "Output=;\nFinalize=Out o; return o;\n", NULL);
  cr_test_assert_rejected (
      no_fields, CR_ERROR_FIELDS, "Output declares no fields");
  /* Output fields, not the accumulator's, meet the message's names. */
  g_autofree gchar *clash = g_strconcat (cr_test_good_monoid,
      "Output=duration:float64\n"
      "Finalize=Out o; o.duration = 1; return o;\n",
      NULL);
  cr_test_assert_rejected (clash, CR_ERROR_FIELDS, "duration");
}

GST_END_TEST;

GST_START_TEST (test_not_a_monoid_file)
{
  cr_test_assert_rejected (
      "this is not a key file", CR_ERROR_MONOID_FILE, "test.monoid");
  cr_test_assert_rejected (
      "[Other]\nLoad=x\n", CR_ERROR_MONOID_INVALID, "[Monoid]");
  g_autofree gchar *typo =
      g_strconcat (cr_test_good_monoid, "Combin=return a;\n", NULL);
  cr_test_assert_rejected (typo, CR_ERROR_MONOID_INVALID, "Combin");
}

GST_END_TEST;

GST_START_TEST (test_builtins)
{
  static const struct {
    const gchar *name;
    const gchar *results;
  } expected[] = {
    { "absmax", "absmax" },
    { "argmax", "value,index" },
    { "count_gt", "greater" },
    { "histogram", "" },
    { "max", "max" },
    { "mean_var", "mean,variance" },
    { "min", "min" },
    { "minmax", "min,max" },
    { "signalstats", "min,max,avg" },
    { "sum", "sum" },
    { "sumsq", "sum,sumsq" },
    { "vectorscope", "" },
  };
  g_auto (GStrv) names = cr_monoid_builtin_names ();
  fail_unless_equals_int (g_strv_length (names), G_N_ELEMENTS (expected));
  for (guint k = 0; k < G_N_ELEMENTS (expected); k++) {
    g_autoptr (GError) error = NULL;
    fail_unless_equals_string (names[k], expected[k].name);
    g_autoptr (CrMonoid) m = cr_monoid_load (names[k], &error);
    fail_unless (m != NULL, "%s: %s", names[k], error ? error->message : "");
    fail_unless_equals_string (m->name, expected[k].name);
    fail_unless (m->description && *m->description);
    GArray *results = cr_monoid_result_fields (m);
    g_autoptr (GString) joined = g_string_new (NULL);
    for (guint f = 0; f < results->len; f++)
      g_string_append_printf (joined, "%s%s", f ? "," : "",
          g_array_index (results, CrField, f).name);
    fail_unless_equals_string (joined->str, expected[k].results);
  }
}

GST_END_TEST;

GST_START_TEST (test_load_by_name_and_path)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CrMonoid) unknown = cr_monoid_load ("summ", &error);
  fail_unless (unknown == NULL);
  fail_unless (g_error_matches (error, CR_ERROR, CR_ERROR_UNKNOWN_MONOID));
  /* The message lists the built-ins, so the user can pick one. */
  fail_unless (
      strstr (error->message, "mean_var") != NULL, "%s", error->message);
  g_clear_error (&error);

  g_autoptr (CrMonoid) absent =
      cr_monoid_load ("/nonexistent/x.monoid", &error);
  fail_unless (absent == NULL);
  fail_unless (g_error_matches (error, CR_ERROR, CR_ERROR_MONOID_FILE));
  g_clear_error (&error);

  g_autofree gchar *dir = g_dir_make_tmp ("cr-monoid-XXXXXX", NULL);
  g_autofree gchar *path = g_build_filename (dir, "in_range.monoid", NULL);
  g_autofree gchar *unnamed = cr_test_edit_monoid ("Name", NULL);
  fail_unless (g_file_set_contents (path, unnamed, -1, NULL));
  g_autoptr (CrMonoid) from_file = cr_monoid_load (path, &error);
  fail_unless (from_file != NULL, "%s", error ? error->message : "");
  /* Without Name=, the file's base name names it. */
  fail_unless_equals_string (from_file->name, "in_range");
  g_unlink (path);

  /* Nothing that would block or never end is read: a FIFO (no writer), a
   * device, a file far larger than a monoid. */
  g_autofree gchar *fifo = g_build_filename (dir, "fifo.monoid", NULL);
  g_autofree gchar *large = g_build_filename (dir, "large.monoid", NULL);
  fail_unless (mkfifo (fifo, 0600) == 0);
  g_autofree gchar *filler = g_strnfill (2 << 20, '#');
  fail_unless (g_file_set_contents (large, filler, -1, NULL));
  const gchar *const refused[] = { fifo, "/dev/zero", large };
  for (guint k = 0; k < G_N_ELEMENTS (refused); k++) {
    g_autoptr (CrMonoid) m = cr_monoid_load (refused[k], &error);
    fail_unless (m == NULL, "%s was read", refused[k]);
    fail_unless (g_error_matches (error, CR_ERROR, CR_ERROR_MONOID_FILE));
    fail_unless (
        strstr (error->message, refused[k]) != NULL, "%s", error->message);
    g_clear_error (&error);
  }
  g_unlink (fifo);
  g_unlink (large);
  g_rmdir (dir);
}

GST_END_TEST;

/* A file swapped for a FIFO between a check of its name and the read of
 * it: the loader must not block. One thread keeps renaming a regular file
 * and a FIFO (hard links of both) onto the path; another loads it. */
typedef struct {
  gchar *path, *regular, *fifo, *link;
  gint stop;
  GMutex lock;
  GCond cond;
  gboolean done;
  guint loads;
} Swap;

static gpointer
swap_files (gpointer data)
{
  Swap *s = data;
  for (guint k = 0; !g_atomic_int_get (&s->stop); k++) {
    fail_unless (link (k % 2 ? s->fifo : s->regular, s->link) == 0);
    fail_unless (g_rename (s->link, s->path) == 0);
    /* rename does nothing when both names are links of one file. */
    g_unlink (s->link);
  }
  return NULL;
}

static gpointer
load_swapped (gpointer data)
{
  Swap *s = data;
  const gint64 end = g_get_monotonic_time () + G_TIME_SPAN_SECOND * 3 / 2;
  guint loads = 0;
  while (g_get_monotonic_time () < end) {
    g_autoptr (GError) error = NULL;
    g_autoptr (CrMonoid) m = cr_monoid_load (s->path, &error);
    if (g_atomic_int_get (&s->stop))
      break; /* released from a FIFO: the main thread reports it */
    fail_unless (m || g_error_matches (error, CR_ERROR, CR_ERROR_MONOID_FILE),
        "%s", error ? error->message : "");
    loads++;
  }
  g_mutex_lock (&s->lock);
  s->loads = loads;
  s->done = TRUE;
  g_cond_signal (&s->cond);
  g_mutex_unlock (&s->lock);
  return NULL;
}

GST_START_TEST (test_file_swapped_for_a_fifo)
{
  g_autofree gchar *dir = g_dir_make_tmp ("cr-monoid-XXXXXX", NULL);
  Swap s = { .path = g_build_filename (dir, "swapped.monoid", NULL),
    .regular = g_build_filename (dir, "regular", NULL),
    .fifo = g_build_filename (dir, "fifo", NULL),
    .link = g_build_filename (dir, "link", NULL) };
  fail_unless (g_file_set_contents (s.regular, cr_test_good_monoid, -1, NULL));
  fail_unless (mkfifo (s.fifo, 0600) == 0);
  fail_unless (link (s.regular, s.path) == 0);
  g_mutex_init (&s.lock);
  g_cond_init (&s.cond);

  GThread *swapper = g_thread_new ("swap", swap_files, &s);
  GThread *loader = g_thread_new ("load", load_swapped, &s);
  const gint64 deadline = g_get_monotonic_time () + 10 * G_TIME_SPAN_SECOND;
  g_mutex_lock (&s.lock);
  while (!s.done && g_cond_wait_until (&s.cond, &s.lock, deadline))
    ;
  const gboolean blocked = !s.done;
  g_mutex_unlock (&s.lock);
  g_atomic_int_set (&s.stop, 1);
  g_thread_join (swapper);
  /* A writer that comes and goes releases a reader blocked on the FIFO
   * (its read then sees the end), so that a failure ends. */
  if (blocked) {
    gint writer = open (s.fifo, O_WRONLY | O_NONBLOCK);
    if (writer >= 0)
      close (writer);
  }
  g_thread_join (loader);
  fail_if (blocked, "loading %s blocked on a FIFO", s.path);
  fail_unless (s.loads > 0);

  g_unlink (s.path);
  g_unlink (s.regular);
  g_unlink (s.fifo);
  g_rmdir (dir);
  g_free (s.path);
  g_free (s.regular);
  g_free (s.fifo);
  g_free (s.link);
  g_mutex_clear (&s.lock);
  g_cond_clear (&s.cond);
}

GST_END_TEST;

GST_START_TEST (test_inline_text)
{
  g_autoptr (GError) error = NULL;
  CrMonoidText text = {
    .name = "sumsq32",
    .accumulator = "sum:int64;sumsq:int64",
    .load = "Acc r; r.sum = x; r.sumsq = (int64) x * x; return r;",
    .combine = "Acc r; r.sum = a.sum + b.sum; r.sumsq = a.sumsq + b.sumsq; "
               "return r;",
    .identity = NULL,
  };
  g_autoptr (CrMonoid) no_identity = cr_monoid_new (&text, "props", &error);
  fail_unless (no_identity == NULL);
  fail_unless (strstr (error->message, "Identity") != NULL);
  g_clear_error (&error);
  text.identity = "Acc r; r.sum = 0; r.sumsq = 0; return r;";
  g_autoptr (CrMonoid) m = cr_monoid_new (&text, "props", &error);
  fail_unless (m != NULL);
  fail_unless_equals_string (m->name, "sumsq32");

  /* Unnamed, as the element passes an inline monoid the monoid property
   * does not name. */
  text.name = NULL;
  g_autoptr (CrMonoid) unnamed = cr_monoid_new (&text, "props", &error);
  fail_unless (unnamed != NULL, "%s", error ? error->message : "");
  fail_unless_equals_string (unnamed->name, "custom");
}

GST_END_TEST;

GST_START_TEST (test_layout)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) fields = cr_fields_parse (
      "a:int8; b:wide ;c:int16;d:in", "Accumulator", FALSE, &error);
  CrLayout layout;

  fail_unless (fields != NULL);
  cr_layout_init (&layout, fields, CR_TYPE_UINT8);
  fail_unless_equals_int (layout.types[1], CR_TYPE_UINT64);
  fail_unless_equals_int (layout.types[3], CR_TYPE_UINT8);
  fail_unless_equals_int (layout.offsets[0], 0);
  fail_unless_equals_int (layout.offsets[1], 8);
  fail_unless_equals_int (layout.offsets[2], 16);
  fail_unless_equals_int (layout.offsets[3], 18);
  fail_unless_equals_int (layout.size, 24);
  fail_unless_equals_int (layout.align, 8);
  fail_unless_equals_int (cr_layout_find (&layout, "c"), 2);
  fail_unless_equals_int (cr_layout_find (&layout, "e"), -1);
  cr_layout_clear (&layout);

  cr_layout_init (&layout, fields, CR_TYPE_FLOAT32);
  fail_unless_equals_int (layout.types[1], CR_TYPE_FLOAT64);
  fail_unless_equals_int (layout.types[3], CR_TYPE_FLOAT32);
  fail_unless_equals_int (layout.offsets[3], 20);
  fail_unless_equals_int (layout.size, 24);
  cr_layout_clear (&layout);
}

GST_END_TEST;

GST_START_TEST (test_pack_context)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *data = cr_test_edit_monoid ("Context",
      "Context=lo:float64;hi:int32;"
      "threshold:float32");
  g_autoptr (CrMonoid) m = cr_monoid_new_from_data (data, -1, "t", &error);
  g_autoptr (CrProgram) p = cr_program_new (m, CR_TYPE_INT16);
  g_autofree guint8 *ctx = g_malloc (p->ctx.size);
  g_autoptr (GHashTable) values = g_hash_table_new (g_str_hash, g_str_equal);
  GValue lo = G_VALUE_INIT, hi = G_VALUE_INIT, bad = G_VALUE_INIT;
  gdouble lo_packed;
  gint32 hi_packed;
  gfloat threshold_packed;

  g_value_init (&lo, G_TYPE_DOUBLE);
  g_value_set_double (&lo, -1.5);
  g_value_init (&hi, G_TYPE_INT);
  g_value_set_int (&hi, 7);
  g_hash_table_insert (values, "lo", &lo);
  g_hash_table_insert (values, "hi", &hi);
  fail_unless (cr_program_pack_context (p, 2.5, values, ctx, &error));
  memcpy (&lo_packed, ctx + p->ctx.offsets[0], 8);
  memcpy (&hi_packed, ctx + p->ctx.offsets[1], 4);
  memcpy (&threshold_packed, ctx + p->ctx.offsets[2], 4);
  fail_unless_equals_float (lo_packed, -1.5);
  fail_unless_equals_int (hi_packed, 7);
  fail_unless_equals_float (threshold_packed, 2.5);

  /* 7.25 does not fit an int32 field. */
  g_value_init (&bad, G_TYPE_DOUBLE);
  g_value_set_double (&bad, 7.25);
  g_hash_table_insert (values, "hi", &bad);
  fail_if (cr_program_pack_context (p, 0, values, ctx, &error));
  fail_unless (g_error_matches (error, CR_ERROR, CR_ERROR_CONTEXT));
  fail_unless (strstr (error->message, "hi") != NULL);
  g_clear_error (&error);

  g_hash_table_remove_all (values);
  g_hash_table_insert (values, "high", &hi);
  fail_if (cr_program_pack_context (p, 0, values, ctx, &error));
  fail_unless (strstr (error->message, "high") != NULL);
}

GST_END_TEST;

/* Every word the generated source or C++ gives a meaning to, refused with
 * the reason; before these checks many reached NVRTC and failed there. */
GST_START_TEST (test_reserved_field_names)
{
  static const struct {
    const gchar *name;
    const gchar *why;
  } refused[] = {
    /* Alternative tokens and keywords that once passed the parser. */
    { "and", "keyword" },
    { "or", "keyword" },
    { "not", "keyword" },
    { "xor", "keyword" },
    { "compl", "keyword" },
    { "bitand", "keyword" },
    { "bitor", "keyword" },
    { "and_eq", "keyword" },
    { "or_eq", "keyword" },
    { "xor_eq", "keyword" },
    { "not_eq", "keyword" },
    { "static_cast", "keyword" },
    { "dynamic_cast", "keyword" },
    { "reinterpret_cast", "keyword" },
    { "const_cast", "keyword" },
    { "wchar_t", "keyword" },
    { "char8_t", "keyword" },
    { "char16_t", "keyword" },
    { "char32_t", "keyword" },
    { "thread_local", "keyword" },
    { "export", "keyword" },
    { "static_assert", "keyword" },
    { "requires", "keyword" },
    { "concept", "keyword" },
    { "co_await", "keyword" },
    { "consteval", "keyword" },
    { "constinit", "keyword" },
    { "int", "keyword" },
    /* The generated source's macros, and CUDA's. */
    { "IN_MAX", "macro" },
    { "IN_LOWEST", "macro" },
    { "IN_IS_FLOAT", "macro" },
    { "IN_IS_SIGNED", "macro" },
    { "CR_IN_BYTES", "macro" },
    { "CR_BLOCK_THREADS", "macro" },
    { "NULL", "macro" },
    { "CUDART_VERSION", "CUDA" },
    { "cudaArrayDefault", "CUDA" },
    { "CU_UUID_HAS_BEEN_DEFINED", "CUDA" },
    { "NV_IS_DEVICE", "CUDA" },
    /* Types: a field named int32 hides the type from the fields after it. */
    { "int8", "type" },
    { "uint8", "type" },
    { "int32", "type" },
    { "float64", "type" },
    { "In", "type" },
    { "wide", "type" },
    { "Acc", "type" },
    { "Ctx", "type" },
    { "Out", "type" },
    /* Reserved to the implementation: CUDA's __device__ and the like. */
    { "__shared__", "reserved" },
    { "a__b", "reserved" },
    { "_Pragma", "reserved" },
    { "_X", "reserved" },
    { "cr_unused", "cr_" },
    { "1st", "letters" },
    { "a-b", "letters" },
  };
  for (guint k = 0; k < G_N_ELEMENTS (refused); k++) {
    g_autoptr (GError) error = NULL;
    g_autofree gchar *list =
        g_strdup_printf ("ok:int32;%s:int32", refused[k].name);
    g_autoptr (GArray) fields =
        cr_fields_parse (list, "Accumulator", FALSE, &error);
    fail_unless (fields == NULL, "%s accepted", refused[k].name);
    fail_unless (g_error_matches (error, CR_ERROR, CR_ERROR_FIELDS));
    g_autofree gchar *quoted = g_strdup_printf ("\"%s\"", refused[k].name);
    fail_unless (strstr (error->message, quoted) != NULL, "%s", error->message);
    fail_unless (strstr (error->message, refused[k].why) != NULL,
        "\"%s\" does not say \"%s\"", error->message, refused[k].why);
  }

  /* Words that are no macro, keyword or type: a struct member may be named
   * like a function, a variable or a body's argument. */
  static const gchar *const accepted[] = { "final", "override", "import",
    "module", "in", "x", "a", "i", "n", "ctx", "min", "max", "sqrt", "assert",
    "threadIdx", "warpSize", "uint4", "CrVec", "_x", "_", "x_", "Cr_x",
    "inside_", "IN", NULL };
  for (guint k = 0; accepted[k]; k++) {
    g_autoptr (GError) error = NULL;
    g_autofree gchar *list = g_strdup_printf ("%s:int32", accepted[k]);
    g_autoptr (GArray) fields =
        cr_fields_parse (list, "Accumulator", FALSE, &error);
    fail_unless (
        fields != NULL, "%s: %s", accepted[k], error ? error->message : "");
  }
}

GST_END_TEST;

/* The name a line declares: "#define NAME" or "#define NAME(...)", and the
 * last word of "typedef ... NAME;". NULL for other lines. */
static gchar *
declared_name (const gchar *line)
{
  if (g_str_has_prefix (line, "#define ")) {
    const gchar *start = line + strlen ("#define ");
    gsize n = strspn (start,
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
    return g_strndup (start, n);
  }
  if (g_str_has_prefix (line, "typedef ") && g_str_has_suffix (line, ";")) {
    const gchar *space = strrchr (line, ' ');
    return g_strndup (space + 1, strlen (space + 1) - 1);
  }
  return NULL;
}

/* The generated source, kernels included, defines no macro or type that a
 * field may be named: a new one there must be refused in cr-monoid.c too. */
GST_START_TEST (test_generated_names_are_refused)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CrMonoid) m = cr_monoid_load ("mean_var", &error);
  g_autoptr (CrProgram) p = cr_program_new_per_channel (m, CR_TYPE_UINT16);
  g_autoptr (CrMonoid) no_finalize = cr_monoid_load ("sum", &error);
  g_autoptr (CrProgram) q = cr_program_new (no_finalize, CR_TYPE_FLOAT32);
  g_autofree gchar *both = g_strconcat (p->source, q->source, NULL);
  g_auto (GStrv) lines = g_strsplit (both, "\n", -1);
  guint checked = 0;

  for (guint k = 0; lines[k]; k++) {
    g_autofree gchar *name = declared_name (g_strstrip (lines[k]));
    if (name == NULL)
      continue;
    g_autofree gchar *list = g_strdup_printf ("%s:int32", name);
    g_autoptr (GArray) fields =
        cr_fields_parse (list, "Accumulator", FALSE, &error);
    fail_unless (fields == NULL, "the field name %s is accepted", name);
    g_clear_error (&error);
    checked++;
  }
  /* IN_MAX ... CR_BATCH_MAX, the kernels' macros, In, wide, Out, the ten. */
  fail_unless (checked >= 25, "only %u names", checked);
}

GST_END_TEST;

/* 29 s for 131k names when the duplicate check compared every pair; the
 * suite's timeout catches a return to that. */
GST_START_TEST (test_many_fields)
{
  const guint n = 400000;
  GString *list = g_string_new ("Accumulator=");
  for (guint f = 0; f < n; f++)
    g_string_append_printf (list, "f%u:int8;", f);
  g_autofree gchar *line = g_string_free (list, FALSE);
  g_autofree gchar *data = cr_test_edit_monoid ("Accumulator", line);
  g_autoptr (GError) error = NULL;
  g_autoptr (CrMonoid) m = cr_monoid_new_from_data (data, -1, "big", &error);
  fail_unless (m != NULL, "%s", error ? error->message : "");
  fail_unless_equals_int (m->accumulator->len, n);

  /* The duplicate is the last name of the list. */
  g_autofree gchar *twice = g_strconcat (line, "f0:int8", NULL);
  g_autofree gchar *dup = cr_test_edit_monoid ("Accumulator", twice);
  cr_test_assert_rejected (dup, CR_ERROR_FIELDS, "\"f0\" is declared twice");
}

GST_END_TEST;

/* GLib's own unescaping set its GError twice on "\q\" and warned, which
 * aborts a process with fatal warnings, as this one is. */
GST_START_TEST (test_bad_escapes)
{
  static const gchar *const lines[] = {
    "Name=\\q\\",
    "Name=\\q",
    "Name=sum\\",
    "Description=\\q\\",
    "Description[de]=\\q\\",
  };
  for (guint k = 0; k < G_N_ELEMENTS (lines); k++) {
    g_autofree gchar *data =
        g_strconcat (cr_test_good_monoid, lines[k], "\n", NULL);
    const gchar *key =
        g_str_has_prefix (lines[k], "Name") ? "Name" : "Description";
    cr_test_assert_rejected (data, CR_ERROR_MONOID_INVALID, key);
  }
  /* The escapes a key file has still work. */
  g_autofree gchar *good =
      g_strconcat (cr_test_good_monoid, "Name=a\\sb\\\\c\\td\n", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (CrMonoid) m = cr_monoid_new_from_data (good, -1, "t", &error);
  fail_unless (m != NULL, "%s", error ? error->message : "");
  fail_unless_equals_string (m->name, "a b\\c\td");
}

GST_END_TEST;

/* The source's first line is the comment @expected, or ends with @suffix. */
static void
assert_header (const gchar *source, const gchar *expected, const gchar *suffix)
{
  const gchar *newline = strchr (source, '\n');
  g_autofree gchar *header = g_strndup (source, newline - source);
  if (expected) {
    fail_unless_equals_string (header, expected);
  } else {
    fail_unless (g_str_has_suffix (header, suffix), "%s", header);
  }
  /* Nothing in the name or path ends the comment early, or starts a
   * directive or a line. */
  fail_unless (strstr (source, "*/") == newline - 2, "%s", header);
  fail_if (strchr (header, '\\') || strchr (header, '#'), "%s", header);
}

GST_START_TEST (test_names_stay_in_the_comment)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *hostile = cr_test_edit_monoid (
      "Name", "Name=sum */ #define double float /*\\n#define x 1 \\\\");
  g_autoptr (CrMonoid) m =
      cr_monoid_new_from_data (hostile, -1, "a*/b.monoid", &error);
  fail_unless (m != NULL, "%s", error ? error->message : "");
  fail_unless_equals_string (
      m->name, "sum */ #define double float /*\n#define x 1 \\");
  g_autoptr (CrProgram) p = cr_program_new (m, CR_TYPE_INT32);
  assert_header (p->source,
      "/* Generated by cudareduce: monoid \"sum %2A/ %23define double float "
      "/%2A%0A%23define x 1 %5C\" (a%2A/b.monoid) on int32 input. */",
      NULL);

  /* A valid monoid in a directory named dir*: the path is in the comment. */
  g_autofree gchar *dir = g_dir_make_tmp ("cr-monoid-XXXXXX", NULL);
  g_autofree gchar *star = g_build_filename (dir, "dir*", NULL);
  g_autofree gchar *path = g_build_filename (star, "range.monoid", NULL);
  fail_unless (g_mkdir (star, 0700) == 0);
  fail_unless (g_file_set_contents (path, cr_test_good_monoid, -1, NULL));
  g_autoptr (CrMonoid) from_dir = cr_monoid_load (path, &error);
  fail_unless (from_dir != NULL, "%s", error ? error->message : "");
  g_autoptr (CrProgram) q = cr_program_new (from_dir, CR_TYPE_UINT8);
  assert_header (q->source, NULL, "/dir%2A/range.monoid) on uint8 input. */");
  g_unlink (path);
  g_rmdir (star);
  g_rmdir (dir);
}

GST_END_TEST;

static Suite *
monoid_suite (void)
{
  Suite *s = suite_create ("monoid");
  TCase *tc = tcase_create ("parse");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_good_file);
  tcase_add_test (tc, test_missing_keys);
  tcase_add_test (tc, test_bad_fields);
  tcase_add_test (tc, test_output_and_finalize_go_together);
  tcase_add_test (tc, test_not_a_monoid_file);
  tcase_add_test (tc, test_builtins);
  tcase_add_test (tc, test_load_by_name_and_path);
  tcase_add_test (tc, test_file_swapped_for_a_fifo);
  tcase_add_test (tc, test_inline_text);
  tcase_add_test (tc, test_layout);
  tcase_add_test (tc, test_pack_context);
  tcase_add_test (tc, test_reserved_field_names);
  tcase_add_test (tc, test_generated_names_are_refused);
  tcase_add_test (tc, test_many_fields);
  tcase_add_test (tc, test_bad_escapes);
  tcase_add_test (tc, test_names_stay_in_the_comment);
  return s;
}

GST_CHECK_MAIN (monoid);
