// Built when CMake found no CUDA compiler: the CUDA backend exists and says why it cannot run.
#include <stdexcept>

#include "backends/cuda/allocation_probe.hpp"
#include "backends/cuda/cuda_traits.hpp"
#include "bench/benchmark.hpp"
#include "bench/kinds/access_run.hpp"
#include "bench/kinds/reshard_run.hpp"

namespace layoutscope::agent {
namespace {

class AbsentCudaBackend final : public Backend {
 public:
  const BackendTraits& traits() const override { return cuda_traits(); }
  std::optional<std::string> unavailable() const override {
    return "this layoutscope-agent was built without CUDA (no nvcc found at configure time)";
  }
  std::vector<DeviceInfo> devices() override { return {}; }
  int64_t memory_budget_bytes(int) override { return 0; }
  Result<AosSoaMeasurement> run_aos_soa(int, const AosSoaParams&, RunControl&) override {
    return make_error(*unavailable());
  }
  Result<TransposeMeasurement> run_transpose(int, const TransposeParams&, RunControl&) override {
    return make_error(*unavailable());
  }
  Result<ConvertMeasurement> run_convert(int, const ConvertParams&, RunControl&) override {
    return make_error(*unavailable());
  }
  Result<AccessMeasurement> run_access(int, const AccessParams&, RunControl&) override {
    return make_error(*unavailable(), 0, "device");
  }
  Result<ReshardMeasurement> run_reshard(const ReshardParams&, RunControl&) override {
    return make_error(*unavailable(), 0, "benchmark");
  }
  Result<CollectiveMeasurement> run_collective(const CollectiveParams&, RunControl&) override {
    return make_error(*unavailable(), 0, "benchmark");
  }
};

}  // namespace

void cuda_allocation_probe(int, int64_t) {
  throw std::runtime_error("device allocation of the test probe failed: this agent was built without CUDA");
}

std::unique_ptr<Backend> make_cuda_backend(std::filesystem::path) {
  return std::make_unique<AbsentCudaBackend>();
}

}  // namespace layoutscope::agent
