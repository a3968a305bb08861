/* gstcudareduce-caps.h: what the element accepts and produces, as caps. */
#pragma once

#include "cr-monoid.h"
#include "gstcudareduce-format.h"

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

#define CR_AUDIO_FORMATS "{ S8, U8, S16LE, U16LE, S32LE, U32LE, F32LE, F64LE }"
/* Formats of whole little-endian samples, in planes the GPU reads in
 * place: gray, packed RGB, planar and semi-planar YUV. */
#define CR_VIDEO_FORMATS \
  "{ GRAY8, GRAY16_LE, RGBA, BGRA, RGBx, BGRx, RGB, BGR, I420, YV12, " \
  "Y41B, Y42B, Y444, NV12, NV21, NV16, NV24, I420_10LE, I422_10LE, " \
  "Y444_10LE, P010_10LE, P016_LE }"
#define CR_TENSOR_TYPES \
  "{ (string) int8, (string) uint8, (string) int16, " \
  "(string) uint16, (string) int32, (string) uint32, (string) int64, " \
  "(string) uint64, (string) float32, (string) float64 }"

/* What GstCudaMemory holds (GStreamer 1.22) that the element reads. */
#define CR_CUDA_VIDEO_FORMATS \
  "{ I420, YV12, NV12, NV21, Y42B, Y444, I420_10LE, I422_10LE, P010_10LE, " \
  "P016_LE, RGBA, BGRA, RGBx, BGRx, RGB, BGR }"
/* First, as GStreamer's CUDA elements list it: frames already on the GPU
 * are read where they are. */
#ifdef CR_HAVE_GST_CUDA
#define CR_CUDA_SINK_CAPS \
  "video/x-raw(memory:CUDAMemory), format = (string) " CR_CUDA_VIDEO_FORMATS \
  ", width = (int) [ 1, MAX ], " \
  "height = (int) [ 1, MAX ], framerate = (fraction) [ 0/1, MAX ]; "
#else
#define CR_CUDA_SINK_CAPS ""
#endif

#define CR_SINK_CAPS \
  "audio/x-raw, format = (string) " CR_AUDIO_FORMATS ", " \
  "layout = (string) interleaved, rate = (int) [ 1, MAX ], " \
  "channels = (int) [ 1, MAX ]; " CR_CUDA_SINK_CAPS \
  "video/x-raw, format = (string) " CR_VIDEO_FORMATS ", " \
  "width = (int) [ 1, MAX ], height = (int) [ 1, MAX ], " \
  "framerate = (fraction) [ 0/1, MAX ]; " \
  "other/tensors, format = (string) static, num_tensors = (int) 1, " \
  "types = (string) " CR_TENSOR_TYPES

#define CR_TENSOR_OUTPUT_CAPS "other/tensors, format = (string) static"

/* What fixed @caps say about the data. Fails (CR_ERROR_INPUT, which the
 * element posts as a stream format error) with a message that says what to
 * fix for caps that are not fixed, of no type the element reduces, or of
 * no frame size (tensor dimensions with an extent of 0, not a number or
 * too many elements). */
gboolean cr_input_format_parse (
    const GstCaps *caps, CrInputFormat *fmt, GError **error);
/* The same without saying why. */
gboolean cr_input_format_from_caps (const GstCaps *caps, CrInputFormat *fmt);

/* The element types that @s (fixed or not) allows. */
GList *cr_caps_structure_types (const GstStructure *s);

/* The part of @caps that the element can reduce with these settings (as
 * gst_cuda_reduce_plan_new takes them): video formats that have the
 * components a pair names or @component selects, audio of enough
 * channels, and video alone with @video_only (regions). Tensors stay as
 * they are where they can apply, as their extents are in a string that
 * caps cannot bound. */
GstCaps *cr_caps_readable (const GstCaps *caps, gboolean video_only,
    gboolean per_channel, gint component, gchar **pair);

/* Tensor output caps for input @s: one tensor per result field of @monoid,
 * each of dimension 1 (with @per_channel, the values a result has, which
 * @component may select; left open when @s does not fix them), with the
 * input's framerate (0/1 when it has none). With @regions (not 0), each
 * tensor has that many of those, one per region: [regions][values].
 * Empty caps when @s allows no known type. */
GstCaps *cr_tensor_caps_for_input (const GstStructure *s,
    const CrMonoid *monoid, gboolean per_channel, gint component,
    guint regions);

G_END_DECLS
