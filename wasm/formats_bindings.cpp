// Embind adapter for the format importers and exporters (shared/include/layoutscope/formats/).
//
//   importLayout("jax", "P('x', None)", [8, 4], { x: 2, y: 4 })
//     -> { ok: true, layout: "S[(2,4,4):(1@x,4,1)] + R[4:1@y]", shape: [8, 4], from: "jax", notes: [],
//          partials: [] }
//   exportLayout("triton", "S[(2,8,4,2):(2@reg,4@laneid,1@laneid,1@reg)]", [16, 8], null)
//     -> { ok: true, text: "#ttg.linear<{register = [[0, 1], [8, 0]], ...}>" }
//   detectFormat("{devices=[2,1]0,1}") -> "hlo"
//
// Failures are { ok: false, error: { message, column, field } } as everywhere in the module. A mesh is a JS
// object of axis sizes in mesh order ({ x: 2, y: 4 }) or null; a shape an array, a string "8,4", or null.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cmath>
#include <string>
#include <vector>

#include "js_error.hpp"
#include "layoutscope/formats/format.hpp"
#include "layoutscope/mapping.hpp"
#include "layoutscope/parse.hpp"

namespace layoutscope {
namespace {

using emscripten::val;

Result<int64_t> whole_number(const val& v, const std::string& field) {
  if (!v.isNumber()) return make_error(field + " must be a number", 0, field);
  const double d = v.as<double>();
  if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9007199254740991.0) {
    return make_error(field + " must be an integer", 0, field);
  }
  return static_cast<int64_t>(d);
}

// null/undefined -> empty; an array of integers; a string "8,4".
Result<std::vector<int64_t>> shape_of(const val& shape) {
  if (shape.isUndefined() || shape.isNull()) return std::vector<int64_t>{};
  if (shape.isString()) return parse_shape(shape.as<std::string>());
  if (!shape.isArray()) return make_error("shape must be an array of integers, a string or null", 0, "shape");
  std::vector<int64_t> out;
  const unsigned n = shape["length"].as<unsigned>();
  for (unsigned i = 0; i < n; ++i) {
    auto v = whole_number(shape[i], "shape");
    if (!v) return v.error();
    if (*v < 1) return make_error("a shape extent must be at least 1", 0, "shape");
    out.push_back(*v);
  }
  return out;
}

// null/undefined -> empty; { x: 2, y: 4 } in insertion order.
Result<std::vector<std::pair<std::string, int64_t>>> mesh_of(const val& mesh) {
  std::vector<std::pair<std::string, int64_t>> out;
  if (mesh.isUndefined() || mesh.isNull()) return out;
  if (mesh.typeOf().as<std::string>() != "object" || mesh.isArray()) {
    return make_error("mesh must be an object of axis sizes, e.g. { x: 2, y: 4 }", 0, "mesh");
  }
  const val keys = val::global("Object").call<val>("keys", mesh);
  const unsigned n = keys["length"].as<unsigned>();
  for (unsigned i = 0; i < n; ++i) {
    const std::string name = keys[i].as<std::string>();
    auto size = whole_number(mesh[name], "mesh");
    if (!size) return size.error();
    if (*size < 1) return make_error("mesh axis " + name + " must have at least 1 device", 0, "mesh");
    out.emplace_back(name, *size);
  }
  return out;
}

Result<Format> format_of(const std::string& name) {
  auto f = parse_format(name);
  if (!f) return make_error(f.error().message, 0, "format");
  return f;
}

val modes_array(const std::vector<Mode>& modes) {
  val out = val::array();
  for (size_t i = 0; i < modes.size(); ++i) {
    val m = val::object();
    m.set("extent", static_cast<double>(modes[i].extent));
    m.set("k", static_cast<double>(modes[i].stride.k));
    m.set("axis", modes[i].stride.axis);
    m.set("text", to_string(modes[i].stride));
    out.set(i, m);
  }
  return out;
}

val js_import_layout(std::string from, std::string text, val shape, val mesh) {
  auto format = format_of(from);
  if (!format) return error_value(format.error());
  auto s = shape_of(shape);
  if (!s) return error_value(s.error());
  auto m = mesh_of(mesh);
  if (!m) return error_value(m.error());
  auto imported = import_layout(*format, text, FormatContext{*s, *m});
  if (!imported) return error_value(imported.error());
  val out = val::object();
  out.set("ok", true);
  out.set("layout", to_string(imported->layout));
  val dims = val::array();
  for (size_t i = 0; i < imported->shape.size(); ++i) dims.set(i, static_cast<double>(imported->shape[i]));
  out.set("shape", dims);
  out.set("from", std::string(to_string(imported->from)));
  val notes = val::array();
  for (size_t i = 0; i < imported->notes.size(); ++i) notes.set(i, imported->notes[i]);
  out.set("notes", notes);
  val partials = val::array();
  for (size_t i = 0; i < imported->layout.partials.size(); ++i)
    partials.set(i, modes_array(imported->layout.partials[i]));
  out.set("partials", partials);
  return out;
}

val js_export_layout(std::string to, std::string layout_text, val shape, val mesh) {
  auto format = format_of(to);
  if (!format) return error_value(format.error());
  auto layout = parse_layout(layout_text);
  if (!layout) return error_value(layout.error());
  auto s = shape_of(shape);
  if (!s) return error_value(s.error());
  if (s->empty()) {
    auto d = default_shape(*layout);
    if (!d) return error_value(d.error());
    s = std::move(d);
  }
  auto m = mesh_of(mesh);
  if (!m) return error_value(m.error());
  auto text = export_layout(*format, *layout, *s, FormatContext{*s, *m});
  if (!text) return error_value(text.error());
  val out = val::object();
  out.set("ok", true);
  out.set("text", *text);
  return out;
}

std::string js_detect_format(std::string text) { return std::string(to_string(detect_format(text))); }

}  // namespace

EMSCRIPTEN_BINDINGS(layoutscope_formats) {
  emscripten::function("importLayout", &js_import_layout);
  emscripten::function("exportLayout", &js_export_layout);
  emscripten::function("detectFormat", &js_detect_format);
}

}  // namespace layoutscope
