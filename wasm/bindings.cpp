// Embind adapter: the engine (shared/) seen from JavaScript.
//
// Every export takes plain values (layout text, arrays of numbers) and returns a plain JS object; nothing
// returned is a handle the page must free. Failures are values too (Embind turns C++ exceptions into bare
// numbers):
//
//   forwardIndex("S[(8,4,2):(4@laneid,1@laneid,1@reg)]", [8, 8], 43)
//     -> { ok: true, index: 43, coord: [5, 3], split: [5, 1, 1], positions: [[21, 1]], axes: [...], ... }
//   parseLayout("S[(8,4):(4,1]")
//     -> { ok: false, error: { message: "expected ')' ...", column: 13, field: "", code: "syntax" } }
//
// Integers are exact both ways. Out: JS numbers, and a result holding a value beyond 2^53 - 1 is refused
// with code "precision" (never shown rounded). In: a safe-integer number, a BigInt or a decimal string, so
// a value can be named exactly even where a number cannot. The hand-written declarations are in
// layoutscope.d.ts; tests/wasm checks that every declared export exists.
#include <emscripten/bind.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "js_error.hpp"
#include "layoutscope/canonical.hpp"
#include "layoutscope/compiled_layout.hpp"
#include "layoutscope/dtype.hpp"
#include "layoutscope/layout.hpp"
#include "layoutscope/mapping.hpp"
#include "layoutscope/memory_access.hpp"
#include "layoutscope/parse.hpp"
#include "layoutscope/validate.hpp"

namespace layoutscope {
namespace {

using emscripten::val;

// ---- JS -> C++ -----------------------------------------------------------------------------------------

constexpr int64_t kMaxSafe = (int64_t{1} << 53) - 1;  // Number.MAX_SAFE_INTEGER

// One integer from JS: a number that is a safe integer (a larger number may already be a rounding of another
// value), a BigInt, or a decimal string; a BigInt or string must fit in 64 bits.
Result<int64_t> int_from(const val& v, const std::string& field) {
  std::string text;
  if (v.isNumber()) {
    const double d = v.as<double>();
    if (!std::isfinite(d) || d != std::floor(d))
      return make_error(field + " must be an integer", 0, field, "range");
    if (std::fabs(d) > static_cast<double>(kMaxSafe)) {
      return make_error(field +
                            " is beyond 2^53 - 1, where a JS number is not exact: pass it as a BigInt or a "
                            "decimal string",
                        0, field, "precision");
    }
    return static_cast<int64_t>(d);
  }
  if (v.typeOf().as<std::string>() == "bigint") {
    text = v.call<std::string>("toString");
  } else if (v.isString()) {
    text = v.as<std::string>();
  } else {
    return make_error(field + " must be a number, a BigInt or a decimal string", 0, field, "syntax");
  }
  const bool negative = !text.empty() && text[0] == '-';
  const size_t start = negative ? 1 : 0;
  if (text.size() == start) return make_error(field + ": expected a decimal integer", 1, field, "syntax");
  int64_t out = 0;
  for (size_t i = start; i < text.size(); ++i) {
    const char c = text[i];
    if (c < '0' || c > '9') {
      return make_error(field + ": expected a decimal integer, found '" + std::string(1, c) + "'",
                        static_cast<int>(i) + 1, field, "syntax");
    }
    if (__builtin_mul_overflow(out, 10, &out) || (negative ? __builtin_sub_overflow(out, c - '0', &out)
                                                           : __builtin_add_overflow(out, c - '0', &out))) {
      return make_error(field + " does not fit in 64 bits", 1, field, "overflow");
    }
  }
  return out;
}

// An array of integers from JS (each as int_from takes it); a bad entry is an error naming the field.
Result<std::vector<int64_t>> int_array(const val& array, const char* field) {
  if (!array.isArray())
    return make_error(std::string(field) + " must be an array of integers", 0, field, "syntax");
  const unsigned n = array["length"].as<unsigned>();
  std::vector<int64_t> out;
  out.reserve(n);
  for (unsigned i = 0; i < n; ++i) {
    auto v = int_from(array[i], field);
    if (!v) return v.error();
    out.push_back(*v);
  }
  return out;
}

Result<int64_t> int_value(double d, const char* field) { return int_from(val(d), field); }

// ---- C++ -> JS -----------------------------------------------------------------------------------------

val ok_object() {
  val out = val::object();
  out.set("ok", true);
  return out;
}

// Integers go out as JS numbers, exact by construction: a result holding a value beyond 2^53 - 1 is refused
// as a whole (code "precision", naming the field) instead of being shown rounded. Build the result through
// one Exact, then return exact.finish(result).
class Exact {
 public:
  val num(int64_t v, const char* field) {
    if ((v > kMaxSafe || v < -kMaxSafe) && !error_) {
      error_ = make_error(std::string(field) + " holds " + std::to_string(v) +
                              ", beyond 2^53 - 1: a JS number cannot hold it exactly (the CLI prints exact "
                              "64-bit values)",
                          0, field, "precision");
    }
    return val(static_cast<double>(v));
  }
  template <class Vec>
  val nums(const Vec& v, const char* field) {
    val out = val::array();
    for (size_t i = 0; i < v.size(); ++i) out.set(i, num(static_cast<int64_t>(v[i]), field));
    return out;
  }
  val finish(const val& out) const { return error_ ? error_value(*error_) : out; }

 private:
  std::optional<Error> error_;
};

val string_array(const std::vector<std::string>& v) {
  val out = val::array();
  for (size_t i = 0; i < v.size(); ++i) out.set(i, v[i]);
  return out;
}

val stride_value(Exact& exact, const AxisStride& s) {
  val out = val::object();
  out.set("k", exact.num(s.k, "offset"));
  out.set("axis", s.axis);
  return out;
}

val modes_value(Exact& exact, const std::vector<Mode>& modes) {
  val out = val::array();
  for (size_t i = 0; i < modes.size(); ++i) {
    val m = val::object();
    m.set("extent", exact.num(modes[i].extent, "extent"));
    m.set("k", exact.num(modes[i].stride.k, "stride"));
    m.set("axis", modes[i].stride.axis);
    m.set("text", to_string(modes[i].stride));
    out.set(i, m);
  }
  return out;
}

val groups_value(Exact& exact, const std::vector<std::vector<Mode>>& groups) {
  val out = val::array();
  for (size_t i = 0; i < groups.size(); ++i) out.set(i, modes_value(exact, groups[i]));
  return out;
}

val swizzle_value(const Swizzle& s) {
  val out = val::object();
  out.set("bits", s.bits);
  out.set("base", s.base);
  out.set("shift", s.shift);
  out.set("inner", s.inner);
  out.set("text", to_string(s));
  return out;
}

val terms_value(Exact& exact, const std::vector<Term>& terms, const char* field) {
  val out = val::array();
  for (size_t i = 0; i < terms.size(); ++i) {
    val t = val::object();
    t.set("digit", exact.num(terms[i].digit, field));
    t.set("k", exact.num(terms[i].stride.k, field));
    t.set("axis", terms[i].stride.axis);
    out.set(i, t);
  }
  return out;
}

// A JS Float64Array copy of int64 values; the caller proved them exact (every value lies in [min, max]).
val float64_array(const std::vector<int64_t>& v) {
  std::vector<double> d(v.begin(), v.end());
  val view(emscripten::typed_memory_view(d.size(), d.data()));
  return view.call<val>("slice");  // copy out before `d` dies
}

Result<std::vector<int64_t>> shape_for(const Layout& layout, const val& shape) {
  if (shape.isUndefined() || shape.isNull()) return default_shape(layout);
  if (shape.isString()) return parse_shape(shape.as<std::string>());
  return int_array(shape, "shape");
}

struct Parsed {
  Layout layout;
  std::vector<int64_t> shape;
};

Result<Parsed> parse_both(const std::string& text, const val& shape) {
  auto layout = parse_layout(text);
  if (!layout) return layout.error();
  auto s = shape_for(*layout, shape);
  if (!s) return s.error();
  return Parsed{std::move(layout).value(), std::move(s).value()};
}

// ---- exports -------------------------------------------------------------------------------------------

val js_parse_layout(std::string text) {
  auto layout = parse_layout(text);
  if (!layout) return error_value(layout.error());
  auto size = layout_size(*layout);
  if (!size) return error_value(size.error());
  auto count = replica_count(*layout);
  if (!count) return error_value(count.error());
  auto partials = partial_count(*layout);
  if (!partials) return error_value(partials.error());
  Exact exact;
  val out = ok_object();
  out.set("text", to_string(*layout));
  out.set("canonical", to_string(canonicalize(*layout)));
  out.set("axes", string_array(layout_axes(*layout)));
  out.set("shard", modes_value(exact, layout->shard));
  out.set("replicas", groups_value(exact, layout->replicas));
  out.set("partials", groups_value(exact, layout->partials));
  val offs = val::array();
  for (size_t i = 0; i < layout->offset.size(); ++i) offs.set(i, stride_value(exact, layout->offset[i]));
  out.set("offset", offs);
  out.set("swizzle", layout->swizzle ? swizzle_value(*layout->swizzle) : val::null());
  out.set("size", exact.num(*size, "size"));
  out.set("replicaCount", exact.num(*count, "replicaCount"));
  out.set("partialCount", exact.num(layout->partials.empty() ? 0 : *partials, "partialCount"));
  out.set("defaultShape", exact.nums(std::vector<int64_t>{*size}, "defaultShape"));
  return exact.finish(out);
}

val js_parse_shape(std::string text) {
  auto shape = parse_shape(text);
  if (!shape) return error_value(shape.error());
  Exact exact;
  val out = ok_object();
  out.set("shape", exact.nums(*shape, "shape"));
  return exact.finish(out);
}

val js_canonicalize(std::string text) {
  auto layout = parse_layout(text);
  if (!layout) return error_value(layout.error());
  val out = ok_object();
  out.set("text", to_string(canonicalize(*layout)));
  return out;
}

val mapping_value(const Layout& layout, const Mapping& m) {
  Exact exact;
  val out = ok_object();
  out.set("axes", string_array(layout_axes(layout)));
  out.set("index", exact.num(m.index, "index"));
  out.set("coord", exact.nums(m.coord, "coord"));
  out.set("split", exact.nums(m.split, "split"));
  out.set("terms", terms_value(exact, m.terms, "terms"));
  out.set("replicas", exact.num(m.replicas, "replicas"));
  out.set("partials", exact.num(m.partials, "partials"));
  val steps = val::array();
  for (size_t i = 0; i < m.replica_steps.size(); ++i) {
    const ReplicaStep& r = m.replica_steps[i];
    val s = val::object();
    s.set("replica", exact.num(r.replica, "replicaSteps"));
    s.set("partial", exact.num(r.partial, "replicaSteps"));
    s.set("digits", exact.nums(r.digits, "replicaSteps"));
    s.set("terms", terms_value(exact, r.terms, "replicaSteps"));
    s.set("position", exact.nums(r.position.values, "replicaSteps"));
    s.set("mBeforeSwizzle", exact.num(r.m_before_swizzle, "replicaSteps"));
    s.set("mAfterSwizzle", exact.num(r.m_after_swizzle, "replicaSteps"));
    steps.set(i, s);
  }
  out.set("replicaSteps", steps);
  val positions = val::array();
  for (size_t i = 0; i < m.positions.size(); ++i)
    positions.set(i, exact.nums(m.positions[i].values, "positions"));
  out.set("positions", positions);
  out.set("derivation", m.derivation);
  return exact.finish(out);
}

val js_forward_index(std::string text, val shape, val index) {
  auto p = parse_both(text, shape);
  if (!p) return error_value(p.error());
  auto x = int_from(index, "index");
  if (!x) return error_value(x.error());
  auto m = forward_index(p->layout, p->shape, *x);
  if (!m) return error_value(m.error());
  return mapping_value(p->layout, *m);
}

val js_forward_coord(std::string text, val shape, val coord) {
  auto p = parse_both(text, shape);
  if (!p) return error_value(p.error());
  auto c = int_array(coord, "coord");
  if (!c) return error_value(c.error());
  auto m = forward_coord(p->layout, p->shape, *c);
  if (!m) return error_value(m.error());
  return mapping_value(p->layout, *m);
}

// query: { axisName: value, ... } with numbers, BigInts or decimal strings; axes left out match anything.
val js_inverse(std::string text, val shape, val query, double cell_limit) {
  auto p = parse_both(text, shape);
  if (!p) return error_value(p.error());
  std::vector<AxisValue> q;
  if (!query.isUndefined() && !query.isNull()) {
    const val keys = val::global("Object").call<val>("keys", query);
    const unsigned n = keys["length"].as<unsigned>();
    for (unsigned i = 0; i < n; ++i) {
      const std::string axis = keys[i].as<std::string>();
      auto iv = int_from(query[axis], axis);
      if (!iv) return error_value(iv.error());
      q.push_back(AxisValue{axis, *iv});
    }
  }
  auto limit = int_value(cell_limit, "cellLimit");
  if (!limit) return error_value(limit.error());
  auto hits = inverse(p->layout, p->shape, q, *limit > 0 ? *limit : kDefaultCellLimit);
  if (!hits) return error_value(hits.error());
  Exact exact;
  val out = ok_object();
  out.set("axes", string_array(layout_axes(p->layout)));
  val arr = val::array();
  for (size_t i = 0; i < hits->size(); ++i) {
    const InverseHit& h = (*hits)[i];
    val o = val::object();
    o.set("index", exact.num(h.index, "index"));
    o.set("coord", exact.nums(h.coord, "coord"));
    o.set("replica", exact.num(h.replica, "replica"));
    o.set("partial", exact.num(h.partial, "partial"));
    o.set("position", exact.nums(h.position.values, "position"));
    arr.set(i, o);
  }
  out.set("hits", arr);
  return exact.finish(out);
}

val js_table(std::string text, val shape, double cell_limit) {
  auto p = parse_both(text, shape);
  if (!p) return error_value(p.error());
  auto limit = int_value(cell_limit, "cellLimit");
  if (!limit) return error_value(limit.error());
  auto t = table(p->layout, p->shape, *limit > 0 ? *limit : kDefaultCellLimit);
  if (!t) return error_value(t.error());
  Exact exact;
  val out = ok_object();
  out.set("axes", string_array(t->axes));
  out.set("shape", exact.nums(t->shape, "shape"));
  out.set("elements", exact.num(t->elements, "elements"));
  out.set("replicas", exact.num(t->replicas, "replicas"));
  out.set("partials", exact.num(t->partials, "partials"));
  out.set("min", exact.nums(t->min, "values"));  // every value lies in [min, max]: these two decide
  out.set("max", exact.nums(t->max, "values"));
  out.set("values", float64_array(t->values));
  return exact.finish(out);
}

val js_validate(std::string text, val shape, double cell_limit) {
  auto p = parse_both(text, shape);
  if (!p) return error_value(p.error());
  auto limit = int_value(cell_limit, "cellLimit");
  if (!limit) return error_value(limit.error());
  auto findings = validate(p->layout, p->shape, *limit > 0 ? *limit : kDefaultCellLimit);
  if (!findings) return error_value(findings.error());
  Exact exact;
  val out = ok_object();
  out.set("shape", exact.nums(p->shape, "shape"));
  val arr = val::array();
  for (size_t i = 0; i < findings->size(); ++i) {
    const Finding& f = (*findings)[i];
    val o = val::object();
    o.set("severity", std::string(to_string(f.severity)));
    o.set("code", f.code);
    o.set("message", f.message);
    o.set("where", f.where);
    arr.set(i, o);
  }
  out.set("findings", arr);
  return exact.finish(out);
}

val js_hardware_axes() {
  val arr = val::array();
  const auto& axes = hardware_axes();
  for (size_t i = 0; i < axes.size(); ++i) {
    val o = val::object();
    o.set("name", std::string(axes[i].name));
    o.set("limit", static_cast<double>(axes[i].limit));
    o.set("meaning", std::string(axes[i].meaning));
    arr.set(i, o);
  }
  return arr;
}

val js_bank_access(val addrs, int width, val model) {
  auto a = int_array(addrs, "addrs");
  if (!a) return error_value(a.error());
  BankModel bm;
  if (!model.isUndefined() && !model.isNull()) {
    if (model["banks"].isNumber()) bm.banks = model["banks"].as<int>();
    if (model["wordBytes"].isNumber()) bm.word_bytes = model["wordBytes"].as<int>();
    if (model["wavefrontBytes"].isNumber()) bm.wavefront_bytes = model["wavefrontBytes"].as<int>();
  }
  auto r = bank_access(*a, width, bm);
  if (!r) return error_value(r.error());
  Exact exact;
  val out = ok_object();
  out.set("lanesPerGroup", r->lanes_per_group);
  out.set("groups", r->groups);
  out.set("cycles", r->cycles);
  out.set("maxWays", r->max_ways);
  out.set("groupCycles", exact.nums(r->group_cycles, "groupCycles"));
  out.set("laneBank", exact.nums(r->lane_bank, "laneBank"));
  out.set("laneCycle", exact.nums(r->lane_cycle, "laneCycle"));
  return exact.finish(out);
}

val js_sector_access(val addrs, int width) {
  auto a = int_array(addrs, "addrs");
  if (!a) return error_value(a.error());
  auto r = sector_access(*a, width);
  if (!r) return error_value(r.error());
  Exact exact;
  val out = ok_object();
  out.set("sectors", exact.num(r->sectors, "sectors"));
  out.set("bytes", exact.num(r->bytes, "bytes"));
  out.set("efficiency", r->efficiency);
  out.set("laneSector", exact.nums(r->lane_sector, "laneSector"));
  return exact.finish(out);
}

val js_lane_addresses(std::string text, val shape, val indices, int elem_bytes) {
  auto p = parse_both(text, shape);
  if (!p) return error_value(p.error());
  auto idx = int_array(indices, "indices");
  if (!idx) return error_value(idx.error());
  auto r = lane_addresses(p->layout, p->shape, *idx, elem_bytes);
  if (!r) return error_value(r.error());
  Exact exact;
  val out = ok_object();
  out.set("addrs", exact.nums(*r, "addrs"));
  return exact.finish(out);
}

// Bytes of one element of a dtype (the engine's table; its names and aliases).
val js_dtype_bytes(std::string name) {
  auto dtype = parse_dtype(name);
  if (!dtype) return error_value(dtype.error());
  val out = ok_object();
  out.set("dtype", std::string(to_string(*dtype)));
  out.set("bytes", dtype_bytes(*dtype));
  return out;
}

val js_swizzle_atom(std::string mode_name, std::string dtype_name) {
  auto mode = parse_swizzle_mode(mode_name);
  if (!mode) return error_value(mode.error());
  auto dtype = parse_dtype(dtype_name);
  if (!dtype) return error_value(dtype.error());
  auto atom = swizzle_atom(*mode, *dtype);
  if (!atom) return error_value(atom.error());
  val out = ok_object();
  out.set("mode", std::string(to_string(atom->mode)));
  out.set("shortName", std::string(short_name(atom->mode)));
  out.set("dtype", std::string(to_string(*dtype)));
  out.set("dtypeBytes", dtype_bytes(*dtype));
  out.set("bytes", swizzle_value(atom->bytes));
  out.set("elements", swizzle_value(atom->elements));
  out.set("rowBytes", atom->row_bytes);
  out.set("rows", atom->rows);
  out.set("elementsPerRow", atom->elements_per_row);
  return out;
}

// One Swizzle<B,M,S> applied to offsets, and its inverse (unapply_swizzle): the page asks here instead of
// doing the XOR itself. A negative shift is CuTe's Swizzle<B,M,-S> (inner must then be true: the sign already
// picks the direction). The parameters pass the parser's own check (check_swizzle).
val js_apply_swizzle(val bits, val base, val shift, bool inner, val offsets) {
  auto b = int_from(bits, "bits");
  if (!b) return error_value(b.error());
  auto m = int_from(base, "base");
  if (!m) return error_value(m.error());
  auto sh = int_from(shift, "shift");
  if (!sh) return error_value(sh.error());
  if (*sh < 0 && !inner) {
    return error_value(
        make_error("a negative shift already means the outer direction (CuTe's Swizzle<B,M,-S>); "
                   "pass inner = true with it",
                   0, "shift", "range"));
  }
  // Clamped before the sign is dropped (no -INT64_MIN); anything past 62 is refused by check_swizzle anyway.
  const auto small = [](int64_t v) { return static_cast<int>(std::clamp<int64_t>(v, -1000, 1000)); };
  const int signed_shift = small(*sh);
  const Swizzle s{small(*b), small(*m), signed_shift < 0 ? -signed_shift : signed_shift,
                  inner && signed_shift >= 0, SwizzleSpelling::kCute};
  if (auto e = check_swizzle(s)) return error_value(*e);
  auto o = int_array(offsets, "offsets");
  if (!o) return error_value(o.error());
  std::vector<int64_t> out(o->size()), inverse(o->size());
  for (size_t i = 0; i < o->size(); ++i) {
    out[i] = apply_swizzle(s, (*o)[i]);
    inverse[i] = unapply_swizzle(s, (*o)[i]);
  }
  Exact exact;
  val res = ok_object();
  res.set("offsets", exact.nums(out, "offsets"));
  res.set("inverse", exact.nums(inverse, "inverse"));
  return exact.finish(res);
}

// The benchmarked hot path: CompiledLayout::checksum_all `passes` times, the same workload as
// bench/forward_bench.cpp natively; the checksum keeps the work from being optimised away.
val js_map_throughput(std::string text, double passes_d) {
  auto layout = parse_layout(text);
  if (!layout) return error_value(layout.error());
  auto compiled = CompiledLayout::compile(*layout);
  if (!compiled) return error_value(compiled.error());
  auto passes = int_value(passes_d, "passes");
  if (!passes) return error_value(passes.error());
  const CompiledLayout& c = *compiled;
  uint64_t checksum = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int64_t p = 0; p < *passes; ++p) checksum += c.checksum_all();  // the native benchmark's workload
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  val out = ok_object();
  out.set("mappings", static_cast<double>(*passes) * static_cast<double>(c.size()) *
                          static_cast<double>(c.holders()));  // a rate's numerator, not an exact count
  out.set("seconds", seconds);
  out.set("checksum", static_cast<double>(checksum & 0xFFFFFFFFu));
  return out;
}

// Linear-memory size and bytes held by malloc, for the leak test.
val js_memory_stats() {
  val out = val::object();
  out.set("heapBytes", static_cast<double>(__builtin_wasm_memory_size(0)) * 65536.0);
  out.set("allocatedBytes", static_cast<double>(mallinfo().uordblks));
  return out;
}

std::string js_version() { return "0.1.0"; }

}  // namespace
}  // namespace layoutscope

EMSCRIPTEN_BINDINGS(layoutscope) {
  using namespace layoutscope;
  emscripten::function("version", &js_version);
  emscripten::function("parseLayout", &js_parse_layout);
  emscripten::function("parseShape", &js_parse_shape);
  emscripten::function("canonicalize", &js_canonicalize);
  emscripten::function("forwardIndex", &js_forward_index);
  emscripten::function("forwardCoord", &js_forward_coord);
  emscripten::function("inverse", &js_inverse);
  emscripten::function("table", &js_table);
  emscripten::function("validate", &js_validate);
  emscripten::function("hardwareAxes", &js_hardware_axes);
  emscripten::function("bankAccess", &js_bank_access);
  emscripten::function("sectorAccess", &js_sector_access);
  emscripten::function("laneAddresses", &js_lane_addresses);
  emscripten::function("swizzleAtom", &js_swizzle_atom);
  emscripten::function("dtypeBytes", &js_dtype_bytes);
  emscripten::function("applySwizzle", &js_apply_swizzle);
  emscripten::function("mapThroughput", &js_map_throughput);
  emscripten::function("memoryStats", &js_memory_stats);
}
