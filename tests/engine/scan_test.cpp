// The dump scanner: aliases and their uses, each layout-moving op classified and costed with values worked
// out by hand from the bank model (32 banks of 4 B, 128 B a wavefront), and the fixture dumps of real
// kernels scanned without an issue.
#include "layoutscope/scan.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "layoutscope/formats/triton.hpp"
#include "layoutscope/parse.hpp"

namespace layoutscope::scan {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const OpCost* at_line(const ScanResult& r, int line) {
  for (const OpCost& o : r.ops)
    if (o.line == line) return &o;
  return nullptr;
}

const char* kDump =
    R"(#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [1, 0]}>
#row = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#same = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#a = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [0, 1]}>
#r1 = #ttg.linear<{register = [[0, 1], [1, 0]], lane = [[0, 2], [0, 4], [2, 0], [4, 0], [8, 0]], warp = [], block = []}>
#r2 = #ttg.linear<{register = [[1, 0], [0, 1]], lane = [[0, 2], [0, 4], [2, 0], [4, 0], [8, 0]], warp = [], block = []}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32} {
  tt.func public @k(%x: tensor<64x64xf32, #blocked>) {
    %0 = ttg.local_alloc %x : (tensor<64x64xf32, #blocked>) -> !ttg.memdesc<64x64xf32, #row, #smem>
    %1 = ttg.convert_layout %x : tensor<64x64xf32, #blocked> -> tensor<64x64xf32, #same>
    %2 = ttg.convert_layout %y : tensor<32x32xf32, #a> -> tensor<32x32xf32, #b>
    %3 = ttg.convert_layout %x : tensor<64x64xf32, #blocked> -> tensor<64x64xf32, #blocked1>
    %4 = ttg.convert_layout %z : tensor<16x8xf16, #r1> -> tensor<16x8xf16, #r2>
    %5 = mydialect.frobnicate %x : tensor<64x64xf32, #blocked>
    %6 = ttg.convert_layout %x : tensor<64x64xf32, #nowhere> -> tensor<64x64xf32, #blocked>
    tt.return
  }
}
)";

TEST(Scan, AliasesAndTheirUses) {
  const ScanResult r = scan_ttgir(kDump);
  ASSERT_EQ(r.aliases.size(), 8u);  // #smem is a memory space, not a layout
  EXPECT_EQ(r.aliases[0].name, "blocked");
  EXPECT_EQ(r.aliases[0].line, 1);
  EXPECT_EQ(r.aliases[0].kind, "ttg.blocked");
  EXPECT_EQ(r.aliases[0].uses, 6);  // the types of lines 11, 12, 13, 15, 17, 18 (not #blocked1's)
  ASSERT_EQ(r.unknown_ops.size(), 1u);
  EXPECT_EQ(r.unknown_ops[0].op, "mydialect.frobnicate");
  EXPECT_EQ(r.unknown_ops[0].line, 17);
}

// 64x64 f32 from #blocked into a plain row-major tile. A lane holds 4 contiguous f32 of a row: STS.128, 8
// lanes a wavefront. Lanes 0..7 are rows 0 and 1, columns 0..15: row 0 in banks 0..15, row 1 (256 B on)
// in banks 0..15 again, so each bank serves 2 words: 2 wavefronts for an ideal 1, 8 an instruction for 4.
// 4096 elements over 128 threads: 32 a thread, 8 vectors; 4 warps: 32 instructions, 256 wavefronts, 128
// ideal (16 KB / 128 B), 128 conflicts.
TEST(Scan, SharedStoreCostedByHand) {
  const ScanResult r = scan_ttgir(kDump);
  const OpCost* o = at_line(r, 12);
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->kind, "shared store");
  EXPECT_EQ(o->instruction, "STS.128");
  EXPECT_EQ(o->instructions, 32);
  EXPECT_EQ(o->wavefronts, 256);
  EXPECT_EQ(o->ideal_wavefronts, 128);
  EXPECT_EQ(o->conflicts, 128);
  EXPECT_EQ(o->shared_bytes, 64 * 64 * 4);
}

TEST(Scan, ConversionsClassified) {
  const ScanResult r = scan_ttgir(kDump);
  EXPECT_EQ(at_line(r, 13)->kind, "trivial");  // #same is #blocked spelled twice
  // order [1,0] vs [0,1] with the same warps: lanes are renumbered inside each warp.
  EXPECT_EQ(at_line(r, 14)->kind, "warp shuffle");
  // warps over rows vs over columns: elements change warps. 16 KB stored and loaded, 128 B a wavefront.
  const OpCost* trip = at_line(r, 15);
  EXPECT_EQ(trip->kind, "shared round trip");
  EXPECT_EQ(trip->shared_bytes, 16384);
  EXPECT_EQ(trip->ideal_wavefronts, 2 * 16384 / 128);
  // the two register bases swapped: same threads, registers renumbered.
  EXPECT_EQ(at_line(r, 16)->kind, "register permutation");
  // ranked: the conflicted store (256 wavefronts + 128 conflicts) before the round trip's ideal 256.
  EXPECT_EQ(r.ops[0].line, 12);
  EXPECT_EQ(r.ops[1].line, 15);
}

TEST(Scan, BadLayoutsAreIssuesNotFailures) {
  const ScanResult r = scan_ttgir(kDump);
  const OpCost* o = at_line(r, 18);
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->kind, "unread");
  ASSERT_FALSE(r.issues.empty());
  bool named = false;
  for (const Issue& i : r.issues)
    if (i.line == 18 && i.message.find("#nowhere") != std::string::npos) named = true;
  EXPECT_TRUE(named);
  // garbage is never fatal
  const ScanResult g = scan_ttgir("%0 = ttg.convert_layout %x : tensor<4x\n#a = #ttg.blocked<{\n\x01\xff");
  EXPECT_EQ(g.lines, 3);
  // a result with no op after its " = " (the fuzzer's case: the op name was read past the line's end)
  const ScanResult cut = scan_ttgir("%0 = ttg.local_load %a\n    %1 = ");
  EXPECT_EQ(cut.lines, 2);
}

// The fixture dumps: every alias reads, every layout-moving op is found. The attention kernel (H200,
// Triton 3.6) has 11: a Q store, K/V buffers, six cp.async copies, a trivial MMA -> dot operand (v3
// accumulator registers are the A operand's) and the epilogue's round trip from #mma to #blocked.
// An alias is read on the largest type whose layout it is (the first of them): #blocked on line 11's
// tensor<64x64xf32>, #row on line 12's memdesc (a 64x64 f32 tile, row after row: vec = 1 and maxPhase = 1
// swizzle nothing, so element (r, c) sits at offset 64 r + c). An alias named only inside another attribute
// (#mma as a dot_op's parent) has no shape of its own.
TEST(Scan, AliasesReadOnTheirFirstUse) {
  const ScanResult r = scan_ttgir(kDump);
  const Alias& blocked = r.aliases[0];
  EXPECT_EQ(blocked.shape, (std::vector<int64_t>{64, 64}));
  EXPECT_EQ(blocked.dtype, "f32");
  EXPECT_EQ(blocked.element_bits, 32);
  EXPECT_EQ(blocked.error, "");
  // written back as Triton's blocked encoding, it is the alias's own text
  auto layout = parse_layout(blocked.axe);
  ASSERT_TRUE(layout.ok()) << blocked.axe;
  auto text = export_triton_encoding(*layout, blocked.shape, TritonEncoding::kBlocked);
  ASSERT_TRUE(text.ok()) << text.error().message;
  EXPECT_EQ(*text, blocked.text);
  const Alias& row = r.aliases[2];
  ASSERT_EQ(row.name, "row");
  EXPECT_EQ(row.shape, (std::vector<int64_t>{64, 64}));
  EXPECT_EQ(row.axe, "S[(64,64):(64,1)]");

  const ScanResult parent = scan_ttgir(
      "#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, "
      "8]}>\n"
      "#dot = #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>\n"
      "%a = ttg.convert_layout %x : tensor<64x32xf16, #row> -> tensor<64x32xf16, #dot>\n");
  ASSERT_EQ(parent.aliases.size(), 2u);
  EXPECT_EQ(parent.aliases[0].uses, 0);
  EXPECT_TRUE(parent.aliases[0].shape.empty());
  EXPECT_EQ(parent.aliases[0].axe, "");
  EXPECT_EQ(parent.aliases[1].shape, (std::vector<int64_t>{64, 32}));
  EXPECT_EQ(parent.aliases[1].dtype, "f16");
  EXPECT_EQ(parent.aliases[1].element_bits, 16);
  EXPECT_NE(parent.aliases[1].axe, "");
}

// Every blocked, swizzled_shared and nvmma_shared alias Triton 3.6 printed in the fixture dumps, as the scan
// reads it (on the shape and element width of its first use), exports back to Triton's own text: what the
// page's export of an alias shows.
TEST(Scan, FixtureAliasesExportToTritonsText) {
  const std::string dir = std::string(LAYOUTSCOPE_FIXTURES) + "/triton/";
  int checked = 0;
  for (const char* name :
       {"ttgir-attention-sm90.mlir", "ttgir-layernorm-sm90.mlir", "ttgir-matmul-sm100.mlir",
        "ttgir-matmul-sm80.mlir", "ttgir-matmul-sm90.mlir", "ttgir-transpose-sm90.mlir"}) {
    const ScanResult r = scan_ttgir(read_file(dir + name));
    for (const Alias& a : r.aliases) {
      TritonEncoding kind;
      if (a.kind == "ttg.blocked") {
        kind = TritonEncoding::kBlocked;
      } else if (a.kind == "ttg.swizzled_shared") {
        kind = TritonEncoding::kSwizzledShared;
      } else if (a.kind == "ttg.nvmma_shared") {
        kind = TritonEncoding::kNvmmaShared;
      } else {
        continue;
      }
      ASSERT_FALSE(a.axe.empty()) << name << " #" << a.name << ": " << a.error;
      auto layout = parse_layout(a.axe);
      ASSERT_TRUE(layout.ok()) << a.axe;
      auto text = export_triton_encoding(*layout, a.shape, kind, a.element_bits);
      ASSERT_TRUE(text.ok()) << name << " #" << a.name << ": " << text.error().message;
      EXPECT_EQ(*text, a.text) << name << " #" << a.name;
      ++checked;
    }
  }
  EXPECT_GE(checked, 15);
}

TEST(Scan, FixtureDumpsScanClean) {
  const std::string dir = std::string(LAYOUTSCOPE_FIXTURES) + "/triton/";
  for (const char* name : {"ttgir-attention-sm90.mlir", "ttgir-layernorm-sm90.mlir",
                           "ttgir-matmul-sm100.mlir", "ttgir-matmul-sm80.mlir"}) {
    const ScanResult r = scan_ttgir(read_file(dir + name));
    EXPECT_TRUE(r.issues.empty()) << name << ": " << (r.issues.empty() ? "" : r.issues[0].message);
    EXPECT_TRUE(r.unknown_ops.empty()) << name << ": " << (r.unknown_ops.empty() ? "" : r.unknown_ops[0].op);
    for (const Alias& a : r.aliases) EXPECT_GT(a.uses, 0) << name << " #" << a.name;
  }
  const ScanResult att = scan_ttgir(read_file(dir + "ttgir-attention-sm90.mlir"));
  EXPECT_EQ(att.ops.size(), 11u);
  int copies = 0;
  for (const OpCost& o : att.ops) copies += o.kind == "global to shared";
  EXPECT_EQ(copies, 6);
  // 128x64 f16 epilogue: 16 KB each way.
  EXPECT_EQ(att.ops.front().kind, "shared round trip");
  EXPECT_EQ(att.ops.front().shared_bytes, 128 * 64 * 2);
}

}  // namespace
}  // namespace layoutscope::scan

namespace layoutscope::scan {
namespace {

// Nsight Compute on an H200 (fixtures/triton/ncu-h200-shared.csv, one launch each, made by
// tests/gpu/triton_fixtures.py): a kernel's LSU shared wavefronts (ld + st + ldsm + stsm), summed over the
// grid, divided by its CTAs, against the scan's wavefronts of the ops that move registers through shared
// memory (stores, loads, round trips). The loop's cp.async copies are left out: ncu counts 4 ldgsts
// wavefronts per Triton cp.async.16 (40960 for 10240 in the matmul), the engine's cp.async model counts 0 for
// cp.async.16 (measured on its own cp.async.cg kernels), a difference the scan does not settle.
int64_t ncu_per_cta(const std::string& csv, const std::string& kernel) {
  std::istringstream in(csv);
  std::string line;
  int64_t sum = 0, ctas = 0;
  while (std::getline(in, line)) {
    if (line.rfind(kernel + ",", 0) != 0) continue;
    const size_t grid_open = line.find("\"(");
    const size_t grid_close = line.find(")\"", grid_open);
    int64_t x = 0, y = 0, z = 0;
    if (std::sscanf(line.substr(grid_open + 2, grid_close - grid_open - 2).c_str(), "%ld, %ld, %ld", &x, &y,
                    &z) == 3)
      ctas = x * y * z;
    for (const char* op : {"_op_ld.sum", "_op_st.sum", "_op_ldsm.sum", "_op_stsm.sum"})
      if (line.find(std::string("wavefronts_mem_shared") + op) != std::string::npos)
        sum += std::stoll(line.substr(line.rfind(',') + 1));
  }
  return ctas ? sum / ctas : -1;
}

TEST(Scan, SharedWavefrontsEqualNsightCompute) {
  const std::string dir = std::string(LAYOUTSCOPE_FIXTURES) + "/triton/";
  const std::string csv = read_file(dir + "ncu-h200-shared.csv");
  struct Kernel {
    const char* name;
    const char* dump;
  };
  for (const Kernel& k :
       {Kernel{"transpose", "ttgir-transpose-sm90.mlir"}, Kernel{"matmul", "ttgir-matmul-sm90.mlir"},
        Kernel{"attention", "ttgir-attention-sm90.mlir"}}) {
    const ScanResult r = scan_ttgir(read_file(dir + k.dump));
    int64_t predicted = 0;
    for (const OpCost& o : r.ops)
      if (o.kind == "shared store" || o.kind == "shared load" || o.kind == "shared round trip")
        predicted += o.wavefronts;
    EXPECT_EQ(predicted, ncu_per_cta(csv, k.name)) << k.name;
  }
  // The values themselves: transpose 128 + 128 (64x64 f32 each way), matmul 256 + 256 (128x128 f16),
  // attention 128 (Q stored) + 128 + 128 (128x64 f16 epilogue).
  EXPECT_EQ(ncu_per_cta(csv, "transpose"), 256);
  EXPECT_EQ(ncu_per_cta(csv, "matmul"), 512);
  EXPECT_EQ(ncu_per_cta(csv, "attention"), 384);
}

// A metric of one kernel in the ncu CSV, summed over its rows.
int64_t ncu_metric(const std::string& csv, const std::string& kernel, const std::string& metric) {
  std::istringstream in(csv);
  std::string line;
  int64_t sum = 0;
  while (std::getline(in, line))
    if (line.rfind(kernel + ",", 0) == 0 && line.find("," + metric + ",") != std::string::npos)
      sum += std::stoll(line.substr(line.rfind(',') + 1));
  return sum;
}

// Triton's cp.async.16 copies (ttg.async_copy_global_to_local): ncu counted 4 ldgsts wavefronts an
// instruction on the H200 (matmul 40,960 for 10,240; attention 20,480 for 5,120), conflict-free.
TEST(Scan, AsyncCopiesCostFourWavefrontsAnInstruction) {
  const std::string dir = std::string(LAYOUTSCOPE_FIXTURES) + "/triton/";
  const std::string csv = read_file(dir + "ncu-h200-shared.csv");
  for (const char* kernel : {"matmul", "attention"}) {
    const int64_t w =
        ncu_metric(csv, kernel, "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum");
    const int64_t n = ncu_metric(csv, kernel, "smsp__sass_inst_executed_op_ldgsts.sum");
    ASSERT_GT(n, 0) << kernel;
    EXPECT_EQ(w, 4 * n) << kernel;
    EXPECT_EQ(ncu_metric(csv, kernel, "sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum"),
              0);
    const ScanResult r = scan_ttgir(read_file(dir + "ttgir-" + kernel + "-sm90.mlir"));
    int copies = 0;
    for (const OpCost& o : r.ops) {
      // (attention's K copy runs along dimension 0 into a transposed NVMMA layout: costed transposed)
      if (o.op != "ttg.async_copy_global_to_local") continue;
      ++copies;
      EXPECT_EQ(o.instruction, "cp.async.16") << kernel << " line " << o.line;
      EXPECT_GT(o.instructions, 0);
      EXPECT_EQ(o.wavefronts, w / n * o.instructions) << kernel << " line " << o.line;
      EXPECT_EQ(o.conflicts, 0);
    }
    EXPECT_GT(copies, 0) << kernel;
  }
}

// One byte a lane: a 32x32 i8 tile whose warps hold a row each (lane l: column l) stored row-major. Each
// STS.8 writes 32 consecutive bytes, 8 words in 8 banks -> 1 wavefront; 32 rows -> 32 instructions, 32.
// Stored column-major instead (order [0, 1]), lane l writes byte 32 l: banks 0, 8, 16, 24 with 8 words
// each -> 8 wavefronts an instruction, 256 in all.
TEST(Scan, OneByteLanesCosted) {
  const char* dump =
      R"(#b = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#row = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#col = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32} {
  tt.func public @k(%x: tensor<32x32xi8, #b>) {
    %0 = ttg.local_alloc %x : (tensor<32x32xi8, #b>) -> !ttg.memdesc<32x32xi8, #row, #smem>
    %1 = ttg.local_alloc %x : (tensor<32x32xi8, #b>) -> !ttg.memdesc<32x32xi8, #col, #smem>
    tt.return
  }
}
)";
  const ScanResult r = scan_ttgir(dump);
  const OpCost* row = at_line(r, 7);
  const OpCost* col = at_line(r, 8);
  ASSERT_NE(row, nullptr);
  ASSERT_NE(col, nullptr);
  EXPECT_EQ(row->instruction, "STS.8");
  EXPECT_EQ(row->instructions, 32);
  EXPECT_EQ(row->wavefronts, 32);
  EXPECT_EQ(row->conflicts, 0);
  EXPECT_EQ(col->instruction, "STS.8");
  EXPECT_EQ(col->wavefronts, 256);
  EXPECT_EQ(col->conflicts, 224);
}

// CuTe print() output pasted from a log. The notation worked out by hand: CuTe's first mode is fastest, so
// (8,4):(4,1) sends (i, j) to 4i + j (row-major 8x4); a nested mode's sub-modes reverse into the notation's
// order, most significant first: ((2,2),4):((1,4),2) has dimension 0 = (2,2):(4,1) and dimension 1 = 4:2.
TEST(Scan, CutePrintOutputRead) {
  const char* log = R"(layout: (_8,_4):(_4,_1)
sA : Sw<3,4,3> o _0 o (_8,_64):(_64,_1)
((_2,_2),_4):((_1,_4),_2)
tC : ptr[32b](0x7ffd2a40) o (_4,_8):(_1,_4):
    0.00    1.00
(_8,_4):(_4,_1)
      0    1    2    3
    +----+----+----+----+
 0  |  0 |  1 |  2 |  3 |
#loc3 = loc("kernel.py":12:5)
64:1
at 12:30 the run had (2,3):(oops,1)
)";
  const ScanResult r = scan_ttgir(log);
  ASSERT_EQ(r.cute_layouts.size(), 7u);
  const auto& c = r.cute_layouts;
  EXPECT_EQ(c[0].text, "(_8,_4):(_4,_1)");
  EXPECT_EQ(c[0].line, 1);
  EXPECT_EQ(c[0].column, 9);
  EXPECT_EQ(c[0].axe, "S[(8,4):(4,1)]");
  EXPECT_EQ(c[0].shape, (std::vector<int64_t>{8, 4}));
  EXPECT_EQ(c[0].size, 32);
  EXPECT_EQ(c[1].text, "Sw<3,4,3> o _0 o (_8,_64):(_64,_1)");
  EXPECT_EQ(c[1].column, 6);
  EXPECT_EQ(c[1].axe, "Swizzle<3,4,3> o S[(8,64):(64,1)]");
  EXPECT_EQ(c[2].axe, "S[(2,2,4):(4,1,2)]");
  EXPECT_EQ(c[2].shape, (std::vector<int64_t>{4, 4}));
  EXPECT_EQ(c[3].text, "(_4,_8):(_1,_4)");  // the print_tensor header, its pointer and ':' left out
  EXPECT_EQ(c[3].context, "print_tensor");
  EXPECT_EQ(c[3].axe, "S[(4,8):(1,4)]");
  EXPECT_EQ(c[4].line, 6);       // print_layout's header; the table below it holds no layout
  EXPECT_EQ(c[5].text, "64:1");  // a bare integer layout only as a whole line (not the loc's 12:5)
  EXPECT_EQ(c[5].line, 11);
  EXPECT_EQ(c[6].line, 12);  // (2,3):(oops,1) is not a stride: listed with its error, and an issue
  EXPECT_FALSE(c[6].error.empty());
  EXPECT_EQ(c[6].text, "(2,3):(oops,1)");
}

}  // namespace
}  // namespace layoutscope::scan
