// Runs are jobs on a queue: one worker thread per device runs one job at a time; a second submission for
// a busy device is refused (the API answers 409 + Retry-After). Every state change of a run is written
// atomically (a new temporary file opened O_EXCL | O_NOFOLLOW, fsync, rename, fsync of the folder) as
// <results-dir>/<id>.json, so a restart lists the history again; a run that was queued or running when the
// agent stopped comes back as "interrupted". Memory holds the queued and running records and a summary per
// run (about 200 bytes); finished records are read from their files when asked for.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

#include "bench/benchmark.hpp"
#include "bench/request/params.hpp"
#include "jobs/clock.hpp"
#include "jobs/device_holds.hpp"
#include "jobs/fault_injection.hpp"
#include "jobs/run_record.hpp"
#include "layoutscope/result.hpp"

namespace layoutscope::agent {

class RunStore {
 public:
  RunStore(std::filesystem::path dir, Backend& backend);
  ~RunStore();
  RunStore(const RunStore&) = delete;
  RunStore& operator=(const RunStore&) = delete;

  // Reads the results folder: removes stale temporary files, indexes every valid record, and skips (and
  // lists, see skipped()) anything else: directories, links, files over kMaxRecordBytes, JSON deeper than
  // kMaxRecordDepth, records with missing or mistyped fields.
  // The agent listens while it loads: until load() returns, loading() says so (/readyz answers 503).
  std::vector<std::string> load();
  std::optional<std::string> loading() const;
  std::vector<std::string> skipped() const;

  static constexpr size_t kMaxRecordBytes = agent::kMaxRecordBytes;
  static constexpr int kMaxRecordDepth = agent::kMaxRecordDepth;

  struct Busy {
    int retry_after_s;
    std::string running_id;  // empty: another request for the device is being checked (see Claim)
    int device = 0;          // the busy device
  };

  // A request holds its device while it is checked, because the bounds check asks the device's free memory: a
  // run started in between would shrink it and turn "busy" (409) into "too large" (422). While a claim lives,
  // the device is busy for every other request (claim() answers Busy, with a Retry-After estimate from the
  // running job's progress); submit() turns the claim into the queued run; a dropped claim frees the device.
  // A run over several devices (a reshard) extends its claim to all of them once the request says which,
  // and its run then holds them all until it finishes.
  class Claim {
   public:
    Claim(Claim&& other) noexcept
        : store_(std::exchange(other.store_, nullptr)), device_(other.device_), devices_(other.devices_) {}
    Claim(const Claim&) = delete;
    Claim& operator=(const Claim&) = delete;
    Claim& operator=(Claim&&) = delete;
    ~Claim();

   private:
    friend class RunStore;
    Claim(RunStore* store, int device) : store_(store), device_(device), devices_{device} {}
    RunStore* store_;
    int device_;             // the primary: the run's device, whose worker runs it
    std::set<int> devices_;  // every device held, the primary among them
  };
  std::variant<Claim, Busy> claim(int device);
  // Adds `devices` to the claim, all or none: Busy (naming the first taken device's run) when one of them is
  // taken, and then the claim is as before.
  std::optional<Busy> extend(Claim& claim, const std::vector<int>& devices);
  // Queues the request on the claimed device (request.device must be the claimed one) and returns the run id,
  // once its first record is on disk; an error naming the results folder when that record cannot be written.
  // The claim guarantees the device is free: only submit() queues, and only with a claim.
  Result<std::string> submit(Claim claim, RunRequest request);

  // Why the results folder cannot take a record now (less than kMinFreeBytes free, not writable, or the
  // last write failed and a probe write fails too); nothing when it can. A record write that fails fails its
  // run (status "failed", the error naming the folder): no run is reported finished without its record.
  std::optional<std::string> unwritable() const;
  static constexpr uint64_t kMinFreeBytes = 256 << 10;
  // Test-only (--test-endpoints): a fault armed in the next record writes (fault_injection.hpp).
  RecordWriteFault& write_fault() { return write_fault_; }

  // The full record: from memory while the run is queued or running, from its file afterwards.
  // Finished records read from disk are kept in a small cache (kCachedRecords, FIFO), each checked against
  // its file's size and modification time on every use.
  enum class Lookup { kFound, kNotFound, kUnreadable };
  Lookup get(const std::string& id, std::shared_ptr<const RunRecord>& out) const;
  static constexpr size_t kCachedRecords = 32;
  static constexpr size_t kCachedBytes = 16 << 20;      // of record files; their documents are larger
  static constexpr size_t kLargeRecordBytes = 1 << 20;  // read one at a time and never cached
  bool exists(const std::string& id) const;

  // A page of the history, oldest first: at most `limit` runs whose ids sort after `after` (empty: from the
  // start); `next` is the cursor for the following page, empty after the last.
  struct Page {
    std::vector<RunSummary> runs;
    std::string next;
  };
  Page list(size_t limit, const std::string& after) const;

  enum class CancelOutcome { kCancelled, kRequested, kNotFound, kAlreadyFinished };
  CancelOutcome cancel(const std::string& id);

  // Progress stream: waits until the run changed since `version` (or timeout); returns its summary and
  // updates `version`; nothing on timeout or for an unknown id (exists() tells which).
  std::optional<RunSummary> wait_change(const std::string& id, uint64_t& version,
                                        std::chrono::milliseconds timeout) const;
  static bool terminal(const std::string& status);
  bool stopping() const;
  void shutdown();

 private:
  struct Run {
    RunRecord record;
    RunRequest request;
    uint64_t version = 1;
    bool cancel_requested = false;
    std::chrono::steady_clock::time_point started{};
  };
  class Control;

  std::optional<Busy> busy_locked(const std::vector<int>& devices, const std::set<int>& mine = {}) const;
  void worker(int device);
  void execute(const std::string& id);
  // Writes atomically and durably (file and folder synced); the reason (logged) when it could not.
  std::optional<std::string> persist(const RunRecord& record) const;
  static constexpr const char* kProbeId = "readiness-probe";
  void update(const std::string& id, const std::function<void(Run&)>& change, bool write);
  // The run's final state: written to disk, then (under one lock) visible, out of memory and its device free.
  void finish(const std::string& id, const std::function<void(RunRecord&)>& change);

  std::filesystem::path dir_;
  Backend& backend_;
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::map<std::string, RunSummary> index_;             // every run, by id (ids sort by creation time)
  std::map<std::string, std::shared_ptr<Run>> active_;  // queued or running: the full record
  DeviceHolds holds_;  // per device: the request being checked, or the run waiting or running on it
  std::vector<std::string> skipped_;
  struct Cached {
    int64_t mtime_ns = 0, size = 0;
    std::shared_ptr<const RunRecord> record;
  };
  mutable std::mutex cache_mutex_;
  mutable std::map<std::string, Cached> cache_;  // finished records, read from their files
  mutable std::deque<std::string> cache_order_;  // FIFO eviction
  mutable size_t cache_bytes_ = 0;
  mutable std::mutex large_read_mutex_;
  std::atomic<bool> loading_{false};
  // Finished runs whose record could not be written even without its result: served from here.
  std::map<std::string, std::shared_ptr<const RunRecord>> unwritten_;
  std::vector<std::thread> workers_;
  bool stopping_ = false;
  mutable std::mutex write_mutex_;
  mutable std::atomic<bool> last_write_failed_{false};
  mutable RecordWriteFault write_fault_;
};

}  // namespace layoutscope::agent
