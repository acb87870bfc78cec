#include "api.hpp"

#include <filesystem>
#include <optional>
#include <stdexcept>

#include "build_info.hpp"
#include "fault_injection.hpp"
#include "params.hpp"
#include "results.hpp"

namespace layoutscope::agent {
namespace {

using nlohmann::json;

constexpr const char* kJson = "application/json";
const char* const kRunPath = R"(/v1/runs/([A-Za-z0-9-]{1,64}))";  // valid_run_id's alphabet (run_store.hpp)

void send_json(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(body.dump(-1, ' ', false, json::error_handler_t::replace), kJson);
}

// A small SVG icon served as /favicon.ico, so a browser shows no missing-favicon error (docs/toolchain.md).
constexpr const char* kFavicon =
    R"(<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" fill="#1d4ed8"/>)"
    R"(<path d="M3 3h4v4H3zM9 9h4v4H9z" fill="#fff"/></svg>)";

}  // namespace

void install_routes(httplib::Server& server, const RequestPolicy& policy, Backend& backend, RunStore& runs,
                    const ApiConfig& config) {
  const bool have_web = config.web_dir && std::filesystem::is_directory(*config.web_dir);
  if (have_web) server.set_mount_point("/", *config.web_dir);
  if (!have_web || !std::filesystem::exists(std::filesystem::path(*config.web_dir) / "index.html")) {
    server.Get("/", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(std::string(builtin_page()), "text/html; charset=utf-8");
      res.set_header("Content-Security-Policy",
                     "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'unsafe-inline'; "
                     "connect-src 'self'; img-src 'self'; base-uri 'none'; frame-ancestors 'none'");
    });
  }
  if (!have_web || !std::filesystem::exists(std::filesystem::path(*config.web_dir) / "favicon.ico")) {
    server.Get("/favicon.ico", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(kFavicon, "image/svg+xml");
    });
  }

  if (config.test_endpoints) {
    server.Get("/v1/_test/throw", [](const httplib::Request&, httplib::Response&) {
      throw std::runtime_error("internal detail that must not reach the client: /secret/path");
    });
    if (auto* faults = config.faults) {
      server.Post("/v1/_test/fail-next-run", [faults, &policy](const httplib::Request& req,
                                                               httplib::Response& res) {
        auto body = policy.parse_json_body(req.body.empty() ? "{}" : req.body);
        const std::string kind = body && body->is_object() ? body->value("kind", "exception") : "";
        if (kind != "exception" && kind != "device_allocation") {
          send_error(res, 422, "invalid_parameter", "kind: expected exception or device_allocation", "kind");
          return;
        }
        faults->fail_next_run(kind == "exception" ? FaultInjectingBackend::Fault::kException
                                                  : FaultInjectingBackend::Fault::kDeviceAllocation);
        send_json(res, 200, {{"armed", kind}});
      });
      // The next bounds check (the device's free memory) takes this long: lets a test send a second request
      // while the first is being checked.
      server.Post("/v1/_test/slow-next-admission", [faults, &policy](const httplib::Request& req,
                                                                     httplib::Response& res) {
        auto body = policy.parse_json_body(req.body.empty() ? "{}" : req.body);
        const json ms = body && body->is_object() ? body->value("ms", json(500)) : json();
        if (!ms.is_number_integer() || ms.get<int64_t>() < 1 || ms.get<int64_t>() > 5000) {
          send_error(res, 422, "invalid_parameter", "ms: expected an integer from 1 to 5000", "ms");
          return;
        }
        faults->slow_next_budget(std::chrono::milliseconds(ms.get<int64_t>()));
        send_json(res, 200, {{"armed", "slow_admission"}, {"ms", ms}});
      });
    }
  }

  server.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    send_json(res, 200, {{"status", "ok"}});
  });

  server.Get("/readyz", [&backend](const httplib::Request&, httplib::Response& res) {
    if (auto why = backend.unavailable()) {
      send_json(res, 503, {{"ready", false}, {"backend", backend.kind()}, {"reason", *why}});
      return;
    }
    send_json(res, 200,
              {{"ready", true}, {"backend", backend.kind()}, {"devices", backend.devices().size()}});
  });

  server.Get("/version", [&backend](const httplib::Request&, httplib::Response& res) {
    const BuildInfo& b = build_info();
    send_json(res, 200,
              {{"name", "layoutscope-agent"},
               {"version", b.version},
               {"git_sha", b.git_sha},
               {"build_type", b.build_type},
               {"compiler", b.compiler},
               {"cuda", b.cuda},
               {"cuda_architectures", b.cuda_architectures},
               {"backend", backend.kind()},
               {"results_schema_version", kResultsSchemaVersion}});
  });

  server.Get("/openapi.json", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(std::string(openapi_document()), kJson);
  });

  server.Get("/v1/devices", [&backend](const httplib::Request&, httplib::Response& res) {
    json devices = json::array();
    if (!backend.unavailable()) {
      for (const auto& d : backend.devices()) {
        json j = device_facts_json(d);
        j["telemetry"] = telemetry_json(d.telemetry);
        devices.push_back(std::move(j));
      }
    }
    json body = {{"backend", backend.kind()}, {"devices", devices}};
    if (auto why = backend.unavailable()) body["unavailable"] = *why;
    send_json(res, 200, body);
  });

  server.Get("/v1/benchmarks", [&backend](const httplib::Request&, httplib::Response& res) {
    send_json(res, 200, benchmark_catalogue(backend.kind()));
  });

  server.Post("/v1/runs", [&, config](const httplib::Request& req, httplib::Response& res) {
    if (auto why = backend.unavailable()) {
      send_error(res, 503, "backend_unavailable", *why);
      return;
    }
    auto body = policy.parse_json_body(req.body);
    if (!body) {
      send_error(res, 400, "bad_json", body.error().message, body.error().field);
      return;
    }
    json request = *body;
    if (request.is_object() && !request.contains("device")) request["device"] = config.default_device;
    const int device_count = static_cast<int>(backend.devices().size());
    // One job per device: claim the device before the bounds check, which asks the device's free memory, so
    // that no run can start on it in between (RunStore::Claim).
    std::optional<RunStore::Claim> claim;
    if (request.is_object() && request["device"].is_number_integer()) {
      const auto d = request["device"].get<int64_t>();
      if (d >= 0 && d < device_count) {
        auto claimed = runs.claim(static_cast<int>(d));
        if (const auto* busy = std::get_if<RunStore::Busy>(&claimed)) {
          res.set_header("Retry-After", std::to_string(busy->retry_after_s));
          send_error(
              res, 409, "device_busy",
              "device " + std::to_string(d) + " is " +
                  (busy->running_id.empty() ? "taking another run request" : "running " + busy->running_id) +
                  "; one job per device at a time");
          return;
        }
        claim.emplace(std::move(std::get<RunStore::Claim>(claimed)));
      }
    }
    auto parsed = parse_run_request(request, backend.kind(), device_count,
                                    [&](int d) { return backend.memory_budget_bytes(d); });
    if (!parsed) {
      send_error(res, 422, "invalid_parameter", parsed.error().message, parsed.error().field);
      return;
    }
    if (!claim) throw std::logic_error("POST /v1/runs: a valid request without a claimed device");
    const std::string id = runs.submit(std::move(*claim), std::move(parsed).value());
    res.set_header("Location", "/v1/runs/" + id);
    send_json(res, 202, {{"id", id}, {"status", "queued"}, {"location", "/v1/runs/" + id}});
  });

  server.Get("/v1/runs", [&runs](const httplib::Request&, httplib::Response& res) {
    send_json(res, 200, {{"runs", runs.list()}});
  });

  server.Get(kRunPath, [&runs](const httplib::Request& req, httplib::Response& res) {
    const std::string id = req.matches[1];
    const std::string format = req.has_param("format") ? req.get_param_value("format") : "json";
    if (format != "json" && format != "csv") {
      send_error(res, 422, "invalid_parameter", "format: expected json or csv", "format");
      return;
    }
    auto record = runs.get(id);
    if (!record) {
      send_error(res, 404, "not_found", "no run " + id, "id");
      return;
    }
    if (format == "csv") {
      if (!(*record)["result"].is_object()) {
        send_error(res, 409, "no_result",
                   "run " + id + " has no result (status " + (*record)["status"].get<std::string>() + ")");
        return;
      }
      res.set_content(results_csv((*record)["result"]), "text/csv; charset=utf-8");
      res.set_header("Content-Disposition", "attachment; filename=\"" + id + ".csv\"");
      return;
    }
    send_json(res, 200, *record);
  });

  server.Get(std::string(kRunPath) + "/events", [&runs](const httplib::Request& req, httplib::Response& res) {
    const std::string id = req.matches[1];
    if (!runs.get(id)) {
      send_error(res, 404, "not_found", "no run " + id, "id");
      return;
    }
    auto version = std::make_shared<uint64_t>(0);
    auto finished = std::make_shared<bool>(false);
    res.set_chunked_content_provider(
        "text/event-stream", [&runs, id, version, finished](size_t, httplib::DataSink& sink) {
          if (*finished || runs.stopping()) {
            sink.done();
            return true;
          }
          auto event = runs.wait_change(id, *version, std::chrono::seconds(15));
          if (!event) {  // a comment line keeps proxies and the reader awake
            return sink.write(": keep-alive\n\n", 14);
          }
          if (event->contains("missing")) {
            sink.done();
            return true;
          }
          const bool end = RunStore::terminal((*event)["status"].get<std::string>());
          const std::string text = std::string("event: ") + (end ? "end" : "progress") +
                                   "\ndata: " + event->dump(-1, ' ', false, json::error_handler_t::replace) +
                                   "\n\n";
          if (!sink.write(text.data(), text.size())) return false;
          if (end) *finished = true;
          return true;
        });
  });

  server.Delete(kRunPath, [&runs](const httplib::Request& req, httplib::Response& res) {
    const std::string id = req.matches[1];
    switch (runs.cancel(id)) {
      case RunStore::CancelOutcome::kNotFound:
        send_error(res, 404, "not_found", "no run " + id, "id");
        return;
      case RunStore::CancelOutcome::kAlreadyFinished:
        send_error(res, 409, "already_finished", "run " + id + " has already finished");
        return;
      case RunStore::CancelOutcome::kCancelled:
        send_json(res, 200, {{"id", id}, {"status", "cancelled"}});
        return;
      case RunStore::CancelOutcome::kRequested:
        send_json(res, 202, {{"id", id}, {"status", "cancelling"}});
        return;
    }
  });
}

}  // namespace layoutscope::agent
