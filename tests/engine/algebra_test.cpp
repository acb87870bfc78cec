// CuTe's layout algebra: the worked examples of CuTe's documentation (02_layout_algebra.md), values worked
// out by hand from its definitions, and the defining properties over random small layouts, checked with a
// reference evaluation written here (colexicographic, the last mode unbounded).
#include "layoutscope/algebra.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "layoutscope/mapping.hpp"
#include "layoutscope/parse.hpp"

namespace layoutscope::cute {
namespace {

Layout L(const std::string& text) {
  auto c = parse_cute(text);
  EXPECT_TRUE(c.ok()) << text << ": " << (c.ok() ? "" : c.error().message);
  return c.ok() ? c->layout : Layout{};
}

Tiler T(const std::vector<std::string>& modes) {
  std::vector<Tiler> t;
  for (const auto& m : modes) t.push_back(Tiler::of(L(m)));
  return Tiler::of(std::move(t));
}

std::string S(const Result<Layout>& r) { return r.ok() ? to_string(*r) : "error: " + r.error().message; }

// Reference: CuTe's layout(i) from the definition, written independently of the engine.
std::vector<std::pair<int64_t, int64_t>> leaves(const IntTuple& s, const IntTuple& d) {
  if (s.is_leaf()) return {{s.value, d.value}};
  std::vector<std::pair<int64_t, int64_t>> out;
  for (size_t i = 0; i < s.modes.size(); ++i) {
    auto sub = leaves(s.modes[i], d.modes[i]);
    out.insert(out.end(), sub.begin(), sub.end());
  }
  return out;
}
int64_t at(const Layout& l, int64_t i) {
  const auto lv = leaves(l.shape, l.stride);
  int64_t out = 0;
  for (size_t k = 0; k < lv.size(); ++k) {
    const int64_t digit = k + 1 == lv.size() ? i : i % lv[k].first;
    out += digit * lv[k].second;
    i /= lv[k].first;
  }
  return out;
}
int64_t count(const Layout& l) {
  int64_t n = 1;
  for (auto [e, k] : leaves(l.shape, l.stride)) n *= e;
  return n;
}
bool same_function(const Layout& a, const Layout& b) {
  if (count(a) != count(b)) return false;
  for (int64_t i = 0; i < count(a); ++i) {
    if (at(a, i) != at(b, i)) return false;
  }
  return true;
}

TEST(Algebra, CoalesceDocumentedExample) {
  EXPECT_EQ(S(coalesce(L("(_2,(_1,_6)):(_1,(_6,_2))"))), "12:1");
  EXPECT_EQ(S(coalesce(L("(2,4):(4,1)"))), "(2,4):(4,1)");
  EXPECT_EQ(S(coalesce(L("(1,1):(3,5)"))), "1:0");
}

TEST(Algebra, CompositionDocumentedExamples) {
  EXPECT_EQ(S(composition(L("(20):(2)"), L("(5,4):(4,1)"))), "(5,4):(8,2)");
  EXPECT_EQ(S(composition(L("(6,2):(8,2)"), L("(4,3):(3,1)"))), "((2,2),3):((24,2),8)");
  // The static result the document prints, (_5,(_2,_2)):(_16,(_80,_4)).
  EXPECT_EQ(S(composition(L("(10,2):(16,4)"), L("(5,4):(1,5)"))), "(5,(2,2)):(16,(80,4))");
  // (3,6,2,8):(w,x,y,z) o 16:9 = (1,2,2,4):(9w,3x,y,z); with w,x,y,z = 1,100,1000,10000 the extent-1
  // mode drops out.
  EXPECT_EQ(S(composition(L("(3,6,2,8):(1,100,1000,10000)"), L("16:9"))), "(2,2,4):(300,1000,10000)");
  // By-mode with a tiler <3:4, 8:2> and with the shape (3,8).
  EXPECT_EQ(S(composition(L("(12,(4,8)):(59,(13,1))"), T({"3:4", "8:2"}))), "(3,(2,4)):(236,(26,1))");
  EXPECT_EQ(S(composition(L("(12,(4,8)):(59,(13,1))"), Tiler::of_shape(*parse_int_tuple("(3,8)")))),
            "(3,(4,2)):(59,(13,1))");
}

TEST(Algebra, CompositionRefusesWhatDivisibilityForbids) {
  // CuTe's weak conditions (composition_impl): the stride 6 is neither a multiple of the extent 4 of A's
  // first mode nor smaller than it.
  auto r = composition(L("(4,8):(1,5)"), L("2:6"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("stride divisibility"), std::string::npos);
  // Every 2nd element of (2,3,4): the first 3 come from mode 1, the 4th would need mode 2.
  r = composition(L("(2,3,4):(1,20,100)"), L("4:2"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("shape divisibility"), std::string::npos);
  // A stride smaller than the extent passes without dividing it, as in CuTe: 2:3 over 8:8 is 2:24.
  EXPECT_EQ(S(composition(L("(8,8):(8,1)"), L("2:3"))), "2:24");
}

TEST(Algebra, ComplementDocumentedExamples) {
  EXPECT_EQ(S(complement(L("4:1"), 24)), "6:4");
  EXPECT_EQ(S(complement(L("6:4"), 24)), "4:1");
  EXPECT_EQ(S(complement(L("(4,6):(1,4)"), 24)), "1:0");
  EXPECT_EQ(S(complement(L("4:2"), 24)), "(2,3):(1,8)");
  EXPECT_EQ(S(complement(L("(2,4):(1,6)"), 24)), "3:2");
  EXPECT_EQ(S(complement(L("(2,2):(1,6)"), 24)), "(3,2):(2,12)");
  // Without a cotarget: up to cosize, (2,2):(1,6) has cosize 8 -> the hole 3:2 (6/2) once.
  EXPECT_EQ(S(complement(L("(2,2):(1,6)"))), "3:2");
  EXPECT_FALSE(complement(L("(2,2):(1,1)"), 8).ok());  // not injective
}

TEST(Algebra, DivideDocumentedExamples) {
  // 1-D: complement of 4:2 under 24 is (2,3):(1,8); A o (4,(2,3)):(2,(1,8)).
  EXPECT_EQ(S(logical_divide(L("(4,2,3):(2,1,8)"), Tiler::of(L("4:2")))), "((2,2),(2,3)):((4,1),(2,8))");
  // 2-D: A = (9,(4,8)):(59,(13,1)), B = <3:3, (2,4):(1,8)>. Worked by hand: mode 0 is 9:59 o (3,3):(3,1),
  // mode 1 is (4,8):(13,1) o ((2,4),4):((1,8),2) with complement((2,4):(1,8), 32) = 4:2.
  const Layout a = L("(9,(4,8)):(59,(13,1))");
  const Tiler b = T({"3:3", "(2,4):(1,8)"});
  EXPECT_EQ(S(logical_divide(a, b)), "((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))");
  auto zd = zipped_divide(a, b);
  ASSERT_TRUE(zd.ok());
  EXPECT_EQ(to_string(*zd), "((3,(2,4)),(3,(2,2))):((177,(13,2)),(59,(26,1)))");
  // The document: shape ((3,8),(3,4)), and layout<0>(zipped_divide(a, b)) == composition(a, b), whose
  // first mode is (3,(2,4)):(177,(13,2)).
  EXPECT_EQ(*size(zd->mode(0)), 24);
  EXPECT_EQ(*size(zd->mode(1)), 12);
  EXPECT_EQ(*size(zd->mode(0).mode(0)), 3);
  EXPECT_EQ(*size(zd->mode(1).mode(1)), 4);
  EXPECT_EQ(to_string(zd->mode(0)), S(composition(a, b)));
  EXPECT_EQ(S(tiled_divide(a, b)), "((3,(2,4)),3,(2,2)):((177,(13,2)),59,(26,1))");
  // A layout tiler: logical and zipped divide agree.
  EXPECT_EQ(S(zipped_divide(L("(4,2,3):(2,1,8)"), Tiler::of(L("4:2")))), "((2,2),(2,3)):((4,1),(2,8))");
  EXPECT_EQ(S(tiled_divide(L("(4,2,3):(2,1,8)"), Tiler::of(L("4:2")))), "((2,2),2,3):((4,1),2,8)");
}

TEST(Algebra, ProductDocumentedExamples) {
  EXPECT_EQ(S(logical_product(L("(2,2):(4,1)"), Tiler::of(L("6:1")))), "((2,2),(2,3)):((4,1),(2,8))");
  // B = (4,2):(2,1), cosize 8: complement((2,2):(4,1), 32) = (2,4):(2,8); composed with B gives (4,2):(8,2).
  EXPECT_EQ(S(logical_product(L("(2,2):(4,1)"), Tiler::of(L("(4,2):(2,1)")))), "((2,2),(4,2)):((4,1),(8,2))");
  // A 2x5 row-major block over a 3x4 column-major arrangement.
  const Layout block = L("(2,5):(5,1)");
  const Layout tiler = L("(3,4):(1,3)");
  auto blocked = blocked_product(block, tiler);
  ASSERT_TRUE(blocked.ok());
  EXPECT_EQ(to_string(*blocked), "((2,3),(5,4)):((5,10),(1,30))");
  auto raked = raked_product(block, tiler);
  ASSERT_TRUE(raked.ok());
  EXPECT_EQ(to_string(*raked), "((3,2),(4,5)):((10,5),(30,1))");
  // As 6x20 functions: blocked puts block (i/2, j/5) at 10 * tiler(i/2, j/5); raked interleaves.
  for (int64_t i = 0; i < 6; ++i) {
    for (int64_t j = 0; j < 20; ++j) {
      const int64_t in_block_b = 5 * (i % 2) + (j % 5);
      const int64_t tile_b = (i / 2) + 3 * (j / 5);
      EXPECT_EQ(at(blocked->mode(0), i) + at(blocked->mode(1), j), in_block_b + 10 * tile_b);
      const int64_t in_block_r = 5 * (i / 3) + (j / 4);
      const int64_t tile_r = (i % 3) + 3 * (j % 4);
      EXPECT_EQ(at(raked->mode(0), i) + at(raked->mode(1), j), in_block_r + 10 * tile_r);
    }
  }
}

TEST(Algebra, Inverses) {
  // (4,2):(2,1) sends 0..7 to 0 2 4 6 1 3 5 7; its inverse sends offset 1 to index 4: (2,4):(4,1).
  EXPECT_EQ(S(right_inverse(L("(4,2):(2,1)"))), "(2,4):(4,1)");
  EXPECT_EQ(S(right_inverse(L("(2,4):(4,1)"))), "(4,2):(2,1)");
  EXPECT_EQ(S(right_inverse(L("4:2"))), "1:0");  // offset 1 is never reached
  EXPECT_EQ(S(left_inverse(L("(2,4):(4,1)"))), "(4,2):(2,1)");
  // 4:2 reaches 0 2 4 6; the left inverse halves them: (2,4):(0,1).
  EXPECT_EQ(S(left_inverse(L("4:2"))), "(2,4):(0,1)");
}

TEST(Algebra, MaxCommonVector) {
  EXPECT_EQ(*max_common_vector(L("(8,4):(1,8)"), L("(8,4):(1,8)")), 32);
  EXPECT_EQ(*max_common_vector(L("(8,4):(1,8)"), L("(8,4):(4,1)")), 1);
  // b's offsets 0..3 are its indices 0..3 (a's offsets 0..3); b's offset 4 is index 8, a's offset 8.
  EXPECT_EQ(*max_common_vector(L("(8,4):(1,8)"), L("(4,2,4):(1,16,4)")), 4);
  EXPECT_EQ(S(max_common_layout(L("(8,4):(1,8)"), L("(4,2,4):(1,16,4)"))), "4:1");
}

TEST(Algebra, TextEntryPoint) {
  auto r = algebra("composition", {"(20):(2)", "(5,4):(4,1)"}, AlgebraSyntax::kCute);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->result, "(5,4):(8,2)");
  EXPECT_EQ(r->axe, "S[(5,4):(8,2)]");
  EXPECT_EQ(r->shape, (std::vector<int64_t>{5, 4}));
  EXPECT_EQ(r->size, 20);
  EXPECT_EQ(r->cosize, 4 * 8 + 3 * 2 + 1);
  // The chapter's spelling of the same arguments, one logical dimension per mode.
  auto axe = algebra("composition", {"S[20:2]", "S[(5,4):(4,1)]"}, AlgebraSyntax::kAxe);
  ASSERT_TRUE(axe.ok()) << axe.error().message;
  EXPECT_EQ(axe->result, "(5,4):(8,2)");
  // A nested result: its axe on its top-level shape evaluates like CuTe, (i, j) -> mode0(i) + mode1(j).
  auto nested = algebra("composition", {"(6,2):(8,2)", "(4,3):(3,1)"}, AlgebraSyntax::kCute);
  ASSERT_TRUE(nested.ok());
  EXPECT_EQ(nested->shape, (std::vector<int64_t>{4, 3}));
  auto chapter = parse_layout(nested->axe);
  ASSERT_TRUE(chapter.ok()) << nested->axe;
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t j = 0; j < 3; ++j) {
      auto m = forward_coord(*chapter, nested->shape, {i, j});
      ASSERT_TRUE(m.ok());
      EXPECT_EQ(m->positions[0].values[0], at(nested->layout.mode(0), i) + at(nested->layout.mode(1), j));
    }
  }
  auto tiler = algebra("composition", {"(12,(4,8)):(59,(13,1))", "[3:4, 8:2]"}, AlgebraSyntax::kCute);
  ASSERT_TRUE(tiler.ok()) << tiler.error().message;
  EXPECT_EQ(tiler->result, "(3,(2,4)):(236,(26,1))");
  // A tiler of chapter layouts: (12,32):(59,1) by mode, 12:59 o 3:4 = 3:236 and 32:1 o 8:2 = 8:2.
  auto axe_tiler = algebra("composition", {"S[(12,32):(59,1)]", "[S[3:4], S[8:2]]"}, AlgebraSyntax::kAxe);
  ASSERT_TRUE(axe_tiler.ok()) << axe_tiler.error().message;
  EXPECT_EQ(axe_tiler->result, "(3,8):(236,2)");
  EXPECT_EQ(axe_tiler->axe, "S[(3,8):(236,2)]");
  auto shape = algebra("logical_divide", {"(12,(4,8)):(59,(13,1))", "(3,8)"}, AlgebraSyntax::kCute);
  ASSERT_TRUE(shape.ok()) << shape.error().message;
  EXPECT_EQ(*size(shape->layout.mode(0).mode(0)), 3);
  auto comp = algebra("complement", {"4:2", "24"}, AlgebraSyntax::kCute);
  ASSERT_TRUE(comp.ok());
  EXPECT_EQ(comp->result, "(2,3):(1,8)");
  auto mcv = algebra("max_common_vector", {"(8,4):(1,8)", "(4,2,4):(1,16,4)"}, AlgebraSyntax::kCute);
  ASSERT_TRUE(mcv.ok());
  EXPECT_EQ(mcv->result, "4");
  EXPECT_EQ(mcv->vector, 4);
  auto blocked = algebra("blocked_product", {"(2,5):(5,1)", "(3,4)"}, AlgebraSyntax::kCute);
  ASSERT_TRUE(blocked.ok());
  EXPECT_EQ(blocked->result, "((2,3),(5,4)):((5,10),(1,30))");
  EXPECT_EQ(blocked->shape, (std::vector<int64_t>{6, 20}));
}

TEST(Algebra, TextErrorsNameTheArgument) {
  auto r = algebra("compose", {"8:1", "8:1"}, AlgebraSyntax::kCute);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "op");
  r = algebra("composition", {"8:1"}, AlgebraSyntax::kCute);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "arguments");
  r = algebra("composition", {"(20):(2)", "(5,4):(4,"}, AlgebraSyntax::kCute);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "argument 2");
  EXPECT_EQ(r.error().column, 10);
  r = algebra("composition", {"(12,(4,8)):(59,(13,1))", "[3:4, 8:x]"}, AlgebraSyntax::kCute);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "argument 2");
  EXPECT_EQ(r.error().column, 9);
  r = algebra("coalesce", {"S[(8,4):(4@laneid,1@laneid)]"}, AlgebraSyntax::kAxe);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "argument 1: laneid");
  r = algebra("coalesce", {"Sw<3,4,3> o 0 o (8,128):(128,1)"}, AlgebraSyntax::kCute);
  ASSERT_FALSE(r.ok());
  // Scaled bases compose; a layout onto two coordinate axes has no right inverse.
  r = algebra("composition", {"(8,128):(1@1,1@0)", "4:1"}, AlgebraSyntax::kCute);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->result, "4:1@1");
  r = algebra("right_inverse", {"(8,128):(1@1,1@0)"}, AlgebraSyntax::kCute);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("coordinate axis"), std::string::npos);
  r = algebra("blocked_product", {"(2,5):(5,1)", "[2:1]"}, AlgebraSyntax::kCute);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "argument 2");
}

// Random operations on mutated arguments: an answer or an error that names its place, never a crash.
TEST(Algebra, MutatedArgumentsFailCleanly) {
  const std::string seeds[] = {"(20):(2)", "(5,4):(4,1)",         "[3:4, 8:2]",           "(6,20)",
                               "24",       "(2,(1,6)):(1,(6,2))", "((2,2),3):((24,2),8)", "[(2,4):(1,8), 4]"};
  const std::string alphabet = "()[],:0123456789 ";
  std::mt19937 rng(8);
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  const auto& ops = algebra_operations();
  int answered = 0;
  for (int iter = 0; iter < 5000; ++iter) {
    std::vector<std::string> args;
    for (size_t k = 1 + pick(2); k > 0; --k) {
      std::string text = seeds[pick(std::size(seeds))];
      if (pick(2)) {
        const size_t at = pick(text.size());
        text[at] = alphabet[pick(alphabet.size())];
      }
      args.push_back(text);
    }
    auto r = algebra(ops[pick(ops.size())], args, AlgebraSyntax::kCute);
    if (r.ok()) {
      ++answered;
      EXPECT_EQ(r->size, count(r->layout));
      continue;
    }
    EXPECT_FALSE(r.error().message.empty());
    if (r.error().column > 0) EXPECT_EQ(r.error().field.rfind("argument ", 0), 0u) << r.error().message;
  }
  EXPECT_GT(answered, 500);
}

// ---- properties over random small layouts --------------------------------------------------------------

Layout random_layout(std::mt19937& rng, int max_stride, bool nested) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::vector<IntTuple> s, d;
  for (int i = pick(1, 3); i > 0; --i) {
    if (nested && pick(0, 2) == 0) {
      std::vector<IntTuple> ss, dd;
      for (int k = pick(1, 2); k > 0; --k) {
        ss.push_back(IntTuple::leaf(pick(1, 4)));
        dd.push_back(IntTuple::leaf(pick(0, max_stride)));
      }
      s.push_back(IntTuple::of(ss));
      d.push_back(IntTuple::of(dd));
    } else {
      s.push_back(IntTuple::leaf(pick(1, 4)));
      d.push_back(IntTuple::leaf(pick(0, max_stride)));
    }
  }
  if (s.size() == 1 && pick(0, 1)) return Layout{s[0], d[0]};
  return Layout{IntTuple::of(s), IntTuple::of(d)};
}

bool injective(const Layout& l) {
  std::set<int64_t> seen;
  for (int64_t i = 0; i < count(l); ++i) {
    if (!seen.insert(at(l, i)).second) return false;
  }
  return true;
}

TEST(Algebra, CoalescePreservesTheFunction) {
  std::mt19937 rng(1);
  for (int iter = 0; iter < 500; ++iter) {
    const Layout l = random_layout(rng, 12, true);
    auto c = coalesce(l);
    ASSERT_TRUE(c.ok());
    EXPECT_TRUE(same_function(l, *c)) << to_string(l) << " -> " << to_string(*c);
    EXPECT_TRUE(c->shape.is_leaf() || std::all_of(c->shape.modes.begin(), c->shape.modes.end(),
                                                  [](const IntTuple& m) { return m.is_leaf(); }));
  }
}

TEST(Algebra, CompositionIsFunctionComposition) {
  std::mt19937 rng(2);
  int composed = 0;
  for (int iter = 0; iter < 2000; ++iter) {
    const Layout a = random_layout(rng, 16, true);
    const Layout b = random_layout(rng, 8, true);
    // CuTe distributes A over B's modes, which is A(B(i)) when B is injective (the document's condition).
    if (!injective(b)) continue;
    auto r = composition(a, b);
    if (!r.ok()) continue;
    ++composed;
    ASSERT_EQ(count(*r), count(b)) << to_string(a) << " o " << to_string(b) << " = " << to_string(*r);
    // Within A's domain (past it CuTe extends A's last mode, which coalescing may change). CuTe's weak
    // divisibility conditions admit some B that do not compose as functions; the answer then says so.
    bool differs = false;
    for (int64_t i = 0; i < count(b); ++i)
      if (at(b, i) < count(a) && at(*r, i) != at(a, at(b, i))) differs = true;
    if (!differs) continue;
    auto text = algebra("composition", {to_string(a), to_string(b)}, AlgebraSyntax::kCute);
    ASSERT_TRUE(text.ok());
    EXPECT_NE(text->note, "") << to_string(a) << " o " << to_string(b) << " = " << to_string(*r);
  }
  EXPECT_GT(composed, 300);
}

TEST(Algebra, RightInverse) {
  std::mt19937 rng(3);
  for (int iter = 0; iter < 1000; ++iter) {
    const Layout l = random_layout(rng, 12, true);
    auto r = right_inverse(l);
    ASSERT_TRUE(r.ok());
    for (int64_t i = 0; i < count(*r); ++i)
      ASSERT_EQ(at(l, at(*r, i)), i) << to_string(l) << " right inverse " << to_string(*r);
  }
}

TEST(Algebra, LeftInverseOfInjectiveLayouts) {
  std::mt19937 rng(4);
  int checked = 0;
  for (int iter = 0; iter < 3000 && checked < 300; ++iter) {
    const Layout l = random_layout(rng, 24, true);
    if (!injective(l)) continue;
    auto r = left_inverse(l);
    if (!r.ok()) {
      // CuTe's divisibility condition: a stride that does not tile the ones below it.
      EXPECT_NE(r.error().message.find("divisibility"), std::string::npos) << r.error().message;
      continue;
    }
    ++checked;
    for (int64_t i = 0; i < count(l); ++i)
      ASSERT_EQ(at(*r, at(l, i)), i) << to_string(l) << " left inverse " << to_string(*r);
  }
  EXPECT_GE(checked, 100);
}

TEST(Algebra, ComplementIsDisjointOrderedAndFills) {
  std::mt19937 rng(5);
  int checked = 0;
  for (int iter = 0; iter < 3000 && checked < 300; ++iter) {
    const Layout a = random_layout(rng, 24, false);
    if (!injective(a)) continue;
    const int64_t cotarget = std::uniform_int_distribution<int64_t>(1, 200)(rng);
    auto c = complement(a, cotarget);
    if (!c.ok()) continue;
    // CuTe's gaps divide by integer division: the complement is disjoint when the sorted strides tile
    // (each a multiple of the extent times the stride before it), the case checked here.
    std::vector<std::pair<int64_t, int64_t>> sorted;
    for (auto [e, k] : leaves(a.shape, a.stride))
      if (e > 1 && k > 0) sorted.emplace_back(k, e);
    std::sort(sorted.begin(), sorted.end());
    bool tiles = true;
    for (size_t i = 1; i < sorted.size(); ++i)
      if (sorted[i].first % (sorted[i - 1].first * sorted[i - 1].second) != 0) tiles = false;
    if (!tiles) continue;
    ++checked;
    // Ordered: strictly increasing.
    for (int64_t i = 1; i < count(*c); ++i) ASSERT_LT(at(*c, i - 1), at(*c, i)) << to_string(*c);
    // (A, C) is injective and fills [0, size(A) * size(C)), which reaches the cotarget.
    const Layout both{IntTuple::of({a.shape, c->shape}), IntTuple::of({a.stride, c->stride})};
    std::set<int64_t> image;
    for (int64_t i = 0; i < count(both); ++i) image.insert(at(both, i));
    ASSERT_EQ(static_cast<int64_t>(image.size()), count(both))
        << to_string(a) << " complement " << to_string(*c);
    ASSERT_EQ(*image.rbegin(), count(both) - 1) << to_string(a) << " complement " << to_string(*c);
    ASSERT_GE(count(both), cotarget);
  }
  EXPECT_GE(checked, 100);
}

TEST(Algebra, DivideAndProductAreCompositionsOverTheWholeDomain) {
  std::mt19937 rng(6);
  int checked = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    const Layout a = random_layout(rng, 16, true);
    const Layout b = random_layout(rng, 6, false);
    if (!injective(b)) continue;
    auto d = logical_divide(a, Tiler::of(b));
    if (!d.ok()) continue;
    // CuTe's cotarget is the shape of coalesce(A).
    auto bstar = complement(b, coalesce(a)->shape);
    ASSERT_TRUE(bstar.ok());
    const Layout bb{IntTuple::of({b.shape, bstar->shape}), IntTuple::of({b.stride, bstar->stride})};
    ASSERT_EQ(count(*d), count(bb));
    // Only where A o (B, B*) composes as functions (CuTe's weak conditions admit others).
    auto exact = algebra("composition", {to_string(a), to_string(bb)}, AlgebraSyntax::kCute);
    if (!exact.ok() || !exact->note.empty()) continue;
    for (int64_t i = 0; i < count(bb); ++i) {
      if (at(bb, i) < count(a)) ASSERT_EQ(at(*d, i), at(a, at(bb, i))) << to_string(*d);
    }
    // The first mode is the tile: a o b.
    EXPECT_TRUE(same_function(d->mode(0), *composition(a, b)));
    ++checked;
  }
  EXPECT_GT(checked, 200);
}

}  // namespace
}  // namespace layoutscope::cute
