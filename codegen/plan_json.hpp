// A conversion plan as JSON: one printer for `layoutscope plan` and for the agent's convert results, so a
// result and the command line can be compared key for key. A template over the caller's nlohmann::json type
// (the CLI keeps key order, the agent does not).
#pragma once

#include <string>

#include "layoutscope/parse.hpp"
#include "layoutscope/plan/convert.hpp"

namespace layoutscope::codegen {

template <class Json>
Json warp_cost_json(const WarpCost& c, bool shared) {
  Json j = {{"bytes_per_lane", c.bytes_per_lane}};
  if (shared) {
    j["wavefronts"] = c.wavefronts;
    j["ideal_wavefronts"] = c.ideal_wavefronts;
  } else {
    j["sectors"] = c.sectors;
  }
  return j;
}

template <class Json>
Json convert_plan_json(const ConvertPlan& p) {
  Json modes = Json::array();
  for (const ConvertMode& m : p.modes) {
    modes.push_back({{"extent", m.extent}, {"src_stride", m.src_stride}, {"dst_stride", m.dst_stride}});
  }
  Json j = {{"kind", std::string(to_string(p.kind))},
            {"shape", p.shape},
            {"dtype", std::string(to_string(p.dtype))},
            {"elements", p.elements},
            {"modes", modes},
            {"modes_unit_elements", p.kind == ConvertKind::kTiled ? p.unit_elems : 1},
            {"common_vector", p.common_vector},
            {"unit_bytes", p.unit_bytes},
            {"vector_bytes", access_bytes(p)},
            {"unit_lanes", p.unit_lanes},
            {"threads", p.threads},
            {"blocks", p.blocks}};
  Json predicted = {{"global_read", warp_cost_json<Json>(p.global_read, false)},
                    {"global_write", warp_cost_json<Json>(p.global_write, false)}};
  if (p.kind == ConvertKind::kTiled) {
    j["tile"] = {{"group_a", p.group_a},
                 {"group_b", p.group_b},
                 {"extent_a", p.extent_a},
                 {"extent_b", p.extent_b},
                 {"tile_a", p.tile_a},
                 {"tile_b", p.tile_b},
                 {"run_a", p.run_a},
                 {"folded_a", p.folded_a},
                 {"row_bytes", p.row_bytes},
                 {"staging_bytes", p.staging_bytes},
                 {"staging_swizzle", p.staging.bits > 0 ? to_string(p.staging) : std::string("none")},
                 {"register_block", std::to_string(p.block_rows) + "x" + std::to_string(p.vector_units)},
                 {"paired", p.paired}};
    predicted["smem_write"] = warp_cost_json<Json>(p.smem_write, true);
    predicted["smem_read"] = warp_cost_json<Json>(p.smem_read, true);
  }
  if (p.kind == ConvertKind::kInterleave) {
    j["interleave"] = {{"small_mode", p.small_mode},
                       {"long_mode", p.long_mode},
                       {"small_extent", p.small_extent},
                       {"long_extent", p.long_extent},
                       {"plane_stride", p.plane_stride},
                       {"packed_dst", p.packed_dst},
                       {"chunks", p.chunks},
                       {"items", p.items},
                       {"exchange_bytes", p.staging_bytes}};
    if (p.record_units != p.small_extent) j["interleave"]["record_units"] = p.record_units;
    if (p.lane_chunks > p.small_extent) j["interleave"]["lane_chunks"] = p.lane_chunks;
    if (p.exchange_mask != 0)
      j["interleave"]["exchange_xor"] = {{"mask", p.exchange_mask}, {"shift", p.exchange_shift}};
    if (p.direct_stores) j["interleave"]["direct_stores"] = true;
    // Lanes that store their own records touch no shared memory: no shared predictions, as in the agent's
    // results (predicted.shared).
    if (!p.direct_stores) {
      predicted["smem_write"] = warp_cost_json<Json>(p.smem_write, true);
      predicted["smem_read"] = warp_cost_json<Json>(p.smem_read, true);
    }
  }
  // Only where set, so that the plans of aligned tensors print as before.
  if (p.unaligned) j["unaligned"] = true;
  if (p.aligned_loads) j["aligned_loads"] = true;
  j["reason"] = p.reason;
  j["predicted_per_warp_instruction"] = predicted;
  return j;
}

}  // namespace layoutscope::codegen
