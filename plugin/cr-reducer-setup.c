/* cr-reducer-setup.c: a reducer's life. Its module and the kernels taken
 * from it, the buffers that their grids and the channel count size, the
 * swap to optimized kernels (cr-upgrade.c), and freeing it all, in or out
 * of a context that still works. Launches and jobs are in cr-reducer.c. */
#include "cr-reducer-private.h"

#include "cr-error.h"

#include <string.h>

/* The kernels of r->module. */
static gboolean
take_functions (CrReducer *r, GError **error)
{
  const CrDriver *cu = r->device->cu;

  CR_CHECK (cu->ModuleGetFunction (&r->function, r->module, "cr_reduce"),
      "Finding the reduction kernel");
  CR_CHECK (
      cu->ModuleGetFunction (&r->batch_function, r->module, "cr_reduce_batch"),
      "Finding the batch reduction kernel");
  /* The others only where the program has them (CrKernels); without them
   * the reducer takes the general path. */
  const CrKernels kernels = r->program->kernels;
  if (kernels & CR_KERNELS_PITCHED)
    CR_CHECK (cu->ModuleGetFunction (
                  &r->pitched_function, r->module, "cr_reduce_pitched"),
        "Finding the pitched reduction kernel");
  if (kernels & CR_KERNELS_PITCHED)
    CR_CHECK (cu->ModuleGetFunction (
                  &r->frames_function, r->module, "cr_reduce_frames"),
        "Finding the kernel that reduces batches of frames");
  if (r->program->bins)
    CR_CHECK (
        cu->ModuleGetFunction (&r->histogram_function, r->module,
            r->program->pair_bins ? "cr_histogram_pairs" : "cr_histogram"),
        "Finding the histogram kernel");
  const gboolean binned =
      r->program->bins && cr_monoid_has_accumulator (r->program->monoid);
  if (binned)
    CR_CHECK (cu->ModuleGetFunction (
                  &r->binned_function, r->module, "cr_reduce_binned"),
        "Finding the reduction kernel that counts bins");
  if (binned && (kernels & CR_KERNELS_PITCHED))
    CR_CHECK (cu->ModuleGetFunction (&r->binned_pitched_function, r->module,
                  "cr_reduce_binned_pitched"),
        "Finding the pitched reduction kernel that counts bins");
  if (!cr_window_ring_load (&r->window, cu, r->module, r->program, error)
      || !cr_region_kernel_load (&r->regions, cu, r->module, r->program, error))
    return FALSE;
  if (!r->program->per_channel)
    return TRUE;
  CR_CHECK (cu->ModuleGetFunction (
                &r->channels_function, r->module, "cr_reduce_channels"),
      "Finding the per-channel reduction kernel");
  /* Compiled only for the channel counts asked for whose rows fill a
   * 16-byte load of this type (kernels/reduce-channels.cu). */
  for (guint k = 0; k < G_N_ELEMENTS (r->vec_functions); k++) {
    gchar name[32];
    if (!(kernels & cr_kernels_vec (r->program->in, 2u << k)))
      continue;
    g_snprintf (name, sizeof name, "cr_reduce_channels_vec%u", 2u << k);
    CR_CHECK (cu->ModuleGetFunction (&r->vec_functions[k], r->module, name),
        "Finding the per-channel reduction kernel");
    if (!binned)
      continue;
    g_snprintf (name, sizeof name, "cr_reduce_binned_vec%u", 2u << k);
    CR_CHECK (
        cu->ModuleGetFunction (&r->binned_vec_functions[k], r->module, name),
        "Finding the per-channel reduction kernel that counts bins");
  }
  return TRUE;
}

static gboolean
load_module (CrReducer *r, gchar **log, GError **error)
{
  const CrDriver *cu = r->device->cu;
  CUresult res = CUDA_ERROR_NOT_READY;

  for (gint attempt = 0; attempt < 2; attempt++) {
    g_clear_pointer (&r->compiled, cr_compiled_free);
    /* A cached image the driver refuses is replaced, not trusted again.
     * The first buffer waits for a compile for time, where the cache has
     * no optimized image; the optimized one follows (cr-upgrade.h). */
    r->compiled = cr_compile (r->program->source, r->device->arch,
        attempt ? CR_COMPILE_REFRESH : CR_COMPILE_FAST, log, error);
    if (r->compiled == NULL)
      return FALSE;
    res = cu->ModuleLoadData (
        &r->module, g_bytes_get_data (r->compiled->image, NULL));
    if (res == CUDA_SUCCESS || !r->compiled->from_cache)
      break;
  }
  CR_CHECK (res, "Loading the compiled monoid");
  if (!take_functions (r, error))
    return FALSE;
  if (r->compiled->fast)
    r->upgrade = cr_upgrade_start (r->program->source, r->device->arch);
  return TRUE;
}

static void
free_device (CrReducer *r, CUdeviceptr *ptr)
{
  if (*ptr)
    r->device->cu->MemFree (*ptr);
  *ptr = 0;
}

static gboolean measure_bin_blocks (CrReducer *r, gsize shared, GError **error);

/* The histogram's counters for @channels: in shared memory, a copy per
 * warp where they fit (fewer warps meet on a counter), and the blocks
 * that stay resident with them. */
static gboolean
allocate_bins (CrReducer *r, guint channels, GError **error)
{
  const CrDriver *cu = r->device->cu;
  const gsize counters = (gsize)channels * CR_BIN_SLOTS (r->program->bins);
  const gsize shared = counters * sizeof (guint32);

  free_device (r, &r->bin_scratch);
  free_device (r, &r->bin_state);
  CR_CHECK (cu->MemAlloc (&r->bin_scratch, counters * sizeof (guint64)),
      "Allocating the histogram's counters");
  CR_CHECK (cu->MemsetD8Async (r->bin_scratch, 0, counters * sizeof (guint64),
                r->device->stream),
      "Clearing the histogram's counters");
  CR_CHECK (cu->MemAlloc (&r->bin_state, counters * sizeof (guint64)),
      "Allocating the histogram's counters");
  r->bin_copies = shared <= CR_BINS_SHARED_MAX_BYTES
      ? (guint)MIN (
          CR_BLOCK_THREADS / CR_WARP_THREADS, CR_BINS_SHARED_MAX_BYTES / shared)
      : 0;
  return measure_bin_blocks (r, shared, error);
}

/* The resident blocks of the kernels that count bins, with @shared bytes
 * of counters a copy. */
static gboolean
measure_bin_blocks (CrReducer *r, gsize shared, GError **error)
{
  const CrDriver *cu = r->device->cu;
  int per_sm = 0;

  CR_CHECK (
      cu->OccupancyMaxActiveBlocksPerMultiprocessor (&per_sm,
          r->histogram_function, CR_BLOCK_THREADS, r->bin_copies * shared),
      "Querying the histogram kernel's occupancy");
  r->bin_blocks = MAX (1, per_sm) * r->device->sm_count;
  if (r->binned_function) {
    CR_CHECK (cu->OccupancyMaxActiveBlocksPerMultiprocessor (&per_sm,
                  r->binned_function, CR_BLOCK_THREADS, r->bin_copies * shared),
        "Querying the occupancy of the kernel that counts bins");
    r->binned_blocks = MAX (1, per_sm) * r->device->sm_count;
  }
  return TRUE;
}

/* The partials and tickets of grids as large as @need says, which no
 * launch still uses. */
static gboolean
allocate_grid_buffers (CrReducer *r, CrGridBuffers need, GError **error)
{
  const CrDriver *cu = r->device->cu;

  free_device (r, &r->partials);
  free_device (r, &r->tickets);
  r->grid = (CrGridBuffers){ 0 };
  CR_CHECK (
      cu->MemAlloc (&r->partials,
          need.partial_slots * CR_PARTIAL_SLOT_BYTES (r->program->acc.size)),
      "Allocating partials");
  CR_CHECK (
      cu->MemAlloc (&r->tickets, need.ticket_bytes), "Allocating the tickets");
  CR_CHECK (
      cu->MemsetD8Async (r->tickets, 0, need.ticket_bytes, r->device->stream),
      "Clearing the tickets");
  r->grid = need;
  return TRUE;
}

/* Buffers whose size follows the channel count. */
static gboolean
allocate_for_channels (CrReducer *r, guint channels, GError **error)
{
  const CrDriver *cu = r->device->cu;
  const CrProgram *p = r->program;
  const CrGridBuffers need = cr_geometry_buffers (&r->limits, channels);

  free_device (r, &r->state);
  free_device (r, &r->result);
  if (!allocate_grid_buffers (r, need, error))
    return FALSE;
  CR_CHECK (cu->MemAlloc (&r->state, MAX (1, channels * p->acc.size)),
      "Allocating the state");
  CR_CHECK (cu->MemAlloc (&r->result, MAX (1, channels * p->out.size)),
      "Allocating the result");
  if (r->host_result)
    cu->MemFreeHost (r->host_result);
  r->host_result = NULL;
  CR_CHECK (cu->MemAllocHost (
                (void **)&r->host_result, MAX (1, channels * p->out.size)),
      "Allocating pinned memory");
  if (p->bins && !allocate_bins (r, channels, error))
    return FALSE;
  r->channels = channels;
  if (!cr_window_ring_allocate (
          &r->window, cu, p, r->window_hops, channels, error))
    return FALSE;
  /* Whole 64-byte lines, so that two jobs' results never share one. */
  r->slot_bytes = (MAX (channels * p->out.size, 1) + 63) / 64 * 64;
  return TRUE;
}

/* The grids of the kernels, from their occupancy. */
static gboolean
measure_limits (CrReducer *r, GError **error)
{
  const CrDriver *cu = r->device->cu;
  int per_sm = 0;

  CR_CHECK (cu->OccupancyMaxActiveBlocksPerMultiprocessor (
                &per_sm, r->function, CR_BLOCK_THREADS, 0),
      "Querying the kernel's occupancy");
  r->limits.single = MAX (1, per_sm) * r->device->sm_count;
  if (r->channels_function) {
    CR_CHECK (cu->OccupancyMaxActiveBlocksPerMultiprocessor (
                  &per_sm, r->channels_function, CR_BLOCK_THREADS, 0),
        "Querying the per-channel kernel's occupancy");
    r->limits.channels = MAX (1, per_sm) * r->device->sm_count;
  }
  for (guint k = 0; k < G_N_ELEMENTS (r->vec_functions); k++) {
    if (r->vec_functions[k] == NULL)
      continue;
    CR_CHECK (cu->OccupancyMaxActiveBlocksPerMultiprocessor (
                  &per_sm, r->vec_functions[k], CR_BLOCK_THREADS, 0),
        "Querying the per-channel kernel's occupancy");
    r->limits.vec[k] = MAX (1, per_sm) * r->device->sm_count;
  }
  return TRUE;
}

static gboolean
reducer_setup (CrReducer *r, gchar **log, GError **error)
{
  return load_module (r, log, error) && measure_limits (r, error)
      && allocate_for_channels (r, 1, error);
}

gboolean
cr_reducer_upgrade (CrReducer *r, GError **error)
{
  if (r->upgrade == NULL)
    return TRUE;
  g_autoptr (CrCompiled) better = cr_upgrade_take (r->upgrade);
  if (better == NULL)
    return TRUE;
  g_clear_pointer (&r->upgrade, cr_upgrade_drop);
  const CrDriver *cu = r->device->cu;
  CUmodule module = NULL;
  const CUresult res =
      cu->ModuleLoadData (&module, g_bytes_get_data (better->image, NULL));
  if (res != CUDA_SUCCESS) {
    g_debug ("the optimized kernels did not load (%d): the fast ones stay",
        (int)res);
    return TRUE;
  }
  /* Queued launches run the fast kernels, on buffers sized for them. */
  if (!cr_device_sync (r->device, error)) {
    cu->ModuleUnload (module);
    return FALSE;
  }
  cu->ModuleUnload (r->module);
  r->module = module;
  cr_compiled_free (r->compiled);
  r->compiled = g_steal_pointer (&better);
  if (!take_functions (r, error) || !measure_limits (r, error))
    return FALSE;
  if (r->histogram_function
      && !measure_bin_blocks (r,
          (gsize)r->channels * CR_BIN_SLOTS (r->program->bins)
              * sizeof (guint32),
          error))
    return FALSE;
  /* The optimized kernels' grids may be larger: partials and tickets
   * only hold what one launch uses, so they may be made anew. */
  const CrGridBuffers need = cr_geometry_buffers (&r->limits, r->channels);
  if ((need.partial_slots > r->grid.partial_slots
          || need.ticket_bytes > r->grid.ticket_bytes)
      && !allocate_grid_buffers (r, need, error))
    return FALSE;
  g_debug ("the optimized kernels swapped in");
  return TRUE;
}

CrReducer *
cr_reducer_new (
    CrDevice *device, const CrProgram *program, gchar **log, GError **error)
{
  if (!cr_program_check_limits (program, error))
    return NULL;
  g_autoptr (CrReducer) r = g_new0 (CrReducer, 1);
  r->device = cr_device_ref (device);
  r->program = program;
  g_mutex_init (&r->lock);
  r->slabs = g_ptr_array_new ();
  r->free_slots = g_ptr_array_new ();
  r->all_slots = g_ptr_array_new_with_free_func (g_free);
  r->free_events = g_ptr_array_new ();
  r->all_events = g_ptr_array_new ();
  r->free_arenas = g_ptr_array_new ();
  r->free_region_arenas = g_ptr_array_new ();
  r->stale_arenas = g_ptr_array_new ();

  if (!cr_device_push (device, error))
    return NULL;
  gboolean ok = reducer_setup (r, log, error);
  cr_device_pop (device);
  return ok ? g_steal_pointer (&r) : NULL;
}

/* @a's pinned memory goes with the context when @in_context is FALSE (it
 * is not current: gone, or broken by a fault); the struct always goes. */
static void
arena_free (CrReducer *r, CrArena *a, gboolean in_context)
{
  if (in_context)
    r->device->cu->MemFreeHost (a->host);
  g_free (a);
}

/* Frees the arenas cr-batch.c gathered into. */
static void
free_arenas (CrReducer *r, gboolean in_context)
{
  if (r->gather.arena)
    arena_free (r, r->gather.arena, in_context);
  r->gather.arena = NULL;
  for (guint k = 0; k < r->free_arenas->len; k++)
    arena_free (r, g_ptr_array_index (r->free_arenas, k), in_context);
  for (guint k = 0; k < r->free_region_arenas->len; k++)
    arena_free (r, g_ptr_array_index (r->free_region_arenas, k), in_context);
  for (guint k = 0; k < r->stale_arenas->len; k++)
    arena_free (r, g_ptr_array_index (r->stale_arenas, k), in_context);
  g_ptr_array_set_size (r->free_arenas, 0);
  g_ptr_array_set_size (r->free_region_arenas, 0);
  g_ptr_array_set_size (r->stale_arenas, 0);
}

void
cr_reducer_forget_gathered (CrReducer *r)
{
  if (r->gather.arena) {
    g_mutex_lock (&r->lock);
    g_ptr_array_add (r->free_arenas, r->gather.arena);
    g_mutex_unlock (&r->lock);
  }
  r->gather.arena = NULL;
  r->gather.params.n = 0;
  r->gather.frames.n = 0;
  r->gather.params.fold = 0;
  r->gather.used = 0;
  r->gather.n_results = 0;
}

void
cr_reducer_free (CrReducer *r)
{
  if (r == NULL)
    return;
  const CrDriver *cu = r->device->cu;
  const gboolean in_context =
      cu->CtxPushCurrent (r->device->context) == CUDA_SUCCESS;
  if (in_context) {
    CUdeviceptr *buffers[] = { &r->partials, &r->tickets, &r->state, &r->result,
      &r->staging, &r->bin_scratch, &r->bin_state };
    for (guint k = 0; k < G_N_ELEMENTS (buffers); k++)
      if (*buffers[k])
        cu->MemFree (*buffers[k]);
    if (r->host_result)
      cu->MemFreeHost (r->host_result);
    for (guint k = 0; k < r->slabs->len; k++)
      cu->MemFreeHost (g_ptr_array_index (r->slabs, k));
    for (guint k = 0; k < r->all_events->len; k++)
      cu->EventDestroy (g_ptr_array_index (r->all_events, k));
    if (r->module)
      cu->ModuleUnload (r->module);
  }
  cr_upgrade_drop (r->upgrade);
  cr_window_ring_free (&r->window, cu, in_context);
  cr_region_kernel_free (&r->regions, cu, in_context);
  /* Host memory, freed even when the context is gone. */
  free_arenas (r, in_context);
  if (in_context)
    cu->CtxPopCurrent (NULL);
  g_clear_pointer (&r->gather.ctx, g_free);
  g_ptr_array_unref (r->slabs);
  g_ptr_array_unref (r->free_slots);
  g_ptr_array_unref (r->all_slots);
  g_ptr_array_unref (r->free_events);
  g_ptr_array_unref (r->all_events);
  g_ptr_array_unref (r->free_arenas);
  g_ptr_array_unref (r->free_region_arenas);
  g_ptr_array_unref (r->stale_arenas);
  g_mutex_clear (&r->lock);
  cr_compiled_free (r->compiled);
  cr_device_unref (r->device);
  g_free (r);
}

gchar *
cr_reducer_describe (const CrReducer *r)
{
  int regs = -1, local = -1;
  r->device->cu->FuncGetAttribute (
      &regs, CU_FUNC_ATTRIBUTE_NUM_REGS, r->function);
  r->device->cu->FuncGetAttribute (
      &local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, r->function);
  return g_strdup_printf ("%d registers, %d bytes of local memory, grid of "
                          "up to %u blocks of %d threads",
      regs, local, r->limits.single, CR_BLOCK_THREADS);
}

const CrProgram *
cr_reducer_program (const CrReducer *r)
{
  return r->program;
}

const CrCompiled *
cr_reducer_compiled (const CrReducer *r)
{
  return r->compiled;
}

void
cr_reducer_await_upgrade (CrReducer *r)
{
  if (r->upgrade)
    cr_upgrade_wait (r->upgrade);
}

gboolean
cr_reducer_set_channels (CrReducer *r, guint channels, GError **error)
{
  g_return_val_if_fail (channels >= 1, FALSE);
  g_return_val_if_fail (channels == 1 || r->program->per_channel, FALSE);
  if (channels == r->channels)
    return TRUE;
  if (channels > CR_CHANNELS_MAX) {
    g_set_error (error, CR_ERROR, CR_ERROR_INPUT,
        "%u channels are more than per-channel results support (%u)", channels,
        CR_CHANNELS_MAX);
    return FALSE;
  }
  const guint bins = r->program->bins;
  if (bins && (guint64)channels * CR_BIN_SLOTS (bins) > CR_BIN_COUNTERS_MAX) {
    g_set_error (error, CR_ERROR, CR_ERROR_INPUT,
        "%u channels of %u bins each are more counters than a histogram "
        "keeps on the GPU (%u); use fewer bins or fewer channels",
        channels, bins, CR_BIN_COUNTERS_MAX);
    return FALSE;
  }
  if (!cr_device_push (r->device, error))
    return FALSE;
  /* Queued launches may still use the old buffers. */
  gboolean ok = cr_device_sync (r->device, error)
      && allocate_for_channels (r, channels, error);
  cr_device_pop (r->device);
  /* Slots of the old size are not handed out again (their slabs are freed
   * with the reducer). */
  cr_reducer_forget_gathered (r);
  g_mutex_lock (&r->lock);
  g_ptr_array_set_size (r->free_slots, 0);
  g_ptr_array_extend_and_steal (r->stale_arenas, r->free_arenas);
  g_ptr_array_extend_and_steal (r->stale_arenas, r->free_region_arenas);
  r->free_arenas = g_ptr_array_new ();
  r->free_region_arenas = g_ptr_array_new ();
  g_mutex_unlock (&r->lock);
  return ok;
}

guint
cr_reducer_channels (const CrReducer *r)
{
  return r->channels;
}
