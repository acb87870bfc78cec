// Which shared-memory layout lets one warp access write a tile and another read it without bank conflicts?
//
// The advisor costs every layout of a search space with both accesses (access.hpp) and ranks them:
//   - the plain row-major tile;
//   - every XOR swizzle Swizzle<B,M,S> on element offsets with 1 <= B <= 5 and B + M + S within the tile;
//   - every TMA mode that can write the tile (tma_layout: 32B/64B/128B panels);
//   - rows padded by 1, 2, 3 or 4 words (4 words = 16 B).
// A layout an access cannot use (the XOR splits a lane's vector, padding misaligns it) is counted as
// rejected. The search is exhaustive, so a conflict-free layout is found whenever the space holds one.
//
// Worked example: a 16x32 fp32 tile written by rows, read by columns two at a time (lanes 0..15 column 2k,
// lanes 16..31 column 2k+1). Word (r, c) sits in bank (c ^ f(r)) % 32:
//   f(r) = 0      lanes 0..15 share bank 2k                       16 wavefronts a read
//   f(r) = r      {2k ^ r} = {(2k+1) ^ r} over r < 16: 2-way      2   (Swizzle<4,0,5>)
//   f(r) = 2r     2k ^ 2r even, (2k+1) ^ 2r odd: all 32 banks     1   (Swizzle<4,1,4>)
//
//   AdviseRequest q{parse_tile_side("S[(16,32):(1@reg,1@laneid)];STS.32", true).value(),
//                   parse_tile_side("S[(16,16,2):(1@laneid,1@reg,16@laneid)];LDS.32", false).value(),
//                   DType::kF32, {16, 32}};
//   advise(q)->candidates[0]   // conflict-free: 16 write and 16 read wavefronts, 2048 B
//
// The fixed rules of two libraries are costed beside the search: CUTLASS's ss_smem_selector (K-major: the
// largest of SW128 / SW64 / SW32 / INTERLEAVE whose atom width divides the row) and ThunderKittens' st
// (2-byte types: width in 16-column subtiles % 4 -> 128B, % 2 -> 64B, else 32B; 4-byte: % 2 -> 128B, else
// 64B). Both lay the tile out as panels of the atom's width, as TMA does.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "layoutscope/access.hpp"

namespace layoutscope {

enum class LaneOrder {
  kDefault,   // ldmatrix/stmatrix: matrix_lanes; TMA: the whole tile; otherwise rows
  kRows,      // row_lanes
  kColumns,   // column_lanes
  kMatrices,  // matrix_lanes
  kThreads,   // thread_lanes(threads, ...)
  kExplicit,  // the lanes as given
};

// One side of the tile: how the warp's lanes walk it and with which instruction.
struct TileSide {
  Instruction instr;
  LaneOrder order = LaneOrder::kDefault;
  Layout threads;  // kThreads: logical element -> @laneid, @reg and any instruction axes (@warpid ...)
  Lanes lanes;     // kExplicit
};

// How the lanes walk the tile, from text: rows, columns, matrices, default (or empty), a list of first
// elements ("0,64,128/8,72": lanes by ',', instructions by '/', '_' for an idle lane) or a thread layout.
// `column` is the 1-based column of the text's first character in the caller's input (errors count from
// there); the instruction of `side` is kept.
Result<TileSide> parse_lane_spec(std::string_view text, TileSide side, int column = 1);

// "EXPR;INSTR": EXPR is rows, columns, matrices, default (or empty) or a thread layout; INSTR is an
// instruction (parse_instruction) or a bare width in bytes (4, 8, 16: STS for the writer, LDS for the
// reader). Columns in errors count from the start of the whole text.
Result<TileSide> parse_tile_side(std::string_view text, bool writer);
Result<Lanes> side_lanes(const TileSide& side, const std::vector<int64_t>& shape, DType dtype);

struct AdviseRequest {
  TileSide writer;
  TileSide reader;
  DType dtype = DType::kBF16;
  std::vector<int64_t> tile;  // rows, columns (the last extent is the contiguous row)
};

enum class CandidateKind { kPlain, kTma, kSwizzle, kPadding };

struct Candidate {
  CandidateKind kind = CandidateKind::kPlain;
  std::string name;  // "row-major", "TMA 128B", "Swizzle<4,1,4>" (on element offsets), "pad 4 B"
  Layout layout;     // the shared tile: logical index -> @m in elements
  int64_t write_wavefronts = 0;
  int64_t write_ideal = 0;
  int64_t read_wavefronts = 0;
  int64_t read_ideal = 0;
  int64_t shared_bytes = 0;
  bool write_counted = true;  // false when TMA writes: no bank counter, the write costs no LSU wavefronts
  int64_t conflicts() const { return write_wavefronts - write_ideal + read_wavefronts - read_ideal; }
  bool conflict_free() const { return conflicts() == 0; }
};

struct RuleChoice {
  std::string rule;    // "CUTLASS ss_smem_selector", "ThunderKittens st"
  std::string choice;  // "SW128", "SW64", "SW32", "INTERLEAVE", "128B", ...; "" when the rule does not apply
  std::string reason;  // why the rule chose it, or why it does not apply / cannot be costed
  std::optional<Candidate> candidate;  // the chosen layout and its cost
};

struct Advice {
  std::vector<Candidate> candidates;  // best first: fewest wavefronts, then fewest bytes, then simplest
  std::vector<RuleChoice> rules;
  int searched = 0;  // layouts tried
  int rejected = 0;  // layouts an access could not use
};

Result<Advice> advise(const AdviseRequest& request);

// The fixed rules alone, as mode names ("" when the rule does not apply, with the reason in `why`).
std::string cutlass_ss_smem_selector(DType dtype, const std::vector<int64_t>& tile,
                                     std::string* why = nullptr);
std::string thunderkittens_swizzle(DType dtype, const std::vector<int64_t>& tile, std::string* why = nullptr);

std::string_view to_string(CandidateKind kind);  // plain, tma, swizzle, padding
std::string_view to_string(LaneOrder order);     // default, rows, columns, matrices, threads, explicit

}  // namespace layoutscope
