/* bench-histogram.c: the histogram monoid's kernel against CUB's
 * DeviceHistogram in the same run, on the same bytes: 8-bit samples in 256
 * bins (one channel, and RGBA pixels: CUB counts 3 of the 4 channels,
 * cudareduce all 4), 16-bit samples in 256, 1,024 and 4,096 bins; and
 * signalstats (min, max and mean folded and the values counted in one
 * pass, low and high read off the counts) on 8-bit samples, one channel
 * and RGBA, against the same CUB histograms. Each of our results is
 * checked against CUB's counts of the same buffer; a mismatch fails the
 * run. */
#include "bench-reduce.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const gchar *label;
  CrType type;
  guint channels; /* interleaved; per-channel results when > 1 */
  guint bins;
  gint cub; /* CrCubHistogram */
  const gchar *monoid;
} HistCase;

#ifndef CR_HAVE_CUB
enum { CR_CUB_HISTOGRAM_U8, CR_CUB_HISTOGRAM_U16, CR_CUB_HISTOGRAM_RGBA };
#endif

static const HistCase hist_cases[] = {
  { "uint8 256", CR_TYPE_UINT8, 1, 256, CR_CUB_HISTOGRAM_U8, "histogram" },
  { "rgba 256", CR_TYPE_UINT8, 4, 256, CR_CUB_HISTOGRAM_RGBA, "histogram" },
  { "uint16 256", CR_TYPE_UINT16, 1, 256, CR_CUB_HISTOGRAM_U16, "histogram" },
  { "uint16 1024", CR_TYPE_UINT16, 1, 1024, CR_CUB_HISTOGRAM_U16, "histogram" },
  { "uint16 4096", CR_TYPE_UINT16, 1, 4096, CR_CUB_HISTOGRAM_U16, "histogram" },
  { "stats uint8", CR_TYPE_UINT8, 1, 256, CR_CUB_HISTOGRAM_U8, "signalstats" },
  { "stats rgba", CR_TYPE_UINT8, 4, 256, CR_CUB_HISTOGRAM_RGBA, "signalstats" },
};

/* The smallest size measured: histograms are for frames and more. */
#define HIST_MIN_BYTES (1u << 20)

typedef struct {
  CrReducer *reducer;
  const guint8 *ctx;
  gsize elem;
} HistLaunch;

/* time_launches passes n as bytes / 4. */
static void
launch_hist (Bench *b, gpointer data, CUdeviceptr in, gsize n)
{
  HistLaunch *h = data;
  g_autoptr (GError) error = NULL;
  if (!cr_reducer_reduce_device (
          h->reducer, in, n * 4 / h->elem, h->ctx, NULL, &error))
    die ("histogram", error);
}

#ifdef CR_HAVE_CUB
typedef struct {
  const HistCase *c;
  gsize elem;
  CUdeviceptr counts;
} CubHist;

static void
launch_cub_hist (Bench *b, gpointer data, CUdeviceptr in, gsize n)
{
  CubHist *h = data;
  gsize bytes = b->temp_bytes;
  int res = cr_cub_histogram (h->c->cub, (const void *)in, n * 4 / h->elem,
      (int)h->c->bins, (unsigned int *)h->counts, (void *)b->temp, &bytes,
      b->stream);
  if (res != 0) {
    g_printerr ("bench-reduce: CUB histogram failed: %d\n", res);
    exit (1);
  }
}

static void
cub_temp (Bench *b, const HistCase *c, gsize elem, gsize bytes)
{
  gsize need = 0;
  if (cr_cub_histogram (c->cub, NULL, bytes / elem, (int)c->bins, NULL, NULL,
          &need, b->stream)
      != 0)
    die ("CUB histogram temp storage query", NULL);
  if (need > b->temp_bytes) {
    if (b->temp)
      b->cu->MemFree (b->temp);
    check_cu (b->cu->MemAlloc (&b->temp, need), "CUB temp storage");
    b->temp_bytes = need;
  }
}

/* Our counts of the first buffer of the region against CUB's. */
static gboolean
same_counts (
    Bench *b, HistLaunch *ours, CubHist *cub, const HistCase *c, gsize bytes)
{
  const CrProgram *p = cr_reducer_program (ours->reducer);
  const guint counted = c->cub == CR_CUB_HISTOGRAM_RGBA ? 3 : 1;
  const gsize n = bytes / ours->elem;
  g_autofree guint8 *values = g_malloc (p->out.size * c->channels);
  g_autofree guint32 *want = g_new0 (guint32, c->bins * counted);
  g_autoptr (GError) error = NULL;

  if (!cr_reducer_reduce_device (
          ours->reducer, b->region[0], n, ours->ctx, values, &error))
    die ("histogram", error);
  launch_cub_hist (b, cub, b->region[0], bytes / 4);
  check_cu (b->cu->MemcpyDtoHAsync (want, cub->counts,
                c->bins * counted * sizeof (guint32), b->stream),
      "CUB counts");
  check_cu (b->cu->StreamSynchronize (b->stream), "CUB counts");
  const gsize at = p->out.offsets[p->bins_field];
  for (guint ch = 0; ch < counted; ch++) {
    const guint64 *got = (const guint64 *)(values + ch * p->out.size + at);
    for (guint k = 0; k < c->bins; k++)
      if (got[k] != want[ch * c->bins + k]) {
        g_printerr ("bench-reduce: %s, %" G_GSIZE_FORMAT " bytes: channel %u "
                    "bin %u counts %" G_GUINT64_FORMAT ", CUB %u\n",
            c->label, bytes, ch, k, got[k], want[ch * c->bins + k]);
        return FALSE;
      }
  }
  return TRUE;
}
#endif

static void
run_hist_case (Bench *b, const HistCase *c, gsize max_bytes, FILE *csv)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CrMonoid) builtin = cr_monoid_load (c->monoid, &error);
  g_autoptr (CrMonoid) m =
      builtin ? cr_monoid_with_bins (builtin, c->bins, &error) : NULL;
  if (m == NULL)
    die (c->monoid, error);
  g_autoptr (CrProgram) p = c->channels > 1
      ? cr_program_new_per_channel (m, c->type)
      : cr_program_new (m, c->type);
  g_autofree gchar *log = NULL;
  g_autoptr (CrReducer) r = cr_reducer_new (b->device, p, &log, &error);
  if (r == NULL)
    die (log ? log : "histogram reducer", error);
  if (!cr_reducer_set_channels (r, c->channels, &error))
    die ("channels", error);
  g_autofree guint8 *ctx = g_malloc0 (MAX (p->ctx.size, 1));
  if (!cr_program_pack_context (p, 0, NULL, ctx, &error))
    die ("context", error);
  HistLaunch ours = { r, ctx, cr_type_size (c->type) };

  if (!cr_device_push (b->device, &error))
    die ("context", error);
#ifdef CR_HAVE_CUB
  CubHist cub = { c, ours.elem, 0 };
  check_cu (b->cu->MemAlloc (&cub.counts, 3 * c->bins * sizeof (guint32)),
      "CUB counts");
#endif
  for (gsize bytes = HIST_MIN_BYTES; bytes <= max_bytes; bytes *= 4) {
    const gdouble copy =
        2.0 * bytes / time_launches (b, launch_copy, NULL, 0, bytes) * 1e-9;
    const gdouble gbs =
        bytes / time_launches (b, launch_hist, &ours, 0, bytes) * 1e-9;
    gdouble cub_gbs = NAN;
    const gchar *check = "not checked (no CUB)";
#ifdef CR_HAVE_CUB
    cub_temp (b, c, ours.elem, bytes);
    cub_gbs = bytes / time_launches (b, launch_cub_hist, &cub, 0, bytes) * 1e-9;
    check = "same as CUB";
    if (!same_counts (b, &ours, &cub, c, bytes)) {
      b->failed = TRUE;
      check = "DIFFERS FROM CUB";
    }
#endif
    g_print ("%-12s %11" G_GSIZE_FORMAT " %9.1f %9.1f %6.2f %9.1f %6.2f  %s\n",
        c->label, bytes, gbs, cub_gbs, gbs / cub_gbs, copy, gbs / copy, check);
    fprintf (csv,
        "%s,%s,%u,%u,%" G_GSIZE_FORMAT ",%.2f,%.2f,%.3f,%.2f,%.3f,%s\n",
        c->label, cr_type_name (c->type), c->channels, c->bins, bytes, gbs,
        cub_gbs, gbs / cub_gbs, copy, gbs / copy, check);
  }
#ifdef CR_HAVE_CUB
  b->cu->MemFree (cub.counts);
#endif
  cr_device_pop (b->device);
}

void
run_histograms (Bench *b, gsize max_bytes, FILE *csv)
{
  fprintf (csv,
      "case,input,channels,bins,bytes,gbps,cub_gbps,ratio_cub,"
      "copy_gbps,ratio_copy,check\n");
  g_print ("\n%-12s %11s %9s %9s %6s %9s %6s  %s\n", "histogram", "bytes",
      "GB/s", "CUB", "ratio", "copy", "ratio", "check");
  for (guint k = 0; k < G_N_ELEMENTS (hist_cases); k++)
    run_hist_case (b, &hist_cases[k], max_bytes, csv);
}
