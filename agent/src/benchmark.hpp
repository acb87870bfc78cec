// The contract between the HTTP side and the backends: what a benchmark is asked to do (validated
// parameters), what it measured (plain values), and the backend interface. No JSON, no HTTP here:
// benchmarks never format output (printers live in results_json.cpp / results_csv.cpp).
//
// The two benchmarks are the ones of B-09 (shared/seeds/003_bcf48fc33ae5e473.txt):
//   aos_soa    struct { float f[8]; } (32 B); each of the first touch_fields fields is incremented by 1
//              and written back, field by field (the document's §6 forbids a whole-struct copy).
//   transpose  fp32 dim x dim: copy (ceiling), naive (coalesced read, strided write),
//              tiled (32x32 shared tile), pad (tile[32][33]).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "layoutscope/result.hpp"

namespace layoutscope::agent {

enum class CacheMode { kCold, kHot };  // cold: L2 (or the CPU's last-level cache) overwritten before each sample

struct Sampling {
  int warmup = 3;
  int repetitions = 30;
  CacheMode cache = CacheMode::kCold;
  uint64_t seed = 1;  // random input of the verification pass
};

struct AosSoaParams {
  int64_t n = 0;                   // elements (structs)
  std::vector<int> touch_fields;   // subset of {1, 2, 4, 8}, in order
  Sampling sampling;
};

enum class TransposeVariant { kCopy, kNaive, kTiled, kPad };
const char* to_string(TransposeVariant v);

struct TransposeParams {
  std::vector<int64_t> dims;
  std::vector<TransposeVariant> variants;
  Sampling sampling;
};

// Median, quartiles (linear interpolation between order statistics) and extremes of the samples, seconds.
struct TimingSummary {
  int samples = 0;
  double median_s = 0, q1_s = 0, q3_s = 0, min_s = 0, max_s = 0, mean_s = 0;
  std::vector<double> samples_s;
};

struct Verification {
  bool passed = false;
  int64_t checked = 0;      // elements compared
  int64_t mismatches = 0;
  std::string first_mismatch;  // "element 17 field 0: expected 0x3f800000, got 0xffffffff"
  std::string method;
};

struct AosSoaState {
  std::string layout;   // "aos" | "soa"
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

struct Telemetry {
  std::optional<double> sm_clock_hz, memory_clock_hz, power_w, temperature_c;
  std::string source;  // "nvml", or why there is none
};

struct DeviceInfo {
  int id = 0;
  std::string kind;   // "cuda" | "cpu"
  std::string name;
  std::optional<std::string> sm_version;   // "9.0"
  int multiprocessors = 0;                 // SMs, or hardware threads on the CPU
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

struct AosSoaMeasurement {
  std::vector<AosSoaState> states;
  Telemetry before, after;
};

struct TransposeMeasurement {
  std::vector<TransposeState> states;
  Telemetry before, after;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string kind() const = 0;                      // "cuda" | "cpu"
  virtual std::optional<std::string> unavailable() const = 0; // why it cannot run, or nothing
  virtual std::vector<DeviceInfo> devices() = 0;              // with fresh telemetry
  // Bytes the backend can give one run on this device (bounds checks happen before any allocation).
  virtual int64_t memory_budget_bytes(int device) = 0;
  // Errors (a CUDA failure, out of memory) come back as an Error value or a std::exception; both
  // become a failed run with its reason.
  virtual Result<AosSoaMeasurement> run_aos_soa(int device, const AosSoaParams& p, RunControl& ctl) = 0;
  virtual Result<TransposeMeasurement> run_transpose(int device, const TransposeParams& p, RunControl& ctl) = 0;
};

std::unique_ptr<Backend> make_cpu_backend();
std::unique_ptr<Backend> make_cuda_backend();  // unavailable() says why when built without CUDA

}  // namespace layoutscope::agent
