#include "layoutscope/layout.hpp"

#include <algorithm>
#include <bit>

#include "layoutscope/checked.hpp"

namespace layoutscope {

int64_t unapply_swizzle(const Swizzle& s, int64_t o) {
  if (s.bits <= 0) return o;
  // When the XORed field and its source overlap (shift < bits) one application is not its own inverse;
  // applying the map repeatedly cycles back to o, and the element before o in that cycle is the answer.
  int64_t prev = o;
  int64_t cur = apply_swizzle(s, o);
  for (int i = 0; i < 64 && cur != o; ++i) {
    prev = cur;
    cur = apply_swizzle(s, cur);
  }
  return prev;
}

Result<int64_t> layout_size(const Layout& layout) {
  int64_t n = 1;
  for (size_t i = 0; i < layout.shard.size(); ++i) {
    if (mul_overflows(n, layout.shard[i].extent, &n)) {
      return make_error("layout size overflows 64 bits", 0, "mode " + std::to_string(i));
    }
  }
  return n;
}

Result<int64_t> replica_count(const Layout& layout) {
  int64_t n = 1;
  for (size_t g = 0; g < layout.replicas.size(); ++g) {
    for (const Mode& mode : layout.replicas[g]) {
      if (mul_overflows(n, mode.extent, &n)) {
        return make_error("replica count overflows 64 bits", 0, "R " + std::to_string(g));
      }
    }
  }
  return n;
}

std::vector<std::string> layout_axes(const Layout& layout) {
  std::vector<std::string> axes;
  auto note = [&axes](const std::string& axis) {
    if (std::find(axes.begin(), axes.end(), axis) == axes.end()) axes.push_back(axis);
  };
  for (const Mode& mode : layout.shard) note(mode.stride.axis);
  for (const auto& group : layout.replicas) {
    for (const Mode& mode : group) note(mode.stride.axis);
  }
  for (const AxisStride& term : layout.offset) note(term.axis);
  if (layout.swizzle) note(std::string(kMemoryAxis));
  return axes;
}

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
      return make_error("extent must be at least 1", 0, "mode " + std::to_string(i));
    }
  }
  for (size_t g = 0; g < layout.replicas.size(); ++g) {
    for (const Mode& mode : layout.replicas[g]) {
      if (mode.extent < 1)
        return make_error("replica extent must be at least 1", 0, "R " + std::to_string(g));
    }
  }
  auto size = layout_size(layout);
  if (!size) return size.error();
  auto replicas = replica_count(layout);
  if (!replicas) return replicas.error();

  CompiledLayout c;
  c.axes_ = layout_axes(layout);
  c.size_ = *size;
  c.replicas_ = *replicas;
  c.swizzle_ = layout.swizzle;
  c.memory_axis_ = axis_index(c.axes_, std::string(kMemoryAxis));
  if (c.memory_axis_ == c.axis_count()) c.memory_axis_ = -1;

  const size_t n = c.axes_.size();
  std::vector<int64_t> lo(n, 0), hi(n, 0);
  c.offset_.assign(n, 0);
  for (const AxisStride& term : layout.offset) {
    const int a = axis_index(c.axes_, term.axis);
    if (add_overflows(c.offset_[a], term.k, &c.offset_[a])) {
      return make_error("offset overflows 64 bits", 0, "axis " + term.axis);
    }
  }
  lo = c.offset_;
  hi = c.offset_;
  if (!accumulate_bounds(layout.shard, c.axes_, lo, hi)) return make_error("positions overflow 64 bits");
  for (const auto& group : layout.replicas) {
    if (!accumulate_bounds(group, c.axes_, lo, hi)) return make_error("positions overflow 64 bits");
  }
  if (c.swizzle_ && c.memory_axis_ >= 0) {
    const Swizzle& s = *c.swizzle_;
    if (s.bits < 0 || s.base < 0 || s.shift < 0 || s.bits + s.base + s.shift > 62) {
      return make_error("swizzle parameters out of range (B, M, S >= 0, B + M + S <= 62)", 0, "swizzle");
    }
    if (s.bits > 0 && s.shift == 0) {
      return make_error(
          "swizzle shift S (atom_len) must be at least 1 when B > 0: with S = 0 the XOR cancels the bits", 0,
          "swizzle");
    }
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
  for (auto g = layout.replicas.rbegin(); g != layout.replicas.rend(); ++g) lower(*g, c.replica_);
  return c;
}

}  // namespace layoutscope
