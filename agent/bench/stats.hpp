// Order statistics of timing samples. Quartiles use linear interpolation between closest ranks
// (Hyndman & Fan type 7, the default of NumPy's percentile and R's quantile):
//   q(p) = x[floor(h)] + (h - floor(h)) * (x[floor(h) + 1] - x[floor(h)]),  h = (n - 1) * p, x sorted.
//   samples {4, 1, 3, 2}: median 2.5, q1 1.75, q3 3.25.
#pragma once

#include <vector>

#include "bench/benchmark.hpp"

namespace layoutscope::agent {

double quantile_sorted(const std::vector<double>& sorted, double p);
TimingSummary summarize(std::vector<double> samples_s);

}  // namespace layoutscope::agent
