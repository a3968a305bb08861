/* cr-upgrade.c: the optimized image, compiled on a thread of its own. */
#include "cr-upgrade.h"

#include <pthread.h>
#include <stdlib.h>

/* Compiles still running. A process that exits runs its libraries'
 * destructors, NVRTC's among them, while other threads go on: one inside
 * NVRTC then crashes. So exit waits for them (at most one compile's time,
 * whose image then reaches the cache for the next start). */
static GMutex running_lock;
static GCond running_cond;
static guint running;

static void
wait_for_compiles (void)
{
  g_mutex_lock (&running_lock);
  while (running > 0)
    g_cond_wait (&running_cond, &running_lock);
  g_mutex_unlock (&running_lock);
}

/* A child of fork() has none of its parent's threads. */
static void
forget_compiles (void)
{
  running = 0;
}

static void
count_compile (gint delta)
{
  static gsize hooked;
  if (g_once_init_enter (&hooked)) {
    atexit (wait_for_compiles);
    pthread_atfork (NULL, NULL, forget_compiles);
    g_once_init_leave (&hooked, 1);
  }
  g_mutex_lock (&running_lock);
  running += delta;
  if (running == 0)
    g_cond_broadcast (&running_cond);
  g_mutex_unlock (&running_lock);
}

struct _CrUpgrade {
  gint refs; /* the thread's and the owner's */
  gchar *source;
  gint arch;
  GMutex lock;
  GCond done_cond;
  gint done; /* read without the lock */
  CrCompiled *compiled; /* until taken */
};

static void
upgrade_unref (CrUpgrade *u)
{
  if (!g_atomic_int_dec_and_test (&u->refs))
    return;
  cr_compiled_free (u->compiled);
  g_free (u->source);
  g_mutex_clear (&u->lock);
  g_cond_clear (&u->done_cond);
  g_free (u);
}

static gpointer
compile_thread (gpointer data)
{
  CrUpgrade *u = data;
  g_autoptr (GError) error = NULL;
  g_autofree gchar *log = NULL;
  g_autoptr (GTimer) timer = g_timer_new ();
  CrCompiled *c =
      cr_compile (u->source, u->arch, CR_COMPILE_DEFAULT, &log, &error);
  /* The fast image compiled, so this one should: a failure leaves the
   * reducer on the fast one, which works. */
  if (c == NULL)
    g_debug ("the optimized kernels did not compile: %s", error->message);
  else
    g_debug ("the optimized kernels compiled in %.0f ms",
        g_timer_elapsed (timer, NULL) * 1000);
  g_mutex_lock (&u->lock);
  u->compiled = c;
  g_atomic_int_set (&u->done, TRUE);
  g_cond_broadcast (&u->done_cond);
  g_mutex_unlock (&u->lock);
  upgrade_unref (u);
  count_compile (-1);
  return NULL;
}

CrUpgrade *
cr_upgrade_start (const gchar *source, gint arch)
{
  CrUpgrade *u = g_new0 (CrUpgrade, 1);
  u->refs = 2;
  u->source = g_strdup (source);
  u->arch = arch;
  g_mutex_init (&u->lock);
  g_cond_init (&u->done_cond);
  g_autoptr (GError) why = NULL;
  count_compile (1);
  GThread *thread =
      g_thread_try_new ("cudareduce-compile", compile_thread, u, &why);
  if (thread == NULL) {
    count_compile (-1);
    g_debug ("no thread to compile the optimized kernels on: %s", why->message);
    u->refs = 1;
    upgrade_unref (u);
    return NULL;
  }
  g_thread_unref (thread);
  return u;
}

CrCompiled *
cr_upgrade_take (CrUpgrade *u)
{
  /* Asked before every launch: no lock while it runs. */
  if (!g_atomic_int_get (&u->done))
    return NULL;
  g_mutex_lock (&u->lock);
  CrCompiled *c = g_steal_pointer (&u->compiled);
  g_mutex_unlock (&u->lock);
  return c;
}

void
cr_upgrade_wait (CrUpgrade *u)
{
  g_mutex_lock (&u->lock);
  while (!u->done)
    g_cond_wait (&u->done_cond, &u->lock);
  g_mutex_unlock (&u->lock);
}

void
cr_upgrade_drop (CrUpgrade *u)
{
  if (u)
    upgrade_unref (u);
}
