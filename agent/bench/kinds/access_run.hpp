// The smem_access and global_access benchmarks: one warp access of the engine (access.hpp's WarpAccess) run
// as the kernel access_kernel.hpp generates for it, what it read or wrote checked element by element, timed,
// and (under "profile": true) counted by Nsight Compute beside the engine's prediction.
//
//   POST /v1/runs {"benchmark": "smem_access", "profile": true,
//                  "params": {"layout": "S[(32,32):(32,1)]", "shape": [32, 32], "dtype": "f32",
//                             "instr": "LDS.32", "lanes": "columns"}}
//     -> one state "access": predicted 32 wavefronts (ideal 1: every lane in bank 0), measured
//        sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum = 32 on an H200
//   {"benchmark": "smem_access", "params": {"writer": "rows;STS.32", "reader": "columns;LDS.32",
//    "tile": [32, 32], "dtype": "f32", "candidate": "Swizzle<5,0,5>"}}
//     -> states "write" and "read", both on the advisor's candidate layout
//
// CUDA: the plan's kernel compiled with NVRTC (cached by source hash), one block of one warp. CPU: the same
// plan run by the host executor (run_access_on_host: addresses computed, data moved, nothing counted).
// Either way the check does not reuse the plan's offsets: each element's place comes from the layout.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "access_kernel.hpp"
#include "bench/benchmark.hpp"
#include "layoutscope/access.hpp"

namespace layoutscope::agent {

struct AccessCase {
  std::string name;   // "access", or the pair's "write" / "read"
  std::string lanes;  // how the lanes were chosen, as given ("default", "rows", a thread layout, a list)
  WarpAccess access;
  AccessCost predicted;
  codegen::AccessPlan plan;
};

struct AccessParams {
  std::string benchmark;  // "smem_access" | "global_access"
  nlohmann::json
      input;  // the access (or pair) as resolved: echoed in meta.request, parsed again by ncu's child
  nlohmann::json advice;  // a pair: the candidate's layout, rank and conflicts, and the advisor's best name
  std::vector<AccessCase> cases;
  Sampling sampling;
};

struct AccessState {
  std::string name;
  const AccessCase* source = nullptr;
  std::string executor;  // how the access ran: NVRTC kernel on the GPU, or the host executor
  uint64_t source_hash = 0;
  std::optional<double> compile_s;  // NVRTC (absent on the CPU and when the kernel was cached)
  TimingSummary time;
  Verification verification;
};

struct AccessMeasurement {
  std::vector<AccessState> states;
  Telemetry before, after;
  std::optional<Profile> profile;  // "profile": true only
};

// params of smem_access / global_access; errors name the field ("params.instr", "params.candidate").
Result<AccessParams> parse_access_params(const nlohmann::json& p, const std::string& benchmark,
                                         const Sampling& sampling);
// The host executor (the CPU backend's run) and the GPU run (the CUDA backend's, access_run_cuda.cpp), which
// compiles through `kernels` (the backend's cache, Backend::kernel_cache).
Result<AccessMeasurement> run_access_host(const AccessParams& p, RunControl& ctl);
Result<AccessMeasurement> run_access_cuda(int device, const AccessParams& p, KernelCache* kernels,
                                          RunControl& ctl);

// The input bytes of a case (the tile image for loads, the global source for cp.async, the buffer for LDG):
// byte b = a hash of (seed, b), so that neighbouring bytes differ.
std::vector<uint8_t> access_input(const codegen::AccessPlan& plan, uint64_t seed);

// Every element each lane moved, checked through the layout (lane_addresses of each element, not the plan's
// offsets): loads' register bytes against the input at the element's place; stores' bytes in the tile
// against the value stored; cp.async's tile bytes against the source's. ldmatrix/stmatrix registers follow
// the PTX ISA's m8n8 .b16 fragments.
Verification verify_access(const AccessCase& c, std::span<const uint8_t> in, std::span<const uint32_t> regs,
                           std::span<const uint8_t> tile);

// The Nsight Compute metrics that count the cases' instructions: per-op shared wavefronts and conflicts
// (access.hpp's names) or global sectors and requests.
std::vector<std::string> access_metrics(const AccessParams& p);

// The state's "predicted" block (the form predict.cpp gives every benchmark) and its "measured" block from
// the profile's counters (nullptr when there is none).
nlohmann::json access_predicted(const AccessCase& c);
nlohmann::json access_measured(const AccessCase& c, const StateProfile* profile);

}  // namespace layoutscope::agent
