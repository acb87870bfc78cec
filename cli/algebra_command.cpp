// algebra: CuTe's layout algebra (composition, complement, inverses, divides, products, max_common_vector) on
// layouts written in CuTe's syntax or the chapter's (shared/include/layoutscope/algebra.hpp).
#include <memory>

#include "cli_support.hpp"
#include "layoutscope/algebra.hpp"

namespace layoutscope::cli {
namespace {

struct AlgebraArgs {
  std::string op;
  std::vector<std::string> args;
  Arg syntax;
};

}  // namespace

void add_algebra_command(CLI::App& app) {
  auto a = std::make_shared<AlgebraArgs>();
  std::string ops;
  for (std::string_view op : cute::algebra_operations()) ops += (ops.empty() ? "" : ", ") + std::string(op);
  CLI::App* command = add_command(
      app, "algebra", "CuTe's layout algebra: " + ops,
      "  layoutscope algebra composition --syntax cute '(20):(2)' '(5,4):(4,1)'   -> (5,4):(8,2)\n"
      "  layoutscope algebra complement --syntax cute '(4):(2)' 24\n"
      "  layoutscope algebra logical_divide --syntax cute '(4,2,3):(2,1,8)' '[4:2]'\n"
      "  layoutscope algebra max_common_vector 'S[(8,8):(8,1)]' 'S[(8,8):(1,8)]'\n");
  command->add_option("OP", a->op, "The operation")->type_name("");
  command->add_option("ARG", a->args, "Layouts, shapes (6,20), integers or tilers [L0,L1]")->type_name("");
  add_arg(command, a->syntax, "syntax", "cute|axe", "How the layouts are written (default: axe)");
  on_run(command, [a] {
    if (a->op.empty()) fail("algebra needs OP (" + std::string("see layoutscope algebra --help") + ")", "op");
    auto syntax = cute::parse_algebra_syntax(a->syntax.given() ? a->syntax.value : "axe");
    if (!syntax) fail(make_error(syntax.error().message, 0, "syntax"), a->syntax.value);
    auto result = cute::algebra(a->op, a->args, *syntax);
    if (!result) {
      // The column counts inside the argument the error names ("argument 2").
      const std::string& field = result.error().field;
      std::string input;
      if (field.rfind("argument ", 0) == 0) {
        const size_t i = static_cast<size_t>(std::atoi(field.c_str() + 9));
        if (i >= 1 && i <= a->args.size()) input = a->args[i - 1];
      }
      fail(result.error(), input);
    }
    Json j = {{"op", a->op},          {"result", result->result},
              {"axe", result->axe},   {"shape", result->shape},
              {"size", result->size}, {"cosize", result->cosize}};
    if (result->vector) j["vector"] = *result->vector;
    emit(j);
    return 0;
  });
}

}  // namespace layoutscope::cli
