#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "backends/cuda/reshard_kernels.hpp"

namespace layoutscope::agent {
namespace {

template <class T>
__global__ void strided_copy(const T* __restrict__ in, T* __restrict__ out, StridedCopy c) {
  for (int64_t y = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; y < c.n;
       y += int64_t{gridDim.x} * blockDim.x) {
    int64_t rest = y, s = c.src_base, d = 0;
    for (int i = c.rank - 1; i >= 0; --i) {
      const int64_t digit = rest % c.extent[i];
      rest /= c.extent[i];
      s += digit * c.src_stride[i];
      d += digit * c.dst_stride[i];
    }
    out[d] = in[s];
  }
}

template <class T>
__device__ T from_integer(int64_t v) {
  return static_cast<T>(v);
}
template <>
__device__ __half from_integer<__half>(int64_t v) {
  return __float2half_rn(static_cast<float>(v));
}
template <>
__device__ __nv_bfloat16 from_integer<__nv_bfloat16>(int64_t v) {
  return __float2bfloat16_rn(static_cast<float>(v));
}

template <class T>
__global__ void pattern_fill(T* p, int64_t count, int64_t rank, int64_t range) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < count;
       i += int64_t{gridDim.x} * blockDim.x)
    p[i] = from_integer<T>((i * 7 + rank * 13) % range + 1);
}

unsigned grid_for(int64_t n, int threads) {
  const int64_t blocks = (n + threads - 1) / threads;
  return static_cast<unsigned>(blocks < 65536 * 16 ? (blocks > 0 ? blocks : 1) : 65536 * 16);
}

}  // namespace

cudaError_t launch_strided_copy(const void* in, void* out, const StridedCopy& c, int elem_bytes,
                                cudaStream_t stream) {
  if (c.n == 0) return cudaSuccess;
  constexpr int kThreads = 256;
  const unsigned grid = grid_for(c.n, kThreads);
  switch (elem_bytes) {
    case 1:
      strided_copy<<<grid, kThreads, 0, stream>>>(static_cast<const uint8_t*>(in), static_cast<uint8_t*>(out),
                                                  c);
      break;
    case 2:
      strided_copy<<<grid, kThreads, 0, stream>>>(static_cast<const uint16_t*>(in),
                                                  static_cast<uint16_t*>(out), c);
      break;
    case 4:
      strided_copy<<<grid, kThreads, 0, stream>>>(static_cast<const uint32_t*>(in),
                                                  static_cast<uint32_t*>(out), c);
      break;
    case 8:
      strided_copy<<<grid, kThreads, 0, stream>>>(static_cast<const uint64_t*>(in),
                                                  static_cast<uint64_t*>(out), c);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t launch_pattern_fill(void* p, int64_t count, int dtype_code, int64_t rank, int64_t range,
                                cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  constexpr int kThreads = 256;
  const unsigned grid = grid_for(count, kThreads);
  switch (dtype_code) {
    case 0:
      pattern_fill<<<grid, kThreads, 0, stream>>>(static_cast<uint8_t*>(p), count, rank, range);
      break;
    case 1:
      pattern_fill<<<grid, kThreads, 0, stream>>>(static_cast<__half*>(p), count, rank, range);
      break;
    case 2:
      pattern_fill<<<grid, kThreads, 0, stream>>>(static_cast<__nv_bfloat16*>(p), count, rank, range);
      break;
    case 3:
      pattern_fill<<<grid, kThreads, 0, stream>>>(static_cast<float*>(p), count, rank, range);
      break;
    case 4:
      pattern_fill<<<grid, kThreads, 0, stream>>>(static_cast<double*>(p), count, rank, range);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace layoutscope::agent
