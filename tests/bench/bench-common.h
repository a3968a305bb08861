/* bench-common.h: what every part of bench-pipeline shares: failing and
 * skipping, launching and playing a pipeline, the CSV table, pseudo-random
 * regions, sizes and medians. */
#pragma once

#include <gst/gst.h>

#include <stdio.h>

#define SKIP 77
#define KIB ((gsize)1 << 10)
#define MIB ((gsize)1 << 20)
#define BLOCK (4 * KIB) /* every size is a multiple of this */
#define RATE 48000
#define REPEATS 3
/* The stream of the small-buffer and live cases. */
#define F32_STEREO_CAPS "audio/x-raw,format=F32LE,channels=2,rate=48000"
#define F32_STEREO_FRAME 8 /* bytes */

/* Prints why and exits 1 at once. */
G_GNUC_NORETURN void fail (const gchar *format, ...) G_GNUC_PRINTF (1, 2);

/* Exits 77 (skipped) after printing @what, or fails when @variable is "1". */
G_GNUC_NORETURN void skip_or_fail (
    const gchar *variable, const gchar *what, const GError *error);

gchar *size_label (gsize bytes);

gboolean has_property (GstElement *e, const gchar *name);

/* gst_parse_launch, failing on any error. */
GstElement *pipeline_launch (const gchar *desc);
/* To PLAYING, then to NULL at EOS; fails on an ERROR message or when no EOS
 * comes within @limit_s. Clears the bus's sync handler. */
void pipeline_play_to_eos (
    GstElement *pipeline, const gchar *desc, gdouble limit_s);

/* The median of @n values; sorts them. */
gdouble median (gdouble *values, guint n);

/* The CSV table (--csv). Without csv_open, rows go nowhere. */
void csv_open (const gchar *path);
void csv_close (void);
/* A row of the measurement columns; NAN leaves ceiling or ratio empty. */
void csv_row (const gchar *kind, const gchar *source, gsize bytes, gdouble gbps,
    gdouble buffers_per_s, gdouble ceiling, gdouble ratio);
/* A row of CPU time, in the median_us column only. */
void csv_cpu_row (
    const gchar *kind, const gchar *source, gsize bytes, gdouble us);
/* A row of the latency columns only. */
void csv_latency_row (const gchar *kind, const gchar *source, gsize bytes,
    gdouble median_us, gdouble p99_us);

/* Pseudo-random data, page-aligned, filled (and so prefaulted) once. For
 * bytes, prefix[k] is the sum of the bytes before block k, so any
 * block-aligned slice's sum is a subtraction. */
typedef struct {
  guint8 *data;
  gsize bytes;
  guint64 *prefix; /* NULL for floats */
} Region;

/* Bytes, or with @floats floats in [-1, 1). */
void region_init (Region *r, gsize bytes, gboolean floats, guint64 seed);
void region_clear (Region *r);
/* The sum of the bytes of a block-aligned slice (0 for floats). */
guint64 region_sum (const Region *r, gsize offset, gsize bytes);
