// The GPU labs' check of a CUDA runtime call: a standalone program stops at the first failure, naming the
// call.
//   CHECK(cudaMalloc(&p, bytes));   -> "tma_lab.cu:88 cudaMalloc(&p, bytes): out of memory", exit 1
#pragma once

#include <cstdio>
#include <cstdlib>

#define CHECK(x)                                                                              \
  do {                                                                                        \
    cudaError_t e_ = (x);                                                                     \
    if (e_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)
