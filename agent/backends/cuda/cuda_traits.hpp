// What the CUDA backend is, as values (benchmark.hpp's BackendTraits): the same whether the agent was built
// with CUDA (cuda_backend.cpp) or without it (cuda_backend_absent.cpp, which runs nothing).
#pragma once

#include "bench/benchmark.hpp"
#include "bench/kinds/reshard_run.hpp"

namespace layoutscope::agent {

// GPU defaults: 2^26 structs = 2 GiB (> 4x the H200's 60 MiB L2); dim 4096 as in the document; at least 10
// samples, at most 0.25 s per state once those are in. A reshard's mesh and a collective's gpus are the
// machine's GPUs; ncu measures the kernels.
inline const BackendTraits& cuda_traits() {
  static const BackendTraits t = [] {
    BackendTraits b;
    b.name = "cuda";
    b.default_n = int64_t{1} << 26;
    b.default_dim = 4096;
    b.default_warmup = 3;
    b.default_min_samples = 10;
    b.default_max_time_s = 0.25;
    b.full_size_suite = true;
    b.mesh_on_devices = true;
    b.reshard_cells_limit = kReshardGpuCells;
    b.clock = "gpu";
    b.clock_label = "GPU Time";
    return b;
  }();
  return t;
}

}  // namespace layoutscope::agent
