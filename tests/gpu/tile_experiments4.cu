// Round 7 of the transpose experiments (rounds 1-6: tile_experiments*.cu, results in docs/results/h200-experiments*.txt).
// After round 6 the agent's kernel (64x64 tile, column-major tile order, 256 B bulk stores) sits at 0.967-0.977 of
// the float4 copy at 16384^2. Round 6 measured taller and wider tiles only with 3 blocks per SM (their shared memory
// halved the resident blocks, 0.95) and never both sides of a tile scattered without a transposition. This round
// (the argument picks the call's list; results: docs/results/h200-experiments7.txt):
//   - call 1, shapes: tgen<H, Wc>: an H x Wc tile (input rows x columns), H * Wc / 16 threads, each thread loads 4 float4 and
//     transposes one 4x4 block, so the bytes in flight per SM stay those of the 64x64 kernel: 128x64 writes 512 B
//     output row pieces, 64x128 reads 512 B input row pieces, 128x128 both.
//   - snake: odd tile columns walked bottom-up, so the resident window reads the same input rows in two columns.
//   - diagnostic: the tiles copied in place in column-major order (both sides 256 B pieces a row pitch apart).
//   - call 2, prefetch: L2 prefetch. The tiles of every (P + 1)-th tile column also prefetch the next P tile columns' pieces
//     of their rows into L2 (cp.async.bulk.prefetch.L2), so DRAM sees (P + 1) * 256 B contiguous reads per input row
//     and the next P columns, ~256 * P blocks later, read from L2; optionally with evict-first bulk stores.
//   - call 3, pitch: the column-major kernels on rows `pitch` floats apart (pitch > dim: not a power of two), to see
//     whether the concurrent reads, which in column-major order share their low 16 address bits, camp on a few
//     L2 slices or DRAM channels.
//   - call 4, odd: odd sizes (dim % 4 != 0: rows not 16 B aligned, no float4 or bulk access). The agent's scalar path
//     (one element per loop iteration, the float4 kernels' tile layout: 4-way conflicts on the column read)
//     against one that issues all 16 loads of a thread before the first shared store and uses a tile[64][65]
//     (conflict-free for scalar rows and columns), with plain or evict-first stores.
//   - call 5, scalar (diagnostic): what scalar and misaligned accesses cost by themselves: a scalar copy with 1 or 16
//     floats per thread (16 loads in flight), with input and/or output shifted by one float (4 B aligned only),
//     and the new scalar transpose on an aligned 16384^2 matrix.
//   - call 6, odd: odd sizes again, each warp access aligned to the 128 B lines: a 64-float row piece that starts
//     m floats into a line is written (and optionally read) by 3 instructions covering its 3 lines, lane l at
//     element 32 s + l - m, instead of 2 instructions that each straddle 5 sectors.
//   - call 7, ncu (run under ncu, one launch each at 4096^2): the 64x64 kernel with bulk stores against the same
//     kernel whose warps store their staged rows themselves (LDS.128 + st.global.cs), to see whether the bank
//     conflicts ncu counts on the tile's column read come from the bulk-copy unit reading the staging tile; and the
//     kernel without a staging tile (4x4 blocks stored from registers with st.global.cs, as before round 6) in
//     row- and column-major order, with and without 16 KB of unused dynamic shared memory (the staging tile's size).
//   - calls 8 and 9, odd: each block owns whole 32 B sectors of the output (odd_owned, an 8-row halo), so that no
//     sector is written by two blocks: correct, but slower (0.58 of the copy; 0.55 with 56 registers), not adopted.
//   - call 10, loads: the load instruction's cache hints (L1 no-allocate / evict-first, L2 evict-first / evict-last
//     policies, L2::128B prefetch size) in the 64x64 kernel. (Call 10 compared the transposes with a reference
//     that main() no longer computed in this list, so it printed WRONG; the timings stand, call 11 checks them.)
//   - call 11, evictlast: does the evict-last load policy gain because input lines outlive the cold-L2 memset? The
//     same kernels with the input alternating between two copies each sample, every output checked.
//   - call 12, copylast: call 11 plus the float4 copy with evict-last loads.
// In short: no shape, order, prefetch or pitch moved the 16384^2 transpose (0.963-0.968); the tiles copied in
// place in column-major order run at 0.93, so reading 256 B pieces a row pitch apart costs ~3 % by itself and
// writing them ~6 %. L2 evict-last loads did: 0.971 -> 0.988 of the plain copy at 16384^2, 0.980 -> 0.997 at 8192^2,
// with inputs alternating too; they make the copy itself 1.5-2 % faster (the agent adopted them for both). Odd sizes:
// the stores' alignment is what costs (a scalar copy: 0.96, its output shifted by 4 B: 0.77); line-aligned accesses
// take the scalar transpose from 0.65 to 0.82 of the copy (the agent adopted it). ncu: the bank conflicts counted on
// the 64x64 kernels come with 16 KB more shared memory per block, used or not (4.03 -> 4.40 wavefronts per load), not
// from the bulk-copy unit or the access pattern.
//   nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -Xptxas -v tests/gpu/tile_experiments4.cu -o /tmp/tx4 && /tmp/tx4 shapes|prefetch|pitch|odd|scalar|ncu|loads|evictlast|copylast
// Cold L2 (memset of 128 MiB before each sample), CUDA events, median of 30 samples; every transpose compared
// exactly with a naive transpose, the in-place copies with the input.
#include <string>

#include "experiment_harness.cuh"

// The padded input tile: 16 B after every 4 rows (the column-of-chunks read, rows 4a + k for 8 lanes a, hits
// 8 different chunk positions when Wc * 4 floats is a multiple of the 32 banks); each row stays contiguous.
template <int H, int Wc>
__host__ __device__ constexpr int tile_floats() { return H * Wc + 4 * (H / 4); }
template <int Wc>
__device__ __forceinline__ int toff(int r, int c) { return r * Wc + c + 4 * (r >> 2); }

template <int H, int Wc, bool kReuse>
constexpr int tgen_smem_bytes() { return 4 * (kReuse ? tile_floats<H, Wc>() : tile_floats<H, Wc>() + H * Wc); }

// Column-major tile order (block id walks down a tile column), one 4x4 block per thread, warp-level bulk stores:
// with A = H / 4 = 16 or 32, warp w holds the 4x4 blocks of columns b = 32 w / A .. and so whole output rows
// 4b .. 4b + 3 (H floats each) of the staging tile, which 128 / A of its lanes store.
// kSnake: odd tile columns walked bottom-up. kReuse: the staging tile lives in the input tile's buffer (a second
// barrier). kCopy (diagnostic): the input tile's rows are stored back in place, no transposition.
// kPrefetch = P > 0: the prefetch above. kEvictFirst: bulk stores with an L2 evict-first policy.
template <int H, int Wc, int kMinBlocks, bool kSnake, bool kReuse, bool kCopy, int kPrefetch = 0, bool kEvictFirst = false>
__global__ void __launch_bounds__(H * Wc / 16, kMinBlocks) tgen(const float* __restrict__ in, float* __restrict__ out, int64_t dim,
                                                 int64_t pitch) {
  constexpr int kThreads = H * Wc / 16, kChunks = Wc / 4, kRowsPerPass = kThreads / kChunks, A = H / 4;
  static_assert(A == 16 || A == 32, "a warp must hold whole output rows");
  extern __shared__ __align__(128) float dyn[];
  float* tile = dyn;
  float* staging = kReuse ? dyn : dyn + tile_floats<H, Wc>();
  const int64_t ntr = dim / H, column = blockIdx.x / ntr;
  int64_t tr = blockIdx.x % ntr;
  if (kSnake && (column & 1)) tr = ntr - 1 - tr;
  const int64_t r0 = tr * H, c0 = column * Wc;
  const int t = threadIdx.x, r = t / kChunks, c4 = t % kChunks;
  if (kPrefetch > 0 && column % (kPrefetch + 1) == 0 && c0 + (kPrefetch + 1) * Wc <= dim && t < H)
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(in + (r0 + t) * pitch + c0 + Wc), "r"(kPrefetch * Wc * 4) : "memory");
  float4 v[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) v[i] = *reinterpret_cast<const float4*>(in + (r0 + r + kRowsPerPass * i) * pitch + c0 + 4 * c4);
#pragma unroll
  for (int i = 0; i < 4; ++i) *reinterpret_cast<float4*>(&tile[toff<Wc>(r + kRowsPerPass * i, 4 * c4)]) = v[i];
  if (kCopy) fence_async_smem();
  __syncthreads();
  if (kCopy) {
    if (t < H) {
      bulk_store<false>(out + (r0 + t) * pitch + c0, &tile[toff<Wc>(t, 0)], Wc * 4);
      bulk_store_wait_read<0>();
    }
    return;
  }
  const int a = t % A, b = t / A;
  float4 q[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) q[k] = *reinterpret_cast<const float4*>(&tile[toff<Wc>(4 * a + k, 4 * b)]);
  if (kReuse) __syncthreads();
  store_transposed(&staging[4 * b * H + 4 * a], H, q, StorePlain{});
  fence_async_smem();
  __syncwarp();
  const int w = t / 32, lane = t % 32;
  if (lane < 128 / A) {
    const int row = 4 * (32 * w / A + lane / 4) + lane % 4;
    bulk_store<kEvictFirst>(out + (c0 + row) * pitch + r0, &staging[row * H], H * 4);
    bulk_store_wait_read<0>();
  }
}

template <int H, int Wc, int kMinBlocks, bool kSnake, bool kReuse, bool kCopy, int kPrefetch = 0, bool kEvictFirst = false>
struct Tgen {
  static constexpr int kThreads = H * Wc / 16, kBytes = tgen_smem_bytes<H, Wc, kReuse>();
  static int prepare() {  // returns the resident blocks per SM
    auto k = tgen<H, Wc, kMinBlocks, kSnake, kReuse, kCopy, kPrefetch, kEvictFirst>;
    CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, kBytes));
    int blocks = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k, kThreads, kBytes));
    return blocks;
  }
  static void launch(const float* in, float* out, int64_t dim, int64_t pitch) {
    tgen<H, Wc, kMinBlocks, kSnake, kReuse, kCopy, kPrefetch, kEvictFirst><<<static_cast<unsigned>((dim / H) * (dim / Wc)), kThreads, kBytes>>>(in, out, dim, pitch);
  }
};

// The agent's tile order: column-major, the partial last tile column (dim % 64 != 0) first.
__device__ __forceinline__ void odd_origin(int64_t dim, int64_t& r0, int64_t& c0) {
  const unsigned tiles = static_cast<unsigned>((dim + 63) / 64);
  const unsigned column = (blockIdx.x / tiles + tiles - 1) % tiles;
  r0 = (blockIdx.x % tiles) * 64LL;
  c0 = column * 64LL;
}

// The agent's scalar path (tile64_pad, before round 7), for dim % 4 != 0 and partial edge tiles; column-major order.
__global__ void __launch_bounds__(256, 6) odd_old(const float* __restrict__ in, float* __restrict__ out, int64_t dim) {
  __shared__ __align__(16) float tile[64 * 64 + 64];
  int64_t r0, c0;
  odd_origin(dim, r0, c0);
  const int t = threadIdx.x;
  for (int idx = t; idx < 64 * 64; idx += 256) {
    const int r = idx / 64, c = idx % 64;
    if (r0 + r < dim && c0 + c < dim) tile[r * 64 + c + 4 * (r >> 2)] = in[(r0 + r) * dim + c0 + c];
  }
  __syncthreads();
  for (int idx = t; idx < 64 * 64; idx += 256) {
    const int j = idx / 64, i = idx % 64;
    if (c0 + j < dim && r0 + i < dim) out[(c0 + j) * dim + r0 + i] = tile[i * 64 + j + 4 * (i >> 2)];
  }
}

// Warp w loads tile rows w + 8 (k / 2), columns 32 (k % 2) + lane, k = 0..15, all 16 loads before the first store
// into tile[64][65].
__device__ __forceinline__ void fill16(const float* __restrict__ in, int64_t dim, int64_t r0, int64_t c0, float* tile) {
  const int w = threadIdx.x / 32, lane = threadIdx.x % 32;
  float v[16];
#pragma unroll
  for (int k = 0; k < 16; ++k) {
    const int r = w + 8 * (k / 2), c = 32 * (k % 2) + lane;
    v[k] = r0 + r < dim && c0 + c < dim ? in[(r0 + r) * dim + c0 + c] : 0.0f;
  }
#pragma unroll
  for (int k = 0; k < 16; ++k) tile[(w + 8 * (k / 2)) * 65 + 32 * (k % 2) + lane] = v[k];
}

// Warp w loads tile rows w + 8 (k / 2), columns 32 (k % 2) + lane, k = 0..15, all 16 loads before the first shared
// store; tile[64][65]; then stores output rows w + 8 (k / 2), columns 32 (k % 2) + lane. kCs: st.global.cs.
template <bool kCs>
__global__ void __launch_bounds__(256, 6) odd_new(const float* __restrict__ in, float* __restrict__ out, int64_t dim) {
  __shared__ float tile[64 * 65];
  int64_t r0, c0;
  odd_origin(dim, r0, c0);
  const int w = threadIdx.x / 32, lane = threadIdx.x % 32;
  fill16(in, dim, r0, c0, tile);
  __syncthreads();
#pragma unroll
  for (int k = 0; k < 16; ++k) {
    const int j = w + 8 * (k / 2), i = 32 * (k % 2) + lane;
    if (c0 + j < dim && r0 + i < dim) {
      float* o = out + (c0 + j) * dim + r0 + i;
      if (kCs) __stcs(o, tile[i * 65 + j]);
      else *o = tile[i * 65 + j];
    }
  }
}

// Scalar copy, kItems floats per thread (all loads before the stores), block b covers 256 * kItems floats.
template <int kItems>
__global__ void __launch_bounds__(256) copy_scalar(const float* __restrict__ in, float* __restrict__ out, int64_t n) {
  const int64_t base = blockIdx.x * 256LL * kItems + threadIdx.x;
  float v[kItems];
#pragma unroll
  for (int k = 0; k < kItems; ++k) v[k] = base + 256 * k < n ? in[base + 256 * k] : 0.0f;
#pragma unroll
  for (int k = 0; k < kItems; ++k)
    if (base + 256 * k < n) out[base + 256 * k] = v[k];
}

// Output rows as in odd_new, but instruction s = 0..2 of row j covers the 128 B line s of its piece: lane l writes
// element i = 32 s + l - m (m = the piece's offset in its first line), where 0 <= i < 64. kAlignLoads: the loads
// likewise (24 loads in flight); else as in odd_new.
template <bool kAlignLoads>
__global__ void __launch_bounds__(256, 6) odd_lines(const float* __restrict__ in, float* __restrict__ out, int64_t dim) {
  __shared__ float tile[64 * 65];
  int64_t r0, c0;
  odd_origin(dim, r0, c0);
  const int w = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (kAlignLoads) {
    float v[24];
#pragma unroll
    for (int k = 0; k < 24; ++k) {
      const int r = w + 8 * (k / 3);
      const int64_t start = (r0 + r) * dim + c0;
      const int c = 32 * (k % 3) + lane - static_cast<int>(start & 31);
      v[k] = c >= 0 && c < 64 && r0 + r < dim && c0 + c < dim ? in[start + c] : 0.0f;
    }
#pragma unroll
    for (int k = 0; k < 24; ++k) {
      const int r = w + 8 * (k / 3);
      const int c = 32 * (k % 3) + lane - static_cast<int>(((r0 + r) * dim + c0) & 31);
      if (c >= 0 && c < 64) tile[r * 65 + c] = v[k];
    }
  } else {
    fill16(in, dim, r0, c0, tile);
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < 24; ++k) {
    const int j = w + 8 * (k / 3);
    const int64_t start = (c0 + j) * dim + r0;
    const int i = 32 * (k % 3) + lane - static_cast<int>(start & 31);
    if (i >= 0 && i < 64 && c0 + j < dim && r0 + i < dim) __stcs(out + start + i, tile[i * 65 + j]);
  }
}

// Call 8: each block owns whole 32 B sectors of the output. Output row c (= c0 + j) starts m = (c dim + r0) % 8 floats
// into a sector; the block writes elements [r0 - m, r0 + 64 - m) of it (to dim in the last tile row, from 0 in the
// first), so no sector is written by two blocks except at the ends of matrix rows. It needs input rows r0 - 8 ..
// r0 + 63 (8 more than the tile, which the block above has just read: L2 hits): tile[72][65], 27 line-aligned loads
// per thread; the stores line-aligned as in odd_lines.
// kMinBlocks: 6 (40 registers, as the agent) or 4 (64 registers: all 27 loads can stay in flight).
template <int kMinBlocks>
__global__ void __launch_bounds__(256, kMinBlocks) odd_owned(const float* __restrict__ in, float* __restrict__ out, int64_t dim) {
  __shared__ float tile[72 * 65];
  int64_t r0, c0;
  odd_origin(dim, r0, c0);
  const int w = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int64_t top = r0 - 8;  // global row of tile row 0
  float v[27];
#pragma unroll
  for (int k = 0; k < 27; ++k) {
    const int64_t gr = top + w + 8 * (k / 3);
    const int64_t start = gr * dim + c0;
    const int c = 32 * (k % 3) + lane - static_cast<int>(start & 31);
    v[k] = gr >= 0 && gr < dim && c >= 0 && c < 64 && c0 + c < dim ? in[start + c] : 0.0f;
  }
#pragma unroll
  for (int k = 0; k < 27; ++k) {
    const int tr = w + 8 * (k / 3);
    const int c = 32 * (k % 3) + lane - static_cast<int>(((top + tr) * dim + c0) & 31);
    if (c >= 0 && c < 64) tile[tr * 65 + c] = v[k];
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < 24; ++k) {
    const int j = w + 8 * (k / 3);
    if (c0 + j >= dim) continue;
    const int64_t row = (c0 + j) * dim;
    const int64_t first = r0 - ((row + r0) & 7);  // sector-aligned start of the owned range
    const int64_t lo = first < 0 ? 0 : first, hi = r0 + 64 < dim ? first + 64 : dim;
    const int64_t i = first + 32 * (k % 3) + lane - ((row + first) & 31);
    if (i >= lo && i < hi) __stcs(out + row + i, tile[(i - top) * 65 + j]);
  }
}

// Call 10: the load instruction of the 64x64 kernel (tgen<64, 64, 6, ...>: padded tile, column-major order, warp bulk
// stores). kLoad: 0 plain (the agent), 1 ld.global.L1::no_allocate, 2 L2 evict-first policy, 3 L2 evict-last policy,
// 4 ld.global.L2::128B (prefetch size), 5 ld.global.L1::evict_first.
template <int kLoad>
__device__ __forceinline__ float4 load16(const float* p) {
  float4 v;
  if (kLoad == 0) {
    v = *reinterpret_cast<const float4*>(p);
  } else if (kLoad == 1) {
    asm volatile("ld.global.L1::no_allocate.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
  } else if (kLoad == 2 || kLoad == 3) {
    uint64_t policy;
    if (kLoad == 2) asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
    else asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
    asm volatile("ld.global.L2::cache_hint.v4.f32 {%0,%1,%2,%3}, [%4], %5;"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p), "l"(policy));
  } else if (kLoad == 4) {
    asm volatile("ld.global.L2::128B.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
  } else {
    asm volatile("ld.global.L1::evict_first.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
  }
  return v;
}

// Call 12: the float4 copy with the same evict-last loads (is the ceiling itself faster with them?).
__global__ void __launch_bounds__(256) copy1_last(const float4* __restrict__ in, float4* __restrict__ out, int64_t n4) {
  const int64_t i = blockIdx.x * 256LL + threadIdx.x;
  if (i < n4) {
    const float4 v = load16<3>(reinterpret_cast<const float*>(in + i));
    out[i] = v;
  }
}

// Loads the 64x64 tile at (r0, c0) into the padded tile (thread t: rows t / 16 + 16 i, chunk t % 16; with load16<kLoad>)
// and, after a barrier, returns this thread's 4x4 block (rows 4a.., columns 4b.., a = t % 16, b = t / 16) as four rows.
template <int kLoad = 0>
__device__ __forceinline__ void load_block64(const float* __restrict__ in, int64_t dim, int64_t r0, int64_t c0, float* tile,
                                             float4 (&q)[4]) {
  const int t = threadIdx.x, r = t / 16, c4 = t % 16, a = t % 16, b = t / 16;
  float4 v[4];
  load_rows64(in, dim, r0, c0, v, [](const float* p) { return load16<kLoad>(p); });
#pragma unroll
  for (int i = 0; i < 4; ++i) *reinterpret_cast<float4*>(&tile[toff<64>(r + 16 * i, 4 * c4)]) = v[i];
  __syncthreads();
#pragma unroll
  for (int k = 0; k < 4; ++k) q[k] = *reinterpret_cast<const float4*>(&tile[toff<64>(4 * a + k, 4 * b)]);
}

template <int kLoad>
__global__ void __launch_bounds__(256, 6) t64_load(const float* __restrict__ in, float* __restrict__ out, int64_t dim) {
  __shared__ __align__(128) float tile[tile_floats<64, 64>()];
  __shared__ __align__(128) float staging[64 * 64];
  const int64_t nt = dim / 64, r0 = (blockIdx.x % nt) * 64, c0 = (blockIdx.x / nt) * 64;
  float4 q[4];
  load_block64<kLoad>(in, dim, r0, c0, tile, q);
  stage_and_store64(out, dim, r0, c0, staging, q, [](float* dst, const float* src) {
    bulk_store<false>(dst, src, 256);
    bulk_store_wait_read<0>();
  });
}

// The 64x64 kernel of tgen<64, 64, ...> (padded tile, staging tile, column-major order), but each warp stores its
// 8 staged output rows itself: 4 float4 per lane, read row-contiguously from the staging tile, st.global.cs.
__global__ void __launch_bounds__(256, 6) t64_stage_st(const float* __restrict__ in, float* __restrict__ out, int64_t dim) {
  __shared__ __align__(128) float tile[tile_floats<64, 64>()];
  __shared__ __align__(128) float staging[64 * 64];
  const int64_t nt = dim / 64, r0 = (blockIdx.x % nt) * 64, c0 = (blockIdx.x / nt) * 64;
  const int t = threadIdx.x, a = t % 16, b = t / 16;
  float4 q[4];
  load_block64(in, dim, r0, c0, tile, q);
  store_transposed(&staging[4 * b * 64 + 4 * a], 64, q, StorePlain{});
  __syncwarp();
  const int w = t / 32, lane = t % 32;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const int row = 8 * w + 2 * k + lane / 16;
    __stcs(reinterpret_cast<float4*>(out + (c0 + row) * dim + r0 + 4 * (lane % 16)),
           *reinterpret_cast<const float4*>(&staging[row * 64 + 4 * (lane % 16)]));
  }
}

// No staging tile: each thread stores its transposed 4x4 block from registers (st.global.cs), padded tile, 1-D grid
// in column-major (kColMajor) or row-major tile order. Launched with 0 or 16 KB of unused dynamic shared memory.
template <bool kColMajor>
__global__ void __launch_bounds__(256, 6) t64_regs(const float* __restrict__ in, float* __restrict__ out, int64_t dim) {
  __shared__ __align__(128) float tile[tile_floats<64, 64>()];
  const int64_t nt = dim / 64;
  const int64_t r0 = (kColMajor ? blockIdx.x % nt : blockIdx.x / nt) * 64, c0 = (kColMajor ? blockIdx.x / nt : blockIdx.x % nt) * 64;
  const int t = threadIdx.x, a = t % 16, b = t / 16;
  float4 q[4];
  load_block64(in, dim, r0, c0, tile, q);
  store_transposed(out + (c0 + 4 * b) * dim + r0 + 4 * a, dim, q, StoreCs{});
}

int main(int argc, char** argv) {
  size_t fb = 128 << 20;
  void* flush;
  CK(cudaMalloc(&flush, fb));
  const std::string what = argc > 1 ? argv[1] : "";
  bool launch_is_copy = false;  // call 11: what the output is compared with
  const bool odd_only = what == "odd" || what == "scalar";  // calls 4-6
  if (what == "ncu") {  // call 7: one launch of each, checked
    const int64_t dim = 4096, n = dim * dim, bytes = n * 4;
    Buffers buf(n);
    float *in = buf.in, *out = buf.out, *ref = buf.ref;
    naive<<<dim3(dim / 32, dim / 32), dim3(32, 8)>>>(in, ref, dim, dim);
    auto check = [&](const char* name) {
      CK(cudaDeviceSynchronize());
      const unsigned long long hb = count_mismatches(out, ref, dim, dim, dim);
      printf("%s: %s\n", name, hb ? "WRONG" : "ok");
      CK(cudaMemset(out, 0xff, bytes));
    };
    using K = Tgen<64, 64, 6, false, false, false>;
    K::prepare();
    K::launch(in, out, dim, dim);
    check("tgen 64x64, bulk stores");
    t64_stage_st<<<(dim / 64) * (dim / 64), 256>>>(in, out, dim);
    check("t64_stage_st, warp stores from the staging tile");
    const unsigned grid = (dim / 64) * (dim / 64);
    t64_regs<false><<<grid, 256>>>(in, out, dim);
    check("t64_regs<row-major>, no extra shared memory");
    t64_regs<false><<<grid, 256, 16384>>>(in, out, dim);
    check("t64_regs<row-major>, 16 KB unused dynamic shared memory");
    t64_regs<true><<<grid, 256>>>(in, out, dim);
    check("t64_regs<column-major>, no extra shared memory");
    t64_regs<true><<<grid, 256, 16384>>>(in, out, dim);
    check("t64_regs<column-major>, 16 KB unused dynamic shared memory");
    return 0;
  }
  if (what == "evictlast" || what == "copylast") {  // calls 11, 12
    for (int64_t dim : {8192, 16384}) {
      const int64_t n = dim * dim, bytes = n * 4;
      Buffers a(n), b(n);  // two inputs (different hash offsets are not needed: each is checked against its own ref)
      CK(cudaMemcpy(b.in, a.in, bytes, cudaMemcpyDeviceToDevice));
      naive<<<dim3(dim / 32, dim / 32), dim3(32, 8)>>>(a.in, a.ref, dim, dim);
      naive<<<dim3(dim / 32, dim / 32), dim3(32, 8)>>>(b.in, b.ref, dim, dim);
      const double gb = 2.0 * bytes;
      const unsigned g = static_cast<unsigned>((dim / 64) * (dim / 64));
      const int64_t n4 = n / 4;
      double copy_s = 0;
      // kAlternate: sample i reads input a or b in turn (a line of a left in L2 cannot serve the next sample).
      auto line = [&](const char* name, bool alternate, auto launch) {
        int i = 0;
        const double sec = timeit([&] { launch((alternate && (i++ & 1)) ? b : a); }, flush, fb);
        unsigned long long bad_a = 0, bad_b = 0;
        CK(cudaMemset(a.out, 0xff, bytes));
        launch(a);
        CK(cudaDeviceSynchronize());
        bad_a = count_mismatches(a.out, launch_is_copy ? a.in : a.ref, dim, dim, dim);
        CK(cudaMemset(b.out, 0xff, bytes));
        launch(b);
        CK(cudaDeviceSynchronize());
        bad_b = count_mismatches(b.out, launch_is_copy ? b.in : b.ref, dim, dim, dim);
        if (copy_s == 0) copy_s = sec;
        printf("dim %6lld %-52s %8.1f us %6.3f TB/s %6.3f of copy  %s\n", (long long)dim, name, sec * 1e6, gb / sec / 1e12,
               copy_s / sec, bad_a || bad_b ? "WRONG" : "ok");
        fflush(stdout);
      };
      for (int pass = 0; pass < 2; ++pass) {
        copy_s = 0;
        launch_is_copy = true;
        line("copy float4, inputs alternating", true, [&](Buffers& x) { copy1<<<(unsigned)((n4 + 255) / 256), 256>>>((const float4*)x.in, (float4*)x.out, n4); });
        launch_is_copy = false;
        line("64x64 plain loads, one input", false, [&](Buffers& x) { t64_load<0><<<g, 256>>>(x.in, x.out, dim); });
        line("64x64 plain loads, inputs alternating", true, [&](Buffers& x) { t64_load<0><<<g, 256>>>(x.in, x.out, dim); });
        line("64x64 L2 evict-last loads, one input", false, [&](Buffers& x) { t64_load<3><<<g, 256>>>(x.in, x.out, dim); });
        line("64x64 L2 evict-last loads, inputs alternating", true, [&](Buffers& x) { t64_load<3><<<g, 256>>>(x.in, x.out, dim); });
        line("64x64 plain loads, one input (after evict-last)", false, [&](Buffers& x) { t64_load<0><<<g, 256>>>(x.in, x.out, dim); });
        line("64x64 L2::128B loads, inputs alternating", true, [&](Buffers& x) { t64_load<4><<<g, 256>>>(x.in, x.out, dim); });
        if (what == "copylast") {  // call 12
          launch_is_copy = true;
          line("copy float4, evict-last loads, inputs alternating", true, [&](Buffers& x) { copy1_last<<<(unsigned)((n4 + 255) / 256), 256>>>((const float4*)x.in, (float4*)x.out, n4); });
          line("copy float4, inputs alternating (again)", true, [&](Buffers& x) { copy1<<<(unsigned)((n4 + 255) / 256), 256>>>((const float4*)x.in, (float4*)x.out, n4); });
          launch_is_copy = false;
        }
      }
    }
    return 0;
  }
  if (what == "scalar") {  // call 5
    const int64_t dim = 16384, n = dim * dim, bytes = n * 4;
    Buffers buf(n + 16);  // + 16: room for the copies shifted by one float
    float *in = buf.in, *out = buf.out, *ref = buf.ref;
    naive<<<dim3(dim / 32, dim / 32), dim3(32, 8)>>>(in, ref, dim, dim);
    const double gb = 2.0 * bytes;
    const int64_t n4 = n / 4;
    const double copy_s = timeit([&] { copy1<<<(unsigned)((n4 + 255) / 256), 256>>>((const float4*)in, (float4*)out, n4); }, flush, fb);
    auto line = [&](const char* name, double s) {
      printf("dim %6lld %-52s %8.1f us %6.3f TB/s %6.3f of copy\n", (long long)dim, name, s * 1e6, gb / s / 1e12, copy_s / s);
      fflush(stdout);
    };
    line("copy float4 (one per thread)", copy_s);
    for (int pass = 0; pass < 2; ++pass) {
      line("scalar copy, 1 per thread", timeit([&] { copy_scalar<1><<<(unsigned)(n / 256), 256>>>(in, out, n); }, flush, fb));
      line("scalar copy, 16 per thread", timeit([&] { copy_scalar<16><<<(unsigned)(n / 4096), 256>>>(in, out, n); }, flush, fb));
      line("scalar copy, 16 per thread, input +4 B", timeit([&] { copy_scalar<16><<<(unsigned)(n / 4096), 256>>>(in + 1, out, n); }, flush, fb));
      line("scalar copy, 16 per thread, output +4 B", timeit([&] { copy_scalar<16><<<(unsigned)(n / 4096), 256>>>(in, out + 1, n); }, flush, fb));
      line("scalar copy, 16 per thread, both +4 B", timeit([&] { copy_scalar<16><<<(unsigned)(n / 4096), 256>>>(in + 1, out + 1, n); }, flush, fb));
      const unsigned grid = (dim / 64) * (dim / 64);
      line("new scalar transpose path, aligned 16384^2", timeit([&] { odd_new<true><<<grid, 256>>>(in, out, dim); }, flush, fb));
    }
    CK(cudaMemset(out, 0xff, bytes));
    odd_new<true><<<(dim / 64) * (dim / 64), 256>>>(in, out, dim);
    const unsigned long long hb = count_mismatches(out, ref, dim, dim, dim);
    printf("new scalar transpose path on the aligned matrix: %s\n", hb ? "WRONG" : "ok");
    return 0;
  }
  for (int64_t dim : {8192, 16384}) {
    if (odd_only) break;
    const int64_t max_pitch = dim + 256;
    size_t n = dim * dim, bytes = n * 4, pbytes = dim * max_pitch * 4;
    Buffers buf(dim * max_pitch);
    float *in = buf.in, *out = buf.out, *ref = buf.ref;
    const double gb = 2.0 * bytes;
    double copy_s = 0;
    int64_t pitch = dim;
    // Times `run`, then runs it once on a poisoned output and compares the first dim columns of each row (pitch apart).
    auto report = [&](const char* name, int blocks, const float* want, auto run) {
      const double s = timeit(run, flush, fb);
      CK(cudaMemset(out, 0xff, pbytes));
      run();
      CK(cudaDeviceSynchronize());
      const unsigned long long hb = count_mismatches(out, want, dim, dim, pitch);
      printf("dim %6lld pitch %6lld %-44s %2d blk/SM %8.1f us %6.3f TB/s %6.3f of copy  %s\n", (long long)dim, (long long)pitch,
             name, blocks, s * 1e6, gb / s / 1e12, copy_s > 0 ? copy_s / s : 1.0, hb ? "WRONG" : (want == in ? "ok (copy)" : "ok"));
      fflush(stdout);
      return s;
    };
    const int64_t n4 = n / 4;
    auto copy = [&] { copy1<<<(unsigned)((n4 + 255) / 256), 256>>>((const float4*)in, (float4*)out, n4); };
#define V(name, want, ...)                                                         \
  {                                                                                \
    using K = Tgen<__VA_ARGS__>;                                                   \
    const int blocks = K::prepare();                                               \
    report(name, blocks, want, [&] { K::launch(in, out, dim, pitch); });           \
  }
    for (int pass = 0; pass < 2; ++pass) {
      pitch = dim;
      naive<<<dim3(dim / 32, dim / 32), dim3(32, 8)>>>(in, ref, dim, dim);  // (call 10 ran without it: see the results)
      copy_s = 0;
      copy_s = report("copy float4 (one per thread)", 0, in, copy);
      if (what == "shapes") {  // call 1
        V("64x64 (the agent's kernel, padded tile)", ref, 64, 64, 6, false, false, false);
        V("64x64 snake", ref, 64, 64, 6, true, false, false);
        V("64x64 staging reused", ref, 64, 64, 6, false, true, false);
        V("128x64 (512 B stores)", ref, 128, 64, 3, false, false, false);
        V("128x64 snake", ref, 128, 64, 3, true, false, false);
        V("128x64 staging reused", ref, 128, 64, 4, false, true, false);
        V("64x128 (512 B loads)", ref, 64, 128, 3, false, false, false);
        V("64x128 staging reused", ref, 64, 128, 4, false, true, false);
        V("128x128 staging reused", ref, 128, 128, 2, false, true, false);
        V("diag: 64x64 tiles copied in place, col-major", in, 64, 64, 6, false, false, true);
        V("diag: 128x64 tiles copied in place, col-major", in, 128, 64, 3, false, false, true);
        V("diag: 64x128 tiles copied in place, col-major", in, 64, 128, 3, false, false, true);
      } else if (what == "prefetch") {  // call 2
        V("64x64 (the agent's kernel, padded tile)", ref, 64, 64, 6, false, false, false);
        V("64x64 + L2 prefetch P=1", ref, 64, 64, 6, false, false, false, 1);
        V("64x64 + L2 prefetch P=3", ref, 64, 64, 6, false, false, false, 3);
        V("64x64 + L2 prefetch P=7", ref, 64, 64, 6, false, false, false, 7);
        V("64x64 + L2 prefetch P=3, evict-first st", ref, 64, 64, 6, false, false, false, 3, true);
        V("64x64 + L2 prefetch P=7, evict-first st", ref, 64, 64, 6, false, false, false, 7, true);
        V("64x64 + L2 prefetch P=15, evict-first st", ref, 64, 64, 6, false, false, false, 15, true);
        V("64x64, evict-first st", ref, 64, 64, 6, false, false, false, 0, true);
      } else if (what == "loads") {  // call 10
        const unsigned g = static_cast<unsigned>((dim / 64) * (dim / 64));
        V("64x64 (the agent's kernel, padded tile)", ref, 64, 64, 6, false, false, false);
        report("t64_load: plain loads (= the above)", 6, ref, [&] { t64_load<0><<<g, 256>>>(in, out, dim); });
        report("t64_load: ld.global.L1::no_allocate", 6, ref, [&] { t64_load<1><<<g, 256>>>(in, out, dim); });
        report("t64_load: L2 evict-first policy", 6, ref, [&] { t64_load<2><<<g, 256>>>(in, out, dim); });
        report("t64_load: L2 evict-last policy", 6, ref, [&] { t64_load<3><<<g, 256>>>(in, out, dim); });
        report("t64_load: ld.global.L2::128B", 6, ref, [&] { t64_load<4><<<g, 256>>>(in, out, dim); });
        report("t64_load: ld.global.L1::evict_first", 6, ref, [&] { t64_load<5><<<g, 256>>>(in, out, dim); });
      } else {  // call 3: "pitch"
        for (int64_t p : {dim, dim + 4, dim + 32, dim + 64, dim + 256}) {
          pitch = p;
          naive<<<dim3(dim / 32, dim / 32), dim3(32, 8)>>>(in, ref, dim, pitch);
          V("64x64 (the agent's kernel, padded tile)", ref, 64, 64, 6, false, false, false);
          V("diag: 64x64 tiles copied in place, col-major", in, 64, 64, 6, false, false, true);
        }
      }
      pitch = dim;
      report("copy float4 again", 0, in, copy);
    }
  }
  for (int64_t dim : {37, 131, 5793, 8191, 16383}) {  // calls 4, 6 and 8 (37 and 131 from call 8: edge cases)
    if (what != "odd") break;
    const size_t n = dim * dim, bytes = n * 4;
    Buffers buf(n);
    float *in = buf.in, *out = buf.out, *ref = buf.ref;
    {  // the reference, on the host (naive() assumes dim % 32 == 0)
      std::vector<float> h(n), r(n);
      CK(cudaMemcpy(h.data(), in, bytes, cudaMemcpyDeviceToHost));
      for (int64_t y = 0; y < dim; ++y)
        for (int64_t x = 0; x < dim; ++x) r[x * dim + y] = h[y * dim + x];
      CK(cudaMemcpy(ref, r.data(), bytes, cudaMemcpyHostToDevice));
    }
    const double gb = 2.0 * bytes;
    const int64_t n4 = n / 4;
    auto copy = [&] { copy1<<<(unsigned)((n4 + 255) / 256), 256>>>((const float4*)in, (float4*)out, n4); };
    const double copy_s = timeit(copy, flush, fb);
    printf("dim %6lld %-44s %8.1f us %6.3f TB/s (n / 4 float4; rows not 16 B aligned)\n", (long long)dim,
           "copy float4 (one per thread)", copy_s * 1e6, gb / copy_s / 1e12);
    const unsigned tiles = static_cast<unsigned>((dim + 63) / 64), grid = tiles * tiles;
    auto check = [&](const char* name, auto run) {
      const double s = timeit(run, flush, fb);
      CK(cudaMemset(out, 0xff, bytes));
      run();
      CK(cudaDeviceSynchronize());
      const unsigned long long hb = count_mismatches(out, ref, dim, dim, dim);
      printf("dim %6lld %-44s %8.1f us %6.3f TB/s %6.3f of copy  %s\n", (long long)dim, name, s * 1e6, gb / s / 1e12,
             copy_s / s, hb ? "WRONG" : "ok");
      fflush(stdout);
    };
    for (int pass = 0; pass < 2; ++pass) {
      check("scalar path, agent (before round 7)", [&] { odd_old<<<grid, 256>>>(in, out, dim); });
      check("scalar path, 16 loads in flight, tile[64][65]", [&] { odd_new<false><<<grid, 256>>>(in, out, dim); });
      check("  the same, st.global.cs", [&] { odd_new<true><<<grid, 256>>>(in, out, dim); });
      check("line-aligned stores (call 6)", [&] { odd_lines<false><<<grid, 256>>>(in, out, dim); });
      check("line-aligned loads and stores (call 6)", [&] { odd_lines<true><<<grid, 256>>>(in, out, dim); });
      check("sector-owned stores, 8-row halo (call 8)", [&] { odd_owned<6><<<grid, 256>>>(in, out, dim); });
      check("  the same, 64 registers (call 9)", [&] { odd_owned<4><<<grid, 256>>>(in, out, dim); });
    }
  }
  return 0;
}
