#include "access_kernel.hpp"

#include <algorithm>
#include <sstream>

#include "layoutscope/memory_access.hpp"

namespace layoutscope::codegen {
namespace {

int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

bool is_matrix(Op op) { return op == Op::kLdmatrix || op == Op::kStmatrix; }

Error plan_error(const std::string& message, const std::string& field) {
  return make_error(message, 0, field);
}

// Byte offsets of the lanes' first elements through `layout`, kIdleOffset for idle lanes.
Result<std::vector<int32_t>> byte_offsets(const Layout& layout, const WarpAccess& a, int elem) {
  std::vector<int32_t> out;
  out.reserve(a.lanes.size() * kWarpLanes);
  for (size_t i = 0; i < a.lanes.size(); ++i) {
    const auto& lanes = a.lanes[i];
    if (lanes.size() != static_cast<size_t>(kWarpLanes)) {
      return plan_error(
          "instruction " + std::to_string(i) + " has " + std::to_string(lanes.size()) + " lanes, not 32",
          "lanes");
    }
    std::vector<int64_t> active;
    for (int64_t x : lanes)
      if (x != kIdleLane) active.push_back(x);
    auto addrs = lane_addresses(layout, a.shape, active, elem);
    if (!addrs) return addrs.error();
    size_t k = 0;
    for (int64_t x : lanes) {
      if (x == kIdleLane) {
        out.push_back(kIdleOffset);
        continue;
      }
      const int64_t b = (*addrs)[k++];
      if (b < 0 || b > int64_t{1} << 30) {
        return plan_error(
            "instruction " + std::to_string(i) + " reaches byte " + std::to_string(b) + ", outside any tile",
            "layout");
      }
      out.push_back(static_cast<int32_t>(b));
    }
  }
  return out;
}

std::string ptx_vector(int words, int first) {
  std::string s = "{";
  for (int w = 0; w < words; ++w) s += (w ? ", %" : "%") + std::to_string(first + w);
  return s + "}";
}

std::string reg_list(const char* prefix, int words) {
  std::string s;
  for (int w = 0; w < words; ++w) s += (w ? ", " : "") + std::string(prefix) + std::to_string(w);
  return s;
}

// "=r"(r0), "=r"(r1) ... or "r"(v0) ...
std::string constraints(const char* kind, const char* prefix, int words) {
  std::string s;
  for (int w = 0; w < words; ++w)
    s += (w ? ", " : "") + std::string("\"") + kind + "\"(" + prefix + std::to_string(w) + ")";
  return s;
}

// The value stored in word w, spelled in CUDA C exactly as stored_word() computes it.
std::string stored_expr(int w) {
  return "((unsigned)((i * 32 + lane) * 4 + " + std::to_string(w + 1) + ") * 2654435761u)";
}

// Which lane's row and which byte of it register word `word` of lane t covers, for ldmatrix/stmatrix (the
// PTX ISA's m8n8 .b16 fragment: thread t holds row t / 4, elements 2 (t % 4) and 2 (t % 4) + 1 of matrix
// `word`; with .trans the same of the transposed matrix, so its two halves come from rows 2 (t % 4) and
// 2 (t % 4) + 1, column t / 4). Returns {row lane, byte} for each of the two b16 halves.
struct Half {
  int lane;
  int byte;
};
std::pair<Half, Half> fragment_halves(bool trans, int word, int t) {
  if (!trans) {
    const int row = 8 * word + t / 4, byte = 4 * (t % 4);
    return {{row, byte}, {row, byte + 2}};
  }
  const int row = 8 * word + 2 * (t % 4), byte = 2 * (t / 4);
  return {{row, byte}, {row + 1, byte}};
}

}  // namespace

uint32_t stored_word(int64_t instruction, int lane, int word) {
  return static_cast<uint32_t>((instruction * 32 + lane) * 4 + word + 1) * 2654435761u;
}

Result<AccessPlan> plan_access(const WarpAccess& a) {
  if (auto e = check_instruction(a.instr)) return *e;
  const Op op = a.instr.op;
  if (op == Op::kTma) {
    return plan_error(
        "the lab runs instructions a warp issues lane by lane (LDG, STG, LDS, STS, ldmatrix, stmatrix, "
        "cp.async); " +
            to_string(a.instr) + " is not one",
        "instr");
  }
  const bool global = space(op) == Space::kGlobal;
  // cost() checks what the engine can check (widths, rows, alignment); the lab runs only what it accepts.
  if (auto c = cost(a); !c) return c.error();
  AccessPlan p;
  p.instr = a.instr;
  p.dtype = a.dtype;
  p.instructions = static_cast<int64_t>(a.lanes.size());
  const int elem = dtype_bytes(a.dtype);
  auto offsets = byte_offsets(a.layout, a, elem);
  if (!offsets) return offsets.error();
  p.offsets = std::move(*offsets);
  int64_t top = 0;
  for (size_t k = 0; k < p.offsets.size(); ++k) {
    const int32_t o = p.offsets[k];
    if (o == kIdleOffset) {
      if (is_matrix(op) && static_cast<int>(k % kWarpLanes) < lanes_per_instruction(a.instr)) {
        return plan_error("instruction " + std::to_string(k / kWarpLanes) + ", lane " +
                              std::to_string(k % kWarpLanes) + " is idle but names a row of a matrix",
                          "lanes");
      }
      continue;
    }
    top = std::max<int64_t>(top, o + a.instr.bytes);
  }
  p.tile_bytes = round_up(std::max<int64_t>(top, 128), 128);
  if (global && p.instructions > kMaxGlobalInstructions) {
    return plan_error("the access issues " + std::to_string(p.instructions) +
                          " instructions; a global access runs " + "at most " +
                          std::to_string(kMaxGlobalInstructions) +
                          " (its lanes' offsets live in 64 KiB of constant memory)",
                      "shape");
  }
  const int64_t limit = global ? kMaxGlobalAccessBytes : kMaxAccessTileBytes;
  if (p.tile_bytes > limit) {
    return plan_error("the tile reaches byte " + std::to_string(top) + "; the lab's " +
                          (global ? "global buffer" : "shared tile") + " holds " + std::to_string(limit),
                      "shape");
  }
  if (op == Op::kCpAsync) {
    const Layout source = a.source ? *a.source : [&] {
      // Dense row-major over the shape: the source a cp.async copy usually reads.
      int64_t rows = 1;
      for (size_t d = 0; d + 1 < a.shape.size(); ++d) rows *= a.shape[d];
      return tile_layout(rows, a.shape.back(), a.shape.back());
    }();
    auto src = byte_offsets(source, a, elem);
    if (!src) return src.error();
    p.source_offsets = std::move(*src);
    int64_t stop = 0;
    for (int32_t o : p.source_offsets)
      if (o != kIdleOffset) stop = std::max<int64_t>(stop, o + a.instr.bytes);
    p.source_bytes = round_up(std::max<int64_t>(stop, 16), 16);
  }
  if (op == Op::kLds) p.words_per_lane = a.instr.bytes / 4;
  if (op == Op::kLdg) p.words_per_lane = std::max(1, a.instr.bytes / 4);
  if (op == Op::kLdmatrix) p.words_per_lane = a.instr.matrices;
  return p;
}

int64_t access_register_words(const AccessPlan& p) { return p.instructions * kWarpLanes * p.words_per_lane; }
int64_t access_tile_out_bytes(const AccessPlan& p) { return p.loads() ? 0 : p.tile_bytes; }

namespace {

// LDG / STG: the lanes' offsets live in a __constant__ array (kAccessOffsetsSymbol), read through the
// constant cache, so that the measured instruction is the kernel's only global load (LDG) or only global
// store (STG): an LDG's registers leave by STG, which its counters (op ld) do not see, and an STG needs no
// load. (Staging the offsets through shared memory with cp.async would not do: ldgsts traffic counts as
// global op ld too.)
KernelSource global_kernel_source(const AccessPlan& p) {
  KernelSource k;
  k.name = kAccessKernelName;
  k.threads = kWarpLanes;
  k.blocks = 1;
  k.shared_bytes = 0;
  const bool load = p.instr.op == Op::kLdg;
  const int bytes = p.instr.bytes;
  const int words = std::max(1, bytes / 4);
  // PTX lets ld/st move a narrow type through a 32-bit register (zero-extended on load, truncated on store).
  const std::string type = bytes == 1 ? ".u8" : bytes == 2 ? ".u16" : ".u32";
  const char* v = words == 1 ? "" : words == 2 ? ".v2" : ".v4";
  std::ostringstream o;
  o << "// layoutscope warp access: " << p.instructions << " x " << to_string(p.instr) << " on a "
    << p.tile_bytes << " B global buffer\n"
    << "extern \"C\" {\n"
    << "__constant__ int " << kAccessOffsetsSymbol << "[" << p.instructions * kWarpLanes << "];\n"
    << "}\n"
    << "extern \"C\" __global__ void __launch_bounds__(32) " << k.name
    << "(const int* __restrict__ offsets, const int* __restrict__ source_offsets,\n"
    << "    const unsigned char* __restrict__ in, unsigned* __restrict__ regs, unsigned char* __restrict__ "
       "tile_out) {\n"
    << "  const int lane = threadIdx.x;\n"
    << "#pragma unroll 1\n"
    << "  for (int i = 0; i < " << p.instructions << "; ++i) {\n"
    << "    const int off = " << kAccessOffsetsSymbol << "[i * 32 + lane];\n"
    << "    if (off >= 0) {\n";
  if (load) {
    o << "      unsigned " << reg_list("r", words) << ";\n"
      << "      asm volatile(\"ld.global" << v << type << " " << (words == 1 ? "%0" : ptx_vector(words, 0))
      << ", [%" << words << "];\" : " << constraints("=r", "r", words)
      << " : \"l\"(in + off) : \"memory\");\n";
    for (int w = 0; w < words; ++w)
      o << "      regs[(i * 32 + lane) * " << words << " + " << w << "] = r" << w << ";\n";
  } else {
    for (int w = 0; w < words; ++w) o << "      const unsigned v" << w << " = " << stored_expr(w) << ";\n";
    o << "      asm volatile(\"st.global" << v << type << " [%0], "
      << (words == 1 ? "%1" : ptx_vector(words, 1)) << ";\" :: \"l\"(tile_out + off), "
      << constraints("r", "v", words) << " : \"memory\");\n";
  }
  o << "    }\n"
    << "  }\n"
    << "}\n";
  k.text = o.str();
  k.hash = source_hash(k.text);
  return k;
}

}  // namespace

KernelSource access_kernel_source(const AccessPlan& p) {
  if (space(p.instr.op) == Space::kGlobal) return global_kernel_source(p);
  KernelSource k;
  k.name = kAccessKernelName;
  k.threads = kWarpLanes;
  k.blocks = 1;
  k.shared_bytes = p.tile_bytes;
  const Op op = p.instr.op;
  const int words = is_matrix(op) ? p.instr.matrices : p.instr.bytes / 4;
  const std::string T = std::to_string(p.tile_bytes);
  std::ostringstream o;
  o << "// layoutscope warp access: " << p.instructions << " x " << to_string(p.instr) << " on a " << T
    << " B shared tile\n"
    << "__device__ __forceinline__ unsigned smem_addr(const void* p) {\n"
    << "  unsigned a;\n"
    << "  asm(\"{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }\" : \"=r\"(a) : \"l\"(p));\n"
    << "  return a;\n"
    << "}\n"
    << "extern \"C\" __global__ void __launch_bounds__(32) " << k.name
    << "(const int* __restrict__ offsets, const int* __restrict__ source_offsets,\n"
    << "    const unsigned char* __restrict__ in, unsigned* __restrict__ regs, unsigned char* __restrict__ "
       "tile_out) {\n"
    << "  __shared__ __align__(128) unsigned char tile[" << T << "];\n"
    << "  const int lane = threadIdx.x;\n";
  if (p.loads()) {
    o << "  for (int b = lane * 4; b < " << T << "; b += 128)\n"
      << "    *reinterpret_cast<unsigned*>(tile + b) = *reinterpret_cast<const unsigned*>(in + b);\n"
      << "  __syncwarp();\n";
  }
  o << "#pragma unroll 1\n"
    << "  for (int i = 0; i < " << p.instructions << "; ++i) {\n"
    << "    const int off = offsets[i * 32 + lane];\n";
  switch (op) {
    case Op::kLds: {
      const char* v = words == 1 ? "" : words == 2 ? ".v2" : ".v4";
      o << "    if (off >= 0) {\n"
        << "      unsigned " << reg_list("r", words) << ";\n"
        << "      asm volatile(\"ld.shared" << v << ".u32 " << (words == 1 ? "%0" : ptx_vector(words, 0))
        << ", ["
        << "%" << words << "];\" : " << constraints("=r", "r", words) << " : \"r\"(smem_addr(tile + off)) : "
        << "\"memory\");\n";
      for (int w = 0; w < words; ++w)
        o << "      regs[(i * 32 + lane) * " << words << " + " << w << "] = r" << w << ";\n";
      o << "    }\n";
      break;
    }
    case Op::kSts: {
      const char* v = words == 1 ? "" : words == 2 ? ".v2" : ".v4";
      o << "    if (off >= 0) {\n";
      for (int w = 0; w < words; ++w) o << "      const unsigned v" << w << " = " << stored_expr(w) << ";\n";
      o << "      asm volatile(\"st.shared" << v << ".u32 [%0], "
        << (words == 1 ? "%1" : ptx_vector(words, 1)) << ";\" :: \"r\"(smem_addr(tile + off)), "
        << constraints("r", "v", words) << " : \"memory\");\n"
        << "    }\n";
      break;
    }
    case Op::kLdmatrix: {
      o << "    unsigned " << reg_list("r", words) << ";\n"
        << "    asm volatile(\"ldmatrix.sync.aligned.m8n8.x" << words << (p.instr.trans ? ".trans" : "")
        << ".shared.b16 " << ptx_vector(words, 0) << ", [%" << words
        << "];\" : " << constraints("=r", "r", words)
        << " : \"r\"(smem_addr(tile + (off >= 0 ? off : 0))) : \"memory\");\n";
      for (int w = 0; w < words; ++w)
        o << "    regs[(i * 32 + lane) * " << words << " + " << w << "] = r" << w << ";\n";
      break;
    }
    case Op::kStmatrix: {
      for (int w = 0; w < words; ++w) o << "    const unsigned v" << w << " = " << stored_expr(w) << ";\n";
      o << "    asm volatile(\"stmatrix.sync.aligned.m8n8.x" << words << (p.instr.trans ? ".trans" : "")
        << ".shared.b16 [%0], " << ptx_vector(words, 1)
        << ";\" :: \"r\"(smem_addr(tile + (off >= 0 ? off : 0))), " << constraints("r", "v", words)
        << " : \"memory\");\n";
      break;
    }
    case Op::kCpAsync: {
      o << "    if (off >= 0)\n"
        << "      asm volatile(\"cp.async." << (p.instr.bytes == 16 ? "cg" : "ca")
        << ".shared.global [%0], [%1], " << p.instr.bytes
        << ";\" :: \"r\"(smem_addr(tile + off)), \"l\"(in + source_offsets[i * 32 + lane]) : "
        << "\"memory\");\n";
      break;
    }
    default:
      break;
  }
  o << "  }\n";
  if (op == Op::kCpAsync) o << "  asm volatile(\"cp.async.wait_all;\" ::: \"memory\");\n";
  if (!p.loads()) {
    o << "  __syncwarp();\n"
      << "  for (int b = lane * 4; b < " << T << "; b += 128)\n"
      << "    *reinterpret_cast<unsigned*>(tile_out + b) = *reinterpret_cast<const unsigned*>(tile + b);\n";
  }
  o << "}\n";
  k.text = o.str();
  k.hash = source_hash(k.text);
  return k;
}

AccessRun run_access_on_host(const AccessPlan& p, std::span<const uint8_t> in) {
  AccessRun r;
  const Op op = p.instr.op;
  const int bytes = p.instr.bytes;
  auto in_byte = [&](int64_t b) -> uint8_t {
    return b >= 0 && b < static_cast<int64_t>(in.size()) ? in[b] : 0;
  };
  r.regs.assign(static_cast<size_t>(access_register_words(p)), 0);
  r.tile.assign(static_cast<size_t>(access_tile_out_bytes(p)), 0);
  r.written.assign(r.tile.size(), 0);
  // Stores: a byte two lanes of one instruction write with different values is undefined, so unchecked.
  std::vector<int64_t> last_writer(r.tile.size(), -1);
  auto store = [&](int64_t i, int64_t b, uint8_t v) {
    if (b < 0 || b >= static_cast<int64_t>(r.tile.size())) return;
    if (last_writer[b] == i && r.tile[b] != v) {
      r.written[b] = 0;
      return;
    }
    if (last_writer[b] == i && !r.written[b]) return;
    r.tile[b] = v;
    r.written[b] = 1;
    last_writer[b] = i;
  };
  for (int64_t i = 0; i < p.instructions; ++i) {
    const int32_t* off = p.offsets.data() + i * kWarpLanes;
    for (int t = 0; t < kWarpLanes; ++t) {
      switch (op) {
        case Op::kLdg:
          if (off[t] == kIdleOffset) break;
          for (int w = 0; w < p.words_per_lane; ++w) {
            uint32_t v = 0;
            for (int b = 0; b < std::min(4, bytes); ++b)
              v |= uint32_t{in_byte(off[t] + 4 * w + b)} << (8 * b);
            r.regs[(i * kWarpLanes + t) * p.words_per_lane + w] = v;
          }
          break;
        case Op::kStg:
          if (off[t] == kIdleOffset) break;
          for (int w = 0; w < std::max(1, bytes / 4); ++w) {
            const uint32_t v = stored_word(i, t, w);
            for (int b = 0; b < std::min(4, bytes); ++b)
              store(i, off[t] + 4 * w + b, static_cast<uint8_t>(v >> (8 * b)));
          }
          break;
        case Op::kLds:
          if (off[t] == kIdleOffset) break;
          for (int w = 0; w < p.words_per_lane; ++w) {
            uint32_t v = 0;
            for (int b = 0; b < 4; ++b) v |= uint32_t{in_byte(off[t] + 4 * w + b)} << (8 * b);
            r.regs[(i * kWarpLanes + t) * p.words_per_lane + w] = v;
          }
          break;
        case Op::kSts:
          if (off[t] == kIdleOffset) break;
          for (int w = 0; w < bytes / 4; ++w) {
            const uint32_t v = stored_word(i, t, w);
            for (int b = 0; b < 4; ++b) store(i, off[t] + 4 * w + b, static_cast<uint8_t>(v >> (8 * b)));
          }
          break;
        case Op::kLdmatrix:
          for (int w = 0; w < p.instr.matrices; ++w) {
            const auto [lo, hi] = fragment_halves(p.instr.trans, w, t);
            const int64_t a = off[lo.lane] + lo.byte, b = off[hi.lane] + hi.byte;
            r.regs[(i * kWarpLanes + t) * p.words_per_lane + w] =
                uint32_t{in_byte(a)} | uint32_t{in_byte(a + 1)} << 8 | uint32_t{in_byte(b)} << 16 |
                uint32_t{in_byte(b + 1)} << 24;
          }
          break;
        case Op::kStmatrix:
          for (int w = 0; w < p.instr.matrices; ++w) {
            const auto [lo, hi] = fragment_halves(p.instr.trans, w, t);
            const uint32_t v = stored_word(i, t, w);
            store(i, off[lo.lane] + lo.byte, static_cast<uint8_t>(v));
            store(i, off[lo.lane] + lo.byte + 1, static_cast<uint8_t>(v >> 8));
            store(i, off[hi.lane] + hi.byte, static_cast<uint8_t>(v >> 16));
            store(i, off[hi.lane] + hi.byte + 1, static_cast<uint8_t>(v >> 24));
          }
          break;
        case Op::kCpAsync:
          if (off[t] == kIdleOffset) break;
          for (int b = 0; b < bytes; ++b)
            store(i, off[t] + b, in_byte(p.source_offsets[i * kWarpLanes + t] + b));
          break;
        default:
          break;
      }
    }
  }
  return r;
}

std::optional<std::string> check_access(const AccessPlan& p, std::span<const uint8_t> in,
                                        std::span<const uint32_t> regs, std::span<const uint8_t> tile) {
  const AccessRun want = run_access_on_host(p, in);
  if (regs.size() != want.regs.size() || tile.size() != want.tile.size()) {
    return "the run returned " + std::to_string(regs.size()) + " register words and " +
           std::to_string(tile.size()) + " tile bytes; the access defines " +
           std::to_string(want.regs.size()) + " and " + std::to_string(want.tile.size());
  }
  const int wpl = std::max(p.words_per_lane, 1);
  for (size_t k = 0; k < regs.size(); ++k) {
    if (regs[k] == want.regs[k]) continue;
    std::ostringstream o;
    o << "instruction " << k / (kWarpLanes * wpl) << ", lane " << (k / wpl) % kWarpLanes << ", register "
      << k % wpl << ": read 0x" << std::hex << regs[k] << ", the tile holds 0x" << want.regs[k] << " there";
    return o.str();
  }
  for (size_t b = 0; b < tile.size(); ++b) {
    if (!want.written[b] || tile[b] == want.tile[b]) continue;
    std::ostringstream o;
    o << (space(p.instr.op) == Space::kGlobal ? "global byte " : "shared byte ") << b << ": holds 0x"
      << std::hex << int{tile[b]} << ", the access wrote 0x" << int{want.tile[b]};
    return o.str();
  }
  return std::nullopt;
}

}  // namespace layoutscope::codegen
