// Where an element lives when it lives in several places: one position per replica, in replica order, the
// same in forward_index, table and inverse; P[...] partial-sum holders; a bounded derivation. Expected
// values are worked out by hand from the definition in layout.hpp.
#include <gtest/gtest.h>

#include <string>

#include "layoutscope/canonical.hpp"
#include "layoutscope/mapping.hpp"
#include "layoutscope/parse.hpp"
#include "layoutscope/validate.hpp"

namespace layoutscope {
namespace {

std::vector<std::vector<int64_t>> values(const Mapping& m) {
  std::vector<std::vector<int64_t>> out;
  for (const Position& p : m.positions) out.push_back(p.values);
  return out;
}

TEST(Replicas, OnePositionPerReplicaAlsoOnTheSameSpot) {
  // R[2:0]: both replicas of element 0 sit at m = 0; each keeps its position.
  const Layout l = *parse_layout("S[2:1] + R[2:0]");
  auto m = forward_index(l, {2}, 0);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(values(*m), (std::vector<std::vector<int64_t>>{{0}, {0}}));
  auto t = table(l, {2});
  EXPECT_EQ(t->values, (std::vector<int64_t>{0, 0, 1, 1}));
  auto hits = inverse(l, {2}, {{"m", 0}});
  ASSERT_EQ(hits->size(), 2u);
  EXPECT_EQ((*hits)[0].replica, 0);
  EXPECT_EQ((*hits)[1].replica, 1);
}

TEST(Replicas, PositionsComeInReplicaOrderNotSorted) {
  // R[2:5] + R[2:-3]: replica (d0, d1) adds 5 d0 - 3 d1: r = 0..3 -> 0, -3, 5, 2.
  auto m = forward_index(*parse_layout("S[2:1] + R[2:5] + R[2:-3]"), {2}, 1);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(values(*m), (std::vector<std::vector<int64_t>>{{1}, {-2}, {6}, {3}}));
  ASSERT_EQ(m->replica_steps.size(), 4u);
  EXPECT_EQ(m->replica_steps[2].digits, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(m->replica_steps[2].replica, 2);
  EXPECT_EQ(m->replica_steps[2].partial, -1);
}

TEST(PartialSums, HoldersAreNumberedReplicaMajor) {
  // S[4:1] + R[2:1@y] + P[2:1@z]: element 1 at m = 1 on every holder; h = r * 2 + p adds r on y, p on z.
  const Layout l = *parse_layout("S[4:1] + R[2:1@y] + P[2:1@z]");
  ASSERT_EQ(l.partials.size(), 1u);
  EXPECT_EQ(l.partials[0], (std::vector<Mode>{Mode{2, AxisStride{1, "z"}}}));
  EXPECT_EQ(layout_axes(l), (std::vector<std::string>{"m", "y", "z"}));
  auto m = forward_index(l, {4}, 1);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->replicas, 2);
  EXPECT_EQ(m->partials, 2);
  EXPECT_EQ(values(*m), (std::vector<std::vector<int64_t>>{{1, 0, 0}, {1, 0, 1}, {1, 1, 0}, {1, 1, 1}}));
  EXPECT_EQ(m->replica_steps[1].replica, 0);
  EXPECT_EQ(m->replica_steps[1].partial, 1);
  EXPECT_EQ(m->replica_steps[2].replica, 1);
  EXPECT_EQ(m->replica_steps[2].partial, 0);
  EXPECT_NE(m->derivation.find("partial-sum holders: r=0 p=0"), std::string::npos) << m->derivation;

  auto t = table(l, {4});
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->replicas, 2);
  EXPECT_EQ(t->partials, 2);
  EXPECT_EQ(t->holders(), 4);
  // element 3, holder 3 (r = 1, p = 1): (3, 1, 1)
  const size_t row = (3 * 4 + 3) * 3;
  EXPECT_EQ(std::vector<int64_t>(t->values.begin() + row, t->values.begin() + row + 3),
            (std::vector<int64_t>{3, 1, 1}));

  // Holder z = 1 of every element: 4 elements x 2 replicas, all partial 1.
  auto hits = inverse(l, {4}, {{"z", 1}});
  ASSERT_EQ(hits->size(), 8u);
  for (const InverseHit& h : *hits) EXPECT_EQ(h.partial, 1);
  EXPECT_EQ((*hits)[1].index, 0);
  EXPECT_EQ((*hits)[1].replica, 1);
}

TEST(PartialSums, PrintCanonicalizeAndCheck) {
  const std::string text = "S[(2,4):(1@gpuid_x,1)] + P[2:1@gpuid_y]";
  const Layout l = *parse_layout(text);
  EXPECT_EQ(to_string(l), "S[(2,4):(1@gpuid_x,1)] + P[2:1@gpuid_y]");
  EXPECT_EQ(*parse_layout(to_string(l)), l);
  EXPECT_EQ(canonicalize(*parse_layout("S[8:1] + P[(2,2):(2@z,1@z)]")).partials,
            (std::vector<std::vector<Mode>>{{Mode{4, AxisStride{1, "z"}}}}));
  auto f = validate(l, {2, 4});
  ASSERT_TRUE(f.ok());
  bool noted = false;
  for (const Finding& x : *f) {
    EXPECT_NE(x.severity, Severity::kError) << x.message;
    if (x.code == "partial-sum") {
      noted = true;
      EXPECT_EQ(x.severity, Severity::kInfo);
      EXPECT_EQ(x.where, "P 0");
      EXPECT_NE(x.message.find("held as 2 partial values along @gpuid_y"), std::string::npos) << x.message;
    }
  }
  EXPECT_TRUE(noted);
  // "P" alone is still an axis (Trainium's partition): an offset, not a term.
  const Layout axis = *parse_layout("S[8:1@P] + P");
  EXPECT_TRUE(axis.partials.empty());
  EXPECT_EQ(axis.offset, (std::vector<AxisStride>{AxisStride{1, "P"}}));
  auto bad = parse_layout("S[8:1] + P[0:1@z]");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().column, 12);
  EXPECT_EQ(bad.error().code, "range");
}

TEST(Derivation, ListsAFewReplicasAndCountsTheRest) {
  // 51,713 replicas of one element: positions has them all, the text spells out kDerivationReplicas.
  auto m = forward_index(*parse_layout("S[2:1] + R[51713:1@x]"), {2}, 1);
  ASSERT_TRUE(m.ok());
  ASSERT_EQ(m->positions.size(), 51713u);
  EXPECT_EQ(m->positions.back().values, (std::vector<int64_t>{1, 51712}));
  EXPECT_LT(m->derivation.size(), 2000u);
  EXPECT_NE(m->derivation.find("r=7 (7)"), std::string::npos);
  EXPECT_EQ(m->derivation.find("r=8 (8)"), std::string::npos);
  EXPECT_NE(m->derivation.find("and 51705 more replicas"), std::string::npos) << m->derivation;
  // The swizzle part is bounded the same way.
  auto s = forward_index(*parse_layout("Swizzle<1,0,1> o S[2:1] + R[100:2]"), {2}, 0);
  ASSERT_TRUE(s.ok());
  EXPECT_NE(s->derivation.find("and 92 more replicas"), s->derivation.rfind("and 92 more replicas"));
}

TEST(ErrorCodes, SayWhatKindOfFailure) {
  EXPECT_EQ(parse_layout("S[(8,4):(4,1]").error().code, "syntax");
  EXPECT_EQ(parse_layout("S[0:1]").error().code, "range");
  EXPECT_EQ(parse_layout("S[99999999999999999999:1]").error().code, "overflow");
  EXPECT_EQ(parse_layout("S[8:1] % 2").error().code, "syntax");
  EXPECT_EQ(parse_shape("8,0").error().code, "range");
  EXPECT_EQ(forward_index(*parse_layout("S[8:1]"), {4}, 0).error().code, "size-mismatch");
  EXPECT_EQ(forward_index(*parse_layout("S[8:1]"), {8}, 8).error().code, "range");
  EXPECT_EQ(table(*parse_layout("S[(4096,4096):(4096,1)]"), {4096, 4096}, 1000).error().code, "limit");
  EXPECT_EQ(forward_index(*parse_layout("S[(4,4):(4611686018427387904,1)]"), {16}, 0).error().code,
            "overflow");
}

TEST(DrawingShape, RowsOfTheLastMode) {
  // the layout's own split: 8 rows of 64 (a 64-element row-major tile), swizzle or not
  EXPECT_EQ(*drawing_shape(*parse_layout("S[(8,64):(64,1)]")), (std::vector<int64_t>{8, 64}));
  EXPECT_EQ(*drawing_shape(*parse_layout("Swizzle<3,3,3> o S[(8,64):(64,1)]")),
            (std::vector<int64_t>{8, 64}));
  // three modes: 2 x 4 = 8 rows of the last mode's 8
  EXPECT_EQ(*drawing_shape(*parse_layout("S[(2,4,8):(32,8,1)]")), (std::vector<int64_t>{8, 8}));
  // one mode is one row of its size, as default_shape
  EXPECT_EQ(*drawing_shape(*parse_layout("S[32:1]")), (std::vector<int64_t>{32}));
}

}  // namespace
}  // namespace layoutscope
