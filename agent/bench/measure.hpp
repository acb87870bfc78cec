// The sampling loop shared by both backends (after NVBench): warm-up launches, then samples,
// each preceded by a cache flush in cold mode, with a cancellation check between samples. The backend
// supplies flush() (outside the timed region), launch() (untimed, warm-up), timed() -> seconds, and
// clock() -> ClockReading taken right after each sample (NVML SM clock and throttle reasons, or the clock
// kernel; the CPU backend answers nothing). A throttled sample is dropped and counted.
//
// Stop rule: `repetitions` > 0 keeps exactly that many samples. Otherwise: at least `min_samples`, then stop
// as soon as the relative IQR of the kept samples is <= `noise` ("noise"), or `max_time_s` has passed since
// the first sample ("time_limit"), or `max_samples` were kept ("max_samples"). A device that throttles for
// ever cannot hold the job: after 10 x max_time_s (or 10 x repetitions attempts) the loop ends with what it
// has ("throttled" when samples were dropped, "time_limit" when they were only slow).
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

#include "bench/benchmark.hpp"
#include "bench/stats.hpp"

namespace layoutscope::agent {

inline double relative_iqr(std::vector<double> x) {
  if (x.size() < 2) return 1.0;
  std::sort(x.begin(), x.end());
  const double med = quantile_sorted(x, 0.5);
  return med > 0 ? (quantile_sorted(x, 0.75) - quantile_sorted(x, 0.25)) / med : 1.0;
}

template <class Flush, class Launch, class Timed, class Clock>
TimingSummary sample(const Sampling& s, RunControl& ctl, Flush flush, Launch launch, Timed timed, Clock clock,
                     const std::string& clock_source) {
  for (int i = 0; i < s.warmup; ++i) launch();
  std::vector<double> samples, clocks;
  int dropped = 0;
  std::string stop;
  const auto t0 = std::chrono::steady_clock::now();
  const bool fixed = s.repetitions > 0;
  for (int attempt = 0;; ++attempt) {
    if (ctl.cancelled()) throw Cancelled{};
    if (s.cache == CacheMode::kCold) flush();
    const double t = timed();
    const ClockReading c = clock();
    if (c.throttled) {
      ++dropped;
    } else {
      samples.push_back(t);
      if (c.sm_clock_hz) clocks.push_back(*c.sm_clock_hz);
    }
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const int kept = static_cast<int>(samples.size());
    if (fixed) {
      if (kept >= s.repetitions) {
        stop = "repetitions";
        break;
      }
      if (attempt >= 10 * s.repetitions && kept > 0) {
        stop = "throttled";
        break;
      }
      continue;
    }
    if (kept >= s.max_samples) {
      stop = "max_samples";
      break;
    }
    if (kept >= s.min_samples && relative_iqr(samples) <= s.noise) {
      stop = "noise";
      break;
    }
    if (kept >= s.min_samples && elapsed >= s.max_time_s) {
      stop = "time_limit";
      break;
    }
    if (elapsed >= 10 * s.max_time_s && kept > 0) {
      // Only dropped samples make this "throttled"; samples that are merely slow ran out of time.
      stop = dropped > 0 ? "throttled" : "time_limit";
      break;
    }
  }
  TimingSummary out = summarize(std::move(samples));
  out.sm_clock_hz = std::move(clocks);
  out.throttled_dropped = dropped;
  out.clock_source = clock_source;
  out.stop_reason = stop;
  return out;
}

}  // namespace layoutscope::agent
