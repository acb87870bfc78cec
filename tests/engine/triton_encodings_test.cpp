// Triton's encodings read element-exact: each layout checked against Triton 3.6's own linear layout of it
// (fixtures/triton/triton-linear.json, made by tests/gpu/triton_fixtures.py with Gluon's to_linear_layout)
// and against bases worked out by hand from Triton's rules (LinearLayoutConversions.cpp), plus the
// encodings of real dumps and what the importer refuses.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "layoutscope/formats/format.hpp"
#include "layoutscope/mapping.hpp"
#include "layoutscope/parse.hpp"

namespace layoutscope {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string bases_text(const nlohmann::json& bases) {
  std::string s = "[";
  for (size_t i = 0; i < bases.size(); ++i) {
    s += i ? ", [" : "[";
    for (size_t d = 0; d < bases[i].size(); ++d)
      s += (d ? ", " : "") + std::to_string(bases[i][d].get<int64_t>());
    s += "]";
  }
  return s + "]";
}

// Triton's answer as a #ttg.linear text: register, lane, warp, block bases as Gluon returned them.
std::string linear_text(const nlohmann::json& ok) {
  return "#ttg.linear<{register = " + bases_text(ok["reg_bases"]) +
         ", lane = " + bases_text(ok["lane_bases"]) + ", warp = " + bases_text(ok["warp_bases"]) +
         ", block = " + bases_text(ok["block_bases"]) + "}>";
}

Layout imported(const std::string& text, const std::vector<int64_t>& shape) {
  auto r = import_layout(Format::kTriton, text, FormatContext{shape, {}});
  EXPECT_TRUE(r.ok()) << text << ": " << (r.ok() ? "" : r.error().message);
  return r.ok() ? r->layout : Layout{};
}

TEST(TritonEncodings, AgreeWithTritonsOwnLinearLayouts) {
  const auto doc =
      nlohmann::json::parse(read_file(std::string(LAYOUTSCOPE_FIXTURES) + "/triton/triton-linear.json"));
  ASSERT_EQ(doc["triton"], "3.6.0");
  int checked = 0;
  for (const auto& e : doc["layouts"]) {
    if (!e.contains("ok")) continue;  // Triton could not convert it (its shared layouts abort)
    const std::vector<int64_t> shape = e["shape"].get<std::vector<int64_t>>();
    const Layout ours = imported(e["ttgir"].get<std::string>(), shape);
    const Layout theirs = imported(linear_text(e["ok"]), shape);
    EXPECT_EQ(to_string(ours), to_string(theirs)) << e["name"] << ": " << e["ttgir"];
    ++checked;
  }
  EXPECT_EQ(checked, 20);  // every distributed encoding of the list
}

// By hand from nvidiaMmaTile: kWidth = 2 registers and 4 lanes along N, 8 lanes along M, registers again
// at M + 8, then warps along M (v2: rows first) and the shape repeats registers along N, then M.
TEST(TritonEncodings, MmaV2ByHand) {
  const std::string mma =
      "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 1], instrShape = [16, 8]}>";
  const std::string want =
      "#ttg.linear<{register = [[0, 1], [8, 0], [0, 8], [32, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], "
      "[4, 0]], "
      "warp = [[16, 0]], block = []}>";
  EXPECT_EQ(to_string(imported(mma, {64, 16})), to_string(imported(want, {64, 16})));
}

// wgmma's accumulator: N = 32 of the instruction adds registers at N = 8 and 16; 4 warps along M.
TEST(TritonEncodings, MmaV3ByHand) {
  const std::string mma =
      "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 32, "
      "16]}>";
  const std::string want =
      "#ttg.linear<{register = [[0, 1], [8, 0], [0, 8], [0, 16]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], "
      "[4, 0]], "
      "warp = [[16, 0], [32, 0]], block = []}>";
  EXPECT_EQ(to_string(imported(mma, {64, 32})), to_string(imported(want, {64, 32})));
}

// The A operand of mma.m16n8k16 (kWidth = 2): a0 a1 at (g, 2t), (g, 2t+1), a2 a3 eight rows down, a4..a7
// eight columns right; lanes: t = lane % 4 along K, g = lane / 4 along M (PTX ISA, the m16n8k16 A fragment).
TEST(TritonEncodings, DotOperandAByHand) {
  const std::string dot =
      "#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, "
      "8]}>\n"
      "%a = ttg.local_load %s : !ttg.memdesc<16x16xf16, #shared, #smem> -> tensor<16x16xf16, "
      "#ttg.dot_op<{opIdx = 0, "
      "parent = #mma, kWidth = 2}>>";
  const std::string want =
      "#ttg.linear<{register = [[0, 1], [8, 0], [0, 8]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], "
      "warp = [], "
      "block = []}>";
  auto r = import_layout(Format::kTriton, dot, {});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->shape, (std::vector<int64_t>{16, 16}));
  EXPECT_EQ(to_string(r->layout), to_string(imported(want, {16, 16})));
}

// A slice of a blocked layout is a 1-D layout: the parent's bases without the sliced dimension, the registers
// that held only that dimension removed, the lanes and warps along it left as replicas.
TEST(TritonEncodings, SliceOfBlockedIsOneDimensional) {
  const std::string slice =
      "tensor<64xf32, #ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = "
      "[8, 4], "
      "warpsPerCTA = [4, 1], order = [1, 0]}>}>>";
  auto r = import_layout(Format::kTriton, slice, {});
  ASSERT_TRUE(r.ok()) << r.error().message;
  // dim 1 of the parent: registers 1, 2 then 16, 32 (64 / 16 repeats); lanes 4, 8; lanes and warps on dim 0
  // hold copies.
  const std::string want =
      "#ttg.linear<{register = [[1], [2], [16], [32]], lane = [[4], [8], [0], [0], [0]], warp = [[0], [0]], "
      "block = []}>";
  EXPECT_EQ(to_string(r->layout), to_string(imported(want, {64})));
}

TEST(TritonEncodings, PaddedSharedSkipsElementsAfterEachInterval) {
  // 64x64 row-major with 4 elements of padding after every 32: (r, c) at r * 72 + (c / 32) * 36 + c % 32.
  auto r =
      import_layout(Format::kTriton, "#ttg.padded_shared<[32:+4] {order = [1, 0], shape = [64, 64]}>", {});
  ASSERT_TRUE(r.ok()) << r.error().message;
  // Rows of 72 continue the 36-element halves, so the modes fuse: (64,2,32):(72,36,1) is (128,32):(36,1).
  EXPECT_EQ(to_string(r->layout), "S[(128,32):(36,1)]");
  auto t = table(r->layout, {64, 64});
  ASSERT_TRUE(t.ok());
  for (int64_t row = 0; row < 64; ++row)
    for (int64_t col = 0; col < 64; ++col)
      ASSERT_EQ(t->values[static_cast<size_t>(row * 64 + col)], row * 72 + (col / 32) * 36 + col % 32);
  // The offset form: the same identity written as bases.
  auto o = import_layout(
      Format::kTriton,
      "#ttg.padded_shared<[64:+4] {offset = [[1], [2], [4], [8], [16], [32], [64], [128]], block = []}>", {});
  ASSERT_TRUE(o.ok()) << o.error().message;
  EXPECT_EQ(to_string(o->layout), "S[(4,64):(68,1)]");
}

TEST(TritonEncodings, TensorMemoryRowsAreLanes) {
  auto r = import_layout(Format::kTriton,
                         "#ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>",
                         FormatContext{{128, 128}, {}});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(to_string(r->layout), "S[(128,128):(1@TLane,1@TCol)]");
  auto bad =
      import_layout(Format::kTriton, "#ttng.tensor_memory_encoding<blockM = 32, blockN = 128, colStride = 1>",
                    FormatContext{{64, 128}, {}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().field, "blockM");
}

// Every distributed layout in the fixture dumps reads, the alias of its parent resolved from the file.
TEST(TritonEncodings, DumpsAliasesResolve) {
  const std::string text = read_file(std::string(LAYOUTSCOPE_FIXTURES) + "/triton/ttgir-attention-sm90.mlir");
  ASSERT_FALSE(text.empty());
  // the file defines #mma; a dot operand naming it reads with the file around it
  auto r = import_layout(Format::kTriton,
                         text.substr(0, text.find("module")) +
                             "tensor<128x64xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>",
                         {});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->shape, (std::vector<int64_t>{128, 64}));
  auto missing =
      import_layout(Format::kTriton, "#ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>", {{16, 16}, {}});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("#mma is not defined"), std::string::npos);
  EXPECT_EQ(missing.error().column, 34);  // the '#' of #mma
}

TEST(TritonEncodings, RefusalsNameTheField) {
  struct Case {
    std::string text;
    std::vector<int64_t> shape;
    std::string field;
  };
  const Case cases[] = {
      {"#ttg.nvidia_mma<{versionMajor = 5, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>",
       {64, 64},
       "versionMajor"},
      {"#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [3, 1], instrShape = [16, 8]}>",
       {64, 64},
       "warpsPerCTA"},
      {"#ttg.dot_op<{opIdx = 1, parent = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = "
       "[4, 1], "
       "instrShape = [16, 64, 16]}>, kWidth = 2}>",
       {64, 64},
       "opIdx"},
      {"#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = "
       "[4, 1], "
       "instrShape = [16, 8]}>, kWidth = 3}>",
       {64, 64},
       "kWidth"},
      {"#ttg.slice<{dim = 3, parent = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], "
       "warpsPerCTA = [4, "
       "1], order = [1, 0]}>}>",
       {64},
       "dim"},
      {"#ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 4, 1], threadsPerWarp = [8, 4], "
       "warpsPerCTA = "
       "[4, 1], order = [1, 0]}>}>",
       {64},
       "sizePerThread"},
  };
  for (const Case& c : cases) {
    auto r = import_layout(Format::kTriton, c.text, FormatContext{c.shape, {}});
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(r.error().field, c.field) << c.text << ": " << r.error().message;
    EXPECT_GT(r.error().column, 0) << c.text;
  }
}

// Every layout exported to Triton imports back to the same layout (a swizzle whose shift is smaller than
// its width included).
TEST(TritonEncodings, ExportImportsBack) {
  for (const char* text : {"Swizzle<4,3,3> o S[(8,128,1):(128,1,1)]", "Swizzle<3,4,3> o S[(8,64):(64,1)]"}) {
    auto l = parse_layout(text);
    ASSERT_TRUE(l.ok()) << text;
    const std::vector<int64_t> shape = std::string(text).find("128,1,1") != std::string::npos
                                           ? std::vector<int64_t>{1024}
                                           : std::vector<int64_t>{8, 64};
    auto out = export_layout(Format::kTriton, *l, shape, {});
    ASSERT_TRUE(out.ok()) << out.error().message;
    auto back = import_layout(Format::kTriton, *out, FormatContext{shape, {}});
    ASSERT_TRUE(back.ok()) << *out << ": " << back.error().message;
    auto a = table(*l, shape);
    auto b = table(back->layout, shape);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(a->values, b->values) << text << " -> " << *out << " -> " << to_string(back->layout);
  }
}

}  // namespace
}  // namespace layoutscope
