// Odd and prime row lengths: the planner's vector bodies with thin edges (`unaligned` plans), what it says
// for such shapes worked out by hand from the strides, and the host executor checked element by element
// against out[dst(x)] = in[src(x)] computed here from the shapes alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <vector>

#include "layoutscope/plan/convert.hpp"

namespace layoutscope {
namespace {

// Row-major strides of `shape`.
std::vector<int64_t> row_major(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t i = shape.size() - 1; i-- > 0;) s[i] = s[i + 1] * shape[i + 1];
  return s;
}

// Runs plan_permute(shape, perm) on the host and checks every element: x's source offset is its row-major
// offset over `shape`, its destination offset the row-major offset of the permuted index over the permuted
// shape.
void expect_permutes(const std::vector<int64_t>& shape, const std::vector<int64_t>& perm, DType dtype) {
  auto plan = plan_permute(shape, perm, dtype);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  const int64_t n = std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<>());
  const int eb = dtype_bytes(dtype);
  std::vector<int64_t> permuted(shape.size());
  for (size_t k = 0; k < shape.size(); ++k) permuted[k] = shape[static_cast<size_t>(perm[k])];
  const std::vector<int64_t> ss = row_major(shape), ds = row_major(permuted);
  std::vector<std::byte> in(static_cast<size_t>(source_extent(*plan) * eb)),
      out(static_cast<size_t>(n * eb), std::byte{0}), want(out.size());
  std::mt19937_64 rng(29);
  for (auto& b : in) b = static_cast<std::byte>(rng());
  for (int64_t x = 0; x < n; ++x) {
    int64_t rest = x, s = 0, d = 0;
    for (size_t i = shape.size(); i-- > 0;) {
      const int64_t digit = rest % shape[i];
      rest /= shape[i];
      s += digit * ss[i];
      for (size_t k = 0; k < perm.size(); ++k) {
        if (perm[k] == static_cast<int64_t>(i)) d += digit * ds[k];
      }
    }
    std::memcpy(want.data() + d * eb, in.data() + s * eb, static_cast<size_t>(eb));
  }
  auto moved = execute_convert_host(*plan, in, out);
  ASSERT_TRUE(moved.ok()) << moved.error().message;
  EXPECT_EQ(*moved, n);
  EXPECT_TRUE(out == want) << to_string(plan->kind) << " plan: " << plan->reason;
}

// The global loads of a two-threads-a-block warp, one row of its blocks: each lane's bytes [p, p + valid) are
// read as the aligned 8 B word that holds p and the next word where they reach into it. The first words and
// the second words are a request each, counting the distinct 32 B sectors they touch.
struct HalfLoads {
  double sectors = 0, requests = 0;
  void add(const std::vector<std::pair<int64_t, int64_t>>& lanes) {
    std::set<int64_t> lo, hi;
    for (const auto& [p, valid] : lanes) {
      lo.insert((p & ~int64_t{7}) / 32);
      if (p % 8 + valid > 8) hi.insert(((p & ~int64_t{7}) + 8) / 32);
    }
    for (const auto* s : {&lo, &hi}) {
      if (s->empty()) continue;
      sectors += static_cast<double>(s->size());
      requests += 1;
    }
  }
};

// A row of 256 units whose first unit is 1001 units into the destination, V = 16: 1001 = 62 x 16 + 9, so
// the row starts 9 units into an aligned window. Its units 0..6 fill the rest of that window (the head),
// windows 1..15 hold units 16k - 9 .. 16k + 6 whole (the body: 7 .. 246), and units 247..255 start the
// window that the next tile finishes (the tail).
TEST(ConvertUnaligned, RowWindowsSplitARowIntoHeadBodyAndTail) {
  ConvertPlan p;
  p.vector_units = 16;
  RowWindows w = row_windows(p, 1001, 256);
  EXPECT_EQ(w.shift, 9);
  EXPECT_EQ(w.body_first, 1);
  EXPECT_EQ(w.body_end, 16);
  EXPECT_EQ(w.head_end, 7);
  EXPECT_EQ(w.tail_start, 247);
  // An aligned row: all body.
  w = row_windows(p, 2048, 256);
  EXPECT_EQ(w.shift, 0);
  EXPECT_EQ(w.body_first, 0);
  EXPECT_EQ(w.body_end, 16);
  EXPECT_EQ(w.head_end, 0);
  EXPECT_EQ(w.tail_start, 256);
  // The last tile of a group, 6 units starting at 5 with V = 4: units 0..2 fill window [4, 8) from 5 on,
  // units 3..5 are 3 of the 4 of window [8, 12): no window is whole, all 6 are edges.
  p.vector_units = 4;
  w = row_windows(p, 5, 6);
  EXPECT_EQ(w.shift, 1);
  EXPECT_EQ(w.body_end - w.body_first, 0);
  EXPECT_EQ(w.head_end, 3);
  EXPECT_EQ(w.tail_start, 3);
}

// An edge's pieces, worked out by hand: [3, 16) of bytes is 1 B at 3 (3 is odd), 4 B at 4, 8 B at 8; [1, 6)
// is 1 B at 1, 2 B at 2, then from 4 (where 4 B would run past 6) the 2 left; [0, 13) is 13 = 8 + 4 + 1
// from 0; [2, 12) of 2 B units is 2 B at 2, 4 B at 4, then 4 B at 8 (8 B would run past 12). Each list has
// a slot per store instruction (upward unit .. 8 B, then downward 8 B .. unit); bytes 0 is no store.
TEST(ConvertUnaligned, EdgeStoresAreAlignedPiecesOfTheRange) {
  auto present = [](const std::vector<EdgeStore>& v) {
    std::vector<std::pair<int, int>> p;
    for (const EdgeStore& s : v) {
      if (s.bytes > 0) p.push_back({s.at, s.bytes});
    }
    return p;
  };
  using P = std::vector<std::pair<int, int>>;
  EXPECT_EQ(present(edge_stores(3, 16, 1)), (P{{3, 1}, {4, 4}, {8, 8}}));
  EXPECT_EQ(present(edge_stores(1, 6, 1)), (P{{1, 1}, {2, 2}, {4, 2}}));
  EXPECT_EQ(present(edge_stores(0, 13, 1)), (P{{0, 8}, {8, 4}, {12, 1}}));
  EXPECT_EQ(present(edge_stores(2, 12, 2)), (P{{2, 2}, {4, 4}, {8, 4}}));
  EXPECT_EQ(edge_stores(2, 12, 2).size(), 6u);  // 2, 4, 8 B up; 8, 4, 2 B down
  // Every range of every unit: the pieces are aligned, at least a unit, each size in its own slot, and cover
  // [b, e) once.
  for (int unit : {1, 2, 4, 8}) {
    for (int b = 0; b < 16; b += unit) {
      for (int e = b + unit; e <= 16; e += unit) {
        if (b == 0 && e == 16) continue;  // a whole window is body, not an edge
        const std::vector<EdgeStore> v = edge_stores(b, e, unit);
        std::vector<int> covered(16, 0);
        for (size_t i = 0; i < v.size(); ++i) {
          const int slot_bytes = i < v.size() / 2 ? unit << i : 8 >> (i - v.size() / 2);
          if (v[i].bytes == 0) continue;
          EXPECT_EQ(v[i].bytes, slot_bytes) << b << " " << e << " " << unit;
          EXPECT_EQ(v[i].at % v[i].bytes, 0) << b << " " << e << " " << unit;
          for (int x = v[i].at; x < v[i].at + v[i].bytes; ++x) ++covered[x];
        }
        for (int x = 0; x < 16; ++x)
          EXPECT_EQ(covered[x], x >= b && x < e ? 1 : 0) << b << " " << e << " " << x;
      }
    }
  }
}

// 4099 x 4093 f32 transposed: modes (4093: src 1, dst 4099) (4099: src 4093, dst 1). Both strides are odd, so
// the only power of two dividing them is 1 (4 B lanes before). Both groups span far more than two vectors of
// 4 f32, so the plan moves 16 B per lane. The destination's rows are unaligned, so the 64 x 64 tile (4096
// units of 4 B) grows along a and shrinks along b: 128 x 32, ceil(4099 / 128) = 33 tiles along a times
// ceil(4093 / 32) = 128 along b.
TEST(ConvertUnaligned, PrimeTransposeMovesSixteenBytesPerLane) {
  auto plan = plan_permute({4099, 4093}, {1, 0}, DType::kF32);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->kind, ConvertKind::kTiled);
  EXPECT_TRUE(plan->unaligned);
  EXPECT_FALSE(plan->aligned_loads);
  EXPECT_EQ(plan->vector_units, 4);
  EXPECT_EQ(access_bytes(*plan), 16);
  EXPECT_EQ(plan->tile_a, 128);
  EXPECT_EQ(plan->tile_b, 32);
  EXPECT_EQ(plan->blocks, 33 * 128);
  // Warp 0's loads: 8 blocks of 4 x 4 along b (32 units) of rows 0, 4, 8 and 12, each lane from the aligned
  // 16 B word that holds its first unit. A row is 4093 x 4 = 16372 B, 4 past a multiple of 16, so rows 4k
  // start on 16 B: row 0 at 0 and row 8 at 130976 (multiples of 32: 128 B cover 4 sectors each), rows 4 and
  // 12 at 65488 and 196464 (16 past a multiple of 32: 5 sectors each). 18 sectors in all.
  EXPECT_EQ(plan->global_read.sectors, 18);
  EXPECT_EQ(plan->global_read.lanes, 32);
  // Warp 0's body stores: destination row 0 (aligned), all 32 windows of its 128 units, 512 B from 0: 16
  // sectors for 32 lanes.
  EXPECT_EQ(plan->global_write.sectors, 16);
  EXPECT_EQ(plan->global_write.lanes, 32);
  EXPECT_NE(plan->reason.find("unaligned"), std::string::npos) << plan->reason;
}

// 3 x 1001 bytes transposed (3 planes of 1001 into 1001 records of 3 B): the planes start 1001 bytes apart,
// so no vector wider than a byte keeps them aligned, but the records (48 B per 16 units) do. An interleave
// of 16 B per lane: chunks of 16 units, ceil(1001 / 16) = 63 of them (the last 1001 - 62 x 16 = 9 units);
// plane 0's loads of warp 0 are 32 x 16 B from byte 0 (16 sectors). So few items store each lane's own
// record (no exchange), in one block of 64 threads: 32 x 16 B at a 48 B stride, 32 sectors. It beats the
// tiled plan's 1 B per lane. 3 planes of 1081345 (67585 items, 265 blocks of 256) go through the exchange:
// the warp's 32 x 48 B of records in order, 16 sectors a store.
TEST(ConvertUnaligned, ThreeOddPlanesOfBytesInterleaveSixteenBytesPerLane) {
  auto plan = plan_permute({3, 1001}, {1, 0}, DType::kU8);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->kind, ConvertKind::kInterleave);
  EXPECT_TRUE(plan->unaligned);
  EXPECT_TRUE(plan->packed_dst);
  EXPECT_EQ(plan->small_extent, 3);
  EXPECT_EQ(plan->plane_stride, 1001);
  EXPECT_EQ(plan->vector_units, 16);
  EXPECT_EQ(plan->chunks, 63);
  EXPECT_EQ(plan->items, 63);
  EXPECT_TRUE(plan->direct_stores);
  EXPECT_EQ(plan->threads, 64);
  EXPECT_EQ(plan->blocks, 1);
  EXPECT_EQ(plan->global_read.sectors, 16);
  EXPECT_EQ(plan->global_write.sectors, 32);
  EXPECT_NE(plan->reason.find("beat tiled"), std::string::npos) << plan->reason;
  auto large = plan_permute({3, 1081345}, {1, 0}, DType::kU8);
  ASSERT_TRUE(large.ok());
  EXPECT_EQ(large->kind, ConvertKind::kInterleave);
  EXPECT_TRUE(large->unaligned);
  EXPECT_FALSE(large->direct_stores);
  EXPECT_EQ(large->items, 67585);
  EXPECT_EQ(large->threads, 256);
  EXPECT_EQ(large->blocks, 265);
  EXPECT_EQ(large->global_read.sectors, 16);
  EXPECT_EQ(large->global_write.sectors, 16);
}

// 7 x 270337 f32 transposed: 7 planes of 270337 into records of 28 B. V = 4 (16 B), 270337 = 67584 x 4 + 1:
// 67585 chunks, the last of 1 unit, 265 blocks of 256 threads (enough to keep the exchange). The exchange
// holds 32 lanes x 7 x 16 B = 3584 B a warp, 8 warps 28,672 B (under the 32 KiB of a block), so 256
// threads; a lane's 7 chunks start 7 chunks apart, odd, so the quarter warp's 8 lanes fall on 8 distinct
// 16 B bank groups: 4 wavefronts per 16 B access, the ideal.
TEST(ConvertUnaligned, SevenOddPlanesOfFloatsInterleaveSixteenBytesPerLane) {
  auto plan = plan_permute({7, 270337}, {1, 0}, DType::kF32);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->kind, ConvertKind::kInterleave);
  EXPECT_TRUE(plan->unaligned);
  EXPECT_EQ(plan->small_extent, 7);
  EXPECT_EQ(plan->long_extent, 270337);
  EXPECT_EQ(plan->vector_units, 4);
  EXPECT_EQ(plan->chunks, 67585);
  EXPECT_EQ(plan->threads, 256);
  EXPECT_EQ(plan->staging_bytes, 28672);
  EXPECT_EQ(plan->smem_write.wavefronts, 4);
  EXPECT_EQ(plan->smem_read.wavefronts, 4);
}

// Odd and prime extents on every kind that takes unaligned rows (transposes of f32, bf16 and u8, odd planes,
// rank 4 and 5 with odd extents, a batch of odd rows), run on the host and compared with the definition.
TEST(ConvertUnaligned, PlansVerifyOnTheHost) {
  expect_permutes({4099 / 16, 4093 / 16}, {1, 0}, DType::kF32);  // 256 x 255
  expect_permutes({131, 97}, {1, 0}, DType::kF32);
  expect_permutes({97, 131}, {1, 0}, DType::kBF16);
  expect_permutes({257, 301}, {1, 0}, DType::kU8);
  expect_permutes({3, 1001}, {1, 0}, DType::kU8);
  expect_permutes({7, 997}, {1, 0}, DType::kF32);
  expect_permutes({5, 7, 9, 11, 13}, {4, 3, 2, 1, 0}, DType::kU8);
  expect_permutes({6, 37, 5, 41}, {2, 0, 3, 1}, DType::kF32);
  expect_permutes({3, 40, 41}, {0, 2, 1}, DType::kU8);
}

// Which side's rows are unaligned decides the tile's shape and the loads. (48, 197, 64, 13) f32 permuted
// (2, 0, 3, 1): the source's rows along b are 64 x 13 = 832 floats (3328 B, a multiple of 16), the
// destination's rows 197 floats (788 B, not one): plain aligned loads, 16 B windows shifted into place in the
// stores, and the 64 x 64 tile lengthened along a, 128 x 32. 12000 x 5000 u8 transposed is the other way
// round (source rows of 5000 B, destination rows of 12000 B): shifted loads, and the 256 x 128 tile
// lengthened along b, 128 x 256.
TEST(ConvertUnaligned, TheUnalignedSideSetsTheTileAndTheLoads) {
  auto dst_odd = plan_permute({48, 197, 64, 13}, {2, 0, 3, 1}, DType::kF32);
  ASSERT_TRUE(dst_odd.ok());
  EXPECT_TRUE(dst_odd->unaligned);
  EXPECT_TRUE(dst_odd->aligned_loads);
  EXPECT_EQ(access_bytes(*dst_odd), 16);
  EXPECT_EQ(dst_odd->extent_a, 197);
  EXPECT_EQ(dst_odd->extent_b, 832);
  EXPECT_EQ(dst_odd->tile_a, 128);
  EXPECT_EQ(dst_odd->tile_b, 32);
  EXPECT_NE(dst_odd->reason.find("destination rows unaligned"), std::string::npos) << dst_odd->reason;
  auto src_odd = plan_permute({12000, 5000}, {1, 0}, DType::kU8);
  ASSERT_TRUE(src_odd.ok());
  EXPECT_TRUE(src_odd->unaligned);
  EXPECT_FALSE(src_odd->aligned_loads);
  EXPECT_EQ(src_odd->tile_a, 128);
  EXPECT_EQ(src_odd->tile_b, 256);
}

// Expert-major 7-byte records of scales, (64, 4000, 7) u8 -> (7, 4000, 64): the destination's innermost mode
// is the 64 experts (64 B runs), the source's the 7 bytes of a record, followed there by the 4000 records.
// Group a of the experts alone leaves group b the 7 x 4000 = 28000 contiguous source bytes, and every stride
// outside the groups (28000 on the source; 64 and 256000 on the destination) is a multiple of 16: 16 B per
// lane on both sides, against 1 B per lane where group a takes the 4000 records as well.
TEST(ConvertUnaligned, ShortGroupAKeepsTheSourceRunLong) {
  auto plan = plan_permute({64, 4000, 7}, {2, 1, 0}, DType::kU8);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->kind, ConvertKind::kTiled);
  EXPECT_EQ(plan->extent_a, 64);
  EXPECT_EQ(plan->extent_b, 28000);
  EXPECT_EQ(access_bytes(*plan), 16);
  EXPECT_FALSE(plan->unaligned);
  EXPECT_NE(plan->reason.find("1 B per lane"), std::string::npos) << plan->reason;
  EXPECT_NE(plan->reason.find("source's contiguous run"), std::string::npos) << plan->reason;
}

// Small grids of unaligned tiles load each register block by two threads (8 B of each row each); larger ones,
// and tiles whose source rows are aligned, keep a thread a block.
TEST(ConvertUnaligned, SmallUnalignedGridsLoadEachBlockByTwoThreads) {
  struct Case {
    std::vector<int64_t> shape, perm;
    DType dtype;
    bool half;
    int threads;
  };
  // 997 x 1013 u8: 256 tiles of 64 register blocks; 1201 x 1999 u8 and the rank-5 reversal: 160 and 152
  // tiles (fewer than kFillBlocks) of 256 x 64 bytes, 256 register blocks, so 512 threads; 10007 x 1009 u8:
  // 640 tiles of 256 blocks. 2 B and 4 B units alike: 2039 x 1021 bf16, 256 tiles (fewer than kFillBlocks) of
  // 256 x 32 units, 128 blocks of 8 x 8; 137 x 4099 f32, 514 tiles of 128 x 16 units, 128 blocks of 4 x 4
  // (128 threads, no more than kThreads / 2); 4093 x 4099 bf16: 1040 tiles of 256 blocks.
  const std::vector<Case> cases = {{{997, 1013}, {1, 0}, DType::kU8, true, 128},
                                   {{1201, 1999}, {1, 0}, DType::kU8, true, 512},
                                   {{15, 17, 19, 21, 23}, {4, 3, 2, 1, 0}, DType::kU8, true, 512},
                                   {{10007, 1009}, {1, 0}, DType::kU8, false, 256},
                                   {{2039, 1021}, {1, 0}, DType::kBF16, true, 256},
                                   {{137, 4099}, {1, 0}, DType::kF32, true, 256},
                                   {{4093, 4099}, {1, 0}, DType::kBF16, false, 256}};
  for (const Case& c : cases) {
    auto plan = plan_permute(c.shape, c.perm, c.dtype);
    ASSERT_TRUE(plan.ok());
    ASSERT_TRUE(plan->unaligned) << c.shape[0];
    EXPECT_EQ(plan->half_blocks, c.half) << c.shape[0];
    EXPECT_EQ(plan->threads, c.threads) << c.shape[0];
    EXPECT_EQ(plan->reason.find("two threads") != std::string::npos, c.half) << plan->reason;
    if (c.half) EXPECT_EQ(plan->global_read.bytes_per_lane, 8) << c.shape[0];
  }
}

// Small unaligned grids: the tile halves along b (the source's rows) until there are 2 x 132 tiles, but along
// a (the destination's rows, whose two edges are stored piece by piece) only until there are 132. Each case:
// the tile, the grid (ceil(extent_a / tile_a) x ceil(extent_b / tile_b) x the batch) and the block.
TEST(ConvertUnaligned, SmallGridsKeepTheDestinationsRowsLong) {
  struct Case {
    std::vector<int64_t> shape, perm;
    DType dtype;
    int64_t tile_a, tile_b, blocks;
    int threads;
  };
  const std::vector<Case> cases = {
      // a = 15 x 17 x 19 = 4845 bytes, b = 23 x 21 = 483: 256 x 64 (128 x 64 would make 304 tiles, past
      // 132 already at 256) -> 19 x 8 tiles; 256 blocks of 4 rows x 16 B, two threads each.
      {{15, 17, 19, 21, 23}, {4, 3, 2, 1, 0}, DType::kU8, 256, 64, 19 * 8, 512},
      // a = 509, b = 4093 (b at its least, four 16 B vectors): 128 x 64 -> 4 x 64 tiles; 128 blocks, two
      // threads each.
      {{509, 4093}, {1, 0}, DType::kU8, 128, 64, 4 * 64, 256},
      // a = 3001, b = 2003: 512 x 64 -> 6 x 32 tiles; 512 blocks, two threads each: 1024.
      {{3001, 2003}, {1, 0}, DType::kU8, 512, 64, 6 * 32, 1024},
      // bf16: a = 2039, b = 1021, b at its least (four 8-unit vectors): 256 x 32 -> 8 x 32 tiles; 128 blocks
      // of 8 x 8 units, two threads each.
      {{2039, 1021}, {1, 0}, DType::kBF16, 256, 32, 8 * 32, 256},
      // bf16 reversed, a = 11 x 13 = 143 units (one tile of 256: 143 = 128 + 15), b = 23 x 19 = 437,
      // batch 17: b halves 128 -> 32 towards 2 x 132 tiles (1 x 14 x 17 = 238) and stops at its least; a
      // keeps 256 (238 tiles are past 132 already). 256 x 32 units / (8 x 8) = 128 blocks, 256 threads.
      {{11, 13, 17, 19, 23}, {4, 3, 2, 1, 0}, DType::kBF16, 256, 32, 1 * 14 * 17, 256},
  };
  for (const Case& c : cases) {
    auto plan = plan_permute(c.shape, c.perm, c.dtype);
    ASSERT_TRUE(plan.ok());
    ASSERT_TRUE(plan->unaligned) << c.shape[0];
    EXPECT_EQ(plan->tile_a, c.tile_a) << c.shape[0];
    EXPECT_EQ(plan->tile_b, c.tile_b) << c.shape[0];
    EXPECT_EQ(plan->blocks, c.blocks) << c.shape[0];
    EXPECT_EQ(plan->threads, c.threads) << c.shape[0];
    EXPECT_TRUE(plan->half_blocks) << c.shape[0];
    expect_permutes(c.shape, c.perm, c.dtype);
  }
}

// Filling a small grid does not halve the tile along a where that leaves the last tile along a less than a
// quarter full: 137 x 4099 bf16 (a = 137 = 128 + 9) keeps one tile of 256 along a, 129 tiles of 256 x 32
// (b at its least, ceil(4099 / 32) = 129) rather than 258 of 128 x 32, half of them 9 rows. 203 = 128 + 75
// (a last tile more than half full) halves to 128 as before: 2 x 129 tiles.
TEST(ConvertUnaligned, SmallGridsDoNotSplitOffANearlyEmptyLastTile) {
  struct Case {
    int64_t rows, tile_a, blocks;
  };
  for (const Case& c : {Case{137, 256, 129}, Case{203, 128, 2 * 129}}) {
    auto plan = plan_permute({c.rows, 4099}, {1, 0}, DType::kBF16);
    ASSERT_TRUE(plan.ok());
    ASSERT_TRUE(plan->unaligned);
    EXPECT_EQ(plan->tile_a, c.tile_a) << c.rows;
    EXPECT_EQ(plan->tile_b, 32) << c.rows;
    EXPECT_EQ(plan->blocks, c.blocks) << c.rows;
    expect_permutes({c.rows, 4099}, {1, 0}, DType::kBF16);
  }
}

// A ragged destination extent whose last tile of the power of two below it would be less than a quarter full
// sits whole in one tile of twice that power: 135 = 128 + 7 units of bf16 -> 256, 263 = 256 + 7 bytes -> 512,
// 67 = 64 + 3 f32 -> 128. The tile keeps the area it had (16384 units of 2 B or 1 B, 4096 of 4 B: 128 x 128,
// 256 x 64 and 64 x 64 before), so b gives up what a gains; each grid is one tile along a times
// ceil(b / tile_b). An extent with a fuller last tile keeps its power of two: 203 = 128 + 75 bf16.
TEST(ConvertUnaligned, RaggedDestinationExtentsSitWholeInOneTile) {
  struct Case {
    std::vector<int64_t> shape;
    DType dtype;
    int64_t tile_a, tile_b, blocks;
  };
  for (const Case& c : {Case{{135, 20011}, DType::kBF16, 256, 64, (20011 + 63) / 64},
                        Case{{263, 20011}, DType::kU8, 512, 32, (20011 + 31) / 32},
                        Case{{67, 30011}, DType::kF32, 128, 32, (30011 + 31) / 32}}) {
    auto plan = plan_permute(c.shape, {1, 0}, c.dtype);
    ASSERT_TRUE(plan.ok());
    ASSERT_TRUE(plan->unaligned) << c.shape[0];
    EXPECT_EQ(plan->extent_a, c.shape[0]);
    EXPECT_EQ(plan->tile_a, c.tile_a) << c.shape[0];
    EXPECT_EQ(plan->tile_b, c.tile_b) << c.shape[0];
    EXPECT_EQ(plan->blocks, c.blocks) << c.shape[0];
    expect_permutes(c.shape, {1, 0}, c.dtype);
  }
  auto fuller = plan_permute({203, 20011}, {1, 0}, DType::kBF16);
  ASSERT_TRUE(fuller.ok());
  ASSERT_TRUE(fuller->unaligned);
  EXPECT_EQ(fuller->tile_a, 128);
}

// A warp stores a whole destination row where the tile's rows are 32 windows of 16 B: 4093 x 4099 bf16 has
// rows of 256 units (32 x 8 units of 2 B), 4099 x 4093 f32 rows of 128 (32 x 4 units of 4 B); 1201 x 1999 u8
// rows of 256 bytes (16 windows) keep a thread per window. The plan's reason says which.
TEST(ConvertUnaligned, RowsOfThirtyTwoWindowsTakeAWarpEach) {
  struct Case {
    std::vector<int64_t> shape;
    DType dtype;
    int64_t tile_a;
    bool warp_rows;
  };
  for (const Case& c :
       {Case{{4093, 4099}, DType::kBF16, 256, true}, Case{{4099, 4093}, DType::kF32, 128, true},
        Case{{1201, 1999}, DType::kU8, 256, false}}) {
    auto plan = plan_permute(c.shape, {1, 0}, c.dtype);
    ASSERT_TRUE(plan.ok());
    ASSERT_TRUE(plan->unaligned);
    ASSERT_EQ(plan->tile_a, c.tile_a);
    EXPECT_EQ(warp_row_stores(*plan), c.warp_rows) << plan->reason;
    EXPECT_EQ(plan->reason.find("a destination row per warp") != std::string::npos, c.warp_rows)
        << plan->reason;
  }
}

// The kernel-wide averages of a two-threads-a-block plan against a direct count over the kernel's threads,
// written from the kernel's own arithmetic for a 2-D transpose of R x C bytes (source offset i * C + j):
// every tile (a0 along the R source rows, b0 along the C bytes of a row), every warp, thread 2t + h taking
// block t (ba = t / 4, bb = t % 4 of a 64-byte-wide tile), bytes 8h .. 8h+7 of rows a0 + 4 ba + k; a load is
// the aligned 8 B word holding the row's first byte, a second one where the row's valid bytes reach past it,
// each in one 32 B sector; the shared stores are the 8 columns' 4 B words, wavefronts the most distinct words
// in one bank.
TEST(ConvertUnaligned, HalfBlockAveragesCountTheKernelsOwnAccesses) {
  for (const auto& [rows, cols] : std::vector<std::pair<int64_t, int64_t>>{{997, 1013}, {1201, 1999}}) {
    auto plan = plan_permute({rows, cols}, {1, 0}, DType::kU8);
    ASSERT_TRUE(plan.ok());
    ASSERT_TRUE(plan->half_blocks);
    ASSERT_EQ(plan->extent_a, rows);
    ASSERT_EQ(plan->extent_b, cols);
    ASSERT_EQ(plan->tile_b, 64);
    ASSERT_EQ(plan->warp_b, 4);
    const int64_t ta = plan->tile_a, blocks_per_tile = ta / 4 * 4;
    const int64_t tiles_a = (rows + ta - 1) / ta, tiles_b = (cols + 63) / 64;
    HalfLoads loads;
    double wavefronts = 0, stores = 0;
    for (int64_t tile = 0; tile < tiles_a * tiles_b; ++tile) {
      const int64_t a0 = tile % tiles_a * ta, b0 = tile / tiles_a * 64;
      for (int64_t warp = 0; warp < plan->threads / 32; ++warp) {
        std::vector<int64_t> lane_ib, lane_ba, lane_col;
        for (int64_t th = warp * 32; th < warp * 32 + 32; ++th) {
          const int64_t t = th / 2, h = th % 2;
          if (t >= blocks_per_tile) continue;
          const int64_t ib = b0 + t % 4 * 16 + 8 * h;
          if (ib >= cols) continue;
          lane_ib.push_back(ib);
          lane_ba.push_back(t / 4);
          lane_col.push_back(t % 4 * 16 + 8 * h);
        }
        if (lane_ib.empty()) continue;
        for (int64_t k = 0; k < 4; ++k) {
          std::vector<std::pair<int64_t, int64_t>> row;
          for (size_t l = 0; l < lane_ib.size(); ++l) {
            const int64_t ia = a0 + lane_ba[l] * 4 + k;
            if (ia >= rows) continue;
            row.push_back({ia * cols + lane_ib[l], std::min<int64_t>(8, cols - lane_ib[l])});
          }
          loads.add(row);
        }
        for (int64_t j = 0; j < 8; ++j) {
          std::map<int64_t, std::set<int64_t>> banks;
          for (size_t l = 0; l < lane_ib.size(); ++l) {
            const int64_t at =
                apply_swizzle(plan->staging, staging_byte(*plan, lane_ba[l] * 4, lane_col[l] + j));
            banks[at / 4 % 32].insert(at / 4);
          }
          size_t most = 0;
          for (const auto& [bank, words] : banks) most = std::max(most, words.size());
          wavefronts += static_cast<double>(most);
          stores += 1;
        }
      }
    }
    const ConvertAverages avg = convert_kernel_averages(*plan);
    EXPECT_NEAR(avg.read_sectors, loads.sectors / loads.requests, 1e-9) << rows;
    EXPECT_NEAR(avg.smem_store_wavefronts, wavefronts / stores, 1e-9) << rows;
  }
}

// The same count for units of 2 and 4 B, whose register blocks are V x V units (V = 16 B / unit): thread
// 2t + h takes units V/2 * h .. V/2 * h + V/2 - 1 of block t's V rows (8 B of each, two aligned 8 B words at
// most) and stores V/2 columns of 16 B (a column holds unit j of the V rows). 16 B shared stores are served 8
// lanes at a time by lane number; a group's wavefronts are the most distinct 4 B words in one bank.
TEST(ConvertUnaligned, HalfBlockAveragesCountTheKernelsOwnAccessesForWiderUnits) {
  struct Case {
    int64_t rows, cols;
    DType dtype;
  };
  for (const Case& c : {Case{2039, 1021, DType::kBF16}, Case{137, 4099, DType::kF32}}) {
    auto plan = plan_permute({c.rows, c.cols}, {1, 0}, c.dtype);
    ASSERT_TRUE(plan.ok());
    ASSERT_TRUE(plan->half_blocks) << c.rows;
    const int64_t ub = plan->unit_bytes, v = 16 / ub, ta = plan->tile_a, tb = plan->tile_b, nb = tb / v;
    ASSERT_EQ(plan->vector_units, v);
    ASSERT_EQ(plan->block_rows, v);
    ASSERT_EQ(plan->extent_a, c.rows);
    ASSERT_EQ(plan->extent_b, c.cols);
    ASSERT_GE(plan->warp_b, nb);  // consecutive blocks run along b first: bb = t % nb, ba = t / nb
    const int64_t blocks_per_tile = ta / v * nb;
    const int64_t tiles_a = (c.rows + ta - 1) / ta, tiles_b = (c.cols + tb - 1) / tb;
    HalfLoads loads;
    double wavefronts = 0, stores = 0;
    for (int64_t tile = 0; tile < tiles_a * tiles_b; ++tile) {
      const int64_t a0 = tile % tiles_a * ta, b0 = tile / tiles_a * tb;
      for (int64_t warp = 0; warp < plan->threads / 32; ++warp) {
        std::vector<int64_t> lane, lane_ib, lane_ba, lane_col;
        for (int64_t th = warp * 32; th < warp * 32 + 32; ++th) {
          const int64_t t = th / 2, h = th % 2;
          if (t >= blocks_per_tile) continue;
          const int64_t ib = b0 + t % nb * v + v / 2 * h;
          if (ib >= c.cols) continue;
          lane.push_back(th % 32);
          lane_ib.push_back(ib);
          lane_ba.push_back(t / nb);
          lane_col.push_back(t % nb * v + v / 2 * h);
        }
        if (lane.empty()) continue;
        for (int64_t k = 0; k < v; ++k) {
          std::vector<std::pair<int64_t, int64_t>> row;
          for (size_t l = 0; l < lane.size(); ++l) {
            const int64_t ia = a0 + lane_ba[l] * v + k;
            if (ia >= c.rows) continue;
            row.push_back(
                {(ia * c.cols + lane_ib[l]) * ub, std::min<int64_t>(v / 2, c.cols - lane_ib[l]) * ub});
          }
          loads.add(row);
        }
        for (int64_t j = 0; j < v / 2; ++j) {
          for (int64_t group = 0; group < 4; ++group) {
            std::map<int64_t, std::set<int64_t>> banks;
            for (size_t l = 0; l < lane.size(); ++l) {
              if (lane[l] / 8 != group) continue;
              const int64_t at =
                  apply_swizzle(plan->staging, staging_byte(*plan, lane_ba[l] * v, lane_col[l] + j));
              for (int64_t w = 0; w < 4; ++w) banks[(at / 4 + w) % 32].insert(at / 4 + w);
            }
            size_t most = 0;
            for (const auto& [bank, words] : banks) most = std::max(most, words.size());
            wavefronts += static_cast<double>(most);
          }
          stores += 1;
        }
      }
    }
    const ConvertAverages avg = convert_kernel_averages(*plan);
    EXPECT_NEAR(avg.read_sectors, loads.sectors / loads.requests, 1e-9) << c.rows;
    EXPECT_NEAR(avg.smem_store_wavefronts, wavefronts / stores, 1e-9) << c.rows;
  }
}

}  // namespace
}  // namespace layoutscope
