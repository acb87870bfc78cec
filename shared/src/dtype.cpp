#include "layoutscope/dtype.hpp"

#include <bit>

namespace layoutscope {

Result<DType> parse_dtype(std::string_view name) {
  if (name == "u8" || name == "uint8" || name == "i8" || name == "int8") return DType::kU8;
  if (name == "f8" || name == "fp8" || name == "e4m3" || name == "e5m2") return DType::kF8;
  if (name == "f16" || name == "fp16" || name == "half") return DType::kF16;
  if (name == "bf16") return DType::kBF16;
  if (name == "f32" || name == "fp32" || name == "float") return DType::kF32;
  if (name == "tf32") return DType::kTF32;
  if (name == "f64" || name == "fp64" || name == "double") return DType::kF64;
  return make_error("unknown dtype '" + std::string(name) + "' (u8, f8, f16, bf16, f32, tf32, f64)", 0,
                    "dtype");
}

std::vector<DType> all_dtypes() {
  return {DType::kU8, DType::kF8, DType::kF16, DType::kBF16, DType::kF32, DType::kTF32, DType::kF64};
}

std::string_view to_string(DType dtype) {
  switch (dtype) {
    case DType::kU8:
      return "u8";
    case DType::kF8:
      return "f8";
    case DType::kF16:
      return "f16";
    case DType::kBF16:
      return "bf16";
    case DType::kF32:
      return "f32";
    case DType::kTF32:
      return "tf32";
    case DType::kF64:
      return "f64";
  }
  return "?";
}

int dtype_bits(DType dtype) {
  switch (dtype) {
    case DType::kU8:
    case DType::kF8:
      return 8;
    case DType::kF16:
    case DType::kBF16:
      return 16;
    case DType::kF32:
    case DType::kTF32:
      return 32;
    case DType::kF64:
      return 64;
  }
  return 0;
}

int dtype_bytes(DType dtype) { return dtype_bits(dtype) / 8; }

Result<SwizzleMode> parse_swizzle_mode(std::string_view name) {
  if (name.starts_with("SWIZZLE_")) name.remove_prefix(8);
  if (name == "none" || name == "NONE") return SwizzleMode::kNone;
  if (name == "32B") return SwizzleMode::k32B;
  if (name == "64B") return SwizzleMode::k64B;
  if (name == "128B") return SwizzleMode::k128B;
  if (name == "128B_ATOM_32B" || name == "128B_BASE32B") return SwizzleMode::k128BAtom32B;
  if (name == "interleave" || name == "INTERLEAVE" || name == "16B" || name == "interleave16B") {
    return SwizzleMode::kInterleave16B;
  }
  return make_error(
      "unknown swizzle mode '" + std::string(name) + "' (none, 32B, 64B, 128B, 128B_ATOM_32B, interleave)", 0,
      "mode");
}

std::string_view to_string(SwizzleMode mode) {
  switch (mode) {
    case SwizzleMode::kNone:
      return "SWIZZLE_NONE";
    case SwizzleMode::k32B:
      return "SWIZZLE_32B";
    case SwizzleMode::k64B:
      return "SWIZZLE_64B";
    case SwizzleMode::k128B:
      return "SWIZZLE_128B";
    case SwizzleMode::k128BAtom32B:
      return "SWIZZLE_128B_ATOM_32B";
    case SwizzleMode::kInterleave16B:
      return "INTERLEAVE_16B";
  }
  return "?";
}

std::string_view short_name(SwizzleMode mode) {
  switch (mode) {
    case SwizzleMode::kNone:
      return "none";
    case SwizzleMode::k32B:
      return "32B";
    case SwizzleMode::k64B:
      return "64B";
    case SwizzleMode::k128B:
      return "128B";
    case SwizzleMode::k128BAtom32B:
      return "128B_ATOM_32B";
    case SwizzleMode::kInterleave16B:
      return "interleave";
  }
  return "?";
}

Result<SwizzleAtom> swizzle_atom(SwizzleMode mode, DType dtype) {
  // Byte-address form of each PTX mode: a 16 B granule (M = 4), B row bits XORed in from 2^(M+S) up.
  // 128B_ATOM_32B swaps 32 B granules: Swizzle<2,5,2> (CUTLASS names it so; PTX ISA tcgen05 shared memory
  // descriptor "128B with 32B atomic").
  SwizzleAtom atom;
  atom.mode = mode;
  Swizzle b;
  b.spelling = SwizzleSpelling::kCute;
  switch (mode) {
    case SwizzleMode::kNone:
    case SwizzleMode::kInterleave16B:
      b.bits = 0, b.base = 4, b.shift = 3, atom.row_bytes = 16;
      break;
    case SwizzleMode::k32B:
      b.bits = 1, b.base = 4, b.shift = 3, atom.row_bytes = 32;
      break;
    case SwizzleMode::k64B:
      b.bits = 2, b.base = 4, b.shift = 3, atom.row_bytes = 64;
      break;
    case SwizzleMode::k128B:
      b.bits = 3, b.base = 4, b.shift = 3, atom.row_bytes = 128;
      break;
    case SwizzleMode::k128BAtom32B:
      b.bits = 2, b.base = 5, b.shift = 2, atom.row_bytes = 128;
      break;
  }
  atom.bytes = b;
  const int elem = dtype_bytes(dtype);
  const int shift = std::countr_zero(static_cast<unsigned>(elem));
  atom.elements = b;
  atom.elements.base = b.base - shift;
  atom.elements.spelling = SwizzleSpelling::kTirx;
  // The permutation repeats every 2^(B+M+S) bytes: 8 rows of N bytes for the PTX modes, 4 rows of 128 B
  // for 128B_ATOM_32B.
  atom.rows = (1 << (b.bits + b.base + b.shift)) / atom.row_bytes;
  atom.elements_per_row = atom.row_bytes / elem;
  return atom;
}

}  // namespace layoutscope
