/* bench-stream.c: the pipeline's own cost against the element's, for small
 * buffers from a real source. Each configuration is
 *
 *   audiotestsrc wave=silence samplesperbuffer=N num-buffers=M !
 *       audio/x-raw,format=F32LE,channels=2,rate=48000 ! ELEMENT !
 *       fakesink sync=false
 *
 * built with gst_parse_launch, at 1, 4, 16 and 64 KiB a buffer (N = bytes /
 * 8 frames), with ELEMENT one of
 *
 *   identity                   identity: the pipeline's own cost
 *   level-buffer               level post-messages=true interval=<buffer
 *                              duration>: a message per buffer
 *   level-100ms                level interval=100000000
 *   cudareduce-messages        cudareduce monoid=sumsq: a message per buffer
 *   cudareduce-no-messages     cudareduce monoid=sumsq post-messages=false
 *   cudareduce-tensor          cudareduce monoid=sumsq output=tensor
 *                              post-messages=false
 *   cudareduce-channels-100ms  cudareduce monoid=sumsq per-channel=true
 *                              interval=100000000
 *   cudareduce-window-400ms    the same with window=400000000: every
 *                              100 ms a result over the last 400 ms
 *
 * and at 1 and 4 MiB a buffer, three statistics of each buffer, from the
 * pool (or allocator) that the element after the caps proposes:
 *
 *   cudareduce-fused3          cudareduce monoid=sumsq+minmax+count_gt
 *   cudareduce-tee3            tee, then a queue and a cudareduce for each
 *                              of sumsq, minmax and count_gt (three
 *                              messages a buffer)
 *
 * Timing. A pad probe on fakesink's sink pad counts the buffers arriving
 * (one per input buffer in every configuration, tensor output included);
 * the time runs from the arrival of buffer W to that of buffer M, a window
 * in which M - W buffers complete with the pipeline already full, so the
 * pipeline's start, caps negotiation and the kernel's compile or load are
 * outside it. W is a tenth of the timed buffers (at least 64). M comes from
 * a calibration run of the same configuration (2000 buffers, ten times
 * more until its window lasts a tenth of a run, 20 ms at least), so that a
 * timed run lasts about --seconds / 2 (at least 1000 timed buffers). The
 * figure is buffers per second, the median of 3 runs (pipelines), taken in
 * turn across the configurations at each size.
 *
 * A bus sync handler counts the messages of the element (and drops them, as
 * an application that reads them would consume them). cudareduce's must
 * number exactly one per buffer for cudareduce-messages, none where
 * post-messages=false, and one per 100 ms of stream (4800 frames), plus the
 * partial interval at EOS, for cudareduce-channels-100ms; any other count,
 * an ERROR message, or a stall fails the benchmark. level's counts are
 * printed when they are not the expected one (or one more: level also posts
 * at EOS).
 *
 * In the same windows, each thread's CPU time (bench-threads.c), by what
 * the thread does: upstream's streaming thread (which runs the element's
 * submission), cudareduce's results thread and source pad task, the rest;
 * printed and in the CSV as microseconds per buffer.
 *
 * Then the live case (bench-live.c). Everything is timed with
 * gst_util_get_timestamp (monotonic, ns). */
#include "bench-stream.h"

#include "bench-live.h"
#include "bench-threads.h"

#include <math.h>
#include <string.h>

#define INTERVAL_FRAMES 4800 /* 100 ms at 48 kHz */
#define CALIBRATION_BUFFERS 2000
#define CALIBRATION_S 0.02
#define TIMED_MIN 1000
#define WARMUP_MIN 64

static const gsize sizes[] = { 1 * KIB, 4 * KIB, 16 * KIB, 64 * KIB };
#define N_SIZES G_N_ELEMENTS (sizes)

typedef enum {
  RESULTS_NONE,
  RESULTS_PER_BUFFER,
  RESULTS_PER_INTERVAL,
} Results;

typedef struct {
  const gchar *name; /* the CSV source */
  const gchar *element; /* launch syntax */
  gboolean buffer_interval; /* add interval=<buffer duration> */
  const gchar *counted; /* the name of the messages counted, if any */
  Results results; /* how many there should be */
  gboolean exact; /* another count fails the benchmark */
  gboolean gpu;
  guint elements; /* counted elements, each posting its results; 0: 1 */
  gboolean large; /* runs at large_sizes only */
} StreamConfig;

enum {
  IDENTITY,
  LEVEL_BUFFER,
  LEVEL_INTERVAL,
  MESSAGES,
  NO_MESSAGES,
  TENSOR,
  CHANNELS_INTERVAL,
  CHANNELS_WINDOW,
  FUSED,
  TEE,
  N_CONFIGS
};

static const StreamConfig configs[N_CONFIGS] = {
  [IDENTITY] = {
      .name = "identity",
      .element = "identity",
  },
  [LEVEL_BUFFER] = {
      .name = "level-buffer",
      .element = "level post-messages=true",
      .buffer_interval = TRUE,
      .counted = "level",
      .results = RESULTS_PER_BUFFER,
  },
  [LEVEL_INTERVAL] = {
      .name = "level-100ms",
      .element = "level interval=100000000",
      .counted = "level",
      .results = RESULTS_PER_INTERVAL,
  },
  [MESSAGES] = {
      .name = "cudareduce-messages",
      .element = "cudareduce monoid=sumsq",
      .counted = "cudareduce",
      .results = RESULTS_PER_BUFFER,
      .exact = TRUE,
      .gpu = TRUE,
  },
  [NO_MESSAGES] = {
      .name = "cudareduce-no-messages",
      .element = "cudareduce monoid=sumsq post-messages=false",
      .counted = "cudareduce",
      .results = RESULTS_NONE,
      .exact = TRUE,
      .gpu = TRUE,
  },
  [TENSOR] = {
      .name = "cudareduce-tensor",
      .element = "cudareduce monoid=sumsq output=tensor post-messages=false",
      .counted = "cudareduce",
      .results = RESULTS_NONE,
      .exact = TRUE,
      .gpu = TRUE,
  },
  [CHANNELS_INTERVAL] = {
      .name = "cudareduce-channels-100ms",
      .element = "cudareduce monoid=sumsq per-channel=true interval=100000000",
      .counted = "cudareduce",
      .results = RESULTS_PER_INTERVAL,
      .exact = TRUE,
      .gpu = TRUE,
  },
  /* Sliding windows should cost a buffer what tumbling intervals do. */
  [CHANNELS_WINDOW] = {
      .name = "cudareduce-window-400ms",
      .element = "cudareduce monoid=sumsq per-channel=true interval=100000000 "
                 "window=400000000",
      .counted = "cudareduce",
      .results = RESULTS_PER_INTERVAL,
      .exact = TRUE,
      .gpu = TRUE,
  },
  /* Three statistics of large buffers: one fused element, which reads each
   * buffer once, against what a user would do without fusion. */
  [FUSED] = {
      .name = "cudareduce-fused3",
      .element = "cudareduce monoid=sumsq+minmax+count_gt",
      .counted = "cudareduce",
      .results = RESULTS_PER_BUFFER,
      .exact = TRUE,
      .gpu = TRUE,
      .large = TRUE,
  },
  [TEE] = {
      .name = "cudareduce-tee3",
      .element = "tee name=t t. ! queue ! cudareduce monoid=sumsq ! "
                 "fakesink sync=false t. ! queue ! cudareduce monoid=minmax ! "
                 "fakesink sync=false t. ! queue ! cudareduce monoid=count_gt",
      .counted = "cudareduce",
      .results = RESULTS_PER_BUFFER,
      .exact = TRUE,
      .gpu = TRUE,
      .elements = 3,
      .large = TRUE,
  },
};

/* Where the fused element meets the tee, from the pool of the element
 * downstream of audiotestsrc. */
static const gsize large_sizes[] = { 1 * MIB, 4 * MIB };
#define N_LARGE G_N_ELEMENTS (large_sizes)

/* The ratios the issue sets targets for, of buffers per second. */
typedef struct {
  const gchar *name;
  guint numerator, denominator;
} StreamRatio;

enum {
  MESSAGES_LEVEL,
  CHANNELS_LEVEL,
  QUIET_IDENTITY,
  QUIET_LEVEL_BUFFER,
  QUIET_LEVEL_INTERVAL,
  WINDOW_INTERVAL,
  N_RATIOS
};

static const StreamRatio ratios[N_RATIOS] = {
  [MESSAGES_LEVEL] = { "cudareduce-messages / level-buffer", MESSAGES,
      LEVEL_BUFFER },
  [CHANNELS_LEVEL] = { "cudareduce-channels-100ms / level-100ms",
      CHANNELS_INTERVAL, LEVEL_INTERVAL },
  [QUIET_IDENTITY] = { "cudareduce-no-messages / identity", NO_MESSAGES,
      IDENTITY },
  [QUIET_LEVEL_BUFFER] = { "cudareduce-no-messages / level-buffer", NO_MESSAGES,
      LEVEL_BUFFER },
  [QUIET_LEVEL_INTERVAL] = { "cudareduce-no-messages / level-100ms",
      NO_MESSAGES, LEVEL_INTERVAL },
  [WINDOW_INTERVAL] = { "cudareduce-window-400ms / cudareduce-channels-100ms",
      CHANNELS_WINDOW, CHANNELS_INTERVAL },
};

static const struct {
  gsize bytes;
  guint ratio;
  gdouble at_least;
} targets[] = {
  { 4 * KIB, MESSAGES_LEVEL, 2.0 },
  { 4 * KIB, CHANNELS_LEVEL, 1.5 },
  { 4 * KIB, QUIET_IDENTITY, 0.5 },
  { 64 * KIB, QUIET_IDENTITY, 0.7 },
  { 64 * KIB, QUIET_LEVEL_BUFFER, 2.0 },
  { 64 * KIB, QUIET_LEVEL_INTERVAL, 2.0 },
  /* Issue 33: within 10% of tumbling intervals. */
  { 1 * KIB, WINDOW_INTERVAL, 0.9 },
  { 4 * KIB, WINDOW_INTERVAL, 0.9 },
  { 16 * KIB, WINDOW_INTERVAL, 0.9 },
  { 64 * KIB, WINDOW_INTERVAL, 0.9 },
};

#define LIVE_MEDIAN_TARGET_US 1000.0
#define LIVE_P99_TARGET_US 5000.0

struct StreamBench {
  gboolean cpu_only;
  gdouble rate[N_SIZES][N_CONFIGS]; /* buffers/s, NAN where not run */
  /* CPU time a buffer takes on each role's threads, us, over all runs. */
  gdouble cpu_us[N_SIZES][N_CONFIGS][N_THREAD_ROLES];
  gdouble large_rate[N_LARGE][2]; /* FUSED and TEE at large_sizes */
  gboolean have_live;
  LiveLatency live;
};

/* Stream runs */

typedef struct {
  const gchar *counted;
  guint64 warmup; /* the buffer that starts the window */
  guint64 buffers; /* and the one that ends it, the last */
  /* Written by fakesink's streaming thread, read after the run. */
  guint64 seen;
  GstClockTime start, end;
  ThreadTimes *cpu_start, *cpu_end; /* each thread's, at start and end */
  gint results; /* atomic: messages named counted */
} StreamRun;

static GstPadProbeReturn
on_arrival (GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  StreamRun *run = data;
  const guint64 before = run->seen;

  if (GST_PAD_PROBE_INFO_TYPE (info) & GST_PAD_PROBE_TYPE_BUFFER_LIST)
    run->seen += gst_buffer_list_length (GST_PAD_PROBE_INFO_BUFFER_LIST (info));
  else
    run->seen++;
  if (before < run->warmup && run->seen >= run->warmup) {
    run->cpu_start = thread_times_take ();
    run->start = gst_util_get_timestamp ();
  }
  if (before < run->buffers && run->seen >= run->buffers) {
    run->end = gst_util_get_timestamp ();
    run->cpu_end = thread_times_take ();
  }
  return GST_PAD_PROBE_OK;
}

static GstBusSyncReply
on_stream_message (GstBus *bus, GstMessage *msg, gpointer data)
{
  StreamRun *run = data;

  if (GST_MESSAGE_TYPE (msg) != GST_MESSAGE_ELEMENT || run->counted == NULL)
    return GST_BUS_PASS;
  const GstStructure *s = gst_message_get_structure (msg);
  if (s == NULL || !gst_structure_has_name (s, run->counted))
    return GST_BUS_PASS;
  g_atomic_int_inc (&run->results);
  gst_message_unref (msg);
  return GST_BUS_DROP;
}

/* How many messages @c should post for @buffers of @frames: for an
 * interval, the whole ones and the one under way at EOS. level, which is
 * not held to it, posts at EOS whatever it has, so one more. */
static guint64
expected_results (const StreamConfig *c, guint64 buffers, guint64 frames)
{
  const guint64 elements = MAX (c->elements, 1);
  switch (c->results) {
    case RESULTS_PER_BUFFER:
      return buffers * elements;
    case RESULTS_PER_INTERVAL:
      return (buffers * frames + INTERVAL_FRAMES - 1) / INTERVAL_FRAMES
          * elements;
    case RESULTS_NONE:
    default:
      return 0;
  }
}

/* One pipeline of @buffers, the first @warmup untimed; buffers/s, and the
 * window's length in *@secs. Where @cpu_ns is not NULL, each role's
 * threads' CPU time in the window is added to it. */
static gdouble
stream_run (const StreamConfig *c, gsize bytes, guint64 buffers, guint64 warmup,
    gdouble limit_s, gdouble *secs, gdouble cpu_ns[N_THREAD_ROLES])
{
  const guint64 frames = bytes / F32_STEREO_FRAME;
  g_autofree gchar *element = c->buffer_interval
      ? g_strdup_printf ("%s interval=%" G_GUINT64_FORMAT, c->element,
          gst_util_uint64_scale_ceil (frames, GST_SECOND, RATE))
      : g_strdup (c->element);
  g_autofree gchar *desc = g_strdup_printf (
      "audiotestsrc wave=silence samplesperbuffer=%" G_GUINT64_FORMAT
      " num-buffers=%" G_GUINT64_FORMAT " ! " F32_STEREO_CAPS
      " ! %s ! fakesink name=sink sync=false",
      frames, buffers, element);
  StreamRun run = {
    .counted = c->counted,
    .warmup = warmup,
    .buffers = buffers,
  };
  GstElement *pipeline = pipeline_launch (desc);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  GstBus *bus = gst_element_get_bus (pipeline);

  gst_pad_add_probe (pad,
      GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST, on_arrival,
      &run, NULL);
  gst_bus_set_sync_handler (bus, on_stream_message, &run, NULL);
  pipeline_play_to_eos (pipeline, desc, limit_s);
  gst_object_unref (bus);
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_object_unref (pipeline);

  if (run.seen != buffers)
    fail ("\"%s\": %" G_GUINT64_FORMAT
          " buffers reached fakesink, not %" G_GUINT64_FORMAT,
        desc, run.seen, buffers);
  const guint64 results = (guint)g_atomic_int_get (&run.results);
  const guint64 want = expected_results (c, buffers, frames);
  if (c->counted && results != want) {
    g_autofree gchar *what = g_strdup_printf (
        "\"%s\": %" G_GUINT64_FORMAT " %s messages for %" G_GUINT64_FORMAT
        " buffers, not %" G_GUINT64_FORMAT,
        desc, results, c->counted, buffers, want);
    if (c->exact)
      fail ("%s", what);
    if (results != want + 1)
      g_print ("          (%s)\n", what);
  }
  if (cpu_ns && run.cpu_start && run.cpu_end)
    thread_times_add_diff (run.cpu_start, run.cpu_end, cpu_ns);
  thread_times_free (run.cpu_start);
  thread_times_free (run.cpu_end);
  *secs = MAX (run.end - run.start, 1) * 1e-9;
  return (buffers - warmup) / *secs;
}

static gdouble
run_seconds (gdouble seconds)
{
  return seconds / 2;
}

/* Buffers for a run of about run_seconds, from a calibration run. */
static guint64
calibrate (const StreamConfig *c, gsize bytes, gdouble seconds, guint64 *warmup)
{
  gdouble rate = 0, secs = 0;

  /* A window of a tenth of a run at least: shorter ones misjudge the rate
   * (a scheduling hiccup is a large part of a few milliseconds). */
  const gdouble enough = MAX (CALIBRATION_S, run_seconds (seconds) / 10);
  for (guint64 n = CALIBRATION_BUFFERS;; n *= 10) {
    rate =
        stream_run (c, bytes, n, n / 8, 60 + 10 * (seconds + 1), &secs, NULL);
    if (secs >= enough || n >= 10000000)
      break;
  }
  const guint64 timed =
      MAX (TIMED_MIN, (guint64)(rate * run_seconds (seconds)));
  *warmup = MAX (WARMUP_MIN, timed / 10);
  return *warmup + timed;
}

/* Tables */

static gdouble
ratio_at (const StreamBench *b, guint size, guint ratio)
{
  return b->rate[size][ratios[ratio].numerator]
      / b->rate[size][ratios[ratio].denominator];
}

static void
print_tables (const StreamBench *b)
{
  g_print ("\nStream, buffers/s (median of %d runs):\n%-27s", REPEATS,
      "configuration");
  for (guint i = 0; i < N_SIZES; i++) {
    g_autofree gchar *label = size_label (sizes[i]);
    g_print (" %10s", label);
  }
  for (guint c = 0; c < N_CONFIGS; c++) {
    if (configs[c].large)
      continue;
    g_print ("\n%-27s", configs[c].name);
    for (guint i = 0; i < N_SIZES; i++)
      if (isnan (b->rate[i][c]))
        g_print (" %10s", "-");
      else
        g_print (" %10.0f", b->rate[i][c]);
  }
  g_print ("\n\nStream, ratios of buffers/s:\n%-40s", "ratio");
  for (guint i = 0; i < N_SIZES; i++) {
    g_autofree gchar *label = size_label (sizes[i]);
    g_print (" %7s", label);
  }
  for (guint r = 0; r < N_RATIOS; r++) {
    g_print ("\n%-40s", ratios[r].name);
    for (guint i = 0; i < N_SIZES; i++) {
      const gdouble v = ratio_at (b, i, r);
      if (isnan (v))
        g_print (" %7s", "-");
      else
        g_print (" %7.2f", v);
    }
  }
  g_print ("\n");
}

/* The CPU time a buffer took on each kind of thread. */
static void
print_cpu_table (const StreamBench *b)
{
  g_print ("\nHost CPU time per buffer, us, in the timed windows of the %d "
           "runs (each thread's scheduler time, by what it does):\n%-27s %6s",
      REPEATS, "configuration", "size");
  for (guint r = 0; r < N_THREAD_ROLES; r++)
    g_print (" %9s", thread_role_names[r]);
  g_print (" %9s\n", "all");
  for (guint c = 0; c < N_CONFIGS; c++)
    for (guint i = 0; i < N_SIZES; i++) {
      if (configs[c].large || isnan (b->cpu_us[i][c][0]))
        continue;
      g_autofree gchar *label = size_label (sizes[i]);
      gdouble all = 0;
      g_print ("%-27s %6s", configs[c].name, label);
      for (guint r = 0; r < N_THREAD_ROLES; r++) {
        g_print (" %9.2f", b->cpu_us[i][c][r]);
        all += b->cpu_us[i][c][r];
      }
      g_print (" %9.2f\n", all);
    }
}

/* The median buffers/s of @c at @bytes over REPEATS runs, printed. */
static gdouble
median_rate (const StreamConfig *c, gsize bytes, gdouble seconds)
{
  guint64 warmup = 0;
  const guint64 buffers = calibrate (c, bytes, seconds, &warmup);
  gdouble rates[REPEATS], sorted[REPEATS];
  for (guint rep = 0; rep < REPEATS; rep++) {
    gdouble secs = 0;
    rates[rep] = stream_run (
        c, bytes, buffers, warmup, 60 + 10 * (seconds + 1), &secs, NULL);
  }
  memcpy (sorted, rates, sizeof sorted);
  const gdouble rate = median (sorted, REPEATS);
  g_autofree gchar *label = size_label (bytes);
  g_print ("%8s  %-26s %10.0f buf/s  [", label, c->name, rate);
  for (guint k = 0; k < REPEATS; k++)
    g_print ("%s%.0f", k ? " " : "", rates[k]);
  g_print ("; %" G_GUINT64_FORMAT "]\n", buffers - warmup);
  return rate;
}

/* The fused element against the tee of its members, at large_sizes. */
static void
large_run (StreamBench *b, gdouble seconds)
{
  g_print ("\nThree statistics, one fused element against a tee into one "
           "element each:\n");
  for (guint i = 0; i < N_LARGE; i++) {
    const gdouble fused =
        median_rate (&configs[FUSED], large_sizes[i], seconds);
    const gdouble tee = median_rate (&configs[TEE], large_sizes[i], seconds);
    b->large_rate[i][0] = fused;
    b->large_rate[i][1] = tee;
    g_autofree gchar *label = size_label (large_sizes[i]);
    g_print ("%8s  fused / tee %.2f\n", label, fused / tee);
    csv_row ("stream", configs[FUSED].name, large_sizes[i],
        fused * large_sizes[i] * 1e-9, fused, NAN, fused / tee);
    csv_row ("stream", configs[TEE].name, large_sizes[i],
        tee * large_sizes[i] * 1e-9, tee, NAN, NAN);
  }
}

StreamBench *
stream_bench_run (gdouble seconds, gboolean cpu_only)
{
  StreamBench *b = g_new0 (StreamBench, 1);
  GstElementFactory *level = gst_element_factory_find ("level");
  GstElementFactory *source = gst_element_factory_find ("audiotestsrc");

  if (source == NULL)
    fail ("there is no audiotestsrc element (gst-plugins-base)");
  gst_object_unref (source);
  if (level == NULL && cpu_only)
    fail ("--cpu-only measures identity and level, and there is no level "
          "element (gst-plugins-good)");
  b->cpu_only = cpu_only;
  g_print ("\nStream: audiotestsrc wave=silence ! " F32_STEREO_CAPS
           " ! ELEMENT ! fakesink sync=false; buffers/s [the %d runs; timed "
           "buffers of each], runs of about %.2f s%s\n",
      REPEATS, run_seconds (seconds),
      level ? "" : "; no level element (gst-plugins-good), level left out");

  for (guint i = 0; i < N_SIZES; i++) {
    const gsize bytes = sizes[i];
    g_autofree gchar *label = size_label (bytes);
    gboolean run[N_CONFIGS];
    guint64 buffers[N_CONFIGS], warmup[N_CONFIGS];
    gdouble rates[N_CONFIGS][REPEATS];

    for (guint c = 0; c < N_CONFIGS; c++) {
      b->rate[i][c] = NAN;
      run[c] = !(configs[c].gpu && cpu_only) && !configs[c].large
          && !(g_str_has_prefix (configs[c].element, "level") && !level);
      if (run[c])
        buffers[c] = calibrate (&configs[c], bytes, seconds, &warmup[c]);
    }
    gdouble cpu_ns[N_CONFIGS][N_THREAD_ROLES] = { { 0 } };
    for (guint rep = 0; rep < REPEATS; rep++)
      for (guint c = 0; c < N_CONFIGS; c++) {
        gdouble secs = 0;
        if (run[c])
          rates[c][rep] = stream_run (&configs[c], bytes, buffers[c], warmup[c],
              60 + 10 * (seconds + 1), &secs, cpu_ns[c]);
      }
    for (guint c = 0; c < N_CONFIGS; c++)
      for (guint r = 0; r < N_THREAD_ROLES; r++)
        b->cpu_us[i][c][r] = run[c]
            ? cpu_ns[c][r] * 1e-3 / (REPEATS * (buffers[c] - warmup[c]))
            : NAN;
    for (guint c = 0; c < N_CONFIGS; c++) {
      if (!run[c])
        continue;
      gdouble sorted[REPEATS];
      memcpy (sorted, rates[c], sizeof sorted);
      b->rate[i][c] = median (sorted, REPEATS);
      g_print (
          "%8s  %-26s %10.0f buf/s  [", label, configs[c].name, b->rate[i][c]);
      for (guint k = 0; k < REPEATS; k++)
        g_print ("%s%.0f", k ? " " : "", rates[c][k]);
      g_print ("; %" G_GUINT64_FORMAT "]\n", buffers[c] - warmup[c]);
    }
    for (guint c = 0; c < N_CONFIGS; c++)
      if (run[c])
        csv_row ("stream", configs[c].name, bytes, b->rate[i][c] * bytes * 1e-9,
            b->rate[i][c], NAN, b->rate[i][c] / b->rate[i][IDENTITY]);
    for (guint c = 0; c < N_CONFIGS; c++)
      for (guint r = 0; run[c] && r < N_THREAD_ROLES; r++) {
        g_autofree gchar *source =
            g_strdup_printf ("%s/%s", configs[c].name, thread_role_names[r]);
        csv_cpu_row ("cpu", source, bytes, b->cpu_us[i][c][r]);
      }
  }
  print_tables (b);
  print_cpu_table (b);
  if (!cpu_only)
    large_run (b, seconds);
  live_latency_run (seconds, cpu_only, &b->live);
  b->have_live = TRUE;
  if (level)
    gst_object_unref (level);
  return b;
}

void
stream_bench_print_targets (const StreamBench *b)
{
  g_print ("\nStream targets (ratios of buffers/s):\n");
  for (guint t = 0; t < G_N_ELEMENTS (targets); t++) {
    guint i = 0;
    while (sizes[i] != targets[t].bytes)
      i++;
    g_autofree gchar *label = size_label (sizes[i]);
    const gdouble v = ratio_at (b, i, targets[t].ratio);
    gchar measured[16] = "-";
    if (!isnan (v))
      g_snprintf (measured, sizeof measured, "%.2f", v);
    g_print ("  %6s  %-52s %7s  >= %.1f  %s\n", label,
        ratios[targets[t].ratio].name, measured, targets[t].at_least,
        isnan (v)                      ? "not measured"
            : v >= targets[t].at_least ? "met"
                                       : "MISSED");
  }
  if (!b->cpu_only) {
    /* large_sizes[1] is 4 MiB. */
    const gdouble v = b->large_rate[1][0] / b->large_rate[1][1];
    g_print ("  %6s  %-52s %7.2f  >= 2.5  %s\n", "4 MiB",
        "cudareduce-fused3 / cudareduce-tee3", v,
        isnan (v)      ? "not measured"
            : v >= 2.5 ? "met"
                       : "MISSED");
  }
  if (!b->have_live)
    return;
  g_print ("Live targets (%s, 10 ms buffers, arrival to result):\n"
           "  median %8.1f us  < %.0f us  %s\n"
           "  p99    %8.1f us  < %.0f us  %s\n",
      b->live.name, b->live.median_us, LIVE_MEDIAN_TARGET_US,
      b->live.median_us < LIVE_MEDIAN_TARGET_US ? "met" : "MISSED",
      b->live.p99_us, LIVE_P99_TARGET_US,
      b->live.p99_us < LIVE_P99_TARGET_US ? "met" : "MISSED");
}

void
stream_bench_free (StreamBench *b)
{
  g_free (b);
}
