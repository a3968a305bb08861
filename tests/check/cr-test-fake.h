/* cr-test-fake.h: what the tests of the element against the fake driver
 * (tests/check/fake-cuda.c, with fake-nvrtc.c) share. */
#pragma once

#include "cr-test-util.h"

G_BEGIN_DECLS

#define CR_FAKE_RATE 48000
#define MS (GST_MSECOND)

/* A buffer of @frames stereo F32 frames at CR_FAKE_RATE stamped @pts, its
 * duration set. */
GstBuffer *cr_fake_audio_buffer (guint frames, GstClockTime pts);
/* @s's guint64 @field, which must be there. */
guint64 cr_fake_get_uint64 (const GstStructure *s, const gchar *field);
/* The error the element posted: of @domain and @code, its message
 * mentioning each of the NULL-terminated strings. */
void cr_fake_expect_error (
    GstHarness *h, GQuark domain, gint code, const gchar *first, ...);
/* Starting @e (taken) fails with an error of @domain and @code, its
 * message mentioning @m1 and @m2 (unless NULL), and no CUDA context is
 * left. */
void cr_fake_expect_start_error (
    GstElement *e, GQuark domain, gint code, const gchar *m1, const gchar *m2);
/* No result message left on the bus. */
void cr_fake_expect_no_result (GstHarness *h);
/* A case's start (a checked fixture): the fake as the environment leaves
 * it, one GPU that answers at once and fails nothing. */
void cr_fake_reset (void);
/* Whether the case runs unforked (CK_FORK=no), said for @test: what a
 * fault or a kernel that never ends breaks stays with the process. */
gboolean cr_fake_unforked (const gchar *test);
/* The CUDA contexts the fake driver has made and not destroyed. */
gint cr_fake_live_contexts (void);
/* Tears @h down, its bus flushed, and checks that no context is left. */
void cr_fake_teardown (GstHarness *h);
/* Plays @p until EOS, failing on an error; its cudareduce results in
 * order, each with the posting element's name as "element". */
GPtrArray *cr_fake_play_to_eos (GstElement *p, const gchar *what);

G_END_DECLS
