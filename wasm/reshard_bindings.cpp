// Embind adapter for the reshard planner (plan/reshard.hpp): two mesh layouts in, the plan out as a plain JS
// object; failures as { ok: false, error: { message, column, field, code } } like every other export.
//
//   planReshard("S[(2,4,8):(1@gpuid_x,1@gpuid_y,1)]", "S[(2,4,8):(8,1@gpuid_y,1)] + R[2:1@gpuid_x]",
//               [2, 4, 8], "gpuid_x=2,gpuid_y=4")
//     -> { ok: true, steps: [{ op: "all_gather", axis: "gpuid_x", sendBytes: 32, ... }], ... }
//
// The mesh is a string "gpuid_x=2,gpuid_y=4", an object { gpuid_x: 2, gpuid_y: 4 } (in key order) or an
// array of [name, size] pairs. planReshardWith takes a fifth argument { dtype, collectiveBusbwGbps,
// sendRecvGbps, localCopyGbps }; planReshard plans fp32 with the engine's default bandwidths.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "js_error.hpp"
#include "layoutscope/dtype.hpp"
#include "layoutscope/parse.hpp"
#include "layoutscope/plan/reshard.hpp"

namespace layoutscope {
namespace {

using emscripten::val;

constexpr int64_t kMaxSafe = (int64_t{1} << 53) - 1;  // Number.MAX_SAFE_INTEGER

// Integers go out exact or the whole result is refused with code "precision", naming the field.
class Exact {
 public:
  val num(int64_t v, const char* field) {
    if ((v > kMaxSafe || v < -kMaxSafe) && !error_) {
      error_ = make_error(std::string(field) + " holds " + std::to_string(v) +
                              ", beyond 2^53 - 1: a JS number cannot hold it exactly",
                          0, field, "precision");
    }
    return val(static_cast<double>(v));
  }
  val nums(const std::vector<int64_t>& v, const char* field) {
    val out = val::array();
    for (size_t i = 0; i < v.size(); ++i) out.set(i, num(v[i], field));
    return out;
  }
  val finish(const val& out) const { return error_ ? error_value(*error_) : out; }

 private:
  std::optional<Error> error_;
};

Result<int64_t> safe_int(const val& v, const std::string& field) {
  if (!v.isNumber()) return make_error(field + " must be an integer", 0, field, "syntax");
  const double d = v.as<double>();
  if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > static_cast<double>(kMaxSafe))
    return make_error(field + " must be a safe integer", 0, field, "range");
  return static_cast<int64_t>(d);
}

Result<std::vector<int64_t>> shape_from(const val& shape) {
  if (shape.isString()) return parse_shape(shape.as<std::string>());
  if (!shape.isArray())
    return make_error("shape must be an array of extents or a string \"8,8\"", 0, "shape", "syntax");
  std::vector<int64_t> out;
  const unsigned n = shape["length"].as<unsigned>();
  for (unsigned i = 0; i < n; ++i) {
    auto v = safe_int(shape[i], "shape");
    if (!v) return v.error();
    out.push_back(*v);
  }
  return out;
}

Result<Mesh> mesh_from(const val& mesh) {
  if (mesh.isString()) return parse_mesh(mesh.as<std::string>());
  Mesh out;
  if (mesh.isArray()) {
    const unsigned n = mesh["length"].as<unsigned>();
    for (unsigned i = 0; i < n; ++i) {
      const val e = mesh[i];
      if (!e.isArray() || e["length"].as<unsigned>() != 2 || !e[0].isString())
        return make_error("mesh entry " + std::to_string(i) + " must be [name, size]", 0, "mesh", "syntax");
      auto size = safe_int(e[1], "mesh");
      if (!size) return size.error();
      out.emplace_back(e[0].as<std::string>(), *size);
    }
  } else if (mesh.typeOf().as<std::string>() == "object" && !mesh.isNull()) {
    const val keys = val::global("Object").call<val>("keys", mesh);
    const unsigned n = keys["length"].as<unsigned>();
    for (unsigned i = 0; i < n; ++i) {
      const std::string name = keys[i].as<std::string>();
      auto size = safe_int(mesh[name], "mesh");
      if (!size) return size.error();
      out.emplace_back(name, *size);
    }
  } else {
    return make_error("mesh must be \"x=2,y=4\", { x: 2, y: 4 } or [[\"x\", 2], [\"y\", 4]]", 0, "mesh",
                      "syntax");
  }
  return out;
}

Result<Layout> layout_from(const std::string& text, const char* field) {
  auto l = parse_layout(text);
  if (!l) {
    Error e = l.error();
    if (e.field.empty()) e.field = field;
    e.message = std::string(field) + ": " + e.message;
    return e;
  }
  return l;
}

val strings(const std::vector<Placement>& ps) {
  val out = val::array();
  for (size_t i = 0; i < ps.size(); ++i) out.set(i, to_string(ps[i]));
  return out;
}

val local_value(Exact& exact, const LocalTensor& t) {
  val out = val::object();
  out.set("layout", to_string(t.layout));
  out.set("shape", exact.nums(t.shape, "localShape"));
  out.set("elements", exact.num(t.elements, "elements"));
  return out;
}

val convert_value(Exact& exact, const ConvertPlan& c) {
  val out = val::object();
  out.set("kind", std::string(to_string(c.kind)));
  out.set("commonVector", exact.num(c.common_vector, "commonVector"));
  out.set("unitBytes", c.unit_bytes);
  out.set("vectorUnits", c.vector_units);
  out.set("tileA", exact.num(c.tile_a, "tileA"));
  out.set("tileB", exact.num(c.tile_b, "tileB"));
  out.set("blocks", exact.num(c.blocks, "blocks"));
  return out;
}

val plan_value(const ReshardPlan& p) {
  Exact exact;
  val out = val::object();
  out.set("ok", true);
  out.set("shape", exact.nums(p.shape, "shape"));
  val mesh = val::array();
  for (size_t i = 0; i < p.mesh.size(); ++i) {
    val m = val::object();
    m.set("axis", p.mesh[i].first);
    m.set("size", exact.num(p.mesh[i].second, "mesh"));
    mesh.set(i, m);
  }
  out.set("mesh", mesh);
  out.set("dtype", std::string(to_string(p.dtype)));
  out.set("elemBytes", p.elem_bytes);
  out.set("from", to_string(p.from));
  out.set("to", to_string(p.to));
  val pieces = val::array();
  for (size_t i = 0; i < p.pieces.size(); ++i) {
    val q = val::object();
    q.set("extent", exact.num(p.pieces[i].extent, "pieces"));
    q.set("dim", p.pieces[i].dim);
    pieces.set(i, q);
  }
  out.set("pieces", pieces);
  out.set("fromPlacements", strings(p.from_placements));
  out.set("toPlacements", strings(p.to_placements));
  val steps = val::array();
  for (size_t i = 0; i < p.steps.size(); ++i) {
    const ReshardStep& s = p.steps[i];
    val v = val::object();
    v.set("op", std::string(to_string(s.op)));
    v.set("collective", is_collective(s.op));
    v.set("axis", s.axis);
    v.set("group", exact.num(s.group, "group"));
    v.set("groups", exact.num(s.groups, "groups"));
    v.set("placementsBefore", strings(s.placements_before));
    v.set("placementsAfter", strings(s.placements_after));
    v.set("before", to_string(s.before));
    v.set("after", to_string(s.after));
    v.set("localBefore", local_value(exact, s.local_before));
    v.set("localAfter", local_value(exact, s.local_after));
    v.set("piece", s.piece);
    v.set("pieces", s.pieces);
    v.set("root", exact.num(s.root, "root"));
    v.set("target", exact.num(s.target, "target"));
    v.set("sizeBytes", exact.num(s.size_bytes, "sizeBytes"));
    v.set("busFactor", s.bus_factor);
    v.set("sendBytes", exact.num(s.send_bytes, "sendBytes"));
    v.set("recvBytes", exact.num(s.recv_bytes, "recvBytes"));
    v.set("localBytes", exact.num(s.local_bytes, "localBytes"));
    v.set("predictedSeconds", s.predicted_seconds);
    v.set("convert", s.convert ? convert_value(exact, *s.convert) : val::null());
    steps.set(i, v);
  }
  out.set("steps", steps);
  val bw = val::object();
  bw.set("collectiveBusbwGbps", p.bandwidths.collective_busbw_gbps);
  bw.set("sendRecvGbps", p.bandwidths.send_recv_gbps);
  bw.set("localCopyGbps", p.bandwidths.local_copy_gbps);
  out.set("bandwidths", bw);
  out.set("sendBytes", exact.num(p.send_bytes, "sendBytes"));
  out.set("recvBytes", exact.num(p.recv_bytes, "recvBytes"));
  out.set("predictedSeconds", p.predicted_seconds);
  return exact.finish(out);
}

Result<double> bandwidth_from(const val& options, const char* key, double fallback) {
  const val v = options[key];
  if (v.isUndefined() || v.isNull()) return fallback;
  if (!v.isNumber() || !(v.as<double>() > 0) || !std::isfinite(v.as<double>()))
    return make_error(std::string(key) + " must be a positive number of GB/s", 0, key, "range");
  return v.as<double>();
}

val js_plan_reshard_with(std::string from, std::string to, val shape, val mesh, val options) {
  auto f = layout_from(from, "from");
  if (!f) return error_value(f.error());
  auto t = layout_from(to, "to");
  if (!t) return error_value(t.error());
  auto s = shape_from(shape);
  if (!s) return error_value(s.error());
  auto m = mesh_from(mesh);
  if (!m) return error_value(m.error());
  DType dtype = DType::kF32;
  ReshardBandwidths bw;
  if (!options.isUndefined() && !options.isNull()) {
    const val d = options["dtype"];
    if (!d.isUndefined() && !d.isNull()) {
      if (!d.isString()) return error_value(make_error("dtype must be a string", 0, "dtype", "syntax"));
      auto parsed = parse_dtype(d.as<std::string>());
      if (!parsed) return error_value(parsed.error());
      dtype = *parsed;
    }
    auto c = bandwidth_from(options, "collectiveBusbwGbps", bw.collective_busbw_gbps);
    if (!c) return error_value(c.error());
    auto p2p = bandwidth_from(options, "sendRecvGbps", bw.send_recv_gbps);
    if (!p2p) return error_value(p2p.error());
    auto copy = bandwidth_from(options, "localCopyGbps", bw.local_copy_gbps);
    if (!copy) return error_value(copy.error());
    bw = {*c, *p2p, *copy};
  }
  auto plan = plan_reshard(*f, *t, *s, *m, dtype, bw);
  if (!plan) return error_value(plan.error());
  return plan_value(*plan);
}

val js_plan_reshard(std::string from, std::string to, val shape, val mesh) {
  return js_plan_reshard_with(std::move(from), std::move(to), std::move(shape), std::move(mesh), val::null());
}

}  // namespace
}  // namespace layoutscope

EMSCRIPTEN_BINDINGS(layoutscope_reshard) {
  using namespace layoutscope;
  emscripten::function("planReshard", &js_plan_reshard);
  emscripten::function("planReshardWith", &js_plan_reshard_with);
}
