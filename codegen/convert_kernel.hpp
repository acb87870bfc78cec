// CUDA C source of one conversion kernel, generated from the engine's plan (plan/convert.hpp). Pure text: it
// is compiled at run time with NVRTC on a GPU machine, and with nvcc in a test wherever nvcc exists.
//
//   plan_permute({4096, 4096}, {1, 0}, f32) -> a tiled plan: 64 x 64 tile, 4 x 4 register blocks
//   convert_kernel_source(plan) ->
//     extern "C" __global__ void __launch_bounds__(256) layoutscope_convert(const unsigned char* in,
//                                                                          unsigned char* out) {
//       __shared__ __align__(16) unsigned char tile[16384];
//       ...  // tile (ta, tb) of batch index, 16 B loads along b, register transpose, swizzled 16 B shared
//       stores
//       ...  // __syncthreads(), 16 B shared loads and global stores along a
//     }
//
// Every constant of the plan (extents, strides, tile, vector width, the staging swizzle) is baked into the
// text, so the compiler sees fixed trip counts and strength-reduces the index arithmetic. The lane mapping is
// the plan's own (the host executor and the predictions use the same), so what runs is what was predicted.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "layoutscope/plan/convert.hpp"

namespace layoutscope::codegen {

inline constexpr const char* kConvertKernelName = "layoutscope_convert";

struct KernelSource {
  std::string name;        // the extern "C" entry point
  std::string text;        // CUDA C, no includes (NVRTC needs none)
  uint64_t hash = 0;       // of the text and the options: the cache key
  uint64_t text_hash = 0;  // of the text alone (what `layoutscope plan --emit-cuda` prints)
  int threads = 0;         // block size to launch with
  int64_t blocks = 0;      // grid size (one dimension)
  int64_t shared_bytes = 0;
  // NVRTC options beyond the architecture and language (part of the cache key: they change the CUBIN). The
  // conversion kernels take ptxas -O1: on an H200, ptxas -O3 scheduled the u8 kernels' loads and byte
  // permutes into kernels 4-9 % slower than -O1 did (docs/results/h200-convert.md).
  std::vector<std::string> options;
};

KernelSource convert_kernel_source(const ConvertPlan& plan);

// FNV-1a over the text (stable across runs and machines, unlike std::hash).
uint64_t source_hash(const std::string& text);
// The cache key of a kernel: its text and the compile options that change its CUBIN.
uint64_t kernel_hash(const KernelSource& k);

}  // namespace layoutscope::codegen
