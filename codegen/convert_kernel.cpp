#include "convert_kernel.hpp"

#include <algorithm>
#include <functional>
#include <sstream>
#include <vector>

namespace layoutscope::codegen {
namespace {

constexpr int kIlp = 4;  // vectors per thread in the vector kernel: loads in flight before the first store
// Windows per thread in the unaligned vector kernel. Each window holds two aligned words and their shift
// (about 12 registers): four a thread made fewer warps an SM than the loads needed in flight. Measured on an
// H100 (fraction of a copy, same call, three runs each), (64, 6, 197, 197) u8 heads swapped: four 0.79-0.80,
// two 0.83, eight 0.69-0.70.
constexpr int kUnalignedIlp = 2;

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

// The integer type of the generated index arithmetic. 32-bit unsigned where every byte offset on both sides
// fits in 31 bits (a 256 MiB tensor does): a division by a constant is then one 32-bit multiply-high, not a
// 64-bit sequence, which makes the kernel shorter to run and, for the many-mode plans, to compile. 64-bit
// otherwise (and for a negative stride).
struct Index {
  bool narrow = false;
  const char* type() const { return narrow ? "unsigned" : "long long"; }
  std::string operator()(int64_t v) const { return std::to_string(v) + (narrow ? "u" : "LL"); }
};

Index index_of(const ConvertPlan& p) {
  int64_t src_max = 0, dst_max = 0;
  for (const ConvertMode& m : p.modes) {
    if (m.src_stride < 0 || m.dst_stride < 0) return {false};
    src_max += (m.extent - 1) * m.src_stride;
    dst_max += (m.extent - 1) * m.dst_stride;
  }
  const int64_t limit = int64_t{1} << 31;
  const int64_t vec = std::max<int64_t>(p.vector_units, 1);
  // An offset or a swizzle moves the largest element a side reaches.
  const int64_t reach = std::max(source_extent(p), p.elements + p.dst_offset);
  return {(src_max + vec) * p.unit_bytes < limit && (dst_max + vec) * p.unit_bytes < limit &&
          (p.elements + 1) * p.elem_bytes < limit && p.blocks < limit && reach * p.elem_bytes < limit};
}

// Whether a side is offset or swizzled: its element offsets then go through src_at / dst_at.
bool mapped(const ConvertPlan& p, bool src) {
  return src ? p.src_offset != 0 || p.src_swizzle.bits > 0 : p.dst_offset != 0 || p.dst_swizzle.bits > 0;
}

// Byte offset into `in` (src) or `out` of the plan's element offset `e` (an expression): e * element size,
// through the side's map where it has one.
std::string side_bytes(const ConvertPlan& p, bool src, const std::string& e) {
  if (!mapped(p, src)) return "(" + e + ") * " + std::to_string(p.elem_bytes);
  return std::string(src ? "src_at(" : "dst_at(") + e + ") * " + std::to_string(p.elem_bytes);
}

// src_at / dst_at: the engine's side_element, e + offset through the side's swizzle.
std::string side_functions(const ConvertPlan& p, const Index& ll) {
  std::ostringstream o;
  for (bool src : {true, false}) {
    if (!mapped(p, src)) continue;
    const Swizzle& s = src ? p.src_swizzle : p.dst_swizzle;
    const int64_t off = src ? p.src_offset : p.dst_offset;
    o << "__device__ __forceinline__ " << ll.type() << " " << (src ? "src_at" : "dst_at") << "(" << ll.type()
      << " e) {\n";
    if (off != 0) o << "  e += " << ll(off) << ";\n";
    if (s.bits > 0) {
      const int64_t mask = (int64_t{1} << s.bits) - 1;
      const int from = s.inner ? s.base + s.shift : s.base, to = s.inner ? s.base : s.base + s.shift;
      o << "  e ^= ((e >> " << from << ") & " << ll(mask) << ") << " << to << ";\n";
    }
    o << "  return e;\n}\n";
  }
  return o.str();
}

// Byte offset o in the staging tile, swizzled as the plan says: the engine's swizzle term, written out.
std::string swizzled(const Swizzle& s, const std::string& o) {
  const SwizzleTerm t = swizzle_term(s);
  if (t.mask == 0) return "(" + o + ")";
  return "((" + o + ") ^ ((((" + o + ") >> " + std::to_string(t.read_shift) + ") & " +
         std::to_string(t.mask) + ") << " + std::to_string(t.write_shift) + "))";
}

// __byte_perm selectors that take half word h (0: low, 1: high) of each of two words: the low half of the
// result from the first word, the high half from the second.
constexpr const char* kHalfWord[2] = {"0x5410u", "0x7632u"};

using Expr = std::function<std::string(int)>;

// The head and the end of the loop `for (int var = first; var < limit; var += step)`, where `first` is at
// most first_max. A loop that no thread makes twice (limit <= step) is written as a block that `continue` and
// `break` still leave, `do { const int var = first; ... } while (0)`, testing the limit only where some
// thread starts past it: NVRTC took a third longer over a tiled kernel whose load pass was a loop of one
// trip, the kernel no faster (docs/results/h200-convert.md).
struct Loop {
  std::string head, end;
};

Loop pass_loop(const std::string& var, const std::string& first, int64_t first_max, int64_t limit,
               int64_t step, bool unroll_1) {
  const std::string lim = std::to_string(limit);
  if (limit <= step) {
    return {"  do {\n    const int " + var + " = " + first + ";\n" +
                (first_max >= limit ? "    if (" + var + " >= " + lim + ") break;\n" : ""),
            "  } while (0);\n"};
  }
  return {std::string(unroll_1 ? "#pragma unroll 1\n" : "") + "  for (int " + var + " = " + first + "; " +
              var + " < " + lim + "; " + var + " += " + std::to_string(step) + ") {\n",
          "  }\n"};
}

// A pass of the block's threads over `items` work items, item t first at threadIdx.x.
Loop thread_loop(const ConvertPlan& p, int64_t items, bool unroll_1) {
  return pass_loop("t", "threadIdx.x", p.threads - 1, items, p.threads, unroll_1);
}

// A 4 x 4 byte block transposed in eight PRMTs (interleave row pairs, then take half words): w(b) = byte b of
// r(0), r(1), r(2), r(3), two PRMTs per word instead of three.
void emit_byte_block(std::ostringstream& o, const std::string& indent, const Expr& r, const Expr& w) {
  o << indent << "{ const unsigned t0 = __byte_perm(" << r(0) << ", " << r(1)
    << ", 0x5140u), t1 = __byte_perm(" << r(0) << ", " << r(1) << ", 0x7362u);\n"
    << indent << "  const unsigned t2 = __byte_perm(" << r(2) << ", " << r(3)
    << ", 0x5140u), t3 = __byte_perm(" << r(2) << ", " << r(3) << ", 0x7362u);\n"
    << indent << "  " << w(0) << " = __byte_perm(t0, t2, " << kHalfWord[0] << "); " << w(1)
    << " = __byte_perm(t0, t2, " << kHalfWord[1] << ");\n"
    << indent << "  " << w(2) << " = __byte_perm(t1, t3, " << kHalfWord[0] << "); " << w(3)
    << " = __byte_perm(t1, t3, " << kHalfWord[1] << "); }\n";
}

// w[j] = unit j of every r[k]: the V x V register block transposed, as explicit word moves or byte permutes.
// Bytes go in 4 x 4 blocks: rows 4q..4q+3 of source word s give word q of w[4s..4s+3].
void emit_transpose(std::ostringstream& o, const Access& acc, int v, int unit_bytes) {
  const int words = acc.words;
  if (unit_bytes == 1) {
    for (int q = 0; q < words; ++q) {
      for (int s = 0; s < words; ++s) {
        emit_byte_block(
            o, "    ", [&](int k) { return acc.word("r[" + std::to_string(4 * q + k) + "]", s); },
            [&](int b) { return acc.word("w[" + std::to_string(4 * s + b) + "]", q); });
      }
    }
    return;
  }
  for (int j = 0; j < v; ++j) {
    for (int q = 0; q < words; ++q) {
      const std::string dst = acc.word("w[" + std::to_string(j) + "]", q);
      if (unit_bytes >= 4) {
        const int wpu = unit_bytes / 4, k = q / wpu, i = q % wpu;
        o << "    " << dst << " = " << acc.word("r[" + std::to_string(k) + "]", j * wpu + i) << ";\n";
      } else {
        const int src_word = j / 2;
        o << "    " << dst << " = __byte_perm(" << acc.word("r[" + std::to_string(2 * q) + "]", src_word)
          << ", " << acc.word("r[" + std::to_string(2 * q + 1) + "]", src_word) << ", " << kHalfWord[j % 2]
          << ");\n";
      }
    }
  }
}

// The same transpose for a block of 8 rows of 16 B of 2-byte units, one 32-bit word column of the rows at a
// time: column c of the rows gives the two output rows that word c covers, each stored as soon as it is
// complete; then every row turns by one word so that the next column comes first. A loop of 4 such steps is a
// quarter of the code of the unrolled transpose (a shorter first NVRTC compile) with the same loads in
// flight and the same 16 B stores.
void emit_transpose_by_columns(std::ostringstream& o, int v,
                               const std::function<std::string(const std::string&)>& column_at) {
  const char* xyzw = "xyzw";
  o << "#pragma unroll 1\n"
    << "    for (int c = 0; c < 4; ++c) {\n"
    << "      vec_t w0, w1;\n";
  for (int q = 0; q < 4; ++q) {
    // Output row h takes half word h of rows 2q and 2q+1.
    auto half = [&](int h) {
      return "__byte_perm(r[" + std::to_string(2 * q) + "].x, r[" + std::to_string(2 * q + 1) + "].x, " +
             kHalfWord[h] + ")";
    };
    o << "      w0." << xyzw[q] << " = " << half(0) << "; w1." << xyzw[q] << " = " << half(1) << ";\n";
  }
  for (int b = 0; b < 2; ++b)
    o << "      " << column_at("2 * c + " + std::to_string(b)) << " = w" << b << ";\n";
  o << "#pragma unroll\n"
    << "      for (int k = 0; k < " << v << "; ++k) r[k] = make_uint4(r[k].y, r[k].z, r[k].w, r[k].x);\n"
    << "    }\n";
}

// A block of 4 rows of 16 B of 1-byte units: word s of the rows is the 4 x 4 byte block of columns 4s ..
// 4s+3, each column (the 4 rows' bytes) one 4 B word stored into the tile.
void emit_byte_columns(std::ostringstream& o, const std::function<std::string(int)>& column_at) {
  for (int s = 0; s < 4; ++s) {
    emit_byte_block(
        o, "    ", [&](int k) { return "r[" + std::to_string(k) + "]." + "xyzw"[s]; },
        [&](int b) { return column_at(4 * s + b); });
  }
}

// Source offset of index ia of group a and destination offset of index ib of group b, as the engine defines
// them (group_a_src, group_b_dst).
std::string group_functions(const ConvertPlan& p, const Index& ll) {
  std::ostringstream o;
  auto emit = [&](const char* name, const std::vector<int>& group, bool src) {
    o << "__device__ __forceinline__ " << ll.type() << " " << name << "(" << ll.type() << " i) {\n  "
      << ll.type() << " r = 0;\n";
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

// An unaligned plan's two helpers: bytes [o, o + 16) of the 32 bytes lo:hi (o < 16; words chosen by two
// selects on bits 3 and 2 of o, then a funnel shift by the byte offset), and the 16 B at p of any alignment
// from the aligned words that hold them, the second read only where one of the `valid` bytes from p lies in
// it (so no word without a byte of the row is touched).
std::string unaligned_functions() {
  return "__device__ __forceinline__ uint4 funnel16(uint4 lo, uint4 hi, unsigned o) {\n"
         "  const unsigned a[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};\n"
         "  unsigned b[6], w[5];\n"
         "#pragma unroll\n"
         "  for (int i = 0; i < 6; ++i) b[i] = (o & 8u) ? a[i + 2] : a[i];\n"
         "#pragma unroll\n"
         "  for (int i = 0; i < 5; ++i) w[i] = (o & 4u) ? b[i + 1] : b[i];\n"
         "  const unsigned s = (o & 3u) * 8u;\n"
         "  return make_uint4(__funnelshift_r(w[0], w[1], s), __funnelshift_r(w[1], w[2], s),\n"
         "                    __funnelshift_r(w[2], w[3], s), __funnelshift_r(w[3], w[4], s));\n"
         "}\n"
         "__device__ __forceinline__ uint4 load_unaligned(const unsigned char* p, unsigned valid) {\n"
         "  const unsigned o = (unsigned)((unsigned long long)p & 15ull);\n"
         "  const uint4* q = reinterpret_cast<const uint4*>(p - o);\n"
         "  const uint4 lo = __ldg(q);\n"
         "  const uint4 hi = o + valid > 16u ? __ldg(q + 1) : lo;\n"
         "  return funnel16(lo, hi, o);\n"
         "}\n";
}

// Word i (0-3) of a 16 B register, by three selects on its two bits (a dynamic index into the register
// would go through local memory, and a chain of comparisons compiles to branches).
std::string edge_functions() {
  return "__device__ __forceinline__ unsigned word_at(uint4 x, int i) {\n"
         "  const unsigned l = (i & 1) ? x.y : x.x, h = (i & 1) ? x.w : x.z;\n"
         "  return (i & 2) ? h : l;\n"
         "}\n";
}

// The conditions joined by &&, the empty ones left out ("" when none is left).
std::string conjunction(std::initializer_list<std::string> conditions) {
  std::string all;
  for (const std::string& c : conditions) {
    if (!c.empty()) all += (all.empty() ? "" : " && ") + c;
  }
  return all;
}

// The store pass's skip of a unit (ia, ib) outside the tensor, where a group's extent leaves a partial tile
// ("" when neither does).
std::string skip_outside(const ConvertPlan& p, const Index& ll, bool edge_a, bool edge_b) {
  if (!edge_a && !edge_b) return "";
  return "    if (" + (edge_a ? "ia >= " + ll(p.extent_a) : "") + (edge_a && edge_b ? " || " : "") +
         (edge_b ? "ib >= " + ll(p.extent_b) : "") + ") continue;\n";
}

// A unit wider than one access (32 B): each pass moves 16 B pieces, unit_lanes neighbouring threads per
// unit, no register transpose. The load pass keeps kWideInFlight loads per thread in flight before their
// shared stores (all of them unrolled took a third longer to compile, the kernel no faster).
constexpr int kWideInFlight = 4;

void emit_wide_passes(std::ostringstream& o, const ConvertPlan& p, const Index& ll, bool edge_a,
                      bool edge_b) {
  const int64_t ub = p.unit_bytes, lanes = p.unit_lanes, piece = access_bytes(p);
  const std::string I = ll.type();
  const int64_t load_items = p.tile_a * p.tile_b * lanes;
  const int64_t per_thread = (load_items + p.threads - 1) / p.threads;
  const int64_t in_flight = std::min<int64_t>(kWideInFlight, per_thread);
  const bool partial = load_items % p.threads != 0 || per_thread % in_flight != 0;
  // Thread item t: piece t % lanes of unit t / lanes; units along b fastest (the source's order).
  auto item = [&](const std::string& indent) {
    o << indent << "const int t = threadIdx.x + (i0 + i) * " << p.threads << ", piece = t % " << lanes
      << ", u = t / " << lanes << ", bb = u % " << p.tile_b << ", ba = u / " << p.tile_b << ";\n";
  };
  const Loop loads = pass_loop("i0", "0", 0, per_thread, in_flight, true);
  o << loads.head << "    vec_t r[" << in_flight << "];\n"
    << "#pragma unroll\n"
    << "    for (int i = 0; i < " << in_flight << "; ++i) {\n";
  item("      ");
  o << "      const " << I << " ia = a0 + ba, ib = b0 + bb;\n";
  const std::string ok =
      conjunction({partial ? "t < " + std::to_string(load_items) : "", edge_a ? "ia < " + ll(p.extent_a) : "",
                   edge_b ? "ib < " + ll(p.extent_b) : ""});
  const std::string load = "__ldg(reinterpret_cast<const vec_t*>(in + (src_base + group_a_src(ia) + ib) * " +
                           std::to_string(ub) + " + piece * " + std::to_string(piece) + "))";
  o << "      r[i] = " << (ok.empty() ? load : ok + " ? " + load + " : vec_t{}") << ";\n"
    << "    }\n"
    << "#pragma unroll\n"
    << "    for (int i = 0; i < " << in_flight << "; ++i) {\n";
  item("      ");
  if (partial) o << "      if (t >= " << load_items << ") break;\n";
  o << "      *reinterpret_cast<vec_t*>(tile + "
    << swizzled(p.staging, "bb * " + std::to_string(p.row_bytes) + " + ba * " + std::to_string(ub) +
                               " + piece * " + std::to_string(piece))
    << ") = r[i];\n"
    << "    }\n"
    << loads.end << "  __syncthreads();\n";
  // Store: pieces of the units along a fastest, then rows along b (the destination's order).
  const Loop stores = thread_loop(p, load_items, true);
  o << stores.head << "    const int piece = t % " << lanes << ", u = t / " << lanes << ", chunk = u % "
    << p.tile_a << ", row = u / " << p.tile_a << ";\n"
    << "    const " << I << " ia = a0 + chunk, ib = b0 + row;\n"
    << skip_outside(p, ll, edge_a, edge_b) << "    const vec_t x = *reinterpret_cast<const vec_t*>(tile + "
    << swizzled(p.staging, "row * " + std::to_string(p.row_bytes) + " + chunk * " + std::to_string(ub) +
                               " + piece * " + std::to_string(piece))
    << ");\n"
    << "    *reinterpret_cast<vec_t*>(out + (dst_base + ia + group_b_dst(ib)) * " << ub << " + piece * "
    << piece << ") = x;\n"
    << stores.end;
}

// A paired block (AoS -> SoA of 16 B records): the two lanes t and t^1 share block ba; lane m loads rows
// 2k+m (the pair reads whole 32 B sectors), keeps words 2m and 2m+1 of its rows, trades the other two with
// its mate (__shfl_xor_sync), and then holds that half of all V rows: its V/2 output rows, m * V/2 onwards.
// Every lane of the block runs the loop's shuffles; lanes past the tile load zeros and store nothing.
void emit_paired_loads(std::ostringstream& o, const ConvertPlan& p, const Index& ll, bool edge_a,
                       const std::function<std::string(const std::string&)>& tile_at) {
  const int v = p.vector_units, ub = p.unit_bytes, half = v / 2;
  const std::string I = ll.type();
  const ConvertMode& first = p.modes[p.group_a.front()];
  const int64_t items = p.tile_a / v * 2, iters = (items + p.threads - 1) / p.threads;
  const bool partial = items % p.threads != 0;
  const Loop blocks = pass_loop("i", "0", 0, iters, 1, true);
  o << blocks.head << "    const int t = threadIdx.x + i * " << p.threads
    << ", m = t & 1, ba = t >> 1, bb = 0;\n";
  if (partial) o << "    const bool live = t < " << items << ";\n";
  o << "    const " << I << " sa = src_base + group_a_src(a0 + ba * " << v << ") + b0;\n"
    << "    vec_t r[" << half << "];\n"
    << "#pragma unroll\n"
    << "    for (int k = 0; k < " << half << "; ++k) {\n";
  if (edge_a) o << "      const " << I << " ia = a0 + ba * " << v << " + 2 * k + m;\n";
  const std::string ok = conjunction({partial ? "live" : "", edge_a ? "ia < " + ll(p.extent_a) : ""});
  const std::string load = "__ldg(reinterpret_cast<const vec_t*>(in + (sa + (2 * k + m) * " +
                           ll(first.src_stride) + ") * " + std::to_string(ub) + "))";
  o << "      r[k] = " << (ok.empty() ? load : ok + " ? " + load + " : vec_t{}") << ";\n"
    << "    }\n"
    << "    unsigned e0[" << half << "], e1[" << half << "], d0[" << half << "], d1[" << half
    << "];  // words 2m, 2m+1 of the even rows (e) and the odd rows (d)\n"
    << "#pragma unroll\n"
    << "    for (int k = 0; k < " << half << "; ++k) {\n"
    << "      const unsigned s0 = m ? r[k].x : r[k].z, s1 = m ? r[k].y : r[k].w;\n"
    << "      const unsigned t0 = __shfl_xor_sync(0xffffffffu, s0, 1), t1 = __shfl_xor_sync(0xffffffffu, s1, "
       "1);\n"
    << "      const unsigned k0 = m ? r[k].z : r[k].x, k1 = m ? r[k].w : r[k].y;\n"
    << "      e0[k] = m ? t0 : k0; e1[k] = m ? t1 : k1; d0[k] = m ? k0 : t0; d1[k] = m ? k1 : t1;\n"
    << "    }\n";
  if (partial) o << "    if (!live) continue;\n";
  const char* xyzw = "xyzw";
  for (int j = 0; j < half; ++j) {
    o << "    { vec_t w;";
    for (int q = 0; q < 4; ++q) {
      o << " w." << xyzw[q] << " = ";
      if (ub == 2) {
        // Word q: unit j of rows 2q and 2q+1 (half word j % 2 of word j / 2 of the half).
        o << "__byte_perm(e" << j / 2 << "[" << q << "], d" << j / 2 << "[" << q << "], " << kHalfWord[j % 2]
          << ");";
      } else {
        // Word q: word (q % wpu) of unit j of row q / wpu.
        const int wpu = ub / 4, row = q / wpu, word = j * wpu + q % wpu;
        o << (row % 2 ? "d" : "e") << word << "[" << row / 2 << "];";
      }
    }
    o << "\n      " << tile_at("m * " + std::to_string(half) + " + " + std::to_string(j)) << " = w; }\n";
  }
  o << blocks.end;
}

// The bytes [b, e) of the 16 B register x stored at win + [b, e) as the engine's edge_stores pieces, one
// store each.
void emit_pieces(std::ostringstream& o, const std::string& indent, const std::string& win, int b, int e,
                 int unit) {
  const char* xyzw = "xyzw";
  for (const EdgeStore& s : edge_stores(b, e, unit)) {
    if (s.bytes == 0) continue;
    const int word = s.at / 4, bit = s.at % 4 * 8;
    const std::string w = std::string("x.") + xyzw[word];
    std::string type, value;
    switch (s.bytes) {
      case 8:
        // One 64-bit word: a uint2 of two words is a pair of 32-bit stores to the compiler, which it splits
        // where it cannot pair them (then the store costs a request more than the engine counts).
        type = "unsigned long long";
        value = std::string("(unsigned long long)x.") + xyzw[word + 1] + " << 32 | x." + xyzw[word];
        break;
      case 4:
        type = "unsigned";
        value = w;
        break;
      case 2:
        type = "unsigned short";
        value = "(unsigned short)(" + w + (bit ? " >> " + std::to_string(bit) : "") + ")";
        break;
      default:
        type = "unsigned char";
        value = "(unsigned char)(" + w + (bit ? " >> " + std::to_string(bit) : "") + ")";
    }
    o << indent << "*reinterpret_cast<" << type << "*>(" << win << " + " << s.at << ") = " << value << ";\n";
  }
}

// The store pass of an unaligned tile whose rows are 32 windows (the engine's warp_row_stores): warp w takes
// rows w, w + warps, ...; the row's shift, the same for the warp, picks a case with it as a constant.
void emit_warp_row_stores(std::ostringstream& o, const ConvertPlan& p, const Index& ll, bool edge_b) {
  const int v = p.vector_units, ub = static_cast<int>(p.unit_bytes);
  const std::string I = ll.type(), rb = std::to_string(p.row_bytes);
  // The lane's two chunks of the row: their places once, before the cases (the same in all of them), which
  // NVRTC's optimizer would otherwise simplify again in each.
  auto place = [&](const std::string& c) {
    return swizzled(p.staging, "row * " + rb + " + (" + c + ") * 16");
  };
  o << "  {\n    const int lane = threadIdx.x % 32;\n"
    << "#pragma unroll 1\n"
    << "    for (int row = threadIdx.x / 32; row < " << p.tile_b << "; row += " << p.threads / 32 << ") {\n"
    << "      const " << I << " ib = b0 + row;\n";
  if (edge_b) o << "      if (ib >= " << ll(p.extent_b) << ") break;\n";
  o << "      const " << I << " first = dst_base + a0 + group_b_dst(ib);\n"
    << "      unsigned char* const win = out + (first & ~" << ll(v - 1) << ") * " << ub << ";\n"
    << "      const vec_t* const c0 = reinterpret_cast<const vec_t*>(tile + " << place("lane") << ");\n"
    << "      const vec_t* const c1 = reinterpret_cast<const vec_t*>(tile + " << place("(lane + 1) & 31")
    << ");\n"
    << "      switch ((int)(first & " << ll(v - 1) << ")) {\n"
    << "        case 0: *reinterpret_cast<vec_t*>(win + lane * 16) = *c0; break;\n";
  for (int shift = 1; shift < v; ++shift) {
    o << "        case " << shift << ": {\n"
      << "          const vec_t x = funnel16(*c0, *c1, " << (v - shift) * ub << "u);\n"
      << "          if (lane < 31) {\n"
      << "            *reinterpret_cast<vec_t*>(win + (lane + 1) * 16) = x;\n"
      << "          } else {\n";
    emit_pieces(o, "            ", "win", shift * ub, 16, ub);
    emit_pieces(o, "            ", "win + 512", 0, shift * ub, ub);
    o << "          }\n"
      << "          break;\n"
      << "        }\n";
  }
  o << "      }\n    }\n  }\n";
}

// Whether an unaligned tile's rows start at byte offsets (mod 16) that the compiler can know: row k of every
// register block at k times its stride, as where the block's R rows times the stride, every other mode's
// stride and the columns' 16 B all are multiples of 16 B. The buffers start on 16 B (as cudaMalloc's do, and
// as the stores already assume), so the shifts are constants: no selects for a row's words, and a third
// fewer registers (the prime bf16 transpose: 74 -> 48, so 5 blocks an SM where 3 fitted).
bool constant_load_shifts(const ConvertPlan& p) {
  const int64_t ub = p.unit_bytes, r = p.block_rows;
  const ConvertMode& first = p.modes[p.group_a.front()];
  // Row k of a block is k strides on from its first only where the rows stay in the first mode.
  const bool linear = p.group_a.size() == 1 || first.extent % r == 0;
  if (p.src_offset != 0 || !linear || first.src_stride < 0 || r * first.src_stride * ub % 16 != 0)
    return false;
  auto aligned = [&](int i) { return p.modes[i].src_stride >= 0 && p.modes[i].src_stride * ub % 16 == 0; };
  for (size_t i = 1; i < p.group_a.size(); ++i)
    if (!aligned(p.group_a[i])) return false;
  for (int i : convert_batch_modes(p))
    if (!aligned(i)) return false;
  return true;
}

// The store passes of an unaligned plan (the engine's row_windows): first every row's body, window slot t %
// (tile_a / V) of row t / (tile_a / V), one aligned 16 B store shifted out of two 16 B chunks of the tile's
// row; then its two edges (the head and the tail), one thread each.
void emit_unaligned_stores(std::ostringstream& o, const ConvertPlan& p, const Index& ll, bool edge_a,
                           bool edge_b) {
  const int v = p.vector_units;
  const int64_t ub = p.unit_bytes, ca = p.tile_a / v;
  const std::string I = ll.type(), V = std::to_string(v), rb = std::to_string(p.row_bytes);
  const std::string units = edge_a ? "units" : std::to_string(p.tile_a);
  if (edge_a) {
    o << "  const int units = (int)(" << ll(p.extent_a) << " - a0 < " << ll(p.tile_a) << " ? "
      << ll(p.extent_a) << " - a0 : " << ll(p.tile_a) << ");\n";
  }
  if (warp_row_stores(p)) {
    // Where group a ends in a shorter tile, that tile's rows keep the passes below.
    if (edge_a) o << "  if (units == " << p.tile_a << ") {\n";
    emit_warp_row_stores(o, p, ll, edge_b);
    if (!edge_a) return;
    o << "    return;\n  }\n";
  }
  auto row_head = [&](const std::string& per_row) {
    o << "    const int row = t / " << per_row << ";\n"
      << "    const " << I << " ib = b0 + row;\n";
    if (edge_b) o << "    if (ib >= " << ll(p.extent_b) << ") continue;\n";
    o << "    const " << I << " first = dst_base + a0 + group_b_dst(ib);\n"
      << "    const int shift = (int)(first & " << ll(v - 1) << ");\n";
  };
  const Loop body = thread_loop(p, p.tile_b * ca, true);
  o << body.head;
  row_head(std::to_string(ca));
  o << "    const int k = t % " << ca << " + (shift != 0);\n"
    << "    if ((k + 1) * " << V << " - shift > " << units << ") continue;\n"
    << "    const vec_t lo = *reinterpret_cast<const vec_t*>(tile + "
    << swizzled(p.staging, "row * " + rb + " + (k - (shift != 0)) * 16") << ");\n"
    << "    const vec_t hi = *reinterpret_cast<const vec_t*>(tile + "
    << swizzled(p.staging, "row * " + rb + " + k * 16") << ");\n"
    << "    *reinterpret_cast<vec_t*>(out + (first - shift + k * " << V << ") * " << ub
    << ") = funnel16(lo, hi, shift != 0 ? (unsigned)(" << V << " - shift) * " << ub << "u : 0u);\n"
    << body.end;
  // The edges: one thread per row and end (t % 2: 0 the head, 1 the tail), each the part [b, e) of one
  // aligned window that the row fills (the head's window 0, the tail's window body_end), built like a body
  // window and stored as its aligned 1-8 B pieces (only those of at least a unit): upward from b while its
  // low bits are set (a piece of s bytes at b rounded up to s, where that has bit s and the piece ends by
  // e), then from where those stop (b1, the last such position not past e) the bits of e - b1, largest first.
  // Every piece's place follows from b and e alone, so the pieces are independent predicated stores: no
  // chain of branches, in which the row's two edge warps outlasted the rest of their blocks.
  const Loop edges = thread_loop(p, p.tile_b * 2, true);
  o << edges.head;
  row_head("2");
  o << "    const int head_end = min(shift != 0 ? " << V << " - shift : 0, " << units << ");\n"
    << "    const int body_end = max((" << units << " + shift) / " << V << ", shift != 0 ? 1 : 0);\n"
    << "    const int w = t % 2 == 0 ? 0 : body_end;\n"
    << "    const int lo = t % 2 == 0 ? 0 : max(body_end * " << V << " - shift, head_end);\n"
    << "    const int hi = t % 2 == 0 ? head_end : " << units << ";\n"
    << "    if (lo >= hi) continue;\n"
    << "    const int c1 = min(w, " << ca - 1 << "), c0 = max(shift != 0 ? w - 1 : w, 0);\n"
    << "    const vec_t x = funnel16(*reinterpret_cast<const vec_t*>(tile + "
    << swizzled(p.staging, "row * " + rb + " + c0 * 16") << "), *reinterpret_cast<const vec_t*>(tile + "
    << swizzled(p.staging, "row * " + rb + " + c1 * 16") << "), shift != 0 ? (unsigned)(" << V
    << " - shift) * " << ub << "u : 0u);\n"
    << "    unsigned char* const win = out + (first - shift + w * " << V << ") * " << ub << ";\n"
    << "    const int b = (lo - w * " << V << " + shift) * " << ub << ";\n"
    << "    const int e = (hi - w * " << V << " + shift) * " << ub << ";\n"
    << "    const int pa2 = (b + 1) & ~1, pa4 = (b + 3) & ~3, pa8 = (b + 7) & ~7, pa16 = (b + 15) & ~15;\n"
    << "    int b1 = b;\n"
    << "    b1 = pa2 <= e ? pa2 : b1;\n"
    << "    b1 = pa4 <= e ? pa4 : b1;\n"
    << "    b1 = pa8 <= e ? pa8 : b1;\n"
    << "    b1 = pa16 <= e ? pa16 : b1;\n"
    << "    const int len = e - b1, pd4 = b1 + (len & 8), pd2 = b1 + (len & 12), pd1 = b1 + (len & 14);\n";
  // Piece s: its type and its bytes of x at place `at`.
  auto type = [](int s) {
    return std::string(s == 1 ? "unsigned char" : s == 2 ? "unsigned short" : s == 4 ? "unsigned" : "uint2");
  };
  auto bytes_at = [](int s, const std::string& at) {
    switch (s) {
      case 8:
        return "(" + at + " == 0 ? make_uint2(x.x, x.y) : make_uint2(x.z, x.w))";
      case 4:
        return "word_at(x, " + at + " >> 2)";
      case 2:
        return "(unsigned short)(word_at(x, " + at + " >> 2) >> ((" + at + " & 2) * 8))";
      default:
        return "(unsigned char)(word_at(x, " + at + " >> 2) >> ((" + at + " & 3) * 8))";
    }
  };
  auto up = [](int s) { return s == 1 ? std::string("b") : "pa" + std::to_string(s); };
  auto down = [](int s) { return s == 8 ? std::string("b1") : "pd" + std::to_string(s); };
  for (int s = static_cast<int>(ub); s <= 8; s *= 2) {
    o << "    const " << type(s) << " va" << s << " = " << bytes_at(s, up(s)) << ", vd" << s << " = "
      << bytes_at(s, down(s)) << ";\n";
  }
  for (int s = static_cast<int>(ub); s <= 8; s *= 2) {
    o << "    if ((" << up(s) << " & " << s << ") != 0 && " << up(s) << " + " << s
      << " <= e) *reinterpret_cast<" << type(s) << "*>(win + " << up(s) << ") = va" << s << ";\n";
  }
  for (int s = 8; s >= ub; s /= 2) {
    o << "    if ((len & " << s << ") != 0) *reinterpret_cast<" << type(s) << "*>(win + " << down(s)
      << ") = vd" << s << ";\n";
  }
  o << edges.end;
}

// Register block t of the load pass (the engine's load_block): ba along a, bb along b; warps of warp_b x
// 32 / warp_b blocks where warp_b < nb.
void emit_block_index(std::ostringstream& o, const ConvertPlan& p, int64_t nb) {
  if (p.warp_b < nb) {
    const int64_t wb = p.warp_b, wa = 32 / wb, g = nb / wb;
    o << "    const int bb = t / 32 % " << g << " * " << wb << " + t % " << wb << ", ba = t / 32 / " << g
      << " * " << wa << " + t % 32 / " << wb << ";\n";
  } else {
    o << "    const int bb = t % " << nb << ", ba = t / " << nb << ";\n";
  }
}

// The load pass of a plan whose register blocks two threads share (`half_blocks`: R rows of 16 bytes):
// thread 2t + h takes the V / 2 units from V / 2 * h of block t's rows (8 bytes of each), each row from the
// aligned 8 B word that holds its first byte and the next one (only where the row's bytes reach into it),
// shifted into place; then its R rows x 8 B transposed into the block's columns V / 2 * h .. V / 2 * h +
// V / 2 - 1, R units each (the first column's offset swizzled once, each column a constant away:
// staging_column_offset). Bytes (R = 4): two 4 x 4 byte blocks, 4 B columns. 2 B units (R = 8): four
// columns of 16 B, each word two rows' units. 4 B units (R = 4): two columns of 16 B, each word a row's unit.
void emit_half_block_loads(std::ostringstream& o, const ConvertPlan& p, const Index& ll, bool edge_a,
                           bool edge_b) {
  const int v = p.vector_units, r = p.block_rows;
  const int64_t nb = p.tile_b / v, blocks = register_blocks(p), ub = p.unit_bytes;
  const std::string I = ll.type();
  o << "  do {\n    const int h = threadIdx.x & 1, t = threadIdx.x >> 1;\n";
  if (p.threads / 2 > blocks) o << "    if (t >= " << blocks << ") break;\n";
  emit_block_index(o, p, nb);
  o << "    const " << I << " ib = b0 + bb * " << v << " + h * " << v / 2 << ";\n";
  if (edge_b) o << "    if (ib >= " << ll(p.extent_b) << ") continue;\n";
  const ConvertMode& first = p.modes[p.group_a.front()];
  const bool one_base = first.extent % r == 0;
  if (one_base) o << "    const " << I << " sa = src_base + group_a_src(a0 + ba * " << r << ") + ib;\n";
  const std::string at =
      one_base ? "sa + k * " + ll(first.src_stride) : std::string("src_base + group_a_src(ia) + ib");
  // `valid`: the bytes of the thread's 8 that lie in the tensor (fewer at the end of group b).
  const std::string bytes = ub == 1 ? "" : " * " + std::to_string(ub) + "u";
  o << "    const unsigned valid = "
    << (p.extent_b % v != 0 ? "(unsigned)(ib + " + std::to_string(v / 2) + " <= " + ll(p.extent_b) + " ? " +
                                  std::to_string(v / 2) + "u : " + ll(p.extent_b) + " - ib)" + bytes
                            : std::to_string(v / 2 * ub) + "u")
    << ";\n"
    << "    uint2 lo[" << r << "], hi[" << r << "], r[" << r << "];\n"
    << "    unsigned sh[" << r << "];\n"
    << "#pragma unroll\n"
    << "    for (int k = 0; k < " << r << "; ++k) {\n";
  if (edge_a || !one_base) o << "      const " << I << " ia = a0 + ba * " << r << " + k;\n";
  o << "      const unsigned char* const p = in + (" << at << ")"
    << (ub == 1 ? "" : " * " + std::to_string(ub)) << ";\n"
    << "      sh[k] = (unsigned)((unsigned long long)p & 7ull);\n"
    << "      lo[k] = hi[k] = make_uint2(0u, 0u);\n";
  if (edge_a) o << "      if (ia >= " << ll(p.extent_a) << ") continue;\n";
  o << "      const uint2* const q = reinterpret_cast<const uint2*>(p - sh[k]);\n"
    << "      lo[k] = __ldg(q);\n"
    << "      if (sh[k] + valid > 8u) hi[k] = __ldg(q + 1);\n"
    << "    }\n"
    << "#pragma unroll\n"
    << "    for (int k = 0; k < " << r << "; ++k) {\n"
    << "      const bool f = (sh[k] & 4u) != 0;\n"
    << "      const unsigned w0 = f ? lo[k].y : lo[k].x, w1 = f ? hi[k].x : lo[k].y, w2 = f ? hi[k].y : "
       "hi[k].x;\n"
    << "      const unsigned s = (sh[k] & 3u) * 8u;\n"
    << "      r[k] = make_uint2(__funnelshift_r(w0, w1, s), __funnelshift_r(w1, w2, s));\n"
    << "    }\n";
  o << "    const unsigned so = "
    << swizzled(p.staging, "(bb * " + std::to_string(v) + " + h * " + std::to_string(v / 2) + ") * " +
                               std::to_string(p.row_bytes) + " + ba * " + std::to_string(r * ub))
    << ";\n";
  auto column = [&](const std::string& type, int j) {
    return "*reinterpret_cast<" + type + "*>(tile + (so ^ " + std::to_string(staging_column_offset(p, j)) +
           "))";
  };
  if (ub == 1) {
    for (int w = 0; w < 2; ++w) {
      emit_byte_block(
          o, "    ", [&](int k) { return "r[" + std::to_string(k) + "]." + "xy"[w]; },
          [&](int b) { return column("unsigned", 4 * w + b); });
    }
  } else {
    // Column j: unit j of each of the R rows, in word j * ub / 4 of the row's 8 bytes.
    for (int j = 0; j < v / 2; ++j) {
      const std::string half = std::string(".") + "xy"[j * ub / 4];
      std::string words[4];
      for (int q = 0; q < 4; ++q) {
        words[q] = ub == 4 ? "r[" + std::to_string(q) + "]" + half
                           : "__byte_perm(r[" + std::to_string(2 * q) + "]" + half + ", r[" +
                                 std::to_string(2 * q + 1) + "]" + half + ", " + kHalfWord[j % 2] + ")";
      }
      o << "    " << column("uint4", j) << " = make_uint4(" << words[0] << ", " << words[1] << ", "
        << words[2] << ", " << words[3] << ");\n";
    }
  }
  o << "  } while (0);\n";
}

void emit_tiled(std::ostringstream& o, const ConvertPlan& p, const Index& ll, KernelSource& k) {
  const int v = p.vector_units;
  const int64_t ub = p.unit_bytes;
  const Access acc = access_of(access_bytes(p));
  const int64_t tiles_a = (p.extent_a + p.tile_a - 1) / p.tile_a;
  const int64_t tiles_b = (p.extent_b + p.tile_b - 1) / p.tile_b;
  const int64_t nb = p.tile_b / v, ca = p.tile_a / v;
  const bool folded = p.run_a < p.tile_a;
  // Edge tiles exist only where a group's extent is not a multiple of its tile: only then the bounds tests.
  const bool edge_a = p.extent_a % p.tile_a != 0, edge_b = p.extent_b % p.tile_b != 0;
  const std::string I = ll.type();
  k.shared_bytes = p.staging_bytes;
  k.blocks = p.blocks;
  o << "  typedef " << acc.type << " vec_t;\n";
  o << "  __shared__ __align__(16) unsigned char tile[" << p.staging_bytes << "];\n";
  o << "  " << I << " blk = blockIdx.x;\n"
    << "  const " << I << " a0 = (blk % " << ll(tiles_a) << ") * " << ll(p.tile_a) << ";\n"
    << "  blk /= " << ll(tiles_a) << ";\n"
    << "  const " << I << " b0 = (blk % " << ll(tiles_b) << ") * " << ll(p.tile_b) << ";\n"
    << "  blk /= " << ll(tiles_b) << ";\n"
    << "  " << I << " src_base = 0, dst_base = 0;\n";
  for (int i : convert_batch_modes(p)) {
    const ConvertMode& m = p.modes[i];
    o << "  { const " << I << " d = blk % " << ll(m.extent) << "; blk /= " << ll(m.extent)
      << "; src_base += d * " << ll(m.src_stride) << "; dst_base += d * " << ll(m.dst_stride) << "; }\n";
  }
  if (p.unit_lanes > 1) {
    // Wide units never fold: a destination run of one unit is already 32 B.
    emit_wide_passes(o, p, ll, edge_a, edge_b);
    return;
  }
  // The staging tile: slab (ia / run_a) of rows along b, each row run_a units (the engine's staging_byte).
  // Column j of the thread's register block is row bb * V + j of the slab, its first unit ba * R along a.
  const int r = p.block_rows;
  const std::string rows = std::to_string(r);
  auto store_at = [&](const std::string& j) {
    return folded ? "((ba * " + rows + ") / " + std::to_string(p.run_a) + " * " + std::to_string(p.tile_b) +
                        " + bb * " + std::to_string(v) + " + " + j + ") * " + std::to_string(p.row_bytes) +
                        " + (ba * " + rows + ") % " + std::to_string(p.run_a) + " * " + std::to_string(ub)
                  : "(bb * " + std::to_string(v) + " + " + j + ") * " + std::to_string(p.row_bytes) +
                        " + ba * " + std::to_string(r * ub);
  };
  auto tile_at = [&](const std::string& j) {
    return "*reinterpret_cast<vec_t*>(tile + " + swizzled(p.staging, store_at(j)) + ")";
  };
  if (p.paired) {
    emit_paired_loads(o, p, ll, edge_a, tile_at);
  } else if (p.half_blocks) {
    emit_half_block_loads(o, p, ll, edge_a, edge_b);
  } else {
    // Read: R x V blocks, R rows along a of V units along b (contiguous in the source).
    // Thread t's block (the engine's load_block): warps of warp_b x 32 / warp_b blocks where warp_b < nb.
    const Loop blocks = thread_loop(p, register_blocks(p), false);
    o << blocks.head;
    emit_block_index(o, p, nb);
    o << "    const " << I << " ib = b0 + bb * " << v << ";\n";
    if (edge_b) o << "    if (ib >= " << ll(p.extent_b) << ") continue;\n";
    const bool byte_columns = r < v;
    const bool by_columns = !byte_columns && v > 1 && ub <= 2 && acc.words == 4;
    o << "    vec_t r[" << r << "]" << (by_columns || byte_columns ? "" : ", w[" + std::to_string(v) + "]")
      << ";\n";
    // The R rows of a block are rows ba*R + k of group a. Where R divides its first mode, they are that
    // mode's consecutive indices: one offset for the block, then k times the mode's stride (no division per
    // row).
    const ConvertMode& first = p.modes[p.group_a.front()];
    const bool one_base = first.extent % r == 0;
    if (one_base) o << "    const " << I << " sa = src_base + group_a_src(a0 + ba * " << r << ") + ib;\n";
    const std::string at =
        one_base ? "sa + k * " + ll(first.src_stride) : std::string("src_base + group_a_src(ia) + ib");
    if (p.unaligned && !p.aligned_loads) {
      // Unaligned rows: the aligned words of every row first (the second only where the row's bytes reach
      // into it), then the shifts, so that a row's shift does not wait for its words before the next row's
      // loads are issued. `valid`: the bytes of the block's rows that lie in the tensor, V units, fewer at
      // the end of group b.
      o << "    const unsigned valid = "
        << (p.extent_b % v != 0 ? "(unsigned)(ib + " + std::to_string(v) + " <= " + ll(p.extent_b) + " ? " +
                                      ll(v) + " : " + ll(p.extent_b) + " - ib) * " + std::to_string(ub) + "u"
                                : std::to_string(v * ub) + "u")
        << ";\n"
        << "    vec_t lo[" << r << "], hi[" << r << "];\n"
        << "    unsigned sh[" << r << "];\n"
        << "#pragma unroll\n"
        << "    for (int k = 0; k < " << r << "; ++k) {\n";
      if (edge_a || !one_base) o << "      const " << I << " ia = a0 + ba * " << r << " + k;\n";
      const int64_t step = constant_load_shifts(p) ? first.src_stride * ub % 16 : -1;
      o << "      const unsigned char* const p = in + (" << at << ") * " << ub << ";\n"
        << (step >= 0 ? "      sh[k] = (k * " + std::to_string(step) + "u) & 15u;\n"
                      : std::string("      sh[k] = (unsigned)((unsigned long long)p & 15ull);\n"))
        << "      lo[k] = hi[k] = make_uint4(0u, 0u, 0u, 0u);\n";
      if (edge_a) o << "      if (ia >= " << ll(p.extent_a) << ") continue;\n";
      o << "      const uint4* const q = reinterpret_cast<const uint4*>(p - sh[k]);\n"
        << "      lo[k] = __ldg(q);\n"
        << "      if (sh[k] + valid > 16u) hi[k] = __ldg(q + 1);\n"
        << "    }\n"
        << "#pragma unroll\n"
        << "    for (int k = 0; k < " << r << "; ++k) r[k] = funnel16(lo[k], hi[k], sh[k]);\n";
    } else {
      // Aligned rows (where the plan is unaligned, only its destination's rows are: each load is an aligned
      // 16 B word, the last of a row holding bytes past its end, which no store reads).
      o << "#pragma unroll\n"
        << "    for (int k = 0; k < " << r << "; ++k) {\n";
      if (edge_a || !one_base) o << "      const " << I << " ia = a0 + ba * " << r << " + k;\n";
      const std::string load =
          mapped(p, true)
              ? "__ldg(reinterpret_cast<const vec_t*>(in + " +
                    side_bytes(p, true, "(" + at + ") * " + std::to_string(p.unit_elems)) + "))"
              : "__ldg(reinterpret_cast<const vec_t*>(in + (" + at + ") * " + std::to_string(ub) + "))";
      if (edge_a) {
        o << "      r[k] = ia < " << ll(p.extent_a) << " ? " << load << " : vec_t{};\n";
      } else {
        o << "      r[k] = " << load << ";\n";
      }
      o << "    }\n";
    }
    // The block's columns are V consecutive rows of the tile (the engine's staging_column_step): the first
    // column's offset is swizzled once and each column is a constant away (XORed, or added where the swizzle
    // changes none of its bits). NVRTC's optimizer spent about a millisecond on each swizzled address it
    // simplified: on the development machine the u8 transpose with 16 of them compiled in 118 ms, with one
    // and 16 constants in 91 ms.
    const ColumnStep step = staging_column_step(p);
    auto column_at = [&](const std::string& type, const std::string& j) {
      const bool constant = j.find_first_not_of("0123456789") == std::string::npos;
      if (step == ColumnStep::kPerColumn) {
        return "*reinterpret_cast<" + type + "*>(tile + " + swizzled(p.staging, store_at(j)) + ")";
      }
      if (step == ColumnStep::kXorSwizzled) {
        return "*reinterpret_cast<" + type + "*>(tile + (so ^ " +
               (constant ? std::to_string(staging_column_offset(p, std::stoll(j)))
                         : swizzled(p.staging, "(" + j + ") * " + std::to_string(p.row_bytes))) +
               "))";
      }
      const std::string d = constant ? std::to_string(std::stoll(j) * p.row_bytes)
                                     : "(" + j + ") * " + std::to_string(p.row_bytes);
      return "*reinterpret_cast<" + type + "*>(tile + " +
             (step == ColumnStep::kAdd ? "so + " + d : "(so ^ " + d + ")") + ")";
    };
    if (step != ColumnStep::kPerColumn)
      o << "    const unsigned so = " << swizzled(p.staging, store_at("0")) << ";\n";
    if (byte_columns) {
      emit_byte_columns(o, [&](int j) { return column_at("unsigned", std::to_string(j)); });
    } else if (by_columns) {
      emit_transpose_by_columns(o, v, [&](const std::string& j) { return column_at("vec_t", j); });
    } else {
      if (v > 1) {
        emit_transpose(o, acc, v, static_cast<int>(ub));
      } else {
        o << "    w[0] = r[0];\n";
      }
      o << "#pragma unroll\n"
        << "    for (int j = 0; j < " << v << "; ++j)\n"
        << "      " << column_at("vec_t", "j") << " = w[j];\n";
    }
    o << blocks.end;
  }
  o << "  __syncthreads();\n";
  if (p.unaligned) {
    emit_unaligned_stores(o, p, ll, edge_a, edge_b);
    return;
  }
  // Write: rows along a (contiguous in the destination); with folded modes, chunk of the run fastest, then
  // row, then slab (the engine's store order).
  // Not unrolled: each pass is one shared load and one global store, and unrolling it only adds compile time
  // (6-40 % of a first compile on an H200, the kernel as fast).
  const Loop stores = thread_loop(p, p.tile_b * ca, true);
  if (folded) {
    const int64_t cr = p.run_a / v;
    o << stores.head << "    const int chunk = t % " << cr << ", row = (t / " << cr << ") % " << p.tile_b
      << ", slab = t / " << cr * p.tile_b << ";\n"
      << "    const " << I << " ia = a0 + slab * " << p.run_a << " + chunk * " << v << ", ib = b0 + row;\n";
    o << skip_outside(p, ll, edge_a, edge_b) << "    const vec_t x = *reinterpret_cast<const vec_t*>(tile + "
      << swizzled(p.staging, "(slab * " + std::to_string(p.tile_b) + " + row) * " +
                                 std::to_string(p.row_bytes) + " + chunk * " + std::to_string(v * ub))
      << ");\n"
      << "    *reinterpret_cast<vec_t*>(out + "
      << (mapped(p, false)
              ? side_bytes(p, false,
                           "(dst_base + group_a_dst(ia) + group_b_dst(ib)) * " + std::to_string(p.unit_elems))
              : "(dst_base + group_a_dst(ia) + group_b_dst(ib)) * " + std::to_string(ub))
      << ") = x;\n"
      << stores.end;
  } else {
    o << stores.head << "    const int row = t / " << ca << ", chunk = t % " << ca << ";\n"
      << "    const " << I << " ia = a0 + chunk * " << v << ", ib = b0 + row;\n";
    o << skip_outside(p, ll, edge_a, edge_b) << "    const vec_t x = *reinterpret_cast<const vec_t*>(tile + "
      << swizzled(p.staging, "row * " + std::to_string(p.row_bytes) + " + chunk * " + std::to_string(v * ub))
      << ");\n"
      << "    *reinterpret_cast<vec_t*>(out + "
      << (mapped(p, false)
              ? side_bytes(p, false, "(dst_base + ia + group_b_dst(ib)) * " + std::to_string(p.unit_elems))
              : "(dst_base + ia + group_b_dst(ib)) * " + std::to_string(ub))
      << ") = x;\n"
      << stores.end;
  }
}

// One 32-bit word from four bytes, each (word expression, byte index in it), with the fewest __byte_perm:
// one where the bytes come from at most two words, three where they come from three or four.
std::string gather_word(const std::vector<std::pair<std::string, int>>& bytes) {
  std::vector<std::string> words;
  for (const auto& [w, b] : bytes) {
    if (std::find(words.begin(), words.end(), w) == words.end()) words.push_back(w);
  }
  auto hex = [](unsigned sel) {
    std::ostringstream h;
    h << "0x" << std::hex << sel << "u";
    return h.str();
  };
  auto perm = [&](const std::string& x, const std::string& y, size_t first, size_t count) {
    unsigned sel = 0;
    for (int i = 0; i < 4; ++i) {
      const auto at = std::find(words.begin(), words.end(), bytes[i].first) - words.begin();
      if (static_cast<size_t>(at) < first || static_cast<size_t>(at) >= first + count) continue;
      sel |= static_cast<unsigned>((at == static_cast<long>(first) ? 0 : 4) + bytes[i].second) << (4 * i);
    }
    return "__byte_perm(" + x + ", " + y + ", " + hex(sel) + ")";
  };
  if (words.size() == 1) {
    bool identity = true;
    for (int i = 0; i < 4; ++i) identity = identity && bytes[i].second == i;
    return identity ? words[0] : perm(words[0], "0u", 0, 1);
  }
  if (words.size() == 2) return perm(words[0], words[1], 0, 2);
  // Words 0 and 1 into t, words 2 (and 3) into u, then each byte from t or u.
  const std::string t = perm(words[0], words[1], 0, 2);
  const std::string u = perm(words[2], words.size() > 3 ? words[3] : "0u", 2, 2);
  unsigned sel = 0;
  for (int i = 0; i < 4; ++i) {
    const auto at = std::find(words.begin(), words.end(), bytes[i].first) - words.begin();
    sel |= static_cast<unsigned>((at < 2 ? 0 : 4) + i) << (4 * i);
  }
  return "__byte_perm(" + t + ", " + u + ", " + hex(sel) + ")";
}

// An interleave plan (the engine's kInterleave): one item per thread, V units of each of the C planes. The
// planar side moves V units per lane per plane; the packed side's C x V units go through the warp's exchange
// area (lane * lane_chunks + j chunks, j XORed by the plan's exchange XOR: the engine's exchange_byte) so
// that the warp reads or writes its 32 x C chunks in order. The interleave itself is byte permutes in
// registers. A ragged last chunk moves unit by unit.
void emit_interleave(std::ostringstream& o, const ConvertPlan& p, const Index& ll, KernelSource& k) {
  const int v = p.vector_units, eb = p.elem_bytes, vb = v * eb;
  const int64_t c = p.small_extent, rec = p.record_units;  // planes; units a record on the packed side
  const Access acc = access_of(vb);
  const Access unit = access_of(eb);
  const std::string I = ll.type();
  const int64_t warp_bytes = 32 * p.lane_chunks * vb;
  // Chunk j of lane `who` in the exchange (the engine's exchange_byte): who * lane_chunks + j, j XORed by
  // bits of who where the plan has an XOR.
  auto chunk_of = [&](const std::string& who, const std::string& j) {
    const std::string first = "(" + who + " * " + std::to_string(p.lane_chunks) + " + ";
    if (p.exchange_mask == 0) return first + j + ")";
    return first + "(" + j + " ^ ((" + who + " >> " + std::to_string(p.exchange_shift) + ") & " +
           std::to_string(p.exchange_mask) + ")))";
  };
  // The exchange chunk of q = k * 32 + lane, record chunk j of lane `owner`: q, or q + owner where each
  // lane's records are padded by a chunk.
  const std::string slot = p.exchange_mask != 0  ? chunk_of("owner", "j")
                           : p.lane_chunks > rec ? "(q + owner)"
                                                 : "q";
  const bool ragged = p.long_extent % v != 0;
  const bool partial = p.items % p.threads != 0;
  const ConvertMode& lm = p.modes[p.long_mode];
  k.shared_bytes = p.staging_bytes;
  k.blocks = p.blocks;
  o << "  typedef " << acc.type << " vec_t;\n"
    << "  typedef " << unit.type << " unit_t;\n";
  if (!p.direct_stores) {
    o << "  __shared__ __align__(16) unsigned char exchange[" << p.staging_bytes << "];\n"
      << "  unsigned char* const ex = exchange + (threadIdx.x >> 5) * " << warp_bytes << ";\n"
      << "  const int lane = threadIdx.x & 31;\n";
  }
  o << "  const " << I << " t = (" << I << ")blockIdx.x * " << p.threads << " + threadIdx.x;\n"
    << "  " << I << " src = 0, dst = 0;\n"
    << "  int units = 0;  // V for a whole chunk, fewer for a ragged last one, 0 past the items\n";
  o << "  " << (partial ? "if (t < " + ll(p.items) + ") " : "") << "{\n"
    << "    const " << I << " chunk = t % " << ll(p.chunks) << ";\n"
    << "    " << I << " b = t / " << ll(p.chunks) << ";\n";
  for (int i : convert_batch_modes(p)) {
    const ConvertMode& m = p.modes[i];
    o << "    { const " << I << " d = b % " << ll(m.extent) << "; b /= " << ll(m.extent) << "; src += d * "
      << ll(m.src_stride) << "; dst += d * " << ll(m.dst_stride) << "; }\n";
  }
  o << "    src += chunk * " << ll(v * lm.src_stride) << "; dst += chunk * " << ll(v * lm.dst_stride)
    << ";\n";
  if (ragged) {
    o << "    units = chunk == " << ll(p.chunks - 1) << " ? " << p.long_extent - (p.chunks - 1) * v << " : "
      << v << ";\n";
  } else {
    o << "    units = " << v << ";\n";
  }
  o << "  }\n";
  // Byte x of the packed side's C x V units is byte (x % eb) of unit x / eb, which is unit (x / eb) / C of
  // plane (x / eb) % C.
  auto interleave_words = [&](const std::string& from, const std::string& to) {
    if (p.packed_dst) {
      for (int64_t j = 0; j < c; ++j) {
        for (int w = 0; w < acc.words; ++w) {
          std::vector<std::pair<std::string, int>> bytes;
          for (int b = 0; b < 4; ++b) {
            const int64_t x = j * vb + 4 * w + b, u = x / eb, y = (u / c) * eb + x % eb;
            bytes.emplace_back(acc.word(from + "[" + std::to_string(u % c) + "]", static_cast<int>(y / 4)),
                               static_cast<int>(y % 4));
          }
          o << "    " << acc.word(to + "[" + std::to_string(j) + "]", w) << " = " << gather_word(bytes)
            << ";\n";
        }
      }
    } else {
      for (int64_t pl = 0; pl < c; ++pl) {
        for (int w = 0; w < acc.words; ++w) {
          std::vector<std::pair<std::string, int>> bytes;
          for (int b = 0; b < 4; ++b) {
            const int64_t y = 4 * w + b, x = ((y / eb) * rec + pl) * eb + y % eb;
            bytes.emplace_back(
                acc.word(from + "[" + std::to_string(x / vb) + "]", static_cast<int>((x % vb) / 4)),
                static_cast<int>(x % 4));
          }
          o << "    " << acc.word(to + "[" + std::to_string(pl) + "]", w) << " = " << gather_word(bytes)
            << ";\n";
        }
      }
    }
  };
  const std::string vbs = std::to_string(vb), ebs = std::to_string(eb);
  auto scalar_tail = [&] {
    if (!ragged) return;
    const std::string s =
        p.packed_dst ? "src + k * " + ll(p.plane_stride) + " + i" : "src + i * " + ll(rec) + " + k";
    const std::string d =
        p.packed_dst ? "dst + i * " + ll(c) + " + k" : "dst + k * " + ll(p.plane_stride) + " + i";
    o << "  else if (units > 0) {\n"
      << "    for (int i = 0; i < units; ++i)\n"
      << "#pragma unroll\n"
      << "      for (int k = 0; k < " << c << "; ++k)\n"
      << "        *reinterpret_cast<unit_t*>(out + " << side_bytes(p, false, d)
      << ") = *reinterpret_cast<const unit_t*>(in + " << side_bytes(p, true, s) << ");\n"
      << "  }\n";
  };
  const std::string whole =
      "const unsigned whole = __ballot_sync(0xffffffffu, units == " + std::to_string(v) + ");\n";
  // The global address of chunk j of the record whose first unit is `base`, on the source or destination.
  auto chunk_address = [&](bool src_side, const std::string& base) {
    return mapped(p, src_side) ? side_bytes(p, src_side, base + " + j * " + std::to_string(v))
                               : base + " * " + ebs + " + j * " + vbs;
  };
  auto exchange_loop = [&](bool store_global) {
    o << "#pragma unroll\n"
      << "  for (int k = 0; k < " << rec << "; ++k) {\n"
      << "    const int q = k * 32 + lane, owner = q / " << rec << ", j = q % " << rec << ";\n"
      << "    const " << I << " at = __shfl_sync(0xffffffffu, " << (store_global ? "dst" : "src")
      << ", owner);\n"
      << "    if ((whole >> owner) & 1u)\n";
    if (store_global) {
      o << "      *reinterpret_cast<vec_t*>(out + " << chunk_address(false, "at")
        << ") = *reinterpret_cast<const vec_t*>(ex + " << slot << " * " << vb << ");\n";
    } else {
      o << "      *reinterpret_cast<vec_t*>(ex + " << slot << " * " << vb
        << ") = __ldg(reinterpret_cast<const vec_t*>(in + " << chunk_address(true, "at") << "));\n";
    }
    o << "  }\n";
  };
  if (p.packed_dst) {
    o << "  if (units == " << v << ") {\n"
      << "    vec_t r[" << c << "], w[" << c << "];\n"
      << "#pragma unroll\n"
      << "    for (int k = 0; k < " << c << "; ++k)\n"
      << "      r[k] = "
      << (p.unaligned
              ? "load_unaligned(in + " + side_bytes(p, true, "src + k * " + ll(p.plane_stride)) + ", 16u)"
              : "__ldg(reinterpret_cast<const vec_t*>(in + " +
                    side_bytes(p, true, "src + k * " + ll(p.plane_stride)) + "))")
      << ";\n";
    interleave_words("r", "w");
    if (p.direct_stores) {
      // Each lane's own record, chunk by chunk.
      o << "#pragma unroll\n"
        << "    for (int j = 0; j < " << c << "; ++j) *reinterpret_cast<vec_t*>(out + "
        << chunk_address(false, "dst") << ") = w[j];\n"
        << "  }\n";
      scalar_tail();
      return;
    }
    o << "#pragma unroll\n"
      << "    for (int j = 0; j < " << c << "; ++j) *reinterpret_cast<vec_t*>(ex + " << chunk_of("lane", "j")
      << " * " << vb << ") = w[j];\n"
      << "  }\n";
    scalar_tail();
    o << "  " << whole << "  __syncwarp();\n";
    exchange_loop(true);
  } else {
    o << "  " << whole;
    exchange_loop(false);
    o << "  __syncwarp();\n"
      << "  if (units == " << v << ") {\n"
      << "    vec_t r[" << rec << "], w[" << c << "];\n"
      << "#pragma unroll\n"
      << "    for (int j = 0; j < " << rec << "; ++j) r[j] = *reinterpret_cast<const vec_t*>(ex + "
      << chunk_of("lane", "j") << " * " << vb << ");\n";
    interleave_words("r", "w");
    o << "#pragma unroll\n"
      << "    for (int k = 0; k < " << c << "; ++k)\n"
      << "      *reinterpret_cast<vec_t*>(out + " << side_bytes(p, false, "dst + k * " + ll(p.plane_stride))
      << ") = w[k];\n"
      << "  }\n";
    scalar_tail();
  }
}

// An unaligned vector plan: the destination's aligned 16 B windows, each read from the source as the
// aligned words that hold it (load_unaligned); a window across the end of a run (m < V units of it left
// there) is the run's last m units and the next run's first V - m, the second read shifted up by m units
// and the two merged by a byte mask. gather(d): the source offset of destination offset d.
void emit_unaligned_vector(std::ostringstream& o, const ConvertPlan& p, const Index& ll, KernelSource& k) {
  const int v = p.vector_units, eb = p.elem_bytes;
  const int64_t nvec = p.elements / v, run = p.modes.back().extent;
  const int64_t per_block = int64_t{p.threads} * kUnalignedIlp;
  const bool edge = nvec % per_block != 0;
  const std::string I = ll.type();
  // Every thread's loads first (the aligned words of its windows, the second word only where the window
  // reaches into it), then the shifts: a shift right after its loads made each window wait for its words
  // before the next window's loads were issued.
  o << "  const " << I << " first = (" << I << ")blockIdx.x * " << per_block << " + threadIdx.x;\n"
    << "  uint4 lo[" << kUnalignedIlp << "], hi[" << kUnalignedIlp << "];\n"
    << "  unsigned sh[" << kUnalignedIlp << "], cut[" << kUnalignedIlp << "];\n"
    << "#pragma unroll\n"
    << "  for (int u = 0; u < " << kUnalignedIlp << "; ++u) {\n"
    << "    const " << I << " g = first + u * " << p.threads << ";\n";
  if (edge) o << "    if (g >= " << ll(nvec) << ") break;\n";
  o << "    const " << I << " d = g * " << v << ";\n"
    << "    const unsigned m = (unsigned)(" << ll(run) << " - d % " << ll(run) << ");\n"
    << "    cut[u] = m >= " << v << "u ? 16u : m * " << eb << "u;\n"
    << "    const unsigned char* const p = in + gather(d) * " << eb << ";\n"
    << "    sh[u] = (unsigned)((unsigned long long)p & 15ull);\n"
    << "    const uint4* const q = reinterpret_cast<const uint4*>(p - sh[u]);\n"
    << "    lo[u] = __ldg(q);\n"
    << "    hi[u] = make_uint4(0u, 0u, 0u, 0u);\n"
    << "    if (sh[u] + cut[u] > 16u) hi[u] = __ldg(q + 1);\n"
    << "  }\n"
    << "#pragma unroll\n"
    << "  for (int u = 0; u < " << kUnalignedIlp << "; ++u) {\n"
    << "    const " << I << " g = first + u * " << p.threads << ";\n";
  if (edge) o << "    if (g >= " << ll(nvec) << ") break;\n";
  // A window that spans the end of a run (one in several) takes the next run's first bytes as well.
  o << "    uint4 x = funnel16(lo[u], hi[u], sh[u]);\n"
    << "    if (cut[u] < 16u) {\n"
    << "      const " << I << " d = g * " << v << ";\n"
    << "      const uint4 p2 = funnel16(make_uint4(0u, 0u, 0u, 0u), load_unaligned(in + gather(d + cut[u] / "
    << eb << "u) * " << eb << ", 16u - cut[u]), 16u - cut[u]);\n"
    << "      x = merge16(x, p2, cut[u]);\n"
    << "    }\n"
    << "    *reinterpret_cast<uint4*>(out + g * 16) = x;\n"
    << "  }\n";
  k.blocks = (nvec + per_block - 1) / per_block;
}

// gather(d) of a vector plan: the source offset of destination offset d, over the plan's modes; and
// merge16(a, b, n): bytes [0, n) of a, the rest of b (whose first n bytes are zero).
std::string gather_functions(const ConvertPlan& p, const Index& ll) {
  std::ostringstream o;
  o << "__device__ __forceinline__ " << ll.type() << " gather(" << ll.type() << " r) {\n  " << ll.type()
    << " s = 0;\n";
  for (size_t i = p.modes.size(); i-- > 0;) {
    const ConvertMode& m = p.modes[i];
    if (i == 0) {
      o << "  s += r * " << ll(m.src_stride) << ";\n";
    } else {
      o << "  s += (r % " << ll(m.extent) << ") * " << ll(m.src_stride) << "; r /= " << ll(m.extent) << ";\n";
    }
  }
  o << "  return s;\n}\n"
    << "__device__ __forceinline__ uint4 merge16(uint4 a, uint4 b, unsigned n) {\n"
    << "  unsigned w[4] = {a.x, a.y, a.z, a.w};\n"
    << "#pragma unroll\n"
    << "  for (int q = 0; q < 4; ++q) {\n"
    << "    const int keep = min(max((int)n - 4 * q, 0), 4);\n"
    << "    w[q] &= keep >= 4 ? 0xffffffffu : (1u << (8 * keep)) - 1u;\n"
    << "  }\n"
    << "  return make_uint4(w[0] | b.x, w[1] | b.y, w[2] | b.z, w[3] | b.w);\n"
    << "}\n";
  return o.str();
}

void emit_vector(std::ostringstream& o, const ConvertPlan& p, const Index& ll, KernelSource& k) {
  if (p.unaligned) {
    emit_unaligned_vector(o, p, ll, k);
    return;
  }
  const int v = p.vector_units;
  const int eb = p.elem_bytes;
  const Access acc = access_of(v * eb);
  const int64_t nvec = p.elements / v;
  const int64_t per_block = int64_t{p.threads} * kIlp;
  const bool edge = nvec % per_block != 0;  // a last, partial block: only then the bounds tests
  const std::string I = ll.type();
  o << "  const " << I << " first = (" << I << ")blockIdx.x * " << per_block << " + threadIdx.x;\n"
    << "  " << acc.type << " x[" << kIlp << "];\n"
    << "#pragma unroll\n"
    << "  for (int u = 0; u < " << kIlp << "; ++u) {\n"
    << "    const " << I << " g = first + u * " << p.threads << ";\n";
  if (edge) o << "    if (g >= " << ll(nvec) << ") break;\n";
  o << "    " << I << " r = g * " << v << ", s = 0;\n";
  for (size_t i = p.modes.size(); i-- > 0;) {
    const ConvertMode& m = p.modes[i];
    if (i == 0) {
      o << "    s += r * " << ll(m.src_stride) << ";\n";
    } else {
      o << "    s += (r % " << ll(m.extent) << ") * " << ll(m.src_stride) << "; r /= " << ll(m.extent)
        << ";\n";
    }
  }
  o << "    x[u] = __ldg(reinterpret_cast<const " << acc.type << "*>(in + "
    << (mapped(p, true) ? side_bytes(p, true, "s") : "s * " + std::to_string(eb)) << "));\n"
    << "  }\n"
    << "#pragma unroll\n"
    << "  for (int u = 0; u < " << kIlp << "; ++u) {\n"
    << "    const " << I << " g = first + u * " << p.threads << ";\n";
  if (edge) o << "    if (g >= " << ll(nvec) << ") break;\n";
  o << "    *reinterpret_cast<" << acc.type << "*>(out + "
    << (mapped(p, false) ? side_bytes(p, false, "g * " + std::to_string(v)) : "g * " + std::to_string(v * eb))
    << ") = x[u];\n"
    << "  }\n";
  k.blocks = (nvec + per_block - 1) / per_block;
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

uint64_t kernel_hash(const KernelSource& k) {
  std::string key = k.text;
  for (const std::string& o : k.options) key += "\n// " + o;
  return source_hash(key);
}

KernelSource convert_kernel_source(const ConvertPlan& plan) {
  KernelSource k;
  k.name = kConvertKernelName;
  k.threads = plan.threads;
  k.options = {"--ptxas-options=-O1"};
  std::ostringstream o;
  const Index index = index_of(plan);
  if (plan.kind == ConvertKind::kTiled) o << group_functions(plan, index);
  if (plan.unaligned) o << unaligned_functions();
  if (plan.unaligned && plan.kind == ConvertKind::kTiled) o << edge_functions();
  if (plan.unaligned && plan.kind == ConvertKind::kVector) o << gather_functions(plan, index);
  o << side_functions(plan, index);
  o << "// layoutscope conversion kernel, generated from the plan: " << to_string(plan.kind) << ", "
    << plan.elements << " elements of " << plan.elem_bytes << " B, " << access_bytes(plan)
    << " B per lane per access\n";
  o << "extern \"C\" __global__ void __launch_bounds__(" << plan.threads << ") " << k.name
    << "(const unsigned char* __restrict__ in, unsigned char* __restrict__ out) {\n";
  if (plan.kind == ConvertKind::kTiled) {
    emit_tiled(o, plan, index, k);
  } else if (plan.kind == ConvertKind::kInterleave) {
    emit_interleave(o, plan, index, k);
  } else {
    emit_vector(o, plan, index, k);
  }
  o << "}\n";
  k.text = o.str();
  k.text_hash = source_hash(k.text);
  k.hash = kernel_hash(k);
  return k;
}

}  // namespace layoutscope::codegen
