#include "bench/benchmark.hpp"

namespace layoutscope::agent {

const char* to_string(TransposeVariant v) {
  switch (v) {
    case TransposeVariant::kCopy:
      return "copy";
    case TransposeVariant::kNaive:
      return "naive";
    case TransposeVariant::kTiled:
      return "tiled";
    case TransposeVariant::kPad:
      return "pad";
    case TransposeVariant::kTile64Pad:
      return "tile64_pad";
    case TransposeVariant::kTile64Swizzle:
      return "tile64_swizzle";
  }
  return "?";
}

const char* to_string(AosSoaLayout l) {
  switch (l) {
    case AosSoaLayout::kAos:
      return "aos";
    case AosSoaLayout::kSoa:
      return "soa";
    case AosSoaLayout::kAosVec:
      return "aos_vec";
    case AosSoaLayout::kSoaVec:
      return "soa_vec";
  }
  return "?";
}

const char* to_string(Ceiling c) {
  switch (c) {
    case Ceiling::kMemcpy:
      return "memcpy";
    case Ceiling::kCopyVec4:
      return "copy_vec4";
    case Ceiling::kCopyScalar:
      return "copy_scalar";
    case Ceiling::kCopyTma:
      return "copy_tma";
  }
  return "?";
}

}  // namespace layoutscope::agent
