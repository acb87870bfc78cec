// The loaded-kernel cache's bounds (agent/backends/cuda/loaded_cache.hpp): at most N entries and B bytes, the
// least recently used evicted first, and an entry still held by a run never unloaded (its deleter, the
// unload, runs when the last holder lets go). A fake "module" counts its unloads; no GPU needed.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "backends/cuda/loaded_cache.hpp"

namespace layoutscope::agent {
namespace {

struct Module {
  std::string name;
};

// Modules whose deleter records the unload, as KernelCache's does with cudaLibraryUnload.
struct Loader {
  int unloads = 0;
  std::shared_ptr<const Module> load(const std::string& name) {
    return std::shared_ptr<const Module>(new Module{name}, [this](const Module* m) {
      ++unloads;
      delete m;
    });
  }
};

TEST(LoadedCache, KeepsAtMostMaxEntriesEvictingTheLeastRecentlyUsed) {
  Loader l;
  LoadedCache<std::string, Module> c(2, 1 << 20);
  c.insert("a", l.load("a"), 10);
  c.insert("b", l.load("b"), 10);
  ASSERT_NE(c.find("a"), nullptr);  // a is now more recent than b
  c.insert("c", l.load("c"), 10);
  EXPECT_EQ(c.size(), 2u);
  EXPECT_EQ(c.find("b"), nullptr);
  ASSERT_NE(c.find("a"), nullptr);
  EXPECT_EQ(c.find("a")->name, "a");
  EXPECT_NE(c.find("c"), nullptr);
  EXPECT_EQ(c.evictions(), 1);
  EXPECT_EQ(l.unloads, 1);  // b, held by no one
}

TEST(LoadedCache, KeepsAtMostMaxBytes) {
  Loader l;
  LoadedCache<std::string, Module> c(100, 100);
  c.insert("a", l.load("a"), 60);
  c.insert("b", l.load("b"), 30);
  EXPECT_EQ(c.bytes(), 90);
  c.insert("c", l.load("c"), 50);  // 140 > 100: a (the oldest) goes, 80 remain
  EXPECT_EQ(c.find("a"), nullptr);
  EXPECT_NE(c.find("b"), nullptr);
  EXPECT_NE(c.find("c"), nullptr);
  EXPECT_EQ(c.bytes(), 80);
  EXPECT_EQ(c.size(), 2u);
}

TEST(LoadedCache, AnEntryInUseIsNotUnloadedUntilReleased) {
  Loader l;
  LoadedCache<std::string, Module> c(1, 1 << 20);
  std::shared_ptr<const Module> held = c.insert("a", l.load("a"), 10);
  c.insert("b", l.load("b"), 10);  // evicts a from the cache
  EXPECT_EQ(c.find("a"), nullptr);
  EXPECT_EQ(l.unloads, 0);  // still held by the run
  EXPECT_EQ(held->name, "a");
  held.reset();
  EXPECT_EQ(l.unloads, 1);
}

TEST(LoadedCache, AnEntryLargerThanTheBoundIsHandedBackButNotKept) {
  Loader l;
  LoadedCache<std::string, Module> c(4, 100);
  c.insert("small", l.load("small"), 10);
  auto big = c.insert("big", l.load("big"), 101);
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(big->name, "big");
  EXPECT_EQ(c.find("big"), nullptr);
  EXPECT_NE(c.find("small"), nullptr);  // nothing evicted for it
  EXPECT_EQ(c.bytes(), 10);
  big.reset();
  EXPECT_EQ(l.unloads, 1);
}

TEST(LoadedCache, ReplacingAKeyCountsItsBytesOnce) {
  Loader l;
  LoadedCache<std::string, Module> c(4, 100);
  c.insert("a", l.load("a1"), 40);
  c.insert("a", l.load("a2"), 50);
  EXPECT_EQ(c.size(), 1u);
  EXPECT_EQ(c.bytes(), 50);
  EXPECT_EQ(c.find("a")->name, "a2");
  EXPECT_EQ(l.unloads, 1);
}

TEST(LoadedCache, EveryEntryIsUnloadedWithTheCache) {
  Loader l;
  {
    LoadedCache<std::string, Module> c(4, 100);
    c.insert("a", l.load("a"), 1);
    c.insert("b", l.load("b"), 1);
  }
  EXPECT_EQ(l.unloads, 2);
}

}  // namespace
}  // namespace layoutscope::agent
