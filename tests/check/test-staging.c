/* test-staging.c: the staging ring's waits, against a fake driver whose
 * events are ready, busy for ever, or failed (a faulting monoid leaves the
 * context failed: every wait returns the fault). No GPU needed. */
#include "cr-error.h"
#include "cr-staging.h"
#include "cr-test-util.h"

#define RING (64 << 10)
#define FAULT 700 /* CUDA_ERROR_ILLEGAL_ADDRESS */

static CUresult event_state; /* what EventQuery and EventSynchronize say */
static guint events_created, events_destroyed, syncs;

static CUresult
fake_mem_host_alloc (void **ptr, size_t size, unsigned int flags)
{
  *ptr = g_malloc0 (size);
  return CUDA_SUCCESS;
}

static CUresult
fake_mem_free_host (void *ptr)
{
  g_free (ptr);
  return CUDA_SUCCESS;
}

static CUresult
fake_device_pointer (CUdeviceptr *dptr, void *ptr, unsigned int flags)
{
  *dptr = (CUdeviceptr)(guintptr)ptr;
  return CUDA_SUCCESS;
}

static CUresult
fake_event_create (CUevent *event, unsigned int flags)
{
  *event = (CUevent)GUINT_TO_POINTER (++events_created);
  return CUDA_SUCCESS;
}

static CUresult
fake_event_destroy (CUevent event)
{
  events_destroyed++;
  return CUDA_SUCCESS;
}

static CUresult
fake_event_record (CUevent event, CUstream stream)
{
  return CUDA_SUCCESS;
}

static CUresult
fake_event_query (CUevent event)
{
  return event_state;
}

/* Only ever called when the wait is to be unbounded, or to retire. */
static CUresult
fake_event_synchronize (CUevent event)
{
  syncs++;
  /* A busy event would block here for ever: a test that reaches this
   * with one is a hang, which the test's timeout reports. */
  while (event_state == CUDA_ERROR_NOT_READY)
    g_usleep (1000);
  return event_state;
}

static const CrDriver fake = {
  .MemHostAlloc = fake_mem_host_alloc,
  .MemFreeHost = fake_mem_free_host,
  .MemHostGetDevicePointer = fake_device_pointer,
  .EventCreate = fake_event_create,
  .EventDestroy = fake_event_destroy,
  .EventRecord = fake_event_record,
  .EventQuery = fake_event_query,
  .EventSynchronize = fake_event_synchronize,
};

/* A ring with @n chunks of a quarter each in use. */
static CrStaging *
busy_ring (guint n)
{
  g_autoptr (GError) error = NULL;
  events_created = events_destroyed = syncs = 0;
  event_state = CUDA_SUCCESS;
  CrStaging *s = cr_staging_new (&fake, RING, &error);
  fail_unless (s != NULL, "%s", error ? error->message : "");
  for (guint k = 0; k < n; k++) {
    guint8 *host;
    CUdeviceptr device;
    fail_unless (cr_staging_claim (
        s, cr_staging_max_chunk (s), 0, &host, &device, &error));
    fail_unless (cr_staging_release (s, NULL, &error));
  }
  return s;
}

/* Freed after the context failed: every chunk goes, once each; before, the
 * free retried the failed wait of the oldest chunk for ever. */
GST_START_TEST (test_free_after_a_fault)
{
  CrStaging *s = busy_ring (3);
  event_state = FAULT;
  cr_staging_free (s);
  fail_unless_equals_int (syncs, 3);
  fail_unless_equals_int (events_destroyed, events_created);
}

GST_END_TEST;

/* A full ring whose GPU work never finishes: the claim gives up after its
 * timeout, with the error that says so. */
GST_START_TEST (test_claim_gives_up_after_its_timeout)
{
  CrStaging *s = busy_ring (4);
  g_autoptr (GError) error = NULL;
  guint8 *host;
  CUdeviceptr device;

  event_state = CUDA_ERROR_NOT_READY;
  const gint64 start = g_get_monotonic_time ();
  fail_if (cr_staging_claim (
      s, cr_staging_max_chunk (s), 200 * 1000, &host, &device, &error));
  const gint64 waited = g_get_monotonic_time () - start;
  fail_unless (g_error_matches (error, CR_ERROR, CR_ERROR_GPU_TIMEOUT), "%s",
      error ? error->message : "no error");
  fail_unless (waited >= 200 * 1000 && waited < 5 * G_USEC_PER_SEC,
      "waited %" G_GINT64_FORMAT " us", waited);
  fail_unless_equals_int (syncs, 0);
  event_state = FAULT;
  cr_staging_free (s);
  fail_unless_equals_int (events_destroyed, events_created);
}

GST_END_TEST;

/* A full ring on a failed context: the claim fails at once with the fault,
 * and the next one too (it does not hand out a chunk the GPU may read). */
GST_START_TEST (test_claim_fails_on_a_fault)
{
  CrStaging *s = busy_ring (4);
  guint8 *host;
  CUdeviceptr device;

  event_state = FAULT;
  for (guint k = 0; k < 2; k++) {
    g_autoptr (GError) error = NULL;
    fail_if (cr_staging_claim (s, cr_staging_max_chunk (s), G_USEC_PER_SEC * 60,
        &host, &device, &error));
    fail_unless (g_error_matches (error, CR_ERROR, CR_ERROR_CUDA), "%s",
        error ? error->message : "no error");
  }
  cr_staging_free (s);
  fail_unless_equals_int (events_destroyed, events_created);
}

GST_END_TEST;

/* A ring that frees up within the timeout: the claim waits, then takes the
 * oldest chunk's place. */
GST_START_TEST (test_claim_waits_for_a_busy_chunk)
{
  CrStaging *s = busy_ring (4);
  g_autoptr (GError) error = NULL;
  guint8 *host;
  CUdeviceptr device;

  event_state = CUDA_SUCCESS;
  fail_unless (cr_staging_claim (
      s, cr_staging_max_chunk (s), G_USEC_PER_SEC, &host, &device, &error));
  fail_unless (cr_staging_release (s, NULL, &error));
  cr_staging_free (s);
  fail_unless_equals_int (events_destroyed, events_created);
}

GST_END_TEST;

static Suite *
staging_suite (void)
{
  Suite *s = suite_create ("staging");
  TCase *tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 20);
  tcase_add_test (tc, test_free_after_a_fault);
  tcase_add_test (tc, test_claim_gives_up_after_its_timeout);
  tcase_add_test (tc, test_claim_fails_on_a_fault);
  tcase_add_test (tc, test_claim_waits_for_a_busy_chunk);
  return s;
}

GST_CHECK_MAIN (staging);
