// Exact verification on the host: every output element is compared bit for bit with the value the
// benchmark's definition gives for the random input (random_input.hpp). Parallel over host threads.
#pragma once

#include <cstdint>
#include <span>

#include "bench/benchmark.hpp"

namespace layoutscope::agent {

// AoS/SoA after exactly one launch on fresh input: fields k < touch_fields hold input + 1.0f (one float
// addition, so the host computes the same rounding), the others hold the input unchanged.
// Element i, field k of the input is random_input(seed, i * 8 + k) in both layouts (same logical data).
// data: the buffer as the device holds it, AoS (n x 8) or SoA (8 x n).
Verification verify_aos_soa(std::span<const float> data, bool soa, int64_t n, int touch_fields,
                            uint64_t seed);

// Transpose / copy of a dim x dim row-major input with in(r, c) = random_input(seed, r * dim + c):
// copy expects out(r, c) = in(r, c), the transposes out(r, c) = in(c, r).
Verification verify_transpose(std::span<const float> out, int64_t dim, bool transposed, uint64_t seed);

}  // namespace layoutscope::agent
