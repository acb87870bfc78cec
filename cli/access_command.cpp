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
#include <memory>
#include <string>

#include "cli_support.hpp"
#include "layoutscope/access.hpp"
#include "layoutscope/advise.hpp"
#include "layoutscope/dtype.hpp"
#include "layoutscope/mapping.hpp"
#include "layoutscope/parse.hpp"

namespace layoutscope::cli {
namespace {

namespace ls = layoutscope;

// The value, or the JSON error naming `field` with the column in `input` (exit 2).
template <class T>
T need(ls::Result<T> r, const std::string& field, const std::string& input) {
  if (!r) {
    Error e = r.error();
    if (e.field.empty()) e.field = field;
    fail(e, input);
  }
  return std::move(r).value();
}

const std::string& require(const Arg& arg) {
  if (!arg.given() || arg.value.empty()) fail("--" + arg.name + " is required", arg.name);
  return arg.value;
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
  Arg layout, shape, dtype, instr, lanes, source;
};

struct AdviseOptions {
  Arg writer, reader, dtype, tile, top;
};

int run_access(const AccessOptions& o) {
  ls::WarpAccess a;
  a.layout = need(ls::parse_layout(require(o.layout)), "layout", o.layout.value);
  a.shape = o.shape.given() ? need(ls::parse_shape(o.shape.value), "shape", o.shape.value)
                            : need(ls::default_shape(a.layout), "shape", "");
  a.dtype = need(ls::parse_dtype(require(o.dtype)), "dtype", o.dtype.value);
  a.instr = need(ls::parse_instruction(require(o.instr)), "instr", o.instr.value);
  if (o.source.given()) a.source = need(ls::parse_layout(o.source.value), "source", o.source.value);
  ls::TileSide side;
  side.instr = a.instr;
  side = need(ls::parse_lane_spec(o.lanes.value, side), "lanes", o.lanes.value);
  a.lanes = need(ls::side_lanes(side, a.shape, a.dtype), "lanes", o.lanes.value);
  const ls::AccessCost c = need(ls::cost(a), "layout", "");
  emit(cost_json(a, c));
  return 0;
}

int run_advise(const AdviseOptions& o) {
  ls::AdviseRequest q;
  q.writer = need(ls::parse_tile_side(require(o.writer), true), "writer", o.writer.value);
  q.reader = need(ls::parse_tile_side(require(o.reader), false), "reader", o.reader.value);
  q.dtype = need(ls::parse_dtype(require(o.dtype)), "dtype", o.dtype.value);
  q.tile = need(ls::parse_shape(require(o.tile)), "tile", o.tile.value);
  const int64_t top = o.top.given() ? option_arg(o.top, 0, 1 << 20) : 0;
  const ls::Advice advice = need(ls::advise(q), "tile", "");
  Json candidates = Json::array();
  for (const ls::Candidate& c : advice.candidates) {
    if (top > 0 && candidates.size() >= static_cast<size_t>(top)) break;
    candidates.push_back(candidate_json(c));
  }
  Json rules = Json::array();
  for (const ls::RuleChoice& r : advice.rules) {
    rules.push_back({{"rule", r.rule},
                     {"choice", r.choice},
                     {"reason", r.reason},
                     {"candidate", r.candidate ? candidate_json(*r.candidate) : Json(nullptr)}});
  }
  emit({{"tile", q.tile},
        {"dtype", std::string(ls::to_string(q.dtype))},
        {"writer", side_json(q.writer)},
        {"reader", side_json(q.reader)},
        {"searched", advice.searched},
        {"rejected", advice.rejected},
        {"candidates", candidates},
        {"rules", rules}});
  return 0;
}

}  // namespace

void add_access_command(CLI::App& app) {
  auto o = std::make_shared<AccessOptions>();
  CLI::App* cmd = add_command(
      app, "access",
      "What one warp access costs: shared wavefronts and conflicts per instruction, global sectors",
      "  layoutscope access --layout 'S[(64,64):(64,1)]' --shape 64,64 --dtype bf16 --instr ldmatrix.x4\n"
      "  layoutscope access --layout 'S[(32,32):(33,1)]' --shape 32,32 --dtype f32 --instr LDS.32 --lanes "
      "columns\n");
  add_arg(cmd, o->layout, "layout", "EXPR", "The tile in memory, e.g. 'S[(64,64):(64,1)]'");
  add_arg(cmd, o->shape, "shape", "R,C", "Logical shape (default: the layout's)");
  add_arg(cmd, o->dtype, "dtype", "TYPE", "Element type: u8 f8 f16 bf16 f32 tf32 f64");
  add_arg(cmd, o->instr, "instr", "INSTR",
          "LDS.128, STS.32, LDG.64, ldmatrix.x4.trans, cp.async.16, tma.128B ...");
  add_arg(cmd, o->lanes, "lanes", "LANES",
          "rows | columns | matrices | a thread layout (@laneid, @reg) | first elements '0,64/8,72'");
  add_arg(cmd, o->source, "source", "EXPR",
          "cp.async / TMA: the global source layout (default dense row-major)");
  on_run(cmd, [o] { return run_access(*o); });
}

void add_advise_command(CLI::App& app) {
  auto o = std::make_shared<AdviseOptions>();
  CLI::App* cmd = add_command(
      app, "advise", "Rank shared-memory layouts (swizzles, TMA modes, padding) for a writer and a reader",
      "  layoutscope advise --writer 'rows;STS.128' --reader ';ldmatrix.x4' --dtype bf16 --tile 64,64\n"
      "  layoutscope advise --writer 'rows;STS.32' --reader 'columns;LDS.32' --dtype f32 --tile 16,32 --top "
      "3\n");
  add_arg(cmd, o->writer, "writer", "LANES;INSTR", "e.g. 'rows;STS.128' or 'S[(16,32):(1@reg,1@laneid)];4'");
  add_arg(cmd, o->reader, "reader", "LANES;INSTR", "e.g. ';ldmatrix.x4' or 'columns;LDS.32'");
  add_arg(cmd, o->dtype, "dtype", "TYPE", "Element type: u8 f8 f16 bf16 f32 tf32 f64");
  add_arg(cmd, o->tile, "tile", "R,C", "Tile shape");
  add_arg(cmd, o->top, "top", "N", "List only the best N candidates (default: all)");
  on_run(cmd, [o] { return run_advise(*o); });
}

}  // namespace layoutscope::cli
