// Triton's encodings read element-exact: each layout checked against Triton 3.6's own linear layout of it
// (fixtures/triton/triton-linear.json, made by tests/gpu/triton_fixtures.py with Gluon's to_linear_layout)
// and against bases worked out by hand from Triton's rules (LinearLayoutConversions.cpp), plus the
// encodings of real dumps and what the importer refuses.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "layoutscope/formats/format.hpp"
#include "layoutscope/formats/triton.hpp"
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
  // Gluon's spelling of the same layout (PaddedSharedLayout.with_identity_for(pairs, shape, order)), the one
  // tests/gpu/triton_fixtures.py wrote for padded_64x64: the same offsets.
  for (const char* gluon : {"gl.PaddedSharedLayout.with_identity_for([[32, 4]], [64, 64], [1, 0])",
                            "PaddedSharedLayout.with_identity_for(interval_padding_pairs=[[32, 4]], "
                            "shape=[64, 64], order=[1, 0])"}) {
    auto g = import_layout(Format::kTriton, gluon, FormatContext{{64, 64}, {}});
    ASSERT_TRUE(g.ok()) << gluon << ": " << g.error().message;
    EXPECT_EQ(to_string(g->layout), "S[(128,32):(36,1)]") << gluon;
  }
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
  // a type whose layout alias the text does not define: named, at its '#'
  const std::string type = "tensor<64x64xf32, #nope>";
  auto undefined = import_layout(Format::kTriton, type, {{64, 64}, {}});
  ASSERT_FALSE(undefined.ok());
  EXPECT_NE(undefined.error().message.find("#nope is not defined in the text"), std::string::npos)
      << undefined.error().message;
  EXPECT_EQ(undefined.error().column, static_cast<int>(type.find('#')) + 1);
  // defined further down: read (the MMA fragment of the linear example, lane 5 at (1,2))
  auto later =
      import_layout(Format::kTriton,
                    "tensor<16x8xf16, #lin>\n#lin = #ttg.linear<{register = [[0, 1], [8, 0]], lane = "
                    "[[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [], block = []}>",
                    {{16, 8}, {}});
  ASSERT_TRUE(later.ok()) << later.error().message;
  EXPECT_EQ(to_string(later->layout), "S[(2,8,4,2):(2@reg,4@laneid,1@laneid,1@reg)]");
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

// MMA "v5": Triton defines the register layout of #ttg.nvidia_mma for versions 2 and 3 only
// (NvidiaMmaEncodingAttr::toLinearLayout) and its matmul pass makes no other; on sm_100 the accumulator is
// #ttng.tensor_memory_encoding (ttgir-matmul-sm100.mlir, line 8). The refusal says so at the version's
// column; a version Triton never prints gets its own reason.
TEST(TritonEncodings, MmaVersionFiveRefusedWithTheReason) {
  const std::string v5 =
      "#ttg.nvidia_mma<{versionMajor = 5, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [128, 128, "
      "16]}>";
  auto r = import_layout(Format::kTriton, v5, FormatContext{{128, 128}, {}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "versionMajor");
  EXPECT_EQ(r.error().column, static_cast<int>(v5.find("5,")) + 1);
  for (const char* words : {"versions 2 (mma.sync) and 3 (wgmma) only", "#ttng.tensor_memory_encoding",
                            "ttng.tmem_load", "#ttg.linear"})
    EXPECT_NE(r.error().message.find(words), std::string::npos) << words << " in: " << r.error().message;
  const std::string v1 =
      "#ttg.nvidia_mma<{versionMajor = 1, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>";
  auto old = import_layout(Format::kTriton, v1, FormatContext{{64, 64}, {}});
  ASSERT_FALSE(old.ok());
  EXPECT_EQ(old.error().column, static_cast<int>(v1.find("1,")) + 1);
  EXPECT_NE(old.error().message.find("not a version Triton prints"), std::string::npos)
      << old.error().message;
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

namespace layoutscope {
namespace {

// The shape of the first tensor or memdesc type in `text` that uses alias #name ("128x64xf16, #name").
std::vector<int64_t> shape_using(const std::string& text, const std::string& name) {
  for (const std::string& tail : {", #" + name + ">", ", #" + name + ","}) {
    const size_t at = text.find(tail);
    if (at == std::string::npos) continue;
    const size_t open = text.rfind('<', at);
    std::vector<int64_t> dims;
    std::stringstream in(text.substr(open + 1, at - open - 1));
    std::string part;
    while (std::getline(in, part, 'x'))
      if (!part.empty() && std::isdigit(static_cast<unsigned char>(part[0])))
        dims.push_back(std::stoll(part));
    return dims;
  }
  return {};
}

// Triton printed these aliases in the fixture dumps (Triton 3.6 on the H200): each one, read on the shape of
// a type that uses it and written back as its named encoding, gives Triton's own text.
TEST(TritonEncodings, NamedExportsGiveTritonsOwnText) {
  int checked = 0;
  for (const char* dump :
       {"ttgir-attention-sm90.mlir", "ttgir-layernorm-sm90.mlir", "ttgir-matmul-sm100.mlir",
        "ttgir-matmul-sm80.mlir", "ttgir-matmul-sm90.mlir", "ttgir-transpose-sm90.mlir"}) {
    const std::string text = read_file(std::string(LAYOUTSCOPE_FIXTURES) + "/triton/" + dump);
    std::stringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
      if (line.empty() || line[0] != '#') continue;
      const size_t eq = line.find(" = #ttg.");
      if (eq == std::string::npos) continue;
      const std::string name = line.substr(1, eq - 1);
      const std::string attr = line.substr(eq + 3);
      TritonEncoding kind;
      int bits = 0;
      if (attr.rfind("#ttg.blocked<", 0) == 0) {
        kind = TritonEncoding::kBlocked;
      } else if (attr.rfind("#ttg.swizzled_shared<", 0) == 0) {
        kind = TritonEncoding::kSwizzledShared;
      } else if (attr.rfind("#ttg.nvmma_shared<", 0) == 0) {
        kind = TritonEncoding::kNvmmaShared;
        bits = std::stoi(attr.substr(attr.find("elementBitWidth = ") + 18));
      } else {
        continue;
      }
      std::vector<int64_t> shape = shape_using(text, name);
      ASSERT_FALSE(shape.empty()) << dump << " #" << name;
      if (kind != TritonEncoding::kBlocked) {  // a memdesc's leading dimensions are buffers of the layout
        size_t rank = 2;
        if (kind == TritonEncoding::kSwizzledShared) {
          const std::string order = attr.substr(attr.find("order = ["));
          rank = 1 + static_cast<size_t>(std::count(order.begin(), order.begin() + order.find(']'), ','));
        }
        if (shape.size() > rank) shape.erase(shape.begin(), shape.end() - static_cast<long>(rank));
      }
      auto imported = import_layout(Format::kTriton, attr, FormatContext{shape, {}});
      ASSERT_TRUE(imported.ok()) << dump << " #" << name << ": " << imported.error().message;
      auto written = export_triton_encoding(imported->layout, shape, kind, bits);
      ASSERT_TRUE(written.ok()) << dump << " #" << name << ": " << written.error().message;
      EXPECT_EQ(*written, attr) << dump << " #" << name;
      ++checked;
    }
  }
  EXPECT_GE(checked, 15);
}

// By hand from Triton's blocked rule: 2 registers along a row, 8 x 4 lanes, one warp, on 16 x 8 the tile
// (8 x 8) repeats its registers along dimension 0 -- the MMA-like fragment of the linear example above.
TEST(TritonEncodings, NamedExportsAndWhyNot) {
  const auto blocked_layout = parse_layout("S[(2,8,4,2):(2@reg,4@laneid,1@laneid,1@reg)]");
  auto blocked = export_triton_encoding(*blocked_layout, {16, 8}, TritonEncoding::kBlocked);
  ASSERT_TRUE(blocked.ok()) << blocked.error().message;
  EXPECT_EQ(*blocked,
            "#ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = "
            "[1, 0]}>");
  // SWIZZLE_128B on f16 rows of 64: 8-element groups, phase = row % 8
  const Layout sw = *parse_layout("Swizzle<3,3,3> o S[(64,64):(64,1)]");
  EXPECT_EQ(*export_triton_encoding(sw, {64, 64}, TritonEncoding::kSwizzledShared),
            "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>");
  EXPECT_EQ(*export_triton_encoding(sw, {64, 64}, TritonEncoding::kNvmmaShared, 16),
            "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>");
  // auto: the named one where it fits, the linear one where none does
  EXPECT_EQ(export_triton_encoding(sw, {64, 64}, TritonEncoding::kAuto)->rfind("#ttg.swizzled_shared", 0),
            0u);
  const Layout odd = *parse_layout("Swizzle<3,3,-1> o S[(8,128):(128,1)]");
  EXPECT_EQ(export_triton_encoding(odd, {8, 128}, TritonEncoding::kAuto)->rfind("#ttg.shared_linear", 0), 0u);
  // why not, named in the error
  auto in_shared = export_triton_encoding(sw, {64, 64}, TritonEncoding::kBlocked);
  ASSERT_FALSE(in_shared.ok());
  EXPECT_NE(in_shared.error().message.find("shared memory (@m)"), std::string::npos);
  // and which encoding does write it: shared_linear for offsets, linear for registers
  EXPECT_NE(in_shared.error().message.find("(#ttg.shared_linear writes it)"), std::string::npos);
  for (TritonEncoding shared : {TritonEncoding::kSwizzledShared, TritonEncoding::kNvmmaShared}) {
    auto in_registers = export_triton_encoding(*blocked_layout, {16, 8}, shared, 16);
    ASSERT_FALSE(in_registers.ok());
    EXPECT_NE(in_registers.error().message.find("in registers"), std::string::npos);
    EXPECT_NE(in_registers.error().message.find("(#ttg.linear writes it)"), std::string::npos)
        << in_registers.error().message;
  }
  auto few_lanes =
      export_triton_encoding(*parse_layout("S[(4,4):(4@laneid,1@laneid)]"), {4, 4}, TritonEncoding::kBlocked);
  ASSERT_FALSE(few_lanes.ok());
  EXPECT_NE(few_lanes.error().message.find("uses 16 lanes"), std::string::npos) << few_lanes.error().message;
  auto xor_rows = export_triton_encoding(odd, {8, 128}, TritonEncoding::kSwizzledShared);
  ASSERT_FALSE(xor_rows.ok());
  EXPECT_EQ(xor_rows.error().field, "encoding");
  auto wrong_bits = export_triton_encoding(sw, {64, 64}, TritonEncoding::kNvmmaShared, 32);
  ASSERT_FALSE(wrong_bits.ok());  // 128 B rows of 32-bit elements swizzle 4-element groups, not 8
  EXPECT_NE(wrong_bits.error().message.find("32-bit"), std::string::npos);
  EXPECT_FALSE(parse_triton_encoding("mma").ok());
}

}  // namespace
}  // namespace layoutscope
