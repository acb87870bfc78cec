#include "layoutscope/compiled_layout.hpp"

#include <algorithm>
#include <bit>

#include "layoutscope/checked.hpp"

namespace layoutscope {
namespace {

int axis_index(const std::vector<std::string>& axes, const std::string& axis) {
  return static_cast<int>(std::find(axes.begin(), axes.end(), axis) - axes.begin());
}

// Adds the largest and smallest value a list of modes can contribute to each axis, so that compile() can
// prove once that no position overflows.
bool accumulate_bounds(const std::vector<Mode>& modes, const std::vector<std::string>& axes,
                       std::vector<int64_t>& lo, std::vector<int64_t>& hi) {
  for (const Mode& mode : modes) {
    int64_t span = 0;
    if (mul_overflows(mode.extent - 1, mode.stride.k, &span)) return false;
    const int a = axis_index(axes, mode.stride.axis);
    int64_t* bound = span >= 0 ? &hi[a] : &lo[a];
    if (add_overflows(*bound, span, bound)) return false;
  }
  return true;
}

}  // namespace

Result<CompiledLayout> CompiledLayout::compile(const Layout& layout) {
  for (size_t i = 0; i < layout.shard.size(); ++i) {
    if (layout.shard[i].extent < 1) {
      return make_error("extent must be at least 1", 0, "mode " + std::to_string(i), "range");
    }
  }
  const auto check_groups = [](const std::vector<std::vector<Mode>>& groups, const char* letter) {
    for (size_t g = 0; g < groups.size(); ++g) {
      for (const Mode& mode : groups[g]) {
        if (mode.extent < 1) {
          // Appended piecewise: GCC 12 reports a false -Wrestrict on `letter + std::string` at -O2.
          std::string field(letter);
          field += ' ';
          field += std::to_string(g);
          return std::optional<Error>(make_error(field + " extent must be at least 1", 0, field, "range"));
        }
      }
    }
    return std::optional<Error>();
  };
  if (auto e = check_groups(layout.replicas, "R")) return *e;
  if (auto e = check_groups(layout.partials, "P")) return *e;
  auto size = layout_size(layout);
  if (!size) return size.error();
  auto replicas = replica_count(layout);
  if (!replicas) return replicas.error();
  auto partials = partial_count(layout);
  if (!partials) return partials.error();
  int64_t holders;
  if (mul_overflows(*replicas, *partials, &holders)) {
    return make_error("replicas times partial-sum holders overflows 64 bits", 0, "P", "overflow");
  }

  CompiledLayout c;
  c.axes_ = layout_axes(layout);
  c.size_ = *size;
  c.replicas_ = *replicas;
  c.partials_ = *partials;
  c.has_partials_ = !layout.partials.empty();
  c.swizzle_ = layout.swizzle;
  c.memory_axis_ = axis_index(c.axes_, std::string(kMemoryAxis));
  if (c.memory_axis_ == c.axis_count()) c.memory_axis_ = -1;

  const size_t n = c.axes_.size();
  std::vector<int64_t> lo(n, 0), hi(n, 0);
  c.offset_.assign(n, 0);
  for (const AxisStride& term : layout.offset) {
    const int a = axis_index(c.axes_, term.axis);
    if (add_overflows(c.offset_[a], term.k, &c.offset_[a])) {
      return make_error("offset overflows 64 bits", 0, "axis " + term.axis, "overflow");
    }
  }
  lo = c.offset_;
  hi = c.offset_;
  const auto overflow = [] { return make_error("positions overflow 64 bits", 0, "", "overflow"); };
  if (!accumulate_bounds(layout.shard, c.axes_, lo, hi)) return overflow();
  for (const auto& group : layout.replicas) {
    if (!accumulate_bounds(group, c.axes_, lo, hi)) return overflow();
  }
  for (const auto& group : layout.partials) {
    if (!accumulate_bounds(group, c.axes_, lo, hi)) return overflow();
  }
  if (c.swizzle_) {
    if (auto e = check_swizzle(*c.swizzle_)) return *e;
  }

  auto lower = [&c](const std::vector<Mode>& modes, Steps& steps) {
    for (auto it = modes.rbegin(); it != modes.rend(); ++it) {
      const auto e = static_cast<uint64_t>(it->extent);
      const int log2 = std::has_single_bit(e) ? std::countr_zero(e) : -1;
      steps.all_pow2 = steps.all_pow2 && log2 >= 0;
      steps.steps.push_back(
          Step{it->extent, it->stride.k, it->extent - 1, axis_index(c.axes_, it->stride.axis), log2});
    }
  };
  lower(layout.shard, c.shard_);
  // Holder h = r * partials + p: the P digits are the least significant, so they come off h first.
  for (auto g = layout.partials.rbegin(); g != layout.partials.rend(); ++g) lower(*g, c.replica_);
  for (auto g = layout.replicas.rbegin(); g != layout.replicas.rend(); ++g) lower(*g, c.replica_);
  return c;
}

}  // namespace layoutscope
