// Clocks, power and temperature through NVML, loaded at run time (dlopen "libnvidia-ml.so.1") so the agent
// starts where there is no driver. Devices are matched by PCI bus id, because NVML's index order need not
// be CUDA's (CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER).
#pragma once

#include <optional>
#include <string>

#include "benchmark.hpp"

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

}  // namespace layoutscope::agent
