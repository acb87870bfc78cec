#include "cli_support.hpp"

#include <algorithm>
#include <iostream>

#include "layoutscope/checked.hpp"
#include "layoutscope/mapping.hpp"
#include "layoutscope/parse.hpp"

namespace layoutscope::cli {
namespace {

constexpr char kHex[] = "0123456789abcdef";

std::string hex_byte(unsigned char c) { return std::string("\\x") + kHex[c >> 4] + kHex[c & 15]; }

std::string u_escape(uint32_t cp) {
  std::string out = "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(cp >> shift) & 15];
  return out;
}

// Code points that change how a terminal shows the text around them: C1 controls and the bidirectional
// overrides, embeddings and isolates (the "Trojan Source" characters, CVE-2021-42574).
bool is_format_control(uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9f) || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

// The length of the well-formed UTF-8 sequence at s[i] (RFC 3629: no overlongs, no surrogates, at most
// U+10FFFF) and its code point, or 0 when the byte there does not start one.
size_t utf8_sequence(std::string_view s, size_t i, uint32_t* cp) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  size_t len = 0;
  uint32_t min = 0;
  if (b0 < 0x80) {
    *cp = b0;
    return 1;
  } else if (b0 >= 0xc2 && b0 <= 0xdf) {
    len = 2, min = 0x80, *cp = b0 & 0x1f;
  } else if (b0 >= 0xe0 && b0 <= 0xef) {
    len = 3, min = 0x800, *cp = b0 & 0x0f;
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    len = 4, min = 0x10000, *cp = b0 & 0x07;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xc0) != 0x80) return 0;
    *cp = (*cp << 6) | (b & 0x3f);
  }
  if (*cp < min || *cp > 0x10ffff || (*cp >= 0xd800 && *cp <= 0xdfff)) return 0;
  return len;
}

std::string in_quotes(std::string_view text) { return "'" + printable(text) + "'"; }

// Edit distance with adjacent transpositions counted as one edit (optimal string alignment), for "did you
// mean" under an unknown option: --stpe is one edit from --step.
size_t distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] =
          std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

bool looks_like_option(const std::string& arg) {
  if (arg.size() < 2 || arg[0] != '-') return false;
  return arg[1] == '-' || !(arg[1] >= '0' && arg[1] <= '9');  // "-5" is a negative number
}

// "--stpe=3" -> "stpe"
std::string option_name(const std::string& arg) {
  const size_t start = arg.find_first_not_of('-');
  if (start == std::string::npos) return arg;
  return arg.substr(start, arg.find('=') == std::string::npos ? std::string::npos : arg.find('=') - start);
}

[[noreturn]] void unknown_option(const CLI::App* command, const std::string& arg) {
  const std::string name = option_name(arg);
  std::string best;
  size_t best_distance = 3;  // suggest only close spellings
  for (const CLI::Option* opt : command->get_options()) {
    for (const std::string& known : opt->get_lnames()) {
      const size_t d = distance(name, known);
      if (d < best_distance) best_distance = d, best = known;
    }
  }
  std::string message = "unknown option " + in_quotes(arg) + " for " + command->get_name();
  if (!best.empty()) message += " (did you mean --" + best + "?)";
  message += "; see layoutscope " + command->get_name() + " --help";
  fail(message, name);
}

// The command's hidden last positional: it catches an argument beyond the command's own, which makes
// the extra argument an error here, and keeps `--` working after the command's positionals are satisfied
// (CLI11 hands `--` back to the parent app when no positional is still open).
constexpr const char* kSurplus = "surplus";

void check_strict(CLI::App* command) {
  for (const CLI::App* app :
       {static_cast<const CLI::App*>(command->get_parent()), static_cast<const CLI::App*>(command)}) {
    for (const std::string& extra : app->remaining()) {
      if (extra != "--" && looks_like_option(extra)) unknown_option(command, extra);
    }
  }
  for (const CLI::App* app :
       {static_cast<const CLI::App*>(command->get_parent()), static_cast<const CLI::App*>(command)}) {
    for (const std::string& extra : app->remaining()) {
      if (extra == "--") continue;
      fail(make_error("unexpected argument " + in_quotes(extra) + " for " + command->get_name() +
                          "; see layoutscope " + command->get_name() + " --help",
                      0, "arguments"));
    }
  }
  if (const CLI::Option* surplus = command->get_option_no_throw(kSurplus); surplus && surplus->count() > 0) {
    fail(make_error("unexpected argument " + in_quotes(surplus->results().front()) + " for " +
                        command->get_name() + "; see layoutscope " + command->get_name() + " --help",
                    0, "arguments"));
  }
  for (const CLI::Option* opt : command->get_options()) {
    if (opt->get_positional() || opt->count() <= 1) continue;
    const std::string name = opt->get_lnames().empty() ? opt->get_name() : opt->get_lnames().front();
    std::string values;
    for (const std::string& v : opt->results()) values += (values.empty() ? "" : ", ") + in_quotes(v);
    fail("--" + name + " is given " + std::to_string(opt->count()) + " times (" + values + "); give it once",
         name);
  }
}

}  // namespace

void fail(const Error& error, std::string input) { throw Failure{error, std::move(input)}; }

void fail(std::string message, std::string field) {
  fail(make_error(std::move(message), 0, std::move(field)));
}

std::string printable(std::string_view text, std::vector<int>* columns) {
  std::string out;
  out.reserve(text.size());
  int width = 0;
  size_t i = 0;
  while (i < text.size()) {
    if (columns) columns->push_back(width);
    uint32_t cp = 0;
    const size_t len = utf8_sequence(text, i, &cp);
    const size_t before = out.size();
    if (len == 0) {
      out += hex_byte(static_cast<unsigned char>(text[i]));
      i += 1;
    } else if (cp < 0x20 || cp == 0x7f) {
      switch (cp) {
        case 0x1b:
          out += "\\e";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\t':
          out += "\\t";
          break;
        default:
          out += hex_byte(static_cast<unsigned char>(cp));
      }
      i += 1;
    } else if (is_format_control(cp)) {
      out += u_escape(cp);
      i += len;
    } else {
      out.append(text.substr(i, len));
      i += len;
      width += 1;  // one code point, shown in one column
      continue;
    }
    width += static_cast<int>(out.size() - before);
  }
  if (columns) columns->push_back(width);
  return out;
}

std::string dump(const Json& j) {
  const std::string text = j.dump(-1, ' ', false, Json::error_handler_t::replace);
  // The dump is valid UTF-8, and JSON may spell any character as \uXXXX: do so for the characters a
  // terminal would act on (nlohmann escapes C0 itself).
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b < 0xc2) {
      out += text[i++];
      continue;
    }
    uint32_t cp = 0;
    const size_t len = std::max<size_t>(utf8_sequence(text, i, &cp), 1);
    if (is_format_control(cp)) {
      out += u_escape(cp);
    } else {
      out.append(text, i, len);
    }
    i += len;
  }
  return out;
}

void emit(const Json& j) { std::cout << dump(j) << '\n'; }

void print_failure(const Failure& failure, int line) {
  const Error& e = failure.error;
  Json err = {{"message", e.message}};
  if (e.column > 0) err["column"] = e.column;
  if (!e.field.empty()) err["field"] = e.field;
  if (!failure.input.empty()) err["input"] = failure.input;
  if (line > 0) err["line"] = line;
  std::cout << dump(Json{{"error", err}}) << '\n';
  std::cerr << "layoutscope: " << (line > 0 ? "line " + std::to_string(line) + ": " : "")
            << printable(e.message) << '\n';
  if (e.column > 0 && !failure.input.empty()) {
    std::vector<int> columns;
    const std::string shown = printable(failure.input, &columns);
    const size_t at = std::min(static_cast<size_t>(e.column - 1), columns.size() - 1);
    std::cerr << "  " << shown << "\n  " << std::string(static_cast<size_t>(columns[at]), ' ') << "^\n";
  }
}

Result<int64_t> parse_decimal(std::string_view text, const std::string& label, const std::string& field,
                              int64_t min, int64_t max, int column_base) {
  const auto error = [&](const std::string& what, size_t at) {
    return make_error(label + ": " + what, column_base + static_cast<int>(at), field);
  };
  const std::string range = "[" + std::to_string(min) + ", " + std::to_string(max) + "]";
  if (text.empty()) return error("expected a decimal number, found nothing", 0);
  size_t i = 0;
  const bool negative = text[0] == '-';
  if (text[0] == '+') return error(in_quotes(text) + ": write the number without '+'", 0);
  if (negative) ++i;
  if (i == text.size() || !(text[i] >= '0' && text[i] <= '9')) {
    return error("expected a decimal number, found " + in_quotes(text), i);
  }
  if (text[i] == '0' && i + 1 < text.size()) {
    if (text[i + 1] == 'x' || text[i + 1] == 'X')
      return error(in_quotes(text) + ": hexadecimal is not accepted, numbers are decimal", i);
    if (text[i + 1] >= '0' && text[i + 1] <= '9') {
      const size_t digits = text.find_first_not_of('0', i);
      const std::string plain = std::string(negative ? "-" : "") +
                                std::string(digits == std::string_view::npos ? "0" : text.substr(digits));
      return error(in_quotes(text) +
                       " has a leading zero (octal is not accepted, numbers are decimal: write " +
                       in_quotes(plain) + ")",
                   i);
    }
  }
  int64_t v = 0;
  size_t j = i;
  for (; j < text.size() && text[j] >= '0' && text[j] <= '9'; ++j) {
    const int64_t digit = text[j] - '0';
    if (mul_overflows(v, 10, &v) || (negative ? add_overflows(v, -digit, &v) : add_overflows(v, digit, &v))) {
      return error(in_quotes(text) + " is outside " + range, 0);
    }
  }
  if (j < text.size()) {
    return error("unexpected " + in_quotes(text.substr(j, 1)) + " after the number in " + in_quotes(text), j);
  }
  if (v < min || v > max) return error(in_quotes(text) + " is outside " + range, 0);
  return v;
}

int64_t decimal_arg(const std::string& text, const std::string& field, int64_t min, int64_t max) {
  auto v = parse_decimal(text, field, field, min, max);
  if (!v) fail(v.error(), text);
  return *v;
}

int64_t option_arg(const Arg& arg, int64_t min, int64_t max) {
  auto v = parse_decimal(arg.value, "--" + arg.name, arg.name, min, max);
  if (!v) fail(v.error(), arg.value);
  return *v;
}

Result<std::vector<int64_t>> parse_decimal_list(std::string_view text, const std::string& field, int64_t min,
                                                int64_t max, bool allow_x) {
  constexpr size_t kMaxDims = 64;
  const auto error = [&](const std::string& what, size_t at) {
    return make_error(field + ": " + what, static_cast<int>(at) + 1, field);
  };
  const auto is_separator = [&](char c) { return c == ',' || (allow_x && (c == 'x' || c == 'X')); };
  const auto skip_spaces = [&](size_t i) {
    while (i < text.size() && text[i] == ' ') ++i;
    return i;
  };
  std::vector<int64_t> out;
  size_t i = skip_spaces(0);
  const bool parenthesized = i < text.size() && text[i] == '(';
  if (parenthesized) i = skip_spaces(i + 1);
  const std::string example = allow_x ? "8,8" : "5,3";
  if (i == text.size()) return error("expected numbers such as " + example + ", found nothing", i);
  while (true) {
    size_t end = i;
    while (end < text.size() && !is_separator(text[end]) && text[end] != ' ' && text[end] != ')') ++end;
    if (end == i) {
      return error("expected a number, found " + in_quotes(text.substr(i, 1)), i);
    }
    auto v = parse_decimal(text.substr(i, end - i), field, field, min, max, static_cast<int>(i) + 1);
    if (!v) return v.error();
    out.push_back(*v);
    if (out.size() > kMaxDims) return error("at most " + std::to_string(kMaxDims) + " numbers", i);
    i = skip_spaces(end);
    if (i == text.size() || text[i] == ')') break;
    if (!is_separator(text[i])) {
      return error(std::string("expected ','") + (allow_x ? " or 'x'" : "") + " between numbers, found " +
                       in_quotes(text.substr(i, 1)),
                   i);
    }
    i = skip_spaces(i + 1);
    if (i == text.size()) return error("ends after a separator", i);
  }
  if (parenthesized) {
    if (i == text.size()) return error("expected ')' to close the '('", i);
    i = skip_spaces(i + 1);
  } else if (i < text.size()) {
    return error("unexpected ')' without a '('", i);
  }
  if (i < text.size()) return error("unexpected " + in_quotes(text.substr(i, 1)) + " after the list", i);
  return out;
}

Layout layout_arg(const std::string& text) {
  auto layout = parse_layout(text);
  if (!layout) fail(layout.error(), text);
  return *layout;
}

std::vector<int64_t> shape_arg(const Arg& shape, const Layout& layout) {
  if (!shape.given()) {
    auto size = default_shape(layout);
    if (!size) fail(size.error());
    return *size;
  }
  auto parsed = parse_decimal_list(shape.value, "shape", 1, std::numeric_limits<int64_t>::max(), true);
  if (!parsed) fail(parsed.error(), shape.value);
  return *parsed;
}

int64_t limit_arg(const Arg& limit, int64_t default_limit) {
  return limit.given() ? option_arg(limit, 1, std::numeric_limits<int64_t>::max()) : default_limit;
}

int for_each_layout(const std::string& layout_text, const std::function<int(const std::string&)>& run) {
  if (layout_text != "-") return run(layout_text);
  int status = 0;
  int number = 0;
  std::string line;
  while (std::getline(std::cin, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();  // files written on Windows
    try {
      status = std::max(status, run(line));
    } catch (const Failure& failure) {
      print_failure(failure, number);
      status = 2;
    }
    std::cout.flush();  // one answer per line as it comes, for pipelines
  }
  return status;
}

CLI::App* add_command(CLI::App& app, const std::string& name, const std::string& description,
                      const std::string& examples) {
  CLI::App* command = app.add_subcommand(name, description);
  command->footer("Examples:\n" + examples);
  return command;
}

CLI::Option* add_arg(CLI::App* command, Arg& arg, const std::string& name, const std::string& value_name,
                     const std::string& description) {
  arg.name = name;
  arg.option = command->add_option("--" + name, arg.value, description)->type_name(value_name);
  return arg.option;
}

void on_run(CLI::App* command, std::function<int()> body) {
  auto surplus = std::make_shared<std::string>();
  command->add_option(kSurplus, *surplus)->group("");
  command->callback([command, body = std::move(body), surplus] {
    check_strict(command);
    if (const int status = body(); status != 0) throw CLI::RuntimeError(status);
  });
}

std::string Formatter::make_usage(const CLI::App* app, std::string name) const {
  std::string out = "Usage: " + name;
  if (!app->get_options([](const CLI::Option* o) { return o->nonpositional(); }).empty()) out += " [OPTIONS]";
  if (!app->get_subcommands([](const CLI::App*) { return true; }).empty()) out += " COMMAND";
  for (const CLI::Option* o : app->get_options([](const CLI::Option* o) { return o->get_positional(); })) {
    if (o->get_group().empty()) continue;
    out += " " + o->get_name() + (o->get_expected_max() > 1 ? "..." : "");
  }
  return out + "\n";
}

Json position_json(const std::vector<std::string>& axes, const int64_t* values) {
  Json p = Json::object();
  for (size_t a = 0; a < axes.size(); ++a) p[axes[a]] = values[a];
  return p;
}

}  // namespace layoutscope::cli
