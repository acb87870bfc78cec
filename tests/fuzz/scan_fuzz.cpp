// Any text, read by the dump scanner: it must never crash, hang or fail; every issue it reports has a line
// inside the text, every op it costs has a line inside the text.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "layoutscope/scan.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (1 << 16)) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto r = layoutscope::scan::scan_ttgir(text);
  for (const auto& i : r.issues)
    if (i.line < 1 || i.line > r.lines) std::abort();
  for (const auto& o : r.ops)
    if (o.line < 1 || o.line > r.lines) std::abort();
  return 0;
}
