// Errors as values. Every engine entry point that can fail returns Result<T>; nothing throws across the
// engine's boundary (Embind turns C++ exceptions into bare numbers, so the page could not read them).
//
//   auto layout = parse_layout("S[(8,4):(4,1]");
//   if (!layout) print(layout.error().column, layout.error().message);   // column 12: expected ')'
//   layout.error().code == "syntax"
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace layoutscope {

struct Error {
  std::string message;
  int column = 0;     // 1-based column in the text that was parsed; 0 when the error has no place
  std::string field;  // the argument, mode or axis at fault ("shape", "mode 2", "TLane"), may be empty
  // What kind of failure, as Finding::code names a finding: "syntax" (the text does not follow the grammar),
  // "range" (a value outside what it may be), "overflow" (does not fit 64 bits), "size-mismatch" (shape and
  // layout disagree), "limit" (more work than the caller allowed), "precision" (a value a JS number cannot
  // hold exactly). Empty when the producer did not classify it.
  std::string code;
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  const T& value() const& { return std::get<0>(v_); }
  T& value() & { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  const T& operator*() const& { return value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

inline Error make_error(std::string message, int column = 0, std::string field = {}, std::string code = {}) {
  return Error{std::move(message), column, std::move(field), std::move(code)};
}

}  // namespace layoutscope
