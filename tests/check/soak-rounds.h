/* soak-rounds.h: gpu-soak's input and what it expects of it.
 *
 * A round is a run of buffers of one lane with one set of caps, one monoid
 * and one mode (what only READY allows changing), made of fresh random
 * data; it ends by going on into the next round, by a flushing seek or a
 * state change, or with EOS. From a round come the results it must give
 * (Expect), in order, on each of a lane's two streams: the bus and what
 * the element pushes. check_message and check_buffer compare one result
 * with a CPU reference. test-gpu-soak.c drives the lanes. */
#pragma once

#include "cr-test-input.h"

/* Round r's timestamps start at (r + 1) x ROUND_SPAN: a result names its
 * round. */
#define ROUND_SPAN (100 * GST_SECOND)
#define MAX_CHANNELS 8

/* The test's random numbers (cr_test_rand, so CUDAREDUCE_TEST_SEED
 * repeats a run). */
extern GRand *soak_rand;

typedef enum {
  M_SUM,
  M_MINMAX,
  M_MEAN_VAR,
  M_COUNT_GT,
  M_INLINE,
  N_MONOIDS
} SoakMonoid;

typedef enum { KIND_AUDIO, KIND_VIDEO, KIND_TENSOR, N_KINDS } LaneKind;

typedef enum { END_CONTINUE, END_FLUSH, END_RESTART, END_EOS } RoundEnd;

/* What only READY allows changing. */
typedef struct {
  gboolean per_channel, tensor;
  GstClockTime interval;
  guint depth;
} Mode;

/* A round's rows (audio frames, pixels, tensor rows) of channels elements
 * lie one after another in data; buffer k holds rows starts[k] to
 * starts[k + 1]. */
typedef struct {
  gint ref;
  guint index;
  GstClockTime base;
  CrType type;
  guint channels;
  gint rate; /* audio; 0 otherwise */
  GstClockTime buf_duration; /* video and tensors */
  GstCaps *caps;
  guint8 *data;
  guint n_buffers;
  guint64 *starts;
  SoakMonoid monoid;
  gdouble threshold[2];
  guint threshold_at; /* buffers from here on: threshold[1] */
  RoundEnd end;
  /* Ended, or a later round of the lane ended, by a flushing seek or a
   * state change while its buffers were still in flight (queued in appsrc,
   * say): it may lose the tail of its results. */
  gboolean cut;
  guint cut_at; /* buffers pushed */
  gint pause_at; /* pause after this buffer; -1: never */
  Mode mode;
  gchar *name;
} Round;

typedef enum { STREAM_MESSAGES, STREAM_OUT, N_STREAMS } Stream;

typedef struct {
  Round *round;
  gboolean passthrough; /* a buffer passed on, not a result */
  GstClockTime ts, duration;
  guint64 first_row, rows;
  gdouble threshold;
} Expect;

extern const gchar *const monoid_names[N_MONOIDS];
extern const gchar *const kind_names[N_KINDS];
extern const gchar *const end_names[4];

/* Called in the streaming thread just before the buffer it applies to, so
 * the element sees the whole change from that buffer on. */
void apply_monoid (GstElement *reduce, SoakMonoid m);

/* A new round of lane kind @kind in @mode; @last: it must end with EOS. */
Round *round_new (LaneKind kind, guint index, const Mode *mode, gboolean last);
Round *round_ref (Round *r);
void round_unref (Round *r);
GstClockTime buffer_pts (const Round *r, guint k);
GstClockTime buffer_duration (const Round *r, guint k);
/* Buffer @k of the round, a copy of its data, stamped. */
GstBuffer *round_buffer (const Round *r, guint k);

/* Appends what round @r gives on each of the N_STREAMS queues. */
void expect_round (GQueue *streams, Round *r);
void expect_free (Expect *e);

/* A result message: timestamps, name, count, channels and values. */
void check_message (const Expect *e, const GstStructure *s, const gchar *what);
/* A tensor buffer (output=tensor) or a buffer passed through. */
void check_buffer (const Expect *e, GstBuffer *buf, const gchar *what);
