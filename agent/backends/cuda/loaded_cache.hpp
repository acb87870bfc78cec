// A cache of loaded things bounded in entries and in bytes, the least recently used evicted first: the CUDA
// backend keeps its NVRTC-compiled, loaded kernels in one (nvrtc.hpp's KernelCache). It knows nothing of
// CUDA, so its logic is tested on any machine (tests/agent/kernel_cache_test.cpp).
//
//   LoadedCache<std::string, Module> cache(/*max_entries=*/256, /*max_bytes=*/256 << 20);
//   auto m = cache.find("key");                         // null when absent; else the most recently used now
//   if (!m) m = cache.insert("key", load(), bytes);     // may evict others
//   launch(*m);                                         // m holds it: never unloaded while held
//
// Entries are shared_ptr: eviction drops only the cache's reference, so an evicted entry that a run still
// holds stays alive (loaded) until its last holder lets go, and its deleter (the unload) runs then. An entry
// larger than max_bytes alone is handed back to the caller but not kept. Not thread-safe: the owner locks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <utility>

namespace layoutscope::agent {

template <class Key, class Value>
class LoadedCache {
 public:
  using Ptr = std::shared_ptr<const Value>;

  LoadedCache(size_t max_entries, int64_t max_bytes) : max_entries_(max_entries), max_bytes_(max_bytes) {}

  // The entry of `key` (now the most recently used), or null.
  Ptr find(const Key& key) {
    const auto it = entries_.find(key);
    if (it == entries_.end()) return nullptr;
    order_.splice(order_.begin(), order_, it->second.place);
    return it->second.value;
  }

  // Keeps `value` (of `bytes`) under `key` as the most recently used entry, evicting the least recently used
  // ones until both bounds hold; an existing entry of `key` is replaced. Returns `value`.
  Ptr insert(const Key& key, Ptr value, int64_t bytes) {
    erase(key);
    if (bytes > max_bytes_ || max_entries_ == 0) return value;
    while (!order_.empty() && (entries_.size() + 1 > max_entries_ || bytes_ + bytes > max_bytes_)) {
      const Key oldest = order_.back();
      erase(oldest);
      ++evictions_;
    }
    order_.push_front(key);
    entries_.emplace(key, Entry{value, bytes, order_.begin()});
    bytes_ += bytes;
    return value;
  }

  size_t size() const { return entries_.size(); }
  int64_t bytes() const { return bytes_; }
  int64_t evictions() const { return evictions_; }

 private:
  struct Entry {
    Ptr value;
    int64_t bytes = 0;
    typename std::list<Key>::iterator place;
  };

  void erase(const Key& key) {
    const auto it = entries_.find(key);
    if (it == entries_.end()) return;
    bytes_ -= it->second.bytes;
    order_.erase(it->second.place);
    entries_.erase(it);
  }

  size_t max_entries_;
  int64_t max_bytes_;
  int64_t bytes_ = 0;
  int64_t evictions_ = 0;
  std::list<Key> order_;  // most recently used first
  std::map<Key, Entry> entries_;
};

}  // namespace layoutscope::agent
