/* test-gpu-builtins.c: every built-in monoid on every input type, against
 * the CPU reference of cr-test-ref.c (which test-ref.c checks on the CPU).
 * Buffers from empty to 2^26 elements go one after another through one
 * element per monoid and input type; then data that does not start on a
 * 16-byte boundary, video frames whose row padding must never reach a
 * result, and tensor output. Needs a GPU: exits 77 (skip) without one. */
#include "cr-test-main.h"
#include "cr-test-ref.h"

#include <gst/video/video.h>

#include <string.h>

/* A reference over @n elements of @type at @data (which must outlive it),
 * with count_gt's @threshold. */
static CrTestRef *
reference (CrType type, gconstpointer data, gsize n, gdouble threshold)
{
  CrTestRef *r = cr_test_ref_new (type, 1);
  cr_test_ref_set_threshold (r, threshold);
  cr_test_ref_add (r, &(CrTestSpan){ .data = data, .channels = 1, .rows = n });
  return r;
}

/* count_gt's threshold: near the middle of what cr_test_fill_random gives,
 * so that it counts neither none nor all. */
static gdouble
threshold_for (CrType type)
{
  switch (type) {
    case CR_TYPE_UINT8:
      return 127.5;
    case CR_TYPE_UINT16:
      return 32767.5;
    case CR_TYPE_UINT32:
      return 2147483647.5;
    case CR_TYPE_UINT64:
      return 9223372036854775808.0; /* 2^63 */
    default:
      return 0.5; /* signed and float data lie around 0 */
  }
}

static GstHarness *
start_harness (
    const CrTestMonoid *m, GstCaps *caps, gboolean tensor, gdouble threshold)
{
  GstHarness *h = tensor
      ? cr_test_harness (caps, "monoid", m->name, "output", "tensor", NULL)
      : cr_test_harness (caps, "monoid", m->name, NULL);
  g_object_set (h->element, "threshold", threshold, NULL);
  return h;
}

/* "MONOID, TYPE input, @detail", for messages. */
static gchar *
describe (const CrTestMonoid *m, CrType in, const gchar *detail)
{
  return g_strdup_printf (
      "monoid %s, %s input, %s", m->name, cr_test_type_name (in), detail);
}

/* In message mode: pushes @buf (of @n elements), checks the message
 * against @ref and that the buffer came out unchanged. */
static void
push_and_check (GstHarness *h, const CrTestMonoid *m, CrType in, GstBuffer *buf,
    const CrTestRef *ref, guint64 n, const gchar *detail)
{
  g_autofree gchar *what = describe (m, in, detail);
  GstMapInfo map;

  /* The memory is ours (wrapped), so its address stays valid. */
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  const guint8 *bytes = map.data;
  const gsize size = map.size;
  gst_buffer_unmap (buf, &map);

  cr_test_push_ok (h, buf, what);
  GstStructure *result = cr_test_pop_result (h);
  cr_test_check_message (result, m, ref, FALSE, n, what);
  gst_structure_free (result);
  cr_test_expect_passthrough (h, bytes, size, what);
}

/* 1. Every built-in on every type, sizes one after another. */

/* The largest is 1 << 26, or 4 Mi + 5 under compute-sanitizer, where main
 * also makes staging chunks 1 MiB, so that it is still several chunks and
 * grid strides for every type: racecheck took over 8 minutes on 64 Mi
 * elements of each type. */
static gsize sizes[] = { 0, 1, 31, 32, 33, 1000, (1 << 20) + 3, 1 << 26 };

#define LARGEST (sizes[G_N_ELEMENTS (sizes) - 1])

/* Elements of @data with (float64) x > @threshold, as count_gt counts. */
static guint64
count_greater (CrType type, gconstpointer data, gsize n, gdouble threshold)
{
  guint64 greater = 0;
  for (gsize k = 0; k < n; k++)
    greater += cr_test_get_double (type, data, k) > threshold;
  return greater;
}

static void
check_builtins_on (GRand *rand, CrType type)
{
  const gsize elem = cr_test_type_size (type);
  const gdouble threshold = threshold_for (type);
  const gint64 start = g_get_monotonic_time ();
  g_autoptr (GPtrArray) monoids = cr_test_builtin_monoids ();
  guint8 *data = g_malloc (LARGEST * elem);
  CrTestRef *refs[G_N_ELEMENTS (sizes)];

  cr_test_fill_random (rand, type, data, LARGEST);
  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    refs[s] = reference (type, data, sizes[s], threshold);
  /* The data must make count_gt count some elements, not all. */
  const guint64 greater = count_greater (type, data, LARGEST, threshold);
  fail_unless (greater > 0 && greater < LARGEST);

  for (guint k = 0; k < monoids->len; k++) {
    const CrTestMonoid *m = g_ptr_array_index (monoids, k);
    GstHarness *h =
        start_harness (m, cr_test_tensor_caps (type, 1000), FALSE, threshold);

    for (guint s = 0; s < G_N_ELEMENTS (sizes); s++) {
      g_autofree gchar *what =
          g_strdup_printf ("%" G_GSIZE_FORMAT " elements", sizes[s]);
      push_and_check (h, m, type, cr_test_wrap (data, sizes[s] * elem), refs[s],
          sizes[s], what);
    }
    /* Empty without any memory at all. */
    push_and_check (h, m, type, gst_buffer_new (), refs[0], 0,
        "0 elements (a buffer without memory)");
    gst_harness_teardown (h);
  }
  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    cr_test_ref_free (refs[s]);
  g_free (data);
  g_print ("%s: %u monoids, %u buffers each, in %.1f s\n",
      cr_test_type_name (type), monoids->len, (guint)G_N_ELEMENTS (sizes) + 1,
      (g_get_monotonic_time () - start) / 1e6);
}

GST_START_TEST (test_builtins_8_16_bit)
{
  g_autoptr (GRand) rand = cr_test_rand ();
  const CrType types[] = { CR_TYPE_INT8, CR_TYPE_UINT8, CR_TYPE_INT16,
    CR_TYPE_UINT16 };
  for (guint t = 0; t < G_N_ELEMENTS (types); t++)
    check_builtins_on (rand, types[t]);
}

GST_END_TEST;

GST_START_TEST (test_builtins_32_64_bit)
{
  g_autoptr (GRand) rand = cr_test_rand ();
  const CrType types[] = { CR_TYPE_INT32, CR_TYPE_UINT32, CR_TYPE_INT64,
    CR_TYPE_UINT64 };
  for (guint t = 0; t < G_N_ELEMENTS (types); t++)
    check_builtins_on (rand, types[t]);
}

GST_END_TEST;

GST_START_TEST (test_builtins_float)
{
  g_autoptr (GRand) rand = cr_test_rand ();
  const CrType types[] = { CR_TYPE_FLOAT32, CR_TYPE_FLOAT64 };
  for (guint t = 0; t < G_N_ELEMENTS (types); t++)
    check_builtins_on (rand, types[t]);
}

GST_END_TEST;

/* 2. Data that does not start on a 16-byte boundary (but on one of its
 * element size), whole and in small chunks. */

static const gsize unaligned_sizes[] = { 33, 1000, (1 << 20) + 3 };

/* In elements; those under 16 bytes are used. */
static const gsize unaligned_offsets[] = { 1, 3, 7, 15 };

static const CrTestMonoid *const unaligned_monoids[] = { &cr_test_monoid_sum,
  &cr_test_monoid_argmax, &cr_test_monoid_minmax };

typedef struct {
  const guint8 *data;
  gsize n;
  CrTestRef *ref;
  gchar *what;
} UnalignedCase;

static void
check_unaligned_on (GRand *rand, CrType type)
{
  const gsize elem = cr_test_type_size (type);
  const gsize n_max = unaligned_sizes[G_N_ELEMENTS (unaligned_sizes) - 1]
      + G_N_ELEMENTS (unaligned_offsets) * 16;
  guint8 *raw = g_malloc (n_max * elem + 16);
  guint8 *base = raw + (16 - GPOINTER_TO_SIZE (raw) % 16) % 16;
  UnalignedCase
      cases[G_N_ELEMENTS (unaligned_offsets) * G_N_ELEMENTS (unaligned_sizes)];
  guint n_cases = 0;

  cr_test_fill_random (rand, type, base, n_max);
  for (guint o = 0; o < G_N_ELEMENTS (unaligned_offsets); o++) {
    const gsize offset = unaligned_offsets[o] * elem;
    if (offset >= 16)
      continue;
    for (guint s = 0; s < G_N_ELEMENTS (unaligned_sizes); s++) {
      UnalignedCase *c = &cases[n_cases++];
      c->data = base + offset;
      c->n = unaligned_sizes[s];
      fail_unless (GPOINTER_TO_SIZE (c->data) % 16 == offset);
      c->ref = reference (type, c->data, c->n, 0);
      c->what = g_strdup_printf ("%" G_GSIZE_FORMAT
                                 " elements starting %" G_GSIZE_FORMAT
                                 " bytes past a 16-byte boundary",
          c->n, offset);
    }
  }
  fail_unless (n_cases > 0);

  for (guint m = 0; m < G_N_ELEMENTS (unaligned_monoids); m++) {
    const CrTestMonoid *monoid = unaligned_monoids[m];
    GstHarness *h =
        start_harness (monoid, cr_test_tensor_caps (type, 1000), FALSE, 0);
    for (guint chunked = 0; chunked < 2; chunked++) {
      /* Small chunks: many launches, each carrying the state of those
       * before it. */
      cr_test_set_chunk_bytes (chunked ? "4096" : NULL);
      for (guint c = 0; c < n_cases; c++) {
        g_autofree gchar *what = g_strdup_printf (
            "%s%s", cases[c].what, chunked ? ", in chunks of 4096 bytes" : "");
        push_and_check (h, monoid, type,
            cr_test_wrap (cases[c].data, cases[c].n * elem), cases[c].ref,
            cases[c].n, what);
      }
    }
    cr_test_set_chunk_bytes (NULL);
    gst_harness_teardown (h);
  }
  for (guint c = 0; c < n_cases; c++) {
    cr_test_ref_free (cases[c].ref);
    g_free (cases[c].what);
  }
  g_free (raw);
}

GST_START_TEST (test_unaligned)
{
  g_autoptr (GRand) rand = cr_test_rand ();
  const CrType types[] = { CR_TYPE_INT8, CR_TYPE_UINT8, CR_TYPE_INT16,
    CR_TYPE_UINT32, CR_TYPE_FLOAT32, CR_TYPE_INT64, CR_TYPE_FLOAT64 };
  for (guint t = 0; t < G_N_ELEMENTS (types); t++)
    check_unaligned_on (rand, types[t]);
}

GST_END_TEST;

/* 3. Video frames with row padding that would change every result if it
 * were read: visible pixels lie in [1, largest - 1], and the padding holds 0
 * in some frames, the largest value in others. */

static const CrTestMonoid *const video_monoids[] = { &cr_test_monoid_sum,
  &cr_test_monoid_min, &cr_test_monoid_max, &cr_test_monoid_minmax,
  &cr_test_monoid_argmax };

typedef struct {
  guint8 *bytes;
  gsize size;
  gboolean meta;
  gsize offset; /* of the first row, given by the video meta */
  gint stride;
  guint8 *visible; /* the visible pixels, native endian, that ref reads */
  CrTestRef *ref;
  gchar *what;
} Frame;

static void
make_frame (Frame *f, GRand *rand, const gchar *format, CrType type, gint width,
    gint height, gboolean meta, gsize offset, gint stride, guint8 pad)
{
  const gsize bpp = cr_test_type_size (type);
  const guint32 largest = bpp == 1 ? G_MAXUINT8 : G_MAXUINT16;
  guint8 *visible = g_malloc ((gsize)width * height * bpp);

  f->meta = meta;
  f->offset = offset;
  f->stride = stride;
  f->size = offset + (gsize)stride * height;
  f->bytes = g_malloc (f->size);
  memset (f->bytes, pad, f->size);
  for (gint row = 0; row < height; row++) {
    for (gint col = 0; col < width; col++) {
      const guint32 v = (guint32)g_rand_int_range (rand, 1, largest);
      const gsize k = (gsize)row * width + col;
      guint8 *dst = f->bytes + offset + (gsize)row * stride + col * bpp;
      if (bpp == 1) {
        visible[k] = (guint8)v;
        *dst = (guint8)v;
      } else {
        const guint16 native = (guint16)v, le = GUINT16_TO_LE (native);
        memcpy (visible + 2 * k, &native, 2);
        memcpy (dst, &le, 2);
      }
    }
  }
  /* Indices count visible pixels only, row-major. */
  f->visible = visible;
  f->ref = reference (type, visible, (gsize)width * height, 0);
  g_autofree gchar *layout = meta
      ? g_strdup_printf (
          " and offset %" G_GSIZE_FORMAT " from a video meta", offset)
      : g_strdup (" (the default)");
  f->what =
      g_strdup_printf ("%s %dx%d frame, stride %d%s, padding bytes 0x%02x",
          format, width, height, stride, layout, pad);
}

static void
check_video (
    GRand *rand, const gchar *format, CrType type, gint width, gint height)
{
  const gsize bpp = cr_test_type_size (type);
  const gint row = width * bpp;
  GstCaps *caps = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
      format, "width", G_TYPE_INT, width, "height", G_TYPE_INT, height,
      "framerate", GST_TYPE_FRACTION, 30, 1, NULL);
  GstVideoInfo info;

  fail_unless (gst_video_info_from_caps (&info, caps));
  const gint default_stride = GST_VIDEO_INFO_PLANE_STRIDE (&info, 0);
  fail_unless (default_stride > row,
      "test setup: %s frames %d wide have no row padding", format, width);
  fail_unless (GST_VIDEO_INFO_SIZE (&info) == (gsize)default_stride * height);

  const struct {
    gboolean meta;
    gsize offset;
    gint stride;
  } layouts[] = {
    { FALSE, 0, default_stride },
    { TRUE, 0, row + 64 },
    /* A stride that is no multiple of 4, rows that start anywhere. */
    { TRUE, 7 * bpp, row + 3 * bpp },
  };
  const guint8 pads[] = { 0xff, 0x00 };
  Frame frames[G_N_ELEMENTS (layouts) * G_N_ELEMENTS (pads)];
  guint n_frames = 0;

  for (guint l = 0; l < G_N_ELEMENTS (layouts); l++)
    for (guint p = 0; p < G_N_ELEMENTS (pads); p++)
      make_frame (&frames[n_frames++], rand, format, type, width, height,
          layouts[l].meta, layouts[l].offset, layouts[l].stride, pads[p]);

  for (guint m = 0; m < G_N_ELEMENTS (video_monoids); m++) {
    const CrTestMonoid *monoid = video_monoids[m];
    GstHarness *h = start_harness (monoid, gst_caps_ref (caps), FALSE, 0);
    for (guint chunked = 0; chunked < 2; chunked++) {
      /* Small chunks: a few rows, or a single one, per launch. */
      cr_test_set_chunk_bytes (chunked ? "256" : NULL);
      for (guint f = 0; f < n_frames; f++) {
        const Frame *frame = &frames[f];
        GstBuffer *buf = cr_test_wrap (frame->bytes, frame->size);
        g_autofree gchar *what = g_strdup_printf (
            "%s%s", frame->what, chunked ? ", in chunks of 256 bytes" : "");
        if (frame->meta) {
          gsize offsets[GST_VIDEO_MAX_PLANES] = { frame->offset };
          gint strides[GST_VIDEO_MAX_PLANES] = { frame->stride };
          fail_unless (
              gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
                  GST_VIDEO_INFO_FORMAT (&info), width, height, 1, offsets,
                  strides)
              != NULL);
        }
        push_and_check (
            h, monoid, type, buf, frame->ref, (guint64)width * height, what);
      }
    }
    cr_test_set_chunk_bytes (NULL);
    gst_harness_teardown (h);
  }
  for (guint f = 0; f < n_frames; f++) {
    cr_test_ref_free (frames[f].ref);
    g_free (frames[f].visible);
    g_free (frames[f].bytes);
    g_free (frames[f].what);
  }
  gst_caps_unref (caps);
}

GST_START_TEST (test_video_padding)
{
  g_autoptr (GRand) rand = cr_test_rand ();

  /* Odd widths: the default stride rounds each row up to 4 bytes. */
  check_video (rand, "GRAY8", CR_TYPE_UINT8, 33, 17);
  check_video (rand, "GRAY8", CR_TYPE_UINT8, 641, 480);
  check_video (rand, "GRAY16_LE", CR_TYPE_UINT16, 33, 17);
  check_video (rand, "GRAY16_LE", CR_TYPE_UINT16, 641, 480);
}

GST_END_TEST;

/* 4. Tensor output: one memory per result field, of that field's type,
 * with the input's timestamps, under caps that list the fields' types. */

static const gsize tensor_sizes[] = { 0, 1000, (1 << 20) + 3 };

/* Pushes @buf (of @n elements, stamped), checks the message against
 * @ref, then the tensor buffer pushed for it and the caps it came with. */
static void
push_and_check_tensor (GstHarness *h, const CrTestMonoid *m, CrType in,
    GstBuffer *buf, const CrTestRef *ref, guint64 n, const gchar *detail)
{
  const GstClockTime pts = GST_BUFFER_PTS (buf);
  const GstClockTime duration = GST_BUFFER_DURATION (buf);
  g_autofree gchar *tensor_detail =
      g_strdup_printf ("%s, output=tensor", detail);
  g_autofree gchar *what = describe (m, in, tensor_detail);

  cr_test_push_ok (h, buf, what);
  GstStructure *result = cr_test_pop_result (h);
  cr_test_check_message (result, m, ref, FALSE, n, what);
  gst_structure_free (result);

  GstBuffer *out = gst_harness_pull (h);
  cr_test_check_tensor_buffer (out, m, ref, pts, duration, what);
  gst_buffer_unref (out);
  /* One value per field, at the input's framerate: cr_test_tensor_caps
   * gives 0/1. */
  cr_test_check_tensor_caps (h, m, in, 1, 0, 1, what);
}

static void
check_tensor_output_on (GRand *rand, CrType type)
{
  const gsize elem = cr_test_type_size (type);
  const gsize n_max = tensor_sizes[G_N_ELEMENTS (tensor_sizes) - 1];
  const gdouble threshold = threshold_for (type);
  g_autoptr (GPtrArray) monoids = cr_test_builtin_monoids ();
  guint8 *data = g_malloc (n_max * elem);
  CrTestRef *refs[G_N_ELEMENTS (tensor_sizes)];

  cr_test_fill_random (rand, type, data, n_max);
  for (guint s = 0; s < G_N_ELEMENTS (tensor_sizes); s++)
    refs[s] = reference (type, data, tensor_sizes[s], threshold);

  for (guint k = 0; k < monoids->len; k++) {
    const CrTestMonoid *m = g_ptr_array_index (monoids, k);
    GstHarness *h =
        start_harness (m, cr_test_tensor_caps (type, 1000), TRUE, threshold);

    for (guint s = 0; s < G_N_ELEMENTS (tensor_sizes); s++) {
      g_autofree gchar *what =
          g_strdup_printf ("%" G_GSIZE_FORMAT " elements", tensor_sizes[s]);
      GstBuffer *buf = cr_test_wrap (data, tensor_sizes[s] * elem);
      GST_BUFFER_PTS (buf) = s * GST_SECOND;
      GST_BUFFER_DURATION (buf) = GST_SECOND;
      push_and_check_tensor (h, m, type, buf, refs[s], tensor_sizes[s], what);
    }
    gst_harness_teardown (h);
  }
  for (guint s = 0; s < G_N_ELEMENTS (tensor_sizes); s++)
    cr_test_ref_free (refs[s]);
  g_free (data);
}

GST_START_TEST (test_tensor_output)
{
  g_autoptr (GRand) rand = cr_test_rand ();

  check_tensor_output_on (rand, CR_TYPE_FLOAT32);
  check_tensor_output_on (rand, CR_TYPE_INT16);
}

GST_END_TEST;

static const CrTestCase cases[] = {
  CR_TEST_CASE (test_builtins_8_16_bit),
  CR_TEST_CASE (test_builtins_32_64_bit),
  CR_TEST_CASE (test_builtins_float),
  CR_TEST_CASE (test_unaligned),
  CR_TEST_CASE (test_video_padding),
  CR_TEST_CASE (test_tensor_output),
  { NULL },
};

static int
setup (void)
{
  /* Staging chunks are 1 MiB there (meson.build): still several. */
  if (g_getenv ("CUDAREDUCE_UNDER_SANITIZER"))
    sizes[G_N_ELEMENTS (sizes) - 1] = (4 << 20) + 5;
  return 0;
}

static const CrGpuTest gpu_builtins = {
  .name = "gpu-builtins",
  .timeout = 900,
  .setup = setup,
  .cases = cases,
};

CR_TEST_GPU_MAIN (gpu_builtins);
