// The random input of a verification pass, as a pure function of (seed, index), so the device fills it
// in place and the host recomputes the expected value of any element without a copy of the input.
//
// splitmix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014):
// the top 24 bits become a float in [-1, 1) that is exactly representable, never NaN, never 0xffffffff.
// The output buffer is poisoned with 0xffffffff (a NaN) so an element nobody wrote never matches.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define LS_HOST_DEVICE __host__ __device__
#else
#define LS_HOST_DEVICE
#endif

namespace layoutscope::agent {

LS_HOST_DEVICE inline uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

LS_HOST_DEVICE inline float random_input(uint64_t seed, uint64_t index) {
  const uint64_t h = splitmix64(seed * 0x2545f4914f6cdd1dull + index);
  const int32_t m = static_cast<int32_t>(h >> 40);                 // 24 bits, [0, 2^24)
  return static_cast<float>(m - (1 << 23)) * (1.0f / 8388608.0f);  // [-1, 1), exact in float
}

// struct { float f[8]; } x n: the logical index flat = element * 8 + field lives at flat (AoS) or at
// field * n + element (SoA); every filler and checker, host and device, places and finds it here.
LS_HOST_DEVICE inline int64_t field_offset(bool soa, int64_t n, int64_t flat) {
  return soa ? (flat % 8) * n + flat / 8 : flat;
}

// What the aos_soa kernels leave at logical index flat after touching the first `touch` fields: the input
// + 1.0f there, the input elsewhere.
LS_HOST_DEVICE inline float expected_field(uint64_t seed, int64_t flat, int touch) {
  const float in = random_input(seed, static_cast<uint64_t>(flat));
  return flat % 8 < touch ? in + 1.0f : in;
}

inline uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

}  // namespace layoutscope::agent
