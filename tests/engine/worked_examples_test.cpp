// The chapter's worked examples (docs/worked-examples.md). Every expected value here is read off the
// document or worked out by hand from its formulas, not taken from the engine's output.
#include <gtest/gtest.h>

#include "layoutscope/dtype.hpp"
#include "layoutscope/mapping.hpp"
#include "layoutscope/memory_access.hpp"
#include "test_util.hpp"

namespace layoutscope {
namespace {

using testing::must_parse;
using testing::positions;
using Pos = std::map<std::string, int64_t>;

TEST(WorkedExamples, TileLayoutRowsMatchTheChapterFigure) {
  // 8x8 matrix in 2x4 tiles: row 0 holds 0 1 2 3 8 9 10 11, row 1 holds 4 5 6 7 12 13 14 15.
  const Layout tile = must_parse("S[(4,2,2,4):(16,4,8,1)]");
  auto t = table(tile, {8, 8});
  ASSERT_TRUE(t.ok());
  ASSERT_EQ(t->axes, std::vector<std::string>{"m"});
  const std::vector<int64_t> row0 = {0, 1, 2, 3, 8, 9, 10, 11};
  const std::vector<int64_t> row1 = {4, 5, 6, 7, 12, 13, 14, 15};
  for (int j = 0; j < 8; ++j) {
    EXPECT_EQ(t->values[static_cast<size_t>(j)], row0[static_cast<size_t>(j)]) << "row 0 col " << j;
    EXPECT_EQ(t->values[static_cast<size_t>(8 + j)], row1[static_cast<size_t>(j)]) << "row 1 col " << j;
  }
}

TEST(WorkedExamples, TileLayoutCellFiveSix) {
  auto m = forward_coord(must_parse("S[(4,2,2,4):(16,4,8,1)]"), {8, 8}, {5, 6});
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->index, 46);
  // c0 = i//2 = 2, c1 = i%2 = 1, c2 = j//4 = 1, c3 = j%4 = 2 (the chapter's unflatten formulas)
  EXPECT_EQ(m->split, (std::vector<int64_t>{2, 1, 1, 2}));
  ASSERT_EQ(m->positions.size(), 1u);
  EXPECT_EQ(m->positions[0].values, std::vector<int64_t>{46});
  EXPECT_NE(m->derivation.find("unflatten(46; 4,2,2,4) = (2,1,1,2)"), std::string::npos) << m->derivation;
}

TEST(WorkedExamples, TileLayoutMatchesTheClosedForm) {
  // addr(i, j) = (i/2)*16 + (i%2)*4 + (j/4)*8 + j%4 for every cell.
  auto t = table(must_parse("S[(4,2,2,4):(16,4,8,1)]"), {8, 8});
  ASSERT_TRUE(t.ok());
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 8; ++j) {
      EXPECT_EQ(t->values[static_cast<size_t>(i * 8 + j)], (i / 2) * 16 + (i % 2) * 4 + (j / 4) * 8 + j % 4);
    }
  }
}

TEST(WorkedExamples, RegisterFragmentCell43IsLane21Slot1) {
  EXPECT_EQ(positions("S[(8,4,2):(4@laneid,1@laneid,1@reg)]", {8, 8}, {5, 3}),
            (std::vector<Pos>{{{"laneid", 21}, {"reg", 1}}}));
  // laneid = row*4 + col//2, reg = col%2 over the whole tile.
  auto t = table(must_parse("S[(8,4,2):(4@laneid,1@laneid,1@reg)]"), {8, 8});
  ASSERT_TRUE(t.ok());
  for (int r = 0; r < 8; ++r) {
    for (int c = 0; c < 8; ++c) {
      const size_t row = static_cast<size_t>(r * 8 + c) * 2;
      EXPECT_EQ(t->values[row], r * 4 + c / 2);
      EXPECT_EQ(t->values[row + 1], c % 2);
    }
  }
}

TEST(WorkedExamples, TmemAccumulatorIsRowToLaneColToColumn) {
  auto t = table(must_parse("S[(128,256):(1@TLane,1@TCol)]"), {128, 256});
  ASSERT_TRUE(t.ok());
  ASSERT_EQ(t->axes, (std::vector<std::string>{"TLane", "TCol"}));
  for (int64_t row = 0; row < 128; row += 7) {
    for (int64_t col = 0; col < 256; col += 13) {
      const size_t i = static_cast<size_t>(row * 256 + col) * 2;
      EXPECT_EQ(t->values[i], row);
      EXPECT_EQ(t->values[i + 1], col);
    }
  }
}

TEST(WorkedExamples, ScaleFactorsWarpx4) {
  // SFA[64, 2]: local_lane = 0, Mgroup = 2 -> TCol 2, byte 2; .warpx4 copies to TLane 0, 32, 64, 96.
  const std::string sf = "S[(4,32,4):(1@TCol,1@TLane,1@byte)] + R[4:32@TLane]";
  const auto p = positions(sf, {128, 4}, {64, 2});
  EXPECT_EQ(p, (std::vector<Pos>{{{"TCol", 2}, {"byte", 2}},
                                 {{"TCol", 2}, {"TLane", 32}, {"byte", 2}},
                                 {{"TCol", 2}, {"TLane", 64}, {"byte", 2}},
                                 {{"TCol", 2}, {"TLane", 96}, {"byte", 2}}}));
  // byte_offset = TCol*4 + byte = 10: the element-column form counts 8-bit elements along TCol.
  const auto e = positions("S[(4,32,4):(4@TCol,1@TLane,1@TCol)] + R[4:32@TLane]", {128, 4}, {64, 2});
  ASSERT_EQ(e.size(), 4u);
  EXPECT_EQ(e[0].at("TCol"), 10);
  // SFA[0,2], SFA[32,2], SFA[64,2], SFA[96,2] share local lane 0 but sit in TCol 0, 1, 2, 3.
  for (int64_t g = 0; g < 4; ++g) {
    const auto q = positions(sf, {128, 4}, {32 * g, 2});
    ASSERT_EQ(q.size(), 4u);
    EXPECT_EQ(q[0].count("TLane"), 0u);  // TLane 0 in the first partition
    EXPECT_EQ(q[0].count("TCol") ? q[0].at("TCol") : 0, g);
  }
}

TEST(WorkedExamples, ScaleFactorsInverseFindsTheFourMGroups) {
  // TMEM lane 0, byte 2 holds SFA[0,2], SFA[32,2], SFA[64,2], SFA[96,2] in TCol 0..3 (partition 0).
  auto hits = inverse(must_parse("S[(4,32,4):(1@TCol,1@TLane,1@byte)] + R[4:32@TLane]"), {128, 4},
                      {{"TLane", 0}, {"byte", 2}});
  ASSERT_TRUE(hits.ok());
  ASSERT_EQ(hits->size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ((*hits)[i].coord, (std::vector<int64_t>{static_cast<int64_t>(32 * i), 2}));
    EXPECT_EQ((*hits)[i].replica, 0);
  }
  // TLane 96 is partition 3: the same four elements, as replica 3.
  auto p3 = inverse(must_parse("S[(4,32,4):(1@TCol,1@TLane,1@byte)] + R[4:32@TLane]"), {128, 4},
                    {{"TLane", 96}, {"TCol", 2}, {"byte", 2}});
  ASSERT_TRUE(p3.ok());
  ASSERT_EQ(p3->size(), 1u);
  EXPECT_EQ((*p3)[0].coord, (std::vector<int64_t>{64, 2}));
  EXPECT_EQ((*p3)[0].replica, 3);
}

TEST(WorkedExamples, MeshShardReplicaOffset) {
  const std::string base = "S[(2,4,8):(1@gpuid_y,8@m,1@m)]";
  EXPECT_EQ(positions(base, {2, 4, 8}, {1, 2, 3}), (std::vector<Pos>{{{"gpuid_y", 1}, {"m", 19}}}));
  EXPECT_EQ(positions(base + " + R[2:1@gpuid_x]", {2, 4, 8}, {1, 2, 3}),
            (std::vector<Pos>{{{"gpuid_y", 1}, {"m", 19}}, {{"gpuid_x", 1}, {"gpuid_y", 1}, {"m", 19}}}));
  EXPECT_EQ(positions(base + " + O[1@gpuid_x]", {2, 4, 8}, {1, 2, 3}),
            (std::vector<Pos>{{{"gpuid_x", 1}, {"gpuid_y", 1}, {"m", 19}}}));
  // Fully sharded 2x2: element (1,2,3) of a 2x4x8 tensor: y = 1, row 2 -> m = 2*4 + ..., x = 3 // 4 = 0.
  EXPECT_EQ(positions("S[(2,4,2,4):(1@gpuid_y,4@m,1@gpuid_x,1@m)]", {2, 4, 8}, {1, 2, 3}),
            (std::vector<Pos>{{{"gpuid_y", 1}, {"m", 2 * 4 + 3}}}));
}

TEST(WorkedExamples, ToyBanksColumnReadIs8CyclesRowMajorAnd1Swizzled) {
  // 8x8 words, 8 banks of 4 B: lane r reads (r, 3). Row-major: word r*8+3, bank 3 for all.
  std::vector<int64_t> plain, swizzled;
  for (int r = 0; r < 8; ++r) {
    plain.push_back((r * 8 + 3) * 4);
    swizzled.push_back((r * 8 + (3 ^ r)) * 4);  // mapped_col = col XOR row
  }
  const BankModel toy{8, 4, 32};
  auto a = bank_access(plain, 4, toy);
  auto b = bank_access(swizzled, 4, toy);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->cycles, 8);
  EXPECT_EQ(a->max_ways, 8);
  EXPECT_EQ(b->cycles, 1);
  // The engine's swizzle gives the same addresses: Swizzle<3,0,3> on the word index of an 8x8 tile.
  auto table_swz = table(must_parse("Swizzle<3,0,3> o S[(8,8):(8,1)]"), {8, 8});
  ASSERT_TRUE(table_swz.ok());
  for (int r = 0; r < 8; ++r)
    EXPECT_EQ(table_swz->values[static_cast<size_t>(r * 8 + 3)] * 4, swizzled[static_cast<size_t>(r)]);
}

TEST(WorkedExamples, Swizzle128BFp16ColumnOver8RowsIs8WavefrontsThen1) {
  // fp16 tile 8 rows x 64 halves (128 B a row). Lanes 0..7 read one 16 B sector column: element (r, 8*c).
  auto atom = swizzle_atom(SwizzleMode::k128B, DType::kF16);
  ASSERT_TRUE(atom.ok());
  const Layout plain = must_parse("S[(8,64):(64,1)]");
  Layout swz = plain;
  swz.swizzle = atom->elements;
  for (int c = 0; c < 8; ++c) {
    std::vector<int64_t> idx;
    for (int r = 0; r < 8; ++r) idx.push_back(r * 64 + 8 * c);
    auto pa = lane_addresses(plain, {8, 64}, idx, 2);
    auto sa = lane_addresses(swz, {8, 64}, idx, 2);
    ASSERT_TRUE(pa.ok() && sa.ok());
    auto p = bank_access(*pa, 16);
    auto s = bank_access(*sa, 16);
    ASSERT_TRUE(p.ok() && s.ok());
    EXPECT_EQ(p->cycles, 8) << "column " << c;
    EXPECT_EQ(s->cycles, 1) << "column " << c;
    // And a row read (8 lanes x 16 B along one row) is conflict-free both ways.
    std::vector<int64_t> row;
    for (int k = 0; k < 8; ++k) row.push_back(c * 64 + 8 * k);
    auto rs = lane_addresses(swz, {8, 64}, row, 2);
    ASSERT_TRUE(rs.ok());
    EXPECT_EQ(bank_access(*rs, 16)->cycles, 1);
  }
}

TEST(WorkedExamples, SwizzleDerivationShowsTheBitFields) {
  // fp16 SWIZZLE_128B on elements, Swizzle<3,3,3>: element (1, 0) of an 8x64 tile is m = 64 = 0b001'000'000;
  // bits [6,9) = 001 are XORed into bits [3,6) = 000 -> 0b001'001'000 = 72.
  auto m = forward_coord(must_parse("Swizzle<3,3,3> o S[(8,64):(64,1)]"), {8, 64}, {1, 0});
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->positions[0].values, std::vector<int64_t>{72});
  EXPECT_NE(m->derivation.find("64 (bits [6,9) = 001 xor bits [3,6) = 000) -> 72"), std::string::npos)
      << m->derivation;
}

TEST(WorkedExamples, SectorsAoSIs32AndSoAIs4) {
  // struct { float f[8]; } (32 B): lane i reads p[i].f[0] -> stride 32 B; SoA x[i] -> stride 4 B.
  std::vector<int64_t> lanes(32);
  for (int i = 0; i < 32; ++i) lanes[static_cast<size_t>(i)] = i;
  auto aos = lane_addresses(
      must_parse("S[(1024,8):(8,1)]"), {1024, 8},
      [&] {
        std::vector<int64_t> idx;
        for (int i = 0; i < 32; ++i) idx.push_back(i * 8);  // element i, field 0
        return idx;
      }(),
      4);
  auto soa = lane_addresses(must_parse("S[(8,1024):(1024,1)]"), {8, 1024}, lanes, 4);
  ASSERT_TRUE(aos.ok() && soa.ok());
  EXPECT_EQ(sector_access(*aos, 4)->sectors, 32);
  EXPECT_EQ(sector_access(*soa, 4)->sectors, 4);
}

}  // namespace
}  // namespace layoutscope
