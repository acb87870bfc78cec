// Embind adapter for the warp-access cost and the shared-memory advisor (access.hpp, advise.hpp). Plain
// values in, plain JS objects out, failures as { ok: false, error: { message, column, field } }:
//
//   accessCost("S[(64,64):(64,1)]", [64, 64], "bf16", "ldmatrix.x4", null, null)
//     -> { ok: true, instr: "ldmatrix.x4", ncuOp: "ldsm", total: { wavefronts: 512, idealWavefronts: 64,
//          conflicts: 448, ... }, instructions: [{ wavefronts: 32, idealWavefronts: 4, lanes: [...] }, ...] }
//   accessCost("S[(1024,8):(1,1024)]", [1024, 8], "f32", "LDG.128", { first: [[0, 32, ...]], vector: "column"
//   },
//              null)   -> each lane's 4 floats down column 0 (one field of four records): 16 sectors
//   advise("rows;STS.128", ";ldmatrix.x4", "bf16", [64, 64])
//     -> { ok: true, candidates: [{ name: "TMA 128B", readWavefronts: 64, conflictFree: true, ... }, ...],
//          rules: [{ rule: "CUTLASS ss_smem_selector", choice: "SW128", candidate: {...} }, ...] }
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "js_error.hpp"
#include "layoutscope/access.hpp"
#include "layoutscope/advise.hpp"
#include "layoutscope/dtype.hpp"
#include "layoutscope/mapping.hpp"
#include "layoutscope/parse.hpp"

namespace layoutscope {
namespace {

using emscripten::val;

val access_error(Error e, const char* field) {
  if (e.field.empty()) e.field = field;
  return error_value(e);
}

template <class Vec>
val numbers(const Vec& v) {
  val out = val::array();
  for (size_t i = 0; i < v.size(); ++i) out.set(i, static_cast<double>(v[i]));
  return out;
}

Result<int64_t> js_integer(const val& item, const char* field) {
  if (!item.isNumber()) return make_error(std::string(field) + " must hold integers", 0, field);
  const double d = item.as<double>();
  if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9007199254740991.0)
    return make_error(std::string(field) + " must hold integers", 0, field);
  return static_cast<int64_t>(d);
}

Result<std::vector<int64_t>> js_shape(const val& shape, const Layout* layout, const char* field) {
  if ((shape.isUndefined() || shape.isNull()) && layout) return default_shape(*layout);
  if (shape.isString()) {
    auto s = parse_shape(shape.as<std::string>());
    if (!s) {
      Error e = s.error();
      e.field = field;
      return e;
    }
    return s;
  }
  if (!shape.isArray())
    return make_error(std::string(field) + " must be an array of extents or a string", 0, field);
  std::vector<int64_t> out;
  const unsigned n = shape["length"].as<unsigned>();
  for (unsigned i = 0; i < n; ++i) {
    auto v = js_integer(shape[i], field);
    if (!v) return v.error();
    out.push_back(*v);
  }
  return out;
}

// lanes: null (the instruction's default), a string (parse_lane_spec) or an array of arrays of first
// elements, -1 or null for an idle lane.
Result<Lanes> js_lanes(const val& lanes, const WarpAccess& a) {
  TileSide side;
  side.instr = a.instr;
  if (lanes.isUndefined() || lanes.isNull()) return side_lanes(side, a.shape, a.dtype);
  if (lanes.isString()) {
    auto s = parse_lane_spec(lanes.as<std::string>(), side);
    if (!s) return s.error();
    return side_lanes(*s, a.shape, a.dtype);
  }
  if (!lanes.isArray()) return make_error("lanes must be null, a string or an array of arrays", 0, "lanes");
  Lanes out;
  const unsigned n = lanes["length"].as<unsigned>();
  for (unsigned i = 0; i < n; ++i) {
    const val row = lanes[i];
    if (!row.isArray()) return make_error("lanes[" + std::to_string(i) + "] must be an array", 0, "lanes");
    std::vector<int64_t> one;
    const unsigned m = row["length"].as<unsigned>();
    if (m > static_cast<unsigned>(kWarpLanes))
      return make_error("lanes[" + std::to_string(i) + "] has more than 32 lanes", 0, "lanes");
    for (unsigned l = 0; l < m; ++l) {
      const val item = row[l];
      if (item.isNull()) {
        one.push_back(kIdleLane);
        continue;
      }
      auto v = js_integer(item, "lanes");
      if (!v) return v.error();
      one.push_back(*v < 0 ? kIdleLane : *v);
    }
    out.push_back(std::move(one));
  }
  return out;
}

void set_costs(val& o, const InstructionCost& c) {
  o.set("wavefronts", c.wavefronts);
  o.set("idealWavefronts", c.ideal_wavefronts);
  o.set("conflicts", c.conflicts);
  o.set("maxWays", c.max_ways);
  o.set("sectors", static_cast<double>(c.sectors));
  o.set("requests", c.requests);
  o.set("bytes", static_cast<double>(c.bytes));
}

val candidate_value(const Candidate& c) {
  val o = val::object();
  o.set("name", c.name);
  o.set("kind", std::string(to_string(c.kind)));
  o.set("layout", to_string(c.layout));
  o.set("writeWavefronts", static_cast<double>(c.write_wavefronts));
  o.set("writeIdeal", static_cast<double>(c.write_ideal));
  o.set("readWavefronts", static_cast<double>(c.read_wavefronts));
  o.set("readIdeal", static_cast<double>(c.read_ideal));
  o.set("conflicts", static_cast<double>(c.conflicts()));
  o.set("conflictFree", c.conflict_free());
  o.set("sharedBytes", static_cast<double>(c.shared_bytes));
  o.set("writeCounted", c.write_counted);
  return o;
}

val side_value(const TileSide& s) {
  val o = val::object();
  o.set("instr", to_string(s.instr));
  o.set("lanes", std::string(to_string(s.order)));
  o.set("threads", s.order == LaneOrder::kThreads ? val(to_string(s.threads)) : val::null());
  return o;
}

val js_access_cost(std::string layout_text, val shape, std::string dtype_text, std::string instr_text,
                   val lanes, val source) {
  WarpAccess a;
  auto layout = parse_layout(layout_text);
  if (!layout) return access_error(layout.error(), "layout");
  a.layout = *layout;
  auto s = js_shape(shape, &a.layout, "shape");
  if (!s) return access_error(s.error(), "shape");
  a.shape = *s;
  auto dtype = parse_dtype(dtype_text);
  if (!dtype) return access_error(dtype.error(), "dtype");
  a.dtype = *dtype;
  auto instr = parse_instruction(instr_text);
  if (!instr) return access_error(instr.error(), "instr");
  a.instr = *instr;
  if (source.isString()) {
    auto src = parse_layout(source.as<std::string>());
    if (!src) {
      Error e = src.error();
      e.field = "source";
      return access_error(e, "source");
    }
    a.source = *src;
  }
  // { first: [[...]], vector: "column" }: the lanes' first elements, each lane's elements running down its
  // column (access.hpp VectorAxis) instead of along its row
  val first = lanes;
  if (!lanes.isNull() && !lanes.isUndefined() && !lanes.isString() && !lanes.isArray() &&
      lanes.typeOf().as<std::string>() == "object") {
    const val vector = lanes["vector"];
    const std::string axis = vector.isString() ? vector.as<std::string>() : "";
    if (axis != "row" && axis != "column")
      return access_error(make_error("lanes.vector must be \"row\" or \"column\"", 0, "lanes.vector"),
                          "lanes");
    a.vector = axis == "column" ? VectorAxis::kColumn : VectorAxis::kRow;
    first = lanes["first"];
  }
  auto l = js_lanes(first, a);
  if (!l) return access_error(l.error(), "lanes");
  a.lanes = std::move(*l);
  auto c = cost(a);
  if (!c) return access_error(c.error(), "layout");

  val out = val::object();
  out.set("ok", true);
  out.set("layout", to_string(a.layout));
  out.set("shape", numbers(a.shape));
  out.set("dtype", std::string(to_string(a.dtype)));
  out.set("instr", to_string(a.instr));
  out.set("ncuOp", c->ncu_op);
  out.set("sharedCounted", c->shared_counted);
  out.set("bytesPerLane", a.instr.bytes);
  out.set("vector", std::string(a.vector == VectorAxis::kColumn ? "column" : "row"));
  val list = val::array();
  for (size_t i = 0; i < c->instructions.size(); ++i) {
    val o = val::object();
    set_costs(o, c->instructions[i]);
    o.set("lanes", i < a.lanes.size() ? numbers(a.lanes[i]) : val::array());
    list.set(i, o);
  }
  out.set("instructions", list);
  val total = val::object();
  total.set("wavefronts", static_cast<double>(c->wavefronts));
  total.set("idealWavefronts", static_cast<double>(c->ideal_wavefronts));
  total.set("conflicts", static_cast<double>(c->conflicts));
  total.set("maxWays", c->max_ways);
  total.set("sectors", static_cast<double>(c->sectors));
  total.set("requests", static_cast<double>(c->requests));
  total.set("bytes", static_cast<double>(c->bytes));
  out.set("total", total);
  if (c->shared_counted) {
    val metrics = val::object();
    metrics.set("wavefronts", ncu_wavefront_metric(a.instr.op));
    metrics.set("conflicts", ncu_conflict_metric(a.instr.op));
    out.set("metrics", metrics);
  } else {
    out.set("metrics", val::null());
  }
  return out;
}

val js_advise(std::string writer, std::string reader, std::string dtype_text, val tile) {
  AdviseRequest q;
  auto w = parse_tile_side(writer, true);
  if (!w) return access_error(w.error(), "writer");
  q.writer = *w;
  auto r = parse_tile_side(reader, false);
  if (!r) return access_error(r.error(), "reader");
  q.reader = *r;
  auto dtype = parse_dtype(dtype_text);
  if (!dtype) return access_error(dtype.error(), "dtype");
  q.dtype = *dtype;
  auto t = js_shape(tile, nullptr, "tile");
  if (!t) return access_error(t.error(), "tile");
  q.tile = *t;
  auto a = advise(q);
  if (!a) return access_error(a.error(), "tile");

  val out = val::object();
  out.set("ok", true);
  out.set("tile", numbers(q.tile));
  out.set("dtype", std::string(to_string(q.dtype)));
  out.set("writer", side_value(q.writer));
  out.set("reader", side_value(q.reader));
  out.set("searched", a->searched);
  out.set("rejected", a->rejected);
  val candidates = val::array();
  for (size_t i = 0; i < a->candidates.size(); ++i) candidates.set(i, candidate_value(a->candidates[i]));
  out.set("candidates", candidates);
  val rules = val::array();
  for (size_t i = 0; i < a->rules.size(); ++i) {
    const RuleChoice& rc = a->rules[i];
    val o = val::object();
    o.set("rule", rc.rule);
    o.set("choice", rc.choice);
    o.set("reason", rc.reason);
    o.set("candidate", rc.candidate ? candidate_value(*rc.candidate) : val::null());
    rules.set(i, o);
  }
  out.set("rules", rules);
  return out;
}

}  // namespace
}  // namespace layoutscope

EMSCRIPTEN_BINDINGS(layoutscope_access) {
  using namespace layoutscope;
  emscripten::function("accessCost", &js_access_cost);
  emscripten::function("advise", &js_advise);
}
