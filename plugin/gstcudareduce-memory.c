/* gstcudareduce-memory.c: the pinned allocator and registration of
 * recycled host memory. */
#include "gstcudareduce-memory.h"

#include "gstcudareduce-pages.h"

#include <gst/video/video.h>
#include <string.h>
#include <unistd.h>

GST_DEBUG_CATEGORY_STATIC (cr_memory_debug);
#define GST_CAT_DEFAULT cr_memory_debug

/* Freed blocks kept for reuse: at most this many bytes. No count bounds
 * them: the element holds every buffer of its launches in flight until
 * their results are out (hundreds of small ones when a launch gathers
 * many), and a cache smaller than that unpinned most of each burst and
 * pinned it again for the next. */
#define CACHE_MAX_BYTES (512u << 20)
/* Smaller memory is copied: registering costs about 0.1 ms whatever the
 * size, and neighbouring small allocations share pages, which the driver
 * registers only once. */
#define REGISTER_MIN_BYTES (256u << 10)

typedef struct {
  GstMemory mem;
  guint8 *block; /* the whole allocation, shared with sub-memories */
  CUdeviceptr device; /* where kernels read block */
  gsize block_size;
} HostMemory;

typedef struct {
  guint8 *host;
  CUdeviceptr device;
  gsize size;
} Block;

struct _GstCudaReduceHostAllocator {
  GstAllocator parent;
  CrDevice *device;
  GMutex lock;
  /* Freed blocks by size (GSIZE_TO_POINTER): a GArray of Block each, the
   * most recently freed last. */
  GHashTable *cache;
  gsize cached_bytes;
  /* Pinning costs tens of microseconds: counted, for the debug log. */
  guint64 n_pinned, n_unpinned;
};

G_DEFINE_TYPE_WITH_CODE (GstCudaReduceHostAllocator,
    gst_cuda_reduce_host_allocator, GST_TYPE_ALLOCATOR,
    GST_DEBUG_CATEGORY_INIT (
        cr_memory_debug, "cudareducememory", 0, "cudareduce host memory"));

static gboolean
take_cached (GstCudaReduceHostAllocator *self, gsize size, Block *out)
{
  gboolean found = FALSE;
  g_mutex_lock (&self->lock);
  GArray *blocks = g_hash_table_lookup (self->cache, GSIZE_TO_POINTER (size));
  /* The most recently freed: it may still be in the CPU's cache, which
   * upstream is about to write it through. */
  if (blocks && blocks->len > 0) {
    *out = g_array_index (blocks, Block, blocks->len - 1);
    g_array_set_size (blocks, blocks->len - 1);
    self->cached_bytes -= size;
    found = TRUE;
  }
  g_mutex_unlock (&self->lock);
  return found;
}

/* Keeps @b for reuse, under the lock; FALSE when the cache is full. */
static gboolean
keep_cached (GstCudaReduceHostAllocator *self, const Block *b)
{
  if (self->cached_bytes + b->size > CACHE_MAX_BYTES)
    return FALSE;
  GArray *blocks =
      g_hash_table_lookup (self->cache, GSIZE_TO_POINTER (b->size));
  if (blocks == NULL) {
    blocks = g_array_new (FALSE, FALSE, sizeof (Block));
    g_hash_table_insert (self->cache, GSIZE_TO_POINTER (b->size), blocks);
  }
  g_array_append_val (blocks, *b);
  self->cached_bytes += b->size;
  return TRUE;
}

/* The size of the block that holds @size bytes: whole pages, and from
 * four pages to 1 MiB a quarter of a power of two apart, so that small
 * buffers whose sizes vary a little (audio from the network, compressed
 * frames) reuse one another's blocks rather than each pinning a size of its
 * own (at most a quarter more than asked). Larger ones, frames of a fixed
 * size, get whole pages only: a quarter of a large frame is too much
 * pinned memory to waste. */
static gsize
block_size_for (gsize size)
{
  const gsize page = 4096;
  if (size > G_MAXSIZE / 2)
    return size;
  size = MAX ((size + page - 1) & ~(page - 1), page);
  if (size <= 4 * page || size > (1u << 20))
    return size;
  const gsize step = (gsize)1 << (g_bit_storage (size) - 3);
  return (size + step - 1) & ~(step - 1);
}

guint64
gst_cuda_reduce_host_allocator_pinned (GstAllocator *allocator)
{
  GstCudaReduceHostAllocator *self = GST_CUDA_REDUCE_HOST_ALLOCATOR (allocator);
  g_mutex_lock (&self->lock);
  const guint64 n = self->n_pinned;
  g_mutex_unlock (&self->lock);
  return n;
}

static GstMemory *
host_alloc (GstAllocator *allocator, gsize size, GstAllocationParams *params)
{
  GstCudaReduceHostAllocator *self = GST_CUDA_REDUCE_HOST_ALLOCATOR (allocator);
  /* Pinned blocks are page-aligned, which covers any alignment below a
   * page that params can ask for. */
  gsize maxsize = params->prefix + size + params->padding;
  const gsize block_size = block_size_for (maxsize);
  Block block;

  if (!take_cached (self, block_size, &block)) {
    g_autoptr (GError) error = NULL;
    block.size = block_size;
    block.host =
        cr_device_host_alloc (self->device, block_size, &block.device, &error);
    if (block.host == NULL) {
      GST_WARNING_OBJECT (self, "%s", error->message);
      return NULL;
    }
    g_mutex_lock (&self->lock);
    self->n_pinned++;
    g_mutex_unlock (&self->lock);
    GST_LOG_OBJECT (self, "pinned %" G_GSIZE_FORMAT " new bytes", block_size);
  }
  HostMemory *hm = g_new0 (HostMemory, 1);
  hm->block = block.host;
  hm->device = block.device;
  hm->block_size = block.size;
  gst_memory_init (GST_MEMORY_CAST (hm), params->flags, allocator, NULL,
      maxsize, params->align, params->prefix, size);
  if (params->prefix && (params->flags & GST_MEMORY_FLAG_ZERO_PREFIXED))
    memset (hm->block, 0, params->prefix);
  if (params->padding && (params->flags & GST_MEMORY_FLAG_ZERO_PADDED))
    memset (hm->block + params->prefix + size, 0, params->padding);
  return GST_MEMORY_CAST (hm);
}

static void
host_free (GstAllocator *allocator, GstMemory *mem)
{
  GstCudaReduceHostAllocator *self = GST_CUDA_REDUCE_HOST_ALLOCATOR (allocator);
  HostMemory *hm = (HostMemory *)mem;

  if (mem->parent == NULL) {
    const Block b = { hm->block, hm->device, hm->block_size };
    g_mutex_lock (&self->lock);
    const gboolean keep = keep_cached (self, &b);
    if (!keep)
      self->n_unpinned++;
    g_mutex_unlock (&self->lock);
    if (!keep)
      cr_device_host_free (self->device, hm->block);
  }
  g_free (hm);
}

static gpointer
host_map (GstMemory *mem, gsize maxsize, GstMapFlags flags)
{
  return ((HostMemory *)mem)->block;
}

static void
host_unmap (GstMemory *mem)
{
}

static GstMemory *
host_share (GstMemory *mem, gssize offset, gssize size)
{
  HostMemory *hm = (HostMemory *)mem;
  GstMemory *parent = mem->parent ? mem->parent : mem;

  if (size == -1)
    size = mem->size - offset;
  HostMemory *sub = g_new0 (HostMemory, 1);
  sub->block = hm->block;
  sub->device = hm->device;
  sub->block_size = hm->block_size;
  gst_memory_init (GST_MEMORY_CAST (sub),
      GST_MINI_OBJECT_FLAGS (parent) | GST_MINI_OBJECT_FLAG_LOCK_READONLY,
      mem->allocator, parent, mem->maxsize, mem->align, mem->offset + offset,
      size);
  return GST_MEMORY_CAST (sub);
}

static gboolean
host_is_span (GstMemory *mem1, GstMemory *mem2, gsize *offset)
{
  if (((HostMemory *)mem1)->block != ((HostMemory *)mem2)->block)
    return FALSE;
  if (offset)
    *offset = mem1->offset;
  return mem1->offset + mem1->size == mem2->offset;
}

static void
gst_cuda_reduce_host_allocator_finalize (GObject *object)
{
  GstCudaReduceHostAllocator *self = GST_CUDA_REDUCE_HOST_ALLOCATOR (object);

  GST_DEBUG_OBJECT (self,
      "pinned %" G_GUINT64_FORMAT " blocks, released %" G_GUINT64_FORMAT
      " before the end",
      self->n_pinned, self->n_unpinned);
  GHashTableIter iter;
  gpointer blocks;
  g_hash_table_iter_init (&iter, self->cache);
  while (g_hash_table_iter_next (&iter, NULL, &blocks))
    for (guint k = 0; k < ((GArray *)blocks)->len; k++)
      cr_device_host_free (
          self->device, g_array_index ((GArray *)blocks, Block, k).host);
  g_hash_table_unref (self->cache);
  g_mutex_clear (&self->lock);
  cr_device_unref (self->device);
  G_OBJECT_CLASS (gst_cuda_reduce_host_allocator_parent_class)
      ->finalize (object);
}

static void
gst_cuda_reduce_host_allocator_init (GstCudaReduceHostAllocator *self)
{
  GstAllocator *allocator = GST_ALLOCATOR_CAST (self);

  allocator->mem_type = GST_CUDA_REDUCE_HOST_MEMORY_TYPE;
  allocator->mem_map = host_map;
  allocator->mem_unmap = host_unmap;
  allocator->mem_share = host_share;
  allocator->mem_is_span = host_is_span;
  g_mutex_init (&self->lock);
  self->cache = g_hash_table_new_full (
      g_direct_hash, g_direct_equal, NULL, (GDestroyNotify)g_array_unref);
}

static void
gst_cuda_reduce_host_allocator_class_init (
    GstCudaReduceHostAllocatorClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = gst_cuda_reduce_host_allocator_finalize;
  GST_ALLOCATOR_CLASS (klass)->alloc = host_alloc;
  GST_ALLOCATOR_CLASS (klass)->free = host_free;
}

GstAllocator *
gst_cuda_reduce_host_allocator_new (CrDevice *device)
{
  GstCudaReduceHostAllocator *self =
      g_object_new (GST_TYPE_CUDA_REDUCE_HOST_ALLOCATOR, NULL);
  gst_object_ref_sink (self);
  self->device = cr_device_ref (device);
  return GST_ALLOCATOR_CAST (self);
}

/* Registration of recycled memory */

typedef struct {
  CrDevice *device; /* NULL until registered */
  guint8 *host;
  gsize size;
  CUdeviceptr address;
  gboolean failed;
  /* The device of the first visit, compared and never followed: memory
   * comes back when the same element sees it again. Other elements
   * reading the same buffer (after a tee) are not a second visit: memory
   * allocated afresh for each buffer would be registered and unregistered
   * per buffer, which costs more than the copies it saves. */
  gconstpointer first_visitor;
} Registration;

/* Held around every registration and unregistration in the process, and
 * the pages they cover: the driver is never asked for a page that is
 * registered already, nor to register one while it unregisters another
 * (see gstcudareduce-pages.h). */
static GMutex registration_lock;
static GstCudaReducePages *registered_pages;

static void
registration_free (gpointer data)
{
  Registration *reg = data;
  if (reg->device) {
    GST_DEBUG (
        "unregistering %" G_GSIZE_FORMAT " bytes at %p", reg->size, reg->host);
    g_mutex_lock (&registration_lock);
    cr_device_host_unregister (reg->device, reg->host);
    gst_cuda_reduce_pages_release (registered_pages, reg->host, reg->size);
    g_mutex_unlock (&registration_lock);
    cr_device_unref (reg->device);
  }
  g_free (reg);
}

G_DEFINE_QUARK (cudareduce - registration, registration)

/* Registers @reg's range with @device, under registration_lock, unless
 * one of its pages is registered already (by another memory that shares
 * it, in any element): then it is copied this time, and tried again on
 * its next visit, as that memory may be gone by then. */
static void
register_range (Registration *reg, CrDevice *device)
{
  g_autoptr (GError) error = NULL;

  if (registered_pages == NULL)
    registered_pages = gst_cuda_reduce_pages_new (sysconf (_SC_PAGESIZE));
  if (!gst_cuda_reduce_pages_claim (registered_pages, reg->host, reg->size)) {
    GST_LOG ("not registered, copied: %" G_GSIZE_FORMAT " bytes at %p "
             "share a page with registered memory",
        reg->size, reg->host);
    return;
  }
  if (!cr_device_host_register (
          device, reg->host, reg->size, &reg->address, &error)) {
    gst_cuda_reduce_pages_release (registered_pages, reg->host, reg->size);
    GST_DEBUG ("not registered, will copy: %s", error->message);
    reg->failed = TRUE;
    return;
  }
  reg->device = cr_device_ref (device);
  GST_DEBUG (
      "registered %" G_GSIZE_FORMAT " bytes at %p", reg->size, reg->host);
}

static CUdeviceptr
registered_address (GstMemory *mem, const guint8 *map_data, const guint8 *data,
    gsize size, CrDevice *device)
{
  Registration *reg;
  CUdeviceptr address = 0;

  g_mutex_lock (&registration_lock);
  reg =
      gst_mini_object_get_qdata (GST_MINI_OBJECT (mem), registration_quark ());
  if (reg == NULL) {
    /* First visit: copied. Memory that never comes back costs nothing. */
    reg = g_new0 (Registration, 1);
    reg->first_visitor = device;
    gst_mini_object_set_qdata (
        GST_MINI_OBJECT (mem), registration_quark (), reg, registration_free);
  } else if (reg->device == NULL && !reg->failed
      && reg->first_visitor == device) {
    /* The whole allocation, from before the memory's offset to maxsize, so
     * that a pool's resizing of the buffer stays covered. */
    reg->host = (guint8 *)map_data - mem->offset;
    reg->size = mem->maxsize;
    GST_DEBUG ("registering %" G_GSIZE_FORMAT " bytes at %p (memory %p, "
               "offset %" G_GSIZE_FORMAT ", data %p, %" G_GSIZE_FORMAT
               " bytes read)",
        reg->size, reg->host, mem, mem->offset, data, size);
    register_range (reg, device);
  }
  /* Registered as portable and mapped: any context on the GPU reads it. */
  if (reg->device
      && cr_device_ordinal (reg->device) == cr_device_ordinal (device)
      && data >= reg->host && data + size <= reg->host + reg->size)
    address = reg->address + (CUdeviceptr)(data - reg->host);
  g_mutex_unlock (&registration_lock);
  return address;
}

CUdeviceptr
gst_cuda_reduce_memory_device_address (GstMemory *mem, const guint8 *map_data,
    const guint8 *data, gsize size, CrDevice *device)
{
  if (mem->allocator && GST_IS_CUDA_REDUCE_HOST_ALLOCATOR (mem->allocator)) {
    /* Mapped for every device through unified addressing. */
    HostMemory *hm = (HostMemory *)mem;
    return hm->device + (CUdeviceptr)(data - hm->block);
  }
  /* Plain host memory only: other allocators' mappings may be temporary
   * copies, and registering a sub-memory would register per buffer. */
  if (mem->parent != NULL || !gst_memory_is_type (mem, GST_ALLOCATOR_SYSMEM)
      || mem->maxsize < REGISTER_MIN_BYTES)
    return 0;
  return registered_address (mem, map_data, data, size, device);
}

/* Ours first: upstream takes the first that suits it. */
static void
put_allocator_first (
    GstQuery *query, GstAllocator *allocator, const GstAllocationParams *params)
{
  if (gst_query_get_n_allocation_params (query) == 0) {
    gst_query_add_allocation_param (query, allocator, params);
    return;
  }
  GstAllocator *other = NULL;
  GstAllocationParams other_params;
  gst_query_parse_nth_allocation_param (query, 0, &other, &other_params);
  gst_query_set_nth_allocation_param (query, 0, allocator, params);
  gst_query_add_allocation_param (query, other, &other_params);
  gst_clear_object (&other);
}

static void
put_pool_first (GstQuery *query, GstBufferPool *pool, guint size, guint min)
{
  if (gst_query_get_n_allocation_pools (query) == 0) {
    gst_query_add_allocation_pool (query, pool, size, min, 0);
    return;
  }
  GstBufferPool *other = NULL;
  guint other_size, other_min, other_max;
  gst_query_parse_nth_allocation_pool (
      query, 0, &other, &other_size, &other_min, &other_max);
  gst_query_set_nth_allocation_pool (query, 0, pool, size, min, 0);
  gst_query_add_allocation_pool (
      query, other, other_size, other_min, other_max);
  gst_clear_object (&other);
}

void
gst_cuda_reduce_memory_propose (GstQuery *query, GstAllocator *allocator,
    gboolean is_video, gsize frame_bytes, guint min_buffers)
{
  GstAllocationParams params;
  GstCaps *caps;
  gboolean need_pool;

  gst_query_parse_allocation (query, &caps, &need_pool);
  gst_allocation_params_init (&params);
  params.align = 255;
  put_allocator_first (query, allocator, &params);
  if (is_video)
    gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  if (!need_pool || frame_bytes == 0)
    return;
  /* A pool's configuration and the query hold a guint size: larger frames
   * come from the allocator alone, rather than a pool of the size's low 32
   * bits. */
  if (frame_bytes > G_MAXUINT) {
    GST_INFO_OBJECT (allocator,
        "no pool: frames of %" G_GSIZE_FORMAT " bytes are more than a pool "
        "holds (%u)",
        frame_bytes, G_MAXUINT);
    return;
  }
  const guint size = (guint)frame_bytes;

  GstBufferPool *pool = gst_buffer_pool_new ();
  GstStructure *config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, size, min_buffers, 0);
  gst_buffer_pool_config_set_allocator (config, allocator, &params);
  if (gst_buffer_pool_set_config (pool, config))
    put_pool_first (query, pool, size, min_buffers);
  else
    GST_WARNING_OBJECT (allocator, "the pinned pool refused its configuration");
  gst_object_unref (pool);
}
