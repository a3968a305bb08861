/* cr-test-util.h: what the tests share. */
#pragma once

#include "cr-monoid-names.h"
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

/* NULL where cudareduce takes CUDA memory (memory:CUDAMemory caps) and
 * nvcodec's cudaupload exists; otherwise why not. */
const gchar *cr_test_cuda_memory_missing (void);
/* The GstCudaContext (a new reference) with which the element named @name
 * in @pipeline answers a gst.cuda.context query; fails if none. */
GObject *cr_test_cuda_context_of (GstElement *pipeline, const gchar *name);

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

/* The name ("int8", ..., "float64") and size in bytes of @type, as
 * docs/element.md gives them, written independently of cr-types.c. */
const gchar *cr_test_type_name (CrType type);
gsize cr_test_type_size (CrType type);

/* How long a test waits for a message the element posts. */
#define CR_TEST_WAIT (60 * GST_SECOND)
/* The first error message on the harness's bus, or NULL. */
GstMessage *cr_test_pop_error (GstHarness *h);

/* @n random elements of @type (as cr_test_fill_random), in memory the
 * caller frees with g_free. */
guint8 *cr_test_random_elements (GRand *rand, CrType type, gsize n);

/* Caps of interleaved audio. */
GstCaps *cr_test_audio_caps (const gchar *format, gint rate, guint channels);

/* Caps of video at @fps_n/1 frames a second. */
GstCaps *cr_test_video_caps (
    const gchar *format, gint width, gint height, gint fps_n);

/* Caps of a one-tensor stream of @rows rows of @channels elements of
 * @type; one row is the 1-D tensor "C". */
GstCaps *cr_test_tensor_rows_caps (CrType type, guint channels, guint64 rows);

/* Fails unless @s has the guint64 @field equal to @want. */
void cr_test_check_time (const GstStructure *s, const gchar *field,
    GstClockTime want, const gchar *what);

/* A buffer over @size bytes at @data, without copying them: its memory
 * starts where @data does, on a 16-byte boundary or not. @data must
 * outlive the buffer. */
GstBuffer *cr_test_wrap (gconstpointer data, gsize size);

/* Pushes @buf (taken); fails unless the push returns GST_FLOW_OK, with the
 * element's error message where it posted one. */
void cr_test_push_ok (GstHarness *h, GstBuffer *buf, const gchar *what);

/* Pushes @buf (taken) stamped @pts and waits for its result, which must
 * carry that timestamp. */
GstStructure *cr_test_push_for_result (
    GstHarness *h, GstBuffer *buf, GstClockTime pts, const gchar *what);

/* Message mode: the next buffer out is the input, @size bytes at @data. */
void cr_test_expect_passthrough (
    GstHarness *h, const guint8 *data, gsize size, const gchar *what);

/* Pushes EOS, then returns every result on the bus (GstStructures, in
 * order); fails on an error message. */
GPtrArray *cr_test_results_after_eos (GstHarness *h, const gchar *what);

/* Pushes @buf (taken), which must be refused with a stream format error;
 * then EOS, after which no result may have been posted. */
void cr_test_expect_refused (GstHarness *h, GstBuffer *buf, const gchar *what);

/* Sets GST_CUDAREDUCE_CHUNK_BYTES to @bytes, or with NULL puts it back as
 * it was before the first call. */
void cr_test_set_chunk_bytes (const gchar *bytes);

/* A new empty directory (mode 0700) in the temporary directory, named
 * @prefix and a random suffix; and its removal with what it holds (links
 * removed, not followed). */
gchar *cr_test_make_dir (const gchar *prefix);
void cr_test_remove_dir (const gchar *dir);
/* The paths of the files in @dir whose names end in @suffix. */
GPtrArray *cr_test_files_ending (const gchar *dir, const gchar *suffix);

/* From this call on, the engine's debug lines (GLib log domain cudareduce),
 * one per line, in a string that the next call empties. */
const GString *cr_test_keep_engine_debug (void);

/* Counts the element's batch launches from its debug log ("launching a
 * batch of N reductions") from start to stop: the launches of more than
 * one, and the reductions in all; the default log handler is off
 * between. */
void cr_test_count_batches_start (void);
void cr_test_count_batches_stop (guint *batches, guint *gathered);

/* Runs @body (@data) in a child process whose address space may grow by at
 * most @bytes, so that a test of input that once made huge allocations
 * fails (the child aborts) instead of taking the machine's memory, in
 * check's forked and unforked modes alike. @body returns NULL when it
 * passes, else why not (it must not use check's asserts). Returns the
 * same, or how the child ended; g_free it. */
typedef gchar *(*CrTestBody) (gconstpointer data);
gchar *cr_test_run_bounded (CrTestBody body, gconstpointer data, gsize bytes);

G_END_DECLS
