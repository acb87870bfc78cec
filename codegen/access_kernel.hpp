// One warp access (access.hpp's WarpAccess) as a kernel that performs exactly its instructions, and the host
// side of it: the byte offsets every lane uses, what the lanes must have read or written, and the same access
// run on the host. Pure C++: the agent compiles the text with NVRTC, the tests with nvcc where it exists.
//
//   WarpAccess a{tile_layout(64, 64, 64, Swizzle{3, 3, 3}), {64, 64}, kBF16, ldmatrix.x4, matrix_lanes(...)};
//   auto plan = plan_access(a);               // 16 instructions x 32 lanes of shared byte offsets
//   access_kernel_source(*plan) ->
//     extern "C" __global__ void __launch_bounds__(32) layoutscope_access(const int* offsets,
//         const int* source_offsets, const unsigned char* in, unsigned* regs, unsigned char* tile_out) {
//       __shared__ __align__(128) unsigned char tile[8192];
//       ...  // the tile filled from `in` with 4 B stores (counted as op st, not ldsm)
//       for (int i = 0; i < 16; ++i)  // one ldmatrix.sync.aligned.m8n8.x4.shared.b16 per i, nothing else
//       ...  // the fragments to regs[(i * 32 + lane) * 4 + r]
//     }
//
// Launch one block of 32 threads. The measured instruction is the only one of its Nsight Compute op in the
// kernel: loads (LDS, ldmatrix) find the tile filled by STS.32; stores (STS, stmatrix) and cp.async are read
// back with LDS. So ncu's per-op counters (ncu_wavefront_metric(op)) count exactly the access.
// Global accesses (LDG, STG) work on a global buffer instead of the tile (`in` for LDG, `tile_out` for STG,
// tile_bytes long); the offsets reach the lanes through constant memory (kAccessOffsetsSymbol), so the
// measured instruction is the kernel's only global load (LDG) or only global store (STG) and the global
// counters (l1tex__t_sectors/requests_pipe_lsu_mem_global_op_ld/st) count exactly the access.
//
// The text depends on the instruction, the instruction count and the tile size only; the lanes' offsets are
// arguments, so one compiled kernel serves every layout of the same size.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "convert_kernel.hpp"
#include "layoutscope/access.hpp"

namespace layoutscope::codegen {

inline constexpr const char* kAccessKernelName = "layoutscope_access";
inline constexpr int32_t kIdleOffset = -1;
// The shared tile the lab allocates at most (the H200's opt-in limit is larger; the default 48 KiB is enough
// for every tile the engine's examples use).
inline constexpr int64_t kMaxAccessTileBytes = 48 * 1024;
// LDG / STG: the global buffer the lanes address (the host checks every byte of it), and the most
// instructions: their offsets are a __constant__ array named kAccessOffsetsSymbol (64 KiB), which the host
// fills before the launch (cudaLibraryGetGlobal + cudaMemcpy) instead of passing `offsets`.
inline constexpr int64_t kMaxGlobalAccessBytes = int64_t{16} << 20;
inline constexpr int64_t kMaxGlobalInstructions = 64 * 1024 / (4 * kWarpLanes);
inline constexpr const char* kAccessOffsetsSymbol = "layoutscope_offsets";

struct AccessPlan {
  Instruction instr;
  DType dtype = DType::kF32;
  int64_t instructions = 0;
  int64_t tile_bytes = 0;    // shared memory: the highest byte any lane touches, rounded up to 128
  int64_t source_bytes = 0;  // cp.async: the global source (0 otherwise)
  // offsets[i * 32 + l]: the shared byte offset lane l starts at in instruction i, or kIdleOffset.
  std::vector<int32_t> offsets;
  std::vector<int32_t> source_offsets;  // cp.async: the same for the global source; empty otherwise
  int words_per_lane = 0;               // 32-bit registers a lane reads per instruction (loads), 0 for stores
  bool loads() const { return instr.op == Op::kLds || instr.op == Op::kLdmatrix || instr.op == Op::kLdg; }
};

// The lanes' byte offsets through the access's layout (and source, for cp.async). Errors: TMA (not an
// access a warp issues lane by lane), an idle lane in an ldmatrix/stmatrix matrix, a tile
// larger than kMaxAccessTileBytes (a global buffer larger than kMaxGlobalAccessBytes), an offset not aligned
// to the width.
Result<AccessPlan> plan_access(const WarpAccess& access);

KernelSource access_kernel_source(const AccessPlan& plan);

// Sizes of the kernel's two outputs: regs (32-bit words) and tile_out (bytes).
int64_t access_register_words(const AccessPlan& plan);
int64_t access_tile_out_bytes(const AccessPlan& plan);

// The value the kernel stores in register word w of lane l in instruction i (stores), so that the host can
// say what every written byte must hold.
uint32_t stored_word(int64_t instruction, int lane, int word);

// What the kernel produces from `in` (the tile image for loads, the global source for cp.async), worked out
// on the host from the plan's offsets and the PTX fragment layouts: registers for loads, the tile for stores
// and cp.async, with written[b] != 0 for the tile bytes the access defines. This is also the CPU backend's
// run of the access: addresses computed, data moved, nothing counted.
struct AccessRun {
  std::vector<uint32_t> regs;
  std::vector<uint8_t> tile;
  std::vector<uint8_t> written;
};
AccessRun run_access_on_host(const AccessPlan& plan, std::span<const uint8_t> in);

// The first difference between what a run produced and what it must hold, naming instruction, lane and
// register (or the tile byte), or nullopt when all agree.
std::optional<std::string> check_access(const AccessPlan& plan, std::span<const uint8_t> in,
                                        std::span<const uint32_t> regs, std::span<const uint8_t> tile);

}  // namespace layoutscope::codegen
