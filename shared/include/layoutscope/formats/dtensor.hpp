// PyTorch DTensor: a DeviceMesh and one placement per mesh dimension.
//
//   init_device_mesh("cuda", (2, 4), mesh_dim_names=("dp", "tp")), [Shard(0), Replicate()]   on 8x4
//     -> S[(2,4,4):(1@dp,4@m,1@m)] + R[4:1@tp]
//   [Shard(0), Shard(1)]           -> S[(2,4,4):(1@dp,1@m,1@tp)]     (local tensor 4x1)
//   [Partial("sum"), Shard(1)]     -> ... + P[2:1@dp]      every dp coordinate holds a partial sum
//   [_StridedShard(0, split_factor=4), Shard(0)]  dimension 0 cut into 4 pieces first (by tp), each piece
//                                                 sharded over dp: (4 over tp, 2 over dp, local)
//
// Placements are indexed by mesh dimension (JAX's PartitionSpec is indexed by tensor dimension). Several
// mesh dimensions sharding one tensor dimension split it in mesh order, the first one major. Shard follows
// torch.chunk: a size not divisible by the mesh dimension gives an uneven last chunk, which the notation
// cannot express: an error, never a silent rounding.
//
// What the placements do not say, the export refuses rather than drops. The local tensor of every device is
// row-major and contiguous (the importer builds it so): S[(2,4):(1@x,0)] (a broadcast local stride 0) is
// refused, naming the local layout 4:0 and the contiguous 4:1 it would come back as. Each P term is one
// Partial("sum") on one mesh dimension, the whole of it: P[(2,2):(1@x,1@y)] (one sum over 4 holders) is
// refused (write P[2:1@x] + P[2:1@y], two pending sums). A term of one holder, P[1:1@r], is still a pending
// sum: DTensor's Partial() marks a tensor pending a reduction on a mesh dimension whatever the dimension's
// size (it stays Partial until redistributed), and the notation's canonical form keeps P[1:...]. So it is
// written as Partial() on a mesh dimension of size 1 of its own, and refused when its axis has another size
// (S[(2,4):(1@z,1)] + P[1:1@z]: z shards the tensor over 2).
#pragma once

#include "layoutscope/formats/format.hpp"

namespace layoutscope {

Result<Imported> import_dtensor(std::string_view text, const FormatContext& context);
Result<std::string> export_dtensor(const Layout& layout, const std::vector<int64_t>& shape,
                                   const FormatContext& context);

}  // namespace layoutscope
