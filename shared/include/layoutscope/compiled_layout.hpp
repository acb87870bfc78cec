// A layout lowered for fast evaluation: axis names become indices, digits are split with shifts where the
// extent is a power of two. Built once, then map() is called per element (the benchmarked hot path).
//
//   auto c = CompiledLayout::compile(*parse_layout("S[(8,4,2):(4@laneid,1@laneid,1@reg)]"));
//   int64_t pos[2];
//   c->map(43, 0, pos);          // element 43 = (5,3) of 8x8: pos = {21, 1} on (laneid, reg)
//
// Replicas and partial-sum holders share one index h = r * partials() + p, so that one loop visits every
// position of an element in the order the mapping lists them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "layoutscope/layout.hpp"
#include "layoutscope/result.hpp"

namespace layoutscope {

class CompiledLayout {
 public:
  static Result<CompiledLayout> compile(const Layout& layout);

  const std::vector<std::string>& axes() const { return axes_; }
  int axis_count() const { return static_cast<int>(axes_.size()); }
  int64_t size() const { return size_; }
  int64_t replicas() const { return replicas_; }  // product of the R extents
  int64_t partials() const { return partials_; }  // product of the P extents, 1 without P[...]
  bool has_partials() const { return has_partials_; }
  // Positions per element: replicas() * partials(). Holder h is replica h / partials(), partial h %
  // partials().
  int64_t holders() const { return replicas_ * partials_; }

  // Position of element x (0 <= x < size) at holder h (0 <= h < holders): out[axis_count()].
  // Overflow cannot happen: compile() proved every position fits in int64.
  void map(int64_t x, int64_t h, int64_t* out) const;

  // Positions of element x at every holder, out[h * axis_count() + a]: the shard digits are split once,
  // then each holder adds its own digits (what a whole table needs).
  void map_replicas(int64_t x, int64_t* out) const;

  // Maps every (element, holder) once and folds the positions into a checksum. This is the workload of the
  // throughput benchmarks, natively (bench/forward_bench.cpp) and in WebAssembly (mapThroughput), so that
  // the two rates measure the same code doing the same work.
  uint64_t checksum_all() const;

 private:
  // One mode, innermost first (the order digits come off x).
  struct Step {
    int64_t extent;
    int64_t stride;
    int64_t mask;  // extent - 1
    int axis;
    int log2;  // >= 0 when extent is a power of two
  };
  struct Steps {
    std::vector<Step> steps;
    bool all_pow2 = true;  // then every digit is a mask and a shift: the common, fast case
  };
  static void add_digits(const Steps& steps, int64_t x, int64_t* out);

  std::vector<std::string> axes_;
  Steps shard_;
  Steps replica_;  // all P modes, then all R modes, innermost first: the digits of a holder index
  std::vector<int64_t> offset_;
  std::optional<Swizzle> swizzle_;
  int memory_axis_ = -1;
  int64_t size_ = 1;
  int64_t replicas_ = 1;
  int64_t partials_ = 1;
  bool has_partials_ = false;
};

// Inline: map() is the hot path of table(), inverse() and the benchmark; a call per element costs as much as
// the arithmetic.
inline void CompiledLayout::add_digits(const Steps& steps, int64_t x, int64_t* out) {
  const Step* s = steps.steps.data();
  const size_t n = steps.steps.size();
  if (steps.all_pow2) {
    for (size_t i = 0; i < n; ++i) {
      out[s[i].axis] += (x & s[i].mask) * s[i].stride;
      x >>= s[i].log2;
    }
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    int64_t digit;
    if (s[i].log2 >= 0) {
      digit = x & s[i].mask;
      x >>= s[i].log2;
    } else {
      const int64_t q = x / s[i].extent;
      digit = x - q * s[i].extent;
      x = q;
    }
    out[s[i].axis] += digit * s[i].stride;
  }
}

inline void CompiledLayout::map(int64_t x, int64_t h, int64_t* out) const {
  const int n = axis_count();
  for (int a = 0; a < n; ++a) out[a] = offset_[a];
  add_digits(shard_, x, out);
  if (!replica_.steps.empty()) add_digits(replica_, h, out);
  if (swizzle_ && memory_axis_ >= 0) out[memory_axis_] = apply_swizzle(*swizzle_, out[memory_axis_]);
}

inline void CompiledLayout::map_replicas(int64_t x, int64_t* out) const {
  const int n = axis_count();
  for (int a = 0; a < n; ++a) out[a] = offset_[a];
  add_digits(shard_, x, out);
  const int64_t holders = this->holders();
  for (int64_t h = 1; h < holders; ++h) {
    int64_t* row = out + h * n;
    for (int a = 0; a < n; ++a) row[a] = out[a];
    add_digits(replica_, h, row);  // holder 0 adds nothing: every digit of h = 0 is 0
  }
  if (swizzle_ && memory_axis_ >= 0) {
    for (int64_t h = 0; h < holders; ++h)
      out[h * n + memory_axis_] = apply_swizzle(*swizzle_, out[h * n + memory_axis_]);
  }
}

inline uint64_t CompiledLayout::checksum_all() const {
  const size_t row = static_cast<size_t>(axis_count()) * static_cast<size_t>(holders());
  std::vector<int64_t> pos(row + 1);
  uint64_t sum = 0;
  for (int64_t x = 0; x < size_; ++x) {
    map_replicas(x, pos.data());
    for (size_t i = 0; i < row; ++i) sum += static_cast<uint64_t>(pos[i]);
  }
  return sum;
}

}  // namespace layoutscope
