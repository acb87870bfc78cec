// The CPU backend: the same benchmarks on the host's threads, labelled as CPU results. It makes the agent
// useful where there is no GPU and lets CI exercise the whole path (HTTP -> job -> benchmark -> result).
// The kernels keep the document's access pattern: one float per field access, no whole-struct copy.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <span>
#include <thread>
#include <vector>

#include "bench/benchmark.hpp"
#include "bench/kinds/access_run.hpp"
#include "bench/kinds/convert_run.hpp"
#include "bench/kinds/reshard_run.hpp"
#include "bench/measure.hpp"
#include "bench/random_input.hpp"
#include "bench/request/request_cost.hpp"
#include "bench/verify.hpp"

namespace layoutscope::agent {
namespace {

int worker_count() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

// Runs body(begin, end) over [0, count) split into contiguous chunks, one per hardware thread.
template <class Body>
void parallel_for(int64_t count, Body body) {
  const int threads = static_cast<int>(std::min<int64_t>(worker_count(), std::max<int64_t>(1, count / 4096)));
  if (threads <= 1) {
    body(int64_t{0}, count);
    return;
  }
  std::vector<std::thread> pool;
  const int64_t chunk = (count + threads - 1) / threads;
  for (int t = 0; t < threads; ++t) {
    const int64_t b = t * chunk, e = std::min(count, b + chunk);
    if (b < e) pool.emplace_back([=] { body(b, e); });
  }
  for (auto& th : pool) th.join();
}

template <int kTouch>
void aos_touch(float* rec, int64_t b, int64_t e) {
  for (int64_t i = b; i < e; ++i) {
    float* f = rec + i * 8;  // element i: 8 consecutive floats (32 B)
    for (int k = 0; k < kTouch; ++k) f[k] += 1.0f;
  }
}

template <int kTouch>
void soa_touch(float* fields, int64_t n, int64_t b, int64_t e) {
  for (int k = 0; k < kTouch; ++k) {
    float* f = fields + k * n;  // field k: n consecutive floats
    for (int64_t i = b; i < e; ++i) f[i] += 1.0f;
  }
}

// The struct read and written in 16 B halves (the CUDA aos_vec kernel's access; the compiler picks the
// instructions here).
template <int kTouch>
void aos_vec_touch(float* rec, int64_t b, int64_t e) {
  for (int64_t i = b; i < e; ++i) {
    float half[2][4];
    std::memcpy(half[0], rec + i * 8, 16);
    if (kTouch == 8) std::memcpy(half[1], rec + i * 8 + 4, 16);
    for (int k = 0; k < kTouch; ++k) half[k / 4][k % 4] += 1.0f;
    std::memcpy(rec + i * 8, half[0], 16);
    if (kTouch == 8) std::memcpy(rec + i * 8 + 4, half[1], 16);
  }
}

void touch(float* data, AosSoaLayout layout, int64_t n, int t) {
  parallel_for(n, [&](int64_t b, int64_t e) {
    const bool soa = is_soa(layout), vec = layout == AosSoaLayout::kAosVec;
    switch (t) {
      case 1:
        soa ? soa_touch<1>(data, n, b, e) : vec ? aos_vec_touch<1>(data, b, e) : aos_touch<1>(data, b, e);
        break;
      case 2:
        soa ? soa_touch<2>(data, n, b, e) : vec ? aos_vec_touch<2>(data, b, e) : aos_touch<2>(data, b, e);
        break;
      case 4:
        soa ? soa_touch<4>(data, n, b, e) : vec ? aos_vec_touch<4>(data, b, e) : aos_touch<4>(data, b, e);
        break;
      default:
        soa ? soa_touch<8>(data, n, b, e) : vec ? aos_vec_touch<8>(data, b, e) : aos_touch<8>(data, b, e);
        break;
    }
  });
}

// 64x64 tiles (the CUDA tile64 variants' blocking; on the CPU the shared-memory layout has no bank model).
void transpose_tile64(const float* in, float* out, int64_t dim) {
  const int64_t tiles = (dim + 63) / 64;
  parallel_for(tiles * tiles, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t r0 = (t / tiles) * 64, c0 = (t % tiles) * 64;
      const int64_t rows = std::min<int64_t>(64, dim - r0), cols = std::min<int64_t>(64, dim - c0);
      for (int64_t c = 0; c < cols; ++c)
        for (int64_t r = 0; r < rows; ++r) out[(c0 + c) * dim + r0 + r] = in[(r0 + r) * dim + c0 + c];
    }
  });
}

void copy_ceiling(Ceiling c, const float* in, float* out, int64_t count) {
  parallel_for(count, [&](int64_t b, int64_t e) {
    switch (c) {
      case Ceiling::kMemcpy:
      case Ceiling::kCopyTma:  // not measured on a CPU (for_each_ceiling without TMA); memcpy if asked
        std::memcpy(out + b, in + b, static_cast<size_t>(e - b) * sizeof(float));
        break;
      case Ceiling::kCopyVec4: {
        int64_t i = b;
        for (; i + 4 <= e; i += 4) std::memcpy(out + i, in + i, 16);
        for (; i < e; ++i) out[i] = in[i];
        break;
      }
      case Ceiling::kCopyScalar:
        for (int64_t i = b; i < e; ++i) out[i] = in[i];
        break;
    }
  });
}

template <int kPad>
void transpose_tiled(const float* in, float* out, int64_t dim) {
  const int64_t tiles = (dim + 31) / 32;
  parallel_for(tiles * tiles, [&](int64_t b, int64_t e) {
    float tile[32][32 + kPad];
    for (int64_t t = b; t < e; ++t) {
      const int64_t r0 = (t / tiles) * 32, c0 = (t % tiles) * 32;
      const int64_t rows = std::min<int64_t>(32, dim - r0), cols = std::min<int64_t>(32, dim - c0);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) tile[r][c] = in[(r0 + r) * dim + c0 + c];
      for (int64_t c = 0; c < cols; ++c)
        for (int64_t r = 0; r < rows; ++r) out[(c0 + c) * dim + r0 + r] = tile[r][c];
    }
  });
}

void run_variant(TransposeVariant v, const float* in, float* out, int64_t dim) {
  switch (v) {
    case TransposeVariant::kCopy:
      parallel_for(dim, [&](int64_t b, int64_t e) {
        std::memcpy(out + b * dim, in + b * dim, static_cast<size_t>((e - b) * dim) * sizeof(float));
      });
      break;
    case TransposeVariant::kNaive:  // row r read contiguously, written as column r (stride dim)
      parallel_for(dim, [&](int64_t b, int64_t e) {
        for (int64_t r = b; r < e; ++r)
          for (int64_t c = 0; c < dim; ++c) out[c * dim + r] = in[r * dim + c];
      });
      break;
    case TransposeVariant::kTiled:
      transpose_tiled<0>(in, out, dim);
      break;
    case TransposeVariant::kPad:
      transpose_tiled<1>(in, out, dim);
      break;
    case TransposeVariant::kTile64Pad:
    case TransposeVariant::kTile64Swizzle:
      transpose_tile64(in, out, dim);
      break;
  }
}

int64_t sysconf_or(int name, int64_t fallback) {
  const long v = ::sysconf(name);
  return v > 0 ? v : fallback;
}

// Small defaults so that a CI machine with 2 cores finishes a sweep in a few seconds; a reshard simulated on
// the one device, no collectives, no hardware counters.
const BackendTraits& cpu_traits() {
  static const BackendTraits t = [] {
    BackendTraits b;
    b.name = "cpu";
    b.default_n = int64_t{1} << 20;
    b.default_dim = 1024;
    b.default_warmup = 1;
    b.default_min_samples = 5;
    b.default_max_time_s = 0.05;
    b.full_size_suite = false;
    b.mesh_on_devices = false;
    b.no_collectives = "the cpu backend runs no collectives";
    b.reshard_cells_limit = kReshardCpuCells;
    b.clock = "cpu";
    b.clock_label = "CPU Time";
    b.convert_host_bytes = kCpuConvertHostBytes;
    b.no_profile =
        "not measured: ncu (Nsight Compute) profiles CUDA kernels only, and this run used the cpu "
        "backend";
    b.no_access_counters =
        "not measured: the cpu backend runs the access on the host executor, which has no hardware counters";
    return b;
  }();
  return t;
}

class CpuBackend final : public Backend {
 public:
  const BackendTraits& traits() const override { return cpu_traits(); }
  std::optional<std::string> unavailable() const override { return std::nullopt; }

  std::vector<DeviceInfo> devices() override {
    DeviceInfo d;
    d.id = 0;
    d.kind = "cpu";
    d.name = cpu_model();
    d.multiprocessors = worker_count();
    d.global_memory_bytes = sysconf_or(_SC_PHYS_PAGES, 0) * sysconf_or(_SC_PAGESIZE, 4096);
    if (int64_t l2 = sysconf_or(_SC_LEVEL2_CACHE_SIZE, 0)) d.l2_cache_bytes = l2;
    if (int64_t l3 = sysconf_or(_SC_LEVEL3_CACHE_SIZE, 0)) d.last_level_cache_bytes = l3;
    d.telemetry.source = "none: CPU backend";
    return {d};
  }

  int64_t memory_budget_bytes(int) override {
    // A quarter of physical memory, at most 512 MiB: the CPU backend is for small runs and CI, and what a
    // run holds besides the counted buffers (the copy ceilings' two buffers of the destination's size, the
    // verification) keeps any accepted request's peak RSS within 1 GB.
    const int64_t phys = sysconf_or(_SC_PHYS_PAGES, 0) * sysconf_or(_SC_PAGESIZE, 4096);
    return std::min<int64_t>(phys / 4, int64_t{512} << 20);
  }

  Result<AosSoaMeasurement> run_aos_soa(int, const AosSoaParams& p, RunControl& ctl) override {
    AosSoaMeasurement m;
    m.before.source = m.after.source = "none: CPU backend";
    const int total =
        static_cast<int>(p.ns.size() * (p.touch_fields.size() * p.layouts.size() + kCeilingCount));
    int done = 0;
    for (int64_t n : p.ns) {
      std::vector<float> buf(static_cast<size_t>(n * 8));
      {
        std::vector<float> copy(buf.size());
        fill(buf.data(), false, n, p.sampling.seed);
        for_each_ceiling("n=" + std::to_string(n), ctl, done, total, m.ceilings, false, [&](Ceiling c) {
          return ceiling(c, buf.data(), copy.data(), n * 8, n, p.sampling, ctl,
                         [&] { return verify_aos_soa(copy, false, n, 0, p.sampling.seed); });
        });
      }
      for_each_aos_soa_state(p, n, ctl, done, total, m.states, [&](AosSoaState& s, AosSoaLayout layout) {
        const int t = s.touch_fields;
        const bool soa = is_soa(layout);
        fill(buf.data(), soa, n, p.sampling.seed);
        touch(buf.data(), layout, n, t);
        s.verification = verify_aos_soa(buf, soa, n, t, p.sampling.seed);
        s.time = sample(
            p.sampling, ctl, [&] { flush(); }, [&] { touch(buf.data(), layout, n, t); },
            [&] { return timed([&] { touch(buf.data(), layout, n, t); }); }, [] { return ClockReading{}; },
            "none: CPU backend");
      });
    }
    ctl.progress(1.0, "done");
    return m;
  }

  Result<TransposeMeasurement> run_transpose(int, const TransposeParams& p, RunControl& ctl) override {
    TransposeMeasurement m;
    m.before.source = m.after.source = "none: CPU backend";
    const int total = static_cast<int>(p.dims.size() * (p.variants.size() + kCeilingCount));
    int done = 0;
    for (int64_t dim : p.dims) {
      std::vector<float> in(static_cast<size_t>(dim * dim)), out(in.size());
      parallel_for(dim * dim, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) in[i] = random_input(p.sampling.seed, static_cast<uint64_t>(i));
      });
      for_each_ceiling("dim=" + std::to_string(dim), ctl, done, total, m.ceilings, false, [&](Ceiling c) {
        return ceiling(c, in.data(), out.data(), dim * dim, dim, p.sampling, ctl,
                       [&] { return verify_transpose(out, dim, false, p.sampling.seed); });
      });
      for_each_transpose_state(p, dim, ctl, done, total, m.states, [&](TransposeState& s) {
        const TransposeVariant v = s.variant;
        std::memset(out.data(), 0xff, out.size() * sizeof(float));  // poison: 0xffffffff
        run_variant(v, in.data(), out.data(), dim);
        s.verification = verify_transpose(out, dim, v != TransposeVariant::kCopy, p.sampling.seed);
        s.time = sample(
            p.sampling, ctl, [&] { flush(); }, [&] { run_variant(v, in.data(), out.data(), dim); },
            [&] { return timed([&] { run_variant(v, in.data(), out.data(), dim); }); },
            [] { return ClockReading{}; }, "none: CPU backend");
      });
    }
    ctl.progress(1.0, "done");
    return m;
  }

  // Each case: prepared (plan + CUDA text, timed), run once by the plan's host executor on fresh input and
  // checked element by element, then timed. The ceilings copy the same bytes (the case's destination size).
  Result<AccessMeasurement> run_access(int, const AccessParams& p, RunControl& ctl) override {
    return run_access_host(p, ctl);
  }

  Result<ReshardMeasurement> run_reshard(const ReshardParams& p, RunControl& ctl) override {
    return run_reshard_host(p, devices(), ctl);
  }

  Result<CollectiveMeasurement> run_collective(const CollectiveParams&, RunControl&) override {
    return make_error("the cpu backend runs no collectives (NCCL needs GPUs)", 0, "benchmark");
  }

  Result<ConvertMeasurement> run_convert(int, const ConvertParams& p, RunControl& ctl) override {
    ConvertMeasurement m;
    m.before.source = m.after.source = "none: CPU backend";
    std::map<int64_t, bool> ceiling_done;
    int total = static_cast<int>(p.cases.size());
    for (const auto& c : p.cases)
      if (!ceiling_done.count(convert_bytes(c.plan)))
        ceiling_done[convert_bytes(c.plan)] = false, total += kCeilingCount;
    int done = 0;
    for (const ConvertCase& c : p.cases) {
      const ConvertPlan& plan = c.plan;
      const int64_t bytes = convert_bytes(plan);
      // The source is left unwritten until the fill (no zeroing pass over a span of hundreds of MiB), which
      // asks ctl between chunks: a DELETE stops it within one.
      const size_t in_bytes = static_cast<size_t>(source_extent(plan) * plan.elem_bytes);
      const auto in_buffer = std::make_unique_for_overwrite<std::byte[]>(in_bytes);
      const std::span<std::byte> in(in_buffer.get(), in_bytes);
      std::vector<std::byte> out(static_cast<size_t>(destination_extent(plan) * plan.elem_bytes));
      fill_convert_input(plan, in, p.sampling.seed, ctl);
      if (!ceiling_done[bytes]) {
        ceiling_done[bytes] = true;
        // The ceilings copy bytes / 2 (one side) as floats; their check is a byte compare with the source.
        const int64_t count = bytes / 2 / static_cast<int64_t>(sizeof(float));
        std::vector<float> src(static_cast<size_t>(count)), dst(src.size());
        std::memcpy(src.data(), in.data(), std::min(in.size(), src.size() * sizeof(float)));
        for_each_ceiling(
            "bytes=" + std::to_string(bytes), ctl, done, total, m.ceilings, false, [&](Ceiling k) {
              CeilingState st = ceiling(k, src.data(), dst.data(), count, bytes, p.sampling, ctl, [&] {
                Verification v;
                v.method = "host: every copied float compared bit for bit with the source";
                for (int64_t i = 0; i < count; ++i) {
                  if (float_bits(src[i]) != float_bits(dst[i]) && v.mismatches++ == 0)
                    v.first_mismatch = "float " + std::to_string(i) + " differs from the source";
                  ++v.checked;
                }
                v.passed = v.mismatches == 0;
                return v;
              });
              return st;
            });
      }
      if (ctl.cancelled()) throw Cancelled{};
      ctl.progress(static_cast<double>(done++) / total, c.name);
      ConvertState s;
      s.name = c.name;
      s.source = &c;
      s.bytes = bytes;
      auto prepared = prepare_convert(c);
      if (!prepared) return prepared.error();
      s.kernel_name = prepared->source.name;
      s.source_hash = prepared->source.text_hash;
      s.nvrtc_options = prepared->source.options;
      s.source_length = static_cast<int64_t>(prepared->source.text.size());
      s.times = prepared->times;
      std::memset(out.data(), 0xff, out.size());  // poison: no input element is all ones
      Result<int64_t> first = make_error("not run");
      // the host execution asks the run's control every 2^20 elements: a DELETE stops it mid-copy
      const auto stopped = [&] { return ctl.cancelled(); };
      auto run_once = [&] {
        auto moved = execute_convert_host(plan, in, out, stopped);
        if (!moved && ctl.cancelled()) throw Cancelled{};
        return moved;
      };
      s.times.first_run_s = timed([&] { first = run_once(); });
      if (!first) return first.error();
      s.times.single_use_s = s.times.plan_s + s.times.first_run_s;
      ctl.progress(static_cast<double>(done - 1) / total, c.name + ": verify");
      s.verification = verify_convert(c, out, p.sampling.seed, ctl);
      s.time = sample(
          p.sampling, ctl, [&] { flush(); }, [&] { (void)run_once(); },
          [&] { return timed([&] { (void)run_once(); }); }, [] { return ClockReading{}; },
          "none: CPU backend");
      m.states.push_back(std::move(s));
    }
    ctl.progress(1.0, "done");
    return m;
  }

 private:
  static std::string cpu_model() {
    std::ifstream f("/proc/cpuinfo");
    std::string line;
    while (std::getline(f, line)) {
      if (line.rfind("model name", 0) == 0) {
        const auto colon = line.find(':');
        if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
      }
    }
    return "host CPU";
  }

  static void fill(float* buf, bool soa, int64_t n, uint64_t seed) {
    parallel_for(n, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i)
        for (int64_t k = 0; k < 8; ++k)
          buf[field_offset(soa, n, i * 8 + k)] = random_input(seed, static_cast<uint64_t>(i * 8 + k));
    });
  }

  template <class F>
  static double timed(F f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  // Cold mode: overwrite twice the last-level cache (32 MiB when the size is unknown).
  void flush() {
    if (flush_.empty()) {
      const int64_t llc = sysconf_or(_SC_LEVEL3_CACHE_SIZE, sysconf_or(_SC_LEVEL2_CACHE_SIZE, 16 << 20));
      flush_.resize(static_cast<size_t>(std::clamp<int64_t>(2 * llc, 32 << 20, 128 << 20)));
    }
    std::memset(flush_.data(), ++flush_value_, flush_.size());
  }

  template <class Verify>
  CeilingState ceiling(Ceiling c, const float* in, float* out, int64_t count, int64_t size,
                       const Sampling& sampling, RunControl& ctl, Verify verify) {
    CeilingState st;
    st.ceiling = c;
    st.bytes = count * static_cast<int64_t>(sizeof(float));
    st.size = size;
    std::memset(out, 0xff, static_cast<size_t>(st.bytes));
    copy_ceiling(c, in, out, count);
    st.verification = verify();
    st.time = sample(
        sampling, ctl, [&] { flush(); }, [&] { copy_ceiling(c, in, out, count); },
        [&] { return timed([&] { copy_ceiling(c, in, out, count); }); }, [] { return ClockReading{}; },
        "none: CPU backend");
    return st;
  }

  std::vector<unsigned char> flush_;
  unsigned char flush_value_ = 0;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }

}  // namespace layoutscope::agent
