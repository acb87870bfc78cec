#include <algorithm>
#include <cstdio>
#include <map>
#include <tuple>

#include "about/build_info.hpp"
#include "bench/kinds/convert_run.hpp"
#include "bench/predict.hpp"
#include "bench/printers/results.hpp"
#include "layoutscope/parse.hpp"
#include "plan_json.hpp"

namespace layoutscope::agent {
namespace {

using nlohmann::json;

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
          {"temperature_c", opt(t.temperature_c)},
          {"ecc_corrected_volatile", opt(t.ecc_corrected_volatile)},
          {"ecc_uncorrected_volatile", opt(t.ecc_uncorrected_volatile)},
          {"clock_event_reasons", opt(t.clock_event_reasons)}};
}

namespace {

json summary(const std::string& tag, const std::string& name, const std::string& unit, json value) {
  return {{"tag", tag}, {"name", name}, {"unit", unit}, {"value", value}};
}

std::string prefix(const Sampling& s) {
  return std::string("nv/") + (s.cache == CacheMode::kCold ? "cold" : "hot") + "/";
}

// Time, sample count, spread and useful bandwidth of one state.
json time_summaries(const TimingSummary& t, const Sampling& s, const BackendTraits& backend,
                    double useful_bytes) {
  const std::string p = prefix(s);
  const std::string& clock = backend.clock;
  const std::string& label = backend.clock_label;
  json out = json::array();
  out.push_back(summary(p + "time/" + clock + "/median", label + " (median)", "s", t.median_s));
  out.push_back(summary(p + "time/" + clock + "/q1", label + " (first quartile)", "s", t.q1_s));
  out.push_back(summary(p + "time/" + clock + "/q3", label + " (third quartile)", "s", t.q3_s));
  out.push_back(summary(p + "time/" + clock + "/min", label + " (min)", "s", t.min_s));
  out.push_back(summary(p + "time/" + clock + "/max", label + " (max)", "s", t.max_s));
  out.push_back(summary(p + "time/" + clock + "/mean", label + " (mean)", "s", t.mean_s));
  out.push_back(summary(p + "sample_size", "Samples", "count", t.samples));
  out.push_back(summary("layoutscope/throttled_samples_dropped",
                        "Samples dropped: GPU reported a throttle reason", "count", t.throttled_dropped));
  if (!t.sm_clock_hz.empty()) {
    const auto [lo, hi] = std::minmax_element(t.sm_clock_hz.begin(), t.sm_clock_hz.end());
    out.push_back(summary("layoutscope/sm_clock/min", "SM clock after a kept sample (min)", "Hz", *lo));
    out.push_back(summary("layoutscope/sm_clock/max", "SM clock after a kept sample (max)", "Hz", *hi));
  }
  if (t.median_s > 0) {
    out.push_back(summary("layoutscope/time/relative_iqr", "Relative interquartile range", "ratio",
                          (t.q3_s - t.q1_s) / t.median_s));
    if (t.mean_s > 0)
      out.push_back(summary(p + "time/" + clock + "/stdev/relative", label + " (relative standard deviation)",
                            "ratio", t.stdev_s / t.mean_s));
    out.push_back(summary(p + "bw/global/bytes_per_second", "Useful payload bandwidth (median time)", "B/s",
                          useful_bytes / t.median_s));
  }
  out.push_back(summary("layoutscope/useful_bytes", "Useful payload bytes (read + written)", "B",
                        static_cast<int64_t>(useful_bytes)));
  return out;
}

json sampling_json(const TimingSummary& t, bool raw) {
  json out = {{"stop_reason", t.stop_reason},
              {"kept_samples", t.samples},
              {"throttled_samples_dropped", t.throttled_dropped},
              {"clock_source", t.clock_source}};
  if (raw) out["sm_clock_samples_hz"] = t.sm_clock_hz;
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
          {"backend", ctx.backend.name},
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

// The ceilings of one size, as bandwidth (bytes read + written per second, median time).
struct CeilingBandwidth {
  double copy_vec4 = 0, best = 0;
  std::string best_name;
};

std::map<int64_t, CeilingBandwidth> ceiling_bandwidths(const std::vector<CeilingState>& ceilings) {
  std::map<int64_t, CeilingBandwidth> out;
  for (const auto& c : ceilings) {
    if (c.time.median_s <= 0) continue;
    const double bw = 2.0 * static_cast<double>(c.bytes) / c.time.median_s;
    auto& e = out[c.size];
    if (c.ceiling == Ceiling::kCopyVec4) e.copy_vec4 = bw;
    if (bw > e.best) e.best = bw, e.best_name = to_string(c.ceiling);
  }
  return out;
}

const char* ceiling_description(Ceiling c) {
  switch (c) {
    case Ceiling::kMemcpy:
      return "cudaMemcpyAsync device-to-device (CPU: memcpy)";
    case Ceiling::kCopyVec4:
      return "float4 copy, one 16 B load (L2 evict-last) and store per thread (CPU: 16 B memcpy per step)";
    case Ceiling::kCopyScalar:
      return "one float per thread (CPU: a float loop)";
    case Ceiling::kCopyTma:
      return "TMA bulk copy (cp.async.bulk): 16 KiB chunks global -> shared -> global, 4 in flight per "
             "one-thread block (CUDA backend only)";
  }
  return "";
}

json ceilings_json(const std::vector<CeilingState>& ceilings, const Sampling& s, const BackendTraits& backend,
                   const char* size_axis) {
  json out = json::array();
  for (const auto& c : ceilings) {
    json j = {{"name", to_string(c.ceiling)},
              {"description", ceiling_description(c.ceiling)},
              {"axis_values", {{size_axis, c.size}}},
              {"bytes_copied", c.bytes},
              {"summaries", time_summaries(c.time, s, backend, 2.0 * static_cast<double>(c.bytes))},
              {"sampling", sampling_json(c.time, s.raw_samples)},
              {"verification", verification_json(c.verification)}};
    if (s.raw_samples) j["time_samples_s"] = c.time.samples_s;
    out.push_back(std::move(j));
  }
  return out;
}

// fraction_of_copy (the float4 copy: the "copy" state where there is one, else the copy_vec4 ceiling) and
// fraction_of_ceiling (the fastest ceiling of the same size), both as useful bandwidth over the reference's.
void add_fractions(json& st, double useful_bw, std::optional<double> copy_state_bw,
                   const CeilingBandwidth* c) {
  const double copy_bw = copy_state_bw ? *copy_state_bw : c ? c->copy_vec4 : 0;
  if (copy_bw > 0)
    st["summaries"].push_back(summary("layoutscope/fraction_of_copy",
                                      "Fraction of the float4 copy (bandwidth ratio)", "ratio",
                                      useful_bw / copy_bw));
  if (c && c->best > 0)
    st["summaries"].push_back(summary("layoutscope/fraction_of_ceiling",
                                      "Fraction of the fastest measured ceiling (" + c->best_name + ")",
                                      "ratio", useful_bw / c->best));
}

json optional_number(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json state_profile_json(const StateProfile& p) {
  if (!p.available) return {{"available", false}, {"reason", p.reason}};
  return {
      {"available", true},
      {"kernel", p.kernel},
      {"global_load_sectors_per_request", optional_number(p.global_load_sectors_per_request)},
      {"global_store_sectors_per_request", optional_number(p.global_store_sectors_per_request)},
      {"shared_load_wavefronts_per_instruction", optional_number(p.shared_load_wavefronts_per_instruction)},
      {"shared_store_wavefronts_per_instruction", optional_number(p.shared_store_wavefronts_per_instruction)},
      {"shared_load_bank_conflicts", optional_number(p.shared_load_bank_conflicts)},
      {"shared_store_bank_conflicts", optional_number(p.shared_store_bank_conflicts)},
      {"metrics", p.metrics}};
}

// The profile of state i (when the run asked for one) and the benchmark-level block of the ncu run.
void add_profile(json& benchmark, const std::optional<Profile>& profile) {
  if (!profile) return;
  auto& states = benchmark["states"];
  for (size_t i = 0; i < states.size() && i < profile->states.size(); ++i)
    states[i]["profile"] = state_profile_json(profile->states[i]);
  if (const auto& r = profile->run)
    benchmark["profile"] = {{"tool", r->tool},
                            {"path", r->path},
                            {"command", r->command},
                            {"exit_status", r->exit_status},
                            {"kernels_profiled", r->kernels_profiled}};
}

json state_extras(json st, const TimingSummary& t, const Sampling& s) {
  st["sampling"] = sampling_json(t, s.raw_samples);
  if (!s.raw_samples) st.erase("time_samples_s");
  return st;
}

json results_json(const RunContext& ctx, const AosSoaMeasurement& m, const AosSoaParams& p) {
  json out = base(ctx, m.before, m.after);
  std::map<std::tuple<std::string, int, int64_t>, double>
      aos_median;  // (layout, touch, n) -> AoS median time
  for (const auto& s : m.states)
    if (s.layout == "aos" || s.layout == "aos_vec")
      aos_median[{s.layout, s.touch_fields, s.n}] = s.time.median_s;
  const auto ceilings = ceiling_bandwidths(m.ceilings);
  json states = json::array();
  for (const auto& s : m.states) {
    const double useful =
        static_cast<double>(s.n) * s.touch_fields * 4 * 2;  // read + write each touched float
    json st = {{"name", "layout=" + s.layout + " touch_fields=" + std::to_string(s.touch_fields) +
                            " n=" + std::to_string(s.n)},
               {"axis_values", {{"layout", s.layout}, {"touch_fields", s.touch_fields}, {"n", s.n}}},
               {"is_skipped", false},
               {"summaries", time_summaries(s.time, p.sampling, ctx.backend, useful)},
               {"time_samples_s", s.time.samples_s},
               {"verification", verification_json(s.verification)},
               {"predicted", predicted_or_error(predict_aos_soa(s.layout, s.n))}};
    const std::string partner = s.layout == "soa" ? "aos" : s.layout == "soa_vec" ? "aos_vec" : "";
    if (!partner.empty() && aos_median.count({partner, s.touch_fields, s.n}) && s.time.median_s > 0) {
      const double speedup = aos_median[{partner, s.touch_fields, s.n}] / s.time.median_s;
      st["summaries"].push_back(summary("layoutscope/speedup_soa_over_aos",
                                        "SoA speedup over " + partner + " (median times)", "ratio", speedup));
      // DRAM moves whole 32 B sectors: AoS reads + writes 64 B per element whatever t, SoA 8 t B; the
      // engine's sectors per request give the ratio (predict.hpp).
      if (auto bound = aos_soa_sector_bound(s.touch_fields, s.n)) {
        st["summaries"].push_back(
            summary("layoutscope/dram_sector_bound_speedup",
                    "DRAM sector bound on the SoA/AoS speedup (AoS sectors / (touch_fields x SoA "
                    "sectors), 8 / touch_fields)",
                    "ratio", *bound));
        st["summaries"].push_back(summary("layoutscope/fraction_of_sector_bound", "Speedup / sector bound",
                                          "ratio", speedup / *bound));
      }
    }
    const auto c = ceilings.find(s.n);
    if (s.time.median_s > 0)
      add_fractions(st, useful / s.time.median_s, std::nullopt, c == ceilings.end() ? nullptr : &c->second);
    states.push_back(state_extras(std::move(st), s.time, p.sampling));
  }
  json layouts = json::array();
  for (auto l : p.layouts) layouts.push_back(to_string(l));
  out["benchmarks"] =
      json::array({{{"name", "aos_soa"},
                    {"backend", ctx.backend.name},
                    {"devices", {ctx.device.id}},
                    {"axes",
                     {axis("layout", "string", layouts), axis("touch_fields", "int64", p.touch_fields),
                      axis("n", "int64", p.ns)}},
                    {"states", states},
                    {"ceilings", ceilings_json(m.ceilings, p.sampling, ctx.backend, "n")}}});
  add_profile(out["benchmarks"][0], m.profile);
  return out;
}

json results_json(const RunContext& ctx, const TransposeMeasurement& m, const TransposeParams& p) {
  json out = base(ctx, m.before, m.after);
  std::map<int64_t, double> copy_bw;  // dim -> useful bandwidth of the "copy" state
  for (const auto& s : m.states)
    if (s.variant == TransposeVariant::kCopy && s.time.median_s > 0)
      copy_bw[s.dim] = 2.0 * static_cast<double>(s.dim) * static_cast<double>(s.dim) * 4 / s.time.median_s;
  const auto ceilings = ceiling_bandwidths(m.ceilings);
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
    const auto c = ceilings.find(s.dim);
    if (s.time.median_s > 0)
      add_fractions(st, useful / s.time.median_s,
                    copy_bw.count(s.dim) ? std::optional<double>(copy_bw[s.dim]) : std::nullopt,
                    c == ceilings.end() ? nullptr : &c->second);
    states.push_back(state_extras(std::move(st), s.time, p.sampling));
  }
  out["benchmarks"] =
      json::array({{{"name", "transpose"},
                    {"backend", ctx.backend.name},
                    {"devices", {ctx.device.id}},
                    {"axes", {axis("variant", "string", variants), axis("dim", "int64", p.dims)}},
                    {"states", states},
                    {"ceilings", ceilings_json(m.ceilings, p.sampling, ctx.backend, "dim")}}});
  add_profile(out["benchmarks"][0], m.profile);
  return out;
}

namespace {

json sector_prediction(const std::string& access, const std::string& layout, const WarpCost& c) {
  const int64_t requested = int64_t{32} * c.bytes_per_lane;
  const int64_t sectors = std::max<int64_t>(1, c.sectors);
  return {{"access", access},
          {"layout", layout},
          {"lanes", 32},
          {"bytes_per_lane", c.bytes_per_lane},
          {"sectors_per_request", sectors},
          {"bytes_requested", requested},
          {"sector_efficiency",
           std::min(1.0, static_cast<double>(requested) / (32.0 * static_cast<double>(sectors)))}};
}

json bank_prediction(const std::string& access, const std::string& layout, const WarpCost& c) {
  const int ideal = std::max(1, c.ideal_wavefronts);
  return {{"access", access},
          {"layout", layout},
          {"lanes", 32},
          {"bytes_per_lane", c.bytes_per_lane},
          {"wavefronts", std::max(1, c.wavefronts)},
          {"ideal_wavefronts", ideal},
          {"max_ways", std::clamp((c.wavefronts + ideal - 1) / ideal, 1, 32)}};
}

// The plan's predictions in the form every state's "predicted" block has, beside ncu's counters.
json convert_predicted(const ConvertCase& c) {
  const ConvertPlan& p = c.plan;
  json out = {{"source",
               "layoutscope engine: plan_convert (plan/convert.hpp), one warp instruction of the "
               "plan's first block"},
              {"global",
               {sector_prediction("global load (source)", to_string(c.src), p.global_read),
                sector_prediction("global store (destination)", to_string(c.dst), p.global_write)}}};
  // No shared accesses (a vector plan, an interleave whose lanes store their own records): no entries.
  if (p.kind == ConvertKind::kInterleave && !p.direct_stores) {
    out["shared"] = {bank_prediction("shared store (warp exchange)", "exchange", p.smem_write),
                     bank_prediction("shared load (warp exchange)", "exchange", p.smem_read)};
  } else if (p.kind == ConvertKind::kTiled) {
    const std::string tile = p.staging.bits > 0 ? to_string(p.staging) + " staging tile" : "staging tile";
    out["shared"] = {bank_prediction("shared store (staging tile)", tile, p.smem_write),
                     bank_prediction("shared load (staging tile)", tile, p.smem_read)};
  }
  return out;
}

std::string hex64(uint64_t v) {
  char buf[19];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

json optional_seconds(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

}  // namespace

json results_json(const RunContext& ctx, const ConvertMeasurement& m, const ConvertParams& p) {
  json out = base(ctx, m.before, m.after);
  const auto ceilings = ceiling_bandwidths(m.ceilings);
  json states = json::array();
  json names = json::array();
  for (const auto& s : m.states) {
    const ConvertCase& c = *s.source;
    names.push_back(s.name);
    const double useful = static_cast<double>(s.bytes);
    json summaries = time_summaries(s.time, p.sampling, ctx.backend, useful);
    summaries.push_back(summary("layoutscope/time/plan", "Host planning: engine plan + kernel source text",
                                "s", s.times.plan_s));
    summaries.push_back(summary("layoutscope/time/cached_plan",
                                "Host: a repeated request's plan (cache lookup)", "s",
                                s.times.cached_plan_s));
    if (s.times.compile_s)
      summaries.push_back(summary("layoutscope/time/compile", "NVRTC compile of the generated kernel", "s",
                                  *s.times.compile_s));
    summaries.push_back(summary("layoutscope/time/single_use",
                                "Single use: plan + compile + load + one run (cold cache)", "s",
                                s.times.single_use_s));
    if (s.times.library_single_use_s)
      summaries.push_back(summary("layoutscope/time/library_single_use",
                                  "Single use by the library kernel: plan + library kernel + one run", "s",
                                  *s.times.library_single_use_s));
    summaries.push_back(summary("layoutscope/time/repeated_use",
                                "Repeated use: one run (median of the samples)", "s", s.time.median_s));
    json input = {{"shape", c.shape},
                  {"dtype", std::string(to_string(c.dtype))},
                  {"src", to_string(c.src)},
                  {"dst", to_string(c.dst)}};
    input["perm"] = c.perm.empty() ? json(nullptr) : json(c.perm);
    json st = {{"name", "case=" + s.name},
               {"axis_values", {{"case", s.name}}},
               {"is_skipped", false},
               {"summaries", summaries},
               {"time_samples_s", s.time.samples_s},
               {"verification", verification_json(s.verification)},
               {"predicted", convert_predicted(c)},
               {"input", input},
               {"plan", codegen::convert_plan_json<json>(c.plan)},
               {"kernel",
                {{"name", s.kernel_name},
                 {"source_hash", hex64(s.source_hash)},
                 {"source_length", s.source_length},
                 {"nvrtc_options", s.nvrtc_options},
                 {"threads", c.plan.threads},
                 {"blocks", c.plan.blocks},
                 {"shared_bytes", c.plan.kind != ConvertKind::kVector ? c.plan.staging_bytes : 0}}},
               {"times",
                {{"plan_s", s.times.plan_s},
                 {"cached_plan_s", s.times.cached_plan_s},
                 {"compile_s", optional_seconds(s.times.compile_s)},
                 {"load_s", optional_seconds(s.times.load_s)},
                 {"compile_cache_hit", s.times.compile_cache_hit},
                 {"compile_cache", s.times.compile_s ? json(s.times.compile_cache) : json(nullptr)},
                 {"first_run_s", s.times.first_run_s},
                 {"single_use_s", s.times.single_use_s},
                 {"repeated_use_s", s.time.median_s}}}};
    if (s.times.library_single_use_s) {
      st["times"]["library_single_use_s"] = *s.times.library_single_use_s;
      st["times"]["library_cache"] = s.times.library_cache;
      st["times"]["library_verified"] = s.times.library_verified.value_or(false);
    }
    const auto cb = ceilings.find(s.bytes);
    if (s.time.median_s > 0)
      add_fractions(st, useful / s.time.median_s, std::nullopt, cb == ceilings.end() ? nullptr : &cb->second);
    states.push_back(state_extras(std::move(st), s.time, p.sampling));
  }
  out["benchmarks"] =
      json::array({{{"name", "convert"},
                    {"backend", ctx.backend.name},
                    {"devices", {ctx.device.id}},
                    {"axes", {axis("case", "string", names)}},
                    {"states", states},
                    {"ceilings", ceilings_json(m.ceilings, p.sampling, ctx.backend, "bytes")}}});
  if (!p.suite.empty()) out["benchmarks"][0]["suite"] = p.suite;
  add_profile(out["benchmarks"][0], m.profile);
  return out;
}

// smem_access / global_access: one state per access (the pair's "write" and "read"), each with its accesses
// and predicted cost in the "predicted" form the other benchmarks have, the counters ncu measured beside them
// ("measured"), and how it ran ("executor": the NVRTC kernel, or the host executor without counters).
json results_json(const RunContext& ctx, const AccessMeasurement& m, const AccessParams& p) {
  json out = base(ctx, m.before, m.after);
  json states = json::array();
  json names = json::array();
  for (size_t i = 0; i < m.states.size(); ++i) {
    const AccessState& s = m.states[i];
    const AccessCase& c = *s.source;
    names.push_back(s.name);
    const StateProfile* prof = m.profile && i < m.profile->states.size() ? &m.profile->states[i] : nullptr;
    json st = {{"name", "access=" + s.name},
               {"axis_values", {{"access", s.name}}},
               {"is_skipped", false},
               {"summaries",
                time_summaries(s.time, p.sampling, ctx.backend, static_cast<double>(c.predicted.bytes))},
               {"time_samples_s", s.time.samples_s},
               {"verification", verification_json(s.verification)},
               {"predicted", access_predicted(c)},
               {"measured", access_measured(c, prof)},
               {"executor", s.executor},
               {"kernel",
                {{"name", codegen::kAccessKernelName},
                 {"source_hash", hex64(s.source_hash)},
                 {"instructions", c.plan.instructions},
                 {"threads", 32},
                 {"blocks", 1},
                 {"buffer_bytes", c.plan.tile_bytes},
                 {"compile_s", optional_seconds(s.compile_s)}}}};
    if (!ctx.backend.no_access_counters.empty())
      st["measured"] = {{"available", false}, {"reason", ctx.backend.no_access_counters}};
    states.push_back(state_extras(std::move(st), s.time, p.sampling));
  }
  out["benchmarks"] = json::array({{{"name", p.benchmark},
                                    {"backend", ctx.backend.name},
                                    {"devices", {ctx.device.id}},
                                    {"axes", {axis("access", "string", names)}},
                                    {"input",
                                     [&] {
                                       json in = p.input;
                                       if (p.advice.is_object()) in.update(p.advice);
                                       return in;
                                     }()},
                                    {"states", states},
                                    {"ceilings", json::array()}}});
  add_profile(out["benchmarks"][0], m.profile);
  return out;
}

bool all_verified(const json& results, std::string* why) {
  for (const auto& b : results.at("benchmarks")) {
    for (const auto& c : b.value("ceilings", json::array()))
      if (!c.at("verification").at("passed").get<bool>()) {
        if (why) *why = "verification failed in ceiling " + c.at("name").get<std::string>();
        return false;
      }
    for (const auto& s : b.at("states"))
      if (!s.at("verification").at("passed").get<bool>()) {
        if (why) {
          *why = "verification failed in state " + s.at("name").get<std::string>();
          const auto& first = s.at("verification").at("first_mismatch");
          if (first.is_string()) *why += ": " + first.get<std::string>();
        }
        return false;
      }
  }
  return true;
}

// ---- reshard and collective
// --------------------------------------------------------------------------------

namespace {

json placements_json(const Mesh& mesh, const std::vector<Placement>& p) {
  json j = json::object();
  for (size_t i = 0; i < mesh.size() && i < p.size(); ++i) j[mesh[i].first] = to_string(p[i]);
  return j;
}

constexpr const char* kReshardPredictionSource =
    "layoutscope engine: plan_reshard (plan/reshard.hpp), sent bytes / busbw for a collective; for a local "
    "step its conversion plan's DRAM traffic (convert_traffic_bytes), or bytes read + written where it has "
    "none, / copy speed; the bandwidths in bandwidths_gbps";

json local_tensor_json(const LocalTensor& t) {
  return {{"layout", to_string(t.layout)}, {"shape", t.shape}, {"elements", t.elements}};
}

json local_kernel_json(const LocalKernelUse& k) {
  json j = {{"kernel", k.kernel}, {"runs_as", k.runs_as}};
  if (k.kernel == "generated") {
    j["source_hash"] = hex64(k.source_hash);  // the convert benchmark's key of the same kernel
  } else {
    j["reason"] = k.reason;
  }
  if (k.runs_as != "host") {
    j["compile_s"] = opt(k.compile_s);
    j["compile_cache"] = k.compile_cache;
  }
  return j;
}

// A state without timing (simulated, or a step the run did not time): no time summaries, only what it moved.
json untimed_summaries(double useful_bytes) {
  return json::array({summary("layoutscope/useful_bytes",
                              "Bytes each device sends + receives (collective) "
                              "or reads + writes (local)",
                              "B", static_cast<int64_t>(useful_bytes))});
}

}  // namespace

json results_json(const RunContext& ctx, const ReshardMeasurement& m, const ReshardParams& p) {
  json out = base(ctx, ctx.device.telemetry, ctx.device.telemetry);
  const ReshardPlan& plan = m.plan;
  json states = json::array();
  json names = json::array();
  Sampling hot = p.sampling;
  hot.cache = CacheMode::kHot;  // collectives and local steps run back to back: no cache flush
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const ReshardStep& s = plan.steps[i];
    const ReshardStepResult& r = m.steps[i];
    const std::string name =
        std::to_string(i) + ":" + std::string(to_string(s.op)) + (s.axis.empty() ? "" : "@" + s.axis);
    names.push_back(name);
    const double moved = is_collective(s.op) ? static_cast<double>(s.send_bytes + s.recv_bytes)
                                             : static_cast<double>(s.local_bytes);
    json st = {
        {"name", "step=" + name},
        {"axis_values", {{"step", name}}},
        {"is_skipped", false},
        {"summaries", r.time ? time_summaries(*r.time, hot, ctx.backend, moved) : untimed_summaries(moved)},
        {"verification", verification_json(r.verification)},
        {"op", std::string(to_string(s.op))},
        {"axis", s.axis.empty() ? json(nullptr) : json(s.axis)},
        {"group", s.group},
        {"groups", s.groups},
        {"before", to_string(s.before)},
        {"after", to_string(s.after)},
        {"placements_before", placements_json(plan.mesh, s.placements_before)},
        {"placements_after", placements_json(plan.mesh, s.placements_after)},
        {"local_before", local_tensor_json(s.local_before)},
        {"local_after", local_tensor_json(s.local_after)},
        {"size_bytes", s.size_bytes},
        {"bus_factor", s.bus_factor},
        {"send_bytes", s.send_bytes},
        {"recv_bytes", s.recv_bytes},
        {"local_bytes", s.local_bytes},
        {"predicted_s", s.predicted_seconds},
        {"predicted", {{"source", kReshardPredictionSource}, {"time_s", s.predicted_seconds}}},
        {"cold_s", opt(r.cold_s)},
        {"measured_s", r.time ? json(r.time->median_s) : json(nullptr)},
        {"busbw_bytes_per_second", opt(r.busbw_bytes_per_second)}};
    if (s.root >= 0) st["root"] = s.root;
    if (s.target >= 0) st["target"] = s.target;
    if (r.local_kernel) st["local_kernel"] = local_kernel_json(*r.local_kernel);
    if (r.time) {
      st["time_samples_s"] = r.time->samples_s;
      st = state_extras(std::move(st), *r.time, hot);
    }
    states.push_back(std::move(st));
  }
  // The whole plan, back to back.
  names.push_back("total");
  const double moved_total = static_cast<double>(plan.send_bytes + plan.recv_bytes);
  json total = {{"name", "step=total"},
                {"axis_values", {{"step", "total"}}},
                {"is_skipped", false},
                {"summaries", m.total ? time_summaries(*m.total, hot, ctx.backend, moved_total)
                                      : untimed_summaries(moved_total)},
                {"verification", verification_json(m.verification)},
                {"op", "total"},
                {"send_bytes", plan.send_bytes},
                {"recv_bytes", plan.recv_bytes},
                {"predicted_s", plan.predicted_seconds},
                {"predicted", {{"source", kReshardPredictionSource}, {"time_s", plan.predicted_seconds}}},
                {"cold_s", opt(m.total_cold_s)},
                {"measured_s", m.total ? json(m.total->median_s) : json(nullptr)}};
  if (m.total) {
    total["time_samples_s"] = m.total->samples_s;
    total = state_extras(std::move(total), *m.total, hot);
  }
  states.push_back(std::move(total));
  json mesh = json::array();
  for (const auto& [axis_name, size] : plan.mesh) mesh.push_back({{"axis", axis_name}, {"size", size}});
  json devs = json::array();
  for (const auto& d : m.devices) devs.push_back(d.id);
  json mesh_devices = json::array();
  for (const auto& d : m.devices) mesh_devices.push_back(device_facts_json(d));
  out["benchmarks"] =
      json::array({{{"name", "reshard"},
                    {"backend", ctx.backend.name},
                    {"devices", devs},
                    {"axes", {axis("step", "string", names)}},
                    {"states", states},
                    {"simulated", m.simulated},
                    {"note", m.note},
                    {"mesh", mesh},
                    {"mesh_devices", mesh_devices},
                    {"from", to_string(plan.from)},
                    {"to", to_string(plan.to)},
                    {"from_placements", placements_json(plan.mesh, plan.from_placements)},
                    {"to_placements", placements_json(plan.mesh, plan.to_placements)},
                    {"bandwidths_gbps",
                     {{"collective_busbw", plan.bandwidths.collective_busbw_gbps},
                      {"send_recv", plan.bandwidths.send_recv_gbps},
                      {"local_copy", plan.bandwidths.local_copy_gbps},
                      {"source", m.bandwidth_source}}},
                    {"nccl_version", m.nccl_version.empty() ? json(nullptr) : json(m.nccl_version)}}});
  return out;
}

json results_json(const RunContext& ctx, const CollectiveMeasurement& m, const CollectiveParams& p) {
  json out = base(ctx, ctx.device.telemetry, ctx.device.telemetry);
  Sampling hot = p.sampling;
  hot.cache = CacheMode::kHot;
  json states = json::array();
  json sizes = json::array();
  for (const auto& pt : m.points) {
    sizes.push_back(pt.size_bytes);
    json st = {{"name", "size=" + std::to_string(pt.size_bytes)},
               {"axis_values", {{"size", pt.size_bytes}}},
               {"is_skipped", false},
               {"summaries", time_summaries(pt.time, hot, ctx.backend, static_cast<double>(pt.size_bytes))},
               {"time_samples_s", pt.time.samples_s},
               {"verification", verification_json(pt.verification)},
               {"size_bytes", pt.size_bytes},
               {"count", pt.count},
               {"algbw_bytes_per_second", pt.algbw},
               {"busbw_bytes_per_second", pt.busbw},
               {"bus_factor", bus_factor(m.op, m.ranks)},
               {"predicted",
                {{"source", "none: a measurement of NCCL itself (its busbw feeds reshard predictions)"}}}};
    states.push_back(state_extras(std::move(st), pt.time, hot));
  }
  json devs = json::array();
  json mesh_devices = json::array();
  for (const auto& d : m.devices) {
    devs.push_back(d.id);
    mesh_devices.push_back(device_facts_json(d));
  }
  out["benchmarks"] = json::array({{{"name", "collective"},
                                    {"backend", ctx.backend.name},
                                    {"devices", devs},
                                    {"op", to_string(m.op)},
                                    {"ranks", m.ranks},
                                    {"axes", {axis("size", "int64", sizes)}},
                                    {"states", states},
                                    {"mesh_devices", mesh_devices},
                                    {"conventions",
                                     "nccl-tests PERFORMANCE.md: algbw = S / t, busbw = algbw x (n-1)/n "
                                     "(all_reduce: x 2(n-1)/n); S = all_gather output, reduce_scatter input, "
                                     "one rank's buffer for all_reduce and all_to_all"},
                                    {"nccl_version", m.nccl_version}}});
  return out;
}

}  // namespace layoutscope::agent
