// Launchers of the device code in cuda_kernels.cu (host-callable; no device code in this header).
// Every launcher enqueues on `stream` and returns cudaGetLastError() of the launch.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace layoutscope::agent::cuda {

// AoS/SoA data of n elements x 8 fields, element i field k = random_input(seed, i * 8 + k),
// stored at i * 8 + k (AoS) or k * n + i (SoA).
cudaError_t fill_fields(float* data, int64_t n, bool soa, uint64_t seed, cudaStream_t stream);
// data[i] = random_input(seed, i) for i < count.
cudaError_t fill_linear(float* data, int64_t count, uint64_t seed, cudaStream_t stream);

// Fields 0..touch-1 of every element += 1.0f, one scalar load and store per field (touch in {1,2,4,8}).
cudaError_t aos_touch(float* records, int64_t n, int touch, cudaStream_t stream);
cudaError_t soa_touch(float* fields, int64_t n, int touch, cudaStream_t stream);

// dim x dim fp32. copy: 16 B accesses where aligned (grid-stride), scalar tail.
cudaError_t copy_matrix(const float* in, float* out, int64_t dim, cudaStream_t stream);
// Mark Harris, "An Efficient Matrix Transpose in CUDA C/C++" (NVIDIA blog, 2013): 32x8 threads per 32x32
// tile, each thread 4 rows; every kernel guards the edges so any dim works.
cudaError_t transpose_naive(const float* in, float* out, int64_t dim, cudaStream_t stream);
cudaError_t transpose_tiled(const float* in, float* out, int64_t dim, cudaStream_t stream);  // tile[32][32]
cudaError_t transpose_pad(const float* in, float* out, int64_t dim, cudaStream_t stream);    // tile[32][33]

}  // namespace layoutscope::agent::cuda
