// The two descriptors of tcgen05.mma (PTX ISA, "Matrix Descriptors"): the 64-bit shared memory descriptor of
// an A or B tile (also the source of tcgen05.cp) and the 32-bit instruction descriptor. Encode, decode,
// validate, and check that a shared tile layout is the one a descriptor describes.
//
// Shared memory descriptor (PTX ISA, "Shared memory descriptor"):
//
//   63   61 60    53  52  51  49 48 46 45        32 31 30 29        16 15 14 13         0
//   |swizzl| 0...0  |mode| base | 001 |  SBO >> 4  | 0  0 |  LBO >> 4  | 0  0 | start >> 4 |
//
//   swizzle 0 none, 1 128B with 32B atoms, 2 128B, 4 64B, 6 32B (3, 5, 7 are not modes)
//   start / LBO / SBO: byte values, multiples of 16 below 2^18; base: 0..7; mode: LBO relative (0) or
//   absolute (1)
//
// Worked example: a K-major f16 tile in SWIZZLE_128B at 0x400 (8-row groups 1024 B apart, LBO unused = 16):
//   start 0x400 -> 0x40, LBO 16 -> 1 << 16, SBO 1024 -> 0x40 << 32, fixed 1 << 46, swizzle 2 << 61
//   = 0x4000404000010040
//
// The canonical layouts a descriptor names (PTX ISA, "Shared Memory Matrix Layout" for tcgen05 / wgmma; the
// same as CUTLASS's UMMA / GMMA descriptor comments), for element (mn, k) of an MN x K tile, b = bytes:
//   K-major, no swizzle:  (mn%8)*16 + (mn/8)*SBO + (k*b/16)*LBO + (k*b)%16     core matrix 8 rows x 16 B
//   K-major, W-byte swizzle: (mn%8)*W + (mn/8)*SBO + k*b                       K within one W-byte row
//   MN-major, no swizzle: (mn*b)%16 + (k%8)*16 + (mn*b/16)*SBO + (k/8)*LBO
//   MN-major, W-byte swizzle: (mn*b)%W + (k%8)*W + (mn*b/W)*LBO + (k/8)*SBO
// then start is added and the swizzle permutes the absolute byte address (128B = Swizzle<3,4,3>, 64B =
// Swizzle<2,4,3>, 32B = Swizzle<1,4,3>, 128B with 32B atoms = Swizzle<2,5,2>). A start that is not aligned to
// the pattern's repeat (8 rows) needs base offset (start >> 7) & 7.
//
// Instruction descriptor (PTX ISA, "Instruction descriptor" for .kind::f16/tf32/f8f6f4/i8 and for the
// block-scaled .kind::mxf8f6f4/mxf4/mxf4nvf4):
//
//   bit  0-1 sparsity selector   2 sparse   3 saturate (i8)           | block-scaled: 3 reserved
//        4-5 D type (f16 0, f32 1, s32 2)                             | 4-5 SFB id
//        7-9 A type, 10-12 B type, 13 negate A, 14 negate B, 15 transpose A (MN-major), 16 transpose B
//        17-22 N >> 3, 23 reserved                                    | 23 scale type (ue4m3 0, ue8m0 1)
//        24-28 M >> 4, 29 reserved, 30-31 max shift (.ws)             | 29-30 SFA id, 31 K (mxf4*: 0 K64, 1
//        K96)
//   A/B types: f16 0, bf16 1, tf32 2; e4m3 0, e5m2 1, e2m3 3, e3m2 4, e2m1 5 (f8f6f4, mxf8f6f4);
//   e2m1 1 (mxf4, mxf4nvf4); u8 0, s8 1 (i8)
//
// Worked example: kind::f16, bf16 x bf16 -> f32, M = 128, N = 256, both K-major:
//   D f32 1 << 4 | A bf16 1 << 7 | B bf16 1 << 10 | (256 >> 3) << 17 | (128 >> 4) << 24 = 0x08400490
//
// Every error names the field ("swizzle", "stride_byte_offset", "m", "a_type" ...) and, in its code, the
// rule: "range" (a value the field cannot hold), "alignment", "fixed-bits", "reserved", "kind" (a value this
// MMA kind does not take), "not-canonical" (a tile layout no descriptor describes).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "layoutscope/layout.hpp"
#include "layoutscope/result.hpp"

namespace layoutscope {

// ---- shared memory descriptor
// -------------------------------------------------------------------------------

enum class UmmaSwizzle : uint8_t { kNone = 0, k128BBase32B = 1, k128B = 2, k64B = 4, k32B = 6 };

Result<UmmaSwizzle> parse_umma_swizzle(
    std::string_view text);                    // "none", "128B", "64B", "32B", "128B_base32B"
std::string_view to_string(UmmaSwizzle s);     // "128B"
int64_t umma_swizzle_bytes(UmmaSwizzle s);     // row width W: 16 (none), 32, 64, 128
int64_t umma_swizzle_repeat(UmmaSwizzle s);    // bytes after which the pattern repeats: 8 rows
Swizzle umma_swizzle_on_bytes(UmmaSwizzle s);  // Swizzle<3,4,3> ... (bits = 0 for none)

struct SmemDescriptor {
  int64_t start_address = 0;        // bytes
  int64_t leading_byte_offset = 0;  // LBO, bytes
  int64_t stride_byte_offset = 0;   // SBO, bytes
  int64_t base_offset = 0;          // 0..7
  bool lbo_absolute = false;        // leading-dimension stride mode (bit 52)
  UmmaSwizzle swizzle = UmmaSwizzle::kNone;
  int64_t version = 1;  // bits 46-48: 0b001 for tcgen05
  friend bool operator==(const SmemDescriptor&, const SmemDescriptor&) = default;
};

Result<uint64_t> encode_smem_descriptor(const SmemDescriptor& d);
Result<SmemDescriptor> decode_smem_descriptor(uint64_t bits);

enum class Major { kK, kMN };
Result<Major> parse_major(std::string_view text);  // "K", "MN" (also "k", "mn")
std::string_view to_string(Major m);

// The byte address of every element of an mn x k tile (row-major: element (i, j) at i * k + j) that the
// descriptor describes, for elements of elem_bits (8, 16 or 32) in the given major-ness. Errors: "range"
// (tile larger than 2^20 elements, or wider than one swizzle row in a swizzled K-major tile), "lbo_mode"
// (absolute LBO is decoded but not modelled here).
Result<std::vector<int64_t>> descriptor_addresses(const SmemDescriptor& d, Major major, int elem_bits,
                                                  int64_t mn, int64_t k);

// The descriptor of a tile layout: `layout` maps logical (MN, K) to element offsets @m from `start_address`
// (a swizzle in element units included). Fields no element pins (SBO of a tile of at most 8 rows ...) are 0
// and listed in `unused`. Error "not-canonical" (field "layout") when no descriptor gives the layout's
// addresses, naming the first element that differs.
struct InferredDescriptor {
  SmemDescriptor descriptor;
  std::vector<std::string> unused;  // "leading_byte_offset", "stride_byte_offset"
};
Result<InferredDescriptor> infer_smem_descriptor(const Layout& layout, const std::vector<int64_t>& shape,
                                                 Major major, int elem_bits, int64_t start_address);

struct FieldDifference {
  std::string field;
  int64_t descriptor = 0;  // the given descriptor's value
  int64_t layout = 0;      // the value the layout needs
};
struct DescriptorMatch {
  bool matches = false;
  std::vector<FieldDifference> differences;  // in field order; empty when it matches
  InferredDescriptor inferred;
};
// Whether `d` describes the tile layout: the fields compared one by one (fields the layout leaves unused are
// not compared).
Result<DescriptorMatch> match_smem_descriptor(const SmemDescriptor& d, const Layout& layout,
                                              const std::vector<int64_t>& shape, Major major, int elem_bits);

// ---- instruction descriptor
// --------------------------------------------------------------------------------

enum class MmaKind { kF16, kTf32, kF8f6f4, kI8, kMxf8f6f4, kMxf4, kMxf4Nvf4 };
Result<MmaKind> parse_mma_kind(std::string_view text);  // "f16", "kind::tf32", "mxf4nvf4", ...
std::string_view to_string(MmaKind k);
bool is_block_scaled(MmaKind k);

struct InstrDescriptor {
  MmaKind kind = MmaKind::kF16;
  std::string a_type = "f16", b_type = "f16";
  std::string d_type = "f32";  // f16, f32, s32 (not in block-scaled descriptors: always f32)
  int64_t m = 128, n = 128;
  bool a_mn_major = false, b_mn_major = false;  // "transpose A / B"
  bool negate_a = false, negate_b = false;
  bool saturate = false;  // i8 only
  bool sparse = false;
  int64_t sparse_selector = 0;       // 0..3
  int64_t max_shift = 0;             // .ws: 0, 1 (8), 2 (16), 3 (32); not block-scaled
  std::string scale_type = "ue8m0";  // block-scaled: ue4m3, ue8m0
  int64_t sfa_id = 0, sfb_id = 0;    // block-scaled: 0..3
  int64_t k_size = 0;                // block-scaled bit 31: mxf4 / mxf4nvf4 only
  friend bool operator==(const InstrDescriptor&, const InstrDescriptor&) = default;
};

// The rules a field must keep, checked by both directions.
std::optional<Error> check_instr_descriptor(const InstrDescriptor& d);
Result<uint32_t> encode_instr_descriptor(const InstrDescriptor& d);
Result<InstrDescriptor> decode_instr_descriptor(uint32_t bits, MmaKind kind);

}  // namespace layoutscope
