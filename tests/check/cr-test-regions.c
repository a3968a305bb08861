/* cr-test-regions.c: regions as the element clips them. */
#include "cr-test-regions.h"

#include <string.h>

CrTestBox
cr_test_box_clip (CrTestBox b, gint width, gint height)
{
  const gint64 x0 = CLAMP ((gint64)b.x, 0, width);
  const gint64 y0 = CLAMP ((gint64)b.y, 0, height);
  const gint64 x1 = CLAMP ((gint64)b.x + b.w, 0, width);
  const gint64 y1 = CLAMP ((gint64)b.y + b.h, 0, height);
  CrTestBox c = { (gint)x0, (gint)y0, (gint)(x1 - x0), (gint)(y1 - y0) };
  if (c.w <= 0 || c.h <= 0)
    c.w = c.h = 0;
  return c;
}

CrTestBox
cr_test_box_random (GRand *rand, gint width, gint height)
{
  CrTestBox b;
  b.w = g_rand_int_range (rand, 1, width / 2 + 2);
  b.h = g_rand_int_range (rand, 1, height / 2 + 2);
  b.x = g_rand_int_range (rand, -b.w, width + 4);
  b.y = g_rand_int_range (rand, -b.h, height + 4);
  return b;
}

void
cr_test_box_span (const GstVideoInfo *info, guint c, CrTestBox b, gint *x0,
    gint *x1, gint *y0, gint *y1)
{
  const guint ws = GST_VIDEO_FORMAT_INFO_W_SUB (info->finfo, c);
  const guint hs = GST_VIDEO_FORMAT_INFO_H_SUB (info->finfo, c);
  *x0 = b.x >> ws;
  *y0 = b.y >> hs;
  *x1 = (b.x + b.w + (1 << ws) - 1) >> ws;
  *y1 = (b.y + b.h + (1 << hs) - 1) >> hs;
  if (b.w == 0)
    *x1 = *x0, *y1 = *y0;
}

gchar *
cr_test_boxes_text (const CrTestBox *boxes, guint n)
{
  GString *s = g_string_new ("<");
  for (guint k = 0; k < n; k++)
    g_string_append_printf (s, "%s<%d,%d,%d,%d>", k ? "," : "", boxes[k].x,
        boxes[k].y, boxes[k].w, boxes[k].h);
  g_string_append_c (s, '>');
  return g_string_free (s, FALSE);
}

guint
cr_test_sample_bytes (const GstVideoInfo *info)
{
  return GST_VIDEO_INFO_COMP_DEPTH (info, 0) > 8 ? 2 : 1;
}

const guint8 *
cr_test_sample_at (const CrTestFrame *f, guint plane, gsize line, gsize byte)
{
  return f->data + f->info.offset[plane] + line * f->info.stride[plane] + byte;
}

guint64
cr_test_sample (const CrTestFrame *f, guint plane, gsize line, gsize byte)
{
  const guint8 *at = cr_test_sample_at (f, plane, line, byte);
  return cr_test_sample_bytes (&f->info) == 2 ? GST_READ_UINT16_LE (at) : at[0];
}

gboolean
cr_test_type_read (const gchar *types, const gchar *type)
{
  if (types == NULL)
    return FALSE;
  if (strcmp (types, "*") == 0)
    return TRUE;
  g_auto (GStrv) names = g_strsplit (types, ",", -1);
  return g_strv_contains ((const gchar *const *)names, type);
}

const CrTestBox cr_test_cuda_boxes[CR_TEST_CUDA_BOXES] = { { 0, 0, 64, 64 },
  { 31, 17, 90, 51 }, { -5, 100, 40, 400 }, { 150, 0, 200, 9 },
  { 1000, 1000, 3, 3 } };

GPtrArray *
cr_test_regions_in_cuda_memory (const gchar *format, const gchar *props,
    GPtrArray *frames, GstVideoInfo *info)
{
  g_autofree gchar *rects =
      cr_test_boxes_text (cr_test_cuda_boxes, CR_TEST_CUDA_BOXES);
  g_autofree gchar *desc = g_strdup_printf (
      "videotestsrc num-buffers=3 pattern=snow ! video/x-raw,format=%s,"
      "width=256,height=144 ! identity name=frames ! cudaupload ! "
      "cudareduce %s regions=\"%s\" ! fakesink",
      format, props, rects);
  g_autoptr (GstCaps) caps = NULL;
  GPtrArray *results = cr_test_play_keeping_frames (desc, frames, &caps, NULL);
  fail_unless_equals_int (results->len, 3);
  fail_unless (gst_video_info_from_caps (info, caps));
  return results;
}
