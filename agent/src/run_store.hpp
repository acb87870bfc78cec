// Runs are jobs on a queue: one worker thread per device runs one job at a time; a second submission for
// a busy device is refused (the API answers 409 + Retry-After). Every state change of a run is written
// atomically (temporary file, fsync, rename, fsync of the folder) as <results-dir>/<id>.json, so a restart
// lists the history again; a run that was queued or running when the agent stopped comes back as
// "interrupted".
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <filesystem>
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

#include "benchmark.hpp"
#include "params.hpp"

namespace layoutscope::agent {

std::string iso8601_now();

// A run id is 1-64 of [A-Za-z0-9-] (new_run_id makes "20261120T123456Z-1a2b3c4d"; the /v1/runs/{id} routes
// match the same alphabet): safe as a file name in the results folder and in a URL.
bool valid_run_id(const std::string& id);

class RunStore {
 public:
  RunStore(std::filesystem::path dir, Backend& backend);
  ~RunStore();
  RunStore(const RunStore&) = delete;
  RunStore& operator=(const RunStore&) = delete;

  // Reads the results folder; files it cannot parse are skipped and reported in the returned list.
  std::vector<std::string> load();

  struct Busy {
    int retry_after_s;
    std::string running_id;  // empty: another request for the device is being checked (see Claim)
  };

  // A request holds its device while it is checked, because the bounds check asks the device's free memory: a
  // run started in between would shrink it and turn "busy" (409) into "too large" (422). While a claim lives,
  // the device is busy for every other request (claim() answers Busy, with a Retry-After estimate from the
  // running job's progress); submit() turns the claim into the queued run; a dropped claim frees the device.
  class Claim {
   public:
    Claim(Claim&& other) noexcept : store_(std::exchange(other.store_, nullptr)), device_(other.device_) {}
    Claim(const Claim&) = delete;
    Claim& operator=(const Claim&) = delete;
    Claim& operator=(Claim&&) = delete;
    ~Claim();

   private:
    friend class RunStore;
    Claim(RunStore* store, int device) : store_(store), device_(device) {}
    RunStore* store_;
    int device_;
  };
  std::variant<Claim, Busy> claim(int device);
  // Queues the request on the claimed device (request.device must be the claimed one) and returns the run id.
  // The claim guarantees the device is free: only submit() queues, and only with a claim.
  std::string submit(Claim claim, RunRequest request);

  std::optional<nlohmann::json> get(const std::string& id) const;  // the full record
  nlohmann::json list() const;                                     // summaries, oldest first

  enum class CancelOutcome { kCancelled, kRequested, kNotFound, kAlreadyFinished };
  CancelOutcome cancel(const std::string& id);

  // Progress stream: waits until the record's version exceeds `version` (or timeout); returns the
  // progress view and updates `version`, nothing on timeout, or {"missing": true} for an unknown id.
  std::optional<nlohmann::json> wait_change(const std::string& id, uint64_t& version,
                                            std::chrono::milliseconds timeout) const;
  static bool terminal(const std::string& status);
  bool stopping() const;
  void shutdown();

 private:
  struct Run {
    nlohmann::json record;  // id, benchmark, device, status, times, progress, message, error, request, result
    RunRequest request;
    uint64_t version = 1;
    bool cancel_requested = false;
    std::chrono::steady_clock::time_point started{};
  };
  class Control;

  std::optional<Busy> busy_locked(int device) const;
  void worker(int device);
  void execute(const std::string& id);
  void persist(const nlohmann::json& record) const;  // caller holds no lock requirement; writes atomically
  void update(const std::string& id, const std::function<void(Run&)>& change, bool write);

  std::filesystem::path dir_;
  Backend& backend_;
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::map<std::string, std::shared_ptr<Run>> runs_;
  std::map<int, std::deque<std::string>> queues_;  // per device: the job waiting or running (at most one)
  std::map<int, std::string> running_;
  std::set<int> claimed_;  // devices whose next request is being checked
  std::vector<std::thread> workers_;
  bool stopping_ = false;
  mutable std::mutex write_mutex_;
};

}  // namespace layoutscope::agent
