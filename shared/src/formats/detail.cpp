#include "detail.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "layoutscope/mapping.hpp"
#include "layoutscope/parse.hpp"

namespace layoutscope::formats_detail {

namespace {

bool ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool ident_char(char c) { return ident_start(c) || (c >= '0' && c <= '9') || c == '.'; }
bool digit(char c) { return c >= '0' && c <= '9'; }

bool mul(int64_t a, int64_t b, int64_t* out) { return !__builtin_mul_overflow(a, b, out); }

}  // namespace

Result<std::vector<Tok>> tokenize(std::string_view text) {
  if (text.size() > kMaxFormatText) {
    return make_error("the text is longer than " + std::to_string(kMaxFormatText) + " bytes", 1);
  }
  std::vector<Tok> out;
  size_t i = 0;
  int column = 1;
  auto advance = [&](size_t n) {
    for (size_t k = 0; k < n && i < text.size(); ++k, ++i) {
      if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++column;
    }
  };
  constexpr std::string_view kPunct = "()[]{}<>,=:;#@!?*-+/%|^";
  while (i < text.size()) {
    const char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      advance(1);
      continue;
    }
    Tok t;
    t.column = column;
    if (ident_start(c)) {
      size_t j = i;
      while (j < text.size() && ident_char(text[j])) ++j;
      t.kind = TokKind::kIdent;
      t.text = std::string(text.substr(i, j - i));
      advance(j - i);
    } else if (digit(c)) {
      size_t j = i;
      int64_t v = 0;
      while (j < text.size() && digit(text[j])) {
        if (!mul(v, 10, &v) || __builtin_add_overflow(v, text[j] - '0', &v) || v > (int64_t{1} << 62)) {
          return make_error("number too large", column);
        }
        ++j;
      }
      t.kind = TokKind::kInt;
      t.value = v;
      if (j < text.size() && text[j] == '.' && !(j + 1 < text.size() && text[j + 1] == '.')) {
        // a float (a printed tensor's values): read as a word no layout field accepts
        ++j;
        while (j < text.size() && (digit(text[j]) || text[j] == 'e' || text[j] == 'E')) ++j;
        t.kind = TokKind::kIdent;
      }
      t.text = std::string(text.substr(i, j - i));
      advance(j - i);
    } else if (c == '\'' || c == '"') {
      size_t j = i + 1;
      while (j < text.size() && text[j] != c && text[j] != '\n') ++j;
      if (j >= text.size() || text[j] != c) return make_error("unterminated string", column);
      t.kind = TokKind::kString;
      t.text = std::string(text.substr(i + 1, j - i - 1));
      advance(j + 1 - i);
    } else if (kPunct.find(c) != std::string_view::npos) {
      t.kind = TokKind::kPunct;
      t.text = std::string(1, c);
      advance(1);
    } else {
      const bool ascii = static_cast<unsigned char>(c) < 0x80 && static_cast<unsigned char>(c) >= 0x20;
      return make_error(ascii ? std::string("unexpected character '") + c + "'" : "unexpected character",
                        column);
    }
    out.push_back(std::move(t));
  }
  Tok end;
  end.column = column;
  out.push_back(end);
  return out;
}

std::string describe(const Tok& tok) {
  switch (tok.kind) {
    case TokKind::kEnd:
      return "the end of the text";
    case TokKind::kString:
      return "'" + tok.text + "' (a string)";
    default:
      return "'" + tok.text + "'";
  }
}

Error error_at(const Tok& tok, std::string message, std::string field) {
  return make_error(std::move(message), tok.column, std::move(field));
}

Result<Tok> Cursor::expect(char c, std::string_view what) {
  if (!is(c)) {
    return error_at(
        peek(), "expected '" + std::string(1, c) + "' " + std::string(what) + ", found " + describe(peek()));
  }
  return next();
}

Result<int64_t> Cursor::integer(std::string_view what) {
  if (peek().kind != TokKind::kInt) {
    return error_at(peek(), "expected " + std::string(what) + " (an integer), found " + describe(peek()));
  }
  return next().value;
}

Result<std::string> Cursor::name(std::string_view what) {
  if (peek().kind != TokKind::kIdent && peek().kind != TokKind::kString) {
    return error_at(peek(), "expected " + std::string(what) + ", found " + describe(peek()));
  }
  return next().text;
}

Result<bool> check_axis_name(const std::string& name, int column) {
  if (name.empty() || !ident_start(name[0]) ||
      !std::all_of(name.begin(), name.end(), [](char c) { return ident_start(c) || digit(c); })) {
    return make_error("mesh axis '" + name + "' is not an identifier (letters, digits, '_')", column, name);
  }
  if (name == kMemoryAxis) {
    return make_error("mesh axis 'm' would be read as the memory axis @m; rename it", column, name);
  }
  return true;
}

std::optional<std::vector<int64_t>> find_tensor_shape(std::string_view text) {
  for (std::string_view key : {"tensor<", "memdesc<"}) {
    const size_t at = text.find(key);
    if (at == std::string_view::npos) continue;
    size_t i = at + key.size();
    std::vector<int64_t> dims;
    while (i < text.size() && digit(text[i])) {
      int64_t v = 0;
      while (i < text.size() && digit(text[i])) {
        if (!mul(v, 10, &v) || __builtin_add_overflow(v, text[i] - '0', &v) || v > (int64_t{1} << 40)) {
          return std::nullopt;
        }
        ++i;
      }
      if (i >= text.size() || text[i] != 'x') return std::nullopt;
      ++i;
      dims.push_back(v);
    }
    if (!dims.empty()) return dims;
  }
  return std::nullopt;
}

Result<std::vector<int64_t>> pick_shape(const std::vector<int64_t>& text_shape, int column,
                                        const FormatContext& context, std::string_view format) {
  if (!text_shape.empty() && !context.shape.empty() && text_shape != context.shape) {
    return make_error("the shape in the text differs from the shape given", column, "shape");
  }
  const std::vector<int64_t>& shape = text_shape.empty() ? context.shape : text_shape;
  if (shape.empty()) {
    return make_error(std::string(format) + " does not carry the tensor's shape: give it (--shape 8,4)", 0,
                      "shape");
  }
  for (int64_t e : shape) {
    if (e < 1) return make_error("a shape extent must be at least 1", column, "shape");
  }
  return shape;
}

bool is_pow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }
int log2_exact(int64_t v) {
  int k = 0;
  while ((int64_t{1} << k) < v) ++k;
  return k;
}

Result<Layout> shard_layout(const std::vector<std::vector<Segment>>& dims, std::vector<Mode> replicas,
                            std::vector<Mode> partials) {
  const size_t rank = dims.size();
  std::vector<int64_t> local(rank, 1);
  for (size_t d = 0; d < rank; ++d) {
    for (const Segment& s : dims[d]) {
      if (s.axis.empty() && !mul(local[d], s.extent, &local[d])) {
        return make_error("dimension " + std::to_string(d) + " is too large", 0, "shape");
      }
    }
  }
  Layout out;
  int64_t inner = 1;  // row-major stride of dimension d in the local tensor
  std::vector<std::vector<Mode>> per_dim(rank);
  for (size_t d = rank; d-- > 0;) {
    int64_t k = inner;
    for (size_t i = dims[d].size(); i-- > 0;) {
      const Segment& s = dims[d][i];
      if (s.axis.empty()) {
        if (s.extent > 1) per_dim[d].push_back(Mode{s.extent, AxisStride{k, std::string(kMemoryAxis)}});
        if (!mul(k, s.extent, &k)) return make_error("the local tensor is too large", 0, "shape");
      } else if (s.extent > 1) {
        per_dim[d].push_back(Mode{s.extent, AxisStride{s.stride, s.axis}});
      }
    }
    std::reverse(per_dim[d].begin(), per_dim[d].end());
    if (!mul(inner, local[d], &inner)) return make_error("the local tensor is too large", 0, "shape");
  }
  for (auto& modes : per_dim) out.shard.insert(out.shard.end(), modes.begin(), modes.end());
  if (out.shard.empty()) out.shard.push_back(Mode{1, AxisStride{1, std::string(kMemoryAxis)}});
  std::erase_if(replicas, [](const Mode& m) { return m.extent <= 1; });
  // A partial term of one holder (Partial() over a size-1 mesh dimension) stays: the value is still partial,
  // as canonicalize keeps it, so a P[1:...] term exported and imported back keeps its term.
  if (!replicas.empty()) out.replicas.push_back(std::move(replicas));
  for (Mode& p : partials) out.partials.push_back({std::move(p)});
  return out;
}

Result<std::vector<std::vector<Mode>>> modes_per_dim(const std::vector<Mode>& shard,
                                                     const std::vector<int64_t>& shape) {
  std::vector<std::vector<Mode>> out(shape.size());
  if (shape.empty()) return make_error("the logical shape is empty", 0, "shape");
  size_t d = shape.size() - 1;
  int64_t rem = shape[d];
  for (size_t i = shard.size(); i-- > 0;) {
    int64_t e = shard[i].extent;
    AxisStride st = shard[i].stride;
    while (e > 1) {
      while (rem == 1 && d > 0) rem = shape[--d];
      if (rem == 1)
        return make_error("the layout has more elements than the shape", 0, "mode " + std::to_string(i));
      if (e <= rem) {
        if (rem % e != 0) {
          return make_error("mode " + std::to_string(i) + " (extent " + std::to_string(e) +
                                ") does not divide dimension " + std::to_string(d) + " of the shape",
                            0, "mode " + std::to_string(i));
        }
        out[d].push_back(Mode{e, st});
        rem /= e;
        e = 1;
      } else {
        if (e % rem != 0) {
          return make_error("mode " + std::to_string(i) + " (extent " + std::to_string(e) +
                                ") straddles dimensions " + std::to_string(d - 1) + " and " +
                                std::to_string(d) + " of the shape",
                            0, "mode " + std::to_string(i));
        }
        out[d].push_back(Mode{rem, st});
        if (!mul(st.k, rem, &st.k)) return make_error("stride overflow", 0, "mode " + std::to_string(i));
        e /= rem;
        rem = 1;
      }
    }
  }
  while (rem == 1 && d > 0) rem = shape[--d];
  if (rem != 1) return make_error("the layout has fewer elements than the shape", 0, "shape");
  for (auto& modes : out) {
    std::reverse(modes.begin(), modes.end());
    std::vector<Mode> fused;
    for (const Mode& m : modes) {
      if (!fused.empty() && fused.back().stride.axis == m.stride.axis &&
          fused.back().stride.k == m.extent * m.stride.k) {
        fused.back().extent *= m.extent;
        fused.back().stride.k = m.stride.k;
      } else {
        fused.push_back(m);
      }
    }
    modes = std::move(fused);
  }
  return out;
}

std::string modes_notation(const std::vector<Mode>& modes) {
  if (modes.empty()) return "1:1";
  if (modes.size() == 1) return std::to_string(modes[0].extent) + ":" + to_string(modes[0].stride);
  std::string extents = "(", strides = "(";
  for (size_t i = 0; i < modes.size(); ++i) {
    if (i) {
      extents += ',';
      strides += ',';
    }
    extents += std::to_string(modes[i].extent);
    strides += to_string(modes[i].stride);
  }
  return extents + "):" + strides + ")";
}

Result<bool> check_local_row_major(const std::vector<std::vector<Mode>>& dims, std::string_view format) {
  const size_t rank = dims.size();
  std::vector<std::vector<Mode>> found(rank), want(rank);
  std::vector<int64_t> local(rank, 1);
  for (size_t d = 0; d < rank; ++d) {
    for (const Mode& m : dims[d]) {
      if (m.stride.axis != kMemoryAxis) continue;
      found[d].push_back(m);
      if (!mul(local[d], m.extent, &local[d])) return make_error("the local tensor is too large", 0, "shape");
    }
  }
  int64_t inner = 1;  // row-major over the local extents: dimension d's stride is the product after it
  for (size_t d = rank; d-- > 0;) {
    if (local[d] > 1) want[d].push_back(Mode{local[d], AxisStride{inner, std::string(kMemoryAxis)}});
    if (!mul(inner, local[d], &inner)) return make_error("the local tensor is too large", 0, "shape");
  }
  if (found == want) return true;
  std::vector<Mode> all_found, all_want;
  for (size_t d = 0; d < rank; ++d) {
    all_found.insert(all_found.end(), found[d].begin(), found[d].end());
    all_want.insert(all_want.end(), want[d].begin(), want[d].end());
  }
  size_t d = 0;
  while (found[d] == want[d]) ++d;
  return make_error(
      "a " + std::string(format) +
          " sharding says how the tensor is cut over the mesh, and each device's local tensor is "
          "row-major and contiguous: the layout's local layout " +
          modes_notation(all_found) + " is not the row-major contiguous " + modes_notation(all_want) +
          " (dimension " + std::to_string(d) + ")",
      0, "local");
}

namespace {

// A stride-0 mode adds 0 on whatever axis it names: all of them on one axis, so that they compare (and fuse)
// alike.
Mode zero_on_one_axis(Mode m) {
  if (m.stride.k == 0) m.stride.axis = kMemoryAxis;
  return m;
}

// Modes with extent > 1, stride-0 ones on one axis, neighbours fused where contiguous (modes_per_dim's rule).
std::vector<Mode> fused(const std::vector<Mode>& modes) {
  std::vector<Mode> out;
  for (const Mode& raw : modes) {
    if (raw.extent <= 1) continue;
    const Mode m = zero_on_one_axis(raw);
    int64_t span = 0, extent = 0;
    if (!out.empty() && out.back().stride.axis == m.stride.axis && mul(m.extent, m.stride.k, &span) &&
        out.back().stride.k == span && mul(out.back().extent, m.extent, &extent)) {
      out.back() = Mode{extent, m.stride};
    } else {
      out.push_back(m);
    }
  }
  return out;
}

bool mode_less(const Mode& a, const Mode& b) {
  return std::tie(a.stride.axis, a.stride.k, a.extent) < std::tie(b.stride.axis, b.stride.k, b.extent);
}

// The replicas as a set of offsets: every R mode of more than one copy, stride-0 ones dropped (their copies
// land on one spot, which the mapping counts once), sorted.
std::vector<Mode> replica_modes(const Layout& l) {
  std::vector<Mode> out;
  for (const auto& group : l.replicas)
    for (const Mode& m : group)
      if (m.extent > 1 && m.stride.k != 0) out.push_back(m);
  std::sort(out.begin(), out.end(), mode_less);
  return out;
}

// The partial terms, each its fused modes sorted (a term of one holder is an empty list, which still counts),
// the terms sorted.
std::vector<std::vector<Mode>> partial_terms(const Layout& l) {
  std::vector<std::vector<Mode>> out;
  for (const auto& group : l.partials) {
    out.push_back(fused(group));
    std::sort(out.back().begin(), out.back().end(), mode_less);
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), mode_less);
  });
  return out;
}

std::vector<AxisStride> nonzero_offsets(const Layout& l) {
  std::vector<AxisStride> out;
  for (const AxisStride& o : l.offset)
    if (o.k != 0) out.push_back(o);
  std::sort(out.begin(), out.end(), [](const AxisStride& a, const AxisStride& b) {
    return std::tie(a.axis, a.k) < std::tie(b.axis, b.k);
  });
  return out;
}

}  // namespace

bool same_sharding(const Layout& a, const Layout& b, const std::vector<int64_t>& shape) {
  auto da = modes_per_dim(a.shard, shape);
  auto db = modes_per_dim(b.shard, shape);
  if (!da || !db) return false;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (fused((*da)[d]) != fused((*db)[d])) return false;
  }
  return replica_modes(a) == replica_modes(b) && partial_terms(a) == partial_terms(b) &&
         nonzero_offsets(a) == nonzero_offsets(b) && a.swizzle == b.swizzle;
}

Result<std::vector<std::pair<std::string, int64_t>>> export_mesh(const Layout& layout,
                                                                 const FormatContext& context,
                                                                 std::string_view format) {
  std::vector<std::string> axes;
  for (const std::string& a : layout_axes(layout))
    if (a != kMemoryAxis) axes.push_back(a);
  for (const auto& group : layout.partials)
    for (const Mode& m : group)
      if (std::find(axes.begin(), axes.end(), m.stride.axis) == axes.end()) axes.push_back(m.stride.axis);
  if (!context.mesh.empty()) {
    for (const std::string& a : axes) {
      const bool found = std::any_of(context.mesh.begin(), context.mesh.end(),
                                     [&](const auto& entry) { return entry.first == a; });
      if (!found) {
        return make_error(
            "axis @" + a + " of the layout is not an axis of the mesh given for " + std::string(format), 0,
            a);
      }
    }
    return context.mesh;
  }
  std::vector<std::pair<std::string, int64_t>> mesh;
  for (const std::string& a : axes) {
    int64_t span = 1;
    auto add = [&](const Mode& m) {
      if (m.stride.axis != a) return;
      const int64_t k = m.stride.k < 0 ? -m.stride.k : m.stride.k;
      int64_t reach = 0;
      if (__builtin_mul_overflow(m.extent - 1, k, &reach) || __builtin_add_overflow(span, reach, &span)) {
        span = INT64_MAX;
      }
    };
    for (const Mode& m : layout.shard) add(m);
    for (const auto& g : layout.replicas)
      for (const Mode& m : g) add(m);
    for (const auto& g : layout.partials)
      for (const Mode& m : g) add(m);
    if (span == INT64_MAX) return make_error("axis @" + a + " spans more than 2^63 devices", 0, a);
    mesh.emplace_back(a, span);
  }
  return mesh;
}

Result<bool> check_plain_sharding(const Layout& layout, std::string_view format) {
  if (layout.swizzle) {
    return make_error(std::string(format) + " cannot express a swizzle (" + to_string(*layout.swizzle) +
                          "): a sharding places whole elements on devices",
                      0, "swizzle");
  }
  for (const AxisStride& o : layout.offset) {
    if (o.k != 0) {
      return make_error(
          std::string(format) + " cannot express the offset O[" + std::to_string(o.k) + "@" + o.axis + "]", 0,
          "offset");
    }
  }
  return true;
}

}  // namespace layoutscope::formats_detail
