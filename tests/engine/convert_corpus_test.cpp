// The realistic conversion corpus (tests/gpu/convert_corpus.json), scaled down, planned and run on the host
// executor exactly as the kernel's lanes run it, every output byte checked against the definition
// out[dst(x)] = in[src(x)] worked out here from the shapes and strides alone; and the planner's choices on
// the corpus's small-mode shapes (channels, record fields) against the arithmetic of the access widths.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <numeric>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "layoutscope/parse.hpp"
#include "layoutscope/plan/convert.hpp"

#ifdef LAYOUTSCOPE_CONVERT_CORPUS
#include <nlohmann/json.hpp>
#endif

namespace layoutscope {
namespace {

// Row-major digits of x over `extents`, dotted with `strides`.
int64_t strided_offset(const std::vector<int64_t>& extents, const std::vector<int64_t>& strides, int64_t x) {
  int64_t off = 0;
  for (size_t i = extents.size(); i-- > 0;) {
    off += (x % extents[i]) * strides[i];
    x /= extents[i];
  }
  return off;
}

int64_t product(const std::vector<int64_t>& v) {
  return std::accumulate(v.begin(), v.end(), int64_t{1}, std::multiplies<>());
}

// The corpus's shape made small enough for the host: the largest extent above 16 halved (an odd one stays
// odd) until at most 2^18 elements remain, so that small modes, odd and prime extents and ragged tails keep
// their character.
std::vector<int64_t> scaled(std::vector<int64_t> shape) {
  while (product(shape) > (int64_t{1} << 18)) {
    auto big = std::max_element(shape.begin(), shape.end());
    if (*big <= 16) break;
    *big = *big / 2 | (*big & 1);
  }
  return shape;
}

// A side's offset and swizzle: m = swz(strided + offset), the swizzle as CuTe defines Swizzle<B,M,S> (bits
// [M, M+B) XORed with bits [M+S, M+S+B)); bits == 0: none.
struct SideMap {
  int64_t offset = 0;
  int bits = 0, base = 0, shift = 0;
  int64_t operator()(int64_t o) const {
    o += offset;
    return bits == 0 ? o : o ^ (((o >> (base + shift)) & ((int64_t{1} << bits) - 1)) << base);
  }
};

SideMap side_map(const Layout& l) {
  SideMap m;
  for (const AxisStride& o : l.offset) m.offset += o.k;
  if (l.swizzle) {
    EXPECT_TRUE(l.swizzle->inner);
    m.bits = l.swizzle->bits;
    m.base = l.swizzle->base;
    m.shift = l.swizzle->shift;
  }
  return m;
}

// Runs the plan on the host and compares every byte with the definition. src/dst: extents and strides of
// each side over the logical shape, row-major, then the side's offset and swizzle.
void check_plan(const std::string& name, const ConvertPlan& plan, const std::vector<int64_t>& src_ext,
                const std::vector<int64_t>& src_str, const std::vector<int64_t>& dst_ext,
                const std::vector<int64_t>& dst_str, SideMap src_map = {}, SideMap dst_map = {}) {
  const int64_t n = plan.elements, eb = plan.elem_bytes;
  std::vector<int64_t> s_of(static_cast<size_t>(n)), d_of(static_cast<size_t>(n));
  int64_t src_cosize = 0, dst_cosize = 0;
  for (int64_t x = 0; x < n; ++x) {
    s_of[static_cast<size_t>(x)] = src_map(strided_offset(src_ext, src_str, x));
    d_of[static_cast<size_t>(x)] = dst_map(strided_offset(dst_ext, dst_str, x));
    src_cosize = std::max(src_cosize, s_of[static_cast<size_t>(x)] + 1);
    dst_cosize = std::max(dst_cosize, d_of[static_cast<size_t>(x)] + 1);
  }
  EXPECT_GE(source_extent(plan), src_cosize) << name;
  EXPECT_GE(destination_extent(plan), dst_cosize) << name;
  std::vector<std::byte> in(static_cast<size_t>(source_extent(plan) * eb)),
      out(static_cast<size_t>(dst_cosize * eb)), want(static_cast<size_t>(dst_cosize * eb));
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::byte>((i * 2654435761u) >> 11);
  std::fill(want.begin(), want.end(), std::byte{0xA5});  // what the offset leaves alone stays
  for (int64_t x = 0; x < n; ++x) {
    std::memcpy(want.data() + d_of[static_cast<size_t>(x)] * eb,
                in.data() + s_of[static_cast<size_t>(x)] * eb, static_cast<size_t>(eb));
  }
  std::fill(out.begin(), out.end(), std::byte{0xA5});
  auto moved = execute_convert_host(plan, in, out);
  ASSERT_TRUE(moved.ok()) << name;
  EXPECT_EQ(*moved, n) << name;
  EXPECT_TRUE(out == want) << name << ": " << to_string(plan.kind) << " plan, " << plan.reason;
  EXPECT_FALSE(plan.reason.empty()) << name;
}

// check_plan for x.permute(perm).contiguous() of a row-major tensor: the source row-major over shape, the
// destination row-major over the permuted shape, so dimension perm[k] of the source has the stride of
// position k there.
void check_permute(const std::string& name, const ConvertPlan& plan, const std::vector<int64_t>& shape,
                   const std::vector<int64_t>& perm) {
  std::vector<int64_t> src_str(shape.size()), dst_str(shape.size());
  for (size_t i = shape.size(), s = 1; i-- > 0;)
    src_str[i] = static_cast<int64_t>(std::exchange(s, s * static_cast<size_t>(shape[i])));
  for (size_t k = shape.size(), s = 1; k-- > 0;) {
    dst_str[static_cast<size_t>(perm[k])] = static_cast<int64_t>(s);
    s *= static_cast<size_t>(shape[static_cast<size_t>(perm[k])]);
  }
  check_plan(name, plan, shape, src_str, shape, dst_str);
}

#ifdef LAYOUTSCOPE_CONVERT_CORPUS
TEST(ConvertCorpus, EveryCasePlansAndVerifiesOnTheHostScaledDown) {
  std::ifstream file(LAYOUTSCOPE_CONVERT_CORPUS);
  ASSERT_TRUE(file.good());
  const nlohmann::json corpus = nlohmann::json::parse(file);
  int planned = 0, refused = 0, interleaved = 0;
  for (const auto& c : corpus["cases"]) {
    const std::string name = c["name"];
    auto dtype = parse_dtype(std::string(c["dtype"]));
    ASSERT_TRUE(dtype.ok()) << name;
    if (c.contains("perm")) {
      const std::vector<int64_t> shape = scaled(c["shape"].get<std::vector<int64_t>>());
      const auto perm = c["perm"].get<std::vector<int64_t>>();
      auto plan = plan_permute(shape, perm, *dtype);
      ASSERT_TRUE(plan.ok()) << name << ": " << plan.error().message;
      check_permute(name, *plan, shape, perm);
      interleaved += plan->kind == ConvertKind::kInterleave;
      ++planned;
      continue;
    }
    auto src_parsed = parse_layout(std::string(c["src"]));
    auto dst_parsed = parse_layout(std::string(c["dst"]));
    ASSERT_TRUE(src_parsed.ok() && dst_parsed.ok()) << name;
    Layout src_layout = *src_parsed, dst_layout = *dst_parsed;
    Layout* src = &src_layout;
    Layout* dst = &dst_layout;
    std::vector<int64_t> shape = c["shape"].get<std::vector<int64_t>>();
    // Scaled down: the destination's outermost dimension (largest stride) shortened, which keeps the
    // destination dense and the source strided (one mode per dimension on both sides).
    ASSERT_EQ(src->shard.size(), shape.size()) << name;
    ASSERT_EQ(dst->shard.size(), shape.size()) << name;
    size_t outer = 0;
    for (size_t k = 0; k < shape.size(); ++k) {
      if (dst->shard[k].stride.k > dst->shard[outer].stride.k) outer = k;
    }
    while (product(shape) > (int64_t{1} << 20) && shape[outer] > 1) {
      shape[outer] = (shape[outer] + 1) / 2;
      src->shard[outer].extent = dst->shard[outer].extent = shape[outer];
    }
    auto plan = plan_convert(*src, *dst, shape, *dtype);
    if (!plan.ok()) {
      // A refusal names the layout it refuses.
      EXPECT_TRUE(plan.error().field == "src" || plan.error().field == "dst") << name;
      ++refused;
      continue;
    }
    std::vector<int64_t> se, ss, de, ds;
    for (const Mode& m : src->shard) se.push_back(m.extent), ss.push_back(m.stride.k);
    for (const Mode& m : dst->shard) de.push_back(m.extent), ds.push_back(m.stride.k);
    check_plan(name, *plan, se, ss, de, ds, side_map(*src), side_map(*dst));
    ++planned;
  }
  EXPECT_GE(planned + refused, 60);
  EXPECT_EQ(refused, 0);  // the corpus's offset and swizzled layouts plan
  EXPECT_GT(interleaved, 10);
}
#endif

// NCHW -> NHWC with 3 channels of u8: the channels are the destination's innermost mode (3 units), far too
// short for a tile row; a thread takes 16 B of each plane (3 loads of 16 B), and the warp writes 32 x 48 B =
// 1536 contiguous bytes, 16 B per lane: 16 sectors of 32 B per 512 B request on both sides.
TEST(ConvertCorpus, ThreeChannelsOfBytesInterleaveSixteenBytesPerLane) {
  auto plan = plan_permute({64, 3, 224, 224}, {0, 2, 3, 1}, DType::kU8);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->kind, ConvertKind::kInterleave);
  EXPECT_TRUE(plan->packed_dst);
  EXPECT_EQ(plan->small_extent, 3);
  EXPECT_EQ(plan->long_extent, 224 * 224);
  EXPECT_EQ(plan->plane_stride, 224 * 224);
  EXPECT_EQ(access_bytes(*plan), 16);
  EXPECT_EQ(plan->global_read.sectors, 16);
  EXPECT_EQ(plan->global_write.sectors, 16);
  // 224 * 224 / 16 = 3136 chunks per image, 64 images, 256 threads a block.
  EXPECT_EQ(plan->items, 3136 * 64);
  EXPECT_EQ(plan->blocks, 3136 * 64 / 256);
  // The exchange: 8 warps x 32 lanes x 48 B. A lane's 3 chunks are 48 B apart: the 8 lanes of a quarter
  // warp start at chunks 0, 3, ..., 21, distinct modulo 8 (3 is odd), so each 16 B store is 4 wavefronts.
  EXPECT_EQ(plan->staging_bytes, 8 * 32 * 48);
  EXPECT_EQ(plan->smem_write.wavefronts, 4);
  EXPECT_EQ(plan->smem_read.wavefronts, 4);
  EXPECT_NE(plan->reason.find("interleave"), std::string::npos);
  EXPECT_NE(plan->reason.find("beat tiled"), std::string::npos) << plan->reason;  // what it beat
}

// AoS of 5 B records -> SoA: the records are the source's innermost mode; a warp reads 32 x 5 x 16 B
// contiguous, a thread splits its 80 bytes into 5 planes of 16 B.
TEST(ConvertCorpus, FiveByteRecordsDeinterleave) {
  auto plan = plan_permute({1 << 20, 5}, {1, 0}, DType::kU8);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->kind, ConvertKind::kInterleave);
  EXPECT_FALSE(plan->packed_dst);
  EXPECT_EQ(plan->small_extent, 5);
  EXPECT_EQ(plan->plane_stride, 1 << 20);
  EXPECT_EQ(access_bytes(*plan), 16);
  EXPECT_EQ(plan->staging_bytes, 8 * 32 * 80);
}

// SoA -> AoS of 20 one-byte fields, 2^22 records: more than 16 planes, so each lane's 20 chunks of 16 B are
// padded to 21 in the exchange (a stride of 20 chunks would put a quarter warp's 8 lanes on chunks 20 l, 2
// distinct of the 8 bank groups). The warp's area is 32 x 21 x 16 = 10752 B; 8, 4 or 2 warps would hold
// 86016, 43008 or 21504 B, and only 2 fit the 32 KiB a block: 64 threads, 2^22 / 16 = 262144 items, 4096
// blocks. Lane stores of its 21-chunk record: chunks 21 l, distinct modulo 8 (21 is odd), 4 wavefronts. The
// coalesced pass's first load, chunk q = lane of owner q / 20: q + owner, so lanes 16..23 hit chunks 16..19
// and 21..24, 24 and 16 in one group: 2 wavefronts for that quarter, 5 in all.
TEST(ConvertCorpus, TwentyByteRecordsInterleaveThroughPaddedLanes) {
  auto plan = plan_permute({20, 1 << 22}, {1, 0}, DType::kU8);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->kind, ConvertKind::kInterleave);
  EXPECT_TRUE(plan->packed_dst);
  EXPECT_EQ(plan->small_extent, 20);
  EXPECT_EQ(plan->lane_chunks, 21);
  EXPECT_EQ(access_bytes(*plan), 16);
  EXPECT_EQ(plan->threads, 64);
  EXPECT_EQ(plan->staging_bytes, 21504);
  EXPECT_EQ(plan->blocks, 4096);
  EXPECT_EQ(exchange_byte(*plan, 1, 0), 21 * 16);
  EXPECT_EQ(plan->smem_write.wavefronts, 4);
  EXPECT_EQ(plan->smem_read.wavefronts, 5);
  EXPECT_NE(plan->reason.find("beat tiled"), std::string::npos) << plan->reason;
  // 16 planes stay unpadded (the suite's and the corpus's plans of at most 16 fields are unchanged).
  auto sixteen = plan_permute({16, 1 << 20}, {1, 0}, DType::kU8);
  ASSERT_TRUE(sixteen.ok());
  EXPECT_EQ(sixteen->lane_chunks, sixteen->small_extent);
  // Both ways on the host: 4099 records (ragged, odd planes read unaligned), 4112 = 257 x 16 records into
  // planes, and 24 planes of 100 in a batch of 3.
  for (const auto& [shape, perm] : std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>{
           {{20, 4099}, {1, 0}}, {{4112, 20}, {1, 0}}, {{3, 24, 100}, {0, 2, 1}}}) {
    auto p = plan_permute(shape, perm, DType::kU8);
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(p->kind, ConvertKind::kInterleave);
    check_permute("records of 20 or 24", *p, shape, perm);
  }
}

// Records of every length a thread holds (1 to 24 units, u8, bf16 and f32, both ways), the shared
// wavefronts of each pass over the exchange (a lane's own chunk k, then chunk 32 k + lane of the packed
// order, for every k) worked out here without the engine's bank model: 16 B accesses are served a quarter
// warp at a time, and the most lanes of a quarter on one 16 B bank group (address / 16 mod 8) is its
// wavefronts. Every interleave takes at most twice the ideal 4; records of 4 chunks take the ideal, through
// an XOR. And the XOR moves chunks only within their lane's records: lane l's R chunks are each in one place
// of l x lane_chunks .. l x lane_chunks + R - 1.
TEST(ConvertCorpus, EveryRecordLengthExchangesWithoutBankConflicts) {
  int interleaves = 0, fours = 0;
  for (const DType dtype : {DType::kU8, DType::kBF16, DType::kF32}) {
    for (int64_t r = 1; r <= 24; ++r) {
      for (const bool packed_dst : {true, false}) {
        // 2^21 records: at least 2^17 items of 16 B, more than 264 blocks of 256 threads (a smaller tensor
        // into records stores without the exchange).
        const int64_t n = int64_t{1} << 21;
        auto plan = packed_dst ? plan_permute({r, n}, {1, 0}, dtype) : plan_permute({n, r}, {1, 0}, dtype);
        ASSERT_TRUE(plan.ok());
        const std::string what = std::to_string(r) + " units of " + std::to_string(dtype_bytes(dtype)) +
                                 " B, " + (packed_dst ? "into records" : "into planes");
        if (plan->kind != ConvertKind::kInterleave) continue;
        ++interleaves;
        EXPECT_FALSE(plan->direct_stores) << what;
        ASSERT_EQ(access_bytes(*plan), 16) << what;
        auto quarter_wavefronts = [](const std::vector<int64_t>& at) {
          int64_t total = 0;
          for (int q = 0; q < 4; ++q) {
            int per_group[8] = {};
            for (int l = 8 * q; l < 8 * q + 8; ++l) ++per_group[at[l] / 16 % 8];
            total += *std::max_element(per_group, per_group + 8);
          }
          return total;
        };
        const int64_t stride = plan->lane_chunks;
        std::vector<bool> seen(static_cast<size_t>(32 * stride), false);
        for (int64_t k = 0; k < r; ++k) {
          std::vector<int64_t> own(32), coalesced(32);
          for (int64_t l = 0; l < 32; ++l) {
            own[l] = exchange_byte(*plan, l, k);
            coalesced[l] = exchange_byte(*plan, (32 * k + l) / r, (32 * k + l) % r);
            const int64_t chunk = own[l] / 16;
            EXPECT_TRUE(chunk >= l * stride && chunk < l * stride + r)
                << what << ", lane " << l << " chunk " << k;
            if (chunk >= 0 && chunk < 32 * stride) seen[static_cast<size_t>(chunk)] = true;
          }
          EXPECT_LE(quarter_wavefronts(own), 8) << what << ", the lanes' pass, chunk " << k;
          EXPECT_LE(quarter_wavefronts(coalesced), 8) << what << ", the coalesced pass, chunk " << k;
          if (r == 4) {
            EXPECT_EQ(quarter_wavefronts(own), 4) << what << ", the lanes' pass, chunk " << k;
            EXPECT_EQ(quarter_wavefronts(coalesced), 4) << what << ", the coalesced pass, chunk " << k;
          }
        }
        if (r == 4) ++fours;
        EXPECT_EQ(std::count(seen.begin(), seen.end(), true), 32 * r) << what;
      }
    }
  }
  // The test exercises what it is about: most of the 144 plans interleave, records of 4 chunks among them.
  EXPECT_GE(interleaves, 100);
  EXPECT_GE(fours, 3);
}

// A single 224 x 224 RGB image of f32 to NHWC: 50176 / 4 = 12544 items of 16 B a plane, 49 blocks of 256
// threads, fewer than the 2 x 132 that reach every SM twice. Each lane stores its own 3 chunks (no exchange):
// blocks of 128 would still be 98, of 64 are 196 (the smallest). A store puts 32 lanes' 16 B at a 48 B
// stride, one sector each (32 where the exchange's coalesced stores take 16), no shared memory. At 264
// blocks of 256 (67584 items, 3 planes of 270336 f32) the exchange comes back; at 263 (269312) it does not.
TEST(ConvertCorpus, SmallImagesStoreEachLanesRecordWithoutTheExchange) {
  auto plan = plan_permute({1, 3, 224, 224}, {0, 2, 3, 1}, DType::kF32);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->kind, ConvertKind::kInterleave);
  EXPECT_TRUE(plan->direct_stores);
  EXPECT_EQ(plan->items, 12544);
  EXPECT_EQ(plan->threads, 64);
  EXPECT_EQ(plan->blocks, 196);
  EXPECT_EQ(plan->staging_bytes, 0);
  EXPECT_EQ(plan->global_read.sectors, 16);
  EXPECT_EQ(plan->global_write.sectors, 32);
  EXPECT_EQ(plan->smem_write.wavefronts, 0);
  EXPECT_EQ(plan->smem_read.wavefronts, 0);
  EXPECT_NE(plan->reason.find("no exchange"), std::string::npos) << plan->reason;
  // DRAM sees a copy's bytes: the lane's 3 stores fill the sectors they each half-write (602112 B a side).
  EXPECT_EQ(convert_traffic_bytes(*plan), 2 * 602112);
  EXPECT_NE(plan->reason.find("beat tiled"), std::string::npos) << plan->reason;
  auto at_fill = plan_permute({3, 270336}, {1, 0}, DType::kF32);
  auto below = plan_permute({3, 269312}, {1, 0}, DType::kF32);
  ASSERT_TRUE(at_fill.ok() && below.ok());
  EXPECT_EQ(at_fill->kind, ConvertKind::kInterleave);
  EXPECT_FALSE(at_fill->direct_stores);
  EXPECT_EQ(at_fill->threads, 256);
  EXPECT_EQ(at_fill->blocks, 264);
  EXPECT_EQ(at_fill->global_write.sectors, 16);
  EXPECT_TRUE(below->direct_stores);
  EXPECT_EQ(below->threads, 128);  // 526 blocks of 128
  EXPECT_EQ(below->blocks, 526);
  // Records out of planes (the source's records) keep the exchange at any size, as do 4 B lanes: 10
  // planes of 11 f32 (a lane's 4 B would be an eighth of each sector).
  auto records = plan_permute({64, 5}, {1, 0}, DType::kU8);
  ASSERT_TRUE(records.ok());
  ASSERT_EQ(records->kind, ConvertKind::kInterleave);
  EXPECT_FALSE(records->direct_stores);
  auto narrow = plan_permute({6, 7, 8, 9, 10, 11}, {1, 0, 3, 2, 5, 4}, DType::kF32);
  ASSERT_TRUE(narrow.ok());
  ASSERT_EQ(narrow->kind, ConvertKind::kInterleave);
  EXPECT_EQ(access_bytes(*narrow), 4);
  EXPECT_FALSE(narrow->direct_stores);
  // Each is right on the host: the image, odd planes (read unaligned, a ragged last chunk), 4 channels of
  // bytes (57 x 56 pixels, a ragged last chunk).
  const std::tuple<std::vector<int64_t>, std::vector<int64_t>, DType> small[] = {
      {{1, 3, 224, 224}, {0, 2, 3, 1}, DType::kF32},
      {{3, 1001}, {1, 0}, DType::kF32},
      {{2, 4, 56, 57}, {0, 2, 3, 1}, DType::kU8}};
  for (const auto& [shape, perm, dtype] : small) {
    auto p = plan_permute(shape, perm, dtype);
    ASSERT_TRUE(p.ok());
    EXPECT_TRUE(p->direct_stores);
    check_permute("direct stores", *p, shape, perm);
  }
}

// RGBX pixels (4 B records holding 3 used bytes) to planar RGB: 64 images of 224 x 224, src
// S[(64,3,224,224):(200704,1,896,4)]. The records are padded (R = 4 units for C = 3 planes): a lane reads
// the 4 chunks of 16 B that its 16 pixels span and drops every fourth byte. 224 x 224 / 16 = 3136 chunks an
// image, 200704 items, 784 blocks of 256 threads (8 warps of 32 x 4 x 16 = 2048 B). A lane stride of 4
// chunks (64 B) puts a quarter warp's 8 lanes on 2 of the 8 bank groups (4 wavefronts where 1 does);
// j ^ ((l >> 1) & 3) spreads them over all 8 (lanes 0, 2, 4, 6 over groups 0-3, the odd ones over 4-7), where
// j ^ (l & 3) still puts lanes 0 and 4 together and one bit of XOR reaches 2 groups of the 4 needed: 4
// wavefronts on both passes.
TEST(ConvertCorpus, PaddedRecordsDeinterleaveAndDropThePad) {
  auto src = parse_layout("S[(64,3,224,224):(200704,1,896,4)]");
  auto dst = parse_layout("S[(64,3,224,224):(150528,50176,224,1)]");
  ASSERT_TRUE(src.ok() && dst.ok());
  auto plan = plan_convert(*src, *dst, {64, 3, 224, 224}, DType::kU8);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->kind, ConvertKind::kInterleave);
  EXPECT_FALSE(plan->packed_dst);
  EXPECT_EQ(plan->small_extent, 3);
  EXPECT_EQ(plan->record_units, 4);
  EXPECT_EQ(plan->lane_chunks, 4);
  EXPECT_EQ(plan->exchange_mask, 3);
  EXPECT_EQ(plan->exchange_shift, 1);
  EXPECT_EQ(exchange_byte(*plan, 2, 0), (8 + 1) * 16);
  EXPECT_EQ(exchange_byte(*plan, 2, 1), 8 * 16);
  EXPECT_EQ(access_bytes(*plan), 16);
  EXPECT_EQ(plan->chunks, 3136);
  EXPECT_EQ(plan->items, 64 * 3136);
  EXPECT_EQ(plan->threads, 256);
  EXPECT_EQ(plan->staging_bytes, 8 * 2048);
  EXPECT_EQ(plan->blocks, 784);
  EXPECT_EQ(plan->smem_read.wavefronts, 4);
  EXPECT_EQ(plan->smem_write.wavefronts, 4);
  // Scaled down, with a ragged last chunk (40 = 2 x 16 + 8 pixels a row of planes of 50 x 40).
  auto s2 = parse_layout("S[(2,3,50,40):(8000,1,160,4)]");
  auto d2 = parse_layout("S[(2,3,50,40):(6000,2000,40,1)]");
  ASSERT_TRUE(s2.ok() && d2.ok());
  auto small = plan_convert(*s2, *d2, {2, 3, 50, 40}, DType::kU8);
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(small->kind, ConvertKind::kInterleave);
  check_plan("RGBX", *small, {2, 3, 50, 40}, {8000, 1, 160, 4}, {2, 3, 50, 40}, {6000, 2000, 40, 1});
  // A pad as long as a vector or more is not taken (a lane's last chunk could hold no pixel): 2 planes in
  // records of 8 f32 (V = 4).
  auto s3 = parse_layout("S[(2,64):(1,8)]");
  auto d3 = parse_layout("S[(2,64):(64,1)]");
  ASSERT_TRUE(s3.ok() && d3.ok());
  auto wide = plan_convert(*s3, *d3, {2, 64}, DType::kF32);
  ASSERT_TRUE(wide.ok());
  EXPECT_NE(wide->kind, ConvertKind::kInterleave);
}

// Odd and ragged planes. A padded plane stride lets V be wider than L allows: planes of 1000 u8 1024 apart
// take V = 16 and leave a last chunk of 1000 - 62 x 16 = 8 units, moved unit by unit. Planes at an odd stride
// (1001 f32) that the source holds are read as the aligned 16 B words around each plane's V = 4 units: 16 B
// per lane, ceil(1001 / 4) = 251 chunks, the last of 1001 - 250 x 4 = 1 unit.
TEST(ConvertCorpus, RaggedAndOddPlanesVerifyOnTheHost) {
  for (const auto& [shape, perm, dtype] :
       std::vector<std::tuple<std::vector<int64_t>, std::vector<int64_t>, DType>>{
           {{4, 3, 1000}, {0, 2, 1}, DType::kU8},
           {{3, 1001}, {1, 0}, DType::kF32},
           {{1001, 3}, {1, 0}, DType::kBF16},
           {{2, 6, 52}, {0, 2, 1}, DType::kBF16},
           {{7, 13, 40}, {0, 2, 1}, DType::kU8},
           {{4000, 10}, {1, 0}, DType::kBF16},
           {{10, 4000}, {1, 0}, DType::kU8},
       }) {
    auto plan = plan_permute(shape, perm, dtype);
    ASSERT_TRUE(plan.ok());
    std::vector<int64_t> src_str(shape.size()), dst_str(shape.size());
    for (size_t i = shape.size(), s = 1; i-- > 0;)
      src_str[i] = static_cast<int64_t>(std::exchange(s, s * static_cast<size_t>(shape[i])));
    for (size_t k = shape.size(), s = 1; k-- > 0;) {
      dst_str[static_cast<size_t>(perm[k])] = static_cast<int64_t>(s);
      s *= static_cast<size_t>(shape[static_cast<size_t>(perm[k])]);
    }
    check_plan(std::to_string(shape[0]) + "x" + std::to_string(shape[1]), *plan, shape, src_str, shape,
               dst_str);
  }
  auto odd = plan_permute({3, 1001}, {1, 0}, DType::kF32);
  ASSERT_TRUE(odd.ok());
  EXPECT_EQ(odd->kind, ConvertKind::kInterleave);
  EXPECT_TRUE(odd->unaligned);
  EXPECT_EQ(odd->vector_units, 4);
  EXPECT_EQ(odd->chunks, 251);
  // Padded planes: 3 planes of 1000 bytes at a 1024 B pitch, into 1000 records of 3 B.
  auto src = parse_layout("S[(3,1000):(1024,1)]");
  auto dst = parse_layout("S[(3,1000):(1,3)]");
  ASSERT_TRUE(src.ok() && dst.ok());
  auto padded = plan_convert(*src, *dst, {3, 1000}, DType::kU8);
  ASSERT_TRUE(padded.ok());
  EXPECT_EQ(padded->kind, ConvertKind::kInterleave);
  EXPECT_EQ(padded->vector_units, 16);
  EXPECT_EQ(padded->chunks, 63);  // ceil(1000 / 16)
  check_plan("padded planes", *padded, {3, 1000}, {1024, 1}, {3, 1000}, {1, 3});
  // And back: 1000 records of 3 B into planes at a 1024 B pitch is refused (the destination has gaps).
  EXPECT_FALSE(plan_convert(*dst, *src, {3, 1000}, DType::kU8).ok());
}

// Both groups of the tile short: (6,7,8,9,10,11) with the pairs swapped is 3024 transposes of 10 x 11 f32.
// The destination's innermost mode is the source's dimension 4 (10 values, source stride 11) and the source's
// contiguous dimension 5 (11 values) has destination stride 10: the tiled plan would stage tiles of 8 x 8
// (the largest powers of two in 10 and 11), four to a matrix, 64 threads a block. The interleave takes
// C = 10 planes of L = 11 units into records of 10, one unit a lane (V = 1: the planes are 11 apart and the
// matrices 110, so no wider access stays aligned): 3024 x 11 items, ceil(33264 / 256) = 130 blocks.
TEST(ConvertCorpus, TinyTilesGiveWayToTheInterleave) {
  const std::vector<int64_t> shape = {6, 7, 8, 9, 10, 11}, perm = {1, 0, 3, 2, 5, 4};
  auto plan = plan_permute(shape, perm, DType::kF32);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->kind, ConvertKind::kInterleave);
  EXPECT_EQ(plan->small_extent, 10);
  EXPECT_EQ(plan->long_extent, 11);
  EXPECT_TRUE(plan->packed_dst);
  EXPECT_EQ(plan->vector_units, 1);
  EXPECT_EQ(plan->items, 3024 * 11);
  EXPECT_EQ(plan->blocks, 130);
  EXPECT_NE(plan->reason.find("both groups of the tile shorter than 16 units"), std::string::npos)
      << plan->reason;
  // Row-major source; the destination is the permuted row-major tensor, so dimension d of the source has
  // the destination stride of its place in the permutation.
  const std::vector<int64_t> src_str = {55440, 7920, 990, 110, 11, 1};
  const std::vector<int64_t> dst_str = {7920, 47520, 110, 880, 1, 10};
  check_plan("rank 6 pairs swapped", *plan, shape, src_str, shape, dst_str);
  // 11 x 17 (a group of 17 units): tiles of 8 x 16, not tiny; the planner's comparison decides as before.
  auto longer = plan_permute({64, 11, 17}, {0, 2, 1}, DType::kF32);
  ASSERT_TRUE(longer.ok());
  EXPECT_EQ(longer->reason.find("shorter than 16"), std::string::npos) << longer->reason;
}

// The engine's kernel-wide averages against what Nsight Compute measured for the same kernels on an H100
// (docs/results/h100-convert-corpus-ncu.csv: global sectors per request for loads and stores, shared
// wavefronts per store and load instruction). The first warp's predictions miss these where tiles are
// partial, rows start off a sector or rows are unaligned: 1000 x 3000 f32 predicts 16 sectors a store and
// measures 15.625; 7 byte-groups of MoE scales (64 x 64 tiles of 4000 x 7 contiguous source bytes, the last
// tile along b partial) predict 16 sectors a load and 2 wavefronts a shared store and measure 15.9817 and
// 1.9977; the rank-5 u8 reversal predicts 16 sectors a store and measures 10.5123 (its edge stores). The
// rest of the corpus is compared in docs/results/h100-convert-corpus.md; these are the quick ones.
TEST(ConvertCorpus, KernelAveragesMatchNsightCompute) {
  struct Case {
    const char* name;
    std::vector<int64_t> shape, perm;
    DType dtype;
    double read, write, smem_store, smem_load;
  };
  const Case cases[] = {
      {"odd_1000x3000_f32", {1000, 3000}, {1, 0}, DType::kF32, 15.9574, 15.625, 4.0, 4.0},
      {"moe_combine_u8_scales", {64, 4000, 7}, {2, 1, 0}, DType::kU8, 15.9817, 16.0, 1.9977, 4.0},
      // Unaligned tiles: second words, edge stores of 1-8 B, edge threads' shared reads of two chunks.
      // The rank-5 reversal loads each block by two threads (8 B lanes), 256 x 64 tiles: ncu on an H100
      // (docs/results/h200-convert-corpus.md, "Small grids keep their destination rows long").
      {"rank5_odd_u8", {15, 17, 19, 21, 23}, {4, 3, 2, 1, 0}, DType::kU8, 9.9150, 11.8467, 1.0, 5.1943},
      // Tiles whose rows are 32 windows store a row per warp. Loads and shared memory: ncu on an H100 (the
      // 15 unaligned cases of docs/results/h100-convert-corpus.md, second session). Stores: that ncu run
      // measured the text whose 8 B edge pieces were uint2 (the compiler split some), 401604 sectors in
      // 102083 requests and 1163136 in 179712; tests/gpu/count_row_stores.py counts exactly that from the
      // text, and for this text (64-bit pieces) 396816 in 97295 and 1153152 in 169728.
      {"prime_10007x1009_u8", {10007, 1009}, {1, 0}, DType::kU8, 23.0378, 396816.0 / 97295, 1.0, 3.9709},
      // Unaligned destination rows only: plain aligned loads, shifted stores.
      {"vit_rank4_odd_f32",
       {48, 197, 64, 13},
       {2, 0, 3, 1},
       DType::kF32,
       15.1538,
       1153152.0 / 169728,
       4.0,
       3.6203},
      // The unaligned vector kernel (no shared memory) and the interleave into records.
      {"vit_s16_heads_u8", {64, 6, 197, 197}, {0, 2, 1, 3}, DType::kU8, 9.7094, 15.9999, 0.0, 0.0},
      {"rank6_small_f32", {6, 7, 8, 9, 10, 11}, {1, 0, 3, 2, 5, 4}, DType::kF32, 7.3379, 4.0, 1.999, 1.0},
      // Direct stores (no shared memory): 392 full warps; a load is 32 x 16 B of one plane (16 sectors),
      // store j puts lane l's chunk at 48 l + 16 j of the warp's 1536 B, in sector (48 l + 16 j) / 32 = 1.5 l
      // + j / 2 rounded down, 32 distinct sectors.
      {"small_one_image_nhwc_f32", {1, 3, 224, 224}, {0, 2, 3, 1}, DType::kF32, 16.0, 32.0, 0.0, 0.0},
  };
  for (const Case& c : cases) {
    auto plan = plan_permute(c.shape, c.perm, c.dtype);
    ASSERT_TRUE(plan.ok()) << c.name;
    const ConvertAverages avg = convert_kernel_averages(*plan);
    EXPECT_TRUE(avg.modelled) << c.name;
    EXPECT_NEAR(avg.read_sectors, c.read, 1e-3) << c.name;
    EXPECT_NEAR(avg.write_sectors, c.write, 1e-3) << c.name;
    EXPECT_NEAR(avg.smem_store_wavefronts, c.smem_store, 1e-3) << c.name;
    EXPECT_NEAR(avg.smem_load_wavefronts, c.smem_load, 1e-3) << c.name;
  }
  // The offset destination (a 4096 x 1000 f32 transpose into a buffer 1024 elements in): 15.625 sectors a
  // load, the rest whole.
  auto src = parse_layout("S[(4096,1000):(1000,1)]");
  auto dst = parse_layout("S[(4096,1000):(1,4096)] + O[1024@m]");
  ASSERT_TRUE(src.ok() && dst.ok());
  auto offset = plan_convert(*src, *dst, {4096, 1000}, DType::kF32);
  ASSERT_TRUE(offset.ok());
  const ConvertAverages o = convert_kernel_averages(*offset);
  EXPECT_NEAR(o.read_sectors, 15.625, 1e-3);
  EXPECT_NEAR(o.write_sectors, 16.0, 1e-3);
  // Not modelled: the interleave out of records (AoS of 5 bytes into planes), whose fields repeat the first
  // warp's.
  auto records = plan_permute({1 << 16, 5}, {1, 0}, DType::kU8);
  ASSERT_TRUE(records.ok());
  ASSERT_EQ(records->kind, ConvertKind::kInterleave);
  ASSERT_FALSE(records->packed_dst);
  const ConvertAverages r = convert_kernel_averages(*records);
  EXPECT_FALSE(r.modelled);
  EXPECT_EQ(r.write_sectors, static_cast<double>(records->global_write.sectors));
}

// Offsets and swizzles on either side. Every access must start on a multiple of the offset's largest power
// of two (offset 3 f32: 4 B lanes; offset 4096: 16 B) and stay inside the granule the swizzle keeps whole
// (Swizzle<2,1,3> on f32 elements: 2 elements, 8 B lanes; Swizzle<3,3,3> on bf16: 8 elements, 16 B).
TEST(ConvertCorpus, OffsetAndSwizzledSidesKeepAccessesWholeAndVerify) {
  struct Case {
    const char *src, *dst;
    std::vector<int64_t> shape;
    DType dtype;
    int lane_bytes;
  };
  const Case cases[] = {
      {"S[(64,64):(64,1)] + O[3@m]", "S[(64,64):(1,64)]", {64, 64}, DType::kF32, 4},
      {"S[(64,64):(64,1)] + O[4096@m]", "S[(64,64):(1,64)]", {64, 64}, DType::kF32, 16},
      {"S[(64,64):(64,1)]", "S[(64,64):(1,64)] + O[8@m]", {64, 64}, DType::kF32, 16},
      {"Swizzle<2,1,3> o S[(64,64):(64,1)]", "S[(64,64):(1,64)]", {64, 64}, DType::kF32, 8},
      {"Swizzle<3,3,3> o S[(64,64):(64,1)]", "S[(64,64):(64,1)]", {64, 64}, DType::kBF16, 16},
      {"S[(64,64):(64,1)]", "Swizzle<3,3,3> o S[(64,64):(1,64)]", {64, 64}, DType::kBF16, 16},
      {"S[(3,512):(512,1)]", "Swizzle<2,4,3> o S[(3,512):(1,3)]", {3, 512}, DType::kU8, 16},
  };
  for (const Case& c : cases) {
    auto src = parse_layout(c.src);
    auto dst = parse_layout(c.dst);
    ASSERT_TRUE(src.ok() && dst.ok()) << c.src << " " << c.dst;
    auto plan = plan_convert(*src, *dst, c.shape, c.dtype);
    ASSERT_TRUE(plan.ok()) << c.src << " -> " << c.dst << ": " << plan.error().message;
    EXPECT_EQ(access_bytes(*plan), c.lane_bytes) << c.src << " -> " << c.dst;
    std::vector<int64_t> se, ss, de, ds;
    for (const Mode& m : src->shard) se.push_back(m.extent), ss.push_back(m.stride.k);
    for (const Mode& m : dst->shard) de.push_back(m.extent), ds.push_back(m.stride.k);
    check_plan(std::string(c.src) + " -> " + c.dst, *plan, se, ss, de, ds, side_map(*src), side_map(*dst));
  }
  // A destination swizzle permutes blocks of 2^(3+3+3) = 512 elements: 8 x 60 = 480 elements are not a
  // union of such blocks, so some offsets would be written twice and others never.
  auto src = parse_layout("S[(8,60):(60,1)]");
  auto dst = parse_layout("Swizzle<3,3,3> o S[(8,60):(60,1)]");
  ASSERT_TRUE(src.ok() && dst.ok());
  auto refused = plan_convert(*src, *dst, {8, 60}, DType::kF32);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().field, "dst");
  EXPECT_NE(refused.error().message.find("512"), std::string::npos) << refused.error().message;
  // An offset on a mesh axis is no memory offset.
  auto mesh = parse_layout("S[(8,60):(60,1)] + O[1@gpuid_x]");
  ASSERT_TRUE(mesh.ok());
  auto on_mesh = plan_convert(*mesh, *src, {8, 60}, DType::kF32);
  ASSERT_FALSE(on_mesh.ok());
  EXPECT_EQ(on_mesh.error().field, "src");
}

}  // namespace
}  // namespace layoutscope
