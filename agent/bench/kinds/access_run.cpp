#include "bench/kinds/access_run.hpp"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

#include "bench/engine_calls.hpp"
#include "bench/measure.hpp"
#include "bench/predict.hpp"
#include "bench/random_input.hpp"
#include "bench/request_limits.hpp"
#include "layoutscope/advise.hpp"
#include "layoutscope/memory_access.hpp"
#include "layoutscope/parse.hpp"

namespace layoutscope::agent {
namespace {

using nlohmann::json;

constexpr size_t kMaxLaneAddresses = 1024;
constexpr int64_t kMaxExtent = int64_t{1} << 24;

Error field_error(const std::string& field, const std::string& message, int column = 0) {
  return make_error(field + ": " + message, column, field);
}

// An engine error (field "lanes", "layout", "shape", ...) as the request's field.
Error engine_error(const Error& e, const std::string& field) {
  return make_error(field + ": " + e.message, e.column, field);
}

std::string engine_field(const Error& e, const std::string& fallback) {
  if (e.field == "lanes" || e.field == "layout" || e.field == "shape" || e.field == "dtype" ||
      e.field == "instr" || e.field == "source")
    return "params." + e.field;
  return fallback;
}

Result<std::string> string_field(const json& p, const char* key, const std::string& example) {
  const std::string f = std::string("params.") + key;
  if (!p.contains(key)) return field_error(f, "required, e.g. " + example);
  if (!p[key].is_string()) return field_error(f, "expected a string, e.g. " + example);
  return p[key].get<std::string>();
}

Result<std::vector<int64_t>> shape_field(const json& p, const char* key) {
  const std::string f = std::string("params.") + key;
  if (!p.contains(key)) return field_error(f, "required, e.g. [32, 32]");
  const json& v = p[key];
  if (!v.is_array() || v.empty() || v.size() > static_cast<size_t>(kMaxShapeDims))
    return field_error(f, "expected an array of 1 to 8 positive integers, e.g. [32, 32]");
  std::vector<int64_t> out;
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string fi = f + "[" + std::to_string(i) + "]";
    if (!v[i].is_number_integer()) return field_error(fi, "expected an integer");
    // JSON reads 0 and positive numbers as unsigned: bound them in that type, negatives in the signed one.
    const bool out_of_range =
        v[i].is_number_unsigned()
            ? v[i].get<uint64_t>() < 1 || v[i].get<uint64_t>() > static_cast<uint64_t>(kMaxExtent)
            : v[i].get<int64_t>() < 1 || v[i].get<int64_t>() > kMaxExtent;
    if (out_of_range) return field_error(fi, "must be between 1 and " + std::to_string(kMaxExtent));
    out.push_back(v[i].get<int64_t>());
  }
  return out;
}

Result<DType> dtype_field(const json& p) {
  auto text = string_field(p, "dtype", std::string("\"bf16\" (") + kConvertDtypesText + ")");
  if (!text) return text.error();
  auto d = parse_dtype(*text);
  if (!d) return field_error("params.dtype", d.error().message);
  return *d;
}

// The instruction must be one this benchmark runs: LDG/STG for global_access, the shared ones for
// smem_access; TMA is costed by the engine but has no warp-issued kernel here.
std::optional<Error> check_runnable(const Instruction& in, const std::string& benchmark,
                                    const std::string& field) {
  if (in.op == Op::kTma)
    return field_error(field, to_string(in) +
                                  ": a TMA copy is not a warp instruction the agent runs (no LSU counter); "
                                  "smem_access runs LDS, STS, ldmatrix, stmatrix and cp.async");
  const bool global = space(in.op) == Space::kGlobal;
  if (benchmark == "smem_access" && global)
    return field_error(field, to_string(in) + " is a global access: use the global_access benchmark");
  if (benchmark == "global_access" && !global)
    return field_error(field, to_string(in) + " is a shared-memory access: use the smem_access benchmark");
  return std::nullopt;
}

// ldmatrix / stmatrix move b16 elements; the check reads each register as two of them.
std::optional<Error> check_b16(const Instruction& in, DType dtype) {
  if ((in.op == Op::kLdmatrix || in.op == Op::kStmatrix) && dtype_bytes(dtype) != 2)
    return field_error("params.dtype", to_string(in) + " moves b16 elements: give f16 or bf16, not " +
                                           std::string(to_string(dtype)));
  return std::nullopt;
}

// Costs and plans one case; errors name the request field the engine's field stands for.
Result<AccessCase> make_case(std::string name, std::string lanes, WarpAccess a, const std::string& fallback) {
  if (auto e = check_b16(a.instr, a.dtype)) return *e;
  AccessCase c;
  c.name = std::move(name);
  c.lanes = std::move(lanes);
  auto cost_of = cost(a);
  if (!cost_of) return engine_error(cost_of.error(), engine_field(cost_of.error(), fallback));
  auto plan = codegen::plan_access(a);
  if (!plan) return engine_error(plan.error(), engine_field(plan.error(), fallback));
  c.access = std::move(a);
  c.predicted = std::move(cost_of).value();
  c.plan = std::move(plan).value();
  return c;
}

Result<AccessParams> parse_single(const json& p, const std::string& benchmark, AccessParams out) {
  auto layout_text = string_field(p, "layout", "\"S[(32,32):(33,1)]\"");
  if (!layout_text) return layout_text.error();
  auto layout = parse_layout_counted(*layout_text);
  if (!layout)
    return field_error("params.layout",
                       layout.error().message + " (column " + std::to_string(layout.error().column) + ")",
                       layout.error().column);
  auto shape = shape_field(p, "shape");
  if (!shape) return shape.error();
  auto dtype = dtype_field(p);
  if (!dtype) return dtype.error();
  auto instr_text =
      string_field(p, "instr", "\"LDS.32\", \"ldmatrix.x4.trans\", \"cp.async.16\", \"LDG.128\"");
  if (!instr_text) return instr_text.error();
  auto instr = parse_instruction(*instr_text);
  if (!instr)
    return field_error("params.instr",
                       instr.error().message + " (column " + std::to_string(instr.error().column) + ")",
                       instr.error().column);
  if (auto e = check_runnable(*instr, benchmark, "params.instr")) return *e;
  if (auto e = check_b16(*instr, *dtype)) return *e;
  std::string lanes_text = "default";
  if (p.contains("lanes")) {
    if (!p["lanes"].is_string())
      return field_error("params.lanes",
                         "expected a string: default, rows, columns, matrices, a thread layout or a list of "
                         "first elements (\"0,64/8,72\")");
    lanes_text = p["lanes"].get<std::string>();
  }
  WarpAccess a;
  a.layout = *layout;
  a.shape = *shape;
  a.dtype = *dtype;
  a.instr = *instr;
  if (p.contains("source")) {
    if (!p["source"].is_string() || instr->op != Op::kCpAsync)
      return field_error("params.source", "a layout string, for cp.async only (the global source)");
    auto src = parse_layout_counted(p["source"].get<std::string>());
    if (!src) return field_error("params.source", src.error().message, src.error().column);
    a.source = *src;
  }
  TileSide side;
  side.instr = *instr;
  auto spec = parse_lane_spec(lanes_text, side);
  if (!spec) return field_error("params.lanes", spec.error().message, spec.error().column);
  auto lanes = side_lanes(*spec, a.shape, a.dtype);
  if (!lanes) return engine_error(lanes.error(), "params.lanes");
  a.lanes = std::move(lanes).value();
  auto c = make_case("access", lanes_text, std::move(a), "params.layout");
  if (!c) return c.error();
  out.input = {{"layout", to_string(*layout)},
               {"shape", *shape},
               {"dtype", std::string(to_string(*dtype))},
               {"instr", to_string(*instr)},
               {"lanes", lanes_text}};
  if (c->access.source) out.input["source"] = to_string(*c->access.source);
  out.cases.push_back(std::move(c).value());
  return out;
}

Result<AccessParams> parse_pair(const json& p, AccessParams out) {
  auto writer_text = string_field(p, "writer", "\"rows;STS.128\"");
  if (!writer_text) return writer_text.error();
  auto reader_text = string_field(p, "reader", "\"columns;LDS.32\"");
  if (!reader_text) return reader_text.error();
  auto writer = parse_tile_side(*writer_text, true);
  if (!writer) return field_error("params.writer", writer.error().message, writer.error().column);
  auto reader = parse_tile_side(*reader_text, false);
  if (!reader) return field_error("params.reader", reader.error().message, reader.error().column);
  if (auto e = check_runnable(writer->instr, "smem_access", "params.writer")) return *e;
  if (auto e = check_runnable(reader->instr, "smem_access", "params.reader")) return *e;
  auto tile = shape_field(p, "tile");
  if (!tile) return tile.error();
  auto dtype = dtype_field(p);
  if (!dtype) return dtype.error();
  for (const TileSide* side : {&*writer, &*reader})
    if (auto e = check_b16(side->instr, *dtype)) return *e;
  auto name = string_field(p, "candidate", "\"Swizzle<4,1,4>\" (a name advise() returns)");
  if (!name) return name.error();
  auto advice = advise(AdviseRequest{*writer, *reader, *dtype, *tile});
  if (!advice) {
    const std::string f = advice.error().field == "writer" || advice.error().field == "reader" ||
                                  advice.error().field == "tile" || advice.error().field == "dtype"
                              ? "params." + advice.error().field
                              : "params.tile";
    return engine_error(advice.error(), f);
  }
  std::optional<Candidate> chosen;
  size_t rank = 0;
  for (size_t i = 0; i < advice->candidates.size() && !chosen; ++i)
    if (advice->candidates[i].name == *name) chosen = advice->candidates[i], rank = i + 1;
  if (!chosen) {
    std::string names;
    for (size_t i = 0; i < advice->candidates.size() && i < 12; ++i)
      names += (i ? ", " : "") + advice->candidates[i].name;
    return field_error("params.candidate", "\"" + *name + "\" is not one of the advisor's " +
                                               std::to_string(advice->candidates.size()) +
                                               " candidates for this pair (best first: " + names + ")");
  }
  for (const auto& [side, role, field] :
       {std::tuple{&*writer, "write", "params.writer"}, std::tuple{&*reader, "read", "params.reader"}}) {
    auto lanes = side_lanes(*side, *tile, *dtype);
    if (!lanes) return engine_error(lanes.error(), field);
    auto c = make_case(role, std::string(to_string(side->order)),
                       WarpAccess{chosen->layout, *tile, *dtype, side->instr, *lanes, std::nullopt}, field);
    if (!c) return c.error();
    out.cases.push_back(std::move(c).value());
  }
  out.input = {{"writer", *writer_text},
               {"reader", *reader_text},
               {"tile", *tile},
               {"dtype", std::string(to_string(*dtype))},
               {"candidate", *name}};
  out.advice = {{"candidate_layout", to_string(chosen->layout)},
                {"candidate_rank", rank},
                {"candidate_conflicts", chosen->conflicts()},
                {"advisor_best", advice->candidates.front().name}};
  return out;
}

// Where register word `word` of `lane` in instruction i sits in the kernel's regs output (access_kernel.hpp
// writes `words` per lane, lanes of one instruction side by side).
size_t reg_index(int64_t i, int lane, int word, int words) {
  return static_cast<size_t>((i * kWarpLanes + lane) * words + word);
}

}  // namespace

Result<AccessParams> parse_access_params(const json& p, const std::string& benchmark,
                                         const Sampling& sampling) {
  static const std::set<std::string> kSampling(std::begin(kSamplingParameters),
                                               std::end(kSamplingParameters));
  const bool pair =
      p.contains("writer") || p.contains("reader") || p.contains("candidate") || p.contains("tile");
  if (pair && benchmark != "smem_access")
    return field_error(p.contains("writer") ? "params.writer" : "params.reader",
                       "a writer/reader pair is a shared tile: use the smem_access benchmark");
  const std::set<std::string> own =
      pair ? std::set<std::string>{"writer", "reader", "tile", "dtype", "candidate"}
           : std::set<std::string>{"layout", "shape", "dtype", "instr", "lanes", "source"};
  for (auto it = p.begin(); it != p.end(); ++it) {
    if (own.count(it.key()) || kSampling.count(it.key())) continue;
    return field_error(
        "params." + it.key(),
        pair ? "unknown parameter (a pair takes writer, reader, tile, dtype, candidate)"
             : "unknown parameter (an access takes layout, shape, dtype, instr, lanes, source; a "
               "pair writer, reader, tile, dtype, candidate)");
  }
  AccessParams out;
  out.benchmark = benchmark;
  out.sampling = sampling;
  return pair ? parse_pair(p, std::move(out)) : parse_single(p, benchmark, std::move(out));
}

std::vector<uint8_t> access_input(const codegen::AccessPlan& plan, uint64_t seed) {
  std::vector<uint8_t> in(static_cast<size_t>(std::max(plan.tile_bytes, plan.source_bytes)));
  for (size_t b = 0; b < in.size(); ++b)
    in[b] = static_cast<uint8_t>(splitmix64(seed * 0x9E3779B97F4A7C15ull + b) >> 24);
  return in;
}

Verification verify_access(const AccessCase& c, std::span<const uint8_t> in, std::span<const uint32_t> regs,
                           std::span<const uint8_t> tile) {
  Verification v;
  v.method =
      "every element of every lane, its place taken from the layout (lane_addresses per element, not the "
      "plan's offsets): loads' registers against the input bytes there, stores' tile bytes against the value "
      "stored, cp.async's tile bytes against the source; ldmatrix/stmatrix by the PTX m8n8 .b16 fragments";
  const WarpAccess& a = c.access;
  const codegen::AccessPlan& p = c.plan;
  const Op op = a.instr.op;
  const int elem = dtype_bytes(a.dtype);
  const int v_elems = a.instr.bytes / elem;
  const int words = std::max(p.words_per_lane, 1);
  const bool matrix = op == Op::kLdmatrix || op == Op::kStmatrix;
  // Every element any lane touches, and its byte address in the layout (and in the source for cp.async).
  std::vector<int64_t> elements;
  for (const auto& lanes : a.lanes)
    for (int64_t x : lanes)
      if (x != kIdleLane)
        for (int j = 0; j < (matrix ? 8 : v_elems); ++j) elements.push_back(x + j);
  std::sort(elements.begin(), elements.end());
  elements.erase(std::unique(elements.begin(), elements.end()), elements.end());
  // lane_addresses answers at most kMaxLaneAddresses indices a call.
  auto place = [&](const Layout& layout, std::map<int64_t, int64_t>& where) -> std::optional<std::string> {
    for (size_t k0 = 0; k0 < elements.size(); k0 += kMaxLaneAddresses) {
      const size_t n = std::min(elements.size() - k0, kMaxLaneAddresses);
      auto addrs = lane_addresses(layout, a.shape, std::span<const int64_t>(elements).subspan(k0, n), elem);
      if (!addrs) return addrs.error().message;
      for (size_t k = 0; k < n; ++k) where[elements[k0 + k]] = (*addrs)[k];
    }
    return std::nullopt;
  };
  std::map<int64_t, int64_t> at, src_at;
  if (auto why = place(a.layout, at)) {
    v.first_mismatch = "the layout did not place the elements: " + *why;
    return v;
  }
  if (op == Op::kCpAsync) {
    int64_t n = 1;
    for (int64_t e : a.shape) n *= e;
    const Layout source =
        a.source ? *a.source : tile_layout(n / a.shape.back(), a.shape.back(), a.shape.back());
    if (auto why = place(source, src_at)) {
      v.first_mismatch = "the source layout did not place the elements: " + *why;
      return v;
    }
  }
  auto byte_of = [](std::span<const uint8_t> buf, int64_t b) -> int {
    return b >= 0 && b < static_cast<int64_t>(buf.size()) ? buf[static_cast<size_t>(b)] : -1;
  };
  auto reg_byte = [&](size_t word, int byte) -> int {
    return word < regs.size() ? static_cast<int>((regs[word] >> (8 * byte)) & 0xff) : -1;
  };
  // Expected tile bytes for stores: the last instruction wins; two lanes of one instruction writing different
  // values to one byte leave it undefined (not checked).
  std::map<int64_t, std::pair<int64_t, int>> stored;  // byte -> (instruction, value or -1 when undefined)
  auto expect_store = [&](int64_t i, int64_t b, int value) {
    auto it = stored.find(b);
    if (it != stored.end() && it->second.first == i && it->second.second != value) {
      it->second.second = -1;
      return;
    }
    stored[b] = {i, value};
  };
  // Counted in elements: an element is checked when all its bytes are, wrong when one of them is.
  int64_t checked_bytes = 0;
  std::set<std::pair<int64_t, int64_t>> bad;  // (instruction * 32 + lane, element) or (-1, byte / elem)
  auto mismatch = [&](std::pair<int64_t, int64_t> where, const std::string& what) {
    if (bad.empty()) v.first_mismatch = what;
    bad.insert(where);
  };
  for (size_t i = 0; i < a.lanes.size(); ++i) {
    const auto& lanes = a.lanes[i];
    for (int t = 0; t < kWarpLanes; ++t) {
      if (matrix) {
        for (int w = 0; w < a.instr.matrices; ++w) {
          // Thread t, register w: two b16 of matrix w; row lanes 8w + r name each matrix row's first element.
          int64_t lo, hi;
          if (!a.instr.trans) {
            const int64_t row = lanes[static_cast<size_t>(8 * w + t / 4)];
            lo = row + 2 * (t % 4);
            hi = lo + 1;
          } else {
            lo = lanes[static_cast<size_t>(8 * w + 2 * (t % 4))] + t / 4;
            hi = lanes[static_cast<size_t>(8 * w + 2 * (t % 4) + 1)] + t / 4;
          }
          const int64_t half[2] = {lo, hi};
          for (int h = 0; h < 2; ++h) {
            for (int b = 0; b < 2; ++b) {
              const int64_t addr = at[half[h]] + b;
              if (op == Op::kLdmatrix) {
                ++checked_bytes;
                const int got = reg_byte(reg_index(static_cast<int64_t>(i), t, w, words), 2 * h + b);
                if (got != byte_of(in, addr))
                  mismatch({static_cast<int64_t>(i) * kWarpLanes + t, half[h]},
                           "instruction " + std::to_string(i) + ", lane " + std::to_string(t) +
                               ", register " + std::to_string(w) + ": element " + std::to_string(half[h]) +
                               " (byte " + std::to_string(addr) + ") differs");
              } else {
                const uint32_t value = codegen::stored_word(static_cast<int64_t>(i), t, w);
                expect_store(static_cast<int64_t>(i), addr,
                             static_cast<int>((value >> (8 * (2 * h + b))) & 0xff));
              }
            }
          }
        }
        continue;
      }
      const int64_t x = lanes[static_cast<size_t>(t)];
      if (x == kIdleLane) continue;
      for (int j = 0; j < v_elems; ++j) {
        for (int b = 0; b < elem; ++b) {
          const int k = j * elem + b;  // byte of the lane's access
          const int64_t addr = at[x + j] + b;
          switch (op) {
            case Op::kLds:
            case Op::kLdg: {
              ++checked_bytes;
              const int got = reg_byte(reg_index(static_cast<int64_t>(i), t, k / 4, words), k % 4);
              if (got != byte_of(in, addr))
                mismatch({static_cast<int64_t>(i) * kWarpLanes + t, x + j},
                         "instruction " + std::to_string(i) + ", lane " + std::to_string(t) + ": element " +
                             std::to_string(x + j) + " byte " + std::to_string(b) + " (at byte " +
                             std::to_string(addr) + ") was not read");
              break;
            }
            case Op::kSts:
            case Op::kStg:
              expect_store(
                  static_cast<int64_t>(i), addr,
                  static_cast<int>(
                      (codegen::stored_word(static_cast<int64_t>(i), t, k / 4) >> (8 * (k % 4))) & 0xff));
              break;
            case Op::kCpAsync:
              expect_store(static_cast<int64_t>(i), addr, byte_of(in, src_at[x + j] + b));
              break;
            default:
              break;
          }
        }
      }
    }
  }
  for (const auto& [b, iv] : stored) {
    if (iv.second < 0) continue;
    ++checked_bytes;
    const int got = byte_of(tile, b);
    if (got != iv.second) {
      std::ostringstream o;
      o << (space(op) == Space::kGlobal ? "global" : "shared") << " byte " << b << " holds " << got
        << ", instruction " << iv.first << " wrote " << iv.second;
      mismatch({-1, b / elem}, o.str());
    }
  }
  v.checked = checked_bytes / elem;
  v.mismatches = static_cast<int64_t>(bad.size());
  v.passed = v.mismatches == 0 && v.checked > 0;
  if (v.checked == 0 && v.first_mismatch.empty()) v.first_mismatch = "nothing to check";
  return v;
}

std::vector<std::string> access_metrics(const AccessParams& p) {
  // The counts (wavefronts, sectors) first, then conflicts and requests: ncu leaves the bank-conflict
  // counters of plain LDS/STS (op ld, st) empty, so they must never be what decides that a kernel row has
  // values.
  std::vector<std::string> counts, others;
  auto add = [](std::vector<std::string>& list, const std::string& m) {
    if (std::find(list.begin(), list.end(), m) == list.end()) list.push_back(m);
  };
  for (const AccessCase& c : p.cases) {
    const Op op = c.access.instr.op;
    if (space(op) == Space::kGlobal) {
      const std::string kind = op == Op::kLdg ? "ld" : "st";
      add(counts, "l1tex__t_sectors_pipe_lsu_mem_global_op_" + kind + ".sum");
      add(others, "l1tex__t_requests_pipe_lsu_mem_global_op_" + kind + ".sum");
    } else {
      add(counts, ncu_wavefront_metric(op));
      add(others, ncu_conflict_metric(op));
    }
  }
  counts.insert(counts.end(), others.begin(), others.end());
  return counts;
}

json access_predicted(const AccessCase& c) {
  const bool global = space(c.access.instr.op) == Space::kGlobal;
  json out = {{"source", "layoutscope engine (access cost)"}, {global ? "global" : "shared", json::array()}};
  auto d =
      describe_access(KernelAccess{c.name + ": " + to_string(c.access.instr) + " by " + c.lanes, c.access});
  if (!d) return {{"source", "layoutscope engine (access cost)"}, {"error", d.error().message}};
  json e = *d;
  const AccessCost& k = c.predicted;
  e["instructions"] = k.instructions.size();
  e["ncu_op"] = k.ncu_op;
  if (global) {
    e["sectors"] = k.sectors;
    e["requests"] = k.requests;
    e["sectors_per_request"] =
        k.requests ? static_cast<double>(k.sectors) / static_cast<double>(k.requests) : 0.0;
    e["bytes_requested"] = k.bytes;
    e["sector_efficiency"] =
        k.sectors ? static_cast<double>(k.bytes) / (32.0 * static_cast<double>(k.sectors)) : 0.0;
  } else {
    e["ncu_conflict_metric"] = ncu_conflict_metric(c.access.instr.op);
  }
  out[global ? "global" : "shared"].push_back(e);
  return out;
}

json access_measured(const AccessCase& c, const StateProfile* profile) {
  if (!profile) return nullptr;
  if (!profile->available) return {{"available", false}, {"reason", profile->reason}};
  auto get = [&](const std::string& name) -> json {
    const auto it = profile->metrics.find(name);
    return it == profile->metrics.end() ? json(nullptr) : json(static_cast<int64_t>(it->second));
  };
  const Op op = c.access.instr.op;
  json out = {{"available", true}, {"source", "ncu"}};
  if (space(op) == Space::kGlobal) {
    const std::string kind = op == Op::kLdg ? "ld" : "st";
    const std::string s = "l1tex__t_sectors_pipe_lsu_mem_global_op_" + kind + ".sum",
                      r = "l1tex__t_requests_pipe_lsu_mem_global_op_" + kind + ".sum";
    out["sectors"] = get(s);
    out["requests"] = get(r);
    out["sectors_metric"] = s;
    out["requests_metric"] = r;
    out["sectors_equal"] = out["sectors"].is_number() && out["sectors"].get<int64_t>() == c.predicted.sectors;
    out["requests_equal"] =
        out["requests"].is_number() && out["requests"].get<int64_t>() == c.predicted.requests;
    out["equal"] = out["sectors_equal"].get<bool>() && out["requests_equal"].get<bool>();
  } else {
    out["wavefronts"] = get(ncu_wavefront_metric(op));
    out["conflicts"] = get(ncu_conflict_metric(op));
    out["wavefront_metric"] = ncu_wavefront_metric(op);
    out["conflict_metric"] = ncu_conflict_metric(op);
    out["equal"] =
        out["wavefronts"].is_number() && out["wavefronts"].get<int64_t>() == c.predicted.wavefronts;
  }
  return out;
}

Result<AccessMeasurement> run_access_host(const AccessParams& p, RunControl& ctl) {
  AccessMeasurement m;
  m.before.source = m.after.source = "not measured: cpu backend";
  int done = 0;
  for (const AccessCase& c : p.cases) {
    if (ctl.cancelled()) throw Cancelled{};
    ctl.progress(static_cast<double>(done++) / static_cast<double>(p.cases.size()), c.name);
    AccessState s;
    s.name = c.name;
    s.source = &c;
    s.executor =
        "host executor (run_access_on_host): the generated access's addresses computed and its data moved on "
        "the CPU; no hardware counters";
    s.source_hash = codegen::access_kernel_source(c.plan).hash;
    const std::vector<uint8_t> in = access_input(c.plan, p.sampling.seed);
    codegen::AccessRun run = codegen::run_access_on_host(c.plan, in);
    s.verification = verify_access(c, in, run.regs, run.tile);
    if (!p.sampling.profile_once) {
      auto timed = [&] {
        const auto t0 = std::chrono::steady_clock::now();
        run = codegen::run_access_on_host(c.plan, in);
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      };
      s.time = sample(
          p.sampling, ctl, [] {}, [&] { run = codegen::run_access_on_host(c.plan, in); }, timed,
          [] { return ClockReading{}; }, "none (cpu backend)");
    }
    m.states.push_back(std::move(s));
  }
  return m;
}

}  // namespace layoutscope::agent
