// layoutscope-agent: wires options, backend, run store, policy and routes, then serves until SIGINT/SIGTERM.
#include <httplib.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <thread>

#include "about/build_info.hpp"
#include "backends/cuda/nccl.hpp"
#include "bench/benchmark.hpp"
#include "bench/printers/results.hpp"
#include "bench/request/params.hpp"
#include "http/api.hpp"
#include "http/connections.hpp"
#include "http/options.hpp"
#include "http/policy.hpp"
#include "jobs/execute.hpp"
#include "jobs/fault_injection.hpp"
#include "jobs/run_store.hpp"

namespace {

using namespace layoutscope::agent;

// --run / --profile-child: one request in this process, no HTTP (the same backend, sampling and printers as
// a POST /v1/runs job, so HTTP-path timings can be compared with these).
class QuietControl final : public RunControl {
 public:
  bool cancelled() const override { return false; }
  void progress(double, const std::string&) override {}
};

int run_in_process(const Options& opt, std::unique_ptr<Backend> backend) {
  const bool child = opt.profile_child.has_value();
  auto body = nlohmann::json::parse(child ? *opt.profile_child : *opt.run_request, nullptr, false);
  if (body.is_discarded()) {
    std::fprintf(stderr, "layoutscope-agent: the request is not valid JSON\n");
    return 2;
  }
  if (auto why = backend->unavailable()) {
    std::fprintf(stderr, "layoutscope-agent: backend unavailable: %s\n", why->c_str());
    return 1;
  }
  const auto devices = backend->devices();
  auto parsed = parse_run_request(body, backend->traits(), static_cast<int>(devices.size()),
                                  [&](int d) { return backend->memory_budget_bytes(d); });
  if (!parsed) {
    std::fprintf(stderr, "layoutscope-agent: %s\n", parsed.error().message.c_str());
    return 2;
  }
  RunRequest request = std::move(parsed).value();
  RunRequest* req = &request;
  req->aos_soa.sampling.profile_once = req->transpose.sampling.profile_once =
      req->convert.sampling.profile_once = req->access.sampling.profile_once = child;
  QuietControl control;
  RunContext ctx;
  ctx.run_id = "in-process";
  ctx.backend = backend->traits();
  ctx.request = req->resolved;
  ctx.created_at = ctx.started_at = iso8601_now();
  nlohmann::json result;
  try {
    auto done = execute_request(*backend, *req, control, ctx, !child);
    if (!done) throw std::runtime_error(done.error().message);
    result = std::move(*done);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "layoutscope-agent: run failed: %s\n", e.what());
    return 1;
  }
  if (child) return 0;
  std::puts(result.dump(1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  std::string why;
  return all_verified(result, &why) ? 0 : 3;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace layoutscope::agent;
  // NVLink multicast stays off for the agent, NCCL and every process the agent starts.
  if (const std::string note = keep_nvls_off(); !note.empty())
    std::fprintf(stderr, "layoutscope-agent: %s\n", note.c_str());
  auto options = parse_options(std::vector<std::string>(argv + 1, argv + argc));
  if (!options) {
    std::fprintf(stderr, "layoutscope-agent: %s\n", options.error().message.c_str());
    return 2;
  }
  const Options& opt = *options;
  if (opt.help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (opt.version) {
    std::printf("layoutscope-agent %s (%s, %s%s)\n", std::string(build_info().version).c_str(),
                std::string(build_info().git_sha).c_str(), build_info().cuda ? "cuda " : "",
                std::string(build_info().build_type).c_str());
    return 0;
  }

  if (opt.run_request || opt.profile_child) {
    std::unique_ptr<Backend> b = opt.backend == "cpu"
                                     ? make_cpu_backend()
                                     : make_cuda_backend(std::filesystem::path(opt.results_dir) / "kernels");
    if (opt.backend == "auto" && b->unavailable()) b = make_cpu_backend();
    return run_in_process(opt, std::move(b));
  }

  // SIGINT/SIGTERM are blocked here, before any thread starts (threads inherit the mask), and taken by
  // sigwait below, so shutdown runs as ordinary code: first the run store (a running job stops at its next
  // sample, event streams end), then the server.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  auto token = load_or_create_token(opt.token_file);
  if (!token) {
    std::fprintf(stderr, "layoutscope-agent: %s\n", token.error().message.c_str());
    return 2;
  }

  std::unique_ptr<Backend> backend;
  if (opt.backend == "cpu") {
    backend = make_cpu_backend();
  } else {
    backend = make_cuda_backend(std::filesystem::path(opt.results_dir) / "kernels");
    if (opt.backend == "auto" && backend->unavailable()) {
      std::fprintf(stderr, "layoutscope-agent: CUDA backend unavailable (%s); using the CPU backend\n",
                   backend->unavailable()->c_str());
      backend = make_cpu_backend();
    } else if (backend->unavailable()) {
      std::fprintf(stderr, "layoutscope-agent: CUDA backend unavailable: %s (GET /readyz answers 503)\n",
                   backend->unavailable()->c_str());
    }
  }

  FaultInjectingBackend* faults = nullptr;
  if (opt.test_endpoints) {
    auto wrapped = std::make_unique<FaultInjectingBackend>(std::move(backend));
    faults = wrapped.get();
    backend = std::move(wrapped);
  }

  RunStore runs(opt.results_dir, *backend);

  // Every connection holds a descriptor; the soft limit (often 1,024) would refuse connections long before
  // the thread cap does.
  if (rlimit nofile{}; ::getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < nofile.rlim_max) {
    nofile.rlim_cur = nofile.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &nofile);
  }

  httplib::Server server;
  ConnectionLimits limits;
  limits.max_connections = opt.threads;
  limits.request_deadline = std::chrono::seconds(opt.request_deadline_s);
  server.new_task_queue = [limits] { return new ConnectionPool(limits); };
  use_exclusive_listener(server);
  errno = 0;
  const int port = opt.port == 0 ? server.bind_to_any_port(opt.host)
                                 : (server.bind_to_port(opt.host, opt.port) ? opt.port : -1);
  if (port <= 0) {
    const int why = errno;
    if (why == EADDRINUSE) {
      std::fprintf(stderr, "layoutscope-agent: port in use: %s:%d (another agent or program listens there)\n",
                   opt.host.c_str(), opt.port);
      return 2;
    }
    std::fprintf(stderr, "layoutscope-agent: cannot listen on %s:%d (%s)\n", opt.host.c_str(), opt.port,
                 std::strerror(why));
    return 1;
  }
  if (!raise_listen_backlog(server_listener_fd(), limits.listen_backlog))
    std::fprintf(stderr, "layoutscope-agent: cannot raise the listen backlog to %d\n", limits.listen_backlog);

  PolicyConfig pc;
  allow_listener(pc, opt.host, port, opt.allowed_hosts, opt.allowed_origins);
  pc.token = *token;
  pc.read_timeout_s = opt.read_timeout_s;
  RequestPolicy policy(pc);
  policy.install(server);
  install_routes(server, policy, *backend, runs,
                 ApiConfig{opt.device, opt.web_dir, opt.test_endpoints, faults, opt.max_streams});

  // Listening before the history is read (a folder of large records takes seconds): /healthz answers, and
  // /readyz says what is loading, until the URL below is printed.
  std::thread listener([&server] { server.listen_after_bind(); });
  for (const auto& problem : runs.load()) std::fprintf(stderr, "layoutscope-agent: %s\n", problem.c_str());

  std::fprintf(stderr, "layoutscope-agent %s: backend %s%s, results in %s\n",
               std::string(build_info().version).c_str(), backend->kind().c_str(),
               backend->unavailable() ? " (unavailable)" : "", opt.results_dir.c_str());
  const std::string shown_host = opt.host == "::1" ? "[::1]" : opt.host == "0.0.0.0" ? "127.0.0.1" : opt.host;
  // The one URL: the token travels in the fragment, which browsers never send to a server.
  std::printf("layoutscope-agent: open http://%s:%d/#token=%s\n", shown_host.c_str(), port, token->c_str());
  std::fflush(stdout);

  int sig = 0;
  sigwait(&stop_signals, &sig);
  std::fprintf(stderr, "layoutscope-agent: stopping (%s)\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
  runs.shutdown();
  server.stop();
  listener.join();
  std::fprintf(stderr, "layoutscope-agent: stopped\n");
  return 0;
}
