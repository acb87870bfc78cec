// The CUDA backend: device facts from cudaDeviceGetAttribute, the B-09 kernels and the fast variants
// (cuda_kernels.cu) timed with CUDA events, one launch per sample (measure.hpp: adaptive count, SM clock per
// sample, throttled samples dropped); cold mode resets the L2's persisting (evict-last) lines to normal and
// overwrites a buffer of twice the L2 before each sample (outside the timed region). Every state first
// verifies one launch on fresh random input, exactly, on the device; the ceilings (cudaMemcpy D2D, float4
// copy, scalar copy) are measured at the same size in the same run. The convert benchmark's kernels are
// generated from the engine's plan and compiled with NVRTC (nvrtc.hpp), as are its fill and check kernels.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <vector>

#include "backends/cuda/allocation_probe.hpp"
#include "backends/cuda/cuda_check.hpp"
#include "backends/cuda/cuda_kernels.hpp"
#include "backends/cuda/cuda_traits.hpp"
#include "backends/cuda/nvml.hpp"
#include "backends/cuda/nvrtc.hpp"
#include "bench/benchmark.hpp"
#include "bench/kinds/access_run.hpp"
#include "bench/kinds/convert_run.hpp"
#include "bench/kinds/reshard_run.hpp"
#include "bench/measure.hpp"
#include "bench/random_input.hpp"
#include "convert_check.hpp"
#include "convert_library.hpp"
#include "layoutscope/parse.hpp"

// The conversion library's kernel of a unit size, compiled into this binary (the generated
// convert_library.cu; codegen::library_builtin_source).
extern "C" const void* layoutscope_convert_library_kernel(int unit_bytes);

namespace layoutscope::agent {
namespace {

// Device memory owned by one run; freed on every path (exceptions included).
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t bytes) : bytes_(bytes) { LS_CUDA_CHECK(cudaMalloc(&ptr_, bytes)); }
  ~DeviceBuffer() { cudaFree(ptr_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  float* f() const { return static_cast<float*>(ptr_); }
  void* get() const { return ptr_; }
  size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

class Events {
 public:
  Events() {
    LS_CUDA_CHECK(cudaEventCreate(&start_));
    LS_CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~Events() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  template <class Launch>
  double time(Launch launch) {
    LS_CUDA_CHECK(cudaEventRecord(start_));
    launch();
    LS_CUDA_CHECK(cudaEventRecord(stop_));
    LS_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    LS_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms * 1e-3;
  }

 private:
  cudaEvent_t start_{}, stop_{};
};

// Twice the L2 (a memset of a buffer >= L2 before each sample evicts the previous one), at least 64 MiB.
int64_t flush_bytes(int device) {
  int l2 = 0;
  LS_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  return std::max<int64_t>(2 * int64_t{l2}, int64_t{64} << 20);
}

Verification profile_pass_verification() {
  Verification v;
  v.passed = true;
  v.method = "not verified: profile pass (one launch per state under Nsight Compute)";
  return v;
}

float read_float(const float* p) {
  float v = 0;
  LS_CUDA_CHECK(cudaMemcpy(&v, p, sizeof v, cudaMemcpyDeviceToHost));
  return v;
}

std::string bits_text(const char* where, float want, float got) {
  char buf[200];
  std::snprintf(buf, sizeof buf, "%s: expected 0x%08x, got 0x%08x", where, float_bits(want), float_bits(got));
  return buf;
}

std::string describe_field(const float* data, int64_t n, bool soa, int touch, uint64_t seed, int64_t flat) {
  const std::string where = "element " + std::to_string(flat / 8) + " field " + std::to_string(flat % 8);
  return bits_text(where.c_str(), expected_field(seed, flat, touch),
                   read_float(data + field_offset(soa, n, flat)));
}

std::string describe_matrix(const float* out, int64_t dim, bool transposed, uint64_t seed, int64_t flat) {
  const int64_t r = flat / dim, c = flat % dim;
  const std::string where = "out(" + std::to_string(r) + ", " + std::to_string(c) + ")";
  return bits_text(where.c_str(), random_input(seed, static_cast<uint64_t>(transposed ? c * dim + r : flat)),
                   read_float(out + flat));
}

// Runs a device check kernel (cuda_kernels.hpp check_*) and turns its two counters into a Verification.
template <class Check, class Describe>
Verification device_check(Check check, int64_t total, Describe describe, std::string method) {
  DeviceBuffer counters(2 * sizeof(unsigned long long));
  LS_CUDA_CHECK(cudaMemset(counters.get(), 0, sizeof(unsigned long long)));
  LS_CUDA_CHECK(cudaMemset(static_cast<char*>(counters.get()) + sizeof(unsigned long long), 0xff,
                           sizeof(unsigned long long)));
  LS_CUDA_CHECK(check(static_cast<unsigned long long*>(counters.get())));
  unsigned long long host[2] = {};
  LS_CUDA_CHECK(cudaMemcpy(host, counters.get(), sizeof host, cudaMemcpyDeviceToHost));
  Verification v;
  v.checked = total;
  v.mismatches = static_cast<int64_t>(host[0]);
  v.passed = host[0] == 0;
  v.method = std::move(method);
  if (!v.passed) v.first_mismatch = describe(static_cast<int64_t>(host[1]));
  return v;
}

// The convert benchmark's helpers, compiled with NVRTC beside the generated kernels. The fill writes
// convert_input_element (convert_run.hpp) at every source offset; the check of each case is generated from
// its two layouts (codegen/convert_check.hpp) and never looks at the plan.
const char* kConvertFill = R"(extern "C" __global__ void layoutscope_helper_fill(unsigned char* p,
    long long n, int eb, unsigned long long seed) {
  for (long long o = blockIdx.x * 256LL + threadIdx.x; o < n; o += 256LL * gridDim.x) {
    unsigned long long x = seed * 0x2545f4914f6cdd1dull + (unsigned long long)o;
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    x = x ^ (x >> 31);
    if (eb >= 8) { if (x == ~0ull) x -= 1; }
    else x %= (1ull << (8 * eb)) - 1;
    for (int b = 0; b < eb; ++b) p[o * eb + b] = (unsigned char)(x >> (8 * b));
  }
})";

const char* kConvertCompare = R"(extern "C" __global__ void layoutscope_helper_compare(
    const unsigned char* a, const unsigned char* b, long long n, unsigned long long* bad) {
  for (long long i = blockIdx.x * 256LL + threadIdx.x; i < n; i += 256LL * gridDim.x)
    if (a[i] != b[i]) { atomicAdd(bad, 1ull); atomicMin(bad + 1, (unsigned long long)i); }
})";

codegen::KernelSource helper_source(const char* name, const char* text) {
  codegen::KernelSource k;
  k.name = name;
  k.text = text;
  k.hash = codegen::source_hash(k.text);
  k.threads = 256;
  return k;
}

void launch_kernel(const std::shared_ptr<const CompiledKernel>& k, int64_t blocks, int threads, void** args,
                   size_t shared = 0) {
  LS_CUDA_CHECK(cudaLaunchKernel(k->launchable(), dim3(static_cast<unsigned>(blocks)), dim3(threads), args,
                                 shared, nullptr));
}

// Samples one launch at a time (measure.hpp) with CUDA events, a cold-L2 flush, and the SM clock read after
// each sample: NVML where it answers, else the clock kernel (a sample below 80% of the maximum SM clock from
// cudaDevAttrClockRate counts as throttled there).
//
// The flush first resets persisting lines to normal. The float4 copy and the 64x64 transposes load with an L2
// evict-last policy (cuda_kernels.cu), and on the H200 such lines outlast any overwrite: after a 16 MiB
// buffer was read with evict-last loads, 31 % of its sectors still hit in L2 after a 128 MiB memset (7.6 MiB;
// 11 MiB of a 64 MiB buffer), so "cold" samples below ~L2 size were partly warm.
// cudaCtxResetPersistingL2Cache (4.6 us) takes the mark off: 0.03 % hits, as after plain loads (ncu,
// tests/gpu/tile_experiments5.cu, round 8, call 5). The same reset when the sampler goes leaves no evict-last
// lines behind for whatever runs on the GPU next.
class Sampler {
 public:
  Sampler(int device, std::string bus, const Sampling& s, RunControl& ctl)
      : bus_(std::move(bus)),
        s_(s),
        ctl_(ctl),
        flush_(static_cast<size_t>(flush_bytes(device))),
        clock_buf_(sizeof(double)) {
    if (auto why = nvml_clock_unavailable(bus_)) {
      int khz = 0;
      LS_CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device));
      max_clock_hz_ = khz * 1e3;
      source_ = "clock kernel (clock64 against %globaltimer over 20 us; NVML: " + *why + ")";
    } else {
      source_ = "nvml";
    }
  }

  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;
  ~Sampler() { (void)cudaCtxResetPersistingL2Cache(); }  // best effort: a destructor does not throw

  // Cold mode's step before each sample (and before a single-use run): persisting lines reset, L2
  // overwritten.
  void flush() {
    LS_CUDA_CHECK(cudaCtxResetPersistingL2Cache());
    LS_CUDA_CHECK(cudaMemsetAsync(flush_.get(), ++flush_value_ & 0xff, flush_.bytes()));
  }

  template <class Launch>
  TimingSummary run(Launch launch) {
    return sample(
        s_, ctl_, [&] { flush(); }, launch, [&] { return events_.time(launch); }, [&] { return clock(); },
        source_);
  }

  // One state: a first launch, then either the exact check and the timed samples, or, in a profile pass
  // (one launch per state under Nsight Compute), nothing more.
  template <class State, class Launch, class Verify>
  void measure(State& st, Launch launch, Verify verify) {
    launch();
    if (s_.profile_once) {
      LS_CUDA_CHECK(cudaDeviceSynchronize());
      st.verification = profile_pass_verification();
      return;
    }
    st.verification = verify();
    st.time = run(launch);
  }

  template <class Verify>
  CeilingState ceiling(Ceiling c, const float* in, float* out, int64_t count, int64_t size, Verify verify) {
    auto launch = [&] {
      switch (c) {
        case Ceiling::kMemcpy:
          LS_CUDA_CHECK(cudaMemcpyAsync(out, in, static_cast<size_t>(count) * sizeof(float),
                                        cudaMemcpyDeviceToDevice, nullptr));
          break;
        case Ceiling::kCopyVec4:
          LS_CUDA_CHECK(cuda::copy_vec4(in, out, count, nullptr));
          break;
        case Ceiling::kCopyScalar:
          LS_CUDA_CHECK(cuda::copy_scalar(in, out, count, nullptr));
          break;
        case Ceiling::kCopyTma:
          LS_CUDA_CHECK(cuda::copy_tma(in, out, count, nullptr));
          break;
      }
    };
    CeilingState st;
    st.ceiling = c;
    st.bytes = count * static_cast<int64_t>(sizeof(float));
    st.size = size;
    LS_CUDA_CHECK(cudaMemset(out, 0xff, static_cast<size_t>(st.bytes)));
    launch();  // ceilings are not measured in a profile pass: always verified and timed
    st.verification = verify();
    st.time = run(launch);
    return st;
  }

 private:
  ClockReading clock() {
    if (max_clock_hz_ == 0) return read_nvml_clock(bus_);
    LS_CUDA_CHECK(cuda::sm_clock(static_cast<double*>(clock_buf_.get()), nullptr));
    double cycles_per_ns = 0;
    LS_CUDA_CHECK(cudaMemcpy(&cycles_per_ns, clock_buf_.get(), sizeof cycles_per_ns, cudaMemcpyDeviceToHost));
    ClockReading r;
    r.sm_clock_hz = cycles_per_ns * 1e9;
    r.throttled = *r.sm_clock_hz < 0.8 * max_clock_hz_;
    return r;
  }

  std::string bus_;
  const Sampling& s_;
  RunControl& ctl_;
  DeviceBuffer flush_;
  DeviceBuffer clock_buf_;
  Events events_;
  int flush_value_ = 0;
  double max_clock_hz_ = 0;  // non-zero: the clock kernel is the source
  std::string source_;
};

class CudaBackend final : public Backend {
 public:
  explicit CudaBackend(std::filesystem::path kernel_dir) : kernels_(std::move(kernel_dir)) {
    int count = 0;
    const cudaError_t rc = cudaGetDeviceCount(&count);
    if (rc != cudaSuccess) {
      why_ = std::string("no usable CUDA device: ") + cudaGetErrorString(rc);
      cudaGetLastError();
    } else if (count == 0) {
      why_ = "no CUDA device found";
    }
    count_ = rc == cudaSuccess ? count : 0;
  }

  const BackendTraits& traits() const override { return cuda_traits(); }
  KernelCache* kernel_cache() override { return &kernels_; }
  std::optional<std::string> unavailable() const override {
    return why_.empty() ? std::nullopt : std::optional<std::string>(why_);
  }

  std::vector<DeviceInfo> devices() override {
    std::vector<DeviceInfo> out;
    for (int d = 0; d < count_; ++d) out.push_back(describe(d));
    return out;
  }

  Result<AccessMeasurement> run_access(int device, const AccessParams& p, RunControl& ctl) override {
    return run_access_cuda(device, p, &kernels_, ctl);
  }

  Result<ReshardMeasurement> run_reshard(const ReshardParams& p, RunControl& ctl) override {
    return run_reshard_nccl(p, devices(), kernels_, ctl);
  }

  Result<CollectiveMeasurement> run_collective(const CollectiveParams& p, RunControl& ctl) override {
    return run_collective_nccl(p, devices(), ctl);
  }

  int64_t memory_budget_bytes(int device) override {
    if (device < 0 || device >= count_) return 0;
    // No lock: the caller has checked that no run holds this device (one job per device).
    LS_CUDA_CHECK(cudaSetDevice(device));
    size_t free = 0, total = 0;
    LS_CUDA_CHECK(cudaMemGetInfo(&free, &total));
    // Keep room for the cold-L2 buffer and the context.
    return std::max<int64_t>(0, static_cast<int64_t>(free) - flush_bytes(device) - (int64_t{512} << 20));
  }

  // Each case: prepared on the host (plan + CUDA text, timed), compiled with NVRTC through the kernel cache,
  // run once on fresh input after a cold-L2 flush and checked on the device, then timed; single use = plan +
  // kernel cache get (compile + load the first time) + that first run. The ceilings copy the case's bytes,
  // once per distinct size.
  Result<ConvertMeasurement> run_convert(int device, const ConvertParams& p, RunControl& ctl) override {
    return measured_run<ConvertMeasurement>(
        device, p.sampling, ctl, [&](ConvertMeasurement& m, Sampler& sampler) {
          const bool once = p.sampling.profile_once;
          auto fill = kernels_.get(helper_source("layoutscope_helper_fill", kConvertFill), device);
          if (!fill) throw std::runtime_error("convert fill kernel: " + fill.error().message);
          auto compare = kernels_.get(helper_source("layoutscope_helper_compare", kConvertCompare), device);
          if (!compare) throw std::runtime_error("convert compare kernel: " + compare.error().message);
          std::map<int64_t, bool> ceiling_done;
          int total = static_cast<int>(p.cases.size());
          if (!once)
            for (const auto& c : p.cases)
              if (!ceiling_done.count(convert_bytes(c.plan)))
                ceiling_done[convert_bytes(c.plan)] = false, total += ceiling_count(true);
          int64_t in_max = 0, out_max = 0;
          for (const auto& c : p.cases) {
            in_max = std::max(in_max, source_extent(c.plan) * c.plan.elem_bytes);
            out_max = std::max(out_max, destination_extent(c.plan) * c.plan.elem_bytes);
          }
          // 16 B of slack: the ceilings copy whole floats of a size that need not be a multiple of 4.
          DeviceBuffer in(static_cast<size_t>(in_max) + 16),
              out(static_cast<size_t>(std::max(in_max, out_max)) + 16);
          DeviceBuffer bad(2 * sizeof(unsigned long long));
          int done = 0;
          for (const ConvertCase& c : p.cases) {
            const ConvertPlan& plan = c.plan;
            const int64_t bytes = convert_bytes(plan);
            const int64_t out_bytes = plan.elements * plan.elem_bytes;
            auto* inb = static_cast<unsigned char*>(in.get());
            auto* outb = static_cast<unsigned char*>(out.get());
            long long fill_n = source_extent(plan);
            int eb = plan.elem_bytes;
            unsigned long long seed = p.sampling.seed;
            void* fargs[] = {&inb, &fill_n, &eb, &seed};
            launch_kernel(*fill, 4096, 256, fargs);
            if (!once && !ceiling_done[bytes]) {
              ceiling_done[bytes] = true;
              const int64_t count = out_bytes / static_cast<int64_t>(sizeof(float));
              for_each_ceiling(
                  "bytes=" + std::to_string(bytes), ctl, done, total, m.ceilings, true, [&](Ceiling k) {
                    return sampler.ceiling(k, in.f(), out.f(), count, bytes, [&] {
                      return device_check(
                          [&](unsigned long long* mm) {
                            const unsigned char* a = inb;
                            const unsigned char* b = outb;
                            long long n = count * 4;
                            void* args[] = {&a, &b, &n, &mm};
                            launch_kernel(*compare, 8192, 256, args);
                            return cudaGetLastError();
                          },
                          count * 4,
                          [&](int64_t i) { return "byte " + std::to_string(i) + " differs from the source"; },
                          "copy of the case's random input; every copied byte compared with the source on "
                          "the device");
                    });
                  });
            }
            if (ctl.cancelled()) throw Cancelled{};
            ctl.progress(static_cast<double>(done++) / total, c.name);
            ConvertState s;
            s.name = c.name;
            s.source = &c;
            s.bytes = bytes;
            auto prepared = prepare_convert(c);
            if (!prepared) throw std::runtime_error(prepared.error().message);
            s.kernel_name = prepared->source.name;
            s.source_hash = prepared->source.text_hash;
            s.nvrtc_options = prepared->source.options;
            s.source_length = static_cast<int64_t>(prepared->source.text.size());
            s.times = prepared->times;
            const auto t0 = std::chrono::steady_clock::now();
            KernelOrigin origin = KernelOrigin::kCompiled;
            auto k = kernels_.get(prepared->source, device, &origin);
            if (!k) throw std::runtime_error(c.name + ": " + k.error().message);
            const double get_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            s.times.compile_cache_hit = origin != KernelOrigin::kCompiled;
            s.times.compile_cache = origin == KernelOrigin::kMemory ? "memory"
                                    : origin == KernelOrigin::kDisk ? "disk"
                                                                    : "none";
            s.times.compile_s = origin == KernelOrigin::kCompiled ? (*k)->compile_s : 0.0;
            s.times.load_s = origin == KernelOrigin::kMemory ? 0.0 : (*k)->load_s;
            const codegen::KernelSource& src = prepared->source;
            void* kargs[] = {&inb, &outb};
            auto launch = [&] { launch_kernel(*k, src.blocks, src.threads, kargs); };
            LS_CUDA_CHECK(cudaMemset(out.get(), 0xff,
                                     static_cast<size_t>(destination_extent(plan) * eb)));  // poison
            LS_CUDA_CHECK(cudaDeviceSynchronize());
            if (once) {
              sampler.measure(s, launch, [] { return Verification{}; });
              m.states.push_back(std::move(s));
              continue;
            }
            {
              Events ev;
              s.times.first_run_s = ev.time(launch);
            }
            s.times.single_use_s = s.times.plan_s + get_s + s.times.first_run_s;
            s.verification = check_convert(device, c, inb, outb, bad);
            run_library(device, c, inb, outb, bad, s.times);
            s.time = sampler.run(launch);
            m.states.push_back(std::move(s));
          }
        });
  }

  Result<AosSoaMeasurement> run_aos_soa(int device, const AosSoaParams& p, RunControl& ctl) override {
    return measured_run<AosSoaMeasurement>(
        device, p.sampling, ctl, [&](AosSoaMeasurement& m, Sampler& sampler) {
          const bool once = p.sampling.profile_once;
          const int per_n =
              static_cast<int>(p.touch_fields.size() * p.layouts.size()) + (once ? 0 : ceiling_count(true));
          const int total = static_cast<int>(p.ns.size()) * per_n;
          int done = 0;
          for (int64_t n : p.ns) {
            const size_t bytes = static_cast<size_t>(n) * 8 * sizeof(float);
            DeviceBuffer data(bytes);
            if (!once) {
              DeviceBuffer copy(bytes);
              for_each_ceiling("n=" + std::to_string(n), ctl, done, total, m.ceilings, true, [&](Ceiling c) {
                LS_CUDA_CHECK(cuda::fill_fields(data.f(), n, false, p.sampling.seed, nullptr));
                return sampler.ceiling(c, data.f(), copy.f(), n * 8, n, [&] {
                  return device_check(
                      [&](unsigned long long* mm) {
                        return cuda::check_fields(copy.f(), n, false, 0, p.sampling.seed, mm, nullptr);
                      },
                      n * 8,
                      [&](int64_t flat) {
                        return describe_field(copy.f(), n, false, 0, p.sampling.seed, flat);
                      },
                      "copy of random input (splitmix64, seed " + std::to_string(p.sampling.seed) +
                          "), destination poisoned with 0xffffffff, every element compared bit-exact on the "
                          "device");
                });
              });
            }
            for_each_aos_soa_state(
                p, n, ctl, done, total, m.states, [&](AosSoaState& s, AosSoaLayout layout) {
                  const int t = s.touch_fields;
                  const bool soa = is_soa(layout);
                  auto launch = [&] {
                    switch (layout) {
                      case AosSoaLayout::kAos:
                        LS_CUDA_CHECK(cuda::aos_touch(data.f(), n, t, nullptr));
                        break;
                      case AosSoaLayout::kSoa:
                        LS_CUDA_CHECK(cuda::soa_touch(data.f(), n, t, nullptr));
                        break;
                      case AosSoaLayout::kAosVec:
                        LS_CUDA_CHECK(cuda::aos_vec_touch(data.f(), n, t, nullptr));
                        break;
                      case AosSoaLayout::kSoaVec:
                        LS_CUDA_CHECK(cuda::soa_vec_touch(data.f(), n, t, nullptr));
                        break;
                    }
                  };
                  LS_CUDA_CHECK(cuda::fill_fields(data.f(), n, soa, p.sampling.seed, nullptr));
                  sampler.measure(s, launch, [&] {
                    return device_check(
                        [&](unsigned long long* mm) {
                          return cuda::check_fields(data.f(), n, soa, t, p.sampling.seed, mm, nullptr);
                        },
                        n * 8,
                        [&](int64_t flat) {
                          return describe_field(data.f(), n, soa, t, p.sampling.seed, flat);
                        },
                        "one launch on random input (splitmix64, seed " + std::to_string(p.sampling.seed) +
                            "); every field compared bit-exact on the device: touched fields = input + 1.0f, "
                            "others unchanged");
                  });
                });
          }
        });
  }

  Result<TransposeMeasurement> run_transpose(int device, const TransposeParams& p, RunControl& ctl) override {
    return measured_run<
        TransposeMeasurement>(device, p.sampling, ctl, [&](TransposeMeasurement& m, Sampler& sampler) {
      const bool once = p.sampling.profile_once;
      const int total =
          static_cast<int>(p.dims.size() * (p.variants.size() + (once ? 0 : ceiling_count(true))));
      int done = 0;
      for (int64_t dim : p.dims) {
        const size_t bytes = static_cast<size_t>(dim * dim) * sizeof(float);
        DeviceBuffer in(bytes), out(bytes);
        LS_CUDA_CHECK(cuda::fill_linear(in.f(), dim * dim, p.sampling.seed, nullptr));
        auto check = [&](bool transposed) {
          return device_check(
              [&](unsigned long long* mm) {
                return cuda::check_matrix(out.f(), dim, transposed, p.sampling.seed, mm, nullptr);
              },
              dim * dim,
              [&](int64_t flat) { return describe_matrix(out.f(), dim, transposed, p.sampling.seed, flat); },
              std::string("random input (splitmix64, seed ") + std::to_string(p.sampling.seed) +
                  "), output poisoned with 0xffffffff, every element compared bit-exact on the device with " +
                  (transposed ? "in(c, r)" : "in(r, c)"));
        };
        if (!once) {
          for_each_ceiling("dim=" + std::to_string(dim), ctl, done, total, m.ceilings, true, [&](Ceiling c) {
            return sampler.ceiling(c, in.f(), out.f(), dim * dim, dim, [&] { return check(false); });
          });
        }
        for_each_transpose_state(p, dim, ctl, done, total, m.states, [&](TransposeState& s) {
          const TransposeVariant v = s.variant;
          auto launch = [&] {
            switch (v) {
              case TransposeVariant::kCopy:
                LS_CUDA_CHECK(cuda::copy_matrix(in.f(), out.f(), dim, nullptr));
                break;
              case TransposeVariant::kNaive:
                LS_CUDA_CHECK(cuda::transpose_naive(in.f(), out.f(), dim, nullptr));
                break;
              case TransposeVariant::kTiled:
                LS_CUDA_CHECK(cuda::transpose_tiled(in.f(), out.f(), dim, nullptr));
                break;
              case TransposeVariant::kPad:
                LS_CUDA_CHECK(cuda::transpose_pad(in.f(), out.f(), dim, nullptr));
                break;
              case TransposeVariant::kTile64Pad:
                LS_CUDA_CHECK(cuda::transpose_tile64(in.f(), out.f(), dim, false, nullptr));
                break;
              case TransposeVariant::kTile64Swizzle:
                LS_CUDA_CHECK(cuda::transpose_tile64(in.f(), out.f(), dim, true, nullptr));
                break;
            }
          };
          LS_CUDA_CHECK(cudaMemset(out.get(), 0xff, bytes));  // poison: 0xffffffff
          sampler.measure(s, launch, [&] { return check(v != TransposeVariant::kCopy); });
        });
      }
    });
  }

 private:
  // The case by the library kernel of its unit, as a first call that waits for no compile of its own: the
  // kernel compiled into this binary (convert_library.cu, built by nvcc), one run into the poisoned output,
  // timed from the plan on; then the output checked like the plan kernel's.
  void run_library(int device, const ConvertCase& c, unsigned char* inb, unsigned char* outb,
                   DeviceBuffer& bad, ConvertTimes& times) {
    auto call = codegen::library_call(c.plan);
    if (!call) return;
    const void* kernel = layoutscope_convert_library_kernel(call->unit_bytes);
    if (kernel == nullptr) return;
    LS_CUDA_CHECK(
        cudaMemset(outb, 0xff, static_cast<size_t>(destination_extent(c.plan) * c.plan.elem_bytes)));
    LS_CUDA_CHECK(cudaDeviceSynchronize());
    codegen::LibraryArgs args = call->args;
    void* largs[] = {&inb, &outb, &args};
    // Host time from the launch to the end of the run: it holds the module's load on first use (the runtime
    // loads a module when one of its kernels first launches).
    const auto t0 = std::chrono::steady_clock::now();
    LS_CUDA_CHECK(cudaLaunchKernel(kernel, dim3(static_cast<unsigned>(call->blocks)),
                                   dim3(static_cast<unsigned>(call->threads)), largs, 0, nullptr));
    LS_CUDA_CHECK(cudaDeviceSynchronize());
    const double run_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    times.library_single_use_s = times.plan_s + run_s;
    times.library_verified = check_convert(device, c, inb, outb, bad).passed;
  }

  // The device check of one convert case, generated from its layouts (codegen::convert_check_source) and
  // compiled through the kernel cache; the first mismatch is read back and described.
  Verification check_convert(int device, const ConvertCase& c, unsigned char* inb, unsigned char* outb,
                             DeviceBuffer& bad) {
    auto source = codegen::convert_check_source(c.src, c.dst, c.plan.elem_bytes);
    if (!source) throw std::runtime_error(c.name + ": convert check: " + source.error().message);
    auto check = kernels_.get(*source, device);
    if (!check) throw std::runtime_error(c.name + ": convert check kernel: " + check.error().message);
    const unsigned long long init[2] = {0, ~0ull};
    LS_CUDA_CHECK(cudaMemcpy(bad.get(), init, sizeof init, cudaMemcpyHostToDevice));
    const unsigned char* cin = inb;
    const unsigned char* cout = outb;
    auto* counters = static_cast<unsigned long long*>(bad.get());
    void* args[] = {&cin, &cout, &counters};
    launch_kernel(*check, 8192, codegen::kConvertCheckThreads, args);
    unsigned long long host[2] = {};
    LS_CUDA_CHECK(cudaMemcpy(host, bad.get(), sizeof host, cudaMemcpyDeviceToHost));
    Verification v;
    v.checked = c.plan.elements;
    v.mismatches = static_cast<int64_t>(host[0]);
    v.passed = host[0] == 0;
    v.method =
        "device: random input (splitmix64, seed per run), destination poisoned with 0xff; every destination "
        "element out[dst(x)] compared byte for byte with in[src(x)], both layouts evaluated from their modes "
        "(not through the plan)";
    if (!v.passed) v.first_mismatch = "logical element " + std::to_string(host[1]) + " differs";
    return v;
  }

  // What every run shares: the device lock, a clean error state, telemetry before and after, and one Sampler
  // (gone, with its persisting-line reset, before the telemetry after).
  template <class Measurement, class Body>
  Measurement measured_run(int device, const Sampling& sampling, RunControl& ctl, Body body) {
    std::lock_guard lock(mutex_);
    LS_CUDA_CHECK(cudaSetDevice(device));
    (void)cudaGetLastError();  // start clean: no error left over from an earlier failed call on this worker
    Measurement m;
    const std::string bus = pci_bus_id(device);
    m.before = read_nvml_telemetry(bus);
    {
      Sampler sampler(device, bus, sampling, ctl);
      body(m, sampler);
      LS_CUDA_CHECK(cudaDeviceSynchronize());
    }
    m.after = read_nvml_telemetry(bus);
    ctl.progress(1.0, "done");
    return m;
  }

  static int attribute(cudaDeviceAttr a, int device) {
    int v = 0;
    LS_CUDA_CHECK(cudaDeviceGetAttribute(&v, a, device));
    return v;
  }

  static std::string pci_bus_id(int device) {
    char buf[32] = {};
    LS_CUDA_CHECK(cudaDeviceGetPCIBusId(buf, sizeof buf, device));
    return buf;
  }

  static DeviceInfo describe(int device) {
    cudaDeviceProp prop{};
    LS_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    DeviceInfo d;
    d.id = device;
    d.kind = cuda_traits().name;
    d.name = prop.name;
    d.sm_version = std::to_string(prop.major) + "." + std::to_string(prop.minor);
    d.multiprocessors = prop.multiProcessorCount;
    d.global_memory_bytes = static_cast<int64_t>(prop.totalGlobalMem);
    d.l2_cache_bytes = attribute(cudaDevAttrL2CacheSize, device);
    // CUDA 13 removed cudaDeviceProp::memoryClockRate / memoryBusWidth: use attributes.
    const int mem_khz = attribute(cudaDevAttrMemoryClockRate, device);
    const int bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, device);
    d.memory_bus_width_bits = bus_bits;
    d.memory_clock_hz = mem_khz * 1e3;
    // Double data rate: 2 transfers per clock, bus_bits / 8 bytes each (H200: 2 x 3201 MHz x 6016 / 8).
    d.peak_bandwidth_bytes_per_second = 2.0 * mem_khz * 1e3 * bus_bits / 8.0;
    d.pci_bus_id = pci_bus_id(device);
    d.telemetry = read_nvml_telemetry(*d.pci_bus_id);
    return d;
  }

  std::string why_;
  int count_ = 0;
  std::mutex mutex_;
  KernelCache kernels_;  // generated and helper kernels, by source hash (and on disk, across restarts)
  std::set<uint64_t> compiled_;  // hashes of the generated kernels already in kernels_
};

}  // namespace

void cuda_allocation_probe(int device, int64_t bytes) {
  LS_CUDA_CHECK(cudaSetDevice(device));
  DeviceBuffer probe(static_cast<size_t>(bytes));  // throws CudaError naming cudaMalloc and the CUDA error
}

std::unique_ptr<Backend> make_cuda_backend(std::filesystem::path kernel_dir) {
  return std::make_unique<CudaBackend>(std::move(kernel_dir));
}

}  // namespace layoutscope::agent
