/* cr-program.c: generating CUDA source for a monoid and an input type. */
#include "cr-program.h"
#include "cr-fuse.h"

#include "cr-error.h"

#include "cr-resource.h"

#include <gio/gio.h>
#include <glib-object.h>
#include <math.h>
#include <string.h>

/* Literals for the largest and lowest value of each type, spelled so that
 * NVRTC needs no header (no <climits>, no <cfloat>). */
static const gchar *const in_max[CR_N_TYPES] = {
  "((signed char) 127)",
  "((unsigned char) 255)",
  "((short) 32767)",
  "((unsigned short) 65535)",
  "2147483647",
  "4294967295u",
  "9223372036854775807ll",
  "18446744073709551615ull",
  "__int_as_float (0x7f800000)",
  "__longlong_as_double (0x7ff0000000000000ll)",
};

static const gchar *const in_lowest[CR_N_TYPES] = {
  "((signed char) -128)",
  "((unsigned char) 0)",
  "((short) -32768)",
  "((unsigned short) 0)",
  "(-2147483647 - 1)",
  "0u",
  "(-9223372036854775807ll - 1)",
  "0ull",
  "__int_as_float (0xff800000)",
  "__longlong_as_double (0xfff0000000000000ll)",
};

/* The monoid's name and origin go into the source's first comment, where
 * a star and a slash (or the two joined by a backslash-newline) would end
 * it and let the rest be code, such as a #define. So every character but
 * letters, digits and the ones below is percent-encoded (%2A, %5C, %0A):
 * nothing in the comment can end it, splice a line or start a directive,
 * and the text stays readable. Valid UTF-8 is kept. */
#define COMMENT_SAFE " -._~/:@+,=()[]!$&'"

static gchar *
comment_escape (const gchar *text)
{
  return g_uri_escape_string (text, COMMENT_SAFE, TRUE);
}

/* A fused monoid's fields are named "label.field", which is no C name:
 * in its structs field k is cr_f<k>. */
static void
emit_struct (
    GString *s, const gchar *name, const CrLayout *layout, gboolean fused)
{
  g_string_append_printf (s, "struct %s {\n", name);
  for (guint f = 0; f < layout->n_fields; f++)
    if (fused)
      g_string_append_printf (s, "  %s cr_f%u; /* %s */\n",
          cr_type_name (layout->types[f]), f, layout->names[f]);
    else
      g_string_append_printf (
          s, "  %s %s;\n", cr_type_name (layout->types[f]), layout->names[f]);
  if (layout->n_fields == 0)
    g_string_append (s, "  unsigned int cr_unused;\n");
  g_string_append (s, "};\n");
  /* The host reads and writes these structs by the offsets it computed;
   * a disagreement must fail the compile, not corrupt a result. */
  g_string_append_printf (s,
      "static_assert (sizeof (%s) == %" G_GSIZE_FORMAT
      " && alignof (%s) == %" G_GSIZE_FORMAT ", \"%s layout\");\n",
      name, layout->size, name, layout->align, name);
  for (guint f = 0; f < layout->n_fields; f++) {
    g_autofree gchar *member =
        fused ? g_strdup_printf ("cr_f%u", f) : g_strdup (layout->names[f]);
    g_string_append_printf (s,
        "CR_ABI_ASSERT (CR_ABI_OFFSETOF (%s, %s) == %" G_GSIZE_FORMAT
        ", \"%s.%s offset\");\n",
        name, member, layout->offsets[f], name, member);
  }
}

/* The body goes on lines of its own so that compiler messages point into
 * it, under a comment naming the key it came from, and an empty line after
 * it: a body that ends in a backslash (a // comment's, say) splices that
 * line, not the closing brace. */
static void
emit_function (
    GString *s, const gchar *signature, const gchar *key, const gchar *body)
{
  g_string_append_printf (s,
      "static __device__ __forceinline__ %s\n{\n"
      "/* %s: */\n%s\n\n}\n",
      signature, key, body);
}

static void
append_kernel (GString *s, const gchar *name)
{
  g_autofree gchar *path = g_strconcat (CR_RESOURCE_KERNELS, name, NULL);
  g_autoptr (GBytes) found = g_resource_lookup_data (
      cr_resource (), path, G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  g_assert (found != NULL); /* compiled into the plugin */
  g_string_append_len (
      s, g_bytes_get_data (found, NULL), (gssize)g_bytes_get_size (found));
}

/* The kernels: one result over everything, batches of small reductions,
 * and (@per_channel) one result per channel; the CR_WITH_ macros of the
 * prelude leave out those the program was not asked for. */
static const gchar *
kernel_template (gboolean per_channel)
{
  static gchar *texts[2];
  if (g_once_init_enter (&texts[per_channel])) {
    GString *s = g_string_new (NULL);
    append_kernel (s, "reduce.cu");
    append_kernel (s, "reduce-batch.cu");
    if (per_channel)
      append_kernel (s, "reduce-channels.cu");
    g_once_init_leave (&texts[per_channel], g_string_free (s, FALSE));
  }
  return texts[per_channel];
}

/* The structs and the four functions of @m, whose layouts are given. A
 * fused monoid's members are emitted with their @label, each in a
 * namespace of its own. */
static void
emit_monoid (GString *s, const CrMonoid *m, const CrLayout *acc,
    const CrLayout *ctx, const CrLayout *out, const gchar *label)
{
  /* With a NULL label, g_strconcat stops before it. */
  const gchar *of = label ? " of " : "";
  g_autofree gchar *identity = g_strconcat ("Identity", of, label, NULL);
  g_autofree gchar *load = g_strconcat ("Load", of, label, NULL);
  g_autofree gchar *combine = g_strconcat ("Combine", of, label, NULL);
  g_autofree gchar *finalize = g_strconcat ("Finalize", of, label, NULL);

  emit_struct (s, "Acc", acc, FALSE);
  emit_struct (s, "Ctx", ctx, FALSE);
  if (m->finalize)
    emit_struct (s, "Out", out, FALSE);
  else
    g_string_append (s, "typedef Acc Out;\n");
  /* A monoid that only counts bins has no bodies: its kernels, never
   * launched, fold an empty accumulator. */
  const gchar *nothing = "Acc r = {}; return r;";
  emit_function (s, "Acc cr_identity (const Ctx &ctx)", identity,
      m->identity ? m->identity : nothing);
  emit_function (s,
      "Acc cr_load (const In x, const unsigned long long i, "
      "const Ctx &ctx)",
      load, m->load ? m->load : nothing);
  emit_function (s,
      "Acc cr_combine (const Acc &a, const Acc &b, "
      "const Ctx &ctx)",
      combine, m->combine ? m->combine : "return a;");
  emit_function (s,
      "Out cr_finalize (const Acc &a, const unsigned long long "
      "n, const Ctx &ctx)",
      finalize, m->finalize ? m->finalize : "return a;");
  if (m->bin) {
    g_autofree gchar *bin = g_strconcat ("Bin", of, label, NULL);
    emit_function (s,
        "long long cr_bin (const In x, const unsigned long long i, "
        "const Ctx &ctx)",
        bin, m->bin);
  }
}

/* Assignments between member @k's struct @var (fields @member) and the
 * fused struct @fused, whose fields from @base on are the member's. */
static void
emit_copies (GString *s, const CrLayout *member, const gchar *var,
    const gchar *fused, guint base, gboolean to_member)
{
  for (guint f = 0; f < member->n_fields; f++)
    if (to_member)
      g_string_append_printf (
          s, "  %s.%s = %s.cr_f%u;\n", var, member->names[f], fused, base + f);
    else
      g_string_append_printf (
          s, "  %s.cr_f%u = %s.%s;\n", fused, base + f, var, member->names[f]);
}

#define MEMBER_FN "static __device__ __forceinline__ "

/* A fused monoid: each member in its namespace cr_m<k>, the fused structs
 * with every member's fields in turn, and functions that apply each
 * member's to its part. The copies between the structs cost nothing once
 * NVRTC has inlined them: the fields stay in registers. */
static void
emit_fused (GString *s, const CrProgram *p)
{
  const CrMonoid *fused = p->monoid;
  const guint n = fused->members->len;
  g_autofree CrLayout *acc = g_new0 (CrLayout, n);
  g_autofree CrLayout *ctx = g_new0 (CrLayout, n);
  g_autofree CrLayout *out = g_new0 (CrLayout, n);

  for (guint k = 0; k < n; k++) {
    const CrMonoid *m = g_ptr_array_index (fused->members, k);
    cr_layout_init (&acc[k], m->accumulator, p->in);
    cr_layout_init (&ctx[k], m->context, p->in);
    cr_layout_init (&out[k], cr_monoid_result_fields (m), p->in);
    g_string_append_printf (s, "namespace cr_m%u {\n", k);
    emit_monoid (s, m, &acc[k], &ctx[k], &out[k], fused->labels[k]);
    g_string_append_printf (s, "} /* namespace cr_m%u */\n", k);
  }
  emit_struct (s, "Acc", &p->acc, TRUE);
  emit_struct (s, "Ctx", &p->ctx, TRUE);
  emit_struct (s, "Out", &p->out_device, TRUE);

  guint acc_base = 0, ctx_base = 0;
  for (guint k = 0; k < n; k++) {
    g_string_append_printf (s,
        "/* %s's part of the fused structs. */\n" MEMBER_FN
        "cr_m%u::Acc cr_m%u_acc (const Acc &a)\n{\n  cr_m%u::Acc m = {};\n",
        fused->labels[k], k, k, k);
    emit_copies (s, &acc[k], "m", "a", acc_base, TRUE);
    g_string_append_printf (s,
        "  return m;\n}\n" MEMBER_FN
        "void cr_m%u_put (Acc &r, const cr_m%u::Acc &m)\n{\n",
        k, k);
    emit_copies (s, &acc[k], "m", "r", acc_base, FALSE);
    g_string_append_printf (s,
        "}\n" MEMBER_FN "cr_m%u::Ctx cr_m%u_ctx (const Ctx &ctx)\n{\n"
        "  cr_m%u::Ctx m = {};\n",
        k, k, k);
    emit_copies (s, &ctx[k], "m", "ctx", ctx_base, TRUE);
    g_string_append (s, "  return m;\n}\n");
    acc_base += acc[k].n_fields;
    ctx_base += ctx[k].n_fields;
  }

  GString *identity = g_string_new ("Acc r;\n");
  GString *load = g_string_new ("Acc r;\n");
  GString *combine = g_string_new ("Acc r;\n");
  GString *finalize = g_string_new ("Out o;\n");
  guint out_base = 0;
  for (guint k = 0; k < n; k++) {
    g_string_append_printf (identity,
        "cr_m%u_put (r, cr_m%u::cr_identity (cr_m%u_ctx (ctx)));\n", k, k, k);
    g_string_append_printf (load,
        "cr_m%u_put (r, cr_m%u::cr_load (x, i, cr_m%u_ctx (ctx)));\n", k, k, k);
    g_string_append_printf (combine,
        "cr_m%u_put (r, cr_m%u::cr_combine (cr_m%u_acc (a), cr_m%u_acc (b), "
        "cr_m%u_ctx (ctx)));\n",
        k, k, k, k, k);
    g_string_append_printf (finalize,
        "{\n  const cr_m%u::Out m = cr_m%u::cr_finalize (cr_m%u_acc (a), n, "
        "cr_m%u_ctx (ctx));\n",
        k, k, k, k);
    emit_copies (finalize, &out[k], "m", "o", out_base, FALSE);
    g_string_append (finalize, "}\n");
    out_base += out[k].n_fields;
    cr_layout_clear (&acc[k]);
    cr_layout_clear (&ctx[k]);
    cr_layout_clear (&out[k]);
  }
  g_string_append (identity, "return r;");
  g_string_append (load, "return r;");
  g_string_append (combine, "return r;");
  g_string_append (finalize, "return o;");
  emit_function (
      s, "Acc cr_identity (const Ctx &ctx)", "Identity", identity->str);
  emit_function (s,
      "Acc cr_load (const In x, const unsigned long long i, "
      "const Ctx &ctx)",
      "Load", load->str);
  emit_function (s,
      "Acc cr_combine (const Acc &a, const Acc &b, "
      "const Ctx &ctx)",
      "Combine", combine->str);
  emit_function (s,
      "Out cr_finalize (const Acc &a, const unsigned long long "
      "n, const Ctx &ctx)",
      "Finalize", finalize->str);
  g_string_free (identity, TRUE);
  g_string_free (load, TRUE);
  g_string_free (combine, TRUE);
  g_string_free (finalize, TRUE);
}

/* Appends a field of @length values of @type to @out at @offset. */
static gsize
append_field (CrLayout *out, const gchar *name, CrType type, guint length,
    gboolean array, gsize offset)
{
  const guint f = out->n_fields++;
  out->names = g_renew (const gchar *, out->names, f + 2);
  out->types = g_renew (CrType, out->types, f + 2);
  out->offsets = g_renew (gsize, out->offsets, f + 2);
  out->lengths = g_renew (guint, out->lengths, f + 2);
  out->arrays = g_renew (gboolean, out->arrays, f + 2);
  out->names[f] = name;
  out->types[f] = type;
  out->offsets[f] = offset;
  out->lengths[f] = length;
  out->arrays[f] = array;
  out->names[f + 1] = NULL;
  return offset + cr_type_size (type) * length;
}

/* The counts of @m's bins after its result fields, as cr_program_unpack
 * lays them out: the bins, below, above, nan (the histogram kernel's
 * slots, kernels/histogram.cu), then the percentiles. */
static void
append_bins_fields (CrLayout *out, const CrMonoid *m)
{
  gsize offset = (out->size + 7) / 8 * 8;
  for (guint k = 0; cr_bins_field_names[k]; k++)
    offset = append_field (out, cr_bins_field_names[k], CR_TYPE_UINT64,
        k == 0 ? cr_monoid_total_bins (m) : 1, k == 0, offset);
  for (guint k = 0; k < m->percentiles->len; k++) {
    const CrPercentiles *p = &g_array_index (m->percentiles, CrPercentiles, k);
    offset = append_field (
        out, p->name, CR_TYPE_FLOAT64, p->points->len, p->array, offset);
  }
  out->size = offset;
  out->align = MAX (out->align, sizeof (guint64));
}

void
cr_program_unpack (
    const CrProgram *p, guint channels, const guint8 *device, guint8 *values)
{
  if (p->bins == 0) {
    memcpy (values, device, (gsize)channels * p->out.size);
    return;
  }
  cr_program_unpack_parts (p, channels, device,
      device + CR_BINS_RESULT_OFFSET (channels, p->out_device.size), values);
}

gsize
cr_program_bins_bytes (const CrProgram *p, guint channels)
{
  return (gsize)channels
      * (CR_BIN_SLOTS (p->bins) * sizeof (guint64)
          + p->n_points * sizeof (gdouble));
}

void
cr_program_unpack_region (const CrProgram *p, guint channels, guint n, guint k,
    const guint8 *device, guint8 *values)
{
  const gsize outs = (gsize)channels * p->out_device.size;
  if (p->bins == 0) {
    memcpy (values, device + k * outs, outs);
    return;
  }
  cr_program_unpack_parts (p, channels, device + k * outs,
      device + CR_BINS_RESULT_OFFSET ((gsize)n * channels, p->out_device.size)
          + k * cr_program_bins_bytes (p, channels),
      values);
}

void
cr_program_unpack_parts (const CrProgram *p, guint channels,
    const guint8 *device, const guint8 *counts, guint8 *values)
{
  const gsize out_bytes = p->out_device.size;
  const gsize counts_bytes = CR_BIN_SLOTS (p->bins) * sizeof (guint64);
  const gsize points_bytes = p->n_points * sizeof (gdouble);
  const gsize counts_at = (out_bytes + 7) / 8 * 8;
  const guint8 *points = counts + channels * counts_bytes;
  for (guint c = 0; c < channels; c++) {
    guint8 *value = values + c * p->out.size;
    memcpy (value, device + c * out_bytes, out_bytes);
    memset (value + out_bytes, 0, counts_at - out_bytes);
    memcpy (value + counts_at, counts + c * counts_bytes, counts_bytes);
    memcpy (value + counts_at + counts_bytes, points + c * points_bytes,
        points_bytes);
  }
}

/* Where the histogram kernel finds the range and the Bin body: the Ctx,
 * or in a fused monoid the member's that counts bins. */
static void
emit_bins_context (GString *s, const CrMonoid *m)
{
  if (m->bins_label == NULL) {
    g_string_append (s, "#define CR_BIN_CTX(ctx) (ctx)\n");
    return;
  }
  guint k = 0;
  while (strcmp (m->labels[k], m->bins_label) != 0)
    k++;
  g_string_append_printf (s, "#define CR_BIN_CTX(ctx) cr_m%u_ctx (ctx)\n", k);
  if (m->bin)
    g_string_append_printf (s,
        MEMBER_FN "long long\ncr_bin (const In x, const unsigned long long i, "
                  "const Ctx &ctx)\n{\n"
                  "  return cr_m%u::cr_bin (x, i, cr_m%u_ctx (ctx));\n}\n",
        k, k);
}

/* The percentiles' points, as the histogram kernel reads them: exact
 * (%.17g reads back as the same double). */
static void
emit_points (GString *s, const GArray *points)
{
  g_string_append_printf (s, "#define CR_PERCENTILES %u\n", points->len);
  g_string_append (
      s, "static __device__ const double cr_percentile_points[] = {");
  for (guint k = 0; k < points->len; k++) {
    gchar number[G_ASCII_DTOSTR_BUF_SIZE];
    g_ascii_formatd (
        number, sizeof number, "%.17g", g_array_index (points, gdouble, k));
    g_string_append_printf (s, "%s%s", k ? ", " : " ", number);
  }
  g_string_append (s, " };\n");
}

CrKernels
cr_kernels_vec (CrType in, guint channels)
{
  const gsize per_load = 16 / cr_type_size (in);
  if (channels < 2 || per_load % channels != 0)
    return 0;
  switch (channels) {
    case 2:
      return CR_KERNELS_VEC2;
    case 4:
      return CR_KERNELS_VEC4;
    case 8:
      return CR_KERNELS_VEC8;
    default:
      return 0;
  }
}

guint
cr_kernels_variants (CrType in, gboolean single, CrKernels *sets)
{
  /* One result, then the per-channel kernel alone (channel counts that no
   * packed kernel reads) and with each packed one, as cr_kernels_vec
   * picks them by channel count. */
  CrKernels channels[CR_KERNELS_MAX_VARIANTS / 2] = { 0 };
  guint n_channels = 1;
  if (!single) {
    channels[n_channels++] = CR_KERNELS_CHANNELS;
    for (guint c = 2; c <= 8; c *= 2)
      if (cr_kernels_vec (in, c))
        channels[n_channels++] = CR_KERNELS_CHANNELS | cr_kernels_vec (in, c);
  }
  guint n = 0;
  for (guint pitched = 0; pitched < 2; pitched++)
    for (guint k = 0; k < n_channels; k++)
      sets[n++] = channels[k] | (pitched ? CR_KERNELS_PITCHED : 0);
  return n;
}

CrProgram *
cr_program_new_with (CrMonoid *monoid, CrType in, CrKernels kernels)
{
  CrProgram *p = g_new0 (CrProgram, 1);
  GString *s = g_string_new (NULL);
  /* The packed kernels only speed up the general one. */
  if (kernels & CR_KERNELS_PER_CHANNEL)
    kernels |= CR_KERNELS_CHANNELS;
  const gboolean per_channel = (kernels & CR_KERNELS_CHANNELS) != 0;

  p->monoid = cr_monoid_ref (monoid);
  p->in = in;
  p->kernels = kernels;
  p->per_channel = per_channel;
  cr_layout_init (&p->acc, monoid->accumulator, in);
  cr_layout_init (&p->ctx, monoid->context, in);
  cr_layout_init (&p->out_device, cr_monoid_result_fields (monoid), in);
  cr_layout_init (&p->out, cr_monoid_result_fields (monoid), in);
  p->bins = cr_monoid_total_bins (monoid);
  p->pair_bins = monoid->pair ? monoid->bins : 0;
  p->bins_field = p->bins ? (gint)p->out.n_fields : -1;
  g_autoptr (GArray) points = cr_monoid_percentile_points (monoid);
  p->n_points = points->len;
  if (p->bins)
    append_bins_fields (&p->out, monoid);

  g_autofree gchar *name = comment_escape (monoid->name);
  g_autofree gchar *origin = comment_escape (monoid->origin);
  g_string_append_printf (s,
      "/* Generated by cudareduce: monoid \"%s\" (%s) "
      "on %s input. */\n",
      name, origin, cr_type_name (in));
  /* What the host and the kernels agree on, as this side was compiled
   * with it (cr-program.h includes the same file). */
  append_kernel (s, "cr-abi.h");
  for (gint t = 0; t < CR_N_TYPES; t++)
    g_string_append_printf (
        s, "typedef %s %s;\n", cr_type_cuda (t), cr_type_name (t));
  /* Every name defined from here on, and in the kernels, is one that
   * cr-monoid.c refuses as a field name (a field is a member of Acc, Ctx
   * or Out, where a macro or a type of the same name breaks it). */
  g_string_append_printf (s, "typedef %s In;\ntypedef %s wide;\n",
      cr_type_name (in), cr_type_name (cr_type_wide (in)));
  g_string_append_printf (s,
      "#define IN_MAX %s\n#define IN_LOWEST %s\n"
      "#define IN_IS_FLOAT %d\n#define IN_IS_SIGNED %d\n"
      "#define CR_IN_BYTES %" G_GSIZE_FORMAT "\n",
      in_max[in], in_lowest[in], cr_type_is_float (in), cr_type_is_signed (in),
      cr_type_size (in));
  g_string_append_printf (s,
      "#define CR_WITH_PITCHED %d\n#define CR_WITH_CHANNELS %d\n"
      "#define CR_WITH_VEC2 %d\n#define CR_WITH_VEC4 %d\n"
      "#define CR_WITH_VEC8 %d\n#define CR_WITH_WINDOW %d\n",
      !!(kernels & CR_KERNELS_PITCHED), !!(kernels & CR_KERNELS_CHANNELS),
      !!(kernels & CR_KERNELS_VEC2), !!(kernels & CR_KERNELS_VEC4),
      !!(kernels & CR_KERNELS_VEC8), !!(kernels & CR_KERNELS_WINDOW));
  if (p->bins)
    g_string_append_printf (s,
        "#define CR_BINS %u\n#define CR_BIN_BODY %d\n"
        "#define CR_WITH_BINNED %d\n",
        p->bins, monoid->bin != NULL, cr_monoid_has_accumulator (monoid));
  if (p->pair_bins)
    g_string_append_printf (s, "#define CR_PAIR_BINS %u\n", p->pair_bins);
  if (p->n_points)
    emit_points (s, points);
  if (monoid->members)
    emit_fused (s, p);
  else
    emit_monoid (s, monoid, &p->acc, &p->ctx, &p->out_device, NULL);
  if (p->bins)
    emit_bins_context (s, monoid);
  g_string_append (s, kernel_template (per_channel));
  if (p->bins)
    append_kernel (s, "histogram.cu");
  if (kernels & CR_KERNELS_WINDOW)
    append_kernel (s, "window.cu");
  if (kernels & CR_KERNELS_REGIONS)
    append_kernel (s, "regions.cu");
  p->source = g_string_free (s, FALSE);
  return p;
}

CrProgram *
cr_program_new (CrMonoid *monoid, CrType in)
{
  return cr_program_new_with (monoid, in, CR_KERNELS_PITCHED);
}

CrProgram *
cr_program_new_per_channel (CrMonoid *monoid, CrType in)
{
  return cr_program_new_with (monoid, in, CR_KERNELS_ALL);
}

gboolean
cr_program_check_limits (const CrProgram *program, GError **error)
{
  /* NVRTC would say only "Formal parameter space overflowed". */
  if (program->ctx.size > CR_CTX_MAX_BYTES) {
    g_set_error (error, CR_ERROR, CR_ERROR_FIELDS,
        "The context of monoid %s takes %" G_GSIZE_FORMAT " bytes on %s "
        "input (%u fields), and a context holds at most %" G_GSIZE_FORMAT
        " bytes: each kernel takes it by value after %" G_GSIZE_FORMAT
        " bytes of other parameters, within the %d bytes of parameters a "
        "kernel can take; declare fewer or narrower context fields",
        program->monoid->name, program->ctx.size, cr_type_name (program->in),
        program->ctx.n_fields, (gsize)CR_CTX_MAX_BYTES,
        (gsize)CR_PARAMS_BEFORE_CTX, CR_PARAMS_MAX_BYTES);
    return FALSE;
  }
  if (program->acc.size <= CR_ACC_MAX_BYTES)
    return TRUE;
  g_set_error (error, CR_ERROR, CR_ERROR_FIELDS,
      "The accumulator of monoid %s takes %" G_GSIZE_FORMAT " bytes on %s "
      "input, and the kernels hold at most %d bytes (%d of them share a "
      "block's 48 KiB of shared memory); %s",
      program->monoid->name, program->acc.size, cr_type_name (program->in),
      CR_ACC_MAX_BYTES, CR_BLOCK_THREADS + CR_BLOCK_THREADS / CR_WARP_THREADS,
      program->monoid->members
          ? "fuse fewer members, or split them over several elements"
          : "declare fewer or narrower fields");
  return FALSE;
}

void
cr_program_free (CrProgram *program)
{
  if (program == NULL)
    return;
  cr_monoid_unref (program->monoid);
  cr_layout_clear (&program->acc);
  cr_layout_clear (&program->ctx);
  cr_layout_clear (&program->out);
  cr_layout_clear (&program->out_device);
  g_free (program->source);
  g_free (program);
}

gchar *
cr_source_number_lines (const gchar *source)
{
  g_auto (GStrv) lines = g_strsplit (source, "\n", -1);
  GString *s = g_string_new (NULL);
  for (guint k = 0; lines[k]; k++)
    g_string_append_printf (s, "%4u | %s\n", k + 1, lines[k]);
  return g_string_free (s, FALSE);
}

static gboolean
pack_value (CrType type, const GValue *value, guint8 *dst)
{
  GValue as = G_VALUE_INIT;
  if (G_VALUE_HOLDS_DOUBLE (value) || G_VALUE_HOLDS_FLOAT (value)) {
    g_value_init (&as, G_TYPE_DOUBLE);
    g_value_transform (value, &as);
    return cr_type_store_double (type, g_value_get_double (&as), dst);
  }
  if (G_VALUE_HOLDS_UINT64 (value) || G_VALUE_HOLDS_UINT (value)) {
    g_value_init (&as, G_TYPE_UINT64);
    g_value_transform (value, &as);
    return cr_type_store_uint64 (type, g_value_get_uint64 (&as), dst);
  }
  if (G_VALUE_HOLDS_INT64 (value) || G_VALUE_HOLDS_INT (value)
      || G_VALUE_HOLDS_BOOLEAN (value)) {
    g_value_init (&as, G_TYPE_INT64);
    g_value_transform (value, &as);
    return cr_type_store_int64 (type, g_value_get_int64 (&as), dst);
  }
  return FALSE;
}

/* Stores @value in every context field that @key names: the field of that
 * name, and in a fused monoid a member's field given as "label.field", or
 * every member's field of that base name given as "field". */
static gboolean
pack_named (const CrProgram *program, const gchar *key, const GValue *value,
    guint8 *ctx, GError **error)
{
  const CrLayout *layout = &program->ctx;
  const gboolean qualified = strchr (key, '.') != NULL;
  guint found = 0;

  for (guint f = 0; f < layout->n_fields; f++) {
    const gchar *name = layout->names[f];
    if (strcmp (qualified ? name : cr_field_base_name (name), key) != 0)
      continue;
    found++;
    if (!pack_value (layout->types[f], value, ctx + layout->offsets[f])) {
      g_set_error (error, CR_ERROR, CR_ERROR_CONTEXT,
          "The context value of \"%s\" (%s) does not fit its type %s", name,
          G_VALUE_TYPE_NAME ((GValue *)value), cr_type_name (layout->types[f]));
      return FALSE;
    }
  }
  if (found == 0) {
    if (program->monoid->members)
      g_set_error (error, CR_ERROR, CR_ERROR_CONTEXT,
          "The context names \"%s\", which no member of monoid %s "
          "declares in Context; name a member's field as label.field",
          key, program->monoid->name);
    else
      g_set_error (error, CR_ERROR, CR_ERROR_CONTEXT,
          "The context names \"%s\", which monoid %s does not declare in "
          "Context",
          key, program->monoid->name);
    return FALSE;
  }
  return TRUE;
}

static gboolean pack_context (const CrProgram *program, gdouble threshold,
    GHashTable *values, guint8 *ctx, GError **error);

/* The bins' range in @ctx (cr_program_pack_context): an integer type's
 * whole range where lo and hi are both 0, and checked. */
static gboolean
resolve_range (const CrProgram *p, guint8 *ctx, GError **error)
{
  /* A fused monoid's are its binned member's. */
  const gchar *label = p->monoid->bins_label;
  g_autofree gchar *lo_name =
      label ? g_strdup_printf ("%s.lo", label) : g_strdup ("lo");
  g_autofree gchar *hi_name =
      label ? g_strdup_printf ("%s.hi", label) : g_strdup ("hi");
  const gint lo_field = cr_layout_find (&p->ctx, lo_name);
  const gint hi_field = cr_layout_find (&p->ctx, hi_name);
  g_assert (lo_field >= 0 && hi_field >= 0); /* cr-monoid.c requires them */
  gdouble lo, hi;
  memcpy (&lo, ctx + p->ctx.offsets[lo_field], sizeof lo);
  memcpy (&hi, ctx + p->ctx.offsets[hi_field], sizeof hi);
  const gchar *type = cr_type_name (p->in);
  const gboolean wide64 = cr_type_size (p->in) == 8;
  /* Each axis of a pair's bins covers the range. */
  const guint bins = p->pair_bins ? p->pair_bins : p->bins;

  if (cr_type_is_float (p->in)) {
    if (!(isfinite (lo) && isfinite (hi) && hi > lo)) {
      g_set_error (error, CR_ERROR, CR_ERROR_CONTEXT,
          "The bins of monoid %s on %s input need a range: set the context "
          "fields lo and hi (finite, lo < hi), e.g. "
          "context=\"ctx, lo=(double)-1, hi=(double)1\"; lo=%g, hi=%g",
          p->monoid->name, type, lo, hi);
      return FALSE;
    }
    return TRUE;
  }
  if (lo == 0 && hi == 0) {
    if (wide64) {
      g_set_error (error, CR_ERROR, CR_ERROR_CONTEXT,
          "The bins of monoid %s on %s input need a range: set the context "
          "fields lo and hi (whole numbers within +-2^53, which %u bins "
          "divide evenly)",
          p->monoid->name, type, bins);
      return FALSE;
    }
    lo = cr_type_lowest (p->in);
    hi = cr_type_largest (p->in) + 1.0;
  }
  const gdouble lowest = cr_type_lowest (p->in);
  const gdouble top =
      wide64 ? 9007199254740992.0 : cr_type_largest (p->in) + 1.0;
  if (!(lo == floor (lo) && hi == floor (hi) && hi > lo
          && lo >= MAX (lowest, -9007199254740992.0) && hi <= top)) {
    g_set_error (error, CR_ERROR, CR_ERROR_CONTEXT,
        "The bins of monoid %s on %s input cover lo=%.17g to hi=%.17g; on "
        "integer input lo and hi are whole numbers with lo < hi, from the "
        "type's lowest value (%.17g) to its largest plus one (%.17g); leave "
        "both at 0 for the whole range",
        p->monoid->name, type, lo, hi, MAX (lowest, -9007199254740992.0), top);
    return FALSE;
  }
  if (wide64 && fmod (hi - lo, bins) != 0) {
    g_set_error (error, CR_ERROR, CR_ERROR_CONTEXT,
        "The bins of monoid %s on %s input: %u bins do not divide the range "
        "lo=%.17g to hi=%.17g evenly, which 64-bit input needs; choose a "
        "range that is a multiple of the bins",
        p->monoid->name, type, bins, lo, hi);
    return FALSE;
  }
  memcpy (ctx + p->ctx.offsets[lo_field], &lo, sizeof lo);
  memcpy (ctx + p->ctx.offsets[hi_field], &hi, sizeof hi);
  return TRUE;
}

gboolean
cr_program_pack_context (const CrProgram *program, gdouble threshold,
    GHashTable *values, guint8 *ctx, GError **error)
{
  return pack_context (program, threshold, values, ctx, error)
      && (program->bins == 0 || program->monoid->bin != NULL
          || resolve_range (program, ctx, error));
}

static gboolean
pack_context (const CrProgram *program, gdouble threshold, GHashTable *values,
    guint8 *ctx, GError **error)
{
  const CrLayout *layout = &program->ctx;
  memset (ctx, 0, layout->size);

  /* Every member's threshold, in a fused monoid. */
  for (guint f = 0; f < layout->n_fields; f++) {
    if (strcmp (cr_field_base_name (layout->names[f]), "threshold") != 0)
      continue;
    if (!cr_type_store_double (
            layout->types[f], threshold, ctx + layout->offsets[f])) {
      g_set_error (error, CR_ERROR, CR_ERROR_CONTEXT,
          "threshold=%g does not fit the context field %s, of type %s",
          threshold, layout->names[f], cr_type_name (layout->types[f]));
      return FALSE;
    }
  }
  if (values == NULL)
    return TRUE;

  /* The more specific wins: names for every member first, then the
   * members' own ("lo.threshold"), whatever the structure's order. */
  for (gint qualified = 0; qualified < 2; qualified++) {
    GHashTableIter iter;
    gpointer key, value;
    g_hash_table_iter_init (&iter, values);
    while (g_hash_table_iter_next (&iter, &key, &value))
      if ((strchr (key, '.') != NULL) == qualified
          && !pack_named (program, key, value, ctx, error))
        return FALSE;
  }
  return TRUE;
}
