// layoutscope._engine: the C++ engine as a Python extension. Values cross as plain Python objects (dicts,
// lists, ints, bytes); the idiomatic API (layoutscope.Layout, banks, sectors, swizzle) is written in Python
// on top of these calls and adds no arithmetic of its own.
//
//   >>> from layoutscope import _engine
//   >>> b = _engine.Bound("S[(8,4,2):(4@laneid,1@laneid,1@reg)]", [8, 8])
//   >>> b.forward([5, 3])["positions"]
//   [{'laneid': 21, 'reg': 1}]
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "errors.hpp"
#include "layoutscope/canonical.hpp"
#include "layoutscope/dtype.hpp"
#include "layoutscope/layout.hpp"
#include "layoutscope/mapping.hpp"
#include "layoutscope/memory_access.hpp"
#include "layoutscope/parse.hpp"
#include "layoutscope/plan/reshard.hpp"
#include "layoutscope/validate.hpp"

#ifdef LAYOUTSCOPE_PY_FORMATS
namespace layoutscope::python {
void bind_formats(py::module_& m);
}
#endif

namespace layoutscope::python {
namespace {

// The scans over every element (table, inverse, check) let other Python threads run meanwhile: they touch
// no Python object.
template <class F>
auto without_gil(F&& f) {
  py::gil_scoped_release release;
  return f();
}

py::dict position_dict(const std::vector<std::string>& axes, const Position& p) {
  py::dict d;
  for (size_t a = 0; a < axes.size() && a < p.values.size(); ++a) d[py::str(axes[a])] = p.values[a];
  return d;
}

// A parsed layout bound to a logical shape, compiled once: every query below reuses it.
class Bound {
 public:
  Bound(const std::string& text, std::optional<std::vector<int64_t>> shape) : text_(text) {
    layout_ = take(parse_layout(text), text);
    shape_ = shape ? *shape : take(default_shape(layout_), text);
    compiled_ = take(compile_for_shape(layout_, shape_), text);
  }
  Bound(Layout layout, std::vector<int64_t> shape)
      : text_(to_string(layout)), layout_(std::move(layout)), shape_(std::move(shape)) {
    compiled_ = take(compile_for_shape(layout_, shape_), text_);
  }

  std::string text() const { return to_string(layout_); }
  const std::vector<int64_t>& shape() const { return shape_; }
  const std::vector<std::string>& axes() const { return compiled_->axes(); }
  int64_t size() const { return compiled_->size(); }
  int64_t replicas() const { return compiled_->replicas(); }
  std::optional<std::string> swizzle() const {
    if (!layout_.swizzle) return std::nullopt;
    return to_string(*layout_.swizzle);
  }

  py::dict forward(const std::vector<int64_t>& coord) const {
    return mapping_dict(take(forward_coord(layout_, shape_, coord), text_));
  }
  py::dict forward_flat(int64_t index) const {
    return mapping_dict(take(forward_index(layout_, shape_, index), text_));
  }

  py::list inverse_query(const std::vector<std::pair<std::string, int64_t>>& query,
                         int64_t cell_limit) const {
    std::vector<AxisValue> q;
    for (const auto& [axis, value] : query) q.push_back({axis, value});
    const auto hits = take(without_gil([&] { return inverse(layout_, shape_, q, cell_limit); }), text_);
    py::list out;
    for (const InverseHit& h : hits) {
      py::dict d;
      d["index"] = h.index;
      d["coord"] = py::tuple(py::cast(h.coord));
      d["replica"] = h.replica;
      d["position"] = position_dict(axes(), h.position);
      out.append(std::move(d));
    }
    return out;
  }

  // values as little-endian int64 bytes, laid out [element][replica][axis]: numpy.frombuffer reads it
  // without a copy through Python objects.
  py::dict whole_table(int64_t cell_limit) const {
    const Table t = take(without_gil([&] { return table(layout_, shape_, cell_limit); }), text_);
    py::dict d;
    d["axes"] = py::cast(t.axes);
    d["shape"] = py::tuple(py::cast(t.shape));
    d["elements"] = t.elements;
    d["replicas"] = t.replicas;
    d["values"] =
        py::bytes(reinterpret_cast<const char*>(t.values.data()), t.values.size() * sizeof(int64_t));
    d["min"] = py::cast(t.min);
    d["max"] = py::cast(t.max);
    return d;
  }

  py::list check(int64_t cell_limit) const {
    const auto findings = take(without_gil([&] { return validate(layout_, shape_, cell_limit); }), text_);
    py::list out;
    for (const Finding& f : findings) {
      py::dict d;
      d["severity"] = std::string(to_string(f.severity));
      d["code"] = f.code;
      d["message"] = f.message;
      d["where"] = f.where;
      out.append(std::move(d));
    }
    return out;
  }

  std::string canonical() const { return to_string(canonicalize(layout_)); }

  std::vector<int64_t> addresses(const std::vector<int64_t>& indices, int elem_bytes) const {
    return take(lane_addresses(layout_, shape_, indices, elem_bytes), text_);
  }

  const Layout& layout() const { return layout_; }

 private:
  py::dict mapping_dict(const Mapping& m) const {
    py::dict d;
    d["index"] = m.index;
    d["coord"] = py::tuple(py::cast(m.coord));
    d["split"] = py::tuple(py::cast(m.split));
    py::list positions;
    for (const Position& p : m.positions) positions.append(position_dict(axes(), p));
    d["positions"] = positions;
    d["derivation"] = m.derivation;
    return d;
  }

  std::string text_;
  Layout layout_;
  std::vector<int64_t> shape_;
  std::optional<CompiledLayout> compiled_;
};

py::dict banks(const std::vector<int64_t>& addrs, int width, int bank_count) {
  BankModel model;
  if (bank_count < 1 || bank_count > 64) raise(make_error("banks must be 1 to 64", 0, "banks"));
  model.banks = bank_count;
  model.wavefront_bytes = model.banks * model.word_bytes;
  const BankAccess r = take(bank_access(addrs, width, model));
  py::dict d;
  d["width"] = width;
  d["banks"] = bank_count;
  d["lanes"] = addrs.size();
  d["lanes_per_wavefront"] = r.lanes_per_group;
  d["ideal_wavefronts"] = r.groups;
  d["wavefronts"] = r.cycles;
  d["conflict_ways"] = r.max_ways;
  d["group_wavefronts"] = r.group_cycles;
  d["lane_bank"] = r.lane_bank;
  d["lane_cycle"] = r.lane_cycle;
  d["addrs"] = addrs;
  return d;
}

py::dict sectors(const std::vector<int64_t>& addrs, int width) {
  const SectorAccess r = take(sector_access(addrs, width));
  py::dict d;
  d["width"] = width;
  d["lanes"] = addrs.size();
  d["sectors"] = r.sectors;
  d["bytes"] = r.bytes;
  d["efficiency"] = r.efficiency;
  d["lane_sector"] = r.lane_sector;
  d["addrs"] = addrs;
  return d;
}

// The PTX swizzle mode on element offsets of a dtype, as the CLI's swizzle command reports it.
py::dict swizzle(const std::string& mode_name, const std::string& dtype_name,
                 const std::vector<int64_t>& offsets) {
  const SwizzleMode mode = take(parse_swizzle_mode(mode_name));
  const DType dtype = take(parse_dtype(dtype_name));
  const SwizzleAtom atom = take(swizzle_atom(mode, dtype));
  const int64_t eb = dtype_bytes(dtype);
  py::list results;
  for (const int64_t offset : offsets) {
    if (offset < 0 || offset > (int64_t{1} << 40))
      raise(make_error("offset " + std::to_string(offset) + " is outside [0, 2^40]", 0, "offset"));
    const int64_t swizzled = apply_swizzle(atom.elements, offset);
    py::dict r;
    r["offset"] = offset;
    r["swizzled"] = swizzled;
    r["byte"] = offset * eb;
    r["swizzled_byte"] = apply_swizzle(atom.bytes, offset * eb);
    r["row"] = offset / atom.elements_per_row;
    r["col"] = offset % atom.elements_per_row;
    r["swizzled_col"] = swizzled % atom.elements_per_row;
    results.append(std::move(r));
  }
  py::dict d;
  d["mode"] = std::string(to_string(mode));
  d["dtype"] = std::string(to_string(dtype));
  d["rows"] = atom.rows;
  d["row_bytes"] = atom.row_bytes;
  d["elements_per_row"] = atom.elements_per_row;
  d["bytes"] = to_string(atom.bytes);
  d["elements"] = to_string(atom.elements);
  d["results"] = results;
  return d;
}

py::list hardware_axis_list() {
  py::list out;
  for (const HardwareAxis& a : hardware_axes()) {
    py::dict d;
    d["name"] = std::string(a.name);
    d["limit"] = a.limit;
    d["meaning"] = std::string(a.meaning);
    out.append(std::move(d));
  }
  return out;
}

}  // namespace

// Exposed to formats.cpp: a layout the importer produced, bound to its shape.
py::object make_bound(Layout layout, std::vector<int64_t> shape) {
  return py::cast(Bound(std::move(layout), std::move(shape)));
}
const Layout& bound_layout(const py::object& bound) { return bound.cast<const Bound&>().layout(); }

}  // namespace layoutscope::python

namespace layoutscope::python {
void bind_tcgen05(py::module_& m);  // tcgen05.cpp
void bind_results(py::module_& m);  // results.cpp
}  // namespace layoutscope::python

PYBIND11_MODULE(_engine, m) {
  namespace lp = layoutscope::python;
  namespace py = pybind11;
  m.doc() = "layoutscope's C++ layout engine (use the layoutscope package, not this module)";
  py::class_<lp::Bound>(m, "Bound")
      .def(py::init<const std::string&, std::optional<std::vector<int64_t>>>(), py::arg("text"),
           py::arg("shape") = py::none())
      .def_property_readonly("text", &lp::Bound::text)
      .def_property_readonly("shape", [](const lp::Bound& b) { return py::tuple(py::cast(b.shape())); })
      .def_property_readonly("axes", &lp::Bound::axes)
      .def_property_readonly("size", &lp::Bound::size)
      .def_property_readonly("replicas", &lp::Bound::replicas)
      .def_property_readonly("swizzle", &lp::Bound::swizzle)
      .def("forward", &lp::Bound::forward, py::arg("coord"))
      .def("forward_flat", &lp::Bound::forward_flat, py::arg("index"))
      .def("inverse", &lp::Bound::inverse_query, py::arg("query"),
           py::arg("cell_limit") = layoutscope::kDefaultCellLimit)
      .def("table", &lp::Bound::whole_table, py::arg("cell_limit") = layoutscope::kDefaultCellLimit)
      .def("check", &lp::Bound::check, py::arg("cell_limit") = layoutscope::kDefaultCellLimit)
      .def("canonical", &lp::Bound::canonical)
      .def("lane_addresses", &lp::Bound::addresses, py::arg("indices"), py::arg("elem_bytes"));
  m.def("banks", &lp::banks, py::arg("addrs"), py::arg("width"), py::arg("banks") = 32);
  m.def("sectors", &lp::sectors, py::arg("addrs"), py::arg("width"));
  m.def("swizzle", &lp::swizzle, py::arg("mode"), py::arg("dtype"), py::arg("offsets"));
  m.def("hardware_axes", &lp::hardware_axis_list);
  m.def("parse_shape",
        [](const std::string& text) { return lp::take(layoutscope::parse_shape(text), text); });
  // "dp=2,tp=4" -> [("dp", 2), ("tp", 4)], the engine's reading of a mesh (errors name the column)
  m.def("parse_mesh", [](const std::string& text) { return lp::take(layoutscope::parse_mesh(text), text); });
  m.attr("DEFAULT_CELL_LIMIT") = layoutscope::kDefaultCellLimit;
  lp::bind_results(m);
  lp::bind_tcgen05(m);
#ifdef LAYOUTSCOPE_PY_FORMATS
  lp::bind_formats(m);
  m.attr("HAS_FORMATS") = true;
#else
  m.attr("HAS_FORMATS") = false;
#endif
}
