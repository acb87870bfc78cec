// The sampling loop shared by both backends: warm-up launches, then `repetitions` samples, each preceded
// by a cache flush in cold mode, and a cancellation check between samples. The backend supplies three
// callables: flush() (outside the timed region), launch() (untimed, warm-up), timed() -> seconds.
#pragma once

#include <vector>

#include "benchmark.hpp"
#include "stats.hpp"

namespace layoutscope::agent {

template <class Flush, class Launch, class Timed>
TimingSummary sample(const Sampling& s, RunControl& ctl, Flush flush, Launch launch, Timed timed) {
  for (int i = 0; i < s.warmup; ++i) launch();
  std::vector<double> samples;
  samples.reserve(static_cast<size_t>(s.repetitions));
  for (int i = 0; i < s.repetitions; ++i) {
    if (ctl.cancelled()) throw Cancelled{};
    if (s.cache == CacheMode::kCold) flush();
    samples.push_back(timed());
  }
  return summarize(std::move(samples));
}

}  // namespace layoutscope::agent
