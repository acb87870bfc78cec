// Nesting depth of a JSON text, counted before any recursive parse (a request body, a run record read back
// from disk): '[' and '{' outside strings. Does not validate the rest.
//
//   json_nesting_depth(R"({"a": [1, {"b": "[["}]})")  ->  3
#pragma once

#include <string_view>

namespace layoutscope::agent {

int json_nesting_depth(std::string_view text);

}  // namespace layoutscope::agent
