// The device side of the reshard and collective benchmarks: the strided copy of reshard_run.hpp (every local
// step of a reshard plan: a slice keeps one coordinate's part, a permute reorders local memory) and the
// pattern fill of the collective benchmark. Plain C++ declarations, defined in reshard_kernels.cu.
//
//   StridedCopy c;                 // out[sum_i digit_i * dst_stride_i] = in[src_base + sum_i digit_i *
//   src_stride_i] c.rank = 2;                    // for every index y < n, split row-major over `extent`
//   (last fastest) c.extent = {4, 8};  c.src_stride = {1, 4};  c.dst_stride = {8, 1};   // a 4x8 transpose
//   launch_strided_copy(in, out, c, 2, stream);                          // 2-byte elements
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "bench/kinds/reshard_copy.hpp"

namespace layoutscope::agent {

// elem_bytes 1, 2, 4 or 8; strides and bases in elements.
cudaError_t launch_strided_copy(const void* in, void* out, const StridedCopy& c, int elem_bytes,
                                cudaStream_t stream);

// p[i] = (i * 7 + rank * 13) % range + 1 for i < count, stored as the dtype (0 u8 modulo 256, 1 f16, 2 bf16,
// 3 f32, 4 f64): small integers every dtype holds exactly, so NCCL's sums are exact too.
cudaError_t launch_pattern_fill(void* p, int64_t count, int dtype_code, int64_t rank, int64_t range,
                                cudaStream_t stream);

}  // namespace layoutscope::agent
