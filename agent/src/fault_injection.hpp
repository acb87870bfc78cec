// Test-only (--test-endpoints): a backend wrapper whose next run fails the way a GPU failure does (an
// exception thrown from inside the benchmark, like CudaError from LS_CUDA_CHECK on out-of-memory), so the
// HTTP tests can check on any machine that such a run ends "failed" with its reason and the agent keeps
// serving. Armed by POST /v1/_test/fail-next-run.
#pragma once

#include <atomic>
#include <stdexcept>

#include "benchmark.hpp"

namespace layoutscope::agent {

class FaultInjectingBackend final : public Backend {
 public:
  explicit FaultInjectingBackend(std::unique_ptr<Backend> inner) : inner_(std::move(inner)) {}
  void fail_next_run() { armed_ = true; }

  std::string kind() const override { return inner_->kind(); }
  std::optional<std::string> unavailable() const override { return inner_->unavailable(); }
  std::vector<DeviceInfo> devices() override { return inner_->devices(); }
  int64_t memory_budget_bytes(int d) override { return inner_->memory_budget_bytes(d); }
  Result<AosSoaMeasurement> run_aos_soa(int d, const AosSoaParams& p, RunControl& c) override {
    maybe_fail();
    return inner_->run_aos_soa(d, p, c);
  }
  Result<TransposeMeasurement> run_transpose(int d, const TransposeParams& p, RunControl& c) override {
    maybe_fail();
    return inner_->run_transpose(d, p, c);
  }

 private:
  void maybe_fail() {
    if (armed_.exchange(false))
      throw std::runtime_error("cudaMalloc(&ptr_, bytes) failed (injected by --test-endpoints): out of memory");
  }
  std::unique_ptr<Backend> inner_;
  std::atomic<bool> armed_{false};
};

}  // namespace layoutscope::agent
