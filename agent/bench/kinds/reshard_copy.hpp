// One local step of a reshard plan as a device runs it (a plain struct, shared by the host code and the
// CUDA kernel in reshard_kernels.cu, which is compiled as C++17 and so includes no engine header).
#pragma once

#include <cstdint>

namespace layoutscope::agent {

// One local step as the device runs it: for every index y < n, split row-major over `extent` (last fastest),
// out[sum_i digit_i * dst_stride_i] = in[src_base + sum_i digit_i * src_stride_i] (strides in elements).
//   a 4x8 transpose: rank 2, extent {4, 8}, src_stride {8, 1}, dst_stride {1, 4}
inline constexpr int kStridedCopyMaxRank = 16;
struct StridedCopy {
  int rank = 0;
  int64_t n = 0;  // product of the extents
  int64_t src_base = 0;
  int64_t extent[kStridedCopyMaxRank] = {};
  int64_t src_stride[kStridedCopyMaxRank] = {};
  int64_t dst_stride[kStridedCopyMaxRank] = {};
};

}  // namespace layoutscope::agent
