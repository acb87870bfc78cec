// Clocks, power and temperature through NVML, loaded at run time (dlopen "libnvidia-ml.so.1") so the agent
// starts where there is no driver. Devices are matched by PCI bus id, because NVML's index order need not
// be CUDA's (CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER).
#pragma once

#include <string>

#include "benchmark.hpp"

namespace layoutscope::agent {

// pci_bus_id as cudaDeviceGetPCIBusId writes it ("0000:19:00.0"). Telemetry::source says "nvml" or why not.
Telemetry read_nvml_telemetry(const std::string& pci_bus_id);

}  // namespace layoutscope::agent
