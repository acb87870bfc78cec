// Triton and Gluon layouts: linear layouts (hardware bits -> logical coordinates) and the attributes that
// lower to them (blocked, swizzled_shared, nvmma_shared, shared_linear).
//
//   #ttg.linear<{register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
//                warp = [], block = []}>                                         on tensor<16x8xf16>
//   register bit 0 -> (0, 1), bit 1 -> (8, 0); lane bits -> (0,2) (0,4) (1,0) (2,0) (4,0)
//   inverted, one logical bit at a time, fused per dimension:
//     -> S[(2,8,4,2):(2@reg,4@laneid,1@laneid,1@reg)]      lane 5 holds (1,2) (1,3) (9,2) (9,3)
//
// Hardware dimensions become axes: register -> @reg, lane -> @laneid, warp -> @warpid, block -> @block,
// offset -> @m. Each single-bit basis is one stride of 2^i on its axis; a zero basis is a replica. Bases
// that XOR two logical bits convert only on @m and only when they are a Swizzle<B,M,S> of a stride pattern
// (what swizzled_shared and nvmma_shared produce); anything else is "not expressible", with the column of
// the offending basis. Blocked layouts follow Triton's rule for a shape other than the CTA tile: registers
// repeat along the order when the shape is larger, the largest bases broadcast (become replicas) when it is
// smaller. Gluon spellings (DistributedLinearLayout(reg_bases=..., shape=[16, 8]), BlockedLayout(...),
// SwizzledSharedLayout(...), NVMMASharedLayout(...)) read the same.
#pragma once

#include "layoutscope/formats/format.hpp"

namespace layoutscope {

Result<Imported> import_triton(std::string_view text, const FormatContext& context);
// #ttg.linear<{...}> for layouts on reg/laneid/warpid/block, #ttg.shared_linear<{offset = ...}> on @m.
Result<std::string> export_triton(const Layout& layout, const std::vector<int64_t>& shape,
                                  const FormatContext& context);

// Triton's named encodings, written where one expresses the layout element for element:
//   S[(2,8,4,2):(2@reg,4@laneid,1@laneid,1@reg)] on 16x8  (2 registers along a row, 8x4 lanes, rows 8..
//   repeat)
//     -> #ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1,
//     0]}>
//   Swizzle<3,3,3> o S[(64,64):(64,1)] -> #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order =
//   [1, 0]}> the same on 16-bit elements -> #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false,
//   elementBitWidth = 16}>
// Each candidate's parameters are read back by import_triton and kept only when the layout is the same. An
// error says why none fits (the axes used, the lanes, the swizzle's form).
enum class TritonEncoding { kLinear, kAuto, kBlocked, kSwizzledShared, kNvmmaShared };
// "linear" (also ""), "auto", "blocked", "swizzled_shared", "nvmma_shared"
Result<TritonEncoding> parse_triton_encoding(std::string_view name);
// element_bits: nvmma_shared's elementBitWidth (8, 16, 32, 64); 0 tries 16, 8, 32 and 64 (auto: nvmma_shared
// only when it is given).
Result<std::string> export_triton_encoding(const Layout& layout, const std::vector<int64_t>& shape,
                                           TritonEncoding encoding, int element_bits = 0);

}  // namespace layoutscope
