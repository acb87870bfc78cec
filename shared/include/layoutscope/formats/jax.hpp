// JAX shardings: a mesh and a PartitionSpec, or the sharding-in-types print.
//
//   import_jax("P('x', None)", {.shape = {8, 4}, .mesh = {{"x", 2}, {"y", 4}}})
//     dimension 0 over x: (2 devices, 4 local); dimension 1 local; y not named: every y holds a copy
//     -> S[(2,4,4):(1@x,4@m,1@m)] + R[4:1@y]
//   import_jax("float32[8@x,4]", same mesh) -> the same layout, the shape from the text
//   export_jax(that layout, {8, 4}, {}) -> "NamedSharding(jax.make_mesh((2, 4), ('x', 'y')), P('x', None))"
//
// Dimension d sharded over axes (a1, a2, ...) splits into (|a1|, |a2|, ..., local), a1 major, with strides
// (1@a1, 1@a2, ..., k@m): what NamedSharding.devices_indices_map gives (device coordinate = index // local).
// The mesh comes from the text (a dict {'x': 2}, Mesh('x': 2, ...), jax.make_mesh((2,), ('x',))) or the
// context. JAX requires every sharded dimension to be divisible by its devices; anything else is an error.
#pragma once

#include "layoutscope/formats/format.hpp"

namespace layoutscope {

Result<Imported> import_jax(std::string_view text, const FormatContext& context);
Result<std::string> export_jax(const Layout& layout, const std::vector<int64_t>& shape,
                               const FormatContext& context);

}  // namespace layoutscope
