// Test-only (--test-endpoints): a backend wrapper whose next run fails the way a GPU failure does (an
// exception thrown from inside the benchmark, like CudaError from LS_CUDA_CHECK on out-of-memory), so the
// HTTP tests can check on any machine that such a run ends "failed" with its reason and the agent keeps
// serving. Armed by POST /v1/_test/fail-next-run with {"kind": "exception"} (any backend) or
// {"kind": "device_allocation"}: a real cudaMalloc far beyond the device's memory through LS_CUDA_CHECK,
// so on a GPU the reason is the CUDA runtime's own and the next run shows the context still works.
// POST /v1/_test/slow-next-admission {"ms": N} makes the next memory-budget query (the bounds check of a run
// request) take N ms, so a test can send a second request while the first is being checked.
// POST /v1/_test/fail-record-write {"step": "write", "action": "enospc" | "kill", "skip": N, "times": M}
// makes a later step of record writes (RecordWriteFault below) fail as a full disk does, or kills the agent
// there with SIGKILL, so the tests can check a full results disk and a crash at every write step on any file
// system.
#pragma once

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <thread>

#include "backends/cuda/allocation_probe.hpp"
#include "bench/benchmark.hpp"
#include "bench/kinds/access_run.hpp"
#include "bench/kinds/reshard_run.hpp"

namespace layoutscope::agent {

// The steps of one record write (RunStore::persist), in order.
enum class WriteStep { kOpen, kWrite, kFsync, kRename, kFolderSync };

inline std::optional<WriteStep> write_step_named(std::string_view name) {
  if (name == "open") return WriteStep::kOpen;
  if (name == "write") return WriteStep::kWrite;
  if (name == "fsync") return WriteStep::kFsync;
  if (name == "rename") return WriteStep::kRename;
  if (name == "folder_sync") return WriteStep::kFolderSync;
  return std::nullopt;
}

// One armed fault: once a record write has reached `step` `skip` times, the next `times` writes that reach
// it fail there with ENOSPC (kNoSpace; the step is not done), or the process is killed with SIGKILL before
// the step (kKill).
class RecordWriteFault {
 public:
  enum class Action { kNoSpace, kKill };
  void arm(WriteStep step, Action action, int skip, int times) {
    std::lock_guard lock(mutex_);
    step_ = step;
    action_ = action;
    skip_ = skip;
    times_ = times;
  }
  // Called by persist before each step: false (errno = ENOSPC) when the step must fail.
  bool pass(WriteStep step) {
    std::lock_guard lock(mutex_);
    if (times_ == 0 || step_ != step) return true;
    if (skip_ > 0) {
      --skip_;
      return true;
    }
    --times_;
    if (action_ == Action::kKill) ::kill(::getpid(), SIGKILL);
    errno = ENOSPC;
    return false;
  }

 private:
  std::mutex mutex_;
  WriteStep step_ = WriteStep::kOpen;
  Action action_ = Action::kNoSpace;
  int skip_ = 0, times_ = 0;
};

class FaultInjectingBackend final : public Backend {
 public:
  enum class Fault { kNone, kException, kDeviceAllocation };
  explicit FaultInjectingBackend(std::unique_ptr<Backend> inner) : inner_(std::move(inner)) {}
  void fail_next_run(Fault f) { armed_ = f; }
  void slow_next_budget(std::chrono::milliseconds d) { budget_delay_ms_ = d.count(); }

  const BackendTraits& traits() const override { return inner_->traits(); }
  KernelCache* kernel_cache() override { return inner_->kernel_cache(); }
  std::optional<std::string> unavailable() const override { return inner_->unavailable(); }
  std::vector<DeviceInfo> devices() override { return inner_->devices(); }
  int64_t memory_budget_bytes(int d) override {
    if (const auto ms = budget_delay_ms_.exchange(0); ms > 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    return inner_->memory_budget_bytes(d);
  }
  Result<AosSoaMeasurement> run_aos_soa(int d, const AosSoaParams& p, RunControl& c) override {
    maybe_fail(d);
    return inner_->run_aos_soa(d, p, c);
  }
  Result<TransposeMeasurement> run_transpose(int d, const TransposeParams& p, RunControl& c) override {
    maybe_fail(d);
    return inner_->run_transpose(d, p, c);
  }
  Result<ConvertMeasurement> run_convert(int d, const ConvertParams& p, RunControl& c) override {
    maybe_fail(d);
    return inner_->run_convert(d, p, c);
  }
  // The access and multi-device benchmarks take no injected fault (they never did).
  Result<AccessMeasurement> run_access(int d, const AccessParams& p, RunControl& c) override {
    return inner_->run_access(d, p, c);
  }
  Result<ReshardMeasurement> run_reshard(const ReshardParams& p, RunControl& c) override {
    return inner_->run_reshard(p, c);
  }
  Result<CollectiveMeasurement> run_collective(const CollectiveParams& p, RunControl& c) override {
    return inner_->run_collective(p, c);
  }

 private:
  void maybe_fail(int device) {
    switch (armed_.exchange(Fault::kNone)) {
      case Fault::kNone:
        return;
      case Fault::kException:
        throw std::runtime_error(
            "cudaMalloc(&ptr_, bytes) failed (injected by --test-endpoints): out of memory");
      case Fault::kDeviceAllocation:
        cuda_allocation_probe(device, int64_t{1} << 50);
        return;  // 1 PiB
    }
  }
  std::unique_ptr<Backend> inner_;
  std::atomic<Fault> armed_{Fault::kNone};
  std::atomic<int64_t> budget_delay_ms_{0};
};

}  // namespace layoutscope::agent
