// Laws checked over the whole domain of many random layouts: the reference mapping here is written
// independently from the engine (plain nested arithmetic on the definitions), then compared.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "layoutscope/canonical.hpp"
#include "layoutscope/mapping.hpp"
#include "layoutscope/parse.hpp"
#include "layoutscope/validate.hpp"

namespace layoutscope {
namespace {

using AxisMap = std::map<std::string, int64_t>;

Layout random_layout(std::mt19937& rng, bool allow_swizzle) {
  const char* axes[] = {"m", "m", "laneid", "reg", "x"};
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Layout l;
  const int modes = pick(1, 4);
  for (int i = 0; i < modes; ++i)
    l.shard.push_back(Mode{pick(1, 6), AxisStride{pick(-3, 9), axes[pick(0, 4)]}});
  if (pick(0, 2) == 0) {
    std::vector<Mode> group;
    for (int i = pick(1, 2); i > 0; --i)
      group.push_back(Mode{pick(1, 3), AxisStride{pick(0, 40), axes[pick(0, 4)]}});
    l.replicas.push_back(group);
  }
  if (pick(0, 4) == 0) {
    std::vector<Mode> group;
    for (int i = pick(1, 2); i > 0; --i)
      group.push_back(Mode{pick(1, 3), AxisStride{pick(0, 40), axes[pick(0, 4)]}});
    l.partials.push_back(group);
  }
  if (pick(0, 2) == 0) l.offset.push_back(AxisStride{pick(0, 50), axes[pick(0, 4)]});
  if (allow_swizzle && pick(0, 2) == 0) {
    // Both spellings, both directions (CuTe's negative shift is inner = false); TIRx needs atom_len >= B.
    l.swizzle = Swizzle{pick(0, 3), pick(0, 2), pick(1, 4), pick(0, 3) != 0,
                        pick(0, 1) ? SwizzleSpelling::kCute : SwizzleSpelling::kTirx};
    if (l.swizzle->spelling == SwizzleSpelling::kTirx)
      l.swizzle->shift = std::max(l.swizzle->shift, l.swizzle->bits);
  }
  return l;
}

// Reference: definition of the notation, written out directly.
std::vector<AxisMap> reference_positions(const Layout& l, int64_t x) {
  AxisMap base;
  int64_t rest = x;
  for (size_t i = l.shard.size(); i-- > 0;) {
    base[l.shard[i].stride.axis] += (rest % l.shard[i].extent) * l.shard[i].stride.k;
    rest /= l.shard[i].extent;
  }
  for (const AxisStride& o : l.offset) base[o.axis] += o.k;
  // Every replica digit combination, then within it every partial-sum digit combination (holder order).
  std::vector<Mode> rmodes;
  for (const auto& g : l.replicas) rmodes.insert(rmodes.end(), g.begin(), g.end());
  for (const auto& g : l.partials) rmodes.insert(rmodes.end(), g.begin(), g.end());
  int64_t holders = 1;
  for (const Mode& m : rmodes) holders *= m.extent;
  std::vector<AxisMap> out;
  for (int64_t r = 0; r < holders; ++r) {
    AxisMap p = base;
    int64_t rr = r;
    for (size_t i = rmodes.size(); i-- > 0;) {
      p[rmodes[i].stride.axis] += (rr % rmodes[i].extent) * rmodes[i].stride.k;
      rr /= rmodes[i].extent;
    }
    if (l.swizzle) {
      const Swizzle& s = *l.swizzle;
      const int64_t o = p["m"];
      const int64_t mask = (int64_t{1} << s.bits) - 1;
      const int64_t yyy = (o >> (s.base + s.shift)) & mask, zzz = (o >> s.base) & mask;
      p["m"] = s.inner ? o ^ (yyy << s.base) : o ^ (zzz << (s.base + s.shift));
    }
    for (auto it = p.begin(); it != p.end();) it = it->second == 0 ? p.erase(it) : std::next(it);
    out.push_back(p);
  }
  return out;
}

std::vector<AxisMap> table_positions(const Table& t, int64_t x) {
  std::vector<AxisMap> out;
  const size_t n = t.axes.size();
  for (int64_t r = 0; r < t.holders(); ++r) {
    AxisMap p;
    for (size_t a = 0; a < n; ++a) {
      const int64_t v = t.values[static_cast<size_t>(x * t.holders() + r) * n + a];
      if (v != 0) p[t.axes[a]] = v;
    }
    out.push_back(p);
  }
  return out;
}

TEST(Laws, TableMatchesTheDefinitionOverTheWholeDomain) {
  std::mt19937 rng(1);
  for (int trial = 0; trial < 300; ++trial) {
    const Layout l = random_layout(rng, true);
    auto size = layout_size(l);
    auto t = table(l, {*size});
    ASSERT_TRUE(t.ok()) << to_string(l);
    for (int64_t x = 0; x < *size; ++x) {
      ASSERT_EQ(table_positions(*t, x), reference_positions(l, x)) << to_string(l) << " x=" << x;
    }
  }
}

std::vector<AxisMap> mapping_positions(const Mapping& m, const std::vector<std::string>& axes) {
  std::vector<AxisMap> out;
  for (const Position& q : m.positions) {
    AxisMap p;
    for (size_t a = 0; a < axes.size(); ++a) {
      if (q.values[a] != 0) p[axes[a]] = q.values[a];
    }
    out.push_back(p);
  }
  return out;
}

TEST(Laws, ForwardIndexEqualsTheTableOverTheWholeDomain) {
  // forward_index (step by step) and table (the compiled fast path) are two implementations of one
  // definition; both must also agree with the reference, holder by holder and in the same order.
  std::mt19937 rng(6);
  for (int trial = 0; trial < 300; ++trial) {
    const Layout l = random_layout(rng, true);
    const std::vector<int64_t> shape = {*layout_size(l)};
    auto t = table(l, shape);
    ASSERT_TRUE(t.ok()) << to_string(l);
    const auto axes = layout_axes(l);
    for (int64_t x = 0; x < shape[0]; ++x) {
      auto m = forward_index(l, shape, x);
      ASSERT_TRUE(m.ok()) << to_string(l);
      ASSERT_EQ(mapping_positions(*m, axes), table_positions(*t, x)) << to_string(l) << " x=" << x;
      ASSERT_EQ(mapping_positions(*m, axes), reference_positions(l, x)) << to_string(l) << " x=" << x;
    }
  }
}

TEST(Laws, BenchmarkChecksumIsTheSumOfEveryPosition) {
  // The throughput workload must do the whole mapping: its checksum equals the sum of the reference table.
  std::mt19937 rng(5);
  for (int trial = 0; trial < 100; ++trial) {
    const Layout l = random_layout(rng, true);
    auto c = CompiledLayout::compile(l);
    ASSERT_TRUE(c.ok());
    uint64_t want = 0;
    for (int64_t x = 0; x < c->size(); ++x) {
      for (const AxisMap& p : reference_positions(l, x)) {
        for (const auto& [axis, v] : p) want += static_cast<uint64_t>(v);
      }
    }
    EXPECT_EQ(c->checksum_all(), want) << to_string(l);
  }
}

TEST(Laws, ParseOfToStringIsIdentity) {
  std::mt19937 rng(2);
  for (int trial = 0; trial < 500; ++trial) {
    const Layout l = random_layout(rng, true);
    auto back = parse_layout(to_string(l));
    ASSERT_TRUE(back.ok()) << to_string(l) << ": " << back.error().message;
    EXPECT_EQ(*back, l) << to_string(l);
  }
}

TEST(Laws, InverseOfForwardContainsTheElement) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 200; ++trial) {
    const Layout l = random_layout(rng, true);
    const std::vector<int64_t> shape = {*layout_size(l)};
    const auto axes = layout_axes(l);
    for (int64_t x = 0; x < shape[0]; x += 1 + shape[0] / 7) {
      auto m = forward_index(l, shape, x);
      ASSERT_TRUE(m.ok());
      for (const Position& p : m->positions) {
        std::vector<AxisValue> q;
        for (size_t a = 0; a < axes.size(); ++a) q.push_back({axes[a], p.values[a]});
        auto hits = inverse(l, shape, q);
        ASSERT_TRUE(hits.ok());
        bool found = false;
        for (const auto& h : *hits) found = found || h.index == x;
        EXPECT_TRUE(found) << to_string(l) << " x=" << x;
      }
    }
  }
}

TEST(Laws, CanonicalizePreservesEveryMapping) {
  std::mt19937 rng(4);
  for (int trial = 0; trial < 300; ++trial) {
    const Layout l = random_layout(rng, true);
    const Layout c = canonicalize(l);
    const std::vector<int64_t> shape = {*layout_size(l)};
    auto a = table(l, shape);
    auto b = table(c, shape);
    ASSERT_TRUE(a.ok() && b.ok()) << to_string(l) << " -> " << to_string(c);
    for (int64_t x = 0; x < shape[0]; ++x) {
      ASSERT_EQ(table_positions(*a, x), table_positions(*b, x)) << to_string(l) << " -> " << to_string(c);
    }
    EXPECT_LE(c.shard.size(), l.shard.size());
  }
}

TEST(Canonicalize, IssueExamples) {
  EXPECT_EQ(to_string(canonicalize(*parse_layout("S[(2,3,6):(18,6,1)]"))), "S[36:1]");
  EXPECT_EQ(to_string(canonicalize(*parse_layout("S[(8,4):(4@laneid,1@laneid)]"))), "S[32:1@laneid]");
  EXPECT_EQ(to_string(canonicalize(*parse_layout("S[(1,8):(5,1)] + O[0@x]"))), "S[8:1]");
  // Not contiguous: 4 != 2*1, different axes.
  EXPECT_EQ(to_string(canonicalize(*parse_layout("S[(2,2):(4,1)]"))), "S[(2,2):(4,1)]");
  EXPECT_EQ(to_string(canonicalize(*parse_layout("S[(8,4,2):(4@laneid,1@laneid,1@reg)]"))),
            "S[(32,2):(1@laneid,1@reg)]");
}

TEST(Swizzle, MatchesTheFormulaAndTirxVectors) {
  // Swizzle<3,4,3> on bytes: byte 144 = 0b1001'0000: bits 7..9 = 001 go into bits 4..6 (001) -> 128.
  EXPECT_EQ(apply_swizzle(Swizzle{3, 4, 3}, 144), 128);
  // Row 1 of the PTX 128B figure (16 B cells): cells 8..15 -> 9 8 11 10 13 12 15 14.
  const int64_t row1[] = {9, 8, 11, 10, 13, 12, 15, 14};
  for (int c = 0; c < 8; ++c) EXPECT_EQ(apply_swizzle(Swizzle{3, 4, 3}, (8 + c) * 16) / 16, row1[c]);
  // TVM TIRx test vectors: ComposeLayout(1, 1, 2, S[16]) and its swizzle_inner=False form.
  auto inner = table(*parse_layout("ComposeLayout(1, 1, 2, TileLayout(S[(16,)]))"), {16});
  auto outer =
      table(*parse_layout("ComposeLayout(1, 1, 2, TileLayout(S[(16,)]), swizzle_inner=False)"), {16});
  EXPECT_EQ(inner->values, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 10, 11, 8, 9, 14, 15, 12, 13}));
  EXPECT_EQ(outer->values, (std::vector<int64_t>{0, 1, 10, 11, 4, 5, 14, 15, 8, 9, 2, 3, 12, 13, 6, 7}));
  // The offset is added before the swizzle: ComposeLayout(0, 1, 2, S[(2,4):(8,1)] + 4).
  auto off = table(*parse_layout("ComposeLayout(0, 1, 2, TileLayout(S[(2,4):(8,1)] + 4))"), {8});
  EXPECT_EQ(off->values, (std::vector<int64_t>{5, 4, 7, 6, 13, 12, 15, 14}));
}

TEST(Swizzle, UnapplyInvertsEveryParameterSet) {
  for (int b = 0; b <= 3; ++b) {
    for (int m = 0; m <= 4; ++m) {
      for (int s = b > 0 ? 1 : 0; s <= 4; ++s) {  // S = 0 with B > 0 is refused by compile()
        for (bool inner : {true, false}) {
          const Swizzle sw{b, m, s, inner};
          for (int64_t o = 0; o < 4096; o += 3) EXPECT_EQ(unapply_swizzle(sw, apply_swizzle(sw, o)), o);
        }
      }
    }
  }
}

TEST(Limits, HugeInputsAreRefusedWithAMessageNotComputed) {
  // 2^20 replicas of one element: forward would list them all; it refuses and names R.
  auto many = forward_index(*parse_layout("S[4:1] + R[1048576:1@x]"), {4}, 0);
  ASSERT_FALSE(many.ok());
  EXPECT_EQ(many.error().field, "R");
  // 2^40 elements: the table refuses before allocating.
  auto big = table(*parse_layout("S[(1048576,1048576):(1048576,1)]"), {1048576, 1048576});
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.error().message.find("limit"), std::string::npos);
  // Extents whose product overflows 64 bits.
  auto overflow = forward_index(*parse_layout("S[(4294967296,4294967296,4):(1,1,1)]"), {4}, 0);
  ASSERT_FALSE(overflow.ok());
  EXPECT_NE(overflow.error().message.find("overflows"), std::string::npos);
  // Strides whose span overflows.
  auto span = forward_index(*parse_layout("S[(4,4):(4611686018427387904,1)]"), {16}, 0);
  ASSERT_FALSE(span.ok());
}

TEST(Swizzle, ZeroShiftIsRefused) {
  auto p = parse_layout("Swizzle<2,0,0> o S[8:1]");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().field, "swizzle");
  EXPECT_EQ(p.error().code, "range");
  Layout l = *parse_layout("S[8:1]");
  l.swizzle = Swizzle{2, 0, 0};
  auto f = forward_index(l, {8}, 1);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().field, "swizzle");
}

TEST(Validate, FindingsNameTheCulprit) {
  auto has = [](const std::vector<Finding>& fs, const std::string& code, const std::string& where) {
    for (const auto& f : fs) {
      if (f.code == code && f.where == where) return true;
    }
    return false;
  };
  auto f1 = validate(*parse_layout("S[(8,4):(4@laneid,1@laneid)] + O[8@laneid]"), {8, 4});
  EXPECT_TRUE(has(*f1, "hardware-range", "axis laneid"));
  auto f2 = validate(*parse_layout("S[(8,8):(8,1)]"), {8, 4});
  EXPECT_TRUE(has(*f2, "size-mismatch", "shape"));
  auto f3 = validate(*parse_layout("S[(4,4):(2,1)]"), {4, 4});  // (0,2) and (1,0) both land on 2
  EXPECT_TRUE(has(*f3, "aliasing", "S"));
  auto f4 = validate(*parse_layout("S[(2,4,8):(1@gpuid_y,8,1)] + R[2:1@gpuid_x]"), {2, 4, 8});
  for (const auto& f : *f4) EXPECT_NE(f.severity, Severity::kError) << f.message;
  auto f5 = validate(*parse_layout("S[(128,512):(1@TLane,1@TCol)] + O[1@TCol]"), {128, 512});
  EXPECT_TRUE(has(*f5, "hardware-range", "axis TCol"));
  auto f6 = validate(*parse_layout("S[8:-1]"), {8});
  EXPECT_TRUE(has(*f6, "negative-position", "axis m"));
  auto f8 = validate(*parse_layout("Swizzle<3,0,1> o S[64:1]"), {64});
  EXPECT_TRUE(has(*f8, "swizzle-overlap", "swizzle"));
}

}  // namespace
}  // namespace layoutscope
