/* bench-common.c: failing and skipping, launching and playing a pipeline,
 * the CSV table, pseudo-random regions, sizes and medians, for every part
 * of bench-pipeline. */
#include "bench-common.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>

static FILE *csv;

void
fail (const gchar *format, ...)
{
  va_list args;
  va_start (args, format);
  g_autofree gchar *text = g_strdup_vprintf (format, args);
  va_end (args);
  fflush (stdout);
  g_printerr ("bench-pipeline: FAILED: %s\n", text);
  if (csv)
    fclose (csv);
  /* Without tearing anything down: after a stall a streaming thread may
   * still be inside the element, and stopping the pipeline would wait on
   * it. */
  _exit (1);
}

void
skip_or_fail (const gchar *variable, const gchar *what, const GError *error)
{
  if (g_strcmp0 (g_getenv (variable), "1") == 0)
    fail ("%s=1 but %s: %s", variable, what, error->message);
  g_print ("SKIP: %s (%s)\n", what, error->message);
  exit (SKIP);
}

gchar *
size_label (gsize bytes)
{
  if (bytes >= MIB)
    return g_strdup_printf ("%" G_GSIZE_FORMAT " MiB", bytes / MIB);
  return g_strdup_printf ("%" G_GSIZE_FORMAT " KiB", bytes / KIB);
}

gboolean
has_property (GstElement *e, const gchar *name)
{
  return g_object_class_find_property (G_OBJECT_GET_CLASS (e), name) != NULL;
}

static int
by_value (const void *a, const void *b)
{
  const gdouble *x = a, *y = b;
  return (*x > *y) - (*x < *y);
}

gdouble
median (gdouble *values, guint n)
{
  qsort (values, n, sizeof values[0], by_value);
  return values[n / 2];
}

/* Pipelines */

GstElement *
pipeline_launch (const gchar *desc)
{
  g_autoptr (GError) error = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &error);

  /* A pipeline with an error set lacks something (a property, a link). */
  if (pipeline == NULL || error != NULL)
    fail ("cannot build \"%s\": %s", desc,
        error ? error->message : "no reason given");
  return pipeline;
}

void
pipeline_play_to_eos (GstElement *pipeline, const gchar *desc, gdouble limit_s)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GError *e = NULL;
  gchar *dbg = NULL;

  if (gst_element_set_state (pipeline, GST_STATE_PLAYING)
      == GST_STATE_CHANGE_FAILURE) {
    GstMessage *msg = gst_bus_timed_pop_filtered (bus, 0, GST_MESSAGE_ERROR);
    if (msg)
      gst_message_parse_error (msg, &e, NULL);
    fail ("cannot start \"%s\"%s%s", desc, e ? ": " : "", e ? e->message : "");
  }
  GstMessage *msg =
      gst_bus_timed_pop_filtered (bus, (GstClockTime)(limit_s * GST_SECOND),
          GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (msg == NULL)
    fail ("\"%s\": stalled, no EOS after %.0f s", desc, limit_s);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gst_message_parse_error (msg, &e, &dbg);
    fail ("\"%s\": ERROR from %s: %s (%s)", desc, GST_MESSAGE_SRC_NAME (msg),
        e->message, dbg ? dbg : "");
  }
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  gst_object_unref (bus);
}

/* CSV */

/* The two latency columns came after the others; every row has all nine. */
void
csv_open (const gchar *path)
{
  csv = fopen (path, "w");
  if (csv == NULL)
    fail ("cannot write %s", path);
  fprintf (csv,
      "kind,source,bytes,gbps,buffers_per_s,ceiling_gbps,ratio,"
      "median_us,p99_us\n");
}

void
csv_close (void)
{
  if (csv)
    fclose (csv);
  csv = NULL;
}

void
csv_row (const gchar *kind, const gchar *source, gsize bytes, gdouble gbps,
    gdouble buffers_per_s, gdouble ceiling, gdouble ratio)
{
  gchar c[32] = "", r[32] = "";
  if (csv == NULL)
    return;
  if (!isnan (ceiling))
    g_snprintf (c, sizeof c, "%.3f", ceiling);
  if (!isnan (ratio))
    g_snprintf (r, sizeof r, "%.4f", ratio);
  fprintf (csv, "%s,%s,%" G_GSIZE_FORMAT ",%.4f,%.1f,%s,%s,,\n", kind, source,
      bytes, gbps, buffers_per_s, c, r);
  fflush (csv);
}

void
csv_cpu_row (const gchar *kind, const gchar *source, gsize bytes, gdouble us)
{
  if (csv == NULL)
    return;
  fprintf (
      csv, "%s,%s,%" G_GSIZE_FORMAT ",,,,,%.3f,\n", kind, source, bytes, us);
  fflush (csv);
}

void
csv_latency_row (const gchar *kind, const gchar *source, gsize bytes,
    gdouble median_us, gdouble p99_us)
{
  if (csv == NULL)
    return;
  fprintf (csv, "%s,%s,%" G_GSIZE_FORMAT ",,,,,%.1f,%.1f\n", kind, source,
      bytes, median_us, p99_us);
  fflush (csv);
}

/* Regions */

static inline guint64
next_random (guint64 *s)
{
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 0x2545F4914F6CDD1Dull;
}

void
region_init (Region *r, gsize bytes, gboolean floats, guint64 seed)
{
  void *p = NULL;
  guint64 s = seed | 1;

  if (posix_memalign (&p, 4096, bytes) != 0)
    fail ("cannot allocate a region of %" G_GSIZE_FORMAT " bytes", bytes);
  r->data = p;
  r->bytes = bytes;
  r->prefix = NULL;
  if (floats) {
    gfloat *f = p;
    for (gsize k = 0; k < bytes / 4; k++)
      f[k] = (gfloat)((next_random (&s) >> 40) * (2.0 / 16777216.0) - 1.0);
    return;
  }
  guint64 *w = p;
  for (gsize k = 0; k < bytes / 8; k++)
    w[k] = next_random (&s);
  r->prefix = g_new (guint64, bytes / BLOCK + 1);
  r->prefix[0] = 0;
  for (gsize b = 0; b < bytes / BLOCK; b++) {
    const guint8 *d = r->data + b * BLOCK;
    guint32 sum = 0;
    for (gsize k = 0; k < BLOCK; k++)
      sum += d[k];
    r->prefix[b + 1] = r->prefix[b] + sum;
  }
}

void
region_clear (Region *r)
{
  g_free (r->prefix);
  free (r->data);
  r->prefix = NULL;
  r->data = NULL;
}

guint64
region_sum (const Region *r, gsize offset, gsize bytes)
{
  return r->prefix
      ? r->prefix[(offset + bytes) / BLOCK] - r->prefix[offset / BLOCK]
      : 0;
}
