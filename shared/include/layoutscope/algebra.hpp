// CuTe's layout algebra, with CuTe's definitions (CuTe's documentation, 02_layout_algebra.md, and
// include/cute/layout.hpp), on integer strides (the chapter's @m) and CuTe's scaled-basis strides k@i
// (the coordinate layouts of identity tensors and TMA):
//
//   composition((20):(2), (5,4):(4,1))        = (5,4):(8,2)          20:2 read as a 5x4 row-major matrix
//   complement(4:2, 24)                       = (2,3):(1,8)          the holes of 4:2, repeated up to 24
//   logical_divide((4,2,3):(2,1,8), 4:2)      = ((2,2),(2,3)):((4,1),(2,8))      A o (B, complement(B))
//   logical_product((2,2):(4,1), 6:1)         = ((2,2),(2,3)):((4,1),(2,8))      (A, complement(A) o B)
//   blocked_product((2,5):(5,1), (3,4):(1,3)) = ((2,3),(5,4)):((5,10),(1,30))
//   coalesce(((16,4),128):((1@0,16@0),1@1))   = (64,128):(1@0,1@1)   modes merge only on one axis
//   composition((8,128):(1@0,1@1), (4,8):(8,1)) = (4,8):(1@1,1@0)    coordinates of a 4x8 tile
//
// Layouts are functions of a 1-D index, colexicographic (first mode fastest). Composition checks CuTe's
// weak divisibility conditions, the ones its static path asserts: a stride of B passes when it is a
// multiple of A's extent or smaller than it, an extent when it divides what A's mode offers. Those let
// through some compositions that are not A(B(i)) (CuTe answers them all the same, and so does this
// engine); the text entry point says so in `note`. A stride k@i in B composes with A's mode i alone.
//
// The text entry point algebra() reads its arguments in CuTe's syntax or the chapter's and answers in
// both; an argument in the chapter's notation has one logical dimension per mode: S[(5,4):(4,1)] is CuTe
// (5,4):(4,1) (the rank-matched reading), and the answer's `axe` is the result on its top-level shape.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "layoutscope/cute.hpp"
#include "layoutscope/result.hpp"

namespace layoutscope::cute {

// A Tiler: one layout, or one tiler per mode (CuTe's <L0, L1, ...>). A shape (6,20) is the tiler
// <6:1, 20:1>.
struct Tiler {
  std::optional<Layout> layout;  // set: a layout tiler
  std::vector<Tiler> modes;      // otherwise: applied mode by mode

  static Tiler of(Layout l) { return Tiler{std::move(l), {}}; }
  static Tiler of(std::vector<Tiler> modes) { return Tiler{std::nullopt, std::move(modes)}; }
  static Tiler of_shape(const IntTuple& shape);
};

// Flattened, extent-1 modes dropped, contiguous neighbours merged; 1:0 when nothing is left.
Result<Layout> coalesce(const Layout& layout);
// R(i) = A(B(i)) for injective B; the result has B's shape. As in CuTe, A is distributed over B's modes,
// which for a B that is not injective can differ from A(B(i)) where B's modes overlap. A tiler composes mode
// by mode (modes of A it does not reach are dropped, as in CuTe).
Result<Layout> composition(const Layout& a, const Layout& b);
Result<Layout> composition(const Layout& a, const Tiler& b);
// The ordered layout that fills the offsets A leaves free, up to cotarget (cosize(A) without one). As in
// CuTe, each gap is the next stride divided (rounding down) by what the smaller modes reach, so a layout
// whose strides do not tile gets CuTe's answer, which may overlap A: complement((6,6):(2,53), 36) =
// (2,4):(1,12). A shape cotarget is divided mode by mode, as CuTe's ceil_div of a shape does.
Result<Layout> complement(const Layout& a, int64_t cotarget);
Result<Layout> complement(const Layout& a, const IntTuple& cotarget);
Result<Layout> complement(const Layout& a);
// L(R(i)) == i for i < size(R).
Result<Layout> right_inverse(const Layout& layout);
// R(L(i)) == i for every i when L is injective.
Result<Layout> left_inverse(const Layout& layout);
// ((tile, rest)) for a layout tiler; mode by mode ((t0,r0),(t1,r1),A2...) for a tuple tiler.
Result<Layout> logical_divide(const Layout& a, const Tiler& b);
// ((t0,t1,...),(r0,r1,...,A2,...))
Result<Layout> zipped_divide(const Layout& a, const Tiler& b);
// ((t0,t1,...),r0,r1,...,A2,...)
Result<Layout> tiled_divide(const Layout& a, const Tiler& b);
// (A, complement(A, size(A)*cosize(B)) o B), mode by mode for a tuple tiler.
Result<Layout> logical_product(const Layout& a, const Tiler& b);
// Rank-sensitive products: mode i is (A_i, C_i) for blocked, (C_i, A_i) for raked, where C is the second
// mode of logical_product(A, B) with both padded to the larger rank by 1:0 modes.
Result<Layout> blocked_product(const Layout& a, const Layout& b);
Result<Layout> raked_product(const Layout& a, const Layout& b);
// The number of leading elements where a and b agree as a contiguous vector: the first mode of
// coalesce(a o right_inverse(b)) when its stride is 1, else 1. What a copy from b to a can vectorize.
Result<int64_t> max_common_vector(const Layout& a, const Layout& b);
// The layout (into a's and b's domain) of that vector: right_inverse(b) o that first mode; 1:0 when none.
Result<Layout> max_common_layout(const Layout& a, const Layout& b);

// ---- text entry point (the command line's `algebra OP ARG...`, the page's algebra()) ------------------

enum class AlgebraSyntax { kCute, kAxe };
// "cute" or "axe".
Result<AlgebraSyntax> parse_algebra_syntax(std::string_view name);

// coalesce composition complement right_inverse left_inverse logical_divide zipped_divide tiled_divide
// logical_product blocked_product raked_product max_common_vector
const std::vector<std::string_view>& algebra_operations();

struct AlgebraResult {
  Layout layout;               // the result (for max_common_vector: max_common_layout)
  std::string result;          // CuTe print syntax; for max_common_vector the number
  std::string axe;             // the chapter's notation of `layout` on `shape`
  std::vector<int64_t> shape;  // the logical shape `axe` is defined on: layout's top-level shape
  int64_t size = 0;
  int64_t cosize = 0;
  std::optional<int64_t> vector;  // max_common_vector only
  // Set when the answer is CuTe's but not the function one might expect: a composition whose result
  // differs from A(B(i)) at some i of B's domain within A's (CuTe's weak divisibility conditions).
  std::string note;
};

// Arguments: a layout, a shape "(6,20)", an integer, or a tiler "[L0,L1]" whose entries are any of these.
// Errors name the argument ("argument 2") and the 1-based column inside it.
Result<AlgebraResult> algebra(std::string_view op, const std::vector<std::string>& args,
                              AlgebraSyntax syntax);

}  // namespace layoutscope::cute
