/* bench-threads.h: the CPU time of each thread of this process, for the
 * host cost a buffer takes on each of the pipeline's threads. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* What a thread does, from its name: the roles a stream's threads have. */
typedef enum {
  THREAD_STREAMING, /* upstream's streaming thread, which calls the element */
  THREAD_RESULTS, /* cudareduce's results thread */
  THREAD_SRC_TASK, /* cudareduce's source pad task, which pushes */
  THREAD_OTHER, /* the rest: the application, the bus, a watchdog */
  N_THREAD_ROLES
} ThreadRole;

extern const gchar *const thread_role_names[N_THREAD_ROLES];

/* Every thread's CPU time (ns, as the kernel accounts it) at one moment. */
typedef struct _ThreadTimes ThreadTimes;

/* Takes them now: safe from any thread, a few microseconds a thread. */
ThreadTimes *thread_times_take (void);
void thread_times_free (ThreadTimes *t);

/* The CPU time each role's threads spent from @start to @end, in ns, added
 * to @ns. A thread that began after @start counts from 0; one that ended
 * before @end is missed (a stream's threads live through the run). */
void thread_times_add_diff (const ThreadTimes *start, const ThreadTimes *end,
    gdouble ns[N_THREAD_ROLES]);

G_END_DECLS
