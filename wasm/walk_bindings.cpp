// Embind adapter for the first instruction of the engine's lane walks (access.hpp row_lanes, column_lanes),
// for tiles too large to walk whole (a 4096 x 4096 fp32 row walk is 524,288 instructions, past
// kMaxInstructions):
//
//   firstWalkLanes([4096, 4096], "f32", "LDG.32", "columns")
//     -> { ok: true, lanes: [0, 4096, 8192, ..., 126976] }      (lane l in row l, column 0)
//   firstWalkLanes([67108864, 8], "f32", "LDG.128", "rows")  -> { ok: true, lanes: [0, 4, 8, ..., 124] }
//   firstWalkLanes([64, 64], "f32", "LDS.128", "chunks")  -> lane l at row 4 (l % 16), column 4 (l / 16)
//   firstWalkLanes([67108864, 8], "f32", "LDG.128", "column-vectors")  -> lane l at row 4 l, column 0
//
// The engine's first instruction is the same on the tile cut to its first min(rows, 32) rows: the row walk's
// lane l starts at l * v whatever the number of rows, and the column walk's at row l % rows, column
// (l / rows) * v, which depends on rows only below 32. The chunk walk (v x v chunks down the columns) and the
// column-vector walk (v elements a lane down a column) reach row 32 v in their first instruction, so their
// cut keeps 32 v rows. The walk is asked of the engine on that cut tile.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "js_error.hpp"
#include "layoutscope/access.hpp"
#include "layoutscope/dtype.hpp"

namespace layoutscope {
namespace {

using emscripten::val;

val walk_error(Error e, const char* field) {
  if (e.field.empty()) e.field = field;
  return error_value(e);
}

val js_first_walk_lanes(val shape, std::string dtype_text, std::string instr_text, std::string walk) {
  if (!shape.isArray())
    return walk_error(make_error("shape must be an array of extents", 0, "shape"), "shape");
  std::vector<int64_t> extents;
  const unsigned n = shape["length"].as<unsigned>();
  for (unsigned i = 0; i < n; ++i) {
    if (!shape[i].isNumber()) return walk_error(make_error("shape must hold integers", 0, "shape"), "shape");
    extents.push_back(static_cast<int64_t>(shape[i].as<double>()));
  }
  if (extents.empty() || std::any_of(extents.begin(), extents.end(), [](int64_t e) { return e <= 0; }))
    return walk_error(make_error("the shape needs positive extents", 0, "shape"), "shape");
  auto dtype = parse_dtype(dtype_text);
  if (!dtype) return walk_error(dtype.error(), "dtype");
  auto instr = parse_instruction(instr_text);
  if (!instr) return walk_error(instr.error(), "instr");
  if (walk != "rows" && walk != "columns" && walk != "chunks" && walk != "column-vectors")
    return walk_error(
        make_error("walk must be rows, columns, chunks or column-vectors, not " + walk, 0, "walk"), "walk");
  const int64_t row = extents.back();
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < extents.size(); ++i) rows *= extents[i];
  // The chunk and column-vector walks' first instruction spans 32 v rows (v elements a lane), the others' 32.
  const int64_t v = std::max(1, instr->bytes / dtype_bytes(*dtype));
  const int64_t span = walk == "chunks" || walk == "column-vectors" ? 32 * v : 32;
  const std::vector<int64_t> cut{std::min<int64_t>(rows, span), row};
  auto lanes = walk == "rows"      ? row_lanes(cut, *dtype, *instr)
               : walk == "columns" ? column_lanes(cut, *dtype, *instr)
               : walk == "chunks"  ? chunk_lanes(cut, *dtype, *instr)
                                   : column_vector_lanes(cut, *dtype, *instr);
  if (!lanes) return walk_error(lanes.error(), "shape");
  val out = val::object();
  out.set("ok", true);
  val first = val::array();
  if (!lanes->empty())
    for (size_t l = 0; l < lanes->front().size(); ++l) first.set(l, static_cast<double>(lanes->front()[l]));
  out.set("lanes", first);
  return out;
}

// windowLanes([32, 64], 2, [0, 8, 32, 8]) -> { ok: true, lanes: [8, 10, 12, 14, 72, ...] }: access.hpp
// window_lanes, one warp over a rectangle of a 2-D tile (the bank figure's row and column of cells).
val js_window_lanes(val shape, double per, val window) {
  if (!shape.isArray() || shape["length"].as<unsigned>() != 2 || !shape[0].isNumber() || !shape[1].isNumber())
    return walk_error(make_error("shape must be [rows, columns]", 0, "shape"), "shape");
  if (!window.isArray() || window["length"].as<unsigned>() != 4)
    return walk_error(make_error("window must be [row, col, rows, cols]", 0, "window"), "window");
  int64_t w[4];
  for (unsigned i = 0; i < 4; ++i) {
    if (!window[i].isNumber())
      return walk_error(make_error("window must hold integers", 0, "window"), "window");
    w[i] = static_cast<int64_t>(window[i].as<double>());
  }
  const std::vector<int64_t> extents{static_cast<int64_t>(shape[0].as<double>()),
                                     static_cast<int64_t>(shape[1].as<double>())};
  auto lanes = window_lanes(extents, static_cast<int64_t>(per), Window{w[0], w[1], w[2], w[3]});
  if (!lanes) return walk_error(lanes.error(), "window");
  val out = val::object();
  out.set("ok", true);
  val list = val::array();
  for (size_t l = 0; l < lanes->size(); ++l) list.set(l, static_cast<double>((*lanes)[l]));
  out.set("lanes", list);
  return out;
}

}  // namespace
}  // namespace layoutscope

EMSCRIPTEN_BINDINGS(layoutscope_walk) {
  emscripten::function("firstWalkLanes", &layoutscope::js_first_walk_lanes);
  emscripten::function("windowLanes", &layoutscope::js_window_lanes);
}
