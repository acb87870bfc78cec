// Profile mode ("profile": true on POST /v1/runs): after the timed run, the agent starts itself under Nsight
// Compute, `ncu --clock-control none` (clocks left as they are: METHOD.md), as
//   ncu ... layoutscope-agent --profile-child '{"benchmark": ..., "params": ...}'
// which launches each state's kernel once (no timing, no verification), and reads per-kernel hardware
// counters from ncu's CSV: global sectors per request (loads, stores) and shared-memory wavefronts and bank
// conflicts per instruction. They are added to each state as "profile", beside the engine's "predicted".
// Where ncu is missing or cannot run, every state's "profile" says why; on the CPU backend it says that
// Nsight Compute profiles CUDA kernels only.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "params.hpp"

namespace layoutscope::agent {

inline constexpr const char* kProfileCpuReason =
    "not measured: ncu (Nsight Compute) profiles CUDA kernels only, and this run used the cpu backend";

// Adds "profile" to every state of `result` (and a benchmark-level "profile" block with the command).
void attach_profile(nlohmann::json& result, const RunRequest& request, const std::string& backend_kind);

// The kernel name fragment that the state's launch shows in ncu ("aos_touch_kernel", ...).
std::string profiled_kernel(const nlohmann::json& state, const std::string& benchmark);

}  // namespace layoutscope::agent
