#include "layoutscope/canonical.hpp"

namespace layoutscope {
namespace {

// Drops extent-1 modes and fuses each contiguous neighbour pair (outer stride == inner extent * stride).
std::vector<Mode> fuse(const std::vector<Mode>& modes) {
  std::vector<Mode> out;
  for (const Mode& mode : modes) {
    if (mode.extent == 1) continue;
    if (!out.empty()) {
      Mode& outer = out.back();
      // outer.stride.k == mode.extent * mode.stride.k, without overflow: a layout that compiled has no
      // product larger than its span, and a mismatch here simply means "not contiguous".
      int64_t inner_span;
      if (outer.stride.axis == mode.stride.axis &&
          !__builtin_mul_overflow(mode.extent, mode.stride.k, &inner_span) && outer.stride.k == inner_span &&
          !__builtin_mul_overflow(outer.extent, mode.extent, &inner_span)) {
        outer = Mode{inner_span, mode.stride};
        continue;
      }
    }
    out.push_back(mode);
  }
  return out;
}

}  // namespace

Layout canonicalize(const Layout& layout) {
  Layout out;
  out.swizzle = layout.swizzle;
  out.shard = fuse(layout.shard);
  if (out.shard.empty()) out.shard.push_back(layout.shard.empty() ? Mode{} : layout.shard.front());
  for (const auto& group : layout.replicas) {
    auto fused = fuse(group);
    if (!fused.empty()) out.replicas.push_back(std::move(fused));
  }
  // A P group of one holder still says "this value is partial": it stays, fused to one mode.
  for (const auto& group : layout.partials) {
    auto fused = fuse(group);
    out.partials.push_back(fused.empty() ? std::vector<Mode>{Mode{1, group.front().stride}}
                                         : std::move(fused));
  }
  for (const AxisStride& term : layout.offset) {
    if (term.k != 0) out.offset.push_back(term);
  }
  return out;
}

}  // namespace layoutscope
