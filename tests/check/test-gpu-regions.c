/* test-gpu-regions.c: the engine's results per region of a frame, in one
 * launch a plane or a frame (test-gpu-regions-element.c tests the element).
 *
 * The engine's launches over rectangles (cr_reducer_submit_rects) against
 * references computed on the CPU from fresh random planes: 1 to 4
 * interleaved channels, 8- and 16-bit samples, planes with padding between
 * lines copied to the GPU or read in place, from one region to 4,096 of
 * them (empty, single pixels, whole planes, overlapping), and two planes'
 * launches carrying each region's state into the next, as a YUV frame's
 * planes do, or read in one launch. argmax checks each sample's index,
 * sum every value. */
#include "cr-job.h"
#include "cr-reducer-regions.h"
#include "cr-test-main.h"
#include "cr-test-regions.h"

#include <string.h>

static GRand *rand_;
/* random_rect's regions are mostly small (test_rects_small). */
static gboolean small_rects_;

typedef struct {
  CrDevice *device;
  CrMonoid *monoid;
  CrProgram *program;
  CrReducer *reducer;
  guint8 ctx[16];
} Engine;

static void
engine_init (Engine *e, const gchar *monoid, CrType type, guint channels)
{
  g_autoptr (GError) error = NULL;
  e->monoid = cr_monoid_load (monoid, &error);
  fail_unless (e->monoid != NULL, "%s", error ? error->message : "");
  e->device = cr_device_open (-1, &error);
  fail_unless (e->device != NULL, "%s", error ? error->message : "");
  e->program = cr_program_new_with (e->monoid, type,
      CR_KERNELS_REGIONS | (channels > 1 ? CR_KERNELS_CHANNELS : 0));
  e->reducer = cr_reducer_new (e->device, e->program, NULL, &error);
  fail_unless (e->reducer != NULL, "%s", error ? error->message : "");
  fail_unless (cr_reducer_set_channels (e->reducer, channels, &error), "%s",
      error ? error->message : "");
  memset (e->ctx, 0, sizeof e->ctx);
}

static void
engine_clear (Engine *e)
{
  cr_reducer_free (e->reducer);
  cr_program_free (e->program);
  cr_monoid_unref (e->monoid);
  cr_device_unref (e->device);
}

/* A plane of @cols x @lines pixels of @channels samples of @type, lines
 * @stride bytes apart, in pageable or pinned (mapped) memory. */
typedef struct {
  CrType type;
  guint channels;
  gsize cols, lines, stride;
  gboolean pinned;
  guint8 *data;
  CUdeviceptr device;
} Plane;

static void
plane_fill (Engine *e, Plane *p, CrType type, guint channels, gsize cols,
    gsize lines, gboolean pinned)
{
  const gsize row = cr_type_size (type) * channels * cols;
  g_autoptr (GError) error = NULL;

  *p = (Plane){ type, channels, cols, lines, 0, pinned, NULL, 0 };
  /* Padding after each line, on 4-byte boundaries as video's are. */
  p->stride = (row + 4 * g_rand_int_range (rand_, 0, 9) + 3) / 4 * 4;
  const gsize bytes = MAX (p->stride * lines, 1);
  if (pinned) {
    p->data = cr_device_host_alloc (e->device, bytes, &p->device, &error);
    fail_unless (p->data != NULL, "%s", error ? error->message : "");
  } else {
    p->data = g_malloc (bytes);
  }
  cr_test_fill_random (rand_, type, p->data, bytes / cr_type_size (type));
}

static void
plane_clear (Engine *e, Plane *p)
{
  if (p->pinned)
    cr_device_host_free (e->device, p->data);
  else
    g_free (p->data);
}

static CrRegion
plane_region (const Plane *p)
{
  CrRegion region = {
    .data = p->data,
    .row_bytes = cr_type_size (p->type) * p->channels * p->cols,
    .n_rows = p->lines,
    .stride = p->stride,
    .device = p->device,
  };
  return region;
}

static guint64
sample (const Plane *p, gsize col, gsize line, guint c)
{
  const gsize k =
      line * p->stride / cr_type_size (p->type) + col * p->channels + c;
  return cr_test_get_uint64 (p->type, p->data, k);
}

/* What a region should give, per channel, with every plane before. */
typedef struct {
  guint64 sum[4];
  guint64 max[4];
  guint64 argmax[4];
  guint64 rows;
} Want;

static void
want_add (Want *w, const Plane *p, const CrRect *r)
{
  for (guint c = 0; c < p->channels; c++) {
    for (gsize line = 0; line < r->lines; line++)
      for (gsize col = 0; col < r->width; col++) {
        const guint64 v = sample (p, r->x + col, r->y + line, c);
        const guint64 i = w->rows + line * r->width + col;
        w->sum[c] += v;
        /* The first of equal values: the smallest index. */
        if (w->argmax[c] == G_MAXUINT64 || v > w->max[c]) {
          w->max[c] = v;
          w->argmax[c] = i;
        }
      }
  }
  w->rows += r->width * r->lines;
}

static CrRect
random_rect (const Plane *p, guint k)
{
  CrRect r = { 0 };
  if (small_rects_ && k % 11 != 10) {
    /* Up to 16 x 32 pixels: the reducer reads such a region with a warp
     * (most of them, with up to four channels), in groups of up to 8. */
    r.x = g_rand_int_range (rand_, 0, p->cols);
    r.y = g_rand_int_range (rand_, 0, p->lines);
    r.width = g_rand_int_range (rand_, 0, MIN (16, p->cols - r.x) + 1);
    r.lines = g_rand_int_range (rand_, 0, MIN (32, p->lines - r.y) + 1);
    return r;
  }
  switch (k % 7) {
    case 0: /* the whole plane */
      r.width = p->cols;
      r.lines = p->lines;
      break;
    case 1: /* one pixel */
      r.x = g_rand_int_range (rand_, 0, p->cols);
      r.y = g_rand_int_range (rand_, 0, p->lines);
      r.width = r.lines = 1;
      break;
    case 2: /* empty */
      r.x = g_rand_int_range (rand_, 0, p->cols + 1);
      r.y = g_rand_int_range (rand_, 0, p->lines + 1);
      break;
    default:
      r.x = g_rand_int_range (rand_, 0, p->cols);
      r.y = g_rand_int_range (rand_, 0, p->lines);
      r.width = g_rand_int_range (rand_, 1, p->cols - r.x + 1);
      r.lines = g_rand_int_range (rand_, 1, p->lines - r.y + 1);
  }
  return r;
}

/* The job's result @k against @w: sum's field, or argmax's two. */
static void
check (Engine *e, CrJob *job, guint k, const Want *w, const gchar *what)
{
  const CrLayout *out = &e->program->out;
  const guint channels = cr_reducer_channels (e->reducer);
  g_autofree guint8 *bytes = g_malloc0 (out->size * channels);
  guint64 count = 0;

  cr_job_read (job, k, bytes, &count);
  fail_unless (count == w->rows * channels,
      "%s, region %u: count %" G_GUINT64_FORMAT
      ", reference %" G_GUINT64_FORMAT,
      what, k, count, w->rows * channels);
  for (guint c = 0; c < channels; c++) {
    const guint8 *at = bytes + c * out->size;
    if (e->program->out.n_fields == 1) {
      guint64 sum;
      memcpy (&sum, at + out->offsets[0], 8);
      fail_unless (sum == w->sum[c],
          "%s, region %u, channel %u: sum %" G_GUINT64_FORMAT
          ", reference %" G_GUINT64_FORMAT,
          what, k, c, sum, w->sum[c]);
      continue;
    }
    const guint64 value =
        cr_test_get_uint64 (e->program->in, at + out->offsets[0], 0);
    guint64 index;
    memcpy (&index, at + out->offsets[1], 8);
    if (w->rows == 0)
      continue; /* no value: argmax's identity */
    fail_unless (value == w->max[c] && index == w->argmax[c],
        "%s, region %u, channel %u: max %" G_GUINT64_FORMAT
        " at %" G_GUINT64_FORMAT ", reference %" G_GUINT64_FORMAT
        " at %" G_GUINT64_FORMAT,
        what, k, c, value, index, w->max[c], w->argmax[c]);
  }
}

static void
want_init (Want *w, guint n)
{
  for (guint k = 0; k < n; k++) {
    memset (&w[k], 0, sizeof *w);
    for (guint c = 0; c < 4; c++)
      w[k].argmax[c] = G_MAXUINT64;
  }
}

/* Two planes read in one launch (cr_reducer_submit_rects_planes), not
 * one after the other. */
static gboolean one_launch_;

/* @n random regions of a random plane, in one launch; with @two_planes,
 * each region continues into a second plane of other dimensions, in a
 * launch of its own or, with one_launch_, in the same. */
static void
regions_case (const gchar *monoid, CrType type, guint channels, guint n,
    gboolean pinned, gboolean two_planes)
{
  g_autofree gchar *what = g_strdup_printf ("%s on %s, %u channels, %u "
                                            "regions, %s memory%s",
      monoid, cr_type_name (type), channels, n, pinned ? "pinned" : "pageable",
      two_planes ? (one_launch_ ? ", two planes in one launch" : ", two planes")
                 : "");
  g_autoptr (GError) error = NULL;
  Engine e;
  Plane planes[2];
  CrRect *rects = g_new0 (CrRect, 2 * n);
  Want *want = g_new (Want, n);

  engine_init (&e, monoid, type, channels);
  want_init (want, n);
  const guint n_planes = two_planes ? 2 : 1;
  for (guint p = 0; p < n_planes; p++)
    plane_fill (&e, &planes[p], type, channels,
        g_rand_int_range (rand_, 1, 700), g_rand_int_range (rand_, 1, 300),
        pinned);
  CrJob *jobs[2] = { NULL, NULL };
  const gboolean together = one_launch_ && two_planes;
  CrRegion regions[2];
  for (guint p = 0; p < n_planes; p++) {
    CrRect *plane_rects = together ? rects + p * n : rects;
    for (guint k = 0; k < n; k++) {
      plane_rects[k] = random_rect (&planes[p], k);
      plane_rects[k].rows_before = want[k].rows;
      want_add (&want[k], &planes[p], &plane_rects[k]);
      plane_rects[k].count = want[k].rows;
    }
    regions[p] = plane_region (&planes[p]);
    if (together)
      continue;
    const CrRectsOptions options = { .carry = p > 0,
      .emit = p == n_planes - 1 };
    jobs[p] = cr_reducer_submit_rects (
        e.reducer, &regions[p], rects, n, &options, e.ctx, &error);
    fail_unless (jobs[p] != NULL, "%s: %s", what, error ? error->message : "");
  }
  if (together) {
    const CrRectsOptions options = { .emit = TRUE };
    jobs[1] = cr_reducer_submit_rects_planes (
        e.reducer, regions, 2, rects, n, &options, e.ctx, &error);
    fail_unless (jobs[1] != NULL, "%s: %s", what, error ? error->message : "");
  }
  CrJob *last = jobs[n_planes - 1];
  fail_unless (
      cr_job_wait (last, &error), "%s: %s", what, error ? error->message : "");
  fail_unless_equals_int (cr_job_n_results (last), n);
  for (guint k = 0; k < n; k++)
    check (&e, last, k, &want[k], what);
  for (guint p = 0; p < n_planes; p++) {
    if (jobs[p])
      cr_job_unref (jobs[p]);
    plane_clear (&e, &planes[p]);
  }
  g_free (rects);
  g_free (want);
  engine_clear (&e);
}

GST_START_TEST (test_rects_channels)
{
  for (guint channels = 1; channels <= 4; channels++) {
    regions_case ("sum", CR_TYPE_UINT8, channels, 37, FALSE, FALSE);
    regions_case ("argmax", CR_TYPE_UINT8, channels, 37, TRUE, FALSE);
  }
  regions_case ("sum", CR_TYPE_UINT16, 2, 100, TRUE, FALSE);
  regions_case ("argmax", CR_TYPE_UINT16, 1, 100, FALSE, FALSE);
}

GST_END_TEST;

GST_START_TEST (test_rects_counts)
{
  static const guint counts[] = { 1, 2, 255, 1024, CR_REGIONS_MAX };
  for (guint k = 0; k < G_N_ELEMENTS (counts); k++)
    regions_case ("sum", CR_TYPE_UINT8, 1, counts[k], k % 2, FALSE);
}

GST_END_TEST;

/* Runs of small regions, each read by a warp of a block it shares, among
 * large ones read by blocks of their own. */
GST_START_TEST (test_rects_small)
{
  small_rects_ = TRUE;
  for (guint channels = 1; channels <= 4; channels++) {
    regions_case ("sum", CR_TYPE_UINT8, channels, 300, channels % 2, FALSE);
    regions_case ("argmax", CR_TYPE_UINT16, channels, 97, TRUE, TRUE);
  }
  regions_case ("sum", CR_TYPE_UINT8, 1, CR_REGIONS_MAX, FALSE, TRUE);
  small_rects_ = FALSE;
}

GST_END_TEST;

GST_START_TEST (test_rects_carry_between_planes)
{
  regions_case ("sum", CR_TYPE_UINT8, 1, 200, FALSE, TRUE);
  regions_case ("argmax", CR_TYPE_UINT8, 1, 200, TRUE, TRUE);
  regions_case ("argmax", CR_TYPE_UINT16, 2, 50, FALSE, TRUE);
}

GST_END_TEST;

/* A frame's planes in one launch: each region's planes read one after
 * the other into one state, by blocks or by a warp of a group, from
 * planes of other pitches, staged (pageable) or in place. */
GST_START_TEST (test_rects_planes_in_one_launch)
{
  one_launch_ = TRUE;
  regions_case ("sum", CR_TYPE_UINT8, 1, 200, FALSE, TRUE);
  regions_case ("argmax", CR_TYPE_UINT8, 1, 200, TRUE, TRUE);
  regions_case ("argmax", CR_TYPE_UINT16, 2, 50, FALSE, TRUE);
  regions_case ("sum", CR_TYPE_UINT8, 3, 1000, TRUE, TRUE);
  small_rects_ = TRUE;
  for (guint channels = 1; channels <= 4; channels++)
    regions_case ("argmax", CR_TYPE_UINT16, channels, 97, channels % 2, TRUE);
  regions_case ("sum", CR_TYPE_UINT8, 1, CR_REGIONS_MAX, FALSE, TRUE);
  small_rects_ = FALSE;
  one_launch_ = FALSE;
}

GST_END_TEST;

/* The same reducer again and again: tickets and states left as the next
 * launch needs them, results of one launch not those of another. */
GST_START_TEST (test_rects_repeated)
{
  g_autoptr (GError) error = NULL;
  Engine e;
  Plane plane;
  enum { N = 64, ROUNDS = 20 };
  CrRect rects[N];
  Want want[N];

  engine_init (&e, "sum", CR_TYPE_UINT8, 1);
  for (guint round = 0; round < ROUNDS; round++) {
    plane_fill (&e, &plane, CR_TYPE_UINT8, 1, 1920, 1080, round % 2);
    want_init (want, N);
    for (guint k = 0; k < N; k++) {
      rects[k] = random_rect (&plane, k + round);
      want_add (&want[k], &plane, &rects[k]);
      rects[k].count = want[k].rows;
    }
    const CrRegion region = plane_region (&plane);
    const CrRectsOptions emit = { .emit = TRUE };
    g_autoptr (CrJob) job = cr_reducer_submit_rects (
        e.reducer, &region, rects, N, &emit, e.ctx, &error);
    fail_unless (job != NULL, "%s", error ? error->message : "");
    fail_unless (cr_job_wait (job, &error), "%s", error ? error->message : "");
    for (guint k = 0; k < N; k++)
      check (&e, job, k, &want[k], "1080p, repeated");
    plane_clear (&e, &plane);
  }
  engine_clear (&e);
}

GST_END_TEST;

/* Hops of two frames each over the same regions, a ring of 3 hops: every
 * hop's results span the last three hops (fewer at first), each region's
 * state carried from frame to frame and finalized over the hops' counts;
 * the index counts from the first frame. */
GST_START_TEST (test_rects_window)
{
  g_autoptr (GError) error = NULL;
  enum { N = 40, FRAMES = 10, HOP = 2, HOPS = 3 };
  Engine e;
  Plane planes[FRAMES];
  CrRect rects[N];
  Want want[N];

  engine_init (&e, "argmax", CR_TYPE_UINT8, 2);
  for (guint f = 0; f < FRAMES; f++)
    plane_fill (&e, &planes[f], CR_TYPE_UINT8, 2, 211, 97, f % 2);
  for (guint k = 0; k < N; k++)
    rects[k] = random_rect (&planes[0], k);
  for (guint f = 0; f < FRAMES; f++) {
    const guint hop = f / HOP;
    const guint spanned = MIN (hop + 1, HOPS);
    const guint first_frame = (hop + 1 - spanned) * HOP;
    for (guint k = 0; k < N; k++) {
      const guint64 rows = rects[k].width * rects[k].lines;
      rects[k].rows_before = f * rows;
      rects[k].count = (f % HOP + 1) * rows;
    }
    const CrRectsOptions options = {
      .carry = f % HOP > 0,
      .emit = f % HOP == HOP - 1,
      .ring_hops = HOPS,
      .hop = hop,
      .window_hops = spanned,
    };
    const CrRegion region = plane_region (&planes[f]);
    g_autoptr (CrJob) job = cr_reducer_submit_rects (
        e.reducer, &region, rects, N, &options, e.ctx, &error);
    fail_unless (job != NULL, "%s", error ? error->message : "");
    fail_unless (cr_job_wait (job, &error), "%s", error ? error->message : "");
    if (!options.emit)
      continue;
    /* The reference over the frames the window spans, whose index counts
     * from frame 0. */
    want_init (want, N);
    for (guint k = 0; k < N; k++) {
      const guint64 rows = rects[k].width * rects[k].lines;
      want[k].rows = first_frame * rows;
      for (guint j = first_frame; j <= f; j++)
        want_add (&want[k], &planes[j], &rects[k]);
      want[k].rows -= first_frame * rows;
    }
    g_autofree gchar *what = g_strdup_printf ("window, hop %u", hop);
    for (guint k = 0; k < N; k++)
      check (&e, job, k, &want[k], what);
  }
  for (guint f = 0; f < FRAMES; f++)
    plane_clear (&e, &planes[f]);
  engine_clear (&e);
}

GST_END_TEST;

/* A rectangle outside the plane is refused before anything is queued. */
GST_START_TEST (test_rects_refused)
{
  g_autoptr (GError) error = NULL;
  Engine e;
  Plane plane;

  engine_init (&e, "sum", CR_TYPE_UINT8, 1);
  plane_fill (&e, &plane, CR_TYPE_UINT8, 1, 64, 32, FALSE);
  const CrRegion region = plane_region (&plane);
  const CrRect outside = { .x = 60, .y = 0, .width = 5, .lines = 1 };
  const CrRectsOptions emit = { .emit = TRUE };
  CrJob *job = cr_reducer_submit_rects (
      e.reducer, &region, &outside, 1, &emit, e.ctx, &error);
  fail_unless (job == NULL);
  fail_unless (error && strstr (error->message, "not inside the plane"), "%s",
      error ? error->message : "no error");
  plane_clear (&e, &plane);
  engine_clear (&e);
}

GST_END_TEST;

static const CrTestCase cases[] = {
  CR_TEST_CASE (test_rects_channels),
  CR_TEST_CASE (test_rects_counts),
  CR_TEST_CASE (test_rects_small),
  CR_TEST_CASE (test_rects_carry_between_planes),
  CR_TEST_CASE (test_rects_planes_in_one_launch),
  CR_TEST_CASE (test_rects_repeated),
  CR_TEST_CASE (test_rects_window),
  CR_TEST_CASE (test_rects_refused),
  { NULL },
};

static const CrGpuTest gpu_regions = {
  .name = "gpu-regions",
  .timeout = 300,
  .needs = CR_TEST_NEEDS_NVRTC,
  .rand = &rand_,
  .cases = cases,
};

CR_TEST_GPU_MAIN (gpu_regions);
