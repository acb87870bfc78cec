#include "layoutscope/formats/triton.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <optional>

#include "detail.hpp"
#include "layoutscope/tcgen05.hpp"

namespace layoutscope {

using namespace formats_detail;

namespace {

inline constexpr int kMaxLogicalBits = 40;

struct Attr;

// A parsed attribute value: an integer, a bool/identifier, a list, a nested layout attribute
// (parent = #ttg.blocked<...>) or a reference to an alias defined elsewhere in the text (parent = #mma).
struct Value {
  enum Kind { kInt, kIdent, kList, kAttr, kAlias } kind = kInt;
  int64_t i = 0;
  std::string ident;
  std::vector<Value> list;
  std::shared_ptr<Attr> attr;
  int column = 0;
};

struct Attr {
  std::string kind;  // linear, blocked, nvidia_mma, dot_op, slice, amd_mfma, amd_wmma, swizzled_shared, ...
  int column = 0;
  std::map<std::string, Value> fields;
};

using Aliases = std::map<std::string, std::shared_ptr<Attr>>;

// Triton's printed names (the last component of ttg.blocked, ttng.tensor_memory_encoding) and Gluon's class
// names -> the attribute kinds read here.
const std::map<std::string, std::string>& layout_names() {
  static const std::map<std::string, std::string> kNames = {
      {"linear", "linear"},
      {"blocked", "blocked"},
      {"nvidia_mma", "nvidia_mma"},
      {"dot_op", "dot_op"},
      {"slice", "slice"},
      {"amd_mfma", "amd_mfma"},
      {"amd_wmma", "amd_wmma"},
      {"swizzled_shared", "swizzled_shared"},
      {"nvmma_shared", "nvmma_shared"},
      {"shared_linear", "shared_linear"},
      {"padded_shared", "padded_shared"},
      {"tensor_memory_encoding", "tensor_memory_encoding"},
      {"tensor_memory_scales_encoding", "tensor_memory_scales_encoding"},
      {"DistributedLinearLayout", "linear"},
      {"BlockedLayout", "blocked"},
      {"NVMMADistributedLayout", "nvidia_mma"},
      {"DotOperandLayout", "dot_op"},
      {"SliceLayout", "slice"},
      {"AMDMFMALayout", "amd_mfma"},
      {"AMDWMMALayout", "amd_wmma"},
      {"SwizzledSharedLayout", "swizzled_shared"},
      {"NVMMASharedLayout", "nvmma_shared"},
      {"SharedLinearLayout", "shared_linear"},
      {"PaddedSharedLayout", "padded_shared"},
      {"TensorMemoryLayout", "tensor_memory_encoding"},
      {"TensorMemoryScalesLayout", "tensor_memory_scales_encoding"}};
  return kNames;
}

std::optional<std::string> layout_kind(const std::string& ident) {
  const size_t dot = ident.rfind('.');
  const std::string last = dot == std::string::npos ? ident : ident.substr(dot + 1);
  // Gluon's PaddedSharedLayout.with_identity_for(interval_padding_pairs, shape, order): read with its own
  // positional names, then as padded_shared's {order, shape} form
  if (last == "with_identity_for" && dot != std::string::npos &&
      layout_kind(ident.substr(0, dot)) == std::optional<std::string>("padded_shared"))
    return "padded_shared_identity";
  auto it = layout_names().find(last);
  if (it == layout_names().end()) return std::nullopt;
  return it->second;
}

Result<Attr> attr_body(Cursor& c, const Tok& name_tok, const std::string& kind, int depth);

Result<Value> value(Cursor& c, int depth = 0) {
  const Tok at = c.peek();
  if (depth > 8) return error_at(at, "lists nested too deeply");
  Value v;
  v.column = at.column;
  if (c.accept('#')) {
    const Tok name = c.peek();
    if (name.kind != TokKind::kIdent) return error_at(name, "expected an attribute or an alias after '#'");
    c.next();
    if (auto kind = layout_kind(name.text); kind && (c.is('<') || c.is('('))) {
      auto nested = attr_body(c, name, *kind, depth + 1);
      if (!nested) return nested.error();
      v.kind = Value::kAttr;
      v.attr = std::make_shared<Attr>(std::move(nested).value());
      return v;
    }
    v.kind = Value::kAlias;
    v.ident = name.text;
    return v;
  }
  if (at.kind == TokKind::kIdent && c.peek(1).kind == TokKind::kPunct && c.peek(1).text == "(") {
    if (auto kind = layout_kind(at.text)) {  // a Gluon constructor as an argument: parent=BlockedLayout(...)
      c.next();
      auto nested = attr_body(c, at, *kind, depth + 1);
      if (!nested) return nested.error();
      v.kind = Value::kAttr;
      v.attr = std::make_shared<Attr>(std::move(nested).value());
      return v;
    }
  }
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

// Gluon keyword and positional names -> the MLIR field names.
std::string canonical_key(const std::string& k) {
  static const std::map<std::string, std::string> kAlias = {{"reg_bases", "register"},
                                                            {"lane_bases", "lane"},
                                                            {"warp_bases", "warp"},
                                                            {"block_bases", "block"},
                                                            {"offset_bases", "offset"},
                                                            {"interval_padding_pairs", "intervals"},
                                                            {"size_per_thread", "sizePerThread"},
                                                            {"threads_per_warp", "threadsPerWarp"},
                                                            {"warps_per_cta", "warpsPerCTA"},
                                                            {"per_phase", "perPhase"},
                                                            {"max_phase", "maxPhase"},
                                                            {"swizzle_byte_width", "swizzlingByteWidth"},
                                                            {"element_bitwidth", "elementBitWidth"},
                                                            {"ctas_per_cga", "CTAsPerCGA"},
                                                            {"cta_split_num", "CTASplitNum"},
                                                            {"cta_order", "CTAOrder"},
                                                            {"instr_shape", "instrShape"},
                                                            {"operand_index", "opIdx"},
                                                            {"k_width", "kWidth"},
                                                            {"transposed_mfma", "isTransposed"},
                                                            {"col_stride", "colStride"},
                                                            {"isTranspose", "isTransposed"}};
  auto it = kAlias.find(k);
  return it == kAlias.end() ? k : it->second;
}

const std::vector<std::string>& positional_names(const std::string& kind) {
  static const std::map<std::string, std::vector<std::string>> kPositional = {
      {"linear", {"register", "lane", "warp", "block", "shape"}},
      {"blocked", {"sizePerThread", "threadsPerWarp", "warpsPerCTA", "order"}},
      {"nvidia_mma", {"version", "warpsPerCTA", "instrShape"}},
      {"dot_op", {"opIdx", "parent", "kWidth"}},
      {"slice", {"dim", "parent"}},
      {"amd_mfma", {"version", "instrShape", "isTransposed", "warpsPerCTA"}},
      {"amd_wmma", {"version", "isTransposed", "warpsPerCTA"}},
      {"swizzled_shared", {"vec", "perPhase", "maxPhase", "order"}},
      {"nvmma_shared", {"swizzlingByteWidth", "elementBitWidth", "rank", "transposed"}},
      {"shared_linear", {"offset", "block", "alignment"}},
      {"padded_shared", {"intervals", "offset", "block"}},
      {"padded_shared_identity", {"intervals", "shape", "order"}},
      {"tensor_memory_encoding", {"block", "colStride"}},
      {"tensor_memory_scales_encoding", {}}};
  return kPositional.at(kind);
}

// [interval:+padding, ...], padded_shared's list of paddings.
Result<Value> padding_pairs(Cursor& c) {
  Value out;
  out.kind = Value::kList;
  out.column = c.peek().column;
  c.next();  // '['
  while (!c.is(']')) {
    Value pair;
    pair.kind = Value::kList;
    pair.column = c.peek().column;
    auto interval = c.integer("an interval");
    if (!interval) return interval.error();
    if (auto colon = c.expect(':', "between the interval and its padding"); !colon) return colon.error();
    if (auto plus = c.expect('+', "before the padding"); !plus) return plus.error();
    auto pad = c.integer("a padding");
    if (!pad) return pad.error();
    pair.list = {Value{Value::kInt, *interval, {}, {}, {}, pair.column},
                 Value{Value::kInt, *pad, {}, {}, {}, pair.column}};
    out.list.push_back(std::move(pair));
    if (!c.accept(',')) break;
  }
  if (auto end = c.expect(']', "to close the paddings"); !end) return end.error();
  return out;
}

// The fields of one attribute, after its name: <{k = v, ...}> (MLIR), <k = v, ...> or (v, k=v) (Gluon).
Result<Attr> attr_body(Cursor& c, const Tok& name_tok, const std::string& kind, int depth) {
  if (depth > 8) return error_at(name_tok, "layouts nested too deeply");
  Attr attr;
  attr.kind = kind;
  attr.column = name_tok.column;
  const bool mlir = c.accept('<');
  if (!mlir && !c.accept('(')) {
    return error_at(c.peek(),
                    "expected '<{' or '(' after " + name_tok.text + ", found " + describe(c.peek()));
  }
  const char close = mlir ? '>' : ')';
  bool braced = false;
  size_t positional = 0;
  if (mlir && kind == "padded_shared" && c.is('[')) {
    auto pairs = padding_pairs(c);
    if (!pairs) return pairs.error();
    attr.fields["intervals"] = std::move(pairs).value();
  }
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
      const auto& names = positional_names(attr.kind);
      if (positional >= names.size()) return error_at(key_at, "too many arguments");
      key = names[positional++];
    } else {
      return error_at(key_at, "expected 'name = value', found " + describe(key_at));
    }
    auto v = value(c, depth);
    if (!v) return v.error();
    if (attr.fields.count(key)) return error_at(key_at, "field '" + key + "' is given twice", key);
    attr.fields[key] = std::move(v).value();
    if (!c.accept(',') && !c.is('}') && !c.is(close)) {
      return error_at(c.peek(), "expected ',' between fields, found " + describe(c.peek()));
    }
  }
  c.next();
  if (attr.kind == "padded_shared_identity") attr.kind = "padded_shared";
  return attr;
}

struct ReadText {
  Attr main;
  Aliases aliases;
};

// The layout a text gives, with the aliases it defines: a whole TTGIR file (#mma = #ttg.nvidia_mma<...>
// lines, then types that use them) or one attribute. The first layout that is not an alias's definition is
// the one read (a bare alias reference such as tensor<128x64xf16, #mma> counts); with none, the last
// definition.
Result<ReadText> read_attr(std::string_view text) {
  auto tokens = tokenize(text);
  if (!tokens) return tokens.error();
  Cursor c(std::move(tokens).value());
  ReadText out;
  std::optional<Attr> main;
  std::shared_ptr<Attr> last_definition;
  // the first alias a type names as its layout (", #name" in tensor<64x64xf32, #name>) that is not
  // defined before it: it may be defined further down, or nowhere
  std::optional<std::pair<std::string, Tok>> reference;  // the alias's name, and its '#'
  bool after_comma = false;
  while (!c.at_end()) {
    const Tok t = c.peek();
    const bool comma_before = after_comma;
    after_comma = t.kind == TokKind::kPunct && t.text == ",";
    if (t.kind == TokKind::kPunct && t.text == "#" && c.peek(1).kind == TokKind::kIdent) {
      const Tok name = c.peek(1);
      const bool definition = c.peek(2).kind == TokKind::kPunct && c.peek(2).text == "=";
      auto kind = layout_kind(name.text);
      if (definition) {
        c.next();
        c.next();
        c.next();
        if (c.is('#') && c.peek(1).kind == TokKind::kIdent) {
          const Tok def = c.peek(1);
          if (auto def_kind = layout_kind(def.text)) {
            c.next();
            c.next();
            auto a = attr_body(c, def, *def_kind, 0);
            if (!a) return a.error();
            last_definition = std::make_shared<Attr>(std::move(a).value());
            out.aliases[name.text] = last_definition;
          }
        }
        continue;
      }
      if (kind && (c.peek(2).text == "<" || c.peek(2).text == "(")) {
        c.next();
        c.next();
        auto a = attr_body(c, name, *kind, 0);
        if (!a) return a.error();
        if (!main) main = std::move(a).value();
        continue;
      }
      if (!main && out.aliases.count(name.text)) main = *out.aliases.at(name.text);
      if (!main && !reference && comma_before && !out.aliases.count(name.text))
        reference.emplace(name.text, t);
      c.next();
      c.next();
      continue;
    }
    if (t.kind == TokKind::kIdent) {
      auto kind = layout_kind(t.text);
      if (kind && (c.peek(1).text == "<" || c.peek(1).text == "(")) {
        c.next();
        auto a = attr_body(c, t, *kind, 0);
        if (!a) return a.error();
        if (!main) main = std::move(a).value();
        continue;
      }
    }
    c.next();
  }
  if (!main && reference) {
    auto it = out.aliases.find(reference->first);
    if (it == out.aliases.end())
      return error_at(
          reference->second,
          "#" + reference->first + " is not defined in the text: give the whole file or the layout",
          "layout");
    main = *it->second;  // defined further down
  }
  if (!main && last_definition) main = *last_definition;
  if (!main) {
    return make_error(
        "no Triton layout: expected #ttg.linear<...>, #ttg.blocked<...>, #ttg.nvidia_mma<...>, "
        "#ttg.dot_op<...>, "
        "#ttg.slice<...>, #ttg.amd_mfma<...>, #ttg.amd_wmma<...>, #ttg.swizzled_shared<...>, "
        "#ttg.nvmma_shared<...>, #ttg.padded_shared<...>, #ttg.shared_linear<...>, "
        "#ttng.tensor_memory_encoding<...> or a Gluon layout",
        1, "layout");
  }
  out.main = std::move(*main);
  return out;
}

// The attribute a field names: nested in place or an alias defined in the text.
Result<const Attr*> attr_field(const Attr& a, const std::string& key, const Aliases& aliases) {
  auto it = a.fields.find(key);
  if (it == a.fields.end()) return make_error("missing field '" + key + "'", a.column, key);
  if (it->second.kind == Value::kAttr) return it->second.attr.get();
  if (it->second.kind == Value::kAlias) {
    auto found = aliases.find(it->second.ident);
    if (found == aliases.end())
      return make_error(
          "#" + it->second.ident + " is not defined in the text: give the whole file or the layout",
          it->second.column, key);
    return found->second.get();
  }
  return make_error("field '" + key + "' must be a layout", it->second.column, key);
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

// Replica modes of one holder, given least significant first, each of extent 2: in the notation's order (most
// significant first), neighbours on one axis whose strides halve fused into one mode (2:2@a, 2:1@a -> 4:1@a).
std::vector<Mode> fused_replicas(std::vector<Mode> modes) {
  std::reverse(modes.begin(), modes.end());
  std::vector<Mode> fused;
  for (const Mode& m : modes) {
    if (!fused.empty() && fused.back().stride.axis == m.stride.axis &&
        fused.back().stride.k == 2 * m.stride.k) {
      fused.back().extent *= 2;
      fused.back().stride.k = m.stride.k;
    } else {
      fused.push_back(m);
    }
  }
  return fused;
}

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
    // CuTe's direction first (high bits into low), then TIRx's swizzle_inner=False (low bits into high);
    // shifts of at least the width first (CuTe's own condition), then the overlapping ones (S < B), which
    // the notation and the exporter allow too.
    for (const bool overlapping : {false, true})
      for (int b = 1; b <= n && !found; ++b)
        for (int s = overlapping ? 1 : b; s <= (overlapping ? b - 1 : n) && !found; ++s)
          for (int m = 0; m + s + b <= n && !found; ++m)
            for (const bool inner : {true, false}) {
              // TIRx spells only non-overlapping swizzles (atom_len >= swizzle_len); CuTe's negative S the
              // rest
              const bool tirx = !inner && !overlapping;
              const Swizzle sw{b, m, s, inner, tirx ? SwizzleSpelling::kTirx : SwizzleSpelling::kCute};
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
  if (!replicas.empty()) out.replicas.push_back(fused_replicas(std::move(replicas)));
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
  } else if (context.shape.empty() &&
             (a.kind == "linear" || a.kind == "shared_linear" || a.kind == "padded_shared")) {
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

// ---- Triton's linear layouts, built as Triton builds them
// --------------------------------------------------
//
// A small LinearLayout (Triton's include/triton/Tools/LinearLayout.h): named input dimensions (register,
// lane, warp, block) each with a list of bases, named output dimensions (dim0, dim1, ...) in an order, and
// the size of each output. The product A * B appends B's bases after A's, B's coordinates scaled by A's
// sizes on the dimensions both have; the encodings below follow lib/Dialect/TritonGPU/IR/
// LinearLayoutConversions.cpp rule by rule (identityStandardND, nvidiaMmaTile, broadcastedDotOperandLayout,
// combineCtaCgaWithShape with ensureLayoutNotSmallerThan / NotLargerThan).
struct LL {
  std::vector<std::string> outs;
  std::vector<int64_t> size;
  std::vector<std::pair<std::string, std::vector<std::vector<int64_t>>>> ins;

  std::vector<std::vector<int64_t>>& in(const std::string& name) {
    for (auto& [n, b] : ins)
      if (n == name) return b;
    ins.emplace_back(name, std::vector<std::vector<int64_t>>{});
    return ins.back().second;
  }
  int out(const std::string& name) const {
    for (size_t i = 0; i < outs.size(); ++i)
      if (outs[i] == name) return static_cast<int>(i);
    return -1;
  }
};

std::string dim_name(size_t d) { return "dim" + std::to_string(d); }

LL identity1d(int64_t n, const std::string& in, const std::string& out) {
  LL l;
  l.outs = {out};
  l.size = {n};
  auto& b = l.in(in);
  for (int64_t k = 1; k < n; k *= 2) b.push_back({k});
  return l;
}

LL zeros1d(int64_t n, const std::string& in, const std::string& out) {
  LL l;
  l.outs = {out};
  l.size = {1};
  auto& b = l.in(in);
  for (int64_t k = 1; k < n; k *= 2) b.push_back({0});
  return l;
}

LL mul(const LL& a, const LL& b) {
  LL r;
  r.outs = a.outs;
  r.size = a.size;
  std::vector<size_t> b_to_r(b.outs.size());
  std::vector<int64_t> scale(b.outs.size(), 1);
  for (size_t i = 0; i < b.outs.size(); ++i) {
    const int at = r.out(b.outs[i]);
    if (at >= 0) {
      b_to_r[i] = static_cast<size_t>(at);
      scale[i] = r.size[static_cast<size_t>(at)];
      r.size[static_cast<size_t>(at)] *= b.size[i];
    } else {
      b_to_r[i] = r.outs.size();
      r.outs.push_back(b.outs[i]);
      r.size.push_back(b.size[i]);
    }
  }
  for (const auto& [name, bases] : a.ins) {
    auto& dst = r.in(name);
    for (auto v : bases) {
      v.resize(r.outs.size(), 0);
      dst.push_back(v);
    }
  }
  for (const auto& [name, bases] : b.ins) {
    auto& dst = r.in(name);
    for (const auto& v : bases) {
      std::vector<int64_t> w(r.outs.size(), 0);
      for (size_t i = 0; i < v.size(); ++i) w[b_to_r[i]] = v[i] * scale[i];
      dst.push_back(w);
    }
  }
  return r;
}

LL transpose_outs(const LL& l, const std::vector<std::string>& order) {
  LL r;
  r.outs = order;
  std::vector<int> from(order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    from[i] = l.out(order[i]);
    r.size.push_back(from[i] >= 0 ? l.size[static_cast<size_t>(from[i])] : 1);
  }
  for (const auto& [name, bases] : l.ins) {
    auto& dst = r.in(name);
    for (const auto& v : bases) {
      std::vector<int64_t> w(order.size(), 0);
      for (size_t i = 0; i < order.size(); ++i)
        if (from[i] >= 0) w[i] = v[static_cast<size_t>(from[i])];
      dst.push_back(w);
    }
  }
  return r;
}

std::vector<std::string> standard_outs(size_t rank) {
  std::vector<std::string> o;
  for (size_t d = 0; d < rank; ++d) o.push_back(dim_name(d));
  return o;
}

std::vector<std::string> outs_in_order(const std::vector<int64_t>& order) {
  std::vector<std::string> o;
  for (int64_t d : order) o.push_back(dim_name(static_cast<size_t>(d)));
  return o;
}

// identityStandardND: the most minor dimension (order[0]) first.
LL identity_nd(const std::string& in, const std::vector<int64_t>& shape, const std::vector<int64_t>& order) {
  LL l;
  for (int64_t d : order)
    l = mul(l, identity1d(shape[static_cast<size_t>(d)], in, dim_name(static_cast<size_t>(d))));
  return l;
}

// broadcastedDotOperandLayout: the K dimension's threads or warps hold the same data.
LL broadcast_dot(const std::string& in, const std::vector<int64_t>& shape, const std::vector<int64_t>& order,
                 size_t k_dim) {
  LL l;
  for (int64_t d : order) {
    const auto u = static_cast<size_t>(d);
    l = mul(l, u == k_dim ? zeros1d(shape[u], in, dim_name(u)) : identity1d(shape[u], in, dim_name(u)));
  }
  return l;
}

// getMatrixOrder: [rank-1, rank-2, ..., 0], the first two swapped when column-major.
std::vector<int64_t> matrix_order(size_t rank, bool row_major) {
  std::vector<int64_t> o;
  for (size_t d = rank; d-- > 0;) o.push_back(static_cast<int64_t>(d));
  if (!row_major) std::swap(o[0], o[1]);
  return o;
}

// getOrderForDotOperand with K the most minor dimension.
std::vector<int64_t> dot_order(int64_t op_idx, size_t rank) { return matrix_order(rank, op_idx == 0); }

// combineCtaCgaWithShape for one CTA: registers repeat (in the layout's output order) where the shape is
// larger, the largest bases broadcast where it is smaller; then the outputs in dim0, dim1, ... order.
LL combine(LL l, const std::vector<int64_t>& shape) {
  l.in("register");
  for (size_t i = 0; i < l.outs.size(); ++i) {
    const int d = std::stoi(l.outs[i].substr(3));
    const int64_t want = shape[static_cast<size_t>(d)];
    if (l.size[i] < want) l = mul(l, identity1d(want / l.size[i], "register", l.outs[i]));
  }
  for (size_t i = 0; i < l.outs.size(); ++i) {
    const int d = std::stoi(l.outs[i].substr(3));
    const int64_t want = shape[static_cast<size_t>(d)];
    int64_t actual = l.size[i];
    if (actual <= want) continue;
    std::vector<int64_t*> nonzero;
    for (auto& [name, bases] : l.ins)
      for (auto& v : bases)
        if (v[i] != 0) nonzero.push_back(&v[i]);
    std::stable_sort(nonzero.begin(), nonzero.end(),
                     [](const int64_t* x, const int64_t* y) { return *x > *y; });
    for (int64_t* v : nonzero) {
      if (actual <= want) break;
      *v = 0;
      actual /= 2;
    }
    l.size[i] = want;
  }
  return transpose_outs(l, standard_outs(shape.size()));
}

Result<std::vector<int64_t>> pow2_list(const Attr& a, const std::string& key, size_t rank,
                                       bool required = true) {
  auto v = ints_field(a, key, required);
  if (!v) return v.error();
  if (v->empty() && !required) return v;
  const int col = a.fields.count(key) ? a.fields.at(key).column : a.column;
  if (v->size() != rank)
    return make_error(
        key + " has " + std::to_string(v->size()) + " entries for a tensor of rank " + std::to_string(rank),
        col, key);
  for (int64_t x : *v)
    if (!is_pow2(x) || x > (1 << 20))
      return make_error(key + " entries must be powers of two up to 2^20", col, key);
  return v;
}

Result<std::vector<int64_t>> order_field(const Attr& a, const std::string& key, size_t rank) {
  auto order = ints_field(a, key);
  if (!order) return order.error();
  const int col = a.fields.at(key).column;
  if (order->size() != rank)
    return make_error(key + " has " + std::to_string(order->size()) + " entries for a tensor of rank " +
                          std::to_string(rank),
                      col, key);
  std::vector<int64_t> sorted = *order;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < rank; ++i)
    if (sorted[i] != static_cast<int64_t>(i))
      return make_error(key + " is not a permutation of the dimensions", col, key);
  return order;
}

Result<bool> one_cta(const Attr& a) {
  for (const char* key : {"CTAsPerCGA", "CTASplitNum"}) {
    auto v = ints_field(a, key, false);
    if (!v) return v.error();
    for (int64_t x : *v)
      if (x != 1) {
        return make_error(std::string(key) + " describes several CTAs: only one-CTA layouts are read",
                          a.fields.at(key).column, key);
      }
  }
  return true;
}

bool bool_field(const Attr& a, const std::string& key) {
  auto it = a.fields.find(key);
  if (it == a.fields.end()) return false;
  if (it->second.kind == Value::kIdent) return it->second.ident == "true" || it->second.ident == "True";
  return it->second.kind == Value::kInt && it->second.i != 0;
}

Result<LL> distributed_ll(const Attr& a, const std::vector<int64_t>& shape, const Aliases& aliases,
                          int depth);

Result<LL> blocked_ll(const Attr& a, const std::vector<int64_t>& shape) {
  const size_t rank = shape.size();
  auto spt = pow2_list(a, "sizePerThread", rank);
  if (!spt) return spt.error();
  auto tpw = pow2_list(a, "threadsPerWarp", rank);
  if (!tpw) return tpw.error();
  auto wpc = pow2_list(a, "warpsPerCTA", rank);
  if (!wpc) return wpc.error();
  auto order = order_field(a, "order", rank);
  if (!order) return order.error();
  if (auto ok = one_cta(a); !ok) return ok.error();
  LL cta = mul(mul(identity_nd("register", *spt, *order), identity_nd("lane", *tpw, *order)),
               identity_nd("warp", *wpc, *order));
  return combine(cta, shape);
}

// nvidiaMmaTile: kWidth registers and 4 lanes along the inner dimension, 8 lanes along the outer, then
// registers repeating m/8 times along the outer and n/(4 kWidth) times along the inner dimension.
Result<LL> mma_tile(const std::vector<int64_t>& tile, int64_t k_width, const std::vector<int64_t>& order,
                    const std::vector<int64_t>& rep_order, int column) {
  const size_t rank = rep_order.size();
  LL cta = identity_nd("register", std::vector<int64_t>(rank, 1), rep_order);
  const auto inner = static_cast<size_t>(order[0]);
  const auto outer = static_cast<size_t>(order[1]);
  const int64_t m = tile[outer];
  const int64_t n = tile[inner];
  if (m % 8 != 0 || n % (k_width * 4) != 0 || m < 8 || n < k_width * 4)
    return make_error("an MMA tile of " + std::to_string(m) + " x " + std::to_string(n) +
                          " elements is not a multiple of 8 x " + std::to_string(4 * k_width),
                      column, "instrShape");
  cta = mul(cta, identity1d(k_width, "register", dim_name(inner)));
  cta = mul(cta, identity1d(4, "lane", dim_name(inner)));
  cta = mul(cta, identity1d(8, "lane", dim_name(outer)));
  cta = mul(cta, identity1d(m / 8, "register", dim_name(outer)));
  cta = mul(cta, identity1d(n / (k_width * 4), "register", dim_name(inner)));
  return cta;
}

struct Mma {
  int64_t major = 0;
  std::vector<int64_t> warps;
  std::vector<int64_t> instr;
};

Result<Mma> mma_fields(const Attr& a, size_t rank) {
  Mma m;
  if (auto it = a.fields.find("version"); it != a.fields.end() && it->second.kind == Value::kList) {
    auto v = ints_field(a, "version");  // Gluon's version=[3, 0]
    if (!v) return v.error();
    if (v->empty()) return make_error("version must list the major version", it->second.column, "version");
    m.major = v->front();
  } else {
    auto major = int_field(a, "versionMajor");
    if (!major) return major.error();
    m.major = *major;
  }
  if (m.major != 2 && m.major != 3) {
    const int col = a.fields.count("versionMajor") ? a.fields.at("versionMajor").column : a.column;
    // Triton's register layout of #ttg.nvidia_mma (NvidiaMmaEncodingAttr::toLinearLayout) is defined for
    // versions 2 and 3 only, and its matmul pass builds no other: for sm_100 (tcgen05, "MMA v5") the
    // accumulator is a tensor-memory buffer and tmem_load hands it to registers of a linear or blocked
    // layout.
    const std::string why =
        m.major == 5
            ? " has no register layout in Triton: #ttg.nvidia_mma is defined for versions 2 (mma.sync) and 3 "
              "(wgmma) only. On sm_100 Triton keeps the tcgen05 accumulator in tensor memory "
              "(#ttng.tensor_memory_encoding) and ttng.tmem_load gives it the registers of a #ttg.linear or "
              "#ttg.blocked layout: import those"
            : " is not a version Triton prints: #ttg.nvidia_mma is defined for versions 2 (mma.sync) and 3 "
              "(wgmma) only";
    return make_error("versionMajor " + std::to_string(m.major) + why, col, "versionMajor");
  }
  auto w = pow2_list(a, "warpsPerCTA", rank);
  if (!w) return w.error();
  m.warps = *w;
  auto instr = ints_field(a, "instrShape");
  if (!instr) return instr.error();
  m.instr = *instr;
  const int col = a.fields.at("instrShape").column;
  if (m.major == 2 && m.instr.size() != rank)
    return make_error("instrShape of an MMA v2 layout has one entry per dimension", col, "instrShape");
  if (m.major == 3 && (rank != 2 || m.instr.size() != 3))
    return make_error("an MMA v3 layout is 2-D with instrShape [M, N, K]", col, "instrShape");
  for (int64_t x : m.instr)
    if (!is_pow2(x) && x % 8 != 0)
      return make_error("instrShape entries must be multiples of 8", col, "instrShape");
  if (auto ok = one_cta(a); !ok) return ok.error();
  return m;
}

std::vector<int64_t> mma_tile_shape(const Mma& m) {
  if (m.major == 2) return m.instr;
  return {m.instr[0], m.instr[1]};
}

Result<LL> nvidia_mma_ll(const Attr& a, const std::vector<int64_t>& shape) {
  const size_t rank = shape.size();
  if (rank < 2) return make_error("an MMA layout needs a tensor of rank 2 or more", a.column, "shape");
  auto m = mma_fields(a, rank);
  if (!m) return m.error();
  const auto order = matrix_order(rank, true);
  auto cta = mma_tile(mma_tile_shape(*m), 2, order, order, a.fields.at("instrShape").column);
  if (!cta) return cta.error();
  const auto warp_order = matrix_order(rank, m->major != 3);
  LL l = mul(*cta, transpose_outs(identity_nd("warp", m->warps, warp_order), cta->outs));
  return combine(l, shape);
}

Result<LL> amd_mfma_ll(const Attr& a, const std::vector<int64_t>& shape);
Result<LL> amd_wmma_ll(const Attr& a, const std::vector<int64_t>& shape);

Result<int64_t> mfma_m_dim(const Attr& a) {
  int64_t m_dim = 0;
  if (auto it = a.fields.find("instrShape"); it != a.fields.end()) {
    auto instr = ints_field(a, "instrShape");
    if (!instr) return instr.error();
    if (instr->size() < 2) return make_error("instrShape lists M, N and K", it->second.column, "instrShape");
    m_dim = (*instr)[0];
    if ((*instr)[1] != m_dim)
      return make_error("MFMA tiles of M != N are not read", it->second.column, "instrShape");
  } else {
    auto md = int_field(a, "MDim");
    if (!md) return md.error();
    m_dim = *md;
  }
  if (m_dim != 32 && m_dim != 16)
    return make_error("MFMA tiles of 32x32 and 16x16 are read, not " + std::to_string(m_dim), a.column,
                      "instrShape");
  return m_dim;
}

// The size of an output a tile's bases reach: the next power of two above their OR.
int64_t reach(const std::vector<std::vector<int64_t>>& a, const std::vector<std::vector<int64_t>>& b,
              size_t d) {
  int64_t bits = 0;
  for (const auto* list : {&a, &b})
    for (const auto& v : *list) bits |= v[d];
  int64_t size = 1;
  while (size <= bits) size *= 2;
  return size;
}

Result<int64_t> k_width_field(const Attr& a) {
  auto it = a.fields.find("kWidth");
  if (it == a.fields.end()) return int64_t{0};
  if (it->second.kind != Value::kInt)
    return make_error("kWidth must be a number", it->second.column, "kWidth");
  return it->second.i;
}

Result<LL> dot_op_ll(const Attr& a, const std::vector<int64_t>& shape, const Aliases& aliases) {
  const size_t rank = shape.size();
  auto op = int_field(a, "opIdx");
  if (!op) return op.error();
  if (*op != 0 && *op != 1)
    return make_error("opIdx must be 0 (A) or 1 (B)", a.fields.at("opIdx").column, "opIdx");
  auto parent = attr_field(a, "parent", aliases);
  if (!parent) return parent.error();
  auto k_width = k_width_field(a);
  if (!k_width) return k_width.error();
  if (rank < 2) return make_error("a dot operand needs a tensor of rank 2 or more", a.column, "shape");
  const size_t k_dim = *op == 0 ? rank - 1 : rank - 2;
  const Attr& p = **parent;
  if (p.kind == "blocked") {
    // fmaDotToLinearLayout: the parent's registers take all of K, its lanes and warps broadcast along K.
    auto spt = pow2_list(p, "sizePerThread", rank);
    if (!spt) return spt.error();
    auto tpw = pow2_list(p, "threadsPerWarp", rank);
    if (!tpw) return tpw.error();
    auto wpc = pow2_list(p, "warpsPerCTA", rank);
    if (!wpc) return wpc.error();
    auto order = order_field(p, "order", rank);
    if (!order) return order.error();
    if (!is_pow2(shape[k_dim])) return make_error("the K extent must be a power of two", a.column, "shape");
    std::vector<int64_t> thread = *spt;
    thread[k_dim] = shape[k_dim];
    const auto rep = outs_in_order(*order);
    LL cta = mul(mul(transpose_outs(identity_nd("register", thread, *order), rep),
                     transpose_outs(broadcast_dot("lane", *tpw, *order, k_dim), rep)),
                 transpose_outs(broadcast_dot("warp", *wpc, *order, k_dim), rep));
    return combine(cta, shape);
  }
  if (p.kind == "nvidia_mma") {
    auto m = mma_fields(p, rank);
    if (!m) return m.error();
    const int kcol = a.fields.count("kWidth") ? a.fields.at("kWidth").column : a.column;
    if (*k_width < 1 || *k_width > 32 || !is_pow2(*k_width))
      return make_error("kWidth must be a power of two from 1 to 32 for an MMA operand", kcol, "kWidth");
    if (m->major == 3 && *op == 1)
      return make_error("an MMA v3 (wgmma) operand B comes from shared memory: it has no register layout",
                        a.fields.at("opIdx").column, "opIdx");
    std::vector<int64_t> tile(rank, 1);
    if (*op == 0) {
      tile[rank - 2] = 16;
      tile[rank - 1] = *k_width * 8;
    } else {
      tile[rank - 2] = *k_width * 8;
      tile[rank - 1] = 8;
    }
    const auto order = dot_order(*op, rank);
    auto cta = mma_tile(tile, *k_width, order, order, kcol);
    if (!cta) return cta.error();
    const auto warp_order = matrix_order(rank, m->major != 3);
    LL l = mul(*cta, transpose_outs(broadcast_dot("warp", m->warps, warp_order, k_dim), cta->outs));
    return combine(l, shape);
  }
  if (p.kind == "amd_mfma" || p.kind == "amd_wmma") {
    const int kcol = a.fields.count("kWidth") ? a.fields.at("kWidth").column : a.column;
    if (*k_width < 1 || *k_width > 32 || !is_pow2(*k_width))
      return make_error("kWidth must be a power of two from 1 to 32", kcol, "kWidth");
    if (rank != 2) return make_error("AMD dot operands are read on 2-D tensors", a.column, "shape");
    auto w = pow2_list(p, "warpsPerCTA", rank);
    if (!w) return w.error();
    const auto order = dot_order(*op, rank);  // [k, non-k]
    const int64_t k_size = shape[k_dim];
    std::vector<std::vector<int64_t>> reg, lane;
    for (int64_t e = 1; e < *k_width; e *= 2) reg.push_back({e, 0});
    LL warps;
    if (p.kind == "amd_mfma") {
      auto m_dim = mfma_m_dim(p);
      if (!m_dim) return m_dim.error();
      int64_t k_tile = 0;
      if (*m_dim == 32) {
        lane = {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {*k_width, 0}};
        k_tile = *k_width * 2;
      } else {
        lane = {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {*k_width, 0}, {*k_width * 2, 0}};
        k_tile = *k_width * 4;
      }
      for (int64_t e = k_tile; e < k_size; e *= 2) reg.push_back({e, 0});
      warps = identity_nd("warp", *w, matrix_order(rank, true));
    } else {
      auto version = int_field(p, "version");
      if (!version) return version.error();
      lane = {{0, 1}, {0, 2}, {0, 4}, {0, 8}};
      if (*version == 1) {
        lane.push_back({0, 0});
      } else if (*version == 2) {
        lane.push_back({*k_width, 0});
      } else {
        return make_error("WMMA version " + std::to_string(*version) + " is not read (1 and 2 are)",
                          p.fields.at("version").column, "version");
      }
      warps = broadcast_dot("warp", *w, matrix_order(rank, true), k_dim);
    }
    LL tile;
    tile.outs = {dim_name(static_cast<size_t>(order[0])), dim_name(static_cast<size_t>(order[1]))};
    tile.size = {reach(reg, lane, 0), reach(reg, lane, 1)};
    tile.in("register") = reg;
    tile.in("lane") = lane;
    const auto standard = standard_outs(rank);
    std::vector<std::string> rep = standard;
    if (p.kind == "amd_wmma") rep = outs_in_order(order);
    LL cta = mul(transpose_outs(tile, rep), transpose_outs(warps, rep));
    return combine(cta, shape);
  }
  return make_error(
      "a dot operand of a " + p.kind + " layout is not read (blocked, nvidia_mma, amd_mfma, amd_wmma are)",
      a.column, "parent");
}

// An MFMA tile: the register and lane bases of one 32x32 or 16x16 instruction on (dim(order[0]),
// dim(order[1])), transposed within the warp when isTransposed; warps in row-major order.
Result<LL> amd_mfma_ll(const Attr& a, const std::vector<int64_t>& shape) {
  const size_t rank = shape.size();
  if (rank != 2) return make_error("an MFMA layout is read on 2-D tensors", a.column, "shape");
  auto w = pow2_list(a, "warpsPerCTA", rank);
  if (!w) return w.error();
  auto md = mfma_m_dim(a);
  if (!md) return md.error();
  const int64_t m_dim = *md;
  if (auto ok = one_cta(a); !ok) return ok.error();
  const bool transposed = bool_field(a, "isTransposed");
  LL tile;
  tile.outs = {"dim1", "dim0"};  // the MFMA order [1, 0]
  std::vector<std::vector<int64_t>> reg, lane;
  if (m_dim == 32) {
    reg = {{0, 1}, {0, 2}, {0, 8}, {0, 16}};
    lane = {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {16, 0}, {0, 4}};
  } else {
    reg = {{0, 1}, {0, 2}};
    lane = {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 4}, {0, 8}};
  }
  if (transposed) {
    for (auto* list : {&reg, &lane})
      for (auto& v : *list) std::swap(v[0], v[1]);
  }
  tile.size = {m_dim, m_dim};
  tile.in("register") = reg;
  tile.in("lane") = lane;
  LL cta = mul(tile, identity_nd("warp", *w, {1, 0}));
  return combine(cta, shape);
}

Result<LL> amd_wmma_ll(const Attr& a, const std::vector<int64_t>& shape) {
  const size_t rank = shape.size();
  if (rank != 2) return make_error("a WMMA layout is read on 2-D tensors", a.column, "shape");
  auto w = pow2_list(a, "warpsPerCTA", rank);
  if (!w) return w.error();
  auto version = int_field(a, "version");
  if (!version) return version.error();
  if (auto ok = one_cta(a); !ok) return ok.error();
  const auto thread_order = matrix_order(rank, !bool_field(a, "isTransposed"));
  LL tile;
  tile.outs = outs_in_order(thread_order);
  tile.size = {16, 16};
  if (*version == 1) {
    tile.in("register") = {{0, 2}, {0, 4}, {0, 8}};
    tile.in("lane") = {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 1}};
  } else if (*version == 2) {
    tile.in("register") = {{0, 1}, {0, 2}, {0, 4}};
    tile.in("lane") = {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 8}};
  } else {
    return make_error("WMMA version " + std::to_string(*version) + " is not read (1 and 2 are)",
                      a.fields.at("version").column, "version");
  }
  const auto rep = outs_in_order(matrix_order(rank, true));
  LL cta =
      mul(transpose_outs(tile, rep), transpose_outs(identity_nd("warp", *w, matrix_order(rank, true)), rep));
  return combine(cta, shape);
}

// SliceEncodingAttr: the parent on the shape with a 1 inserted at `dim`, that output dropped, and the
// register bases left all zero removed.
Result<LL> slice_ll(const Attr& a, const std::vector<int64_t>& shape, const Aliases& aliases, int depth) {
  auto dim = int_field(a, "dim");
  if (!dim) return dim.error();
  if (*dim < 0 || *dim > static_cast<int64_t>(shape.size()))
    return make_error(
        "dim " + std::to_string(*dim) + " is outside a parent of rank " + std::to_string(shape.size() + 1),
        a.fields.at("dim").column, "dim");
  auto parent = attr_field(a, "parent", aliases);
  if (!parent) return parent.error();
  std::vector<int64_t> parent_shape = shape;
  parent_shape.insert(parent_shape.begin() + static_cast<std::ptrdiff_t>(*dim), 1);
  auto p = distributed_ll(**parent, parent_shape, aliases, depth + 1);
  if (!p) return p.error();
  LL out;
  out.outs = standard_outs(shape.size());
  out.size = shape;
  const auto d = static_cast<size_t>(*dim);
  for (const auto& [name, bases] : p->ins) {
    auto& dst = out.in(name);
    for (const auto& v : bases) {
      std::vector<int64_t> w;
      for (size_t i = 0; i < v.size(); ++i)
        if (i != d) w.push_back(v[i]);
      const bool zero = std::all_of(w.begin(), w.end(), [](int64_t x) { return x == 0; });
      if (name == "register" && zero) continue;
      dst.push_back(w);
    }
  }
  return out;
}

Result<LL> linear_ll(const Attr& a, const std::vector<int64_t>& shape) {
  LL l;
  l.outs = standard_outs(shape.size());
  l.size = shape;
  for (const char* name : {"register", "lane", "warp", "block"}) {
    auto bases = bases_field(a, name, shape.size());
    if (!bases) return bases.error();
    auto& dst = l.in(name);
    for (const Basis& b : *bases) dst.push_back(b.coords);
  }
  return l;
}

Result<LL> distributed_ll(const Attr& a, const std::vector<int64_t>& shape, const Aliases& aliases,
                          int depth) {
  if (depth > 8) return make_error("layouts nested too deeply", a.column, "parent");
  if (a.kind == "blocked") return blocked_ll(a, shape);
  if (a.kind == "nvidia_mma") return nvidia_mma_ll(a, shape);
  if (a.kind == "dot_op") return dot_op_ll(a, shape, aliases);
  if (a.kind == "slice") return slice_ll(a, shape, aliases, depth);
  if (a.kind == "amd_mfma") return amd_mfma_ll(a, shape);
  if (a.kind == "amd_wmma") return amd_wmma_ll(a, shape);
  if (a.kind == "linear") return linear_ll(a, shape);
  return make_error("a " + a.kind + " layout is not a register layout", a.column, "parent");
}

Result<std::vector<HwDim>> ll_to_hw(const LL& l, const std::vector<int64_t>& shape, int column) {
  std::vector<HwDim> hw{
      {"register", "reg", {}}, {"lane", "laneid", {}}, {"warp", "warpid", {}}, {"block", "block", {}}};
  for (const auto& [name, bases] : l.ins) {
    HwDim* h = nullptr;
    for (HwDim& x : hw)
      if (x.name == name) h = &x;
    if (!h) continue;
    for (const auto& v : bases) {
      Basis b;
      b.coords = v;
      b.column = column;
      for (size_t d = 0; d < v.size(); ++d)
        if (v[d] < 0 || v[d] >= shape[d])
          return make_error("the layout reaches coordinate " + std::to_string(v[d]) + " of dimension " +
                                std::to_string(d) + " (size " + std::to_string(shape[d]) + ")",
                            column, name);
      h->bases.push_back(std::move(b));
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

// padded_shared: after every `interval` elements of the linear offset, `padding` elements are skipped. The
// linear offset's bit b (stride 2^b) then lands at 2^b + sum of padding * 2^b / interval over the intervals
// at most 2^b: still one stride per mode, on @m, so each mode is split into its bits and each bit moved.
Result<Layout> pad_offsets(const Layout& linear, const std::vector<std::pair<int64_t, int64_t>>& paddings) {
  Layout out = linear;
  out.shard.clear();
  for (const Mode& m : linear.shard) {
    if (m.stride.axis != kMemoryAxis || m.extent == 1) {
      out.shard.push_back(m);
      continue;
    }
    for (int64_t e = m.extent / 2, k = m.stride.k * (m.extent / 2); e >= 1; e /= 2, k /= 2) {
      int64_t padded = k;
      for (const auto& [interval, pad] : paddings)
        if (k >= interval) padded += pad * (k / interval);
      if (!out.shard.empty() && out.shard.back().stride.axis == kMemoryAxis &&
          out.shard.back().stride.k == 2 * padded && padded * 2 == out.shard.back().stride.k) {
        out.shard.back().extent *= 2;
        out.shard.back().stride.k = padded;
      } else {
        out.shard.push_back(Mode{2, AxisStride{padded, std::string(kMemoryAxis)}});
      }
    }
  }
  return out;
}

// ---- tensor memory -------------------------------------------------------------------------------------
//
// Triton's tensor memory layouts map TMEM (row, col) to the tensor: row is the TMEM lane, col counts slots of
// the element's width (colStride slots per element; a 32-bit TMEM column holds 32 / bits slots). Both are
// built here as Triton builds them (tensorMemoryToLinearLayout, tensorMemoryScalesToLinearLayout), with the
// lane counts of the tcgen05 data paths (tcgen05.hpp): 32-lane slabs, one per warp of a warpgroup, 16 lanes
// of a slab for the M = 64 path. Each basis is one logical bit or zero; zeros on the slab bits are copies of
// a row in every slab (the scale factors' .warpx4 copies), other zeros are TMEM left undefined.

// The element width of the first tensor< or memdesc< type in the text (f16 -> 16), or 0.
int element_bits(std::string_view text) {
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  for (std::string_view key : {"tensor<", "memdesc<"}) {
    size_t at = text.find(key);
    if (at == std::string_view::npos) continue;
    at += key.size();
    while (at < text.size() && (digit(text[at]) || text[at] == 'x')) ++at;
    size_t end = at;
    while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_'))
      ++end;
    const std::string_view t = text.substr(at, end - at);
    if (t.size() < 2) return 0;
    if (t.rfind("f8", 0) == 0 || t.rfind("f6", 0) == 0) return 8;  // f8E4M3FN, f8E5M2 (stored a byte each)
    if (t.rfind("f4", 0) == 0) return 4;
    std::string_view digits = t;
    if (digits.rfind("bf", 0) == 0)
      digits.remove_prefix(2);
    else if (digits.front() == 'f' || digits.front() == 'i')
      digits.remove_prefix(1);
    else if (digits.rfind("ui", 0) == 0)
      digits.remove_prefix(2);
    else
      return 0;
    int v = 0;
    for (char ch : digits) {
      if (!digit(ch)) return 0;
      v = v * 10 + (ch - '0');
      if (v > 64) return 0;
    }
    return v;
  }
  return 0;
}

struct TmemBit {
  std::vector<int64_t> coords;  // the logical coordinate of this hardware bit; all zero: none
  bool copy = false;            // a zero that copies the row into another slab (not undefined TMEM)
};

std::vector<int64_t> coord2(int64_t d0, int64_t d1) { return {d0, d1}; }

// Rows (TMEM lanes) and col slots of a Triton tensor memory linear layout -> the notation. A slot of
// `slot_bits` bits: a 32-bit TMEM column is 32 / slot_bits slots; slots inside a column go to @byte.
Result<Layout> tmem_bits_to_layout(const std::vector<TmemBit>& rows, const std::vector<TmemBit>& cols,
                                   int slot_bits, const std::vector<int64_t>& shape, int column) {
  const FlatBits flat(shape);
  std::vector<std::optional<AxisStride>> of_flat(static_cast<size_t>(flat.total));
  std::vector<Mode> copies;
  auto place = [&](const TmemBit& b, AxisStride hw, const std::string& field) -> Result<bool> {
    uint64_t v = 0;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (b.coords[d] < 0 || b.coords[d] >= shape[d]) return true;  // past the tensor: undefined TMEM
      v |= static_cast<uint64_t>(b.coords[d]) << flat.low[d];
    }
    if (v == 0) {
      if (b.copy) copies.push_back(Mode{2, hw});
      return true;
    }
    auto& slot = of_flat[static_cast<size_t>(lowest(v))];
    if (popcount(v) != 1 || slot)
      return make_error("two TMEM places hold one element: not a tensor memory layout", column, field);
    slot = hw;
    return true;
  };
  for (size_t i = 0; i < rows.size(); ++i)
    if (auto ok = place(rows[i], AxisStride{int64_t{1} << i, "TLane"}, "blockM"); !ok) return ok.error();
  for (size_t i = 0; i < cols.size(); ++i) {
    const int64_t bits = (int64_t{1} << i) * slot_bits;
    AxisStride hw = bits >= 32 ? AxisStride{bits / 32, "TCol"} : AxisStride{bits / 8, "byte"};
    if (bits < 32 && bits % 8 != 0) {
      if (std::all_of(cols[i].coords.begin(), cols[i].coords.end(), [](int64_t c) { return c == 0; }))
        continue;
      return make_error("elements of " + std::to_string(slot_bits) +
                            " bits share a byte of a TMEM column: not expressible in whole bytes",
                        column, "element type");
    }
    if (auto ok = place(cols[i], hw, "blockN"); !ok) return ok.error();
  }
  Layout out;
  for (size_t d = 0; d < shape.size(); ++d) {
    std::vector<Mode> modes;
    for (int j = flat.bits[d] - 1; j >= 0; --j) {
      const auto& st = of_flat[static_cast<size_t>(flat.low[d] + j)];
      if (!st) {
        return make_error("the tensor is larger than its tensor memory layout reaches (dimension " +
                              std::to_string(d) + ")",
                          column, "shape");
      }
      if (!modes.empty() && modes.back().stride.axis == st->axis && modes.back().stride.k == 2 * st->k) {
        modes.back().extent *= 2;
        modes.back().stride.k = st->k;
      } else {
        modes.push_back(Mode{2, *st});
      }
    }
    out.shard.insert(out.shard.end(), modes.begin(), modes.end());
  }
  if (out.shard.empty()) out.shard.push_back(Mode{1, AxisStride{1, "TLane"}});
  if (!copies.empty()) out.replicas.push_back(fused_replicas(std::move(copies)));
  return out;
}

// identity1D(count) appended to `bits`, continuing dimension d from cur[d].
void tmem_identity(std::vector<TmemBit>& bits, size_t d, int64_t count, std::vector<int64_t>& cur) {
  for (int64_t n = 1; n < count; n *= 2) {
    bits.push_back(TmemBit{d == 0 ? coord2(cur[0], 0) : coord2(0, cur[1]), false});
    cur[d] *= 2;
  }
}

Result<int64_t> one_cta_split(const Attr& a, const std::string& key) {
  if (!a.fields.count(key)) return int64_t{1};
  auto v = int_field(a, key);
  if (!v) return v.error();
  if (*v != 1)
    return make_error(
        key + " = " + std::to_string(*v) + ": a layout split over several CTAs is not read (one CTA)",
        a.fields.at(key).column, key);
  return *v;
}

Result<Layout> tensor_memory_layout(const Attr& a, const std::vector<int64_t>& shape, std::string_view text,
                                    std::vector<std::string>* notes) {
  for (const char* key : {"CTASplitM", "CTASplitN"})
    if (auto ok = one_cta_split(a, key); !ok) return ok.error();
  if (shape.size() != 2 || !is_pow2(shape[0]) || !is_pow2(shape[1]))
    return make_error("a tensor memory layout is read on a 2-D tensor of power-of-two extents", a.column,
                      "shape");
  const int64_t slab = kTmemSlabLanes;                                // lanes a warp reaches
  const int64_t half = tmem_access_lanes(TmemAccessShape::k16x256b);  // the M = 64 path's 16 lanes
  const int slab_bits = log2_exact(kTmemLanes) - log2_exact(slab);    // 2: four slabs
  std::vector<TmemBit> rows, cols;
  std::vector<int64_t> cur{1, 1};
  if (a.kind == "tensor_memory_scales_encoding") {
    // PTX's scale-factor layout: 32 rows in the lanes of a slab, copied to all four slabs; 4 scales of a row
    // in the bytes of one 32-bit column, the next 32 rows in the next column; then more rows, then more K.
    bool k_first = false;
    if (auto it = a.fields.find("blockRepOrder"); it != a.fields.end()) {
      if (it->second.kind != Value::kIdent ||
          (it->second.ident != "mnThenK" && it->second.ident != "kThenMn"))
        return make_error("blockRepOrder is mnThenK or kThenMn", it->second.column, "blockRepOrder");
      k_first = it->second.ident == "kThenMn";
    }
    tmem_identity(rows, 0, slab, cur);
    for (int i = 0; i < slab_bits; ++i) rows.push_back(TmemBit{coord2(0, 0), true});
    tmem_identity(cols, 1, 4, cur);  // 4 one-byte scales to a 32-bit column
    tmem_identity(cols, 0, 2, cur);
    const int64_t reps_m = std::max<int64_t>(1, shape[0] / cur[0]);
    const int64_t reps_k = std::max<int64_t>(1, shape[1] / cur[1]);
    if (k_first) {
      tmem_identity(cols, 1, reps_k, cur);
      tmem_identity(cols, 0, reps_m, cur);
    } else {
      tmem_identity(cols, 0, reps_m, cur);
      tmem_identity(cols, 1, reps_k, cur);
    }
    notes->push_back(
        "tensor memory scales: 8-bit scale factors, four to a 32-bit column (@byte), each row of 32 "
        "copied to the four 32-lane slabs (R[...@TLane])");
    return tmem_bits_to_layout(rows, cols, 8, shape, a.column);
  }
  auto block_m = int_field(a, "blockM");
  if (!block_m) return block_m.error();
  auto block_n_field = int_field(a, "blockN");
  if (!block_n_field) return block_n_field.error();
  int64_t col_stride = 1;
  if (a.fields.count("colStride")) {
    auto cs = int_field(a, "colStride");
    if (!cs) return cs.error();
    col_stride = *cs;
  }
  const bool unpacked = bool_field(a, "unpacked");
  const bool two_ctas = bool_field(a, "twoCTAs");
  const int bm_col = a.fields.at("blockM").column;
  if (*block_m != 64 && *block_m != 128)
    return make_error("blockM is 64 or 128 (the tcgen05 data paths), not " + std::to_string(*block_m), bm_col,
                      "blockM");
  if (!is_pow2(*block_n_field) || !is_pow2(col_stride) || col_stride > 32)
    return make_error("blockN and colStride are powers of two", a.column,
                      is_pow2(*block_n_field) ? "colStride" : "blockN");
  int bits = element_bits(text);
  if (unpacked && bits > 0 && bits < 32) col_stride = 32 / bits;  // older spelling: one element a column
  if (bits == 0) {
    bits = static_cast<int>(32 / col_stride);
    notes->push_back("no element type given: read as " + std::to_string(bits) + "-bit elements (colStride " +
                     std::to_string(col_stride) + " fills a 32-bit column)");
  }
  if (col_stride * bits > 32) {
    return make_error("colStride " + std::to_string(col_stride) + " x " + std::to_string(bits) +
                          "-bit elements is wider than a 32-bit TMEM column",
                      a.fields.count("colStride") ? a.fields.at("colStride").column : a.column, "colStride");
  }
  const int64_t block_n = std::min(*block_n_field, shape[1]);
  for (int64_t n = 1; n < col_stride; n *= 2) cols.push_back(TmemBit{coord2(0, 0), false});
  if (*block_m == 64 && !two_ctas) {
    // M = 64: 16 rows in the first 16 lanes of each slab; the other 16 lanes hold rows 64.. (or the next
    // blockN columns, or nothing)
    tmem_identity(rows, 0, half, cur);
    tmem_identity(cols, 1, block_n, cur);
    if (shape[0] > *block_m)
      rows.push_back(TmemBit{coord2(*block_m, 0), false});
    else if (shape[1] > block_n)
      rows.push_back(TmemBit{coord2(0, block_n), false});
    else
      rows.push_back(TmemBit{coord2(0, 0), false});
    for (int i = 0; i < slab_bits; ++i) rows.push_back(TmemBit{coord2(half << i, 0), false});
    int64_t top0 = half << slab_bits;
    if (shape[0] > *block_m) top0 = 2 * *block_m;
    cur[0] = top0;
    if (shape[0] <= *block_m && shape[1] > block_n) cur[1] = 2 * block_n;
  } else {
    tmem_identity(rows, 0, *block_m, cur);
    tmem_identity(cols, 1, block_n, cur);
    if (*block_m == 64) {  // M = 64 over a CTA pair: the last column bit becomes the 65th row
      rows.push_back(cols.back());
      cols.pop_back();
      cur[1] /= 2;
    }
  }
  if (shape[0] < cur[0] || shape[1] < cur[1])
    return make_error("a tensor memory layout of blockM = " + std::to_string(*block_m) +
                          " needs at least that many rows and blockN columns",
                      a.column, "shape");
  tmem_identity(cols, 0, shape[0] / cur[0], cur);
  tmem_identity(cols, 1, shape[1] / cur[1], cur);
  notes->push_back("tensor memory: TMEM lanes (@TLane) and 32-bit columns (@TCol) of " +
                   std::to_string(bits) + "-bit elements" +
                   (bits * col_stride < 32 ? ", packed into the bytes of a column (@byte)" : ""));
  return tmem_bits_to_layout(rows, cols, bits, shape, a.column);
}

Result<Imported> import_triton(std::string_view text, const FormatContext& context) {
  auto read = read_attr(text);
  if (!read) return read.error();
  const Attr* attr = &read->main;
  const Aliases& aliases = read->aliases;
  Imported out;
  out.from = Format::kTriton;
  auto shape = linear_shape(*attr, text, context, &out.notes);
  if (!shape) return shape.error();
  out.shape = *shape;
  if (auto ok = check_shape(*shape, attr->column); !ok) return ok.error();
  std::vector<HwDim> hw;
  std::vector<std::pair<int64_t, int64_t>> paddings;
  const std::string& kind = attr->kind;
  if (kind == "linear") {  // read directly, so errors point at the basis
    for (const auto& [name, axis] : std::vector<std::pair<std::string, std::string>>{
             {"register", "reg"}, {"lane", "laneid"}, {"warp", "warpid"}, {"block", "block"}}) {
      auto bases = bases_field(*attr, name, shape->size());
      if (!bases) return bases.error();
      hw.push_back(HwDim{name, axis, std::move(bases).value()});
    }
  } else if (kind == "shared_linear" || (kind == "padded_shared" && attr->fields.count("offset"))) {
    auto bases = bases_field(*attr, "offset", shape->size());
    if (!bases) return bases.error();
    auto block = bases_field(*attr, "block", shape->size());
    if (!block) return block.error();
    if (!block->empty())
      return make_error("block bases on a shared layout are not read (one CTA only)", block->front().column,
                        "block");
    hw.push_back(HwDim{"offset", std::string(kMemoryAxis), std::move(bases).value()});
  } else if (kind == "padded_shared") {
    // {order, shape}: the identity along order, the most minor dimension first.
    auto order = order_field(*attr, "order", shape->size());
    if (!order) return order.error();
    std::vector<Basis> bases;
    std::vector<int64_t> cur(shape->size(), 1);
    for (int64_t d : *order)
      identity(bases, shape->size(), static_cast<size_t>(d), (*shape)[static_cast<size_t>(d)], cur,
               attr->column);
    hw.push_back(HwDim{"offset", std::string(kMemoryAxis), std::move(bases)});
  } else if (kind == "swizzled_shared" || kind == "nvmma_shared") {
    auto b = swizzled_bases(*attr, *shape, &out.notes);
    if (!b) return b.error();
    hw.push_back(HwDim{"offset", std::string(kMemoryAxis), std::move(b).value()});
  } else if (kind == "tensor_memory_encoding" || kind == "tensor_memory_scales_encoding") {
    auto t = tensor_memory_layout(*attr, *shape, text, &out.notes);
    if (!t) return t.error();
    out.layout = std::move(t).value();
    return out;
  } else {
    auto ll = distributed_ll(*attr, *shape, aliases, 0);
    if (!ll) return ll.error();
    auto h = ll_to_hw(*ll, *shape, attr->column);
    if (!h) return h.error();
    hw = std::move(h).value();
  }
  if (kind == "padded_shared") {
    auto it = attr->fields.find("intervals");
    if (it == attr->fields.end())
      return make_error("missing the paddings [interval:+pad]", attr->column, "intervals");
    for (const Value& pair : it->second.list) {
      if (pair.kind != Value::kList || pair.list.size() != 2 || pair.list[0].kind != Value::kInt ||
          pair.list[1].kind != Value::kInt)
        return make_error("a padding is interval:+pad", pair.column, "intervals");
      const int64_t interval = pair.list[0].i;
      const int64_t pad = pair.list[1].i;
      if (!is_pow2(interval) || pad < 1 || pad > (1 << 20))
        return make_error("a padding interval must be a power of two and the padding positive", pair.column,
                          "intervals");
      paddings.emplace_back(interval, pad);
    }
  }
  auto layout = linear_to_layout(hw, *shape, attr->column);
  if (!layout) return layout.error();
  if (!paddings.empty()) {
    if (layout->swizzle)
      return make_error("a padded layout whose offsets XOR logical bits is not read", attr->column, "offset");
    auto padded = pad_offsets(*layout, paddings);
    if (!padded) return padded.error();
    layout = std::move(padded);
    out.notes.push_back("padding: offsets skip the given elements after every interval");
  }
  out.layout = std::move(layout).value();
  return out;
}

namespace {
Result<std::string> export_linear(const Layout& layout, const std::vector<int64_t>& shape);
}  // namespace

Result<std::string> export_triton(const Layout& layout, const std::vector<int64_t>& shape,
                                  const FormatContext&) {
  return export_linear(layout, shape);
}

Result<TritonEncoding> parse_triton_encoding(std::string_view name) {
  if (name.empty() || name == "linear") return TritonEncoding::kLinear;
  if (name == "auto") return TritonEncoding::kAuto;
  if (name == "blocked") return TritonEncoding::kBlocked;
  if (name == "swizzled_shared") return TritonEncoding::kSwizzledShared;
  if (name == "nvmma_shared") return TritonEncoding::kNvmmaShared;
  return make_error("unknown Triton encoding '" + std::string(name) +
                        "' (linear, auto, blocked, swizzled_shared, nvmma_shared)",
                    0, "encoding");
}

namespace {

// A layout of one element: no hardware bit, so any encoding of the shape writes it.
constexpr const char* kNoBits = "#ttg.linear<{register = [], lane = [], warp = [], block = []}>";

std::string int_list(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// Every split of 2^bits over `rank` dimensions as powers of two.
void pow2_splits(int bits, size_t rank, std::vector<int64_t>& cur, std::vector<std::vector<int64_t>>& out) {
  if (cur.size() + 1 == rank) {
    cur.push_back(int64_t{1} << bits);
    out.push_back(cur);
    cur.pop_back();
    return;
  }
  for (int b = 0; b <= bits; ++b) {
    cur.push_back(int64_t{1} << b);
    pow2_splits(bits - b, rank, cur, out);
    cur.pop_back();
  }
}

std::vector<std::vector<int64_t>> pow2_splits(int bits, size_t rank) {
  std::vector<std::vector<int64_t>> out;
  std::vector<int64_t> cur;
  if (rank > 0) pow2_splits(bits, rank, cur, out);
  return out;
}

std::vector<std::vector<int64_t>> orders(size_t rank) {  // most minor first; [rank-1, ..., 0] first
  std::vector<int64_t> o(rank);
  for (size_t i = 0; i < rank; ++i) o[i] = static_cast<int64_t>(rank - 1 - i);
  std::vector<std::vector<int64_t>> out;
  std::sort(o.begin(), o.end(), std::greater<>());
  do out.push_back(o);
  while (std::prev_permutation(o.begin(), o.end()));
  return out;
}

int64_t axis_extent(const Layout& l, const std::string& axis) {
  int64_t n = 1;
  for (const Mode& m : l.shard)
    if (m.stride.axis == axis) n *= m.extent;
  for (const auto& g : l.replicas)
    for (const Mode& m : g)
      if (m.stride.axis == axis) n *= m.extent;
  return n;
}

// The candidate that reads back as the layout: the same linear text.
bool same_as(const std::string& candidate, const std::vector<int64_t>& shape, const std::string& want) {
  auto back = import_triton(candidate, FormatContext{shape, {}});
  if (!back) return false;
  auto text = export_linear(back->layout, shape);
  return text && *text == want;
}

Result<std::string> blocked_encoding(const Layout& layout, const std::vector<int64_t>& shape,
                                     const std::string& linear) {
  auto refuse = [](const std::string& why, const char* writer = "#ttg.linear") {
    return make_error("not a #ttg.blocked layout: " + why + " (" + writer + " writes it)", 0, "encoding");
  };
  if (linear.rfind("#ttg.linear", 0) != 0)
    return refuse("it lives in shared memory (@m), not in registers", "#ttg.shared_linear");
  if (axis_extent(layout, "block") > 1) return refuse("it spans several CTAs (@block); one CTA is written");
  const int64_t lanes = axis_extent(layout, "laneid");
  if (lanes != 32)
    return refuse("it uses " + std::to_string(lanes) +
                  " lanes; a blocked layout spreads over all 32 of a warp");
  const int64_t warps = axis_extent(layout, "warpid");
  const int64_t regs = axis_extent(layout, "reg");
  const size_t rank = shape.size();
  // sizePerThread of at most `regs` registers (the rest repeat the CTA tile along the order)
  for (const auto& order : orders(rank))
    for (int reg_bits = 0; reg_bits <= log2_exact(regs); ++reg_bits)
      for (const auto& spt : pow2_splits(reg_bits, rank)) {
        // (sizePerThread may exceed a small shape: Triton broadcasts those registers)
        for (const auto& tpw : pow2_splits(5, rank))
          for (const auto& wpc : pow2_splits(log2_exact(warps), rank)) {
            const std::string text =
                "#ttg.blocked<{sizePerThread = " + int_list(spt) + ", threadsPerWarp = " + int_list(tpw) +
                ", warpsPerCTA = " + int_list(wpc) + ", order = " + int_list(order) + "}>";
            if (same_as(text, shape, linear)) return text;
          }
      }
  return refuse(
      "no sizePerThread, threadsPerWarp, warpsPerCTA and order give it: its registers, lanes and warps do "
      "not each run along one dimension order");
}

Result<std::string> swizzled_encoding(const std::vector<int64_t>& shape, const std::string& linear) {
  auto refuse = [](const std::string& why, const char* writer = "#ttg.shared_linear") {
    return make_error("not a #ttg.swizzled_shared layout: " + why + " (" + writer + " writes it)", 0,
                      "encoding");
  };
  if (linear.rfind("#ttg.shared_linear", 0) != 0 && linear != kNoBits)
    return refuse("it is in registers, not in shared memory (@m)", "#ttg.linear");
  int max_bits = 0;
  for (int64_t e : shape) max_bits = std::max(max_bits, log2_exact(e));
  for (const auto& order : orders(shape.size()))
    for (int v = 0; v <= max_bits; ++v)
      for (int pp = 0; pp <= max_bits; ++pp)
        for (int mp = 0; mp <= max_bits; ++mp) {
          if (mp == 0 && (v > 0 || pp > 0)) continue;  // without phases vec and perPhase change nothing
          const std::string text = "#ttg.swizzled_shared<{vec = " + std::to_string(1 << v) +
                                   ", perPhase = " + std::to_string(1 << pp) +
                                   ", maxPhase = " + std::to_string(1 << mp) +
                                   ", order = " + int_list(order) + "}>";
          if (same_as(text, shape, linear)) return text;
        }
  return refuse(
      "no vec, perPhase, maxPhase and order give it: the offsets are not a dimension order of the tensor "
      "with column groups of the row XORed by (row / perPhase) % maxPhase");
}

Result<std::string> nvmma_encoding(const std::vector<int64_t>& shape, const std::string& linear,
                                   int element_bits) {
  auto refuse = [](const std::string& why, const char* writer = "#ttg.shared_linear") {
    return make_error("not a #ttg.nvmma_shared layout: " + why + " (" + writer + " writes it)", 0,
                      "encoding");
  };
  if (linear.rfind("#ttg.shared_linear", 0) != 0 && linear != kNoBits)
    return refuse("it is in registers, not in shared memory (@m)", "#ttg.linear");
  if (element_bits != 0 && element_bits != 8 && element_bits != 16 && element_bits != 32 &&
      element_bits != 64)
    return make_error("elementBitWidth is 8, 16, 32 or 64, not " + std::to_string(element_bits), 0,
                      "element bits");
  std::vector<int> widths = element_bits ? std::vector<int>{element_bits} : std::vector<int>{16, 8, 32, 64};
  for (int bits : widths)
    for (int bytes : {0, 32, 64, 128})
      for (const char* transposed : {"false", "true"}) {
        const std::string text = "#ttg.nvmma_shared<{swizzlingByteWidth = " + std::to_string(bytes) +
                                 ", transposed = " + transposed +
                                 ", elementBitWidth = " + std::to_string(bits) + "}>";
        if (same_as(text, shape, linear)) return text;
      }
  return refuse("no swizzlingByteWidth (0, 32, 64, 128) and transposed give it for " +
                (element_bits ? std::to_string(element_bits) + "-bit" : std::string("8- to 64-bit")) +
                " elements: NVMMA's layouts are the PTX swizzle modes over rows of the tensor's last (or, "
                "transposed, first) dimension");
}

}  // namespace

Result<std::string> export_triton_encoding(const Layout& layout, const std::vector<int64_t>& shape,
                                           TritonEncoding encoding, int element_bits) {
  auto linear = export_linear(layout, shape);
  if (!linear) return linear.error();
  switch (encoding) {
    case TritonEncoding::kLinear:
      return linear;
    case TritonEncoding::kBlocked:
      return blocked_encoding(layout, shape, *linear);
    case TritonEncoding::kSwizzledShared:
      return swizzled_encoding(shape, *linear);
    case TritonEncoding::kNvmmaShared:
      return nvmma_encoding(shape, *linear, element_bits);
    case TritonEncoding::kAuto: {
      const bool shared = linear->rfind("#ttg.shared_linear", 0) == 0;
      if (!shared) {
        auto b = blocked_encoding(layout, shape, *linear);
        return b ? b : linear;
      }
      auto sw = swizzled_encoding(shape, *linear);
      if (sw) return sw;
      if (element_bits) {
        auto nv = nvmma_encoding(shape, *linear, element_bits);
        if (nv) return nv;
      }
      return linear;
    }
  }
  return linear;
}

namespace {

Result<std::string> export_linear(const Layout& layout, const std::vector<int64_t>& shape) {
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

}  // namespace

}  // namespace layoutscope
