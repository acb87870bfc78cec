// NCCL, loaded at run time (dlopen "libnccl.so.2", or the file LAYOUTSCOPE_NCCL_LIBRARY names) so the agent
// starts and answers on machines without it; only the entry points the reshard and collective benchmarks
// call are declared, from nccl.h's documented API (NCCL's "API" pages: Communicator Creation, Collective
// Communication Functions, Group Calls, Point-to-Point Communication).
//
//   keep_nvls_off();                                  // before NCCL is loaded: NVLink multicast stays off
//   auto lib = load_nccl();                              // the library, or why it cannot be loaded
//   std::vector<nccl::Comm> comms(2);
//   int devs[] = {0, 1};
//   lib->comm_init_all(comms.data(), 2, devs);        // one process, one thread, one rank per device
//   lib->group_start();
//   for (int r = 0; r < 2; ++r)                       // one call per rank inside one group
//     lib->all_gather(send[r], recv[r], count, nccl::kUint8, comms[r], streams[r]);
//   lib->group_end();
//
// Streams are passed as opaque pointers (cudaStream_t is a pointer to an opaque struct), so this file needs
// no CUDA header and builds without CUDA.
#pragma once

#include <cstddef>
#include <string>

#include "layoutscope/result.hpp"

namespace layoutscope::agent {
namespace nccl {

// ncclDataType_t values (nccl.h): int8 0, uint8 1, int32 2, uint32 3, int64 4, uint64 5, float16 6,
// float32 7, float64 8, bfloat16 9. ncclRedOp_t ncclSum = 0. ncclResult_t ncclSuccess = 0.
enum DataType : int {
  kInt8 = 0,
  kUint8 = 1,
  kInt32 = 2,
  kUint32 = 3,
  kInt64 = 4,
  kUint64 = 5,
  kFloat16 = 6,
  kFloat32 = 7,
  kFloat64 = 8,
  kBfloat16 = 9
};
enum RedOp : int { kSum = 0 };
using Comm = struct ncclComm*;
using Stream = void*;  // cudaStream_t

struct Library {
  int (*get_version)(int*) = nullptr;
  int (*comm_init_all)(Comm*, int, const int*) = nullptr;
  int (*comm_destroy)(Comm) = nullptr;
  int (*group_start)() = nullptr;
  int (*group_end)() = nullptr;
  int (*all_gather)(const void*, void*, size_t, DataType, Comm, Stream) = nullptr;
  int (*reduce_scatter)(const void*, void*, size_t, DataType, RedOp, Comm, Stream) = nullptr;
  int (*all_reduce)(const void*, void*, size_t, DataType, RedOp, Comm, Stream) = nullptr;
  int (*broadcast)(const void*, void*, size_t, DataType, int, Comm, Stream) = nullptr;
  int (*send)(const void*, size_t, DataType, int, Comm, Stream) = nullptr;
  int (*recv)(void*, size_t, DataType, int, Comm, Stream) = nullptr;
  const char* (*error_string)(int) = nullptr;
  std::string path;  // the file dlopen found
  int version = 0;   // NCCL_VERSION_CODE: major * 10000 + minor * 100 + patch (2.9 and later)
};

}  // namespace nccl

// Sets NCCL_NVLS_ENABLE=0 unless it is already "0": NVLink multicast (NVLS) stays off for the agent and every
// process it starts. Called at start-up and again before NCCL is loaded; returns a note when it had to
// override a different value, empty otherwise.
std::string keep_nvls_off();

// The loaded library, or an error saying which file could not be loaded or which symbol is missing
// (field "nccl"). Loaded once; later calls return the same answer.
Result<const nccl::Library*> load_nccl();

// "2.21.5", or why NCCL cannot be loaded.
Result<std::string> nccl_version();

// "ncclAllGather failed: unhandled cuda error (run with NCCL_DEBUG=WARN for details)" for a non-zero result.
std::string nccl_error(const char* call, int rc);

}  // namespace layoutscope::agent
