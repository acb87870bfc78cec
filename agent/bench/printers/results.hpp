// Printers: measurement (benchmark.hpp) -> results JSON, results JSON -> CSV. Benchmarks never format.
//
// The JSON follows NVBench's layout (meta, devices[], benchmarks[].axes, states[].summaries[] with tags
// such as nv/cold/time/gpu/median) with real JSON numbers in SI units (s, B, B/s) and a semver
// schema_version; schemas/results.schema.json (JSON Schema 2020-12) describes it. Tags keep NVBench's
// meaning: nv/<cold|hot>/time/<gpu|cpu>/<stat> is the time of one launch; nv/.../bw/global/bytes_per_second
// uses the useful payload bytes (touched fields, or 2 x dim^2 x 4), never the whole struct.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "bench/benchmark.hpp"
#include "bench/kinds/access_run.hpp"
#include "bench/kinds/reshard_run.hpp"
#include "bench/printers/results_csv.hpp"

namespace layoutscope::agent {

inline constexpr const char* kResultsSchemaVersion = "1.6.0";

struct RunContext {
  std::string run_id;
  BackendTraits backend;                            // what ran it (its name is printed)
  nlohmann::json request;                           // resolved request (every default filled in)
  std::string created_at, started_at, finished_at;  // ISO 8601 UTC
  double wall_time_s = 0;
  DeviceInfo device;
};

nlohmann::json results_json(const RunContext& ctx, const AosSoaMeasurement& m, const AosSoaParams& p);
nlohmann::json results_json(const RunContext& ctx, const TransposeMeasurement& m, const TransposeParams& p);
nlohmann::json results_json(const RunContext& ctx, const ConvertMeasurement& m, const ConvertParams& p);
nlohmann::json results_json(const RunContext& ctx, const AccessMeasurement& m, const AccessParams& p);
nlohmann::json results_json(const RunContext& ctx, const ReshardMeasurement& m, const ReshardParams& p);
nlohmann::json results_json(const RunContext& ctx, const CollectiveMeasurement& m, const CollectiveParams& p);

// Device facts (no telemetry) and one telemetry reading, as the results and GET /v1/devices print them.
nlohmann::json device_facts_json(const DeviceInfo& d);
nlohmann::json telemetry_json(const Telemetry& t);

// True when every state's verification passed; otherwise `why` names the first failing state.
bool all_verified(const nlohmann::json& results, std::string* why);

}  // namespace layoutscope::agent
