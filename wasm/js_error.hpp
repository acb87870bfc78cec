// The one shape every binding answers a failure with: {ok: false, error: {message, column, field, code}}
// (wasm/layoutscope.d.ts, LsError).
#pragma once

#include <emscripten/val.h>

#include "layoutscope/result.hpp"

namespace layoutscope {

inline emscripten::val error_value(const Error& e) {
  emscripten::val err = emscripten::val::object();
  err.set("message", e.message);
  err.set("column", e.column);
  err.set("field", e.field);
  err.set("code", e.code);
  emscripten::val out = emscripten::val::object();
  out.set("ok", false);
  out.set("error", err);
  return out;
}

}  // namespace layoutscope
