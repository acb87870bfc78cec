// One check for every CUDA runtime call: a failure throws CudaError naming the call, file and line, which
// the job turns into a failed run with that reason (the agent keeps serving).
//   LS_CUDA_CHECK(cudaMalloc(&p, bytes));   -> "cudaMalloc(&p, bytes) failed at cuda_backend.cpp:88:
//                                               out of memory (cudaErrorMemoryAllocation)"
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace layoutscope::agent {

struct CudaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A failed call also leaves its error as the thread's "last error" (cudaGetLastError); a non-sticky one such
// as cudaErrorMemoryAllocation would otherwise be reported again by the next launch check, failing the next
// run too (seen on the H200: the run after an injected 1 PiB cudaMalloc failed with "out of memory").
// Reading it here clears it; a sticky error (a kernel fault) stays and every later call reports it.
inline void cuda_check(cudaError_t status, const char* call, const char* file, int line) {
  if (status == cudaSuccess) return;
  (void)cudaGetLastError();
  std::string where = file;
  if (auto slash = where.find_last_of('/'); slash != std::string::npos) where = where.substr(slash + 1);
  throw CudaError(std::string(call) + " failed at " + where + ":" + std::to_string(line) + ": " +
                  cudaGetErrorString(status) + " (" + cudaGetErrorName(status) + ")");
}

}  // namespace layoutscope::agent

#define LS_CUDA_CHECK(call) ::layoutscope::agent::cuda_check((call), #call, __FILE__, __LINE__)
