/* test-fuse.c: fused monoids (monoid=a+b+c): their members, labels and
 * qualified fields, what is refused, and their context. No GPU and no
 * NVRTC needed (test-compile.c compiles them). */
#include "cr-test-util.h"
#include "cr-fuse.h"

#include "cr-error.h"
#include "cr-program.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

static CrMonoid *
fuse (const gchar *list)
{
  g_autoptr (GError) error = NULL;
  CrMonoid *m = cr_monoid_load (list, &error);
  fail_unless (m != NULL, "%s: %s", list, error ? error->message : "");
  return m;
}

static void
assert_names (GArray *fields, const gchar *expected)
{
  g_autoptr (GString) names = g_string_new (NULL);
  for (guint f = 0; f < fields->len; f++)
    g_string_append_printf (
        names, "%s%s", f ? ";" : "", g_array_index (fields, CrField, f).name);
  fail_unless_equals_string (names->str, expected);
}

static void
assert_refused (const gchar *list, gint code, const gchar *mention)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CrMonoid) m = cr_monoid_load (list, &error);
  fail_unless (m == NULL, "%s was accepted", list);
  fail_unless (g_error_matches (error, CR_ERROR, code), "%s: %s (code %d)",
      list, error->message, error->code);
  fail_unless (strstr (error->message, mention) != NULL,
      "%s: \"%s\" does not mention \"%s\"", list, error->message, mention);
}

/* Every member's fields, member by member, under its label. */
GST_START_TEST (test_fused_fields)
{
  g_autoptr (CrMonoid) m = fuse ("sumsq+minmax+count_gt");

  fail_unless_equals_int (m->members->len, 3);
  fail_unless_equals_string (m->name, "sumsq+minmax+count_gt");
  assert_names (m->accumulator,
      "sumsq.sum;sumsq.sumsq;minmax.min;minmax.max;count_gt.greater");
  assert_names (m->context, "count_gt.threshold");
  assert_names (cr_monoid_result_fields (m),
      "sumsq.sum;sumsq.sumsq;minmax.min;minmax.max;count_gt.greater");
  /* Types follow the members' for each input type. */
  g_autoptr (CrProgram) p = cr_program_new (m, CR_TYPE_INT16);
  fail_unless_equals_int (p->out.types[0], CR_TYPE_INT64);
  fail_unless_equals_int (p->out.types[2], CR_TYPE_INT16);
  fail_unless_equals_int (p->out.types[4], CR_TYPE_UINT64);
}

GST_END_TEST;

/* A member with Finalize gives its Output fields; the accumulator keeps
 * what it combines. */
GST_START_TEST (test_fused_finalize)
{
  g_autoptr (CrMonoid) m = fuse ("mean_var+max");

  assert_names (
      cr_monoid_result_fields (m), "mean_var.mean;mean_var.variance;max.max");
  assert_names (m->accumulator,
      "mean_var.count;mean_var.shift;mean_var.s1;mean_var.s2;max.max");
  g_autoptr (CrProgram) p = cr_program_new (m, CR_TYPE_FLOAT32);
  fail_unless (strstr (p->source, "namespace cr_m0 {") != NULL);
  fail_unless (
      strstr (p->source, "cr_m1::cr_finalize (cr_m1_acc (a), n,") != NULL);
  fail_unless (
      strstr (p->source, "  float64 cr_f1; /* mean_var.variance */") != NULL);
}

GST_END_TEST;

/* The same monoid twice, labelled apart; the name keeps the labels. */
GST_START_TEST (test_fused_labels)
{
  g_autoptr (CrMonoid) m = fuse ("lo=count_gt + hi = count_gt+sum");

  fail_unless_equals_string (m->name, "lo=count_gt+hi=count_gt+sum");
  fail_unless_equals_string (m->labels[0], "lo");
  fail_unless_equals_string (m->labels[2], "sum");
  assert_names (m->context, "lo.threshold;hi.threshold");
  assert_names (cr_monoid_result_fields (m), "lo.greater;hi.greater;sum.sum");

  /* One labelled member is a fused monoid of one. */
  g_autoptr (CrMonoid) one = fuse ("peak=max");
  fail_unless_equals_int (one->members->len, 1);
  assert_names (cr_monoid_result_fields (one), "peak.max");
}

GST_END_TEST;

GST_START_TEST (test_fused_refusals)
{
  assert_refused (
      "count_gt+count_gt", CR_ERROR_FIELDS, "lo=count_gt+hi=count_gt");
  assert_refused ("sum+x=max+x=min", CR_ERROR_FIELDS, "\"x\"");
  assert_refused ("sum+nope", CR_ERROR_UNKNOWN_MONOID, "member 2");
  assert_refused ("sum+nope", CR_ERROR_UNKNOWN_MONOID, "\"nope\"");
  assert_refused ("sum++max", CR_ERROR_UNKNOWN_MONOID, "empty member 2");
  assert_refused ("sum+", CR_ERROR_UNKNOWN_MONOID, "empty member 2");
  assert_refused ("sum+lo=", CR_ERROR_UNKNOWN_MONOID, "empty member 2");
  assert_refused ("1x=sum+max", CR_ERROR_FIELDS, "label \"1x\"");
  assert_refused ("a.b=sum+max", CR_ERROR_FIELDS, "label \"a.b\"");
  /* Found by fuzz-monoid-name: the second label made a fused monoid of one
   * inside the first, whose fields ("lo.hi.greater") broke the generated
   * source. */
  assert_refused ("lo=hi=count_gt", CR_ERROR_UNKNOWN_MONOID,
      "member 1 (\"lo=hi=count_gt\") has more than one label");
  assert_refused ("sum+lo = hi=count_gt", CR_ERROR_UNKNOWN_MONOID,
      "member 2 (\"lo = hi=count_gt\")");
  /* A million labels: refused at the second, not loaded one level each
   * (which kept a copy of the rest at every level). */
  GString *labels = g_string_new ("max+");
  for (guint k = 0; k < 1000000; k++)
    g_string_append (labels, "a=");
  g_string_append (labels, "sum");
  assert_refused (labels->str, CR_ERROR_UNKNOWN_MONOID, "member 2 (\"a=a=a=");
  g_string_free (labels, TRUE);
}

GST_END_TEST;

/* cr_monoid_fuse combines monoids already made, whatever made them: two
 * inline monoids, which no name loads. */
static CrMonoid *
inline_counter (void)
{
  g_autoptr (GError) error = NULL;
  const CrMonoidText text = { .name = "n",
    .accumulator = "n:uint64",
    .load = "Acc r; r.n = 1; return r;",
    .combine = "Acc r; r.n = a.n + b.n; return r;",
    .identity = "Acc r; r.n = 0; return r;" };
  CrMonoid *m = cr_monoid_new (&text, CR_MONOID_INLINE_ORIGIN, &error);
  fail_unless (m != NULL, "%s", error ? error->message : "");
  return m;
}

GST_START_TEST (test_fuse_made_monoids)
{
  g_autoptr (GPtrArray) members =
      g_ptr_array_new_with_free_func ((GDestroyNotify)cr_monoid_unref);
  g_ptr_array_add (members, inline_counter ());
  g_ptr_array_add (members, inline_counter ());
  const gchar *const labels[] = { "a", "b", NULL };
  g_autoptr (GError) error = NULL;
  g_autoptr (CrMonoid) m = cr_monoid_fuse (members, labels, &error);
  fail_unless (m != NULL, "%s", error ? error->message : "");
  fail_unless_equals_string (m->name, "a=n+b=n");
  assert_names (cr_monoid_result_fields (m), "a.n;b.n");

  const gchar *const same[] = { "a", "a", NULL };
  g_autoptr (CrMonoid) twice = cr_monoid_fuse (members, same, &error);
  fail_unless (twice == NULL);
  fail_unless (g_error_matches (error, CR_ERROR, CR_ERROR_FIELDS));
  fail_unless (
      strstr (error->message, "two members are labelled \"a\"") != NULL, "%s",
      error->message);
}

GST_END_TEST;

static gchar *
write_monoid (const gchar *dir, const gchar *file, const gchar *name)
{
  g_autofree gchar *data = g_strdup_printf ("[Monoid]\n"
                                            "Name=%s\n"
                                            "Accumulator=n:uint64\n"
                                            "Load=Acc r; r.n = 1; return r;\n"
                                            "Combine=Acc r; r.n = a.n + b.n; "
                                            "return r;\n"
                                            "Identity=Acc r; r.n = 0; return "
                                            "r;\n",
      name);
  gchar *path = g_build_filename (dir, file, NULL);
  fail_unless (g_file_set_contents (path, data, -1, NULL));
  return path;
}

/* Files as members; a file whose path has a '+' is one monoid; a member
 * whose name is no label needs one. */
GST_START_TEST (test_fused_files)
{
  g_autofree gchar *dir = g_dir_make_tmp ("cr-fuse-XXXXXX", NULL);
  g_autofree gchar *plus = write_monoid (dir, "c++.monoid", "counter");
  g_autofree gchar *counter = write_monoid (dir, "counter.monoid", "counter");
  g_autofree gchar *spaced = write_monoid (dir, "spaced.monoid", "my count");

  g_autoptr (CrMonoid) single = fuse (plus);
  fail_unless (single->members == NULL);
  fail_unless_equals_string (single->name, "counter");

  /* In a list, though, the '+' separates members. */
  g_autofree gchar *with_plus = g_strconcat ("sum+", plus, NULL);
  assert_refused (with_plus, CR_ERROR_MONOID_FILE, "member 2");
  g_autofree gchar *with_file = g_strconcat ("sum+", counter, NULL);
  g_autoptr (CrMonoid) fused = fuse (with_file);
  assert_names (cr_monoid_result_fields (fused), "sum.sum;counter.n");
  fail_unless (strstr (fused->origin, counter) != NULL, "%s", fused->origin);

  g_autofree gchar *unlabelled = g_strconcat ("sum+", spaced, NULL);
  assert_refused (unlabelled, CR_ERROR_FIELDS, "label it label=");
  g_autofree gchar *labelled = g_strconcat ("sum+mine=", spaced, NULL);
  g_autoptr (CrMonoid) ok = fuse (labelled);
  assert_names (cr_monoid_result_fields (ok), "sum.sum;mine.n");

  g_unlink (plus);
  g_unlink (counter);
  g_unlink (spaced);
  g_rmdir (dir);
}

GST_END_TEST;

static gboolean
add_value (GQuark field, const GValue *value, gpointer table)
{
  g_hash_table_insert (
      table, (gpointer)g_quark_to_string (field), (gpointer)value);
  return TRUE;
}

/* The structure's values by name, as the element hands them over. */
static GHashTable *
context_table (const GstStructure *s)
{
  GHashTable *table = g_hash_table_new (g_str_hash, g_str_equal);
  gst_structure_foreach (s, add_value, table);
  return table;
}

static gdouble
packed_double (const CrProgram *p, const gchar *name, const guint8 *ctx)
{
  gint f = cr_layout_find (&p->ctx, name);
  fail_unless (f >= 0, "no context field %s", name);
  gdouble v;
  memcpy (&v, ctx + p->ctx.offsets[f], sizeof v);
  return v;
}

/* threshold sets every member's; a plain name in the structure sets every
 * member's field of that name, label.name one member's, and the member's
 * own wins whatever the order. */
GST_START_TEST (test_fused_context)
{
  g_autoptr (CrMonoid) m = fuse ("lo=count_gt+hi=count_gt+sum");
  g_autoptr (CrProgram) p = cr_program_new (m, CR_TYPE_FLOAT32);
  g_autofree guint8 *ctx = g_malloc (p->ctx.size);
  g_autoptr (GError) error = NULL;

  fail_unless (cr_program_pack_context (p, 0.25, NULL, ctx, &error));
  fail_unless_equals_float (packed_double (p, "lo.threshold", ctx), 0.25);
  fail_unless_equals_float (packed_double (p, "hi.threshold", ctx), 0.25);

  for (gint order = 0; order < 2; order++) {
    g_autoptr (GstStructure) s = gst_structure_from_string (order
            ? "ctx, threshold=(double)0.5, hi.threshold=(double)0.75"
            : "ctx, hi.threshold=(double)0.75, threshold=(double)0.5",
        NULL);
    fail_unless (s != NULL);
    g_autoptr (GHashTable) values = context_table (s);
    fail_unless (cr_program_pack_context (p, 0.25, values, ctx, &error), "%s",
        error ? error->message : "");
    fail_unless_equals_float (packed_double (p, "lo.threshold", ctx), 0.5);
    fail_unless_equals_float (packed_double (p, "hi.threshold", ctx), 0.75);
  }

  static const gchar *const unknown[] = { "ctx, limit=(double)1",
    "ctx, sum.threshold=(double)1", "ctx, mid.threshold=(double)1",
    "ctx, lo.limit=(double)1" };
  for (guint k = 0; k < G_N_ELEMENTS (unknown); k++) {
    g_autoptr (GstStructure) s = gst_structure_from_string (unknown[k], NULL);
    g_autoptr (GHashTable) values = context_table (s);
    fail_if (
        cr_program_pack_context (p, 0, values, ctx, &error), "%s", unknown[k]);
    fail_unless (g_error_matches (error, CR_ERROR, CR_ERROR_CONTEXT));
    fail_unless (
        strstr (error->message, "no member") != NULL, "%s", error->message);
    g_clear_error (&error);
  }
}

GST_END_TEST;

/* Accumulators beyond what the kernels' shared memory holds are refused
 * before anything is compiled, with what to do instead. */
GST_START_TEST (test_fused_accumulator_limit)
{
  g_autoptr (GString) list = g_string_new ("m0=mean_var");
  guint members = 1;
  for (;; members++) {
    g_autoptr (CrMonoid) m = fuse (list->str);
    g_autoptr (CrProgram) p = cr_program_new (m, CR_TYPE_INT8);
    g_autoptr (GError) error = NULL;
    if (p->acc.size > CR_ACC_MAX_BYTES) {
      fail_if (cr_program_check_limits (p, &error));
      fail_unless (g_error_matches (error, CR_ERROR, CR_ERROR_FIELDS));
      fail_unless (strstr (error->message, "fuse fewer members") != NULL, "%s",
          error->message);
      break;
    }
    fail_unless (cr_program_check_limits (p, &error), "%s", error->message);
    g_string_append_printf (list, "+m%u=mean_var", members);
  }
  /* mean_var's accumulator is four doubles. */
  fail_unless_equals_int (members, CR_ACC_MAX_BYTES / 32 + 1);
}

GST_END_TEST;

/* The generated functions are plain C++ once the CUDA qualifiers are
 * gone: this runs them on the host, so the fused program's mapping of its
 * structs onto the members' (and a built-in's arithmetic) is checked where
 * there is no GPU. The driver reads the elements and the packed context
 * from files, folds pairs in a tree (combine meets real values on both
 * sides), or with a third argument "seq" folds each element into one
 * accumulator started from the identity, as each GPU thread does, and
 * writes the Out struct's bytes. */
static const gchar host_head[] =
    "#include <cstdio>\n"
    "#include <cstring>\n"
    "#include <vector>\n"
    "#define __device__\n"
    "#define __forceinline__ inline\n"
    "static inline float __int_as_float (int i)\n"
    "{ float f; std::memcpy (&f, &i, 4); return f; }\n"
    "static inline double __longlong_as_double (long long i)\n"
    "{ double d; std::memcpy (&d, &i, 8); return d; }\n";

static const gchar host_main[] =
    "static std::vector<char> slurp (const char *path)\n"
    "{\n"
    "  std::vector<char> v; FILE *f = std::fopen (path, \"rb\");\n"
    "  if (!f) return v; char buf[65536]; size_t n;\n"
    "  while ((n = std::fread (buf, 1, sizeof buf, f)) > 0)\n"
    "    v.insert (v.end (), buf, buf + n);\n"
    "  std::fclose (f); return v;\n"
    "}\n"
    "int main (int argc, char **argv)\n"
    "{\n"
    "  std::vector<char> data = slurp (argv[1]), packed = slurp (argv[2]);\n"
    "  Ctx ctx; std::memcpy (&ctx, packed.data (), sizeof ctx);\n"
    "  const unsigned long long n = data.size () / sizeof (In);\n"
    "  std::vector<Acc> level;\n"
    "  for (unsigned long long i = 0; i < n; i++) {\n"
    "    In x; std::memcpy (&x, data.data () + i * sizeof (In), sizeof x);\n"
    "    level.push_back (cr_load (x, i, ctx));\n"
    "  }\n"
    "  if (argc > 3 && !std::strcmp (argv[3], \"seq\")) {\n"
    "    Acc acc = cr_identity (ctx);\n"
    "    for (const Acc &a : level) acc = cr_combine (acc, a, ctx);\n"
    "    level.assign (1, acc);\n"
    "  }\n"
    "  if (level.empty ()) level.push_back (cr_identity (ctx));\n"
    "  while (level.size () > 1) {\n"
    "    std::vector<Acc> next;\n"
    "    for (size_t k = 0; k + 1 < level.size (); k += 2)\n"
    "      next.push_back (cr_combine (level[k], level[k + 1], ctx));\n"
    "    if (level.size () % 2)\n"
    "      next.push_back (cr_combine (level.back (), cr_identity (ctx), "
    "ctx));\n"
    "    level.swap (next);\n"
    "  }\n"
    "  Out out = cr_finalize (level[0], n, ctx);\n"
    "  std::fwrite (&out, sizeof out, 1, stdout);\n"
    "  return 0;\n"
    "}\n";

/* @program's functions run over @data on the host, in a tree or
 * @sequential: its Out struct. */
static GBytes *
run_on_host (const gchar *cxx, const gchar *dir, const CrProgram *program,
    const gchar *data_path, gdouble threshold, GHashTable *context,
    gboolean sequential)
{
  static guint serial;
  g_autoptr (GError) error = NULL;
  const gchar *kernels = strstr (program->source, "/* kernels/reduce.cu");
  fail_unless (kernels != NULL);
  g_autofree gchar *prelude =
      g_strndup (program->source, kernels - program->source);
  g_autofree gchar *code = g_strconcat (host_head, prelude, host_main, NULL);
  g_autofree gchar *name = g_strdup_printf ("host%u", serial++);
  g_autofree gchar *cc = g_strdup_printf ("%s/%s.cc", dir, name);
  g_autofree gchar *exe = g_strdup_printf ("%s/%s", dir, name);
  g_autofree gchar *ctx_path = g_strdup_printf ("%s/%s.ctx", dir, name);
  g_autofree guint8 *ctx = g_malloc0 (program->ctx.size);
  fail_unless (g_file_set_contents (cc, code, -1, NULL));
  fail_unless (
      cr_program_pack_context (program, threshold, context, ctx, &error), "%s",
      error ? error->message : "");
  fail_unless (g_file_set_contents (
      ctx_path, (const gchar *)ctx, program->ctx.size, NULL));

  const gchar *build[] = { cxx, "-std=c++17", "-O1", "-w", "-o", exe, cc,
    NULL };
  g_autofree gchar *build_err = NULL;
  gint status = 0;
  fail_unless (
      g_spawn_sync (NULL, (gchar **)build, NULL, G_SPAWN_STDOUT_TO_DEV_NULL,
          NULL, NULL, NULL, &build_err, &status, &error),
      "%s", error ? error->message : "");
  if (!g_spawn_check_wait_status (status, NULL)) {
    g_autofree gchar *numbered = cr_source_number_lines (code);
    g_printerr ("%s\n%s\n", numbered, build_err);
    fail ("%s does not compile the generated functions", cxx);
  }
  const gchar *run[] = { exe, data_path, ctx_path, sequential ? "seq" : "tree",
    NULL };
  g_autoptr (GSubprocess) p =
      g_subprocess_newv (run, G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error);
  fail_unless (p != NULL, "%s", error ? error->message : "");
  g_autoptr (GBytes) bytes = NULL;
  fail_unless (g_subprocess_communicate (p, NULL, NULL, &bytes, NULL, &error),
      "%s", error ? error->message : "");
  fail_unless (g_subprocess_get_successful (p));
  fail_unless_equals_int (g_bytes_get_size (bytes), program->out.size);
  g_unlink (cc);
  g_unlink (exe);
  g_unlink (ctx_path);
  return g_steal_pointer (&bytes);
}

/* On the host, each member's results of the fused program equal the member
 * alone, bit for bit; the two count_gt members each see their threshold. */
GST_START_TEST (test_fused_on_the_host)
{
  static const struct {
    const gchar *label;
    const gchar *monoid;
    gdouble threshold;
  } members[] = {
    { "sq", "sumsq", 0 },
    { "mm", "minmax", 0 },
    { "lo", "count_gt", 0 },
    { "hi", "count_gt", -1 }, /* a quarter of the type's range */
    { "mv", "mean_var", 0 },
    { "am", "argmax", 0 },
  };
  static const CrType types[] = { CR_TYPE_INT16, CR_TYPE_FLOAT32 };
  /* cr_test_fill_random's int16 and float32 ranges, over 4. */
  static const gdouble high[] = { 8192, 250 };
  g_autofree gchar *cxx = g_find_program_in_path ("c++");
  if (cxx == NULL) {
    g_print ("test_fused_on_the_host: no C++ compiler (c++), not run\n");
    return;
  }
  g_autofree gchar *dir = g_dir_make_tmp ("cr-fuse-host-XXXXXX", NULL);
  g_autoptr (GRand) rand = cr_test_rand ();
  g_autoptr (GString) list = g_string_new (NULL);
  for (guint m = 0; m < G_N_ELEMENTS (members); m++)
    g_string_append_printf (
        list, "%s%s=%s", m ? "+" : "", members[m].label, members[m].monoid);
  g_autoptr (CrMonoid) fused = fuse (list->str);

  for (guint t = 0; t < G_N_ELEMENTS (types); t++) {
    const gsize n = 1000 + g_rand_int_range (rand, 0, 1000);
    const gsize size = n * cr_type_size (types[t]);
    g_autofree guint8 *data = g_malloc (size);
    cr_test_fill_random (rand, types[t], data, n);
    g_autofree gchar *data_path = g_build_filename (dir, "data", NULL);
    fail_unless (g_file_set_contents (data_path, (gchar *)data, size, NULL));

    g_autoptr (GstStructure) s = gst_structure_new ("ctx", "lo.threshold",
        G_TYPE_DOUBLE, 0.0, "hi.threshold", G_TYPE_DOUBLE, high[t], NULL);
    g_autoptr (GHashTable) context = context_table (s);
    g_autoptr (CrProgram) fp = cr_program_new (fused, types[t]);
    g_autoptr (GBytes) fout =
        run_on_host (cxx, dir, fp, data_path, 0, context, FALSE);
    const guint8 *fbytes = g_bytes_get_data (fout, NULL);
    guint base = 0;
    for (guint m = 0; m < G_N_ELEMENTS (members); m++) {
      g_autoptr (CrMonoid) alone = fuse (members[m].monoid);
      g_autoptr (CrProgram) ap = cr_program_new (alone, types[t]);
      g_autoptr (GBytes) aout = run_on_host (cxx, dir, ap, data_path,
          members[m].threshold < 0 ? high[t] : members[m].threshold, NULL,
          FALSE);
      const guint8 *abytes = g_bytes_get_data (aout, NULL);
      for (guint k = 0; k < ap->out.n_fields; k++) {
        g_autofree gchar *qualified =
            g_strdup_printf ("%s.%s", members[m].label, ap->out.names[k]);
        fail_unless_equals_string (fp->out.names[base + k], qualified);
        fail_unless (
            memcmp (fbytes + fp->out.offsets[base + k],
                abytes + ap->out.offsets[k], cr_type_size (ap->out.types[k]))
                == 0,
            "%s on %s: %s differs from %s alone", list->str,
            cr_type_name (types[t]), fp->out.names[base + k],
            members[m].monoid);
      }
      base += ap->out.n_fields;
    }
    fail_unless_equals_int (base, fp->out.n_fields);

    /* And what they agree on is right: the sum, and the two counts. */
    gdouble sum = 0;
    guint64 lo = 0, hi = 0;
    for (gsize k = 0; k < n; k++) {
      gdouble v = cr_test_get_double (types[t], data, k);
      sum += v;
      lo += v > 0;
      hi += v > high[t];
    }
    gint f = cr_layout_find (&fp->out, "sq.sum");
    gdouble got_sum = types[t] == CR_TYPE_INT16
        ? (gdouble)cr_test_get_int64 (
            CR_TYPE_INT64, fbytes + fp->out.offsets[f], 0)
        : cr_test_get_double (CR_TYPE_FLOAT64, fbytes + fp->out.offsets[f], 0);
    fail_unless (fabs (got_sum - sum) <= 1e-9 * n * 1000, "sum %g, want %g",
        got_sum, sum);
    guint64 got_lo, got_hi;
    memcpy (&got_lo,
        fbytes + fp->out.offsets[cr_layout_find (&fp->out, "lo.greater")], 8);
    memcpy (&got_hi,
        fbytes + fp->out.offsets[cr_layout_find (&fp->out, "hi.greater")], 8);
    fail_unless_equals_uint64 (got_lo, lo);
    fail_unless_equals_uint64 (got_hi, hi);
    fail_unless (lo > hi);
    g_unlink (data_path);
  }
  g_rmdir (dir);
}

GST_END_TEST;

/* mean_var's arithmetic, on the host, folded in a tree and one element at
 * a time from the identity (as a GPU thread folds its slice): data far from
 * zero (a naive sum of squares would lose the variance) against a two-pass
 * reference in long double. */
GST_START_TEST (test_mean_var_on_the_host)
{
  static const struct {
    CrType type;
    gdouble offset, spread;
  } cases[] = {
    { CR_TYPE_FLOAT64, 1e9, 1 },
    { CR_TYPE_FLOAT32, 1e4, 3 },
    { CR_TYPE_INT32, -2e9, 1e6 },
    { CR_TYPE_UINT8, 0, 255 },
  };
  g_autofree gchar *cxx = g_find_program_in_path ("c++");
  if (cxx == NULL) {
    g_print ("test_mean_var_on_the_host: no C++ compiler (c++), not run\n");
    return;
  }
  g_autofree gchar *dir = g_dir_make_tmp ("cr-fuse-host-XXXXXX", NULL);
  g_autoptr (GRand) rand = cr_test_rand ();
  g_autoptr (CrMonoid) mean_var = fuse ("mean_var");

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++) {
    const CrType type = cases[c].type;
    const gsize n = 1000 + g_rand_int_range (rand, 0, 1000);
    const gsize size = n * cr_type_size (type);
    g_autofree guint8 *data = g_malloc (size);
    for (gsize k = 0; k < n; k++) {
      const gdouble v =
          cases[c].offset + g_rand_double_range (rand, 0, cases[c].spread);
      if (type == CR_TYPE_FLOAT64)
        memcpy (data + 8 * k, &v, 8);
      else if (type == CR_TYPE_FLOAT32)
        ((gfloat *)data)[k] = (gfloat)v;
      else if (type == CR_TYPE_INT32)
        ((gint32 *)data)[k] = (gint32)v;
      else
        data[k] = (guint8)v;
    }
    long double mean = 0, var = 0;
    for (gsize k = 0; k < n; k++)
      mean += cr_test_get_double (type, data, k);
    mean /= n;
    for (gsize k = 0; k < n; k++) {
      const long double d = cr_test_get_double (type, data, k) - mean;
      var += d * d;
    }
    var /= n;

    g_autofree gchar *data_path = g_build_filename (dir, "data", NULL);
    fail_unless (g_file_set_contents (data_path, (gchar *)data, size, NULL));
    g_autoptr (CrProgram) p = cr_program_new (mean_var, type);
    for (gint sequential = 0; sequential < 2; sequential++) {
      g_autoptr (GBytes) out =
          run_on_host (cxx, dir, p, data_path, 0, NULL, sequential);
      const guint8 *bytes = g_bytes_get_data (out, NULL);
      gdouble got_mean, got_var;
      memcpy (&got_mean, bytes + p->out.offsets[0], 8);
      memcpy (&got_var, bytes + p->out.offsets[1], 8);
      fail_unless (fabsl (got_mean - mean) <= 1e-12 * fabsl (mean) + 1e-12,
          "%s, %s: mean %.17g, want %.17Lg", cr_type_name (type),
          sequential ? "one at a time" : "in a tree", got_mean, mean);
      fail_unless (fabsl (got_var - var) <= 1e-9 * var,
          "%s, %s: variance %.17g, want %.17Lg", cr_type_name (type),
          sequential ? "one at a time" : "in a tree", got_var, var);
    }
    g_unlink (data_path);
  }
  g_rmdir (dir);
}

GST_END_TEST;

static Suite *
fuse_suite (void)
{
  Suite *s = suite_create ("fuse");
  TCase *tc = tcase_create ("fuse");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_fused_fields);
  tcase_add_test (tc, test_fused_finalize);
  tcase_add_test (tc, test_fused_labels);
  tcase_add_test (tc, test_fused_refusals);
  tcase_add_test (tc, test_fused_files);
  tcase_add_test (tc, test_fuse_made_monoids);
  tcase_add_test (tc, test_fused_context);
  tcase_add_test (tc, test_fused_accumulator_limit);
  tcase_add_test (tc, test_fused_on_the_host);
  tcase_add_test (tc, test_mean_var_on_the_host);
  return s;
}

GST_CHECK_MAIN (fuse);
