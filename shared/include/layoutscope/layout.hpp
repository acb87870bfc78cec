// The layout value and the notation it is written in: one definition, read by the parser (parse.hpp), the
// mapper (mapping.hpp) and every binding.
//
// Worked example (the chapter's 8x8 matrix in 2x4 tiles):
//
//   S[(4, 2, 2, 4) : (16, 4, 8, 1)]          logical (i, j) in an 8x8 matrix, x = i*8 + j
//   (c0, c1, c2, c3) = unflatten(x; 4,2,2,4)  split row-major, last extent fastest
//   f_D(x) = c0*16 + c1*4 + c2*8 + c3*1       each digit times its stride, added on its axis (@m here)
//   (5, 6): x = 46 -> (2, 1, 1, 2) -> 32 + 4 + 8 + 2 = 46@m
//
// Grammar (the chapter's notation, and the spellings of TVM TIRx and CuTe):
//
//   layout   := swizzled | sum
//   swizzled := 'Swizzle' '<' B ',' M ',' ['-'] S '>' ('o' | '∘') tile
//             | 'ComposeLayout' '(' M ',' B ',' S ',' tile [',' 'swizzle_inner' '=' bool] ')'
//             | 'ComposeLayout' '(' 'SwizzleLayout' '(' M ',' B ',' S [',' 'swizzle_inner' '=' bool] ')'
//               ',' tile ')'
//               (TIRx's order: per_element M, swizzle_len B, atom_len S. Every ComposeLayout/SwizzleLayout
//                argument may also be given by keyword: per_element, swizzle_len, atom_len, tile_layout /
//                layout_B, layout_A, swizzle_inner; each exactly once, the three numbers required)
//   tile     := 'TileLayout' '(' sum ')' | sum
//   sum      := term ('+' term)*
//   term     := 'S' '[' spec ']' | 'R' '[' spec ']' | 'P' '[' spec ']' | 'O' '[' offset ']' | offset-term
//   spec     := extents [':' strides]          extents only -> row-major strides on @m
//   extents  := int | '(' int {',' int} [','] ')' | int {',' int}
//   strides  := stride | '(' stride {',' stride} [','] ')'
//   stride   := int                  -> int@m
//             | int '@' axis         k may be negative or 0
//             | axis                 -> 1@axis
//   offset   := offset-term {('+' | ',') offset-term}
//   offset-term := int ['@' axis] | axis
//
// A leading module prefix (T., Tx., tirx., cute::) is ignored. Exactly one S[...] term; numbers are decimal
// and fit in 64 bits; extents are at least 1.
//
// Semantics. A stride carries an axis name ("k@axis"); any identifier is an axis. Element x (row-major over
// the logical shape) is split over the S extents, last extent fastest, and each digit times its stride is
// added on the stride's axis: a position is one value on each axis the layout names.
//   R[...]   replication: every combination of its digits times its strides is added, one position per
//            replica (replicas that land on one spot each keep their position). Several R terms multiply;
//            the first R's digits are the most significant.
//   P[...]   partial sums, an extension of the chapter's notation: its digits add positions exactly like
//            R[...], but each holder keeps a partial value and the values of all holders sum to the element
//            (a pending reduction, PyTorch DTensor's Partial). Holders are numbered replica-major:
//            holder h = r * partials + p.
//   O[...]   a fixed offset per axis; bare terms ("+ 5@warpid") are offsets too.
// The swizzle then permutes the @m coordinate (the offset is added before it):
//
//   Swizzle<B, M, S>(o) = o ^ ((o & (((1 << B) - 1) << (M + S))) >> S)       (CuTe, TIRx swizzle_inner)
//   Swizzle<B, M, -S>(o) = o ^ ((o & (((1 << B) - 1) << M)) << S)            (CuTe, TIRx swizzle_inner=False)
//
//   bits of o:  ... | yyy | ... | zzz | (M bits kept)          yyy = bits [M+S, M+S+B) are XORed into
//                    ^-----S------^                            zzz = bits [M, M+B); a negative S XORs
//                                                              zzz into yyy instead
//
// Index order is the opposite of CuTe's: CuTe (2,4):(1,2) is the identity on 8 elements, S[(2,4):(1,2)]
// gives 0 2 4 6 1 3 5 7.
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

// CuTe's Swizzle<B, M, -S> is {B, M, S, inner = false}: the same function as TIRx's swizzle_inner=False.
struct Swizzle {
  int bits = 0;       // B, TIRx swizzle_len
  int base = 0;       // M, TIRx per_element
  int shift = 0;      // |S|, TIRx atom_len
  bool inner = true;  // false: the low field is XORed into the high one (CuTe's negative S)
  SwizzleSpelling spelling = SwizzleSpelling::kCute;
  friend bool operator==(const Swizzle&, const Swizzle&) = default;
};

struct Layout {
  std::vector<Mode> shard;                  // S[...]
  std::vector<std::vector<Mode>> replicas;  // one entry per R[...], in order
  std::vector<std::vector<Mode>>
      partials;                    // one entry per P[...]: partial-sum holders, positions like replicas
  std::vector<AxisStride> offset;  // O[...] and bare terms, merged per axis, in order of appearance
  std::optional<Swizzle> swizzle;
  friend bool operator==(const Layout&, const Layout&) = default;
};

// Why a swizzle cannot be used, or nothing: B, M, |S| >= 0, B + M + |S| <= 62 (the masks fit in 64 bits),
// |S| >= 1 when B > 0 (S = 0 cancels the bits), and for TIRx's spelling atom_len >= swizzle_len (TIRx's
// SwizzleLayoutNode::VerifyWellFormed). The parser and every binding ask here before applying one.
std::optional<Error> check_swizzle(const Swizzle& s);

// A valid swizzle as one XOR term: apply_swizzle(s, o) == o ^ (((o >> read_shift) & mask) << write_shift).
// Swizzle<3,4,3> (inner) reads bits [7, 10) into [4, 7): {7, 7, 4}; Swizzle<3,4,-3> the other way: {4, 7, 7}.
// Generated code writes this term (codegen/), so that a kernel swizzles exactly as the engine does.
struct SwizzleTerm {
  int read_shift = 0;
  int64_t mask = 0;  // 0: the identity (no bits)
  int write_shift = 0;
};

inline SwizzleTerm swizzle_term(const Swizzle& s) {
  if (s.bits <= 0) return {};
  const int64_t mask = (int64_t{1} << s.bits) - 1;
  if (s.inner) return {s.base + s.shift, mask, s.base};
  return {s.base, mask, s.base + s.shift};
}

// Apply a valid swizzle (check_swizzle) to one @m value. Values are non-negative in a valid layout; the XOR
// acts on the two's complement bits otherwise, which is what hardware does to an address.
inline int64_t apply_swizzle(const Swizzle& s, int64_t o) {
  const SwizzleTerm t = swizzle_term(s);
  if (t.mask == 0) return o;
  return o ^ (((o >> t.read_shift) & t.mask) << t.write_shift);
}

// The inverse permutation of apply_swizzle (equal to it when shift >= bits).
int64_t unapply_swizzle(const Swizzle& s, int64_t o);

// Number of logical elements: the product of the shard extents (checked).
Result<int64_t> layout_size(const Layout& layout);
// Number of replicas: the product of every R extent (checked).
Result<int64_t> replica_count(const Layout& layout);
// Number of partial-sum holders per replica: the product of every P extent, 1 without P[...] (checked).
Result<int64_t> partial_count(const Layout& layout);
// Axis names in order of first appearance (shard, replicas, partials, offset); "m" is added when a swizzle
// needs it.
std::vector<std::string> layout_axes(const Layout& layout);

}  // namespace layoutscope
