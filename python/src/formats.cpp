// The format importers and exporters (layoutscope/formats/format.hpp) for Python. Compiled only where the
// engine has them; the module's HAS_FORMATS says which.
//
//   >>> _engine.import_layout("jax", "P('x', None)", [8, 4], [("x", 2), ("y", 4)])
//   {'layout': <Bound S[(2,4,4):(1@x,4@m,1@m)] + R[4:1@y]>, 'shape': (8, 4), 'from': 'jax', 'notes': [...]}
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "errors.hpp"
#include "layoutscope/algebra.hpp"
#include "layoutscope/formats/format.hpp"

namespace layoutscope::python {

py::object make_bound(Layout layout, std::vector<int64_t> shape);
const Layout& bound_layout(const py::object& bound);

namespace {

using Mesh = std::vector<std::pair<std::string, int64_t>>;

FormatContext context(std::vector<int64_t> shape, Mesh mesh) {
  FormatContext c;
  c.shape = std::move(shape);
  c.mesh = std::move(mesh);
  return c;
}

}  // namespace

void bind_formats(py::module_& m) {
  m.def(
      "import_layout",
      [](const std::string& format, const std::string& text, std::vector<int64_t> shape, Mesh mesh) {
        const Format from = take(parse_format(format));
        Imported imported = take(import_layout(from, text, context(std::move(shape), std::move(mesh))), text);
        py::dict d;
        d["shape"] = py::tuple(py::cast(imported.shape));
        d["layout"] = make_bound(std::move(imported.layout), imported.shape);
        d["from"] = std::string(to_string(imported.from));
        d["notes"] = imported.notes;
        return d;
      },
      py::arg("format"), py::arg("text"), py::arg("shape"), py::arg("mesh"));
  m.def(
      "export_layout",
      [](const std::string& format, const py::object& bound, std::vector<int64_t> shape, Mesh mesh) {
        const Format to = take(parse_format(format));
        const FormatContext c = context(shape, std::move(mesh));
        return take(export_layout(to, bound_layout(bound), shape, c));
      },
      py::arg("format"), py::arg("bound"), py::arg("shape"), py::arg("mesh"));
  // CuTe's layout algebra (layoutscope/algebra.hpp): the same entry point as `layoutscope algebra`.
  m.def(
      "algebra",
      [](const std::string& op, const std::vector<std::string>& args, const std::string& syntax) {
        const cute::AlgebraSyntax s = take(cute::parse_algebra_syntax(syntax));
        cute::AlgebraResult r = take(cute::algebra(op, args, s));
        py::dict d;
        d["op"] = op;
        d["result"] = r.result;
        d["axe"] = r.axe;
        d["shape"] = py::tuple(py::cast(r.shape));
        d["size"] = r.size;
        d["cosize"] = r.cosize;
        if (r.vector) d["vector"] = *r.vector;
        return d;
      },
      py::arg("op"), py::arg("args"), py::arg("syntax"));
  m.def("algebra_operations", [] {
    std::vector<std::string> names;
    for (std::string_view op : cute::algebra_operations()) names.emplace_back(op);
    return names;
  });
  m.def("detect_format", [](const std::string& text) { return std::string(to_string(detect_format(text))); });
  m.def("formats", [] {
    std::vector<std::string> names;
    for (const Format f : all_formats()) names.emplace_back(to_string(f));
    return names;
  });
}

}  // namespace layoutscope::python
