// Layouts written in other projects' syntax, read into the chapter's notation and written back out.
//
//   import_layout(Format::kJax, "P('x', None)", {.shape = {8, 4}, .mesh = {{"x", 2}, {"y", 4}}})
//     -> S[(2,4,4):(1@x,4@m,1@m)] + R[4:1@y], shape 8x4     (dimension 0 split over x, y not named: a
//     replica)
//   export_layout(Format::kCute, S[(2,2,2):(4,1,2)], shape 2x4) -> "(2,(2,2)):(4,(2,1))"
//
// Every importer returns the layout in the chapter's notation plus the logical shape it is defined on; every
// exporter writes the target's syntax or an error naming the construct the target cannot express. Nothing
// converts silently with a loss. Errors carry the 1-based column of the offending token in the input text.
// One importer/exporter pair per outside syntax lives in formats/<name>.hpp; this header dispatches.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "layoutscope/layout.hpp"
#include "layoutscope/result.hpp"

namespace layoutscope {

enum class Format { kAxe, kCute, kCuteDsl, kTriton, kTirx, kJax, kShardy, kHlo, kDtensor };

// "axe" (the chapter's notation), "cute", "cute-dsl", "triton", "tirx", "jax", "shardy", "hlo", "dtensor".
Result<Format> parse_format(std::string_view name);
std::string_view to_string(Format format);
const std::vector<Format>& all_formats();

// What the text alone does not say: the logical shape and the device mesh.
struct FormatContext {
  std::vector<int64_t> shape;                         // logical shape; empty when not given
  std::vector<std::pair<std::string, int64_t>> mesh;  // named mesh axes and sizes, major first; empty if none
};

struct Imported {
  Layout layout;
  std::vector<int64_t> shape;  // the logical shape the layout is defined on
  Format from = Format::kAxe;
  std::vector<std::string> notes;  // what the reader should know (an assumption made, a unit converted)
};

Result<Imported> import_layout(Format from, std::string_view text, const FormatContext& context);
Result<std::string> export_layout(Format to, const Layout& layout, const std::vector<int64_t>& shape,
                                  const FormatContext& context);

// The format a pasted text is most likely written in (the page's paste box); kAxe when nothing else matches.
Format detect_format(std::string_view text);

}  // namespace layoutscope
