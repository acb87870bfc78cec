#include <sstream>
#include <string_view>

#include "bench/printers/results.hpp"

namespace layoutscope::agent {
namespace {

using nlohmann::json;

std::string cell(const json& v) {
  if (v.is_null()) return "";
  std::string s = v.is_string() ? v.get<std::string>() : v.dump();
  // A text cell that a spreadsheet would read as a formula (OWASP's CSV injection list) gets a leading
  // apostrophe; numbers are printed by dump() and stay numbers.
  if (v.is_string() && !s.empty() && std::string_view("=+-@\t\r").find(s.front()) != std::string_view::npos)
    s.insert(0, 1, '\'');
  if (s.find_first_of(",\"\n\r") != std::string::npos) {  // RFC 4180 quoting
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  }
  return s;
}

// The value of the first summary whose tag ends with `suffix` (cold or hot, gpu or cpu).
json find_summary(const json& state, const std::string& suffix) {
  for (const auto& s : state.at("summaries")) {
    const auto& tag = s.at("tag").get_ref<const std::string&>();
    if (tag.size() >= suffix.size() && tag.compare(tag.size() - suffix.size(), suffix.size(), suffix) == 0)
      return s.at("value");
  }
  return nullptr;
}

json predicted(const json& state, const char* kind, size_t i, const char* key) {
  const auto& p = state.at("predicted");
  if (!p.contains(kind) || p[kind].size() <= i) return nullptr;
  return p[kind][i].value(key, json(nullptr));
}

}  // namespace

std::string results_csv(const json& results) {
  static const char* const header =
      "run_id,finished_at,schema_version,benchmark,backend,device_name,cache,layout,touch_fields,n,variant,"
      "dim,samples,time_median_s,time_q1_s,"
      "time_q3_s,time_min_s,useful_bytes_B,useful_bandwidth_B_per_s,speedup_soa_over_aos,fraction_of_copy,"
      "predicted_load_sectors_per_request,predicted_store_sectors_per_request,predicted_shared_load_"
      "wavefronts,"
      "verified,mismatches,case\n";
  std::ostringstream out;
  out << header;
  const std::string device = results.at("devices").at(0).at("name").get<std::string>();
  const json& meta = results.at("meta");
  const std::string cache = meta.at("request").at("params").value("cache", "cold");
  const json run_id = meta.value("run_id", json(nullptr));
  const json finished_at = meta.value("finished_at", json(nullptr));
  const json schema_version = results.value("schema_version", json(nullptr));
  for (const auto& b : results.at("benchmarks")) {
    const std::string name = b.at("name").get<std::string>();
    for (const auto& s : b.at("states")) {
      const auto& ax = s.at("axis_values");
      const bool aos = name == "aos_soa";
      const json row[] = {
          run_id,
          finished_at,
          schema_version,
          name,
          b.at("backend"),
          device,
          cache,
          aos ? ax.at("layout") : json(nullptr),
          aos ? ax.at("touch_fields") : json(nullptr),
          aos ? ax.at("n") : json(nullptr),
          ax.value("variant", json(nullptr)),
          ax.value("dim", json(nullptr)),
          find_summary(s, "/sample_size"),
          find_summary(s, "/median"),
          find_summary(s, "/q1"),
          find_summary(s, "/q3"),
          find_summary(s, "/min"),
          find_summary(s, "layoutscope/useful_bytes"),
          find_summary(s, "/bw/global/bytes_per_second"),
          find_summary(s, "layoutscope/speedup_soa_over_aos"),
          find_summary(s, "layoutscope/fraction_of_copy"),
          predicted(s, "global", 0, "sectors_per_request"),
          aos ? predicted(s, "global", 0, "sectors_per_request")
              : predicted(s, "global", 1, "sectors_per_request"),
          predicted(s, "shared", 1, "wavefronts"),
          s.at("verification").at("passed"),
          s.at("verification").at("mismatches"),
          ax.value("case", json(nullptr)),
      };
      bool first = true;
      for (const auto& v : row) {
        if (!first) out << ',';
        out << cell(v);
        first = false;
      }
      out << '\n';
    }
  }
  return out.str();
}

}  // namespace layoutscope::agent
