/* cr-test-leaks.h: objects a test made and left alive, from GStreamer's
 * leaks tracer (GST_TRACERS=leaks), which the CPU suite runs under. */
#pragma once

#include <gst/check/gstcheck.h>

G_BEGIN_DECLS

/* The leaks tracer, when GST_TRACERS names it; NULL otherwise. */
GstTracer *cr_test_leaks_tracer (void);

/* Starts (or starts over) @tracer's record of the objects made and freed,
 * and returns an empty table for cr_test_update_alive. */
GHashTable *cr_test_track_objects (GstTracer *tracer);

/* Brings @alive ("type address" -> how many) up to date with the objects
 * @tracer saw made and freed since its last checkpoint. The tracer names
 * objects without holding them. */
void cr_test_update_alive (GstTracer *tracer, GHashTable *alive);

/* Under the leaks tracer, fails each test of @tc that leaves alive an
 * object it made, other than the caps, pad templates and other objects
 * that GStreamer keeps for the whole process. Does nothing without it. */
void cr_test_check_objects (TCase *tc);

G_END_DECLS
