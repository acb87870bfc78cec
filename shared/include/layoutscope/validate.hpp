// Findings about a layout over a logical shape: what is wrong (errors), what is suspicious (warnings) and
// what is worth knowing (info). Each finding names the offending mode or axis, so the page can point at it.
// One check per code: size-mismatch, negative-position, hardware-range, tmem-allocation, broadcast-mode,
// partial-sum, swizzle-no-memory-axis, swizzle-overlap, swizzle-atom (a swizzled address leaves the tile's
// addresses), aliasing, replica-overlap, aliasing-not-checked; "invalid" when the layout does not compile.
//
//   S[(8,4):(4@laneid,1@laneid)] + O[8@laneid], shape 8x4
//   -> error "hardware-range": axis laneid reaches 39, its range is [0, 32) (lanes of a warp)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "layoutscope/layout.hpp"
#include "layoutscope/mapping.hpp"
#include "layoutscope/result.hpp"

namespace layoutscope {

enum class Severity { kError, kWarning, kInfo };

struct Finding {
  Severity severity = Severity::kError;
  std::string code;  // one of the codes above
  std::string message;
  std::string where;  // "mode 2", "R 1 mode 0", "axis TLane", "swizzle"
};

// A known hardware axis and the half-open range [0, limit) of its values; limit 0 = unbounded above.
struct HardwareAxis {
  std::string_view name;
  int64_t limit;
  std::string_view meaning;
};
const std::vector<HardwareAxis>& hardware_axes();
const HardwareAxis* find_hardware_axis(std::string_view name);

Result<std::vector<Finding>> validate(const Layout& layout, const std::vector<int64_t>& shape,
                                      int64_t cell_limit = kDefaultCellLimit);

std::string_view to_string(Severity severity);

}  // namespace layoutscope
