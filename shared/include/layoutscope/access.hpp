// A warp's memory instructions as a value, and what they cost as Nsight Compute counts it.
//
// A WarpAccess names the tile's layout in memory (logical index -> @m in elements), its logical shape and
// dtype, the instruction, and which logical element each lane starts at in each instruction it issues.
// A lane moves instr.bytes contiguous bytes: the elements first, first+1, ... of one row, or, with
// VectorAxis::kColumn, first, first+row, ... of one column (an SoA float4 load: one field of four records).
//
// Worked example: 64 x ldmatrix.x4 over a 64x64 bf16 tile with 128 B rows (measured on an H200 with
// sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum).
//
//   ldmatrix.x4 runs in 4 phases; in phase k lanes 8k..8k+7 each name one 16 B row of matrix k, and one
//   phase is one 128 B read, so the ideal is 4 wavefronts per instruction.
//   Unswizzled, matrix k is 8 rows of one 16 B column block, 128 B apart: byte 128*r + 16*j lies in banks
//   4j..4j+3 for every row r, so the 8 lanes queue on the same 4 banks: 8 wavefronts a phase, 32 per
//   instruction, 64 * 32 = 2048 in all, 2048 - 64 * 4 = 1792 conflicts.
//   With SWIZZLE_128B (Swizzle<3,3,3> on bf16 offsets) column block j of row r moves to j ^ (r % 8): the 8
//   rows fill all 32 banks, 1 wavefront a phase, 4 per instruction, 256 in all and no conflict.
//
//   const Instruction x4 = parse_instruction("ldmatrix.x4").value();
//   WarpAccess a{parse_layout("S[(64,64):(64,1)]").value(), {64, 64}, DType::kBF16, x4,
//                matrix_lanes({64, 64}, DType::kBF16, x4).value(), std::nullopt};
//   cost(a)->wavefronts    // 16 instructions cover the tile once: 16 * 32 = 512 (conflicts 448)
//
// The shared-memory model (banks, 4 B words, 128 B wavefronts, broadcast) is memory_access.hpp's
// bank_access; the global model (32 B sectors) is its sector_access. This file decides which lanes share
// a wavefront and what an instruction's ideal is.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "layoutscope/dtype.hpp"
#include "layoutscope/layout.hpp"
#include "layoutscope/memory_access.hpp"
#include "layoutscope/result.hpp"

namespace layoutscope {

enum class Op {
  kLdg,       // LDG: global -> registers, 1/2/4/8/16 B per lane
  kStg,       // STG: registers -> global
  kLds,       // LDS: shared -> registers, 1/2/4/8/16 B per lane (1 and 2 B: LDS.U8/U16, a word's part)
  kSts,       // STS: registers -> shared
  kLdmatrix,  // ldmatrix.sync.aligned.m8n8{.x1,.x2,.x4}{.trans}.shared.b16: 16 B rows, 8 lanes a matrix
  kStmatrix,  // stmatrix, the same addressing
  kCpAsync,   // cp.async 4/8/16 B: global -> shared without registers (ncu op ldgsts)
  kTma,       // cp.async.bulk.tensor: a whole tile into shared memory in one swizzle mode
};

enum class Space { kGlobal, kShared };

// The direction of the elements one lane moves: along its row (the default) or down its column.
enum class VectorAxis { kRow, kColumn };

struct Instruction {
  Op op = Op::kLds;
  int bytes = 4;       // per lane; 16 for ldmatrix/stmatrix (one row of 8 b16); the box is the tile for TMA
  int matrices = 1;    // ldmatrix/stmatrix: .x1, .x2, .x4
  bool trans = false;  // ldmatrix/stmatrix .trans: transposes in registers, the addresses are the same
  SwizzleMode tma_mode = SwizzleMode::kNone;  // TMA: none, 32B, 64B or 128B
  friend bool operator==(const Instruction&, const Instruction&) = default;
};

// SASS widths in bits for loads and stores (LDS.128, LDG.E.64, STS.32, LDG.U8), PTX names for the rest:
//   "LDS.128"  "sts.64"  "ldg.8"  "stg.128"  "ldmatrix.x4.trans"  "stmatrix.x2"  "cp.async.16"  "tma.128B"
// PTX qualifiers that do not change the cost are skipped ("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
// "cp.async.cg.shared.global.16", "LDG.E.128"). Case does not matter. Errors give the 1-based column.
Result<Instruction> parse_instruction(std::string_view text);
std::string to_string(const Instruction& instr);  // canonical: "LDS.128", "ldmatrix.x4.trans", "tma.128B"
// Is this instruction in the catalogue (op, width, matrix count and mode consistent)? Error names the field.
std::optional<Error> check_instruction(const Instruction& instr);

Space space(Op op);              // where the layout lives: shared for cp.async and TMA (the destination)
std::string_view ncu_op(Op op);  // suffix of the ncu shared-memory counters: ld st ldsm stsm ldgsts, or ""
int lanes_per_instruction(const Instruction& instr);  // lanes that carry an address: 8 * matrices for ldsm
// The Nsight Compute counters that measure cost()'s wavefronts and conflicts for this op ("" for global and
// TMA): sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum and
// sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum for ldmatrix.
std::string ncu_wavefront_metric(Op op);
std::string ncu_conflict_metric(Op op);

inline constexpr int kWarpLanes = 32;
inline constexpr int kCpAsyncQuarterWarpBytes = 16;  // 16 B copies: 8 lanes a wavefront, like STS.128
inline constexpr int kCpAsyncLineBytes = 128;        // cp.async.ca: one wavefront group per source line
inline constexpr int64_t kIdleLane = -1;
// One access issues at most this many instructions (a 2^21-element tile at 32 lanes x 1 element).
inline constexpr int64_t kMaxInstructions = int64_t{1} << 16;

struct WarpAccess {
  Layout layout;               // the tile in memory: logical index -> @m, in elements
  std::vector<int64_t> shape;  // the logical shape; rows are the last extent
  DType dtype = DType::kF32;
  Instruction instr;
  // lanes[i][l]: the logical index of the first element lane l moves in instruction i, or kIdleLane.
  // Empty for TMA (the instruction moves the whole tile).
  std::vector<std::vector<int64_t>> lanes;
  // cp.async and TMA read global memory too: the source tensor's layout over the same shape (dense
  // row-major when absent).
  std::optional<Layout> source;
  // Which way a lane's elements run in the logical tile; either way they must be adjacent in memory.
  VectorAxis vector = VectorAxis::kRow;
};

struct InstructionCost {
  int wavefronts = 0;        // shared: ..._wavefronts_mem_shared_op_<ncu_op>
  int ideal_wavefronts = 0;  // shared: one per 128 B a conflict-free instruction moves (per ldsm phase)
  int conflicts = 0;         // wavefronts - ideal: ..._bank_conflicts_pipe_lsu_mem_shared_op_<ncu_op>
  int max_ways = 0;          // worst bank over the instruction's wavefront groups
  int64_t sectors = 0;       // global: distinct 32 B sectors
  int requests = 0;          // global: one per instruction that has an active lane
  int64_t bytes = 0;         // bytes the lanes move
};

struct AccessCost {
  std::string ncu_op;                         // ld, st, ldsm, stsm, ldgsts; "" when no shared counter applies
  bool shared_counted = false;                // LSU bank counters apply (false for global and for TMA)
  std::vector<InstructionCost> instructions;  // one per issued instruction (one in all for TMA)
  int64_t wavefronts = 0;
  int64_t ideal_wavefronts = 0;
  int64_t conflicts = 0;
  int max_ways = 0;
  int64_t sectors = 0;
  int64_t requests = 0;
  int64_t bytes = 0;
};

// What the access costs. Errors name the instruction and lane at fault: a lane whose elements run off
// the row, are not contiguous in the layout, or are not aligned to the width.
// Shared wavefront groups: 128 B / width lanes (32, 16, 8) for LDS/STS and for the shared side of
// cp.async, one matrix of 8 lanes for ldmatrix/stmatrix; idle lanes leave their group, an empty group
// costs nothing. TMA writes are not LSU traffic: shared_counted is false and only bytes and the source's
// sectors are given.
//
// cp.async is costed as Nsight Compute's ..._op_ldgsts counters count it, which is not like an STS of the
// same width. Measured on an H200 with CUDA 13.0's ncu (docs/results/h200-access.md: one warp over 64x64
// bf16 tiles, plain, Swizzle<3,3,3> and rows padded to 72 elements, lanes by rows and by columns, the
// source dense row-major with 128 B rows):
//   - cp.async.16 costs quarter-warp wavefront groups, like STS.128: 4 wavefronts for a conflict-free warp.
//     A later H200 run (docs/results/h200-cp-async-ncu.md) counted 256 ldgsts wavefronts for 64 such
//     instructions in every PTX form (.cg with and without src-size, .ca, .cg.L2::128B), and Triton's
//     cp.async.16 copies 4 an instruction (h200-triton-scan.md); the earlier suite's 0 for 16 B copies is not
//     what the counter gives.
//   - cp.async.4 / .8 are issued as cp.async.ca and cost one wavefront group per 128 B line of the global
//     source. By rows (32 x 4 B = one line, 32 x 8 B = two) that is 64 wavefronts for 64 resp. 32
//     instructions, as an STS would take; by columns (each lane in its own source row, so its own line) it
//     is 32 per instruction on every layout, 2048 and 1024, where an STS of the same width on the swizzled
//     or padded tile takes 4. ncu's conflicts are those wavefronts minus one per 128 B moved
//     (1984 = 2048 - 64, 960 = 1024 - 64). So: lanes are grouped by source line (in order of first use),
//     each group's shared destinations are costed with bank_access and the groups added; the ideal stays
//     one per 128 B moved. Where a line's lanes write conflict-free this is the number of lines touched;
//     where they conflict the conflict counts, as measured too: a column-major fp32 tile filled by rows
//     with cp.async.4 (one source line, all 32 lanes in one bank) took 32 a instruction, 1024 for 32
//     (docs/results/h200-access-agent.md).
// `banks` changes the shared-memory model (the chapter's 8-bank toy); the GPU's is the default.
Result<AccessCost> cost(const WarpAccess& access, const BankModel& banks = {});

// ---- which lanes touch which elements ------------------------------------------------------------------

using Lanes = std::vector<std::vector<int64_t>>;

// The tile in row-major order, lanes side by side along a row: instruction i, lane l starts at
// (i * 32 + l) * v, v = bytes / element size (a warp writing rows).
Result<Lanes> row_lanes(const std::vector<int64_t>& shape, DType dtype, const Instruction& instr);
// Lanes down the columns: vector slot s = i * 32 + l starts at row s % rows, column (s / rows) * v (a
// warp reading columns; a 16-row tile puts two columns in one instruction).
Result<Lanes> column_lanes(const std::vector<int64_t>& shape, DType dtype, const Instruction& instr);
// Lanes down the columns of v x v chunks (v = bytes / element size): chunk slot s = g * 32 + l is chunk row
// s % (rows / v), chunk column s / (rows / v), and each lane reads its chunk's v rows in v instructions (the
// g-th group's instructions g * v .. g * v + v - 1, row j of the chunk in instruction g * v + j). A warp that
// transposes 4 x 4 fp32 blocks in registers: on a 64x64 tile with 16 B lanes, lane l starts at row 4 (l %
// 16), column 4 (l / 16).
Result<Lanes> chunk_lanes(const std::vector<int64_t>& shape, DType dtype, const Instruction& instr);
// Lanes in column-major order, each moving v elements down its column (VectorAxis::kColumn): slot
// s = i * 32 + l starts at row (s * v) % rows, column (s * v) / rows. On an (n, 8) tile of records with
// 16 B fp32 lanes, lane l reads rows 4 l .. 4 l + 3 of column 0: field 0 of four records.
Result<Lanes> column_vector_lanes(const std::vector<int64_t>& shape, DType dtype, const Instruction& instr);
// A rectangle of a 2-D tile: `rows` x `cols` elements from (row, col).
struct Window {
  int64_t row = 0, col = 0, rows = 1, cols = 1;
};
// One warp over a window, lanes side by side along its rows, `per` elements a lane: lane l starts at the
// window's element l * per, given as the row-major index into the whole tile (fewer than 32 lanes when the
// window holds fewer accesses). On a (32,64) tile, per 2, the window {0, 8, 32, 8} (a column of 8-element
// cells) gives lanes 8, 10, 12, 14, 72, 74, ...: four lanes a row, eight rows.
Result<std::vector<int64_t>> window_lanes(const std::vector<int64_t>& shape, int64_t per,
                                          const Window& window);
// ldmatrix/stmatrix over the tile, blocks in row-major order. x4: 16x16 blocks, lane l names row l % 16
// of column block l / 16 (the mma A-fragment order); x2: 16x8 blocks, lane l < 16 names row l; x1: 8x8
// blocks, lane l < 8 names row l. Each matrix is 8 consecutive rows of one 16 B column block.
Result<Lanes> matrix_lanes(const std::vector<int64_t>& shape, DType dtype, const Instruction& instr);
// ldmatrix/stmatrix: matrix_lanes; TMA: none; otherwise row_lanes.
Result<Lanes> default_lanes(const std::vector<int64_t>& shape, DType dtype, const Instruction& instr);
// From a thread layout: logical element -> @laneid (0..31), @reg, and any other axes (@warpid ...).
// Registers reg = c*v .. c*v+v-1 of a lane form one access; one instruction per value of the other axes
// and chunk c, in that order. Every (element, replica) is used, so replication is a broadcast.
Result<Lanes> thread_lanes(const Layout& threads, const std::vector<int64_t>& shape, DType dtype,
                           const Instruction& instr);

// A rows x cols tile, row r starting at element r * row_stride (row_stride > cols pads), optionally XOR
// swizzled on element offsets: S[(rows, cols):(row_stride, 1)], built as a value.
Layout tile_layout(int64_t rows, int64_t cols, int64_t row_stride,
                   std::optional<Swizzle> swizzle = std::nullopt);

// The layout TMA writes a rows x cols tile in: panels of the mode's width (128/64/32 B; the whole row
// for none), panel after panel, each row-major with the mode's XOR on element offsets. An error says why
// the mode cannot write this tile (rows not a multiple of 16 B, a partial panel, fewer than 8 rows).
Result<Layout> tma_layout(SwizzleMode mode, DType dtype, const std::vector<int64_t>& shape);

}  // namespace layoutscope
