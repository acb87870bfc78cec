#include "bench/kinds/convert_run.hpp"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <numeric>
#include <random>
#include <tuple>

#include "layoutscope/compiled_layout.hpp"
#include "layoutscope/parse.hpp"

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

// The request's key: what makes two requests plan the same kernel.
std::string case_key(const ConvertCase& c) {
  const std::string dt(to_string(c.dtype));
  if (!c.perm.empty()) return "perm " + list_text(c.shape) + " " + list_text(c.perm) + " " + dt;
  return "layouts " + c.src + " " + c.dst + " " + list_text(c.shape) + " " + dt;
}

Result<ConvertPlan> plan_case(const ConvertCase& c) {
  if (!c.perm.empty()) return plan_permute(c.shape, c.perm, c.dtype);
  auto src = parse_layout(c.src);
  if (!src) return prefixed(src.error(), "src");
  auto dst = parse_layout(c.dst);
  if (!dst) return prefixed(dst.error(), "dst");
  return plan_convert(*src, *dst, c.shape, c.dtype);
}

struct CachedPlan {
  ConvertPlan plan;
  codegen::KernelSource source;
};

// Plans already made by this process, by request key (the first request of a key fills it), bounded in
// entries and in the bytes of their kernel texts: the oldest key goes first (each key costs some KiB, and
// a stream of distinct requests would otherwise grow the process without end).
constexpr size_t kCachedPlans = 256;
constexpr size_t kCachedPlanBytes = 8 << 20;
std::mutex plan_cache_mutex;
std::map<std::string, CachedPlan>& plan_cache() {
  static std::map<std::string, CachedPlan> cache;
  return cache;
}
std::deque<std::string>& plan_cache_order() {
  static std::deque<std::string> order;
  return order;
}
size_t plan_cache_bytes = 0;

size_t cached_plan_bytes(const std::string& key, const CachedPlan& c) {
  return key.size() + c.source.text.size() + sizeof(CachedPlan);
}

// Under plan_cache_mutex.
void cache_plan(const std::string& key, CachedPlan entry) {
  auto& cache = plan_cache();
  if (cache.count(key)) return;
  auto& order = plan_cache_order();
  const size_t bytes = cached_plan_bytes(key, entry);
  while (!order.empty() && (order.size() + 1 > kCachedPlans || plan_cache_bytes + bytes > kCachedPlanBytes)) {
    const auto first = cache.find(order.front());
    plan_cache_bytes -= cached_plan_bytes(first->first, first->second);
    cache.erase(first);
    order.pop_front();
  }
  order.push_back(key);
  plan_cache_bytes += bytes;
  cache.emplace(key, std::move(entry));
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

Result<ConvertCase> permute_case(const std::string& name, const std::vector<int64_t>& shape,
                                 const std::vector<int64_t>& perm, DType dtype) {
  ConvertCase c;
  c.name = name;
  c.shape = shape;
  c.perm = perm;
  c.dtype = dtype;
  auto plan = plan_permute(shape, perm, dtype);
  if (!plan) return prefixed(plan.error(), "perm");
  c.plan = std::move(plan).value();
  auto dst = permuted_layout(shape, perm);
  std::vector<int64_t> identity(shape.size());
  for (size_t i = 0; i < identity.size(); ++i) identity[i] = static_cast<int64_t>(i);
  auto src = permuted_layout(shape, identity);
  if (!dst || !src) return make_error("params.perm: not a permutation of the shape", 0, "params.perm");
  c.src = to_string(*src);
  c.dst = to_string(*dst);
  return c;
}

Result<ConvertCase> layout_case(const std::string& name, const std::string& src, const std::string& dst,
                                const std::vector<int64_t>& shape, DType dtype) {
  ConvertCase c;
  c.name = name;
  c.shape = shape;
  c.dtype = dtype;
  auto s = parse_layout(src);
  if (!s) return make_error("params.src: " + s.error().message, s.error().column, "params.src");
  auto d = parse_layout(dst);
  if (!d) return make_error("params.dst: " + d.error().message, d.error().column, "params.dst");
  c.src = to_string(*s);
  c.dst = to_string(*d);
  auto plan = plan_convert(*s, *d, shape, dtype);
  if (!plan) return prefixed(plan.error(), "dst");
  // The engine plans offset and swizzled sides (and tests/gpu/convert_lab.cpp verifies them on a GPU), but
  // the backends' buffers and device check here follow the strided modes alone: such a request is refused,
  // not run against a check that would misread it.
  for (const auto& [field, offset, swizzle] :
       {std::tuple{"params.src", plan->src_offset, plan->src_swizzle},
        std::tuple{"params.dst", plan->dst_offset, plan->dst_swizzle}}) {
    if (offset != 0 || swizzle.bits > 0)
      return make_error(
          std::string(field) +
              ": an offset or swizzled layout is planned (layoutscope plan) but not run by the agent "
              "yet; give the strided layout",
          0, field);
  }
  c.plan = std::move(plan).value();
  return c;
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
  PreparedConvert p;
  const std::string key = case_key(c);
  const auto t0 = std::chrono::steady_clock::now();
  auto plan = plan_case(c);
  if (!plan) return plan.error();
  p.source = codegen::convert_kernel_source(*plan);
  p.times.plan_s = seconds_since(t0);
  {
    std::lock_guard<std::mutex> lock(plan_cache_mutex);
    cache_plan(key, CachedPlan{*plan, p.source});
  }
  // A repeated request: the key is built from the request and looked up; the plan and text are reused.
  const auto t1 = std::chrono::steady_clock::now();
  {
    std::lock_guard<std::mutex> lock(plan_cache_mutex);
    const auto it = plan_cache().find(case_key(c));
    if (it == plan_cache().end()) return make_error("plan cache: the key just stored is missing");
    if (it->second.source.hash != p.source.hash)
      return make_error("plan cache: the cached kernel text differs from a fresh plan's");
  }
  p.times.cached_plan_s = seconds_since(t1);
  return p;
}

void fill_convert_input(const ConvertPlan& plan, std::span<std::byte> in, uint64_t seed) {
  const int eb = plan.elem_bytes;
  const int64_t count = static_cast<int64_t>(in.size()) / eb;
  for (int64_t o = 0; o < count; ++o) {
    const uint64_t v = convert_input_element(seed, o, eb);
    std::memcpy(in.data() + o * eb, &v, static_cast<size_t>(eb));  // little-endian: the low bytes
  }
}

Verification verify_convert(const ConvertCase& c, std::span<const std::byte> out, uint64_t seed) {
  Verification v;
  v.method =
      "host: every destination element out[dst(x)] compared byte for byte with the input element in[src(x)] "
      "of the same logical index x, both layouts evaluated directly (not through the plan)";
  auto src = parse_layout(c.src);
  auto dst = parse_layout(c.dst);
  if (!src || !dst) {
    v.first_mismatch = "layout text does not parse again";
    return v;
  }
  auto cs = CompiledLayout::compile(*src);
  auto cd = CompiledLayout::compile(*dst);
  if (!cs || !cd) {
    v.first_mismatch = "layouts do not compile";
    return v;
  }
  const int eb = c.plan.elem_bytes;
  const int64_t n = c.plan.elements;
  for (int64_t x = 0; x < n; ++x) {
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
