#include "convert_check.hpp"

#include <sstream>
#include <string>

namespace layoutscope::codegen {
namespace {

// `var` = the element of index r under `l`: its modes, innermost (last) mode first, plus its offset, then
// its swizzle as the engine's XOR term (swizzle_term), so the check moves bits exactly as apply_swizzle does.
Result<std::string> offset_code(const Layout& l, const char* var, const char* which) {
  if (!l.replicas.empty() || !l.partials.empty())
    return make_error(std::string(which) +
                          ": a conversion layout has one shard, an offset and a swizzle, "
                          "no replicas or partial sums",
                      0, which);
  std::ostringstream o;
  o << "    r = x;\n";
  for (size_t i = l.shard.size(); i-- > 0;) {
    const Mode& m = l.shard[i];
    if (m.stride.axis != kMemoryAxis)
      return make_error(std::string(which) + ": a stride on @" + m.stride.axis + ", not @m", 0, which);
    o << "    " << var << " += (r % " << m.extent << "LL) * " << m.stride.k << "LL; r /= " << m.extent
      << "LL;\n";
  }
  for (const AxisStride& k : l.offset) {
    if (k.axis != kMemoryAxis)
      return make_error(std::string(which) + ": an offset on @" + k.axis + ", not @m", 0, which);
    if (k.k != 0) o << "    " << var << " += " << k.k << "LL;\n";
  }
  if (l.swizzle) {
    const SwizzleTerm t = swizzle_term(*l.swizzle);
    if (t.mask != 0)
      o << "    " << var << " ^= ((" << var << " >> " << t.read_shift << ") & " << t.mask << "LL) << "
        << t.write_shift << ";\n";
  }
  return o.str();
}

}  // namespace

Result<KernelSource> convert_check_source(const Layout& src, const Layout& dst, int elem_bytes) {
  int64_t n = 1;
  for (const Mode& m : dst.shard) n *= m.extent;
  auto s = offset_code(src, "s", "src");
  if (!s) return s.error();
  auto d = offset_code(dst, "d", "dst");
  if (!d) return d.error();
  std::ostringstream o;
  o << "extern \"C\" __global__ void " << kConvertCheckName
    << "(const unsigned char* in, const unsigned char* out, unsigned long long* bad) {\n"
    << "  for (long long x = blockIdx.x * " << kConvertCheckThreads << "LL + threadIdx.x; x < " << n
    << "LL; x += " << kConvertCheckThreads << "LL * gridDim.x) {\n"
    << "    long long r, s = 0, d = 0;\n"
    << *s << *d << "    for (int b = 0; b < " << elem_bytes << "; ++b)\n"
    << "      if (out[d * " << elem_bytes << " + b] != in[s * " << elem_bytes << " + b]) {\n"
    << "        atomicAdd(bad, 1ull);\n"
    << "        atomicMin(bad + 1, (unsigned long long)x);\n"
    << "        break;\n"
    << "      }\n"
    << "  }\n"
    << "}\n";
  KernelSource k;
  k.name = kConvertCheckName;
  k.text = o.str();
  k.text_hash = source_hash(k.text);
  k.hash = kernel_hash(k);
  k.threads = kConvertCheckThreads;
  return k;
}

}  // namespace layoutscope::codegen
