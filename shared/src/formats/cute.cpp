#include "layoutscope/formats/cute.hpp"

#include "layoutscope/cute.hpp"

namespace layoutscope {
namespace {

std::string tuple_text(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(v[i]);
  }
  return s + ")";
}

Result<Imported> import_any(std::string_view text, const FormatContext& context, Format from) {
  auto composed = cute::parse_cute(text);
  if (!composed) return composed.error();
  auto layout = cute::to_chapter(*composed, context.shape);
  if (!layout) return layout.error();
  Imported out;
  out.layout = std::move(layout).value();
  out.from = from;
  if (context.shape.empty()) {
    for (size_t i = 0; i < composed->layout.rank(); ++i) {
      auto n = cute::size(composed->layout.shape.mode(i));
      if (!n) return n.error();
      out.shape.push_back(*n);
    }
    out.notes.push_back("no shape given: the logical shape is the CuTe layout's top-level shape " +
                        tuple_text(out.shape));
  } else {
    out.shape = context.shape;
  }
  out.notes.push_back(
      "CuTe's first mode is the fastest, the notation's last: the modes of each logical dimension are "
      "reversed");
  if (cute::has_basis(composed->layout.stride))
    out.notes.push_back("scaled-basis strides k@i are written k@c<i> (CuTe's coordinate axis i)");
  if (composed->swizzle)
    out.notes.push_back("the swizzle permutes the @m offset after the layout and its offset " +
                        std::to_string(composed->offset) + " are applied");
  if (!context.mesh.empty()) out.notes.push_back("the mesh is not used: a CuTe layout names no mesh axes");
  return out;
}

}  // namespace

Result<Imported> import_cute(std::string_view text, const FormatContext& context) {
  return import_any(text, context, Format::kCute);
}

Result<Imported> import_cute_dsl(std::string_view text, const FormatContext& context) {
  return import_any(text, context, Format::kCuteDsl);
}

Result<std::string> export_cute(const Layout& layout, const std::vector<int64_t>& shape) {
  auto composed = cute::from_chapter(layout, shape);
  if (!composed) return composed.error();
  return cute::to_string(*composed);
}

Result<std::string> export_cute_dsl(const Layout& layout, const std::vector<int64_t>& shape) {
  auto composed = cute::from_chapter(layout, shape);
  if (!composed) return composed.error();
  return cute::to_dsl_code(*composed);
}

}  // namespace layoutscope
