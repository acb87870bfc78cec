// CUDA C of the exact check of one conversion, generated from the two layouts' values (the engine's Layout):
// every destination element out[dst(x)] compared byte for byte with in[src(x)], each layout evaluated from
// its own modes (not through the plan), so a planner or generator error shows up as a mismatch.
//
//   convert_check_source(S[(4,8):(8,1)], S[(4,8):(1,4)], 4) ->
//     extern "C" __global__ void layoutscope_helper_convert_check(const unsigned char* in, const unsigned
//     char* out,
//                                                          unsigned long long* bad) {
//       for (long long x = ...; x < 32LL; ...) {
//         long long r = x, s = 0, d = 0;
//         s += (r % 8LL) * 1LL; r /= 8LL; s += (r % 4LL) * 8LL; r /= 4LL;   // innermost mode first
//         ...  // d the same over the destination's modes; bad[0] += mismatches, bad[1] = min x
//
//   an offset and a swizzle follow the modes: Swizzle<3,3,3> o S[(8,64):(64,1)] + O[64@m] ->
//         d += (r % 64LL) * 1LL; r /= 64LL; d += (r % 8LL) * 64LL; r /= 8LL;
//         d += 64LL;
//         d ^= ((d >> 6) & 7LL) << 3;   // bits 6-8 into bits 3-5
//
// The layouts are those the conversion planner takes (plan/convert.hpp): one shard on @m, optionally an
// offset on @m and a swizzle; replicas, partial sums and other axes are errors naming the layout.
#pragma once

#include "convert_kernel.hpp"
#include "layoutscope/layout.hpp"
#include "layoutscope/result.hpp"

namespace layoutscope::codegen {

inline constexpr const char* kConvertCheckName =
    "layoutscope_helper_convert_check";  // not matched by ncu's "layoutscope_convert"
inline constexpr int kConvertCheckThreads = 256;

// Launch with kConvertCheckThreads threads and any grid (a grid-stride loop over the elements); bad[0] must
// be 0 and bad[1] all ones before the launch.
Result<KernelSource> convert_check_source(const Layout& src, const Layout& dst, int elem_bytes);

}  // namespace layoutscope::codegen
