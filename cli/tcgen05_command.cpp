// tcgen05, desc: Blackwell tensor memory as layouts (tcgen05.hpp) and the UMMA descriptors
// (umma_descriptor.hpp).
//
//   layoutscope tcgen05 ld --shape 16x64b --num 2 --lane 32      threads x registers against TMEM
//   layoutscope tcgen05 cp --shape 32x128b.warpx4 --column 8     where a shared tile lands in TMEM
//   layoutscope tcgen05 sf --kind mxf4nvf4 --vec 16 --m 128 --k 128 --at 64,2
//   layoutscope desc --decode 0x4000404000010040                  a shared memory descriptor's fields
//   layoutscope desc --decode 0x08400490 --kind instr --mma f16   an instruction descriptor's fields
//   layoutscope desc --encode --start 1024 --sbo 1024 --swizzle 128B
//   layoutscope desc --encode --layout 'Swizzle<3,3,3> o S[(64,64):(64,1)]' --shape 64,64 --dtype f16
//   layoutscope desc --check 0x4000404000010040 --layout ... --shape 64,64 --dtype f16   exit 1: differs
#include <cctype>

#include "cli_support.hpp"
#include "layoutscope/dtype.hpp"
#include "layoutscope/parse.hpp"
#include "layoutscope/tcgen05.hpp"
#include "layoutscope/umma_descriptor.hpp"

namespace layoutscope::cli {
namespace {

constexpr int64_t kMaxWord = int64_t{1} << 40;

struct Tcgen05Args {
  std::string what;
  Arg shape, num, lane, column, warp, split, alloc, cells, kind, vec, m, k, at;
};

// Options that the chosen form does not read are errors that name them.
void refuse(std::initializer_list<const Arg*> args, const std::string& form) {
  for (const Arg* a : args)
    if (a->given()) fail("--" + a->name + " does not apply to " + form, a->name);
}

void value_or(const Arg& a, int64_t& out, int64_t min, int64_t max) {
  if (a.given()) out = option_arg(a, min, max);
}

Json layout_json(const Layout& l) { return to_string(l); }

int run_tcgen05(const Tcgen05Args& a) {
  const std::string& w = a.what;
  if (w == "ld" || w == "st") {
    refuse({&a.kind, &a.vec, &a.m, &a.k, &a.at}, "tcgen05 " + w);
    if (!a.shape.given())
      fail("tcgen05 " + w + " needs --shape (32x32b, 16x64b, 16x128b, 16x256b, 16x32bx2)", "shape");
    auto shape = parse_tmem_access_shape(a.shape.value);
    if (!shape) fail(shape.error());
    TmemAccess acc;
    acc.shape = *shape;
    acc.store = w == "st";
    value_or(a.num, acc.num, 0, 1024);
    value_or(a.lane, acc.lane, 0, kMaxWord);
    value_or(a.column, acc.column, 0, kMaxWord);
    value_or(a.warp, acc.warp, 0, kMaxWord);
    value_or(a.split, acc.half_split, 0, kMaxWord);
    value_or(a.alloc, acc.allocated_columns, 0, kMaxWord);
    auto l = tmem_access_layouts(acc);
    if (!l) fail(l.error());
    Json warps = Json::array();
    for (int64_t v = l->slab; v < 32; v += 4) warps.push_back(v);
    Json out = {{"instruction", l->instruction},
                {"shape", l->shape},
                {"registers", l->registers},
                {"warp", l->warp},
                {"slab", l->slab},
                {"warps", warps},
                {"lanes", {l->lane_begin, l->lane_end}},
                {"columns", {l->column_begin, l->column_end}},
                {"threads", layout_json(l->threads)},
                {"tmem", layout_json(l->tmem)}};
    if (a.cells.given()) {
      if (a.cells.value != "true" && a.cells.value != "1") fail("--cells takes 1 (or true)", "cells");
      auto cells = tmem_access_cells(*l);
      if (!cells) fail(cells.error());
      Json list = Json::array();
      for (const auto& c : *cells) list.push_back({c.row, c.col, c.laneid, c.reg, c.tlane, c.tcol});
      out["cells_axes"] = {"row", "col", "laneid", "reg", "TLane", "TCol"};
      out["cells"] = list;
    }
    emit(out);
    return 0;
  }
  if (w == "cp") {
    refuse({&a.num, &a.warp, &a.split, &a.cells, &a.kind, &a.vec, &a.m, &a.k, &a.at}, "tcgen05 cp");
    if (!a.shape.given())
      fail(
          "tcgen05 cp needs --shape (128x256b, 4x256b, 128x128b, 64x128b.warpx2::02_13, "
          "64x128b.warpx2::01_23, "
          "32x128b.warpx4)",
          "shape");
    auto shape = parse_tmem_copy_shape(a.shape.value);
    if (!shape) fail(shape.error());
    TmemCopy c;
    c.shape = *shape;
    value_or(a.lane, c.lane, 0, kMaxWord);
    value_or(a.column, c.column, 0, kMaxWord);
    value_or(a.alloc, c.allocated_columns, 0, kMaxWord);
    auto l = tmem_copy_layouts(c);
    if (!l) fail(l.error());
    emit({{"instruction", l->instruction},
          {"shape", l->shape},
          {"row_bytes", l->row_bytes},
          {"replicas", l->replicas},
          {"tmem", layout_json(l->tmem)}});
    return 0;
  }
  if (w == "sf") {
    refuse({&a.shape, &a.num, &a.lane, &a.warp, &a.split, &a.alloc, &a.cells}, "tcgen05 sf");
    ScaleFactorSpec s;
    if (a.kind.given()) {
      auto k = parse_block_scale_kind(a.kind.value);
      if (!k) fail(k.error());
      s.kind = *k;
    }
    value_or(a.vec, s.vec, 0, kMaxWord);
    value_or(a.m, s.m, 0, kMaxWord);
    value_or(a.k, s.k, 0, kMaxWord);
    value_or(a.column, s.column, 0, kMaxWord);
    auto l = scale_factor_layouts(s);
    if (!l) fail(l.error());
    Json out = {{"kind", std::string(to_string(s.kind))},
                {"vec", s.vec},
                {"shape", l->shape},
                {"atoms", {l->atoms_m, l->atoms_k}},
                {"mma_k", l->mma_k},
                {"scales_per_mma", l->scales_per_mma},
                {"bytes", l->bytes},
                {"columns", l->columns},
                {"copy", l->copy},
                {"smem", layout_json(l->smem)},
                {"tmem", layout_json(l->tmem)}};
    if (a.at.given()) {
      auto at = parse_decimal_list(a.at.value, "at", 0, kMaxWord, false);
      if (!at) fail(at.error(), a.at.value);
      if (at->size() != 2) fail("--at takes m,k", "at");
      auto t = trace_scale_factor(s, (*at)[0], (*at)[1]);
      if (!t) fail(t.error());
      out["trace"] = {{"m", t->m},
                      {"k", t->k},
                      {"smem_byte", t->smem_byte},
                      {"atom", t->atom},
                      {"copy_row", t->copy_row},
                      {"copy_byte", t->copy_byte},
                      {"tlanes", t->tlanes},
                      {"tcol", t->tcol},
                      {"byte", t->byte},
                      {"byte_offset", (t->tcol - s.column) * 4 + t->byte},
                      {"mma", t->mma},
                      {"sf_id", t->sf_id},
                      {"mma_column", t->mma_column}};
    }
    emit(out);
    return 0;
  }
  fail("tcgen05 takes ld, st, cp or sf, not '" + printable(w) + "'", "what");
}

// ---- desc
// ------------------------------------------------------------------------------------------------------

struct DescArgs {
  Arg decode, encode, check, kind, mma;
  Arg start, lbo, sbo, base_offset, lbo_mode, swizzle;
  Arg layout, shape, dtype, major;
  Arg a, b, d, m, n, a_major, b_major, negate, saturate, sparse, max_shift, scale, sfa_id, sfb_id, k_size;
};

uint64_t hex_arg(const Arg& arg, int max_digits) {
  const std::string& t = arg.value;
  if (t.size() < 3 || t[0] != '0' || (t[1] != 'x' && t[1] != 'X'))
    fail(make_error("--" + arg.name + " takes a hexadecimal word such as 0x08400490", 1, arg.name, "syntax"),
         t);
  if (t.size() - 2 > static_cast<size_t>(max_digits))
    fail(make_error("--" + arg.name + ": at most " + std::to_string(max_digits) + " hex digits (" +
                        std::to_string(max_digits * 4) + " bits)",
                    max_digits + 3, arg.name, "range"),
         t);
  uint64_t v = 0;
  for (size_t i = 2; i < t.size(); ++i) {
    const char c = t[i];
    if (!std::isxdigit(static_cast<unsigned char>(c)))
      fail(make_error("--" + arg.name + ": '" + printable(std::string(1, c)) + "' is not a hex digit",
                      static_cast<int>(i) + 1, arg.name, "syntax"),
           t);
    v = (v << 4) | static_cast<uint64_t>(
                       std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : (std::tolower(c) - 'a' + 10));
  }
  return v;
}

std::string hex(uint64_t v, int digits) {
  static const char* x = "0123456789abcdef";
  std::string s(static_cast<size_t>(digits), '0');
  for (int i = digits - 1; i >= 0; --i, v >>= 4) s[static_cast<size_t>(i)] = x[v & 15];
  return "0x" + s;
}

Json smem_json(const SmemDescriptor& d, uint64_t bits) {
  return {{"kind", "smem"},
          {"hex", hex(bits, 16)},
          {"start_address", d.start_address},
          {"leading_byte_offset", d.leading_byte_offset},
          {"stride_byte_offset", d.stride_byte_offset},
          {"base_offset", d.base_offset},
          {"lbo_mode", d.lbo_absolute ? "absolute" : "relative"},
          {"swizzle", std::string(to_string(d.swizzle))},
          {"swizzle_code", static_cast<int>(d.swizzle)},
          {"version", d.version}};
}

Json instr_json(const InstrDescriptor& d, uint32_t bits) {
  Json j = {{"kind", "instr"},
            {"mma", std::string(to_string(d.kind))},
            {"hex", hex(bits, 8)},
            {"a_type", d.a_type},
            {"b_type", d.b_type},
            {"d_type", d.d_type},
            {"m", d.m},
            {"n", d.n},
            {"a_major", d.a_mn_major ? "MN" : "K"},
            {"b_major", d.b_mn_major ? "MN" : "K"},
            {"negate_a", d.negate_a},
            {"negate_b", d.negate_b},
            {"sparse", d.sparse},
            {"sparse_selector", d.sparse_selector}};
  if (is_block_scaled(d.kind)) {
    j["scale_type"] = d.scale_type;
    j["sfa_id"] = d.sfa_id;
    j["sfb_id"] = d.sfb_id;
    j["k_size"] = d.k_size;
  } else {
    j["saturate"] = d.saturate;
    j["max_shift"] = d.max_shift;
  }
  return j;
}

bool instr_kind(const DescArgs& a) {
  if (!a.kind.given() || a.kind.value == "smem") return false;
  if (a.kind.value == "instr") return true;
  fail("--kind takes smem or instr, not '" + printable(a.kind.value) + "'", "kind");
}

MmaKind mma_arg(const DescArgs& a) {
  if (!a.mma.given())
    fail("an instruction descriptor needs --mma (f16, tf32, f8f6f4, i8, mxf8f6f4, mxf4, mxf4nvf4)", "mma");
  auto k = parse_mma_kind(a.mma.value);
  if (!k) fail(k.error());
  return *k;
}

// The tile for --encode --layout and --check: the layout, its (MN, K) shape, element bits and major-ness.
struct Tile {
  Layout layout;
  std::vector<int64_t> shape;
  int bits = 16;
  Major major = Major::kK;
};
Tile tile_arg(const DescArgs& a) {
  Tile t;
  t.layout = layout_arg(a.layout.value);
  t.shape = shape_arg(a.shape, t.layout);
  if (a.dtype.given()) {
    auto d = parse_dtype(a.dtype.value);
    if (!d) fail(d.error());
    t.bits = dtype_bits(*d);
  }
  if (a.major.given()) {
    auto m = parse_major(a.major.value);
    if (!m) fail(m.error());
    t.major = *m;
  }
  return t;
}

int run_desc(const DescArgs& a) {
  const int modes = (a.decode.given() ? 1 : 0) + (a.encode.given() ? 1 : 0) + (a.check.given() ? 1 : 0);
  if (modes != 1) fail("desc takes one of --decode WORD, --encode or --check WORD", "decode");
  const bool instr = instr_kind(a);
  const auto smem_fields = {&a.start, &a.lbo, &a.sbo, &a.base_offset, &a.lbo_mode, &a.swizzle};
  const auto tile_fields = {&a.layout, &a.shape, &a.dtype, &a.major};
  const auto instr_fields = {&a.a,         &a.b,       &a.d,      &a.m,        &a.n,
                             &a.a_major,   &a.b_major, &a.negate, &a.saturate, &a.sparse,
                             &a.max_shift, &a.scale,   &a.sfa_id, &a.sfb_id,   &a.k_size};
  auto refuse_all = [](const auto& list, const std::string& form) {
    for (const Arg* x : list)
      if (x->given()) fail("--" + x->name + " does not apply to " + form, x->name);
  };
  if (a.decode.given()) {
    refuse_all(smem_fields, "--decode");
    refuse_all(tile_fields, "--decode");
    refuse_all(instr_fields, "--decode");
    if (instr) {
      const MmaKind k = mma_arg(a);
      const auto v = static_cast<uint32_t>(hex_arg(a.decode, 8));
      auto d = decode_instr_descriptor(v, k);
      if (!d) fail(d.error());
      emit(instr_json(*d, v));
      return 0;
    }
    if (a.mma.given()) fail("--mma applies to --kind instr", "mma");
    const uint64_t v = hex_arg(a.decode, 16);
    auto d = decode_smem_descriptor(v);
    if (!d) fail(d.error());
    emit(smem_json(*d, v));
    return 0;
  }
  if (a.check.given()) {
    if (instr) fail("--check compares a shared memory descriptor with a tile layout: --kind smem", "kind");
    refuse_all(smem_fields, "--check");
    refuse_all(instr_fields, "--check");
    if (!a.layout.given()) fail("--check needs --layout (the tile in element offsets)", "layout");
    const uint64_t v = hex_arg(a.check, 16);
    auto d = decode_smem_descriptor(v);
    if (!d) fail(d.error());
    const Tile t = tile_arg(a);
    auto m = match_smem_descriptor(*d, t.layout, t.shape, t.major, t.bits);
    if (!m) fail(m.error(), a.layout.value);
    Json diffs = Json::array();
    for (const auto& f : m->differences)
      diffs.push_back({{"field", f.field}, {"descriptor", f.descriptor}, {"layout", f.layout}});
    auto needed = encode_smem_descriptor(m->inferred.descriptor);
    emit({{"matches", m->matches},
          {"differences", diffs},
          {"descriptor", smem_json(*d, v)},
          {"layout_needs", needed ? smem_json(m->inferred.descriptor, *needed) : Json(nullptr)},
          {"unused", m->inferred.unused}});
    return m->matches ? 0 : 1;
  }
  // --encode
  if (!a.encode.value.empty() && a.encode.value != "true" && a.encode.value != "1")
    fail("--encode takes no value; give the fields as options", "encode");
  if (instr) {
    refuse_all(smem_fields, "--kind instr");
    refuse_all(tile_fields, "--kind instr");
    InstrDescriptor d;
    d.kind = mma_arg(a);
    if (a.a.given()) d.a_type = a.a.value;
    if (a.b.given()) d.b_type = a.b.value;
    if (a.d.given()) d.d_type = a.d.value;
    if (is_block_scaled(d.kind) && !a.a.given()) d.a_type = d.kind == MmaKind::kMxf8f6f4 ? "e4m3" : "e2m1";
    if (is_block_scaled(d.kind) && !a.b.given()) d.b_type = d.a_type;
    value_or(a.m, d.m, 0, kMaxWord);
    value_or(a.n, d.n, 0, kMaxWord);
    auto major = [](const Arg& x) {
      auto m = parse_major(x.value);
      if (!m) {
        Error e = m.error();
        e.field = x.name;
        fail(e);
      }
      return *m == Major::kMN;
    };
    if (a.a_major.given()) d.a_mn_major = major(a.a_major);
    if (a.b_major.given()) d.b_mn_major = major(a.b_major);
    if (a.negate.given()) {
      if (a.negate.value != "a" && a.negate.value != "b" && a.negate.value != "ab")
        fail("--negate takes a, b or ab", "negate");
      d.negate_a = a.negate.value.find('a') != std::string::npos;
      d.negate_b = a.negate.value.find('b') != std::string::npos;
    }
    if (a.saturate.given()) {
      if (a.saturate.value != "1" && a.saturate.value != "true")
        fail("--saturate takes 1 (or true)", "saturate");
      d.saturate = true;
    }
    if (a.sparse.given()) {
      d.sparse = true;
      d.sparse_selector = option_arg(a.sparse, 0, 3);
    }
    value_or(a.max_shift, d.max_shift, 0, 3);
    if (a.scale.given()) d.scale_type = a.scale.value;
    value_or(a.sfa_id, d.sfa_id, 0, 3);
    value_or(a.sfb_id, d.sfb_id, 0, 3);
    value_or(a.k_size, d.k_size, 0, 1);
    auto v = encode_instr_descriptor(d);
    if (!v) fail(v.error());
    emit(instr_json(d, *v));
    return 0;
  }
  refuse_all(instr_fields, "--kind smem");
  if (a.mma.given()) fail("--mma applies to --kind instr", "mma");
  SmemDescriptor d;
  Json extra = Json::object();
  if (a.layout.given()) {
    for (const Arg* x : {&a.lbo, &a.sbo, &a.base_offset, &a.swizzle})
      if (x->given()) fail("--" + x->name + " comes from --layout; leave it out or use --check", x->name);
    int64_t start = 0;
    value_or(a.start, start, 0, kMaxWord);
    const Tile t = tile_arg(a);
    auto inf = infer_smem_descriptor(t.layout, t.shape, t.major, t.bits, start);
    if (!inf) fail(inf.error(), a.layout.value);
    d = inf->descriptor;
    extra["unused"] = inf->unused;
  } else {
    refuse_all(tile_fields, "--encode without --layout");
    value_or(a.start, d.start_address, 0, kMaxWord);
    value_or(a.lbo, d.leading_byte_offset, 0, kMaxWord);
    value_or(a.sbo, d.stride_byte_offset, 0, kMaxWord);
    value_or(a.base_offset, d.base_offset, 0, kMaxWord);
    if (a.swizzle.given()) {
      auto s = parse_umma_swizzle(a.swizzle.value);
      if (!s) fail(s.error());
      d.swizzle = *s;
    }
  }
  if (a.lbo_mode.given()) {
    if (a.lbo_mode.value != "relative" && a.lbo_mode.value != "absolute")
      fail("--lbo-mode takes relative or absolute", "lbo-mode");
    d.lbo_absolute = a.lbo_mode.value == "absolute";
  }
  auto v = encode_smem_descriptor(d);
  if (!v) fail(v.error());
  Json out = smem_json(d, *v);
  for (auto& [key, value] : extra.items()) out[key] = value;
  emit(out);
  return 0;
}

}  // namespace

void add_tcgen05_command(CLI::App& app) {
  auto a = std::make_shared<Tcgen05Args>();
  CLI::App* cmd = add_command(
      app, "tcgen05",
      "Blackwell TMEM as layouts: tcgen05.ld/st atoms, tcgen05.cp shapes, block-scaled scale factors",
      "  layoutscope tcgen05 ld --shape 16x64b --num 2 --lane 32       thread/register -> TMEM (lane, "
      "column)\n"
      "  layoutscope tcgen05 st --shape 32x32b --num 4 --warp 5 --lane 32 --cells 1\n"
      "  layoutscope tcgen05 cp --shape 32x128b.warpx4 --column 8\n"
      "  layoutscope tcgen05 sf --kind mxf8f6f4 --m 128 --k 128 --at 64,2   SFA[64,2] -> TLane 0,32,64,96\n");
  cmd->add_option("WHAT", a->what, "ld, st, cp or sf")->required();
  add_arg(cmd, a->shape, "shape", "SHAPE",
          "ld/st: 32x32b 16x64b 16x128b 16x256b 16x32bx2; cp: 128x256b 4x256b ...");
  add_arg(cmd, a->num, "num", "N", "ld/st repeat .xN: 1, 2, 4 ... 128 (default 1)");
  add_arg(cmd, a->lane, "lane", "L", "TMEM lane of the address (default 0)");
  add_arg(cmd, a->column, "column", "C", "TMEM column of the address (default 0)");
  add_arg(cmd, a->warp, "warp", "W", "ld/st: the issuing warp of the CTA (default: the lane's slab)");
  add_arg(cmd, a->split, "split", "COLS", "16x32bx2: immHalfSplitoff in columns (default: num)");
  add_arg(cmd, a->alloc, "alloc", "COLS",
          "the tcgen05.alloc size the address lies in (power of two, 32..512)");
  add_arg(cmd, a->cells, "cells", "1", "ld/st: list every element as [row, col, laneid, reg, TLane, TCol]");
  add_arg(cmd, a->kind, "kind", "KIND", "sf: mxf8f6f4 (default), mxf4, mxf4nvf4");
  add_arg(cmd, a->vec, "vec", "N", "sf: elements per scale, 32 (default) or 16 (nvf4)");
  add_arg(cmd, a->m, "m", "M", "sf: rows of the scale matrix, a multiple of 128 (default 128)");
  add_arg(cmd, a->k, "k", "K", "sf: K in elements, a multiple of 4 x vec (default 128)");
  add_arg(cmd, a->at, "at", "M,K", "sf: follow one scale factor SF[m, k] to shared memory, TMEM and its MMA");
  on_run(cmd, [a] { return run_tcgen05(*a); });
}

void add_desc_command(CLI::App& app) {
  auto a = std::make_shared<DescArgs>();
  CLI::App* cmd = add_command(
      app, "desc",
      "tcgen05 descriptors: decode, encode (from fields or a tile layout), check against a layout",
      "  layoutscope desc --decode 0x4000404000010040\n"
      "  layoutscope desc --decode 0x08400490 --kind instr --mma f16\n"
      "  layoutscope desc --encode --start 1024 --sbo 1024 --swizzle 128B\n"
      "  layoutscope desc --encode --kind instr --mma f16 --a bf16 --b bf16 --d f32 --m 128 --n 256\n"
      "  layoutscope desc --encode --layout 'Swizzle<3,3,3> o S[(64,64):(64,1)]' --shape 64,64 --dtype f16 "
      "--start 1024\n"
      "  layoutscope desc --check 0x4000404000010040 --layout 'Swizzle<3,3,3> o S[(64,64):(64,1)]' --shape "
      "64,64 "
      "--dtype f16\n");
  add_arg(cmd, a->decode, "decode", "0xWORD", "Decode a descriptor word");
  add_arg(cmd, a->encode, "encode", "", "Encode the fields given below")->expected(0, 1);
  add_arg(cmd, a->check, "check", "0xWORD",
          "Compare a shared memory descriptor with --layout (exit 1 if it differs)");
  add_arg(cmd, a->kind, "kind", "smem|instr", "Which descriptor (default smem)");
  add_arg(cmd, a->mma, "mma", "KIND", "instr: f16, tf32, f8f6f4, i8, mxf8f6f4, mxf4, mxf4nvf4");
  add_arg(cmd, a->start, "start", "BYTES", "smem: start address");
  add_arg(cmd, a->lbo, "lbo", "BYTES", "smem: leading dimension byte offset");
  add_arg(cmd, a->sbo, "sbo", "BYTES", "smem: stride dimension byte offset");
  add_arg(cmd, a->base_offset, "base-offset", "0..7", "smem: matrix base offset");
  add_arg(cmd, a->lbo_mode, "lbo-mode", "MODE", "smem: relative (default) or absolute");
  add_arg(cmd, a->swizzle, "swizzle", "MODE", "smem: none, 32B, 64B, 128B, 128B_base32B");
  add_arg(cmd, a->layout, "layout", "EXPR", "smem: the tile, logical (MN, K) -> element offsets @m");
  add_arg(cmd, a->shape, "shape", "MN,K", "smem: the tile's shape (default: the layout's)");
  add_arg(cmd, a->dtype, "dtype", "TYPE", "smem: element type (default f16)");
  add_arg(cmd, a->major, "major", "K|MN", "smem: which dimension is contiguous (default K)");
  add_arg(cmd, a->a, "a", "TYPE", "instr: A type (f16 bf16 tf32 e4m3 e5m2 e2m3 e3m2 e2m1 u8 s8)");
  add_arg(cmd, a->b, "b", "TYPE", "instr: B type");
  add_arg(cmd, a->d, "d", "TYPE", "instr: D type (f16 f32 s32)");
  add_arg(cmd, a->m, "m", "M", "instr: M (64, 128, 256)");
  add_arg(cmd, a->n, "n", "N", "instr: N (8..256)");
  add_arg(cmd, a->a_major, "a-major", "K|MN", "instr: A K-major (default) or MN-major (transpose A)");
  add_arg(cmd, a->b_major, "b-major", "K|MN", "instr: B K-major (default) or MN-major (transpose B)");
  add_arg(cmd, a->negate, "negate", "a|b|ab", "instr: negate A, B or both");
  add_arg(cmd, a->saturate, "saturate", "1", "instr: saturate (kind::i8)");
  add_arg(cmd, a->sparse, "sparse", "SEL", "instr: sparse, with selector 0..3");
  add_arg(cmd, a->max_shift, "max-shift", "0..3", "instr: .ws max shift (0 none, 1 8, 2 16, 3 32)");
  add_arg(cmd, a->scale, "scale", "TYPE", "instr, block-scaled: ue8m0 (default) or ue4m3");
  add_arg(cmd, a->sfa_id, "sfa-id", "0..3", "instr, block-scaled: scale factor A id");
  add_arg(cmd, a->sfb_id, "sfb-id", "0..3", "instr, block-scaled: scale factor B id");
  add_arg(cmd, a->k_size, "k-size", "0|1", "instr, mxf4 / mxf4nvf4: bit 31 (K 64 or 96)");
  on_run(cmd, [a] { return run_desc(*a); });
}

}  // namespace layoutscope::cli
