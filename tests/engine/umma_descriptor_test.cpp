// The tcgen05 descriptors against the PTX ISA (section 9.7.16, "Matrix Descriptors": "Shared memory descriptor" bit
// table, "Instruction descriptor" tables for .kind::f16/tf32/f8f6f4/i8 and for the block-scaled kinds), with
// the canonical shared layouts of "Shared Memory Matrix Layout" (as CUTLASS's mma_sm100_desc.hpp restates
// them). Expected words are assembled by hand from the bit tables in the comments.
#include "layoutscope/umma_descriptor.hpp"

#include <gtest/gtest.h>

#include <random>

#include "layoutscope/parse.hpp"
#include "test_util.hpp"

namespace layoutscope {
namespace {

TEST(SmemDescriptor, WorkedExampleEncodesBitByBit) {
  // start 0x400 >> 4 = 0x40 (bits 0-13), LBO 16 >> 4 = 1 (bit 16), SBO 1024 >> 4 = 0x40 (bits 32-45),
  // fixed 0b001 (bit 46), SWIZZLE_128B = 2 (bits 61-63).
  SmemDescriptor d{0x400, 16, 1024, 0, false, UmmaSwizzle::k128B};
  auto v = encode_smem_descriptor(d);
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(*v, 0x4000404000010040ull);
  auto back = decode_smem_descriptor(*v);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, d);
  // 32B swizzle (6), base offset 5 (bits 49-51), absolute LBO mode (bit 52), start 0x3fff0 (14 bits of ones).
  SmemDescriptor e{0x3fff0, 0, 256, 5, true, UmmaSwizzle::k32B};
  EXPECT_EQ(*encode_smem_descriptor(e),
            (6ull << 61) | (1ull << 52) | (5ull << 49) | (1ull << 46) | (16ull << 32) | 0x3fffull);
}

TEST(SmemDescriptor, InvalidFieldsAreNamed) {
  auto field_of = [](const SmemDescriptor& d) {
    auto v = encode_smem_descriptor(d);
    return v.ok() ? std::string("ok") : v.error().field + "/" + v.error().code;
  };
  EXPECT_EQ(field_of({8, 0, 0}), "start_address/alignment");
  EXPECT_EQ(field_of({1 << 18, 0, 0}), "start_address/range");
  EXPECT_EQ(field_of({0, 24, 0}), "leading_byte_offset/alignment");
  EXPECT_EQ(field_of({0, 0, -16}), "stride_byte_offset/range");
  EXPECT_EQ(field_of({0, 0, 0, 8}), "base_offset/range");
  SmemDescriptor v0;
  v0.version = 0;
  EXPECT_EQ(field_of(v0), "version/fixed-bits");
  auto decode_field = [](uint64_t bits) {
    auto d = decode_smem_descriptor(bits);
    return d.ok() ? std::string("ok") : d.error().field + "/" + d.error().code;
  };
  const uint64_t good = 0x4000404000010040ull;
  EXPECT_EQ(decode_field(good), "ok");
  EXPECT_EQ(decode_field(good & ~(1ull << 46)), "version/fixed-bits");  // a wgmma descriptor: 0 there
  EXPECT_EQ(decode_field((good & ~(7ull << 61)) | (3ull << 61)), "swizzle/range");
  EXPECT_EQ(decode_field(good | (1ull << 14)), "reserved/reserved");
  EXPECT_EQ(decode_field(good | (1ull << 55)), "fixed/fixed-bits");
}

TEST(SmemDescriptor, ThousandRandomRoundTrips) {
  std::mt19937_64 rng(33);
  const UmmaSwizzle modes[] = {UmmaSwizzle::kNone, UmmaSwizzle::k128BBase32B, UmmaSwizzle::k128B,
                               UmmaSwizzle::k64B, UmmaSwizzle::k32B};
  for (int i = 0; i < 1000; ++i) {
    SmemDescriptor d;
    d.start_address = static_cast<int64_t>(rng() % (1 << 14)) * 16;
    d.leading_byte_offset = static_cast<int64_t>(rng() % (1 << 14)) * 16;
    d.stride_byte_offset = static_cast<int64_t>(rng() % (1 << 14)) * 16;
    d.base_offset = static_cast<int64_t>(rng() % 8);
    d.lbo_absolute = rng() % 2 == 1;
    d.swizzle = modes[rng() % 5];
    auto v = encode_smem_descriptor(d);
    ASSERT_TRUE(v.ok()) << v.error().message;
    auto back = decode_smem_descriptor(*v);
    ASSERT_TRUE(back.ok()) << back.error().message;
    ASSERT_EQ(*back, d);
    ASSERT_EQ(*encode_smem_descriptor(*back), *v);
  }
}

TEST(SmemDescriptor, AddressesOfTheCanonicalLayouts) {
  // K-major SWIZZLE_128B f16 at 0: element (1, 0) is byte 128 before the swizzle; Swizzle<3,4,3> XORs bits
  // 7-9
  // (= 1) into bits 4-6: 128 ^ 16 = 144. Element (1, 8) is byte 144 -> 144 ^ 16 = 128.
  SmemDescriptor d{0, 16, 1024, 0, false, UmmaSwizzle::k128B};
  auto a = descriptor_addresses(d, Major::kK, 16, 16, 64);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ((*a)[1 * 64 + 0], 144);
  EXPECT_EQ((*a)[1 * 64 + 8], 128);
  EXPECT_EQ((*a)[8 * 64 + 0], 1024);  // the second 8-row group, SBO away, row 0 unswizzled
  // K-major, no swizzle, f16: core matrices of 8 rows x 16 B; (3, 9) = row 3 (48) + second core matrix along
  // K (LBO 128) + 1 element (2 B) = 178.
  SmemDescriptor n{0, 128, 256, 0, false, UmmaSwizzle::kNone};
  auto b = descriptor_addresses(n, Major::kK, 16, 16, 16);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ((*b)[3 * 16 + 9], 178);
  EXPECT_EQ((*b)[9 * 16 + 0], 256 + 16);
  // A K-major 128B tile is at most 128 bytes of K.
  auto wide = descriptor_addresses(d, Major::kK, 16, 8, 128);
  ASSERT_FALSE(wide.ok());
  EXPECT_EQ(wide.error().field, "shape");
  SmemDescriptor abs = d;
  abs.lbo_absolute = true;
  EXPECT_EQ(descriptor_addresses(abs, Major::kK, 16, 8, 8).error().field, "lbo_mode");
}

TEST(SmemDescriptor, MatchesATileLayoutOrNamesTheField) {
  // 64 x 64 f16, K-major, SWIZZLE_128B: row i at i*64 elements, Swizzle<3,4,3> on bytes = <3,3,3> on f16.
  const Layout tile = testing::must_parse("Swizzle<3,3,3> o S[(64,64):(64,1)]");
  auto inf = infer_smem_descriptor(tile, {64, 64}, Major::kK, 16, 0x400);
  ASSERT_TRUE(inf.ok()) << inf.error().message;
  EXPECT_EQ(inf->descriptor.swizzle, UmmaSwizzle::k128B);
  EXPECT_EQ(inf->descriptor.stride_byte_offset, 1024);  // 8 rows x 128 B
  EXPECT_EQ(inf->unused, (std::vector<std::string>{"leading_byte_offset"}));
  SmemDescriptor given{0x400, 16, 1024, 0, false, UmmaSwizzle::k128B};
  auto m = match_smem_descriptor(given, tile, {64, 64}, Major::kK, 16);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_TRUE(m->matches);
  given.stride_byte_offset = 512;
  given.swizzle = UmmaSwizzle::k64B;
  m = match_smem_descriptor(given, tile, {64, 64}, Major::kK, 16);
  ASSERT_TRUE(m.ok());
  EXPECT_FALSE(m->matches);
  ASSERT_EQ(m->differences.size(), 2u);
  EXPECT_EQ(m->differences[0].field, "swizzle");
  EXPECT_EQ(m->differences[0].descriptor, 4);
  EXPECT_EQ(m->differences[0].layout, 2);
  EXPECT_EQ(m->differences[1].field, "stride_byte_offset");
  EXPECT_EQ(m->differences[1].descriptor, 512);
  EXPECT_EQ(m->differences[1].layout, 1024);
  // A start inside the 1024 B pattern needs base offset (start >> 7) & 7: 0x480 -> 1.
  SmemDescriptor shifted{0x480, 16, 1024, 0, false, UmmaSwizzle::k128B};
  m = match_smem_descriptor(shifted, tile, {64, 64}, Major::kK, 16);
  ASSERT_TRUE(m.ok());
  ASSERT_EQ(m->differences.size(), 1u);
  EXPECT_EQ(m->differences[0].field, "base_offset");
  EXPECT_EQ(m->differences[0].layout, 1);
}

TEST(SmemDescriptor, InterleavedAndMnMajorTiles) {
  // K-major, no swizzle, 8 x 16 f16: two core matrices along K, 64 elements (128 B) apart -> LBO 128.
  auto k = infer_smem_descriptor(testing::must_parse("S[(8,2,8):(8,64,1)]"), {8, 16}, Major::kK, 16, 0);
  ASSERT_TRUE(k.ok()) << k.error().message;
  EXPECT_EQ(k->descriptor.leading_byte_offset, 128);
  EXPECT_EQ(k->unused, (std::vector<std::string>{"stride_byte_offset"}));
  // MN-major SWIZZLE_128B, 128 x 16 f16: MN contiguous in 128 B rows (64 elements); k rows 128 B apart, the
  // next 8 k 1024 B on (SBO), the next 64 MN a 16 KiB atom further (LBO 16384 = 2 x 8 x 1024).
  auto mn = infer_smem_descriptor(testing::must_parse("Swizzle<3,3,3> o S[(2,64,2,8):(8192,1,512,64)]"),
                                  {128, 16}, Major::kMN, 16, 0);
  ASSERT_TRUE(mn.ok()) << mn.error().message;
  EXPECT_EQ(mn->descriptor.swizzle, UmmaSwizzle::k128B);
  EXPECT_EQ(mn->descriptor.leading_byte_offset, 16384);
  EXPECT_EQ(mn->descriptor.stride_byte_offset, 1024);
  // A plain row-major 16 x 16 f16 tile is not a canonical no-swizzle layout: row 1 is 32 B after row 0, a
  // core matrix has 16 B rows.
  auto rm = infer_smem_descriptor(testing::must_parse("S[(16,16):(16,1)]"), {16, 16}, Major::kK, 16, 0);
  ASSERT_FALSE(rm.ok());
  EXPECT_EQ(rm.error().field, "layout");
  EXPECT_EQ(rm.error().code, "not-canonical");
  EXPECT_NE(rm.error().message.find("element (1, 0)"), std::string::npos) << rm.error().message;
  // A swizzle no descriptor mode has.
  auto sw = infer_smem_descriptor(testing::must_parse("Swizzle<2,3,2> o S[(8,64):(64,1)]"), {8, 64},
                                  Major::kK, 16, 0);
  ASSERT_FALSE(sw.ok());
  EXPECT_EQ(sw.error().field, "swizzle");
}

TEST(InstrDescriptor, WorkedExamples) {
  // kind::f16, bf16 x bf16 -> f32, M 128, N 256: D f32 (1 << 4) | A bf16 (1 << 7) | B bf16 (1 << 10) |
  // N >> 3 = 32 (<< 17) | M >> 4 = 8 (<< 24) = 0x08400490.
  InstrDescriptor f16;
  f16.kind = MmaKind::kF16;
  f16.a_type = f16.b_type = "bf16";
  f16.d_type = "f32";
  f16.m = 128;
  f16.n = 256;
  auto v = encode_instr_descriptor(f16);
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(*v, 0x08400490u);
  auto back = decode_instr_descriptor(*v, MmaKind::kF16);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, f16);
  // kind::i8, s8 x u8 -> s32, saturate, M 64, N 8: sat 1 << 3 | D s32 2 << 4 | A s8 1 << 7 | N 1 << 17 |
  // M 4 << 24 = 0x040200a8.
  InstrDescriptor i8;
  i8.kind = MmaKind::kI8;
  i8.a_type = "s8";
  i8.b_type = "u8";
  i8.d_type = "s32";
  i8.saturate = true;
  i8.m = 64;
  i8.n = 8;
  EXPECT_EQ(*encode_instr_descriptor(i8), 0x040200a8u);
  // kind::mxf4nvf4, e2m1 x e2m1, ue4m3 scales, M 128, N 256: A 1 << 7 | B 1 << 10 | N 32 << 17 | M 8 << 24 =
  // 0x08400480; with ue8m0 (1 << 23), SFA id 2 (2 << 29) and SFB id 2 (2 << 4): 0x48c004a0.
  InstrDescriptor nv;
  nv.kind = MmaKind::kMxf4Nvf4;
  nv.a_type = nv.b_type = "e2m1";
  nv.scale_type = "ue4m3";
  nv.m = 128;
  nv.n = 256;
  EXPECT_EQ(*encode_instr_descriptor(nv), 0x08400480u);
  nv.scale_type = "ue8m0";
  nv.sfa_id = 2;
  nv.sfb_id = 2;
  nv.d_type = "f32";
  EXPECT_EQ(*encode_instr_descriptor(nv), 0x48c004a0u);
  auto nb = decode_instr_descriptor(0x48c004a0u, MmaKind::kMxf4Nvf4);
  ASSERT_TRUE(nb.ok()) << nb.error().message;
  EXPECT_EQ(*nb, nv);
  // kind::f8f6f4 e4m3 x e2m1, MN-major A: A 0, B 5 << 10, transpose A 1 << 15, D f32, M 64 N 64.
  InstrDescriptor f8;
  f8.kind = MmaKind::kF8f6f4;
  f8.a_type = "e4m3";
  f8.b_type = "e2m1";
  f8.a_mn_major = true;
  f8.m = 64;
  f8.n = 64;
  EXPECT_EQ(*encode_instr_descriptor(f8), (1u << 4) | (5u << 10) | (1u << 15) | (8u << 17) | (4u << 24));
}

TEST(InstrDescriptor, InvalidFieldsAreNamed) {
  auto field_of = [](InstrDescriptor d) {
    auto v = encode_instr_descriptor(d);
    return v.ok() ? std::string("ok") : v.error().field + "/" + v.error().code;
  };
  InstrDescriptor base;  // kind::f16, f16 x f16 -> f32, 128 x 128
  EXPECT_EQ(field_of(base), "ok");
  auto with = [&](auto change) {
    InstrDescriptor d = base;
    change(d);
    return field_of(d);
  };
  EXPECT_EQ(with([](auto& d) { d.m = 96; }), "m/range");
  EXPECT_EQ(with([](auto& d) { d.n = 24; }), "n/range");  // M 128 steps N by 16
  EXPECT_EQ(with([](auto& d) { d.m = 64, d.n = 24; }), "ok");
  EXPECT_EQ(with([](auto& d) { d.n = 264; }), "n/range");
  EXPECT_EQ(with([](auto& d) { d.b_type = "bf16"; }), "b_type/kind");
  EXPECT_EQ(with([](auto& d) { d.a_type = "e4m3"; }), "a_type/kind");
  EXPECT_EQ(with([](auto& d) { d.d_type = "s32"; }), "d_type/kind");
  EXPECT_EQ(with([](auto& d) { d.saturate = true; }), "saturate/kind");
  EXPECT_EQ(with([](auto& d) { d.sparse_selector = 2; }), "sparse_selector/range");
  EXPECT_EQ(with([](auto& d) { d.sfa_id = 1; }), "sfa_id/kind");
  EXPECT_EQ(with([](auto& d) { d.kind = MmaKind::kMxf4, d.a_type = d.b_type = "e2m1", d.a_mn_major = true; }),
            "a_mn_major/kind");
  EXPECT_EQ(with([](auto& d) { d.kind = MmaKind::kMxf8f6f4, d.a_type = d.b_type = "e4m3", d.m = 64; }),
            "m/range");
  EXPECT_EQ(with([](auto& d) {
              d.kind = MmaKind::kMxf8f6f4, d.a_type = d.b_type = "e4m3", d.scale_type = "ue4m3";
            }),
            "scale_type/kind");
  auto decode_field = [](uint32_t v, MmaKind k) {
    auto d = decode_instr_descriptor(v, k);
    return d.ok() ? std::string("ok") : d.error().field + "/" + d.error().code;
  };
  EXPECT_EQ(decode_field(0x08400490u, MmaKind::kF16), "ok");
  EXPECT_EQ(decode_field(0x08400490u | (1u << 6), MmaKind::kF16), "reserved/reserved");
  EXPECT_EQ(decode_field(0x08400490u | (1u << 23), MmaKind::kF16), "reserved/reserved");
  EXPECT_EQ(decode_field((0x08400490u & ~(7u << 7)) | (2u << 7), MmaKind::kF8f6f4), "a_type/kind");  // code 2
  EXPECT_EQ(decode_field(0x08400490u & ~(0x1fu << 24), MmaKind::kF16), "m/range");                   // M = 0
  EXPECT_EQ(decode_field(0x08400490u, MmaKind::kTf32), "a_type/kind");  // bf16 is not tf32
}

TEST(InstrDescriptor, ThousandRandomRoundTrips) {
  std::mt19937_64 rng(3305);
  const std::vector<std::pair<MmaKind, std::vector<std::string>>> kinds = {
      {MmaKind::kF16, {"f16", "bf16"}},
      {MmaKind::kTf32, {"tf32"}},
      {MmaKind::kF8f6f4, {"e4m3", "e5m2", "e2m3", "e3m2", "e2m1"}},
      {MmaKind::kI8, {"u8", "s8"}},
      {MmaKind::kMxf8f6f4, {"e4m3", "e5m2", "e2m3", "e3m2", "e2m1"}},
      {MmaKind::kMxf4, {"e2m1"}},
      {MmaKind::kMxf4Nvf4, {"e2m1"}}};
  int made = 0;
  while (made < 1000) {
    const auto& [kind, types] = kinds[rng() % kinds.size()];
    InstrDescriptor d;
    d.kind = kind;
    d.a_type = types[rng() % types.size()];
    d.b_type = kind == MmaKind::kF16 ? d.a_type : types[rng() % types.size()];
    const bool bs = is_block_scaled(kind);
    d.d_type = kind == MmaKind::kI8                                                ? "s32"
               : (bs || kind == MmaKind::kTf32 || d.a_type == "bf16" || rng() % 2) ? "f32"
                                                                                   : "f16";
    d.m = bs ? (rng() % 2 ? 128 : 256) : std::vector<int64_t>{64, 128, 256}[rng() % 3];
    const int64_t step = d.m == 64 ? 8 : 16;
    d.n = step * static_cast<int64_t>(1 + rng() % (256 / step));
    auto mn_ok = [](const std::string& t) { return t != "e2m3" && t != "e3m2" && t != "e2m1"; };
    d.a_mn_major = mn_ok(d.a_type) && rng() % 2;
    d.b_mn_major = mn_ok(d.b_type) && rng() % 2;
    d.negate_a = kind != MmaKind::kI8 && rng() % 2;
    d.negate_b = kind != MmaKind::kI8 && rng() % 2;
    d.saturate = kind == MmaKind::kI8 && rng() % 2;
    d.sparse = rng() % 2;
    d.sparse_selector = d.sparse ? static_cast<int64_t>(rng() % 4) : 0;
    if (bs) {
      d.scale_type = kind == MmaKind::kMxf4Nvf4 && rng() % 2 ? "ue4m3" : "ue8m0";
      d.sfa_id = static_cast<int64_t>(rng() % 4);
      d.sfb_id = static_cast<int64_t>(rng() % 4);
      d.k_size = kind != MmaKind::kMxf8f6f4 ? static_cast<int64_t>(rng() % 2) : 0;
    } else {
      d.max_shift = static_cast<int64_t>(rng() % 4);
    }
    auto v = encode_instr_descriptor(d);
    ASSERT_TRUE(v.ok()) << v.error().message;
    auto back = decode_instr_descriptor(*v, kind);
    ASSERT_TRUE(back.ok()) << back.error().message;
    ASSERT_EQ(*back, d);
    ASSERT_EQ(*encode_instr_descriptor(*back), *v);
    ++made;
  }
}

}  // namespace
}  // namespace layoutscope
