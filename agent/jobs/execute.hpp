// One validated request run on a backend, the same way for a POST /v1/runs job (run_store.cpp) and for --run
// /
// --profile-child (main.cpp), so that their timings and documents compare like with like.
#pragma once

#include <nlohmann/json.hpp>

#include "bench/benchmark.hpp"
#include "bench/printers/results.hpp"
#include "bench/request/params.hpp"

namespace layoutscope::agent {

// ctx comes with the run id, backend, resolved request and the created/started times; execute_request fills
// in the device, the finished time and the wall time. It returns the results document (results_json) with the
// ncu profile attached when the request asks for one, or, with `document` false (a profile child: every state
// launched once under ncu, nothing timed), null. A backend failure comes back as its Error; Cancelled and
// other exceptions pass through to the caller.
Result<nlohmann::json> execute_request(Backend& backend, const RunRequest& req, RunControl& ctl,
                                       RunContext& ctx, bool document = true);

}  // namespace layoutscope::agent
