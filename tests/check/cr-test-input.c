/* cr-test-input.c: random buffers for the per-channel and interval tests. */
#include "cr-test-input.h"

#include <string.h>

/* Video */

const CrTestVideoFormat cr_test_video_formats[8] = {
  { "RGBA", CR_TYPE_UINT8, 4, 4 },
  { "BGRA", CR_TYPE_UINT8, 4, 4 },
  { "RGBx", CR_TYPE_UINT8, 4, 3 },
  { "BGRx", CR_TYPE_UINT8, 4, 3 },
  { "RGB", CR_TYPE_UINT8, 3, 3 },
  { "BGR", CR_TYPE_UINT8, 3, 3 },
  { "GRAY8", CR_TYPE_UINT8, 1, 1 },
  { "GRAY16_LE", CR_TYPE_UINT16, 1, 1 },
};

const CrTestVideoFormat *
cr_test_video_format (const gchar *format)
{
  for (guint f = 0; f < G_N_ELEMENTS (cr_test_video_formats); f++)
    if (g_str_equal (cr_test_video_formats[f].format, format))
      return &cr_test_video_formats[f];
  g_assert_not_reached ();
  return NULL;
}

void
cr_test_input_video (CrTestInput *in, GRand *rand, const CrTestVideoFormat *f,
    gint width, gint height, gsize extra, gint fps_n)
{
  GstVideoInfo info;

  memset (in, 0, sizeof *in);
  in->caps = cr_test_video_caps (f->format, width, height, fps_n);
  fail_unless (gst_video_info_from_caps (&info, in->caps),
      "video %s %dx%d: no video info", f->format, width, height);
  /* Rows of GRAY16 start on whole pixels. */
  const gsize elem = cr_type_size (f->type);
  extra = (extra + elem - 1) / elem * elem;
  const gsize stride = GST_VIDEO_INFO_PLANE_STRIDE (&info, 0) + extra;
  in->vformat = GST_VIDEO_INFO_FORMAT (&info);
  in->width = width;
  in->height = height;
  in->meta = extra > 0;
  in->size = in->meta ? stride * height : GST_VIDEO_INFO_SIZE (&info);
  in->data = cr_test_random_elements (rand, CR_TYPE_UINT8, in->size);
  in->span.data =
      in->data + (in->meta ? 0 : GST_VIDEO_INFO_PLANE_OFFSET (&info, 0));
  in->span.channels = f->channels;
  in->span.rows = (guint64)width * height;
  in->span.per_line = width;
  in->span.stride = stride;
  in->pts = GST_CLOCK_TIME_NONE;
  in->duration = GST_CLOCK_TIME_NONE;
}

void
cr_test_input_raw (
    CrTestInput *in, GRand *rand, CrType type, guint channels, guint64 rows)
{
  memset (in, 0, sizeof *in);
  in->size = rows * channels * cr_type_size (type);
  in->data = cr_test_random_elements (rand, type, rows * channels);
  in->span =
      (CrTestSpan){ .data = in->data, .channels = channels, .rows = rows };
  in->pts = GST_CLOCK_TIME_NONE;
  in->duration = GST_CLOCK_TIME_NONE;
}

GstBuffer *
cr_test_input_buffer (const CrTestInput *in)
{
  GstBuffer *buf = gst_buffer_new_memdup (in->data, in->size);
  if (in->meta) {
    gsize offset[GST_VIDEO_MAX_PLANES] = { 0 };
    gint stride[GST_VIDEO_MAX_PLANES] = { (gint)in->span.stride };
    gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE, in->vformat,
        in->width, in->height, 1, offset, stride);
  }
  GST_BUFFER_PTS (buf) = in->pts;
  GST_BUFFER_DURATION (buf) = in->duration;
  if (in->discont)
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
  return buf;
}

gchar *
cr_test_input_video_name (const CrTestVideoFormat *f, const CrTestInput *in)
{
  return g_strdup_printf ("video %s %dx%d, stride %" G_GSIZE_FORMAT "%s",
      f->format, in->width, in->height, in->span.stride,
      in->meta ? " (in a video meta)" : "");
}

void
cr_test_input_clear (CrTestInput *in)
{
  g_free (in->data);
  gst_clear_caps (&in->caps);
}

/* Audio */

CrTestAudio *
cr_test_audio_new (GRand *rand, const gchar *format, CrType type, gint rate,
    guint channels, GstClockTime base, const guint64 *sizes, guint n_buffers)
{
  CrTestAudio *st = g_new0 (CrTestAudio, 1);
  guint64 total = 0;

  st->format = format;
  st->type = type;
  st->rate = rate;
  st->channels = channels;
  st->base = base;
  st->starts = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_array_append_val (st->starts, total);
  for (guint k = 0; k < n_buffers; k++) {
    g_assert (sizes[k] > 0);
    total += sizes[k];
    g_array_append_val (st->starts, total);
  }
  st->frames = total;
  st->data = cr_test_random_elements (rand, type, total * channels);
  return st;
}

void
cr_test_audio_free (CrTestAudio *st)
{
  g_array_unref (st->starts);
  g_free (st->data);
  g_free (st);
}

gsize
cr_test_audio_frame_bytes (const CrTestAudio *st)
{
  return cr_type_size (st->type) * st->channels;
}

guint
cr_test_audio_n_buffers (const CrTestAudio *st)
{
  return st->starts->len - 1;
}

guint64
cr_test_audio_start (const CrTestAudio *st, guint k)
{
  return g_array_index (st->starts, guint64, k);
}

GstClockTime
cr_test_audio_pts (const CrTestAudio *st, guint64 frame)
{
  return st->base + gst_util_uint64_scale_int (frame, GST_SECOND, st->rate);
}

GstClockTime
cr_test_audio_frame_time (const CrTestAudio *st, guint64 g)
{
  for (guint k = 0; k < cr_test_audio_n_buffers (st); k++) {
    const guint64 start = cr_test_audio_start (st, k);
    if (g >= start && g < cr_test_audio_start (st, k + 1))
      return cr_test_audio_pts (st, start)
          + gst_util_uint64_scale_int (g - start, GST_SECOND, st->rate);
  }
  g_assert_not_reached ();
  return GST_CLOCK_TIME_NONE;
}

GstBuffer *
cr_test_audio_buffer (const CrTestAudio *st, guint k, GstAllocator *allocator,
    GstAllocationParams *params)
{
  const gsize fb = cr_test_audio_frame_bytes (st);
  const guint64 start = cr_test_audio_start (st, k);
  const guint64 end = cr_test_audio_start (st, k + 1);
  const gsize bytes = (end - start) * fb;
  GstBuffer *buf;

  if (allocator) {
    buf = gst_buffer_new_allocate (allocator, bytes, params);
    fail_unless (buf != NULL,
        "audio %s, %u channels, buffer %u: cannot "
        "allocate %" G_GSIZE_FORMAT " bytes",
        st->format, st->channels, k, bytes);
    gst_buffer_fill (buf, 0, st->data + start * fb, bytes);
  } else {
    buf = gst_buffer_new_memdup (st->data + start * fb, bytes);
  }
  GST_BUFFER_PTS (buf) = cr_test_audio_pts (st, start);
  GST_BUFFER_DURATION (buf) =
      cr_test_audio_pts (st, end) - cr_test_audio_pts (st, start);
  return buf;
}

void
cr_test_audio_push (
    GstHarness *h, const CrTestAudio *st, gboolean discont, const gchar *what)
{
  for (guint k = 0; k < cr_test_audio_n_buffers (st); k++) {
    GstBuffer *buf = cr_test_audio_buffer (st, k, NULL, NULL);
    if (k == 0 && discont)
      GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
    cr_test_push_ok (h, buf, what);
  }
}

guint64
cr_test_interval_frames (GstClockTime interval, gint rate)
{
  return MAX (1, gst_util_uint64_scale_round (interval, rate, GST_SECOND));
}

guint64 *
cr_test_random_sizes (GRand *rand, guint n, guint64 lo, guint64 hi)
{
  guint64 *sizes = g_new (guint64, n);
  for (guint k = 0; k < n; k++)
    sizes[k] = lo + (guint64)g_rand_int_range (rand, 0, (gint32)(hi - lo + 1));
  return sizes;
}

void
cr_test_audio_intervals (GPtrArray *expected, const CrTestAudio *st,
    const CrTestAudioCut *cut, const gchar *what)
{
  const gsize fb = cr_test_audio_frame_bytes (st);
  const guint64 per = cut->frames;
  const guint components = cut->per_channel ? st->channels : 1;
  guint k = 0;

  const guint hops = MAX (cut->hops, 1);

  for (guint64 first = 0; first < st->frames; first += per, k++) {
    const guint64 len = MIN (per, st->frames - first);
    if (len < per && !cut->partial_at_eos)
      break;
    /* A window spans this interval and up to hops - 1 before it, whole
     * ones, whose durations add up. */
    const guint64 start = k + 1 >= hops ? first - (hops - 1) * per : 0;
    const guint64 frames = first + len - start;
    CrTestExpected *e = g_new0 (CrTestExpected, 1);
    e->ts = cr_test_audio_frame_time (st, start);
    e->duration = gst_util_uint64_scale_int (len, GST_SECOND, st->rate)
        + (first - start) / per
            * gst_util_uint64_scale_int (per, GST_SECOND, st->rate);
    e->count = frames * st->channels;
    CrTestSpan span = { .data = st->data + start * fb,
      .channels = components,
      .rows = cut->per_channel ? frames : frames * st->channels };
    e->ref = cr_test_ref_of_span (st->type, components, &span);
    e->what = g_strdup_printf ("%s, interval %u (frames %" G_GUINT64_FORMAT
                               " to %" G_GUINT64_FORMAT "%s)",
        what, k, start, first + len,
        len < per ? ", the partial one at EOS" : "");
    g_ptr_array_add (expected, e);
  }
}
