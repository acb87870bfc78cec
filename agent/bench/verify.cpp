#include "bench/verify.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <thread>
#include <vector>

#include "bench/random_input.hpp"

namespace layoutscope::agent {
namespace {

struct Mismatch {
  int64_t count = 0;
  int64_t first = -1;
  uint32_t expected = 0, got = 0;
};

// check(i) returns {expected bits, got bits} of flat element i; runs over [0, total) on all threads.
template <class Check>
Mismatch scan(int64_t total, Check check) {
  const int threads = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
  std::vector<Mismatch> part(threads);
  std::vector<std::thread> pool;
  const int64_t chunk = (total + threads - 1) / threads;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      const int64_t begin = t * chunk, end = std::min(total, begin + chunk);
      Mismatch& m = part[t];
      for (int64_t i = begin; i < end; ++i) {
        const auto [want, got] = check(i);
        if (want != got) {
          if (m.count++ == 0) m.first = i, m.expected = want, m.got = got;
        }
      }
    });
  }
  for (auto& th : pool) th.join();
  Mismatch all;
  for (const auto& m : part) {  // chunks are in index order: the first with a mismatch holds the first
    if (m.count && all.first < 0) all.first = m.first, all.expected = m.expected, all.got = m.got;
    all.count += m.count;
  }
  return all;
}

}  // namespace

Verification verify_aos_soa(std::span<const float> data, bool soa, int64_t n, int touch_fields,
                            uint64_t seed) {
  const int64_t total = n * 8;
  const Mismatch m = scan(total, [&](int64_t flat) {
    return std::pair{float_bits(expected_field(seed, flat, touch_fields)),
                     float_bits(data[field_offset(soa, n, flat)])};
  });
  Verification v;
  v.checked = total;
  v.mismatches = m.count;
  v.passed = m.count == 0 && static_cast<int64_t>(data.size()) == total;
  v.method = "one launch on random input (splitmix64, seed " + std::to_string(seed) +
             "); every field compared bit-exact: touched fields = input + 1.0f, others unchanged";
  if (m.count) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "element %" PRId64 " field %" PRId64 ": expected 0x%08x, got 0x%08x",
                  m.first / 8, m.first % 8, m.expected, m.got);
    v.first_mismatch = buf;
  }
  return v;
}

Verification verify_transpose(std::span<const float> out, int64_t dim, bool transposed, uint64_t seed) {
  const int64_t total = dim * dim;
  const Mismatch m = scan(total, [&](int64_t flat) {
    const int64_t r = flat / dim, c = flat % dim;
    const int64_t src = transposed ? c * dim + r : flat;
    return std::pair{float_bits(random_input(seed, static_cast<uint64_t>(src))), float_bits(out[flat])};
  });
  Verification v;
  v.checked = total;
  v.mismatches = m.count;
  v.passed = m.count == 0 && static_cast<int64_t>(out.size()) == total;
  v.method = std::string("random input (splitmix64, seed ") + std::to_string(seed) +
             "), output poisoned with 0xffffffff, every element compared bit-exact with " +
             (transposed ? "in(c, r)" : "in(r, c)");
  if (m.count) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "out(%" PRId64 ", %" PRId64 "): expected 0x%08x, got 0x%08x",
                  m.first / dim, m.first % dim, m.expected, m.got);
    v.first_mismatch = buf;
  }
  return v;
}

}  // namespace layoutscope::agent
