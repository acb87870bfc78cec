// What one warp instruction costs in shared memory (bank conflicts) and in global memory (32 B sectors).
//
// Shared memory: 32 banks of 4 bytes, bank = (byte_addr / 4) % 32. One wavefront serves at most 128 B,
// so a warp's lanes are processed in groups: 32 lanes at 1, 2 or 4 B per lane, 16 at 8 B, 8 at 16 B. Inside
// one group a bank serves one 4-byte word per cycle; lanes reading the same word share it (broadcast). The
// cycles of a group are the largest number of distinct words any bank must deliver.
//
//   8x8 fp32 tile, row-major, lanes 0..7 read column 3 (toy model: 8 banks):
//     addresses 12, 44, 76, ... -> every lane in bank 3, 8 distinct words -> 8 cycles (8-way conflict)
//   the same with the XOR swizzle mapped_col = col ^ row -> banks 3,2,1,0,7,6,5,4 -> 1 cycle
//
// Global memory: a warp's request touches whole 32 B sectors; the count of distinct sectors is the cost.
//   SoA float read (stride 4 B): 128 contiguous bytes -> 4 sectors
//   AoS float read from a 32 B struct (stride 32 B): 32 sectors
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "layoutscope/layout.hpp"
#include "layoutscope/result.hpp"

namespace layoutscope {

struct BankModel {
  int banks = 32;
  int word_bytes = 4;
  int wavefront_bytes = 128;
};

struct BankAccess {
  int lanes_per_group = 32;       // lanes served by one wavefront at this width
  int groups = 0;                 // wavefronts with no conflict (ideal)
  int cycles = 0;                 // wavefronts with conflicts: sum over groups of the worst bank
  int max_ways = 0;               // worst bank over all groups (1 = conflict-free)
  std::vector<int> group_cycles;  // per group
  std::vector<int> lane_bank;     // first bank of each lane's access
  std::vector<int> lane_cycle;    // 0-based cycle in which each lane's first word is served
};

// addrs: one byte address per lane (up to 32 lanes; fewer for toy models); width: 1, 2, 4, 8 or 16 bytes
// (a 1 or 2 B lane reads the word that holds it: lanes inside one word never conflict),
// and every address aligned to it.
Result<BankAccess> bank_access(std::span<const int64_t> addrs, int width, const BankModel& model = {});

// The bytes one lane's access moves for elements of elem_bytes: the element, widened to the bank's word (a
// sub-word type is read a word at a time) and at most 16 B (the widest shared-memory access):
//   u8 -> 4, f16 -> 4, f32 -> 4, f64 -> 8 (32 banks of 4 B).
int lane_access_bytes(int elem_bytes, const BankModel& model = {});

// The first byte of the `width`-byte access that holds byte address `byte`: two f16 elements share one 4 B
// word, hence one bank (bytes 0..3 -> 0, 6 -> 4 at width 4; 20 -> 16 at width 16).
int64_t access_start(int64_t byte, int width);

struct SectorAccess {
  int64_t sectors = 0;               // distinct 32 B sectors
  int64_t bytes = 0;                 // bytes requested by the lanes
  double efficiency = 0;             // bytes / (sectors * 32)
  std::vector<int64_t> lane_sector;  // the 32 B sector (byte address / 32) of each lane's first byte
};

inline constexpr int kSectorBytes = 32;

Result<SectorAccess> sector_access(std::span<const int64_t> addrs, int width);

// Byte addresses that lanes touch when lane i reads logical element indices[i] through the layout's @m
// axis (replica 0; the swizzle applied), with elem_bytes per element.
Result<std::vector<int64_t>> lane_addresses(const Layout& layout, const std::vector<int64_t>& shape,
                                            std::span<const int64_t> indices, int elem_bytes);

}  // namespace layoutscope
