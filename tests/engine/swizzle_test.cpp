// The swizzle: CuTe's negative shift, the rules CuTe and TIRx put on the parameters, and the check that a
// swizzled tile stays on its own addresses. Expected values are worked out by hand from the definitions in
// CuTe's include/cute/swizzle.hpp and TIRx's SwizzleLayoutNode.
#include <gtest/gtest.h>

#include <string>

#include "layoutscope/mapping.hpp"
#include "layoutscope/parse.hpp"
#include "layoutscope/validate.hpp"

namespace layoutscope {
namespace {

bool has(const std::vector<Finding>& fs, const std::string& code) {
  for (const auto& f : fs) {
    if (f.code == code) return true;
  }
  return false;
}

// The one XOR term generated kernels write: SWIZZLE_128B = Swizzle<3,4,3> takes bits 7..9 (read shift 7,
// mask 7) into bits 4..6 (write shift 4); the negative shift reads bits 4..6 into 7..9; no bits: identity.
TEST(SwizzleTerm, NamesTheBitsTheSwizzleMoves) {
  const SwizzleTerm inner = swizzle_term(Swizzle{3, 4, 3, true});
  EXPECT_EQ(inner.read_shift, 7);
  EXPECT_EQ(inner.mask, 7);
  EXPECT_EQ(inner.write_shift, 4);
  const SwizzleTerm outer = swizzle_term(Swizzle{3, 4, 3, false});
  EXPECT_EQ(outer.read_shift, 4);
  EXPECT_EQ(outer.mask, 7);
  EXPECT_EQ(outer.write_shift, 7);
  EXPECT_EQ(swizzle_term(Swizzle{}).mask, 0);
  // 0x380 (bits 7..9 set) under Swizzle<3,4,3>: bits 4..6 flip too, 0x380 | 0x70.
  EXPECT_EQ(apply_swizzle(Swizzle{3, 4, 3, true}, 0x380), 0x3f0);
}

TEST(CuteNegativeShift, MovesTheLowFieldIntoTheHighOne) {
  // CuTe: yyy_msk = 7 << (M + max(0,S)) = 7 << 4 (bits 4..6), zzz_msk = 7 << (M - min(0,S)) = 7 << 7, and
  // apply = o ^ shiftr(o & yyy_msk, S) with S = -3 a left shift by 3: bits 4..6 are XORed into bits 7..9.
  auto l = parse_layout("Swizzle<3,4,-3> o S[1024:1]");
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->swizzle->shift, 3);
  EXPECT_FALSE(l->swizzle->inner);
  auto t = table(*l, {1024});
  ASSERT_TRUE(t.ok());
  // 16 = bit 4 -> bit 7 set: 16 + 128 = 144; 0x70 (bits 4..6 = 111) -> 0x70 | 0x380 = 1008; 128 (bit 7 only,
  // low field 0) stays; 48 = 0b11_0000 -> bits 7,8: 48 + 384 = 432.
  EXPECT_EQ(t->values[16], 144);
  EXPECT_EQ(t->values[0x70], 0x70 + 0x380);
  EXPECT_EQ(t->values[128], 128);
  EXPECT_EQ(t->values[48], 432);
  // |S| >= B: its own inverse, so unapply gives the same map.
  for (int64_t o : {16, 144, 0x70, 432, 1000})
    EXPECT_EQ(unapply_swizzle(*l->swizzle, apply_swizzle(*l->swizzle, o)), o);
  EXPECT_EQ(unapply_swizzle(*l->swizzle, 144), 16);
  // It is TIRx's swizzle_inner=False with atom_len 3.
  auto tirx = table(*parse_layout("ComposeLayout(4, 3, 3, S[1024:1], swizzle_inner=False)"), {1024});
  EXPECT_EQ(t->values, tirx->values);
}

TEST(CuteNegativeShift, PrintsBackAsWritten) {
  const std::string text = "Swizzle<3,4,-3> o S[(8,128):(128,1)]";
  auto l = parse_layout(text);
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(to_string(*l), text);
  EXPECT_EQ(to_string(*l->swizzle), "Swizzle<3,4,-3>");
  EXPECT_EQ(*parse_layout(to_string(*l)), *l);
  // The derivation names the swizzle as written and shows the low field going up: m = 16 (bits 4..6 = 001).
  auto m = forward_index(*l, {8, 128}, 16);
  ASSERT_TRUE(m.ok());
  EXPECT_NE(m->derivation.find("Swizzle<3,4,-3> on m: 16 (bits [4,7) = 001 xor bits [7,10) = 000) -> 144"),
            std::string::npos)
      << m->derivation;
}

TEST(SwizzleRules, TirxRejectsSwizzleLenAboveAtomLen) {
  // TIRx SwizzleLayoutNode::VerifyWellFormed: per_element >= 0, swizzle_len >= 0, atom_len >= swizzle_len.
  auto bad = parse_layout("ComposeLayout(3, 3, 2, S[64:1])");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, "range");
  EXPECT_EQ(bad.error().column, 1);
  EXPECT_NE(bad.error().message.find("atom_len 2 is smaller than swizzle_len 3"), std::string::npos);
  EXPECT_TRUE(parse_layout("ComposeLayout(3, 3, 3, S[64:1])").ok());
  auto nested = parse_layout("T.ComposeLayout(T.SwizzleLayout(1, 4, 2), T.TileLayout(T.S[64]))");
  ASSERT_FALSE(nested.ok());
  EXPECT_EQ(nested.error().field, "swizzle");
}

TEST(SwizzleRules, EachComposeLayoutArgumentOnce) {
  struct Case {
    const char* text;
    int column;
    const char* field;
  };
  for (const Case& c :
       {Case{"ComposeLayout(3, 3, 3, S[64:1], per_element=2)", 33, "per_element"},
        Case{"ComposeLayout(per_element=3, swizzle_len=3, atom_len=3, swizzle_len=3, S[64:1])", 57,
             "swizzle_len"},
        Case{"ComposeLayout(3, 3, 3, S[64:1], swizzle_inner=True, swizzle_inner=False)", 53, "swizzle_inner"},
        Case{"ComposeLayout(SwizzleLayout(3, 3, 3), S[64:1], atom_len=3)", 48, "atom_len"}}) {
    auto l = parse_layout(c.text);
    ASSERT_FALSE(l.ok()) << c.text;
    EXPECT_EQ(l.error().column, c.column) << c.text << ": " << l.error().message;
    EXPECT_EQ(l.error().field, c.field) << c.text;
    EXPECT_EQ(l.error().code, "syntax") << c.text;
  }
  auto two = parse_layout("ComposeLayout(3, SwizzleLayout(3, 3, 3), S[64:1])");
  ASSERT_FALSE(two.ok());
  EXPECT_EQ(two.error().column, 18);
  auto missing = parse_layout("ComposeLayout(3, 3, S[64:1])");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().field, "atom_len");
  EXPECT_EQ(missing.error().column, 28);
}

TEST(SwizzleRules, OneCheckForEveryCaller) {
  EXPECT_FALSE(check_swizzle(Swizzle{3, 4, 3}));
  EXPECT_FALSE(check_swizzle(Swizzle{3, 4, 3, false}));
  const auto shift64 = check_swizzle(Swizzle{1, 0, 64});
  ASSERT_TRUE(shift64);
  EXPECT_EQ(shift64->field, "swizzle");
  EXPECT_EQ(shift64->code, "range");
  EXPECT_TRUE(check_swizzle(Swizzle{30, 30, 3}));   // 63 bits of mask: past int64
  EXPECT_FALSE(check_swizzle(Swizzle{30, 2, 30}));  // 62 bits: fits
  EXPECT_TRUE(check_swizzle(Swizzle{-1, 0, 3}));
  EXPECT_TRUE(check_swizzle(Swizzle{2, 0, 0}));
  EXPECT_TRUE(check_swizzle(Swizzle{3, 0, 2, true, SwizzleSpelling::kTirx}));
  EXPECT_FALSE(check_swizzle(Swizzle{3, 0, 2, true, SwizzleSpelling::kCute}));  // overlapping, a permutation
}

TEST(SwizzleAtomFinding, QuietWhenTheSwizzledAddressesStayOnTheTile) {
  // 0..63 under Swizzle<3,4,3>: bits 7..9 are 0 everywhere, so nothing moves (the span 64 is not a
  // multiple of the atom 1024, which is not a problem).
  auto a = validate(*parse_layout("Swizzle<3,4,3> o S[64:1]"), {64});
  EXPECT_FALSE(has(*a, "swizzle-atom"));
  // 0..11 under Swizzle<1,0,3>: o ^ ((o >> 3) & 1): 8<->9, 10<->11, 0..7 fixed: a permutation of 0..11
  // although 12 is not a multiple of the atom 16.
  auto b = validate(*parse_layout("Swizzle<1,0,3> o S[12:1]"), {12});
  EXPECT_FALSE(has(*b, "swizzle-atom"));
  // The SWIZZLE_128B tile of fp16: 8 rows of 64, Swizzle<3,3,3>: one whole atom.
  auto c = validate(*parse_layout("Swizzle<3,3,3> o S[(8,64):(64,1)]"), {8, 64});
  EXPECT_FALSE(has(*c, "swizzle-atom"));
}

TEST(SwizzleAtomFinding, FiresWhenAnAddressLeavesTheTile) {
  // 0..4 under Swizzle<1,0,2>: o ^ ((o >> 2) & 1): 4 -> 5, outside [0, 4].
  auto a = validate(*parse_layout("Swizzle<1,0,2> o S[5:1]"), {5});
  ASSERT_TRUE(has(*a, "swizzle-atom"));
  for (const auto& f : *a) {
    if (f.code == "swizzle-atom") {
      EXPECT_NE(f.message.find("moves address 4 to 5, outside the tile's addresses [0, 4]"),
                std::string::npos)
          << f.message;
    }
  }
  // {0, 2, 4} under Swizzle<1,0,1>: o ^ ((o >> 1) & 1): 2 -> 3, inside [0, 4] but not one of the addresses.
  auto b = validate(*parse_layout("Swizzle<1,0,1> o S[3:2]"), {3});
  ASSERT_TRUE(has(*b, "swizzle-atom"));
  for (const auto& f : *b) {
    if (f.code == "swizzle-atom")
      EXPECT_NE(f.message.find("moves address 2 to 3, which is not"), std::string::npos);
  }
}

}  // namespace
}  // namespace layoutscope
