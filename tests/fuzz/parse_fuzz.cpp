// Any text, read by every importer (the first byte picks the format and the context). The chapter's notation:
// parse it; when it parses, print it, re-parse it (must be equal), canonicalize, validate and map a few
// elements. Another format: import it; when it imports, map it, export it to every target that takes it and
// import that text back (must be the same layout, element by element). A crash, a sanitizer report, a hang,
// an error without a column, or a failed round trip is a finding.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "layoutscope/canonical.hpp"
#include "layoutscope/formats/format.hpp"
#include "layoutscope/mapping.hpp"
#include "layoutscope/parse.hpp"
#include "layoutscope/validate.hpp"
#include "positions.hpp"

namespace ls = layoutscope;

namespace {

// Keep each input fast: whole-table work (validate, table, inverse, the comparison) only on small layouts
// (positions.hpp); a larger one is still exported, imported back and compared by its partial terms.
constexpr int64_t kSmall = ls::fuzz::kCompareCells;

void exercise(const ls::Layout& layout, const std::vector<int64_t>& shape) {
  (void)ls::canonicalize(layout);
  (void)ls::validate(layout, shape, kSmall);
  (void)ls::table(layout, shape, kSmall);
  int64_t size = 1;
  for (int64_t e : shape) {
    if (__builtin_mul_overflow(size, e, &size)) return;
  }
  for (int64_t x : {int64_t{0}, size / 2, size - 1}) (void)ls::forward_index(layout, shape, x);
  (void)ls::inverse(layout, shape, {{"m", 3}}, kSmall);
}

int fuzz_axe(std::string_view text) {
  auto layout = ls::parse_layout(text);
  if (!layout) {
    if (layout.error().column < 1) std::abort();  // every parse error points somewhere
    return 0;
  }
  auto again = ls::parse_layout(ls::to_string(*layout));
  if (!again || !(*again == *layout)) std::abort();
  auto shape = ls::default_shape(*layout);
  if (!shape) return 0;
  exercise(*layout, *shape);
  return 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const auto& formats = ls::all_formats();
  const ls::Format format = formats[data[0] % formats.size()];
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (format == ls::Format::kAxe) return fuzz_axe(text);
  // the context: none, or a small shape and a 2-D mesh
  ls::FormatContext context;
  if ((data[0] / formats.size()) % 2 == 1) context = {{8, 4}, {{"x", 2}, {"y", 4}}};
  auto imported = ls::import_layout(format, text, context);
  if (!imported) {
    const ls::Error& e = imported.error();
    // errors about the text point into it; only the missing context (shape, mesh) and the engine's own
    // size checks have no column
    if (e.column < 1 && e.field != "shape" && e.field != "mesh" && e.field != "format") std::abort();
    return 0;
  }
  exercise(imported->layout, imported->shape);
  const int64_t cells = ls::fuzz::cells_of(imported->layout, imported->shape);
  if (cells < 0 || cells > ls::fuzz::kExportCells) return 0;  // positions.hpp
  const auto want = ls::fuzz::small_table(imported->layout, imported->shape);
  for (ls::Format to : {ls::Format::kTriton, ls::Format::kTirx, ls::Format::kJax, ls::Format::kDtensor}) {
    auto text_out = ls::export_layout(to, imported->layout, imported->shape, context);
    if (!text_out) continue;
    auto back = ls::import_layout(to, *text_out, ls::FormatContext{imported->shape, {}});
    if (!back) std::abort();  // an exported text must import
    if (back->layout.partials.size() != imported->layout.partials.size()) std::abort();
    if (want) {
      auto got = ls::table(back->layout, imported->shape, kSmall);
      if (!got || !ls::fuzz::same_positions(*got, *want)) std::abort();
    }
  }
  return 0;
}
