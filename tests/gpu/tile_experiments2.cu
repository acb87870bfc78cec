// Second and third rounds of transpose experiments (round 2 results: docs/results/h200-experiments2.txt,
// round 3: h200-experiments3.txt, round 4 (grouped block order): h200-experiments4.txt, round 5 (threads per tile, load paths):
// h200-experiments5.txt) (after tile_experiments.cu): block order, which streaming hint
// matters, and a 128x32 tile whose output rows are 512 B per warp store (as wide as the copy's).
//   nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -Xptxas -v tests/gpu/tile_experiments2.cu -o /tmp/tx2 && /tmp/tx2
// Cold L2 (memset of 128 MiB before each sample), CUDA events, median of 30 samples; outputs compared exactly
// with a naive transpose.
#include "experiment_harness.cuh"

template <bool kLd, bool kSt>
__device__ __forceinline__ float4 ld(const float* p) { return kLd ? __ldcs(reinterpret_cast<const float4*>(p)) : *reinterpret_cast<const float4*>(p); }
template <bool kSt>
__device__ __forceinline__ void st(float* p, float4 v) { if (kSt) StoreCs{}(p, v); else StorePlain{}(p, v); }
template <bool kSt>
struct St {
  __device__ __forceinline__ void operator()(float* p, float4 v) const { st<kSt>(p, v); }
};

// Block (bx, by) of a square grid of n x n tiles; kDiag: diagonal reordering (Ruetsch & Micikevicius,
// "Optimizing Matrix Transpose in CUDA", 2009) so that concurrently running blocks spread over memory.
template <bool kDiag>
__device__ __forceinline__ void block_xy(int& bx, int& by) {
  if (!kDiag) { bx = blockIdx.x; by = blockIdx.y; return; }
  by = blockIdx.x;
  bx = (blockIdx.x + blockIdx.y) % gridDim.x;
}


// The agent's tile64 (swizzled 64x64, 256 threads, 4 float4 per thread each way) with selectable hints/order.
template <bool kLd, bool kSt, bool kDiag>
__global__ void __launch_bounds__(256) t64(const float* __restrict__ in, float* __restrict__ out, int64_t dim) {
  __shared__ __align__(16) float tile[64 * 64];
  int bx, by;
  block_xy<kDiag>(bx, by);
  const int64_t r0 = by * 64LL, c0 = bx * 64LL;
  float4 v[4], q[4];
  load_rows64(in, dim, r0, c0, v, [](const float* p) { return ld<kLd, kSt>(p); });
  swz64_exchange(tile, v, q);
  store_transposed(block_out(out, dim, r0, c0), dim, q, St<kSt>{});
}

// 128 (input rows) x 32 (input cols) tile, 256 threads. Load: thread (r = t / 8, c4 = t % 8) reads input rows
// r + 32 i (i = 0..3), 16 B chunk c4 (a warp: 4 rows x 128 B). Store: thread (a = t % 32, b = t / 32) reads
// the 4x4 block tile(4a + k, chunk b), k = 0..3, and writes out rows c0 + 4b + j, cols r0 + 4a..4a+3: a warp
// writes 512 B contiguous per row, like the copy. Tile rows are 128 B (8 chunks): chunk ^= (row / 4) % 8 makes
// both shared accesses conflict-free (8 lanes per wavefront hit 8 different chunks).
__device__ __forceinline__ int swz128(int r, int c) { return r * 32 + (((c >> 2) ^ ((r >> 2) & 7)) << 2) + (c & 3); }

template <bool kLd, bool kSt, bool kDiag>
__global__ void __launch_bounds__(256) t128x32(const float* __restrict__ in, float* __restrict__ out, int64_t dim) {
  __shared__ __align__(16) float tile[128 * 32];
  int bx, by;
  if (kDiag) {  // grid is (dim/32, dim/128): reorder within rows of 4 column-blocks per row-block
    const int id = blockIdx.x + gridDim.x * blockIdx.y;
    by = id % gridDim.y;
    bx = (id / gridDim.y + by) % gridDim.x;
  } else {
    bx = blockIdx.x;
    by = blockIdx.y;
  }
  const int64_t r0 = by * 128LL, c0 = bx * 32LL;
  const int t = threadIdx.x, r = t / 8, c4 = t % 8;
  float4 v[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) v[i] = ld<kLd, kSt>(in + (r0 + r + 32 * i) * dim + c0 + 4 * c4);
#pragma unroll
  for (int i = 0; i < 4; ++i) *reinterpret_cast<float4*>(&tile[swz128(r + 32 * i, 4 * c4)]) = v[i];
  __syncthreads();
  const int a = t % 32, b = t / 32;
  float4 q[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) q[k] = *reinterpret_cast<const float4*>(&tile[swz128(4 * a + k, 4 * b)]);
  float* o = out + (c0 + 4 * b) * dim + r0 + 4 * a;
  store_transposed(o, dim, q, St<kSt>{});
}

// Two stacked 64x64 tiles per block (rows r0..r0+127): 8 float4 loads in flight per thread before any store.
template <bool kSt>
__global__ void __launch_bounds__(256) t64x2(const float* __restrict__ in, float* __restrict__ out, int64_t dim) {
  __shared__ __align__(16) float tile[2][64 * 64];
  const int64_t r0 = blockIdx.y * 128LL, c0 = blockIdx.x * 64LL;
  const int t = threadIdx.x, r = t / 16, c4 = t % 16;
  float4 v[8];
  load_rows64(in, dim, r0, c0, v, [](const float* p) { return ld<false, kSt>(p); });
#pragma unroll
  for (int i = 0; i < 8; ++i) *reinterpret_cast<float4*>(&tile[i / 4][swz64(r + 16 * (i % 4), 4 * c4)]) = v[i];
  __syncthreads();
  const int a = t % 16, b = t / 16;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    float4 q[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) q[k] = *reinterpret_cast<const float4*>(&tile[h][swz64(4 * a + k, 4 * b)]);
    float* o = out + (c0 + 4 * b) * dim + r0 + 64 * h + 4 * a;
    store_transposed(o, dim, q, St<kSt>{});
  }
}

// 128x128 tile, 512 threads, dynamic shared memory (64 KiB). A warp loads one 512 B input row piece and
// stores one 512 B output row piece, as the copy does. Chunk (16 B) index ^= (row / 4) % 8 keeps the
// column-of-chunks read conflict-free.
__device__ __forceinline__ int swz128x128(int r, int c) { return r * 128 + (((c >> 2) ^ ((r >> 2) & 7)) << 2) + (c & 3); }

template <bool kSt>
__global__ void __launch_bounds__(512) t128(const float* __restrict__ in, float* __restrict__ out, int64_t dim) {
  extern __shared__ __align__(16) float tile[];
  const int64_t r0 = blockIdx.y * 128LL, c0 = blockIdx.x * 128LL;
  const int t = threadIdx.x, r = t / 32, c4 = t % 32;
  float4 v[8];
#pragma unroll
  for (int i = 0; i < 8; ++i) v[i] = ld<false, kSt>(in + (r0 + r + 16 * i) * dim + c0 + 4 * c4);
#pragma unroll
  for (int i = 0; i < 8; ++i) *reinterpret_cast<float4*>(&tile[swz128x128(r + 16 * i, 4 * c4)]) = v[i];
  __syncthreads();
  const int a = t % 32, b = t / 32;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int bb = b + 16 * h;
    float4 q[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) q[k] = *reinterpret_cast<const float4*>(&tile[swz128x128(4 * a + k, 4 * bb)]);
    float* o = out + (c0 + 4 * bb) * dim + r0 + 4 * a;
    store_transposed(o, dim, q, St<kSt>{});
  }
}

// Grouped block order (like Triton's GROUP_M): a 1-D grid walks G tile-rows down before moving one tile-column
// right, so the ~1000 blocks resident at once cover a G x (1000 / G) patch of tiles: their input rows and their
// output rows are then each written/read in runs of (1000 / G) x 256 B instead of a few 256 B pieces.
template <int G>
__global__ void __launch_bounds__(256) t64g(const float* __restrict__ in, float* __restrict__ out, int64_t dim) {
  __shared__ __align__(16) float tile[64 * 64];
  int64_t r0, c0;
  grouped_origin(dim, G, r0, c0);
  float4 v[4], q[4];
  load_rows64(in, dim, r0, c0, v, [](const float* p) { return ld<false, true>(p); });
  swz64_exchange(tile, v, q);
  store_transposed(block_out(out, dim, r0, c0), dim, q, StoreCs{});
}

// Round 5: the tile64 kernel with a different thread count per 64x64 tile (kThreads = 128: 8 float4 each way per
// thread; 512: 2), read-only-path loads (__ldg) or L2::256B prefetch, all with evict-first stores.
template <int kT, int kLoad>  // kLoad 0: plain, 1: __ldg, 2: ld.global.L2::256B
__global__ void __launch_bounds__(kT) t64v(const float* __restrict__ in, float* __restrict__ out, int64_t dim) {
  __shared__ __align__(16) float tile[64 * 64];
  constexpr int kPer = 1024 / kT;      // float4 per thread each way
  constexpr int kRows = kT / 16;       // tile rows covered per load pass
  const int64_t r0 = blockIdx.y * 64LL, c0 = blockIdx.x * 64LL;
  const int t = threadIdx.x, r = t / 16, c4 = t % 16;
  float4 v[kPer];
#pragma unroll
  for (int i = 0; i < kPer; ++i) {
    const float* p = in + (r0 + r + kRows * i) * dim + c0 + 4 * c4;
    if (kLoad == 1) {
      v[i] = __ldg(reinterpret_cast<const float4*>(p));
    } else if (kLoad == 2) {
      asm volatile("ld.global.L2::256B.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v[i].x), "=f"(v[i].y), "=f"(v[i].z), "=f"(v[i].w) : "l"(p));
    } else {
      v[i] = *reinterpret_cast<const float4*>(p);
    }
  }
#pragma unroll
  for (int i = 0; i < kPer; ++i) *reinterpret_cast<float4*>(&tile[swz64(r + kRows * i, 4 * c4)]) = v[i];
  __syncthreads();
  // 4x4 blocks: 256 of them; thread t takes blocks t, t + kT, ...
#pragma unroll
  for (int blk = t; blk < 256; blk += kT) {
    const int a = blk % 16, b = blk / 16;
    float4 q[4];
    read_swz64(tile, a, b, q);
    float* o = out + (c0 + 4 * b) * dim + r0 + 4 * a;
    store_transposed(o, dim, q, StoreCs{});
  }
}

int main() {
  size_t fb = 128 << 20;
  void* flush;
  CK(cudaMalloc(&flush, fb));
  for (int64_t dim : {4096, 8192, 16384}) {
    size_t n = dim * dim, bytes = n * 4;
    float *in, *out, *ref;
    CK(cudaMalloc(&in, bytes));
    CK(cudaMalloc(&out, bytes));
    CK(cudaMalloc(&ref, bytes));
    std::vector<float> h(n);
    for (size_t i = 0; i < n; ++i) h[i] = (float)((i * 2654435761u) % 1000003);
    CK(cudaMemcpy(in, h.data(), bytes, cudaMemcpyHostToDevice));
    naive<<<dim3(dim / 32, dim / 32), dim3(32, 8)>>>(in, ref, dim, dim);
    double gb = 2.0 * bytes;
    double copy_s = 0;
    auto report = [&](const char* name, double s, const float* want) {
      CK(cudaMemset(out, 0xff, bytes));  // poison, then run once more for the check
      return [=](auto run) {
        run();
        CK(cudaDeviceSynchronize());
        const unsigned long long hb = count_mismatches(out, want, 1, n, n);
        printf("dim %6lld %-34s %9.1f us %6.3f TB/s %6.3f of copy  %s\n", (long long)dim, name, s * 1e6, gb / s / 1e12,
               copy_s > 0 ? copy_s / s : 1.0, hb ? "WRONG" : "ok");
      };
    };
    int64_t n4 = n / 4;
    auto copy = [&] { copy1<<<(unsigned)((n4 + 255) / 256), 256>>>((const float4*)in, (float4*)out, n4); };
    copy_s = timeit(copy, flush, fb);
    report("copy float4 (one per thread)", copy_s, in)(copy);
    dim3 g64(dim / 64, dim / 64), g128(dim / 32, dim / 128);
#define T(name, kern, grid)                                              \
  {                                                                      \
    auto f = [&] { kern<<<grid, 256>>>(in, out, dim); };                 \
    report(name, timeit(f, flush, fb), ref)(f);                          \
  }
    T("t64 hint st only (agent)", (t64<false, true, false>), g64);
#define TT(name, kern, grid, threads)                                    \
  {                                                                      \
    auto f = [&] { kern<<<grid, threads>>>(in, out, dim); };             \
    report(name, timeit(f, flush, fb), ref)(f);                          \
  }
    TT("t64 128 threads", (t64v<128, 0>), g64, 128);
    TT("t64 512 threads", (t64v<512, 0>), g64, 512);
    TT("t64 256 threads, __ldg", (t64v<256, 1>), g64, 256);
    TT("t64 256 threads, L2::256B", (t64v<256, 2>), g64, 256);
    TT("t64 128 threads, L2::256B", (t64v<128, 2>), g64, 128);
    CK(cudaFree(in));
    CK(cudaFree(out));
    CK(cudaFree(ref));
  }
  return 0;
}
