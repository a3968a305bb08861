/* bench-threads.c: see bench-threads.h. */
#include "bench-threads.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

const gchar *const thread_role_names[N_THREAD_ROLES] = { "streaming", "results",
  "src-task", "other" };

typedef struct {
  gint tid;
  ThreadRole role;
  guint64 ns;
} ThreadTime;

struct _ThreadTimes {
  GArray *threads; /* ThreadTime */
};

/* Linux's CPU clock of any thread of the process, by its id: what glibc's
 * pthread_getcpuclockid makes, for threads this code has no pthread_t of
 * (GStreamer's). The thread's scheduler time, in ns. */
static clockid_t
thread_clock (gint tid)
{
  return (clockid_t)((~(guint)tid) << 3) | 6; /* CPUCLOCK_SCHED, per thread */
}

/* GStreamer names a pad's task "element:pad" (audiotestsrc0:src, cut to
 * 15 characters); cudareduce names its results thread. */
static ThreadRole
role_of (const gchar *name)
{
  if (g_str_has_prefix (name, "cudareduce-res"))
    return THREAD_RESULTS;
  if (g_str_has_prefix (name, "cudareduce") && strchr (name, ':'))
    return THREAD_SRC_TASK;
  if (g_str_has_prefix (name, "audiotestsrc"))
    return THREAD_STREAMING;
  return THREAD_OTHER;
}

ThreadTimes *
thread_times_take (void)
{
  ThreadTimes *t = g_new0 (ThreadTimes, 1);
  t->threads = g_array_new (FALSE, FALSE, sizeof (ThreadTime));
  GDir *dir = g_dir_open ("/proc/self/task", 0, NULL);
  const gchar *entry;
  while (dir && (entry = g_dir_read_name (dir)) != NULL) {
    ThreadTime th = { .tid = atoi (entry) };
    g_autofree gchar *path = g_strdup_printf ("/proc/self/task/%s/comm", entry);
    g_autofree gchar *name = NULL;
    struct timespec cpu;
    if (!g_file_get_contents (path, &name, NULL, NULL)
        || clock_gettime (thread_clock (th.tid), &cpu) != 0)
      continue; /* it ended meanwhile */
    th.role = role_of (g_strstrip (name));
    th.ns = (guint64)cpu.tv_sec * 1000000000u + cpu.tv_nsec;
    g_array_append_val (t->threads, th);
  }
  if (dir)
    g_dir_close (dir);
  return t;
}

void
thread_times_free (ThreadTimes *t)
{
  if (t == NULL)
    return;
  g_array_unref (t->threads);
  g_free (t);
}

void
thread_times_add_diff (const ThreadTimes *start, const ThreadTimes *end,
    gdouble ns[N_THREAD_ROLES])
{
  for (guint k = 0; k < end->threads->len; k++) {
    const ThreadTime *e = &g_array_index (end->threads, ThreadTime, k);
    guint64 before = 0;
    for (guint j = 0; j < start->threads->len; j++) {
      const ThreadTime *s = &g_array_index (start->threads, ThreadTime, j);
      if (s->tid == e->tid) {
        before = s->ns;
        break;
      }
    }
    ns[e->role] += (gdouble)(e->ns - MIN (before, e->ns));
  }
}
