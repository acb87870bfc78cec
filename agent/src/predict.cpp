#include "predict.hpp"

#include <algorithm>
#include <vector>

#include "kernel_choice.hpp"
#include "layoutscope/memory_access.hpp"
#include "layoutscope/parse.hpp"

namespace layoutscope::agent {
namespace {

using nlohmann::json;

constexpr int kWarp = 32;

// The global-memory cost of one warp instruction: lanes touch logical elements `indices` of `layout_text`
// over `shape`, `width` bytes each (vector accesses read width / 4 consecutive floats from that index).
Result<json> sectors(const std::string& layout_text, const std::vector<int64_t>& shape,
                     const std::vector<int64_t>& indices, int width, const std::string& access) {
  auto layout = parse_layout(layout_text);
  if (!layout) return layout.error();
  auto addrs = lane_addresses(*layout, shape, indices, 4);
  if (!addrs) return addrs.error();
  auto s = sector_access(*addrs, width);
  if (!s) return s.error();
  return json{{"access", access},
              {"layout", layout_text},
              {"lanes", indices.size()},
              {"bytes_per_lane", width},
              {"sectors_per_request", s->sectors},
              {"bytes_requested", s->bytes},
              {"sector_efficiency", s->efficiency}};
}

// The shared-memory cost of one warp instruction on an fp32 tile of `extent` x `extent`, `width` bytes per
// lane.
Result<json> banks(const std::string& layout_text, const std::vector<int64_t>& indices,
                   const std::string& access, int64_t extent = 32, int width = 4) {
  auto layout = parse_layout(layout_text);
  if (!layout) return layout.error();
  auto addrs = lane_addresses(*layout, {extent, extent}, indices, 4);
  if (!addrs) return addrs.error();
  auto b = bank_access(*addrs, width);
  if (!b) return b.error();
  return json{{"access", access},        {"layout", layout_text},   {"lanes", indices.size()},
              {"bytes_per_lane", width}, {"wavefronts", b->cycles}, {"ideal_wavefronts", b->groups},
              {"max_ways", b->max_ways}};
}

std::string dims_text(int64_t a, int64_t b) { return std::to_string(a) + "," + std::to_string(b); }

}  // namespace

Result<json> predict_aos_soa(const std::string& layout, int64_t n) {
  const bool aos = layout == "aos" || layout == "aos_vec";
  const std::string text = aos ? "S[(" + dims_text(n, 8) + "):(8,1)]"
                               : "S[(" + dims_text(n, 8) + "):(1," + std::to_string(n) + ")]";
  std::vector<int64_t> idx;
  int width = 4;
  std::string access = "lane i loads (and stores) field k of element i";
  if (layout == "aos_vec") {  // lane i: 16 B at fields 0-3 of element i
    width = 16;
    access = "lane i loads (and stores) fields 0-3 of element i as one 16 B access (4-7 likewise at t = 8)";
    for (int64_t i = 0; i < std::min<int64_t>(kWarp, n); ++i) idx.push_back(i * 8);
  } else if (layout == "soa_vec" && soa_vec_uses_float4(n)) {  // lane i: 16 B at elements 4i..4i+3
    width = 16;
    access = "lane i loads (and stores) field k of elements 4i..4i+3 as one 16 B access";
    for (int64_t i = 0; i < std::min<int64_t>(kWarp, n / 4); ++i) idx.push_back(4 * i * 8);
  } else {
    for (int64_t i = 0; i < std::min<int64_t>(kWarp, n); ++i) idx.push_back(i * 8);  // element i, field 0
  }
  auto g = sectors(text, {n, 8}, idx, width, access);
  if (!g) return g.error();
  return json{{"source", "layoutscope engine (sector_access)"}, {"global", json::array({*g})}};
}

Result<double> aos_soa_sector_bound(int touch, int64_t n) {
  auto aos = predict_aos_soa("aos", n);
  if (!aos) return aos.error();
  auto soa = predict_aos_soa("soa", n);
  if (!soa) return soa.error();
  const double a = (*aos)["global"][0]["sectors_per_request"].get<double>();
  const double s = (*soa)["global"][0]["sectors_per_request"].get<double>();
  return a / (touch * s);
}

// 64x64 tile kernels (cuda_kernels.cu transpose_tile64_kernel): a warp's load instruction reads rows r, r + 1
// as 16 lanes x 16 B each; the shared tile is written the same way and read as a column of 16 B chunks
// (lane l reads tile(4 (l % 16), 4 (l / 16))); the transposed 4x4 blocks are written to a row-major staging
// tile (lane l: staging(4 (l / 16) + j, 4 (l % 16)), rows of 16 chunks), and each output row piece leaves as
// one 256 B bulk copy (cp.async.bulk on sm_90: the TMA unit, not an LSU instruction, so ncu's per-request LSU
// counters do not see it), given to the engine as its 16 chunks of 16 B. The padded and swizzled tile layouts
// are given as layouts; the row-major 64x64 tile is shown last as the reference (8 lanes in one bank group).
Result<json> predict_tile64(TransposeVariant variant, int64_t dim) {
  json out = {{"source", "layoutscope engine (sector_access, bank_access)"},
              {"global", json::array()},
              {"shared", json::array()}};
  if (dim < 64 || !tile64_uses_float4(dim)) {
    out["note"] = "dim < 64 or dim % 4 != 0: every tile takes the kernel's scalar edge path; no prediction";
    return out;
  }
  const std::string global = "S[(" + dims_text(dim, dim) + "):(" + std::to_string(dim) + ",1)]";
  std::vector<int64_t> rows2, out_row, tile_rows2, tile_col;
  for (int64_t l = 0; l < kWarp; ++l) {
    rows2.push_back((l / 16) * dim + 4 * (l % 16));
    tile_rows2.push_back((l / 16) * 64 + 4 * (l % 16));
    tile_col.push_back(4 * (l % 16) * 64 + 4 * (l / 16));
  }
  for (int64_t k = 0; k < 16; ++k) out_row.push_back(4 * k);  // out(c0 + j, r0 + 4k), k = 0..15: 256 B
  auto load =
      sectors(global, {dim, dim}, rows2, 16, "load: lane l reads 16 B at in(r + l / 16, c0 + 4 (l % 16))");
  if (!load) return load.error();
  auto store =
      sectors(global, {dim, dim}, out_row, 16,
              "store: one bulk copy (TMA) writes a 256 B output row piece out(c0 + j, r0 .. r0 + 63), "
              "shown as its 16 chunks of 16 B");
  if (!store) return store.error();
  out["global"] = json::array({*load, *store});
  const std::string tile = variant == TransposeVariant::kTile64Swizzle ? "Swizzle<3,2,6> o S[(64,64):(64,1)]"
                                                                       : "S[(16,4,64):(260,64,1)]";
  auto w =
      banks(tile, tile_rows2, "shared store: lane l writes 16 B at tile(l / 16, 4 (l % 16)) (rows)", 64, 16);
  if (!w) return w.error();
  auto r =
      banks(tile, tile_col,
            "shared load: lane l reads 16 B at tile(4 (l % 16), 4 (l / 16)) (a column of chunks)", 64, 16);
  if (!r) return r.error();
  auto st = banks(
      "S[(64,64):(64,1)]", tile_rows2,
      "shared store: lane l writes 16 B at staging(4 (l / 16) + j, 4 (l % 16)) (the transposed tile's rows)",
      64, 16);
  if (!st) return st.error();
  auto ref = banks(
      "S[(64,64):(64,1)]", tile_col,
      "reference, not run: the same column read from a row-major 64x64 tile without pad or swizzle", 64, 16);
  if (!ref) return ref.error();
  out["shared"] = json::array({*w, *r, *st, *ref});
  return out;
}

Result<json> predict_transpose(TransposeVariant variant, int64_t dim) {
  if (variant == TransposeVariant::kTile64Pad || variant == TransposeVariant::kTile64Swizzle)
    return predict_tile64(variant, dim);
  const std::string global = "S[(" + dims_text(dim, dim) + "):(" + std::to_string(dim) + ",1)]";
  const int64_t lanes = std::min<int64_t>(kWarp, dim);
  std::vector<int64_t> row, column;
  for (int64_t l = 0; l < lanes; ++l) {
    row.push_back(l);           // (0, l)
    column.push_back(l * dim);  // (l, 0)
  }
  json out = {{"source", "layoutscope engine (sector_access, bank_access)"},
              {"global", json::array()},
              {"shared", json::array()}};
  if (variant == TransposeVariant::kCopy) {
    std::vector<int64_t> vec;
    for (int64_t l = 0; l < kWarp && 4 * l + 3 < dim * dim; ++l) vec.push_back(4 * l);
    if (vec.empty()) vec.push_back(0);
    const int width = vec.size() > 1 || dim * dim >= 4 ? 16 : 4;
    for (const char* a :
         {"load: lane i reads 16 B at element 4i", "store: lane i writes 16 B at element 4i"}) {
      auto g = sectors(global, {dim, dim}, vec, width, a);
      if (!g) return g.error();
      out["global"].push_back(*g);
    }
    return out;
  }
  auto load = sectors(global, {dim, dim}, row, 4, "load: lane i reads in(r, c0 + i) (a row)");
  if (!load) return load.error();
  out["global"].push_back(*load);
  if (variant == TransposeVariant::kNaive) {
    auto store = sectors(global, {dim, dim}, column, 4, "store: lane i writes out(c0 + i, r) (a column)");
    if (!store) return store.error();
    out["global"].push_back(*store);
    return out;
  }
  auto store = sectors(global, {dim, dim}, row, 4, "store: lane i writes out(r, c0 + i) (a row)");
  if (!store) return store.error();
  out["global"].push_back(*store);
  const std::string tile = variant == TransposeVariant::kPad ? "S[(32,32):(33,1)]" : "S[(32,32):(32,1)]";
  std::vector<int64_t> tile_row, tile_col;
  for (int64_t l = 0; l < kWarp; ++l) {
    tile_row.push_back(l);       // tile[0][l]
    tile_col.push_back(l * 32);  // tile[l][0]
  }
  auto w = banks(tile, tile_row, "shared store: lane i writes tile[r][i] (a row)");
  if (!w) return w.error();
  auto r = banks(tile, tile_col, "shared load: lane i reads tile[i][c] (a column)");
  if (!r) return r.error();
  out["shared"].push_back(*w);
  out["shared"].push_back(*r);
  return out;
}

}  // namespace layoutscope::agent
