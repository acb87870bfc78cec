// tcgen05 atoms, copies and scale factors against tables worked out by hand from the PTX ISA (section 9.7.16,
// "TensorCore 5th Generation Family Instructions"): "Matrix fragments for tcgen05.ld and tcgen05.st" (the
// 32x32b, 16x64b, 16x128b, 16x256b and 16x32bx2 figures), "Tensor Memory" (128 x 512 x 32 bit, the 32-lane
// slab of warp w % 4, allocation in powers of two of at least 32 columns), "tcgen05.cp" (shapes and the
// .warpx2 / .warpx4 multicasts) and "Block scaling" (the scale-factor layout figures). The fragment tables
// were checked against CUTLASS's SM100_TMEM_LOAD Copy_Traits (include/cute/atom/copy_traits_sm100.hpp).
#include "layoutscope/tcgen05.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "layoutscope/parse.hpp"
#include "test_util.hpp"

namespace layoutscope {
namespace {

// "T5.1" = thread 5, register 1; one row per TMEM lane of the footprint, one cell per 32-bit column.
struct Holder {
  int64_t thread, reg;
};
std::vector<std::vector<Holder>> grid(const std::vector<std::string>& rows) {
  std::vector<std::vector<Holder>> out;
  for (const std::string& row : rows) {
    std::istringstream in(row);
    std::vector<Holder> cells;
    std::string cell;
    while (in >> cell) {
      const size_t dot = cell.find('.');
      cells.push_back({std::stoll(cell.substr(1, dot - 1)), std::stoll(cell.substr(dot + 1))});
    }
    out.push_back(cells);
  }
  return out;
}

// Every cell of the footprint: who holds TMEM (lane0 + row, col0 + column map[row][col]).
void expect_fragment(const TmemAccess& access, const std::vector<std::vector<Holder>>& want,
                     const std::vector<int64_t>& tcol_of_col = {}) {
  auto l = tmem_access_layouts(access);
  ASSERT_TRUE(l.ok()) << l.error().message;
  ASSERT_EQ(l->shape[0], static_cast<int64_t>(want.size()));
  ASSERT_EQ(l->shape[1], static_cast<int64_t>(want[0].size()));
  auto cells = tmem_access_cells(*l);
  ASSERT_TRUE(cells.ok()) << cells.error().message;
  for (const TmemAccessCell& c : *cells) {
    const Holder& h = want[c.row][c.col];
    EXPECT_EQ(c.laneid, h.thread) << "row " << c.row << " col " << c.col;
    EXPECT_EQ(c.reg, h.reg) << "row " << c.row << " col " << c.col;
    EXPECT_EQ(c.tlane, access.lane + c.row);
    const int64_t col = tcol_of_col.empty() ? c.col : tcol_of_col[c.col];
    EXPECT_EQ(c.tcol, access.column + col);
  }
}

TEST(Tcgen05Ld, Shape32x32bThreadIsLaneRegisterIsColumn) {
  // PTX 9.7.16 "Matrix fragments for .32x32b": thread t holds lane t; register j holds column j.
  auto bad = tmem_access_layouts({TmemAccessShape::k32x32b, 3});  // .x3 is not a repeat count
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().field, "num");
  std::vector<std::string> rows;
  for (int t = 0; t < 32; ++t) {
    std::string r;
    for (int j = 0; j < 4; ++j) r += "T" + std::to_string(t) + "." + std::to_string(j) + " ";
    rows.push_back(r);
  }
  expect_fragment({TmemAccessShape::k32x32b, 4, false, 64, 8}, grid(rows));
}

TEST(Tcgen05Ld, Shape16x64b) {
  // PTX "Matrix fragments for .16x64b": lanes 0-7 are held by threads 0, 4, ... 28 (column 0) and 2, 6, ...
  // 30 (column 1); lanes 8-15 by the odd threads 1, 5, ... / 3, 7, ....
  expect_fragment({TmemAccessShape::k16x64b, 1},
                  grid({"T0.0 T2.0", "T4.0 T6.0", "T8.0 T10.0", "T12.0 T14.0", "T16.0 T18.0", "T20.0 T22.0",
                        "T24.0 T26.0", "T28.0 T30.0", "T1.0 T3.0", "T5.0 T7.0", "T9.0 T11.0", "T13.0 T15.0",
                        "T17.0 T19.0", "T21.0 T23.0", "T25.0 T27.0", "T29.0 T31.0"}));
  // .x2: the second repeat is the next 64 bits, in register 1.
  expect_fragment(
      {TmemAccessShape::k16x64b, 2, false, 16, 4},
      grid({"T0.0 T2.0 T0.1 T2.1", "T4.0 T6.0 T4.1 T6.1", "T8.0 T10.0 T8.1 T10.1", "T12.0 T14.0 T12.1 T14.1",
            "T16.0 T18.0 T16.1 T18.1", "T20.0 T22.0 T20.1 T22.1", "T24.0 T26.0 T24.1 T26.1",
            "T28.0 T30.0 T28.1 T30.1", "T1.0 T3.0 T1.1 T3.1", "T5.0 T7.0 T5.1 T7.1", "T9.0 T11.0 T9.1 T11.1",
            "T13.0 T15.0 T13.1 T15.1", "T17.0 T19.0 T17.1 T19.1", "T21.0 T23.0 T21.1 T23.1",
            "T25.0 T27.0 T25.1 T27.1", "T29.0 T31.0 T29.1 T31.1"}));
}

TEST(Tcgen05Ld, Shape16x128b) {
  // PTX "Matrix fragments for .16x128b": threads 4r .. 4r+3 hold lane r (register 0) and lane r + 8
  // (register 1), one column each.
  expect_fragment(
      {TmemAccessShape::k16x128b, 1},
      grid({"T0.0 T1.0 T2.0 T3.0", "T4.0 T5.0 T6.0 T7.0", "T8.0 T9.0 T10.0 T11.0", "T12.0 T13.0 T14.0 T15.0",
            "T16.0 T17.0 T18.0 T19.0", "T20.0 T21.0 T22.0 T23.0", "T24.0 T25.0 T26.0 T27.0",
            "T28.0 T29.0 T30.0 T31.0", "T0.1 T1.1 T2.1 T3.1", "T4.1 T5.1 T6.1 T7.1", "T8.1 T9.1 T10.1 T11.1",
            "T12.1 T13.1 T14.1 T15.1", "T16.1 T17.1 T18.1 T19.1", "T20.1 T21.1 T22.1 T23.1",
            "T24.1 T25.1 T26.1 T27.1", "T28.1 T29.1 T30.1 T31.1"}));
  // The header's worked example: 16x128b.x1 at lane 32, column 8, element (9, 2) -> thread 6, register 1.
  auto l = tmem_access_layouts({TmemAccessShape::k16x128b, 1, false, 32, 8});
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->warp, 1);
  auto p = testing::positions(to_string(l->threads), l->shape, {9, 2});
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].at("laneid"), 6);
  EXPECT_EQ(p[0].at("reg"), 1);
  EXPECT_EQ(p[0].at("warpid"), 1);
}

TEST(Tcgen05Ld, Shape16x256b) {
  // PTX "Matrix fragments for .16x256b": thread 4r + c holds columns 2c, 2c + 1 of lane r in registers 0, 1
  // and of lane r + 8 in registers 2, 3.
  std::vector<std::string> rows;
  for (int r = 0; r < 16; ++r) {
    std::string s;
    for (int c = 0; c < 4; ++c)
      for (int b = 0; b < 2; ++b)
        s += "T" + std::to_string(4 * (r % 8) + c) + "." + std::to_string(2 * (r / 8) + b) + " ";
    rows.push_back(s);
  }
  auto g = grid(rows);
  EXPECT_EQ(g[0][0].thread, 0);
  EXPECT_EQ(g[9][3].thread, 5);  // lane 9 = 1 + 8, column 3 = 2*1 + 1: thread 5, register 3
  EXPECT_EQ(g[9][3].reg, 3);
  expect_fragment({TmemAccessShape::k16x256b, 1}, g);
  // .x2: thread 5, register 6 -> second repeat (columns 8..15), lane 1 + 8, column 8 + 2 = 10.
  auto l = tmem_access_layouts({TmemAccessShape::k16x256b, 2});
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->registers, 8);
  auto cells = tmem_access_cells(*l);
  ASSERT_TRUE(cells.ok());
  int found = 0;
  for (const auto& c : *cells)
    if (c.laneid == 5 && c.reg == 6) {
      EXPECT_EQ(c.tlane, 9);
      EXPECT_EQ(c.tcol, 10);
      ++found;
    }
  EXPECT_EQ(found, 1);
}

TEST(Tcgen05Ld, Shape16x32bx2HalvesAtTheSplitOffset) {
  // PTX "Matrix fragments for .16x32bx2": threads 0-15 hold lanes 0-15 at the address's column, threads 16-31
  // the same lanes at column + immHalfSplitoff.
  std::vector<std::string> rows;
  for (int r = 0; r < 16; ++r)
    rows.push_back("T" + std::to_string(r) + ".0 T" + std::to_string(r + 16) + ".0");
  TmemAccess a{TmemAccessShape::k16x32bx2, 1, false, 0, 4};
  a.half_split = 16;
  expect_fragment(a, grid(rows), {0, 16});
  auto l = tmem_access_layouts(a);
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->column_end, 4 + 16 + 1);
}

TEST(Tcgen05Ld, EveryShapeAndRepeatIsABijectionOntoItsFootprint) {
  // Each (thread, register) holds exactly one TMEM cell and every cell of the footprint is held once.
  for (TmemAccessShape s : tmem_access_shapes())
    for (int64_t n = 1; n <= tmem_access_max_num(s); n *= 2) {
      auto l = tmem_access_layouts({s, n});
      ASSERT_TRUE(l.ok()) << to_string(s) << " x" << n;
      EXPECT_EQ(l->registers, n * tmem_access_registers_per_repeat(s));
      EXPECT_EQ(l->shape[0] * l->shape[1], 32 * l->registers);  // 32 threads x registers = cells
      auto cells = tmem_access_cells(*l);
      ASSERT_TRUE(cells.ok());
      std::vector<int> held(static_cast<size_t>(32 * l->registers), 0);
      for (const auto& c : *cells) {
        ASSERT_LT(c.reg, l->registers);
        ++held[static_cast<size_t>(c.laneid * l->registers + c.reg)];
      }
      for (int h : held) EXPECT_EQ(h, 1) << to_string(s) << " x" << n;
    }
}

TEST(Tcgen05Ld, RepeatCountsPerShape) {
  // PTX tcgen05.ld ".num": at most 128 registers: x128 for 32x32b / 16x64b / 16x32bx2, x64 for 16x128b,
  // x32 for 16x256b.
  EXPECT_TRUE(tmem_access_layouts({TmemAccessShape::k32x32b, 128}).ok());
  EXPECT_TRUE(tmem_access_layouts({TmemAccessShape::k16x128b, 64}).ok());
  EXPECT_TRUE(tmem_access_layouts({TmemAccessShape::k16x256b, 32}).ok());
  for (auto [s, n] : std::vector<std::pair<TmemAccessShape, int64_t>>{{TmemAccessShape::k16x128b, 128},
                                                                      {TmemAccessShape::k16x256b, 64},
                                                                      {TmemAccessShape::k32x32b, 256},
                                                                      {TmemAccessShape::k16x64b, 0},
                                                                      {TmemAccessShape::k16x32bx2, 6}}) {
    auto r = tmem_access_layouts({s, n});
    ASSERT_FALSE(r.ok()) << to_string(s) << " x" << n;
    EXPECT_EQ(r.error().field, "num");
    EXPECT_EQ(r.error().code, "range");
  }
}

TEST(Tcgen05Ld, WarpsReachOnlyTheirSlab) {
  // PTX "Tensor Memory": warp w of a warpgroup accesses lanes 32*(w%4) .. 32*(w%4)+31.
  auto ok = tmem_access_layouts({TmemAccessShape::k16x64b, 1, false, 16, 0, -1, 4 + 0});
  ASSERT_TRUE(ok.ok());  // lanes 16..31: slab 0, warp 4 (warpgroup 1, warp 0)
  EXPECT_EQ(ok->slab, 0);
  auto w5 = tmem_access_layouts({TmemAccessShape::k32x32b, 1, false, 32, 0, -1, 5});
  ASSERT_TRUE(w5.ok());
  EXPECT_EQ(w5->lane_begin, 32);
  auto w2 = tmem_access_layouts({TmemAccessShape::k32x32b, 1, false, 32, 0, -1, 2});
  ASSERT_FALSE(w2.ok());
  EXPECT_EQ(w2.error().field, "warp");
  EXPECT_EQ(w2.error().code, "slab");
  auto across = tmem_access_layouts({TmemAccessShape::k32x32b, 1, false, 16, 0});
  ASSERT_FALSE(across.ok());  // lanes 16..47 span two slabs
  EXPECT_EQ(across.error().field, "lane");
  EXPECT_EQ(across.error().code, "slab");
  auto across16 = tmem_access_layouts({TmemAccessShape::k16x256b, 1, false, 24, 0});
  ASSERT_FALSE(across16.ok());
  EXPECT_EQ(across16.error().code, "slab");
  // The default warp is the lane's slab: lane 96 -> warp 3, offset 3@warpid in the thread layout.
  auto w3 = tmem_access_layouts({TmemAccessShape::k32x32b, 2, true, 96, 0});
  ASSERT_TRUE(w3.ok());
  EXPECT_EQ(w3->warp, 3);
  EXPECT_EQ(w3->instruction, "tcgen05.st.sync.aligned.32x32b.x2.b32");
}

TEST(Tcgen05Ld, ColumnsAndAllocation) {
  auto past = tmem_access_layouts({TmemAccessShape::k32x32b, 128, false, 0, 448});
  ASSERT_FALSE(past.ok());  // columns 448 .. 575
  EXPECT_EQ(past.error().code, "tmem range");
  EXPECT_EQ(past.error().field, "column");
  TmemAccess a{TmemAccessShape::k32x32b, 128};
  a.allocated_columns = 64;
  auto outside = tmem_access_layouts(a);
  ASSERT_FALSE(outside.ok());
  EXPECT_EQ(outside.error().code, "tmem range");
  a.allocated_columns = 48;
  auto gran = tmem_access_layouts(a);
  ASSERT_FALSE(gran.ok());
  EXPECT_EQ(gran.error().code, "allocation granularity");
  EXPECT_EQ(gran.error().field, "allocated_columns");
  a.allocated_columns = 128;
  EXPECT_TRUE(tmem_access_layouts(a).ok());
  // PTX tcgen05.alloc: a power of two, 32 to 512 columns.
  EXPECT_FALSE(check_tmem_allocation(32));
  EXPECT_FALSE(check_tmem_allocation(512));
  EXPECT_TRUE(check_tmem_allocation(16));
  EXPECT_TRUE(check_tmem_allocation(96));
  EXPECT_TRUE(check_tmem_allocation(1024));
}

TEST(Tcgen05Cp, ShapesLandWherePtxSays) {
  // PTX "tcgen05.cp": 32x128b.warpx4 copies row r to lanes r, r+32, r+64, r+96; 64x128b.warpx2::02_13 row r
  // to r and r + 64; ::01_23 row r to 64*(r/32) + r%32 and 32 lanes further; 4x256b row r to lane 32r.
  auto pos = [](TmemCopyShape s, int64_t row, int64_t word, int64_t column = 0) {
    auto l = tmem_copy_layouts({s, 0, column});
    EXPECT_TRUE(l.ok()) << (l.ok() ? "" : l.error().message);
    return testing::positions(to_string(l->tmem), l->shape, {row, word});
  };
  using P = std::vector<std::map<std::string, int64_t>>;
  EXPECT_EQ(pos(TmemCopyShape::k32x128bWarpx4, 5, 2, 8), (P{{{"TLane", 5}, {"TCol", 10}},
                                                            {{"TLane", 37}, {"TCol", 10}},
                                                            {{"TLane", 69}, {"TCol", 10}},
                                                            {{"TLane", 101}, {"TCol", 10}}}));
  EXPECT_EQ(pos(TmemCopyShape::k64x128bWarpx2_02_13, 40, 3),
            (P{{{"TLane", 40}, {"TCol", 3}}, {{"TLane", 104}, {"TCol", 3}}}));
  EXPECT_EQ(pos(TmemCopyShape::k64x128bWarpx2_01_23, 40, 3),
            (P{{{"TLane", 72}, {"TCol", 3}}, {{"TLane", 104}, {"TCol", 3}}}));
  EXPECT_EQ(pos(TmemCopyShape::k64x128bWarpx2_01_23, 7, 0), (P{{{"TLane", 7}}, {{"TLane", 39}}}));
  EXPECT_EQ(pos(TmemCopyShape::k4x256b, 3, 7), (P{{{"TLane", 96}, {"TCol", 7}}}));
  EXPECT_EQ(pos(TmemCopyShape::k128x256b, 127, 7), (P{{{"TLane", 127}, {"TCol", 7}}}));
  EXPECT_EQ(pos(TmemCopyShape::k128x128b, 64, 3), (P{{{"TLane", 64}, {"TCol", 3}}}));
  auto l = tmem_copy_layouts({TmemCopyShape::k4x256b});
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->row_bytes, 32);
}

TEST(Tcgen05Cp, AlignmentAndRange) {
  auto odd = tmem_copy_layouts({TmemCopyShape::k128x128b, 0, 2});
  ASSERT_FALSE(odd.ok());
  EXPECT_EQ(odd.error().code, "alignment");
  EXPECT_EQ(odd.error().field, "column");
  auto low = tmem_copy_layouts({TmemCopyShape::k4x256b, 40, 0});
  ASSERT_FALSE(low.ok());  // lanes 40, 72, 104, 136
  EXPECT_EQ(low.error().code, "tmem range");
  EXPECT_TRUE(tmem_copy_layouts({TmemCopyShape::k4x256b, 31, 0}).ok());
  auto wide = tmem_copy_layouts({TmemCopyShape::k128x256b, 0, 508});
  ASSERT_FALSE(wide.ok());
  EXPECT_EQ(wide.error().code, "tmem range");
  EXPECT_FALSE(parse_tmem_copy_shape("64x128b.warpx2").ok());
  EXPECT_EQ(*parse_tmem_copy_shape(".32x128b.warpx4"), TmemCopyShape::k32x128bWarpx4);
}

TEST(ScaleFactors, ChapterSfa64_2) {
  // The chapter's figure: SFA 128 x 4 through tcgen05.cp.32x128b.warpx4; SFA[64, 2] -> (TLane, TCol, byte)
  // (0,2,2) (32,2,2) (64,2,2) (96,2,2), byte offset TCol*4 + byte = 10.
  ScaleFactorSpec s{BlockScaleKind::kMxf8f6f4, 32, 128, 128, 0};
  auto l = scale_factor_layouts(s);
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(to_string(l->tmem), "S[(4,32,4):(1@TCol,1@TLane,1@byte)] + R[4:32@TLane]");
  EXPECT_EQ(l->copy, "tcgen05.cp.cta_group::1.32x128b.warpx4");
  auto t = trace_scale_factor(s, 64, 2);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->tlanes, (std::vector<int64_t>{0, 32, 64, 96}));
  EXPECT_EQ(t->tcol, 2);
  EXPECT_EQ(t->byte, 2);
  EXPECT_EQ(t->tcol * 4 + t->byte, 10);
  EXPECT_EQ(t->smem_byte, 10);  // row 0 of the atom, M group 2 (byte 8), scale 2
  EXPECT_EQ(t->copy_row, 0);
  // Every element of the atom: shared byte (m%32)*16 + (m/32)*4 + k (CUTLASS's 128x4 SF atom, 512 B).
  for (int64_t m = 0; m < 128; ++m)
    for (int64_t k = 0; k < 4; ++k) {
      auto p = testing::positions(to_string(l->smem), l->shape, {m, k});
      ASSERT_EQ(p.size(), 1u);
      const int64_t byte = p[0].count("m") ? p[0].at("m") : 0;
      EXPECT_EQ(byte, (m % 32) * 16 + (m / 32) * 4 + k);
    }
}

TEST(ScaleFactors, SeveralAtomsAndTheMmaThatReadsThem) {
  // M = 256, K = 256 in mxf8f6f4 (one scale per 32): 8 scales a row, 2 x 2 atoms. SFA[200, 5]: atom (1, 1) =
  // atom 3 at byte 1536; row 200 % 32 = 8 (byte 128), M group (200 % 128) / 32 = 2 (byte 8), scale 5 % 4 = 1:
  // byte 1673. TMEM: 4 columns per atom -> TCol 4*3 + 2 = 14, byte 1, lanes 8, 40, 72, 104.
  ScaleFactorSpec s{BlockScaleKind::kMxf8f6f4, 32, 256, 256, 0};
  auto t = trace_scale_factor(s, 200, 5);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->atom, 3);
  EXPECT_EQ(t->smem_byte, 1673);
  EXPECT_EQ(t->tcol, 14);
  EXPECT_EQ(t->byte, 1);
  EXPECT_EQ(t->tlanes, (std::vector<int64_t>{8, 40, 72, 104}));
  // K = 32 per MMA, one scale a row: MMA 5 reads it with sf_id 5 % 4 = 1 from the column of its atom,
  // 4*(2+1).
  EXPECT_EQ(t->mma, 5);
  EXPECT_EQ(t->sf_id, 1);
  EXPECT_EQ(t->mma_column, 12);
  // nvf4 (mxf4nvf4, 16 a scale, K = 64 per MMA: 4 scales = scale_vec::4X): SF[3, 6] is read by MMA 1 with
  // sf_id 0; column 4 of the second atom, byte 2.
  ScaleFactorSpec nv{BlockScaleKind::kMxf4Nvf4, 16, 128, 128, 32};
  auto n = trace_scale_factor(nv, 3, 6);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->mma, 1);
  EXPECT_EQ(n->sf_id, 0);
  EXPECT_EQ(n->tcol, 32 + 4);
  EXPECT_EQ(n->byte, 2);
  EXPECT_EQ(n->mma_column, 36);
  // mxf4 (32 a scale, K = 64: 2 scales = scale_vec::2X): SF[0, 3] is MMA 1's second scale, sf_id 2.
  auto x = trace_scale_factor({BlockScaleKind::kMxf4, 32, 128, 256, 0}, 0, 3);
  ASSERT_TRUE(x.ok());
  EXPECT_EQ(x->mma, 1);
  EXPECT_EQ(x->sf_id, 2);
  EXPECT_EQ(x->mma_column, 0);
}

TEST(ScaleFactors, RulesNameTheField) {
  auto v = scale_factor_layouts({BlockScaleKind::kMxf8f6f4, 16, 128, 128});
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().field, "vec");
  auto m = scale_factor_layouts({BlockScaleKind::kMxf4Nvf4, 16, 100, 128});
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().field, "m");
  EXPECT_EQ(m.error().code, "granularity");
  auto k = scale_factor_layouts({BlockScaleKind::kMxf4Nvf4, 16, 128, 96});
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.error().field, "k");
  auto c = scale_factor_layouts({BlockScaleKind::kMxf4, 32, 128, 128, 6});
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, "alignment");
  auto far = scale_factor_layouts({BlockScaleKind::kMxf8f6f4, 32, 128 * 16, 32 * 4 * 16, 0});
  ASSERT_FALSE(far.ok());  // 16 x 16 atoms = 1024 columns
  EXPECT_EQ(far.error().code, "tmem range");
}

}  // namespace
}  // namespace layoutscope
