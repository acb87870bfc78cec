// A layout in the chapter's notation, exported to every format: each text an export writes must import back
// to the same layout, element by element (every element's positions, every replica and partial term). The
// input is the layout's text; its default shape and the mesh of its axes are the context. A crash, a
// sanitizer report, an exported text that does not import, or one that imports to another layout is a
// finding. The work of one input is bounded (positions.hpp, kCompareCells).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "layoutscope/formats/format.hpp"
#include "layoutscope/mapping.hpp"
#include "layoutscope/parse.hpp"
#include "positions.hpp"

namespace ls = layoutscope;

namespace {

// Partial terms by their sizes: what a round trip must keep (or drop) on both sides alike.
std::vector<int64_t> partial_sizes(const ls::Layout& l) {
  std::vector<int64_t> out;
  for (const auto& group : l.partials) {
    int64_t n = 1;
    for (const auto& m : group) n *= m.extent;
    out.push_back(n);
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool same_mapping(const ls::Layout& l, const std::vector<int64_t>& shape, const ls::Table& want) {
  auto t = ls::table(l, shape, ls::fuzz::kCompareCells);
  return t && ls::fuzz::same_positions(*t, want);
}

const std::set<ls::Format> kNotChecked = {ls::Format::kAxe};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto layout = ls::parse_layout(text);
  if (!layout) return 0;
  auto shape = ls::default_shape(*layout);
  if (!shape) return 0;
  // Layouts of more rows than kCompareCells are exported and imported back and compared by shape and partial
  // terms only; those of more than kExportCells cells not at all (positions.hpp: the work of one input
  // stays bounded).
  const int64_t cells = ls::fuzz::cells_of(*layout, *shape);
  if (cells < 0 || cells > ls::fuzz::kExportCells) return 0;
  const auto want = ls::fuzz::small_table(*layout, *shape);
  for (ls::Format to : ls::all_formats()) {
    if (kNotChecked.count(to)) continue;
    auto out = ls::export_layout(to, *layout, *shape, ls::FormatContext{*shape, {}});
    if (!out) continue;
    auto back = ls::import_layout(to, *out, ls::FormatContext{*shape, {}});
    const char* broken = !back                                                   ? "does not import"
                         : back->shape != *shape                                 ? "another shape"
                         : partial_sizes(back->layout) != partial_sizes(*layout) ? "other partial terms"
                         : want && !same_mapping(back->layout, *shape, *want)    ? "another mapping"
                                                                                 : nullptr;
    if (broken) {  // say which format and text, then stop
      std::fprintf(stderr, "round trip through %s: %s\n%s\n", std::string(ls::to_string(to)).c_str(), broken,
                   out->c_str());
      if (back) std::fprintf(stderr, "imported back: %s\n", ls::to_string(back->layout).c_str());
      std::abort();
    }
  }
  return 0;
}
