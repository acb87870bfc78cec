// Forward-mapping throughput of the engine: mappings per second on one core.
//   build/bin/layoutscope-bench --benchmark_min_time=1
// Target: >= 200M mappings/s native on one core.
#include <benchmark/benchmark.h>

#include "layoutscope/compiled_layout.hpp"
#include "layoutscope/parse.hpp"

namespace ls = layoutscope;

namespace {

void run(benchmark::State& state, const char* text) {
  auto layout = ls::parse_layout(text);
  auto compiled = ls::CompiledLayout::compile(*layout);
  const ls::CompiledLayout& c = *compiled;
  int64_t mappings = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(c.checksum_all());
    mappings += c.size() * c.replicas();
  }
  state.counters["mappings/s"] =
      benchmark::Counter(static_cast<double>(mappings), benchmark::Counter::kIsRate);
}

void BM_ForwardTile4Mode(benchmark::State& state) { run(state, "S[(4,2,2,4):(16,4,8,1)]"); }
void BM_ForwardTile4ModeLarge(benchmark::State& state) { run(state, "S[(64,32,16,32):(16384,32,512,1)]"); }
void BM_ForwardNonPow2(benchmark::State& state) { run(state, "S[(3,5,7,9):(315,63,9,1)]"); }
void BM_ForwardScaleFactorsWithReplicas(benchmark::State& state) {
  run(state, "S[(4,32,4):(1@TCol,1@TLane,1@byte)] + R[4:32@TLane]");
}
void BM_ForwardSwizzled(benchmark::State& state) { run(state, "Swizzle<3,3,3> o S[(64,64):(64,1)]"); }

}  // namespace

BENCHMARK(BM_ForwardTile4Mode);
BENCHMARK(BM_ForwardTile4ModeLarge);
BENCHMARK(BM_ForwardNonPow2);
BENCHMARK(BM_ForwardScaleFactorsWithReplicas);
BENCHMARK(BM_ForwardSwizzled);
BENCHMARK_MAIN();
