// Which kernel a state runs, where that depends on its size: the CUDA launchers (cuda_kernels.cu) choose by
// these rules, and the profile (profile.cpp: which ncu row belongs to a state) and the predictions
// (predict.cpp: which access pattern to give the engine) follow the same ones. Plain C++17, so that nvcc and
// the host compiler share it.
#pragma once

#include <cstdint>

namespace layoutscope::agent {

// soa_vec reads each field array as float4: the arrays start 16 B aligned only when n % 4 == 0; otherwise the
// document's scalar SoA kernel (soa_touch_kernel) runs.
constexpr bool soa_vec_uses_float4(int64_t n) { return n % 4 == 0; }

// tile64_pad / tile64_swizzle: rows 16 B aligned (dim % 4 == 0) run transpose_tile64_kernel (whose partial
// edge tiles take its scalar path inside); otherwise every tile runs transpose_tile64_scalar_kernel.
constexpr bool tile64_uses_float4(int64_t dim) { return dim % 4 == 0; }

}  // namespace layoutscope::agent
