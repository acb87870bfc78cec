#include "layoutscope/formats/jax.hpp"

#include <algorithm>

#include "detail.hpp"

namespace layoutscope {

using namespace formats_detail;

namespace {

using Mesh = std::vector<std::pair<std::string, int64_t>>;

struct NamedAxis {
  std::string name;
  int column = 0;
};

bool ends_with(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0 &&
         (s.size() == tail.size() || s[s.size() - tail.size() - 1] == '.');
}

// name ':' int {',' name ':' int}  up to `close` (Mesh('x': 2, axis_types=...) stops at the keyword)
Result<Mesh> mesh_entries(Cursor& c, char close) {
  Mesh mesh;
  while (!c.is(close)) {
    if (c.peek().kind == TokKind::kIdent && c.peek(1).kind == TokKind::kPunct && c.peek(1).text == "=") {
      int depth = 0;  // skip a keyword argument up to the closing bracket
      while (!c.at_end() && !(depth == 0 && c.is(close))) {
        if (c.is('(') || c.is('[') || c.is('{')) ++depth;
        if (c.is(')') || c.is(']') || c.is('}')) --depth;
        c.next();
      }
      break;
    }
    const Tok at = c.peek();
    auto name = c.name("a mesh axis name");
    if (!name) return name.error();
    if (auto ok = check_axis_name(*name, at.column); !ok) return ok.error();
    if (auto colon = c.expect(':', "after the mesh axis name"); !colon) return colon.error();
    const Tok size_tok = c.peek();
    auto size = c.integer("the mesh axis size");
    if (!size) return size.error();
    if (*size < 1) return error_at(size_tok, "a mesh axis size must be at least 1", *name);
    for (const auto& [n, s] : mesh) {
      if (n == *name) return error_at(at, "mesh axis '" + *name + "' is named twice", *name);
    }
    mesh.emplace_back(*name, *size);
    if (!c.accept(',')) break;
  }
  if (auto end = c.expect(close, "to close the mesh"); !end) return end.error();
  return mesh;
}

// jax.make_mesh((2, 4), ('x', 'y'), ...)
Result<Mesh> make_mesh_args(Cursor& c) {
  std::vector<std::pair<int64_t, Tok>> sizes;
  if (c.is_ident("axis_shapes")) {
    c.next();
    if (auto eq = c.expect('=', "after axis_shapes"); !eq) return eq.error();
  }
  if (auto open = c.expect('(', "before the mesh shape"); !open) return open.error();
  while (!c.is(')')) {
    const Tok at = c.peek();
    auto v = c.integer("a mesh axis size");
    if (!v) return v.error();
    if (*v < 1) return error_at(at, "a mesh axis size must be at least 1");
    sizes.emplace_back(*v, at);
    if (!c.accept(',')) break;
  }
  if (auto close = c.expect(')', "after the mesh shape"); !close) return close.error();
  if (auto comma = c.expect(',', "between the mesh shape and the axis names"); !comma) return comma.error();
  if (c.is_ident("axis_names")) {
    c.next();
    if (auto eq = c.expect('=', "after axis_names"); !eq) return eq.error();
  }
  const Tok names_at = c.peek();
  if (auto open = c.expect('(', "before the axis names"); !open) return open.error();
  Mesh mesh;
  while (!c.is(')')) {
    const Tok at = c.peek();
    auto name = c.name("a mesh axis name");
    if (!name) return name.error();
    if (auto ok = check_axis_name(*name, at.column); !ok) return ok.error();
    if (mesh.size() >= sizes.size()) return error_at(at, "more axis names than mesh sizes", *name);
    mesh.emplace_back(*name, sizes[mesh.size()].first);
    if (!c.accept(',')) break;
  }
  if (auto close = c.expect(')', "after the axis names"); !close) return close.error();
  if (mesh.size() != sizes.size()) return error_at(names_at, "fewer axis names than mesh sizes");
  int depth = 0;  // the remaining keyword arguments (devices=..., axis_types=...) do not change the layout
  while (!c.at_end() && !(depth == 0 && c.is(')'))) {
    if (c.is('(') || c.is('[') || c.is('{')) ++depth;
    if (c.is(')') || c.is(']') || c.is('}')) --depth;
    c.next();
  }
  if (auto close = c.expect(')', "to close make_mesh"); !close) return close.error();
  return mesh;
}

// One PartitionSpec entry: None, 'x', ('x', 'y').
Result<std::vector<NamedAxis>> spec_entry(Cursor& c) {
  std::vector<NamedAxis> axes;
  if (c.is_ident("None")) {
    c.next();
    return axes;
  }
  if (c.accept('(')) {
    while (!c.is(')')) {
      const Tok at = c.peek();
      auto name = c.name("a mesh axis name");
      if (!name) return name.error();
      axes.push_back({*name, at.column});
      if (!c.accept(',')) break;
    }
    if (auto close = c.expect(')', "to close the axis tuple"); !close) return close.error();
    return axes;
  }
  const Tok at = c.peek();
  if (at.kind == TokKind::kIdent && ends_with(at.text, "UNCONSTRAINED")) {
    return error_at(at, "P.UNCONSTRAINED leaves the sharding to the compiler: no layout to show", "spec");
  }
  auto name = c.name("None, a mesh axis name or a tuple of them");
  if (!name) return name.error();
  axes.push_back({*name, at.column});
  return axes;
}

struct JaxText {
  Mesh mesh;
  int mesh_column = 0;
  bool have_spec = false;
  std::vector<std::vector<NamedAxis>> spec;
  int spec_column = 0;
  std::vector<int64_t> shape;  // from float32[8@x,4]
  int shape_column = 0;
};

Result<JaxText> read(std::string_view text) {
  auto tokens = tokenize(text);
  if (!tokens) return tokens.error();
  Cursor c(std::move(tokens).value());
  JaxText out;
  auto set_mesh = [&](Result<Mesh> mesh, const Tok& at) -> Result<bool> {
    if (!mesh) return mesh.error();
    if (out.mesh_column) return error_at(at, "a second mesh", "mesh");
    out.mesh = std::move(mesh).value();
    out.mesh_column = at.column;
    return true;
  };
  while (!c.at_end()) {
    const Tok t = c.peek();
    const bool call = c.peek(1).kind == TokKind::kPunct && c.peek(1).text == "(";
    const bool index = c.peek(1).kind == TokKind::kPunct && c.peek(1).text == "[";
    if (t.kind == TokKind::kPunct && t.text == "{") {
      c.next();
      if (auto ok = set_mesh(mesh_entries(c, '}'), t); !ok) return ok.error();
    } else if (t.kind == TokKind::kIdent && call && ends_with(t.text, "make_mesh")) {
      c.next();
      c.next();
      if (auto ok = set_mesh(make_mesh_args(c), t); !ok) return ok.error();
    } else if (t.kind == TokKind::kIdent && call &&
               (ends_with(t.text, "Mesh") || ends_with(t.text, "AbstractMesh"))) {
      c.next();
      c.next();
      if (auto ok = set_mesh(mesh_entries(c, ')'), t); !ok) return ok.error();
    } else if (t.kind == TokKind::kIdent && call &&
               (ends_with(t.text, "P") || ends_with(t.text, "PartitionSpec"))) {
      if (out.have_spec) return error_at(t, "a second PartitionSpec", "spec");
      c.next();
      c.next();
      out.have_spec = true;
      out.spec_column = t.column;
      while (!c.is(')')) {
        if (c.at_end()) return error_at(c.peek(), "the PartitionSpec is not closed: expected ')'", "spec");
        auto entry = spec_entry(c);
        if (!entry) return entry.error();
        out.spec.push_back(std::move(entry).value());
        if (!c.accept(',')) break;
      }
      if (auto close = c.expect(')', "to close the PartitionSpec"); !close) return close.error();
    } else if (t.kind == TokKind::kIdent && index) {
      c.next();
      c.next();
      out.have_spec = true;
      out.spec_column = t.column;
      out.shape_column = t.column;
      while (!c.is(']')) {
        const Tok at = c.peek();
        auto extent = c.integer("a dimension size");
        if (!extent) return extent.error();
        if (*extent < 1) return error_at(at, "a dimension size must be at least 1", "shape");
        out.shape.push_back(*extent);
        std::vector<NamedAxis> axes;
        if (c.accept('@')) {
          if (c.accept('(')) {
            while (!c.is(')')) {
              const Tok a = c.peek();
              auto name = c.name("a mesh axis name");
              if (!name) return name.error();
              axes.push_back({*name, a.column});
              if (!c.accept(',')) break;
            }
            if (auto close = c.expect(')', "to close the axis tuple"); !close) return close.error();
          } else {
            const Tok a = c.peek();
            auto name = c.name("a mesh axis name after '@'");
            if (!name) return name.error();
            axes.push_back({*name, a.column});
          }
        }
        out.spec.push_back(std::move(axes));
        if (!c.accept(',')) break;
      }
      if (auto close = c.expect(']', "to close the type's dimensions"); !close) return close.error();
    } else if (t.kind == TokKind::kIdent ||
               (t.kind == TokKind::kPunct &&
                std::string_view("(),;=").find(t.text[0]) != std::string_view::npos)) {
      // keyword names and values around the mesh and the spec (mesh=, spec=, memory_kind=device)
      if (call && !ends_with(t.text, "NamedSharding")) {
        return error_at(t, "unknown construct '" + t.text + "': expected a mesh and P(...)");
      }
      c.next();
    } else {
      return error_at(t, "unexpected " + describe(t) + ": expected a mesh ({'x': 2}) and P(...)");
    }
  }
  if (!out.have_spec)
    return make_error("no PartitionSpec: expected P(...) or a type such as float32[8@x,4]", 1, "spec");
  return out;
}

}  // namespace

Result<Imported> import_jax(std::string_view text, const FormatContext& context) {
  auto parsed = read(text);
  if (!parsed) return parsed.error();
  Imported out;
  out.from = Format::kJax;
  const Mesh& mesh = parsed->mesh_column ? parsed->mesh : context.mesh;
  if (parsed->mesh_column && !context.mesh.empty() && context.mesh != parsed->mesh) {
    out.notes.push_back("the mesh in the text is used; the mesh given separately is ignored");
  }
  for (const auto& [name, size] : mesh) {
    if (auto ok = check_axis_name(name, parsed->mesh_column); !ok) return ok.error();
  }
  auto shape = pick_shape(parsed->shape, parsed->shape_column, context, "a PartitionSpec");
  if (!shape) return shape.error();
  out.shape = *shape;
  if (parsed->spec.size() > shape->size()) {
    return make_error("the PartitionSpec has " + std::to_string(parsed->spec.size()) +
                          " entries for a tensor of rank " + std::to_string(shape->size()),
                      parsed->spec_column, "spec");
  }
  std::vector<std::vector<Segment>> dims(shape->size());
  std::vector<std::string> used;
  for (size_t d = 0; d < shape->size(); ++d) {
    int64_t devices = 1;
    std::string names;
    if (d < parsed->spec.size()) {
      for (const NamedAxis& a : parsed->spec[d]) {
        auto it = std::find_if(mesh.begin(), mesh.end(), [&](const auto& e) { return e.first == a.name; });
        if (it == mesh.end()) {
          return make_error(mesh.empty()
                                ? "axis '" + a.name + "' needs a mesh: give one ({'x': 2} or --mesh x=2)"
                                : "axis '" + a.name + "' is not an axis of the mesh",
                            a.column, a.name);
        }
        if (std::find(used.begin(), used.end(), a.name) != used.end()) {
          return make_error("mesh axis '" + a.name + "' shards two dimensions", a.column, a.name);
        }
        used.push_back(a.name);
        dims[d].push_back(Segment{it->second, a.name, 1});
        if (__builtin_mul_overflow(devices, it->second, &devices)) {
          return make_error("dimension " + std::to_string(d) + " has too many devices", a.column, a.name);
        }
        names += (names.empty() ? "" : "*") + a.name;
      }
    }
    const int64_t n = (*shape)[d];
    if (n % devices != 0) {
      return make_error("dimension " + std::to_string(d) + " (size " + std::to_string(n) +
                            ") is not divisible by its " + std::to_string(devices) + " devices (" + names +
                            "): JAX requires even shards",
                        d < parsed->spec.size() && !parsed->spec[d].empty() ? parsed->spec[d][0].column : 0,
                        "dimension " + std::to_string(d));
    }
    dims[d].push_back(Segment{n / devices, "", 1});
  }
  std::vector<Mode> replicas;
  for (const auto& [name, size] : mesh) {
    if (std::find(used.begin(), used.end(), name) == used.end()) {
      replicas.push_back(Mode{size, AxisStride{1, name}});
    }
  }
  if (mesh.empty()) out.notes.push_back("no mesh given: the layout shows one device's view, no replication");
  auto layout = shard_layout(dims, std::move(replicas), {});
  if (!layout) return layout.error();
  out.layout = std::move(layout).value();
  return out;
}

Result<std::string> export_jax(const Layout& layout, const std::vector<int64_t>& shape,
                               const FormatContext& context) {
  if (auto ok = check_plain_sharding(layout, "JAX"); !ok) return ok.error();
  if (!layout.partials.empty()) {
    return make_error("JAX has no partial-sum sharding: P[...] cannot be exported", 0, "partial");
  }
  auto mesh = export_mesh(layout, context, "JAX");
  if (!mesh) return mesh.error();
  auto dims = modes_per_dim(layout.shard, shape);
  if (!dims) return dims.error();
  auto size_of = [&](const std::string& axis) -> int64_t {
    for (const auto& [n, s] : *mesh)
      if (n == axis) return s;
    return 0;
  };
  std::vector<std::string> used;
  std::string spec;
  std::vector<std::string> entries;
  for (size_t d = 0; d < dims->size(); ++d) {
    std::vector<std::string> names;
    bool local = false;
    for (const Mode& m : (*dims)[d]) {
      const std::string& axis = m.stride.axis;
      if (axis == kMemoryAxis) {
        local = true;
        continue;
      }
      const std::string field = "dimension " + std::to_string(d);
      if (local) {
        return make_error(
            "dimension " + std::to_string(d) + ": mesh axis @" + axis +
                " is minor to local elements (a cyclic sharding); JAX shards in contiguous blocks",
            0, field);
      }
      if (m.stride.k != 1 || m.extent != size_of(axis)) {
        return make_error("dimension " + std::to_string(d) + ": mode " + std::to_string(m.extent) + ":" +
                              std::to_string(m.stride.k) + "@" + axis + " does not span mesh axis " + axis +
                              " (size " + std::to_string(size_of(axis)) + ") with stride 1",
                          0, field);
      }
      if (std::find(used.begin(), used.end(), axis) != used.end()) {
        return make_error("mesh axis @" + axis + " is used twice", 0, axis);
      }
      used.push_back(axis);
      names.push_back(axis);
    }
    if (names.empty()) {
      entries.push_back("None");
    } else if (names.size() == 1) {
      entries.push_back("'" + names[0] + "'");
    } else {
      std::string t = "(";
      for (size_t i = 0; i < names.size(); ++i) t += (i ? ", '" : "'") + names[i] + "'";
      entries.push_back(t + ")");
    }
  }
  if (auto ok = check_local_row_major(*dims, "JAX"); !ok) return ok.error();
  for (const auto& group : layout.replicas) {
    for (const Mode& m : group) {
      if (m.extent <= 1) continue;
      if (m.stride.axis == kMemoryAxis || m.stride.k != 1 || m.extent != size_of(m.stride.axis) ||
          std::find(used.begin(), used.end(), m.stride.axis) != used.end()) {
        return make_error("replica R[" + std::to_string(m.extent) + ":" + to_string(m.stride) +
                              "] is not a whole mesh axis: JAX replicates over entire axes only",
                          0, "replica");
      }
      used.push_back(m.stride.axis);
    }
  }
  for (const auto& [name, size] : *mesh) {
    if (size > 1 && std::find(used.begin(), used.end(), name) == used.end()) {
      return make_error(
          "mesh axis '" + name +
              "' neither shards nor replicates the tensor (the layout keeps it at coordinate 0); "
              "JAX replicates over every unnamed axis",
          0, name);
    }
  }
  std::string sizes;
  std::string names;
  for (size_t i = 0; i < mesh->size(); ++i) {
    sizes += (i ? ", " : "") + std::to_string((*mesh)[i].second);
    names += (i ? ", '" : "'") + (*mesh)[i].first + "'";
  }
  if (mesh->size() == 1) {
    sizes += ",";
    names += ",";
  }
  spec = "P(";
  for (size_t i = 0; i < entries.size(); ++i) spec += (i ? ", " : "") + entries[i];
  spec += ")";
  std::string text = "NamedSharding(jax.make_mesh((" + sizes + "), (" + names + ")), " + spec + ")";
  FormatContext again{shape, {}};
  auto back = import_jax(text, again);
  if (!back) return back.error();
  // The self-check: the text must import back to this layout (formats_detail::same_sharding, exact for what
  // this exporter accepts, in time linear in the modes).
  if (!same_sharding(back->layout, layout, shape)) {
    return make_error("the JAX text " + text + " imports back as " + to_string(back->layout) +
                          ", another layout: JAX cannot express this one",
                      0, "layout");
  }
  return text;
}

}  // namespace layoutscope
