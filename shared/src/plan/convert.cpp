#include "layoutscope/plan/convert.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <functional>
#include <numeric>
#include <optional>

#include "layoutscope/checked.hpp"
#include "layoutscope/memory_access.hpp"
#include "layoutscope/parse.hpp"

namespace layoutscope {
namespace {

constexpr int kVectorBytes = 16;  // the widest global and shared access of one lane
constexpr int kThreads = 256;
// Records: source rows of at most kRecordBytes along the tile. Their tiles stage kRecordTileBytes (64
// threads where a register block moves 16 B, many blocks per SM), where a tile of the full area (16-32 KiB,
// 256 threads) ran 3-6 % slower on an H200: AoS -> SoA of 8 fields, f32 0.918 -> 0.948, bf16 0.890 -> 0.935,
// u8 0.914 -> 0.972 of a float4 copy (docs/results/h200-convert.md).
constexpr int64_t kRecordBytes = 32;
constexpr int64_t kRecordTileBytes = 4096;
// Tiles a tiled plan should have at least: two blocks for each of an H200's 132 SMs. Tensors of a few MB
// split into tiles of the full area leave SMs idle (the 2.2 MB of a rank-5 u8 reversal made 76 tiles of
// 256 x 128), so their tiles shrink until there are this many.
constexpr int64_t kFillBlocks = 2 * 132;

struct Strided {
  int64_t extent;
  int64_t stride;
};

// The layout as plain (extent, stride) modes on @m, or the reason it is not one; its offset on @m and its
// swizzle, which the plan applies to each side's element offsets.
Result<std::vector<Strided>> strided_modes(const Layout& layout, const std::string& field, int64_t& offset,
                                           Swizzle& swizzle) {
  auto refuse = [&](const std::string& what) {
    return make_error(field + " layout: " + what + "; a conversion needs a shard on @m alone", 0, field);
  };
  if (!layout.replicas.empty()) return refuse("it has replicas (R[...]): an element would be written twice");
  if (!layout.partials.empty()) return refuse("it holds partial sums (P[...]): reduce them first");
  offset = 0;
  swizzle = Swizzle{};
  if (layout.swizzle) {
    if (auto e = check_swizzle(*layout.swizzle))
      return make_error(field + " layout: " + e->message, 0, field);
    swizzle = *layout.swizzle;
  }
  for (const AxisStride& o : layout.offset) {
    if (o.k == 0) continue;
    if (o.axis != kMemoryAxis) return refuse("it has an offset on " + o.axis + " (" + to_string(o) + ")");
    if (o.k < 0) return refuse("its offset " + to_string(o) + " is negative");
    offset += o.k;
  }
  std::vector<Strided> modes;
  for (const Mode& m : layout.shard) {
    if (m.stride.axis != kMemoryAxis) return refuse("mode stride " + to_string(m.stride) + " is not on @m");
    if (m.stride.k < 0) return refuse("mode stride " + to_string(m.stride) + " is negative");
    modes.push_back({m.extent, m.stride.k});
  }
  return modes;
}

// The lowest bit a swizzle changes (an access of 2^that elements, so aligned, stays whole), and the bits it
// changes.
int swizzle_low_bit(const Swizzle& s) { return s.inner ? s.base : s.base + s.shift; }
int64_t swizzle_changed_mask(const Swizzle& s) {
  return s.bits <= 0 ? 0 : ((int64_t{1} << s.bits) - 1) << swizzle_low_bit(s);
}

// Suffix products of the extents: P[i] = e[i] * ... * e[n-1], P[n] = 1 (mode i holds the digit (x / P[i+1]) %
// e[i]).
std::vector<int64_t> suffix_products(const std::vector<Strided>& modes) {
  std::vector<int64_t> p(modes.size() + 1, 1);
  for (size_t i = modes.size(); i-- > 0;) p[i] = p[i + 1] * modes[i].extent;
  return p;
}

// Stride of the refined piece [lo, hi) of the flat index in a layout whose mode i covers [P[i+1], P[i]).
int64_t piece_stride(const std::vector<Strided>& modes, const std::vector<int64_t>& p, int64_t lo,
                     int64_t hi) {
  for (size_t i = 0; i < modes.size(); ++i) {
    if (p[i + 1] <= lo && hi <= p[i] && p[i] > p[i + 1]) return modes[i].stride * (lo / p[i + 1]);
  }
  return 0;  // unreachable for a refinement of both layouts
}

int log2_exact(int64_t v) { return std::countr_zero(static_cast<uint64_t>(v)); }

// The largest power of two <= limit that divides every value.
int largest_common_pow2(int limit, std::initializer_list<int64_t> must_divide,
                        const std::vector<int64_t>& also) {
  int v = limit;
  auto ok = [&](int c) {
    for (int64_t x : must_divide) {
      if (x % c != 0) return false;
    }
    for (int64_t x : also) {
      if (x % c != 0) return false;
    }
    return true;
  };
  while (v > 1 && !ok(v)) v /= 2;
  return v;
}

// Staging tile byte offset of byte `piece` of unit ia along a and row ib along b (relative to the tile),
// swizzled.
int64_t staging_offset(const ConvertPlan& plan, int64_t ia, int64_t ib, int64_t piece = 0) {
  return apply_swizzle(plan.staging, staging_byte(plan, ia, ib) + piece);
}

// The store pass's thread t: chunk of V units within a run of group a, row along b, slab (run index) along a.
// Chunks are fastest, then rows, so that lanes write the destination in its own order: a slab's rows follow
// each other there when group b's first mode comes right after group a's run.
struct StoreItem {
  int64_t ia, ib;  // relative to the tile
};
StoreItem store_item(const ConvertPlan& plan, int64_t t) {
  const int64_t chunks = plan.run_a / plan.vector_units;
  const int64_t chunk = t % chunks, row = (t / chunks) % plan.tile_b, slab = t / (chunks * plan.tile_b);
  return {slab * plan.run_a + chunk * plan.vector_units, row};
}

// Lane addresses of the tiled plan's four warp accesses, for the lanes of warp w in the first block. Lanes
// whose thread has no work in that pass are left out.
struct TiledLanes {
  std::vector<int64_t> global_read, smem_write, smem_read, global_write;
};

// A unit wider than one access is carried by unit_lanes neighbouring threads, piece (t % unit_lanes) each;
// the work item of thread t is then t / unit_lanes.
TiledLanes tiled_lanes(const ConvertPlan& plan, int warp) {
  TiledLanes lanes;
  const int v = plan.vector_units, r = plan.block_rows;
  const int64_t ub = plan.unit_bytes, p = plan.unit_lanes;
  const int64_t na = plan.tile_a / v;
  for (int lane = 0; lane < 32; ++lane) {
    const int64_t thread = int64_t{warp} * 32 + lane;
    const int64_t t = thread / p, piece = thread % p * access_bytes(plan);
    if (plan.paired) {
      // A lane pair per block (mate = lane % 2): the first load is row `mate`, the first store output row
      // mate * V / 2.
      const int64_t mate = lane % 2, ba = thread / 2;
      if (ba < na) {
        lanes.global_read.push_back(group_a_src(plan, ba * v + mate) * ub);
        lanes.smem_write.push_back(staging_offset(plan, ba * v, mate * v / 2));
      }
    } else if (const int64_t item = plan.half_blocks ? thread / 2 : t; item < register_blocks(plan)) {
      // Block `item`; where two threads share it (`half_blocks`), thread 2t + h takes its units from 8h.
      const LoadBlock b = load_block(plan, item);
      const int64_t col = b.bb * v + (plan.half_blocks ? thread % 2 * (v / 2) : 0);
      const int64_t at =
          side_element(plan, true, (group_a_src(plan, b.ba * r) + col) * plan.unit_elems) * plan.elem_bytes +
          piece;
      // Unaligned rows: the first of the aligned words (of load_bytes) that hold the lane's units.
      const int64_t word = load_bytes(plan);
      lanes.global_read.push_back(plan.unaligned ? at / word * word : at);
      lanes.smem_write.push_back(staging_offset(plan, b.ba * r, col, piece));
    }
    if (plan.unaligned) {
      // The body pass: window slot t % (tile_a / V) of row t / (tile_a / V), its second (or only) chunk.
      const int64_t row = t / na, k = t % na;
      if (row < plan.tile_b && row < plan.extent_b) {
        const int64_t first = group_b_dst(plan, row);
        const RowWindows w = row_windows(plan, first, std::min(plan.tile_a, plan.extent_a));
        const int64_t kw = w.body_first + k;
        if (kw < w.body_end) {
          lanes.smem_read.push_back(staging_offset(plan, kw * v, row));
          lanes.global_write.push_back((first - w.shift + kw * v) * ub);
        }
      }
    } else if (t < plan.tile_b * na) {
      const StoreItem s = store_item(plan, t);
      lanes.smem_read.push_back(staging_offset(plan, s.ia, s.ib, piece));
      lanes.global_write.push_back(
          side_element(plan, false, (group_a_dst(plan, s.ia) + group_b_dst(plan, s.ib)) * plan.unit_elems) *
              plan.elem_bytes +
          piece);
    }
  }
  return lanes;
}

WarpCost global_cost(const std::vector<int64_t>& addrs, int width) {
  WarpCost c;
  c.bytes_per_lane = width;
  c.lanes = static_cast<int>(addrs.size());
  if (addrs.empty()) return c;
  if (auto s = sector_access(addrs, width)) c.sectors = s->sectors;
  return c;
}

WarpCost shared_cost(const std::vector<int64_t>& addrs, int width) {
  WarpCost c;
  c.bytes_per_lane = width;
  if (addrs.empty()) return c;
  // Accesses narrower than a bank word are counted on their word: lanes in one word share it (broadcast).
  std::vector<int64_t> words(addrs);
  int w = width;
  if (w < 4) {
    for (int64_t& x : words) x &= ~int64_t{3};
    w = 4;
  }
  if (auto s = bank_access(words, w)) {
    c.wavefronts = s->cycles;
    c.ideal_wavefronts = s->groups;
  }
  return c;
}

// Shared-memory wavefronts of the tile's store and load passes over every warp of one block.
int64_t staging_wavefronts(const ConvertPlan& plan) {
  int64_t total = 0;
  const int width = access_bytes(plan);
  for (int w = 0; w < plan.threads / 32; ++w) {
    TiledLanes l = tiled_lanes(plan, w);
    total += shared_cost(l.smem_write, staging_store_bytes(plan)).wavefronts +
             shared_cost(l.smem_read, width).wavefronts;
  }
  return total;
}

// Picks the XOR swizzle of the staging tile's chunks with the fewest wavefronts (none first, so a tie keeps
// the plain tile). A chunk is one access (16 B), or a whole unit where a unit is wider: its pieces then stay
// side by side, and the lanes that carry it hit neighbouring banks.
void choose_staging(ConvertPlan& plan) {
  plan.staging = Swizzle{};
  const int row_bits = log2_exact(plan.row_bytes);
  const int tile_bits = log2_exact(plan.row_bytes * plan.tile_b);
  int64_t best = staging_wavefronts(plan);
  Swizzle best_swizzle{};
  const int access_bits = log2_exact(std::max(access_bytes(plan), 1));
  const int unit_bits = log2_exact(plan.unit_bytes);
  // Up to 8 chunks of 16 B share a row of the 32 banks (3 bits); accesses of a word or less (odd extents
  // that no vector packs) spread over up to 32 words, 5 bits of their row index.
  const int max_bits = access_bytes(plan) <= 4 ? 5 : 3;
  for (int chunk_bits = access_bits; chunk_bits <= std::max(access_bits, unit_bits); ++chunk_bits) {
    auto consider = [&](int bits, int shift) {
      plan.staging = Swizzle{bits, chunk_bits, shift, true, SwizzleSpelling::kCute};
      const int64_t w = staging_wavefronts(plan);
      if (w < best) {
        best = w;
        best_swizzle = plan.staging;
      }
    };
    // Chunks swap places within their row, by bits of the row index.
    for (int bits = 1; bits <= max_bits && chunk_bits + bits <= row_bits; ++bits) {
      for (int shift = row_bits - chunk_bits; chunk_bits + shift + bits <= tile_bits; ++shift)
        consider(bits, shift);
    }
    // A row of one chunk has nothing to swap with: chunks swap with those of other rows instead (still a
    // permutation of the tile's chunks; both passes address the tile through it).
    if (row_bits == chunk_bits) {
      for (int bits = 1; bits <= max_bits; ++bits) {
        for (int shift = bits; chunk_bits + shift + bits <= tile_bits; ++shift) consider(bits, shift);
      }
    }
  }
  plan.staging = best_swizzle;
}

// The load pass's shape: one thread per register block (or piece of a wide unit, or half a paired block),
// 64 to 256 threads, and the blocks' order over a warp's lanes (warp_b). Blocks of 4 rows of bytes keep the
// tile of 16-row blocks with twice the threads: two blocks a thread, in a loop, ran 5 % slower on an H200
// (0.879 against 0.931 of a float4 copy).
void set_load_pass(ConvertPlan& plan) {
  const int64_t nb = plan.tile_b / plan.vector_units, na = plan.tile_a / plan.block_rows;
  const int64_t items = register_blocks(plan) * plan.unit_lanes * (plan.paired ? 2 : 1);
  const bool rows4 = plan.block_rows < plan.vector_units;
  plan.threads =
      static_cast<int>(std::clamp<int64_t>((items + 31) / 32 * 32, 64, rows4 ? 2 * kThreads : kThreads));
  plan.warp_b = static_cast<int>(rows4 && nb > 8 && na % 4 == 0 ? 8 : nb);
}

void predict(ConvertPlan& plan) {
  const int width = access_bytes(plan);
  if (plan.kind == ConvertKind::kVector) {
    std::vector<int64_t> src, dst;
    for (int lane = 0; lane < 32; ++lane) {
      const int64_t d = int64_t{lane} * plan.vector_units * plan.unit_elems;
      if (d >= plan.elements) break;
      dst.push_back(side_element(plan, false, d) * plan.elem_bytes);
      const int64_t at = side_element(plan, true, gather_offset(plan, d)) * plan.elem_bytes;
      src.push_back(plan.unaligned ? at / kVectorBytes * kVectorBytes : at);
    }
    plan.global_read = global_cost(src, width);
    plan.global_write = global_cost(dst, width);
    return;
  }
  TiledLanes l = tiled_lanes(plan, 0);
  plan.global_read = global_cost(l.global_read, load_bytes(plan));
  plan.global_write = global_cost(l.global_write, width);
  plan.smem_write = shared_cost(l.smem_write, staging_store_bytes(plan));
  plan.smem_read = shared_cost(l.smem_read, width);
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// What every access's start and length must divide on a side with an offset or a swizzle: the offset, and
// the 2^M-element granule below the bits the swizzle changes. Empty where neither side has either.
std::vector<int64_t> side_granules(const ConvertPlan& plan) {
  std::vector<int64_t> g;
  for (const auto& [offset, swizzle] :
       {std::pair{plan.src_offset, plan.src_swizzle}, std::pair{plan.dst_offset, plan.dst_swizzle}}) {
    if (offset != 0) g.push_back(offset);
    if (swizzle.bits > 0) g.push_back(int64_t{1} << swizzle_low_bit(swizzle));
  }
  return g;
}

}  // namespace

std::string_view to_string(ConvertKind kind) {
  switch (kind) {
    case ConvertKind::kVector:
      return "vector";
    case ConvertKind::kTiled:
      return "tiled";
    case ConvertKind::kInterleave:
      return "interleave";
  }
  return "vector";
}

namespace {

// The vector or tiled plan; `element_modes` receives the fused modes in elements (destination order), which
// the interleave candidate starts from.
// `short_a`: group a stops at a destination run of 64 B before a mode that group b would take (the second
// tiled candidate, see plan_convert).
Result<ConvertPlan> plan_strided(const Layout& src, const Layout& dst, const std::vector<int64_t>& shape,
                                 DType dtype, std::vector<ConvertMode>& element_modes, bool short_a) {
  ConvertPlan plan;
  auto src_modes = strided_modes(src, "src", plan.src_offset, plan.src_swizzle);
  if (!src_modes) return src_modes.error();
  auto dst_modes = strided_modes(dst, "dst", plan.dst_offset, plan.dst_swizzle);
  if (!dst_modes) return dst_modes.error();

  plan.shape = shape;
  plan.dtype = dtype;
  plan.elem_bytes = dtype_bytes(dtype);
  int64_t n = 1;
  for (int64_t e : shape) {
    if (e <= 0 || mul_overflows(n, e, &n)) return make_error("shape: extents must be positive", 0, "shape");
  }
  plan.elements = n;
  const std::vector<int64_t> ps = suffix_products(*src_modes), pd = suffix_products(*dst_modes);
  if (ps[0] != n)
    return make_error(
        "src layout holds " + std::to_string(ps[0]) + " elements, the shape " + std::to_string(n), 0, "src");
  if (pd[0] != n)
    return make_error(
        "dst layout holds " + std::to_string(pd[0]) + " elements, the shape " + std::to_string(n), 0, "dst");

  // The common refinement: every split point of either layout, which must nest (each divides the one above).
  std::vector<int64_t> cuts(ps);
  cuts.insert(cuts.end(), pd.begin(), pd.end());
  std::sort(cuts.begin(), cuts.end(), std::greater<>());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  for (size_t k = 0; k + 1 < cuts.size(); ++k) {
    if (cuts[k] % cuts[k + 1] != 0) {
      return make_error("src and dst split the logical index incompatibly (a run of " +
                            std::to_string(cuts[k + 1]) + " inside a run of " + std::to_string(cuts[k]) +
                            "): no strided map between them",
                        0, "dst");
    }
  }
  std::vector<ConvertMode> pieces;
  for (size_t k = 0; k + 1 < cuts.size(); ++k) {
    const int64_t hi = cuts[k], lo = cuts[k + 1];
    pieces.push_back({hi / lo, piece_stride(*src_modes, ps, lo, hi), piece_stride(*dst_modes, pd, lo, hi)});
  }

  // The destination must be dense: sorted by stride, each stride is the product of the extents below it.
  std::sort(pieces.begin(), pieces.end(),
            [](const ConvertMode& x, const ConvertMode& y) { return x.dst_stride < y.dst_stride; });
  int64_t expect = 1;
  for (const ConvertMode& m : pieces) {
    if (m.dst_stride != expect) {
      return make_error(std::string("dst layout is not dense: ") +
                            (m.dst_stride < expect ? "two elements land on one offset (aliasing)"
                                                   : "it leaves offsets unwritten (a gap)") +
                            " at stride " + std::to_string(m.dst_stride),
                        0, "dst");
    }
    expect *= m.extent;
  }
  // A swizzle permutes the offsets inside aligned blocks of 2^(its highest bit + 1): the destination stays a
  // bijection onto [offset, offset + n) only where such blocks tile that range.
  if (plan.dst_swizzle.bits > 0) {
    const int64_t block =
        int64_t{1} << (plan.dst_swizzle.base + plan.dst_swizzle.shift + plan.dst_swizzle.bits);
    if (n % block != 0 || plan.dst_offset % block != 0)
      return make_error("dst layout: its swizzle permutes blocks of " + std::to_string(block) +
                            " elements, which do not tile the " + std::to_string(n) + " elements at offset " +
                            std::to_string(plan.dst_offset),
                        0, "dst");
  }
  std::reverse(pieces.begin(), pieces.end());  // destination order, outermost first
  plan.modes = pieces;
  // Fuse neighbours contiguous on both sides (the destination side always is).
  std::vector<ConvertMode> fused;
  for (const ConvertMode& m : plan.modes) {
    if (!fused.empty() && fused.back().src_stride == m.extent * m.src_stride) {
      fused.back() = {fused.back().extent * m.extent, m.src_stride, m.dst_stride};
    } else {
      fused.push_back(m);
    }
  }
  if (fused.empty()) fused.push_back({1, 1, 1});
  plan.modes = fused;
  plan.common_vector = plan.modes.back().src_stride == 1 ? plan.modes.back().extent : 1;
  element_modes = plan.modes;

  const int eb = plan.elem_bytes;
  std::vector<int64_t> strides;  // every stride of both sides but the innermost mode's
  for (size_t i = 0; i + 1 < plan.modes.size(); ++i) {
    strides.push_back(plan.modes[i].src_stride);
    strides.push_back(plan.modes[i].dst_stride);
  }
  // An offset or a swizzle on a side: every access stays aligned to the offset and inside the granules the
  // swizzle keeps whole.
  const std::vector<int64_t> granules = side_granules(plan);
  strides.insert(strides.end(), granules.begin(), granules.end());
  const bool transformed = !granules.empty();

  // Each lane copies 16 B of the shared run: neighbouring lanes fill whole sectors, but a warp touches a
  // cache line per run. A run of four or more vectors (64 B) keeps that to 8 lines per 512 B: a vector plan
  // (measured on an H200: 64 B runs at 0.90x of a copy, 32 B runs at 0.74-0.83x). A shorter run moves as
  // one unit through a tile, so that both sides read and write long contiguous rows.
  auto vector_plan = [&](int vector_units) {
    plan.kind = ConvertKind::kVector;
    plan.unit_elems = 1;
    plan.unit_bytes = eb;
    plan.unit_lanes = 1;
    plan.vector_units = vector_units;
    plan.block_rows = vector_units;
    plan.threads = kThreads;
    plan.blocks = ceil_div(plan.elements, int64_t{plan.vector_units} * plan.threads);
    predict(plan);
    return plan;
  };
  const int shared_vector =
      largest_common_pow2(std::max(1, kVectorBytes / eb), {plan.common_vector}, strides);
  // Runs of 64 B or more whose length or place no vector divides (197 bytes of a ViT's attention row): the
  // destination's aligned 16 B windows all the same, each read as the aligned words that hold it in the
  // source, shifted into place; a window that spans the end of a run (at most one: a run holds 4 or more
  // windows) is two such reads put together (`unaligned`). Only where every window is whole (V divides the
  // elements) and neither side is offset or swizzled.
  const int full_vector = std::max(1, kVectorBytes / eb);
  if (plan.common_vector * eb >= 4 * kVectorBytes && plan.modes.size() > 1 && shared_vector < full_vector &&
      !transformed && full_vector * eb == kVectorBytes && plan.elements % full_vector == 0) {
    vector_plan(full_vector);
    plan.unaligned = true;
    predict(plan);
    return plan;
  }
  if (plan.common_vector * eb >= 4 * kVectorBytes || plan.modes.size() == 1)
    return vector_plan(shared_vector);

  // A short shared run moves as one unit of up to 32 B (a whole number of elements, a power of two); a unit
  // wider than 16 B is carried by two lanes.
  // (At most 16 B where a side is offset or swizzled: the two 16 B pieces of a wider unit are not addressed
  // through the side's map.)
  plan.unit_elems = largest_common_pow2(std::max(1, (transformed ? 1 : 2) * kVectorBytes / eb),
                                        {plan.common_vector}, strides);
  plan.unit_bytes = eb * plan.unit_elems;
  plan.unit_lanes = std::max(1, plan.unit_bytes / kVectorBytes);
  const int64_t u = plan.unit_elems;
  std::vector<ConvertMode> units;
  for (const ConvertMode& m : plan.modes) {
    ConvertMode mu = m;
    if (&m == &plan.modes.back()) {
      mu.extent /= (m.src_stride == 1 ? u : 1);
      mu.src_stride = m.src_stride == 1 ? 1 : m.src_stride / u;
    } else {
      mu.src_stride /= u;
      mu.dst_stride /= u;
    }
    if (mu.extent > 1) units.push_back(mu);
  }
  // From here on the modes and the tile count units. b0: the source's innermost mode.
  int b0 = -1;
  for (int i = 0; i < static_cast<int>(units.size()); ++i) {
    if (units[i].src_stride == 1) b0 = i;
  }
  if (units.size() < 2 || b0 < 0 || b0 == static_cast<int>(units.size()) - 1) {
    // No tile to stage through: a run of 32 B or more still moves in 16 B vectors.
    if (plan.common_vector * eb >= 2 * kVectorBytes) return vector_plan(shared_vector);
    // No mode is contiguous in the source (a strided source with gaps): each lane gathers its own units.
    return vector_plan(1);
  }
  plan.kind = ConvertKind::kTiled;
  plan.modes = units;
  // Tiles of 8-32 KB: 256 x 128 units of 1 B (along a x along b), 128 x 128 of 2 B, 64 x 64 of 4 B, 32 x 32
  // of 8, 16 or 32 B. Where one side is short, the other grows so that the tile keeps its area, except for
  // source rows of kRecordBytes or less (one record per row, AoS -> SoA): those tiles stage kRecordTileBytes.
  const int64_t target_a = plan.unit_bytes == 1   ? 256
                           : plan.unit_bytes == 2 ? 128
                           : plan.unit_bytes == 4 ? 64
                                                  : 32;
  const int64_t target_b = plan.unit_bytes == 1 ? 128 : target_a;
  const int64_t area = target_a * target_b;
  // Group a: the destination's innermost modes (contiguous there together), up to the tile's size. Group b:
  // the source's innermost mode and the modes contiguous after it in the source, not in group a.
  std::vector<bool> used(units.size(), false);
  // short_a: once group a's destination run is 64 B or more, it stops before a mode that group b would take
  // (one that continues the source's contiguous run from b0, through modes not in group a, while group b is
  // still short of the tile), so that the mode keeps the source's rows long in group b instead.
  auto group_b_takes = [&](int mode) {
    const int64_t limit = area / std::min(plan.extent_a, target_a);
    std::vector<bool> seen(units.size(), false);
    int64_t run = 1;
    for (int i = b0; i >= 0 && run < limit;) {
      if (i == mode) return true;
      seen[i] = true;
      run *= units[i].extent;
      i = -1;
      for (int j = 0; j < static_cast<int>(units.size()); ++j) {
        if (!seen[j] && !used[j] && units[j].src_stride == run) i = j;
      }
    }
    return false;
  };
  plan.extent_a = 1;
  for (int i = static_cast<int>(units.size()) - 1; i >= 0 && i != b0 && plan.extent_a < target_a; --i) {
    if (short_a && plan.extent_a * plan.unit_bytes >= 4 * kVectorBytes && group_b_takes(i)) break;
    plan.group_a.push_back(i);
    used[i] = true;
    plan.extent_a *= units[i].extent;
  }
  plan.extent_b = 1;
  for (bool grown = true; grown && plan.extent_b < area / std::min(plan.extent_a, target_a);) {
    grown = false;
    for (int i = 0; i < static_cast<int>(units.size()); ++i) {
      if (!used[i] && units[i].src_stride == plan.extent_b) {
        plan.group_b.push_back(i);
        used[i] = true;
        plan.extent_b *= units[i].extent;
        grown = true;
        break;
      }
    }
  }
  // A destination run shorter than two vectors (the source's contiguous mode comes right after it there)
  // would give rows of 16 B or less and a tile of a few KiB: group a goes on with the destination's next
  // modes, smallest destination stride first, and the tile's slabs of rows follow the destination order.
  const int64_t contiguous_a = plan.extent_a;
  if (plan.extent_a * plan.unit_bytes < 2 * kVectorBytes &&
      std::has_single_bit(static_cast<uint64_t>(plan.extent_a)) && plan.extent_a * plan.extent_b < area) {
    while (plan.extent_a < target_a) {
      int next = -1;
      for (int i = 0; i < static_cast<int>(units.size()); ++i) {
        if (!used[i] && (next < 0 || units[i].dst_stride < units[next].dst_stride)) next = i;
      }
      if (next < 0) break;
      plan.group_a.push_back(next);
      used[next] = true;
      plan.extent_a *= units[next].extent;
      ++plan.folded_a;
    }
  }
  std::vector<int64_t> other;  // what keeps a vector of V units aligned on both sides
  for (int i = 0; i < static_cast<int>(units.size()); ++i) {
    if (std::find(plan.group_b.begin(), plan.group_b.end(), i) == plan.group_b.end()) {
      other.push_back(units[i].src_stride);
    }
    const auto in_a = std::find(plan.group_a.begin(), plan.group_a.end(), i);
    if (in_a == plan.group_a.end() ||
        in_a - plan.group_a.begin() >= std::ssize(plan.group_a) - plan.folded_a) {
      other.push_back(units[i].dst_stride);
    }
  }
  if (plan.folded_a > 0) other.push_back(contiguous_a);
  for (int64_t g : granules) other.push_back(g / u);
  plan.vector_units =
      largest_common_pow2(std::max(1, kVectorBytes / plan.unit_bytes), {plan.extent_a, plan.extent_b}, other);
  // A block narrower than a 32-bit word cannot be transposed by word permutes: such plans move one unit per
  // lane.
  if (plan.vector_units * plan.unit_bytes < 4) plan.vector_units = 1;
  // Rows of odd or prime lengths: no vector divides the offsets where the rows of a side start. Where both
  // groups span at least four vectors (so that the rows are mostly body), V = 16 B / unit anyway, each access
  // built from the aligned words around it (`unaligned`), the ends of the rows in aligned pieces of a unit to
  // 8 B (`edge_stores`). Not through an offset or a swizzle, whose granules the shifted words would cross.
  const int full_units = kVectorBytes / plan.unit_bytes;
  // Whether a side's rows all start on a multiple of the full vector: its strides outside its own group
  // (group b on the source, group a on the destination) are.
  auto rows_aligned = [&](bool src_side) {
    std::vector<int64_t> s;
    for (int i = 0; i < static_cast<int>(units.size()); ++i) {
      const auto& g = src_side ? plan.group_b : plan.group_a;
      if (std::find(g.begin(), g.end(), i) == g.end())
        s.push_back(src_side ? units[i].src_stride : units[i].dst_stride);
    }
    return largest_common_pow2(full_units, {}, s) == full_units;
  };
  // Units of 4 B or more already fill whole sectors a lane at a time: there the shifted path pays (extra
  // shared reads, selects, the edge pass) only where the destination's rows are unaligned, whose stores are
  // then aligned 16 B windows. Measured on an H200 (fraction of a copy, same call, two runs each), with the
  // source's rows aligned (plain loads) and the tile lengthened as below: ViT-L/14-336 and Mistral
  // k-transposes (577 and 4097 f32 destination rows) 0.76 -> 0.86 and 0.83 -> 0.88, (48, 197, 64, 13) f32
  // with 197-unit destination rows 0.70 -> 0.83, against 4 B lanes.
  plan.unaligned = !transformed && plan.folded_a == 0 && plan.unit_lanes == 1 &&
                   plan.unit_bytes < kVectorBytes && plan.vector_units < full_units &&
                   plan.extent_a >= 4 * full_units && plan.extent_b >= 4 * full_units &&
                   (plan.unit_bytes < 4 || !rows_aligned(false));
  if (plan.unaligned) {
    plan.vector_units = full_units;
    plan.aligned_loads = rows_aligned(true);
  }
  // 16 B of 1-byte units: a square block of 16 rows held 64 words in registers and compiled a third slower
  // (NVRTC on an H200: 61 against 41 ms for the transpose) than 4 rows, whose 4 B columns the tile's swizzle
  // keeps apart in the banks as well (one wavefront per warp store), the kernel as fast (0.928 against 0.931
  // of a float4 copy).
  plan.block_rows = plan.unit_bytes == 1 && plan.vector_units == kVectorBytes ? 4 : plan.vector_units;
  auto pow2_floor = [](int64_t x) { return int64_t{1} << (63 - std::countl_zero(static_cast<uint64_t>(x))); };
  // An unaligned tile covers a ragged destination extent whole where a tile of the power of two below it
  // would leave a last tile less than a quarter full (143 = 128 + 15 becomes one tile of 256): every block
  // then moves whole destination rows and none runs mostly empty. Measured on an H100 (fraction of a copy,
  // two labs alternating, 6 rounds): 135 x 20011 bf16 transposed 0.695-0.713 -> 0.759-0.770, 263 x 20011 u8
  // 0.755-0.762 -> 0.801-0.811, 67 x 30011 f32 0.764-0.779 -> 0.874-0.896; (11, 13, 17, 19, 23) bf16
  // reversed 0.706-0.733 -> 0.719-0.734.
  const int64_t floor_a = pow2_floor(plan.extent_a);
  const bool cover_a =
      plan.unaligned && plan.extent_a % floor_a != 0 && plan.extent_a % floor_a < floor_a / 4;
  const int64_t max_a = std::max<int64_t>(plan.vector_units, cover_a ? 2 * floor_a : floor_a);
  const int64_t max_b = std::max<int64_t>(plan.vector_units, pow2_floor(plan.extent_b));
  plan.tile_b = std::min(target_b, max_b);
  const int64_t tile_area = plan.tile_b * plan.unit_bytes <= kRecordBytes
                                ? std::min(area, kRecordTileBytes / plan.unit_bytes)
                                : area;
  plan.tile_a = std::min(tile_area / plan.tile_b, max_a);
  plan.tile_b = std::min(tile_area / plan.tile_a, max_b);
  // An unaligned tile grows along the side whose rows are unaligned and shrinks along the other (down to
  // four vectors), so that what those rows cost beyond their bytes is a smaller share of them: a destination
  // row's two edges (partial windows, stored piece by piece), a source row's extra aligned word. Measured on
  // an H100 and an H200 (fraction of a copy, same call, two runs each), destination rows twice as long:
  // 4099 x 4093 f32 0.77 -> 0.87, 4093 x 4099 bf16 0.69 -> 0.74 (H200), GPT-2's (50257, 768) bf16 embedding
  // transposed 0.70 -> 0.84 (H200); four times as long was no better (0.88, 0.76, 0.77 on the H100). Source
  // rows twice as long where only they are unaligned: 12000 x 5000 u8 0.90 -> 0.92 (H200), where the
  // destination-first shape gave 0.85 (H100).
  const int64_t least_side = 4 * int64_t{plan.vector_units};
  if (plan.unaligned && !rows_aligned(false)) {
    if (plan.tile_a * 2 <= max_a && plan.tile_b / 2 >= least_side) {
      plan.tile_a *= 2;
      plan.tile_b /= 2;
    }
  } else if (plan.unaligned && plan.tile_b * 2 <= max_b && plan.tile_a / 2 >= least_side) {
    plan.tile_a /= 2;
    plan.tile_b *= 2;
  }
  int64_t batch = 1;
  for (int i = 0; i < static_cast<int>(units.size()); ++i) {
    if (!used[i]) batch *= units[i].extent;
  }
  auto tile_count = [&] {
    return batch * ceil_div(plan.extent_a, plan.tile_a) * ceil_div(plan.extent_b, plan.tile_b);
  };
  // Few tiles (a tensor of a few MB): halve the tile, along b first (the destination's rows along a keep
  // their length, which is what an unaligned plan's edges are a share of), each side down to four vectors
  // and the tile down to 64 register blocks (two warps of loads), until there are kFillBlocks tiles. Not for
  // record tiles or folded groups, whose shape their rows fix.
  // An unaligned tile shortens its destination rows only until there are kFillBlocks / 2 tiles: each row's
  // two edges (stored piece by piece) and each tile's index arithmetic cost more than the blocks gained.
  // Measured on an H100 (fraction of a copy, same call, 8 rounds each), destination rows twice as long, half
  // the tiles: (15, 17, 19, 21, 23) u8 reversed 0.747-0.761 -> 0.788-0.811, 45 x 91 x 307 u8 reversed
  // 0.740-0.771 -> 0.814-0.852, (7, 33, 65, 129) u8 reversed 0.771-0.793 -> 0.829-0.843, 3001 x 2003 u8
  // 0.746-0.766 -> 0.808-0.831, 509 x 4093 u8 0.668-0.680 -> 0.784-0.807, 2039 x 1021 bf16 0.776-0.790 ->
  // 0.786-0.805. Stopping the source rows' halving (b) at kFillBlocks / 2 as well lost: (11, 13, 17, 19, 23)
  // bf16 reversed, 128 x 128 tiles instead of 128 x 32, 0.718-0.741 -> 0.625-0.644; b halves to kFillBlocks.
  if (plan.folded_a == 0 && plan.tile_b * plan.unit_bytes > kRecordBytes) {
    const int64_t least = 4 * int64_t{plan.vector_units};
    const int64_t block_units = int64_t{plan.block_rows} * plan.vector_units;
    const int64_t fill_a = plan.unaligned ? kFillBlocks / 2 : kFillBlocks;
    // A tile along a of `a` units that would leave the last one nearly empty (137 units: 128 + 9) is not a
    // fuller grid: the full tiles take as long as before, beside blocks of a few rows. Measured on an H100
    // (same call, 4 rounds, two threads a block in both): 137 x 4099 bf16, 129 tiles of 256 x 32 instead of
    // 258 of 128 x 32, 5.70-5.86 -> 5.50-5.76 us (0.809-0.826 -> 0.851-0.857 of a copy).
    auto nearly_empty_last_a = [&](int64_t a) { return plan.extent_a > a && plan.extent_a - a < a / 4; };
    while (tile_count() < kFillBlocks && plan.tile_a * plan.tile_b / 2 / block_units >= 64) {
      if (plan.tile_b / 2 >= least) {
        plan.tile_b /= 2;
      } else if (plan.tile_a / 2 >= least && tile_count() < fill_a && !nearly_empty_last_a(plan.tile_a / 2)) {
        plan.tile_a /= 2;
      } else {
        break;
      }
    }
  }
  // An unaligned tile of bytes with 512 register blocks (4 rows of 16 B each, 512 threads) holds 46
  // registers a thread: 2 blocks an SM. Where its tiles make between one and two such waves, the second
  // runs mostly empty; halving the tile along the side not lengthened above (256 threads, 5 blocks an SM)
  // makes one.
  // Measured on an H200 (two runs): 10007 x 1009 u8 transposed, 320 tiles of 512 x 64, 0.61 -> 0.73.
  if (plan.unaligned && plan.block_rows < plan.vector_units && register_blocks(plan) > kThreads &&
      tile_count() > kFillBlocks && tile_count() < 2 * kFillBlocks) {
    if (rows_aligned(false) ? plan.tile_a / 2 >= 2 * int64_t{plan.vector_units}
                            : plan.tile_b / 2 >= 2 * int64_t{plan.vector_units}) {
      (rows_aligned(false) ? plan.tile_a : plan.tile_b) /= 2;
    }
  }
  plan.run_a = plan.folded_a > 0 ? std::min(plan.tile_a, contiguous_a) : plan.tile_a;
  plan.row_bytes = plan.run_a * plan.unit_bytes;
  plan.staging_bytes = plan.tile_a * plan.tile_b * plan.unit_bytes;
  // Records of 16 B, one per row of a block, next to each other in the source: a lane per row would read half
  // a sector per access (twice the sectors of a copy); lane pairs read whole sectors.
  const ConvertMode& first_a = units[plan.group_a.front()];
  plan.paired = !transformed && !plan.unaligned && plan.unit_lanes == 1 &&
                plan.vector_units * plan.unit_bytes == kVectorBytes && plan.unit_bytes >= 2 &&
                plan.tile_b == plan.vector_units && plan.extent_b % plan.tile_b == 0 &&
                first_a.src_stride * plan.unit_bytes == kVectorBytes &&
                first_a.extent % plan.vector_units == 0;
  plan.blocks = tile_count();
  set_load_pass(plan);
  choose_staging(plan);
  // Small grids of unaligned byte tiles are bound by each thread's chain of instructions (about one warp a
  // scheduler): two threads a register block halve the part of it before the barrier. Measured on an H100
  // (fraction of a copy, same call, three runs each): 997 x 1013 u8 transposed 0.67-0.69 -> 0.77-0.81,
  // 45 x 91 x 307 u8 reversed 0.68-0.72 -> 0.75-0.78, (7, 33, 65, 129) u8 reversed 0.75-0.77 -> 0.78-0.79;
  // on 256-thread blocks (10007 x 1009 u8, 640 of them) it lost 1-2 %. Grids of fewer than kFillBlocks tiles
  // take it at any block size (up to 2 x 512 threads): (15, 17, 19, 21, 23) u8 reversed, 152 tiles of
  // 256 x 64 bytes, 256 threads 7.49 us, 512 threads 7.33 us (H100, 9 rounds in one process, every round
  // alike); 3001 x 2003 u8's 192 tiles of 512 x 64 run 1024 threads (the A/B above).
  // Units of 2 and 4 B alike (blocks of V x V units, each thread 8 B of each of the V rows, V / 2 columns of
  // 16 B). Measured on an H100 (fraction of a copy, same call, 4 rounds each): 137 x 4099 bf16 transposed
  // 0.645-0.662 -> 0.809-0.826, (11, 13, 17, 19, 23) bf16 reversed 0.714-0.725 -> 0.809-0.824, 197 x 1031
  // bf16 0.642-0.680 -> 0.788-0.799, 257 x 3001 bf16 0.710-0.732 -> 0.828-0.849, 2039 x 1021 bf16
  // 0.793-0.810 -> 0.889-0.905, 509 x 4093 bf16 0.792-0.809 -> 0.858-0.890, 137 x 4099 f32 0.882-0.904 ->
  // 0.893-0.917 (docs/results/h100-convert-halfblocks-ab.jsonl).
  if (plan.unaligned && !plan.aligned_loads && plan.unit_bytes <= 4 &&
      plan.block_rows == (plan.unit_bytes == 1 ? 4 : plan.vector_units) &&
      plan.vector_units * plan.unit_bytes == kVectorBytes && plan.unit_lanes == 1 && plan.folded_a == 0 &&
      (plan.threads <= kThreads / 2 || plan.blocks < kFillBlocks) &&
      staging_column_step(plan) != ColumnStep::kPerColumn) {
    plan.half_blocks = true;
    plan.threads *= 2;
  }
  predict(plan);
  return plan;
}

}  // namespace

namespace {

// Modes of at most kSmallExtent units (channels, record fields, heads) are small enough to sit whole in one
// thread: C vectors of 16 B in registers (2 x 24 of them, the planes and the records, stay under ptxas's 255
// registers a thread).
constexpr int64_t kSmallExtent = 24;
// Planes above this many, of an even count, pad each lane's records in the exchange by one chunk.
constexpr int64_t kUnpaddedExtent = 16;
// Records of at most this many chunks XOR their chunk indices in the exchange where its plain order takes
// more than twice the ideal wavefronts; longer records keep the plain or padded order (below).
constexpr int64_t kXorChunks = 4;
// The smallest block of an interleave whose lanes store their own records (direct_stores).
constexpr int kDirectThreads = 64;
// Groups shorter than this many units on both sides of a tile make tiles of at most 8 x 8 units.
constexpr int64_t kTinyGroup = 16;
// An interleave block's exchange area: 32 lanes x C chunks per warp, at most this much per block (else
// 128 threads): static shared memory stays under 48 KiB.
constexpr int64_t kExchangeBytes = 32768;

// Item t of an interleave plan: the offsets of its first unit on both sides (chunk start of the long mode,
// plane 0), and whether it holds V whole units.
struct InterleaveItem {
  int64_t src = 0, dst = 0, units = 0;
  bool live = false;
};

InterleaveItem interleave_item(const ConvertPlan& p, int64_t t) {
  InterleaveItem it;
  if (t >= p.items) return it;
  it.live = true;
  const int64_t chunk = t % p.chunks;
  int64_t batch = t / p.chunks;
  for (int i : convert_batch_modes(p)) {
    const ConvertMode& m = p.modes[i];
    it.src += (batch % m.extent) * m.src_stride;
    it.dst += (batch % m.extent) * m.dst_stride;
    batch /= m.extent;
  }
  const ConvertMode& l = p.modes[p.long_mode];
  const int64_t b0 = chunk * p.vector_units;
  it.src += b0 * l.src_stride;
  it.dst += b0 * l.dst_stride;
  it.units = std::min<int64_t>(p.vector_units, p.long_extent - b0);
  return it;
}

// Lane addresses (bytes) of the plan's four warp accesses for warp 0 of block 0: the planar side's access
// of plane 0 and the exchange's first chunk on each side. Lanes whose item is not whole are left out.
TiledLanes interleave_lanes(const ConvertPlan& p) {
  TiledLanes lanes;
  const int64_t eb = p.elem_bytes, c = p.record_units;
  for (int lane = 0; lane < 32; ++lane) {
    const InterleaveItem mine = interleave_item(p, lane);
    const int64_t owner = lane / c, j = lane % c;
    const InterleaveItem theirs = interleave_item(p, owner);
    const bool whole = mine.live && mine.units == p.vector_units;
    const bool owner_whole = theirs.live && theirs.units == p.vector_units;
    if (p.packed_dst) {
      if (whole) {
        const int64_t at = side_element(p, true, mine.src) * eb;
        lanes.global_read.push_back(p.unaligned ? at / kVectorBytes * kVectorBytes : at);
        if (p.direct_stores) {
          lanes.global_write.push_back(side_element(p, false, mine.dst) * eb);
        } else {
          lanes.smem_write.push_back(exchange_byte(p, lane, 0));
        }
      }
      if (owner_whole && !p.direct_stores) {
        lanes.smem_read.push_back(exchange_byte(p, owner, j));
        lanes.global_write.push_back(side_element(p, false, theirs.dst + j * p.vector_units) * eb);
      }
    } else {
      if (owner_whole) {
        lanes.global_read.push_back(side_element(p, true, theirs.src + j * p.vector_units) * eb);
        lanes.smem_write.push_back(exchange_byte(p, owner, j));
      }
      if (whole) {
        lanes.smem_read.push_back(exchange_byte(p, lane, 0));
        lanes.global_write.push_back(side_element(p, false, mine.dst) * eb);
      }
    }
  }
  return lanes;
}

// Shared wavefronts of both passes over a warp's exchange, every item whole: the lanes' own pass (chunk k of
// every lane) and the coalesced pass (chunk q = 32 k + lane of the packed order), k over the R chunks; and
// the ideal count of the same accesses.
struct ExchangeCost {
  int64_t wavefronts = 0, ideal = 0;
};
ExchangeCost exchange_wavefronts(const ConvertPlan& p) {
  const int64_t rec = p.record_units;
  const int width = access_bytes(p);
  ExchangeCost cost;
  std::vector<int64_t> own, coalesced;
  for (int64_t k = 0; k < rec; ++k) {
    own.clear();
    coalesced.clear();
    for (int64_t lane = 0; lane < 32; ++lane) {
      const int64_t q = k * 32 + lane;
      own.push_back(exchange_byte(p, lane, k));
      coalesced.push_back(exchange_byte(p, q / rec, q % rec));
    }
    for (const auto* addrs : {&own, &coalesced}) {
      const WarpCost c = shared_cost(*addrs, width);
      cost.wavefronts += c.wavefronts;
      cost.ideal += c.ideal_wavefronts;
    }
  }
  return cost;
}

// The exchange's order. Records of R <= kXorChunks chunks whose plain order takes more than twice the ideal
// wavefronts XOR each lane's chunk indices, the XOR with the fewest wavefronts over both passes (masks 2^i -
// 1 with 2^i dividing R, so that each lane's chunks stay its own, the lane index shifted by 0-4 bits): RGBA
// pixels of u8 (R = 4 chunks of 16 B) put a quarter warp's 8 lanes on 2 of the 8 bank groups, 4 wavefronts
// where 1 does, and (lane >> 1) & 3 gives each lane a group of its own. That took 4-channel NCHW <-> NHWC
// from a tile of 4-8 B lanes to the interleave's 16 B lanes, 0.77-0.94 -> 0.94-1.00 of a copy on an H200.
// Longer records keep the plain order, or a pad chunk a lane (even R above 16, padded records): on that
// H200 the XOR ran slower there (records of 10 bf16 1.01 -> 0.90, of 20 u8 0.99 -> 0.97, 8 u8 against
// their tile 1.02 -> 0.99), its address arithmetic costing more than the conflicts it removed.
void choose_exchange(ConvertPlan& p) {
  const int64_t rec = p.record_units;
  p.exchange_shift = 0;
  p.exchange_mask = 0;
  p.lane_chunks = rec;
  const ExchangeCost plain = exchange_wavefronts(p);
  if (rec <= kXorChunks && plain.wavefronts > 2 * plain.ideal) {
    int64_t best = plain.wavefronts;
    int best_shift = 0;
    int64_t best_mask = 0;
    for (int64_t size = 2; size <= 32 && rec % size == 0; size *= 2) {
      for (int shift = 0; shift <= 4; ++shift) {
        p.exchange_mask = size - 1;
        p.exchange_shift = shift;
        const int64_t w = exchange_wavefronts(p).wavefronts;
        if (w < best) {
          best = w;
          best_shift = shift;
          best_mask = size - 1;
        }
      }
    }
    p.exchange_shift = best_shift;
    p.exchange_mask = best_mask;
    if (best_mask != 0) return;
  }
  // An even lane stride puts a quarter warp on half the bank groups or fewer: records of more than 16 units
  // and padded records (plans that took no exchange before) get one chunk more a lane.
  const bool pad = rec % 2 == 0 && (rec > kUnpaddedExtent || rec > p.small_extent);
  p.lane_chunks = rec + (pad ? 1 : 0);
}

// An interleave plan's four warp accesses, predicted from the lanes of its first warp.
void predict_interleave(ConvertPlan& p) {
  const TiledLanes l = interleave_lanes(p);
  const int width = access_bytes(p);
  p.global_read = global_cost(l.global_read, width);
  p.global_write = global_cost(l.global_write, width);
  p.smem_write = shared_cost(l.smem_write, width);
  p.smem_read = shared_cost(l.smem_read, width);
}

// The interleave candidate, where one side's innermost mode is small and the mode contiguous on the other
// side follows it on the first (its stride there is the small extent): NCHW <-> NHWC with few channels,
// AoS <-> SoA with few fields. None where there is no such pair or no 4 B access keeps both sides aligned.
std::optional<ConvertPlan> interleave_plan(const ConvertPlan& base, const std::vector<ConvertMode>& modes) {
  const int n = static_cast<int>(modes.size());
  if (n < 2) return std::nullopt;
  ConvertPlan p;
  p.shape = base.shape;
  p.dtype = base.dtype;
  p.elem_bytes = base.elem_bytes;
  p.elements = base.elements;
  p.common_vector = base.common_vector;
  p.modes = modes;
  const ConvertMode& last = modes[n - 1];  // the destination's innermost (stride 1)
  auto small = [](int64_t e) { return e >= 2 && e <= kSmallExtent; };
  if (small(last.extent) && last.src_stride != 1) {
    for (int i = 0; i + 1 < n; ++i) {
      if (modes[i].src_stride == 1 && modes[i].dst_stride == last.extent) {
        p.small_mode = n - 1;
        p.long_mode = i;
        p.packed_dst = true;
      }
    }
  }
  // Records -> planes: the records may be padded (a record of R >= C units, R small too).
  if (p.small_mode < 0) {
    for (int i = 0; i + 1 < n; ++i) {
      if (modes[i].src_stride == 1 && small(modes[i].extent) && last.src_stride >= modes[i].extent &&
          small(last.src_stride)) {
        p.small_mode = i;
        p.long_mode = n - 1;
        p.packed_dst = false;
      }
    }
  }
  if (p.small_mode < 0) return std::nullopt;
  const ConvertMode& sm = modes[p.small_mode];
  p.small_extent = sm.extent;
  p.record_units = p.packed_dst ? sm.extent : last.src_stride;
  p.long_extent = modes[p.long_mode].extent;
  p.plane_stride = p.packed_dst ? sm.src_stride : sm.dst_stride;
  // V units per lane: 16 B where the planar side's planes and every batch index keep V-unit chunks aligned
  // on both sides (the packed side's chunks are C x V units, aligned with them).
  p.src_offset = base.src_offset;
  p.dst_offset = base.dst_offset;
  p.src_swizzle = base.src_swizzle;
  p.dst_swizzle = base.dst_swizzle;
  std::vector<int64_t> strides = side_granules(p);
  strides.push_back(p.plane_stride);
  int64_t batch = 1;
  for (int i = 0; i < n; ++i) {
    if (i == p.small_mode || i == p.long_mode) continue;
    strides.push_back(modes[i].src_stride);
    strides.push_back(modes[i].dst_stride);
    batch *= modes[i].extent;
  }
  const int full_vector = std::max(1, kVectorBytes / p.elem_bytes);
  p.vector_units = largest_common_pow2(full_vector, {}, strides);
  // Planes that start at odd offsets (C planes of an odd or prime length, a tensor of 3 x 1001 bytes): the
  // planar side is the source, so each plane's V units are read as the aligned 16 B words that hold them,
  // shifted into place (`unaligned`), where the packed side's records stay aligned without the planes'
  // stride and the long mode spans two vectors.
  if (p.packed_dst && p.vector_units < full_vector && side_granules(p).empty() &&
      p.long_extent >= 2 * full_vector && full_vector * p.elem_bytes == kVectorBytes) {
    strides.erase(strides.begin());  // the plane stride (side_granules(p) is empty)
    if (largest_common_pow2(full_vector, {}, strides) == full_vector) {
      p.vector_units = full_vector;
      p.unaligned = true;
    }
  }
  if (p.vector_units * p.elem_bytes < 4) return std::nullopt;
  // Padded records: a lane reads the R chunks of V units that its V records span. Every chunk must hold a
  // unit of a record (else the last item's last chunk could lie past the source): chunk R - 1 starts at
  // (R - 1) V, the last record's last unit is (V - 1) R + C - 1, so R - C < V.
  if (p.record_units - p.small_extent >= p.vector_units) return std::nullopt;
  p.kind = ConvertKind::kInterleave;
  p.unit_elems = 1;
  p.unit_bytes = p.elem_bytes;
  p.unit_lanes = 1;
  p.block_rows = 1;
  p.chunks = ceil_div(p.long_extent, p.vector_units);
  p.items = batch * p.chunks;
  choose_exchange(p);
  const int64_t warp_bytes = 32 * p.lane_chunks * p.vector_units * p.elem_bytes;
  // Warps of a block: 8, or as many as keep the exchange within kExchangeBytes.
  p.threads = kThreads;
  while (p.threads > 32 && warp_bytes * (p.threads / 32) > kExchangeBytes) p.threads /= 2;
  p.staging_bytes = warp_bytes * (p.threads / 32);
  p.blocks = ceil_div(p.items, p.threads);
  predict_interleave(p);
  return p;
}

// An interleave into records that won on its exchange, over a tensor of a few blocks (a grid of fewer than
// kFillBlocks), with 16 B lanes: each lane stores its own C chunks instead (no exchange, no
// shuffles), in blocks of down to kDirectThreads that spread the items over more SMs. A store then writes
// half of each sector it touches (the lane stride is C chunks of 16 B), the other half by the lane's next
// store; at this size the chain of instructions before the first store is what the kernel waits on.
// Narrower lanes keep the exchange (4 B lanes would write an eighth of each sector), and the choice between
// the interleave and a tile stays the exchange's. Measured on an H100 (tests/gpu/kernel_vs_peers.py: one
// process, 9 rounds, medians of cold-L2 samples), (1, 3, 224, 224) f32 to NHWC, 12544 items: the exchange in
// blocks of 256, 128 or 64 threads 4.35 us, direct stores in blocks of 128 or 64 4.19 us (of 256: 4.35 us),
// PyTorch's copy_ 4.35 us and channels_last 4.96 us; in a second call the exchange (256) 4.61 us in every
// round, direct stores (64) 4.45-4.61 us, copy_ 4.45-4.61 us, channels_last 5.12-5.89 us.
void take_direct_stores(ConvertPlan& p) {
  if (!p.packed_dst || access_bytes(p) != kVectorBytes || p.blocks >= kFillBlocks) return;
  p.direct_stores = true;
  p.exchange_mask = 0;
  p.exchange_shift = 0;
  p.lane_chunks = p.record_units;
  // From the exchange's block (256 threads, fewer for long records), halved while the grid stays short.
  while (p.threads > kDirectThreads && ceil_div(p.items, p.threads) < kFillBlocks) p.threads /= 2;
  p.staging_bytes = 0;
  p.blocks = ceil_div(p.items, p.threads);
  predict_interleave(p);
}

std::string describe(const ConvertPlan& p) {
  const std::string lane = std::to_string(access_bytes(p)) + " B per lane";
  switch (p.kind) {
    case ConvertKind::kVector:
      if (p.unaligned) {
        return "vector: runs of " + std::to_string(p.modes.back().extent * p.elem_bytes) +
               " B contiguous on both sides at offsets no vector divides, the destination's aligned 16 B "
               "windows read as the aligned source words that hold them, " +
               lane;
      }
      return "vector: runs of " + std::to_string(p.vector_units * p.elem_bytes) +
             " B contiguous on both sides, " + lane;
    case ConvertKind::kTiled: {
      const std::string rows = warp_row_stores(p) ? "; a destination row per warp, its shift a constant" : "";
      return "tiled: a " + std::to_string(p.tile_a) + " x " + std::to_string(p.tile_b) + " tile of " +
             std::to_string(p.unit_bytes) + " B units through shared memory, " + lane +
             (p.aligned_loads
                  ? " (destination rows unaligned: the source's aligned 16 B words loaded as they are, "
                    "shifted into place in the stores, the rows' ends in aligned pieces of up to 8 B" +
                        rows + ")"
              : p.unaligned
                  ? std::string(
                        " (rows unaligned: aligned 16 B words shifted into place, the rows' ends in aligned "
                        "pieces of up to 8 B") +
                        rows +
                        (p.half_blocks ? "; each register block loaded by two threads, 8 B of each row each)"
                                       : ")")
                  : "");
    }
    case ConvertKind::kInterleave:
      return "interleave: " + std::to_string(p.small_extent) + " planes of " + std::to_string(p.long_extent) +
             (p.packed_dst ? " into " : " from ") + std::to_string(p.record_units * p.elem_bytes) +
             " B records, whole in each thread, " + lane + " on both global sides" +
             (p.direct_stores ? "; each lane stores its own record, no exchange (" + std::to_string(p.items) +
                                    " items, too few for " + std::to_string(kFillBlocks) +
                                    " blocks: blocks of " + std::to_string(p.threads) + " threads)"
                              : "");
  }
  return "";
}

// Global sectors per byte moved, both sides together: the cost model's first measure of a candidate.
double sectors_per_byte(const ConvertPlan& p) {
  auto side = [](const WarpCost& c) {
    const double bytes = static_cast<double>(c.lanes) * c.bytes_per_lane;
    return bytes > 0 ? static_cast<double>(c.sectors) / bytes : 0.0;
  };
  return side(p.global_read) + side(p.global_write);
}

}  // namespace

Result<ConvertPlan> plan_convert(const Layout& src, const Layout& dst, const std::vector<int64_t>& shape,
                                 DType dtype) {
  std::vector<ConvertMode> element_modes;
  auto strided = plan_strided(src, dst, shape, dtype, element_modes, false);
  if (!strided) return strided;
  std::optional<ConvertPlan> base = *strided;
  base->reason = describe(*base);
  // The second tiled candidate: group a shorter, so that group b keeps a mode that continues the source's
  // contiguous run. Taken where its lanes move more bytes on the global sides (the cost model's first
  // measure). Expert-major 7-byte records, (64, 4000, 7) -> (7, 4000, 64) in bytes: group a the 64 experts
  // and group b the 7 x 4000 contiguous bytes, 16 B a lane on both sides, where group a taking the 4000 too
  // leaves group b the 7 bytes of a record and 1 B lanes.
  if (base->kind == ConvertKind::kTiled) {
    std::vector<ConvertMode> unused;
    auto short_a = plan_strided(src, dst, shape, dtype, unused, true);
    if (short_a && short_a->kind == ConvertKind::kTiled && short_a->group_a != base->group_a &&
        access_bytes(*short_a) > access_bytes(*base)) {
      const std::string beaten = base->reason;
      base = *short_a;
      base->reason = describe(*base) + "; it beat " + beaten + " (group a stops at a destination run of " +
                     std::to_string(base->extent_a) +
                     " units, so that group b keeps the source's contiguous run of " +
                     std::to_string(base->extent_b) + ")";
    }
  }
  std::optional<ConvertPlan> il = interleave_plan(*base, element_modes);
  if (!il) return *base;
  // The candidates by the engine's cost model: bytes per lane of the global accesses first (the instructions
  // and requests a byte costs), then global sectors per byte; a tie keeps the vector or tiled plan. An
  // exchange whose shared accesses take more than twice their ideal wavefronts (records of 4, 8 or 12 units:
  // a lane stride of 64 B or more puts a quarter warp's 16 B chunks on 2 or fewer of the 8 bank groups) is
  // not taken.
  // A tiled plan whose two groups are both shorter than kTinyGroup units (a batch of 10 x 11 transposes:
  // 8 x 8 tiles, four to a matrix, each a block of 64 threads moving at most 256 B, most of them partial) is
  // all launch and bounds tests: the interleave takes it wherever it exists. Measured on an H100 (fraction of
  // the copy, same call): (6,7,8,9,10,11) perm (1,0,3,2,5,4) f32, 8 x 8 tiles 0.449, the interleave 0.898.
  const int wb = access_bytes(*base), wi = access_bytes(*il);
  const double sb = sectors_per_byte(*base), si = sectors_per_byte(*il);
  auto conflicted = [](const WarpCost& c) { return c.wavefronts > 2 * c.ideal_wavefronts; };
  const bool banks = conflicted(il->smem_write) || conflicted(il->smem_read);
  const bool tiny =
      base->kind == ConvertKind::kTiled && base->extent_a < kTinyGroup && base->extent_b < kTinyGroup;
  const bool cheaper = wi > wb || (wi == wb && si < sb);
  const bool take = !banks && (tiny || cheaper);
  il->reason = describe(*il);
  std::string why =
      take ? "; it beat " + base->reason +
                 (tiny && !cheaper ? " (both groups of the tile shorter than " + std::to_string(kTinyGroup) +
                                         " units: tiles of a few hundred bytes, mostly partial)"
                                   : "")
           : "; it beat " + il->reason +
                 (banks ? " (whose exchange takes " +
                              std::to_string(std::max(il->smem_write.wavefronts, il->smem_read.wavefronts)) +
                              " shared wavefronts per access, ideal " +
                              std::to_string(il->smem_read.ideal_wavefronts) + ")"
                        : "");
  ConvertPlan& chosen = take ? *il : *base;
  if (take) {
    take_direct_stores(chosen);
    chosen.reason = describe(chosen) + why;
  } else {
    chosen.reason += why;
  }
  return std::move(chosen);
}

Result<Layout> permuted_layout(const std::vector<int64_t>& shape, const std::vector<int64_t>& perm) {
  const size_t n = shape.size();
  if (perm.size() != n) {
    return make_error("perm has " + std::to_string(perm.size()) + " entries, the shape " + std::to_string(n),
                      0, "perm");
  }
  std::vector<bool> seen(n, false);
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(n) || seen[static_cast<size_t>(p)]) {
      return make_error("perm must be a permutation of 0.." + std::to_string(n - 1), 0, "perm");
    }
    seen[static_cast<size_t>(p)] = true;
  }
  // Destination dimension k is source dimension perm[k]; its stride is the product of the dimensions after k.
  std::vector<int64_t> dst_stride(n, 1);
  int64_t s = 1;
  for (size_t k = n; k-- > 0;) {
    const auto d = static_cast<size_t>(perm[k]);
    dst_stride[d] = s;
    if (mul_overflows(s, shape[d], &s)) return make_error("shape: too many elements", 0, "shape");
  }
  Layout dst;
  for (size_t i = 0; i < n; ++i)
    dst.shard.push_back(Mode{shape[i], AxisStride{dst_stride[i], std::string(kMemoryAxis)}});
  return dst;
}

Result<ConvertPlan> plan_permute(const std::vector<int64_t>& shape, const std::vector<int64_t>& perm,
                                 DType dtype) {
  auto dst = permuted_layout(shape, perm);
  if (!dst) return dst.error();
  std::vector<int64_t> identity(shape.size());
  std::iota(identity.begin(), identity.end(), 0);
  auto src = permuted_layout(shape, identity);
  if (!src) return src.error();
  return plan_convert(*src, *dst, shape, dtype);
}

namespace {
// Shared wavefronts of one warp instruction whose active lanes are (lane, byte address): the lanes are served
// in groups by their lane number (8 lanes a group at 16 B, 16 at 8 B, 32 at 4 B or less), so that lanes
// a partial tile leaves out do not move the others into another group.
int lane_group_wavefronts(const std::vector<std::pair<int, int64_t>>& lanes, int width) {
  const int per_group = 128 / std::max(width, 4);
  int total = 0;
  std::vector<int64_t> group;
  for (int g = 0; g < 32 / per_group; ++g) {
    group.clear();
    for (const auto& [lane, at] : lanes) {
      if (lane / per_group == g) group.push_back(at);
    }
    if (!group.empty()) total += shared_cost(group, width).wavefronts;
  }
  return total;
}
// Sectors and requests of the global loads and stores, wavefronts and instructions of the shared stores and
// loads, summed over a kernel's warp instructions. Each call adds one warp instruction whose active lanes
// access the addresses given (none active: no instruction).
struct AccessSums {
  double rs = 0, rq = 0, ws = 0, wq = 0, ss = 0, sq = 0, ls = 0, lq = 0;
  void load(const std::vector<int64_t>& addrs, int width) { add_global(addrs, width, rs, rq); }
  void store(const std::vector<int64_t>& addrs, int width) { add_global(addrs, width, ws, wq); }
  void shared_store(const std::vector<std::pair<int, int64_t>>& lanes, int width) {
    add_shared(lanes, width, ss, sq);
  }
  void shared_load(const std::vector<std::pair<int, int64_t>>& lanes, int width) {
    add_shared(lanes, width, ls, lq);
  }
  // The averages per instruction, where the kernel has such instructions.
  ConvertAverages into(ConvertAverages avg) const {
    if (rq > 0) avg.read_sectors = rs / rq;
    if (wq > 0) avg.write_sectors = ws / wq;
    if (sq > 0) avg.smem_store_wavefronts = ss / sq;
    if (lq > 0) avg.smem_load_wavefronts = ls / lq;
    avg.modelled = true;
    return avg;
  }

 private:
  static void add_global(const std::vector<int64_t>& addrs, int width, double& sectors, double& requests) {
    if (addrs.empty()) return;
    sectors += static_cast<double>(global_cost(addrs, width).sectors);
    requests += 1;
  }
  static void add_shared(const std::vector<std::pair<int, int64_t>>& lanes, int width, double& wavefronts,
                         double& instructions) {
    if (lanes.empty()) return;
    wavefronts += lane_group_wavefronts(lanes, width);
    instructions += 1;
  }
};

// The load pass of a plan whose register blocks two threads share (`half_blocks`), for the warp of threads
// first .. first+31: thread 2t + h loads, for each of block t's R rows, the aligned 8 B word that holds unit
// V/2 * h of the row and the next one where the row's V/2 units (fewer at the end of group b) reach into it;
// then it stores the block's columns V/2 * h .. V/2 * h + V/2 - 1, R units each.
void half_block_load_averages(const ConvertPlan& plan, int64_t a0, int64_t b0, int64_t src_base,
                              int64_t first, AccessSums& sums) {
  const int64_t v = plan.vector_units, r = plan.block_rows, half = v / 2, word = kVectorBytes / 2;
  const int64_t blocks = register_blocks(plan);
  struct Lane {
    int lane;
    LoadBlock b;
    int64_t h;
  };
  std::vector<Lane> live;
  for (int64_t th = first; th < first + 32 && th / 2 < blocks; ++th) {
    const LoadBlock b = load_block(plan, th / 2);
    const int64_t h = th % 2;
    if (b0 + b.bb * v + h * half < plan.extent_b) live.push_back({static_cast<int>(th - first), b, h});
  }
  if (live.empty()) return;
  std::vector<int64_t> lo, hi;
  for (int64_t k = 0; k < r; ++k) {
    lo.clear();
    hi.clear();
    for (const Lane& l : live) {
      const int64_t ia = a0 + l.b.ba * r + k;
      if (ia >= plan.extent_a) continue;
      const int64_t ib = b0 + l.b.bb * v + l.h * half;
      const int64_t at = side_element(plan, true, (src_base + group_a_src(plan, ia) + ib) * plan.unit_elems) *
                         plan.elem_bytes;
      const int64_t valid = std::min(half, plan.extent_b - ib) * plan.unit_bytes;
      lo.push_back(at / word * word);
      if (at % word + valid > word) hi.push_back(at / word * word + word);
    }
    sums.load(lo, static_cast<int>(word));
    sums.load(hi, static_cast<int>(word));
  }
  std::vector<std::pair<int, int64_t>> sh;
  for (int64_t j = 0; j < half; ++j) {
    sh.clear();
    for (const Lane& l : live)
      sh.push_back({l.lane, staging_offset(plan, l.b.ba * r, l.b.bb * v + l.h * half + j)});
    sums.shared_store(sh, staging_store_bytes(plan));
  }
}

// The store passes of an unaligned tile for the warp whose first thread is `first`, as the generated kernel
// issues them: the body (two shared loads, one 16 B global store a trip), then the edges (two shared loads,
// then one store instruction per piece size in each direction, each a request where a lane stores that
// piece).
void unaligned_store_averages(const ConvertPlan& plan, int64_t a0, int64_t b0, int64_t dst_base,
                              int64_t first, AccessSums& sums) {
  const int64_t v = plan.vector_units, ub = plan.unit_bytes, ca = plan.tile_a / v;
  const int64_t units = std::min(plan.tile_a, plan.extent_a - a0);
  std::vector<std::pair<int, int64_t>> lo, hi;
  std::vector<int64_t> st;
  auto shared_pair = [&] {
    sums.shared_load(lo, kVectorBytes);
    sums.shared_load(hi, kVectorBytes);
  };
  if (warp_row_stores(plan) && units == plan.tile_a) {
    // A row per warp (warp_row_stores): the shared chunks of every lane (one where the row starts on a
    // window), the body windows of lanes 0-30 (all 32 there), then lane 31's pieces of the head and the tail,
    // a store instruction each.
    for (int64_t row = first / 32; row < plan.tile_b; row += plan.threads / 32) {
      const int64_t ib = b0 + row;
      if (ib >= plan.extent_b) break;
      const int64_t start = dst_base + a0 + group_b_dst(plan, ib), shift = start % v;
      const int64_t win = (start - shift) * ub;
      lo.clear();
      hi.clear();
      st.clear();
      for (int lane = 0; lane < 32; ++lane) {
        lo.push_back({lane, staging_offset(plan, lane * v, row)});
        if (shift != 0) hi.push_back({lane, staging_offset(plan, (lane + 1) % 32 * v, row)});
        if (shift == 0 || lane < 31) st.push_back(win + (lane + (shift != 0 ? 1 : 0)) * kVectorBytes);
      }
      sums.shared_load(lo, kVectorBytes);
      if (shift != 0) sums.shared_load(hi, kVectorBytes);  // the second chunks: only a shifted row reads them
      sums.store(st, kVectorBytes);
      if (shift == 0) continue;
      const int cut = static_cast<int>(shift * ub);
      for (const EdgeStore& e : edge_stores(cut, kVectorBytes, static_cast<int>(ub)))
        if (e.bytes > 0) sums.store({win + e.at}, e.bytes);
      for (const EdgeStore& e : edge_stores(0, cut, static_cast<int>(ub)))
        if (e.bytes > 0) sums.store({win + ca * kVectorBytes + e.at}, e.bytes);
    }
    return;
  }
  for (int64_t trip = first; trip < plan.tile_b * ca; trip += plan.threads) {
    lo.clear();
    hi.clear();
    st.clear();
    for (int64_t t = trip; t < std::min(trip + 32, plan.tile_b * ca); ++t) {
      const int64_t row = t / ca, ib = b0 + row;
      if (ib >= plan.extent_b) continue;
      const int64_t start = dst_base + a0 + group_b_dst(plan, ib), shift = start % v;
      const int64_t k = t % ca + (shift != 0 ? 1 : 0);
      if ((k + 1) * v - shift > units) continue;
      const int lane = static_cast<int>(t - trip);
      lo.push_back({lane, staging_offset(plan, (k - (shift != 0 ? 1 : 0)) * v, row)});
      hi.push_back({lane, staging_offset(plan, k * v, row)});
      st.push_back((start - shift + k * v) * ub);
    }
    shared_pair();
    sums.store(st, kVectorBytes);
  }
  for (int64_t trip = first; trip < plan.tile_b * 2; trip += plan.threads) {
    lo.clear();
    hi.clear();
    struct Edge {
      int64_t win, b, e;
    };
    std::vector<Edge> edges;
    for (int64_t t = trip; t < std::min(trip + 32, plan.tile_b * 2); ++t) {
      const int64_t row = t / 2, ib = b0 + row;
      if (ib >= plan.extent_b) continue;
      const int64_t start = dst_base + a0 + group_b_dst(plan, ib);
      const RowWindows w = row_windows(plan, start, units);
      const bool head = t % 2 == 0;
      const int64_t win = head ? 0 : w.body_end;
      const int64_t from = head ? 0 : w.tail_start, to = head ? w.head_end : units;
      if (from >= to) continue;
      const int lane = static_cast<int>(t - trip);
      const int64_t c1 = std::min(win, ca - 1), c0 = std::max(w.shift != 0 ? win - 1 : win, int64_t{0});
      lo.push_back({lane, staging_offset(plan, c0 * v, row)});
      hi.push_back({lane, staging_offset(plan, c1 * v, row)});
      edges.push_back(
          {(start - w.shift + win * v) * ub, (from - win * v + w.shift) * ub, (to - win * v + w.shift) * ub});
    }
    shared_pair();
    std::vector<std::vector<EdgeStore>> stores;
    for (const Edge& e : edges) {
      stores.push_back(edge_stores(static_cast<int>(e.b), static_cast<int>(e.e), static_cast<int>(ub)));
    }
    // One request per store instruction, of the lanes whose piece it is.
    const size_t slots = stores.empty() ? 0 : stores.front().size();
    for (size_t i = 0; i < slots; ++i) {
      st.clear();
      int size = 0;
      for (size_t j = 0; j < edges.size(); ++j) {
        if (stores[j][i].bytes == 0) continue;
        size = stores[j][i].bytes;
        st.push_back(edges[j].win + stores[j][i].at);
      }
      if (size > 0) sums.store(st, size);
    }
  }
}
// The unaligned vector kernel: each thread's kIlp windows of 16 B (threads apart), first every window's
// aligned word and, where the window's bytes of its run reach past it, the next word (a load each); then, for
// a window that spans the end of a run, the next run's first bytes the same way (two more loads); then the
// store. Each instruction is a request where one of its lanes takes part.
ConvertAverages unaligned_vector_averages(const ConvertPlan& plan, ConvertAverages avg) {
  constexpr int kIlp = 4;  // the generated vector kernel's windows per thread
  const int64_t v = plan.vector_units, eb = plan.elem_bytes, run = plan.modes.back().extent;
  const int64_t nvec = plan.elements / v, per_block = int64_t{plan.threads} * kIlp;
  AccessSums sums;
  std::vector<int64_t> lo, hi, lo2, hi2, st;
  auto words = [&](int64_t element, int64_t bytes, std::vector<int64_t>& first,
                   std::vector<int64_t>& second) {
    const int64_t at = element * eb;
    first.push_back(at / kVectorBytes * kVectorBytes);
    if (at % kVectorBytes + bytes > kVectorBytes) second.push_back(at / kVectorBytes * kVectorBytes + 16);
  };
  // Window u of each lane of a warp that has one: f(g, d, m), its index, first element and the elements left
  // in its run.
  auto windows = [&](int64_t blk, int64_t warp, int u, auto&& f) {
    for (int lane = 0; lane < 32; ++lane) {
      const int64_t g = blk * per_block + warp * 32 + lane + int64_t{u} * plan.threads;
      if (g >= nvec) continue;
      const int64_t d = g * v;
      f(g, d, run - d % run);
    }
  };
  for (int64_t blk = 0; blk * per_block < nvec; ++blk) {
    for (int64_t warp = 0; warp < plan.threads / 32; ++warp) {
      for (int u = 0; u < kIlp; ++u) {
        lo.clear();
        hi.clear();
        windows(blk, warp, u, [&](int64_t, int64_t d, int64_t m) {
          words(gather_offset(plan, d), m >= v ? kVectorBytes : m * eb, lo, hi);
        });
        sums.load(lo, kVectorBytes);
        sums.load(hi, kVectorBytes);
      }
      for (int u = 0; u < kIlp; ++u) {
        lo2.clear();
        hi2.clear();
        st.clear();
        windows(blk, warp, u, [&](int64_t g, int64_t d, int64_t m) {
          if (m < v) words(gather_offset(plan, d + m), kVectorBytes - m * eb, lo2, hi2);
          st.push_back(g * kVectorBytes);
        });
        sums.load(lo2, kVectorBytes);
        sums.load(hi2, kVectorBytes);
        sums.store(st, kVectorBytes);
      }
    }
  }
  // No shared memory: the shared fields keep the plan's (zero) prediction.
  return sums.into(avg);
}
// The interleave into records (planes in, records out), every chunk whole: per warp, C plane loads and C
// exchange stores by the lanes whose item is whole, then R rounds in which lane l takes chunk 32 k + l of the
// warp's records (record chunk j of lane `owner`): an exchange load and a global store where the owner's item
// is whole.
ConvertAverages interleave_averages(const ConvertPlan& plan, ConvertAverages avg) {
  const int64_t eb = plan.elem_bytes, v = plan.vector_units, rec = plan.record_units;
  const int width = access_bytes(plan);
  AccessSums sums;
  std::vector<int64_t> gl;
  std::vector<std::pair<int, int64_t>> sh;
  std::vector<InterleaveItem> items(32);
  for (int64_t warp_first = 0; warp_first < plan.blocks * plan.threads; warp_first += 32) {
    bool any = false;
    for (int lane = 0; lane < 32; ++lane) {
      items[static_cast<size_t>(lane)] = interleave_item(plan, warp_first + lane);
      any = any || items[static_cast<size_t>(lane)].live;
    }
    if (!any) continue;
    auto whole = [&](int64_t lane) {
      const InterleaveItem& it = items[static_cast<size_t>(lane)];
      return it.live && it.units == v;
    };
    for (int64_t k = 0; k < plan.small_extent; ++k) {
      gl.clear();
      sh.clear();
      for (int lane = 0; lane < 32; ++lane) {
        if (!whole(lane)) continue;
        gl.push_back(side_element(plan, true, items[static_cast<size_t>(lane)].src + k * plan.plane_stride) *
                     eb);
        if (!plan.direct_stores) sh.push_back({lane, exchange_byte(plan, lane, k)});
      }
      sums.load(gl, width);
      if (!plan.direct_stores) sums.shared_store(sh, width);
    }
    if (plan.direct_stores) {
      // Each lane's own record, chunk by chunk.
      for (int64_t j = 0; j < rec; ++j) {
        gl.clear();
        for (int lane = 0; lane < 32; ++lane) {
          if (whole(lane))
            gl.push_back(side_element(plan, false, items[static_cast<size_t>(lane)].dst + j * v) * eb);
        }
        sums.store(gl, width);
      }
      continue;
    }
    for (int64_t k = 0; k < rec; ++k) {
      gl.clear();
      sh.clear();
      for (int lane = 0; lane < 32; ++lane) {
        const int64_t q = k * 32 + lane, owner = q / rec, j = q % rec;
        if (!whole(owner)) continue;
        sh.push_back({lane, exchange_byte(plan, owner, j)});
        gl.push_back(side_element(plan, false, items[static_cast<size_t>(owner)].dst + j * v) * eb);
      }
      sums.store(gl, width);
      sums.shared_load(sh, width);
    }
  }
  return sums.into(avg);
}
}  // namespace

namespace {
// Where block `blk` of a tiled plan works, as the kernel decodes its block index: the tile index along a
// fastest, then along b, then the batch modes (innermost first). a0 and b0 are the tile's first units along a
// and b; src_base and dst_base the offsets of its batch on each side.
struct TiledBlock {
  int64_t a0, b0, src_base, dst_base;
};

TiledBlock tiled_block(const ConvertPlan& plan, const std::vector<int>& batch_modes, int64_t tiles_a,
                       int64_t tiles_b, int64_t blk) {
  TiledBlock t{(blk % tiles_a) * plan.tile_a, ((blk / tiles_a) % tiles_b) * plan.tile_b, 0, 0};
  int64_t batch = blk / (tiles_a * tiles_b);
  for (int i : batch_modes) {
    const ConvertMode& m = plan.modes[i];
    t.src_base += (batch % m.extent) * m.src_stride;
    t.dst_base += (batch % m.extent) * m.dst_stride;
    batch /= m.extent;
  }
  return t;
}
}  // namespace

ConvertAverages convert_kernel_averages(const ConvertPlan& plan) {
  ConvertAverages avg;
  avg.read_sectors = static_cast<double>(plan.global_read.sectors);
  avg.write_sectors = static_cast<double>(plan.global_write.sectors);
  avg.smem_store_wavefronts = plan.smem_write.wavefronts;
  avg.smem_load_wavefronts = plan.smem_read.wavefronts;
  if (plan.kind == ConvertKind::kVector && plan.unaligned) return unaligned_vector_averages(plan, avg);
  if (plan.kind == ConvertKind::kInterleave && plan.packed_dst && !plan.unaligned &&
      plan.long_extent % plan.vector_units == 0)
    return interleave_averages(plan, avg);
  if (plan.kind != ConvertKind::kTiled || plan.paired || plan.unit_lanes > 1) return avg;
  const int v = plan.vector_units, r = plan.block_rows, eb = plan.elem_bytes;
  const int width = access_bytes(plan), store_width = staging_store_bytes(plan);
  const int64_t tiles_a = ceil_div(plan.extent_a, plan.tile_a),
                tiles_b = ceil_div(plan.extent_b, plan.tile_b);
  const int64_t load_items = register_blocks(plan), store_items = plan.tile_b * (plan.tile_a / v);
  const std::vector<int> batch_modes = convert_batch_modes(plan);
  AccessSums sums;
  std::vector<int64_t> gl, hi;
  std::vector<std::pair<int, int64_t>> sh;
  // Every block's instructions, warp by warp: the load pass (R global loads and V shared column stores a
  // trip), then the store pass (a shared load and a global store a trip).
  for (int64_t blk = 0; blk < plan.blocks; ++blk) {
    const auto [a0, b0, src_base, dst_base] = tiled_block(plan, batch_modes, tiles_a, tiles_b, blk);
    for (int64_t first = 0; first < plan.threads; first += 32) {
      if (plan.half_blocks) {
        half_block_load_averages(plan, a0, b0, src_base, first, sums);
        unaligned_store_averages(plan, a0, b0, dst_base, first, sums);
        continue;
      }
      for (int64_t trip = first; trip < load_items; trip += plan.threads) {
        std::vector<std::pair<int, LoadBlock>> live;
        for (int64_t t = trip; t < std::min(trip + 32, load_items); ++t) {
          const LoadBlock b = load_block(plan, t);
          if (b0 + b.bb * v < plan.extent_b) live.push_back({static_cast<int>(t - trip), b});
        }
        if (live.empty()) continue;
        for (int k = 0; k < r; ++k) {
          gl.clear();
          hi.clear();
          for (const auto& [lane, b] : live) {
            const int64_t ia = a0 + b.ba * r + k;
            if (ia >= plan.extent_a) continue;
            const int64_t s = src_base + group_a_src(plan, ia) + b0 + b.bb * v;
            const int64_t at = side_element(plan, true, s * plan.unit_elems) * eb;
            if (!plan.unaligned) {
              gl.push_back(at);
              continue;
            }
            // The aligned word that holds the row's first byte, and the next one where the row's bytes in
            // the tensor reach into it (a load of its own).
            const int64_t valid = std::min<int64_t>(v, plan.extent_b - (b0 + b.bb * v)) * plan.unit_bytes;
            gl.push_back(at / kVectorBytes * kVectorBytes);
            if (at % kVectorBytes + valid > kVectorBytes) hi.push_back(at / kVectorBytes * kVectorBytes + 16);
          }
          sums.load(gl, width);
          sums.load(hi, width);
        }
        // The block's V columns, one shared store each (block_rows units: 4 B for 4 rows of bytes).
        for (int j = 0; j < v; ++j) {
          sh.clear();
          for (const auto& [lane, b] : live)
            sh.push_back({lane, staging_offset(plan, b.ba * r, b.bb * v + j)});
          sums.shared_store(sh, store_width);
        }
      }
      if (plan.unaligned) {
        unaligned_store_averages(plan, a0, b0, dst_base, first, sums);
        continue;
      }
      for (int64_t trip = first; trip < store_items; trip += plan.threads) {
        gl.clear();
        sh.clear();
        for (int64_t t = trip; t < std::min(trip + 32, store_items); ++t) {
          const StoreItem it = store_item(plan, t);
          const int64_t ia = a0 + it.ia, ib = b0 + it.ib;
          if (ia >= plan.extent_a || ib >= plan.extent_b) continue;
          sh.push_back({static_cast<int>(t - trip), staging_offset(plan, it.ia, it.ib)});
          const int64_t d = dst_base + group_a_dst(plan, ia) + group_b_dst(plan, ib);
          gl.push_back(side_element(plan, false, d * plan.unit_elems) * eb);
        }
        sums.store(gl, width);
        sums.shared_load(sh, width);
      }
    }
  }
  return sums.into(avg);
}

int64_t convert_traffic_bytes(const ConvertPlan& plan) {
  const double useful = static_cast<double>(plan.elements) * plan.elem_bytes;
  auto side = [&](const WarpCost& c) {
    const double ideal = static_cast<double>(c.lanes) * c.bytes_per_lane;
    if (c.sectors <= 0 || ideal <= 0) return useful;
    return useful * std::max(1.0, static_cast<double>(c.sectors) * 32.0 / ideal);
  };
  // Direct stores write half of each sector a store touches and the other half in the lane's next store: the
  // warp's records are contiguous, so what reaches DRAM is the useful bytes, as through the exchange.
  return static_cast<int64_t>(side(plan.global_read) +
                              (plan.direct_stores ? useful : side(plan.global_write)));
}

int64_t gather_offset(const ConvertPlan& plan, int64_t dst_offset) {
  // In units of the plan's modes; an offset inside a unit keeps its place.
  const int64_t u = plan.kind == ConvertKind::kTiled ? plan.unit_elems : 1;
  int64_t unit = dst_offset / u, src = 0;
  for (size_t i = plan.modes.size(); i-- > 0;) {
    const ConvertMode& m = plan.modes[i];
    src += (unit % m.extent) * m.src_stride;
    unit /= m.extent;
  }
  return src * u + dst_offset % u;
}

GatherModes gather_modes(const ConvertPlan& plan) {
  const int64_t u = plan.kind == ConvertKind::kTiled ? plan.unit_elems : 1;
  std::vector<ConvertMode> elements;
  for (const ConvertMode& m : plan.modes) elements.push_back({m.extent, m.src_stride * u, m.dst_stride * u});
  if (u > 1) elements.push_back({u, 1, 1});
  std::vector<ConvertMode> fused;
  for (const ConvertMode& m : elements) {
    if (m.extent == 1) continue;
    if (!fused.empty() && fused.back().src_stride == m.extent * m.src_stride) {
      fused.back() = {fused.back().extent * m.extent, m.src_stride, m.dst_stride};
    } else {
      fused.push_back(m);
    }
  }
  if (fused.empty()) fused.push_back({1, 1, 1});
  std::vector<int64_t> divide = side_granules(plan);
  divide.push_back(fused.back().src_stride == 1 ? fused.back().extent : 1);
  for (size_t i = 0; i + 1 < fused.size(); ++i) divide.push_back(fused[i].src_stride);
  const int64_t w = largest_common_pow2(std::max(1, kVectorBytes / plan.elem_bytes), {}, divide);
  GatherModes g{fused, w};
  for (size_t i = 0; i < g.modes.size(); ++i) {
    ConvertMode& m = g.modes[i];
    if (i + 1 == g.modes.size() && m.src_stride == 1) {
      m.extent /= w;  // the run the units split (its strides are 1 in units too)
    } else {
      m.src_stride /= w;
      m.dst_stride /= w;
    }
  }
  return g;
}

namespace {
// Offset of index i of a group of modes (innermost first), on the source or the destination side.
int64_t group_offset(const ConvertPlan& plan, const std::vector<int>& group, int64_t i, bool src) {
  int64_t off = 0;
  for (int m : group) {
    off += (i % plan.modes[m].extent) * (src ? plan.modes[m].src_stride : plan.modes[m].dst_stride);
    i /= plan.modes[m].extent;
  }
  return off;
}
}  // namespace

int64_t group_a_src(const ConvertPlan& plan, int64_t ia) {
  return group_offset(plan, plan.group_a, ia, true);
}

int64_t group_a_dst(const ConvertPlan& plan, int64_t ia) {
  return group_offset(plan, plan.group_a, ia, false);
}

int64_t staging_byte(const ConvertPlan& plan, int64_t ia, int64_t ib) {
  return ((ia / plan.run_a) * plan.tile_b + ib) * plan.row_bytes + (ia % plan.run_a) * plan.unit_bytes;
}

int access_bytes(const ConvertPlan& plan) { return plan.vector_units * plan.unit_bytes / plan.unit_lanes; }

int64_t register_blocks(const ConvertPlan& plan) {
  return plan.tile_a / plan.block_rows * (plan.tile_b / plan.vector_units);
}

int load_bytes(const ConvertPlan& plan) { return plan.half_blocks ? kVectorBytes / 2 : access_bytes(plan); }

RowWindows row_windows(const ConvertPlan& plan, int64_t first, int64_t units) {
  const int64_t v = plan.vector_units;
  RowWindows w;
  w.shift = first % v;
  w.body_first = w.shift > 0 ? 1 : 0;
  w.body_end = std::max((units + w.shift) / v, w.body_first);
  w.head_end = std::min(w.shift > 0 ? v - w.shift : 0, units);
  w.tail_start = std::max(w.body_end * v - w.shift, w.head_end);
  return w;
}

std::vector<EdgeStore> edge_stores(int b, int e, int unit) {
  auto up = [&](int s) { return (b + s - 1) & ~(s - 1); };
  std::vector<EdgeStore> stores;
  int b1 = b;
  for (int s = 1; s <= 16; s *= 2) {
    if (up(s) <= e) b1 = up(s);
    if (s >= unit && s <= 8) {
      const bool set = (up(s) & s) != 0 && up(s) + s <= e;
      stores.push_back({up(s), set ? s : 0});
    }
  }
  const int len = e - b1;
  for (int s = 8; s >= unit; s /= 2) stores.push_back({b1 + (len & ~(2 * s - 1)), (len & s) != 0 ? s : 0});
  return stores;
}

bool warp_row_stores(const ConvertPlan& plan) {
  return plan.kind == ConvertKind::kTiled && plan.unaligned && plan.tile_a == 32 * plan.vector_units;
}

LoadBlock load_block(const ConvertPlan& plan, int64_t t) {
  const int64_t nb = plan.tile_b / plan.vector_units, wb = plan.warp_b;
  if (wb >= nb) return {t / nb, t % nb};
  const int64_t warp = t / 32, lane = t % 32, warps_b = nb / wb;
  return {warp / warps_b * (32 / wb) + lane / wb, warp % warps_b * wb + lane % wb};
}

int staging_store_bytes(const ConvertPlan& plan) {
  return plan.unit_lanes > 1 ? access_bytes(plan) : plan.block_rows * plan.unit_bytes;
}

ColumnStep staging_column_step(const ConvertPlan& plan) {
  const Swizzle& s = plan.staging;
  const auto v = static_cast<uint64_t>(plan.vector_units);
  if (!std::has_single_bit(static_cast<uint64_t>(plan.row_bytes)) || !std::has_single_bit(v) ||
      plan.tile_b % plan.vector_units != 0)
    return ColumnStep::kPerColumn;
  if (s.bits <= 0) return ColumnStep::kAdd;
  // The columns' bits [lo, hi), against the field the swizzle reads and the one it changes.
  const int lo = log2_exact(plan.row_bytes), hi = lo + log2_exact(plan.vector_units);
  const int low = s.base, high = s.base + s.shift;
  auto misses = [&](int field) { return hi <= field || field + s.bits <= lo; };
  if (!misses(s.inner ? high : low)) return ColumnStep::kXorSwizzled;
  return misses(s.inner ? low : high) ? ColumnStep::kAdd : ColumnStep::kXor;
}

int64_t staging_column_offset(const ConvertPlan& plan, int64_t j) {
  return apply_swizzle(plan.staging, j * plan.row_bytes);
}

int64_t group_b_dst(const ConvertPlan& plan, int64_t ib) {
  return group_offset(plan, plan.group_b, ib, false);
}

std::vector<int> convert_batch_modes(const ConvertPlan& plan) {
  std::vector<int> batch;
  for (int i = static_cast<int>(plan.modes.size()); i-- > 0;) {
    if (plan.kind == ConvertKind::kInterleave) {
      if (i != plan.small_mode && i != plan.long_mode) batch.push_back(i);
      continue;
    }
    if (std::find(plan.group_a.begin(), plan.group_a.end(), i) == plan.group_a.end() &&
        std::find(plan.group_b.begin(), plan.group_b.end(), i) == plan.group_b.end()) {
      batch.push_back(i);
    }
  }
  return batch;
}

int64_t exchange_byte(const ConvertPlan& plan, int64_t lane, int64_t j) {
  const int64_t slot = j ^ ((lane >> plan.exchange_shift) & plan.exchange_mask);
  return (lane * plan.lane_chunks + slot) * plan.vector_units * plan.elem_bytes;
}

int64_t source_extent(const ConvertPlan& plan) {
  const int64_t u = plan.kind == ConvertKind::kTiled ? plan.unit_elems : 1;
  int64_t last = 0;
  for (const ConvertMode& m : plan.modes) last += (m.extent - 1) * m.src_stride;
  // The swizzle can set any bit it changes, never one above them.
  return ((last * u + u - 1 + plan.src_offset) | swizzle_changed_mask(plan.src_swizzle)) + 1;
}

int64_t destination_extent(const ConvertPlan& plan) {
  if (plan.elements == 0) return plan.dst_offset;
  return ((plan.elements - 1 + plan.dst_offset) | swizzle_changed_mask(plan.dst_swizzle)) + 1;
}

int64_t side_element(const ConvertPlan& plan, bool src, int64_t e) {
  return apply_swizzle(src ? plan.src_swizzle : plan.dst_swizzle,
                       e + (src ? plan.src_offset : plan.dst_offset));
}

Result<int64_t> execute_convert_host(const ConvertPlan& plan, std::span<const std::byte> in,
                                     std::span<std::byte> out, const std::function<bool()>& stopped) {
  const int64_t eb = plan.elem_bytes;
  // asked once each time another 2^20 elements have been moved
  int64_t next_check = int64_t{1} << 20;
  auto stop_now = [&](int64_t moved_so_far) {
    if (!stopped || moved_so_far < next_check) return false;
    next_check = moved_so_far + (int64_t{1} << 20);
    return stopped();
  };
  const Error stop_error = make_error("the conversion was stopped before it finished", 0, "stopped");
  if (static_cast<int64_t>(in.size()) < source_extent(plan) * eb)
    return make_error("input buffer too small", 0, "in");
  if (static_cast<int64_t>(out.size()) < destination_extent(plan) * eb)
    return make_error("output buffer too small", 0, "out");
  int64_t moved = 0;
  if (plan.kind == ConvertKind::kVector) {
    const int64_t v = plan.vector_units, run = plan.modes.back().extent;
    for (int64_t d = 0; d < plan.elements; d += v) {
      if (stop_now(moved)) return stop_error;
      if (plan.unaligned && d % run + v > run) {
        // A window across the end of a run: the rest of this run, then the start of the next.
        const int64_t m = run - d % run;
        std::memcpy(out.data() + d * eb, in.data() + gather_offset(plan, d) * eb,
                    static_cast<size_t>(m * eb));
        std::memcpy(out.data() + (d + m) * eb, in.data() + gather_offset(plan, d + m) * eb,
                    static_cast<size_t>((v - m) * eb));
        moved += v;
        continue;
      }
      std::memcpy(out.data() + side_element(plan, false, d) * eb,
                  in.data() + side_element(plan, true, gather_offset(plan, d)) * eb,
                  static_cast<size_t>(v * eb));
      moved += v;
    }
    return moved;
  }
  if (plan.kind == ConvertKind::kInterleave) {
    // One warp at a time, as the kernel's lanes do it: the planar side's C chunks of V units per lane, the
    // warp's exchange area of 32 x C chunks in the packed order, and the packed side's chunks in order.
    const int64_t c = plan.small_extent, rec = plan.record_units, v = plan.vector_units, vb = v * eb;
    const int64_t planar = plan.plane_stride,
                  packed = rec;  // strides of plane k, of unit i along the long mode
    std::vector<std::byte> exchange(static_cast<size_t>(32 * plan.lane_chunks * vb));
    // Unit u of a lane's chunks in the packed order: unit u % V of chunk u / V.
    auto lane_unit = [&](int64_t lane, int64_t u) { return exchange_byte(plan, lane, u / v) + u % v * eb; };
    for (int64_t w0 = 0; w0 < plan.items; w0 += 32) {
      if (stop_now(moved)) return stop_error;
      InterleaveItem it[32];
      for (int lane = 0; lane < 32; ++lane) it[lane] = interleave_item(plan, w0 + lane);
      auto whole = [&](int64_t lane) { return it[lane].live && it[lane].units == v; };
      // Unit u of record-chunk k of a lane (u < V x R in the packed order) is unit u / R of plane u % R (a
      // pad unit where u % R >= C).
      auto planar_off = [&](int64_t u) { return (u % rec) * planar + u / rec; };
      for (int lane = 0; lane < 32; ++lane) {
        const InterleaveItem& x = it[lane];
        if (!x.live || whole(lane)) continue;
        // A ragged chunk: unit by unit, outside the exchange.
        for (int64_t i = 0; i < x.units; ++i) {
          for (int64_t k = 0; k < c; ++k) {
            const int64_t s = plan.packed_dst ? x.src + k * planar + i : x.src + i * packed + k;
            const int64_t d = plan.packed_dst ? x.dst + i * packed + k : x.dst + k * planar + i;
            std::memcpy(out.data() + side_element(plan, false, d) * eb,
                        in.data() + side_element(plan, true, s) * eb, static_cast<size_t>(eb));
            ++moved;
          }
        }
      }
      if (plan.packed_dst) {
        // Planes in, interleaved into the lane's C chunks of the exchange.
        for (int lane = 0; lane < 32; ++lane) {
          if (!whole(lane)) continue;
          for (int64_t u = 0; u < c * v; ++u) {
            std::memcpy(exchange.data() + lane_unit(lane, u),
                        in.data() + side_element(plan, true, it[lane].src + planar_off(u)) * eb,
                        static_cast<size_t>(eb));
          }
        }
        // The warp's chunks in order through the exchange, or each lane's own chunks (direct_stores).
        for (int64_t k = 0; k < c; ++k) {
          for (int lane = 0; lane < 32; ++lane) {
            const int64_t q = k * 32 + lane;
            const int64_t owner = plan.direct_stores ? lane : q / c, j = plan.direct_stores ? k : q % c;
            if (!whole(owner)) continue;
            std::memcpy(out.data() + side_element(plan, false, it[owner].dst + j * v) * eb,
                        exchange.data() + exchange_byte(plan, owner, j), static_cast<size_t>(vb));
            moved += v;
          }
        }
      } else {
        for (int64_t k = 0; k < rec; ++k) {
          for (int lane = 0; lane < 32; ++lane) {
            const int64_t q = k * 32 + lane, owner = q / rec, j = q % rec;
            if (!whole(owner)) continue;
            // The last record's pad may lie past the source (the kernel's 16 B load still holds a byte of
            // it): only what the buffer holds is copied.
            const int64_t from = side_element(plan, true, it[owner].src + j * v) * eb;
            std::memcpy(exchange.data() + exchange_byte(plan, owner, j), in.data() + from,
                        static_cast<size_t>(std::clamp<int64_t>(std::ssize(in) - from, 0, vb)));
          }
        }
        // The lane's R chunks, split into planes (pad units dropped).
        for (int lane = 0; lane < 32; ++lane) {
          if (!whole(lane)) continue;
          for (int64_t u = 0; u < rec * v; ++u) {
            if (u % rec >= c) continue;
            std::memcpy(out.data() + side_element(plan, false, it[lane].dst + planar_off(u)) * eb,
                        exchange.data() + lane_unit(lane, u), static_cast<size_t>(eb));
            ++moved;
          }
        }
      }
    }
    return moved;
  }
  // Tiled: one block at a time, as the kernel's threads do it.
  const int v = plan.vector_units, r = plan.block_rows;
  const int64_t ub = plan.unit_bytes, pb = ub / plan.unit_lanes;  // a unit's pieces, one per lane
  const int64_t tiles_a = ceil_div(plan.extent_a, plan.tile_a),
                tiles_b = ceil_div(plan.extent_b, plan.tile_b);
  std::vector<std::byte> tile(static_cast<size_t>(plan.staging_bytes));
  std::vector<std::byte> block(static_cast<size_t>(r * v * ub));
  const int64_t na = plan.tile_a / v;
  const std::vector<int> batch_modes = convert_batch_modes(plan);
  for (int64_t blk = 0; blk < plan.blocks; ++blk) {
    if (stop_now(moved)) return stop_error;
    const auto [a0, b0, src_base, dst_base] = tiled_block(plan, batch_modes, tiles_a, tiles_b, blk);
    // Load R x V blocks (R rows along a of V units along b), transpose, store the columns (R units along a)
    // into the tile's rows along b.
    for (int64_t t = 0; t < register_blocks(plan); ++t) {
      const auto [ba, bb] = load_block(plan, t);
      if (b0 + bb * v >= plan.extent_b) continue;
      // V units, fewer at the end of a row of unaligned plan (whose V need not divide extent_b).
      const int64_t valid = std::min<int64_t>(v, plan.extent_b - (b0 + bb * v));
      for (int k = 0; k < r; ++k) {
        const int64_t ia = a0 + ba * r + k;
        if (ia >= plan.extent_a) continue;
        const int64_t s = src_base + group_a_src(plan, ia) + b0 + bb * v;
        std::memcpy(block.data() + k * v * ub, in.data() + side_element(plan, true, s * plan.unit_elems) * eb,
                    static_cast<size_t>(valid * ub));
      }
      for (int j = 0; j < v; ++j) {
        for (int k = 0; k < r; ++k) {
          for (int64_t piece = 0; piece < ub; piece += pb) {
            std::memcpy(tile.data() + staging_offset(plan, ba * r + k, bb * v + j, piece),
                        block.data() + (k * v + j) * ub + piece, static_cast<size_t>(pb));
          }
        }
      }
    }
    if (plan.unaligned) {
      // Each destination row of the tile: its body windows (V units each, aligned in the destination),
      // then its edges unit by unit.
      const int64_t units = std::min(plan.tile_a, plan.extent_a - a0);
      auto put = [&](int64_t row, int64_t first, int64_t u) {
        std::memcpy(out.data() + (first + u) * ub, tile.data() + staging_offset(plan, u, row),
                    static_cast<size_t>(ub));
      };
      for (int64_t row = 0; row < plan.tile_b && b0 + row < plan.extent_b; ++row) {
        const int64_t first = dst_base + a0 + group_b_dst(plan, b0 + row);
        const RowWindows w = row_windows(plan, first, units);
        for (int64_t k = w.body_first; k < w.body_end; ++k) {
          for (int64_t i = 0; i < v; ++i) put(row, first, k * v - w.shift + i);
        }
        for (int64_t u = 0; u < w.head_end; ++u) put(row, first, u);
        for (int64_t u = w.tail_start; u < units; ++u) put(row, first, u);
        moved += units * plan.unit_elems;
      }
      continue;
    }
    // Store V-unit chunks of the runs along a from the tile, in destination order.
    for (int64_t t = 0; t < plan.tile_b * na; ++t) {
      const StoreItem s = store_item(plan, t);
      const int64_t ia = a0 + s.ia, ib = b0 + s.ib;
      if (ia >= plan.extent_a || ib >= plan.extent_b) continue;
      const int64_t d = dst_base + group_a_dst(plan, ia) + group_b_dst(plan, ib);
      for (int k = 0; k < v; ++k) {
        for (int64_t piece = 0; piece < ub; piece += pb) {
          std::memcpy(out.data() + side_element(plan, false, (d + k) * plan.unit_elems) * eb + piece,
                      tile.data() + staging_offset(plan, s.ia + k, s.ib, piece), static_cast<size_t>(pb));
        }
      }
      moved += v * plan.unit_elems;
    }
  }
  return moved;
}

}  // namespace layoutscope
