#include "layoutscope/layout.hpp"

#include <algorithm>
#include <cstdlib>

#include "layoutscope/checked.hpp"

namespace layoutscope {

std::optional<Error> check_swizzle(const Swizzle& s) {
  const auto bad = [](std::string message) { return make_error(std::move(message), 0, "swizzle", "range"); };
  if (s.bits < 0 || s.base < 0 || s.shift < 0) {
    return bad("swizzle parameters must be non-negative (B = " + std::to_string(s.bits) +
               ", M = " + std::to_string(s.base) + ", |S| = " + std::to_string(s.shift) + ")");
  }
  if (s.bits > 62 || s.base > 62 || s.shift > 62 || s.bits + s.base + s.shift > 62) {
    return bad("swizzle parameters out of range: B + M + |S| = " +
               std::to_string(int64_t{s.bits} + s.base + s.shift) +
               ", at most 62 (the masks fit in 64 bits)");
  }
  if (s.bits > 0 && s.shift == 0) {
    return bad(
        "swizzle shift S (atom_len) must be at least 1 when B > 0: with S = 0 the XOR cancels the bits");
  }
  if (s.spelling == SwizzleSpelling::kTirx && s.shift < s.bits) {
    return bad("atom_len " + std::to_string(s.shift) + " is smaller than swizzle_len " +
               std::to_string(s.bits) + ": TIRx requires atom_len >= swizzle_len");
  }
  return std::nullopt;
}

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
      return make_error("layout size overflows 64 bits", 0, "mode " + std::to_string(i), "overflow");
    }
  }
  return n;
}

Result<int64_t> replica_count(const Layout& layout) {
  int64_t n = 1;
  for (size_t g = 0; g < layout.replicas.size(); ++g) {
    for (const Mode& mode : layout.replicas[g]) {
      if (mul_overflows(n, mode.extent, &n)) {
        return make_error("replica count overflows 64 bits", 0, "R " + std::to_string(g), "overflow");
      }
    }
  }
  return n;
}

Result<int64_t> partial_count(const Layout& layout) {
  int64_t n = 1;
  for (size_t g = 0; g < layout.partials.size(); ++g) {
    for (const Mode& mode : layout.partials[g]) {
      if (mul_overflows(n, mode.extent, &n)) {
        return make_error("partial-sum holder count overflows 64 bits", 0, "P " + std::to_string(g),
                          "overflow");
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
  for (const auto& group : layout.partials) {
    for (const Mode& mode : group) note(mode.stride.axis);
  }
  for (const AxisStride& term : layout.offset) note(term.axis);
  if (layout.swizzle) note(std::string(kMemoryAxis));
  return axes;
}

}  // namespace layoutscope
