/* bench-start.c: what a user's first buffer waits for. Each start is a new
 * process with a kernel cache of its own, running the element in a real
 * pipeline as gst-launch-1.0 would, so that the figure is the one a user
 * meets, not a compile in a process that has done other work first.
 *
 *   bench-start [--runs N] [--csv FILE] [--monoids NAME,NAME,...]
 *               [--shapes SHAPE,SHAPE,...] [--nvcodec]
 *
 * For every built-in monoid and fused ones of 2 to 4 members (or those of
 * --monoids), in each shape of --shapes (default mono,stereo-per-channel):
 *
 *   mono                float32 audio, one channel;
 *   stereo-per-channel  float32 stereo, per-channel=true;
 *   nv12                320x240 NV12 frames, one result over both planes;
 *   nv12-per-channel    the same, per-channel=true (Y, U, V);
 *
 * (vectorscope, which counts pairs of a frame's components, on NV12 frames
 * only; the binned monoids with the range float32 needs), a child process
 * (this program with --child) builds
 *
 *   SOURCE ! CAPS ! cudareduce monoid=M ... ! fakesink
 *
 * with gst_parse_launch and reports
 *
 *   first_ms    from asking for PLAYING to the element's first result
 *               message: what the first buffer waits for;
 *   element_ms  the element's own figure, from the line its debug log
 *               gives at INFO ("compiled for sm_90 in 640.1 ms", or
 *               "cached image for ..."), as GST_DEBUG=cudareduce:4 shows
 *               it in gst-launch-1.0;
 *
 * and the parent times the child's whole life (process_ms: GStreamer's
 * start, the CUDA context, the program, the teardown). Cold: the cache
 * empty; warm: a second process on the cache the cold one filled. Medians
 * of --runs (default 3), each cold start with an empty cache of its own,
 * and an empty driver cache (CUDA_CACHE_PATH), where NVRTC 12.9 and later
 * keep what they compile for any process on the machine.
 * --nvcodec runs every case again with GStreamer's nvcodec plugin loaded in
 * the child before the pipeline, as a pipeline with cudaupload loads it
 * (it initializes CUDA itself), where the plugin is installed.
 *
 * Without a usable GPU (the child's pipeline fails to start) it says why
 * and exits 77, unless CUDAREDUCE_REQUIRE_GPU=1. Against the CPU suite's
 * fake driver (GST_CUDAREDUCE_DRIVER_LIBRARY) it measures the compiles of
 * whichever NVRTC it opens, without a GPU.
 *
 * CSV (--csv), one row per case:
 *
 *   monoid,shape,nvcodec,cold_first_ms,cold_element_ms,cold_process_ms,
 *   warm_first_ms,warm_element_ms,warm_process_ms */
#include "bench-common.h"
#include "bench-dir.h"

#include "cr-monoid-names.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What a start reduces: the source and caps before the element, and the
 * element's settings beyond the monoid. */
typedef struct {
  const gchar *name;
  const gchar *source;
  const gchar *settings;
  gboolean audio; /* float32: the binned monoids need a range */
  gboolean per_channel;
} Shape;

static const Shape shapes[] = {
  { "mono",
      "audiotestsrc num-buffers=1 ! "
      "audio/x-raw,format=F32LE,channels=1,rate=48000",
      "", TRUE, FALSE },
  { "stereo-per-channel",
      "audiotestsrc num-buffers=1 ! "
      "audio/x-raw,format=F32LE,channels=2,rate=48000",
      " per-channel=true", TRUE, TRUE },
  { "nv12",
      "videotestsrc num-buffers=1 ! "
      "video/x-raw,format=NV12,width=320,height=240",
      "", FALSE, FALSE },
  { "nv12-per-channel",
      "videotestsrc num-buffers=1 ! "
      "video/x-raw,format=NV12,width=320,height=240",
      " per-channel=true", FALSE, TRUE },
};

typedef struct {
  const gchar *monoid;
  const Shape *shape;
} Case;

/* What a child reports: its times, whether the element read the image
 * from the cache, or why it failed. */
typedef struct {
  gdouble first_ms, element_ms, process_ms;
  gint from_cache;
  gchar *error;
} Start;

/* The launch line of @c: the source, caps and the element's settings. */
static gchar *
launch_line (const Case *c)
{
  const gboolean binned = strcmp (c->monoid, "histogram") == 0
      || strcmp (c->monoid, "signalstats") == 0;
  return g_strdup_printf ("%s ! cudareduce monoid=%s%s%s ! fakesink",
      c->shape->source, c->monoid, c->shape->settings,
      binned && c->shape->audio
          ? " context=\"ctx, lo=(double)-1, hi=(double)1\""
          : "");
}

/* The child */

/* What the element's threads report, under log_lock. */
static GMutex log_lock;
static gdouble logged_ms = NAN;
static gint logged_cache = -1;

/* Catches the element's line "monoid M on T input: compiled for sm_NN in
 * X ms; ..." (or "cached image for"), its first program's. */
static void
catch_compile_line (GstDebugCategory *category, GstDebugLevel level,
    const gchar *file, const gchar *function, gint line, GObject *object,
    GstDebugMessage *message, gpointer data)
{
  if (level != GST_LEVEL_INFO
      || strcmp (gst_debug_category_get_name (category), "cudareduce") != 0)
    return;
  const gchar *text = gst_debug_message_get (message);
  const gchar *compiled = strstr (text, ": compiled for ");
  const gchar *cached = strstr (text, ": cached image for ");
  const gchar *at = compiled ? compiled : cached;
  const gchar *in = at ? strstr (at, " in ") : NULL;
  if (in == NULL)
    return;
  g_mutex_lock (&log_lock);
  if (logged_cache < 0) {
    logged_ms = g_ascii_strtod (in + 4, NULL);
    logged_cache = cached != NULL;
  }
  g_mutex_unlock (&log_lock);
}

static gint64 first_result_us;

static GstBusSyncReply
on_message (GstBus *bus, GstMessage *message, gpointer data)
{
  const GstStructure *s = gst_message_get_structure (message);
  if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_ELEMENT && s
      && gst_structure_has_name (s, "cudareduce")) {
    const gint64 now = g_get_monotonic_time ();
    g_mutex_lock (&log_lock);
    if (first_result_us == 0)
      first_result_us = now;
    g_mutex_unlock (&log_lock);
  }
  return GST_BUS_PASS;
}

/* Runs @desc once and prints "start FIRST_MS ELEMENT_MS FROM_CACHE", or
 * "error MESSAGE". */
static int
child (const gchar *desc, gboolean nvcodec)
{
  gst_debug_set_active (TRUE);
  gst_debug_remove_log_function (gst_debug_log_default);
  gst_debug_add_log_function (catch_compile_line, NULL, NULL);
  gst_debug_set_threshold_for_name ("cudareduce", GST_LEVEL_INFO);
  if (nvcodec) {
    g_autoptr (GstPlugin) plugin = gst_plugin_load_by_name ("nvcodec");
    if (plugin == NULL) {
      g_print ("error GStreamer's nvcodec plugin is not installed\n");
      return 0;
    }
  }
  g_autoptr (GError) error = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &error);
  if (pipeline == NULL || error) {
    g_print ("error %s\n", error ? error->message : "no pipeline");
    return 0;
  }
  GstBus *bus = gst_element_get_bus (pipeline);
  gst_bus_set_sync_handler (bus, on_message, NULL, NULL);
  const gint64 t0 = g_get_monotonic_time ();
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  GstMessage *end = gst_bus_timed_pop_filtered (
      bus, 300 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  const gint64 t1 = first_result_us; /* the threads are gone */

  if (end == NULL)
    g_print ("error no EOS within 300 s\n");
  else if (GST_MESSAGE_TYPE (end) == GST_MESSAGE_ERROR) {
    g_autoptr (GError) why = NULL;
    gst_message_parse_error (end, &why, NULL);
    g_print ("error %s\n", why->message);
  } else if (t1 == 0 || logged_cache < 0)
    g_print ("error no result message, or no compile line in the log\n");
  else
    g_print ("start %.3f %.3f %d\n", (t1 - t0) * 1e-3, logged_ms, logged_cache);
  g_clear_pointer (&end, gst_message_unref);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  return 0;
}

/* The parent */

static Start
run_child (const gchar *self, const Case *c, gboolean nvcodec,
    const gchar *cache_dir, const gchar *driver_cache_dir)
{
  g_autofree gchar *desc = launch_line (c);
  const gchar *argv[] = { self, "--child", desc, nvcodec ? "nvcodec" : "plain",
    NULL };
  g_auto (GStrv) env = g_environ_setenv (
      g_get_environ (), "GST_CUDAREDUCE_CACHE_DIR", cache_dir, TRUE);
  /* NVRTC (12.9 and later) keeps what it compiles in the driver's cache, so
   * a program compiled by any earlier process on the machine would start
   * fast: a cold start gets that cache empty too. */
  env = g_environ_setenv (env, "CUDA_CACHE_PATH", driver_cache_dir, TRUE);
  env = g_environ_unsetenv (env, "CUDA_CACHE_DISABLE");
  g_autofree gchar *out = NULL, *err = NULL;
  g_autoptr (GError) error = NULL;
  Start s = { NAN, NAN, NAN, -1, NULL };
  gint status = 0;

  const gint64 t0 = g_get_monotonic_time ();
  if (!g_spawn_sync (NULL, (gchar **)argv, env, G_SPAWN_DEFAULT, NULL, NULL,
          &out, &err, &status, &error)) {
    s.error = g_strdup (error->message);
    return s;
  }
  s.process_ms = (g_get_monotonic_time () - t0) * 1e-3;
  if (sscanf (
          out, "start %lf %lf %d", &s.first_ms, &s.element_ms, &s.from_cache)
      != 3)
    s.error = g_strdup (g_str_has_prefix (out, "error ")
            ? g_strchomp (out + 6)
            : (*err ? err : "the child printed nothing"));
  return s;
}

/* Medians of @runs cold and warm starts of @c; FALSE (with the reason
 * printed) when a start fails. */
static gboolean
measure (const gchar *self, const Case *c, gboolean nvcodec, guint runs,
    FILE *csv, gboolean *no_gpu)
{
  g_autofree gdouble *v = g_new (gdouble, 6 * runs);
  for (guint r = 0; r < runs; r++) {
    g_autofree gchar *dir = g_dir_make_tmp ("cr-bench-start-XXXXXX", NULL);
    g_autofree gchar *driver_dir = g_dir_make_tmp ("cr-bench-nv-XXXXXX", NULL);
    Start cold = run_child (self, c, nvcodec, dir, driver_dir);
    Start warm =
        cold.error ? cold : run_child (self, c, nvcodec, dir, driver_dir);
    bench_remove_cache_dir (dir);
    bench_remove_cache_dir (driver_dir);
    const gchar *why = cold.error ? cold.error
        : warm.error              ? warm.error
        : cold.from_cache != 0    ? "the cold start found an image in the "
                                    "empty cache"
        : warm.from_cache != 1    ? "the warm start compiled again"
                                  : NULL;
    if (why) {
      g_print ("%-32s %-18s %-7s  %s\n", c->monoid, c->shape->name,
          nvcodec ? "yes" : "no", why);
      *no_gpu = strstr (why, "CUDA") != NULL || strstr (why, "GPU") != NULL;
      g_free (cold.error);
      if (warm.error != cold.error)
        g_free (warm.error);
      return FALSE;
    }
    const gdouble row[] = { cold.first_ms, cold.element_ms, cold.process_ms,
      warm.first_ms, warm.element_ms, warm.process_ms };
    for (guint k = 0; k < 6; k++)
      v[k * runs + r] = row[k];
  }
  gdouble m[6];
  for (guint k = 0; k < 6; k++)
    m[k] = median (v + k * runs, runs);
  g_print ("%-32s %-18s %-7s %9.1f %9.1f %9.1f %9.1f %9.2f %9.1f\n", c->monoid,
      c->shape->name, nvcodec ? "yes" : "no", m[0], m[1], m[2], m[3], m[4],
      m[5]);
  if (csv)
    fprintf (csv, "%s,%s,%s,%.2f,%.2f,%.2f,%.2f,%.3f,%.2f\n", c->monoid,
        c->shape->name, nvcodec ? "yes" : "no", m[0], m[1], m[2], m[3], m[4],
        m[5]);
  return TRUE;
}

/* The cases: each built-in and fused programs of 2 to 4 members (or those
 * of @list), in each shape of @shape_list (NULL: mono and stereo per
 * channel); vectorscope, which counts pairs of a frame's components, on
 * NV12 frames whole only. */
static GArray *
cases_of (const gchar *list, const gchar *shape_list)
{
  static const gchar *const fused[] = { "sumsq+minmax", "sumsq+minmax+count_gt",
    "sumsq+minmax+count_gt+mean_var" };
  g_auto (GStrv) names = NULL;
  if (list)
    names = g_strsplit (list, ",", -1);
  else {
    g_autoptr (GStrvBuilder) all = g_strv_builder_new ();
    g_auto (GStrv) builtins = cr_monoid_builtin_names ();
    g_strv_builder_addv (all, (const gchar **)builtins);
    g_strv_builder_addv (all, (const gchar **)fused);
    names = g_strv_builder_end (all);
  }
  g_auto (GStrv) wanted =
      g_strsplit (shape_list ? shape_list : "mono,stereo-per-channel", ",", -1);
  for (guint k = 0; wanted[k]; k++) {
    guint j = 0;
    while (j < G_N_ELEMENTS (shapes) && strcmp (shapes[j].name, wanted[k]))
      j++;
    if (j == G_N_ELEMENTS (shapes)) {
      g_printerr ("bench-start: no shape %s (mono, stereo-per-channel, nv12, "
                  "nv12-per-channel)\n",
          wanted[k]);
      return NULL;
    }
  }
  GArray *cases = g_array_new (FALSE, FALSE, sizeof (Case));
  for (guint k = 0; names[k]; k++) {
    const gchar *name = g_intern_string (names[k]);
    const gboolean pairs = strcmp (name, "vectorscope") == 0;
    for (guint j = 0; j < G_N_ELEMENTS (shapes); j++) {
      const Shape *shape = &shapes[j];
      if (!g_strv_contains ((const gchar *const *)wanted, shape->name))
        continue;
      if (pairs && strcmp (shape->name, "nv12") != 0)
        continue;
      const Case c = { name, shape };
      g_array_append_val (cases, c);
    }
    /* Without frames among the shapes, vectorscope on its own. */
    if (pairs && !g_strv_contains ((const gchar *const *)wanted, "nv12")) {
      const Case c = { name, &shapes[2] };
      g_array_append_val (cases, c);
    }
  }
  return cases;
}

/* The program links the engine for the built-ins' names and loads the
 * plugin, which holds it too: two copies of its constants, which
 * AddressSanitizer calls an ODR violation, though nothing of one copy
 * reaches the other (the CPU suite runs it under ASan). */
const char *__asan_default_options (void);

const char *
__asan_default_options (void)
{
  return "detect_odr_violation=0";
}

int
main (int argc, char **argv)
{
  guint runs = 3;
  const gchar *csv_path = NULL, *monoids = NULL, *shape_list = NULL;
  gboolean nvcodec = FALSE;

  gst_init (&argc, &argv);
  for (int k = 1; k < argc; k++) {
    if (strcmp (argv[k], "--child") == 0 && k + 2 < argc)
      return child (argv[k + 1], strcmp (argv[k + 2], "nvcodec") == 0);
    else if (strcmp (argv[k], "--runs") == 0 && k + 1 < argc) {
      runs = (guint)g_ascii_strtoull (argv[++k], NULL, 10);
      runs = MAX (runs, 1);
    } else if (strcmp (argv[k], "--csv") == 0 && k + 1 < argc)
      csv_path = argv[++k];
    else if (strcmp (argv[k], "--monoids") == 0 && k + 1 < argc)
      monoids = argv[++k];
    else if (strcmp (argv[k], "--shapes") == 0 && k + 1 < argc)
      shape_list = argv[++k];
    else if (strcmp (argv[k], "--nvcodec") == 0)
      nvcodec = TRUE;
    else {
      g_printerr ("usage: %s [--runs N] [--csv FILE] "
                  "[--monoids NAME,NAME,...] [--shapes SHAPE,SHAPE,...] "
                  "[--nvcodec]\n",
          argv[0]);
      return 2;
    }
  }

  g_autoptr (GArray) cases = cases_of (monoids, shape_list);
  if (cases == NULL)
    return 2;
  FILE *csv = csv_path ? fopen (csv_path, "w") : NULL;
  if (csv_path && csv == NULL) {
    g_printerr ("bench-start: cannot write %s\n", csv_path);
    return 1;
  }
  if (csv)
    fprintf (csv,
        "monoid,shape,nvcodec,cold_first_ms,cold_element_ms,"
        "cold_process_ms,warm_first_ms,warm_element_ms,"
        "warm_process_ms\n");
  g_print ("Starts in new processes, median of %u; ms\n", runs);
  g_print ("%-32s %-18s %-7s %9s %9s %9s %9s %9s %9s\n", "monoid", "shape",
      "nvcodec", "cold 1st", "cold elt", "cold proc", "warm 1st", "warm elt",
      "warm proc");
  gboolean failed = FALSE, no_gpu = FALSE;
  for (gint with = 0; with <= (nvcodec ? 1 : 0); with++)
    for (guint k = 0; k < cases->len; k++) {
      if (!measure (argv[0], &g_array_index (cases, Case, k), with, runs, csv,
              &no_gpu)) {
        failed = TRUE;
        if (no_gpu)
          break;
      }
    }
  if (csv)
    fclose (csv);
  if (no_gpu && g_strcmp0 (g_getenv ("CUDAREDUCE_REQUIRE_GPU"), "1") != 0) {
    g_print ("SKIP: the element cannot start without a usable GPU\n");
    return SKIP;
  }
  return failed ? 1 : 0;
}
