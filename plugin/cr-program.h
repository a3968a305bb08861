/* cr-program.h: a monoid specialised for one input type, as CUDA source.
 *
 * The generated source is a prelude (types and the monoid's four functions)
 * followed by the kernel templates from kernels/, so the result of a
 * reduction has exactly the layouts recorded here. */
#pragma once

/* CR_BLOCK_THREADS, CR_BATCH_MAX, CR_ACC_MAX_BYTES and the rest of what
 * the kernels share with the host. */
#include "cr-abi.h"
#include "cr-monoid.h"

G_BEGIN_DECLS

/* The kernels a program has besides the two every program has (one result
 * over contiguous data, cr_reduce; batches of small reductions,
 * cr_reduce_batch). NVRTC's time grows with each, so an element asks for
 * those its input can use; the reducer goes without the others. */
typedef enum {
  /* Lines with padding between them, read in place (video); without it
   * they are copied to contiguous memory first. */
  CR_KERNELS_PITCHED = 1 << 0,
  /* One result per channel, any number of channels: the per-channel
   * programs' kernel, which the ones below only speed up. */
  CR_KERNELS_CHANNELS = 1 << 1,
  /* 2, 4 or 8 channels packed in each 16-byte load, where a row divides
   * one; with CR_KERNELS_CHANNELS. */
  CR_KERNELS_VEC2 = 1 << 2,
  CR_KERNELS_VEC4 = 1 << 3,
  CR_KERNELS_VEC8 = 1 << 4,
  /* A sliding window's result from its hops' states (kernels/window.cu):
   * for an element with a window longer than its interval. */
  CR_KERNELS_WINDOW = 1 << 5,
  /* Results per region of a frame's plane (kernels/regions.cu), for
   * monoids without bins. */
  CR_KERNELS_REGIONS = 1 << 6,
} CrKernels;

#define CR_KERNELS_PER_CHANNEL \
  (CR_KERNELS_CHANNELS | CR_KERNELS_VEC2 | CR_KERNELS_VEC4 | CR_KERNELS_VEC8)
#define CR_KERNELS_ALL (CR_KERNELS_PITCHED | CR_KERNELS_PER_CHANNEL)

/* The flag of the packed kernel for @channels of @in, or 0 where none
 * applies. */
CrKernels cr_kernels_vec (CrType in, guint channels);

/* The most kernel sets cr_kernels_variants gives. */
#define CR_KERNELS_MAX_VARIANTS 10

/* Every set of kernels an element may build a program of @in with: with
 * or without the pitched kernel, and one result, or per channel with any
 * packed kernel cr_kernels_vec gives for @in (only the first two with
 * @single). Written to @sets (CR_KERNELS_MAX_VARIANTS of them at most);
 * returns how many. What a cache is filled with ahead of time
 * (cudareduce-monoid --fill-cache): an element's program is always one of
 * these. */
guint cr_kernels_variants (CrType in, gboolean single, CrKernels *sets);

typedef struct {
  CrMonoid *monoid;
  CrType in;
  CrKernels kernels;
  CrLayout acc;
  CrLayout ctx;
  /* Each result as the host reads it: the monoid's result fields (acc's
   * when there is no Finalize), then for a monoid with bins the counts
   * (histogram, below, above, nan: cr_program_unpack). */
  CrLayout out;
  CrLayout out_device; /* the monoid's Out alone, as its kernels write it */
  guint bins; /* the monoid's counters (bins x bins for a pair); 0: none */
  guint pair_bins; /* a pair's bins along each axis; 0: single values */
  gint bins_field; /* the histogram's index in out, or -1 */
  guint n_points; /* the percentiles' points, all fields together */
  gboolean per_channel; /* has CR_KERNELS_CHANNELS */
  gchar *source;
} CrProgram;

/* With @kernels besides the two every program has. Per-channel results
 * (cr_reducer_set_channels() with more than one channel) need
 * CR_KERNELS_CHANNELS. */
CrProgram *cr_program_new_with (CrMonoid *monoid, CrType in, CrKernels kernels);
/* Every kernel for one result (CR_KERNELS_PITCHED). */
CrProgram *cr_program_new (CrMonoid *monoid, CrType in);
/* Every kernel (CR_KERNELS_ALL). */
CrProgram *cr_program_new_per_channel (CrMonoid *monoid, CrType in);
void cr_program_free (CrProgram *program);
/* Whether the kernels can hold @program's accumulator and take its context
 * (CR_ERROR_FIELDS says why not): checked before compiling, where NVRTC
 * would only say that a kernel uses too much shared data or parameter
 * space. */
gboolean cr_program_check_limits (const CrProgram *program, GError **error);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CrProgram, cr_program_free)

/* Where the histogram kernel writes @channels channels' counts in a
 * result, after the monoid kernels' Out of each (cr_u64 each, from a
 * cr_u64 boundary). */
#define CR_BINS_RESULT_OFFSET(channels, out_bytes) \
  (((gsize)(channels) * (out_bytes) + 7) / 8 * 8)

/* Turns @channels results as the kernels wrote them (every channel's Out,
 * then every channel's counts, then every channel's n_points percentiles
 * as doubles) into the host's values (channel after channel, each out.size
 * bytes). */
void cr_program_unpack (const CrProgram *program, guint channels,
    const guint8 *device, guint8 *values);
/* The same, from @device's Out of each channel and @counts, every
 * channel's counts then percentiles, apart. */
void cr_program_unpack_parts (const CrProgram *program, guint channels,
    const guint8 *device, const guint8 *counts, guint8 *values);
/* The bytes of @channels channels' counts and percentiles, as the
 * kernels write them after the Out. */
gsize cr_program_bins_bytes (const CrProgram *program, guint channels);
/* Region @k's results of @n, as the regions' kernels write them in one
 * launch's @device: every region's Out (channels each), then from a
 * cr_u64 boundary (CR_BINS_RESULT_OFFSET of them all) every region's
 * counts and percentiles (cr_program_bins_bytes each). */
void cr_program_unpack_region (const CrProgram *program, guint channels,
    guint n, guint k, const guint8 *device, guint8 *values);

/* @source with each line prefixed by its number, as compiler logs cite it. */
gchar *cr_source_number_lines (const gchar *source);

/* Packs context values into a Ctx as the device lays it out. Fields named in
 * neither @threshold_field ("threshold") nor @values (GValues keyed by
 * name) are zero. Unknown names and values that do not fit the field's type
 * are errors (CR_ERROR_CONTEXT). @ctx must hold program->ctx.size bytes.
 * With bins, lo and hi left at 0 become an integer type's whole range
 * (from its lowest value to its largest plus one); a range the bins
 * cannot have is an error (CR_ERROR_CONTEXT) that says what to set. */
gboolean cr_program_pack_context (const CrProgram *program, gdouble threshold,
    GHashTable *values, guint8 *ctx, GError **error);

G_END_DECLS
