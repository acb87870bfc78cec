// inverse: every (element, replica) stored at a physical position.
#include <algorithm>
#include <limits>

#include "cli_support.hpp"
#include "layoutscope/mapping.hpp"

namespace layoutscope::cli {
namespace {

struct InverseArgs {
  std::string layout;
  CLI::Option* layout_option = nullptr;
  std::vector<std::string> terms;
  Arg shape, limit;
};

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// AXIS=V terms, each axis one the layout has, each at most once.
std::vector<AxisValue> parse_query(const std::vector<std::string>& terms,
                                   const std::vector<std::string>& axes) {
  std::vector<AxisValue> query;
  for (const std::string& term : terms) {
    const size_t eq = term.find('=');
    if (eq == std::string::npos || eq == 0) {
      fail(make_error("expected AXIS=VALUE, got '" + printable(term) + "'", 1, "query"), term);
    }
    const std::string axis = term.substr(0, eq);
    if (std::find(axes.begin(), axes.end(), axis) == axes.end()) {
      fail(make_error("the layout has no axis '" + printable(axis) + "' (its axes: " + join(axes) + ")", 1,
                      axis),
           term);
    }
    const auto same =
        std::find_if(query.begin(), query.end(), [&](const AxisValue& q) { return q.axis == axis; });
    if (same != query.end()) {
      fail(make_error("axis " + axis + " is queried twice (" + axis + "=" + std::to_string(same->value) +
                          " and " + printable(term) + "); give each axis once",
                      1, axis),
           term);
    }
    auto value =
        parse_decimal(std::string_view(term).substr(eq + 1), axis, axis, std::numeric_limits<int64_t>::min(),
                      std::numeric_limits<int64_t>::max(), static_cast<int>(eq) + 2);
    if (!value) fail(value.error(), term);
    query.push_back({axis, *value});
  }
  return query;
}

int run(const InverseArgs& args, const std::string& text) {
  const Layout layout = layout_arg(text);
  const auto shape = shape_arg(args.shape, layout);
  const auto axes = layout_axes(layout);
  const std::vector<AxisValue> query = parse_query(args.terms, axes);
  Json q = Json::object();
  for (const AxisValue& term : query) q[term.axis] = term.value;
  auto hits = inverse(layout, shape, query, limit_arg(args.limit, kDefaultCellLimit));
  if (!hits) fail(hits.error());
  Json out = Json::array();
  for (const auto& h : *hits) {
    out.push_back({{"index", h.index},
                   {"coord", h.coord},
                   {"replica", h.replica},
                   {"position", position_json(axes, h.position.values.data())}});
  }
  emit({{"query", q}, {"count", hits->size()}, {"hits", out}});
  return 0;
}

}  // namespace

void add_inverse_command(CLI::App& app) {
  auto args = std::make_shared<InverseArgs>();
  CLI::App* command = add_command(
      app, "inverse",
      "Inverse map: every (element, replica) at a physical position; axes not named match any value",
      "  layoutscope inverse 'S[(4,32,4):(1@TCol,1@TLane,1@byte)] + R[4:32@TLane]' --shape 128,4 \\\n"
      "      TLane=32 TCol=2 byte=2\n");
  args->layout_option =
      command->add_option("EXPR", args->layout, "The layout; - reads layouts from standard input, one a line")
          ->type_name("");
  command->add_option("AXIS=V", args->terms, "A value on one of the layout's axes (each axis at most once)")
      ->type_name("");
  add_arg(command, args->shape, "shape", "R,C",
          "Logical shape (default: one dimension of the layout's size)");
  add_arg(command, args->limit, "limit", "N", "Refuse layouts of more elements x replicas (default 2^22)");
  on_run(command, [args] {
    if (args->layout_option->count() == 0 || args->terms.empty())
      fail("inverse needs EXPR and at least one AXIS=V; see layoutscope inverse --help", "query");
    return for_each_layout(args->layout, [&](const std::string& text) { return run(*args, text); });
  });
}

}  // namespace layoutscope::cli
