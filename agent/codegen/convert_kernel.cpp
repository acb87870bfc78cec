#include "convert_kernel.hpp"

#include <sstream>
#include <vector>

namespace layoutscope::codegen {
namespace {

constexpr int kIlp = 4;  // vectors per thread in the vector kernel: loads in flight before the first store

// The CUDA type of one access of `bytes` bytes and how to name its 32-bit words.
struct Access {
  std::string type;
  int words = 0;  // 32-bit words (0 for 1- and 2-byte accesses)
  std::string word(const std::string& var, int i) const {
    if (words == 1) return var;
    return var + "." + "xyzw"[i];
  }
};

Access access_of(int bytes) {
  switch (bytes) {
    case 16:
      return {"uint4", 4};
    case 8:
      return {"uint2", 2};
    case 4:
      return {"unsigned int", 1};
    case 2:
      return {"unsigned short", 0};
    default:
      return {"unsigned char", 0};
  }
}

std::string ll(int64_t v) { return std::to_string(v) + "LL"; }

// Byte offset o in the staging tile, swizzled as the plan says.
std::string swizzled(const Swizzle& s, const std::string& o) {
  if (s.bits <= 0) return "(" + o + ")";
  const int64_t mask = (int64_t{1} << s.bits) - 1;
  return "((" + o + ") ^ ((((" + o + ") >> " + std::to_string(s.base + s.shift) + ") & " +
         std::to_string(mask) + ") << " + std::to_string(s.base) + "))";
}

// w[j] = unit j of every r[k]: the V x V register block transposed, as explicit word moves or byte permutes.
void emit_transpose(std::ostringstream& o, const Access& acc, int v, int unit_bytes) {
  const int words = acc.words;
  for (int j = 0; j < v; ++j) {
    for (int q = 0; q < words; ++q) {
      const std::string dst = acc.word("w[" + std::to_string(j) + "]", q);
      if (unit_bytes >= 4) {
        const int wpu = unit_bytes / 4, k = q / wpu, i = q % wpu;
        o << "    " << dst << " = " << acc.word("r[" + std::to_string(k) + "]", j * wpu + i) << ";\n";
      } else if (unit_bytes == 2) {
        const int h = j % 2, src_word = j / 2;
        const unsigned sel = (2u * h) | ((2u * h + 1) << 4) | ((4u + 2 * h) << 8) | ((5u + 2 * h) << 12);
        o << "    " << dst << " = __byte_perm(" << acc.word("r[" + std::to_string(2 * q) + "]", src_word)
          << ", " << acc.word("r[" + std::to_string(2 * q + 1) + "]", src_word) << ", 0x" << std::hex << sel
          << std::dec << "u);\n";
      } else {
        const int b = j % 4, src_word = j / 4;
        const unsigned sel = static_cast<unsigned>(b) | ((4u + b) << 4);
        auto r = [&](int k) { return acc.word("r[" + std::to_string(4 * q + k) + "]", src_word); };
        o << "    " << dst << " = __byte_perm(__byte_perm(" << r(0) << ", " << r(1) << ", 0x" << std::hex
          << sel << "u), __byte_perm(" << r(2) << ", " << r(3) << ", 0x" << sel << "u), 0x5410u);\n"
          << std::dec;
      }
    }
  }
}

// Source offset of index ia of group a and destination offset of index ib of group b, as the engine defines
// them (group_a_src, group_b_dst).
std::string group_functions(const ConvertPlan& p) {
  std::ostringstream o;
  auto emit = [&](const char* name, const std::vector<int>& group, bool src) {
    o << "__device__ __forceinline__ long long " << name << "(long long i) {\n  long long r = 0;\n";
    for (size_t g = 0; g < group.size(); ++g) {
      const ConvertMode& m = p.modes[group[g]];
      const int64_t stride = src ? m.src_stride : m.dst_stride;
      if (g + 1 == group.size()) {
        o << "  r += i * " << ll(stride) << ";\n";
      } else {
        o << "  r += (i % " << ll(m.extent) << ") * " << ll(stride) << "; i /= " << ll(m.extent) << ";\n";
      }
    }
    o << "  return r;\n}\n";
  };
  emit("group_a_src", p.group_a, true);
  if (p.folded_a > 0) emit("group_a_dst", p.group_a, false);  // otherwise the identity
  emit("group_b_dst", p.group_b, false);
  return o.str();
}

void emit_tiled(std::ostringstream& o, const ConvertPlan& p, KernelSource& k) {
  const int v = p.vector_units;
  const int64_t ub = p.unit_bytes;
  const Access acc = access_of(static_cast<int>(v * ub));
  const int64_t tiles_a = (p.extent_a + p.tile_a - 1) / p.tile_a;
  const int64_t tiles_b = (p.extent_b + p.tile_b - 1) / p.tile_b;
  const int64_t nb = p.tile_b / v, na = p.tile_a / v, ca = p.tile_a / v;
  const bool folded = p.run_a < p.tile_a;
  k.shared_bytes = p.staging_bytes;
  o << "  typedef " << acc.type << " vec_t;\n";
  o << "  __shared__ __align__(16) unsigned char tile[" << p.staging_bytes << "];\n";
  o << "  long long blk = blockIdx.x;\n"
    << "  const long long a0 = (blk % " << ll(tiles_a) << ") * " << ll(p.tile_a) << ";\n"
    << "  blk /= " << ll(tiles_a) << ";\n"
    << "  const long long b0 = (blk % " << ll(tiles_b) << ") * " << ll(p.tile_b) << ";\n"
    << "  blk /= " << ll(tiles_b) << ";\n"
    << "  long long src_base = 0, dst_base = 0;\n";
  for (int i : convert_batch_modes(p)) {
    const ConvertMode& m = p.modes[i];
    o << "  { const long long d = blk % " << ll(m.extent) << "; blk /= " << ll(m.extent)
      << "; src_base += d * " << ll(m.src_stride) << "; dst_base += d * " << ll(m.dst_stride) << "; }\n";
  }
  // Read: V x V blocks, V rows along a of V units along b (contiguous in the source).
  o << "  for (int t = threadIdx.x; t < " << na * nb << "; t += " << p.threads << ") {\n"
    << "    const int bb = t % " << nb << ", ba = t / " << nb << ";\n"
    << "    const long long ib = b0 + bb * " << v << ";\n"
    << "    if (ib >= " << ll(p.extent_b) << ") continue;\n"
    << "    vec_t r[" << v << "], w[" << v << "];\n"
    << "#pragma unroll\n"
    << "    for (int k = 0; k < " << v << "; ++k) {\n"
    << "      const long long ia = a0 + ba * " << v << " + k;\n"
    << "      r[k] = ia < " << ll(p.extent_a)
    << " ? __ldg(reinterpret_cast<const vec_t*>(in + (src_base + group_a_src(ia) + ib) * " << ub
    << ")) : vec_t{};\n"
    << "    }\n";
  if (v > 1) {
    emit_transpose(o, acc, v, static_cast<int>(ub));
  } else {
    o << "    w[0] = r[0];\n";
  }
  // The staging tile: slab (ia / run_a) of rows along b, each row run_a units (the engine's staging_byte).
  const std::string store_at = folded ? "((ba * " + std::to_string(v) + ") / " + std::to_string(p.run_a) +
                                            " * " + std::to_string(p.tile_b) + " + bb * " +
                                            std::to_string(v) + " + j) * " + std::to_string(p.row_bytes) +
                                            " + (ba * " + std::to_string(v) + ") % " +
                                            std::to_string(p.run_a) + " * " + std::to_string(ub)
                                      : "(bb * " + std::to_string(v) + " + j) * " +
                                            std::to_string(p.row_bytes) + " + ba * " + std::to_string(v * ub);
  o << "#pragma unroll\n"
    << "    for (int j = 0; j < " << v << "; ++j)\n"
    << "      *reinterpret_cast<vec_t*>(tile + " << swizzled(p.staging, store_at) << ") = w[j];\n"
    << "  }\n"
    << "  __syncthreads();\n";
  // Write: rows along a (contiguous in the destination); with folded modes, chunk of the run fastest, then
  // row, then slab (the engine's store order).
  if (folded) {
    const int64_t cr = p.run_a / v;
    o << "  for (int t = threadIdx.x; t < " << p.tile_b * ca << "; t += " << p.threads << ") {\n"
      << "    const int chunk = t % " << cr << ", row = (t / " << cr << ") % " << p.tile_b << ", slab = t / "
      << cr * p.tile_b << ";\n"
      << "    const long long ia = a0 + slab * " << p.run_a << " + chunk * " << v << ", ib = b0 + row;\n"
      << "    if (ia >= " << ll(p.extent_a) << " || ib >= " << ll(p.extent_b) << ") continue;\n"
      << "    const vec_t x = *reinterpret_cast<const vec_t*>(tile + "
      << swizzled(p.staging, "(slab * " + std::to_string(p.tile_b) + " + row) * " +
                                 std::to_string(p.row_bytes) + " + chunk * " + std::to_string(v * ub))
      << ");\n"
      << "    *reinterpret_cast<vec_t*>(out + (dst_base + group_a_dst(ia) + group_b_dst(ib)) * " << ub
      << ") = x;\n"
      << "  }\n";
  } else {
    o << "  for (int t = threadIdx.x; t < " << p.tile_b * ca << "; t += " << p.threads << ") {\n"
      << "    const int row = t / " << ca << ", chunk = t % " << ca << ";\n"
      << "    const long long ia = a0 + chunk * " << v << ", ib = b0 + row;\n"
      << "    if (ia >= " << ll(p.extent_a) << " || ib >= " << ll(p.extent_b) << ") continue;\n"
      << "    const vec_t x = *reinterpret_cast<const vec_t*>(tile + "
      << swizzled(p.staging, "row * " + std::to_string(p.row_bytes) + " + chunk * " + std::to_string(v * ub))
      << ");\n"
      << "    *reinterpret_cast<vec_t*>(out + (dst_base + ia + group_b_dst(ib)) * " << ub << ") = x;\n"
      << "  }\n";
  }
  k.blocks = p.blocks;
}

void emit_vector(std::ostringstream& o, const ConvertPlan& p, KernelSource& k) {
  const int v = p.vector_units;
  const int eb = p.elem_bytes;
  const Access acc = access_of(v * eb);
  const int64_t nvec = p.elements / v;
  o << "  const long long first = (long long)blockIdx.x * " << p.threads * kIlp << " + threadIdx.x;\n"
    << "  " << acc.type << " x[" << kIlp << "];\n"
    << "#pragma unroll\n"
    << "  for (int u = 0; u < " << kIlp << "; ++u) {\n"
    << "    const long long g = first + u * " << p.threads << ";\n"
    << "    if (g >= " << ll(nvec) << ") break;\n"
    << "    long long r = g * " << v << ", s = 0;\n";
  for (size_t i = p.modes.size(); i-- > 0;) {
    const ConvertMode& m = p.modes[i];
    if (i == 0) {
      o << "    s += r * " << ll(m.src_stride) << ";\n";
    } else {
      o << "    s += (r % " << ll(m.extent) << ") * " << ll(m.src_stride) << "; r /= " << ll(m.extent)
        << ";\n";
    }
  }
  o << "    x[u] = __ldg(reinterpret_cast<const " << acc.type << "*>(in + s * " << eb << "));\n"
    << "  }\n"
    << "#pragma unroll\n"
    << "  for (int u = 0; u < " << kIlp << "; ++u) {\n"
    << "    const long long g = first + u * " << p.threads << ";\n"
    << "    if (g >= " << ll(nvec) << ") break;\n"
    << "    *reinterpret_cast<" << acc.type << "*>(out + g * " << v * eb << ") = x[u];\n"
    << "  }\n";
  k.blocks = (nvec + int64_t{p.threads} * kIlp - 1) / (int64_t{p.threads} * kIlp);
}

}  // namespace

uint64_t source_hash(const std::string& text) {
  uint64_t h = 14695981039346656037ull;  // the FNV-1a 64-bit offset basis, 0xcbf29ce484222325
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

KernelSource convert_kernel_source(const ConvertPlan& plan) {
  KernelSource k;
  k.name = kConvertKernelName;
  k.threads = plan.threads;
  std::ostringstream o;
  if (plan.kind == ConvertKind::kTiled) o << group_functions(plan);
  o << "// layoutscope conversion kernel, generated from the plan: " << to_string(plan.kind) << ", "
    << plan.elements << " elements of " << plan.elem_bytes << " B, " << plan.vector_units * plan.unit_bytes
    << " B per lane per access\n";
  o << "extern \"C\" __global__ void __launch_bounds__(" << plan.threads << ") " << k.name
    << "(const unsigned char* __restrict__ in, unsigned char* __restrict__ out) {\n";
  if (plan.kind == ConvertKind::kTiled) {
    emit_tiled(o, plan, k);
  } else {
    emit_vector(o, plan, k);
  }
  o << "}\n";
  k.text = o.str();
  k.hash = source_hash(k.text);
  return k;
}

}  // namespace layoutscope::codegen
