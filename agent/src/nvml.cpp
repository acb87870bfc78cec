#include "nvml.hpp"

#include <dlfcn.h>

#include <mutex>

namespace layoutscope::agent {
namespace {

// From nvml.h (NVIDIA Management Library API reference): nvmlReturn_t is an int enum, NVML_SUCCESS = 0;
// nvmlClockType_t NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2; nvmlTemperatureSensors_t NVML_TEMPERATURE_GPU = 0;
// nvmlDeviceGetPowerUsage reports milliwatts; nvmlDeviceGetTotalEccErrors(dev,
// NVML_MEMORY_ERROR_TYPE_CORRECTED = 0 | UNCORRECTED = 1, NVML_VOLATILE_ECC = 0, unsigned long long*);
// nvmlDeviceGetCurrentClocksEventReasons (older name ...ClocksThrottleReasons) returns a mask: 0x1 GPU idle,
// 0x2 applications clocks setting, 0x4 SW power cap, 0x8 HW slowdown, 0x10 sync boost, 0x20 SW thermal, 0x40
// HW thermal, 0x80 HW power brake, 0x100 display.
using Device = struct nvmlDevice_st*;
using InitFn = int (*)();
using ByPciFn = int (*)(const char*, Device*);
using ClockFn = int (*)(Device, int, unsigned*);
using PowerFn = int (*)(Device, unsigned*);
using TempFn = int (*)(Device, int, unsigned*);
using EccFn = int (*)(Device, int, int, unsigned long long*);
using ReasonsFn = int (*)(Device, unsigned long long*);

struct Nvml {
  void* lib = nullptr;
  ByPciFn by_pci = nullptr;
  ClockFn clock = nullptr;
  PowerFn power = nullptr;
  TempFn temperature = nullptr;
  EccFn ecc = nullptr;          // optional
  ReasonsFn reasons = nullptr;  // optional
  std::string error;
};

const Nvml& nvml() {
  static Nvml n = [] {
    Nvml r;
    r.lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!r.lib) {
      r.error = "NVML not available (libnvidia-ml.so.1 not found)";
      return r;
    }
    auto init = reinterpret_cast<InitFn>(dlsym(r.lib, "nvmlInit_v2"));
    r.by_pci = reinterpret_cast<ByPciFn>(dlsym(r.lib, "nvmlDeviceGetHandleByPciBusId_v2"));
    r.clock = reinterpret_cast<ClockFn>(dlsym(r.lib, "nvmlDeviceGetClockInfo"));
    r.power = reinterpret_cast<PowerFn>(dlsym(r.lib, "nvmlDeviceGetPowerUsage"));
    r.temperature = reinterpret_cast<TempFn>(dlsym(r.lib, "nvmlDeviceGetTemperature"));
    r.ecc = reinterpret_cast<EccFn>(dlsym(r.lib, "nvmlDeviceGetTotalEccErrors"));
    r.reasons = reinterpret_cast<ReasonsFn>(dlsym(r.lib, "nvmlDeviceGetCurrentClocksEventReasons"));
    if (!r.reasons)
      r.reasons = reinterpret_cast<ReasonsFn>(dlsym(r.lib, "nvmlDeviceGetCurrentClocksThrottleReasons"));
    if (!init || !r.by_pci || !r.clock || !r.power || !r.temperature) {
      r.error = "NVML library lacks the expected symbols";
    } else if (int rc = init(); rc != 0) {
      r.error = "nvmlInit_v2 failed (" + std::to_string(rc) + ")";
    }
    return r;
  }();
  return n;
}

}  // namespace

Telemetry read_nvml_telemetry(const std::string& pci_bus_id) {
  Telemetry t;
  const Nvml& n = nvml();
  if (!n.error.empty()) {
    t.source = n.error;
    return t;
  }
  Device dev = nullptr;
  if (n.by_pci(pci_bus_id.c_str(), &dev) != 0) {
    t.source = "NVML has no device at PCI bus id " + pci_bus_id;
    return t;
  }
  unsigned v = 0;
  if (n.clock(dev, 1, &v) == 0) t.sm_clock_hz = v * 1e6;
  if (n.clock(dev, 2, &v) == 0) t.memory_clock_hz = v * 1e6;
  if (n.power(dev, &v) == 0) t.power_w = v / 1000.0;
  if (n.temperature(dev, 0, &v) == 0) t.temperature_c = v;
  unsigned long long c = 0;
  if (n.ecc && n.ecc(dev, 0, 0, &c) == 0) t.ecc_corrected_volatile = static_cast<int64_t>(c);
  if (n.ecc && n.ecc(dev, 1, 0, &c) == 0) t.ecc_uncorrected_volatile = static_cast<int64_t>(c);
  if (n.reasons && n.reasons(dev, &c) == 0) t.clock_event_reasons = c;
  t.source = "nvml";
  return t;
}

std::optional<std::string> nvml_clock_unavailable(const std::string& pci_bus_id) {
  const Nvml& n = nvml();
  if (!n.error.empty()) return n.error;
  Device dev = nullptr;
  if (n.by_pci(pci_bus_id.c_str(), &dev) != 0) return "NVML has no device at PCI bus id " + pci_bus_id;
  unsigned v = 0;
  if (n.clock(dev, 1, &v) != 0) return std::string("NVML does not report the SM clock");
  return std::nullopt;
}

ClockReading read_nvml_clock(const std::string& pci_bus_id) {
  ClockReading r;
  const Nvml& n = nvml();
  if (!n.error.empty()) return r;
  thread_local std::string cached_bus;
  thread_local Device dev = nullptr;
  if (cached_bus != pci_bus_id) {
    if (n.by_pci(pci_bus_id.c_str(), &dev) != 0) return r;
    cached_bus = pci_bus_id;
  }
  unsigned v = 0;
  if (n.clock(dev, 1, &v) == 0) r.sm_clock_hz = v * 1e6;
  unsigned long long reasons = 0;
  if (n.reasons && n.reasons(dev, &reasons) == 0) r.throttled = (reasons & kThrottleReasonsMask) != 0;
  return r;
}

}  // namespace layoutscope::agent
