// Round 6 of the transpose experiments (rounds 1-5: tile_experiments.cu, tile_experiments2.cu; results in
// docs/results/h200-experiments*.txt). The 64x64 tile with evict-first stores sits at 0.94-0.95 of the float4
// copy at 8192^2 and 16384^2 with ideal sectors per request and one wavefront per shared access. This round asks
// two diagnostic questions and tries the Hopper bulk-copy (TMA) engine:
//   - tiled copy: the same 64x64 tiles, 256 B row pieces a row pitch apart, but no transposition. If it lands
//     where the transpose does, the cost is the 2-D access pattern itself, not the transposition.
//   - padded pitch: the agent's kernel on a dim x (dim + 64) matrix (row pitch not a power of two). If it gains,
//     the row pitch maps the pieces of one tile onto few DRAM channels/banks.
//   - bulk loads: 64 cp.async.bulk (256 B each, one per tile row) into a padded shared tile, completed on an
//     mbarrier; bulk stores: the transposed tile staged in shared memory and written by 64 cp.async.bulk stores
//     (with and without an L2 evict-first policy); both; and a persistent double-buffered kernel that loads the
//     next tile while the current one is stored.
// Later calls of the same round added: where the output goes (t64d: the tile written in place or to another
// band of rows, or the loads stored at the transposed position without shared memory; copy_rot: the plain copy
// with a rotated output), thread-block clusters (t64c), the launch order (t64o: G tile rows walked before one
// step right, G = nt being column-major), column-major with bulk stores (tcs, the kernel the agent adopted),
// wide, tall and other tile shapes (twide, tg) and blocks per SM. Results, one section per call:
// docs/results/h200-experiments6.txt. In short: the tile machinery costs ~1 % (tiles written in place: 0.99 of
// the copy), the transposed write position costs the rest in row-major order (0.94); column-major order moves the
// scattered side to the loads (0.96) and bulk stores take it to 0.97.
//   nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -Xptxas -v tests/gpu/tile_experiments3.cu -o /tmp/tx3 && /tmp/tx3
// Cold L2 (memset of 128 MiB before each sample), CUDA events, median of 30 samples; every output compared
// exactly with a naive transpose (or with the input for the tiled copy).
#include "experiment_harness.cuh"

__device__ __forceinline__ void st_cs(float* p, float4 v) { StoreCs{}(p, v); }
// 16 B of padding after every 4 rows of 256 B (the agent's pad layout S[(16,4,64):(260,64,1)]): a column of
// 16 B chunks, rows 4a + k for 8 lanes a, hits 8 different chunk positions. Each row stays 256 B contiguous,
// so one bulk copy fills it.
__device__ __forceinline__ int pad64(int r, int c) { return r * 64 + (r >> 2) * 4 + c; }
constexpr int kPadTileFloats = 64 * 64 + 16 * 4;

// The agent's kernel (swizzled 64x64 tile, 256 threads, 4 float4 per thread each way, evict-first stores), on a
// matrix whose rows are `pitch` floats apart. kTranspose = false: the same tiles copied in place (diagnostic).
template <bool kTranspose>
__global__ void __launch_bounds__(256) t64(const float* __restrict__ in, float* __restrict__ out, int64_t pitch) {
  __shared__ __align__(16) float tile[64 * 64];
  const int64_t r0 = blockIdx.y * 64LL, c0 = blockIdx.x * 64LL;
  const int t = threadIdx.x, r = t / 16, c4 = t % 16;
  float4 v[4];
  load_rows64(in, pitch, r0, c0, v, LoadPlain{});
  if constexpr (!kTranspose) {
#pragma unroll
    for (int i = 0; i < 4; ++i) st_cs(out + (r0 + r + 16 * i) * pitch + c0 + 4 * c4, v[i]);
  } else {
    float4 q[4];
    swz64_exchange(tile, v, q);
    store_transposed(block_out(out, pitch, r0, c0), pitch, q, StoreCs{});
  }
}

// Diagnostics that split the transpose's cost between "where it writes" and "how it gets there" (results are
// not a transpose except for kMode 0, so only mode 0 is checked):
//   kMode 1: the agent's kernel (shared tile, barrier, 4x4 register transpose), but each tile written back at its
//            own position (the output is every 64x64 tile transposed in place);
//   kMode 2: no shared memory: each thread stores the float4s it loaded, untransposed, at the transposed tile's
//            position (the write addresses of a transpose, the data path of a copy);
//   kMode 3: mode 2 with a __syncthreads between the loads and the stores;
//   kMode 4: mode 1 with the tile written `rows` tile rows further down and `cols` tile columns further right
//            (wrapping): output rows away from the rows being read, but still a contiguous band.
template <int kMode>
__global__ void __launch_bounds__(256) t64d(const float* __restrict__ in, float* __restrict__ out, int64_t dim, int rows = 0,
                                           int cols = 0) {
  __shared__ __align__(16) float tile[64 * 64];
  const int64_t r0 = blockIdx.y * 64LL, c0 = blockIdx.x * 64LL;
  const int t = threadIdx.x, r = t / 16, c4 = t % 16;
  float4 v[4];
  load_rows64(in, dim, r0, c0, v, LoadPlain{});
  if constexpr (kMode == 2 || kMode == 3) {
    if constexpr (kMode == 3) __syncthreads();
#pragma unroll
    for (int i = 0; i < 4; ++i) st_cs(out + (c0 + r + 16 * i) * dim + r0 + 4 * c4, v[i]);
  } else {
    float4 q[4];
    swz64_exchange(tile, v, q);
    const int a = t % 16, b = t / 16;
    const int64_t nt = dim / 64, rw = kMode == 4 ? ((blockIdx.y + rows) % nt) * 64 : r0;
    const int64_t cw = kMode == 4 ? ((blockIdx.x + cols) % nt) * 64 : c0;
    float* o = out + (rw + 4 * b) * dim + cw + 4 * a;
    store_transposed(o, dim, q, StoreCs{});
  }
}

// Thread-block clusters (sm_90): the agent's kernel launched in clusters of kCY tiles stacked vertically, so the
// kCY CTAs of a cluster run at the same time on one GPC and their output rows form runs of kCY x 256 B.
// kSync: a cluster barrier between the shared-tile fill and the stores, so the kCY CTAs also store together.
template <bool kSync>
__global__ void __launch_bounds__(256) t64c(const float* __restrict__ in, float* __restrict__ out, int64_t dim) {
  __shared__ __align__(16) float tile[64 * 64];
  const int64_t r0 = blockIdx.y * 64LL, c0 = blockIdx.x * 64LL;
  const int t = threadIdx.x, r = t / 16, c4 = t % 16;
  float4 v[4];
  load_rows64(in, dim, r0, c0, v, LoadPlain{});
  fill_swz64(tile, r, c4, v);
  if (kSync) {
    asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
  } else {
    __syncthreads();
  }
  const int a = t % 16, b = t / 16;
  float4 q[4];
  read_swz64(tile, a, b, q);
  float* o = out + (c0 + 4 * b) * dim + r0 + 4 * a;
  store_transposed(o, dim, q, StoreCs{});
}

template <class K>
void launch_cluster(K kernel, dim3 grid, unsigned cx, unsigned cy, const float* in, float* out, int64_t dim) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = grid;
  cfg.blockDim = dim3(256);
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = cx;
  attr[0].val.clusterDim.y = cy;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  CK(cudaLaunchKernelEx(&cfg, kernel, in, out, dim));
}

// Diagnostic: the float4 copy with its output rotated by `shift` float4s (out[(i + shift) mod n4] = in[i]): the same
// bytes, the same access pattern, but writes a fixed distance from the reads in flight at the same time.
__global__ void __launch_bounds__(256) copy_rot(const float4* __restrict__ in, float4* __restrict__ out, int64_t n4, int64_t shift) {
  int64_t i = blockIdx.x * 256LL + threadIdx.x;
  if (i < n4) {
    int64_t j = i + shift;
    if (j >= n4) j -= n4;
    __stcs(&out[j], in[i]);
  }
}

// Launch order: the agent's kernel on a 1-D grid that walks G tile rows down before moving one tile column right
// (round 4 tried G = 4..32 with evict-first stores). G = 1 is the row-major order (reads a band of full rows,
// writes 256 B pieces in every output row); G = nt is column-major (reads 256 B pieces from every input row, writes
// a band of full output rows). kStCs: evict-first stores (else default). kLoad: 0 plain, 1 evict-first (ld.global.cs),
// 2 read-only path (__ldg), 3 ld.global.L2::256B.
template <int kLoad>
__device__ __forceinline__ float4 load4(const float* p) {
  if constexpr (kLoad == 1) return __ldcs(reinterpret_cast<const float4*>(p));
  if constexpr (kLoad == 2) return __ldg(reinterpret_cast<const float4*>(p));
  if constexpr (kLoad == 3) {
    float4 v;
    asm volatile("ld.global.L2::256B.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
    return v;
  }
  return *reinterpret_cast<const float4*>(p);
}
template <bool kStCs, int kLoad = 0>
__global__ void __launch_bounds__(256) t64o(const float* __restrict__ in, float* __restrict__ out, int64_t dim, int G) {
  __shared__ __align__(16) float tile[64 * 64];
  int64_t r0, c0;
  grouped_origin(dim, G, r0, c0);
  float4 v[4], q[4];
  load_rows64(in, dim, r0, c0, v, [](const float* p) { return load4<kLoad>(p); });
  swz64_exchange(tile, v, q);
  float* o = block_out(out, dim, r0, c0);
  if (kStCs) store_transposed(o, dim, q, StoreCs{});
  else store_transposed(o, dim, q, StorePlain{});
}

// Reads the 4x4 block (rows 4a..4a+3, columns 4b..4b+3) of a padded input tile, transposed into q.
__device__ __forceinline__ void read_block(const float* tile, int a, int b, float4 (&q)[4]) {
#pragma unroll
  for (int k = 0; k < 4; ++k) q[k] = *reinterpret_cast<const float4*>(&tile[pad64(4 * a + k, 4 * b)]);
}
// Thread (r = t / 16, c4 = t % 16) puts the four float4 it loaded (load_rows64) into the padded tile.
__device__ __forceinline__ void fill_pad64(float* tile, const float4 (&v)[4]) {
  const int t = threadIdx.x, r = t / 16, c4 = t % 16;
#pragma unroll
  for (int i = 0; i < 4; ++i) *reinterpret_cast<float4*>(&tile[pad64(r + 16 * i, 4 * c4)]) = v[i];
}
// Writes the transposed block as output rows 4b + j, columns 4a..4a+3 of a plain row-major 64x64 staging tile:
// 8 lanes of a quarter warp write 8 consecutive chunks of one row (conflict-free).
__device__ __forceinline__ void stage_block(float* st, int a, int b, const float4 (&q)[4]) {
  store_transposed(&st[4 * b * 64 + 4 * a], 64, q, StorePlain{});
}

// kBulkLoad: the tile arrives by 64 bulk copies (else by float4 loads through registers).
// kBulkStore: the transposed tile leaves by 64 bulk stores from a staging tile (else by evict-first float4 stores).
// kColMajor: a 1-D grid in column-major tile order (else a 2-D grid, row-major).
template <bool kBulkLoad, bool kBulkStore, bool kEvictFirst, bool kColMajor = false>
__global__ void __launch_bounds__(256) tb(const float* __restrict__ in, float* __restrict__ out, int64_t dim) {
  __shared__ __align__(128) float tile[kPadTileFloats];
  __shared__ __align__(128) float staging[kBulkStore ? 64 * 64 : 4];
  __shared__ __align__(8) uint64_t bar;
  const int64_t nt = dim / 64;
  const int64_t r0 = (kColMajor ? blockIdx.x % nt : blockIdx.y) * 64LL, c0 = (kColMajor ? blockIdx.x / nt : blockIdx.x) * 64LL;
  const int t = threadIdx.x;
  if (kBulkLoad) {
    if (t == 0) {
      bar_init(&bar);
      bar_expect(&bar, 64 * 64 * 4);
    }
    __syncthreads();
    if (t < 64) bulk_load(&tile[pad64(t, 0)], in + (r0 + t) * dim + c0, 256, &bar);
    bar_wait(&bar, 0);
  } else {
    float4 v[4];
    load_rows64(in, dim, r0, c0, v, LoadPlain{});
    fill_pad64(tile, v);
    __syncthreads();
  }
  const int a = t % 16, b = t / 16;
  float4 q[4];
  read_block(tile, a, b, q);
  if (kBulkStore) {
    stage_block(staging, a, b, q);
    fence_async_smem();
    __syncthreads();
    if (t < 64) {
      bulk_store<kEvictFirst>(out + (c0 + t) * dim + r0, &staging[t * 64], 256);
      bulk_store_wait_read<0>();
    }
  } else {
    float* o = out + (c0 + 4 * b) * dim + r0 + 4 * a;
    store_transposed(o, dim, q, StoreCs{});
  }
}

// Column-major tile order with bulk stores, refined. kWarpStore: each warp stages its own 8 output rows and issues
// their bulk stores after a __syncwarp (no second block barrier); else one barrier, then threads 0..63 store a row
// each. kReuse: the transposed tile is staged in the input tile's buffer (after a barrier), halving shared memory
// so that 8 blocks fit on an SM (with kMinBlocks = 8, at most 32 registers).
// W: the grid walks W tile columns right, then one tile row down, the whole height, then the next W columns
// (W = 1: column-major; nt must be a multiple of W).
// G (call 17): only G tile rows are walked down a tile column before the next column (G = nt: the whole column);
// after the last column the next G tile rows start (nt must be a multiple of G).
template <bool kWarpStore, bool kReuse, int kMinBlocks>
__global__ void __launch_bounds__(256, kMinBlocks) tcs(const float* __restrict__ in, float* __restrict__ out, int64_t dim,
                                                       int W = 1, int G = 0) {
  __shared__ __align__(128) float tile[kPadTileFloats];
  __shared__ __align__(128) float staging_own[kReuse ? 4 : 64 * 64];
  float* staging = kReuse ? tile : staging_own;
  const int64_t nt = dim / 64;
  int64_t r0, c0;
  if (G > 0) {
    const int64_t group = blockIdx.x / (G * nt), in_group = blockIdx.x % (G * nt);
    r0 = (group * G + in_group % G) * 64;
    c0 = (in_group / G) * 64;
  } else {
    const int64_t band = blockIdx.x / (W * nt), in_band = blockIdx.x % (W * nt);
    r0 = (in_band / W) * 64;
    c0 = (band * W + in_band % W) * 64;
  }
  const int t = threadIdx.x;
  float4 v[4];
  load_rows64(in, dim, r0, c0, v, LoadPlain{});
  fill_pad64(tile, v);
  __syncthreads();
  const int a = t % 16, b = t / 16;
  float4 q[4];
  read_block(tile, a, b, q);
  if (kReuse) __syncthreads();
  stage_block(staging, a, b, q);
  fence_async_smem();
  if (kWarpStore) {
    __syncwarp();
    const int w = t / 32, lane = t % 32;
    if (lane < 8) {
      bulk_store<false>(out + (c0 + 8 * w + lane) * dim + r0, &staging[(8 * w + lane) * 64], 256);
      bulk_store_wait_read<0>();
    }
  } else {
    __syncthreads();
    if (t < 64) {
      bulk_store<false>(out + (c0 + t) * dim + r0, &staging[t * 64], 256);
      bulk_store_wait_read<0>();
    }
  }
}

// A wide tile, 32 input rows x 128 input columns (16 KiB), column-major tile order, warp-level bulk stores: a warp
// loads one 512 B input row piece; the output tile is 128 rows x 128 B. Input tile padded 16 B every 4 rows
// (offset(r, c) = r * 128 + c + 4 * (r / 4)): the column-of-chunks read (rows 4a + k, lanes a = 0..7) hits
// 8 different chunk positions. Thread (a = t % 8, b = t / 8) transposes the 4x4 block at rows 4a.., columns 4b..
__device__ __forceinline__ int padw(int r, int c) { return r * 128 + c + 4 * (r >> 2); }
__global__ void __launch_bounds__(256) twide(const float* __restrict__ in, float* __restrict__ out, int64_t dim) {
  __shared__ __align__(128) float tile[32 * 128 + 8 * 4];
  __shared__ __align__(128) float staging[128 * 32];
  const int64_t ntr = dim / 32, r0 = (blockIdx.x % ntr) * 32, c0 = (blockIdx.x / ntr) * 128;
  const int t = threadIdx.x, r = t / 32, c4 = t % 32;
  float4 v[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) v[i] = *reinterpret_cast<const float4*>(in + (r0 + r + 8 * i) * dim + c0 + 4 * c4);
#pragma unroll
  for (int i = 0; i < 4; ++i) *reinterpret_cast<float4*>(&tile[padw(r + 8 * i, 4 * c4)]) = v[i];
  __syncthreads();
  const int a = t % 8, b = t / 8;
  float4 q[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) q[k] = *reinterpret_cast<const float4*>(&tile[padw(4 * a + k, 4 * b)]);
  store_transposed(&staging[4 * b * 32 + 4 * a], 32, q, StorePlain{});
  fence_async_smem();
  __syncwarp();
  const int w = t / 32, lane = t % 32;  // warp w staged output rows 16w .. 16w + 15
  if (lane < 16) {
    bulk_store<false>(out + (c0 + 16 * w + lane) * dim + r0, &staging[(16 * w + lane) * 32], 128);
    bulk_store_wait_read<0>();
  }
}

// General H x Wc tile (input rows x input columns), 256 threads, column-major tile order, block barrier, then
// threads 0..Wc-1 bulk-store one output row piece of H * 4 bytes each. Input tile padded 16 B every 4 rows;
// staging tile plain row-major (Wc rows of H floats). Dynamic shared memory.
template <int H, int Wc>
constexpr int tg_smem_floats() { return H * Wc + 4 * (H / 4) + Wc * H; }
template <int H, int Wc>
__global__ void __launch_bounds__(256) tg(const float* __restrict__ in, float* __restrict__ out, int64_t dim) {
  extern __shared__ __align__(128) float dyn[];
  float* tile = dyn;
  float* staging = dyn + H * Wc + 4 * (H / 4);
  constexpr int kChunks = Wc / 4, kRowsPerPass = 256 / kChunks, kPasses = H / kRowsPerPass;
  auto off = [](int r, int c) { return r * Wc + c + 4 * (r >> 2); };
  const int64_t ntr = dim / H, r0 = (blockIdx.x % ntr) * H, c0 = (blockIdx.x / ntr) * Wc;
  const int t = threadIdx.x, r = t / kChunks, c4 = t % kChunks;
  float4 v[kPasses];
#pragma unroll
  for (int i = 0; i < kPasses; ++i) v[i] = *reinterpret_cast<const float4*>(in + (r0 + r + kRowsPerPass * i) * dim + c0 + 4 * c4);
#pragma unroll
  for (int i = 0; i < kPasses; ++i) *reinterpret_cast<float4*>(&tile[off(r + kRowsPerPass * i, 4 * c4)]) = v[i];
  __syncthreads();
#pragma unroll
  for (int blk = t; blk < (H / 4) * (Wc / 4); blk += 256) {
    const int a = blk % (H / 4), b = blk / (H / 4);
    float4 q[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) q[k] = *reinterpret_cast<const float4*>(&tile[off(4 * a + k, 4 * b)]);
    store_transposed(&staging[4 * b * H + 4 * a], H, q, StorePlain{});
  }
  fence_async_smem();
  __syncthreads();
  if (t < Wc) {
    bulk_store<false>(out + (c0 + t) * dim + r0, &staging[t * H], H * 4);
    bulk_store_wait_read<0>();
  }
}
template <int H, int Wc>
void launch_tg(const float* in, float* out, int64_t dim) {
  const int bytes = tg_smem_floats<H, Wc>() * 4;
  static bool set = false;
  if (!set) {
    CK(cudaFuncSetAttribute(tg<H, Wc>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    set = true;
  }
  tg<H, Wc><<<static_cast<unsigned>((dim / H) * (dim / Wc)), 256, bytes>>>(in, out, dim);
}

// Two tiles per block, stacked in the tile column (column-major order over tile pairs): all 8 float4 loads are in
// flight before the first tile is transposed; then each warp stages and bulk-stores its rows of tile 0, waits for
// the copy to read them, and does tile 1 (swizzled input tiles, so two of them and the staging tile fit in 48 KiB).
// kLast: an L2 evict-last policy on the bulk stores.
template <bool kLast>
__global__ void __launch_bounds__(256) tcs2(const float* __restrict__ in, float* __restrict__ out, int64_t dim) {
  __shared__ __align__(128) float tile[2][64 * 64];
  __shared__ __align__(128) float staging[64 * 64];
  const int64_t nt2 = dim / 128, r0 = (blockIdx.x % nt2) * 128, c0 = (blockIdx.x / nt2) * 64;
  const int t = threadIdx.x, r = t / 16, c4 = t % 16;
  float4 v[8];
  load_rows64(in, dim, r0, c0, v, LoadPlain{});
#pragma unroll
  for (int i = 0; i < 8; ++i) *reinterpret_cast<float4*>(&tile[i / 4][swz64(r + 16 * (i % 4), 4 * c4)]) = v[i];
  __syncthreads();
  const int a = t % 16, b = t / 16, w = t / 32, lane = t % 32;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    float4 q[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) q[k] = *reinterpret_cast<const float4*>(&tile[h][swz64(4 * a + k, 4 * b)]);
    if (h == 1 && lane < 8) bulk_store_wait_read<0>();
    __syncwarp();
    stage_block(staging, a, b, q);
    fence_async_smem();
    __syncwarp();
    if (lane < 8) {
      float* dst = out + (c0 + 8 * w + lane) * dim + r0 + 64 * h;
      if (kLast) bulk_store_last(dst, &staging[(8 * w + lane) * 64], 256);
      else bulk_store<false>(dst, &staging[(8 * w + lane) * 64], 256);
    }
  }
  if (lane < 8) bulk_store_wait_read<0>();
}

// tcs (warp store) with an L2 evict-last policy on the bulk stores.
__global__ void __launch_bounds__(256) tcs_last(const float* __restrict__ in, float* __restrict__ out, int64_t dim) {
  __shared__ __align__(128) float tile[kPadTileFloats];
  __shared__ __align__(128) float staging[64 * 64];
  const int64_t nt = dim / 64, r0 = (blockIdx.x % nt) * 64, c0 = (blockIdx.x / nt) * 64;
  const int t = threadIdx.x;
  float4 v[4];
  load_rows64(in, dim, r0, c0, v, LoadPlain{});
  fill_pad64(tile, v);
  __syncthreads();
  float4 q[4];
  read_block(tile, t % 16, t / 16, q);
  stage_block(staging, t % 16, t / 16, q);
  fence_async_smem();
  __syncwarp();
  const int w = t / 32, lane = t % 32;
  if (lane < 8) {
    bulk_store_last(out + (c0 + 8 * w + lane) * dim + r0, &staging[(8 * w + lane) * 64], 256);
    bulk_store_wait_read<0>();
  }
}

// tcs made persistent: gridDim.x resident blocks walk the column-major tile sequence (tile = blockIdx.x + k x
// gridDim.x), so no block is launched after the first wave and the tail is at most one tile per block.
// kPrefetch: the next tile's four float4 loads are issued before the current tile is transposed and stored.
template <bool kPrefetch>
__global__ void __launch_bounds__(256) tcsp(const float* __restrict__ in, float* __restrict__ out, int64_t dim) {
  __shared__ __align__(128) float tile[kPadTileFloats];
  __shared__ __align__(128) float staging[64 * 64];
  const int64_t nt = dim / 64, tiles = nt * nt;
  const int t = threadIdx.x, r = t / 16, c4 = t % 16, w = t / 32, lane = t % 32;
  auto load = [&](int64_t id, float4 (&v)[4]) {
    const int64_t r0 = (id % nt) * 64, c0 = (id / nt) * 64;
#pragma unroll
    for (int i = 0; i < 4; ++i) v[i] = *reinterpret_cast<const float4*>(in + (r0 + r + 16 * i) * dim + c0 + 4 * c4);
  };
  float4 v[4], nv[4];
  int64_t id = blockIdx.x;
  if (kPrefetch && id < tiles) load(id, nv);
  for (; id < tiles; id += gridDim.x) {
    if (kPrefetch) {
#pragma unroll
      for (int i = 0; i < 4; ++i) v[i] = nv[i];
      if (id + gridDim.x < tiles) load(id + gridDim.x, nv);
    } else {
      load(id, v);
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) *reinterpret_cast<float4*>(&tile[pad64(r + 16 * i, 4 * c4)]) = v[i];
    __syncthreads();
    float4 q[4];
    read_block(tile, t % 16, t / 16, q);
    if (lane < 8) bulk_store_wait_read<0>();  // this warp's staging rows are free again
    __syncwarp();
    stage_block(staging, t % 16, t / 16, q);
    fence_async_smem();
    __syncwarp();
    if (lane < 8) {
      const int64_t r0 = (id % nt) * 64, c0 = (id / nt) * 64;
      bulk_store<false>(out + (c0 + 8 * w + lane) * dim + r0, &staging[(8 * w + lane) * 64], 256);
    }
    __syncthreads();  // every thread has read the tile before the next one overwrites it
  }
  if (lane < 8) bulk_store_wait_read<0>();
}

// Persistent, double-buffered: block g takes tiles g, g + G, ... (row-major tile order); the bulk load of the next
// tile is in flight while the current one is transposed and its bulk stores are issued; two staging tiles, so a
// store may still be reading one while the other is filled. Dynamic shared memory: 2 padded input tiles + 2
// staging tiles + 2 mbarriers.
template <bool kEvictFirst>
__global__ void __launch_bounds__(256) tp(const float* __restrict__ in, float* __restrict__ out, int64_t dim) {
  extern __shared__ __align__(128) float dyn[];
  auto tiles = [&](int s) { return dyn + s * kPadTileFloats; };
  auto stages = [&](int s) { return dyn + 2 * kPadTileFloats + s * 64 * 64; };
  uint64_t* bars = reinterpret_cast<uint64_t*>(dyn + 2 * kPadTileFloats + 2 * 64 * 64);
  const int t = threadIdx.x, a = t % 16, b = t / 16;
  const int64_t nt = dim / 64, tiles_total = nt * nt;
  auto issue = [&](int64_t tile, int s) {
    const int64_t r0 = (tile / nt) * 64, c0 = (tile % nt) * 64;
    if (t == 0) bar_expect(&bars[s], 64 * 64 * 4);
    __syncwarp();
    if (t < 64) bulk_load(&tiles(s)[pad64(t, 0)], in + (r0 + t) * dim + c0, 256, &bars[s]);
  };
  if (t == 0) {
    bar_init(&bars[0]);
    bar_init(&bars[1]);
  }
  __syncthreads();
  int64_t tile = blockIdx.x;
  if (tile < tiles_total) issue(tile, 0);
  for (int it = 0; tile < tiles_total; ++it, tile += gridDim.x) {
    const int s = it & 1;
    if (tile + gridDim.x < tiles_total) issue(tile + gridDim.x, s ^ 1);
    bar_wait(&bars[s], (it >> 1) & 1);
    float4 q[4];
    read_block(tiles(s), a, b, q);
    if (t < 64) bulk_store_wait_read<1>();  // the store of two tiles ago has read stages(s)
    __syncthreads();
    stage_block(stages(s), a, b, q);
    fence_async_smem();
    __syncthreads();  // also: every thread has read tiles[s] before the next iteration refills it
    if (t < 64) {
      const int64_t r0 = (tile / nt) * 64, c0 = (tile % nt) * 64;
      bulk_store<kEvictFirst>(out + (c0 + t) * dim + r0, &stages(s)[t * 64], 256);
    }
  }
  if (t < 64) bulk_store_wait_read<0>();
}

int main() {
  size_t fb = 128 << 20;
  void* flush;
  CK(cudaMalloc(&flush, fb));
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int tp_smem = (2 * kPadTileFloats + 2 * 64 * 64) * 4 + 16;
  CK(cudaFuncSetAttribute(tp<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, tp_smem));
  CK(cudaFuncSetAttribute(tp<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, tp_smem));
  int tp_blocks = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&tp_blocks, tp<true>, 256, tp_smem));
  printf("persistent kernel: %d blocks per SM x %d SMs, %d B shared memory per block\n", tp_blocks, sms, tp_smem);
  for (int64_t dim : {4096, 8192, 16384}) {
    const int64_t padded = dim + 64;
    size_t n = dim * dim, bytes = n * 4, pbytes = dim * padded * 4;
    float *in, *out, *ref;
    CK(cudaMalloc(&in, pbytes));
    CK(cudaMalloc(&out, pbytes));
    CK(cudaMalloc(&ref, pbytes));
    std::vector<float> h(dim * padded);
    for (size_t i = 0; i < h.size(); ++i) h[i] = (float)((i * 2654435761u) % 1000003);
    CK(cudaMemcpy(in, h.data(), pbytes, cudaMemcpyHostToDevice));
    double gb = 2.0 * bytes;
    double copy_s = 0;
    // Runs f once on a poisoned output and compares the first `dim` columns of each row (pitch apart) with want.
    auto report = [&](const char* name, double s, const float* want, int64_t pitch, auto run) {
      CK(cudaMemset(out, 0xff, pbytes));
      run();
      CK(cudaDeviceSynchronize());
      const unsigned long long hb = count_mismatches(out, want, dim, dim, pitch);
      printf("dim %6lld %-40s %9.1f us %6.3f TB/s %6.3f of copy  %s\n", (long long)dim, name, s * 1e6, gb / s / 1e12,
             copy_s > 0 ? copy_s / s : 1.0, hb ? "WRONG" : "ok");
      fflush(stdout);
    };
    int64_t n4 = n / 4;
    auto copy = [&] { copy1<<<(unsigned)((n4 + 255) / 256), 256>>>((const float4*)in, (float4*)out, n4); };
    copy_s = timeit(copy, flush, fb);
    report("copy float4 (one per thread)", copy_s, in, dim, copy);
    dim3 g64(dim / 64, dim / 64);
#define T(name, launch, want, pitch)                        \
  {                                                         \
    auto f = [&] { launch; };                               \
    report(name, timeit(f, flush, fb), want, pitch, f);     \
  }
    naive<<<dim3(dim / 32, dim / 32), dim3(32, 8)>>>(in, ref, dim, dim);
    T("t64 swizzle, st.cs (agent)", (t64<true><<<g64, 256>>>(in, out, dim)), ref, dim);
    T("tiled copy 64x64, st.cs (no transpose)", (t64<false><<<g64, 256>>>(in, out, dim)), in, dim);
    {
      auto timed = [&](const char* name, auto launch) {
        const double sec = timeit(launch, flush, fb);
        printf("dim %6lld %-40s %9.1f us %6.3f TB/s %6.3f of copy  (not a transpose)\n", (long long)dim, name, sec * 1e6,
               gb / sec / 1e12, copy_s / sec);
      };
      for (int64_t shift_bytes : {int64_t{0}, int64_t{256}, int64_t{4096}, int64_t{65536}, int64_t{1} << 20, int64_t{16} << 20,
                                  static_cast<int64_t>(bytes / 2)}) {
        char name[64];
        snprintf(name, sizeof name, "diag: copy, output rotated %lld B", static_cast<long long>(shift_bytes));
        timed(name, [&] { copy_rot<<<(unsigned)((n4 + 255) / 256), 256>>>((const float4*)in, (float4*)out, n4, shift_bytes / 16); });
      }
      timed("diag: t64, each tile written in place", [&] { t64d<1><<<g64, 256>>>(in, out, dim); });
      const int nt = static_cast<int>(dim / 64);
      for (int rows : {0, 1, 2, 3, 4, 8, 16, nt / 4, nt / 2, nt / 2 + 3}) {
        char name[64];
        snprintf(name, sizeof name, "diag: t64, tile written %d tile rows down", rows);
        timed(name, [&] { t64d<4><<<g64, 256>>>(in, out, dim, rows, 0); });
      }
      for (int cols : {1, 4, nt / 2}) {
        char name[64];
        snprintf(name, sizeof name, "diag: t64, tile written %d tile cols right", cols);
        timed(name, [&] { t64d<4><<<g64, 256>>>(in, out, dim, 0, cols); });
      }
      timed("diag: no smem, transposed tile position", [&] { t64d<2><<<g64, 256>>>(in, out, dim); });
      timed("diag: as above + __syncthreads", [&] { t64d<3><<<g64, 256>>>(in, out, dim); });
    }
    {
      const int nt = static_cast<int>(dim / 64);
      const unsigned g1 = static_cast<unsigned>(nt) * nt;
      T("order row-major, st.cs", (t64o<true><<<g1, 256>>>(in, out, dim, 1)), ref, dim);
      T("order column-major, st.cs", (t64o<true><<<g1, 256>>>(in, out, dim, nt)), ref, dim);
      T("column-major, ld, bulk store", (tb<false, true, false, true><<<g1, 256>>>(in, out, dim)), ref, dim);
      T("tcs: barrier store", (tcs<false, false, 1><<<g1, 256>>>(in, out, dim)), ref, dim);
      T("tcs: warp store", (tcs<true, false, 1><<<g1, 256>>>(in, out, dim)), ref, dim);
      for (int G : {nt / 2, nt / 4}) {
        char name[64];
        snprintf(name, sizeof name, "tcs: warp store, G=%d tile rows per column", G);
        T(name, (tcs<true, false, 1><<<g1, 256>>>(in, out, dim, 1, G)), ref, dim);
      }
      {
        int b0 = 0, b1 = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b0, tcsp<false>, 256, 0));
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b1, tcsp<true>, 256, 0));
        char name[64];
        snprintf(name, sizeof name, "tcsp: persistent, %d blocks/SM", b0);
        T(name, (tcsp<false><<<b0 * sms, 256>>>(in, out, dim)), ref, dim);
        snprintf(name, sizeof name, "tcsp: persistent + prefetch, %d blocks/SM", b1);
        T(name, (tcsp<true><<<b1 * sms, 256>>>(in, out, dim)), ref, dim);
      }
      T("tcs2: two tiles per block", (tcs2<false><<<g1 / 2, 256>>>(in, out, dim)), ref, dim);
      T("tcs2: two tiles per block, evict-last", (tcs2<true><<<g1 / 2, 256>>>(in, out, dim)), ref, dim);
      T("tcs: warp store, evict-last", (tcs_last<<<g1, 256>>>(in, out, dim)), ref, dim);
      // Occupancy: unused dynamic shared memory limits the blocks per SM (6 without it: 40 registers, 33 KB).
      CK(cudaFuncSetAttribute(tcs<true, false, 1>, cudaFuncAttributeMaxDynamicSharedMemorySize, 48 * 1024));
      for (int extra_kb : {8, 20, 40}) {
        int blocks = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, tcs<true, false, 1>, 256, extra_kb * 1024));
        char name[64];
        snprintf(name, sizeof name, "tcs: warp store, %d blocks/SM", blocks);
        T(name, (tcs<true, false, 1><<<g1, 256, extra_kb * 1024>>>(in, out, dim)), ref, dim);
      }
      T("order G=3nt/4, st.cs", (t64o<true><<<g1, 256>>>(in, out, dim, 3 * nt / 4)), ref, dim);
    }
    T("cluster 1x8, __syncthreads", launch_cluster(t64c<false>, g64, 1, 8, in, out, dim), ref, dim);
    T("cluster 1x8, cluster barrier", launch_cluster(t64c<true>, g64, 1, 8, in, out, dim), ref, dim);
    T("cluster 1x4, cluster barrier", launch_cluster(t64c<true>, g64, 1, 4, in, out, dim), ref, dim);
    T("cluster 8x1, cluster barrier", launch_cluster(t64c<true>, g64, 8, 1, in, out, dim), ref, dim);
    T("cluster 2x4, cluster barrier", launch_cluster(t64c<true>, g64, 2, 4, in, out, dim), ref, dim);
    T("pad-tile, ld + st.cs (bulk baseline)", (tb<false, false, false><<<g64, 256>>>(in, out, dim)), ref, dim);
    T("bulk load, st.cs", (tb<true, false, false><<<g64, 256>>>(in, out, dim)), ref, dim);
    T("ld, bulk store", (tb<false, true, false><<<g64, 256>>>(in, out, dim)), ref, dim);
    T("ld, bulk store evict-first", (tb<false, true, true><<<g64, 256>>>(in, out, dim)), ref, dim);
    T("bulk load + bulk store", (tb<true, true, false><<<g64, 256>>>(in, out, dim)), ref, dim);
    T("bulk load + bulk store evict-first", (tb<true, true, true><<<g64, 256>>>(in, out, dim)), ref, dim);
    const unsigned grid_p = static_cast<unsigned>(tp_blocks * sms);
    T("persistent 2-stage bulk", (tp<false><<<grid_p, 256, tp_smem>>>(in, out, dim)), ref, dim);
    T("persistent 2-stage bulk evict-first", (tp<true><<<grid_p, 256, tp_smem>>>(in, out, dim)), ref, dim);
    // Diagnostic: the same kernel on rows padded.pitch apart (only the first dim columns are the matrix).
    naive<<<dim3(dim / 32, dim / 32), dim3(32, 8)>>>(in, ref, dim, padded);
    T("t64 swizzle, pitch dim+64 (diagnostic)", (t64<true><<<g64, 256>>>(in, out, padded)), ref, padded);
    T("tiled copy, pitch dim+64 (diagnostic)", (t64<false><<<g64, 256>>>(in, out, padded)), in, padded);
    CK(cudaFree(in));
    CK(cudaFree(out));
    CK(cudaFree(ref));
  }
  return 0;
}
