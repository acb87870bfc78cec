#include "bench/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace layoutscope::agent {

double quantile_sorted(const std::vector<double>& x, double p) {
  if (x.empty()) return 0;
  const double h = (static_cast<double>(x.size()) - 1) * p;
  const auto lo = static_cast<size_t>(std::floor(h));
  const size_t hi = std::min(lo + 1, x.size() - 1);
  return x[lo] + (h - static_cast<double>(lo)) * (x[hi] - x[lo]);
}

TimingSummary summarize(std::vector<double> samples_s) {
  TimingSummary s;
  s.samples = static_cast<int>(samples_s.size());
  s.samples_s = samples_s;
  if (samples_s.empty()) return s;
  std::sort(samples_s.begin(), samples_s.end());
  s.median_s = quantile_sorted(samples_s, 0.5);
  s.q1_s = quantile_sorted(samples_s, 0.25);
  s.q3_s = quantile_sorted(samples_s, 0.75);
  s.min_s = samples_s.front();
  s.max_s = samples_s.back();
  s.mean_s = std::accumulate(samples_s.begin(), samples_s.end(), 0.0) / static_cast<double>(samples_s.size());
  double ss = 0;
  for (double x : samples_s) ss += (x - s.mean_s) * (x - s.mean_s);
  s.stdev_s = samples_s.size() > 1 ? std::sqrt(ss / static_cast<double>(samples_s.size() - 1)) : 0.0;
  return s;
}

}  // namespace layoutscope::agent
