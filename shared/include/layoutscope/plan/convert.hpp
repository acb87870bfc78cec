// Any layout to any layout: the plan of one conversion kernel, as a value that can be printed, tested and
// run.
//
// A conversion moves every logical element x from src(x) to dst(x): out[dst(x)] = in[src(x)]. Both layouts
// are split over the common refinement of their modes (the finest split of the logical index that both are
// strided on), the pieces are put in destination order, and adjacent pieces that are contiguous on both sides
// fuse:
//
//   fp32 4096x4096 transpose: src S[(4096,4096):(4096,1)], dst S[(4096,4096):(1,4096)]
//     modes in destination order (extent: src stride, dst stride): (4096: 1, 4096) (4096: 4096, 1)
//     the innermost destination mode is not contiguous in the source: a tiled plan. The tile spans the
//     destination-contiguous mode (a) and the source-contiguous mode (b), 64 x 64 elements; a thread loads
//     4 rows of 16 B along b, transposes the 4x4 block in registers and stores 16 B rows along a into a
//     shared tile whose 16 B chunks are XOR-swizzled by row, then the tile leaves in 16 B rows along a.
//
//   bf16 BSHD -> BHSD (16,4096,32,32) perm (0,2,1,3): modes (16: 4194304, 4194304) (32: 32, 131072)
//     (4096: 1024, 32) (32: 1, 1): the innermost 32 elements (64 B) are contiguous on both sides (CuTe's
//     max_common_vector): a vector plan, 16 B per lane, no shared memory.
//
//   u8 (1024,64,128,32) perm (1,2,0,3): modes (64: 4096, 4194304) (128: 32, 32768) (1024: 262144, 32)
//     (32: 1, 1): a shared run of 32 B is one sector per lane pair, but the next destination run is 256 KiB
//     away in the source, so a warp of 16 B lanes would touch 16 cache lines for 512 B. The run moves as one
//     32 B unit through a 32 x 32 unit tile instead, each unit carried by two neighbouring lanes (16 B each):
//     1 KiB source rows in, 1 KiB destination rows out, the 32 B units XORed across rows.
//
//   u8 (8,128,64,16,8,32) perm (1,0,2,4,5,3): modes (128: 262144, 2097152) (8: 33554432, 262144)
//     (64: 4096, 4096) (256: 1, 16) (16: 256, 1): the destination's run is 16 B and the next destination mode
//     is the source-contiguous one, so group a folds the destination's next mode (64) in: a = 16 x 64 units,
//     b = 256, a 256 x 128 B tile staged as 16 slabs of 128 rows of 16 B (the destination's order): loads of
//     128 B source rows, stores of 2 KiB destination runs, the 16 B chunks XORed across rows.
//
//   u8 NCHW -> NHWC (64,3,224,224) perm (0,2,3,1): modes (64: 150528, 150528) (50176: 1, 3) (3: 50176, 1):
//     the destination's run is the 3 channels, too short for a tile row. An interleave plan instead: a
//     thread reads 16 B of each of the 3 planes, interleaves the 48 bytes in registers (byte permutes), puts
//     them in its warp's part of shared memory and the warp writes its 1536 contiguous bytes, 16 B per lane
//     (the `reason` of the plan says which candidate won and why).
//
//   f32 4099 x 4093 transposed (prime extents): modes (4093: 1, 4099) (4099: 4093, 1). No vector divides 4093
//     or 4099, so rows on both sides start anywhere: an unaligned tiled plan (`unaligned`), 16 B per lane all
//     the same. A load reads the aligned 16 B words around its 4 units and shifts them into place; each
//     destination row of a 128-unit tile goes out as the aligned 16 B windows it fills whole (row 1 starts
//     at unit 4099, 3 into a window: windows 1 .. 31 of it), then its head (unit 0) and tail (units
//     125 .. 127), one lane each, as the aligned 4-8 B pieces of their windows that the row fills
//     (`row_windows`). The
//     loads never touch a 16 B word without a byte of their row, so buffers that start on 16 B and are
//     allocated in whole 16 B words (cudaMalloc's) are never left.
//
//   u8 RGBX -> planar RGB, src S[(64,3,224,224):(200704,1,896,4)]: records of 4 B hold 3 planes. An
//     interleave of padded records: a lane reads the 4 x 16 B its 16 pixels span and drops every fourth byte.
//
//   bf16 TMA SWIZZLE_128B tiles to row-major: src Swizzle<3,3,3> o S[(128,64,128,64):(524288,64,4096,1)],
//     dst S[(128,64,128,64):(524288,8192,64,1)]: 64-element rows contiguous on both sides, and the swizzle
//     (bits 3-5 of the element offset XORed with bits 6-8) keeps 8-element granules whole: a vector plan of
//     16 B lanes, each load's element offset passed through the source's swizzle. An offset (`+ O[k@m]`)
//     likewise caps every access at the largest power of two dividing it.
//
// Narrow types keep 16 B accesses: a thread's register block is V x V elements with V = 16 B / element size
// (4x4 fp32, 8x8 bf16), transposed in registers by byte permutes; 1-byte units take 4 rows of 16 B (four 4x4
// byte blocks), each of whose 16 columns goes to the tile as one 4 B word. Where a run shorter than 16 B is
// shared by both sides it is moved as one wider element. Every number the plan predicts (sectors per request,
// shared-memory wavefronts) comes from the engine's memory model applied to the lane addresses the plan
// defines; the generated kernel (the agent's code generator) and the host executor below follow the same lane
// mapping.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "layoutscope/dtype.hpp"
#include "layoutscope/layout.hpp"
#include "layoutscope/result.hpp"

namespace layoutscope {

// One piece of the common refinement: `extent` values, `src_stride` / `dst_stride` elements apart.
struct ConvertMode {
  int64_t extent = 1;
  int64_t src_stride = 0;
  int64_t dst_stride = 0;
  friend bool operator==(const ConvertMode&, const ConvertMode&) = default;
};

enum class ConvertKind {
  kVector,  // a shared run of >= 64 B (or one no tile can stage): 16 B per lane, no staging
  kTiled,   // staged through a shared-memory tile between the source- and destination-contiguous modes
  // A small mode (2-24 planes, channels or record fields) whole in one thread, interleaved with the mode
  // that is contiguous on the other side: V units of each plane in, C x V interleaved units out (or the
  // reverse), 16 B per lane on both global sides through a per-warp exchange in shared memory.
  kInterleave,
};

// The cost of one warp access as the engine's memory model counts it.
struct WarpCost {
  int64_t sectors = 0;  // distinct 32 B global sectors (global accesses)
  int wavefronts = 0;   // shared-memory wavefronts (shared accesses)
  int ideal_wavefronts = 0;
  int bytes_per_lane = 0;
  int lanes = 0;  // lanes of the warp that access
};

struct ConvertPlan {
  std::vector<int64_t> shape;  // the logical shape both layouts are defined on
  DType dtype = DType::kF32;
  int elem_bytes = 4;
  int64_t elements = 0;
  // Destination order, outermost first (the last has dst_stride 1); in units of unit_elems elements.
  std::vector<ConvertMode> modes;
  int64_t common_vector = 1;  // elements contiguous on both sides (the innermost run)

  ConvertKind kind = ConvertKind::kVector;
  int unit_elems = 1;    // elements moved as one unit (> 1 when a short shared run is packed)
  int unit_bytes = 4;    // elem_bytes * unit_elems
  int vector_units = 1;  // units per lane per global access (V): 16 B / unit_bytes where alignment allows
  int unit_lanes = 1;  // lanes that carry one unit: a 32 B unit goes as two 16 B pieces on neighbouring lanes
  // kTiled: rows along a of a thread's register block, each V units along b. V (a square block, whose columns
  // are stored as 16 B rows of the tile) except for 16 B of 1-byte units: 4 rows, whose columns are 4 B.
  int block_rows = 1;
  // kTiled, the load pass: consecutive threads take consecutive blocks along b, warp_b of them, then the next
  // blocks along a, so that a warp covers warp_b x (32 / warp_b) blocks and the warps tile the rest
  // (row-major over b / (V * warp_b) warps along b). warp_b is all tile_b / V blocks of a row of the tile,
  // except where 4-row blocks would put more than 8 lanes along b: a warp's 4 B stores then land on 8 rows of
  // 4 words (a 16 B chunk each), which the swizzle can spread over the banks, where 32 rows of one word could
  // not.
  int warp_b = 1;
  // Two neighbouring lanes share a register block whose rows are the consecutive 16 B records of the source
  // (AoS -> SoA of 16 B records): lane p loads rows 2k+p, so that a lane pair reads whole 32 B sectors; the
  // pair swaps half of each row (a warp shuffle) and each lane stores half of the block's output rows.
  bool paired = false;
  // Odd or prime row lengths, where no vector divides the offsets the rows start at: each lane still moves
  // 16 B (V = 16 B / unit). A load takes the aligned 16 B words that hold its V units (the second only where
  // they straddle two) and shifts the units into place. The store pass writes each destination row of the
  // tile as the aligned 16 B windows it fills whole (the body, each window shifted out of two chunks of the
  // tile's row, `row_windows`), then the units at the row's two ends, which share a window with a
  // neighbouring tile or lie past the tensor (the edges): one lane per edge, which stores the part of the
  // edge's window that the row fills as aligned pieces of 1-8 B (at least a unit each). A loop copying the
  // edge's units one by one compiled faster (NVRTC) but ran slower: on an H100, 15 x 17 x 19 x 21 x 23 u8
  // reversed 0.74 -> 0.47 of a copy, 10007 x 1009 u8 transposed 0.73 -> 0.59. kInterleave: the
  // planes of the source start at odd offsets; each plane's V units are read the same way, the records
  // written aligned.
  bool unaligned = false;
  // kTiled and `unaligned`: every source row of the tile starts on 16 B (only the destination's rows are
  // odd), so each load is the aligned 16 B word itself, with no second word and no shift.
  bool aligned_loads = false;
  // kTiled and `unaligned`, units of 1, 2 or 4 B, small grids (blocks of at most 128 threads, or fewer
  // tiles than two an SM): two neighbouring threads load each register block, thread 2t + h the V/2 units
  // from V/2 * h of block t's rows (8 bytes: two aligned 8 B words a row, the second only where the row's
  // bytes reach into it), shifted into place and stored as the block's columns V/2 * h .. V/2 * h + V/2 - 1.
  // A thread's chain of loads, shifts, permutes and shared stores is half as long; the threads are twice the
  // blocks.
  bool half_blocks = false;
  int threads = 256;  // threads per block

  // kTiled: the tile spans two groups of modes (indices into `modes`, innermost first). Group a starts with
  // the destination's innermost modes: its first run_a indices are destination offsets 0 .. run_a-1. Group b
  // is contiguous in the source: index ib is source offset ib. The tile is tile_a x tile_b units, staged as
  // rows of run_a units (row_bytes), one row per index along b, and tile_a / run_a such slabs of tile_b rows
  // (the tile in destination order), with 16 B chunks XORed by `staging` (a swizzle on byte offsets in the
  // tile). The other modes are the batch: one block per (batch index, tile along b, tile along a).
  //
  // Where the destination's contiguous run is shorter than two vectors (16 B of u8 before the source's
  // contiguous mode), group a goes on with the destination's next modes (folded): a tile row would otherwise
  // be 16 B, too short to swizzle and too small a tile. Then run_a < tile_a, and each slab of tile_b rows is
  // run_a x tile_b units contiguous in the destination when group b's first mode follows group a's run there.
  std::vector<int> group_a, group_b;
  int64_t extent_a = 0, extent_b = 0;  // the groups' sizes
  int64_t tile_a = 0;
  int64_t tile_b = 0;
  int64_t run_a = 0;  // == tile_a unless group a has folded modes
  int folded_a = 0;   // how many of group a's modes are folded (at its end)
  int64_t row_bytes = 0;
  Swizzle staging;  // bits == 0: no swizzle
  int64_t staging_bytes = 0;

  int64_t blocks = 0;  // grid size

  // Predicted per warp instruction, from the lane addresses of the plan's first block.
  WarpCost global_read;
  WarpCost global_write;
  WarpCost smem_write;  // kTiled and kInterleave
  WarpCost smem_read;

  // kInterleave. The small mode (index small_mode into `modes`, extent small_extent = C) and the long mode
  // (long_mode, extent long_extent = L) it interleaves with. packed_dst: the small mode is the destination's
  // innermost (planes -> records, NCHW -> NHWC); otherwise the source's (records -> planes). The packed
  // side holds C x L contiguous units (the long mode's stride there is C); the planar side holds C runs of L
  // units, plane_stride apart. Thread t of the grid takes item t: V units along the long mode (chunk t %
  // chunks, chunks = ceil(L / V)) of batch index t / chunks over the other modes (innermost first). A chunk
  // shorter than V (the last of a ragged L) moves unit by unit, outside the exchange.
  int small_mode = -1, long_mode = -1;
  int64_t small_extent = 0, long_extent = 0;
  int64_t plane_stride = 0;
  bool packed_dst = false;
  int64_t chunks = 0, items = 0;
  // Chunks between two lanes' records in the exchange: R (record_units), or R + 1 where R is even and above
  // 16 or the records are padded, and no XOR is taken (a lane stride of an even number of 16 B chunks puts a
  // quarter warp on half the bank groups or fewer).
  int64_t lane_chunks = 0;
  // The exchange's XOR on a lane's chunk indices, for records of at most 4 chunks: chunk j of lane l sits at
  // l * lane_chunks + (j ^ ((l >> exchange_shift) & exchange_mask)). exchange_mask + 1 divides R, so the XOR
  // keeps each lane's chunks its own; 0: none.
  int exchange_shift = 0;
  int64_t exchange_mask = 0;
  // Planes into records without the exchange: each lane stores its own C chunks (chunk j of its record at
  // j V units past its item's first), half a sector each where a record is 2 or more chunks; no shared
  // memory (staging_bytes 0). For grids of a few blocks.
  bool direct_stores = false;
  // Units from one record to the next on the packed side: C, or more where the source's records are padded
  // (RGBX pixels: 3 planes in records of 4 B). The lanes read whole records, R x V units, and drop the pad.
  int64_t record_units = 0;
  // Why this kind and shape won: the candidates the planner compared and what decided.
  std::string reason;

  // Where each side's strided offset lands: element e of the plan's map is element swz(e + offset) of the
  // buffer (`O[k@m]`, then `Swizzle<B,M,S> o ...`; bits == 0: no swizzle). The plan's accesses stay inside
  // the 2^M-element granules the swizzle keeps whole and aligned to the offset, so each lane's V units
  // remain one contiguous access.
  int64_t src_offset = 0, dst_offset = 0;
  Swizzle src_swizzle, dst_swizzle;
};

// Plans out[dst(x)] = in[src(x)] for every x of `shape`. Both layouts: a shard on @m (no replicas, partial
// sums or offsets on other axes), optionally offset on @m and swizzled; the destination dense (a bijection
// onto [offset, offset + size)), the source any strided layout of the same size. Errors name the offending
// layout ("src", "dst") in `field`.
Result<ConvertPlan> plan_convert(const Layout& src, const Layout& dst, const std::vector<int64_t>& shape,
                                 DType dtype);

// The shorthand: a row-major tensor of `shape` into the row-major tensor of its dimensions permuted by `perm`
// (PyTorch's x.permute(perm).contiguous()).
Result<ConvertPlan> plan_permute(const std::vector<int64_t>& shape, const std::vector<int64_t>& perm,
                                 DType dtype);

// The layouts of that shorthand: src row-major over `shape`, dst the permuted row-major order over the same
// logical shape.
Result<Layout> permuted_layout(const std::vector<int64_t>& shape, const std::vector<int64_t>& perm);

// Source element offset of each destination offset, for the plan's modes (the gather function).
int64_t gather_offset(const ConvertPlan& plan, int64_t dst_offset);

// The plan's gather as plain modes, for a kernel that takes them as arguments instead of constants: the
// modes in elements, neighbours contiguous on both sides fused, destination order (outermost first), then
// counted in units of unit_elems elements, the widest power of two that 16 B, the innermost run (where the
// source steps by 1 in it), every other source stride and each side's offset and swizzle granule allow.
// As (extent: source stride) in units:
//   (64, 3, 224, 224) perm (0, 2, 3, 1), u8: (64: 150528) (50176: 1) (3: 50176), units of 1 element (the
//   innermost mode, C, steps by 50176 in the source)
//   (2, 197, 12, 64) perm (0, 2, 1, 3), bf16: (2: 18912) (12: 8) (197: 96) (8: 1), units of 8 elements (16 B
//   of each 64-element run of D)
struct GatherModes {
  std::vector<ConvertMode> modes;  // extent, source and destination strides in units
  int64_t unit_elems = 1;
};
GatherModes gather_modes(const ConvertPlan& plan);

// Runs the plan on the host exactly as the kernel's lanes do it (tiles, register blocks, the swizzled staging
// tile), element by element. `in` holds the source's cosize elements, `out` the destination's; both of the
// plan's element size. `stopped`, when given, is asked about every 2^20 elements moved; once it answers true
// the run ends early with the error field "stopped" (what `out` holds then is partial).
Result<int64_t> execute_convert_host(const ConvertPlan& plan, std::span<const std::byte> in,
                                     std::span<std::byte> out, const std::function<bool()>& stopped = {});

// Source and destination offsets of index ia of group a, destination offset of index ib of group b (in
// units); the batch modes, innermost first.
int64_t group_a_src(const ConvertPlan& plan, int64_t ia);
int64_t group_a_dst(const ConvertPlan& plan, int64_t ia);
int64_t group_b_dst(const ConvertPlan& plan, int64_t ib);

// Byte offset in the staging tile (before the swizzle) of unit ia along a, row ib along b, both relative to
// the tile: slab ia / run_a, row ib, unit ia % run_a.
int64_t staging_byte(const ConvertPlan& plan, int64_t ia, int64_t ib);
// The windows of one destination row of an unaligned tile (kTiled, `unaligned`): the row's `units` units
// (tile_a, fewer in the tile that ends group a) start `first` units into the destination, `shift` = first %
// V units into an aligned window. Body window k, for body_first <= k < body_end, holds units [k V - shift,
// (k + 1) V - shift) of the row whole; the edges are units [0, head_end) and [tail_start, units).
//   first = 1001, V = 16, units = 256: shift 9, body windows 1 .. 15 (units 7 .. 246), edges 0 .. 6 and
//   247 .. 255.
struct RowWindows {
  int64_t shift = 0, body_first = 0, body_end = 0, head_end = 0, tail_start = 0;
};
RowWindows row_windows(const ConvertPlan& plan, int64_t first, int64_t units);
// Whether the store pass of an unaligned tile (kTiled, `unaligned`) takes a destination row per warp: where
// the tile's rows are 32 windows (tile_a = 32 V). Lane l of the row's warp stores body window l + 1 (window l
// where the row starts on a window), shifted out of chunks l and l + 1 of the tile's row. Lane 31's chunks
// are the row's last and first: its shifted word holds the tail's units, then the head's, and it stores them
// as the pieces of edge_stores. The shift is the same for the whole warp, so the kernel runs code with it as
// a constant. Blocks at the end of group a, whose rows are shorter than the tile, keep a thread per window.
bool warp_row_stores(const ConvertPlan& plan);
// One store of an unaligned row's edge: `bytes` (0: none) at byte `at` of the edge's aligned 16 B window.
struct EdgeStore {
  int at = 0, bytes = 0;
};
// The stores that write bytes [b, e) of a 16 B window (b < e <= 16, not the whole window) in aligned pieces
// of at least `unit` bytes, one per store instruction of the kernel's edge code and in its order. Upward,
// unit .. 8 B: s bytes at b rounded up to s, where that has bit s and the piece ends by e. Then downward,
// 8 B .. unit, from b1, the last of those places (or b rounded up to 16) not past e: s bytes where e - b1 has
// bit s, at b1 plus the higher bits of e - b1. Each place follows from b and e alone, so the kernel's pieces
// are independent predicated stores.
//   b = 3, e = 16, unit 1: 1 B at 3, 4 B at 4, 8 B at 8.   b = 1, e = 6: 1 B at 1, 2 B at 2, 2 B at 4.
std::vector<EdgeStore> edge_stores(int b, int e, int unit);
// Bytes one lane moves per access: V units, or a 16 B piece of a wider unit.
int access_bytes(const ConvertPlan& plan);
// Bytes one lane loads per global access: access_bytes, or 8 B where two threads share a block
// (`half_blocks`).
int load_bytes(const ConvertPlan& plan);
// Register blocks of one tile (kTiled: R rows along a of V units along b each), the load pass's work items.
int64_t register_blocks(const ConvertPlan& plan);
// The load pass's register block of thread t: index ba of its R rows along a, bb of its V units along b.
struct LoadBlock {
  int64_t ba = 0, bb = 0;
};
LoadBlock load_block(const ConvertPlan& plan, int64_t t);
// Bytes one lane stores into the staging tile per access: a column of its register block (block_rows units),
// or a piece of a wider unit.
int staging_store_bytes(const ConvertPlan& plan);
// How the V columns of a register block (rows bb * V + j of its slab, j < V) are addressed in the staging
// tile. Column j is d = j * row_bytes past the first, in bits that the first column's offset x0 leaves zero
// (row_bytes a power of two, the block's rows V aligned), so x0 + d = x0 ^ d, and an XOR swizzle is linear
// over XOR: swz(x0 + d) = swz(x0) ^ swz(d). kXorSwizzled: the swizzle reads some of those bits, and column j
// is swz(x0) ^ staging_column_offset(plan, j), a constant. Otherwise swz(d) = d: swz(x0) ^ d (kXor), which
// is swz(x0) + d where the swizzle changes none of those bits either (kAdd). kPerColumn: the bits are not
// apart (row_bytes or V not a power of two, or tile_b not a multiple of V), and every column's offset is
// swizzled on its own.
enum class ColumnStep { kPerColumn, kXorSwizzled, kXor, kAdd };
ColumnStep staging_column_step(const ConvertPlan& plan);
// swz(j * row_bytes): what column j of a register block XORs onto the first column's swizzled offset.
int64_t staging_column_offset(const ConvertPlan& plan, int64_t j);
std::vector<int> convert_batch_modes(const ConvertPlan& plan);

// kInterleave: byte offset in the warp's exchange area of chunk j (16 B, or V units) of lane `lane`'s R
// chunks: lane * lane_chunks + (j ^ ((lane >> exchange_shift) & exchange_mask)) chunks (the packed order up
// to the XOR within each lane's chunks, so that the warp's 32 x R chunks are read or written in order by the
// coalesced pass).
int64_t exchange_byte(const ConvertPlan& plan, int64_t lane, int64_t j);

// The plan's accesses averaged over every warp instruction of the whole kernel, as Nsight Compute reports
// them (global sectors per request, shared wavefronts per instruction). The first block's warp 0 (the plan's
// WarpCost predictions) is every warp's access only where every tile is whole and every row starts where the
// first does: a partial tile's instructions have fewer lanes, a row that starts off a sector spans one sector
// more, an unaligned row loads a second word where its bytes reach into it, and its edges are stores of
// 1-8 B. This walks the generated kernel's warp instructions block by block, lane by lane (an instruction is
// a request where one of its lanes takes part; a shared access serves its lanes in groups by lane number):
// the tiled kernels (not paired, no wide units), the unaligned vector kernel and the interleave into records.
// `modelled` is false for the others (the aligned vector kernels, whose warps all access alike, the
// interleave out of records and a ragged or unaligned interleave), whose fields then repeat the first warp.
//   f32 1000 x 3000 transposed, 64 x 64 tiles: 1000 = 15 x 64 + 40 destination units a row, so the last
//   tile of each row stores 10 of its 16 chunks a row and its warps' stores span fewer sectors: 15.625
//   sectors a store over the kernel against the first warp's 16 (an H100's Nsight Compute: 15.625). It walks
//   every block (about a second for 64 MiB on one core): for measurements, not for planning.
struct ConvertAverages {
  double read_sectors = 0, write_sectors = 0, smem_store_wavefronts = 0, smem_load_wavefronts = 0;
  bool modelled = false;
};
ConvertAverages convert_kernel_averages(const ConvertPlan& plan);

// Bytes the plan moves through DRAM: each side's useful bytes (elements x element size) times its sectors
// per warp access over the ideal, sectors x 32 B / (lanes x bytes per lane). A plan whose accesses are all
// whole sectors moves 2 x elements x size, a copy's traffic; a 4 B lane alone in its 32 B sector counts 8x.
// Direct stores (half sectors, completed by the lane's next store) count their useful bytes.
int64_t convert_traffic_bytes(const ConvertPlan& plan);

// Source elements needed by the plan (the source layout's cosize, its offset and swizzle included).
int64_t source_extent(const ConvertPlan& plan);
// Destination elements the plan writes into: elements past its offset, rounded up over the bits its swizzle
// may set. Swizzle<3,3,3> o S[(8,64):(64,1)] + O[64@m]: elements 64 .. 575, the swizzle writing bits 3-5 of
// each, (575 | 0b111000) + 1 = 576; with O[4@m] (4 .. 515) it is (515 | 0b111000) + 1 = 572.
int64_t destination_extent(const ConvertPlan& plan);
// Element of the source (src) or destination buffer that the plan's element offset e stands for: the side's
// swizzle of e + offset.
int64_t side_element(const ConvertPlan& plan, bool src, int64_t e);

std::string_view to_string(ConvertKind kind);

}  // namespace layoutscope
