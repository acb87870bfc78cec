#include "layoutscope/validate.hpp"

#include <algorithm>
#include <numeric>

#include "layoutscope/checked.hpp"

namespace layoutscope {

const std::vector<HardwareAxis>& hardware_axes() {
  // Ranges from the PTX ISA and the CUDA programming guide (threads per block 1024, 32 lanes per warp,
  // TMEM 128 lanes x 512 columns of 32 bit per CTA), and TVM TIRx's Trainium axes (128 partitions,
  // 8 PSUM banks). A limit of 0 means: non-negative, no upper bound.
  static const std::vector<HardwareAxis> axes = {
      {"laneid", 32, "lane of a warp"},
      {"TLane", 128, "TMEM lane of a CTA"},
      {"TCol", 512, "TMEM 32-bit column of a CTA"},
      {"byte", 4, "byte within a 32-bit TMEM column"},
      {"warpid", 32, "warp of a CTA (1024 threads)"},
      {"wgid", 8, "warpgroup of a CTA (128 threads each)"},
      {"tid_in_wg", 128, "thread of a warpgroup"},
      {"tx", 1024, "thread of a CTA"},
      {"reg", 255, "register slot of a thread"},
      {"m", 0, "memory offset"},
      {"gpuid_x", 0, "device of a mesh, x"},
      {"gpuid_y", 0, "device of a mesh, y"},
      {"gpuid_z", 0, "device of a mesh, z"},
      {"pid", 0, "program / CTA id"},
      {"P", 128, "Trainium SBUF partition"},
      {"F", 0, "Trainium free dimension"},
      {"Bank", 8, "Trainium PSUM bank"},
  };
  return axes;
}

const HardwareAxis* find_hardware_axis(std::string_view name) {
  for (const HardwareAxis& axis : hardware_axes()) {
    if (axis.name == name) return &axis;
  }
  return nullptr;
}

std::string_view to_string(Severity severity) {
  switch (severity) {
    case Severity::kError:
      return "error";
    case Severity::kWarning:
      return "warning";
    case Severity::kInfo:
      return "info";
  }
  return "?";
}

namespace {

std::string modes_on_axis(const Layout& layout, const std::string& axis) {
  std::string out;
  for (size_t i = 0; i < layout.shard.size(); ++i) {
    if (layout.shard[i].stride.axis == axis) out += (out.empty() ? "mode " : ", ") + std::to_string(i);
  }
  return out;
}

std::string position_text(const std::vector<std::string>& axes, const int64_t* p) {
  std::string out = "{";
  for (size_t a = 0; a < axes.size(); ++a) out += (a ? ", " : "") + axes[a] + ": " + std::to_string(p[a]);
  return out + "}";
}

// The first pair of rows of `values` (n values a row) that are equal, if any.
std::optional<std::pair<int64_t, int64_t>> first_collision(const std::vector<int64_t>& values, size_t n,
                                                           int64_t rows) {
  std::vector<int64_t> order(static_cast<size_t>(rows));
  std::iota(order.begin(), order.end(), 0);
  const int64_t* v = values.data();
  const auto row = [&](int64_t i) { return v + static_cast<size_t>(i) * n; };
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    if (std::lexicographical_compare(row(a), row(a) + n, row(b), row(b) + n)) return true;
    return std::equal(row(a), row(a) + n, row(b)) && a < b;
  });
  for (size_t i = 1; i < order.size(); ++i) {
    if (std::equal(row(order[i - 1]), row(order[i - 1]) + n, row(order[i]))) {
      return std::make_pair(std::min(order[i - 1], order[i]), std::max(order[i - 1], order[i]));
    }
  }
  return std::nullopt;
}

// What every check reads: the layout compiled, each axis's range before the swizzle, and the whole table
// when it fits the cell limit.
struct Subject {
  const Layout& layout;
  const CompiledLayout& compiled;
  int64_t logical = 0;  // elements of the logical shape
  std::vector<int64_t> lo, hi;
  std::optional<Table> table;
  size_t axis_of(std::string_view name) const {
    const auto& axes = compiled.axes();
    return static_cast<size_t>(std::find(axes.begin(), axes.end(), name) - axes.begin());
  }
  bool has_axis(std::string_view name) const { return axis_of(name) < compiled.axes().size(); }
};

using Findings = std::vector<Finding>;

void check_size_mismatch(const Subject& s, Findings& out) {
  if (s.logical == s.compiled.size()) return;
  out.push_back({Severity::kError, "size-mismatch",
                 "the logical shape has " + std::to_string(s.logical) +
                     " elements but the layout's extents multiply to " + std::to_string(s.compiled.size()),
                 "shape"});
}

void check_negative_position(const Subject& s, Findings& out) {
  const auto& axes = s.compiled.axes();
  for (size_t a = 0; a < axes.size(); ++a) {
    if (s.lo[a] >= 0) continue;
    const std::string modes = modes_on_axis(s.layout, axes[a]);
    out.push_back({Severity::kError, "negative-position",
                   "axis " + axes[a] + " reaches " + std::to_string(s.lo[a]) +
                       "; positions must be non-negative" + (modes.empty() ? "" : " (" + modes + ")"),
                   "axis " + axes[a]});
  }
}

void check_hardware_range(const Subject& s, Findings& out) {
  const auto& axes = s.compiled.axes();
  for (size_t a = 0; a < axes.size(); ++a) {
    const HardwareAxis* hw = find_hardware_axis(axes[a]);
    if (!hw || hw->limit == 0 || s.hi[a] < hw->limit) continue;
    const std::string modes = modes_on_axis(s.layout, axes[a]);
    out.push_back({Severity::kError, "hardware-range",
                   "axis " + axes[a] + " reaches " + std::to_string(s.hi[a]) + ", its range is [0, " +
                       std::to_string(hw->limit) + ") (" + std::string(hw->meaning) + ")" +
                       (modes.empty() ? "" : "; " + modes),
                   "axis " + axes[a]});
  }
}

void note_tmem_allocation(const Subject& s, Findings& out) {
  if (!s.has_axis("TCol")) return;
  // TMEM is allocated in power-of-two column slices of at least 32 (PTX tcgen05.alloc).
  int64_t cols = 32;
  while (cols <= s.hi[s.axis_of("TCol")]) cols *= 2;
  out.push_back(
      {Severity::kInfo, "tmem-allocation",
       "needs a TMEM allocation of " + std::to_string(cols) + " columns (power of two, at least 32)",
       "axis TCol"});
}

void check_broadcast_mode(const Subject& s, Findings& out) {
  const auto& shard = s.layout.shard;
  for (size_t i = 0; i < shard.size(); ++i) {
    if (shard[i].extent <= 1 || shard[i].stride.k != 0) continue;
    out.push_back({Severity::kWarning, "broadcast-mode",
                   "mode " + std::to_string(i) + " has stride 0: its " + std::to_string(shard[i].extent) +
                       " elements share one position (use R[...] to express copies)",
                   "mode " + std::to_string(i)});
  }
}

void note_partial_sums(const Subject& s, Findings& out) {
  const auto& groups = s.layout.partials;
  for (size_t g = 0; g < groups.size(); ++g) {
    int64_t holders = 1;
    std::string axes;
    for (const Mode& mode : groups[g]) {
      holders *= mode.extent;  // compile() proved the product fits
      if (axes.find("@" + mode.stride.axis) == std::string::npos)
        axes += (axes.empty() ? "@" : ", @") + mode.stride.axis;
    }
    out.push_back({Severity::kInfo, "partial-sum",
                   "P " + std::to_string(g) + ": each element is held as " + std::to_string(holders) +
                       " partial values along " + axes + " that sum to it (a pending reduction)",
                   "P " + std::to_string(g)});
  }
}

void check_swizzle_no_memory_axis(const Subject& s, Findings& out) {
  const auto& shard = s.layout.shard;
  if (s.has_axis(kMemoryAxis) &&
      std::any_of(shard.begin(), shard.end(), [](const Mode& m) { return m.stride.axis == kMemoryAxis; }))
    return;
  out.push_back({Severity::kWarning, "swizzle-no-memory-axis",
                 "the swizzle permutes @m but no mode of S moves along @m", "swizzle"});
}

void check_swizzle_overlap(const Subject& s, Findings& out) {
  const Swizzle& sw = *s.layout.swizzle;
  if (sw.bits == 0 || sw.shift >= sw.bits) return;
  out.push_back({Severity::kWarning, "swizzle-overlap",
                 "shift " + std::to_string(sw.shift) + " < bits " + std::to_string(sw.bits) +
                     ": the XOR source and target bits overlap, the swizzle is a permutation but not its own "
                     "inverse (CuTe requires |S| >= B)",
                 "swizzle"});
}

// The swizzle moves addresses: it is harmless when it permutes the tile's own addresses, and a bug when a
// swizzled address leaves them (reads outside the tile, or onto an address another tile owns).
void check_swizzle_atom(const Subject& s, Findings& out) {
  const Swizzle& sw = *s.layout.swizzle;
  if (sw.bits == 0 || !s.table || !s.has_axis(kMemoryAxis)) return;
  const Table& t = *s.table;
  const size_t n = t.axes.size(), m = s.axis_of(kMemoryAxis);
  std::vector<int64_t> after, before;
  for (size_t i = m; i < t.values.size(); i += n) {
    after.push_back(t.values[i]);
    before.push_back(unapply_swizzle(sw, t.values[i]));
  }
  std::vector<int64_t> own = before;
  std::sort(own.begin(), own.end());
  own.erase(std::unique(own.begin(), own.end()), own.end());
  for (size_t i = 0; i < after.size(); ++i) {
    if (std::binary_search(own.begin(), own.end(), after[i])) continue;
    const bool outside = after[i] < own.front() || after[i] > own.back();
    out.push_back(
        {Severity::kWarning, "swizzle-atom",
         "the swizzle moves address " + std::to_string(before[i]) + " to " + std::to_string(after[i]) +
             (outside ? ", outside the tile's addresses [" + std::to_string(own.front()) + ", " +
                            std::to_string(own.back()) + "]"
                      : ", which is not one of the tile's addresses (a gap in its stride pattern)") +
             ": the swizzle atom 2^(B+M+S) = " +
             std::to_string(int64_t{1} << (sw.bits + sw.base + sw.shift)) + " does not tile these addresses",
         "swizzle"});
    return;
  }
}

// Aliasing: holder terms do not depend on the element and the swizzle is a bijection on m, so two elements
// collide at some holder exactly when they collide at holder 0.
void check_aliasing(const Subject& s, int64_t cell_limit, Findings& out) {
  if (s.logical != s.compiled.size()) return;
  if (!s.table) {
    out.push_back({Severity::kInfo, "aliasing-not-checked",
                   "aliasing and swizzle bounds are checked up to " + std::to_string(cell_limit) +
                       " cells; this layout has more",
                   "S"});
    return;
  }
  const Table& t = *s.table;
  const size_t n = t.axes.size();
  const int64_t holders = t.holders();
  std::vector<int64_t> first(static_cast<size_t>(t.elements) * n);
  for (int64_t x = 0; x < t.elements; ++x) {
    const auto* row = t.values.data() + static_cast<size_t>(x * holders) * n;
    std::copy(row, row + n, first.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(x) * n));
  }
  if (auto pair = first_collision(first, n, t.elements)) {
    out.push_back({Severity::kError, "aliasing",
                   "elements " + std::to_string(pair->first) + " and " + std::to_string(pair->second) +
                       " both map to " +
                       position_text(t.axes, first.data() + static_cast<size_t>(pair->first) * n) +
                       " without R[...]",
                   "S"});
    return;
  }
  if (holders <= 1) return;
  if (auto cells = first_collision(t.values, n, t.elements * holders)) {
    out.push_back({Severity::kWarning, "replica-overlap",
                   "element " + std::to_string(cells->first / holders) + " replica " +
                       std::to_string(cells->first % holders) + " and element " +
                       std::to_string(cells->second / holders) + " replica " +
                       std::to_string(cells->second % holders) + " share " +
                       position_text(t.axes, t.values.data() + static_cast<size_t>(cells->first) * n),
                   "R"});
  }
}

}  // namespace

Result<std::vector<Finding>> validate(const Layout& layout, const std::vector<int64_t>& shape,
                                      int64_t cell_limit) {
  std::vector<Finding> out;
  auto compiled = CompiledLayout::compile(layout);
  if (!compiled) {
    out.push_back({Severity::kError, "invalid", compiled.error().message, compiled.error().field});
    return out;
  }
  int64_t logical = 1;
  bool logical_ok = true;
  for (int64_t e : shape) logical_ok = logical_ok && e >= 1 && !mul_overflows(logical, e, &logical);
  if (!logical_ok) {
    return make_error("the logical shape overflows 64 bits or has an extent below 1", 0, "shape", "range");
  }
  Subject s{layout, *compiled, logical, {}, {}, std::nullopt};

  // Range of every axis over all elements and holders, before the swizzle.
  const size_t n = compiled->axes().size();
  s.lo.assign(n, 0);
  s.hi.assign(n, 0);
  for (const AxisStride& o : layout.offset) {
    s.lo[s.axis_of(o.axis)] += o.k;
    s.hi[s.axis_of(o.axis)] += o.k;
  }
  auto spread = [&s](const std::vector<Mode>& modes) {
    for (const Mode& mode : modes) {
      const int64_t span = (mode.extent - 1) * mode.stride.k;  // compile() proved it fits
      (span >= 0 ? s.hi : s.lo)[s.axis_of(mode.stride.axis)] += span;
    }
  };
  spread(layout.shard);
  for (const auto& group : layout.replicas) spread(group);
  for (const auto& group : layout.partials) spread(group);
  int64_t cells;
  if (logical == compiled->size() && !mul_overflows(compiled->size(), compiled->holders(), &cells) &&
      cells <= cell_limit) {
    auto t = table(layout, shape, cell_limit);
    if (t) s.table = std::move(t).value();
  }

  check_size_mismatch(s, out);
  check_negative_position(s, out);
  check_hardware_range(s, out);
  note_tmem_allocation(s, out);
  check_broadcast_mode(s, out);
  note_partial_sums(s, out);
  if (layout.swizzle) {
    check_swizzle_no_memory_axis(s, out);
    check_swizzle_overlap(s, out);
    check_swizzle_atom(s, out);
  }
  check_aliasing(s, cell_limit, out);
  return out;
}

}  // namespace layoutscope
