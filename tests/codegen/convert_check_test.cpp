// The generated check of a conversion: each layout evaluated from its own modes, innermost first (the
// notation's order: the last mode varies fastest), and refused for what a conversion layout cannot hold.
#include "convert_check.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "layoutscope/parse.hpp"

namespace layoutscope::codegen {
namespace {

Layout layout(const char* text) {
  auto l = parse_layout(text);
  EXPECT_TRUE(l.ok()) << text;
  return *l;
}

// S[(4,8):(8,1)] row-major: x = 8i + j sits at 8i + j, so the offset is (x % 8) * 1 + ((x / 8) % 4) * 8;
// its transpose S[(4,8):(1,4)] puts (i, j) at i + 4j, (x % 8) * 4 + ((x / 8) % 4) * 1.
TEST(ConvertCheck, EvaluatesEachLayoutFromItsModesInnermostFirst) {
  auto k = convert_check_source(layout("S[(4,8):(8,1)]"), layout("S[(4,8):(1,4)]"), 4);
  ASSERT_TRUE(k.ok()) << k.error().message;
  const std::string& t = k->text;
  const auto src = t.find("s += (r % 8LL) * 1LL; r /= 8LL;\n    s += (r % 4LL) * 8LL; r /= 4LL;");
  const auto dst = t.find("d += (r % 8LL) * 4LL; r /= 8LL;\n    d += (r % 4LL) * 1LL; r /= 4LL;");
  EXPECT_NE(src, std::string::npos) << t;
  EXPECT_NE(dst, std::string::npos) << t;
  EXPECT_NE(t.find("x < 32LL"), std::string::npos) << t;                         // 4 x 8 elements
  EXPECT_NE(t.find("out[d * 4 + b] != in[s * 4 + b]"), std::string::npos) << t;  // 4-byte elements
  EXPECT_EQ(k->name, kConvertCheckName);
  EXPECT_EQ(k->threads, kConvertCheckThreads);
}

// An offset and a swizzle follow the modes, as CuTe composes Swizzle<B,M,S> o (layout + offset): the element
// is swz(strided + offset). Swizzle<3,3,3> XORs bits [6, 9) into bits [3, 6): mask 7, read 6, write 3.
TEST(ConvertCheck, AddsTheOffsetThenSwizzles) {
  auto k = convert_check_source(layout("S[(8,64):(64,1)] + O[64@m]"),
                                layout("Swizzle<3,3,3> o S[(8,64):(64,1)]"), 4);
  ASSERT_TRUE(k.ok()) << k.error().message;
  const std::string& t = k->text;
  const auto src = t.find("s += (r % 8LL) * 64LL; r /= 8LL;\n    s += 64LL;\n");
  const auto dst = t.find("d += (r % 8LL) * 64LL; r /= 8LL;\n    d ^= ((d >> 6) & 7LL) << 3;\n");
  EXPECT_NE(src, std::string::npos) << t;
  EXPECT_NE(dst, std::string::npos) << t;
  EXPECT_EQ(t.find("s ^="), std::string::npos) << t;  // the source is not swizzled
  EXPECT_EQ(t.find("d += 64LL"), std::string::npos) << t;
}

TEST(ConvertCheck, RefusesWhatAConversionLayoutCannotHold) {
  auto replicated = convert_check_source(layout("S[(4,8):(8,1)] + R[2:32]"), layout("S[(4,8):(1,4)]"), 4);
  ASSERT_FALSE(replicated.ok());
  EXPECT_EQ(replicated.error().field, "src");
  auto lanes = convert_check_source(layout("S[(4,8):(8,1)]"), layout("S[(4,8):(1,4@laneid)]"), 4);
  ASSERT_FALSE(lanes.ok());
  EXPECT_EQ(lanes.error().field, "dst");
  auto offset = convert_check_source(layout("S[(4,8):(8,1)]"), layout("S[(4,8):(1,4)] + O[2@laneid]"), 4);
  ASSERT_FALSE(offset.ok());
  EXPECT_EQ(offset.error().field, "dst");
}

#ifdef LAYOUTSCOPE_NVCC
TEST(ConvertCheck, Compiles) {
  auto k = convert_check_source(layout("S[(64,1024,1024):(1048576,1024,1)]"),
                                layout("S[(64,1024,1024):(1048576,1,1024)]"), 2);
  ASSERT_TRUE(k.ok());
  const std::string dir = ::testing::TempDir();
  const std::string cu = dir + "/convert_check.cu", log = dir + "/convert_check.log";
  std::ofstream(cu) << k->text;
  const std::string cmd = std::string(LAYOUTSCOPE_NVCC) + " -arch=sm_90 -cubin -o " + dir +
                          "/convert_check.cubin " + cu + " > " + log + " 2>&1";
  std::stringstream out;
  const int status = std::system(cmd.c_str());
  out << std::ifstream(log).rdbuf();
  EXPECT_EQ(status, 0) << out.str() << "\n" << k->text;
}
#endif

}  // namespace
}  // namespace layoutscope::codegen
