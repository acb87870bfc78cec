// Shardy (the MLIR sharding dialect of OpenXLA): a mesh and a tensor sharding.
//
//   sdy.mesh @mesh = <["x"=4, "y"=2]>
//   #sdy.sharding<@mesh, [{"x"}, {}]>              on tensor<8x8xf32>
//     -> S[(4,2,8):(1@x,8@m,1@m)] + R[2:1@y]     dimension 0 over x, y not named: replicated
//
// {"x", "y"} shards one dimension over x then y (x major), like JAX's ('x', 'y'); `?` marks a dimension
// open to further sharding (read as written, with a note); replicated={"y"} names a replicated axis
// explicitly; unreduced={"z"} axes hold partial sums (P[...]). Sub-axes ("x":(1)2) and explicit device
// orders (device_ids=[...]) other than the identity are refused with the column.
#pragma once

#include "layoutscope/formats/format.hpp"

namespace layoutscope {

Result<Imported> import_shardy(std::string_view text, const FormatContext& context);

}  // namespace layoutscope
