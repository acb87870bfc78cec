// Element types and the PTX / TMA shared-memory swizzle modes, in bytes and in elements.
//
// PTX modes act on byte addresses with a 16 B granule:
//   SWIZZLE_128B = Swizzle<3,4,3>, 64B = Swizzle<2,4,3>, 32B = Swizzle<1,4,3>, 128B_ATOM_32B = Swizzle<2,5,2>
// The same permutation on element offsets drops log2(bytes per element) from M:
//   f16 SWIZZLE_128B = Swizzle<3,3,3>  (TIRx ComposeLayout(per_element=3, swizzle_len=3, atom_len=3))
//   per_element = bit_length(128 / bits) - 1: f8 4, f16 3, f32 2, f64 1.
// Mixing byte and element units is the most reported swizzle mistake (CUTLASS issues #2634, #1396).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "layoutscope/layout.hpp"
#include "layoutscope/result.hpp"

namespace layoutscope {

// kU8: a byte of any meaning (uint8, int8 and fp8 move alike); kF8 names the fp8 formats.
enum class DType { kU8, kF8, kF16, kBF16, kF32, kTF32, kF64 };

Result<DType> parse_dtype(std::string_view name);
std::string_view to_string(DType dtype);
int dtype_bits(DType dtype);  // storage bits (tf32 is stored in 32)
int dtype_bytes(DType dtype);
// Every element type, narrowest first (u8, f8, f16, bf16, f32, tf32, f64): the names a form offers.
std::vector<DType> all_dtypes();

enum class SwizzleMode { kNone, k32B, k64B, k128B, k128BAtom32B, kInterleave16B };

Result<SwizzleMode> parse_swizzle_mode(std::string_view name);  // "none", "32B", "64B", "128B", ...
std::string_view to_string(SwizzleMode mode);                   // PTX name: "SWIZZLE_128B", ...
std::string_view short_name(SwizzleMode mode);                  // "128B"

struct SwizzleAtom {
  SwizzleMode mode = SwizzleMode::kNone;
  Swizzle bytes;       // on byte addresses
  Swizzle elements;    // on element offsets of the dtype
  int row_bytes = 16;  // contiguous width of one atom row (N in "8 x N B")
  int rows = 8;
  int elements_per_row = 0;
};

Result<SwizzleAtom> swizzle_atom(SwizzleMode mode, DType dtype);

}  // namespace layoutscope
