// A POST /v1/runs body as the agent reads it: RequestPolicy::parse_json_body, then parse_run_request (the
// catalogue's bounds, the layouts parsed and planned, the request's cost) with the device's memory bound, as
// post_run does. The first byte picks the machine: 1 + byte % 8 devices, and a GPU
// backend's traits (byte / 8 % 2 == 0: mesh on the devices, 141 GB each) or a host backend's (a simulated
// mesh, 512 MiB, the convert suite at 1 MiB a case). Seeds: tests/fuzz/corpus-request, one realistic request
// of each benchmark. A crash, a sanitizer report, a hang, an error without a field, an accepted request
// whose resolved form (every default filled in, echoed in meta.request) is refused or resolves to something
// else is a finding.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <string>

#include "backends/cuda/cuda_traits.hpp"
#include "http/policy.hpp"
#if __has_include("bench/request/params.hpp")  // the request parsing in a folder of its own
#include "bench/request/params.hpp"
#include "bench/request/request_cost.hpp"
#else
#include "bench/params.hpp"
#include "bench/request_cost.hpp"
#endif

namespace agent = layoutscope::agent;

namespace {

const agent::BackendTraits& host_traits() {
  static const agent::BackendTraits t = [] {
    agent::BackendTraits b = agent::cuda_traits();
    b.name = "host";
    b.full_size_suite = false;
    b.mesh_on_devices = false;
    b.no_collectives = "no collectives on a host backend";
    b.reshard_cells_limit = agent::kReshardCpuCells;
    b.convert_host_bytes = agent::kCpuConvertHostBytes;
    return b;
  }();
  return t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const int devices = 1 + data[0] % 8;
  const bool host = (data[0] / 8) % 2 == 1;
  const agent::BackendTraits& traits = host ? host_traits() : agent::cuda_traits();
  const int64_t budget = host ? int64_t{512} << 20 : int64_t{141} << 30;
  static const agent::RequestPolicy policy(agent::PolicyConfig{});
  auto body = policy.parse_json_body(std::string(reinterpret_cast<const char*>(data) + 1, size - 1));
  if (!body) return 0;  // the body parser has a target of its own (agent_input_fuzz.cpp)
  nlohmann::json request = *body;
  if (request.is_object() && !request.contains("device")) request["device"] = 0;  // as post_run does
  auto bounded = agent::parse_run_request(request, traits, devices, [&](int) { return budget; });
  if (!bounded) {
    if (bounded.error().field.empty()) std::abort();  // every refusal names the field
    return 0;
  }
  // What the run echoes as its request is itself a request, and it means the same run (a parameter echoed as
  // null, such as an unset busbw_gbps, is left out: the parser takes null for no value nowhere).
  nlohmann::json echoed = bounded->resolved;
  for (auto it = echoed["params"].begin(); it != echoed["params"].end();)
    it = it->is_null() ? echoed["params"].erase(it) : std::next(it);
  auto again = agent::parse_run_request(echoed, traits, devices, [&](int) { return budget; });
  if (!again || again->resolved != bounded->resolved) {
    std::fprintf(stderr, "resolved: %s\nparsed again: %s\n", bounded->resolved.dump().c_str(),
                 again ? again->resolved.dump().c_str() : again.error().message.c_str());
    std::abort();
  }
  return 0;
}
