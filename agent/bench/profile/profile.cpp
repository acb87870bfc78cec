#include "bench/profile/profile.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <vector>

#include "bench/kernel_choice.hpp"

namespace layoutscope::agent {
namespace {

using nlohmann::json;

// Shared-memory wavefronts per instruction come from the sm__sass_ counters: the wavefronts the
// instructions' addresses need, which is what the engine predicts. The hardware L1 counters
// (l1tex__data_pipe_...) stay in `metrics`: they add the cycles the shared-memory data banks spent on other
// L1 traffic at the same time (up to 22 % more on the H200 for the same addresses: the same kernel counted
// more with loads that allocate in L1 than with L1::no_allocate; docs/results/h200-convert.md).
const char* const kMetricList[] = {
    "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "smsp__sass_inst_executed_op_shared_ld.sum",
    "smsp__sass_inst_executed_op_shared_st.sum",
};

std::string find_ncu() {
  if (const char* env = std::getenv("LAYOUTSCOPE_NCU"); env && *env) return env;
  std::vector<std::filesystem::path> dirs;
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    std::string d;
    while (std::getline(ss, d, ':'))
      if (!d.empty()) dirs.emplace_back(d);
  }
  dirs.emplace_back("/usr/local/cuda/bin");
  std::error_code ec;
  for (const auto& base :
       {std::filesystem::path("/opt/nvidia/nsight-compute"), std::filesystem::path("/usr/local/cuda")})
    if (std::filesystem::is_directory(base, ec))
      for (const auto& e : std::filesystem::directory_iterator(base, ec))
        if (e.is_directory()) dirs.push_back(e.path());
  for (const auto& d : dirs) {
    const auto p = d / "ncu";
    if (::access(p.c_str(), X_OK) == 0) return p.string();
  }
  return "";
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Splits one CSV line (double-quoted fields, "" as a quote).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"')
        cur += '"', ++i;
      else if (c == '"')
        quoted = false;
      else
        cur += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.push_back(cur), cur.clear();
    } else if (c != '\r') {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

std::optional<double> number_of(std::string s) {
  std::string t;
  for (char c : s)
    if (c != ',' && c != ' ') t += c;
  if (t.empty() || t == "n/a") return std::nullopt;
  try {
    size_t used = 0;
    const double v = std::stod(t, &used);
    if (used != t.size()) return std::nullopt;
    return v;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

struct KernelRow {
  std::string name;
  std::map<std::string, double> metrics;
};

std::optional<double> ratio(const std::map<std::string, double>& m, const char* num, const char* den) {
  const auto a = m.find(num), b = m.find(den);
  if (a == m.end() || b == m.end() || b->second <= 0) return std::nullopt;
  return a->second / b->second;
}

std::optional<double> value(const std::map<std::string, double>& m, const char* key) {
  const auto a = m.find(key);
  return a == m.end() ? std::nullopt : std::optional<double>(a->second);
}

// The same "not measured" reason for every state.
Profile none(size_t states, const std::string& reason) {
  StateProfile p;
  p.reason = reason;
  return Profile{std::nullopt, std::vector<StateProfile>(states, p)};
}

// Runs the request's states once under ncu and matches its kernel rows, in launch order, to `kernels` (the
// kernel each state launches, in measurement order).
Profile profile_states(
    const RunRequest& request, const BackendTraits& backend, const std::vector<std::string>& kernels,
    const std::vector<std::string>& metric_list = {std::begin(kMetricList), std::end(kMetricList)},
    const std::string& kernel_regex = "aos_|soa_|transpose_|copy_vec4_unrolled|layoutscope_convert") {
  if (!backend.no_profile.empty()) return none(kernels.size(), backend.no_profile);
  const std::string ncu = find_ncu();
  if (ncu.empty())
    return none(kernels.size(),
                "not measured: ncu (Nsight Compute) not found (searched $LAYOUTSCOPE_NCU, PATH, "
                "/usr/local/cuda/bin, /opt/nvidia/nsight-compute/*)");
  std::error_code ec;
  const std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  json child = {
      {"benchmark", request.benchmark}, {"device", request.device}, {"params", request.resolved["params"]}};
  std::string metrics;
  for (const std::string& m : metric_list) metrics += (metrics.empty() ? "" : ",") + m;
  // The command run, and the same command as the result shows it (tool names instead of their paths).
  const auto command_line = [&](const std::string& tool, const std::string& agent) {
    return tool + " --clock-control none --csv --page raw --print-units base" + " --kernel-name regex:'" +
           kernel_regex + "' --metrics " + metrics + " " + agent + " --profile-child " +
           shell_quote(child.dump());
  };
  const std::string cmd = command_line(shell_quote(ncu), shell_quote(self)) + " 2>&1";
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (!pipe) return none(kernels.size(), "not measured: could not start ncu");
  std::string output;
  std::array<char, 4096> buf{};
  while (size_t got = std::fread(buf.data(), 1, buf.size(), pipe)) output.append(buf.data(), got);
  const int rc = ::pclose(pipe);
  // CSV: a header row (quoted names), a units row, then one row per profiled kernel launch.
  std::vector<KernelRow> rows;
  std::vector<std::string> header;
  std::stringstream lines(output);
  std::string line;
  int name_col = -1;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] != '"') continue;
    auto f = csv_fields(line);
    if (header.empty()) {
      for (size_t i = 0; i < f.size(); ++i)
        if (f[i] == "Kernel Name") name_col = static_cast<int>(i);
      if (name_col >= 0) header = f;
      continue;
    }
    if (f.size() != header.size() || f[static_cast<size_t>(name_col)].empty()) continue;
    KernelRow r;
    r.name = f[static_cast<size_t>(name_col)];
    for (size_t i = 0; i < f.size(); ++i)
      if (auto v = number_of(f[i])) r.metrics[header[i]] = *v;
    // A kernel row has a value for at least one asked-for counter (ncu leaves some empty, e.g. the bank
    // conflicts of plain LDS/STS).
    if (std::any_of(metric_list.begin(), metric_list.end(),
                    [&](const std::string& m) { return r.metrics.count(m); }))
      rows.push_back(std::move(r));
  }
  std::string tail = output.size() > 600 ? output.substr(output.size() - 600) : output;
  Profile out;
  out.run = ProfileRun{"ncu", ncu, command_line("ncu", "layoutscope-agent"), rc, rows.size()};
  size_t next = 0;
  for (const std::string& want : kernels) {
    StateProfile p;
    while (next < rows.size() && rows[next].name.find(want) == std::string::npos) ++next;
    if (next >= rows.size()) {
      p.reason = "not measured: ncu gave no row for kernel " + want + " (exit status " + std::to_string(rc) +
                 "; output tail: " + tail + ")";
      out.states.push_back(std::move(p));
      continue;
    }
    const auto& m = rows[next++].metrics;
    p.available = true;
    p.kernel = want;
    p.global_load_sectors_per_request = ratio(m, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
                                              "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum");
    p.global_store_sectors_per_request = ratio(m, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
                                               "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum");
    p.shared_load_wavefronts_per_instruction =
        ratio(m, "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
              "smsp__sass_inst_executed_op_shared_ld.sum");
    p.shared_store_wavefronts_per_instruction =
        ratio(m, "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
              "smsp__sass_inst_executed_op_shared_st.sum");
    p.shared_load_bank_conflicts = value(m, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum");
    p.shared_store_bank_conflicts = value(m, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum");
    p.metrics = m;
    out.states.push_back(std::move(p));
  }
  return out;
}

}  // namespace

std::string profiled_kernel(const AosSoaState& s) {
  if (s.layout == "aos") return "aos_touch_kernel";
  if (s.layout == "soa") return "soa_touch_kernel";
  if (s.layout == "aos_vec") return "aos_vec_touch_kernel";
  return soa_vec_uses_float4(s.n) ? "soa_vec_touch_kernel" : "soa_touch_kernel";
}

std::string profiled_kernel(const TransposeState& s) {
  switch (s.variant) {
    case TransposeVariant::kCopy:
      return "copy_vec4_unrolled_kernel";
    case TransposeVariant::kNaive:
      return "transpose_naive_kernel";
    case TransposeVariant::kTiled:
    case TransposeVariant::kPad:
      return "transpose_tiled_kernel";
    case TransposeVariant::kTile64Pad:
    case TransposeVariant::kTile64Swizzle:
      break;
  }
  return tile64_uses_float4(s.dim) ? "transpose_tile64_kernel" : "transpose_tile64_scalar_kernel";
}

void attach_profile(AosSoaMeasurement& m, const RunRequest& request, const BackendTraits& backend) {
  std::vector<std::string> kernels;
  for (const auto& s : m.states) kernels.push_back(profiled_kernel(s));
  m.profile = profile_states(request, backend, kernels);
}

void attach_profile(TransposeMeasurement& m, const RunRequest& request, const BackendTraits& backend) {
  std::vector<std::string> kernels;
  for (const auto& s : m.states) kernels.push_back(profiled_kernel(s));
  m.profile = profile_states(request, backend, kernels);
}

// Every convert state runs the generated kernel, whose entry point is codegen::kConvertKernelName.
void attach_profile(ConvertMeasurement& m, const RunRequest& request, const BackendTraits& backend) {
  std::vector<std::string> kernels;
  for (const auto& s : m.states) kernels.push_back(s.kernel_name);
  m.profile = profile_states(request, backend, kernels);
}

// Every access state runs the generated kernel codegen::kAccessKernelName; the counters are the ones the
// engine names for the cases' instructions (access_metrics).
void attach_profile(AccessMeasurement& m, const RunRequest& request, const BackendTraits& backend) {
  std::vector<std::string> kernels(m.states.size(), codegen::kAccessKernelName);
  m.profile =
      profile_states(request, backend, kernels, access_metrics(request.access), codegen::kAccessKernelName);
}

}  // namespace layoutscope::agent
