#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "layoutscope/mapping.hpp"
#include "layoutscope/parse.hpp"

namespace layoutscope::testing {

inline Layout must_parse(const std::string& text) {
  auto l = parse_layout(text);
  EXPECT_TRUE(l.ok()) << text << ": " << (l.ok() ? "" : l.error().message);
  return l.ok() ? *l : Layout{};
}

// Positions of one element as axis -> value maps (axes a layout never moves are absent, i.e. 0).
inline std::vector<std::map<std::string, int64_t>> positions(const std::string& text,
                                                             std::vector<int64_t> shape,
                                                             std::vector<int64_t> coord) {
  Layout layout = must_parse(text);
  auto m = forward_coord(layout, shape, coord);
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().message);
  std::vector<std::map<std::string, int64_t>> out;
  if (!m.ok()) return out;
  const auto axes = layout_axes(layout);
  for (const Position& p : m->positions) {
    std::map<std::string, int64_t> one;
    for (size_t a = 0; a < axes.size(); ++a) {
      if (p.values[a] != 0) one[axes[a]] = p.values[a];
    }
    out.push_back(one);
  }
  return out;
}

}  // namespace layoutscope::testing
