// What the fuzz targets compare two layouts by: every element's set of positions over a small table.
//
// The work of one input is bounded by kCompareCells: a layout whose table has more (element, holder) rows is
// not compared element by element (its export and import still run, up to kExportCells cells), so that
// no input costs more than a few milliseconds and the targets run at thousands of inputs a second. The
// comparison reuses its buffers (no allocation per element): building a text key per element, as it once did,
// cost ~40 us a row under the sanitizers and made the large inputs the fuzzer likes to keep dominate the run
// (~100 inputs/s).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "layoutscope/mapping.hpp"

namespace layoutscope::fuzz {

// Tables up to this many (element, holder) rows are compared element by element.
inline constexpr int64_t kCompareCells = 1 << 10;

// Layouts of more (element, holder) cells are not exported, so that no exporter's work grows with the table
// (tests/fuzz/corpus/regression-parse-timeout-export-self-check, 249,516 elements, once took 16 s).
inline constexpr int64_t kExportCells = 1 << 12;

// Elements of `shape` times the layout's holders (the R and P extents), or -1 when it overflows.
inline int64_t cells_of(const Layout& l, const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t e : shape)
    if (__builtin_mul_overflow(n, e, &n)) return -1;
  for (const auto* groups : {&l.replicas, &l.partials})
    for (const auto& group : *groups)
      for (const auto& m : group)
        if (__builtin_mul_overflow(n, std::max<int64_t>(m.extent, 1), &n)) return -1;
  return n;
}

// The table of `l` over `shape`, or nothing when it has more than kCompareCells rows or does not evaluate.
inline std::optional<Table> small_table(const Layout& l, const std::vector<int64_t>& shape) {
  auto t = table(l, shape, kCompareCells);
  if (!t || t->elements * t->holders() > kCompareCells) return std::nullopt;
  return std::move(t).value();
}

// Whether two tables hold the same positions: the same elements, and for each element the same set of
// holder positions (duplicates counted once), an axis that one table lacks read as 0 in it. Each position is
// compared by a 64-bit hash of its values in axis-name order (a false "same" has odds of about 2^-64 per
// pair), so one element's holders sort as integers.
inline bool same_positions(const Table& a, const Table& b) {
  if (a.elements != b.elements) return false;
  std::vector<std::string> names = a.axes;
  for (const auto& n : b.axes)
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  std::sort(names.begin(), names.end());
  auto columns = [&](const Table& t) {  // for each of `names`, its column in t, or -1
    std::vector<int64_t> out;
    for (const auto& n : names) {
      const auto it = std::find(t.axes.begin(), t.axes.end(), n);
      out.push_back(it == t.axes.end() ? -1 : it - t.axes.begin());
    }
    return out;
  };
  const std::vector<int64_t> ca = columns(a), cb = columns(b);
  std::vector<uint64_t> ha, hb;
  auto hashes = [](const Table& t, const std::vector<int64_t>& cols, int64_t x, std::vector<uint64_t>& out) {
    const int64_t holders = t.holders();
    const size_t axes = t.axes.size();
    out.clear();
    for (int64_t r = 0; r < holders; ++r) {
      const int64_t* row = t.values.data() + static_cast<size_t>(x * holders + r) * axes;
      uint64_t h = 0x9e3779b97f4a7c15ull;
      for (int64_t c : cols) {  // splitmix64 steps over the values (0 for a missing axis)
        h += static_cast<uint64_t>(c >= 0 ? row[c] : 0) + 0x9e3779b97f4a7c15ull;
        h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
        h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
        h ^= h >> 31;
      }
      out.push_back(h);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  };
  for (int64_t x = 0; x < a.elements; ++x) {
    hashes(a, ca, x, ha);
    hashes(b, cb, x, hb);
    if (ha != hb) return false;
  }
  return true;
}

}  // namespace layoutscope::fuzz
