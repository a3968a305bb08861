/* gstcudareduce-format.h: what fixed sink caps say about the data, as the
 * caps parser (gstcudareduce-caps.c) fills it in and the plan
 * (gstcudareduce-plan.c) reads it. A header of its own so that neither
 * of those includes the other's. */
#pragma once

#include "cr-types.h"

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

typedef enum {
  CR_INPUT_AUDIO,
  CR_INPUT_VIDEO,
  CR_INPUT_TENSOR,
} CrInputFamily;

typedef struct {
  CrInputFamily family;
  CrType type;
  gint rate; /* audio */
  GstVideoInfo video; /* video */
  gboolean cuda_memory; /* video in GPU memory (memory:CUDAMemory) */
  /* The size of one buffer when the caps fix it (video frames, tensors with
   * dimensions), else 0. */
  gsize frame_bytes;
  /* Interleaved channels: audio channels, a tensor's innermost dimension,
   * samples of a pixel in video's first plane (4 for RGBx, 1 for gray and
   * YUV). */
  guint channels;
  /* The values a result has per field with per-channel results: channels,
   * video components (3 for RGBx and YUV). */
  guint components;
} CrInputFormat;

G_END_DECLS
