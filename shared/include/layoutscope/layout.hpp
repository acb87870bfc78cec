// The layout value: S[shape : strides] + R[...] + O[...], optionally composed with an XOR swizzle.
//
// Worked example (the chapter's 8x8 matrix in 2x4 tiles):
//
//   S[(4, 2, 2, 4) : (16, 4, 8, 1)]          logical (i, j) in an 8x8 matrix, x = i*8 + j
//   (c0, c1, c2, c3) = unflatten(x; 4,2,2,4)  split row-major, last extent fastest
//   f_D(x) = c0*16 + c1*4 + c2*8 + c3*1       each digit times its stride, added on its axis (@m here)
//   (5, 6): x = 46 -> (2, 1, 1, 2) -> 32 + 4 + 8 + 2 = 46@m
//
// Index order is the opposite of CuTe's: CuTe (2,4):(1,2) is the identity on 8 elements, S[(2,4):(1,2)]
// gives 0 2 4 6 1 3 5 7.
//
// A stride carries an axis name ("k@axis"); any identifier is an axis. A position is a value on each axis
// the layout names. Replication R[...] adds every combination of its digits times its strides (one
// position per replica), O[...] adds a fixed offset, and the swizzle then permutes the @m coordinate:
//
//   Swizzle<B, M, S>(o) = o ^ ((o & (((1 << B) - 1) << (M + S))) >> S)       (CuTe, TIRx swizzle_inner)
//   swizzle_inner=False: o ^ ((o & (((1 << B) - 1) << M)) << S)              (TIRx only)
//
//   bits of o:  ... | yyy | ... | zzz | (M bits kept)          yyy = bits [M+S, M+S+B) are XORed into
//                    ^-----S------^                            zzz = bits [M, M+B)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "layoutscope/result.hpp"

namespace layoutscope {

inline constexpr std::string_view kMemoryAxis = "m";

struct AxisStride {
  int64_t k = 0;
  std::string axis{kMemoryAxis};
  friend bool operator==(const AxisStride&, const AxisStride&) = default;
};

struct Mode {
  int64_t extent = 1;
  AxisStride stride;
  friend bool operator==(const Mode&, const Mode&) = default;
};

// How the swizzle was written, so that to_string gives back the user's spelling.
enum class SwizzleSpelling { kTirx, kCute };

struct Swizzle {
  int bits = 0;   // B, TIRx swizzle_len
  int base = 0;   // M, TIRx per_element
  int shift = 0;  // S, TIRx atom_len
  bool inner = true;
  SwizzleSpelling spelling = SwizzleSpelling::kCute;
  friend bool operator==(const Swizzle&, const Swizzle&) = default;
};

struct Layout {
  std::vector<Mode> shard;                  // S[...]
  std::vector<std::vector<Mode>> replicas;  // one entry per R[...], in order
  std::vector<std::vector<Mode>> partials;
  std::vector<AxisStride> offset;           // O[...] and bare terms, merged per axis, in order of appearance
  std::optional<Swizzle> swizzle;
  friend bool operator==(const Layout&, const Layout&) = default;
};

// Apply a swizzle to one @m value. Values are non-negative in a valid layout; the XOR acts on the two's
// complement bits otherwise, which is what hardware does to an address.
inline int64_t apply_swizzle(const Swizzle& s, int64_t o) {
  if (s.bits <= 0) return o;
  const int64_t mask = (int64_t{1} << s.bits) - 1;
  if (s.inner) return o ^ (((o >> (s.base + s.shift)) & mask) << s.base);
  return o ^ (((o >> s.base) & mask) << (s.base + s.shift));
}

// The inverse permutation of apply_swizzle (equal to it when shift >= bits).
int64_t unapply_swizzle(const Swizzle& s, int64_t o);

// Number of logical elements: the product of the shard extents (checked).
Result<int64_t> layout_size(const Layout& layout);
// Number of replicas: the product of every R extent (checked).
Result<int64_t> replica_count(const Layout& layout);
// Axis names in order of first appearance (shard, replicas, offset); "m" is added when a swizzle needs it.
std::vector<std::string> layout_axes(const Layout& layout);

// A layout lowered for fast evaluation: axis names become indices, digits are split with shifts where the
// extent is a power of two. Built once, then map() is called per element (the benchmarked hot path).
class CompiledLayout {
 public:
  static Result<CompiledLayout> compile(const Layout& layout);

  const std::vector<std::string>& axes() const { return axes_; }
  int axis_count() const { return static_cast<int>(axes_.size()); }
  int64_t size() const { return size_; }
  int64_t replicas() const { return replicas_; }

  // Position of element x (0 <= x < size) in replica r (0 <= r < replicas): out[axis_count()].
  // Overflow cannot happen: compile() proved every position fits in int64.
  void map(int64_t x, int64_t r, int64_t* out) const;

  // Positions of element x in every replica, out[r * axis_count() + a]: the shard digits are split once,
  // then each replica adds its own digits (what a whole table needs).
  void map_replicas(int64_t x, int64_t* out) const;

  // Maps every (element, replica) once and folds the positions into a checksum. This is the workload of the
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
  Steps replica_;  // all R modes, concatenated (first R's modes are the most significant)
  std::vector<int64_t> offset_;
  std::optional<Swizzle> swizzle_;
  int memory_axis_ = -1;
  int64_t size_ = 1;
  int64_t replicas_ = 1;
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

inline void CompiledLayout::map(int64_t x, int64_t r, int64_t* out) const {
  const int n = axis_count();
  for (int a = 0; a < n; ++a) out[a] = offset_[a];
  add_digits(shard_, x, out);
  if (!replica_.steps.empty()) add_digits(replica_, r, out);
  if (swizzle_ && memory_axis_ >= 0) out[memory_axis_] = apply_swizzle(*swizzle_, out[memory_axis_]);
}

inline void CompiledLayout::map_replicas(int64_t x, int64_t* out) const {
  const int n = axis_count();
  for (int a = 0; a < n; ++a) out[a] = offset_[a];
  add_digits(shard_, x, out);
  for (int64_t r = 1; r < replicas_; ++r) {
    int64_t* row = out + r * n;
    for (int a = 0; a < n; ++a) row[a] = out[a];
    add_digits(replica_, r, row);  // replica 0 adds nothing: every digit of r = 0 is 0
  }
  if (swizzle_ && memory_axis_ >= 0) {
    for (int64_t r = 0; r < replicas_; ++r)
      out[r * n + memory_axis_] = apply_swizzle(*swizzle_, out[r * n + memory_axis_]);
  }
}

inline uint64_t CompiledLayout::checksum_all() const {
  const size_t row = static_cast<size_t>(axis_count()) * static_cast<size_t>(replicas_);
  std::vector<int64_t> pos(row + 1);
  uint64_t sum = 0;
  for (int64_t x = 0; x < size_; ++x) {
    map_replicas(x, pos.data());
    for (size_t i = 0; i < row; ++i) sum += static_cast<uint64_t>(pos[i]);
  }
  return sum;
}

}  // namespace layoutscope
