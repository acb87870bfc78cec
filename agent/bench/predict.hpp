// What the layout engine predicts for each benchmark state: the agent asks shared/ (memory_access.hpp)
// and never re-derives layout math. One warp (32 lanes) issuing one instruction is the unit:
//
//   aos_soa, logical data (n elements, 8 fields), lane i touches element i, field 0:
//     AoS  S[(n,8):(8,1)]   -> lane addresses 0, 32, 64, ... -> 32 sectors / request  (document: 32)
//     SoA  S[(n,8):(1,n)]   -> lane addresses 0, 4, 8, ...   ->  4 sectors / request  (document: 4)
//   transpose, global matrix S[(dim,dim):(dim,1)]:
//     naive: load row (4 sectors), store column (32 sectors); tiled / pad: 4 and 4
//   transpose, shared tile read along a column (lane i reads tile[i][c]):
//     S[(32,32):(32,1)] -> 32-way bank conflict (32 wavefronts);  S[(32,32):(33,1)] -> 1 wavefront
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/benchmark.hpp"
#include "layoutscope/access.hpp"
#include "layoutscope/result.hpp"

namespace layoutscope::agent {

// One warp instruction a benchmark kernel issues, declared once: the predictions, the results document
// ("predicted": layout, shape, dtype, instr, lane_elements and the engine's cost) and the page all read it.
struct KernelAccess {
  std::string what;  // "load: lane i reads in(r, c0 + i) (a row)"
  WarpAccess access;
};

// One access's entry in a "predicted" block (layout, shape, dtype, instr, lane_elements and the engine's
// cost: sectors for global instructions, wavefronts for shared ones).
Result<nlohmann::json> describe_access(const KernelAccess& k);

// The accesses of one aos_soa state (layout "aos" | "soa" | "aos_vec" | "soa_vec") and one transpose state
// (empty for a 64x64-tile variant whose tiles all take the scalar edge path).
std::vector<KernelAccess> aos_soa_accesses(const std::string& layout, int64_t n);
std::vector<KernelAccess> transpose_accesses(TransposeVariant variant, int64_t dim);

// The "predicted" block of one aos_soa state (layout "aos" | "soa").
Result<nlohmann::json> predict_aos_soa(const std::string& layout, int64_t n);
// The DRAM bound on the SoA/AoS speedup at `touch` fields, from the engine's sectors per request of the
// scalar accesses: AoS moves its sectors once per element whatever the touch count (the fields share them),
// SoA moves its own sectors once per touched field: aos / (touch x soa), 32 / (4 touch) = 8 / touch for fp32
// fields.
Result<double> aos_soa_sector_bound(int touch, int64_t n);
// The "predicted" block of one transpose state.
Result<nlohmann::json> predict_transpose(TransposeVariant variant, int64_t dim);

}  // namespace layoutscope::agent
