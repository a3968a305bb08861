/* bench-frames.h: video frames in GPU memory for the benchmarks, made once
 * by cudaupload and pushed again and again. */
#pragma once

#include "bench-common.h"

/* Bytes a frame of 4:2:0 8-bit video has, and its luma's. */
#define FRAME_BYTES(w, h) ((gsize)(w) * (h)*3 / 2)
#define LUMA_BYTES(w, h) ((gsize)(w) * (h))

/* Frames in GPU memory, made once by cudaupload, and the context they live
 * in. */
typedef struct {
  GstElement *maker; /* kept PAUSED until the frames are gone */
  GPtrArray *frames;
  GstContext *context;
  gchar *caps;
} CudaFrames;

/* 8 NV12 frames of @w x @h from
 *
 *   videotestsrc pattern=snow ! cudaupload [cuda-device-id=@device] !
 *   appsink
 *
 * (@device -1 leaves cudaupload's property alone); FALSE where there are
 * not 8 or no CUDA context came with them. Clear @cf either way. */
gboolean cuda_frames_make (CudaFrames *cf, gint w, gint h, gint device);
void cuda_frames_clear (CudaFrames *cf);

/* Why frames in GPU memory cannot be reduced here, or NULL: cudareduce
 * takes no CUDA memory, or there is no cudaupload or none that takes
 * cuda-device-id. */
const gchar *cuda_frames_unavailable (void);
/* The GPU of the CUDA context that made @cf's frames, -1 if unknown. */
gint cuda_frames_gpu (const CudaFrames *cf);
/* The sum of each frame's samples (what cudareduce monoid=sum gives),
 * read back from GPU memory once; NULL where they do not map. */
guint64 *cuda_frames_sums (const CudaFrames *cf);
