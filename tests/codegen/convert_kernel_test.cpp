// The generated conversion kernels: what the text must contain for the plan it came from, and, where nvcc
// exists, that every kind of plan compiles for sm_90 with no spills (ptxas's report).
#include "convert_kernel.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "layoutscope/parse.hpp"

namespace layoutscope::codegen {
namespace {

ConvertPlan permute(std::vector<int64_t> shape, std::vector<int64_t> perm, DType dtype) {
  auto p = plan_permute(shape, perm, dtype);
  EXPECT_TRUE(p.ok()) << p.error().message;
  return *p;
}

TEST(ConvertKernel, TiledTransposeCarriesThePlan) {
  const ConvertPlan p = permute({4096, 4096}, {1, 0}, DType::kF32);
  const KernelSource k = convert_kernel_source(p);
  EXPECT_EQ(k.name, "layoutscope_convert");
  EXPECT_EQ(k.threads, 256);
  EXPECT_EQ(k.blocks, 64 * 64);
  EXPECT_EQ(k.shared_bytes, 16384);
  EXPECT_NE(k.text.find("__shared__ __align__(16) unsigned char tile[16384]"), std::string::npos);
  EXPECT_NE(k.text.find("typedef uint4 vec_t"), std::string::npos);  // 16 B accesses
  EXPECT_NE(k.text.find("vec_t r[4], w[4]"), std::string::npos);     // 4x4 register block
  // The staging swizzle of the plan, spelled as a shift and mask on the byte offset.
  const std::string swz = ">> " + std::to_string(p.staging.base + p.staging.shift) + ") & " +
                          std::to_string((1 << p.staging.bits) - 1) + ") << " +
                          std::to_string(p.staging.base);
  EXPECT_NE(k.text.find(swz), std::string::npos) << k.text;
}

TEST(ConvertKernel, NarrowTypesTransposeWithBytePermutes) {
  // 8x8 block of 16-bit units, one word column at a time: column c of the 8 rows gives output rows 2c and
  // 2c+1, each word of them one half word from each of two rows.
  const KernelSource bf16 = convert_kernel_source(permute({4096, 4096}, {1, 0}, DType::kBF16));
  EXPECT_NE(bf16.text.find("vec_t r[8];"), std::string::npos) << bf16.text;
  EXPECT_NE(bf16.text.find("vec_t w0, w1;"), std::string::npos) << bf16.text;
  EXPECT_NE(bf16.text.find("__byte_perm(r[0].x, r[1].x, 0x5410u)"), std::string::npos) << bf16.text;
  EXPECT_NE(bf16.text.find("2 * c + 1"), std::string::npos) << bf16.text;
  // 4 rows of 16 bytes: word s of the rows is a 4x4 byte block, whose 4 output words are columns 4s .. 4s+3,
  // each stored as 4 B. The columns are rows of the tile 256 B apart that the swizzle (bits 4-6 by bits
  // 12-14) leaves alone: one swizzled offset per block, then constants (column 15 at 15 x 256 = 3840).
  const ConvertPlan u8p = permute({4096, 4096}, {1, 0}, DType::kU8);
  ASSERT_EQ(u8p.staging.base + u8p.staging.shift, 12);
  const KernelSource u8 = convert_kernel_source(u8p);
  EXPECT_NE(u8.text.find("vec_t r[4];"), std::string::npos) << u8.text;
  EXPECT_NE(u8.text.find("__byte_perm(r[2].w, r[3].w, 0x5140u)"), std::string::npos) << u8.text;
  EXPECT_NE(u8.text.find("*reinterpret_cast<unsigned*>(tile + so + 3840) = __byte_perm(t1, t3, 0x7632u);"),
            std::string::npos)
      << u8.text;
  EXPECT_EQ(u8.text.find("make_uint4"), std::string::npos) << u8.text;  // no word rotation: nothing loops
  EXPECT_EQ(u8.threads, 512);
  // The 4 rows of a block are consecutive indices of the destination-contiguous mode (source stride 4096):
  // one base offset, then k * 4096.
  EXPECT_NE(u8.text.find("k * 4096u"), std::string::npos) << u8.text;
}

TEST(ConvertKernel, ByteBlocksFollowTheEnginesWarpTiles) {
  // SoA -> AoS of 32 one-byte fields: 64 blocks along b, warps of 8 along b by 4 along a (the engine's
  // load_block): thread t is lane t % 32 of warp t / 32, 8 warps along b.
  const KernelSource soa = convert_kernel_source(permute({32, 8388608}, {1, 0}, DType::kU8));
  EXPECT_NE(soa.text.find("const int bb = t / 32 % 8 * 8 + t % 8, ba = t / 32 / 8 * 4 + t % 32 / 8;"),
            std::string::npos)
      << soa.text;
  // The transpose's 8 blocks along b already fill a warp 8 by 4.
  const KernelSource t = convert_kernel_source(permute({32768, 8192}, {1, 0}, DType::kU8));
  EXPECT_NE(t.text.find("const int bb = t % 8, ba = t / 8;"), std::string::npos) << t.text;
}

TEST(ConvertKernel, VectorPlanHasNoSharedMemory) {
  const KernelSource k = convert_kernel_source(permute({16, 4096, 32, 32}, {0, 2, 1, 3}, DType::kBF16));
  EXPECT_EQ(k.text.find("__shared__"), std::string::npos);
  EXPECT_EQ(k.shared_bytes, 0);
  // 16 x 4096 x 32 x 32 bf16 = 2^26 elements in vectors of 8, 4 vectors per thread, 256 threads.
  EXPECT_EQ(k.blocks, (int64_t{1} << 26) / 8 / 4 / 256);
}

TEST(ConvertKernel, FoldedPlanStagesSlabsInDestinationOrder) {
  // u8 (8,128,64,16,8,32) perm (1,0,2,4,5,3): group a = the 16-unit destination run and the next destination
  // mode (64, destination stride 4096); 16 slabs of 128 rows of 16 B (the engine's staging_byte).
  const ConvertPlan p = permute({8, 128, 64, 16, 8, 32}, {1, 0, 2, 4, 5, 3}, DType::kU8);
  ASSERT_EQ(p.folded_a, 1);
  const KernelSource k = convert_kernel_source(p);
  // group_a_dst: (i % 16) * 1, then (i / 16) * 4096.
  // 2^28 one-byte elements: every offset fits in 31 bits, so the index arithmetic is 32-bit.
  EXPECT_NE(k.text.find("unsigned group_a_dst(unsigned i)"), std::string::npos) << k.text;
  EXPECT_NE(k.text.find("r += (i % 16u) * 1u; i /= 16u;"), std::string::npos) << k.text;
  EXPECT_NE(k.text.find("r += i * 4096u;"), std::string::npos) << k.text;
  // Store pass: chunk fastest (one 16 B chunk per run), then row (128), then slab.
  EXPECT_NE(k.text.find("const int chunk = t % 1, row = (t / 1) % 128, slab = t / 128;"), std::string::npos)
      << k.text;
  EXPECT_NE(k.text.find("(dst_base + group_a_dst(ia) + group_b_dst(ib)) * 1"), std::string::npos);
  // Load pass: blocks of 4 rows; column j of the block is row bb * 16 + j of slab (ba * 4) / 16, at byte
  // (ba * 4) % 16 of the 16 B row. The swizzle (Swizzle<3,4,4>) changes bits 4-6, the very bits that j rows
  // add: column j is the block's swizzled offset XOR j * 16.
  EXPECT_NE(k.text.find("((ba * 4) / 16 * 128 + bb * 16 + 0) * 16 + (ba * 4) % 16 * 1"), std::string::npos)
      << k.text;
  EXPECT_NE(k.text.find("*reinterpret_cast<unsigned*>(tile + (so ^ 48))"), std::string::npos) << k.text;
  // An unfolded plan keeps the destination offset ia itself.
  const KernelSource plain = convert_kernel_source(permute({4096, 4096}, {1, 0}, DType::kU8));
  EXPECT_EQ(plain.text.find("group_a_dst"), std::string::npos);
}

TEST(ConvertKernel, ColumnsTheSwizzleReadsAreConstantsXoredOn) {
  // 10007 x 1009 u8 transposed: 512 x 32 tiles of 512 B rows, staged through Swizzle<3,4,7> (bits 11-13
  // XORed into 4-6). Column j of a register block is j * 512 bytes past the first, bits 9-12, and the swizzle
  // reads bits 11 and 12 of it: column 15 (7680 = 4096 + 2048 + 1024 + 512) XORs 7680 ^ (3 << 4) = 7728 onto
  // the first column's swizzled offset, column 3 (1536, below bit 11) plain 1536.
  const ConvertPlan p = permute({10007, 1009}, {1, 0}, DType::kU8);
  ASSERT_EQ(p.row_bytes, 512);
  ASSERT_EQ(p.staging.base, 4);
  ASSERT_EQ(p.staging.base + p.staging.shift, 11);
  ASSERT_FALSE(p.half_blocks);
  const KernelSource k = convert_kernel_source(p);
  EXPECT_NE(k.text.find("const unsigned so = "), std::string::npos) << k.text;
  EXPECT_NE(k.text.find("*reinterpret_cast<unsigned*>(tile + (so ^ 7728)) = __byte_perm(t1, t3, 0x7632u);"),
            std::string::npos)
      << k.text;
  EXPECT_NE(k.text.find("*reinterpret_cast<unsigned*>(tile + (so ^ 1536))"), std::string::npos) << k.text;
}

TEST(ConvertKernel, SmallUnalignedByteGridsLoadEachBlockByTwoThreads) {
  // (15, 17, 19, 21, 23) u8 reversed: a 256 x 64 tile, 256 register blocks of 4 rows x 16 B, 512 threads.
  // Thread 2t + h loads bytes 8h .. 8h+7 of block t's rows as aligned 8 B words and stores the block's
  // columns 8h .. 8h+7: rows bb * 16 + 8h + j of the 256 B staging rows, j * 256 apart (bits 8-10, which
  // Swizzle<3,4,7> does not read): column 7 is 1792 past the first.
  const ConvertPlan p = permute({15, 17, 19, 21, 23}, {4, 3, 2, 1, 0}, DType::kU8);
  ASSERT_TRUE(p.half_blocks);
  ASSERT_EQ(p.tile_a, 256);
  const KernelSource k = convert_kernel_source(p);
  EXPECT_EQ(k.threads, 512);
  EXPECT_NE(k.text.find("__launch_bounds__(512)"), std::string::npos) << k.text;
  EXPECT_NE(k.text.find("const int h = threadIdx.x & 1, t = threadIdx.x >> 1;"), std::string::npos) << k.text;
  EXPECT_NE(k.text.find("const unsigned ib = b0 + bb * 16 + h * 8;"), std::string::npos) << k.text;
  EXPECT_NE(k.text.find("if (sh[k] + valid > 8u) hi[k] = __ldg(q + 1);"), std::string::npos) << k.text;
  EXPECT_NE(k.text.find("*reinterpret_cast<unsigned*>(tile + (so ^ 1792)) = __byte_perm(t1, t3, 0x7632u);"),
            std::string::npos)
      << k.text;
  EXPECT_EQ(k.text.find("(so ^ 2048)"), std::string::npos) << k.text;  // no column 8 or past it
  // The stores: 64 rows of 16 windows over 512 threads, the 128 edges on threads 0-127.
  EXPECT_NE(k.text.find("for (int t = threadIdx.x; t < 1024; t += 512)"), std::string::npos) << k.text;
}

TEST(ConvertKernel, SmallUnalignedGridsOfWiderUnitsLoadEachBlockByTwoThreads) {
  // 137 x 4099 bf16 transposed: one 256 x 32 tile along a (137 rows), 129 along b; 128 register blocks of
  // 8 x 8 units, 256 threads. Thread 2t + h loads units 4h .. 4h+3 (8 bytes) of its block's 8 rows and stores
  // 4 columns of 16 B: column j is unit j of rows 0-7, two rows' 2 B units a word (units 0 and 1 of an 8 B
  // half sit in its word x, 2 and 3 in y; the even unit is a word's low half). Staging rows are 256 units x
  // 2 B = 512 bytes, column j is j * 512 past the first (bits 9-10, which Swizzle<3,4,7> does not read).
  const ConvertPlan p = permute({137, 4099}, {1, 0}, DType::kBF16);
  ASSERT_TRUE(p.half_blocks);
  ASSERT_EQ(p.row_bytes, 512);
  const KernelSource k = convert_kernel_source(p);
  EXPECT_EQ(k.threads, 256);
  EXPECT_NE(k.text.find("const unsigned ib = b0 + bb * 8 + h * 4;"), std::string::npos) << k.text;
  // The bytes of the thread's 4 units that lie in the tensor (4099 is not a multiple of 4).
  EXPECT_NE(k.text.find("const unsigned valid = (unsigned)(ib + 4 <= 4099u ? 4u : 4099u - ib) * 2u;"),
            std::string::npos)
      << k.text;
  EXPECT_NE(k.text.find("in + (src_base + group_a_src(ia) + ib) * 2;"), std::string::npos) << k.text;
  EXPECT_NE(k.text.find("*reinterpret_cast<uint4*>(tile + (so ^ 1536)) = make_uint4(__byte_perm(r[0].y, "
                        "r[1].y, 0x7632u), __byte_perm(r[2].y, r[3].y, 0x7632u), __byte_perm(r[4].y, r[5].y, "
                        "0x7632u), __byte_perm(r[6].y, r[7].y, 0x7632u));"),
            std::string::npos)
      << k.text;
  EXPECT_NE(k.text.find("*reinterpret_cast<uint4*>(tile + (so ^ 0)) = make_uint4(__byte_perm(r[0].x, r[1].x, "
                        "0x5410u)"),
            std::string::npos)
      << k.text;
  EXPECT_EQ(k.text.find("(so ^ 2048)"), std::string::npos) << k.text;  // no column 4
  // 4 B units: 2 columns of a 4 x 4 block, each word one row's unit.
  const KernelSource f = convert_kernel_source(permute({137, 4099}, {1, 0}, DType::kF32));
  EXPECT_NE(f.text.find("= make_uint4(r[0].y, r[1].y, r[2].y, r[3].y);"), std::string::npos) << f.text;
  EXPECT_NE(f.text.find("const unsigned ib = b0 + bb * 4 + h * 2;"), std::string::npos) << f.text;
}

TEST(ConvertKernel, WideUnitsMoveAsSixteenBytePiecesOnNeighbouringLanes) {
  // u8 (1024,64,128,32) perm (1,2,0,3): 32 B units, two lanes each; a 32 x 32 unit tile (32 KiB); 1024/32
  // tiles along a, 8192/32 along b.
  const KernelSource k = convert_kernel_source(permute({1024, 64, 128, 32}, {1, 2, 0, 3}, DType::kU8));
  EXPECT_EQ(k.threads, 256);
  EXPECT_EQ(k.blocks, 32 * 256);
  EXPECT_EQ(k.shared_bytes, 32768);
  EXPECT_NE(k.text.find("typedef uint4 vec_t"), std::string::npos);
  EXPECT_NE(k.text.find("piece = t % 2, u = t / 2"), std::string::npos) << k.text;
  EXPECT_NE(k.text.find("* 32 + piece * 16"), std::string::npos) << k.text;
  EXPECT_EQ(k.text.find("__byte_perm"), std::string::npos);  // no register transpose: a unit stays whole
  // 2048 pieces over 256 threads: 8 each, 4 loads in flight, no partial tiles and no tests.
  EXPECT_NE(k.text.find("i0 < 8; i0 += 4"), std::string::npos) << k.text;
  EXPECT_EQ(k.text.find("continue;"), std::string::npos);
}

TEST(ConvertKernel, PairedBlocksTradeHalfRowsBetweenMates) {
  // bf16 [2^22, 8] -> [8, 2^22]: lane m of a pair loads rows 2k+m, trades two words per row with lane m^1,
  // and stores output rows 4m .. 4m+3.
  const KernelSource k = convert_kernel_source(permute({1 << 22, 8}, {1, 0}, DType::kBF16));
  EXPECT_NE(k.text.find("m = t & 1, ba = t >> 1"), std::string::npos) << k.text;
  EXPECT_NE(k.text.find("(2 * k + m) * 8u"), std::string::npos) << k.text;
  EXPECT_NE(k.text.find("__shfl_xor_sync(0xffffffffu, s0, 1)"), std::string::npos) << k.text;
  EXPECT_NE(k.text.find("m * 4 + 3"), std::string::npos) << k.text;
  // 256 records per tile (4 KiB): 32 blocks, 64 lanes, one pass of 64 threads, no lane idle.
  EXPECT_EQ(k.threads, 64);
  EXPECT_NE(k.text.find("  do {\n    const int i = 0;\n    const int t = threadIdx.x + i * 64"),
            std::string::npos)
      << k.text;
  EXPECT_EQ(k.text.find("live"), std::string::npos) << k.text;
}

TEST(ConvertKernel, APassOfOneTripIsABlock) {
  // f32 4096^2: 16 x 16 register blocks of 4 x 4 per 64 x 64 tile, one per thread of 256: the load pass is a
  // block, every thread has an item (no test); the store pass moves 64 rows x 16 chunks, 4 per thread.
  const KernelSource f32 = convert_kernel_source(permute({4096, 4096}, {1, 0}, DType::kF32));
  EXPECT_NE(f32.text.find("  do {\n    const int t = threadIdx.x;\n    const int bb"), std::string::npos)
      << f32.text;
  EXPECT_NE(f32.text.find("  } while (0);\n  __syncthreads();"), std::string::npos) << f32.text;
  EXPECT_EQ(f32.text.find("break;"), std::string::npos) << f32.text;
  EXPECT_NE(f32.text.find("for (int t = threadIdx.x; t < 1024; t += 256)"), std::string::npos) << f32.text;
  // u8 16 x 16: four blocks of 4 rows of 16 B in the whole tensor, and 16 rows of 16 B to store, for the
  // smallest block of 64 threads: both passes are blocks that the threads without an item leave.
  const KernelSource u8 = convert_kernel_source(permute({16, 16}, {1, 0}, DType::kU8));
  EXPECT_EQ(u8.threads, 64);
  EXPECT_NE(u8.text.find("const int t = threadIdx.x;\n    if (t >= 4) break;"), std::string::npos) << u8.text;
  EXPECT_NE(u8.text.find("const int t = threadIdx.x;\n    if (t >= 16) break;"), std::string::npos)
      << u8.text;
  EXPECT_EQ(u8.text.find("for (int t"), std::string::npos) << u8.text;
}

TEST(ConvertKernel, IndexWidthFollowsTheLargestOffset) {
  // 2^31 bytes and more need 64-bit offsets: 65536 x 32768 u8 is 2 GiB, one past what 31 bits address.
  const KernelSource wide = convert_kernel_source(permute({65536, 32768}, {1, 0}, DType::kU8));
  EXPECT_NE(wide.text.find("long long blk = blockIdx.x;"), std::string::npos) << wide.text;
  EXPECT_EQ(wide.text.find("unsigned blk"), std::string::npos);
  // Half of that (1 GiB) fits.
  const KernelSource narrow = convert_kernel_source(permute({32768, 32768}, {1, 0}, DType::kU8));
  EXPECT_NE(narrow.text.find("unsigned blk = blockIdx.x;"), std::string::npos) << narrow.text;
}

TEST(ConvertKernel, BoundsTestsOnlyWhereEdgeTilesExist) {
  // 4096 = 64 whole tiles each way: no partial tile, no test. 1000 x 1000 leaves partial tiles on both groups
  // (1000 = 15 x 64 + 40 along a, 31 x 32 + 8 along b).
  const KernelSource whole = convert_kernel_source(permute({4096, 4096}, {1, 0}, DType::kF32));
  EXPECT_EQ(whole.text.find("continue;"), std::string::npos) << whole.text;
  EXPECT_EQ(whole.text.find("vec_t{}"), std::string::npos) << whole.text;
  const KernelSource partial = convert_kernel_source(permute({1000, 1000}, {1, 0}, DType::kF32));
  EXPECT_NE(partial.text.find("continue;"), std::string::npos) << partial.text;
  EXPECT_NE(partial.text.find("|| ib >="), std::string::npos) << partial.text;
  // 1001 x 999 (odd rows, an unaligned plan): the rows past group b are skipped, and the last tile along a
  // holds fewer units (`units`), which bound its body windows and its edges.
  const KernelSource odd = convert_kernel_source(permute({1001, 999}, {1, 0}, DType::kF32));
  EXPECT_NE(odd.text.find("if (ib >= 999u) continue;"), std::string::npos) << odd.text;
  EXPECT_NE(odd.text.find("const int units = (int)(1001u - a0"), std::string::npos) << odd.text;
  EXPECT_NE(odd.text.find("- shift > units) continue;"), std::string::npos) << odd.text;
  // The vector kernel: 2^26 bf16 in vectors of 8 fill whole blocks of 256 x 4 vectors; 2000 runs of 16 f32
  // (8000 vectors of 4) do not.
  const KernelSource full = convert_kernel_source(permute({16, 4096, 32, 32}, {0, 2, 1, 3}, DType::kBF16));
  EXPECT_EQ(full.text.find("break;"), std::string::npos) << full.text;
  const KernelSource part = convert_kernel_source(permute({1000, 2, 16}, {1, 0, 2}, DType::kF32));
  EXPECT_NE(part.text.find("break;"), std::string::npos) << part.text;
  EXPECT_EQ(part.text.find("__shared__"), std::string::npos) << part.text;
}

// The edges of an unaligned tile's rows: one thread per row and end, not one per unit. 10007 x 1009 u8 has
// tile rows of 512 units in 32 rows (the plan's tile: 256 x 128 lengthened along the unaligned destination
// rows to 512 x 64, whose 20 x 16 = 320 tiles of 512 threads make between one and two waves, then halved
// along b): 64 edge items. A row that starts s bytes into a 16 B
// window has a head of 16 - s bytes (s 1 .. 15) and a tail of s bytes, each stored as the aligned pieces of
// its window: 16 - 7 = 9 bytes from byte 7 go as 1 B at 7 and 8 B at 8, so u8 needs pieces of 1, 2, 4 and 8
// B; f32 units (4 B) only pieces of 4 and 8 B, bf16 of 2, 4 and 8.
TEST(ConvertKernel, UnalignedRowEdgesAreOneThreadPerEndInAlignedPieces) {
  const ConvertPlan u8 = permute({10007, 1009}, {1, 0}, DType::kU8);
  ASSERT_TRUE(u8.unaligned);
  ASSERT_EQ(u8.tile_a, 512);
  ASSERT_EQ(u8.tile_b, 32);
  ASSERT_EQ(u8.threads, 256);
  const std::string t = convert_kernel_source(u8).text;
  EXPECT_NE(t.find("if (t >= 64) break;\n    const int row = t / 2;"), std::string::npos) << t;
  // Every piece a predicated store of its own, placed from b and e alone (edge_stores): no chain of `b +=`.
  EXPECT_NE(t.find("if ((b & 1) != 0 && b + 1 <= e) *reinterpret_cast<unsigned char*>(win + b) = va1;"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("*reinterpret_cast<unsigned short*>(win + pa2) = va2;"), std::string::npos) << t;
  EXPECT_NE(t.find("if ((len & 8) != 0) *reinterpret_cast<uint2*>(win + b1) = vd8;"), std::string::npos) << t;
  EXPECT_NE(t.find("if ((len & 1) != 0) *reinterpret_cast<unsigned char*>(win + pd1) = vd1;"),
            std::string::npos)
      << t;
  EXPECT_EQ(t.find("b += "), std::string::npos) << t;
  EXPECT_EQ(t.find("unit_t"), std::string::npos) << t;  // no unit-by-unit stores
  const std::string f32 = convert_kernel_source(permute({4099, 4093}, {1, 0}, DType::kF32)).text;
  EXPECT_NE(f32.find("*reinterpret_cast<unsigned*>(win + pa4) = va4;"), std::string::npos) << f32;
  EXPECT_NE(f32.find("*reinterpret_cast<uint2*>(win + pa8) = va8;"), std::string::npos) << f32;
  EXPECT_EQ(f32.find("unsigned char*>(win"), std::string::npos) << f32;
  EXPECT_EQ(f32.find("unsigned short*>(win"), std::string::npos) << f32;
  const std::string bf16 = convert_kernel_source(permute({4093, 4099}, {1, 0}, DType::kBF16)).text;
  EXPECT_NE(bf16.find("*reinterpret_cast<unsigned short*>(win + pa2) = va2;"), std::string::npos) << bf16;
  EXPECT_EQ(bf16.find("unsigned char*>(win"), std::string::npos) << bf16;
}

// Tiles whose rows are 32 windows take a destination row per warp, and each shift has code of its own. The
// bf16 prime transpose (4093 x 4099, tile rows of 256 units): a row that starts 5 units (10 B) into its
// window has a head of 3 units, bytes 10-15 of window 0 (2 B at 10, 4 B at 12), and a tail of 5 units, bytes
// 0-9 of window 32 (8 B at 0, 2 B at 8); lane 31's word holds both. Its source rows are 4099 x 2 = 8198 B
// apart (6 mod 16) and its register blocks 8 rows (8 x 8198 = 0 mod 16): row k of every block starts 6k mod
// 16 bytes into an aligned word. The u8 prime transpose's blocks are 4 rows of 1009 B (4 x 1009 = 4 mod 16):
// its shifts are read off the addresses.
TEST(ConvertKernel, UnalignedRowsOfThirtyTwoWindowsTakeARowPerWarp) {
  const ConvertPlan bf16 = permute({4093, 4099}, {1, 0}, DType::kBF16);
  ASSERT_TRUE(bf16.unaligned);
  ASSERT_EQ(bf16.tile_a, 256);
  ASSERT_EQ(bf16.block_rows, 8);
  EXPECT_TRUE(warp_row_stores(bf16));
  const std::string t = convert_kernel_source(bf16).text;
  EXPECT_NE(t.find("for (int row = threadIdx.x / 32; row < 64; row += 8) {"), std::string::npos) << t;
  EXPECT_NE(t.find("switch ((int)(first & 7u)) {"), std::string::npos) << t;
  const size_t five = t.find("case 5: {"), six = t.find("case 6: {");
  ASSERT_NE(five, std::string::npos) << t;
  const std::string case5 = t.substr(five, six - five);
  EXPECT_NE(case5.find(", 6u);"), std::string::npos) << case5;  // shifted by 8 - 5 units
  EXPECT_NE(case5.find("*reinterpret_cast<unsigned short*>(win + 10) = (unsigned short)(x.z >> 16);"),
            std::string::npos)
      << case5;
  EXPECT_NE(case5.find("*reinterpret_cast<unsigned*>(win + 12) = x.w;"), std::string::npos) << case5;
  // The 8 B piece is one 64-bit store: as a uint2 the compiler may split it in two.
  EXPECT_NE(
      case5.find("*reinterpret_cast<unsigned long long*>(win + 512 + 0) = (unsigned long long)x.y << 32 | "
                 "x.x;"),
      std::string::npos)
      << case5;
  EXPECT_NE(case5.find("*reinterpret_cast<unsigned short*>(win + 512 + 8) = (unsigned short)(x.z);"),
            std::string::npos)
      << case5;
  // 4093 = 15 x 256 + 253: the last tile along a keeps a thread per window.
  EXPECT_NE(t.find("if (units == 256) {"), std::string::npos) << t;
  EXPECT_NE(t.find("sh[k] = (k * 6u) & 15u;"), std::string::npos) << t;
  const std::string u8 = convert_kernel_source(permute({10007, 1009}, {1, 0}, DType::kU8)).text;
  EXPECT_NE(u8.find("switch ((int)(first & 15u)) {"), std::string::npos) << u8;
  EXPECT_NE(u8.find("sh[k] = (unsigned)((unsigned long long)p & 15ull);"), std::string::npos) << u8;
  // Shorter tiles keep a thread per window: 1201 x 1999 u8 has tile rows of 128 units (8 windows).
  const ConvertPlan small = permute({1201, 1999}, {1, 0}, DType::kU8);
  ASSERT_TRUE(small.unaligned);
  EXPECT_FALSE(warp_row_stores(small));
  EXPECT_EQ(convert_kernel_source(small).text.find("switch"), std::string::npos);
}

// Unaligned loads issue every word of the thread's rows (tiled) or windows (vector) before the first shift,
// so that no load waits for an earlier one's data: the shifts come in a loop of their own.
TEST(ConvertKernel, UnalignedLoadsAllIssueBeforeTheirShifts) {
  const std::string tiled = convert_kernel_source(permute({4099, 4093}, {1, 0}, DType::kF32)).text;
  const size_t load = tiled.find("if (sh[k] + valid > 16u) hi[k] = __ldg(q + 1);");
  const size_t shift = tiled.find("for (int k = 0; k < 4; ++k) r[k] = funnel16(lo[k], hi[k], sh[k]);");
  ASSERT_NE(load, std::string::npos) << tiled;
  ASSERT_NE(shift, std::string::npos) << tiled;
  EXPECT_LT(load, shift);
  // 4099 rows in tiles of 64 (4099 = 64 x 64 + 3): rows past the tensor load nothing.
  EXPECT_NE(tiled.find("if (ia >= 4099u) continue;"), std::string::npos) << tiled;
  EXPECT_EQ(tiled.find("load_unaligned(in + (sa"), std::string::npos) << tiled;
  const std::string vec = convert_kernel_source(permute({64, 6, 197, 197}, {0, 2, 1, 3}, DType::kU8)).text;
  const size_t vload = vec.find("if (sh[u] + cut[u] > 16u) hi[u] = __ldg(q + 1);");
  const size_t vshift = vec.find("uint4 x = funnel16(lo[u], hi[u], sh[u]);");
  ASSERT_NE(vload, std::string::npos) << vec;
  ASSERT_NE(vshift, std::string::npos) << vec;
  EXPECT_LT(vload, vshift);
}

// NCHW -> NHWC, 3 channels of u8: three 16 B plane loads, 12 output words each gathered from bytes of the
// three planes (output byte 3i + c is byte i of plane c), the lane's 3 chunks stored into its warp's 1536 B
// exchange, then each lane stores chunk q = 32k + lane of the warp's run, owned by lane q / 3.
TEST(ConvertKernel, InterleaveGathersBytesAndExchangesPerWarp) {
  const ConvertPlan p = permute({64, 3, 224, 224}, {0, 2, 3, 1}, DType::kU8);
  ASSERT_EQ(p.kind, ConvertKind::kInterleave);
  const KernelSource k = convert_kernel_source(p);
  EXPECT_EQ(k.threads, 256);
  EXPECT_EQ(k.blocks, 64 * 224 * 224 / 16 / 256);
  EXPECT_EQ(k.shared_bytes, 8 * 1536);
  EXPECT_NE(k.text.find("exchange + (threadIdx.x >> 5) * 1536"), std::string::npos) << k.text;
  EXPECT_NE(k.text.find("r[k] = __ldg(reinterpret_cast<const vec_t*>(in + (src + k * 50176u) * 1));"),
            std::string::npos)
      << k.text;
  // Output word 0 = bytes (plane 0 byte 0, plane 1 byte 0, plane 2 byte 0, plane 0 byte 1): planes 0 and 1
  // by selector 0x1040 (positions 0, 1, 3), plane 2 by 0x0 (position 2), then positions 0, 1, 3 from the
  // first and 2 from the second: 0x3610.
  EXPECT_NE(k.text.find("w[0].x = __byte_perm(__byte_perm(r[0].x, r[1].x, 0x1040u), __byte_perm(r[2].x, 0u, "
                        "0x0u), 0x3610u);"),
            std::string::npos)
      << k.text;
  EXPECT_NE(k.text.find("owner = q / 3, j = q % 3"), std::string::npos) << k.text;
  EXPECT_NE(k.text.find("__shfl_sync(0xffffffffu, dst, owner)"), std::string::npos) << k.text;
  EXPECT_EQ(k.text.find("units > 0"), std::string::npos) << k.text;  // 50176 = 3136 x 16: nothing ragged
  // f32: the interleave is word moves, no byte permutes.
  const KernelSource f32 = convert_kernel_source(permute({32, 3, 224, 224}, {0, 2, 3, 1}, DType::kF32));
  EXPECT_NE(f32.text.find("w[0].y = r[1].x;"), std::string::npos) << f32.text;
  EXPECT_EQ(f32.text.find("__byte_perm"), std::string::npos) << f32.text;
}

// One 224 x 224 RGB image of f32: 12544 items, too few for 264 blocks, so each lane stores its own 3 chunks
// straight from registers (out + dst * 4 B + j * 16 B), in 196 blocks of 64: no exchange, no shuffle, no
// warp barrier, no shared memory.
TEST(ConvertKernel, SmallInterleaveStoresEachLanesRecordFromRegisters) {
  const ConvertPlan p = permute({1, 3, 224, 224}, {0, 2, 3, 1}, DType::kF32);
  ASSERT_EQ(p.kind, ConvertKind::kInterleave);
  ASSERT_TRUE(p.direct_stores);
  const KernelSource k = convert_kernel_source(p);
  EXPECT_EQ(k.threads, 64);
  EXPECT_EQ(k.blocks, 196);
  EXPECT_EQ(k.shared_bytes, 0);
  EXPECT_NE(k.text.find("*reinterpret_cast<vec_t*>(out + dst * 4 + j * 16) = w[j];"), std::string::npos)
      << k.text;
  for (const char* gone : {"__shared__", "__shfl_sync", "__syncwarp", "__ballot_sync", "exchange"})
    EXPECT_EQ(k.text.find(gone), std::string::npos) << gone << "\n" << k.text;
}

TEST(ConvertKernel, HashIsStableAndSeparatesPlans) {
  const KernelSource a = convert_kernel_source(permute({4096, 4096}, {1, 0}, DType::kF32));
  const KernelSource b = convert_kernel_source(permute({4096, 4096}, {1, 0}, DType::kF32));
  const KernelSource c = convert_kernel_source(permute({4096, 2048}, {1, 0}, DType::kF32));
  EXPECT_EQ(a.hash, b.hash);
  EXPECT_NE(a.hash, c.hash);
  // The conversion kernels' NVRTC options are part of the key: the same text compiled otherwise is another
  // CUBIN.
  EXPECT_EQ(a.options, (std::vector<std::string>{"--ptxas-options=-O1"}));
  KernelSource plain = a;
  plain.options.clear();
  EXPECT_EQ(kernel_hash(plain), source_hash(a.text));
  EXPECT_NE(kernel_hash(plain), a.hash);
  EXPECT_EQ(source_hash(""), 0xcbf29ce484222325ull);   // FNV-1a 64 offset basis (the FNV reference)
  EXPECT_EQ(source_hash("a"), 0xaf63dc4c8601ec8cull);  // the FNV reference test vector of "a"
}

#ifdef LAYOUTSCOPE_NVCC
// ptxas's report of one kernel, compiled from the generated text.
std::string compile(const KernelSource& k, const std::string& name) {
  const std::string dir = ::testing::TempDir();
  const std::string cu = dir + "/" + name + ".cu", log = dir + "/" + name + ".log";
  std::ofstream(cu) << k.text;
  // nvcc spells the kernel's NVRTC options the same way (--ptxas-options, --Ofast-compile).
  std::string options;
  for (const std::string& o : k.options) options += " " + o;
  const std::string cmd = std::string(LAYOUTSCOPE_NVCC) + " -arch=sm_90 -cubin -Xptxas=-v" + options +
                          " -o " + dir + "/" + name + ".cubin " + cu + " > " + log + " 2>&1";
  const int status = std::system(cmd.c_str());
  std::stringstream out;
  out << std::ifstream(log).rdbuf();
  EXPECT_EQ(status, 0) << cmd << "\n" << out.str() << "\n" << k.text;
  return out.str();
}

TEST(ConvertKernel, EveryKindCompilesWithoutSpills) {
  struct Case {
    const char* name;
    ConvertPlan plan;
  };
  const Case cases[] = {
      {"f32_transpose", permute({4096, 4096}, {1, 0}, DType::kF32)},
      {"bf16_transpose", permute({8192, 4096}, {1, 0}, DType::kBF16)},
      {"u8_transpose", permute({8192, 4096}, {1, 0}, DType::kU8)},
      {"f64_transpose", permute({2048, 2048}, {1, 0}, DType::kF64)},
      {"bf16_bshd", permute({16, 4096, 32, 32}, {0, 2, 1, 3}, DType::kBF16)},
      {"f32_nchw_nhwc", permute({64, 64, 128, 128}, {0, 2, 3, 1}, DType::kF32)},
      {"u8_reverse", permute({256, 256, 1024}, {2, 1, 0}, DType::kU8)},
      {"f32_aos_soa", permute({1 << 22, 8}, {1, 0}, DType::kF32)},
      {"f32_odd", permute({1001, 999}, {1, 0}, DType::kF32)},
      {"f32_packed_pairs", permute({64, 32, 2}, {1, 0, 2}, DType::kF32)},
      {"u8_folded", permute({8, 128, 64, 16, 8, 32}, {1, 0, 2, 4, 5, 3}, DType::kU8)},
      {"u8_wide_units", permute({1024, 64, 128, 32}, {1, 2, 0, 3}, DType::kU8)},
      {"f32_wide_units_odd", permute({1001, 3, 999, 8}, {2, 1, 0, 3}, DType::kF32)},
      {"bf16_paired_aos", permute({1 << 22, 8}, {1, 0}, DType::kBF16)},
      {"f32_paired_aos_odd", permute({1001, 4}, {1, 0}, DType::kF32)},
      {"f64_paired_aos", permute({1 << 20, 2}, {1, 0}, DType::kF64)},
      {"u8_one_block", permute({16, 16}, {1, 0}, DType::kU8)},
      {"u8_interleave_nhwc", permute({64, 3, 224, 224}, {0, 2, 3, 1}, DType::kU8)},
      {"u8_deinterleave_rec5", permute({1 << 20, 5}, {1, 0}, DType::kU8)},
      {"bf16_deinterleave_rec10", permute({1 << 20, 10}, {1, 0}, DType::kBF16)},
      {"f32_interleave_odd", permute({3, 270337}, {1, 0}, DType::kF32)},
      {"f32_interleave_direct", permute({3, 1001}, {1, 0}, DType::kF32)},
      {"f32_unaligned_prime", permute({4099, 4093}, {1, 0}, DType::kF32)},
      {"bf16_unaligned_prime", permute({4093, 4099}, {1, 0}, DType::kBF16)},
      {"u8_unaligned_rank5", permute({15, 17, 19, 21, 23}, {4, 3, 2, 1, 0}, DType::kU8)},
      {"u8_unaligned_vector", permute({64, 6, 197, 197}, {0, 2, 1, 3}, DType::kU8)},
      {"u8_unaligned_planes", permute({3, 1081345}, {1, 0}, DType::kU8)},
      {"u8_direct_records_of_24", permute({24, 4096}, {1, 0}, DType::kU8)},
  };
  for (const Case& c : cases) {
    const std::string report = compile(convert_kernel_source(c.plan), c.name);
    EXPECT_NE(report.find("0 bytes spill stores, 0 bytes spill loads"), std::string::npos) << c.name << "\n"
                                                                                           << report;
  }
}
#endif

}  // namespace
}  // namespace layoutscope::codegen
