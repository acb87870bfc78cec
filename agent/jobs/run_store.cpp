#include "jobs/run_store.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

#include "bench/json_depth.hpp"
#include "bench/printers/results.hpp"
#include "jobs/execute.hpp"

namespace layoutscope::agent {
namespace fs = std::filesystem;
using nlohmann::json;

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

bool write_all(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    const ssize_t w = ::write(fd, s.data() + off, s.size() - off);
    if (w < 0) return false;
    off += static_cast<size_t>(w);
  }
  return true;
}

json optional_string(const std::optional<std::string>& s) { return s ? json(*s) : json(nullptr); }

// Reads a record file: a regular file (no link followed) of at most kMaxRecordBytes, JSON no deeper than
// kMaxRecordDepth (checked by a linear scan before any recursive parse), a valid record.
Result<RunRecord> read_record_file(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return make_error("cannot be opened (a link, or unreadable)", 0, "file");
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return make_error("not a regular file", 0, "file");
  }
  if (static_cast<size_t>(st.st_size) > RunStore::kMaxRecordBytes) {
    ::close(fd);
    return make_error("larger than " + std::to_string(RunStore::kMaxRecordBytes) + " bytes", 0, "file");
  }
  std::string text(static_cast<size_t>(st.st_size), '\0');
  size_t off = 0;
  while (off < text.size()) {
    const ssize_t n = ::read(fd, text.data() + off, text.size() - off);
    if (n <= 0) break;
    off += static_cast<size_t>(n);
  }
  ::close(fd);
  text.resize(off);
  if (json_nesting_depth(text) > RunStore::kMaxRecordDepth)
    return make_error("JSON nested deeper than " + std::to_string(RunStore::kMaxRecordDepth) + " levels", 0,
                      "file");
  const json j = json::parse(text, nullptr, false);
  if (j.is_discarded()) return make_error("not valid JSON", 0, "file");
  return parse_run_record(j);
}

}  // namespace

json run_record_json(const RunRecord& r) {
  return {{"id", r.id},
          {"benchmark", r.benchmark},
          {"device", r.device},
          {"backend", r.backend},
          {"status", r.status},
          {"created_at", r.created_at},
          {"started_at", optional_string(r.started_at)},
          {"finished_at", optional_string(r.finished_at)},
          {"progress", r.progress},
          {"message", r.message},
          {"error", optional_string(r.error)},
          {"request", r.request},
          {"result", r.result}};
}

RunSummary summarize(const RunRecord& r) {
  return {r.id,      r.benchmark, r.backend,     r.status, r.created_at,
          r.message, r.device,    r.finished_at, r.error,  r.progress};
}

json run_summary_json(const RunSummary& s) {
  return {{"id", s.id},
          {"benchmark", s.benchmark},
          {"device", s.device},
          {"backend", s.backend},
          {"status", s.status},
          {"created_at", s.created_at},
          {"finished_at", optional_string(s.finished_at)},
          {"error", optional_string(s.error)}};
}

json progress_json(const RunSummary& s) {
  return {{"id", s.id},
          {"status", s.status},
          {"progress", s.progress},
          {"message", s.message},
          {"error", optional_string(s.error)}};
}

Result<RunRecord> parse_run_record(const json& j) {
  if (!j.is_object()) return make_error("a run record is a JSON object", 0, "record");
  RunRecord r;
  auto text = [&](const char* key, std::string& out) -> bool {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_string()) return false;
    out = it->get<std::string>();
    return true;
  };
  auto text_or_null = [&](const char* key, std::optional<std::string>& out) -> bool {
    const auto it = j.find(key);
    if (it == j.end()) return false;
    if (it->is_null()) return true;
    if (!it->is_string()) return false;
    out = it->get<std::string>();
    return true;
  };
  for (const auto& [key, out] : {std::pair{"id", &r.id}, std::pair{"benchmark", &r.benchmark},
                                 std::pair{"backend", &r.backend}, std::pair{"status", &r.status},
                                 std::pair{"created_at", &r.created_at}, std::pair{"message", &r.message}})
    if (!text(key, *out)) return make_error(std::string(key) + ": expected a string", 0, key);
  for (const auto& [key, out] : {std::pair{"started_at", &r.started_at},
                                 std::pair{"finished_at", &r.finished_at}, std::pair{"error", &r.error}})
    if (!text_or_null(key, *out)) return make_error(std::string(key) + ": expected a string or null", 0, key);
  static const std::set<std::string> kStatuses = {"queued", "running",   "succeeded",
                                                  "failed", "cancelled", "interrupted"};
  if (!kStatuses.count(r.status)) return make_error("status: not a run status", 0, "status");
  const auto device = j.find("device");
  if (device == j.end() || !device->is_number_integer() || device->get<int64_t>() < 0 ||
      device->get<int64_t>() > 1023)
    return make_error("device: expected an integer from 0 to 1023", 0, "device");
  r.device = device->get<int>();
  const auto progress = j.find("progress");
  if (progress == j.end() || !progress->is_number() || !(progress->get<double>() >= 0) ||
      progress->get<double>() > 1)
    return make_error("progress: expected a number from 0 to 1", 0, "progress");
  r.progress = progress->get<double>();
  const auto request = j.find("request");
  if (request == j.end() || !request->is_object())
    return make_error("request: expected an object", 0, "request");
  r.request = *request;
  const auto result = j.find("result");
  if (result == j.end() || !(result->is_null() || result->is_object()))
    return make_error("result: expected an object or null", 0, "result");
  if (result->is_object()) {
    // The results schema's required members (schemas/results.schema.json), with their types.
    if (!result->contains("schema_version") || !(*result)["schema_version"].is_string() ||
        !result->contains("meta") || !(*result)["meta"].is_object() || !result->contains("devices") ||
        !(*result)["devices"].is_array() || !result->contains("benchmarks") ||
        !(*result)["benchmarks"].is_array())
      return make_error("result: expected schema_version, meta, devices and benchmarks", 0, "result");
  }
  r.result = *result;
  return r;
}

class RunStore::Control final : public RunControl {
 public:
  Control(RunStore& store, std::string id) : store_(store), id_(std::move(id)) {}
  bool cancelled() const override {
    std::lock_guard lock(store_.mutex_);
    const auto it = store_.active_.find(id_);
    return it == store_.active_.end() || it->second->cancel_requested || store_.stopping_;
  }
  void progress(double fraction, const std::string& message) override {
    store_.update(
        id_,
        [&](Run& r) {
          r.record.progress = fraction;
          r.record.message = message;
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
  for (auto it = fs::directory_iterator(dir_, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const fs::path p = it->path();
    const std::string name = p.filename().string();
    // A temporary file left by a write that never finished (the agent was killed): never a record.
    if (name.front() == '.' && name.size() > 9 && name.compare(name.size() - 9, 9, ".json.tmp") == 0) {
      if (::unlink(p.c_str()) != 0) problems.push_back(p.string() + ": stale temporary file, cannot remove");
      continue;
    }
    if (p.extension() != ".json" || name.front() == '.') continue;
    auto read = read_record_file(p);
    if (!read) {
      problems.push_back(p.string() + ": not a run record (" + read.error().message + "), skipped");
      continue;
    }
    RunRecord record = std::move(read.value());
    // The id names the file the record is written back to (persist): it must be this file's own name, so
    // that no record on disk can point a rewrite outside the results folder or at another run.
    if (record.id != p.stem().string() || !valid_run_id(record.id)) {
      problems.push_back(p.string() + ": its id does not match the file name, skipped");
      continue;
    }
    if (!terminal(record.status)) {  // the agent stopped while it was queued or running
      record.status = "interrupted";
      record.error = "the agent stopped before this run finished";
      record.finished_at = iso8601_now();
      persist(record);
    }
    std::lock_guard lock(mutex_);
    index_[record.id] = summarize(record);
  }
  if (ec) problems.push_back(dir_.string() + ": cannot list the folder: " + ec.message());
  std::lock_guard lock(mutex_);
  skipped_ = problems;
  return problems;
}

std::vector<std::string> RunStore::skipped() const {
  std::lock_guard lock(mutex_);
  return skipped_;
}

std::optional<RunStore::Busy> RunStore::busy_locked(const std::vector<int>& devices,
                                                    const std::set<int>& mine) const {
  const auto holder = holds_.taken(devices, mine);
  if (!holder) return std::nullopt;
  if (holder->run_id.empty()) return Busy{1, "", holder->device};
  // Estimate the rest of the running job from its progress so far: elapsed * (1 - p) / p.
  int retry = 5;
  const auto it = active_.find(holder->run_id);
  if (it != active_.end() && it->second->record.status == "running") {
    const double p = it->second->record.progress;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - it->second->started).count();
    if (p > 0.01) retry = static_cast<int>(std::clamp(elapsed * (1 - p) / p + 1, 1.0, 3600.0));
  }
  return Busy{retry, holder->run_id, holder->device};
}

RunStore::Claim::~Claim() {
  if (!store_) return;
  std::lock_guard lock(store_->mutex_);
  store_->holds_.release(devices_);
}

std::variant<RunStore::Claim, RunStore::Busy> RunStore::claim(int device) {
  std::lock_guard lock(mutex_);
  if (auto b = busy_locked({device})) return *b;
  holds_.claim({device});
  return Claim(this, device);
}

std::optional<RunStore::Busy> RunStore::extend(Claim& claim, const std::vector<int>& devices) {
  if (claim.store_ != this) throw std::logic_error("RunStore::extend: a claim of another store");
  std::lock_guard lock(mutex_);
  if (auto b = busy_locked(devices, claim.devices_)) return b;
  holds_.claim(devices, claim.devices_);
  claim.devices_.insert(devices.begin(), devices.end());
  return std::nullopt;
}

std::string RunStore::submit(Claim claim, RunRequest request) {
  if (claim.store_ != this || claim.device_ != request.device)
    throw std::logic_error("RunStore::submit: the request's device is not the claimed one");
  RunRecord record;
  {
    std::lock_guard lock(mutex_);
    claim.store_ = nullptr;  // handed to the run here, under the same lock that queues it
    record.id = new_run_id();
    record.benchmark = request.benchmark;
    record.device = request.device;
    record.backend = backend_.kind();
    record.status = "queued";
    record.created_at = iso8601_now();
    record.message = "queued";
    record.request = request.resolved;
    auto run = std::make_shared<Run>();
    run->record = record;
    run->request = std::move(request);
    active_[record.id] = run;
    index_[record.id] = summarize(record);
    holds_.assign(claim.devices_, record.id);
  }
  persist(record);
  changed_.notify_all();
  return record.id;
}

void RunStore::worker(int device) {
  for (;;) {
    std::string id;
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] {
        if (stopping_) return true;
        // The run this device holds, when it is this device's own (a multi-device run's other devices only
        // hold it) and waits.
        const auto q = holds_.run_on(device);
        return q && active_.count(*q) && active_.at(*q)->record.device == device &&
               active_.at(*q)->record.status == "queued";
      });
      if (stopping_) return;
      id = *holds_.run_on(device);
    }
    execute(id);
  }
}

void RunStore::execute(const std::string& id) {
  // queued -> running under the lock that cancel() takes, so a cancel sees one or the other.
  std::shared_ptr<Run> run;
  RunRecord running;
  {
    std::lock_guard lock(mutex_);
    const auto it = active_.find(id);
    if (it == active_.end() || it->second->cancel_requested) return;  // cancelled while queued
    run = it->second;
    run->record.status = "running";
    run->record.started_at = iso8601_now();
    run->record.message = "starting";
    run->started = std::chrono::steady_clock::now();
    ++run->version;
    index_[id] = summarize(run->record);
    running = run->record;
  }
  changed_.notify_all();
  persist(running);

  const RunRequest& req = run->request;
  RunContext ctx;
  ctx.run_id = id;
  ctx.backend = backend_.traits();
  ctx.request = req.resolved;
  Control control(*this, id);
  json result;
  std::string error;
  std::string status = "succeeded";
  try {
    {
      std::lock_guard lock(mutex_);
      ctx.created_at = run->record.created_at;
      ctx.started_at = run->record.started_at.value_or("");
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
  finish(id, [&](RunRecord& r) {
    r.status = status;
    r.finished_at = iso8601_now();
    if (status == "succeeded") r.progress = 1.0;
    r.message = status;
    r.error = error.empty() ? std::nullopt : std::optional<std::string>(error);
    r.result = std::move(result);
  });
}

void RunStore::update(const std::string& id, const std::function<void(Run&)>& change, bool write) {
  RunRecord copy;
  {
    std::lock_guard lock(mutex_);
    auto it = active_.find(id);
    if (it == active_.end()) return;
    change(*it->second);
    ++it->second->version;
    index_[id] = summarize(it->second->record);
    if (write) copy = it->second->record;
  }
  changed_.notify_all();
  if (write) persist(copy);
}

void RunStore::finish(const std::string& id, const std::function<void(RunRecord&)>& change) {
  RunRecord final_record;
  {
    std::lock_guard lock(mutex_);
    const auto it = active_.find(id);
    if (it == active_.end()) return;
    final_record = it->second->record;
  }
  change(final_record);
  // On disk first: once the run reads as finished, GET serves it from its file, and its device is free in
  // the same instant (no 409 for a submission that follows the "succeeded" it just read).
  persist(final_record);
  {
    std::lock_guard lock(mutex_);
    index_[id] = summarize(final_record);
    active_.erase(id);
    holds_.finish(id);
  }
  changed_.notify_all();
}

bool RunStore::persist(const RunRecord& record) const {
  std::lock_guard lock(write_mutex_);
  const fs::path final_path = dir_ / (record.id + ".json");
  const fs::path tmp = dir_ / ("." + record.id + ".json.tmp");
  const std::string text = run_record_json(record).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
  // A new file, never an existing one or a link's target: whatever sits at the temporary name (a planted
  // link, a file left by a kill) is removed (unlink does not follow links) and the name created afresh.
  constexpr int kFlags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
  int fd = ::open(tmp.c_str(), kFlags, 0644);
  if (fd < 0 && errno == EEXIST && ::unlink(tmp.c_str()) == 0) fd = ::open(tmp.c_str(), kFlags, 0644);
  if (fd < 0) {
    std::fprintf(stderr, "layoutscope-agent: cannot write %s\n", tmp.c_str());
    return false;
  }
  const bool ok = write_all(fd, text) && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok || std::rename(tmp.c_str(), final_path.c_str()) != 0) {
    std::fprintf(stderr, "layoutscope-agent: cannot write %s\n", final_path.c_str());
    ::unlink(tmp.c_str());
    return false;
  }
  if (const int dfd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    ::fsync(dfd);  // the rename itself is durable only once the folder is synced
    ::close(dfd);
  }
  return true;
}

RunStore::Lookup RunStore::get(const std::string& id, std::shared_ptr<const RunRecord>& out) const {
  {
    std::lock_guard lock(mutex_);
    if (const auto it = active_.find(id); it != active_.end()) {
      out = std::make_shared<const RunRecord>(it->second->record);
      return Lookup::kFound;
    }
    if (!index_.count(id)) return Lookup::kNotFound;
  }
  const fs::path path = dir_ / (id + ".json");
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return Lookup::kUnreadable;
  const int64_t mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  {
    std::lock_guard lock(cache_mutex_);
    if (const auto c = cache_.find(id);
        c != cache_.end() && c->second.mtime_ns == mtime_ns && c->second.size == st.st_size) {
      out = c->second.record;
      return Lookup::kFound;
    }
  }
  auto record = read_record_file(path);
  if (!record || record.value().id != id) return Lookup::kUnreadable;
  out = std::make_shared<const RunRecord>(std::move(record.value()));
  std::lock_guard lock(cache_mutex_);
  if (!cache_.count(id)) {
    cache_order_.push_back(id);
    if (cache_order_.size() > kCachedRecords) {
      cache_.erase(cache_order_.front());
      cache_order_.pop_front();
    }
  }
  cache_[id] = Cached{mtime_ns, static_cast<int64_t>(st.st_size), out};
  return Lookup::kFound;
}

bool RunStore::exists(const std::string& id) const {
  std::lock_guard lock(mutex_);
  return index_.count(id) > 0;
}

RunStore::Page RunStore::list(size_t limit, const std::string& after) const {
  std::lock_guard lock(mutex_);
  Page page;
  auto it = after.empty() ? index_.begin() : index_.upper_bound(after);
  for (; it != index_.end() && page.runs.size() < limit; ++it) page.runs.push_back(it->second);
  if (it != index_.end() && !page.runs.empty()) page.next = page.runs.back().id;
  return page;
}

RunStore::CancelOutcome RunStore::cancel(const std::string& id) {
  {
    std::lock_guard lock(mutex_);
    const auto it = active_.find(id);
    if (it == active_.end())
      return index_.count(id) ? CancelOutcome::kAlreadyFinished : CancelOutcome::kNotFound;
    it->second->cancel_requested = true;
    if (it->second->record.status != "queued") return CancelOutcome::kRequested;
  }
  // Never started: final at once (the worker only takes queued runs).
  finish(id, [](RunRecord& r) {
    r.status = "cancelled";
    r.finished_at = iso8601_now();
    r.message = "cancelled";
    r.error = "cancelled by request";
  });
  return CancelOutcome::kCancelled;
}

std::optional<RunSummary> RunStore::wait_change(const std::string& id, uint64_t& version,
                                                std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  // A finished run has one event, its final summary, at version UINT64_MAX.
  constexpr uint64_t kFinal = UINT64_MAX;
  auto view = [&]() -> std::optional<RunSummary> {
    if (const auto it = active_.find(id); it != active_.end()) {
      if (it->second->version <= version) return std::nullopt;
      version = it->second->version;
      return summarize(it->second->record);
    }
    const auto s = index_.find(id);
    if (s == index_.end() || version == kFinal) return std::nullopt;
    version = kFinal;
    return s->second;
  };
  std::optional<RunSummary> out;
  changed_.wait_for(lock, timeout, [&] {
    out = view();
    return out.has_value() || stopping_ || !index_.count(id);
  });
  return out;
}

}  // namespace layoutscope::agent
