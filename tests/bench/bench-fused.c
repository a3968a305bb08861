/* bench-fused.c: a fused monoid against its members.
 *
 * Fused programs of 1 to 4 built-in members on float32 data in device
 * memory, each size timed in the same run as the members launched one
 * after another over the same bytes, the slowest member alone, and CUB's
 * Sum. A fused program reads the data once where the members read it once
 * each, so it should come close to the slowest member alone. Every fused
 * result is compared with its members' results (float64 sums within
 * rounding, the rest byte for byte). */
#include "bench-reduce.h"

#include <math.h>
#include <string.h>

#define FUSED_MIN_BYTES (1u << 20)
#define MAX_MEMBERS 4

static const gchar *const lists[] = {
  "sumsq",
  "sumsq+minmax",
  "sumsq+minmax+count_gt",
  "sumsq+minmax+count_gt+mean_var",
};
/* count_gt's threshold, inside the data's [-1000, 1000). */
#define THRESHOLD 100.5

typedef struct {
  CrMonoid *monoid;
  CrProgram *program;
  CrReducer *reducer;
  guint8 *ctx;
  guint8 *out;
} Prepared;

static void
prepare (Bench *b, Prepared *p, const gchar *name)
{
  g_autoptr (GError) error = NULL;
  p->monoid = cr_monoid_load (name, &error);
  if (p->monoid == NULL)
    die (name, error);
  p->program = cr_program_new (p->monoid, CR_TYPE_FLOAT32);
  p->reducer = cr_reducer_new (b->device, p->program, NULL, &error);
  if (p->reducer == NULL)
    die (name, error);
  p->ctx = g_malloc0 (p->program->ctx.size);
  p->out = g_malloc0 (p->program->out.size);
  if (!cr_program_pack_context (p->program, THRESHOLD, NULL, p->ctx, &error))
    die (name, error);
}

static void
prepared_clear (Prepared *p)
{
  cr_reducer_free (p->reducer);
  cr_program_free (p->program);
  cr_monoid_unref (p->monoid);
  g_free (p->ctx);
  g_free (p->out);
}

static gdouble
seconds_of (Bench *b, Prepared *p, gsize bytes)
{
  OurLaunch our = { p->reducer, p->ctx };
  return time_launches (
      b, launch_ours, &our, region_of (CR_TYPE_FLOAT32), bytes);
}

static void
reduce_first (Bench *b, Prepared *p, gsize bytes)
{
  g_autoptr (GError) error = NULL;
  if (!cr_reducer_reduce_device (p->reducer,
          b->region[region_of (CR_TYPE_FLOAT32)], bytes / 4, p->ctx, p->out,
          &error))
    die (p->monoid->name, error);
}

/* Member @m's result fields against the fused result's, which hold them
 * from field @first on: equal, except float64 sums, which a fused kernel
 * on a smaller grid (it uses more registers) may add in another order. */
static gboolean
same_results (const Prepared *fused, guint first, const Prepared *member)
{
  const CrLayout *f = &fused->program->out, *m = &member->program->out;
  for (guint k = 0; k < m->n_fields; k++) {
    const guint8 *a = fused->out + f->offsets[first + k];
    const guint8 *b = member->out + m->offsets[k];
    gboolean same;
    if (m->types[k] == CR_TYPE_FLOAT64) {
      gdouble x, y;
      memcpy (&x, a, 8);
      memcpy (&y, b, 8);
      same = fabs (x - y) <= 1e-9 * MAX (fabs (x), fabs (y)) + 1e-9;
    } else {
      same = memcmp (a, b, cr_type_size (m->types[k])) == 0;
    }
    if (!same) {
      g_printerr ("WRONG: %s: %s differs from %s alone\n", fused->monoid->name,
          f->names[first + k], member->monoid->name);
      return FALSE;
    }
  }
  return TRUE;
}

void
run_fused (Bench *b, gsize max_bytes, FILE *csv, const gdouble *cub_sum)
{
  g_print ("\n%-32s %10s %9s %9s %9s %8s %8s %6s  %s\n", "fused (float32)",
      "bytes", "GB/s", "slowest", "separate", "/slowest", "/separ.", "/CUB",
      "check");
  fprintf (csv,
      "fused,members,bytes,gbps,slowest_member_gbps,"
      "separate_gbps,ratio_slowest,ratio_separate,cub_sum_gbps,"
      "ratio_cub_sum,check\n");
  for (guint l = 0; l < G_N_ELEMENTS (lists); l++) {
    g_auto (GStrv) names = g_strsplit (lists[l], "+", -1);
    const guint n = g_strv_length (names);
    Prepared fused, members[MAX_MEMBERS];
    prepare (b, &fused, lists[l]);
    for (guint m = 0; m < n; m++)
      prepare (b, &members[m], names[m]);

    guint row = 0;
    for (gsize bytes = BENCH_MIN_BYTES; bytes <= max_bytes; bytes *= 4, row++) {
      if (bytes < FUSED_MIN_BYTES)
        continue;
      const gdouble t_fused = seconds_of (b, &fused, bytes);
      gdouble t_separate = 0, t_slowest = 0;
      for (guint m = 0; m < n; m++) {
        const gdouble t = seconds_of (b, &members[m], bytes);
        t_separate += t;
        t_slowest = MAX (t_slowest, t);
      }
      gboolean ok = TRUE;
      guint first = 0;
      reduce_first (b, &fused, bytes);
      for (guint m = 0; m < n; m++) {
        reduce_first (b, &members[m], bytes);
        ok &= same_results (&fused, first, &members[m]);
        first += members[m].program->out.n_fields;
      }
      b->failed |= !ok;
      const gdouble gbs = bytes / t_fused * 1e-9;
      g_print ("%-32s %10" G_GSIZE_FORMAT " %9.1f %9.1f %9.1f %8.2f %8.2f "
               "%6.2f  %s\n",
          lists[l], bytes, gbs, bytes / t_slowest * 1e-9,
          bytes / t_separate * 1e-9, t_slowest / t_fused, t_separate / t_fused,
          gbs / cub_sum[row], ok ? "ok" : "WRONG");
      fprintf (csv,
          "%s,%u,%" G_GSIZE_FORMAT ",%.2f,%.2f,%.2f,%.4f,%.4f,%.2f,%.4f,%s\n",
          lists[l], n, bytes, gbs, bytes / t_slowest * 1e-9,
          bytes / t_separate * 1e-9, t_slowest / t_fused, t_separate / t_fused,
          cub_sum[row], gbs / cub_sum[row], ok ? "ok" : "wrong");
    }
    for (guint m = 0; m < n; m++)
      prepared_clear (&members[m]);
    prepared_clear (&fused);
  }
}
