// Profile mode ("profile": true on POST /v1/runs): after the timed run, the agent starts itself under Nsight
// Compute, `ncu --clock-control none` (clocks left as they are, as during the timed samples), as
//   ncu ... layoutscope-agent --profile-child '{"benchmark": ..., "params": ...}'
// which launches each state's kernel once (no timing, no verification), and reads per-kernel hardware
// counters from ncu's CSV: global sectors per request (loads, stores) and shared-memory wavefronts and bank
// conflicts per instruction. They are attached to the measurement (AosSoaMeasurement::profile, one
// StateProfile per state) before it is printed; the printer writes each as the state's "profile", beside
// "predicted". Where ncu is missing or cannot run, every state's "profile" says why; on the CPU backend it
// says that Nsight Compute profiles CUDA kernels only.
#pragma once

#include <string>

#include "bench/benchmark.hpp"
#include "bench/request/params.hpp"

namespace layoutscope::agent {

// Profiles every state of the measurement once under ncu and sets its `profile` (counters, or why none).
void attach_profile(AosSoaMeasurement& m, const RunRequest& request, const BackendTraits& backend);
void attach_profile(TransposeMeasurement& m, const RunRequest& request, const BackendTraits& backend);
void attach_profile(ConvertMeasurement& m, const RunRequest& request, const BackendTraits& backend);
void attach_profile(AccessMeasurement& m, const RunRequest& request, const BackendTraits& backend);

// The kernel name fragment that the state's launch shows in ncu ("aos_touch_kernel", ...).
std::string profiled_kernel(const AosSoaState& s);
std::string profiled_kernel(const TransposeState& s);

}  // namespace layoutscope::agent
