// Blackwell tensor memory (TMEM) as layouts: the tcgen05.ld / tcgen05.st access atoms, the tcgen05.cp copy
// shapes and the scale factors of block-scaled MMA, each as layout values in the chapter's notation.
//
// TMEM is 128 lanes x 512 columns of 32 bit per CTA. Warp w of a warpgroup reaches only the 32-lane slab
// 32*(w%4) .. 32*(w%4)+31 (PTX ISA, "Tensor Memory" / "Access restrictions"). Every atom below is a pair of
// layouts over one logical footprint (TMEM lanes x 32-bit columns touched, relative to the address):
//
//   tcgen05.ld.sync.aligned.16x128b.x1.b32, lane 32, column 8, issued by warp 1
//   logical (16, 4)  (row r = lane - 32, col c = column - 8)
//   threads: S[(2,8,1,4):(1@reg,4@laneid,2@reg,1@laneid)] + O[1@warpid]
//   tmem:    S[(16,4):(1@TLane,1@TCol)] + O[32@TLane + 8@TCol]
//   element (9, 2): x = 38 -> threads (1,1,0,2) -> laneid 4*1 + 2 = 6, reg 1; tmem TLane 41, TCol 10
//   i.e. thread 6 of warp 1 holds TMEM (41, 10) in its second register, as PTX's 16x128b fragment figure
//   shows (thread t: lanes t/4 and t/4 + 8, column t%4).
//
// The five tcgen05.ld/st shapes (PTX ISA, "Matrix fragments for tcgen05.ld and tcgen05.st"), for .num = xN:
//   32x32b    32 lanes x N columns     thread t: lane t, reg j -> column j
//   16x64b    16 lanes x 2N columns    thread t: lane t/4 + 8*(t%2), column 2j + (t/2)%2
//   16x128b   16 lanes x 4N columns    thread t: lane t/4 + 8*(reg%2), column 4*(reg/2) + t%4
//   16x256b   16 lanes x 8N columns    thread t: lane t/4 + 8*((reg/2)%2), column 8*(reg/4) + 2*(t%4) + reg%2
//   16x32bx2  2 halves of 16 lanes x N columns, the second half at column + immHalfSplitoff:
//             thread t: lane t%16, column j + (t/16)*split
// .num goes x1, x2, x4 ... up to 128 registers per thread: x128 for 32x32b, 16x64b, 16x32bx2, x64 for
// 16x128b, x32 for 16x256b.
//
// tcgen05.cp (PTX ISA, "tcgen05.cp"): a shared-memory matrix, rows of 128 or 256 bit described by a matrix
// descriptor (umma_descriptor.hpp), lands in TMEM; the .warpx2/.warpx4 forms copy it to several slabs:
//   128x256b  row r -> lane r, 8 columns          4x256b   row r -> lane 32r, 8 columns
//   128x128b  row r -> lane r, 4 columns          32x128b.warpx4  row r -> lanes r + 32w, w = 0..3
//   64x128b.warpx2::02_13  row r -> lanes r, r + 64
//   64x128b.warpx2::01_23  row r -> lanes 64*(r/32) + r%32 and that + 32
//
// Block-scaled MMA scale factors (PTX ISA, "Block scaling", the scale-factor layout figures; CUTLASS's
// Sm1xxBlockScaledConfig chunks the same way): the logical (M, K/vec) scale matrix is cut into 128 x 4 atoms.
// An atom is 512 contiguous bytes of shared memory, row m%32 of 16 bytes holding the four M groups of 32
// rows x 4 scales, and one tcgen05.cp.32x128b.warpx4 copies it to 4 TMEM columns of all four slabs:
//   SFA[m, k] (M = 128, 4 scales): smem byte (m%32)*16 + (m/32)*4 + k,
//   TMEM S[(4,32,4):(1@TCol,1@TLane,1@byte)] + R[4:32@TLane]
//   SFA[64, 2] -> byte 10; (TLane, TCol, byte) (0,2,2) (32,2,2) (64,2,2) (96,2,2)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "layoutscope/layout.hpp"
#include "layoutscope/result.hpp"

namespace layoutscope {

inline constexpr int64_t kTmemLanes = 128;
inline constexpr int64_t kTmemColumns = 512;
inline constexpr int64_t kTmemSlabLanes = 32;

// Why `columns` cannot be a tcgen05.alloc size, or nothing: a power of two from 32 to 512 (PTX ISA,
// "Tensor Memory Allocation"). The error names `field` and the rule "allocation granularity".
std::optional<Error> check_tmem_allocation(int64_t columns, std::string_view field = "allocated_columns");

// ---- tcgen05.ld / tcgen05.st ------------------------------------------------------------------------------

enum class TmemAccessShape { k32x32b, k16x64b, k16x128b, k16x256b, k16x32bx2 };

Result<TmemAccessShape> parse_tmem_access_shape(std::string_view text);  // "32x32b", ".16x64b"
std::string_view to_string(TmemAccessShape shape);                       // "32x32b"
const std::vector<TmemAccessShape>& tmem_access_shapes();
int64_t tmem_access_lanes(TmemAccessShape shape);             // 32 or 16
int64_t tmem_access_registers_per_repeat(TmemAccessShape s);  // 1, 1, 2, 4, 1
int64_t tmem_access_max_num(TmemAccessShape shape);           // 128, 128, 64, 32, 128

struct TmemAccess {
  TmemAccessShape shape = TmemAccessShape::k32x32b;
  int64_t num = 1;          // .x1 ... .x128
  bool store = false;       // tcgen05.st instead of tcgen05.ld
  int64_t lane = 0;         // TMEM lane of the address (taddr[31:16])
  int64_t column = 0;       // TMEM column of the address (taddr[15:0])
  int64_t half_split = -1;  // 16x32bx2's immHalfSplitoff in columns; -1: num (halves side by side)
  int64_t warp = -1;        // the issuing warp of the CTA; -1: the warp of the lane's slab in warpgroup 0
  int64_t allocated_columns = 0;  // the tcgen05.alloc size the address lies in (from column 0); 0: unchecked
};

struct TmemAccessLayouts {
  std::string instruction;     // "tcgen05.ld.sync.aligned.16x128b.x1.b32"
  std::vector<int64_t> shape;  // logical footprint: (lanes, columns); 16x32bx2: (16, 2*num)
  int64_t registers = 0;       // 32-bit registers per thread
  int64_t warp = 0;            // the issuing warp
  int64_t slab = 0;            // lane / 32: the warps that may issue it are those with warp % 4 == slab
  int64_t lane_begin = 0, lane_end = 0;      // TMEM lanes touched, half-open
  int64_t column_begin = 0, column_end = 0;  // TMEM columns touched, half-open (16x32bx2: both halves)
  Layout threads;                            // logical -> (laneid, reg) + O[warp@warpid]
  Layout tmem;                               // logical -> (TLane, TCol)
};

// The layouts, or the rule the access breaks: "range" (num, lane, column), "slab" (lanes outside one 32-lane
// slab, or a warp that may not reach them), "allocation granularity", "tmem range" (columns past 512 or the
// allocation).
Result<TmemAccessLayouts> tmem_access_layouts(const TmemAccess& access);

// One element of the footprint: who holds it and where it is in TMEM.
struct TmemAccessCell {
  int64_t row = 0, col = 0;  // logical
  int64_t laneid = 0, reg = 0;
  int64_t tlane = 0, tcol = 0;
};
// Every element, row-major over the logical shape: both layouts evaluated by the mapper (mapping.hpp).
Result<std::vector<TmemAccessCell>> tmem_access_cells(const TmemAccessLayouts& layouts);

// ---- tcgen05.cp
// ---------------------------------------------------------------------------------------------

enum class TmemCopyShape {
  k128x256b,
  k4x256b,
  k128x128b,
  k64x128bWarpx2_02_13,
  k64x128bWarpx2_01_23,
  k32x128bWarpx4
};

Result<TmemCopyShape> parse_tmem_copy_shape(
    std::string_view text);  // "128x256b", "64x128b.warpx2::02_13", ...
std::string_view to_string(TmemCopyShape shape);
const std::vector<TmemCopyShape>& tmem_copy_shapes();

struct TmemCopy {
  TmemCopyShape shape = TmemCopyShape::k128x256b;
  int64_t lane = 0;    // TMEM lane of the destination address
  int64_t column = 0;  // TMEM column of the destination address; 128-bit aligned (a multiple of 4)
  int64_t allocated_columns = 0;
};

struct TmemCopyLayouts {
  std::string instruction;     // "tcgen05.cp.cta_group::1.32x128b.warpx4"
  std::vector<int64_t> shape;  // (rows, 32-bit words of a row)
  int64_t row_bytes = 0;       // 16 or 32
  int64_t replicas = 1;        // slabs each row is copied to
  Layout tmem;                 // (row, word) -> (TLane, TCol), R[...] for the copies
};

// Errors: "range", "alignment" (column not 128-bit aligned, lane not allowed for the shape), "tmem range",
// "allocation granularity".
Result<TmemCopyLayouts> tmem_copy_layouts(const TmemCopy& copy);

// ---- block-scaled MMA scale factors
// -------------------------------------------------------------------------

enum class BlockScaleKind { kMxf8f6f4, kMxf4, kMxf4Nvf4 };
Result<BlockScaleKind> parse_block_scale_kind(std::string_view text);  // "mxf8f6f4", "mxf4", "mxf4nvf4"
std::string_view to_string(BlockScaleKind kind);

struct ScaleFactorSpec {
  BlockScaleKind kind = BlockScaleKind::kMxf8f6f4;
  int64_t vec = 32;    // elements of K per scale: 32 (mxf8f6f4, mxf4, mxf4nvf4 .scale_vec::2X), 16 (nvf4, 4X)
  int64_t m = 128;     // rows of A (SFA) or columns of B (SFB): a multiple of 128
  int64_t k = 128;     // K in elements: a multiple of 4 * vec (one 128 x 4 atom)
  int64_t column = 0;  // TMEM column the first atom is copied to (a multiple of 4)
};

struct ScaleFactorLayouts {
  std::vector<int64_t> shape;        // (m, k / vec): the logical scale matrix
  int64_t atoms_m = 1, atoms_k = 1;  // 128 x 4 atoms
  int64_t mma_k = 32;                // K of one MMA: 32 for mxf8f6f4, 64 for mxf4 / mxf4nvf4
  int64_t scales_per_mma = 1;  // scales of a row one MMA reads: mma_k / vec (1, 2 or 4: scale_vec::1X/2X/4X)
  int64_t bytes = 0;           // shared memory bytes of the whole scale matrix
  int64_t columns = 0;         // TMEM columns the atoms fill
  Layout smem;                 // (m, k) -> byte @m of shared memory, from the first atom
  Layout tmem;                 // (m, k) -> (TLane, TCol, byte), R[4:32@TLane] for .warpx4
  std::string copy;            // the instruction each atom moves with
};

Result<ScaleFactorLayouts> scale_factor_layouts(const ScaleFactorSpec& spec);

// Where one scale factor goes, step by step.
struct ScaleFactorTrace {
  int64_t m = 0, k = 0;   // logical
  int64_t atom = 0;       // the 128 x 4 atom (and the tcgen05.cp that copies it), atom_m * atoms_k + atom_k
  int64_t smem_byte = 0;  // byte in shared memory
  int64_t copy_row = 0;   // row of that copy (0..31) and byte within its 16 B row
  int64_t copy_byte = 0;
  std::vector<int64_t> tlanes;  // the four lanes .warpx4 puts it in
  int64_t tcol = 0, byte = 0;
  int64_t mma = 0;    // which MMA along K reads it (0-based)
  int64_t sf_id = 0;  // that MMA's scale-factor id (instruction descriptor SFA/SFB id: byte of the column)
  int64_t mma_column = 0;  // the TMEM column that MMA's scale-factor address names
};
Result<ScaleFactorTrace> trace_scale_factor(const ScaleFactorSpec& spec, int64_t m, int64_t k);

}  // namespace layoutscope
