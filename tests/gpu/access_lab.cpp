// The warp-access lab on a GPU: (layout, instruction, lanes) cases costed by the engine, each run as the
// one-warp kernel access_kernel.hpp generates (compiled with NVRTC), its registers or tile checked against
// the host run, then (under Nsight Compute) counted. One JSON line per kernel launch, in launch order, so the
// ncu rows of kernel layoutscope_access pair with the lines one to one.
//
//   access_lab            the suite: LDS/STS 4/8/16, ldmatrix/stmatrix x1/x2/x4 (.trans), cp.async 4/8/16 on
//                         plain, padded and swizzled tiles; LDS/ldmatrix reads of the four TMA-mode layouts
//                         x {u8, bf16, f32}; the advisor's five best candidates and the CUTLASS and
//                         ThunderKittens choices for a few writer/reader pairs
//   access_lab --metrics  the ncu metric names the engine gives for the ops the suite uses, comma-separated
//   access_lab --dry-run  plan and cost every case, run none (no GPU needed): "verified" is null
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "access_kernel.hpp"
#include "backends/cuda/nvrtc.hpp"
#include "lab_check.hpp"
#include "layoutscope/advise.hpp"
#include "layoutscope/parse.hpp"

using namespace layoutscope;

namespace {

struct Case {
  std::string name;  // what the case is for: "suite", "tma-read", "advise ..."
  std::string layout_text;
  WarpAccess access;
  std::string lanes;  // rows, columns, matrices
};

Result<Lanes> lanes_for(const std::string& order, const std::vector<int64_t>& shape, DType dtype,
                        const Instruction& instr) {
  if (order == "columns") return column_lanes(shape, dtype, instr);
  return default_lanes(shape, dtype, instr);  // rows; matrices for ldmatrix/stmatrix
}

void add(std::vector<Case>& cases, const std::string& name, const Layout& layout, const std::string& text,
         std::vector<int64_t> shape, DType dtype, const char* instr_text, const std::string& order) {
  const Instruction instr = parse_instruction(instr_text).value();
  auto lanes = lanes_for(order, shape, dtype, instr);
  if (!lanes) {
    std::fprintf(stderr, "skip %s %s %s: %s\n", text.c_str(), instr_text, order.c_str(),
                 lanes.error().message.c_str());
    return;
  }
  cases.push_back({name, text, WarpAccess{layout, shape, dtype, instr, *lanes, std::nullopt}, order});
}

void add(std::vector<Case>& cases, const std::string& name, const std::string& layout_text,
         std::vector<int64_t> shape, DType dtype, const char* instr, const std::string& order) {
  add(cases, name, parse_layout(layout_text).value(), layout_text, shape, dtype, instr, order);
}

std::vector<Case> suite() {
  std::vector<Case> cases;
  // fp32 32 x 32: plain, padded by one word, XOR of the 16 B chunk with the row, by rows and by columns.
  const char* f32_layouts[] = {"S[(32,32):(32,1)]", "S[(32,32):(33,1)]", "S[(32,32):(36,1)]",
                               "Swizzle<3,2,3> o S[(32,32):(32,1)]", "Swizzle<5,0,5> o S[(32,32):(32,1)]"};
  for (const char* l : f32_layouts) {
    for (const char* i : {"LDS.32", "LDS.64", "LDS.128", "STS.32", "STS.64", "STS.128"}) {
      add(cases, "suite", l, {32, 32}, DType::kF32, i, "rows");
      add(cases, "suite", l, {32, 32}, DType::kF32, i, "columns");
    }
  }
  // bf16 64 x 64 with 128 B rows: ldmatrix / stmatrix in every form, plain and with the 128B XOR.
  for (const char* l : {"S[(64,64):(64,1)]", "Swizzle<3,3,3> o S[(64,64):(64,1)]", "S[(64,64):(72,1)]"}) {
    for (const char* i : {"ldmatrix.x1", "ldmatrix.x2", "ldmatrix.x4", "ldmatrix.x1.trans",
                          "ldmatrix.x2.trans", "ldmatrix.x4.trans", "stmatrix.x1", "stmatrix.x2",
                          "stmatrix.x4", "stmatrix.x1.trans", "stmatrix.x2.trans", "stmatrix.x4.trans"}) {
      add(cases, "suite", l, {64, 64}, DType::kBF16, i, "matrices");
    }
    for (const char* i : {"cp.async.4", "cp.async.8", "cp.async.16"}) {
      add(cases, "suite", l, {64, 64}, DType::kBF16, i, "rows");
      add(cases, "suite", l, {64, 64}, DType::kBF16, i, "columns");
    }
  }
  // The layouts TMA writes in each mode, read by rows (16 B), columns (4 B) and ldmatrix (b16). The tiles are
  // filled by the kernel's own 4 B stores, not by TMA: the reads' wavefronts depend only on the layout.
  const struct {
    DType dtype;
    int64_t cols;
  } tma_types[] = {{DType::kU8, 128}, {DType::kBF16, 64}, {DType::kF32, 32}};
  const struct {
    SwizzleMode mode;
    const char* name;
  } modes[] = {{SwizzleMode::kNone, "none"},
               {SwizzleMode::k32B, "32B"},
               {SwizzleMode::k64B, "64B"},
               {SwizzleMode::k128B, "128B"}};
  for (const auto& t : tma_types) {
    for (const auto& m : modes) {
      const std::vector<int64_t> shape{64, t.cols};
      auto layout = tma_layout(m.mode, t.dtype, shape);
      if (!layout) {
        std::fprintf(stderr, "skip tma %s: %s\n", m.name, layout.error().message.c_str());
        continue;
      }
      const std::string text = std::string("tma_layout(") + m.name + ", " + std::string(to_string(t.dtype)) +
                               ", 64x" + std::to_string(t.cols) + ") = " + to_string(*layout);
      add(cases, "tma-read", *layout, text, shape, t.dtype, "LDS.128", "rows");
      add(cases, "tma-read", *layout, text, shape, t.dtype, "LDS.32", "columns");
      if (t.dtype == DType::kBF16) {
        add(cases, "tma-read", *layout, text, shape, t.dtype, "ldmatrix.x4", "matrices");
        add(cases, "tma-read", *layout, text, shape, t.dtype, "ldmatrix.x4.trans", "matrices");
      }
    }
  }
  return cases;
}

constexpr size_t kAdvisorCandidates = 5;

// The advisor's best candidates for a few writer/reader pairs and the fixed rules' choices, each side
// measured on the candidate's layout (a TMA writer has no LSU counter: only its reader runs).
void advisor_cases(std::vector<Case>& cases) {
  const struct {
    const char* writer;
    const char* reader;
    DType dtype;
    std::vector<int64_t> tile;
  } pairs[] = {
      // The advisor's worked example: a 16x32 fp32 tile written by rows, read two columns at a time.
      {"S[(16,32):(1@reg,1@laneid)];STS.32",
       "S[(16,16,2):(1@laneid,1@reg,16@laneid)];LDS.32",
       DType::kF32,
       {16, 32}},
      {"rows;STS.128", "columns;LDS.32", DType::kF32, {32, 32}},
      {"rows;STS.128", "matrices;ldmatrix.x4.trans", DType::kBF16, {64, 64}},
      {"rows;cp.async.16", "matrices;ldmatrix.x4", DType::kBF16, {64, 64}},
  };
  for (const auto& pr : pairs) {
    auto w = parse_tile_side(pr.writer, true);
    auto r = parse_tile_side(pr.reader, false);
    if (!w || !r) {
      std::fprintf(stderr, "advisor pair %s / %s: %s\n", pr.writer, pr.reader,
                   (!w ? w.error() : r.error()).message.c_str());
      continue;
    }
    auto advice = advise(AdviseRequest{*w, *r, pr.dtype, pr.tile});
    if (!advice) {
      std::fprintf(stderr, "advise %s / %s: %s\n", pr.writer, pr.reader, advice.error().message.c_str());
      continue;
    }
    const std::string tag = std::string("advise ") + pr.writer + " / " + pr.reader;
    // The advisor's five best and what CUTLASS's and ThunderKittens' fixed rules choose.
    std::vector<Candidate> chosen(
        advice->candidates.begin(),
        advice->candidates.begin() + std::min<size_t>(advice->candidates.size(), kAdvisorCandidates));
    for (const RuleChoice& rule : advice->rules) {
      if (!rule.candidate) continue;
      chosen.push_back(*rule.candidate);
      chosen.back().name = rule.rule + " " + rule.choice + " = " + chosen.back().name;
    }
    for (const Candidate& c : chosen) {
      for (const TileSide* side : {&*w, &*r}) {
        if (side->instr.op == Op::kTma) continue;
        auto lanes = side_lanes(*side, pr.tile, pr.dtype);
        if (!lanes) continue;
        cases.push_back({tag + " : " + c.name + (side == &*w ? " (write)" : " (read)"), to_string(c.layout),
                         WarpAccess{c.layout, pr.tile, pr.dtype, side->instr, *lanes, std::nullopt},
                         std::string(to_string(side->order))});
      }
    }
  }
}

// Runs the kernel once and says what it got wrong, if anything.
std::optional<std::string> run(agent::KernelCache& cache, const codegen::KernelSource& src,
                               const codegen::AccessPlan& plan) {
  auto k = cache.get(src, 0);
  if (!k) {
    std::fprintf(stderr, "compile: %s\n", k.error().message.c_str());
    std::exit(1);
  }
  // The tile image (loads) or the global source (cp.async): every byte differs from its neighbours.
  std::vector<uint8_t> in(static_cast<size_t>(std::max(plan.tile_bytes, plan.source_bytes)));
  for (size_t b = 0; b < in.size(); ++b) in[b] = static_cast<uint8_t>((b * 0x9E3779B1u) >> 11);
  int32_t* d_off = upload(plan.offsets);
  int32_t* d_src = upload(plan.source_offsets);
  uint8_t* d_in = upload(in);
  std::vector<uint32_t> regs(static_cast<size_t>(codegen::access_register_words(plan)));
  std::vector<uint8_t> tile(static_cast<size_t>(codegen::access_tile_out_bytes(plan)));
  uint32_t* d_regs = upload(regs);
  uint8_t* d_tile = upload(tile);
  void* args[] = {&d_off, &d_src, &d_in, &d_regs, &d_tile};
  CHECK(cudaLaunchKernel((*k)->launchable(), dim3(1), dim3(32), args, 0, nullptr));
  CHECK(cudaDeviceSynchronize());
  if (!regs.empty()) CHECK(cudaMemcpy(regs.data(), d_regs, regs.size() * 4, cudaMemcpyDeviceToHost));
  if (!tile.empty()) CHECK(cudaMemcpy(tile.data(), d_tile, tile.size(), cudaMemcpyDeviceToHost));
  for (void* p : {static_cast<void*>(d_off), static_cast<void*>(d_src), static_cast<void*>(d_in),
                  static_cast<void*>(d_regs), static_cast<void*>(d_tile)})
    CHECK(cudaFree(p));
  return codegen::check_access(plan, in, regs, tile);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Case> cases = suite();
  advisor_cases(cases);
  if (argc > 1 && std::strcmp(argv[1], "--metrics") == 0) {
    std::set<std::string> m;
    for (const Case& c : cases) {
      m.insert(ncu_wavefront_metric(c.access.instr.op));
      m.insert(ncu_conflict_metric(c.access.instr.op));
    }
    std::string out;
    for (const std::string& s : m)
      if (!s.empty()) out += (out.empty() ? "" : ",") + s;
    std::printf("%s\n", out.c_str());
    return 0;
  }
  const bool dry = argc > 1 && std::strcmp(argv[1], "--dry-run") == 0;
  agent::KernelCache cache;
  int failures = 0;
  for (const Case& c : cases) {
    auto predicted = cost(c.access);
    auto plan = codegen::plan_access(c.access);
    if (!predicted || !plan) {
      std::fprintf(stderr, "skip %s %s: %s\n", c.layout_text.c_str(), to_string(c.access.instr).c_str(),
                   (!predicted ? predicted.error() : plan.error()).message.c_str());
      continue;
    }
    const codegen::KernelSource src = codegen::access_kernel_source(*plan);
    std::optional<std::string> wrong;
    if (!dry) wrong = run(cache, src, *plan);
    if (wrong) ++failures;
    std::printf(
        "{\"case\":\"%s\",\"layout\":\"%s\",\"shape\":[%lld,%lld],\"dtype\":\"%s\",\"instr\":\"%s\","
        "\"lanes\":\"%s\",\"instructions\":%lld,\"ncu_op\":\"%s\",\"wavefront_metric\":\"%s\","
        "\"conflict_metric\":\"%s\",\"predicted_wavefronts\":%lld,\"predicted_ideal\":%lld,"
        "\"predicted_conflicts\":%lld,\"verified\":%s,\"error\":\"%s\"}\n",
        json_escape(c.name).c_str(), json_escape(c.layout_text).c_str(),
        static_cast<long long>(c.access.shape[0]), static_cast<long long>(c.access.shape[1]),
        std::string(to_string(c.access.dtype)).c_str(), to_string(c.access.instr).c_str(), c.lanes.c_str(),
        static_cast<long long>(plan->instructions), predicted->ncu_op.c_str(),
        ncu_wavefront_metric(c.access.instr.op).c_str(), ncu_conflict_metric(c.access.instr.op).c_str(),
        static_cast<long long>(predicted->wavefronts), static_cast<long long>(predicted->ideal_wavefronts),
        static_cast<long long>(predicted->conflicts),
        dry     ? "null"
        : wrong ? "false"
                : "true",
        wrong ? json_escape(*wrong).c_str() : "");
    std::fflush(stdout);
  }
  return failures == 0 ? 0 : 2;
}
