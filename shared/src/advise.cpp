#include "layoutscope/advise.hpp"

#include <algorithm>
#include <bit>
#include <cctype>

#include "layoutscope/parse.hpp"

namespace layoutscope {
namespace {

// A shared tile holds at most 227 KiB on sm_90: 2^16 elements covers it for 4-byte types and bounds the
// search (every candidate costs both accesses over the whole tile).
constexpr int64_t kMaxTileElements = int64_t{1} << 16;

int code_points(std::string_view s) {
  int n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

std::string_view trim(std::string_view s, size_t* lead) {
  size_t a = 0;
  while (a < s.size() && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  size_t b = s.size();
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  *lead = a;
  return s.substr(a, b - a);
}

bool writes_shared(Op op) {
  return op == Op::kSts || op == Op::kStmatrix || op == Op::kCpAsync || op == Op::kTma;
}
bool reads_shared(Op op) { return op == Op::kLds || op == Op::kLdmatrix; }

// CUTLASS's INTERLEAVE atom is 8 rows x 16 B, unswizzled, tiled down the rows first: panels 16 B wide.
Layout interleave_layout(DType dtype, int64_t rows, int64_t cols) {
  const int64_t width = 16 / dtype_bytes(dtype);
  const int64_t panels = cols / width;
  if (panels <= 1) return tile_layout(rows, cols, cols);
  Layout l;
  const std::string m(kMemoryAxis);
  l.shard = {Mode{rows, {width, m}}, Mode{panels, {rows * width, m}}, Mode{width, {1, m}}};
  return l;
}

struct Sides {
  Lanes write;
  Lanes read;
};

Error side_error(const char* side, Error e) {
  e.message = std::string(side) + ": " + e.message;
  e.field = side;
  return e;
}

// Costs both accesses on one layout. mode: the TMA mode this layout is (for a TMA side).
Result<Candidate> evaluate(Candidate c, const AdviseRequest& q, const Sides& lanes, SwizzleMode mode) {
  auto one = [&](const TileSide& side, const Lanes& l, const char* name, int64_t* wf,
                 int64_t* ideal) -> std::optional<Error> {
    Instruction in = side.instr;
    if (in.op == Op::kTma) in.tma_mode = mode;
    WarpAccess a{c.layout, q.tile, q.dtype, in, l, std::nullopt};
    auto r = cost(a);
    if (!r) return side_error(name, r.error());
    *wf = r->wavefronts;
    *ideal = r->ideal_wavefronts;
    return std::nullopt;
  };
  if (auto e = one(q.writer, lanes.write, "writer", &c.write_wavefronts, &c.write_ideal)) return *e;
  if (auto e = one(q.reader, lanes.read, "reader", &c.read_wavefronts, &c.read_ideal)) return *e;
  c.write_counted = q.writer.instr.op != Op::kTma;
  return c;
}

int kind_rank(CandidateKind k) { return static_cast<int>(k); }

std::string mode_label(SwizzleMode m) { return "TMA " + std::string(short_name(m)); }

}  // namespace

std::string_view to_string(CandidateKind kind) {
  switch (kind) {
    case CandidateKind::kPlain:
      return "plain";
    case CandidateKind::kTma:
      return "tma";
    case CandidateKind::kSwizzle:
      return "swizzle";
    case CandidateKind::kPadding:
      return "padding";
  }
  return "?";
}

std::string_view to_string(LaneOrder order) {
  switch (order) {
    case LaneOrder::kDefault:
      return "default";
    case LaneOrder::kRows:
      return "rows";
    case LaneOrder::kColumns:
      return "columns";
    case LaneOrder::kMatrices:
      return "matrices";
    case LaneOrder::kThreads:
      return "threads";
    case LaneOrder::kExplicit:
      return "explicit";
  }
  return "?";
}

Result<TileSide> parse_tile_side(std::string_view text, bool writer) {
  const char* field = writer ? "writer" : "reader";
  TileSide side;
  const size_t semi = text.find(';');
  std::string_view expr = semi == std::string_view::npos ? std::string_view{} : text.substr(0, semi);
  const size_t instr_at = semi == std::string_view::npos ? 0 : semi + 1;
  size_t lead = 0;
  const std::string_view instr_text = trim(text.substr(instr_at), &lead);
  const int instr_column = code_points(text.substr(0, instr_at + lead)) + 1;
  if (instr_text.empty()) {
    return make_error("expected an instruction or a width after ';' (EXPR;INSTR)", instr_column, field);
  }
  if (instr_text == "4" || instr_text == "8" || instr_text == "16") {
    side.instr.op = writer ? Op::kSts : Op::kLds;
    side.instr.bytes = instr_text == "4" ? 4 : instr_text == "8" ? 8 : 16;
  } else {
    auto in = parse_instruction(instr_text);
    if (!in) {
      Error e = in.error();
      e.column = e.column > 0 ? e.column + instr_column - 1 : instr_column;
      e.field = field;
      return e;
    }
    side.instr = *in;
  }
  if (writer && !writes_shared(side.instr.op)) {
    return make_error("the writer must store into shared memory (STS, stmatrix, cp.async, tma), not " +
                          to_string(side.instr),
                      instr_column, field);
  }
  if (!writer && !reads_shared(side.instr.op)) {
    return make_error("the reader must load from shared memory (LDS, ldmatrix), not " + to_string(side.instr),
                      instr_column, field);
  }
  auto lanes = parse_lane_spec(expr, side, 1);
  if (!lanes) {
    Error e = lanes.error();
    e.field = field;
    return e;
  }
  return lanes;
}

Result<TileSide> parse_lane_spec(std::string_view text, TileSide side, int column) {
  size_t lead = 0;
  const std::string_view e = trim(text, &lead);
  const int at = column + code_points(text.substr(0, lead));
  side.lanes.clear();
  side.threads = Layout{};
  if (e.empty() || e == "default") {
    side.order = LaneOrder::kDefault;
  } else if (e == "rows") {
    side.order = LaneOrder::kRows;
  } else if (e == "columns" || e == "cols") {
    side.order = LaneOrder::kColumns;
  } else if (e == "matrices") {
    side.order = LaneOrder::kMatrices;
  } else if (std::isdigit(static_cast<unsigned char>(e[0])) || e[0] == '_') {
    side.order = LaneOrder::kExplicit;
    side.lanes.emplace_back();
    size_t i = 0;
    while (i < e.size()) {
      const char c = e[i];
      if (c == ' ' || c == ',') {
        ++i;
      } else if (c == '/') {
        side.lanes.emplace_back();
        ++i;
      } else if (c == '_') {
        side.lanes.back().push_back(kIdleLane);
        ++i;
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        int64_t v = 0;
        const size_t start = i;
        while (i < e.size() && std::isdigit(static_cast<unsigned char>(e[i]))) {
          if (v > (int64_t{1} << 40))
            return make_error("lane index too large", at + static_cast<int>(start), "lanes");
          v = v * 10 + (e[i] - '0');
          ++i;
        }
        side.lanes.back().push_back(v);
      } else {
        return make_error(std::string("unexpected '") + c + "' in a lane list (numbers, ',', '/', '_')",
                          at + static_cast<int>(i), "lanes");
      }
      if (side.lanes.back().size() > static_cast<size_t>(kWarpLanes)) {
        return make_error("more than 32 lanes in one instruction", at + static_cast<int>(i) - 1, "lanes");
      }
    }
  } else {
    auto l = parse_layout(e);
    if (!l) {
      Error err = l.error();
      err.column = err.column > 0 ? err.column + at - 1 : at;
      err.field = "lanes";
      return err;
    }
    side.order = LaneOrder::kThreads;
    side.threads = *l;
  }
  return side;
}

Result<Lanes> side_lanes(const TileSide& side, const std::vector<int64_t>& shape, DType dtype) {
  const bool matrix = side.instr.op == Op::kLdmatrix || side.instr.op == Op::kStmatrix;
  if (side.instr.op == Op::kTma) return Lanes{};
  switch (side.order) {
    case LaneOrder::kDefault:
      return default_lanes(shape, dtype, side.instr);
    case LaneOrder::kRows:
    case LaneOrder::kColumns:
      if (matrix) {
        return make_error(to_string(side.instr) +
                              " lanes address matrix rows: use the default (matrices) or a thread layout",
                          0, "lanes");
      }
      return side.order == LaneOrder::kRows ? row_lanes(shape, dtype, side.instr)
                                            : column_lanes(shape, dtype, side.instr);
    case LaneOrder::kMatrices:
      return matrix_lanes(shape, dtype, side.instr);
    case LaneOrder::kThreads:
      return thread_lanes(side.threads, shape, dtype, side.instr);
    case LaneOrder::kExplicit:
      if (side.lanes.empty()) return make_error("the lane list is empty", 0, "lanes");
      return side.lanes;
  }
  return make_error("unknown lane order", 0, "lanes");
}

std::string cutlass_ss_smem_selector(DType dtype, const std::vector<int64_t>& tile, std::string* why) {
  auto say = [&](std::string s) {
    if (why) *why = std::move(s);
  };
  if (tile.size() < 2) {
    say("the selector needs an MN x K tile");
    return "";
  }
  const int64_t cols = tile.back();
  const int64_t rows = tile[tile.size() - 2];
  if (rows % 8 != 0 || cols % 8 != 0) {
    say("ss_smem_selector requires both extents to be multiples of 8");
    return "";
  }
  const int64_t row_bytes = cols * dtype_bytes(dtype);
  const std::pair<int64_t, const char*> atoms[] = {
      {128, "SW128"}, {64, "SW64"}, {32, "SW32"}, {16, "INTERLEAVE"}};
  for (auto [bytes, name] : atoms) {
    if (row_bytes % bytes == 0) {
      say("K-major rows of " + std::to_string(row_bytes) + " B: the widest atom that divides them is " +
          std::to_string(bytes) + " B (" + name + ")");
      return name;
    }
  }
  say("rows of " + std::to_string(row_bytes) + " B are not a multiple of any atom width (16 B at least)");
  return "";
}

std::string thunderkittens_swizzle(DType dtype, const std::vector<int64_t>& tile, std::string* why) {
  auto say = [&](std::string s) {
    if (why) *why = std::move(s);
  };
  if (tile.size() < 2 || tile.back() % 16 != 0 || tile[tile.size() - 2] % 16 != 0) {
    say("ThunderKittens tiles are made of 16x16 subtiles");
    return "";
  }
  const int64_t width = tile.back() / 16;
  const int bytes = dtype_bytes(dtype);
  const std::string w = "width " + std::to_string(width) + " subtiles";
  if (bytes == 2) {
    const char* mode = width % 4 == 0 ? "128B" : width % 2 == 0 ? "64B" : "32B";
    say("2-byte type, " + w + ": " +
        (width % 4 == 0   ? "% 4 == 0 -> 128B"
         : width % 2 == 0 ? "% 2 == 0 -> 64B"
                          : "odd -> 32B"));
    return mode;
  }
  if (bytes == 4) {
    say("4-byte type, " + w + (width % 2 == 0 ? ": % 2 == 0 -> 128B" : ": odd -> 64B"));
    return width % 2 == 0 ? "128B" : "64B";
  }
  say("ThunderKittens swizzles 2- and 4-byte types only");
  return "";
}

Result<Advice> advise(const AdviseRequest& q) {
  if (q.tile.empty()) return make_error("give the tile shape (rows, columns)", 0, "tile");
  int64_t n = 1;
  for (int64_t e : q.tile) {
    if (e < 1 || e > kMaxTileElements)
      return make_error("tile extents must be 1 to " + std::to_string(kMaxTileElements), 0, "tile");
    n *= e;
    if (n > kMaxTileElements)
      return make_error("the tile has more than " + std::to_string(kMaxTileElements) + " elements", 0,
                        "tile");
  }
  if (auto bad = check_instruction(q.writer.instr)) return side_error("writer", *bad);
  if (auto bad = check_instruction(q.reader.instr)) return side_error("reader", *bad);
  if (!writes_shared(q.writer.instr.op))
    return make_error("the writer must store into shared memory, not " + to_string(q.writer.instr), 0,
                      "writer");
  if (!reads_shared(q.reader.instr.op))
    return make_error("the reader must load from shared memory, not " + to_string(q.reader.instr), 0,
                      "reader");
  Sides lanes;
  auto w = side_lanes(q.writer, q.tile, q.dtype);
  if (!w) return side_error("writer", w.error());
  auto r = side_lanes(q.reader, q.tile, q.dtype);
  if (!r) return side_error("reader", r.error());
  lanes.write = std::move(w).value();
  lanes.read = std::move(r).value();

  const int elem = dtype_bytes(q.dtype);
  const int64_t cols = q.tile.back();
  const int64_t rows = n / cols;
  const bool tma_only = q.writer.instr.op == Op::kTma;
  Advice out;
  auto consider = [&](Candidate c, SwizzleMode mode) {
    ++out.searched;
    auto done = evaluate(std::move(c), q, lanes, mode);
    if (done) {
      out.candidates.push_back(std::move(done).value());
    } else {
      ++out.rejected;
    }
  };

  // TMA modes (and, when TMA writes, nothing else: it writes only in its modes).
  for (SwizzleMode mode : {SwizzleMode::kNone, SwizzleMode::k32B, SwizzleMode::k64B, SwizzleMode::k128B}) {
    if (mode == SwizzleMode::kNone && !tma_only) continue;  // the plain candidate below
    auto l = tma_layout(mode, q.dtype, q.tile);
    if (!l) continue;
    Candidate c;
    c.kind = CandidateKind::kTma;
    c.name = mode_label(mode);
    c.layout = *l;
    c.shared_bytes = n * elem;
    consider(std::move(c), mode);
  }
  if (!tma_only) {
    Candidate plain;
    plain.kind = CandidateKind::kPlain;
    plain.name = "row-major";
    plain.layout = tile_layout(rows, cols, cols);
    plain.shared_bytes = n * elem;
    consider(plain, SwizzleMode::kNone);

    const int bits =
        static_cast<int>(std::bit_width(static_cast<uint64_t>(n - 1)));  // offsets fit in this many bits
    for (int b = 1; b <= 5; ++b) {
      for (int m = 0; m + 2 * b <= bits; ++m) {
        for (int s = b; m + s + b <= bits; ++s) {
          Swizzle sw;
          sw.bits = b, sw.base = m, sw.shift = s;
          int64_t top = 0;
          for (int64_t o = 0; o < n; ++o) top = std::max(top, apply_swizzle(sw, o));
          Candidate c;
          c.kind = CandidateKind::kSwizzle;
          c.name = to_string(sw);
          c.layout = plain.layout;
          c.layout.swizzle = sw;
          c.shared_bytes = (top + 1) * elem;
          consider(std::move(c), SwizzleMode::kNone);
        }
      }
    }
    for (int pad_bytes : {4, 8, 12, 16}) {
      if (pad_bytes % elem != 0) continue;
      const int64_t pad = pad_bytes / elem;
      Candidate c;
      c.kind = CandidateKind::kPadding;
      c.name = "pad " + std::to_string(pad_bytes) + " B";
      c.layout = tile_layout(rows, cols, cols + pad);
      c.shared_bytes = rows * (cols + pad) * elem;
      consider(std::move(c), SwizzleMode::kNone);
    }
  }
  std::stable_sort(out.candidates.begin(), out.candidates.end(), [](const Candidate& a, const Candidate& b) {
    const int64_t wa = a.write_wavefronts + a.read_wavefronts, wb = b.write_wavefronts + b.read_wavefronts;
    if (wa != wb) return wa < wb;
    if (a.shared_bytes != b.shared_bytes) return a.shared_bytes < b.shared_bytes;
    return kind_rank(a.kind) < kind_rank(b.kind);
  });

  // The fixed rules.
  auto rule = [&](std::string name, std::string choice, std::string why, std::optional<Layout> layout,
                  SwizzleMode mode) {
    RuleChoice rc{std::move(name), choice, std::move(why), std::nullopt};
    if (layout) {
      Candidate c;
      c.kind = mode == SwizzleMode::kNone ? CandidateKind::kPlain : CandidateKind::kTma;
      c.name = choice;
      c.layout = *layout;
      c.shared_bytes = n * elem;
      auto done = evaluate(std::move(c), q, lanes, mode);
      if (done) {
        rc.candidate = std::move(done).value();
      } else {
        rc.reason += "; " + done.error().message;
      }
    }
    out.rules.push_back(std::move(rc));
  };
  {
    std::string why;
    const std::string pick = cutlass_ss_smem_selector(q.dtype, q.tile, &why);
    std::optional<Layout> layout;
    SwizzleMode mode = SwizzleMode::kNone;
    if (pick == "INTERLEAVE") {
      layout = interleave_layout(q.dtype, rows, cols);
    } else if (!pick.empty()) {
      mode = pick == "SW128" ? SwizzleMode::k128B : pick == "SW64" ? SwizzleMode::k64B : SwizzleMode::k32B;
      auto l = tma_layout(mode, q.dtype, q.tile);
      if (l) layout = *l;
    }
    if (q.writer.instr.op == Op::kTma && pick == "INTERLEAVE") {
      why += "; TMA does not write the interleaved panels";
      layout.reset();
    }
    rule("CUTLASS ss_smem_selector", pick, why, layout, mode);
  }
  {
    std::string why;
    const std::string pick = thunderkittens_swizzle(q.dtype, q.tile, &why);
    std::optional<Layout> layout;
    SwizzleMode mode = SwizzleMode::kNone;
    if (!pick.empty()) {
      mode = pick == "128B" ? SwizzleMode::k128B : pick == "64B" ? SwizzleMode::k64B : SwizzleMode::k32B;
      auto l = tma_layout(mode, q.dtype, q.tile);
      if (l) layout = *l;
    }
    rule("ThunderKittens st", pick, why, layout, mode);
  }
  return out;
}

}  // namespace layoutscope
