// Any text: parse it; when it parses, print it, re-parse it (must be equal), canonicalize, validate and
// map a few elements. A crash, a sanitizer report, a hang or a failed round trip is a finding.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "layoutscope/canonical.hpp"
#include "layoutscope/mapping.hpp"
#include "layoutscope/parse.hpp"
#include "layoutscope/validate.hpp"

namespace ls = layoutscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto layout = ls::parse_layout(text);
  if (!layout) {
    if (layout.error().column < 1) std::abort();  // every parse error points somewhere
    return 0;
  }
  auto again = ls::parse_layout(ls::to_string(*layout));
  if (!again || !(*again == *layout)) std::abort();
  (void)ls::canonicalize(*layout);
  auto shape = ls::default_shape(*layout);
  if (!shape) return 0;
  constexpr int64_t kSmall = 1 << 12;  // keep each input fast: whole-table work only on small layouts
  (void)ls::validate(*layout, *shape, kSmall);
  (void)ls::table(*layout, *shape, kSmall);
  for (int64_t x : {int64_t{0}, (*shape)[0] / 2, (*shape)[0] - 1})
    (void)ls::forward_index(*layout, *shape, x);
  (void)ls::inverse(*layout, *shape, {{"m", 3}}, kSmall);
  return 0;
}
