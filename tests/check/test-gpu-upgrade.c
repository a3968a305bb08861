/* test-gpu-upgrade.c: a cold start on kernels compiled for time, and the
 * optimized kernels swapped in between launches once compiled on their
 * own thread (cr-upgrade.h): every result against the CPU, before, across
 * and after the swap, with launches queued over it. */
#include "cr-device.h"
#include "cr-job.h"
#include "cr-reducer.h"
#include "cr-test-main.h"

#include <string.h>

static GRand *rand_;

/* @n int32 rows of @channels, random, and each channel's sum. */
static gint32 *
random_rows (gsize n, guint channels, gint64 *sums)
{
  gint32 *data = g_new (gint32, n * channels);
  cr_test_fill_random (rand_, CR_TYPE_INT32, (guint8 *)data, n * channels);
  memset (sums, 0, channels * sizeof (gint64));
  for (gsize k = 0; k < n * channels; k++)
    sums[k % channels] += data[k];
  return data;
}

static void
upgrade_case (guint channels)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *dir = cr_test_make_dir ("cr-upgrade");
  g_autofree gchar *old_dir = g_strdup (g_getenv ("GST_CUDAREDUCE_CACHE_DIR"));
  g_setenv ("GST_CUDAREDUCE_CACHE_DIR", dir, TRUE);
  g_setenv ("GST_CUDAREDUCE_FAST_START", "1", TRUE);
  g_autoptr (CrMonoid) monoid = cr_monoid_load ("sum", &error);
  fail_unless (monoid != NULL, "%s", error ? error->message : "");
  g_autoptr (CrDevice) device = cr_device_open (-1, &error);
  fail_unless (device != NULL, "%s", error ? error->message : "");
  CrProgram *program = cr_program_new_with (
      monoid, CR_TYPE_INT32, channels > 1 ? CR_KERNELS_CHANNELS : 0);
  CrReducer *r = cr_reducer_new (device, program, NULL, &error);
  fail_unless (r != NULL, "%s", error ? error->message : "");
  fail_unless (cr_reducer_set_channels (r, channels, &error), "%s",
      error ? error->message : "");
  const gboolean fast = cr_reducer_compiled (r)->fast;
  if (!fast)
    g_print ("this NVRTC compiles no fast image: no swap to test\n");
  guint8 ctx[16] = { 0 };

  enum { ROUNDS = 3, QUEUED = 12 };
  for (guint round = 0; round < ROUNDS; round++) {
    /* Round 1 waits for the optimized kernels first: its first launch
     * swaps them in, after the ones queued before it. */
    CrJob *jobs[QUEUED];
    gint64 sums[QUEUED][4];
    gsize rows[QUEUED];
    for (guint q = 0; q < QUEUED; q++) {
      if (round == 1 && q == QUEUED / 2)
        cr_reducer_await_upgrade (r);
      /* Small, and over several grids' partials. */
      rows[q] = q % 3 == 0 ? 1 + g_rand_int_range (rand_, 0, 5000)
                           : 1000000 + g_rand_int_range (rand_, 0, 999999);
      g_autofree gint32 *data = random_rows (rows[q], channels, sums[q]);
      const CrRegion region = { .data = (const guint8 *)data,
        .row_bytes = rows[q] * channels * 4,
        .n_rows = 1,
        .stride = rows[q] * channels * 4 };
      jobs[q] = cr_reducer_submit (r, &region, ctx, NULL, &error);
      fail_unless (jobs[q] != NULL, "%s", error ? error->message : "");
    }
    for (guint q = 0; q < QUEUED; q++) {
      fail_unless (
          cr_job_wait (jobs[q], &error), "%s", error ? error->message : "");
      gint64 got[4] = { 0 };
      guint64 count = 0;
      cr_job_read (jobs[q], 0, (guint8 *)got, &count);
      for (guint c = 0; c < channels; c++)
        fail_unless (got[c] == sums[q][c],
            "round %u, launch %u, channel %u of %u: sum %" G_GINT64_FORMAT
            ", wanted %" G_GINT64_FORMAT,
            round, q, c, channels, got[c], sums[q][c]);
      fail_unless_equals_uint64 (count, rows[q] * channels);
      cr_job_unref (jobs[q]);
    }
    /* The optimized ones after the swap (round 0 may see it too, where
     * they compile sooner than its launches take). */
    if (round > 0)
      fail_if (cr_reducer_compiled (r)->fast);
  }
  cr_reducer_free (r);
  cr_program_free (program);
  g_unsetenv ("GST_CUDAREDUCE_FAST_START");
  if (old_dir)
    g_setenv ("GST_CUDAREDUCE_CACHE_DIR", old_dir, TRUE);
  else
    g_unsetenv ("GST_CUDAREDUCE_CACHE_DIR");
  cr_test_remove_dir (dir);
}

GST_START_TEST (test_upgrade_single)
{
  upgrade_case (1);
}

GST_END_TEST;

GST_START_TEST (test_upgrade_per_channel)
{
  upgrade_case (3);
}

GST_END_TEST;

static const CrTestCase cases[] = {
  CR_TEST_CASE (test_upgrade_single),
  CR_TEST_CASE (test_upgrade_per_channel),
  { NULL },
};

static const CrGpuTest gpu_upgrade = {
  .name = "gpu-upgrade",
  .timeout = 120,
  .needs = CR_TEST_NEEDS_NVRTC,
  .rand = &rand_,
  .cases = cases,
};

CR_TEST_GPU_MAIN (gpu_upgrade);
