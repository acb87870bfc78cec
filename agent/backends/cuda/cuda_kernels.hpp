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

// The struct read/written with 16 B accesses (the halves holding touched fields); SoA as float4 (n % 4 == 0,
// else the scalar kernel).
cudaError_t aos_vec_touch(float* records, int64_t n, int touch, cudaStream_t stream);
cudaError_t soa_vec_touch(float* fields, int64_t n, int touch, cudaStream_t stream);

// Ceilings: count floats copied with 16 B accesses (4 per thread in flight, scalar tail) or one per thread.
cudaError_t copy_vec4(const float* in, float* out, int64_t count, cudaStream_t stream);
cudaError_t copy_scalar(const float* in, float* out, int64_t count, cudaStream_t stream);
// The TMA copy ceiling: the count / 4 float4s move global -> shared -> global as cp.async.bulk copies of
// chunk_bytes (a multiple of 16). Each block (one thread) owns `per_block` (1..16) consecutive chunks: it
// issues all their loads at once and stores each chunk as it lands; the hardware block scheduler balances the
// blocks over the SMs. Block 0 copies the count % 4 floats after them. in and out must be 16 B aligned
// (cudaErrorMisalignedAddress otherwise); sm_90 or later (cudaErrorInvalidDeviceFunction otherwise).
inline constexpr int kCopyTmaChunkBytes = 4 * 1024;
inline constexpr int kCopyTmaPerBlock = 4;
inline constexpr int kCopyTmaMaxPerBlock = 16;
cudaError_t copy_tma(const float* in, float* out, int64_t count, cudaStream_t stream,
                     int chunk_bytes = kCopyTmaChunkBytes, int per_block = kCopyTmaPerBlock);

// 64x64 tile, 16 B accesses, 4x4 block per thread; shared tile padded by 16 B every 4 rows or XOR-swizzled.
cudaError_t transpose_tile64(const float* in, float* out, int64_t dim, bool swizzle, cudaStream_t stream);

// Device-side exact checks: mismatch[0] += mismatches, mismatch[1] = min(mismatch[1], first flat index).
cudaError_t check_fields(const float* data, int64_t n, bool soa, int touch, uint64_t seed,
                         unsigned long long* mismatch, cudaStream_t stream);
cudaError_t check_matrix(const float* out, int64_t dim, bool transposed, uint64_t seed,
                         unsigned long long* mismatch, cudaStream_t stream);

// SM clock in cycles per ns (= GHz) from clock64 against %globaltimer over 20 us (fallback where NVML is
// absent).
cudaError_t sm_clock(double* cycles_per_ns, cudaStream_t stream);

// dim x dim fp32. copy: copy_vec4 over dim^2 floats.
cudaError_t copy_matrix(const float* in, float* out, int64_t dim, cudaStream_t stream);
// Mark Harris, "An Efficient Matrix Transpose in CUDA C/C++" (NVIDIA blog, 2013): 32x8 threads per 32x32
// tile, each thread 4 rows; every kernel guards the edges so any dim works.
cudaError_t transpose_naive(const float* in, float* out, int64_t dim, cudaStream_t stream);
cudaError_t transpose_tiled(const float* in, float* out, int64_t dim, cudaStream_t stream);  // tile[32][32]
cudaError_t transpose_pad(const float* in, float* out, int64_t dim, cudaStream_t stream);    // tile[32][33]

}  // namespace layoutscope::agent::cuda
