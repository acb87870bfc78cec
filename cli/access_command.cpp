// `layoutscope access` and `layoutscope advise`: the engine's warp-access cost and swizzle advisor on the
// command line, as CLI11 subcommands. JSON on stdout; bad input prints
// {"error": {"message", "column", "field", "input"}} and ends the parse with exit code 2 (CLI::RuntimeError,
// which CLI11_PARSE / App::exit return as the exit code).
//
//   layoutscope access --layout 'S[(64,64):(64,1)]' --shape 64,64 --dtype bf16 --instr ldmatrix.x4.trans
//     -> {"instr": "ldmatrix.x4.trans", "ncu_op": "ldsm", "instructions": [{"wavefronts": 32,
//         "ideal_wavefronts": 4, "conflicts": 28, ...}, ...], "total": {"wavefronts": 512, ...}}
//   layoutscope advise --writer 'rows;STS.128' --reader ';ldmatrix.x4' --dtype bf16 --tile 64,64
//     -> {"candidates": [{"name": "TMA 128B", "write_wavefronts": 64, "read_wavefronts": 64, ...}, ...],
//         "rules": [{"rule": "CUTLASS ss_smem_selector", "choice": "SW128", ...}, ...]}
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "layoutscope/access.hpp"
#include "layoutscope/advise.hpp"
#include "layoutscope/dtype.hpp"
#include "layoutscope/mapping.hpp"
#include "layoutscope/parse.hpp"

namespace {

namespace ls = layoutscope;
using Json = nlohmann::json;

void print(const Json& j) { std::cout << j.dump(-1, ' ', false, Json::error_handler_t::replace) << "\n"; }

// Prints the error and ends the command with exit code 2. `input` is the option text the column counts in.
[[noreturn]] void fail(const ls::Error& e, const std::string& field, const std::string& input) {
  Json err = {{"message", e.message}, {"field", e.field.empty() ? field : e.field}};
  if (e.column > 0) err["column"] = e.column;
  if (!input.empty()) err["input"] = input;
  print(Json{{"error", err}});
  std::cerr << "layoutscope: " << e.message << "\n";
  if (e.column > 0 && !input.empty()) {
    std::cerr << "  " << input << "\n  " << std::string(static_cast<size_t>(e.column - 1), ' ') << "^\n";
  }
  throw CLI::RuntimeError(2);
}

template <class T>
T need(ls::Result<T> r, const std::string& field, const std::string& input) {
  if (!r) fail(r.error(), field, input);
  return std::move(r).value();
}

void require(const std::string& value, const std::string& option) {
  if (value.empty()) fail(ls::make_error("--" + option + " is required", 0, option), option, "");
}

Json instruction_json(const ls::InstructionCost& c, const std::vector<int64_t>* lanes) {
  Json j = {{"wavefronts", c.wavefronts},
            {"ideal_wavefronts", c.ideal_wavefronts},
            {"conflicts", c.conflicts},
            {"max_ways", c.max_ways},
            {"sectors", c.sectors},
            {"requests", c.requests},
            {"bytes", c.bytes}};
  if (lanes) j["lanes"] = *lanes;
  return j;
}

Json cost_json(const ls::WarpAccess& a, const ls::AccessCost& c) {
  Json instructions = Json::array();
  for (size_t i = 0; i < c.instructions.size(); ++i) {
    instructions.push_back(instruction_json(c.instructions[i], i < a.lanes.size() ? &a.lanes[i] : nullptr));
  }
  Json out = {
      {"layout", ls::to_string(a.layout)},
      {"shape", a.shape},
      {"dtype", std::string(ls::to_string(a.dtype))},
      {"instr", ls::to_string(a.instr)},
      {"ncu_op", c.ncu_op},
      {"shared_counted", c.shared_counted},
      {"instructions", instructions},
      {"total",
       {{"wavefronts", c.wavefronts},
        {"ideal_wavefronts", c.ideal_wavefronts},
        {"conflicts", c.conflicts},
        {"max_ways", c.max_ways},
        {"sectors", c.sectors},
        {"requests", c.requests},
        {"bytes", c.bytes}}},
  };
  if (c.shared_counted) {
    out["metrics"] = {{"wavefronts", ls::ncu_wavefront_metric(a.instr.op)},
                      {"conflicts", ls::ncu_conflict_metric(a.instr.op)}};
  }
  return out;
}

Json candidate_json(const ls::Candidate& c) {
  Json j = {{"name", c.name},
            {"kind", std::string(ls::to_string(c.kind))},
            {"layout", ls::to_string(c.layout)},
            {"write_wavefronts", c.write_wavefronts},
            {"write_ideal", c.write_ideal},
            {"read_wavefronts", c.read_wavefronts},
            {"read_ideal", c.read_ideal},
            {"conflicts", c.conflicts()},
            {"conflict_free", c.conflict_free()},
            {"shared_bytes", c.shared_bytes},
            {"write_counted", c.write_counted}};
  return j;
}

Json side_json(const ls::TileSide& s) {
  Json j = {{"instr", ls::to_string(s.instr)}, {"lanes", std::string(ls::to_string(s.order))}};
  if (s.order == ls::LaneOrder::kThreads) j["threads"] = ls::to_string(s.threads);
  return j;
}

struct AccessOptions {
  std::string layout, shape, dtype, instr, lanes, source;
};

struct AdviseOptions {
  std::string writer, reader, dtype, tile;
  int top = 0;
};

void run_access(const AccessOptions& o) {
  require(o.layout, "layout");
  require(o.dtype, "dtype");
  require(o.instr, "instr");
  ls::WarpAccess a;
  a.layout = need(ls::parse_layout(o.layout), "layout", o.layout);
  a.shape = o.shape.empty() ? need(ls::default_shape(a.layout), "shape", o.shape)
                            : need(ls::parse_shape(o.shape), "shape", o.shape);
  a.dtype = need(ls::parse_dtype(o.dtype), "dtype", o.dtype);
  a.instr = need(ls::parse_instruction(o.instr), "instr", o.instr);
  if (!o.source.empty()) a.source = need(ls::parse_layout(o.source), "source", o.source);
  ls::TileSide side;
  side.instr = a.instr;
  side = need(ls::parse_lane_spec(o.lanes, side), "lanes", o.lanes);
  a.lanes = need(ls::side_lanes(side, a.shape, a.dtype), "lanes", o.lanes);
  const ls::AccessCost c = need(ls::cost(a), "layout", "");
  print(cost_json(a, c));
}

void run_advise(const AdviseOptions& o) {
  require(o.writer, "writer");
  require(o.reader, "reader");
  require(o.dtype, "dtype");
  require(o.tile, "tile");
  ls::AdviseRequest q;
  q.writer = need(ls::parse_tile_side(o.writer, true), "writer", o.writer);
  q.reader = need(ls::parse_tile_side(o.reader, false), "reader", o.reader);
  q.dtype = need(ls::parse_dtype(o.dtype), "dtype", o.dtype);
  q.tile = need(ls::parse_shape(o.tile), "tile", o.tile);
  const ls::Advice advice = need(ls::advise(q), "tile", "");
  Json candidates = Json::array();
  for (const ls::Candidate& c : advice.candidates) {
    if (o.top > 0 && candidates.size() >= static_cast<size_t>(o.top)) break;
    candidates.push_back(candidate_json(c));
  }
  Json rules = Json::array();
  for (const ls::RuleChoice& r : advice.rules) {
    rules.push_back({{"rule", r.rule},
                     {"choice", r.choice},
                     {"reason", r.reason},
                     {"candidate", r.candidate ? candidate_json(*r.candidate) : Json(nullptr)}});
  }
  print({{"tile", q.tile},
         {"dtype", std::string(ls::to_string(q.dtype))},
         {"writer", side_json(q.writer)},
         {"reader", side_json(q.reader)},
         {"searched", advice.searched},
         {"rejected", advice.rejected},
         {"candidates", candidates},
         {"rules", rules}});
}

}  // namespace

void add_access_command(CLI::App& app) {
  auto o = std::make_shared<AccessOptions>();
  CLI::App* cmd = app.add_subcommand("access", "what one warp access costs: wavefronts, conflicts, sectors");
  cmd->add_option("--layout", o->layout, "the tile in memory, e.g. 'S[(64,64):(64,1)]'");
  cmd->add_option("--shape", o->shape, "logical shape R,C (default: the layout's)");
  cmd->add_option("--dtype", o->dtype, "element type: f8 f16 bf16 f32 tf32 f64");
  cmd->add_option("--instr", o->instr,
                  "LDS.128, STS.32, LDG.64, ldmatrix.x4.trans, cp.async.16, tma.128B ...");
  cmd->add_option("--lanes", o->lanes,
                  "rows | columns | matrices | a thread layout (@laneid, @reg) | first elements '0,64/8,72'");
  cmd->add_option("--source", o->source,
                  "cp.async / TMA: the global source layout (default dense row-major)");
  cmd->callback([o] { run_access(*o); });
}

void add_advise_command(CLI::App& app) {
  auto o = std::make_shared<AdviseOptions>();
  CLI::App* cmd = app.add_subcommand("advise", "rank shared-memory layouts for a writer and a reader");
  cmd->add_option("--writer", o->writer,
                  "'LANES;INSTR', e.g. 'rows;STS.128' or 'S[(16,32):(1@reg,1@laneid)];4'");
  cmd->add_option("--reader", o->reader, "'LANES;INSTR', e.g. ';ldmatrix.x4' or 'columns;LDS.32'");
  cmd->add_option("--dtype", o->dtype, "element type: f8 f16 bf16 f32 tf32 f64");
  cmd->add_option("--tile", o->tile, "tile shape R,C");
  cmd->add_option("--top", o->top, "list only the best N candidates (0: all)");
  cmd->callback([o] { run_advise(*o); });
}
