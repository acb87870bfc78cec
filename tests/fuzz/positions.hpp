// What the fuzz targets compare two layouts by: every element's set of positions over a small table.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "layoutscope/mapping.hpp"

namespace layoutscope::fuzz {

// Every element's set of positions (zero values dropped), in element order; empty when the table has more
// than `limit` cells.
inline std::vector<std::vector<std::pair<std::string, int64_t>>> positions(const Layout& l,
                                                                           const std::vector<int64_t>& shape,
                                                                           int64_t limit) {
  std::vector<std::vector<std::pair<std::string, int64_t>>> out;
  auto t = table(l, shape, limit);
  if (!t) return out;
  const size_t axes = t->axes.size();
  for (int64_t x = 0; x < t->elements; ++x) {
    std::vector<std::vector<std::pair<std::string, int64_t>>> set;
    for (int64_t r = 0; r < t->replicas; ++r) {
      std::vector<std::pair<std::string, int64_t>> p;
      for (size_t a = 0; a < axes; ++a) {
        const int64_t v = t->values[static_cast<size_t>(x * t->replicas + r) * axes + a];
        if (v != 0) p.emplace_back(t->axes[a], v);
      }
      std::sort(p.begin(), p.end());
      set.push_back(p);
    }
    std::sort(set.begin(), set.end());
    set.erase(std::unique(set.begin(), set.end()), set.end());
    for (auto& p : set) out.push_back(std::move(p));
    out.push_back({{"|", x}});
  }
  return out;
}

}  // namespace layoutscope::fuzz
