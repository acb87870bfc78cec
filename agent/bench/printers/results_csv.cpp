#include "bench/printers/results_csv.hpp"

#include <sstream>
#include <string_view>

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

// The first problem below `where` for results_csv: a missing field, or one of another type.
struct Shape {
  std::optional<std::string> problem;
  bool fail(const std::string& where, const char* what) {
    if (!problem) problem = where + ": " + what;
    return false;
  }
  // obj[key] is present (and, when `type` is given, of that JSON type).
  bool has(const json& obj, const std::string& where, const char* key,
           json::value_t type = json::value_t::discarded, const char* what = nullptr) {
    if (!obj.is_object() || !obj.contains(key)) return fail(where + "." + key, "missing");
    if (type != json::value_t::discarded && obj[key].type() != type) return fail(where + "." + key, what);
    return true;
  }
};

}  // namespace

std::optional<std::string> results_csv_problem(const json& results) {
  Shape c;
  if (!results.is_object()) return std::string("the results document: not a JSON object");
  if (c.has(results, "results", "devices", json::value_t::array, "not an array")) {
    const json& d = results["devices"];
    if (d.empty())
      c.fail("results.devices", "empty");
    else
      c.has(d[0], "results.devices[0]", "name", json::value_t::string, "not a string");
  }
  if (c.has(results, "results", "meta", json::value_t::object, "not an object") &&
      c.has(results["meta"], "results.meta", "request", json::value_t::object, "not an object") &&
      c.has(results["meta"]["request"], "results.meta.request", "params", json::value_t::object,
            "not an object")) {
    const json& p = results["meta"]["request"]["params"];
    if (p.contains("cache"))
      c.has(p, "results.meta.request.params", "cache", json::value_t::string, "not a string");
  }
  if (c.has(results, "results", "benchmarks", json::value_t::array, "not an array")) {
    const json& benchmarks = results["benchmarks"];
    for (size_t i = 0; i < benchmarks.size(); ++i) {
      const std::string bw = "results.benchmarks[" + std::to_string(i) + "]";
      const json& b = benchmarks[i];
      if (!b.is_object()) {
        c.fail(bw, "not an object");
        continue;
      }
      c.has(b, bw, "name", json::value_t::string, "not a string");
      c.has(b, bw, "backend");
      if (!c.has(b, bw, "states", json::value_t::array, "not an array")) continue;
      const bool aos = b.contains("name") && b["name"] == "aos_soa";
      for (size_t k = 0; k < b["states"].size(); ++k) {
        const std::string sw = bw + ".states[" + std::to_string(k) + "]";
        const json& s = b["states"][k];
        if (!s.is_object()) {
          c.fail(sw, "not an object");
          continue;
        }
        if (c.has(s, sw, "axis_values", json::value_t::object, "not an object") && aos)
          for (const char* key : {"layout", "touch_fields", "n"})
            c.has(s["axis_values"], sw + ".axis_values", key);
        if (c.has(s, sw, "summaries", json::value_t::array, "not an array"))
          for (size_t j = 0; j < s["summaries"].size(); ++j) {
            const std::string mw = sw + ".summaries[" + std::to_string(j) + "]";
            if (c.has(s["summaries"][j], mw, "tag", json::value_t::string, "not a string"))
              c.has(s["summaries"][j], mw, "value");
          }
        if (c.has(s, sw, "predicted", json::value_t::object, "not an object"))
          for (const char* kind : {"global", "shared"}) {
            const json& p = s["predicted"];
            if (!p.contains(kind)) continue;
            if (!p[kind].is_array()) {
              c.fail(sw + ".predicted." + kind, "not an array");
              continue;
            }
            for (size_t j = 0; j < p[kind].size(); ++j)
              if (!p[kind][j].is_object())
                c.fail(sw + ".predicted." + kind + "[" + std::to_string(j) + "]", "not an object");
          }
        if (c.has(s, sw, "verification", json::value_t::object, "not an object")) {
          c.has(s["verification"], sw + ".verification", "passed");
          c.has(s["verification"], sw + ".verification", "mismatches");
        }
      }
    }
  }
  return c.problem;
}

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
