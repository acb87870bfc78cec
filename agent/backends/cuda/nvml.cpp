#include "backends/cuda/nvml.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <mutex>
#include <type_traits>
#include <vector>

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

namespace layoutscope::agent {
namespace {

// nvml.h: nvmlPciInfo_t {char busIdLegacy[16]; unsigned domain, bus, device, pciDeviceId, pciSubSystemId;
// char busId[32];}; nvmlMemory_t {unsigned long long total, free, used}; NVML_NVLINK_MAX_LINKS 18;
// nvmlEnableState_t NVML_FEATURE_ENABLED = 1; nvmlIntNvLinkDeviceType_t GPU 0, IBMNPU 1, SWITCH 2;
// nvmlGpuTopologyLevel_t INTERNAL 0, SINGLE 10, MULTIPLE 20, HOSTBRIDGE 30, NODE 40, SYSTEM 50;
// nvmlGpuP2PCapsIndex_t READ 0, NVLINK 2; nvmlGpuP2PStatus_t OK 0.
struct PciInfo {
  char bus_id_legacy[16];
  unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];
};
struct Memory {
  unsigned long long total, free, used;
};
constexpr unsigned kMaxLinks = 18;

struct NvmlTopo {
  int (*count)(unsigned*) = nullptr;
  int (*by_index)(unsigned, Device*) = nullptr;
  int (*name)(Device, char*, unsigned) = nullptr;
  int (*memory)(Device, Memory*) = nullptr;
  int (*pci)(Device, PciInfo*) = nullptr;
  int (*link_state)(Device, unsigned, int*) = nullptr;
  int (*link_version)(Device, unsigned, unsigned*) = nullptr;
  int (*remote_pci)(Device, unsigned, PciInfo*) = nullptr;
  int (*remote_type)(Device, unsigned, int*) = nullptr;  // optional (newer drivers)
  int (*ancestor)(Device, Device, int*) = nullptr;
  int (*p2p)(Device, Device, int, int*) = nullptr;
  std::string error;
};

const NvmlTopo& nvml_topo() {
  static const NvmlTopo t = [] {
    NvmlTopo r;
    const Nvml& n = nvml();
    if (!n.error.empty()) {
      r.error = n.error;
      return r;
    }
    auto sym = [&](auto& fn, const char* name, bool required) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(n.lib, name));
      if (!fn && required && r.error.empty()) r.error = std::string("NVML lacks ") + name;
    };
    sym(r.count, "nvmlDeviceGetCount_v2", true);
    sym(r.by_index, "nvmlDeviceGetHandleByIndex_v2", true);
    sym(r.name, "nvmlDeviceGetName", true);
    sym(r.memory, "nvmlDeviceGetMemoryInfo", true);
    sym(r.pci, "nvmlDeviceGetPciInfo_v3", true);
    sym(r.link_state, "nvmlDeviceGetNvLinkState", false);
    sym(r.link_version, "nvmlDeviceGetNvLinkVersion", false);
    sym(r.remote_pci, "nvmlDeviceGetNvLinkRemotePciInfo_v2", false);
    sym(r.remote_type, "nvmlDeviceGetNvLinkRemoteDeviceType", false);
    sym(r.ancestor, "nvmlDeviceGetTopologyCommonAncestor", false);
    sym(r.p2p, "nvmlDeviceGetP2PStatus", false);
    return r;
  }();
  return t;
}

const char* ancestor_name(int level) {
  switch (level) {
    case 0:
      return "internal";
    case 10:
      return "single";
    case 20:
      return "multiple";
    case 30:
      return "hostbridge";
    case 40:
      return "node";
    case 50:
      return "system";
  }
  return "unknown";
}

}  // namespace

GpuTopology read_gpu_topology() {
  GpuTopology topo;
  const NvmlTopo& t = nvml_topo();
  if (!t.error.empty()) {
    topo.reason = t.error;
    return topo;
  }
  unsigned count = 0;
  if (int rc = t.count(&count); rc != 0) {
    topo.reason = "nvmlDeviceGetCount_v2 failed (" + std::to_string(rc) + ")";
    return topo;
  }
  if (count == 0) {
    topo.reason = "NVML reports no GPU";
    return topo;
  }
  std::vector<Device> devs(count, nullptr);
  std::vector<std::vector<std::string>> peers(count);  // per GPU: the far end's bus id of each active link
  for (unsigned i = 0; i < count; ++i) {
    GpuFacts g;
    g.index = static_cast<int>(i);
    if (t.by_index(i, &devs[i]) != 0) {
      topo.gpus.push_back(std::move(g));
      continue;
    }
    char name[96] = {};
    if (t.name(devs[i], name, sizeof name) == 0) g.name = name;
    Memory mem{};
    if (t.memory(devs[i], &mem) == 0) g.memory_bytes = static_cast<int64_t>(mem.total);
    PciInfo pci{};
    if (t.pci(devs[i], &pci) == 0) g.pci_bus_id = pci.bus_id;
    for (unsigned l = 0; t.link_state && l < kMaxLinks; ++l) {
      int active = 0;
      if (t.link_state(devs[i], l, &active) != 0 || active != 1) continue;
      ++g.nvlinks_active;
      unsigned v = 0;
      if (!g.nvlink_version && t.link_version && t.link_version(devs[i], l, &v) == 0)
        g.nvlink_version = static_cast<int>(v);
      int type = -1;
      if (t.remote_type && t.remote_type(devs[i], l, &type) == 0 && type == 2) {
        ++g.nvlinks_to_switch;
        continue;
      }
      PciInfo far{};
      if (t.remote_pci && t.remote_pci(devs[i], l, &far) == 0) peers[i].push_back(far.bus_id);
    }
    topo.gpus.push_back(std::move(g));
  }
  for (unsigned a = 0; a < count; ++a) {
    for (unsigned b = a + 1; b < count; ++b) {
      if (!devs[a] || !devs[b]) continue;
      GpuLink k;
      k.a = static_cast<int>(a);
      k.b = static_cast<int>(b);
      for (const auto& far : peers[a]) k.nvlinks += far == topo.gpus[b].pci_bus_id ? 1 : 0;
      int level = -1;
      if (t.ancestor && t.ancestor(devs[a], devs[b], &level) == 0) k.common_ancestor = ancestor_name(level);
      int status = -1;
      if (t.p2p && t.p2p(devs[a], devs[b], 0, &status) == 0) k.p2p_read = status == 0;
      if (t.p2p && t.p2p(devs[a], devs[b], 2, &status) == 0) k.p2p_nvlink = status == 0;
      if (k.nvlinks > 0) {
        k.kind = "nvlink";
      } else if (topo.gpus[a].nvlinks_to_switch > 0 && topo.gpus[b].nvlinks_to_switch > 0) {
        k.kind = "nvswitch";
        k.nvlinks = std::min(topo.gpus[a].nvlinks_to_switch, topo.gpus[b].nvlinks_to_switch);
      } else {
        k.kind = k.p2p_nvlink.value_or(false) ? "nvlink" : "pcie";
      }
      if (k.kind != "pcie") k.nvlink_version = topo.gpus[a].nvlink_version;
      topo.links.push_back(std::move(k));
    }
  }
  return topo;
}

}  // namespace layoutscope::agent
