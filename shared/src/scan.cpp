#include "layoutscope/scan.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "formats/detail.hpp"
#include "layoutscope/access.hpp"
#include "layoutscope/compiled_layout.hpp"
#include "layoutscope/dtype.hpp"
#include "layoutscope/formats/format.hpp"
#include "layoutscope/mapping.hpp"
#include "layoutscope/parse.hpp"

namespace layoutscope::scan {
namespace {

constexpr size_t kMaxScanText = size_t{1} << 24;  // 16 MiB
constexpr int64_t kMaxTableCells = int64_t{1} << 20;

// TTGIR ops that move no data between layouts or whose layouts are their operands' (the ops of the
// tt, ttg, ttng, arith, math, scf, cf and gpu dialects Triton prints): known, not costed.
const std::set<std::string_view>& known_ops() {
  static const std::set<std::string_view> ops = {"tt.func",
                                                 "tt.return",
                                                 "tt.load",
                                                 "tt.store",
                                                 "tt.splat",
                                                 "tt.broadcast",
                                                 "tt.expand_dims",
                                                 "tt.make_range",
                                                 "tt.addptr",
                                                 "tt.dot",
                                                 "tt.reduce",
                                                 "tt.reduce.return",
                                                 "tt.trans",
                                                 "tt.reshape",
                                                 "tt.get_program_id",
                                                 "tt.get_num_programs",
                                                 "tt.call",
                                                 "tt.atomic_rmw",
                                                 "tt.atomic_cas",
                                                 "tt.make_tensor_ptr",
                                                 "tt.advance",
                                                 "tt.join",
                                                 "tt.split",
                                                 "tt.cat",
                                                 "tt.histogram",
                                                 "tt.assert",
                                                 "tt.print",
                                                 "tt.bitcast",
                                                 "tt.int_to_ptr",
                                                 "tt.ptr_to_int",
                                                 "tt.fp_to_fp",
                                                 "tt.precise_sqrt",
                                                 "tt.precise_divf",
                                                 "tt.mulhiui",
                                                 "tt.clampf",
                                                 "tt.extern_elementwise",
                                                 "tt.scan",
                                                 "tt.scan.return",
                                                 "tt.make_tensor_descriptor",
                                                 "tt.gather",
                                                 "tt.unsplat",
                                                 "tt.map_elementwise",
                                                 "tt.descriptor_gather",
                                                 "tt.descriptor_scatter",
                                                 "ttg.local_dealloc",
                                                 "ttg.memdesc_index",
                                                 "ttg.memdesc_subslice",
                                                 "ttg.memdesc_subview",
                                                 "ttg.memdesc_trans",
                                                 "ttg.memdesc_reshape",
                                                 "ttg.memdesc_reinterpret",
                                                 "ttg.async_commit_group",
                                                 "ttg.async_wait",
                                                 "ttg.barrier",
                                                 "ttg.warp_specialize",
                                                 "ttg.warp_yield",
                                                 "ttg.warp_return",
                                                 "ttg.fp4_to_fp",
                                                 "ttg.upcast_mxfp",
                                                 "ttg.predicate_stage",
                                                 "ttg.mask",
                                                 "ttg.mask.return",
                                                 "ttng.warp_group_dot",
                                                 "ttng.warp_group_dot_wait",
                                                 "ttng.fence_async_shared",
                                                 "ttng.init_barrier",
                                                 "ttng.inval_barrier",
                                                 "ttng.wait_barrier",
                                                 "ttng.arrive_barrier",
                                                 "ttng.barrier_expect",
                                                 "ttng.tc_gen5_mma",
                                                 "ttng.tc_gen5_mma_scaled",
                                                 "ttng.tc_gen5_commit",
                                                 "ttng.tmem_alloc",
                                                 "ttng.tmem_subslice",
                                                 "ttng.tmem_copy",
                                                 "ttng.async_tma_store_wait",
                                                 "ttng.cluster_arrive",
                                                 "ttng.cluster_wait",
                                                 "ttng.tensormap_create",
                                                 "ttng.tensormap_fenceproxy_acquire",
                                                 "ttng.reinterpret_tensor_descriptor",
                                                 "ttng.async_tma_gather",
                                                 "ttng.async_tma_scatter",
                                                 "ttng.fence",
                                                 "ttng.async_tma_reduce",
                                                 "ttng.async_tma_prefetch",
                                                 "arith.constant",
                                                 "arith.addi",
                                                 "arith.subi",
                                                 "arith.muli",
                                                 "arith.divsi",
                                                 "arith.divui",
                                                 "arith.remsi",
                                                 "arith.remui",
                                                 "arith.addf",
                                                 "arith.subf",
                                                 "arith.mulf",
                                                 "arith.divf",
                                                 "arith.negf",
                                                 "arith.maxnumf",
                                                 "arith.minnumf",
                                                 "arith.maximumf",
                                                 "arith.minimumf",
                                                 "arith.maxsi",
                                                 "arith.minsi",
                                                 "arith.maxui",
                                                 "arith.minui",
                                                 "arith.cmpi",
                                                 "arith.cmpf",
                                                 "arith.select",
                                                 "arith.extf",
                                                 "arith.truncf",
                                                 "arith.extsi",
                                                 "arith.extui",
                                                 "arith.trunci",
                                                 "arith.sitofp",
                                                 "arith.uitofp",
                                                 "arith.fptosi",
                                                 "arith.fptoui",
                                                 "arith.bitcast",
                                                 "arith.andi",
                                                 "arith.ori",
                                                 "arith.xori",
                                                 "arith.shli",
                                                 "arith.shrsi",
                                                 "arith.shrui",
                                                 "arith.index_cast",
                                                 "arith.ceildivsi",
                                                 "arith.floordivsi",
                                                 "arith.remf",
                                                 "math.exp",
                                                 "math.exp2",
                                                 "math.log",
                                                 "math.log2",
                                                 "math.sqrt",
                                                 "math.rsqrt",
                                                 "math.absf",
                                                 "math.absi",
                                                 "math.sin",
                                                 "math.cos",
                                                 "math.tanh",
                                                 "math.fma",
                                                 "math.erf",
                                                 "math.floor",
                                                 "math.ceil",
                                                 "math.powf",
                                                 "scf.for",
                                                 "scf.yield",
                                                 "scf.if",
                                                 "scf.while",
                                                 "scf.condition",
                                                 "cf.br",
                                                 "cf.cond_br",
                                                 "cf.assert",
                                                 "gpu.barrier",
                                                 "module",
                                                 "func.func",
                                                 "func.return"};
  return ops;
}

bool moves_data(std::string_view op) {
  static const std::set<std::string_view> ops = {"ttg.convert_layout",
                                                 "ttg.local_alloc",
                                                 "ttg.local_store",
                                                 "ttg.local_load",
                                                 "ttg.async_copy_global_to_local",
                                                 "ttng.tmem_load",
                                                 "ttng.tmem_store",
                                                 "ttng.async_tma_copy_global_to_local",
                                                 "ttng.async_tma_copy_local_to_global",
                                                 "tt.descriptor_load",
                                                 "tt.descriptor_store",
                                                 "amdg.buffer_load_to_local",
                                                 "amdgpu.buffer_load_to_local"};
  return ops.count(op) != 0;
}

bool ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
         c == '$' || c == '-';
}

// The index just past the '>' that closes the '<' at `open`, counting nested <>, or npos.
size_t close_angle(std::string_view s, size_t open) {
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    if (s[i] == '<') ++depth;
    if (s[i] == '>' && (i == 0 || s[i - 1] != '-')) {
      if (--depth == 0) return i + 1;
    }
  }
  return std::string_view::npos;
}

// The op name of a line: after "%a, %b = " or at the start; "" when the line holds no op.
std::pair<std::string, size_t> op_of(std::string_view line) {
  size_t i = line.find_first_not_of(" \t");
  if (i == std::string_view::npos) return {"", 0};
  if (line[i] == '%') {
    const size_t eq = line.find(" = ", i);
    if (eq == std::string_view::npos) return {"", 0};
    i = eq + 3;
  }
  if (i < line.size() && line[i] == '"') ++i;  // the generic form "ttg.convert_layout"(...)
  size_t j = i;
  while (j < line.size() && ident_char(line[j])) ++j;
  const std::string name(line.substr(i, j - i));
  if (name.find('.') == std::string::npos && name != "module") return {"", 0};
  return {name, i};
}

struct TypeRef {
  std::string text;
  size_t at = 0;
  bool memdesc = false;
};

// tensor<...> and (!ttg.)memdesc<...> types after the op's ':' (the async copy prints its destination as
// a bare <...>).
std::vector<TypeRef> types_of(std::string_view line, size_t from) {
  std::vector<TypeRef> out;
  const size_t colon = line.find(" : ", from);
  if (colon == std::string_view::npos) return out;
  size_t i = colon + 3;
  while (i < line.size()) {
    const size_t t = line.find("tensor<", i);
    const size_t m = line.find("memdesc<", i);
    const size_t bare = line.find("-> <", i);
    size_t next = std::min({t, m, bare == std::string_view::npos ? bare : bare + 3});
    if (next == std::string_view::npos) break;
    const bool is_memdesc = next == m || (bare != std::string_view::npos && next == bare + 3);
    const size_t open = line.find('<', next);
    const size_t end = close_angle(line, open);
    if (end == std::string_view::npos) break;
    out.push_back(TypeRef{std::string(line.substr(next, end - next)), next, is_memdesc});
    i = end;
  }
  return out;
}

// "128x64xf16" -> shape {128, 64}, element "f16"; a tensor of pointers gives "ptr".
void shape_and_element(std::string_view body, std::vector<int64_t>& shape, std::string& element) {
  size_t i = 0;
  while (i < body.size() && body[i] >= '0' && body[i] <= '9') {
    int64_t v = 0;
    while (i < body.size() && body[i] >= '0' && body[i] <= '9' && v < (int64_t{1} << 40))
      v = v * 10 + (body[i++] - '0');
    shape.push_back(v);
    if (i < body.size() && body[i] == 'x') ++i;
  }
  size_t j = i;
  while (j < body.size() && body[j] != ',' && body[j] != '>') ++j;
  element = std::string(body.substr(i, j - i));
  if (element.rfind("!tt.ptr", 0) == 0) element = "ptr";
}

std::optional<DType> dtype_of(const std::string& element) {
  static const std::map<std::string, DType> kTypes = {
      {"f16", DType::kF16},   {"bf16", DType::kBF16},     {"f32", DType::kF32},
      {"i32", DType::kF32},   {"f64", DType::kF64},       {"i64", DType::kF64},
      {"i8", DType::kU8},     {"i16", DType::kF16},       {"f8E4M3FN", DType::kF8},
      {"f8E5M2", DType::kF8}, {"f8E4M3FNUZ", DType::kF8}, {"f8E5M2FNUZ", DType::kF8},
      {"tf32", DType::kTF32}, {"i1", DType::kU8}};
  auto it = kTypes.find(element);
  if (it == kTypes.end()) return std::nullopt;
  return it->second;
}

// The layout a type names: "#blocked" or an inline attribute, after the shape and element type
// ("tensor<64x64xf32, #blocked>" -> "#blocked"); "" when there is none.
std::string_view layout_in(std::string_view type) {
  const size_t open = type.find('<');
  if (open == std::string_view::npos) return {};
  const std::string_view body = type.substr(open + 1);
  const size_t comma = body.find(',');
  if (comma == std::string_view::npos) return {};
  std::string_view rest = body.substr(comma + 1);
  rest.remove_prefix(std::min(rest.find_first_not_of(' '), rest.size()));
  size_t end = rest.size();
  if (rest.rfind("#", 0) == 0) {
    size_t k = 1;
    while (k < rest.size() && ident_char(rest[k])) ++k;
    end = k < rest.size() && rest[k] == '<' ? close_angle(rest, k) : k;
    if (end == std::string_view::npos) end = rest.size();
  }
  return rest.substr(0, end);
}

class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}

  ScanResult run() {
    ScanResult out;
    if (text_.size() > kMaxScanText) {
      out.issues.push_back(Issue{1, 1, "the text is larger than 16 MiB; not scanned"});
      return out;
    }
    std::vector<std::string_view> lines;
    for (size_t start = 0; start <= text_.size();) {
      size_t end = text_.find('\n', start);
      if (end == std::string_view::npos) end = text_.size();
      std::string_view line = text_.substr(start, end - start);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      lines.push_back(line);
      start = end + 1;
      if (end == text_.size()) break;
    }
    out.lines = static_cast<int>(lines.size());
    // Aliases first: a type may name one defined further down.
    for (size_t n = 0; n < lines.size(); ++n) read_alias(lines[n], static_cast<int>(n + 1), out);
    for (size_t i = 0; i < out.aliases.size(); ++i) {
      alias_text_[out.aliases[i].name] = out.aliases[i].text;
      alias_index_[out.aliases[i].name] = i;
    }
    std::map<std::string, UnknownOp> unknown;
    for (size_t n = 0; n < lines.size(); ++n) {
      const std::string_view line = lines[n];
      const int number = static_cast<int>(n + 1);
      count_uses(line, out);
      auto [op, at] = op_of(line);
      if (op.empty()) continue;
      if (moves_data(op)) {
        out.ops.push_back(cost_op(op, line, at, number, out));
      } else if (!known_ops().count(op)) {
        auto& u = unknown[op];
        if (u.count++ == 0) {
          u.op = op;
          u.line = number;
        }
      }
    }
    for (auto& [name, u] : unknown) out.unknown_ops.push_back(u);
    for (const auto& [i, use] : first_use_) {
      const Side s = side_of(use.type);
      Alias& a = out.aliases[i];
      a.shape = s.shape;
      a.dtype = s.dtype;
      a.element_bits = s.element_bits;
      a.axe = s.axe;
      a.error = s.error;
    }
    for (size_t n = 0; n < lines.size(); ++n) read_cute_layouts(lines[n], static_cast<int>(n + 1), out);
    std::stable_sort(out.ops.begin(), out.ops.end(),
                     [](const OpCost& a, const OpCost& b) { return a.score > b.score; });
    return out;
  }

 private:
  // ---- CuTe print() output --------------------------------------------------------------------------------

  static bool int_char(char c) { return (c >= '0' && c <= '9') || c == '_'; }

  // The end of a shape or stride starting at i: a balanced (...) or a leaf (_8, 8, 1@0, E<1>), or npos.
  static size_t tuple_end(std::string_view l, size_t i) {
    if (i >= l.size()) return std::string_view::npos;
    if (l[i] == '(') {
      int depth = 0;
      for (size_t j = i; j < l.size(); ++j) {
        if (l[j] == '(') ++depth;
        if (l[j] == ')' && --depth == 0) return j + 1;
        if (depth > 64 || l[j] == '\n') return std::string_view::npos;
      }
      return std::string_view::npos;
    }
    size_t j = i;
    if (l.substr(j, 2) == "E<") {
      const size_t close = l.find('>', j);
      return close == std::string_view::npos ? close : close + 1;
    }
    while (j < l.size() && (int_char(l[j]) || l[j] == '@')) ++j;
    return j == i ? std::string_view::npos : j;
  }

  // The start of a shape ending just before `end`: the matching '(' or the first character of a leaf.
  static size_t tuple_start(std::string_view l, size_t end) {
    if (end == 0) return std::string_view::npos;
    if (l[end - 1] == ')') {
      int depth = 0;
      for (size_t j = end; j-- > 0;) {
        if (l[j] == ')') ++depth;
        if (l[j] == '(' && --depth == 0) return j;
        if (depth > 64) return std::string_view::npos;
      }
      return std::string_view::npos;
    }
    size_t j = end;
    while (j > 0 && int_char(l[j - 1])) --j;
    return j == end ? std::string_view::npos : j;
  }

  static bool well_formed_shape(std::string_view t) {
    if (t.empty()) return false;
    for (char c : t)
      if (!int_char(c) && c != '(' && c != ')' && c != ',' && c != ' ') return false;
    return true;
  }

  void read_cute_layouts(std::string_view line, int number, ScanResult& out) {
    if (line.find(':') == std::string_view::npos || line.size() > 4096) return;
    size_t from = 0;
    while (true) {
      const size_t colon = line.find(':', from);
      if (colon == std::string_view::npos) return;
      from = colon + 1;
      const size_t s = tuple_start(line, colon);
      const size_t e = tuple_end(line, colon + 1);
      if (s == std::string_view::npos || e == std::string_view::npos) continue;
      const std::string_view shape = line.substr(s, colon - s);
      if (!well_formed_shape(shape)) continue;
      // a character glued to either end makes it part of something else (a name, a version, a time)
      auto glued = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == ':';
      };
      if ((s > 0 && glued(line[s - 1])) || (e < line.size() && glued(line[e]) && line[e] != ':')) continue;
      size_t start = s;
      std::string context;
      // swizzle and offset written before it: "Sw<3,4,3> o _0 o ", "S<1,4,3> o 0 o ", or an engine pointer
      while (start >= 3 && line.substr(start - 3, 3) == " o ") {
        size_t t = start - 3;
        size_t b = t;
        while (b > 0 && line[b - 1] != ' ') --b;
        const std::string_view word = line.substr(b, t - b);
        const bool offset = !word.empty() && std::all_of(word.begin(), word.end(), int_char);
        const bool swizzle = (word.rfind("Sw<", 0) == 0 || word.rfind("S<", 0) == 0) && word.back() == '>';
        if (offset || swizzle) {
          start = b;
          continue;
        }
        if (word.find("ptr[") != std::string_view::npos) context = "print_tensor";
        break;
      }
      const bool tuple =
          shape.find('(') != std::string_view::npos || shape.find('_') != std::string_view::npos;
      auto trim = [](std::string_view v) {
        while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
        while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
        return v;
      };
      const std::string_view text = line.substr(start, e - start);
      if (!tuple && trim(line) != text) continue;
      CuteLayout c;
      c.line = number;
      c.column = static_cast<int>(start + 1);
      c.text = std::string(text);
      c.context = context;
      auto imported = import_layout(Format::kCute, text, FormatContext{});
      if (imported) {
        c.axe = to_string(imported->layout);
        c.shape = imported->shape;
        c.size = 1;
        for (int64_t x : c.shape) c.size *= x;
      } else {
        c.error = imported.error().message;
        out.issues.push_back(Issue{number, c.column + std::max(0, imported.error().column - 1),
                                   "CuTe layout " + c.text + ": " + imported.error().message});
      }
      out.cute_layouts.push_back(std::move(c));
      if (out.cute_layouts.size() >= 100000) return;
      from = e;
    }
  }

  std::string_view text_;
  std::map<std::string, std::string> alias_text_;
  std::map<std::string, size_t> alias_index_;
  struct AliasUse {
    TypeRef type;
    int64_t elements = 0;
  };
  std::map<size_t, AliasUse> first_use_;  // the type that gives an alias its shape, by alias index

  // The definitions a layout text needs: the aliases it names and theirs (#mma inside a dot_op), each once.
  std::string definitions_for(const std::string& layout) {
    std::string defs;
    std::set<std::string> seen;
    std::vector<std::string> todo{layout};
    while (!todo.empty()) {
      const std::string t = todo.back();
      todo.pop_back();
      for (size_t p = t.find('#'); p != std::string::npos; p = t.find('#', p + 1)) {
        size_t e = p + 1;
        while (e < t.size() && ident_char(t[e]) && t[e] != '.') ++e;
        const std::string name = t.substr(p + 1, e - p - 1);
        auto it = alias_text_.find(name);
        if (it == alias_text_.end() || !seen.insert(name).second) continue;
        defs += "#" + name + " = " + it->second + "\n";
        todo.push_back(it->second);
      }
    }
    return defs;
  }
  std::map<std::string, Side> imported_;  // by type text

  void read_alias(std::string_view line, int number, ScanResult& out) {
    const size_t i = line.find_first_not_of(" \t");
    if (i == std::string_view::npos || line[i] != '#') return;
    const size_t eq = line.find(" = ", i);
    if (eq == std::string_view::npos) return;
    const std::string name(line.substr(i + 1, eq - i - 1));
    std::string_view rhs = line.substr(eq + 3);
    if (rhs.rfind("#ttg.", 0) != 0 && rhs.rfind("#ttng.", 0) != 0 && rhs.rfind("#amdg", 0) != 0) return;
    size_t k = 1;
    while (k < rhs.size() && ident_char(rhs[k])) ++k;
    const std::string kind(rhs.substr(1, k - 1));
    if (kind == "ttg.shared_memory" || kind == "ttng.tensor_memory") return;
    size_t end = rhs.size();
    if (k < rhs.size() && rhs[k] == '<') {
      end = close_angle(rhs, k);
      if (end == std::string_view::npos) {
        out.issues.push_back(
            Issue{number, static_cast<int>(eq + 3 + k + 1), "the attribute's '<' is not closed"});
        return;
      }
    }
    Alias a;
    a.name = name;
    a.text = std::string(rhs.substr(0, end));
    a.kind = kind;
    a.line = number;
    out.aliases.push_back(std::move(a));
  }

  void count_uses(std::string_view line, ScanResult& out) {
    for (size_t i = line.find("tensor<"); i != std::string_view::npos; i = line.find("tensor<", i + 1))
      mark(line, i, out);
    for (size_t i = line.find("memdesc<"); i != std::string_view::npos; i = line.find("memdesc<", i + 1))
      mark(line, i, out);
  }

  void mark(std::string_view line, size_t at, ScanResult& out) {
    const size_t open = line.find('<', at);
    const size_t end = close_angle(line, open);
    if (end == std::string_view::npos) return;
    const std::string_view type = line.substr(at, end - at);
    // the largest type whose layout is an alias (the first of them) gives the alias its shape: a kernel's
    // tile, not a 64x1 column of indices broadcast from it
    if (const std::string_view layout = layout_in(type); layout.size() > 1 && layout[0] == '#') {
      auto it = alias_index_.find(std::string(layout.substr(1)));
      if (it != alias_index_.end()) {
        std::vector<int64_t> shape;
        std::string element;
        shape_and_element(type.substr(type.find('<') + 1), shape, element);
        int64_t elements = 1;
        for (int64_t e : shape)
          elements = e > 0 && elements <= (int64_t{1} << 40) / e ? elements * e : elements;
        auto [use, fresh] = first_use_.try_emplace(it->second);
        if (fresh || elements > use->second.elements)
          use->second = AliasUse{TypeRef{std::string(type), at, line.substr(at, 8) == "memdesc<"}, elements};
      }
    }
    // each alias the type names counts once
    std::set<size_t> named;
    for (size_t p = type.find('#'); p != std::string_view::npos; p = type.find('#', p + 1)) {
      size_t e = p + 1;
      while (e < type.size() && ident_char(type[e]) && type[e] != '.') ++e;
      auto it = alias_index_.find(std::string(type.substr(p + 1, e - p - 1)));
      if (it != alias_index_.end() && named.insert(it->second).second) ++out.aliases[it->second].uses;
    }
  }

  // The type's layout imported on its shape (a memdesc's leading buffer dimensions dropped to the layout's
  // rank when the full shape does not read).
  Side side_of(const TypeRef& t) {
    if (auto it = imported_.find(t.text); it != imported_.end()) return it->second;
    Side s;
    s.type = t.text;
    const size_t open = t.text.find('<');
    const std::string_view body = std::string_view(t.text).substr(open + 1);
    shape_and_element(body, s.shape, s.dtype);
    if (auto d = dtype_of(s.dtype)) s.element_bits = dtype_bits(*d);
    s.layout = std::string(layout_in(t.text));
    if (s.layout.empty()) {
      s.error = "the type names no layout";
    } else {
      const std::string defs = definitions_for(s.layout);
      for (size_t drop = 0; drop + 1 <= s.shape.size(); ++drop) {
        std::vector<int64_t> shape(s.shape.begin() + static_cast<std::ptrdiff_t>(drop), s.shape.end());
        // the same layout on the same shape reads once, whatever the element type
        std::string key = s.layout;
        for (int64_t e : shape) key += "x" + std::to_string(e);
        auto cached = by_layout_.find(key);
        if (cached == by_layout_.end()) {
          auto r = import_layout(Format::kTriton, defs + "tensor<" + s.dtype + ", " + s.layout + ">",
                                 FormatContext{shape, {}});
          cached = by_layout_.emplace(key, r ? std::optional<Layout>(r->layout) : std::nullopt).first;
          if (!r) errors_[key] = r.error().message;
        }
        if (cached->second) {
          s.shape = shape;
          s.axe = to_string(*cached->second);
          layouts_[t.text] = *cached->second;
          s.error.clear();
          break;
        }
        if (s.error.empty()) s.error = errors_[key];
        if (!t.memdesc) break;
      }
    }
    imported_[t.text] = s;
    return s;
  }

  std::map<std::string, Layout> layouts_;
  std::map<std::string, std::optional<Layout>> by_layout_;  // layout text x shape
  std::map<std::string, std::string> errors_;

  const Layout* layout_of(const Side& s) {
    auto it = layouts_.find(s.type);
    return it == layouts_.end() ? nullptr : &it->second;
  }

  OpCost cost_op(const std::string& op, std::string_view line, size_t at, int number, ScanResult& out) {
    OpCost c;
    c.op = op;
    c.line = number;
    const auto types = types_of(line, at);
    if (types.empty()) {
      c.kind = "unread";
      c.note = "no types after ':' (an op without its types, or the generic form)";
      out.issues.push_back(Issue{number, static_cast<int>(at + 1), op + ": " + c.note});
      return c;
    }
    c.src = side_of(types.front());
    c.dst = side_of(types.back());
    for (const Side* s : {&c.src, &c.dst})
      if (!s->error.empty())
        out.issues.push_back(
            Issue{number, static_cast<int>(line.find(s->type) + 1), s->layout + ": " + s->error});
    // A dump repeats its copies (pipeline stages, unrolled loops): cost each distinct op once.
    // (by what the layouts are, not how they are named: two kernels in one file often share them)
    std::string key = op + '\n' + c.src.axe + '\n' + c.dst.axe + '\n' + c.src.dtype + '\n' + c.dst.dtype +
                      '\n' + std::to_string(types.size());
    for (int64_t e : c.src.shape) key += "x" + std::to_string(e);
    key += '\n';
    for (int64_t e : c.dst.shape) key += "x" + std::to_string(e);
    if (c.src.axe.empty() || c.dst.axe.empty()) key += '\n' + types.front().text + '\n' + types.back().text;
    if (auto it = costed_.find(key); it != costed_.end()) {
      OpCost again = it->second;
      again.line = number;
      again.src = c.src;
      again.dst = c.dst;
      return again;
    }
    cost_kind(op, types.size(), c);
    costed_[key] = c;
    return c;
  }

  std::map<std::string, OpCost> costed_;

  void cost_kind(const std::string& op, size_t n_types, OpCost& c) {
    if (op == "ttg.convert_layout") {
      convert(c);
    } else if (op == "ttg.local_alloc" || op == "ttg.local_store") {
      if (n_types < 2) {
        c.kind = "shared allocation";
        c.note = "an allocation without a value: nothing moves here";
        c.shared_bytes = bytes_of(c.dst);
        return;
      }
      shared_access(c, c.src, c.dst, "shared store", false);
    } else if (op == "ttg.local_load") {
      shared_access(c, c.dst, c.src, "shared load", true);
    } else if (op == "ttg.async_copy_global_to_local" || op == "amdg.buffer_load_to_local" ||
               op == "amdgpu.buffer_load_to_local") {
      async_copy(c);
    } else if (op == "ttng.tmem_load" || op == "ttng.tmem_store") {
      c.kind = op == "ttng.tmem_load" ? "tensor memory load" : "tensor memory store";
      c.note = "tcgen05.ld/st between registers and tensor memory: no shared-memory traffic";
    } else {
      c.kind = "TMA";
      c.shared_bytes = bytes_of(c.dst.type.find("memdesc") != std::string::npos ? c.dst : c.src);
      c.note =
          "the tensor-memory-access engine moves the tile: no LSU wavefronts (ncu has no bank counter for "
          "it)";
    }
  }

  int64_t bytes_of(const Side& s) {
    auto d = dtype_of(s.dtype);
    int64_t n = 1;
    for (int64_t e : s.shape) n *= e;
    return d ? n * dtype_bytes(*d) : 0;
  }

  // Whether every element is held by the same (warp, lane) pairs in both layouts, and by the same warps, as
  // sets: the same threads mean no data leaves its threads, the same warps no data leaves its warps. Both
  // layouts are walked element by element, without tables, and the walk stops at the first element that
  // settles both answers (a round trip usually does so at once).
  struct SameHolders {
    bool threads = false;
    bool warps = false;
  };
  class HolderSets {
   public:
    static std::optional<HolderSets> of(const Layout& l, int64_t elements) {
      auto c = CompiledLayout::compile(l);
      if (!c || c->size() != elements || elements * c->holders() > kMaxTableCells) return std::nullopt;
      HolderSets h{std::move(*c)};
      for (size_t a = 0; a < h.c_.axes().size(); ++a) {
        if (h.c_.axes()[a] == "laneid") h.lane_ = static_cast<int>(a);
        if (h.c_.axes()[a] == "warpid") h.warp_ = static_cast<int>(a);
      }
      h.positions_.resize(static_cast<size_t>(h.c_.holders() * h.c_.axis_count()));
      return h;
    }
    // element x's sorted, distinct threads (warp * 4096 + lane) and warps
    void at(int64_t x) {
      threads.clear();
      warps.clear();
      c_.map_replicas(x, positions_.data());
      const size_t axes = static_cast<size_t>(c_.axis_count());
      for (int64_t r = 0; r < c_.holders(); ++r) {
        const size_t base = static_cast<size_t>(r) * axes;
        const int64_t w = warp_ >= 0 ? positions_[base + static_cast<size_t>(warp_)] : 0;
        const int64_t l = lane_ >= 0 ? positions_[base + static_cast<size_t>(lane_)] : 0;
        threads.push_back(w * 4096 + l);
        warps.push_back(w);
      }
      for (auto* list : {&threads, &warps}) {
        std::sort(list->begin(), list->end());
        list->erase(std::unique(list->begin(), list->end()), list->end());
      }
    }
    std::vector<int64_t> threads, warps;

   private:
    explicit HolderSets(CompiledLayout c) : c_(std::move(c)) {}
    CompiledLayout c_;
    int lane_ = -1, warp_ = -1;
    std::vector<int64_t> positions_;
  };
  static std::optional<SameHolders> same_holders(const Layout& a, const Layout& b,
                                                 const std::vector<int64_t>& shape) {
    int64_t elements = 1;
    for (int64_t e : shape) elements *= e;
    auto ha = HolderSets::of(a, elements);
    auto hb = HolderSets::of(b, elements);
    if (!ha || !hb) return std::nullopt;
    SameHolders same{true, true};
    for (int64_t x = 0; x < elements && (same.threads || same.warps); ++x) {
      ha->at(x);
      hb->at(x);
      same.threads = same.threads && ha->threads == hb->threads;
      same.warps = same.warps && ha->warps == hb->warps;
    }
    return same;
  }

  void convert(OpCost& c) {
    const Layout* a = layout_of(c.src);
    const Layout* b = layout_of(c.dst);
    if (!a || !b || c.src.shape != c.dst.shape) {
      c.kind = "unread";
      c.note = "a layout did not read";
      return;
    }
    if (to_string(*a) == to_string(*b)) {
      c.kind = "trivial";
      c.note = "the two layouts are the same function: no data moves";
      return;
    }
    const auto same = same_holders(*a, *b, c.src.shape);
    if (same && same->threads) {
      c.kind = "register permutation";
      c.note = "every element stays with its threads: registers are renumbered";
      return;
    }
    if (same && same->warps) {
      c.kind = "warp shuffle";
      c.note = "every element stays in its warps: lanes exchange registers (shfl.sync)";
      c.score = static_cast<double>(bytes_of(c.src)) / 128.0;
      return;
    }
    c.kind = "shared round trip";
    c.shared_bytes = bytes_of(c.src);
    c.ideal_wavefronts = 2 * c.shared_bytes / 128;
    c.wavefronts = c.ideal_wavefronts;
    c.note =
        "elements change warps: stored to and loaded from a shared scratch tile; Triton swizzles the scratch "
        "for the two layouts (optimalSwizzlingLdSt), so the ideal wavefronts (one per 128 B each way) are "
        "given";
    c.score = static_cast<double>(c.wavefronts);
  }

  // Elements a lane holds contiguously at the end of a row (the layout's fastest mode on `axis` with
  // stride 1; a swizzle keeps 2^base elements together): no vector can be wider.
  static int64_t contiguous_tail(const Layout& l, std::string_view axis) {
    if (l.shard.empty()) return 1;
    const Mode& m = l.shard.back();
    if (m.stride.axis != axis || m.stride.k != 1) return 1;
    int64_t v = m.extent;
    if (l.swizzle && l.swizzle->bits > 0) v = std::min<int64_t>(v, int64_t{1} << l.swizzle->base);
    return v;
  }

  // Registers <-> shared: the widest STS/LDS the two layouts allow, costed by the engine.
  void shared_access(OpCost& c, const Side& regs, const Side& smem, const char* kind, bool load) {
    c.kind = kind;
    c.shared_bytes = bytes_of(smem);
    const Layout* r = layout_of(regs);
    const Layout* s = layout_of(smem);
    auto d = dtype_of(smem.dtype);
    if (!r || !s || !d || regs.shape != smem.shape) {
      c.note = "not costed: a layout or the element type did not read";
      return;
    }
    const int64_t widest =
        std::min(contiguous_tail(*r, "reg"), contiguous_tail(*s, kMemoryAxis)) * dtype_bytes(*d);
    for (int width : {16, 8, 4, 2, 1}) {
      if (width < dtype_bytes(*d) || width > widest) continue;
      auto instr = parse_instruction(std::string(load ? "LDS." : "STS.") + std::to_string(width * 8));
      if (!instr) continue;
      auto lanes = thread_lanes(*r, regs.shape, *d, *instr);
      if (!lanes) continue;
      WarpAccess w{*s, smem.shape, *d, *instr, *lanes, std::nullopt};
      auto cost = access_cost(w);
      if (!cost) continue;
      fill(c, *instr, *cost);
      if (load && regs.layout.find("dot_op") != std::string::npos)
        c.note = "Triton loads MMA operands with ldmatrix where the layouts allow; the LDS cost is given";
      return;
    }
    c.note = "not costed: no lane moves 1, 2, 4, 8 or 16 contiguous bytes in both layouts";
  }

  // A rank-2 layout with its two dimensions swapped: (r, c) of the result is (c, r) of `l`.
  static std::optional<Layout> transposed(const Layout& l, const std::vector<int64_t>& shape) {
    if (shape.size() != 2) return std::nullopt;
    auto dims = formats_detail::modes_per_dim(l.shard, shape);
    if (!dims || dims->size() != 2) return std::nullopt;
    Layout t = l;
    t.shard = (*dims)[1];
    t.shard.insert(t.shard.end(), (*dims)[0].begin(), (*dims)[0].end());
    return t;
  }

  void async_copy(OpCost& c) {
    c.kind = "global to shared";
    c.shared_bytes = bytes_of(c.dst);
    const Layout* r = layout_of(c.src);
    const Layout* s = layout_of(c.dst);
    auto d = dtype_of(c.dst.dtype);
    if (!r || !s || !d || c.src.shape != c.dst.shape) {
      c.note = "not costed: a layout or the element type did not read";
      return;
    }
    Layout regs = *r;
    Layout smem = *s;
    std::vector<int64_t> shape = c.src.shape;
    std::string along = "the source is taken as a dense row-major tensor";
    auto widest = [&] {
      return std::min(contiguous_tail(regs, "reg"), contiguous_tail(smem, kMemoryAxis)) * dtype_bytes(*d);
    };
    if (widest() < 4 && shape.size() == 2) {
      // lanes that hold runs along dimension 0 (a blocked order [0, 1] into a transposed shared layout):
      // cost the copy on the transposed tensor, whose rows are the columns
      auto rt = transposed(regs, shape);
      auto st = transposed(smem, shape);
      if (rt && st) {
        regs = *rt;
        smem = *st;
        shape = {shape[1], shape[0]};
        along = "lanes copy along dimension 0; the source is taken as dense along it (column-major)";
      }
    }
    for (int width : {16, 8, 4}) {
      if (width < dtype_bytes(*d) || width > widest()) continue;
      auto instr = parse_instruction("cp.async." + std::to_string(width));
      if (!instr) continue;
      auto lanes = thread_lanes(regs, shape, *d, *instr);
      if (!lanes) continue;
      WarpAccess w{smem, shape, *d, *instr, *lanes, std::nullopt};
      auto cost = access_cost(w);
      if (!cost) continue;
      fill(c, *instr, *cost);
      c.note = along;
      return;
    }
    c.note = "not costed: no lane moves 4, 8 or 16 contiguous bytes in both layouts";
  }

  static Result<AccessCost> access_cost(const WarpAccess& w) { return cost(w); }

  static void fill(OpCost& c, const Instruction& instr, const AccessCost& cost) {
    c.instruction = to_string(instr);
    c.instructions = static_cast<int64_t>(cost.instructions.size());
    c.wavefronts = cost.wavefronts;
    c.ideal_wavefronts = cost.ideal_wavefronts;
    c.conflicts = cost.conflicts;
    c.sectors = cost.sectors;
    c.requests = cost.requests;
    c.score = static_cast<double>(cost.wavefronts + cost.conflicts);
  }
};

}  // namespace

ScanResult scan_ttgir(std::string_view text) { return Scanner(text).run(); }

}  // namespace layoutscope::scan
