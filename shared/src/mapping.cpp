#include "layoutscope/mapping.hpp"

#include <algorithm>

#include "layoutscope/checked.hpp"
#include "layoutscope/parse.hpp"

namespace layoutscope {
namespace {

std::string join(const std::vector<int64_t>& v, const char* sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + std::to_string(v[i]);
  return out;
}

// x split row-major over extents (the last extent varies fastest).
std::vector<int64_t> unflatten(int64_t x, const std::vector<int64_t>& extents) {
  std::vector<int64_t> digits(extents.size());
  for (size_t i = extents.size(); i-- > 0;) {
    digits[i] = i == 0 ? x : x % extents[i];
    x = i == 0 ? 0 : x / extents[i];
  }
  return digits;
}

Result<int64_t> shape_size(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 1)
      return make_error("shape extent " + std::to_string(i) + " must be at least 1", 0, "shape");
    if (mul_overflows(n, shape[i], &n)) return make_error("shape size overflows 64 bits", 0, "shape");
  }
  return n;
}

}  // namespace

Result<CompiledLayout> compile_for_shape(const Layout& layout, const std::vector<int64_t>& shape) {
  auto compiled = CompiledLayout::compile(layout);
  if (!compiled) return compiled.error();
  if (shape.empty()) return make_error("the logical shape is empty", 0, "shape");
  auto n = shape_size(shape);
  if (!n) return n.error();
  if (*n != compiled->size()) {
    return make_error("the logical shape " + join(shape, "x") + " has " + std::to_string(*n) +
                          " elements but the layout maps " + std::to_string(compiled->size()),
                      0, "shape");
  }
  return compiled;
}

namespace {

std::string position_text(const std::vector<std::string>& axes, const Position& p) {
  std::string out = "{";
  for (size_t a = 0; a < axes.size(); ++a) {
    out += (a ? ", " : "") + axes[a] + ": " + std::to_string(p.values[a]);
  }
  return out + "}";
}

// The low `bits` bits of v, most significant first.
std::string bits_text(int64_t v, int bits) {
  std::string out;
  for (int b = bits - 1; b >= 0; --b) out += ((v >> b) & 1) ? '1' : '0';
  return out;
}

std::string terms_text(const std::vector<Term>& terms) {
  std::string out;
  for (size_t i = 0; i < terms.size(); ++i) {
    out += (i ? " + " : "") + std::to_string(terms[i].digit) + "·" + std::to_string(terms[i].stride.k) + "@" +
           terms[i].stride.axis;
  }
  return out;
}

}  // namespace

Result<std::vector<int64_t>> default_shape(const Layout& layout) {
  auto n = layout_size(layout);
  if (!n) return n.error();
  return std::vector<int64_t>{*n};
}

Result<Mapping> forward_index(const Layout& layout, const std::vector<int64_t>& shape, int64_t index) {
  auto compiled = compile_for_shape(layout, shape);
  if (!compiled) return compiled.error();
  const CompiledLayout& c = *compiled;
  if (index < 0 || index >= c.size()) {
    return make_error("index " + std::to_string(index) + " is outside [0, " + std::to_string(c.size()) + ")",
                      0, "index");
  }
  if (c.replicas() > kMaxForwardReplicas) {
    return make_error("the layout has " + std::to_string(c.replicas()) +
                          " replicas per element, more than the " + std::to_string(kMaxForwardReplicas) +
                          " one mapping lists",
                      0, "R");
  }
  const std::vector<std::string>& axes = c.axes();
  const auto axis_of = [&axes](const std::string& name) {
    return static_cast<size_t>(std::find(axes.begin(), axes.end(), name) - axes.begin());
  };

  Mapping out;
  out.index = index;
  out.coord = unflatten(index, shape);
  std::vector<int64_t> extents;
  for (const Mode& mode : layout.shard) extents.push_back(mode.extent);
  out.split = unflatten(index, extents);
  for (size_t i = 0; i < layout.shard.size(); ++i)
    out.terms.push_back(Term{out.split[i], layout.shard[i].stride});

  std::vector<Mode> replica_modes;
  std::vector<int64_t> replica_extents;
  for (const auto& group : layout.replicas) {
    for (const Mode& mode : group) {
      replica_modes.push_back(mode);
      replica_extents.push_back(mode.extent);
    }
  }
  const size_t m_axis = axis_of(std::string(kMemoryAxis));
  Position base;
  base.values.assign(axes.size(), 0);
  for (const AxisStride& o : layout.offset) base.values[axis_of(o.axis)] += o.k;
  for (const Term& t : out.terms) base.values[axis_of(t.stride.axis)] += t.digit * t.stride.k;

  for (int64_t r = 0; r < c.replicas(); ++r) {
    ReplicaStep step;
    step.digits = unflatten(r, replica_extents);
    step.position = base;
    for (size_t i = 0; i < replica_modes.size(); ++i) {
      step.terms.push_back(Term{step.digits[i], replica_modes[i].stride});
      step.position.values[axis_of(replica_modes[i].stride.axis)] +=
          step.digits[i] * replica_modes[i].stride.k;
    }
    Position final_position = step.position;
    if (m_axis < axes.size()) {
      step.m_before_swizzle = step.position.values[m_axis];
      step.m_after_swizzle =
          layout.swizzle ? apply_swizzle(*layout.swizzle, step.m_before_swizzle) : step.m_before_swizzle;
      final_position.values[m_axis] = step.m_after_swizzle;
    }
    // The fast path must agree with this step-by-step account; both are the same arithmetic.
    out.positions.push_back(final_position);
    out.replica_steps.push_back(std::move(step));
  }
  std::sort(out.positions.begin(), out.positions.end());
  out.positions.erase(std::unique(out.positions.begin(), out.positions.end()), out.positions.end());

  std::string& d = out.derivation;
  d = "x = " + std::to_string(index);
  if (shape.size() > 1) d += " = flat(" + join(out.coord, ",") + "; " + join(shape, ",") + ")";
  d += "; (";
  for (size_t i = 0; i < extents.size(); ++i) d += (i ? "," : "") + std::string("c") + std::to_string(i);
  d += ") = unflatten(" + std::to_string(index) + "; " + join(extents, ",") + ") = (" + join(out.split, ",") +
       "); f_D(x) = " + terms_text(out.terms);
  if (!layout.offset.empty()) {
    d += " + O[";
    for (size_t i = 0; i < layout.offset.size(); ++i) d += (i ? " + " : "") + to_string(layout.offset[i]);
    d += "]";
  }
  if (c.replicas() == 1) {
    d += " = " + position_text(axes, out.replica_steps[0].position);
  } else {
    d += " = " + position_text(axes, base) + "; replicas:";
    for (int64_t r = 0; r < c.replicas(); ++r) {
      const ReplicaStep& step = out.replica_steps[static_cast<size_t>(r)];
      d += " r=" + std::to_string(r) + " (" + join(step.digits, ",") + "): + " + terms_text(step.terms) +
           " -> " + position_text(axes, step.position) + ";";
    }
    d.pop_back();
  }
  if (layout.swizzle && m_axis < axes.size()) {
    const Swizzle& s = *layout.swizzle;
    d += "; swizzle<" + std::to_string(s.bits) + "," + std::to_string(s.base) + "," +
         std::to_string(s.shift) + "> on m:";
    // Show the two bit fields: the source field is XORed into the target field.
    const int src = s.inner ? s.base + s.shift : s.base;
    const int dst = s.inner ? s.base : s.base + s.shift;
    for (const ReplicaStep& step : out.replica_steps) {
      const int64_t m = step.m_before_swizzle;
      d += " " + std::to_string(m);
      if (s.bits > 0 && m >= 0) {
        d += " (bits [" + std::to_string(src) + "," + std::to_string(src + s.bits) +
             ") = " + bits_text(m >> src, s.bits) + " xor bits [" + std::to_string(dst) + "," +
             std::to_string(dst + s.bits) + ") = " + bits_text(m >> dst, s.bits) + ")";
      }
      d += " -> " + std::to_string(step.m_after_swizzle) + ";";
    }
    d.pop_back();
  }
  return out;
}

Result<Mapping> forward_coord(const Layout& layout, const std::vector<int64_t>& shape,
                              const std::vector<int64_t>& coord) {
  if (coord.size() != shape.size()) {
    return make_error("coordinate has " + std::to_string(coord.size()) + " dimensions, the shape " +
                          std::to_string(shape.size()),
                      0, "coord");
  }
  int64_t x = 0;
  for (size_t i = 0; i < coord.size(); ++i) {
    if (coord[i] < 0 || coord[i] >= shape[i]) {
      return make_error("coordinate " + std::to_string(coord[i]) + " in dimension " + std::to_string(i) +
                            " is outside [0, " + std::to_string(shape[i]) + ")",
                        0, "coord");
    }
    if (mul_overflows(x, shape[i], &x) || add_overflows(x, coord[i], &x)) {
      return make_error("coordinate overflows 64 bits", 0, "coord");
    }
  }
  return forward_index(layout, shape, x);
}

Result<std::vector<InverseHit>> inverse(const Layout& layout, const std::vector<int64_t>& shape,
                                        const std::vector<AxisValue>& query, int64_t cell_limit) {
  auto compiled = compile_for_shape(layout, shape);
  if (!compiled) return compiled.error();
  const CompiledLayout& c = *compiled;
  int64_t cells;
  if (mul_overflows(c.size(), c.replicas(), &cells) || cells > cell_limit) {
    return make_error("inverse scans " + std::to_string(c.size()) + " elements x " +
                          std::to_string(c.replicas()) + " replicas, more than the limit of " +
                          std::to_string(cell_limit) + " cells",
                      0, "shape");
  }
  const auto& axes = c.axes();
  std::vector<std::pair<size_t, int64_t>> wanted;
  for (const AxisValue& q : query) {
    const auto a = static_cast<size_t>(std::find(axes.begin(), axes.end(), q.axis) - axes.begin());
    if (a == axes.size()) {
      if (q.value != 0) return std::vector<InverseHit>{};  // an axis the layout never moves stays at 0
      continue;
    }
    wanted.emplace_back(a, q.value);
  }
  std::vector<InverseHit> hits;
  std::vector<int64_t> pos(axes.size());
  for (int64_t x = 0; x < c.size(); ++x) {
    for (int64_t r = 0; r < c.replicas(); ++r) {
      c.map(x, r, pos.data());
      bool match = true;
      for (const auto& [a, v] : wanted) match = match && pos[a] == v;
      if (!match) continue;
      hits.push_back(InverseHit{x, unflatten(x, shape), r, Position{pos}});
    }
  }
  return hits;
}

Result<Table> table(const Layout& layout, const std::vector<int64_t>& shape, int64_t cell_limit) {
  auto compiled = compile_for_shape(layout, shape);
  if (!compiled) return compiled.error();
  const CompiledLayout& c = *compiled;
  int64_t cells, values;
  if (mul_overflows(c.size(), c.replicas(), &cells) || cells > cell_limit ||
      mul_overflows(cells, c.axis_count(), &values) || values / kValuesPerCellBudget > cell_limit) {
    return make_error("the table has " + std::to_string(c.size()) + " elements x " +
                          std::to_string(c.replicas()) + " replicas on " + std::to_string(c.axis_count()) +
                          " axes, more than the limit of " + std::to_string(cell_limit) + " cells (" +
                          std::to_string(kValuesPerCellBudget) + " axis values a cell)",
                      0, "shape");
  }
  Table t;
  t.axes = c.axes();
  t.shape = shape;
  t.elements = c.size();
  t.replicas = c.replicas();
  const size_t n_axes = t.axes.size();
  t.values.resize(static_cast<size_t>(cells) * n_axes);
  int64_t* out = t.values.data();
  const auto row = static_cast<int64_t>(n_axes) * c.replicas();
  for (int64_t x = 0; x < c.size(); ++x, out += row) c.map_replicas(x, out);
  t.min.assign(n_axes, 0);
  t.max.assign(n_axes, 0);
  for (size_t a = 0; a < n_axes; ++a) {
    if (cells == 0) break;
    t.min[a] = t.max[a] = t.values[a];
    for (size_t i = a; i < t.values.size(); i += n_axes) {
      t.min[a] = std::min(t.min[a], t.values[i]);
      t.max[a] = std::max(t.max[a], t.values[i]);
    }
  }
  return t;
}

}  // namespace layoutscope
