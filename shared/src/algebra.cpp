#include "layoutscope/algebra.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <utility>

#include "layoutscope/checked.hpp"
#include "layoutscope/parse.hpp"

namespace layoutscope::cute {

Tiler Tiler::of_shape(const IntTuple& shape) {
  if (shape.is_leaf()) return Tiler::of(Layout{IntTuple::leaf(shape.value), IntTuple::leaf(1)});
  std::vector<Tiler> modes;
  for (const IntTuple& m : shape.modes) modes.push_back(of_shape(m));
  return Tiler::of(std::move(modes));
}

namespace {

// One flat mode: extent and stride, the stride a plain integer (basis -1) or CuTe's scaled basis
// stride@basis. A zero stride is zero on every axis, so it is kept as the plain integer 0.
struct Leaf {
  int64_t extent = 1;
  int64_t stride = 0;
  int basis = -1;
};

bool same_stride(const Leaf& x, int64_t stride, int basis) {
  if (x.stride == 0 || stride == 0) return x.stride == stride;
  return x.stride == stride && x.basis == basis;
}

std::vector<Leaf> leaves_of(const Layout& l) {
  const auto s = flatten_leaves(l.shape);
  const auto d = flatten_leaves(l.stride);
  std::vector<Leaf> out;
  for (size_t i = 0; i < s.size() && i < d.size(); ++i)
    out.push_back(Leaf{s[i].value, d[i].value, d[i].value == 0 ? -1 : d[i].basis});
  return out;
}

IntTuple stride_leaf(const Leaf& x) { return IntTuple::leaf(x.stride, x.stride == 0 ? -1 : x.basis); }

// A flat layout from leaves: a leaf when there is one, 1:0 when there is none.
Layout from_leaves(const std::vector<Leaf>& leaves) {
  if (leaves.empty()) return Layout{IntTuple::leaf(1), IntTuple::leaf(0)};
  if (leaves.size() == 1) return Layout{IntTuple::leaf(leaves[0].extent), stride_leaf(leaves[0])};
  std::vector<IntTuple> s, d;
  for (const Leaf& x : leaves) {
    s.push_back(IntTuple::leaf(x.extent));
    d.push_back(stride_leaf(x));
  }
  return Layout{IntTuple::of(std::move(s)), IntTuple::of(std::move(d))};
}

// (L0, L1, ...): the concatenation of sub-layouts as modes.
Layout tuple_of(const std::vector<Layout>& parts) {
  std::vector<IntTuple> s, d;
  for (const Layout& p : parts) {
    s.push_back(p.shape);
    d.push_back(p.stride);
  }
  return Layout{IntTuple::of(std::move(s)), IntTuple::of(std::move(d))};
}

// For a >= 0, b >= 1 (without the overflow of (a + b - 1) / b).
int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

std::string stride_text(int64_t stride, int basis) {
  return std::to_string(stride) + (basis >= 0 && stride != 0 ? "@" + std::to_string(basis) : "");
}

// The operations, sharing one overflow/precondition flag: the first failure is kept, later arithmetic
// runs on harmless values and the public wrapper returns the error.
class Algebra {
 public:
  std::optional<Error> err;

  void fail(std::string message) {
    if (!err) err = make_error(std::move(message));
  }
  int64_t mul(int64_t a, int64_t b) {
    int64_t out = 0;
    if (mul_overflows(a, b, &out)) {
      fail("integer overflow: " + std::to_string(a) + " * " + std::to_string(b) + " does not fit in 64 bits");
      return 1;
    }
    return out;
  }
  int64_t size_of(const Layout& l) {
    int64_t n = 1;
    for (const Leaf& x : leaves_of(l)) n = mul(n, x.extent);
    return n;
  }
  int64_t cosize_of(const Layout& l) {
    if (has_basis(l.stride)) {
      fail("the cosize of a layout with scaled-basis strides is a coordinate, not an integer");
      return 1;
    }
    auto c = cosize(l);
    if (!c) {
      fail(c.error().message);
      return 1;
    }
    return *c;
  }

  // CuTe's coalesce: extent-1 modes dropped, a mode merged into the one before it when it continues it
  // (extent * stride of the previous equals its stride, on the same basis).
  std::vector<Leaf> coalesce_leaves(const std::vector<Leaf>& in) {
    std::vector<Leaf> out;
    for (const Leaf& x : in) {
      if (x.extent == 1) continue;
      if (!out.empty() && same_stride(x, mul(out.back().extent, out.back().stride), out.back().basis)) {
        out.back().extent = mul(out.back().extent, x.extent);
      } else {
        out.push_back(x);
      }
    }
    return out;
  }
  Layout coalesce(const Layout& l) { return from_leaves(coalesce_leaves(leaves_of(l))); }

  // A (flattened, coalesced) composed with one integer-strided leaf s:d of B, with CuTe's weak
  // divisibility conditions (composition_impl in include/cute/layout.hpp): a stride passes when it is a
  // multiple of the extent or smaller than it; an extent when it is a multiple of what the mode offers.
  Layout compose_leaf(const std::vector<Leaf>& a, int64_t s, int64_t d) {
    if (d == 0) return Layout{IntTuple::leaf(s), IntTuple::leaf(0)};
    if (a.size() == 1) return from_leaves({Leaf{s, mul(d, a[0].stride), a[0].basis}});
    std::vector<Leaf> result;
    int64_t rest_shape = s;
    int64_t rest_stride = d;
    for (size_t i = 0; i + 1 < a.size(); ++i) {
      const int64_t curr_shape = a[i].extent;
      if (rest_stride % curr_shape != 0 && rest_stride >= curr_shape) {
        fail("composition: the stride divisibility condition fails: the stride " +
             std::to_string(rest_stride) + " of the right layout is neither a multiple of nor less than " +
             "the extent " + std::to_string(curr_shape) + " of the left layout's mode " + std::to_string(i));
        return from_leaves({});
      }
      const int64_t rs = rest_stride < 0 ? -rest_stride : rest_stride;
      const int64_t next_shape = ceil_div(curr_shape, rs);
      const int64_t next_stride = ceil_div(rs, curr_shape) * (rest_stride < 0 ? -1 : 1);
      if (next_shape == 1 || rest_shape == 1) {
        rest_stride = next_stride;
        continue;
      }
      const int64_t new_shape = std::min(next_shape, rest_shape);
      if (rest_shape % new_shape != 0) {
        fail("composition: the shape divisibility condition fails: the extent " + std::to_string(rest_shape) +
             " left of the right layout is not a multiple of " + std::to_string(new_shape) +
             ", what the left layout's mode " + std::to_string(i) + " offers");
        return from_leaves({});
      }
      result.push_back(Leaf{new_shape, mul(rest_stride, a[i].stride), a[i].basis});
      rest_shape /= new_shape;
      rest_stride = next_stride;
    }
    if (result.empty() || rest_shape != 1)
      result.push_back(Leaf{rest_shape, mul(rest_stride, a.back().stride), a.back().basis});
    return from_leaves(result);
  }

  // CuTe flattens A by B's coprofile: a leaf of B with stride k@i composes with A's mode i alone.
  Layout compose_tree(const Layout& a, const std::vector<Leaf>& flat, const IntTuple& bs,
                      const IntTuple& bd) {
    if (!bs.is_leaf()) {
      std::vector<Layout> parts;
      for (size_t i = 0; i < bs.modes.size(); ++i)
        parts.push_back(compose_tree(a, flat, bs.modes[i], bd.modes[i]));
      return tuple_of(parts);
    }
    if (bd.basis < 0 || bd.value == 0) return compose_leaf(flat, bs.value, bd.value);
    if (static_cast<size_t>(bd.basis) >= a.rank()) {
      fail("composition: the stride " + stride_text(bd.value, bd.basis) + " of the right layout names mode " +
           std::to_string(bd.basis) + " of a left layout of rank " + std::to_string(a.rank()));
      return from_leaves({});
    }
    auto mode = coalesce_leaves(leaves_of(a.mode(static_cast<size_t>(bd.basis))));
    if (mode.empty()) mode.push_back(Leaf{1, 0, -1});
    return compose_leaf(mode, bs.value, bd.value);
  }

  Layout composition(const Layout& a, const Layout& b) {
    auto flat = coalesce_leaves(leaves_of(a));
    if (flat.empty()) flat.push_back(Leaf{1, 0, -1});
    return compose_tree(a, flat, b.shape, b.stride);
  }

  // A tuple tiler composes mode by mode; the modes of a it does not reach are dropped (as in CuTe).
  Layout composition(const Layout& a, const Tiler& t) {
    if (t.layout) return composition(a, *t.layout);
    if (t.modes.size() > a.rank()) {
      fail("the tiler has " + std::to_string(t.modes.size()) + " modes, the layout only " +
           std::to_string(a.rank()));
      return a;
    }
    std::vector<Layout> parts;
    for (size_t i = 0; i < t.modes.size(); ++i) parts.push_back(composition(a.mode(i), t.modes[i]));
    return tuple_of(parts);
  }

  // CuTe's complement (include/cute/layout.hpp): the stride-0 and extent-1 modes filtered out, the rest
  // taken in increasing stride order, each gap min_stride / (extent * stride reached so far) by integer
  // division, then the rest up to the cotarget. CuTe takes the cotarget as a shape and divides it mode by
  // mode (ceil_div of a tuple); `cotarget` is that shape, flat. Strides on one scaled basis complement on
  // that axis; strides on two bases have no order, which CuTe cannot sort either.
  Layout complement(const Layout& a, const std::vector<int64_t>& cotarget) {
    std::vector<Leaf> kept;
    int basis = -1;
    for (const Leaf& x : leaves_of(a)) {
      if (x.stride < 0) {
        fail("complement needs non-negative strides, found " + std::to_string(x.stride));
        return a;
      }
      if (x.stride == 0 || x.extent == 1) continue;
      if (!kept.empty() && x.basis != basis) {
        fail("complement: the strides " + stride_text(kept.front().stride, basis) + " and " +
             stride_text(x.stride, x.basis) + " lie on different coordinate axes, which have no order");
        return a;
      }
      basis = x.basis;
      kept.push_back(x);
    }
    kept = coalesce_leaves(kept);
    int64_t current = 1;  // the stride the next gap starts at
    std::vector<Leaf> result;
    if (!kept.empty()) {
      std::stable_sort(kept.begin(), kept.end(),
                       [](const Leaf& x, const Leaf& y) { return x.stride < y.stride; });
      for (const Leaf& x : kept) {
        const int64_t gap = x.stride / current;
        if (gap == 0) {
          fail("complement: the stride " + stride_text(x.stride, basis) + " is less than " +
               std::to_string(current) +
               ", what the smaller modes reach: the layout is not injective (CuTe: Non-injective Layout "
               "detected in complement)");
          return a;
        }
        result.push_back(Leaf{gap, current, basis});
        current = mul(x.stride, x.extent);
      }
    }
    // ceil_div(cotarget, current) on a shape: each mode divided by what is left of the divisor.
    int64_t rest = 1;
    int64_t divisor = current;
    for (int64_t e : cotarget) {
      rest = mul(rest, ceil_div(std::max<int64_t>(e, 1), divisor));
      divisor = ceil_div(divisor, std::max<int64_t>(e, 1));
    }
    result.push_back(Leaf{rest, current, basis});
    return from_leaves(coalesce_leaves(result));
  }

  // The inverses read the strides as integers on one axis: integers, or scaled bases all on one axis
  // (then the inverse's domain is that coordinate). A layout onto two axes has no 1-D codomain to invert.
  bool one_axis(const std::vector<Leaf>& c, const char* op) {
    int basis = -2;
    for (const Leaf& x : c) {
      if (x.stride == 0) continue;
      if (basis != -2 && x.basis != basis) {
        fail(std::string(op) + ": the strides lie on more than one coordinate axis (" +
             stride_text(1, basis < 0 ? -1 : basis) + " and " + stride_text(1, x.basis) +
             "); CuTe inverts layouts into one integer codomain");
        return false;
      }
      basis = x.basis;
    }
    return true;
  }

  Layout right_inverse(const Layout& l) {
    const auto c = coalesce_leaves(leaves_of(l));
    if (!one_axis(c, "right_inverse")) return l;
    std::vector<int64_t> preprod(c.size());
    int64_t p = 1;
    for (size_t i = 0; i < c.size(); ++i) {
      preprod[i] = p;
      p = mul(p, c[i].extent);
    }
    std::vector<size_t> order(c.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t x, size_t y) { return c[x].stride < c[y].stride; });
    std::vector<Leaf> result;
    int64_t curr = 1;
    for (size_t i : order) {
      if (c[i].stride == curr) {
        result.push_back(Leaf{c[i].extent, preprod[i], -1});
        curr = mul(c[i].extent, c[i].stride);
      }
    }
    return from_leaves(coalesce_leaves(result));
  }

  Layout left_inverse(const Layout& l) {
    const auto c = coalesce_leaves(leaves_of(l));
    if (c.empty()) return from_leaves({});
    if (!one_axis(c, "left_inverse")) return l;
    std::vector<int64_t> preprod(c.size());
    int64_t p = 1;
    for (size_t i = 0; i < c.size(); ++i) {
      preprod[i] = p;
      p = mul(p, c[i].extent);
    }
    std::vector<size_t> order(c.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t x, size_t y) { return c[x].stride < c[y].stride; });
    std::vector<int64_t> shapes;
    std::vector<int64_t> strides{0};
    int64_t covered = 1;  // size of the shapes so far
    for (size_t i : order) {
      const int64_t k = c[i].stride;
      if (k == 0) continue;
      if (k < 0) {
        fail("left_inverse needs non-negative strides, found " + std::to_string(k));
        return l;
      }
      if (k % covered != 0) {
        fail("left_inverse: the stride " + std::to_string(k) + " is not a multiple of " +
             std::to_string(covered) + " (CuTe's left inverse divisibility condition)");
        return l;
      }
      shapes.push_back(k / covered);
      covered = mul(covered, k / covered);
      strides.push_back(preprod[i]);
    }
    shapes.push_back(c[order.back()].extent);
    std::vector<Leaf> result;
    for (size_t i = 0; i < shapes.size(); ++i) result.push_back(Leaf{shapes[i], strides[i], -1});
    return from_leaves(coalesce_leaves(result));
  }

  std::vector<int64_t> flat_shape(const Layout& l) {
    std::vector<int64_t> out;
    for (const Leaf& x : coalesce_leaves(leaves_of(l))) out.push_back(x.extent);
    if (out.empty()) out.push_back(1);
    return out;
  }

  // A o (B, complement(B, shape(coalesce(A)))), as CuTe writes it.
  Layout logical_divide(const Layout& a, const Tiler& t) {
    if (t.layout) {
      const Layout& b = *t.layout;
      return composition(a, tuple_of({b, complement(b, flat_shape(a))}));
    }
    return by_mode(a, t, [this](const Layout& x, const Tiler& y) { return logical_divide(x, y); });
  }

  Layout logical_product(const Layout& a, const Tiler& t) {
    if (t.layout) {
      const Layout& b = *t.layout;
      return tuple_of({a, composition(complement(a, {mul(size_of(a), cosize_of(b))}), b)});
    }
    return by_mode(a, t, [this](const Layout& x, const Tiler& y) { return logical_product(x, y); });
  }

  // Mode i of a with tiler mode i; the modes of a past the tiler stay.
  template <class F>
  Layout by_mode(const Layout& a, const Tiler& t, F f) {
    if (t.modes.size() > a.rank()) {
      fail("the tiler has " + std::to_string(t.modes.size()) + " modes, the layout only " +
           std::to_string(a.rank()));
      return a;
    }
    std::vector<Layout> parts;
    for (size_t i = 0; i < a.rank(); ++i)
      parts.push_back(i < t.modes.size() ? f(a.mode(i), t.modes[i]) : a.mode(i));
    return tuple_of(parts);
  }

  // Splits a logical_divide result along the tiler: (tiles, rests) (CuTe's zip2_by).
  std::pair<std::vector<Layout>, std::vector<Layout>> unzip(const Layout& divided, const Tiler& t) {
    if (t.layout) return {{divided.mode(0)}, {divided.mode(1)}};
    std::vector<Layout> tiles, rests;
    for (size_t i = 0; i < t.modes.size(); ++i) {
      auto [ts, rs] = unzip(divided.mode(i), t.modes[i]);
      tiles.push_back(ts.size() == 1 ? ts[0] : tuple_of(ts));
      rests.push_back(rs.size() == 1 ? rs[0] : tuple_of(rs));
    }
    for (size_t i = t.modes.size(); i < divided.rank(); ++i) rests.push_back(divided.mode(i));
    return {tiles, rests};
  }

  Layout zipped_divide(const Layout& a, const Tiler& t) {
    const Layout d = logical_divide(a, t);
    if (err) return d;
    if (t.layout) return d;
    auto [tiles, rests] = unzip(d, t);
    return tuple_of({tuple_of(tiles), tuple_of(rests)});
  }

  Layout tiled_divide(const Layout& a, const Tiler& t) {
    const Layout z = zipped_divide(a, t);
    if (err) return z;
    std::vector<Layout> parts{z.mode(0)};
    const Layout rest = z.mode(1);
    for (size_t i = 0; i < rest.rank(); ++i) parts.push_back(rest.mode(i));
    return tuple_of(parts);
  }

  // The layout as `rank` modes: a layout of lower rank gains 1:0 modes (CuTe's append<R>); a leaf layout
  // of rank 1 stays one mode.
  static std::vector<Layout> modes_of(const Layout& l, size_t rank) {
    std::vector<Layout> parts;
    for (size_t i = 0; i < l.rank(); ++i) parts.push_back(l.mode(i));
    while (parts.size() < rank) parts.push_back(Layout{IntTuple::leaf(1), IntTuple::leaf(0)});
    return parts;
  }

  Layout rank_product(const Layout& a, const Layout& b, bool raked) {
    const size_t r = std::max(a.rank(), b.rank());
    const std::vector<Layout> am = modes_of(a, r);
    const std::vector<Layout> bm = modes_of(b, r);
    const Layout pa = r == 1 ? a : tuple_of(am);
    const Layout pb = r == 1 ? b : tuple_of(bm);
    const Layout p = logical_product(pa, Tiler::of(pb));
    if (err) return p;
    // C = complement(A) o B has B's nesting: mode i of C belongs to mode i of B; a leaf B is one mode.
    const Layout c = p.mode(1);
    std::vector<Layout> parts;
    for (size_t i = 0; i < r; ++i) {
      const Layout x = am[i];
      const Layout y = r == 1 && b.shape.is_leaf() ? c : c.mode(i);
      parts.push_back(raked ? tuple_of({y, x}) : tuple_of({x, y}));
    }
    return tuple_of(parts);
  }

  Layout max_common_layout(const Layout& a, const Layout& b, int64_t* vector) {
    const Layout inv_b = right_inverse(b);
    const Layout common = coalesce(composition(a, inv_b));
    *vector = 1;
    if (err) return common;
    const Leaf first = leaves_of(common).front();
    if (first.stride != 1 || first.basis >= 0) return from_leaves({});
    *vector = first.extent;
    return composition(inv_b, Layout{IntTuple::leaf(first.extent), IntTuple::leaf(1)});
  }
};

template <class F>
Result<Layout> run(F f) {
  Algebra alg;
  Layout out = f(alg);
  if (alg.err) return *alg.err;
  return out;
}

}  // namespace

Result<Layout> coalesce(const Layout& layout) {
  return run([&](Algebra& a) { return a.coalesce(layout); });
}
Result<Layout> composition(const Layout& a, const Layout& b) {
  return run([&](Algebra& alg) { return alg.composition(a, b); });
}
Result<Layout> composition(const Layout& a, const Tiler& b) {
  return run([&](Algebra& alg) { return alg.composition(a, b); });
}
Result<Layout> complement(const Layout& a, const IntTuple& cotarget) {
  std::vector<int64_t> flat;
  for (const IntTuple& leaf : flatten_leaves(cotarget)) {
    if (leaf.value < 1) return make_error("the cotarget of complement must be at least 1", 0, "cotarget");
    flat.push_back(leaf.value);
  }
  return run([&](Algebra& alg) { return alg.complement(a, flat); });
}
Result<Layout> complement(const Layout& a, int64_t cotarget) {
  return complement(a, IntTuple::leaf(cotarget));
}
Result<Layout> complement(const Layout& a) {
  if (has_basis(a.stride))
    return make_error("complement without a cotarget needs the cosize, which a scaled-basis layout lacks", 0,
                      "cotarget");
  auto c = cosize(a);
  if (!c) return c.error();
  return complement(a, *c);
}
Result<Layout> right_inverse(const Layout& layout) {
  return run([&](Algebra& alg) { return alg.right_inverse(layout); });
}
Result<Layout> left_inverse(const Layout& layout) {
  return run([&](Algebra& alg) { return alg.left_inverse(layout); });
}
Result<Layout> logical_divide(const Layout& a, const Tiler& b) {
  return run([&](Algebra& alg) { return alg.logical_divide(a, b); });
}
Result<Layout> zipped_divide(const Layout& a, const Tiler& b) {
  return run([&](Algebra& alg) { return alg.zipped_divide(a, b); });
}
Result<Layout> tiled_divide(const Layout& a, const Tiler& b) {
  return run([&](Algebra& alg) { return alg.tiled_divide(a, b); });
}
Result<Layout> logical_product(const Layout& a, const Tiler& b) {
  return run([&](Algebra& alg) { return alg.logical_product(a, b); });
}
Result<Layout> blocked_product(const Layout& a, const Layout& b) {
  return run([&](Algebra& alg) { return alg.rank_product(a, b, false); });
}
Result<Layout> raked_product(const Layout& a, const Layout& b) {
  return run([&](Algebra& alg) { return alg.rank_product(a, b, true); });
}
Result<Layout> max_common_layout(const Layout& a, const Layout& b) {
  int64_t n = 1;
  return run([&](Algebra& alg) { return alg.max_common_layout(a, b, &n); });
}
Result<int64_t> max_common_vector(const Layout& a, const Layout& b) {
  Algebra alg;
  int64_t n = 1;
  alg.max_common_layout(a, b, &n);
  if (alg.err) return *alg.err;
  return n;
}

// ---- text entry point ----------------------------------------------------------------------------------

Result<AlgebraSyntax> parse_algebra_syntax(std::string_view name) {
  if (name == "cute") return AlgebraSyntax::kCute;
  if (name == "axe") return AlgebraSyntax::kAxe;
  return make_error("unknown syntax '" + std::string(name) + "'; expected cute or axe", 0, "syntax");
}

const std::vector<std::string_view>& algebra_operations() {
  static const std::vector<std::string_view> ops{"coalesce",        "composition",   "complement",
                                                 "right_inverse",   "left_inverse",  "logical_divide",
                                                 "zipped_divide",   "tiled_divide",  "logical_product",
                                                 "blocked_product", "raked_product", "max_common_vector"};
  return ops;
}

namespace {

struct Arg {
  enum class Kind { kLayout, kShape, kInt, kTiler } kind = Kind::kLayout;
  Layout layout;
  IntTuple shape;
  Tiler tiler;
};

// Code points before byte offset `bytes` of s: columns count code points.
int code_points(std::string_view s, size_t bytes) {
  int n = 0;
  for (size_t i = 0; i < bytes && i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) ++n;
  }
  return n;
}

Error shifted(Error e, int by) {
  if (e.column > 0) e.column += by;
  return e;
}

Result<Arg> parse_arg(std::string_view text, AlgebraSyntax syntax, int depth);

// [A, B, ...]: entries split at the commas outside brackets and parentheses.
Result<Arg> parse_tiler(std::string_view text, size_t open, AlgebraSyntax syntax, int depth) {
  const size_t close = text.find_last_not_of(" \t\r\n");
  if (close == std::string_view::npos || text[close] != ']')
    return make_error("a tiler [L0,L1,...] must end with ']'", code_points(text, text.size()) + 1);
  std::vector<Tiler> modes;
  size_t start = open + 1;
  int level = 0;
  for (size_t i = open + 1; i <= close; ++i) {
    const char c = text[i];
    if (c == '(' || c == '[' || c == '<') ++level;
    if ((c == ')' || c == ']' || c == '>') && i != close) --level;
    if ((c == ',' && level == 0) || i == close) {
      const std::string_view entry = text.substr(start, i - start);
      if (entry.find_first_not_of(" \t\r\n") == std::string_view::npos)
        return make_error("empty tiler entry", code_points(text, start) + 1);
      auto a = parse_arg(entry, syntax, depth + 1);
      if (!a) return shifted(a.error(), code_points(text, start));
      switch (a->kind) {
        case Arg::Kind::kLayout:
          modes.push_back(Tiler::of(a->layout));
          break;
        case Arg::Kind::kInt:
        case Arg::Kind::kShape:
          modes.push_back(Tiler::of_shape(a->shape));
          break;
        case Arg::Kind::kTiler:
          modes.push_back(a->tiler);
          break;
      }
      start = i + 1;
    }
  }
  Arg out;
  out.kind = Arg::Kind::kTiler;
  out.tiler = Tiler::of(std::move(modes));
  return out;
}

// The chapter's layout, one CuTe mode per chapter mode, in order.
Result<Layout> axe_layout(std::string_view text) {
  auto l = parse_layout(text);
  if (!l) return l.error();
  if (!l->replicas.empty()) return make_error("the layout algebra takes no replication R[...]", 0, "R");
  if (l->swizzle) return make_error("the layout algebra takes no swizzle", 0, "swizzle");
  for (const AxisStride& o : l->offset) {
    if (o.k != 0) return make_error("the layout algebra takes no offset O[...]", 0, "O");
  }
  std::vector<Leaf> leaves;
  for (const Mode& m : l->shard) {
    if (m.stride.axis != kMemoryAxis)
      return make_error(
          "the layout algebra acts on strides on @m; axis " + m.stride.axis + " is not accepted", 0,
          m.stride.axis);
    leaves.push_back(Leaf{m.extent, m.stride.k, -1});
  }
  return from_leaves(leaves);
}

Result<Arg> parse_arg(std::string_view text, AlgebraSyntax syntax, int depth) {
  if (depth > 16) return make_error("tilers nested deeper than 16 levels", 1);
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return make_error("empty argument", 1);
  if (text[first] == '[') return parse_tiler(text, first, syntax, depth);
  Arg out;
  const bool layout_text = syntax == AlgebraSyntax::kAxe ? text.find('[') != std::string_view::npos
                                                         : text.find(':') != std::string_view::npos ||
                                                               text.find("make_") != std::string_view::npos ||
                                                               text.find('<') != std::string_view::npos;
  if (layout_text) {
    if (syntax == AlgebraSyntax::kAxe) {
      auto l = axe_layout(text);
      if (!l) return l.error();
      out.layout = *l;
    } else {
      auto c = parse_cute(text);
      if (!c) return c.error();
      if (c->swizzle) return make_error("the layout algebra takes no swizzle", 1, "swizzle");
      out.layout = c->layout;
    }
    out.kind = Arg::Kind::kLayout;
    return out;
  }
  auto t = parse_int_tuple(text);
  if (!t) return t.error();
  out.shape = *t;
  out.kind = t->is_leaf() ? Arg::Kind::kInt : Arg::Kind::kShape;
  return out;
}

Result<Layout> as_layout(const Arg& a, const std::string& field) {
  switch (a.kind) {
    case Arg::Kind::kLayout:
      return a.layout;
    case Arg::Kind::kInt:
      return Layout{a.shape, IntTuple::leaf(1)};
    case Arg::Kind::kShape:
      return Layout{a.shape, compact_left(a.shape)};
    case Arg::Kind::kTiler:
      break;
  }
  return make_error(field + " must be a layout, not a tiler", 0, field);
}

Tiler as_tiler(const Arg& a) {
  switch (a.kind) {
    case Arg::Kind::kLayout:
      return Tiler::of(a.layout);
    case Arg::Kind::kInt:
    case Arg::Kind::kShape:
      return Tiler::of_shape(a.shape);
    case Arg::Kind::kTiler:
      break;
  }
  return a.tiler;
}

Error with_field(Error e, const std::string& field) {
  if (e.field.empty())
    e.field = field;
  else
    e.field = field + ": " + e.field;
  return e;
}

// Where CuTe's weak divisibility conditions let a composition through that is not A(B(i)): the first
// index of B's domain (within A's) where the two differ. Checked up to 2^16 elements, integer strides.
std::string composition_note(const Layout& a, const Layout& b, const Layout& r) {
  if (has_basis(a.stride) || has_basis(b.stride)) return {};
  auto na = size(a);
  auto nb = size(b);
  if (!na || !nb || *nb > (int64_t{1} << 16)) return {};
  for (int64_t i = 0; i < *nb; ++i) {
    const int64_t bi = evaluate(b, i);
    if (bi < 0 || bi >= *na) continue;
    const int64_t want = evaluate(a, bi);
    const int64_t got = evaluate(r, i);
    if (want != got)
      return "CuTe's answer, not A(B(i)): at i = " + std::to_string(i) + " the result is " +
             std::to_string(got) + " but A(B(i)) = A(" + std::to_string(bi) + ") = " + std::to_string(want) +
             " (B's stride passes CuTe's weak divisibility condition without dividing A's extents)";
  }
  return {};
}

}  // namespace

Result<AlgebraResult> algebra(std::string_view op, const std::vector<std::string>& args,
                              AlgebraSyntax syntax) {
  const auto& ops = algebra_operations();
  if (std::find(ops.begin(), ops.end(), op) == ops.end()) {
    std::string list;
    for (auto o : ops) list += (list.empty() ? "" : ", ") + std::string(o);
    return make_error("unknown operation '" + std::string(op) + "'; expected one of " + list, 0, "op");
  }
  const bool unary = op == "coalesce" || op == "right_inverse" || op == "left_inverse";
  const size_t min_args = unary || op == "complement" ? 1 : 2;
  const size_t max_args = unary ? 1 : 2;
  if (args.size() < min_args || args.size() > max_args)
    return make_error(
        std::string(op) + " takes " +
            (min_args == max_args ? std::to_string(min_args)
                                  : std::to_string(min_args) + " or " + std::to_string(max_args)) +
            " argument" + (max_args == 1 ? "" : "s") + ", found " + std::to_string(args.size()),
        0, "arguments");
  std::vector<Arg> parsed;
  for (size_t i = 0; i < args.size(); ++i) {
    auto a = parse_arg(args[i], syntax, 0);
    if (!a) return with_field(a.error(), "argument " + std::to_string(i + 1));
    parsed.push_back(std::move(a).value());
  }
  auto first = as_layout(parsed[0], "argument 1");
  if (!first) return first.error();
  const Layout& a = *first;

  Result<Layout> result = make_error("unreachable");
  std::optional<int64_t> vector;
  if (op == "coalesce") {
    result = coalesce(a);
  } else if (op == "right_inverse") {
    result = right_inverse(a);
  } else if (op == "left_inverse") {
    result = left_inverse(a);
  } else if (op == "complement") {
    if (parsed.size() == 1) {
      result = complement(a);
    } else {
      if (parsed[1].kind != Arg::Kind::kInt && parsed[1].kind != Arg::Kind::kShape)
        return make_error("the cotarget of complement is an integer or a shape", 0, "argument 2");
      result = complement(a, parsed[1].shape);
    }
  } else if (op == "blocked_product" || op == "raked_product" || op == "max_common_vector") {
    auto b = as_layout(parsed[1], "argument 2");
    if (!b) return b.error();
    if (op == "blocked_product") {
      result = blocked_product(a, *b);
    } else if (op == "raked_product") {
      result = raked_product(a, *b);
    } else {
      auto n = max_common_vector(a, *b);
      if (!n) return n.error();
      vector = *n;
      result = max_common_layout(a, *b);
    }
  } else {
    const Tiler t = as_tiler(parsed[1]);
    if (op == "composition") result = composition(a, t);
    if (op == "logical_divide") result = logical_divide(a, t);
    if (op == "zipped_divide") result = zipped_divide(a, t);
    if (op == "tiled_divide") result = tiled_divide(a, t);
    if (op == "logical_product") result = logical_product(a, t);
  }
  if (!result) return result.error();

  AlgebraResult out;
  if (op == "composition" && parsed[1].kind == Arg::Kind::kLayout)
    out.note = composition_note(a, parsed[1].layout, *result);
  out.layout = *result;
  out.vector = vector;
  out.result = vector ? std::to_string(*vector) : to_string(out.layout);
  auto n = size(out.layout);
  if (!n) return n.error();
  auto c = cosize(out.layout);
  if (!c) return c.error();
  out.size = *n;
  out.cosize = *c;
  for (size_t i = 0; i < out.layout.rank(); ++i) {
    auto m = size(out.layout.shape.mode(i));
    if (!m) return m.error();
    out.shape.push_back(*m);
  }
  auto axe = to_chapter(ComposedLayout{std::nullopt, 0, out.layout}, out.shape);
  if (!axe) return axe.error();
  out.axe = layoutscope::to_string(*axe);
  return out;
}

}  // namespace layoutscope::cute
