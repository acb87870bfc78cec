// Embind adapter: the engine (shared/) seen from JavaScript.
//
// Every export takes plain values (layout text, arrays of numbers) and returns a plain JS object; nothing
// returned is a handle the page must free. Failures are values too (Embind turns C++ exceptions into bare
// numbers):
//
//   forwardIndex("S[(8,4,2):(4@laneid,1@laneid,1@reg)]", [8, 8], 43)
//     -> { ok: true, index: 43, coord: [5, 3], split: [5, 1, 1], positions: [[21, 1]], axes: [...], ... }
//   parseLayout("S[(8,4):(4,1]")
//     -> { ok: false, error: { message: "expected ')'", column: 12, field: "" } }
//
// Integers cross the boundary as JS numbers (doubles): exact up to 2^53, far beyond any cell limit. The
// hand-written declarations are in layoutscope.d.ts; tests/wasm checks that every declared export exists.
#include <emscripten/bind.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "layoutscope/canonical.hpp"
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

// An array of integers from JS; a non-integer or non-finite entry is an error naming the field.
Result<std::vector<int64_t>> int_array(const val& array, const char* field) {
  if (!array.isArray()) return make_error(std::string(field) + " must be an array of integers", 0, field);
  const unsigned n = array["length"].as<unsigned>();
  std::vector<int64_t> out;
  out.reserve(n);
  for (unsigned i = 0; i < n; ++i) {
    const val item = array[i];
    if (!item.isNumber()) return make_error(std::string(field) + " must hold numbers", 0, field);
    const double d = item.as<double>();
    if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9007199254740991.0)
      return make_error(std::string(field) + " must hold integers", 0, field);
    out.push_back(static_cast<int64_t>(d));
  }
  return out;
}

Result<int64_t> int_value(double d, const char* field) {
  if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9007199254740991.0)
    return make_error(std::string(field) + " must be an integer", 0, field);
  return static_cast<int64_t>(d);
}

// ---- C++ -> JS -----------------------------------------------------------------------------------------

val error_value(const Error& e) {
  val err = val::object();
  err.set("message", e.message);
  err.set("column", e.column);
  err.set("field", e.field);
  val out = val::object();
  out.set("ok", false);
  out.set("error", err);
  return out;
}

val ok_object() {
  val out = val::object();
  out.set("ok", true);
  return out;
}

template <class Vec>
val number_array(const Vec& v) {
  val out = val::array();
  for (size_t i = 0; i < v.size(); ++i) out.set(i, static_cast<double>(v[i]));
  return out;
}

val string_array(const std::vector<std::string>& v) {
  val out = val::array();
  for (size_t i = 0; i < v.size(); ++i) out.set(i, v[i]);
  return out;
}

val stride_value(const AxisStride& s) {
  val out = val::object();
  out.set("k", static_cast<double>(s.k));
  out.set("axis", s.axis);
  return out;
}

val modes_value(const std::vector<Mode>& modes) {
  val out = val::array();
  for (size_t i = 0; i < modes.size(); ++i) {
    val m = val::object();
    m.set("extent", static_cast<double>(modes[i].extent));
    m.set("k", static_cast<double>(modes[i].stride.k));
    m.set("axis", modes[i].stride.axis);
    m.set("text", to_string(modes[i].stride));
    out.set(i, m);
  }
  return out;
}

val swizzle_value(const Swizzle& s) {
  val out = val::object();
  out.set("bits", s.bits);
  out.set("base", s.base);
  out.set("shift", s.shift);
  out.set("inner", s.inner);
  return out;
}

val terms_value(const std::vector<Term>& terms) {
  val out = val::array();
  for (size_t i = 0; i < terms.size(); ++i) {
    val t = val::object();
    t.set("digit", static_cast<double>(terms[i].digit));
    t.set("k", static_cast<double>(terms[i].stride.k));
    t.set("axis", terms[i].stride.axis);
    out.set(i, t);
  }
  return out;
}

// A JS Float64Array copy of int64 values (exact below 2^53).
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
  val out = ok_object();
  out.set("text", to_string(*layout));
  out.set("canonical", to_string(canonicalize(*layout)));
  out.set("axes", string_array(layout_axes(*layout)));
  out.set("shard", modes_value(layout->shard));
  val reps = val::array();
  for (size_t i = 0; i < layout->replicas.size(); ++i) reps.set(i, modes_value(layout->replicas[i]));
  out.set("replicas", reps);
  val offs = val::array();
  for (size_t i = 0; i < layout->offset.size(); ++i) offs.set(i, stride_value(layout->offset[i]));
  out.set("offset", offs);
  out.set("swizzle", layout->swizzle ? swizzle_value(*layout->swizzle) : val::null());
  auto size = layout_size(*layout);
  if (!size) return error_value(size.error());
  auto count = replica_count(*layout);
  if (!count) return error_value(count.error());
  out.set("size", static_cast<double>(*size));
  out.set("replicaCount", static_cast<double>(*count));
  auto shape = default_shape(*layout);
  out.set("defaultShape", shape ? number_array(*shape) : val::array());
  return out;
}

val js_parse_shape(std::string text) {
  auto shape = parse_shape(text);
  if (!shape) return error_value(shape.error());
  val out = ok_object();
  out.set("shape", number_array(*shape));
  return out;
}

val js_canonicalize(std::string text) {
  auto layout = parse_layout(text);
  if (!layout) return error_value(layout.error());
  val out = ok_object();
  out.set("text", to_string(canonicalize(*layout)));
  return out;
}

val mapping_value(const Layout& layout, const Mapping& m) {
  val out = ok_object();
  out.set("axes", string_array(layout_axes(layout)));
  out.set("index", static_cast<double>(m.index));
  out.set("coord", number_array(m.coord));
  out.set("split", number_array(m.split));
  out.set("terms", terms_value(m.terms));
  val steps = val::array();
  for (size_t i = 0; i < m.replica_steps.size(); ++i) {
    const ReplicaStep& r = m.replica_steps[i];
    val s = val::object();
    s.set("digits", number_array(r.digits));
    s.set("terms", terms_value(r.terms));
    s.set("position", number_array(r.position.values));
    s.set("mBeforeSwizzle", static_cast<double>(r.m_before_swizzle));
    s.set("mAfterSwizzle", static_cast<double>(r.m_after_swizzle));
    steps.set(i, s);
  }
  out.set("replicaSteps", steps);
  val positions = val::array();
  for (size_t i = 0; i < m.positions.size(); ++i) positions.set(i, number_array(m.positions[i].values));
  out.set("positions", positions);
  out.set("derivation", m.derivation);
  return out;
}

val js_forward_index(std::string text, val shape, double index) {
  auto p = parse_both(text, shape);
  if (!p) return error_value(p.error());
  auto x = int_value(index, "index");
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

// query: { axisName: value, ... }; axes left out match anything.
val js_inverse(std::string text, val shape, val query, double cell_limit) {
  auto p = parse_both(text, shape);
  if (!p) return error_value(p.error());
  std::vector<AxisValue> q;
  if (!query.isUndefined() && !query.isNull()) {
    const val keys = val::global("Object").call<val>("keys", query);
    const unsigned n = keys["length"].as<unsigned>();
    for (unsigned i = 0; i < n; ++i) {
      const std::string axis = keys[i].as<std::string>();
      const val v = query[axis];
      if (!v.isNumber()) return error_value(make_error("query value must be a number", 0, axis));
      auto iv = int_value(v.as<double>(), axis.c_str());
      if (!iv) return error_value(iv.error());
      q.push_back(AxisValue{axis, *iv});
    }
  }
  auto limit = int_value(cell_limit, "cellLimit");
  if (!limit) return error_value(limit.error());
  auto hits = inverse(p->layout, p->shape, q, *limit > 0 ? *limit : kDefaultCellLimit);
  if (!hits) return error_value(hits.error());
  val out = ok_object();
  out.set("axes", string_array(layout_axes(p->layout)));
  val arr = val::array();
  for (size_t i = 0; i < hits->size(); ++i) {
    const InverseHit& h = (*hits)[i];
    val o = val::object();
    o.set("index", static_cast<double>(h.index));
    o.set("coord", number_array(h.coord));
    o.set("replica", static_cast<double>(h.replica));
    o.set("position", number_array(h.position.values));
    arr.set(i, o);
  }
  out.set("hits", arr);
  return out;
}

val js_table(std::string text, val shape, double cell_limit) {
  auto p = parse_both(text, shape);
  if (!p) return error_value(p.error());
  auto limit = int_value(cell_limit, "cellLimit");
  if (!limit) return error_value(limit.error());
  auto t = table(p->layout, p->shape, *limit > 0 ? *limit : kDefaultCellLimit);
  if (!t) return error_value(t.error());
  val out = ok_object();
  out.set("axes", string_array(t->axes));
  out.set("shape", number_array(t->shape));
  out.set("elements", static_cast<double>(t->elements));
  out.set("replicas", static_cast<double>(t->replicas));
  out.set("values", float64_array(t->values));
  out.set("min", number_array(t->min));
  out.set("max", number_array(t->max));
  return out;
}

val js_validate(std::string text, val shape, double cell_limit) {
  auto p = parse_both(text, shape);
  if (!p) return error_value(p.error());
  auto limit = int_value(cell_limit, "cellLimit");
  if (!limit) return error_value(limit.error());
  auto findings = validate(p->layout, p->shape, *limit > 0 ? *limit : kDefaultCellLimit);
  if (!findings) return error_value(findings.error());
  val out = ok_object();
  out.set("shape", number_array(p->shape));
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
  return out;
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
  val out = ok_object();
  out.set("lanesPerGroup", r->lanes_per_group);
  out.set("groups", r->groups);
  out.set("cycles", r->cycles);
  out.set("maxWays", r->max_ways);
  out.set("groupCycles", number_array(r->group_cycles));
  out.set("laneBank", number_array(r->lane_bank));
  out.set("laneCycle", number_array(r->lane_cycle));
  return out;
}

val js_sector_access(val addrs, int width) {
  auto a = int_array(addrs, "addrs");
  if (!a) return error_value(a.error());
  auto r = sector_access(*a, width);
  if (!r) return error_value(r.error());
  val out = ok_object();
  out.set("sectors", static_cast<double>(r->sectors));
  out.set("bytes", static_cast<double>(r->bytes));
  out.set("efficiency", r->efficiency);
  out.set("laneSector", number_array(r->lane_sector));
  return out;
}

val js_lane_addresses(std::string text, val shape, val indices, int elem_bytes) {
  auto p = parse_both(text, shape);
  if (!p) return error_value(p.error());
  auto idx = int_array(indices, "indices");
  if (!idx) return error_value(idx.error());
  auto r = lane_addresses(p->layout, p->shape, *idx, elem_bytes);
  if (!r) return error_value(r.error());
  val out = ok_object();
  out.set("addrs", number_array(*r));
  return out;
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
// doing the XOR itself.
val js_apply_swizzle(int bits, int base, int shift, bool inner, val offsets) {
  auto o = int_array(offsets, "offsets");
  if (!o) return error_value(o.error());
  const Swizzle s{bits, base, shift, inner, SwizzleSpelling::kCute};
  std::vector<int64_t> out(o->size()), inverse(o->size());
  for (size_t i = 0; i < o->size(); ++i) {
    out[i] = apply_swizzle(s, (*o)[i]);
    inverse[i] = unapply_swizzle(s, (*o)[i]);
  }
  val res = ok_object();
  res.set("offsets", number_array(out));
  res.set("inverse", number_array(inverse));
  return res;
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
  out.set("mappings", static_cast<double>(*passes * c.size() * c.replicas()));
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
