// TVM TIRx layouts: the notation itself, as TIRx's Python spells and prints it.
//
//   import_tirx("T.TileLayout(T.S[(8, 4) : (4@laneid, 1@laneid)])")      -> S[(8,4):(4@laneid,1@laneid)]
//   import_tirx("ComposeLayout(3, 3, 3, TileLayout(S[(8,64):(64,1)]))")  -> Swizzle<3,3,3> on
//   S[(8,64):(64,1)] export_tirx(S[(8,4):(4@laneid,1@laneid)] + R[4:32@TLane], ...)
//     -> "TileLayout(S[(8, 4) : (4@laneid, 1@laneid)] + R[4 : 32@TLane])"
//
// ComposeLayout(per_element=M, swizzle_len=B, atom_len=S, ...) is CuTe's Swizzle<B,M,S>. Partial sums have no
// TIRx spelling and are refused.
#pragma once

#include "layoutscope/formats/format.hpp"

namespace layoutscope {

Result<Imported> import_tirx(std::string_view text, const FormatContext& context);
Result<std::string> export_tirx(const Layout& layout, const std::vector<int64_t>& shape,
                                const FormatContext& context);

}  // namespace layoutscope
