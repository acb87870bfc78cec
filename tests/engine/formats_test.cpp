// Importers and exporters of other projects' layout syntax. Expected values come from each project's
// definition, evaluated here independently of the importers: a Triton linear layout by XORing its bases over
// every hardware index, a sharding by enumerating every device of the mesh and the block of each dimension
// it holds (what JAX's devices_indices_map and DTensor's chunking define).
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <set>

#include "formats/detail.hpp"  // the engine's private header: same_sharding, the exporters' self-check
#include "layoutscope/formats/dtensor.hpp"
#include "layoutscope/formats/format.hpp"
#include "layoutscope/formats/hlo.hpp"
#include "layoutscope/formats/jax.hpp"
#include "layoutscope/formats/shardy.hpp"
#include "layoutscope/formats/tirx.hpp"
#include "layoutscope/formats/triton.hpp"
#include "test_util.hpp"

namespace layoutscope {
namespace {

using testing::must_parse;
using Pos = std::map<std::string, int64_t>;
using Positions = std::vector<std::set<Pos>>;  // per flat element

// Every element's positions, zero values dropped (an axis a layout never moves reads 0).
Positions positions_of(const Layout& layout, const std::vector<int64_t>& shape) {
  auto t = table(layout, shape);
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
  if (!t.ok()) return {};
  Positions out(static_cast<size_t>(t->elements));
  const size_t axes = t->axes.size();
  for (int64_t x = 0; x < t->elements; ++x) {
    for (int64_t r = 0; r < t->holders(); ++r) {  // every replica and partial holder
      Pos p;
      for (size_t a = 0; a < axes; ++a) {
        const int64_t v = t->values[static_cast<size_t>(x * t->holders() + r) * axes + a];
        if (v != 0) p[t->axes[a]] = v;
      }
      out[static_cast<size_t>(x)].insert(p);
    }
  }
  return out;
}

Imported must_import(Format f, const std::string& text, FormatContext context = {}) {
  auto r = import_layout(f, text, context);
  EXPECT_TRUE(r.ok()) << text << ": "
                      << (r.ok() ? "" : r.error().message + " @" + std::to_string(r.error().column));
  return r.ok() ? *r : Imported{};
}

std::string must_export(Format f, const Layout& l, const std::vector<int64_t>& shape,
                        FormatContext context = {}) {
  auto r = export_layout(f, l, shape, context);
  EXPECT_TRUE(r.ok()) << to_string(l) << ": " << (r.ok() ? "" : r.error().message);
  return r.ok() ? *r : std::string();
}

Error must_fail(Format f, const std::string& text, FormatContext context = {}) {
  auto r = import_layout(f, text, context);
  EXPECT_FALSE(r.ok()) << text << " imported as " << (r.ok() ? to_string(r->layout) : "");
  return r.ok() ? Error{} : r.error();
}

int column_of(const std::string& text, const std::string& part, size_t from = 0) {
  return static_cast<int>(text.find(part, from)) + 1;
}

// ---------------------------------------------------------------------------------------------------------
// Triton: the oracle applies the linear layout's definition to every hardware index.

struct HwBases {
  std::string axis;
  std::vector<std::vector<int64_t>> bases;
};

Positions linear_oracle(const std::vector<HwBases>& hw, const std::vector<int64_t>& shape) {
  int64_t size = 1;
  for (int64_t e : shape) size *= e;
  Positions out(static_cast<size_t>(size));
  std::vector<int64_t> index(hw.size(), 0);
  std::function<void(size_t)> walk = [&](size_t h) {
    if (h == hw.size()) {
      std::vector<int64_t> coord(shape.size(), 0);
      Pos p;
      for (size_t k = 0; k < hw.size(); ++k) {
        for (size_t b = 0; b < hw[k].bases.size(); ++b)
          if ((index[k] >> b) & 1)
            for (size_t d = 0; d < shape.size(); ++d) coord[d] ^= hw[k].bases[b][d];
        if (index[k] != 0) p[hw[k].axis] = index[k];
      }
      int64_t flat = 0;
      for (size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + coord[d];
      out[static_cast<size_t>(flat)].insert(p);
      return;
    }
    for (index[h] = 0; index[h] < (int64_t{1} << hw[h].bases.size()); ++index[h]) walk(h + 1);
  };
  walk(0);
  return out;
}

TEST(FormatTriton, MmaFragmentWorkedExample) {
  const std::string text =
      "#ttg.linear<{register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [], "
      "block = []}>";
  const Imported got = must_import(Format::kTriton, text, {{16, 8}, {}});
  EXPECT_EQ(got.layout, must_parse("S[(2,8,4,2):(2@reg,4@laneid,1@laneid,1@reg)]"));
  EXPECT_EQ(got.shape, (std::vector<int64_t>{16, 8}));
  auto hits = inverse(got.layout, got.shape, {{"laneid", 5}});
  ASSERT_TRUE(hits.ok());
  std::set<std::vector<int64_t>> coords;
  for (const InverseHit& h : *hits) coords.insert(h.coord);
  EXPECT_EQ(coords, (std::set<std::vector<int64_t>>{{1, 2}, {1, 3}, {9, 2}, {9, 3}}));
  EXPECT_EQ(positions_of(got.layout, got.shape),
            linear_oracle({{"reg", {{0, 1}, {8, 0}}}, {"laneid", {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}}}},
                          {16, 8}));
}

TEST(FormatTriton, GluonSpellingAndTensorTypeGiveTheShape) {
  const Imported a =
      must_import(Format::kTriton,
                  "DistributedLinearLayout(reg_bases=[[0, 1], [8, 0]], lane_bases=[[0, 2], [0, 4], "
                  "[1, 0], [2, 0], [4, 0]], warp_bases=[], block_bases=[], shape=[16, 8])");
  EXPECT_EQ(a.layout, must_parse("S[(2,8,4,2):(2@reg,4@laneid,1@laneid,1@reg)]"));
  const Imported b =
      must_import(Format::kTriton,
                  "tensor<16x8xf16, #ttg.linear<{register = [[0, 1], [8, 0]], lane = [[0, 2], [0, "
                  "4], [1, 0], [2, 0], [4, 0]], warp = [], block = []}>>");
  EXPECT_EQ(b.shape, (std::vector<int64_t>{16, 8}));
  EXPECT_EQ(b.layout, a.layout);
  // no shape anywhere: as large as the bases reach (16 rows: bit 3 of dimension 0 is the top one)
  const Imported c =
      must_import(Format::kTriton,
                  "#ttg.linear<{register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], "
                  "[4, 0]], warp = [], block = []}>");
  EXPECT_EQ(c.shape, (std::vector<int64_t>{16, 8}));
  EXPECT_EQ(c.layout, a.layout);
  EXPECT_EQ(c.notes.size(), 1u);
}

TEST(FormatTriton, ZeroBasesAreReplicas) {
  // two warps hold the same 8 elements; the lane's top bit too
  const Imported got = must_import(
      Format::kTriton, "#ttg.linear<{register = [[1]], lane = [[2], [4], [0]], warp = [[0]], block = []}>",
      {{8}, {}});
  EXPECT_EQ(positions_of(got.layout, {8}),
            linear_oracle({{"reg", {{1}}}, {"laneid", {{2}, {4}, {0}}}, {"warpid", {{0}}}}, {8}));
  ASSERT_EQ(got.layout.replicas.size(), 1u);
}

TEST(FormatTriton, BlockedTileMatchesTheHandDerivation) {
  const std::string blocked =
      "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>";
  // 32x16 is exactly the CTA tile: (r, c) -> reg c%4, lane c/4 + 4*(r%8), warp r/8
  EXPECT_EQ(must_import(Format::kTriton, blocked, {{32, 16}, {}}).layout,
            must_parse("S[(4,8,4,4):(1@warpid,4@laneid,1@laneid,1@reg)]"));
  // 64x16: dimension 0 twice the tile; registers repeat, reg bit 2 moves 32 rows
  const Imported big = must_import(Format::kTriton, blocked, {{64, 16}, {}});
  EXPECT_EQ(big.layout, must_parse("S[(2,4,8,4,4):(4@reg,1@warpid,4@laneid,1@laneid,1@reg)]"));
  // 16x16: half the tile; warp bit 1 broadcasts (warps 0,2 and 1,3 hold the same rows)
  const Imported small = must_import(Format::kTriton, blocked, {{16, 16}, {}});
  EXPECT_EQ(small.layout, must_parse("S[(2,8,4,4):(1@warpid,4@laneid,1@laneid,1@reg)] + R[2:2@warpid]"));
  // order [0, 1]: dimension 0 fastest
  const Imported col = must_import(
      Format::kTriton,
      "#ttg.blocked<{sizePerThread = [2, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 2], order = [0, 1]}>",
      {{8, 16}, {}});
  // (r, c): reg r%2, lane (r/2) + 4*(c%8), warp c/8
  EXPECT_EQ(
      positions_of(col.layout, {8, 16}),
      linear_oracle(
          {{"reg", {{1, 0}}}, {"laneid", {{2, 0}, {4, 0}, {0, 1}, {0, 2}, {0, 4}}}, {"warpid", {{0, 8}}}},
          {8, 16}));
}

// Triton's swizzled_shared definition, element by element: phase = (row / perPhase) % maxPhase, the vec-group
// of the column XORed with the phase.
int64_t swizzled_offset(int64_t r, int64_t c, int64_t cols, int64_t vec, int64_t per_phase,
                        int64_t max_phase) {
  const int64_t phase = (r / per_phase) % max_phase;
  return r * cols + ((((c / vec) ^ phase) * vec) % cols) + c % vec;
}

TEST(FormatTriton, SwizzledSharedIsASwizzle) {
  struct Case {
    int64_t vec, per_phase, max_phase, rows, cols;
  };
  for (const Case& k : {Case{8, 1, 8, 16, 64}, Case{8, 2, 4, 32, 64}, Case{4, 1, 8, 8, 32},
                        Case{1, 1, 4, 4, 4}, Case{2, 4, 2, 32, 8}}) {
    const std::string text = "#ttg.swizzled_shared<{vec = " + std::to_string(k.vec) +
                             ", perPhase = " + std::to_string(k.per_phase) +
                             ", maxPhase = " + std::to_string(k.max_phase) + ", order = [1, 0]}>";
    const Imported got = must_import(Format::kTriton, text, {{k.rows, k.cols}, {}});
    const Positions p = positions_of(got.layout, {k.rows, k.cols});
    for (int64_t r = 0; r < k.rows; ++r)
      for (int64_t c = 0; c < k.cols; ++c) {
        const int64_t want = swizzled_offset(r, c, k.cols, k.vec, k.per_phase, k.max_phase);
        const std::set<Pos> expect{want ? Pos{{"m", want}} : Pos{}};
        ASSERT_EQ(p[static_cast<size_t>(r * k.cols + c)], expect) << text << " at " << r << "," << c;
      }
  }
  // vec 8, perPhase 1, maxPhase 8 on 64 columns is the 128B pattern on fp16: Swizzle<3,3,3>
  const Imported sw = must_import(
      Format::kTriton, "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
      {{8, 64}, {}});
  ASSERT_TRUE(sw.layout.swizzle.has_value());
  EXPECT_EQ(to_string(*sw.layout.swizzle), "Swizzle<3,3,3>");
}

TEST(FormatTriton, NvmmaSharedMatchesPtxSwizzleModes) {
  // fp16 elements: SWIZZLE_128B / 64B / 32B are Swizzle<3,4,3> / <2,4,3> / <1,4,3> on bytes, M - 1 on fp16
  struct Case {
    int width;
    std::string swizzle;
    int64_t cols;
  };
  for (const Case& k :
       {Case{128, "Swizzle<3,3,3>", 64}, Case{64, "Swizzle<2,3,3>", 32}, Case{32, "Swizzle<1,3,3>", 16}}) {
    const Imported got = must_import(Format::kTriton,
                                     "#ttg.nvmma_shared<{swizzlingByteWidth = " + std::to_string(k.width) +
                                         ", transposed = false, elementBitWidth = 16}>",
                                     {{64, k.cols}, {}});
    const Layout want = must_parse(k.swizzle + " o S[(64," + std::to_string(k.cols) + "):(" +
                                   std::to_string(k.cols) + ",1)]");
    EXPECT_EQ(positions_of(got.layout, {64, k.cols}), positions_of(want, {64, k.cols})) << k.width;
  }
}

TEST(FormatTriton, SharedLinearWithSwizzleBasesConverts) {
  // Swizzle<2,0,2> o S[(4,4):(4,1)]: offset bit 2 holds (1, 1): row 1 XORs column bit 0
  const Imported got =
      must_import(Format::kTriton,
                  "#ttg.shared_linear<{offset = [[0, 1], [0, 2], [1, 1], [2, 2]], block = []}, "
                  "alignment = 16>",
                  {{4, 4}, {}});
  EXPECT_EQ(positions_of(got.layout, {4, 4}),
            linear_oracle({{"m", {{0, 1}, {0, 2}, {1, 1}, {2, 2}}}}, {4, 4}));
  ASSERT_TRUE(got.layout.swizzle.has_value());
}

TEST(FormatTriton, NotExpressibleConstructsNameTheBasisColumn) {
  // a lane basis that XORs two logical coordinates
  const std::string xor_lane =
      "#ttg.linear<{register = [[0, 1]], lane = [[1, 1], [2, 0]], warp = [], block = []}>";
  Error e = must_fail(Format::kTriton, xor_lane, {{4, 2}, {}});
  EXPECT_EQ(e.column, column_of(xor_lane, "[1, 1]"));
  EXPECT_NE(e.message.find("not expressible"), std::string::npos) << e.message;
  // two bases on the same logical bit
  const std::string twice = "#ttg.linear<{register = [[1], [2]], lane = [[1]], warp = [], block = []}>";
  e = must_fail(Format::kTriton, twice, {{4}, {}});
  EXPECT_EQ(e.column, column_of(twice, "[1]]", column_of(twice, "lane")));
  // an offset XOR that is no swizzle: inverted, logical row 1 sits at offset 0b111, three bits, and a
  // Swizzle<B,M,S> of a stride moves each logical bit to at most two offset bits
  const std::string odd = "#ttg.shared_linear<{offset = [[0, 1], [0, 2], [1, 3]], block = []}>";
  e = must_fail(Format::kTriton, odd, {{2, 4}, {}});
  EXPECT_EQ(e.column, column_of(odd, "[1, 3]"));
  // non-power-of-two shapes cannot be linear layouts
  e = must_fail(
      Format::kTriton,
      "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>",
      {{12, 4}, {}});
  EXPECT_EQ(e.field, "shape");
  // a basis outside the shape
  const std::string outside = "#ttg.linear<{register = [[8]], lane = [], warp = [], block = []}>";
  e = must_fail(Format::kTriton, outside, {{2}, {}});
  EXPECT_EQ(e.column, column_of(outside, "[8]"));
}

TEST(FormatTriton, ExportRoundTripsRandomLinearLayouts) {
  std::mt19937 rng(7);
  const std::vector<std::string> axes{"reg", "laneid", "warpid"};
  for (int trial = 0; trial < 200; ++trial) {
    // a random 2-D power-of-two shape, its logical bits dealt to hardware bits, plus a few zero bases
    std::vector<int64_t> shape{int64_t{1} << (rng() % 4), int64_t{1} << (rng() % 4)};
    const int bits = __builtin_ctzll(static_cast<uint64_t>(shape[0] * shape[1]));
    std::vector<int> order(static_cast<size_t>(bits));
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<HwBases> hw{{"reg", {}}, {"laneid", {}}, {"warpid", {}}};
    for (int b : order) {
      std::vector<int64_t> basis{0, 0};
      const int low1 = __builtin_ctzll(static_cast<uint64_t>(shape[1]));
      if (b < low1)
        basis[1] = int64_t{1} << b;
      else
        basis[0] = int64_t{1} << (b - low1);
      hw[rng() % 3].bases.push_back(basis);
      if (rng() % 5 == 0) hw[rng() % 3].bases.push_back({0, 0});
    }
    auto list = [](const std::vector<std::vector<int64_t>>& bases) {
      std::string s = "[";
      for (size_t i = 0; i < bases.size(); ++i)
        s += (i ? ", [" : "[") + std::to_string(bases[i][0]) + ", " + std::to_string(bases[i][1]) + "]";
      return s + "]";
    };
    const std::string text = "#ttg.linear<{register = " + list(hw[0].bases) +
                             ", lane = " + list(hw[1].bases) + ", warp = " + list(hw[2].bases) +
                             ", block = []}>";
    const Imported got = must_import(Format::kTriton, text, {shape, {}});
    const Positions want = linear_oracle(hw, shape);
    ASSERT_EQ(positions_of(got.layout, shape), want) << text;
    const std::string back = must_export(Format::kTriton, got.layout, shape);
    const Imported again = must_import(Format::kTriton, back, {shape, {}});
    ASSERT_EQ(positions_of(again.layout, shape), want) << back;
  }
}

TEST(FormatTriton, ExportRoundTripsSwizzledSharedLayouts) {
  for (const char* text : {"Swizzle<3,3,3> o S[(64,64):(64,1)]", "Swizzle<2,4,3> o S[(16,64):(64,1)]",
                           "Swizzle<1,0,2> o S[(8,4):(1,8)]", "S[(8,8):(1,8)]",
                           "ComposeLayout(3, 3, 3, S[(8,64):(64,1)], swizzle_inner=False)",
                           "Swizzle<3,3,-1> o S[(8,128):(128,1)]", "Swizzle<3,2,1> o S[(4,64):(64,1)]"}) {
    const Layout l = must_parse(text);
    const std::vector<int64_t> shape{l.shard[0].extent, l.shard[1].extent};
    for (const auto& s : {shape, std::vector<int64_t>{shape[0] * shape[1]}}) {
      const std::string out = must_export(Format::kTriton, l, s);
      EXPECT_EQ(out.rfind("#ttg.shared_linear<{offset = ", 0), 0u) << out;
      const Imported back = must_import(Format::kTriton, out, {s, {}});
      EXPECT_EQ(positions_of(back.layout, s), positions_of(l, s)) << text << " -> " << out;
      // an overlapping swizzle (S < B) reads back in CuTe's spelling: TIRx's needs atom_len >= swizzle_len
      if (back.layout.swizzle)
        EXPECT_FALSE(check_swizzle(*back.layout.swizzle).has_value())
            << text << " -> " << to_string(back.layout);
    }
  }
}

TEST(FormatTriton, ExportRefusesWhatALinearLayoutCannotSay) {
  auto fails = [](const std::string& text, std::vector<int64_t> shape, const std::string& field) {
    auto r = export_layout(Format::kTriton, must_parse(text), shape, {});
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.error().field, field) << text << ": " << r.error().message;
  };
  fails("S[(3,4):(4@laneid,1@laneid)]", {3, 4}, "shape");
  fails("S[(4,4):(8@laneid,1@laneid)]", {4, 4}, "laneid");  // lane bits 2 unused
  fails("S[(4,4):(4@tx,1@laneid)]", {4, 4}, "tx");
  fails("S[8:1@laneid] + O[2@laneid]", {8}, "offset");
  fails("S[(4,8):(8,1@laneid)]", {4, 8}, "m");
  Layout partial = must_parse("S[8:1@laneid]");
  partial.partials.push_back({Mode{2, AxisStride{1, "warpid"}}});
  auto r = export_layout(Format::kTriton, partial, {8}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "partial");
}

// ---------------------------------------------------------------------------------------------------------
// Shardings: the oracle enumerates every device and the block of each dimension it holds.

struct Sharding {
  std::vector<std::pair<std::string, int64_t>> mesh;
  std::vector<int64_t> shape;
  std::vector<std::vector<size_t>> dims;  // per tensor dimension, mesh axes (indices), major first
};

// Per element: {mesh coordinate..., local offset} for every device holding it. flat_device: one "device"
// value (row-major over the mesh) instead of a coordinate per axis.
Positions sharding_oracle(const Sharding& s, bool flat_device) {
  const size_t rank = s.shape.size();
  std::vector<int64_t> local(rank);
  for (size_t d = 0; d < rank; ++d) {
    int64_t devices = 1;
    for (size_t a : s.dims[d]) devices *= s.mesh[a].second;
    local[d] = s.shape[d] / devices;
  }
  int64_t size = 1, mesh_size = 1;
  for (int64_t e : s.shape) size *= e;
  for (const auto& [n, e] : s.mesh) mesh_size *= e;
  Positions out(static_cast<size_t>(size));
  for (int64_t dev = 0; dev < mesh_size; ++dev) {
    std::vector<int64_t> coord(s.mesh.size());
    for (size_t a = s.mesh.size(), rest = static_cast<size_t>(dev); a-- > 0;) {
      coord[a] = static_cast<int64_t>(rest) % s.mesh[a].second;
      rest /= static_cast<size_t>(s.mesh[a].second);
    }
    // the block of each dimension this device holds: its coordinates over the dimension's axes, major first
    std::vector<int64_t> block(rank, 0);
    for (size_t d = 0; d < rank; ++d)
      for (size_t a : s.dims[d]) block[d] = block[d] * s.mesh[a].second + coord[a];
    for (int64_t x = 0; x < size; ++x) {
      std::vector<int64_t> idx(rank);
      for (size_t d = rank, rest = static_cast<size_t>(x); d-- > 0;) {
        idx[d] = static_cast<int64_t>(rest) % s.shape[d];
        rest /= static_cast<size_t>(s.shape[d]);
      }
      bool mine = true;
      int64_t offset = 0;
      for (size_t d = 0; d < rank; ++d) {
        mine = mine && idx[d] / local[d] == block[d];
        offset = offset * local[d] + idx[d] % local[d];
      }
      if (!mine) continue;
      Pos p;
      if (flat_device) {
        if (dev) p["device"] = dev;
      } else {
        for (size_t a = 0; a < s.mesh.size(); ++a)
          if (coord[a]) p[s.mesh[a].first] = coord[a];
      }
      if (offset) p["m"] = offset;
      out[static_cast<size_t>(x)].insert(p);
    }
  }
  return out;
}

std::vector<Sharding> random_shardings(int count, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<Sharding> out;
  const std::vector<std::string> names{"x", "y", "z"};
  while (static_cast<int>(out.size()) < count) {
    Sharding s;
    const size_t mesh_rank = 1 + rng() % 3;
    for (size_t a = 0; a < mesh_rank; ++a) s.mesh.emplace_back(names[a], 1 + static_cast<int64_t>(rng() % 4));
    const size_t rank = 1 + rng() % 3;
    s.dims.resize(rank);
    std::vector<size_t> axes(mesh_rank);
    std::iota(axes.begin(), axes.end(), 0);
    std::shuffle(axes.begin(), axes.end(), rng);
    for (size_t a : axes) {
      if (rng() % 4 == 0) continue;  // replicated
      s.dims[rng() % rank].push_back(a);
    }
    for (size_t d = 0; d < rank; ++d) {
      int64_t devices = 1;
      for (size_t a : s.dims[d]) devices *= s.mesh[a].second;
      s.shape.push_back(devices * (1 + static_cast<int64_t>(rng() % 3)));
    }
    out.push_back(s);
  }
  return out;
}

std::string jax_text(const Sharding& s) {
  std::string mesh = "{";
  for (size_t a = 0; a < s.mesh.size(); ++a)
    mesh += (a ? ", '" : "'") + s.mesh[a].first + "': " + std::to_string(s.mesh[a].second);
  std::string spec = "P(";
  for (size_t d = 0; d < s.dims.size(); ++d) {
    spec += d ? ", " : "";
    if (s.dims[d].empty()) {
      spec += "None";
    } else if (s.dims[d].size() == 1) {
      spec += "'" + s.mesh[s.dims[d][0]].first + "'";
    } else {
      spec += "(";
      for (size_t i = 0; i < s.dims[d].size(); ++i)
        spec += (i ? ", '" : "'") + s.mesh[s.dims[d][i]].first + "'";
      spec += ")";
    }
  }
  return mesh + "} " + spec + ")";
}

std::string shardy_text(const Sharding& s) {
  std::string mesh = "sdy.mesh @mesh = <[";
  for (size_t a = 0; a < s.mesh.size(); ++a)
    mesh += (a ? ", \"" : "\"") + s.mesh[a].first + "\"=" + std::to_string(s.mesh[a].second);
  std::string dims;
  for (size_t d = 0; d < s.dims.size(); ++d) {
    dims += d ? ", {" : "{";
    for (size_t i = 0; i < s.dims[d].size(); ++i)
      dims += (i ? ", \"" : "\"") + s.mesh[s.dims[d][i]].first + "\"";
    dims += "}";
  }
  return mesh + "]>\n#sdy.sharding<@mesh, [" + dims + "]>";
}

// DTensor: placements by mesh dimension. Mesh dimension i sharding tensor dimension d after axes that are
// major to it in the dimension but later in the mesh: _StridedShard with their product as split factor.
std::string dtensor_text(const Sharding& s) {
  std::string sizes, names, placements;
  for (size_t a = 0; a < s.mesh.size(); ++a) {
    sizes += (a ? ", " : "") + std::to_string(s.mesh[a].second);
    names += (a ? ", \"" : "\"") + s.mesh[a].first + "\"";
    std::string p = "Replicate()";
    for (size_t d = 0; d < s.dims.size(); ++d)
      for (size_t j = 0; j < s.dims[d].size(); ++j)
        if (s.dims[d][j] == a) {
          int64_t split = 1;
          for (size_t k = 0; k < j; ++k)
            if (s.dims[d][k] > a) split *= s.mesh[s.dims[d][k]].second;
          p = split == 1
                  ? "Shard(" + std::to_string(d) + ")"
                  : "_StridedShard(" + std::to_string(d) + ", split_factor=" + std::to_string(split) + ")";
        }
    placements += (a ? ", " : "") + p;
  }
  if (s.mesh.size() == 1) sizes += ",", names += ",";
  return "init_device_mesh(\"cuda\", (" + sizes + "), mesh_dim_names=(" + names + ")), [" + placements + "]";
}

// HLO: tile dims per tensor dimension plus one replicated dim for the axes no dimension names; the device
// list is the flat id of the device holding each tile, written out explicitly.
std::string hlo_text(const Sharding& s) {
  std::vector<size_t> free;
  for (size_t a = 0; a < s.mesh.size(); ++a) {
    bool used = false;
    for (const auto& d : s.dims) used = used || std::find(d.begin(), d.end(), a) != d.end();
    if (!used) free.push_back(a);
  }
  std::vector<std::vector<size_t>> groups = s.dims;
  if (!free.empty()) groups.push_back(free);
  std::vector<int64_t> tiles;
  for (const auto& g : groups) {
    int64_t t = 1;
    for (size_t a : g) t *= s.mesh[a].second;
    tiles.push_back(t);
  }
  int64_t total = 1;
  for (int64_t t : tiles) total *= t;
  std::string list;
  for (int64_t k = 0; k < total; ++k) {
    std::vector<int64_t> coord(s.mesh.size(), 0);
    int64_t rest = k;
    for (size_t g = groups.size(); g-- > 0;) {
      int64_t tile = rest % tiles[g];
      rest /= tiles[g];
      for (size_t i = groups[g].size(); i-- > 0;) {
        coord[groups[g][i]] = tile % s.mesh[groups[g][i]].second;
        tile /= s.mesh[groups[g][i]].second;
      }
    }
    int64_t dev = 0;
    for (size_t a = 0; a < s.mesh.size(); ++a) dev = dev * s.mesh[a].second + coord[a];
    list += (k ? "," : "") + std::to_string(dev);
  }
  std::string dims;
  for (size_t i = 0; i < tiles.size(); ++i) dims += (i ? "," : "") + std::to_string(tiles[i]);
  return "{devices=[" + dims + "]" + list + (free.empty() ? "" : " last_tile_dim_replicate") + "}";
}

TEST(FormatSharding, JaxWorkedExample) {
  const Imported got = must_import(Format::kJax, "P('x', None)", {{8, 4}, {{"x", 2}, {"y", 4}}});
  EXPECT_EQ(got.layout, must_parse("S[(2,4,4):(1@x,4@m,1@m)] + R[4:1@y]"));
  const Imported typed = must_import(Format::kJax, "float32[8@x,4]", {{}, {{"x", 2}, {"y", 4}}});
  EXPECT_EQ(typed.layout, got.layout);
  EXPECT_EQ(typed.shape, (std::vector<int64_t>{8, 4}));
  const Imported both =
      must_import(Format::kJax, "jax.make_mesh((2, 4), ('x', 'y')), P(('x', 'y'), None)", {{8, 4}, {}});
  EXPECT_EQ(both.layout, must_parse("S[(2,4,4):(1@x,1@y,1)]"));
  EXPECT_EQ(must_export(Format::kJax, got.layout, {8, 4}),
            "NamedSharding(jax.make_mesh((2, 4), ('x', 'y')), P('x', None))");
}

TEST(FormatSharding, FiftyShardingsAgreeWithTheDeviceEnumeration) {
  const auto cases = random_shardings(50, 11);
  for (const Sharding& s : cases) {
    const Positions by_axis = sharding_oracle(s, false);
    const FormatContext shape_only{s.shape, {}};
    const std::string jax = jax_text(s);
    const Imported j = must_import(Format::kJax, jax, shape_only);
    ASSERT_EQ(positions_of(j.layout, s.shape), by_axis) << jax;
    const std::string sdy = shardy_text(s);
    const Imported y = must_import(Format::kShardy, sdy, shape_only);
    ASSERT_EQ(positions_of(y.layout, s.shape), by_axis) << sdy;
    const std::string dt = dtensor_text(s);
    const Imported t = must_import(Format::kDtensor, dt, shape_only);
    ASSERT_EQ(positions_of(t.layout, s.shape), by_axis) << dt;
    const std::string hlo = hlo_text(s);
    const Imported h = must_import(Format::kHlo, hlo, shape_only);
    ASSERT_EQ(positions_of(h.layout, s.shape), sharding_oracle(s, true)) << hlo;
  }
}

TEST(FormatSharding, ExportsRoundTrip) {
  for (const Sharding& s : random_shardings(60, 23)) {
    const FormatContext shape_only{s.shape, {}};
    const Imported j = must_import(Format::kJax, jax_text(s), shape_only);
    const Positions want = positions_of(j.layout, s.shape);
    const FormatContext with_mesh{s.shape, s.mesh};
    const std::string jax = must_export(Format::kJax, j.layout, s.shape, with_mesh);
    ASSERT_EQ(positions_of(must_import(Format::kJax, jax, shape_only).layout, s.shape), want) << jax;
    const std::string dt = must_export(Format::kDtensor, j.layout, s.shape, with_mesh);
    ASSERT_EQ(positions_of(must_import(Format::kDtensor, dt, shape_only).layout, s.shape), want) << dt;
  }
}

TEST(FormatSharding, HloIotaTransposeAndSpecialForms) {
  // <=[2,2]T(1,0) lists devices 0,2,1,3: tile (i, j) -> device 2j + i
  const Imported t = must_import(Format::kHlo, "{devices=[2,2]<=[2,2]T(1,0)}", {{4, 4}, {}});
  EXPECT_EQ(t.layout, must_parse("S[(2,2,2,2):(1@device,2@m,2@device,1@m)]"));
  const Imported r =
      must_import(Format::kHlo, "{devices=[2,1,2]<=[4] last_tile_dim_replicate}", {{8, 4}, {}});
  EXPECT_EQ(r.layout, must_parse("S[(2,4,4):(2@device,4@m,1@m)] + R[2:1@device]"));
  const Imported line =
      must_import(Format::kHlo, "%p0 = f32[8,4]{1,0} parameter(0), sharding={devices=[4,1]0,1,2,3}");
  EXPECT_EQ(line.shape, (std::vector<int64_t>{8, 4}));
  EXPECT_EQ(line.layout, must_parse("S[(4,2,4):(1@device,4@m,1@m)]"));
  const Imported rep = must_import(Format::kHlo, "{replicated}", {{4}, {{"x", 4}}});
  EXPECT_EQ(rep.layout, must_parse("S[4:1] + R[4:1@device]"));
  const Imported max = must_import(Format::kHlo, "{maximal device=3}", {{4}, {}});
  EXPECT_EQ(max.layout, must_parse("S[4:1] + O[3@device]"));
}

TEST(FormatSharding, DtensorPartialAndStridedShard) {
  const std::string mesh = "init_device_mesh(\"cuda\", (2, 4), mesh_dim_names=(\"dp\", \"tp\")), ";
  const Imported p = must_import(Format::kDtensor, mesh + "[Partial(\"sum\"), Shard(1)]", {{8, 4}, {}});
  EXPECT_EQ(p.layout.shard, must_parse("S[(8,4):(1,1@tp)]").shard);
  EXPECT_TRUE(p.layout.replicas.empty());
  ASSERT_EQ(p.layout.partials.size(), 1u);
  EXPECT_EQ(p.layout.partials[0], (std::vector<Mode>{Mode{2, AxisStride{1, "dp"}}}));
  const std::string back = must_export(Format::kDtensor, p.layout, {8, 4}, {{8, 4}, {{"dp", 2}, {"tp", 4}}});
  EXPECT_EQ(back, mesh + "[Partial(\"sum\"), Shard(1)]");
  // dimension 0 of 16: cut into 4 pieces by tp first, each piece over dp: (4 over tp, 2 over dp, 2 local)
  const Imported s =
      must_import(Format::kDtensor, mesh + "[_StridedShard(0, split_factor=4), Shard(0)]", {{16}, {}});
  EXPECT_EQ(s.layout, must_parse("S[(4,2,2):(1@tp,1@dp,1)]"));
  // partials cannot go to formats without them
  for (Format f : {Format::kJax, Format::kTriton, Format::kTirx}) {
    auto r = export_layout(f, p.layout, {8, 4}, {});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().field, "partial") << to_string(f);
  }
  // a reduce op other than sum is no P[...]
  const std::string avg = mesh + "[Partial(\"avg\"), Shard(1)]";
  EXPECT_EQ(must_fail(Format::kDtensor, avg, {{8, 4}, {}}).column, column_of(avg, "\"avg\""));
}

TEST(FormatSharding, PrintedFormsOfJaxAndDtensor) {
  // what print(x.sharding) and print(dtensor) show
  const Imported j = must_import(Format::kJax,
                                 "NamedSharding(mesh=Mesh('x': 2, 'y': 4, axis_types=(Auto, Auto)), "
                                 "spec=PartitionSpec('x', None), memory_kind=device)",
                                 {{8, 4}, {}});
  EXPECT_EQ(j.layout, must_parse("S[(2,4,4):(1@x,4@m,1@m)] + R[4:1@y]"));
  const Imported d =
      must_import(Format::kDtensor,
                  "DTensor(local_tensor=tensor([[0., 1.], [2., 3.]]), device_mesh=DeviceMesh('cuda', "
                  "[[0, 1, 2, 3], [4, 5, 6, 7]], mesh_dim_names=('dp', 'tp')), placements=(Shard(dim=0), "
                  "Replicate()))",
                  {{8, 4}, {}});
  EXPECT_EQ(d.layout, must_parse("S[(2,4,4):(1@dp,4@m,1@m)] + R[4:1@tp]"));
  const std::string odd =
      "DeviceMesh('cuda', [[0, 2], [1, 3]], mesh_dim_names=('a', 'b')), [Shard(0), Shard(1)]";
  EXPECT_EQ(must_fail(Format::kDtensor, odd, {{4, 4}, {}}).column, column_of(odd, "2]"));
}

TEST(FormatSharding, ErrorsPointAtTheConstruct) {
  const FormatContext ctx{{6, 4}, {{"x", 4}, {"y", 2}}};
  const std::string jax = "P('x', None)";
  Error e = must_fail(Format::kJax, jax, ctx);
  EXPECT_EQ(e.column, column_of(jax, "'x'"));
  EXPECT_EQ(e.field, "dimension 0");
  e = must_fail(Format::kJax, "P('q')", ctx);
  EXPECT_EQ(e.column, 3);
  e = must_fail(Format::kJax, "P('x', 'x')", {{8, 8}, {{"x", 2}}});
  EXPECT_EQ(e.column, 8);
  const std::string dt = "init_device_mesh(\"cuda\", (4,), mesh_dim_names=(\"x\",)), [Shard(0)]";
  e = must_fail(Format::kDtensor, dt, {{6}, {}});
  EXPECT_EQ(e.column, column_of(dt, "Shard"));
  EXPECT_NE(e.message.find("uneven"), std::string::npos);
  const std::string hlo = "{devices=[4]0,3,1,2}";
  e = must_fail(Format::kHlo, hlo, {{8}, {}});
  EXPECT_EQ(e.column, column_of(hlo, "1,2"));
  e = must_fail(Format::kHlo, "{devices=[4]<=[4]}", {{6}, {}});
  EXPECT_EQ(e.field, "dimension 0");
  const std::string sub = "sdy.mesh @mesh = <[\"x\"=4]> #sdy.sharding<@mesh, [{\"x\":(1)2}]>";
  e = must_fail(Format::kShardy, sub, {{8}, {}});
  EXPECT_EQ(e.column, column_of(sub, ":(1)"));
  const std::string ids = "sdy.mesh @mesh = <[\"x\"=2], device_ids=[1,0]> #sdy.sharding<@mesh, [{\"x\"}]>";
  e = must_fail(Format::kShardy, ids, {{8}, {}});
  EXPECT_EQ(e.column, column_of(ids, "1,0"));
  // a cyclic sharding (device axis minor to the local elements) is no JAX/DTensor spec
  auto r = export_layout(Format::kJax, must_parse("S[(4,2):(1,1@x)]"), {8}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "dimension 0");
}

// Any text holding two shardings is refused by every importer that has a spec of one value: JAX (a second
// PartitionSpec) and HLO (a second sharding, here an operand's after the instruction's), at the second one.
TEST(FormatSharding, ASecondShardingIsRefused) {
  const std::string hlo = "%p = f32[8]{0} parameter(0), sharding={devices=[4]<=[4]}, x={replicated}";
  Error e = must_fail(Format::kHlo, hlo, {});
  EXPECT_EQ(e.field, "sharding");
  EXPECT_EQ(e.column, column_of(hlo, "{replicated}"));
  e = must_fail(Format::kHlo, "{devices=[2]0,1} {devices=[2]1,0}", {{8}, {}});
  EXPECT_EQ(e.column, 18);
  e = must_fail(Format::kJax, "P('x') P(None)", {{8}, {{"x", 2}}});
  EXPECT_NE(e.message.find("second"), std::string::npos);
}

// A size-1 partial term over a size-1 mesh dimension keeps its term through DTensor: exported as
// Partial("sum") (one value summed is itself), imported back as the same P[1:1@r].
TEST(FormatSharding, DtensorSizeOnePartialRoundTrips) {
  const Layout l = must_parse("S[(2,8):(1@x,1)] + P[1:1@r]");
  const FormatContext ctx{{16}, {{"x", 2}, {"r", 1}}};
  const std::string text = must_export(Format::kDtensor, l, {16}, ctx);
  EXPECT_NE(text.find("Partial(\"sum\")"), std::string::npos) << text;
  const Imported back = must_import(Format::kDtensor, text, {{16}, {}});
  ASSERT_EQ(back.layout.partials.size(), 1u) << to_string(back.layout);
  EXPECT_EQ(back.layout.partials[0], (std::vector<Mode>{Mode{1, AxisStride{1, "r"}}}));
}

// The JAX and DTensor exporters' self-check compares canonical forms, never elements. Each answer worked by
// hand from the notation's semantics.
TEST(FormatSharding, SelfCheckComparesCanonicalForms) {
  using formats_detail::same_sharding;
  auto same = [](const char* a, const char* b, std::vector<int64_t> shape) {
    return same_sharding(must_parse(a), must_parse(b), shape);
  };
  // 4 local elements all at offset 0 (broadcast) are not offsets 0..3
  EXPECT_FALSE(same("S[(2,4):(1@x,0)] + P[8:1@z]", "S[(2,4):(1@x,1)] + P[8:1@z]", {8}));
  // two stride-0 modes add 0 whatever their axes: one broadcast of 4
  EXPECT_TRUE(same("S[(2,2,2):(1@x,0@y,0)]", "S[(2,4):(1@x,0)]", {8}));
  // (2,4):(4,1) is 8:1; on shape 2x4 both cut into 2:4 and 4:1
  EXPECT_TRUE(same("S[(2,4,2):(1@x,2,1)]", "S[(2,8):(1@x,1)]", {16}));
  EXPECT_FALSE(same("S[(2,4,2):(1@x,1,4)]", "S[(2,8):(1@x,1)]", {16}));
  // a partial term of one holder is a term; one term of 4 holders is not two terms of 2
  EXPECT_FALSE(same("S[8:1] + P[1:1@z]", "S[8:1]", {8}));
  EXPECT_TRUE(same("S[8:1] + P[1:1@z]", "S[8:1] + P[1:1@p]", {8}));
  EXPECT_FALSE(same("S[8:1] + P[(2,2):(1@x,1@y)]", "S[8:1] + P[2:1@x] + P[2:1@y]", {8}));
  EXPECT_TRUE(same("S[8:1] + P[2:1@y] + P[2:1@x]", "S[8:1] + P[2:1@x] + P[2:1@y]", {8}));
  EXPECT_TRUE(same("S[8:1] + P[(2,2):(2@x,1@x)]", "S[8:1] + P[4:1@x]", {8}));
  // replicas: the order of the R terms does not matter, a copy at stride 0 lands on the same spot
  EXPECT_TRUE(same("S[8:1] + R[2:1@x] + R[4:1@y]", "S[8:1] + R[(4,2):(1@y,1@x)]", {8}));
  EXPECT_TRUE(same("S[8:1] + R[2:0@x]", "S[8:1]", {8}));
  EXPECT_FALSE(same("S[8:1] + R[2:1@x]", "S[8:1]", {8}));
  // 2 x 1024 x 1024 elements, row-major against column-major local pieces: decided without a table
  EXPECT_FALSE(same("S[(2,1024,1024):(1@x,1024,1)]", "S[(2,1024,1024):(1@x,1,1024)]", {2048, 1024}));
  EXPECT_TRUE(
      same("S[(2,1024,1024):(1@x,1024,1)] + R[4:1@y]", "S[(2,1048576):(1@x,1)] + R[4:1@y]", {2048, 1024}));
}

// One P term is one pending sum, one Partial() on one mesh dimension; a term of one holder is still pending
// (DTensor keeps Partial() on a mesh dimension of size 1, the notation keeps P[1:...]) and is never dropped.
// Worked by hand: P[1:1@p] beside S[(2,4):(1@z,1)] makes the mesh z = 2 (the shard's span), p = 1 (the term's
// span), the placements Shard(0) on z and Partial() on p. P[1:1@z] has no mesh dimension of size 1 (z is 2).
TEST(FormatSharding, DtensorPartialTermsAreOnePartialEach) {
  const Layout own = must_parse("S[(2,4):(1@z,1)] + P[1:1@p]");
  const std::string text = must_export(Format::kDtensor, own, {8});
  EXPECT_EQ(
      text,
      "init_device_mesh(\"cuda\", (2, 1), mesh_dim_names=(\"z\", \"p\")), [Shard(0), Partial(\"sum\")]");
  EXPECT_EQ(must_import(Format::kDtensor, text, {{8}, {}}).layout, own);
  auto r = export_layout(Format::kDtensor, must_parse("S[(2,4):(1@z,1)] + P[1:1@z]"), {8}, {});
  ASSERT_FALSE(r.ok()) << *r;
  EXPECT_EQ(r.error().field, "partial");
  EXPECT_NE(r.error().message.find("P[1:1@z] has one holder"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("mesh dimension z has size 2"), std::string::npos) << r.error().message;
  // one term of 4 holders over x and y is one sum; [Partial(), Partial()] would be two terms of 2
  r = export_layout(Format::kDtensor, must_parse("S[8:1] + P[(2,2):(1@x,1@y)]"), {8}, {});
  ASSERT_FALSE(r.ok()) << *r;
  EXPECT_NE(r.error().message.find("spans mesh dimensions x and y"), std::string::npos) << r.error().message;
  EXPECT_EQ(must_export(Format::kDtensor, must_parse("S[8:1] + P[2:1@x] + P[2:1@y]"), {8}),
            "init_device_mesh(\"cuda\", (2, 2), mesh_dim_names=(\"x\", \"y\")), [Partial(\"sum\"), "
            "Partial(\"sum\")]");
  // (2,2):(2@x,1@x) is the 4 holders 0..3 on x: one mesh dimension of 4
  EXPECT_EQ(must_export(Format::kDtensor, must_parse("S[8:1] + P[(2,2):(2@x,1@x)]"), {8}),
            "init_device_mesh(\"cuda\", (4,), mesh_dim_names=(\"x\",)), [Partial(\"sum\")]");
}

// A placements text says how the tensor is cut over the mesh, never how a device lays out its piece: the
// importers make every local tensor row-major and contiguous. A layout whose local memory is anything else
// (a broadcast stride 0, a gap, a column-major piece) is refused, naming the local layout it has and the one
// the text would mean. Worked by hand: S[(2,4):(1@x,0)] on 8 gives each x coordinate 4 elements, all at local
// offset 0 (4:0); the text [Shard(0)] means offsets 0..3 (4:1).
TEST(FormatSharding, PlacementsRefuseALocalLayoutThatIsNotContiguous) {
  auto refused = [](Format f, const std::string& text, std::vector<int64_t> shape) {
    auto r = export_layout(f, must_parse(text), shape, {});
    EXPECT_FALSE(r.ok()) << text << " exported as " << (r.ok() ? *r : "");
    return r.ok() ? Error{} : r.error();
  };
  Error e = refused(Format::kDtensor, "S[(2,4):(1@x,0)] + P[8:1@z]", {8});
  EXPECT_EQ(e.field, "local");
  EXPECT_NE(e.message.find("local layout 4:0 is not the row-major contiguous 4:1"), std::string::npos)
      << e.message;
  // every second local slot: 4 elements at offsets 0, 2, 4, 6
  e = refused(Format::kDtensor, "S[(1,4):(1@x,2)] + P[2:1@Pz] + P[3:1@z]", {4});
  EXPECT_NE(e.message.find("4:2 is not the row-major contiguous 4:1"), std::string::npos) << e.message;
  e = refused(Format::kJax, "S[(2,4):(1@x,2)]", {8});
  EXPECT_EQ(e.field, "local");
  EXPECT_NE(e.message.find("JAX"), std::string::npos) << e.message;
  // 8x4 over x = 2: each device holds a 4x4 piece, here column-major (row stride 1, column stride 4); the
  // row-major piece has row stride 4, column stride 1
  e = refused(Format::kDtensor, "S[(2,4,4):(1@x,1,4)]", {8, 4});
  EXPECT_NE(e.message.find("(4,4):(1,4) is not the row-major contiguous (4,4):(4,1) (dimension 0)"),
            std::string::npos)
      << e.message;
  EXPECT_EQ(must_export(Format::kDtensor, must_parse("S[(2,4,4):(1@x,4,1)]"), {8, 4}),
            "init_device_mesh(\"cuda\", (2,), mesh_dim_names=(\"x\",)), [Shard(0)]");
  EXPECT_EQ(must_export(Format::kJax, must_parse("S[(2,4,4):(1@x,4,1)]"), {8, 4}),
            "NamedSharding(jax.make_mesh((2,), ('x',)), P('x', None))");
}

TEST(FormatSharding, ShardyOpenDimensionsReplicatedAndUnreduced) {
  const Imported got =
      must_import(Format::kShardy,
                  "sdy.mesh @mesh = <[\"x\"=4, \"y\"=2, \"z\"=2]>\n"
                  "%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\", ?}, {?}], "
                  "replicated={\"y\"}, unreduced={\"z\"}>}");
  EXPECT_EQ(got.shape, (std::vector<int64_t>{8, 8}));
  const Layout want = must_parse("S[(4,2,8):(1@x,8@m,1@m)] + R[2:1@y]");
  EXPECT_EQ(got.layout.shard, want.shard);
  EXPECT_EQ(got.layout.replicas, want.replicas);
  ASSERT_EQ(got.layout.partials.size(), 1u);
  EXPECT_EQ(got.layout.partials[0][0].stride.axis, "z");
  EXPECT_EQ(got.notes.size(), 2u);  // two open dimensions
}

// ---------------------------------------------------------------------------------------------------------

TEST(FormatTirx, PrintedFormsRoundTrip) {
  std::mt19937 rng(3);
  const std::vector<std::string> axes{"m", "laneid", "reg", "TLane"};
  for (int trial = 0; trial < 100; ++trial) {
    Layout l;
    for (int i = 0, n = 1 + static_cast<int>(rng() % 3); i < n; ++i)
      l.shard.push_back(Mode{1 + static_cast<int64_t>(rng() % 4),
                             AxisStride{static_cast<int64_t>(rng() % 9), axes[rng() % 4]}});
    if (rng() % 2)
      l.replicas.push_back({Mode{2, AxisStride{static_cast<int64_t>(1 + rng() % 4), axes[rng() % 4]}}});
    if (rng() % 3 == 0)
      l.offset.push_back(AxisStride{static_cast<int64_t>(1 + rng() % 5), axes[1 + rng() % 3]});
    if (rng() % 3 == 0) l.swizzle = Swizzle{2, 1, 2, rng() % 2 == 0, SwizzleSpelling::kTirx};
    auto shape = default_shape(l);
    ASSERT_TRUE(shape.ok());
    const std::string text = must_export(Format::kTirx, l, *shape);
    EXPECT_EQ(text.find(l.swizzle ? "ComposeLayout(" : "TileLayout("), 0u) << text;
    const Imported back = must_import(Format::kTirx, text);
    EXPECT_EQ(positions_of(back.layout, *shape), positions_of(l, *shape)) << text;
  }
  EXPECT_EQ(must_export(Format::kTirx, must_parse("S[(8,4):(4@laneid,1@laneid)] + R[4:32@TLane]"), {32}),
            "TileLayout(S[(8, 4) : (4@laneid, 1@laneid)] + R[4 : 32@TLane])");
  EXPECT_EQ(must_export(Format::kTirx, must_parse("Swizzle<3,4,3> o S[(8,64):(64,1)]"), {8, 64}),
            "ComposeLayout(4, 3, 3, TileLayout(S[(8, 64) : (64, 1)]))");
  const Imported t = must_import(Format::kTirx, "T.TileLayout(T.S[(8, 4) : (4@laneid, 1@laneid)])");
  EXPECT_EQ(t.layout, must_parse("S[(8,4):(4@laneid,1@laneid)]"));
}

// The CuTe export and import keep to one bound: a layout's size and cosize fit a signed 64-bit integer.
// Worked by hand for S[(9,124):(s,1)] on 1116 elements (CuTe (124,9):(1,s)): cosize = 123 * 1 + 8 * s + 1, at
// most 2^63 - 1 = 9223372036854775807 for s <= 1152921504606846960 (8 s + 124 = 9223372036854775804); s + 1
// gives 9223372036854775812, past it. The fuzzed s = 7555555555555555564 is far past it.
TEST(FormatCute, ExportAndImportAgreeOnTheSixtyFourBitBound) {
  const std::string within = "cute.make_layout((124,9), stride=(1,1152921504606846960))";
  EXPECT_EQ(must_export(Format::kCuteDsl, must_parse("S[(9,124):(1152921504606846960,1)]"), {1116}), within);
  EXPECT_EQ(must_import(Format::kCuteDsl, within, {{1116}, {}}).layout,
            must_parse("S[(9,124):(1152921504606846960,1)]"));
  for (const char* stride : {"1152921504606846961", "7555555555555555564"}) {
    const Layout beyond = must_parse(std::string("S[(9,124):(") + stride + ",1)]");
    for (Format f : {Format::kCuteDsl, Format::kCute}) {
      auto r = export_layout(f, beyond, {1116}, {});
      ASSERT_FALSE(r.ok()) << *r;
      EXPECT_EQ(r.error().field, "stride");
      EXPECT_NE(r.error().message.find("cosize"), std::string::npos) << r.error().message;
      EXPECT_NE(r.error().message.find("2^63 - 1"), std::string::npos) << r.error().message;
    }
    const std::string text = std::string("cute.make_layout((124,9), stride=(1,") + stride + "))";
    const Error e = must_fail(Format::kCuteDsl, text, {{1116}, {}});
    EXPECT_NE(e.message.find("cosize"), std::string::npos) << e.message;
    EXPECT_NE(e.message.find("2^63 - 1"), std::string::npos) << e.message;
  }
}

// CuTe's rank-0 layout (shape (), stride ()) is one element at offset 0, the function of 1:0 (CuTe's coalesce
// of
// () is 1:0): it imports as S[1:0] on shape (1); the notation has no S[...] of no modes (S[():()] did not
// parse back, so no export of it imported). A () nested inside a mode is a mode of size 1.
TEST(FormatCute, ARankZeroLayoutIsOneElement) {
  const Imported bare = must_import(Format::kCute, "():()", {});
  EXPECT_EQ(bare.layout, must_parse("S[1:0]"));
  EXPECT_EQ(bare.shape, (std::vector<int64_t>{1}));
  EXPECT_TRUE(parse_layout(to_string(bare.layout)).ok());
  EXPECT_EQ(must_import(Format::kCuteDsl, "cute.make_layout(())", {}).layout, must_parse("S[1:0]"));
  EXPECT_EQ(must_import(Format::kCute, "((),4):((),1)", {}).layout, must_parse("S[4:1]"));
  // every export of it reads back as the same one element
  for (Format to : {Format::kTriton, Format::kCute, Format::kCuteDsl}) {
    auto text = export_layout(to, bare.layout, bare.shape, {});
    ASSERT_TRUE(text.ok()) << to_string(to) << ": " << text.error().message;
    auto back = import_layout(to, *text, FormatContext{bare.shape, {}});
    ASSERT_TRUE(back.ok()) << to_string(to) << ": " << *text << ": " << back.error().message;
  }
}

TEST(Format, NamesDispatchAndDetection) {
  for (Format f : all_formats()) {
    auto back = parse_format(to_string(f));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, f);
  }
  auto bad = parse_format("xla");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().field, "format");
  // CuTe (2,3):(3,1) is row-major 2x3 (first mode fastest, strides 3 and 1): S[(2,3):(3,1)] on shape 2x3.
  auto cute = import_layout(Format::kCute, "(2,3):(3,1)", {});
  ASSERT_TRUE(cute.ok()) << cute.error().message;
  EXPECT_EQ(cute->shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(to_string(cute->layout), "S[(2,3):(3,1)]");
  EXPECT_EQ(detect_format("#ttg.linear<{register = []}>"), Format::kTriton);
  EXPECT_EQ(detect_format("#sdy.sharding<@mesh, [{\"x\"}]>"), Format::kShardy);
  EXPECT_EQ(detect_format("{devices=[2,1]0,1}"), Format::kHlo);
  EXPECT_EQ(detect_format("[Shard(0), Replicate()]"), Format::kDtensor);
  EXPECT_EQ(detect_format("P('x', None)"), Format::kJax);
  EXPECT_EQ(detect_format("float32[8@x,4]"), Format::kJax);
  EXPECT_EQ(detect_format("TileLayout(S[8:1])"), Format::kTirx);
  EXPECT_EQ(detect_format("(_2,_3):(_3,_1)"), Format::kCute);
  EXPECT_EQ(detect_format("cute.make_layout((4,8), stride=(8,1))"), Format::kCuteDsl);
  EXPECT_EQ(detect_format("S[(8,4):(4@laneid,1@laneid)]"), Format::kAxe);
  const Imported axe = must_import(Format::kAxe, "S[(8,4):(4,1)]", {{8, 4}, {}});
  EXPECT_EQ(axe.shape, (std::vector<int64_t>{8, 4}));
}

TEST(Format, GarbageNeverCrashesAndErrorsHaveAColumn) {
  std::mt19937 rng(5);
  const std::string alphabet = "#ttg.linear<{}>[](),=:'\"@PSxy0123456789 ?devices<=T_-";
  for (int trial = 0; trial < 3000; ++trial) {
    std::string text;
    for (int i = 0, n = static_cast<int>(rng() % 40); i < n; ++i) text += alphabet[rng() % alphabet.size()];
    for (Format f : all_formats()) {
      auto r = import_layout(f, text, {{8, 4}, {{"x", 2}, {"y", 2}}});
      if (!r.ok() && f != Format::kCute && f != Format::kCuteDsl && r.error().field != "shape") {
        EXPECT_GE(r.error().column, 1) << to_string(f) << ": " << text << ": " << r.error().message;
      }
    }
  }
}

// Valid texts of every format, mutated a character at a time: whatever imports must map, and whatever then
// exports must import back to the same positions (the fuzz target's property, run here on every build).
TEST(Format, MutatedTextsImportExportAndImportBack) {
  const std::vector<std::pair<Format, std::string>> seeds{
      {Format::kTriton,
       "#ttg.linear<{register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = "
       "[], "
       "block = []}>"},
      {Format::kTriton,
       "#ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [2, 1], order = [1, "
       "0]}>"},
      {Format::kTriton, "#ttg.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1, 0]}>"},
      {Format::kTriton, "#ttg.shared_linear<{offset = [[0, 1], [0, 2], [1, 1], [2, 2]], block = []}>"},
      {Format::kTirx, "ComposeLayout(1, 2, 2, TileLayout(S[(8, 4) : (4, 1)] + R[2 : 1@warpid] + 3@laneid))"},
      {Format::kJax, "{'x': 2, 'y': 4} P(('y', 'x'), None)"},
      {Format::kJax, "float32[8@x,4@y]"},
      {Format::kShardy,
       "sdy.mesh @mesh = <[\"x\"=2, \"y\"=4]> #sdy.sharding<@mesh, [{\"y\"}, {?}], replicated={\"x\"}>"},
      {Format::kHlo, "{devices=[2,2,2]<=[2,2,2]T(2,0,1) last_tile_dim_replicate}"},
      {Format::kHlo, "{devices=[2,4]0,2,4,6,1,3,5,7}"},
      {Format::kDtensor,
       "init_device_mesh(\"cuda\", (2, 4), mesh_dim_names=(\"dp\", \"tp\")), [_StridedShard(0, "
       "split_factor=4), "
       "Shard(0)]"},
      {Format::kDtensor, "[Partial(\"sum\"), Shard(1)]"}};
  std::mt19937 rng(9);
  const std::string chars = "0123456789[](){}<>,=:'\"@xy?T_- ";
  int imported = 0, exported = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const auto& [format, seed] = seeds[static_cast<size_t>(trial) % seeds.size()];
    std::string text = seed;
    for (int k = 0, n = static_cast<int>(rng() % 3); k < n && !text.empty(); ++k) {
      const size_t at = rng() % text.size();
      switch (rng() % 3) {
        case 0:
          text[at] = chars[rng() % chars.size()];
          break;
        case 1:
          text.erase(at, 1);
          break;
        default:
          text.insert(at, 1, chars[rng() % chars.size()]);
      }
    }
    const FormatContext context{{8, 4}, {{"x", 2}, {"y", 4}}};
    auto r = import_layout(format, text, trial % 2 ? context : FormatContext{{8, 4}, {}});
    if (!r.ok()) continue;
    ++imported;
    auto t = table(r->layout, r->shape, 1 << 16);
    if (!t.ok()) continue;
    const Positions want = positions_of(r->layout, r->shape);
    for (Format to : {Format::kTriton, Format::kTirx, Format::kJax, Format::kDtensor}) {
      auto out = export_layout(to, r->layout, r->shape, trial % 2 ? context : FormatContext{});
      if (!out.ok()) continue;
      ++exported;
      auto back = import_layout(to, *out, {r->shape, {}});
      ASSERT_TRUE(back.ok()) << text << " -> " << *out << ": " << back.error().message;
      ASSERT_EQ(positions_of(back->layout, r->shape), want) << text << " -> " << *out;
      ASSERT_EQ(back->layout.partials, r->layout.partials) << text << " -> " << *out;
    }
  }
  EXPECT_GT(imported, 500);
  EXPECT_GT(exported, 500);
}

}  // namespace
}  // namespace layoutscope
