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
      return make_error("shape extent " + std::to_string(i) + " must be at least 1", 0, "shape", "range");
    if (mul_overflows(n, shape[i], &n))
      return make_error("shape size overflows 64 bits", 0, "shape", "overflow");
  }
  return n;
}

std::vector<Mode> concat(const std::vector<std::vector<Mode>>& groups) {
  std::vector<Mode> out;
  for (const auto& group : groups) out.insert(out.end(), group.begin(), group.end());
  return out;
}

std::vector<int64_t> extents_of(const std::vector<Mode>& modes) {
  std::vector<int64_t> out;
  for (const Mode& mode : modes) out.push_back(mode.extent);
  return out;
}

std::string derivation_text(const Layout& layout, const std::vector<int64_t>& shape,
                            const std::vector<std::string>& axes, const Mapping& m);

}  // namespace

Result<CompiledLayout> compile_for_shape(const Layout& layout, const std::vector<int64_t>& shape) {
  auto compiled = CompiledLayout::compile(layout);
  if (!compiled) return compiled.error();
  if (shape.empty()) return make_error("the logical shape is empty", 0, "shape", "range");
  auto n = shape_size(shape);
  if (!n) return n.error();
  if (*n != compiled->size()) {
    return make_error("the logical shape " + join(shape, "x") + " has " + std::to_string(*n) +
                          " elements but the layout maps " + std::to_string(compiled->size()),
                      0, "shape", "size-mismatch");
  }
  return compiled;
}

Result<std::vector<int64_t>> default_shape(const Layout& layout) {
  auto n = layout_size(layout);
  if (!n) return n.error();
  return std::vector<int64_t>{*n};
}

Result<std::vector<int64_t>> drawing_shape(const Layout& layout) {
  auto d = default_shape(layout);
  if (!d) return d.error();
  const int64_t size = d->front();
  if (layout.shard.size() < 2) return d;
  const int64_t cols = layout.shard.back().extent;
  if (cols < 2 || cols >= size || size % cols != 0) return d;
  return std::vector<int64_t>{size / cols, cols};
}

// The mapping step by step, from the definition (layout.hpp): split x, add each digit times its stride, add
// each holder's digits, then swizzle @m. The whole-domain tests check it against table(), the fast path.
Result<Mapping> forward_index(const Layout& layout, const std::vector<int64_t>& shape, int64_t index) {
  auto compiled = compile_for_shape(layout, shape);
  if (!compiled) return compiled.error();
  const CompiledLayout& c = *compiled;
  if (index < 0 || index >= c.size()) {
    return make_error("index " + std::to_string(index) + " is outside [0, " + std::to_string(c.size()) + ")",
                      0, "index", "range");
  }
  if (c.holders() > kMaxForwardReplicas) {
    return make_error("the layout has " + std::to_string(c.holders()) + " positions per element (replicas" +
                          (c.has_partials() ? " times partial-sum holders" : "") + "), more than the " +
                          std::to_string(kMaxForwardReplicas) + " one mapping lists",
                      0, c.has_partials() ? "P" : "R", "limit");
  }
  const std::vector<std::string>& axes = c.axes();
  const auto axis_of = [&axes](const std::string& name) {
    return static_cast<size_t>(std::find(axes.begin(), axes.end(), name) - axes.begin());
  };

  Mapping out;
  out.index = index;
  out.coord = unflatten(index, shape);
  out.split = unflatten(index, extents_of(layout.shard));
  for (size_t i = 0; i < layout.shard.size(); ++i)
    out.terms.push_back(Term{out.split[i], layout.shard[i].stride});
  out.replicas = c.replicas();
  out.partials = c.has_partials() ? c.partials() : 0;

  const std::vector<Mode> replica_modes = concat(layout.replicas);
  const std::vector<Mode> partial_modes = concat(layout.partials);
  const std::vector<int64_t> replica_extents = extents_of(replica_modes);
  const std::vector<int64_t> partial_extents = extents_of(partial_modes);
  const size_t m_axis = axis_of(std::string(kMemoryAxis));
  Position base;
  base.values.assign(axes.size(), 0);
  for (const AxisStride& o : layout.offset) base.values[axis_of(o.axis)] += o.k;
  for (const Term& t : out.terms) base.values[axis_of(t.stride.axis)] += t.digit * t.stride.k;

  const auto add = [&](ReplicaStep& step, const std::vector<Mode>& modes,
                       const std::vector<int64_t>& digits) {
    for (size_t i = 0; i < modes.size(); ++i) {
      step.digits.push_back(digits[i]);
      step.terms.push_back(Term{digits[i], modes[i].stride});
      step.position.values[axis_of(modes[i].stride.axis)] += digits[i] * modes[i].stride.k;
    }
  };
  out.positions.reserve(static_cast<size_t>(c.holders()));
  out.replica_steps.reserve(static_cast<size_t>(c.holders()));
  for (int64_t h = 0; h < c.holders(); ++h) {
    ReplicaStep step;
    step.digits.reserve(replica_modes.size() + partial_modes.size());
    step.terms.reserve(replica_modes.size() + partial_modes.size());
    step.replica = h / c.partials();
    step.partial = c.has_partials() ? h % c.partials() : -1;
    step.position = base;
    add(step, replica_modes, unflatten(step.replica, replica_extents));
    if (c.has_partials()) add(step, partial_modes, unflatten(step.partial, partial_extents));
    Position final_position = step.position;
    if (m_axis < axes.size()) {
      step.m_before_swizzle = step.position.values[m_axis];
      step.m_after_swizzle =
          layout.swizzle ? apply_swizzle(*layout.swizzle, step.m_before_swizzle) : step.m_before_swizzle;
      final_position.values[m_axis] = step.m_after_swizzle;
    }
    out.positions.push_back(std::move(final_position));
    out.replica_steps.push_back(std::move(step));
  }
  out.derivation = derivation_text(layout, shape, axes, out);
  return out;
}

Result<Mapping> forward_coord(const Layout& layout, const std::vector<int64_t>& shape,
                              const std::vector<int64_t>& coord) {
  if (coord.size() != shape.size()) {
    return make_error("coordinate has " + std::to_string(coord.size()) + " dimensions, the shape " +
                          std::to_string(shape.size()),
                      0, "coord", "size-mismatch");
  }
  int64_t x = 0;
  for (size_t i = 0; i < coord.size(); ++i) {
    if (coord[i] < 0 || coord[i] >= shape[i]) {
      return make_error("coordinate " + std::to_string(coord[i]) + " in dimension " + std::to_string(i) +
                            " is outside [0, " + std::to_string(shape[i]) + ")",
                        0, "coord", "range");
    }
    if (mul_overflows(x, shape[i], &x) || add_overflows(x, coord[i], &x)) {
      return make_error("coordinate overflows 64 bits", 0, "coord", "overflow");
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
  if (mul_overflows(c.size(), c.holders(), &cells) || cells > cell_limit) {
    return make_error("inverse scans " + std::to_string(c.size()) + " elements x " +
                          std::to_string(c.holders()) + " replicas, more than the limit of " +
                          std::to_string(cell_limit) + " cells",
                      0, "shape", "limit");
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
    for (int64_t h = 0; h < c.holders(); ++h) {
      c.map(x, h, pos.data());
      bool match = true;
      for (const auto& [a, v] : wanted) match = match && pos[a] == v;
      if (!match) continue;
      hits.push_back(InverseHit{x, unflatten(x, shape), h / c.partials(),
                                c.has_partials() ? h % c.partials() : -1, Position{pos}});
    }
  }
  return hits;
}

Result<Table> table(const Layout& layout, const std::vector<int64_t>& shape, int64_t cell_limit) {
  auto compiled = compile_for_shape(layout, shape);
  if (!compiled) return compiled.error();
  const CompiledLayout& c = *compiled;
  int64_t cells, values;
  if (mul_overflows(c.size(), c.holders(), &cells) || cells > cell_limit ||
      mul_overflows(cells, c.axis_count(), &values) || values / kValuesPerCellBudget > cell_limit) {
    return make_error("the table has " + std::to_string(c.size()) + " elements x " +
                          std::to_string(c.holders()) + " replicas on " + std::to_string(c.axis_count()) +
                          " axes, more than the limit of " + std::to_string(cell_limit) + " cells (" +
                          std::to_string(kValuesPerCellBudget) + " axis values a cell)",
                      0, "shape", "limit");
  }
  Table t;
  t.axes = c.axes();
  t.shape = shape;
  t.elements = c.size();
  t.replicas = c.replicas();
  t.partials = c.has_partials() ? c.partials() : 0;
  const size_t n_axes = t.axes.size();
  t.values.resize(static_cast<size_t>(cells) * n_axes);
  int64_t* out = t.values.data();
  const auto row = static_cast<int64_t>(n_axes) * c.holders();
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

// ---- The derivation printer: a Mapping as one line of text ------------------------------------------------
//
//   x = 43 = flat(5,3; 8,8); (c0,c1,c2) = unflatten(43; 8,4,2) = (5,1,1); f_D(x) = 5·4@laneid + 1·1@laneid +
//   1·1@reg = {laneid: 21, reg: 1}
//
// Holders beyond kDerivationReplicas are counted, not spelled out: a layout with 50,000 replicas must not
// cost megabytes of text (positions still lists every one).

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

std::string holder_label(const ReplicaStep& step) {
  std::string out = "r=" + std::to_string(step.replica);
  if (step.partial >= 0) out += " p=" + std::to_string(step.partial);
  return out;
}

std::string left_out_text(size_t listed, size_t total, bool partial) {
  if (listed == total) return "";
  return " ... and " + std::to_string(total - listed) + " more " + (partial ? "holders" : "replicas") +
         " (not spelled out; every position is listed);";
}

std::string derivation_text(const Layout& layout, const std::vector<int64_t>& shape,
                            const std::vector<std::string>& axes, const Mapping& m) {
  const std::vector<int64_t> extents = extents_of(layout.shard);
  const size_t total = m.replica_steps.size();
  const size_t listed = std::min(total, static_cast<size_t>(kDerivationReplicas));
  const bool partial = m.partials > 0;
  std::string d = "x = " + std::to_string(m.index);
  if (shape.size() > 1) d += " = flat(" + join(m.coord, ",") + "; " + join(shape, ",") + ")";
  d += "; (";
  for (size_t i = 0; i < extents.size(); ++i) d += (i ? "," : "") + std::string("c") + std::to_string(i);
  d += ") = unflatten(" + std::to_string(m.index) + "; " + join(extents, ",") + ") = (" + join(m.split, ",") +
       "); f_D(x) = " + terms_text(m.terms);
  if (!layout.offset.empty()) {
    d += " + O[";
    for (size_t i = 0; i < layout.offset.size(); ++i) d += (i ? " + " : "") + to_string(layout.offset[i]);
    d += "]";
  }
  if (total == 1 && !partial) {
    d += " = " + position_text(axes, m.replica_steps[0].position);
  } else {
    Position base = m.replica_steps[0].position;  // holder 0 adds 0 on every axis
    d += " = " + position_text(axes, base) + (partial ? "; partial-sum holders:" : "; replicas:");
    for (size_t i = 0; i < listed; ++i) {
      const ReplicaStep& step = m.replica_steps[i];
      d += " " + holder_label(step) + " (" + join(step.digits, ",") + "): + " + terms_text(step.terms) +
           " -> " + position_text(axes, step.position) + ";";
    }
    d += left_out_text(listed, total, partial);
    d.pop_back();
  }
  const bool has_m = std::find(axes.begin(), axes.end(), kMemoryAxis) != axes.end();
  if (layout.swizzle && has_m) {
    const Swizzle& s = *layout.swizzle;
    d += "; " + to_string(s) + " on m:";
    // Show the two bit fields: the source field is XORed into the target field.
    const int src = s.inner ? s.base + s.shift : s.base;
    const int dst = s.inner ? s.base : s.base + s.shift;
    for (size_t i = 0; i < listed; ++i) {
      const ReplicaStep& step = m.replica_steps[i];
      const int64_t v = step.m_before_swizzle;
      d += " " + std::to_string(v);
      if (s.bits > 0 && v >= 0) {
        d += " (bits [" + std::to_string(src) + "," + std::to_string(src + s.bits) +
             ") = " + bits_text(v >> src, s.bits) + " xor bits [" + std::to_string(dst) + "," +
             std::to_string(dst + s.bits) + ") = " + bits_text(v >> dst, s.bits) + ")";
      }
      d += " -> " + std::to_string(step.m_after_swizzle) + ";";
    }
    d += left_out_text(listed, total, partial);
    d.pop_back();
  }
  return d;
}

}  // namespace
}  // namespace layoutscope
