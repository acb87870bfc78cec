// The agent's CUDA backend's convert benchmark without HTTP (no cpp-httplib or nlohmann/json needed, so it
// builds on a GPU machine from the compiler alone): the permutation suite at 256 MiB each way, or one case,
// through CudaBackend::run_convert exactly as POST /v1/runs runs it. One line per state and per ceiling.
//
//   convert_backend [--quick]             the suite (--quick: its 8 f32 cases)
//   convert_backend SHAPE PERM DTYPE      one case, e.g. 16,4096,32,32 0,2,1,3 bf16
//
// Build (from the repository root; ENGINE = the engine's and the code generator's .o files):
//   nvcc -c -std=c++17 -arch=sm_90 agent/backends/cuda/cuda_kernels.cu
//   g++ -std=c++20 -O2 -Ishared/include -Icodegen -Iagent -I$CUDA/include
//   tests/gpu/convert_backend.cpp
//       {agent/backends/cuda/cuda_backend,agent/bench/kinds/convert_run,agent/backends/cuda/nvml,agent/backends/cuda/nvrtc,agent/bench/stats,agent/bench/benchmark}.cpp
//       cuda_kernels.o ENGINE -L$CUDA/lib64 -lcudart -ldl -lpthread
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

#include "bench/benchmark.hpp"
#include "bench/kinds/convert_run.hpp"

using namespace layoutscope;
using namespace layoutscope::agent;

namespace {

struct Quiet final : RunControl {
  bool cancelled() const override { return false; }
  void progress(double, const std::string& message) override {
    std::fprintf(stderr, "%s\n", message.c_str());
  }
};

std::vector<int64_t> numbers(const std::string& text) {
  std::vector<int64_t> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) out.push_back(std::stoll(item));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  ConvertParams p;
  p.sampling.warmup = 3;
  p.sampling.min_samples = 10;
  p.sampling.max_time_s = 0.25;
  p.sampling.seed = 1;
  if (argc == 4) {
    auto dtype = parse_dtype(argv[3]);
    if (!dtype) return std::fprintf(stderr, "%s\n", dtype.error().message.c_str()), 2;
    auto c = permute_case("case0", numbers(argv[1]), numbers(argv[2]), *dtype);
    if (!c) return std::fprintf(stderr, "%s\n", c.error().message.c_str()), 2;
    p.cases.push_back(std::move(c).value());
  } else {
    auto suite = permutation_suite(true);
    if (!suite) return std::fprintf(stderr, "%s\n", suite.error().message.c_str()), 2;
    p.suite = "permutations";
    p.cases = std::move(suite).value();
    if (argc == 2 && std::string(argv[1]) == "--quick") p.cases.resize(8);
  }
  auto backend = make_cuda_backend();
  if (auto why = backend->unavailable()) return std::fprintf(stderr, "%s\n", why->c_str()), 1;
  Quiet ctl;
  try {
    auto m = backend->run_convert(0, p, ctl);
    if (!m) return std::fprintf(stderr, "%s\n", m.error().message.c_str()), 1;
    double copy_bw = 0;
    for (const CeilingState& c : m->ceilings) {
      const double bw = 2.0 * static_cast<double>(c.bytes) / c.time.median_s;
      if (c.ceiling == Ceiling::kCopyVec4) copy_bw = bw;
      std::printf("ceiling %-11s bytes=%lld median=%.3f ms  %.0f GB/s  verified=%d\n", to_string(c.ceiling),
                  static_cast<long long>(c.size), c.time.median_s * 1e3, bw * 1e-9, c.verification.passed);
    }
    int failed = 0;
    for (const ConvertState& s : m->states) {
      const ConvertPlan& plan = s.source->plan;
      const double bw = static_cast<double>(s.bytes) / s.time.median_s;
      failed += !s.verification.passed;
      std::printf(
          "%-48s %-6s vec=%2dB median=%.3f ms %5.0f GB/s %.2fx copy  verified=%d (%lld)  plan=%.1f us "
          "cached=%.2f us compile=%.1f ms single=%.1f ms  pred sectors r/w %lld/%lld smem w/r %d/%d\n",
          s.name.c_str(), std::string(to_string(plan.kind)).c_str(), access_bytes(plan),
          s.time.median_s * 1e3, bw * 1e-9, copy_bw > 0 ? bw / copy_bw : 0.0, s.verification.passed,
          static_cast<long long>(s.verification.checked), s.times.plan_s * 1e6, s.times.cached_plan_s * 1e6,
          s.times.compile_s.value_or(0) * 1e3, s.times.single_use_s * 1e3,
          static_cast<long long>(plan.global_read.sectors), static_cast<long long>(plan.global_write.sectors),
          plan.smem_write.wavefronts, plan.smem_read.wavefronts);
    }
    return failed ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
