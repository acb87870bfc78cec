// What the transpose experiments (tile_experiments*.cu) share: error checks, the reference transpose, an exact
// comparison and the cold-L2 timer. Not part of the agent; the agent's method is agent/src/measure.hpp.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

// The reference: out(x, y) = in(y, x) on a dim x dim matrix whose rows are `pitch` floats apart; grid (dim/32,
// dim/32), block (32, 8).
__global__ void naive(const float* in, float* out, int64_t dim, int64_t pitch) {
  int64_t x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8) out[x * pitch + y + j] = in[(y + j) * pitch + x];
}

// Counts differing words among the first `cols` of each of `rows` rows (pitch apart); *bad must start at 0.
__global__ void cmp(const float* a, const float* b, int64_t rows, int64_t cols, int64_t pitch, unsigned long long* bad) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < rows * cols; i += (int64_t)gridDim.x * blockDim.x) {
    const int64_t at = (i / cols) * pitch + i % cols;
    if (__float_as_uint(a[at]) != __float_as_uint(b[at])) atomicAdd(bad, 1ull);
  }
}

// The number of words among the first `cols` of each of `rows` rows (pitch apart) where got and want differ.
inline unsigned long long count_mismatches(const float* got, const float* want, int64_t rows, int64_t cols, int64_t pitch) {
  static unsigned long long* bad = nullptr;
  if (!bad) CK(cudaMalloc(&bad, 8));
  CK(cudaMemset(bad, 0, 8));
  cmp<<<1024, 256>>>(got, want, rows, cols, pitch, bad);
  unsigned long long count = 0;
  CK(cudaMemcpy(&count, bad, 8, cudaMemcpyDeviceToHost));
  return count;
}

// A plain 16 B load.
struct LoadPlain {
  __device__ __forceinline__ float4 operator()(const float* p) const { return *reinterpret_cast<const float4*>(p); }
};
// The input side of the 64-wide tiles: thread (r = t / 16, c4 = t % 16) of 256 loads kN float4 through load(p), rows
// r0 + r + 16 i (i < kN), columns c0 + 4 c4 .. + 3, of a matrix whose rows are `pitch` floats apart.
template <int kN, class Load>
__device__ __forceinline__ void load_rows64(const float* __restrict__ in, int64_t pitch, int64_t r0, int64_t c0,
                                            float4 (&v)[kN], Load load) {
  const int t = threadIdx.x, r = t / 16, c4 = t % 16;
#pragma unroll
  for (int i = 0; i < kN; ++i) v[i] = load(in + (r0 + r + 16 * i) * pitch + c0 + 4 * c4);
}

// Grouped tile order (rounds 4 and 6): the 1-D block id walks G tile rows down before one tile column right (the
// last group of rows may be shorter); the tile's origin.
__device__ __forceinline__ void grouped_origin(int64_t dim, int G, int64_t& r0, int64_t& c0) {
  const int nt = static_cast<int>(dim / 64);
  const int id = blockIdx.x, group = id / (G * nt), first = group * G;
  const int rows = min(G, nt - first), in_group = id % (G * nt);
  r0 = (first + in_group % rows) * 64LL;
  c0 = (in_group / rows) * 64LL;
}

// The swizzled 64x64 fp32 tile of the agent's tile64_swizzle (Swizzle<3,2,6> o S[(64,64):(64,1)]).
__device__ __forceinline__ int swz64(int r, int c) { return (r * 64 + c) ^ (((r >> 2) & 7) << 2); }
// Thread (r, c4) of 256 puts the float4s it loaded from tile rows r + 16 i, chunk c4, into the swizzled tile.
__device__ __forceinline__ void fill_swz64(float* tile, int r, int c4, const float4 (&v)[4]) {
#pragma unroll
  for (int i = 0; i < 4; ++i) *reinterpret_cast<float4*>(&tile[swz64(r + 16 * i, 4 * c4)]) = v[i];
}
// The 4x4 block at tile rows 4a.., columns 4b.., as four rows.
__device__ __forceinline__ void read_swz64(const float* tile, int a, int b, float4 (&q)[4]) {
#pragma unroll
  for (int k = 0; k < 4; ++k) q[k] = *reinterpret_cast<const float4*>(&tile[swz64(4 * a + k, 4 * b)]);
}

// The swizzled tile's middle: the four float4 this thread loaded (load_rows64) go into the tile, a barrier, and this
// thread's 4x4 block (rows 4a.., columns 4b.., a = t % 16, b = t / 16) comes back as four rows.
__device__ __forceinline__ void swz64_exchange(float* tile, const float4 (&v)[4], float4 (&q)[4]) {
  const int t = threadIdx.x;
  fill_swz64(tile, t / 16, t % 16, v);
  __syncthreads();
  read_swz64(tile, t % 16, t / 16, q);
}
// Where this thread's transposed 4x4 block of the tile at (r0, c0) goes: out(c0 + 4 b, r0 + 4 a).
__device__ __forceinline__ float* block_out(float* out, int64_t pitch, int64_t r0, int64_t c0) {
  const int t = threadIdx.x, a = t % 16, b = t / 16;
  return out + (c0 + 4 * b) * pitch + r0 + 4 * a;
}

// Stores of one float4: plain, or evict-first (st.global.cs).
struct StorePlain {
  __device__ __forceinline__ void operator()(float* p, float4 v) const { *reinterpret_cast<float4*>(p) = v; }
};
struct StoreCs {
  __device__ __forceinline__ void operator()(float* p, float4 v) const { __stcs(reinterpret_cast<float4*>(p), v); }
};
// The 4x4 block held as four rows q[0..3], written transposed: row j of the result (q[0].j, q[1].j, q[2].j, q[3].j)
// goes to o + j * pitch, 16 B each, through `store`.
template <class Store>
__device__ __forceinline__ void store_transposed(float* o, int64_t pitch, const float4 (&q)[4], Store store) {
  store(o, make_float4(q[0].x, q[1].x, q[2].x, q[3].x));
  store(o + pitch, make_float4(q[0].y, q[1].y, q[2].y, q[3].y));
  store(o + 2 * pitch, make_float4(q[0].z, q[1].z, q[2].z, q[3].z));
  store(o + 3 * pitch, make_float4(q[0].w, q[1].w, q[2].w, q[3].w));
}

// The float4 copy, one per thread (the agent's copy_vec4 with kCopyItems = 1).
__global__ void __launch_bounds__(256) copy1(const float4* __restrict__ in, float4* __restrict__ out, int64_t n4) {
  int64_t i = blockIdx.x * 256LL + threadIdx.x;
  if (i < n4) out[i] = in[i];
}

// Device buffers for one size: `in` holds `count` floats of a hash pattern (neighbouring values differ, so a misplaced
// element is caught), `out` and `ref` as many uninitialised floats.
struct Buffers {
  float *in = nullptr, *out = nullptr, *ref = nullptr;
  explicit Buffers(size_t count) {
    CK(cudaMalloc(&in, count * 4));
    CK(cudaMalloc(&out, count * 4));
    CK(cudaMalloc(&ref, count * 4));
    std::vector<float> h(count);
    for (size_t i = 0; i < count; ++i) h[i] = (float)((i * 2654435761u) % 1000003);
    CK(cudaMemcpy(in, h.data(), count * 4, cudaMemcpyHostToDevice));
  }
  Buffers(const Buffers&) = delete;
  Buffers& operator=(const Buffers&) = delete;
  ~Buffers() {
    cudaFree(in);
    cudaFree(out);
    cudaFree(ref);
  }
};

// The median of `reps` CUDA-event samples of f(), each after before() (not timed).
template <class Before, class F>
double median_time(int reps, Before before, F f) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<float> s;
  for (int i = 0; i < reps; ++i) {
    before();
    CK(cudaEventRecord(a));
    f();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    s.push_back(ms);
  }
  CK(cudaGetLastError());
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  std::sort(s.begin(), s.end());
  return s[reps / 2] * 1e-3;
}

// Median of 30 CUDA-event samples after 3 warm-up launches, with `fb` bytes of `flush` overwritten before each
// sample (cold L2; the memset is outside the events).
template <class F>
double timeit(F f, void* flush, size_t fb) {
  for (int i = 0; i < 3; ++i) f();
  int i = 0;
  return median_time(30, [&] { CK(cudaMemsetAsync(flush, i++, fb)); }, f);
}

// --- Bulk-copy (TMA) helpers, sm_90 PTX ---
__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void bar_init(uint64_t* bar) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(bar)));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
__device__ __forceinline__ void bar_expect(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(bar)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void bar_wait(uint64_t* bar, uint32_t parity) {
  asm volatile(
      "{\n .reg .pred p;\n"
      "W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
      " @!p bra W;\n}" ::"r"(smem(bar)),
      "r"(parity)
      : "memory");
}
__device__ __forceinline__ void bulk_load(void* dst, const void* src, uint32_t bytes, uint64_t* bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(smem(dst)),
               "l"(src), "r"(bytes), "r"(smem(bar))
               : "memory");
}
// kEvictFirst: an L2 evict-first policy on the store (true), none (false); bulk_store_last: evict-last.
__device__ __forceinline__ void bulk_store_last(void* dst, const void* src, uint32_t bytes) {
  uint64_t policy;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%0], [%1], %2, %3;" ::"l"(dst), "r"(smem(src)),
               "r"(bytes), "l"(policy)
               : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
template <bool kEvictFirst>
__device__ __forceinline__ void bulk_store(void* dst, const void* src, uint32_t bytes) {
  if (kEvictFirst) {
    uint64_t policy;
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%0], [%1], %2, %3;" ::"l"(dst), "r"(smem(src)),
                 "r"(bytes), "l"(policy)
                 : "memory");
  } else {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(smem(src)), "r"(bytes) : "memory");
  }
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
// The 64x64 tiles' store side: thread (a = t % 16, b = t / 16) writes its transposed 4x4 block q into the row-major
// staging tile, and lane l < 8 of warp w sends output row 8 w + l (256 B) to out(c0 + row, r0 ..) with
// store(dst, src), a bulk store that also waits until it has read the staging tile.
template <class BulkStore>
__device__ __forceinline__ void stage_and_store64(float* out, int64_t dim, int64_t r0, int64_t c0, float* staging,
                                                  const float4 (&q)[4], BulkStore store) {
  const int t = threadIdx.x, a = t % 16, b = t / 16;
  store_transposed(&staging[4 * b * 64 + 4 * a], 64, q, StorePlain{});
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncwarp();
  const int w = t / 32, lane = t % 32;
  if (lane < 8) {
    const int row = 8 * w + lane;
    store(out + (c0 + row) * dim + r0, &staging[row * 64]);
  }
}

template <int kPending>
__device__ __forceinline__ void bulk_store_wait_read() { asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(kPending) : "memory"); }
__device__ __forceinline__ void fence_async_smem() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
