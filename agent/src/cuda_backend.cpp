// The CUDA backend: device facts from cudaDeviceGetAttribute, the B-09 kernels (cuda_kernels.cu) timed
// with CUDA events, one launch per sample; cold mode overwrites a buffer of twice the L2 before each
// sample (outside the timed region). Every run first verifies one launch on fresh random input.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <mutex>
#include <vector>

#include "benchmark.hpp"
#include "cuda_check.hpp"
#include "cuda_kernels.hpp"
#include "fault_injection.hpp"
#include "measure.hpp"
#include "nvml.hpp"
#include "verify.hpp"

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

class CudaBackend final : public Backend {
 public:
  CudaBackend() {
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

  std::string kind() const override { return "cuda"; }
  std::optional<std::string> unavailable() const override {
    return why_.empty() ? std::nullopt : std::optional<std::string>(why_);
  }

  std::vector<DeviceInfo> devices() override {
    std::vector<DeviceInfo> out;
    for (int d = 0; d < count_; ++d) out.push_back(describe(d));
    return out;
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

  Result<AosSoaMeasurement> run_aos_soa(int device, const AosSoaParams& p, RunControl& ctl) override {
    std::lock_guard lock(mutex_);
    LS_CUDA_CHECK(cudaSetDevice(device));
    (void)cudaGetLastError();  // start clean: no error left over from an earlier failed call on this worker
    AosSoaMeasurement m;
    const std::string bus = pci_bus_id(device);
    m.before = read_nvml_telemetry(bus);
    const size_t bytes = static_cast<size_t>(p.n) * 8 * sizeof(float);
    DeviceBuffer data(bytes);
    DeviceBuffer flush(static_cast<size_t>(flush_bytes(device)));
    Events ev;
    std::vector<float> host(static_cast<size_t>(p.n) * 8);
    const int total = static_cast<int>(p.touch_fields.size()) * 2;
    int done = 0, flush_value = 0;
    for (int t : p.touch_fields) {
      for (bool soa : {false, true}) {
        if (ctl.cancelled()) throw Cancelled{};
        ctl.progress(static_cast<double>(done) / total,
                     std::string(soa ? "soa" : "aos") + " touch_fields=" + std::to_string(t));
        auto launch = [&] {
          LS_CUDA_CHECK(soa ? cuda::soa_touch(data.f(), p.n, t, nullptr) : cuda::aos_touch(data.f(), p.n, t, nullptr));
        };
        AosSoaState s;
        s.layout = soa ? "soa" : "aos";
        s.touch_fields = t;
        s.n = p.n;
        LS_CUDA_CHECK(cuda::fill_fields(data.f(), p.n, soa, p.sampling.seed, nullptr));
        launch();
        LS_CUDA_CHECK(cudaMemcpy(host.data(), data.get(), bytes, cudaMemcpyDeviceToHost));
        s.verification = verify_aos_soa(host, soa, p.n, t, p.sampling.seed);
        s.time = sample(
            p.sampling, ctl,
            [&] { LS_CUDA_CHECK(cudaMemsetAsync(flush.get(), ++flush_value & 0xff, flush.bytes())); },
            launch, [&] { return ev.time(launch); });
        m.states.push_back(std::move(s));
        ++done;
      }
    }
    LS_CUDA_CHECK(cudaDeviceSynchronize());
    m.after = read_nvml_telemetry(bus);
    ctl.progress(1.0, "done");
    return m;
  }

  Result<TransposeMeasurement> run_transpose(int device, const TransposeParams& p, RunControl& ctl) override {
    std::lock_guard lock(mutex_);
    LS_CUDA_CHECK(cudaSetDevice(device));
    (void)cudaGetLastError();  // start clean: no error left over from an earlier failed call on this worker
    TransposeMeasurement m;
    const std::string bus = pci_bus_id(device);
    m.before = read_nvml_telemetry(bus);
    DeviceBuffer flush(static_cast<size_t>(flush_bytes(device)));
    Events ev;
    const int total = static_cast<int>(p.dims.size() * p.variants.size());
    int done = 0, flush_value = 0;
    for (int64_t dim : p.dims) {
      const size_t bytes = static_cast<size_t>(dim * dim) * sizeof(float);
      DeviceBuffer in(bytes), out(bytes);
      std::vector<float> host(static_cast<size_t>(dim * dim));
      LS_CUDA_CHECK(cuda::fill_linear(in.f(), dim * dim, p.sampling.seed, nullptr));
      for (TransposeVariant v : p.variants) {
        if (ctl.cancelled()) throw Cancelled{};
        ctl.progress(static_cast<double>(done) / total, std::string(to_string(v)) + " dim=" + std::to_string(dim));
        auto launch = [&] {
          switch (v) {
            case TransposeVariant::kCopy: LS_CUDA_CHECK(cuda::copy_matrix(in.f(), out.f(), dim, nullptr)); break;
            case TransposeVariant::kNaive: LS_CUDA_CHECK(cuda::transpose_naive(in.f(), out.f(), dim, nullptr)); break;
            case TransposeVariant::kTiled: LS_CUDA_CHECK(cuda::transpose_tiled(in.f(), out.f(), dim, nullptr)); break;
            case TransposeVariant::kPad: LS_CUDA_CHECK(cuda::transpose_pad(in.f(), out.f(), dim, nullptr)); break;
          }
        };
        TransposeState s;
        s.variant = v;
        s.dim = dim;
        LS_CUDA_CHECK(cudaMemset(out.get(), 0xff, bytes));  // poison: 0xffffffff
        launch();
        LS_CUDA_CHECK(cudaMemcpy(host.data(), out.get(), bytes, cudaMemcpyDeviceToHost));
        s.verification = verify_transpose(host, dim, v != TransposeVariant::kCopy, p.sampling.seed);
        s.time = sample(
            p.sampling, ctl,
            [&] { LS_CUDA_CHECK(cudaMemsetAsync(flush.get(), ++flush_value & 0xff, flush.bytes())); },
            launch, [&] { return ev.time(launch); });
        m.states.push_back(std::move(s));
        ++done;
      }
    }
    LS_CUDA_CHECK(cudaDeviceSynchronize());
    m.after = read_nvml_telemetry(bus);
    ctl.progress(1.0, "done");
    return m;
  }

 private:
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

  // Twice the L2 (NOTES.md §5: memset a buffer >= L2 before each sample), at least 64 MiB.
  static int64_t flush_bytes(int device) {
    return std::max<int64_t>(2 * int64_t{attribute(cudaDevAttrL2CacheSize, device)}, int64_t{64} << 20);
  }

  static DeviceInfo describe(int device) {
    cudaDeviceProp prop{};
    LS_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    DeviceInfo d;
    d.id = device;
    d.kind = "cuda";
    d.name = prop.name;
    d.sm_version = std::to_string(prop.major) + "." + std::to_string(prop.minor);
    d.multiprocessors = prop.multiProcessorCount;
    d.global_memory_bytes = static_cast<int64_t>(prop.totalGlobalMem);
    d.l2_cache_bytes = attribute(cudaDevAttrL2CacheSize, device);
    // CUDA 13 removed cudaDeviceProp::memoryClockRate / memoryBusWidth (NOTES.md §3): use attributes.
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
};

}  // namespace

void cuda_allocation_probe(int device, int64_t bytes) {
  LS_CUDA_CHECK(cudaSetDevice(device));
  DeviceBuffer probe(static_cast<size_t>(bytes));  // throws CudaError naming cudaMalloc and the CUDA error
}

std::unique_ptr<Backend> make_cuda_backend() { return std::make_unique<CudaBackend>(); }

}  // namespace layoutscope::agent
