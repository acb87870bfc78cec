// Bank and sector models against hand-computed cases (the chapter's wavefront rules,
// docs/worked-examples.md).
#include "layoutscope/memory_access.hpp"

#include <gtest/gtest.h>

#include <numeric>

#include "layoutscope/dtype.hpp"

namespace layoutscope {
namespace {

std::vector<int64_t> strided(int lanes, int64_t stride, int64_t base = 0) {
  std::vector<int64_t> v;
  for (int i = 0; i < lanes; ++i) v.push_back(base + i * stride);
  return v;
}

TEST(Banks, WidthSetsTheLaneGroups) {
  // Contiguous, aligned accesses: 128 B per wavefront, so 1, 2 and 4 conflict-free wavefronts.
  auto w4 = bank_access(strided(32, 4), 4);
  auto w8 = bank_access(strided(32, 8), 8);
  auto w16 = bank_access(strided(32, 16), 16);
  EXPECT_EQ(w4->lanes_per_group, 32);
  EXPECT_EQ(w8->lanes_per_group, 16);
  EXPECT_EQ(w16->lanes_per_group, 8);
  EXPECT_EQ(w4->cycles, 1);
  EXPECT_EQ(w8->cycles, 2);
  EXPECT_EQ(w16->cycles, 4);
  EXPECT_EQ(w16->groups, 4);
  EXPECT_EQ(w16->max_ways, 1);
}

TEST(Banks, ConflictsCountOnlyInsideAWavefront) {
  // 8 B accesses: lane 0 and lane 16 hit the same bank (addresses 0 and 128) but sit in different
  // wavefronts, so no conflict (the chapter's example).
  std::vector<int64_t> a = strided(32, 8);
  auto r = bank_access(a, 8);
  EXPECT_EQ(r->lane_bank[0], r->lane_bank[16]);
  EXPECT_EQ(r->cycles, 2);
  // 4 B accesses with an 8 B stride: lanes i and i+16 share a bank with different words -> 2-way.
  auto s = bank_access(strided(32, 8), 4);
  EXPECT_EQ(s->cycles, 2);
  EXPECT_EQ(s->max_ways, 2);
  // Stride 128 B at 4 B: all 32 lanes in bank 0, 32 distinct words -> 32 cycles.
  EXPECT_EQ(bank_access(strided(32, 128), 4)->cycles, 32);
  // Padded tile row stride 33 words: column read is conflict-free.
  EXPECT_EQ(bank_access(strided(32, 33 * 4), 4)->cycles, 1);
}

TEST(Banks, SameWordBroadcasts) {
  EXPECT_EQ(bank_access(std::vector<int64_t>(32, 64), 4)->cycles, 1);
  std::vector<int64_t> pairs;
  for (int i = 0; i < 32; ++i) pairs.push_back((i / 2) * 4);
  EXPECT_EQ(bank_access(pairs, 4)->cycles, 1);
}

TEST(Banks, BadInputNamesTheLane) {
  auto misaligned = bank_access(std::vector<int64_t>{0, 16, 20}, 16);
  ASSERT_FALSE(misaligned.ok());
  EXPECT_EQ(misaligned.error().field, "addrs");
  EXPECT_NE(misaligned.error().message.find("lane 2"), std::string::npos);
  EXPECT_FALSE(bank_access(strided(32, 4), 3).ok());
  EXPECT_EQ(bank_access(strided(32, 4), 3).error().field, "width");
  EXPECT_FALSE(bank_access(std::vector<int64_t>{}, 4).ok());
  EXPECT_FALSE(bank_access(std::vector<int64_t>{-4}, 4).ok());
}

TEST(Sectors, CountsDistinct32ByteSectors) {
  EXPECT_EQ(sector_access(strided(32, 4), 4)->sectors, 4);     // 128 B contiguous
  EXPECT_EQ(sector_access(strided(32, 32), 4)->sectors, 32);   // one per lane
  EXPECT_EQ(sector_access(strided(32, 16), 16)->sectors, 16);  // 512 B contiguous
  EXPECT_EQ(sector_access(strided(32, 8), 4)->sectors, 8);     // 256 B span, half of each sector used
  EXPECT_DOUBLE_EQ(sector_access(strided(32, 8), 4)->efficiency, 0.5);
  EXPECT_EQ(sector_access(std::vector<int64_t>(32, 0), 4)->sectors, 1);
  EXPECT_EQ(sector_access(strided(32, 4, 16), 4)->sectors, 5);  // misaligned to the sector: one more
  // Each lane's sector: 4 B lanes from byte 16 -> lanes 0..3 in sector 0, 4..11 in sector 1, ...
  const auto lanes = sector_access(strided(32, 4, 16), 4)->lane_sector;
  ASSERT_EQ(lanes.size(), 32u);
  for (int i = 0; i < 32; ++i) EXPECT_EQ(lanes[static_cast<size_t>(i)], (16 + 4 * i) / 32) << "lane " << i;
}

TEST(DTypes, SwizzleAtomsInBytesAndElements) {
  // per_element = bit_length(128 / bits) - 1: f8 4, f16 3, f32 2, f64 1
  // (shared/include/layoutscope/dtype.hpp).
  const std::pair<DType, int> per_element[] = {
      {DType::kF8, 4}, {DType::kF16, 3}, {DType::kF32, 2}, {DType::kF64, 1}};
  for (auto [dtype, m] : per_element) {
    auto atom = swizzle_atom(SwizzleMode::k128B, dtype);
    EXPECT_EQ(atom->elements.base, m) << to_string(dtype);
    EXPECT_EQ(atom->elements.bits, 3);
    EXPECT_EQ(atom->elements.shift, 3);
    EXPECT_EQ(atom->bytes.base, 4);
    EXPECT_EQ(atom->elements_per_row, 128 / dtype_bytes(dtype));
  }
  EXPECT_EQ(swizzle_atom(SwizzleMode::k64B, DType::kF16)->row_bytes, 64);
  EXPECT_EQ(swizzle_atom(SwizzleMode::k32B, DType::kF16)->elements.bits, 1);
  auto a32 = swizzle_atom(SwizzleMode::k128BAtom32B, DType::kF16);
  EXPECT_EQ(a32->bytes.bits, 2);
  EXPECT_EQ(a32->bytes.base, 5);
  EXPECT_EQ(a32->bytes.shift, 2);
  EXPECT_EQ(swizzle_atom(SwizzleMode::kInterleave16B, DType::kF16)->bytes.bits, 0);
  EXPECT_FALSE(parse_dtype("f12").ok());
  EXPECT_EQ(parse_dtype("f12").error().field, "dtype");
  EXPECT_EQ(*parse_swizzle_mode("SWIZZLE_128B"), SwizzleMode::k128B);
}

TEST(Banks, LaneAccessWidensToTheWordAndStopsAt16Bytes) {
  // 32 banks of 4 B: a byte or a half is read as its 4 B word, f64 as 8 B; no lane access is wider than 16 B.
  EXPECT_EQ(lane_access_bytes(1), 4);
  EXPECT_EQ(lane_access_bytes(2), 4);
  EXPECT_EQ(lane_access_bytes(4), 4);
  EXPECT_EQ(lane_access_bytes(8), 8);
  EXPECT_EQ(lane_access_bytes(32), 16);
  // the chapter's toy model has 4 B words too; a model of 8 B words widens a float to 8
  EXPECT_EQ(lane_access_bytes(4, BankModel{8, 8, 64}), 8);
}

TEST(Banks, AccessStartAlignsDown) {
  // f16 elements 2 and 3 (bytes 4 and 6) share the word at byte 4; element 1 (byte 2) is in the word at 0.
  EXPECT_EQ(access_start(2, 4), 0);
  EXPECT_EQ(access_start(4, 4), 4);
  EXPECT_EQ(access_start(6, 4), 4);
  EXPECT_EQ(access_start(20, 16), 16);
  EXPECT_EQ(access_start(-2, 4), -4);
}

TEST(DTypes, EveryTypeNarrowestFirst) {
  std::vector<std::string> names;
  std::vector<int> bytes;
  for (DType d : all_dtypes()) {
    names.emplace_back(to_string(d));
    bytes.push_back(dtype_bytes(d));
  }
  EXPECT_EQ(names, (std::vector<std::string>{"u8", "f8", "f16", "bf16", "f32", "tf32", "f64"}));
  EXPECT_EQ(bytes, (std::vector<int>{1, 1, 2, 2, 4, 4, 8}));
}

}  // namespace
}  // namespace layoutscope
