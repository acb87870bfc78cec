// The contract between the HTTP side and the backends: what a benchmark is asked to do (validated
// parameters), what it measured (plain values), and the backend interface. No JSON, no HTTP here:
// benchmarks never format output (printers live in results_json.cpp / results_csv.cpp).
//
// The two benchmarks of the layout chapter (AoS vs SoA, transpose), plus fast variants
// so that a user sees what vector width and layout each contribute:
//   aos_soa    struct { float f[8]; } (32 B); each of the first touch_fields fields is incremented by 1
//              and written back, field by field (the document's §6 forbids a whole-struct copy).
//              layouts: aos, soa (the document's scalar kernels), aos_vec (the struct read with 16 B loads),
//              soa_vec (each field array read and written as float4).
//   transpose  fp32 dim x dim: copy (float4 copy, the document's ceiling), naive (coalesced read, strided
//              write), tiled (32x32 shared tile), pad (tile[32][33]), tile64_pad and tile64_swizzle (64x64
//              tile, 16 B loads and shared accesses, a 4x4 block per thread, the shared tile padded by 16 B
//              every 4 rows or XOR-swizzled, tiles in column-major order, 256 B bulk stores on sm_90).
//   convert    any layout to any layout of one logical tensor (ConvertParams below), by the kernel generated
//              from the engine's plan.
// Every run also measures the ceilings at the same size (cudaMemcpy device-to-device, the float4 copy,
// a one-float-per-thread copy; on the CPU memcpy and loops), reported beside the states.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "layoutscope/dtype.hpp"
#include "layoutscope/layout.hpp"
#include "layoutscope/plan/convert.hpp"
#include "layoutscope/result.hpp"

namespace layoutscope::codegen {
struct KernelSource;  // codegen/convert_kernel.hpp
}  // namespace layoutscope::codegen

namespace layoutscope::agent {

enum class CacheMode {
  kCold,
  kHot
};  // cold: L2 (or the CPU's last-level cache) overwritten before each sample

// Sampling (after NVBench): warm-up launches, then samples until the relative IQR of the kept samples is at
// most `noise` after at least `min_samples`, or `max_time_s` has passed (after min_samples), or
// `max_samples`; `repetitions` > 0 asks for exactly that many kept samples instead (no adaptive stop).
// A sample taken while the GPU reports a throttle reason is dropped and counted.
struct Sampling {
  int warmup = 3;
  int repetitions = 0;  // 0: adaptive
  int min_samples = 10;
  int max_samples = 1000;
  double max_time_s = 0.25;
  double noise = 0.005;
  CacheMode cache = CacheMode::kCold;
  uint64_t seed = 1;          // random input of the verification pass
  bool raw_samples = true;    // time_samples_s and per-sample SM clocks in the result
  bool profile_once = false;  // internal (ncu child): fill, one launch per state, no verification, no timing
};

enum class AosSoaLayout { kAos, kSoa, kAosVec, kSoaVec };
inline constexpr int kAosSoaLayoutCount = 4;
const char* to_string(AosSoaLayout l);  // the API's names: "aos", "soa", "aos_vec", "soa_vec" (benchmark.cpp)
inline bool is_soa(AosSoaLayout l) { return l == AosSoaLayout::kSoa || l == AosSoaLayout::kSoaVec; }

struct AosSoaParams {
  std::vector<int64_t> ns;        // elements (structs); several = a size sweep
  std::vector<int> touch_fields;  // subset of {1, 2, 4, 8}, in order
  std::vector<AosSoaLayout> layouts;
  Sampling sampling;
};

enum class TransposeVariant { kCopy, kNaive, kTiled, kPad, kTile64Pad, kTile64Swizzle };
inline constexpr int kTransposeVariantCount = 6;
const char* to_string(TransposeVariant v);  // "copy", "naive", ..., "tile64_swizzle" (benchmark.cpp)

// Ceilings measured in the same run at the same size (bytes copied = the benchmark's working set).
// kCopyTma: the CUDA backend only (a CPU has no TMA unit; the CPU backend does not measure it).
enum class Ceiling { kMemcpy, kCopyVec4, kCopyScalar, kCopyTma };
const char* to_string(Ceiling c);

struct TransposeParams {
  std::vector<int64_t> dims;
  std::vector<TransposeVariant> variants;
  Sampling sampling;
};

// One conversion: a source and a destination layout of one logical tensor (or the shape + permutation
// shorthand), planned by the engine when the request is parsed (a planner error is a 422 naming the field).
//   convert    out[dst(x)] = in[src(x)] for every logical x, by the kernel generated from the engine's plan
//              (CUDA: compiled with NVRTC; CPU: the plan's host executor, lane by lane), cases in order.
// The request is parsed once into these values (convert_run.hpp's permute_case / layout_case); the backends
// run them as they are, and only the printers write the layouts back as text.
struct ConvertCase {
  std::string name;            // "case0", or the suite's name ("transpose_8192x8192_f32")
  Layout src, dst;             // the layouts (the shorthand's: row-major and its permutation)
  std::vector<int64_t> shape;  // the logical shape
  std::vector<int64_t> perm;   // the shorthand's permutation; empty when given as src/dst
  DType dtype = DType::kF32;
  ConvertPlan plan;
  std::shared_ptr<const codegen::KernelSource> kernel;  // the CUDA text generated from `plan`
  double plan_s = 0;         // parse + plan + kernel text, when this process first planned the request
  double cached_plan_s = 0;  // the plan cache lookup a repeated request makes
};

struct ConvertParams {
  std::string suite;  // "" or "permutations"
  std::vector<ConvertCase> cases;
  Sampling sampling;
};

// Median, quartiles (linear interpolation between order statistics) and extremes of the samples, seconds.
struct TimingSummary {
  int samples = 0;
  double median_s = 0, q1_s = 0, q3_s = 0, min_s = 0, max_s = 0, mean_s = 0, stdev_s = 0;
  std::vector<double> samples_s;
  std::vector<double> sm_clock_hz;  // per kept sample, where a clock source answers
  int throttled_dropped = 0;        // samples dropped because the GPU reported a throttle reason
  std::string clock_source;         // "nvml", "clock kernel", or why none
  std::string stop_reason;          // "noise", "time_limit", "max_samples", "repetitions"
};

// One SM-clock reading taken right after a sample.
struct ClockReading {
  std::optional<double> sm_clock_hz;
  bool throttled = false;
};

struct Verification {
  bool passed = false;
  int64_t checked = 0;  // elements compared
  int64_t mismatches = 0;
  std::string first_mismatch;  // "element 17 field 0: expected 0x3f800000, got 0xffffffff"
  std::string method;
};

struct AosSoaState {
  std::string layout;  // "aos" | "soa" | "aos_vec" | "soa_vec"
  int touch_fields = 0;
  int64_t n = 0;
  TimingSummary time;
  Verification verification;
};

struct TransposeState {
  TransposeVariant variant = TransposeVariant::kCopy;
  int64_t dim = 0;
  TimingSummary time;
  Verification verification;
};

// Host-side times of one conversion, seconds: planning (engine plan + CUDA source text), a cached plan
// (lookup by the request's key, what a repeated request pays), compilation (NVRTC; absent on the CPU
// backend), and single use = planning + compilation + module load + one run.
struct ConvertTimes {
  double plan_s = 0;
  double cached_plan_s = 0;
  std::optional<double> compile_s;
  std::optional<double> load_s;
  bool compile_cache_hit = false;
  std::string compile_cache = "none";  // where the kernel came from: "memory", "disk" or "none" (compiled)
  double first_run_s = 0;
  double single_use_s = 0;
  // The same conversion by the library kernel of its unit (codegen/convert_library.hpp), a first call that
  // waits for no compile of its own: planning + one run of the kernel compiled into the agent, and the check
  // of its output. Absent where there is no library run (the CPU backend, a plan with too many modes).
  std::optional<double> library_single_use_s;
  std::string library_cache = "builtin";  // where the library kernel came from (the schema's library_cache)
  std::optional<bool> library_verified;
};

struct ConvertState {
  std::string name;
  const ConvertCase* source = nullptr;  // the case in ConvertParams::cases it measured
  std::string kernel_name;
  uint64_t source_hash = 0;                // of the generated CUDA C text
  int64_t source_length = 0;               // characters of that text
  std::vector<std::string> nvrtc_options;  // beyond architecture and language (with the text: the cache key)
  int64_t bytes = 0;                       // bytes moved: destination elements read + written
  ConvertTimes times;
  TimingSummary time;  // repeated use: the timed runs
  Verification verification;
};

struct CeilingState {
  Ceiling ceiling = Ceiling::kCopyVec4;
  int64_t bytes = 0;  // bytes copied (read once, written once)
  int64_t size = 0;   // the benchmark's size axis value (n or dim) it belongs to
  TimingSummary time;
  Verification verification;
};

struct Telemetry {
  std::optional<double> sm_clock_hz, memory_clock_hz, power_w, temperature_c;
  std::optional<int64_t> ecc_corrected_volatile, ecc_uncorrected_volatile;  // NVML volatile ECC counters
  std::optional<uint64_t> clock_event_reasons;                              // NVML clocks event reasons mask
  std::string source;                                                       // "nvml", or why there is none
};

struct DeviceInfo {
  int id = 0;
  std::string kind;  // the backend's name (BackendTraits::name)
  std::string name;
  std::optional<std::string> sm_version;  // "9.0"
  int multiprocessors = 0;                // SMs, or hardware threads on the CPU
  int64_t global_memory_bytes = 0;
  std::optional<int64_t> l2_cache_bytes;
  std::optional<int64_t> last_level_cache_bytes;
  std::optional<int> memory_bus_width_bits;
  std::optional<double> memory_clock_hz;
  std::optional<double> peak_bandwidth_bytes_per_second;  // 2 (DDR) x clock x bus width / 8
  std::optional<std::string> pci_bus_id;
  Telemetry telemetry;
};

// Progress and cancellation, shared between the job and the HTTP side.
class RunControl {
 public:
  virtual ~RunControl() = default;
  virtual bool cancelled() const = 0;
  virtual void progress(double fraction, const std::string& message) = 0;
};

// Thrown out of a benchmark when RunControl::cancelled() turns true between samples.
struct Cancelled {};

// Hardware counters of one state's kernel, measured by Nsight Compute in profile mode (profile.hpp), or why
// there are none.
struct StateProfile {
  bool available = false;
  std::string reason;  // when not available
  std::string kernel;  // the kernel name fragment the counters belong to
  std::optional<double> global_load_sectors_per_request, global_store_sectors_per_request;
  std::optional<double> shared_load_wavefronts_per_instruction, shared_store_wavefronts_per_instruction;
  std::optional<double> shared_load_bank_conflicts, shared_store_bank_conflicts;
  std::map<std::string, double> metrics;  // every counter of the kernel's row, by ncu's name
};

// The profiling run itself: the command (tools by name), its exit status, how many kernel rows it gave.
struct ProfileRun {
  std::string tool, path, command;
  int exit_status = 0;
  size_t kernels_profiled = 0;
};

// Profile mode's result, one StateProfile per measured state in order.
struct Profile {
  std::optional<ProfileRun> run;  // absent when ncu was not started (CPU backend, no ncu)
  std::vector<StateProfile> states;
};

struct AosSoaMeasurement {
  std::vector<AosSoaState> states;
  std::vector<CeilingState> ceilings;
  Telemetry before, after;
  std::optional<Profile> profile;  // "profile": true only
};

struct TransposeMeasurement {
  std::vector<TransposeState> states;
  std::vector<CeilingState> ceilings;
  Telemetry before, after;
  std::optional<Profile> profile;  // "profile": true only
};

struct ConvertMeasurement {
  std::vector<ConvertState> states;
  std::vector<CeilingState> ceilings;  // at each distinct byte size of the cases (size = bytes)
  Telemetry before, after;
  std::optional<Profile> profile;  // "profile": true only
};

// The aos_soa states at one n, in the order every backend measures them (touch_fields outer, layouts inner):
// checks for cancellation and reports progress, then body(state, layout) measures the state (layout,
// touch_fields and n already set), which is then appended to `states`.
template <class Body>
void for_each_aos_soa_state(const AosSoaParams& p, int64_t n, RunControl& ctl, int& done, int total,
                            std::vector<AosSoaState>& states, Body body) {
  for (int t : p.touch_fields) {
    for (AosSoaLayout layout : p.layouts) {
      if (ctl.cancelled()) throw Cancelled{};
      ctl.progress(static_cast<double>(done++) / total, std::string(to_string(layout)) + " touch_fields=" +
                                                            std::to_string(t) + " n=" + std::to_string(n));
      AosSoaState s;
      s.layout = to_string(layout);
      s.touch_fields = t;
      s.n = n;
      body(s, layout);
      states.push_back(std::move(s));
    }
  }
}

// The transpose states at one dim, in the order every backend measures them, like for_each_aos_soa_state:
// body(state) measures the state (variant and dim already set), which is then appended to `states`.
template <class Body>
void for_each_transpose_state(const TransposeParams& p, int64_t dim, RunControl& ctl, int& done, int total,
                              std::vector<TransposeState>& states, Body body) {
  for (TransposeVariant v : p.variants) {
    if (ctl.cancelled()) throw Cancelled{};
    ctl.progress(static_cast<double>(done++) / total,
                 std::string(to_string(v)) + " dim=" + std::to_string(dim));
    TransposeState s;
    s.variant = v;
    s.dim = dim;
    body(s);
    states.push_back(std::move(s));
  }
}

// The ceilings for_each_ceiling measures at each size: 3, or 4 with the TMA copy (with_tma).
inline constexpr int kCeilingCount = 3;
inline int ceiling_count(bool with_tma) { return kCeilingCount + (with_tma ? 1 : 0); }

// The ceilings at one size (`size_text`: "n=..." or "dim=..."): cudaMemcpy (memcpy), the float4 copy, the
// scalar copy and, with_tma (the CUDA backend), the TMA bulk copy, each reported as progress;
// measure(ceiling) returns its state, appended to `ceilings`.
template <class Measure>
void for_each_ceiling(const std::string& size_text, RunControl& ctl, int& done, int total,
                      std::vector<CeilingState>& ceilings, bool with_tma, Measure measure) {
  for (Ceiling c : {Ceiling::kMemcpy, Ceiling::kCopyVec4, Ceiling::kCopyScalar, Ceiling::kCopyTma}) {
    if (c == Ceiling::kCopyTma && !with_tma) continue;
    ctl.progress(static_cast<double>(done++) / total, std::string(to_string(c)) + " " + size_text);
    ceilings.push_back(measure(c));
  }
}

class KernelCache;    // nvrtc.hpp: kernels compiled at run time (the CUDA backend only)
struct AccessParams;  // access_run.hpp
struct AccessMeasurement;
struct ReshardParams;  // reshard_run.hpp
struct ReshardMeasurement;
struct CollectiveParams;
struct CollectiveMeasurement;

// What the request parser, the catalogue, the printers and the profiler know of a backend, as values: its
// defaults, limits and clock, so that nothing outside the backends asks which backend it is by name.
struct BackendTraits {
  std::string name;  // "cuda" | "cpu": printed (meta.backend, the catalogue), never compared
  // Defaults of the sampling and of the sizes (the catalogue and the request parser).
  int64_t default_n = 0;    // aos_soa structs
  int64_t default_dim = 0;  // transpose dimension
  int default_warmup = 0;
  int default_min_samples = 0;
  double default_max_time_s = 0;
  bool full_size_suite = false;  // the convert suite at 256 MiB per case; else each case at most 1 MiB
  // A reshard's mesh and a collective's gpus are this machine's devices (their count and memory bound the
  // request); false: a reshard's devices are simulated on the one device, and no collective runs.
  bool mesh_on_devices = false;
  std::string no_collectives;       // why no collective runs (appended to the error), or ""
  int64_t reshard_cells_limit = 0;  // (element, holder) rows a reshard's verification table may hold
  // What times a state: the results' tags say time/<clock>/median, their names "<clock_label> (median)".
  std::string clock;        // "gpu" | "cpu"
  std::string clock_label;  // "GPU Time" | "CPU Time"
  // Why a profile or an access's measured counters are absent on this backend; "" where ncu can measure.
  std::string no_profile;
  std::string no_access_counters;
  // The most bytes one convert run may hold in host memory (source span, destination and the copy ceilings'
  // two buffers), where the backend runs on the host; 0 where its buffers live on a device.
  int64_t convert_host_bytes = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual const BackendTraits& traits() const = 0;
  std::string kind() const { return traits().name; }           // "cuda" | "cpu": printed only
  virtual std::optional<std::string> unavailable() const = 0;  // why it cannot run, or nothing
  virtual std::vector<DeviceInfo> devices() = 0;               // with fresh telemetry
  // Bytes the backend can give one run on this device (bounds checks happen before any allocation).
  virtual int64_t memory_budget_bytes(int device) = 0;
  // Errors (a CUDA failure, out of memory) come back as an Error value or a std::exception; both
  // become a failed run with its reason.
  virtual Result<AosSoaMeasurement> run_aos_soa(int device, const AosSoaParams& p, RunControl& ctl) = 0;
  virtual Result<TransposeMeasurement> run_transpose(int device, const TransposeParams& p,
                                                     RunControl& ctl) = 0;
  virtual Result<ConvertMeasurement> run_convert(int device, const ConvertParams& p, RunControl& ctl) = 0;
  // smem_access / global_access: the engine's access, generated and run (GPU) or on the host executor (CPU).
  virtual Result<AccessMeasurement> run_access(int device, const AccessParams& p, RunControl& ctl) = 0;
  // The multi-device benchmarks (reshard_run.hpp): on the machine's GPUs through NCCL, or simulated.
  virtual Result<ReshardMeasurement> run_reshard(const ReshardParams& p, RunControl& ctl) = 0;
  virtual Result<CollectiveMeasurement> run_collective(const CollectiveParams& p, RunControl& ctl) = 0;
  // The one cache of generated kernels every benchmark compiles through (convert, the reshard's local
  // steps); none on a backend without run-time compilation.
  virtual KernelCache* kernel_cache() { return nullptr; }
};

std::unique_ptr<Backend> make_cpu_backend();
// kernel_dir: where generated kernels' CUBINs persist (none: memory only). unavailable() says why when built
// without CUDA.
std::unique_ptr<Backend> make_cuda_backend(std::filesystem::path kernel_dir = {});

}  // namespace layoutscope::agent
