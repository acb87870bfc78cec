// The engine's kernel-wide averages (convert_kernel_averages: global sectors per request, shared wavefronts
// per instruction over every warp instruction of the kernel, as Nsight Compute counts them) for every case of
// a corpus, on any machine (no GPU): one JSON line per case, the fields convert_lab --profile prints, so that
// `convert_corpus.py report --ncu` can compare an earlier call's ncu measurements with them.
//
//   python3 tests/gpu/convert_corpus.py tsv > corpus.tsv
//   g++ -std=c++20 -O2 -Ishared/include tests/gpu/convert_corpus_averages.cpp
//   build/shared/liblayoutscope_engine.a \
//       -o convert_corpus_averages && ./convert_corpus_averages corpus.tsv > averages.jsonl
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "layoutscope/parse.hpp"
#include "layoutscope/plan/convert.hpp"

using namespace layoutscope;

namespace {
std::vector<int64_t> int_list(const std::string& text) {
  std::vector<int64_t> v;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) v.push_back(std::stoll(item));
  }
  return v;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return std::fprintf(stderr, "usage: convert_corpus_averages CORPUS.tsv\n"), 2;
  std::ifstream in(argv[1]);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> f;
    std::stringstream fields(line);
    for (std::string item; std::getline(fields, item, '\t');) f.push_back(item);
    if (f.size() < 4) continue;
    f.resize(6);
    auto dtype = parse_dtype(f[1]);
    if (!dtype) continue;
    Result<ConvertPlan> plan = make_error("no layouts", 0, "src");
    if (f[4].empty()) {
      plan = plan_permute(int_list(f[2]), int_list(f[3]), *dtype);
    } else {
      auto src = parse_layout(f[4]);
      auto dst = parse_layout(f[5]);
      if (src && dst) plan = plan_convert(*src, *dst, int_list(f[2]), *dtype);
    }
    if (!plan) {
      std::printf("{\"case\":\"%s\",\"error\":\"%s\"}\n", f[0].c_str(), plan.error().message.c_str());
      continue;
    }
    const ConvertAverages avg = convert_kernel_averages(*plan);
    std::printf(
        "{\"case\":\"%s\",\"avg_modelled\":%s,\"avg_sectors_read\":%.4f,\"avg_sectors_write\":%.4f,"
        "\"avg_smem_write\":%.4f,\"avg_smem_read\":%.4f}\n",
        f[0].c_str(), avg.modelled ? "true" : "false", avg.read_sectors, avg.write_sectors,
        avg.smem_store_wavefronts, avg.smem_load_wavefronts);
    std::fflush(stdout);
  }
  return 0;
}
