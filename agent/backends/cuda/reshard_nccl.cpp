// The reshard and collective benchmarks on NCCL: one process, one thread, every device's calls inside one
// ncclGroupStart/End (NCCL's "Group Calls": the way one thread drives several devices).
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <stdexcept>

#include "backends/cuda/cuda_check.hpp"
#include "backends/cuda/nccl.hpp"
#include "backends/cuda/nvrtc.hpp"
#include "backends/cuda/reshard_kernels.hpp"
#include "bench/kinds/reshard_run.hpp"
#include "bench/stats.hpp"
#include "layoutscope/parse.hpp"

namespace layoutscope::agent {
namespace {

using Clock = std::chrono::steady_clock;

void nccl_check(int rc, const char* call) {
  if (rc != 0) throw std::runtime_error(nccl_error(call, rc));
}
#define LS_NCCL_CHECK(call) nccl_check((call), #call)

nccl::DataType nccl_type(DType d) {
  switch (d) {
    case DType::kU8:
      return nccl::kUint8;
    case DType::kF16:
      return nccl::kFloat16;
    case DType::kBF16:
      return nccl::kBfloat16;
    case DType::kF64:
      return nccl::kFloat64;
    default:
      return nccl::kFloat32;
  }
}

int pattern_code(DType d) {
  switch (d) {
    case DType::kU8:
      return 0;
    case DType::kF16:
      return 1;
    case DType::kBF16:
      return 2;
    case DType::kF64:
      return 4;
    default:
      return 3;
  }
}

// Per device: a stream and two buffers (a step reads one and writes the other, so a repeated step sees the
// same input).
struct DeviceSlot {
  int id = 0;
  cudaStream_t stream = nullptr;
  void* buf[2] = {nullptr, nullptr};
};

class Devices {
 public:
  Devices(int count, size_t bytes) : slots_(static_cast<size_t>(count)) {
    for (int d = 0; d < count; ++d) {
      DeviceSlot& s = slots_[static_cast<size_t>(d)];
      s.id = d;
      LS_CUDA_CHECK(cudaSetDevice(d));
      LS_CUDA_CHECK(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
      for (void*& b : s.buf) LS_CUDA_CHECK(cudaMalloc(&b, std::max<size_t>(bytes, 256)));
    }
  }
  ~Devices() {
    for (auto& s : slots_) {
      cudaSetDevice(s.id);
      for (void* b : s.buf) cudaFree(b);
      if (s.stream) cudaStreamDestroy(s.stream);
    }
  }
  Devices(const Devices&) = delete;
  Devices& operator=(const Devices&) = delete;
  DeviceSlot& operator[](int64_t d) { return slots_[static_cast<size_t>(d)]; }
  int64_t size() const { return static_cast<int64_t>(slots_.size()); }
  void sync() {
    for (auto& s : slots_) {
      LS_CUDA_CHECK(cudaSetDevice(s.id));
      LS_CUDA_CHECK(cudaStreamSynchronize(s.stream));
    }
  }

 private:
  std::vector<DeviceSlot> slots_;
};

// Communicators, destroyed with the run.
class Comms {
 public:
  explicit Comms(const nccl::Library& lib) : lib_(lib) {}
  ~Comms() {
    for (auto& [key, group] : groups_)
      for (nccl::Comm c : group) lib_.comm_destroy(c);
  }
  Comms(const Comms&) = delete;
  Comms& operator=(const Comms&) = delete;
  // The communicator of `devices` (ranks in that order), created on first use.
  const std::vector<nccl::Comm>& get(const std::vector<int>& devices) {
    auto it = groups_.find(devices);
    if (it != groups_.end()) return it->second;
    std::vector<nccl::Comm> comms(devices.size(), nullptr);
    LS_NCCL_CHECK(lib_.comm_init_all(comms.data(), static_cast<int>(devices.size()), devices.data()));
    return groups_.emplace(devices, std::move(comms)).first->second;
  }

 private:
  const nccl::Library& lib_;
  std::map<std::vector<int>, std::vector<nccl::Comm>> groups_;
};

// The samples of one measured thing: warm-up, then until the sampling rule stops.
template <class Once>
TimingSummary sample(const Sampling& s, RunControl& ctl, Once once) {
  for (int i = 0; i < s.warmup; ++i) once();
  std::vector<double> t;
  const auto start = Clock::now();
  std::string reason;
  for (;;) {
    if (ctl.cancelled()) throw Cancelled{};
    t.push_back(once());
    const int n = static_cast<int>(t.size());
    if (s.repetitions > 0) {
      if (n >= s.repetitions) {
        reason = "repetitions";
        break;
      }
      continue;
    }
    if (n >= s.max_samples) {
      reason = "max_samples";
      break;
    }
    if (n >= s.min_samples) {
      if (std::chrono::duration<double>(Clock::now() - start).count() >= s.max_time_s) {
        reason = "time_limit";
        break;
      }
      auto sorted = t;
      std::sort(sorted.begin(), sorted.end());
      const double med = quantile_sorted(sorted, 0.5);
      if (med > 0 && (quantile_sorted(sorted, 0.75) - quantile_sorted(sorted, 0.25)) / med <= s.noise) {
        reason = "noise";
        break;
      }
    }
  }
  TimingSummary out = summarize(t);
  out.stop_reason = reason;
  out.clock_source = "host wall clock around the launches and a synchronize of every device's stream";
  if (!s.raw_samples) out.samples_s.clear();
  return out;
}

double seconds(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// The first n of the machine's devices, as the backend describes them.
std::vector<DeviceInfo> first_devices(const std::vector<DeviceInfo>& machine, int64_t n) {
  return {machine.begin(), machine.begin() + std::min<int64_t>(n, static_cast<int64_t>(machine.size()))};
}

// One device's kernel for a local permute or slice: the generated one (compiled) or the strided copy.
struct PreparedLocal {
  LocalKernel local;
  std::shared_ptr<const CompiledKernel> kernel;  // generated (held: loaded while this step may run)
  int64_t blocks = 0;
  int threads = 0;
};

// One plan run on the devices: the local element count of every device after each step, and the step
// enqueued on every stream (NCCL calls inside one group). Local permutes and slices run the kernels
// prepare_local compiled for them.
class ReshardRunner {
 public:
  ReshardRunner(const nccl::Library& lib, const ReshardPlan& plan, Devices& devs, Comms& comms)
      : lib_(lib), plan_(plan), devs_(devs), comms_(comms), eb_(plan.elem_bytes) {
    const int naxes = static_cast<int>(plan.mesh.size());
    pitch_.assign(static_cast<size_t>(naxes), 1);
    for (int a = naxes - 1; a > 0; --a) pitch_[a - 1] = pitch_[a] * plan.mesh[a].second;
  }

  int64_t coord(int64_t d, int a) const { return (d / pitch_[a]) % plan_.mesh[a].second; }
  int64_t member(int64_t d, int a, int64_t rank) const { return d + (rank - coord(d, a)) * pitch_[a]; }
  int axis_index(const std::string& name) const {
    for (size_t a = 0; a < plan_.mesh.size(); ++a)
      if (plan_.mesh[a].first == name) return static_cast<int>(a);
    return -1;
  }

  // The kernels of local step `si` on every device holding data (`sizes` before the step): each device's
  // conversion plan compiled through `cache` (NVRTC, or the cache's memory or disk), else the strided copy.
  // Called before the step is timed, so no compile lands in a timed run. Returns how the step runs, the
  // compile and load time summed over the devices.
  LocalKernelUse prepare_local(size_t si, const std::vector<int64_t>& sizes, KernelCache& cache) {
    const ReshardStep& s = plan_.steps[si];
    const int a = s.axis.empty() ? -1 : axis_index(s.axis);
    std::optional<LocalKernelUse> use;
    double compile_s = 0;
    for (int64_t d = 0; d < devs_.size(); ++d) {
      if (sizes[static_cast<size_t>(d)] == 0) continue;
      auto lk = local_kernel(s, a >= 0 ? coord(d, a) : 0, plan_.dtype);
      if (!lk) throw std::runtime_error("step " + std::to_string(si) + ": " + lk.error().message);
      PreparedLocal p;
      LocalKernelUse u;
      u.runs_as = "cuda";
      u.kernel = "strided_copy";
      u.reason = "device " + std::to_string(d) + ": " + lk->fallback_reason;
      if (lk->convert) {
        const codegen::KernelSource src = codegen::convert_kernel_source(*lk->convert);
        KernelOrigin origin = KernelOrigin::kCompiled;
        LS_CUDA_CHECK(cudaSetDevice(static_cast<int>(d)));
        const auto t0 = Clock::now();
        auto k = cache.get(src, static_cast<int>(d), &origin);
        compile_s += seconds(t0);
        if (!k) throw std::runtime_error("step " + std::to_string(si) + ": " + k.error().message);
        p.kernel = *k;
        p.blocks = src.blocks;
        p.threads = src.threads;
        u.kernel = "generated";
        u.reason.clear();
        u.runs_as = "nvrtc";
        u.source_hash = src.text_hash;
        u.compile_cache = origin == KernelOrigin::kMemory ? "memory"
                          : origin == KernelOrigin::kDisk ? "disk"
                                                          : "none";
      }
      p.local = std::move(lk).value();
      local_[{si, d}] = std::move(p);
      if (!use || (use->kernel == "generated" && u.kernel != "generated")) use = std::move(u);
    }
    if (!use) use = LocalKernelUse{"strided_copy", "no device holds data", 0, "cuda", std::nullopt, ""};
    use->compile_s = compile_s;
    return *use;
  }

  // Enqueues step `si` reading buf[from] and writing buf[1 - from]; `sizes` (elements per device) before,
  // returns the sizes after.
  std::vector<int64_t> enqueue(size_t si, int from, const std::vector<int64_t>& sizes) {
    const ReshardStep& s = plan_.steps[si];
    const int a = s.axis.empty() ? -1 : axis_index(s.axis);
    const int64_t n = a >= 0 ? plan_.mesh[a].second : 1;
    const int64_t nd = devs_.size();
    std::vector<int64_t> out(sizes.size(), 0);
    auto in_of = [&](int64_t d) { return static_cast<const unsigned char*>(devs_[d].buf[from]); };
    auto out_of = [&](int64_t d) { return static_cast<unsigned char*>(devs_[d].buf[1 - from]); };
    auto stream = [&](int64_t d) { return static_cast<nccl::Stream>(devs_[d].stream); };
    if (is_collective(s.op)) {
      // Communicators first (ncclCommInitAll is itself collective over its devices).
      std::vector<const std::vector<nccl::Comm>*> comm_of(static_cast<size_t>(nd), nullptr);
      for (int64_t d = 0; d < nd; ++d) {
        if (coord(d, a) != 0) continue;
        std::vector<int> group;
        bool any = false;
        for (int64_t r = 0; r < n; ++r) {
          group.push_back(static_cast<int>(member(d, a, r)));
          any = any || sizes[static_cast<size_t>(member(d, a, r))] > 0;
        }
        if (!any) continue;
        const auto& comms = comms_.get(group);
        for (int64_t r = 0; r < n; ++r) comm_of[static_cast<size_t>(member(d, a, r))] = &comms;
      }
      LS_NCCL_CHECK(lib_.group_start());
      for (int64_t d = 0; d < nd; ++d) {
        if (!comm_of[static_cast<size_t>(d)]) continue;
        const nccl::Comm comm = (*comm_of[static_cast<size_t>(d)])[static_cast<size_t>(coord(d, a))];
        const int64_t in = sizes[static_cast<size_t>(d)];
        const int64_t r = coord(d, a);
        LS_CUDA_CHECK(cudaSetDevice(static_cast<int>(d)));
        switch (s.op) {
          case ReshardOp::kAllGather:
            LS_NCCL_CHECK(lib_.all_gather(in_of(d), out_of(d), static_cast<size_t>(in * eb_), nccl::kUint8,
                                          comm, stream(d)));
            out[static_cast<size_t>(d)] = in * n;
            break;
          case ReshardOp::kReduceScatter:
            LS_NCCL_CHECK(lib_.reduce_scatter(in_of(d), out_of(d), static_cast<size_t>(in / n),
                                              nccl_type(plan_.dtype), nccl::kSum, comm, stream(d)));
            out[static_cast<size_t>(d)] = in / n;
            break;
          case ReshardOp::kAllReduce:
            LS_NCCL_CHECK(lib_.all_reduce(in_of(d), out_of(d), static_cast<size_t>(in),
                                          nccl_type(plan_.dtype), nccl::kSum, comm, stream(d)));
            out[static_cast<size_t>(d)] = in;
            break;
          case ReshardOp::kAllToAll: {  // rank r's chunk j goes to slot r of rank j
            const int64_t chunk = in / n * eb_;
            for (int64_t j = 0; j < n; ++j) {
              LS_NCCL_CHECK(lib_.send(in_of(d) + j * chunk, static_cast<size_t>(chunk), nccl::kUint8,
                                      static_cast<int>(j), comm, stream(d)));
              LS_NCCL_CHECK(lib_.recv(out_of(d) + j * chunk, static_cast<size_t>(chunk), nccl::kUint8,
                                      static_cast<int>(j), comm, stream(d)));
            }
            out[static_cast<size_t>(d)] = in;
            break;
          }
          case ReshardOp::kBroadcast: {
            const int64_t count = sizes[static_cast<size_t>(member(d, a, s.root))];
            LS_NCCL_CHECK(lib_.broadcast(in_of(d), out_of(d), static_cast<size_t>(count * eb_), nccl::kUint8,
                                         static_cast<int>(s.root), comm, stream(d)));
            out[static_cast<size_t>(d)] = count;
            break;
          }
          case ReshardOp::kSendRecv: {
            const int64_t count = sizes[static_cast<size_t>(member(d, a, s.root))];
            if (r == s.root)
              LS_NCCL_CHECK(lib_.send(in_of(d), static_cast<size_t>(count * eb_), nccl::kUint8,
                                      static_cast<int>(s.target), comm, stream(d)));
            if (r == s.target) {
              LS_NCCL_CHECK(lib_.recv(out_of(d), static_cast<size_t>(count * eb_), nccl::kUint8,
                                      static_cast<int>(s.root), comm, stream(d)));
              out[static_cast<size_t>(d)] = count;
            }
            break;
          }
          default:
            break;
        }
      }
      LS_NCCL_CHECK(lib_.group_end());
      return out;
    }
    for (int64_t d = 0; d < nd; ++d) {
      const int64_t in = sizes[static_cast<size_t>(d)];
      if (in == 0) continue;
      LS_CUDA_CHECK(cudaSetDevice(static_cast<int>(d)));
      const cudaStream_t st = devs_[d].stream;
      switch (s.op) {
        case ReshardOp::kDrop:
          if (coord(d, a) == s.root) {
            LS_CUDA_CHECK(cudaMemcpyAsync(out_of(d), in_of(d), static_cast<size_t>(in * eb_),
                                          cudaMemcpyDeviceToDevice, st));
            out[static_cast<size_t>(d)] = in;
          }
          break;
        case ReshardOp::kPartition:
          if (coord(d, a) == 0)
            LS_CUDA_CHECK(cudaMemcpyAsync(out_of(d), in_of(d), static_cast<size_t>(in * eb_),
                                          cudaMemcpyDeviceToDevice, st));
          else
            LS_CUDA_CHECK(cudaMemsetAsync(out_of(d), 0, static_cast<size_t>(in * eb_), st));
          out[static_cast<size_t>(d)] = in;
          break;
        case ReshardOp::kSlice:
        case ReshardOp::kPermute: {
          const auto it = local_.find({si, d});
          if (it == local_.end())
            throw std::logic_error("reshard: step " + std::to_string(si) + " enqueued before prepare_local");
          const PreparedLocal& p = it->second;
          if (p.kernel) {
            const unsigned char* src = in_of(d) + p.local.src_offset * eb_;
            unsigned char* dst = out_of(d);
            void* args[] = {&src, &dst};
            LS_CUDA_CHECK(cudaLaunchKernel(p.kernel->launchable(), dim3(static_cast<unsigned>(p.blocks)),
                                           dim3(static_cast<unsigned>(p.threads)), args, 0, st));
          } else {
            LS_CUDA_CHECK(launch_strided_copy(in_of(d), out_of(d), p.local.copy, eb_, st));
          }
          out[static_cast<size_t>(d)] = p.local.copy.n;
          break;
        }
        default:
          break;
      }
    }
    return out;
  }

  // The source buffers, encoded once (the whole-plan samples upload them before each run).
  void upload(const std::vector<std::vector<int64_t>>& host, int which) {
    if (encoded_.empty()) {
      encoded_.resize(host.size());
      for (size_t d = 0; d < host.size(); ++d) {
        auto& bytes = encoded_[d];
        bytes.resize(host[d].size() * static_cast<size_t>(eb_));
        for (size_t i = 0; i < host[d].size(); ++i)
          encode_element(host[d][i], plan_.dtype, &bytes[i * static_cast<size_t>(eb_)]);
      }
    }
    for (int64_t d = 0; d < devs_.size(); ++d) {
      const auto& bytes = encoded_[static_cast<size_t>(d)];
      LS_CUDA_CHECK(cudaSetDevice(static_cast<int>(d)));
      if (!bytes.empty())
        LS_CUDA_CHECK(cudaMemcpy(devs_[d].buf[which], bytes.data(), bytes.size(), cudaMemcpyHostToDevice));
    }
  }

  std::vector<std::vector<int64_t>> download(const std::vector<int64_t>& sizes, int which) {
    std::vector<std::vector<int64_t>> out(sizes.size());
    std::vector<unsigned char> bytes;
    for (int64_t d = 0; d < devs_.size(); ++d) {
      const int64_t n = sizes[static_cast<size_t>(d)];
      bytes.resize(static_cast<size_t>(n * eb_));
      LS_CUDA_CHECK(cudaSetDevice(static_cast<int>(d)));
      if (n > 0)
        LS_CUDA_CHECK(cudaMemcpy(bytes.data(), devs_[d].buf[which], bytes.size(), cudaMemcpyDeviceToHost));
      auto& o = out[static_cast<size_t>(d)];
      o.resize(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i)
        o[static_cast<size_t>(i)] = decode_element(&bytes[static_cast<size_t>(i * eb_)], plan_.dtype);
    }
    return out;
  }

 private:
  const nccl::Library& lib_;
  const ReshardPlan& plan_;
  Devices& devs_;
  Comms& comms_;
  int64_t eb_;
  std::vector<int64_t> pitch_;
  std::vector<std::vector<unsigned char>> encoded_;
  std::map<std::pair<size_t, int64_t>, PreparedLocal> local_;  // (step, device)
};

int64_t largest_local(const ReshardPlan& plan) {
  int64_t m = 0;
  for (const auto& s : plan.steps) m = std::max({m, s.local_before.elements, s.local_after.elements});
  return m;
}

}  // namespace

Result<ReshardMeasurement> run_reshard_nccl(const ReshardParams& p, const std::vector<DeviceInfo>& machine,
                                            KernelCache& kernels, RunControl& ctl) {
  auto lib = load_nccl();
  if (!lib) return lib.error();
  auto version = nccl_version();
  int count = 0;
  LS_CUDA_CHECK(cudaGetDeviceCount(&count));
  if (p.devices > count)
    return make_error("params.mesh: needs " + std::to_string(p.devices) + " GPUs, this machine has " +
                          std::to_string(count),
                      0, "params.mesh");
  ReshardMeasurement m;
  m.nccl_version = version ? *version : "";
  m.devices = first_devices(machine, p.devices);
  ReshardPlan plan = p.plan;
  auto initial = reshard_buffers(plan.from, plan, kReshardGpuCells);
  if (!initial) return initial.error();
  int64_t largest = largest_local(plan);
  for (const auto& b : *initial) largest = std::max<int64_t>(largest, static_cast<int64_t>(b.size()));
  Devices devs(static_cast<int>(p.devices), static_cast<size_t>(largest * plan.elem_bytes));
  Comms comms(**lib);
  std::vector<int64_t> sizes0;
  for (const auto& b : *initial) sizes0.push_back(static_cast<int64_t>(b.size()));

  // Bandwidths for the prediction: the busbw given, or a plain all_gather of the largest collective step's
  // size over that step's axis (measured before the plan runs); the copy speed of device 0's cudaMemcpy.
  ReshardBandwidths bw;
  std::string source;
  {
    ReshardRunner warm(**lib, plan, devs, comms);
    ctl.progress(0.0, "measuring the copy speed and the collective busbw for the prediction");
    const size_t copy_bytes = static_cast<size_t>(std::max<int64_t>(largest, 1) * plan.elem_bytes);
    LS_CUDA_CHECK(cudaSetDevice(0));
    Sampling quick = p.sampling;
    quick.repetitions = 5;
    quick.warmup = 2;
    auto copy = sample(quick, ctl, [&] {
      const auto t0 = Clock::now();
      LS_CUDA_CHECK(cudaMemcpyAsync(devs[0].buf[1], devs[0].buf[0], copy_bytes, cudaMemcpyDeviceToDevice,
                                    devs[0].stream));
      LS_CUDA_CHECK(cudaStreamSynchronize(devs[0].stream));
      return seconds(t0);
    });
    bw.local_copy_gbps = 2.0 * static_cast<double>(copy_bytes) / copy.median_s / 1e9;
    source = "local copy: cudaMemcpy device to device of " + std::to_string(copy_bytes) + " B on device 0";
    if (p.busbw_gbps) {
      bw.collective_busbw_gbps = bw.send_recv_gbps = *p.busbw_gbps;
      source += "; collectives: params.busbw_gbps";
    } else {
      const ReshardStep* big = nullptr;
      for (const auto& s : plan.steps)
        if (is_collective(s.op) && s.group > 1 && (!big || s.size_bytes > big->size_bytes)) big = &s;
      if (big) {
        const int a = warm.axis_index(big->axis);
        const int64_t n = big->group;
        const int64_t per_rank = big->size_bytes / n;  // all_gather: S = n x the bytes each rank sends
        std::vector<std::vector<int>> groups;
        for (int64_t d = 0; d < devs.size(); ++d) {
          if (warm.coord(d, a) != 0) continue;
          std::vector<int> g;
          for (int64_t r = 0; r < n; ++r) g.push_back(static_cast<int>(warm.member(d, a, r)));
          groups.push_back(g);
        }
        auto t = sample(quick, ctl, [&] {
          const auto t0 = Clock::now();
          LS_NCCL_CHECK((*lib)->group_start());
          for (const auto& g : groups) {
            const auto& c = comms.get(g);
            for (size_t r = 0; r < g.size(); ++r) {
              LS_CUDA_CHECK(cudaSetDevice(g[r]));
              LS_NCCL_CHECK((*lib)->all_gather(
                  devs[g[r]].buf[0], devs[g[r]].buf[1],
                  static_cast<size_t>(std::min<int64_t>(per_rank, largest * plan.elem_bytes / n)),
                  nccl::kUint8, c[r], devs[g[r]].stream));
            }
          }
          LS_NCCL_CHECK((*lib)->group_end());
          devs.sync();
          return seconds(t0);
        });
        const double s_bytes =
            static_cast<double>(std::min<int64_t>(per_rank, largest * plan.elem_bytes / n) * n);
        bw.collective_busbw_gbps = bw.send_recv_gbps =
            s_bytes * (static_cast<double>(n - 1) / n) / t.median_s / 1e9;
        source += "; collectives: ncclAllGather of S = " + std::to_string(static_cast<int64_t>(s_bytes)) +
                  " B over " + big->axis + " (" + std::to_string(n) + " ranks), median of 5";
      } else {
        source += "; collectives: none in the plan (engine default)";
      }
    }
  }
  auto costed = plan_reshard(p.plan.from, p.plan.to, p.plan.shape, p.plan.mesh, p.plan.dtype, bw);
  if (!costed) return costed.error();
  plan = std::move(costed).value();
  m.plan = plan;
  m.bandwidth_source = source;
  m.note =
      "NCCL " + m.nccl_version + " on " + std::to_string(p.devices) +
      " GPUs; NCCL_NVLS_ENABLE=0; each step: one cold run, then timed runs (host wall clock, every stream "
      "synchronized)";

  ReshardRunner run(**lib, plan, devs, comms);
  Sampling hot = p.sampling;
  run.upload(*initial, 0);
  std::vector<int64_t> sizes = sizes0;
  double cold_total = 0;
  const size_t nsteps = plan.steps.size();
  m.steps.resize(nsteps);
  for (size_t i = 0; i < nsteps; ++i) {
    const ReshardStep& s = plan.steps[i];
    ctl.progress(0.1 + 0.7 * static_cast<double>(i) / std::max<size_t>(nsteps, 1),
                 "step " + std::to_string(i) + " " + std::string(to_string(s.op)) + " " + s.axis);
    const int from = static_cast<int>(i % 2);
    ReshardStepResult& r = m.steps[i];
    if (s.op == ReshardOp::kPermute || s.op == ReshardOp::kSlice)
      r.local_kernel = run.prepare_local(i, sizes, kernels);
    devs.sync();
    auto t0 = Clock::now();
    std::vector<int64_t> after = run.enqueue(i, from, sizes);
    devs.sync();
    r.cold_s = seconds(t0);
    cold_total += *r.cold_s;
    auto got = run.download(after, 1 - from);
    r.verification =
        check_reshard_buffers(s.after, plan, got, "after step " + std::to_string(i), kReshardGpuCells);
    r.time = sample(hot, ctl, [&] {
      const auto t1 = Clock::now();
      run.enqueue(i, from, sizes);
      devs.sync();
      return seconds(t1);
    });
    if (is_collective(s.op) && r.time->median_s > 0)
      r.busbw_bytes_per_second = static_cast<double>(s.size_bytes) * s.bus_factor / r.time->median_s;
    sizes = after;
  }
  m.total_cold_s = cold_total;
  // The whole plan back to back, from fresh source buffers each time (uploads not timed).
  ctl.progress(0.85, "the whole plan, back to back");
  std::vector<int64_t> final_sizes;
  m.total = sample(hot, ctl, [&] {
    run.upload(*initial, 0);
    devs.sync();
    const auto t0 = Clock::now();
    std::vector<int64_t> cur = sizes0;
    for (size_t i = 0; i < nsteps; ++i) cur = run.enqueue(i, static_cast<int>(i % 2), cur);
    devs.sync();
    final_sizes = cur;
    return seconds(t0);
  });
  auto got = run.download(final_sizes, static_cast<int>(nsteps % 2));
  m.verification =
      check_reshard_buffers(plan.to, plan, got, "at the end, against the to layout", kReshardGpuCells);
  ctl.progress(1.0, "done");
  return m;
}

Result<CollectiveMeasurement> run_collective_nccl(const CollectiveParams& p,
                                                  const std::vector<DeviceInfo>& machine, RunControl& ctl) {
  auto lib = load_nccl();
  if (!lib) return lib.error();
  auto version = nccl_version();
  int count = 0;
  LS_CUDA_CHECK(cudaGetDeviceCount(&count));
  if (p.gpus > count)
    return make_error("needs " + std::to_string(p.gpus) + " GPUs, this machine has " + std::to_string(count),
                      0, "params.gpus");
  CollectiveMeasurement m;
  m.op = p.op;
  m.ranks = p.gpus;
  m.nccl_version = version ? *version : "";
  m.devices = first_devices(machine, p.gpus);
  const int n = p.gpus;
  const int64_t eb = dtype_bytes(p.dtype);
  const int64_t largest = *std::max_element(p.sizes.begin(), p.sizes.end());
  Devices devs(n, static_cast<size_t>(largest));
  Comms comms(**lib);
  std::vector<int> all(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) all[static_cast<size_t>(r)] = r;
  const auto& comm = comms.get(all);
  const bool reduces = p.op == CollectiveOp::kAllReduce || p.op == CollectiveOp::kReduceScatter;
  const int64_t range = std::max<int64_t>(reshard_value_range(p.dtype) / (reduces ? n : 1), 1);
  auto value = [&](int64_t rank, int64_t i) { return (i * 7 + rank * 13) % range + 1; };
  for (size_t k = 0; k < p.sizes.size(); ++k) {
    const int64_t S = p.sizes[k];
    ctl.progress(static_cast<double>(k) / p.sizes.size(),
                 std::string(to_string(p.op)) + " S=" + std::to_string(S));
    // Elements each rank sends and receives.
    const int64_t send = p.op == CollectiveOp::kAllGather ? S / n / eb : S / eb;
    const int64_t recv = p.op == CollectiveOp::kReduceScatter ? S / n / eb : S / eb;
    for (int r = 0; r < n; ++r) {
      LS_CUDA_CHECK(cudaSetDevice(r));
      LS_CUDA_CHECK(
          launch_pattern_fill(devs[r].buf[0], send, pattern_code(p.dtype), r, range, devs[r].stream));
      LS_CUDA_CHECK(cudaMemsetAsync(devs[r].buf[1], 0xff, static_cast<size_t>(recv * eb), devs[r].stream));
    }
    devs.sync();
    auto once = [&] {
      LS_NCCL_CHECK((*lib)->group_start());
      for (int r = 0; r < n; ++r) {
        LS_CUDA_CHECK(cudaSetDevice(r));
        const void* in = devs[r].buf[0];
        void* out = devs[r].buf[1];
        const auto st = static_cast<nccl::Stream>(devs[r].stream);
        const nccl::Comm c = comm[static_cast<size_t>(r)];
        switch (p.op) {
          case CollectiveOp::kAllGather:
            LS_NCCL_CHECK((*lib)->all_gather(in, out, static_cast<size_t>(send), nccl_type(p.dtype), c, st));
            break;
          case CollectiveOp::kReduceScatter:
            LS_NCCL_CHECK((*lib)->reduce_scatter(in, out, static_cast<size_t>(recv), nccl_type(p.dtype),
                                                 nccl::kSum, c, st));
            break;
          case CollectiveOp::kAllReduce:
            LS_NCCL_CHECK((*lib)->all_reduce(in, out, static_cast<size_t>(send), nccl_type(p.dtype),
                                             nccl::kSum, c, st));
            break;
          case CollectiveOp::kAllToAll: {
            const int64_t chunk = send / n;
            for (int j = 0; j < n; ++j) {
              LS_NCCL_CHECK((*lib)->send(static_cast<const unsigned char*>(in) + j * chunk * eb,
                                         static_cast<size_t>(chunk), nccl_type(p.dtype), j, c, st));
              LS_NCCL_CHECK((*lib)->recv(static_cast<unsigned char*>(out) + j * chunk * eb,
                                         static_cast<size_t>(chunk), nccl_type(p.dtype), j, c, st));
            }
            break;
          }
        }
      }
      LS_NCCL_CHECK((*lib)->group_end());
    };
    CollectivePoint pt;
    pt.size_bytes = S;
    pt.count =
        p.op == CollectiveOp::kAllToAll ? send / n : (p.op == CollectiveOp::kReduceScatter ? recv : send);
    // Verification of the first result: every rank's output against the definition (sampled beyond 2^24
    // elements per rank: every k-th element, k = elements / 2^24 rounded up, and the last).
    once();
    devs.sync();
    Verification v;
    const int64_t stride = std::max<int64_t>(1, (recv + (int64_t{1} << 24) - 1) >> 24);
    v.method = stride == 1
                   ? "every element of every rank's output against the collective's definition, exact"
                   : "every " + std::to_string(stride) +
                         "-th element (and the last) of every rank's output against the definition, exact";
    std::vector<unsigned char> host(static_cast<size_t>(recv * eb));
    const int64_t chunk = recv / n;  // all_to_all and all_gather: one source rank's part
    for (int r = 0; r < n; ++r) {
      LS_CUDA_CHECK(cudaSetDevice(r));
      LS_CUDA_CHECK(cudaMemcpy(host.data(), devs[r].buf[1], host.size(), cudaMemcpyDeviceToHost));
      auto check_at = [&](int64_t i) {
        int64_t want = 0;
        switch (p.op) {
          case CollectiveOp::kAllGather:
            want = value(i / chunk, i % chunk);
            break;
          case CollectiveOp::kAllToAll:
            want = value(i / chunk, r * chunk + i % chunk);
            break;
          case CollectiveOp::kAllReduce:
            for (int j = 0; j < n; ++j) want += value(j, i);
            break;
          case CollectiveOp::kReduceScatter:
            for (int j = 0; j < n; ++j) want += value(j, r * recv + i);
            break;
        }
        const int64_t got = decode_element(&host[static_cast<size_t>(i * eb)], p.dtype);
        const bool ok = p.dtype == DType::kU8 ? got == want % 256 : got == want;
        ++v.checked;
        if (!ok && v.mismatches++ == 0)
          v.first_mismatch = "rank " + std::to_string(r) + " element " + std::to_string(i) + ": expected " +
                             std::to_string(want) + ", got " + std::to_string(got);
      };
      for (int64_t i = 0; i < recv; i += stride) check_at(i);
      if (recv > 0 && (recv - 1) % stride != 0) check_at(recv - 1);
    }
    v.passed = v.mismatches == 0;
    pt.verification = v;
    // Back-to-back launches per sample so that small sizes are not the synchronize's latency.
    const int reps = static_cast<int>(std::clamp<int64_t>((int64_t{256} << 20) / S, 1, 20));
    pt.time = sample(p.sampling, ctl, [&] {
      const auto t0 = Clock::now();
      for (int i = 0; i < reps; ++i) once();
      devs.sync();
      return seconds(t0) / reps;
    });
    pt.algbw = static_cast<double>(S) / pt.time.median_s;
    pt.busbw = pt.algbw * bus_factor(p.op, n);
    m.points.push_back(std::move(pt));
  }
  ctl.progress(1.0, "done");
  return m;
}

}  // namespace layoutscope::agent
