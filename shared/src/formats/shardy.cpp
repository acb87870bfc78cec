#include "layoutscope/formats/shardy.hpp"

#include <algorithm>
#include <map>

#include "detail.hpp"

namespace layoutscope {

using namespace formats_detail;

namespace {

using Mesh = std::vector<std::pair<std::string, int64_t>>;

struct AxisRef {
  std::string name;
  int column = 0;
};

// <["x"=4, "y"=2]> or <["x"=4], device_ids=[...]> -- at '<'
Result<Mesh> mesh_body(Cursor& c) {
  if (auto open = c.expect('<', "to open the mesh"); !open) return open.error();
  if (auto open = c.expect('[', "before the mesh axes"); !open) return open.error();
  Mesh mesh;
  while (!c.is(']')) {
    const Tok at = c.peek();
    auto name = c.name("a mesh axis name");
    if (!name) return name.error();
    if (auto ok = check_axis_name(*name, at.column); !ok) return ok.error();
    if (auto eq = c.expect('=', "between the axis name and its size"); !eq) return eq.error();
    const Tok size_at = c.peek();
    auto size = c.integer("the axis size");
    if (!size) return size.error();
    if (*size < 1) return error_at(size_at, "a mesh axis size must be at least 1", *name);
    for (const auto& [n, s] : mesh)
      if (n == *name) return error_at(at, "mesh axis '" + *name + "' is named twice", *name);
    mesh.emplace_back(*name, *size);
    if (!c.accept(',')) break;
  }
  if (auto close = c.expect(']', "after the mesh axes"); !close) return close.error();
  if (c.accept(',')) {
    const Tok at = c.peek();
    if (!c.is_ident("device_ids")) return error_at(at, "expected device_ids=[...], found " + describe(at));
    c.next();
    if (auto eq = c.expect('=', "after device_ids"); !eq) return eq.error();
    if (auto open = c.expect('[', "before the device ids"); !open) return open.error();
    int64_t expected = 0;
    while (!c.is(']')) {
      const Tok id_at = c.peek();
      auto id = c.integer("a device id");
      if (!id) return id.error();
      if (*id != expected) {
        return error_at(id_at,
                        "device_ids is not the identity order (device " + std::to_string(*id) +
                            " at position " + std::to_string(expected) + "): not expressible over named axes",
                        "device_ids");
      }
      ++expected;
      if (!c.accept(',')) break;
    }
    if (auto close = c.expect(']', "after the device ids"); !close) return close.error();
  }
  if (auto close = c.expect('>', "to close the mesh"); !close) return close.error();
  return mesh;
}

// {"x", "y"} {?} {"x", ?}  -> axes; open set when '?' appears
Result<std::vector<AxisRef>> axis_set(Cursor& c, bool* open) {
  std::vector<AxisRef> axes;
  if (auto brace = c.expect('{', "to open a dimension's axes"); !brace) return brace.error();
  while (!c.is('}')) {
    if (c.accept('?')) {
      *open = true;
    } else {
      const Tok at = c.peek();
      auto name = c.name("a mesh axis name or '?'");
      if (!name) return name.error();
      if (c.is(':')) {
        return error_at(c.peek(),
                        "sub-axis \"" + *name + "\":(...) is not supported: split the mesh axis instead",
                        *name);
      }
      axes.push_back({*name, at.column});
    }
    if (!c.accept(',')) break;
  }
  if (auto brace = c.expect('}', "to close a dimension's axes"); !brace) return brace.error();
  if (c.peek().kind == TokKind::kIdent && c.peek().text.size() > 1 && c.peek().text[0] == 'p' &&
      std::all_of(c.peek().text.begin() + 1, c.peek().text.end(),
                  [](char ch) { return ch >= '0' && ch <= '9'; })) {
    c.next();  // a propagation priority, p0, p1, ...: no effect on the layout
  }
  return axes;
}

struct Sharding {
  std::string mesh_name;  // empty when inline
  Mesh inline_mesh;
  bool has_inline = false;
  int column = 0;
  std::vector<std::vector<AxisRef>> dims;
  std::vector<bool> open;
  std::vector<AxisRef> replicated;
  std::vector<AxisRef> unreduced;
};

// after "#sdy.sharding": <@mesh, [{"x"}, {}], replicated={"y"}>
Result<Sharding> sharding_body(Cursor& c) {
  Sharding s;
  s.column = c.peek().column;
  if (auto open = c.expect('<', "to open the sharding"); !open) return open.error();
  if (c.accept('@')) {
    auto name = c.name("the mesh name");
    if (!name) return name.error();
    s.mesh_name = *name;
  } else if (c.is_ident("mesh") || c.is_ident("#sdy.mesh")) {
    c.next();
    auto mesh = mesh_body(c);
    if (!mesh) return mesh.error();
    s.inline_mesh = std::move(mesh).value();
    s.has_inline = true;
  } else if (c.accept('#')) {
    if (!c.is_ident("sdy.mesh"))
      return error_at(c.peek(), "expected sdy.mesh<...>, found " + describe(c.peek()));
    c.next();
    auto mesh = mesh_body(c);
    if (!mesh) return mesh.error();
    s.inline_mesh = std::move(mesh).value();
    s.has_inline = true;
  } else {
    return error_at(c.peek(), "expected @mesh_name or mesh<[...]>, found " + describe(c.peek()), "mesh");
  }
  if (auto comma = c.expect(',', "after the mesh"); !comma) return comma.error();
  if (auto open = c.expect('[', "before the dimension shardings"); !open) return open.error();
  while (!c.is(']')) {
    bool open_dim = false;
    auto axes = axis_set(c, &open_dim);
    if (!axes) return axes.error();
    s.dims.push_back(std::move(axes).value());
    s.open.push_back(open_dim);
    if (!c.accept(',')) break;
  }
  if (auto close = c.expect(']', "after the dimension shardings"); !close) return close.error();
  while (c.accept(',')) {
    const Tok key = c.peek();
    if (!c.is_ident("replicated") && !c.is_ident("unreduced")) {
      return error_at(key, "expected replicated={...} or unreduced={...}, found " + describe(key));
    }
    c.next();
    if (auto eq = c.expect('=', "after " + key.text); !eq) return eq.error();
    bool ignored = false;
    auto axes = axis_set(c, &ignored);
    if (!axes) return axes.error();
    auto& into = key.text == "replicated" ? s.replicated : s.unreduced;
    into.insert(into.end(), axes->begin(), axes->end());
  }
  if (auto close = c.expect('>', "to close the sharding"); !close) return close.error();
  return s;
}

}  // namespace

Result<Imported> import_shardy(std::string_view text, const FormatContext& context) {
  auto tokens = tokenize(text);
  if (!tokens) return tokens.error();
  Cursor c(std::move(tokens).value());
  std::map<std::string, Mesh> meshes;
  std::vector<Sharding> shardings;
  while (!c.at_end()) {
    const Tok t = c.peek();
    if (t.kind == TokKind::kIdent && t.text == "sdy.mesh") {
      c.next();
      if (auto at = c.expect('@', "before the mesh name"); !at) return at.error();
      auto name = c.name("the mesh name");
      if (!name) return name.error();
      if (auto eq = c.expect('=', "after the mesh name"); !eq) return eq.error();
      if (c.accept('#') && !c.is_ident("sdy.mesh")) return error_at(c.peek(), "expected sdy.mesh<...>");
      if (c.is_ident("sdy.mesh")) c.next();
      auto mesh = mesh_body(c);
      if (!mesh) return mesh.error();
      meshes[*name] = std::move(mesh).value();
    } else if (t.kind == TokKind::kIdent && t.text == "sdy.sharding" && c.peek(1).text == "<") {
      c.next();
      auto s = sharding_body(c);
      if (!s) return s.error();
      shardings.push_back(std::move(s).value());
    } else if (t.kind == TokKind::kIdent && t.text == "sdy.sharding_per_value" && c.peek(1).text == "<") {
      c.next();
      if (auto open = c.expect('<', "to open sharding_per_value"); !open) return open.error();
      if (auto open = c.expect('[', "before the shardings"); !open) return open.error();
      while (!c.is(']')) {
        auto s = sharding_body(c);
        if (!s) return s.error();
        shardings.push_back(std::move(s).value());
        if (!c.accept(',')) break;
      }
      if (auto close = c.expect(']', "after the shardings"); !close) return close.error();
      if (auto close = c.expect('>', "to close sharding_per_value"); !close) return close.error();
    } else {
      c.next();  // '#', attribute names, braces of the op text around the sharding
    }
  }
  if (shardings.empty()) return make_error("no #sdy.sharding<...> in the text", 1, "sharding");
  if (shardings.size() > 1) {
    return make_error("the text holds " + std::to_string(shardings.size()) + " shardings: give one",
                      shardings[1].column, "sharding");
  }
  const Sharding& s = shardings[0];
  Imported out;
  out.from = Format::kShardy;
  Mesh mesh;
  if (s.has_inline) {
    mesh = s.inline_mesh;
  } else if (auto it = meshes.find(s.mesh_name); it != meshes.end()) {
    mesh = it->second;
  } else if (!context.mesh.empty()) {
    mesh = context.mesh;
    out.notes.push_back("mesh @" + s.mesh_name + " is not in the text: the mesh given separately is used");
  } else {
    return make_error(
        "mesh @" + s.mesh_name + " is not defined: add sdy.mesh @" + s.mesh_name + " = <[...]> or --mesh",
        s.column, "mesh");
  }
  std::vector<int64_t> text_shape;
  if (auto found = find_tensor_shape(text)) text_shape = *found;
  auto shape = pick_shape(text_shape, 1, context, "a Shardy sharding");
  if (!shape) return shape.error();
  out.shape = *shape;
  if (s.dims.size() != shape->size()) {
    return make_error("the sharding has " + std::to_string(s.dims.size()) +
                          " dimensions for a tensor of rank " + std::to_string(shape->size()),
                      s.column, "sharding");
  }
  std::vector<std::string> used;
  auto size_of = [&](const AxisRef& a) -> Result<int64_t> {
    for (const auto& [n, sz] : mesh)
      if (n == a.name) {
        if (std::find(used.begin(), used.end(), a.name) != used.end()) {
          return make_error("mesh axis \"" + a.name + "\" is used twice", a.column, a.name);
        }
        used.push_back(a.name);
        return sz;
      }
    return make_error("axis \"" + a.name + "\" is not in the mesh", a.column, a.name);
  };
  std::vector<std::vector<Segment>> dims(shape->size());
  for (size_t d = 0; d < shape->size(); ++d) {
    int64_t devices = 1;
    for (const AxisRef& a : s.dims[d]) {
      auto size = size_of(a);
      if (!size) return size.error();
      dims[d].push_back(Segment{*size, a.name, 1});
      if (__builtin_mul_overflow(devices, *size, &devices)) {
        return make_error("dimension " + std::to_string(d) + " has too many devices", a.column, a.name);
      }
    }
    if ((*shape)[d] % devices != 0) {
      return make_error("dimension " + std::to_string(d) + " (size " + std::to_string((*shape)[d]) +
                            ") is not divisible by its " + std::to_string(devices) +
                            " devices: XLA would pad the last shard, which the notation cannot express",
                        s.dims[d].front().column, "dimension " + std::to_string(d));
    }
    dims[d].push_back(Segment{(*shape)[d] / devices, "", 1});
    if (s.open[d]) {
      out.notes.push_back("dimension " + std::to_string(d) +
                          " is open ('?'): read as sharded only as written");
    }
  }
  std::vector<Mode> partials;
  for (const AxisRef& a : s.unreduced) {
    auto size = size_of(a);
    if (!size) return size.error();
    partials.push_back(Mode{*size, AxisStride{1, a.name}});
  }
  for (const AxisRef& a : s.replicated) {
    auto size = size_of(a);
    if (!size) return size.error();
    used.pop_back();  // listed again below, with every other free axis, in mesh order
  }
  std::vector<Mode> replicas;
  for (const auto& [n, sz] : mesh) {
    if (std::find(used.begin(), used.end(), n) == used.end()) replicas.push_back(Mode{sz, AxisStride{1, n}});
  }
  auto layout = shard_layout(dims, std::move(replicas), std::move(partials));
  if (!layout) return layout.error();
  out.layout = std::move(layout).value();
  return out;
}

}  // namespace layoutscope
