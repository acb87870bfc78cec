#include "layoutscope/cute.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>

#include "layoutscope/checked.hpp"

namespace layoutscope::cute {

// ---- IntTuple helpers -----------------------------------------------------------------------------------

namespace {

void collect_leaves(const IntTuple& t, std::vector<IntTuple>& out) {
  if (t.is_leaf()) {
    out.push_back(t);
    return;
  }
  for (const IntTuple& m : t.modes) collect_leaves(m, out);
}

}  // namespace

std::vector<IntTuple> flatten_leaves(const IntTuple& t) {
  std::vector<IntTuple> out;
  collect_leaves(t, out);
  return out;
}

bool congruent(const IntTuple& a, const IntTuple& b) {
  if (a.is_leaf() || b.is_leaf()) return a.is_leaf() && b.is_leaf();
  if (a.modes.size() != b.modes.size()) return false;
  for (size_t i = 0; i < a.modes.size(); ++i) {
    if (!congruent(a.modes[i], b.modes[i])) return false;
  }
  return true;
}

bool has_basis(const IntTuple& stride) {
  if (stride.is_leaf()) return stride.basis >= 0;
  return std::any_of(stride.modes.begin(), stride.modes.end(),
                     [](const IntTuple& m) { return has_basis(m); });
}

Result<int64_t> size(const IntTuple& shape) {
  int64_t n = 1;
  for (const IntTuple& leaf : flatten_leaves(shape)) {
    if (mul_overflows(n, leaf.value, &n)) return make_error("the size of the shape overflows 64 bits");
  }
  return n;
}

Result<int64_t> size(const Layout& layout) { return size(layout.shape); }

Result<int64_t> cosize(const Layout& layout) {
  const auto shape = flatten_leaves(layout.shape);
  const auto stride = flatten_leaves(layout.stride);
  int64_t top = 0;
  for (size_t i = 0; i < shape.size() && i < stride.size(); ++i) {
    int64_t term = 0;
    if (mul_overflows(shape[i].value - 1, stride[i].value, &term) || add_overflows(top, term, &top))
      return make_error("the cosize of the layout overflows 64 bits");
  }
  if (add_overflows(top, 1, &top)) return make_error("the cosize of the layout overflows 64 bits");
  return top;
}

std::optional<std::string> beyond_64_bits(const Layout& layout) {
  if (!size(layout).ok())
    return "the layout's size (its number of elements) does not fit in 64 bits (at most 2^63 - 1)";
  if (!cosize(layout).ok())
    return "the layout's cosize (layout(size - 1) + 1, its last offset plus one) does not fit in 64 bits (at "
           "most "
           "2^63 - 1)";
  return std::nullopt;
}

int64_t evaluate(const Layout& layout, int64_t index) {
  const auto shape = flatten_leaves(layout.shape);
  const auto stride = flatten_leaves(layout.stride);
  int64_t out = 0;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i + 1 == shape.size()) {
      out += index * stride[i].value;
    } else {
      out += (index % shape[i].value) * stride[i].value;
      index /= shape[i].value;
    }
  }
  return out;
}

namespace {

IntTuple compact_left_from(const IntTuple& shape, int64_t& current) {
  if (shape.is_leaf()) {
    IntTuple d = IntTuple::leaf(current);
    current *= shape.value;
    return d;
  }
  std::vector<IntTuple> modes;
  for (const IntTuple& m : shape.modes) modes.push_back(compact_left_from(m, current));
  return IntTuple::of(std::move(modes));
}

}  // namespace

IntTuple compact_left(const IntTuple& shape) {
  int64_t current = 1;
  return compact_left_from(shape, current);
}

// ---- printing ------------------------------------------------------------------------------------------

std::string to_string(const IntTuple& t) {
  if (t.is_leaf()) {
    std::string s = std::to_string(t.value);
    if (t.basis >= 0) s += "@" + std::to_string(t.basis);
    return s;
  }
  std::string s = "(";
  for (size_t i = 0; i < t.modes.size(); ++i) {
    if (i) s += ",";
    s += to_string(t.modes[i]);
  }
  return s + ")";
}

std::string to_string(const Layout& layout) {
  return to_string(layout.shape) + ":" + to_string(layout.stride);
}

namespace {

std::string composed_string(const ComposedLayout& layout, const char* swizzle_name) {
  std::string s;
  if (layout.swizzle) {
    s += swizzle_name;
    s += "<" + std::to_string(layout.swizzle->bits) + "," + std::to_string(layout.swizzle->base) + "," +
         std::to_string(layout.swizzle->shift) + "> o " + std::to_string(layout.offset) + " o ";
  }
  return s + to_string(layout.layout);
}

// A Python tuple literal: a 1-tuple needs its trailing comma.
std::string python_tuple(const IntTuple& t) {
  if (t.is_leaf()) return std::to_string(t.value);
  std::string s = "(";
  for (size_t i = 0; i < t.modes.size(); ++i) {
    if (i) s += ",";
    s += python_tuple(t.modes[i]);
  }
  if (t.modes.size() == 1) s += ",";
  return s + ")";
}

}  // namespace

std::string to_string(const ComposedLayout& layout) { return composed_string(layout, "Sw"); }
std::string to_dsl_print(const ComposedLayout& layout) { return composed_string(layout, "S"); }

Result<std::string> to_dsl_code(const ComposedLayout& layout) {
  if (has_basis(layout.layout.stride))
    return make_error("a scaled-basis stride (k@i) has no cute.make_layout spelling", 0, "stride");
  std::string code = "cute.make_layout(" + python_tuple(layout.layout.shape) +
                     ", stride=" + python_tuple(layout.layout.stride) + ")";
  if (!layout.swizzle) return code;
  const Swizzle& s = *layout.swizzle;
  return "cute.make_composed_layout(cute.make_swizzle(" + std::to_string(s.bits) + "," +
         std::to_string(s.base) + "," + std::to_string(s.shift) + "), " + std::to_string(layout.offset) +
         ", " + code + ")";
}

// ---- parsing -------------------------------------------------------------------------------------------

namespace {

constexpr size_t kMaxTextBytes = 1 << 16;
constexpr int kMaxDepth = 32;

enum class Tok { kEnd, kIdent, kInt, kSym };

struct Token {
  Tok kind = Tok::kEnd;
  std::string text;
  int column = 1;
};

bool ident_start(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool ident_char(unsigned char c) { return ident_start(c) || (c >= '0' && c <= '9'); }

Result<std::vector<Token>> lex(std::string_view s) {
  if (s.size() > kMaxTextBytes) return make_error("text longer than 65536 bytes", 1);
  std::vector<Token> out;
  int column = 1;
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++i;
      ++column;
      continue;
    }
    Token t;
    t.column = column;
    size_t len = 1;
    if (ident_start(c)) {
      while (i + len < s.size() && ident_char(static_cast<unsigned char>(s[i + len]))) ++len;
      t.kind = Tok::kIdent;
      t.text = std::string(s.substr(i, len));
    } else if (c >= '0' && c <= '9') {
      while (i + len < s.size() && s[i + len] >= '0' && s[i + len] <= '9') ++len;
      t.kind = Tok::kInt;
      t.text = std::string(s.substr(i, len));
    } else if (s.substr(i, 3) == "\xE2\x88\x98") {  // U+2218 RING OPERATOR, CuTe's composition sign
      t.kind = Tok::kIdent;
      t.text = "o";
      out.push_back(t);
      i += 3;
      ++column;
      continue;
    } else if (s.substr(i, 2) == "::") {
      t.kind = Tok::kSym;
      t.text = "::";
      len = 2;
    } else if (std::string_view("()[],:@<>=.-{}").find(static_cast<char>(c)) != std::string_view::npos) {
      t.kind = Tok::kSym;
      t.text = std::string(1, static_cast<char>(c));
    } else {
      std::string shown;
      if (c < 0x20 || c >= 0x7f) {
        static const char* hex = "0123456789abcdef";
        shown = std::string("byte 0x") + hex[c >> 4] + hex[c & 15];
      } else {
        shown = std::string("'") + static_cast<char>(c) + "'";
      }
      return make_error("unexpected character " + shown, column);
    }
    i += len;
    column += static_cast<int>(len);
    out.push_back(std::move(t));
  }
  Token end;
  end.column = column;
  out.push_back(end);
  return out;
}

std::string describe(const Token& t) {
  if (t.kind == Tok::kEnd) return "the end of the text";
  return "'" + t.text + "'";
}

// Static integers print as _N; the digits after the underscore are the value.
bool static_int(const Token& t) {
  return t.kind == Tok::kIdent && t.text.size() > 1 && t.text[0] == '_' &&
         std::all_of(t.text.begin() + 1, t.text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : t_(std::move(tokens)) {}

  const Token& peek(size_t ahead = 0) const { return t_[std::min(p_ + ahead, t_.size() - 1)]; }
  bool failed() const { return err_.has_value(); }
  const Error& error() const { return *err_; }
  bool at_end() const { return peek().kind == Tok::kEnd; }

  void fail(std::string message, int column, std::string field = {}) {
    if (!err_) err_ = make_error(std::move(message), column, std::move(field));
  }
  void expected(const std::string& what) {
    fail("expected " + what + ", found " + describe(peek()), peek().column);
  }

  bool is_sym(std::string_view s, size_t ahead = 0) const {
    return peek(ahead).kind == Tok::kSym && peek(ahead).text == s;
  }
  bool is_ident(std::string_view s, size_t ahead = 0) const {
    return peek(ahead).kind == Tok::kIdent && peek(ahead).text == s;
  }
  bool accept(std::string_view sym) {
    if (!is_sym(sym)) return false;
    ++p_;
    return true;
  }
  bool expect(std::string_view sym) {
    if (accept(sym)) return true;
    expected("'" + std::string(sym) + "'");
    return false;
  }

  // A module prefix: "cute." or "cute::".
  void skip_prefix() {
    if (is_ident("cute") && (is_sym(".", 1) || is_sym("::", 1))) p_ += 2;
  }

  // [-] digits | _digits | Int<digits>
  std::optional<int64_t> integer() {
    if (failed()) return std::nullopt;
    const int column = peek().column;
    if (is_ident("_") && is_sym("-", 1)) ++p_;  // a static negative integer prints as _-1
    bool negative = false;
    if (accept("-")) negative = true;
    std::string digits;
    if (peek().kind == Tok::kInt) {
      digits = peek().text;
      ++p_;
    } else if (static_int(peek())) {
      digits = peek().text.substr(1);
      ++p_;
    } else if (is_ident("Int") && is_sym("<", 1)) {
      p_ += 2;
      if (accept("-")) negative = !negative;  // Int<-3>
      if (peek().kind != Tok::kInt) {
        expected("an integer");
        return std::nullopt;
      }
      digits = peek().text;
      ++p_;
      if (!expect(">")) return std::nullopt;
    } else {
      expected("an integer");
      return std::nullopt;
    }
    int64_t v = 0;
    for (char c : digits) {
      if (mul_overflows(v, 10, &v) || add_overflows(v, c - '0', &v)) {
        fail("number " + digits + " does not fit in 64 bits", column);
        return std::nullopt;
      }
    }
    return negative ? -v : v;
  }

  // An IntTuple. Strides may carry a scaled basis k@i; shapes are checked by the caller.
  std::optional<IntTuple> tuple(bool allow_basis, int depth = 0) {
    if (failed()) return std::nullopt;
    if (depth > kMaxDepth) {
      fail("tuples nested deeper than 32 levels", peek().column);
      return std::nullopt;
    }
    if (accept("(")) {
      std::vector<IntTuple> modes;
      if (accept(")")) return IntTuple::of({});  // CuTe's empty tuple: the empty layout ():() has size 1
      while (true) {
        auto m = tuple(allow_basis, depth + 1);
        if (!m) return std::nullopt;
        modes.push_back(std::move(m).value());
        if (accept(")")) break;
        if (!accept(",")) {
          expected("',' or ')'");
          return std::nullopt;
        }
        if (accept(")")) break;  // Python's trailing comma: (8,)
      }
      return IntTuple::of(std::move(modes));
    }
    if (is_ident("E") && is_sym("<", 1)) {  // CuTe's basis type E<i>, the stride 1@i
      if (!allow_basis) {
        fail("a scaled basis E<i> is a stride, not an extent", peek().column);
        return std::nullopt;
      }
      p_ += 2;
      const int basis_column = peek().column;
      auto b = integer();
      if (!b) return std::nullopt;
      if (*b < 0 || *b > 64) {
        fail("a scaled basis names coordinate axis 0..64", basis_column);
        return std::nullopt;
      }
      if (!expect(">")) return std::nullopt;
      return IntTuple::leaf(1, static_cast<int>(*b));
    }
    auto v = integer();
    if (!v) return std::nullopt;
    int basis = -1;
    if (is_sym("@")) {
      if (!allow_basis) {
        fail("a scaled basis k@i is a stride, not an extent", peek().column);
        return std::nullopt;
      }
      ++p_;
      const int basis_column = peek().column;
      auto b = integer();
      if (!b) return std::nullopt;
      if (*b < 0 || *b > 64) {
        fail("a scaled basis names coordinate axis 0..64", basis_column);
        return std::nullopt;
      }
      basis = static_cast<int>(*b);
      if (is_sym("@")) {
        fail("nested scaled bases (k@i@j) are not supported", peek().column);
        return std::nullopt;
      }
    }
    return IntTuple::leaf(*v, basis);
  }

  // A C++ type list, CuTe's static spelling of an IntTuple: Shape<Int<8>,Int<64>>, Stride<Int<64>,Int<1>>,
  // nested, with E<i> and ScaledBasis<Int<k>,i> (the stride k@i) as stride leaves. A leaf is any integer
  // tuple() reads.
  std::optional<IntTuple> type_tuple(bool allow_basis, int depth = 0) {
    if (failed()) return std::nullopt;
    if (depth > kMaxDepth) {
      fail("tuples nested deeper than 32 levels", peek().column);
      return std::nullopt;
    }
    skip_prefix();
    if ((is_ident("Shape") || is_ident("Stride") || is_ident("tuple")) && is_sym("<", 1)) {
      p_ += 2;
      std::vector<IntTuple> modes;
      if (accept(">")) return IntTuple::of({});
      while (true) {
        auto m = type_tuple(allow_basis, depth + 1);
        if (!m) return std::nullopt;
        modes.push_back(std::move(m).value());
        if (accept(">")) break;
        if (!accept(",")) {
          expected("',' or '>'");
          return std::nullopt;
        }
      }
      return IntTuple::of(std::move(modes));
    }
    if (is_ident("ScaledBasis") && is_sym("<", 1)) {
      if (!allow_basis) {
        fail("a scaled basis ScaledBasis<k,i> is a stride, not an extent", peek().column);
        return std::nullopt;
      }
      p_ += 2;
      auto k = integer();
      if (!k || !expect(",")) return std::nullopt;
      const int basis_column = peek().column;
      auto b = integer();
      if (!b) return std::nullopt;
      if (*b < 0 || *b > 64) {
        fail("a scaled basis names coordinate axis 0..64", basis_column);
        return std::nullopt;
      }
      if (!expect(">")) return std::nullopt;
      return IntTuple::leaf(*k, static_cast<int>(*b));
    }
    return tuple(allow_basis, depth);
  }

  // A value's trailing {} or (): Swizzle<3,4,3>{}, Int<0>{}, Layout<...>{}.
  void empty_initializer() {
    if ((is_sym("{") && is_sym("}", 1)) || (is_sym("(") && is_sym(")", 1))) p_ += 2;
  }

  // Extents must be positive.
  bool check_shape(const IntTuple& shape, int column) {
    for (const IntTuple& leaf : flatten_leaves(shape)) {
      if (leaf.value < 1) {
        fail("an extent must be at least 1, found " + std::to_string(leaf.value), column, "shape");
        return false;
      }
    }
    return true;
  }

  std::optional<Layout> finish_layout(IntTuple shape, IntTuple stride, int shape_column, int stride_column) {
    if (!check_shape(shape, shape_column)) return std::nullopt;
    if (!congruent(shape, stride)) {
      fail("the stride " + to_string(stride) + " does not have the nesting of the shape " + to_string(shape),
           stride_column, "stride");
      return std::nullopt;
    }
    Layout l{std::move(shape), std::move(stride)};
    if (auto beyond = beyond_64_bits(l)) {
      fail(*beyond, shape_column);
      return std::nullopt;
    }
    return l;
  }

  // shape ':' stride, as CuTe prints it.
  std::optional<Layout> printed_layout() {
    const int shape_column = peek().column;
    auto shape = tuple(false);
    if (!shape) return std::nullopt;
    if (!is_sym(":")) {
      expected("':' and the stride");
      return std::nullopt;
    }
    ++p_;
    const int stride_column = peek().column;
    auto stride = tuple(true);
    if (!stride) return std::nullopt;
    return finish_layout(std::move(shape).value(), std::move(stride).value(), shape_column, stride_column);
  }

  // Sw<B,M,S> | S<B,M,S> | Swizzle<B,M,S> | make_swizzle(B,M,S)
  bool swizzle_start() const {
    size_t a = 0;
    if (is_ident("cute") && (is_sym(".", 1) || is_sym("::", 1))) a = 2;
    if (is_ident("make_swizzle", a)) return true;
    return (is_ident("Sw", a) || is_ident("S", a) || is_ident("Swizzle", a)) && is_sym("<", a + 1);
  }

  std::optional<Swizzle> swizzle() {
    skip_prefix();
    const int column = peek().column;
    const bool call = is_ident("make_swizzle");
    ++p_;
    if (!expect(call ? "(" : "<")) return std::nullopt;
    int64_t v[3];
    for (int i = 0; i < 3; ++i) {
      if (i && !expect(",")) return std::nullopt;
      auto x = integer();
      if (!x) return std::nullopt;
      v[i] = *x;
    }
    if (!expect(call ? ")" : ">")) return std::nullopt;
    if (!call) empty_initializer();
    if (v[0] < 0 || v[1] < 0 || v[2] < 0 || v[0] > 30 || v[1] > 30 || v[2] > 30 || v[0] + v[1] + v[2] > 62) {
      fail("swizzle parameters B, M, S must lie in 0..30 and their sum below 63", column, "swizzle");
      return std::nullopt;
    }
    return Swizzle{static_cast<int>(v[0]), static_cast<int>(v[1]), static_cast<int>(v[2]), true,
                   SwizzleSpelling::kCute};
  }

  bool composition_sign() {
    if (!is_ident("o")) return false;
    ++p_;
    return true;
  }

  // [swizzle o [offset o]] layout    or a DSL constructor call.
  std::optional<ComposedLayout> composed() {
    ComposedLayout out;
    if (swizzle_start()) {
      const int swizzle_column = peek(is_ident("cute") ? 2 : 0).column;
      auto sw = swizzle();
      if (!sw) return std::nullopt;
      out.swizzle = *sw;
      if (!composition_sign()) {
        if (at_end()) {
          fail("a swizzle alone is not a layout: write swizzle o offset o layout", swizzle_column);
        } else {
          expected("'o' after the swizzle (swizzle o offset o layout)");
        }
        return std::nullopt;
      }
      // An offset is an integer followed by another 'o'.
      if (is_ident("o", 1) || (is_sym("-") && is_ident("o", 2))) {
        auto off = integer();
        if (!off) return std::nullopt;
        out.offset = *off;
        composition_sign();
      }
      const int inner_column = peek().column;
      auto inner = layout_expression();
      if (!inner) return std::nullopt;
      if (inner->swizzle) {
        fail("a swizzle composed with a swizzled layout is not supported", inner_column);
        return std::nullopt;
      }
      out.layout = inner->layout;
      if (add_overflows(out.offset, inner->offset, &out.offset)) {
        fail("the offset overflows 64 bits", inner_column);
        return std::nullopt;
      }
      return out;
    }
    return layout_expression();
  }

  // A printed layout or a DSL call.
  std::optional<ComposedLayout> layout_expression() {
    if (failed()) return std::nullopt;
    const size_t save = p_;
    skip_prefix();
    if (peek().kind == Tok::kIdent && !static_int(peek()) && !is_ident("Int")) {
      const Token name = peek();
      if (name.text == "make_layout") return dsl_make_layout();
      if (name.text == "make_ordered_layout") return dsl_make_ordered_layout();
      if (name.text == "make_composed_layout") return dsl_make_composed_layout();
      if (name.text == "Layout" && is_sym("<", 1)) return cpp_layout_type();
      if (name.text == "composition" && is_sym("(", 1)) return cpp_composition();
      if (name.text == "make_swizzle") {
        fail("a swizzle alone is not a layout: compose it, make_composed_layout(swizzle, offset, layout)",
             name.column);
        return std::nullopt;
      }
      fail(
          "unknown name " + describe(name) +
              "; expected a layout such as (4,8):(8,1), cute.make_layout(...) or Sw<B,M,S> o offset o layout",
          name.column);
      return std::nullopt;
    }
    p_ = save;
    auto l = printed_layout();
    if (!l) return std::nullopt;
    return ComposedLayout{std::nullopt, 0, std::move(l).value()};
  }

  // An optional keyword name=, checked against the one expected.
  void keyword(std::string_view name) {
    if (peek().kind == Tok::kIdent && is_sym("=", 1)) {
      if (peek().text != name) {
        fail("unknown keyword " + describe(peek()) + "; expected " + std::string(name), peek().column,
             peek().text);
        return;
      }
      p_ += 2;
    }
  }

  std::optional<ComposedLayout> dsl_make_layout() {
    ++p_;
    if (!expect("(")) return std::nullopt;
    keyword("shape");
    const int shape_column = peek().column;
    auto shape = tuple(false);
    if (!shape) return std::nullopt;
    IntTuple stride;
    int stride_column = peek().column;
    bool have_stride = false;
    if (accept(",") && !is_sym(")")) {
      keyword("stride");
      stride_column = peek().column;
      auto s = tuple(true);
      if (!s) return std::nullopt;
      stride = std::move(s).value();
      have_stride = true;
      accept(",");
    }
    if (!expect(")")) return std::nullopt;
    if (!have_stride) {
      if (!size(*shape).ok()) {
        fail("the layout's size overflows 64 bits", shape_column);
        return std::nullopt;
      }
      stride = compact_left(*shape);
    }
    auto l = finish_layout(std::move(shape).value(), std::move(stride), shape_column, stride_column);
    if (!l) return std::nullopt;
    return ComposedLayout{std::nullopt, 0, std::move(l).value()};
  }

  // Strides grow in the order the order tuple gives: the mode with the smallest order value has stride 1.
  std::optional<ComposedLayout> dsl_make_ordered_layout() {
    ++p_;
    if (!expect("(")) return std::nullopt;
    keyword("shape");
    const int shape_column = peek().column;
    auto shape = tuple(false);
    if (!shape || !expect(",")) return std::nullopt;
    keyword("order");
    const int order_column = peek().column;
    auto order = tuple(false);
    if (!order) return std::nullopt;
    accept(",");
    if (!expect(")")) return std::nullopt;
    if (!check_shape(*shape, shape_column)) return std::nullopt;
    if (!congruent(*shape, *order)) {
      fail("the order " + to_string(*order) + " does not have the nesting of the shape " + to_string(*shape),
           order_column, "order");
      return std::nullopt;
    }
    const auto extents = flatten_leaves(*shape);
    const auto ranks = flatten_leaves(*order);
    std::vector<size_t> idx(extents.size());
    std::iota(idx.begin(), idx.end(), size_t{0});
    std::stable_sort(idx.begin(), idx.end(),
                     [&](size_t a, size_t b) { return ranks[a].value < ranks[b].value; });
    std::vector<int64_t> strides(extents.size());
    int64_t current = 1;
    for (size_t i : idx) {
      strides[i] = current;
      if (mul_overflows(current, extents[i].value, &current)) {
        fail("the layout's size overflows 64 bits", shape_column);
        return std::nullopt;
      }
    }
    size_t next = 0;
    IntTuple stride = rebuild(*shape, strides, next);
    auto l = finish_layout(std::move(shape).value(), std::move(stride), shape_column, order_column);
    if (!l) return std::nullopt;
    return ComposedLayout{std::nullopt, 0, std::move(l).value()};
  }

  static IntTuple rebuild(const IntTuple& like, const std::vector<int64_t>& leaves, size_t& next) {
    if (like.is_leaf()) return IntTuple::leaf(leaves[next++]);
    std::vector<IntTuple> modes;
    for (const IntTuple& m : like.modes) modes.push_back(rebuild(m, leaves, next));
    return IntTuple::of(std::move(modes));
  }

  // CuTe C++'s static layout, Layout<Shape<...>,Stride<...>>{} (a leaf shape is a bare Int<N>).
  std::optional<ComposedLayout> cpp_layout_type() {
    p_ += 2;
    const int shape_column = peek().column;
    auto shape = type_tuple(false);
    if (!shape || !expect(",")) return std::nullopt;
    const int stride_column = peek().column;
    auto stride = type_tuple(true);
    if (!stride || !expect(">")) return std::nullopt;
    empty_initializer();
    auto l = finish_layout(std::move(shape).value(), std::move(stride).value(), shape_column, stride_column);
    if (!l) return std::nullopt;
    return ComposedLayout{std::nullopt, 0, std::move(l).value()};
  }

  // composition(Swizzle<B,M,S>{}, [offset,] layout): CuTe's overloads of composition for a swizzle
  // (include/cute/swizzle_layout.hpp), the C++ spelling of Sw<B,M,S> o offset o layout.
  std::optional<ComposedLayout> cpp_composition() {
    const int column = peek().column;
    p_ += 2;
    if (!swizzle_start()) {
      fail(
          "only composition(Swizzle<B,M,S>{}, [offset,] layout) is a layout here; compose two layouts with "
          "the algebra's composition",
          peek().column);
      return std::nullopt;
    }
    auto sw = swizzle();
    if (!sw || !expect(",")) return std::nullopt;
    int64_t offset = 0;
    skip_prefix();
    if (peek().kind == Tok::kInt || is_sym("-") || static_int(peek()) ||
        (is_ident("Int") && is_sym("<", 1))) {
      auto off = integer();
      if (!off) return std::nullopt;
      offset = *off;
      empty_initializer();
      if (!expect(",")) return std::nullopt;
    }
    auto inner = layout_expression();
    if (!inner || !expect(")")) return std::nullopt;
    if (inner->swizzle) {
      fail("a swizzle composed with a swizzled layout is not supported", column);
      return std::nullopt;
    }
    ComposedLayout out{*sw, offset, inner->layout};
    if (add_overflows(out.offset, inner->offset, &out.offset)) {
      fail("the offset overflows 64 bits", column);
      return std::nullopt;
    }
    return out;
  }

  std::optional<ComposedLayout> dsl_make_composed_layout() {
    const int column = peek().column;
    ++p_;
    if (!expect("(")) return std::nullopt;
    keyword("inner");
    if (!swizzle_start()) {
      fail("make_composed_layout's inner function must be a swizzle, make_swizzle(B,M,S)", peek().column,
           "inner");
      return std::nullopt;
    }
    auto sw = swizzle();
    if (!sw || !expect(",")) return std::nullopt;
    keyword("offset");
    auto off = integer();
    if (off) empty_initializer();
    if (!off || !expect(",")) return std::nullopt;
    keyword("outer");
    auto outer = layout_expression();
    if (!outer) return std::nullopt;
    accept(",");
    if (!expect(")")) return std::nullopt;
    if (outer->swizzle) {
      fail("a swizzle composed with a swizzled layout is not supported", column);
      return std::nullopt;
    }
    ComposedLayout out{*sw, *off, outer->layout};
    if (add_overflows(out.offset, outer->offset, &out.offset)) {
      fail("the offset overflows 64 bits", column);
      return std::nullopt;
    }
    return out;
  }

 private:
  std::vector<Token> t_;
  size_t p_ = 0;
  std::optional<Error> err_;
};

}  // namespace

Result<ComposedLayout> parse_cute(std::string_view text) {
  auto tokens = lex(text);
  if (!tokens) return tokens.error();
  Parser p(std::move(tokens).value());
  if (p.at_end()) return make_error("empty text; expected a CuTe layout such as (4,8):(8,1)", 1);
  auto out = p.composed();
  if (!p.failed() && !p.at_end()) p.expected("the end of the layout");
  if (p.failed()) return p.error();
  return *out;
}

Result<IntTuple> parse_int_tuple(std::string_view text) {
  auto tokens = lex(text);
  if (!tokens) return tokens.error();
  Parser p(std::move(tokens).value());
  if (p.at_end()) return make_error("empty text; expected a shape such as (6,20)", 1);
  const int column = p.peek().column;
  auto t = p.tuple(false);
  if (!p.failed() && !p.at_end()) p.expected("the end of the shape");
  if (!p.failed()) p.check_shape(*t, column);
  if (p.failed()) return p.error();
  if (!size(*t).ok()) return make_error("the size of the shape overflows 64 bits", column);
  return *t;
}

}  // namespace layoutscope::cute

// ---- the chapter's notation ----------------------------------------------------------------------------

namespace layoutscope::cute {

std::string basis_axis(int basis) {
  std::string s = "c";
  s += std::to_string(basis);
  return s;
}

namespace {

void append_reversed(const IntTuple& shape, const IntTuple& stride, std::vector<Mode>& out) {
  const auto extents = flatten_leaves(shape);
  const auto strides = flatten_leaves(stride);
  for (size_t i = extents.size(); i-- > 0;) {
    const IntTuple& d = strides[i];
    out.push_back(Mode{extents[i].value,
                       AxisStride{d.value, d.basis >= 0 ? basis_axis(d.basis) : std::string(kMemoryAxis)}});
  }
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(shape[i]);
  }
  return s + ")";
}

// "c3" -> 3; anything else -> -1.
int basis_of_axis(const std::string& axis) {
  if (axis.size() < 2 || axis.size() > 3 || axis[0] != 'c') return -1;
  int v = 0;
  for (size_t i = 1; i < axis.size(); ++i) {
    if (axis[i] < '0' || axis[i] > '9') return -1;
    v = v * 10 + (axis[i] - '0');
  }
  if (axis.size() == 3 && axis[1] == '0') return -1;  // "c01" is not a coordinate axis name
  return v <= 64 ? v : -1;
}

IntTuple stride_leaf(const AxisStride& s) {
  if (s.axis == kMemoryAxis) return IntTuple::leaf(s.k);
  return IntTuple::leaf(s.k, basis_of_axis(s.axis));
}

}  // namespace

Result<layoutscope::Layout> to_chapter(const ComposedLayout& layout,
                                       const std::vector<int64_t>& logical_shape) {
  const Layout& l = layout.layout;
  layoutscope::Layout out;
  std::vector<int64_t> shape = logical_shape;
  if (shape.empty()) {
    for (size_t i = 0; i < l.rank(); ++i) {
      auto n = size(l.shape.mode(i));
      if (!n) return n.error();
      shape.push_back(*n);
    }
  }
  auto total = size(l);
  if (!total) return total.error();
  int64_t logical = 1;
  for (int64_t e : shape) {
    if (e < 1) return make_error("a logical extent must be at least 1", 0, "shape");
    if (mul_overflows(logical, e, &logical))
      return make_error("the logical shape overflows 64 bits", 0, "shape");
  }
  if (logical != *total)
    return make_error("the logical shape " + shape_text(shape) + " has " + std::to_string(logical) +
                          " elements, the CuTe layout " + std::to_string(*total),
                      0, "shape");
  if (shape.size() == 1) {
    append_reversed(l.shape, l.stride, out.shard);
  } else if (shape.size() == l.rank()) {
    for (size_t d = 0; d < shape.size(); ++d) {
      auto n = size(l.shape.mode(d));
      if (!n) return n.error();
      if (*n != shape[d])
        return make_error("mode " + std::to_string(d) + " of the CuTe layout has " + std::to_string(*n) +
                              " elements, logical dimension " + std::to_string(d) + " has " +
                              std::to_string(shape[d]),
                          0, "shape");
      append_reversed(l.shape.mode(d), l.stride.mode(d), out.shard);
    }
  } else {
    return make_error("the logical shape " + shape_text(shape) + " has rank " + std::to_string(shape.size()) +
                          ", the CuTe layout rank " + std::to_string(l.rank()) + ": give a shape of rank " +
                          std::to_string(l.rank()) + " or 1",
                      0, "shape");
  }
  if (layout.swizzle) out.swizzle = layout.swizzle;
  if (layout.offset != 0) out.offset.push_back(AxisStride{layout.offset, std::string(kMemoryAxis)});
  return out;
}

Result<ComposedLayout> from_chapter(const layoutscope::Layout& layout,
                                    const std::vector<int64_t>& logical_shape) {
  if (!layout.replicas.empty())
    return make_error(
        "replication R[...] cannot be expressed in CuTe (a layout maps each element to one place)", 0, "R");
  if (!layout.partials.empty())
    return make_error("partial sums P[...] cannot be expressed in CuTe (a layout holds whole values)", 0,
                      "P");
  ComposedLayout out;
  if (layout.swizzle) {
    if (!layout.swizzle->inner)
      return make_error(
          "a swizzle with swizzle_inner=False has no CuTe spelling (CuTe's Swizzle XORs the high "
          "bits into the low ones)",
          0, "swizzle");
    out.swizzle = *layout.swizzle;
    out.swizzle->spelling = SwizzleSpelling::kCute;
  }
  for (const AxisStride& o : layout.offset) {
    if (o.k == 0) continue;
    if (o.axis != kMemoryAxis)
      return make_error("an offset on axis " + o.axis + " cannot be expressed in CuTe", 0, o.axis);
    out.offset += o.k;
  }
  if (out.offset != 0 && !out.swizzle)
    return make_error(
        "an offset O[...] without a swizzle has no CuTe layout spelling (CuTe keeps it in the "
        "tensor's pointer)",
        0, "O");
  std::vector<Mode> modes;
  for (const Mode& m : layout.shard) {
    if (m.stride.axis != kMemoryAxis && basis_of_axis(m.stride.axis) < 0)
      return make_error(
          "axis " + m.stride.axis +
              " has no CuTe spelling: CuTe strides are integers (@m) or scaled bases k@i, written "
              "here on axes c0, c1, ...",
          0, m.stride.axis);
    if (m.extent != 1) modes.push_back(m);
  }
  int64_t total = 1;
  for (const Mode& m : modes) {
    if (mul_overflows(total, m.extent, &total)) return make_error("the layout's size overflows 64 bits");
  }
  std::vector<int64_t> shape = logical_shape;
  if (shape.empty()) shape = {total};
  int64_t logical = 1;
  for (int64_t e : shape) {
    if (e < 1) return make_error("a logical extent must be at least 1", 0, "shape");
    if (mul_overflows(logical, e, &logical))
      return make_error("the logical shape overflows 64 bits", 0, "shape");
  }
  if (logical != total)
    return make_error("the logical shape " + shape_text(shape) + " has " + std::to_string(logical) +
                          " elements, the layout " + std::to_string(total),
                      0, "shape");
  // Deal the modes (row-major, most significant first) to the logical dimensions.
  std::vector<std::vector<Mode>> dims(shape.size());
  size_t next = 0;
  std::optional<Mode> carry;  // the low part of a mode split at a dimension boundary
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t need = shape[d];
    while (need > 1) {
      Mode m;
      if (carry) {
        m = *carry;
        carry.reset();
      } else {
        m = modes[next++];
      }
      if (need % m.extent == 0) {
        dims[d].push_back(m);
        need /= m.extent;
      } else if (m.extent % need == 0) {
        const int64_t low = m.extent / need;
        int64_t high_stride = 0;
        if (mul_overflows(m.stride.k, low, &high_stride)) return make_error("a stride overflows 64 bits");
        dims[d].push_back(Mode{need, AxisStride{high_stride, m.stride.axis}});
        carry = Mode{low, m.stride};
        need = 1;
      } else {
        return make_error("a mode of extent " + std::to_string(m.extent) + " straddles logical dimensions " +
                              std::to_string(d) + " and " + std::to_string(d + 1) + " of " +
                              shape_text(shape) + " without dividing them: CuTe has no mode for it",
                          0, "shape");
      }
    }
  }
  std::vector<IntTuple> shape_modes, stride_modes;
  for (const auto& dim : dims) {
    if (dim.empty()) {
      shape_modes.push_back(IntTuple::leaf(1));
      stride_modes.push_back(IntTuple::leaf(0));
      continue;
    }
    std::vector<IntTuple> s, t;
    for (size_t i = dim.size(); i-- > 0;) {
      s.push_back(IntTuple::leaf(dim[i].extent));
      t.push_back(stride_leaf(dim[i].stride));
    }
    if (s.size() == 1) {
      shape_modes.push_back(s[0]);
      stride_modes.push_back(t[0]);
    } else {
      shape_modes.push_back(IntTuple::of(std::move(s)));
      stride_modes.push_back(IntTuple::of(std::move(t)));
    }
  }
  if (shape_modes.size() == 1) {
    out.layout = Layout{shape_modes[0], stride_modes[0]};
  } else {
    out.layout = Layout{IntTuple::of(std::move(shape_modes)), IntTuple::of(std::move(stride_modes))};
  }
  if (auto beyond = beyond_64_bits(out.layout)) return make_error(*beyond, 0, "stride");
  return out;
}

}  // namespace layoutscope::cute
