/* cr-test-ref.h: what per-channel and interval results should be, computed
 * on the CPU independently of the element, and the checks of the element's
 * messages and tensors against it. */
#pragma once

#include "cr-test-util.h"

G_BEGIN_DECLS

/* The built-in monoids: their result fields, as the files in monoids/
 * declare them. */

typedef enum {
  CR_TEST_SUM,
  CR_TEST_SUMSQ,
  CR_TEST_MIN,
  CR_TEST_MAX,
  CR_TEST_MINMAX,
  CR_TEST_ABSMAX,
  CR_TEST_ARGMAX,
  CR_TEST_COUNT_GT,
  CR_TEST_MEAN_VAR,
} CrTestMonoidId;

/* The type of a result field, given the input type. */
typedef enum {
  CR_TEST_FIELD_IN, /* the input type */
  CR_TEST_FIELD_WIDE, /* int64, uint64 or float64, as the input is */
  CR_TEST_FIELD_UINT64,
  CR_TEST_FIELD_FLOAT64,
} CrTestFieldKind;

typedef struct {
  const gchar *name;
  CrTestFieldKind kind;
} CrTestField;

typedef struct {
  CrTestMonoidId id;
  const gchar *name;
  guint n_fields;
  CrTestField fields[2];
} CrTestMonoid;

extern const CrTestMonoid cr_test_monoid_sum;
extern const CrTestMonoid cr_test_monoid_sumsq;
extern const CrTestMonoid cr_test_monoid_min;
extern const CrTestMonoid cr_test_monoid_max;
extern const CrTestMonoid cr_test_monoid_minmax;
extern const CrTestMonoid cr_test_monoid_absmax;
extern const CrTestMonoid cr_test_monoid_argmax;
extern const CrTestMonoid cr_test_monoid_count_gt;
extern const CrTestMonoid cr_test_monoid_mean_var;

/* The monoids a sweep runs on every buffer: sum, minmax, argmax and
 * mean_var. */
extern const CrTestMonoid *const cr_test_swept_monoids[4];

/* The one named @name; NULL if none. */
const CrTestMonoid *cr_test_monoid_named (const gchar *name);

/* The built-ins that count bins, whose results are not scalars: checked
 * against their own reference in test-gpu-histogram.c (vectorscope in
 * test-gpu-pairs.c). NULL-terminated. */
extern const gchar *const cr_test_binned_monoids[4];

/* Every built-in monoid with scalar results (CrTestMonoid pointers, in the
 * order of cr_monoid_builtin_names ()); fails when a built-in has no
 * reference here or in cr_test_binned_monoids, or a reference here no
 * built-in. */
GPtrArray *cr_test_builtin_monoids (void);

/* How the element under test is set up; the checks need to know it too. */
typedef struct {
  const CrTestMonoid *monoid;
  gboolean per_channel;
  GstClockTime interval; /* 0: one result per buffer */
  gboolean tensor; /* output=tensor; otherwise output=message */
  GstClockTime window; /* 0: tumbling intervals */
} CrTestReduce;

/* A harness around a new cudareduce set up as @reduce says, with input caps
 * @caps (taken). */
GstHarness *cr_test_reduce_harness (GstCaps *caps, const CrTestReduce *reduce);

/* A span is rows of interleaved channels: audio frames, pixels, tensor rows
 * (or single elements, for a result over everything). Video rows come in
 * lines of per_line rows, stride bytes apart; per_line 0 is one line. */
typedef struct {
  const guint8 *data;
  guint channels; /* elements per row */
  guint64 rows;
  guint64 per_line;
  gsize stride;
} CrTestSpan;

/* What a result over some spans, one after another, should be, for the
 * first components channels of each row. Over no rows at all each monoid
 * gives its identity (finalized: mean and variance 0). */
typedef struct _CrTestRef CrTestRef;

CrTestRef *cr_test_ref_new (CrType type, guint components);
void cr_test_ref_free (CrTestRef *ref);
/* count_gt's threshold (the element's threshold property): 0 unless set
 * here, before any rows are added. */
void cr_test_ref_set_threshold (CrTestRef *ref, gdouble threshold);
/* Appends @span's rows; its data must outlive @ref. */
void cr_test_ref_add (CrTestRef *ref, const CrTestSpan *span);
/* A new reference over @span alone. */
CrTestRef *cr_test_ref_of_span (
    CrType type, guint components, const CrTestSpan *span);

/* A result message of @m against @ref: name, count, channels and values.
 * @count: elements reduced; per channel, over the reported channels. */
void cr_test_check_message (const GstStructure *s, const CrTestMonoid *m,
    const CrTestRef *ref, gboolean per_channel, guint64 count,
    const gchar *what);

/* What in the values of result @s of @m disagrees with @ref ("channel 0:
 * sum ..., reference ..."), or NULL when none does. A field that is
 * missing or of the wrong type fails the test. How close a value must be:
 * integers, min, max and argmax exactly (argmax's index is the first row
 * holding the maximum); float sums within 1e-10 of the sum of |x| (of x^2
 * for sumsq), mean within 1e-10 of |mean| plus 1e-11 of the largest |x|,
 * variance within 1e-9 of itself plus 1e-14 of the largest x^2. */
gchar *cr_test_result_mismatch (const GstStructure *s, const CrTestMonoid *m,
    const CrTestRef *ref, gboolean per_channel);

/* Tensor output: the caps on the source pad, @n values per field of @m for
 * input of @in, at @fps_n/@fps_d... */
void cr_test_check_tensor_caps (GstHarness *h, const CrTestMonoid *m, CrType in,
    guint n, gint fps_n, gint fps_d, const gchar *what);

/* ...and one output buffer. @duration NONE: not checked. */
void cr_test_check_tensor_buffer (GstBuffer *buf, const CrTestMonoid *m,
    const CrTestRef *ref, GstClockTime pts, GstClockTime duration,
    const gchar *what);

/* One expected result of a stream. */
typedef struct {
  GstClockTime ts, duration;
  guint64 count;
  CrTestRef *ref;
  gchar *what;
} CrTestExpected;

void cr_test_expected_free (CrTestExpected *e);
/* An array of CrTestExpected that frees them. */
GPtrArray *cr_test_expected_new (void);

/* @results (GstStructures), in order, are @expected: timestamps, durations
 * and values. */
void cr_test_check_results (GPtrArray *results, GPtrArray *expected,
    const CrTestMonoid *m, gboolean per_channel, const gchar *what);

/* Tensor mode: one buffer per expected result, stamped as it, and no
 * more. */
void cr_test_check_tensor_results (GstHarness *h, GPtrArray *expected,
    const CrTestMonoid *m, const gchar *what);

G_END_DECLS
