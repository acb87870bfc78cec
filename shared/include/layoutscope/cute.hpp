// CuTe's hierarchical layout as a value: a nested IntTuple shape, a congruent stride, read and written in
// the syntax CuTe's C++ print() and the CuTe Python DSL use.
//
//   (2,(2,2)):(4,(2,1))      shape (2,(2,2)), stride (4,(2,1))
//   index 5 -> colexicographic coordinate (1,(0,1)) -> 1*4 + 0*2 + 1*1 = 5
//
// CuTe splits a 1-D index colexicographically: the FIRST mode is fastest (the chapter's notation splits
// row-major, the last mode fastest), and the last mode is not reduced, so an index past size() keeps
// counting on it. Accepted spellings (one parser for both sources):
//
//   C++ print   (_2,_3):(_3,_1)   8:1   (2,(2,2)):(4,(2,1))   (_8,_128):(1@1,1@0)   (scaled basis k@i)
//               Sw<3,4,3> o _0 o (_8,_128):(_128,_1)           swizzle o offset o layout
//   C++ code    Layout<Shape<_8,Int<64>>,Stride<Int<64>,_1>>{}  Stride<E<1>,ScaledBasis<_2,0>> (1@1, 2@0)
//               composition(Swizzle<3,3,3>{}, [Int<k>{},] Layout<...>{})
//   DSL print   S<1,4,3> o 0 o (8,16):(16,1)
//   DSL code    cute.make_layout((4,8), stride=(8,1))          cute.make_layout((4,8))  (compact, first
//   fastest)
//               cute.make_ordered_layout((8,64), order=(1,0))  (order 0 is the stride-1 mode)
//               cute.make_composed_layout(cute.make_swizzle(3,4,3), 0, cute.make_layout(...))
//
// Static integers `_N` read as N; `Int<N>` too. Printing writes plain integers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "layoutscope/layout.hpp"
#include "layoutscope/result.hpp"

namespace layoutscope::cute {

// An integer or a tuple of IntTuples. A stride leaf may be a scaled basis k@i: k on coordinate axis i.
struct IntTuple {
  int64_t value = 0;  // a leaf's integer
  int basis = -1;     // strides only: >= 0 for the scaled basis value@basis, -1 for a plain integer
  bool tuple = false;
  std::vector<IntTuple> modes;

  static IntTuple leaf(int64_t v, int basis = -1) { return IntTuple{v, basis, false, {}}; }
  static IntTuple of(std::vector<IntTuple> modes) { return IntTuple{0, -1, true, std::move(modes)}; }

  bool is_leaf() const { return !tuple; }
  // A leaf has rank 1 and is its own mode 0, as in CuTe.
  size_t rank() const { return tuple ? modes.size() : 1; }
  const IntTuple& mode(size_t i) const { return tuple ? modes[i] : *this; }
  friend bool operator==(const IntTuple&, const IntTuple&) = default;
};

struct Layout {
  IntTuple shape;
  IntTuple stride;
  size_t rank() const { return shape.rank(); }
  Layout mode(size_t i) const { return Layout{shape.mode(i), stride.mode(i)}; }
  friend bool operator==(const Layout&, const Layout&) = default;
};

// Swizzle o offset o layout, CuTe's ComposedLayout with a swizzle outer function.
struct ComposedLayout {
  std::optional<Swizzle> swizzle;  // bits, base, shift (CuTe's B, M, S); inner always true
  int64_t offset = 0;
  Layout layout;
  friend bool operator==(const ComposedLayout&, const ComposedLayout&) = default;
};

// The leaves in order (depth first).
std::vector<IntTuple> flatten_leaves(const IntTuple& t);
// Same nesting (a leaf matches a leaf, a tuple a tuple of the same rank, recursively).
bool congruent(const IntTuple& a, const IntTuple& b);
// Whether any stride leaf is a scaled basis.
bool has_basis(const IntTuple& stride);

// Product of the leaves; an error when it does not fit in 64 bits.
Result<int64_t> size(const IntTuple& shape);
Result<int64_t> size(const Layout& layout);
// CuTe's cosize: layout(size - 1) + 1 (integer strides only).
Result<int64_t> cosize(const Layout& layout);

// What every CuTe layout this project reads or writes keeps to: its size and its cosize fit a signed 64-bit
// integer (at most 2^63 - 1). parse_cute refuses a text beyond it, from_chapter a layout it would write
// beyond it, both with this message; nothing when the layout is within it.
std::optional<std::string> beyond_64_bits(const Layout& layout);

// The layout at a 1-D index (integer strides), colexicographic, the last leaf unbounded: CuTe's layout(i).
// For 0 <= index < size the result lies within the cosize, which parse_cute checked to fit in 64 bits.
int64_t evaluate(const Layout& layout, int64_t index);

// Compact strides, first mode fastest (CuTe's LayoutLeft), congruent with shape.
IntTuple compact_left(const IntTuple& shape);

// "(2,(2,2)):(4,(2,1))", "8:1", "Sw<3,4,3> o 0 o (8,128):(128,1)".
std::string to_string(const IntTuple& t);
std::string to_string(const Layout& layout);
std::string to_string(const ComposedLayout& layout);
// The CuTe DSL's print: "S<3,4,3> o 0 o (8,128):(128,1)".
std::string to_dsl_print(const ComposedLayout& layout);
// CuTe DSL code that builds the layout: "cute.make_layout((4,8), stride=(8,1))", with make_composed_layout
// around it when swizzled. A scaled-basis stride has no such spelling: an error naming it.
Result<std::string> to_dsl_code(const ComposedLayout& layout);

// Reads any spelling listed at the top. Errors carry the 1-based column (code points) of the bad token.
Result<ComposedLayout> parse_cute(std::string_view text);
// One IntTuple ("(6,20)", "8", "_4"), for shapes given alone.
Result<IntTuple> parse_int_tuple(std::string_view text);

// ---- the chapter's notation ----------------------------------------------------------------------------
//
// A CuTe layout over a logical shape of the same rank is the chapter layout whose modes are, dimension by
// dimension, the leaves of that top-level mode in reverse (CuTe's first sub-mode is the fastest, the
// chapter's last): (2,(2,2)):(4,(2,1)) on logical shape (2,4) is S[(2,2,2):(4,1,2)]. Over a 1-D logical
// shape every leaf reverses. An integer stride is on @m; a scaled basis k@i is k on axis "c<i>" (c0, c1,
// ...: CuTe's coordinate axes, as TMA layouts use them). The swizzle and its offset carry over on @m.

// The chapter's name of CuTe's coordinate axis i: "c0", "c1", ...
std::string basis_axis(int basis);

// An empty logical shape means the layout's top-level shape (the size of each top-level mode).
Result<layoutscope::Layout> to_chapter(const ComposedLayout& layout,
                                       const std::vector<int64_t>& logical_shape);

// The inverse reading. Each logical dimension takes the chapter's modes in order until their extents
// multiply to its extent (a mode spanning two dimensions is split when its extent allows); extent-1 modes
// are dropped. An error names what CuTe cannot express: replication R[...], an axis other than @m and c<i>,
// an offset without a swizzle, a swizzle with swizzle_inner=False.
Result<ComposedLayout> from_chapter(const layoutscope::Layout& layout,
                                    const std::vector<int64_t>& logical_shape);

}  // namespace layoutscope::cute
