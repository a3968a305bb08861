/* test-geometry.c: the kernels' launch grids stay within what the GPU
 * keeps resident and CUDA allows, give every thread work, and fit the
 * partials and tickets buffers allocated for them; no GPU needed. The
 * limits and shapes are drawn at random (the seed is printed). */
#include "cr-geometry.h"

#include <gst/check/gstcheck.h>

/* Channel counts around every edge of the tiles, then random ones. */
static guint
draw_channels (GRand *rand, guint k)
{
  static const guint edges[] = { 1, 2, 3, 4, 8, 31, 32, 33, 64, 65, 1000,
    CR_CHANNELS_MAX - 1, CR_CHANNELS_MAX };
  if (k < G_N_ELEMENTS (edges))
    return edges[k];
  return g_rand_boolean (rand)
      ? (guint)g_rand_int_range (rand, 1, 300)
      : (guint)g_rand_int_range (rand, 1, (gint32)CR_CHANNELS_MAX + 1);
}

static CrGridLimits
draw_limits (GRand *rand)
{
  CrGridLimits l = {
    .single = (guint)g_rand_int_range (rand, 1, 4000),
    .channels = (guint)g_rand_int_range (rand, 1, 4000),
  };
  for (guint k = 0; k < G_N_ELEMENTS (l.vec); k++)
    l.vec[k] =
        g_rand_boolean (rand) ? (guint)g_rand_int_range (rand, 1, 4000) : 0;
  return l;
}

/* Row counts from one row to far more than any grid covers. */
static guint64
draw_rows (GRand *rand)
{
  const gint bits = g_rand_int_range (rand, 0, 41);
  return 1
      + ((guint64)g_rand_int (rand) << 9 ^ g_rand_int (rand))
      % ((guint64)1 << bits);
}

/* As cr_test_rand: CUDAREDUCE_TEST_SEED replays a failure. */
static GRand *
seeded (void)
{
  const gchar *env = g_getenv ("CUDAREDUCE_TEST_SEED");
  const guint32 seed =
      env ? (guint32)g_ascii_strtoull (env, NULL, 10) : g_random_int ();
  g_print ("random seed: CUDAREDUCE_TEST_SEED=%u\n", seed);
  return g_rand_new_with_seed (seed);
}

GST_START_TEST (test_tiles_cover_the_channels)
{
  g_autoptr (GRand) rand = seeded ();
  for (guint k = 0; k < 2000; k++) {
    const guint channels = draw_channels (rand, k);
    const guint width = cr_geometry_tile_width (channels);
    const guint tiles = cr_geometry_tiles (channels);
    fail_unless (width >= 1 && width <= CR_TILE_WIDTH_MAX);
    fail_unless ((guint64)tiles * width >= channels, "%u channels", channels);
    fail_unless ((guint64)(tiles - 1) * width < channels, "%u", channels);
    fail_unless (
        tiles <= CR_TILES_MAX, "%u channels: %u tiles", channels, tiles);
  }
}

GST_END_TEST;

GST_START_TEST (test_grids_within_limits_and_busy)
{
  g_autoptr (GRand) rand = seeded ();
  static const gsize elems[] = { 1, 2, 4, 8 };
  for (guint k = 0; k < 5000; k++) {
    const CrGridLimits l = draw_limits (rand);
    const guint64 rows = draw_rows (rand);
    const gsize elem = elems[g_rand_int_range (rand, 0, 4)];

    /* One result: at most the resident blocks, and no block without a
     * load of its own unless one block is all there is. */
    const guint64 per_block = CR_BLOCK_THREADS * (CR_LOAD_BYTES / elem);
    CrGrid g = cr_geometry_single (&l, elem, rows);
    fail_unless (g.y == 1 && g.x >= 1 && g.x <= l.single);
    fail_unless (g.x == 1 || (g.x - 1) * per_block < rows,
        "%u blocks for %" G_GUINT64_FORMAT " rows", g.x, rows);
    fail_unless (g.x == l.single || g.x * per_block >= rows);

    g = cr_geometry_pitched (&l, rows);
    fail_unless (g.y == 1 && g.x >= 1 && g.x <= l.single);
    fail_unless (g.x == 1 || (guint64)(g.x - 1) * CR_BLOCK_THREADS < rows);

    /* Per channel: one row of blocks a tile; each thread CR_CH_UNROLL
     * rows, unless the resident blocks run out first. */
    const guint channels = draw_channels (rand, k % 64);
    const guint tiles = cr_geometry_tiles (channels);
    const guint64 rows_per_block =
        (guint64)(CR_BLOCK_THREADS / cr_geometry_tile_width (channels))
        * CR_CH_UNROLL;
    g = cr_geometry_channels (&l, rows, channels);
    fail_unless (g.y == tiles);
    fail_unless (g.x >= 1 && (guint64)g.x * tiles <= MAX (l.channels, tiles),
        "%u x %u blocks, %u resident", g.x, g.y, l.channels);
    fail_unless (g.x == 1 || (g.x - 1) * rows_per_block < rows);

    const gint vec = cr_geometry_vec_kernel (&l, channels);
    if (vec >= 0) {
      fail_unless (channels == 2u << vec && l.vec[vec] > 0);
      g = cr_geometry_packed (&l, vec, elem, rows, channels);
      fail_unless (g.y == 1 && g.x >= 1 && g.x <= l.vec[vec]);
      /* A tail shorter than a load is read as one (element by element). */
      const guint64 loads =
          (rows * channels * elem + CR_LOAD_BYTES - 1) / CR_LOAD_BYTES;
      fail_unless (
          g.x == 1 || (guint64)(g.x - 1) * CR_BLOCK_THREADS * CR_UNROLL < loads,
          "%u blocks for %" G_GUINT64_FORMAT " loads", g.x, loads);
    } else {
      fail_if ((channels == 2 && l.vec[0]) || (channels == 4 && l.vec[1])
          || (channels == 8 && l.vec[2]));
    }
  }
}

GST_END_TEST;

/* The highest partial and ticket each kernel writes, as the kernels index
 * them (kernels/reduce.cu, reduce-channels.cu, reduce-batch.cu), for every
 * grid a launch may take, against what was allocated. */
GST_START_TEST (test_buffers_hold_every_launch)
{
  g_autoptr (GRand) rand = seeded ();
  for (guint k = 0; k < 3000; k++) {
    const CrGridLimits l = draw_limits (rand);
    const guint channels = draw_channels (rand, k % 64);
    const CrGridBuffers b = cr_geometry_buffers (&l, channels);
    const guint64 width = cr_geometry_tile_width (channels);

    fail_unless (b.partial_slots >= l.single);
    fail_unless (b.partial_slots >= (gsize)CR_BATCH_MAX * channels);
    fail_unless (b.ticket_bytes >= CR_TICKET_BYTES);
    const gint vec = cr_geometry_vec_kernel (&l, channels);
    if (vec >= 0)
      fail_unless (b.partial_slots >= (gsize)l.vec[vec] * channels);

    /* Every row count gives a grid no wider than the widest. */
    for (guint n = 0; n < 8; n++) {
      const guint64 rows = n == 0 ? G_MAXUINT64 / 2 : draw_rows (rand);
      const CrGrid g = cr_geometry_channels (&l, rows, channels);
      const guint64 groups = CR_GROUPS (g.x, width);
      /* cr_finish_channels: g.y * g.x * W block partials, then
       * g.y * groups * W group partials; g.y tile tickets, then
       * g.y * groups group tickets. */
      const guint64 slots = g.y * (g.x + groups) * width;
      const guint64 tickets = g.y * (1 + groups);
      fail_unless (slots <= b.partial_slots,
          "%u channels, %u x %u blocks: %" G_GUINT64_FORMAT
          " partials, %" G_GSIZE_FORMAT " allocated",
          channels, g.x, g.y, slots, b.partial_slots);
      fail_unless (tickets * CR_TICKET_BYTES <= b.ticket_bytes);
    }
  }
}

GST_END_TEST;

static Suite *
geometry_suite (void)
{
  Suite *s = suite_create ("geometry");
  TCase *tc = tcase_create ("geometry");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_tiles_cover_the_channels);
  tcase_add_test (tc, test_grids_within_limits_and_busy);
  tcase_add_test (tc, test_buffers_hold_every_launch);
  return s;
}

GST_CHECK_MAIN (geometry);
