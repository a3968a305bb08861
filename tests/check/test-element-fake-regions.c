/* test-element-fake-regions.c: results per region on the CPU, against the
 * fake driver (test-element-fake.c says what that checks): one message a
 * frame with one entry per region, ids, types, clipped rectangles and
 * counts (which the host computes, so they are checked here, on
 * subsampled planes too); the parameters put on the ROI metas; tensor
 * caps of [regions][values]; and the settings and inputs refused. The
 * values are checked in the GPU suite (test-gpu-regions.c). */
#include "cr-test-fake.h"
#include "cr-test-leaks.h"

#include <gst/video/video.h>
#include <string.h>

#ifdef CR_HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>
#endif

/* The name attach-meta gives its metas (GST_CUDA_REDUCE_META_NAME). */
#define GST_CUDA_REDUCE_META_NAME_FOR_TEST "GstCudaReduceResultMeta"

static GstCaps *
video_caps (const gchar *format, gint width, gint height)
{
  return gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING, format,
      "width", G_TYPE_INT, width, "height", G_TYPE_INT, height, "framerate",
      GST_TYPE_FRACTION, 30, 1, NULL);
}

static GstBuffer *
frame (const gchar *format, gint width, gint height, guint n)
{
  GstVideoInfo info;
  gst_video_info_set_format (
      &info, gst_video_format_from_string (format), width, height);
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info.size, NULL);
  gst_buffer_memset (buf, 0, n, info.size);
  GST_BUFFER_PTS (buf) = gst_util_uint64_scale (n, GST_SECOND, 30);
  GST_BUFFER_DURATION (buf) = gst_util_uint64_scale (1, GST_SECOND, 30);
  return buf;
}

static const GValue *
item (const GstStructure *s, const gchar *field, guint k)
{
  const GValue *array = gst_structure_get_value (s, field);
  fail_unless (array && GST_VALUE_HOLDS_ARRAY (array),
      "no array %s in %" GST_PTR_FORMAT, field, s);
  fail_unless (k < gst_value_array_get_size (array));
  return gst_value_array_get_value (array, k);
}

static gint
rect_number (const GstStructure *s, guint k, guint j)
{
  return g_value_get_int (
      gst_value_array_get_value (item (s, "region-rects", k), j));
}

/* NV12 of 64x48, per channel: two rectangles of the property (one across
 * the edge, one outside) and ROI metas of two types, one not read. */
GST_START_TEST (test_regions_message)
{
  GstHarness *h = cr_test_harness (video_caps ("NV12", 64, 48), "monoid", "sum",
      "per-channel", "true", "regions", "<<1,1,3,3>,<60,40,10,10>,<100,0,5,5>>",
      "roi-types", "face", NULL);
  gst_harness_play (h);
  GstBuffer *buf = frame ("NV12", 64, 48, 0);
  GstVideoRegionOfInterestMeta *roi =
      gst_buffer_add_video_region_of_interest_meta (buf, "face", 2, 4, 7, 5);
  roi->id = 42;
  gst_buffer_add_video_region_of_interest_meta (buf, "car", 0, 0, 8, 8);
  cr_test_push_ok (h, buf, "regions");
  g_autoptr (GPtrArray) results = cr_test_results_after_eos (h, "regions");
  fail_unless_equals_int (results->len, 1);
  const GstStructure *s = g_ptr_array_index (results, 0);
  guint regions = 0, channels = 0;
  fail_unless (gst_structure_get_uint (s, "regions", &regions));
  fail_unless_equals_int (regions, 4);
  fail_unless (gst_structure_get_uint (s, "channels", &channels));
  fail_unless_equals_int (channels, 3);
  /* The property's rectangles by index, then the face. */
  const gint ids[] = { 0, 1, 2, 42 };
  const gchar *types[] = { "", "", "", "face" };
  const gchar *sources[] = { "property", "property", "property", "roi" };
  /* Clipped, in luma pixels (one wholly outside is empty, at the edge it
   * is clamped to); the samples of Y, U and V each covers. */
  const gint rects[][4] = { { 1, 1, 3, 3 }, { 60, 40, 4, 8 }, { 64, 0, 0, 0 },
    { 2, 4, 7, 5 } };
  const guint64 counts[][3] = { { 9, 4, 4 }, { 32, 8, 8 }, { 0, 0, 0 },
    { 35, 12, 12 } };
  for (guint k = 0; k < regions; k++) {
    fail_unless_equals_int (
        g_value_get_int (item (s, "region-ids", k)), ids[k]);
    fail_unless_equals_string (
        g_value_get_string (item (s, "region-types", k)), types[k]);
    fail_unless_equals_string (
        g_value_get_string (item (s, "region-sources", k)), sources[k]);
    for (guint j = 0; j < 4; j++)
      fail_unless_equals_int (rect_number (s, k, j), rects[k][j]);
    for (guint v = 0; v < 3; v++)
      fail_unless_equals_uint64 (g_value_get_uint64 (gst_value_array_get_value (
                                     item (s, "counts", k), v)),
          counts[k][v]);
    fail_unless_equals_int (gst_value_array_get_size (item (s, "sum", k)), 3);
  }
  fail_unless_equals_uint64 (
      cr_fake_get_uint64 (s, "count"), 9 + 8 + 32 + 16 + 35 + 24);

  /* The face's results on its meta, downstream; the car's meta has none. */
  g_autoptr (GstBuffer) out = gst_harness_pull (h);
  GstVideoRegionOfInterestMeta *face =
      gst_buffer_get_video_region_of_interest_meta_id (out, 42);
  fail_unless (face != NULL);
  GstStructure *params =
      gst_video_region_of_interest_meta_get_param (face, "cudareduce");
  fail_unless (params != NULL);
  fail_unless_equals_string (gst_structure_get_string (params, "element"),
      GST_OBJECT_NAME (h->element));
  fail_unless_equals_uint64 (cr_fake_get_uint64 (params, "count"), 59);
  gpointer state = NULL;
  GstMeta *meta;
  guint n_metas = 0;
  while ((meta = gst_buffer_iterate_meta_filtered (
              out, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *r = (GstVideoRegionOfInterestMeta *)meta;
    n_metas++;
    fail_unless_equals_int (
        gst_video_region_of_interest_meta_get_param (r, "cudareduce") != NULL,
        r->id == 42);
  }
  fail_unless_equals_int (n_metas, 2);
  cr_fake_teardown (h);
}

GST_END_TEST;

#ifdef CR_HAVE_GST_ANALYTICS
/* Object detections of GStreamer's analytics meta, after the ROI metas:
 * their ids and types, clipped, with counts over both planes; the meta
 * goes downstream as it came. */
GST_START_TEST (test_regions_analytics)
{
  GstHarness *h = cr_test_harness (video_caps ("NV12", 64, 48), "monoid", "sum",
      "roi-types", "person", NULL);
  gst_harness_play (h);
  GstBuffer *buf = frame ("NV12", 64, 48, 0);
  GstVideoRegionOfInterestMeta *roi =
      gst_buffer_add_video_region_of_interest_meta (buf, "person", 0, 0, 2, 2);
  roi->id = 3;
  GstAnalyticsRelationMeta *meta = gst_buffer_add_analytics_relation_meta (buf);
  GstAnalyticsODMtd person, car;
  fail_unless (gst_analytics_relation_meta_add_od_mtd (
      meta, g_quark_from_string ("car"), 0, 0, 64, 48, 0.8f, &car));
  fail_unless (gst_analytics_relation_meta_add_od_mtd (
      meta, g_quark_from_string ("person"), 5, 6, 10, 8, 0.7f, &person));
  cr_test_push_ok (h, buf, "analytics");
  g_autoptr (GPtrArray) results = cr_test_results_after_eos (h, "analytics");
  fail_unless_equals_int (results->len, 1);
  const GstStructure *s = g_ptr_array_index (results, 0);
  guint regions = 0;
  fail_unless (gst_structure_get_uint (s, "regions", &regions));
  fail_unless_equals_int (regions, 2);
  fail_unless_equals_int (g_value_get_int (item (s, "region-ids", 0)), 3);
  fail_unless_equals_string (
      g_value_get_string (item (s, "region-sources", 0)), "roi");
  fail_unless_equals_int (
      g_value_get_int (item (s, "region-ids", 1)), (gint)person.id);
  fail_unless_equals_string (
      g_value_get_string (item (s, "region-types", 1)), "person");
  fail_unless_equals_string (
      g_value_get_string (item (s, "region-sources", 1)), "analytics");
  const gint rect[] = { 5, 6, 10, 8 };
  for (guint j = 0; j < 4; j++)
    fail_unless_equals_int (rect_number (s, 1, j), rect[j]);
  /* 10x8 luma samples; chroma columns 2 to 7 and rows 3 to 6, U and V. */
  fail_unless_equals_uint64 (
      g_value_get_uint64 (item (s, "counts", 1)), 80 + 2 * 6 * 4);
  fail_unless_equals_uint64 (
      g_value_get_uint64 (item (s, "counts", 0)), 4 + 2 * 1 * 1);

  g_autoptr (GstBuffer) out = gst_harness_pull (h);
  GstAnalyticsRelationMeta *passed =
      gst_buffer_get_analytics_relation_meta (out);
  fail_unless (passed != NULL);
  fail_unless_equals_int (gst_analytics_relation_get_length (passed), 2);
  cr_fake_teardown (h);
}

GST_END_TEST;
#endif

/* I420, one value per region: the samples of the three planes together;
 * a frame without the metas read gives an empty message. */
GST_START_TEST (test_regions_whole_pixels)
{
  GstHarness *h = cr_test_harness (video_caps ("I420", 33, 17), "monoid",
      "mean_var", "regions", "<<31,15,4,4>>", "roi-types", "*", NULL);
  gst_harness_play (h);
  cr_test_push_ok (h, frame ("I420", 33, 17, 0), "whole pixels");
  g_autoptr (GPtrArray) results = cr_test_results_after_eos (h, "whole pixels");
  fail_unless_equals_int (results->len, 1);
  const GstStructure *s = g_ptr_array_index (results, 0);
  /* 2 x 2 luma pixels at (31, 15), chroma column 15 to 16, row 7 to 8. */
  fail_unless_equals_uint64 (
      g_value_get_uint64 (item (s, "counts", 0)), 4 + 4 + 4);
  fail_unless (G_VALUE_HOLDS_DOUBLE (item (s, "mean", 0)));
  cr_fake_teardown (h);

  h = cr_test_harness (
      video_caps ("GRAY8", 16, 16), "monoid", "sum", "roi-types", "face", NULL);
  gst_harness_play (h);
  cr_test_push_ok (h, frame ("GRAY8", 16, 16, 0), "no region");
  g_autoptr (GPtrArray) empty = cr_test_results_after_eos (h, "no region");
  fail_unless_equals_int (empty->len, 1);
  s = g_ptr_array_index (empty, 0);
  guint regions = 1;
  fail_unless (gst_structure_get_uint (s, "regions", &regions));
  fail_unless_equals_int (regions, 0);
  fail_unless_equals_int (
      gst_value_array_get_size (gst_structure_get_value (s, "sum")), 0);
  cr_fake_teardown (h);
}

GST_END_TEST;

/* attach-meta: the frame's message, arrays over regions, on its buffer. */
GST_START_TEST (test_regions_attach_meta)
{
  GstHarness *h = cr_test_harness (video_caps ("GRAY8", 32, 32), "monoid",
      "sum", "attach-meta", "true", "post-messages", "false", "regions",
      "<<0,0,8,8>,<30,30,8,8>>", NULL);
  gst_harness_play (h);
  cr_test_push_ok (h, frame ("GRAY8", 32, 32, 0), "attach-meta");
  g_autoptr (GstBuffer) out = gst_harness_pull (h);
  GstCustomMeta *meta =
      gst_buffer_get_custom_meta (out, GST_CUDA_REDUCE_META_NAME_FOR_TEST);
  fail_unless (meta != NULL);
  const GstStructure *s = gst_custom_meta_get_structure (meta);
  guint regions = 0;
  fail_unless (gst_structure_get_uint (s, "regions", &regions));
  fail_unless_equals_int (regions, 2);
  fail_unless_equals_uint64 (g_value_get_uint64 (item (s, "counts", 0)), 64);
  fail_unless_equals_uint64 (g_value_get_uint64 (item (s, "counts", 1)), 4);
  fail_unless_equals_int (
      gst_value_array_get_size (gst_structure_get_value (s, "sum")), 2);
  cr_fake_teardown (h);
}

GST_END_TEST;

/* Tensors of [regions][values], as the caps say. */
GST_START_TEST (test_regions_tensor_caps)
{
  GstHarness *h = cr_test_harness (video_caps ("RGBA", 32, 32), "monoid",
      "minmax", "per-channel", "true", "output", "tensor", "regions",
      "<<0,0,8,8>,<8,8,8,8>,<0,0,32,32>>", NULL);
  gst_harness_play (h);
  cr_test_push_ok (h, frame ("RGBA", 32, 32, 0), "tensors");
  g_autoptr (GstBuffer) out = gst_harness_pull (h);
  g_autoptr (GstCaps) caps = gst_pad_get_current_caps (h->sinkpad);
  const GstStructure *s = gst_caps_get_structure (caps, 0);
  fail_unless_equals_string (
      gst_structure_get_string (s, "dimensions"), "4:3,4:3");
  fail_unless_equals_int (gst_buffer_n_memory (out), 2);
  fail_unless_equals_int (gst_buffer_get_size (out), 2 * 3 * 4);
  cr_fake_teardown (h);
}

GST_END_TEST;

/* Fixed regions over intervals and windows: GRAY8 at 50 fps, 40 ms hops
 * of two frames, windows of three; 7 frames are 3 hops and a frame at
 * EOS. Each result counts the region's samples over the frames it spans;
 * the window's first results say they span less. */
GST_START_TEST (test_regions_window)
{
  GstHarness *h = cr_test_harness (video_caps ("GRAY8", 64, 48), "monoid",
      "mean_var", "regions", "<<0,0,8,4>,<60,44,8,8>>", "interval", "40000000",
      "window", "120000000", NULL);
  gst_harness_play (h);
  for (guint k = 0; k < 7; k++) {
    GstBuffer *buf = frame ("GRAY8", 64, 48, k);
    GST_BUFFER_PTS (buf) = k * 20 * MS;
    GST_BUFFER_DURATION (buf) = 20 * MS;
    cr_test_push_ok (h, buf, "window");
  }
  g_autoptr (GPtrArray) results = cr_test_results_after_eos (h, "window");
  fail_unless_equals_int (results->len, 4);
  const guint frames[] = { 2, 4, 6, 5 };
  for (guint k = 0; k < results->len; k++) {
    const GstStructure *s = g_ptr_array_index (results, k);
    fail_unless_equals_uint64 (
        g_value_get_uint64 (item (s, "counts", 0)), frames[k] * 32);
    fail_unless_equals_uint64 (
        g_value_get_uint64 (item (s, "counts", 1)), frames[k] * 16);
    gboolean complete = FALSE;
    fail_unless (gst_structure_get_boolean (s, "window-complete", &complete));
    fail_unless_equals_int (complete, k >= 2);
    cr_test_check_time (
        s, "timestamp", (k >= 2 ? k - 2 : 0) * 40 * MS, "window");
    cr_test_check_time (s, "duration", frames[k] * 20 * MS, "window");
  }
  cr_fake_teardown (h);
}

GST_END_TEST;

static void
expect_refused (const gchar *prop, const gchar *value, const gchar *prop2,
    const gchar *value2, const gchar *says)
{
  GstElement *e = gst_element_factory_make ("cudareduce", NULL);
  gst_util_set_object_arg (G_OBJECT (e), prop, value);
  if (prop2)
    gst_util_set_object_arg (G_OBJECT (e), prop2, value2);
  cr_fake_expect_start_error (
      e, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS, "regions", says);
}

/* Settings refused at start, each saying what to set. */
GST_START_TEST (test_regions_refused_settings)
{
  expect_refused (
      "roi-types", "face", "interval", "100000000", "leave interval");
  expect_refused ("roi-types", "face", "window", "100000000", "fixed");
  expect_refused ("roi-types", "*", "output", "tensor", "list fixed");
  expect_refused ("regions", "<<0,0,8>>", NULL, NULL, "not four integers");
  expect_refused ("regions", "<<0,0,0,8>>", NULL, NULL, "1 or more");
}

GST_END_TEST;

/* A 2-D histogram a region: U against V of NV12 (one plane) and I420
 * (two), each region's count the chroma samples it covers. */
GST_START_TEST (test_regions_pairs)
{
  const gchar *formats[] = { "NV12", "I420" };
  for (guint f = 0; f < G_N_ELEMENTS (formats); f++) {
    GstHarness *h = cr_test_harness (video_caps (formats[f], 64, 48), "monoid",
        "vectorscope", "bins", "16", "regions", "<<1,1,3,3>,<60,40,10,10>>",
        NULL);
    gst_harness_play (h);
    cr_test_push_ok (h, frame (formats[f], 64, 48, 0), "regions");
    g_autoptr (GPtrArray) results = cr_test_results_after_eos (h, "regions");
    fail_unless_equals_int (results->len, 1);
    const GstStructure *s = g_ptr_array_index (results, 0);
    guint regions = 0;
    fail_unless (gst_structure_get_uint (s, "regions", &regions));
    fail_unless_equals_int (regions, 2);
    const guint64 counts[] = { 4, 8 };
    for (guint k = 0; k < regions; k++) {
      fail_unless_equals_uint64 (
          g_value_get_uint64 (item (s, "counts", k)), counts[k]);
      /* 16 x 16 bins. */
      const GValue *histogram = item (s, "histogram", k);
      fail_unless (GST_VALUE_HOLDS_ARRAY (histogram), "%" GST_PTR_FORMAT, s);
      fail_unless_equals_int (gst_value_array_get_size (histogram), 16);
    }
    cr_fake_teardown (h);
  }
}

GST_END_TEST;

/* Input the regions cannot take: audio, a frame with more regions than a
 * launch takes. */
GST_START_TEST (test_regions_refused_input)
{
  GstHarness *h = cr_test_harness (
      cr_test_audio_caps ("F32LE", 48000, 2), "regions", "<<0,0,8,8>>", NULL);
  gst_harness_play (h);
  gst_harness_push (h, cr_fake_audio_buffer (480, 0));
  cr_fake_expect_error (
      h, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS, "not video", NULL);
  cr_fake_teardown (h);

  h = cr_test_harness (video_caps ("GRAY8", 16, 16), "roi-types", "*", NULL);
  gst_harness_play (h);
  GstBuffer *buf = frame ("GRAY8", 16, 16, 0);
  for (guint k = 0; k < 4097; k++)
    gst_buffer_add_video_region_of_interest_meta (buf, "face", 0, 0, 1, 1);
  gst_harness_push (h, buf);
  cr_fake_expect_error (h, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
      "4097 regions", "roi-types", NULL);
  cr_fake_teardown (h);
}

GST_END_TEST;

static Suite *
element_fake_regions_suite (void)
{
  Suite *s = suite_create ("element-fake-regions");
  TCase *tc = tcase_create ("fake-gpu");
  cr_test_check_objects (tc);
  tcase_add_checked_fixture (tc, cr_fake_reset, NULL);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_regions_message);
#ifdef CR_HAVE_GST_ANALYTICS
  tcase_add_test (tc, test_regions_analytics);
#endif
  tcase_add_test (tc, test_regions_whole_pixels);
  tcase_add_test (tc, test_regions_attach_meta);
  tcase_add_test (tc, test_regions_tensor_caps);
  tcase_add_test (tc, test_regions_window);
  tcase_add_test (tc, test_regions_refused_settings);
  tcase_add_test (tc, test_regions_pairs);
  tcase_add_test (tc, test_regions_refused_input);
  return s;
}

GST_CHECK_MAIN (element_fake_regions);
