// The GPU run of smem_access / global_access (access_run.hpp): the plan's kernel from NVRTC, one block of one
// warp, its registers and tile read back and checked, then timed with CUDA events (no cache flush matters for
// a one-warp kernel whose data is a few KiB; the sampling parameters still apply).
#include <cuda_runtime.h>

#include <array>
#include <chrono>
#include <memory>

#include "backends/cuda/cuda_check.hpp"
#include "backends/cuda/nvml.hpp"
#include "backends/cuda/nvrtc.hpp"
#include "bench/kinds/access_run.hpp"
#include "bench/measure.hpp"

namespace layoutscope::agent {
namespace {

// cudaMalloc'd bytes, freed on every path (a CUDA error throws out of the run).
class Buffer {
 public:
  explicit Buffer(size_t bytes) { LS_CUDA_CHECK(cudaMalloc(&p_, std::max<size_t>(bytes, 16))); }
  ~Buffer() { (void)cudaFree(p_); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  void* get() const { return p_; }

 private:
  void* p_ = nullptr;
};

template <class T>
void upload(Buffer& b, const std::vector<T>& v) {
  if (!v.empty()) LS_CUDA_CHECK(cudaMemcpy(b.get(), v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
}

std::string bus_id(int device) {
  std::array<char, 32> bus{};
  if (cudaDeviceGetPCIBusId(bus.data(), static_cast<int>(bus.size()), device) != cudaSuccess) return "";
  return bus.data();
}

}  // namespace

Result<AccessMeasurement> run_access_cuda(int device, const AccessParams& p, KernelCache* kernels,
                                          RunControl& ctl) {
  if (!kernels) return make_error("the cuda backend has no kernel cache", 0, "benchmark");
  LS_CUDA_CHECK(cudaSetDevice(device));
  const std::string bus = bus_id(device);
  AccessMeasurement m;
  m.before = read_nvml_telemetry(bus);
  int done = 0;
  for (const AccessCase& c : p.cases) {
    if (ctl.cancelled()) throw Cancelled{};
    ctl.progress(static_cast<double>(done++) / static_cast<double>(p.cases.size()), c.name);
    AccessState s;
    s.name = c.name;
    s.source = &c;
    const codegen::KernelSource src = codegen::access_kernel_source(c.plan);
    s.source_hash = src.hash;
    auto k = kernels->get(src, device);
    if (!k) return k.error();
    s.executor =
        "cuda: the generated kernel compiled with NVRTC for " + (*k)->arch + ", one block of 32 threads";
    if ((*k)->compile_s > 0) s.compile_s = (*k)->compile_s;
    const std::vector<uint8_t> in = access_input(c.plan, p.sampling.seed);
    std::vector<uint32_t> regs(static_cast<size_t>(codegen::access_register_words(c.plan)));
    std::vector<uint8_t> tile(static_cast<size_t>(codegen::access_tile_out_bytes(c.plan)));
    Buffer d_off(c.plan.offsets.size() * 4), d_src(c.plan.source_offsets.size() * 4), d_in(in.size()),
        d_regs(regs.size() * 4), d_tile(tile.size());
    upload(d_off, c.plan.offsets);
    if (space(c.access.instr.op) == Space::kGlobal) {
      // LDG / STG read their offsets from the module's __constant__ array (access_kernel.hpp).
      void* symbol = nullptr;
      size_t symbol_bytes = 0;
      LS_CUDA_CHECK(
          cudaLibraryGetGlobal(&symbol, &symbol_bytes, (*k)->library, codegen::kAccessOffsetsSymbol));
      if (symbol_bytes != c.plan.offsets.size() * sizeof(int32_t))
        return make_error("the kernel's offset array holds " + std::to_string(symbol_bytes) +
                          " bytes, the plan " + std::to_string(c.plan.offsets.size() * sizeof(int32_t)));
      LS_CUDA_CHECK(cudaMemcpy(symbol, c.plan.offsets.data(), symbol_bytes, cudaMemcpyHostToDevice));
    }
    upload(d_src, c.plan.source_offsets);
    upload(d_in, in);
    // Poison: a byte nobody wrote reads 0xff, a register nobody loaded 0xffffffff.
    LS_CUDA_CHECK(cudaMemset(d_regs.get(), 0xff, std::max<size_t>(regs.size() * 4, 16)));
    LS_CUDA_CHECK(cudaMemset(d_tile.get(), 0xff, std::max<size_t>(tile.size(), 16)));
    void* offsets = d_off.get();
    void* sources = d_src.get();
    void* input = d_in.get();
    void* out_regs = d_regs.get();
    void* out_tile = d_tile.get();
    void* args[] = {&offsets, &sources, &input, &out_regs, &out_tile};
    const void* fn = (*k)->launchable();
    auto launch = [&] { LS_CUDA_CHECK(cudaLaunchKernel(fn, dim3(1), dim3(32), args, 0, nullptr)); };
    launch();
    LS_CUDA_CHECK(cudaDeviceSynchronize());
    if (!p.sampling.profile_once) {
      if (!regs.empty())
        LS_CUDA_CHECK(cudaMemcpy(regs.data(), d_regs.get(), regs.size() * 4, cudaMemcpyDeviceToHost));
      if (!tile.empty())
        LS_CUDA_CHECK(cudaMemcpy(tile.data(), d_tile.get(), tile.size(), cudaMemcpyDeviceToHost));
      s.verification = verify_access(c, in, regs, tile);
      cudaEvent_t start, stop;
      LS_CUDA_CHECK(cudaEventCreate(&start));
      LS_CUDA_CHECK(cudaEventCreate(&stop));
      auto timed = [&] {
        LS_CUDA_CHECK(cudaEventRecord(start, nullptr));
        launch();
        LS_CUDA_CHECK(cudaEventRecord(stop, nullptr));
        LS_CUDA_CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        LS_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        return static_cast<double>(ms) * 1e-3;
      };
      const std::optional<std::string> no_nvml = nvml_clock_unavailable(bus);
      auto clock = [&] { return no_nvml ? ClockReading{} : read_nvml_clock(bus); };
      try {
        s.time = sample(
            p.sampling, ctl, [] {}, launch, timed, clock, no_nvml ? "none (NVML: " + *no_nvml + ")" : "nvml");
      } catch (...) {
        (void)cudaEventDestroy(start);
        (void)cudaEventDestroy(stop);
        throw;
      }
      (void)cudaEventDestroy(start);
      (void)cudaEventDestroy(stop);
    } else {
      s.verification.method = "not verified: profile pass (one launch per state under Nsight Compute)";
      s.verification.passed = true;
    }
    m.states.push_back(std::move(s));
  }
  m.after = read_nvml_telemetry(bus);
  return m;
}

}  // namespace layoutscope::agent
