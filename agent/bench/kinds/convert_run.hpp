// What both backends share for the convert benchmark: the cases (one request, or the permutation suite),
// made once from the request (its layouts parsed, planned, the CUDA text generated, timed) and kept in a
// bounded plan cache that a repeated request takes them from, the random input by element offset, and the
// exact check of every output element.
//
//   auto c = permute_case("case0", {64, 1024, 1024}, {0, 2, 1}, DType::kBF16);  // planned by the engine
//   PreparedConvert p = prepare_convert(*c);   // p.source.text: the kernel; p.times.plan_s, cached_plan_s
//   fill_convert_input(c->plan, in, seed, ctl);  // in[o] = convert_input_element(seed, o, 2)
//   ... run the plan ...
//   verify_convert(*c, out, seed, ctl);        // out[dst(x)] == in[src(x)] for every logical x
//
// The check evaluates both layouts directly (the engine's CompiledLayout), not the plan's modes, tiles or
// lane mapping, so a planner or generator error shows up as a mismatch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "bench/benchmark.hpp"
#include "bench/random_input.hpp"
#include "convert_kernel.hpp"

namespace layoutscope::agent {

// x.permute(perm).contiguous() of a row-major tensor of `shape`, planned (or taken from the plan cache);
// errors name "params.shape" / "params.perm" (the planner's field, prefixed).
Result<ConvertCase> permute_case(const std::string& name, const std::vector<int64_t>& shape,
                                 const std::vector<int64_t>& perm, DType dtype);
// src / dst layouts in the notation over `shape`; errors name "params.src", "params.dst", "params.shape".
Result<ConvertCase> layout_case(const std::string& name, const std::string& src, const std::string& dst,
                                const std::vector<int64_t>& shape, DType dtype);

// One permutation of the suite at full size: x.permute(perm).contiguous() of a row-major `shape`.
struct SuitePermutation {
  std::string name;  // "transpose_8192x8192_f32", "random47_8x128x64x16x8x32_p102453_u8"
  std::vector<int64_t> shape, perm;
  DType dtype = DType::kF32;
};

// The suite's permutations, 256 MiB each way: the 8 named permutations x {f32, bf16, u8} (bf16 / u8 scale
// dimension 0 by 2 / 4), then `random_count` random permutations of rank 3-6 (rank 3 + i % 4, dtype f32,
// bf16, u8 in turn, power-of-two extents, never the identity) from a fixed seed, so every run and every
// harness (the agent, tests/gpu/convert_lab.cpp) measures the same cases.
inline constexpr int kSuiteRandomPermutations = 50;
std::vector<SuitePermutation> suite_permutations(int random_count = kSuiteRandomPermutations);

// The permutation suite as cases. full_size: 256 MiB each way (the GPU); otherwise each shape's largest
// dimension is halved until a case is at most 1 MiB (the CPU backend: CI-sized, same permutations).
Result<std::vector<ConvertCase>> permutation_suite(bool full_size);

// Bytes one conversion reads and writes: the destination's elements, each read once and written once.
inline int64_t convert_bytes(const ConvertPlan& plan) { return 2 * plan.elements * plan.elem_bytes; }

struct PreparedConvert {
  codegen::KernelSource source;
  ConvertTimes times;  // plan_s and cached_plan_s set
};

// The case's kernel text and host-side times as the case was made (no parsing or planning here).
Result<PreparedConvert> prepare_convert(const ConvertCase& c);

// Source element at element offset `offset`, `elem_bytes` wide (little-endian low bytes of a splitmix64
// hash): never all ones, so the 0xff-poisoned output never matches an element nobody wrote.
inline uint64_t convert_input_element(uint64_t seed, int64_t offset, int elem_bytes) {
  uint64_t h = splitmix64(seed * 0x2545f4914f6cdd1dull + static_cast<uint64_t>(offset));
  if (elem_bytes >= 8) return h == ~uint64_t{0} ? h - 1 : h;
  const uint64_t all = (uint64_t{1} << (8 * elem_bytes)) - 1;
  return h % all;  // < all: not every bit set
}

// Fills the source buffer (source_extent(plan) elements) with convert_input_element. A source may span
// hundreds of MiB (a large stride, few elements): ctl is asked between chunks of kFillChunk elements (a few
// ms each) and Cancelled thrown once it says so, so a DELETE stops the fill within one chunk.
inline constexpr int64_t kFillChunk = int64_t{1} << 20;
void fill_convert_input(const ConvertPlan& plan, std::span<std::byte> in, uint64_t seed,
                        const RunControl& ctl);

// Every destination element compared byte for byte with the source element of the same logical index; ctl
// is asked every kFillChunk elements (Cancelled thrown once it says so), as in the fill.
Verification verify_convert(const ConvertCase& c, std::span<const std::byte> out, uint64_t seed,
                            const RunControl& ctl);

}  // namespace layoutscope::agent
