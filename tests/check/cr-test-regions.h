/* cr-test-regions.h: what the tests of results per region share: regions
 * as the element clips them, the samples of each component a region
 * covers, and the text of the regions property. */
#pragma once

#include "cr-test-video.h"

G_BEGIN_DECLS

/* A rectangle in the frame's pixels. */
typedef struct {
  gint x, y, w, h;
} CrTestBox;

/* @b clipped to a @width x @height frame, as the element clips it (empty:
 * 0 x 0). */
CrTestBox cr_test_box_clip (CrTestBox b, gint width, gint height);
/* A random rectangle of a @width x @height frame: mostly inside, some
 * across an edge, some wholly outside. */
CrTestBox cr_test_box_random (GRand *rand, gint width, gint height);
/* The samples of component @c's plane that a clipped @b covers: columns
 * [*x0, *x1) and lines [*y0, *y1); the first floors, the end ceils. */
void cr_test_box_span (const GstVideoInfo *info, guint c, CrTestBox b, gint *x0,
    gint *x1, gint *y0, gint *y1);
/* "<<x,y,w,h>,...>", the regions property's text for @boxes. */
gchar *cr_test_boxes_text (const CrTestBox *boxes, guint n);

/* Bytes of one sample of @info's frames: 1, or 2 past 8 bits. */
guint cr_test_sample_bytes (const GstVideoInfo *info);
/* The sample at @byte of line @line of plane @plane of @f. */
const guint8 *cr_test_sample_at (
    const CrTestFrame *f, guint plane, gsize line, gsize byte);
guint64 cr_test_sample (
    const CrTestFrame *f, guint plane, gsize line, gsize byte);

/* The regions of the frames in CUDA memory that
 * cr_test_regions_in_cuda_memory reduces: clipped to 256 x 144, one
 * across an edge, one wholly outside. */
#define CR_TEST_CUDA_BOXES 5
extern const CrTestBox cr_test_cuda_boxes[CR_TEST_CUDA_BOXES];
/* Plays three frames of @format, 256 x 144, of videotestsrc's snow
 * through cudaupload ! cudareduce @props regions=(cr_test_cuda_boxes),
 * and returns the results; the frames (as uploaded) in @frames and their
 * layout in @info. */
GPtrArray *cr_test_regions_in_cuda_memory (const gchar *format,
    const gchar *props, GPtrArray *frames, GstVideoInfo *info);

/* Whether the roi-types text @types ("*", or names with commas; NULL:
 * none) reads metas of @type. */
gboolean cr_test_type_read (const gchar *types, const gchar *type);

G_END_DECLS
