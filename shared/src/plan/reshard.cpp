#include "layoutscope/plan/reshard.hpp"

#include <algorithm>
#include <functional>
#include <set>
#include <span>
#include <string_view>

#include "layoutscope/canonical.hpp"
#include "layoutscope/checked.hpp"
#include "layoutscope/mapping.hpp"
#include "layoutscope/parse.hpp"

namespace layoutscope {
namespace {

constexpr int kLocal = -1;  // a piece in local memory

std::string mesh_text(const Mesh& mesh) {
  std::string s;
  for (const auto& [name, size] : mesh) s += (s.empty() ? "" : ",") + name + "=" + std::to_string(size);
  return s;
}

int mesh_index(const Mesh& mesh, const std::string& axis) {
  for (size_t i = 0; i < mesh.size(); ++i) {
    if (mesh[i].first == axis) return static_cast<int>(i);
  }
  return -1;
}

// Checks the mesh's axes [from, mesh.size()) given the names and device count of those before: each axis in
// constant time (a set of names), so a mesh is checked in one pass however it is built up.
Result<int64_t> check_axes(const Mesh& mesh, size_t from, std::set<std::string_view>& names,
                           int64_t devices) {
  if (mesh.size() > kMaxMeshAxes)
    return make_error("mesh: more than " + std::to_string(kMaxMeshAxes) + " axes", 0, "mesh", "range");
  for (size_t i = from; i < mesh.size(); ++i) {
    const auto& [name, size] = mesh[i];
    if (name.empty() || name == kMemoryAxis)
      return make_error("mesh: axis " + std::to_string(i) + " needs a name other than 'm' (local memory)", 0,
                        "mesh", "mesh-axis");
    if (size < 1)
      return make_error("mesh: axis " + name + " has size " + std::to_string(size), 0, "mesh", "range");
    if (!names.insert(name).second)
      return make_error("mesh: axis " + name + " is named twice", 0, "mesh", "mesh-axis");
    if (mul_overflows(devices, size, &devices))
      return make_error("mesh: too many devices", 0, "mesh", "overflow");
  }
  return devices;
}

Result<int64_t> check_mesh(const Mesh& mesh) {
  if (mesh.empty()) return make_error("mesh: no axes", 0, "mesh", "mesh-axis");
  std::set<std::string_view> names;
  return check_axes(mesh, 0, names, 1);
}

// One layout read per mesh axis: its shard modes, which mesh axis owns each (kLocal for @m), and the axes'
// placements (kShard's piece is the shard mode's index until the pieces are known).
struct Reading {
  std::vector<Mode> shard;
  std::vector<int> owner;
  std::vector<Placement> placements;
};

Result<Reading> read_layout(const Layout& input, const std::string& field, const Mesh& mesh) {
  const Layout layout = canonicalize(input);
  auto refuse = [&](const std::string& what, const std::string& code) {
    return make_error(field + " layout " + to_string(input) + ": " + what, 0, field, code);
  };
  if (layout.swizzle)
    return refuse("it is swizzled; a mesh layout's local memory must be plain", "not-expressible");
  Reading r;
  r.shard = layout.shard;
  r.placements.assign(mesh.size(), Placement{});
  std::vector<std::string> used(mesh.size());  // where each mesh axis appears
  auto claim = [&](const std::string& axis, const std::string& where) -> std::optional<Error> {
    const int a = mesh_index(mesh, axis);
    if (a < 0)
      return refuse("axis " + axis + " (in " + where + ") is not a mesh axis (mesh " + mesh_text(mesh) + ")",
                    "mesh-axis");
    if (!used[a].empty())
      return refuse("mesh axis " + axis + " is used twice (in " + used[a] + " and in " + where + ")",
                    "mesh-axis");
    used[a] = where;
    return std::nullopt;
  };
  // A mesh axis must be used whole: stride 1, extent its size. A larger span puts elements on devices the
  // mesh does not have.
  auto whole = [&](const Mode& m, const std::string& where) -> std::optional<Error> {
    const int64_t n = mesh[mesh_index(mesh, m.stride.axis)].second;
    int64_t reach = 0;
    if (mul_overflows(m.extent - 1, m.stride.k, &reach) || reach >= n || m.stride.k < 0)
      return refuse(where + " reaches " + m.stride.axis + " = " + std::to_string(reach) +
                        ", outside the mesh (size " + std::to_string(n) + ")",
                    "coverage");
    if (m.stride.k != 1 || m.extent != n)
      return refuse(where + " uses " + std::to_string(m.extent) + " of the " + std::to_string(n) +
                        " coordinates of " + m.stride.axis + " with stride " + std::to_string(m.stride.k) +
                        "; a mesh axis is sharded, replicated or "
                        "partial over its whole size",
                    "not-expressible");
    return std::nullopt;
  };
  for (size_t i = 0; i < r.shard.size(); ++i) {
    const Mode& m = r.shard[i];
    if (m.stride.axis == kMemoryAxis) {
      if (m.stride.k < 0)
        return refuse("mode " + std::to_string(i) + " has a negative stride on @m", "not-expressible");
      r.owner.push_back(kLocal);
      continue;
    }
    const std::string where =
        "shard mode " + std::to_string(i) + " (" + std::to_string(m.extent) + ":" + to_string(m.stride) + ")";
    if (auto e = claim(m.stride.axis, where)) return *e;
    if (auto e = whole(m, where)) return *e;
    const int a = mesh_index(mesh, m.stride.axis);
    r.owner.push_back(a);
    r.placements[a] = Placement{PlacementKind::kShard, -1, 0, 0};
  }
  auto groups = [&](const std::vector<std::vector<Mode>>& gs, const char* term,
                    PlacementKind kind) -> std::optional<Error> {
    for (const auto& g : gs) {
      for (const Mode& m : g) {
        const std::string where =
            std::string(term) + "[" + std::to_string(m.extent) + ":" + to_string(m.stride) + "]";
        if (m.stride.axis == kMemoryAxis)
          return refuse(where + " repeats elements in local memory", "not-expressible");
        if (auto e = claim(m.stride.axis, where)) return e;
        if (auto e = whole(m, where)) return e;
        r.placements[mesh_index(mesh, m.stride.axis)] = Placement{kind, -1, 0, 0};
      }
    }
    return std::nullopt;
  };
  if (auto e = groups(layout.replicas, "R", PlacementKind::kReplicate)) return *e;
  if (auto e = groups(layout.partials, "P", PlacementKind::kPartial)) return *e;
  for (const AxisStride& o : layout.offset) {
    const std::string where = "offset " + to_string(o);
    if (o.axis == kMemoryAxis) return refuse(where + " moves local memory", "not-expressible");
    if (auto e = claim(o.axis, where)) return *e;
    const int a = mesh_index(mesh, o.axis);
    if (o.k < 0 || o.k >= mesh[a].second)
      return refuse(
          where + " is outside the mesh (" + o.axis + " has size " + std::to_string(mesh[a].second) + ")",
          "coverage");
    r.placements[a] = Placement{PlacementKind::kOffset, -1, 0, o.k};
  }
  return r;
}

std::vector<int64_t> suffix(const std::vector<int64_t>& extents) {
  std::vector<int64_t> p(extents.size() + 1, 1);
  for (size_t i = extents.size(); i-- > 0;) p[i] = p[i + 1] * extents[i];
  return p;
}

std::vector<int64_t> extents_of(const std::vector<Mode>& modes) {
  std::vector<int64_t> e;
  for (const Mode& m : modes) e.push_back(m.extent);
  return e;
}

// The planner's state: each piece's owner, each axis's placement, the local pieces in memory order
// (outermost first; dense).
struct State {
  std::vector<int> owner;
  std::vector<Placement> placements;
  std::vector<int> memory;
};

struct Context {
  const std::vector<int64_t>* shape;
  const Mesh* mesh;
  std::vector<ReshardPiece> pieces;
};

int64_t local_elements(const Context& c, const State& s) {
  int64_t n = 1;
  for (int p : s.memory) n *= c.pieces[p].extent;
  return n;
}

std::vector<int64_t> memory_strides(const Context& c, const State& s) {
  std::vector<int64_t> stride(c.pieces.size(), 0);
  int64_t k = 1;
  for (size_t i = s.memory.size(); i-- > 0;) {
    stride[s.memory[i]] = k;
    k *= c.pieces[s.memory[i]].extent;
  }
  return stride;
}

LocalTensor local_tensor(const Context& c, const State& s) {
  LocalTensor t;
  t.shape.assign(c.shape->size(), 1);
  const std::vector<int64_t> stride = memory_strides(c, s);
  for (size_t p = 0; p < c.pieces.size(); ++p) {
    if (s.owner[p] != kLocal) continue;
    t.layout.shard.push_back(Mode{c.pieces[p].extent, AxisStride{stride[p], std::string(kMemoryAxis)}});
    t.shape[c.pieces[p].dim] *= c.pieces[p].extent;
  }
  if (t.layout.shard.empty()) t.layout.shard.push_back(Mode{1, AxisStride{1, std::string(kMemoryAxis)}});
  t.elements = local_elements(c, s);
  return t;
}

Layout mesh_layout(const Context& c, const State& s) {
  Layout l;
  std::vector<int64_t> stride = memory_strides(c, s);
  // A mesh axis owning a run of pieces splits its coordinate over them, the last piece fastest.
  std::vector<int64_t> run(c.mesh->size(), 1);
  for (size_t p = c.pieces.size(); p-- > 0;) {
    if (s.owner[p] == kLocal) continue;
    stride[p] = run[s.owner[p]];
    run[s.owner[p]] *= c.pieces[p].extent;
  }
  for (size_t p = 0; p < c.pieces.size(); ++p) {
    const int a = s.owner[p];
    l.shard.push_back(Mode{c.pieces[p].extent, AxisStride{stride[p], a == kLocal ? std::string(kMemoryAxis)
                                                                                 : (*c.mesh)[a].first}});
  }
  std::vector<Mode> r, pt;
  for (size_t a = 0; a < c.mesh->size(); ++a) {
    const Placement& pl = s.placements[a];
    const Mode m{(*c.mesh)[a].second, AxisStride{1, (*c.mesh)[a].first}};
    if (pl.kind == PlacementKind::kReplicate) r.push_back(m);
    if (pl.kind == PlacementKind::kPartial) pt.push_back(m);
    if (pl.kind == PlacementKind::kOffset && pl.coord != 0)
      l.offset.push_back(AxisStride{pl.coord, m.stride.axis});
  }
  if (!r.empty()) l.replicas.push_back(r);
  if (!pt.empty()) l.partials.push_back(pt);
  return l;
}

// Devices holding data: every axis but the offset ones.
int64_t holding_devices(const Context& c, const State& s) {
  int64_t n = 1;
  for (size_t a = 0; a < c.mesh->size(); ++a) {
    if (s.placements[a].kind != PlacementKind::kOffset) n *= (*c.mesh)[a].second;
  }
  return n;
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

std::string_view to_string(ReshardOp op) {
  switch (op) {
    case ReshardOp::kAllGather:
      return "all_gather";
    case ReshardOp::kReduceScatter:
      return "reduce_scatter";
    case ReshardOp::kAllToAll:
      return "all_to_all";
    case ReshardOp::kAllReduce:
      return "all_reduce";
    case ReshardOp::kBroadcast:
      return "broadcast";
    case ReshardOp::kSendRecv:
      return "send_recv";
    case ReshardOp::kSlice:
      return "slice";
    case ReshardOp::kDrop:
      return "drop";
    case ReshardOp::kPartition:
      return "partition";
    case ReshardOp::kPermute:
      return "permute";
  }
  return "?";
}

bool is_collective(ReshardOp op) {
  return op != ReshardOp::kSlice && op != ReshardOp::kDrop && op != ReshardOp::kPartition &&
         op != ReshardOp::kPermute;
}

std::string to_string(const Placement& p) {
  switch (p.kind) {
    case PlacementKind::kShard:
      return "S(" + std::to_string(p.piece) +
             (p.pieces > 1 ? ".." + std::to_string(p.piece + p.pieces - 1) : std::string()) + ")";
    case PlacementKind::kReplicate:
      return "R";
    case PlacementKind::kPartial:
      return "P";
    case PlacementKind::kOffset:
      return "O(" + std::to_string(p.coord) + ")";
  }
  return "?";
}

Result<Mesh> parse_mesh(std::string_view text) {
  Mesh mesh;
  std::set<std::string_view> names;  // views of the names in `mesh`'s strings, which never move: reserved
  mesh.reserve(
      std::min<size_t>(static_cast<size_t>(std::count(text.begin(), text.end(), ',')) + 1, kMaxMeshAxes + 1));
  int64_t devices = 1;
  size_t i = 0;
  while (i <= text.size()) {
    const size_t end = std::min(text.find(',', i), text.size());
    const std::string_view entry = text.substr(i, end - i);
    const int column = static_cast<int>(i) + 1;
    const size_t eq = entry.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == entry.size())
      return make_error("mesh: expected AXIS=SIZE, found '" + std::string(entry) + "'", column, "mesh",
                        "syntax");
    int64_t size = 0;
    for (size_t k = eq + 1; k < entry.size(); ++k) {
      const char ch = entry[k];
      if (ch < '0' || ch > '9' || mul_overflows(size, 10, &size) || add_overflows(size, ch - '0', &size))
        return make_error("mesh: size of " + std::string(entry.substr(0, eq)) + " must be a positive integer",
                          column + static_cast<int>(k), "mesh", "syntax");
    }
    mesh.emplace_back(std::string(entry.substr(0, eq)), size);
    auto ok = check_axes(mesh, mesh.size() - 1, names, devices);
    if (!ok) {
      Error e = ok.error();
      e.column = column;
      return e;
    }
    devices = *ok;
    i = end + 1;
  }
  return mesh;
}

namespace {

// A slice as a conversion: the local layout before without the sliced pieces (their digits are the device's
// coordinate on the axis: a base offset, the same plan on every coordinate) into the local layout after.
// Nothing when the planner refuses; the device then copies element by element.
std::optional<ConvertPlan> slice_convert(const ReshardStep& step, DType dtype) {
  size_t pos = 0;  // the sliced pieces' place among the local (@m) pieces
  for (int q = 0; q < step.piece && q < static_cast<int>(step.before.shard.size()); ++q)
    pos += step.before.shard[static_cast<size_t>(q)].stride.axis == kMemoryAxis;
  Layout src = step.local_before.layout;
  const auto count = static_cast<size_t>(std::max(step.pieces, 0));
  if (pos + count > src.shard.size()) return std::nullopt;
  src.shard.erase(src.shard.begin() + static_cast<std::ptrdiff_t>(pos),
                  src.shard.begin() + static_cast<std::ptrdiff_t>(pos + count));
  auto c = plan_convert(src, step.local_after.layout, step.local_after.shape, dtype);
  if (!c) return std::nullopt;
  return std::move(c).value();
}

}  // namespace

Result<ReshardPlan> plan_reshard(const Layout& from, const Layout& to, const std::vector<int64_t>& shape,
                                 const Mesh& mesh, DType dtype, const ReshardBandwidths& bandwidths) {
  if (auto d = check_mesh(mesh); !d) return d.error();
  int64_t elements = 1;
  for (int64_t e : shape) {
    if (e < 1 || mul_overflows(elements, e, &elements))
      return make_error("shape: extents must be positive and their product fit in 64 bits", 0, "shape",
                        "range");
  }
  if (shape.empty()) return make_error("shape: no extents", 0, "shape", "range");
  auto rf = read_layout(from, "from", mesh);
  if (!rf) return rf.error();
  auto rt = read_layout(to, "to", mesh);
  if (!rt) return rt.error();
  const std::vector<int64_t> pf = suffix(extents_of(rf->shard)), pt = suffix(extents_of(rt->shard)),
                             pshape = suffix(shape);
  if (pf[0] != pt[0])
    return make_error("from layout holds " + std::to_string(pf[0]) + " elements, to layout " +
                          std::to_string(pt[0]) + ": not one logical tensor",
                      0, "to", "size-mismatch");
  if (pf[0] != elements)
    return make_error(
        "the layouts hold " + std::to_string(pf[0]) + " elements, the shape " + std::to_string(elements), 0,
        "shape", "size-mismatch");

  // The common refinement of both layouts and the logical shape.
  std::vector<int64_t> cuts(pf);
  cuts.insert(cuts.end(), pt.begin(), pt.end());
  cuts.insert(cuts.end(), pshape.begin(), pshape.end());
  std::sort(cuts.begin(), cuts.end(), std::greater<>());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  for (size_t k = 0; k + 1 < cuts.size(); ++k) {
    if (cuts[k] % cuts[k + 1] != 0)
      return make_error("from, to and the shape split the logical index incompatibly (a run of " +
                            std::to_string(cuts[k + 1]) + " inside a run of " + std::to_string(cuts[k]) + ")",
                        0, "to", "not-expressible");
  }
  Context ctx{&shape, &mesh, {}};
  std::vector<int64_t> lo_of;
  for (size_t k = 0; k + 1 < cuts.size(); ++k) {
    const int64_t hi = cuts[k], lo = cuts[k + 1];
    int dim = 0;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (pshape[d + 1] <= lo && hi <= pshape[d]) dim = static_cast<int>(d);
    }
    ctx.pieces.push_back({hi / lo, dim});
    lo_of.push_back(lo);
  }
  const int npieces = static_cast<int>(ctx.pieces.size());

  // Each layout's state over the pieces: a mesh-owned mode must be one piece; an @m mode gives its pieces
  // strides, which must tile local memory densely.
  auto state_of = [&](const Reading& r, const std::vector<int64_t>& p, const std::string& field,
                      const Layout& original) -> Result<State> {
    State s;
    s.placements = r.placements;
    std::vector<int64_t> stride(npieces, 0);
    for (int q = 0; q < npieces; ++q) {
      const int64_t lo = lo_of[q], hi = lo * ctx.pieces[q].extent;
      for (size_t i = 0; i < r.shard.size(); ++i) {
        if (!(p[i + 1] <= lo && hi <= p[i])) continue;
        s.owner.push_back(r.owner[i]);
        if (r.owner[i] != kLocal) {
          Placement& pl = s.placements[r.owner[i]];
          if (pl.pieces == 0) pl.piece = q;
          ++pl.pieces;
        }
        stride[q] = r.shard[i].stride.k * (lo / p[i + 1]);
        break;
      }
    }
    for (int q = 0; q < npieces; ++q) {
      if (s.owner[q] == kLocal) s.memory.push_back(q);
    }
    std::stable_sort(s.memory.begin(), s.memory.end(), [&](int a, int b) { return stride[a] > stride[b]; });
    int64_t expect = 1;
    for (size_t i = s.memory.size(); i-- > 0;) {
      const int64_t k = stride[s.memory[i]];
      if (k != expect) {
        return make_error(
            field + " layout " + to_string(original) + ": local memory is not dense: " +
                (k < expect ? "two elements share one local slot" : "it leaves local slots unused") +
                " at stride " + std::to_string(k),
            0, field, "coverage");
      }
      expect *= ctx.pieces[s.memory[i]].extent;
    }
    return s;
  };
  auto sf = state_of(*rf, pf, "from", from);
  if (!sf) return sf.error();
  auto st = state_of(*rt, pt, "to", to);
  if (!st) return st.error();

  ReshardPlan plan;
  plan.shape = shape;
  plan.mesh = mesh;
  plan.dtype = dtype;
  plan.elem_bytes = dtype_bytes(dtype);
  plan.from = canonicalize(from);
  plan.to = canonicalize(to);
  plan.pieces = ctx.pieces;
  plan.from_placements = sf->placements;
  plan.to_placements = st->placements;
  plan.bandwidths = bandwidths;

  const int64_t b = plan.elem_bytes;
  State cur = *sf;
  const State& target = *st;
  auto emit = [&](ReshardOp op, int axis, State next, int piece, int pieces) -> std::optional<Error> {
    ReshardStep step;
    step.op = op;
    step.axis = axis >= 0 ? mesh[axis].first : "";
    step.group = axis >= 0 && is_collective(op) ? mesh[axis].second : 1;
    step.placements_before = cur.placements;
    step.placements_after = next.placements;
    step.before = mesh_layout(ctx, cur);
    step.after = mesh_layout(ctx, next);
    step.local_before = local_tensor(ctx, cur);
    step.local_after = local_tensor(ctx, next);
    step.piece = piece;
    step.pieces = pieces;
    // Groups running at once: the devices holding data, one group per coordinate of the other axes.
    step.groups = holding_devices(ctx, cur);
    if (axis >= 0 && is_collective(op) && cur.placements[axis].kind != PlacementKind::kOffset)
      step.groups /= mesh[axis].second;
    const int64_t n = step.group, L = step.local_before.elements;
    switch (op) {
      case ReshardOp::kAllGather:
        step.size_bytes = n * L * b;
        step.bus_factor = static_cast<double>(n - 1) / static_cast<double>(n);
        step.send_bytes = step.recv_bytes = (n - 1) * L * b;
        break;
      case ReshardOp::kReduceScatter:
      case ReshardOp::kAllToAll:
        step.size_bytes = L * b;
        step.bus_factor = static_cast<double>(n - 1) / static_cast<double>(n);
        step.send_bytes = step.recv_bytes = (n - 1) * (L / n) * b;
        break;
      case ReshardOp::kAllReduce:
        step.size_bytes = L * b;
        step.bus_factor = 2.0 * static_cast<double>(n - 1) / static_cast<double>(n);
        step.send_bytes = step.recv_bytes = ceil_div(2 * (n - 1) * L * b, n);  // ring: 2(n-1) chunks of S/n
        break;
      case ReshardOp::kBroadcast:
        step.size_bytes = L * b;
        step.bus_factor = 1.0;
        step.send_bytes = step.recv_bytes = L * b;  // ring pipeline: each device forwards S once
        step.root = cur.placements[axis].coord;
        break;
      case ReshardOp::kSendRecv:
        step.group = 2;
        step.size_bytes = L * b;
        step.bus_factor = 1.0;
        step.send_bytes = step.recv_bytes = L * b;
        step.root = cur.placements[axis].coord;
        step.target = next.placements[axis].coord;
        break;
      case ReshardOp::kSlice:
      case ReshardOp::kPermute:
        step.local_bytes = 2 * step.local_after.elements * b;
        break;
      case ReshardOp::kPartition:
        step.local_bytes = L * b;  // the non-zero coordinates write zeros
        break;
      case ReshardOp::kDrop:
        step.root = next.placements[axis].coord;
        break;
    }
    if (op == ReshardOp::kPermute) {
      auto c =
          plan_convert(step.local_before.layout, step.local_after.layout, step.local_before.shape, dtype);
      if (!c) return make_error("local permute: " + c.error().message, 0, "to", "not-expressible");
      step.convert = *c;
    }
    if (op == ReshardOp::kSlice) step.convert = slice_convert(step, dtype);
    if (is_collective(op)) {
      const double bw =
          op == ReshardOp::kSendRecv ? bandwidths.send_recv_gbps : bandwidths.collective_busbw_gbps;
      step.predicted_seconds = static_cast<double>(step.size_bytes) * step.bus_factor / (bw * 1e9);
    } else {
      // A permute or slice with a conversion plan runs as that plan: its DRAM traffic at copy speed.
      const double bytes = step.convert ? static_cast<double>(convert_traffic_bytes(*step.convert))
                                        : static_cast<double>(step.local_bytes);
      step.predicted_seconds = bytes / (bandwidths.local_copy_gbps * 1e9);
    }
    plan.send_bytes += step.send_bytes;
    plan.recv_bytes += step.recv_bytes;
    plan.predicted_seconds += step.predicted_seconds;
    plan.steps.push_back(std::move(step));
    cur = std::move(next);
    return std::nullopt;
  };
  // Memory order with pieces [q, q + count) taken out, and with them put in front (in logical order).
  auto without = [](std::vector<int> memory, int q, int count) {
    std::erase_if(memory, [&](int p) { return p >= q && p < q + count; });
    return memory;
  };
  auto in_front = [&](const std::vector<int>& memory, int q, int count) {
    std::vector<int> out;
    for (int p = q; p < q + count; ++p) out.push_back(p);
    for (int p : without(memory, q, count)) out.push_back(p);
    return out;
  };
  // Puts a run of pieces outermost in local memory (what all_to_all and reduce_scatter scatter by).
  auto bring_out = [&](const Placement& t) -> std::optional<Error> {
    State next = cur;
    next.memory = in_front(cur.memory, t.piece, t.pieces);
    if (next.memory == cur.memory) return std::nullopt;
    return emit(ReshardOp::kPermute, -1, next, t.piece, t.pieces);
  };

  // One move per iteration; each axis needs at most two (through Replicate), plus one cycle break.
  const int naxes = static_cast<int>(mesh.size());
  for (int guard = 0; guard < 4 * naxes + 4; ++guard) {
    struct Move {
      int rank;
      int axis;
      ReshardOp op;
      Placement to;
      bool blocked;
    };
    std::vector<Move> moves;
    for (int a = naxes - 1; a >= 0; --a) {
      const Placement c = cur.placements[a], t = target.placements[a];
      if (c == t) continue;
      const Placement R{PlacementKind::kReplicate, -1, 0, 0};
      bool t_local = t.kind == PlacementKind::kShard;
      for (int q = t.piece; t_local && q < t.piece + t.pieces; ++q) t_local = cur.owner[q] == kLocal;
      switch (c.kind) {
        case PlacementKind::kShard:
          if (t.kind == PlacementKind::kShard) {
            moves.push_back({3, a, ReshardOp::kAllToAll, t, !t_local});
          } else {
            moves.push_back({5, a, ReshardOp::kAllGather, R, false});
          }
          break;
        case PlacementKind::kReplicate:
          if (t.kind == PlacementKind::kShard) moves.push_back({0, a, ReshardOp::kSlice, t, !t_local});
          if (t.kind == PlacementKind::kPartial) moves.push_back({4, a, ReshardOp::kPartition, t, false});
          if (t.kind == PlacementKind::kOffset) moves.push_back({0, a, ReshardOp::kDrop, t, false});
          break;
        case PlacementKind::kPartial:
          if (t.kind == PlacementKind::kShard) {
            moves.push_back({2, a, ReshardOp::kReduceScatter, t, !t_local});
          } else {
            moves.push_back({3, a, ReshardOp::kAllReduce, R, false});
          }
          break;
        case PlacementKind::kOffset:
          if (t.kind == PlacementKind::kOffset) {
            moves.push_back({3, a, ReshardOp::kSendRecv, t, false});
          } else {
            moves.push_back({5, a, ReshardOp::kBroadcast, R, false});
          }
          break;
      }
    }
    if (moves.empty()) break;
    const Move* best = nullptr;
    for (const Move& m : moves) {
      if (!m.blocked && (best == nullptr || m.rank < best->rank)) best = &m;
    }
    Move chosen;
    if (best != nullptr) {
      chosen = *best;
    } else {
      // Every change waits for a piece another axis owns: a cycle of shards. Gather the innermost one; it
      // slices its target back later.
      const Move& m = moves.front();
      chosen = {5, m.axis, ReshardOp::kAllGather, Placement{PlacementKind::kReplicate, -1, 0, 0}, false};
    }
    const int a = chosen.axis;
    State next = cur;
    Placement moved;  // the run of pieces the step acts on
    const Placement was = cur.placements[a];
    auto own = [&](const Placement& run, int owner) {
      for (int q = run.piece; q < run.piece + run.pieces; ++q) next.owner[q] = owner;
    };
    switch (chosen.op) {
      case ReshardOp::kAllGather:
        moved = was;
        own(was, kLocal);
        next.memory = in_front(cur.memory, was.piece, was.pieces);
        break;
      case ReshardOp::kAllToAll:
        if (auto e = bring_out(chosen.to)) return *e;
        next = cur;
        moved = was;
        own(chosen.to, a);
        own(was, kLocal);
        next.memory = in_front(without(cur.memory, chosen.to.piece, chosen.to.pieces), was.piece, was.pieces);
        break;
      case ReshardOp::kReduceScatter:
      case ReshardOp::kSlice:
        if (chosen.op == ReshardOp::kReduceScatter) {
          if (auto e = bring_out(chosen.to)) return *e;
          next = cur;
        }
        moved = chosen.to;
        own(chosen.to, a);
        next.memory = without(cur.memory, chosen.to.piece, chosen.to.pieces);
        break;
      default:
        break;
    }
    next.placements[a] = chosen.to;
    if (auto e = emit(chosen.op, a, next, moved.piece, moved.pieces)) return *e;
  }
  if (cur.placements != target.placements)
    return make_error("no sequence of the standard transitions reaches the to layout", 0, "to",
                      "not-expressible");
  if (cur.memory != target.memory) {
    if (auto e = emit(ReshardOp::kPermute, -1, target, -1, 0)) return *e;
  }
  return plan;
}

// ---- the host executor ---------------------------------------------------------------------------------

namespace {

using Buffers = std::vector<std::vector<int64_t>>;

// Buffers are indexed by the int64 values layouts produce; size_t is narrower on 32-bit targets
// (WebAssembly), and table() bounded every index by the cell limit.
template <class V>
auto& at(V& v, int64_t i) {
  return v[static_cast<size_t>(i)];
}

// The part of element value v held by partial holder p of `parts` (they sum to v): a deterministic spread of
// positive and negative values, so that a missing or doubled holder changes the sum.
int64_t partial_value(int64_t v, int64_t x, int64_t p, int64_t parts) {
  auto share = [&](int64_t q) { return ((x * 7 + q * 13) % 17) - 8; };
  if (p > 0) return share(p);
  int64_t rest = v;
  for (int64_t q = 1; q < parts; ++q) rest -= share(q);
  return rest;
}

// Element by element: every holder's slot, whole values equal x + 1, partial holders summing to it, and each
// device's buffer exactly as large as the slots the layout gives it.
Result<int64_t> check_buffers(const Layout& layout, const ReshardPlan& plan, const Buffers& buffers,
                              const std::string& where, int64_t cell_limit) {
  auto placed = place_on_mesh(layout, plan.shape, plan.mesh, cell_limit);
  if (!placed) return placed.error();
  const Table& t = placed->table;
  const size_t na = t.axes.size();
  const int64_t parts = std::max<int64_t>(t.partials, 1);
  std::vector<int64_t> slots(buffers.size(), 0);
  int64_t checked = 0;
  for (int64_t x = 0; x < t.elements; ++x) {
    for (int64_t r = 0; r < t.replicas; ++r) {
      int64_t sum = 0;
      for (int64_t p = 0; p < parts; ++p) {
        const int64_t h = r * parts + p;
        const int64_t* pos = &at(t.values, (x * t.holders() + h) * static_cast<int64_t>(na));
        const int64_t d = mesh_device(*placed, plan.mesh, pos);
        const int64_t m = placed->m_axis >= 0 ? pos[placed->m_axis] : 0;
        if (m < 0 || m >= static_cast<int64_t>(at(buffers, d).size()))
          return make_error(where + ": element " + std::to_string(x) + " belongs at slot " +
                                std::to_string(m) + " of device " + std::to_string(d) +
                                ", whose buffer holds " + std::to_string(at(buffers, d).size()),
                            0, "executor", "coverage");
        at(slots, d) = std::max(at(slots, d), m + 1);
        sum += at(at(buffers, d), m);
        ++checked;
        if (t.partials == 0 && at(at(buffers, d), m) != x + 1)
          return make_error(where + ": device " + std::to_string(d) + " slot " + std::to_string(m) +
                                " holds " + std::to_string(at(at(buffers, d), m)) + ", element " +
                                std::to_string(x) + " is " + std::to_string(x + 1),
                            0, "executor", "mismatch");
      }
      if (sum != x + 1)
        return make_error(where + ": the partial holders of element " + std::to_string(x) + " (replica " +
                              std::to_string(r) + ") sum to " + std::to_string(sum) + ", not " +
                              std::to_string(x + 1),
                          0, "executor", "mismatch");
    }
  }
  for (size_t d = 0; d < buffers.size(); ++d) {
    if (static_cast<int64_t>(at(buffers, d).size()) != at(slots, d))
      return make_error(where + ": device " + std::to_string(d) + " holds " +
                            std::to_string(at(buffers, d).size()) + " values, the layout gives it " +
                            std::to_string(at(slots, d)),
                        0, "executor", "mismatch");
  }
  return checked;
}

int64_t offset_of(const Layout& local, int64_t y) {
  int64_t off = 0;
  for (size_t i = local.shard.size(); i-- > 0;) {
    off += (y % local.shard[i].extent) * local.shard[i].stride.k;
    y /= local.shard[i].extent;
  }
  return off;
}

}  // namespace

Result<ReshardCheck> execute_reshard_host(const ReshardPlan& plan, int64_t cell_limit) {
  auto devices = check_mesh(plan.mesh);
  if (!devices) return devices.error();
  const int64_t nd = *devices;
  const int naxes = static_cast<int>(plan.mesh.size());
  std::vector<int64_t> pitch(naxes, 1);  // device-index distance of one step along each axis
  for (int a = naxes - 1; a > 0; --a) pitch[a - 1] = pitch[a] * plan.mesh[a].second;
  auto coord = [&](int64_t d, int a) { return (d / pitch[a]) % plan.mesh[a].second; };

  // Fill from the source layout through the engine's table.
  Buffers buf(static_cast<size_t>(nd));
  {
    auto placed = place_on_mesh(plan.from, plan.shape, plan.mesh, cell_limit);
    if (!placed) return placed.error();
    const Table& t = placed->table;
    const size_t na = t.axes.size();
    const int64_t parts = std::max<int64_t>(t.partials, 1);
    for (int64_t x = 0; x < t.elements; ++x) {
      for (int64_t h = 0; h < t.holders(); ++h) {
        const int64_t* pos = &at(t.values, (x * t.holders() + h) * static_cast<int64_t>(na));
        const int64_t d = mesh_device(*placed, plan.mesh, pos);
        const int64_t m = placed->m_axis >= 0 ? pos[placed->m_axis] : 0;
        if (m >= static_cast<int64_t>(at(buf, d).size())) at(buf, d).resize(static_cast<size_t>(m + 1), 0);
        at(at(buf, d), m) = t.partials == 0 ? x + 1 : partial_value(x + 1, x, h % parts, parts);
      }
    }
  }
  ReshardCheck check;
  check.devices = nd;
  auto c0 = check_buffers(plan.from, plan, buf, "before the first step", cell_limit);
  if (!c0) return c0.error();
  check.elements_checked += *c0;

  for (size_t si = 0; si < plan.steps.size(); ++si) {
    const ReshardStep& s = plan.steps[si];
    const std::string where = "step " + std::to_string(si) + " (" + std::string(to_string(s.op)) + ")";
    const int a = s.axis.empty() ? -1 : mesh_index(plan.mesh, s.axis);
    const int64_t n = a >= 0 ? plan.mesh[a].second : 1;
    Buffers out(static_cast<size_t>(nd));
    // The devices of d's group along axis a, by rank (coordinate on a).
    auto member = [&](int64_t d, int64_t rank) { return d + (rank - coord(d, a)) * pitch[a]; };
    for (int64_t d = 0; d < nd; ++d) {
      const std::vector<int64_t>& in = at(buf, d);
      std::vector<int64_t>& o = at(out, d);
      switch (s.op) {
        case ReshardOp::kAllGather:  // out[r * count + i] = in_r[i]
          if (in.empty()) break;
          for (int64_t r = 0; r < n; ++r) {
            const auto& src = at(buf, member(d, r));
            o.insert(o.end(), src.begin(), src.end());
          }
          break;
        case ReshardOp::kReduceScatter: {  // out_r[i] = sum over j of in_j[r * count + i]
          if (in.empty()) break;
          const int64_t count = static_cast<int64_t>(in.size()) / n, r = coord(d, a);
          o.assign(static_cast<size_t>(count), 0);
          for (int64_t j = 0; j < n; ++j) {
            for (int64_t i = 0; i < count; ++i) at(o, i) += at(at(buf, member(d, j)), r * count + i);
          }
          break;
        }
        case ReshardOp::kAllToAll: {  // out_j[r * count + i] = in_r[j * count + i]
          if (in.empty()) break;
          const int64_t count = static_cast<int64_t>(in.size()) / n, j = coord(d, a);
          for (int64_t r = 0; r < n; ++r) {
            const auto& src = at(buf, member(d, r));
            o.insert(o.end(), src.begin() + static_cast<std::ptrdiff_t>(j * count),
                     src.begin() + static_cast<std::ptrdiff_t>((j + 1) * count));
          }
          break;
        }
        case ReshardOp::kAllReduce:
          if (in.empty()) break;
          o.assign(in.size(), 0);
          for (int64_t r = 0; r < n; ++r) {
            for (size_t i = 0; i < in.size(); ++i) o[i] += buf[static_cast<size_t>(member(d, r))][i];
          }
          break;
        case ReshardOp::kBroadcast:
          o = at(buf, member(d, s.root));
          break;
        case ReshardOp::kSendRecv:
          if (coord(d, a) == s.target) o = at(buf, member(d, s.root));
          break;
        case ReshardOp::kDrop:
          if (coord(d, a) == s.root) o = in;
          break;
        case ReshardOp::kPartition:
          o = in;
          if (coord(d, a) != 0) std::fill(o.begin(), o.end(), 0);
          break;
        case ReshardOp::kSlice: {
          if (in.empty()) break;
          // Local index y of the result, with the sliced piece's digit (this device's coordinate) put back
          // in, is the index of the same element before.
          const Layout& before = s.local_before.layout;
          const Layout& after = s.local_after.layout;
          int pos = 0;  // the sliced piece's place among the local pieces before
          for (int p = 0; p < s.piece; ++p)
            pos += static_cast<int>(s.before.shard[p].stride.axis == kMemoryAxis);
          int64_t inner = 1;
          for (size_t i = pos + s.pieces; i < before.shard.size(); ++i) inner *= before.shard[i].extent;
          o.assign(static_cast<size_t>(s.local_after.elements), 0);
          for (int64_t y = 0; y < s.local_after.elements; ++y) {
            const int64_t yb = (y / inner * n + coord(d, a)) * inner + y % inner;
            at(o, offset_of(after, y)) = at(in, offset_of(before, yb));
          }
          break;
        }
        case ReshardOp::kPermute: {
          if (in.empty()) break;
          auto c =
              plan_convert(s.local_before.layout, s.local_after.layout, s.local_before.shape, DType::kF64);
          if (!c) return make_error(where + ": " + c.error().message, 0, "executor", "not-expressible");
          o.assign(in.size(), 0);
          auto moved = execute_convert_host(*c, std::as_bytes(std::span<const int64_t>(in)),
                                            std::as_writable_bytes(std::span<int64_t>(o)));
          if (!moved) return make_error(where + ": " + moved.error().message, 0, "executor", "limit");
          break;
        }
      }
    }
    buf = std::move(out);
    auto c = check_buffers(s.after, plan, buf, "after " + where, cell_limit);
    if (!c) return c.error();
    check.elements_checked += *c;
    ++check.steps;
  }
  auto c = check_buffers(plan.to, plan, buf, "at the end, against the to layout", cell_limit);
  if (!c) return c.error();
  check.elements_checked += *c;
  return check;
}

Result<MeshPlacement> place_on_mesh(const Layout& layout, const std::vector<int64_t>& shape, const Mesh& mesh,
                                    int64_t cell_limit) {
  auto t = table(layout, shape, cell_limit);
  if (!t) return t.error();
  MeshPlacement p{std::move(t).value(), {}, -1};
  for (size_t i = 0; i < p.table.axes.size(); ++i) {
    p.mesh_of_axis.push_back(mesh_index(mesh, p.table.axes[i]));
    if (p.table.axes[i] == kMemoryAxis) p.m_axis = static_cast<int>(i);
  }
  return p;
}

int64_t mesh_device(const MeshPlacement& p, const Mesh& mesh, const int64_t* pos) {
  std::vector<int64_t> coord(mesh.size(), 0);
  for (size_t i = 0; i < p.mesh_of_axis.size(); ++i) {
    if (p.mesh_of_axis[i] >= 0) coord[static_cast<size_t>(p.mesh_of_axis[i])] = pos[i];
  }
  int64_t d = 0;
  for (size_t a = 0; a < mesh.size(); ++a) d = d * mesh[a].second + coord[a];
  return d;
}

Result<LocalCopy> local_copy(const ReshardStep& s, int64_t coordinate) {
  const auto& b = s.local_before.layout.shard;
  const auto& f = s.local_after.layout.shard;
  LocalCopy c;
  if (s.op == ReshardOp::kPermute) {
    if (b.size() != f.size())
      return make_error("permute: the local layouts " + to_string(s.local_before.layout) + " and " +
                        to_string(s.local_after.layout) + " do not have the same pieces");
    for (size_t i = 0; i < b.size(); ++i) {
      if (b[i].extent != f[i].extent)
        return make_error("permute: piece " + std::to_string(i) + " has extent " +
                          std::to_string(b[i].extent) + " before and " + std::to_string(f[i].extent) +
                          " after");
      c.extent.push_back(b[i].extent);
      c.src_stride.push_back(b[i].stride.k);
      c.dst_stride.push_back(f[i].stride.k);
    }
    return c;
  }
  if (s.op != ReshardOp::kSlice)
    return make_error("local_copy: a " + std::string(to_string(s.op)) + " step is no permute or slice");
  // The sliced pieces are the step's pieces piece.. among the mesh layout's shard modes; among the local
  // pieces they start after the local (@m) modes before them, as in the host executor.
  size_t pos = 0;
  for (int q = 0; q < s.piece && q < static_cast<int>(s.before.shard.size()); ++q)
    pos += s.before.shard[static_cast<size_t>(q)].stride.axis == kMemoryAxis;
  const size_t count = static_cast<size_t>(s.pieces);
  if (pos + count > b.size() || b.size() - count != f.size())
    return make_error("slice: the local layouts " + to_string(s.local_before.layout) + " and " +
                      to_string(s.local_after.layout) + " do not differ by the sliced pieces");
  int64_t rest = coordinate;  // the sliced digits, row-major over the sliced pieces
  for (size_t i = pos + count; i-- > pos;) {
    c.src_base += (rest % b[i].extent) * b[i].stride.k;
    rest /= b[i].extent;
  }
  for (size_t i = 0, j = 0; i < b.size(); ++i) {
    if (i >= pos && i < pos + count) continue;
    if (b[i].extent != f[j].extent)
      return make_error("slice: piece extents differ (" + std::to_string(b[i].extent) + " before, " +
                        std::to_string(f[j].extent) + " after)");
    c.extent.push_back(f[j].extent);
    c.src_stride.push_back(b[i].stride.k);
    c.dst_stride.push_back(f[j].stride.k);
    ++j;
  }
  return c;
}

}  // namespace layoutscope
