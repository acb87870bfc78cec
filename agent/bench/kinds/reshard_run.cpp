#include "bench/kinds/reshard_run.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <span>

#include "convert_kernel.hpp"
#include "layoutscope/parse.hpp"

namespace layoutscope::agent {
namespace {

// Buffers are indexed by the int64 values layouts produce.
template <class V>
auto& at(V& v, int64_t i) {
  return v[static_cast<size_t>(i)];
}

int64_t device_count(const Mesh& mesh) {
  int64_t n = 1;
  for (const auto& [name, size] : mesh) n *= size;
  return n;
}

// IEEE half <-> float for the small integers the elements hold.
uint16_t half_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  const uint32_t sign = (u >> 16) & 0x8000u;
  const int exp = static_cast<int>((u >> 23) & 0xff);
  if (exp == 0) return static_cast<uint16_t>(sign);
  return static_cast<uint16_t>(sign | ((exp - 127 + 15) << 10) | ((u >> 13) & 0x3ff));
}
float half_value(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ffu;
  uint32_t u = sign;
  if (exp == 31)
    u |= 0x7f800000u | (man << 13);
  else if (exp != 0)
    u |= ((exp - 15 + 127) << 23) | (man << 13);
  else if (man != 0)
    return (sign ? -1.0f : 1.0f) * static_cast<float>(man) / (1 << 24);
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

bool same_value(int64_t got, int64_t want, DType dtype) {
  if (dtype == DType::kU8) return ((got % 256) + 256) % 256 == ((want % 256) + 256) % 256;
  return got == want;
}

LocalKernelUse describe(const LocalKernel& k) {
  LocalKernelUse u;
  if (k.convert) {
    u.kernel = "generated";
    u.source_hash = codegen::convert_kernel_source(*k.convert).text_hash;
  } else {
    u.kernel = "strided_copy";
    u.reason = k.fallback_reason;
  }
  u.runs_as = "host";
  return u;
}

// out = the plan applied to `in` (values encoded as the dtype's bytes, as on the device); an error text, or
// nothing.
std::optional<std::string> convert_on_host(const LocalKernel& k, const std::vector<int64_t>& in,
                                           std::vector<int64_t>& out, DType dtype) {
  const ConvertPlan& plan = *k.convert;
  const int64_t eb = plan.elem_bytes;
  const int64_t need = k.src_offset + source_extent(plan);
  if (k.src_offset < 0 || need > static_cast<int64_t>(in.size()))
    return "the conversion plan reads " + std::to_string(need) + " elements, the buffer holds " +
           std::to_string(in.size());
  std::vector<unsigned char> src(in.size() * static_cast<size_t>(eb)),
      dst(static_cast<size_t>(plan.elements * eb));
  for (size_t i = 0; i < in.size(); ++i) encode_element(in[i], dtype, &src[i * static_cast<size_t>(eb)]);
  auto moved = execute_convert_host(
      plan,
      std::as_bytes(std::span<const unsigned char>(src)).subspan(static_cast<size_t>(k.src_offset * eb)),
      std::as_writable_bytes(std::span<unsigned char>(dst)));
  if (!moved) return "the conversion plan's host executor: " + moved.error().message;
  out.assign(static_cast<size_t>(plan.elements), 0);
  for (int64_t i = 0; i < plan.elements; ++i)
    at(out, i) = decode_element(&dst[static_cast<size_t>(i * eb)], dtype);
  return std::nullopt;
}

}  // namespace

void encode_element(int64_t v, DType d, unsigned char* out) {
  switch (d) {
    case DType::kU8:
      *out = static_cast<unsigned char>(((v % 256) + 256) % 256);
      return;
    case DType::kF16: {
      const uint16_t h = half_bits(static_cast<float>(v));
      std::memcpy(out, &h, 2);
      return;
    }
    case DType::kBF16: {
      const float f = static_cast<float>(v);
      uint32_t u;
      std::memcpy(&u, &f, 4);
      const uint16_t b = static_cast<uint16_t>(u >> 16);
      std::memcpy(out, &b, 2);
      return;
    }
    case DType::kF64: {
      const double f = static_cast<double>(v);
      std::memcpy(out, &f, 8);
      return;
    }
    default: {
      const float f = static_cast<float>(v);
      std::memcpy(out, &f, 4);
      return;
    }
  }
}

int64_t decode_element(const unsigned char* in, DType d) {
  double f = 0;
  switch (d) {
    case DType::kU8:
      return *in;
    case DType::kF16: {
      uint16_t h;
      std::memcpy(&h, in, 2);
      f = half_value(h);
      break;
    }
    case DType::kBF16: {
      uint16_t b;
      std::memcpy(&b, in, 2);
      const uint32_t u = static_cast<uint32_t>(b) << 16;
      float x;
      std::memcpy(&x, &u, 4);
      f = x;
      break;
    }
    case DType::kF64:
      std::memcpy(&f, in, 8);
      break;
    default: {
      float x;
      std::memcpy(&x, in, 4);
      f = x;
    }
  }
  if (!(f > -9e15 && f < 9e15) || f != static_cast<double>(static_cast<int64_t>(f)))
    return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(f);
}

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
  auto placed = place_on_mesh(layout, plan.shape, plan.mesh, cell_limit);
  if (!placed) return placed.error();
  const Table& t = placed->table;
  const size_t na = t.axes.size();
  const int64_t parts = std::max<int64_t>(t.partials, 1);
  std::vector<std::vector<int64_t>> buf(static_cast<size_t>(device_count(plan.mesh)));
  for (int64_t x = 0; x < t.elements; ++x) {
    const int64_t v = element_value(x, plan.dtype);
    for (int64_t h = 0; h < t.holders(); ++h) {
      const int64_t* pos = &at(t.values, (x * t.holders() + h) * static_cast<int64_t>(na));
      const int64_t d = mesh_device(*placed, plan.mesh, pos);
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
  auto placed = place_on_mesh(layout, plan.shape, plan.mesh, cell_limit);
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
        const int64_t d = mesh_device(*placed, plan.mesh, pos);
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

namespace {

// The engine's strided copy of a local step (local_copy) in the fixed-size form the device kernel takes; more
// pieces than kStridedCopyMaxRank is `too_many`.
Result<StridedCopy> strided_copy_of(Result<LocalCopy> local, const std::string& too_many) {
  if (!local) return local.error();
  if (local->extent.size() > static_cast<size_t>(kStridedCopyMaxRank)) return make_error(too_many);
  StridedCopy c;
  c.rank = static_cast<int>(local->extent.size());
  c.n = 1;
  c.src_base = local->src_base;
  for (int i = 0; i < c.rank; ++i) {
    c.extent[i] = local->extent[static_cast<size_t>(i)];
    c.src_stride[i] = local->src_stride[static_cast<size_t>(i)];
    c.dst_stride[i] = local->dst_stride[static_cast<size_t>(i)];
    c.n *= c.extent[i];
  }
  return c;
}

}  // namespace

Result<StridedCopy> permute_copy(const ReshardStep& s) {
  return strided_copy_of(local_copy(s, 0), "permute: the local layouts " + to_string(s.local_before.layout) +
                                               " and " + to_string(s.local_after.layout) +
                                               " do not have the same pieces");
}

Result<StridedCopy> slice_copy(const ReshardStep& s, int64_t coordinate) {
  return strided_copy_of(local_copy(s, coordinate),
                         "slice: the local layouts " + to_string(s.local_before.layout) + " and " +
                             to_string(s.local_after.layout) + " do not differ by the sliced pieces");
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

Result<LocalKernel> local_kernel(const ReshardStep& s, int64_t coordinate, DType dtype) {
  if (s.op != ReshardOp::kPermute && s.op != ReshardOp::kSlice)
    return make_error("local_kernel: a " + std::string(to_string(s.op)) + " step is no permute or slice");
  auto copy = s.op == ReshardOp::kSlice ? slice_copy(s, coordinate) : permute_copy(s);
  if (!copy) return copy.error();
  LocalKernel k;
  k.copy = *copy;
  k.src_offset = copy->src_base;
  if (s.op == ReshardOp::kPermute && !s.convert) {
    k.fallback_reason = "the engine's plan has no conversion plan for this permute";
    return k;
  }
  if (s.convert) {
    // A slice's part starts at its coordinate's offset, which the plan's 16 B accesses need aligned.
    const int64_t offset_bytes = copy->src_base * dtype_bytes(dtype);
    if (offset_bytes % 16 != 0) {
      k.fallback_reason = "the slice of coordinate " + std::to_string(coordinate) + " starts at byte " +
                          std::to_string(offset_bytes) +
                          ", not a multiple of 16: the generated kernel's 16 B loads need an aligned source";
      return k;
    }
    k.convert = *s.convert;
    return k;
  }
  // A slice the engine found no plan for: the planner's reason, asked with the slice's moves as two layouts
  // over its extents (read at the source strides, written at the destination's).
  Layout src, dst;
  std::vector<int64_t> shape;
  for (int i = 0; i < copy->rank; ++i) {
    shape.push_back(copy->extent[i]);
    src.shard.push_back(Mode{copy->extent[i], AxisStride{copy->src_stride[i], std::string(kMemoryAxis)}});
    dst.shard.push_back(Mode{copy->extent[i], AxisStride{copy->dst_stride[i], std::string(kMemoryAxis)}});
  }
  if (shape.empty()) {
    k.fallback_reason = "the slice moves a single element";
    return k;
  }
  auto plan = plan_convert(src, dst, shape, dtype);
  k.fallback_reason = "the conversion planner refused " + to_string(src) + " -> " + to_string(dst) +
                      (plan ? "" : ": " + plan.error().message);
  return k;
}

Verification run_device_steps_on_host(const ReshardPlan& plan, int64_t cell_limit,
                                      std::vector<std::optional<LocalKernelUse>>* kernels) {
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
  if (kernels) kernels->assign(plan.steps.size(), std::nullopt);
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
      std::optional<LocalKernelUse> use;
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
            auto k = local_kernel(s, a >= 0 ? coord(d, a) : 0, plan.dtype);
            if (!k) return fail(where + ": " + k.error().message);
            if (kernels) {  // one line per step: a device that fell back speaks for the step
              LocalKernelUse u = describe(*k);
              if (u.kernel != "generated") u.reason = "device " + std::to_string(d) + ": " + u.reason;
              if (!use || (use->kernel == "generated" && u.kernel != "generated")) use = std::move(u);
            }
            if (k->convert) {
              // The plan's host implementation on the bytes the device holds.
              if (auto why = convert_on_host(*k, in, o, plan.dtype))
                return fail(where + ": device " + std::to_string(d) + ": " + *why);
              break;
            }
            o.assign(static_cast<size_t>(k->copy.n), 0);
            if (!strided_copy_host(in, o, k->copy))
              return fail(where + ": device " + std::to_string(d) +
                          ": a strided-copy index leaves the buffer");
            break;
          }
          default:
            break;
        }
      }
      if (kernels) kernels->at(si) = use;
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

Result<ReshardMeasurement> run_reshard_host(const ReshardParams& p, std::vector<DeviceInfo> devices,
                                            RunControl& ctl) {
  ReshardMeasurement m;
  m.simulated = true;
  m.note = "simulated, no timing of collectives: the engine's host executor ran the plan on " +
           std::to_string(p.devices) + " simulated devices and checked every step";
  m.plan = p.plan;
  m.bandwidth_source =
      p.busbw_gbps ? "params.busbw_gbps" : "the engine's defaults (H100/H200 NVLink estimates)";
  m.devices = std::move(devices);
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
  std::vector<std::optional<LocalKernelUse>> kernels;
  const Verification device_steps = run_device_steps_on_host(p.plan, kReshardCpuCells, &kernels);
  for (size_t i = 0; i < m.steps.size() && i < kernels.size(); ++i) m.steps[i].local_kernel = kernels[i];
  if (v.passed && !device_steps.passed) v = device_steps;
  v.checked += device_steps.checked;
  if (v.passed) v.method += "; and " + device_steps.method;
  m.verification = v;
  ctl.progress(1.0, "done");
  return m;
}

}  // namespace layoutscope::agent
