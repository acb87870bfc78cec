#include "layoutscope/tcgen05.hpp"

#include <algorithm>
#include <bit>

#include "layoutscope/mapping.hpp"
#include "layoutscope/parse.hpp"

namespace layoutscope {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

Error rule_error(std::string message, std::string field, std::string rule) {
  return make_error(std::move(message), 0, std::move(field), std::move(rule));
}

// " + O[32@TLane + 8@TCol]" for the non-zero offsets, "" when both are zero.
std::string tmem_offset(int64_t lane, int64_t column) {
  std::string terms;
  if (lane != 0) terms += str(lane) + "@TLane";
  if (column != 0) terms += (terms.empty() ? "" : " + ") + str(column) + "@TCol";
  return terms.empty() ? "" : " + O[" + terms + "]";
}

// S[(e0,e1,...):(s0,s1,...)] from (extent, stride) pairs, leaving out extent-1 modes (all of them kept when
// every extent is 1), so one atom reads as the chapter writes it.
std::string shard(const std::vector<std::pair<int64_t, std::string>>& modes) {
  std::vector<std::pair<int64_t, std::string>> kept;
  for (const auto& m : modes)
    if (m.first != 1) kept.push_back(m);
  if (kept.empty()) kept.push_back(modes.front());
  std::string e, s;
  for (size_t i = 0; i < kept.size(); ++i) {
    if (i != 0) {
      e += ',';
      s += ',';
    }
    e += str(kept[i].first);
    s += kept[i].second;
  }
  return kept.size() == 1 ? "S[" + e + ":" + s + "]" : "S[(" + e + "):(" + s + ")]";
}

Result<Layout> layout_of(const std::string& text) {
  auto l = parse_layout(text);
  if (!l) return make_error("internal: built layout does not parse: " + text + ": " + l.error().message);
  return l;
}

int64_t axis_index(const std::vector<std::string>& axes, std::string_view name) {
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i] == name) return static_cast<int64_t>(i);
  return -1;
}

bool is_pow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

}  // namespace

std::optional<Error> check_tmem_allocation(int64_t columns, std::string_view field) {
  if (columns < 32 || columns > kTmemColumns || !is_pow2(columns))
    return rule_error("TMEM is allocated in powers of two from 32 to 512 columns, not " + str(columns),
                      std::string(field), "allocation granularity");
  return std::nullopt;
}

// ---- tcgen05.ld / tcgen05.st ------------------------------------------------------------------------------

const std::vector<TmemAccessShape>& tmem_access_shapes() {
  static const std::vector<TmemAccessShape> all = {TmemAccessShape::k32x32b, TmemAccessShape::k16x64b,
                                                   TmemAccessShape::k16x128b, TmemAccessShape::k16x256b,
                                                   TmemAccessShape::k16x32bx2};
  return all;
}

std::string_view to_string(TmemAccessShape shape) {
  switch (shape) {
    case TmemAccessShape::k32x32b:
      return "32x32b";
    case TmemAccessShape::k16x64b:
      return "16x64b";
    case TmemAccessShape::k16x128b:
      return "16x128b";
    case TmemAccessShape::k16x256b:
      return "16x256b";
    case TmemAccessShape::k16x32bx2:
      return "16x32bx2";
  }
  return "?";
}

Result<TmemAccessShape> parse_tmem_access_shape(std::string_view text) {
  if (text.starts_with(".")) text.remove_prefix(1);
  for (TmemAccessShape s : tmem_access_shapes())
    if (to_string(s) == text) return s;
  return make_error(
      "unknown tcgen05.ld/st shape '" + std::string(text) + "' (32x32b, 16x64b, 16x128b, 16x256b, 16x32bx2)",
      0, "shape", "range");
}

int64_t tmem_access_lanes(TmemAccessShape shape) { return shape == TmemAccessShape::k32x32b ? 32 : 16; }

int64_t tmem_access_registers_per_repeat(TmemAccessShape shape) {
  switch (shape) {
    case TmemAccessShape::k16x128b:
      return 2;
    case TmemAccessShape::k16x256b:
      return 4;
    default:
      return 1;
  }
}

// At most 128 32-bit registers per thread (PTX ISA, tcgen05.ld: ".num" table).
int64_t tmem_access_max_num(TmemAccessShape shape) { return 128 / tmem_access_registers_per_repeat(shape); }

Result<TmemAccessLayouts> tmem_access_layouts(const TmemAccess& a) {
  const std::string shape_name(to_string(a.shape));
  const int64_t max_num = tmem_access_max_num(a.shape);
  if (!is_pow2(a.num) || a.num > max_num)
    return rule_error("." + shape_name + " takes .num = .x1, .x2, .x4 ... .x" + str(max_num) + ", not " +
                          str(a.num) + " (at most 128 registers per thread)",
                      "num", "range");
  if (a.lane < 0 || a.lane >= kTmemLanes)
    return rule_error("lane " + str(a.lane) + " is outside TMEM's 128 lanes", "lane", "range");
  if (a.column < 0 || a.column >= kTmemColumns)
    return rule_error("column " + str(a.column) + " is outside TMEM's 512 columns", "column", "range");
  if (a.shape != TmemAccessShape::k16x32bx2 && a.half_split != -1)
    return rule_error("half_split is the immHalfSplitoff of .16x32bx2 only", "half_split", "range");
  if (a.half_split < -1) return rule_error("half_split must be at least 0", "half_split", "range");

  TmemAccessLayouts out;
  const int64_t n = a.num;
  const int64_t rows = tmem_access_lanes(a.shape);
  out.registers = n * tmem_access_registers_per_repeat(a.shape);
  out.lane_begin = a.lane;
  out.lane_end = a.lane + rows;
  out.slab = a.lane / kTmemSlabLanes;
  // A warp reaches only its own slab: all the lanes of one access lie in one 32-lane slab.
  if (out.lane_end > kTmemLanes || (out.lane_end - 1) / kTmemSlabLanes != out.slab)
    return rule_error("." + shape_name + " at lane " + str(a.lane) + " touches lanes " + str(a.lane) + ".." +
                          str(out.lane_end - 1) +
                          ", across a 32-lane slab boundary: warp w reaches only lanes " +
                          "32*(w%4) .. 32*(w%4)+31",
                      "lane", "slab");
  out.warp = a.warp < 0 ? out.slab : a.warp;
  if (out.warp >= 32)
    return rule_error("warp " + str(out.warp) + ": a CTA has at most 32 warps", "warp", "range");
  if (out.warp % 4 != out.slab)
    return rule_error("warp " + str(out.warp) + " reaches TMEM lanes " + str(32 * (out.warp % 4)) + ".." +
                          str(32 * (out.warp % 4) + 31) + " (warp % 4 = " + str(out.warp % 4) +
                          "), not lane " + str(a.lane) + " (slab " + str(out.slab) + ")",
                      "warp", "slab");

  std::string threads, tmem;
  const int64_t split = a.half_split < 0 ? n : a.half_split;
  int64_t cols = 0;
  switch (a.shape) {
    case TmemAccessShape::k32x32b:
      cols = n;
      threads = shard({{32, "1@laneid"}, {n, "1@reg"}});
      break;
    case TmemAccessShape::k16x64b:  // row 8h + q, column 2j + p: thread h + 2p + 4q, register j
      cols = 2 * n;
      threads = "S[(2,8," + str(n) + ",2):(1@laneid,4@laneid,1@reg,2@laneid)]";
      break;
    case TmemAccessShape::k16x128b:  // row 8v + q, column 4j + p: thread 4q + p, register 2j + v
      cols = 4 * n;
      threads = "S[(2,8," + str(n) + ",4):(1@reg,4@laneid,2@reg,1@laneid)]";
      break;
    case TmemAccessShape::k16x256b:  // row 8h + q, column 8j + 2p + b: thread 4q + p, register 4j + 2h + b
      cols = 8 * n;
      threads = "S[(2,8," + str(n) + ",4,2):(2@reg,4@laneid,4@reg,1@laneid,1@reg)]";
      break;
    case TmemAccessShape::k16x32bx2:  // row q, column h*num + j: thread q + 16h, register j
      cols = 2 * n;
      threads = "S[(16,2," + str(n) + "):(1@laneid,16@laneid,1@reg)]";
      break;
  }
  threads += " + O[" + str(out.warp) + "@warpid]";
  if (a.shape == TmemAccessShape::k16x32bx2)
    tmem = "S[(16,2," + str(n) + "):(1@TLane," + str(split) + "@TCol,1@TCol)]";
  else
    tmem = "S[(" + str(rows) + "," + str(cols) + "):(1@TLane,1@TCol)]";
  tmem += tmem_offset(a.lane, a.column);
  out.shape = {rows, cols};
  out.column_begin = a.column;
  out.column_end = a.column + (a.shape == TmemAccessShape::k16x32bx2 ? std::max(n, split + n) : cols);
  if (out.column_end > kTmemColumns)
    return rule_error("." + shape_name + ".x" + str(n) + " at column " + str(a.column) + " reaches column " +
                          str(out.column_end - 1) + ", past TMEM's 512",
                      "column", "tmem range");
  if (a.allocated_columns != 0) {
    if (auto e = check_tmem_allocation(a.allocated_columns)) return *e;
    if (out.column_end > a.allocated_columns)
      return rule_error("the access reaches column " + str(out.column_end - 1) +
                            ", outside the allocation of " + str(a.allocated_columns) + " columns",
                        "column", "tmem range");
  }
  out.instruction = std::string(a.store ? "tcgen05.st" : "tcgen05.ld") + ".sync.aligned." + shape_name +
                    ".x" + str(n) + ".b32";
  auto t = layout_of(threads);
  if (!t) return t.error();
  auto m = layout_of(tmem);
  if (!m) return m.error();
  out.threads = *t;
  out.tmem = *m;
  return out;
}

Result<std::vector<TmemAccessCell>> tmem_access_cells(const TmemAccessLayouts& l) {
  auto th = table(l.threads, l.shape);
  if (!th) return th.error();
  auto tm = table(l.tmem, l.shape);
  if (!tm) return tm.error();
  const int64_t lane = axis_index(th->axes, "laneid"), reg = axis_index(th->axes, "reg");
  const int64_t tlane = axis_index(tm->axes, "TLane"), tcol = axis_index(tm->axes, "TCol");
  const size_t ka = th->axes.size(), kb = tm->axes.size();
  std::vector<TmemAccessCell> cells(static_cast<size_t>(th->elements));
  for (size_t x = 0; x < cells.size(); ++x) {
    TmemAccessCell& c = cells[x];
    c.row = static_cast<int64_t>(x) / l.shape[1];
    c.col = static_cast<int64_t>(x) % l.shape[1];
    c.laneid = lane < 0 ? 0 : th->values[x * ka + static_cast<size_t>(lane)];
    c.reg = reg < 0 ? 0 : th->values[x * ka + static_cast<size_t>(reg)];
    c.tlane = tlane < 0 ? 0 : tm->values[x * kb + static_cast<size_t>(tlane)];
    c.tcol = tcol < 0 ? 0 : tm->values[x * kb + static_cast<size_t>(tcol)];
  }
  return cells;
}

// ---- tcgen05.cp
// ---------------------------------------------------------------------------------------------

const std::vector<TmemCopyShape>& tmem_copy_shapes() {
  static const std::vector<TmemCopyShape> all = {TmemCopyShape::k128x256b,
                                                 TmemCopyShape::k4x256b,
                                                 TmemCopyShape::k128x128b,
                                                 TmemCopyShape::k64x128bWarpx2_02_13,
                                                 TmemCopyShape::k64x128bWarpx2_01_23,
                                                 TmemCopyShape::k32x128bWarpx4};
  return all;
}

std::string_view to_string(TmemCopyShape shape) {
  switch (shape) {
    case TmemCopyShape::k128x256b:
      return "128x256b";
    case TmemCopyShape::k4x256b:
      return "4x256b";
    case TmemCopyShape::k128x128b:
      return "128x128b";
    case TmemCopyShape::k64x128bWarpx2_02_13:
      return "64x128b.warpx2::02_13";
    case TmemCopyShape::k64x128bWarpx2_01_23:
      return "64x128b.warpx2::01_23";
    case TmemCopyShape::k32x128bWarpx4:
      return "32x128b.warpx4";
  }
  return "?";
}

Result<TmemCopyShape> parse_tmem_copy_shape(std::string_view text) {
  if (text.starts_with(".")) text.remove_prefix(1);
  for (TmemCopyShape s : tmem_copy_shapes())
    if (to_string(s) == text) return s;
  return make_error("unknown tcgen05.cp shape '" + std::string(text) +
                        "' (128x256b, 4x256b, 128x128b, 64x128b.warpx2::02_13, 64x128b.warpx2::01_23, "
                        "32x128b.warpx4)",
                    0, "shape", "range");
}

Result<TmemCopyLayouts> tmem_copy_layouts(const TmemCopy& c) {
  if (c.lane < 0 || c.lane >= kTmemLanes)
    return rule_error("lane " + str(c.lane) + " is outside TMEM's 128 lanes", "lane", "range");
  if (c.column < 0 || c.column >= kTmemColumns)
    return rule_error("column " + str(c.column) + " is outside TMEM's 512 columns", "column", "range");
  if (c.column % 4 != 0)
    return rule_error(
        "tcgen05.cp needs a 128-bit aligned TMEM column (a multiple of 4), not " + str(c.column), "column",
        "alignment");
  TmemCopyLayouts out;
  std::string s;
  int64_t lanes_spanned = 0;  // lanes from the address to the last one written, replicas included
  switch (c.shape) {
    case TmemCopyShape::k128x256b:
      out.shape = {128, 8};
      s = "S[(128,8):(1@TLane,1@TCol)]";
      lanes_spanned = 128;
      break;
    case TmemCopyShape::k4x256b:
      out.shape = {4, 8};
      s = "S[(4,8):(32@TLane,1@TCol)]";
      lanes_spanned = 97;
      break;
    case TmemCopyShape::k128x128b:
      out.shape = {128, 4};
      s = "S[(128,4):(1@TLane,1@TCol)]";
      lanes_spanned = 128;
      break;
    case TmemCopyShape::k64x128bWarpx2_02_13:  // warps 0 and 2 get rows 0..31, warps 1 and 3 rows 32..63
      out.shape = {64, 4};
      out.replicas = 2;
      s = "S[(64,4):(1@TLane,1@TCol)] + R[2:64@TLane]";
      lanes_spanned = 128;
      break;
    case TmemCopyShape::k64x128bWarpx2_01_23:  // warps 0 and 1 get rows 0..31, warps 2 and 3 rows 32..63
      out.shape = {64, 4};
      out.replicas = 2;
      s = "S[(2,32,4):(64@TLane,1@TLane,1@TCol)] + R[2:32@TLane]";
      lanes_spanned = 128;
      break;
    case TmemCopyShape::k32x128bWarpx4:
      out.shape = {32, 4};
      out.replicas = 4;
      s = "S[(32,4):(1@TLane,1@TCol)] + R[4:32@TLane]";
      lanes_spanned = 128;
      break;
  }
  out.row_bytes = out.shape[1] * 4;
  if (c.lane + lanes_spanned > kTmemLanes)
    return rule_error(std::string(to_string(c.shape)) + " at lane " + str(c.lane) + " writes up to lane " +
                          str(c.lane + lanes_spanned - 1) + ", past TMEM's 128 (replicas included)",
                      "lane", "tmem range");
  const int64_t end = c.column + out.shape[1];
  if (end > kTmemColumns)
    return rule_error("the copy reaches column " + str(end - 1) + ", past TMEM's 512", "column",
                      "tmem range");
  if (c.allocated_columns != 0) {
    if (auto e = check_tmem_allocation(c.allocated_columns)) return *e;
    if (end > c.allocated_columns)
      return rule_error("the copy reaches column " + str(end - 1) + ", outside the allocation of " +
                            str(c.allocated_columns) + " columns",
                        "column", "tmem range");
  }
  out.instruction = "tcgen05.cp.cta_group::1." + std::string(to_string(c.shape));
  auto l = layout_of(s + tmem_offset(c.lane, c.column));
  if (!l) return l.error();
  out.tmem = *l;
  return out;
}

// ---- block-scaled MMA scale factors
// -------------------------------------------------------------------------

std::string_view to_string(BlockScaleKind kind) {
  switch (kind) {
    case BlockScaleKind::kMxf8f6f4:
      return "mxf8f6f4";
    case BlockScaleKind::kMxf4:
      return "mxf4";
    case BlockScaleKind::kMxf4Nvf4:
      return "mxf4nvf4";
  }
  return "?";
}

Result<BlockScaleKind> parse_block_scale_kind(std::string_view text) {
  if (text.starts_with("kind::")) text.remove_prefix(6);
  for (BlockScaleKind k : {BlockScaleKind::kMxf8f6f4, BlockScaleKind::kMxf4, BlockScaleKind::kMxf4Nvf4})
    if (to_string(k) == text) return k;
  return make_error("unknown block-scaled kind '" + std::string(text) + "' (mxf8f6f4, mxf4, mxf4nvf4)", 0,
                    "kind", "range");
}

Result<ScaleFactorLayouts> scale_factor_layouts(const ScaleFactorSpec& s) {
  // kind::mxf8f6f4 and kind::mxf4 scale 32 elements (scale_vec::1X / 2X); kind::mxf4nvf4 16 (4X) or 32 (2X).
  const bool vec_ok = s.kind == BlockScaleKind::kMxf4Nvf4 ? (s.vec == 16 || s.vec == 32) : s.vec == 32;
  if (!vec_ok)
    return rule_error("kind::" + std::string(to_string(s.kind)) + " scales " +
                          (s.kind == BlockScaleKind::kMxf4Nvf4 ? "16 or 32" : "32") + " elements, not " +
                          str(s.vec),
                      "vec", "range");
  if (s.m <= 0 || s.m % 128 != 0 || s.m > (int64_t{1} << 20))
    return rule_error("m must be a positive multiple of 128 (the 128-row scale-factor atom), not " + str(s.m),
                      "m", "granularity");
  if (s.k <= 0 || s.k % (4 * s.vec) != 0 || s.k > (int64_t{1} << 24))
    return rule_error("k must be a positive multiple of " + str(4 * s.vec) + " (4 scales of " + str(s.vec) +
                          " elements: the atom's 4 columns), not " + str(s.k),
                      "k", "granularity");
  if (s.column < 0 || s.column % 4 != 0)
    return rule_error(
        "column must be a non-negative multiple of 4 (tcgen05.cp is 128-bit aligned), not " + str(s.column),
        "column", "alignment");
  ScaleFactorLayouts out;
  const int64_t ksf = s.k / s.vec;
  out.shape = {s.m, ksf};
  out.atoms_m = s.m / 128;
  out.atoms_k = ksf / 4;
  out.mma_k = s.kind == BlockScaleKind::kMxf8f6f4 ? 32 : 64;
  out.scales_per_mma = out.mma_k / s.vec;
  out.bytes = s.m * ksf;
  out.columns = 4 * out.atoms_m * out.atoms_k;
  if (s.column + out.columns > kTmemColumns)
    return rule_error(
        str(out.columns) + " scale-factor columns from column " + str(s.column) + " pass TMEM's 512",
        "column", "tmem range");
  const int64_t mb = out.atoms_m, kb = out.atoms_k;
  // m = 128 mb + 32 g + i, k = 4 kb + kk: atom (mb, kb) is 512 B at (mb * atoms_k + kb) * 512, row i of 16 B.
  out.smem = [&] {
    auto l = layout_of(shard({{mb, str(kb * 512)}, {4, "4"}, {32, "16"}, {kb, "512"}, {4, "1"}}));
    return l ? *l : Layout{};
  }();
  std::string tmem =
      shard({{mb, str(4 * kb) + "@TCol"}, {4, "1@TCol"}, {32, "1@TLane"}, {kb, "4@TCol"}, {4, "1@byte"}}) +
      " + R[4:32@TLane]" + tmem_offset(0, s.column);
  auto t = layout_of(tmem);
  if (!t) return t.error();
  out.tmem = *t;
  out.copy = "tcgen05.cp.cta_group::1.32x128b.warpx4";
  return out;
}

Result<ScaleFactorTrace> trace_scale_factor(const ScaleFactorSpec& spec, int64_t m, int64_t k) {
  auto l = scale_factor_layouts(spec);
  if (!l) return l.error();
  if (m < 0 || m >= l->shape[0])
    return rule_error("m " + str(m) + " is outside the scale matrix's " + str(l->shape[0]) + " rows", "m",
                      "range");
  if (k < 0 || k >= l->shape[1])
    return rule_error("k " + str(k) + " is outside the scale matrix's " + str(l->shape[1]) + " scale columns",
                      "k", "range");
  auto sm = forward_coord(l->smem, l->shape, {m, k});
  if (!sm) return sm.error();
  auto tm = forward_coord(l->tmem, l->shape, {m, k});
  if (!tm) return tm.error();
  ScaleFactorTrace t;
  t.m = m;
  t.k = k;
  const auto smem_axes = layout_axes(l->smem);
  const int64_t mi = axis_index(smem_axes, "m");
  t.smem_byte = mi < 0 ? 0 : sm->positions[0].values[static_cast<size_t>(mi)];
  t.atom = t.smem_byte / 512;
  t.copy_row = (t.smem_byte % 512) / 16;
  t.copy_byte = t.smem_byte % 16;
  const auto axes = layout_axes(l->tmem);
  const int64_t li = axis_index(axes, "TLane"), ci = axis_index(axes, "TCol"), bi = axis_index(axes, "byte");
  for (const Position& p : tm->positions) t.tlanes.push_back(li < 0 ? 0 : p.values[static_cast<size_t>(li)]);
  t.tcol = ci < 0 ? 0 : tm->positions[0].values[static_cast<size_t>(ci)];
  t.byte = bi < 0 ? 0 : tm->positions[0].values[static_cast<size_t>(bi)];
  // MMA j along K reads scales j*spm .. j*spm + spm - 1 of each row: the atom column 4*((j*spm)/4) and, as
  // its scale-factor id, the byte (j*spm) % 4 where its scales start.
  const int64_t spm = l->scales_per_mma;
  t.mma = k / spm;
  t.sf_id = (t.mma * spm) % 4;
  t.mma_column = spec.column + 4 * ((m / 128) * l->atoms_k + (t.mma * spm) / 4);
  return t;
}

}  // namespace layoutscope
