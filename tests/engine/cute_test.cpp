// CuTe layouts read and written: values worked out by hand from CuTe's definitions (first mode fastest,
// swizzle o offset o layout), checked against the engine's own evaluation of the chapter's notation.
#include "layoutscope/cute.hpp"

#include <gtest/gtest.h>

#include <map>
#include <random>

#include "layoutscope/formats/cute.hpp"
#include "layoutscope/mapping.hpp"
#include "layoutscope/parse.hpp"
#include "test_util.hpp"

namespace layoutscope {
namespace {

using AxisMap = std::map<std::string, int64_t>;

cute::ComposedLayout must_cute(const std::string& text) {
  auto c = cute::parse_cute(text);
  EXPECT_TRUE(c.ok()) << text << ": " << (c.ok() ? "" : c.error().message);
  return c.ok() ? *c : cute::ComposedLayout{};
}

// Every element's positions as axis -> value maps (zero values left out), in element order.
std::vector<std::vector<AxisMap>> all_positions(const Layout& layout, const std::vector<int64_t>& shape) {
  auto t = table(layout, shape);
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
  std::vector<std::vector<AxisMap>> out;
  if (!t.ok()) return out;
  const size_t axes = t->axes.size();
  for (int64_t x = 0; x < t->elements; ++x) {
    std::vector<AxisMap> element;
    for (int64_t r = 0; r < t->replicas; ++r) {
      AxisMap p;
      for (size_t a = 0; a < axes; ++a) {
        const int64_t v = t->values[static_cast<size_t>((x * t->replicas + r)) * axes + a];
        if (v != 0) p[t->axes[a]] = v;
      }
      element.push_back(p);
    }
    out.push_back(element);
  }
  return out;
}

Imported must_import(const std::string& text, std::vector<int64_t> shape = {}) {
  auto r = import_cute(text, FormatContext{std::move(shape), {}});
  EXPECT_TRUE(r.ok()) << text << ": " << (r.ok() ? "" : r.error().message);
  return r.ok() ? *r : Imported{};
}

TEST(Cute, StaticIntegersAndColexicographicOrder) {
  // (_2,_3):(_3,_1): index i is the coordinate (i % 2, i / 2), so the offsets are 3*(i%2) + i/2.
  const auto c = must_cute("(_2,_3):(_3,_1)");
  EXPECT_EQ(cute::to_string(c.layout), "(2,3):(3,1)");
  const int64_t expected[] = {0, 3, 1, 4, 2, 5};
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(cute::evaluate(c.layout, i), expected[i]) << i;
  EXPECT_EQ(*cute::size(c.layout), 6);
  EXPECT_EQ(*cute::cosize(c.layout), 6);
  EXPECT_EQ(cute::to_string(must_cute("8:1").layout), "8:1");
  EXPECT_EQ(cute::to_string(must_cute("(Int<4>, _2):(_2, Int<1>)").layout), "(4,2):(2,1)");
  EXPECT_TRUE(must_cute("8:1").layout.shape.is_leaf());
  EXPECT_EQ(cute::to_string(must_cute("(_4,_2):(_-1,-8)").layout), "(4,2):(-1,-8)");
}

TEST(Cute, IdentityIsColexicographic) {
  // CuTe (2,4):(1,2) is the identity on 8 elements; over a 1-D logical shape it reads S[(4,2):(2,1)].
  const Imported one_d = must_import("(2,4):(1,2)", {8});
  EXPECT_EQ(to_string(one_d.layout), "S[(4,2):(2,1)]");
  for (int64_t x = 0; x < 8; ++x) {
    auto m = forward_index(one_d.layout, {8}, x);
    ASSERT_TRUE(m.ok());
    EXPECT_EQ(m->positions[0].values[0], x);
  }
  // Rank-matched, each logical dimension one mode: the same modes, (i, j) -> i*1 + j*2.
  const Imported two_d = must_import("(2,4):(1,2)", {2, 4});
  EXPECT_EQ(to_string(two_d.layout), "S[(2,4):(1,2)]");
  EXPECT_EQ(testing::positions(to_string(two_d.layout), {2, 4}, {1, 3}), (std::vector<AxisMap>{{{"m", 7}}}));
}

TEST(Cute, NestedModesReverseInsideTheirDimension) {
  const Imported i = must_import("(2,(2,2)):(4,(2,1))", {2, 4});
  EXPECT_EQ(i.layout, testing::must_parse("S[(2,2,2):(4,1,2)]"));
  EXPECT_EQ(i.shape, (std::vector<int64_t>{2, 4}));
  // Coordinate (1, 3): mode 1's index 3 is (1,1) colexicographically -> 4 + 2 + 1 = 7.
  EXPECT_EQ(testing::positions("S[(2,2,2):(4,1,2)]", {2, 4}, {1, 3}), (std::vector<AxisMap>{{{"m", 7}}}));
  // Coordinate (0, 1): mode 1's index 1 is (1,0) -> 2.
  EXPECT_EQ(testing::positions("S[(2,2,2):(4,1,2)]", {2, 4}, {0, 1}), (std::vector<AxisMap>{{{"m", 2}}}));
}

TEST(Cute, WithoutAShapeTheTopLevelShapeIsLogical) {
  const Imported i = must_import("(2,(2,2)):(4,(2,1))");
  EXPECT_EQ(i.shape, (std::vector<int64_t>{2, 4}));
  ASSERT_FALSE(i.notes.empty());
  EXPECT_NE(i.notes[0].find("top-level shape (2,4)"), std::string::npos) << i.notes[0];
  EXPECT_EQ(i.from, Format::kCute);
}

TEST(Cute, SwizzleOffsetLayout) {
  const Imported i = must_import("Sw<3,4,3> o _0 o (_8,_128):(_128,_1)");
  ASSERT_TRUE(i.layout.swizzle.has_value());
  EXPECT_EQ(i.layout.swizzle->bits, 3);
  EXPECT_EQ(i.layout.swizzle->base, 4);
  EXPECT_EQ(i.layout.swizzle->shift, 3);
  EXPECT_EQ(i.shape, (std::vector<int64_t>{8, 128}));
  // (1, 0): offset 128; bits [7,10) hold 1, XORed into bits [4,7): 128 ^ 16 = 144.
  EXPECT_EQ(testing::positions(to_string(i.layout), {8, 128}, {1, 0}), (std::vector<AxisMap>{{{"m", 144}}}));
  // (5, 3): 643 = 0b101_0000011; bits [7,10) = 5 -> 643 ^ (5 << 4) = 643 ^ 80 = 723.
  EXPECT_EQ(testing::positions(to_string(i.layout), {8, 128}, {5, 3}), (std::vector<AxisMap>{{{"m", 723}}}));

  // The DSL prints S<B,M,S>; an offset of 16 moves every element before the swizzle.
  const auto dsl = must_cute("S<1,4,3> o 16 o (8,16):(16,1)");
  ASSERT_TRUE(dsl.swizzle.has_value());
  EXPECT_EQ(dsl.offset, 16);
  EXPECT_EQ(cute::to_dsl_print(dsl), "S<1,4,3> o 16 o (8,16):(16,1)");
  EXPECT_EQ(cute::to_string(dsl), "Sw<1,4,3> o 16 o (8,16):(16,1)");
  // (7, 0): 112 + 16 = 128, bit 7 set -> 128 ^ 16 = 144.
  auto imported = import_cute_dsl("S<1,4,3> o 16 o (8,16):(16,1)", {});
  ASSERT_TRUE(imported.ok());
  EXPECT_EQ(imported->from, Format::kCuteDsl);
  EXPECT_EQ(testing::positions(to_string(imported->layout), {8, 16}, {7, 0}),
            (std::vector<AxisMap>{{{"m", 144}}}));
  // The ring operator spelling.
  EXPECT_EQ(must_cute("Sw<3,4,3> \xE2\x88\x98 _0 \xE2\x88\x98 (_8,_128):(_128,_1)"),
            must_cute("Sw<3,4,3> o 0 o (8,128):(128,1)"));
}

// The C++ a CuTe kernel writes: static layout types and composition with a swizzle.
TEST(Cute, CppSpellings) {
  EXPECT_EQ(must_cute("Layout<Shape<_8,_128>,Stride<_128,_1>>{}"), must_cute("(8,128):(128,1)"));
  EXPECT_EQ(must_cute("cute::Layout<Shape<Int<2>,Shape<_2,_2>>, Stride<Int<4>,Stride<_2,Int<-1>>>>{}"),
            must_cute("(2,(2,2)):(4,(2,-1))"));
  EXPECT_EQ(must_cute("Layout<Int<8>,Int<1>>{}"), must_cute("8:1"));
  EXPECT_EQ(must_cute("Layout<Shape<_8,_16>,Stride<E<1>,ScaledBasis<Int<2>,0>>>{}"),
            must_cute("(8,16):(1@1,2@0)"));
  EXPECT_EQ(must_cute("composition(Swizzle<3,3,3>{}, Layout<Shape<_8,_64>,Stride<_64,_1>>{})"),
            must_cute("Sw<3,3,3> o 0 o (8,64):(64,1)"));
  EXPECT_EQ(
      must_cute(
          "cute::composition(cute::Swizzle<1,4,3>{}, Int<16>{}, Layout<Shape<_8,_16>,Stride<_16,_1>>{})"),
      must_cute("Sw<1,4,3> o 16 o (8,16):(16,1)"));
  // Errors point at the token: a shape leaf cannot be a basis, composition needs a swizzle first.
  auto basis = cute::parse_cute("Layout<Shape<E<0>>,Stride<_1>>{}");
  ASSERT_FALSE(basis.ok());
  EXPECT_EQ(basis.error().column, 14);
  auto two = cute::parse_cute("composition(Layout<_4,_1>{}, Layout<_4,_1>{})");
  ASSERT_FALSE(two.ok());
  EXPECT_EQ(two.error().column, 13);
  auto open = cute::parse_cute("Layout<Shape<_8,_8>,Stride<_8,_1>{}");
  ASSERT_FALSE(open.ok());
  EXPECT_NE(open.error().message.find("'>'"), std::string::npos);
}

TEST(Cute, ScaledBasisStridesAreCoordinateAxes) {
  const Imported i = must_import("(_8,_16):(_1@1,_1@0)");
  EXPECT_EQ(to_string(i.layout), "S[(8,16):(1@c1,1@c0)]");
  EXPECT_EQ(testing::positions(to_string(i.layout), {8, 16}, {3, 5}),
            (std::vector<AxisMap>{{{"c0", 5}, {"c1", 3}}}));
  auto back = export_cute(i.layout, i.shape);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, "Layout<Shape<Int<8>,Int<16>>,Stride<E<1>,E<0>>>{}");
  auto dsl = export_cute_dsl(i.layout, i.shape);
  ASSERT_FALSE(dsl.ok());
  EXPECT_NE(dsl.error().message.find("scaled-basis"), std::string::npos);
}

TEST(Cute, DslConstructors) {
  EXPECT_EQ(must_import("cute.make_layout((4,8), stride=(8,1))").layout,
            testing::must_parse("S[(4,8):(8,1)]"));
  // No stride: compact with the first mode fastest, (4,8):(1,4).
  EXPECT_EQ(cute::to_string(must_cute("cute.make_layout((4,8))").layout), "(4,8):(1,4)");
  // order=(1,0): mode 1 is the stride-1 mode, then mode 0: (8,64):(64,1).
  EXPECT_EQ(cute::to_string(must_cute("cute.make_ordered_layout((8,64), order=(1,0))").layout),
            "(8,64):(64,1)");
  EXPECT_EQ(cute::to_string(must_cute("cute.make_ordered_layout((2,4,8), order=(2,0,1))").layout),
            "(2,4,8):(32,1,4)");
  EXPECT_EQ(must_cute("cute.make_composed_layout(cute.make_swizzle(3,4,3), 0, cute.make_layout((8,128), "
                      "stride=(128,1)))"),
            must_cute("Sw<3,4,3> o _0 o (_8,_128):(_128,_1)"));
  EXPECT_EQ(cute::to_string(must_cute("make_layout((8,), stride=(2,))").layout), "(8):(2)");
  EXPECT_EQ(cute::to_string(must_cute("cute.make_layout(((2,2),4), stride=((1,8),2))").layout),
            "((2,2),4):((1,8),2)");
}

struct ParseError {
  std::string text;
  int column;
  std::string words;
};

TEST(Cute, ParseErrorsPointAtTheToken) {
  const ParseError cases[] = {
      {"(4,8):(8,1", 11, "')'"},
      {"(4,8):(8,x)", 10, "expected an integer"},
      {"(4,8)", 6, "':'"},
      {"(4,8):(8,1,2)", 7, "nesting"},
      {"(0,8):(8,1)", 1, "at least 1"},
      {"Sw<3,4,3> (8):(1)", 11, "'o'"},
      {"(4,8):(8,1) junk", 13, "end of the layout"},
      {"cute.make_layout((4,8), strid=(8,1))", 25, "unknown keyword"},
      {"cute.make_swizzle(3,4,3)", 6, "swizzle alone"},
      {"(4@1,8):(8,1)", 3, "scaled basis"},
      {"(4,8):(8;1)", 9, "unexpected character"},
      {"", 1, "empty"},
      {"()", 3, "':' and the stride"},  // () is CuTe's empty tuple; ():() the empty layout
      {"():(1)", 4, "nesting"},
      {"(99999999999999999999):(1)", 2, "64 bits"},
      {"cute.make_layout((4294967296,4294967296))", 18, "overflows"},
      {"Sw<3,4,3> o 0 o cute.make_composed_layout(cute.make_swizzle(1,2,3), 0, (4):(1))", 17, "swizzle"},
  };
  for (const ParseError& c : cases) {
    auto r = cute::parse_cute(c.text);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(r.error().column, c.column) << c.text << ": " << r.error().message;
    EXPECT_NE(r.error().message.find(c.words), std::string::npos) << c.text << ": " << r.error().message;
  }
}

TEST(Cute, ImportChecksTheLogicalShape) {
  auto wrong_size = import_cute("(4,8):(8,1)", FormatContext{{8, 8}, {}});
  ASSERT_FALSE(wrong_size.ok());
  EXPECT_EQ(wrong_size.error().field, "shape");
  auto wrong_mode = import_cute("(4,8):(8,1)", FormatContext{{8, 4}, {}});
  ASSERT_FALSE(wrong_mode.ok());
  EXPECT_NE(wrong_mode.error().message.find("mode 0"), std::string::npos);
  auto wrong_rank = import_cute("(4,8):(8,1)", FormatContext{{2, 4, 4}, {}});
  ASSERT_FALSE(wrong_rank.ok());
  EXPECT_EQ(wrong_rank.error().field, "shape");
}

TEST(Cute, Export) {
  auto e = export_cute(testing::must_parse("S[(2,2,2):(4,1,2)]"), {2, 4});
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(*e, "Layout<Shape<Int<2>,Shape<Int<2>,Int<2>>>,Stride<Int<4>,Stride<Int<2>,Int<1>>>>{}");
  // One mode split across two logical dimensions: 32:1 on 4x8 is rows of 8.
  e = export_cute(testing::must_parse("S[32:1]"), {4, 8});
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(*e, "Layout<Shape<Int<4>,Int<8>>,Stride<Int<8>,Int<1>>>{}");
  // 1-D: every mode reverses.
  e = export_cute(testing::must_parse("S[(4,2):(2,1)]"), {8});
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(*e, "Layout<Shape<Int<2>,Int<4>>,Stride<Int<1>,Int<2>>>{}");
  e = export_cute(testing::must_parse("Swizzle<3,4,3> o S[(8,128):(128,1)]"), {8, 128});
  ASSERT_TRUE(e.ok());
  // CuTe builds a swizzled layout with composition(Swizzle, [offset,] layout) (cute/swizzle_layout.hpp).
  EXPECT_EQ(*e, "composition(Swizzle<3,4,3>{}, Layout<Shape<Int<8>,Int<128>>,Stride<Int<128>,Int<1>>>{})");
  e = export_cute(testing::must_parse("Swizzle<3,3,3> o S[(8,64):(64,1)] + O[8]"), {8, 64});
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(
      *e, "composition(Swizzle<3,3,3>{}, Int<8>{}, Layout<Shape<Int<8>,Int<64>>,Stride<Int<64>,Int<1>>>{})");
  // A stride k@i with k > 1 is CuTe's ScaledBasis<Int<k>,i>; a 1-D shape is a bare Int<N>.
  e = export_cute(testing::must_parse("S[(4,8):(2@c0,1@c1)]"), {4, 8});
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(*e, "Layout<Shape<Int<4>,Int<8>>,Stride<ScaledBasis<Int<2>,0>,E<1>>>{}");
  e = export_cute(testing::must_parse("S[8:-1]"), {8});
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(*e, "Layout<Int<8>,Int<-1>>{}");
  e = export_cute(testing::must_parse("S[2:4294967296]"), {2});
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().field, "stride");
  auto d = export_cute_dsl(testing::must_parse("S[(4,8):(8,1)]"), {4, 8});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(*d, "cute.make_layout((4,8), stride=(8,1))");
  d = export_cute_dsl(testing::must_parse("Swizzle<3,4,3> o S[(8,128):(128,1)]"), {8, 128});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(
      *d,
      "cute.make_composed_layout(cute.make_swizzle(3,4,3), 0, cute.make_layout((8,128), stride=(128,1)))");
  d = export_cute_dsl(testing::must_parse("S[8:2]"), {8});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(*d, "cute.make_layout(8, stride=2)");
}

TEST(Cute, ExportNamesWhatCuteCannotExpress) {
  struct Case {
    std::string layout;
    std::vector<int64_t> shape;
    std::string field;
    std::string words;
  };
  const Case cases[] = {
      {"S[(8,4):(4@laneid,1@laneid)]", {8, 4}, "laneid", "axis laneid"},
      {"S[4:1] + R[2:4]", {4}, "R", "replication"},
      {"S[4:1] + P[2:1@gpuid_x]", {4}, "P", "partial sums"},
      {"ComposeLayout(4, 3, 3, S[(8,128):(128,1)], swizzle_inner=False)",
       {8, 128},
       "swizzle",
       "swizzle_inner"},
      {"S[8:1] + O[4]", {8}, "O", "offset"},
      {"S[(8,4):(4,1)] + O[2@x]", {8, 4}, "x", "axis x"},
      {"S[(3,4):(4,1)]", {2, 6}, "shape", "straddles"},
      {"S[(3,4):(4,1)]", {4, 4}, "shape", "elements"},
  };
  for (const Case& c : cases) {
    auto e = export_cute(testing::must_parse(c.layout), c.shape);
    ASSERT_FALSE(e.ok()) << c.layout;
    EXPECT_EQ(e.error().field, c.field) << c.layout << ": " << e.error().message;
    EXPECT_NE(e.error().message.find(c.words), std::string::npos) << c.layout << ": " << e.error().message;
  }
}

// Random chapter layouts on @m (and on c0/c1), split into logical dimensions at mode boundaries, sometimes
// swizzled: export then import gives the same positions for every element.
TEST(Cute, RoundTripOverRandomLayouts) {
  std::mt19937 rng(14);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int checked = 0;
  for (int iter = 0; iter < 400; ++iter) {
    Layout l;
    const bool basis = pick(0, 4) == 0;
    const int modes = pick(1, 4);
    for (int i = 0; i < modes; ++i) {
      std::string axis = basis && pick(0, 1) ? (pick(0, 1) ? "c0" : "c1") : "m";
      l.shard.push_back(Mode{pick(1, 5), AxisStride{pick(-3, 20), axis}});
    }
    if (!basis && pick(0, 3) == 0) {
      l.swizzle = Swizzle{pick(1, 3), pick(0, 3), pick(1, 4), true, SwizzleSpelling::kCute};
      if (pick(0, 1)) l.offset.push_back(AxisStride{pick(1, 64), "m"});
    }
    // Logical dimensions: consecutive groups of modes (extent-1 modes dropped first, as the exporter does).
    std::vector<int64_t> shape;
    int64_t group = 1;
    for (const Mode& m : l.shard) {
      if (m.extent == 1) continue;
      group *= m.extent;
      if (pick(0, 1)) {
        shape.push_back(group);
        group = 1;
      }
    }
    if (group > 1 || shape.empty()) shape.push_back(group);
    auto text = export_cute(l, shape);
    ASSERT_TRUE(text.ok()) << to_string(l) << ": " << text.error().message;
    auto back = import_cute(*text, FormatContext{shape, {}});
    ASSERT_TRUE(back.ok()) << *text << ": " << back.error().message;
    EXPECT_EQ(all_positions(back->layout, shape), all_positions(l, shape)) << to_string(l) << " -> " << *text;
    if (!basis) {
      auto code = export_cute_dsl(l, shape);
      ASSERT_TRUE(code.ok()) << to_string(l) << ": " << code.error().message;
      auto again = import_cute_dsl(*code, FormatContext{shape, {}});
      ASSERT_TRUE(again.ok()) << *code << ": " << again.error().message;
      EXPECT_EQ(all_positions(again->layout, shape), all_positions(l, shape)) << *code;
    }
    ++checked;
  }
  EXPECT_EQ(checked, 400);
}

// Random nested CuTe layouts: CuTe's own evaluation (colexicographic per mode) agrees with the chapter
// layout import builds, element by element over the top-level shape.
TEST(Cute, ImportAgreesWithCuteEvaluation) {
  std::mt19937 rng(41);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int iter = 0; iter < 200; ++iter) {
    std::vector<cute::IntTuple> shape_modes, stride_modes;
    const int rank = pick(1, 3);
    for (int d = 0; d < rank; ++d) {
      if (pick(0, 1)) {
        shape_modes.push_back(cute::IntTuple::leaf(pick(1, 4)));
        stride_modes.push_back(cute::IntTuple::leaf(pick(0, 30)));
      } else {
        std::vector<cute::IntTuple> s, t;
        for (int k = pick(2, 3); k > 0; --k) {
          s.push_back(cute::IntTuple::leaf(pick(1, 4)));
          t.push_back(cute::IntTuple::leaf(pick(0, 30)));
        }
        shape_modes.push_back(cute::IntTuple::of(s));
        stride_modes.push_back(cute::IntTuple::of(t));
      }
    }
    const cute::Layout c{cute::IntTuple::of(shape_modes), cute::IntTuple::of(stride_modes)};
    auto imported = import_cute(cute::to_string(c), {});
    ASSERT_TRUE(imported.ok()) << cute::to_string(c) << ": " << imported.error().message;
    const auto positions = all_positions(imported->layout, imported->shape);
    // Logical coordinates row-major over the top-level shape; CuTe adds each mode's own 1-D evaluation.
    const std::vector<int64_t>& shape = imported->shape;
    for (size_t x = 0; x < positions.size(); ++x) {
      int64_t rest = static_cast<int64_t>(x);
      int64_t expected = 0;
      for (size_t d = shape.size(); d-- > 0;) {
        expected += cute::evaluate(c.mode(d), rest % shape[d]);
        rest /= shape[d];
      }
      const int64_t got = positions[x][0].count("m") ? positions[x][0].at("m") : 0;
      EXPECT_EQ(got, expected) << cute::to_string(c) << " element " << x;
    }
  }
}

// Mutated texts never crash the reader; a refusal points inside the text (or just past its end), and
// what it accepts prints to a text that reads back to the same layout.
TEST(Cute, MutatedTextsFailCleanlyOrRoundTrip) {
  const std::string seeds[] = {
      "(_2,_3):(_3,_1)",
      "(2,(2,2)):(4,(2,1))",
      "Sw<3,4,3> o _0 o (_8,_128):(_128,_1)",
      "S<1,4,3> o 0 o (8,16):(16,1)",
      "(_8,_16):(_1@1,_1@0)",
      "cute.make_layout((4,8), stride=(8,1))",
      "cute.make_ordered_layout((8,64), order=(1,0))",
      "cute.make_composed_layout(cute.make_swizzle(3,4,3), 0, cute.make_layout((8,128), stride=(128,1)))",
  };
  const std::string alphabet = "()[],:@<>=._-0123456789oSw ";
  std::mt19937 rng(7);
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  int accepted = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::string text = seeds[pick(std::size(seeds))];
    for (int edits = 1 + static_cast<int>(pick(3)); edits > 0; --edits) {
      const size_t at = pick(text.size() + 1);
      switch (pick(3)) {
        case 0:
          if (at < text.size()) text.erase(at, 1);
          break;
        case 1:
          text.insert(at, 1, alphabet[pick(alphabet.size())]);
          break;
        default:
          if (at < text.size()) text[at] = alphabet[pick(alphabet.size())];
      }
    }
    auto r = cute::parse_cute(text);
    if (!r.ok()) {
      EXPECT_GE(r.error().column, 1) << text;
      EXPECT_LE(r.error().column, static_cast<int>(text.size()) + 1) << text << ": " << r.error().message;
      continue;
    }
    ++accepted;
    auto again = cute::parse_cute(cute::to_string(*r));
    ASSERT_TRUE(again.ok()) << text << " -> " << cute::to_string(*r) << ": " << again.error().message;
    EXPECT_EQ(*again, *r) << text;
    auto dsl = cute::parse_cute(cute::to_dsl_print(*r));
    ASSERT_TRUE(dsl.ok()) << cute::to_dsl_print(*r);
    EXPECT_EQ(*dsl, *r) << text;
  }
  EXPECT_GT(accepted, 1000);
}

}  // namespace
}  // namespace layoutscope
