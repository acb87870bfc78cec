// canon: the canonical form of a layout (contiguous modes fused, extent-1 modes dropped).
#include "cli_support.hpp"
#include "layoutscope/canonical.hpp"
#include "layoutscope/parse.hpp"

namespace layoutscope::cli {

void add_canon_command(CLI::App& app) {
  auto layout = std::make_shared<std::string>();
  CLI::App* command =
      add_command(app, "canon", "Canonical form: contiguous modes fused, extent-1 modes dropped",
                  "  layoutscope canon 'S[(2,3,6):(18,6,1)]'        -> S[36:1]\n");
  CLI::Option* expr =
      command->add_option("EXPR", *layout, "The layout; - reads layouts from standard input, one a line")
          ->type_name("");
  on_run(command, [layout, expr] {
    if (expr->count() == 0) fail("canon needs EXPR; see layoutscope canon --help", "layout");
    return for_each_layout(*layout, [](const std::string& text) {
      const Layout parsed = layout_arg(text);
      emit({{"input", to_string(parsed)}, {"canonical", to_string(canonicalize(parsed))}});
      return 0;
    });
  });
}

}  // namespace layoutscope::cli
