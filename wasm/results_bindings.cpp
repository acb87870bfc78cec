// Embind adapter for the results CSV: the page's download of a results file is written by the agent's own CSV
// printer (agent/bench/printers/results_csv.cpp, compiled into this module), so it has the agent's columns
// and cells byte for byte. Text in (a results document, or a run record holding one under "result", as GET
// /v1/runs/{id} answers), { ok, csv } out; a text that is not JSON, or a document the printer cannot read, is
// { ok: false, error: { message, field } } naming the field:
//
//   resultsCsv('{"schema_version": "1.3.0", "meta": {...}, "devices": [...], "benchmarks": [...]}')
//     -> { ok: true, csv: "run_id,finished_at,schema_version,benchmark,...\n..." }
//   resultsCsv('{"benchmarks": 3}') -> { ok: false, error: { message: "results.devices: missing", ... } }
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <nlohmann/json.hpp>
#include <string>

#include "bench/printers/results_csv.hpp"
#include "js_error.hpp"

namespace layoutscope {
namespace {

using emscripten::val;

val js_results_csv(std::string text) {
  const nlohmann::json parsed = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return error_value(make_error("results: not JSON", 0, "results", "syntax"));
  const bool record = parsed.is_object() && parsed.contains("result") && parsed.contains("status");
  const nlohmann::json& doc = record ? parsed["result"] : parsed;
  if (auto problem = agent::results_csv_problem(doc))
    return error_value(make_error(*problem, 0, "results", "shape"));
  val out = val::object();
  out.set("ok", true);
  out.set("csv", agent::results_csv(doc));
  return out;
}

}  // namespace
}  // namespace layoutscope

EMSCRIPTEN_BINDINGS(layoutscope_results) { emscripten::function("resultsCsv", &layoutscope::js_results_csv); }
