#include "run_store.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

#include "execute.hpp"
#include "results.hpp"

namespace layoutscope::agent {
namespace fs = std::filesystem;
using nlohmann::json;

std::string iso8601_now() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

bool valid_run_id(const std::string& id) {
  return !id.empty() && id.size() <= 64 &&
         std::all_of(id.begin(), id.end(), [](unsigned char c) { return std::isalnum(c) || c == '-'; });
}

namespace {

// "20261120T123456Z-1a2b3c4d": sorts by creation time, safe as a file name and in a URL.
std::string new_run_id() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
  static std::mt19937_64 rng{std::random_device{}()};
  static std::mutex m;
  std::lock_guard lock(m);
  char id[64];
  std::snprintf(id, sizeof id, "%s-%08x", stamp, static_cast<unsigned>(rng() & 0xffffffffu));
  return id;
}

json progress_view(const json& r) {
  return {{"id", r["id"]},
          {"status", r["status"]},
          {"progress", r["progress"]},
          {"message", r["message"]},
          {"error", r["error"]}};
}

bool write_all(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    const ssize_t w = ::write(fd, s.data() + off, s.size() - off);
    if (w < 0) return false;
    off += static_cast<size_t>(w);
  }
  return true;
}

}  // namespace

class RunStore::Control final : public RunControl {
 public:
  Control(RunStore& store, std::string id) : store_(store), id_(std::move(id)) {}
  bool cancelled() const override {
    std::lock_guard lock(store_.mutex_);
    const auto it = store_.runs_.find(id_);
    return it == store_.runs_.end() || it->second->cancel_requested || store_.stopping_;
  }
  void progress(double fraction, const std::string& message) override {
    store_.update(
        id_,
        [&](Run& r) {
          r.record["progress"] = fraction;
          r.record["message"] = message;
        },
        false);
  }

 private:
  RunStore& store_;
  std::string id_;
};

RunStore::RunStore(fs::path dir, Backend& backend) : dir_(std::move(dir)), backend_(backend) {
  const int devices = backend_.unavailable() ? 0 : static_cast<int>(backend_.devices().size());
  for (int d = 0; d < devices; ++d) workers_.emplace_back([this, d] { worker(d); });
}

RunStore::~RunStore() { shutdown(); }

void RunStore::shutdown() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  changed_.notify_all();
  for (auto& w : workers_) w.join();
}

bool RunStore::stopping() const {
  std::lock_guard lock(mutex_);
  return stopping_;
}

bool RunStore::terminal(const std::string& s) {
  return s == "succeeded" || s == "failed" || s == "cancelled" || s == "interrupted";
}

std::vector<std::string> RunStore::load() {
  std::vector<std::string> problems;
  std::error_code ec;
  fs::create_directories(dir_, ec);
  for (const auto& entry : fs::directory_iterator(dir_, ec)) {
    const fs::path p = entry.path();
    if (p.extension() != ".json" || p.filename().string().front() == '.') continue;
    std::ifstream in(p);
    json record = json::parse(in, nullptr, false);
    if (record.is_discarded() || !record.is_object() || !record.contains("id") || !record["id"].is_string() ||
        !record.contains("status") || !record["status"].is_string()) {
      problems.push_back(p.string() + ": not a run record, skipped");
      continue;
    }
    // The id names the file the record is written back to (persist): it must be this file's own name, in the
    // alphabet of new_run_id, so that no record on disk can point a rewrite outside the results folder.
    const std::string id = record["id"].get<std::string>();
    if (id != p.stem().string() || !valid_run_id(id)) {
      problems.push_back(p.string() + ": its id does not match the file name, skipped");
      continue;
    }
    bool rewrite = false;
    if (!terminal(record["status"].get<std::string>())) {  // the agent stopped while it was queued or running
      record["status"] = "interrupted";
      record["error"] = "the agent stopped before this run finished";
      record["finished_at"] = iso8601_now();
      rewrite = true;
    }
    auto run = std::make_shared<Run>();
    run->record = record;
    {
      std::lock_guard lock(mutex_);
      runs_[id] = run;
    }
    if (rewrite) persist(record);
  }
  return problems;
}

std::optional<RunStore::Busy> RunStore::busy_locked(int device) const {
  const auto q = queues_.find(device);
  if (q == queues_.end() || q->second.empty()) {
    if (claimed_.count(device)) return Busy{1, ""};
    return std::nullopt;
  }
  // Estimate the rest of the running job from its progress so far: elapsed * (1 - p) / p.
  int retry = 5;
  const auto it = runs_.find(q->second.front());
  if (it != runs_.end() && it->second->record["status"] == "running") {
    const double p = it->second->record["progress"].get<double>();
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - it->second->started).count();
    if (p > 0.01) retry = static_cast<int>(std::clamp(elapsed * (1 - p) / p + 1, 1.0, 3600.0));
  }
  return Busy{retry, q->second.front()};
}

RunStore::Claim::~Claim() {
  if (!store_) return;
  std::lock_guard lock(store_->mutex_);
  store_->claimed_.erase(device_);
}

std::variant<RunStore::Claim, RunStore::Busy> RunStore::claim(int device) {
  std::lock_guard lock(mutex_);
  if (auto b = busy_locked(device)) return *b;
  claimed_.insert(device);
  return Claim(this, device);
}

std::string RunStore::submit(Claim claim, RunRequest request) {
  if (claim.store_ != this || claim.device_ != request.device)
    throw std::logic_error("RunStore::submit: the request's device is not the claimed one");
  json record;
  std::string id;
  {
    std::lock_guard lock(mutex_);
    claimed_.erase(claim.device_);
    claim.store_ = nullptr;  // released here, under the same lock that queues the run
    auto& q = queues_[request.device];
    id = new_run_id();
    auto run = std::make_shared<Run>();
    record = {{"id", id},
              {"benchmark", request.benchmark},
              {"device", request.device},
              {"backend", backend_.kind()},
              {"status", "queued"},
              {"created_at", iso8601_now()},
              {"started_at", nullptr},
              {"finished_at", nullptr},
              {"progress", 0.0},
              {"message", "queued"},
              {"error", nullptr},
              {"request", request.resolved},
              {"result", nullptr}};
    run->record = record;
    run->request = std::move(request);
    runs_[id] = run;
    q.push_back(id);
  }
  persist(record);
  changed_.notify_all();
  return id;
}

void RunStore::worker(int device) {
  for (;;) {
    std::string id;
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] {
        if (stopping_) return true;
        auto& q = queues_[device];
        return !q.empty() && running_[device] != q.front();
      });
      if (stopping_) return;
      id = queues_[device].front();
      running_[device] = id;
    }
    execute(id);
    {
      std::lock_guard lock(mutex_);
      queues_[device].pop_front();
      running_[device].clear();
    }
    changed_.notify_all();
  }
}

void RunStore::execute(const std::string& id) {
  std::shared_ptr<Run> run;
  {
    std::lock_guard lock(mutex_);
    run = runs_.at(id);
    if (run->cancel_requested) return;  // cancelled while queued: already final
  }
  update(
      id,
      [](Run& r) {
        r.record["status"] = "running";
        r.record["started_at"] = iso8601_now();
        r.record["message"] = "starting";
        r.started = std::chrono::steady_clock::now();
      },
      true);

  const RunRequest& req = run->request;
  RunContext ctx;
  ctx.run_id = id;
  ctx.backend = backend_.kind();
  ctx.request = req.resolved;
  Control control(*this, id);
  json result;
  std::string error;
  std::string status = "succeeded";
  try {
    {
      std::lock_guard lock(mutex_);
      ctx.created_at = run->record["created_at"].get<std::string>();
      ctx.started_at = run->record["started_at"].get<std::string>();
    }
    auto done = execute_request(backend_, req, control, ctx);
    std::string why;
    if (!done) {
      status = "failed";
      error = done.error().message;
    } else if (result = std::move(*done);
               !all_verified(result, &why)) {  // failed, the result kept beside why
      status = "failed";
      error = why;
    }
  } catch (const Cancelled&) {
    std::lock_guard lock(mutex_);
    status = stopping_ && !run->cancel_requested ? "interrupted" : "cancelled";
    error = status == "interrupted" ? "the agent stopped during this run" : "cancelled by request";
  } catch (const std::bad_alloc&) {
    status = "failed";
    error = "out of host memory";
  } catch (const std::exception& e) {
    status = "failed";
    error = e.what();
  }
  update(
      id,
      [&](Run& r) {
        r.record["status"] = status;
        r.record["finished_at"] = iso8601_now();
        r.record["progress"] = status == "succeeded" ? 1.0 : r.record["progress"].get<double>();
        r.record["message"] = status;
        r.record["error"] = error.empty() ? json(nullptr) : json(error);
        r.record["result"] = result.is_null() ? json(nullptr) : result;
      },
      true);
}

void RunStore::update(const std::string& id, const std::function<void(Run&)>& change, bool write) {
  json copy;
  {
    std::lock_guard lock(mutex_);
    auto it = runs_.find(id);
    if (it == runs_.end()) return;
    change(*it->second);
    ++it->second->version;
    if (write) copy = it->second->record;
  }
  changed_.notify_all();
  if (write) persist(copy);
}

void RunStore::persist(const json& record) const {
  std::lock_guard lock(write_mutex_);
  const std::string id = record["id"].get<std::string>();
  const fs::path final_path = dir_ / (id + ".json");
  const fs::path tmp = dir_ / ("." + id + ".json.tmp");
  const std::string text = record.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    std::fprintf(stderr, "layoutscope-agent: cannot write %s\n", tmp.c_str());
    return;
  }
  const bool ok = write_all(fd, text) && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok || std::rename(tmp.c_str(), final_path.c_str()) != 0) {
    std::fprintf(stderr, "layoutscope-agent: cannot write %s\n", final_path.c_str());
    ::unlink(tmp.c_str());
    return;
  }
  if (const int dfd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    ::fsync(dfd);  // the rename itself is durable only once the folder is synced
    ::close(dfd);
  }
}

std::optional<json> RunStore::get(const std::string& id) const {
  std::lock_guard lock(mutex_);
  const auto it = runs_.find(id);
  if (it == runs_.end()) return std::nullopt;
  return it->second->record;
}

json RunStore::list() const {
  std::lock_guard lock(mutex_);
  json out = json::array();
  for (const auto& [id, run] : runs_) {  // std::map: ids sort by creation time
    const json& r = run->record;
    json s = {{"id", id},
              {"benchmark", r.value("benchmark", json(nullptr))},
              {"device", r.value("device", json(nullptr))},
              {"backend", r.value("backend", json(nullptr))},
              {"status", r["status"]},
              {"created_at", r.value("created_at", json(nullptr))},
              {"finished_at", r.value("finished_at", json(nullptr))},
              {"error", r.value("error", json(nullptr))}};
    out.push_back(std::move(s));
  }
  return out;
}

RunStore::CancelOutcome RunStore::cancel(const std::string& id) {
  bool queued = false;
  {
    std::lock_guard lock(mutex_);
    const auto it = runs_.find(id);
    if (it == runs_.end()) return CancelOutcome::kNotFound;
    const std::string status = it->second->record["status"].get<std::string>();
    if (terminal(status)) return CancelOutcome::kAlreadyFinished;
    it->second->cancel_requested = true;
    queued = status == "queued";
  }
  if (queued) {  // never started: final at once (the worker skips it)
    update(
        id,
        [](Run& r) {
          r.record["status"] = "cancelled";
          r.record["finished_at"] = iso8601_now();
          r.record["message"] = "cancelled";
          r.record["error"] = "cancelled by request";
        },
        true);
    return CancelOutcome::kCancelled;
  }
  return CancelOutcome::kRequested;
}

std::optional<json> RunStore::wait_change(const std::string& id, uint64_t& version,
                                          std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  const auto it = runs_.find(id);
  if (it == runs_.end()) return json{{"missing", true}};
  const auto run = it->second;
  if (!changed_.wait_for(lock, timeout, [&] { return run->version > version || stopping_; }))
    return std::nullopt;
  version = run->version;
  return progress_view(run->record);
}

}  // namespace layoutscope::agent
