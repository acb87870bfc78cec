#include "layoutscope/formats/format.hpp"

#include <array>

#include "layoutscope/formats/dtensor.hpp"
#include "layoutscope/formats/hlo.hpp"
#include "layoutscope/formats/jax.hpp"
#include "layoutscope/formats/shardy.hpp"
#include "layoutscope/formats/tirx.hpp"
#include "layoutscope/formats/triton.hpp"
#include "layoutscope/mapping.hpp"
#include "layoutscope/parse.hpp"

namespace layoutscope {

namespace {

struct Name {
  Format format;
  std::string_view name;
};

constexpr std::array<Name, 9> kNames{{{Format::kAxe, "axe"},
                                      {Format::kCute, "cute"},
                                      {Format::kCuteDsl, "cute-dsl"},
                                      {Format::kTriton, "triton"},
                                      {Format::kTirx, "tirx"},
                                      {Format::kJax, "jax"},
                                      {Format::kShardy, "shardy"},
                                      {Format::kHlo, "hlo"},
                                      {Format::kDtensor, "dtensor"}}};

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

}  // namespace

Result<Format> parse_format(std::string_view name) {
  for (const Name& n : kNames) {
    if (n.name == name) return n.format;
  }
  std::string all;
  for (const Name& n : kNames) all += (all.empty() ? "" : ", ") + std::string(n.name);
  return make_error("unknown format '" + std::string(name) + "': expected one of " + all, 1, "format");
}

std::string_view to_string(Format format) {
  for (const Name& n : kNames) {
    if (n.format == format) return n.name;
  }
  return "axe";
}

const std::vector<Format>& all_formats() {
  static const std::vector<Format> kAll = [] {
    std::vector<Format> v;
    for (const Name& n : kNames) v.push_back(n.format);
    return v;
  }();
  return kAll;
}

Result<Imported> import_layout(Format from, std::string_view text, const FormatContext& context) {
  switch (from) {
    case Format::kAxe: {
      auto layout = parse_layout(text);
      if (!layout) return layout.error();
      Imported out;
      out.from = Format::kAxe;
      out.layout = std::move(layout).value();
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
    case Format::kCute:
    case Format::kCuteDsl:
      // wired when formats/cute.hpp lands
      return make_error("cute import is not available in this build", 0, "format");
    case Format::kTriton:
      return import_triton(text, context);
    case Format::kTirx:
      return import_tirx(text, context);
    case Format::kJax:
      return import_jax(text, context);
    case Format::kShardy:
      return import_shardy(text, context);
    case Format::kHlo:
      return import_hlo(text, context);
    case Format::kDtensor:
      return import_dtensor(text, context);
  }
  return make_error("unknown format", 0, "format");
}

Result<std::string> export_layout(Format to, const Layout& layout, const std::vector<int64_t>& shape,
                                  const FormatContext& context) {
  switch (to) {
    case Format::kAxe:
      return to_string(layout);
    case Format::kCute:
    case Format::kCuteDsl:
      // wired when formats/cute.hpp lands
      return make_error("cute export is not available in this build", 0, "format");
    case Format::kTriton:
      return export_triton(layout, shape, context);
    case Format::kTirx:
      return export_tirx(layout, shape, context);
    case Format::kJax:
      return export_jax(layout, shape, context);
    case Format::kDtensor:
      return export_dtensor(layout, shape, context);
    case Format::kShardy:
    case Format::kHlo:
      return make_error("export to " + std::string(to_string(to)) +
                            " is not offered: export to jax or dtensor and let the framework lower it",
                        0, "format");
  }
  return make_error("unknown format", 0, "format");
}

Format detect_format(std::string_view text) {
  if (contains(text, "sdy.")) return Format::kShardy;
  if (contains(text, "#ttg.") || contains(text, "#triton_gpu.") || contains(text, "LinearLayout(") ||
      contains(text, "BlockedLayout(") || contains(text, "SharedLayout(") || contains(text, "reg_bases")) {
    return Format::kTriton;
  }
  if (contains(text, "devices=[") || contains(text, "{replicated}") || contains(text, "{maximal"))
    return Format::kHlo;
  if (contains(text, "Shard(") || contains(text, "Replicate()") || contains(text, "Partial(") ||
      contains(text, "init_device_mesh")) {
    return Format::kDtensor;
  }
  if (contains(text, "PartitionSpec(") || contains(text, "P(") || contains(text, "NamedSharding") ||
      contains(text, "make_mesh")) {
    return Format::kJax;
  }
  if (contains(text, "TileLayout") || contains(text, "ComposeLayout") || contains(text, "T.S[") ||
      contains(text, "Tx.")) {
    return Format::kTirx;
  }
  // CuTe prints "(_2,_3):(_3,_1)", "8:1", "Sw<3,4,3> o _0 o ..."; the DSL "S<1,4,3> o 0 o ..." or make_layout
  if (contains(text, "cute.")) return Format::kCuteDsl;
  if (contains(text, "Sw<") || contains(text, "):(") || contains(text, "_1")) {
    if (!contains(text, "S[")) return Format::kCute;
  }
  if (contains(text, "S<") && contains(text, " o ")) return Format::kCuteDsl;
  // float32[8@x,4]: the JAX type print (the notation never puts '@' inside a bare type's brackets)
  const size_t bracket = text.find('[');
  if (bracket != std::string_view::npos && bracket > 0 && text.find("S[") == std::string_view::npos &&
      text.find("R[") == std::string_view::npos) {
    const char before = text[bracket - 1];
    if ((before >= '0' && before <= '9') || (before >= 'a' && before <= 'z')) return Format::kJax;
  }
  if (!contains(text, "[") && contains(text, ":") && !contains(text, "S[")) return Format::kCute;
  return Format::kAxe;
}

}  // namespace layoutscope
