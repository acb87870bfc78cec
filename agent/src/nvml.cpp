#include "nvml.hpp"

#include <dlfcn.h>

#include <mutex>

namespace layoutscope::agent {
namespace {

// From nvml.h (NVIDIA Management Library API reference): nvmlReturn_t is an int enum, NVML_SUCCESS = 0;
// nvmlClockType_t NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2; nvmlTemperatureSensors_t NVML_TEMPERATURE_GPU = 0;
// nvmlDeviceGetPowerUsage reports milliwatts.
using Device = struct nvmlDevice_st*;
using InitFn = int (*)();
using ByPciFn = int (*)(const char*, Device*);
using ClockFn = int (*)(Device, int, unsigned*);
using PowerFn = int (*)(Device, unsigned*);
using TempFn = int (*)(Device, int, unsigned*);

struct Nvml {
  void* lib = nullptr;
  ByPciFn by_pci = nullptr;
  ClockFn clock = nullptr;
  PowerFn power = nullptr;
  TempFn temperature = nullptr;
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
  t.source = "nvml";
  return t;
}

}  // namespace layoutscope::agent
