// Tiles loaded by the Tensor Memory Accelerator, read back by a warp, checked against the engine.
//
// For each swizzle mode (none, 32B, 64B, 128B) and element size (fp8, bf16, fp32) a 64-row tile whose rows
// are one swizzle span wide (128B: 128 fp8 / 64 bf16 / 32 fp32 per row; none: 128 B rows) is loaded from a
// dense global tensor with one cp.async.bulk.tensor.2d (a CUtensorMap from cuTensorMapEncodeTiled, found
// through cudaGetDriverEntryPointByVersion: no -lcuda), plus a two-panel tile in 128B mode (two loads, the
// second panel after the first, as the engine's tma_layout lays panels). The kernel then
//   - writes the raw shared-memory image back to global memory with a cp.async.bulk store (no LSU traffic):
//     every element must sit at the byte the engine's tma_layout gives it;
//   - reads the tile with one warp access: LDS.128 by rows, LDS.32 by columns, or ldmatrix.x4 / .x4.trans
//     (b16), at the shared offsets the engine's plan gives; the registers must hold what the PTX fragment
//     layouts say those offsets hold (access_kernel.hpp's host run over the engine's image).
// One JSON line per launch, in launch order, with the engine's predicted wavefronts (cost() of the
// WarpAccess over tma_layout) and the Nsight Compute counter that measures them, so the ncu rows of kernel
// layoutscope_tma pair with the lines one to one (tma_lab.sh).
//
//   tma_lab                 the sweep (exit 2 if any case read or landed wrong)
//   tma_lab --metrics       the ncu metric names the sweep's instructions use, comma-separated
//   tma_lab --ceiling [MiB] the copy ceilings at MiB (default 256): cudaMemcpy, the agent's copy_vec4 and
//                           copy_tma (agent/backends/cuda/cuda_kernels.cu) and copy_tma at other chunk sizes
//                           and depths, each verified exactly and timed interleaved; one JSON line per copy
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "access_kernel.hpp"
#include "backends/cuda/cuda_kernels.hpp"
#include "lab_check.hpp"
#include "layoutscope/access.hpp"
#include "layoutscope/memory_access.hpp"
#include "layoutscope/parse.hpp"

using namespace layoutscope;

namespace {

enum Read : int { kRows128 = 0, kColumns32 = 1, kLdmatrix = 2, kLdmatrixTrans = 3, kNothing = 4 };
constexpr int kMaxTileBytes = 16 * 1024;  // 64 rows x 2 panels x 128 B

// One TMA tile load, one warp access over it, the shared image out. Launch 1 block of 32 threads.
__global__ void __launch_bounds__(32)
    layoutscope_tma(const __grid_constant__ CUtensorMap map, int panels, int box_cols, int panel_bytes,
                    int read, const int* offsets, int instructions, int words, unsigned* regs,
                    unsigned char* image) {
  // 1024 B alignment: the swizzle pattern repeats every 8 x 128 B and TMA applies it to address bits.
  __shared__ __align__(1024) unsigned char tile[kMaxTileBytes];
  __shared__ __align__(8) unsigned long long full;
  const unsigned lane = threadIdx.x;
  const auto tile_s = static_cast<unsigned>(__cvta_generic_to_shared(tile));
  const auto bar = static_cast<unsigned>(__cvta_generic_to_shared(&full));
  if (lane == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncwarp();
  if (lane == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar),
                 "r"(panels * panel_bytes)
                 : "memory");
    for (int p = 0; p < panels; ++p)
      asm volatile(
          "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], "
          "[%4];" ::"r"(tile_s + p * panel_bytes),
          "l"(&map), "r"(p * box_cols), "r"(0), "r"(bar)
          : "memory");
  }
  unsigned ready = 0;
  while (!ready)
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
        : "=r"(ready)
        : "r"(bar)
        : "memory");
  for (int i = 0; i < instructions; ++i) {
    const int off = offsets[i * 32 + lane];
    unsigned* r = regs + (static_cast<size_t>(i) * 32 + lane) * words;
    const unsigned a = tile_s + static_cast<unsigned>(off);
    if (read == kRows128) {
      if (off < 0) continue;
      asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                   : "r"(a));
    } else if (read == kColumns32) {
      if (off < 0) continue;
      asm volatile("ld.shared.b32 %0, [%1];" : "=r"(r[0]) : "r"(a));
    } else if (read == kLdmatrix) {
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                   : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                   : "r"(a));
    } else {
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                   : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                   : "r"(a));
    }
  }
  // The image leaves through the bulk-copy unit, which reads shared memory without LSU wavefronts.
  if (lane == 0) {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(image), "r"(tile_s),
                 "r"(panels * panel_bytes)
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}

using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                 const cuuint64_t*, const cuuint32_t*, const cuuint32_t*,
                                 CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion,
                                 CUtensorMapFloatOOBfill);

EncodeTiled encode_tiled() {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q{};
  CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q));
  if (q != cudaDriverEntryPointSuccess || !fn) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled not found in the driver\n");
    std::exit(1);
  }
  return reinterpret_cast<EncodeTiled>(fn);
}

struct Mode {
  SwizzleMode mode;
  const char* name;
  CUtensorMapSwizzle cu;
  int span;  // bytes of one box row
};
constexpr Mode kModes[] = {{SwizzleMode::kNone, "none", CU_TENSOR_MAP_SWIZZLE_NONE, 128},
                           {SwizzleMode::k32B, "32B", CU_TENSOR_MAP_SWIZZLE_32B, 32},
                           {SwizzleMode::k64B, "64B", CU_TENSOR_MAP_SWIZZLE_64B, 64},
                           {SwizzleMode::k128B, "128B", CU_TENSOR_MAP_SWIZZLE_128B, 128}};

struct Type {
  DType dtype;
  CUtensorMapDataType cu;
};
constexpr Type kTypes[] = {{DType::kF8, CU_TENSOR_MAP_DATA_TYPE_UINT8},
                           {DType::kBF16, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16},
                           {DType::kF32, CU_TENSOR_MAP_DATA_TYPE_FLOAT32}};

struct Pattern {
  const char* name;
  const char* instr;
  const char* lanes;
  Read read;
};
constexpr Pattern kPatterns[] = {{"rows", "LDS.128", "rows", kRows128},
                                 {"columns", "LDS.32", "columns", kColumns32},
                                 {"ldmatrix", "ldmatrix.x4", "matrices", kLdmatrix},
                                 {"ldmatrix.trans", "ldmatrix.x4.trans", "matrices", kLdmatrixTrans}};

// Byte b of element e of the global tensor: a hash, so that an element landing anywhere but its own place
// shows (an fp8 tile repeats values, but a wrong mapping cannot match on all of them).
uint8_t global_byte(int64_t e, int b) {
  uint64_t x =
      static_cast<uint64_t>(e) * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(b) * 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  x *= 0x94D049BB133111EBull;
  return static_cast<uint8_t>(x >> 40);
}

struct Case {
  const Mode* mode;
  const Type* type;
  const Pattern* pattern;
  int panels;
  // A control: the engine is asked for this mode's layout while the hardware loads in `mode`, so the check
  // must fail (it shows the check can).
  const Mode* claimed = nullptr;
};

std::vector<Case> sweep() {
  std::vector<Case> out;
  for (const Type& t : kTypes)
    for (const Mode& m : kModes)
      for (const Pattern& p : kPatterns)
        if (p.read == kRows128 || p.read == kColumns32 || t.dtype == DType::kBF16)
          out.push_back({&m, &t, &p, 1});
  // The load alone, no read: what the counters see of the TMA load, the mbarrier wait and the image store.
  static constexpr Pattern kBaseline[] = {{"nothing (ld counter)", "LDS.128", "rows", kNothing},
                                          {"nothing (ldsm counter)", "ldmatrix.x4", "matrices", kNothing}};
  for (const Pattern& p : kBaseline) out.insert(out.begin(), {&kModes[3], &kTypes[1], &p, 1});
  // The control: a 128B load checked against the unswizzled layout.
  out.push_back({&kModes[3], &kTypes[1], &kPatterns[0], 1, &kModes[0]});
  // Two 128B panels side by side (a 64 x 256 B tile): the engine's panel order against two TMA loads.
  for (const Type& t : kTypes)
    for (const Pattern& p : kPatterns)
      if (p.read == kRows128 || p.read == kColumns32 || t.dtype == DType::kBF16)
        out.push_back({&kModes[3], &t, &p, 2});
  return out;
}

constexpr int64_t kRows = 64;

// Runs one case; prints its JSON line. Returns false when the image or the registers are wrong.
bool run_case(const Case& c, EncodeTiled encode, bool dry) {
  const int eb = dtype_bytes(c.type->dtype);
  const int64_t box_cols = c.mode->span / eb;
  const int64_t cols = box_cols * c.panels;
  const std::vector<int64_t> shape{kRows, cols};
  const int64_t n = kRows * cols;
  auto layout = tma_layout((c.claimed ? c.claimed : c.mode)->mode, c.type->dtype, shape);
  const Instruction instr = parse_instruction(c.pattern->instr).value();
  auto lanes = std::string(c.pattern->lanes) == "columns" ? column_lanes(shape, c.type->dtype, instr)
                                                          : default_lanes(shape, c.type->dtype, instr);
  if (!layout || !lanes) {
    std::fprintf(stderr, "tma %s %s %s: %s\n", c.mode->name, std::string(to_string(c.type->dtype)).c_str(),
                 c.pattern->instr, (!layout ? layout.error() : lanes.error()).message.c_str());
    return false;
  }
  const WarpAccess access{*layout, shape, c.type->dtype, instr, *lanes, std::nullopt};
  auto predicted = cost(access);
  auto plan = codegen::plan_access(access);
  if (!predicted || !plan) {
    std::fprintf(stderr, "tma %s %s: %s\n", c.mode->name, c.pattern->instr,
                 (!predicted ? predicted.error() : plan.error()).message.c_str());
    return false;
  }
  AccessCost pred = *predicted;
  codegen::AccessPlan pl = *plan;

  const bool nothing = c.pattern->read == kNothing;
  if (nothing) {
    pred.wavefronts = pred.ideal_wavefronts = 0;
    pl.instructions = 0;
  }
  // The global tensor and the image the engine says TMA makes of it: element e at byte address(e).
  std::vector<uint8_t> global(static_cast<size_t>(n * eb));
  for (int64_t e = 0; e < n; ++e)
    for (int b = 0; b < eb; ++b) global[static_cast<size_t>(e * eb + b)] = global_byte(e, b);
  // Byte address of every element, through the engine (which takes at most 1024 indices a call).
  std::vector<int64_t> address;
  for (int64_t first = 0; first < n; first += 1024) {
    std::vector<int64_t> some(static_cast<size_t>(std::min<int64_t>(1024, n - first)));
    std::iota(some.begin(), some.end(), first);
    auto a = lane_addresses(*layout, shape, some, eb);
    if (!a) {
      std::fprintf(stderr, "lane_addresses: %s\n", a.error().message.c_str());
      return false;
    }
    address.insert(address.end(), a->begin(), a->end());
  }
  const std::vector<int64_t>* addr = &address;
  const int64_t tile_bytes = n * eb;
  std::vector<uint8_t> expected(static_cast<size_t>(std::max(tile_bytes, pl.tile_bytes)), 0);
  for (int64_t e = 0; e < n; ++e)
    for (int b = 0; b < eb; ++b)
      expected[static_cast<size_t>((*addr)[static_cast<size_t>(e)] + b)] =
          global[static_cast<size_t>(e * eb + b)];

  std::string wrong;
  if (!dry) {
    uint8_t* d_global = upload(global);
    CUtensorMap map{};
    const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(kRows)};
    const cuuint64_t strides[1] = {static_cast<cuuint64_t>(cols * eb)};
    const cuuint32_t box[2] = {static_cast<cuuint32_t>(box_cols), static_cast<cuuint32_t>(kRows)};
    const cuuint32_t estrides[2] = {1, 1};
    const CUresult r =
        encode(&map, c.type->cu, 2, d_global, dims, strides, box, estrides, CU_TENSOR_MAP_INTERLEAVE_NONE,
               c.mode->cu, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
      std::fprintf(stderr, "cuTensorMapEncodeTiled(%s, %s): CUresult %d\n", c.mode->name,
                   std::string(to_string(c.type->dtype)).c_str(), static_cast<int>(r));
      std::exit(1);
    }
    int* d_off = upload(pl.offsets);
    std::vector<uint32_t> regs(static_cast<size_t>(codegen::access_register_words(pl)));
    std::vector<uint8_t> image(static_cast<size_t>(tile_bytes));
    uint32_t* d_regs = upload(regs);
    uint8_t* d_image = upload(image);
    const int panel_bytes = static_cast<int>(kRows * c.mode->span);
    layoutscope_tma<<<1, 32>>>(map, c.panels, static_cast<int>(box_cols), panel_bytes, c.pattern->read, d_off,
                               static_cast<int>(pl.instructions), pl.words_per_lane, d_regs, d_image);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(regs.data(), d_regs, regs.size() * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(image.data(), d_image, image.size(), cudaMemcpyDeviceToHost));
    for (void* p : {static_cast<void*>(d_global), static_cast<void*>(d_off), static_cast<void*>(d_regs),
                    static_cast<void*>(d_image)})
      CHECK(cudaFree(p));
    // Every element where tma_layout puts it.
    int64_t bad = 0;
    for (int64_t e = 0; e < n; ++e) {
      const int64_t a = (*addr)[static_cast<size_t>(e)];
      if (std::memcmp(&image[static_cast<size_t>(a)], &global[static_cast<size_t>(e * eb)], eb) != 0) {
        if (bad++ == 0) {
          // Where did the element really land? The first byte offset holding its bytes.
          int64_t found = -1;
          for (int64_t b = 0; b + eb <= tile_bytes && found < 0; b += eb)
            if (std::memcmp(&image[static_cast<size_t>(b)], &global[static_cast<size_t>(e * eb)], eb) == 0)
              found = b;
          wrong = "element (" + std::to_string(e / cols) + ", " + std::to_string(e % cols) +
                  ") not at byte " + std::to_string(a) + " (tma_layout); first match at byte " +
                  std::to_string(found);
        }
      }
    }
    if (bad) wrong += "; " + std::to_string(bad) + " of " + std::to_string(n) + " elements misplaced";
    // The registers: what the PTX fragment layouts read at the plan's offsets of the engine's image.
    if (wrong.empty() && !nothing) {
      auto r2 = codegen::check_access(pl, expected, regs, {});
      if (r2) wrong = "registers: " + *r2;
    }
  }
  std::printf(
      "{\"mode\":\"%s\",\"dtype\":\"%s\",\"shape\":[%lld,%lld],\"panels\":%d,\"read\":\"%s\",\"instr\":\"%"
      "s\","
      "\"layout\":\"%s\",\"instructions\":%lld,\"wavefront_metric\":\"%s\",\"predicted_wavefronts\":%lld,"
      "\"predicted_ideal\":%lld,\"predicted_per_instruction\":%.4g,\"control\":%s,\"verified\":%s,\"error\":"
      "\"%s\"}\n",
      c.mode->name, std::string(to_string(c.type->dtype)).c_str(), static_cast<long long>(kRows),
      static_cast<long long>(cols), c.panels, c.pattern->name, to_string(instr).c_str(),
      json_escape(to_string(*layout)).c_str(), static_cast<long long>(pl.instructions),
      ncu_wavefront_metric(instr.op).c_str(), static_cast<long long>(pred.wavefronts),
      static_cast<long long>(pred.ideal_wavefronts),
      nothing ? 0.0 : static_cast<double>(pred.wavefronts) / static_cast<double>(pl.instructions),
      c.claimed ? "true" : "false",
      dry             ? "null"
      : wrong.empty() ? "true"
                      : "false",
      json_escape(wrong).c_str());
  std::fflush(stdout);
  return dry || wrong.empty() != (c.claimed != nullptr);
}

// ---- the copy ceilings ----------------------------------------------------------------------------------

struct Copy {
  std::string name;
  int chunk = 0, per_block = 0;  // copy_tma only
};

void launch_copy(const Copy& c, const float* in, float* out, int64_t count) {
  if (c.name == "memcpy")
    CHECK(cudaMemcpyAsync(out, in, static_cast<size_t>(count) * 4, cudaMemcpyDeviceToDevice, nullptr));
  else if (c.name == "copy_vec4")
    CHECK(agent::cuda::copy_vec4(in, out, count, nullptr));
  else
    CHECK(agent::cuda::copy_tma(in, out, count, nullptr, c.chunk, c.per_block));
}

int ceiling(int64_t mib) {
  const int64_t count = mib * 1024 * 1024 / 4;
  const size_t bytes = static_cast<size_t>(count) * 4;
  std::vector<Copy> copies{{"memcpy"},
                           {"copy_vec4"},
                           {"copy_tma", agent::cuda::kCopyTmaChunkBytes, agent::cuda::kCopyTmaPerBlock}};
  for (int chunk : {2048, 4096, 8192, 16384})
    for (int per_block : {2, 4, 8, 16})
      if (chunk * per_block <= 64 * 1024 &&
          !(chunk == agent::cuda::kCopyTmaChunkBytes && per_block == agent::cuda::kCopyTmaPerBlock))
        copies.push_back({"copy_tma", chunk, per_block});
  float *in = nullptr, *out = nullptr;
  CHECK(cudaMalloc(&in, bytes));
  CHECK(cudaMalloc(&out, bytes));
  CHECK(agent::cuda::fill_linear(in, count, 7, nullptr));
  std::vector<float> h_in(static_cast<size_t>(count)), h_out(static_cast<size_t>(count));
  CHECK(cudaMemcpy(h_in.data(), in, bytes, cudaMemcpyDeviceToHost));
  std::vector<bool> ok(copies.size());
  for (size_t k = 0; k < copies.size(); ++k) {
    CHECK(cudaMemset(out, 0xff, bytes));
    launch_copy(copies[k], in, out, count);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h_out.data(), out, bytes, cudaMemcpyDeviceToHost));
    ok[k] = std::memcmp(h_in.data(), h_out.data(), bytes) == 0;
  }
  // Interleaved: round r times every copy once, so clock or thermal drift hits all alike.
  constexpr int kRounds = 40;
  std::vector<std::vector<float>> ms(copies.size());
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int r = 0; r < kRounds; ++r)
    for (size_t k = 0; k < copies.size(); ++k) {
      CHECK(cudaEventRecord(a));
      launch_copy(copies[k], in, out, count);
      CHECK(cudaEventRecord(b));
      CHECK(cudaEventSynchronize(b));
      float t = 0;
      CHECK(cudaEventElapsedTime(&t, a, b));
      if (r > 0) ms[k].push_back(t);  // round 0 warms up
    }
  double vec4_gbps = 0;
  std::vector<double> gbps(copies.size());
  for (size_t k = 0; k < copies.size(); ++k) {
    std::sort(ms[k].begin(), ms[k].end());
    const double med = ms[k][ms[k].size() / 2];
    gbps[k] = 2.0 * static_cast<double>(bytes) / (med * 1e-3) / 1e9;
    if (copies[k].name == "copy_vec4") vec4_gbps = gbps[k];
  }
  int failures = 0;
  for (size_t k = 0; k < copies.size(); ++k) {
    failures += !ok[k];
    std::printf(
        "{\"copy\":\"%s\",\"chunk_bytes\":%d,\"per_block\":%d,\"agent_default\":%s,\"mib\":%lld,\"median_"
        "ms\":%."
        "4f,"
        "\"min_ms\":%.4f,\"max_ms\":%.4f,\"gb_per_s\":%.1f,\"x_copy_vec4\":%.4f,\"verified\":%s}\n",
        copies[k].name.c_str(), copies[k].chunk, copies[k].per_block, k == 2 ? "true" : "false",
        static_cast<long long>(mib), ms[k][ms[k].size() / 2], ms[k].front(), ms[k].back(), gbps[k],
        gbps[k] / vec4_gbps, ok[k] ? "true" : "false");
  }
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  return failures == 0 ? 0 : 2;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<Case> cases = sweep();
  if (argc > 1 && std::strcmp(argv[1], "--metrics") == 0) {
    std::set<std::string> m;
    for (const Case& c : cases) m.insert(ncu_wavefront_metric(parse_instruction(c.pattern->instr)->op));
    std::string out;
    for (const std::string& s : m) out += (out.empty() ? "" : ",") + s;
    std::printf("%s\n", out.c_str());
    return 0;
  }
  if (argc > 1 && std::strcmp(argv[1], "--ceiling") == 0)
    return ceiling(argc > 2 ? std::atoll(argv[2]) : 256);
  const bool dry = argc > 1 && std::strcmp(argv[1], "--dry-run") == 0;
  const EncodeTiled encode = dry ? nullptr : encode_tiled();
  int failures = 0;
  for (const Case& c : cases) failures += !run_case(c, encode, dry);
  return failures == 0 ? 0 : 2;
}
