// Embind adapter for CuTe's layout algebra (shared/include/layoutscope/algebra.hpp).
//
//   algebra("composition", ["(20):(2)", "(5,4):(4,1)"], "cute")
//     -> { ok: true, result: "(5,4):(8,2)", axe: "S[(5,4):(8,2)]", shape: [5, 4], size: 20, cosize: 39 }
//   algebra("composition", ["(20):(2)", "(5,4):(4,"], "cute")
//     -> { ok: false, error: { message: "expected an integer, found the end of the text", column: 10,
//                              field: "argument 2" } }
//
// max_common_vector also returns `vector` (the number, equal to `result`); its layout fields describe
// max_common_layout.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <string>
#include <vector>

#include "js_error.hpp"
#include "layoutscope/algebra.hpp"

namespace layoutscope {
namespace {

using emscripten::val;

val js_algebra(std::string op, val args, std::string syntax_name) {
  auto syntax = cute::parse_algebra_syntax(syntax_name);
  if (!syntax) return error_value(syntax.error());
  if (!args.isArray()) return error_value(make_error("args must be an array of strings", 0, "args"));
  std::vector<std::string> texts;
  const unsigned n = args["length"].as<unsigned>();
  for (unsigned i = 0; i < n; ++i) {
    const val item = args[i];
    if (!item.isString())
      return error_value(make_error("argument " + std::to_string(i + 1) + " must be a string", 0,
                                    "argument " + std::to_string(i + 1)));
    texts.push_back(item.as<std::string>());
  }
  auto r = cute::algebra(op, texts, *syntax);
  if (!r) return error_value(r.error());
  val out = val::object();
  out.set("ok", true);
  out.set("result", r->result);
  out.set("axe", r->axe);
  val shape = val::array();
  for (size_t i = 0; i < r->shape.size(); ++i) shape.set(i, static_cast<double>(r->shape[i]));
  out.set("shape", shape);
  out.set("size", static_cast<double>(r->size));
  out.set("cosize", static_cast<double>(r->cosize));
  if (r->vector) out.set("vector", static_cast<double>(*r->vector));
  return out;
}

val js_algebra_operations() {
  val out = val::array();
  const auto& ops = cute::algebra_operations();
  for (size_t i = 0; i < ops.size(); ++i) out.set(i, std::string(ops[i]));
  return out;
}

}  // namespace
}  // namespace layoutscope

EMSCRIPTEN_BINDINGS(layoutscope_algebra) {
  using namespace layoutscope;
  emscripten::function("algebra", &js_algebra);
  emscripten::function("algebraOperations", &js_algebra_operations);
}
