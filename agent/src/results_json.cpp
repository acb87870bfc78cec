#include <map>

#include "build_info.hpp"
#include "predict.hpp"
#include "results.hpp"

namespace layoutscope::agent {
namespace {

using nlohmann::json;

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }
template <class T>
json opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

}  // namespace

json telemetry_json(const Telemetry& t) {
  return {{"source", t.source},
          {"sm_clock_hz", opt(t.sm_clock_hz)},
          {"memory_clock_hz", opt(t.memory_clock_hz)},
          {"power_w", opt(t.power_w)},
          {"temperature_c", opt(t.temperature_c)}};
}

namespace {

json summary(const std::string& tag, const std::string& name, const std::string& unit, json value) {
  return {{"tag", tag}, {"name", name}, {"unit", unit}, {"value", value}};
}

std::string prefix(const Sampling& s) {
  return std::string("nv/") + (s.cache == CacheMode::kCold ? "cold" : "hot") + "/";
}

// Time, sample count, spread and useful bandwidth of one state.
json time_summaries(const TimingSummary& t, const Sampling& s, const std::string& backend, double useful_bytes) {
  const std::string p = prefix(s);
  const std::string clock = backend == "cuda" ? "gpu" : "cpu";
  const std::string label = backend == "cuda" ? "GPU Time" : "CPU Time";
  json out = json::array();
  out.push_back(summary(p + "time/" + clock + "/median", label + " (median)", "s", t.median_s));
  out.push_back(summary(p + "time/" + clock + "/q1", label + " (first quartile)", "s", t.q1_s));
  out.push_back(summary(p + "time/" + clock + "/q3", label + " (third quartile)", "s", t.q3_s));
  out.push_back(summary(p + "time/" + clock + "/min", label + " (min)", "s", t.min_s));
  out.push_back(summary(p + "time/" + clock + "/max", label + " (max)", "s", t.max_s));
  out.push_back(summary(p + "time/" + clock + "/mean", label + " (mean)", "s", t.mean_s));
  out.push_back(summary(p + "sample_size", "Samples", "count", t.samples));
  if (t.median_s > 0) {
    out.push_back(summary("layoutscope/time/relative_iqr", "Relative interquartile range", "ratio",
                          (t.q3_s - t.q1_s) / t.median_s));
    out.push_back(summary(p + "bw/global/bytes_per_second", "Useful payload bandwidth (median time)", "B/s",
                          useful_bytes / t.median_s));
  }
  out.push_back(summary("layoutscope/useful_bytes", "Useful payload bytes (read + written)", "B",
                        static_cast<int64_t>(useful_bytes)));
  return out;
}

json verification_json(const Verification& v) {
  return {{"passed", v.passed},
          {"checked_elements", v.checked},
          {"mismatches", v.mismatches},
          {"first_mismatch", v.first_mismatch.empty() ? json(nullptr) : json(v.first_mismatch)},
          {"method", v.method}};
}

}  // namespace

json device_facts_json(const DeviceInfo& d) {
  return {{"id", d.id},
          {"kind", d.kind},
          {"name", d.name},
          {"sm_version", opt(d.sm_version)},
          {"multiprocessors", d.multiprocessors},
          {"global_memory_bytes", d.global_memory_bytes},
          {"l2_cache_bytes", opt(d.l2_cache_bytes)},
          {"last_level_cache_bytes", opt(d.last_level_cache_bytes)},
          {"memory_bus_width_bits", opt(d.memory_bus_width_bits)},
          {"memory_clock_hz", opt(d.memory_clock_hz)},
          {"peak_bandwidth_bytes_per_second", opt(d.peak_bandwidth_bytes_per_second)},
          {"pci_bus_id", opt(d.pci_bus_id)}};
}

namespace {

json device_json(const DeviceInfo& d, const Telemetry& before, const Telemetry& after) {
  json out = device_facts_json(d);
  out["telemetry"] = {{"before", telemetry_json(before)}, {"after", telemetry_json(after)}};
  return out;
}

json meta_json(const RunContext& ctx) {
  const BuildInfo& b = build_info();
  return {{"agent",
           {{"name", "layoutscope-agent"},
            {"version", b.version},
            {"git_sha", b.git_sha},
            {"build_type", b.build_type},
            {"compiler", b.compiler},
            {"cxx_flags", b.cxx_flags},
            {"cuda", b.cuda},
            {"cuda_architectures", b.cuda_architectures},
            {"cuda_compiler_version", b.cuda_compiler_version}}},
          {"run_id", ctx.run_id},
          {"backend", ctx.backend},
          {"request", ctx.request},
          {"created_at", ctx.created_at},
          {"started_at", ctx.started_at},
          {"finished_at", ctx.finished_at},
          {"wall_time_s", ctx.wall_time_s}};
}

json axis(const std::string& name, const std::string& type, json values) {
  return {{"name", name}, {"type", type}, {"values", std::move(values)}};
}

json base(const RunContext& ctx, const Telemetry& before, const Telemetry& after) {
  return {{"schema_version", kResultsSchemaVersion},
          {"meta", meta_json(ctx)},
          {"devices", json::array({device_json(ctx.device, before, after)})}};
}

json predicted_or_error(const Result<json>& r) {
  if (r) return *r;
  return {{"source", "layoutscope engine"}, {"error", r.error().message}};
}

}  // namespace

json results_json(const RunContext& ctx, const AosSoaMeasurement& m, const AosSoaParams& p) {
  json out = base(ctx, m.before, m.after);
  std::map<int, double> aos_median;  // touch_fields -> AoS median time
  for (const auto& s : m.states)
    if (s.layout == "aos") aos_median[s.touch_fields] = s.time.median_s;
  json states = json::array();
  for (const auto& s : m.states) {
    const double useful = static_cast<double>(s.n) * s.touch_fields * 4 * 2;  // read + write each touched float
    json st = {{"name", "layout=" + s.layout + " touch_fields=" + std::to_string(s.touch_fields) +
                            " n=" + std::to_string(s.n)},
               {"axis_values", {{"layout", s.layout}, {"touch_fields", s.touch_fields}, {"n", s.n}}},
               {"is_skipped", false},
               {"summaries", time_summaries(s.time, p.sampling, ctx.backend, useful)},
               {"time_samples_s", s.time.samples_s},
               {"verification", verification_json(s.verification)},
               {"predicted", predicted_or_error(predict_aos_soa(s.layout, s.n))}};
    if (s.layout == "soa" && aos_median.count(s.touch_fields) && s.time.median_s > 0)
      st["summaries"].push_back(summary("layoutscope/speedup_soa_over_aos", "SoA speedup over AoS (median times)",
                                        "ratio", aos_median[s.touch_fields] / s.time.median_s));
    states.push_back(std::move(st));
  }
  out["benchmarks"] = json::array({{{"name", "aos_soa"},
                                    {"backend", ctx.backend},
                                    {"devices", {ctx.device.id}},
                                    {"axes", {axis("layout", "string", {"aos", "soa"}),
                                              axis("touch_fields", "int64", p.touch_fields),
                                              axis("n", "int64", {p.n})}},
                                    {"states", states}}});
  return out;
}

json results_json(const RunContext& ctx, const TransposeMeasurement& m, const TransposeParams& p) {
  json out = base(ctx, m.before, m.after);
  std::map<int64_t, double> copy_median;  // dim -> copy median time
  for (const auto& s : m.states)
    if (s.variant == TransposeVariant::kCopy) copy_median[s.dim] = s.time.median_s;
  json states = json::array();
  json variants = json::array();
  for (auto v : p.variants) variants.push_back(to_string(v));
  for (const auto& s : m.states) {
    const double useful = 2.0 * static_cast<double>(s.dim) * static_cast<double>(s.dim) * 4;
    json st = {{"name", std::string("variant=") + to_string(s.variant) + " dim=" + std::to_string(s.dim)},
               {"axis_values", {{"variant", to_string(s.variant)}, {"dim", s.dim}}},
               {"is_skipped", false},
               {"summaries", time_summaries(s.time, p.sampling, ctx.backend, useful)},
               {"time_samples_s", s.time.samples_s},
               {"verification", verification_json(s.verification)},
               {"predicted", predicted_or_error(predict_transpose(s.variant, s.dim))}};
    if (copy_median.count(s.dim) && s.time.median_s > 0)
      st["summaries"].push_back(summary("layoutscope/fraction_of_copy", "Fraction of copy (copy time / time)",
                                        "ratio", copy_median[s.dim] / s.time.median_s));
    states.push_back(std::move(st));
  }
  out["benchmarks"] = json::array({{{"name", "transpose"},
                                    {"backend", ctx.backend},
                                    {"devices", {ctx.device.id}},
                                    {"axes", {axis("variant", "string", variants), axis("dim", "int64", p.dims)}},
                                    {"states", states}}});
  return out;
}

bool all_verified(const json& results, std::string* why) {
  for (const auto& b : results.at("benchmarks"))
    for (const auto& s : b.at("states"))
      if (!s.at("verification").at("passed").get<bool>()) {
        if (why) {
          *why = "verification failed in state " + s.at("name").get<std::string>();
          const auto& first = s.at("verification").at("first_mismatch");
          if (first.is_string()) *why += ": " + first.get<std::string>();
        }
        return false;
      }
  return true;
}

}  // namespace layoutscope::agent
