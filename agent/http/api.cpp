#include "http/api.hpp"

#include <atomic>
#include <cctype>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>

#include "about/build_info.hpp"
#include "backends/cuda/nccl.hpp"
#include "backends/cuda/nvml.hpp"
#include "bench/engine_calls.hpp"
#include "bench/printers/results.hpp"
#include "bench/request/params.hpp"
#include "http/connections.hpp"
#include "http/static_files.hpp"
#include "jobs/fault_injection.hpp"

namespace layoutscope::agent {
namespace {

using nlohmann::json;

constexpr const char* kJson = "application/json";
const char* const kRunPath = R"(/v1/runs/([A-Za-z0-9-]{1,64}))";  // valid_run_id's alphabet (run_store.hpp)

// What every route may use.
struct Routes {
  const RequestPolicy& policy;
  Backend& backend;
  RunStore& runs;
  ApiConfig config;
};

void send_json(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(body.dump(-1, ' ', false, json::error_handler_t::replace), kJson);
}

// A small SVG icon served as /favicon.ico, so a browser shows no missing-favicon error.
constexpr const char* kFavicon =
    R"(<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" fill="#1d4ed8"/>)"
    R"(<path d="M3 3h4v4H3zM9 9h4v4H9z" fill="#fff"/></svg>)";

// One open /events stream; the count goes down when the response (and so its provider) is destroyed.
class StreamSlot {
 public:
  static std::shared_ptr<StreamSlot> take(int max) {
    if (open_.fetch_add(1) >= max) {
      --open_;
      return nullptr;
    }
    return std::shared_ptr<StreamSlot>(new StreamSlot());
  }
  StreamSlot(const StreamSlot&) = delete;
  StreamSlot& operator=(const StreamSlot&) = delete;
  ~StreamSlot() { --open_; }

 private:
  StreamSlot() = default;
  static inline std::atomic<int> open_{0};
};

void get_builtin_page(const Routes& r, const httplib::Request&, httplib::Response& res) {
  res.set_content(std::string(builtin_page()), "text/html; charset=utf-8");
  res.set_header("Content-Security-Policy", r.policy.builtin_page_csp());
}

void get_favicon(const Routes&, const httplib::Request&, httplib::Response& res) {
  res.set_content(kFavicon, "image/svg+xml");
}

void get_static_file(const Routes& r, const httplib::Request& req, httplib::Response& res) {
  auto file = find_static_file(*r.config.web_dir, req.path, request_accept_encoding());
  if (!file) {
    send_error(res, 404, "not_found", "no such endpoint or file");
    return;
  }
  res.set_content(std::move(file->body), file->content_type.c_str());
  if (!file->content_encoding.empty()) res.set_header("Content-Encoding", file->content_encoding);
  res.set_header("Cache-Control", file->cache_control);
  res.set_header("Vary", "Accept-Encoding");
}

void get_healthz(const Routes&, const httplib::Request&, httplib::Response& res) {
  send_json(res, 200, {{"status", "ok"}});
}

void get_readyz(const Routes& r, const httplib::Request&, httplib::Response& res) {
  const auto skipped = r.runs.skipped();
  auto why = r.backend.unavailable();
  if (!why) why = r.runs.loading();
  if (!why) why = r.runs.unwritable();
  if (why) {
    send_json(
        res, 503,
        {{"ready", false}, {"backend", r.backend.kind()}, {"reason", *why}, {"skipped_records", skipped}});
    return;
  }
  send_json(res, 200,
            {{"ready", true},
             {"backend", r.backend.kind()},
             {"devices", r.backend.devices().size()},
             {"skipped_records", skipped}});
}

void get_version(const Routes& r, const httplib::Request&, httplib::Response& res) {
  const BuildInfo& b = build_info();
  send_json(res, 200,
            {{"name", "layoutscope-agent"},
             {"version", b.version},
             {"git_sha", b.git_sha},
             {"build_type", b.build_type},
             {"compiler", b.compiler},
             {"cuda", b.cuda},
             {"cuda_architectures", b.cuda_architectures},
             {"backend", r.backend.kind()},
             {"results_schema_version", kResultsSchemaVersion}});
}

void get_openapi(const Routes&, const httplib::Request&, httplib::Response& res) {
  res.set_content(std::string(openapi_document()), kJson);
}

// Every GPU NVML sees (whatever the backend runs on), how each pair is linked, and NCCL's version: what a
// reshard or collective run will use. The backend's devices with a PCI bus id (GPUs) are matched to NVML's by
// it.
void add_gpu_topology(json& body, Backend& backend) {
  const GpuTopology topo = read_gpu_topology();
  std::vector<std::pair<std::string, int>> cuda_bus;
  if (!backend.unavailable())
    for (const auto& d : backend.devices())
      if (d.pci_bus_id) cuda_bus.emplace_back(*d.pci_bus_id, d.id);
  // NVML writes an 8-digit PCI domain ("00000000:19:00.0"), CUDA a 4-digit one ("0000:19:00.0").
  auto same_bus = [](std::string a, std::string b) {
    auto norm = [](std::string& x) {
      for (auto& c : x) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      const auto colon = x.find(':');
      if (colon != std::string::npos) {
        const auto nz = x.find_first_not_of('0');
        x = (nz >= colon ? "0" : x.substr(nz, colon - nz)) + x.substr(colon);
      }
    };
    norm(a);
    norm(b);
    return a == b;
  };
  json gpus = json::array();
  for (const auto& g : topo.gpus) {
    json j = {{"index", g.index},
              {"name", g.name},
              {"memory_bytes", g.memory_bytes},
              {"pci_bus_id", g.pci_bus_id},
              {"nvlinks_active", g.nvlinks_active},
              {"nvlink_version", g.nvlink_version ? json(*g.nvlink_version) : json(nullptr)},
              {"nvlinks_to_switch", g.nvlinks_to_switch},
              {"cuda_device", nullptr}};
    for (const auto& [bus, id] : cuda_bus)
      if (same_bus(bus, g.pci_bus_id)) j["cuda_device"] = id;
    gpus.push_back(std::move(j));
  }
  json links = json::array();
  for (const auto& k : topo.links) {
    auto opt_bool = [](const std::optional<bool>& v) { return v ? json(*v) : json(nullptr); };
    links.push_back({{"a", k.a},
                     {"b", k.b},
                     {"kind", k.kind},
                     {"nvlinks", k.nvlinks},
                     {"nvlink_version", k.nvlink_version ? json(*k.nvlink_version) : json(nullptr)},
                     {"common_ancestor", k.common_ancestor.empty() ? json(nullptr) : json(k.common_ancestor)},
                     {"p2p_read", opt_bool(k.p2p_read)},
                     {"p2p_nvlink", opt_bool(k.p2p_nvlink)}});
  }
  body["gpus"] = gpus;
  body["links"] = links;
  if (topo.gpus.empty()) body["gpus_reason"] = topo.reason;
  const auto version = nccl_version();
  body["nccl"] = version
                     ? json{{"version", *version}, {"library", (*load_nccl())->path}, {"error", nullptr}}
                     : json{{"version", nullptr}, {"library", nullptr}, {"error", version.error().message}};
}

void get_devices(const Routes& r, const httplib::Request&, httplib::Response& res) {
  json devices = json::array();
  if (!r.backend.unavailable()) {
    for (const auto& d : r.backend.devices()) {
      json j = device_facts_json(d);
      j["telemetry"] = telemetry_json(d.telemetry);
      devices.push_back(std::move(j));
    }
  }
  json body = {{"backend", r.backend.kind()}, {"devices", devices}};
  if (auto why = r.backend.unavailable()) body["unavailable"] = *why;
  add_gpu_topology(body, r.backend);
  send_json(res, 200, body);
}

void get_benchmarks(const Routes& r, const httplib::Request&, httplib::Response& res) {
  send_json(res, 200, benchmark_catalogue(r.backend.traits()));
}

void post_run(const Routes& r, const httplib::Request& req, httplib::Response& res) {
  if (auto why = r.backend.unavailable()) {
    send_error(res, 503, "backend_unavailable", *why);
    return;
  }
  auto body = r.policy.parse_json_body(req.body);
  if (!body) {
    const int status = body_error_status(body.error());
    send_error(res, status, status == 400 ? "bad_json" : "duplicate_key", body.error().message,
               body.error().field);
    return;
  }
  json request = *body;
  if (request.is_object() && !request.contains("device")) request["device"] = r.config.default_device;
  const int device_count = static_cast<int>(r.backend.devices().size());
  // Parsed and planned first with no memory bound, holding nothing: a slow or refused request never keeps
  // a device from the others.
  if (auto unbounded = parse_run_request(request, r.backend.traits(), device_count,
                                         [](int) { return std::numeric_limits<int64_t>::max(); });
      !unbounded) {
    send_error(res, 422, "invalid_parameter", unbounded.error().message, unbounded.error().field);
    return;
  }
  // One job per device: claim the device before the bounds check, which asks the device's free memory, so
  // that no run can start on it in between (RunStore::Claim).
  std::optional<RunStore::Claim> claim;
  if (request.is_object() && request["device"].is_number_integer()) {
    const auto d = request["device"].get<int64_t>();
    if (d >= 0 && d < device_count) {
      auto claimed = r.runs.claim(static_cast<int>(d));
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
  auto parsed = parse_run_request(request, r.backend.traits(), device_count,
                                  [&](int d) { return r.backend.memory_budget_bytes(d); });
  if (!parsed) {
    send_error(res, 422, "invalid_parameter", parsed.error().message, parsed.error().field);
    return;
  }
  if (!claim) throw std::logic_error("POST /v1/runs: a valid request without a claimed device");
  // A run over several devices holds them all: a run on any of them waits for it (409), and it for them.
  if (auto busy = r.runs.extend(*claim, run_devices(*parsed, r.backend.traits()))) {
    res.set_header("Retry-After", std::to_string(busy->retry_after_s));
    send_error(res, 409, "device_busy",
               "device " + std::to_string(busy->device) + ", which this run needs, is " +
                   (busy->running_id.empty() ? "taking another run request" : "running " + busy->running_id) +
                   "; one job per device at a time");
    return;
  }
  auto submitted = r.runs.submit(std::move(*claim), std::move(parsed).value());
  if (!submitted) {  // 507 Insufficient Storage (RFC 4918): the results folder cannot take the record
    send_error(res, 507, "results_unwritable", submitted.error().message, "results_dir");
    return;
  }
  const std::string id = *submitted;
  res.set_header("Location", "/v1/runs/" + id);
  send_json(res, 202, {{"id", id}, {"status", "queued"}, {"location", "/v1/runs/" + id}});
}

void list_runs(const Routes& r, const httplib::Request& req, httplib::Response& res) {
  size_t limit = 1000;
  if (req.has_param("limit")) {
    const std::string text = req.get_param_value("limit");
    if (text.empty() || text.size() > 4 || text.find_first_not_of("0123456789") != std::string::npos ||
        std::stoi(text) < 1 || std::stoi(text) > 1000) {
      send_error(res, 422, "invalid_parameter", "limit: expected an integer from 1 to 1000", "limit");
      return;
    }
    limit = static_cast<size_t>(std::stoi(text));
  }
  const std::string after = req.has_param("after") ? req.get_param_value("after") : "";
  if (!after.empty() && !valid_run_id(after)) {
    send_error(res, 422, "invalid_parameter", "after: expected a run id", "after");
    return;
  }
  auto page = r.runs.list(limit, after);
  json runs = json::array();
  for (const auto& s : page.runs) runs.push_back(run_summary_json(s));
  send_json(res, 200, {{"runs", runs}, {"next", page.next.empty() ? json(nullptr) : json(page.next)}});
}

void get_run(const Routes& r, const httplib::Request& req, httplib::Response& res) {
  const std::string id = req.matches[1];
  const std::string format = req.has_param("format") ? req.get_param_value("format") : "json";
  if (format != "json" && format != "csv") {
    send_error(res, 422, "invalid_parameter", "format: expected json or csv", "format");
    return;
  }
  std::shared_ptr<const RunRecord> found;
  switch (r.runs.get(id, found)) {
    case RunStore::Lookup::kNotFound:
      send_error(res, 404, "not_found", "no run " + id, "id");
      return;
    case RunStore::Lookup::kUnreadable:
      send_error(res, 500, "record_unreadable", "the stored record of run " + id + " cannot be read");
      return;
    case RunStore::Lookup::kFound:
      break;
  }
  const RunRecord& record = *found;
  if (format == "csv") {
    if (!record.result.is_object()) {
      send_error(res, 409, "no_result", "run " + id + " has no result (status " + record.status + ")");
      return;
    }
    // A stored record is untrusted input: one the loader accepts may still lack a member a CSV row needs.
    std::string csv;
    try {
      csv = results_csv(record.result);
    } catch (const json::exception& e) {
      send_error(res, 409, "result_not_tabular",
                 "the stored result of run " + id + " lacks what a CSV row needs: " + e.what());
      return;
    }
    res.set_content(csv, "text/csv; charset=utf-8");
    res.set_header("Content-Disposition", "attachment; filename=\"" + id + ".csv\"");
    return;
  }
  send_json(res, 200, run_record_json(record));
}

void get_run_events(const Routes& r, const httplib::Request& req, httplib::Response& res) {
  const std::string id = req.matches[1];
  if (!r.runs.exists(id)) {
    send_error(res, 404, "not_found", "no run " + id, "id");
    return;
  }
  // Each stream holds a connection thread for the run's length; past the cap a client is told to retry.
  auto slot = StreamSlot::take(r.config.max_streams);
  if (!slot) {
    res.set_header("Retry-After", "5");
    send_error(res, 503, "too_many_streams",
               std::to_string(r.config.max_streams) + " progress streams are open; poll GET /v1/runs/" + id +
                   " or retry");
    return;
  }
  auto version = std::make_shared<uint64_t>(0);
  auto finished = std::make_shared<bool>(false);
  RunStore& runs = r.runs;
  res.set_chunked_content_provider(
      "text/event-stream", [&runs, id, version, finished, slot](size_t, httplib::DataSink& sink) {
        if (*finished || runs.stopping() || !runs.exists(id)) {
          sink.done();
          return true;
        }
        auto event = runs.wait_change(id, *version, std::chrono::seconds(15));
        if (!event) {  // a comment line keeps proxies and the reader awake
          return sink.write(": keep-alive\n\n", 14);
        }
        const bool end = RunStore::terminal(event->status);
        const std::string text =
            std::string("event: ") + (end ? "end" : "progress") +
            "\ndata: " + progress_json(*event).dump(-1, ' ', false, json::error_handler_t::replace) + "\n\n";
        if (!sink.write(text.data(), text.size())) return false;
        if (end) *finished = true;
        return true;
      });
}

void delete_run(const Routes& r, const httplib::Request& req, httplib::Response& res) {
  const std::string id = req.matches[1];
  switch (r.runs.cancel(id)) {
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
}

// Test routes (--test-endpoints only): a handler that throws, and faults armed in the backend.
void get_test_throw(const Routes&, const httplib::Request&, httplib::Response&) {
  throw std::runtime_error("internal detail that must not reach the client: /secret/path");
}

void post_test_fail_next_run(const Routes& r, const httplib::Request& req, httplib::Response& res) {
  auto body = r.policy.parse_json_body(req.body.empty() ? "{}" : req.body);
  const std::string kind = body && body->is_object() ? body->value("kind", "exception") : "";
  if (kind != "exception" && kind != "device_allocation") {
    send_error(res, 422, "invalid_parameter", "kind: expected exception or device_allocation", "kind");
    return;
  }
  r.config.faults->fail_next_run(kind == "exception" ? FaultInjectingBackend::Fault::kException
                                                     : FaultInjectingBackend::Fault::kDeviceAllocation);
  send_json(res, 200, {{"armed", kind}});
}

// The next bounds check (the device's free memory) takes this long: lets a test send a second request while
// the first is being checked.
void post_test_slow_next_admission(const Routes& r, const httplib::Request& req, httplib::Response& res) {
  auto body = r.policy.parse_json_body(req.body.empty() ? "{}" : req.body);
  const json ms = body && body->is_object() ? body->value("ms", json(500)) : json();
  if (!ms.is_number_integer() || ms.get<int64_t>() < 1 || ms.get<int64_t>() > 5000) {
    send_error(res, 422, "invalid_parameter", "ms: expected an integer from 1 to 5000", "ms");
    return;
  }
  r.config.faults->slow_next_budget(std::chrono::milliseconds(ms.get<int64_t>()));
  send_json(res, 200, {{"armed", "slow_admission"}, {"ms", ms}});
}

// A later step of a record write fails with ENOSPC or kills the agent (RecordWriteFault): {"step": "open" |
// "write" | "fsync" | "rename" | "folder_sync", "action": "enospc" | "kill", "skip": steps to let pass,
// "times": steps to fail}.
void post_test_fail_record_write(const Routes& r, const httplib::Request& req, httplib::Response& res) {
  auto body = r.policy.parse_json_body(req.body.empty() ? "{}" : req.body);
  if (!body || !body->is_object()) {
    send_error(res, 422, "invalid_parameter", "expected an object", "body");
    return;
  }
  const json step = body->value("step", json("write"));
  const auto named = step.is_string() ? write_step_named(step.get<std::string>()) : std::nullopt;
  if (!named) {
    send_error(res, 422, "invalid_parameter", "step: expected open, write, fsync, rename or folder_sync",
               "step");
    return;
  }
  const json action = body->value("action", json("enospc"));
  if (action != "enospc" && action != "kill") {
    send_error(res, 422, "invalid_parameter", "action: expected enospc or kill", "action");
    return;
  }
  const json skip = body->value("skip", json(0));
  if (!skip.is_number_integer() || skip.get<int64_t>() < 0 || skip.get<int64_t>() > 1000) {
    send_error(res, 422, "invalid_parameter", "skip: expected an integer from 0 to 1000", "skip");
    return;
  }
  const json times = body->value("times", json(1));
  if (!times.is_number_integer() || times.get<int64_t>() < 1 || times.get<int64_t>() > 1000) {
    send_error(res, 422, "invalid_parameter", "times: expected an integer from 1 to 1000", "times");
    return;
  }
  r.runs.write_fault().arm(
      *named, action == "kill" ? RecordWriteFault::Action::kKill : RecordWriteFault::Action::kNoSpace,
      static_cast<int>(skip.get<int64_t>()), static_cast<int>(times.get<int64_t>()));
  send_json(
      res, 200,
      {{"armed", "record_write"}, {"step", step}, {"action", action}, {"skip", skip}, {"times", times}});
}

// How often the agent has called the engine's layout parser and conversion planners since it started (a
// test checks that a convert request is parsed and planned once, and a repeated one not again).
void get_test_engine_calls(const Routes&, const httplib::Request&, httplib::Response& res) {
  const EngineCalls& c = engine_calls();
  send_json(res, 200, {{"layout_parses", c.layout_parses.load()}, {"convert_plans", c.convert_plans.load()}});
}

using Route = void (*)(const Routes&, const httplib::Request&, httplib::Response&);

}  // namespace

void install_routes(httplib::Server& server, const RequestPolicy& policy, Backend& backend, RunStore& runs,
                    const ApiConfig& config) {
  // Owned by the server's handlers for the server's life.
  auto routes = std::make_shared<Routes>(Routes{policy, backend, runs, config});
  auto bind = [routes](Route f) {
    return [routes, f](const httplib::Request& req, httplib::Response& res) { f(*routes, req, res); };
  };
  const bool have_web = config.web_dir && std::filesystem::is_directory(*config.web_dir);
  const auto web = [&](const char* name) {
    return have_web && std::filesystem::exists(std::filesystem::path(*config.web_dir) / name);
  };
  if (!web("index.html")) server.Get("/", bind(get_builtin_page));
  if (!web("favicon.ico")) server.Get("/favicon.ico", bind(get_favicon));

  if (config.test_endpoints) {
    server.Get("/v1/_test/throw", bind(get_test_throw));
    server.Post("/v1/_test/fail-record-write", bind(post_test_fail_record_write));
    server.Get("/v1/_test/engine-calls", bind(get_test_engine_calls));
    if (config.faults) {
      server.Post("/v1/_test/fail-next-run", bind(post_test_fail_next_run));
      server.Post("/v1/_test/slow-next-admission", bind(post_test_slow_next_admission));
    }
  }

  server.Get("/healthz", bind(get_healthz));
  server.Get("/readyz", bind(get_readyz));
  server.Get("/version", bind(get_version));
  server.Get("/openapi.json", bind(get_openapi));
  server.Get("/v1/devices", bind(get_devices));
  server.Get("/v1/benchmarks", bind(get_benchmarks));
  server.Post("/v1/runs", bind(post_run));
  server.Get("/v1/runs", bind(list_runs));
  server.Get(kRunPath, bind(get_run));
  server.Get(std::string(kRunPath) + "/events", bind(get_run_events));
  server.Delete(kRunPath, bind(delete_run));
  if (have_web) server.Get(R"(/.*)", bind(get_static_file));  // after every API route: matched last
}

}  // namespace layoutscope::agent
