// The CUDA built-ins that the generated conversion kernels use, on the host: each CUDA thread of a block is a
// std::thread, __syncthreads a barrier of the block, the warp functions barriers of the warp's 32 threads,
// __shared__ arrays function-static (the blocks run one after another). Only what those kernels need: every
// lane of a warp takes part in each warp function (full masks).
#pragma once

#include <barrier>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

struct uint4 {
  unsigned x, y, z, w;
};
struct uint2 {
  unsigned x, y;
};
inline uint4 make_uint4(unsigned a, unsigned b, unsigned c, unsigned d) { return {a, b, c, d}; }
inline uint2 make_uint2(unsigned a, unsigned b) { return {a, b}; }

struct HostDim {
  unsigned x = 0, y = 0, z = 0;
};
inline thread_local HostDim threadIdx, blockIdx;

struct HostBlock {
  std::unique_ptr<std::barrier<>> block;
  std::vector<std::unique_ptr<std::barrier<>>> warps;
  std::vector<uint64_t> lanes;  // a word per thread for the warp exchanges
};
inline HostBlock* host_block = nullptr;

inline void __syncthreads() { host_block->block->arrive_and_wait(); }
inline void __syncwarp(unsigned = 0xffffffffu) { host_block->warps[threadIdx.x / 32]->arrive_and_wait(); }

// Lane `src` of the calling thread's warp, after every lane has published v.
template <class T>
T host_exchange(T v, int src) {
  static_assert(sizeof(T) <= sizeof(uint64_t));
  uint64_t word = 0;
  std::memcpy(&word, &v, sizeof(T));
  host_block->lanes[threadIdx.x] = word;
  __syncwarp();
  T r;
  std::memcpy(&r, &host_block->lanes[threadIdx.x / 32 * 32 + src], sizeof(T));
  __syncwarp();
  return r;
}
template <class T>
T __shfl_sync(unsigned, T v, int src, int width = 32) {
  return host_exchange(v, static_cast<int>(threadIdx.x % 32 / width * width) + src % width);
}
template <class T>
T __shfl_xor_sync(unsigned, T v, int mask, int = 32) {
  return host_exchange(v, static_cast<int>(threadIdx.x % 32) ^ mask);
}
inline unsigned __ballot_sync(unsigned, int predicate) {
  host_block->lanes[threadIdx.x] = predicate != 0;
  __syncwarp();
  unsigned bits = 0;
  for (unsigned l = 0; l < 32; ++l)
    bits |= static_cast<unsigned>(host_block->lanes[threadIdx.x / 32 * 32 + l]) << l;
  __syncwarp();
  return bits;
}

template <class T>
T __ldg(const T* p) {
  return *p;
}
inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned shift) {
  return static_cast<unsigned>(((uint64_t{hi} << 32) | lo) >> (shift & 31));
}
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  const uint64_t bytes = (uint64_t{y} << 32) | x;
  unsigned r = 0;
  for (int i = 0; i < 4; ++i)
    r |= static_cast<unsigned>((bytes >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
  return r;
}
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }

#define __device__
#define __forceinline__ inline
#define __global__
#define __launch_bounds__(...)
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))
#define __restrict__ __restrict
