// The routes: each handler translates HTTP <-> catalogue / run store / backend calls, nothing else.
// Policy (who may call, what a request may look like) lives in RequestPolicy; see openapi.json.
#pragma once

#include <httplib.h>

#include <optional>
#include <string>

#include "bench/benchmark.hpp"
#include "http/policy.hpp"
#include "jobs/run_store.hpp"

namespace layoutscope::agent {

class FaultInjectingBackend;

struct ApiConfig {
  int default_device = 0;
  std::optional<std::string> web_dir;  // a built page; the built-in page otherwise
  bool test_endpoints = false;
  FaultInjectingBackend* faults = nullptr;  // set with test_endpoints
  int max_streams = 128;                    // open /events streams at once; more get 503 + Retry-After
};

void install_routes(httplib::Server& server, const RequestPolicy& policy, Backend& backend, RunStore& runs,
                    const ApiConfig& config);

}  // namespace layoutscope::agent
