// The engine's errors as Python exceptions: Error{message, column, field} becomes layoutscope.LayoutError
// (a ValueError) with the same three attributes plus the text that was read, so a notebook can point a caret
// at the bad column exactly as the CLI does.
//
//   layoutscope.Layout("S[(8,4):(4,1]")   ->  LayoutError: column 13: expected ')' ...  (.column == 13)
#pragma once

#include <pybind11/pybind11.h>

#include <string>
#include <string_view>
#include <utility>

#include "layoutscope/result.hpp"

namespace layoutscope::python {

namespace py = pybind11;

// Raises layoutscope.errors.LayoutError(message, column, field, text). The class lives in Python so that it
// is an ordinary subclass of ValueError that users can catch, pickle and extend.
[[noreturn]] inline void raise(const Error& error, std::string_view text = {}) {
  py::object cls = py::module_::import("layoutscope.errors").attr("LayoutError");
  py::object exc = cls(error.message, error.column, error.field, std::string(text));
  PyErr_SetObject(cls.ptr(), exc.ptr());
  throw py::error_already_set();
}

// The value of a Result, or the error raised in Python.
template <class T>
T take(Result<T> result, std::string_view text = {}) {
  if (!result) raise(result.error(), text);
  return std::move(result).value();
}

}  // namespace layoutscope::python
