// The conversion planner: plans of the benchmark chapter's conversions and of the permutations users ask for,
// their predicted costs worked out by hand, and the host executor checked element by element against the
// definition out[dst(x)] = in[src(x)] over random layouts.
#include "layoutscope/plan/convert.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <random>
#include <set>

#include "layoutscope/parse.hpp"

namespace layoutscope {
namespace {

Layout parse(const char* text) {
  auto l = parse_layout(text);
  EXPECT_TRUE(l.ok()) << text;
  return *l;
}

// out[dst(x)] = in[src(x)], straight from the definition: flat index x split row-major over each layout's
// extents.
int64_t offset_of(const Layout& l, int64_t x) {
  int64_t off = 0;
  for (size_t i = l.shard.size(); i-- > 0;) {
    off += (x % l.shard[i].extent) * l.shard[i].stride.k;
    x /= l.shard[i].extent;
  }
  return off;
}

int64_t cosize(const Layout& l) {
  int64_t c = 0;
  for (const Mode& m : l.shard) c += (m.extent - 1) * m.stride.k;
  return c + 1;
}

// Runs the plan on the host with distinct bytes per element and checks every destination element.
void expect_converts(const Layout& src, const Layout& dst, const std::vector<int64_t>& shape, DType dtype) {
  auto plan = plan_convert(src, dst, shape, dtype);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  const int eb = dtype_bytes(dtype);
  const int64_t n = plan->elements;
  std::vector<std::byte> in(static_cast<size_t>(cosize(src) * eb)),
      out(static_cast<size_t>(n * eb), std::byte{0});
  std::mt19937_64 rng(7);
  for (auto& b : in) b = static_cast<std::byte>(rng());
  auto moved = execute_convert_host(*plan, in, out);
  ASSERT_TRUE(moved.ok()) << moved.error().message;
  EXPECT_EQ(*moved, n);
  for (int64_t x = 0; x < n; ++x) {
    ASSERT_EQ(std::memcmp(out.data() + offset_of(dst, x) * eb, in.data() + offset_of(src, x) * eb, eb), 0)
        << "element " << x << " of " << to_string(src) << " -> " << to_string(dst) << " ("
        << to_string(plan->kind) << ")";
  }
}

// A copy's costs per warp access: 32 lanes x 16 B = 512 B = 16 whole 32 B sectors on each global side, and
// 512 B of shared memory in 4 wavefronts of 128 B (the ideal), for both passes over the staging tile.
void expect_copy_costs(const ConvertPlan& plan) {
  EXPECT_EQ(plan.global_read.sectors, 16);
  EXPECT_EQ(plan.global_write.sectors, 16);
  EXPECT_EQ(plan.smem_write.ideal_wavefronts, 4);
  EXPECT_EQ(plan.smem_write.wavefronts, 4);
  EXPECT_EQ(plan.smem_read.wavefronts, 4);
}

// The host executor asks `stopped` once per 2^20 elements moved: a 2048 x 2048 u8 transpose (4 Mi elements,
// tiled) asks it 3 or 4 times and finishes; one asked to stop at the first question ends early with the field
// "stopped".
TEST(Convert, TheHostExecutorAsksToStopEveryMebiElement) {
  const std::vector<int64_t> shape{2048, 2048};
  auto plan =
      plan_convert(parse("S[(2048,2048):(2048,1)]"), parse("S[(2048,2048):(1,2048)]"), shape, DType::kU8);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  std::vector<std::byte> in(size_t{1} << 22), out(size_t{1} << 22);
  int asked = 0;
  auto whole = execute_convert_host(*plan, in, out, [&] { return ++asked, false; });
  ASSERT_TRUE(whole.ok()) << whole.error().message;
  EXPECT_EQ(*whole, int64_t{1} << 22);
  EXPECT_GE(asked, 3);
  EXPECT_LE(asked, 4);
  auto stopped = execute_convert_host(*plan, in, out, [] { return true; });
  ASSERT_FALSE(stopped.ok());
  EXPECT_EQ(stopped.error().field, "stopped");
}

TEST(Convert, TransposeIsTiledWithConflictFreeStaging) {
  // fp32 4096^2 transpose: 64x64 tile, 4x4 register blocks (16 B = 4 floats).
  auto plan = plan_convert(parse("S[(4096,4096):(4096,1)]"), parse("S[(4096,4096):(1,4096)]"), {4096, 4096},
                           DType::kF32);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->kind, ConvertKind::kTiled);
  EXPECT_EQ(plan->common_vector, 1);
  EXPECT_EQ(plan->vector_units, 4);
  EXPECT_EQ(plan->tile_a, 64);
  EXPECT_EQ(plan->tile_b, 64);
  EXPECT_EQ(plan->staging_bytes, 64 * 64 * 4);
  EXPECT_EQ(plan->blocks, 64 * 64);
  // Global: 16 lanes read one 256 B row piece, the other 16 the piece 4 rows down: 2 x 8 sectors; the same
  // on the write side. Shared, 16 B per lane: 8 lanes per wavefront. The tile's rows are 256 B; unswizzled,
  // the register-block stores of lanes 0..7 hit rows 0, 4, ..., 28 at one column: every row 256 B apart
  // starts in bank 0, an 8-way conflict. The planner's swizzle must remove it.
  expect_copy_costs(*plan);
  EXPECT_GT(plan->staging.bits, 0);
}

TEST(Convert, SharedContiguousRunIsAVectorCopy) {
  // BSHD -> BHSD, bf16 (16,4096,32,32) perm (0,2,1,3): D = 32 stays innermost on both sides: 64 B contiguous.
  auto plan = plan_permute({16, 4096, 32, 32}, {0, 2, 1, 3}, DType::kBF16);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->kind, ConvertKind::kVector);
  EXPECT_EQ(plan->common_vector, 32);
  EXPECT_EQ(plan->vector_units, 8);  // 16 B of bf16
  // Lanes 0..3 cover one 64 B run of D, lanes 4..7 the next destination row, which is source row h+1 of the
  // same s: 32 * 32 * 2 B = 2 KiB further. Each 64 B run is 2 sectors: 8 runs -> 16 sectors, both sides.
  EXPECT_EQ(plan->global_read.sectors, 16);
  EXPECT_EQ(plan->global_write.sectors, 16);
  // Destination order (B, H, S, D): source strides S*H*D, D, H*D, 1 -> H and S do not fuse, S and D do not.
  ASSERT_EQ(plan->modes.size(), 4u);
  EXPECT_EQ(plan->modes[1].src_stride, 32);
  EXPECT_EQ(plan->modes[2].src_stride, 32 * 32);
}

TEST(Convert, CommonVectorIsTheTrailingRunPermutationsKeep) {
  // For x.permute(p).contiguous() the run both sides share is the product of the trailing dimensions with
  // p[k] == k (nothing else can be contiguous in both).
  struct Case {
    std::vector<int64_t> shape, perm;
    int64_t run;
  };
  const Case cases[] = {{{8, 6, 4}, {0, 1, 2}, 192},
                        {{8, 6, 4}, {1, 0, 2}, 4},
                        {{8, 6, 4}, {0, 2, 1}, 1},
                        {{2, 3, 4, 5}, {1, 0, 2, 3}, 20},
                        {{2, 3, 4, 5}, {3, 2, 1, 0}, 1}};
  for (const Case& c : cases) {
    auto plan = plan_permute(c.shape, c.perm, DType::kF32);
    ASSERT_TRUE(plan.ok()) << plan.error().message;
    EXPECT_EQ(plan->common_vector, c.run);
  }
}

TEST(Convert, AosToSoaReadsWholeRecords) {
  // [N, 8] -> [8, N] fp32: the 8 fields of a record are the source-contiguous mode, N the destination's.
  auto plan = plan_permute({1 << 20, 8}, {1, 0}, DType::kF32);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->kind, ConvertKind::kTiled);
  EXPECT_EQ(plan->tile_b, 8);
  // Records of 32 B stage 4 KiB: 128 records, 32 x 2 register blocks of 4 x 4, one thread each.
  EXPECT_EQ(plan->tile_a, 128);
  EXPECT_EQ(plan->staging_bytes, 4096);
  EXPECT_EQ(plan->threads, 64);
  // The reverse, SoA -> AoS: the short side is a (8 fields); b grows to 512 to keep 4096 units of tile.
  auto back = plan_permute({8, 1 << 20}, {1, 0}, DType::kF32);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->tile_a, 8);
  EXPECT_EQ(back->tile_b, 512);
  // Lanes 0,1 read one record (2 x 16 B), lanes 2,3 the next, ...: 16 records of 32 B, one sector each.
  EXPECT_EQ(plan->global_read.sectors, 16);
  // The same 4 KiB for records of 16 B (8 bf16: 256 records, lane pairs) and of 8 B (8 u8: 512 records).
  auto bf16 = plan_permute({1 << 20, 8}, {1, 0}, DType::kBF16);
  ASSERT_TRUE(bf16.ok());
  EXPECT_TRUE(bf16->paired);
  EXPECT_EQ(bf16->tile_a, 256);
  EXPECT_EQ(bf16->threads, 64);  // 32 blocks of 8 x 8, two lanes each
  auto u8 = plan_permute({1 << 20, 8}, {1, 0}, DType::kU8);
  ASSERT_TRUE(u8.ok());
  EXPECT_EQ(u8->tile_a, 512);
  EXPECT_EQ(u8->staging_bytes, 4096);
}

TEST(Convert, NarrowTypesKeepSixteenByteAccesses) {
  auto bf16 = plan_permute({8192, 4096}, {1, 0}, DType::kBF16);
  ASSERT_TRUE(bf16.ok());
  EXPECT_EQ(bf16->vector_units * bf16->unit_bytes, 16);
  auto u8 = plan_permute({8192, 4096}, {1, 0}, DType::kU8);
  ASSERT_TRUE(u8.ok());
  EXPECT_EQ(u8->vector_units * u8->unit_bytes, 16);
  // 256 x 128 bytes: 64 x 8 register blocks of 4 rows of 16 bytes, one thread each.
  EXPECT_EQ(u8->tile_a, 256);
  EXPECT_EQ(u8->tile_b, 128);
  EXPECT_EQ(u8->block_rows, 4);
  EXPECT_EQ(u8->threads, 512);
  // A lane stores a column of its block, 4 B: lanes bb = lane % 8, ba = lane / 8 write byte ba * 4 of rows
  // bb * 16 + j, 256 B apart, all in the same bank without a swizzle. XORing the 16 B chunk (bits 4-6) by
  // the row's bits 4-6 (bb, byte bits 12-14) puts the 8 rows' words in 8 x 4 distinct banks: one wavefront
  // for 32 x 4 B. The store pass reads 16 B rows: 4 wavefronts for 512 B.
  EXPECT_EQ(staging_store_bytes(*u8), 4);
  EXPECT_EQ(u8->smem_write.bytes_per_lane, 4);
  EXPECT_EQ(u8->smem_write.wavefronts, 1);
  EXPECT_EQ(u8->smem_write.ideal_wavefronts, 1);
  EXPECT_EQ(u8->smem_read.wavefronts, 4);
  EXPECT_EQ(u8->staging.base, 4);
  EXPECT_EQ(u8->staging.base + u8->staging.shift, 12);
  // Wider units keep square blocks whose columns are 16 B.
  EXPECT_EQ(bf16->block_rows, 8);
  EXPECT_EQ(staging_store_bytes(*bf16), 16);
  EXPECT_EQ(bf16->tile_a, 128);
  EXPECT_EQ(bf16->threads, 256);
}

TEST(Convert, ByteBlocksOfFourRowsTileTheWarpWhereTileRowsAreShort) {
  // SoA -> AoS of 32 one-byte fields: [32, 2^23] -> [2^23, 32]. Group a is the 32 fields (a 32 B destination
  // record), group b the records (contiguous in the source): a 32 x 1024 tile, 8 x 64 blocks of 4 rows of 16
  // B.
  auto plan = plan_permute({32, 8388608}, {1, 0}, DType::kU8);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  ASSERT_EQ(plan->kind, ConvertKind::kTiled);
  EXPECT_EQ(plan->tile_a, 32);
  EXPECT_EQ(plan->tile_b, 1024);
  EXPECT_EQ(plan->block_rows, 4);
  EXPECT_EQ(plan->threads, 512);
  // 64 blocks along b: a warp of lanes all along b would store one 4 B word into 32 rows 512 B apart (one
  // bank). Warps of 8 blocks along b by 4 along a instead: lane l of warp w takes bb = (w % 8) * 8 + l % 8,
  // ba = (w / 8) * 4 + l / 8.
  EXPECT_EQ(plan->warp_b, 8);
  const LoadBlock first = load_block(*plan, 37);  // warp 1, lane 5
  EXPECT_EQ(first.bb, 8 + 5);
  EXPECT_EQ(first.ba, 0);
  const LoadBlock later = load_block(*plan, 9 * 32 + 30);  // warp 9: second row of warps, lane 30
  EXPECT_EQ(later.bb, 8 + 6);
  EXPECT_EQ(later.ba, 4 + 3);
  std::set<std::pair<int64_t, int64_t>> seen;
  for (int64_t t = 0; t < 512; ++t) {
    const LoadBlock b = load_block(*plan, t);
    EXPECT_TRUE(b.ba >= 0 && b.ba < 8 && b.bb >= 0 && b.bb < 64) << t;
    seen.insert({b.ba, b.bb});
  }
  EXPECT_EQ(seen.size(), 512u);  // every block once
  // Loads: 4 fields (rows of the source 2^23 B apart) x 8 lanes x 16 B: 4 lines of 128 B, 16 sectors.
  EXPECT_EQ(plan->global_read.sectors, 16);
  // Stores: 8 rows (bb) of 32 B, 4 words each (ba), rows 512 B apart: bank j * 8 + ba for every bb. The
  // tile's 32 B rows have two 16 B chunks, so the swizzle (chunk bit 4 by byte bit 9, bb's lowest bit) can
  // only halve the 8 rows per bank: 4 wavefronts for 32 x 4 B, as many per byte as square blocks (16 for 32 x
  // 16 B).
  EXPECT_EQ(plan->staging.bits, 1);
  EXPECT_EQ(plan->staging.base + plan->staging.shift, 9);
  EXPECT_EQ(plan->smem_write.wavefronts, 4);
  expect_converts(*permuted_layout({32, 4096}, {0, 1}), *permuted_layout({32, 4096}, {1, 0}), {32, 4096},
                  DType::kU8);
  // Ragged tiles both ways (48 = 32 + 16 fields, 140000 records = 136 x 1024 + 736) in the same warps: 2 x
  // 137 = 274 tiles, enough that the tile keeps its full size (a tensor of 96 KB, 48 x 2000, has 4 such tiles
  // and takes smaller ones, fewer blocks along b a warp).
  auto ragged = plan_permute({48, 140000}, {1, 0}, DType::kU8);
  ASSERT_TRUE(ragged.ok());
  EXPECT_EQ(ragged->tile_b, 1024);
  EXPECT_EQ(ragged->blocks, 2 * 137);
  EXPECT_EQ(ragged->block_rows, 4);
  EXPECT_EQ(ragged->warp_b, 8);
  expect_converts(*permuted_layout({48, 2000}, {0, 1}), *permuted_layout({48, 2000}, {1, 0}), {48, 2000},
                  DType::kU8);
}

TEST(Convert, ShortModesGroupIntoWholeTileRows) {
  // bf16 (128, 8, 32, 4096) perm (0, 3, 2, 1): the destination's innermost mode has 8 elements (16 B); with
  // the next one (32, destination stride 8) they are 256 contiguous destination elements, not contiguous in
  // the source: group a = both, so the tile's rows are 128 elements (256 B) long instead of 16 B.
  auto plan = plan_permute({128, 8, 32, 4096}, {0, 3, 2, 1}, DType::kBF16);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->kind, ConvertKind::kTiled);
  EXPECT_EQ(plan->group_a.size(), 2u);
  EXPECT_EQ(plan->extent_a, 256);
  EXPECT_EQ(plan->extent_b, 4096);
  EXPECT_EQ(plan->tile_a, 128);
  EXPECT_EQ(plan->tile_b, 128);
  // 16 lanes write one 128-element row (256 B, 8 sectors), the other 16 the next row: 16 sectors for 512 B.
  EXPECT_EQ(plan->global_write.sectors, 16);
  expect_converts(*permuted_layout({2, 8, 32, 64}, {0, 1, 2, 3}),
                  *permuted_layout({2, 8, 32, 64}, {0, 3, 2, 1}), {2, 8, 32, 64}, DType::kBF16);
}

TEST(Convert, ShortDestinationRunFoldsTheNextDestinationMode) {
  // u8 (8, 128, 64, 16, 8, 32) perm (1, 0, 2, 4, 5, 3). Row-major source strides (33554432, 262144, 4096,
  // 256, 32, 1); destination dims (128, 8, 64, 8, 32, 16) give source dims 3, 5, 4, 2, 0, 1 the destination
  // strides 1, 16, 512, 4096, 262144, 2097152. In destination order (extent: src, dst), dims 4 and 5 fused
  // (contiguous on both sides):
  //   (128: 262144, 2097152) (8: 33554432, 262144) (64: 4096, 4096) (256: 1, 16) (16: 256, 1)
  // The destination's run is dim 3 alone: 16 B, followed there by the source's contiguous mode. A tile of
  // those two groups is 16 x 256 B = 4 KiB with 16 B rows; group a goes on with the destination's next mode
  // (64: 4096, 4096), so a = 16 x 64 = 1024 units, b = 256, and the 32 KiB target tile is 256 x 128.
  auto plan = plan_permute({8, 128, 64, 16, 8, 32}, {1, 0, 2, 4, 5, 3}, DType::kU8);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  ASSERT_EQ(plan->kind, ConvertKind::kTiled);
  const std::vector<ConvertMode> modes = {
      {128, 262144, 2097152}, {8, 33554432, 262144}, {64, 4096, 4096}, {256, 1, 16}, {16, 256, 1}};
  EXPECT_EQ(plan->modes, modes);
  EXPECT_EQ(plan->group_a, (std::vector<int>{4, 2}));
  EXPECT_EQ(plan->folded_a, 1);
  EXPECT_EQ(plan->group_b, (std::vector<int>{3}));
  EXPECT_EQ(plan->extent_a, 1024);
  EXPECT_EQ(plan->extent_b, 256);
  EXPECT_EQ(plan->vector_units, 16);
  EXPECT_EQ(plan->tile_a, 256);
  EXPECT_EQ(plan->tile_b, 128);
  EXPECT_EQ(plan->run_a, 16);
  EXPECT_EQ(plan->row_bytes, 16);
  EXPECT_EQ(plan->staging_bytes, 32768);
  EXPECT_EQ(plan->threads, 512);  // (256 / 4) x (128 / 16) register blocks of 4 rows
  // Batch 128 x 8, 4 tiles along a, 2 along b.
  EXPECT_EQ(plan->blocks, 1024 * 4 * 2);
  // Index ia of group a: (ia % 16) along dim 3, ia / 16 along dim 2.
  EXPECT_EQ(group_a_src(*plan, 16 * 5 + 3), 3 * 256 + 5 * 4096);
  EXPECT_EQ(group_a_dst(*plan, 16 * 5 + 3), 3 + 5 * 4096);
  // Staging: slab ia / 16 of 128 rows of 16 B: unit (ia 37, ib 9) is slab 2, row 9, byte 5.
  EXPECT_EQ(staging_byte(*plan, 37, 9), (2 * 128 + 9) * 16 + 5);
  // The load pass's lanes bb = lane % 8, ba = lane / 8 store 4 B words (a column of 4 rows): byte ba * 4 of
  // row bb * 16 + j of slab 0, rows 256 B apart, so the 8 values of bb hit one bank unless chunks move by the
  // row's bits 4-6 (byte offset bits 8-10); the store pass's lanes read consecutive 16 B, whose bits 8-10
  // agree within 8 aligned lanes. XOR of bits 4-6 by bits 8-10 serves both: one wavefront for 32 lanes x 4 B,
  // 4 for 32 lanes x 16 B.
  EXPECT_EQ(plan->staging.bits, 3);
  EXPECT_EQ(plan->staging.base, 4);
  EXPECT_EQ(plan->staging.shift, 4);
  EXPECT_EQ(plan->smem_write.wavefronts, 1);
  EXPECT_EQ(plan->smem_read.wavefronts, 4);
  // Loads: 8 lanes x 16 B contiguous along b, 4 such rows of a (rows 0, 4, 8, 12 of dim 3, 1024 B apart);
  // stores: 32 rows of 16 B consecutive in the destination (512 B). 16 sectors per request both ways.
  EXPECT_EQ(plan->global_read.sectors, 16);
  EXPECT_EQ(plan->global_write.sectors, 16);

  // The same permutation scaled down (dims 0, 1, 2 shortened), run on the host element by element.
  const std::vector<int64_t> small = {2, 3, 20, 16, 8, 32};
  auto folded = plan_permute(small, {1, 0, 2, 4, 5, 3}, DType::kU8);
  ASSERT_TRUE(folded.ok());
  EXPECT_EQ(folded->folded_a, 1);
  EXPECT_EQ(folded->extent_a, 16 * 20);  // a partial tile along a: 320 = 256 + 64
  expect_converts(*permuted_layout(small, {0, 1, 2, 3, 4, 5}), *permuted_layout(small, {1, 0, 2, 4, 5, 3}),
                  small, DType::kU8);
}

TEST(Convert, FoldedPlansOverRandomPermutations) {
  // Shapes whose destination-innermost dimension is short and whose source-innermost dimension comes right
  // after it in the destination, the case that folds; each plan run on the host element by element.
  std::mt19937 rng(47);
  const DType types[] = {DType::kU8, DType::kBF16, DType::kF32};
  int folds = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const int rank = 3 + trial % 4;
    const DType dtype = types[trial % 3];
    std::vector<int64_t> shape(rank), perm(rank);
    for (int i = 0; i < rank; ++i) shape[i] = 2 + rng() % 3;
    shape[rank - 1] = 64 / dtype_bytes(dtype);  // 64 B source rows
    const int inner = static_cast<int>(rng() % (rank - 1));
    shape[inner] = std::min<int64_t>(16 / dtype_bytes(dtype), 8);  // <= 16 B destination run
    // Destination order: the others shuffled, then the source's last, then `inner`.
    std::vector<int64_t> rest;
    for (int i = 0; i < rank - 1; ++i) {
      if (i != inner) rest.push_back(i);
    }
    std::shuffle(rest.begin(), rest.end(), rng);
    perm.assign(rest.begin(), rest.end());
    perm.push_back(rank - 1);
    perm.push_back(inner);
    std::vector<int64_t> identity(rank);
    std::iota(identity.begin(), identity.end(), 0);
    auto plan = plan_permute(shape, perm, dtype);
    ASSERT_TRUE(plan.ok()) << plan.error().message;
    if (plan->folded_a > 0) ++folds;
    expect_converts(*permuted_layout(shape, identity), *permuted_layout(shape, perm), shape, dtype);
  }
  EXPECT_GE(folds, 30);  // the test exercises what it is about
}

TEST(Convert, ShortSharedRunMovesAsOneUnit) {
  // (64, 32, 2) perm (1, 0, 2), fp32: the last 2 floats (8 B) stay together: a tiled plan over 8 B units.
  auto plan = plan_permute({64, 32, 2}, {1, 0, 2}, DType::kF32);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->kind, ConvertKind::kTiled);
  EXPECT_EQ(plan->common_vector, 2);
  EXPECT_EQ(plan->unit_elems, 2);
  EXPECT_EQ(plan->unit_bytes, 8);
  // A run of exactly 16 B (8 bf16) is one unit too, a whole vector per lane: 16 B accesses with no register
  // transpose (V = 1), so the rows of the tile stay contiguous on both sides.
  auto sixteen = plan_permute({64, 32, 8}, {1, 0, 2}, DType::kBF16);
  ASSERT_TRUE(sixteen.ok());
  EXPECT_EQ(sixteen->kind, ConvertKind::kTiled);
  EXPECT_EQ(sixteen->unit_bytes, 16);
  EXPECT_EQ(sixteen->vector_units, 1);
  expect_converts(*permuted_layout({64, 32, 8}, {0, 1, 2}), *permuted_layout({64, 32, 8}, {1, 0, 2}),
                  {64, 32, 8}, DType::kBF16);
}

TEST(Convert, SharedRunOfOneSectorMovesAsAWideUnit) {
  // u8 (1024,64,128,32) perm (1,2,0,3): the last 32 B stay together, and consecutive destination runs are
  // 64 x 128 x 32 B = 256 KiB apart in the source. One 32 B unit per run, carried by two lanes of 16 B.
  auto plan = plan_permute({1024, 64, 128, 32}, {1, 2, 0, 3}, DType::kU8);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->kind, ConvertKind::kTiled);
  EXPECT_EQ(plan->unit_bytes, 32);
  EXPECT_EQ(plan->unit_lanes, 2);
  EXPECT_EQ(access_bytes(*plan), 16);
  EXPECT_EQ(plan->tile_a, 32);
  EXPECT_EQ(plan->tile_b, 32);
  EXPECT_EQ(plan->row_bytes, 32 * 32);
  // A warp's 32 lanes carry 16 neighbouring units of one row: 512 B contiguous on each side; the staging
  // swizzle keeps both shared passes at the ideal.
  expect_copy_costs(*plan);
  // The same for 8 floats and 16 bf16; a smaller tensor, partial tiles included, run on the host.
  auto f32 = plan_permute({1024, 64, 128, 8}, {1, 2, 0, 3}, DType::kF32);
  ASSERT_TRUE(f32.ok());
  EXPECT_EQ(f32->unit_bytes, 32);
  const std::vector<int64_t> shapes[] = {{64, 4, 16, 32}, {40, 3, 20, 32}, {5, 33, 7, 32}};
  for (const auto& shape : shapes) {
    expect_converts(*permuted_layout(shape, {0, 1, 2, 3}), *permuted_layout(shape, {1, 2, 0, 3}), shape,
                    DType::kU8);
    auto p = plan_permute(shape, {1, 2, 0, 3}, DType::kU8);
    EXPECT_EQ(p->unit_lanes, 2);
  }
  expect_converts(*permuted_layout({40, 3, 20, 16}, {0, 1, 2, 3}),
                  *permuted_layout({40, 3, 20, 16}, {2, 0, 1, 3}), {40, 3, 20, 16}, DType::kBF16);
  // A run of 64 B stays a vector plan; so does a 48 B run, which no power-of-two unit of 32 B divides.
  EXPECT_EQ(plan_permute({64, 32, 64}, {1, 0, 2}, DType::kU8)->kind, ConvertKind::kVector);
  auto odd = plan_permute({64, 32, 48}, {1, 0, 2}, DType::kU8);
  ASSERT_TRUE(odd.ok());
  EXPECT_EQ(odd->kind, ConvertKind::kVector);
  EXPECT_EQ(access_bytes(*odd), 16);
  expect_converts(*permuted_layout({64, 32, 48}, {0, 1, 2}), *permuted_layout({64, 32, 48}, {1, 0, 2}),
                  {64, 32, 48}, DType::kU8);
}

TEST(Convert, RecordsOfSixteenBytesArePairedAcrossTwoLanes) {
  // bf16 AoS -> SoA [N, 8] -> [8, N]: a record is one 16 B row of an 8 x 8 block. One lane per block would
  // read rows 16 B apart, 128 B between lanes: 32 sectors for 512 B. Two lanes per block read rows 2k and
  // 2k+1, a whole 32 B sector per pair: 16 sectors, a copy's count.
  auto bf16 = plan_permute({1 << 20, 8}, {1, 0}, DType::kBF16);
  ASSERT_TRUE(bf16.ok()) << bf16.error().message;
  EXPECT_TRUE(bf16->paired);
  EXPECT_EQ(bf16->vector_units, 8);
  EXPECT_EQ(bf16->global_read.sectors, 16);
  EXPECT_EQ(bf16->global_write.sectors, 16);
  EXPECT_EQ(bf16->smem_write.wavefronts, 4);  // 512 B, the staging swizzle keeps it ideal
  // The same for 4 floats and 2 doubles per record; 8 floats (32 B records) already read whole sectors.
  EXPECT_TRUE(plan_permute({1 << 20, 4}, {1, 0}, DType::kF32)->paired);
  EXPECT_TRUE(plan_permute({1 << 20, 2}, {1, 0}, DType::kF64)->paired);
  EXPECT_FALSE(plan_permute({1 << 20, 8}, {1, 0}, DType::kF32)->paired);
  EXPECT_FALSE(plan_permute({4096, 4096}, {1, 0}, DType::kBF16)->paired);
  // Run on the host, a ragged tile included (1001 records).
  for (int64_t n : {int64_t{4096}, int64_t{1001}}) {
    expect_converts(*permuted_layout({n, 8}, {0, 1}), *permuted_layout({n, 8}, {1, 0}), {n, 8}, DType::kBF16);
    expect_converts(*permuted_layout({n, 4}, {0, 1}), *permuted_layout({n, 4}, {1, 0}), {n, 4}, DType::kF32);
    expect_converts(*permuted_layout({n, 2}, {0, 1}), *permuted_layout({n, 2}, {1, 0}), {n, 2}, DType::kF64);
  }
}

TEST(Convert, TrafficIsTheUsefulBytesScaledBySectorsOverTheIdeal) {
  // The fp32 4096^2 transpose's accesses are whole sectors (16 per 32 lanes x 16 B): a copy's traffic,
  // 4096^2 x 4 B read and again written.
  auto t = plan_convert(parse("S[(4096,4096):(4096,1)]"), parse("S[(4096,4096):(1,4096)]"), {4096, 4096},
                        DType::kF32);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(convert_traffic_bytes(*t), int64_t{2} * 4096 * 4096 * 4);
  // A made-up plan whose reads put each 4 B lane in its own 32 B sector (32 sectors where 4 would do: 8x)
  // and whose writes are ideal: 1024 elements x 4 B = 4096 B useful per side -> 8 x 4096 + 4096.
  ConvertPlan bad;
  bad.elements = 1024;
  bad.elem_bytes = 4;
  bad.global_read = WarpCost{32, 0, 0, 4, 32};
  bad.global_write = WarpCost{4, 0, 0, 4, 32};
  EXPECT_EQ(convert_traffic_bytes(bad), 8 * 4096 + 4096);
  // Half a warp reading 16 B each from 8 sectors is ideal too (16 x 16 B = 256 B = 8 sectors).
  bad.global_read = WarpCost{8, 0, 0, 16, 16};
  EXPECT_EQ(convert_traffic_bytes(bad), 2 * 4096);
}

TEST(Convert, RefusesWhatIsNotAConversion) {
  auto aliasing = plan_convert(parse("S[(4,4):(4,1)]"), parse("S[(4,4):(1,1)]"), {4, 4}, DType::kF32);
  ASSERT_FALSE(aliasing.ok());
  EXPECT_EQ(aliasing.error().field, "dst");
  EXPECT_NE(aliasing.error().message.find("aliasing"), std::string::npos);
  auto gap = plan_convert(parse("S[(4,4):(4,1)]"), parse("S[(4,4):(8,1)]"), {4, 4}, DType::kF32);
  ASSERT_FALSE(gap.ok());
  EXPECT_NE(gap.error().message.find("gap"), std::string::npos);
  auto size = plan_convert(parse("S[(4,4):(4,1)]"), parse("S[(4,8):(8,1)]"), {4, 4}, DType::kF32);
  ASSERT_FALSE(size.ok());
  EXPECT_EQ(size.error().field, "dst");
  auto replica =
      plan_convert(parse("S[(4,4):(4,1)]"), parse("S[(4,4):(4,1)] + R[2:16]"), {4, 4}, DType::kF32);
  ASSERT_FALSE(replica.ok());
  EXPECT_NE(replica.error().message.find("replicas"), std::string::npos);
  auto axis = plan_convert(parse("S[(4,4):(4@laneid,1)]"), parse("S[(4,4):(4,1)]"), {4, 4}, DType::kF32);
  ASSERT_FALSE(axis.ok());
  EXPECT_EQ(axis.error().field, "src");
  // (6,4) and (4,6) split 24 elements at 4 and at 6: neither run nests in the other.
  auto split = plan_convert(parse("S[(6,4):(4,1)]"), parse("S[(4,6):(6,1)]"), {24}, DType::kF32);
  ASSERT_FALSE(split.ok());
  auto perm = plan_permute({2, 3}, {0, 0}, DType::kF32);
  ASSERT_FALSE(perm.ok());
  EXPECT_EQ(perm.error().field, "perm");
}

TEST(Convert, HostExecutorMatchesTheDefinition) {
  expect_converts(parse("S[(64,64):(64,1)]"), parse("S[(64,64):(1,64)]"), {64, 64}, DType::kF32);
  expect_converts(parse("S[(100,36):(36,1)]"), parse("S[(100,36):(1,100)]"), {100, 36}, DType::kBF16);
  expect_converts(parse("S[(130,70):(70,1)]"), parse("S[(130,70):(1,130)]"), {130, 70}, DType::kU8);
  expect_converts(parse("S[(33,17):(17,1)]"), parse("S[(33,17):(1,33)]"), {33, 17}, DType::kF64);
  // A padded source (row pitch 40 for 32 columns) into a dense transpose.
  expect_converts(parse("S[(48,32):(40,1)]"), parse("S[(48,32):(1,48)]"), {48, 32}, DType::kF32);
  // The tile layout of the chapter into row-major.
  expect_converts(parse("S[(4,2,2,4):(16,4,8,1)]"), parse("S[(8,8):(8,1)]"), {8, 8}, DType::kF32);
}

TEST(Convert, RandomPermutationsOfRankThreeToSix) {
  std::mt19937 rng(2026);
  const DType types[] = {DType::kU8, DType::kBF16, DType::kF32, DType::kF64};
  for (int trial = 0; trial < 60; ++trial) {
    const int rank = 3 + trial % 4;
    std::vector<int64_t> shape(rank), perm(rank);
    for (int i = 0; i < rank; ++i)
      shape[i] = std::uniform_int_distribution<int>(1, 3)(rng) * (1 << (rng() % 3));
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    std::vector<int64_t> identity(rank);
    std::iota(identity.begin(), identity.end(), 0);
    auto src = permuted_layout(shape, identity);
    auto dst = permuted_layout(shape, perm);
    ASSERT_TRUE(src.ok() && dst.ok());
    expect_converts(*src, *dst, shape, types[trial % 4]);
  }
}

// The gather as plain modes. NCHW -> NHWC of (64, 3, 224, 224) u8: destination order N (source stride
// 3 x 224 x 224), H and W (224 and 1: one run of 50176), C (50176); C, innermost, does not step by 1 in the
// source, so a unit is one element. BSHD -> BHSD of (2, 197, 12, 64) bf16: B (197 x 12 x 64 = 151296), H
// (64), S (12 x 64 = 768), D (1); D's 64-element runs and every other stride are multiples of 8, and 8 bf16
// are 16 B: units of 8 elements, strides divided by 8.
TEST(Convert, GatherModesFuseRunsAndCountUnits) {
  auto nchw = plan_permute({64, 3, 224, 224}, {0, 2, 3, 1}, DType::kU8);
  ASSERT_TRUE(nchw.ok());
  const GatherModes a = gather_modes(*nchw);
  EXPECT_EQ(a.unit_elems, 1);
  ASSERT_EQ(a.modes.size(), 3u);
  EXPECT_EQ(a.modes[0].extent, 64);
  EXPECT_EQ(a.modes[0].src_stride, 150528);
  EXPECT_EQ(a.modes[1].extent, 50176);
  EXPECT_EQ(a.modes[1].src_stride, 1);
  EXPECT_EQ(a.modes[2].extent, 3);
  EXPECT_EQ(a.modes[2].src_stride, 50176);
  auto bshd = plan_permute({2, 197, 12, 64}, {0, 2, 1, 3}, DType::kBF16);
  ASSERT_TRUE(bshd.ok());
  const GatherModes b = gather_modes(*bshd);
  EXPECT_EQ(b.unit_elems, 8);
  ASSERT_EQ(b.modes.size(), 4u);
  const int64_t want[4][2] = {{2, 18912}, {12, 8}, {197, 96}, {8, 1}};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(b.modes[i].extent, want[i][0]) << i;
    EXPECT_EQ(b.modes[i].src_stride, want[i][1]) << i;
  }
}
// The generated load pass addresses a register block's V columns (rows bb * V + j of the staging tile) as
// the first column's swizzled offset XOR a constant a column (staging_column_offset): the swizzle is linear
// over XOR, and the columns' bits are apart from the rest of the offset. Checked against the staging offset
// itself (staging_byte, then the swizzle) for every block of the tile and every column, on plans whose
// swizzle reads the columns' bits (the rank-5 reversal, the prime u8 transpose), changes them (a folded
// plan) or neither (the f32 transpose).
TEST(Convert, StagingColumnsAreTheFirstColumnXorAConstant) {
  struct Case {
    std::vector<int64_t> shape, perm;
    DType dtype;
  };
  const std::vector<Case> cases = {{{15, 17, 19, 21, 23}, {4, 3, 2, 1, 0}, DType::kU8},
                                   {{10007, 1009}, {1, 0}, DType::kU8},
                                   {{8, 128, 64, 16, 8, 32}, {1, 0, 2, 4, 5, 3}, DType::kU8},
                                   {{4096, 4096}, {1, 0}, DType::kF32},
                                   {{4096, 4096}, {1, 0}, DType::kU8}};
  std::set<ColumnStep> steps;
  for (const Case& c : cases) {
    auto plan = plan_permute(c.shape, c.perm, c.dtype);
    ASSERT_TRUE(plan.ok());
    const ColumnStep step = staging_column_step(*plan);
    ASSERT_NE(step, ColumnStep::kPerColumn);
    steps.insert(step);
    const int64_t v = plan->vector_units;
    for (int64_t ba = 0; ba < plan->tile_a / plan->block_rows; ++ba) {
      for (int64_t bb = 0; bb < plan->tile_b / v; ++bb) {
        const int64_t ia = ba * plan->block_rows;
        const int64_t first = apply_swizzle(plan->staging, staging_byte(*plan, ia, bb * v));
        for (int64_t j = 0; j < v; ++j) {
          ASSERT_EQ(apply_swizzle(plan->staging, staging_byte(*plan, ia, bb * v + j)),
                    first ^ staging_column_offset(*plan, j))
              << c.shape.size() << " modes, ba " << ba << " bb " << bb << " j " << j;
        }
      }
    }
  }
  EXPECT_TRUE(steps.count(ColumnStep::kXorSwizzled)) << "no case had a swizzle reading the columns";
}

}  // namespace
}  // namespace layoutscope
