// Blackwell tensor memory and the tcgen05 descriptors (tcgen05.hpp, umma_descriptor.hpp) for Python: the same
// values the CLI's tcgen05 / desc commands and the page's tmemAccess / smemDescriptor print, as dicts.
//
//   >>> _engine.tmem_access("16x128b", 1, False, 32, 8, -1, -1, 0)["threads"]
//   'S[(2,8,1,4):(1@reg,4@laneid,2@reg,1@laneid)] + O[1@warpid]'
//   >>> _engine.smem_descriptor_decode(0x4000404000010040)["stride_byte_offset"]
//   1024
#include "layoutscope/tcgen05.hpp"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "errors.hpp"
#include "layoutscope/dtype.hpp"
#include "layoutscope/mapping.hpp"
#include "layoutscope/parse.hpp"
#include "layoutscope/umma_descriptor.hpp"

namespace layoutscope::python {
namespace {

py::dict access_dict(const TmemAccessLayouts& l) {
  py::dict d;
  d["instruction"] = l.instruction;
  d["shape"] = py::tuple(py::cast(l.shape));
  d["registers"] = l.registers;
  d["warp"] = l.warp;
  d["slab"] = l.slab;
  d["lanes"] = py::make_tuple(l.lane_begin, l.lane_end);
  d["columns"] = py::make_tuple(l.column_begin, l.column_end);
  d["threads"] = to_string(l.threads);
  d["tmem"] = to_string(l.tmem);
  py::list cells;
  for (const auto& c : take(tmem_access_cells(l)))
    cells.append(py::make_tuple(c.row, c.col, c.laneid, c.reg, c.tlane, c.tcol));
  d["cells"] = cells;
  return d;
}

py::dict smem_dict(const SmemDescriptor& s, uint64_t bits) {
  py::dict d;
  d["word"] = bits;
  d["start_address"] = s.start_address;
  d["leading_byte_offset"] = s.leading_byte_offset;
  d["stride_byte_offset"] = s.stride_byte_offset;
  d["base_offset"] = s.base_offset;
  d["lbo_mode"] = s.lbo_absolute ? "absolute" : "relative";
  d["swizzle"] = std::string(to_string(s.swizzle));
  d["version"] = s.version;
  return d;
}

py::dict instr_dict(const InstrDescriptor& s, uint32_t bits) {
  py::dict d;
  d["word"] = bits;
  d["kind"] = std::string(to_string(s.kind));
  d["a_type"] = s.a_type;
  d["b_type"] = s.b_type;
  d["d_type"] = s.d_type;
  d["m"] = s.m;
  d["n"] = s.n;
  d["a_major"] = s.a_mn_major ? "MN" : "K";
  d["b_major"] = s.b_mn_major ? "MN" : "K";
  d["negate_a"] = s.negate_a;
  d["negate_b"] = s.negate_b;
  d["saturate"] = s.saturate;
  d["sparse"] = s.sparse;
  d["sparse_selector"] = s.sparse_selector;
  d["max_shift"] = s.max_shift;
  d["scale_type"] = s.scale_type;
  d["sfa_id"] = s.sfa_id;
  d["sfb_id"] = s.sfb_id;
  d["k_size"] = s.k_size;
  return d;
}

struct Tile {
  Layout layout;
  std::vector<int64_t> shape;
  int bits = 16;
  Major major = Major::kK;
};

Tile tile(const std::string& layout, std::optional<std::vector<int64_t>> shape, const std::string& dtype,
          const std::string& major) {
  Tile t;
  t.layout = take(parse_layout(layout), layout);
  t.shape = shape ? *shape : take(default_shape(t.layout));
  t.bits = dtype_bits(take(parse_dtype(dtype), dtype));
  t.major = take(parse_major(major), major);
  return t;
}

}  // namespace

void bind_tcgen05(py::module_& m) {
  m.def("tmem_access", [](const std::string& shape, int64_t num, bool store, int64_t lane, int64_t column,
                          int64_t half_split, int64_t warp, int64_t allocated_columns) {
    TmemAccess a;
    a.shape = take(parse_tmem_access_shape(shape), shape);
    a.num = num;
    a.store = store;
    a.lane = lane;
    a.column = column;
    a.half_split = half_split;
    a.warp = warp;
    a.allocated_columns = allocated_columns;
    return access_dict(take(tmem_access_layouts(a)));
  });
  m.def("tmem_copy", [](const std::string& shape, int64_t lane, int64_t column, int64_t allocated_columns) {
    TmemCopy c;
    c.shape = take(parse_tmem_copy_shape(shape), shape);
    c.lane = lane;
    c.column = column;
    c.allocated_columns = allocated_columns;
    const TmemCopyLayouts l = take(tmem_copy_layouts(c));
    py::dict d;
    d["instruction"] = l.instruction;
    d["shape"] = py::tuple(py::cast(l.shape));
    d["row_bytes"] = l.row_bytes;
    d["replicas"] = l.replicas;
    d["tmem"] = to_string(l.tmem);
    return d;
  });
  m.def("scale_factors", [](const std::string& kind, int64_t vec, int64_t rows, int64_t k, int64_t column,
                            std::optional<std::pair<int64_t, int64_t>> at) {
    ScaleFactorSpec s;
    s.kind = take(parse_block_scale_kind(kind), kind);
    s.vec = vec;
    s.m = rows;
    s.k = k;
    s.column = column;
    const ScaleFactorLayouts l = take(scale_factor_layouts(s));
    py::dict d;
    d["kind"] = std::string(to_string(s.kind));
    d["vec"] = s.vec;
    d["shape"] = py::tuple(py::cast(l.shape));
    d["atoms"] = py::make_tuple(l.atoms_m, l.atoms_k);
    d["mma_k"] = l.mma_k;
    d["scales_per_mma"] = l.scales_per_mma;
    d["bytes"] = l.bytes;
    d["columns"] = l.columns;
    d["copy"] = l.copy;
    d["smem"] = to_string(l.smem);
    d["tmem"] = to_string(l.tmem);
    if (at) {
      const ScaleFactorTrace t = take(trace_scale_factor(s, at->first, at->second));
      py::dict tr;
      tr["m"] = t.m;
      tr["k"] = t.k;
      tr["atom"] = t.atom;
      tr["smem_byte"] = t.smem_byte;
      tr["copy_row"] = t.copy_row;
      tr["copy_byte"] = t.copy_byte;
      tr["tlanes"] = t.tlanes;
      tr["tcol"] = t.tcol;
      tr["byte"] = t.byte;
      tr["byte_offset"] = (t.tcol - s.column) * 4 + t.byte;
      tr["mma"] = t.mma;
      tr["sf_id"] = t.sf_id;
      tr["mma_column"] = t.mma_column;
      d["trace"] = tr;
    }
    return d;
  });
  m.def("smem_descriptor_decode",
        [](uint64_t word) { return smem_dict(take(decode_smem_descriptor(word)), word); });
  m.def("smem_descriptor_encode", [](int64_t start, int64_t lbo, int64_t sbo, int64_t base_offset,
                                     bool lbo_absolute, const std::string& swizzle) {
    SmemDescriptor s;
    s.start_address = start;
    s.leading_byte_offset = lbo;
    s.stride_byte_offset = sbo;
    s.base_offset = base_offset;
    s.lbo_absolute = lbo_absolute;
    s.swizzle = take(parse_umma_swizzle(swizzle), swizzle);
    return smem_dict(s, take(encode_smem_descriptor(s)));
  });
  m.def("smem_descriptor_from_layout",
        [](const std::string& layout, std::optional<std::vector<int64_t>> shape, const std::string& dtype,
           const std::string& major, int64_t start) {
          const Tile t = tile(layout, shape, dtype, major);
          const InferredDescriptor inf =
              take(infer_smem_descriptor(t.layout, t.shape, t.major, t.bits, start), layout);
          py::dict d = smem_dict(inf.descriptor, take(encode_smem_descriptor(inf.descriptor)));
          d["unused"] = inf.unused;
          return d;
        });
  m.def("smem_descriptor_check", [](uint64_t word, const std::string& layout,
                                    std::optional<std::vector<int64_t>> shape, const std::string& dtype,
                                    const std::string& major) {
    const SmemDescriptor s = take(decode_smem_descriptor(word));
    const Tile t = tile(layout, shape, dtype, major);
    const DescriptorMatch mt = take(match_smem_descriptor(s, t.layout, t.shape, t.major, t.bits), layout);
    py::list diffs;
    for (const auto& f : mt.differences) {
      py::dict one;
      one["field"] = f.field;
      one["descriptor"] = f.descriptor;
      one["layout"] = f.layout;
      diffs.append(one);
    }
    py::dict d;
    d["matches"] = mt.matches;
    d["differences"] = diffs;
    return d;
  });
  m.def("instr_descriptor_decode", [](uint32_t word, const std::string& kind) {
    return instr_dict(take(decode_instr_descriptor(word, take(parse_mma_kind(kind), kind))), word);
  });
  m.def("instr_descriptor_encode", [](const py::dict& fields) {
    InstrDescriptor d;
    auto str = [&](const char* key, std::string& out) {
      if (fields.contains(key)) out = fields[key].cast<std::string>();
    };
    auto num = [&](const char* key, int64_t& out) {
      if (fields.contains(key)) out = fields[key].cast<int64_t>();
    };
    auto flag = [&](const char* key, bool& out) {
      if (fields.contains(key)) out = fields[key].cast<bool>();
    };
    std::string kind = "f16", a_major = "K", b_major = "K";
    str("kind", kind);
    d.kind = take(parse_mma_kind(kind), kind);
    if (d.kind == MmaKind::kMxf8f6f4) d.a_type = d.b_type = "e4m3";
    if (d.kind == MmaKind::kMxf4 || d.kind == MmaKind::kMxf4Nvf4) d.a_type = d.b_type = "e2m1";
    if (d.kind == MmaKind::kI8) d.d_type = "s32";
    str("a_type", d.a_type);
    d.b_type = fields.contains("b_type") ? fields["b_type"].cast<std::string>() : d.a_type;
    str("d_type", d.d_type);
    num("m", d.m);
    num("n", d.n);
    str("a_major", a_major);
    str("b_major", b_major);
    d.a_mn_major = take(parse_major(a_major), a_major) == Major::kMN;
    d.b_mn_major = take(parse_major(b_major), b_major) == Major::kMN;
    flag("negate_a", d.negate_a);
    flag("negate_b", d.negate_b);
    flag("saturate", d.saturate);
    flag("sparse", d.sparse);
    num("sparse_selector", d.sparse_selector);
    num("max_shift", d.max_shift);
    str("scale_type", d.scale_type);
    num("sfa_id", d.sfa_id);
    num("sfb_id", d.sfb_id);
    num("k_size", d.k_size);
    return instr_dict(d, take(encode_instr_descriptor(d)));
  });
}

}  // namespace layoutscope::python
