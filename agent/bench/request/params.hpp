// The benchmark catalogue (parameters, defaults and bounds, per backend) and the validation of a
// POST /v1/runs body against it. Validation happens before any allocation: a value out of bounds, or a
// size that does not fit the device's memory, is an Error whose field names the parameter
// ("params.touch_fields[2]"), answered with 422. The bounds, enums, descriptions and fixed defaults are the
// request schema's (schemas/run-request.schema.json): the limits through the generated request_limits.hpp,
// the catalogue read from the schema compiled into the binary.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "bench/benchmark.hpp"
#include "bench/kinds/access_run.hpp"
#include "bench/kinds/reshard_run.hpp"
#include "bench/request_limits.hpp"
#include "layoutscope/result.hpp"

namespace layoutscope::agent {

enum class BenchmarkKind { kAosSoa, kTranspose, kConvert, kSmemAccess, kGlobalAccess, kReshard, kCollective };

struct RunRequest {
  BenchmarkKind kind = BenchmarkKind::kAosSoa;
  std::string benchmark;  // "aos_soa" | "transpose" | "convert" | "smem_access" | "global_access" |
                          // "reshard" | "collective"
  int device = 0;
  AosSoaParams aos_soa;
  TransposeParams transpose;
  ConvertParams convert;
  ReshardParams reshard;
  CollectiveParams collective;
  AccessParams access;      // smem_access and global_access
  bool profile = false;     // also run each state once under Nsight Compute (profile.hpp)
  nlohmann::json resolved;  // the request with every default filled in (echoed in meta.request)
};

// Every device the run uses, its own (request.device) first: a reshard or collective on a backend whose mesh
// is its devices (the cuda backend) drives the machine's first n GPUs (n = the mesh's size, or params.gpus);
// otherwise (the cpu backend) a reshard's devices are simulated on the one device.
std::vector<int> run_devices(const RunRequest& request, const BackendTraits& backend);

// GET /v1/benchmarks: each benchmark, its parameters with type, default (for this backend) and bounds.
nlohmann::json benchmark_catalogue(const BackendTraits& backend);

// memory_budget(device) is asked only after the device index was checked.
template <class F>
Result<RunRequest> parse_run_request(const nlohmann::json& body, const BackendTraits& backend,
                                     int device_count, F memory_budget);

Result<RunRequest> parse_run_request_impl(const nlohmann::json& body, const BackendTraits& backend,
                                          int device_count, const std::function<int64_t(int)>& memory_budget);

template <class F>
Result<RunRequest> parse_run_request(const nlohmann::json& body, const BackendTraits& backend,
                                     int device_count, F memory_budget) {
  return parse_run_request_impl(body, backend, device_count, std::function<int64_t(int)>(memory_budget));
}

}  // namespace layoutscope::agent
