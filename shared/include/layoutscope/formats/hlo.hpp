// XLA HloSharding: tile assignments over a flat device id (axis @device).
//
//   {devices=[2,1,2]<=[4] last_tile_dim_replicate}   on f32[8,4]
//     tile (t0, t1, r): device = 2*t0 + r             (the iota <=[4] lists devices 0,1,2,3 row-major)
//     -> S[(2,4,4):(2@device,4@m,1@m)] + R[2:1@device]
//   {devices=[4,1]0,1,2,3}, {devices=[2,2]<=[2,2]T(1,0)}, {replicated}, {maximal device=1}
//
// A device list converts when it is a stride pattern over the tile digits (an iota, a transposed iota, or
// an explicit list that happens to be one); any other permutation is refused with the column of the first
// device that breaks the pattern. XLA pads uneven tiles; the notation cannot, so they are refused too.
#pragma once

#include "layoutscope/formats/format.hpp"

namespace layoutscope {

Result<Imported> import_hlo(std::string_view text, const FormatContext& context);

}  // namespace layoutscope
