// Embind adapter for Triton's named encodings (shared/include/layoutscope/formats/triton.hpp).
//
//   exportTritonEncoding("Swizzle<3,3,3> o S[(64,64):(64,1)]", [64, 64], "swizzled_shared", 0)
//     -> { ok: true, text: "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>" }
//   exportTritonEncoding("S[64:1]", null, "nvmma_shared", 16) -> { ok: false, error: { message, ... } }
//
// encoding: "linear", "auto", "blocked", "swizzled_shared", "nvmma_shared"; elementBits: nvmma_shared's
// elementBitWidth (8, 16, 32, 64), 0 or null to let the engine try each. A shape is an array, a string "8,4"
// or null (the layout's default shape).
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cmath>
#include <string>
#include <vector>

#include "js_error.hpp"
#include "layoutscope/formats/triton.hpp"
#include "layoutscope/mapping.hpp"
#include "layoutscope/parse.hpp"

namespace layoutscope {
namespace {

using emscripten::val;

bool whole(const val& v, double& out) {
  if (!v.isNumber()) return false;
  out = v.as<double>();
  return std::isfinite(out) && out == std::floor(out) && std::fabs(out) <= 9007199254740991.0;
}

Result<std::vector<int64_t>> shape_of(const val& shape, const Layout& layout) {
  if (shape.isUndefined() || shape.isNull()) return default_shape(layout);
  if (shape.isString()) return parse_shape(shape.as<std::string>());
  if (!shape.isArray()) return make_error("shape must be an array of integers, a string or null", 0, "shape");
  std::vector<int64_t> out;
  const unsigned n = shape["length"].as<unsigned>();
  for (unsigned i = 0; i < n; ++i) {
    double d = 0;
    if (!whole(shape[i], d) || d < 1)
      return make_error("a shape extent must be an integer of at least 1", 0, "shape");
    out.push_back(static_cast<int64_t>(d));
  }
  if (out.empty()) return default_shape(layout);
  return out;
}

val js_export_triton_encoding(std::string layout_text, val shape, std::string encoding_name,
                              val element_bits) {
  auto layout = parse_layout(layout_text);
  if (!layout) return error_value(layout.error());
  auto s = shape_of(shape, *layout);
  if (!s) return error_value(s.error());
  auto encoding = parse_triton_encoding(encoding_name);
  if (!encoding) return error_value(encoding.error());
  int bits = 0;
  if (!element_bits.isUndefined() && !element_bits.isNull()) {
    double d = 0;
    if (!whole(element_bits, d) || d < 0 || d > 64)
      return error_value(make_error("elementBits must be 8, 16, 32, 64 or 0", 0, "elementBits"));
    bits = static_cast<int>(d);
  }
  auto text = export_triton_encoding(*layout, *s, *encoding, bits);
  if (!text) return error_value(text.error());
  val out = val::object();
  out.set("ok", true);
  out.set("text", *text);
  return out;
}

}  // namespace

EMSCRIPTEN_BINDINGS(layoutscope_triton) {
  emscripten::function("exportTritonEncoding", &js_export_triton_encoding);
}

}  // namespace layoutscope
