/* bench-sources.h: where bench-pipeline's appsrc buffers come from. */
#pragma once

#include "bench-common.h"

typedef enum {
  SOURCE_POOL,
  SOURCE_RECYCLED,
  SOURCE_FRESH,
} SourceKind;

typedef struct {
  SourceKind kind;
  GstBufferPool *pool; /* pool and recycled */
  const Region *region;
  gsize bytes;
  guint64 next_slot; /* the next slice of the region to use */
  guint filled; /* distinct memories filled */
  gboolean in_run; /* filling now means the pool grew during a run */
  guint grown;
} Source;

/* A plain GstBufferPool of ordinary memory, @count buffers filled. */
Source *source_new_recycled (
    const Region *region, GstCaps *caps, gsize bytes, guint count);
/* A new GstMemory over the next slice of @region for every buffer. */
Source *source_new_fresh (const Region *region, gsize bytes);
/* The pool the element after @appsrc proposes for @caps_string, or a pool
 * of the allocator it proposes, configured for at least @pool_buffers
 * buffers of @bytes and filled; NULL with *@why when there is neither. */
Source *source_from_query (GstElement *appsrc, const gchar *caps_string,
    gsize bytes, guint pool_buffers, const Region *region, gchar **why);
void source_free (Source *src);

/* The next buffer to push and the sum of its data. */
GstBuffer *source_next (Source *src, guint64 *sum);
