// Text <-> Layout, in the notation whose grammar and meaning layout.hpp's opening comment defines.
//
//   parse_layout("Swizzle<3,4,-3> o S[(8,128):(128,1)]")   -> Layout{shard, swizzle {3, 4, 3, inner = false}}
//   parse_layout("S[(8,4):(4,1]")                           -> Error{"expected ')' ...", column 13, code
//   "syntax"}
//
// Errors carry the 1-based column (in code points) of the offending token, say what was expected there, and
// carry a code: "syntax", "range" (an extent below 1, a swizzle TIRx or CuTe rejects), "overflow", "limit".
#pragma once

#include <string>
#include <string_view>

#include "layoutscope/layout.hpp"
#include "layoutscope/result.hpp"

namespace layoutscope {

Result<Layout> parse_layout(std::string_view text);

// Canonical text: parse_layout(to_string(L)) == L for every L that parse_layout produced.
std::string to_string(const Layout& layout);
std::string to_string(const AxisStride& stride);  // "16" on @m, "4@laneid" elsewhere
std::string to_string(const Swizzle& swizzle);  // CuTe's spelling alone: "Swizzle<3,4,3>", "Swizzle<3,4,-3>"

// A logical shape "8,8" or "(8, 8)" or "8x8": positive extents.
Result<std::vector<int64_t>> parse_shape(std::string_view text);

}  // namespace layoutscope
