// Grammar coverage (chapter, TIRx and CuTe spellings) and error messages that point at the column.
#include "layoutscope/parse.hpp"

#include <gtest/gtest.h>

#include "test_util.hpp"

namespace layoutscope {
namespace {

using testing::must_parse;

Mode mode(int64_t e, int64_t k, const char* axis = "m") { return Mode{e, AxisStride{k, axis}}; }

TEST(Parse, ChapterForms) {
  EXPECT_EQ(must_parse("S[(4, 4) : (4, 1)]").shard, (std::vector<Mode>{mode(4, 4), mode(4, 1)}));
  EXPECT_EQ(must_parse("S[8:4@laneid]").shard, (std::vector<Mode>{mode(8, 4, "laneid")}));
  EXPECT_EQ(must_parse("S[(8,16):(16@m,1@m)]").shard, (std::vector<Mode>{mode(8, 16), mode(16, 1)}));
}

TEST(Parse, ExtentsOnlyAreRowMajor) {
  EXPECT_EQ(must_parse("S[(8,4)]").shard, (std::vector<Mode>{mode(8, 4), mode(4, 1)}));
  EXPECT_EQ(must_parse("S[8, 4, 2]").shard, (std::vector<Mode>{mode(8, 8), mode(4, 2), mode(2, 1)}));
  EXPECT_EQ(must_parse("S[(16,)]").shard, (std::vector<Mode>{mode(16, 1)}));
}

TEST(Parse, BareAxisMeansUnitStrideAndNegativeOrZeroStrides) {
  EXPECT_EQ(must_parse("S[8:laneid]").shard, (std::vector<Mode>{mode(8, 1, "laneid")}));
  EXPECT_EQ(must_parse("S[(4,2):(-1,0@reg)] + O[3]").shard,
            (std::vector<Mode>{mode(4, -1), mode(2, 0, "reg")}));
}

TEST(Parse, ReplicasOffsetsAndBareTermsMergePerAxis) {
  const Layout l = must_parse(
      "S[8:1] + R[2:1@gpuid_x] + R[(2,2):(4@TLane,1@x)] + O[1@gpuid_x] + 5@warpid + 2@gpuid_x + 3");
  ASSERT_EQ(l.replicas.size(), 2u);
  EXPECT_EQ(l.replicas[1], (std::vector<Mode>{mode(2, 4, "TLane"), mode(2, 1, "x")}));
  EXPECT_EQ(l.offset, (std::vector<AxisStride>{{3, "gpuid_x"}, {5, "warpid"}, {3, "m"}}));
}

TEST(Parse, TirxComposeLayoutSpellings) {
  Swizzle want{3, 3, 3, true, SwizzleSpelling::kTirx};
  // ComposeLayout(per_element, swizzle_len, atom_len, layout): per_element is M, swizzle_len is B.
  const Layout a = must_parse("ComposeLayout(3, 3, 3, TileLayout(S[(8,64):(64,1)]))");
  const Layout b = must_parse(
      "ComposeLayout(per_element=3, swizzle_len=3, atom_len=3, tile_layout=TileLayout(S[(8,64):(64,1)]), "
      "swizzle_inner=True)");
  const Layout c = must_parse(
      "Tx.ComposeLayout(Tx.SwizzleLayout(3, 3, 3, swizzle_inner=True), Tx.TileLayout(Tx.S[(8, 64) : (64, "
      "1)]))");
  const Layout d = must_parse("ComposeLayout(3, 3, 3, S[(8,64):(64,1)])");
  for (const Layout* l : {&a, &b, &c, &d}) {
    ASSERT_TRUE(l->swizzle.has_value());
    EXPECT_EQ(*l->swizzle, want);
    EXPECT_EQ(l->shard, (std::vector<Mode>{mode(8, 64), mode(64, 1)}));
  }
  const Layout e = must_parse("ComposeLayout(2, 1, 3, S[64:1], swizzle_inner=False)");
  EXPECT_EQ(e.swizzle->base, 2);
  EXPECT_EQ(e.swizzle->bits, 1);
  EXPECT_EQ(e.swizzle->shift, 3);
  EXPECT_FALSE(e.swizzle->inner);
}

TEST(Parse, CuteSwizzleSpelling) {
  for (const char* text :
       {"Swizzle<3,4,3> o S[(8,128):(128,1)]", "cute::Swizzle<3,4,3> ∘ S[(8,128):(128,1)]"}) {
    const Layout l = must_parse(text);
    ASSERT_TRUE(l.swizzle.has_value()) << text;
    EXPECT_EQ(l.swizzle->bits, 3);
    EXPECT_EQ(l.swizzle->base, 4);
    EXPECT_EQ(l.swizzle->shift, 3);
  }
}

TEST(Parse, ToStringRoundTripsTheExamples) {
  for (const char* text :
       {"S[(4,2,2,4):(16,4,8,1)]", "S[(8,4,2):(4@laneid,1@laneid,1@reg)]",
        "S[(4,32,4):(1@TCol,1@TLane,1@byte)] + R[4:32@TLane]", "S[(2,4,8):(1@gpuid_y,8,1)] + O[1@gpuid_x]",
        "Swizzle<3,4,3> o S[(8,128):(128,1)]", "ComposeLayout(1, 1, 2, S[16:1], swizzle_inner=False)"}) {
    const Layout l = must_parse(text);
    EXPECT_EQ(to_string(l), text);
    EXPECT_EQ(must_parse(to_string(l)), l);
  }
}

struct BadInput {
  const char* text;
  int column;
  const char* says;
};

void PrintTo(const BadInput& bad, std::ostream* os) { *os << '"' << bad.text << '"'; }

class ParseErrors : public ::testing::TestWithParam<BadInput> {};

TEST_P(ParseErrors, PointAtTheColumn) {
  const BadInput& bad = GetParam();
  auto l = parse_layout(bad.text);
  ASSERT_FALSE(l.ok()) << bad.text;
  EXPECT_EQ(l.error().column, bad.column) << bad.text << ": " << l.error().message;
  EXPECT_NE(l.error().message.find(bad.says), std::string::npos) << l.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    Grammar, ParseErrors,
    ::testing::Values(BadInput{"S[(8,4):(4,1]", 13, "expected ')'"},  // the ']' at column 13
                      BadInput{"S[(8,4):(4,1,2)]", 9, "2 extents but 3 strides"},
                      BadInput{"S[(8,0):(4,1)]", 6, "at least 1"}, BadInput{"S[8:4@]", 7, "axis name"},
                      BadInput{"S[8:4] + Q[2:1]", 10, "expected S[...]"},
                      BadInput{"S[8:4] $", 8, "unexpected character '$'"}, BadInput{"", 1, "empty layout"},
                      BadInput{"R[2:1@x]", 1, "needs an S[...]"},
                      BadInput{"S[8:1] + S[8:1]", 10, "one S[...]"},
                      BadInput{"S[99999999999999999999:1]", 3, "does not fit in 64 bits"},
                      BadInput{"Swizzle<3,4,3> S[8:1]", 16, "'o' or '∘'"},
                      BadInput{"ComposeLayout(3, 3, 3, S[8:1], colour=1)", 32, "unknown argument 'colour'"},
                      BadInput{"Swizzle<3,4,3> ∘ S[8:1] ]", 25, "end of the layout"}));

TEST(ParseShape, Forms) {
  EXPECT_EQ(*parse_shape("8,8"), (std::vector<int64_t>{8, 8}));
  EXPECT_EQ(*parse_shape("(128, 4)"), (std::vector<int64_t>{128, 4}));
  EXPECT_EQ(*parse_shape("2x4x8"), (std::vector<int64_t>{2, 4, 8}));
  auto bad = parse_shape("8,a");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().column, 3);
  EXPECT_EQ(bad.error().field, "shape");
  EXPECT_FALSE(parse_shape("8,0").ok());
  EXPECT_FALSE(parse_shape("8,").ok());
}

}  // namespace
}  // namespace layoutscope
