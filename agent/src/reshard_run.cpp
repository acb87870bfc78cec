#include "reshard_run.hpp"

#include <algorithm>

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

Result<ReshardMeasurement> run_reshard(const std::string& kind, Backend& backend, const ReshardParams& p,
                                       RunControl& ctl) {
#ifdef LAYOUTSCOPE_WITH_CUDA
  if (kind == "cuda") return run_reshard_nccl(p, ctl);
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
  m.verification = v;
  ctl.progress(1.0, "done");
  return m;
}

Result<CollectiveMeasurement> run_collective(const std::string& kind, Backend&, const CollectiveParams& p,
                                             RunControl& ctl) {
#ifdef LAYOUTSCOPE_WITH_CUDA
  if (kind == "cuda") return run_collective_nccl(p, ctl);
#endif
  (void)p;
  (void)ctl;
  return make_error("the " + kind + " backend runs no collectives (NCCL needs GPUs)", 0, "benchmark");
}

}  // namespace layoutscope::agent
