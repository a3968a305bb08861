/* test-queue.c: the element's in-flight queue on its own, without a GPU:
 * its results thread and source pad task, flushes, failures, a stuck GPU
 * and EOS. */
#include "cr-test-leaks.h"
#include "cr-test-util.h"
#include "gstcudareduce-queue.h"

GST_DEBUG_CATEGORY (gst_cuda_reduce_debug);

/* Items are numbers; completing and pushing record their order,
 * and completing can be held at a gate (items from gate_from on), as the
 * GPU holds a buffer's completion. */

typedef struct {
  GMutex lock;
  GCond cond;
  gboolean gate_open;
  guint gate_from;
  guint busy_every; /* these items would wait once more: a GPU still busy */
  GArray *completed, *pushed, *freed;
  guint fail_at; /* complete returns ERROR for this item (0: none) */
  guint stuck_calls;
  GstClockTime stuck_waited;
  gboolean stop_when_stuck; /* as a bus sync handler stopping the pipeline */
  gboolean stopped_when_stuck;
  GstCudaReduceQueue *queue; /* told of the waits at the gate, if set */
} Fake;

static GstFlowReturn
fake_complete (gpointer item, gboolean may_wait, gpointer data, GError **error)
{
  Fake *f = data;
  guint n = GPOINTER_TO_UINT (item);
  g_mutex_lock (&f->lock);
  if (!may_wait
      && ((!f->gate_open && n >= f->gate_from)
          || (f->busy_every && n % f->busy_every == 0))) {
    g_mutex_unlock (&f->lock);
    return GST_CUDA_REDUCE_QUEUE_WOULD_WAIT;
  }
  /* At the gate complete waits as for the GPU. */
  if (f->queue)
    gst_cuda_reduce_watchdog_mark (&f->queue->watch, TRUE);
  while (!f->gate_open && n >= f->gate_from)
    g_cond_wait (&f->cond, &f->lock);
  if (f->queue)
    gst_cuda_reduce_watchdog_mark (&f->queue->watch, FALSE);
  g_array_append_val (f->completed, n);
  g_mutex_unlock (&f->lock);
  return n == f->fail_at ? GST_FLOW_ERROR : GST_FLOW_OK;
}

static GstFlowReturn
fake_push (gpointer item, GstFlowReturn completed, gpointer data)
{
  Fake *f = data;
  guint n = GPOINTER_TO_UINT (item);
  g_mutex_lock (&f->lock);
  g_array_append_val (f->pushed, n);
  g_mutex_unlock (&f->lock);
  return completed;
}

static Fake *fake_for_free;

static void
fake_free (gpointer item)
{
  guint n = GPOINTER_TO_UINT (item);
  g_mutex_lock (&fake_for_free->lock);
  g_array_append_val (fake_for_free->freed, n);
  g_mutex_unlock (&fake_for_free->lock);
}

static void
fake_stuck (GstClockTime waited, gpointer data)
{
  Fake *f = data;
  g_mutex_lock (&f->lock);
  f->stuck_calls++;
  f->stuck_waited = waited;
  const gboolean stop = f->stop_when_stuck;
  g_mutex_unlock (&f->lock);
  if (!stop)
    return;
  gst_cuda_reduce_queue_stop (f->queue);
  g_mutex_lock (&f->lock);
  f->stopped_when_stuck = TRUE;
  g_cond_broadcast (&f->cond);
  g_mutex_unlock (&f->lock);
}

static const GstCudaReduceQueueFuncs fake_funcs = {
  .complete = fake_complete,
  .push = fake_push,
  .free = fake_free,
  .stuck = fake_stuck,
};

static void
fake_init (Fake *f)
{
  g_mutex_init (&f->lock);
  g_cond_init (&f->cond);
  f->gate_open = TRUE;
  f->gate_from = 0;
  f->busy_every = 0;
  f->fail_at = 0;
  f->stuck_calls = 0;
  f->stuck_waited = 0;
  f->stop_when_stuck = FALSE;
  f->stopped_when_stuck = FALSE;
  f->queue = NULL;
  f->completed = g_array_new (FALSE, FALSE, sizeof (guint));
  f->pushed = g_array_new (FALSE, FALSE, sizeof (guint));
  f->freed = g_array_new (FALSE, FALSE, sizeof (guint));
  fake_for_free = f;
}

static void
fake_gate (Fake *f, gboolean open)
{
  g_mutex_lock (&f->lock);
  f->gate_open = open;
  g_cond_broadcast (&f->cond);
  g_mutex_unlock (&f->lock);
}

static guint
fake_count (Fake *f, GArray *a)
{
  g_mutex_lock (&f->lock);
  guint n = a->len;
  g_mutex_unlock (&f->lock);
  return n;
}

static void
fake_clear (Fake *f)
{
  g_array_unref (f->completed);
  g_array_unref (f->pushed);
  g_array_unref (f->freed);
  g_mutex_clear (&f->lock);
  g_cond_clear (&f->cond);
}

static GstPad *
task_pad (void)
{
  GstPad *pad = gst_pad_new ("src", GST_PAD_SRC);
  gst_object_ref_sink (pad);
  return pad;
}

static void
queue_start (GstCudaReduceQueue *q, GstPad *pad, Fake *f, guint depth)
{
  gst_cuda_reduce_queue_init (q, pad, &fake_funcs, f);
  gst_cuda_reduce_queue_start (q, depth, 0);
  gst_cuda_reduce_queue_activate (q, TRUE);
}

static void
queue_finish (GstCudaReduceQueue *q, GstPad *pad)
{
  gst_cuda_reduce_queue_activate (q, FALSE);
  gst_cuda_reduce_queue_clear (q);
  gst_object_unref (pad);
}

/* Items @first to @last, each its own launch. */
static void
push_items (GstCudaReduceQueue *q, guint first, guint last)
{
  for (guint k = first; k <= last; k++)
    gst_cuda_reduce_queue_push (q, GUINT_TO_POINTER (k), 1, 10);
}

/* Up to a second for @a to hold @n items. */
static void
wait_for_count (Fake *f, GArray *a, guint n)
{
  for (guint k = 0; k < 1000 && fake_count (f, a) < n; k++)
    g_usleep (1000);
}

GST_START_TEST (test_queue_in_order)
{
  enum { N = 5000 };
  GstCudaReduceQueue q;
  GstPad *pad = task_pad ();
  Fake f;

  fake_init (&f);
  queue_start (&q, pad, &f, 8);
  for (guint k = 1; k <= N; k++) {
    /* Some join another's launch and cost nothing. */
    guint cost = k % 3 != 0;
    fail_unless_equals_int (
        gst_cuda_reduce_queue_wait_for_room (&q, cost == 0), GST_FLOW_OK);
    fail_unless_equals_int (
        gst_cuda_reduce_queue_push (&q, GUINT_TO_POINTER (k), cost, 10),
        GST_FLOW_OK);
  }
  gst_cuda_reduce_queue_drain (&q);
  /* Drained means pushed, not just taken out. */
  fail_unless_equals_int (f.pushed->len, N);
  fail_unless_equals_int (f.completed->len, N);
  for (guint k = 0; k < N; k++) {
    fail_unless_equals_int (g_array_index (f.completed, guint, k), k + 1);
    fail_unless_equals_int (g_array_index (f.pushed, guint, k), k + 1);
  }
  fail_unless_equals_int (q.in_flight, 0);
  fail_unless_equals_uint64 (gst_cuda_reduce_queue_held (&q, 1), 80);
  queue_finish (&q, pad);
  fail_unless_equals_int (f.freed->len, 0);
  fake_clear (&f);
}

GST_END_TEST;

typedef struct {
  GstCudaReduceQueue *q;
  gboolean joins;
  gint done;
  GstFlowReturn ret;
} Waiter;

static gpointer
wait_thread (gpointer data)
{
  Waiter *w = data;
  w->ret = gst_cuda_reduce_queue_wait_for_room (w->q, w->joins);
  g_atomic_int_set (&w->done, 1);
  return NULL;
}

/* With depth launches in flight the streaming thread waits, unless the
 * buffer joins a launch; it goes on once one is pushed. */
GST_START_TEST (test_queue_depth_counts_launches)
{
  GstCudaReduceQueue q;
  GstPad *pad = task_pad ();
  Fake f;

  fake_init (&f);
  queue_start (&q, pad, &f, 2);
  fake_gate (&f, FALSE);
  gst_cuda_reduce_queue_push (&q, GUINT_TO_POINTER (1), 1, 10);
  gst_cuda_reduce_queue_push (&q, GUINT_TO_POINTER (2), 0, 10);
  gst_cuda_reduce_queue_push (&q, GUINT_TO_POINTER (3), 1, 10);

  Waiter joining = { &q, TRUE, 0, GST_FLOW_CUSTOM_ERROR };
  g_thread_join (g_thread_new ("joining", wait_thread, &joining));
  fail_unless_equals_int (joining.ret, GST_FLOW_OK);

  Waiter alone = { &q, FALSE, 0, GST_FLOW_CUSTOM_ERROR };
  GThread *t = g_thread_new ("alone", wait_thread, &alone);
  g_usleep (50000);
  fail_if (g_atomic_int_get (&alone.done), "did not wait for room");
  fake_gate (&f, TRUE);
  g_thread_join (t);
  fail_unless_equals_int (alone.ret, GST_FLOW_OK);
  gst_cuda_reduce_queue_drain (&q);
  fail_unless_equals_int (f.pushed->len, 3);
  queue_finish (&q, pad);
  fake_clear (&f);
}

GST_END_TEST;

/* Items that complete without waiting are pushed before a later one
 * waits: no buffer waits for the GPU work of the buffers after it. */
GST_START_TEST (test_queue_hands_on_before_waiting)
{
  GstCudaReduceQueue q;
  GstPad *pad = task_pad ();
  Fake f;

  fake_init (&f);
  f.gate_from = 3;
  queue_start (&q, pad, &f, 64);
  fake_gate (&f, FALSE);
  push_items (&q, 1, 5);
  wait_for_count (&f, f.pushed, 2);
  g_usleep (20000);
  fail_unless_equals_int (fake_count (&f, f.pushed), 2);
  fail_unless_equals_int (fake_count (&f, f.completed), 2);
  fake_gate (&f, TRUE);
  gst_cuda_reduce_queue_drain (&q);
  fail_unless_equals_int (f.pushed->len, 5);
  for (guint k = 0; k < 5; k++)
    fail_unless_equals_int (g_array_index (f.pushed, guint, k), k + 1);
  queue_finish (&q, pad);
  fake_clear (&f);
}

GST_END_TEST;

/* Many items, some of which would wait when first asked (as a buffer
 * whose batch is still on the GPU), through the streaming thread's room
 * checks: all leave, in order, once each, and the accounting ends at
 * zero. */
GST_START_TEST (test_queue_in_order_with_waits)
{
  enum { N = 20000 };
  GstCudaReduceQueue q;
  GstPad *pad = task_pad ();
  Fake f;

  fake_init (&f);
  f.busy_every = 7;
  queue_start (&q, pad, &f, 4);
  for (guint k = 1; k <= N; k++) {
    guint cost = k % 5 == 0 || k % 3 == 0;
    if (!gst_cuda_reduce_queue_has_room (&q))
      fail_unless_equals_int (
          gst_cuda_reduce_queue_wait_for_room (&q, cost == 0), GST_FLOW_OK);
    fail_unless_equals_int (
        gst_cuda_reduce_queue_push (&q, GUINT_TO_POINTER (k), cost, 10),
        GST_FLOW_OK);
  }
  gst_cuda_reduce_queue_drain (&q);
  fail_unless_equals_int (f.completed->len, N);
  fail_unless_equals_int (f.pushed->len, N);
  for (guint k = 0; k < N; k++) {
    fail_unless_equals_int (g_array_index (f.completed, guint, k), k + 1);
    fail_unless_equals_int (g_array_index (f.pushed, guint, k), k + 1);
  }
  fail_unless_equals_int (q.in_flight, 0);
  fail_unless_equals_int (q.unfinished, 0);
  queue_finish (&q, pad);
  fail_unless_equals_int (f.freed->len, 0);
  fake_clear (&f);
}

GST_END_TEST;

/* Whether @n appears exactly once in @a and @b together. */
static gboolean
once_in (GArray *a, GArray *b, guint n)
{
  guint seen = 0;
  for (guint k = 0; k < a->len; k++)
    seen += g_array_index (a, guint, k) == n;
  for (guint k = 0; k < b->len; k++)
    seen += g_array_index (b, guint, k) == n;
  return seen == 1;
}

/* A flush while the results thread waits in the middle of a run: the
 * item it waits on may finish, the rest of the run is dropped without
 * being completed, and every item leaves exactly once. */
GST_START_TEST (test_queue_flush_during_a_run)
{
  GstCudaReduceQueue q;
  GstPad *pad = task_pad ();
  Fake f;

  fake_init (&f);
  f.gate_from = 3;
  queue_start (&q, pad, &f, 64);
  fake_gate (&f, FALSE);
  push_items (&q, 1, 10);
  wait_for_count (&f, f.pushed, 2);
  fail_unless_equals_int (fake_count (&f, f.pushed), 2);

  gst_cuda_reduce_queue_flush_start (&q);
  gst_pad_pause_task (pad);
  fake_gate (&f, TRUE);
  gst_cuda_reduce_queue_flush_stop (&q);
  fail_unless (fake_count (&f, f.completed) <= 3,
      "%u completed after the flush", fake_count (&f, f.completed));
  for (guint k = 1; k <= 10; k++)
    fail_unless (once_in (f.pushed, f.freed, k), "item %u", k);
  fail_unless_equals_int (q.in_flight, 0);
  fail_unless_equals_int (q.unfinished, 0);

  gst_cuda_reduce_queue_push (&q, GUINT_TO_POINTER (11), 1, 10);
  gst_cuda_reduce_queue_drain (&q);
  fail_unless_equals_int (
      g_array_index (f.pushed, guint, f.pushed->len - 1), 11);
  queue_finish (&q, pad);
  fake_clear (&f);
}

GST_END_TEST;

/* A flush frees what has not left, and the queue takes items again. */
GST_START_TEST (test_queue_flush_drops)
{
  GstCudaReduceQueue q;
  GstPad *pad = task_pad ();
  Fake f;

  fake_init (&f);
  queue_start (&q, pad, &f, 64);
  fake_gate (&f, FALSE);
  push_items (&q, 1, 10);
  gst_cuda_reduce_queue_flush_start (&q);
  fail_unless_equals_int (
      gst_cuda_reduce_queue_wait_for_room (&q, FALSE), GST_FLOW_FLUSHING);
  gst_pad_pause_task (pad);
  fake_gate (&f, TRUE);
  gst_cuda_reduce_queue_flush_stop (&q);
  /* The one being completed when the flush came may have been pushed;
   * everything else was freed, nothing twice. */
  fail_unless_equals_int (f.freed->len + f.pushed->len, 10);
  fail_unless_equals_int (q.in_flight, 0);

  gst_cuda_reduce_queue_push (&q, GUINT_TO_POINTER (11), 1, 10);
  gst_cuda_reduce_queue_drain (&q);
  fail_unless_equals_int (
      g_array_index (f.pushed, guint, f.pushed->len - 1), 11);
  queue_finish (&q, pad);
  fake_clear (&f);
}

GST_END_TEST;

/* A failure to complete stops the queue: what came before it is pushed,
 * the streaming thread is refused, and nothing after it is completed. */
GST_START_TEST (test_queue_stops_at_a_failure)
{
  GstCudaReduceQueue q;
  GstPad *pad = task_pad ();
  Fake f;

  fake_init (&f);
  f.fail_at = 4;
  queue_start (&q, pad, &f, 64);
  fake_gate (&f, FALSE);
  push_items (&q, 1, 8);
  fake_gate (&f, TRUE);
  gst_cuda_reduce_queue_drain (&q);
  fail_unless_equals_int (
      gst_cuda_reduce_queue_wait_for_room (&q, FALSE), GST_FLOW_ERROR);
  fail_unless_equals_int (fake_count (&f, f.completed), 4);
  /* 1 to 3 pushed; 4 handed to push with its error. */
  wait_for_count (&f, f.pushed, 4);
  fail_unless_equals_int (fake_count (&f, f.pushed), 4);
  queue_finish (&q, pad);
  fail_unless_equals_int (f.freed->len, 4);
  fake_clear (&f);
}

GST_END_TEST;

/* After a failure paused the task, a flush starts everything over: room
 * again, and a new item is completed and pushed. */
GST_START_TEST (test_queue_restarts_after_a_failure)
{
  GstCudaReduceQueue q;
  GstPad *pad = task_pad ();
  Fake f;

  fake_init (&f);
  f.fail_at = 2;
  queue_start (&q, pad, &f, 64);
  push_items (&q, 1, 3);
  gst_cuda_reduce_queue_drain (&q);
  fail_if (gst_cuda_reduce_queue_has_room (&q));
  fail_unless_equals_int (
      gst_cuda_reduce_queue_wait_for_room (&q, TRUE), GST_FLOW_ERROR);

  gst_cuda_reduce_queue_flush_start (&q);
  fail_if (gst_cuda_reduce_queue_has_room (&q));
  gst_pad_pause_task (pad);
  gst_cuda_reduce_queue_flush_stop (&q);
  fail_unless (gst_cuda_reduce_queue_has_room (&q));
  gst_cuda_reduce_queue_push (&q, GUINT_TO_POINTER (4), 1, 10);
  gst_cuda_reduce_queue_drain (&q);
  fail_unless_equals_int (
      g_array_index (f.pushed, guint, f.pushed->len - 1), 4);
  fail_unless_equals_int (
      g_array_index (f.completed, guint, f.completed->len - 1), 4);
  queue_finish (&q, pad);
  fake_clear (&f);
}

GST_END_TEST;

/* A completion that never comes back from the GPU: after the timeout the
 * queue gives up on it once, refuses items, and a drain, a flush and a
 * stop all return while the results thread is still inside complete;
 * nothing it may still read is freed. */
GST_START_TEST (test_queue_gives_up_on_a_stuck_gpu)
{
  GstCudaReduceQueue q;
  GstPad *pad = task_pad ();
  Fake f;

  fake_init (&f);
  f.gate_from = 3;
  f.queue = &q;
  gst_cuda_reduce_queue_init (&q, pad, &fake_funcs, &f);
  gst_cuda_reduce_queue_start (&q, 8, 300 * GST_MSECOND);
  gst_cuda_reduce_queue_activate (&q, TRUE);
  fake_gate (&f, FALSE);
  push_items (&q, 1, 5);
  /* Returns only once the queue gave up: a hang is the test's timeout. */
  gst_cuda_reduce_queue_drain (&q);
  fail_unless (gst_cuda_reduce_queue_abandoned (&q));
  fail_unless_equals_int (f.stuck_calls, 1);
  fail_unless (f.stuck_waited >= 300 * GST_MSECOND,
      "gave up after %" GST_TIME_FORMAT, GST_TIME_ARGS (f.stuck_waited));
  fail_unless_equals_int (
      gst_cuda_reduce_queue_wait_for_room (&q, TRUE), GST_FLOW_ERROR);
  wait_for_count (&f, f.pushed, 2);
  fail_unless_equals_int (fake_count (&f, f.completed), 2);

  /* A flush does not bring it back. */
  gst_cuda_reduce_queue_flush_start (&q);
  gst_pad_pause_task (pad);
  gst_cuda_reduce_queue_flush_stop (&q);
  fail_if (gst_cuda_reduce_queue_has_room (&q));
  fail_unless_equals_int (
      gst_cuda_reduce_queue_wait_for_room (&q, TRUE), GST_FLOW_ERROR);

  gst_cuda_reduce_queue_activate (&q, FALSE);
  gst_cuda_reduce_queue_stop (&q);
  fail_unless_equals_int (fake_count (&f, f.freed), 0);
  fail_unless_equals_int (f.stuck_calls, 1);

  /* The GPU answers at last: the results thread leaves, and only then may
   * the queue's memory go. */
  fake_gate (&f, TRUE);
  gboolean done = FALSE;
  for (guint k = 0; k < 5000 && !done; k++) {
    g_mutex_lock (&q.lock);
    done = q.results_done;
    g_mutex_unlock (&q.lock);
    if (!done)
      g_usleep (1000);
  }
  fail_unless (done, "the results thread did not leave");
  gst_cuda_reduce_queue_clear (&q);
  fail_unless_equals_int (fake_count (&f, f.freed), 0);
  gst_object_unref (pad);
  fake_clear (&f);
}

GST_END_TEST;

/* Another element's queue, started and stopped on a thread of its own. */
static gpointer
start_and_stop_another (gpointer data)
{
  Fake *f = data;
  GstCudaReduceQueue q;
  GstPad *pad = task_pad ();

  gst_cuda_reduce_queue_init (&q, pad, &fake_funcs, f);
  gst_cuda_reduce_queue_start (&q, 2, GST_SECOND);
  gst_cuda_reduce_queue_stop (&q);
  gst_cuda_reduce_queue_clear (&q);
  gst_object_unref (pad);
  g_mutex_lock (&f->lock);
  f->stuck_calls += 100;
  g_cond_broadcast (&f->cond);
  g_mutex_unlock (&f->lock);
  return NULL;
}

/* Up to @seconds for f->stuck_calls to reach @n, or for
 * f->stopped_when_stuck when @n is 0. */
static gboolean
wait_for_fake (Fake *f, guint n, gint seconds)
{
  const gint64 end = g_get_monotonic_time () + seconds * G_TIME_SPAN_SECOND;
  g_mutex_lock (&f->lock);
  while (n ? f->stuck_calls < n : !f->stopped_when_stuck)
    if (!g_cond_wait_until (&f->cond, &f->lock, end))
      break;
  const gboolean reached = n ? f->stuck_calls >= n : f->stopped_when_stuck;
  g_mutex_unlock (&f->lock);
  return reached;
}

/* The stuck callback posts the element's error, and a bus sync handler
 * may stop the pipeline right there, on the watchdog's thread: the stop
 * returns, and every other queue in the process still starts and stops. */
GST_START_TEST (test_queue_stuck_callback_may_stop)
{
  GstCudaReduceQueue q;
  GstPad *pad = task_pad ();
  Fake f;

  fake_init (&f);
  f.gate_from = 1;
  f.queue = &q;
  f.stop_when_stuck = TRUE;
  gst_cuda_reduce_queue_init (&q, pad, &fake_funcs, &f);
  gst_cuda_reduce_queue_start (&q, 8, 200 * GST_MSECOND);
  gst_cuda_reduce_queue_activate (&q, TRUE);
  fake_gate (&f, FALSE);
  push_items (&q, 1, 2);
  fail_unless (wait_for_fake (&f, 0, 5),
      "a stop from the stuck callback did not return");
  fail_unless (gst_cuda_reduce_queue_abandoned (&q));
  g_thread_unref (g_thread_new ("another", start_and_stop_another, &f));
  fail_unless (wait_for_fake (&f, 101, 5),
      "another queue's start and stop hung after the watchdog gave up");

  gst_cuda_reduce_queue_activate (&q, FALSE);
  fake_gate (&f, TRUE);
  gboolean done = FALSE;
  for (guint k = 0; k < 5000 && !done; k++) {
    g_mutex_lock (&q.lock);
    done = q.results_done;
    g_mutex_unlock (&q.lock);
    if (!done)
      g_usleep (1000);
  }
  fail_unless (done, "the results thread did not leave");
  gst_cuda_reduce_queue_clear (&q);
  gst_object_unref (pad);
  fake_clear (&f);
}

GST_END_TEST;

/* How long buffers can wait here, for the latency query: depth launches
 * of @per_launch buffers each. A huge duration saturates rather than
 * wraps round to a small latency. */
GST_START_TEST (test_queue_held_saturates)
{
  GstCudaReduceQueue q;
  GstPad *pad = task_pad ();
  Fake f;

  fake_init (&f);
  queue_start (&q, pad, &f, 8);
  fail_unless_equals_uint64 (gst_cuda_reduce_queue_held (&q, 64), 0);
  gst_cuda_reduce_queue_push (&q, GUINT_TO_POINTER (1), 1, 10 * GST_MSECOND);
  fail_unless_equals_uint64 (
      gst_cuda_reduce_queue_held (&q, 64), 8 * 64 * 10 * GST_MSECOND);
  const GstClockTime huge = G_MAXUINT64 / 4;
  gst_cuda_reduce_queue_push (&q, GUINT_TO_POINTER (2), 1, huge);
  const GstClockTime held = gst_cuda_reduce_queue_held (&q, 64);
  fail_unless (held == GST_CLOCK_TIME_NONE,
      "held %" G_GUINT64_FORMAT " for buffers of %" G_GUINT64_FORMAT " ns",
      held, huge);
  gst_cuda_reduce_queue_drain (&q);
  queue_finish (&q, pad);
  fake_clear (&f);
}

GST_END_TEST;

/* Three items whose complete is held for @held_usec, by a wait for the GPU
 * (@gpu_wait) or by something else, in a queue with @timeout: nothing is
 * given up on and all three are pushed. */
static void
check_held_items_pushed (
    gboolean gpu_wait, GstClockTime timeout, gulong held_usec)
{
  GstCudaReduceQueue q;
  GstPad *pad = task_pad ();
  Fake f;

  fake_init (&f);
  f.gate_from = 2;
  /* Unset, the gate is not a GPU wait. */
  f.queue = gpu_wait ? &q : NULL;
  gst_cuda_reduce_queue_init (&q, pad, &fake_funcs, &f);
  gst_cuda_reduce_queue_start (&q, 8, timeout);
  gst_cuda_reduce_queue_activate (&q, TRUE);
  fake_gate (&f, FALSE);
  push_items (&q, 1, 3);
  g_usleep (held_usec);
  fake_gate (&f, TRUE);
  gst_cuda_reduce_queue_drain (&q);
  fail_if (gst_cuda_reduce_queue_abandoned (&q));
  fail_unless_equals_int (f.stuck_calls, 0);
  wait_for_count (&f, f.pushed, 3);
  fail_unless_equals_int (fake_count (&f, f.pushed), 3);
  queue_finish (&q, pad);
  fake_clear (&f);
}

/* A GPU that is only slow, within the timeout, is waited for. */
GST_START_TEST (test_queue_waits_within_the_timeout)
{
  check_held_items_pushed (TRUE, 10 * GST_SECOND, 300 * 1000);
}

GST_END_TEST;

/* Only waits for the GPU count: a complete that is slow for another reason
 * (a bus sync handler that takes its time, say) is not given up on. */
GST_START_TEST (test_queue_counts_only_gpu_waits)
{
  check_held_items_pushed (FALSE, 200 * GST_MSECOND, 600 * 1000);
}

GST_END_TEST;

/* A sink that has not prerolled: EOS keeps whoever pushes it, here until
 * the test lets it go. */
typedef struct {
  GMutex lock;
  GCond cond;
  gboolean open;
  guint eos_count;
  GThread *eos_thread;
} HeldSink;

static HeldSink held_sink;

static gboolean
held_sink_event (GstPad *pad, GstObject *parent, GstEvent *event)
{
  HeldSink *h = &held_sink;
  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS) {
    g_mutex_lock (&h->lock);
    h->eos_count++;
    h->eos_thread = g_thread_self ();
    g_cond_broadcast (&h->cond);
    while (!h->open)
      g_cond_wait (&h->cond, &h->lock);
    g_mutex_unlock (&h->lock);
  }
  gst_event_unref (event);
  return TRUE;
}

static guint
held_sink_eos_count (void)
{
  g_mutex_lock (&held_sink.lock);
  guint n = held_sink.eos_count;
  g_mutex_unlock (&held_sink.lock);
  return n;
}

/* Once the queue gave up, an EOS from upstream is pushed by the task, so
 * that upstream's streaming thread is not the one a sink keeps; before,
 * it is not taken. */
GST_START_TEST (test_queue_hands_eos_to_its_task)
{
  GstCudaReduceQueue q;
  GstPad *pad = task_pad ();
  GstPad *sink = gst_pad_new ("sink", GST_PAD_SINK);
  Fake f;

  g_mutex_init (&held_sink.lock);
  g_cond_init (&held_sink.cond);
  held_sink.open = FALSE;
  held_sink.eos_count = 0;
  gst_object_ref_sink (sink);
  gst_pad_set_event_function (sink, held_sink_event);
  fail_unless_equals_int (gst_pad_link (pad, sink), GST_PAD_LINK_OK);
  gst_pad_set_active (sink, TRUE);
  gst_pad_set_active (pad, TRUE);
  gst_pad_push_event (pad, gst_event_new_stream_start ("held"));

  fake_init (&f);
  f.gate_from = 2;
  f.queue = &q;
  gst_cuda_reduce_queue_init (&q, pad, &fake_funcs, &f);
  gst_cuda_reduce_queue_start (&q, 8, 300 * GST_MSECOND);
  gst_cuda_reduce_queue_activate (&q, TRUE);
  fake_gate (&f, FALSE);
  push_items (&q, 1, 3);

  GstEvent *early = gst_event_new_eos ();
  fail_if (gst_cuda_reduce_queue_hand_off_eos (&q, early));
  gst_event_unref (early);

  gst_cuda_reduce_queue_drain (&q);
  fail_unless (gst_cuda_reduce_queue_abandoned (&q));
  /* Returns although the sink keeps the EOS: a hang is the timeout. */
  fail_unless (gst_cuda_reduce_queue_hand_off_eos (&q, gst_event_new_eos ()));
  for (guint k = 0; k < 1000 && held_sink_eos_count () == 0; k++)
    g_usleep (1000);
  fail_unless_equals_int (held_sink_eos_count (), 1);
  fail_if (held_sink.eos_thread == g_thread_self ());
  /* The first item was completed before the queue gave up: it went first. */
  fail_unless_equals_int (fake_count (&f, f.pushed), 1);

  /* The source's second EOS, after the application asked for one. */
  fail_unless (gst_cuda_reduce_queue_hand_off_eos (&q, gst_event_new_eos ()));

  /* The pipeline stops: the sink lets go, and the task is stopped. */
  g_mutex_lock (&held_sink.lock);
  held_sink.open = TRUE;
  g_cond_broadcast (&held_sink.cond);
  g_mutex_unlock (&held_sink.lock);
  gst_cuda_reduce_queue_activate (&q, FALSE);
  fail_unless (held_sink_eos_count () <= 2);
  gst_cuda_reduce_queue_stop (&q);

  fake_gate (&f, TRUE);
  gboolean done = FALSE;
  for (guint k = 0; k < 5000 && !done; k++) {
    g_mutex_lock (&q.lock);
    done = q.results_done;
    g_mutex_unlock (&q.lock);
    if (!done)
      g_usleep (1000);
  }
  fail_unless (done, "the results thread did not leave");
  gst_cuda_reduce_queue_clear (&q);
  gst_pad_set_active (pad, FALSE);
  gst_pad_set_active (sink, FALSE);
  gst_object_unref (sink);
  gst_object_unref (pad);
  fake_clear (&f);
  g_mutex_clear (&held_sink.lock);
  g_cond_clear (&held_sink.cond);
}

GST_END_TEST;

static Suite *
queue_suite (void)
{
  Suite *s = suite_create ("queue");
  TCase *tc = tcase_create ("queue");
  cr_test_check_objects (tc);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_queue_in_order);
  tcase_add_test (tc, test_queue_depth_counts_launches);
  tcase_add_test (tc, test_queue_hands_on_before_waiting);
  tcase_add_test (tc, test_queue_in_order_with_waits);
  tcase_add_test (tc, test_queue_flush_during_a_run);
  tcase_add_test (tc, test_queue_flush_drops);
  tcase_add_test (tc, test_queue_stops_at_a_failure);
  tcase_add_test (tc, test_queue_restarts_after_a_failure);
  tcase_add_test (tc, test_queue_gives_up_on_a_stuck_gpu);
  tcase_add_test (tc, test_queue_stuck_callback_may_stop);
  tcase_add_test (tc, test_queue_held_saturates);
  tcase_add_test (tc, test_queue_waits_within_the_timeout);
  tcase_add_test (tc, test_queue_hands_eos_to_its_task);
  tcase_add_test (tc, test_queue_counts_only_gpu_waits);
  return s;
}

GST_CHECK_MAIN (queue);
