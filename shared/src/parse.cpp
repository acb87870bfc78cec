#include "layoutscope/parse.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>

#include "layoutscope/checked.hpp"

namespace layoutscope {
namespace {

constexpr size_t kMaxTextBytes = 1 << 16;

enum class Tok { kEnd, kIdent, kInt, kSym };

struct Token {
  Tok kind = Tok::kEnd;
  std::string text;  // identifier, digits, or the symbol ("[", "::", "∘", ...)
  int column = 1;    // 1-based, in code points
};

bool is_ident_start(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_ident_char(unsigned char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }

// Splits the text into tokens. Columns count code points so that a caret under the text lines up with
// the offending character, also after a "∘".
Result<std::vector<Token>> lex(std::string_view s) {
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
    if (is_ident_start(c)) {
      size_t j = i;
      while (j < s.size() && is_ident_char(static_cast<unsigned char>(s[j]))) ++j;
      t.kind = Tok::kIdent;
      t.text = std::string(s.substr(i, j - i));
    } else if (c >= '0' && c <= '9') {
      size_t j = i;
      while (j < s.size() && s[j] >= '0' && s[j] <= '9') ++j;
      t.kind = Tok::kInt;
      t.text = std::string(s.substr(i, j - i));
    } else if (s.substr(i, 3) == "\xE2\x88\x98") {  // U+2218 RING OPERATOR
      t.kind = Tok::kSym;
      t.text = "o";
      i += 3;
      ++column;
      out.push_back(t);
      continue;
    } else if (s.substr(i, 2) == "::") {
      t.kind = Tok::kSym;
      t.text = "::";
    } else if (std::string_view("[]():,@+-<>=.").find(static_cast<char>(c)) != std::string_view::npos) {
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
      return make_error("unexpected character " + shown, column, "", "syntax");
    }
    i += t.text.size();
    column += static_cast<int>(t.text.size());
    out.push_back(std::move(t));
  }
  Token end;
  end.column = column;
  out.push_back(end);
  return out;
}

std::string describe(const Token& t) {
  switch (t.kind) {
    case Tok::kEnd:
      return "end of input";
    case Tok::kIdent:
      return "'" + t.text + "'";
    case Tok::kInt:
      return "number " + t.text;
    case Tok::kSym:
      return t.text == "o" ? "'∘'" : "'" + t.text + "'";
  }
  return "?";
}

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : toks_(std::move(tokens)) {}

  Result<Layout> layout() {
    skip_prefix();
    std::optional<Layout> out;
    if (peek_ident("Swizzle")) {
      out = cute_swizzle();
    } else if (peek_ident("ComposeLayout")) {
      out = compose_layout();
    } else {
      out = tile();
    }
    if (!out) return *err_;
    if (peek().kind != Tok::kEnd) {
      fail("expected '+' or the end of the layout");
      return *err_;
    }
    return *out;
  }

 private:
  const Token& peek(size_t ahead = 0) const { return toks_[std::min(pos_ + ahead, toks_.size() - 1)]; }
  Token next() {
    Token t = peek();
    if (pos_ < toks_.size() - 1) ++pos_;
    return t;
  }
  bool peek_sym(std::string_view s, size_t ahead = 0) const {
    return peek(ahead).kind == Tok::kSym && peek(ahead).text == s;
  }
  bool peek_ident(std::string_view s, size_t ahead = 0) const {
    return peek(ahead).kind == Tok::kIdent && peek(ahead).text == s;
  }
  bool accept(std::string_view sym) {
    if (!peek_sym(sym)) return false;
    next();
    return true;
  }
  std::nullopt_t fail(const std::string& expected) {
    if (!err_) err_ = make_error(expected + ", found " + describe(peek()), peek().column, "", "syntax");
    return std::nullopt;
  }
  // The first error wins: later ones are consequences of it.
  std::nullopt_t fail_at(std::string message, int column, std::string code, std::string field = {}) {
    if (!err_) err_ = make_error(std::move(message), column, std::move(field), std::move(code));
    return std::nullopt;
  }
  bool expect(std::string_view sym, std::string_view what) {
    if (accept(sym)) return true;
    fail("expected '" + std::string(sym) + "' " + std::string(what));
    return false;
  }
  // "T.", "Tx.", "tirx.", "cute::" before a name: module prefixes carry no meaning here.
  void skip_prefix() {
    while (peek().kind == Tok::kIdent && (peek_sym(".", 1) || peek_sym("::", 1)) &&
           peek(2).kind == Tok::kIdent) {
      next();
      next();
    }
  }

  std::optional<int64_t> integer(bool allow_sign) {
    bool negative = false;
    if (allow_sign && accept("-")) negative = true;
    if (peek().kind != Tok::kInt) return fail("expected a number");
    const Token t = next();
    int64_t v = 0;
    for (char d : t.text) {
      if (mul_overflows(v, 10, &v) || add_overflows(v, d - '0', &v)) {
        return fail_at("number " + t.text + " does not fit in 64 bits", t.column, "overflow");
      }
    }
    return negative ? -v : v;
  }

  // int | int@axis | axis      (the unit on the axis, or on @m for a bare number)
  std::optional<AxisStride> axis_value() {
    if (peek().kind == Tok::kIdent) return AxisStride{1, next().text};
    auto k = integer(true);
    if (!k) return std::nullopt;
    if (accept("@")) {
      if (peek().kind != Tok::kIdent) return fail("expected an axis name after '@'");
      return AxisStride{*k, next().text};
    }
    return AxisStride{*k, std::string(kMemoryAxis)};
  }

  std::optional<std::vector<int64_t>> extents() {
    std::vector<int64_t> out;
    auto one = [&]() -> bool {
      const int column = peek().column;
      auto e = integer(false);
      if (!e) return false;
      if (*e < 1) {
        fail_at("an extent must be at least 1", column, "range");
        return false;
      }
      out.push_back(*e);
      return true;
    };
    if (accept("(")) {
      if (!one()) return std::nullopt;
      while (accept(",")) {
        if (peek_sym(")")) break;
        if (!one()) return std::nullopt;
      }
      if (!expect(")", "to close the extents")) return std::nullopt;
      return out;
    }
    if (!one()) return std::nullopt;
    while (peek_sym(",")) {  // S[8, 4, 2]: TIRx's extents-only form
      next();
      if (!one()) return std::nullopt;
    }
    return out;
  }

  // S[...], R[...] or P[...] after the letter: extents, then ':' and strides, or row-major strides on @m.
  std::optional<std::vector<Mode>> spec() {
    if (!expect("[", "after S, R or P")) return std::nullopt;
    const int open_column = peek().column;
    auto ext = extents();
    if (!ext) return std::nullopt;
    std::vector<AxisStride> strides;
    if (accept(":")) {
      const int strides_column = peek().column;
      if (accept("(")) {
        do {
          if (peek_sym(")")) break;
          auto s = axis_value();
          if (!s) return std::nullopt;
          strides.push_back(*s);
        } while (accept(","));
        if (!expect(")", "to close the strides")) return std::nullopt;
      } else {
        auto s = axis_value();
        if (!s) return std::nullopt;
        strides.push_back(*s);
      }
      if (strides.size() != ext->size()) {
        return fail_at(std::to_string(ext->size()) + " extents but " + std::to_string(strides.size()) +
                           " strides: each extent needs one stride",
                       strides_column, "syntax");
      }
    } else {
      int64_t stride = 1;
      strides.resize(ext->size());
      for (size_t i = ext->size(); i-- > 0;) {
        strides[i] = AxisStride{stride, std::string(kMemoryAxis)};
        if (mul_overflows(stride, (*ext)[i], &stride) && i > 0) {
          return fail_at("row-major strides overflow 64 bits", open_column, "overflow");
        }
      }
    }
    if (!expect("]", "to close the layout term")) return std::nullopt;
    std::vector<Mode> modes;
    for (size_t i = 0; i < ext->size(); ++i) modes.push_back(Mode{(*ext)[i], strides[i]});
    return modes;
  }

  static void add_offset(Layout& layout, const AxisStride& term) {
    for (AxisStride& have : layout.offset) {
      if (have.axis == term.axis) {
        have.k += term.k;  // the caller checked the sum for overflow
        return;
      }
    }
    layout.offset.push_back(term);
  }

  bool offset_term(Layout& layout) {
    const int column = peek().column;
    auto term = axis_value();
    if (!term) return false;
    for (const AxisStride& have : layout.offset) {
      int64_t sum;
      if (have.axis == term->axis && add_overflows(have.k, term->k, &sum)) {
        fail_at("offset on axis " + term->axis + " overflows 64 bits", column, "overflow");
        return false;
      }
    }
    add_offset(layout, *term);
    return true;
  }

  // S[...] + R[...] + ... + O[...] + 5@warpid
  std::optional<Layout> sum() {
    Layout out;
    bool have_shard = false;
    do {
      skip_prefix();
      const int column = peek().column;
      if (peek_ident("S") && peek_sym("[", 1)) {
        next();
        if (have_shard) return fail_at("a layout has one S[...]; use R[...] for copies", column, "syntax");
        auto modes = spec();
        if (!modes) return std::nullopt;
        out.shard = std::move(modes).value();
        have_shard = true;
      } else if (peek_ident("R") && peek_sym("[", 1)) {
        next();
        auto modes = spec();
        if (!modes) return std::nullopt;
        out.replicas.push_back(std::move(modes).value());
      } else if (peek_ident("P") && peek_sym("[", 1)) {
        next();
        auto modes = spec();
        if (!modes) return std::nullopt;
        out.partials.push_back(std::move(modes).value());
      } else if (peek_ident("O") && peek_sym("[", 1)) {
        next();
        next();
        do {
          if (!offset_term(out)) return std::nullopt;
        } while (accept("+") || accept(","));
        if (!expect("]", "to close O[...]")) return std::nullopt;
      } else if (peek().kind == Tok::kInt || peek_sym("-") || peek().kind == Tok::kIdent) {
        if (peek().kind == Tok::kIdent && (peek_sym("[", 1) || peek_sym("(", 1))) {
          return fail("expected S[...], R[...], P[...], O[...] or an offset such as 5@warpid");
        }
        if (!offset_term(out)) return std::nullopt;
      } else {
        return fail("expected S[...], R[...], P[...], O[...] or an offset such as 5@warpid");
      }
    } while (accept("+"));
    if (!have_shard) return fail_at("a layout needs an S[...] term", 1, "syntax");
    return out;
  }

  // TileLayout(sum) | sum
  std::optional<Layout> tile() {
    skip_prefix();
    if (peek_ident("TileLayout") && peek_sym("(", 1)) {
      next();
      next();
      auto inner = sum();
      if (!inner) return std::nullopt;
      if (!expect(")", "to close TileLayout(")) return std::nullopt;
      return inner;
    }
    return sum();
  }

  std::optional<int> small_int(std::string_view what) {
    const int column = peek().column;
    auto v = integer(false);
    if (!v) return std::nullopt;
    if (*v > 30) return fail_at(std::string(what) + " must be at most 30", column, "range");
    return static_cast<int>(*v);
  }

  // Swizzle<B, M, S> o layout; a negative S is CuTe's other direction (the low field into the high one).
  std::optional<Layout> cute_swizzle() {
    const int column = peek().column;
    next();
    Swizzle s;
    s.spelling = SwizzleSpelling::kCute;
    if (!expect("<", "after Swizzle")) return std::nullopt;
    auto b = small_int("B");
    if (!b || !expect(",", "after B")) return std::nullopt;
    auto m = small_int("M");
    if (!m || !expect(",", "after M")) return std::nullopt;
    const bool negative = accept("-");
    auto sh = small_int("S");
    if (!sh || !expect(">", "to close Swizzle<B,M,S>")) return std::nullopt;
    if (!(peek().kind == Tok::kIdent && peek().text == "o") && !peek_sym("o")) {
      return fail("expected 'o' or '∘' (composition) after Swizzle<B,M,S>");
    }
    next();
    s.bits = *b;
    s.base = *m;
    s.shift = *sh;
    s.inner = !negative;
    if (auto e = check_swizzle(s)) return fail_at(e->message, column, e->code, e->field);
    auto out = tile();
    if (!out) return std::nullopt;
    out->swizzle = s;
    return out;
  }

  std::optional<bool> boolean() {
    if (peek().kind == Tok::kIdent) {
      const std::string& t = peek().text;
      if (t == "True" || t == "true") return next(), true;
      if (t == "False" || t == "false") return next(), false;
    }
    if (peek().kind == Tok::kInt && (peek().text == "0" || peek().text == "1")) return next().text == "1";
    return fail("expected True or False");
  }

  // The swizzle arguments of ComposeLayout / SwizzleLayout, each given once, positionally or by keyword.
  struct SwizzleArgs {
    static constexpr std::string_view kNames[] = {"per_element", "swizzle_len", "atom_len", "swizzle_inner"};
    Swizzle s{0, 0, 0, true, SwizzleSpelling::kTirx};
    bool seen[4] = {false, false, false, false};
    int positional = 0;
    int* field(int i) { return i == 0 ? &s.base : i == 1 ? &s.bits : &s.shift; }
  };

  // SwizzleLayout(P, B, S[, swizzle_inner=...]) after the name.
  bool swizzle_layout_args(SwizzleArgs& a) {
    if (!expect("(", "after SwizzleLayout")) return false;
    do {
      if (peek_sym(")")) break;
      if (!swizzle_arg(a)) return false;
    } while (accept(","));
    return expect(")", "to close SwizzleLayout(");
  }

  // One argument of the swizzle: positional per_element, swizzle_len, atom_len, or a keyword.
  bool swizzle_arg(SwizzleArgs& a) {
    const Token at = peek();
    int which = -1;
    if (at.kind == Tok::kIdent && peek_sym("=", 1)) {
      for (int i = 0; i < 4; ++i) {
        if (at.text == SwizzleArgs::kNames[i]) which = i;
      }
      if (which < 0) {
        fail_at("unknown argument '" + at.text + "' (per_element, swizzle_len, atom_len, swizzle_inner)",
                at.column, "syntax", at.text);
        return false;
      }
      next();
      next();
    } else {
      if (a.positional >= 3) {
        fail("expected a keyword argument (the swizzle takes 3 numbers)");
        return false;
      }
      which = a.positional++;
    }
    const std::string name(SwizzleArgs::kNames[which]);
    if (a.seen[which]) {
      fail_at("argument '" + name + "' is given twice", at.column, "syntax", name);
      return false;
    }
    a.seen[which] = true;
    if (which == 3) {
      auto v = boolean();
      if (!v) return false;
      a.s.inner = *v;
      return true;
    }
    auto v = small_int(name);
    if (!v) return false;
    *a.field(which) = *v;
    return true;
  }

  // ComposeLayout(P, B, S, tile[, swizzle_inner=...]) | ComposeLayout(SwizzleLayout(...), tile) | keywords
  std::optional<Layout> compose_layout() {
    const int compose_column = peek().column;
    next();
    if (!expect("(", "after ComposeLayout")) return std::nullopt;
    SwizzleArgs args;
    bool have_swizzle_layout = false;
    std::optional<Layout> inner;
    const int open_column = peek().column;
    do {
      if (peek_sym(")")) break;
      skip_prefix();
      const bool keyword = peek().kind == Tok::kIdent && peek_sym("=", 1);
      const std::string key = keyword ? peek().text : "";
      const int key_column = peek().column;
      if (key == "layout_A") {
        next();
        next();
        skip_prefix();
        if (!peek_ident("SwizzleLayout")) return fail("expected SwizzleLayout(...) for layout_A");
      }
      if (key == "tile_layout" || key == "layout_B" ||
          (!keyword && peek().kind != Tok::kInt && !peek_ident("SwizzleLayout"))) {
        if (keyword) {
          next();
          next();
        }
        if (inner) return fail_at("ComposeLayout takes one tile layout", key_column, "syntax", key);
        inner = tile();
        if (!inner) return std::nullopt;
      } else if (peek_ident("SwizzleLayout")) {
        if (have_swizzle_layout || args.seen[0] || args.seen[1] || args.seen[2]) {
          return fail_at(
              "ComposeLayout takes one swizzle: SwizzleLayout(...) or per_element, swizzle_len, "
              "atom_len",
              peek().column, "syntax");
        }
        next();
        if (!swizzle_layout_args(args)) return std::nullopt;
        have_swizzle_layout = true;
        args.positional = 3;
      } else if (!swizzle_arg(args)) {
        return std::nullopt;
      }
    } while (accept(","));
    const int close_column = peek().column;
    if (!expect(")", "to close ComposeLayout(")) return std::nullopt;
    if (!inner)
      return fail_at("ComposeLayout needs a tile layout (TileLayout(S[...]))", open_column, "syntax");
    for (int i = 0; i < 3; ++i) {
      if (!args.seen[i]) {
        return fail_at("ComposeLayout needs per_element, swizzle_len and atom_len; '" +
                           std::string(SwizzleArgs::kNames[i]) + "' is missing",
                       close_column, "syntax", std::string(SwizzleArgs::kNames[i]));
      }
    }
    if (auto e = check_swizzle(args.s)) return fail_at(e->message, compose_column, e->code, e->field);
    inner->swizzle = args.s;
    return inner;
  }

  std::vector<Token> toks_;
  size_t pos_ = 0;
  std::optional<Error> err_;
};

void append_modes(std::string& out, const std::vector<Mode>& modes) {
  if (modes.size() == 1) {
    out += std::to_string(modes[0].extent) + ":" + to_string(modes[0].stride);
    return;
  }
  // Appended piecewise: GCC 12 reports a false -Wrestrict on `"," + std::string` at -O2.
  out += "(";
  for (size_t i = 0; i < modes.size(); ++i) {
    if (i) out += ",";
    out += std::to_string(modes[i].extent);
  }
  out += "):(";
  for (size_t i = 0; i < modes.size(); ++i) {
    if (i) out += ",";
    out += to_string(modes[i].stride);
  }
  out += ")";
}

}  // namespace

Result<Layout> parse_layout(std::string_view text) {
  if (text.size() > kMaxTextBytes) {
    return make_error("layout text is longer than " + std::to_string(kMaxTextBytes) + " bytes", 1, "",
                      "limit");
  }
  auto tokens = lex(text);
  if (!tokens) return tokens.error();
  if (tokens->size() == 1) return make_error("empty layout: expected S[...]", 1, "", "syntax");
  return Parser(std::move(tokens).value()).layout();
}

std::string to_string(const AxisStride& stride) {
  if (stride.axis == kMemoryAxis) return std::to_string(stride.k);
  return std::to_string(stride.k) + "@" + stride.axis;
}

std::string to_string(const Layout& layout) {
  std::string body = "S[";
  append_modes(body, layout.shard);
  body += "]";
  for (const auto& group : layout.replicas) {
    body += " + R[";
    append_modes(body, group);
    body += "]";
  }
  for (const auto& group : layout.partials) {
    body += " + P[";
    append_modes(body, group);
    body += "]";
  }
  if (!layout.offset.empty()) {
    body += " + O[";
    for (size_t i = 0; i < layout.offset.size(); ++i) {
      body += (i ? " + " : "") + to_string(layout.offset[i]);
    }
    body += "]";
  }
  if (!layout.swizzle) return body;
  const Swizzle& s = *layout.swizzle;
  if (s.spelling == SwizzleSpelling::kCute) return to_string(s) + " o " + body;
  return "ComposeLayout(" + std::to_string(s.base) + ", " + std::to_string(s.bits) + ", " +
         std::to_string(s.shift) + ", " + body + (s.inner ? "" : ", swizzle_inner=False") + ")";
}

std::string to_string(const Swizzle& s) {
  return "Swizzle<" + std::to_string(s.bits) + "," + std::to_string(s.base) + "," + (s.inner ? "" : "-") +
         std::to_string(s.shift) + ">";
}

Result<std::vector<int64_t>> parse_shape(std::string_view text) {
  std::vector<int64_t> out;
  size_t i = 0;
  auto skip_space = [&] {
    while (i < text.size() &&
           (text[i] == ' ' || text[i] == '(' || text[i] == ')' || text[i] == '[' || text[i] == ']'))
      ++i;
  };
  skip_space();
  if (i == text.size()) return make_error("empty shape: expected extents such as 8,8", 1, "shape", "syntax");
  while (i < text.size()) {
    const int column = static_cast<int>(i) + 1;
    if (!(text[i] >= '0' && text[i] <= '9')) {
      return make_error(std::string("expected a number in the shape, found '") + text[i] + "'", column,
                        "shape", "syntax");
    }
    int64_t v = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      if (mul_overflows(v, 10, &v) || add_overflows(v, text[i] - '0', &v)) {
        return make_error("shape extent does not fit in 64 bits", column, "shape", "overflow");
      }
      ++i;
    }
    if (v < 1) return make_error("a shape extent must be at least 1", column, "shape", "range");
    out.push_back(v);
    if (out.size() > 64) return make_error("a shape has at most 64 dimensions", column, "shape", "range");
    skip_space();
    if (i == text.size()) break;
    if (text[i] != ',' && text[i] != 'x' && text[i] != 'X') {
      return make_error(std::string("expected ',' or 'x' between extents, found '") + text[i] + "'",
                        static_cast<int>(i) + 1, "shape", "syntax");
    }
    ++i;
    skip_space();
    if (i == text.size())
      return make_error("shape ends after a separator", static_cast<int>(i) + 1, "shape", "syntax");
  }
  return out;
}

}  // namespace layoutscope
