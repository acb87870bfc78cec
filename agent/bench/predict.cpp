#include "bench/predict.hpp"

#include <algorithm>
#include <vector>

#include "bench/kernel_choice.hpp"
#include "layoutscope/parse.hpp"

namespace layoutscope::agent {
namespace {

using nlohmann::json;

constexpr int kWarp = 32;

Instruction instr(Op op, int bytes) {
  Instruction i;
  i.op = op;
  i.bytes = bytes;
  return i;
}

// One instruction whose lane l starts at first[l] (lanes past first.size() idle).
Lanes one_instruction(const std::vector<int64_t>& first) {
  std::vector<int64_t> lanes(kWarp, kIdleLane);
  std::copy_n(first.begin(), std::min<size_t>(first.size(), kWarp), lanes.begin());
  return {lanes};
}

KernelAccess declare(std::string what, Layout layout, std::vector<int64_t> shape, Instruction in,
                     const std::vector<int64_t>& first) {
  return {std::move(what), WarpAccess{std::move(layout), std::move(shape), DType::kF32, in,
                                      one_instruction(first), std::nullopt}};
}

// The results' entry for one access: what the page needs to rebuild the WarpAccess (layout, shape, dtype,
// instruction, each lane's first element) and the engine's cost of it, under the names the document has
// always used for sectors and wavefronts.
Result<json> describe(const KernelAccess& k) {
  auto c = cost(k.access);
  if (!c) return c.error();
  const WarpAccess& a = k.access;
  int active = 0;
  for (int64_t x : a.lanes.front()) active += x != kIdleLane;
  json out = {{"access", k.what},
              {"layout", to_string(a.layout)},
              {"shape", a.shape},
              {"dtype", std::string(to_string(a.dtype))},
              {"instr", to_string(a.instr)},
              {"lane_elements", a.lanes},
              {"lanes", active},
              {"bytes_per_lane", a.instr.bytes}};
  if (space(a.instr.op) == Space::kGlobal) {
    out["sectors_per_request"] = c->sectors;
    out["bytes_requested"] = c->bytes;
    out["sector_efficiency"] = c->sectors ? static_cast<double>(c->bytes) / (32.0 * c->sectors) : 0.0;
  } else {
    out["wavefronts"] = c->wavefronts;
    out["ideal_wavefronts"] = c->ideal_wavefronts;
    out["conflicts"] = c->conflicts;
    out["max_ways"] = c->max_ways;
    out["ncu_wavefront_metric"] = ncu_wavefront_metric(a.instr.op);
  }
  return out;
}

}  // namespace

Result<json> describe_access(const KernelAccess& k) { return describe(k); }

namespace {

Result<json> describe_all(const std::vector<KernelAccess>& accesses, json out) {
  for (const KernelAccess& k : accesses) {
    auto d = describe(k);
    if (!d) return d.error();
    out[space(k.access.instr.op) == Space::kGlobal ? "global" : "shared"].push_back(*d);
  }
  return out;
}

}  // namespace

// aos_soa, n elements of 8 fp32 fields, as the n x 8 tensor (element, field): AoS is row-major, SoA
// column-major. The SoA float4 kernel's lane moves 4 consecutive elements of one field, so that access is
// declared on the same data seen as 8 rows of n (one array per field), where they are one row piece.
std::vector<KernelAccess> aos_soa_accesses(const std::string& layout, int64_t n) {
  const bool aos = layout == "aos" || layout == "aos_vec";
  std::vector<int64_t> first;
  if (layout == "soa_vec" && soa_vec_uses_float4(n)) {
    for (int64_t i = 0; i < std::min<int64_t>(kWarp, n / 4); ++i) first.push_back(4 * i);
    return {declare("lane i loads (and stores) field k of elements 4i..4i+3 as one 16 B access",
                    tile_layout(8, n, n), {8, n}, instr(Op::kLdg, 16), first)};
  }
  for (int64_t i = 0; i < std::min<int64_t>(kWarp, n); ++i) first.push_back(i * 8);  // element i, field 0
  if (layout == "aos_vec") {
    return {declare(
        "lane i loads (and stores) fields 0-3 of element i as one 16 B access (4-7 likewise at t = 8)",
        tile_layout(n, 8, 8), {n, 8}, instr(Op::kLdg, 16), first)};
  }
  if (aos) {
    return {declare("lane i loads (and stores) field k of element i", tile_layout(n, 8, 8), {n, 8},
                    instr(Op::kLdg, 4), first)};
  }
  // SoA seen as the n x 8 tensor AoS is: element i, field k at k n + i.
  const std::string m(kMemoryAxis);
  Layout soa;
  soa.shard = {Mode{n, {1, m}}, Mode{8, {n, m}}};
  return {declare("lane i loads (and stores) field k of element i", soa, {n, 8}, instr(Op::kLdg, 4), first)};
}

Result<json> predict_aos_soa(const std::string& layout, int64_t n) {
  return describe_all(aos_soa_accesses(layout, n),
                      json{{"source", "layoutscope engine (access cost)"}, {"global", json::array()}});
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
// counters do not see it), given to the engine as its 16 chunks of 16 B. The padded tile puts 16 B after
// every 4 rows (row r at 64 r + 4 (r / 4) elements); the swizzled one XORs the 16 B chunk with row / 4. The
// row-major 64x64 tile is given last as the reference (8 lanes in one bank group).
std::vector<KernelAccess> tile64_accesses(TransposeVariant variant, int64_t dim) {
  std::vector<int64_t> rows2, out_row, tile_rows2, tile_col;
  for (int64_t l = 0; l < kWarp; ++l) {
    rows2.push_back((l / 16) * dim + 4 * (l % 16));
    tile_rows2.push_back((l / 16) * 64 + 4 * (l % 16));
    tile_col.push_back(4 * (l % 16) * 64 + 4 * (l / 16));
  }
  for (int64_t k = 0; k < 16; ++k) out_row.push_back(4 * k);  // out(c0 + j, r0 + 4k), k = 0..15: 256 B
  const Layout global = tile_layout(dim, dim, dim);
  // S[(16,4,64):(260,64,1)]: groups of 4 rows 260 elements apart.
  const std::string m(kMemoryAxis);
  Layout padded;
  padded.shard = {Mode{16, {260, m}}, Mode{4, {64, m}}, Mode{64, {1, m}}};
  const Layout tile =
      variant == TransposeVariant::kTile64Swizzle ? tile_layout(64, 64, 64, Swizzle{3, 2, 6}) : padded;
  const Instruction ldg = instr(Op::kLdg, 16), stg = instr(Op::kStg, 16), sts = instr(Op::kSts, 16),
                    lds = instr(Op::kLds, 16);
  return {
      declare("load: lane l reads 16 B at in(r + l / 16, c0 + 4 (l % 16))", global, {dim, dim}, ldg, rows2),
      declare("store: one bulk copy (TMA) writes a 256 B output row piece out(c0 + j, r0 .. r0 + 63), shown "
              "as its "
              "16 chunks of 16 B",
              global, {dim, dim}, stg, out_row),
      declare("shared store: lane l writes 16 B at tile(l / 16, 4 (l % 16)) (rows)", tile, {64, 64}, sts,
              tile_rows2),
      declare("shared load: lane l reads 16 B at tile(4 (l % 16), 4 (l / 16)) (a column of chunks)", tile,
              {64, 64}, lds, tile_col),
      declare("shared store: lane l writes 16 B at staging(4 (l / 16) + j, 4 (l % 16)) (the transposed "
              "tile's rows)",
              tile_layout(64, 64, 64), {64, 64}, sts, tile_rows2),
      declare("reference, not run: the same column read from a row-major 64x64 tile without pad or swizzle",
              tile_layout(64, 64, 64), {64, 64}, lds, tile_col),
  };
}

std::vector<KernelAccess> transpose_accesses(TransposeVariant variant, int64_t dim) {
  if (variant == TransposeVariant::kTile64Pad || variant == TransposeVariant::kTile64Swizzle) {
    if (dim < 64 || !tile64_uses_float4(dim)) return {};
    return tile64_accesses(variant, dim);
  }
  const Layout global = tile_layout(dim, dim, dim);
  const int64_t lanes = std::min<int64_t>(kWarp, dim);
  std::vector<int64_t> row, column;
  for (int64_t l = 0; l < lanes; ++l) {
    row.push_back(l);           // (0, l)
    column.push_back(l * dim);  // (l, 0)
  }
  if (variant == TransposeVariant::kCopy) {
    std::vector<int64_t> vec;
    for (int64_t l = 0; l < kWarp && 4 * l + 3 < dim * dim; ++l) vec.push_back(4 * l);
    if (vec.empty()) vec.push_back(0);
    const int width = vec.size() > 1 || dim * dim >= 4 ? 16 : 4;
    // The copy reads the matrix as one flat array: 16 B per lane may cross a row of the dim x dim view.
    const Layout flat = tile_layout(1, dim * dim, dim * dim);
    return {
        declare("load: lane i reads 16 B at element 4i", flat, {1, dim * dim}, instr(Op::kLdg, width), vec),
        declare("store: lane i writes 16 B at element 4i", flat, {1, dim * dim}, instr(Op::kStg, width),
                vec)};
  }
  std::vector<KernelAccess> out{
      declare("load: lane i reads in(r, c0 + i) (a row)", global, {dim, dim}, instr(Op::kLdg, 4), row)};
  if (variant == TransposeVariant::kNaive) {
    out.push_back(declare("store: lane i writes out(c0 + i, r) (a column)", global, {dim, dim},
                          instr(Op::kStg, 4), column));
    return out;
  }
  out.push_back(
      declare("store: lane i writes out(r, c0 + i) (a row)", global, {dim, dim}, instr(Op::kStg, 4), row));
  const Layout tile = tile_layout(32, 32, variant == TransposeVariant::kPad ? 33 : 32);
  std::vector<int64_t> tile_row, tile_col;
  for (int64_t l = 0; l < kWarp; ++l) {
    tile_row.push_back(l);       // tile[0][l]
    tile_col.push_back(l * 32);  // tile[l][0]
  }
  out.push_back(declare("shared store: lane i writes tile[r][i] (a row)", tile, {32, 32}, instr(Op::kSts, 4),
                        tile_row));
  out.push_back(declare("shared load: lane i reads tile[i][c] (a column)", tile, {32, 32}, instr(Op::kLds, 4),
                        tile_col));
  return out;
}

Result<json> predict_transpose(TransposeVariant variant, int64_t dim) {
  json out = {
      {"source", "layoutscope engine (access cost)"}, {"global", json::array()}, {"shared", json::array()}};
  if ((variant == TransposeVariant::kTile64Pad || variant == TransposeVariant::kTile64Swizzle) &&
      (dim < 64 || !tile64_uses_float4(dim))) {
    out["note"] = "dim < 64 or dim % 4 != 0: every tile takes the kernel's scalar edge path; no prediction";
    return out;
  }
  return describe_all(transpose_accesses(variant, dim), out);
}

}  // namespace layoutscope::agent
