// The conversion library: the arguments library_call derives from a plan must send every destination element
// to the source element the engine's gather function names (gather_offset, side_element), whatever the plan's
// kind, unit, offsets and swizzles; the unit is the widest run contiguous on both sides that 16 B hold; and,
// where nvcc exists, the five kernels compile.
#include "convert_library.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "layoutscope/parse.hpp"
#include "layoutscope/plan/convert.hpp"

namespace layoutscope::codegen {
namespace {

ConvertPlan permute(std::vector<int64_t> shape, std::vector<int64_t> perm, DType dtype) {
  auto p = plan_permute(shape, perm, dtype);
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message);
  return *p;
}

ConvertPlan layouts(const char* src, const char* dst, std::vector<int64_t> shape, DType dtype) {
  auto s = parse_layout(src);
  auto d = parse_layout(dst);
  EXPECT_TRUE(s.ok() && d.ok());
  auto p = plan_convert(*s, *d, shape, dtype);
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message);
  return *p;
}

// What the library kernel does with unit i, written from its text: the source unit and the destination unit
// (element offsets divided by the unit).
std::pair<long long, long long> kernel_units(const LibraryArgs& c, long long i) {
  long long r = i, s = 0;
  for (int d = static_cast<int>(c.rank) - 1; d >= 0; --d) {
    s += r % c.extent[d] * c.src_stride[d];
    r /= c.extent[d];
  }
  long long se = s * c.unit_elems + c.src_offset, de = i * c.unit_elems + c.dst_offset;
  se ^= ((se >> c.src_read) & c.src_mask) << c.src_write;
  de ^= ((de >> c.dst_read) & c.dst_mask) << c.dst_write;
  return {se / c.unit_elems, de / c.unit_elems};
}

void expect_gathers_as_the_engine(const ConvertPlan& plan, const LibraryCall& call, const char* name) {
  const LibraryArgs& a = call.args;
  ASSERT_EQ(a.units * a.unit_elems, plan.elements) << name;
  const long long step = std::max<long long>(1, a.units / 20000);  // about 20,000 units of each case
  int bad = 0;
  for (long long i = 0; i < a.units && bad < 5; i += step) {
    const auto [su, du] = kernel_units(a, i);
    for (long long j = 0; j < a.unit_elems; ++j) {
      const int64_t e = i * a.unit_elems + j;
      const int64_t want_src = side_element(plan, true, gather_offset(plan, e));
      const int64_t want_dst = side_element(plan, false, e);
      if (su * a.unit_elems + j != want_src || du * a.unit_elems + j != want_dst) {
        ADD_FAILURE() << name << ": destination element " << e << " goes from " << su * a.unit_elems + j
                      << " to " << du * a.unit_elems + j << ", the engine says " << want_src << " to "
                      << want_dst;
        ++bad;
      }
    }
  }
}

TEST(ConvertLibrary, EveryKindGathersAsTheEngine) {
  struct Case {
    const char* name;
    ConvertPlan plan;
    int unit_bytes;  // worked out below
  };
  const Case cases[] = {
      // 10007 x 1009 u8: no run contiguous on both sides, 1 B units.
      {"prime_u8", permute({10007, 1009}, {1, 0}, DType::kU8), 1},
      // NCHW -> NHWC with C = 3, f32: the destination's innermost mode (C) has source stride 224 x 224.
      {"nchw_nhwc_c3_f32", permute({8, 3, 224, 224}, {0, 2, 3, 1}, DType::kF32), 4},
      // BSHD -> BHSD bf16 with D = 64: runs of 64 x 2 B = 128 B, 16 B units (8 elements).
      {"bshd_bhsd_bf16", permute({2, 197, 12, 64}, {0, 2, 1, 3}, DType::kBF16), 16},
      // NCHW -> NHWC with C = 64, u8 (a tiled plan of whole 1 B units, unit_elems 1): 1 B units.
      {"nchw_nhwc_c64_u8", permute({2, 64, 56, 56}, {0, 2, 3, 1}, DType::kU8), 1},
      // Pairs of f32 kept together ((64, 32, 2) perm (1, 0, 2)): 8 B runs, 8 B units.
      {"pairs_f32", permute({64, 32, 2}, {1, 0, 2}, DType::kF32), 8},
      // (1001, 3, 999, 8) f32 perm (2, 1, 0, 3): runs of 8 f32 = 32 B, 16 B units (4 elements).
      {"wide_units_f32", permute({1001, 3, 99, 8}, {2, 1, 0, 3}, DType::kF32), 16},
      // MoE scales, (64, 4000, 7) u8 -> (7, 4000, 64): 1 B units.
      {"moe_u8", permute({64, 40, 7}, {2, 1, 0}, DType::kU8), 1},
      // A TMA 128 B swizzled tile of bf16 to row-major: the swizzle changes element bits 3-5, so a unit keeps
      // at most 8 elements (16 B), which the 64-element runs allow.
      {"swizzled_src_bf16",
       layouts("Swizzle<3,3,3> o S[(4,64,4,64):(16384,64,4096,1)]", "S[(4,64,4,64):(16384,256,64,1)]",
               {4, 64, 4, 64}, DType::kBF16),
       16},
      // A 4096 x 1000 f32 transpose into a buffer 1024 elements in: the offset is a multiple of 4, but the
      // destination's innermost mode (4096 elements) has source stride 1000: 4 B units.
      {"offset_dst_f32",
       layouts("S[(512,1000):(1000,1)]", "S[(512,1000):(1,512)] + O[1024@m]", {512, 1000}, DType::kF32), 4},
      // A source slice 4 elements in, row-major to row-major: runs of 1000 f32, offset 4: 16 B units.
      {"offset_src_f32",
       layouts("S[(64,1000):(1024,1)] + O[4@m]", "S[(64,1000):(1000,1)]", {64, 1000}, DType::kF32), 16},
  };
  for (const Case& c : cases) {
    auto call = library_call(c.plan);
    ASSERT_TRUE(call.ok()) << c.name << ": " << call.error().message;
    EXPECT_EQ(call->unit_bytes, c.unit_bytes) << c.name;
    EXPECT_LE(call->args.rank, kLibraryModes) << c.name;
    expect_gathers_as_the_engine(c.plan, *call, c.name);
  }
}

// Nine modes that no two fuse (a reversal of nine extents of 2) are more than the kernels take: an error
// naming the field, not a wrong answer.
TEST(ConvertLibrary, TooManyModesIsAnError) {
  const ConvertPlan plan = permute({2, 3, 2, 3, 2, 3, 2, 3, 2}, {8, 7, 6, 5, 4, 3, 2, 1, 0}, DType::kF32);
  auto call = library_call(plan);
  ASSERT_FALSE(call.ok());
  EXPECT_EQ(call.error().field, "shape");
  EXPECT_NE(call.error().message.find("at most 8 modes"), std::string::npos) << call.error().message;
}

TEST(ConvertLibrary, OneKernelPerUnitSize) {
  for (int b : {1, 2, 4, 8, 16}) {
    const KernelSource k = library_kernel_source(b);
    EXPECT_EQ(k.name, std::string(kLibraryKernelPrefix) + std::to_string(b));
    EXPECT_NE(k.text.find("typedef " +
                          std::string(b == 1   ? "unsigned char"
                                      : b == 2 ? "unsigned short"
                                      : b == 4 ? "unsigned"
                                      : b == 8 ? "uint2"
                                               : "uint4") +
                          " unit_t;"),
              std::string::npos)
        << k.text;
  }
  EXPECT_NE(library_kernel_source(1).hash, library_kernel_source(2).hash);
  // The file the agent's build compiles in: the argument struct once, the same five kernels, and a table
  // from unit size to kernel.
  const std::string all = library_builtin_source();
  size_t structs = 0;
  for (size_t at = all.find("struct LsCall {"); at != std::string::npos;
       at = all.find("struct LsCall {", at + 1))
    ++structs;
  EXPECT_EQ(structs, 1u);
  for (int b : {1, 2, 4, 8, 16}) {
    const std::string text = library_kernel_source(b).text;
    const std::string kernel = text.substr(text.find("// layoutscope conversion library"));
    EXPECT_NE(all.find(kernel), std::string::npos) << b;
    EXPECT_NE(all.find("case " + std::to_string(b) + ": return reinterpret_cast<const void*>(&" +
                       std::string(kLibraryKernelPrefix) + std::to_string(b) + ");"),
              std::string::npos)
        << all;
  }
  EXPECT_NE(all.find(std::string("extern \"C\" const void* ") + kLibraryTableName + "(int unit_bytes)"),
            std::string::npos);
}

#ifdef LAYOUTSCOPE_NVCC
TEST(ConvertLibrary, TheKernelsCompile) {
  const std::string dir = ::testing::TempDir();
  for (int b : {1, 2, 4, 8, 16}) {
    const KernelSource k = library_kernel_source(b);
    const std::string cu = dir + "/library_" + std::to_string(b) + ".cu";
    std::ofstream(cu) << k.text;
    const std::string cmd = std::string(LAYOUTSCOPE_NVCC) + " -arch=sm_90 -cubin -o " + dir +
                            "/library.cubin " + cu + " > " + dir + "/library.log 2>&1";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  }
  const std::string all = dir + "/library_builtin.cu";
  std::ofstream(all) << library_builtin_source();
  const std::string cmd = std::string(LAYOUTSCOPE_NVCC) + " -arch=sm_90 -c -o " + dir +
                          "/library_builtin.o " + all + " > " + dir + "/library.log 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
}
#endif

}  // namespace
}  // namespace layoutscope::codegen
