#include "layoutscope/formats/hlo.hpp"

#include <algorithm>
#include <numeric>

#include "detail.hpp"

namespace layoutscope {

using namespace formats_detail;

namespace {

inline constexpr int64_t kMaxDevices = int64_t{1} << 16;
inline constexpr std::string_view kDeviceAxis = "device";

Result<std::vector<int64_t>> int_list(Cursor& c, std::string_view what, std::vector<int>* columns = nullptr) {
  std::vector<int64_t> out;
  if (auto open = c.expect('[', std::string("before ") + std::string(what)); !open) return open.error();
  while (!c.is(']')) {
    const Tok at = c.peek();
    auto v = c.integer(what);
    if (!v) return v.error();
    out.push_back(*v);
    if (columns) columns->push_back(at.column);
    if (!c.accept(',')) break;
  }
  if (auto close = c.expect(']', std::string("after ") + std::string(what)); !close) return close.error();
  return out;
}

// Mixed-radix digits of k over extents (row-major, last fastest).
std::vector<int64_t> digits(int64_t k, const std::vector<int64_t>& extents) {
  std::vector<int64_t> out(extents.size());
  for (size_t i = extents.size(); i-- > 0;) {
    out[i] = k % extents[i];
    k /= extents[i];
  }
  return out;
}

// A factorization of the tile dimensions into finer extents: group[i] = the tile dimension factor i refines.
struct Factors {
  std::vector<int64_t> extents;
  std::vector<size_t> group;
};

// Tile dims refined at the boundaries of another row-major radix over the same count (when they nest).
std::optional<Factors> refine(const std::vector<int64_t>& tile, const std::vector<int64_t>& other) {
  // boundaries: suffix products of both; union must be a chain of divisors
  std::vector<int64_t> cuts;
  int64_t p = 1;
  for (size_t i = tile.size(); i-- > 0;) cuts.push_back(p *= tile[i]);
  p = 1;
  for (size_t i = other.size(); i-- > 0;) cuts.push_back(p *= other[i]);
  cuts.push_back(1);
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  for (size_t i = 1; i < cuts.size(); ++i)
    if (cuts[i] % cuts[i - 1] != 0) return std::nullopt;
  Factors f;
  int64_t below = 1;  // product of the tile dims after the current one
  size_t ci = 1;
  for (size_t t = tile.size(); t-- > 0;) {
    const int64_t top = below * tile[t];
    std::vector<int64_t> parts;
    while (ci < cuts.size() && cuts[ci] <= top) {
      parts.push_back(cuts[ci] / cuts[ci - 1]);
      ++ci;
    }
    for (size_t k = 0; k < parts.size(); ++k) {
      f.extents.insert(f.extents.begin(), parts[k]);
      f.group.insert(f.group.begin(), t);
    }
    if (tile[t] == 1) {
      f.extents.insert(f.extents.begin(), 1);
      f.group.insert(f.group.begin(), t);
    }
    below = top;
  }
  return f;
}

// Each tile dimension cut into its prime factors, in the first order under which the devices along that
// dimension alone form a stride pattern (a dimension of 6 over mesh axes 3 then 2 needs (3, 2), not (2, 3)).
Factors primes(const std::vector<int64_t>& tile, const std::vector<int64_t>& devices) {
  Factors f;
  int64_t after = 1;  // flat-index step of one tile dimension: the product of the dimensions after it
  std::vector<int64_t> steps(tile.size());
  for (size_t t = tile.size(); t-- > 0;) {
    steps[t] = after;
    after *= tile[t];
  }
  for (size_t t = 0; t < tile.size(); ++t) {
    int64_t n = tile[t];
    std::vector<int64_t> ps;
    for (int64_t q = 2; q * q <= n; ++q)
      while (n % q == 0) {
        ps.push_back(q);
        n /= q;
      }
    if (n > 1 || ps.empty()) ps.push_back(n);
    std::sort(ps.begin(), ps.end());
    std::vector<int64_t> chosen = ps;
    for (int tries = 0; tries < 720; ++tries) {
      // the devices along this dimension alone, others at 0
      std::vector<int64_t> line;
      for (int64_t i = 0; i < tile[t]; ++i) line.push_back(devices[static_cast<size_t>(i * steps[t])]);
      std::vector<int64_t> strides(ps.size(), 0);
      int64_t unit = 1;
      for (size_t i = ps.size(); i-- > 0;) {
        if (ps[i] > 1) strides[i] = line[static_cast<size_t>(unit)] - line[0];
        unit *= ps[i];
      }
      bool ok = true;
      for (int64_t i = 0; i < tile[t] && ok; ++i) {
        int64_t v = line[0], rest = i;
        for (size_t j = ps.size(); j-- > 0;) {
          v += (rest % ps[j]) * strides[j];
          rest /= ps[j];
        }
        ok = v == line[static_cast<size_t>(i)];
      }
      if (ok) {
        chosen = ps;
        break;
      }
      if (!std::next_permutation(ps.begin(), ps.end())) break;
    }
    for (int64_t q : chosen) {
      f.extents.push_back(q);
      f.group.push_back(t);
    }
  }
  return f;
}

// Strides s with device(k) = device(0) + sum digit_i * s_i for every k, if they exist; else the first k
// that breaks the pattern.
struct Fit {
  std::vector<int64_t> strides;
  int64_t bad = -1;
};

Fit fit(const std::vector<int64_t>& devices, const Factors& f) {
  Fit out;
  const size_t n = f.extents.size();
  out.strides.assign(n, 0);
  int64_t unit = 1;
  for (size_t i = n; i-- > 0;) {
    if (f.extents[i] > 1) out.strides[i] = devices[static_cast<size_t>(unit)] - devices[0];
    unit *= f.extents[i];
  }
  for (size_t k = 0; k < devices.size(); ++k) {
    const auto d = digits(static_cast<int64_t>(k), f.extents);
    int64_t v = devices[0];
    for (size_t i = 0; i < n; ++i) v += d[i] * out.strides[i];
    if (v != devices[k]) {
      out.bad = static_cast<int64_t>(k);
      return out;
    }
  }
  return out;
}

}  // namespace

Result<Imported> import_hlo(std::string_view text, const FormatContext& context) {
  auto tokens = tokenize(text);
  if (!tokens) return tokens.error();
  // One value's sharding: a text that opens a second one (another instruction, an operand's, a repeat) is
  // refused, as the JAX and Shardy importers refuse a second spec, rather than one of them silently used.
  {
    const std::vector<Tok>& all = *tokens;
    int opened = 0;
    for (size_t i = 0; i + 1 < all.size(); ++i) {
      const bool opens = all[i].kind == TokKind::kPunct && all[i].text == "{" &&
                         all[i + 1].kind == TokKind::kIdent &&
                         (all[i + 1].text == "devices" || all[i + 1].text == "replicated" ||
                          all[i + 1].text == "maximal" || all[i + 1].text == "manual");
      if (opens && i > 0 && all[i - 1].kind == TokKind::kPunct && all[i - 1].text == "{")
        break;  // a tuple sharding, refused below
      if (opens && ++opened == 2)
        return error_at(all[i], "a second sharding: give the sharding of one value", "sharding");
    }
  }
  Cursor c(std::move(tokens).value());
  Imported out;
  out.from = Format::kHlo;
  std::vector<int64_t> text_shape;
  int shape_column = 0;
  // An instruction line: the first "type[dims]" is the shape; the sharding is the '{' after "sharding=" or
  // the first '{' that opens one.
  while (!c.at_end()) {
    const Tok t = c.peek();
    if (t.kind == TokKind::kPunct && t.text == "{" && c.peek(1).kind == TokKind::kIdent &&
        (c.peek(1).text == "devices" || c.peek(1).text == "replicated" || c.peek(1).text == "maximal" ||
         c.peek(1).text == "manual")) {
      break;
    }
    if (t.kind == TokKind::kPunct && t.text == "{" && c.peek(1).kind == TokKind::kPunct &&
        c.peek(1).text == "{") {
      return error_at(t, "a tuple sharding: give the sharding of one value", "sharding");
    }
    if (text_shape.empty() && t.kind == TokKind::kIdent && c.peek(1).kind == TokKind::kPunct &&
        c.peek(1).text == "[") {
      c.next();
      auto dims = int_list(c, "a dimension size");
      if (!dims) return dims.error();
      text_shape = *dims;
      shape_column = t.column;
      continue;
    }
    c.next();
  }
  if (c.at_end())
    return make_error("no sharding: expected {devices=[...]...}, {replicated} or {maximal device=N}", 1,
                      "sharding");
  const Tok open = c.next();
  const Tok kind = c.next();
  auto shape = pick_shape(text_shape, shape_column, context, "an HloSharding");
  if (!shape) return shape.error();
  out.shape = *shape;
  const size_t rank = shape->size();
  std::vector<std::vector<Segment>> dims(rank);
  auto whole = [&] {
    for (size_t d = 0; d < rank; ++d) dims[d] = {Segment{(*shape)[d], "", 1}};
  };
  auto finish = [&](std::vector<Mode> replicas, std::vector<AxisStride> offset) -> Result<Imported> {
    auto layout = shard_layout(dims, std::move(replicas), {});
    if (!layout) return layout.error();
    out.layout = std::move(layout).value();
    out.layout.offset = std::move(offset);
    return out;
  };
  int64_t mesh_devices = 1;
  for (const auto& [n, s] : context.mesh) {
    if (__builtin_mul_overflow(mesh_devices, s, &mesh_devices))
      return make_error("the mesh is too large", 0, "mesh");
  }
  if (kind.text == "manual")
    return error_at(kind, "a manual sharding has no layout: each device holds what the program says",
                    "manual");
  if (kind.text == "replicated") {
    if (auto close = c.expect('}', "after replicated"); !close) return close.error();
    whole();
    if (context.mesh.empty()) {
      out.notes.push_back(
          "replicated on every device; the device count is not in the text (give --mesh to show it)");
      return finish({}, {});
    }
    return finish({Mode{mesh_devices, AxisStride{1, std::string(kDeviceAxis)}}}, {});
  }
  if (kind.text == "maximal") {
    if (!c.is_ident("device"))
      return error_at(c.peek(), "expected device=N after maximal, found " + describe(c.peek()));
    c.next();
    if (auto eq = c.expect('=', "after device"); !eq) return eq.error();
    auto device = c.integer("the device id");
    if (!device) return device.error();
    if (auto close = c.expect('}', "after the device id"); !close) return close.error();
    whole();
    out.notes.push_back("the whole tensor lives on device " + std::to_string(*device));
    std::vector<AxisStride> offset;
    if (*device != 0) offset.push_back(AxisStride{*device, std::string(kDeviceAxis)});
    return finish({}, std::move(offset));
  }
  // devices=[tile dims] then an iota <=[reshape]T(perm) or an explicit list
  if (auto eq = c.expect('=', "after devices"); !eq) return eq.error();
  const Tok tile_at = c.peek();
  auto tile = int_list(c, "a tile count");
  if (!tile) return tile.error();
  int64_t total = 1;
  for (int64_t t : *tile) {
    if (t < 1) return error_at(tile_at, "a tile count must be at least 1", "devices");
    if (__builtin_mul_overflow(total, t, &total) || total > kMaxDevices) {
      return error_at(tile_at, "more than " + std::to_string(kMaxDevices) + " devices", "devices");
    }
  }
  std::vector<int64_t> devices;
  std::vector<int> device_columns;
  std::optional<std::vector<int64_t>> iota_dims;
  const Tok list_at = c.peek();
  if (c.accept('<')) {
    if (auto eq = c.expect('=', "in '<=' (an iota device list)"); !eq) return eq.error();
    auto reshape = int_list(c, "an iota dimension");
    if (!reshape) return reshape.error();
    int64_t count = 1;
    for (int64_t r : *reshape) {
      if (r < 1 || __builtin_mul_overflow(count, r, &count) || count > kMaxDevices) {
        return error_at(list_at, "bad iota dimensions", "devices");
      }
    }
    if (count != total) {
      return error_at(
          list_at,
          "the iota has " + std::to_string(count) + " devices, the tiles need " + std::to_string(total),
          "devices");
    }
    std::vector<int64_t> perm(reshape->size());
    std::iota(perm.begin(), perm.end(), 0);
    if (c.is_ident("T")) {
      const Tok t_at = c.next();
      if (auto o = c.expect('(', "after T"); !o) return o.error();
      std::vector<int64_t> p;
      while (!c.is(')')) {
        auto v = c.integer("a transpose index");
        if (!v) return v.error();
        p.push_back(*v);
        if (!c.accept(',')) break;
      }
      if (auto cl = c.expect(')', "after the transpose"); !cl) return cl.error();
      std::vector<int64_t> sorted = p;
      std::sort(sorted.begin(), sorted.end());
      if (sorted != perm)
        return error_at(t_at, "T(...) is not a permutation of the iota's dimensions", "devices");
      perm = p;
    }
    std::vector<int64_t> stride(reshape->size(), 1);
    for (size_t i = reshape->size(); i-- > 1;) stride[i - 1] = stride[i] * (*reshape)[i];
    std::vector<int64_t> transposed;
    for (int64_t p : perm) transposed.push_back((*reshape)[static_cast<size_t>(p)]);
    for (int64_t k = 0; k < total; ++k) {
      const auto d = digits(k, transposed);
      int64_t v = 0;
      for (size_t j = 0; j < d.size(); ++j) v += d[j] * stride[static_cast<size_t>(perm[j])];
      devices.push_back(v);
    }
    iota_dims = transposed;
  } else {
    while (c.peek().kind == TokKind::kInt) {
      device_columns.push_back(c.peek().column);
      devices.push_back(c.next().value);
      if (devices.size() > static_cast<size_t>(kMaxDevices))
        return error_at(list_at, "too many devices", "devices");
      if (!c.accept(',')) break;
    }
    if (static_cast<int64_t>(devices.size()) != total) {
      return error_at(list_at,
                      "the device list has " + std::to_string(devices.size()) + " devices, the tiles need " +
                          std::to_string(total),
                      "devices");
    }
    std::vector<int64_t> sorted = devices;
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 1; i < sorted.size(); ++i) {
      if (sorted[i] == sorted[i - 1]) {
        const auto at = std::find(devices.begin() + 1, devices.end(), sorted[i]);
        return make_error("device " + std::to_string(sorted[i]) + " is listed twice",
                          device_columns[static_cast<size_t>(at - devices.begin())], "devices");
      }
    }
  }
  size_t replicate_dims = 0;
  while (!c.is('}') && !c.at_end()) {
    const Tok t = c.next();
    if (t.kind == TokKind::kIdent && t.text == "last_tile_dim_replicate") {
      replicate_dims = 1;
    } else if (t.kind == TokKind::kIdent && t.text == "last_tile_dims") {
      if (auto eq = c.expect('=', "after last_tile_dims"); !eq) return eq.error();
      if (auto o = c.expect('{', "before the subgroup types"); !o) return o.error();
      while (!c.is('}')) {
        const Tok type = c.peek();
        if (!c.is_ident("replicated")) {
          return error_at(type, "subgroup type " + describe(type) + " is not expressible (only replicated)",
                          "last_tile_dims");
        }
        c.next();
        ++replicate_dims;
        if (!c.accept(',')) break;
      }
      if (auto cl = c.expect('}', "after the subgroup types"); !cl) return cl.error();
    } else if (t.kind == TokKind::kIdent && t.text == "metadata") {
      int depth = 0;  // metadata={...}: no effect on the layout
      while (!c.at_end()) {
        if (c.is('{')) ++depth;
        if (c.is('}')) {
          if (depth == 0) break;
          if (--depth == 0) {
            c.next();
            break;
          }
        }
        c.next();
      }
    } else if (!(t.kind == TokKind::kPunct && (t.text == "," || t.text == "="))) {
      return error_at(t, "unexpected " + describe(t) + " in the sharding", "sharding");
    }
  }
  if (auto close = c.expect('}', "to close the sharding"); !close) return close.error();
  (void)open;
  if (tile->size() != rank + replicate_dims) {
    return error_at(tile_at,
                    "devices=[...] has " + std::to_string(tile->size()) +
                        " tile dimensions for a tensor of rank " + std::to_string(rank) +
                        (replicate_dims ? " plus replication" : ""),
                    "devices");
  }
  std::vector<Factors> tries{Factors{*tile, {}}};
  for (size_t t = 0; t < tile->size(); ++t) tries[0].group.push_back(t);
  if (iota_dims) {
    if (auto f = refine(*tile, *iota_dims)) tries.push_back(*f);
  }
  tries.push_back(primes(*tile, devices));
  std::optional<Fit> good;
  const Factors* chosen = nullptr;
  Fit first_fit = fit(devices, tries[0]);
  for (const Factors& f : tries) {
    Fit one = fit(devices, f);
    if (one.bad < 0) {
      good = one;
      chosen = &f;
      break;
    }
  }
  if (!good) {
    const int column = device_columns.empty()
                           ? list_at.column
                           : device_columns[static_cast<size_t>(std::max<int64_t>(first_fit.bad, 0))];
    return make_error("the device order is not a stride pattern over the tiles (device " +
                          std::to_string(devices[static_cast<size_t>(std::max<int64_t>(first_fit.bad, 0))]) +
                          " breaks it): not expressible",
                      column, "devices");
  }
  std::vector<Mode> replicas;
  for (size_t i = 0; i < chosen->extents.size(); ++i) {
    const size_t t = chosen->group[i];
    const Segment seg{chosen->extents[i], std::string(kDeviceAxis), good->strides[i]};
    if (t < rank) {
      dims[t].push_back(seg);
    } else {
      replicas.push_back(Mode{seg.extent, AxisStride{seg.stride, seg.axis}});
    }
  }
  for (size_t d = 0; d < rank; ++d) {
    const int64_t tiles = (*tile)[d];
    if ((*shape)[d] % tiles != 0) {
      return error_at(tile_at,
                      "dimension " + std::to_string(d) + " (size " + std::to_string((*shape)[d]) +
                          ") is not divisible by its " + std::to_string(tiles) +
                          " tiles: XLA pads the last tile, which the notation cannot express",
                      "dimension " + std::to_string(d));
    }
    dims[d].push_back(Segment{(*shape)[d] / tiles, "", 1});
  }
  std::vector<AxisStride> offset;
  if (devices[0] != 0) offset.push_back(AxisStride{devices[0], std::string(kDeviceAxis)});
  return finish(std::move(replicas), std::move(offset));
}

}  // namespace layoutscope
