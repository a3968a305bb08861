/* cr-upgrade.c: the optimized image, compiled on a thread of its own. */
#include "cr-upgrade.h"

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
  GThread *thread =
      g_thread_try_new ("cudareduce-compile", compile_thread, u, &why);
  if (thread == NULL) {
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
