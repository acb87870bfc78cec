// table: every element's positions, streamed as JSON lines (NDJSON): first the header
// {"layout", "shape", "axes", "elements", "replicas"} (and "partials" when the layout has P[...]), then one
// line
// {"index", "positions": [{axis: value, ...}, ...]} per element in flat order. The layout is compiled once
// and each row is written as it is mapped, so memory stays a few kilobytes however large the table, and a
// reader (jq, a line-by-line parser) holds one row at a time instead of one object of the whole table.
#include <charconv>
#include <cstdio>

#include "cli_support.hpp"
#include "layoutscope/checked.hpp"
#include "layoutscope/mapping.hpp"
#include "layoutscope/parse.hpp"

namespace layoutscope::cli {
namespace {

// The default refusal: the engine's cell limit, 2^22 elements x replicas.
constexpr int64_t kDefaultTableCells = kDefaultCellLimit;

struct TableArgs {
  std::string layout;
  CLI::Option* layout_option = nullptr;
  Arg shape, limit;
  FromArgs from;
};

// Text to stdout through a buffer of its own (fwrite per megabyte; std::cout shares the same FILE).
class Writer {
 public:
  Writer() { buffer_.reserve(kFlushAt + 4096); }
  ~Writer() { flush(); }
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  void put(std::string_view text) {
    buffer_.append(text);
    if (buffer_.size() >= kFlushAt) flush();
  }
  void put(int64_t v) {
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof digits, v).ptr;
    buffer_.append(digits, end);
  }
  void flush() {
    std::fwrite(buffer_.data(), 1, buffer_.size(), stdout);
    buffer_.clear();
  }

 private:
  static constexpr size_t kFlushAt = size_t{1} << 20;
  std::string buffer_;
};

int run(const TableArgs& args, const std::string& text) {
  const LayoutInput input = layout_input(text, args.from, args.shape);
  const Layout& layout = input.layout;
  const std::vector<int64_t>& shape = input.shape;
  auto compiled = compile_for_shape(layout, shape);
  if (!compiled) fail(compiled.error());
  const CompiledLayout& c = *compiled;
  const int64_t limit = limit_arg(args.limit, kDefaultTableCells);
  int64_t cells = 0, values = 0;
  if (mul_overflows(c.size(), c.holders(), &cells) || cells > limit ||
      mul_overflows(cells, c.axis_count(), &values) || values / kValuesPerCellBudget > limit) {
    fail(make_error("the table has " + std::to_string(c.size()) + " elements x " +
                        std::to_string(c.holders()) + " positions on " + std::to_string(c.axis_count()) +
                        " axes, more than the limit of " + std::to_string(limit) + " cells (" +
                        std::to_string(kValuesPerCellBudget) +
                        " axis values a cell); raise --limit or use eval or inverse",
                    0, "shape"));
  }
  const auto& axes = c.axes();
  // "{"m": ... and ,"laneid": ...: the text before each value of a position.
  std::vector<std::string> keys;
  for (size_t a = 0; a < axes.size(); ++a) keys.push_back((a ? "," : "") + dump(Json(axes[a])) + ":");
  const auto n = static_cast<size_t>(c.axis_count());

  std::cout.flush();  // what std::cout holds goes first
  Writer out;
  out.put("{\"layout\":");
  out.put(dump(Json(to_string(layout))));
  out.put(",\"shape\":");
  out.put(dump(Json(shape)));
  out.put(",\"axes\":");
  out.put(dump(Json(axes)));
  out.put(",\"elements\":");
  out.put(c.size());
  out.put(",\"replicas\":");
  out.put(c.replicas());
  if (c.has_partials()) {
    out.put(",\"partials\":");  // positions are listed holder by holder: h = replica * partials + partial
    out.put(c.partials());
  }
  out.put("}\n");
  std::vector<int64_t> positions(n * static_cast<size_t>(c.holders()) + 1);
  for (int64_t x = 0; x < c.size(); ++x) {
    c.map_replicas(x, positions.data());
    out.put("{\"index\":");
    out.put(x);
    out.put(",\"positions\":[");
    for (int64_t r = 0; r < c.holders(); ++r) {
      out.put(r ? ",{" : "{");
      const int64_t* p = positions.data() + static_cast<size_t>(r) * n;
      for (size_t a = 0; a < n; ++a) {
        out.put(keys[a]);
        out.put(p[a]);
      }
      out.put("}");
    }
    out.put("]}\n");
  }
  return 0;
}

}  // namespace

void add_table_command(CLI::App& app) {
  auto args = std::make_shared<TableArgs>();
  CLI::App* command = add_command(
      app, "table", "Every element's positions, streamed: a header line, then one JSON line per element",
      "  layoutscope table 'S[(4,2,2,4):(16,4,8,1)]' --shape 8,8\n"
      "  layoutscope table 'S[(2048,2048):(2048,1)]' | jq -c 'select(.index == 5) | .positions'\n");
  args->layout_option =
      command->add_option("EXPR", args->layout, "The layout; - reads layouts from standard input, one a line")
          ->type_name("");
  add_arg(command, args->shape, "shape", "R,C",
          "Logical shape (default: one dimension of the layout's size)");
  add_from_args(command, args->from);
  add_arg(command, args->limit, "limit", "N",
          "Refuse tables of more elements x replicas than N (default " + std::to_string(kDefaultTableCells) +
              " = 2^22; at most 8 axis values a cell)");
  on_run(command, [args] {
    if (args->layout_option->count() == 0) fail("table needs EXPR; see layoutscope table --help", "layout");
    return for_each_layout(args->layout, [&](const std::string& text) { return run(*args, text); });
  });
}

}  // namespace layoutscope::cli
