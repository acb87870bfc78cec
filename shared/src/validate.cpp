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

// The first pair of (element, replica) cells of the table that share a position, if any.
std::optional<std::pair<int64_t, int64_t>> first_collision(const Table& t, int64_t rows) {
  const size_t n = t.axes.size();
  std::vector<int64_t> order(static_cast<size_t>(rows));
  std::iota(order.begin(), order.end(), 0);
  const int64_t* v = t.values.data();
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

}  // namespace

Result<std::vector<Finding>> validate(const Layout& layout, const std::vector<int64_t>& shape,
                                      int64_t cell_limit) {
  std::vector<Finding> out;
  auto compiled = CompiledLayout::compile(layout);
  if (!compiled) {
    out.push_back({Severity::kError, "invalid", compiled.error().message, compiled.error().field});
    return out;
  }
  const CompiledLayout& c = *compiled;
  const std::vector<std::string>& axes = c.axes();

  int64_t logical = 1;
  bool logical_ok = true;
  for (int64_t e : shape) logical_ok = logical_ok && e >= 1 && !mul_overflows(logical, e, &logical);
  if (!logical_ok)
    return make_error("the logical shape overflows 64 bits or has an extent below 1", 0, "shape");
  if (logical != c.size()) {
    out.push_back({Severity::kError, "size-mismatch",
                   "the logical shape has " + std::to_string(logical) +
                       " elements but the layout's extents multiply to " + std::to_string(c.size()),
                   "shape"});
  }

  // Range of every axis over all elements and replicas, before the swizzle (which only permutes bits of m
  // inside an atom and keeps a non-negative offset non-negative).
  std::vector<int64_t> lo(axes.size(), 0), hi(axes.size(), 0);
  const auto axis_of = [&axes](const std::string& name) {
    return static_cast<size_t>(std::find(axes.begin(), axes.end(), name) - axes.begin());
  };
  for (const AxisStride& o : layout.offset) {
    lo[axis_of(o.axis)] += o.k;
    hi[axis_of(o.axis)] += o.k;
  }
  auto spread = [&](const std::vector<Mode>& modes) {
    for (const Mode& mode : modes) {
      const int64_t span = (mode.extent - 1) * mode.stride.k;  // compile() proved it fits
      (span >= 0 ? hi : lo)[axis_of(mode.stride.axis)] += span;
    }
  };
  spread(layout.shard);
  for (const auto& group : layout.replicas) spread(group);

  for (size_t a = 0; a < axes.size(); ++a) {
    const std::string where = "axis " + axes[a];
    const std::string modes = modes_on_axis(layout, axes[a]);
    if (lo[a] < 0) {
      out.push_back({Severity::kError, "negative-position",
                     "axis " + axes[a] + " reaches " + std::to_string(lo[a]) +
                         "; positions must be non-negative" + (modes.empty() ? "" : " (" + modes + ")"),
                     where});
    }
    const HardwareAxis* hw = find_hardware_axis(axes[a]);
    if (hw && hw->limit > 0 && hi[a] >= hw->limit) {
      out.push_back({Severity::kError, "hardware-range",
                     "axis " + axes[a] + " reaches " + std::to_string(hi[a]) + ", its range is [0, " +
                         std::to_string(hw->limit) + ") (" + std::string(hw->meaning) + ")" +
                         (modes.empty() ? "" : "; " + modes),
                     where});
    }
  }
  if (const HardwareAxis* tcol = find_hardware_axis("TCol"); tcol && axis_of("TCol") < axes.size()) {
    // TMEM is allocated in power-of-two column slices of at least 32 (PTX tcgen05.alloc).
    int64_t cols = 32;
    while (cols <= hi[axis_of("TCol")]) cols *= 2;
    out.push_back(
        {Severity::kInfo, "tmem-allocation",
         "needs a TMEM allocation of " + std::to_string(cols) + " columns (power of two, at least 32)",
         "axis TCol"});
  }

  for (size_t i = 0; i < layout.shard.size(); ++i) {
    if (layout.shard[i].extent > 1 && layout.shard[i].stride.k == 0) {
      out.push_back({Severity::kWarning, "broadcast-mode",
                     "mode " + std::to_string(i) + " has stride 0: its " +
                         std::to_string(layout.shard[i].extent) +
                         " elements share one position (use R[...] to express copies)",
                     "mode " + std::to_string(i)});
    }
  }

  if (layout.swizzle) {
    const Swizzle& s = *layout.swizzle;
    if (axis_of(std::string(kMemoryAxis)) >= axes.size() ||
        std::none_of(layout.shard.begin(), layout.shard.end(),
                     [](const Mode& m) { return m.stride.axis == kMemoryAxis; })) {
      out.push_back({Severity::kWarning, "swizzle-no-memory-axis",
                     "the swizzle permutes @m but no mode of S moves along @m", "swizzle"});
    }
    if (s.bits > 0 && s.shift < s.bits) {
      out.push_back(
          {Severity::kWarning, "swizzle-overlap",
           "shift " + std::to_string(s.shift) + " < bits " + std::to_string(s.bits) +
               ": the XOR source and target bits overlap, the swizzle is a permutation but not its own "
               "inverse (CuTe requires S >= B)",
           "swizzle"});
    }
    const size_t m = axis_of(std::string(kMemoryAxis));
    if (s.bits > 0 && m < axes.size()) {
      const int64_t atom = int64_t{1} << (s.bits + s.base + s.shift);
      const int64_t span = hi[m] + 1;
      if (lo[m] == 0 && span % atom != 0) {
        out.push_back({Severity::kWarning, "swizzle-atom",
                       "the @m span " + std::to_string(span) + " is not a multiple of the swizzle atom " +
                           std::to_string(atom) + " (2^(B+M+S)): swizzled offsets can leave the tile",
                       "swizzle"});
      }
    }
  }

  // Aliasing: replica terms do not depend on the element and the swizzle is a bijection on m, so two
  // elements collide in some replica exactly when they collide in replica 0.
  int64_t cells;
  if (logical == c.size() && !mul_overflows(c.size(), c.replicas(), &cells) && cells <= cell_limit) {
    auto t = table(layout, shape, cell_limit);
    if (t) {
      Table base = *t;
      if (t->replicas > 1) {
        base.values.clear();
        const size_t n = t->axes.size();
        for (int64_t x = 0; x < t->elements; ++x) {
          const auto* row = t->values.data() + static_cast<size_t>(x * t->replicas) * n;
          base.values.insert(base.values.end(), row, row + n);
        }
      }
      if (auto pair = first_collision(base, t->elements)) {
        const size_t n = t->axes.size();
        out.push_back({Severity::kError, "aliasing",
                       "elements " + std::to_string(pair->first) + " and " + std::to_string(pair->second) +
                           " both map to " +
                           position_text(t->axes, base.values.data() + static_cast<size_t>(pair->first) * n) +
                           " without R[...]",
                       "S"});
      } else if (t->replicas > 1) {
        if (auto cells_pair = first_collision(*t, cells)) {
          const size_t n = t->axes.size();
          out.push_back(
              {Severity::kWarning, "replica-overlap",
               "element " + std::to_string(cells_pair->first / t->replicas) + " replica " +
                   std::to_string(cells_pair->first % t->replicas) + " and element " +
                   std::to_string(cells_pair->second / t->replicas) + " replica " +
                   std::to_string(cells_pair->second % t->replicas) + " share " +
                   position_text(t->axes, t->values.data() + static_cast<size_t>(cells_pair->first) * n),
               "R"});
        }
      }
    }
  } else if (logical == c.size()) {
    out.push_back({Severity::kInfo, "aliasing-not-checked",
                   "aliasing is checked up to " + std::to_string(cell_limit) + " cells; this layout has more",
                   "S"});
  }
  return out;
}

}  // namespace layoutscope
