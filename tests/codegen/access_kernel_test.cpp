// The warp-access lab's kernels and their host side: the lanes' byte offsets worked out by hand from the
// layout, the register contents of ldmatrix from the PTX ISA's m8n8 fragment table, and, where nvcc exists,
// every instruction kind compiled for sm_90.
#include "access_kernel.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "layoutscope/parse.hpp"

namespace layoutscope::codegen {
namespace {

Instruction instr(const char* text) {
  auto i = parse_instruction(text);
  EXPECT_TRUE(i.ok()) << text;
  return *i;
}

WarpAccess access(const char* layout, std::vector<int64_t> shape, DType dtype, const char* text,
                  bool columns = false) {
  auto l = parse_layout(layout);
  EXPECT_TRUE(l.ok()) << layout;
  const Instruction in = instr(text);
  auto lanes = columns ? column_lanes(shape, dtype, in) : default_lanes(shape, dtype, in);
  EXPECT_TRUE(lanes.ok()) << lanes.error().message;
  return WarpAccess{*l, shape, dtype, in, *lanes, std::nullopt};
}

AccessPlan plan(const WarpAccess& a) {
  auto p = plan_access(a);
  EXPECT_TRUE(p.ok()) << p.error().message;
  return *p;
}

// Tile image whose 16-bit word k holds k: a bf16 element's value is its byte offset / 2.
std::vector<uint8_t> counting_halves(int64_t bytes) {
  std::vector<uint8_t> in(static_cast<size_t>(bytes));
  for (int64_t b = 0; b < bytes; ++b)
    in[b] = static_cast<uint8_t>(b % 2 == 0 ? (b / 2) & 0xff : (b / 2) >> 8);
  return in;
}

// LDS.32, rows: lane l of instruction i reads element 32 i + l at byte 4 (32 i + l).
TEST(AccessPlan, RowsOfFloatsAreConsecutiveWords) {
  const AccessPlan p = plan(access("S[(32,32):(32,1)]", {32, 32}, DType::kF32, "LDS.32"));
  EXPECT_EQ(p.instructions, 32);
  EXPECT_EQ(p.tile_bytes, 4096);
  EXPECT_EQ(p.words_per_lane, 1);
  EXPECT_EQ(p.offsets[0], 0);
  EXPECT_EQ(p.offsets[5 * 32 + 7], 4 * (5 * 32 + 7));
}

// Columns of a tile padded to 33 words: lane l reads row l, column 0, at byte 4 * 33 l; the tile ends at
// row 31, column 31: byte 4 (31 * 33 + 31) + 4 = 4220, rounded up to 4224.
TEST(AccessPlan, PaddedColumns) {
  const AccessPlan p = plan(access("S[(32,32):(33,1)]", {32, 32}, DType::kF32, "LDS.32", true));
  EXPECT_EQ(p.offsets[9], 4 * 33 * 9);
  EXPECT_EQ(p.tile_bytes, 4224);
}

// ldmatrix.x1 over an 8x8 bf16 tile with 16 B rows: thread t gets row t / 4, elements 2 (t % 4) and
// 2 (t % 4) + 1, i.e. elements 2t and 2t + 1 of the row-major tile; .trans gets elements
// (2 (t % 4), t / 4) and (2 (t % 4) + 1, t / 4): 16 (t % 4) + t / 4 and that + 8.
TEST(AccessRun, LdmatrixFragmentsFollowThePtxTable) {
  for (bool trans : {false, true}) {
    const AccessPlan p =
        plan(access("S[(8,8):(8,1)]", {8, 8}, DType::kBF16, trans ? "ldmatrix.x1.trans" : "ldmatrix.x1"));
    ASSERT_EQ(p.instructions, 1);
    const AccessRun r = run_access_on_host(p, counting_halves(p.tile_bytes));
    ASSERT_EQ(r.regs.size(), 32u);
    for (uint32_t t = 0; t < 32; ++t) {
      const uint32_t e0 = trans ? 16 * (t % 4) + t / 4 : 2 * t, e1 = trans ? e0 + 8 : e0 + 1;
      EXPECT_EQ(r.regs[t], e0 | (e1 << 16)) << "thread " << t << (trans ? " .trans" : "");
    }
  }
}

// ldmatrix.x4 with 128 B rows: register 2 of thread 0 is matrix 2's row 0, whose address lane 16 names;
// matrix_lanes puts lane 16 at row 0 of column block 1 (elements 8, 9).
TEST(AccessRun, LdmatrixX4ReadsMatrixKFromLanes8k) {
  const AccessPlan p = plan(access("S[(16,64):(64,1)]", {16, 64}, DType::kBF16, "ldmatrix.x4"));
  EXPECT_EQ(p.offsets[16], 16);
  const AccessRun r = run_access_on_host(p, counting_halves(p.tile_bytes));
  EXPECT_EQ(r.regs[2], 8u | (9u << 16));
}

// stmatrix.x1: thread t's register lands at row t / 4, bytes 4 (t % 4): byte 4 t of a row-major 8x8 tile.
TEST(AccessRun, StmatrixStoresWhereLdmatrixLoads) {
  const AccessPlan p = plan(access("S[(8,8):(8,1)]", {8, 8}, DType::kBF16, "stmatrix.x1"));
  const AccessRun r = run_access_on_host(p, {});
  ASSERT_EQ(r.tile.size(), 128u);
  for (int t = 0; t < 32; ++t) {
    const uint32_t v = stored_word(0, t, 0);
    EXPECT_EQ(r.tile[4 * t], v & 0xff);
    EXPECT_EQ(r.tile[4 * t + 3], v >> 24);
    EXPECT_TRUE(r.written[4 * t]);
  }
}

// cp.async.16 from a dense row-major source into a Swizzle<3,4,3> (byte-level SWIZZLE_128B on u8) tile:
// 16 B chunk j of row r lands at chunk j ^ (r % 8).
TEST(AccessRun, CpAsyncMovesSourceChunksToSwizzledPlaces) {
  const AccessPlan p =
      plan(access("Swizzle<3,4,3> o S[(8,128):(128,1)]", {8, 128}, DType::kU8, "cp.async.16"));
  ASSERT_EQ(p.source_offsets.size(), p.offsets.size());
  std::vector<uint8_t> src(1024);
  for (size_t b = 0; b < src.size(); ++b) src[b] = static_cast<uint8_t>(b * 7 + 3);
  const AccessRun r = run_access_on_host(p, src);
  const int row = 3, chunk = 5, byte = 2;
  EXPECT_EQ(r.tile[row * 128 + 16 * (chunk ^ row) + byte], src[row * 128 + 16 * chunk + byte]);
}

TEST(AccessCheck, NamesTheFirstWrongRegister) {
  const AccessPlan p = plan(access("S[(32,32):(32,1)]", {32, 32}, DType::kF32, "LDS.64"));
  std::vector<uint8_t> in(p.tile_bytes);
  for (size_t b = 0; b < in.size(); ++b) in[b] = static_cast<uint8_t>(b);
  AccessRun r = run_access_on_host(p, in);
  EXPECT_EQ(check_access(p, in, r.regs, r.tile), std::nullopt);
  r.regs[(3 * 32 + 5) * 2 + 1] ^= 1;
  const auto why = check_access(p, in, r.regs, r.tile);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("instruction 3, lane 5, register 1"), std::string::npos) << *why;
}

TEST(AccessCheck, NamesTheFirstWrongTileByte) {
  const AccessPlan p = plan(access("S[(32,32):(32,1)]", {32, 32}, DType::kF32, "STS.128"));
  AccessRun r = run_access_on_host(p, {});
  EXPECT_EQ(check_access(p, {}, r.regs, r.tile), std::nullopt);
  r.tile[100] ^= 0x80;
  const auto why = check_access(p, {}, r.regs, r.tile);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("shared byte 100"), std::string::npos) << *why;
}

TEST(AccessPlan, RefusesWhatAWarpDoesNotIssueLaneByLane) {
  WarpAccess tma{tma_layout(SwizzleMode::k128B, DType::kBF16, {64, 64}).value(),
                 {64, 64},
                 DType::kBF16,
                 instr("tma.128B"),
                 {},
                 std::nullopt};
  auto p = plan_access(tma);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().field, "instr");
  // A global access plans onto a global buffer, up to kMaxGlobalAccessBytes: 4 KiB here, 2^24 + 4 B there.
  auto g = plan_access(access("S[(32,32):(32,1)]", {32, 32}, DType::kF32, "LDG.32"));
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_EQ(g->tile_bytes, 4096);
  auto big = plan_access(access("S[(2,1025):(4194304,1)]", {2, 1025}, DType::kF32, "LDG.32", true));
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.error().field, "shape");
}

TEST(AccessPlan, RefusesATileLargerThanTheLabsSharedMemory) {
  auto p = plan_access(access("S[(256,256):(256,1)]", {256, 256}, DType::kF32, "LDS.128"));
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().field, "shape");
}

// LDG.16 by rows of a 4x64 u8 buffer: lane l of instruction 0 reads bytes 2l, 2l + 1 into the low half of
// its register (zero-extended); STG.8 stores the low byte of the lane's stored word at its offset.
TEST(AccessRun, GlobalLoadsAndStoresMoveTheirBytes) {
  const AccessPlan ld = plan(access("S[(4,64):(64,1)]", {4, 64}, DType::kU8, "LDG.16"));
  EXPECT_EQ(ld.instructions, 4);
  EXPECT_EQ(ld.words_per_lane, 1);
  EXPECT_EQ(ld.tile_bytes, 256);
  EXPECT_EQ(ld.offsets[3], 6);
  std::vector<uint8_t> in(256);
  for (size_t b = 0; b < in.size(); ++b) in[b] = static_cast<uint8_t>(b);
  const AccessRun r = run_access_on_host(ld, in);
  EXPECT_EQ(r.regs[3], 0x0706u);
  EXPECT_EQ(r.regs[32 + 1], 0x4342u);  // instruction 1 (row 1), lane 1: bytes 66 and 67
  const AccessPlan st = plan(access("S[(4,64):(64,1)]", {4, 64}, DType::kU8, "STG.8"));
  EXPECT_EQ(st.instructions, 8);  // 32 lanes x 1 B: half a row each
  const AccessRun w = run_access_on_host(st, {});
  EXPECT_EQ(w.tile.size(), 256u);
  EXPECT_EQ(w.tile[37], static_cast<uint8_t>(stored_word(1, 5, 0)));  // byte 37 = instruction 1, lane 5
  EXPECT_TRUE(w.written[37]);
  EXPECT_EQ(check_access(st, {}, {}, w.tile), std::nullopt);
  auto k = access_kernel_source(st);
  EXPECT_NE(k.text.find("st.global.u8 [%0], %1;"), std::string::npos) << k.text;
  // The offsets come from constant memory, 8 instructions x 32 lanes of them: no global load in the kernel.
  EXPECT_NE(k.text.find("__constant__ int layoutscope_offsets[256];"), std::string::npos) << k.text;
  EXPECT_EQ(k.text.find("ld.global"), std::string::npos) << k.text;
  EXPECT_EQ(k.text.find("cp.async"), std::string::npos) << k.text;
}

// 64 KiB of constant memory hold 512 instructions' offsets: a 128x128 fp32 tile by 4 B rows is 512, 256x128
// is 1024.
TEST(AccessPlan, GlobalAccessesRunAtMost512Instructions) {
  EXPECT_EQ(plan(access("S[(128,128):(128,1)]", {128, 128}, DType::kF32, "LDG.32")).instructions, 512);
  auto p = plan_access(access("S[(256,128):(128,1)]", {256, 128}, DType::kF32, "LDG.32"));
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().field, "shape");
}

TEST(AccessKernel, TextCarriesTheInstruction) {
  const AccessPlan p = plan(access("S[(64,64):(64,1)]", {64, 64}, DType::kBF16, "ldmatrix.x4.trans"));
  const KernelSource k = access_kernel_source(p);
  EXPECT_EQ(k.name, "layoutscope_access");
  EXPECT_EQ(k.threads, 32);
  EXPECT_EQ(k.blocks, 1);
  EXPECT_EQ(k.shared_bytes, 8192);
  EXPECT_NE(k.text.find("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4]"),
            std::string::npos)
      << k.text;
  EXPECT_NE(k.text.find("i < 16;"), std::string::npos);  // 64 x 64 / (4 matrices x 64 elements)
  const KernelSource lds =
      access_kernel_source(plan(access("S[(32,32):(32,1)]", {32, 32}, DType::kF32, "LDS.128")));
  EXPECT_NE(lds.text.find("ld.shared.v4.u32"), std::string::npos);
  EXPECT_NE(lds.hash, k.hash);
}

#ifdef LAYOUTSCOPE_NVCC
TEST(AccessKernel, EveryInstructionKindCompilesForSm90) {
  const char* instrs[] = {"LDS.32",      "LDS.64",      "LDS.128",           "STS.32",
                          "STS.64",      "STS.128",     "ldmatrix.x1",       "ldmatrix.x2.trans",
                          "ldmatrix.x4", "stmatrix.x4", "stmatrix.x2.trans", "cp.async.4",
                          "cp.async.8",  "cp.async.16"};
  const char* global[] = {"LDG.8", "LDG.16", "LDG.32", "LDG.64", "LDG.128",
                          "STG.8", "STG.16", "STG.32", "STG.64", "STG.128"};
  std::vector<std::pair<const char*, DType>> all;
  for (const char* name : instrs) all.emplace_back(name, DType::kBF16);
  for (const char* name : global) all.emplace_back(name, DType::kU8);
  const std::string dir = ::testing::TempDir();
  for (const auto& [name, dtype] : all) {
    const KernelSource k = access_kernel_source(plan(access("S[(32,64):(64,1)]", {32, 64}, dtype, name)));
    std::string file = name;
    for (char& c : file)
      if (c == '.') c = '_';
    const std::string cu = dir + "/access_" + file + ".cu", log = dir + "/access_" + file + ".log";
    std::ofstream(cu) << k.text;
    const std::string cmd = std::string(LAYOUTSCOPE_NVCC) + " -arch=sm_90 -cubin -o " + dir + "/access_" +
                            file + ".cubin " + cu + " > " + log + " 2>&1";
    const int status = std::system(cmd.c_str());
    std::stringstream out;
    out << std::ifstream(log).rdbuf();
    EXPECT_EQ(status, 0) << name << "\n" << out.str() << "\n" << k.text;
  }
}
#endif

}  // namespace
}  // namespace layoutscope::codegen
