// Warp accesses against wavefront and sector counts worked out by hand (bank = byte address / 4 % 32; one
// wavefront serves 128 B; broadcast inside a word) and against counts Nsight Compute measured on an H200.
#include "layoutscope/access.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "test_util.hpp"

namespace layoutscope {
namespace {

using testing::must_parse;

Instruction instr(const std::string& text) {
  auto i = parse_instruction(text);
  EXPECT_TRUE(i.ok()) << text << ": " << (i.ok() ? "" : i.error().message);
  return i.ok() ? *i : Instruction{};
}

WarpAccess access(const std::string& layout, std::vector<int64_t> shape, DType dtype, const std::string& in,
                  Lanes lanes) {
  return WarpAccess{must_parse(layout), std::move(shape), dtype, instr(in), std::move(lanes), std::nullopt};
}

Lanes repeat(const Lanes& once, int times) {
  Lanes out;
  for (int i = 0; i < times; ++i) out.insert(out.end(), once.begin(), once.end());
  return out;
}

TEST(AccessInstruction, ParsesTheCatalogue) {
  EXPECT_EQ(instr("LDS.128").op, Op::kLds);
  EXPECT_EQ(instr("LDS.128").bytes, 16);
  EXPECT_EQ(instr("lds").bytes, 4);  // SASS LDS without a width moves 32 bits
  EXPECT_EQ(instr("sts.64").bytes, 8);
  EXPECT_EQ(instr("LDG.E.128").bytes, 16);
  EXPECT_EQ(instr("ldg.u8").bytes, 1);
  EXPECT_EQ(instr("stg.16").bytes, 2);
  const Instruction ldsm = instr("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16");
  EXPECT_EQ(ldsm.op, Op::kLdmatrix);
  EXPECT_EQ(ldsm.matrices, 4);
  EXPECT_TRUE(ldsm.trans);
  EXPECT_EQ(ldsm.bytes, 16);
  EXPECT_EQ(instr("stmatrix.x2").op, Op::kStmatrix);
  // SASS spellings: LDSM.16.M88.4 is .x4, LDSM.16.MT88.2 is .x2.trans, no count is one matrix.
  EXPECT_EQ(instr("LDSM.16.M88.4").matrices, 4);
  EXPECT_TRUE(instr("LDSM.16.MT88.2").trans);
  EXPECT_EQ(instr("LDSM.16.MT88.2").matrices, 2);
  EXPECT_EQ(instr("STSM.16.M88").matrices, 1);
  EXPECT_EQ(instr("cp.async.cg.shared.global.16").bytes, 16);
  EXPECT_EQ(instr("cp.async.4").op, Op::kCpAsync);
  EXPECT_EQ(instr("LDGSTS.E.BYPASS.128").bytes, 16);  // SASS counts bits
  EXPECT_EQ(instr("tma.128B").tma_mode, SwizzleMode::k128B);
  EXPECT_EQ(instr("tma.none").tma_mode, SwizzleMode::kNone);
  EXPECT_EQ(instr("cp.async.bulk.tensor.2d.SWIZZLE_64B").tma_mode, SwizzleMode::k64B);
  for (const char* text : {"LDS.128", "STS.32", "LDG.8", "STG.64", "ldmatrix.x1", "stmatrix.x4.trans",
                           "cp.async.8", "tma.32B"}) {
    EXPECT_EQ(to_string(instr(text)), text);
  }
  EXPECT_EQ(ncu_op(Op::kLdmatrix), "ldsm");
  EXPECT_EQ(ncu_op(Op::kCpAsync), "ldgsts");
  EXPECT_EQ(lanes_per_instruction(instr("ldmatrix.x2")), 16);
  // The counter names measured on the H200 (ncu 2025.3).
  EXPECT_EQ(ncu_wavefront_metric(Op::kStmatrix),
            "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum");
  EXPECT_EQ(ncu_conflict_metric(Op::kLdmatrix),
            "sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum");
  EXPECT_EQ(ncu_wavefront_metric(Op::kLdg), "");
}

// A shape of positive extents too large to enumerate (2^24 x 2^24 = 2^48 elements) is refused for its size,
// not as a shape without positive extents.
TEST(AccessLanes, AHugeShapeIsRefusedForItsSize) {
  const Instruction lds = parse_instruction("LDS.32").value();
  auto huge = row_lanes({int64_t{1} << 24, int64_t{1} << 24}, DType::kF32, lds);
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.error().field, "shape");
  EXPECT_NE(huge.error().message.find("2^40 elements"), std::string::npos) << huge.error().message;
  auto zero = row_lanes({0, 4}, DType::kF32, lds);
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.error().message.find("positive extents"), std::string::npos);
}

// The bank figure's two warps: one row of a tile, and one column of 16 B cells. Expected indices by hand: a
// (32,64) fp16 tile, 8 elements a cell, 2 a lane (4 B): lanes go across a cell, four to a cell, then down.
TEST(AccessLanes, AWindowOfTheTile) {
  auto column = window_lanes({32, 64}, 2, Window{0, 8, 32, 8});
  ASSERT_TRUE(column.ok()) << column.error().message;
  ASSERT_EQ(column->size(), 32u);
  EXPECT_EQ((*column)[0], 8);
  EXPECT_EQ((*column)[3], 14);
  EXPECT_EQ((*column)[4], 64 + 8);           // row 1, the same cell
  EXPECT_EQ((*column)[31], 7 * 64 + 8 + 6);  // eight rows of four lanes
  // one row of 64 elements, 1 a lane: 32 lanes from the row's start
  auto row = window_lanes({32, 64}, 1, Window{5, 0, 1, 64});
  ASSERT_TRUE(row.ok());
  ASSERT_EQ(row->size(), 32u);
  EXPECT_EQ(row->front(), 5 * 64);
  EXPECT_EQ(row->back(), 5 * 64 + 31);
  // the 8x8 toy, a column of one-element cells: 8 lanes, one a row
  auto toy = window_lanes({8, 8}, 1, Window{0, 3, 8, 1});
  ASSERT_TRUE(toy.ok());
  EXPECT_EQ(*toy, (std::vector<int64_t>{3, 11, 19, 27, 35, 43, 51, 59}));
  auto outside = window_lanes({8, 8}, 1, Window{0, 8, 8, 1});
  ASSERT_FALSE(outside.ok());
  EXPECT_EQ(outside.error().field, "window");
  auto split = window_lanes({8, 8}, 4, Window{0, 0, 8, 2});
  ASSERT_FALSE(split.ok());
  EXPECT_NE(split.error().message.find("do not split into 4-element"), std::string::npos)
      << split.error().message;
}

TEST(AccessInstruction, ErrorsPointAtTheToken) {
  auto width = parse_instruction("LDS.96");
  ASSERT_FALSE(width.ok());
  EXPECT_EQ(width.error().column, 5);
  EXPECT_EQ(width.error().field, "instr");
  auto count = parse_instruction("ldmatrix.x3");
  ASSERT_FALSE(count.ok());
  EXPECT_EQ(count.error().column, 10);
  EXPECT_FALSE(parse_instruction("ldmatrix.trans").ok());  // no matrix count
  EXPECT_EQ(parse_instruction("mov.b32").error().column, 1);
  EXPECT_EQ(parse_instruction("tma.256B").error().column, 5);
  EXPECT_EQ(instr("LDS.U8").bytes, 1);  // LDS.U8 / LDS.U16: a part of one word
  EXPECT_EQ(instr("sts.16").bytes, 2);
  EXPECT_FALSE(parse_instruction("cp.async.2").ok());  // cp.async copies 4, 8 or 16 B
  EXPECT_FALSE(parse_instruction("").ok());
}

// The H200 measurement: 64 ldmatrix.x4 over a 64x64 b16 tile with 128 B rows.
//   matrix k of an instruction: 8 rows r0..r0+7 of one 16 B column block j -> bytes 128 r + 16 j, banks
//   4j..4j+3 in every row: 8 distinct 16 B rows on the same banks -> 8 wavefronts a phase, 32 an instruction.
//   64 * 32 = 2048; ideal 64 * 4 = 256; conflicts 1792.
//   Swizzle<3,3,3> on bf16 offsets (= SWIZZLE_128B): block j of row r moves to j ^ (r % 8); the 8 rows are
//   8 consecutive rows from a multiple of 8, so the 8 blocks are distinct: 1 wavefront a phase, 256 in all.
TEST(AccessCost, LdmatrixMatchesNcuOnTheH200) {
  for (const char* op : {"ldmatrix.x4", "ldmatrix.x4.trans", "stmatrix.x4", "stmatrix.x4.trans"}) {
    auto once = matrix_lanes({64, 64}, DType::kBF16, instr(op));
    ASSERT_TRUE(once.ok());
    ASSERT_EQ(once->size(), 16u) << op;  // 64x64 = 16 blocks of 16x16
    auto plain = cost(access("S[(64,64):(64,1)]", {64, 64}, DType::kBF16, op, repeat(*once, 4)));
    ASSERT_TRUE(plain.ok()) << plain.error().message;
    EXPECT_EQ(plain->instructions.size(), 64u);
    EXPECT_EQ(plain->wavefronts, 2048) << op;
    EXPECT_EQ(plain->ideal_wavefronts, 256) << op;
    EXPECT_EQ(plain->conflicts, 1792) << op;
    EXPECT_EQ(plain->instructions[0].wavefronts, 32);
    EXPECT_EQ(plain->instructions[0].max_ways, 8);
    auto swizzled =
        cost(access("Swizzle<3,3,3> o S[(64,64):(64,1)]", {64, 64}, DType::kBF16, op, repeat(*once, 4)));
    ASSERT_TRUE(swizzled.ok());
    EXPECT_EQ(swizzled->wavefronts, 256) << op;
    EXPECT_EQ(swizzled->conflicts, 0) << op;
  }
  EXPECT_EQ(cost(access("S[(64,64):(64,1)]", {64, 64}, DType::kBF16, "ldmatrix.x4",
                        *matrix_lanes({64, 64}, DType::kBF16, instr("ldmatrix.x4"))))
                ->ncu_op,
            "ldsm");
}

TEST(AccessCost, LdmatrixX1AndX2UseOnlyTheirAddressLanes) {
  // x1: lanes 0..7 name the rows of one 8x8 matrix; lanes 8..31 are ignored even when given.
  Lanes lanes(1, std::vector<int64_t>(32, 0));
  for (int l = 0; l < 8; ++l) lanes[0][static_cast<size_t>(l)] = l * 64;  // rows 0..7, column block 0
  auto x1 = cost(access("S[(64,64):(64,1)]", {64, 64}, DType::kBF16, "ldmatrix.x1", lanes));
  ASSERT_TRUE(x1.ok());
  EXPECT_EQ(x1->wavefronts, 8);  // 8 rows, 128 B apart: banks 0..3 eight times
  EXPECT_EQ(x1->ideal_wavefronts, 1);
  // x2 over 16x8 blocks: two phases of 8 rows each, 8-way each.
  auto x2 = cost(access("S[(64,64):(64,1)]", {64, 64}, DType::kBF16, "ldmatrix.x2",
                        *matrix_lanes({64, 64}, DType::kBF16, instr("ldmatrix.x2"))));
  ASSERT_TRUE(x2.ok());
  EXPECT_EQ(x2->instructions.size(), 32u);  // 4 x 8 blocks of 16x8
  EXPECT_EQ(x2->instructions[0].wavefronts, 16);
  EXPECT_EQ(x2->instructions[0].ideal_wavefronts, 2);
}

// The chapter's toy: 8 banks, 8x8 fp32, lanes 0..7 read column 3.
//   row-major: byte 32 r + 12 -> word 8 r + 3 -> bank 3 for every r: 8 words in one bank, 8 cycles.
//   Swizzle<3,0,3>: column 3 ^ r -> banks 3,2,1,0,7,6,5,4: one cycle.
TEST(AccessCost, ChapterToyBanks) {
  const BankModel toy{8, 4, 32};
  Lanes column3(1);
  for (int r = 0; r < 8; ++r) column3[0].push_back(r * 8 + 3);
  auto plain = cost(access("S[(8,8):(8,1)]", {8, 8}, DType::kF32, "LDS.32", column3), toy);
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_EQ(plain->wavefronts, 8);
  EXPECT_EQ(plain->conflicts, 7);
  auto xored = cost(access("Swizzle<3,0,3> o S[(8,8):(8,1)]", {8, 8}, DType::kF32, "LDS.32", column3), toy);
  EXPECT_EQ(xored->wavefronts, 1);
}

// SWIZZLE_128B, fp16, one 16 B column over 8 rows: an 8x64 tile (128 B rows), 8 lanes each move the 16 B
// of column block 3 of their row. Unswizzled: bytes 128 r + 48, banks 12..15 for all 8 rows: 8 wavefronts.
// Swizzled: block 3 ^ r, 8 distinct blocks: 1.
TEST(AccessCost, Swizzle128BColumnOfSixteenBytes) {
  Lanes column(1);
  for (int r = 0; r < 8; ++r) column[0].push_back(r * 64 + 24);
  for (const char* op : {"LDS.128", "ldmatrix.x1"}) {
    EXPECT_EQ(cost(access("S[(8,64):(64,1)]", {8, 64}, DType::kF16, op, column))->wavefronts, 8) << op;
    EXPECT_EQ(cost(access("Swizzle<3,3,3> o S[(8,64):(64,1)]", {8, 64}, DType::kF16, op, column))->wavefronts,
              1)
        << op;
  }
}

// A 32x32 fp32 tile read down a column: row stride 128 B puts all 32 lanes in one bank -> 32 wavefronts;
// padded to 33 words per row, lane r is in bank r % 32 -> 1.
TEST(AccessCost, PaddingBreaksTheColumnConflict) {
  auto lanes = column_lanes({32, 32}, DType::kF32, instr("LDS.32"));
  ASSERT_TRUE(lanes.ok());
  ASSERT_EQ(lanes->size(), 32u);
  EXPECT_EQ((*lanes)[0][5], 5 * 32);  // instruction 0, lane 5: row 5 of column 0
  auto plain = cost(access("S[(32,32):(32,1)]", {32, 32}, DType::kF32, "LDS.32", *lanes));
  EXPECT_EQ(plain->instructions[0].wavefronts, 32);
  EXPECT_EQ(plain->wavefronts, 32 * 32);
  auto padded = cost(access("S[(32,32):(33,1)]", {32, 32}, DType::kF32, "LDS.32", *lanes));
  EXPECT_EQ(padded->instructions[0].wavefronts, 1);
  EXPECT_EQ(padded->wavefronts, 32);
  EXPECT_EQ(padded->conflicts, 0);
}

// LDS.128 moves 512 B a warp: 4 groups of 8 lanes, ideal 4. Along rows of a 32x32 fp32 tile each group
// reads one 128 B row: 4 wavefronts. Down columns each group reads 8 rows of one 16 B block, all in banks
// 0..3: 8 wavefronts a group, 32 an instruction, 28 conflicts.
TEST(AccessCost, WideSharedAccessesHaveAnIdealOfOneWavefrontPer128Bytes) {
  auto rows = cost(access("S[(32,32):(32,1)]", {32, 32}, DType::kF32, "LDS.128",
                          *row_lanes({32, 32}, DType::kF32, instr("LDS.128"))));
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->instructions.size(), 8u);  // 1024 elements / 4 per lane / 32 lanes
  EXPECT_EQ(rows->instructions[0].wavefronts, 4);
  EXPECT_EQ(rows->instructions[0].ideal_wavefronts, 4);
  EXPECT_EQ(rows->conflicts, 0);
  auto cols = cost(access("S[(32,32):(32,1)]", {32, 32}, DType::kF32, "LDS.128",
                          *column_lanes({32, 32}, DType::kF32, instr("LDS.128"))));
  EXPECT_EQ(cols->instructions[0].wavefronts, 32);
  EXPECT_EQ(cols->instructions[0].conflicts, 28);
  auto half = cost(access("S[(32,32):(32,1)]", {32, 32}, DType::kF32, "STS.64",
                          *row_lanes({32, 32}, DType::kF32, instr("STS.64"))));
  EXPECT_EQ(half->instructions[0].wavefronts, 2);  // 256 B: two half-warps of 16 lanes
  EXPECT_EQ(half->ncu_op, "st");
  // Idle lanes leave their group empty: only lanes 0 and 31 of an LDS.128 -> groups 0 and 3 -> 2.
  Lanes two(1, std::vector<int64_t>(32, kIdleLane));
  two[0][0] = 0;
  two[0][31] = 4;
  EXPECT_EQ(cost(access("S[(32,32):(32,1)]", {32, 32}, DType::kF32, "LDS.128", two))->wavefronts, 2);
}

// The tile64 transpose reads 4 x 4 fp32 chunks down a column of chunks: lane l at tile(4 (l % 16), 4 (l /
// 16)), rows 0, 4, ..., 60 of chunk columns 0 and 4. Worked by hand on the 64x64 tile padded to 260 words per
// 4 rows, S[(16,4,64):(260,64,1)]: row 4a starts at word 260 a, so lane l's 16 B start at word 260 (l % 16) +
// 4 (l / 16), bank 4 ((l % 16) + l / 16) mod 32: each group of 8 lanes covers banks 4k .. 4k + 3 for 8
// distinct k, one wavefront, 4 for the warp (the 4 wavefronts the H200 transpose results record). Unpadded,
// rows 4a are 256 a words apart, all in banks 0..3 (chunk column 0) or 4..7: 8 wavefronts a group, 32.
TEST(AccessCost, ChunkColumnsOfTheTile64Transpose) {
  auto lanes = chunk_lanes({64, 64}, DType::kF32, instr("LDS.128"));
  ASSERT_TRUE(lanes.ok()) << lanes.error().message;
  // 256 chunks = 8 groups of 32, 4 instructions (one per chunk row) each
  ASSERT_EQ(lanes->size(), 32u);
  for (int l = 0; l < 32; ++l) {
    EXPECT_EQ((*lanes)[0][l], 4 * (l % 16) * 64 + 4 * (l / 16)) << l;
    EXPECT_EQ((*lanes)[3][l], (4 * (l % 16) + 3) * 64 + 4 * (l / 16)) << l;  // row 3 of the same chunk
    EXPECT_EQ((*lanes)[4][l], 4 * (l % 16) * 64 + 4 * (l / 16) + 8) << l;    // the next two chunk columns
  }
  const Lanes first{(*lanes)[0]};
  auto padded = cost(access("S[(16,4,64):(260,64,1)]", {64, 64}, DType::kF32, "LDS.128", first));
  ASSERT_TRUE(padded.ok()) << padded.error().message;
  EXPECT_EQ(padded->wavefronts, 4);
  EXPECT_EQ(padded->conflicts, 0);
  // Swizzle<3,2,6> on word offsets: row 4a at word 256 a, its bits 8..10 (a % 8) XOR into the 16 B chunk
  // index, so lane l's chunk is (l / 16) ^ (a % 8): 8 distinct a group, 4 wavefronts
  auto swizzled = cost(access("Swizzle<3,2,6> o S[(64,64):(64,1)]", {64, 64}, DType::kF32, "LDS.128", first));
  EXPECT_EQ(swizzled->wavefronts, 4);
  EXPECT_EQ(cost(access("S[(64,64):(64,1)]", {64, 64}, DType::kF32, "LDS.128", first))->wavefronts, 32);
  // every element once over the whole walk
  std::vector<int> seen(64 * 64, 0);
  for (const auto& in : *lanes)
    for (int64_t x : in)
      for (int j = 0; j < 4; ++j) ++seen[static_cast<size_t>(x + j)];
  EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
  EXPECT_EQ(chunk_lanes({64, 62}, DType::kF32, instr("LDS.128")).error().field, "shape");
  EXPECT_EQ(chunk_lanes({6, 64}, DType::kF32, instr("LDS.128")).error().field, "shape");
}

// SoA float4: records of 8 fp32 fields, field k of record i at k * n + i (S[(n,8):(1,n)]); lane i loads field
// 0 of records 4i .. 4i + 3, four elements down column 0 that are adjacent in memory: 32 x 16 B = 512 B = 16
// sectors (the H200 AoS/SoA results record 16). Along a row the same 16 B would be fields 0..3 of one record,
// n words apart: not one access.
TEST(AccessCost, VectorsDownAColumnOfRecords) {
  auto lanes = column_vector_lanes({1024, 8}, DType::kF32, instr("LDG.128"));
  ASSERT_TRUE(lanes.ok()) << lanes.error().message;
  ASSERT_EQ(lanes->size(), 64u);  // 8192 elements / 4 a lane / 32 lanes
  for (int l = 0; l < 32; ++l) EXPECT_EQ((*lanes)[0][l], 4 * l * 8) << l;  // row 4 l, column 0
  EXPECT_EQ((*lanes)[8][0], 1);                                            // slot 256: row 0 of column 1
  WarpAccess soa = access("S[(1024,8):(1,1024)]", {1024, 8}, DType::kF32, "LDG.128", Lanes{(*lanes)[0]});
  EXPECT_FALSE(cost(soa).ok());  // along rows: fields 0..3 of record 0 are 1024 words apart
  soa.vector = VectorAxis::kColumn;
  auto c = cost(soa);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->sectors, 16);
  EXPECT_EQ(c->requests, 1);
  // AoS (S[(1024,8):(8,1)]): records 4i .. 4i + 3 of one field are 8 words apart, so not one access
  WarpAccess aos = soa;
  aos.layout = must_parse("S[(1024,8):(8,1)]");
  auto bad = cost(aos);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().field, "layout");
  // a lane that would run off the bottom of its column
  WarpAccess low = soa;
  low.lanes = Lanes{{1022 * 8}};
  EXPECT_EQ(cost(low).error().field, "lanes");
  EXPECT_EQ(column_vector_lanes({6, 8}, DType::kF32, instr("LDG.128")).error().field, "shape");
}

TEST(AccessCost, GlobalSectorsAndRequests) {
  // 32 lanes x 4 B contiguous = 128 B = 4 sectors, one request.
  auto row = cost(access("S[(32,32):(32,1)]", {32, 32}, DType::kF32, "LDG.32",
                         *row_lanes({32, 32}, DType::kF32, instr("LDG.32"))));
  ASSERT_TRUE(row.ok());
  EXPECT_EQ(row->instructions[0].sectors, 4);
  EXPECT_EQ(row->instructions[0].requests, 1);
  EXPECT_EQ(row->sectors, 32 * 4);
  EXPECT_EQ(row->requests, 32);
  EXPECT_FALSE(row->shared_counted);
  EXPECT_EQ(row->wavefronts, 0);
  // 16 B a lane: 512 contiguous bytes = 16 sectors.
  auto wide = cost(access("S[(32,32):(32,1)]", {32, 32}, DType::kF32, "LDG.128",
                          *row_lanes({32, 32}, DType::kF32, instr("LDG.128"))));
  EXPECT_EQ(wide->instructions[0].sectors, 16);
  // AoS: struct of 8 floats (32 B), one field per lane: a sector per lane.
  auto aos = cost(access("S[(32,8):(8,1)]", {32, 8}, DType::kF32, "LDG.32",
                         *column_lanes({32, 8}, DType::kF32, instr("LDG.32"))));
  EXPECT_EQ(aos->instructions[0].sectors, 32);
  // fp8, one byte a lane: 32 B = 1 sector.
  auto bytes = cost(access("S[(32,32):(32,1)]", {32, 32}, DType::kF8, "LDG.8",
                           *row_lanes({32, 32}, DType::kF8, instr("LDG.8"))));
  EXPECT_EQ(bytes->instructions[0].sectors, 1);
}

TEST(AccessCost, CpAsync16CountsQuarterWarpWavefronts) {
  // 16 B cp.async, .cg or .ca: 8 lanes x 16 B = 128 B a wavefront, 4 for a conflict-free warp (H200, ncu
  // ldgsts: 256 wavefronts for 64 instructions in five PTX forms, docs/results/h200-cp-async-ncu.md; Triton's
  // matmul 40,960 for 10,240). The dense source of 8 rows x 32 fp32 is 512 contiguous bytes = 16 sectors.
  auto c = cost(access("S[(32,32):(32,1)]", {32, 32}, DType::kF32, "cp.async.16",
                       *row_lanes({32, 32}, DType::kF32, instr("cp.async.16"))));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->ncu_op, "ldgsts");
  EXPECT_EQ(c->instructions[0].wavefronts, 4);
  EXPECT_EQ(c->instructions[0].ideal_wavefronts, 4);
  EXPECT_EQ(c->conflicts, 0);
  EXPECT_EQ(c->instructions[0].sectors, 16);
  EXPECT_EQ(c->instructions[0].requests, 1);
  // Columns of a plain 64x64 bf16 tile: each 8-lane group writes 8 rows 128 B apart, all in banks 0-3 of
  // one 16 B block -> 8 wavefronts a group, 32 an instruction, 16 instructions = 512 (ideal 64).
  auto col = cost(access("S[(64,64):(64,1)]", {64, 64}, DType::kBF16, "cp.async.16",
                         *column_lanes({64, 64}, DType::kBF16, instr("cp.async.16"))));
  ASSERT_TRUE(col.ok()) << col.error().message;
  EXPECT_EQ(col->wavefronts, 512);
  EXPECT_EQ(col->ideal_wavefronts, 64);
  EXPECT_EQ(col->conflicts, 448);
  // A column-major source: the 4 elements of a lane are not adjacent there.
  WarpAccess strided = access("S[(32,32):(32,1)]", {32, 32}, DType::kF32, "cp.async.16",
                              *row_lanes({32, 32}, DType::kF32, instr("cp.async.16")));
  strided.source = must_parse("S[(32,32):(1,32)]");
  auto bad = cost(strided);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().field, "source");
}

// 1 and 2 B lanes (LDS.U8, LDS.U16, STS.8, STS.16). The CUDA C++ Programming Guide (shared memory, compute
// capability 5.x and later): 32 banks, successive 32-bit words in successive banks, and no bank conflict
// between threads that access any address within the same 32-bit word. A warp's 32 lanes at 1 or 2 B move at
// most 64 B, one wavefront; the wavefronts are the most distinct words any bank must deliver.
TEST(AccessCost, SubWordLanes) {
  // 32 consecutive bytes: 8 words in banks 0-7, 4 lanes a word -> 1 wavefront.
  auto bytes = cost(access("S[(32,32):(32,1)]", {32, 32}, DType::kU8, "LDS.U8",
                           *row_lanes({32, 32}, DType::kU8, instr("LDS.U8"))));
  ASSERT_TRUE(bytes.ok()) << bytes.error().message;
  EXPECT_EQ(bytes->instructions.size(), 32u);
  EXPECT_EQ(bytes->instructions[0].wavefronts, 1);
  EXPECT_EQ(bytes->instructions[0].ideal_wavefronts, 1);
  EXPECT_EQ(bytes->conflicts, 0);
  // A column of a 32x32 u8 tile: lane l at byte 32l, word 8l, bank 8l % 32 in {0, 8, 16, 24}, 8 distinct
  // words in each -> 8 wavefronts, 7 conflicts an instruction.
  auto col8 = cost(access("S[(32,32):(32,1)]", {32, 32}, DType::kU8, "LDS.U8",
                          *column_lanes({32, 32}, DType::kU8, instr("LDS.U8"))));
  ASSERT_TRUE(col8.ok()) << col8.error().message;
  EXPECT_EQ(col8->instructions[0].wavefronts, 8);
  EXPECT_EQ(col8->instructions[0].conflicts, 7);
  EXPECT_EQ(col8->max_ways, 8);
  // f16 rows: 32 lanes x 2 B = 16 words in 16 banks -> 1; a column of a 32x32 f16 tile: byte 64l, word 16l,
  // banks 0 and 16 with 16 words each -> 16.
  auto half = cost(access("S[(32,32):(32,1)]", {32, 32}, DType::kF16, "STS.16",
                          *row_lanes({32, 32}, DType::kF16, instr("STS.16"))));
  ASSERT_TRUE(half.ok()) << half.error().message;
  EXPECT_EQ(half->instructions[0].wavefronts, 1);
  EXPECT_EQ(half->ncu_op, "st");
  auto col16 = cost(access("S[(32,32):(32,1)]", {32, 32}, DType::kF16, "LDS.U16",
                           *column_lanes({32, 32}, DType::kF16, instr("LDS.U16"))));
  ASSERT_TRUE(col16.ok()) << col16.error().message;
  EXPECT_EQ(col16->instructions[0].wavefronts, 16);
  EXPECT_EQ(col16->instructions[0].ideal_wavefronts, 1);
  // Padding a row by one word moves lane l to word 9l: 32 distinct banks -> 1.
  auto padded = cost(access("S[(32,32):(36,1)]", {32, 32}, DType::kU8, "LDS.U8",
                            *column_lanes({32, 32}, DType::kU8, instr("LDS.U8"))));
  ASSERT_TRUE(padded.ok()) << padded.error().message;
  EXPECT_EQ(padded->instructions[0].wavefronts, 1);
  // a u8 lane cannot move f16 elements
  EXPECT_FALSE(cost(access("S[(32,32):(32,1)]", {32, 32}, DType::kF16, "LDS.U8",
                           *row_lanes({32, 32}, DType::kU8, instr("LDS.U8"))))
                   .ok());
}

// cp.async.4 / .8 (cp.async.ca): one wavefront group per 128 B source line. The counts ncu gave on the H200
// for a 64x64 bf16 tile whose dense source has 128 B rows.
TEST(AccessCost, CpAsyncCaCountsOneGroupPerSourceLine) {
  struct Case {
    const char* layout;
    const char* instr;
    bool columns;
    int64_t wavefronts, conflicts;
  } cases[] = {
      // Rows: 32 lanes x 4 B = one line, one wavefront; 32 x 8 B = two lines, two. 64 in all either way.
      {"S[(64,64):(64,1)]", "cp.async.4", false, 64, 0},
      {"S[(64,64):(64,1)]", "cp.async.8", false, 64, 0},
      {"Swizzle<3,3,3> o S[(64,64):(64,1)]", "cp.async.4", false, 64, 0},
      // Columns: each lane reads its own source row, so 32 lines a instruction on every layout: 64 x 32 for
      // 4 B (ideal 1 each), 32 x 32 for 8 B (ideal 2 each).
      {"S[(64,64):(64,1)]", "cp.async.4", true, 2048, 1984},
      {"S[(64,64):(64,1)]", "cp.async.8", true, 1024, 960},
      {"Swizzle<3,3,3> o S[(64,64):(64,1)]", "cp.async.4", true, 2048, 1984},
      {"Swizzle<3,3,3> o S[(64,64):(64,1)]", "cp.async.8", true, 1024, 960},
      {"S[(64,64):(72,1)]", "cp.async.4", true, 2048, 1984},
      {"S[(64,64):(72,1)]", "cp.async.8", true, 1024, 960},
  };
  for (const Case& k : cases) {
    const Instruction in = instr(k.instr);
    auto lanes = k.columns ? column_lanes({64, 64}, DType::kBF16, in) : row_lanes({64, 64}, DType::kBF16, in);
    ASSERT_TRUE(lanes.ok());
    auto c = cost(access(k.layout, {64, 64}, DType::kBF16, k.instr, *lanes));
    ASSERT_TRUE(c.ok()) << c.error().message;
    EXPECT_EQ(c->wavefronts, k.wavefronts)
        << k.layout << " " << k.instr << (k.columns ? " columns" : " rows");
    EXPECT_EQ(c->conflicts, k.conflicts) << k.layout << " " << k.instr << (k.columns ? " columns" : " rows");
  }
  // One source line whose 32 lanes all land in one bank: a column-major fp32 tile written by rows puts
  // element (r, c) at word 32 c + r, bank r for every c. 32 wavefronts a instruction, ideal 1.
  auto one_line = cost(access("S[(32,32):(1,32)]", {32, 32}, DType::kF32, "cp.async.4",
                              *row_lanes({32, 32}, DType::kF32, instr("cp.async.4"))));
  ASSERT_TRUE(one_line.ok()) << one_line.error().message;
  EXPECT_EQ(one_line->instructions[0].wavefronts, 32);
  EXPECT_EQ(one_line->instructions[0].ideal_wavefronts, 1);
  EXPECT_EQ(one_line->instructions[0].max_ways, 32);
}

TEST(AccessCost, TmaTile) {
  auto layout = tma_layout(SwizzleMode::k128B, DType::kBF16, {64, 64});
  ASSERT_TRUE(layout.ok());
  WarpAccess a{*layout, {64, 64}, DType::kBF16, instr("tma.128B"), {}, std::nullopt};
  auto c = cost(a);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_FALSE(c->shared_counted);  // TMA has no bank counter
  EXPECT_EQ(c->bytes, 8192);
  EXPECT_EQ(c->sectors, 256);  // 8192 B / 32
  // The tile is not where TMA 128B puts it.
  a.layout = must_parse("S[(64,64):(64,1)]");
  auto wrong = cost(a);
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().field, "layout");
  // 2^21 elements: larger than any TMA box, refused instead of checked element by element.
  WarpAccess huge{*tma_layout(SwizzleMode::k128B, DType::kBF16, {2048, 1024}),
                  {2048, 1024},
                  DType::kBF16,
                  instr("tma.128B"),
                  {},
                  std::nullopt};
  EXPECT_EQ(cost(huge).error().field, "shape");
}

// TMA 64B on a 64x64 bf16 tile: two panels of 64 rows x 32 elements (64 B). Element (2, 40) is panel 1,
// row 2, element 8: 2 * 32 + 2048 + 8 = 2120, byte 4240. Swizzle<2,4,3> on bytes: (4240 >> 7) & 3 = 1,
// XOR 1 << 4 -> byte 4224 = element 2112.
TEST(AccessCost, TmaLayoutsArePanels) {
  auto l = tma_layout(SwizzleMode::k64B, DType::kBF16, {64, 64});
  ASSERT_TRUE(l.ok());
  const int64_t x = 2 * 64 + 40;
  auto addr = lane_addresses(*l, {64, 64}, std::vector<int64_t>{x}, 2);
  ASSERT_TRUE(addr.ok());
  EXPECT_EQ((*addr)[0], 4224);
  // A padded, swizzled tile as a value equals its text.
  Swizzle sw;
  sw.bits = 4, sw.base = 1, sw.shift = 4;
  EXPECT_EQ(tile_layout(16, 32, 32, sw), must_parse("Swizzle<4,1,4> o S[(16,32):(32,1)]"));
  EXPECT_EQ(tile_layout(32, 32, 33), must_parse("S[(32,32):(33,1)]"));
  // 128B equals Swizzle<3,3,3> on the plain tile when a row is exactly 128 B.
  auto wide = tma_layout(SwizzleMode::k128B, DType::kBF16, {64, 64});
  EXPECT_EQ(wide->swizzle->bits, 3);
  EXPECT_EQ(wide->swizzle->base, 3);
  EXPECT_EQ(tma_layout(SwizzleMode::k128B, DType::kF16, {4, 64}).error().field, "shape");  // < 8 rows
  EXPECT_FALSE(tma_layout(SwizzleMode::k128B, DType::kF32, {8, 24}).ok());                 // 96 B rows
  EXPECT_FALSE(tma_layout(SwizzleMode::kNone, DType::kF32, {8, 3}).ok());                  // 12 B rows
  EXPECT_FALSE(tma_layout(SwizzleMode::k128BAtom32B, DType::kF32, {8, 32}).ok());
}

// The 16x32 fp32 case: written by rows, read by columns two at a time (lanes 0..15 column 2k, lanes
// 16..31 column 2k+1). Word (r, c) is in bank c (rows are 32 words).
//   unswizzled: lanes 0..15 all in bank 2k, 16..31 in bank 2k+1 -> 16 wavefronts an instruction.
//   c ^ r (Swizzle<4,0,5>): {2k ^ r} and {(2k+1) ^ r} over r < 16 are the same 16 banks -> 2-way.
//   c ^ 2r (Swizzle<4,1,4>): 2k ^ 2r is every even bank, (2k+1) ^ 2r every odd one -> 1.
TEST(AccessCost, ThreadLayoutsAndTheXorWithTwiceTheRow) {
  const Layout writer = must_parse("S[(16,32):(1@reg,1@laneid)]");
  const Layout reader = must_parse("S[(16,16,2):(1@laneid,1@reg,16@laneid)]");
  auto w = thread_lanes(writer, {16, 32}, DType::kF32, instr("STS.32"));
  auto r = thread_lanes(reader, {16, 32}, DType::kF32, instr("LDS.32"));
  ASSERT_TRUE(w.ok()) << w.error().message;
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(w->size(), 16u);
  ASSERT_EQ(r->size(), 16u);
  EXPECT_EQ((*w)[3][5], 3 * 32 + 5);
  EXPECT_EQ((*r)[0][17], 1 * 32 + 1);  // lane 17: row 1, column 1
  EXPECT_EQ((*r)[4][2], 2 * 32 + 8);   // instruction 4 reads columns 8 and 9
  const std::pair<const char*, int64_t> expect[] = {{"S[(16,32):(32,1)]", 16 * 16},
                                                    {"Swizzle<4,0,5> o S[(16,32):(32,1)]", 16 * 2},
                                                    {"Swizzle<4,1,4> o S[(16,32):(32,1)]", 16}};
  for (auto [layout, read] : expect) {
    EXPECT_EQ(cost(access(layout, {16, 32}, DType::kF32, "STS.32", *w))->wavefronts, 16) << layout;
    EXPECT_EQ(cost(access(layout, {16, 32}, DType::kF32, "LDS.32", *r))->wavefronts, read) << layout;
  }
  // 16 B a lane from a thread layout: lane l holds registers 0..3 = elements 4l..4l+3 of a row.
  auto vec = thread_lanes(must_parse("S[(4,8,4):(1@reg,1@laneid,8@laneid)]"), {4, 32}, DType::kF32,
                          instr("LDS.128"));
  ASSERT_FALSE(vec.ok());  // the registers of a lane are 4 rows apart, not 4 adjacent elements
  EXPECT_EQ(vec.error().field, "threads");
  auto good = thread_lanes(must_parse("S[(4,8,4):(8@laneid,1@laneid,1@reg)]"), {4, 32}, DType::kF32,
                           instr("LDS.128"));
  ASSERT_TRUE(good.ok()) << good.error().message;
  EXPECT_EQ(good->size(), 1u);
  EXPECT_EQ((*good)[0][9], 1 * 32 + 4);  // lane 9 = row 1, column block 1
  EXPECT_FALSE(
      thread_lanes(must_parse("S[(2,32):(32@laneid,1@laneid)]"), {2, 32}, DType::kF32, instr("LDS.32"))
          .ok());  // lanes 32..63 are not in a warp
}

TEST(AccessCost, BadAccessesNameThePlace) {
  Lanes past(1, {6});  // an LDS.128 of fp32 from column 6 of an 8-wide row runs off it
  auto a = cost(access("S[(8,8):(8,1)]", {8, 8}, DType::kF32, "LDS.128", past));
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().field, "lanes");
  EXPECT_NE(a.error().message.find("instruction 0, lane 0"), std::string::npos);
  Lanes misaligned(1, {kIdleLane, 2});  // byte 8 is not 16 B aligned
  auto b = cost(access("S[(8,8):(8,1)]", {8, 8}, DType::kF32, "LDS.128", misaligned));
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().message.find("lane 1"), std::string::npos);
  auto split = cost(access("Swizzle<3,0,3> o S[(8,8):(8,1)]", {8, 8}, DType::kF32, "LDS.128", Lanes(1, {8})));
  ASSERT_FALSE(split.ok());  // the XOR moves single words, so row 1's 4 words are not adjacent
  EXPECT_EQ(split.error().field, "layout");
  EXPECT_FALSE(cost(access("S[(8,8):(8,1)]", {8, 8}, DType::kF32, "LDS.32", Lanes(1, {64}))).ok());
  EXPECT_FALSE(
      cost(access("S[(8,8):(8,1)]", {8, 8}, DType::kF32, "LDS.32", Lanes(1, std::vector<int64_t>(33, 0))))
          .ok());
  EXPECT_EQ(cost(access("S[(8,8):(8,1)]", {8, 8}, DType::kF64, "LDS.32", Lanes(1, {0}))).error().field,
            "dtype");
  EXPECT_EQ(cost(access("S[(8,8):(8,1)]", {8, 8}, DType::kF32, "LDS.32", {})).error().field, "lanes");
  EXPECT_FALSE(cost(access("S[(8,8):(8,1)]", {4, 4}, DType::kF32, "LDS.32", Lanes(1, {0}))).ok());
  // A tile too large to walk is refused before anything is allocated for it: 2^32 fp32 / 32 lanes.
  EXPECT_EQ(row_lanes({65536, 65536}, DType::kF32, instr("LDS.32")).error().field, "shape");
  EXPECT_EQ(column_lanes({65536, 65536}, DType::kF32, instr("LDS.32")).error().field, "shape");
  EXPECT_EQ(matrix_lanes({65536, 65536}, DType::kBF16, instr("ldmatrix.x4")).error().field, "shape");
  EXPECT_EQ(cost(access("S[(8,8):(8@x,1@x)]", {8, 8}, DType::kF32, "LDS.32", Lanes(1, {0}))).error().field,
            "layout");
}

}  // namespace
}  // namespace layoutscope
