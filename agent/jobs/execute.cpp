#include "jobs/execute.hpp"

#include <chrono>
#include <string>

#include "bench/kinds/access_run.hpp"
#include "bench/kinds/reshard_run.hpp"
#include "bench/profile/profile.hpp"
#include "jobs/clock.hpp"

namespace layoutscope::agent {

Result<nlohmann::json> execute_request(Backend& backend, const RunRequest& req, RunControl& ctl,
                                       RunContext& ctx, bool document) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto devices = backend.devices();
  if (req.device < 0 || req.device >= static_cast<int>(devices.size()))
    return make_error("no such device", 0, "device");
  ctx.device = devices[static_cast<size_t>(req.device)];
  // The measurement, with its profile attached when asked for, then printed: JSON only at this edge.
  auto finish = [&](auto measured, const auto& params) -> Result<nlohmann::json> {
    if (!measured) return measured.error();
    ctx.finished_at = iso8601_now();
    ctx.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!document) return nlohmann::json();
    auto m = std::move(measured).value();
    if (req.profile) {
      ctl.progress(1.0, "profiling each state once under ncu");
      attach_profile(m, req, backend.traits());
    }
    return results_json(ctx, m, params);
  };
  // The multi-device benchmarks (reshard_run.hpp): no ncu profile (refused when parsed).
  auto finish_plain = [&](auto measured, const auto& params) -> Result<nlohmann::json> {
    if (!measured) return measured.error();
    ctx.finished_at = iso8601_now();
    ctx.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!document) return nlohmann::json();
    return results_json(ctx, *measured, params);
  };
  switch (req.kind) {
    case BenchmarkKind::kReshard:
      return finish_plain(backend.run_reshard(req.reshard, ctl), req.reshard);
    case BenchmarkKind::kCollective:
      return finish_plain(backend.run_collective(req.collective, ctl), req.collective);
    case BenchmarkKind::kAosSoa:
      return finish(backend.run_aos_soa(req.device, req.aos_soa, ctl), req.aos_soa);
    case BenchmarkKind::kTranspose:
      return finish(backend.run_transpose(req.device, req.transpose, ctl), req.transpose);
    case BenchmarkKind::kSmemAccess:
    case BenchmarkKind::kGlobalAccess:
      return finish(backend.run_access(req.device, req.access, ctl), req.access);
    case BenchmarkKind::kConvert:
      break;
  }
  return finish(backend.run_convert(req.device, req.convert, ctl), req.convert);
}

}  // namespace layoutscope::agent
