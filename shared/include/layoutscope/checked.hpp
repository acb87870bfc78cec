// 64-bit arithmetic that reports overflow instead of wrapping. Layout math multiplies user-supplied
// extents and strides; a product that does not fit in int64 is an input error, never undefined behaviour.
#pragma once

#include <cstdint>

namespace layoutscope {

inline bool add_overflows(int64_t a, int64_t b, int64_t* out) { return __builtin_add_overflow(a, b, out); }
inline bool mul_overflows(int64_t a, int64_t b, int64_t* out) { return __builtin_mul_overflow(a, b, out); }

}  // namespace layoutscope
