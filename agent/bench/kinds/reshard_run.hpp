// The multi-device benchmarks: "reshard" (a tensor moved from one mesh layout to another by the engine's
// plan, plan/reshard.hpp) and "collective" (one NCCL collective over the machine's GPUs, nccl-tests'
// conventions). Parameters, measurements and the runs; printing is in results_json.cpp.
//
//   POST /v1/runs {"benchmark": "reshard", "params": {"from": "S[(8,64):(1@gpuid_x,1)]",
//                  "to": "S[(8,64):(64,1)] + R[2:1@gpuid_x]", "shape": [8, 64], "mesh": "gpuid_x=2"}}
//     cuda: one communicator per group of devices along each mesh axis the plan uses (ncclCommInitAll,
//           rank = the device's coordinate on the axis), every collective on NCCL; every local permute and
//           slice by the kernel generated from its conversion plan (local_kernel below), compiled through the
//           backend's kernel cache before the step is timed, or by the strided-copy kernel where the planner
//           refuses; per step one cold run, then timed runs; the buffers of every device are checked after
//           each step against the step's mesh layout and at the end against `to`.
//     cpu:  the engine's host executor on simulated devices (execute_reshard_host), no timing of
//           collectives: planning and verification only.
//   POST /v1/runs {"benchmark": "collective", "params": {"op": "all_gather", "sizes": [1048576]}}
//     nccl-tests' conventions (its PERFORMANCE.md): S = the size it reports (all_gather: the gathered
//     output; reduce_scatter: the input; all_reduce and all_to_all: one rank's buffer), algbw = S / t,
//     busbw = algbw * (n-1)/n, or * 2(n-1)/n for all_reduce.
//
// Element values (every dtype, so that reductions stay exact): element x holds (x mod R) + 1, R = 255 (u8,
// whose sums wrap modulo 256 on both sides), 64 (bf16), 1024 (f16), 2^22 (f32), 2^40 (f64); a partial holder
// keeps a share, the shares of an element summing to its value; every partial sum stays an integer the dtype
// holds exactly.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bench/benchmark.hpp"
#include "bench/kinds/reshard_copy.hpp"
#include "bench/request_limits.hpp"
#include "layoutscope/mapping.hpp"
#include "layoutscope/plan/convert.hpp"
#include "layoutscope/plan/reshard.hpp"

namespace layoutscope::agent {

class KernelCache;  // nvrtc.hpp

// (element, holder) pairs the verification tables may hold: the CPU executor's and the GPU check's bound.
inline constexpr int64_t kReshardCpuCells = int64_t{1} << 22;
inline constexpr int64_t kReshardGpuCells = int64_t{1} << 28;

struct ReshardParams {
  std::string from, to, mesh_text;  // as given
  std::vector<int64_t> shape;
  DType dtype = DType::kBF16;
  Mesh mesh;
  int64_t devices = 1;               // product of the mesh sizes
  ReshardPlan plan;                  // planned with the default bandwidths (re-costed with the measured ones)
  std::optional<double> busbw_gbps;  // given: the prediction's collective busbw; absent: measured (cuda)
  Sampling sampling;
};

enum class CollectiveOp { kAllGather, kReduceScatter, kAllToAll, kAllReduce };
inline constexpr int kCollectiveOpCount = 4;
const char* to_string(CollectiveOp op);  // "all_gather", ...

struct CollectiveParams {
  CollectiveOp op = CollectiveOp::kAllGather;
  std::vector<int64_t> sizes;  // S in bytes, each a multiple of gpus * dtype size
  DType dtype = DType::kBF16;
  int gpus = 2;
  Sampling sampling;
};

// busbw / algbw (nccl-tests): (n-1)/n, or 2(n-1)/n for all_reduce.
double bus_factor(CollectiveOp op, int n);

// How the devices ran a local permute or slice: the kernel generated from the conversion plan, or the
// strided copy where the planner refused (and why).
struct LocalKernelUse {
  std::string kernel;        // "generated" | "strided_copy"
  std::string reason;        // strided_copy: why there is no generated kernel
  uint64_t source_hash = 0;  // generated: FNV-1a of the kernel text (as the convert benchmark reports it)
  std::string runs_as;       // "nvrtc" (the compiled kernel) | "host" (execute_convert_host, lane by lane)
  std::optional<double> compile_s;  // cuda: NVRTC + module load before timing, summed over the devices
  std::string compile_cache;        // cuda: "memory" | "disk" | "none" (compiled) for the first device
};

struct ReshardStepResult {
  std::optional<double> cold_s;  // the first run (NCCL sets up its connections lazily); none when simulated
  std::optional<TimingSummary> time;
  std::optional<double> busbw_bytes_per_second;  // collectives: S * bus_factor / median
  Verification verification;                     // the buffers after the step against the step's mesh layout
  std::optional<LocalKernelUse> local_kernel;    // permute and slice steps
};

struct ReshardMeasurement {
  bool simulated = false;  // cpu: the host executor, no timing
  std::string note;
  ReshardPlan plan;  // as costed for the prediction (the measured or given busbw)
  std::string bandwidth_source;
  std::vector<ReshardStepResult> steps;
  std::optional<double> total_cold_s;
  std::optional<TimingSummary> total;
  Verification verification;  // at the end, against `to`
  std::vector<DeviceInfo> devices;
  std::string nccl_version;  // empty when not used
};

struct CollectivePoint {
  int64_t size_bytes = 0;  // S
  int64_t count = 0;       // elements per NCCL call argument
  TimingSummary time;
  double algbw = 0, busbw = 0;  // bytes per second, from the median
  Verification verification;
};

struct CollectiveMeasurement {
  CollectiveOp op = CollectiveOp::kAllGather;
  int ranks = 0;
  std::vector<CollectivePoint> points;
  std::vector<DeviceInfo> devices;
  std::string nccl_version;
};

// The value every element holds (x mod R) + 1, and the share of partial holder p of `parts`.
int64_t reshard_value_range(DType dtype);
int64_t element_value(int64_t x, DType dtype);
int64_t partial_share(int64_t value, int64_t x, int64_t p, int64_t parts);

// Each device's local buffer under `layout` (values as above, as int64), through the engine's table().
Result<std::vector<std::vector<int64_t>>> reshard_buffers(const Layout& layout, const ReshardPlan& plan,
                                                          int64_t cell_limit);
// Element by element: whole holders hold the value, partial holders sum to it (u8: modulo 256), every
// device's buffer as long as the layout gives it. `where` opens the first mismatch's text.
Verification check_reshard_buffers(const Layout& layout, const ReshardPlan& plan,
                                   const std::vector<std::vector<int64_t>>& buffers, const std::string& where,
                                   int64_t cell_limit);

// The engine's local_copy of a permute (the local pieces read at the local layout's strides before, written
// at after's) or a slice (the sliced pieces fixed at the device's coordinate), as the device's StridedCopy.
Result<StridedCopy> permute_copy(const ReshardStep& s);
Result<StridedCopy> slice_copy(const ReshardStep& s, int64_t coordinate);
// False when an index falls outside `in` or `out`.
bool strided_copy_host(const std::vector<int64_t>& in, std::vector<int64_t>& out, const StridedCopy& c);

// One device's local permute or slice as a conversion: the step's strided copy (the moves, and the fallback)
// and the engine's conversion plan of the same moves (ReshardStep::convert, the one its prediction used),
// its source starting `src_offset` elements into the buffer. A slice's plan is the same on every
// coordinate, only the offset moves:
//   Replicate -> Shard(1) of an (8, 64) bf16 tensor over gpuid_x=2: each device keeps 8 rows of 32
//   columns; coordinate c reads extents (8, 32) at source strides (64, 1) from offset 32c, writes them at
//   (32, 1): a vector plan (64 B rows), the source 64c B into the buffer.
// No plan when the planner refuses, or when the offset is not a multiple of 16 B (the generated kernel's
// 16 B accesses assume an aligned source); `fallback_reason` says which.
struct LocalKernel {
  StridedCopy copy;
  std::optional<ConvertPlan> convert;
  int64_t src_offset = 0;
  std::string fallback_reason;
};
Result<LocalKernel> local_kernel(const ReshardStep& s, int64_t coordinate, DType dtype);

// The bytes a device holds for element value v of the dtype (exact for the values above: small integers,
// u8 modulo 256), and back; bits that are not such an integer decode to INT64_MIN, a value no element has.
void encode_element(int64_t v, DType d, unsigned char* out);
int64_t decode_element(const unsigned char* in, DType d);

// The device run's step semantics on host buffers: collectives as NCCL defines them on the same buffer sizes,
// local steps as the devices run them (local_kernel: the conversion plan through its host implementation,
// execute_convert_host, on the dtype's bytes; else the strided copy), the element values of the cuda path;
// checked after every step and at the end like the cuda path. The cpu backend runs it beside the engine's
// host executor, so the plans and descriptors the GPUs execute are checked wherever the tests run. `kernels`
// (when given) receives, per step, how its local kernel ran (nothing for the other steps).
Verification run_device_steps_on_host(const ReshardPlan& plan, int64_t cell_limit,
                                      std::vector<std::optional<LocalKernelUse>>* kernels = nullptr);

// The simulated reshard (a backend without GPUs): the engine's host executor and run_device_steps_on_host on
// the plan, `devices` (the backend's one device) reported as what ran it.
Result<ReshardMeasurement> run_reshard_host(const ReshardParams& p, std::vector<DeviceInfo> devices,
                                            RunControl& ctl);

#ifdef LAYOUTSCOPE_WITH_CUDA
// `kernels`: the backend's kernel cache (the convert benchmark's), which compiles the local steps' kernels.
Result<ReshardMeasurement> run_reshard_nccl(const ReshardParams& p, const std::vector<DeviceInfo>& machine,
                                            KernelCache& kernels, RunControl& ctl);
Result<CollectiveMeasurement> run_collective_nccl(const CollectiveParams& p,
                                                  const std::vector<DeviceInfo>& machine, RunControl& ctl);
#endif

}  // namespace layoutscope::agent
