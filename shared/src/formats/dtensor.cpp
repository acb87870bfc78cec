#include "layoutscope/formats/dtensor.hpp"

#include <algorithm>

#include "detail.hpp"
#include "layoutscope/canonical.hpp"

namespace layoutscope {

using namespace formats_detail;

namespace {

using Mesh = std::vector<std::pair<std::string, int64_t>>;

bool ends_with(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0 &&
         (s.size() == tail.size() || s[s.size() - tail.size() - 1] == '.');
}

struct Placement {
  enum Kind { kShard, kReplicate, kPartial } kind = kReplicate;
  int64_t dim = 0;
  int64_t split_factor = 1;  // _StridedShard
  int column = 0;
};

// Skips one argument value up to (not past) the ',' or ')' that ends it.
void skip_value(Cursor& c) {
  int depth = 0;
  while (!c.at_end() && !(depth == 0 && (c.is(')') || c.is(',')))) {
    if (c.is('(') || c.is('[') || c.is('{')) ++depth;
    if (c.is(')') || c.is(']') || c.is('}')) --depth;
    c.next();
  }
  c.accept(',');
}

// [[0, 1], [2, 3]] -> the ids in order (with their tokens) and the nesting's sizes
Result<std::vector<std::pair<int64_t, Tok>>> device_ids(Cursor& c, std::vector<int64_t>* sizes) {
  std::vector<std::pair<int64_t, Tok>> ids;
  std::vector<int64_t> dims;
  struct Frame {
    int64_t count = 0;
  };
  std::vector<Frame> stack;
  const Tok first = c.peek();
  while (true) {
    const Tok t = c.peek();
    if (c.accept('[')) {
      if (stack.size() > 8) return error_at(t, "the device list is nested too deeply", "mesh");
      stack.push_back({});
      continue;
    }
    if (t.kind == TokKind::kInt) {
      ids.emplace_back(c.next().value, t);
      if (ids.size() > (size_t{1} << 16)) return error_at(t, "more than 65536 devices", "mesh");
      ++stack.back().count;
    } else if (c.accept(']')) {
      const size_t depth = stack.size() - 1;
      if (dims.size() <= depth) dims.resize(depth + 1, -1);
      if (dims[depth] == -1) dims[depth] = stack.back().count;
      if (dims[depth] != stack.back().count) return error_at(t, "the device list is ragged", "mesh");
      stack.pop_back();
      if (stack.empty()) break;
      ++stack.back().count;
    } else {
      return error_at(t, "expected a device id or a list, found " + describe(t), "mesh");
    }
    if (!c.accept(',') && !c.is(']'))
      return error_at(c.peek(), "expected ',' or ']' in the device list", "mesh");
  }
  if (ids.empty()) return error_at(first, "an empty device list", "mesh");
  *sizes = dims;
  return ids;
}

// init_device_mesh("cuda", (2, 4), mesh_dim_names=("dp", "tp"))  -- after the '('
Result<Mesh> device_mesh_args(Cursor& c, std::vector<std::string>* notes) {
  std::vector<int64_t> sizes;
  std::vector<std::string> names;
  Tok names_at;
  while (!c.is(')') && !c.at_end()) {
    if (c.peek().kind == TokKind::kIdent && c.peek(1).kind == TokKind::kPunct && c.peek(1).text == "=") {
      const std::string key = c.next().text;
      c.next();
      if (key == "mesh_shape") {
        // handled below like the positional form
      } else if (key == "mesh_dim_names") {
        names_at = c.peek();
        if (auto open = c.expect('(', "before the mesh dimension names"); !open) return open.error();
        while (!c.is(')')) {
          const Tok at = c.peek();
          auto name = c.name("a mesh dimension name");
          if (!name) return name.error();
          if (auto ok = check_axis_name(*name, at.column); !ok) return ok.error();
          if (std::find(names.begin(), names.end(), *name) != names.end()) {
            return error_at(at, "mesh dimension '" + *name + "' is named twice", *name);
          }
          names.push_back(*name);
          if (!c.accept(',')) break;
        }
        if (auto close = c.expect(')', "after the mesh dimension names"); !close) return close.error();
        c.accept(',');
        continue;
      } else {
        skip_value(c);
        continue;
      }
    }
    if (c.peek().kind == TokKind::kString) {  // the device type
      c.next();
      c.accept(',');
      continue;
    }
    if (c.is('[')) {  // DeviceMesh's printed form: the device ids as a nested list, row-major
      const Tok at = c.peek();
      auto ids = device_ids(c, &sizes);
      if (!ids) return ids.error();
      for (size_t i = 0; i < ids->size(); ++i) {
        if ((*ids)[i].first != static_cast<int64_t>(i)) {
          return error_at((*ids)[i].second,
                          "device " + std::to_string((*ids)[i].first) + " at position " + std::to_string(i) +
                              ": a mesh whose devices are not in row-major order is not expressible "
                              "over named dimensions",
                          "mesh");
        }
      }
      (void)at;
      c.accept(',');
      continue;
    }
    if (c.accept('(')) {
      while (!c.is(')')) {
        const Tok at = c.peek();
        auto v = c.integer("a mesh dimension size");
        if (!v) return v.error();
        if (*v < 1) return error_at(at, "a mesh dimension size must be at least 1");
        sizes.push_back(*v);
        if (!c.accept(',')) break;
      }
      if (auto close = c.expect(')', "after the mesh shape"); !close) return close.error();
      c.accept(',');
      continue;
    }
    return error_at(c.peek(), "unexpected " + describe(c.peek()) + " in init_device_mesh(...)");
  }
  if (auto close = c.expect(')', "to close init_device_mesh"); !close) return close.error();
  if (sizes.empty()) return error_at(c.peek(), "init_device_mesh without a mesh shape", "mesh");
  if (!names.empty() && names.size() != sizes.size()) {
    return error_at(names_at,
                    "mesh_dim_names has " + std::to_string(names.size()) + " names for " +
                        std::to_string(sizes.size()) + " mesh dimensions",
                    "mesh");
  }
  Mesh mesh;
  for (size_t i = 0; i < sizes.size(); ++i) {
    mesh.emplace_back(names.empty() ? "mesh" + std::to_string(i) : names[i], sizes[i]);
  }
  if (names.empty())
    notes->push_back("the mesh has no mesh_dim_names: its dimensions are called mesh0, mesh1, ...");
  return mesh;
}

// Shard(0), Shard(dim=0), Replicate(), Partial(), Partial("sum"), Partial(reduce_op="sum"), Partial(sum),
// _StridedShard(0, split_factor=2)
Result<Placement> placement(Cursor& c) {
  const Tok at = c.peek();
  if (at.kind != TokKind::kIdent) {
    return error_at(at,
                    "expected a placement (Shard, Replicate, Partial, _StridedShard), found " + describe(at));
  }
  c.next();
  Placement p;
  p.column = at.column;
  const std::string& kind = at.text;
  const bool has_args = c.accept('(');
  auto close = [&]() -> Result<bool> {
    if (!has_args) return true;
    if (auto end = c.expect(')', "to close the placement"); !end) return end.error();
    return true;
  };
  auto keyword = [&](std::string_view name) {
    if (c.is_ident(name) && c.peek(1).kind == TokKind::kPunct && c.peek(1).text == "=") {
      c.next();
      c.next();
    }
  };
  if (ends_with(kind, "Replicate")) {
    p.kind = Placement::kReplicate;
  } else if (ends_with(kind, "Shard") || ends_with(kind, "_StridedShard")) {
    p.kind = Placement::kShard;
    if (!has_args) return error_at(at, kind + " needs the tensor dimension: " + kind + "(0)", kind);
    keyword("dim");
    const Tok dim_at = c.peek();
    auto dim = c.integer("the tensor dimension");
    if (!dim) return dim.error();
    p.dim = *dim;
    if (ends_with(kind, "_StridedShard")) {
      if (auto comma = c.expect(',', "before split_factor"); !comma) return comma.error();
      keyword("split_factor");
      const Tok sf_at = c.peek();
      auto sf = c.integer("the split factor");
      if (!sf) return sf.error();
      if (*sf < 1) return error_at(sf_at, "split_factor must be at least 1", "split_factor");
      p.split_factor = *sf;
    }
    (void)dim_at;
  } else if (ends_with(kind, "Partial") || ends_with(kind, "_Partial")) {
    p.kind = Placement::kPartial;
    if (has_args && !c.is(')')) {
      keyword("reduce_op");
      const Tok op = c.peek();
      auto name = c.name("the reduce op");
      if (!name) return name.error();
      if (*name != "sum") {
        return error_at(
            op, "Partial(\"" + *name + "\"): only sums are expressible (P[...] adds the partial values)",
            "reduce_op");
      }
    }
  } else {
    return error_at(
        at, "unknown placement '" + kind + "': expected Shard, Replicate, Partial or _StridedShard", kind);
  }
  if (auto ok = close(); !ok) return ok.error();
  return p;
}

// Takes `factor` from the major end of the local pieces of one dimension, as device steps on `axis` (or as a
// local piece when axis is empty); the pieces list is major first.
Result<bool> take(std::vector<Segment>& dim, int64_t factor, const std::string& axis, int column,
                  const std::string& what) {
  size_t i = 0;
  int64_t stride = factor;
  std::vector<Segment> taken;
  while (factor > 1) {
    while (i < dim.size() && (!dim[i].axis.empty() || dim[i].extent == 1)) ++i;
    if (i >= dim.size()) return make_error(what, column, "placement");
    Segment& piece = dim[i];
    if (piece.extent % factor == 0) {
      stride /= factor;
      taken.push_back(Segment{factor, axis, stride});
      piece.extent /= factor;
      factor = 1;
    } else if (factor % piece.extent == 0) {
      stride /= piece.extent;
      taken.push_back(Segment{piece.extent, axis, stride});
      factor /= piece.extent;
      piece.extent = 1;
    } else {
      return make_error(what, column, "placement");
    }
    dim.insert(dim.begin() + static_cast<std::ptrdiff_t>(i), taken.back());
    taken.pop_back();
    ++i;
  }
  return true;
}

struct DtensorText {
  Mesh mesh;
  int mesh_column = 0;
  std::vector<Placement> placements;
  int placements_column = 0;
  bool have_placements = false;
};

Result<DtensorText> read(std::string_view text, std::vector<std::string>* notes) {
  auto tokens = tokenize(text);
  if (!tokens) return tokens.error();
  Cursor c(std::move(tokens).value());
  DtensorText out;
  while (!c.at_end()) {
    const Tok t = c.peek();
    const bool call = c.peek(1).kind == TokKind::kPunct && c.peek(1).text == "(";
    if (t.kind == TokKind::kIdent && call &&
        (ends_with(t.text, "init_device_mesh") || ends_with(t.text, "DeviceMesh"))) {
      if (out.mesh_column) return error_at(t, "a second device mesh", "mesh");
      c.next();
      c.next();
      auto mesh = device_mesh_args(c, notes);
      if (!mesh) return mesh.error();
      out.mesh = std::move(mesh).value();
      out.mesh_column = t.column;
    } else if ((t.kind == TokKind::kPunct && (t.text == "[" || t.text == "(")) &&
               c.peek(1).kind == TokKind::kIdent && c.peek(2).kind == TokKind::kPunct &&
               (c.peek(2).text == "(" || c.peek(2).text == "," || c.peek(2).text == "]" ||
                c.peek(2).text == ")")) {
      if (out.have_placements) return error_at(t, "a second list of placements", "placements");
      const char close = t.text == "[" ? ']' : ')';
      c.next();
      out.have_placements = true;
      out.placements_column = t.column;
      while (!c.is(close)) {
        auto p = placement(c);
        if (!p) return p.error();
        out.placements.push_back(*p);
        if (!c.accept(',')) break;
      }
      if (auto end = c.expect(close, "to close the placements"); !end) return end.error();
    } else if ((t.kind == TokKind::kIdent && !call) ||
               (t.kind == TokKind::kPunct &&
                std::string_view(",;=)").find(t.text[0]) != std::string_view::npos)) {
      c.next();  // placements=, mesh=, separators
    } else if (t.kind == TokKind::kIdent && call &&
               (ends_with(t.text, "distribute_tensor") || ends_with(t.text, "DTensor"))) {
      c.next();  // the call around the mesh and the placements
      c.next();
    } else if (t.kind == TokKind::kIdent && call) {
      c.next();  // another argument's value (local_tensor=tensor(...)): no part of the layout
      c.next();
      int depth = 0;
      while (!c.at_end() && !(depth == 0 && c.is(')'))) {
        if (c.is('(') || c.is('[') || c.is('{')) ++depth;
        if (c.is(')') || c.is(']') || c.is('}')) --depth;
        c.next();
      }
      c.accept(')');
    } else {
      return error_at(t,
                      "unexpected " + describe(t) + ": expected init_device_mesh(...) and [Shard(0), ...]");
    }
  }
  if (!out.have_placements)
    return make_error("no placements: expected a list such as [Shard(0), Replicate()]", 1, "placements");
  return out;
}

}  // namespace

Result<Imported> import_dtensor(std::string_view text, const FormatContext& context) {
  Imported out;
  out.from = Format::kDtensor;
  auto parsed = read(text, &out.notes);
  if (!parsed) return parsed.error();
  const Mesh& mesh = parsed->mesh_column ? parsed->mesh : context.mesh;
  if (mesh.empty())
    return make_error("DTensor placements need a device mesh: init_device_mesh(...) or --mesh", 1, "mesh");
  for (const auto& [name, size] : mesh) {
    if (auto ok = check_axis_name(name, parsed->mesh_column); !ok) return ok.error();
  }
  if (parsed->placements.size() != mesh.size()) {
    return make_error(std::to_string(parsed->placements.size()) + " placements for a mesh of " +
                          std::to_string(mesh.size()) + " dimensions: DTensor needs one per mesh dimension",
                      parsed->placements_column, "placements");
  }
  auto shape = pick_shape({}, 0, context, "DTensor placements");
  if (!shape) return shape.error();
  out.shape = *shape;
  const int64_t rank = static_cast<int64_t>(shape->size());
  std::vector<std::vector<Segment>> dims(shape->size());
  for (size_t d = 0; d < dims.size(); ++d) dims[d].push_back(Segment{(*shape)[d], "", 1});
  std::vector<Mode> replicas;
  std::vector<Mode> partials;
  for (size_t i = 0; i < mesh.size(); ++i) {
    const Placement& p = parsed->placements[i];
    const auto& [axis, size] = mesh[i];
    if (p.kind == Placement::kReplicate) {
      replicas.push_back(Mode{size, AxisStride{1, axis}});
      continue;
    }
    if (p.kind == Placement::kPartial) {
      partials.push_back(Mode{size, AxisStride{1, axis}});
      continue;
    }
    const int64_t d = p.dim < 0 ? p.dim + rank : p.dim;
    if (d < 0 || d >= rank) {
      return make_error("Shard(" + std::to_string(p.dim) + ") on a tensor of rank " + std::to_string(rank),
                        p.column, "placement " + std::to_string(i));
    }
    std::vector<Segment>& dim = dims[static_cast<size_t>(d)];
    const std::string uneven = "mesh dimension " + axis + " (size " + std::to_string(size) +
                               ") does not divide what is left of tensor dimension " + std::to_string(d) +
                               " (size " + std::to_string((*shape)[static_cast<size_t>(d)]) +
                               "): torch.chunk gives uneven shards, which the notation cannot express";
    if (p.split_factor > 1) {
      if (auto ok = take(dim, p.split_factor, "", p.column, uneven); !ok) return ok.error();
      // the split-off pieces stay local (a later mesh dimension takes them); this one shards what follows
      size_t first = 0;
      int64_t skipped = 1;
      while (first < dim.size() && skipped < p.split_factor) {
        if (dim[first].axis.empty()) skipped *= dim[first].extent;
        ++first;
      }
      std::vector<Segment> rest(dim.begin() + static_cast<std::ptrdiff_t>(first), dim.end());
      if (auto ok = take(rest, size, axis, p.column, uneven); !ok) return ok.error();
      dim.resize(first);
      dim.insert(dim.end(), rest.begin(), rest.end());
    } else if (auto ok = take(dim, size, axis, p.column, uneven); !ok) {
      return ok.error();
    }
  }
  auto layout = shard_layout(dims, std::move(replicas), std::move(partials));
  if (!layout) return layout.error();
  out.layout = std::move(layout).value();
  return out;
}

Result<std::string> export_dtensor(const Layout& layout, const std::vector<int64_t>& shape,
                                   const FormatContext& context) {
  if (auto ok = check_plain_sharding(layout, "DTensor"); !ok) return ok.error();
  auto mesh = export_mesh(layout, context, "DTensor");
  if (!mesh) return mesh.error();
  if (mesh->empty()) {
    return make_error("the layout names no device axis: a DTensor needs a device mesh (give one)", 0, "mesh");
  }
  auto dims = modes_per_dim(layout.shard, shape);
  if (!dims) return dims.error();
  auto index_of = [&](const std::string& axis) -> size_t {
    for (size_t i = 0; i < mesh->size(); ++i)
      if ((*mesh)[i].first == axis) return i;
    return mesh->size();
  };
  std::vector<std::string> placements(mesh->size());
  auto claim = [&](const std::string& axis, std::string text) -> Result<bool> {
    const size_t i = index_of(axis);
    if (i == mesh->size()) return make_error("axis @" + axis + " is not in the mesh", 0, axis);
    if (!placements[i].empty()) return make_error("mesh dimension " + axis + " is used twice", 0, axis);
    placements[i] = std::move(text);
    return true;
  };
  for (size_t d = 0; d < dims->size(); ++d) {
    std::vector<Mode> device;
    bool local = false;
    for (const Mode& m : (*dims)[d]) {
      if (m.stride.axis == kMemoryAxis) {
        local = true;
        continue;
      }
      if (local) {
        return make_error("dimension " + std::to_string(d) + ": mesh dimension " + m.stride.axis +
                              " is minor to local elements (a cyclic sharding); DTensor shards in blocks",
                          0, "dimension " + std::to_string(d));
      }
      const size_t i = index_of(m.stride.axis);
      if (i == mesh->size() || m.stride.k != 1 || m.extent != (*mesh)[i].second) {
        return make_error("dimension " + std::to_string(d) + ": mode " + std::to_string(m.extent) + ":" +
                              to_string(m.stride) + " does not span a whole mesh dimension with stride 1",
                          0, "dimension " + std::to_string(d));
      }
      device.push_back(m);
    }
    for (size_t j = 0; j < device.size(); ++j) {
      const size_t i = index_of(device[j].stride.axis);
      int64_t split = 1;
      for (size_t k = 0; k < j; ++k)
        if (index_of(device[k].stride.axis) > i) split *= device[k].extent;
      const std::string text =
          split == 1 ? "Shard(" + std::to_string(d) + ")"
                     : "_StridedShard(" + std::to_string(d) + ", split_factor=" + std::to_string(split) + ")";
      if (auto ok = claim(device[j].stride.axis, text); !ok) return ok.error();
    }
  }
  if (auto ok = check_local_row_major(*dims, "DTensor"); !ok) return ok.error();
  for (const auto& group : layout.replicas) {
    for (const Mode& m : group) {
      if (m.extent <= 1) continue;
      const size_t i = index_of(m.stride.axis);
      if (i == mesh->size() || m.stride.k != 1 || m.extent != (*mesh)[i].second) {
        return make_error("replica R[" + std::to_string(m.extent) + ":" + to_string(m.stride) +
                              "] is not a whole mesh dimension: Replicate() covers one entire mesh dimension",
                          0, "replica");
      }
      if (auto ok = claim(m.stride.axis, "Replicate()"); !ok) return ok.error();
    }
  }
  // One P term is one pending sum, which DTensor writes as Partial("sum") on one mesh dimension. A term of
  // one holder (P[1:1@r]) is still a pending sum (canonicalize keeps it, as DTensor keeps Partial() on a mesh
  // dimension of size 1): it needs a mesh dimension of size 1 of its own, never dropped.
  for (const auto& group : canonicalize(layout).partials) {
    const std::string term = "P[" + modes_notation(group) + "]";
    std::vector<Mode> spans;  // the term's modes of more than one holder
    for (const Mode& m : group)
      if (m.extent > 1) spans.push_back(m);
    if (spans.size() > 1) {
      return make_error(
          "the partial term " + term + " spans mesh dimensions " + spans[0].stride.axis + " and " +
              spans[1].stride.axis +
              ": DTensor's Partial() is one pending sum over one mesh dimension; write one term "
              "per dimension (P[...] + P[...])",
          0, "partial");
    }
    const Mode& m = spans.empty() ? group.front() : spans.front();
    const size_t i = index_of(m.stride.axis);
    if (spans.empty()) {
      if (i == mesh->size() || (*mesh)[i].second != 1) {
        return make_error(
            "the partial term " + term +
                " has one holder, which DTensor writes as Partial() on a mesh dimension of size "
                "1, but mesh dimension " +
                m.stride.axis + " has size " + std::to_string(i == mesh->size() ? 0 : (*mesh)[i].second) +
                ": put the term on an axis of its own (P[1:1@p] with p of size 1)",
            0, "partial");
      }
    } else if (i == mesh->size() || m.stride.k != 1 || m.extent != (*mesh)[i].second) {
      return make_error(
          "partial " + term + " is not a whole mesh dimension: Partial() covers one entire mesh dimension", 0,
          "partial");
    }
    if (auto ok = claim(m.stride.axis, "Partial(\"sum\")"); !ok) return ok.error();
  }
  for (size_t i = 0; i < mesh->size(); ++i) {
    if (placements[i].empty()) {
      if ((*mesh)[i].second > 1) {
        return make_error("mesh dimension " + (*mesh)[i].first +
                              " neither shards, replicates nor holds partials (the layout keeps it at 0)",
                          0, (*mesh)[i].first);
      }
      placements[i] = "Replicate()";
    }
  }
  std::string sizes, names, list;
  for (size_t i = 0; i < mesh->size(); ++i) {
    sizes += (i ? ", " : "") + std::to_string((*mesh)[i].second);
    names += (i ? ", \"" : "\"") + (*mesh)[i].first + "\"";
    list += (i ? ", " : "") + placements[i];
  }
  if (mesh->size() == 1) {
    sizes += ",";
    names += ",";
  }
  std::string text =
      "init_device_mesh(\"cuda\", (" + sizes + "), mesh_dim_names=(" + names + ")), [" + list + "]";
  auto back = import_dtensor(text, FormatContext{shape, {}});
  if (!back) return back.error();
  // The self-check: the text must import back to this layout (formats_detail::same_sharding, exact for what
  // this exporter accepts, in time linear in the modes).
  if (!same_sharding(back->layout, layout, shape)) {
    return make_error("the DTensor text " + text + " imports back as " + to_string(back->layout) +
                          ", another layout: DTensor cannot express this one",
                      0, "layout");
  }
  return text;
}

}  // namespace layoutscope
