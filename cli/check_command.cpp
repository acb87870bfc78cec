// check: validation findings; exit status 1 when one of them is an error.
#include "cli_support.hpp"
#include "layoutscope/mapping.hpp"
#include "layoutscope/parse.hpp"
#include "layoutscope/validate.hpp"

namespace layoutscope::cli {
namespace {

struct CheckArgs {
  std::string layout;
  CLI::Option* layout_option = nullptr;
  Arg shape, limit;
};

int run(const CheckArgs& args, const std::string& text) {
  const Layout layout = layout_arg(text);
  const auto shape = shape_arg(args.shape, layout);
  auto findings = validate(layout, shape, limit_arg(args.limit, kDefaultCellLimit));
  if (!findings) fail(findings.error());
  Json out = Json::array();
  bool ok = true;
  for (const auto& f : *findings) {
    ok = ok && f.severity != Severity::kError;
    out.push_back(
        {{"severity", to_string(f.severity)}, {"code", f.code}, {"message", f.message}, {"where", f.where}});
  }
  emit({{"layout", to_string(layout)}, {"shape", shape}, {"ok", ok}, {"findings", out}});
  return ok ? 0 : 1;
}

}  // namespace

void add_check_command(CLI::App& app) {
  auto args = std::make_shared<CheckArgs>();
  CLI::App* command = add_command(
      app, "check", "Validation findings; exit status 1 when one is an error",
      "  layoutscope check 'S[(8,4):(4@laneid,1@laneid)] + O[8@laneid]' --shape 8,4\n"
      "  layoutscope check - < layouts.txt          (a line per layout; status: the worst line)\n");
  args->layout_option =
      command->add_option("EXPR", args->layout, "The layout; - reads layouts from standard input, one a line")
          ->type_name("");
  add_arg(command, args->shape, "shape", "R,C",
          "Logical shape (default: one dimension of the layout's size)");
  add_arg(command, args->limit, "limit", "N", "Cells the whole-table checks may visit (default 2^22)");
  on_run(command, [args] {
    if (args->layout_option->count() == 0) fail("check needs EXPR; see layoutscope check --help", "layout");
    return for_each_layout(args->layout, [&](const std::string& text) { return run(*args, text); });
  });
}

}  // namespace layoutscope::cli
