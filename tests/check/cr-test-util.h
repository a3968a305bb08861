/* cr-test-util.h: what the tests share. */
#pragma once

#include "cr-monoid.h"
#include "cr-types.h"

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

G_BEGIN_DECLS

/* Exit status Meson reports as SKIP. */
#define CR_TEST_SKIP 77

/* For GPU test programs, before running their suite: returns normally when
 * a GPU can be opened; otherwise exits with CR_TEST_SKIP, or fails (exit 1)
 * when CUDAREDUCE_REQUIRE_GPU=1. */
void cr_test_require_gpu (void);

/* Likewise for NVRTC (CUDAREDUCE_REQUIRE_NVRTC=1 turns a skip into a failure). */
void cr_test_require_nvrtc (void);

/* A generator seeded from the clock, or from CUDAREDUCE_TEST_SEED; the seed
 * is printed so a failure can be replayed. */
GRand *cr_test_rand (void);

/* Fills @n elements of @type at @data with random values spread over most
 * of the type's range (floats in [-1000, 1000)). */
void cr_test_fill_random (GRand *rand, CrType type, gpointer data, gsize n);

/* Reads element @k of @type at @data as a double / int64 / uint64. */
gdouble cr_test_get_double (CrType type, gconstpointer data, gsize k);
gint64 cr_test_get_int64 (CrType type, gconstpointer data, gsize k);
guint64 cr_test_get_uint64 (CrType type, gconstpointer data, gsize k);

/* Caps of a one-tensor stream of @n elements of @type. */
GstCaps *cr_test_tensor_caps (CrType type, gsize n);

/* A harness around a new cudareduce with @props applied
 * ("monoid", "sum", ..., NULL) and input caps @caps (taken). */
GstHarness *cr_test_harness (
    GstCaps *caps, const gchar *first_prop, ...) G_GNUC_NULL_TERMINATED;

/* Pops element messages named "cudareduce" from the harness's bus, in order;
 * fails the test on an error message. */
GstStructure *cr_test_pop_result (GstHarness *h);

/* The GType a result field of @type has in a message, as docs/element.md
 * specifies it, written independently of the element's own mapping. */
GType cr_test_posted_gtype (CrType type);

/* How long a test waits for a message the element posts. */
#define CR_TEST_WAIT (60 * GST_SECOND)
/* The first error message on the harness's bus, or NULL. */
GstMessage *cr_test_pop_error (GstHarness *h);

G_END_DECLS
