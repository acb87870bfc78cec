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

#include "corpus_cases.hpp"
#include "layoutscope/plan/convert.hpp"

using namespace layoutscope;

int main(int argc, char** argv) {
  if (argc < 2) return std::fprintf(stderr, "usage: convert_corpus_averages CORPUS.tsv\n"), 2;
  for (const LabCase& c : read_corpus(argv[1])) {
    auto plan = plan_case(c);
    if (!plan) {
      std::printf("{\"case\":\"%s\",\"error\":\"%s\"}\n", c.name.c_str(), plan.error().message.c_str());
      continue;
    }
    const ConvertAverages avg = convert_kernel_averages(*plan);
    std::printf(
        "{\"case\":\"%s\",\"avg_modelled\":%s,\"avg_sectors_read\":%.4f,\"avg_sectors_write\":%.4f,"
        "\"avg_smem_write\":%.4f,\"avg_smem_read\":%.4f}\n",
        c.name.c_str(), avg.modelled ? "true" : "false", avg.read_sectors, avg.write_sectors,
        avg.smem_store_wavefronts, avg.smem_load_wavefronts);
    std::fflush(stdout);
  }
  return 0;
}
