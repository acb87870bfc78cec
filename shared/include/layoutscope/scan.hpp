// A whole compiler dump read for its layouts: every layout alias, the tensor types that use each one, and
// every op that moves data between layouts, with what the move costs.
//
//   #blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], ...}>
//   #shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
//   %a = ttg.local_alloc %x : (tensor<64x64xf32, #blocked>) -> !ttg.memdesc<64x64xf32, #shared, #smem>
//
//   -> op ttg.local_alloc, line 3, "shared store": registers of #blocked into #shared, 16 KB of shared
//      memory; each lane's 4 contiguous f32 go out as one STS.128, 8 instructions a warp... the engine's
//      cost() of those lanes on the shared layout (wavefronts, ideal, conflicts) as Nsight Compute counts
//      them.
//
// Ops read: ttg.convert_layout (classified as trivial, a register permutation, a warp shuffle or a shared
// round trip by comparing which lane and warp hold each element), ttg.local_alloc / local_store /
// local_load, ttg.async_copy_global_to_local (cp.async), ttng.tmem_load / tmem_store, and the TMA copies
// (ttng.async_tma_copy_*, tt.descriptor_load / store). Each op's instruction is the widest vector the two
// layouts allow (what Triton's lowering picks for plain loads and stores); where Triton uses another
// instruction (ldmatrix for MMA operands, a swizzled scratch for convert_layout) the op's note says so and
// the cost given is the ideal one.
//
// Nothing here is fatal: a layout that does not read, an op without types, an op name not in the list of
// known TTGIR ops are all reported (issues, unknown_ops) and the scan goes on.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace layoutscope::scan {

struct Alias {
  std::string name;  // "blocked1", without '#'
  std::string text;  // "#ttg.blocked<{...}>"
  std::string kind;  // "ttg.blocked"
  int line = 0;      // 1-based
  int uses = 0;      // tensor and memdesc types that name it
  // The alias read on the largest tensor or memdesc type whose layout it is (the first of those; what a
  // named export of it needs: a layout is a function of its shape). Empty shape and axe when no type names it
  // as its layout (an #mma seen only as a dot_op's parent); error says why it did not read there.
  std::vector<int64_t> shape;
  std::string dtype;
  int element_bits = 0;  // that type's element width; 0 for pointers and unknown element types
  std::string axe;
  std::string error;
};

struct Side {
  std::string type;            // "tensor<128x64xf16, #blocked>"
  std::string layout;          // the layout as written: "#blocked" or an inline attribute
  std::string axe;             // the layout in the chapter's notation, "" when it did not read
  std::vector<int64_t> shape;  // the layout's shape (a memdesc's leading buffer dimensions dropped)
  std::string dtype;           // "f16", "f32", "ptr" for a tensor of pointers
  int element_bits = 0;        // 16 for f16; 0 for pointers and unknown element types
  std::string error;           // why the layout did not read
};

struct OpCost {
  std::string op;    // "ttg.convert_layout"
  int line = 0;      // 1-based
  std::string kind;  // trivial, register permutation, warp shuffle, shared round trip, shared store, shared
                     // load, global to shared, tensor memory load, tensor memory store, TMA
  Side src;
  Side dst;
  int64_t shared_bytes = 0;  // shared memory the op reads or writes (a round trip's scratch tile)
  std::string instruction;   // "STS.128", "cp.async.16", ... ("" when not costed)
  int64_t instructions = 0;  // a CTA's instructions of that kind for the op
  int64_t wavefronts = 0;    // shared wavefronts of all of them
  int64_t ideal_wavefronts = 0;
  int64_t conflicts = 0;
  int64_t sectors = 0;  // global 32 B sectors (cp.async's source)
  int64_t requests = 0;
  double score = 0;  // the ranking: wavefronts, conflicts weighed double; a round trip's ideal
  std::string note;
};

struct Issue {
  int line = 0;
  int column = 0;
  std::string message;
};

struct UnknownOp {
  std::string op;
  int line = 0;  // the first
  int count = 0;
};

// A CuTe layout printed in a log: print(layout) "(_8,_4):(_4,_1)", a swizzled one
// "Sw<3,4,3> o _0 o (_8,_64):(_64,_1)", nested "((_2,_2),_4):((_1,_4),_2)", or the layout in a print_tensor
// header "ptr[16b](0x7f12) o (_8,_4):(_4,_1):" or above a print_layout table. A shape of plain integers and
// no tuple ("12:5") is taken only when it is the whole line (a TTGIR loc("f.py":12:5) is not a layout).
struct CuteLayout {
  int line = 0;
  int column = 0;              // 1-based, the layout's first character (the swizzle's when there is one)
  std::string text;            // as printed, without an engine pointer before it
  std::string context;         // "print_tensor" after an engine pointer ("ptr[16b](0x...) o"), else ""
  std::string axe;             // in the chapter's notation; "" when it did not read
  std::vector<int64_t> shape;  // CuTe's top-level shape
  int64_t size = 0;
  std::string error;  // why the layout did not read
};

struct ScanResult {
  int lines = 0;
  std::vector<Alias> aliases;
  std::vector<CuteLayout> cute_layouts;  // in text order
  std::vector<OpCost> ops;               // by score, highest first; ties in line order
  std::vector<UnknownOp> unknown_ops;
  std::vector<Issue> issues;
};

// Reads a TTGIR / MLIR text (a whole dump) or a log of CuTe print() output and never fails: what it cannot
// read is listed in issues.
ScanResult scan_ttgir(std::string_view text);

}  // namespace layoutscope::scan
