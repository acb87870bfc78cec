// scan: a whole TTGIR dump read for its layouts: the aliases, the types that use each, and every op that
// moves data between layouts with its cost, highest first; and the CuTe layouts printed in a log
// (shared/include/layoutscope/scan.hpp).
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "cli_support.hpp"
#include "layoutscope/scan.hpp"

namespace layoutscope::cli {
namespace {

Json side_json(const scan::Side& s) {
  Json j = {{"type", s.type}, {"layout", s.layout}, {"shape", s.shape}, {"dtype", s.dtype}};
  if (s.element_bits) j["element_bits"] = s.element_bits;
  if (!s.axe.empty()) j["axe"] = s.axe;
  if (!s.error.empty()) j["error"] = s.error;
  return j;
}

}  // namespace

void add_scan_command(CLI::App& app) {
  auto file = std::make_shared<std::string>();
  CLI::App* command = add_command(
      app, "scan",
      "Every layout and layout-moving op of a Triton dump (.ttgir / .mlir), with its cost, and the CuTe "
      "layouts a log of print() output holds",
      "  layoutscope scan kernel.ttgir\n"
      "  ./cute_kernel 2>&1 | layoutscope scan -     (print(layout), print_tensor, print_layout lines)\n"
      "  MLIR_ENABLE_DUMP=1 python kernel.py 2>&1 | layoutscope scan -\n");
  CLI::Option* path = command->add_option("FILE", *file, "The dump; - reads standard input")->type_name("");
  on_run(command, [file, path] {
    if (path->count() == 0) fail("scan needs FILE; see layoutscope scan --help", "file");
    std::string text;
    if (*file == "-") {
      text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    } else {
      std::ifstream in(*file, std::ios::binary);
      if (!in) fail(make_error("cannot read " + *file, 0, "file"), *file);
      std::stringstream ss;
      ss << in.rdbuf();
      text = ss.str();
    }
    const scan::ScanResult r = scan::scan_ttgir(text);
    Json aliases = Json::array();
    for (const auto& a : r.aliases) {
      Json j = {{"name", a.name}, {"kind", a.kind}, {"text", a.text}, {"line", a.line}, {"uses", a.uses}};
      // the alias on the first type that uses it as its layout (what export --encoding needs)
      if (!a.shape.empty()) {
        j["shape"] = a.shape;
        j["dtype"] = a.dtype;
        if (a.element_bits) j["element_bits"] = a.element_bits;
      }
      if (!a.axe.empty()) j["axe"] = a.axe;
      if (!a.error.empty()) j["error"] = a.error;
      aliases.push_back(j);
    }
    Json ops = Json::array();
    for (const auto& o : r.ops) {
      Json j = {{"op", o.op},
                {"line", o.line},
                {"kind", o.kind},
                {"src", side_json(o.src)},
                {"dst", side_json(o.dst)},
                {"shared_bytes", o.shared_bytes},
                {"score", o.score}};
      if (!o.instruction.empty()) {
        j["instruction"] = o.instruction;
        j["instructions"] = o.instructions;
      }
      if (o.wavefronts || o.ideal_wavefronts) {
        j["wavefronts"] = o.wavefronts;
        j["ideal_wavefronts"] = o.ideal_wavefronts;
        j["conflicts"] = o.conflicts;
      }
      if (o.requests) {
        j["sectors"] = o.sectors;
        j["requests"] = o.requests;
      }
      if (!o.note.empty()) j["note"] = o.note;
      ops.push_back(j);
    }
    Json cute = Json::array();
    for (const auto& c : r.cute_layouts) {
      Json j = {{"line", c.line}, {"column", c.column}, {"text", c.text}};
      if (!c.context.empty()) j["context"] = c.context;
      if (c.error.empty()) {
        j["axe"] = c.axe;
        j["shape"] = c.shape;
        j["size"] = c.size;
      } else {
        j["error"] = c.error;
      }
      cute.push_back(j);
    }
    Json unknown = Json::array();
    for (const auto& u : r.unknown_ops)
      unknown.push_back({{"op", u.op}, {"line", u.line}, {"count", u.count}});
    Json issues = Json::array();
    for (const auto& i : r.issues)
      issues.push_back({{"line", i.line}, {"column", i.column}, {"message", i.message}});
    emit({{"lines", r.lines},
          {"aliases", aliases},
          {"cute_layouts", cute},
          {"ops", ops},
          {"unknown_ops", unknown},
          {"issues", issues}});
    return 0;
  });
}

}  // namespace layoutscope::cli
