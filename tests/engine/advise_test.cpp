// The swizzle advisor against bank arithmetic worked out by hand (bank = byte address / 4 % 32, one
// wavefront per 128 B) and against the published selection rules of CUTLASS and ThunderKittens.
#include "layoutscope/advise.hpp"

#include <gtest/gtest.h>

#include "test_util.hpp"

namespace layoutscope {
namespace {

TileSide side(const std::string& text, bool writer) {
  auto s = parse_tile_side(text, writer);
  EXPECT_TRUE(s.ok()) << text << ": " << (s.ok() ? "" : s.error().message);
  return s.ok() ? *s : TileSide{};
}

const Candidate* find(const Advice& a, const std::string& name) {
  for (const Candidate& c : a.candidates)
    if (c.name == name) return &c;
  return nullptr;
}

// 16x32 fp32, one warp: the writer stores row i in instruction i (lane = column); the reader loads columns
// 2k and 2k+1 in instruction k (lanes 0..15 rows of column 2k, lanes 16..31 rows of column 2k+1).
// Word (r, c) of the plain tile is in bank c.
//   writer, any XOR of the column: a row's 32 words in 32 banks -> 1 wavefront, 16 in all.
//   reader, plain: 16 lanes on bank 2k -> 16 wavefronts an instruction, 256 in all.
//   reader, c ^ r   (Swizzle<4,0,5>): both halves cover the same 16 banks -> 2-way, 32 in all.
//   reader, c ^ 2r  (Swizzle<4,1,4>): even banks for 2k, odd for 2k+1 -> 1, 16 in all.
//   reader, 33-word rows: bank (r + 2k) and (r + 2k + 1) over r < 16 overlap in 15 banks -> 2-way.
//   reader, 34-word rows: bank (2r + 2k) is even, (2r + 2k + 1) odd -> 1, but 16 * 34 * 4 = 2176 B.
//   reader, SWIZZLE_128B (Swizzle<3,2,3> on fp32): 16 B chunk (c / 4) ^ (r % 8) repeats for rows r and
//   r + 8 -> 2-way, 32 in all. Both CUTLASS (128 B rows -> SW128) and ThunderKittens (width 2 subtiles of
//   a 4-byte type -> 128B) choose it.
TEST(Advise, XorWithTwiceTheRowIsConflictFree) {
  AdviseRequest q{side("S[(16,32):(1@reg,1@laneid)];STS.32", true),
                  side("S[(16,16,2):(1@laneid,1@reg,16@laneid)];LDS.32", false),
                  DType::kF32,
                  {16, 32}};
  auto a = advise(q);
  ASSERT_TRUE(a.ok()) << a.error().message;
  ASSERT_FALSE(a->candidates.empty());
  const Candidate& best = a->candidates[0];
  EXPECT_TRUE(best.conflict_free()) << best.name;
  EXPECT_EQ(best.write_wavefronts, 16);
  EXPECT_EQ(best.read_wavefronts, 16);
  EXPECT_EQ(best.shared_bytes, 2048);

  const Candidate* plain = find(*a, "row-major");
  const Candidate* xor_row = find(*a, "Swizzle<4,0,5>");
  const Candidate* xor_2row = find(*a, "Swizzle<4,1,4>");
  const Candidate* pad1 = find(*a, "pad 4 B");
  const Candidate* pad2 = find(*a, "pad 8 B");
  const Candidate* tma128 = find(*a, "TMA 128B");
  ASSERT_TRUE(plain && xor_row && xor_2row && pad1 && pad2 && tma128);
  EXPECT_EQ(plain->read_wavefronts, 256);
  EXPECT_EQ(xor_row->write_wavefronts, 16);
  EXPECT_EQ(xor_row->read_wavefronts, 32);
  EXPECT_FALSE(xor_row->conflict_free());
  EXPECT_EQ(xor_2row->read_wavefronts, 16);
  EXPECT_TRUE(xor_2row->conflict_free());
  EXPECT_EQ(pad1->read_wavefronts, 32);
  EXPECT_EQ(pad2->read_wavefronts, 16);
  EXPECT_EQ(pad2->shared_bytes, 2176);
  EXPECT_EQ(tma128->read_wavefronts, 32);
  // The conflict-free layouts come first, and they are the ones the search space holds.
  size_t free_count = 0;
  for (const Candidate& c : a->candidates) free_count += c.conflict_free();
  EXPECT_GE(free_count, 2u);  // at least Swizzle<4,1,4> and 34-word rows
  for (size_t i = 0; i < a->candidates.size(); ++i)
    EXPECT_EQ(a->candidates[i].conflict_free(), i < free_count);
  // Best first: nothing after a candidate costs fewer wavefronts.
  for (size_t i = 1; i < a->candidates.size(); ++i) {
    const Candidate& p = a->candidates[i - 1];
    const Candidate& c = a->candidates[i];
    EXPECT_LE(p.write_wavefronts + p.read_wavefronts, c.write_wavefronts + c.read_wavefronts);
  }
  ASSERT_EQ(a->rules.size(), 2u);
  EXPECT_EQ(a->rules[0].choice, "SW128");
  EXPECT_EQ(a->rules[1].choice, "128B");
  for (const RuleChoice& r : a->rules) {
    ASSERT_TRUE(r.candidate.has_value()) << r.rule << ": " << r.reason;
    EXPECT_EQ(r.candidate->write_wavefronts, 16) << r.rule;
    EXPECT_EQ(r.candidate->read_wavefronts, 32) << r.rule;
  }
}

// 64x64 bf16 stored by rows with STS.128 (each 8-lane group writes one 128 B row: 4 wavefronts an
// instruction, 16 instructions = 64) and read with ldmatrix.x4 (plain: 8-way, 32 an instruction, 512;
// 128B XOR: 4 an instruction, 64).
TEST(Advise, LdmatrixReaderWantsThe128ByteSwizzle) {
  AdviseRequest q{side("rows;STS.128", true), side(";ldmatrix.x4", false), DType::kBF16, {64, 64}};
  auto a = advise(q);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_TRUE(a->candidates[0].conflict_free());
  EXPECT_EQ(a->candidates[0].read_wavefronts, 64);
  EXPECT_EQ(a->candidates[0].write_wavefronts, 64);
  EXPECT_EQ(find(*a, "row-major")->read_wavefronts, 512);
  EXPECT_EQ(find(*a, "TMA 128B")->read_wavefronts, 64);
  EXPECT_EQ(find(*a, "Swizzle<3,3,3>")->read_wavefronts, 64);  // SWIZZLE_128B in bf16 elements
  // XOR below the 16 B granule splits a lane's 8 elements: such layouts are rejected, not costed.
  EXPECT_EQ(find(*a, "Swizzle<3,0,3>"), nullptr);
  EXPECT_GT(a->rejected, 0);
  EXPECT_EQ(a->searched, a->rejected + static_cast<int>(a->candidates.size()));
  EXPECT_EQ(a->rules[0].choice, "SW128");
  EXPECT_EQ(a->rules[0].candidate->read_wavefronts, 64);
  EXPECT_EQ(a->rules[1].choice, "128B");
}

// cp.async.16 by rows into a 64x32 fp32 tile (128 B rows), LDS.128 down the columns: each 8-lane group
// reads 8 consecutive rows of one 16 B block. Plain: 128 B apart, banks 0..3 eight times -> 8 wavefronts a
// group, 32 an instruction, 16 instructions = 512. SWIZZLE_128B: block 0 ^ (r % 8) -> 1 a group, 64.
// Writes: cp.async.16 by rows, 8 lanes on one 128 B row a wavefront (as ncu's ldgsts counter measured, 4 an
// instruction): 16 instructions x 4 = 64 on every layout that keeps a row's 16 B blocks in one 128 B row.
TEST(Advise, CpAsyncWriterAndColumnReader) {
  AdviseRequest q{side("rows;cp.async.16", true), side("columns;LDS.128", false), DType::kF32, {64, 32}};
  auto a = advise(q);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(find(*a, "row-major")->read_wavefronts, 512);
  EXPECT_EQ(find(*a, "row-major")->write_wavefronts, 64);
  EXPECT_EQ(find(*a, "TMA 128B")->read_wavefronts, 64);
  EXPECT_TRUE(a->candidates[0].conflict_free());
  EXPECT_EQ(a->candidates[0].read_wavefronts + a->candidates[0].write_wavefronts, 128);
}

// TMA writes: only its modes are possible and the write has no bank counter. ldmatrix.x4 on the 32B mode:
// rows are 32 B apart and row r's 16 B chunk h moves to h ^ ((r >> 2) & 1), so rows 0..7 of chunk 0 start at
// words 0, 8, 16, 24, 36, 44, 52, 60: banks 0, 8, 16, 24, 4, 12, 20, 28 (4 each) -> 1 wavefront a phase.
TEST(Advise, TmaWriterSearchesItsModes) {
  AdviseRequest q{side("tma.128B", true), side("matrices;ldmatrix.x4", false), DType::kBF16, {64, 64}};
  auto a = advise(q);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->candidates.size(), 4u);  // none, 32B, 64B, 128B
  for (const Candidate& c : a->candidates) {
    EXPECT_EQ(c.kind, CandidateKind::kTma);
    EXPECT_FALSE(c.write_counted);
    EXPECT_EQ(c.write_wavefronts, 0);
  }
  EXPECT_EQ(find(*a, "TMA none")->read_wavefronts, 512);
  EXPECT_EQ(find(*a, "TMA 32B")->read_wavefronts, 64);
  EXPECT_EQ(find(*a, "TMA 128B")->read_wavefronts, 64);
  EXPECT_EQ(a->candidates.back().name, "TMA none");
}

TEST(Advise, FixedRules) {
  // CUTLASS: the widest of 128/64/32/16 B dividing the K-major row.
  EXPECT_EQ(cutlass_ss_smem_selector(DType::kBF16, {64, 64}), "SW128");  // 128 B
  EXPECT_EQ(cutlass_ss_smem_selector(DType::kBF16, {64, 32}), "SW64");   // 64 B
  EXPECT_EQ(cutlass_ss_smem_selector(DType::kBF16, {64, 16}), "SW32");   // 32 B
  EXPECT_EQ(cutlass_ss_smem_selector(DType::kBF16, {64, 8}), "INTERLEAVE");
  EXPECT_EQ(cutlass_ss_smem_selector(DType::kF32, {64, 8}), "SW32");          // 32 B
  EXPECT_EQ(cutlass_ss_smem_selector(DType::kBF16, {64, 24}), "INTERLEAVE");  // 48 B: only 16 B divides it
  std::string why;
  EXPECT_EQ(cutlass_ss_smem_selector(DType::kBF16, {64, 12}, &why), "");
  EXPECT_FALSE(why.empty());
  // ThunderKittens: width in 16-column subtiles.
  EXPECT_EQ(thunderkittens_swizzle(DType::kBF16, {64, 64}), "128B");  // width 4
  EXPECT_EQ(thunderkittens_swizzle(DType::kBF16, {64, 32}), "64B");   // width 2
  EXPECT_EQ(thunderkittens_swizzle(DType::kBF16, {64, 48}), "32B");   // width 3
  EXPECT_EQ(thunderkittens_swizzle(DType::kF32, {64, 16}), "64B");    // width 1
  EXPECT_EQ(thunderkittens_swizzle(DType::kF32, {64, 32}), "128B");   // width 2
  EXPECT_EQ(thunderkittens_swizzle(DType::kF8, {64, 64}), "");
  EXPECT_EQ(thunderkittens_swizzle(DType::kBF16, {64, 40}), "");  // not 16-column subtiles
}

TEST(Advise, TileSidesParseWithColumns) {
  EXPECT_EQ(side("rows;STS.32", true).order, LaneOrder::kRows);
  EXPECT_EQ(side(" columns ; LDS.64", false).instr.bytes, 8);
  const TileSide width = side("rows;16", true);
  EXPECT_EQ(width.instr.op, Op::kSts);
  EXPECT_EQ(width.instr.bytes, 16);
  EXPECT_EQ(side("rows;4", false).instr.op, Op::kLds);
  EXPECT_EQ(side("ldmatrix.x2.trans", false).order, LaneOrder::kDefault);
  EXPECT_EQ(side("S[(16,32):(1@reg,1@laneid)];4", true).order, LaneOrder::kThreads);

  // Explicit lanes: '/' between instructions, '_' for an idle lane.
  const TileSide listed = side("0,32,_, 96/1;LDS.32", false);
  EXPECT_EQ(listed.order, LaneOrder::kExplicit);
  ASSERT_EQ(listed.lanes.size(), 2u);
  EXPECT_EQ(listed.lanes[0], (std::vector<int64_t>{0, 32, kIdleLane, 96}));
  EXPECT_EQ(listed.lanes[1], (std::vector<int64_t>{1}));
  auto bad_list = parse_lane_spec(" 0,4x", TileSide{}, 10);
  ASSERT_FALSE(bad_list.ok());
  EXPECT_EQ(bad_list.error().column, 14);  // 'x' is the 5th character, the text starts at column 10
  EXPECT_EQ(bad_list.error().field, "lanes");

  auto bad_width = parse_tile_side("columns;LDS.99", false);
  ASSERT_FALSE(bad_width.ok());
  EXPECT_EQ(bad_width.error().column, 13);  // the '9' of 99
  EXPECT_EQ(bad_width.error().field, "reader");
  auto bad_layout = parse_tile_side("S[(8,4):(4,1];4", true);
  ASSERT_FALSE(bad_layout.ok());
  EXPECT_EQ(bad_layout.error().column, 13);  // the ']' where ')' was expected
  EXPECT_EQ(bad_layout.error().field, "writer");
  auto shifted = parse_tile_side("  S[(8,4):(4,1];4", true);
  ASSERT_FALSE(shifted.ok());
  EXPECT_EQ(shifted.error().column, 15);  // the same ']' two columns later
  auto wrong_way = parse_tile_side("rows;LDS.32", true);
  ASSERT_FALSE(wrong_way.ok());
  EXPECT_EQ(wrong_way.error().column, 6);
  EXPECT_FALSE(parse_tile_side("rows;", true).ok());
}

TEST(Advise, BadRequestsNameTheField) {
  AdviseRequest q{side("rows;STS.32", true), side("columns;LDS.32", false), DType::kF32, {}};
  EXPECT_EQ(advise(q).error().field, "tile");
  q.tile = {16, 0};
  EXPECT_EQ(advise(q).error().field, "tile");
  q.tile = {1 << 10, 1 << 10};
  EXPECT_EQ(advise(q).error().field, "tile");
  q.tile = {16, 30};  // 30 fp32 per row: an STS.128 writer would not fit; STS.32 does
  EXPECT_TRUE(advise(q).ok());
  q.writer = side("rows;STS.128", true);
  auto split = advise(q);
  ASSERT_FALSE(split.ok());
  EXPECT_EQ(split.error().field, "writer");
  q.writer = side("rows;STS.32", true);
  q.reader.instr = *parse_instruction("STS.32");
  EXPECT_EQ(advise(q).error().field, "reader");
  q.reader = side("rows;ldmatrix.x4", false);
  q.tile = {16, 32};
  EXPECT_EQ(advise(q).error().field, "reader");  // ldmatrix lanes come in matrices, not rows
}

}  // namespace
}  // namespace layoutscope
