#include "jobs/run_store.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

#include "bench/printers/results.hpp"
#include "bench/request/json_depth.hpp"
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

}  // namespace

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
  loading_ = true;
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
    if (name == std::string(kProbeId) + ".json") {  // a readiness probe left by a kill
      ::unlink(p.c_str());
      continue;
    }
    if (p.extension() != ".json" || name.front() == '.') continue;
    auto read = read_run_record_file(p);
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
      if (auto why = persist(record)) problems.push_back(*why);
    }
    std::lock_guard lock(mutex_);
    index_[record.id] = summarize(record);
  }
  if (ec) problems.push_back(dir_.string() + ": cannot list the folder: " + ec.message());
  std::lock_guard lock(mutex_);
  skipped_ = problems;
  loading_ = false;
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

Result<std::string> RunStore::submit(Claim claim, RunRequest request) {
  if (claim.store_ != this || claim.device_ != request.device)
    throw std::logic_error("RunStore::submit: the request's device is not the claimed one");
  RunRecord record;
  record.id = new_run_id();
  record.benchmark = request.benchmark;
  record.device = request.device;
  record.backend = backend_.kind();
  record.status = "queued";
  record.created_at = iso8601_now();
  record.message = "queued";
  record.request = request.resolved;
  // On disk before it is accepted: a run the folder cannot take is refused (the claim, dropped, frees the
  // device), never queued to be lost.
  if (auto why = persist(record)) return make_error(*why, 0, "results_dir");
  {
    std::lock_guard lock(mutex_);
    claim.store_ = nullptr;  // handed to the run here, under the same lock that queues it
    auto run = std::make_shared<Run>();
    run->record = record;
    run->request = std::move(request);
    active_[record.id] = run;
    index_[record.id] = summarize(record);
    holds_.assign(claim.devices_, record.id);
  }
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
  if (auto why = persist(running)) {  // a run whose start cannot be recorded does not start
    finish(id, [&](RunRecord& r) {
      r.status = "failed";
      r.finished_at = iso8601_now();
      r.message = "failed";
      r.error = *why;
    });
    return;
  }

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
  bool on_disk = true;
  if (auto why = persist(final_record)) {
    // Nothing reads "succeeded" unless its record is on disk: the run fails, naming the folder, and the
    // smaller record (no result) is tried once more. Failing that, memory keeps it until the agent stops.
    final_record.status = "failed";
    final_record.message = "failed";
    final_record.error = *why + "; the run's result is lost";
    final_record.result = nullptr;
    on_disk = !persist(final_record).has_value();
  }
  {
    std::lock_guard lock(mutex_);
    index_[id] = summarize(final_record);
    if (!on_disk) unwritten_[id] = std::make_shared<const RunRecord>(final_record);
    active_.erase(id);
    holds_.finish(id);
  }
  changed_.notify_all();
}

std::optional<std::string> RunStore::persist(const RunRecord& record) const {
  std::lock_guard lock(write_mutex_);
  const fs::path final_path = dir_ / (record.id + ".json");
  const fs::path tmp = dir_ / ("." + record.id + ".json.tmp");
  const std::string text = run_record_json(record).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
  // What went wrong, naming the folder (the disk a user has to look at) and the system's reason.
  auto failed = [&](const char* step) {
    const std::string why = std::strerror(errno);
    std::string message = "the results folder " + dir_.string() + " cannot take the record of run " +
                          record.id + " (" + step + ": " + why + ")";
    std::fprintf(stderr, "layoutscope-agent: %s\n", message.c_str());
    last_write_failed_ = true;
    return std::optional<std::string>(std::move(message));
  };
  // A new file, never an existing one or a link's target: whatever sits at the temporary name (a planted
  // link, a file left by a kill) is removed (unlink does not follow links) and the name created afresh.
  constexpr int kFlags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
  int fd = -1;
  if (write_fault_.pass(WriteStep::kOpen)) {
    fd = ::open(tmp.c_str(), kFlags, 0644);
    if (fd < 0 && errno == EEXIST && ::unlink(tmp.c_str()) == 0) fd = ::open(tmp.c_str(), kFlags, 0644);
  }
  if (fd < 0) return failed("create");
  const char* step = nullptr;
  if (!write_fault_.pass(WriteStep::kWrite) || !write_all(fd, text))
    step = "write";
  else if (!write_fault_.pass(WriteStep::kFsync) || ::fsync(fd) != 0)
    step = "fsync";
  else if (::close(std::exchange(fd, -1)) != 0)
    step = "close";
  else if (!write_fault_.pass(WriteStep::kRename) || std::rename(tmp.c_str(), final_path.c_str()) != 0)
    step = "rename";
  if (step) {
    const int saved = errno;
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());
    errno = saved;
    return failed(step);
  }
  // The rename itself is durable only once the folder is synced: until then the record is not on disk.
  const int dfd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  const bool synced = dfd >= 0 && write_fault_.pass(WriteStep::kFolderSync) && ::fsync(dfd) == 0;
  const int saved = errno;
  if (dfd >= 0) ::close(dfd);
  errno = saved;
  if (!synced) return failed("folder fsync");
  last_write_failed_ = false;
  return std::nullopt;
}

std::optional<std::string> RunStore::loading() const {
  if (!loading_) return std::nullopt;
  std::lock_guard lock(mutex_);
  return "reading the results history in " + dir_.string() + " (" + std::to_string(index_.size()) +
         " runs so far)";
}

std::optional<std::string> RunStore::unwritable() const {
  // Room for a record: a typical record is a few KiB, one with many states some hundreds.
  struct statvfs vfs {};
  if (::statvfs(dir_.c_str(), &vfs) != 0)
    return "the results folder " + dir_.string() + " cannot be examined: " + std::strerror(errno);
  const uint64_t free_bytes = static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize;
  if (free_bytes < kMinFreeBytes)
    return "the results folder " + dir_.string() + " has " + std::to_string(free_bytes) +
           " bytes free, less than the " + std::to_string(kMinFreeBytes) + " a record may need";
  if (::access(dir_.c_str(), W_OK) != 0)
    return "the results folder " + dir_.string() + " is not writable: " + std::strerror(errno);
  if (!last_write_failed_) return std::nullopt;
  // The last record write failed: a probe record (written, synced, removed) tells whether it would now.
  RunRecord probe;
  probe.id = kProbeId;
  probe.status = "failed";
  probe.message = std::string(4096, ' ');
  if (auto why = persist(probe)) return why;
  ::unlink((dir_ / (std::string(kProbeId) + ".json")).c_str());
  return std::nullopt;
}

RunStore::Lookup RunStore::get(const std::string& id, std::shared_ptr<const RunRecord>& out) const {
  {
    std::lock_guard lock(mutex_);
    if (const auto it = active_.find(id); it != active_.end()) {
      out = std::make_shared<const RunRecord>(it->second->record);
      return Lookup::kFound;
    }
    if (const auto it = unwritten_.find(id); it != unwritten_.end()) {
      out = it->second;
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
  // A parsed document is several times its file: large records are read one at a time, so that concurrent
  // GETs of crafted 16 MiB records cannot multiply that.
  std::unique_lock<std::mutex> one_large;
  if (static_cast<size_t>(st.st_size) > kLargeRecordBytes) one_large = std::unique_lock(large_read_mutex_);
  auto record = read_run_record_file(path);
  if (!record || record.value().id != id) return Lookup::kUnreadable;
  out = std::make_shared<const RunRecord>(std::move(record.value()));
  if (static_cast<size_t>(st.st_size) > kLargeRecordBytes) return Lookup::kFound;  // never cached
  std::lock_guard lock(cache_mutex_);
  if (const auto old = cache_.find(id); old != cache_.end()) {
    cache_bytes_ -= static_cast<size_t>(old->second.size);
    cache_.erase(old);
    cache_order_.erase(std::find(cache_order_.begin(), cache_order_.end(), id));
  }
  // Bounded in entries and in bytes (of the files; their parsed documents are a few times larger).
  while (!cache_order_.empty() &&
         (cache_order_.size() + 1 > kCachedRecords || cache_bytes_ + st.st_size > kCachedBytes)) {
    const auto first = cache_.find(cache_order_.front());
    cache_bytes_ -= static_cast<size_t>(first->second.size);
    cache_.erase(first);
    cache_order_.pop_front();
  }
  cache_order_.push_back(id);
  cache_bytes_ += static_cast<size_t>(st.st_size);
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
