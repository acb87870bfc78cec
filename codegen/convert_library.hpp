// The conversion library: a few kernels, one per unit size, that run any plan's conversion from arguments
// instead of constants, so a shape met for the first time runs without a compile of its own.
//
//   auto call = library_call(plan);            // (64, 3, 224, 224) perm (0, 2, 3, 1), u8: 3 modes of 1 B
//   LibraryArgs args = call->args;
//   void* a[] = {&in, &out, &args};
//   // with NVRTC: compiled once per unit size, then from the kernel cache's disk folder
//   auto k = cache.get(library_kernel_source(call->unit_bytes), device);
//   cudaLaunchKernel(k->launchable(), call->blocks, call->threads, a, 0, stream);
//   // or compiled in by nvcc from library_builtin_source() (the agent's build does this)
//   cudaLaunchKernel(layoutscope_convert_library_kernel(call->unit_bytes), call->blocks, call->threads, a, 0,
//   stream);
//
// A thread moves one unit (1-16 B: a run of elements contiguous on both sides) per step of a grid-stride
// loop, its source found by dividing the destination index by the modes' extents: slower than the plan's own
// kernel (no tile, one unit a lane, 64-bit divisions), but compiled once per unit size instead of once per
// shape, or once for good into a binary. Use it for a conversion run once, while the plan's kernel compiles
// for the next.
#pragma once

#include <cstdint>
#include <string>

#include "convert_kernel.hpp"
#include "layoutscope/plan/convert.hpp"
#include "layoutscope/result.hpp"

namespace layoutscope::codegen {

inline constexpr int kLibraryModes = 8;
inline constexpr const char* kLibraryKernelPrefix = "layoutscope_convert_any_";

// The kernel's argument, passed by value; the kernel text declares the same struct (LsCall), every field a
// 64-bit integer.
struct LibraryArgs {
  long long units = 0;                       // destination units
  long long unit_elems = 1;                  // elements per unit
  long long extent[kLibraryModes]{};         // destination order, outermost first, in units
  long long src_stride[kLibraryModes]{};     // in units
  long long src_offset = 0, dst_offset = 0;  // in elements
  long long rank = 0;
  // Each side's swizzle on element offsets, as one XOR term (SwizzleTerm; mask 0: none).
  long long src_read = 0, src_mask = 0, src_write = 0;
  long long dst_read = 0, dst_mask = 0, dst_write = 0;
};

struct LibraryCall {
  int unit_bytes = 1;  // 1, 2, 4, 8 or 16: which library kernel
  LibraryArgs args;
  int threads = 256;
  int64_t blocks = 0;
};

// The library's call for `plan`. Errors: more than kLibraryModes modes after fusing those contiguous on both
// sides.
Result<LibraryCall> library_call(const ConvertPlan& plan);

// The library kernel for units of `unit_bytes` (1, 2, 4, 8 or 16), for NVRTC.
KernelSource library_kernel_source(int unit_bytes);

// All five kernels in one CUDA C file for nvcc, the same texts, and a host function
// kLibraryTableName(unit_bytes) that returns the kernel of that unit size (for cudaLaunchKernel) or null: the
// agent's build compiles it in, so the library ships in the binary.
inline constexpr const char* kLibraryTableName = "layoutscope_convert_library_kernel";
std::string library_builtin_source();

}  // namespace layoutscope::codegen
