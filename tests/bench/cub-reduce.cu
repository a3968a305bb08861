/* cub-reduce.cu: CUB's DeviceReduce on the operations the benchmark
 * measures, so that cudareduce is compared with NVIDIA's own library in the
 * same run, on the same bytes. */
#include "cub-reduce.h"

#include <cub/device/device_reduce.cuh>
#include <cuda/std/limits>

namespace {

struct SumSq {
  long long sum, sumsq;
};

struct MinMax {
  float min, max;
};

/* mean_var's accumulator: sums of x - shift, shift being one sample. */
struct Shifted {
  double count, shift, s1, s2;
};

struct ToWide {
  __device__ long long operator() (int x) const { return x; }
};

struct ToDouble {
  __device__ double operator() (float x) const { return x; }
};

struct ToSumSq {
  __device__ SumSq operator() (int x) const
  {
    return SumSq{x, (long long) x * x};
  }
};

struct AddSumSq {
  __device__ SumSq operator() (const SumSq &a, const SumSq &b) const
  {
    return SumSq{a.sum + b.sum, a.sumsq + b.sumsq};
  }
};

struct ToMinMax {
  __device__ MinMax operator() (float x) const { return MinMax{x, x}; }
};

struct MergeMinMax {
  __device__ MinMax operator() (const MinMax &a, const MinMax &b) const
  {
    return MinMax{fminf (a.min, b.min), fmaxf (a.max, b.max)};
  }
};

struct ToShifted {
  __device__ Shifted operator() (float x) const
  {
    return Shifted{1, (double) x, 0, 0};
  }
};

struct MergeShifted {
  __device__ Shifted operator() (const Shifted &a, const Shifted &b) const
  {
    if (a.count == 0)
      return b;
    if (b.count == 0)
      return a;
    double d = b.shift - a.shift;
    return Shifted{a.count + b.count, a.shift, a.s1 + b.s1 + b.count * d,
        a.s2 + b.s2 + d * (2 * b.s1 + b.count * d)};
  }
};

struct Above {
  double threshold;
  __device__ unsigned long long operator() (float x) const
  {
    return x > threshold;
  }
};

struct Plus {
  template <typename T>
  __device__ T operator() (const T &a, const T &b) const
  {
    return a + b;
  }
};

} // namespace

extern "C" int
cr_cub_reduce (CrCubOp op, const void *in, unsigned long long n, void *out,
    void *temp, size_t *temp_bytes, void *stream, double threshold)
{
  cudaStream_t s = (cudaStream_t) stream;
  const int *i32 = (const int *) in;
  const float *f32 = (const float *) in;
  const float inf = cuda::std::numeric_limits<float>::infinity ();

  switch (op) {
    case CR_CUB_SUM_INT32:
      return cub::DeviceReduce::Sum (temp, *temp_bytes, i32, (int *) out, n, s);
    case CR_CUB_SUM_WIDE_INT32:
      return cub::DeviceReduce::TransformReduce (temp, *temp_bytes, i32,
          (long long *) out, n, Plus (), ToWide (), 0ll, s);
    case CR_CUB_SUM_FLOAT32:
      return cub::DeviceReduce::TransformReduce (temp, *temp_bytes, f32,
          (double *) out, n, Plus (), ToDouble (), 0.0, s);
    case CR_CUB_SUMSQ_INT32:
      return cub::DeviceReduce::TransformReduce (temp, *temp_bytes, i32,
          (SumSq *) out, n, AddSumSq (), ToSumSq (), SumSq{0, 0}, s);
    case CR_CUB_MINMAX_FLOAT32:
      return cub::DeviceReduce::TransformReduce (temp, *temp_bytes, f32,
          (MinMax *) out, n, MergeMinMax (), ToMinMax (), MinMax{inf, -inf},
          s);
    case CR_CUB_MEAN_VAR_FLOAT32:
      return cub::DeviceReduce::TransformReduce (temp, *temp_bytes, f32,
          (Shifted *) out, n, MergeShifted (), ToShifted (),
          Shifted{0, 0, 0, 0}, s);
    case CR_CUB_COUNT_GT_FLOAT32:
      return cub::DeviceReduce::TransformReduce (temp, *temp_bytes, f32,
          (unsigned long long *) out, n, Plus (), Above{threshold}, 0ull, s);
    case CR_CUB_ARGMAX_FLOAT32:
      return cub::DeviceReduce::ArgMax (temp, *temp_bytes, f32, (float *) out,
          (long long *) ((char *) out + 8), (long long) n, s);
    default:
      return (int) cudaErrorInvalidValue;
  }
}

extern "C" const char *
cr_cub_describe (CrCubOp op)
{
  static const char *const names[CR_CUB_N_OPS] = {
    "Sum", "TransformReduce", "TransformReduce", "TransformReduce",
    "TransformReduce", "TransformReduce", "TransformReduce", "ArgMax",
  };
  return op < CR_CUB_N_OPS ? names[op] : "?";
}
