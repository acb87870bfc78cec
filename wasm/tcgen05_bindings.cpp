// Embind adapter for Blackwell tensor memory and the UMMA descriptors (tcgen05.hpp, umma_descriptor.hpp).
// Options in as plain objects, plain objects out; descriptor words as hex strings ("0x4000404000010040": 64
// bits do not fit a JS number):
//
//   tmemAccess({ shape: "16x128b", num: 1, lane: 32, column: 8 })
//     -> { ok: true, instruction, shape: [16, 4], registers: 2, warp: 1, threads: "S[...]", tmem: "S[...]",
//          cells: Int32Array [row, col, laneid, reg, TLane, TCol, ...] }
//   scaleFactors({ kind: "mxf8f6f4", m: 128, k: 128, at: [64, 2] }) -> { ..., trace: { tlanes: [0,32,64,96] }
//   } smemDescriptor({ decode: "0x4000404000010040" }) -> { ok: true, startAddress: 1024, swizzle: "128B",
//   ... }
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "js_error.hpp"
#include "layoutscope/dtype.hpp"
#include "layoutscope/mapping.hpp"
#include "layoutscope/parse.hpp"
#include "layoutscope/tcgen05.hpp"
#include "layoutscope/umma_descriptor.hpp"

namespace layoutscope {
namespace {

using emscripten::val;

Error named(Error e, const char* field) {
  if (e.field.empty()) e.field = field;
  return e;
}

bool has(const val& o, const char* key) {
  return o.isUndefined() || o.isNull() ? false : !o[key].isUndefined() && !o[key].isNull();
}

Result<int64_t> int_field(const val& o, const char* key, int64_t fallback) {
  if (!has(o, key)) return fallback;
  const val v = o[key];
  if (!v.isNumber()) return make_error(std::string(key) + " must be an integer", 0, key, "range");
  const double d = v.as<double>();
  if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9007199254740991.0)
    return make_error(std::string(key) + " must be an integer", 0, key, "range");
  return static_cast<int64_t>(d);
}

Result<std::string> string_field(const val& o, const char* key, std::string fallback) {
  if (!has(o, key)) return fallback;
  if (!o[key].isString()) return make_error(std::string(key) + " must be a string", 0, key, "range");
  return o[key].as<std::string>();
}

bool bool_field(const val& o, const char* key) { return has(o, key) && o[key].as<bool>(); }

#define LS_TRY(var, expr) \
  auto var = (expr);      \
  if (!var) return error_value(var.error())

Result<uint64_t> parse_word(const std::string& t, const char* field, int max_digits) {
  if (t.size() < 3 || t[0] != '0' || (t[1] != 'x' && t[1] != 'X'))
    return make_error(std::string(field) + " takes a hex word such as 0x08400490", 1, field, "syntax");
  if (t.size() - 2 > static_cast<size_t>(max_digits))
    return make_error(std::string(field) + ": at most " + std::to_string(max_digits) + " hex digits",
                      max_digits + 3, field, "range");
  uint64_t v = 0;
  for (size_t i = 2; i < t.size(); ++i) {
    const char c = t[i];
    int d = -1;
    if (c >= '0' && c <= '9') d = c - '0';
    if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    if (d < 0)
      return make_error(std::string(field) + ": '" + std::string(1, c) + "' is not a hex digit",
                        static_cast<int>(i) + 1, field, "syntax");
    v = (v << 4) | static_cast<uint64_t>(d);
  }
  return v;
}

std::string hex(uint64_t v, int digits) {
  static const char* x = "0123456789abcdef";
  std::string s(static_cast<size_t>(digits), '0');
  for (int i = digits - 1; i >= 0; --i, v >>= 4) s[static_cast<size_t>(i)] = x[v & 15];
  return "0x" + s;
}

template <class Vec>
val numbers(const Vec& v) {
  val out = val::array();
  for (size_t i = 0; i < v.size(); ++i) out.set(i, static_cast<double>(v[i]));
  return out;
}

val ok() {
  val out = val::object();
  out.set("ok", true);
  return out;
}

// tmemAccess({ shape, num, store, lane, column, halfSplit, warp, allocatedColumns })
val js_tmem_access(val o) {
  LS_TRY(shape_text, string_field(o, "shape", "32x32b"));
  LS_TRY(shape, parse_tmem_access_shape(*shape_text));
  TmemAccess a;
  a.shape = *shape;
  a.store = bool_field(o, "store");
  LS_TRY(num, int_field(o, "num", 1));
  LS_TRY(lane, int_field(o, "lane", 0));
  LS_TRY(column, int_field(o, "column", 0));
  LS_TRY(split, int_field(o, "halfSplit", -1));
  LS_TRY(warp, int_field(o, "warp", -1));
  LS_TRY(alloc, int_field(o, "allocatedColumns", 0));
  a.num = *num;
  a.lane = *lane;
  a.column = *column;
  a.half_split = *split;
  a.warp = *warp;
  a.allocated_columns = *alloc;
  LS_TRY(l, tmem_access_layouts(a));
  LS_TRY(cells, tmem_access_cells(*l));
  std::vector<int32_t> flat;
  flat.reserve(cells->size() * 6);
  for (const auto& c : *cells)
    for (int64_t v : {c.row, c.col, c.laneid, c.reg, c.tlane, c.tcol})
      flat.push_back(static_cast<int32_t>(v));
  val out = ok();
  out.set("instruction", l->instruction);
  out.set("shape", numbers(l->shape));
  out.set("registers", static_cast<double>(l->registers));
  out.set("warp", static_cast<double>(l->warp));
  out.set("slab", static_cast<double>(l->slab));
  out.set("lanes", numbers(std::vector<int64_t>{l->lane_begin, l->lane_end}));
  out.set("columns", numbers(std::vector<int64_t>{l->column_begin, l->column_end}));
  out.set("threads", to_string(l->threads));
  out.set("tmem", to_string(l->tmem));
  out.set("maxNum", static_cast<double>(tmem_access_max_num(*shape)));
  val copy = val::global("Int32Array").new_(flat.size());
  copy.call<void>("set", val(emscripten::typed_memory_view(flat.size(), flat.data())));
  out.set("cells", copy);
  return out;
}

// tmemCopy({ shape, lane, column, allocatedColumns })
val js_tmem_copy(val o) {
  LS_TRY(shape_text, string_field(o, "shape", "128x256b"));
  LS_TRY(shape, parse_tmem_copy_shape(*shape_text));
  TmemCopy c;
  c.shape = *shape;
  LS_TRY(lane, int_field(o, "lane", 0));
  LS_TRY(column, int_field(o, "column", 0));
  LS_TRY(alloc, int_field(o, "allocatedColumns", 0));
  c.lane = *lane;
  c.column = *column;
  c.allocated_columns = *alloc;
  LS_TRY(l, tmem_copy_layouts(c));
  val out = ok();
  out.set("instruction", l->instruction);
  out.set("shape", numbers(l->shape));
  out.set("rowBytes", static_cast<double>(l->row_bytes));
  out.set("replicas", static_cast<double>(l->replicas));
  out.set("tmem", to_string(l->tmem));
  return out;
}

val trace_value(const ScaleFactorTrace& t, int64_t column) {
  val tr = val::object();
  tr.set("m", static_cast<double>(t.m));
  tr.set("k", static_cast<double>(t.k));
  tr.set("atom", static_cast<double>(t.atom));
  tr.set("smemByte", static_cast<double>(t.smem_byte));
  tr.set("copyRow", static_cast<double>(t.copy_row));
  tr.set("copyByte", static_cast<double>(t.copy_byte));
  tr.set("tlanes", numbers(t.tlanes));
  tr.set("tcol", static_cast<double>(t.tcol));
  tr.set("byte", static_cast<double>(t.byte));
  tr.set("byteOffset", static_cast<double>((t.tcol - column) * 4 + t.byte));
  tr.set("mma", static_cast<double>(t.mma));
  tr.set("sfId", static_cast<double>(t.sf_id));
  tr.set("mmaColumn", static_cast<double>(t.mma_column));
  return tr;
}

// scaleFactors({ kind, vec, m, k, column, at: [m, k] | null })
val js_scale_factors(val o) {
  LS_TRY(kind_text, string_field(o, "kind", "mxf8f6f4"));
  LS_TRY(kind, parse_block_scale_kind(*kind_text));
  ScaleFactorSpec s;
  s.kind = *kind;
  LS_TRY(vec, int_field(o, "vec", 32));
  LS_TRY(m, int_field(o, "m", 128));
  LS_TRY(k, int_field(o, "k", 128));
  LS_TRY(column, int_field(o, "column", 0));
  s.vec = *vec;
  s.m = *m;
  s.k = *k;
  s.column = *column;
  LS_TRY(l, scale_factor_layouts(s));
  val out = ok();
  out.set("kind", std::string(to_string(s.kind)));
  out.set("vec", static_cast<double>(s.vec));
  out.set("shape", numbers(l->shape));
  out.set("atoms", numbers(std::vector<int64_t>{l->atoms_m, l->atoms_k}));
  out.set("mmaK", static_cast<double>(l->mma_k));
  out.set("scalesPerMma", static_cast<double>(l->scales_per_mma));
  out.set("bytes", static_cast<double>(l->bytes));
  out.set("columns", static_cast<double>(l->columns));
  out.set("copy", l->copy);
  out.set("smem", to_string(l->smem));
  out.set("tmem", to_string(l->tmem));
  if (has(o, "at")) {
    const val at = o["at"];
    if (!at.isArray() || at["length"].as<unsigned>() != 2)
      return error_value(make_error("at must be [m, k]", 0, "at", "range"));
    val pair = val::object();
    pair.set("m", at[0]);
    pair.set("k", at[1]);
    LS_TRY(am, int_field(pair, "m", 0));
    LS_TRY(ak, int_field(pair, "k", 0));
    LS_TRY(t, trace_scale_factor(s, *am, *ak));
    out.set("trace", trace_value(*t, s.column));
  }
  return out;
}

val smem_value(const SmemDescriptor& d, uint64_t bits) {
  val out = ok();
  out.set("hex", hex(bits, 16));
  out.set("startAddress", static_cast<double>(d.start_address));
  out.set("leadingByteOffset", static_cast<double>(d.leading_byte_offset));
  out.set("strideByteOffset", static_cast<double>(d.stride_byte_offset));
  out.set("baseOffset", static_cast<double>(d.base_offset));
  out.set("lboMode", std::string(d.lbo_absolute ? "absolute" : "relative"));
  out.set("swizzle", std::string(to_string(d.swizzle)));
  out.set("swizzleCode", static_cast<int>(d.swizzle));
  out.set("version", static_cast<double>(d.version));
  return out;
}

Result<SmemDescriptor> smem_fields(const val& o) {
  SmemDescriptor d;
  auto start = int_field(o, "startAddress", 0);
  if (!start) return start.error();
  auto lbo = int_field(o, "leadingByteOffset", 0);
  if (!lbo) return lbo.error();
  auto sbo = int_field(o, "strideByteOffset", 0);
  if (!sbo) return sbo.error();
  auto base = int_field(o, "baseOffset", 0);
  if (!base) return base.error();
  auto sw = string_field(o, "swizzle", "none");
  if (!sw) return sw.error();
  auto mode = parse_umma_swizzle(*sw);
  if (!mode) return mode.error();
  auto lbo_mode = string_field(o, "lboMode", "relative");
  if (!lbo_mode) return lbo_mode.error();
  if (*lbo_mode != "relative" && *lbo_mode != "absolute")
    return make_error("lboMode is relative or absolute", 0, "lboMode", "range");
  d.start_address = *start;
  d.leading_byte_offset = *lbo;
  d.stride_byte_offset = *sbo;
  d.base_offset = *base;
  d.swizzle = *mode;
  d.lbo_absolute = *lbo_mode == "absolute";
  return d;
}

struct JsTile {
  Layout layout;
  std::vector<int64_t> shape;
  int bits = 16;
  Major major = Major::kK;
};
Result<JsTile> tile_fields(const val& o) {
  JsTile t;
  auto text = string_field(o, "layout", "");
  if (!text) return text.error();
  auto l = parse_layout(*text);
  if (!l) return named(l.error(), "layout");
  t.layout = *l;
  auto shape = string_field(o, "shape", "");
  if (!shape) return shape.error();
  if (shape->empty()) {
    auto d = default_shape(t.layout);
    if (!d) return d.error();
    t.shape = *d;
  } else {
    auto s = parse_shape(*shape);
    if (!s) return named(s.error(), "shape");
    t.shape = *s;
  }
  auto dtype = string_field(o, "dtype", "f16");
  if (!dtype) return dtype.error();
  auto dt = parse_dtype(*dtype);
  if (!dt) return dt.error();
  t.bits = dtype_bits(*dt);
  auto major = string_field(o, "major", "K");
  if (!major) return major.error();
  auto mj = parse_major(*major);
  if (!mj) return mj.error();
  t.major = *mj;
  return t;
}

// smemDescriptor({ decode: "0x..." }) | ({ startAddress, leadingByteOffset, strideByteOffset, baseOffset,
// lboMode, swizzle }) | ({ layout, shape, dtype, major, startAddress }): the fields and the word.
val js_smem_descriptor(val o) {
  if (has(o, "decode")) {
    LS_TRY(text, string_field(o, "decode", ""));
    LS_TRY(bits, parse_word(*text, "decode", 16));
    LS_TRY(d, decode_smem_descriptor(*bits));
    return smem_value(*d, *bits);
  }
  SmemDescriptor d;
  if (has(o, "layout")) {
    LS_TRY(t, tile_fields(o));
    LS_TRY(start, int_field(o, "startAddress", 0));
    LS_TRY(inf, infer_smem_descriptor(t->layout, t->shape, t->major, t->bits, *start));
    d = inf->descriptor;
    LS_TRY(bits, encode_smem_descriptor(d));
    val out = smem_value(d, *bits);
    val unused = val::array();
    for (size_t i = 0; i < inf->unused.size(); ++i) unused.set(i, inf->unused[i]);
    out.set("unused", unused);
    return out;
  }
  LS_TRY(f, smem_fields(o));
  LS_TRY(bits, encode_smem_descriptor(*f));
  return smem_value(*f, *bits);
}

// smemDescriptorCheck("0x...", { layout, shape, dtype, major }): whether the word describes the tile.
val js_smem_descriptor_check(std::string word, val o) {
  LS_TRY(bits, parse_word(word, "descriptor", 16));
  LS_TRY(d, decode_smem_descriptor(*bits));
  LS_TRY(t, tile_fields(o));
  LS_TRY(m, match_smem_descriptor(*d, t->layout, t->shape, t->major, t->bits));
  val out = ok();
  out.set("matches", m->matches);
  val diffs = val::array();
  for (size_t i = 0; i < m->differences.size(); ++i) {
    val f = val::object();
    f.set("field", m->differences[i].field);
    f.set("descriptor", static_cast<double>(m->differences[i].descriptor));
    f.set("layout", static_cast<double>(m->differences[i].layout));
    diffs.set(i, f);
  }
  out.set("differences", diffs);
  out.set("descriptor", smem_value(*d, *bits));
  return out;
}

val instr_value(const InstrDescriptor& d, uint32_t bits) {
  val out = ok();
  out.set("hex", hex(bits, 8));
  out.set("kind", std::string(to_string(d.kind)));
  out.set("aType", d.a_type);
  out.set("bType", d.b_type);
  out.set("dType", d.d_type);
  out.set("m", static_cast<double>(d.m));
  out.set("n", static_cast<double>(d.n));
  out.set("aMajor", std::string(d.a_mn_major ? "MN" : "K"));
  out.set("bMajor", std::string(d.b_mn_major ? "MN" : "K"));
  out.set("negateA", d.negate_a);
  out.set("negateB", d.negate_b);
  out.set("saturate", d.saturate);
  out.set("sparse", d.sparse);
  out.set("sparseSelector", static_cast<double>(d.sparse_selector));
  out.set("maxShift", static_cast<double>(d.max_shift));
  out.set("blockScaled", is_block_scaled(d.kind));
  out.set("scaleType", d.scale_type);
  out.set("sfaId", static_cast<double>(d.sfa_id));
  out.set("sfbId", static_cast<double>(d.sfb_id));
  out.set("kSize", static_cast<double>(d.k_size));
  return out;
}

// instrDescriptor({ kind, decode: "0x..." }) | ({ kind, aType, bType, dType, m, n, aMajor, bMajor, negateA,
// negateB, saturate, sparse, sparseSelector, maxShift, scaleType, sfaId, sfbId, kSize })
val js_instr_descriptor(val o) {
  LS_TRY(kind_text, string_field(o, "kind", "f16"));
  LS_TRY(kind, parse_mma_kind(*kind_text));
  if (has(o, "decode")) {
    LS_TRY(text, string_field(o, "decode", ""));
    LS_TRY(bits, parse_word(*text, "decode", 8));
    LS_TRY(d, decode_instr_descriptor(static_cast<uint32_t>(*bits), *kind));
    return instr_value(*d, static_cast<uint32_t>(*bits));
  }
  InstrDescriptor d;
  d.kind = *kind;
  const bool bs = is_block_scaled(*kind);
  const std::string ab = *kind == MmaKind::kMxf8f6f4 ? "e4m3" : bs ? "e2m1" : "f16";
  LS_TRY(a, string_field(o, "aType", ab));
  LS_TRY(b, string_field(o, "bType", *a));
  LS_TRY(dt, string_field(o, "dType", *kind == MmaKind::kI8 ? "s32" : "f32"));
  LS_TRY(m, int_field(o, "m", 128));
  LS_TRY(n, int_field(o, "n", 128));
  LS_TRY(am, string_field(o, "aMajor", "K"));
  LS_TRY(bm, string_field(o, "bMajor", "K"));
  LS_TRY(amj, parse_major(*am));
  LS_TRY(bmj, parse_major(*bm));
  LS_TRY(sel, int_field(o, "sparseSelector", 0));
  LS_TRY(shift, int_field(o, "maxShift", 0));
  LS_TRY(scale, string_field(o, "scaleType", "ue8m0"));
  LS_TRY(sfa, int_field(o, "sfaId", 0));
  LS_TRY(sfb, int_field(o, "sfbId", 0));
  LS_TRY(ks, int_field(o, "kSize", 0));
  d.a_type = *a;
  d.b_type = *b;
  d.d_type = *dt;
  d.m = *m;
  d.n = *n;
  d.a_mn_major = *amj == Major::kMN;
  d.b_mn_major = *bmj == Major::kMN;
  d.negate_a = bool_field(o, "negateA");
  d.negate_b = bool_field(o, "negateB");
  d.saturate = bool_field(o, "saturate");
  d.sparse = bool_field(o, "sparse");
  d.sparse_selector = *sel;
  d.max_shift = *shift;
  d.scale_type = *scale;
  d.sfa_id = *sfa;
  d.sfb_id = *sfb;
  d.k_size = *ks;
  LS_TRY(bits, encode_instr_descriptor(d));
  return instr_value(d, *bits);
}

#undef LS_TRY

}  // namespace
}  // namespace layoutscope

EMSCRIPTEN_BINDINGS(layoutscope_tcgen05) {
  using namespace layoutscope;
  emscripten::function("tmemAccess", &js_tmem_access);
  emscripten::function("tmemCopy", &js_tmem_copy);
  emscripten::function("scaleFactors", &js_scale_factors);
  emscripten::function("smemDescriptor", &js_smem_descriptor);
  emscripten::function("smemDescriptorCheck", &js_smem_descriptor_check);
  emscripten::function("instrDescriptor", &js_instr_descriptor);
}
