#include "reshard_run.hpp"

#include <algorithm>

#include "layoutscope/parse.hpp"

namespace layoutscope::agent {
namespace {

// Buffers are indexed by the int64 values layouts produce.
template <class V>
auto& at(V& v, int64_t i) {
  return v[static_cast<size_t>(i)];
}

struct Placed {
  Table table;
  std::vector<int> mesh_of_axis;  // per table axis: the mesh axis, or -1 (@m)
  int m_axis = -1;
};

Result<Placed> place(const Layout& layout, const ReshardPlan& plan, int64_t cell_limit) {
  auto t = table(layout, plan.shape, cell_limit);
  if (!t) return t.error();
  Placed p{std::move(t).value(), {}, -1};
  for (size_t i = 0; i < p.table.axes.size(); ++i) {
    int mi = -1;
    for (size_t a = 0; a < plan.mesh.size(); ++a)
      if (plan.mesh[a].first == p.table.axes[i]) mi = static_cast<int>(a);
    p.mesh_of_axis.push_back(mi);
    if (p.table.axes[i] == kMemoryAxis) p.m_axis = static_cast<int>(i);
  }
  return p;
}

int64_t device_of(const Placed& p, const Mesh& mesh, const int64_t* pos) {
  std::vector<int64_t> coord(mesh.size(), 0);
  for (size_t i = 0; i < p.mesh_of_axis.size(); ++i)
    if (p.mesh_of_axis[i] >= 0) coord[static_cast<size_t>(p.mesh_of_axis[i])] = pos[i];
  int64_t d = 0;
  for (size_t a = 0; a < mesh.size(); ++a) d = d * mesh[a].second + coord[a];
  return d;
}

int64_t device_count(const Mesh& mesh) {
  int64_t n = 1;
  for (const auto& [name, size] : mesh) n *= size;
  return n;
}

bool same_value(int64_t got, int64_t want, DType dtype) {
  if (dtype == DType::kU8) return ((got % 256) + 256) % 256 == ((want % 256) + 256) % 256;
  return got == want;
}

}  // namespace

const char* to_string(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::kAllGather:
      return "all_gather";
    case CollectiveOp::kReduceScatter:
      return "reduce_scatter";
    case CollectiveOp::kAllToAll:
      return "all_to_all";
    case CollectiveOp::kAllReduce:
      return "all_reduce";
  }
  return "?";
}

double bus_factor(CollectiveOp op, int n) {
  const double f = static_cast<double>(n - 1) / n;
  return op == CollectiveOp::kAllReduce ? 2 * f : f;
}

// The largest R whose values and partial sums (shares in [-2, 2], at most kMaxMeshDevices holders) stay
// integers the dtype holds exactly: bf16 has 8 significant bits (integers to 256), f16 11 (2048), f32 24,
// f64 53; u8 arithmetic is modulo 256 on the device and in the check.
int64_t reshard_value_range(DType dtype) {
  switch (dtype) {
    case DType::kU8:
      return 255;
    case DType::kBF16:
      return 64;
    case DType::kF16:
      return 1024;
    case DType::kF64:
      return int64_t{1} << 40;
    default:
      return int64_t{1} << 22;
  }
}

int64_t element_value(int64_t x, DType dtype) { return x % reshard_value_range(dtype) + 1; }

// Shares of holders 1.. are small values of either sign spread over x and p; holder 0 keeps the rest, so a
// missing or doubled holder changes the sum. bf16 keeps |share| <= 2 so that 64 holders stay under 256.
int64_t partial_share(int64_t value, int64_t x, int64_t p, int64_t parts) {
  auto share = [&](int64_t q) { return ((x * 7 + q * 13) % 5) - 2; };
  if (p > 0) return share(p);
  int64_t rest = value;
  for (int64_t q = 1; q < parts; ++q) rest -= share(q);
  return rest;
}

Result<std::vector<std::vector<int64_t>>> reshard_buffers(const Layout& layout, const ReshardPlan& plan,
                                                          int64_t cell_limit) {
  auto placed = place(layout, plan, cell_limit);
  if (!placed) return placed.error();
  const Table& t = placed->table;
  const size_t na = t.axes.size();
  const int64_t parts = std::max<int64_t>(t.partials, 1);
  std::vector<std::vector<int64_t>> buf(static_cast<size_t>(device_count(plan.mesh)));
  for (int64_t x = 0; x < t.elements; ++x) {
    const int64_t v = element_value(x, plan.dtype);
    for (int64_t h = 0; h < t.holders(); ++h) {
      const int64_t* pos = &at(t.values, (x * t.holders() + h) * static_cast<int64_t>(na));
      const int64_t d = device_of(*placed, plan.mesh, pos);
      const int64_t m = placed->m_axis >= 0 ? pos[placed->m_axis] : 0;
      auto& b = at(buf, d);
      if (m >= static_cast<int64_t>(b.size())) b.resize(static_cast<size_t>(m + 1), 0);
      at(b, m) = t.partials == 0 ? v : partial_share(v, x, h % parts, parts);
    }
  }
  return buf;
}

Verification check_reshard_buffers(const Layout& layout, const ReshardPlan& plan,
                                   const std::vector<std::vector<int64_t>>& buffers, const std::string& where,
                                   int64_t cell_limit) {
  Verification v;
  v.method = "every (element, holder) of the layout's table against the device buffers, exact";
  auto placed = place(layout, plan, cell_limit);
  if (!placed) {
    v.first_mismatch = where + ": " + placed.error().message;
    v.mismatches = 1;
    return v;
  }
  const Table& t = placed->table;
  const size_t na = t.axes.size();
  const int64_t parts = std::max<int64_t>(t.partials, 1);
  std::vector<int64_t> slots(buffers.size(), 0);
  auto mismatch = [&](const std::string& text) {
    if (v.mismatches++ == 0) v.first_mismatch = where + ": " + text;
  };
  for (int64_t x = 0; x < t.elements; ++x) {
    const int64_t want = element_value(x, plan.dtype);
    for (int64_t r = 0; r < t.replicas; ++r) {
      int64_t sum = 0;
      bool present = true;
      for (int64_t p = 0; p < parts; ++p) {
        const int64_t* pos = &at(t.values, (x * t.holders() + r * parts + p) * static_cast<int64_t>(na));
        const int64_t d = device_of(*placed, plan.mesh, pos);
        const int64_t m = placed->m_axis >= 0 ? pos[placed->m_axis] : 0;
        const auto& b = at(buffers, d);
        ++v.checked;
        if (m < 0 || m >= static_cast<int64_t>(b.size())) {
          mismatch("element " + std::to_string(x) + " belongs at slot " + std::to_string(m) + " of device " +
                   std::to_string(d) + ", whose buffer holds " + std::to_string(b.size()));
          present = false;
          continue;
        }
        at(slots, d) = std::max(at(slots, d), m + 1);
        sum += at(b, m);
        if (t.partials == 0 && !same_value(at(b, m), want, plan.dtype))
          mismatch("device " + std::to_string(d) + " slot " + std::to_string(m) + " holds " +
                   std::to_string(at(b, m)) + ", element " + std::to_string(x) + " is " +
                   std::to_string(want));
      }
      if (present && t.partials > 0 && !same_value(sum, want, plan.dtype))
        mismatch("the partial holders of element " + std::to_string(x) + " (replica " + std::to_string(r) +
                 ") sum to " + std::to_string(sum) + ", not " + std::to_string(want));
    }
  }
  for (size_t d = 0; d < buffers.size(); ++d)
    if (static_cast<int64_t>(buffers[d].size()) != slots[d])
      mismatch("device " + std::to_string(d) + " holds " + std::to_string(buffers[d].size()) +
               " values, the layout gives it " + std::to_string(slots[d]));
  v.passed = v.mismatches == 0;
  return v;
}

Result<StridedCopy> permute_copy(const ReshardStep& s) {
  const auto& b = s.local_before.layout.shard;
  const auto& f = s.local_after.layout.shard;
  if (b.size() != f.size() || b.size() > static_cast<size_t>(kStridedCopyMaxRank))
    return make_error("permute: the local layouts " + to_string(s.local_before.layout) + " and " +
                      to_string(s.local_after.layout) + " do not have the same pieces");
  StridedCopy c;
  c.rank = static_cast<int>(b.size());
  c.n = 1;
  for (size_t i = 0; i < b.size(); ++i) {
    if (b[i].extent != f[i].extent)
      return make_error("permute: piece " + std::to_string(i) + " has extent " + std::to_string(b[i].extent) +
                        " before and " + std::to_string(f[i].extent) + " after");
    c.extent[i] = b[i].extent;
    c.src_stride[i] = b[i].stride.k;
    c.dst_stride[i] = f[i].stride.k;
    c.n *= b[i].extent;
  }
  return c;
}

// The sliced pieces are the step's pieces piece.. among the mesh layout's shard modes; among the local pieces
// they start after the local (@m) modes before them, as in the engine's host executor.
Result<StridedCopy> slice_copy(const ReshardStep& s, int64_t coordinate) {
  const auto& b = s.local_before.layout.shard;
  const auto& f = s.local_after.layout.shard;
  size_t pos = 0;
  for (int q = 0; q < s.piece && q < static_cast<int>(s.before.shard.size()); ++q)
    pos += s.before.shard[static_cast<size_t>(q)].stride.axis == kMemoryAxis;
  const size_t count = static_cast<size_t>(s.pieces);
  if (pos + count > b.size() || b.size() - count != f.size() ||
      f.size() > static_cast<size_t>(kStridedCopyMaxRank))
    return make_error("slice: the local layouts " + to_string(s.local_before.layout) + " and " +
                      to_string(s.local_after.layout) + " do not differ by the sliced pieces");
  StridedCopy c;
  int64_t rest = coordinate;  // the sliced digits, row-major over the sliced pieces
  for (size_t i = pos + count; i-- > pos;) {
    c.src_base += (rest % b[i].extent) * b[i].stride.k;
    rest /= b[i].extent;
  }
  c.rank = static_cast<int>(f.size());
  c.n = 1;
  for (size_t i = 0, j = 0; i < b.size(); ++i) {
    if (i >= pos && i < pos + count) continue;
    if (b[i].extent != f[j].extent)
      return make_error("slice: piece extents differ (" + std::to_string(b[i].extent) + " before, " +
                        std::to_string(f[j].extent) + " after)");
    c.extent[j] = f[j].extent;
    c.src_stride[j] = b[i].stride.k;
    c.dst_stride[j] = f[j].stride.k;
    c.n *= f[j].extent;
    ++j;
  }
  return c;
}

bool strided_copy_host(const std::vector<int64_t>& in, std::vector<int64_t>& out, const StridedCopy& c) {
  for (int64_t y = 0; y < c.n; ++y) {
    int64_t rest = y, src = c.src_base, dst = 0;
    for (int i = c.rank - 1; i >= 0; --i) {
      const int64_t digit = rest % c.extent[i];
      rest /= c.extent[i];
      src += digit * c.src_stride[i];
      dst += digit * c.dst_stride[i];
    }
    if (src < 0 || dst < 0 || src >= static_cast<int64_t>(in.size()) ||
        dst >= static_cast<int64_t>(out.size()))
      return false;
    at(out, dst) = at(in, src);
  }
  return true;
}

Verification run_device_steps_on_host(const ReshardPlan& plan, int64_t cell_limit) {
  Verification v;
  const std::string method =
      "the cuda path's steps on host buffers (NCCL's collective definitions, the strided-copy descriptors of "
      "the "
      "local steps, the cuda path's element values), every step and the end checked against the engine's "
      "tables";
  v.method = method;
  auto fail = [&](const std::string& text) {
    v.passed = false;
    v.mismatches = std::max<int64_t>(v.mismatches, 1);
    v.first_mismatch = text;
    return v;
  };
  auto init = reshard_buffers(plan.from, plan, cell_limit);
  if (!init) return fail("the source buffers: " + init.error().message);
  std::vector<std::vector<int64_t>> buf = std::move(init).value();
  const int64_t nd = static_cast<int64_t>(buf.size());
  const int naxes = static_cast<int>(plan.mesh.size());
  std::vector<int64_t> pitch(static_cast<size_t>(naxes), 1);
  for (int a = naxes - 1; a > 0; --a) pitch[a - 1] = pitch[a] * plan.mesh[a].second;
  auto coord = [&](int64_t d, int a) { return (d / pitch[a]) % plan.mesh[a].second; };
  auto member = [&](int64_t d, int a, int64_t rank) { return d + (rank - coord(d, a)) * pitch[a]; };
  int64_t checked = 0;
  for (size_t si = 0; si < plan.steps.size(); ++si) {
    const ReshardStep& s = plan.steps[si];
    const std::string where = "step " + std::to_string(si) + " (" + std::string(to_string(s.op)) + ")";
    int a = -1;
    for (int k = 0; k < naxes; ++k)
      if (plan.mesh[k].first == s.axis) a = k;
    const int64_t n = a >= 0 ? plan.mesh[a].second : 1;
    std::vector<std::vector<int64_t>> out(static_cast<size_t>(nd));
    if (is_collective(s.op)) {
      for (int64_t d0 = 0; d0 < nd; ++d0) {
        if (coord(d0, a) != 0) continue;
        bool any = false;
        for (int64_t r = 0; r < n; ++r) any = any || !at(buf, member(d0, a, r)).empty();
        if (!any) continue;
        for (int64_t r = 0; r < n; ++r) {
          const int64_t d = member(d0, a, r);
          const auto& in = at(buf, d);
          auto& o = at(out, d);
          const auto& root = s.root >= 0 ? at(buf, member(d0, a, s.root)) : in;
          switch (s.op) {
            case ReshardOp::kAllGather:
              for (int64_t k = 0; k < n; ++k) {
                const auto& src = at(buf, member(d0, a, k));
                o.insert(o.end(), src.begin(), src.end());
              }
              break;
            case ReshardOp::kReduceScatter: {
              const int64_t count = static_cast<int64_t>(in.size()) / n;
              o.assign(static_cast<size_t>(count), 0);
              for (int64_t k = 0; k < n; ++k)
                for (int64_t i = 0; i < count; ++i) at(o, i) += at(at(buf, member(d0, a, k)), r * count + i);
              break;
            }
            case ReshardOp::kAllReduce:
              o.assign(in.size(), 0);
              for (int64_t k = 0; k < n; ++k)
                for (size_t i = 0; i < in.size(); ++i) o[i] += at(buf, member(d0, a, k))[i];
              break;
            case ReshardOp::kAllToAll: {  // rank r receives chunk r of every rank j into slot j
              const int64_t chunk = static_cast<int64_t>(in.size()) / n;
              for (int64_t j = 0; j < n; ++j) {
                const auto& src = at(buf, member(d0, a, j));
                o.insert(o.end(), src.begin() + static_cast<std::ptrdiff_t>(r * chunk),
                         src.begin() + static_cast<std::ptrdiff_t>((r + 1) * chunk));
              }
              break;
            }
            case ReshardOp::kBroadcast:
              o = root;
              break;
            case ReshardOp::kSendRecv:
              if (r == s.target) o = root;
              break;
            default:
              break;
          }
        }
      }
    } else {
      for (int64_t d = 0; d < nd; ++d) {
        const auto& in = at(buf, d);
        if (in.empty()) continue;
        auto& o = at(out, d);
        switch (s.op) {
          case ReshardOp::kDrop:
            if (coord(d, a) == s.root) o = in;
            break;
          case ReshardOp::kPartition:
            o.assign(in.size(), 0);
            if (coord(d, a) == 0) o = in;
            break;
          case ReshardOp::kSlice:
          case ReshardOp::kPermute: {
            auto c = s.op == ReshardOp::kSlice ? slice_copy(s, coord(d, a)) : permute_copy(s);
            if (!c) return fail(where + ": " + c.error().message);
            o.assign(static_cast<size_t>(c->n), 0);
            if (!strided_copy_host(in, o, *c))
              return fail(where + ": device " + std::to_string(d) +
                          ": a strided-copy index leaves the buffer");
            break;
          }
          default:
            break;
        }
      }
    }
    buf = std::move(out);
    Verification step = check_reshard_buffers(s.after, plan, buf, "after " + where, cell_limit);
    if (!step.passed) {
      step.method = method;
      return step;
    }
    checked += step.checked;
  }
  Verification end =
      check_reshard_buffers(plan.to, plan, buf, "at the end, against the to layout", cell_limit);
  end.method = method;
  end.checked += checked;
  return end;
}

Result<ReshardMeasurement> run_reshard(const std::string& kind, Backend& backend, const ReshardParams& p,
                                       RunControl& ctl) {
#ifdef LAYOUTSCOPE_WITH_CUDA
  if (kind == "cuda") return run_reshard_nccl(p, backend.devices(), ctl);
#endif
  if (kind != "cpu") return make_error("the " + kind + " backend cannot run reshard", 0, "benchmark");
  ReshardMeasurement m;
  m.simulated = true;
  m.note = "simulated, no timing of collectives: the engine's host executor ran the plan on " +
           std::to_string(p.devices) + " simulated devices and checked every step";
  m.plan = p.plan;
  m.bandwidth_source =
      p.busbw_gbps ? "params.busbw_gbps" : "the engine's defaults (H100/H200 NVLink estimates)";
  m.devices = backend.devices();
  ctl.progress(0.0, "running the plan on host buffers");
  if (ctl.cancelled()) throw Cancelled{};
  auto check = execute_reshard_host(p.plan, kReshardCpuCells);
  m.steps.resize(p.plan.steps.size());
  Verification v;
  v.method =
      "the engine's host executor (execute_reshard_host): every (element, holder) after every step "
      "and at the end, exact";
  if (check) {
    v.passed = true;
    v.checked = check->elements_checked;
    for (auto& s : m.steps) s.verification = {true, 0, 0, "", "checked by the host executor after the step"};
  } else {
    v.mismatches = 1;
    v.first_mismatch = check.error().message;
    for (auto& s : m.steps) s.verification = {false, 0, 0, check.error().message, "host executor"};
  }
  // The cuda path's own step descriptors, on host buffers: both must agree with the destination.
  ctl.progress(0.5, "the cuda path's steps on host buffers");
  const Verification device_steps = run_device_steps_on_host(p.plan, kReshardCpuCells);
  if (v.passed && !device_steps.passed) v = device_steps;
  v.checked += device_steps.checked;
  if (v.passed) v.method += "; and " + device_steps.method;
  m.verification = v;
  ctl.progress(1.0, "done");
  return m;
}

Result<CollectiveMeasurement> run_collective(const std::string& kind, Backend& backend,
                                             const CollectiveParams& p, RunControl& ctl) {
#ifdef LAYOUTSCOPE_WITH_CUDA
  if (kind == "cuda") return run_collective_nccl(p, backend.devices(), ctl);
#endif
  (void)backend;
  (void)p;
  (void)ctl;
  return make_error("the " + kind + " backend runs no collectives (NCCL needs GPUs)", 0, "benchmark");
}

}  // namespace layoutscope::agent
