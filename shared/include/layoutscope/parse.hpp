// Text <-> Layout. The grammar accepts the chapter's notation and the spellings of TVM TIRx and CuTe:
//
//   layout   := swizzled | sum
//   swizzled := 'Swizzle' '<' B ',' M ',' S '>' ('o' | '∘') sum
//             | 'ComposeLayout' '(' P ',' B ',' S ',' tile [',' 'swizzle_inner' '=' bool] ')'
//             | 'ComposeLayout' '(' 'SwizzleLayout' '(' P ',' B ',' S [',' 'swizzle_inner' '=' bool] ')' ','
//             tile ')'
//               (every ComposeLayout/SwizzleLayout argument may also be given by keyword: per_element,
//                swizzle_len, atom_len, tile_layout / layout_B, layout_A, swizzle_inner)
//   tile     := 'TileLayout' '(' sum ')' | sum
//   sum      := term ('+' term)*
//   term     := 'S' '[' spec ']' | 'R' '[' spec ']' | 'O' '[' offset ']' | offset-term
//   spec     := extents [':' strides]          extents only -> row-major strides on @m
//   extents  := int | '(' int {',' int} [','] ')' | int {',' int}
//   strides  := stride | '(' stride {',' stride} [','] ')'
//   stride   := int                  -> int@m
//             | int '@' axis         k may be negative or 0
//             | axis                 -> 1@axis
//   offset   := offset-term {('+' | ',') offset-term}
//   offset-term := int ['@' axis] | axis
//
// A leading module prefix (T., Tx., tirx., cute::) is ignored. Errors carry the 1-based column (in code
// points) of the offending token and say what was expected there.
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
std::string to_string(const Swizzle& swizzle);    // CuTe's spelling of the function alone: "Swizzle<3,4,3>"

// A logical shape "8,8" or "(8, 8)" or "8x8": positive extents.
Result<std::vector<int64_t>> parse_shape(std::string_view text);

}  // namespace layoutscope
