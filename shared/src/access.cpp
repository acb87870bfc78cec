#include "layoutscope/access.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <map>
#include <unordered_set>

#include "layoutscope/mapping.hpp"

namespace layoutscope {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool is_number(std::string_view s) {
  return !s.empty() && s.size() <= 4 &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

struct Token {
  std::string text;  // lower case
  int column = 0;    // 1-based
};

std::vector<Token> split_dots(std::string_view text) {
  std::vector<Token> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t dot = text.find('.', start);
    if (dot == std::string_view::npos) dot = text.size();
    out.push_back({lower(text.substr(start, dot - start)), static_cast<int>(start) + 1});
    start = dot + 1;
  }
  return out;
}

Error instr_error(const std::string& message, int column) { return make_error(message, column, "instr"); }

Result<SwizzleMode> parse_tma_mode(const Token& t) {
  std::string upper = t.text;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (upper.starts_with("SWIZZLE_")) upper = upper.substr(8);
  if (upper == "NONE") return SwizzleMode::kNone;
  if (upper == "32B") return SwizzleMode::k32B;
  if (upper == "64B") return SwizzleMode::k64B;
  if (upper == "128B") return SwizzleMode::k128B;
  return instr_error("unknown TMA mode '" + t.text + "' (none, 32B, 64B, 128B)", t.column);
}

std::string lane_place(size_t instruction, size_t lane) {
  return "instruction " + std::to_string(instruction) + ", lane " + std::to_string(lane);
}

// The @m offset (in elements) of every logical element, through a layout compiled once.
class Addresser {
 public:
  static Result<Addresser> make(const Layout& layout, const std::vector<int64_t>& shape, const char* field) {
    const std::vector<std::string> axes = layout_axes(layout);
    if (std::find(axes.begin(), axes.end(), kMemoryAxis) == axes.end()) {
      return make_error("the layout has no @m axis, so no memory address", 0, field);
    }
    auto compiled = compile_for_shape(layout, shape);
    if (!compiled) {
      Error e = compiled.error();
      if (e.field.empty()) e.field = field;
      return e;
    }
    Addresser a{std::move(compiled).value()};
    a.m_ = static_cast<size_t>(std::find(a.c_.axes().begin(), a.c_.axes().end(), kMemoryAxis) -
                               a.c_.axes().begin());
    a.pos_.resize(static_cast<size_t>(a.c_.axis_count()));
    return a;
  }
  int64_t size() const { return c_.size(); }
  int64_t offset(int64_t x) const {
    c_.map(x, 0, pos_.data());
    return pos_[m_];
  }

 private:
  explicit Addresser(CompiledLayout c) : c_(std::move(c)) {}
  CompiledLayout c_;
  size_t m_ = 0;
  mutable std::vector<int64_t> pos_;  // scratch for map()
};

int64_t row_extent(const std::vector<int64_t>& shape) { return shape.empty() ? 1 : shape.back(); }

int64_t product(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t e : shape) {
    if (e <= 0 || n > (int64_t{1} << 40) / e) return -1;
    n *= e;
  }
  return n;
}

Result<int> elements_per_lane(DType dtype, const Instruction& instr) {
  const int elem = dtype_bytes(dtype);
  if (instr.bytes < elem || instr.bytes % elem != 0) {
    return make_error("a " + std::to_string(instr.bytes) + " B access cannot move whole " +
                          std::string(to_string(dtype)) + " elements (" + std::to_string(elem) + " B each)",
                      0, "dtype");
  }
  return instr.bytes / elem;
}

// Byte addresses of each active lane's first element, after checking that its v elements stay in one row
// and are contiguous and aligned in memory.
struct LaneAddrs {
  std::vector<int> lane;
  std::vector<int64_t> addr;
};

Result<LaneAddrs> lane_bytes(const Addresser& at, const std::vector<int64_t>& lanes, size_t instruction,
                             int lanes_used, int v, int elem, int width, int64_t row, VectorAxis axis) {
  // the logical step between a lane's elements: the next in its row, or the next row's in its column
  const int64_t step = axis == VectorAxis::kRow ? 1 : row;
  const int64_t rows = at.size() / std::max<int64_t>(1, row);
  LaneAddrs out;
  for (size_t l = 0; l < lanes.size() && l < static_cast<size_t>(lanes_used); ++l) {
    const int64_t x = lanes[l];
    if (x == kIdleLane) continue;
    if (x < 0 || x >= at.size()) {
      return make_error(lane_place(instruction, l) + ": element " + std::to_string(x) + " is outside [0, " +
                            std::to_string(at.size()) + ")",
                        0, "lanes");
    }
    if (axis == VectorAxis::kRow ? x % row + v > row : x / row + v > rows) {
      return make_error(lane_place(instruction, l) + ": a " + std::to_string(v) +
                            "-element access from element " + std::to_string(x) +
                            " runs past the end of its " +
                            (axis == VectorAxis::kRow ? "row (" + std::to_string(row) + " elements)"
                                                      : "column (" + std::to_string(rows) + " elements)"),
                        0, "lanes");
    }
    const int64_t first = at.offset(x);
    for (int j = 1; j < v; ++j) {
      if (at.offset(x + j * step) != first + j) {
        return make_error(lane_place(instruction, l) + ": elements " + std::to_string(x) + " and " +
                              std::to_string(x + j * step) + " are not adjacent in memory, so one " +
                              std::to_string(width) + " B access cannot move them",
                          0, "layout");
      }
    }
    const int64_t addr = first * elem;
    if (addr < 0) return make_error(lane_place(instruction, l) + ": negative address", 0, "layout");
    if (addr % width != 0) {
      return make_error(lane_place(instruction, l) + ": byte address " + std::to_string(addr) +
                            " is not aligned to the access width " + std::to_string(width),
                        0, "layout");
    }
    out.lane.push_back(static_cast<int>(l));
    out.addr.push_back(addr);
  }
  return out;
}

void add(AccessCost& total, const InstructionCost& c) {
  total.instructions.push_back(c);
  total.wavefronts += c.wavefronts;
  total.ideal_wavefronts += c.ideal_wavefronts;
  total.conflicts += c.conflicts;
  total.max_ways = std::max(total.max_ways, c.max_ways);
  total.sectors += c.sectors;
  total.requests += c.requests;
  total.bytes += c.bytes;
}

Result<AccessCost> tma_cost(const WarpAccess& access) {
  auto expected = tma_layout(access.instr.tma_mode, access.dtype, access.shape);
  if (!expected) return expected.error();
  // A TMA box is at most 256 elements a dimension; 2^20 elements bounds the element-by-element check.
  if (product(access.shape) > (int64_t{1} << 20)) {
    return make_error("a TMA tile of more than 2^20 elements is not costed", 0, "shape");
  }
  auto have = Addresser::make(access.layout, access.shape, "layout");
  if (!have) return have.error();
  auto want = Addresser::make(*expected, access.shape, "layout");
  if (!want) return want.error();
  for (int64_t x = 0; x < have->size(); ++x) {
    if (have->offset(x) != want->offset(x)) {
      return make_error("TMA in mode " + std::string(short_name(access.instr.tma_mode)) + " puts element " +
                            std::to_string(x) + " at offset " + std::to_string(want->offset(x)) +
                            ", the layout at " + std::to_string(have->offset(x)) +
                            " (tma_layout gives the mode's layout)",
                        0, "layout");
    }
  }
  const int elem = dtype_bytes(access.dtype);
  Layout dense;
  dense.shard.push_back(Mode{have->size(), AxisStride{1, std::string(kMemoryAxis)}});
  auto src = Addresser::make(access.source ? *access.source : dense, access.shape, "source");
  if (!src) return src.error();
  std::unordered_set<int64_t> sectors;
  for (int64_t x = 0; x < src->size(); ++x) {
    const int64_t a = src->offset(x) * elem;
    if (a < 0) return make_error("the source layout gives a negative address", 0, "source");
    sectors.insert(a / kSectorBytes);
    if (elem > kSectorBytes) sectors.insert((a + elem - 1) / kSectorBytes);
  }
  AccessCost out;
  InstructionCost c;
  c.sectors = static_cast<int64_t>(sectors.size());
  c.requests = 1;
  c.bytes = have->size() * elem;
  add(out, c);
  return out;
}

}  // namespace

// ---- the catalogue -------------------------------------------------------------------------------------

Space space(Op op) { return op == Op::kLdg || op == Op::kStg ? Space::kGlobal : Space::kShared; }

std::string_view ncu_op(Op op) {
  switch (op) {
    case Op::kLds:
      return "ld";
    case Op::kSts:
      return "st";
    case Op::kLdmatrix:
      return "ldsm";
    case Op::kStmatrix:
      return "stsm";
    case Op::kCpAsync:
      return "ldgsts";
    case Op::kLdg:
    case Op::kStg:
    case Op::kTma:
      return "";
  }
  return "";
}

std::string ncu_wavefront_metric(Op op) {
  const std::string_view o = ncu_op(op);
  return o.empty() ? "" : "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_" + std::string(o) + ".sum";
}

std::string ncu_conflict_metric(Op op) {
  const std::string_view o = ncu_op(op);
  return o.empty() ? ""
                   : "sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_" + std::string(o) + ".sum";
}

int lanes_per_instruction(const Instruction& instr) {
  if (instr.op == Op::kLdmatrix || instr.op == Op::kStmatrix) return 8 * instr.matrices;
  if (instr.op == Op::kTma) return 1;
  return kWarpLanes;
}

std::optional<Error> check_instruction(const Instruction& instr) {
  auto bad_width = [&](const std::string& allowed) {
    return make_error(to_string(instr) + ": " + std::to_string(instr.bytes) + " B per lane is not offered (" +
                          allowed + ")",
                      0, "instr");
  };
  switch (instr.op) {
    case Op::kLdg:
    case Op::kStg:
      if (instr.bytes < 1 || instr.bytes > 16 || !std::has_single_bit(static_cast<unsigned>(instr.bytes)))
        return bad_width("1, 2, 4, 8 or 16 B");
      return std::nullopt;
    case Op::kLds:
    case Op::kSts:
      if (instr.bytes < 1 || instr.bytes > 16 || !std::has_single_bit(static_cast<unsigned>(instr.bytes)))
        return bad_width("1, 2, 4, 8 or 16 B");
      return std::nullopt;
    case Op::kCpAsync:
      if (instr.bytes != 4 && instr.bytes != 8 && instr.bytes != 16) return bad_width("4, 8 or 16 B");
      return std::nullopt;
    case Op::kLdmatrix:
    case Op::kStmatrix:
      if (instr.bytes != 16) return bad_width("16 B: one row of 8 b16");
      if (instr.matrices != 1 && instr.matrices != 2 && instr.matrices != 4)
        return make_error(
            "ldmatrix/stmatrix move .x1, .x2 or .x4 matrices, not " + std::to_string(instr.matrices), 0,
            "instr");
      return std::nullopt;
    case Op::kTma:
      if (instr.tma_mode != SwizzleMode::kNone && instr.tma_mode != SwizzleMode::k32B &&
          instr.tma_mode != SwizzleMode::k64B && instr.tma_mode != SwizzleMode::k128B)
        return make_error(
            "TMA writes in mode none, 32B, 64B or 128B, not " + std::string(short_name(instr.tma_mode)), 0,
            "instr");
      return std::nullopt;
  }
  return make_error("unknown instruction", 0, "instr");
}

std::string to_string(const Instruction& instr) {
  switch (instr.op) {
    case Op::kLdg:
      return "LDG." + std::to_string(instr.bytes * 8);
    case Op::kStg:
      return "STG." + std::to_string(instr.bytes * 8);
    case Op::kLds:
      return "LDS." + std::to_string(instr.bytes * 8);
    case Op::kSts:
      return "STS." + std::to_string(instr.bytes * 8);
    case Op::kLdmatrix:
    case Op::kStmatrix:
      return std::string(instr.op == Op::kLdmatrix ? "ldmatrix" : "stmatrix") + ".x" +
             std::to_string(instr.matrices) + (instr.trans ? ".trans" : "");
    case Op::kCpAsync:
      return "cp.async." + std::to_string(instr.bytes);
    case Op::kTma:
      return "tma." + std::string(short_name(instr.tma_mode));
  }
  return "?";
}

Result<Instruction> parse_instruction(std::string_view text) {
  const std::vector<Token> t = split_dots(text);
  const std::string catalogue =
      " (LDG/STG.8/16/32/64/128, LDS/STS.32/64/128, ldmatrix/stmatrix.x1/x2/x4[.trans], cp.async.4/8/16, "
      "tma.none/32B/64B/128B)";
  if (t.empty() || t[0].text.empty()) return instr_error("empty instruction" + catalogue, 1);
  Instruction in;
  size_t i = 1;
  const std::string& head = t[0].text;
  if (head == "ldg" || head == "stg" || head == "lds" || head == "sts") {
    in.op = head == "ldg" ? Op::kLdg : head == "stg" ? Op::kStg : head == "lds" ? Op::kLds : Op::kSts;
    in.bytes = 4;  // SASS LDS without a width moves 32 bits
    bool width_seen = false;
    for (; i < t.size(); ++i) {
      std::string w = t[i].text;
      if (w == "e" || w == "shared" || w == "global" || w == "constant" || w == "strong" || w == "gpu" ||
          w == "sys" || w == "el" || w == "lu" || w == "ef" || w == "ca" || w == "cg" || w == "cs")
        continue;
      if (w.size() > 1 && (w[0] == 'u' || w[0] == 's') && is_number(w.substr(1))) w = w.substr(1);
      if (is_number(w) && !width_seen) {
        const int bits = std::stoi(w);
        if (bits != 8 && bits != 16 && bits != 32 && bits != 64 && bits != 128)
          return instr_error("width " + w + " bits is not 8, 16, 32, 64 or 128", t[i].column);
        in.bytes = bits / 8;
        width_seen = true;
        continue;
      }
      return instr_error("unexpected '" + t[i].text + "' after " + head + catalogue, t[i].column);
    }
  } else if (head == "ldmatrix" || head == "stmatrix" || head == "ldsm" || head == "stsm") {
    in.op = head[0] == 'l' ? Op::kLdmatrix : Op::kStmatrix;
    in.bytes = 16;
    in.matrices = 0;
    for (; i < t.size(); ++i) {
      const std::string& w = t[i].text;
      // PTX: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16; SASS: LDSM.16.MT88.4 (no count: one matrix).
      if (w == "sync" || w == "aligned" || w == "m8n8" || w == "shared" || w == "b16" || w == "shared::cta" ||
          w == "16" || w == "m88")
        continue;
      if (w == "trans" || w == "mt88") {
        in.trans = true;
      } else if (w == "x1" || w == "x2" || w == "x4" || w == "1" || w == "2" || w == "4") {
        in.matrices = w == "x1" || w == "1" ? 1 : w == "x2" || w == "2" ? 2 : 4;
      } else {
        return instr_error("unexpected '" + t[i].text + "' in " + head + " (.x1, .x2, .x4, .trans)",
                           t[i].column);
      }
    }
    if (in.matrices == 0 && (head == "ldsm" || head == "stsm")) in.matrices = 1;
    if (in.matrices == 0) {
      return instr_error(head + " needs the matrix count .x1, .x2 or .x4", static_cast<int>(text.size()) + 1);
    }
  } else if (head == "cp" || head == "ldgsts") {
    if (head == "cp") {
      if (i >= t.size() || t[i].text != "async")
        return instr_error("expected 'async' after 'cp'",
                           i < t.size() ? t[i].column : static_cast<int>(text.size()) + 1);
      ++i;
    }
    if (i < t.size() && t[i].text == "bulk") {
      in.op = Op::kTma;
      in.bytes = 16;
      for (++i; i < t.size(); ++i) {
        const std::string& w = t[i].text;
        if (w == "tensor" || w == "1d" || w == "2d" || w == "3d" || w == "4d" || w == "5d" ||
            w == "shared::cluster" || w == "global" || w == "tile" || w == "mbarrier::complete_tx::bytes")
          continue;
        auto mode = parse_tma_mode(t[i]);
        if (!mode) return mode.error();
        in.tma_mode = *mode;
      }
    } else {
      in.op = Op::kCpAsync;
      in.bytes = 0;
      for (; i < t.size(); ++i) {
        const std::string& w = t[i].text;
        if (w == "ca" || w == "cg" || w == "shared" || w == "global" || w == "shared::cta" ||
            w == "l2::128b" || w == "e" || w == "bypass" || w == "ltc128b" || w == "zfill")
          continue;
        if (is_number(w) && in.bytes == 0) {
          // PTX cp.async gives the size in bytes, SASS LDGSTS.E.128 in bits.
          in.bytes = head == "ldgsts" ? std::stoi(w) / 8 : std::stoi(w);
          continue;
        }
        return instr_error("unexpected '" + t[i].text + "' in cp.async (cp.async.4, .8 or .16)", t[i].column);
      }
      if (in.bytes == 0)
        return instr_error("cp.async needs its size in bytes: .4, .8 or .16",
                           static_cast<int>(text.size()) + 1);
    }
  } else if (head == "tma") {
    in.op = Op::kTma;
    in.bytes = 16;
    if (i < t.size()) {
      auto mode = parse_tma_mode(t[i]);
      if (!mode) return mode.error();
      in.tma_mode = *mode;
      ++i;
    }
    if (i < t.size()) return instr_error("unexpected '" + t[i].text + "' after the TMA mode", t[i].column);
  } else {
    return instr_error(
        "unknown instruction '" + std::string(text.substr(0, t[0].text.size())) + "'" + catalogue, 1);
  }
  if (auto bad = check_instruction(in)) {
    bad->column = 1;
    return *bad;
  }
  return in;
}

// ---- cost ----------------------------------------------------------------------------------------------

Result<AccessCost> cost(const WarpAccess& access, const BankModel& banks) {
  if (auto bad = check_instruction(access.instr)) return *bad;
  if (access.instr.op == Op::kTma) return tma_cost(access);
  auto v = elements_per_lane(access.dtype, access.instr);
  if (!v) return v.error();
  const int elem = dtype_bytes(access.dtype);
  const int width = access.instr.bytes;
  auto at = Addresser::make(access.layout, access.shape, "layout");
  if (!at) return at.error();
  std::optional<Addresser> src;
  if (access.instr.op == Op::kCpAsync) {
    Layout dense;
    dense.shard.push_back(Mode{at->size(), AxisStride{1, std::string(kMemoryAxis)}});
    auto s = Addresser::make(access.source ? *access.source : dense, access.shape, "source");
    if (!s) return s.error();
    src.emplace(std::move(s).value());
  }
  if (access.lanes.empty()) return make_error("the access issues no instruction", 0, "lanes");
  if (static_cast<int64_t>(access.lanes.size()) > kMaxInstructions) {
    return make_error("the access issues " + std::to_string(access.lanes.size()) + " instructions; at most " +
                          std::to_string(kMaxInstructions) + " are costed",
                      0, "lanes");
  }
  const int64_t row = row_extent(access.shape);
  const int64_t step = access.vector == VectorAxis::kRow ? 1 : row;
  const int used = lanes_per_instruction(access.instr);
  const bool shared = space(access.instr.op) == Space::kShared;
  // Lanes served by one wavefront: 128 B / width (8 for ldmatrix: one matrix a phase).
  const int group = shared ? std::max(1, banks.wavefront_bytes / width) : kWarpLanes;

  AccessCost out;
  out.ncu_op = std::string(ncu_op(access.instr.op));
  out.shared_counted = shared;
  for (size_t i = 0; i < access.lanes.size(); ++i) {
    const auto& lanes = access.lanes[i];
    if (lanes.size() > static_cast<size_t>(kWarpLanes)) {
      return make_error("instruction " + std::to_string(i) + " names " + std::to_string(lanes.size()) +
                            " lanes; a warp has 32",
                        0, "lanes");
    }
    auto a = lane_bytes(*at, lanes, i, used, *v, elem, width, row, access.vector);
    if (!a) return a.error();
    InstructionCost c;
    c.bytes = static_cast<int64_t>(a->addr.size()) * width;
    // The global side first: cp.async's shared wavefronts depend on which 128 B line each lane reads.
    std::vector<int64_t> global;
    if (!shared) global = a->addr;
    if (src) {
      for (int lane : a->lane) {
        const int64_t x = lanes[static_cast<size_t>(lane)];
        const int64_t first = src->offset(x);
        for (int j = 1; j < *v; ++j) {
          if (src->offset(x + j * step) != first + j) {
            return make_error(lane_place(i, static_cast<size_t>(lane)) + ": elements " + std::to_string(x) +
                                  " and " + std::to_string(x + j * step) + " are not adjacent in the source",
                              0, "source");
          }
        }
        if (first * elem % width != 0 || first < 0) {
          return make_error(lane_place(i, static_cast<size_t>(lane)) + ": source byte address " +
                                std::to_string(first * elem) + " is not aligned to " + std::to_string(width),
                            0, "source");
        }
        global.push_back(first * elem);
      }
    }
    if (shared) {
      auto instruction_error = [&](Error e) {
        e.message = "instruction " + std::to_string(i) + ": " + e.message;
        return e;
      };
      // One bank_access per wavefront group, so that idle lanes leave the groups where the hardware has them.
      for (int g0 = 0; g0 < used; g0 += group) {
        std::vector<int64_t> addrs;
        for (size_t k = 0; k < a->lane.size(); ++k)
          if (a->lane[k] >= g0 && a->lane[k] < g0 + group) addrs.push_back(a->addr[k]);
        if (addrs.empty()) continue;
        auto b = bank_access(addrs, width, banks);
        if (!b) return instruction_error(b.error());
        c.wavefronts += b->cycles;
        c.ideal_wavefronts += b->groups;
        c.max_ways = std::max(c.max_ways, b->max_ways);
      }
      if (access.instr.op == Op::kCpAsync && width == kCpAsyncQuarterWarpBytes) {
        // 16 B copies (.cg or .ca): quarter-warp wavefront groups like STS.128, 4 for a full warp.
      } else if (access.instr.op == Op::kCpAsync) {
        // cp.async.ca: a wavefront group per 128 B line of the source (in order of first use), its lanes'
        // shared destinations costed together; the ideal stays one per 128 B moved.
        std::vector<int64_t> lines;
        for (int64_t g : global)
          if (std::find(lines.begin(), lines.end(), g / kCpAsyncLineBytes) == lines.end())
            lines.push_back(g / kCpAsyncLineBytes);
        c.wavefronts = 0;
        c.max_ways = 0;
        for (int64_t line : lines) {
          std::vector<int64_t> addrs;
          for (size_t k = 0; k < global.size(); ++k)
            if (global[k] / kCpAsyncLineBytes == line) addrs.push_back(a->addr[k]);
          auto b = bank_access(addrs, width, banks);
          if (!b) return instruction_error(b.error());
          c.wavefronts += b->cycles;
          c.max_ways = std::max(c.max_ways, b->max_ways);
        }
      }
      c.conflicts = c.wavefronts - c.ideal_wavefronts;
    }
    if (!global.empty()) {
      auto s = sector_access(global, width);
      if (!s) return s.error();
      c.sectors = s->sectors;
      c.requests = 1;
    }
    add(out, c);
  }
  return out;
}

// ---- lanes ---------------------------------------------------------------------------------------------

namespace {

Result<int64_t> checked_size(const std::vector<int64_t>& shape) {
  const bool positive =
      !shape.empty() && std::all_of(shape.begin(), shape.end(), [](int64_t e) { return e > 0; });
  if (!positive) return make_error("the shape needs positive extents", 0, "shape");
  const int64_t n = product(shape);
  if (n < 1) return make_error("the shape has more than 2^40 elements", 0, "shape");
  return n;
}

std::optional<Error> too_many(int64_t instructions) {
  if (instructions <= kMaxInstructions) return std::nullopt;
  return make_error("walking this tile takes " + std::to_string(instructions) + " instructions; at most " +
                        std::to_string(kMaxInstructions) + " are costed",
                    0, "shape");
}

// What every walk of a tile's elements starts from: the element count, the elements one lane moves, the
// row (the last extent) and the rows.
struct TileWalk {
  int64_t n = 0, v = 0, row = 0, rows = 0;
};

Result<TileWalk> tile_walk(const std::vector<int64_t>& shape, DType dtype, const Instruction& instr) {
  auto n = checked_size(shape);
  if (!n) return n.error();
  auto v = elements_per_lane(dtype, instr);
  if (!v) return v.error();
  const int64_t row = row_extent(shape);
  return TileWalk{*n, *v, row, *n / row};
}

// `slots` lane slots dealt to warps of 32 lanes in order (slot s is lane s % 32 of instruction s / 32), slot
// s reading element `at(s)`; the last instruction's unused lanes idle.
template <class At>
Result<Lanes> slot_lanes(int64_t slots, At at) {
  if (auto e = too_many((slots + kWarpLanes - 1) / kWarpLanes)) return *e;
  Lanes out;
  for (int64_t s = 0; s < slots; ++s) {
    if (s % kWarpLanes == 0) out.emplace_back(kWarpLanes, kIdleLane);
    out.back()[static_cast<size_t>(s % kWarpLanes)] = at(s);
  }
  return out;
}

}  // namespace

Result<Lanes> row_lanes(const std::vector<int64_t>& shape, DType dtype, const Instruction& instr) {
  auto walk = tile_walk(shape, dtype, instr);
  if (!walk) return walk.error();
  const int64_t n = walk->n, v = walk->v, row = walk->row;
  if (row % v != 0) {
    return make_error("rows of " + std::to_string(row) + " elements do not split into " + std::to_string(v) +
                          "-element accesses",
                      0, "shape");
  }
  const int64_t slots = n / v;
  return slot_lanes(slots, [&](int64_t s) { return s * v; });
}

Result<Lanes> column_lanes(const std::vector<int64_t>& shape, DType dtype, const Instruction& instr) {
  auto walk = tile_walk(shape, dtype, instr);
  if (!walk) return walk.error();
  const int64_t n = walk->n, v = walk->v, row = walk->row, rows = walk->rows;
  if (row % v != 0) {
    return make_error("rows of " + std::to_string(row) + " elements do not split into " + std::to_string(v) +
                          "-element accesses",
                      0, "shape");
  }
  const int64_t slots = n / v;
  return slot_lanes(slots, [&](int64_t s) { return (s % rows) * row + (s / rows) * v; });
}

Result<Lanes> chunk_lanes(const std::vector<int64_t>& shape, DType dtype, const Instruction& instr) {
  auto walk = tile_walk(shape, dtype, instr);
  if (!walk) return walk.error();
  const int64_t n = walk->n, v = walk->v, row = walk->row, rows = walk->rows;
  if (row % v != 0 || rows % v != 0) {
    return make_error("a " + std::to_string(rows) + " x " + std::to_string(row) +
                          " tile does not split into " + std::to_string(v) + " x " + std::to_string(v) +
                          " chunks",
                      0, "shape");
  }
  const int64_t chunk_rows = rows / v;
  const int64_t chunks = n / (v * v);
  const int64_t groups = (chunks + kWarpLanes - 1) / kWarpLanes;
  if (auto e = too_many(groups * v)) return *e;
  Lanes out;
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t j = 0; j < v; ++j) {
      out.emplace_back(kWarpLanes, kIdleLane);
      for (int64_t l = 0; l < kWarpLanes && g * kWarpLanes + l < chunks; ++l) {
        const int64_t s = g * kWarpLanes + l;
        out.back()[static_cast<size_t>(l)] = ((s % chunk_rows) * v + j) * row + (s / chunk_rows) * v;
      }
    }
  return out;
}

Result<Lanes> column_vector_lanes(const std::vector<int64_t>& shape, DType dtype, const Instruction& instr) {
  auto walk = tile_walk(shape, dtype, instr);
  if (!walk) return walk.error();
  const int64_t n = walk->n, v = walk->v, row = walk->row, rows = walk->rows;
  if (rows % v != 0) {
    return make_error("columns of " + std::to_string(rows) + " elements do not split into " +
                          std::to_string(v) + "-element accesses",
                      0, "shape");
  }
  const int64_t slots = n / v;
  return slot_lanes(slots, [&](int64_t s) { return (s * v % rows) * row + s * v / rows; });
}

Result<Lanes> matrix_lanes(const std::vector<int64_t>& shape, DType dtype, const Instruction& instr) {
  if (instr.op != Op::kLdmatrix && instr.op != Op::kStmatrix)
    return make_error("matrix lanes are for ldmatrix and stmatrix, not " + to_string(instr), 0, "instr");
  if (auto bad = check_instruction(instr)) return *bad;
  auto walk = tile_walk(shape, dtype, instr);
  if (!walk) return walk.error();
  const int64_t v = walk->v, row = walk->row, rows = walk->rows;
  const int64_t block_rows = instr.matrices == 1 ? 8 : 16;
  const int64_t block_cols = (instr.matrices == 4 ? 2 : 1) * v;
  if (rows % block_rows != 0 || row % block_cols != 0) {
    return make_error(to_string(instr) + " covers " + std::to_string(block_rows) + "x" +
                          std::to_string(block_cols) + " blocks; the tile is " + std::to_string(rows) + "x" +
                          std::to_string(row),
                      0, "shape");
  }
  const int used = lanes_per_instruction(instr);
  if (auto e = too_many((rows / block_rows) * (row / block_cols))) return *e;
  Lanes out;
  for (int64_t br = 0; br < rows / block_rows; ++br) {
    for (int64_t bc = 0; bc < row / block_cols; ++bc) {
      std::vector<int64_t> lanes(kWarpLanes, kIdleLane);
      for (int l = 0; l < used; ++l) {
        const int64_t r = br * block_rows + l % block_rows;
        const int64_t c = bc * block_cols + (l / block_rows) * v;
        lanes[static_cast<size_t>(l)] = r * row + c;
      }
      out.push_back(std::move(lanes));
    }
  }
  return out;
}

Result<std::vector<int64_t>> window_lanes(const std::vector<int64_t>& shape, int64_t per, const Window& w) {
  if (shape.size() != 2 || shape[0] <= 0 || shape[1] <= 0)
    return make_error("the tile needs two positive extents (rows, columns)", 0, "shape");
  if (per <= 0) return make_error("a lane reads at least one element", 0, "per");
  if (w.rows <= 0 || w.cols <= 0 || w.row < 0 || w.col < 0 || w.row + w.rows > shape[0] ||
      w.col + w.cols > shape[1]) {
    return make_error("the window (" + std::to_string(w.rows) + " x " + std::to_string(w.cols) + " from " +
                          std::to_string(w.row) + ", " + std::to_string(w.col) + ") is not inside the " +
                          std::to_string(shape[0]) + " x " + std::to_string(shape[1]) + " tile",
                      0, "window");
  }
  if (w.cols % per != 0) {
    return make_error("window rows of " + std::to_string(w.cols) + " elements do not split into " +
                          std::to_string(per) + "-element accesses",
                      0, "window");
  }
  std::vector<int64_t> out;
  const int64_t slots = std::min<int64_t>(kWarpLanes, w.rows * w.cols / per);
  for (int64_t s = 0; s < slots; ++s) {
    const int64_t e = s * per;
    out.push_back((w.row + e / w.cols) * shape[1] + w.col + e % w.cols);
  }
  return out;
}

Result<Lanes> default_lanes(const std::vector<int64_t>& shape, DType dtype, const Instruction& instr) {
  if (instr.op == Op::kLdmatrix || instr.op == Op::kStmatrix) return matrix_lanes(shape, dtype, instr);
  if (instr.op == Op::kTma) return Lanes{};
  return row_lanes(shape, dtype, instr);
}

Result<Lanes> thread_lanes(const Layout& threads, const std::vector<int64_t>& shape, DType dtype,
                           const Instruction& instr) {
  auto v = elements_per_lane(dtype, instr);
  if (!v) return v.error();
  auto t = table(threads, shape);
  if (!t) {
    Error e = t.error();
    if (e.field.empty()) e.field = "threads";
    return e;
  }
  const size_t naxes = t->axes.size();
  int lane_axis = -1, reg_axis = -1;
  std::vector<size_t> others;
  for (size_t a = 0; a < naxes; ++a) {
    if (t->axes[a] == "laneid") {
      lane_axis = static_cast<int>(a);
    } else if (t->axes[a] == "reg") {
      reg_axis = static_cast<int>(a);
    } else if (t->axes[a] == kMemoryAxis) {
      return make_error("a thread layout maps elements to @laneid and @reg; @m belongs to the memory layout",
                        0, "threads");
    } else {
      others.push_back(a);
    }
  }
  if (lane_axis < 0) return make_error("the thread layout names no @laneid axis", 0, "threads");
  if (reg_axis < 0 && *v > 1) {
    return make_error("a " + std::to_string(*v) + "-element access needs a @reg axis to group the elements",
                      0, "threads");
  }
  // (other axes..., register chunk) -> lane x slot -> element
  std::map<std::vector<int64_t>, std::vector<int64_t>> slots;
  const int64_t cells = t->elements * t->replicas;
  for (int64_t cell = 0; cell < cells; ++cell) {
    const int64_t x = cell / t->replicas;
    const int64_t* p = &t->values[static_cast<size_t>(cell) * naxes];
    const int64_t lane = p[lane_axis];
    const int64_t reg = reg_axis >= 0 ? p[reg_axis] : 0;
    if (lane < 0 || lane >= kWarpLanes) {
      return make_error(
          "element " + std::to_string(x) + " sits on lane " + std::to_string(lane) + ", outside 0..31", 0,
          "threads");
    }
    if (reg < 0) {
      return make_error("element " + std::to_string(x) + " sits in register " + std::to_string(reg), 0,
                        "threads");
    }
    std::vector<int64_t> key;
    for (size_t a : others) key.push_back(p[a]);
    key.push_back(reg / *v);
    auto& grid = slots[key];
    if (auto e = too_many(static_cast<int64_t>(slots.size()))) return *e;
    if (grid.empty()) grid.assign(static_cast<size_t>(kWarpLanes * *v), kIdleLane);
    int64_t& slot = grid[static_cast<size_t>(lane * *v + reg % *v)];
    if (slot != kIdleLane && slot != x) {
      return make_error("elements " + std::to_string(slot) + " and " + std::to_string(x) + " share lane " +
                            std::to_string(lane) + ", register " + std::to_string(reg),
                        0, "threads");
    }
    slot = x;
  }
  Lanes out;
  for (const auto& [key, grid] : slots) {
    std::vector<int64_t> lanes(kWarpLanes, kIdleLane);
    for (int l = 0; l < kWarpLanes; ++l) {
      const int64_t* g = &grid[static_cast<size_t>(l * *v)];
      bool any = false;
      for (int j = 0; j < *v; ++j) any = any || g[j] != kIdleLane;
      if (!any) continue;
      for (int j = 0; j < *v; ++j) {
        if (g[j] == kIdleLane || g[j] != g[0] + j) {
          return make_error("lane " + std::to_string(l) + ", registers " + std::to_string(key.back() * *v) +
                                ".." + std::to_string(key.back() * *v + *v - 1) +
                                ": the elements are not consecutive in a row, so one " +
                                std::to_string(instr.bytes) + " B access cannot move them",
                            0, "threads");
        }
      }
      lanes[static_cast<size_t>(l)] = g[0];
    }
    out.push_back(std::move(lanes));
  }
  return out;
}

Layout tile_layout(int64_t rows, int64_t cols, int64_t row_stride, std::optional<Swizzle> swizzle) {
  Layout out;
  const std::string m(kMemoryAxis);
  out.shard = {Mode{rows, {row_stride, m}}, Mode{cols, {1, m}}};
  out.swizzle = swizzle;
  return out;
}

Result<Layout> tma_layout(SwizzleMode mode, DType dtype, const std::vector<int64_t>& shape) {
  auto n = checked_size(shape);
  if (!n) return n.error();
  const int elem = dtype_bytes(dtype);
  const int64_t cols = row_extent(shape);
  const int64_t rows = *n / cols;
  const int64_t row_bytes = cols * elem;
  if (row_bytes % 16 != 0) {
    return make_error("TMA needs rows that are a multiple of 16 B; " + std::to_string(cols) + " " +
                          std::string(to_string(dtype)) + " are " + std::to_string(row_bytes) + " B",
                      0, "shape");
  }
  if (mode != SwizzleMode::kNone && mode != SwizzleMode::k32B && mode != SwizzleMode::k64B &&
      mode != SwizzleMode::k128B) {
    return make_error("TMA writes in mode none, 32B, 64B or 128B, not " + std::string(short_name(mode)), 0,
                      "mode");
  }
  auto atom = swizzle_atom(mode, dtype);
  if (!atom) return atom.error();
  if (mode == SwizzleMode::kNone) return tile_layout(rows, cols, cols);
  const int64_t span = atom->row_bytes;
  if (row_bytes % span != 0) {
    return make_error("TMA " + std::string(short_name(mode)) + " writes panels " + std::to_string(span) +
                          " B wide; rows of " + std::to_string(row_bytes) + " B leave a partial panel",
                      0, "shape");
  }
  if (rows % 8 != 0) {
    return make_error("the " + std::string(short_name(mode)) +
                          " pattern repeats every 8 rows; the tile has " + std::to_string(rows),
                      0, "shape");
  }
  const int64_t width = span / elem;
  const int64_t panels = row_bytes / span;
  Swizzle sw = atom->elements;
  sw.spelling = SwizzleSpelling::kCute;
  if (panels == 1) return tile_layout(rows, cols, cols, sw);
  Layout out;
  const std::string m(kMemoryAxis);
  out.shard = {Mode{rows, {width, m}}, Mode{panels, {rows * width, m}}, Mode{width, {1, m}}};
  out.swizzle = sw;
  return out;
}

}  // namespace layoutscope
