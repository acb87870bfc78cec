// What every layoutscope command shares: strict argument parsing, the JSON error, JSON-lines output and the
// batch mode that reads layouts from standard input.
//
//   auto width = option_arg(args.width, 1, 1024);             // "0200", "0x10", "+4", "4294967300": error
//   auto shape = shape_arg(args.shape, layout);               // "8,8", "(8, 8)" or "8x8"; default: size
//   emit({{"width", width}});                                 // one JSON object, one line, on stdout
//   fail("--banks must be 1 to 64", "banks");                 // the JSON error, exit status 2
//
// Numbers are decimal only: no sign other than a leading '-' where negatives make sense, no leading zero
// (C's 0200 is octal, so the CLI refuses to guess), no 0x, no trailing characters, and a range that is
// checked before the value is narrowed, so --width 4294967300 is an error rather than 4.
//
// fail() throws a Failure. Outside batch mode it reaches main(), which prints it and exits 2; in batch
// mode for_each_layout() prints it as that line's error and goes on to the next line.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "layoutscope/layout.hpp"
#include "layoutscope/result.hpp"

namespace layoutscope::cli {

using Json = nlohmann::ordered_json;

// An input error with the text its column points into (the caret diagram shows that text).
struct Failure {
  Error error;
  std::string input;
};

[[noreturn]] void fail(const Error& error, std::string input = {});
[[noreturn]] void fail(std::string message, std::string field = {});

// The error on stdout as {"error": {"message", "column", "field", "input", "line"}} (column, field, input
// and line where known), the message on stderr with a caret under the column. Control bytes and invalid
// UTF-8 in the input never reach the terminal raw.
void print_failure(const Failure& failure, int line = 0);

// One JSON object on one line of stdout.
void emit(const Json& j);
// j as compact JSON text; C1 control characters escaped as \u0080..\u009f, invalid UTF-8 replaced.
std::string dump(const Json& j);

// `text` with every byte a terminal could act on spelled out: \e, \r, \n, \t, \xNN for the other C0 bytes,
// DEL, C1 code points (\u0080..\u009f) and bytes that are not UTF-8. When `columns` is given it receives,
// for each code point of `text` (an invalid byte counts as one) and one past the end, its 0-based column in
// the escaped text: where a caret under a 1-based code-point column goes.
std::string printable(std::string_view text, std::vector<int>* columns = nullptr);

// An option's text as given, and whether it was given (an empty value is still given).
struct Arg {
  std::string name;  // without the dashes: "width"
  std::string value;
  CLI::Option* option = nullptr;
  bool given() const { return option != nullptr && option->count() > 0; }
};
// Registers --name on the command, its value read into arg.
CLI::Option* add_arg(CLI::App* command, Arg& arg, const std::string& name, const std::string& value_name,
                     const std::string& description);

// A decimal integer in [min, max]. The error's message starts with `label` ("--width"), its field is
// `field` ("width"), its column is that of the offending character in `text`, offset by column_base - 1 for
// a number inside a longer argument; where it is clear, it says what to write instead (0200 -> 200).
Result<int64_t> parse_decimal(std::string_view text, const std::string& label, const std::string& field,
                              int64_t min, int64_t max, int column_base = 1);
// A positional number (label and field `field`), failing with the argument as the error's input.
int64_t decimal_arg(const std::string& text, const std::string& field,
                    int64_t min = std::numeric_limits<int64_t>::min(),
                    int64_t max = std::numeric_limits<int64_t>::max());
// The value of a given numeric option.
int64_t option_arg(const Arg& arg, int64_t min = std::numeric_limits<int64_t>::min(),
                   int64_t max = std::numeric_limits<int64_t>::max());

// Comma- (or, where allow_x, 'x'-) separated decimals, optionally in parentheses, spaces allowed around
// separators: "5,3", "(5, 3)", "8x8". Each value in [min, max]; columns are 1-based in `text`.
Result<std::vector<int64_t>> parse_decimal_list(std::string_view text, const std::string& field, int64_t min,
                                                int64_t max, bool allow_x);

// The layout argument parsed (fails with its column).
Layout layout_arg(const std::string& text);
// The logical shape: --shape parsed strictly, or one dimension of the layout's size without it.
std::vector<int64_t> shape_arg(const Arg& shape, const Layout& layout);
// The --limit value, or default_limit when it is not given.
int64_t limit_arg(const Arg& limit, int64_t default_limit);

// Runs `run` on `layout_arg`; when it is "-", on every line of standard input instead, in order. `run`
// prints its JSON and returns the exit status (0, or 1 for a finding); a Failure on a line is printed as
// that line's error (with its 1-based line number) and the next line is read. Returns the largest status,
// 2 when any line failed. Outside batch mode a Failure propagates.
int for_each_layout(const std::string& layout_arg, const std::function<int(const std::string&)>& run);

// A subcommand with help that ends in examples.
CLI::App* add_command(CLI::App& app, const std::string& name, const std::string& description,
                      const std::string& examples);

// Installs `body` as the command's action; call it after the command's arguments are declared. Before
// `body` runs: an option the command does not know, an argument left over or an option given twice is an
// error naming it. A nonzero status from `body` becomes the exit status.
void on_run(CLI::App* command, std::function<int()> body);

// Help whose usage line names the positionals as declared (EXPR QUERY...), without CLI11's brackets.
class Formatter : public CLI::Formatter {
 public:
  std::string make_usage(const CLI::App* app, std::string name) const override;
};

// A position as {"axis": value, ...} in the order of the layout's axes.
Json position_json(const std::vector<std::string>& axes, const int64_t* values);

}  // namespace layoutscope::cli
