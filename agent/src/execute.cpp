#include "execute.hpp"

#include <chrono>
#include <string>

#include "profile.hpp"
#include "run_store.hpp"

namespace layoutscope::agent {

Result<nlohmann::json> execute_request(Backend& backend, const RunRequest& req, RunControl& ctl,
                                       RunContext& ctx, bool document) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto devices = backend.devices();
  if (req.device < 0 || req.device >= static_cast<int>(devices.size()))
    return make_error("no such device", 0, "device");
  ctx.device = devices[static_cast<size_t>(req.device)];
  auto finish = [&](auto measured, const auto& params) -> Result<nlohmann::json> {
    if (!measured) return measured.error();
    ctx.finished_at = iso8601_now();
    ctx.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return document ? results_json(ctx, *measured, params) : nlohmann::json();
  };
  auto result = req.kind == BenchmarkKind::kAosSoa
                    ? finish(backend.run_aos_soa(req.device, req.aos_soa, ctl), req.aos_soa)
                    : finish(backend.run_transpose(req.device, req.transpose, ctl), req.transpose);
  if (!result || !document || !req.profile) return result;
  nlohmann::json doc = std::move(result).value();
  ctl.progress(1.0, "profiling each state once under ncu");
  attach_profile(doc, req, backend.kind());
  return doc;
}

}  // namespace layoutscope::agent
