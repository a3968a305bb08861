/* bench-sources.c: the three memory sources of bench-pipeline's appsrc
 * runs. Every memory is filled once, before the timed loop, from a region
 * of pseudo-random bytes, and carries the sum of its bytes.
 *
 *   pool             memory from the element's answer to an ALLOCATION
 *                    query on appsrc's source pad, used as an appsrc user
 *                    would: the first pool proposed or, where there is none
 *                    (the element proposes a pool only where the caps fix
 *                    the buffer size, so not for raw audio), a plain
 *                    GstBufferPool of the first allocator proposed; either
 *                    way with the caps, the size, and the answer's
 *                    allocator and parameters;
 *   system-recycled  a plain GstBufferPool of ordinary pageable memory,
 *                    recycled as upstream pools recycle;
 *   system-fresh     a new GstMemory for every buffer, wrapping the next
 *                    slice of a large region filled (and so prefaulted)
 *                    before any pipeline runs. */
#include "bench-sources.h"

/* Where a filled memory keeps the sum of its bytes. First asked for on the
 * main thread, when a pool is prefilled, before any push thread runs. */
static GQuark
sum_quark (void)
{
  static GQuark quark;
  if (quark == 0)
    quark = g_quark_from_static_string ("bench-pipeline-sum");
  return quark;
}

/* The sum of @buf's data, filling it from the region the first time its
 * memory is seen. The sum lives on the memory itself, so memory the pool
 * replaced (even at the same address) is filled again. */
static guint64
pool_buffer_sum (Source *src, GstBuffer *buf)
{
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);
  guint64 *sum =
      gst_mini_object_get_qdata (GST_MINI_OBJECT (mem), sum_quark ());

  if (sum)
    return *sum;
  const gsize slots = src->region->bytes / src->bytes;
  const gsize offset = (src->next_slot++ % slots) * src->bytes;
  if (gst_buffer_fill (buf, 0, src->region->data + offset, src->bytes)
      != src->bytes)
    fail ("cannot fill a pool buffer of %" G_GSIZE_FORMAT " bytes",
        gst_buffer_get_size (buf));
  sum = g_new (guint64, 1);
  *sum = region_sum (src->region, offset, src->bytes);
  gst_mini_object_set_qdata (GST_MINI_OBJECT (mem), sum_quark (), sum, g_free);
  src->filled++;
  src->grown += src->in_run;
  return *sum;
}

/* Acquires every buffer the pool has (or @count) and fills it, so that no
 * buffer is filled in the timed loop; returns how many it got. */
static guint
source_prefill (Source *src, guint count)
{
  GstBufferPoolAcquireParams params = {
    .flags = GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT,
  };
  GstBuffer **held = g_new0 (GstBuffer *, count);
  guint got = 0;

  while (got < count
      && gst_buffer_pool_acquire_buffer (src->pool, &held[got], &params)
          == GST_FLOW_OK) {
    if (gst_buffer_get_size (held[got]) != src->bytes)
      fail ("the pool gave a buffer of %" G_GSIZE_FORMAT
            " bytes, not %" G_GSIZE_FORMAT,
          gst_buffer_get_size (held[got]), src->bytes);
    pool_buffer_sum (src, held[got]);
    got++;
  }
  for (guint k = 0; k < got; k++)
    gst_buffer_unref (held[k]);
  g_free (held);
  return got;
}

/* @count buffers preallocated, more allocated only if ever needed. */
static gboolean
configure_pool (GstBufferPool *pool, GstCaps *caps, gsize bytes, guint count,
    guint query_max, GstAllocator *allocator, const GstAllocationParams *params)
{
  GstStructure *config = gst_buffer_pool_get_config (pool);
  guint max = query_max ? MAX (query_max, count) : 0;

  gst_buffer_pool_config_set_params (config, caps, bytes, count, max);
  if (params) {
    GstAllocator *own = NULL;
    if (allocator == NULL)
      gst_buffer_pool_config_get_allocator (config, &own, NULL);
    gst_buffer_pool_config_set_allocator (
        config, allocator ? allocator : own, params);
  }
  if (gst_buffer_pool_set_config (pool, config))
    return TRUE;
  /* The pool may have amended the configuration; take it if the size
   * stands. */
  config = gst_buffer_pool_get_config (pool);
  GstCaps *c = NULL;
  guint size = 0, min = 0;
  if (!gst_buffer_pool_config_get_params (config, &c, &size, &min, &max)
      || size != bytes) {
    gst_structure_free (config);
    return FALSE;
  }
  g_print (
      "  (the pool amended its configuration: min %u, max %u)\n", min, max);
  return gst_buffer_pool_set_config (pool, config);
}

Source *
source_new_recycled (
    const Region *region, GstCaps *caps, gsize bytes, guint count)
{
  Source *src = g_new0 (Source, 1);
  src->kind = SOURCE_RECYCLED;
  src->region = region;
  src->bytes = bytes;
  src->pool = gst_buffer_pool_new ();
  if (!configure_pool (src->pool, caps, bytes, count, 0, NULL, NULL)
      || !gst_buffer_pool_set_active (src->pool, TRUE))
    fail ("cannot set up a system buffer pool of %u x %" G_GSIZE_FORMAT
          " bytes",
        count, bytes);
  source_prefill (src, count);
  return src;
}

Source *
source_new_fresh (const Region *region, gsize bytes)
{
  Source *src = g_new0 (Source, 1);
  src->kind = SOURCE_FRESH;
  src->region = region;
  src->bytes = bytes;
  return src;
}

void
source_free (Source *src)
{
  if (src->pool) {
    gst_buffer_pool_set_active (src->pool, FALSE);
    gst_object_unref (src->pool);
  }
  g_free (src);
}

GstBuffer *
source_next (Source *src, guint64 *sum)
{
  GstBuffer *buf = NULL;

  if (src->kind == SOURCE_FRESH) {
    const gsize slots = src->region->bytes / src->bytes;
    const gsize offset = (src->next_slot++ % slots) * src->bytes;
    buf = gst_buffer_new ();
    gst_buffer_append_memory (buf,
        gst_memory_new_wrapped (GST_MEMORY_FLAG_READONLY,
            src->region->data + offset, src->bytes, 0, src->bytes, NULL, NULL));
    *sum = region_sum (src->region, offset, src->bytes);
    return buf;
  }
  if (gst_buffer_pool_acquire_buffer (src->pool, &buf, NULL) != GST_FLOW_OK)
    return NULL;
  *sum = pool_buffer_sum (src, buf);
  return buf;
}

static void
print_pool (GstBufferPool *pool, gboolean proposed, guint count)
{
  static gboolean printed;
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstAllocator *allocator = NULL;
  guint size = 0, min = 0, max = 0;

  if (printed)
    goto out;
  printed = TRUE;
  gst_buffer_pool_config_get_params (config, NULL, &size, &min, &max);
  gst_buffer_pool_config_get_allocator (config, &allocator, NULL);
  g_print ("  (pool source: %s %s, memory %s; %u buffers prefilled; min %u, "
           "max %u)\n",
      proposed ? "the element's proposed" : "the element's allocator in a",
      G_OBJECT_TYPE_NAME (pool),
      allocator ? allocator->mem_type : "of the default allocator", count, min,
      max);
out:
  gst_structure_free (config);
}

/* The pool the element proposes to appsrc, or a pool of the allocator it
 * proposes, configured and filled; NULL with *@why when there is neither. */
Source *
source_from_query (GstElement *appsrc, const gchar *caps_string, gsize bytes,
    guint pool_buffers, const Region *region, gchar **why)
{
  GstPad *pad = gst_element_get_static_pad (appsrc, "src");
  GstCaps *caps = gst_caps_from_string (caps_string);
  GstQuery *query = gst_query_new_allocation (caps, TRUE);
  GstBufferPool *pool = NULL;
  GstAllocator *allocator = NULL;
  GstAllocationParams params;
  gboolean have_params = FALSE;
  guint size = 0, min = 0, max = 0;
  Source *src = NULL;

  gst_allocation_params_init (&params);
  if (!gst_pad_peer_query (pad, query)) {
    *why = g_strdup ("the ALLOCATION query was not answered");
    goto out;
  }
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
  if (gst_query_get_n_allocation_params (query) > 0) {
    gst_query_parse_nth_allocation_param (query, 0, &allocator, &params);
    have_params = TRUE;
  }
  if (pool == NULL && allocator == NULL) {
    *why = g_strdup ("the ALLOCATION answer has neither a pool nor an "
                     "allocator");
    goto out;
  }
  /* Where the caps do not fix the size (raw audio), the element proposes
   * only its allocator; a pool of it is what a source would make. */
  const gboolean proposed = pool != NULL;
  if (pool == NULL)
    pool = gst_buffer_pool_new ();
  guint count = MAX (min, pool_buffers);
  if (!configure_pool (pool, caps, bytes, count, max, allocator,
          have_params ? &params : NULL)) {
    *why = g_strdup_printf ("the %s %s refused size %" G_GSIZE_FORMAT
                            " with %u buffers",
        proposed ? "proposed" : "allocator's", G_OBJECT_TYPE_NAME (pool), bytes,
        count);
    goto out;
  }
  if (!gst_buffer_pool_set_active (pool, TRUE)) {
    *why = g_strdup_printf ("the %s %s could not be activated",
        proposed ? "proposed" : "allocator's", G_OBJECT_TYPE_NAME (pool));
    goto out;
  }
  src = g_new0 (Source, 1);
  src->kind = SOURCE_POOL;
  src->pool = g_steal_pointer (&pool);
  src->region = region;
  src->bytes = bytes;
  print_pool (src->pool, proposed, source_prefill (src, count));
out:
  if (pool)
    gst_object_unref (pool);
  if (allocator)
    gst_object_unref (allocator);
  gst_query_unref (query);
  gst_caps_unref (caps);
  gst_object_unref (pad);
  return src;
}