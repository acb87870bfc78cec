#include "bench/kinds/convert_run.hpp"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <random>

#include "bench/engine_calls.hpp"
#include "layoutscope/compiled_layout.hpp"

namespace layoutscope::agent {
namespace {

Error prefixed(const Error& e, const std::string& fallback_field) {
  const std::string field = "params." + (e.field.empty() ? fallback_field : e.field);
  return make_error(field + ": " + e.message, 0, field);
}

std::string list_text(const std::vector<int64_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(v[i]);
  }
  return s;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The request's key: what makes two requests plan the same kernel (the layouts as the request wrote them).
std::string layouts_key(const std::string& src, const std::string& dst, const std::vector<int64_t>& shape,
                        DType dtype) {
  return "layouts " + src + " " + dst + " " + list_text(shape) + " " + std::string(to_string(dtype));
}
std::string permute_key(const std::vector<int64_t>& shape, const std::vector<int64_t>& perm, DType dtype) {
  return "perm " + list_text(shape) + " " + list_text(perm) + " " + std::string(to_string(dtype));
}

// What a request planned: its layouts, the plan, the kernel text, and how long planning took.
struct PlannedCase {
  Layout src, dst;
  ConvertPlan plan;
  std::shared_ptr<const codegen::KernelSource> kernel;
  double plan_s = 0;
};

// Plans this process made, by request key: a repeated request takes its layouts, plan and kernel text from
// here instead of parsing and planning again. At most kPlanCacheEntries; the oldest entry goes first.
constexpr size_t kPlanCacheEntries = 256;
std::mutex plan_cache_mutex;
std::map<std::string, PlannedCase> plan_cache;
std::deque<std::string> plan_cache_order;

std::optional<PlannedCase> cached_plan(const std::string& key) {
  std::lock_guard<std::mutex> lock(plan_cache_mutex);
  const auto it = plan_cache.find(key);
  if (it == plan_cache.end()) return std::nullopt;
  return it->second;
}

void remember_plan(const std::string& key, const PlannedCase& c) {
  std::lock_guard<std::mutex> lock(plan_cache_mutex);
  if (!plan_cache.try_emplace(key, c).second) return;
  plan_cache_order.push_back(key);
  while (plan_cache_order.size() > kPlanCacheEntries) {
    plan_cache.erase(plan_cache_order.front());
    plan_cache_order.pop_front();
  }
}

// The case of request `key`: from the plan cache (cached_plan_s: that lookup), or made by `plan` (parse and
// plan from the request, then the kernel text; plan_s: all of it) and remembered, cached_plan_s then the
// lookup that a repeated request makes.
template <class Plan>
Result<ConvertCase> planned_case(const std::string& name, const std::string& key,
                                 const std::vector<int64_t>& shape, const std::vector<int64_t>& perm,
                                 DType dtype, Plan plan) {
  ConvertCase c;
  c.name = name;
  c.shape = shape;
  c.perm = perm;
  c.dtype = dtype;
  const auto t0 = std::chrono::steady_clock::now();
  std::optional<PlannedCase> hit = cached_plan(key);
  const double lookup_s = seconds_since(t0);
  if (!hit) {
    const auto t1 = std::chrono::steady_clock::now();
    Result<PlannedCase> planned = plan();
    if (!planned) return planned.error();
    PlannedCase made = std::move(planned).value();
    made.kernel = std::make_shared<const codegen::KernelSource>(codegen::convert_kernel_source(made.plan));
    made.plan_s = seconds_since(t1);
    remember_plan(key, made);
    const auto t2 = std::chrono::steady_clock::now();
    hit = cached_plan(key);
    c.cached_plan_s = seconds_since(t2);
    if (!hit) hit = std::move(made);  // already evicted by other requests: still this request's plan
  } else {
    c.cached_plan_s = lookup_s;
  }
  c.src = std::move(hit->src);
  c.dst = std::move(hit->dst);
  c.plan = std::move(hit->plan);
  c.kernel = std::move(hit->kernel);
  c.plan_s = hit->plan_s;
  return c;
}

}  // namespace

Result<ConvertCase> permute_case(const std::string& name, const std::vector<int64_t>& shape,
                                 const std::vector<int64_t>& perm, DType dtype) {
  return planned_case(name, permute_key(shape, perm, dtype), shape, perm, dtype,
                      [&]() -> Result<PlannedCase> {
                        PlannedCase p;
                        auto plan = plan_permute_counted(shape, perm, dtype);
                        if (!plan) return prefixed(plan.error(), "perm");
                        p.plan = std::move(plan).value();
                        auto dst = permuted_layout(shape, perm);
                        std::vector<int64_t> identity(shape.size());
                        for (size_t i = 0; i < identity.size(); ++i) identity[i] = static_cast<int64_t>(i);
                        auto src = permuted_layout(shape, identity);
                        if (!dst || !src)
                          return make_error("params.perm: not a permutation of the shape", 0, "params.perm");
                        p.src = std::move(src).value();
                        p.dst = std::move(dst).value();
                        return p;
                      });
}

Result<ConvertCase> layout_case(const std::string& name, const std::string& src, const std::string& dst,
                                const std::vector<int64_t>& shape, DType dtype) {
  return planned_case(
      name, layouts_key(src, dst, shape, dtype), shape, {}, dtype, [&]() -> Result<PlannedCase> {
        PlannedCase p;
        auto s = parse_layout_counted(src);
        if (!s) return make_error("params.src: " + s.error().message, s.error().column, "params.src");
        auto d = parse_layout_counted(dst);
        if (!d) return make_error("params.dst: " + d.error().message, d.error().column, "params.dst");
        auto plan = plan_convert_counted(*s, *d, shape, dtype);
        if (!plan) return prefixed(plan.error(), "dst");
        // Offset and swizzled sides run as planned: the backends size each buffer by the side's span
        // (source_extent, destination_extent) and check through each layout's own evaluation (offset and
        // swizzle included), never through the plan.
        p.src = std::move(s).value();
        p.dst = std::move(d).value();
        p.plan = std::move(plan).value();
        return p;
      });
}

std::vector<SuitePermutation> suite_permutations(int random_count) {
  struct Named {
    const char* name;
    std::vector<int64_t> shape, perm;  // the f32 shape
  };
  const Named named[] = {
      {"transpose_8192x8192", {8192, 8192}, {1, 0}},
      {"batched_64x1024x1024_021", {64, 1024, 1024}, {0, 2, 1}},
      {"nchw_to_nhwc_64x64x128x128", {64, 64, 128, 128}, {0, 2, 3, 1}},
      {"nhwc_to_nchw_64x128x128x64", {64, 128, 128, 64}, {0, 3, 1, 2}},
      {"bshd_to_bhsd_16x4096x32x32", {16, 4096, 32, 32}, {0, 2, 1, 3}},
      {"reverse_256x256x1024", {256, 256, 1024}, {2, 1, 0}},
      {"aos_to_soa_8388608x8", {8388608, 8}, {1, 0}},
      {"soa_to_aos_8x8388608", {8, 8388608}, {1, 0}},
  };
  const DType dtypes[] = {DType::kF32, DType::kBF16, DType::kU8};
  std::vector<SuitePermutation> out;
  for (DType dt : dtypes) {
    for (const Named& p : named) {
      SuitePermutation c{std::string(p.name) + "_" + std::string(to_string(dt)), p.shape, p.perm, dt};
      c.shape[0] *= 4 / dtype_bytes(dt);
      out.push_back(std::move(c));
    }
  }
  std::mt19937 rng(20261201);
  for (int i = 0; i < random_count; ++i) {
    const int rank = 3 + i % 4;
    const DType dt = dtypes[i % 3];
    int bits = 26 + (dt == DType::kBF16 ? 1 : dt == DType::kU8 ? 2 : 0) - rank;  // 256 MiB
    std::vector<int64_t> shape(rank), perm(rank);
    std::vector<int> b(rank, 1);
    while (bits-- > 0) ++b[rng() % rank];
    for (int k = 0; k < rank; ++k) shape[k] = int64_t{1} << b[k];
    std::iota(perm.begin(), perm.end(), int64_t{0});
    do std::shuffle(perm.begin(), perm.end(), rng);
    while (std::is_sorted(perm.begin(), perm.end()));
    std::string name = "random";
    name += std::to_string(i) + '_';
    for (int k = 0; k < rank; ++k) {
      if (k) name += 'x';
      name += std::to_string(shape[k]);
    }
    name += "_p";
    for (int64_t q : perm) name += std::to_string(q);
    out.push_back({name + "_" + std::string(to_string(dt)), shape, perm, dt});
  }
  return out;
}

Result<std::vector<ConvertCase>> permutation_suite(bool full_size) {
  std::vector<ConvertCase> out;
  for (SuitePermutation& p : suite_permutations()) {
    const int64_t eb = dtype_bytes(p.dtype);
    std::string name = p.name;
    if (!full_size) {
      const std::string dtype_suffix = std::string("_").append(to_string(p.dtype));
      name = name.substr(0, name.size() - dtype_suffix.size());
      auto bytes = [&] {
        int64_t b = eb;
        for (int64_t d : p.shape) b *= d;
        return b;
      };
      while (bytes() > (int64_t{1} << 20)) *std::max_element(p.shape.begin(), p.shape.end()) /= 2;
      name = "small_" + name + "_as_";
      for (size_t i = 0; i < p.shape.size(); ++i) {
        if (i) name += 'x';
        name += std::to_string(p.shape[i]);
      }
      name += dtype_suffix;
    }
    auto c = permute_case(name, p.shape, p.perm, p.dtype);
    if (!c) return c.error();
    out.push_back(std::move(c).value());
  }
  return out;
}

Result<PreparedConvert> prepare_convert(const ConvertCase& c) {
  if (!c.kernel)
    return make_error(c.name + ": no kernel text (the case was not made by permute_case or layout_case)");
  PreparedConvert p;
  p.source = *c.kernel;
  p.times.plan_s = c.plan_s;
  p.times.cached_plan_s = c.cached_plan_s;
  return p;
}

void fill_convert_input(const ConvertPlan& plan, std::span<std::byte> in, uint64_t seed,
                        const RunControl& ctl) {
  const int eb = plan.elem_bytes;
  const int64_t count = static_cast<int64_t>(in.size()) / eb;
  for (int64_t start = 0; start < count; start += kFillChunk) {
    if (ctl.cancelled()) throw Cancelled{};
    const int64_t end = std::min(count, start + kFillChunk);
    for (int64_t o = start; o < end; ++o) {
      const uint64_t v = convert_input_element(seed, o, eb);
      std::memcpy(in.data() + o * eb, &v, static_cast<size_t>(eb));  // little-endian: the low bytes
    }
  }
}

Verification verify_convert(const ConvertCase& c, std::span<const std::byte> out, uint64_t seed,
                            const RunControl& ctl) {
  Verification v;
  v.method =
      "host: every destination element out[dst(x)] compared byte for byte with the input element in[src(x)] "
      "of the same logical index x, both layouts evaluated directly (not through the plan)";
  auto cs = CompiledLayout::compile(c.src);
  auto cd = CompiledLayout::compile(c.dst);
  if (!cs || !cd) {
    v.first_mismatch = "layouts do not compile";
    return v;
  }
  const int eb = c.plan.elem_bytes;
  const int64_t n = c.plan.elements;
  for (int64_t x = 0; x < n; ++x) {
    if (x % kFillChunk == 0 && ctl.cancelled()) throw Cancelled{};
    int64_t so = 0, d = 0;
    cs->map(x, 0, &so);
    cd->map(x, 0, &d);
    uint64_t want = convert_input_element(seed, so, eb), got = 0;
    if ((d + 1) * eb > static_cast<int64_t>(out.size())) {
      ++v.mismatches;
      continue;
    }
    std::memcpy(&got, out.data() + d * eb, static_cast<size_t>(eb));
    if (want != got) {
      if (v.mismatches++ == 0) {
        char buf[160];
        std::snprintf(buf, sizeof buf,
                      "logical element %" PRId64 " (destination offset %" PRId64 ", source offset %" PRId64
                      "): expected 0x%" PRIx64 ", got 0x%" PRIx64,
                      x, d, so, want, got);
        v.first_mismatch = buf;
      }
    }
    ++v.checked;
  }
  v.passed = v.mismatches == 0 && v.checked == n;
  return v;
}

}  // namespace layoutscope::agent
