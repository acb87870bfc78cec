// Embind adapter for the small facts the page's forms and figures need besides a layout's tables: the element
// types, the shared-memory bank model and a lane's access width, and the mesh axes of a form field. Plain
// values in, plain JS objects out, failures as { ok: false, error: { message, column, field } }:
//
//   dtypes()                -> [{ dtype: "u8", bytes: 1 }, { dtype: "f8", bytes: 1 }, ..., { dtype: "f64",
//   bytes: 8 }] bankModel()             -> { banks: 32, wordBytes: 4, wavefrontBytes: 128 }
//   laneAccessBytes(2)      -> 4 (a half is read as its 4 B word)
//   accessStart(6, 4)       -> 4 (bytes 4..7 are one word)
//   drawingShape("Swizzle<3,3,3> o S[(8,64):(64,1)]") -> { ok: true, shape: [8, 64] }
//   parseMesh("x=2,y=4")    -> { ok: true, mesh: { x: 2, y: 4 }, axes: ["x", "y"] }
//   parseMesh("x=2,y=two")  -> { ok: false, error: { message: "mesh: size of y must be ...", column: 7, ... }
//   }
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdint>
#include <string>

#include "js_error.hpp"
#include "layoutscope/dtype.hpp"
#include "layoutscope/mapping.hpp"
#include "layoutscope/memory_access.hpp"
#include "layoutscope/parse.hpp"
#include "layoutscope/plan/reshard.hpp"

namespace layoutscope {
namespace {

using emscripten::val;

val js_dtypes() {
  val out = val::array();
  for (DType d : all_dtypes()) {
    val e = val::object();
    e.set("dtype", std::string(to_string(d)));
    e.set("bytes", dtype_bytes(d));
    out.call<void>("push", e);
  }
  return out;
}

BankModel model_of(const val& m) {
  BankModel model;
  if (m.isNull() || m.isUndefined()) return model;
  if (m.hasOwnProperty("banks")) model.banks = m["banks"].as<int>();
  if (m.hasOwnProperty("wordBytes")) model.word_bytes = m["wordBytes"].as<int>();
  if (m.hasOwnProperty("wavefrontBytes")) model.wavefront_bytes = m["wavefrontBytes"].as<int>();
  return model;
}

val js_bank_model() {
  const BankModel model;
  val out = val::object();
  out.set("banks", model.banks);
  out.set("wordBytes", model.word_bytes);
  out.set("wavefrontBytes", model.wavefront_bytes);
  return out;
}

int js_lane_access_bytes(int elem_bytes, val model) { return lane_access_bytes(elem_bytes, model_of(model)); }

double js_access_start(double byte, int width) {
  return static_cast<double>(access_start(static_cast<int64_t>(byte), width));
}

val js_drawing_shape(std::string text) {
  auto layout = parse_layout(text);
  if (!layout) return error_value(layout.error());
  auto shape = drawing_shape(*layout);
  if (!shape) return error_value(shape.error());
  val dims = val::array();
  for (int64_t n : *shape) dims.call<void>("push", static_cast<double>(n));
  val out = val::object();
  out.set("ok", true);
  out.set("shape", dims);
  return out;
}

val js_parse_mesh(std::string text) {
  auto mesh = parse_mesh(text);
  if (!mesh) return error_value(mesh.error());
  val axes = val::object();
  val order = val::array();
  for (const auto& [name, size] : *mesh) {
    axes.set(name, static_cast<double>(size));
    order.call<void>("push", name);
  }
  val out = val::object();
  out.set("ok", true);
  out.set("mesh", axes);
  out.set("axes", order);
  return out;
}

}  // namespace
}  // namespace layoutscope

EMSCRIPTEN_BINDINGS(layoutscope_page) {
  using namespace layoutscope;
  emscripten::function("dtypes", &js_dtypes);
  emscripten::function("bankModel", &js_bank_model);
  emscripten::function("laneAccessBytes", &js_lane_access_bytes);
  emscripten::function("accessStart", &js_access_start);
  emscripten::function("drawingShape", &js_drawing_shape);
  emscripten::function("parseMesh", &js_parse_mesh);
}
