/* cub-histogram.cu: CUB's DeviceHistogram on the shapes the histogram
 * benchmark measures, the ceiling it is compared with in the same run. */
#include "cub-reduce.h"

#include <cub/device/device_histogram.cuh>
#include <cub/version.cuh>
#include <cuda/std/array>

extern "C" int
cr_cub_histogram (CrCubHistogram kind, const void *in, unsigned long long n,
    int bins, unsigned int *counts, void *temp, size_t *temp_bytes,
    void *stream)
{
  cudaStream_t s = (cudaStream_t) stream;
  switch (kind) {
    case CR_CUB_HISTOGRAM_U8:
      return cub::DeviceHistogram::HistogramEven (temp, *temp_bytes,
          (const unsigned char *) in, counts, bins + 1, 0, 256, (int) n, s);
    case CR_CUB_HISTOGRAM_U16:
      return cub::DeviceHistogram::HistogramEven (temp, *temp_bytes,
          (const unsigned short *) in, counts, bins + 1, 0, 65536, (int) n, s);
    case CR_CUB_HISTOGRAM_RGBA: {
      /* 4 interleaved channels, 3 counted: RGB of RGBA pixels. CUB 3
       * takes arrays (its pointer overload is deprecated), older CUB
       * pointers. */
#if CUB_VERSION >= 300000
      cuda::std::array<unsigned int *, 3> hist = { counts, counts + bins,
        counts + 2 * bins };
      cuda::std::array<int, 3> levels = { bins + 1, bins + 1, bins + 1 };
      cuda::std::array<int, 3> lower = { 0, 0, 0 };
      cuda::std::array<int, 3> upper = { 256, 256, 256 };
#else
      unsigned int *hist[3] = { counts, counts + bins, counts + 2 * bins };
      int levels[3] = { bins + 1, bins + 1, bins + 1 };
      int lower[3] = { 0, 0, 0 };
      int upper[3] = { 256, 256, 256 };
#endif
      return cub::DeviceHistogram::MultiHistogramEven<4, 3> (temp,
          *temp_bytes, (const unsigned char *) in, hist, levels, lower, upper,
          (int) (n / 4), s);
    }
    default:
      return (int) cudaErrorInvalidValue;
  }
}
