#include "layoutscope/umma_descriptor.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <utility>

#include "layoutscope/mapping.hpp"

namespace layoutscope {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

Error rule(std::string message, std::string field, std::string code) {
  return make_error(std::move(message), 0, std::move(field), std::move(code));
}

std::string hex(uint64_t v) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  do {
    s.insert(s.begin(), digits[v & 15]);
    v >>= 4;
  } while (v != 0);
  return "0x" + s;
}

constexpr int64_t kAddressLimit = int64_t{1} << 18;  // 14 bits of (value >> 4)

std::optional<Error> check_byte_field(int64_t v, const std::string& field) {
  if (v < 0 || v >= kAddressLimit)
    return rule(field + " " + str(v) + " does not fit the descriptor's 14 bits of (bytes >> 4): 0 to 262128",
                field, "range");
  if (v % 16 != 0)
    return rule(field + " " + str(v) + " is not a multiple of 16 bytes (the descriptor drops the 4 low bits)",
                field, "alignment");
  return std::nullopt;
}

uint64_t bits(uint64_t v, int lo, int n) { return (v >> lo) & ((uint64_t{1} << n) - 1); }

}  // namespace

// ---- shared memory descriptor
// -------------------------------------------------------------------------------

std::string_view to_string(UmmaSwizzle s) {
  switch (s) {
    case UmmaSwizzle::kNone:
      return "none";
    case UmmaSwizzle::k128BBase32B:
      return "128B_base32B";
    case UmmaSwizzle::k128B:
      return "128B";
    case UmmaSwizzle::k64B:
      return "64B";
    case UmmaSwizzle::k32B:
      return "32B";
  }
  return "?";
}

Result<UmmaSwizzle> parse_umma_swizzle(std::string_view text) {
  if (text.starts_with("SWIZZLE_")) text.remove_prefix(8);
  for (UmmaSwizzle s : {UmmaSwizzle::kNone, UmmaSwizzle::k128BBase32B, UmmaSwizzle::k128B, UmmaSwizzle::k64B,
                        UmmaSwizzle::k32B})
    if (to_string(s) == text) return s;
  if (text == "NONE" || text == "interleave") return UmmaSwizzle::kNone;
  if (text == "128B_BASE32B" || text == "128B_ATOM_32B") return UmmaSwizzle::k128BBase32B;
  return rule("unknown swizzle '" + std::string(text) + "' (none, 32B, 64B, 128B, 128B_base32B)", "swizzle",
              "range");
}

int64_t umma_swizzle_bytes(UmmaSwizzle s) {
  switch (s) {
    case UmmaSwizzle::kNone:
      return 16;
    case UmmaSwizzle::k32B:
      return 32;
    case UmmaSwizzle::k64B:
      return 64;
    default:
      return 128;
  }
}

int64_t umma_swizzle_repeat(UmmaSwizzle s) { return 8 * umma_swizzle_bytes(s); }

Swizzle umma_swizzle_on_bytes(UmmaSwizzle s) {
  switch (s) {
    case UmmaSwizzle::k32B:
      return Swizzle{1, 4, 3};
    case UmmaSwizzle::k64B:
      return Swizzle{2, 4, 3};
    case UmmaSwizzle::k128B:
      return Swizzle{3, 4, 3};
    case UmmaSwizzle::k128BBase32B:
      return Swizzle{2, 5, 2};
    case UmmaSwizzle::kNone:
      break;
  }
  return Swizzle{};
}

Result<uint64_t> encode_smem_descriptor(const SmemDescriptor& d) {
  if (auto e = check_byte_field(d.start_address, "start_address")) return *e;
  if (auto e = check_byte_field(d.leading_byte_offset, "leading_byte_offset")) return *e;
  if (auto e = check_byte_field(d.stride_byte_offset, "stride_byte_offset")) return *e;
  if (d.base_offset < 0 || d.base_offset > 7)
    return rule("base_offset " + str(d.base_offset) + " does not fit its 3 bits (0 to 7)", "base_offset",
                "range");
  if (d.version != 1)
    return rule("version (bits 46-48) must be 0b001 for tcgen05, not " + str(d.version), "version",
                "fixed-bits");
  uint64_t v = 0;
  v |= static_cast<uint64_t>(d.start_address >> 4);
  v |= static_cast<uint64_t>(d.leading_byte_offset >> 4) << 16;
  v |= static_cast<uint64_t>(d.stride_byte_offset >> 4) << 32;
  v |= uint64_t{1} << 46;
  v |= static_cast<uint64_t>(d.base_offset) << 49;
  v |= static_cast<uint64_t>(d.lbo_absolute ? 1 : 0) << 52;
  v |= static_cast<uint64_t>(d.swizzle) << 61;
  return v;
}

Result<SmemDescriptor> decode_smem_descriptor(uint64_t v) {
  if (bits(v, 14, 2) != 0 || bits(v, 30, 2) != 0)
    return rule("bits 14-15 and 30-31 are unused and must be 0 (" + hex(v) + ")", "reserved", "reserved");
  if (bits(v, 46, 3) != 1)
    return rule("bits 46-48 must hold the fixed value 0b001 for tcgen05, not " + str(bits(v, 46, 3)) +
                    " (a wgmma descriptor has 0 there)",
                "version", "fixed-bits");
  if (bits(v, 53, 8) != 0)
    return rule("bits 53-60 must hold the fixed value 0, not " + hex(bits(v, 53, 8)), "fixed", "fixed-bits");
  const uint64_t sw = bits(v, 61, 3);
  if (sw == 3 || sw == 5 || sw == 7)
    return rule(
        "swizzle mode " + str(sw) + " is not one (0 none, 1 128B with 32B atoms, 2 128B, 4 64B, 6 32B)",
        "swizzle", "range");
  SmemDescriptor d;
  d.start_address = static_cast<int64_t>(bits(v, 0, 14) << 4);
  d.leading_byte_offset = static_cast<int64_t>(bits(v, 16, 14) << 4);
  d.stride_byte_offset = static_cast<int64_t>(bits(v, 32, 14) << 4);
  d.version = 1;
  d.base_offset = static_cast<int64_t>(bits(v, 49, 3));
  d.lbo_absolute = bits(v, 52, 1) != 0;
  d.swizzle = static_cast<UmmaSwizzle>(sw);
  return d;
}

Result<Major> parse_major(std::string_view text) {
  if (text == "K" || text == "k" || text == "K-major") return Major::kK;
  if (text == "MN" || text == "mn" || text == "MN-major" || text == "M" || text == "N") return Major::kMN;
  return rule("unknown major-ness '" + std::string(text) + "' (K or MN)", "major", "range");
}

std::string_view to_string(Major m) { return m == Major::kK ? "K" : "MN"; }

namespace {

constexpr int64_t kMaxTileElements = int64_t{1} << 20;

std::optional<Error> check_tile(Major major, int elem_bits, int64_t mn, int64_t k, UmmaSwizzle sw) {
  if (elem_bits != 8 && elem_bits != 16 && elem_bits != 32)
    return rule("elem_bits must be 8, 16 or 32, not " + str(elem_bits), "elem_bits", "range");
  const int64_t b = elem_bits / 8;
  if (mn <= 0 || k <= 0 || mn * k > kMaxTileElements)
    return rule("the tile must have 1 to 2^20 elements", "shape", "range");
  const int64_t w = umma_swizzle_bytes(sw);
  if (major == Major::kK) {
    if (mn % 8 != 0 || (k * b) % 16 != 0)
      return rule("a K-major tile is made of 8-row x 16-byte core matrices: MN a multiple of 8, K of " +
                      str(16 / b) + " elements",
                  "shape", "range");
    if (sw != UmmaSwizzle::kNone && k * b > w)
      return rule("a K-major SWIZZLE_" + std::string(to_string(sw)) + " tile spans at most " + str(w) +
                      " bytes of K (" + str(w / b) + " elements) in one descriptor",
                  "shape", "range");
  } else if ((mn * b) % 16 != 0 || k % 8 != 0) {
    return rule("an MN-major tile is made of 16-byte x 8-row core matrices: MN a multiple of " + str(16 / b) +
                    " elements, K of 8",
                "shape", "range");
  }
  return std::nullopt;
}

// The canonical offset of element (i, j) before start and swizzle (the header's table).
int64_t canonical_offset(const SmemDescriptor& d, Major major, int64_t b, int64_t i, int64_t j) {
  const int64_t w = umma_swizzle_bytes(d.swizzle);
  const int64_t lbo = d.leading_byte_offset, sbo = d.stride_byte_offset;
  if (major == Major::kK) {
    const int64_t kb = j * b;
    if (d.swizzle == UmmaSwizzle::kNone) return (i % 8) * 16 + (i / 8) * sbo + (kb / 16) * lbo + kb % 16;
    return (i % 8) * w + (i / 8) * sbo + kb;
  }
  const int64_t mb = i * b;
  if (d.swizzle == UmmaSwizzle::kNone) return mb % 16 + (j % 8) * 16 + (mb / 16) * sbo + (j / 8) * lbo;
  return mb % w + (j % 8) * w + (mb / w) * lbo + (j / 8) * sbo;
}

int64_t expected_base_offset(const SmemDescriptor& d) {
  if (d.swizzle == UmmaSwizzle::kNone) return 0;
  return d.start_address % umma_swizzle_repeat(d.swizzle) == 0 ? 0 : (d.start_address >> 7) & 7;
}

}  // namespace

Result<std::vector<int64_t>> descriptor_addresses(const SmemDescriptor& d, Major major, int elem_bits,
                                                  int64_t mn, int64_t k) {
  if (d.lbo_absolute)
    return rule("the absolute leading-dimension mode (bit 52) is decoded but its addresses are not modelled",
                "lbo_mode", "range");
  if (auto e = check_tile(major, elem_bits, mn, k, d.swizzle)) return *e;
  const int64_t b = elem_bits / 8;
  const Swizzle sw = umma_swizzle_on_bytes(d.swizzle);
  std::vector<int64_t> out(static_cast<size_t>(mn * k));
  for (int64_t i = 0; i < mn; ++i)
    for (int64_t j = 0; j < k; ++j)
      out[static_cast<size_t>(i * k + j)] =
          apply_swizzle(sw, d.start_address + canonical_offset(d, major, b, i, j));
  return out;
}

Result<InferredDescriptor> infer_smem_descriptor(const Layout& layout, const std::vector<int64_t>& shape,
                                                 Major major, int elem_bits, int64_t start_address) {
  if (shape.size() != 2) return rule("a descriptor tile is 2-D: (MN, K)", "shape", "range");
  if (elem_bits != 8 && elem_bits != 16 && elem_bits != 32)
    return rule("elem_bits must be 8, 16 or 32, not " + str(elem_bits), "elem_bits", "range");
  const int64_t b = elem_bits / 8, mn = shape[0], k = shape[1];
  InferredDescriptor out;
  SmemDescriptor& d = out.descriptor;
  d.start_address = start_address;
  // The layout's swizzle, in element units, is the descriptor's mode once moved to bytes.
  d.swizzle = UmmaSwizzle::kNone;
  if (layout.swizzle && layout.swizzle->bits > 0) {
    const Swizzle& s = *layout.swizzle;
    const Swizzle on_bytes{s.bits, s.base + std::countr_zero(static_cast<unsigned>(b)), s.shift};
    bool found = false;
    for (UmmaSwizzle m :
         {UmmaSwizzle::k32B, UmmaSwizzle::k64B, UmmaSwizzle::k128B, UmmaSwizzle::k128BBase32B}) {
      const Swizzle want = umma_swizzle_on_bytes(m);
      if (s.inner && want.bits == on_bytes.bits && want.base == on_bytes.base &&
          want.shift == on_bytes.shift) {
        d.swizzle = m;
        found = true;
      }
    }
    if (!found)
      return rule("the layout's swizzle is Swizzle<" + str(on_bytes.bits) + "," + str(on_bytes.base) + "," +
                      str(on_bytes.shift) +
                      "> on bytes; the descriptor's modes are <1,4,3> (32B), <2,4,3> (64B), " +
                      "<3,4,3> (128B) and <2,5,2> (128B with 32B atoms)",
                  "swizzle", "not-canonical");
  }
  if (auto e = check_tile(major, elem_bits, mn, k, d.swizzle)) return *e;
  Layout plain = layout;
  plain.swizzle.reset();
  auto t = table(plain, shape);
  if (!t) return t.error();
  if (t->axes.size() != 1 || t->axes[0] != kMemoryAxis || t->holders() != 1)
    return rule(
        "a shared tile layout maps each element to one @m offset (no other axes, no R[...] or P[...])",
        "layout", "not-canonical");
  auto rel = [&](int64_t i, int64_t j) { return t->values[static_cast<size_t>(i * k + j)] * b; };
  const int64_t base = rel(0, 0);
  auto pin = [&](bool pinned, int64_t i, int64_t j, const std::string& field,
                 int64_t& value) -> std::optional<Error> {
    if (!pinned) {
      out.unused.push_back(field);
      return std::nullopt;
    }
    value = rel(i, j) - base;
    if (auto e = check_byte_field(value, field))
      return rule("the layout needs " + field + " = " + str(value) + " bytes (element (" + str(i) + ", " +
                      str(j) + ")), which a descriptor cannot hold: " + e->message,
                  field, "not-canonical");
    return std::nullopt;
  };
  const int64_t w = umma_swizzle_bytes(d.swizzle);
  std::optional<Error> e1, e2;
  if (major == Major::kK) {
    e1 = pin(d.swizzle == UmmaSwizzle::kNone && k * b > 16, 0, 16 / b, "leading_byte_offset",
             d.leading_byte_offset);
    e2 = pin(mn > 8, 8, 0, "stride_byte_offset", d.stride_byte_offset);
  } else if (d.swizzle == UmmaSwizzle::kNone) {
    e1 = pin(k > 8, 0, 8, "leading_byte_offset", d.leading_byte_offset);
    e2 = pin(mn * b > 16, 16 / b, 0, "stride_byte_offset", d.stride_byte_offset);
  } else {
    e1 = pin(mn * b > w, w / b, 0, "leading_byte_offset", d.leading_byte_offset);
    e2 = pin(k > 8, 0, 8, "stride_byte_offset", d.stride_byte_offset);
  }
  if (e1) return *e1;
  if (e2) return *e2;
  if (auto e = check_byte_field(start_address, "start_address")) return *e;
  d.base_offset = expected_base_offset(d);
  for (int64_t i = 0; i < mn; ++i)
    for (int64_t j = 0; j < k; ++j) {
      const int64_t want = canonical_offset(d, major, b, i, j);
      if (rel(i, j) - base != want)
        return rule("element (" + str(i) + ", " + str(j) + ") is at byte " + str(rel(i, j) - base) +
                        " of the tile; the canonical " + std::string(to_string(major)) + "-major SWIZZLE_" +
                        std::string(to_string(d.swizzle)) + " layout with these offsets puts it at " +
                        str(want),
                    "layout", "not-canonical");
    }
  if (base != 0)
    return rule("element (0, 0) is at offset " + str(base / b) +
                    ", not 0: give the tile from its first element "
                    "and its address as start_address",
                "layout", "not-canonical");
  return out;
}

Result<DescriptorMatch> match_smem_descriptor(const SmemDescriptor& d, const Layout& layout,
                                              const std::vector<int64_t>& shape, Major major, int elem_bits) {
  auto inf = infer_smem_descriptor(layout, shape, major, elem_bits, d.start_address);
  if (!inf) return inf.error();
  DescriptorMatch m;
  m.inferred = *inf;
  const SmemDescriptor& want = inf->descriptor;
  auto unused = [&](const std::string& f) {
    return std::find(inf->unused.begin(), inf->unused.end(), f) != inf->unused.end();
  };
  auto cmp = [&](const std::string& field, int64_t given, int64_t needed) {
    if (given != needed && !unused(field)) m.differences.push_back({field, given, needed});
  };
  cmp("swizzle", static_cast<int64_t>(d.swizzle), static_cast<int64_t>(want.swizzle));
  cmp("leading_byte_offset", d.leading_byte_offset, want.leading_byte_offset);
  cmp("stride_byte_offset", d.stride_byte_offset, want.stride_byte_offset);
  cmp("base_offset", d.base_offset, want.base_offset);
  cmp("lbo_mode", d.lbo_absolute ? 1 : 0, 0);
  cmp("version", d.version, 1);
  m.matches = m.differences.empty();
  return m;
}

// ---- instruction descriptor
// --------------------------------------------------------------------------------

std::string_view to_string(MmaKind k) {
  switch (k) {
    case MmaKind::kF16:
      return "f16";
    case MmaKind::kTf32:
      return "tf32";
    case MmaKind::kF8f6f4:
      return "f8f6f4";
    case MmaKind::kI8:
      return "i8";
    case MmaKind::kMxf8f6f4:
      return "mxf8f6f4";
    case MmaKind::kMxf4:
      return "mxf4";
    case MmaKind::kMxf4Nvf4:
      return "mxf4nvf4";
  }
  return "?";
}

Result<MmaKind> parse_mma_kind(std::string_view text) {
  if (text.starts_with("kind::")) text.remove_prefix(6);
  for (MmaKind k : {MmaKind::kF16, MmaKind::kTf32, MmaKind::kF8f6f4, MmaKind::kI8, MmaKind::kMxf8f6f4,
                    MmaKind::kMxf4, MmaKind::kMxf4Nvf4})
    if (to_string(k) == text) return k;
  return rule(
      "unknown MMA kind '" + std::string(text) + "' (f16, tf32, f8f6f4, i8, mxf8f6f4, mxf4, mxf4nvf4)",
      "kind", "range");
}

bool is_block_scaled(MmaKind k) {
  return k == MmaKind::kMxf8f6f4 || k == MmaKind::kMxf4 || k == MmaKind::kMxf4Nvf4;
}

namespace {

using Codes = std::vector<std::pair<std::string_view, uint32_t>>;

const Codes& ab_codes(MmaKind k) {
  static const Codes f16 = {{"f16", 0}, {"bf16", 1}};
  static const Codes tf32 = {{"tf32", 2}};
  static const Codes f8f6f4 = {{"e4m3", 0}, {"e5m2", 1}, {"e2m3", 3}, {"e3m2", 4}, {"e2m1", 5}};
  static const Codes i8 = {{"u8", 0}, {"s8", 1}};
  static const Codes f4 = {{"e2m1", 1}};
  switch (k) {
    case MmaKind::kF16:
      return f16;
    case MmaKind::kTf32:
      return tf32;
    case MmaKind::kF8f6f4:
    case MmaKind::kMxf8f6f4:
      return f8f6f4;
    case MmaKind::kI8:
      return i8;
    default:
      return f4;
  }
}

const Codes& d_codes(MmaKind k) {
  static const Codes f16f32 = {{"f16", 0}, {"f32", 1}};
  static const Codes f32 = {{"f32", 1}};
  static const Codes s32 = {{"s32", 2}};
  if (k == MmaKind::kTf32) return f32;
  if (k == MmaKind::kI8) return s32;
  return f16f32;
}

std::string names(const Codes& c) {
  std::string s;
  for (const auto& [n, v] : c) s += (s.empty() ? "" : ", ") + std::string(n);
  return s;
}

std::optional<uint32_t> code_of(const Codes& c, std::string_view name) {
  for (const auto& [n, v] : c)
    if (n == name) return v;
  return std::nullopt;
}

std::optional<std::string> name_of(const Codes& c, uint32_t code) {
  for (const auto& [n, v] : c)
    if (v == code) return std::string(n);
  return std::nullopt;
}

std::string kind_name(MmaKind k) { return "kind::" + std::string(to_string(k)); }

}  // namespace

std::optional<Error> check_instr_descriptor(const InstrDescriptor& d) {
  const MmaKind k = d.kind;
  const bool bs = is_block_scaled(k);
  const Codes& ab = ab_codes(k);
  if (!code_of(ab, d.a_type))
    return rule(kind_name(k) + " takes A types " + names(ab) + ", not '" + d.a_type + "'", "a_type", "kind");
  if (!code_of(ab, d.b_type))
    return rule(kind_name(k) + " takes B types " + names(ab) + ", not '" + d.b_type + "'", "b_type", "kind");
  if (k == MmaKind::kF16 && d.a_type != d.b_type)
    return rule("kind::f16 multiplies two matrices of one type: A is " + d.a_type + ", B " + d.b_type,
                "b_type", "kind");
  if (!bs) {
    const Codes& dc = d_codes(k);
    if (!code_of(dc, d.d_type))
      return rule(kind_name(k) + " accumulates in " + names(dc) + ", not '" + d.d_type + "'", "d_type",
                  "kind");
    if (k == MmaKind::kF16 && d.a_type == "bf16" && d.d_type != "f32")
      return rule("bf16 inputs accumulate in f32 only", "d_type", "kind");
  }
  // MN-major (transposed) operands exist for 16-bit, tf32 and 8-bit types only (PTX ISA, "Major-ness
  // supported by Strides"): not for f6 / f4 and not for the mxf4 kinds.
  auto mn_ok = [&](const std::string& t) { return t != "e2m3" && t != "e3m2" && t != "e2m1"; };
  if (d.a_mn_major && !mn_ok(d.a_type))
    return rule("A of type " + d.a_type + " must be K-major (no transpose)", "a_mn_major", "kind");
  if (d.b_mn_major && !mn_ok(d.b_type))
    return rule("B of type " + d.b_type + " must be K-major (no transpose)", "b_mn_major", "kind");
  if (k == MmaKind::kI8 && (d.negate_a || d.negate_b))
    return rule("kind::i8 does not negate its inputs", d.negate_a ? "negate_a" : "negate_b", "kind");
  if (d.saturate && k != MmaKind::kI8) return rule("saturate applies to kind::i8 only", "saturate", "kind");
  if (d.sparse_selector < 0 || d.sparse_selector > 3)
    return rule("sparse_selector takes 0 to 3, not " + str(d.sparse_selector), "sparse_selector", "range");
  if (!d.sparse && d.sparse_selector != 0)
    return rule("sparse_selector is set but the descriptor is dense", "sparse_selector", "range");
  if (bs) {
    if (d.max_shift != 0) return rule("block-scaled descriptors have no max_shift", "max_shift", "kind");
    const bool ue4m3_ok = k == MmaKind::kMxf4Nvf4;
    if (d.scale_type != "ue8m0" && !(ue4m3_ok && d.scale_type == "ue4m3"))
      return rule(kind_name(k) + " takes scale type " + (ue4m3_ok ? "ue4m3 or ue8m0" : "ue8m0") + ", not '" +
                      d.scale_type + "'",
                  "scale_type", "kind");
    if (d.sfa_id < 0 || d.sfa_id > 3)
      return rule("sfa_id takes 0 to 3, not " + str(d.sfa_id), "sfa_id", "range");
    if (d.sfb_id < 0 || d.sfb_id > 3)
      return rule("sfb_id takes 0 to 3, not " + str(d.sfb_id), "sfb_id", "range");
    if (d.k_size < 0 || d.k_size > 1) return rule("k_size is one bit", "k_size", "range");
    if (d.k_size != 0 && k == MmaKind::kMxf8f6f4)
      return rule("bit 31 (K size) is for kind::mxf4 and kind::mxf4nvf4 only", "k_size", "kind");
  } else {
    if (d.max_shift < 0 || d.max_shift > 3)
      return rule("max_shift takes 0 to 3, not " + str(d.max_shift), "max_shift", "range");
    if (d.k_size != 0 || d.sfa_id != 0 || d.sfb_id != 0)
      return rule("scale-factor fields belong to block-scaled kinds",
                  d.k_size ? "k_size" : (d.sfa_id ? "sfa_id" : "sfb_id"), "kind");
  }
  // Shapes (PTX ISA, tcgen05.mma "Matrix shape"): M 64, 128 or 256 (256 with cta_group::2), block-scaled M
  // 128 or 256; N a multiple of 8 up to 256, of 16 when M is 128 or 256.
  const bool m_ok = bs ? (d.m == 128 || d.m == 256) : (d.m == 64 || d.m == 128 || d.m == 256);
  if (!m_ok)
    return rule(kind_name(k) + " takes M = " + (bs ? "128 or 256" : "64, 128 or 256") + ", not " + str(d.m),
                "m", "range");
  const int64_t step = d.m == 64 ? 8 : 16;
  if (d.n < step || d.n > 256 || d.n % step != 0)
    return rule("with M = " + str(d.m) + ", N is a multiple of " + str(step) + " from " + str(step) +
                    " to 256, not " + str(d.n),
                "n", "range");
  return std::nullopt;
}

Result<uint32_t> encode_instr_descriptor(const InstrDescriptor& d) {
  if (auto e = check_instr_descriptor(d)) return *e;
  const bool bs = is_block_scaled(d.kind);
  uint32_t v = 0;
  v |= static_cast<uint32_t>(d.sparse_selector);
  v |= (d.sparse ? 1u : 0u) << 2;
  if (bs) {
    v |= static_cast<uint32_t>(d.sfb_id) << 4;
    v |= (d.scale_type == "ue8m0" ? 1u : 0u) << 23;
    v |= static_cast<uint32_t>(d.sfa_id) << 29;
    v |= static_cast<uint32_t>(d.k_size) << 31;
  } else {
    v |= (d.saturate ? 1u : 0u) << 3;
    v |= *code_of(d_codes(d.kind), d.d_type) << 4;
    v |= static_cast<uint32_t>(d.max_shift) << 30;
  }
  v |= *code_of(ab_codes(d.kind), d.a_type) << 7;
  v |= *code_of(ab_codes(d.kind), d.b_type) << 10;
  v |= (d.negate_a ? 1u : 0u) << 13;
  v |= (d.negate_b ? 1u : 0u) << 14;
  v |= (d.a_mn_major ? 1u : 0u) << 15;
  v |= (d.b_mn_major ? 1u : 0u) << 16;
  v |= static_cast<uint32_t>(d.n >> 3) << 17;
  v |= static_cast<uint32_t>(d.m >> 4) << 24;
  return v;
}

Result<InstrDescriptor> decode_instr_descriptor(uint32_t v, MmaKind kind) {
  const bool bs = is_block_scaled(kind);
  const std::vector<int> reserved = bs ? std::vector<int>{3, 6} : std::vector<int>{6, 23, 29};
  for (int bit : reserved)
    if (bits(v, bit, 1) != 0)
      return rule("bit " + str(bit) + " is reserved in a " + kind_name(kind) + " descriptor and must be 0 (" +
                      hex(v) + ")",
                  "reserved", "reserved");
  InstrDescriptor d;
  d.kind = kind;
  d.sparse_selector = static_cast<int64_t>(bits(v, 0, 2));
  d.sparse = bits(v, 2, 1) != 0;
  const auto a = name_of(ab_codes(kind), static_cast<uint32_t>(bits(v, 7, 3)));
  if (!a)
    return rule("A type code " + str(bits(v, 7, 3)) + " (bits 7-9) is not one of " + kind_name(kind) +
                    "'s (" + names(ab_codes(kind)) + ")",
                "a_type", "kind");
  const auto b = name_of(ab_codes(kind), static_cast<uint32_t>(bits(v, 10, 3)));
  if (!b)
    return rule("B type code " + str(bits(v, 10, 3)) + " (bits 10-12) is not one of " + kind_name(kind) +
                    "'s (" + names(ab_codes(kind)) + ")",
                "b_type", "kind");
  d.a_type = *a;
  d.b_type = *b;
  if (bs) {
    d.d_type = "f32";
    d.sfb_id = static_cast<int64_t>(bits(v, 4, 2));
    d.scale_type = bits(v, 23, 1) ? "ue8m0" : "ue4m3";
    d.sfa_id = static_cast<int64_t>(bits(v, 29, 2));
    d.k_size = static_cast<int64_t>(bits(v, 31, 1));
  } else {
    d.saturate = bits(v, 3, 1) != 0;
    const auto dt = name_of(d_codes(kind), static_cast<uint32_t>(bits(v, 4, 2)));
    if (!dt)
      return rule("D type code " + str(bits(v, 4, 2)) + " (bits 4-5) is not one of " + kind_name(kind) +
                      "'s (" + names(d_codes(kind)) + ")",
                  "d_type", "kind");
    d.d_type = *dt;
    d.max_shift = static_cast<int64_t>(bits(v, 30, 2));
  }
  d.negate_a = bits(v, 13, 1) != 0;
  d.negate_b = bits(v, 14, 1) != 0;
  d.a_mn_major = bits(v, 15, 1) != 0;
  d.b_mn_major = bits(v, 16, 1) != 0;
  d.n = static_cast<int64_t>(bits(v, 17, 6) << 3);
  d.m = static_cast<int64_t>(bits(v, 24, 5) << 4);
  if (auto e = check_instr_descriptor(d)) return *e;
  return d;
}

}  // namespace layoutscope
