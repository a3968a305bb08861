/* kernels/cr-abi.h: what the host and the kernels must agree on, defined
 * once for both.
 *
 * The host includes this file as C (cr-program.h); the generator puts its
 * text at the start of every generated source (cr-program.c), which NVRTC
 * compiles as C++. So it is plain C that both read alike: it includes no
 * header (the generated source has none), has fixed-width types of its
 * own, and makes its checks with both compilers. A layout that crosses the
 * boundary is asserted with literal sizes and offsets, so that a change on
 * either side fails a build instead of corrupting a result.
 * docs/internals.md lists what is shared and what checks it. */
#ifndef CR_ABI_H
#define CR_ABI_H

/* Checks made by the host's C compiler and by NVRTC. NVRTC has no
 * offsetof without a header; its front end folds __INTADDR__ of a member
 * of a null object to a constant. */
#if defined(__CUDACC_RTC__)
#define CR_ABI_ASSERT(expr, what) static_assert (expr, what)
#define CR_ABI_ALIGNOF(type) alignof (type)
#define CR_ABI_OFFSETOF(type, member) __INTADDR__ (&((type *)0)->member)
#elif defined(__cplusplus)
#define CR_ABI_ASSERT(expr, what) static_assert (expr, what)
#define CR_ABI_ALIGNOF(type) alignof (type)
#define CR_ABI_OFFSETOF(type, member) __builtin_offsetof(type, member)
#else
#define CR_ABI_ASSERT(expr, what) _Static_assert(expr, what)
#define CR_ABI_ALIGNOF(type) _Alignof(type)
#define CR_ABI_OFFSETOF(type, member) __builtin_offsetof(type, member)
#endif

/* Fixed-width types without <stdint.h>, which NVRTC does not have. */
typedef unsigned int cr_u32;
typedef unsigned long long cr_u64;
CR_ABI_ASSERT (sizeof (cr_u32) == 4 && CR_ABI_ALIGNOF (cr_u32) == 4, "cr_u32");
CR_ABI_ASSERT (sizeof (cr_u64) == 8 && CR_ABI_ALIGNOF (cr_u64) == 8, "cr_u64");

/* Threads per block of every kernel: the kernels' shared arrays and
 * folds are sized by it, and the host launches with it. */
#define CR_BLOCK_THREADS 256
/* Threads of a warp: the kernels' shuffles and lane arithmetic assume 32;
 * the host's tiles are at most a warp wide. */
#define CR_WARP_THREADS 32
CR_ABI_ASSERT (CR_BLOCK_THREADS % CR_WARP_THREADS == 0
        && CR_BLOCK_THREADS / CR_WARP_THREADS <= CR_WARP_THREADS,
    "a block is whole warps, whose totals one warp folds");

/* Bytes of one vector load (a uint4). Data the kernels read with such
 * loads starts on this boundary: the host checks it before the packed and
 * pitched kernels, starts staged chunks and gathered copies on it, and
 * sizes grids in loads of it. */
#define CR_LOAD_BYTES 16

/* Loads each thread of the single-result, packed and pitched kernels
 * issues before it uses any (reduce.cu). The host gives each thread of
 * a packed launch at least this many, so that none waits for memory more
 * than once a pass. */
#define CR_UNROLL 4
/* Rows each thread of the per-channel kernel loads before it uses any
 * (reduce-channels.cu); the host sizes that kernel's grid so that each
 * thread has this many rows where there are enough. */
#define CR_CH_UNROLL 8

/* Channels per block of the per-channel kernel (a tile), at most: all of
 * them up to a warp's worth, so that wide rows still give each channel
 * several threads to fold partials with. The host passes the width; the
 * kernel's shared memory holds CR_BLOCK_THREADS accumulators. */
#define CR_TILE_WIDTH_MAX CR_WARP_THREADS
CR_ABI_ASSERT (CR_TILE_WIDTH_MAX <= CR_BLOCK_THREADS, "a tile fits a block");
/* Tiles of one launch at most: they are the grid's y dimension, which
 * CUDA bounds at 65535. */
#define CR_TILES_MAX 65535u
/* The most channels a reduction has results for. */
#define CR_CHANNELS_MAX (CR_TILES_MAX * CR_TILE_WIDTH_MAX)

/* The per-channel kernel's grouped fold (cr_finish_channels): past a few
 * pairs of partials a thread, the last block of each group of
 * CR_GROUP_BLOCKS blocks (two per thread of a channel) folds its group's
 * partials first. The kernel indexes the groups' partials and tickets by
 * CR_GROUPS; the host allocates for CR_GROUPS of its largest grid. */
#define CR_GROUP_BLOCKS(width) (2 * (CR_BLOCK_THREADS / (width)))
#define CR_GROUPS(blocks, width) \
  (((blocks) + CR_GROUP_BLOCKS (width) - 1) / CR_GROUP_BLOCKS (width))

/* Bytes the host allocates per partial, for an accumulator of
 * @acc_bytes: at least the kernels' CrAccWords (the accumulator rounded
 * up to whole words), which reduce.cu asserts. */
#define CR_PARTIAL_SLOT_BYTES(acc_bytes) ((acc_bytes) + 16)
/* Bytes of one ticket, the unsigned int counter that elects the last
 * block (reduce.cu asserts its type). */
#define CR_TICKET_BYTES 4

/* The largest accumulator, in bytes: the batch and per-channel kernels
 * keep CR_BLOCK_THREADS + CR_BLOCK_THREADS / CR_WARP_THREADS of them in
 * shared memory, and a block's static shared memory is 48 KiB; at 192
 * bytes ptxas refuses the kernel. The host refuses larger ones before
 * compiling; reduce.cu asserts it. */
#define CR_ACC_MAX_BYTES 184
CR_ABI_ASSERT ((CR_BLOCK_THREADS + CR_BLOCK_THREADS / CR_WARP_THREADS)
            * ((CR_ACC_MAX_BYTES + 3) / 4 * 4)
        <= 48 * 1024,
    "the largest accumulators fit a block's shared memory");

/* The pitched kernel counts its loads in 32 bits: fewer than this many
 * (the host checks before it launches it). */
#define CR_PITCHED_LOADS_LIMIT 0x7fffffffu

/* Reductions in one batch (reduce-batch.cu), each a segment of the batch
 * kernel's parameter. The host gathers no more, and allocates results and
 * partials for this many. */
#define CR_BATCH_MAX 64

/* Flags of a segment. CARRY: the segment continues the state before it
 * (the previous segment's, or for the first the state of the launches
 * before). EMIT: the segment ends a result, written to
 * results[result * channels ...]. HOP (with EMIT): the segment ends a hop
 * of a sliding window (kernels/window.cu): its state goes to the ring's
 * slot CR_SEGMENT_SLOT, and its result combines the CR_SEGMENT_SPAN slots
 * that end there, over the rows of the batch's CrBatchWindow. */
#define CR_SEGMENT_CARRY 1u
#define CR_SEGMENT_EMIT 2u
#define CR_SEGMENT_HOP 4u
/* A window's slots and span, in the flags' upper bits. */
#define CR_SEGMENT_MAX_HOPS 4095u
#define CR_SEGMENT_HOP_FLAGS(slot, span) \
  (CR_SEGMENT_HOP | (cr_u32)(slot) << 8 | (cr_u32)(span) << 20)
#define CR_SEGMENT_SLOT(flags) (((flags) >> 8) & CR_SEGMENT_MAX_HOPS)
#define CR_SEGMENT_SPAN(flags) ((flags) >> 20)

/* One reduction of a batch. */
struct CrSegment {
  cr_u64 data; /* device address of rows * channels elements, aligned to
                  their size */
  cr_u64 rows;
  cr_u64 row_base; /* index of the first row in its result */
  cr_u32 flags; /* CR_SEGMENT_* */
  cr_u32 result;
};

/* The batch kernel's parameter, passed by value (constant memory). */
struct CrBatch {
  cr_u32 n; /* segments, one block each */
  cr_u32 channels; /* at most CR_BLOCK_THREADS */
  cr_u32 fold; /* some segment carries, or does not emit */
  cr_u32 unused;
  struct CrSegment segments[CR_BATCH_MAX];
};

CR_ABI_ASSERT (
    sizeof (struct CrSegment) == 32 && CR_ABI_ALIGNOF (struct CrSegment) == 8,
    "CrSegment layout");
CR_ABI_ASSERT (CR_ABI_OFFSETOF (struct CrSegment, data) == 0
        && CR_ABI_OFFSETOF (struct CrSegment, rows) == 8
        && CR_ABI_OFFSETOF (struct CrSegment, row_base) == 16
        && CR_ABI_OFFSETOF (struct CrSegment, flags) == 24
        && CR_ABI_OFFSETOF (struct CrSegment, result) == 28,
    "CrSegment offsets");
CR_ABI_ASSERT (CR_ABI_OFFSETOF (struct CrBatch, n) == 0
        && CR_ABI_OFFSETOF (struct CrBatch, channels) == 4
        && CR_ABI_OFFSETOF (struct CrBatch, fold) == 8
        && CR_ABI_OFFSETOF (struct CrBatch, unused) == 12
        && CR_ABI_OFFSETOF (struct CrBatch, segments) == 16,
    "CrBatch offsets");
CR_ABI_ASSERT (sizeof (struct CrBatch) == 16 + 32 * CR_BATCH_MAX
        && CR_ABI_ALIGNOF (struct CrBatch) == 8,
    "CrBatch layout");
/* Under the 4 KiB of kernel parameters that every driver accepts. */
CR_ABI_ASSERT (sizeof (struct CrBatch) <= 4096, "CrBatch fits a launch");

/* Frames in GPU memory gathered into one launch (reduce-batch.cu's
 * cr_reduce_frames): large regions of one channel, each read in place by
 * blocks of its own, whose partials the last block folds in frame order
 * as the batch kernel folds its segments. The host gathers at most
 * CR_FRAMES_MAX; a frame that ends a window's hop writes its rows in the
 * batch's CrBatchWindow at its index. */
#define CR_FRAMES_MAX 16

/* One frame of a batch: @n_vec loads in lines of @line_vecs loads,
 * @pitch bytes apart (data and pitch aligned to CR_LOAD_BYTES, n_vec
 * below CR_PITCHED_LOADS_LIMIT); a packed region is one line. */
struct CrFrame {
  cr_u64 data; /* device address */
  cr_u64 pitch;
  cr_u64 row_base; /* index of its first element in its result */
  cr_u32 line_vecs;
  cr_u32 n_vec;
  cr_u32 first_block; /* it is read by blocks first_block... */
  cr_u32 blocks; /* ...this many */
  cr_u32 flags; /* CR_SEGMENT_* */
  cr_u32 result;
};

/* cr_reduce_frames's parameter, passed by value. */
struct CrFrameBatch {
  cr_u32 n; /* frames */
  cr_u32 blocks; /* the grid: every frame's blocks */
  struct CrFrame frames[CR_FRAMES_MAX];
};

CR_ABI_ASSERT (
    sizeof (struct CrFrame) == 48 && CR_ABI_ALIGNOF (struct CrFrame) == 8,
    "CrFrame layout");
CR_ABI_ASSERT (CR_ABI_OFFSETOF (struct CrFrame, data) == 0
        && CR_ABI_OFFSETOF (struct CrFrame, pitch) == 8
        && CR_ABI_OFFSETOF (struct CrFrame, row_base) == 16
        && CR_ABI_OFFSETOF (struct CrFrame, line_vecs) == 24
        && CR_ABI_OFFSETOF (struct CrFrame, n_vec) == 28
        && CR_ABI_OFFSETOF (struct CrFrame, first_block) == 32
        && CR_ABI_OFFSETOF (struct CrFrame, blocks) == 36
        && CR_ABI_OFFSETOF (struct CrFrame, flags) == 40
        && CR_ABI_OFFSETOF (struct CrFrame, result) == 44,
    "CrFrame offsets");
CR_ABI_ASSERT (CR_ABI_OFFSETOF (struct CrFrameBatch, n) == 0
        && CR_ABI_OFFSETOF (struct CrFrameBatch, blocks) == 4
        && CR_ABI_OFFSETOF (struct CrFrameBatch, frames) == 8
        && sizeof (struct CrFrameBatch) == 8 + 48 * CR_FRAMES_MAX,
    "CrFrameBatch layout");
CR_ABI_ASSERT (CR_FRAMES_MAX <= CR_BATCH_MAX,
    "a batch's results and window rows hold a batch of frames'");
/* Its parameters before the Ctx are fewer than the batch kernel's. */
CR_ABI_ASSERT (sizeof (struct CrFrameBatch) <= sizeof (struct CrBatch),
    "CrFrameBatch fits beside the largest Ctx");

/* Where segments of a batch end hops of a sliding window
 * (CR_SEGMENT_HOP): in the batch's pinned memory, after its CR_BATCH_MAX
 * results (CR_BATCH_WINDOW_OFFSET from their start), written by the host
 * as it gathers, so that the kernel's parameters keep their size. */
struct CrBatchWindow {
  cr_u64 ring; /* device address of the ring's slots of channels Acc */
  cr_u32 ring_hops; /* its slots */
  cr_u32 unused;
  cr_u64 rows[CR_BATCH_MAX]; /* segment s's window's rows, per channel */
};
#define CR_BATCH_WINDOW_OFFSET(result_bytes) \
  (((cr_u64)(result_bytes)*CR_BATCH_MAX + 7) / 8 * 8)

CR_ABI_ASSERT (CR_ABI_OFFSETOF (struct CrBatchWindow, ring) == 0
        && CR_ABI_OFFSETOF (struct CrBatchWindow, ring_hops) == 8
        && CR_ABI_OFFSETOF (struct CrBatchWindow, rows) == 16
        && sizeof (struct CrBatchWindow) == 16 + 8 * CR_BATCH_MAX,
    "CrBatchWindow layout");

/* A kernel's parameters take at most the 4 KiB every driver accepts (CUDA
 * 12.1 allows more on Volta and later, with drivers as new). The monoid's
 * Ctx is passed by value last; the most any kernel passes before it is
 * cr_reduce_batch's batch and four pointers, so a Ctx holds at most
 * CR_CTX_MAX_BYTES (2000). */
#define CR_PARAMS_MAX_BYTES 4096
#define CR_PARAMS_BEFORE_CTX (sizeof (struct CrBatch) + 4 * 8)
#define CR_CTX_MAX_BYTES (CR_PARAMS_MAX_BYTES - CR_PARAMS_BEFORE_CTX)

/* A histogram's counts per channel, as the histogram kernel keeps them
 * (histogram.cu) and the host reads them: the bins, then the values below
 * the range, above it, and NaN, each a cr_u64. */
#define CR_BINS_EXTRA 3
#define CR_BIN_SLOTS(bins) ((bins) + CR_BINS_EXTRA)
/* Dynamic shared memory the histogram kernels' counters may take: within
 * the 48 KiB a block has without opting in, beside their static data, up
 * to 4.6 KiB: 8-bit input's table of slots (1 KiB), the percentiles'
 * runs (2 KiB), a block's warp totals (CR_WARPS accumulators of up to
 * CR_ACC_MAX_BYTES) and the ticket's flag. */
#define CR_BINS_SHARED_MAX_BYTES (43 * 1024)
/* Counters a histogram keeps per reduction on the GPU (channels times
 * slots), twice over (the counts and the carried state); the host refuses
 * more before allocating. */
#define CR_BIN_COUNTERS_MAX (1u << 24)

/* Where the kernels that count bins (histogram.cu) keep the counts of
 * channels * CR_BIN_SLOTS slots: device addresses of cr_u64 counters.
 * Passed by value. */
struct CrBinArgs {
  cr_u64 scratch; /* zero before and after every launch */
  cr_u64 carry; /* 0, or the counts of the launches before (may be state) */
  cr_u64 state; /* receives carry plus this launch's counts */
  cr_u64 result; /* the same, then each channel's percentiles (doubles) */
  cr_u32 copies; /* shared copies of the counters per block (0: none) */
  cr_u32 unused;
};

CR_ABI_ASSERT (
    sizeof (struct CrBinArgs) == 40 && CR_ABI_ALIGNOF (struct CrBinArgs) == 8,
    "CrBinArgs layout");
CR_ABI_ASSERT (CR_ABI_OFFSETOF (struct CrBinArgs, scratch) == 0
        && CR_ABI_OFFSETOF (struct CrBinArgs, carry) == 8
        && CR_ABI_OFFSETOF (struct CrBinArgs, state) == 16
        && CR_ABI_OFFSETOF (struct CrBinArgs, result) == 24
        && CR_ABI_OFFSETOF (struct CrBinArgs, copies) == 32
        && CR_ABI_OFFSETOF (struct CrBinArgs, unused) == 36,
    "CrBinArgs offsets");
/* The kernels that take it pass at most 12 other 8-byte parameters before
 * the Ctx (histogram.cu's cr_reduce_binned_pitched), fewer than the batch
 * kernel's, which CR_CTX_MAX_BYTES allows for. */
CR_ABI_ASSERT (sizeof (struct CrBinArgs) + 12 * 8 <= CR_PARAMS_BEFORE_CTX,
    "the counting kernels' parameters fit beside the largest Ctx");

/* Regions of a frame's plane, each reduced to a result of its own in one
 * launch (regions.cu). At most CR_REGIONS_MAX a launch; each is read by
 * one or more blocks, CR_REGION_BLOCKS_MAX of them in all, and has at most
 * CR_REGION_CHANNELS_MAX interleaved channels (a video plane's
 * components: RGBA's four). */
#define CR_REGIONS_MAX 4096
#define CR_REGION_BLOCKS_MAX 16384
#define CR_REGION_CHANNELS_MAX 4
/* The planes one launch reads each region in (a video frame's, as
 * GST_VIDEO_MAX_PLANES), one after another into the same state. */
#define CR_REGION_PLANES_MAX 4
/* Flags of a launch over regions. CARRY: each region continues the state
 * an earlier launch left for it (the frame's earlier planes, the frames
 * before in an interval). EMIT: each region's result is written. Either
 * way each region's state is kept for the next launch. */
#define CR_REGIONS_CARRY 1u
#define CR_REGIONS_EMIT 2u
/* A block map's entry for a group of regions a warp each (regions.cu):
 * the bit, the count (1 to CR_BLOCK_THREADS / CR_WARP_THREADS) and the
 * first region's index; the group's regions are consecutive. */
#define CR_REGION_GROUP_BIT 0x80000000u
#define CR_REGION_GROUP(first, size) \
  (CR_REGION_GROUP_BIT | (size) << 16 | (first))
#define CR_REGION_GROUP_SIZE(entry) ((entry) >> 16 & 0xffu)
#define CR_REGION_GROUP_FIRST(entry) ((entry)&0xffffu)
CR_ABI_ASSERT (
    CR_REGIONS_MAX <= 0x10000 && CR_BLOCK_THREADS / CR_WARP_THREADS <= 0xff,
    "a group's entry holds its first region and its size");

/* One region of a plane: @lines lines of @width rows (pixels) of the
 * launch's channels, the first at @offset bytes from the launch's first
 * plane (a later plane of the same launch lies that far from it, modulo
 * 2^64), lines @pitch bytes apart. A launch over several planes lists
 * each plane's regions in turn, region k of plane p at p * regions + k;
 * plane 0's entry has the blocks that read region k in all its planes,
 * and the last plane's the count its result is finalized over. */
struct CrRegionRect {
  cr_u64 offset;
  cr_u64 row_base; /* the index of its first row: rows before it in the
                      result (earlier planes, earlier frames) */
  cr_u64 count; /* finalize's count, with CR_REGIONS_EMIT */
  cr_u64 pitch;
  cr_u32 width;
  cr_u32 lines;
  cr_u32 first_block; /* of the blocks that read it, consecutive */
  cr_u32 blocks;
};

CR_ABI_ASSERT (sizeof (struct CrRegionRect) == 48
        && CR_ABI_ALIGNOF (struct CrRegionRect) == 8,
    "CrRegionRect layout");
CR_ABI_ASSERT (CR_ABI_OFFSETOF (struct CrRegionRect, offset) == 0
        && CR_ABI_OFFSETOF (struct CrRegionRect, row_base) == 8
        && CR_ABI_OFFSETOF (struct CrRegionRect, count) == 16
        && CR_ABI_OFFSETOF (struct CrRegionRect, pitch) == 24
        && CR_ABI_OFFSETOF (struct CrRegionRect, width) == 32
        && CR_ABI_OFFSETOF (struct CrRegionRect, lines) == 36
        && CR_ABI_OFFSETOF (struct CrRegionRect, first_block) == 40
        && CR_ABI_OFFSETOF (struct CrRegionRect, blocks) == 44,
    "CrRegionRect offsets");

#endif /* CR_ABI_H */
