// eval: where logical elements sit, each with the derivation that puts it there.
#include <limits>

#include "cli_support.hpp"
#include "layoutscope/mapping.hpp"

namespace layoutscope::cli {
namespace {

struct EvalArgs {
  std::string layout;
  CLI::Option* layout_option = nullptr;
  std::vector<std::string> queries;
  Arg shape;
};

Result<Mapping> evaluate(const Layout& layout, const std::vector<int64_t>& shape, const std::string& query) {
  constexpr int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
  if (query.find_first_of(",(") == std::string::npos) {
    return forward_index(layout, shape, decimal_arg(query, "query", lo, hi));
  }
  auto coord = parse_decimal_list(query, "query", lo, hi, false);
  if (!coord) fail(coord.error(), query);
  return forward_coord(layout, shape, *coord);
}

int run(const EvalArgs& args, const std::string& text) {
  const Layout layout = layout_arg(text);
  const auto shape = shape_arg(args.shape, layout);
  const auto axes = layout_axes(layout);
  for (const std::string& query : args.queries) {
    auto mapping = evaluate(layout, shape, query);
    if (!mapping) fail(mapping.error(), query);
    Json positions = Json::array();
    for (const auto& p : mapping->positions) positions.push_back(position_json(axes, p.values.data()));
    emit({{"index", mapping->index},
          {"coord", mapping->coord},
          {"split", mapping->split},
          {"positions", positions},
          {"derivation", mapping->derivation}});
  }
  return 0;
}

}  // namespace

void add_eval_command(CLI::App& app) {
  auto args = std::make_shared<EvalArgs>();
  CLI::App* command = add_command(
      app, "eval", "Forward map: the positions of each queried element, with the derivation (a line each)",
      "  layoutscope eval 'S[(8,4,2):(4@laneid,1@laneid,1@reg)]' --shape 8,8 43 5,3\n"
      "  printf 'S[8:1]\\nS[8:2]\\n' | layoutscope eval - 3       (a line per layout and query)\n");
  args->layout_option =
      command->add_option("EXPR", args->layout, "The layout; - reads layouts from standard input, one a line")
          ->type_name("");
  command->add_option("QUERY", args->queries, "A flat index (43) or a coordinate in the logical shape (5,3)")
      ->type_name("");
  add_arg(command, args->shape, "shape", "R,C",
          "Logical shape (default: one dimension of the layout's size)");
  on_run(command, [args] {
    if (args->layout_option->count() == 0 || args->queries.empty())
      fail("eval needs EXPR and at least one QUERY; see layoutscope eval --help", "query");
    return for_each_layout(args->layout, [&](const std::string& text) { return run(*args, text); });
  });
}

}  // namespace layoutscope::cli
