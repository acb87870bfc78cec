// Which devices are taken, and by what: a request being checked (a claim) or a run, queued or running,
// which holds every device it uses (a reshard over four GPUs holds all four). One run per device at a time:
// a device any holder has is busy for everyone else. A plain value guarded by the run store's lock.
//
//   DeviceHolds h;
//   h.claim({0});                  // true: a request for device 0 is being checked
//   h.claim({0, 1, 2, 3});         // true: the checked request turned out to be a reshard over 4 devices
//   h.assign({0, 1, 2, 3}, "r1");  // the claim becomes run r1's; its worker is device 0's (primary 0)
//   h.taken({1})                   // {device 1, "r1"}: a run on device 1 gets 409 while r1 runs
//   h.finish("r1");                // every device of r1 is free again
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace layoutscope::agent {

class DeviceHolds {
 public:
  struct Holder {
    int device = 0;
    std::string run_id;  // empty: a request being checked holds it
  };

  // The first of `devices` that is taken, by a run or by a claim other than `mine` (devices the caller
  // claimed itself), or nothing.
  std::optional<Holder> taken(const std::vector<int>& devices, const std::set<int>& mine = {}) const {
    for (int d : devices) {
      if (const auto r = runs_.find(d); r != runs_.end()) return Holder{d, r->second};
      if (claimed_.count(d) && !mine.count(d)) return Holder{d, ""};
    }
    return std::nullopt;
  }

  // Claims every device of `devices` not in `mine` (devices the caller claimed already), all or none:
  // false, and nothing claimed, when one of them is taken.
  bool claim(const std::vector<int>& devices, const std::set<int>& mine = {}) {
    if (taken(devices, mine)) return false;
    for (int d : devices) claimed_.insert(d);
    return true;
  }

  // A dropped claim (the request was refused): its devices are free again.
  void release(const std::set<int>& devices) {
    for (int d : devices) claimed_.erase(d);
  }

  // The claimed devices become run `id`'s until finish(id).
  void assign(const std::set<int>& devices, const std::string& id) {
    for (int d : devices) {
      claimed_.erase(d);
      runs_[d] = id;
    }
  }

  // The run on `device`, if any.
  std::optional<std::string> run_on(int device) const {
    const auto r = runs_.find(device);
    if (r == runs_.end()) return std::nullopt;
    return r->second;
  }

  void finish(const std::string& id) {
    for (auto it = runs_.begin(); it != runs_.end();) it = it->second == id ? runs_.erase(it) : std::next(it);
  }

 private:
  std::set<int> claimed_;
  std::map<int, std::string> runs_;
};

}  // namespace layoutscope::agent
