// layoutscope: the layout engine on the command line. JSON on stdout; bad input exits 2 with
// {"error": {"message", "column", "field"}} on stdout and a caret under the bad column on stderr.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "layoutscope/canonical.hpp"
#include "layoutscope/dtype.hpp"
#include "layoutscope/mapping.hpp"
#include "layoutscope/memory_access.hpp"
#include "layoutscope/parse.hpp"
#include "layoutscope/validate.hpp"

namespace ls = layoutscope;
using Json = nlohmann::ordered_json;

namespace {

constexpr const char* kUsage =
    R"(layoutscope - GPU data layouts: S[(shape):(strides@axis)] + R[...] + O[...], swizzles

usage:
  layoutscope eval    EXPR [--shape 8,8] QUERY...       QUERY: flat index (43) or coordinate (5,3)
  layoutscope table   EXPR [--shape R,C] [--limit N]    every element's positions
  layoutscope inverse EXPR [--shape R,C] AXIS=V...      elements stored at a position (unnamed axes: any)
  layoutscope check   EXPR [--shape R,C]                validation findings (exit 1 if any error)
  layoutscope canon   EXPR                              canonical form (fused modes)
  layoutscope swizzle --mode 128B --dtype f16 OFFSET... element offsets -> swizzled offsets and bytes
  layoutscope banks   --width 4|8|16 [--banks 32] ADDR...       shared-memory wavefronts of one warp access
  layoutscope sectors --width 4 ADDR...                          32 B sectors of one warp access
  banks/sectors also take --layout EXPR [--shape ..] --elem-bytes B [--start I] [--step K] [--lanes 32]:
  lane i reads logical element start + i*step through the layout's @m axis.

Without --shape the logical shape is one dimension of the layout's size. Output is JSON, one object per
line. Errors: exit 2 and {"error": {"message", "column", "field"}}.
)";

struct Args {
  std::string command;
  std::vector<std::string> positional;
  std::map<std::string, std::string> options;
};

[[noreturn]] void fail(const ls::Error& e, const std::string& input = {}) {
  Json err = {{"message", e.message}};
  if (e.column > 0) err["column"] = e.column;
  if (!e.field.empty()) err["field"] = e.field;
  if (!input.empty()) err["input"] = input;
  std::cout << Json{{"error", err}}.dump(-1, ' ', false, Json::error_handler_t::replace) << "\n";
  std::cerr << "layoutscope: " << e.message << "\n";
  if (e.column > 0 && !input.empty()) {
    std::cerr << "  " << input << "\n  " << std::string(static_cast<size_t>(e.column - 1), ' ') << "^\n";
  }
  std::exit(2);
}

[[noreturn]] void fail(const std::string& message, const std::string& field = {}) {
  fail(ls::make_error(message, 0, field));
}

void emit(const Json& j) { std::cout << j.dump(-1, ' ', false, Json::error_handler_t::replace) << "\n"; }

Args parse_args(int argc, char** argv) {
  Args a;
  if (argc < 2) {
    std::cerr << kUsage;
    std::exit(2);
  }
  a.command = argv[1];
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--", 0) == 0 && arg.size() > 2 && !(arg[2] >= '0' && arg[2] <= '9')) {
      std::string key = arg.substr(2);
      auto eq = key.find('=');
      if (eq != std::string::npos) {
        a.options[key.substr(0, eq)] = key.substr(eq + 1);
      } else {
        if (i + 1 >= argc) fail("option --" + key + " needs a value", key);
        a.options[key] = argv[++i];
      }
    } else {
      a.positional.push_back(arg);
    }
  }
  return a;
}

int64_t parse_int(const std::string& s, const std::string& field) {
  if (s.empty()) fail("expected a number for " + field, field);
  size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(s, &used, 0);
  } catch (...) {
    fail("'" + s + "' is not a number (" + field + ")", field);
  }
  if (used != s.size()) fail("'" + s + "' is not a number (" + field + ")", field);
  return v;
}

ls::Layout layout_arg(const std::string& text) {
  auto layout = ls::parse_layout(text);
  if (!layout) fail(layout.error(), text);
  return *layout;
}

std::vector<int64_t> shape_arg(const Args& a, const ls::Layout& layout) {
  auto it = a.options.find("shape");
  if (it == a.options.end()) {
    auto shape = ls::default_shape(layout);
    if (!shape) fail(shape.error());
    return *shape;
  }
  auto shape = ls::parse_shape(it->second);
  if (!shape) fail(shape.error(), it->second);
  return *shape;
}

int64_t limit_arg(const Args& a) {
  auto it = a.options.find("limit");
  if (it == a.options.end()) return ls::kDefaultCellLimit;
  const int64_t v = parse_int(it->second, "limit");
  if (v < 1) fail("--limit must be at least 1", "limit");
  return v;
}

Json position_json(const std::vector<std::string>& axes, const int64_t* values) {
  Json p = Json::object();
  for (size_t a = 0; a < axes.size(); ++a) p[axes[a]] = values[a];
  return p;
}

int cmd_eval(const Args& a) {
  if (a.positional.size() < 2) fail("usage: layoutscope eval EXPR [--shape ..] QUERY...", "query");
  const ls::Layout layout = layout_arg(a.positional[0]);
  const auto shape = shape_arg(a, layout);
  const auto axes = ls::layout_axes(layout);
  for (size_t q = 1; q < a.positional.size(); ++q) {
    const std::string& query = a.positional[q];
    ls::Result<ls::Mapping> mapping = ls::make_error("");
    if (query.find(',') != std::string::npos) {
      std::vector<int64_t> c;
      size_t start = 0;
      while (start <= query.size()) {
        size_t comma = query.find(',', start);
        if (comma == std::string::npos) comma = query.size();
        c.push_back(parse_int(query.substr(start, comma - start), "query"));
        start = comma + 1;
      }
      mapping = ls::forward_coord(layout, shape, c);
    } else {
      mapping = ls::forward_index(layout, shape, parse_int(query, "query"));
    }
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

int cmd_table(const Args& a) {
  if (a.positional.size() != 1) fail("usage: layoutscope table EXPR [--shape ..]", "layout");
  const ls::Layout layout = layout_arg(a.positional[0]);
  const auto shape = shape_arg(a, layout);
  auto t = ls::table(layout, shape, limit_arg(a));
  if (!t) fail(t.error());
  Json rows = Json::array();
  const size_t n = t->axes.size();
  for (int64_t x = 0; x < t->elements; ++x) {
    Json positions = Json::array();
    for (int64_t r = 0; r < t->replicas; ++r) {
      positions.push_back(
          position_json(t->axes, t->values.data() + static_cast<size_t>(x * t->replicas + r) * n));
    }
    rows.push_back({{"index", x}, {"positions", positions}});
  }
  emit({{"layout", ls::to_string(layout)},
        {"shape", shape},
        {"axes", t->axes},
        {"elements", t->elements},
        {"replicas", t->replicas},
        {"rows", rows}});
  return 0;
}

int cmd_inverse(const Args& a) {
  if (a.positional.size() < 2) fail("usage: layoutscope inverse EXPR [--shape ..] AXIS=V...", "query");
  const ls::Layout layout = layout_arg(a.positional[0]);
  const auto shape = shape_arg(a, layout);
  std::vector<ls::AxisValue> query;
  Json q = Json::object();
  for (size_t i = 1; i < a.positional.size(); ++i) {
    const std::string& term = a.positional[i];
    const auto eq = term.find('=');
    if (eq == std::string::npos || eq == 0) fail("expected AXIS=VALUE, got '" + term + "'", "query");
    query.push_back({term.substr(0, eq), parse_int(term.substr(eq + 1), term.substr(0, eq))});
    q[query.back().axis] = query.back().value;
  }
  auto hits = ls::inverse(layout, shape, query, limit_arg(a));
  if (!hits) fail(hits.error());
  const auto axes = ls::layout_axes(layout);
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

int cmd_check(const Args& a) {
  if (a.positional.size() != 1) fail("usage: layoutscope check EXPR [--shape ..]", "layout");
  const ls::Layout layout = layout_arg(a.positional[0]);
  const auto shape = shape_arg(a, layout);
  auto findings = ls::validate(layout, shape, limit_arg(a));
  if (!findings) fail(findings.error());
  Json out = Json::array();
  bool ok = true;
  for (const auto& f : *findings) {
    ok = ok && f.severity != ls::Severity::kError;
    out.push_back({{"severity", ls::to_string(f.severity)},
                   {"code", f.code},
                   {"message", f.message},
                   {"where", f.where}});
  }
  emit({{"layout", ls::to_string(layout)}, {"shape", shape}, {"ok", ok}, {"findings", out}});
  return ok ? 0 : 1;
}

int cmd_canon(const Args& a) {
  if (a.positional.size() != 1) fail("usage: layoutscope canon EXPR", "layout");
  const ls::Layout layout = layout_arg(a.positional[0]);
  emit({{"input", ls::to_string(layout)}, {"canonical", ls::to_string(ls::canonicalize(layout))}});
  return 0;
}

int cmd_swizzle(const Args& a) {
  auto mode_it = a.options.find("mode");
  if (mode_it == a.options.end()) fail("swizzle needs --mode (none, 32B, 64B, 128B, 128B_ATOM_32B)", "mode");
  auto mode = ls::parse_swizzle_mode(mode_it->second);
  if (!mode) fail(mode.error());
  auto dtype_it = a.options.find("dtype");
  auto dtype = ls::parse_dtype(dtype_it == a.options.end() ? "f16" : dtype_it->second);
  if (!dtype) fail(dtype.error());
  auto atom = ls::swizzle_atom(*mode, *dtype);
  if (!atom) fail(atom.error());
  const int eb = ls::dtype_bytes(*dtype);
  Json results = Json::array();
  for (const std::string& s : a.positional) {
    const int64_t offset = parse_int(s, "offset");
    if (offset < 0 || offset > (int64_t{1} << 40)) fail("offset " + s + " is outside [0, 2^40]", "offset");
    const int64_t swizzled = ls::apply_swizzle(atom->elements, offset);
    results.push_back({{"offset", offset},
                       {"swizzled", swizzled},
                       {"byte", offset * eb},
                       {"swizzled_byte", ls::apply_swizzle(atom->bytes, offset * eb)},
                       {"row", offset / atom->elements_per_row},
                       {"col", offset % atom->elements_per_row},
                       {"swizzled_col", swizzled % atom->elements_per_row}});
  }
  const ls::Swizzle& e = atom->elements;
  emit(
      {{"mode", ls::to_string(*mode)},
       {"dtype", ls::to_string(*dtype)},
       {"atom",
        {{"rows", atom->rows}, {"row_bytes", atom->row_bytes}, {"elements_per_row", atom->elements_per_row}}},
       {"bytes", ls::to_string(atom->bytes)},
       {"elements", ls::to_string(e)},
       {"tirx", "ComposeLayout(per_element=" + std::to_string(e.base) + ", swizzle_len=" +
                    std::to_string(e.bits) + ", atom_len=" + std::to_string(e.shift) + ", ...)"},
       {"results", results}});
  return 0;
}

int width_arg(const Args& a) {
  auto it = a.options.find("width");
  if (it == a.options.end()) fail("needs --width (bytes per lane: 4, 8 or 16)", "width");
  return static_cast<int>(parse_int(it->second, "width"));
}

std::vector<int64_t> lane_addrs_arg(const Args& a) {
  if (auto it = a.options.find("layout"); it != a.options.end()) {
    const ls::Layout layout = layout_arg(it->second);
    const auto shape = shape_arg(a, layout);
    auto get = [&](const char* key, int64_t dflt) {
      auto o = a.options.find(key);
      return o == a.options.end() ? dflt : parse_int(o->second, key);
    };
    const int64_t lanes = get("lanes", 32), start = get("start", 0), step = get("step", 1);
    const int64_t elem_bytes = get("elem-bytes", 4);
    if (lanes < 1 || lanes > 1024) fail("--lanes must be 1 to 1024", "lanes");
    std::vector<int64_t> indices;
    for (int64_t i = 0; i < lanes; ++i) indices.push_back(start + i * step);
    auto addrs = ls::lane_addresses(layout, shape, indices, static_cast<int>(elem_bytes));
    if (!addrs) fail(addrs.error());
    return *addrs;
  }
  std::vector<int64_t> addrs;
  for (const std::string& s : a.positional) addrs.push_back(parse_int(s, "addrs"));
  return addrs;
}

int cmd_banks(const Args& a) {
  const int width = width_arg(a);
  const auto addrs = lane_addrs_arg(a);
  ls::BankModel model;
  if (auto it = a.options.find("banks"); it != a.options.end()) {
    model.banks = static_cast<int>(parse_int(it->second, "banks"));
    if (model.banks < 1 || model.banks > 64) fail("--banks must be 1 to 64", "banks");
    model.wavefront_bytes = model.banks * model.word_bytes;
  }
  auto r = ls::bank_access(addrs, width, model);
  if (!r) fail(r.error());
  emit({{"width", width},
        {"banks", model.banks},
        {"lanes", addrs.size()},
        {"lanes_per_wavefront", r->lanes_per_group},
        {"ideal_wavefronts", r->groups},
        {"wavefronts", r->cycles},
        {"cycles", r->cycles},
        {"conflict_ways", r->max_ways},
        {"group_wavefronts", r->group_cycles},
        {"lane_bank", r->lane_bank},
        {"lane_cycle", r->lane_cycle},
        {"addrs", addrs}});
  return 0;
}

int cmd_sectors(const Args& a) {
  const int width = width_arg(a);
  const auto addrs = lane_addrs_arg(a);
  auto r = ls::sector_access(addrs, width);
  if (!r) fail(r.error());
  emit({{"width", width},
        {"lanes", addrs.size()},
        {"sectors", r->sectors},
        {"bytes", r->bytes},
        {"efficiency", r->efficiency},
        {"addrs", addrs}});
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse_args(argc, argv);
  if (a.command == "eval") return cmd_eval(a);
  if (a.command == "table") return cmd_table(a);
  if (a.command == "inverse") return cmd_inverse(a);
  if (a.command == "check") return cmd_check(a);
  if (a.command == "canon") return cmd_canon(a);
  if (a.command == "swizzle") return cmd_swizzle(a);
  if (a.command == "banks") return cmd_banks(a);
  if (a.command == "sectors") return cmd_sectors(a);
  if (a.command == "help" || a.command == "--help" || a.command == "-h") {
    std::cout << kUsage;
    return 0;
  }
  fail("unknown command '" + a.command +
           "' (eval, table, inverse, check, canon, swizzle, banks, sectors, help)",
       "command");
}
