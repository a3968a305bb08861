/* cr-staging.c: a ring of pinned host memory and a parallel memcpy. */
#include "cr-staging.h"

#include "cr-abi.h"

#include <string.h>

/* Chunks start on this boundary, so the kernel's vector loads stay
 * aligned and chunks never share a cache line. */
#define ALIGN 256
G_STATIC_ASSERT (ALIGN % CR_LOAD_BYTES == 0);
/* Below this a copy is not worth handing to other threads. */
#define PARALLEL_MIN (1u << 20)
#define PIECE_MIN (512u << 10)

typedef struct {
  gsize offset;
  gsize len;
  CUevent done;
} Use;

struct _CrStaging {
  const CrDriver *cu;
  guint8 *host;
  CUdeviceptr device;
  gsize size;
  gsize head; /* where the next claim starts, unless it must wrap */
  GQueue uses; /* Use, oldest first */
  GPtrArray *spare_events;
  Use *claimed; /* between claim and release */
};

CrStaging *
cr_staging_new (const CrDriver *cu, gsize ring_bytes, GError **error)
{
  CrStaging *s = g_new0 (CrStaging, 1);
  CUresult res;

  s->cu = cu;
  s->size = ring_bytes / ALIGN * ALIGN;
  g_queue_init (&s->uses);
  s->spare_events = g_ptr_array_new ();
  res = cu->MemHostAlloc ((void **)&s->host, s->size,
      CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
  if (res == CUDA_SUCCESS)
    res = cu->MemHostGetDevicePointer (&s->device, s->host, 0);
  if (res != CUDA_SUCCESS) {
    cr_cuda_fail (error, res, "Allocating pinned staging memory");
    cr_staging_free (s);
    return NULL;
  }
  return s;
}

/* @timeout_us as cr_cuda_wait_event's. */
static gboolean
retire_oldest (CrStaging *s, gint64 timeout_us, GError **error)
{
  Use *use = g_queue_peek_head (&s->uses);
  if (!cr_cuda_wait_event (s->cu, use->done, timeout_us, error))
    return FALSE;
  g_queue_pop_head (&s->uses);
  g_ptr_array_add (s->spare_events, use->done);
  g_free (use);
  return TRUE;
}

void
cr_staging_free (CrStaging *s)
{
  if (s == NULL)
    return;
  /* Each chunk's wait is one try: a context that failed (a faulting
   * monoid) fails every wait at once, and its chunks go all the same. */
  Use *use;
  while ((use = g_queue_pop_head (&s->uses)) != NULL) {
    s->cu->EventSynchronize (use->done);
    g_ptr_array_add (s->spare_events, use->done);
    g_free (use);
  }
  for (guint k = 0; k < s->spare_events->len; k++)
    s->cu->EventDestroy (g_ptr_array_index (s->spare_events, k));
  g_ptr_array_unref (s->spare_events);
  g_free (s->claimed);
  if (s->host)
    s->cu->MemFreeHost (s->host);
  g_free (s);
}

gsize
cr_staging_max_chunk (const CrStaging *s)
{
  /* A quarter of the ring, so that copying one chunk overlaps the GPU's
   * reading of up to three before it. */
  return s->size / 4 / ALIGN * ALIGN;
}

/* Where @len bytes fit now, or G_MAXSIZE. */
static gsize
find_space (CrStaging *s, gsize len)
{
  if (g_queue_is_empty (&s->uses))
    return 0;
  gsize tail = ((Use *)g_queue_peek_head (&s->uses))->offset;
  if (s->head > tail) {
    if (s->head + len <= s->size)
      return s->head;
    return len <= tail ? 0 : G_MAXSIZE;
  }
  return s->head + len <= tail ? s->head : G_MAXSIZE;
}

gboolean
cr_staging_claim (CrStaging *s, gsize len, gint64 timeout_us, guint8 **host,
    CUdeviceptr *device, GError **error)
{
  g_return_val_if_fail (s->claimed == NULL, FALSE);
  g_return_val_if_fail (len <= cr_staging_max_chunk (s), FALSE);
  len = MAX (ALIGN, (len + ALIGN - 1) / ALIGN * ALIGN);

  gsize offset;
  while ((offset = find_space (s, len)) == G_MAXSIZE)
    if (!retire_oldest (s, timeout_us, error))
      return FALSE;
  s->claimed = g_new0 (Use, 1);
  s->claimed->offset = offset;
  s->claimed->len = len;
  s->head = offset + len;
  *host = s->host + offset;
  *device = s->device + offset;
  return TRUE;
}

gboolean
cr_staging_release (CrStaging *s, CUstream stream, GError **error)
{
  Use *use = g_steal_pointer (&s->claimed);
  g_return_val_if_fail (use != NULL, FALSE);

  if (s->spare_events->len > 0) {
    use->done = g_ptr_array_steal_index_fast (
        s->spare_events, s->spare_events->len - 1);
  } else {
    CUresult res = s->cu->EventCreate (&use->done, CU_EVENT_DISABLE_TIMING);
    if (res != CUDA_SUCCESS) {
      g_free (use);
      return cr_cuda_fail (error, res, "Creating a CUDA event");
    }
  }
  g_queue_push_tail (&s->uses, use);
  CR_CHECK (s->cu->EventRecord (use->done, stream), "Recording a CUDA event");
  return TRUE;
}

/* Parallel copies */

typedef struct {
  GMutex lock;
  GCond cond;
  guint remaining;
} Countdown;

typedef struct {
  guint8 *dst;
  const guint8 *src;
  gsize n;
  Countdown *countdown;
} Piece;

static void
copy_piece (gpointer data, gpointer user_data)
{
  Piece *piece = data;
  memcpy (piece->dst, piece->src, piece->n);
  g_mutex_lock (&piece->countdown->lock);
  if (--piece->countdown->remaining == 0)
    g_cond_signal (&piece->countdown->cond);
  g_mutex_unlock (&piece->countdown->lock);
}

static GThreadPool *
copy_pool (guint *n_threads)
{
  static GThreadPool *pool;
  static guint threads;

  if (g_once_init_enter (&pool)) {
    /* Half the cores, at most 8: measured on a 16-core H200 host, 4 to 8
     * threads copy 26 to 36 GB/s where one copies 6 to 12. */
    threads = CLAMP (g_get_num_processors () / 2, 1, 8);
    g_once_init_leave (
        &pool, g_thread_pool_new (copy_piece, NULL, threads, FALSE, NULL));
  }
  *n_threads = threads;
  return pool;
}

void
cr_parallel_memcpy (void *dst, const void *src, gsize n)
{
  guint threads = 1;
  GThreadPool *pool = n >= PARALLEL_MIN ? copy_pool (&threads) : NULL;
  guint n_pieces = pool ? (guint)MIN (threads + 1, n / PIECE_MIN) : 1;

  if (n_pieces <= 1) {
    memcpy (dst, src, n);
    return;
  }
  /* The calling thread copies the last piece itself. */
  Countdown countdown = { .remaining = n_pieces - 1 };
  Piece pieces[16];
  gsize per = (n / n_pieces + 63) / 64 * 64;
  g_mutex_init (&countdown.lock);
  g_cond_init (&countdown.cond);
  for (guint k = 0; k < n_pieces; k++) {
    gsize offset = k * per;
    pieces[k].dst = (guint8 *)dst + offset;
    pieces[k].src = (const guint8 *)src + offset;
    pieces[k].n = k + 1 < n_pieces ? per : n - offset;
    pieces[k].countdown = &countdown;
    if (k + 1 < n_pieces)
      g_thread_pool_push (pool, &pieces[k], NULL);
  }
  memcpy (pieces[n_pieces - 1].dst, pieces[n_pieces - 1].src,
      pieces[n_pieces - 1].n);
  g_mutex_lock (&countdown.lock);
  while (countdown.remaining > 0)
    g_cond_wait (&countdown.cond, &countdown.lock);
  g_mutex_unlock (&countdown.lock);
  g_mutex_clear (&countdown.lock);
  g_cond_clear (&countdown.cond);
}
