// Embind adapter for the dump scanner (shared/include/layoutscope/scan.hpp).
//
//   scanTtgir("#blocked = #ttg.blocked<...>\n%0 = ttg.convert_layout ...")
//     -> { ok: true, lines: 2,
//          aliases: [{ name, kind, text, line, uses, shape, dtype, elementBits, axe, error }],
//          ops: [{ op, line, kind, src: { type, layout, axe, shape, dtype, elementBits, error }, dst: {...},
//                  sharedBytes,
//                  instruction, instructions, wavefronts, idealWavefronts, conflicts, sectors, requests,
//                  score, note }],
//          cuteLayouts: [{ line, column, text, context, axe, shape, size, error }],
//          unknownOps: [{ op, line, count }], issues: [{ line, column, message }] }
//
// The scanner never fails; the ok field is there for the module's one result shape.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <string>

#include "layoutscope/scan.hpp"

namespace layoutscope {
namespace {

using emscripten::val;

val shape_value(const std::vector<int64_t>& shape) {
  val out = val::array();
  for (size_t i = 0; i < shape.size(); ++i) out.set(static_cast<unsigned>(i), static_cast<double>(shape[i]));
  return out;
}

val side_value(const scan::Side& s) {
  val out = val::object();
  out.set("type", s.type);
  out.set("layout", s.layout);
  out.set("axe", s.axe);
  out.set("shape", shape_value(s.shape));
  out.set("dtype", s.dtype);
  out.set("elementBits", s.element_bits);
  out.set("error", s.error);
  return out;
}

val js_scan_ttgir(const std::string& text) {
  const scan::ScanResult r = scan::scan_ttgir(text);
  val out = val::object();
  out.set("ok", true);
  out.set("lines", r.lines);
  val aliases = val::array();
  for (size_t i = 0; i < r.aliases.size(); ++i) {
    const scan::Alias& a = r.aliases[i];
    val v = val::object();
    v.set("name", a.name);
    v.set("kind", a.kind);
    v.set("text", a.text);
    v.set("line", a.line);
    v.set("uses", a.uses);
    v.set("shape", shape_value(a.shape));
    v.set("dtype", a.dtype);
    v.set("elementBits", a.element_bits);
    v.set("axe", a.axe);
    v.set("error", a.error);
    aliases.set(static_cast<unsigned>(i), v);
  }
  out.set("aliases", aliases);
  val ops = val::array();
  for (size_t i = 0; i < r.ops.size(); ++i) {
    const scan::OpCost& o = r.ops[i];
    val v = val::object();
    v.set("op", o.op);
    v.set("line", o.line);
    v.set("kind", o.kind);
    v.set("src", side_value(o.src));
    v.set("dst", side_value(o.dst));
    v.set("sharedBytes", static_cast<double>(o.shared_bytes));
    v.set("instruction", o.instruction);
    v.set("instructions", static_cast<double>(o.instructions));
    v.set("wavefronts", static_cast<double>(o.wavefronts));
    v.set("idealWavefronts", static_cast<double>(o.ideal_wavefronts));
    v.set("conflicts", static_cast<double>(o.conflicts));
    v.set("sectors", static_cast<double>(o.sectors));
    v.set("requests", static_cast<double>(o.requests));
    v.set("score", o.score);
    v.set("note", o.note);
    ops.set(static_cast<unsigned>(i), v);
  }
  out.set("ops", ops);
  val cute = val::array();
  for (size_t i = 0; i < r.cute_layouts.size(); ++i) {
    const scan::CuteLayout& c = r.cute_layouts[i];
    val v = val::object();
    v.set("line", c.line);
    v.set("column", c.column);
    v.set("text", c.text);
    v.set("context", c.context);
    v.set("axe", c.axe);
    v.set("shape", shape_value(c.shape));
    v.set("size", static_cast<double>(c.size));
    v.set("error", c.error);
    cute.set(static_cast<unsigned>(i), v);
  }
  out.set("cuteLayouts", cute);
  val unknown = val::array();
  for (size_t i = 0; i < r.unknown_ops.size(); ++i) {
    val v = val::object();
    v.set("op", r.unknown_ops[i].op);
    v.set("line", r.unknown_ops[i].line);
    v.set("count", r.unknown_ops[i].count);
    unknown.set(static_cast<unsigned>(i), v);
  }
  out.set("unknownOps", unknown);
  val issues = val::array();
  for (size_t i = 0; i < r.issues.size(); ++i) {
    val v = val::object();
    v.set("line", r.issues[i].line);
    v.set("column", r.issues[i].column);
    v.set("message", r.issues[i].message);
    issues.set(static_cast<unsigned>(i), v);
  }
  out.set("issues", issues);
  return out;
}

}  // namespace

EMSCRIPTEN_BINDINGS(layoutscope_scan) { emscripten::function("scanTtgir", &js_scan_ttgir); }

}  // namespace layoutscope
