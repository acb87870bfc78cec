// layoutscope._engine.results_csv: the results document's CSV, written by the agent's own printer
// (agent/bench/printers/results_csv.cpp, compiled into this module), so that to_dataframe has the columns and
// cells of GET /v1/runs/{id}?format=csv. Text in (the document as JSON), text out; a text that is not JSON or
// a document the printer cannot read raises ValueError naming the field.
#include <pybind11/pybind11.h>

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "bench/printers/results_csv.hpp"

namespace layoutscope::python {

namespace py = pybind11;

void bind_results(py::module_& m) {
  m.def(
      "results_csv",
      [](const std::string& text) {
        const nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
        if (doc.is_discarded()) throw py::value_error("results: not JSON");
        if (auto problem = agent::results_csv_problem(doc)) throw py::value_error(*problem);
        return agent::results_csv(doc);
      },
      py::arg("text"));
}

}  // namespace layoutscope::python
