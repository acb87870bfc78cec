// Triton's tensor memory encodings read element-exact. The expected places are worked out by hand from
// Triton's own description of tensor memory blocks (TritonNvidiaGPUAttrDefs.td: the 128x128xf32, blockM = 64,
// blockN = 32 table), its rule for colStride ("the stride in elements along the column dimension"; 1 is
// packed) and its construction of the linear layouts (tensorMemoryToLinearLayout,
// tensorMemoryScalesToLinearLayout: blocks, then M repeats, then N repeats along columns), and from PTX's
// scale-factor layout (a 128 x 4 atom: row m in lane m % 32 of every slab, column m / 32, byte k).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "layoutscope/formats/format.hpp"
#include "layoutscope/mapping.hpp"
#include "layoutscope/parse.hpp"
#include "layoutscope/tcgen05.hpp"

namespace layoutscope {
namespace {

using Place = std::map<std::string, int64_t>;

Imported must_import(const std::string& text, std::vector<int64_t> shape = {}) {
  auto r = import_layout(Format::kTriton, text, FormatContext{std::move(shape), {}});
  EXPECT_TRUE(r.ok()) << text << ": " << (r.ok() ? "" : r.error().message);
  return r.ok() ? *r : Imported{};
}

// Every TMEM place of element (r, c): lane, column and byte (absent axes are 0).
std::vector<Place> places(const Imported& imp, int64_t r, int64_t c) {
  std::vector<Place> out;
  auto m = forward_coord(imp.layout, imp.shape, {r, c});
  EXPECT_TRUE(m.ok());
  if (!m.ok()) return out;
  const auto axes = layout_axes(imp.layout);
  for (const Position& p : m->positions) {
    Place one{{"TLane", 0}, {"TCol", 0}, {"byte", 0}};
    for (size_t a = 0; a < axes.size(); ++a) one[axes[a]] = p.values[a];
    out.push_back(one);
  }
  return out;
}

Place at(int64_t lane, int64_t col, int64_t byte = 0) {
  return {{"TLane", lane}, {"TCol", col}, {"byte", byte}};
}

TEST(TritonTmem, DocumentedBlockM64Table) {
  // Triton's table: <128x128xf32>, blockM = 64, blockN = 32. TMEM row 16 holds tensor row 64, row 31 row 79,
  // row 32 row 16, row 127 row 127; columns are the tensor's columns.
  const auto imp = must_import(
      "!ttg.memdesc<128x128xf32, #ttng.tensor_memory_encoding<blockM = 64, blockN = 32, colStride = 1>, "
      "#ttng.tensor_memory>");
  EXPECT_EQ(places(imp, 0, 0), std::vector<Place>{at(0, 0)});
  EXPECT_EQ(places(imp, 15, 127), std::vector<Place>{at(15, 127)});
  EXPECT_EQ(places(imp, 64, 0), std::vector<Place>{at(16, 0)});
  EXPECT_EQ(places(imp, 79, 31), std::vector<Place>{at(31, 31)});
  EXPECT_EQ(places(imp, 16, 32), std::vector<Place>{at(32, 32)});
  EXPECT_EQ(places(imp, 127, 127), std::vector<Place>{at(127, 127)});
  // the whole table: 16 rows per slab, slab s holding rows 16s..16s+15 in its first 16 lanes and 64 + those
  // in its last 16
  for (int64_t r = 0; r < 128; ++r)
    for (int64_t c = 0; c < 128; c += 7)
      ASSERT_EQ(places(imp, r, c), std::vector<Place>{at(r % 16 + 16 * (r / 64) + 32 * ((r / 16) % 4), c)})
          << r << "," << c;
}

TEST(TritonTmem, BlockM64NarrowTensors) {
  // 64 rows: the last 16 lanes of each slab hold the next blockN columns, or nothing when there are none
  const auto wide =
      must_import("#ttng.tensor_memory_encoding<blockM = 64, blockN = 64, colStride = 1>", {64, 128});
  for (int64_t r = 0; r < 64; r += 5)
    for (int64_t c = 0; c < 128; c += 9)
      ASSERT_EQ(places(wide, r, c), std::vector<Place>{at(r % 16 + 32 * (r / 16) + 16 * (c / 64), c % 64)});
  const auto narrow =
      must_import("#ttng.tensor_memory_encoding<blockM = 64, blockN = 64, colStride = 1>", {64, 64});
  EXPECT_EQ(places(narrow, 17, 3), std::vector<Place>{at(33, 3)});
  EXPECT_EQ(places(narrow, 63, 63), std::vector<Place>{at(111, 63)});
}

TEST(TritonTmem, RepeatsAlongColumnsMThenN) {
  // 256 x 128 f32 in blocks of 128 x 64: the second block of rows follows the first block's 64 columns,
  // then the second block of columns
  const auto imp = must_import(
      "!ttg.memdesc<256x128xf32, #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>>");
  for (int64_t r = 0; r < 256; r += 11)
    for (int64_t c = 0; c < 128; c += 3)
      ASSERT_EQ(places(imp, r, c), std::vector<Place>{at(r % 128, c % 64 + 64 * (r / 128) + 128 * (c / 64))});
}

TEST(TritonTmem, ColStrideAndElementWidth) {
  // f16 packed (colStride 1): two elements to a 32-bit column, the second in bytes 2-3
  const auto packed = must_import(
      "!ttg.memdesc<128x64xf16, #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>>");
  EXPECT_EQ(places(packed, 5, 0), std::vector<Place>{at(5, 0, 0)});
  EXPECT_EQ(places(packed, 5, 1), std::vector<Place>{at(5, 0, 2)});
  EXPECT_EQ(places(packed, 127, 63), std::vector<Place>{at(127, 31, 2)});
  // f16 with colStride 2: one element a column, the other half undefined
  const auto unpacked = must_import(
      "!ttg.memdesc<128x64xf16, #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 2>>");
  EXPECT_EQ(places(unpacked, 5, 1), std::vector<Place>{at(5, 1, 0)});
  EXPECT_EQ(places(unpacked, 127, 63), std::vector<Place>{at(127, 63, 0)});
  // f8 packed four to a column, f8 with colStride 2 two to a column
  const auto f8 = must_import(
      "!ttg.memdesc<128x64xf8E4M3FN, #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = "
      "1>>");
  EXPECT_EQ(places(f8, 0, 7), std::vector<Place>{at(0, 1, 3)});
  const auto f8s2 = must_import(
      "!ttg.memdesc<128x64xf8E4M3FN, #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = "
      "2>>");
  EXPECT_EQ(places(f8s2, 0, 7), std::vector<Place>{at(0, 3, 2)});
  // no element type: colStride 2 is read as 16-bit elements, one a column
  const auto untyped =
      must_import("#ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 2>", {128, 64});
  EXPECT_EQ(places(untyped, 3, 9), std::vector<Place>{at(3, 9, 0)});
}

TEST(TritonTmem, Refusals) {
  auto wide = import_layout(
      Format::kTriton,
      "!ttg.memdesc<128x64xf16, #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 4>>", {});
  ASSERT_FALSE(wide.ok());
  EXPECT_EQ(wide.error().field, "colStride");
  auto split =
      import_layout(Format::kTriton,
                    "#ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1, CTASplitM = 2>",
                    {FormatContext{{256, 64}, {}}});
  ASSERT_FALSE(split.ok());
  EXPECT_EQ(split.error().field, "CTASplitM");
  auto m32 =
      import_layout(Format::kTriton, "#ttng.tensor_memory_encoding<blockM = 32, blockN = 64, colStride = 1>",
                    {FormatContext{{128, 64}, {}}});
  ASSERT_FALSE(m32.ok());
  EXPECT_EQ(m32.error().field, "blockM");
  auto short_rows =
      import_layout(Format::kTriton, "#ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>",
                    {FormatContext{{64, 64}, {}}});
  ASSERT_FALSE(short_rows.ok());
  EXPECT_EQ(short_rows.error().field, "shape");
}

TEST(TritonTmem, ScalesAreTheBlockScaledAtom) {
  // One 128 x 4 atom of 8-bit scales: the engine's block-scaled layout (checked against PTX in
  // tcgen05_test), SFA[64, 2] in lanes 0, 32, 64, 96 of column 2, byte 2.
  const auto imp =
      must_import("!ttg.memdesc<128x4xi8, #ttng.tensor_memory_scales_encoding<>, #ttng.tensor_memory>");
  EXPECT_EQ(places(imp, 64, 2), (std::vector<Place>{at(0, 2, 2), at(32, 2, 2), at(64, 2, 2), at(96, 2, 2)}));
  auto atom = scale_factor_layouts(ScaleFactorSpec{BlockScaleKind::kMxf8f6f4, 32, 128, 128, 0});
  ASSERT_TRUE(atom.ok());
  EXPECT_EQ(to_string(imp.layout), to_string(atom->tmem));
  // 256 x 8: atoms along M first (mnThenK): column m / 32 + 8 * (k / 4), byte k % 4, lane m % 32 of each slab
  const auto big = must_import("!ttg.memdesc<256x8xi8, #ttng.tensor_memory_scales_encoding<>>");
  for (int64_t m = 0; m < 256; m += 13)
    for (int64_t k = 0; k < 8; ++k) {
      const auto p = places(big, m, k);
      ASSERT_EQ(p.size(), 4u);
      for (int64_t s = 0; s < 4; ++s)
        ASSERT_EQ(p[static_cast<size_t>(s)], at(m % 32 + 32 * s, m / 32 + 8 * (k / 4), k % 4));
    }
}

}  // namespace
}  // namespace layoutscope
