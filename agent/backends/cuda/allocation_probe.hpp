// A real device allocation far beyond the device's memory, for the test-only failing backend
// (jobs/fault_injection.hpp): on a GPU its error is the CUDA runtime's own.
#pragma once

#include <cstdint>

namespace layoutscope::agent {

// Defined by the CUDA backend (cuda_backend.cpp / cuda_backend_absent.cpp): cudaMalloc(bytes) on the device
// through LS_CUDA_CHECK, freed again; throws on failure.
void cuda_allocation_probe(int device, int64_t bytes);

}  // namespace layoutscope::agent
