// Round 8 of the transpose experiments (rounds 1-7: tile_experiments*.cu, results in docs/results/h200-experiments*.txt).
// After round 7 the agent's 64x64 transpose (column-major tile order, 256 B bulk stores, L2 evict-last loads) runs at
// 0.969-0.972 of the float4 copy at 16384^2, now that the copy loads with the same evict-last policy. The cache policy
// was the only lever in round 7 that moved it, so this round asks what else the L2 policies do (the argument picks
// the call's list; results: docs/results/h200-experiments8.txt):
//   - policies: the load policy (plain, evict-last with fraction 1.0 or 0.5, evict-last with evict-first for the rest,
//     evict-normal, evict-unchanged, evict-last with a 256 B L2 prefetch, evict-last through the non-coherent path)
//     and the store policy (bulk stores with none, evict-first or evict-unchanged; for the copy plain, evict-first,
//     st.global.cs, evict-unchanged), each in the transpose and in the copy, so that a gain in one can be compared
//     with the same gain in the other.
//   - residue: what evict-last loads leave behind. (a) After a 16384^2 transpose, does a later kernel still get the
//     whole L2? A buffer of 16-48 MiB is read twice; the second read runs at L2 speed only if the buffer stayed.
//     (b) Does the cold-L2 memset (the agent overwrites 2x the L2 size) remove lines loaded with evict-last? A
//     2048^2 input (16 MiB) is transposed, the flush runs, and the input is read again: at DRAM speed if it went.
//   - reset: evict-last loads whose lines the kernel sets back to evict-normal (applypriority) once in registers.
//   - flush, flush2, demote (and their -ncu lists, every case once, for ncu --cache-control none): which flushes
//     remove lines read before them with plain or evict-last loads, and what takes the evict-last mark off.
//   - orders: the agent's kernel with evict-last loads in other tile orders, or with 7-8 blocks per SM. Round 9 ran the
//     same list at 2048^2 and 4096^2 (ORDER_DIMS=2048,4096; h200-experiments9.txt): where 4096 tiles are 5.2 waves of
//     6 blocks per SM, do 7 or 8 blocks per SM (4.4, 3.9 waves) shorten the tail?
// In short: no other policy, order or occupancy beats the agent's kernel; evict-last lines stay behind and outlast
// any flush; cudaCtxResetPersistingL2Cache takes the mark off (the agent adopted it before every cold flush).
//   nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -Xptxas -v tests/gpu/tile_experiments5.cu -o /tmp/tx5
//   /tmp/tx5 policies|reset|residue|residue-ncu|flush|flush-ncu|flush2|flush2-ncu|demote|demote-ncu|orders
// Timed lists: cold L2 (memset of 128 MiB before each sample), CUDA events, median of 30 samples (15 in residue, flush,
// demote); every transpose compared exactly with a naive transpose, every copy with its input.
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "experiment_harness.cuh"

// Load policies. kPlain: ld.global.v4; the others carry an L2 cache policy made by createpolicy.
enum LoadPolicy {
  kPlain,
  kLast,           // evict_last, fraction 1.0 (the agent's load_evict_last)
  kLastHalf,       // evict_last for half the lines, evict_unchanged for the rest
  kLastFirstHalf,  // evict_last for half the lines, evict_first for the rest
  kNormal,         // evict_normal
  kUnchanged,      // evict_unchanged
  kLast256,        // evict_last + L2::256B prefetch size
  kLastNc,         // evict_last through ld.global.nc
  kLastReset,      // evict_last, and each line set back to evict_normal (applypriority) once its data is in registers
  kFirst,          // evict_first
};
const char* const kLoadName[] = {"plain",         "evict-last",   "evict-last 0.5", "evict-last 0.5 / first",
                                 "evict-normal",  "evict-unchanged", "evict-last + L2::256B", "evict-last, .nc",
                                 "evict-last, reset", "evict-first"};

template <int kLoad>
__device__ __forceinline__ uint64_t load_policy() {
  uint64_t p;
  if (kLoad == kLast || kLoad == kLast256 || kLoad == kLastNc || kLoad == kLastReset)
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p));
  else if (kLoad == kLastHalf)
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 0.5;" : "=l"(p));
  else if (kLoad == kLastFirstHalf)
    asm volatile("createpolicy.fractional.L2::evict_last.L2::evict_first.b64 %0, 0.5;" : "=l"(p));
  else if (kLoad == kNormal)
    asm volatile("createpolicy.fractional.L2::evict_normal.b64 %0, 1.0;" : "=l"(p));
  else if (kLoad == kFirst)
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
  else
    asm volatile("createpolicy.fractional.L2::evict_unchanged.b64 %0, 1.0;" : "=l"(p));
  return p;
}

template <int kLoad>
__device__ __forceinline__ float4 load16(const float* p) {
  float4 v;
  if (kLoad == kPlain) return *reinterpret_cast<const float4*>(p);
  const uint64_t policy = load_policy<kLoad>();
  if (kLoad == kLast256)
    asm volatile("ld.global.L2::cache_hint.L2::256B.v4.f32 {%0,%1,%2,%3}, [%4], %5;"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p), "l"(policy));
  else if (kLoad == kLastNc)
    asm volatile("ld.global.nc.L2::cache_hint.v4.f32 {%0,%1,%2,%3}, [%4], %5;"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p), "l"(policy));
  else
    asm volatile("ld.global.L2::cache_hint.v4.f32 {%0,%1,%2,%3}, [%4], %5;"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p), "l"(policy));
  return v;
}

// Sets the priority of the 128 B L2 line at p back to evict_normal (the data stays).
__device__ __forceinline__ void reset_priority(const void* p) {
  asm volatile("applypriority.global.L2::evict_normal [%0], 128;" ::"l"(p) : "memory");
}

// Store policies. For the copy: plain st.global.v4, an L2 evict-first or evict-unchanged policy, st.global.cs. For
// the transpose's 256 B bulk stores: no policy, evict-first or evict-unchanged.
enum StorePolicy { kStPlain, kStFirst, kStUnchanged, kStCs };
const char* const kStoreName[] = {"plain", "evict-first", "evict-unchanged", "st.cs"};

template <int kStore>
__device__ __forceinline__ void store16(float* p, float4 v) {
  if (kStore == kStPlain) {
    *reinterpret_cast<float4*>(p) = v;
  } else if (kStore == kStCs) {
    __stcs(reinterpret_cast<float4*>(p), v);
  } else {
    uint64_t policy;
    if (kStore == kStFirst) asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
    else asm volatile("createpolicy.fractional.L2::evict_unchanged.b64 %0, 1.0;" : "=l"(policy));
    asm volatile("st.global.L2::cache_hint.v4.f32 [%0], {%1,%2,%3,%4}, %5;" ::"l"(p), "f"(v.x), "f"(v.y), "f"(v.z),
                 "f"(v.w), "l"(policy)
                 : "memory");
  }
}

template <int kStore>
__device__ __forceinline__ void bulk_store256(float* dst, const float* src) {
  if (kStore == kStPlain) {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 256;" ::"l"(dst), "r"(smem(src)) : "memory");
  } else {
    uint64_t policy;
    if (kStore == kStFirst) asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
    else asm volatile("createpolicy.fractional.L2::evict_unchanged.b64 %0, 1.0;" : "=l"(policy));
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%0], [%1], 256, %2;" ::"l"(dst),
                 "r"(smem(src)), "l"(policy)
                 : "memory");
  }
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
  asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}

// The float4 copy, one per thread, with the given load and store policies.
template <int kLoad, int kStore>
__global__ void __launch_bounds__(256) copy_pol(const float4* __restrict__ in, float4* __restrict__ out, int64_t n4) {
  const int64_t i = blockIdx.x * 256LL + threadIdx.x;
  if (i < n4) {
    store16<kStore>(reinterpret_cast<float*>(out + i), load16<kLoad>(reinterpret_cast<const float*>(in + i)));
    if (kLoad == kLastReset && threadIdx.x % 8 == 0) reset_priority(in + i);  // one lane per 128 B line
  }
}

// The agent's 64x64 tile work (transpose_tile64_kernel<false>: padded tile, staging tile, one 256 B bulk store per
// output row) for the tile at (r0, c0), with the given load policy and bulk-store policy. kShared: the staging tile
// lives in the input tile's memory (one more barrier).
__device__ __forceinline__ int pad64(int r, int c) { return r * 64 + c + 4 * (r >> 2); }
template <int kLoad, int kStore, bool kShared>
__device__ __forceinline__ void t64_tile(const float* __restrict__ in, float* __restrict__ out, int64_t dim, int64_t r0,
                                         int64_t c0, float* tile, float* staging) {
  const int t = threadIdx.x, r = t / 16, c4 = t % 16, a = t % 16, b = t / 16;
  float4 v[4];
  load_rows64(in, dim, r0, c0, v, [](const float* p) { return load16<kLoad>(p); });
#pragma unroll
  for (int i = 0; i < 4; ++i) *reinterpret_cast<float4*>(&tile[pad64(r + 16 * i, 4 * c4)]) = v[i];
  __syncthreads();
  // The tile's 64 rows x 2 lines of input, one thread each.
  if (kLoad == kLastReset && t < 128) reset_priority(in + (r0 + t / 2) * dim + c0 + 32 * (t % 2));
  float4 q[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) q[k] = *reinterpret_cast<const float4*>(&tile[pad64(4 * a + k, 4 * b)]);
  if (kShared) __syncthreads();  // every warp has its block in registers before the tile is overwritten
  stage_and_store64(out, dim, r0, c0, staging, q, [](float* dst, const float* src) { bulk_store256<kStore>(dst, src); });
}

// The agent's kernel: column-major tile order. dim % 64 == 0.
template <int kLoad, int kStore>
__global__ void __launch_bounds__(256, 6) t64_pol(const float* __restrict__ in, float* __restrict__ out, int64_t dim) {
  __shared__ __align__(128) float tile[64 * 64 + 64];
  __shared__ __align__(128) float staging[64 * 64];
  const int64_t nt = dim / 64;
  t64_tile<kLoad, kStore, false>(in, out, dim, (blockIdx.x % nt) * 64, (blockIdx.x / nt) * 64, tile, staging);
}

// Call 6 (orders): the agent's kernel with evict-last loads in other tile orders, or with the staging tile in the
// input tile's memory (16.6 KB per block, so 7 or 8 blocks fit on an SM instead of 6).
//   kOrder 0: column-major (the agent); 1: two tile columns interleaved (blocks 2k, 2k + 1 take tiles (k, 2j) and
//   (k, 2j + 1): 512 B input row pieces read together, still whole output rows); 2: row-major; 3: snake (odd tile
//   columns walked bottom-up). dim % 128 == 0.
template <int kOrder, bool kShared, int kBlocks>
__global__ void __launch_bounds__(256, kBlocks) t64_ord(const float* __restrict__ in, float* __restrict__ out, int64_t dim) {
  __shared__ __align__(128) float tile[64 * 64 + 64];
  __shared__ __align__(128) float own_staging[kShared ? 4 : 64 * 64];
  const int64_t nt = dim / 64, id = blockIdx.x;
  int64_t tr, tc;
  if (kOrder == 0) {
    tr = id % nt, tc = id / nt;
  } else if (kOrder == 1) {
    const int64_t k = id % (2 * nt);
    tr = k / 2, tc = 2 * (id / (2 * nt)) + k % 2;
  } else if (kOrder == 2) {
    tr = id / nt, tc = id % nt;
  } else {
    tc = id / nt, tr = (tc & 1) ? nt - 1 - id % nt : id % nt;
  }
  t64_tile<kLast, kStPlain, kShared>(in, out, dim, tr * 64, tc * 64, tile, kShared ? tile : own_staging);
}

// Reads n4 float4 (load16<kLoad>) and writes one sum per block, so the loads are not optimised away.
template <int kLoad = kPlain>
__global__ void __launch_bounds__(256) read_sum(const float4* __restrict__ in, int64_t n4, float* __restrict__ sums) {
  float s = 0;
  for (int64_t i = blockIdx.x * 256LL + threadIdx.x; i < n4; i += int64_t{gridDim.x} * 256) {
    const float4 v = load16<kLoad>(reinterpret_cast<const float*>(in + i));
    s += v.x + v.y + v.z + v.w;
  }
  s += __shfl_xor_sync(~0u, s, 16);
  s += __shfl_xor_sync(~0u, s, 8);
  s += __shfl_xor_sync(~0u, s, 4);
  s += __shfl_xor_sync(~0u, s, 2);
  s += __shfl_xor_sync(~0u, s, 1);
  if (threadIdx.x % 32 == 0) atomicAdd(&sums[blockIdx.x], s);
}

// Flush candidates: read or write `n4` float4 of a buffer with plain accesses, grid-stride.
__global__ void __launch_bounds__(256) flush_read(const float4* __restrict__ p, int64_t n4, float* __restrict__ sink) {
  float s = 0;
  for (int64_t i = blockIdx.x * 256LL + threadIdx.x; i < n4; i += int64_t{gridDim.x} * 256) s += p[i].x;
  if (s == 12345.0f) *sink = s;  // never true for the zeroed buffer; keeps the loads
}
__global__ void __launch_bounds__(256) flush_write(float4* __restrict__ p, int64_t n4, float v) {
  for (int64_t i = blockIdx.x * 256LL + threadIdx.x; i < n4; i += int64_t{gridDim.x} * 256) p[i] = make_float4(v, v, v, v);
}

// Flush candidates that make their own lines hit in L2 (so they compete with lines that were reused): each thread
// reads each of its float4 kRead times, each re-read's address depending on the previous value (through an asm
// the compiler cannot see through, so the re-read is issued after the first returns and is not merged with it).
template <int kRead>
__global__ void __launch_bounds__(256) flush_reread(const float4* __restrict__ p, int64_t n4, float* __restrict__ sink) {
  float s = 0;
  for (int64_t i = blockIdx.x * 256LL + threadIdx.x; i < n4; i += int64_t{gridDim.x} * 256) {
    int64_t at = i;
    for (int k = 0; k < kRead; ++k) {
      float4 v;
      asm volatile("ld.global.cg.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p + at));
      int zero;
      asm volatile("and.b32 %0, %1, 0;" : "=r"(zero) : "r"(__float_as_int(v.x)));
      at = i + zero;
      s += v.y;
    }
  }
  if (s == 12345.0f) *sink = s;
}
// Each block writes its 16 KB chunks and reads them back (ld.global.cg after a barrier): written lines that hit.
__global__ void __launch_bounds__(256) flush_write_read(float4* __restrict__ p, int64_t n4, float* __restrict__ sink) {
  float s = 0;
  for (int64_t base = blockIdx.x * 1024LL; base < n4; base += int64_t{gridDim.x} * 1024) {
    for (int k = 0; k < 4; ++k)
      if (base + k * 256 + threadIdx.x < n4) p[base + k * 256 + threadIdx.x] = make_float4(1, 1, 1, 1);
    __syncthreads();
    for (int k = 0; k < 4; ++k)
      if (base + k * 256 + threadIdx.x < n4) s += __ldcg(&p[base + k * 256 + threadIdx.x]).x;
    __syncthreads();
  }
  if (s == 12345.0f) *sink = s;
}

// Sets every 128 B line of [p, p + bytes) back to evict_normal (applypriority), one thread per line.
__global__ void __launch_bounds__(256) demote(const char* p, int64_t bytes) {
  for (int64_t at = (blockIdx.x * 256LL + threadIdx.x) * 128; at < bytes; at += int64_t{gridDim.x} * 256 * 128)
    reset_priority(p + at);
}

// One kernel at one size: its median time (timeit), then one more launch into a poisoned output, compared exactly
// with `want` (the input for a copy, the reference for a transpose).
struct Measured {
  double sec;
  bool ok;
};
template <class Launch>
Measured measure(Launch launch, const Buffers& buf, const float* want, int64_t dim, void* flush, size_t fb) {
  const double sec = timeit(launch, flush, fb);
  CK(cudaMemset(buf.out, 0xff, dim * dim * 4));
  launch();
  CK(cudaDeviceSynchronize());
  return {sec, count_mismatches(buf.out, want, dim, dim, dim) == 0};
}

// The median of `reps` samples of `timed`, each after `before` (experiment_harness.cuh); 1 under ncu.
int reps = 15;
template <class Before, class Timed>
double median_after(Before before, Timed timed) { return median_time(reps, before, timed); }

int main(int argc, char** argv) {
  const size_t fb = 128 << 20;
  void* flush;
  CK(cudaMalloc(&flush, fb));
  const std::string what = argc > 1 ? argv[1] : "policies";
  if (what == "policies") {
    for (int64_t dim : {8192, 16384}) {
      const int64_t n = dim * dim, bytes = n * 4, n4 = n / 4;
      Buffers buf(n);
      naive<<<dim3(dim / 32, dim / 32), dim3(32, 8)>>>(buf.in, buf.ref, dim, dim);
      const double gb = 2.0 * bytes;
      const unsigned g = static_cast<unsigned>((dim / 64) * (dim / 64)), gc = static_cast<unsigned>((n4 + 255) / 256);
      double plain_copy = 0, agent_copy = 0;
      // One line: the median time, and the output checked against the input (copy) or the reference (transpose).
      auto line = [&](const char* kind, int load, int store, bool is_copy, auto launch) {
        const auto [sec, ok] = measure(launch, buf, is_copy ? buf.in : buf.ref, dim, flush, fb);
        if (is_copy && load == kPlain && store == kStPlain) plain_copy = sec;
        if (is_copy && load == kLast && store == kStPlain) agent_copy = sec;
        printf("dim %6lld %-9s load %-23s store %-15s %8.1f us %6.3f TB/s %6.3f of plain copy %6.3f of evict-last copy  %s\n",
               (long long)dim, kind, kLoadName[load], kStoreName[store], sec * 1e6, gb / sec / 1e12,
               plain_copy / sec, agent_copy / sec, ok ? "ok" : "WRONG");
        fflush(stdout);
      };
#define COPY(L, S) line("copy", L, S, true, [&] { copy_pol<L, S><<<gc, 256>>>((const float4*)buf.in, (float4*)buf.out, n4); })
#define T64(L, S) line("transpose", L, S, false, [&] { t64_pol<L, S><<<g, 256>>>(buf.in, buf.out, dim); })
      for (int pass = 0; pass < 2; ++pass) {
        COPY(kPlain, kStPlain);
        COPY(kLast, kStPlain);
        COPY(kLast, kStFirst);
        COPY(kLast, kStUnchanged);
        COPY(kLast, kStCs);
        COPY(kLastHalf, kStPlain);
        COPY(kLastFirstHalf, kStPlain);
        COPY(kNormal, kStPlain);
        COPY(kUnchanged, kStPlain);
        COPY(kLast256, kStPlain);
        COPY(kLastNc, kStPlain);
        COPY(kPlain, kStFirst);
        T64(kPlain, kStPlain);
        T64(kLast, kStPlain);
        T64(kLast, kStFirst);
        T64(kLast, kStUnchanged);
        T64(kLastHalf, kStPlain);
        T64(kLastFirstHalf, kStPlain);
        T64(kNormal, kStPlain);
        T64(kUnchanged, kStPlain);
        T64(kLast256, kStPlain);
        T64(kLastNc, kStPlain);
        T64(kPlain, kStFirst);
        COPY(kLast, kStPlain);  // again: drift within the pass
      }
#undef COPY
#undef T64
    }
    return 0;
  }
  if (what == "reset") {  // call 2: evict-last loads whose lines are set back to evict-normal after use
    for (int64_t dim : {8192, 16384}) {
      const int64_t n = dim * dim, bytes = n * 4, n4 = n / 4;
      Buffers buf(n);
      naive<<<dim3(dim / 32, dim / 32), dim3(32, 8)>>>(buf.in, buf.ref, dim, dim);
      const unsigned g = static_cast<unsigned>((dim / 64) * (dim / 64)), gc = static_cast<unsigned>((n4 + 255) / 256);
      double plain_copy = 0, last_copy = 0;
      auto line = [&](const char* name, bool is_copy, auto launch) {
        const auto [sec, ok] = measure(launch, buf, is_copy ? buf.in : buf.ref, dim, flush, fb);
        if (plain_copy == 0) plain_copy = sec;
        else if (last_copy == 0) last_copy = sec;
        printf("dim %6lld %-40s %8.1f us %6.3f TB/s %6.3f of plain copy %6.3f of evict-last copy  %s\n", (long long)dim,
               name, sec * 1e6, 2.0 * bytes / sec / 1e12, plain_copy / sec, last_copy ? last_copy / sec : 0.0,
               ok ? "ok" : "WRONG");
        fflush(stdout);
      };
      for (int pass = 0; pass < 2; ++pass) {
        plain_copy = last_copy = 0;
        line("copy, plain loads", true, [&] { copy_pol<kPlain, kStPlain><<<gc, 256>>>((const float4*)buf.in, (float4*)buf.out, n4); });
        line("copy, evict-last loads", true, [&] { copy_pol<kLast, kStPlain><<<gc, 256>>>((const float4*)buf.in, (float4*)buf.out, n4); });
        line("copy, evict-last loads, reset", true, [&] { copy_pol<kLastReset, kStPlain><<<gc, 256>>>((const float4*)buf.in, (float4*)buf.out, n4); });
        line("transpose, plain loads", false, [&] { t64_pol<kPlain, kStPlain><<<g, 256>>>(buf.in, buf.out, dim); });
        line("transpose, evict-last loads", false, [&] { t64_pol<kLast, kStPlain><<<g, 256>>>(buf.in, buf.out, dim); });
        line("transpose, evict-last loads, reset", false, [&] { t64_pol<kLastReset, kStPlain><<<g, 256>>>(buf.in, buf.out, dim); });
      }
    }
    return 0;
  }
  if (what == "flush" || what == "flush-ncu") {  // call 3: what a cold-L2 flush leaves of a buffer read before it
    if (what == "flush-ncu") reps = 1;
    float *sums, *big;
    const int64_t big_bytes = int64_t{512} << 20;
    CK(cudaMalloc(&sums, 4096 * 4));
    CK(cudaMalloc(&big, big_bytes));
    CK(cudaMemset(big, 0, big_bytes));
    const unsigned grid = 132 * 8;
    auto memset_mib = [&](int64_t mib) { CK(cudaMemsetAsync(big, 0x5a, mib << 20)); };
    auto read_mib = [&](int64_t mib) { flush_read<<<grid, 256>>>((const float4*)big, (mib << 20) / 16, sums); };
    auto write_mib = [&](int64_t mib) { flush_write<<<grid, 256>>>((float4*)big, (mib << 20) / 16, 1.0f); };
    struct Flush {
      const char* name;
      std::function<void()> run;
    };
    const Flush flushes[] = {
        {"no flush", [] {}},
        {"memset 128 MiB", [&] { memset_mib(128); }},
        {"memset 512 MiB", [&] { memset_mib(512); }},
        {"write kernel 128 MiB", [&] { write_mib(128); }},
        {"read kernel 128 MiB", [&] { read_mib(128); }},
        {"read kernel 512 MiB", [&] { read_mib(512); }},
        {"memset 128 MiB + read kernel 128 MiB", [&] { memset_mib(128); read_mib(128); }},
        {"write kernel 64 MiB + read kernel 64 MiB (other half)", [&] { write_mib(64); flush_read<<<grid, 256>>>((const float4*)(big + (16 << 20)), (64 << 20) / 16, sums); }},
    };
    for (int64_t mib : {8, 16, 32}) {
      float* x;
      const int64_t bytes = mib << 20;
      CK(cudaMalloc(&x, bytes));
      CK(cudaMemset(x, 0, bytes));
      auto read_plain = [&] { read_sum<kPlain><<<grid, 256>>>((const float4*)x, bytes / 16, sums); };
      auto read_last = [&] { read_sum<kLast><<<grid, 256>>>((const float4*)x, bytes / 16, sums); };
      for (const Flush& f : flushes) {
        for (int last = 0; last < 2; ++last) {
          const double sec = median_after([&] { if (last) read_last(); else read_plain(); f.run(); }, read_plain);
          printf("%2lld MiB read (%s loads), then %-52s: read again %7.2f us\n", (long long)mib, last ? "evict-last" : "plain", f.name, sec * 1e6);
          fflush(stdout);
        }
      }
      CK(cudaFree(x));
    }
    // The flushes' own cost (what the agent pays per sample, outside the timed region).
    for (const Flush& f : flushes) {
      if (reps == 1) break;
      const double sec = median_after([] {}, f.run);
      printf("cost of %-52s: %7.1f us\n", f.name, sec * 1e6);
    }
    return 0;
  }
  if (what == "flush2" || what == "flush2-ncu") {  // call 4: flushes that make their own lines hit
    if (what == "flush2-ncu") reps = 1;
    float *sums, *big, *pool;
    const int64_t big_bytes = int64_t{256} << 20, pool_bytes = int64_t{1} << 30;
    CK(cudaMalloc(&sums, 4096 * 4));
    CK(cudaMalloc(&big, big_bytes));
    CK(cudaMalloc(&pool, pool_bytes));
    CK(cudaMemset(big, 0, big_bytes));
    CK(cudaMemset(pool, 0, pool_bytes));
    const unsigned grid = 132 * 8;
    auto n4_of = [](int64_t mib) { return (mib << 20) / 16; };
    struct Flush {
      const char* name;
      std::function<void()> run;
    };
    const Flush flushes[] = {
        {"no flush", [] {}},
        {"memset 128 MiB", [&] { CK(cudaMemsetAsync(big, 0x5a, 128 << 20)); }},
        {"read twice 128 MiB", [&] { flush_reread<2><<<grid, 256>>>((const float4*)big, n4_of(128), sums); }},
        {"read twice 256 MiB", [&] { flush_reread<2><<<grid, 256>>>((const float4*)big, n4_of(256), sums); }},
        {"read 3 times 128 MiB", [&] { flush_reread<3><<<grid, 256>>>((const float4*)big, n4_of(128), sums); }},
        {"write + read back 128 MiB", [&] { flush_write_read<<<grid, 256>>>((float4*)big, n4_of(128), sums); }},
        {"memset 128 MiB + read twice 128 MiB", [&] { CK(cudaMemsetAsync(big, 0x5a, 128 << 20)); flush_reread<2><<<grid, 256>>>((const float4*)big, n4_of(128), sums); }},
        {"read twice 64 MiB", [&] { flush_reread<2><<<grid, 256>>>((const float4*)big, n4_of(64), sums); }},
    };
    int slice = 0;  // the 'read once' cases read a slice of `pool` untouched since its memset
    for (int64_t mib : {8, 16}) {
      const int64_t bytes = mib << 20;
      float* const x = pool + (pool_bytes - bytes) / 4;  // the reused buffer: the end of pool
      auto read_x = [&](const float* p) { read_sum<kPlain><<<grid, 256>>>((const float4*)p, bytes / 16, sums); };
      for (const Flush& f : flushes) {
        // reused: x read three times (its lines hit), then the flush, then x read (timed / profiled)
        const double reused = median_after([&] { read_x(x); read_x(x); read_x(x); f.run(); }, [&] { read_x(x); });
        // once: a slice never read before, read once, then the flush, then read again
        float* y = nullptr;
        const double once = median_after(
            [&] {
              y = pool + (int64_t{slice++ % 60} * (16 << 20)) / 4;
              read_x(y);
              f.run();
            },
            [&] { read_x(y); });
        printf("%2lld MiB, then %-40s: read again %7.2f us (reused before) %7.2f us (read once before)\n", (long long)mib,
               f.name, reused * 1e6, once * 1e6);
        fflush(stdout);
      }
    }
    for (const Flush& f : flushes) {
      if (reps == 1) break;
      printf("cost of %-40s: %7.1f us\n", f.name, median_after([] {}, f.run) * 1e6);
    }
    return 0;
  }
  if (what == "demote" || what == "demote-ncu") {  // call 5: what takes the evict-last mark off lines
    if (what == "demote-ncu") reps = 1;
    float *sums, *big;
    CK(cudaMalloc(&sums, 4096 * 4));
    CK(cudaMalloc(&big, 128 << 20));
    const unsigned grid = 132 * 8;
    auto flush_l2 = [&] { CK(cudaMemsetAsync(big, 0x5a, 128 << 20)); };
    for (int64_t mib : {16, 64}) {
      const int64_t bytes = mib << 20, n4 = bytes / 16;
      float* x;
      CK(cudaMalloc(&x, bytes));
      CK(cudaMemset(x, 0, bytes));
      struct Demote {
        const char* name;
        std::function<void()> run;
      };
      const Demote demotes[] = {
          {"nothing (plain loads before)", [] {}},
          {"nothing", [] {}},
          {"cudaCtxResetPersistingL2Cache", [] { CK(cudaCtxResetPersistingL2Cache()); }},
          {"applypriority evict_normal, every line", [&] { demote<<<grid, 256>>>((const char*)x, bytes); }},
          {"read with an evict-first policy", [&] { read_sum<kFirst><<<grid, 256>>>((const float4*)x, n4, sums); }},
          {"read with an evict-normal policy", [&] { read_sum<kNormal><<<grid, 256>>>((const float4*)x, n4, sums); }},
          {"read with an evict-unchanged policy", [&] { read_sum<kUnchanged><<<grid, 256>>>((const float4*)x, n4, sums); }},
      };
      bool first = true;
      for (const Demote& d : demotes) {
        const bool plain_before = first;
        first = false;
        const double sec = median_after(
            [&] {
              if (plain_before) read_sum<kPlain><<<grid, 256>>>((const float4*)x, n4, sums);
              else read_sum<kLast><<<grid, 256>>>((const float4*)x, n4, sums);
              d.run();
              flush_l2();
            },
            [&] { read_sum<kPlain><<<grid, 256>>>((const float4*)x, n4, sums); });
        printf("%2lld MiB read with evict-last loads, then %-40s, the flush: read again %7.2f us\n", (long long)mib, d.name, sec * 1e6);
        fflush(stdout);
      }
      CK(cudaFree(x));
    }
    if (reps > 1) {  // what demoting costs on 1 GiB (a 16384^2 input)
      float* x;
      const int64_t bytes = int64_t{1} << 30;
      CK(cudaMalloc(&x, bytes));
      CK(cudaMemset(x, 0, bytes));
      printf("cost of cudaCtxResetPersistingL2Cache: %7.1f us\n", median_after([] {}, [] { CK(cudaCtxResetPersistingL2Cache()); }) * 1e6);
      printf("cost of applypriority over 1 GiB:     %7.1f us\n", median_after([] {}, [&] { demote<<<grid, 256>>>((const char*)x, bytes); }) * 1e6);
      printf("cost of applypriority over 1 GiB after evict-last reads: %7.1f us\n",
             median_after([&] { read_sum<kLast><<<grid, 256>>>((const float4*)x, bytes / 16, sums); },
                          [&] { demote<<<grid, 256>>>((const char*)x, bytes); }) * 1e6);
    }
    return 0;
  }
  if (what == "orders") {  // call 6 (8192, 16384); round 9: ORDER_DIMS=2048,4096 (a comma list, each % 128 == 0)
    std::vector<int64_t> dims = {8192, 16384};
    if (const char* e = std::getenv("ORDER_DIMS")) {
      dims.clear();
      const std::string list = e;
      for (size_t at = 0; at < list.size();) {
        const size_t comma = std::min(list.find(',', at), list.size());
        dims.push_back(std::stoll(list.substr(at, comma - at)));
        at = comma + 1;
      }
    }
    for (int64_t dim : dims) {
      const int64_t n = dim * dim, bytes = n * 4, n4 = n / 4;
      Buffers buf(n);
      naive<<<dim3(dim / 32, dim / 32), dim3(32, 8)>>>(buf.in, buf.ref, dim, dim);
      const unsigned g = static_cast<unsigned>((dim / 64) * (dim / 64)), gc = static_cast<unsigned>((n4 + 255) / 256);
      double copy_s = 0;
      auto line = [&](const char* name, bool is_copy, auto kernel, auto launch) {
        int blocks = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, 256, 0));
        const auto [sec, ok] = measure(launch, buf, is_copy ? buf.in : buf.ref, dim, flush, fb);
        if (copy_s == 0) copy_s = sec;
        printf("dim %6lld %-52s %d blk/SM %8.1f us %6.3f TB/s %6.3f of evict-last copy  %s\n", (long long)dim, name, blocks,
               sec * 1e6, 2.0 * bytes / sec / 1e12, copy_s / sec, ok ? "ok" : "WRONG");
        fflush(stdout);
      };
#define ORD(name, O, S, B) line(name, false, t64_ord<O, S, B>, [&] { t64_ord<O, S, B><<<g, 256>>>(buf.in, buf.out, dim); })
      for (int pass = 0; pass < 2; ++pass) {
        copy_s = 0;
        line("copy float4, evict-last loads", true, copy_pol<kLast, kStPlain>, [&] { copy_pol<kLast, kStPlain><<<gc, 256>>>((const float4*)buf.in, (float4*)buf.out, n4); });
        line("transpose (t64_pol, the agent's)", false, t64_pol<kLast, kStPlain>, [&] { t64_pol<kLast, kStPlain><<<g, 256>>>(buf.in, buf.out, dim); });
        ORD("column-major", 0, false, 6);
        ORD("two tile columns interleaved", 1, false, 6);
        ORD("row-major", 2, false, 6);
        ORD("snake", 3, false, 6);
        ORD("column-major, staging in the tile, 6 blk", 0, true, 6);
        ORD("column-major, staging in the tile, 7 blk", 0, true, 7);
        ORD("column-major, staging in the tile, 8 blk", 0, true, 8);
        ORD("two columns interleaved, staging in the tile, 8 blk", 1, true, 8);
      }
#undef ORD
    }
    return 0;
  }
  if (what == "residue" || what == "residue-ncu") {  // residue-ncu: every case once, for ncu --cache-control none
    if (what == "residue-ncu") reps = 1;
    float* sums;
    CK(cudaMalloc(&sums, 4096 * 4));
    auto read = [&](const float* p, int64_t bytes) {
      read_sum<kPlain><<<132 * 8, 256>>>(reinterpret_cast<const float4*>(p), bytes / 16, sums);
    };
    auto flush_l2 = [&] { CK(cudaMemsetAsync(flush, 0x5a, fb)); };
    // (a) A 16384^2 transpose (or copy, or nothing), then a buffer of `mib` MiB read twice; the second read timed.
    {
      const int64_t dim = 16384, n = dim * dim, n4 = n / 4;
      Buffers buf(n);
      const unsigned g = static_cast<unsigned>((dim / 64) * (dim / 64)), gc = static_cast<unsigned>((n4 + 255) / 256);
      float* x;
      CK(cudaMalloc(&x, 64 << 20));
      CK(cudaMemset(x, 0, 64 << 20));
      struct Before {
        const char* name;
        std::function<void()> run;
      };
      const Before befores[] = {
          {"nothing (flush only)", [] {}},
          {"transpose, plain loads", [&] { t64_pol<kPlain, kStPlain><<<g, 256>>>(buf.in, buf.out, dim); }},
          {"transpose, evict-last loads", [&] { t64_pol<kLast, kStPlain><<<g, 256>>>(buf.in, buf.out, dim); }},
          {"copy, plain loads", [&] { copy_pol<kPlain, kStPlain><<<gc, 256>>>((const float4*)buf.in, (float4*)buf.out, n4); }},
          {"copy, evict-last loads", [&] { copy_pol<kLast, kStPlain><<<gc, 256>>>((const float4*)buf.in, (float4*)buf.out, n4); }},
          {"transpose, evict-last loads, reset", [&] { t64_pol<kLastReset, kStPlain><<<g, 256>>>(buf.in, buf.out, dim); }},
          {"copy, evict-last loads, reset", [&] { copy_pol<kLastReset, kStPlain><<<gc, 256>>>((const float4*)buf.in, (float4*)buf.out, n4); }},
      };
      for (int64_t mib : {16, 24, 32, 40}) {
        const int64_t bytes = mib << 20;
        for (const Before& b : befores) {
          const double sec = median_after([&] { flush_l2(); b.run(); read(x, bytes); }, [&] { read(x, bytes); });
          printf("(a) %-32s then %2lld MiB read twice: second read %7.2f us %6.2f TB/s\n", b.name, (long long)mib,
                 sec * 1e6, bytes / sec / 1e12);
          fflush(stdout);
        }
      }
      CK(cudaFree(x));
    }
    // (b) A 2048^2 transpose or copy (16 MiB in, 16 MiB out), then the flush, then its input read (timed): L2 speed
    // if the flush left the input in L2. Controls: the input read right after the kernel (no flush), and after the
    // flush alone.
    {
      const int64_t dim = 2048, n = dim * dim, bytes = n * 4, n4 = n / 4;
      Buffers buf(n);
      const unsigned g = static_cast<unsigned>((dim / 64) * (dim / 64)), gc = static_cast<unsigned>((n4 + 255) / 256);
      auto t_plain = [&] { t64_pol<kPlain, kStPlain><<<g, 256>>>(buf.in, buf.out, dim); };
      auto t_last = [&] { t64_pol<kLast, kStPlain><<<g, 256>>>(buf.in, buf.out, dim); };
      auto c_last = [&] { copy_pol<kLast, kStPlain><<<gc, 256>>>((const float4*)buf.in, (float4*)buf.out, n4); };
      auto report = [&](const char* name, double sec) {
        printf("(b) %-58s input read %7.2f us %6.2f TB/s\n", name, sec * 1e6, bytes / sec / 1e12);
        fflush(stdout);
      };
      auto in_read = [&] { read(buf.in, bytes); };
      for (int pass = 0; pass < 2; ++pass) {
        report("flush only", median_after([&] { flush_l2(); }, in_read));
        report("transpose, plain loads; no flush", median_after([&] { flush_l2(); t_plain(); }, in_read));
        report("transpose, evict-last loads; no flush", median_after([&] { flush_l2(); t_last(); }, in_read));
        report("transpose, plain loads; flush", median_after([&] { t_plain(); flush_l2(); }, in_read));
        report("transpose, evict-last loads; flush", median_after([&] { t_last(); flush_l2(); }, in_read));
        report("copy, evict-last loads; flush", median_after([&] { c_last(); flush_l2(); }, in_read));
        report("transpose, evict-last loads; flush x2", median_after([&] { t_last(); flush_l2(); flush_l2(); }, in_read));
        if (reps == 1) break;
      }
      CK(cudaMemset(buf.out, 0xff, bytes));
      naive<<<dim3(dim / 32, dim / 32), dim3(32, 8)>>>(buf.in, buf.ref, dim, dim);
      t_last();
      CK(cudaDeviceSynchronize());
      printf("(b) transpose, evict-last loads, 2048^2: %s\n",
             count_mismatches(buf.out, buf.ref, dim, dim, dim) ? "WRONG" : "ok");
    }
    return 0;
  }
  printf("usage: %s policies|reset|residue|residue-ncu|flush|flush-ncu|flush2|flush2-ncu|demote|demote-ncu|orders\n", argv[0]);
  return 2;
}
