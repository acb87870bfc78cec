#include "convert_library.hpp"

#include <algorithm>
#include <bit>
#include <string>
#include <vector>

namespace layoutscope::codegen {

namespace {

// The widest power of two of elements, at most 16 B, that divides every value.
long long widest_unit(long long max_elems, const std::vector<long long>& must_divide) {
  long long w = max_elems;
  for (long long v : must_divide) {
    while (w > 1 && v % w != 0) w /= 2;
  }
  return w;
}

}  // namespace

Result<LibraryCall> library_call(const ConvertPlan& plan) {
  // The plan's modes in elements, destination order (a tiled plan's modes count units of unit_elems).
  struct Mode {
    long long extent, src;
  };
  std::vector<Mode> modes;
  const long long u = plan.kind == ConvertKind::kTiled ? plan.unit_elems : 1;
  for (const ConvertMode& m : plan.modes) modes.push_back({m.extent, m.src_stride * u});
  if (u > 1) modes.push_back({u, 1});
  // Neighbours contiguous in the source are one mode (the destination is dense, so they are there too).
  std::vector<Mode> fused;
  for (const Mode& m : modes) {
    if (m.extent == 1) continue;
    if (!fused.empty() && fused.back().src == m.extent * m.src) {
      fused.back() = {fused.back().extent * m.extent, m.src};
    } else {
      fused.push_back(m);
    }
  }
  if (fused.empty()) fused.push_back({1, 1});
  if (fused.size() > static_cast<size_t>(kLibraryModes)) {
    return make_error("the library kernels take at most " + std::to_string(kLibraryModes) +
                          " modes; this plan has " + std::to_string(fused.size()),
                      0, "shape");
  }
  // A unit: elements contiguous on both sides (the innermost mode, where the source steps by 1 in it), as
  // many as 16 B hold and every other stride, both offsets and each swizzle's lowest changed bit allow.
  std::vector<long long> divide = {plan.src_offset, plan.dst_offset};
  divide.push_back(fused.back().src == 1 ? fused.back().extent : 1);
  for (size_t i = 0; i + 1 < fused.size(); ++i) divide.push_back(fused[i].src);
  const SwizzleTerm st = swizzle_term(plan.src_swizzle), dt = swizzle_term(plan.dst_swizzle);
  if (st.mask != 0) divide.push_back(1ll << st.write_shift);
  if (dt.mask != 0) divide.push_back(1ll << dt.write_shift);
  const long long w = widest_unit(std::max(1, 16 / plan.elem_bytes), divide);

  LibraryCall call;
  call.unit_bytes = static_cast<int>(w * plan.elem_bytes);
  LibraryArgs& a = call.args;
  a.units = plan.elements / w;
  a.unit_elems = w;
  a.rank = static_cast<long long>(fused.size());
  for (size_t i = 0; i < fused.size(); ++i) {
    const bool inner = i + 1 == fused.size();
    a.extent[i] = inner && fused[i].src == 1 ? fused[i].extent / w : fused[i].extent;
    a.src_stride[i] = inner && fused[i].src == 1 ? 1 : fused[i].src / w;
  }
  a.src_offset = plan.src_offset;
  a.dst_offset = plan.dst_offset;
  a.src_read = st.read_shift;
  a.src_mask = st.mask;
  a.src_write = st.write_shift;
  a.dst_read = dt.read_shift;
  a.dst_mask = dt.mask;
  a.dst_write = dt.write_shift;
  call.blocks = std::clamp<int64_t>((a.units + call.threads - 1) / call.threads, 1, 132 * 32);
  return call;
}

namespace {

constexpr const char* kLibraryCallStruct =
    "struct LsCall {\n"
    "  long long units, unit_elems, extent[8], src_stride[8], src_offset, dst_offset, rank;\n"
    "  long long src_read, src_mask, src_write, dst_read, dst_mask, dst_write;\n"
    "};\n";

constexpr int kLibraryUnits[] = {1, 2, 4, 8, 16};

// One library kernel, without the argument struct it takes (LsCall).
std::string library_kernel_text(int unit_bytes) {
  const char* unit = unit_bytes == 1   ? "unsigned char"
                     : unit_bytes == 2 ? "unsigned short"
                     : unit_bytes == 4 ? "unsigned"
                     : unit_bytes == 8 ? "uint2"
                                       : "uint4";
  return "// layoutscope conversion library: any plan's modes as arguments, one unit of " +
         std::to_string(unit_bytes) +
         " B a thread per step\n"
         "extern \"C\" __global__ void __launch_bounds__(256) " +
         std::string(kLibraryKernelPrefix) + std::to_string(unit_bytes) +
         "(const unsigned char* __restrict__ in, unsigned char* __restrict__ out, const LsCall c) {\n"
         "  typedef " +
         unit +
         " unit_t;\n"
         "  for (long long i = blockIdx.x * 256ll + threadIdx.x; i < c.units; i += 256ll * gridDim.x) {\n"
         "    long long r = i, s = 0;\n"
         "    for (int d = (int)c.rank - 1; d >= 0; --d) {\n"
         "      const long long e = c.extent[d];\n"
         "      s += r % e * c.src_stride[d];\n"
         "      r /= e;\n"
         "    }\n"
         "    long long se = s * c.unit_elems + c.src_offset, de = i * c.unit_elems + c.dst_offset;\n"
         "    se ^= ((se >> c.src_read) & c.src_mask) << c.src_write;\n"
         "    de ^= ((de >> c.dst_read) & c.dst_mask) << c.dst_write;\n"
         "    reinterpret_cast<unit_t*>(out)[de / c.unit_elems] =\n"
         "        __ldg(reinterpret_cast<const unit_t*>(in) + se / c.unit_elems);\n"
         "  }\n"
         "}\n";
}

}  // namespace

KernelSource library_kernel_source(int unit_bytes) {
  KernelSource k;
  k.name = std::string(kLibraryKernelPrefix) + std::to_string(unit_bytes);
  k.threads = 256;
  k.text = std::string(kLibraryCallStruct) + library_kernel_text(unit_bytes);
  k.options = {"--ptxas-options=-O1"};
  k.text_hash = source_hash(k.text);
  k.hash = kernel_hash(k);
  return k;
}

std::string library_builtin_source() {
  std::string t = std::string(
                      "// The layoutscope conversion library, its five kernels in one CUDA C file for nvcc "
                      "(generated by\n// codegen::library_builtin_source).\n") +
                  kLibraryCallStruct;
  for (int b : kLibraryUnits) t += library_kernel_text(b);
  t += std::string("extern \"C\" const void* ") + kLibraryTableName +
       "(int unit_bytes) {\n  switch (unit_bytes) {\n";
  for (int b : kLibraryUnits) {
    t += "    case " + std::to_string(b) + ": return reinterpret_cast<const void*>(&" + kLibraryKernelPrefix +
         std::to_string(b) + ");\n";
  }
  t += "    default: return nullptr;\n  }\n}\n";
  return t;
}

}  // namespace layoutscope::codegen
