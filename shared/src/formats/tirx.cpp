#include "layoutscope/formats/tirx.hpp"

#include "detail.hpp"
#include "layoutscope/mapping.hpp"
#include "layoutscope/parse.hpp"

namespace layoutscope {

namespace {

std::string modes_text(const std::vector<Mode>& modes) {
  std::string extents;
  std::string strides;
  for (size_t i = 0; i < modes.size(); ++i) {
    if (i) {
      extents += ", ";
      strides += ", ";
    }
    extents += std::to_string(modes[i].extent);
    strides += to_string(modes[i].stride);
  }
  if (modes.size() == 1) return extents + " : " + strides;
  return "(" + extents + ") : (" + strides + ")";
}

}  // namespace

Result<Imported> import_tirx(std::string_view text, const FormatContext& context) {
  auto layout = parse_layout(text);
  if (!layout) return layout.error();
  Imported out;
  out.from = Format::kTirx;
  out.layout = std::move(layout).value();
  if (text.find("TileLayout") == std::string_view::npos &&
      text.find("ComposeLayout") == std::string_view::npos) {
    out.notes.push_back("no TileLayout(...) around the text: read as the chapter's notation");
  }
  if (auto compiled = CompiledLayout::compile(out.layout); !compiled) {
    return make_error(compiled.error().message, 1,
                      compiled.error().field.empty() ? "layout" : compiled.error().field);
  }
  if (context.shape.empty()) {
    auto shape = default_shape(out.layout);
    if (!shape) return shape.error();
    out.shape = *shape;
  } else {
    out.shape = context.shape;
    auto fits = compile_for_shape(out.layout, out.shape);
    if (!fits) return make_error(fits.error().message, 0, "shape");
  }
  return out;
}

Result<std::string> export_tirx(const Layout& layout, const std::vector<int64_t>&, const FormatContext&) {
  if (!layout.partials.empty())
    return make_error("TIRx has no partial-sum term: P[...] cannot be exported", 0, "partial");
  std::string body = "S[" + modes_text(layout.shard) + "]";
  for (const auto& group : layout.replicas) body += " + R[" + modes_text(group) + "]";
  for (const AxisStride& o : layout.offset) {
    if (o.k != 0) body += " + " + std::to_string(o.k) + "@" + o.axis;
  }
  std::string text = "TileLayout(" + body + ")";
  if (layout.swizzle) {
    const Swizzle& s = *layout.swizzle;
    text = "ComposeLayout(" + std::to_string(s.base) + ", " + std::to_string(s.bits) + ", " +
           std::to_string(s.shift) + ", " + text + (s.inner ? "" : ", swizzle_inner=False") + ")";
  }
  // what TIRx would refuse to read back (a degenerate swizzle) is refused here too
  if (auto back = parse_layout(text); !back) {
    return make_error("TIRx cannot express this layout: " + back.error().message, 0, "layout");
  }
  if (auto compiled = CompiledLayout::compile(layout); !compiled) {
    return make_error("TIRx cannot express this layout: " + compiled.error().message, 0, "layout");
  }
  return text;
}

}  // namespace layoutscope
