#include "layoutscope/formats/triton.hpp"

#include <algorithm>
#include <map>

#include "detail.hpp"

namespace layoutscope {

using namespace formats_detail;

namespace {

inline constexpr int kMaxLogicalBits = 40;

// A parsed attribute value: an integer, a bool/identifier, or a list.
struct Value {
  enum Kind { kInt, kIdent, kList } kind = kInt;
  int64_t i = 0;
  std::string ident;
  std::vector<Value> list;
  int column = 0;
};

Result<Value> value(Cursor& c, int depth = 0) {
  const Tok at = c.peek();
  if (depth > 8) return error_at(at, "lists nested too deeply");
  Value v;
  v.column = at.column;
  if (c.accept('[') || c.accept('(')) {
    const char close = at.text == "[" ? ']' : ')';
    v.kind = Value::kList;
    while (!c.is(close)) {
      auto item = value(c, depth + 1);
      if (!item) return item.error();
      v.list.push_back(std::move(item).value());
      if (!c.accept(',')) break;
    }
    if (auto end = c.expect(close, "to close the list"); !end) return end.error();
    return v;
  }
  if (c.accept('-')) {
    auto n = c.integer("a number");
    if (!n) return n.error();
    v.i = -*n;
    return v;
  }
  if (at.kind == TokKind::kInt) {
    v.i = c.next().value;
    return v;
  }
  if (at.kind == TokKind::kIdent || at.kind == TokKind::kString) {
    v.kind = Value::kIdent;
    v.ident = c.next().text;
    return v;
  }
  return error_at(at, "expected a number or a list, found " + describe(at));
}

struct Attr {
  std::string kind;  // linear, blocked, swizzled_shared, nvmma_shared, shared_linear
  int column = 0;
  std::map<std::string, Value> fields;
};

// Gluon keyword and positional names -> the MLIR field names.
std::string canonical_key(const std::string& k) {
  static const std::map<std::string, std::string> kAlias = {{"reg_bases", "register"},
                                                            {"lane_bases", "lane"},
                                                            {"warp_bases", "warp"},
                                                            {"block_bases", "block"},
                                                            {"offset_bases", "offset"},
                                                            {"size_per_thread", "sizePerThread"},
                                                            {"threads_per_warp", "threadsPerWarp"},
                                                            {"warps_per_cta", "warpsPerCTA"},
                                                            {"per_phase", "perPhase"},
                                                            {"max_phase", "maxPhase"},
                                                            {"swizzle_byte_width", "swizzlingByteWidth"},
                                                            {"element_bitwidth", "elementBitWidth"},
                                                            {"ctas_per_cga", "CTAsPerCGA"},
                                                            {"cta_split_num", "CTASplitNum"},
                                                            {"cta_order", "CTAOrder"}};
  auto it = kAlias.find(k);
  return it == kAlias.end() ? k : it->second;
}

Result<Attr> read_attr(std::string_view text) {
  auto tokens = tokenize(text);
  if (!tokens) return tokens.error();
  Cursor c(std::move(tokens).value());
  static const std::map<std::string, std::string> kNames = {{"linear", "linear"},
                                                            {"blocked", "blocked"},
                                                            {"swizzled_shared", "swizzled_shared"},
                                                            {"nvmma_shared", "nvmma_shared"},
                                                            {"shared_linear", "shared_linear"},
                                                            {"DistributedLinearLayout", "linear"},
                                                            {"BlockedLayout", "blocked"},
                                                            {"SwizzledSharedLayout", "swizzled_shared"},
                                                            {"NVMMASharedLayout", "nvmma_shared"},
                                                            {"SharedLinearLayout", "shared_linear"}};
  static const std::map<std::string, std::vector<std::string>> kPositional = {
      {"linear", {"register", "lane", "warp", "block", "shape"}},
      {"blocked", {"sizePerThread", "threadsPerWarp", "warpsPerCTA", "order"}},
      {"swizzled_shared", {"vec", "perPhase", "maxPhase", "order"}},
      {"nvmma_shared", {"swizzlingByteWidth", "elementBitWidth", "rank", "transposed"}},
      {"shared_linear", {"offset", "block", "alignment"}}};
  while (!c.at_end()) {
    const Tok t = c.peek();
    if (t.kind != TokKind::kIdent) {
      c.next();
      continue;
    }
    const size_t dot = t.text.rfind('.');
    const std::string last = dot == std::string::npos ? t.text : t.text.substr(dot + 1);
    auto known = kNames.find(last);
    if (known == kNames.end()) {
      c.next();
      continue;
    }
    c.next();
    Attr attr;
    attr.kind = known->second;
    attr.column = t.column;
    const bool mlir = c.accept('<');
    if (!mlir && !c.accept('(')) {
      return error_at(c.peek(), "expected '<{' or '(' after " + t.text + ", found " + describe(c.peek()));
    }
    const char close = mlir ? '>' : ')';
    bool braced = false;
    size_t positional = 0;
    while (!c.is(close) || braced) {
      if (c.at_end())
        return error_at(c.peek(), std::string("the attribute is not closed: expected '") + close + "'");
      if (c.accept('{')) {
        braced = true;
        continue;
      }
      if (braced && c.accept('}')) {
        braced = false;
        c.accept(',');
        continue;
      }
      const Tok key_at = c.peek();
      std::string key;
      if (key_at.kind == TokKind::kIdent && c.peek(1).kind == TokKind::kPunct && c.peek(1).text == "=") {
        key = canonical_key(c.next().text);
        c.next();
      } else if (!mlir) {
        const auto& names = kPositional.at(attr.kind);
        if (positional >= names.size()) return error_at(key_at, "too many arguments");
        key = names[positional++];
      } else {
        return error_at(key_at, "expected 'name = value', found " + describe(key_at));
      }
      const Tok value_at = c.peek();
      auto v = value(c);
      if (!v) return v.error();
      if (attr.fields.count(key)) return error_at(key_at, "field '" + key + "' is given twice", key);
      attr.fields[key] = std::move(v).value();
      (void)value_at;
      if (!c.accept(',') && !c.is('}') && !c.is(close)) {
        return error_at(c.peek(), "expected ',' between fields, found " + describe(c.peek()));
      }
    }
    c.next();
    return attr;
  }
  return make_error(
      "no Triton layout: expected #ttg.linear<...>, #ttg.blocked<...>, #ttg.swizzled_shared<...>, "
      "#ttg.nvmma_shared<...>, #ttg.shared_linear<...> or a Gluon layout",
      1, "layout");
}

Result<int64_t> int_field(const Attr& a, const std::string& key) {
  auto it = a.fields.find(key);
  if (it == a.fields.end()) return make_error("missing field '" + key + "'", a.column, key);
  if (it->second.kind != Value::kInt)
    return make_error("field '" + key + "' must be a number", it->second.column, key);
  return it->second.i;
}

Result<std::vector<int64_t>> ints_field(const Attr& a, const std::string& key, bool required = true) {
  auto it = a.fields.find(key);
  if (it == a.fields.end()) {
    if (!required) return std::vector<int64_t>{};
    return make_error("missing field '" + key + "'", a.column, key);
  }
  if (it->second.kind != Value::kList)
    return make_error("field '" + key + "' must be a list", it->second.column, key);
  std::vector<int64_t> out;
  for (const Value& v : it->second.list) {
    if (v.kind != Value::kInt) return make_error("field '" + key + "' must list numbers", v.column, key);
    out.push_back(v.i);
  }
  return out;
}

struct Basis {
  std::vector<int64_t> coords;
  int column = 0;
};

struct HwDim {
  std::string name;  // Triton's name: register, lane, warp, block, offset
  std::string axis;  // ours: reg, laneid, warpid, block, m
  std::vector<Basis> bases;
};

Result<std::vector<Basis>> bases_field(const Attr& a, const std::string& key, size_t rank) {
  std::vector<Basis> out;
  auto it = a.fields.find(key);
  if (it == a.fields.end()) return out;
  if (it->second.kind != Value::kList)
    return make_error("field '" + key + "' must be a list of bases", it->second.column, key);
  for (const Value& b : it->second.list) {
    if (b.kind != Value::kList || b.list.size() != rank) {
      return make_error("each basis of '" + key + "' must list " + std::to_string(rank) + " coordinates",
                        b.column, key);
    }
    Basis basis;
    basis.column = b.column;
    for (const Value& v : b.list) {
      if (v.kind != Value::kInt) return make_error("a basis coordinate must be a number", v.column, key);
      basis.coords.push_back(v.i);
    }
    out.push_back(std::move(basis));
  }
  return out;
}

Result<bool> check_shape(const std::vector<int64_t>& shape, int column) {
  int bits = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (!is_pow2(shape[d])) {
      return make_error("dimension " + std::to_string(d) + " has size " + std::to_string(shape[d]) +
                            ": a linear layout needs power-of-two sizes",
                        column, "shape");
    }
    bits += log2_exact(shape[d]);
  }
  if (bits > kMaxLogicalBits) return make_error("the shape has more than 2^40 elements", column, "shape");
  return true;
}

// Logical coordinate -> flat bit vector (row-major: the last dimension holds the low bits).
struct FlatBits {
  std::vector<int> low;  // first flat bit of each dimension
  std::vector<int> bits;
  int total = 0;
  explicit FlatBits(const std::vector<int64_t>& shape) : low(shape.size()), bits(shape.size()) {
    for (size_t d = shape.size(); d-- > 0;) {
      low[d] = total;
      bits[d] = log2_exact(shape[d]);
      total += bits[d];
    }
  }
};

int popcount(uint64_t v) { return __builtin_popcountll(v); }
int lowest(uint64_t v) { return __builtin_ctzll(v); }

// The linear layout (hardware bits -> logical coordinates) inverted into the notation.
Result<Layout> linear_to_layout(const std::vector<HwDim>& hw, const std::vector<int64_t>& shape, int column) {
  if (auto ok = check_shape(shape, column); !ok) return ok.error();
  const FlatBits flat(shape);
  struct Bit {
    size_t dim;  // index into hw
    int bit;
    uint64_t v;
    int column;
  };
  std::vector<Bit> bits;
  Layout out;
  std::vector<Mode> replicas;
  for (size_t h = 0; h < hw.size(); ++h) {
    if (hw[h].bases.size() > 30) return make_error("more than 30 bases on " + hw[h].name, column, hw[h].name);
    for (size_t i = 0; i < hw[h].bases.size(); ++i) {
      const Basis& b = hw[h].bases[i];
      uint64_t v = 0;
      for (size_t d = 0; d < shape.size(); ++d) {
        if (b.coords[d] < 0 || b.coords[d] >= shape[d]) {
          return make_error("basis coordinate " + std::to_string(b.coords[d]) + " is outside dimension " +
                                std::to_string(d) + " (size " + std::to_string(shape[d]) + ")",
                            b.column, hw[h].name);
        }
        v |= static_cast<uint64_t>(b.coords[d]) << flat.low[d];
      }
      if (v == 0) {
        replicas.push_back(Mode{2, AxisStride{int64_t{1} << i, hw[h].axis}});
      } else {
        bits.push_back(Bit{h, static_cast<int>(i), v, b.column});
      }
    }
  }
  // Independence, one basis at a time, so the first dependent one is the one named.
  std::vector<uint64_t> reduced;  // echelon rows keyed by their highest bit
  for (const Bit& b : bits) {
    uint64_t v = b.v;
    for (uint64_t r : reduced) {
      const int top = 63 - __builtin_clzll(r);
      if ((v >> top) & 1) v ^= r;
    }
    if (v == 0) {
      return make_error(
          "basis of " + hw[b.dim].name + " bit " + std::to_string(b.bit) +
              " repeats a combination of earlier bases: an element at several XOR-related places is "
              "not expressible",
          b.column, hw[b.dim].name);
    }
    reduced.push_back(v);
    std::sort(reduced.begin(), reduced.end(), std::greater<>());
  }
  if (static_cast<int>(bits.size()) < flat.total) {
    return make_error("the bases cover " + std::to_string(bits.size()) + " of the shape's " +
                          std::to_string(flat.total) +
                          " logical bits: the layout does not reach every element",
                      column, "shape");
  }
  const bool all_single =
      std::all_of(bits.begin(), bits.end(), [](const Bit& b) { return popcount(b.v) == 1; });
  std::vector<AxisStride> of_flat_bit(static_cast<size_t>(flat.total));
  if (all_single) {
    for (const Bit& b : bits) {
      of_flat_bit[static_cast<size_t>(lowest(b.v))] = AxisStride{int64_t{1} << b.bit, hw[b.dim].axis};
    }
  } else {
    const Bit* first_xor = nullptr;
    for (const Bit& b : bits)
      if (popcount(b.v) > 1) {
        first_xor = &b;
        break;
      }
    const bool memory_only = hw.size() == 1 && hw[0].axis == kMemoryAxis;
    if (!memory_only) {
      return make_error("basis of " + hw[first_xor->dim].name + " bit " + std::to_string(first_xor->bit) +
                            " XORs several logical bits: not expressible outside the memory axis",
                        first_xor->column, hw[first_xor->dim].name);
    }
    // G: logical flat bit -> offset value, the inverse of offset bit i -> bits[i].v (Gauss-Jordan).
    const int n = flat.total;
    std::vector<uint64_t> rows(static_cast<size_t>(n));  // rows[i]: logical vector of offset bit i
    std::vector<uint64_t> inv(static_cast<size_t>(n));   // which offset bits combine into rows[i]
    if (!replicas.empty()) {
      return make_error("a swizzled shared layout with broadcast (zero) offset bases is not read", column,
                        "offset");
    }
    for (size_t j = 0; j < bits.size(); ++j) {
      rows[j] = bits[j].v;
      inv[j] = uint64_t{1} << bits[j].bit;
    }
    for (int col = 0; col < n; ++col) {
      int pivot = -1;
      for (int r = col; r < n; ++r)
        if ((rows[static_cast<size_t>(r)] >> col) & 1) {
          pivot = r;
          break;
        }
      std::swap(rows[static_cast<size_t>(col)], rows[static_cast<size_t>(pivot)]);
      std::swap(inv[static_cast<size_t>(col)], inv[static_cast<size_t>(pivot)]);
      for (int r = 0; r < n; ++r) {
        if (r != col && ((rows[static_cast<size_t>(r)] >> col) & 1)) {
          rows[static_cast<size_t>(r)] ^= rows[static_cast<size_t>(col)];
          inv[static_cast<size_t>(r)] ^= inv[static_cast<size_t>(col)];
        }
      }
    }
    // now rows[p] = e_p and inv[p] = G(p), the offset of logical bit p
    std::optional<Swizzle> found;
    // CuTe's direction first (high bits into low), then TIRx's swizzle_inner=False (low bits into high)
    for (int b = 1; b <= n && !found; ++b)
      for (int s = b; s <= n && !found; ++s)
        for (int m = 0; m + s + b <= n && !found; ++m)
          for (const bool inner : {true, false}) {
            const Swizzle sw{b, m, s, inner, inner ? SwizzleSpelling::kCute : SwizzleSpelling::kTirx};
            bool ok = !found.has_value();
            for (int p = 0; p < n && ok; ++p) {
              ok = popcount(static_cast<uint64_t>(
                       unapply_swizzle(sw, static_cast<int64_t>(inv[static_cast<size_t>(p)])))) == 1;
            }
            if (ok) found = sw;
          }
    if (!found) {
      return make_error("basis of " + hw[first_xor->dim].name + " bit " + std::to_string(first_xor->bit) +
                            " XORs logical bits in a pattern that is not a Swizzle<B,M,S>: not expressible",
                        first_xor->column, hw[first_xor->dim].name);
    }
    out.swizzle = found;
    for (int p = 0; p < n; ++p) {
      const auto plain =
          static_cast<uint64_t>(unapply_swizzle(*found, static_cast<int64_t>(inv[static_cast<size_t>(p)])));
      of_flat_bit[static_cast<size_t>(p)] = AxisStride{int64_t{1} << lowest(plain), std::string(kMemoryAxis)};
    }
  }
  for (size_t d = 0; d < shape.size(); ++d) {
    std::vector<Mode> modes;
    for (int j = flat.bits[d] - 1; j >= 0; --j) {
      const AxisStride& st = of_flat_bit[static_cast<size_t>(flat.low[d] + j)];
      if (!modes.empty() && modes.back().stride.axis == st.axis && modes.back().stride.k == 2 * st.k) {
        modes.back().extent *= 2;
        modes.back().stride.k = st.k;
      } else {
        modes.push_back(Mode{2, st});
      }
    }
    out.shard.insert(out.shard.end(), modes.begin(), modes.end());
  }
  if (out.shard.empty()) out.shard.push_back(Mode{1, AxisStride{1, std::string(kMemoryAxis)}});
  if (!replicas.empty()) {
    std::reverse(replicas.begin(), replicas.end());
    std::vector<Mode> fused;
    for (const Mode& m : replicas) {
      if (!fused.empty() && fused.back().stride.axis == m.stride.axis &&
          fused.back().stride.k == 2 * m.stride.k) {
        fused.back().extent *= 2;
        fused.back().stride.k = m.stride.k;
      } else {
        fused.push_back(m);
      }
    }
    out.replicas.push_back(std::move(fused));
  }
  return out;
}

Result<std::vector<int64_t>> linear_shape(const Attr& a, const std::string_view text,
                                          const FormatContext& context, std::vector<std::string>* inferred) {
  std::vector<int64_t> text_shape;
  int column = a.column;
  if (auto it = a.fields.find("shape"); it != a.fields.end()) {
    auto s = ints_field(a, "shape");
    if (!s) return s.error();
    text_shape = *s;
    column = it->second.column;
  } else if (auto found = find_tensor_shape(text)) {
    text_shape = *found;
  } else if (context.shape.empty() && (a.kind == "linear" || a.kind == "shared_linear")) {
    // Triton's own rule for a layout built from bases alone: each dimension as large as its bases reach
    size_t rank = 0;
    std::vector<int64_t> reach;
    for (const char* key : {"register", "lane", "warp", "block", "offset"}) {
      auto field = a.fields.find(key);
      if (field == a.fields.end() || field->second.kind != Value::kList) continue;
      for (const Value& b : field->second.list) {
        if (b.kind != Value::kList) continue;
        if (rank == 0) {
          rank = b.list.size();
          reach.assign(rank, 0);
        }
        for (size_t d = 0; d < b.list.size() && d < rank; ++d) {
          if (b.list[d].kind == Value::kInt && b.list[d].i > 0 && b.list[d].i < (int64_t{1} << 40)) {
            reach[d] |= b.list[d].i;
          }
        }
      }
    }
    if (rank > 0) {
      for (int64_t r : reach) {
        int64_t size = 1;
        while (size <= r) size *= 2;
        text_shape.push_back(size);
      }
      inferred->push_back("no tensor shape given: each dimension is as large as the bases reach");
    }
  }
  return pick_shape(text_shape, column, context, "this Triton layout");
}

// Appends identity bases of `count` elements along dimension d (Triton's identity1D), from cur[d] up.
void identity(std::vector<Basis>& bases, size_t rank, size_t d, int64_t count, std::vector<int64_t>& cur,
              int column) {
  for (int64_t k = 1; k < count; k *= 2) {
    Basis b;
    b.coords.assign(rank, 0);
    b.coords[d] = cur[d] * k;
    b.column = column;
    bases.push_back(b);
  }
  cur[d] *= count;
}

Result<std::vector<HwDim>> blocked_bases(const Attr& a, const std::vector<int64_t>& shape) {
  auto spt = ints_field(a, "sizePerThread");
  if (!spt) return spt.error();
  auto tpw = ints_field(a, "threadsPerWarp");
  if (!tpw) return tpw.error();
  auto wpc = ints_field(a, "warpsPerCTA");
  if (!wpc) return wpc.error();
  auto order = ints_field(a, "order");
  if (!order) return order.error();
  const size_t rank = shape.size();
  for (const auto& [key, list] : {std::pair<std::string, const std::vector<int64_t>*>{"sizePerThread", &*spt},
                                  {"threadsPerWarp", &*tpw},
                                  {"warpsPerCTA", &*wpc},
                                  {"order", &*order}}) {
    const int col = a.fields.at(key).column;
    if (list->size() != rank) {
      return make_error(key + " has " + std::to_string(list->size()) + " entries for a tensor of rank " +
                            std::to_string(rank),
                        col, key);
    }
    if (key != "order") {
      for (int64_t v : *list)
        if (!is_pow2(v) || v > (1 << 20)) {
          return make_error(key + " entries must be powers of two up to 2^20", col, key);
        }
    }
  }
  std::vector<int64_t> sorted = *order;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < rank; ++i)
    if (sorted[i] != static_cast<int64_t>(i)) {
      return make_error("order is not a permutation of the dimensions", a.fields.at("order").column, "order");
    }
  for (const char* key : {"CTAsPerCGA", "CTASplitNum"}) {
    auto v = ints_field(a, key, false);
    if (!v) return v.error();
    for (int64_t x : *v)
      if (x != 1) {
        return make_error(std::string(key) + " describes several CTAs: only one-CTA layouts are read",
                          a.fields.at(key).column, key);
      }
  }
  std::vector<HwDim> hw{{"register", "reg", {}}, {"lane", "laneid", {}}, {"warp", "warpid", {}}};
  std::vector<int64_t> cur(rank, 1);
  const std::vector<int64_t>* per[3] = {&*spt, &*tpw, &*wpc};
  // each hardware dimension multiplies onto the previous ones: its bases start where they stopped
  for (size_t h = 0; h < 3; ++h) {
    for (int64_t dim : *order) {
      const auto d = static_cast<size_t>(dim);
      identity(hw[h].bases, rank, d, (*per[h])[d], cur, a.column);
    }
  }
  // shape larger than the CTA tile: more registers, fastest dimension first
  for (int64_t dim : *order) {
    const auto d = static_cast<size_t>(dim);
    if (cur[d] < shape[d]) identity(hw[0].bases, rank, d, shape[d] / cur[d], cur, a.column);
  }
  // shape smaller: the largest bases of that dimension broadcast
  for (size_t d = 0; d < rank; ++d) {
    while (cur[d] > shape[d]) {
      Basis* largest = nullptr;
      for (HwDim& h : hw)
        for (Basis& b : h.bases)
          if (b.coords[d] != 0 && (!largest || b.coords[d] > largest->coords[d])) largest = &b;
      if (!largest) break;
      largest->coords[d] = 0;
      cur[d] /= 2;
    }
  }
  return hw;
}

// Triton's shared layouts as offset bases: swizzled_shared (vec, perPhase, maxPhase, order) and the NVMMA
// core-matrix tile.
Result<std::vector<Basis>> swizzled_bases(const Attr& a, const std::vector<int64_t>& shape,
                                          std::vector<std::string>* notes) {
  const size_t rank = shape.size();
  std::vector<Basis> bases;
  std::vector<int64_t> cur(rank, 1);
  if (a.kind == "swizzled_shared") {
    auto vec = int_field(a, "vec");
    if (!vec) return vec.error();
    auto per_phase = int_field(a, "perPhase");
    if (!per_phase) return per_phase.error();
    auto max_phase = int_field(a, "maxPhase");
    if (!max_phase) return max_phase.error();
    auto order = ints_field(a, "order");
    if (!order) return order.error();
    if (*vec < 1 || *per_phase < 1 || *max_phase < 1 || *vec > (1 << 20) || *per_phase > (1 << 20) ||
        *max_phase > (1 << 20)) {
      return make_error("vec, perPhase and maxPhase must be between 1 and 2^20", a.column, "vec");
    }
    if (order->size() != rank)
      return make_error("order has the wrong rank", a.fields.at("order").column, "order");
    std::vector<int64_t> sorted = *order;
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < rank; ++i)
      if (sorted[i] != static_cast<int64_t>(i)) {
        return make_error("order is not a permutation of the dimensions", a.fields.at("order").column,
                          "order");
      }
    if (rank == 1) {
      identity(bases, rank, 0, shape[0], cur, a.column);
      return bases;
    }
    const auto col = static_cast<size_t>((*order)[0]);
    const auto row = static_cast<size_t>((*order)[1]);
    identity(bases, rank, col, shape[col], cur, a.column);
    for (int64_t r = 1; r < shape[row]; r *= 2) {
      Basis b;
      b.coords.assign(rank, 0);
      b.coords[row] = r;
      b.coords[col] = (*vec * ((r / *per_phase) % *max_phase)) % shape[col];
      b.column = a.column;
      bases.push_back(b);
    }
    cur[row] = shape[row];
    for (size_t i = 2; i < rank; ++i) {
      const auto d = static_cast<size_t>((*order)[i]);
      identity(bases, rank, d, shape[d], cur, a.column);
    }
    return bases;
  }
  // nvmma_shared
  auto width = int_field(a, "swizzlingByteWidth");
  if (!width) return width.error();
  auto elem_bits = int_field(a, "elementBitWidth");
  if (!elem_bits) return elem_bits.error();
  bool transposed = false;
  if (auto it = a.fields.find("transposed"); it != a.fields.end()) {
    transposed = it->second.kind == Value::kIdent ? (it->second.ident == "true" || it->second.ident == "True")
                                                  : it->second.i != 0;
  }
  if (auto it = a.fields.find("fp4Padded"); it != a.fields.end() && it->second.kind == Value::kIdent &&
                                            (it->second.ident == "true" || it->second.ident == "True")) {
    return make_error("fp4Padded NVMMA layouts are not read", it->second.column, "fp4Padded");
  }
  if (*width != 0 && *width != 32 && *width != 64 && *width != 128) {
    return make_error("swizzlingByteWidth must be 0, 32, 64 or 128", a.fields.at("swizzlingByteWidth").column,
                      "swizzlingByteWidth");
  }
  if (*elem_bits != 8 && *elem_bits != 16 && *elem_bits != 32 && *elem_bits != 64) {
    return make_error("elementBitWidth must be 8, 16, 32 or 64", a.fields.at("elementBitWidth").column,
                      "elementBitWidth");
  }
  if (rank != 2) return make_error("an NVMMA shared layout is read on a 2-D shape", a.column, "shape");
  const int64_t tile_cols = 8 * std::max<int64_t>(16, *width) / *elem_bits;
  const int64_t vec = 128 / *elem_bits;
  const int64_t per_phase = *width == 0 ? 1 : 128 / *width;
  const int64_t max_phase = *width == 0 ? 1 : *width / 16;
  const size_t col = transposed ? 0 : 1;  // the contiguous dimension
  const size_t row = 1 - col;
  if (shape[col] < tile_cols || shape[row] < 8) {
    return make_error(
        "the shape is smaller than one NVMMA tile (8 x " + std::to_string(tile_cols) + " elements)", a.column,
        "shape");
  }
  identity(bases, rank, col, tile_cols, cur, a.column);
  for (int64_t r = 1; r < 8; r *= 2) {
    Basis b;
    b.coords.assign(rank, 0);
    b.coords[row] = r;
    b.coords[col] = *width == 0 ? 0 : vec * ((r / per_phase) % max_phase);
    b.column = a.column;
    bases.push_back(b);
  }
  cur[row] = 8;
  identity(bases, rank, row, shape[row] / 8, cur, a.column);
  identity(bases, rank, col, shape[col] / tile_cols, cur, a.column);
  notes->push_back("NVMMA tiles of 8 x " + std::to_string(tile_cols) +
                   " elements repeat along the strided dimension first, then along the contiguous one");
  return bases;
}

}  // namespace

Result<Imported> import_triton(std::string_view text, const FormatContext& context) {
  auto attr = read_attr(text);
  if (!attr) return attr.error();
  Imported out;
  out.from = Format::kTriton;
  auto shape = linear_shape(*attr, text, context, &out.notes);
  if (!shape) return shape.error();
  out.shape = *shape;
  if (auto ok = check_shape(*shape, attr->column); !ok) return ok.error();
  std::vector<HwDim> hw;
  if (attr->kind == "linear") {
    for (const auto& [name, axis] : std::vector<std::pair<std::string, std::string>>{
             {"register", "reg"}, {"lane", "laneid"}, {"warp", "warpid"}, {"block", "block"}}) {
      auto bases = bases_field(*attr, name, shape->size());
      if (!bases) return bases.error();
      hw.push_back(HwDim{name, axis, std::move(bases).value()});
    }
  } else if (attr->kind == "shared_linear") {
    auto bases = bases_field(*attr, "offset", shape->size());
    if (!bases) return bases.error();
    auto block = bases_field(*attr, "block", shape->size());
    if (!block) return block.error();
    if (!block->empty())
      return make_error("block bases on a shared layout are not read (one CTA only)", block->front().column,
                        "block");
    hw.push_back(HwDim{"offset", std::string(kMemoryAxis), std::move(bases).value()});
  } else if (attr->kind == "blocked") {
    auto b = blocked_bases(*attr, *shape);
    if (!b) return b.error();
    hw = std::move(b).value();
  } else {
    auto b = swizzled_bases(*attr, *shape, &out.notes);
    if (!b) return b.error();
    hw.push_back(HwDim{"offset", std::string(kMemoryAxis), std::move(b).value()});
  }
  auto layout = linear_to_layout(hw, *shape, attr->column);
  if (!layout) return layout.error();
  out.layout = std::move(layout).value();
  return out;
}

Result<std::string> export_triton(const Layout& layout, const std::vector<int64_t>& shape,
                                  const FormatContext&) {
  if (!layout.partials.empty())
    return make_error("a Triton layout cannot hold partial sums (P[...])", 0, "partial");
  for (const AxisStride& o : layout.offset) {
    if (o.k != 0)
      return make_error("a Triton linear layout cannot express the offset O[" + to_string(o) + "]", 0,
                        "offset");
  }
  if (auto ok = check_shape(shape, 0); !ok) return ok.error();
  static const std::map<std::string, std::string> kHw = {
      {"reg", "register"}, {"laneid", "lane"}, {"warpid", "warp"}, {"block", "block"}, {"m", "offset"}};
  const FlatBits flat(shape);
  // hardware dimension -> bit -> logical flat vector (0 for a replica); -1 marks a bit not yet seen
  std::map<std::string, std::vector<int64_t>> hw;
  auto place = [&](const Mode& m, int flat_low, bool replica) -> Result<bool> {
    if (m.extent == 1) return true;
    const std::string field = replica ? "replica" : "mode";
    auto it = kHw.find(m.stride.axis);
    if (it == kHw.end()) {
      return make_error(
          "axis @" + m.stride.axis + " is not a Triton hardware dimension (reg, laneid, warpid, block, m)", 0,
          m.stride.axis);
    }
    if (!is_pow2(m.extent) || !is_pow2(m.stride.k)) {
      return make_error(
          "mode " + std::to_string(m.extent) + ":" + to_string(m.stride) +
              " is not a power-of-two extent with a positive power-of-two stride: not a linear layout",
          0, field);
    }
    auto& bits = hw[it->second];
    const int s = log2_exact(m.stride.k);
    const int k = log2_exact(m.extent);
    if (s + k > 30) return make_error("axis @" + m.stride.axis + " reaches beyond 2^30", 0, m.stride.axis);
    if (bits.size() < static_cast<size_t>(s + k)) bits.resize(static_cast<size_t>(s + k), -1);
    for (int i = 0; i < k; ++i) {
      int64_t& slot = bits[static_cast<size_t>(s + i)];
      if (slot != -1) {
        return make_error("bit " + std::to_string(s + i) + " of @" + m.stride.axis +
                              " is used twice: several elements at one place is not a linear layout",
                          0, m.stride.axis);
      }
      slot = replica ? 0 : int64_t{1} << (flat_low + i);
    }
    return true;
  };
  int low = 0;
  for (size_t i = layout.shard.size(); i-- > 0;) {
    if (auto ok = place(layout.shard[i], low, false); !ok) return ok.error();
    low += layout.shard[i].extent > 1 && is_pow2(layout.shard[i].extent) ? log2_exact(layout.shard[i].extent)
                                                                         : 0;
  }
  if (low != flat.total) return make_error("the layout's size does not match the shape", 0, "shape");
  for (const auto& g : layout.replicas)
    for (const Mode& m : g)
      if (auto ok = place(m, 0, true); !ok) return ok.error();
  const bool shared = hw.count("offset") != 0;
  if (shared && hw.size() > 1) {
    return make_error("the layout mixes @m with thread axes: a Triton layout is either distributed or shared",
                      0, "m");
  }
  for (const auto& [name, bits] : hw) {
    std::string axis;
    for (const auto& [ours, theirs] : kHw)
      if (theirs == name) axis = ours;
    for (size_t b = 0; b < bits.size(); ++b) {
      if (bits[b] == -1) {
        return make_error("bit " + std::to_string(b) + " of @" + axis +
                              " is never used: a linear layout numbers its hardware densely",
                          0, axis);
      }
    }
  }
  if (layout.swizzle && !shared) return make_error("a swizzle needs the @m axis", 0, "swizzle");
  if (layout.swizzle) {
    for (const int64_t v : hw["offset"]) {
      if (v == 0) {
        return make_error(
            "a swizzled layout with replicas on @m (two offsets holding one element) is not exported", 0,
            "replica");
      }
    }
  }
  auto coords = [&](uint64_t v) {
    std::string s = "[";
    for (size_t d = 0; d < shape.size(); ++d) {
      const int64_t c = static_cast<int64_t>((v >> flat.low[d]) & ((uint64_t{1} << flat.bits[d]) - 1));
      s += (d ? ", " : "") + std::to_string(c);
    }
    return s + "]";
  };
  auto list = [&](const std::string& name) {
    std::string s = "[";
    auto it = hw.find(name);
    if (it == hw.end()) return s + "]";
    for (size_t b = 0; b < it->second.size(); ++b) {
      uint64_t v = static_cast<uint64_t>(it->second[b]);
      if (name == "offset" && layout.swizzle) {
        // offset bit b holds the element whose pre-swizzle offset is unswizzle(2^b)
        const auto pre = static_cast<uint64_t>(unapply_swizzle(*layout.swizzle, int64_t{1} << b));
        v = 0;
        for (uint64_t rest = pre; rest; rest &= rest - 1) {
          const auto bit = static_cast<size_t>(lowest(rest));
          if (bit >= it->second.size()) {
            return std::string();
          }
          v ^= static_cast<uint64_t>(it->second[bit]);
        }
      }
      s += (b ? ", " : "") + coords(v);
    }
    return s + "]";
  };
  if (shared) {
    const std::string offsets = list("offset");
    if (offsets.empty()) {
      return make_error("the swizzle " + to_string(*layout.swizzle) + " reaches past the layout's offsets", 0,
                        "swizzle");
    }
    return "#ttg.shared_linear<{offset = " + offsets + ", block = []}, alignment = 16>";
  }
  return "#ttg.linear<{register = " + list("register") + ", lane = " + list("lane") +
         ", warp = " + list("warp") + ", block = " + list("block") + "}>";
}

}  // namespace layoutscope
