#include "layoutscope/formats/cute.hpp"

#include <limits>
#include <optional>

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

// CuTe's static integer Int<N>: its template argument is an int.
Result<std::string> static_int(int64_t v, const char* field) {
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
    return make_error(std::to_string(v) + " does not fit Int<N>'s int template argument", 0, field);
  return "Int<" + std::to_string(v) + ">";
}

// An IntTuple as a C++ type: a leaf is Int<N> (a stride k@i is E<i> for k = 1, ScaledBasis<Int<k>,i>
// otherwise), a tuple is Shape<...> or Stride<...> of its modes.
Result<std::string> type_text(const cute::IntTuple& t, bool stride) {
  const char* field = stride ? "stride" : "shape";
  if (t.is_leaf()) {
    if (t.basis >= 0 && t.value == 1) return "E<" + std::to_string(t.basis) + ">";
    auto k = static_int(t.value, field);
    if (!k || t.basis < 0) return k;
    return "ScaledBasis<" + *k + "," + std::to_string(t.basis) + ">";
  }
  std::string s = stride ? "Stride<" : "Shape<";
  for (size_t i = 0; i < t.modes.size(); ++i) {
    auto m = type_text(t.modes[i], stride);
    if (!m) return m;
    if (i) s += ",";
    s += *m;
  }
  return s + ">";
}

Result<Imported> import_any(std::string_view text, const FormatContext& context, Format from) {
  auto parsed = cute::parse_cute(text);
  if (!parsed) return parsed.error();
  std::optional<cute::ComposedLayout> composed = std::move(parsed).value();
  // CuTe's layout of rank 0 (shape (), one element at offset 0) is the function of 1:0, its coalesced form:
  // the notation's S[...] has at least one mode (S[():()] does not read back), so it is read as that one mode
  const bool rank_zero = composed->layout.rank() == 0;
  if (rank_zero) composed->layout = cute::Layout{cute::IntTuple::leaf(1), cute::IntTuple::leaf(0)};
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
  if (rank_zero)
    out.notes.push_back(
        "a layout of rank 0 (shape ()) is one element at offset 0: read as its coalesced form 1:0");
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
  auto shape_type = type_text(composed->layout.shape, false);
  if (!shape_type) return shape_type.error();
  auto stride_type = type_text(composed->layout.stride, true);
  if (!stride_type) return stride_type.error();
  const std::string value = "Layout<" + *shape_type + "," + *stride_type + ">{}";
  if (!composed->swizzle) return value;
  // CuTe's composition(Swizzle<B,M,S>, [offset,] Layout) (include/cute/swizzle_layout.hpp) builds the
  // ComposedLayout that print() shows as Sw<B,M,S> o offset o layout.
  const Swizzle& sw = *composed->swizzle;
  std::string text = "composition(Swizzle<" + std::to_string(sw.bits) + "," + std::to_string(sw.base) + "," +
                     std::to_string(sw.shift) + ">{}, ";
  if (composed->offset != 0) {
    auto offset = static_int(composed->offset, "O");
    if (!offset) return offset.error();
    text += *offset + "{}, ";
  }
  return text + value + ")";
}

Result<std::string> export_cute_dsl(const Layout& layout, const std::vector<int64_t>& shape) {
  auto composed = cute::from_chapter(layout, shape);
  if (!composed) return composed.error();
  return cute::to_dsl_code(*composed);
}

}  // namespace layoutscope
