// algebra: CuTe's layout algebra (composition, complement, inverses, divides, products, max_common_vector) on
// layouts written in CuTe's syntax or the chapter's (shared/include/layoutscope/algebra.hpp).
#include <memory>

#include "cli_support.hpp"
#include "layoutscope/algebra.hpp"

namespace layoutscope::cli {
namespace {

struct AlgebraArgs {
  std::string op;
  Arg first;
  Arg second;
  Arg syntax;
};

// One line of `algebra -`: "OP ARG ARG", the arguments split at spaces outside (), [] and <> and outside
// quotes ('...' or "..."), so "[3:4, 8:2]" and "Sw<3,4,3> o 0 o (8,8):(8,1)" stay one argument each
// when quoted or written without spaces.
std::vector<std::string> split_line(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool have = false;
  int level = 0;
  char quote = 0;
  for (char c : line) {
    if (quote) {
      if (c == quote) {
        quote = 0;
      } else {
        cur += c;
      }
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      have = true;
      continue;
    }
    if (c == '(' || c == '[' || c == '<') ++level;
    if ((c == ')' || c == ']' || c == '>') && level > 0) --level;
    if ((c == ' ' || c == '\t') && level == 0) {
      if (have) out.push_back(cur);
      cur.clear();
      have = false;
      continue;
    }
    cur += c;
    have = true;
  }
  if (quote) fail(make_error("a quote is not closed", static_cast<int>(line.size()) + 1, "line"), line);
  if (have) out.push_back(cur);
  return out;
}

int run_algebra(const std::string& op, const std::vector<std::string>& args, cute::AlgebraSyntax syntax) {
  auto result = cute::algebra(op, args, syntax);
  if (!result) {
    // The column counts inside the argument the error names ("argument 2").
    const std::string& field = result.error().field;
    std::string input;
    if (field.rfind("argument ", 0) == 0) {
      const size_t i = static_cast<size_t>(std::atoi(field.c_str() + 9));
      if (i >= 1 && i <= args.size()) input = args[i - 1];
    }
    fail(result.error(), input);
  }
  Json j = {{"op", op},
            {"result", result->result},
            {"axe", result->axe},
            {"shape", result->shape},
            {"size", result->size},
            {"cosize", result->cosize}};
  if (result->vector) j["vector"] = *result->vector;
  if (!result->note.empty()) j["note"] = result->note;
  emit(j);
  return 0;
}

}  // namespace

void add_algebra_command(CLI::App& app) {
  auto a = std::make_shared<AlgebraArgs>();
  std::string ops;
  for (std::string_view op : cute::algebra_operations()) ops += (ops.empty() ? "" : ", ") + std::string(op);
  CLI::App* command = add_command(
      app, "algebra", "CuTe's layout algebra: " + ops + " (OP '-' reads one 'OP ARG...' per line)",
      "  layoutscope algebra composition --syntax cute '(20):(2)' '(5,4):(4,1)'   -> (5,4):(8,2)\n"
      "  layoutscope algebra complement --syntax cute '(4):(2)' 24\n"
      "  layoutscope algebra logical_divide --syntax cute '(4,2,3):(2,1,8)' '[4:2]'\n"
      "  layoutscope algebra composition --syntax cute '(12,(4,8)):(59,(13,1))' '[3:4,8:2]'\n"
      "  layoutscope algebra max_common_vector 'S[(8,8):(8,1)]' 'S[(8,8):(1,8)]'\n"
      "  printf 'coalesce ((16,4),128):((1@0,16@0),1@1)\\n' | layoutscope algebra --syntax cute -\n");
  command->add_option("OP", a->op, "The operation, or - for one 'OP ARG...' per line of standard input")
      ->type_name("");
  // Two single positionals rather than a list: CLI11 would split a list value "[2:1,3:2]" at its commas.
  a->first.option =
      command->add_option("A", a->first.value, "A layout, a shape (6,20), an integer or a tiler [L0,L1]")
          ->type_name("");
  a->second.option =
      command->add_option("B", a->second.value, "The second argument, for the operations that take one")
          ->type_name("");
  add_arg(command, a->syntax, "syntax", "cute|axe", "How the layouts are written (default: axe)");
  on_run(command, [a] {
    if (a->op.empty()) fail("algebra needs OP (" + std::string("see layoutscope algebra --help") + ")", "op");
    auto syntax = cute::parse_algebra_syntax(a->syntax.given() ? a->syntax.value : "axe");
    if (!syntax) fail(make_error(syntax.error().message, 0, "syntax"), a->syntax.value);
    std::vector<std::string> args;
    for (const Arg* given : {&a->first, &a->second})
      if (given->given()) args.push_back(given->value);
    if (a->op != "-") return run_algebra(a->op, args, *syntax);
    if (!args.empty())
      fail(make_error("algebra - reads its arguments from standard input; found " + args.front(), 0,
                      "arguments"));
    return for_each_layout("-", [&](const std::string& line) {
      const std::vector<std::string> words = split_line(line);
      if (words.empty()) fail(make_error("an empty line; expected OP ARG...", 1, "line"), line);
      return run_algebra(words[0], std::vector<std::string>(words.begin() + 1, words.end()), *syntax);
    });
  });
}

}  // namespace layoutscope::cli
