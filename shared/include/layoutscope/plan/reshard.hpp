// One tensor laid over a device mesh, moved from one sharding to another: the plan of collectives and local
// steps, as a value that can be printed, tested and run on host buffers.
//
// Worked example (mesh gpuid_x=2, gpuid_y=4; a 2x4x8 fp32 tensor):
//
//   from  S[(2,4,8):(1@gpuid_x,1@gpuid_y,1)]          x: Shard(piece 0)  y: Shard(piece 1)
//   to    S[(2,4,8):(8,1@gpuid_y,1)] + R[2:1@gpuid_x]  x: Replicate       y: Shard(piece 1)
//   plan  all_gather over gpuid_x: each device sends and receives (2-1) * 8 * 4 B = 32 B, and its local
//         tensor grows from S[8:1] to S[(2,8):(8,1)] (NCCL concatenates the ranks' buffers, rank-major).
//
// The layouts are split over the common refinement of their shard modes and the logical shape (the finest
// split of the flat index both are strided on, as in convert.hpp); each piece is owned by a mesh axis or lies
// in local memory (@m). Every mesh axis is in exactly one state: Shard (the owner of a run of consecutive
// pieces, stride 1, its whole size), Replicate (R[n:1@axis]), Partial (P[n:1@axis]) or Offset (the data sits
// on one coordinate; an axis the layout never names sits at 0). One step changes one axis, by PyTorch
// DTensor's redistribute rules:
//
//   Shard(p) -> Replicate    all_gather           Partial -> Replicate   all_reduce
//   Shard(p) -> Shard(q)     all_to_all           Partial -> Shard(q)    reduce_scatter
//   Replicate -> Shard(q)    slice (local)        Replicate -> Partial   partition (local: coordinate 0 keeps
//   Offset(c) -> Offset(c')  send/recv                                    the value, the others hold 0)
//   Offset(c) -> Replicate   broadcast            Replicate -> Offset(c) drop (local)
//
// and any other change goes through Replicate (Shard -> Partial = all_gather, partition). Because pieces are
// explicit, a single-axis step is always meaningful (DTensor's nested-sharding detour through Replicate is
// needed only for a cycle: axes that each want a piece another one holds). The order only changes the cost.
// DTensor's greedy planner (torch/distributed/tensor/_redistribute.py, _gen_transform_infos) walks the mesh
// dims innermost first, then outermost first; here the steps that shrink the local tensor run first (slice,
// drop, reduce_scatter), then all_to_all, all_reduce and send/recv, then partition, then the steps that grow
// it (all_gather, broadcast), inner mesh axes first within a rank, so a gather never moves what a later slice
// would have dropped. all_to_all and reduce_scatter need the pieces they scatter outermost in local memory,
// and a local permute puts them there when they are not; a last permute gives the destination's local order.
// Every permute is a plan_convert of the two local layouts.
//
// Bytes and time follow nccl-tests' conventions (its PERFORMANCE.md): S is the size nccl-tests reports for
// the operation, algbw = S / t and busbw = algbw * factor with factor (n-1)/n for all_gather, reduce_scatter
// and all_to_all, 2(n-1)/n for all_reduce and 1 for broadcast and send/recv. The bytes a device sends (and
// receives) on the ring are S * factor, so the predicted time is S * factor / busbw: the caller passes the
// busbw it measured.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "layoutscope/dtype.hpp"
#include "layoutscope/layout.hpp"
#include "layoutscope/mapping.hpp"
#include "layoutscope/plan/convert.hpp"
#include "layoutscope/result.hpp"

namespace layoutscope {

// Mesh axes in order, outermost first, with their sizes: {{"gpuid_x", 2}, {"gpuid_y", 4}}. Device d is the
// row-major index of its coordinates (the last axis fastest).
using Mesh = std::vector<std::pair<std::string, int64_t>>;

// Bandwidths the time estimate divides by, in GB/s (1e9 B/s). The defaults are estimates for an H100/H200
// NVLink node, not measurements of the caller's machine: nccl-tests reports all_gather, reduce_scatter and
// all_to_all at about 360 GB/s busbw there at >= 1 GiB, and a device-to-device copy on an H200 moves about
// 4 TB/s of read + write bytes. A caller with measurements passes its own; the plan records the values used.
struct ReshardBandwidths {
  double collective_busbw_gbps = 360.0;  // all_gather, reduce_scatter, all_to_all, all_reduce, broadcast
  double send_recv_gbps = 360.0;         // one point-to-point transfer
  double local_copy_gbps = 4000.0;       // bytes read + written by a local step
};

enum class ReshardOp {
  kAllGather,
  kReduceScatter,
  kAllToAll,
  kAllReduce,
  kBroadcast,
  kSendRecv,
  kSlice,      // local: keep the part of a replicated piece at the device's own coordinate
  kDrop,       // local: every coordinate but one frees its copy
  kPartition,  // local: coordinate 0 keeps the value, the others hold 0 (a pending sum)
  kPermute,    // local: reorder local memory (a plan_convert of the two local layouts)
};

std::string_view to_string(ReshardOp op);
bool is_collective(ReshardOp op);

// A mesh axis's state, DTensor's placement plus the offset.
enum class PlacementKind { kShard, kReplicate, kPartial, kOffset };
struct Placement {
  PlacementKind kind = PlacementKind::kOffset;
  int piece = -1;     // kShard: the first (outermost) piece the axis owns
  int pieces = 0;     // kShard: how many consecutive pieces it owns (their extents multiply to its size)
  int64_t coord = 0;  // kOffset: the coordinate that holds the data
  friend bool operator==(const Placement&, const Placement&) = default;
};
std::string to_string(const Placement& p);  // "S(1)", "S(1..2)", "R", "P", "O(3)"

// One piece of the common refinement: `extent` values of logical dimension `dim`.
struct ReshardPiece {
  int64_t extent = 1;
  int dim = 0;
};

// The tensor on one device (every device that holds data holds the same local layout).
struct LocalTensor {
  Layout layout;               // S[(local extents):(strides on @m)], the local pieces in logical order
  std::vector<int64_t> shape;  // per logical dimension: the product of its local pieces
  int64_t elements = 0;
};

struct ReshardStep {
  ReshardOp op = ReshardOp::kPermute;
  std::string axis;    // the mesh axis; empty for a permute
  int64_t group = 1;   // devices in one collective group (the axis size); 1 for a local step
  int64_t groups = 1;  // groups running at once (devices holding data / group)
  std::vector<Placement> placements_before, placements_after;  // per mesh axis
  Layout before, after;                                        // the mesh layouts
  LocalTensor local_before, local_after;
  // The pieces the step gathers, scatters or slices (all_to_all: the ones it gathers), first and count.
  int piece = -1;
  int pieces = 0;
  int64_t root = -1;        // broadcast and send/recv: the source coordinate; drop: the one that keeps
  int64_t target = -1;      // send/recv: the destination coordinate
  int64_t size_bytes = 0;   // nccl-tests' S
  double bus_factor = 0.0;  // busbw / algbw
  int64_t send_bytes = 0;   // per device of a group (the busiest for broadcast and send/recv)
  int64_t recv_bytes = 0;
  int64_t local_bytes = 0;  // local steps: bytes read + written
  double predicted_seconds = 0.0;
  // The local move as one conversion kernel's plan: kPermute always; kSlice where the planner accepts the
  // local layout before without the sliced pieces -> the one after (the sliced digits are a per-device base
  // offset). Local steps are predicted from it (convert_traffic_bytes at the local copy speed).
  std::optional<ConvertPlan> convert;
};

struct ReshardPlan {
  std::vector<int64_t> shape;
  Mesh mesh;
  DType dtype = DType::kF32;
  int elem_bytes = 4;
  Layout from, to;  // canonical
  std::vector<ReshardPiece> pieces;
  std::vector<Placement> from_placements, to_placements;
  std::vector<ReshardStep> steps;
  ReshardBandwidths bandwidths;
  int64_t send_bytes = 0;  // summed over the steps, per device
  int64_t recv_bytes = 0;
  double predicted_seconds = 0.0;
};

// Plans from -> to for a tensor of `shape` over `mesh`. Errors name the layout ("from", "to") or "mesh" in
// `field`, with a code: "size-mismatch" (the layouts or the shape hold different numbers of elements),
// "mesh-axis" (an axis not in the mesh, a mesh axis used twice, a bad mesh), "coverage" (an element lands
// outside the mesh, or two elements share one local slot, or local memory has a gap), "not-expressible" (a
// layout or a change the transitions above cannot state: a swizzle, a mesh axis on part of its size or with
// a stride, a mesh-sharded mode the other layout splits).
Result<ReshardPlan> plan_reshard(const Layout& from, const Layout& to, const std::vector<int64_t>& shape,
                                 const Mesh& mesh, DType dtype = DType::kF32,
                                 const ReshardBandwidths& bandwidths = {});

// "gpuid_x=2,gpuid_y=4" -> the mesh; errors carry the 1-based column of the bad entry. A mesh has at most
// kMaxMeshAxes axes (a device mesh of size-1 axes is otherwise unbounded in length: each axis is one more
// mode every plan walks); checked in one pass, each axis once.
inline constexpr size_t kMaxMeshAxes = 64;
Result<Mesh> parse_mesh(std::string_view text);

// Where the holders of a mesh layout sit: the layout's table over `shape` (mapping.hpp) and, per table axis,
// the mesh axis it names (-1: @m, or an axis that is not on the mesh).
//   place_on_mesh(S[(2,4):(1@x,1)], {8}, {{"x", 2}}) -> axes {x, m}, mesh_of_axis {0, -1}, m_axis 1
struct MeshPlacement {
  Table table;
  std::vector<int> mesh_of_axis;
  int m_axis = -1;  // the table axis of @m, or -1
};
Result<MeshPlacement> place_on_mesh(const Layout& layout, const std::vector<int64_t>& shape, const Mesh& mesh,
                                    int64_t cell_limit);

// The device of one holder, `pos` its table position (one value per table axis): row-major over the mesh
// (the last mesh axis fastest), a mesh axis the layout does not name at coordinate 0.
int64_t mesh_device(const MeshPlacement& p, const Mesh& mesh, const int64_t* pos);

// One device's local permute or slice as a strided copy: for every index y below the product of `extent`,
// split row-major over it (the last fastest), out[sum_i digit_i * dst_stride_i] =
// in[src_base + sum_i digit_i * src_stride_i], in elements of the local buffers. A permute reads the local
// pieces at local_before's strides and writes them at local_after's (coordinate unused); a slice fixes the
// sliced pieces at the device's coordinate on the step's axis (their offset is src_base) and copies the other
// pieces:
//   Replicate -> Shard(1) of an (8, 64) tensor over gpuid_x=2, coordinate c: extent (8, 32), src_stride (64,
//   1), dst_stride (32, 1), src_base 32c
// An error when the step is neither, or its local layouts do not differ by the pieces it moves.
struct LocalCopy {
  std::vector<int64_t> extent, src_stride, dst_stride;
  int64_t src_base = 0;
};
Result<LocalCopy> local_copy(const ReshardStep& step, int64_t coordinate);

// What the host run checked.
struct ReshardCheck {
  int64_t devices = 0;
  int64_t steps = 0;
  int64_t elements_checked = 0;  // (element, holder) pairs compared, over every step and the destination
};

// Runs the plan on host buffers, one int64 buffer per device: each device's local buffer is filled from
// `from` (element x has value x + 1; partial holders split it into parts that sum to it), every step is
// applied as NCCL defines the collective on buffers (all_gather concatenates rank-major, reduce_scatter gives
// rank r the sum of every rank's chunk r, all_to_all sends chunk j of rank r to slot r of rank j) or as the
// local step does, and the buffers are checked element by element against each step's mesh layout and at the
// end against `to`, through the engine's own table(). An error names the step and the first wrong element.
Result<ReshardCheck> execute_reshard_host(const ReshardPlan& plan, int64_t cell_limit = int64_t{1} << 22);

}  // namespace layoutscope
