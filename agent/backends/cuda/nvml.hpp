// Clocks, power and temperature through NVML, loaded at run time (dlopen "libnvidia-ml.so.1") so the agent
// starts where there is no driver. Devices are matched by PCI bus id, because NVML's index order need not
// be CUDA's (CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/benchmark.hpp"

namespace layoutscope::agent {

// pci_bus_id as cudaDeviceGetPCIBusId writes it ("0000:19:00.0"). Telemetry::source says "nvml" or why not.
Telemetry read_nvml_telemetry(const std::string& pci_bus_id);

// Clock event reasons that mean the SM clock was held down: SW power cap 0x4, HW slowdown 0x8, SW thermal
// 0x20, HW thermal 0x40, HW power brake 0x80 (idle, application clocks, sync boost and display are not
// throttling).
inline constexpr unsigned long long kThrottleReasonsMask = 0x4 | 0x8 | 0x20 | 0x40 | 0x80;

// Why NVML cannot give a per-sample SM clock for this device, or nothing when it can.
std::optional<std::string> nvml_clock_unavailable(const std::string& pci_bus_id);
// The SM clock and whether a throttle reason is active, right now (called after each sample).
ClockReading read_nvml_clock(const std::string& pci_bus_id);

// Every NVIDIA GPU NVML sees (whatever the backend), and how each pair is connected: what GET /v1/devices
// reports as the machine's topology. Pairs are (a, b) with a < b, NVML indices.
struct GpuFacts {
  int index = 0;  // NVML's
  std::string name;
  int64_t memory_bytes = 0;
  std::string pci_bus_id;             // NVML's spelling, "00000000:19:00.0"
  int nvlinks_active = 0;             // links in state enabled (nvmlDeviceGetNvLinkState)
  std::optional<int> nvlink_version;  // of its first active link (nvmlDeviceGetNvLinkVersion)
  int nvlinks_to_switch = 0;          // active links whose far end is an NVSwitch
};
struct GpuLink {
  int a = 0, b = 0;
  std::string kind;  // "nvlink" (direct), "nvswitch" (NVLink through switches), "pcie"
  int nvlinks = 0;   // direct links between the two; through switches: the fewer of their counts
  std::optional<int> nvlink_version;
  std::string common_ancestor;  // nvmlDeviceGetTopologyCommonAncestor: "internal", "single", "multiple",
                                // "hostbridge", "node", "system"
  std::optional<bool> p2p_read, p2p_nvlink;  // nvmlDeviceGetP2PStatus, read and NVLink capabilities
};
struct GpuTopology {
  std::vector<GpuFacts> gpus;
  std::vector<GpuLink> links;
  std::string reason;  // why the list is empty (no NVML, no GPU), empty otherwise
};
GpuTopology read_gpu_topology();

}  // namespace layoutscope::agent
