// The results document (schemas/results.schema.json) as CSV: one row per state, units in the column names,
// cells that do not apply empty. This is the one CSV writer and column vocabulary of layoutscope: the agent
// answers GET /v1/runs/{id}?format=csv with it, the WASM module binds it for the page's download
// (wasm/results_bindings.cpp) and the Python package for to_dataframe (python/src/results.cpp). It reads only
// the document, so it needs nothing else of the agent.
//
//   {"benchmarks": [{"name": "transpose", "states": [{"axis_values": {"variant": "naive", "dim": 64},
//   ...}]}]}
//   ->
//   run_id,finished_at,schema_version,benchmark,backend,device_name,cache,layout,touch_fields,n,variant,dim,...
//      <id>,<time>,1.3.0,transpose,cpu,<device>,cold,,,,naive,64,...
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace layoutscope::agent {

// Why results_csv cannot print `results`: the path of the first field it reads that is missing or of another
// type ("benchmarks[0].states[2].verification.passed: missing"); nothing when it can. A document that
// schemas/results.schema.json accepts always can.
std::optional<std::string> results_csv_problem(const nlohmann::json& results);

// One row per state. `results` must pass results_csv_problem.
std::string results_csv(const nlohmann::json& results);

}  // namespace layoutscope::agent
