#include <algorithm>

#include "cuda_kernels.hpp"
#include "random_input.hpp"

namespace layoutscope::agent::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kTile = 32;
constexpr int kBlockRows = 8;

unsigned blocks_for(int64_t work) {
  // One item per thread up to 2^20 blocks, then the kernels' grid-stride loops take the rest.
  return static_cast<unsigned>(std::clamp<int64_t>((work + kThreads - 1) / kThreads, 1, int64_t{1} << 20));
}

__global__ void fill_fields_kernel(float* data, int64_t n, bool soa, uint64_t seed) {
  const int64_t total = n * 8;
  for (int64_t flat = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; flat < total;
       flat += int64_t{gridDim.x} * blockDim.x) {
    const int64_t i = flat / 8, k = flat % 8;
    data[soa ? k * n + i : flat] = random_input(seed, static_cast<uint64_t>(flat));
  }
}

__global__ void fill_linear_kernel(float* data, int64_t count, uint64_t seed) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < count; i += int64_t{gridDim.x} * blockDim.x)
    data[i] = random_input(seed, static_cast<uint64_t>(i));
}

// records is only 4-byte aligned as far as the compiler knows, so f[0], f[1], ... stay scalar accesses:
// the warp's load of field k touches 32 lanes x 32 B apart = 32 sectors (the document's AoS pattern).
template <int kTouch>
__global__ void aos_touch_kernel(float* __restrict__ records, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x) {
    float* f = records + i * 8;
#pragma unroll
    for (int k = 0; k < kTouch; ++k) f[k] += 1.0f;
  }
}

template <int kTouch>
__global__ void soa_touch_kernel(float* __restrict__ fields, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x) {
#pragma unroll
    for (int k = 0; k < kTouch; ++k) fields[k * n + i] += 1.0f;
  }
}

__global__ void copy_vec4_kernel(const float4* __restrict__ in, float4* __restrict__ out, int64_t count4) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < count4; i += int64_t{gridDim.x} * blockDim.x)
    out[i] = in[i];
}

__global__ void copy_tail_kernel(const float* __restrict__ in, float* __restrict__ out, int64_t begin, int64_t end) {
  const int64_t i = begin + blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  if (i < end) out[i] = in[i];
}

// Reads row-wise (coalesced), writes column-wise: lane x writes out[x * dim + y], dim floats apart.
__global__ void transpose_naive_kernel(const float* __restrict__ in, float* __restrict__ out, int64_t dim) {
  const int64_t x = blockIdx.x * int64_t{kTile} + threadIdx.x;
  const int64_t y0 = blockIdx.y * int64_t{kTile} + threadIdx.y;
  if (x >= dim) return;
  for (int j = 0; j < kTile; j += kBlockRows) {
    const int64_t y = y0 + j;
    if (y < dim) out[x * dim + y] = in[y * dim + x];
  }
}

// Coalesced read into tile[row][col], coalesced write from tile[col][row]: the second access walks a
// column of the tile. With kPad = 0 the 32 lanes hit one bank (32 wavefronts); with kPad = 1 the row
// pitch of 33 words puts them in 32 different banks (1 wavefront).
template <int kPad>
__global__ void transpose_tiled_kernel(const float* __restrict__ in, float* __restrict__ out, int64_t dim) {
  __shared__ float tile[kTile][kTile + kPad];
  int64_t x = blockIdx.x * int64_t{kTile} + threadIdx.x;
  int64_t y = blockIdx.y * int64_t{kTile} + threadIdx.y;
  for (int j = 0; j < kTile; j += kBlockRows)
    if (x < dim && y + j < dim) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * dim + x];
  __syncthreads();
  x = blockIdx.y * int64_t{kTile} + threadIdx.x;
  y = blockIdx.x * int64_t{kTile} + threadIdx.y;
  for (int j = 0; j < kTile; j += kBlockRows)
    if (x < dim && y + j < dim) out[(y + j) * dim + x] = tile[threadIdx.x][threadIdx.y + j];
}

dim3 tile_grid(int64_t dim) {
  const auto tiles = static_cast<unsigned>((dim + kTile - 1) / kTile);
  return dim3(tiles, tiles);
}

}  // namespace

cudaError_t fill_fields(float* data, int64_t n, bool soa, uint64_t seed, cudaStream_t stream) {
  fill_fields_kernel<<<blocks_for(n * 8), kThreads, 0, stream>>>(data, n, soa, seed);
  return cudaGetLastError();
}

cudaError_t fill_linear(float* data, int64_t count, uint64_t seed, cudaStream_t stream) {
  fill_linear_kernel<<<blocks_for(count), kThreads, 0, stream>>>(data, count, seed);
  return cudaGetLastError();
}

cudaError_t aos_touch(float* records, int64_t n, int touch, cudaStream_t stream) {
  const unsigned blocks = blocks_for(n);
  switch (touch) {
    case 1: aos_touch_kernel<1><<<blocks, kThreads, 0, stream>>>(records, n); break;
    case 2: aos_touch_kernel<2><<<blocks, kThreads, 0, stream>>>(records, n); break;
    case 4: aos_touch_kernel<4><<<blocks, kThreads, 0, stream>>>(records, n); break;
    case 8: aos_touch_kernel<8><<<blocks, kThreads, 0, stream>>>(records, n); break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t soa_touch(float* fields, int64_t n, int touch, cudaStream_t stream) {
  const unsigned blocks = blocks_for(n);
  switch (touch) {
    case 1: soa_touch_kernel<1><<<blocks, kThreads, 0, stream>>>(fields, n); break;
    case 2: soa_touch_kernel<2><<<blocks, kThreads, 0, stream>>>(fields, n); break;
    case 4: soa_touch_kernel<4><<<blocks, kThreads, 0, stream>>>(fields, n); break;
    case 8: soa_touch_kernel<8><<<blocks, kThreads, 0, stream>>>(fields, n); break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t copy_matrix(const float* in, float* out, int64_t dim, cudaStream_t stream) {
  const int64_t count = dim * dim, count4 = count / 4;  // cudaMalloc returns 256 B aligned memory
  if (count4 > 0)
    copy_vec4_kernel<<<blocks_for(count4), kThreads, 0, stream>>>(reinterpret_cast<const float4*>(in),
                                                                  reinterpret_cast<float4*>(out), count4);
  if (count4 * 4 < count) copy_tail_kernel<<<1, kThreads, 0, stream>>>(in, out, count4 * 4, count);
  return cudaGetLastError();
}

cudaError_t transpose_naive(const float* in, float* out, int64_t dim, cudaStream_t stream) {
  transpose_naive_kernel<<<tile_grid(dim), dim3(kTile, kBlockRows), 0, stream>>>(in, out, dim);
  return cudaGetLastError();
}

cudaError_t transpose_tiled(const float* in, float* out, int64_t dim, cudaStream_t stream) {
  transpose_tiled_kernel<0><<<tile_grid(dim), dim3(kTile, kBlockRows), 0, stream>>>(in, out, dim);
  return cudaGetLastError();
}

cudaError_t transpose_pad(const float* in, float* out, int64_t dim, cudaStream_t stream) {
  transpose_tiled_kernel<1><<<tile_grid(dim), dim3(kTile, kBlockRows), 0, stream>>>(in, out, dim);
  return cudaGetLastError();
}

}  // namespace layoutscope::agent::cuda
