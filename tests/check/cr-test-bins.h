/* cr-test-bins.h: the CPU reference of monoids with bins: values counted in
 * even bins as docs/element.md defines them, read back from results, and
 * percentiles of counts. */
#pragma once

#include "cr-test-video.h"

G_BEGIN_DECLS

/* Rows of interleaved channels, in lines of per_line rows stride bytes
 * apart (per_line 0: one line). */
typedef struct {
  const guint8 *data;
  guint channels;
  guint64 rows;
  guint64 per_line;
  gsize stride;
} CrTestSpan;

/* How values find their bins, as docs/element.md defines it. */
typedef struct {
  CrType type;
  guint bins;
  gdouble lo, hi;
} CrTestBinning;

/* A channel's counts: the bins, then below, above and NaN. */
#define CR_TEST_SLOTS(b) ((b)->bins + 3)

/* Integer types: the whole range unless one is chosen (lo == hi == 0). */
CrTestBinning cr_test_binning (CrType type, guint bins, gdouble lo, gdouble hi);

/* The slot of element @k at @data: its bin, or bins (below), bins + 1
 * (above), bins + 2 (NaN). */
guint cr_test_slot_of (const CrTestBinning *b, gconstpointer data, gsize k);

/* Adds @s's channel @c (every channel when @c < 0) to @slots. */
void cr_test_count_span (
    const CrTestBinning *b, const CrTestSpan *s, gint c, guint64 *slots);

/* Adds the frame @f's component @comp (every component for -1) to
 * @slots. */
void cr_test_count_frame (
    const CrTestBinning *b, const CrTestFrame *f, gint comp, guint64 *slots);

/* The span of component @c of the frame @f, whose samples are @type. */
CrTestSpan cr_test_frame_span (const CrTestFrame *f, guint c, CrType type);

/* Fails unless value @v of result @s (of @n values, 0: not per channel)
 * counts what @want does. */
void cr_test_check_slots (const GstStructure *s, const CrTestBinning *b,
    guint n, guint v, const guint64 *want, const gchar *what);

/* Field @name of result @s for value @v of @n (0: not per channel). */
const GValue *cr_test_value_of (
    const GstStructure *s, const gchar *name, guint n, guint v);

/* A 2-D histogram's counts (@b's bins along each axis): bins x bins
 * (the first value's bin, then the second's), below, above and NaN. */
#define CR_TEST_PAIR_SLOTS(b) ((b)->bins * (b)->bins + 3)

/* Adds the pairs of the rows of @x's channel @cx and @y's channel @cy
 * (spans of as many rows) to @slots, as docs/element.md defines them: NaN
 * when either is NaN, else below when either is below, else above. */
void cr_test_count_pairs (const CrTestBinning *b, const CrTestSpan *x, guint cx,
    const CrTestSpan *y, guint cy, guint64 *slots);

/* The slot of a pair whose values have the slots @sx and @sy along
 * each axis, as cr_test_count_pairs counts it. */
guint cr_test_pair_slot (const CrTestBinning *b, guint sx, guint sy);

/* Fails unless result @s holds the 2-D histogram @want: an array of bins
 * arrays of bins counts, below, above and nan, and a count of all. */
void cr_test_check_pairs (const GstStructure *s, const CrTestBinning *b,
    const guint64 *want, const gchar *what);

/* The value percentile @p reports of @slots, as docs/element.md defines
 * it: the lowest value of the bin in which the count from below reaches
 * max (1, round (p * n)), n the values not NaN; -inf, inf or NaN as it
 * says. @bin_value gives a bin's lowest value. */
gdouble cr_test_percentile (const CrTestBinning *b, const guint64 *slots,
    gdouble p, gdouble (*bin_value) (const CrTestBinning *b, guint k));

/* The lowest value of even bin @k, as docs/element.md gives it. */
gdouble cr_test_bin_value (const CrTestBinning *b, guint k);
/* The value of bin @k of a Bin body: k. */
gdouble cr_test_bin_index (const CrTestBinning *b, guint k);

/* @n random values of @type: 64-bit integers within +-2^53 (where a range
 * can be given), floats with some NaN. */
guint8 *cr_test_random_binned (GRand *rand, CrType type, gsize n);

G_END_DECLS
