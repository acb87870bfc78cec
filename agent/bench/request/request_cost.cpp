#include "bench/request/request_cost.hpp"

#include <map>
#include <mutex>

#include "layoutscope/plan/convert.hpp"

namespace layoutscope::agent {
namespace {

using nlohmann::json;

Error cost_error(const std::string& field, const std::string& message) {
  return make_error(field + ": " + message, 0, field);
}

// The catalogue of a backend, made once: making it reads the whole request schema (a few ms, 40 % of the time
// of parsing a request).
const json& catalogue_of(const BackendTraits& backend) {
  static std::mutex mutex;
  static std::map<const BackendTraits*, json> made;  // backends' traits are values that live as long as they
  std::lock_guard lock(mutex);
  auto it = made.find(&backend);
  if (it == made.end()) it = made.emplace(&backend, benchmark_catalogue(backend)).first;
  return it->second;
}

// A string parameter must be one of its catalogue entry's enum, when the entry has one.
std::optional<Error> check_enums(const json& params, const std::string& benchmark,
                                 const BackendTraits& backend) {
  if (!params.is_object()) return std::nullopt;
  const json& catalogue = catalogue_of(backend);
  for (const auto& b : catalogue["benchmarks"]) {
    if (b["name"] != benchmark) continue;
    const json& described = b["parameters"];
    for (auto it = params.begin(); it != params.end(); ++it) {
      if (!it->is_string() || !described.contains(it.key())) continue;
      const json& entry = described[it.key()];
      if (!entry.is_object() || !entry.contains("enum") || !entry["enum"].is_array()) continue;
      const json& allowed = entry["enum"];
      if (std::find(allowed.begin(), allowed.end(), *it) != allowed.end()) continue;
      std::string names;
      for (const auto& a : allowed) names += (names.empty() ? "" : ", ") + a.dump();
      return cost_error("params." + it.key(), "expected one of " + names + ", got " + it->dump());
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<Error> check_request_cost(const json& body, const RunRequest& request,
                                        const BackendTraits& backend) {
  const json empty = json::object();
  const json& params = body.contains("params") ? body["params"] : empty;
  if (auto e = check_enums(params, request.benchmark, backend)) return e;
  if (request.kind == BenchmarkKind::kConvert) {
    for (const ConvertCase& c : request.convert.cases) {
      const int64_t span = source_extent(c.plan);
      const int64_t read = std::max<int64_t>(c.plan.elements, 1);
      if (span > kSpanFloor && span / read > kMaxSpanFactor)
        return cost_error(request.convert.suite.empty() ? "params.src" : "params.suite",
                          c.name + " spans " + std::to_string(span) + " source elements to read " +
                              std::to_string(c.plan.elements) + " (more than " +
                              std::to_string(kMaxSpanFactor) + " times as many past " +
                              std::to_string(kSpanFloor) +
                              "): the unread span would be allocated and filled");
      const int64_t held = (span + destination_extent(c.plan) + 2 * c.plan.elements) * c.plan.elem_bytes;
      if (backend.convert_host_bytes > 0 && held > backend.convert_host_bytes)
        return cost_error(
            request.convert.suite.empty() ? "params.shape" : "params.suite",
            c.name + " holds " + std::to_string(held) +
                " bytes on the host (source, destination and the two copy-ceiling buffers), the " +
                backend.name + " backend allows " + std::to_string(backend.convert_host_bytes));
    }
  }
  return std::nullopt;
}

}  // namespace layoutscope::agent
